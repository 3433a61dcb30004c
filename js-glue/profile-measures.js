// profile-measures.js: a state profile's measures summed up the tree (state-profile.js), and the
// two views made of them: the report (ProfileReport: totals, budgets, the top subtrees, the churn
// table, the hints) and the hierarchy a treemap or icicle draws. Every size and counter is the
// core's (its profile rows); only tokens, which the core does not know, are summed here, up the
// tree by the rows' parent indexes.

import { R } from './profile-rows.js';
import { hintsOf } from './profile-hints.js';

/**
 * @typedef {'tokens'|'tools'|'bytes'|'nodes'|'traffic'} Measure
 *   tools: the tokens of the tool definitions (the actions are `tools` in Measures)
 * @typedef {{patches: number, ops: number, bytes: number, noops: number}} Traffic
 * @typedef {object} Measures
 * @property {number} tokens      tokens of the agent's tree text (the subtree's lines)
 * @property {number} chars       characters of the same text
 * @property {number} toolTokens  tokens of the tool definitions of the subtree's affordances
 * @property {number} tools       actions in the subtree
 * @property {number} bytes       UTF-8 bytes of the subtree's compact JSON
 * @property {number} nodes       nodes in the subtree, itself included
 * @property {Traffic} traffic    the whole session (the core's counters)
 * @property {Traffic} window     the last windowSeconds, or within the range
 * @property {Traffic} rate       window divided by its seconds
 * @typedef {Measures & {path: string, id: string, type: string, depth: number, parent: string|null,
 *   salience: number|null, windowed: boolean, inView: boolean, share: number}} Subtree
 * @typedef {{path: string, type: string, patches: number, ops: number, bytes: number, noops: number,
 *   perSecond: number, noopShare: number}} ChurnRow
 * @typedef {'noop-writes'|'unwindowed-collection'|'low-salience-cost'|'state-budget-cut'|'tools-cut'} HintKind
 * @typedef {{kind: HintKind, path: string|null, text: string}} Hint
 * @typedef {object} Budgets
 * @property {number} maxStateBytes
 * @property {number} stateBytes       UTF-8 bytes of the whole tree text (a "\n" after every line)
 * @property {number} viewNodes        nodes the agent's state tail shows under maxStateBytes (the core's count)
 * @property {number} cutNodes         nodes the budget leaves out
 * @property {number} tokensInView
 * @property {number} tokensCut        tokens = tokensInView + tokensCut
 * @property {number} maxTools
 * @property {number} tools            every tool (action) of the subscription
 * @property {number} toolsOffered     the tools an agent is offered (maxTools, the most salient)
 * @property {number} toolTokensOffered
 * @property {number} toolTokensCut    tokens of the tools not offered
 * @typedef {object} ProfileReport
 * @property {'slop-inspector-profile'} format
 * @property {1} version
 * @property {string} sub
 * @property {number} serial
 * @property {number} at               the last sample's time (epoch ms)
 * @property {number} seconds          the span sampled
 * @property {number} windowSeconds
 * @property {string} tokenizer
 * @property {boolean} complete        every text counted and every traffic counter kept (else partial)
 * @property {{done: number, total: number}} counting
 * @property {Measure} by
 * @property {number} depth
 * @property {[number, number]|null} range
 * @property {Measures} totals
 * @property {Budgets} budgets
 * @property {Subtree[]} subtrees
 * @property {ChurnRow[]} churn
 * @property {Hint[]} hints
 * @typedef {object} HNode
 * @property {string|null} path   null for a merged "(N more)" node
 * @property {string} id
 * @property {string} type
 * @property {number} depth
 * @property {number|null} salience
 * @property {number} value       the `by` measure of the subtree
 * @property {number} own         the node's own part of it: value less the children's values
 * @property {number} churn       ops per second in the subtree over the window
 * @property {boolean} inView
 * @property {true} [other]
 * @property {HNode[]} children
 * @typedef {{at: number, ids: Int32Array, values: Float64Array, root: number[]}} Sample
 *   ids: the path ids (StateProfile#pathId) of the rows whose counters moved since the sample
 *   before; values: 8 for each, [self 4, sub 4]; root: the root's sub delta
 */

export const MEASURES = Object.freeze(/** @type {Measure[]} */ (['tokens', 'tools', 'bytes', 'nodes', 'traffic']));

