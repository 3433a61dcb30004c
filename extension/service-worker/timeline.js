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
//
// Steps a panel views or pins are held (hold): the bound keeps them as islands with their states
// (timeline-islands.js), listed in their place, counted in the bytes. Recording can be paused:
// no frame is kept and no step listed; resume starts a new segment from a checkpoint of the live
// mirror (a step that says so), so every state shown after it is the true one.
//
// The parts, each in its module: the bounds (timeline-limits.js), the replay consumers
// (timeline-replay.js), the bound's drops and checkpoints (timeline-checkpoints.js), and the states
// and diffs panels ask for (timeline-queries.js). This file records the frames and the steps, and
// writes and reads recordings.

import { TIMELINE_LIMITS, STEP_BYTES, PATHS_LISTED } from './timeline-limits.js';
import { freeCursor, startOf } from './timeline-replay.js';
import { fitsStates, dropStates, dropFrames, keepBound } from './timeline-checkpoints.js';
import { notKept, stateAtStep, diffSteps } from './timeline-queries.js';
import { matchingSteps, isHeld } from './timeline-islands.js';
import { CoreEventName, SubscriptionState } from '../../js-glue/core-contract.js';
import { stringifyExact } from '../../js-glue/exact-json.js';

export { TIMELINE_LIMITS } from './timeline-limits.js';

/** While paused, the count of patches not recorded is told to the panels at most this often. */
const PAUSED_TELL_MS = 250;


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
 * @property {string} [paramsText]  invoke: its params as the JSON text sent (absent: none, or a recording made before they were kept)
 * @property {string} [status]  result: ok | error | accepted
 * @property {string} [message] error, resync: why; a snapshot that resumed the recording: so
 * @property {{notRecorded: number}} [resumed]  the snapshot step that resumed a paused recording
 * @property {boolean} [kept]   an island (timeline-islands.js): kept past the bound because a panel holds it
 * @property {number|null} [before]  an island: the step its diff is against (null: none kept)
 */
/**
 * @typedef {object} StepRecord   a step's private part (Timeline.records)
 * @property {number} seg @property {number} frame   its segment (-1: none yet) and the frame it is the state after
 * @property {boolean} [full]   a whole new state (a snapshot, a resync, a patch too big to list)
 * @property {Set<string>|string[]} [touched]   paths touched ([] for a snapshot's); added, removed: subtrees
 * @property {Set<string>} [added] @property {Set<string>} [removed]
 * @property {number} [paramsBytes] @property {number} [bytes]   an invoke's params text; counted in the bound
 * @property {boolean} [noState]   recorded without states
 */
/** @typedef {StepRecord & {touched: Set<string>, added: Set<string>, removed: Set<string>, bytes: number}} PatchRecord */
/** @typedef {{lo: number, hi: number, older: Views, newer: Views, bytes?: number}} Pair  two steps compared (Timeline.pairs) */
/** @typedef {Map<string, import('../shared/messages.js').NodeView>} Views  path → node view */
/**
 * @typedef {{seg: number, frame: number, step: number, parts: string[]|null, cursor: import('./timeline-replay.js').Cursor,
 *   length: number}} Job   a checkpoint being written ahead; cursor and length come with parts
 */
/** @typedef {{seg: number, frame: number, step: number, parts: string[], length: number}} Ready  a checkpoint written ahead */
/** @typedef {{kind: string, previousVersion: number|null, previous?: any, provider?: any}} Boundary  Step.boundary */

