// desktop-bridge.js: the desktop bridge: SLOP consumers on this machine (agent integrations,
// CLIs) see the browser's SLOP apps.
//
// The desktop side hosts ws://127.0.0.1:9339/slop-bridge; the extension dials it. Two modes:
//   paired    a pairing token is saved: it is offered as ["slop.bearer", token] and the bridge
//             selects slop.bearer (a bridge built with pairing, like our test fixture).
//   unpaired  the bridges that exist (the SLOP project's CLI, desktop app and TypeScript package)
//             take a bare WebSocket and select no subprotocol. Used only when the user allowed
//             it in Options: any program that opens the port then sees what is shared.
// With a token, a bridge that selects nothing is found out by a bare dial after the paired one
// failed (Chrome fails such a handshake; Firefox opens it, WsTransport reports `none`). A bridge
// that selects anything else is refused. Messages, JSON text both ways, as theirs:
//   → provider-available {tabId, providerKey, provider: {id, name, transport, url?}}
//   → provider-unavailable {tabId, providerKey}
//   ↔ slop-relay {providerKey, message}          a SLOP message to or from a relayed provider
//   ← relay-open {providerKey}, relay-close {providerKey}
// Their TypeScript server sends every message to every client, the sender included: the
// extension gets its own announcements and its own relayed provider frames back. Those, unknown
// types and malformed envelopes are dropped and counted (one console line per connection), and
// nothing the extension sends is ever an answer to a provider message, so no echo can loop.
//
// What is shared: only providers the user can already see (connected, so approved when
// cross-origin), announced after their hello with the hello's name and id, withdrawn when they
// go. A WebSocket provider is announced with its URL and the desktop connects to it itself: the
// extension never hands over the tokens it stores. A postMessage provider is relayed over the
// same origin-checked channel as the extension's own traffic, through a core relay (SlopRelay in
// slop_core.h) that keeps the desktop's ids apart from the extension's. An invoke of an
// affordance that is dangerous, or that the extension's mirror does not know, waits for the
// user's approval in the popup and is refused after APPROVAL_TIMEOUT_MS, unless the user let
// that provider be invoked without asking (setTrust; kept in storage.session by the worker, so
// it ends with the browser session).
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
/** Unpaired (bare) dialling retries at a steady pace, as the SLOP project's own extension does. */
export const UNPAIRED_RETRY_MS = 5000;
/** Providers the user let the desktop invoke without asking, at most (a session's worth). */
const TRUST_MAX = 200;

/**
 * @typedef {object} BridgeStatus   what the popup and the options page show
 * @property {'off'|'no-token'|'connecting'|'connected'|'retrying'|'refused'|'not-bridge'|'no-pairing'} state
 *   no-pairing: the bridge does not pair and the user has not allowed unpaired bridges
 * @property {'paired'|'unpaired'|null} mode   how the open connection was made (connected only)
 * @property {string} message       for a person; never the token
 * @property {string} url
 * @property {number|null} retryAt
 * @property {number} ignored       bridge messages dropped since the worker started (echoes, junk)
 * @property {{providerKey: string, tabId: number, page: string, name: string, id: string, transport: string,
 *             relayed: boolean, trustKey: string, trusted: boolean}[]} shared
 * @property {{id: string, providerKey: string, tabId: number, provider: string, path: string, action: string,
 *             why: 'dangerous'|'unknown', params: string, expiresAt: number, trustKey: string}[]} approvals
 */

/** @typedef {import('./connections.js').Connection} Connection */

/**
 * @typedef {object} BridgeHost
 * @property {() => import('../../js-glue/slop-core.js').SlopCore} core   the loaded core (SlopRelay, relayRefusal)
 * @property {() => Iterable<Connection>} connections    every Connection of every tab (tabs.js)
 * @property {(status: BridgeStatus) => void} publish     status changed
 * @property {typeof WebSocket} [WebSocket]
 */