/** @param {number} x @param {number} d  decimals */
export const round = (x, d) => { const f = 10 ** d; return Math.round(x * f) / f; };

/** @param {ArrayLike<number>} c @param {number} [at] @returns {Traffic} */
const traffic = (c, at = 0) => ({ patches: c[at], ops: c[at + 1], bytes: c[at + 2], noops: c[at + 3] });
const ZERO8 = Object.freeze([0, 0, 0, 0, 0, 0, 0, 0]);

/** The measures of one sample (and one range), each array indexed by row. */
export class Aggregate {
  /**
   * @param {import('./state-profile.js').StateProfile} p
   * @param {[number, number]|null} range
   */
  constructor(p, range) {
    const rows = p.rows, entries = p.entries, n = rows.length;
    this.p = p;
    this.n = n;
    this.ownTokens = new Float64Array(n);
    this.tokens = new Float64Array(n);
    this.chars = new Float64Array(n);
    this.ownToolTokens = new Float64Array(n);
    this.toolTokens = new Float64Array(n);
    this.inView = new Uint8Array(n);
    // The core's state tail decides what the budget cuts (pre-order: the first rows fit).
    const viewNodes = p.leftOut === null ? n : Math.max(0, n - p.leftOut);
    let stateBytes = 0, tokensInView = 0, tokensCut = 0;
    for (let i = 0; i < n; i++) {
      const e = entries[i];
      const last = i === n - 1;
      const t = last ? e.bare : e.line;
      this.ownTokens[i] = t >= 0 ? t : 0;
      this.chars[i] = e.chars + (last ? 0 : 1);
      stateBytes += e.utf8 + 1;
      this.inView[i] = i < viewNodes ? 1 : 0;
      if (i < viewNodes) tokensInView += this.ownTokens[i]; else tokensCut += this.ownTokens[i];
    }
    // Tool tokens to their node: the path each tool resolves to.
    let toolTokensAll = 0, toolTokensOffered = 0, toolTokensCut = 0;
    for (const t of p.toolTexts ?? []) {
      const k = p.index.get(t.path);
      const tok = t.tokens >= 0 ? t.tokens : 0;
      toolTokensAll += tok;
      if (k !== undefined) this.ownToolTokens[k] += tok;
      if (!p.offeredKeys?.has(`${t.path}\n${t.action}`)) toolTokensCut += tok;
    }
    for (const t of p.offeredTexts ?? []) toolTokensOffered += t.tokens >= 0 ? t.tokens : 0;
    this.tokens.set(this.ownTokens);
    this.toolTokens.set(this.ownToolTokens);
    for (let i = n - 1; i > 0; i--) {
      const up = rows[i][R.parent];
      if (up < 0 || up >= i) continue;
      this.tokens[up] += this.tokens[i];
      this.chars[up] += this.chars[i];
      this.toolTokens[up] += this.toolTokens[i];
    }
    // The window (or range): the samples after the first whose time falls in it.
    const s = p.samples;
    const endAt = s.length ? s[s.length - 1].at : 0;
    const [t0, t1] = range ?? [endAt - p.windowSeconds * 1000, endAt];
    /** @type {Map<number, Float64Array>} */
    const win = new Map();
    let ms = 0;
    for (let k = 1; k < s.length; k++) {
      const at = s[k].at;
      if (range ? at < t0 || at > t1 : at <= t0) continue;
      ms += at - s[k - 1].at;
      const { ids, values } = s[k];
      for (let j = 0; j < ids.length; j++) {
        let w = win.get(ids[j]);
        if (!w) win.set(ids[j], (w = new Float64Array(8)));
        for (let q = 0; q < 8; q++) w[q] += values[j * 8 + q];
      }
    }
    this.window = win;
    this.windowMs = ms;
    this.sampled = s.length > 1; // a window to speak of (else the traffic measure is the session's)
    this.counting = p.counting;
    this.budgets = {
      maxStateBytes: p.maxStateBytes, stateBytes, viewNodes, cutNodes: n - viewNodes, tokensInView, tokensCut,
      maxTools: p.maxTools,
      tools: p.toolTexts ? p.toolTexts.length : (n ? rows[0][R.actions] : 0),
      toolsOffered: p.offeredTexts ? p.offeredTexts.length : 0,
      toolTokensOffered, toolTokensCut,
    };
    this.toolTokensAll = toolTokensAll;
  }

