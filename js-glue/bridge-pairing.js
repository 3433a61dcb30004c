// bridge-pairing.js: how the extension and a desktop bridge prove to each other that they know the
// same pairing code, without the code ever crossing the wire. Shared by the extension's worker
// (desktop-bridge.js) and `slop-inspector bridge` (bridge-server.js); WebCrypto only, so it runs in
// a service worker, a Firefox background page and Node alike.
//
// A selected subprotocol proves nothing (the SLOP project's TypeScript bridge echoes whatever is
// offered first), so the socket opens bare and the proof comes after, in four JSON messages:
//
//   browser → bridge  {"type":"pair-challenge","version":1,"nonce":Nb}
//   bridge → browser  {"type":"pair-proof","version":1,"nonce":Nd,"proof":HMAC(K, "bridge", Nb, Nd)}
//   browser → bridge  {"type":"pair-proof","version":1,"proof":HMAC(K, "browser", Nb, Nd)}
//   bridge → browser  {"type":"pair-ok","version":1}        (or "pair-refused", then a close)
//
// K is the pairing code (normalised); HMAC-SHA-256 over "slop-bridge-pair/1\n<role>\n<Nb>\n<Nd>";
// nonces are 32 random bytes, fresh per connection, so a proof is good for one connection only;
// the roles differ, so one side's proof is never the other's. The bridge answers first: the browser
// gives its own proof only to a bridge that proved itself. Either side gives up after
// PAIR_TIMEOUT_MS. The code carries 128 random bits, so a proof seen by a program that pretended to
// be a browser cannot be turned back into the code by trying codes.

export const PAIR_VERSION = 1;
/** How long each side waits for the other's next pairing message. */
export const PAIR_TIMEOUT_MS = 3000;
export const PairType = Object.freeze({
  CHALLENGE: 'pair-challenge', PROOF: 'pair-proof', OK: 'pair-ok', REFUSED: 'pair-refused',
});

// Crockford's base32: no I, L, O, U; read leniently (i/l as 1, o as 0).
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Characters of a code: 26 of base32 carry 130 bits, of which the first 2 are 0. */
export const CODE_CHARS = 26;
const NONCE_BYTES = 32;

/**
 * The code as both sides key the HMAC with it: upper case, without separators, I/L read as 1 and
 * O as 0. null when it is not a pairing code (wrong length or a character outside the alphabet).
 * @param {unknown} text @returns {string|null}
 */
export function normalizeCode(text) {
  if (typeof text !== 'string') return null;
  const s = text.toUpperCase().replace(/[\s-]/g, '').replace(/[IL]/g, '1').replace(/O/g, '0');
  if (s.length !== CODE_CHARS) return null;
  for (const ch of s) if (!ALPHABET.includes(ch)) return null;
  return s[0] <= '7' ? s : null; // 130 bits written, 128 carried: the first character holds 3 of them
}

/** A new random code, written in groups of four for reading aloud: "7K3M-Q9XD-…-Z2". */
export function newPairingCode() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let s = '';
  for (let i = 0; i < CODE_CHARS; i++) {
    s = ALPHABET[Number(n & 31n)] + s;
    n >>= 5n;
  }
  return /** @type {RegExpMatchArray} */ (s.match(/.{1,4}/g)).join('-'); // s is not empty
}

