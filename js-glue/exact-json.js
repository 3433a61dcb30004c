// exact-json.js: the one reader and writer of JSON for what leaves the tool. The core keeps every
// number as the provider wrote it; JSON.parse then JSON.stringify would not (-0 → 0, 1.50 → 1.5,
// 1234567890123456789 → 1234567890123456800). Two reads of the core's texts:
//   parseExact     values to compute with: numbers stay numbers (-0 included), except an integer
//                  a double cannot hold, which is kept (the JS side of slop__json_parse_exact in
//                  wasm/src/json_read.c);
//   parseVerbatim  values to write out (exports, copies, the detail, the Log, the CLI's JSON):
//                  every number whose JavaScript text is not the text it was written as is kept.
// and one writer, stringifyExact, which writes a kept number as its text and -0 as -0. An event the
// worker read plainly may come with the core's text beside it (`exact`): exactEvent reads that.
//
// A kept number is JSON.rawJSON(text) where the engine has it (Chrome 114, Firefox 135, Node 21),
// else a frozen {rawJSON: text} of the same shape: read `.rawJSON` for its text either way. Without
// JSON source access (Node 20) a reader that sees the number's text is needed: node/exact-json.js
// installs lossless-json for that; the browser build never needs it.

/** JSON with the source-access parts (ES2025), which TypeScript's lib does not list yet. */
const J = /** @type {JSON & {rawJSON?: (text: string) => {rawJSON: string}, isRawJSON?: (v: unknown) => boolean}} */ (JSON);
const NATIVE = typeof J.rawJSON === 'function' && typeof J.isRawJSON === 'function';

/** @typedef {{readonly rawJSON: string}} ExactNumber a number kept as its JSON text */

/**
 * The reader and writer used where the engine has no JSON source access (installFallback).
 * @typedef {object} FallbackEngine
 * @property {(text: string, parseNumber: (text: string) => unknown) => unknown} parse
 * @property {(value: unknown, space: number|undefined, numberText: (v: unknown) => string|undefined) => string|undefined} stringify
 */
/** @type {FallbackEngine|null} */
let fallback = null;

/** A run of 16 digits: below that every integer is a double exactly, so most texts skip the reviver. */
export const LONG_DIGITS = /\d{16}/;
/**
 * Where a text may hold a number JavaScript would write otherwise: 16 significant digits, an
 * exponent, a fraction ending in 0, -0, or 6 zeros after the point (0.0000001 is 1e-7). Matches
 * some strings too; it only decides whether the exact reading is worth doing.
 */
export const ODD_NUMBER = /\d(?:\.?\d){15}|\d[eE]|\.\d*0(?!\d)|-0(?![.\d]*[1-9])|\.0{6}/;
const INTEGER = /^-?\d{16,}$/;

/** @param {string} src */
const doubleCannotHold = (src) => INTEGER.test(src) && String(Number(src)) !== src;
/** @param {string} src */
const writtenOtherwise = (src) => String(Number(src)) !== src;

/** @param {string} text @returns {ExactNumber} */
function keep(text) {
  return NATIVE ? /** @type {ExactNumber} */ (J.rawJSON?.(text)) : Object.freeze(Object.assign(Object.create(null), { rawJSON: text }));
}

/** A number kept by parseExact or parseVerbatim: `.rawJSON` is its text. @param {unknown} v @returns {v is ExactNumber} */
export function isExactNumber(v) {
  if (NATIVE) return J.isRawJSON?.(v) === true;
  return v !== null && typeof v === 'object' && Object.isFrozen(v) && Object.getPrototypeOf(v) === null && typeof (/** @type {any} */ (v).rawJSON) === 'string';
}

/**
 * JSON.parse keeping the numbers `which` says; `hint` skips the slow reading when no number can
 * be one of them.
 * @param {string} text @param {(src: string) => boolean} which @param {RegExp} hint
 */
function read(text, which, hint) {
  if (!hint.test(text)) return JSON.parse(text);
  if (NATIVE) {
    return JSON.parse(text, /** @type {any} */ ((/** @type {string} */ _k, /** @type {unknown} */ v, /** @type {{source?: string}} */ ctx) =>
      (typeof v === 'number' && ctx?.source !== undefined && which(ctx.source) ? keep(ctx.source) : v)));
  }
  if (!fallback) return JSON.parse(text); // no exact reader here: plain values (node/exact-json.js installs one in Node)
  return fallback.parse(text, (src) => (which(src) ? keep(src) : Number(src)));
}

/** JSON.parse, with integers a double cannot hold kept as their digits. @param {string} text */
export function parseExact(text) {
  return read(text, doubleCannotHold, LONG_DIGITS);
}

/** JSON.parse for writing out again: every number JavaScript would write otherwise is kept. @param {string} text */
export function parseVerbatim(text) {
  return read(text, writtenOtherwise, ODD_NUMBER);
}

/**
 * A core event read again from its own text when it came with one (`exact`: SlopConsumer.drain()
 * adds it where numbers are read plainly, as in the worker, and the event may hold a number a
 * port would change), else the event itself. `read`: parseVerbatim (the default) to show or write
 * its values, parseExact to compute with them. The result has no `exact` member.
 * @param {any} ev @param {(text: string) => any} [read] @returns {any}
 */
export function exactEvent(ev, read = parseVerbatim) {
  return typeof ev?.exact === 'string' ? read(ev.exact) : ev;
}

/** @param {unknown} _k @param {unknown} v */
const minusZero = (_k, v) => (Object.is(v, -0) ? J.rawJSON?.('-0') : v);

/**
 * JSON text of a value, kept numbers as their text and -0 as -0: the one writer of everything
 * the tool hands out as JSON. `space` as JSON.stringify's. undefined for undefined.
 * @param {unknown} value @param {number} [space] @returns {string}
 */
export function stringifyExact(value, space) {
  if (NATIVE) return JSON.stringify(value, /** @type {any} */ (minusZero), space);
  if (fallback) {
    // The native writer first; the fallback's (written in JavaScript, several times slower) only
    // for a value that holds a kept number or -0.
    let odd = false;
    const text = JSON.stringify(value, (_k, v) => {
      if (!odd && (Object.is(v, -0) || isExactNumber(v))) odd = true;
      return v;
    }, space);
    if (!odd) return text;
    return /** @type {string} */ (fallback.stringify(value, space, (v) => (Object.is(v, -0) ? '-0' : isExactNumber(v) ? v.rawJSON : undefined)));
  }
  return JSON.stringify(value, (_k, v) => (isExactNumber(v) ? Number(v.rawJSON) : v), space);
}

/** Whether kept numbers come back kept here (false only without JSON source access and without a fallback). */
export const keepsNumbers = () => NATIVE || fallback !== null;

/**
 * Installs the reader and writer for engines without JSON source access. Only node/exact-json.js
 * calls this, once, at load.
 * @param {FallbackEngine} engine
 */
export function installFallback(engine) {
  if (!NATIVE) fallback = engine;
}

/**
 * A value as JSON text for a port message: a port carries numbers as doubles, text keeps the
 * digits of a kept number. undefined stays undefined.
 * @param {unknown} v @returns {string|undefined}
 */
export function textForPort(v) {
  return v === undefined ? undefined : stringifyExact(v);
}

/**
 * The other end: the text read back, its integers kept ({ok: false} when it is not JSON text).
 * @param {unknown} text @returns {{ok: true, value: unknown}|{ok: false}}
 */
export function readPortText(text) {
  if (typeof text !== 'string') return { ok: false };
  try {
    return { ok: true, value: parseExact(text) };
  } catch {
    return { ok: false };
  }
}
