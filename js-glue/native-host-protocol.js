// native-host-protocol.js: what the extension's worker and the native messaging host
// (bin/slop-native-host.js) say to each other, in one place: the host's name, the message types,
// the limits, the native messaging framing, and the chunking of host → browser messages that are
// over the browser's 1 MB limit.
//
// The host does discovery and transports only: SLOP frames cross it as text, never parsed (the
// protocol lives in the core, in the extension's worker).
//
//   extension → host                              host → extension
//   {type:'list'}                                 {type:'local-providers', providers, refused, ignored}
//                                                   (again whenever the provider directories change)
//   {type:'open', channel, id, approvedCommand?}  {type:'open', channel}          connected
//   {type:'send', channel, text}                  {type:'frame', channel, text}   one provider frame
//                                                   ({base64} instead of text: its bytes are not UTF-8)
//   {type:'close', channel}                       {type:'oversize', channel, bytes}  a frame over the
//                                                   limit was dropped (the connection stays)
//                                                 {type:'closed', channel, info}  info: CloseInfo
//                                                 {type:'error', message}         a message refused
//                                                 {type:'chunk', id, index, last, part}  a slice of
//                                                   a message over the browser's limit (see below)
//
// A stdio provider's command runs only when `approvedCommand` is exactly the descriptor's argv
// (the user approved that command in the extension); otherwise the host answers
// {type:'closed', channel, info: {kind:'approval', opened:false, command, message}}.
//
// Plain ES module: no Node and no browser imports (TextEncoder and TextDecoder are globals in both).

import { utf8Length } from './text-budget.js';

// Its users count with the same function.
export { utf8Length };

/** The native messaging host's name (Chrome: [a-z0-9_] and dots; the manifest file is <name>.json). */
export const HOST_NAME = 'dev.slop_inspector.host';

/** Extension → host. */
export const ToHost = Object.freeze({
  LIST: 'list',
  OPEN: 'open',
  SEND: 'send',
  CLOSE: 'close',
});

/** Host → extension. */
export const FromHost = Object.freeze({
  LOCAL_PROVIDERS: 'local-providers',
  OPEN: 'open',
  FRAME: 'frame',
  OVERSIZE: 'oversize',
  CLOSED: 'closed',
  ERROR: 'error',
  CHUNK: 'chunk',
});

const MiB = 1024 * 1024;

export const NATIVE_LIMITS = Object.freeze({
  /** Chrome refuses a host → browser message over 1 MB (its JSON's UTF-8 bytes). */
  TO_BROWSER_MAX: 1024 * 1024,
  /** A chunk's `part`, as JSON string text in UTF-8, is at most this. */
  CHUNK_PART_BYTES: 512 * 1024,
  /** A message joined from chunks is at most this (UTF-8 bytes of its JSON); the host sends `oversize` instead. */
  JOINED_MAX: 64 * MiB,
  /** A browser → host message is at most this (Chrome's own limit is 64 MiB). */
  FROM_BROWSER_MAX: 64 * MiB,
  /** A provider's line (one SLOP frame) is at most this; a longer one is dropped and said (`oversize`). */
  FRAME_MAX: 32 * MiB,
});

// --------------------------------------------------------------------------- sizes


/** "1.5 MiB", "812 KiB", "40 bytes". @param {number} n */
export function sizeText(n) {
  if (n >= MiB) return `${(n / MiB).toFixed(n >= 10 * MiB ? 0 : 1)} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} bytes`;
}

// ------------------------------------------------------------------------- framing

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/**
 * One native message: a 4-byte little-endian length, then the JSON text in UTF-8.
 * @param {string} text @returns {Uint8Array}
 */
export function frameNative(text) {
  const body = encoder.encode(text);
  const out = new Uint8Array(4 + body.length);
  new DataView(out.buffer).setUint32(0, body.length, true);
  out.set(body, 4);
  return out;
}

/**
 * Reads native messages from a byte stream (the host's stdin). push() each chunk as it comes;
 * onMessage(value) gets each message parsed; onError(words) a message refused (over `maxBytes`,
 * not UTF-8, not JSON, not an object): the reader skips it and reads on. A length over the cap
 * is skipped too (its bytes are discarded as they come): a broken length prefix and a message too
 * big look the same.
 * @param {{maxBytes?: number, onMessage: (value: any) => void, onError: (words: string) => void}} o
 * @returns {{push(bytes: Uint8Array): void, pending(): number}}
 */
