// provider.js: the provider object users' tests hold (Node side), the same for the Playwright
// library and the Node client. It reads the core's mirror through one function, call(method,
// ...args), which runs js-glue/provider-api.js where the connection lives: in the extension's
// service worker (Playwright) or in this process (Node client). It adds what a test needs on
// top: waiting, consent for dangerous affordances, errors that say what was there instead, and
// a stable text for snapshots.

import { stringifyExact, isExactNumber } from '../exact-json.js';
import { CoreEventName } from '../core-contract.js';
import { restartOf } from '../event-text.js';

export { stringifyExact, isExactNumber };

/** Error codes of SlopTestError (see the .d.ts for when each is thrown). */
export const SlopTestCode = Object.freeze({
  TIMEOUT: 'timeout',
  NO_PAGE: 'no_page',
  NO_PROVIDER: 'no_provider',
  AMBIGUOUS: 'ambiguous',
  PENDING_APPROVAL: 'pending_approval',
  DENIED: 'denied',
  AUTH_FAILED: 'auth_failed',
  UNREACHABLE: 'unreachable',
  PROTOCOL_ERROR: 'protocol_error',
  NOT_FOUND: 'not_found',
  DANGEROUS: 'dangerous',
  INVOKE_FAILED: 'invoke_failed',
  QUERY_FAILED: 'query_failed',
  CLOSED: 'closed',
});

export class SlopTestError extends Error {
  /** @param {string} code one of SlopTestCode @param {string} message @param {object} [details] */
  constructor(code, message, details = {}) {
    super(message);
    this.name = 'SlopTestError';
    this.code = code;
    Object.assign(this, details);
  }
}

/**
 * meta fields the spec calls volatile ("changed": cleared on the next patch cycle).
 * @type {readonly string[]}
 */
export const VOLATILE_FIELDS = Object.freeze(['meta.changed']);

/**
 * A stable, diff-friendly text of a SLOP tree for snapshot files: one line per node
 * (`id (type)`), then its fields with keys sorted, values as JSON exactly as the provider sent
 * them; children in the provider's order. `ignore` removes fields ("meta.changed",
 * "properties.updated_at"); `replace` maps a field to a fixed text (say "<time>").
 * @param {object|null} tree  SLOP node JSON (provider.tree())
 * @param {{ignore?: readonly string[], replace?: Record<string, string>}} [options]
 * @returns {string}
 */
export function stableText(tree, { ignore = VOLATILE_FIELDS, replace = {} } = {}) {
  if (!tree) return '(no node)\n';
  const ignored = new Set(ignore);
  /** @type {string[]} */
  const lines = [];
  /** @param {any} v @returns {any} */
  const sortKeys = (v) => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v && typeof v === 'object' && !isExactNumber(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
    return v;
  };
  /** @param {any} node @param {string} indent */
  const walk = (node, indent) => {
    lines.push(`${indent}${node.id ?? '?'} (${node.type ?? '?'})`);
    for (const field of ['properties', 'meta']) {
      const obj = node[field];
      if (!obj || typeof obj !== 'object') continue;
      for (const k of Object.keys(obj).sort()) {
        const name = `${field}.${k}`;
        if (ignored.has(name)) continue;
        const value = Object.hasOwn(replace, name) ? replace[name] : stringifyExact(sortKeys(obj[k]));
        lines.push(`${indent}  ${name}: ${value}`);
      }
    }
    for (const a of [...(node.affordances ?? [])].sort((x, y) => String(x.action).localeCompare(String(y.action)))) {
      const flags = ['dangerous', 'idempotent'].filter((f) => a[f] === true);
      const params = a.params ? ` ${stringifyExact(sortKeys(a.params))}` : '';
      lines.push(`${indent}  action ${a.action}${flags.length ? ` [${flags.join(', ')}]` : ''}${params}`);
    }
    if (node.content_ref) lines.push(`${indent}  content_ref: ${stringifyExact(sortKeys(node.content_ref))}`);
    for (const child of node.children ?? []) walk(child, `${indent}  `);
  };
  walk(tree, '');
  return `${lines.join('\n')}\n`;
}

/**
 * The deepest existing ancestor of `path` ("/" at worst) and its tree two levels deep, as text.
 * @param {ProviderCall} call @param {string} path @returns {Promise<{at: string|null, text: string}>}
 */
async function nearest(call, path) {
  const parts = String(path).split('/').filter(Boolean);
  for (let n = parts.length; n >= 0; n--) {
    const at = `/${parts.slice(0, n).join('/')}`;
    const tree = await call('tree', at, 2).catch(() => null);
    if (tree) {
      const text = stableText(tree).split('\n');
      const cut = text.length > 40 ? [...text.slice(0, 40), `… ${text.length - 40} more lines`] : text;
      return { at, text: cut.join('\n').trimEnd() };
    }
  }
  return { at: null, text: '(the mirror is empty)' };
}

/**
 * Deep partial match: every key of `want` is in `have` with an equal value (arrays exactly).
 * @param {any} have @param {any} want @returns {boolean}
 */