export class Timeline {
  /**
   * @param {{core: () => import('../../js-glue/slop-core.js').SlopCore, label: {pageUrl: string|null, transport: string|null|undefined},
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
    /** Private per step: segment, frame index, touched paths. @type {Map<number, StepRecord>} */
    this.records = new Map();
    this.nextStep = firstStep;
    this.bytes = 0;
    this.dropped = 0;         // steps dropped at the bounds
    /** @type {(import('./timeline-replay.js').Segment|null)[]} null: one no step refers to any more */
    this.segments = [];
    /** @type {string|null} the last hello frame's text */
    this.hello = null;
    /** @type {{id: string, name: string}|null} from the last hello */
    this.provider = null;
    this.persist = false;
    /** @type {Set<(steps: Step[], reset: boolean, update: boolean) => void>} */
    this.listeners = new Set();
    /** @type {Boundary|null|undefined} what the next snapshot step says came before it */
    this.pendingBoundary;
    /** @type {string|null|undefined} a resync's reason, until its snapshot */
    this.resyncing;
    /**
     * Replay consumers {seg, frame, consumer, sub, bytes, bound, used}: the one that prints the
     * checkpoints at the bound (bound: it stays where the last checkpoint left it, so that the next
     * one only moves it forward), and up to READERS that read states for panels, made only when a
     * panel asks. A reader's mirror counts against the bytes bound (as its segment start's length).
     * @type {import('./timeline-replay.js').Cursor[]}
     */
    this.cursors = [];
    this.cursorUse = 0;
    /**
     * Up to PAIRS pairs of steps compared (not whole), newest use first: {lo, hi, older, newer,
     * bytes}, the views of both on the paths that differ. A step's click asks for its state against
     * the panel's and for its diff with the step before; stepping back asks for the pair before.
     * Counted in bytes (VIEW_BYTES a view).
     * @type {Pair[]}
     */
    this.pairs = [];
    /** @type {ReturnType<typeof setTimeout>|0} */
    this.persistTimer = 0;
    /** @type {string|null} */
    this.persistError = null;
    /** @type {string|null} null while states are kept; else why not (a tree too big for the bound). */
    this.noStates = null;
    /** @type {Job|null} The checkpoint being written ahead, in slices, or null. */
    this.job = null;
    /** @type {Ready|null} A checkpoint written ahead, for the next drop at the bound, or null. */
    this.ready = null;
    /** Checkpoints that had to be written whole inside a frame's task (the bound came first). */
    this.blocking = 0;
    /** Checkpoints written ahead in slices. */
    this.sliced = 0;
    /** What each panel port views and pins: holder → step numbers (Timeline.hold). @type {Map<string, Set<number>>} */
    this.holds = new Map();
    /** Held steps kept past the bound, oldest first. @type {import('./timeline-islands.js').Island[]} */
    this.islands = [];
    /** @type {{since: number, patches: number, told: number}|null} While paused (patches not recorded); null while recording. */
    this.paused = null;
    /** @type {string|null} The last frame's text, kept or not (a hello while paused). */
    this.lastText = null;
  }

  // -------------------------------------------------------------------------- recording

  /** A provider frame, before the core reads it. @param {string} text @param {number} [t] */
  input(text, t = Date.now()) {
    this.lastText = text;
    // Paused: the frame is not kept (resume starts again from a checkpoint of the live mirror).
    if (this.paused) {
      this.nextFrame++;
      return;
    }
    // Without states only the newest frame is kept (a snapshot's step reads it, then it goes).
    if (this.noStates) dropFrames(this);
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

  /** The hello frame of a connection is the last frame input (remembered for the segments). @param {any} provider the core's */
  helloSeen(provider) {
    if (this.lastText !== null) this.hello = this.lastText;
    this.provider = provider ? { id: String(provider.id ?? ''), name: String(provider.name ?? '') } : null;
  }

  /**
   * A core event of the connection (connections.js: coreEvent). main: the main subscription's
   * handle; status: () => the core's status(), read only on a snapshot (for the wire id).
   * @param {import('../../js-glue/core-contract.js').DrainedEvent} ev @param {string|null} main
   * @param {() => import('../shared/messages.js').ConsumerStatus|null|undefined} status
   */
  event(ev, main, status) {
    const frame = this.nextFrame - 1;
    const seg = this.segments.length - 1;
    if (this.paused) {
      this.#pausedEvent(ev, main);
      return;
    }
    switch (ev.event) {
      case CoreEventName.SNAPSHOT: {
        if (ev.sub !== main) return;
        const st = status()?.subscriptions?.find((s) => s.sub === main);
        const f = this.frames.at(-1);
        if (!st?.wire || !f) return;
        // Each snapshot decides anew: a smaller tree after a reload keeps states again.
        if (fitsStates(this, f.text.length)) this.noStates = null;
        else dropStates(this, f.text.length);
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
        const rec = /** @type {PatchRecord} a patch step's, read only then */ (last && this.records.get(last.step));
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
          this.emit([last], false, true);
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

  /** While paused: no step; what the resume step must say is remembered. @param {import('../../js-glue/core-contract.js').DrainedEvent} ev @param {string|null} main */
  #pausedEvent(ev, main) {
    const paused = /** @type {NonNullable<Timeline['paused']>} */ (this.paused);
    if (ev.event === CoreEventName.PATCH && ev.sub === main) {
      paused.patches++;
      // The panels' "N patches not recorded", a few times a second (no step carries it).
      const now = Date.now();
      if (now - paused.told >= PAUSED_TELL_MS) {
        paused.told = now;
        this.emit([], false);
      }
    } else if (ev.event === CoreEventName.SNAPSHOT && ev.sub === main && ev.restarted) {
      this.pendingBoundary = { kind: 'restart', previousVersion: ev.previous_version ?? null };
    } else if (ev.event === CoreEventName.PROVIDER_CHANGED) {
      this.pendingBoundary = { kind: 'provider', previousVersion: this.steps.at(-1)?.version ?? null, previous: ev.previous ?? null, provider: ev.provider ?? null };
    }
  }

  /** Pauses recording: frames are not kept and no step is listed until resume(). */
  pause() {
    if (this.paused) return;
    this.paused = { since: Date.now(), patches: 0, told: 0 };
    this.resyncing = null;
    this.emit([], false);
  }

  /**
   * Resumes recording from the live mirror: `live()` gives {text: the core's checkpoint of the
   * main subscription, wire, options, version, nodes} (timelines.js reads the connection's
   * consumer), or null when there is no state to start from (then it stays paused: throws).
   * The new segment starts at that checkpoint: the steps after it replay from there.
   * @param {() => ({text: string, wire: string, options?: object, version: number|null, nodes?: number}|null)} live
   */
  resume(live) {
    if (!this.paused) return;
    const at = live();
    if (!at?.text || !at.wire) throw Object.assign(new Error('No live state to resume from (the provider is not connected and live): still paused'), { code: 'not_live' });
    const notRecorded = this.paused.patches;
    this.paused = null;
    if (fitsStates(this, at.text.length)) this.noStates = null;
    else dropStates(this, at.text.length);
    const frame = this.nextFrame - 1;
    const start = startOf(frame, this.noStates ? null : [at.text], true);
    if (start.parts) this.bytes += start.length;
    this.segments.push({ wire: at.wire, options: at.options ?? {}, hello: this.hello ?? '', start });
    const boundary = this.pendingBoundary ?? null;
    this.pendingBoundary = null;
    this.#add({ kind: 'snapshot', version: at.version ?? null, ops: at.nodes ?? 0, boundary, resumed: { notRecorded },
      message: `recording resumed; ${notRecorded.toLocaleString('en-US')} patch${notRecorded === 1 ? '' : 'es'} not recorded` },
    { seg: this.segments.length - 1, frame, full: true, touched: [] });
  }

  /**
   * What a panel port views and pins (`holder`: the port's): those steps are not dropped at the
   * bound (kept as islands). An empty list releases them (they go at the next drop).
   * @param {string} holder @param {number[]} steps
   */
  hold(holder, steps) {
    const set = new Set(steps.filter((x) => Number.isInteger(x)));
    if (set.size) this.holds.set(holder, set);
    else this.holds.delete(holder);
  }

  /** Whether a panel holds step `step`. @param {number} step */
  held(step) {
    return isHeld(this, step);
  }

  /** The steps a panel lists: the islands (held steps kept past the bound), then the kept ones. */
  listed() {
    return this.islands.length ? [...this.islands.map((x) => x.step), ...this.steps] : this.steps;
  }

  /** Step numbers of the listed steps that match a filter (timeline-islands.js matchingSteps). @param {{path?: string|null, kinds?: string[]|null}} filter */
  matching(filter) {
    return matchingSteps(this, filter);
  }

  /**
   * An invoke the extension sent (panel, test library, desktop bridge). Its params are kept as the
   * JSON text sent (exact digits), for "Copy as test" (shared/test-writer.js).
   * @param {string} path @param {string} action @param {unknown} [params]
   */
  invoked(path, action, params = undefined) {
    if (this.paused) return;
    const paramsText = params === undefined || params === null ? undefined : stringifyExact(params);
    this.#add({ kind: 'invoke', version: this.#version(), path, action, ...(paramsText === undefined ? {} : { paramsText }) },
      { seg: this.segments.length - 1, frame: this.nextFrame - 1, paramsBytes: paramsText?.length ?? 0 });
  }

  /** The page was loaded again and the provider came back under the same key. @param {string|null} pageUrl */
  reloaded(pageUrl) {
    this.#boundaryStep('reload', pageUrl);
  }

  /** The extension's service worker started again and read this (persisted) history back. @param {string|null} pageUrl */
  workerRestarted(pageUrl) {
    this.#boundaryStep('worker', pageUrl);
  }

  /** @param {'reload'|'worker'} kind @param {string|null} pageUrl */
  #boundaryStep(kind, pageUrl) {
    this.label.pageUrl = pageUrl;
    this.pendingBoundary = { kind, previousVersion: this.#version() };
    if (this.paused) return; // the resume step carries the boundary
    this.#add({ kind: 'reload', version: this.#version(), message: kind === 'worker' ? 'the extension started again' : pageUrl ?? '' },
      { seg: this.segments.length - 1, frame: this.nextFrame - 1 });
  }

  #version() {
    return this.steps.at(-1)?.version ?? null;
  }

  /** @param {Partial<Step> & Pick<Step, 'kind'|'version'>} fields @param {StepRecord} rec */
  #add(fields, rec) {
    /** @type {Step} */
    const step = { step: this.nextStep++, t: Date.now(), ops: 0, paths: [], pathCount: 0, boundary: null, ...fields };
    // A snapshot's record has no touched paths (its touched is []): its count stays 0.
    if (step.paths.length === 0 && rec.touched instanceof Set) step.pathCount = rec.touched.size;
    this.steps.push(step);
    rec.bytes = recordBytes(rec);
    this.bytes += rec.bytes;
    this.records.set(step.step, rec);
    if (this.noStates) {
      rec.noState = true;
      dropFrames(this);
    }
    keepBound(this);
    this.emit([step], false);
  }

  /** Tells the listeners of new or changed steps (a reset: the list starts again). @param {Step[]} steps @param {boolean} reset @param {boolean} [update] */
  emit(steps, reset, update = false) {
    for (const fn of this.listeners) fn(steps, reset, update);
  }

  /**
   * New bounds (the user's setting in Options): a lower one drops the oldest steps now. States
   * dropped for a bound that was too small come back with the next snapshot.
   * @param {{steps: number, bytes: number}} limits
   */
  setLimits(limits) {
    if (limits.steps === this.limits.steps && limits.bytes === this.limits.bytes) return;
    this.limits = limits;
    if (this.ready) { this.bytes -= this.ready.length; this.ready = null; }
    this.job = null;
    const before = this.steps.length;
    keepBound(this);
    if (this.steps.length === before) this.emit([], false); // the strip shows the new bound
  }

  /** Clears everything (a reload without Persist). */
  clear() {
    this.frames = [];
    this.steps = [];
    this.records.clear();
    this.segments = [];
    this.bytes = 0;
    this.dropped = 0;
    for (const c of [...this.cursors]) freeCursor(this, c);
    this.bytes = 0;
    this.pairs = [];
    this.job = null;
    this.ready = null;
    this.noStates = null;
    this.islands = [];
    this.emit([], true);
  }

  dispose() {
    this.job = null;
    for (const c of [...this.cursors]) freeCursor(this, c);
    this.listeners.clear();
  }

  // --------------------------------------------------------------------------- reading

  /** What the panel shows of the bounds. */
  info() {
    return {
      steps: this.steps.length, bytes: this.bytes, dropped: this.dropped, limits: this.limits, persist: this.persist, provider: this.provider,
      persistError: this.persistError ?? null, noStates: this.noStates, checkpoints: { sliced: this.sliced, blocking: this.blocking },
      kept: this.islands.length, keptBytes: this.islands.reduce((n, x) => n + x.bytes, 0),
      paused: this.paused ? { since: this.paused.since, patches: this.paused.patches } : null,
    };
  }

  // ------------------------------------------------------------------------- recordings

  /** The state at step `to` (see timeline-queries.js stateAtStep). @param {number} to @param {number|null} [have] */
  stateAt(to, have = null) {
    return stateAtStep(this, to, have);
  }

  /** What changed between steps a and b (see timeline-queries.js diffSteps). @param {number} a @param {number} b */
  diff(a, b) {
    return diffSteps(this, a, b);
  }

  /** The timeline as a recording: provider, source, segments, frames and steps with their times. */
  recording() {
    const used = new Set(this.steps.map((s) => /** @type {StepRecord} */ (this.records.get(s.step)).seg));
    if ([...used].some((i) => i >= 0 && !this.segments[i]?.start.parts)) throw notKept(this);
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
      steps: this.steps.map((s) => ({ ...s, record: packRecord(/** @type {StepRecord} */ (this.records.get(s.step))) })),
    };
  }

  /**
   * A timeline from a recording (read-only). The recording is checked for shape here, then every
   * segment is played back through the core: a recording the core cannot read is refused whole.
   * Throws an Error with a message for the user.
   * @param {any} doc the file's JSON, unchecked @param {() => import('../../js-glue/slop-core.js').SlopCore} core
   */
  static fromRecording(doc, core) {
    /** @type {(why: string) => never} */
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
    tl.segments = doc.segments.map((/** @type {any} */ s) => {
      if (s === null) return null;
      if (!s || typeof s.wire !== 'string' || typeof s.hello !== 'string' || typeof s.start?.text !== 'string' || !Number.isInteger(s.start?.frame) || (s.options && typeof s.options !== 'object')) {
        bad('a segment needs "wire", "hello", and "start" with "frame" and "text"');
      }
      // A start that is not one of the frames is a checkpoint: counted on its own.
      const checkpoint = !doc.frames.some((/** @type {any} */ f) => f.i === s.start.frame && f.text === s.start.text);
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
      step.paths = Array.isArray(step.paths) ? step.paths.filter((/** @type {unknown} */ p) => typeof p === 'string').slice(0, PATHS_LISTED) : [];
      if (step.paramsText !== undefined && typeof step.paramsText !== 'string') delete step.paramsText; // older files have none
      rec.paramsBytes = step.paramsText?.length ?? 0;
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
        c.receive(/** @type {string} read from the file */ (s.start.text), 0);
        const errors = /** @type {{event: {message?: string}}[]} */ (c.drain().filter((o) => o.kind === 'event' && o.event.event === CoreEventName.PROTOCOL_ERROR));
        const st = /** @type {import('../shared/messages.js').ConsumerStatus} */ (c.status()).subscriptions.find((x) => x.sub === sub);
        if (!st || st.state !== SubscriptionState.LIVE) bad(`segment ${i + 1}: ${errors[0]?.event.message ?? st?.reason?.message ?? 'its snapshot was not taken'}`);
      } catch (e) {
        if (/** @type {{code?: string}} */ (e).code === 'invalid_tree') throw e;
        bad(`segment ${i + 1}: ${/** @type {Error} */ (e).message}`);
      } finally {
        c.free();
      }
    });
    return tl;
  }
}

