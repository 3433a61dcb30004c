// bridge-server.js: `slop-inspector bridge`, a desktop bridge that pairs. It listens where the
// SLOP project's bridges listen (ws://127.0.0.1:9339/slop-bridge) and speaks their protocol to
// desktop consumers (docs/desktop-bridge.md; the Claude Code and Codex plugins connect bare and
// never pair), with three differences that are the point of it:
//
//   - Only a browser that proved the pairing code (bridge-pairing.js) may announce providers and
//     speak for them. Every client starts as a consumer; one that sends pair-challenge and proves
//     the code becomes a browser; one that fails is closed (4403). The SLOP project's newer
//     extension pairs the way the SLOP desktop app checks it: it offers the subprotocols
//     ["slop.bearer", <code>] at the upgrade; the right code makes it a browser from the start
//     (only the label is selected), anything else gets 401. A web page cannot connect at all
//     (its Origin is refused), so only programs on this machine and extensions reach the port.
//   - Consumers are kept apart. The project's TypeScript server sends every message to every
//     client, so two consumers see each other's results, and one's unsubscribe ends the other's
//     subscription. Here each consumer has its own core relay (SlopRelay, slop_core.h) per
//     provider: its ids travel as "c<n>~<id>", and only frames addressed to them come back to it.
//   - Provider messages pass byte for byte: the message's text is cut out of the browser's
//     envelope and spliced into the consumer's (bridge-envelope.js), never re-printed.
//
// Two browsers may announce the same providerKey ("12:postmessage"); the second is shown to
// consumers as "<key>#<its connection number>" and mapped back when relayed.
// Node-only (js-glue/node/ stays out of the extension build).

import http from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { WebSocketServer, WebSocket } from 'ws';
import { loadSlopCoreNode } from './load-core.js';
import { BridgePairing, pairingMessage, normalizeCode, PAIR_TIMEOUT_MS } from '../bridge-pairing.js';
import { resolvePairingCode, saveNewCode, codeFile, displayCode } from './bridge-code.js';
import { relayEnvelope, relayedMessageText, bridgeError, agentOf, consumerName, BridgeType, BridgeErrorCode } from '../bridge-envelope.js';
import { stringifyExact } from '../exact-json.js';

export const BRIDGE_HOST = '127.0.0.1';
export const BRIDGE_PORT = 9339;
export const BRIDGE_PATH = '/slop-bridge';
/** A consumer's message above this is answered with too_large (a SLOP request is small). */
export const CONSUMER_MESSAGE_MAX = 1024 * 1024;
/** ws closes (1009) above this; up to it a message can still be read, and answered in words. */
const PAYLOAD_MAX = 16 * 1024 * 1024;
/** The close code of a refused pairing (a WebSocket application code, like HTTP 403). */
export const CLOSE_PAIRING_REFUSED = 4403;
/** Longer providerKeys are not taken (the extension's are "<tab>:postmessage" or "<tab>:<ws url>"). */
const KEY_MAX = 2048;
/** Only extension pages may connect with an Origin; a web page (http, https, null) never. */
const EXTENSION_ORIGIN = /^(chrome-extension|moz-extension):\/\/[^/]+$/i;
/** The subprotocol label a client offers beside its token (the SLOP desktop app's scheme). */
export const BEARER = 'slop.bearer';
/** A client's refusals logged one line each, up to this many; then one line says the rest are not. */
const REFUSALS_LOGGED = 5;

/** @typedef {import('../slop-core.js').SlopCore} SlopCore */
/** @typedef {InstanceType<SlopCore['SlopRelay']>} SlopRelay */

/**
 * One connection. Every client starts as a consumer; it becomes a browser when it pairs.
 */
