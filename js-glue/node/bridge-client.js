// bridge-client.js: the Node client's side of a desktop bridge: one WebSocket to the bridge as
// a plain desktop consumer (as the Claude Code and Codex plugins connect: bare, never pairing), the
// providers the bridge announces, and for a relayed (postMessage) provider a `page` channel for
// ConsumerSession that speaks the bridge: open → relay-open, send → slop-relay, close → relay-close.
// Relayed messages reach the session as the provider wrote them (bridge-envelope.js).
// Node-only (js-glue/node/ stays out of the extension build).

import { WebSocket } from 'ws';
import { relayEnvelope, relayedMessageText, BridgeType } from '../bridge-envelope.js';
import { SlopTestError, SlopTestCode } from './provider.js';

export const DEFAULT_BRIDGE = 'ws://127.0.0.1:9339/slop-bridge';
/**
 * A bridge replays what it shares as soon as a client connects, with no end marker: the list is
 * taken as complete once nothing more came for this long.
 */
const SETTLE_MS = 250;
/** How many of its last messages a relay channel remembers, to drop their echoes. */
const ECHO_WINDOW = 32;

/**
 * @typedef {object} BridgeProviderInfo   a provider-available, as the bridge announced it
 * @property {string} providerKey
 * @property {unknown} tabId
 * @property {{id: string, name: string, transport: string, url?: string}} provider
 */

/** @param {unknown} v @returns {v is Record<string, any>} */
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

export class BridgeLink {
  /** @type {Map<string, BridgeProviderInfo>} */
  providers = new Map();
  /** @type {Map<string, {onMessage: (text: string) => void, onGone: (why: string) => void}>} */
  #relays = new Map();
  /** @type {(() => void)|null} */
  #onAnnounce = null;
  #closed = false;