export const RECORDING_FORMAT = 'slop-inspector-recording';

/** @param {StepRecord} rec */
function packRecord(rec) {
  return {
    seg: rec.seg, frame: rec.frame, full: !!rec.full,
    touched: rec.touched ? [...rec.touched] : [], added: rec.added ? [...rec.added] : [], removed: rec.removed ? [...rec.removed] : [],
  };
}

/** @param {any} r a recording's, unchecked @returns {StepRecord} */
function unpackRecord(r) {
  const strings = (/** @type {unknown} */ a) => new Set(Array.isArray(a) ? a.filter((p) => typeof p === 'string' && p.startsWith('/')) : []);
  if (!r || !Number.isInteger(r.seg) || !Number.isInteger(r.frame)) {
    throw Object.assign(new Error('Not a SLOP Inspector recording: a step without its "record" (seg, frame)'), { code: 'invalid_tree' });
  }
  return { seg: r.seg, frame: r.frame, full: r.full === true, touched: strings(r.touched), added: strings(r.added), removed: strings(r.removed) };
}

/** What a step and its record count in the bytes bound. @param {StepRecord} rec */
function recordBytes(rec) {
  let n = STEP_BYTES + (rec.paramsBytes ?? 0); // an invoke's params text (invoked)
  for (const set of [rec.touched, rec.added, rec.removed]) for (const p of set ?? []) n += p.length;
  return n;
}