class Peer {
  /**
   * @param {number} n connection number (from 1) @param {WebSocket} ws @param {string|undefined} origin
   * @param {boolean} byToken it offered the right code at the upgrade: a browser from the start
   */
  constructor(n, ws, origin, byToken) {
    this.n = n;
    this.ws = ws;
    this.origin = origin;
    /** @type {'consumer'|'browser'} */
    this.role = byToken ? 'browser' : 'consumer';
    /** How it became a browser. @type {'proof'|'token'|null} */
    this.pairedBy = byToken ? 'token' : null;
    /** @type {BridgePairing|null} */
    this.pairing = null;
    /** Its refusal has been logged already (its leaving is then not a line of its own). */
    this.refused = false;
    /** Refusals of its messages logged so far. */
    this.refusals = 0;
    /** Consumer: the name it gave itself (client.name or clientInfo.name), if any. @type {string|null} */
    this.name = null;
    /** Consumer: its relays, by the providerKey consumers see. @type {Map<string, SlopRelay>} */
    this.relays = new Map();
    /** Browser: its providerKeys → the keys consumers see. @type {Map<string, string>} */
    this.keys = new Map();
  }

  /** The relay tag: "c" and the connection number in base 36 (the core's 1 to 16 of [a-z0-9_-]). */
  get tag() { return `c${this.n.toString(36)}`; }

  /** @param {string} text */
  send(text) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
  }
}

/**
 * @typedef {object} SharedProvider   a paired browser's provider, as consumers see it
 * @property {Peer} browser
 * @property {string} key          the browser's providerKey
 * @property {any} announcement    its provider-available, as the browser sent it
 * @property {string} text         the provider-available consumers get (the key theirs)
 */

/**
 * @typedef {object} BridgeServer
 * @property {string} url       ws://host:port/path
 * @property {number} port
 * @property {string} code      the pairing code, normalised (print it once; never log it)
 * @property {import('./bridge-code.js').PairingCode} pairingCode  the code and where it is kept
 * @property {() => {n: number, origin: string|null, pairedBy: 'proof'|'token', providers: string[]}[]} browsers  paired browsers (pairedBy: the challenge, or the code offered at the upgrade; providers: keys as consumers see them)
 * @property {() => {providerKey: string, browser: number, tabId: unknown, provider: any}[]} providers  what consumers are told
 * @property {() => {n: number, relays: string[]}[]} consumers
 * @property {() => Promise<void>} close   closes every connection and stops listening
 */

/**
 * Starts a paired desktop bridge. Rejects when the code is not a pairing code, or the port is
 * taken (error.code 'EADDRINUSE', a message that says who may be there).
 * The port is taken before the code is looked for, so a busy port makes and saves no code.
 * @param {{host?: string, port?: number, path?: string, code?: string|null, newCode?: boolean,
 *   log?: (line: string) => void, pairTimeoutMs?: number}} [options]
 *   code: the pairing code (else $SLOP_BRIDGE_CODE, else the config file's, else a new one saved
 *   there: bridge-code.js). newCode: make a new code and save it over the kept one (--new-code).
 *   log: one line per event (pairing, clients, providers, refusals); never the code.
 *   pairTimeoutMs: how long a pairing client has for its proof (tests shorten it).
 * @returns {Promise<BridgeServer>}
 */
