// timeline-queries.js: what panels ask of a History (timeline.js): the state at a step and the
// diff between two, read by the replay consumers and kept as compared pairs of steps, so that
// stepping back needs no replay. Moved out of timeline.js's methods as they were, `this` now
// the timeline `tl`.

import { PAIRS, PAIRS_BEHIND, TRAIL, VIEW_BYTES } from './timeline-limits.js';
import { replayAt } from './timeline-replay.js';
import { diffStates } from '../shared/state-diff.js';
import { childPath } from '../shared/node-path.js';
import { nodeView } from './node-views.js';
import { parseVerbatim, stringifyExact } from '../../js-glue/exact-json.js';
import { heldViews, islandOf } from './timeline-islands.js';

/** @typedef {import('./timeline.js').Timeline} Timeline */
/** @typedef {import('./timeline.js').Views} Views */
/** @typedef {import('./timeline-replay.js').Cursor} Cursor */

/**
 * A changed node's field changes with their values as the provider wrote them, when either view
 * came with its text (node-views.js nodeView: a number JavaScript would write otherwise).
 * @param {{before: any, after: any, diff: import('../shared/state-diff.js').ViewDiff}} ch
 */
function addFieldTexts(ch) {
  if (!ch.before.exact && !ch.after.exact) return;
  const before = ch.before.exact ? parseVerbatim(ch.before.exact) : ch.before;
  const after = ch.after.exact ? parseVerbatim(ch.after.exact) : ch.after;
  for (const field of /** @type {const} */ (['properties', 'meta'])) {
    for (const fc of ch.diff[field]) {
      fc.beforeText = stringifyExact(before[field]?.[fc.key]);
      fc.afterText = stringifyExact(after[field]?.[fc.key]);
    }
  }
}

/** @param {Timeline} tl */
export function notKept(tl) {
  return Object.assign(new Error(`The history lists this step but keeps no state to show: ${tl.noStates ?? 'it was recorded without states'}.`), { code: 'not_kept' });
}

/** @param {Timeline} tl @param {number} step */
export function recordOf(tl, step) {
  const rec = tl.records.get(step);
  if (!rec) throw Object.assign(new Error(`step ${step} is no longer in the history`), { code: 'not_found' });
  if (rec.noState || !tl.segments[rec.seg]?.start.parts) throw notKept(tl);
  return rec;
}

/**
 * The views of the subtree at `root` in a replay consumer's state, breadth first, into `out`.
 * @param {Timeline} tl @param {Cursor} r @param {string} root @param {Views} out
 */
export function subtreeViews(tl, r, root, out) {
  const v = nodeView(r.consumer, r.sub, root);
  if (!v) return out;
  const queue = [v];
  for (let i = 0; i < queue.length; i++) {
    const x = queue[i];
    out.set(x.path, x);
    for (const id of x.child_ids ?? []) {
      const c = nodeView(r.consumer, r.sub, childPath(x.path, id));
      if (c) queue.push(c);
    }
  }
  return out;
}

/** Every node view of a replay consumer's mirror. @param {Timeline} tl @param {Cursor} r */
export function allViews(tl, r) {
  return subtreeViews(tl, r, '/', new Map());
}

/**
 * Views of `paths` and of the whole subtrees under `roots`, in a replay consumer's state.
 * @param {Timeline} tl @param {Cursor} r @param {Iterable<string>} paths @param {Iterable<string>} roots
 */
export function someViews(tl, r, paths, roots) {
  /** @type {Views} */
  const out = new Map();
  for (const p of paths) {
    const v = out.has(p) ? null : nodeView(r.consumer, r.sub, p);
    if (v) out.set(p, v);
  }
  for (const root of roots) subtreeViews(tl, r, root, out);
  return out;
}

/**
 * The two states of steps a and b (either order), read on the paths that differ between them:
 * {before: Map, after: Map, full, paths, roots} (before = a, after = b). full: every node was
 * read (a snapshot lies between them, another segment, or a patch too big to list).
 * @param {Timeline} tl @param {number} a @param {number} b
 */