export function nativeReader({ maxBytes = NATIVE_LIMITS.FROM_BROWSER_MAX, onMessage, onError }) {
  /** @type {Uint8Array[]} */
  let parts = [];
  let have = 0;
  let need = -1;    // the body's length, once the prefix is read
  let skip = 0;     // bytes of a refused message still to discard
  const take = (/** @type {number} */ n) => {
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const p = parts[0];
      const k = Math.min(p.length, n - at);
      out.set(p.subarray(0, k), at);
      at += k;
      if (k === p.length) parts.shift(); else parts[0] = p.subarray(k);
    }
    have -= n;
    return out;
  };
  return {
    push(bytes) {
      if (skip > 0) {
        const k = Math.min(skip, bytes.length);
        skip -= k;
        bytes = bytes.subarray(k);
      }
      if (bytes.length) { parts.push(bytes); have += bytes.length; }
      for (;;) {
        if (skip > 0) {
          const k = Math.min(skip, have);
          take(k);
          skip -= k;
          if (skip > 0) return;
        }
        if (need < 0) {
          if (have < 4) return;
          const prefix = take(4);
          need = new DataView(prefix.buffer).getUint32(0, true);
          if (need > maxBytes) {
            onError(`a message of ${sizeText(need)} (its length prefix says ${need} bytes) is over the ${sizeText(maxBytes)} a message may have: refused and skipped`);
            skip = need;
            need = -1;
            continue;
          }
        }
        if (have < need) return;
        const body = take(need);
        need = -1;
        let text;
        try { text = strictDecoder.decode(body); } catch { onError('a message that is not UTF-8: refused'); continue; }
        let value;
        try { value = JSON.parse(text); } catch { onError(`a message that is not JSON (${body.length} bytes): refused`); continue; }
        if (!value || typeof value !== 'object' || Array.isArray(value) || typeof value.type !== 'string') {
          onError('a message that is not an object with a type: refused');
          continue;
        }
        onMessage(value);
      }
    },
    pending() { return have + skip; },
  };
}

// ------------------------------------------------------------------------ chunking

/** JSON string-text bytes of one UTF-16 unit at i (and its pair): [bytes, units]. @param {string} s @param {number} i */
function quotedCost(s, i) {
  const c = s.charCodeAt(i);
  if (c === 0x22 || c === 0x5c) return [2, 1];                     // \" \\
  if (c < 0x20) return [c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6, 1];
  if (c < 0x80) return [1, 1];
  if (c < 0x800) return [2, 1];
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) return [4, 2];
  if (c >= 0xd800 && c <= 0xdfff) return [6, 1];                   // a lone surrogate: \udxxx
  return [3, 1];
}

/**
 * The host's messages to the browser as native-message JSON texts: the message itself when it
 * is within the browser's limit, else `chunk` messages whose parts, joined, are its JSON text.
 * A part never splits a surrogate pair, and each chunk's JSON stays well under the limit.
 * @param {object} message
 * @param {{id: number, partBytes?: number, maxDirect?: number}} o  id: unique per chunked message
 * @returns {string[]}
 */
export function encodeForBrowser(message, { id, partBytes = NATIVE_LIMITS.CHUNK_PART_BYTES, maxDirect = NATIVE_LIMITS.TO_BROWSER_MAX }) {
  const text = JSON.stringify(message);
  if (text.length <= maxDirect / 3 || utf8Length(text) <= maxDirect) return [text];
  return splitText(text, { id, partBytes }).map((c) => JSON.stringify(c));
}

/**
 * A message's JSON text cut into chunk messages.
 * @param {string} text @param {{id: number, partBytes?: number}} o
 * @returns {{type: 'chunk', id: number, index: number, last: boolean, part: string}[]}
 */
export function splitText(text, { id, partBytes = NATIVE_LIMITS.CHUNK_PART_BYTES }) {
  const chunks = [];
  let start = 0;
  while (start < text.length || chunks.length === 0) {
    let i = start;
    let bytes = 2; // the quotes
    while (i < text.length) {
      const [b, u] = quotedCost(text, i);
      if (bytes + b > partBytes && i > start) break;
      bytes += b;
      i += u;
    }
    chunks.push({ type: /** @type {'chunk'} */ (FromHost.CHUNK), id, index: chunks.length, last: i >= text.length, part: text.slice(start, i) });
    start = i;
    if (start >= text.length) break;
  }
  return chunks;
}

/**
 * Joins chunk messages back into messages (the extension's side). add(chunk) answers
 * {message} when a message is whole, {error} in words when the chunks cannot make one (out of
 * order, over `maxBytes`, not JSON), else null. A message over the cap is refused as soon as its
 * parts pass it, and its later parts are dropped.
 * @param {{maxBytes?: number}} [o]
 */
export function chunkJoiner({ maxBytes = NATIVE_LIMITS.JOINED_MAX } = {}) {
  /** @type {Map<number, {parts: string[], bytes: number, refused: boolean}>} */
  const open = new Map();
  return {
    /** @param {any} c @returns {{message: any}|{error: string}|null} */
    add(c) {
      if (!c || !Number.isInteger(c.id) || !Number.isInteger(c.index) || typeof c.part !== 'string') return { error: 'a chunk without id, index or part: dropped' };
      let m = open.get(c.id);
      if (!m) {
        if (c.index !== 0) return { error: `chunk ${c.index} of message ${c.id} came without its first: dropped` };
        open.set(c.id, m = { parts: [], bytes: 0, refused: false });
      }
      if (c.index !== m.parts.length && !m.refused) {
        open.delete(c.id);
        return { error: `chunk ${c.index} of message ${c.id} came out of order (expected ${m.parts.length}): the message is dropped` };
      }
      if (c.last) open.delete(c.id);
      if (m.refused) return null;
      m.bytes += utf8Length(c.part);
      if (m.bytes > maxBytes) {
        m.refused = true;
        m.parts = [];
        return { error: `a message from the native host is over the ${sizeText(maxBytes)} a message may have (${sizeText(m.bytes)} so far): refused` };
      }
      m.parts.push(c.part);
      if (!c.last) return null;
      try {
        return { message: JSON.parse(m.parts.join('')) };
      } catch {
        return { error: `message ${c.id} joined from ${m.parts.length} chunks is not JSON: dropped` };
      }
    },
    /** Messages being joined now. */
    get pending() { return open.size; },
  };
}
