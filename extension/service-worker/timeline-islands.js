// timeline-islands.js: the steps a History (timeline.js) keeps past its bound because a panel
// views or pins them ("holds"), and the step filter panels ask for.
//
// A panel's view of a step must not vanish under it because the provider is fast: at 100 patches
// a second a bound of 1,000 steps is ten seconds. So each panel port tells the worker which steps
// it shows and pins (Timeline.hold); when the bound drops a quarter that holds one of them, that
// step is kept as an "island": its step and record, its whole state and the state of the step
// before it (what its diff needs), read once by a replay consumer before the frames go. An island
// is listed in its place (the panel says how many steps were dropped around it), answers states
// and diffs from what it keeps, and counts in the bytes bound (its views' JSON length, the before
// state only where it differs), so the bound still holds: the drop goes on through newer steps.
// Islands may take at most ISLAND_SHARE of the bound; a step that would not fit goes as before.
// A step no panel holds any more leaves at the next drop.

import { replayAt } from './timeline-replay.js';
import { allViews, someViews, pairBetween } from './timeline-queries.js';

/** @typedef {import('./timeline.js').Timeline} Timeline */
/** @typedef {import('./timeline.js').Views} Views  path → node view */
/** @typedef {import('./timeline.js').StepRecord} StepRecord */
/** @typedef {import('./timeline.js').Step} Step */

/**
 * @typedef {object} Island
 * @property {import('./timeline.js').Step} step   the step, listed (with `kept: true` and `before`)
 * @property {StepRecord} rec    its record (touched paths: the filter reads them)
 * @property {Views} after       its whole state
 * @property {Views|null} before the state of the step before it (null: none kept)
 * @property {number|null} beforeStep
 * @property {import('./timeline.js').Step|null} prevStep   the step before it (not listed; a diff names it)
 * @property {number} bytes
 */

/** At most this share of the bytes bound is islands: the rest keeps the newest steps. */
export const ISLAND_SHARE = 1 / 2;
/** What a kept view costs besides its JSON text (a Map entry and a JS object). */
const VIEW_OVERHEAD = 96;
/** A Map entry that shares its view with the state before (the after state's copy of it). */
const MAP_ENTRY = 32;

/** @param {Views} views @param {Iterable<string>} [only] */
function viewsBytes(views, only = views.keys()) {
  let n = 0;
  for (const p of only) {
    const v = views.get(p);
    if (v) n += JSON.stringify(v).length + VIEW_OVERHEAD;
  }
  return n;
}

/** Whether some panel views or pins step `step`. @param {Timeline} tl @param {number} step */
export function isHeld(tl, step) {
  for (const set of tl.holds.values()) if (set.has(step)) return true;
  return false;
}

/** The island of step `step`, or undefined. @param {Timeline} tl @param {number} step */
export function islandOf(tl, step) {
  return tl.islands.find((x) => x.step.step === step);
}

/** The kept whole state of a step that is an island or an island's step before, or null. @param {Timeline} tl @param {number} step */
export function heldViews(tl, step) {
  for (const x of tl.islands) {
    if (x.step.step === step) return x.after;
    if (x.beforeStep === step && x.before) return x.before;
  }
  return null;
}

/**
 * Before the `n` oldest steps go (their checkpoint not yet installed, so that a replay reaches
 * them): the held ones among them become islands.
 * @param {Timeline} tl @param {number} n
 */
export function keepIslands(tl, n) {
  if (tl.noStates || tl.holds.size === 0) return;
  let used = tl.islands.reduce((k, x) => k + x.bytes, 0);
  for (let i = 0; i < n; i++) {
    const st = tl.steps[i];
    if (!isHeld(tl, st.step) || islandOf(tl, st.step)) continue;
    const rec = /** @type {StepRecord} */ (tl.records.get(st.step));
    if (rec.noState || !tl.segments[rec.seg]?.start.parts) continue;
    let island;
    try {
      island = readIsland(tl, i);
    } catch (e) {
      console.warn('SLOP Inspector: a held step could not be kept:', /** @type {any} a thrown value */ (e)?.message ?? e);
      continue;
    }
    if (!island || used + island.bytes > tl.limits.bytes * ISLAND_SHARE) continue; // goes as before
    used += island.bytes;
    tl.bytes += island.bytes;
    tl.islands.push(island);
  }
  tl.islands.sort((a, b) => a.step.step - b.step.step);
}

/**
 * Reads step i's state and the one before it (in that order: a replay only moves forward).
 * @param {Timeline} tl @param {number} i @returns {Island|null}
 */
