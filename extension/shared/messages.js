// messages.js: the catalogue of every message between the extension's contexts.
//
//   content script ──port "slop-content"──▶ service worker ◀──port "slop-panel"── DevTools panel
//                                                  ▲      ◀──port "slop-popup"── popup
//                     options page ──chrome.storage (settings-store.js)──┘
//
// Every message is a plain JSON object {type, ...fields}. The UI ports (panel, popup) speak a
// request/reply protocol on top: a request carries a numeric `id`, and the service worker answers
// it exactly once with {type: "reply", id, ok, result | error}. Everything else the service worker
// sends on a UI port is a push (no id).
//
// The service worker pushes DELTAS, never whole trees: on a snapshot it sends node views
// breadth-first up to a budget (`tree/reset`); on each patch it sends fresh views of the changed
// and added nodes the port has seen (or whose parent it has seen) plus the removed paths
// (`tree/delta`). A view not sent yet is fetched on demand with `getNodes`.
//
// A node view is exactly what the core's slop_consumer_node() returns: the node without its
// children, plus `child_ids` (in order) and `path` (absolute). The UI never applies patches.
//
// Tokens never appear in any message here. The options page writes a token straight into
// chrome.storage.local through settings-store.js; the service worker reads it from there.
//
// Bump PROTOCOL_VERSION on any incompatible change, and note why:
//   1  first version (issue 3).
//   2  the DevTools panel (issue 4): getTree (the core's tree JSON of a subscription, for export),
//      inspectTree / closeImport (a JSON file loaded into a throwaway core consumer, read-only),
//      subscriptions made through a UI port are owned by that port and dropped when it closes.
//
// content/content.js is a classic script and cannot import this module: it repeats the type
// strings of the content section verbatim (tests/node/messages.test.js checks they match).

export const PROTOCOL_VERSION = 2;

/** Port names. The service worker also checks each port's sender (see service-worker/sw.js). */
export const PORTS = Object.freeze({
  CONTENT: 'slop-content',
  PANEL: 'slop-panel',
  POPUP: 'slop-popup',
});

// ---------------------------------------------------------------------------------------------
// content script ↔ service worker (port "slop-content", one per top-level page)

/** Content script → service worker. */
export const FromContent = Object.freeze({
  /** First message on every (re)connected port. {v, url} */
  HELLO: 'content/hello',
  /** The raw contents of every <meta name="slop"> in document order, after any change. {url, metas} */
  DISCOVERY: 'content/discovery',
  /** Answer to PROBE_WELL_KNOWN: the raw /.well-known/slop response. {url, status, body, error} */
  WELL_KNOWN: 'content/well-known',
  /** A provider frame received by postMessage, origin- and source-checked. {text} */
  FRAME: 'content/frame',
  /** Keeps the service worker alive while the page has providers (sent every 20 s). {} */
  PING: 'content/ping',
});

/** Service worker → content script. */
export const ToContent = Object.freeze({
  /** There is no meta tag: fetch /.well-known/slop on the page's origin and send WELL_KNOWN. {} */
  PROBE_WELL_KNOWN: 'sw/probe-well-known',
  /** Start relaying {slop:true} provider messages of this page to the service worker. {} */
  PM_OPEN: 'sw/pm-open',
  /** Post {slop: true, message} to the page with targetOrigin = location.origin. {message} */
  PM_SEND: 'sw/pm-send',
  /** Stop relaying. {} */
  PM_CLOSE: 'sw/pm-close',
});

// ---------------------------------------------------------------------------------------------
// panel / popup ↔ service worker (ports "slop-panel" and "slop-popup")

