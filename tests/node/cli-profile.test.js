// `slop-inspector profile` (issue 49) against the fixture whose sizes and traffic are known:
// the human report (totals, top subtrees with their share, the churn table, the hints), --json
// (the ProfileReport, its keys in a fixed order, the same twice on a still provider), --by, and
// the usage errors.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from './helpers.js';
import { startProfileProvider, EXPECTED } from '../fixtures/profile-provider.mjs';
import { TOKENIZER } from '../../js-glue/node/tokenizer.js';

/** The report's keys, in their order, at every level the JSON has (arrays: their first element). */
function keyShape(v) {
  if (Array.isArray(v)) return v.length ? [keyShape(v[0])] : [];
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, keyShape(x)]));
  return typeof v;
}

const TRAFFIC = ['patches', 'ops', 'bytes', 'noops'];
const MEASURES = ['tokens', 'chars', 'toolTokens', 'tools', 'bytes', 'nodes', 'traffic', 'window', 'rate'];

describe('slop-inspector profile', () => {
  let live, still;
  before(async () => {
    live = await startProfileProvider();
    still = await startProfileProvider({ clock: false });
  });
  after(async () => {
    await live?.close();
    await still?.close();
  });

  test('the report: totals, the top subtrees with their share, the churn and the hints', { timeout: 30_000 }, async () => {
    const r = await runCli(['profile', live.wsUrl, '--seconds', '2', '--depth', '1'], { SLOP_TOKEN: live.token });
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout;
    assert.match(out, new RegExp(`^state: ${EXPECTED.nodes} nodes, \\d+ tokens \\(${TOKENIZER.replace(/[()]/g, '\\$&')}\\), \\d+ characters, \\d+ bytes of JSON$`, 'm'));
    assert.match(out, new RegExp(`^tools: ${EXPECTED.actions} \\(\\d+ tokens\\)`, 'm'));
    assert.match(out, /^agent view: \d+ bytes of tree text, budget 65536: \d+ of \d+ nodes in view, \d+ cut \(\d+ tokens\)$/m);
    const top = out.split('top subtrees by tokens (down to depth 1):\n')[1].split('\n\n')[0].split('\n').slice(1);
    assert.deepEqual(top.map((l) => l.trim().split(/\s+/)[7]), EXPECTED.byTokens);
    assert.match(top[0], /^\s+\d+\.\d %/);
    const churn = out.split(/churn \(ops on the node itself, over [\d.]+ s\):\n/)[1].split('\n\n')[0].split('\n');
    assert.match(churn[1], /^\s+\d+\s+\d+(\.\d)?\s+\d+ \(\d+ %\)\s+\d+\s+\d+\s+\/clock$/);
    assert.match(out, /^ {2}- \/clock: \d+(\.\d)? writes a second, \d+ % of them write the value already there/m);
    assert.match(out, /^ {2}- \/messages holds \d+ % of the state's tokens and has no window \(meta\.window \/ total_children\): the agent gets all 400 children$/m);
    assert.match(out, /^ {2}- \/debug has salience 0\.1 and costs \d+ % of the tokens/m);
  });

  test('--json: the ProfileReport, keys in a fixed order, the same twice on a still provider', { timeout: 30_000 }, async () => {
    const args = ['profile', still.wsUrl, '--seconds', '0', '--json', '--depth', '1'];
    const [a, b] = await Promise.all([runCli(args, { SLOP_TOKEN: still.token }), runCli(args, { SLOP_TOKEN: still.token })]);
    assert.equal(a.code, 0, a.stderr);
    const one = JSON.parse(a.stdout), two = JSON.parse(b.stdout);
    assert.deepEqual(Object.keys(one), ['format', 'version', 'sub', 'serial', 'at', 'seconds', 'windowSeconds', 'tokenizer', 'complete',
      'counting', 'by', 'depth', 'range', 'totals', 'budgets', 'subtrees', 'churn', 'hints']);
    assert.deepEqual(Object.keys(one.totals), MEASURES);
    assert.deepEqual(Object.keys(one.totals.window), TRAFFIC);
    assert.deepEqual(Object.keys(one.budgets), ['maxStateBytes', 'stateBytes', 'viewNodes', 'cutNodes', 'tokensInView', 'tokensCut',
      'maxTools', 'tools', 'toolsOffered', 'toolTokensOffered', 'toolTokensCut']);
    assert.deepEqual(Object.keys(one.subtrees[0]), ['path', 'id', 'type', 'depth', 'parent', 'salience', 'windowed', 'inView', ...MEASURES, 'share']);
    assert.deepEqual(keyShape(one), keyShape(two));
    // Everything but the time and the subscription's handle is the same.
    for (const r of [one, two]) { delete r.at; delete r.sub; }
    assert.deepEqual(one, two);
    assert.equal(one.format, 'slop-inspector-profile');
    assert.equal(one.tokenizer, TOKENIZER);
    assert.equal(one.complete, true);
    assert.deepEqual(one.subtrees.map((s) => s.path), EXPECTED.byTokens);
    assert.equal(one.totals.nodes, EXPECTED.nodes);
    assert.equal(one.totals.tools, EXPECTED.actions);
    assert.equal(a.stdout, `${JSON.stringify(JSON.parse(a.stdout), null, 2)}\n`);
  });

  test('--by bytes, --by nodes, --max-state-bytes and --max-tools', { timeout: 30_000 }, async () => {
    const env = { SLOP_TOKEN: still.token };
    const bytes = JSON.parse((await runCli(['profile', still.wsUrl, '--seconds', '0', '--json', '--by', 'bytes', '--depth', '1'], env)).stdout);
    assert.equal(bytes.by, 'bytes');
    const sizes = bytes.subtrees.map((s) => s.bytes);
    assert.deepEqual(sizes, [...sizes].sort((x, y) => y - x));
    assert.equal(bytes.subtrees[0].share, Math.round((sizes[0] / bytes.totals.bytes) * 1e4) / 1e4);
    const cut = JSON.parse((await runCli(['profile', still.wsUrl, '--seconds', '0', '--json', '--max-state-bytes', '500', '--max-tools', '2'], env)).stdout);
    assert.equal(cut.budgets.maxStateBytes, 500);
    assert.ok(cut.budgets.viewNodes < 10, String(cut.budgets.viewNodes));
    assert.equal(cut.budgets.toolsOffered, 2);
    assert.deepEqual(cut.hints.filter((h) => h.path === null).map((h) => h.kind), ['state-budget-cut', 'tools-cut']);
  });

  test('a wrong --by or --seconds is a usage error', async () => {
    const r = await runCli(['profile', still.wsUrl, '--by', 'colour']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--by must be one of tokens, tools, bytes, nodes, traffic/);
    const s = await runCli(['profile', still.wsUrl, '--seconds', 'soon']);
    assert.equal(s.code, 2);
    assert.match(s.stderr, /--seconds must be an integer/);
    const help = await runCli(['--help']);
    assert.match(help.stdout, /slop-inspector profile <ws-url> \[--seconds S\]/);
  });
});
