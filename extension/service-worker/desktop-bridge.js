// desktop-bridge.js: the desktop bridge: SLOP consumers on this machine (agent integrations,
// CLIs) see the browser's SLOP apps.
//
// The desktop side hosts ws://127.0.0.1:9339/slop-bridge; the extension dials it, always bare (no
// subprotocol: a selected one proves nothing, since the SLOP project's TypeScript bridge echoes
// whatever is offered first, and Chrome fails a handshake in which the Go and Rust bridges select
// none). Then, with a pairing code saved, the two prove to each other that they know it
// (js-glue/bridge-pairing.js: a challenge and an HMAC answer each way; the code never crosses the
// wire). Two modes:
//   paired    the bridge proved the code (`slop-inspector bridge`) and accepted ours;
//   unpaired  the bridges that exist (the SLOP project's CLI, desktop app and TypeScript package)
//             prove nothing; used only when the user allowed it in Options: any program that
//             opens the port then sees what is shared.
// Nothing but the challenge is sent before the mode is known. Messages, JSON text both ways:
//   → provider-available {tabId, providerKey, provider: {id, name, transport, url?}}
//   → provider-unavailable {tabId, providerKey}
//   ↔ slop-relay {providerKey, message}          a SLOP message to or from a relayed provider
//   ← relay-open {providerKey}, relay-close {providerKey}
// Their TypeScript server sends every message to every client, the sender included: the
// extension gets its own announcements and its own relayed provider frames back. Those, unknown
// types and malformed envelopes are dropped and counted (one console line per connection), and
// nothing the extension sends is ever an answer to a provider message, so no echo can loop.
// Desktop consumers such a server cannot tell apart share one relay per provider: the core's
// relay counts a subscription id subscribed twice and ends it at the second unsubscribe.
//
// What is shared: only providers the user can already see (connected, so approved when
// cross-origin), announced after their hello with the hello's name and id, withdrawn when they
// go, and all withdrawn (provider-unavailable) before the extension closes the connection itself:
// their server forgets a provider only when told. A WebSocket provider is announced with its URL
// and the desktop connects to it itself: the extension never hands over the tokens it stores. A
// postMessage provider is relayed over the same origin-checked channel as the extension's own
// traffic, through a core relay (SlopRelay in slop_core.h) that keeps the desktop's ids apart
// from the extension's, and says hello to a desktop consumer that waits for one without sending
// connect (the Go CLI's). An invoke of an affordance that is dangerous, or that the extension's
// mirror does not know, waits for the user's approval in the popup and is refused after
// APPROVAL_TIMEOUT_MS, unless the user let that provider be invoked without asking (setTrust;
// kept in storage.session by the worker, so it ends with the browser session).
//
// It imports nothing of the WebExtension API: what it needs comes in `host` (see the typedef),
// so it can be driven outside the browser.

import { WsTransport, backoffDelay } from '../../js-glue/ws-transport.js';
import { BrowserPairing, pairingMessage, normalizeCode, PAIR_TIMEOUT_MS } from '../../js-glue/bridge-pairing.js';
import { stringifyExact } from '../../js-glue/exact-json.js';

/** How long a relayed dangerous invoke waits for the user before it is refused. */
export const APPROVAL_TIMEOUT_MS = 60_000;
/** Approvals waiting at once; more are refused at once (a desktop flooding the popup). */
const APPROVALS_MAX = 20;
/** A desktop request larger than this is refused with an answer (a request is small; snapshots go the other way). */
const ENVELOPE_MAX = 1024 * 1024;
/** Larger still, it is not even read for its id: dropped and counted. */
const ENVELOPE_READ_MAX = 16 * 1024 * 1024;
/** Dialling a bridge that is not there: 1 s, doubling to this (loopback dials are cheap; their extension waits 5 s). */
export const RETRY_CAP_MS = 5000;
/** Providers the user let the desktop invoke without asking, at most (a session's worth). */
const TRUST_MAX = 200;

