// timeline-checkpoints.js: a History's bound (timeline.js): the oldest steps dropped a quarter at a
// time, the checkpoint a dropped quarter needs written ahead in slices between the provider's
// frames, and a tree too big for the bound kept without states. Moved out of timeline.js's methods
// as they were, with `this` now the timeline `tl`.

import { MIRROR_FACTOR, SLICE_MS, PART_BYTES } from './timeline-limits.js';
import { replayAt, freeCursor, printCheckpoint, recountCursor, startOf } from './timeline-replay.js';
import { keepPairs } from './timeline-queries.js';
import { keepIslands, releaseIslands, isHeld } from './timeline-islands.js';

/** @typedef {import('./timeline.js').Timeline} Timeline */
/** @typedef {import('./timeline.js').StepRecord} StepRecord */

/**
 * Whether a state of `len` bytes of text can be kept: it, the mirror of the consumer that
 * writes the checkpoints and one reader's, in half the bound (the other half for the frames).
 * @param {Timeline} tl @param {number} len
 */
export function fitsStates(tl, len) {
  return len * (1 + 2 * MIRROR_FACTOR) <= tl.limits.bytes / 2;
}

/**
 * From now on (or until a snapshot small enough), steps but no states: every frame, checkpoint,
 * replay consumer and kept comparison goes.
 * @param {Timeline} tl @param {number} len
 */