function readIsland(tl, i) {
  const st = tl.steps[i];
  const rec = /** @type {StepRecord} */ (tl.records.get(st.step));
  const prev = i > 0 ? tl.steps[i - 1] : null;
  const prevRec = prev && tl.records.get(prev.step);
  /** @type {Views|null} */
  let before = null;
  /** @type {number|null} */
  let beforeStep = null;
  /** @type {Step|null} */
  let prevStep = null;
  let bytes = /** @type {number} every record has its bytes (recordBytes) */ (rec.bytes);
  if (prevRec && !prevRec.noState && tl.segments[prevRec.seg]?.start.parts) {
    const r = replayAt(tl, prevRec.seg, prevRec.frame);
    if (r) {
      before = allViews(tl, r);
      beforeStep = prev.step;
      prevStep = prev;
    }
  } else if (i === 0) {
    // The step before it may be an island already (two held steps in a row).
    const last = tl.islands.at(-1);
    if (last?.step.step === st.step - 1) {
      before = last.after;
      beforeStep = last.step.step;
      prevStep = last.step;
    }
  }
  const r = replayAt(tl, rec.seg, rec.frame);
  if (!r) return null;
  let after;
  // prev: there is one when prevRec is
  const b = before && prevRec ? pairBetween(tl, /** @type {Step} */ (prev).step, st.step) : null;
  if (b && !b.full && beforeStep === /** @type {Step} */ (prev).step) {
    // Only what differs is read; the rest is the before state's own views (shared, counted once).
    after = new Map(/** @type {Views} */ (before));
    for (const p of [...b.roots]) for (const k of [...after.keys()]) if (k === p || k.startsWith(`${p}/`)) after.delete(k);
    const read = someViews(tl, r, b.paths, b.roots);
    for (const p of b.paths) if (!read.has(p)) after.delete(p);
    for (const [p, v] of read) after.set(p, v);
    bytes += viewsBytes(/** @type {Views} */ (before)) + viewsBytes(after, read.keys()) + after.size * MAP_ENTRY;
  } else {
    after = allViews(tl, r);
    // A before state shared with the island before it is counted again: that island may go first.
    bytes += viewsBytes(after) + (before ? viewsBytes(before) : 0);
  }
  return { step: { ...st, kept: true, before: beforeStep }, rec, after, before, beforeStep, prevStep, bytes };
}

/** At a drop: the islands no panel holds any more go. @param {Timeline} tl */
export function releaseIslands(tl) {
  const keep = [];
  for (const x of tl.islands) {
    if (isHeld(tl, x.step.step)) keep.push(x);
    else tl.bytes -= x.bytes;
  }
  tl.islands = keep;
}

/**
 * Whether a step's record touched `path` or below it (or removed or added a subtree `path` is
 * in); a whole new state (a snapshot, a resync, a patch too big to list) may have changed anything.
 * @param {StepRecord} rec @param {string} path
 */
function touches(rec, path) {
  if (rec.full) return true;
  const under = (/** @type {string} */ p) => p === path || path === '/' || p.startsWith(`${path}/`);
  for (const p of rec.touched ?? []) if (under(p)) return true;
  for (const set of [rec.added, rec.removed]) for (const p of set ?? []) if (path.startsWith(`${p}/`)) return true;
  return false;
}

/**
 * The listed steps (islands and kept steps) that match a filter: {path?: a prefix, kinds?: the
 * kinds shown}. An invoke or a result matches on its own path. Exact: it reads every touched path
 * the worker kept, not the first PATHS_LISTED a step lists.
 * @param {Timeline} tl @param {{path?: string|null, kinds?: string[]|null}} f @returns {number[]}
 */
export function matchingSteps(tl, { path = null, kinds = null }) {
  const kindSet = kinds ? new Set(kinds) : null;
  const p = path && path !== '/' ? path.replace(/\/+$/, '') : path;
  /** @type {number[]} */
  const out = [];
  /** @param {import('./timeline.js').Step} st @param {StepRecord|undefined} rec */
  const test = (st, rec) => {
    if (kindSet && !kindSet.has(st.kind)) return;
    if (p) {
      const own = typeof st.path === 'string' && (st.path === p || p === '/' || st.path.startsWith(`${p}/`));
      if (!own && !(rec && (st.kind === 'patch' || st.kind === 'snapshot' || st.kind === 'resync') && touches(rec, p))) return;
    }
    out.push(st.step);
  };
  for (const x of tl.islands) test(x.step, x.rec);
  for (const st of tl.steps) test(st, tl.records.get(st.step));
  return out;
}