/** UI → service worker. All but HELLO and PING are requests: they carry `id` and get a reply. */
export const Request = Object.freeze({
  /** First message on every (re)connected UI port: which tab this UI shows. {v, tabId} */
  HELLO: 'ui/hello',
  /** Liveness ping, no reply. {} */
  PING: 'ui/ping',
  /** Stream one provider's trees, events and (log: true) frame log. {key, budget?, log?} → {} */
  WATCH: 'watch',
  /** {key} → {} */
  UNWATCH: 'unwatch',
  /**
   * Node views on demand. {key, sub, paths} → {nodes: NodeView[], missing: string[], count}
   * missing: paths the mirror does not have (removed since the UI saw them listed); count: the
   * subscription's node count now.
   */
  GET_NODES: 'getNodes',
  /** Invoke an affordance. {key, path, action, params?} → the core's `result` event */
  INVOKE: 'invoke',
  /**
   * An extra subscription. {key, options: {path, depth, max_nodes, filter}} → {sub}
   * The core checks the options. The subscription belongs to the UI port that asked: it is
   * unsubscribed when that port closes.
   */
  SUBSCRIBE: 'subscribe',
  /** {key, sub} → {} */
  UNSUBSCRIBE: 'unsubscribe',
  /** One-shot read. {key, options: {path, depth, max_nodes, filter, window}} → the core's `query` event */
  QUERY: 'query',
  /** What an agent would be given. {key, sub?} → {treeText, tools} */
  AGENT_VIEW: 'agentView',
  /** Check params against an affordance schema (the core decides). {schema, params} → {error: string|null} */
  VALIDATE_PARAMS: 'validateParams',
  /**
   * The core's mirror of a subscription as SLOP node JSON (whole subtree, depth -1).
   * {key, sub?} → {tree, path, version, provider, capabilities}   (export, copy)
   */
  GET_TREE: 'getTree',
  /**
   * Loads a JSON document (an export of this panel, a snapshot message, or a bare node tree) into a
   * throwaway core consumer that validates it; the result is read-only and reachable with
   * getNodes / getTree / agentView under the returned key until closeImport or the port closes.
   * {text, name} → {key, sub, path, version, nodes: NodeView[], complete, count, provider}
   * An invalid document fails with code "invalid_tree" and the core's message.
   */
  INSPECT_TREE: 'inspectTree',
  /** {key} → {} */
  CLOSE_IMPORT: 'closeImport',
  /** Approve a pending cross-origin target once (persisted). {key} → {} */
  APPROVE: 'approve',
  /** Deny it for this browser session. {key} → {} */
  DENY: 'deny',
  /** Reconnect now, skipping the back-off wait. {key} → {} */
  RETRY: 'retry',
});

/** Service worker → UI. */
export const Push = Object.freeze({
  /** The tab's providers, sent after HELLO and on every change. ProvidersPush */
  PROVIDERS: 'providers',
  /** A subscription's (re)based mirror: node views breadth-first up to the budget. TreeResetPush */
  TREE_RESET: 'tree/reset',
  /** One patch: views of changed/added nodes, removed paths. TreeDeltaPush */
  TREE_DELTA: 'tree/delta',
  /** A core event other than snapshot/patch (see CoreEvent). {key, event} */
  EVENT: 'event',
  /** Frame log entries (only for WATCH with log: true). {key, entries, replace} */
  LOG: 'log',
  /** The answer to a request. {id, ok, result?, error?: {code, message}} */
  REPLY: 'reply',
});

/** Provider status values (ProviderInfo.status). */
export const Status = Object.freeze({
  DISCOVERED: 'discovered',
  PENDING_APPROVAL: 'pending-approval',
  DENIED: 'denied',
  CONNECTING: 'connecting',
  CONNECTED: 'connected',
  RECONNECTING: 'reconnecting',
  AUTH_FAILED: 'auth-failed',
  UNREACHABLE: 'unreachable',
  ERROR: 'error',
});

/** Defaults a UI may override per WATCH. */
export const LIMITS = Object.freeze({
  /** Node views sent with one tree/reset. */
  RESET_BUDGET: 500,
  /** Most node views one getNodes request returns. */
  GET_NODES_MAX: 1000,
  /** Frame log entries kept per connection. */
  LOG_ENTRIES: 300,
  /** Frame text kept per log entry (characters); longer frames are cut and marked. */
  LOG_TEXT_MAX: 16384,
  /** Largest document inspectTree accepts (characters). */
  IMPORT_TEXT_MAX: 32 * 1024 * 1024,
  /** Imports one UI port may hold at once (the oldest is closed first). */
  IMPORTS_PER_PORT: 4,
});

// ---------------------------------------------------------------------------------------------
// options ↔ service worker: no runtime messages. Both use shared/settings-store.js over
// chrome.storage; the service worker reacts to storage.onChanged (new token: reconnect; approval
// revoked: disconnect). A token therefore never travels in a message between contexts.

// ---------------------------------------------------------------------------------------------
// Types

/**
 * @typedef {object} NodeView  slop_consumer_node(): one node, no children.
 * @property {string} id
 * @property {string} type
 * @property {string} path              absolute, "/" for the root
 * @property {string[]} child_ids       in provider order
 * @property {object} [properties]
 * @property {object} [meta]            salience, urgency, window, total_children, summary, ...
 * @property {object[]} [affordances]   {action, label?, description?, params?, dangerous?, ...}
 * @property {object} [content_ref]
 */

