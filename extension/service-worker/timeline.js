// timeline.js: the history of a provider's main subscription, kept by the service worker per
// (tab, provider), so that every panel (opened late, closed and reopened, a second one) sees the
// same steps, and so that it can be exported as a recording and played back.
//
// What is kept: the provider frames as they came in (their text and time), and a list of steps
// (a snapshot, each patch, a resync, each invoke and its result, a protocol error, a reload of the
// page), each with the frame its state is the state after. Nothing here applies a patch or reads
// a frame: the state at a step is rebuilt by a throwaway "replay" core consumer fed the recorded
// frames (slop_core.h), from the segment's first snapshot, or from a checkpoint the core printed
// when the oldest frames had to go. Every version shown is therefore the core's own reading.
//
// Segments: the main subscription's frames carry the id it has on the wire, which changes on a
// resync or a reconnect; a segment is what one such id covers, from its snapshot on.
//
// Bounded by steps and bytes (TIMELINE_LIMITS), counting all it holds: frame texts, step records,
// checkpoints, the replay consumers' mirrors (estimated from their state's text, MIRROR_FACTOR) and
// the kept comparisons. The oldest steps go first, a quarter at a time. The checkpoint a dropped
// quarter needs is written ahead, from three quarters of the bound on, in slices between the
// provider's frames (a replay consumer moved forward a few frames at a time, then the core's
// checkpoint printed in parts): a frame's task never waits for a whole tree to be printed, unless
// a flood reaches the bound before the slices are done (counted in info().blocking).
// A tree whose state and the two mirrors time travel needs would take more than half the bound
// keeps its steps but no states (info().states says why): a history never holds more than its bound.

import { diffStates } from '../shared/state-diff.js';
import { childPath } from '../shared/node-path.js';
import { nodeView } from './node-views.js';
import { parseVerbatim, stringifyExact } from '../../js-glue/exact-json.js';
import { CoreEventName } from '../../js-glue/core-contract.js';

export const TIMELINE_LIMITS = Object.freeze({ steps: 1000, bytes: 64 * 1024 * 1024 });
/**
 * A replay consumer's mirror in bytes per byte of its state's JSON text: measured 1.29-1.36 for
 * 1k-100k items of ~690 bytes with a native build (mallinfo2 around a snapshot's load); wasm32's
 * pointers are half as wide, so this errs high.
 */
const MIRROR_FACTOR = 1.4;
/** A step and its record, besides the paths it lists (counted by their length). */
const STEP_BYTES = 200;
/** Work per slice of a checkpoint written ahead: a slice stops after this long... */
const SLICE_MS = 4;
/** ...and the core prints a part of about this many bytes at a time. */
const PART_BYTES = 64 * 1024;
/**
 * Replay consumers that read states for panels (besides the one that prints the checkpoints):
 * the newest step (the live diff), a step looked at and the one before it (its diff). A replay
 * only moves forward; with one consumer each read of an older step replayed the whole segment.
 */
const READERS = 3;
/**
 * Pairs of steps whose compared views are kept (see Timeline.pairs): the steps just before one a
 * panel looks at, read while a reader passes them, so that stepping back needs no replay.
 */
const PAIRS = 40;
const PAIRS_BEHIND = 32;
/**
 * While a panel follows the newest step's diff, a reader follows this many steps behind it: a click
 * on a recent step starts from there instead of the segment's start.
 */
const TRAIL = 24;
/** What a kept view is counted as in the bytes bound (a node view's JSON is about this long). */
const VIEW_BYTES = 256;
/** Paths listed per step in the step list (the rest are counted). */
const PATHS_LISTED = 12;

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

/**
 * @typedef {object} Step   what the panel lists
 * @property {number} step      running number in this timeline
 * @property {number} t         epoch ms
 * @property {'snapshot'|'patch'|'resync'|'invoke'|'result'|'error'|'reload'} kind
 * @property {number|null} version   the mirror's version after it (null: no state yet)
 * @property {number} ops       patch: operations; snapshot: nodes
 * @property {string[]} paths   paths touched (the first PATHS_LISTED)
 * @property {number} pathCount
 * @property {object|null} boundary  {kind: 'restart'|'provider'|'reload'|'worker', previousVersion, previous?, provider?}
 * @property {string} [path]    invoke / result
 * @property {string} [action]
 * @property {string} [status]  result: ok | error | accepted
 * @property {string} [message] error, resync: why
 */

