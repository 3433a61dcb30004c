// provider-api.js: what a test or a script may ask of one provider connection. The same functions
// answer in the extension's service worker (the automation API's call and callText,
// extension/service-worker/automation.js, reached by the Playwright library through worker.evaluate) and in Node (the Node client), so both read the one
// core mirror the same way. Every result is plain JSON; no token is ever part of one.
//
// `conn` is a consumer session (consumer-session.js; the extension's Connection extends it).
// `sub` defaults to the session's first subscription (the whole tree).

/** @typedef {import('./consumer-session.js').ConsumerSession} Connection */

/** The `code` of this module's own errors (the core's refusals are SlopErrors, with theirs). */
export const ProviderApiCode = Object.freeze({
  /** The connection has no core consumer now (connecting, waiting for approval, failed). */
  NOT_CONNECTED: 'not_connected',
  /** The method name is not one of providerApi's. */
  UNKNOWN_METHOD: 'unknown_method',
});

/** @param {Connection} conn */
function consumerOf(conn) {
  if (!conn.consumer) throw Object.assign(new Error(`not connected (status: ${conn.status})`), { code: ProviderApiCode.NOT_CONNECTED });
  return conn.consumer;
}
/** @param {Connection} conn @param {string|undefined} sub */
const subOf = (conn, sub) => sub ?? conn.primarySub;

export const providerApi = Object.freeze({
  /** ProviderInfo: status, message, provider (from hello), subscriptions, nodes. @param {Connection} conn */
  info: (conn) => conn.info(),
  /**
   * The mirrored subtree at path, cut at depth (-1: all), as SLOP node JSON; null if absent.
   * @param {Connection} conn @param {string} [path] @param {number} [depth] @param {string} [sub]
   */
  tree: (conn, path = '/', depth = -1, sub = undefined) => consumerOf(conn).tree(subOf(conn, sub), path, depth),
  /**
   * The node view at path (the node without children, plus child_ids and path); null if absent.
   * @param {Connection} conn @param {string} path @param {string} [sub]
   */
  node: (conn, path, sub = undefined) => consumerOf(conn).node(subOf(conn, sub), path),
  /** The canonical tree text of the mirror (one line per node). @param {Connection} conn @param {string} [sub] */
  text: (conn, sub = undefined) => consumerOf(conn).treeText(subOf(conn, sub)),
  /**
   * The same text for the node at path, depth levels deep (-1: all); null when there is none.
   * @param {Connection} conn @param {string} path @param {number} [depth] @param {string} [sub]
   */
  subtreeText: (conn, path, depth = -1, sub = undefined) => consumerOf(conn).subtreeText(subOf(conn, sub), path, depth),
  /**
   * The affordances as LLM tools (the agent view); with maxTools, the core's most salient that many.
   * @param {Connection} conn @param {string} [sub] @param {number} [maxTools]
   */
  tools: (conn, sub = undefined, maxTools = 0) => consumerOf(conn).tools(subOf(conn, sub), null, 0, maxTools ?? 0),
  /**
   * Core events but patches (hello, snapshot, resync, result, error, protocol_error...), oldest first.
   * @param {Connection} conn @param {number} [sinceMs]
   */
  events: (conn, sinceMs = 0) => conn.events.filter((e) => e.at >= sinceMs),
  /** The frame log: {dir, t, type, size, text, truncated}, oldest first (bounded). @param {Connection} conn */
  frames: (conn) => conn.log.slice(),
  /**
   * Sends an invoke; resolves with {requestId, event} (the core's result, error, timeout or closed event).
   * @param {Connection} conn @param {string} path @param {string} action @param {object} [params]
   */
  invoke: (conn, path, action, params) => conn.invoke(path, action, params),
  /**
   * Sends a query; resolves with {requestId, event} (the core's query, error, timeout or closed event).
   * @param {Connection} conn @param {object} options
   */
  query: (conn, options) => conn.query(options),
  /** Opens another subscription; returns its id. @param {Connection} conn @param {object} options */
  subscribe: (conn, options) => conn.subscribe(options),
  /** @param {Connection} conn @param {string} sub */
  unsubscribe: (conn, sub) => { conn.unsubscribe(sub); return true; },
  /** The core's conformance report: the rules checked and where this provider breaks them. @param {Connection} conn */
  conformance: (conn) => consumerOf(conn).conformance(),
  /** A drift check of a subscription (default: the first); resolves with {requestId, event}. @param {Connection} conn @param {string} [sub] */
  checkDrift: (conn, sub = undefined) => conn.checkDrift(subOf(conn, sub)),
  /** {sub, path, state, version, nodes, reason} of one subscription, or null. @param {Connection} conn @param {string} [sub] */
  subscription: (conn, sub = undefined) => {
    const s = subOf(conn, sub);
    return conn.consumer?.status().subscriptions?.find((x) => x.sub === s) ?? null;
  },
});

/**
 * Calls providerApi[method] with an error for an unknown name (the name arrives as data).
 * @param {Connection} conn @param {string} method @param {any[]} args
 */
export function callProviderApi(conn, method, args) {
  if (!Object.hasOwn(providerApi, method)) {
    throw Object.assign(new Error(`unknown provider API method "${method}"`), { code: ProviderApiCode.UNKNOWN_METHOD });
  }
  // The name and the arguments arrive as data: the method's own types cannot be checked here.
  return /** @type {Record<string, (conn: Connection, ...args: any[]) => any>} */ (providerApi)[method](conn, ...args);
}
