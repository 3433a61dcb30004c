// profile-hints.js: where a state profile's numbers point, in words with the numbers: a field
// rewritten with the value already there, a collection that dominates the tokens and has no
// window, a low-salience subtree that costs much, what the agent view's budgets leave out. The
// same sentences in the CLI, client.profile() and the panel's Cost tab (state-profile.js).

import { R } from './profile-rows.js';

/** A write stream is worth a word when at least this share of its ops write the value already there. */
export const NOOP_SHARE = 0.1;
/** A collection is worth a word when it holds at least this share of the tokens... */
export const COLLECTION_SHARE = 0.2;
/** ...and has at least this many children. */
export const COLLECTION_CHILDREN = 20;
/** A subtree whose meta.salience is at most this... */
export const LOW_SALIENCE = 0.3;
/** ...and that holds at least this share of the tokens. */
export const LOW_SALIENCE_SHARE = 0.1;
/** Hints of each kind at most. */
const EACH = 3;

/** @param {number} x  a share, as "38 %" */
const pct = (x) => `${Math.round(x * 100)} %`;
/** @param {number} b */
const kib = (b) => (b < 1024 ? `${b} bytes` : `${Math.round((b / 1024) * 10) / 10} KiB`);
/** @param {number} n @param {string} one @param {string} [many] */
const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * @param {import('./state-profile.js').StateProfile} p
 * @param {import('./profile-measures.js').Aggregate} a
 * @param {import('./profile-measures.js').ChurnRow[]} churn
 * @returns {import('./profile-measures.js').Hint[]}
 */
export function hintsOf(p, a, churn) {
  /** @type {import('./profile-measures.js').Hint[]} */
  const hints = [];
  const rows = p.rows, n = rows.length;
  if (!n) return hints;
  for (const c of churn.filter((r) => r.noops > 0 && r.noopShare >= NOOP_SHARE).slice(0, EACH)) {
    const writes = a.sampled ? `${c.perSecond.toFixed(1)} writes a second` : count(c.ops, 'write');
    hints.push({ kind: 'noop-writes', path: c.path, text: `${c.path}: ${writes}, ${pct(c.noopShare)} of them write the value already there (${count(c.noops, 'no-op write')})` });
  }
  const total = a.tokens[0];
  if (total > 0) {
    const children = new Uint32Array(n);
    for (let i = 1; i < n; i++) { const up = rows[i][R.parent]; if (up >= 0) children[up]++; }
    const big = [];
    for (let i = 1; i < n; i++) {
      const share = a.tokens[i] / total;
      if (rows[i][R.windowed] === 0 && children[i] >= COLLECTION_CHILDREN && share >= COLLECTION_SHARE) big.push({ i, share });
    }
    big.sort((x, y) => y.share - x.share || x.i - y.i);
    for (const { i, share } of big.slice(0, EACH)) {
      const path = rows[i][R.path];
      hints.push({ kind: 'unwindowed-collection', path, text: `${path} holds ${pct(share)} of the state's tokens and has no window (meta.window / total_children): the agent gets all ${children[i]} children` });
    }
    /** @type {Set<number>} */
    const said = new Set();
    const low = [];
    for (let i = 1; i < n; i++) {
      const sal = rows[i][R.salience];
      const share = a.tokens[i] / total;
      if (sal === null || sal > LOW_SALIENCE || share < LOW_SALIENCE_SHARE) continue;
      let up = rows[i][R.parent], inside = false;
      while (up >= 0) { if (said.has(up)) { inside = true; break; } up = rows[up][R.parent]; }
      if (inside) continue; // its ancestor's hint covers it
      said.add(i);
      low.push({ i, sal, share });
    }
    low.sort((x, y) => y.share - x.share || x.i - y.i);
    for (const { i, sal, share } of low.slice(0, EACH)) {
      const path = rows[i][R.path];
      hints.push({ kind: 'low-salience-cost', path, text: `${path} has salience ${sal} and costs ${pct(share)} of the tokens (${a.tokens[i]} of ${total})` });
    }
  }
  const b = a.budgets;
  if (b.cutNodes > 0) {
    const tokens = b.tokensInView + b.tokensCut;
    hints.push({ kind: 'state-budget-cut', path: null,
      text: `the state budget (maxStateBytes ${kib(b.maxStateBytes)}) keeps ${b.viewNodes} of ${n} nodes: the tree text is ${kib(b.stateBytes)}; ${count(b.cutNodes, 'node')} and ${b.tokensCut} tokens${tokens > 0 ? ` (${pct(b.tokensCut / tokens)})` : ''} never reach the agent` });
  }
  if (p.toolTexts && b.toolsOffered < b.tools) {
    hints.push({ kind: 'tools-cut', path: null,
      text: `the agent is offered ${b.toolsOffered} of ${b.tools} tools (maxTools ${b.maxTools}, the most salient): ${count(b.tools - b.toolsOffered, 'tool')} and ${b.toolTokensCut} tool tokens are left out` });
  }
  return hints;
}
