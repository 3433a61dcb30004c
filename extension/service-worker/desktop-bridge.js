// desktop-bridge.js: the desktop bridge: SLOP consumers on this machine (agent integrations,
// CLIs) see the browser's SLOP apps.
//
// The desktop app hosts ws://127.0.0.1:9339/slop-bridge; the extension dials it, offering the
// pairing token as ["slop.bearer", token], and uses the connection only if the bridge selected
// slop.bearer (WsTransport checks it). Messages, JSON text both ways:
//   → provider-available {tabId, providerKey, provider: {id, name, transport, url?}}
//   → provider-unavailable {tabId, providerKey}
//   ↔ slop-relay {providerKey, message}          a SLOP message to or from a relayed provider
//   ← relay-open {providerKey}, relay-close {providerKey}
//
// What is shared: only providers the user can already see (connected, so approved when
// cross-origin), announced after their hello with the hello's name and id, withdrawn when they
// go. A WebSocket provider is announced with its URL and the desktop connects to it itself: the
// extension never hands over the tokens it stores. A postMessage provider is relayed over the
// same origin-checked channel as the extension's own traffic, through a core relay (SlopRelay in
// slop_core.h) that keeps the desktop's ids apart from the extension's. An invoke of an
// affordance that is dangerous, or that the extension's mirror does not know, waits for the
// user's approval in the popup and is refused after APPROVAL_TIMEOUT_MS.
//
// It imports nothing of the WebExtension API: what it needs comes in `host` (see the typedef),
// so it can be driven outside the browser.

import { WsTransport, backoffDelay, serverAnswers } from '../../js-glue/ws-transport.js';

/** How long a relayed dangerous invoke waits for the user before it is refused. */
export const APPROVAL_TIMEOUT_MS = 60_000;
/** Approvals waiting at once; more are refused at once (a desktop flooding the popup). */
const APPROVALS_MAX = 20;
/** Bridge envelopes larger than this are dropped (a relayed message is small; snapshots go the other way). */
const ENVELOPE_MAX = 1024 * 1024;

/**
 * @typedef {object} BridgeStatus   what the popup and the options page show
 * @property {'off'|'no-token'|'connecting'|'connected'|'retrying'|'refused'|'not-bridge'} state
 * @property {string} message       for a person; never the token
 * @property {string} url
 * @property {number|null} retryAt
 * @property {{providerKey: string, tabId: number, name: string, id: string, transport: string, relayed: boolean}[]} shared
 * @property {{id: string, providerKey: string, tabId: number, provider: string, path: string, action: string,
 *             why: 'dangerous'|'unknown', params: string, expiresAt: number}[]} approvals
 */

/**
 * @typedef {object} BridgeHost
 * @property {() => object} core                         the loaded SlopCore (SlopRelay, relayRefusal)
 * @property {() => Iterable<object>} connections        every Connection of every tab (tabs.js)
 * @property {(status: BridgeStatus) => void} publish     status changed
 * @property {typeof WebSocket} [WebSocket]
 */

const STATE_TEXT = {
  off: 'Off.',
  'no-token': 'On, but no pairing token is saved: paste the one your desktop app shows.',
  connecting: 'Connecting…',
  connected: 'Connected.',
};

export class DesktopBridge {
  /** @param {BridgeHost} host */
  constructor(host) {
    this.host = host;
    this.settings = { enabled: false, url: '', token: null };
    this.state = 'off';
    this.message = STATE_TEXT.off;
    this.retryAt = null;
    this.wire = null;
    this.attempt = 0;
    this.timer = null;
    this.generation = 0;
    /** providerKey → {conn, announcement} of what the desktop was told about */
    this.shared = new Map();
    /** providerKey → {relay: SlopRelay, conn} */
    this.relays = new Map();
    /** approval id → {entry, decide(allow, why)} */
    this.approvals = new Map();
    this.approvalSeq = 0;
    this.approvalTimeoutMs = APPROVAL_TIMEOUT_MS;
  }

