// exact-json.js: JSON.parse that keeps what a double cannot: an integer literal of 16 digits or
// more that would not come back as written (a 64-bit id such as 1234567890123456789, which a
// double reads as ...784) becomes JSON.rawJSON(its digits), which JSON.stringify writes back as
// they came. The JS side of the core's rule (slop__json_parse_exact in wasm/src/json_limits.c):
// the core decides what its texts hold; this only reads them without rounding.
// Where the engine lacks JSON.rawJSON (Node 20), the plain parse.

/** JSON with the source-access parts (ES2025), which TypeScript's lib does not list yet. */
const J = /** @type {JSON & {rawJSON?: (text: string) => {rawJSON: string}, isRawJSON?: (v: unknown) => boolean}} */ (JSON);
const CAN_KEEP = typeof J.rawJSON === 'function' && typeof J.isRawJSON === 'function';
/** A run of 16 digits: below that every integer is a double exactly, so most texts skip the reviver. */
export const LONG_DIGITS = /\d{16}/;
const INTEGER = /^-?\d{16,}$/;

/** @param {string} _key @param {unknown} value @param {{source?: string}} [context] */
function keepDigits(_key, value, context) {
  const src = context?.source;
  if (typeof value === 'number' && src !== undefined && INTEGER.test(src) && String(value) !== src) return J.rawJSON?.(src);
  return value;
}

/** JSON.parse, with integers beyond a double kept as their digits. @param {string} text */
export function parseExact(text) {
  return CAN_KEEP && LONG_DIGITS.test(text) ? JSON.parse(text, keepDigits) : JSON.parse(text);
}

/**
 * A value as JSON text for a port message: a port carries numbers as doubles, text keeps the
 * digits of an integer parseExact kept. undefined stays undefined.
 * @param {unknown} v @returns {string|undefined}
 */
export function textForPort(v) {
  return v === undefined ? undefined : JSON.stringify(v);
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

/** An integer kept by parseExact: show `.rawJSON`, its digits. @param {unknown} v @returns {v is {rawJSON: string}} */
export function isExactNumber(v) {
  return CAN_KEEP && J.isRawJSON?.(v) === true;
}
