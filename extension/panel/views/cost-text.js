// cost-text.js: how the Cost tab says its numbers: counts with thousands separators, bytes,
// rates, shares; the measures' names; the budgets and the counting in words.

/** The measures a user sizes the map by, as js-glue/state-profile.js names them. */
export const MEASURES = /** @type {const} */ ([
  ['tokens', 'Tokens', 'tokens of the node’s lines in the agent’s tree text'],
  ['tools', 'Tool tokens', 'tokens of the tool definitions of its affordances'],
  ['bytes', 'Bytes', 'bytes of its compact JSON'],
  ['nodes', 'Nodes', 'nodes in the subtree'],
  ['traffic', 'Traffic', 'ops that touched the subtree in the window (or the range)'],
]);

/** What the map's colour says. */
export const COLOURS = /** @type {const} */ ([
  ['salience', 'Salience', 'strong for salient nodes (meta.salience near 1), pale for low salience, grey where none is set'],
  ['churn', 'Churn', 'strong for the nodes rewritten most often (ops per second over the window), grey where quiet'],
]);

const NUM = new Intl.NumberFormat('en-US');
const DEC = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/** 12,345 @param {number} n */
export const int = (n) => NUM.format(Math.round(n));

/** 1.5 (one decimal at most) @param {number} n */
export const dec = (n) => DEC.format(n);

/** "1 token", "2 tokens" @param {number} n @param {string} one @param {string} [many] */
export const count = (n, one, many = `${one}s`) => `${int(n)} ${n === 1 ? one : many}`;

/** 532 B, 12.3 KiB, 4.1 MiB @param {number} n */
export function bytes(n) {
  if (n < 1024) return `${int(n)} B`;
  if (n < 1024 * 1024) return `${dec(n / 1024)} KiB`;
  return `${dec(n / 1024 / 1024)} MiB`;
}

/** 42.1 % (under 0.1 %: "<0.1 %") @param {number} share 0..1 */
export function pct(share) {
  if (!Number.isFinite(share) || share <= 0) return '0 %';
  if (share < 0.001) return '<0.1 %';
  return `${dec(share * 100)} %`;
}

/** 3.2/s @param {number} n */
export const rate = (n) => `${n >= 10 ? int(n) : dec(n)}/s`;

/** "3.2 ops/s" @param {number} n @param {string} unit */
export const perSecond = (n, unit) => `${n >= 10 ? int(n) : dec(n)} ${unit}/s`;

/**
 * A measure of a subtree (the report's Measures) in words, by the measure's name.
 * @param {string} by @param {number} v
 */
export function measureText(by, v) {
  switch (by) {
    case 'tokens': return count(v, 'token');
    case 'tools': return count(v, 'tool token');
    case 'bytes': return bytes(v);
    case 'nodes': return count(v, 'node');
    case 'traffic': return count(v, 'op');
    default: return int(v);
  }
}

/** "Counting tokens… 3,200 of 10,000" @param {{done: number, total: number}} c */
export const countingText = (c) => `Counting tokens… ${int(c.done)} of ${int(c.total)}`;

/**
 * The budgets of the agent view in words: what maxStateBytes and maxTools leave out, and what the
 * agent would pay without them. complete: the tokens are all counted.
 * @param {any} b  report.budgets @param {boolean} complete
 * @returns {string[]} one sentence each
 */
export function budgetSentences(b, complete) {
  const tok = (n) => (complete ? count(n, 'token') : `${count(n, 'token')} so far`);
  const out = [];
  if (b.cutNodes > 0) {
    out.push(`The state text is ${bytes(b.stateBytes)}, over maxStateBytes (${bytes(b.maxStateBytes)}): the agent view stops after ` +
      `${count(b.viewNodes, 'node')}, and ${count(b.cutNodes, 'node')} (${tok(b.tokensCut)}) are left out. ` +
      `It costs ${tok(b.tokensInView)}; without the budget it would cost ${tok(b.tokensInView + b.tokensCut)}.`);
  } else {
    out.push(`The whole state fits in maxStateBytes: ${bytes(b.stateBytes)} of ${bytes(b.maxStateBytes)}, nothing left out ` +
      `(${tok(b.tokensInView)}).`);
  }
  if (b.tools > b.toolsOffered) {
    out.push(`An agent is offered ${b.toolsOffered} of ${count(b.tools, 'tool')} (maxTools ${int(b.maxTools)}): ` +
      `${count(b.tools - b.toolsOffered, 'tool')} (${tok(b.toolTokensCut)}) are left out. The offered ones cost ` +
      `${tok(b.toolTokensOffered)}; all of them would cost ${tok(b.toolTokensOffered + b.toolTokensCut)}.`);
  } else if (b.tools > 0) {
    out.push(`All ${count(b.tools, 'tool')} fit within maxTools (${int(b.maxTools)}): ${tok(b.toolTokensOffered)} of tool definitions.`);
  } else {
    out.push('No affordances: no tools are offered.');
  }
  return out;
}

/** "12 s sampled" @param {number} seconds */
export function spanText(seconds) {
  if (seconds < 1) return 'one sample';
  if (seconds < 120) return `${int(seconds)} s sampled`;
  return `${dec(seconds / 60)} min sampled`;
}