/**
 * @typedef {object} SubscriptionInfo  from slop_consumer_status()
 * @property {string} sub
 * @property {string} path
 * @property {'waiting'|'live'|'resyncing'|'stale'|'failed'} state
 * @property {number} version
 * @property {number} nodes
 */

/**
 * @typedef {object} SyncInfo  the first subscription, from slop_consumer_status()
 * @property {'none'|'waiting'|'live'|'resyncing'|'stale'|'failed'} state   none: no subscription
 * @property {{code: string, message: string}|null} reason   why it is not live
 * @property {number|null} retryAt        epoch ms when the core retries a stale subscription by itself
 */

/**
 * @typedef {object} ProviderInfo
 * @property {string} key                 the WebSocket URL, or "postmessage": unique per tab
 * @property {{type: 'ws'|'postmessage', url?: string}} transport
 * @property {'meta'|'well-known'} source  how it was discovered
 * @property {string} status              one of Status
 * @property {number} statusAt            epoch ms of the last status change
 * @property {string} message             human-readable detail of the status ("" if none)
 * @property {number|null} retryAt        epoch ms of the next reconnect attempt
 * @property {SyncInfo} sync              the first subscription's mirror, as the core sees it
 * @property {boolean} live               status "connected" and sync.state "live": only then is
 *                                        what is shown what the provider holds now
 * @property {'same-origin'|'cross-origin'} classification   from the core
 * @property {string} approvalKey         from the core: where a decision is stored (never taken apart)
 * @property {string|null} approvalPage   from the core: the page's origin (null: opaque)
 * @property {string} approvalTarget      from the core: the target as compared
 * @property {boolean} tokenSet           a token is stored for this target's origin (never the token)
 * @property {{id: string, name: string, slop_version: string}|null} provider   from hello only
 * @property {string[]} capabilities      from hello
 * @property {string|null} primarySub     the first subscription ("/", depth -1, max_nodes 20,000)
 * @property {SubscriptionInfo[]} subscriptions
 * @property {number} nodes               mirrored nodes, all subscriptions
 */

/**
 * @typedef {object} ProvidersPush
 * @property {'providers'} type
 * @property {number} tabId
 * @property {string|null} pageUrl
 * @property {ProviderInfo[]} providers
 * @property {{content: string, error: string}[]} problems   meta tags or descriptors the core refused
 */

/**
 * @typedef {object} TreeResetPush
 * @property {'tree/reset'} type
 * @property {string} key
 * @property {string} sub
 * @property {string} path        the subscription root
 * @property {number} version
 * @property {NodeView[]} nodes   breadth-first from `path`
 * @property {boolean} complete   false when the budget cut it short (fetch the rest with getNodes)
 * @property {number|null} count  the subscription's node count
 * @property {boolean} [restarted]        the core's snapshot event said the provider restarted: a
 *                                        new connection re-based the mirror below the old version
 * @property {number|null} [previousVersion]   with restarted: the version before
 */

/**
 * @typedef {object} TreeDeltaPush
 * @property {'tree/delta'} type
 * @property {string} key
 * @property {string} sub
 * @property {number} version
 * @property {string[]} removed   apply first; drops the path and everything under it
 * @property {NodeView[]} nodes   fresh views (changed, or added under a known parent)
 * @property {boolean} [partial]  some added nodes under a known parent have no view here (fetch them)
 */

/**
 * @typedef {object} LogEntry
 * @property {'in'|'out'} dir    in: provider → extension
 * @property {number} t          epoch ms
 * @property {string} type       the frame's "type" ("?" if unreadable)
 * @property {number} size       UTF-8 bytes
 * @property {string} text       the frame, cut at LIMITS.LOG_TEXT_MAX characters
 * @property {boolean} truncated
 */

/**
 * @typedef {object} CoreEvent  see wasm/include/slop_core.h, slop_consumer_next():
 *   hello, result, task, error, timeout, closed, resync, query, provider_event, protocol_error,
 *   provider_changed, and snapshot when it has restarted: true.
 * @property {string} event
 */

/**
 * @typedef {object} Reply
 * @property {'reply'} type
 * @property {number} id
 * @property {boolean} ok
 * @property {any} [result]
 * @property {{code: string, message: string}} [error]
 */