  // ----------------------------------------------------------------------- connection

  /** Applies the user's settings ({enabled, url, token}); reconnects when they changed. */
  configure(settings) {
    const s = { enabled: !!settings.enabled, url: String(settings.url ?? ''), token: settings.token ?? null };
    const same = s.enabled === this.settings.enabled && s.url === this.settings.url && s.token === this.settings.token;
    this.settings = s;
    if (same && this.state !== 'off') return;
    this.#stop();
    this.attempt = 0;
    if (!s.enabled) return this.#setState('off', STATE_TEXT.off);
    if (!s.token) return this.#setState('no-token', STATE_TEXT['no-token']);
    this.#connect();
  }

  /** "Retry now" (popup): a refused or waiting bridge is dialled again at once. */
  retry() {
    if (!this.settings.enabled || !this.settings.token || this.state === 'connected') return;
    this.#stop();
    this.attempt = 0;
    this.#connect();
  }

  #connect() {
    const gen = ++this.generation;
    clearTimeout(this.timer);
    this.timer = null;
    this.#setState('connecting', `Connecting to ${this.settings.url}…`);
    this.wire = new WsTransport(this.settings.url, {
      token: this.settings.token,
      WebSocket: this.host.WebSocket,
      onOpen: () => {
        if (gen !== this.generation) return;
        this.attempt = 0;
        this.#setState('connected', `Connected to ${this.settings.url}.`);
        this.sync();
      },
      onFrame: (text) => { if (gen === this.generation) this.#onFrame(text); },
      onClose: (info) => { if (gen === this.generation) this.#closed(info, gen); },
    });
  }

  async #closed(info, gen) {
    this.wire = null;
    this.#dropAll();
    if (info.kind === 'construct') return this.#setState('refused', info.message);
    if (info.kind === 'subprotocol') {
      // Something answers there, but not a bridge that checks pairing: never share with it.
      return this.#setState('not-bridge', `The server at ${this.settings.url} did not accept the pairing token (slop.bearer): it is not a SLOP bridge with pairing. Nothing is shared.`);
    }
    if (!info.opened && await serverAnswers(this.settings.url)) {
      if (gen !== this.generation) return;
      // Up, but the upgrade was refused: a wrong or rotated token. Dialling again would only be
      // refused again; a new token (or Retry) starts over.
      return this.#setState('refused', 'The desktop bridge refused the pairing token: pair again in the desktop app and paste the new token.');
    }
    if (gen !== this.generation) return;
    const delay = backoffDelay(this.attempt++, { baseMs: 1000, capMs: 30_000 });
    this.retryAt = Date.now() + delay;
    this.timer = setTimeout(() => { if (gen === this.generation) this.#connect(); }, delay);
    this.#setState('retrying', info.opened
      ? 'The desktop bridge went away; dialling again…'
      : `No desktop bridge answers at ${this.settings.url} (is the desktop app running?); dialling again…`, this.retryAt);
  }

  #stop() {
    this.generation++;
    clearTimeout(this.timer);
    this.timer = null;
    this.retryAt = null;
    const w = this.wire;
    this.wire = null;
    this.#dropAll();
    try { w?.close(1000, 'bridge turned off'); } catch { /* not open */ }
  }

