// profile-rows.js: the core's profile (slop_consumer_profile) as state-profile.js reads it: the
// row's members by index, its types, and the two things measured of a text in JS: its size
// (characters, UTF-8 bytes: the agent view's budget is in bytes of the text) and where a long one
// may be cut into pieces whose token counts add up to the whole's.

/** The members of a profile row, by index (the core's order). */
export const R = Object.freeze({
  path: 0, type: 1, parent: 2, depth: 3, ownBytes: 4, bytes: 5, nodes: 6, ownActions: 7, actions: 8,
  salience: 9, windowed: 10, self: 11, sub: 12, text: 13,
});

/**
 * [patches, ops, bytes, noops] since the subscription began.
 * @typedef {[number, number, number, number]} Counters
 */
/**
 * One node of the mirror, in tree pre-order: path, type, parent row (-1 for the root), depth,
 * own_bytes, bytes, nodes, own_actions, actions, salience (null: none), windowed (0/1), self
 * counters, subtree counters, text (null: unchanged since `since`).
 * @typedef {[string, string, number, number, number, number, number, number, number, number|null, number, Counters, Counters, string|null]} ProfileRow
 */
/**
 * @typedef {object} CoreProfile  the core's profile text, parsed
 * @property {string} sub       the subscription's handle
 * @property {number} serial    the consumer's change counter: `since` next time
 * @property {number} nodes     nodes in the mirror
 * @property {boolean} [counters_complete]  false when the core ran out of memory for a counter
 * @property {ProfileRow[]} rows
 */
/**
 * The part of the core's tool list (SlopConsumer#tools) the profile reads.
 * @typedef {object} ToolListLike
 * @property {Array<{name: string, description?: string, parameters?: unknown}>} tools
 * @property {Record<string, {path: string, action: string}>} [resolve]
 */
/**
 * A row's text as last counted, kept per (depth, path).
 * @typedef {object} TextEntry
 * @property {string} key     depth + " " + path
 * @property {string} text
 * @property {number} chars   characters (code points), without the "\n" that ends the line
 * @property {number} utf8    UTF-8 bytes, without the "\n"
 * @property {number} line    tokens of text + "\n" (-1: not counted yet)
 * @property {number} bare    tokens of text alone, counted only for the last row (-1: not counted)
 * @property {boolean} [unknown]  the core gave no text and none was kept: counted as nothing
 */

/**
 * The characters (code points) and UTF-8 bytes of a text.
 * @param {string} s @returns {{chars: number, utf8: number}}
 */
export function textSizes(s) {
  let chars = 0, utf8 = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    chars++;
    if (c < 0x80) utf8 += 1;
    else if (c < 0x800) utf8 += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { utf8 += 4; i++; }
    else utf8 += 3;
  }
  return { chars, utf8 };
}

/** Texts longer than this are counted in pieces, one piece per step of countPending. */
export const PIECE_CHARS = 32 * 1024;

/**
 * A long text cut where the tokenizer's pre-tokenization starts a new piece anyway, so the pieces'
 * token counts add up to the whole's: before a single space that follows a character other than
 * white space and precedes an ASCII letter (o200k and cl100k never join a piece across that point:
 * " word" starts a piece, and nothing before it takes a space at its end). null for a short text,
 * or one with no such point (counted whole).
 * @param {string} text @param {number} [size] @returns {string[]|null}
 */
export function splitForCounting(text, size = PIECE_CHARS) {
  if (text.length <= size) return null;
  /** @type {string[]} */
  const pieces = [];
  let from = 0;
  while (text.length - from > size) {
    let cut = -1;
    for (let k = from + size; k < text.length - 1 && k < from + size * 2; k++) {
      if (text.charCodeAt(k) === 32 && isAsciiLetter(text.charCodeAt(k + 1)) && !isSpace(text.charCodeAt(k - 1))) { cut = k; break; }
    }
    if (cut < 0) break;
    pieces.push(text.slice(from, cut));
    from = cut;
  }
  if (!pieces.length) return null;
  pieces.push(text.slice(from));
  return pieces;
}

/** @param {number} c */
const isAsciiLetter = (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** @param {number} c */
const isSpace = (c) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11 || c === 0xa0 || c > 0x1fff;

/** @param {readonly number[]} c */
export const anyNonZero = (c) => c[0] !== 0 || c[1] !== 0 || c[2] !== 0 || c[3] !== 0;