/** @param {Uint8Array} bytes */
function base64url(bytes) {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function newNonce() {
  return base64url(crypto.getRandomValues(new Uint8Array(NONCE_BYTES)));
}

/** A nonce as sent: 43 characters of base64url (32 bytes). @param {unknown} v @returns {v is string} */
const isNonce = (v) => typeof v === 'string' && /^[A-Za-z0-9_-]{43}$/.test(v);
const isProof = isNonce; // an HMAC-SHA-256 is 32 bytes too

/**
 * The proof of `role` for this connection's two nonces.
 * @param {string} code normalised (normalizeCode) @param {'bridge'|'browser'} role
 * @param {string} browserNonce @param {string} bridgeNonce @returns {Promise<string>}
 */
export async function proofOf(code, role, browserNonce, bridgeNonce) {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', enc.encode(code), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, enc.encode(`slop-bridge-pair/${PAIR_VERSION}\n${role}\n${browserNonce}\n${bridgeNonce}`));
  return base64url(new Uint8Array(mac));
}

/** Compares two proofs in time that does not depend on where they differ. @param {unknown} a @param {unknown} b */
function sameProof(a, b) {
  if (typeof a !== 'string' || typeof b !== 'string' || a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return d === 0;
}

/** A pairing message, or null: the messages of the pairing are told apart by their type only. @param {any} msg  a frame's JSON */
export function pairingMessage(msg) {
  return msg && typeof msg === 'object' && typeof msg.type === 'string' && Object.values(PairType).includes(msg.type) ? msg : null;
}

/**
 * The browser's side of one connection's pairing. start() sends the challenge; every pairing
 * message from the bridge goes to receive(); the outcome comes once, through onDone:
 *   'paired'     the bridge proved the code and accepted ours
 *   'no-answer'  no proof within the time limit: a bridge that does not pair
 *   'wrong'      a proof that does not match the code (another code, or not a SLOP Inspector bridge)
 *   'refused'    the bridge did not accept our proof (it has another code)
 */
export class BrowserPairing {
  /**
   * @param {string} code normalised
   * @param {(text: string) => void} send
   * @param {(outcome: 'paired'|'no-answer'|'wrong'|'refused', detail: string) => void} onDone
   */
  constructor(code, send, onDone) {
    this.code = code;
    this.send = send;
    this.onDone = onDone;
    this.nonce = newNonce();
    this.step = 'challenged';
    /** @type {ReturnType<typeof setTimeout>|null} */
    this.timer = null;
  }

  /** @param {number} [timeoutMs] */
  start(timeoutMs = PAIR_TIMEOUT_MS) {
    this.timeoutMs = timeoutMs;
    this.send(JSON.stringify({ type: PairType.CHALLENGE, version: PAIR_VERSION, nonce: this.nonce }));
    this.#wait('no-answer', 'the bridge did not answer the pairing challenge');
  }

  /** @param {'no-answer'|'refused'} outcome @param {string} detail */
  #wait(outcome, detail) {
    clearTimeout(this.timer ?? undefined);
    this.timer = setTimeout(() => this.#finish(outcome, `${detail} within ${Math.round(/** @type {number} */ (this.timeoutMs) / 100) / 10} s`), this.timeoutMs); // start() set it
  }

  /** @param {'paired'|'no-answer'|'wrong'|'refused'} outcome @param {string} detail */
  #finish(outcome, detail) {
    if (this.step === 'done') return;
    this.step = 'done';
    clearTimeout(this.timer ?? undefined);
    this.onDone(outcome, detail);
  }

  /** Stops waiting (the socket closed). */
  cancel() {
    this.step = 'done';
    clearTimeout(this.timer ?? undefined);
  }

  /** @param {{type: string, version?: unknown, nonce?: unknown, proof?: unknown, reason?: unknown}} msg */
  async receive(msg) {
    if (this.step === 'challenged' && msg.type === PairType.PROOF) {
      this.step = 'checking';
      if (msg.version !== PAIR_VERSION || !isNonce(msg.nonce) || !isProof(msg.proof)) {
        return this.#finish('wrong', 'the bridge answered the pairing challenge with a malformed proof');
      }
      const want = await proofOf(this.code, 'bridge', this.nonce, msg.nonce);
      if (this.step !== 'checking') return;
      if (!sameProof(want, msg.proof)) return this.#finish('wrong', 'the bridge’s proof does not match this pairing code');
      const mine = await proofOf(this.code, 'browser', this.nonce, msg.nonce);
      if (this.step !== 'checking') return;
      this.step = 'proved';
      this.send(JSON.stringify({ type: PairType.PROOF, version: PAIR_VERSION, proof: mine }));
      return this.#wait('refused', 'the bridge did not confirm the pairing');
    }
    if (this.step === 'proved' && msg.type === PairType.OK) return this.#finish('paired', 'paired');
    if (msg.type === PairType.REFUSED && this.step !== 'done') {
      return this.#finish('refused', 'the bridge refused this pairing code');
    }
    // Anything else out of turn is ignored: a broadcasting server may pass on another browser's.
  }
}

/**
 * The bridge's side of one connection's pairing (bridge-server.js). receive() takes every pairing
 * message of the connection; it sends the bridge's proof and, on the browser's, 'pair-ok' or
 * 'pair-refused'. onDone('paired') once the browser proved the code; onDone('refused', why) when
 * its proof was wrong or late, or a message was out of turn.
 */
export class BridgePairing {
  /**
   * @param {string} code normalised
   * @param {(text: string) => void} send
   * @param {(outcome: 'paired'|'refused', detail: string) => void} onDone
   */
  constructor(code, send, onDone, timeoutMs = PAIR_TIMEOUT_MS) {
    this.code = code;
    this.send = send;
    this.onDone = onDone;
    this.timeoutMs = timeoutMs;
    this.step = 'idle';
    /** @type {ReturnType<typeof setTimeout>|null} */
    this.timer = null;
  }

  cancel() {
    this.step = 'done';
    clearTimeout(this.timer ?? undefined);
  }

  /** @param {string} detail */
  #refuse(detail) {
    if (this.step === 'done') return;
    this.step = 'done';
    clearTimeout(this.timer ?? undefined);
    this.send(JSON.stringify({ type: PairType.REFUSED, version: PAIR_VERSION, reason: detail }));
    this.onDone('refused', detail);
  }

  /** @param {{type: string, version?: unknown, nonce?: unknown, proof?: unknown}} msg */
  async receive(msg) {
    if (this.step === 'idle' && msg.type === PairType.CHALLENGE) {
      if (msg.version !== PAIR_VERSION || !isNonce(msg.nonce)) return this.#refuse(`a pairing challenge of another version or shape (this bridge speaks version ${PAIR_VERSION})`);
      this.step = 'proving';
      this.browserNonce = msg.nonce;
      this.nonce = newNonce();
      const proof = await proofOf(this.code, 'bridge', this.browserNonce, this.nonce);
      if (this.step !== 'proving') return;
      this.step = 'waiting';
      this.send(JSON.stringify({ type: PairType.PROOF, version: PAIR_VERSION, nonce: this.nonce, proof }));
      this.timer = setTimeout(() => this.#refuse('no proof from the browser in time'), this.timeoutMs);
      return;
    }
    if (this.step === 'waiting' && msg.type === PairType.PROOF) {
      this.step = 'checking';
      clearTimeout(this.timer ?? undefined);
      const want = await proofOf(this.code, 'browser', /** @type {string} */ (this.browserNonce), /** @type {string} */ (this.nonce)); // set when it proved
      if (this.step !== 'checking') return;
      if (!isProof(msg.proof) || !sameProof(want, msg.proof)) return this.#refuse('the browser’s proof does not match this bridge’s pairing code');
      this.step = 'done';
      this.send(JSON.stringify({ type: PairType.OK, version: PAIR_VERSION }));
      this.onDone('paired', 'paired');
      return;
    }
    if (this.step !== 'done') this.#refuse(`"${String(msg.type).slice(0, 40)}" out of turn in the pairing`);
  }
}