export async function startBridgeServer({
  host = BRIDGE_HOST, port = BRIDGE_PORT, path = BRIDGE_PATH, code = null, newCode = false, log = () => {}, pairTimeoutMs = PAIR_TIMEOUT_MS,
} = {}) {
  const core = await loadSlopCoreNode();
  /** Set once the port is ours (below); nothing is accepted before that. @type {import('./bridge-code.js').PairingCode} */
  let pairingCode;

  /** @type {Set<Peer>} */
  const peers = new Set();
  /** Providers by the key consumers see. @type {Map<string, SharedProvider>} */
  const shared = new Map();
  /** The consumers' relays on each shared key. @type {Map<string, Map<Peer, SlopRelay>>} */
  const relayUsers = new Map();
  let seq = 0;
  const say = (/** @type {string} */ line) => {
    try { log(line); } catch { /* a logger's failure is not the bridge's */ }
  };

  // ------------------------------------------------------------------------------ HTTP
  const server = http.createServer((req, res) => {
    res.writeHead(426, { 'Content-Type': 'text/plain; charset=utf-8', Upgrade: 'websocket', Connection: 'close' });
    res.end(`This is a SLOP desktop bridge: a WebSocket endpoint (${path}) for SLOP consumers and the SLOP Inspector extension, not a web page.\n`);
  });
  // No subprotocol is selected: a client that offers none opens in every browser, and one
  // selected would prove nothing anyway (the pairing does).
  // A client that offered the right code beside slop.bearer (checked before handleUpgrade) gets
  // the label alone, never the code.
  /** @type {WeakSet<http.IncomingMessage>} */
  const admitted = new WeakSet();
  const wss = new WebSocketServer({
    noServer: true, maxPayload: PAYLOAD_MAX, perMessageDeflate: false,
    handleProtocols: (/** @type {Set<string>} */ _offered, /** @type {http.IncomingMessage} */ req) => (admitted.has(req) ? BEARER : false),
  });

  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => {});
    let pathname = '';
    try { pathname = new URL(req.url ?? '/', 'http://bridge').pathname; } catch { /* stays '' */ }
    if (pathname !== path) return refuseUpgrade(socket, 404, 'Not Found', `no WebSocket endpoint here; the SLOP desktop bridge is at ${path}`);
    if (!pairingCode) return refuseUpgrade(socket, 503, 'Service Unavailable', 'the SLOP desktop bridge is starting; try again');
    const origin = req.headers.origin;
    if (origin !== undefined && !EXTENSION_ORIGIN.test(origin)) {
      say(`refused a web page (Origin ${printable(origin, 120)}): 403`);
      return refuseUpgrade(socket, 403, 'Forbidden', 'a web page may not connect to the SLOP desktop bridge');
    }
    const offered = offeredProtocols(req.headers['sec-websocket-protocol']);
    if (offered.includes(BEARER)) {
      const tokens = offered.filter((p) => p !== BEARER);
      // Every offered token is compared, in constant time, and none is ever printed.
      let right = false;
      for (const t of tokens) right = sameCode(t, pairingCode.code) || right;
      if (!right) {
        say(`refused a client${origin ? ` (${origin})` : ''} that offered ${BEARER} with ${tokens.length ? 'a wrong pairing code' : 'no pairing code'}: 401`);
        return refuseUpgrade(socket, 401, 'Unauthorized', `${BEARER}: the pairing code is ${tokens.length ? 'wrong' : 'missing'}; use the code slop-inspector bridge printed`);
      }
      admitted.add(req);
    }
    wss.handleUpgrade(req, socket, head, (/** @type {WebSocket} */ ws) => opened(ws, origin, admitted.has(req)));
  });

  // ---------------------------------------------------------------------- connections
  /** @param {WebSocket} ws @param {string|undefined} origin @param {boolean} byToken */
  function opened(ws, origin, byToken) {
    const peer = new Peer(++seq, ws, origin, byToken);
    peers.add(peer);
    say(`client ${peer.n} connected${origin ? ` (${origin})` : ''}`); // an extension's origin, checked above
    if (byToken) say(`browser ${peer.n} paired (the pairing code offered with ${BEARER} at the upgrade)`);
    // As the project's server does: what is shared now, at once (a client that then pairs ignores
    // it; a browser that paired at the upgrade is not a consumer, so it gets none).
    else for (const p of shared.values()) peer.send(p.text);
    // Text or binary, a message is read as UTF-8 text, as the project's server reads it.
    ws.on('message', (/** @type {Buffer|ArrayBuffer|Buffer[]} */ data) => { // ws's RawData
      const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      const text = buf.toString('utf8');
      try {
        if (peer.role === 'browser') fromBrowser(peer, text);
        else fromConsumer(peer, text, buf.length);
      } catch (e) {
        say(`client ${peer.n}: message not handled: ${/** @type {Error} */ (e).message}`);
      }
    });
    ws.on('error', () => {}); // a close follows, with its code
    ws.on('close', (/** @type {number} */ closeCode) => left(peer, closeCode));
  }

  /** @param {Peer} peer @param {number} closeCode */
  function left(peer, closeCode) {
    if (!peers.delete(peer)) return;
    // It asked to pair, had the bridge's proof, and left without giving its own: its code is another.
    const leftMidPairing = peer.pairing?.step === 'waiting';
    peer.pairing?.cancel();
    const why = closeCode === 1009 ? ' (a message over 16 MiB)' : '';
    if (peer.role === 'browser') {
      for (const exposed of peer.keys.values()) withdraw(exposed, null);
      peer.keys.clear();
      say(`browser ${peer.n} left${why}`);
    } else {
      for (const key of [...peer.relays.keys()]) closeRelay(peer, key);
      if (peer.refused) return; // its refusal was its line
      if (leftMidPairing) {
        say(`pairing failed: client ${peer.n} left after the bridge's proof without giving its own (it holds another pairing code)`);
      } else {
        say(`consumer ${peer.n} left${why}`);
      }
    }
  }

  /** One line for a refused message of a client, up to REFUSALS_LOGGED of them. @param {Peer} peer @param {string} what */
  function refusal(peer, what) {
    peer.refusals++;
    if (peer.refusals <= REFUSALS_LOGGED) say(`client ${peer.n}: ${what}`);
    if (peer.refusals === REFUSALS_LOGGED) say(`client ${peer.n}: its further refusals are not logged`);
  }

  // -------------------------------------------------------------------------- pairing
  /** @param {Peer} peer @param {any} msg a pairing message */
  function pairingStep(peer, msg) {
    if (peer.role === 'browser') return; // paired already: a late or repeated message says nothing
    peer.pairing ??= new BridgePairing(pairingCode.code, (t) => peer.send(t), (outcome, detail) => {
      if (!peers.has(peer)) return;
      if (outcome === 'paired') {
        for (const key of [...peer.relays.keys()]) closeRelay(peer, key);
        peer.role = 'browser';
        peer.pairedBy = 'proof';
        say(`browser ${peer.n} paired`);
      } else {
        peer.refused = true;
        say(`pairing failed: client ${peer.n}: ${detail}; closed (${CLOSE_PAIRING_REFUSED})`);
        peer.ws.close(CLOSE_PAIRING_REFUSED, 'pairing refused');
      }
    }, pairTimeoutMs);
    peer.pairing.receive(msg).catch((e) => say(`client ${peer.n}: pairing failed: ${e.message}`));
  }

  // ------------------------------------------------------------------------ consumers
  /** @param {Peer} c @param {string} text @param {number} bytes */
  function fromConsumer(c, text, bytes) {
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      if (bytes > CONSUMER_MESSAGE_MAX) return tooLarge(c, null, bytes);
      return c.send(bridgeError(BridgeErrorCode.BAD_JSON, 'a bridge message must be one JSON object; this one is not JSON'));
    }
    if (bytes > CONSUMER_MESSAGE_MAX) return tooLarge(c, msg, bytes);
    if (!isObject(msg) || typeof msg.type !== 'string') {
      return c.send(bridgeError(BridgeErrorCode.BAD_MESSAGE, 'a bridge message must be a JSON object with a string "type"'));
    }
    if (pairingMessage(msg)) return pairingStep(c, msg);
    switch (msg.type) {
      case BridgeType.PROVIDER_AVAILABLE:
      case BridgeType.PROVIDER_UNAVAILABLE:
        refusal(c, `${msg.type} refused (not_paired: it has not paired with this bridge)`);
        return c.send(bridgeError(BridgeErrorCode.NOT_PAIRED, `only a paired browser may send ${msg.type}: pair this client with the bridge's code first`));
      case BridgeType.RELAY_OPEN:
        if (!isKey(msg.providerKey)) return c.send(bridgeError(BridgeErrorCode.BAD_MESSAGE, 'relay-open needs a string "providerKey"'));
        named(c, msg);
        return openRelay(c, msg.providerKey);
      case BridgeType.RELAY_CLOSE:
        if (!isKey(msg.providerKey)) return c.send(bridgeError(BridgeErrorCode.BAD_MESSAGE, 'relay-close needs a string "providerKey"'));
        return closeRelay(c, msg.providerKey);
      case BridgeType.RELAY:
        return relayOut(c, msg, text);
      default:
        return undefined; // as the project's clients do: a type not known is not an error
    }
  }

  /** The answer to a message over the limit: a SLOP refusal when it is a request with an id. */
  function tooLarge(/** @type {Peer} */ c, /** @type {any} */ msg, /** @type {number} */ bytes) {
    const why = `request of ${bytes} bytes is over the bridge's 1 MiB limit`;
    const m = isObject(msg) ? msg.message : null;
    if (isKey(msg?.providerKey) && isObject(m) && typeof m.id === 'string') {
      const kind = typeof m.type === 'string' ? m.type : 'request';
      return c.send(relayEnvelope(msg.providerKey, JSON.stringify(core.relayRefusal(kind, m.id, 'too_large', why))));
    }
    return c.send(bridgeError(BridgeErrorCode.TOO_LARGE, why));
  }

  /** A SLOP error for a key nobody shares: with the request's id when it has one. */
  function unknownProvider(/** @type {Peer} */ c, /** @type {string} */ key, /** @type {any} */ m) {
    const id = isObject(m) && typeof m.id === 'string' ? m.id : null;
    const kind = id === null ? 'relay' : (typeof m.type === 'string' ? m.type : 'request');
    const why = `no provider "${key.slice(0, 200)}" on this bridge (it went away, or was never announced)`;
    c.send(relayEnvelope(key, JSON.stringify(core.relayRefusal(kind, id, 'unknown_provider', why))));
  }

  /**
   * A consumer's relay on a key, made now if it has none (the browser is told relay-open when
   * it is the key's first).
   * @param {Peer} c @param {string} key @param {SharedProvider} p @param {SlopRelay} [made]
   */
  function relayOf(c, key, p, made = undefined) {
    const had = c.relays.get(key);
    if (had) return had;
    const relay = made ?? new core.SlopRelay(c.tag);
    c.relays.set(key, relay);
    let users = relayUsers.get(key);
    if (!users) relayUsers.set(key, users = new Map());
    users.set(c, relay);
    if (users.size === 1) p.browser.send(JSON.stringify({ type: BridgeType.RELAY_OPEN, providerKey: p.key }));
    return relay;
  }

  /** relay-open: the consumer's relay, and a connect on its behalf unless a hello is on its way. */
  function openRelay(/** @type {Peer} */ c, /** @type {string} */ key) {
    const p = shared.get(key);
    if (!p) return unknownProvider(c, key, null);
    const hello = relayOf(c, key, p).open();
    if (hello) p.browser.send(relayEnvelope(p.key, stringifyExact(hello), agentOf(c.n, c.name)));
  }

  /** A consumer that names itself (relay-open or its connect): kept as its agent's name. */
  function named(/** @type {Peer} */ c, /** @type {any} */ m) {
    const name = consumerName(m);
    if (name === null || name === c.name) return;
    c.name = name;
    say(`consumer ${c.n} is ${JSON.stringify(name)}`);
  }

  /** A consumer's SLOP message: through its relay, then to the browser under the browser's key. */
  function relayOut(/** @type {Peer} */ c, /** @type {any} */ msg, /** @type {string} */ text) {
    if (!isKey(msg.providerKey) || !isObject(msg.message)) {
      return c.send(bridgeError(BridgeErrorCode.BAD_MESSAGE, 'a slop-relay needs a string "providerKey" and a "message" object'));
    }
    const key = msg.providerKey;
    const p = shared.get(key);
    if (!p) return unknownProvider(c, key, msg.message);
    if (msg.message.type === 'connect') named(c, msg.message);
    const had = c.relays.get(key);
    // A slop-relay before relay-open opens the relay, but only for a message that passes.
    const relay = had ?? new core.SlopRelay(c.tag);
    const out = /** @type {any} */ (relay.outbound(relayedMessageText(text, /** @type {any} */ (msg))));
    if (!out.ok) {
      if (!had) relay.free();
      if (out.reply) return c.send(relayEnvelope(key, stringifyExact(out.reply)));
      return c.send(bridgeError(BridgeErrorCode.NOT_RELAYED, out.error));
    }
    if (!had) relayOf(c, key, p, relay);
    if (out.forward === false) return undefined; // the relay answers it, or holds it
    p.browser.send(relayEnvelope(p.key, stringifyExact(out.message), agentOf(c.n, c.name)));
  }

  /**
   * A consumer's relay ends (relay-close, it left, it paired): its open subscriptions are
   * unsubscribed in the page; the browser hears relay-close when it was the key's last.
   * @param {Peer} c @param {string} key
   */
  function closeRelay(c, key) {
    const relay = c.relays.get(key);
    if (!relay) return;
    c.relays.delete(key);
    const users = relayUsers.get(key);
    users?.delete(c);
    const p = shared.get(key);
    try {
      if (p) {
        for (const m of relay.close()) p.browser.send(relayEnvelope(p.key, stringifyExact(m), agentOf(c.n, c.name)));
        if (!users?.size) p.browser.send(JSON.stringify({ type: BridgeType.RELAY_CLOSE, providerKey: p.key }));
      }
    } finally {
      relay.free();
    }
    if (users && !users.size) relayUsers.delete(key);
  }

  // ------------------------------------------------------------------------- browsers
  /** @param {Peer} b @param {string} text */
  function fromBrowser(b, text) {
    let msg;
    try { msg = JSON.parse(text); } catch { return; }
    if (!isObject(msg) || pairingMessage(msg)) return;
    switch (msg.type) {
      case BridgeType.PROVIDER_AVAILABLE:
        if (isKey(msg.providerKey)) announce(b, msg);
        return;
      case BridgeType.PROVIDER_UNAVAILABLE: {
        const exposed = isKey(msg.providerKey) ? b.keys.get(msg.providerKey) : undefined;
        if (exposed === undefined) return;
        b.keys.delete(msg.providerKey);
        withdraw(exposed, msg);
        return;
      }
      case BridgeType.RELAY: {
        const exposed = isKey(msg.providerKey) ? b.keys.get(msg.providerKey) : undefined;
        if (exposed === undefined || !isObject(msg.message)) return;
        relayIn(exposed, relayedMessageText(text, /** @type {any} */ (msg)));
        return;
      }
      default:
        return; // relay-open/close and the rest are a consumer's words, not a browser's
    }
  }

  /** @param {Peer} b @param {any} msg a provider-available */
  function announce(b, msg) {
    let exposed = b.keys.get(msg.providerKey);
    if (exposed === undefined) {
      exposed = freeKey(msg.providerKey, b.n);
      b.keys.set(msg.providerKey, exposed);
    }
    const again = shared.has(exposed);
    const text = JSON.stringify({ ...msg, providerKey: exposed });
    shared.set(exposed, { browser: b, key: msg.providerKey, announcement: msg, text });
    toConsumers(text);
    say(`provider ${again ? 'announced again' : 'announced'}: ${nameOf(msg)} as ${JSON.stringify(exposed)} by browser ${b.n}`);
  }

  /** The browser's key, unless another browser's provider has it: then "<key>#<n>". */
  function freeKey(/** @type {string} */ key, /** @type {number} */ n) {
    if (!shared.has(key)) return key;
    let k = `${key}#${n}`;
    for (let i = 2; shared.has(k); i++) k = `${key}#${n}-${i}`;
    return k;
  }

  /**
   * A provider goes (the browser said so, or left): consumers are told, their relays on it freed
   * (nothing to unsubscribe: the provider is gone).
   * @param {string} exposed @param {any} msg the browser's provider-unavailable, or null
   */
  function withdraw(exposed, msg) {
    const p = shared.get(exposed);
    if (!p) return;
    shared.delete(exposed);
    for (const [c, relay] of relayUsers.get(exposed) ?? []) {
      c.relays.delete(exposed);
      relay.free();
    }
    relayUsers.delete(exposed);
    const notice = msg ? { ...msg, providerKey: exposed } : { type: BridgeType.PROVIDER_UNAVAILABLE, tabId: p.announcement.tabId, providerKey: exposed };
    toConsumers(JSON.stringify(notice));
    say(`provider withdrawn: ${nameOf(p.announcement)} as ${JSON.stringify(exposed)}${msg ? '' : ` (browser ${p.browser.n} left)`}`);
  }

  /** A provider's message: to each consumer whose relay it concerns, its text as the provider wrote it. */
  function relayIn(/** @type {string} */ exposed, /** @type {string} */ messageText) {
    const users = relayUsers.get(exposed);
    if (!users) return;
    for (const [c, relay] of users) {
      const back = relay.inbound(messageText);
      if (back !== null) c.send(relayEnvelope(exposed, back));
    }
  }

  function toConsumers(/** @type {string} */ text) {
    for (const peer of peers) if (peer.role === 'consumer') peer.send(text);
  }

  // --------------------------------------------------------------------------- listen
  await new Promise((resolve, reject) => {
    const fail = (/** @type {NodeJS.ErrnoException} */ e) => {
      if (e.code === 'EADDRINUSE') {
        const err = /** @type {NodeJS.ErrnoException} */ (new Error(portInUse(port)));
        err.code = 'EADDRINUSE';
        return reject(err);
      }
      reject(e);
    };
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      server.on('error', (e) => say(`server error: ${e.message}`));
      resolve(undefined);
    });
  });
  // The port is ours: only now is a code looked for (and made and saved when there is none), so
  // a busy port leaves nothing behind. A client that comes meanwhile gets 503 (upgrade handler).
  try {
    if (newCode) {
      const file = codeFile();
      const c = await saveNewCode(file);
      pairingCode = { code: c, display: displayCode(c), from: 'new', file };
    } else {
      pairingCode = await resolvePairingCode({ code });
    }
  } catch (e) {
    await new Promise((resolve) => server.close(resolve));
    throw e;
  }
  const addr = /** @type {import('node:net').AddressInfo} */ (server.address());
  const hostInUrl = host.includes(':') ? `[${host}]` : host;

  let closing = null;
  return {
    url: `ws://${hostInUrl}:${addr.port}${path}`,
    port: addr.port,
    code: pairingCode.code,
    pairingCode,
    browsers: () => [...peers].filter((p) => p.role === 'browser')
      .map((p) => ({ n: p.n, origin: p.origin ?? null, pairedBy: /** @type {'proof'|'token'} */ (p.pairedBy), providers: [...p.keys.values()] })),
    providers: () => [...shared.entries()].map(([providerKey, p]) => ({
      providerKey, browser: p.browser.n, tabId: p.announcement.tabId, provider: p.announcement.provider,
    })),
    consumers: () => [...peers].filter((p) => p.role === 'consumer').map((p) => ({ n: p.n, relays: [...p.relays.keys()] })),
    close() {
      closing ??= new Promise((resolve) => {
        for (const peer of peers) peer.ws.close(1001, 'the bridge is closing');
        // A client that does not answer the close in time is cut off.
        const cut = setTimeout(() => { for (const peer of peers) peer.ws.terminate(); }, 1000);
        cut.unref();
        wss.close();
        server.close(() => { clearTimeout(cut); resolve(undefined); });
        server.closeIdleConnections?.();
      });
      return closing;
    },
  };
}

