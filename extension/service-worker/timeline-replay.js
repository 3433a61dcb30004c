// timeline-replay.js: a History's replay consumers (timeline.js): throwaway core consumers fed the
// recorded frames from a segment's start (its snapshot or a checkpoint), moved forward to a frame;
// the one that prints the checkpoints at the bound, and the readers of states for panels. Moved out
// of timeline.js's methods as they were, with `this` now the timeline `tl`.

import { MIRROR_FACTOR, READERS } from './timeline-limits.js';

/** @typedef {import('./timeline.js').Timeline} Timeline */

/**
 * @typedef {object} Start   where a segment's replay starts
 * @property {number} frame
 * @property {string[]|null} parts   its snapshot frame's text, or a checkpoint's in the parts the core
 *   printed; null: no state kept
 * @property {number} length         of the text
 * @property {boolean} checkpoint    a checkpoint (counted on its own), not one of the frames
 * @property {string|null} text      the parts joined (each read joins them: read it only to make a
 *   reader or an export)
 */
/**
 * @typedef {object} Segment   what one wire id of the main subscription covers (Timeline.segments)
 * @property {string} wire
 * @property {object} options   the subscription's, as the core has them
 * @property {string} hello     the hello frame before it
 * @property {Start} start
 * @property {number} [frozenFrom]  a resync began at this frame: the core keeps the last good state
 */
/**
 * @typedef {object} Cursor   a replay consumer (Timeline.cursors)
 * @property {number} seg @property {number} frame   where it is
 * @property {import('../../js-glue/slop-core.js').SlopConsumerT} consumer @property {string} sub
 * @property {boolean} bound    the one that prints the checkpoints
 * @property {number} bytes     its mirror, counted in the bytes bound
 * @property {number} used      Timeline.cursorUse when last used
 */

/** @param {number} frame @param {string[]|null} parts @param {boolean} checkpoint @returns {Start} */
export function startOf(frame, parts, checkpoint) {
  return {
    frame, parts, checkpoint, length: parts ? parts.reduce((n, p) => n + p.length, 0) : 0,
    get text() { return parts === null ? null : parts.length === 1 ? parts[0] : parts.join(''); },
  };
}

/**
 * A replay consumer at frame `frame` of segment `seg`: the nearest one at or before it, moved
 * forward, else one made from the segment's start. bound: the consumer that prints checkpoints
 * (only it serves them, and no panel's read moves it).
 * @param {Timeline} tl @param {number} seg @param {number} frame @param {boolean} [bound]
 * @param {((frame: number, r: Cursor) => void)|null} [onFrame] @param {number} [until]
 * @returns {Cursor|null}
 */
export function replayAt(tl, seg, frame, bound = false, onFrame = null, until = Infinity) {
  const s = tl.segments[seg];
  if (!s?.start.parts) return null;
  /** @type {Cursor|null} */
  let r = null;
  for (const c of tl.cursors) {
    if (c.bound !== bound || c.seg !== seg || c.frame > frame || c.frame < s.start.frame) continue;
    if (!r || c.frame > r.frame) r = c;
  }
  if (!r) {
    const mine = tl.cursors.filter((c) => c.bound === bound);
    // A reader replaces the least recently used one when there are READERS, or when another
    // would take the readers past a quarter of the bytes bound (a huge tree: one reader).
    const readerBytes = mine.reduce((n, c) => n + c.bytes, 0);
    const full = bound ? mine.length > 0 : mine.length >= READERS || (mine.length > 0 && readerBytes + s.start.length * MIRROR_FACTOR > tl.limits.bytes / 4);
    if (full) freeCursor(tl, mine.reduce((a, b) => (a.used <= b.used ? a : b)));
    const consumer = new (tl.core().SlopConsumer)({ transport: 'replay' });
    const sub = consumer.subscribe({ ...s.options, id: s.wire }, 0);
    if (s.hello) consumer.receive(s.hello, 0);
    consumer.receive(/** @type {string} parts kept */ (s.start.text), 0);
    consumer.drain();
    r = { seg, frame: s.start.frame, consumer, sub, bound, bytes: 0, used: 0 };
    recountCursor(tl, r, s.start.length);
    tl.cursors.push(r);
  }
  r.used = ++tl.cursorUse;
  onFrame?.(r.frame, r);
  // Frames are kept in order: the first one after the consumer's is found by bisection.
  let lo = 0;
  for (let hi = tl.frames.length; lo < hi;) {
    const mid = (lo + hi) >> 1;
    if (tl.frames[mid].i <= r.frame) lo = mid + 1; else hi = mid;
  }
  for (let k = lo; k < tl.frames.length; k++) {
    const f = tl.frames[k];
    if (f.i > frame) break;
    if (f.text === '') { r.frame = f.i; continue; } // ignored by the core when it came (#forgetIgnored)
    r.consumer.receive(f.text, f.t);
    r.consumer.drain();
    r.frame = f.i;
    onFrame?.(f.i, r);
    if (performance.now() >= until) return r; // a slice's time is up: not there yet
  }
  r.frame = Math.max(r.frame, frame);
  return r;
}

/** @param {Timeline} tl @param {Cursor} c */
export function freeCursor(tl, c) {
  c.consumer.free();
  tl.bytes -= c.bytes;
  tl.cursors.splice(tl.cursors.indexOf(c), 1);
}

/** @param {Timeline} tl @param {number} seg @param {number} frame */
export function printCheckpoint(tl, seg, frame) {
  const r = replayAt(tl, seg, frame, true);
  return r ? r.consumer.checkpoint(r.sub) : null;
}

/** @param {Timeline} tl @param {Cursor} c @param {number} textLength */
export function recountCursor(tl, c, textLength) {
  const bytes = Math.round(textLength * MIRROR_FACTOR);
  tl.bytes += bytes - c.bytes;
  c.bytes = bytes;
}
