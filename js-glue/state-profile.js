// state-profile.js: what a subscription's state costs, per node and per subtree (issue 49): the
// tokens of the agent's tree text and of the tool definitions, the JSON bytes, nodes and actions,
// and the traffic (patches, ops, bytes, no-op writes) over the whole session, a sliding window or
// a time range. Shared by the Node client (client.profile, the CLI's `profile`) and the panel's
// Cost tab (in a Web Worker), so it imports nothing Node-only: the tokenizer is given.
//
// Every size and counter comes from the core's profile rows (slop_consumer_profile, its shape in
// profile-rows.js); nothing here walks or measures the state again. What the core cannot know is
// tokens: each row's text is counted once and cached per (path, depth) with the text it was
// counted for, so a sample recounts only the texts a patch changed (the core sends null for the
// others). Counting is in slices (countPending) so a large tree never blocks its caller.
//
// The token rule (docs/guide/profile.md): o200k's pre-tokenization never joins pieces across a
// "\n" that ends a line, so the tree text's tokens are the sum of each row's text + "\n" (the last
// row without its "\n"): a subtree's tokens are its rows' summed up the tree by parent index.

import { stringifyExact } from './exact-json.js';
import { R, textSizes, splitForCounting, anyNonZero } from './profile-rows.js';
import { Aggregate, buildReport, buildHierarchy } from './profile-measures.js';

/** The samples kept (one a second: an hour). */
export const MAX_SAMPLES = 3600;

/**
 * @typedef {import('./profile-rows.js').ProfileRow} ProfileRow
 * @typedef {import('./profile-rows.js').CoreProfile} CoreProfile
 * @typedef {import('./profile-rows.js').ToolListLike} ToolListLike
 * @typedef {import('./profile-rows.js').TextEntry} TextEntry
 * @typedef {import('./profile-measures.js').Measure} Measure
 * @typedef {import('./profile-measures.js').ProfileReport} ProfileReport
 * @typedef {import('./profile-measures.js').HNode} HNode
 * @typedef {import('./profile-measures.js').Sample} Sample
 */

/**
 * @typedef {object} StateProfileOptions
 * @property {(text: string) => number} countTokens   the tokenizer (o200k_base: js-glue/node/tokenizer.js)
 * @property {string} [tokenizer]      its name and version, as reports say it
 * @property {number} [maxStateBytes]  the agent view's state budget (AGENT_DEFAULTS.maxStateBytes)
 * @property {number} [maxTools]       the tools an agent is offered (AGENT_DEFAULTS.maxTools)
 * @property {number} [windowSeconds]  the sliding window of the traffic measures (default 10)
 */

/**
 * A tool definition to count: its text and the node it acts on.
 * @typedef {{path: string, action: string, text: string, tokens: number}} ToolText
 */

/** One thing to count: a row's line (text + "\n"), its bare text (the last row), or a tool's text. */
/** @typedef {{entry: TextEntry, bare: boolean, pieces: string[]|null, at: number, sum: number}|{tool: ToolText, text: string}} Job */

/**
 * How many of a subscription's nodes the agent's state budget leaves out (StateProfile.ingest's
 * leftOut), as the core's state tail of this provider alone says under maxStateBytes; null when
 * sub is not the primary subscription (the state tail shows that one only) or nothing is shown.
 * @param {{stateTail: (consumers: any[], generatedAt: string, maxBytes: number) => ({nodesLeftOut: number}|null)}} core
 * @param {any} consumer @param {string} sub @param {string|null} primarySub @param {number} maxStateBytes
 * @returns {number|null}
 */
export function stateLeftOut(core, consumer, sub, primarySub, maxStateBytes) {
  if (sub !== primarySub) return null;
  return core.stateTail([consumer], new Date().toISOString(), maxStateBytes)?.nodesLeftOut ?? null;
}

export class StateProfile {
  /** @param {StateProfileOptions} o */
  constructor(o) {
    if (!o || typeof o.countTokens !== 'function') throw new TypeError('StateProfile: countTokens (text) => number is required');
    this.countTokens = o.countTokens;
    this.tokenizer = o.tokenizer ?? 'unnamed tokenizer';
    this.maxStateBytes = o.maxStateBytes ?? 64 * 1024;
    this.maxTools = o.maxTools ?? 128;
    this.windowSeconds = o.windowSeconds ?? 10;
  }

