// bridge.js: the panel's link to the service worker. Owns the "slop-panel" port (through
// shared/ui-port.js: hello, requests/replies, reconnect after a service worker restart) and
// hands pushes to the store in batches, once per animation frame.

import { PORTS, Request } from '../shared/messages.js';
import { UiPort } from '../shared/ui-port.js';

export class Bridge {
  #queue = [];
  #scheduled = false;

  /**
   * @param {number} tabId
   * @param {(batch: object[]) => void} onBatch  gets pushes (and {type: "bridge/state"} notes) in order
   */
  constructor(tabId, onBatch) {
    this.onBatch = onBatch;
    this.port = new UiPort(PORTS.PANEL, tabId, {
      onPush: (msg) => this.#enqueue(msg),
      onState: (state, info) => this.#enqueue({ type: 'bridge/state', state, reconnected: info.reconnected }),
    });
  }

  start() {
    this.port.start();
    return this;
  }

  request(type, fields) {
    return this.port.request(type, fields);
  }

  watch(key, { log = true, budget } = {}) {
    return this.request(Request.WATCH, { key, log, budget });
  }

  unwatch(key) {
    return this.request(Request.UNWATCH, { key });
  }

  #enqueue(msg) {
    this.#queue.push(msg);
    if (this.#scheduled) return;
    this.#scheduled = true;
    // requestAnimationFrame does not fire while the panel is hidden; the timeout keeps the
    // queue from growing without bound then.
    let done = false;
    const flush = () => {
      if (done) return;
      done = true;
      this.#scheduled = false;
      const batch = this.#queue;
      this.#queue = [];
      this.onBatch(batch);
    };
    requestAnimationFrame(flush);
    setTimeout(flush, 200);
  }
}
