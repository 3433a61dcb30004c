// bridge.js: the panel's link to the service worker. Owns the "slop-panel" port (through
// shared/ui-port.js: hello, requests/replies, reconnect after a service worker restart) and
// hands pushes to the store in batches.
//
// Batching: a push is applied on the next microtask while the panel has spent little time
// applying pushes in the current frame (so a patch reaches the DOM in well under a frame), and
// is coalesced into the next animation frame once that budget is used (so a burst of patches
// costs one render per frame, not one per patch).
//
// Replies that carry node views (GET_NODES) go through the same queue as the pushes, so they
// are applied in the order the service worker sent them: a view fetched after a delta is never
// overwritten by that older delta.

import { PORTS, Request, PanelNote } from '../shared/messages.js';
import { UiPort } from '../shared/ui-port.js';

/** Milliseconds of push handling per frame before pushes wait for the next frame. */
const FRAME_BUDGET_MS = 6;
const FRAME_MS = 16;

export class Bridge {
  /** @type {object[]} */
  #queue = [];
  #scheduled = false;
  #windowStart = -Infinity;
  #windowCost = 0;

  /**
   * @param {number} tabId
   * @param {(batch: (import('../shared/messages.js').PushMessage|import('../shared/messages.js').PanelNoteMessage)[]) => void} onBatch  gets pushes (and PanelNote notes) in order
   */
  constructor(tabId, onBatch) {
    this.onBatch = onBatch;
    this.port = new UiPort(PORTS.PANEL, tabId, {
      onPush: (msg) => this.#enqueue(msg),
      onState: (state, info) => this.#enqueue({ type: PanelNote.BRIDGE_STATE, state, reconnected: info.reconnected }),
    });
  }

  start() {
    this.port.start();
    return this;
  }

  /**
   * @template {import('../shared/request-args.js').RequestType} T
   * @param {T} type one of Request @param {import('../shared/request-args.js').RequestFields<T>} [fields]
   * @returns {Promise<any>} the reply's result
   */
  request(type, fields) {
    return this.port.request(type, fields);
  }

  /**
   * GET_NODES whose views are applied in order with the pushes (as PanelNote.BRIDGE_NODES).
   * Resolves with the reply once it has been queued.
   * @param {string} key @param {string} sub @param {string[]} paths
   * @returns {Promise<{nodes: import('../shared/messages.js').NodeView[], missing: string[], count: number|null}>}
   */
  getNodes(key, sub, paths) {
    return this.port.request(Request.GET_NODES, { key, sub, paths }).then((r) => {
      this.#enqueue({ type: PanelNote.BRIDGE_NODES, key, sub, nodes: r.nodes, missing: r.missing, count: r.count });
      return r;
    });
  }

  /** @param {string} key @param {{log?: boolean, budget?: number}} [o] */
  watch(key, { log = true, budget } = {}) {
    return this.request(Request.WATCH, { key, log, budget });
  }

  /** @param {string} key */
  unwatch(key) {
    return this.request(Request.UNWATCH, { key });
  }

  /** @param {object} msg a push, or a PanelNote */
  #enqueue(msg) {
    this.#queue.push(msg);
    if (this.#scheduled) return;
    this.#scheduled = true;
    const now = performance.now();
    if (now - this.#windowStart >= FRAME_MS) {
      this.#windowStart = now;
      this.#windowCost = 0;
    }
    let done = false;
    const flush = () => {
      if (done) return;
      done = true;
      this.#scheduled = false;
      const batch = this.#queue;
      this.#queue = [];
      const t0 = performance.now();
      try {
        this.onBatch(batch);
      } finally {
        this.#windowCost += performance.now() - t0;
      }
    };
    if (this.#windowCost < FRAME_BUDGET_MS) {
      queueMicrotask(flush);
    } else {
      // requestAnimationFrame does not fire while the panel is hidden; the timeout keeps the
      // queue from growing without bound then.
      requestAnimationFrame(flush);
      setTimeout(flush, 200);
    }
  }
}