  /** Use BridgeLink.open(). @param {WebSocket} ws @param {string} url */
  constructor(ws, url) {
    this.ws = ws;
    this.url = url;
    ws.on('message', (/** @type {unknown} */ data) => this.#onMessage(String(data)));
    ws.on('close', () => {
      this.#closed = true;
      for (const r of [...this.#relays.values()]) r.onGone(`the bridge at ${url} closed the connection`);
      this.#relays.clear();
    });
    ws.on('error', () => {}); // a close follows
  }

  /**
   * Connects to the bridge and resolves once its replay of what it shares has come.
   * Rejects with SlopTestError "unreachable" when nothing answers or the bridge refuses.
   * @param {string} url @param {number} timeout ms
   * @returns {Promise<BridgeLink>}
   */
  static open(url, timeout) {
    return new Promise((resolve, reject) => {
      let ws;
      try {
        ws = new WebSocket(url, { perMessageDeflate: false });
      } catch (e) {
        return reject(new SlopTestError(SlopTestCode.UNREACHABLE, `bridge ${url}: ${/** @type {Error} */ (e).message}`));
      }
      const link = new BridgeLink(ws, url);
      /** @type {ReturnType<typeof setTimeout>|undefined} */
      let quiet;
      let over = false;
      const done = (/** @type {SlopTestError|null} */ err) => {
        if (over) return;
        over = true;
        clearTimeout(limit);
        clearTimeout(quiet);
        link.#onAnnounce = null;
        if (err) { link.close(); reject(err); } else resolve(link);
      };
      const limit = setTimeout(() => (ws.readyState === WebSocket.OPEN ? done(null)
        : done(new SlopTestError(SlopTestCode.UNREACHABLE, `bridge ${url}: no answer in ${timeout} ms`))), timeout);
      const settle = () => { clearTimeout(quiet); quiet = setTimeout(() => done(null), SETTLE_MS); };
      ws.once('open', () => { link.#onAnnounce = settle; settle(); });
      ws.once('error', (/** @type {Error} */ e) => done(new SlopTestError(SlopTestCode.UNREACHABLE,
        `bridge ${url}: ${e.message} (is a desktop bridge running there? \`slop-inspector bridge\` starts one)`)));
    });
  }

  /** @param {string} text */
  send(text) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
  }

  get closed() { return this.#closed; }

  /**
   * Relayed messages of one provider go to onMessage (their text as written); onGone once when the
   * provider is withdrawn or the bridge goes. Returns the function that stops it.
   * @param {string} key @param {(text: string) => void} onMessage @param {(why: string) => void} onGone
   */
  onRelay(key, onMessage, onGone) {
    const entry = { onMessage, onGone };
    this.#relays.set(key, entry);
    return () => { if (this.#relays.get(key) === entry) this.#relays.delete(key); };
  }

  close() {
    this.#relays.clear();
    try { this.ws.close(1000); } catch { /* never opened */ }
  }

  /** @param {string} text */
  #onMessage(text) {
    let msg;
    try { msg = JSON.parse(text); } catch { return; }
    if (!isObject(msg) || typeof msg.providerKey !== 'string') return; // bridge-error and the like: nothing to route
    const key = msg.providerKey;
    switch (msg.type) {
      case BridgeType.PROVIDER_AVAILABLE:
        this.providers.set(key, { providerKey: key, tabId: msg.tabId, provider: isObject(msg.provider) ? /** @type {any} */ (msg.provider) : { id: key, name: key, transport: 'postmessage' } });
        this.#onAnnounce?.();
        break;
      case BridgeType.PROVIDER_UNAVAILABLE: {
        this.providers.delete(key);
        const r = this.#relays.get(key);
        this.#relays.delete(key);
        r?.onGone(`the provider ${key} went away (provider-unavailable from the bridge)`);
        break;
      }
      case BridgeType.RELAY:
        if (isObject(msg.message)) this.#relays.get(key)?.onMessage(relayedMessageText(text, /** @type {any} */ (msg)));
        break;
      default:
        break;
    }
  }
}

/**
 * The provider a caller means: its providerKey, else the one whose name or id it is.
 * @param {BridgeLink} link @param {string} wanted @returns {BridgeProviderInfo}
 */
export function pickProvider(link, wanted) {
  const all = [...link.providers.values()];
  const byKey = link.providers.get(wanted);
  if (byKey) return byKey;
  const named = all.filter((p) => p.provider?.name === wanted || p.provider?.id === wanted);
  if (named.length === 1) return named[0];
  const list = (/** @type {BridgeProviderInfo[]} */ ps) => ps.map((p) => `"${p.provider?.name}" (id ${p.provider?.id}, key ${p.providerKey})`).join(', ');
  if (named.length > 1) {
    throw new SlopTestError(SlopTestCode.AMBIGUOUS, `bridge ${link.url}: ${named.length} providers are "${wanted}": ${list(named)}; name one by its key`);
  }
  throw new SlopTestError(SlopTestCode.NO_PROVIDER, `bridge ${link.url}: no provider "${wanted}"; it has ${all.length ? list(all) : 'none (is a browser paired with it and sharing its tabs?)'}`, {
    providers: all.map((p) => ({ providerKey: p.providerKey, name: p.provider?.name, id: p.provider?.id })),
  });
}

/**
 * The postMessage channel of ConsumerSession over the bridge, for one provider. A bridge that sends
 * every message to every client (the SLOP project's TypeScript one) sends ours back: the channel
 * remembers its last few messages and drops them when they come back.
 * @param {BridgeLink} link @param {string} key
 */
export function bridgePage(link, key) {
  /** @type {string[]} */
  const sent = [];
  /** @param {string} text one SLOP message */
  const out = (text) => {
    // As such a bridge prints it back: parsed and printed again.
    sent.push(JSON.stringify(JSON.parse(text)));
    if (sent.length > ECHO_WINDOW) sent.shift();
    link.send(relayEnvelope(key, text));
  };
  return {
    page: {
      open: () => link.send(JSON.stringify({ type: BridgeType.RELAY_OPEN, providerKey: key })),
      send: (/** @type {object} */ message) => out(JSON.stringify(message)),
      sendText: out,
      close: () => link.send(JSON.stringify({ type: BridgeType.RELAY_CLOSE, providerKey: key })),
    },
    /** True (and forgotten) when text is a message this channel sent. @param {string} text */
    isEcho(text) {
      const i = sent.indexOf(text);
      if (i < 0) return false;
      sent.splice(i, 1);
      return true;
    },
  };
}