  /** @type {string} the subscription's handle */ sub = '';
  /** @type {number} the consumer's change counter at the last sample */ serial = 0;
  /** @type {number} nodes in the mirror */ nodeCount = 0;
  /** false when the core ran out of memory for a traffic counter (counters_complete) */ countersComplete = true;
  /** @type {ProfileRow[]} the last sample's rows */ rows = [];
  /** @type {TextEntry[]} the text entry of each row */ entries = [];
  /** @type {Map<string, TextEntry>} (depth, path) -> the text last counted there */ cache = new Map();
  /** @type {Map<string, number>} path -> row index, in the last sample */ index = new Map();
  /** @type {Sample[]} */ samples = [];
  /** @type {Map<string, number>} a path -> its number in the samples */ pathIds = new Map();
  /** @type {Job[]} what is left to count, from queueHead */ queue = [];
  queueHead = 0;
  /** @type {ToolText[]|null} every tool (maxTools 0) */ toolTexts = null;
  /** @type {ToolText[]|null} the tools an agent is offered */ offeredTexts = null;
  /** @type {Set<string>|null} path + "\n" + action of the tools offered */ offeredKeys = null;
  /** @type {Map<string, number>} a tool text -> its tokens */ toolCache = new Map();
  rootActions = -1;
  /** @type {number|null} nodes the state budget leaves out, as the core's state tail says */ leftOut = null;
  toolsStale = true;
  missing = false; // a row came without text and none was kept: ask again from 0
  /** @type {import('./profile-measures.js').Aggregate|null} the last measures, for aggKey's range */ agg = null;
  aggKey = '';

  /** Drops everything: a new subscription, or a new snapshot epoch. */
  reset() {
    this.sub = '';
    this.serial = 0;
    this.nodeCount = 0;
    this.countersComplete = true;
    this.rows = [];
    this.entries = [];
    this.cache = new Map();
    this.index = new Map();
    this.samples = [];
    this.pathIds = new Map();
    this.queue = [];
    this.queueHead = 0;
    this.toolTexts = null;
    this.offeredTexts = null;
    this.offeredKeys = null;
    this.toolCache = new Map();
    this.rootActions = -1;
    this.leftOut = null;
    this.toolsStale = true;
    this.missing = false;
    this.agg = null;
  }

  /** The serial to ask the core with next time (0: every text). */
  get since() { return this.missing ? 0 : this.serial; }

  /** True when the next sample should carry the tool lists (none yet, or the affordances changed). */
  get needsTools() { return this.toolsStale; }

  /** What the counting stands at: texts counted and texts to count, for the last sample. */
  get counting() {
    let total = 0, done = 0;
    for (let i = 0; i < this.entries.length; i++) {
      const e = this.entries[i];
      total++;
      if (e.line >= 0) done++;
    }
    const last = this.entries[this.entries.length - 1];
    if (last) { total++; if (last.bare >= 0) done++; }
    for (const list of [this.toolTexts, this.offeredTexts]) {
      for (const t of list ?? []) { total++; if (t.tokens >= 0) done++; }
    }
    return { done, total };
  }

