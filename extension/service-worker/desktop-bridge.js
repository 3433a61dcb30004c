// desktop-bridge.js: the desktop bridge: SLOP consumers on this machine (agent integrations,
// CLIs) see the browser's SLOP apps.
//
// The desktop side hosts ws://127.0.0.1:9339/slop-bridge; the extension dials it bare first (no
// subprotocol: a selected one proves nothing, since the SLOP project's TypeScript bridge echoes
// whatever is offered first, and Chrome fails a handshake in which the Go and Rust bridges select
// none). Then, with a pairing code saved, the two prove to each other that they know it
// (js-glue/bridge-pairing.js: a challenge and an HMAC answer each way; the code never crosses the
// wire). The order of dials is js-glue/bridge-dial.js's (nextDial). Three modes:
//   paired    the bridge proved the code (`slop-inspector bridge`) and accepted ours;
//   token     the bridge refused the bare dial and then upgraded a dial offering the SLOP desktop
//             app's token (["slop.bearer", token]), selecting exactly slop.bearer: the token was
//             checked by the bridge when it connected. It is never offered to a bridge that
//             accepts a bare dial, and never logged or shown.
//   unpaired  the bridges that exist (the SLOP project's CLI, older desktop app and TypeScript
//             package) prove nothing; used only when the user allowed it in Options: any program
//             that opens the port then sees what is shared.
// What counts as shared: on a paired bridge (ours), what was announced (ours takes a paired
// browser's announcements; a bridge-error would say otherwise); on the others, announced only
// ("this bridge does not confirm"). A bridge-error from the bridge is never just logged: not_paired
// (our bridge refusing an unpaired browser) closes and says the bridge asks for pairing; the others
// are said in the status.
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
import { BrowserPairing, pairingMessage, PAIR_TIMEOUT_MS } from '../../js-glue/bridge-pairing.js';
import { classifyBridgeSecret, nextDial } from '../../js-glue/bridge-dial.js';
import { stringifyExact } from '../../js-glue/exact-json.js';
import { BridgeType, BridgeErrorCode, relayEnvelope } from '../../js-glue/bridge-envelope.js';
import { BridgeApprovals, needsApproval, trustKeyOf, pageOriginOf, agentOf } from './bridge-approvals.js';

export { APPROVAL_TIMEOUT_MS, agentOf } from './bridge-approvals.js';

/** A desktop request larger than this is refused with an answer (a request is small; snapshots go the other way). */
const ENVELOPE_MAX = 1024 * 1024;
/** Larger still, it is not even read for its id: dropped and counted. */
const ENVELOPE_READ_MAX = 16 * 1024 * 1024;
/** Dialling a bridge that is not there: 1 s, doubling to this (loopback dials are cheap; their extension waits 5 s). */
export const RETRY_CAP_MS = 5000;

/** @typedef {import('../shared/bridge-text.js').BridgeStatus} BridgeStatus */

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
  'no-token': 'On, but nothing is saved: paste the pairing code `slop-inspector bridge` prints or the SLOP desktop app’s token, or allow bridges that do not pair.',
};

/** How long a bridge's own words may be in the status. */
const NOTE_MAX = 200;

export class DesktopBridge {
  /** @param {BridgeHost} host */
  constructor(host) {
    this.host = host;
    /** @type {{enabled: boolean, url: string, token: string|null, allowUnpaired: boolean}} */
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
    /** @type {'bare'|'token'} the dial under way: bare, or offering the app's token */
    this.dial = 'bare';
    /** The last pairing's detail in words (bridge-pairing.js), for the status. */
    this.pairDetail = '';
    /** The close code of a connection that had opened (1009: a message too large for the bridge). */
    this.lostCode = 0;
    /** The bridge's last bridge-error on this connection, in words (never a secret). */
    this.note = null;
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
    /** Relayed invokes waiting for the user, and the providers the desktop may invoke without asking. */
    this.approvals = new BridgeApprovals(() => this.#publish());
  }

  // ----------------------------------------------------------------------- connection

  /** What is saved: our pairing code or the desktop app's token (bridge-dial.js), or null. */
  get #secret() {
    return classifyBridgeSecret(this.settings.token);
  }

  /** The dial order's inputs (bridge-dial.js). */
  get #setup() {
    return { secret: this.#secret?.kind ?? null, allowUnpaired: this.settings.allowUnpaired };
  }