/** @type {Record<string, string>} */
const STATE_TEXT = {
  off: 'Off.',
  'no-token': 'On, but no pairing token is saved: paste the one your desktop app shows, or allow bridges that do not pair.',
  'no-pairing': 'This bridge does not pair; allow unpaired bridges in Options to use it. Nothing is shared.',
};

/**
 * Who a trust is for: the provider under its bridge key, on the page origin and with the hello
 * id it had when the user said yes, so a tab that navigates elsewhere is asked about again.
 * @param {string} providerKey @param {Connection} conn
 */
function trustKeyOf(providerKey, conn) {
  return `${providerKey} ${pageOriginOf(conn)} ${conn.provider?.id ?? ''}`;
}

/** @param {Connection} conn */
function pageOriginOf(conn) {
  try { return new URL(conn.pageUrl).origin; } catch { return ''; }
}

export class DesktopBridge {
  /** @param {BridgeHost} host */
  constructor(host) {
    this.host = host;
    this.settings = { enabled: false, url: '', token: null, allowUnpaired: false };
    /** @type {BridgeStatus['state']} */
    this.state = 'off';
    /** @type {BridgeStatus['mode']} */
    this.mode = null;
    this.message = STATE_TEXT.off;
    this.retryAt = null;
    this.wire = null;
    this.attempt = 0;
    this.timer = null;
    this.generation = 0;
    /** The bridge at this address took a bare connection: dial it bare until the settings change. */
    this.bare = false;
    /** Messages from the bridge dropped (echoes, unknown types, junk), and whether this connection said so once. */
    this.ignored = 0;
    this.warned = false;
    /** providerKey → {conn, announcement} of what the desktop was told about */
    this.shared = new Map();
    /** providerKey → {relay: SlopRelay, conn} */
    this.relays = new Map();
    /** approval id → {entry, decide(allow, why)} */
    this.approvals = new Map();
    this.approvalSeq = 0;
    this.approvalTimeoutMs = APPROVAL_TIMEOUT_MS;
    /** Trust keys (trustKeyOf) of providers the desktop may invoke without asking. */
    this.trusted = new Set();
  }

  // ----------------------------------------------------------------------- connection

  /** Applies the user's settings ({enabled, url, token, allowUnpaired}); reconnects when they changed. */
  configure(settings) {
    const s = {
      enabled: !!settings.enabled, url: String(settings.url ?? ''), token: settings.token ?? null, allowUnpaired: !!settings.allowUnpaired,
    };
    const prev = this.settings;
    const sameLine = s.enabled === prev.enabled && s.url === prev.url && s.token === prev.token;
    this.settings = s;
    if (sameLine && s.allowUnpaired === prev.allowUnpaired && this.state !== 'off') return;
    // A paired connection does not depend on the unpaired switch: it stays up.
    if (sameLine && this.state === 'connected' && this.mode === 'paired') return;
    this.#stop();
    this.attempt = 0;
    this.bare = false;
    if (!s.enabled) return this.#setState('off', STATE_TEXT.off);
    if (!s.token && !s.allowUnpaired) return this.#setState('no-token', STATE_TEXT['no-token']);
    this.#connect();
  }

  /** "Retry now" (popup): a refused or waiting bridge is dialled again at once. */
  retry() {
    const s = this.settings;
    if (!s.enabled || (!s.token && !s.allowUnpaired) || this.state === 'connected') return;
    this.#stop();
    this.attempt = 0;
    this.bare = false;
    this.#connect();
  }