  /** The window deltas of row i: [self 4, sub 4]. @param {number} i */
  win(i) {
    const id = this.p.pathIds.get(this.p.rows[i][R.path]);
    return (id === undefined ? undefined : this.window.get(id)) ?? ZERO8;
  }

  /** Per second over the window (0 without one). @param {number} x */
  perSecond(x) { return this.windowMs > 0 ? round(x / (this.windowMs / 1000), 2) : 0; }

  /** @param {number} i @returns {Measures} */
  measures(i) {
    const row = this.p.rows[i], w = this.win(i);
    return {
      tokens: this.tokens[i], chars: this.chars[i], toolTokens: this.toolTokens[i], tools: row[R.actions],
      bytes: row[R.bytes], nodes: row[R.nodes], traffic: traffic(row[R.sub]), window: traffic(w, 4),
      rate: { patches: this.perSecond(w[4]), ops: this.perSecond(w[5]), bytes: this.perSecond(w[6]), noops: this.perSecond(w[7]) },
    };
  }

  /** The subtree's `by` measure. @param {Measure} by @param {number} i */
  value(by, i) {
    const row = this.p.rows[i];
    switch (by) {
      case 'tools': return this.toolTokens[i];
      case 'bytes': return row[R.bytes];
      case 'nodes': return row[R.nodes];
      case 'traffic': return this.sampled ? this.win(i)[5] : row[R.sub][1];
      default: return this.tokens[i];
    }
  }

  /** The node's self traffic for the churn table: the window's, or the session's with one sample. @param {number} i */
  selfTraffic(i) {
    return this.sampled ? traffic(this.win(i), 0) : traffic(this.p.rows[i][R.self]);
  }
}

/** The id a path ends with ("/" for a root at "/"). @param {string} path */
export const idOf = (path) => (path === '/' ? '/' : path.slice(path.lastIndexOf('/') + 1));

/** @returns {Measures} */
const zeroMeasures = () => ({
  tokens: 0, chars: 0, toolTokens: 0, tools: 0, bytes: 0, nodes: 0,
  traffic: traffic(ZERO8), window: traffic(ZERO8), rate: traffic(ZERO8),
});

/**
 * @param {import('./state-profile.js').StateProfile} p @param {Aggregate} a
 * @param {{by: Measure, depth: number, top: number, range: [number, number]|null}} o
 * @returns {ProfileReport}
 */
export function buildReport(p, a, { by, depth, top, range }) {
  if (!MEASURES.includes(by)) throw new TypeError(`by must be one of ${MEASURES.join(', ')}`);
  const rows = p.rows, n = rows.length;
  const s = p.samples;
  const totals = n ? a.measures(0) : zeroMeasures();
  const total = n ? a.value(by, 0) : 0;
  const lo = Math.min(1, depth);
  /** @type {number[]} */
  const picked = [];
  for (let i = 0; i < n; i++) { const d = rows[i][R.depth]; if (d >= lo && d <= depth) picked.push(i); }
  picked.sort((x, y) => a.value(by, y) - a.value(by, x) || x - y);
  const subtrees = picked.slice(0, Math.max(0, top)).map((i) => {
    const row = rows[i];
    return {
      path: row[R.path], id: idOf(row[R.path]), type: row[R.type], depth: row[R.depth],
      parent: row[R.parent] >= 0 ? rows[row[R.parent]][R.path] : null, salience: row[R.salience] ?? null,
      windowed: row[R.windowed] === 1, inView: a.inView[i] === 1,
      ...a.measures(i),
      share: total > 0 ? round(a.value(by, i) / total, 4) : 0,
    };
  });
  const churn = churnRows(p, a, top);
  const counting = a.counting;
  return {
    format: 'slop-inspector-profile', version: 1, sub: p.sub, serial: p.serial,
    at: s.length ? s[s.length - 1].at : 0, seconds: s.length ? (s[s.length - 1].at - s[0].at) / 1000 : 0,
    windowSeconds: p.windowSeconds, tokenizer: p.tokenizer, complete: counting.done === counting.total && p.countersComplete, counting,
    by, depth, range: range ? [range[0], range[1]] : null,
    totals, budgets: a.budgets, subtrees, churn,
    hints: hintsOf(p, a, churn),
  };
}