  /**
   * One sample: the core's profile (parsed), the tool lists when it carries them, and how many
   * nodes the agent's state budget leaves out: the core's state tail of this provider under
   * maxStateBytes (SlopCore.stateTail(...).nodesLeftOut), which cuts in pre-order, so the rows
   * past the first (nodes - leftOut) are the ones cut. null: not the agent's subscription (the
   * state tail shows the primary one), nothing cut.
   * @param {{at: number, profile: CoreProfile, tools?: ToolListLike|null, offered?: ToolListLike|null, leftOut?: number|null}} s
   */
  ingest({ at, profile, tools = null, offered = null, leftOut = null }) {
    if (!profile || !Array.isArray(profile.rows)) throw new TypeError('StateProfile.ingest: profile must be the core\'s profile (its rows)');
    if (this.sub && profile.sub !== this.sub) this.reset();
    const prevRows = this.rows, prevIndex = this.index;
    const rows = profile.rows;
    const oldCache = this.cache;
    /** @type {Map<string, TextEntry>} */
    const cache = new Map();
    /** @type {Map<string, number>} */
    const index = new Map();
    /** @type {TextEntry[]} */
    const entries = new Array(rows.length);
    let missing = false, affordancesChanged = false;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const path = row[R.path], depth = row[R.depth], text = row[R.text];
      const key = `${depth} ${path}`;
      let e = oldCache.get(key);
      if (text !== null && (!e || e.text !== text)) {
        if (!affordancesChanged && toolsMayDiffer(row, e, prevIndex, prevRows)) affordancesChanged = true;
        e = { key, text, ...textSizes(text), line: -1, bare: -1 };
        this.#enqueue(e, false);
      } else if (!e) {
        // No text and none kept (a cache dropped, a depth the row never had): counted as empty,
        // and the next sample asks for every text (since = 0).
        e = { key, text: '', chars: 0, utf8: 0, line: -1, bare: -1, unknown: true };
        missing = true;
      }
      cache.set(key, e);
      entries[i] = e;
      index.set(path, i);
    }
    const last = entries[entries.length - 1];
    if (last && last.bare < 0 && !last.unknown) this.#enqueue(last, true);
    this.sub = profile.sub;
    this.serial = profile.serial;
    this.nodeCount = profile.nodes;
    this.countersComplete = profile.counters_complete !== false;
    this.rows = rows;
    this.leftOut = leftOut;
    this.entries = entries;
    this.cache = cache;
    this.index = index;
    this.missing = missing;
    const rootActions = rows.length ? rows[0][R.actions] : 0;
    if (rootActions !== this.rootActions) affordancesChanged = true;
    this.rootActions = rootActions;
    if (tools) {
      this.#setTools(tools, offered ?? tools);
      this.toolsStale = false;
    } else if (affordancesChanged) this.toolsStale = true;
    this.#addSample(at, rows, prevRows, prevIndex);
    this.agg = null;
  }

  /** @param {TextEntry} entry @param {boolean} bare */
  #enqueue(entry, bare) {
    const text = bare ? entry.text : `${entry.text}\n`;
    this.queue.push({ entry, bare, pieces: splitForCounting(text), at: 0, sum: 0 });
  }

  /**
   * The tool texts, counted from the cache when a text was counted before.
   * @param {ToolListLike} all @param {ToolListLike} offered
   */
  #setTools(all, offered) {
    // The lists before these are gone: their texts not yet counted need not be.
    this.queue = this.queue.slice(this.queueHead).filter((job) => !('tool' in job));
    this.queueHead = 0;
    const before = this.toolCache;
    /** @type {Map<string, number>} the counts of the texts still there only */
    const cache = new Map();
    /** @param {ToolListLike} list @returns {ToolText[]} */
    const texts = (list) => (list.tools ?? []).map((t) => {
      const target = list.resolve?.[t.name] ?? { path: '', action: t.name };
      const text = stringifyExact({ name: t.name, description: t.description, parameters: t.parameters }) ?? '';
      const tokens = before.get(text) ?? -1;
      if (tokens >= 0) cache.set(text, tokens);
      const tool = { path: target.path, action: target.action, text, tokens };
      if (tokens < 0) this.queue.push({ tool, text });
      return tool;
    });
    this.toolTexts = texts(all);
    this.offeredTexts = texts(offered);
    this.toolCache = cache;
    this.offeredKeys = new Set(this.offeredTexts.map((t) => `${t.path}\n${t.action}`));
  }

  /**
   * The sample's sparse deltas: the rows whose self or sub counters moved since the sample before,
   * by path id (paths interned: a sample holds numbers only, 8 per row that moved).
   * @param {number} at @param {ProfileRow[]} rows @param {ProfileRow[]} prevRows @param {Map<string, number>} prevIndex
   */
  #addSample(at, rows, prevRows, prevIndex) {
    /** @type {number[]} */
    const ids = [];
    /** @type {number[]} */
    const values = [];
    let root = [0, 0, 0, 0];
    if (this.samples.length) {
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i];
        const j = prevIndex.get(row[R.path]);
        const d = counterDelta(row, j === undefined ? null : prevRows[j]);
        if (!d) continue;
        ids.push(this.pathId(row[R.path]));
        values.push(...d);
        if (i === 0) root = d.slice(4, 8);
      }
    }
    this.samples.push({ at, ids: Int32Array.from(ids), values: Float64Array.from(values), root });
    if (this.samples.length > MAX_SAMPLES) this.samples.splice(0, this.samples.length - MAX_SAMPLES);
  }

  /** The number a path is kept under in the samples. @param {string} path */
  pathId(path) {
    let id = this.pathIds.get(path);
    if (id === undefined) this.pathIds.set(path, (id = this.pathIds.size));
    return id;
  }

  /**
   * Counts texts not yet counted for at most budgetMs (at least one text, or one piece of a long
   * one); true when nothing is left. Callers loop, yielding between calls.
   * @param {{budgetMs?: number}} [o]
   */
  countPending({ budgetMs = 8 } = {}) {
    const start = now();
    const q = this.queue;
    let counted = 0;
    while (this.queueHead < q.length) {
      const job = q[this.queueHead];
      if ('tool' in job) {
        const cached = this.toolCache.get(job.text);
        job.tool.tokens = cached ?? this.countTokens(job.text);
        if (cached === undefined) { this.toolCache.set(job.text, job.tool.tokens); counted++; }
        this.queueHead++;
      } else if (this.cache.get(job.entry.key) !== job.entry || (job.bare ? job.entry.bare : job.entry.line) >= 0) {
        this.queueHead++; // superseded by a newer text, or already counted
      } else {
        const piece = job.pieces ? job.pieces[job.at] : (job.bare ? job.entry.text : `${job.entry.text}\n`);
        job.sum += this.countTokens(piece);
        counted++;
        if (job.pieces && ++job.at < job.pieces.length) {
          if (now() - start >= budgetMs) break;
          continue;
        }
        if (job.bare) job.entry.bare = job.sum; else job.entry.line = job.sum;
        this.queueHead++;
      }
      if (counted > 0 && now() - start >= budgetMs) break;
    }
    if (counted > 0) this.agg = null;
    if (this.queueHead >= q.length) { q.length = 0; this.queueHead = 0; return true; }
    if (this.queueHead > 4096 && this.queueHead * 2 > q.length) { q.splice(0, this.queueHead); this.queueHead = 0; }
    return false;
  }

  /** The measures of the last sample (within range), summed up the tree once per change. @param {[number, number]|null} range */
  #aggregate(range) {
    const key = range ? `${range[0]},${range[1]}` : '';
    if (this.agg && this.aggKey === key) return this.agg;
    this.agg = new Aggregate(this, range);
    this.aggKey = key;
    return this.agg;
  }

  /**
   * The profile in one object (ProfileReport): totals, budgets, the top subtrees down to `depth`,
   * the churn table and the hints.
   * @param {{by?: Measure, depth?: number, top?: number, range?: [number, number]|null}} [o]
   * @returns {ProfileReport}
   */
  report({ by = 'tokens', depth = 2, top = 20, range = null } = {}) {
    return buildReport(this, this.#aggregate(range), { by, depth, top, range });
  }

  /**
   * The tree for a treemap or icicle, sized by `by`, at most about maxNodes nodes (smaller
   * siblings merged into one "(N more)" node).
   * @param {{by?: Measure, maxNodes?: number, range?: [number, number]|null}} [o]
   * @returns {HNode|null}
   */
  hierarchy({ by = 'tokens', maxNodes = 1500, range = null } = {}) {
    return buildHierarchy(this, this.#aggregate(range), { by, maxNodes });
  }

  /** Per sample, what came since the sample before (the root's sub counters; 0 for the first). */
  timeline() {
    const s = this.samples;
    return {
      at: s.map((x) => x.at),
      patches: s.map((x) => x.root[0]),
      ops: s.map((x) => x.root[1]),
      bytes: s.map((x) => x.root[2]),
      noops: s.map((x) => x.root[3]),
    };
  }
}

/** The "  actions: {…}" a node's line ends with when it has affordances ('' without). @param {string} text */
const actionsPart = (text) => {
  const line = text.split('\n', 1)[0];
  const at = line.lastIndexOf('  actions: {');
  return at < 0 ? '' : line.slice(at);
};

/**
 * Whether a row's new text may change the tool lists: a node with actions now or before whose
 * actions (as its line lists them), their count or its salience changed, or a new node with
 * actions. A change to an action's description alone does not show in the line: the tool lists
 * are read again at the next change that does (or when the caller asks for them anyway).
 * @param {ProfileRow} row @param {TextEntry|undefined} before @param {Map<string, number>} prevIndex @param {ProfileRow[]} prevRows
 */
function toolsMayDiffer(row, before, prevIndex, prevRows) {
  const j = prevIndex.get(row[R.path]);
  const old = j === undefined ? null : prevRows[j];
  if (row[R.ownActions] === 0 && (!old || old[R.ownActions] === 0)) return false;
  if (!old || !before) return true;
  return old[R.ownActions] !== row[R.ownActions] || old[R.salience] !== row[R.salience]
    || actionsPart(before.text) !== actionsPart(/** @type {string} */ (row[R.text]));
}

/** performance.now() where there is one (every browser context, Node 16+). */
const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * The counters' change from old to row: [self 4, sub 4], or null when none moved. A counter that
 * went back (a node removed, then one at the same path added) counts from 0.
 * @param {ProfileRow} row @param {ProfileRow|null} old @returns {number[]|null}
 */
function counterDelta(row, old) {
  const s = row[R.self], u = row[R.sub];
  if (!old) return anyNonZero(u) || anyNonZero(s) ? [...s, ...u] : null;
  const os = old[R.self], ou = old[R.sub];
  let moved = false;
  for (let k = 0; k < 4; k++) if (s[k] !== os[k] || u[k] !== ou[k]) { moved = true; break; }
  if (!moved) return null;
  const back = s.some((v, k) => v < os[k]) || u.some((v, k) => v < ou[k]);
  return back ? [...s, ...u] : [s[0] - os[0], s[1] - os[1], s[2] - os[2], s[3] - os[3], u[0] - ou[0], u[1] - ou[1], u[2] - ou[2], u[3] - ou[3]];
}