  /**
   * kind: 'token' offers ["slop.bearer", token]; 'bare' offers nothing (their extension's way);
   * 'probe' is a bare dial after a paired one failed with the bridge up, to tell a bridge that
   * does not pair from one that refused the token.
   */
  #connect(kind = this.bare || !this.settings.token ? 'bare' : 'token') {
    const gen = ++this.generation;
    clearTimeout(this.timer);
    this.timer = null;
    this.warned = false;
    if (kind !== 'probe') this.#setState('connecting', `Connecting to ${this.settings.url}…`);
    const paired = kind === 'token';
    this.wire = new WsTransport(this.settings.url, {
      token: paired ? this.settings.token : null,
      WebSocket: this.host.WebSocket,
      onOpen: () => { if (gen === this.generation) this.#opened(paired ? 'paired' : 'unpaired'); },
      onFrame: (text) => { if (gen === this.generation) this.#onFrame(text); },
      onClose: (info) => { if (gen === this.generation) this.#closed(info, gen, kind); },
    });
  }

  #opened(mode) {
    this.attempt = 0;
    if (mode === 'unpaired') {
      this.bare = true;
      if (!this.settings.allowUnpaired) {
        // Not one word is sent to a bridge that does not pair until the user allows it, and it
        // is not dialled again on its own: the settings (or Retry) start over.
        this.#stop();
        return this.#setState('no-pairing', STATE_TEXT['no-pairing']);
      }
    }
    this.mode = mode;
    this.#setState('connected', mode === 'paired'
      ? `Connected to ${this.settings.url}.`
      : `Connected to ${this.settings.url} without pairing: any program on this computer that opens this port sees what is shared.`);
    this.sync();
  }

  async #closed(info, gen, kind) {
    this.wire = null;
    this.mode = null;
    this.#dropAll();
    if (info.kind === 'construct') return this.#setState('refused', info.message);
    if (info.kind === 'subprotocol') {
      if (info.none) {
        // Firefox opened a bridge that selected no subprotocol: one that does not pair.
        this.bare = true;
        if (!this.settings.allowUnpaired) return this.#setState('no-pairing', STATE_TEXT['no-pairing']);
        return this.#connect('bare');
      }
      return this.#setState('not-bridge', `The server at ${this.settings.url} answered with a subprotocol other than slop.bearer: it is not a SLOP bridge this extension can use. Nothing is shared.`);
    }
    if (!info.opened && await serverAnswers(this.settings.url)) {
      if (gen !== this.generation) return;
      // Up, but the upgrade failed. Chrome fails it when a bridge that does not pair selects no
      // subprotocol: a bare dial tells that apart from a refused token.
      if (kind === 'token') return this.#connect('probe');
      if (kind === 'probe') {
        // A wrong or rotated token. Dialling again would only be refused again; a new token (or
        // Retry) starts over.
        return this.#setState('refused', 'The desktop bridge refused the pairing token: pair again in the desktop app and paste the new token.');
      }
      if (this.settings.token && this.bare) {
        // It took a bare connection before and refuses one now: it pairs now.
        this.bare = false;
        return this.#connect('token');
      }
      return this.#setState('refused', `The bridge at ${this.settings.url} refused a connection without pairing: save the pairing token your desktop app shows.`);
    }
    if (gen !== this.generation) return;
    const delay = kind === 'token' ? backoffDelay(this.attempt++, { baseMs: 1000, capMs: 30_000 }) : UNPAIRED_RETRY_MS;
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
    this.mode = null;
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