export class Timeline {
  /**
   * @param {{core: () => import('../../js-glue/slop-core.js').SlopCore, label: {pageUrl: string|null, transport: string|null},
   *   firstStep?: number, limits?: {steps: number, bytes: number}}} o  label: for exports; firstStep:
   *   where the step numbers start (after those of a history this one replaces)
   */
  constructor({ core, label, firstStep = 1, limits = TIMELINE_LIMITS }) {
    this.core = core;
    this.label = label;
    this.limits = limits;
    /** @type {boolean|undefined} a recording opened in a panel (fromRecording); false once a live history goes on in it */
    this.readOnly;
    /** @type {string|undefined} a recording's file name */
    this.name;
    /** @type {import('./connections.js').Connection|undefined} the connection it records (timelines.js) */
    this.conn;
    /** @type {{i: number, t: number, text: string}[]} */
    this.frames = [];
    this.nextFrame = 0;       // absolute index of the next frame
    /** @type {Step[]} */
    this.steps = [];
    /** Private per step: segment, frame index, touched paths. step number → record */
    this.records = new Map();
    this.nextStep = firstStep;
    this.bytes = 0;
    this.dropped = 0;         // steps dropped at the bounds
    /** @type {{wire: string, options: object, hello: string, start: Start, frozenFrom?: number}[]} */
    this.segments = [];
    this.hello = null;        // the last hello frame's text
    this.provider = null;     // {id, name} from the last hello
    this.persist = false;
    this.listeners = new Set(); // fn(steps: Step[], reset: boolean)
    /**
     * Replay consumers {seg, frame, consumer, sub, bytes, bound, used}: the one that prints the
     * checkpoints at the bound (bound: it stays where the last checkpoint left it, so that the next
     * one only moves it forward), and up to READERS that read states for panels, made only when a
     * panel asks. A reader's mirror counts against the bytes bound (as its segment start's length).
     */
    this.cursors = [];
    this.cursorUse = 0;
    /**
     * Up to PAIRS pairs of steps compared (not whole), newest use first: {lo, hi, older, newer,
     * bytes}, the views of both on the paths that differ. A step's click asks for its state against
     * the panel's and for its diff with the step before; stepping back asks for the pair before.
     * Counted in bytes (VIEW_BYTES a view).
     */
    this.pairs = [];
    /** @type {ReturnType<typeof setTimeout>|0} */
    this.persistTimer = 0;
    this.persistError = null;
    /** null while states are kept; else why not (a tree too big for the bound). */
    this.noStates = null;
    /** The checkpoint being written ahead, in slices ({seg, frame, step, parts}), or null. */
    this.job = null;
    /** A checkpoint written ahead, for the next drop at the bound ({seg, frame, step, text}), or null. */
    this.ready = null;
    /** Checkpoints that had to be written whole inside a frame's task (the bound came first). */
    this.blocking = 0;
    /** Checkpoints written ahead in slices. */
    this.sliced = 0;
  }

  // -------------------------------------------------------------------------- recording

  /** A provider frame, before the core reads it. */
  input(text, t = Date.now()) {
    // Without states only the newest frame is kept (a snapshot's step reads it, then it goes).
    if (this.noStates) this.#dropFrames();
    else this.#forgetIgnored();
    this.frames.push({ i: this.nextFrame++, t, text });
    this.bytes += text.length;
  }