export function comparePair(tl, a, b) {
  // An island (or the step before one) answers from the whole states it keeps.
  const ha = tl.records.has(a) ? null : heldViews(tl, a);
  const hb = tl.records.has(b) ? null : heldViews(tl, b);
  if (ha || hb) {
    const whole = (/** @type {Views|null} */ held, /** @type {number} */ step) => {
      if (held) return held;
      const rec = recordOf(tl, step);
      const r = replayAt(tl, rec.seg, rec.frame);
      return r ? allViews(tl, r) : new Map();
    };
    return { before: whole(ha, a), after: whole(hb, b), full: true, paths: new Set(), roots: new Set() };
  }
  const ra = recordOf(tl, a);
  const rb = recordOf(tl, b);
  const { full, paths, roots } = pairBetween(tl, a, b);
  const [lo, hi] = a <= b ? [a, b] : [b, a];
  const m = full ? null : tl.pairs.find((x) => x.lo === lo && x.hi === hi);
  if (m) keepPair(tl, m);
  if (m) return a <= b ? { before: m.older, after: m.newer, full, paths, roots } : { before: m.newer, after: m.older, full, paths, roots };
  const read = (/** @type {import('./timeline.js').StepRecord} */ rec) => {
    const r = replayAt(tl, rec.seg, rec.frame);
    if (!r) return new Map();
    return full ? allViews(tl, r) : someViews(tl, r, paths, roots);
  };
  // The older state first: the replay only moves forward.
  let before, after;
  if (a <= b) { before = read(ra); after = read(rb); } else { after = read(rb); before = read(ra); }
  if (!full) keepPair(tl, a <= b ? { lo, hi, older: before, newer: after } : { lo, hi, older: after, newer: before });
  return { before, after, full, paths, roots };
}

/** What lies between steps a and b: {full, paths, roots} (see #compare). @param {Timeline} tl @param {number} a @param {number} b */
export function pairBetween(tl, a, b) {
  const ra = recordOf(tl, a);
  const rb = recordOf(tl, b);
  const [lo, hi] = a <= b ? [a, b] : [b, a];
  const between = tl.steps.filter((s) => s.step > lo && s.step <= hi).map((s) => /** @type {import('./timeline.js').StepRecord} */ (tl.records.get(s.step)));
  const full = ra.seg !== rb.seg || between.some((x) => x.full);
  /** @type {Set<string>} */
  const paths = new Set();
  /** @type {Set<string>} */
  const roots = new Set();
  if (!full) {
    for (const x of between) {
      for (const p of x.touched ?? []) paths.add(p);
      for (const p of x.added ?? []) roots.add(p);
      for (const p of x.removed ?? []) roots.add(p);
    }
  }
  return { full, paths, roots };
}

/** Moves the reader nearest TRAIL steps before the newest (the live diff's trailing one) there. @param {Timeline} tl */
export function moveTrail(tl) {
  const st = tl.steps.at(-1 - TRAIL);
  const rec = st && tl.records.get(st.step);
  if (!rec || rec.seg !== tl.records.get(/** @type {import('./timeline.js').Step} */ (tl.steps.at(-1)).step)?.seg) return;
  const s = tl.segments[rec.seg];
  // Only a reader already behind it moves: none is made for this.
  if (s && tl.cursors.some((c) => !c.bound && c.seg === rec.seg && c.frame <= rec.frame && c.frame >= s.start.frame)) replayAt(tl, rec.seg, rec.frame);
}

/** Keeps a pair first (most recently used). @param {Timeline} tl @param {import('./timeline.js').Pair} pair */
export function keepPair(tl, pair) {
  pair.bytes ??= (pair.older.size + pair.newer.size) * VIEW_BYTES;
  keepPairs(tl, [pair, ...tl.pairs.filter((x) => x !== pair && (x.lo !== pair.lo || x.hi !== pair.hi))]);
}

/** @param {Timeline} tl @param {import('./timeline.js').Pair[]} list every one with its bytes */
export function keepPairs(tl, list) {
  const kept = list.slice(0, PAIRS);
  const bytes = (/** @type {import('./timeline.js').Pair[]} */ l) => l.reduce((n, x) => n + /** @type {number} */ (x.bytes), 0);
  tl.bytes += bytes(kept) - bytes(tl.pairs);
  tl.pairs = kept;
}

/**
 * Moves a reader to step `to` (which the caller reads next) and, on its way, reads the pairs of
 * steps up to PAIRS_BEHIND before it that it passes: the diff a panel asks for with a step's
 * state (against the step before), and the states and diffs of stepping back from it, need no
 * replay then. No frame is replayed for them that the read of `to` did not need.
 * @param {Timeline} tl @param {number} to  a step kept (recordOf)
 */