  /** @param {BridgeStatus['state']} state @param {string} message @param {number|null} [retryAt] */
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
      mode: this.state === 'connected' ? this.mode : null,
      message: this.message,
      url: this.settings.url,
      retryAt: this.retryAt,
      ignored: this.ignored,
      shared: [...this.shared.entries()].map(([providerKey, s]) => {
        const trustKey = trustKeyOf(providerKey, s.conn);
        return {
          providerKey, tabId: s.announcement.tabId, page: pageOriginOf(s.conn), name: s.announcement.provider.name, id: s.announcement.provider.id,
          transport: s.announcement.provider.transport, relayed: this.relays.has(providerKey), trustKey, trusted: this.trusted.has(trustKey),
        };
      }),
      approvals: [...this.approvals.values()].map((a) => ({ ...a.entry })),
    };
  }

  /** The providers the user let the desktop invoke without asking (trust keys, from storage.session). */
  setTrust(keys) {
    const next = new Set((Array.isArray(keys) ? keys : []).filter((k) => typeof k === 'string').slice(0, TRUST_MAX));
    if (next.size === this.trusted.size && [...next].every((k) => this.trusted.has(k))) return;
    this.trusted = next;
    this.#publish();
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
    // The bridges send their messages as text frames.
    if (typeof text !== 'string') return this.#ignore('a binary bridge message');
    let msg = null;
    if (text.length <= ENVELOPE_MAX) {
      try { msg = JSON.parse(text); } catch { msg = null; }
    }
    const key = msg && typeof msg === 'object' && typeof msg.providerKey === 'string' ? msg.providerKey : null;
    if (key === null) return this.#ignore('a bridge message that is not a JSON object with a string providerKey (or is over 1 MiB)');
    switch (msg.type) {
      case 'relay-open': return this.#openRelay(key);
      case 'relay-close':
        if (!this.relays.has(key)) return this.#ignore(null);
        this.#closeRelay(key);
        return this.#publish();
      case 'slop-relay':
        if (msg.message !== null && typeof msg.message === 'object') return this.#fromDesktop(key, msg.message);
        return this.#ignore('a slop-relay without a message');
      // Our own announcements coming back (their server sends every message to everyone), or
      // another browser's; and types this extension does not know.
      default: return this.#ignore(null);
    }
  }

  /** Counts a dropped message; a malformed one is said once per connection, never per message. */
  #ignore(malformed) {
    this.ignored++;
    if (!malformed || this.warned) return;
    this.warned = true;
    console.warn(`SLOP Inspector: bridge: ignoring ${malformed}; further ones on this connection are only counted`);
  }

  /** A SLOP message to the desktop, as the provider wrote it (its text is spliced in, never re-printed). */
  #toDesktop(providerKey, messageText) {
    if (!this.wire?.isOpen) return;
    this.wire.send(`{"type":"slop-relay","providerKey":${JSON.stringify(providerKey)},"message":${messageText}}`);
  }

  #newRelay(conn) {
    // A random tag: after a worker restart, an old relay's subscriptions may still be open in
    // the page, and their frames must not reach a new relay.
    const tag = `b${crypto.getRandomValues(new Uint32Array(2)).reduce((t, x) => t + x.toString(36), '')}`.slice(0, 16);
    return { relay: new (this.host.core().SlopRelay)(tag), conn };
  }

  #openRelay(providerKey) {
    if (this.relays.has(providerKey)) return;
    const s = this.shared.get(providerKey);
    // A key this extension did not announce may be another browser's on the same bridge: silence.
    if (!s) return this.#ignore(null);
    if (!s.conn.isPostMessage) {
      this.#toDesktop(providerKey, JSON.stringify(this.host.core().relayRefusal('relay', null, 'not_supported', 'a WebSocket provider is not relayed: connect to its url')));
      return;
    }
    this.relays.set(providerKey, this.#newRelay(s.conn));
    this.#publish();
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
    let r = this.relays.get(providerKey);
    let fresh = null;
    if (!r) {
      // A slop-relay before relay-open opens the relay, for a relayed provider only. Nothing
      // else is answered here: the answer would come back as one more slop-relay.
      const s = this.shared.get(providerKey);
      if (!s?.conn.isPostMessage) return this.#ignore(null);
      r = fresh = this.#newRelay(s.conn);
    }
    let text;
    try { text = JSON.stringify(message); } catch { text = null; } // nested past the stack: not relayed
    const out = text === null ? { ok: false, error: 'message nests too deep', reply: null } : r.relay.outbound(text);
    if (!out.ok) {
      fresh?.relay.free();
      // No reply: a provider message, i.e. our own frame coming back (or a forged one). A reply:
      // a consumer request the core refused, answered as a provider would.
      if (out.reply) this.#toDesktop(providerKey, JSON.stringify(out.reply));
      return this.#ignore(out.reply ? `a desktop request (${out.error})` : null);
    }
    if (fresh) {
      this.relays.set(providerKey, fresh);
      this.#publish();
    }
    if (out.type !== 'invoke') return r.conn.page.send(out.message);
    const why = this.#needsApproval(r.conn, out.path, out.action);
    if (!why || this.trusted.has(trustKeyOf(providerKey, r.conn))) return r.conn.page.send(out.message);
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
      trustKey: trustKeyOf(providerKey, r.conn),
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
