// text-budget.js: fitting text into a byte budget, for what is sent to a size-limited receiver (a
// String webhook, a model's context): UTF-8 lengths without encoding, and whole lines that fit.

/**
 * UTF-8 length of a string, counted without encoding it (a lone surrogate counts 3, as
 * TextEncoder writes it U+FFFD). @param {string} s
 */
export function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 4; i++; }
    else n += 3;
  }
  return n;
}

/**
 * The first lines that fit in `room` UTF-8 bytes, each with its newline, whole lines only; with
 * `atLeastOne` the first line is kept even when it alone is over the room.
 * @param {string[]} lines @param {number} room @param {{atLeastOne?: boolean}} [o]
 * @returns {{kept: string[], bytes: number}} bytes: what the kept lines take
 */
export function fitLines(lines, room, { atLeastOne = false } = {}) {
  const kept = [];
  let used = 0;
  for (const l of lines) {
    const b = utf8Length(l) + 1;
    if (used + b > room && !(atLeastOne && kept.length === 0)) break;
    kept.push(l);
    used += b;
  }
  return { kept, bytes: used };
}