export function dropStates(tl, len) {
  const mb = (/** @type {number} */ n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  tl.job = null;
  if (tl.ready) tl.bytes -= tl.ready.length;
  tl.ready = null;
  tl.noStates = `this app's state is ${mb(len)} as text; with the two copies time travel needs it would take more than half of the history's ${mb(tl.limits.bytes)}`;
  tl.job = null;
  for (const c of [...tl.cursors]) freeCursor(tl, c);
  keepPairs(tl, []);
  dropFrames(tl);
  tl.segments.forEach((sg) => {
    if (!sg?.start.parts) return;
    if (sg.start.checkpoint) tl.bytes -= sg.start.length;
    sg.start = startOf(sg.start.frame, null, false);
  });
}

/** @param {Timeline} tl */
export function dropFrames(tl) {
  for (const f of tl.frames) tl.bytes -= f.text.length;
  tl.frames = [];
}

/** @param {Timeline} tl */
export function overBound(tl, part = 1) {
  return tl.steps.length > tl.limits.steps * part || tl.bytes > tl.limits.bytes * part;
}

/**
 * Keeps the bounds. Past three quarters of either, the checkpoint the next drop needs is written
 * ahead in slices (#startJob) and kept ready; at the bound itself, the oldest steps before it
 * go (the slices finished here if they are not done: the only time a frame's task waits).
 * @param {Timeline} tl
 */
export function keepBound(tl) {
  if (overBound(tl, 3 / 4) && !tl.job && !tl.ready) startJob(tl);
  if (!overBound(tl) || tl.steps.length < 2) return;
  // Islands no panel holds any more go first: they may be all the drop needs.
  releaseIslands(tl);
  while (overBound(tl) && tl.steps.length > 1) {
    const ready = tl.ready;
    if (ready) {
      tl.ready = null;
      tl.bytes -= ready.length;
      const i = tl.steps.findIndex((x) => x.step === ready.step);
      // A held step never becomes the oldest: the step before it (its diff's) would go. The
      // checkpoint written ahead is for that step: the drop below prints another instead.
      if (i > 0 && isHeld(tl, tl.steps[i].step)) continue;
      if (i > 0) {
        // Held steps are read before the checkpoint moves the segment's start past them.
        keepIslands(tl, i);
        installCheckpoint(tl, ready.seg, ready.frame, ready.parts);
        dropOldest(tl, i);
      }
      continue;
    }
    if (tl.job) {
      tl.blocking++;
      runJob(tl, tl.job, Infinity);
      continue;
    }
    let n = quarterOf(tl);
    while (n > 1 && isHeld(tl, tl.steps[n].step)) n--; // as above: a held step keeps the step before it
    const rec = /** @type {StepRecord} */ (tl.records.get(tl.steps[n].step));
    const at = checkpointFrame(tl, rec);
    keepIslands(tl, n);
    if (at !== null) {
      tl.blocking++;
      const text = printCheckpoint(tl, rec.seg, at);
      installCheckpoint(tl, rec.seg, at, text === null ? null : [text]);
    }
    dropOldest(tl, n);
  }
  afterDrop(tl);
}

/** How many of the oldest steps a drop takes: a quarter, or what the step bound needs. @param {Timeline} tl */
export function quarterOf(tl) {
  return Math.min(tl.steps.length - 1, Math.max(1, Math.floor(tl.steps.length / 4), tl.steps.length - tl.limits.steps));
}

/**
 * Where the checkpoint for a drop that makes `rec`'s step the oldest is taken: its frame, or the
 * frame before its segment's resync began; null when none is needed (no state kept there, or
 * the segment starts there already).
 * @param {Timeline} tl @param {StepRecord} rec
 */
export function checkpointFrame(tl, rec) {
  const seg = tl.segments[rec.seg];
  if (!seg?.start.parts) return null;
  const at = seg.frozenFrom === undefined ? rec.frame : Math.min(rec.frame, seg.frozenFrom - 1);
  return seg.start.frame < at ? at : null;
}

/** Starts writing, in slices, the checkpoint of the step the next drop will make the oldest. @param {Timeline} tl */
export function startJob(tl) {
  if (tl.steps.length < 2) return;
  // Steps are only added until the bound: the step a quarter of the step bound in now is the
  // one that will be there (a bytes bound reached first drops a quarter of what is kept).
  const byCount = tl.steps.length > tl.limits.steps * 3 / 4;
  const first = tl.steps[Math.min(tl.steps.length - 1, byCount ? Math.floor(tl.limits.steps / 4) : quarterOf(tl))];
  const rec = /** @type {StepRecord} */ (tl.records.get(first.step));
  const at = checkpointFrame(tl, rec);
  if (at === null) return;
  const job = /** @type {import('./timeline.js').Job} */ ({ seg: rec.seg, frame: at, step: first.step, parts: null });
  tl.job = job;
  const slice = () => {
    if (tl.job !== job) return;
    runJob(tl, job, SLICE_MS);
    if (tl.job === job) setTimeout(slice, 0);
  };
  setTimeout(slice, 0);
}

/**
 * Works on the job for up to `ms`: moves the checkpoint writer forward frame by frame to the
 * job's frame, then has the core print the checkpoint in parts; done, it waits in tl.ready
 * (counted in the bytes) for the bound.
 * @param {Timeline} tl @param {import('./timeline.js').Job} job @param {number} ms
 */
export function runJob(tl, job, ms) {
  const until = performance.now() + ms;
  try {
    if (job.parts === null) {
      const r = replayAt(tl, job.seg, job.frame, true, null, until);
      if (!r) { tl.job = null; return; }
      if (r.frame < job.frame) return; // more frames next slice
      r.consumer.checkpointBegin(r.sub);
      job.cursor = r;
      job.parts = [];
      job.length = 0;
      if (performance.now() >= until) return;
    }
    for (;;) {
      const part = job.cursor.consumer.checkpointNext(PART_BYTES);
      if (part === '') break;
      job.parts.push(part);
      job.length += part.length;
      if (performance.now() >= until) return;
    }
  } catch (e) {
    // The core refused (out of wasm memory, say): the drop at the bound writes it whole.
    console.warn('SLOP Inspector: a history checkpoint could not be written ahead:', /** @type {any} a thrown value */ (e)?.message ?? e);
    tl.job = null;
    return;
  }
  tl.job = null;
  tl.sliced++;
  // Kept in its parts: joined only when a reader or an export needs the text (a 100 MB string
  // built in one slice would hold up the worker).
  tl.ready = { seg: job.seg, frame: job.frame, step: job.step, parts: job.parts, length: job.length };
  tl.bytes += job.length;
}

/**
 * A checkpoint (its text in parts) at `frame` becomes segment `seg`'s start (and a tree grown too
 * big drops the states). @param {Timeline} tl @param {number} seg @param {number} frame @param {string[]|null} parts
 */
export function installCheckpoint(tl, seg, frame, parts) {
  const sg = tl.segments[seg];
  if (!sg || parts === null) return;
  const start = startOf(frame, parts, true);
  if (!fitsStates(tl, start.length)) {
    dropStates(tl, start.length);
    return;
  }
  if (sg.start.checkpoint) tl.bytes -= sg.start.length;
  tl.bytes += start.length;
  sg.start = start;
  // The writer's mirror is now this state's size.
  for (const c of tl.cursors) if (c.bound && c.seg === seg) recountCursor(tl, c, start.length);
}

/** @param {Timeline} tl */
export function afterDrop(tl) {
  keepPairs(tl, tl.pairs.filter((x) => tl.records.has(x.lo)));
  // A consumer behind its segment's new start would skip the frames dropped after it.
  for (const c of [...tl.cursors]) {
    const sg = tl.segments[c.seg];
    if (!sg?.start.parts || c.frame < sg.start.frame) freeCursor(tl, c);
  }
  tl.emit(tl.listed(), true);
}

/** Drops the n oldest steps (their checkpoint, if one is needed, is in place). @param {Timeline} tl @param {number} n */
export function dropOldest(tl, n) {
  /** Every kept step has its record. @param {number} step */
  const recordOf = (step) => /** @type {StepRecord} */ (tl.records.get(step));
  for (const s of tl.steps.splice(0, n)) {
    tl.bytes -= recordOf(s.step).bytes ?? 0;
    tl.records.delete(s.step);
  }
  tl.dropped += n;
  // Frames before the earliest start a kept step replays from are needed no more.
  let keepFrom = Infinity;
  for (const s of tl.steps) {
    const r = recordOf(s.step);
    keepFrom = Math.min(keepFrom, tl.segments[r.seg]?.start.frame ?? r.frame);
  }
  while (tl.frames.length && tl.frames[0].i < keepFrom) tl.bytes -= /** @type {{text: string}} */ (tl.frames.shift()).text.length;
  // Segments (and their checkpoints) nothing refers to any more.
  const used = new Set(tl.steps.map((s) => recordOf(s.step).seg));
  tl.segments.forEach((sg, i) => {
    if (sg && !used.has(i)) {
      if (sg.start.checkpoint) tl.bytes -= sg.start.length;
      tl.segments[i] = null;
    }
  });
}