  /**
   * Inside an unanswered resync the core ignores the main subscription's frames until a snapshot
   * starts a new segment: the frame before this one, if it came then and started nothing, keeps
   * its place but not its text (a provider that never answers cannot grow the history).
   */
  #forgetIgnored() {
    const sg = this.segments.at(-1);
    const f = this.frames.at(-1);
    if (!sg || sg.frozenFrom === undefined || !f || f.i <= sg.frozenFrom || !f.text) return;
    this.bytes -= f.text.length;
    f.text = '';
  }

  /**
   * Whether a state of `len` bytes of text can be kept: it, the mirror of the consumer that
   * writes the checkpoints and one reader's, in half the bound (the other half for the frames).
   */
  #fits(len) {
    return len * (1 + 2 * MIRROR_FACTOR) <= this.limits.bytes / 2;
  }

  /**
   * From now on (or until a snapshot small enough), steps but no states: every frame, checkpoint,
   * replay consumer and kept comparison goes.
   */
  #dropStates(len) {
    const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
    this.job = null;
    if (this.ready) this.bytes -= this.ready.length;
    this.ready = null;
    this.noStates = `this app's state is ${mb(len)} as text; with the two copies time travel needs it would take more than half of the history's ${mb(this.limits.bytes)}`;
    this.job = null;
    for (const c of [...this.cursors]) this.#freeCursor(c);
    this.#keepPairs([]);
    this.#dropFrames();
    this.segments.forEach((sg) => {
      if (!sg?.start.parts) return;
      if (sg.start.checkpoint) this.bytes -= sg.start.length;
      sg.start = startOf(sg.start.frame, null, false);
    });
  }

  /** The hello frame of a connection is the last frame input (remembered for the segments). */
  helloSeen(provider) {
    const f = this.frames.at(-1);
    if (f) this.hello = f.text;
    this.provider = provider ? { id: String(provider.id ?? ''), name: String(provider.name ?? '') } : null;
  }

  /**
   * A core event of the connection (connections.js: coreEvent). main: the main subscription's
   * handle; status: () => the core's status(), read only on a snapshot (for the wire id).
   */
  event(ev, main, status) {
    const frame = this.nextFrame - 1;
    const seg = this.segments.length - 1;
    switch (ev.event) {
      case CoreEventName.SNAPSHOT: {
        if (ev.sub !== main) return;
        const st = status()?.subscriptions?.find((s) => s.sub === main);
        const f = this.frames.at(-1);
        if (!st?.wire || !f) return;
        // Each snapshot decides anew: a smaller tree after a reload keeps states again.
        if (this.#fits(f.text.length)) this.noStates = null;
        else this.#dropStates(f.text.length);
        this.segments.push({ wire: st.wire, options: st.options ?? {}, hello: this.hello ?? '', start: startOf(f.i, this.noStates ? null : [f.text], false) });
        const boundary = ev.restarted ? { kind: 'restart', previousVersion: ev.previous_version ?? null } : this.pendingBoundary ?? null;
        this.pendingBoundary = null;
        this.#add({ kind: this.resyncing ? 'resync' : 'snapshot', version: ev.version, ops: ev.nodes ?? 0, boundary, message: this.resyncing ?? undefined },
          { seg: this.segments.length - 1, frame: f.i, full: true, touched: [] });
        this.resyncing = null;
        return;
      }
      case CoreEventName.PATCH: {
        if (ev.sub !== main || seg < 0) return;
        const touched = new Set([...(ev.changed ?? []), ...(ev.added ?? []), ...(ev.removed ?? [])]);
        for (const c of ev.children ?? []) touched.add(c.parent);
        const last = this.steps.at(-1);
        const rec = last && this.records.get(last.step);
        // The patches of one frame (a batch) are one step: one state after them.
        if (last?.kind === 'patch' && rec.frame === frame && rec.seg === seg) {
          last.version = ev.version;
          last.ops += ev.ops ?? 0;
          const before = rec.bytes;
          for (const p of touched) rec.touched.add(p);
          for (const p of ev.added ?? []) rec.added.add(p);
          for (const p of ev.removed ?? []) rec.removed.add(p);
          rec.full ||= !!ev.truncated;
          rec.bytes = recordBytes(rec);
          this.bytes += rec.bytes - before;
          last.pathCount = rec.touched.size;
          last.paths = [...rec.touched].slice(0, PATHS_LISTED);
          this.#emit([last], false, true);
          return;
        }
        this.#add({ kind: 'patch', version: ev.version, ops: ev.ops ?? 0, paths: [...touched].slice(0, PATHS_LISTED), pathCount: touched.size },
          { seg, frame, touched, added: new Set(ev.added ?? []), removed: new Set(ev.removed ?? []), full: !!ev.truncated });
        return;
      }
      case CoreEventName.RESYNC:
        if (ev.sub !== main) return;
        this.resyncing = String(ev.message ?? ev.reason ?? 'resync');
        // From here until the next snapshot the core keeps the last good state under a new wire
        // id: a checkpoint is taken before this frame (replaying from an earlier point is exact).
        if (this.segments[seg] && this.segments[seg].frozenFrom === undefined) this.segments[seg].frozenFrom = frame;
        return;
      case CoreEventName.PROVIDER_CHANGED:
        this.pendingBoundary = { kind: 'provider', previousVersion: this.steps.at(-1)?.version ?? null, previous: ev.previous ?? null, provider: ev.provider ?? null };
        return;
      case CoreEventName.RESULT:
        this.#add({ kind: 'result', version: this.#version(), path: ev.path, action: ev.action, status: ev.status, message: ev.error?.message }, { seg, frame });
        return;
      case CoreEventName.PROTOCOL_ERROR:
        this.#add({ kind: 'error', version: this.#version(), message: String(ev.message ?? ev.code ?? 'protocol error') }, { seg, frame });
        return;
      default:
    }
  }

  /** An invoke the extension sent (panel, test library, desktop bridge). */
  invoked(path, action) {
    this.#add({ kind: 'invoke', version: this.#version(), path, action }, { seg: this.segments.length - 1, frame: this.nextFrame - 1 });
  }

  /** The page was loaded again and the provider came back under the same key. */
  reloaded(pageUrl) {
    this.#boundaryStep('reload', pageUrl);
  }

  /** The extension's service worker started again and read this (persisted) history back. */
  workerRestarted(pageUrl) {
    this.#boundaryStep('worker', pageUrl);
  }

  #boundaryStep(kind, pageUrl) {
    this.label.pageUrl = pageUrl;
    this.pendingBoundary = { kind, previousVersion: this.#version() };
    this.#add({ kind: 'reload', version: this.#version(), message: kind === 'worker' ? 'the extension started again' : pageUrl ?? '' },
      { seg: this.segments.length - 1, frame: this.nextFrame - 1 });
  }

  #version() {
    return this.steps.at(-1)?.version ?? null;
  }

  #add(fields, rec) {
    const step = { step: this.nextStep++, t: Date.now(), ops: 0, paths: [], pathCount: 0, boundary: null, ...fields };
    if (step.paths.length === 0 && rec.touched) step.pathCount = rec.touched.size;
    this.steps.push(step);
    rec.bytes = recordBytes(rec);
    this.bytes += rec.bytes;
    this.records.set(step.step, rec);
    if (this.noStates) {
      rec.noState = true;
      this.#dropFrames();
    }
    this.#bound();
    this.#emit([step], false);
  }

  #emit(steps, reset, update = false) {
    for (const fn of this.listeners) fn(steps, reset, update);
  }

  #dropFrames() {
    for (const f of this.frames) this.bytes -= f.text.length;
    this.frames = [];
  }

  #over(part = 1) {
    return this.steps.length > this.limits.steps * part || this.bytes > this.limits.bytes * part;
  }

  /**
   * Keeps the bounds. Past three quarters of either, the checkpoint the next drop needs is written
   * ahead in slices (#startJob) and kept ready; at the bound itself, the oldest steps before it
   * go (the slices finished here if they are not done: the only time a frame's task waits).
   */
  #bound() {
    if (this.#over(3 / 4) && !this.job && !this.ready) this.#startJob();
    if (!this.#over() || this.steps.length < 2) return;
    while (this.#over() && this.steps.length > 1) {
      const ready = this.ready;
      if (ready) {
        this.ready = null;
        this.bytes -= ready.length;
        const i = this.steps.findIndex((x) => x.step === ready.step);
        if (i > 0) {
          this.#installCheckpoint(ready.seg, ready.frame, ready.parts);
          this.#dropOldest(i);
        }
        continue;
      }
      if (this.job) {
        this.blocking++;
        this.#runJob(this.job, Infinity);
        continue;
      }
      const n = this.#quarter();
      const rec = this.records.get(this.steps[n].step);
      const at = this.#checkpointFrame(rec);
      if (at !== null) {
        this.blocking++;
        const text = this.#checkpoint(rec.seg, at);
        this.#installCheckpoint(rec.seg, at, text === null ? null : [text]);
      }
      this.#dropOldest(n);
    }
    this.#afterDrop();
  }

  /** How many of the oldest steps a drop takes: a quarter, or what the step bound needs. */
  #quarter() {
    return Math.min(this.steps.length - 1, Math.max(1, Math.floor(this.steps.length / 4), this.steps.length - this.limits.steps));
  }

  /**
   * Where the checkpoint for a drop that makes `rec`'s step the oldest is taken: its frame, or the
   * frame before its segment's resync began; null when none is needed (no state kept there, or
   * the segment starts there already).
   */
  #checkpointFrame(rec) {
    const seg = this.segments[rec.seg];
    if (!seg?.start.parts) return null;
    const at = seg.frozenFrom === undefined ? rec.frame : Math.min(rec.frame, seg.frozenFrom - 1);
    return seg.start.frame < at ? at : null;
  }

  /** Starts writing, in slices, the checkpoint of the step the next drop will make the oldest. */
  #startJob() {
    if (this.steps.length < 2) return;
    // Steps are only added until the bound: the step a quarter of the step bound in now is the
    // one that will be there (a bytes bound reached first drops a quarter of what is kept).
    const byCount = this.steps.length > this.limits.steps * 3 / 4;
    const first = this.steps[Math.min(this.steps.length - 1, byCount ? Math.floor(this.limits.steps / 4) : this.#quarter())];
    const rec = this.records.get(first.step);
    const at = this.#checkpointFrame(rec);
    if (at === null) return;
    const job = { seg: rec.seg, frame: at, step: first.step, parts: null };
    this.job = job;
    const slice = () => {
      if (this.job !== job) return;
      this.#runJob(job, SLICE_MS);
      if (this.job === job) setTimeout(slice, 0);
    };
    setTimeout(slice, 0);
  }

  /**
   * Works on the job for up to `ms`: moves the checkpoint writer forward frame by frame to the
   * job's frame, then has the core print the checkpoint in parts; done, it waits in this.ready
   * (counted in the bytes) for the bound.
   */
  #runJob(job, ms) {
    const until = performance.now() + ms;
    try {
      if (job.parts === null) {
        const r = this.#at(job.seg, job.frame, true, null, until);
        if (!r) { this.job = null; return; }
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
      console.warn('SLOP Inspector: a history checkpoint could not be written ahead:', e?.message ?? e);
      this.job = null;
      return;
    }
    this.job = null;
    this.sliced++;
    // Kept in its parts: joined only when a reader or an export needs the text (a 100 MB string
    // built in one slice would hold up the worker).
    this.ready = { seg: job.seg, frame: job.frame, step: job.step, parts: job.parts, length: job.length };
    this.bytes += job.length;
  }

  /** A checkpoint (its text in parts) at `frame` becomes segment `seg`'s start (and a tree grown too big drops the states). */
  #installCheckpoint(seg, frame, parts) {
    const sg = this.segments[seg];
    if (!sg || parts === null) return;
    const start = startOf(frame, parts, true);
    if (!this.#fits(start.length)) {
      this.#dropStates(start.length);
      return;
    }
    if (sg.start.checkpoint) this.bytes -= sg.start.length;
    this.bytes += start.length;
    sg.start = start;
    // The writer's mirror is now this state's size.
    for (const c of this.cursors) if (c.bound && c.seg === seg) this.#recount(c, start.length);
  }

  #recount(c, textLength) {
    const bytes = Math.round(textLength * MIRROR_FACTOR);
    this.bytes += bytes - c.bytes;
    c.bytes = bytes;
  }

  #afterDrop() {
    this.#keepPairs(this.pairs.filter((x) => this.records.has(x.lo)));
    // A consumer behind its segment's new start would skip the frames dropped after it.
    for (const c of [...this.cursors]) {
      const sg = this.segments[c.seg];
      if (!sg?.start.parts || c.frame < sg.start.frame) this.#freeCursor(c);
    }
    this.#emit(this.steps, true);
  }

  /** Drops the n oldest steps (their checkpoint, if one is needed, is in place). */
  #dropOldest(n) {
    for (const s of this.steps.splice(0, n)) {
      this.bytes -= this.records.get(s.step).bytes ?? 0;
      this.records.delete(s.step);
    }
    this.dropped += n;
    // Frames before the earliest start a kept step replays from are needed no more.
    let keepFrom = Infinity;
    for (const s of this.steps) {
      const r = this.records.get(s.step);
      keepFrom = Math.min(keepFrom, this.segments[r.seg]?.start.frame ?? r.frame);
    }
    while (this.frames.length && this.frames[0].i < keepFrom) this.bytes -= this.frames.shift().text.length;
    // Segments (and their checkpoints) nothing refers to any more.
    const used = new Set(this.steps.map((s) => this.records.get(s.step).seg));
    this.segments.forEach((sg, i) => {
      if (sg && !used.has(i)) {
        if (sg.start.checkpoint) this.bytes -= sg.start.length;
        this.segments[i] = null;
      }
    });
  }

  /**
   * New bounds (the user's setting in Options): a lower one drops the oldest steps now. States
   * dropped for a bound that was too small come back with the next snapshot.
   */
  setLimits(limits) {
    if (limits.steps === this.limits.steps && limits.bytes === this.limits.bytes) return;
    this.limits = limits;
    if (this.ready) { this.bytes -= this.ready.length; this.ready = null; }
    this.job = null;
    const before = this.steps.length;
    this.#bound();
    if (this.steps.length === before) this.#emit([], false); // the strip shows the new bound
  }

  /** Clears everything (a reload without Persist). */
  clear() {
    this.frames = [];
    this.steps = [];
    this.records.clear();
    this.segments = [];
    this.bytes = 0;
    this.dropped = 0;
    for (const c of [...this.cursors]) this.#freeCursor(c);
    this.bytes = 0;
    this.pairs = [];
    this.job = null;
    this.ready = null;
    this.noStates = null;
    this.#emit([], true);
  }

  dispose() {
    this.job = null;
    for (const c of [...this.cursors]) this.#freeCursor(c);
    this.listeners.clear();
  }

  // --------------------------------------------------------------------------- reading

  #notKept() {
    return Object.assign(new Error(`The history lists this step but keeps no state to show: ${this.noStates ?? 'it was recorded without states'}.`), { code: 'not_kept' });
  }

  /** What the panel shows of the bounds. */
  info() {
    return {
      steps: this.steps.length, bytes: this.bytes, dropped: this.dropped, limits: this.limits, persist: this.persist, provider: this.provider,
      persistError: this.persistError ?? null, noStates: this.noStates, checkpoints: { sliced: this.sliced, blocking: this.blocking },
    };
  }

  #record(step) {
    const rec = this.records.get(step);
    if (!rec) throw Object.assign(new Error(`step ${step} is no longer in the history`), { code: 'not_found' });
    if (rec.noState || !this.segments[rec.seg]?.start.parts) throw this.#notKept();
    return rec;
  }

  /**
   * A replay consumer at frame `frame` of segment `seg`: the nearest one at or before it, moved
   * forward, else one made from the segment's start. bound: the consumer that prints checkpoints
   * (only it serves them, and no panel's read moves it).
   */
  #at(seg, frame, bound = false, onFrame = null, until = Infinity) {
    const s = this.segments[seg];
    if (!s?.start.parts) return null;
    let r = null;
    for (const c of this.cursors) {
      if (c.bound !== bound || c.seg !== seg || c.frame > frame || c.frame < s.start.frame) continue;
      if (!r || c.frame > r.frame) r = c;
    }
    if (!r) {
      const mine = this.cursors.filter((c) => c.bound === bound);
      // A reader replaces the least recently used one when there are READERS, or when another
      // would take the readers past a quarter of the bytes bound (a huge tree: one reader).
      const readerBytes = mine.reduce((n, c) => n + c.bytes, 0);
      const full = bound ? mine.length > 0 : mine.length >= READERS || (mine.length > 0 && readerBytes + s.start.length * MIRROR_FACTOR > this.limits.bytes / 4);
      if (full) this.#freeCursor(mine.reduce((a, b) => (a.used <= b.used ? a : b)));
      const consumer = new (this.core().SlopConsumer)({ transport: 'replay' });
      const sub = consumer.subscribe({ ...s.options, id: s.wire }, 0);
      if (s.hello) consumer.receive(s.hello, 0);
      consumer.receive(s.start.text, 0);
      consumer.drain();
      r = { seg, frame: s.start.frame, consumer, sub, bound, bytes: 0, used: 0 };
      this.#recount(r, s.start.length);
      this.cursors.push(r);
    }
    r.used = ++this.cursorUse;
    onFrame?.(r.frame, r);
    // Frames are kept in order: the first one after the consumer's is found by bisection.
    let lo = 0;
    for (let hi = this.frames.length; lo < hi;) {
      const mid = (lo + hi) >> 1;
      if (this.frames[mid].i <= r.frame) lo = mid + 1; else hi = mid;
    }
    for (let k = lo; k < this.frames.length; k++) {
      const f = this.frames[k];
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

  #freeCursor(c) {
    c.consumer.free();
    this.bytes -= c.bytes;
    this.cursors.splice(this.cursors.indexOf(c), 1);
  }

  #checkpoint(seg, frame) {
    const r = this.#at(seg, frame, true);
    return r ? r.consumer.checkpoint(r.sub) : null;
  }

  /** The views of the subtree at `root` in a replay consumer's state, breadth first, into `out`. */
  #subtree(r, root, out) {
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

  /** Every node view of a replay consumer's mirror. */
  #allViews(r) {
    return this.#subtree(r, '/', new Map());
  }

  /** Views of `paths` and of the whole subtrees under `roots`, in a replay consumer's state. */
  #someViews(r, paths, roots) {
    const out = new Map();
    for (const p of paths) {
      const v = out.has(p) ? null : nodeView(r.consumer, r.sub, p);
      if (v) out.set(p, v);
    }
    for (const root of roots) this.#subtree(r, root, out);
    return out;
  }

  /**
   * The two states of steps a and b (either order), read on the paths that differ between them:
   * {before: Map, after: Map, full, paths, roots} (before = a, after = b). full: every node was
   * read (a snapshot lies between them, another segment, or a patch too big to list).
   */
  #compare(a, b) {
    const ra = this.#record(a);
    const rb = this.#record(b);
    const { full, paths, roots } = this.#between(a, b);
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    const m = full ? null : this.pairs.find((x) => x.lo === lo && x.hi === hi);
    if (m) this.#keepPair(m);
    if (m) return a <= b ? { before: m.older, after: m.newer, full, paths, roots } : { before: m.newer, after: m.older, full, paths, roots };
    const read = (rec) => {
      const r = this.#at(rec.seg, rec.frame);
      if (!r) return new Map();
      return full ? this.#allViews(r) : this.#someViews(r, paths, roots);
    };
    // The older state first: the replay only moves forward.
    let before, after;
    if (a <= b) { before = read(ra); after = read(rb); } else { after = read(rb); before = read(ra); }
    if (!full) this.#keepPair(a <= b ? { lo, hi, older: before, newer: after } : { lo, hi, older: after, newer: before });
    return { before, after, full, paths, roots };
  }

  /** What lies between steps a and b: {full, paths, roots} (see #compare). */
  #between(a, b) {
    const ra = this.#record(a);
    const rb = this.#record(b);
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    const between = this.steps.filter((s) => s.step > lo && s.step <= hi).map((s) => this.records.get(s.step));
    const full = ra.seg !== rb.seg || between.some((x) => x.full);
    const paths = new Set();
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

  /** Moves the reader nearest TRAIL steps before the newest (the live diff's trailing one) there. */
  #trail() {
    const st = this.steps.at(-1 - TRAIL);
    const rec = st && this.records.get(st.step);
    if (!rec || rec.seg !== this.records.get(this.steps.at(-1).step).seg) return;
    const s = this.segments[rec.seg];
    // Only a reader already behind it moves: none is made for this.
    if (s && this.cursors.some((c) => !c.bound && c.seg === rec.seg && c.frame <= rec.frame && c.frame >= s.start.frame)) this.#at(rec.seg, rec.frame);
  }

  /** Keeps a pair first (most recently used). */
  #keepPair(pair) {
    pair.bytes ??= (pair.older.size + pair.newer.size) * VIEW_BYTES;
    this.#keepPairs([pair, ...this.pairs.filter((x) => x !== pair && (x.lo !== pair.lo || x.hi !== pair.hi))]);
  }

  #keepPairs(list) {
    const kept = list.slice(0, PAIRS);
    this.bytes += kept.reduce((n, x) => n + x.bytes, 0) - this.pairs.reduce((n, x) => n + x.bytes, 0);
    this.pairs = kept;
  }

  /**
   * Moves a reader to step `to` (which the caller reads next) and, on its way, reads the pairs of
   * steps up to PAIRS_BEHIND before it that it passes: the diff a panel asks for with a step's
   * state (against the step before), and the states and diffs of stepping back from it, need no
   * replay then. No frame is replayed for them that the read of `to` did not need.
   */
  #readBehind(to) {
    const i = this.steps.findIndex((s) => s.step === to);
    const rt = this.records.get(to);
    if (i < 1 || !this.segments[rt.seg]) return;
    // Stepping back over kept pairs needs no reader (the diff at `to` is kept).
    if (this.pairs.some((x) => x.lo === this.steps[i - 1].step && x.hi === to)) return;
    // The pairs not kept yet: {lo, hi, lf, hf (their frames), paths, roots, older, newer}.
    const wanted = [];
    for (let j = Math.max(1, i - PAIRS_BEHIND + 1); j <= i; j++) {
      const lo = this.steps[j - 1].step;
      const hi = this.steps[j].step;
      const rl = this.records.get(lo);
      const rh = this.records.get(hi);
      if (rl.seg !== rt.seg || rh.seg !== rt.seg || this.pairs.some((x) => x.lo === lo && x.hi === hi)) continue;
      const b = this.#between(lo, hi);
      if (!b.full) wanted.push({ lo, hi, lf: rl.frame, hf: rh.frame, ...b, older: null, newer: null });
    }
    if (wanted.length === 0) return;
    this.#at(rt.seg, rt.frame, false, (frame, r) => {
      for (const w of wanted) {
        if (w.lf === frame) w.older = this.#someViews(r, w.paths, w.roots);
        if (w.hf === frame) w.newer = this.#someViews(r, w.paths, w.roots);
      }
    });
    // Oldest first, so that the newest pairs end up first.
    for (const w of wanted) if (w.older && w.newer) this.#keepPair({ lo: w.lo, hi: w.hi, older: w.older, newer: w.newer });
  }

  /**
   * The state at step `to`, for a panel that shows the state at step `have` (or nothing): every
   * view (full), or only the views that differ and the paths gone.
   * @returns {{step, version, full: boolean, views: object[], removed: string[], replaced: string[]}}
   */
  stateAt(to, have = null) {
    const rec = this.#record(to);
    const step = this.steps.find((s) => s.step === to);
    // Going forward from `have`, the reader must stop at `have` first (and the pair read is the
    // diff's when `have` is the step before).
    if (have === null || have > to) this.#readBehind(to);
    if (have === null || !this.records.has(have)) {
      const r = this.#at(rec.seg, rec.frame);
      return { step: to, version: step.version, full: true, views: r ? [...this.#allViews(r).values()] : [], removed: [], replaced: [] };
    }
    const c = this.#compare(have, to);
    if (c.full) return { step: to, version: step.version, full: true, views: [...c.after.values()], removed: [], replaced: [] };
    const removed = [...c.before.keys()].filter((p) => !c.after.has(p));
    // Subtrees that came or went are replaced whole: the panel drops what it had under them.
    const replaced = [...c.roots].filter((p) => c.after.has(p));
    return { step: to, version: step.version, full: false, views: [...c.after.values()], removed, replaced };
  }

  /** What changed from step a to step b: {from, to, added, removed, changed, boundaries}. */
  diff(a, b) {
    const c = this.#compare(a, b);
    if (Math.max(a, b) === this.steps.at(-1)?.step) this.#trail();
    const d = diffStates(c.before, c.after);
    for (const ch of d.changed) addFieldTexts(ch);
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    const from = this.steps.find((s) => s.step === a);
    const to = this.steps.find((s) => s.step === b);
    const boundaries = this.steps.filter((s) => s.step > lo && s.step <= hi && s.boundary);
    return { from, to, ...d, boundaries };
  }

  // ------------------------------------------------------------------------- recordings

  /** The timeline as a recording: provider, source, segments, frames and steps with their times. */
  recording() {
    const used = new Set(this.steps.map((s) => this.records.get(s.step).seg));
    if ([...used].some((i) => i >= 0 && !this.segments[i]?.start.parts)) throw this.#notKept();
    return {
      format: RECORDING_FORMAT,
      formatVersion: 1,
      exportedAt: new Date().toISOString(),
      provider: this.provider,
      source: { pageUrl: this.label.pageUrl ?? null, transport: this.label.transport ?? null },
      limits: this.limits,
      dropped: this.dropped,
      segments: this.segments.map((s, i) => (s && used.has(i)
        ? { wire: s.wire, options: s.options, hello: s.hello, start: { frame: s.start.frame, text: s.start.text, ...(s.start.checkpoint ? { checkpoint: true } : {}) } }
        : null)),
      frames: this.frames.map((f) => ({ i: f.i, t: f.t, text: f.text })),
      steps: this.steps.map((s) => ({ ...s, record: packRecord(this.records.get(s.step)) })),
    };
  }

  /**
   * A timeline from a recording (read-only). The recording is checked for shape here, then every
   * segment is played back through the core: a recording the core cannot read is refused whole.
   * Throws an Error with a message for the user.
   */
  static fromRecording(doc, core) {
    const bad = (why) => { throw Object.assign(new Error(`Not a SLOP Inspector recording: ${why}`), { code: 'invalid_tree' }); };
    if (!doc || typeof doc !== 'object' || doc.format !== RECORDING_FORMAT) bad('no "format": "slop-inspector-recording"');
    if (doc.formatVersion !== 1) bad(`format version ${JSON.stringify(doc.formatVersion)} is not 1`);
    if (!Array.isArray(doc.frames) || !Array.isArray(doc.steps) || !Array.isArray(doc.segments)) bad('"frames", "steps" and "segments" must be arrays');
    if (doc.steps.length > TIMELINE_LIMITS.steps * 2) bad(`more than ${TIMELINE_LIMITS.steps * 2} steps`);
    const tl = new Timeline({ core, label: { pageUrl: typeof doc.source?.pageUrl === 'string' ? doc.source.pageUrl : null, transport: null } });
    tl.readOnly = true;
    tl.provider = doc.provider && typeof doc.provider === 'object' ? { id: String(doc.provider.id ?? ''), name: String(doc.provider.name ?? '') } : null;
    let last = -1;
    for (const f of doc.frames) {
      if (!f || !Number.isInteger(f.i) || f.i <= last || typeof f.text !== 'string' || typeof f.t !== 'number') bad('every frame needs an increasing integer "i", a number "t" and a string "text"');
      last = f.i;
      tl.frames.push({ i: f.i, t: f.t, text: f.text });
      tl.bytes += f.text.length;
    }
    tl.nextFrame = last + 1;
    tl.segments = doc.segments.map((s) => {
      if (s === null) return null;
      if (!s || typeof s.wire !== 'string' || typeof s.hello !== 'string' || typeof s.start?.text !== 'string' || !Number.isInteger(s.start?.frame) || (s.options && typeof s.options !== 'object')) {
        bad('a segment needs "wire", "hello", and "start" with "frame" and "text"');
      }
      // A start that is not one of the frames is a checkpoint: counted on its own.
      const checkpoint = !doc.frames.some((f) => f.i === s.start.frame && f.text === s.start.text);
      if (checkpoint) tl.bytes += s.start.text.length;
      return { wire: s.wire, options: s.options ?? {}, hello: s.hello, start: startOf(s.start.frame, [s.start.text], checkpoint) };
    });
    const KINDS = new Set(['snapshot', 'patch', 'resync', 'invoke', 'result', 'error', 'reload']);
    let prev = 0;
    for (const s of doc.steps) {
      if (!s || !Number.isInteger(s.step) || s.step <= prev || !KINDS.has(s.kind) || typeof s.t !== 'number') bad('every step needs an increasing integer "step", a known "kind" and a number "t"');
      prev = s.step;
      const rec = unpackRecord(s.record);
      if (rec.seg >= tl.segments.length || (rec.seg >= 0 && !tl.segments[rec.seg])) bad(`step ${s.step} names a segment the recording does not hold`);
      const { record: _r, ...step } = s;
      step.paths = Array.isArray(step.paths) ? step.paths.filter((p) => typeof p === 'string').slice(0, PATHS_LISTED) : [];
      tl.steps.push(step);
      rec.bytes = recordBytes(rec);
      tl.bytes += rec.bytes;
      tl.records.set(step.step, rec);
    }
    tl.nextStep = prev + 1;
    // Played back once through the core: its verdict on every segment's start.
    tl.segments.forEach((s, i) => {
      if (!s) return;
      const c = new (core().SlopConsumer)({ transport: 'replay' });
      try {
        const sub = c.subscribe({ ...s.options, id: s.wire }, 0);
        c.receive(s.hello, 0);
        c.receive(s.start.text, 0);
        const errors = c.drain().filter((o) => o.kind === 'event' && o.event.event === CoreEventName.PROTOCOL_ERROR);
        const st = c.status().subscriptions.find((x) => x.sub === sub);
        if (!st || st.state !== 'live') bad(`segment ${i + 1}: ${errors[0]?.event.message ?? st?.reason?.message ?? 'its snapshot was not taken'}`);
      } catch (e) {
        if (e.code === 'invalid_tree') throw e;
        bad(`segment ${i + 1}: ${e.message}`);
      } finally {
        c.free();
      }
    });
    return tl;
  }
}

export const RECORDING_FORMAT = 'slop-inspector-recording';

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
/** @returns {Start} */
function startOf(frame, parts, checkpoint) {
  return {
    frame, parts, checkpoint, length: parts ? parts.reduce((n, p) => n + p.length, 0) : 0,
    get text() { return parts === null ? null : parts.length === 1 ? parts[0] : parts.join(''); },
  };
}

function packRecord(rec) {
  return {
    seg: rec.seg, frame: rec.frame, full: !!rec.full,
    touched: rec.touched ? [...rec.touched] : [], added: rec.added ? [...rec.added] : [], removed: rec.removed ? [...rec.removed] : [],
  };
}

function unpackRecord(r) {
  const strings = (a) => new Set(Array.isArray(a) ? a.filter((p) => typeof p === 'string' && p.startsWith('/')) : []);
  if (!r || !Number.isInteger(r.seg) || !Number.isInteger(r.frame)) {
    throw Object.assign(new Error('Not a SLOP Inspector recording: a step without its "record" (seg, frame)'), { code: 'invalid_tree' });
  }
  return { seg: r.seg, frame: r.frame, full: r.full === true, touched: strings(r.touched), added: strings(r.added), removed: strings(r.removed) };
}

/** What a step and its record count in the bytes bound. */
function recordBytes(rec) {
  let n = STEP_BYTES;
  for (const set of [rec.touched, rec.added, rec.removed]) for (const p of set ?? []) n += p.length;
  return n;
}