/**
 * @typedef {object} BridgeStatus   what the popup and the options page show
 * @property {'off'|'no-token'|'connecting'|'connected'|'retrying'|'refused'|'no-pairing'} state
 *   no-token: on, but neither a pairing code nor unpaired bridges allowed;
 *   no-pairing: the bridge did not prove a pairing code and the user has not allowed unpaired bridges;
 *   refused: a pairing that failed (the bridge has another code, or proved a wrong one)
 * @property {'paired'|'unpaired'|null} mode   how the open connection was made (connected only)
 * @property {string} message       for a person; never the code
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
 * @property {number} [pairTimeoutMs]   how long the pairing may take (tests)
 */

/** @type {Record<string, string>} */
const STATE_TEXT = {
  off: 'Off.',
  'no-token': 'On, but no pairing code is saved: paste the one `slop-inspector bridge` prints, or allow bridges that do not pair.',
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
    /** @type {BrowserPairing|null} the pairing under way on this connection */
    this.pairing = null;
    this.attempt = 0;
    this.timer = null;
    this.generation = 0;
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

  /** The saved pairing code, normalised; null when none (or one saved before codes had a shape). */
  get #code() {
    return normalizeCode(this.settings.token);
  }

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
    if (!s.enabled) return this.#setState('off', STATE_TEXT.off);
    if (!this.#code && !s.allowUnpaired) {
      // A token saved before bridges paired by proof is no pairing code: said, not used.
      return this.#setState('no-token', s.token
        ? 'On, but the saved pairing token is not a pairing code (it was saved before bridges proved their pairing): paste the code `slop-inspector bridge` prints, or allow bridges that do not pair.'
        : STATE_TEXT['no-token']);
    }
    this.#connect();
  }

  /** "Retry now" (popup): a refused or waiting bridge is dialled again at once. */
  retry() {
    const s = this.settings;
    if (!s.enabled || (!this.#code && !s.allowUnpaired) || this.state === 'connected') return;
    this.#stop();
    this.attempt = 0;
    this.#connect();
  }

  /** Dials bare: the same for every bridge, and nothing secret in the handshake. */
  #connect() {
    const gen = ++this.generation;
    clearTimeout(this.timer);
    this.timer = null;
    this.warned = false;
    this.#setState('connecting', `Connecting to ${this.settings.url}…`);
    this.wire = new WsTransport(this.settings.url, {
      WebSocket: this.host.WebSocket,
      onOpen: () => { if (gen === this.generation) this.#opened(gen); },
      onFrame: (text) => { if (gen === this.generation) this.#onFrame(text); },
      onClose: (info) => { if (gen === this.generation) this.#closed(info, gen); },
    });
  }

  #opened(gen) {
    this.attempt = 0;
    const code = this.#code;
    if (!code) return this.#unpaired('no pairing code is saved');
    this.#setState('connecting', `Pairing with the bridge at ${this.settings.url}…`);
    this.pairing = new BrowserPairing(code, (text) => this.wire?.send(text), (outcome, detail) => {
      if (gen !== this.generation) return;
      this.pairing = null;
      if (outcome === 'paired') return this.#live('paired');
      if (outcome === 'no-answer') return this.#unpaired(detail);
      // A bridge that speaks the pairing but with another code: not shared with, not dialled
      // again by itself (it would only fail again); a new code or Retry starts over.
      this.#stop();
      this.#setState('refused', outcome === 'refused'
        ? `The bridge at ${this.settings.url} has another pairing code: copy the one \`slop-inspector bridge\` prints (or \`--print-code\`) and save it here. Nothing is shared.`
        : `The bridge at ${this.settings.url} could not prove your pairing code (${detail}): it is not the bridge you paired with, or its code changed. Nothing is shared.`);
    });
    this.pairing.start(this.host.pairTimeoutMs ?? PAIR_TIMEOUT_MS);
  }

  /** The bridge proved nothing (why: in words). Used only when the user allowed it. */
  #unpaired(why) {
    if (!this.settings.allowUnpaired) {
      // Not one more word goes to a bridge that does not pair until the user allows it, and it
      // is not dialled again on its own: the settings (or Retry) start over.
      this.#stop();
      return this.#setState('no-pairing', `The bridge at ${this.settings.url} did not prove a pairing code (${why}); allow unpaired bridges in Options to use it. Nothing is shared.`);
    }
    this.#live('unpaired');
  }

  /** @param {'paired'|'unpaired'} mode */
  #live(mode) {
    this.mode = mode;
    this.#setState('connected', mode === 'paired'
      ? `Connected to ${this.settings.url}, paired: the bridge proved it knows your pairing code.`
      : `Connected to ${this.settings.url} without pairing: any program on this computer that opens this port sees what is shared.`);
    this.sync();
  }

  async #closed(info, gen) {
    this.wire = null;
    this.mode = null;
    this.pairing?.cancel();
    this.pairing = null;
    this.#dropAll();
    if (info.kind === 'construct') return this.#setState('refused', info.message);
    if (gen !== this.generation) return;
    // Nothing can tell a refused upgrade from nobody listening here (both are code 1006 to a
    // page); a bridge that went away after opening is dialled again the same way.
    const delay = backoffDelay(this.attempt++, { baseMs: 1000, capMs: RETRY_CAP_MS });
    this.retryAt = Date.now() + delay;
    this.timer = setTimeout(() => { if (gen === this.generation) this.#connect(); }, delay);
    const lost = info.code === 1009 ? ' It closed the connection because a message was larger than it accepts (code 1009).' : '';
    this.#setState('retrying', info.opened
      ? `The desktop bridge went away; dialling again…${lost}`
      : `No desktop bridge answers at ${this.settings.url} (nothing listening there, or it refused a WebSocket); dialling again…`, this.retryAt);
  }

  #stop() {
    this.generation++;
    clearTimeout(this.timer);
    this.timer = null;
    this.retryAt = null;
    this.pairing?.cancel();
    this.pairing = null;
    const w = this.wire;
    this.wire = null;
    // Their server forgets a provider only when told (or when no client is left): every agent
    // still connected would list the tabs as there, and its invokes would hang.
    if (this.state === 'connected') for (const [providerKey, s] of this.shared) {
      try { w?.send(JSON.stringify({ type: 'provider-unavailable', tabId: s.announcement.tabId, providerKey })); } catch { /* closing */ }
    }
    this.mode = null;
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
    return this.state === 'connected' && this.wire?.isOpen ? this.wire.send(JSON.stringify(obj)) : false;
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
    if (text.length > ENVELOPE_MAX) return this.#oversized(text);
    let msg = null;
    try { msg = JSON.parse(text); } catch { msg = null; }
    if (this.pairing) {
      // Until the bridge proved itself (or the time ran out), only the pairing is heard: a
      // broadcasting server's replayed announcements and relay requests wait for nothing.
      const pm = pairingMessage(msg);
      if (pm) this.pairing.receive(pm).catch((e) => console.error('SLOP Inspector: bridge pairing:', e?.message ?? e));
      else this.#ignore(null);
      return;
    }
    if (this.state !== 'connected') return this.#ignore(null);
    const key = msg && typeof msg === 'object' && typeof msg.providerKey === 'string' ? msg.providerKey : null;
    if (key === null) return this.#ignore(pairingMessage(msg) ? null : 'a bridge message that is not a JSON object with a string providerKey');
    switch (msg.type) {
      case 'relay-open': return this.#openRelay(key);
      case 'relay-close': {
        const r = this.relays.get(key);
        if (!r) return this.#ignore(null);
        // Consumers a broadcasting bridge cannot tell apart each opened it: the last one out closes it.
        if (--r.opens > 0) return;
        this.#closeRelay(key);
        return this.#publish();
      }
      case 'slop-relay':
        if (msg.message !== null && typeof msg.message === 'object') return this.#fromDesktop(key, msg.message);
        return this.#ignore('a slop-relay without a message');
      // Our own announcements coming back (their server sends every message to everyone), or
      // another browser's; and types this extension does not know.
      default: return this.#ignore(null);
    }
  }

  /**
   * A desktop message over ENVELOPE_MAX: a request to a relayed provider of ours is answered with
   * an error naming its size, so the agent's call ends instead of waiting forever.
   */
  #oversized(text) {
    let msg = null;
    if (text.length <= ENVELOPE_READ_MAX && this.state === 'connected' && !this.pairing) {
      try { msg = JSON.parse(text); } catch { msg = null; }
    }
    const m = msg?.type === 'slop-relay' && typeof msg.providerKey === 'string' && msg.message && typeof msg.message === 'object' ? msg.message : null;
    const kb = Math.round(text.length / 1024);
    if (!m || !this.shared.get(msg.providerKey)?.conn.isPostMessage || typeof m.type !== 'string') {
      return this.#ignore(`a bridge message of ${kb} KiB (over the 1 MiB limit)`);
    }
    this.ignored++;
    const id = typeof m.id === 'string' && m.id ? m.id : null;
    if (m.type === 'invoke' && !id) return;
    const refusal = this.host.core().relayRefusal(m.type, id, 'too_large',
      `a request of ${kb} KiB is over SLOP Inspector's 1 MiB limit for desktop requests: not relayed`);
    this.#toDesktop(msg.providerKey, JSON.stringify(refusal));
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
    if (this.state !== 'connected' || !this.wire?.isOpen) return;
    this.wire.send(`{"type":"slop-relay","providerKey":${JSON.stringify(providerKey)},"message":${messageText}}`);
  }

  #newRelay(conn) {
    // A random tag: after a worker restart, an old relay's subscriptions may still be open in
    // the page, and their frames must not reach a new relay.
    const tag = `b${crypto.getRandomValues(new Uint32Array(2)).reduce((t, x) => t + x.toString(36), '')}`.slice(0, 16);
    return { relay: new (this.host.core().SlopRelay)(tag), conn, opens: 1 };
  }

  #openRelay(providerKey) {
    const open = this.relays.get(providerKey);
    if (open) {
      open.opens++;
      return;
    }
    const s = this.shared.get(providerKey);
    // A key this extension did not announce may be another browser's on the same bridge: silence.
    if (!s) return this.#ignore(null);
    if (!s.conn.isPostMessage) {
      this.#toDesktop(providerKey, JSON.stringify(this.host.core().relayRefusal('relay', null, 'not_supported', 'a WebSocket provider is not relayed: connect to its url')));
      return;
    }
    const r = this.#newRelay(s.conn);
    this.relays.set(providerKey, r);
    // Some consumers (the Go CLI's) wait for a hello without sending connect: ask the page.
    const hello = r.relay.open();
    if (hello) r.conn.page.send(hello);
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
      r = fresh = { ...this.#newRelay(s.conn), opens: 0 }; // a relay-open may still follow
    }
    let text;
    try { text = JSON.stringify(message); } catch { text = null; } // nested past the stack: not relayed
    const out = text === null ? { ok: false, error: 'message nests too deep', reply: null } : r.relay.outbound(text);
    if (!out.ok) {
      fresh?.relay.free();
      // No reply: a provider message, i.e. our own frame coming back (or a forged one). A reply:
      // a consumer request the core refused, answered as a provider would.
      if (out.reply) this.#toDesktop(providerKey, stringifyExact(out.reply));
      return this.#ignore(out.reply ? `a desktop request (${out.error})` : null);
    }
    if (fresh) {
      this.relays.set(providerKey, fresh);
      this.#publish();
    }
    if (out.forward === false) return; // kept by the relay (see slop_relay_outbound)
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