/** Self traffic, the top `top` rows by ops. @param {import('./state-profile.js').StateProfile} p @param {Aggregate} a @param {number} top @returns {ChurnRow[]} */
function churnRows(p, a, top) {
  /** @type {Array<[number, Traffic]>} */
  const moving = [];
  for (let i = 0; i < p.rows.length; i++) {
    const t = a.selfTraffic(i);
    if (t.ops > 0) moving.push([i, t]);
  }
  moving.sort((x, y) => y[1].ops - x[1].ops || x[0] - y[0]);
  return moving.slice(0, Math.max(0, top)).map(([i, t]) => ({
    path: p.rows[i][R.path], type: p.rows[i][R.type], ...t,
    perSecond: a.perSecond(t.ops), noopShare: t.ops > 0 ? round(t.noops / t.ops, 4) : 0,
  }));
}

/**
 * The tree sized by `by`: the biggest subtrees first until about maxNodes are drawn; the children
 * left out of each node merged into one "(N more)" node.
 * @param {import('./state-profile.js').StateProfile} p @param {Aggregate} a
 * @param {{by: Measure, maxNodes: number}} o @returns {HNode|null}
 */
export function buildHierarchy(p, a, { by, maxNodes }) {
  if (!MEASURES.includes(by)) throw new TypeError(`by must be one of ${MEASURES.join(', ')}`);
  const rows = p.rows, n = rows.length;
  if (!n) return null;
  /** @type {number[][]} */
  const kids = Array.from({ length: n }, () => []);
  for (let i = 1; i < n; i++) { const up = rows[i][R.parent]; if (up >= 0 && up < i) kids[up].push(i); }
  const value = (/** @type {number} */ i) => a.value(by, i);
  /**
   * own: the value less its children's, so that own plus the children's values is the value for
   * every measure (bytes: with the JSON around the children; traffic: with removed descendants').
   * @param {number} i @returns {HNode}
   */
  const make = (i) => {
    const row = rows[i];
    const v = value(i);
    let below = 0;
    for (const c of kids[i]) below += value(c);
    return {
      path: row[R.path], id: idOf(row[R.path]), type: row[R.type], depth: row[R.depth], salience: row[R.salience] ?? null,
      value: v, own: Math.max(0, v - below), churn: a.perSecond(a.win(i)[5]), inView: a.inView[i] === 1, children: [],
    };
  };
  const nodes = new Map([[0, make(0)]]);
  // The biggest candidates first (a binary heap on value, ties in tree order).
  /** @type {number[]} */
  const heap = [];
  const before = (/** @type {number} */ x, /** @type {number} */ y) => value(x) > value(y) || (value(x) === value(y) && x < y);
  const push = (/** @type {number} */ i) => {
    heap.push(i);
    for (let k = heap.length - 1; k > 0;) {
      const up = (k - 1) >> 1;
      if (!before(heap[k], heap[up])) break;
      [heap[k], heap[up]] = [heap[up], heap[k]];
      k = up;
    }
  };
  const pop = () => {
    const topI = heap[0], last = /** @type {number} */ (heap.pop());
    if (heap.length) {
      heap[0] = last;
      for (let k = 0; ;) {
        const l = 2 * k + 1, r = l + 1;
        let m = k;
        if (l < heap.length && before(heap[l], heap[m])) m = l;
        if (r < heap.length && before(heap[r], heap[m])) m = r;
        if (m === k) break;
        [heap[k], heap[m]] = [heap[m], heap[k]];
        k = m;
      }
    }
    return topI;
  };
  for (const c of kids[0]) push(c);
  while (heap.length && nodes.size < maxNodes) {
    const i = pop();
    nodes.set(i, make(i));
    for (const c of kids[i]) push(c);
  }
  for (const [i, node] of nodes) {
    const left = [];
    for (const c of kids[i]) {
      const child = nodes.get(c);
      if (child) node.children.push(child); else left.push(c);
    }
    if (left.length) {
      let v = 0, churn = 0;
      for (const c of left) { v += value(c); churn += a.win(c)[5]; }
      node.children.push({
        path: null, id: `(${left.length} more)`, type: '', depth: node.depth + 1, salience: null,
        value: v, own: v, churn: a.perSecond(churn), inView: left.some((c) => a.inView[c] === 1), other: true, children: [],
      });
    }
  }
  return /** @type {HNode} */ (nodes.get(0));
}
