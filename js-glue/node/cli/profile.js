// `slop-inspector profile`: what the provider's state costs an agent (client.profile, issue 49):
// one sample, then one a second for --seconds; the totals (tokens of the tree text, counted with
// o200k_base, and of the tool definitions; characters, JSON bytes, nodes, actions; traffic), the
// agent view's budgets, the top subtrees with their share, the churn table and the hints.
// --json: the ProfileReport itself (state-profile.js), its keys in a fixed order.

import { UsageError, int, out } from './common.js';
import { CONNECT_OPTIONS, resolveTarget, withClient } from './target.js';
import { MEASURES } from '../../profile-measures.js';

/** @typedef {import('../../profile-measures.js').ProfileReport} ProfileReport */

/** Seconds sampled when --seconds is not given. */
export const DEFAULT_SECONDS = 3;

/** @type {import('./common.js').CliCommand} */
export default {
  name: 'profile',
  usage: `  slop-inspector profile <ws-url> [--seconds S] [--by tokens|tools|bytes|nodes|traffic] [--depth D]
                        [--top N] [--max-state-bytes B] [--max-tools N] [--json]
                                                                    what the state costs an agent: tokens
                                                                    (o200k_base) of the tree text and the tools,
                                                                    bytes, nodes, traffic over S seconds
                                                                    (default ${DEFAULT_SECONDS}); the top subtrees down to
                                                                    depth D (default 2), the churn, the hints`,
  options: {
    ...CONNECT_OPTIONS, seconds: { type: 'string' }, by: { type: 'string' }, depth: { type: 'string' }, top: { type: 'string' },
    'max-state-bytes': { type: 'string' }, 'max-tools': { type: 'string' }, json: { type: 'boolean' },
  },
  async run(ctx) {
    const { opt } = ctx;
    const seconds = int('seconds', opt.seconds, DEFAULT_SECONDS);
    const depth = int('depth', opt.depth, 2);
    const top = int('top', opt.top, 20);
    const by = /** @type {import('../../profile-measures.js').Measure} */ (opt.by ?? 'tokens');
    if (!MEASURES.includes(by)) throw new UsageError(`--by must be one of ${MEASURES.join(', ')}`);
    if (seconds < 0 || depth < 0 || top < 0) throw new UsageError('--seconds, --depth and --top must be 0 or more');
    /** @type {{maxStateBytes?: number, maxTools?: number}} */
    const budgets = {};
    if (opt['max-state-bytes'] !== undefined) budgets.maxStateBytes = int('max-state-bytes', opt['max-state-bytes'], 0);
    if (opt['max-tools'] !== undefined) budgets.maxTools = int('max-tools', opt['max-tools'], 0);
    const target = await resolveTarget('profile', ctx);
    await withClient(target, opt, async (client) => {
      const report = await client.profile({ seconds, by, depth, top, ...budgets });
      out(opt.json ? JSON.stringify(report, null, 2) : profileText(report));
    });
  },
};

/** @param {number} x  a share as "38.1 %" */
const pct = (x) => `${(x * 100).toFixed(1)} %`;
/** @param {number} x */
const rate = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

/**
 * Columns padded to their widest cell; the first `right` columns aligned right.
 * @param {string[][]} rows @param {number} right
 */
function table(rows, right) {
  const widths = rows[0].map((_, k) => Math.max(...rows.map((r) => r[k].length)));
  return rows.map((r) => `  ${r.map((c, k) => (k < right ? c.padStart(widths[k]) : k === r.length - 1 ? c : c.padEnd(widths[k]))).join('  ')}`.trimEnd());
}

/** The measure's column heading. @type {Record<string, string>} */
const HEADING = { tokens: 'tokens', tools: 'tool tokens', bytes: 'bytes', nodes: 'nodes', traffic: 'ops' };

/**
 * The report for a terminal.
 * @param {ProfileReport} r @returns {string}
 */
export function profileText(r) {
  const t = r.totals, b = r.budgets;
  const lines = [];
  const span = r.seconds > 0 ? `over ${rate(r.seconds)} s` : 'one sample';
  lines.push(`state: ${t.nodes} nodes, ${t.tokens} tokens (${r.tokenizer}), ${t.chars} characters, ${t.bytes} bytes of JSON`);
  if (!r.complete) lines.push(`  counting not finished: ${r.counting.done} of ${r.counting.total} texts counted, the token counts are partial`);
  lines.push(`tools: ${b.tools} (${t.toolTokens} tokens); offered to the agent: ${b.toolsOffered} of at most ${b.maxTools} (${b.toolTokensOffered} tokens)`);
  lines.push(`agent view: ${b.stateBytes} bytes of tree text, budget ${b.maxStateBytes}: ${b.viewNodes} of ${t.nodes} nodes in view`
    + (b.cutNodes ? `, ${b.cutNodes} cut (${b.tokensCut} tokens)` : ''));
  lines.push(`traffic ${span}: ${t.window.patches} patches, ${t.window.ops} ops (${rate(t.rate.ops)}/s), ${t.window.bytes} bytes, ${t.window.noops} no-op writes; `
    + `since subscribed: ${t.traffic.patches} patches, ${t.traffic.ops} ops, ${t.traffic.noops} no-op writes`);
  lines.push('');
  lines.push(`top subtrees by ${HEADING[r.by]} (down to depth ${r.depth}):`);
  if (!r.subtrees.length) lines.push('  (none)');
  else {
    lines.push(...table([
      ['share', 'tokens', 'tool tokens', 'bytes', 'nodes', 'ops/s', 'path'],
      ...r.subtrees.map((s) => [pct(s.share), String(s.tokens), String(s.toolTokens), String(s.bytes), String(s.nodes), rate(s.rate.ops),
        `${s.path}${s.salience !== null ? `  (salience ${s.salience})` : ''}${s.inView ? '' : '  (cut from the agent view)'}`]),
    ], 6));
  }
  lines.push('');
  lines.push(`churn (ops on the node itself, ${span}):`);
  if (!r.churn.length) lines.push('  (none)');
  else {
    lines.push(...table([
      ['ops', 'ops/s', 'no-ops', 'patches', 'bytes', 'path'],
      ...r.churn.map((c) => [String(c.ops), rate(c.perSecond), `${c.noops}${c.noops ? ` (${Math.round(c.noopShare * 100)} %)` : ''}`, String(c.patches), String(c.bytes), c.path]),
    ], 5));
  }
  lines.push('');
  lines.push('hints:');
  if (!r.hints.length) lines.push('  (none)');
  for (const h of r.hints) lines.push(`  - ${h.text}`);
  return lines.join('\n');
}