  /** The bridge connection ended: relays close (their subscriptions with them), approvals fail. */
  #dropAll() {
    for (const key of [...this.relays.keys()]) this.#closeRelay(key);
    this.shared.clear();
    for (const a of [...this.approvals.values()]) a.decide(false, 'the desktop bridge disconnected');
  }

  #setState(state, message, retryAt = null) {
    this.state = state;
    this.message = message;
    this.retryAt = retryAt;
    this.#publish();
  }

  #publish() {
    this.host.publish(this.status());
  }

  /** @returns {BridgeStatus} */
  status() {
    return {
      state: this.state,
      message: this.message,
      url: this.settings.url,
      retryAt: this.retryAt,
      shared: [...this.shared.entries()].map(([providerKey, s]) => ({
        providerKey, tabId: s.announcement.tabId, name: s.announcement.provider.name, id: s.announcement.provider.id,
        transport: s.announcement.provider.transport, relayed: this.relays.has(providerKey),
      })),
      approvals: [...this.approvals.values()].map((a) => ({ ...a.entry })),
    };
  }

  #send(obj) {
    return this.wire?.isOpen ? this.wire.send(JSON.stringify(obj)) : false;
  }

  // ---------------------------------------------------------------------- what is shared

  /**
   * Tells the desktop what changed: every connected provider with a hello is announced once,
   * and withdrawn when it goes (or is replaced by a new connection under the same key).
   * Called on every connection and tab change.
   */
  sync() {
    if (this.state !== 'connected') return;
    const now = new Map();
    for (const conn of this.host.connections()) {
      if (conn.disposed || conn.status !== 'connected' || !conn.provider || conn.tabId < 0) continue;
      now.set(`${conn.tabId}:${conn.key}`, conn);
    }
    let changed = false;
    for (const [key, s] of [...this.shared]) {
      if (now.get(key) === s.conn) continue;
      this.#closeRelay(key);
      this.shared.delete(key);
      this.#send({ type: 'provider-unavailable', tabId: s.announcement.tabId, providerKey: key });
      changed = true;
    }
    for (const [key, conn] of now) {
      if (this.shared.has(key)) continue;
      const provider = { id: conn.provider.id, name: conn.provider.name, transport: conn.isPostMessage ? 'postmessage' : 'ws' };
      if (!conn.isPostMessage) provider.url = conn.transport.url;
      const announcement = { type: 'provider-available', tabId: conn.tabId, providerKey: key, provider };
      this.shared.set(key, { conn, announcement });
      this.#send(announcement);
      changed = true;
    }
    if (changed) this.#publish();
  }

  // ------------------------------------------------------------------------------ relay

  #onFrame(text) {
    if (text.length > ENVELOPE_MAX) return console.warn('SLOP Inspector: bridge message over 1 MiB dropped');
    let msg;
    try { msg = JSON.parse(text); } catch { return console.warn('SLOP Inspector: bridge message is not JSON; dropped'); }
    if (!msg || typeof msg !== 'object' || typeof msg.providerKey !== 'string') return;
    switch (msg.type) {
      case 'relay-open': this.#openRelay(msg.providerKey); break;
      case 'relay-close': this.#closeRelay(msg.providerKey); this.#publish(); break;
      case 'slop-relay': this.#fromDesktop(msg.providerKey, msg.message); break;
      default: break;
    }
  }

  /** A SLOP message to the desktop, as the provider wrote it (its text is spliced in, never re-printed). */
  #toDesktop(providerKey, messageText) {
    if (!this.wire?.isOpen) return;
    this.wire.send(`{"type":"slop-relay","providerKey":${JSON.stringify(providerKey)},"message":${messageText}}`);
  }

  #openRelay(providerKey) {
    if (this.relays.has(providerKey)) return this.relays.get(providerKey);
    const s = this.shared.get(providerKey);
    if (!s || !s.conn.isPostMessage) {
      const why = s ? 'a WebSocket provider is not relayed: connect to its url' : 'no such provider is shared';
      this.#toDesktop(providerKey, JSON.stringify({ type: 'error', error: { code: s ? 'not_supported' : 'not_found', message: why } }));
      return null;
    }
    // A random tag: after a worker restart, an old relay's subscriptions may still be open in
    // the page, and their frames must not reach a new relay.
    const tag = `b${crypto.getRandomValues(new Uint32Array(2)).reduce((t, x) => t + x.toString(36), '')}`.slice(0, 16);
    const entry = { relay: new (this.host.core().SlopRelay)(tag), conn: s.conn };
    this.relays.set(providerKey, entry);
    this.#publish();
    return entry;
  }

  #closeRelay(providerKey) {
    const r = this.relays.get(providerKey);
    if (!r) return;
    this.relays.delete(providerKey);
    for (const a of [...this.approvals.values()]) if (a.entry.providerKey === providerKey) a.decide(false, 'the relay closed');
    try {
      if (!r.conn.disposed && r.conn.wire) for (const m of r.relay.close()) r.conn.page.send(m);
    } catch { /* the page is gone */ }
    r.relay.free();
  }

  #fromDesktop(providerKey, message) {
    const r = this.relays.get(providerKey) ?? this.#openRelay(providerKey);
    if (!r) return;
    const out = r.relay.outbound(JSON.stringify(message ?? null));
    if (!out.ok) {
      console.warn('SLOP Inspector: bridge:', out.error);
      if (out.reply) this.#toDesktop(providerKey, JSON.stringify(out.reply));
      return;
    }
    if (out.type !== 'invoke') return r.conn.page.send(out.message);
    const why = this.#needsApproval(r.conn, out.path, out.action);
    if (!why) return r.conn.page.send(out.message);
    this.#ask(providerKey, r, out, why);
  }

  /** null when the extension's mirror shows the affordance and it is not dangerous. */
  #needsApproval(conn, path, action) {
    let view = null;
    try { view = conn.consumer && conn.primarySub ? conn.consumer.node(conn.primarySub, path) : null; } catch { view = null; }
    const aff = Array.isArray(view?.affordances) ? view.affordances.find((a) => a?.action === action) : null;
    if (!aff) return 'unknown';
    return aff.dangerous === true ? 'dangerous' : null;
  }

  #ask(providerKey, r, out, why) {
    const refuse = (message) => this.#toDesktop(providerKey, JSON.stringify(this.host.core().relayRefusal('invoke', out.id, 'unauthorized', message)));
    if (this.approvals.size >= APPROVALS_MAX) return refuse('too many invokes are waiting for approval in SLOP Inspector');
    const id = `a${++this.approvalSeq}`;
    let params = '';
    try { params = JSON.stringify(out.message.params ?? {}).slice(0, 500); } catch { /* not JSON */ }
    const entry = {
      id, providerKey, tabId: r.conn.tabId, provider: r.conn.provider?.name || r.conn.provider?.id || providerKey,
      path: out.path, action: out.action, why, params, expiresAt: Date.now() + this.approvalTimeoutMs,
    };
    const timer = setTimeout(() => decide(false, `no answer in SLOP Inspector within ${Math.round(this.approvalTimeoutMs / 1000)} s: not invoked`), this.approvalTimeoutMs);
    const decide = (allow, reason) => {
      if (!this.approvals.has(id)) return;
      clearTimeout(timer);
      this.approvals.delete(id);
      if (allow && this.relays.get(providerKey) === r && !r.conn.disposed) r.conn.page.send(out.message);
      else refuse(allow ? 'the provider went away' : reason);
      this.#publish();
    };
    this.approvals.set(id, { entry, decide });
    this.#publish();
  }

  /** The user's answer (popup). false when the approval is no longer waiting. */
  decide(id, allow) {
    const a = this.approvals.get(id);
    if (!a) return false;
    a.decide(!!allow, 'declined in SLOP Inspector');
    return true;
  }

  /** A provider frame of a postMessage connection (tabs.js, before or after the core saw it). */
  pageFrame(conn, text) {
    if (this.relays.size === 0) return;
    for (const [providerKey, r] of this.relays) {
      if (r.conn !== conn) continue;
      const back = r.relay.inbound(text);
      if (back !== null) this.#toDesktop(providerKey, back);
    }
  }

  /** Approvals waiting for a tab: its badge asks for attention. */
  waitingFor(tabId) {
    for (const a of this.approvals.values()) if (a.entry.tabId === tabId) return true;
    return false;
  }
}