export function readBehind(tl, to) {
  const i = tl.steps.findIndex((s) => s.step === to);
  const rt = /** @type {import('./timeline.js').StepRecord} */ (tl.records.get(to));
  if (i < 1 || !tl.segments[rt.seg]) return;
  // Stepping back over kept pairs needs no reader (the diff at `to` is kept).
  if (tl.pairs.some((x) => x.lo === tl.steps[i - 1].step && x.hi === to)) return;
  // The pairs not kept yet: {lo, hi, lf, hf (their frames), paths, roots, older, newer}.
  /** @type {{lo: number, hi: number, lf: number, hf: number, paths: Set<string>, roots: Set<string>, older: Views|null, newer: Views|null}[]} */
  const wanted = [];
  for (let j = Math.max(1, i - PAIRS_BEHIND + 1); j <= i; j++) {
    const lo = tl.steps[j - 1].step;
    const hi = tl.steps[j].step;
    const rl = /** @type {import('./timeline.js').StepRecord} */ (tl.records.get(lo));
    const rh = /** @type {import('./timeline.js').StepRecord} */ (tl.records.get(hi));
    if (rl.seg !== rt.seg || rh.seg !== rt.seg || tl.pairs.some((x) => x.lo === lo && x.hi === hi)) continue;
    const b = pairBetween(tl, lo, hi);
    if (!b.full) wanted.push({ lo, hi, lf: rl.frame, hf: rh.frame, ...b, older: null, newer: null });
  }
  if (wanted.length === 0) return;
  replayAt(tl, rt.seg, rt.frame, false, (frame, r) => {
    for (const w of wanted) {
      if (w.lf === frame) w.older = someViews(tl, r, w.paths, w.roots);
      if (w.hf === frame) w.newer = someViews(tl, r, w.paths, w.roots);
    }
  });
  // Oldest first, so that the newest pairs end up first.
  for (const w of wanted) if (w.older && w.newer) keepPair(tl, { lo: w.lo, hi: w.hi, older: w.older, newer: w.newer });
}

/**
 * The state at step `to`, for a panel that shows the state at step `have` (or nothing): every
 * view (full), or only the views that differ and the paths gone.
 * @returns {{step: number, version: number|null, full: boolean, views: object[], removed: string[], replaced: string[]}}
 * @param {Timeline} tl @param {number} to @param {number|null} [have]
 */
export function stateAtStep(tl, to, have = null) {
  const island = islandOf(tl, to);
  if (island) return { step: to, version: island.step.version, full: true, views: [...island.after.values()], removed: [], replaced: [] };
  const rec = recordOf(tl, to);
  const step = /** @type {import('./timeline.js').Step} recordOf found it */ (tl.steps.find((s) => s.step === to));
  // Going forward from `have`, the reader must stop at `have` first (and the pair read is the
  // diff's when `have` is the step before).
  if (have === null || have > to) readBehind(tl, to);
  if (have === null || !tl.records.has(have)) {
    const r = replayAt(tl, rec.seg, rec.frame);
    return { step: to, version: step.version, full: true, views: r ? [...allViews(tl, r).values()] : [], removed: [], replaced: [] };
  }
  const c = comparePair(tl, have, to);
  if (c.full) return { step: to, version: step.version, full: true, views: [...c.after.values()], removed: [], replaced: [] };
  const removed = [...c.before.keys()].filter((p) => !c.after.has(p));
  // Subtrees that came or went are replaced whole: the panel drops what it had under them.
  const replaced = [...c.roots].filter((p) => c.after.has(p));
  return { step: to, version: step.version, full: false, views: [...c.after.values()], removed, replaced };
}

/** What changed from step a to step b: {from, to, added, removed, changed, boundaries}. @param {Timeline} tl @param {number} a @param {number} b */
export function diffSteps(tl, a, b) {
  const c = comparePair(tl, a, b);
  if (Math.max(a, b) === tl.steps.at(-1)?.step) moveTrail(tl);
  const d = diffStates(c.before, c.after);
  for (const ch of d.changed) addFieldTexts(ch);
  const [lo, hi] = a <= b ? [a, b] : [b, a];
  // An island's step before it is not listed: its step object is found as the island's before.
  const find = (/** @type {number} */ n) => tl.steps.find((s) => s.step === n) ?? islandOf(tl, n)?.step ?? tl.islands.find((i) => i.beforeStep === n)?.prevStep;
  const from = find(a);
  const to = find(b);
  const boundaries = tl.listed().filter((s) => s.step > lo && s.step <= hi && s.boundary);
  return { from, to, ...d, boundaries };
}
