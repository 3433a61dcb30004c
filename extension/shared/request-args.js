// request-args.js: what each UI request carries (messages.js Request), as one table the worker's
// port checks every request against before a handler runs (panel-ports.js), and the type each
// handler's message has (RequestArgs<T>), made from the same table. A request whose members do not
// fit is refused with BAD_REQUEST and says which member is wrong; a handler reads its members as
// the table declares them and checks only what the table cannot say (a step number that exists,
// JSON text that parses).
//
// A member's spec: 'string', 'number', 'integer', 'boolean', 'object', 'array', 'any', or several
// joined with '|'; a leading '?' makes it optional (absent, undefined or null). Members not in the
// table are ignored, as a newer page may send more than an older worker reads.

import { Request } from './messages.js';

/** Members every id-bearing request has besides its own: `type` and `id` (panel-ports.js checks them). */
export const REQUEST_ARGS = Object.freeze(/** @type {const} */ ({
  [Request.HELLO]: { v: 'number', tabId: '?integer', counts: '?boolean' },
  [Request.PING]: {},
  [Request.WATCH]: { key: 'string', budget: '?number', log: '?boolean' },
  [Request.UNWATCH]: { key: 'string' },
  [Request.GET_NODES]: { key: 'string', sub: '?string', paths: 'array' },
  [Request.INVOKE]: { key: 'string', path: 'string', action: 'string', params: '?any', paramsText: '?string' },
  [Request.SUBSCRIBE]: { key: 'string', options: '?object' },
  [Request.UNSUBSCRIBE]: { key: 'string', sub: 'string' },
  [Request.QUERY]: { key: 'string', options: '?object' },
  [Request.AGENT_VIEW]: { key: 'string', sub: '?string' },
  [Request.CONFORMANCE]: { key: 'string' },
  [Request.PROFILE]: { key: 'string', sub: '?string', since: '?integer', withTools: '?boolean' },
  [Request.CHECK_DRIFT]: { key: 'string', sub: '?string' },
  [Request.SEND_TO_STRING]: { key: 'string', sub: '?string' },
  [Request.STRING_FIND_AGENTS]: { address: '?string' },
  [Request.STRING_USE_AGENT]: { address: '?string', agentId: 'string' },
  [Request.CONNECT_TO]: { address: 'string', token: '?string', anyway: '?boolean' },
  [Request.REMOVE_PROVIDER]: { key: 'string' },
  [Request.VALIDATE_PARAMS]: { schema: '?any', params: '?any', schemaText: '?string', paramsText: '?string' },
  [Request.GET_TREE]: { key: 'string', sub: '?string' },
  [Request.INSPECT_TREE]: { text: 'string', name: '?string', budget: '?number' },
  [Request.CLOSE_IMPORT]: { key: 'string' },
  [Request.APPROVE]: { key: 'string' },
  [Request.DENY]: { key: 'string' },
  [Request.RETRY]: { key: 'string' },
  [Request.WAKE]: {},
  [Request.BRIDGE_DECIDE]: { approval: 'string', allow: 'boolean' },
  [Request.BRIDGE_RETRY]: {},
  [Request.HISTORY]: { key: 'string' },
  [Request.HISTORY_STATE]: { key: 'string', step: 'integer', have: '?integer' },
  [Request.HISTORY_DIFF]: { key: 'string', from: 'integer', to: 'integer', paths: '?boolean' },
  [Request.HISTORY_PERSIST]: { key: 'string', on: 'boolean' },
  [Request.HISTORY_EXPORT]: { key: 'string' },
  [Request.HISTORY_HOLD]: { key: 'string', steps: 'array' },
  [Request.HISTORY_PAUSE]: { key: 'string', on: 'boolean' },
  [Request.HISTORY_FILTER]: { key: 'string', path: '?string', kinds: '?array' },
  [Request.OPEN_RECORDING]: { text: 'string', name: '?string' },
  [Request.CLOSE_RECORDING]: { key: 'string' },
  [Request.AGENT_RUN]: { keys: 'array', profileId: 'string', task: 'string', maxSteps: '?integer' },
  [Request.AGENT_REPLAY]: { keys: 'array', session: 'string' },
  [Request.AGENT_STOP]: { runId: 'string' },
  [Request.AGENT_CONFIRM]: { runId: 'string', confirmId: 'string', allow: 'boolean' },
  [Request.AGENT_MODELS]: { profileId: '?string', endpoint: '?object' },
  [Request.LOCAL_APPS]: {},
  [Request.LOCAL_OPEN]: { appId: 'string', approveCommand: '?array' },
  [Request.LOCAL_CLOSE]: { key: 'string' },
}));

/** @typedef {keyof typeof REQUEST_ARGS} RequestType */

/**
 * The value a spec stands for.
 * @template {string} S
 * @typedef {S extends `?${infer R}` ? SpecValue<R> | undefined | null
 *   : S extends `${infer A}|${infer B}` ? SpecValue<A> | SpecValue<B>
 *   : S extends 'string' ? string : S extends 'number' | 'integer' ? number : S extends 'boolean' ? boolean
 *   : S extends 'object' ? Record<string, any> : S extends 'array' ? any[] : any} SpecValue
 */

/**
 * A request's message as its handler gets it: `type`, `id` and the table's members, typed.
 * @template {RequestType} T
 * @typedef {{type: T, id: number} & {[K in keyof (typeof REQUEST_ARGS)[T]]: SpecValue<(typeof REQUEST_ARGS)[T][K] & string>}} RequestArgs
 */

/**
 * The members a page sends with a request of type T (UiPort.request): the table's, the optional
 * ones optional, so tsc checks a page's request against the same table the worker checks it with.
 * @template {RequestType} T
 * @typedef {{[K in keyof (typeof REQUEST_ARGS)[T] as (typeof REQUEST_ARGS)[T][K] extends `?${string}` ? never : K]: SpecValue<(typeof REQUEST_ARGS)[T][K] & string>}
 *   & {[K in keyof (typeof REQUEST_ARGS)[T] as (typeof REQUEST_ARGS)[T][K] extends `?${string}` ? K : never]?: SpecValue<(typeof REQUEST_ARGS)[T][K] & string>}} RequestFields
 */

/** @type {Record<string, (v: unknown) => boolean>} */
const IS = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: (v) => Number.isSafeInteger(v),
  boolean: (v) => typeof v === 'boolean',
  object: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
  array: (v) => Array.isArray(v),
  any: () => true,
};

/** @type {Record<string, string>} */
const WORDS = { string: 'a string', number: 'a number', integer: 'an integer', boolean: 'true or false', object: 'an object', array: 'an array', any: 'a value' };

/**
 * What is wrong with a request's members, in words, or null when they fit the table. A type the
 * table does not have is wrong too (the caller checked the catalogue first).
 * @param {string} type @param {Record<string, unknown>} msg
 * @returns {string|null}
 */
export function requestArgsProblem(type, msg) {
  const spec = /** @type {Record<string, string>|undefined} */ (REQUEST_ARGS[/** @type {RequestType} */ (type)]);
  if (!spec) return `${type} has no declared members`;
  for (const [name, s] of Object.entries(spec)) {
    const optional = s.startsWith('?');
    const kinds = (optional ? s.slice(1) : s).split('|');
    const v = msg[name];
    if (v === undefined || v === null) {
      if (optional) continue;
      return `${type}: "${name}" is missing`;
    }
    if (!kinds.some((k) => IS[k]?.(v))) return `${type}: "${name}" must be ${kinds.map((k) => WORDS[k] ?? k).join(' or ')}`;
  }
  return null;
}