export function matchesPartial(have, want) {
  if (want === undefined) return true;
  if (Array.isArray(want)) return Array.isArray(have) && have.length === want.length && want.every((w, i) => matchesPartial(have[i], w));
  if (want && typeof want === 'object') {
    return !!have && typeof have === 'object' && Object.keys(want).every((k) => matchesPartial(have[k], want[k]));
  }
  return Object.is(have, want);
}

/** @param {any} node */
const exists = (node) => node !== null;
/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** @typedef {(method: string, ...args: any[]) => Promise<any>} ProviderCall  runs provider-api.js */
/** @typedef {{sub?: string}} SubOption  which subscription (default: the first) */

export class SlopProvider {
  #call;
  #label;

  /**
   * @param {ProviderCall} call
   * @param {string} label  how failure messages name this provider
   */
  constructor(call, label) {
    this.#call = call;
    this.#label = label;
  }

  /** How failure messages name this provider. */
  get label() { return this.#label; }

  info() { return this.#call('info'); }
  /** @param {string} [path] @param {number} [depth] -1: everything @param {SubOption} [o] */
  tree(path = '/', depth = -1, { sub } = {}) { return this.#call('tree', path, depth, sub); }
  /** The node view at path (no children; child_ids and path added), or null. @param {string} path @param {SubOption} [o] */
  node(path, { sub } = {}) { return this.#call('node', path, sub); }
  /**
   * The core's canonical tree text: the whole mirror, or the node at path and depth levels below
   * it (-1: all; a node the depth cuts says how many children it has; null when there is no node).
   * @param {SubOption & {path?: string, depth?: number}} [o]
   */
  text({ sub, path, depth } = {}) {
    return path === undefined && depth === undefined ? this.#call('text', sub) : this.#call('subtreeText', path ?? '/', depth ?? -1, sub);
  }
  /**
   * stableText() of the tree at path: for toMatchSnapshot.
   * @param {string} [path] @param {Parameters<typeof stableText>[1] & SubOption} [options]
   */
  async snapshot(path = '/', options = {}) { return stableText(await this.tree(path, -1, options), options); }
  /** The agent view's tools; maxTools: the core's most salient that many. @param {SubOption & {maxTools?: number}} [o] */
  tools({ sub, maxTools } = {}) { return this.#call('tools', sub, maxTools); }
  /** @param {{since?: number}} [o] */
  events({ since = 0 } = {}) { return this.#call('events', since); }
  /**
   * The provider's restarts seen since `since` (ms; a new process whose version went back, the
   * core's snapshot with restarted: true), oldest first: {event: 'restarted', sub, version,
   * previousVersion, at}. The same reading as the CLI's watch and the panel's History.
   * @param {{since?: number}} [o]
   * @returns {Promise<import('../event-text.js').Restart[]>}
   */
  async restarts({ since = 0 } = {}) {
    return /** @type {import('../event-text.js').Restart[]} */ ((await this.events({ since })).map(restartOf).filter(Boolean));
  }
  /**
   * Waits until the provider has restarted after `since` (take it before you restart the
   * provider: Date.now()); resolves with that restart, once the mirror holds the new tree.
   * @param {{since?: number, timeout?: number, interval?: number}} [o]
   */
  async waitForRestart({ since = Date.now(), timeout = 10_000, interval = 50 } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const [first] = await this.restarts({ since });
      if (first) return first;
      if (Date.now() >= deadline) break;
      await sleep(interval);
    }
    const info = await this.info();
    throw new SlopTestError(SlopTestCode.TIMEOUT, `${this.#label}: no restart in ${timeout} ms (status: ${info.status}${info.message ? `: ${info.message}` : ''})`);
  }
  frames() { return this.#call('frames'); }
  /** @param {object} [options] {path, depth, max_nodes, filter} */
  subscribe(options = {}) { return this.#call('subscribe', options); }
  /** @param {string} sub */
  unsubscribe(sub) { return this.#call('unsubscribe', sub); }
  /** @param {string} [sub] */
  subscription(sub) { return this.#call('subscription', sub); }
  /** The core's conformance report: every rule checked, and where this provider breaks them. */
  conformance() { return this.#call('conformance'); }
  /**
   * Asks the provider for the subscribed subtree and compares it with the mirror at the same
   * version: resolves with the core's drift event {status: "same"|"differs"|"inconclusive",
   * version, count, differences: [{path, mirror?, provider?}]}. Each difference is also a "drift"
   * conformance finding. Throws SlopTestError on a provider error, a timeout or a closed connection.
   * @param {SubOption} [o]
   */
  async checkDrift({ sub } = {}) {
    const { requestId, event } = await this.#send(SlopTestCode.QUERY_FAILED, 'drift check', 'checkDrift', sub);
    if (event.event === CoreEventName.DRIFT) return event;
    throw this.#requestFailure(SlopTestCode.QUERY_FAILED, 'drift check', event, { requestId });
  }

  /**
   * Polls the node at path until predicate(node) is truthy (default: the node exists); returns
   * the node. The predicate also sees null while the node is absent.
   * @param {string} path @param {(node: any) => unknown} [predicate]
   * @param {{timeout?: number, interval?: number} & SubOption} [o]
   */
  async waitFor(path, predicate = exists, { timeout = 5000, interval = 50, sub } = {}) {
    const deadline = Date.now() + timeout;
    let node = null;
    for (;;) {
      node = await this.node(path, { sub });
      if (await predicate(node)) return node;
      if (Date.now() >= deadline) break;
      await sleep(interval);
    }
    throw await this.failure(SlopTestCode.TIMEOUT,
      `timed out after ${timeout} ms waiting for ${path} ${predicate === exists ? 'to exist' : `to match ${predicate.name || 'the predicate'}`}; ` +
      `it is ${node ? stringifyExact(node).slice(0, 300) : 'absent'}`, path);
  }

  /**
   * Invokes an affordance and waits for its result. A dangerous affordance is refused unless
   * confirmDangerous is true. Returns {status: "ok"|"accepted", data, taskId, requestId}; throws
   * SlopTestError on an error result, a provider error, a timeout or a closed connection.
   * @param {string} path @param {string} action @param {unknown} [params]
   * @param {{confirmDangerous?: boolean}} [o]
   */
  async invoke(path, action, params = undefined, { confirmDangerous = false } = {}) {
    const node = await this.node(path);
    if (!node) throw await this.failure(SlopTestCode.NOT_FOUND, `no node at ${path}`, path);
    const affordance = (node.affordances ?? []).find((/** @type {{action: string}} */ a) => a.action === action);
    if (!affordance) {
      const have = (node.affordances ?? []).map((/** @type {{action: string}} */ a) => a.action);
      throw await this.failure(SlopTestCode.NOT_FOUND,
        `${path} has no affordance "${action}" (it has: ${have.length ? have.join(', ') : 'none'})`, path);
    }
    if (affordance.dangerous === true && !confirmDangerous) {
      throw new SlopTestError(SlopTestCode.DANGEROUS,
        `${this.#label}: "${action}" on ${path} is dangerous: pass {confirmDangerous: true} to invoke it`, { path, action });
    }
    const { requestId, event } = await this.#send(SlopTestCode.INVOKE_FAILED, `invoke "${action}" on ${path}`, 'invoke', path, action, params);
    if (event.event === CoreEventName.RESULT && event.status !== 'error') {
      return { status: event.status, data: event.data, taskId: event.task_id ?? null, requestId };
    }
    throw this.#requestFailure(SlopTestCode.INVOKE_FAILED, `invoke "${action}" on ${path}`, event, { path, action, requestId });
  }

  /**
   * A one-off read of the provider's state (not mirrored); returns the core's query event.
   * @param {{path?: string, depth?: number, max_nodes?: number, filter?: object, window?: [number, number]}} [options]
   */
  async query(options = {}) {
    const { requestId, event } = await this.#send(SlopTestCode.QUERY_FAILED, `query of ${options.path ?? '/'}`, 'query', options);
    if (event.event === CoreEventName.QUERY) return event;
    throw this.#requestFailure(SlopTestCode.QUERY_FAILED, `query of ${options.path ?? '/'}`, event, { requestId });
  }

  /**
   * Sends a request; the core refusing it (params outside the schema, not connected) becomes a SlopTestError.
   * @param {string} code @param {string} what @param {string} method @param {...any} args
   * @returns {Promise<{requestId: string, event: any}>}
   */
  async #send(code, what, method, ...args) {
    try {
      return await this.#call(method, ...args);
    } catch (/** @type {any} */ e) { // whatever the call threw
      // Through worker.evaluate the message arrives as "worker.evaluate: SlopError: <core message>" plus a stack.
      const message = String(e?.message ?? e).replace(/^(worker\.evaluate: )?(Error|SlopError): /, '').split('\n')[0];
      throw new SlopTestError(code, `${this.#label}: ${what} refused: ${message}`, { cause: e });
    }
  }

  /** @param {string} code @param {string} what @param {any} event @param {object} details */
  #requestFailure(code, what, event, details) {
    if (event.event === CoreEventName.TIMEOUT) return new SlopTestError(SlopTestCode.TIMEOUT, `${this.#label}: ${what}: no answer in time`, { ...details, event });
    if (event.event === CoreEventName.CLOSED) return new SlopTestError(SlopTestCode.CLOSED, `${this.#label}: ${what}: the connection closed first`, { ...details, event });
    const err = event.error ?? event;
    return new SlopTestError(code, `${this.#label}: ${what} failed: ${err.code ?? 'error'}: ${err.message ?? ''}`.trimEnd(),
      { ...details, event, providerCode: err.code ?? null });
  }

  /**
   * A SlopTestError naming the provider and the path, with the nearest part of the tree.
   * @param {string} code @param {string} message @param {string} path
   */
  async failure(code, message, path) {
    const near = await nearest(this.#call, path);
    return new SlopTestError(code,
      `${this.#label}: ${message}\nnearest node: ${near.at ?? '(none)'}\n${near.text.replace(/^/gm, '  ')}`, { path });
  }
}
