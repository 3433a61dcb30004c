// session-host.js: what a consumer session (consumer-session.js) is given and how it reports: the
// host it runs in (the core, tokens, the WebSocket class, a local transport's opener) and its
// transports' shapes, its listeners and how they are told, and the first subscription's state as
// the core says it. Imports only the core's names (core-contract.js).

import { SubscriptionState } from './core-contract.js';

/**
 * @typedef {object} SyncState   the first subscription's state (ProviderInfo.sync)
 * @property {'none'|import('./core-contract.js').SubscriptionStateValue} state   none: no subscription
 * @property {{code: string, message: string}|null} reason   why it is not live
 * @property {number|null} retryAt   when the core retries a stale subscription by itself
 */

/**
 * @typedef {object} CoreStatus  slop_consumer_status(): what SlopConsumer.status() returns
 * @property {boolean} hello @property {boolean} closed @property {boolean} refused @property {boolean} document
 * @property {{id: string, name: string, slop_version: string}|null} provider   from hello
 * @property {string[]} capabilities   the ones the core accepted
 * @property {number} pending @property {number} ignored_frames @property {number} stale_patches
 * @property {number} nodes   mirrored nodes, all subscriptions
 * @property {CoreSubscription[]} subscriptions
 */
/**
 * @typedef {object} CoreSubscription  one subscription in CoreStatus
 * @property {string} sub @property {string} wire  the provider's id of it @property {string} path
 * @property {object} options  as subscribed
 * @property {import('./core-contract.js').SubscriptionStateValue} state
 * @property {{code: string, message: string}|null} reason  null when live
 * @property {number|null} retry_at  when the core retries it by itself
 * @property {number} [version] @property {number} [seq]  once it has a snapshot
 * @property {number} nodes
 */

/**
 * The first subscription's state from core status() (ProviderInfo.sync).
 * @param {CoreStatus|null} st core status() or null @param {string|null} sub @returns {SyncState}
 */
function syncOf(st, sub) {
  const s = sub ? st?.subscriptions?.find((x) => x.sub === sub) : null;
  if (!s) return { state: 'none', reason: null, retryAt: null };
  const r = s.reason;
  return {
    state: /** @type {SyncState['state']} */ (String(s.state)), // the core's (slop_core.h)
    reason: s.state !== SubscriptionState.LIVE && r && typeof r === 'object'
      ? { code: String(r.code ?? ''), message: String(r.message ?? '') } : null,
    retryAt: typeof s.retry_at === 'number' ? s.retry_at : null,
  };
}

/**
 * @typedef {object} SessionHost
 * @property {() => import('./slop-core.js').SlopCore} core  the loaded core
 * @property {(wsUrl: string) => Promise<string|null>} tokenFor
 * @property {typeof WebSocket} [WebSocket]       default: the global one
 * @property {import('./failure-text.js').Surface} [surface]  where failures are read, for their advice
 *   (default 'extension')
 * @property {number} [helloWaitMs]  an open WebSocket without a hello this long is said so (default 5 s)
 * @property {(transport: LocalTransportSpec, handlers: StreamHandlers) => StreamWire} [openStream]
 *   a local provider's Unix socket or command (node/local-transport.js in Node; the native
 *   messaging host in the extension); without it a session cannot reach a local provider
 */

/** @typedef {{type: 'unix', path: string}|{type: 'stdio', command: string[]}} LocalTransportSpec */
/** @typedef {{type: 'ws'|'postmessage'|'unix'|'stdio', url?: string, path?: string, command?: string[]}} SessionTransport */
/**
 * @typedef {object} StreamHandlers  what a stream transport calls (as WsTransport's handlers)
 * @property {() => void} onOpen
 * @property {(frame: string|Uint8Array) => void} onFrame  one line
 * @property {(info: {opened: boolean, noListener?: boolean, message: string}) => void} onClose
 * @property {(bytes: number) => void} onOversize  a line over the frame limit, dropped unread
 */
/** @typedef {{isOpen: boolean, send(text: string): boolean|void, close(): void}} StreamWire */

/**
 * @typedef {object} SessionListeners   each a Set of functions, called with the session first
 * @property {Set<Function>} change     (session) status, hello, subscriptions changed
 * @property {Set<Function>} coreEvent  (session, event) every core event
 * @property {Set<Function>} frame      (session, LogEntry) every frame in or out
 * @property {Set<Function>} input      (session, text) a provider frame as it came, before the core reads it
 * @property {Set<Function>} invoked    (session, {path, action, params}) an invoke the session sent
 */

/** @returns {SessionListeners} a fresh set of listeners */
export function sessionListeners() {
  return { change: new Set(), coreEvent: new Set(), frame: new Set(), input: new Set(), invoked: new Set() };
}

/** @param {Set<Function>} set @param {...any} args */
const emit = (set, ...args) => {
  for (const fn of set) {
    try { fn(...args); } catch (/** @type {any} */ e) { console.error('SLOP Inspector: listener failed:', e?.message ?? e); } // whatever it threw
  }
};

export { syncOf, emit };
