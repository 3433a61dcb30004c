// session-requests.js: what a consumer session asks of its provider: invoke, query, the drift
// check, subscriptions. The core checks and queues each request; the session (consumer-session.js,
// which extends this class) pumps it out, and resolves it with the core's first event that carries
// its id (its #handleEvent, and every pending request when its consumer goes away).

import { emit } from './session-host.js';
import { RequestKindName } from './core-contract.js';

/** @typedef {import('./session-host.js').SessionListeners} SessionListeners */

/** A request on a session without a consumer: the code of the error (the extension's ErrorCode.BAD_STATE). */
export const NOT_CONNECTED = 'bad_state';

/**
 * The first subscription: the whole tree (depth -1, the spec's default), capped at 20,000 nodes.
 * An inspector wants everything; on a big app the provider compacts the lowest-salience
 * subtrees to stay within max_nodes (they arrive with total_children and can be queried), so
 * memory and patch traffic stay bounded.
 */
export const FIRST_SUBSCRIPTION = Object.freeze({ path: '/', depth: -1, max_nodes: 20000 });

/** The requests of a consumer session; ConsumerSession (consumer-session.js) is the class to use. */
export class SessionRequests {
  /** @type {import('./slop-core.js').SlopConsumerT|null} */
  consumer = null;
  /** @type {string|null} */
  primarySub = null;
  /** @type {Map<string, {resolve: (event: any) => void, kind: import('./core-contract.js').RequestKind}>} */
  pending = new Map();  // request id → {resolve, kind}
  /** @type {SessionListeners} set by ConsumerSession's constructor */
  listeners = /** @type {SessionListeners} */ (/** @type {unknown} */ (undefined));

  /** Drains the core: the session's own (consumer-session.js). */
  pump() {}

  // --------------------------------------------------------------------------- requests

  /**
   * @param {string} id @param {import('./core-contract.js').RequestKind} kind  what went on the wire
   * @returns {Promise<any>} the core's event that answers it
   */
  #track(id, kind) {
    return new Promise((resolve) => this.pending.set(id, { resolve, kind }));
  }

  /**
   * Resolves with the core's terminal event for the invoke (result, error, timeout, closed).
   * @param {string} path @param {string} action @param {object} [params]
   * @returns {Promise<{requestId: string, event: any}>}
   */
  invoke(path, action, params) {
    const id = this.#live().invoke(path, action, params, Date.now());
    const p = this.#track(id, RequestKindName.INVOKE);
    emit(this.listeners.invoked, this, { path, action, params });
    this.pump();
    return p.then((event) => ({ requestId: id, event }));
  }

  /** @param {object} options {path, depth, max_nodes, filter, window} @returns {Promise<{requestId: string, event: any}>} */
  query(options) {
    const id = this.#live().query(options, Date.now());
    const p = this.#track(id, RequestKindName.QUERY);
    this.pump();
    return p.then((event) => ({ requestId: id, event }));
  }

  /**
   * Compares a subscription's mirror with the provider's state; resolves with {requestId, event} (drift, error, timeout, closed).
   * @param {string|null} [sub] @returns {Promise<{requestId: string, event: any}>}
   */
  checkDrift(sub = this.primarySub) {
    const id = this.#live().checkDrift(sub, Date.now());
    const p = this.#track(id, RequestKindName.QUERY); // a drift check asks with a query
    this.pump();
    return p.then((event) => ({ requestId: id, event }));
  }

  /** @param {object} options {path, depth, max_nodes, filter} @returns {string} the subscription id */
  subscribe(options) {
    const sub = this.#live().subscribe(options, Date.now());
    this.pump();
    emit(this.listeners.change, this);
    return sub;
  }

  /** @param {string} sub */
  unsubscribe(sub) {
    this.#live().unsubscribe(sub, Date.now());
    this.pump();
    emit(this.listeners.change, this);
  }

  #live() {
    if (!this.consumer) throw Object.assign(new Error('not connected'), { code: NOT_CONNECTED });
    return this.consumer;
  }
}
