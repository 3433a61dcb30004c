// ui-port.js: the UI side of a "slop-panel" / "slop-popup" port: hello, requests with replies,
// pushes, and reconnection when the service worker stops (MV3 stops it whenever it likes; a
// reconnect starts it again, and the worker rebuilds its state from the content scripts).

import { connect } from './browser.js';
import { PROTOCOL_VERSION, Request, Push, ErrorCode, catalogued } from './messages.js';

const PING_MS = 20000;

/** A request that got no result: `code` is one of ErrorCode. */
export class RequestFailed extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

export class UiPort {
  /** @type {import('./browser.js').Port|null} */
  #port = null;
  #nextId = 1;
  /** @type {Map<number, {resolve: (result: any) => void, reject: (e: RequestFailed) => void, timer: ReturnType<typeof setTimeout>}>} */
  #pending = new Map();
  #retryMs = 100;
  #everConnected = false;
  #closed = false;

  /**
   * @param {string} name      PORTS.PANEL or PORTS.POPUP
   * @param {number} tabId     the tab this UI shows
   * @param {{onPush: (msg: object) => void, onState?: (state: 'connected'|'reconnecting', info: {reconnected: boolean}) => void,
   *          counts?: boolean}} handlers
   *   counts: the provider list comes again while patches change node counts (the popup)
   */
  constructor(name, tabId, { onPush, onState = () => {}, counts = false }) {
    this.name = name;
    this.tabId = tabId;
    this.counts = counts;
    this.onPush = onPush;
    this.onState = onState;
    /** @type {'connecting'|'connected'|'reconnecting'} */
    this.state = 'connecting';
    setInterval(() => this.#post({ type: Request.PING }), PING_MS);
    // The user looks (the panel or the popup got the focus, or was shown): a provider waiting out
    // its reconnect back-off is dialled now, not when its timer says.
    const wake = () => {
      if (this.#port && globalThis.document?.visibilityState !== 'hidden') this.request(Request.WAKE).catch(() => {});
    };
    globalThis.addEventListener?.('focus', wake);
    globalThis.document?.addEventListener?.('visibilitychange', wake);
  }

  start() {
    this.#connect();
    return this;
  }

  /**
   * Sends a request (`type`: one of Request); resolves with its result, rejects with RequestFailed.
   * Its members are typed from the table the worker checks them with (request-args.js).
   * @template {import('./request-args.js').RequestType} T
   * @param {T} type @param {import('./request-args.js').RequestFields<T>} [fields] @param {number} [timeoutMs]
   * @returns {Promise<any>} the reply's result: its shape is the request's (messages.js)
   */
  request(type, fields = /** @type {import('./request-args.js').RequestFields<T>} */ ({}), timeoutMs = 60000) {
    if (!catalogued({ type }, Request)) return Promise.reject(new RequestFailed(ErrorCode.BAD_REQUEST, `${String(type).slice(0, 40)} is not a request of the catalogue`));
    if (!this.#port) return Promise.reject(new RequestFailed(ErrorCode.DISCONNECTED, 'Not connected to the extension’s service worker'));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new RequestFailed(ErrorCode.TIMEOUT, `No answer to ${type}`));
      }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      this.#post({ ...fields, type, id });
    });
  }

  close() {
    this.#closed = true;
    this.#port?.disconnect();
    this.#port = null;
  }

  /** @param {{type: string, [field: string]: any}} msg */
  #post(msg) {
    if (!catalogued(msg, Request)) return;
    try {
      this.#port?.postMessage(msg);
    } catch {
      /* disconnected: onDisconnect reconnects */
    }
  }

  #connect() {
    if (this.#closed) return;
    let port;
    try {
      port = connect(this.name);
    } catch {
      this.#scheduleReconnect();
      return;
    }
    this.#port = port;
    port.onMessage.addListener((msg) => this.#onMessage(msg));
    port.onDisconnect.addListener(() => {
      if (this.#port !== port) return;
      this.#port = null;
      for (const p of this.#pending.values()) {
        clearTimeout(p.timer);
        p.reject(new RequestFailed(ErrorCode.DISCONNECTED, 'The service worker restarted; try again'));
      }
      this.#pending.clear();
      this.state = 'reconnecting';
      this.onState('reconnecting', { reconnected: false });
      this.#scheduleReconnect();
    });
    this.#post({ type: Request.HELLO, v: PROTOCOL_VERSION, tabId: this.tabId, ...(this.counts ? { counts: true } : {}) });
  }

  #scheduleReconnect() {
    if (this.#closed) return;
    setTimeout(() => this.#connect(), this.#retryMs);
    this.#retryMs = Math.min(this.#retryMs * 2, 2000);
  }

  /** @param {any} msg what the worker posted (checked here) */
  #onMessage(msg) {
    if (!msg || typeof msg.type !== 'string') return;
    if (this.state !== 'connected') {
      // The first message after (re)connecting proves the worker is up.
      this.state = 'connected';
      this.#retryMs = 100;
      this.onState('connected', { reconnected: this.#everConnected });
      this.#everConnected = true;
    }
    if (msg.type === Push.BATCH) {
      if (Array.isArray(msg.pushes)) for (const m of msg.pushes) if (m?.type !== Push.BATCH) this.#onMessage(m);
      return;
    }
    if (msg.type === Push.REPLY) {
      const p = this.#pending.get(msg.id);
      if (!p) return;
      this.#pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.ok) p.resolve(msg.result);
      else p.reject(new RequestFailed(msg.error?.code ?? ErrorCode.INTERNAL, msg.error?.message ?? 'request failed'));
      return;
    }
    this.onPush(msg);
  }
}