  /** Applies the user's settings; reconnects when they changed. @param {{enabled?: boolean, url?: string, token?: string|null, allowUnpaired?: boolean}} settings */
  configure(settings) {
    const s = {
      enabled: !!settings.enabled, url: String(settings.url ?? ''), token: settings.token ?? null, allowUnpaired: !!settings.allowUnpaired,
    };
    const prev = this.settings;
    const sameLine = s.enabled === prev.enabled && s.url === prev.url && s.token === prev.token;
    this.settings = s;
    if (sameLine && s.allowUnpaired === prev.allowUnpaired && this.state !== 'off') return;
    // A paired or token-checked connection does not depend on the unpaired switch: it stays up.
    if (sameLine && this.state === 'connected' && this.mode !== 'unpaired') return;
    this.#stop();
    this.attempt = 0;
    if (!s.enabled) return this.#setState('off', STATE_TEXT.off);
    this.#step({ on: 'start' });
  }

  /** "Retry now" (popup): a refused or waiting bridge is dialled again at once. */
  retry() {
    const s = this.settings;
    if (!s.enabled || (!this.#secret && !s.allowUnpaired) || this.state === 'connected') return;
    this.#stop();
    this.attempt = 0;
    this.#step({ on: 'start' });
  }

  /**
   * Does what the dial order says after `event` (bridge-dial.js nextDial).
   * @param {import('../../js-glue/bridge-dial.js').DialEvent} event
   */
  #step(event) {
    const next = nextDial(this.#setup, event);
    const url = this.settings.url;
    switch (next.do) {
      case 'dial-bare': return this.#connect(false);
      case 'dial-token': return this.#connect(true);
      case 'pair': return this.#pair();
      case 'live': return this.#live(next.mode);
      case 'retry': return this.#retryLater(event.on === 'lost');
      case 'stop': {
        // Not one more word goes to this bridge, and it is not dialled again on its own: the
        // settings (a new code or token) or Retry start over.
        this.#stop();
        if (next.state === 'no-token') {
          // A token saved before bridges paired by proof is neither a code nor the app's token: said, not used.
          return this.#setState('no-token', this.settings.token
            ? 'On, but what is saved is neither a pairing code nor the SLOP desktop app’s token (it was saved before bridges proved their pairing): paste the code `slop-inspector bridge` prints or the app’s token, or allow bridges that do not pair.'
            : STATE_TEXT['no-token']);
        }
        if (next.state === 'no-pairing') {
          const why = event.on === 'pairing' && this.pairDetail ? this.pairDetail : next.why;
          return this.#setState('no-pairing', `The bridge at ${url} did not prove a pairing code (${why}); allow unpaired bridges in Options to use it. Nothing is shared.`);
        }
        if (next.state === 'refused') {
          return this.#setState('refused', next.why === 'refused'
            ? `The bridge at ${url} has another pairing code: copy the one \`slop-inspector bridge\` prints (or \`--print-code\`) and save it here. Nothing is shared.`
            : `The bridge at ${url} could not prove your pairing code (${this.pairDetail}): it is not the bridge you paired with, or its code changed. Nothing is shared.`);
        }
        return this.#setState('token-refused', next.why === 'refused'
          // What a browser can tell: a plain dial and the one offering the token both failed at
          // the handshake. A 401 (token refused) and a closed port look the same to it.
          ? `The bridge at ${url} refused a plain connection, and the connection offering the SLOP desktop app’s token failed too: the app refused this token (it was regenerated, or is another app’s), or nothing listens there (a browser cannot tell the two apart). Paste the app’s current token in Options, or start the app, then Retry. Nothing is shared.`
          : `The bridge at ${url} opened the connection offering the SLOP desktop app’s token but selected ${next.why === 'no subprotocol selected' ? 'no subprotocol' : 'another subprotocol'} instead of exactly slop.bearer: closed, nothing shared. It does not check the app’s token as the app does; check the address, or paste the app’s current token.`);
      }
      default: return undefined;
    }
  }

  /**
   * Dials: bare (nothing secret in the handshake), or offering the app's token, which WsTransport
   * uses only if the bridge selected exactly slop.bearer.
   * @param {boolean} withToken
   */
  #connect(withToken) {
    const gen = ++this.generation;
    clearTimeout(this.timer ?? undefined);
    this.timer = null;
    this.warned = false;
    this.note = null;
    this.dial = withToken ? 'token' : 'bare';
    this.#setState('connecting', withToken
      ? `Connecting to ${this.settings.url} with the SLOP desktop app’s token (it refused a plain connection)…`
      : `Connecting to ${this.settings.url}…`);
    this.wire = new WsTransport(this.settings.url, {
      WebSocket: this.host.WebSocket,
      token: withToken ? this.#secret?.secret : null,
      onOpen: () => { if (gen === this.generation) this.#opened(); },
      onFrame: (text) => { if (gen === this.generation) this.#onFrame(text); },
      onClose: (info) => { if (gen === this.generation) this.#closed(info); },
    });
  }

  #opened() {
    this.attempt = 0;
    if (this.dial === 'token') return this.#step({ on: 'token-opened', protocol: 'slop.bearer' }); // WsTransport checked it
    this.#step({ on: 'bare-opened' });
  }

  #pair() {
    const gen = this.generation;
    const code = /** @type {string} */ (this.#secret?.secret);
    this.#setState('connecting', `Pairing with the bridge at ${this.settings.url}…`);
    this.pairing = new BrowserPairing(code, (text) => this.wire?.send(text), (outcome, detail) => {
      if (gen !== this.generation) return;
      this.pairing = null;
      this.pairDetail = detail;
      // no-answer: the bridge did not take part (unpaired); refused: it said no to our proof;
      // anything else: its own proof was wrong.
      const o = outcome === 'paired' || outcome === 'no-answer' || outcome === 'refused' ? outcome : 'bad-proof';
      this.#step({ on: 'pairing', outcome: o });
    });
    this.pairing.start(this.host.pairTimeoutMs ?? PAIR_TIMEOUT_MS);
  }

  /** @param {'paired'|'unpaired'|'token'} mode */
  #live(mode) {
    this.mode = mode;
    const url = this.settings.url;
    this.#setState('connected', mode === 'paired'
      ? `Connected to ${url}, paired: the bridge proved it knows your pairing code.`
      : mode === 'token'
        ? `Connected to ${url} with the SLOP desktop app’s token: token checked by the bridge when it connected.`
        : `Connected to ${url} without pairing: any program on this computer that opens this port sees what is shared.`);
    this.sync();
  }
  /** @param {import('../../js-glue/ws-transport.js').CloseInfo} info */
  async #closed(info) {
    this.wire = null;
    this.mode = null;
    this.pairing?.cancel();
    this.pairing = null;
    this.#dropAll();
    if (info.kind === 'construct') return this.#setState('refused', info.message);
    if (info.kind === 'subprotocol') return this.#step({ on: 'token-opened', protocol: info.none ? '' : 'other' });
    this.lostCode = info.opened ? info.code : 0;
    if (info.opened) return this.#step({ on: 'lost' });
    this.#step({ on: this.dial === 'token' ? 'token-failed' : 'bare-failed', noListener: info.noListener === true });
  }

  /** Dials again after the back-off, bare first. @param {boolean} lost the connection had been open */
  #retryLater(lost) {
    const gen = this.generation;
    const delay = backoffDelay(this.attempt++, { baseMs: 1000, capMs: RETRY_CAP_MS });
    this.retryAt = Date.now() + delay;
    this.timer = setTimeout(() => { if (gen === this.generation) this.#step({ on: 'start' }); }, delay);
    const url = this.settings.url;
    // Nothing can tell a refused upgrade from nobody listening here (both are code 1006 to a
    // page); a bridge that went away after opening is dialled again the same way.
    const big = this.lostCode === 1009 ? ' It closed the connection because a message was larger than it accepts (code 1009).' : '';
    this.#setState('retrying', lost
      ? `The desktop bridge went away; dialling again…${big}`
      : `No desktop bridge answers at ${url} (nothing listening there, or it refused a WebSocket); dialling again…`, this.retryAt);
  }

  #stop() {
    this.generation++;
    clearTimeout(this.timer ?? undefined);
    this.timer = null;
    this.retryAt = null;
    this.pairing?.cancel();
    this.pairing = null;
    const w = this.wire;
    this.wire = null;
    // Their server forgets a provider only when told (or when no client is left): every agent
    // still connected would list the tabs as there, and its invokes would hang.
    if (this.state === 'connected') for (const [providerKey, s] of this.shared) {
      try { w?.send(JSON.stringify({ type: BridgeType.PROVIDER_UNAVAILABLE, tabId: s.announcement.tabId, providerKey })); } catch { /* closing */ }
    }
    this.mode = null;
    this.#dropAll();
    try { w?.close(1000, 'bridge turned off'); } catch { /* not open */ }
  }

  /** The bridge connection ended: relays close (their subscriptions with them), approvals fail. */
  #dropAll() {
    for (const key of [...this.relays.keys()]) this.#closeRelay(key);
    this.shared.clear();
    this.approvals.refuseAll('the desktop bridge disconnected');
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
      secret: this.#secret?.kind ?? null,
      sharing: this.state !== 'connected' ? null : this.mode === 'paired' ? 'confirmed' : 'unconfirmed',
      message: this.message,
      note: this.note,
      url: this.settings.url,
      retryAt: this.retryAt,
      ignored: this.ignored,
      shared: [...this.shared.entries()].map(([providerKey, s]) => {
        const trustKey = trustKeyOf(providerKey, s.conn);
        return {
          providerKey, tabId: s.announcement.tabId, page: pageOriginOf(s.conn), name: s.announcement.provider.name, id: s.announcement.provider.id,
          transport: s.announcement.provider.transport, relayed: this.relays.has(providerKey), trustKey, trusted: this.approvals.trusted.has(trustKey),
        };
      }),
      approvals: this.approvals.entries(),
    };
  }

  /** The providers the user let the desktop invoke without asking (trust keys, from storage.session). @param {unknown} keys */
  setTrust(keys) {
    if (this.approvals.setTrust(keys)) this.#publish();
  }
  /** @param {object} obj */
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
      this.#send({ type: BridgeType.PROVIDER_UNAVAILABLE, tabId: s.announcement.tabId, providerKey: key });
      changed = true;
    }
    for (const [key, conn] of now) {
      if (this.shared.has(key)) continue;
      const provider = /** @type {{id: string, name: string, transport: string, url?: string}} */ ({ id: conn.provider.id, name: conn.provider.name, transport: conn.isPostMessage ? 'postmessage' : 'ws' });
      if (!conn.isPostMessage) provider.url = conn.transport.url;
      const announcement = { type: BridgeType.PROVIDER_AVAILABLE, tabId: conn.tabId, providerKey: key, provider };
      this.shared.set(key, { conn, announcement });
      this.#send(announcement);
      changed = true;
    }
    if (changed) this.#publish();
  }

  // ------------------------------------------------------------------------------ relay
  /** @param {string|Uint8Array} text a frame */
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
    if (msg && typeof msg === 'object' && msg.type === BridgeType.ERROR) return this.#bridgeError(msg.error);
    const key = msg && typeof msg === 'object' && typeof msg.providerKey === 'string' ? msg.providerKey : null;
    if (key === null) return this.#ignore(pairingMessage(msg) ? null : 'a bridge message that is not a JSON object with a string providerKey');
    switch (msg.type) {
      case BridgeType.RELAY_OPEN: return this.#openRelay(key);
      case BridgeType.RELAY_CLOSE: {
        const r = this.relays.get(key);
        if (!r) return this.#ignore(null);
        // Consumers a broadcasting bridge cannot tell apart each opened it: the last one out closes it.
        if (--r.opens > 0) return;
        this.#closeRelay(key);
        return this.#publish();
      }
      case BridgeType.RELAY:
        if (msg.message !== null && typeof msg.message === 'object') return this.#fromDesktop(key, msg.message, agentOf(msg.agent));
        return this.#ignore('a slop-relay without a message');
      // Our own announcements coming back (their server sends every message to everyone), or
      // another browser's; and types this extension does not know.
      default: return this.#ignore(null);
    }
  }

  /**
   * The bridge refused something we sent (`{type: 'bridge-error', error: {code, message}}`, as
   * `slop-inspector bridge` answers). not_paired: it takes announcements only from a browser that
   * paired, so nothing was shared: closed, and the state says what the bridge wants. Any other
   * code concerns one message: said in the status (the bridge names no message to pin it on).
   * @param {any} err
   */
  #bridgeError(err) {
    const code = typeof err?.code === 'string' && /^[a-z_]{1,40}$/.test(err.code) ? err.code : 'unnamed';
    if (code === BridgeErrorCode.NOT_PAIRED) {
      this.shared.clear(); // refused, so nothing to withdraw
      this.#stop();
      const saved = this.#secret?.kind === 'app-token' ? ' (what is saved is the SLOP desktop app’s token, not this bridge’s code)' : '';
      return this.#setState('wants-pairing', `This bridge asks for pairing: paste the code it printed (\`slop-inspector bridge --print-code\` shows it again) in Options → Desktop bridge${saved}. Nothing is shared.`);
    }
    const words = this.#bridgeWords(err?.message);
    this.note = `The bridge refused a message (${code})${words ? `: ${words}` : ''}.`;
    this.#publish();
  }

  /** A bridge's own words, made fit for the status: one short line, never a saved secret. @param {unknown} text */
  #bridgeWords(text) {
    if (typeof text !== 'string') return '';
    let t = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
    for (const secret of [this.settings.token, this.#secret?.secret]) {
      if (typeof secret === 'string' && secret.length >= 8) t = t.split(secret).join('••••');
    }
    return t.length > NOTE_MAX ? `${t.slice(0, NOTE_MAX - 1)}…` : t;
  }

  /**
   * A desktop message over ENVELOPE_MAX: a request to a relayed provider of ours is answered with
   * an error naming its size, so the agent's call ends instead of waiting forever. @param {string} text
   */
  #oversized(text) {
    let msg = null;
    if (text.length <= ENVELOPE_READ_MAX && this.state === 'connected' && !this.pairing) {
      try { msg = JSON.parse(text); } catch { msg = null; }
    }
    const m = msg?.type === BridgeType.RELAY && typeof msg.providerKey === 'string' && msg.message && typeof msg.message === 'object' ? msg.message : null;
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

  /** Counts a dropped message; a malformed one is said once per connection, never per message. @param {string|null} malformed */
  #ignore(malformed) {
    this.ignored++;
    if (!malformed || this.warned) return;
    this.warned = true;
    console.warn(`SLOP Inspector: bridge: ignoring ${malformed}; further ones on this connection are only counted`);
  }

  /** A SLOP message to the desktop, as the provider wrote it (its text spliced in, never re-printed). @param {string} providerKey @param {string} messageText */
  #toDesktop(providerKey, messageText) {
    if (this.state === 'connected' && this.wire?.isOpen) this.wire.send(relayEnvelope(providerKey, messageText));
  }
  /** @param {Connection} conn */
  #newRelay(conn) {
    // A random tag: after a worker restart, an old relay's subscriptions may still be open in
    // the page, and their frames must not reach a new relay.
    const tag = `b${crypto.getRandomValues(new Uint32Array(2)).reduce((t, x) => t + x.toString(36), '')}`.slice(0, 16);
    return { relay: new (this.host.core().SlopRelay)(tag), conn, opens: 1 };
  }
  /** @param {string} providerKey */
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
    if (hello) /** @type {NonNullable<Connection['page']>} a postMessage connection's */ (r.conn.page).send(hello);
    this.#publish();
  }
  /** @param {string} providerKey */
  #closeRelay(providerKey) {
    const r = this.relays.get(providerKey);
    if (!r) return;
    this.relays.delete(providerKey);
    this.approvals.refuseAll('the relay closed', providerKey);
    try {
      if (!r.conn.disposed && r.conn.wire) for (const m of r.relay.close()) r.conn.page.send(m);
    } catch { /* the page is gone */ }
    r.relay.free();
  }

  /** @param {string} providerKey @param {object} message @param {{id: string, name: string|null}|null} [agent] */
  #fromDesktop(providerKey, message, agent = null) {
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
    const why = needsApproval(r.conn, out.path, out.action);
    if (!why || this.approvals.trusts(providerKey, r.conn)) return r.conn.page.send(out.message);
    this.approvals.ask({
      providerKey, conn: r.conn, out, why, agent,
      refuse: (message) => this.#toDesktop(providerKey, JSON.stringify(this.host.core().relayRefusal('invoke', out.id, 'unauthorized', message))),
      // Allowed: sent only if that relay is still the provider's and its page is there.
      send: () => {
        if (this.relays.get(providerKey) !== r || r.conn.disposed) return false;
        r.conn.page.send(out.message);
        return true;
      },
    });
  }

  /** The user's answer (popup). false when the approval is no longer waiting. @param {string} id @param {boolean} allow */
  decide(id, allow) {
    return this.approvals.decide(id, allow);
  }

  /** A provider frame of a postMessage connection (tabs.js, before or after the core saw it). @param {Connection} conn @param {string} text */
  pageFrame(conn, text) {
    if (this.relays.size === 0) return;
    for (const [providerKey, r] of this.relays) {
      if (r.conn !== conn) continue;
      const back = r.relay.inbound(text);
      if (back !== null) this.#toDesktop(providerKey, back);
    }
  }

  /** Approvals waiting for a tab: its badge asks for attention. @param {number} tabId */
  waitingFor(tabId) {
    return this.approvals.waitingFor(tabId);
  }
}