/** @param {import('node:stream').Duplex} socket @param {number} status @param {string} reason @param {string} body */
function refuseUpgrade(socket, status, reason, body) {
  const text = `${body}\n`;
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
}

/**
 * What `slop-inspector bridge` says of a busy port: who is likely there, and what to do.
 * @param {number} port
 */
export function portInUse(port) {
  return `port ${port} is in use: another bridge (the SLOP desktop app, or a Claude Code/Codex plugin's own server) is running. `
    + `Start \`slop-inspector bridge\` before the plugins (they then use it as clients), or stop the program holding ${port}`;
}

/** The subprotocols a client offered: one comma-separated header or repeated ones (Node joins them). */
function offeredProtocols(/** @type {string|undefined} */ header) {
  return typeof header === 'string' ? header.split(',').map((p) => p.trim()).filter(Boolean) : [];
}

/**
 * Whether an offered token is the pairing code (read leniently, as a pasted code is), in time
 * that does not depend on where they differ: both are hashed to equal lengths first.
 * @param {string} offered @param {string} code normalised
 */
function sameCode(offered, code) {
  const digest = (/** @type {string} */ t) => createHash('sha256').update(t, 'utf8').digest();
  const mine = digest(code);
  return timingSafeEqual(digest(normalizeCode(offered) ?? `\u0000${offered}`), mine);
}

/** A client's text for the log: control characters out, cut short. @param {string} s @param {number} max */
function printable(s, max) {
  return JSON.stringify(String(s).replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, max));
}

/** @param {unknown} v @returns {v is Record<string, any>} */
function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** @param {unknown} v @returns {v is string} */
function isKey(v) {
  return typeof v === 'string' && v.length > 0 && v.length <= KEY_MAX;
}

/** A provider's name for the log: its announced name and id, cut short (it is the page's text). */
function nameOf(/** @type {any} */ msg) {
  const name = String(msg?.provider?.name ?? msg?.provider?.id ?? '?').replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, 80);
  return JSON.stringify(name);
}
