// The state profiler's engine (js-glue/state-profile.js, issue 49): tokens counted once per text
// and equal to the tokenizer's count of the agent's tree text, tool tokens, the window and range
// deltas, no-op writes, the agent view's budgets, counting in slices, the hierarchy; then
// client.profile() on the fixture whose sizes and traffic are known.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Live, loadCore } from './helpers.js';
import { StateProfile, stateLeftOut, MAX_SAMPLES } from '../../js-glue/state-profile.js';
import { splitForCounting, textSizes } from '../../js-glue/profile-rows.js';
import { countTokens, TOKENIZER } from '../../js-glue/node/tokenizer.js';
import { connect } from '../../js-glue/node/client.js';
import { createProfileEngine, startProfileProvider, EXPECTED } from '../fixtures/profile-provider.mjs';

/** A countTokens that records what it was asked. */
function spyTokens() {
  const calls = [];
  const fn = (text) => { calls.push(text); return countTokens(text); };
  return { fn, calls };
}

/** Counts everything pending. @param {StateProfile} p */
function countAll(p) {
  while (!p.countPending({ budgetMs: 50 }));
}

/** A live core consumer holding the fixture's tree (no clock), and a profile fed from it. */
async function fixtureMirror(o = {}) {
  const tree = createProfileEngine({ clock: false }).truth('/');
  const live = await Live.start({ tree });
  const spy = spyTokens();
  const p = new StateProfile({ countTokens: spy.fn, tokenizer: TOKENIZER, ...o });
  let at = 1_000_000;
  const sample = ({ tools = p.needsTools } = {}) => {
    const profile = JSON.parse(live.c.profileText(live.sub, p.since));
    const leftOut = stateLeftOut(live.core, live.c, live.sub, live.sub, o.maxStateBytes ?? 64 * 1024);
    p.ingest({ at, profile, tools: tools ? live.c.tools(live.sub, null, 0, 0) : null, offered: tools ? live.c.tools(live.sub, null, 0, o.maxTools ?? 128) : null, leftOut });
    at += 1000;
    return profile;
  };
  return { live, p, spy, sample, tree };
}

describe('StateProfile on the core\'s profile of the fixture', () => {
  test('the total tokens are the tokenizer\'s count of the tree text exactly, and each subtree\'s the sum of its rows', async () => {
    const { live, p, sample } = await fixtureMirror();
    const profile = sample();
    countAll(p);
    const text = live.c.treeText(live.sub);
    const r = p.report({ depth: 1, top: 100 });
    assert.equal(r.complete, true);
    assert.equal(r.tokenizer, TOKENIZER);
    assert.equal(r.totals.tokens, countTokens(text));
    assert.equal(r.totals.chars, [...text].length);
    assert.equal(r.totals.nodes, EXPECTED.nodes);
    assert.equal(r.totals.tools, EXPECTED.actions);
    // A subtree's tokens: its rows' texts, each with the "\n" that ends its line (the last row without).
    const rows = profile.rows;
    for (const s of r.subtrees) {
      const i = rows.findIndex((row) => row[0] === s.path);
      let end = i + 1;
      while (end < rows.length && rows[end][3] > rows[i][3]) end++;
      const own = rows.slice(i, end).map((row, k) => (i + k === rows.length - 1 ? row[13] : `${row[13]}\n`)).join('');
      assert.equal(s.tokens, countTokens(own), s.path);
      assert.equal(s.nodes, end - i, s.path);
    }
    assert.deepEqual(r.subtrees.map((s) => s.path), EXPECTED.byTokens);
    live.free();
  });

  test('tool tokens are the tokenizer\'s count of each tool\'s definition, on the node it acts on', async () => {
    const { live, p, sample } = await fixtureMirror();
    sample();
    countAll(p);
    const list = live.c.tools(live.sub, null, 0, 0);
    assert.equal(list.tools.length, EXPECTED.actions);
    const text = (t) => JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters });
    const r = p.report({ depth: 1, top: 100 });
    assert.equal(r.totals.toolTokens, list.tools.reduce((n, t) => n + countTokens(text(t)), 0));
    const compose = r.subtrees.find((s) => s.path === '/compose');
    const mine = list.tools.filter((t) => list.resolve[t.name].path === '/compose');
    assert.equal(mine.length, 2);
    assert.equal(compose.toolTokens, mine.reduce((n, t) => n + countTokens(text(t)), 0));
    assert.deepEqual(list.tools.filter((t) => t.dangerous).map((t) => `${list.resolve[t.name].path} ${list.resolve[t.name].action}`), EXPECTED.dangerous);
    live.free();
  });

  test('after a patch only the texts it changed are counted again', async () => {
    const { live, p, spy, sample } = await fixtureMirror();
    sample();
    countAll(p);
    const first = spy.calls.length;
    assert.ok(first > EXPECTED.nodes, `every text counted once (${first})`);
    spy.calls.length = 0;
    // One message's subject, then the clock: two rows' texts change, and the clock is the last row.
    live.patch(2, 1, [{ op: 'replace', path: '/messages/m-7/properties/subject', value: 'Changed subject' }]);
    const profile = sample();
    assert.deepEqual(profile.rows.filter((row) => row[13] !== null).map((row) => row[0]), ['/messages/m-7']);
    countAll(p);
    assert.equal(spy.calls.length, 1);
    assert.match(spy.calls[0], /Changed subject.*\n$/);
    live.patch(3, 2, [{ op: 'replace', path: '/clock/properties/now', value: 5 }]);
    sample();
    countAll(p);
    // The last row: its line (text + "\n", for when a row comes after it) and its text alone.
    assert.equal(spy.calls.length, 3);
    assert.equal(spy.calls.filter((t) => t.startsWith('  [clock]')).length, 2, JSON.stringify(spy.calls));
    assert.equal(p.report().totals.tokens, countTokens(live.c.treeText(live.sub)));
    // Nothing changed: nothing counted.
    spy.calls.length = 0;
    sample();
    countAll(p);
    assert.equal(spy.calls.length, 0);
    live.free();
  });

  test('the tool lists are asked for again only when the affordances may have changed; their texts counted once', async () => {
    const { live, p, spy, sample } = await fixtureMirror();
    assert.equal(p.needsTools, true);
    sample();
    countAll(p);
    assert.equal(p.needsTools, false);
    live.patch(2, 1, [{ op: 'replace', path: '/messages/m-3/properties/subject', value: 'No actions here' },
      { op: 'replace', path: '/compose/properties/to', value: 'ada@example.com' }]);
    sample();
    countAll(p);
    assert.equal(p.needsTools, false, 'a property of a node with actions: its actions are the same');
    live.patch(3, 2, [{ op: 'replace', path: '/compose/affordances', value: [{ action: 'send', description: 'Send it' }] }]);
    sample({ tools: false });
    assert.equal(p.needsTools, true);
    spy.calls.length = 0;
    countAll(p);
    assert.equal(spy.calls.length, 1, 'the compose line');
    spy.calls.length = 0;
    sample();
    countAll(p);
    // The new send tool's text only: the other 26 tool texts were counted before.
    assert.deepEqual(spy.calls.map((t) => JSON.parse(t).name), ['compose__send']);
    assert.equal(p.report().totals.tools, EXPECTED.actions - 1);
    live.free();
  });

  test('a patch that adds a node: its text counted, the sums still the tokenizer\'s; a removed one drops out', async () => {
    const { live, p, sample } = await fixtureMirror();
    sample();
    countAll(p);
    live.patch(2, 1, [{ op: 'add', path: '/clock/tick', value: { id: 'tick', type: 'tick', properties: { n: 1 } } }]);
    sample();
    countAll(p);
    assert.equal(p.report().totals.tokens, countTokens(live.c.treeText(live.sub)));
    live.patch(3, 2, [{ op: 'remove', path: '/messages/m-0' }, { op: 'remove', path: '/clock/tick' }]);
    sample();
    countAll(p);
    const r = p.report();
    assert.equal(r.totals.tokens, countTokens(live.c.treeText(live.sub)));
    assert.equal(r.totals.nodes, EXPECTED.nodes - 1);
    live.free();
  });

  test('no-op writes are counted apart, the window and a range give the traffic between samples', async () => {
    const { live, p, sample } = await fixtureMirror();
    const profiles = [sample()]; // t0
    let v = 0, seq = 0;
    const write = (value) => live.patch(++v + 1, ++seq, [{ op: 'replace', path: '/clock/properties/now', value }]);
    write(1); write(1); write(2); write(2); // 4 writes, 2 of them no-ops
    profiles.push(sample()); // t0 + 1 s
    write(3); // 1 write
    profiles.push(sample()); // t0 + 2 s
    countAll(p);
    const r = p.report({ depth: 1 });
    const clock = r.subtrees.find((s) => s.path === '/clock');
    assert.deepEqual(clock.traffic, { patches: 5, ops: 5, bytes: clock.traffic.bytes, noops: 2 });
    assert.deepEqual(clock.window, clock.traffic);
    assert.equal(clock.rate.ops, 2.5);
    assert.deepEqual(r.churn.map((c) => [c.path, c.ops, c.noops, c.noopShare, c.perSecond]), [['/clock', 5, 2, 0.4, 2.5]]);
    assert.deepEqual(r.hints.filter((h) => h.kind === 'noop-writes').map((h) => h.text),
      ['/clock: 2.5 writes a second, 40 % of them write the value already there (2 no-op writes)']);
    const t = p.timeline();
    assert.deepEqual(t.ops, [0, 4, 1]);
    assert.deepEqual(t.noops, [0, 2, 0]);
    assert.equal(t.bytes[1] + t.bytes[2], clock.traffic.bytes);
    // The range holding the second sample only: what came between the first and the second.
    const ranged = p.report({ depth: 1, range: [t.at[1], t.at[1]] });
    const c1 = ranged.subtrees.find((s) => s.path === '/clock');
    assert.deepEqual([c1.window.ops, c1.window.noops, c1.rate.ops], [4, 2, 4]);
    assert.deepEqual(ranged.range, [t.at[1], t.at[1]]);
    // The root's subtree counts each patch once.
    assert.equal(ranged.totals.window.patches, 4);
    // A window of 1 s: the last sample's delta only.
    const narrow = new StateProfile({ countTokens, windowSeconds: 1 });
    profiles.forEach((profile, k) => narrow.ingest({ at: t.at[k], profile }));
    const n = narrow.report({ depth: 1 }).subtrees.find((s) => s.path === '/clock');
    assert.deepEqual([n.window.ops, n.rate.ops, n.traffic.ops], [1, 1, 5]);
    live.free();
  });

  test('the state budget cuts where the core\'s state tail does; the tools budget keeps the most salient', async () => {
    const { live, p, sample } = await fixtureMirror({ maxStateBytes: 2000, maxTools: 5 });
    const profile = sample();
    countAll(p);
    const r = p.report({ depth: 1 });
    // What the agent gets under 2000 bytes: the core's state tail of this provider; it cuts in
    // pre-order, so the rows in view are the first ones, and the tail holds their lines.
    const tail = /** @type {{text: string, nodesLeftOut: number}} */ (live.core.stateTail([live.c], 'T', 2000));
    const view = EXPECTED.nodes - tail.nodesLeftOut;
    const firstLine = (k) => profile.rows[k][13].split('\n')[0].trim();
    assert.ok(tail.text.includes(firstLine(view - 1)), 'the last row in view is in the tail');
    assert.ok(!tail.text.includes(firstLine(view)), 'the first row cut is not');
    let tokensIn = 0;
    for (let k = 0; k < view; k++) tokensIn += countTokens(`${profile.rows[k][13]}\n`);
    assert.ok(view > 1 && view < 30, `${view} lines fit`);
    const b = r.budgets;
    assert.equal(b.viewNodes, view);
    assert.equal(b.cutNodes, EXPECTED.nodes - view);
    assert.equal(b.tokensInView, tokensIn);
    assert.equal(b.tokensInView + b.tokensCut, r.totals.tokens);
    assert.equal(b.stateBytes, Buffer.byteLength(live.c.treeText(live.sub)) + 1);
    assert.equal(r.subtrees.find((s) => s.path === '/messages').inView, true);
    assert.equal(r.subtrees.find((s) => s.path === '/debug').inView, false);
    assert.deepEqual([b.tools, b.toolsOffered], [EXPECTED.actions, 5]);
    assert.equal(b.toolTokensOffered + b.toolTokensCut, r.totals.toolTokens);
    const kinds = r.hints.map((h) => h.kind);
    assert.ok(kinds.includes('state-budget-cut') && kinds.includes('tools-cut'), kinds.join());
    assert.match(r.hints.find((h) => h.kind === 'tools-cut').text, /offered 5 of 28 tools/);
    live.free();
  });

  test('the hints name the unwindowed collection and the low-salience subtree with their numbers', async () => {
    const { live, p, sample } = await fixtureMirror();
    sample();
    countAll(p);
    const r = p.report({ depth: 1 });
    const m = r.subtrees.find((s) => s.path === '/messages');
    const d = r.subtrees.find((s) => s.path === '/debug');
    assert.equal(m.windowed, false);
    assert.equal(r.subtrees.find((s) => s.path === '/archive').windowed, true);
    assert.equal(d.salience, 0.1);
    const text = (kind) => r.hints.find((h) => h.kind === kind)?.text;
    assert.equal(text('unwindowed-collection'), `/messages holds ${Math.round(m.share * 100)} % of the state's tokens and has no window (meta.window / total_children): the agent gets all ${EXPECTED.messagesChildren} children`);
    assert.equal(text('low-salience-cost'), `/debug has salience 0.1 and costs ${Math.round(d.share * 100)} % of the tokens (${d.tokens} of ${r.totals.tokens})`);
    live.free();
  });

  test('counting in slices: complete false until every text is counted; a missing text asks again from 0', async () => {
    const { live, p, sample } = await fixtureMirror();
    sample();
    assert.equal(p.countPending({ budgetMs: 0 }), false);
    let r = p.report();
    assert.equal(r.complete, false);
    assert.ok(r.counting.done >= 1 && r.counting.done < r.counting.total, JSON.stringify(r.counting));
    assert.ok(r.totals.tokens < countTokens(live.c.treeText(live.sub)));
    countAll(p);
    r = p.report();
    assert.equal(r.complete, true);
    assert.equal(r.counting.done, r.counting.total);
    // A profile that does not carry a text the cache lacks (as after a reset): the next asks since 0.
    const serial = p.since;
    assert.ok(serial > 0);
    p.reset();
    const stale = JSON.parse(live.c.profileText(live.sub, serial));
    p.ingest({ at: 1, profile: stale });
    assert.equal(p.since, 0);
    assert.equal(p.report().complete, false);
    live.free();
  });

  test('the hierarchy: sized by the measure, about maxNodes nodes, the rest merged', async () => {
    const { live, p, sample } = await fixtureMirror();
    sample();
    countAll(p);
    const h = p.hierarchy({ by: 'tokens', maxNodes: 20 });
    let count = 0, other = 0;
    const walk = (n) => {
      count++;
      if (n.other) other++;
      const sum = n.children.reduce((s, c) => s + c.value, 0);
      if (n.children.length) assert.equal(n.value, n.own + sum, n.id);
      n.children.forEach(walk);
    };
    walk(h);
    assert.equal(h.value, p.report().totals.tokens);
    assert.ok(count - other <= 20, `${count} nodes, ${other} merged`);
    const messages = h.children.find((c) => c.path === '/messages');
    assert.match(messages.children.at(-1).id, /^\(\d+ more\)$/);
    assert.deepEqual(h.children.filter((c) => !c.other).map((c) => c.path).slice(0, 2), ['/messages', '/debug']);
    const byNodes = p.hierarchy({ by: 'nodes' });
    assert.equal(byNodes.value, EXPECTED.nodes);
    // Bytes: the children's JSON and the JSON around them add up to the subtree's.
    const byBytes = p.hierarchy({ by: 'bytes', maxNodes: 50 });
    walk(byBytes);
    assert.equal(byBytes.value, p.report().totals.bytes);
    live.free();
  });
});

describe('StateProfile on hand-made profiles', () => {
  /** A row as the core writes it. */
  const row = (path, parent, depth, text, self = [0, 0, 0, 0], sub = self) => [path, 'node', parent, depth, 10, 10, 1, 0, 0, null, 0, self, sub, text];

  test('a sample keeps only the rows whose counters moved; at most MAX_SAMPLES samples', () => {
    const p = new StateProfile({ countTokens: (t) => t.length });
    const prof = (serial, n) => ({ sub: 's1', serial, nodes: 2, rows: [row('/', -1, 0, serial === 1 ? '[root] r' : null, [0, 0, 0, 0], [n, n, n, 0]), row('/a', 0, 1, serial === 1 ? '  [node] a' : null, [n, n, n, 0])] });
    p.ingest({ at: 0, profile: prof(1, 0) });
    p.ingest({ at: 1000, profile: prof(2, 3) });
    p.ingest({ at: 2000, profile: prof(3, 3) });
    assert.deepEqual([...p.samples[1].ids], [p.pathIds.get('/'), p.pathIds.get('/a')]);
    assert.deepEqual([...p.samples[1].values], [0, 0, 0, 0, 3, 3, 3, 0, 3, 3, 3, 0, 3, 3, 3, 0]);
    assert.equal(p.samples[2].ids.length, 0);
    for (let k = 0; k < MAX_SAMPLES + 5; k++) p.ingest({ at: 3000 + k, profile: prof(4 + k, 3) });
    assert.equal(p.samples.length, MAX_SAMPLES);
    assert.equal(p.timeline().at.length, MAX_SAMPLES);
  });

  test('a profile whose traffic counters are not complete is not complete', () => {
    const p = new StateProfile({ countTokens: (t) => t.length });
    p.ingest({ at: 0, profile: { sub: 's1', serial: 5, nodes: 1, counters_complete: false, rows: [row('/', -1, 0, '[root] r')] } });
    countAll(p);
    assert.deepEqual([p.report().complete, p.report().counting.done === p.report().counting.total], [false, true]);
  });

  test('a new subscription handle starts over', () => {
    const p = new StateProfile({ countTokens: (t) => t.length });
    p.ingest({ at: 0, profile: { sub: 's1', serial: 5, nodes: 1, rows: [row('/', -1, 0, '[root] r')] } });
    p.ingest({ at: 1, profile: { sub: 's2', serial: 1, nodes: 1, rows: [row('/', -1, 0, '[root] q')] } });
    assert.equal(p.samples.length, 1);
    assert.equal(p.report().sub, 's2');
  });

  test('a long text is counted in pieces whose counts add up to the whole\'s', () => {
    const words = Array.from({ length: 40_000 }, (_, i) => ['state', 'Token', 'x9', '"quoted"', 'naïve', '日本語', '(a)', 'end.'][i % 8]).join(' ');
    const pieces = splitForCounting(words, 4096);
    assert.ok(pieces && pieces.length > 10);
    assert.equal(pieces.join(''), words);
    assert.equal(pieces.reduce((n, s) => n + countTokens(s), 0), countTokens(words));
    const p = new StateProfile({ countTokens });
    p.ingest({ at: 0, profile: { sub: 's', serial: 1, nodes: 1, rows: [row('/', -1, 0, words)] } });
    let steps = 0;
    while (!p.countPending({ budgetMs: 0 })) steps++;
    assert.ok(steps > 1, `${steps} steps`);
    assert.equal(p.report().totals.tokens, countTokens(words));
    assert.deepEqual(textSizes('a\u00e9\u65e5\u{1F600}'), { chars: 4, utf8: 1 + 2 + 3 + 4 });
  });
});

describe('client.profile() on the fixture provider', () => {
  let srv, client;
  before(async () => {
    await loadCore();
    srv = await startProfileProvider();
    client = await connect(srv.wsUrl, { token: srv.token });
  });
  after(async () => {
    client?.close();
    await srv?.close();
  });

  test('ranks the subtrees, counts the clock\'s writes and no-ops, gives the hints', { timeout: 30_000 }, async () => {
    const r = await client.profile({ seconds: 2, depth: 1 });
    assert.equal(r.format, 'slop-inspector-profile');
    assert.equal(r.complete, true);
    assert.deepEqual(r.subtrees.map((s) => s.path), EXPECTED.byTokens);
    assert.equal(r.totals.tokens, countTokens(await client.text()) - 0, 'the tree text as the client reads it');
    const clock = r.churn.find((c) => c.path === '/clock');
    assert.ok(clock, JSON.stringify(r.churn));
    assert.ok(Math.abs(clock.perSecond - EXPECTED.clockWritesPerSecond) <= 3, `${clock.perSecond} writes a second`);
    assert.ok(Math.abs(clock.noopShare - EXPECTED.clockNoopShare) <= 0.15, `${clock.noopShare} no-ops`);
    assert.deepEqual(EXPECTED.hints.map(([kind, path]) => r.hints.some((h) => h.kind === kind && h.path === path)), EXPECTED.hints.map(() => true), JSON.stringify(r.hints, null, 1));
    assert.equal(r.by, 'tokens');
    assert.ok(r.seconds >= 1.9 && r.seconds < 3, String(r.seconds));
  });

  test('by traffic ranks the clock first; a small maxStateBytes cuts', { timeout: 30_000 }, async () => {
    const r = await client.profile({ seconds: 1, by: 'traffic', depth: 1, maxStateBytes: 1000, maxTools: 3 });
    assert.equal(r.subtrees[0].path, '/clock');
    assert.equal(r.subtrees[0].share, 1);
    assert.equal(r.budgets.maxStateBytes, 1000);
    assert.ok(r.budgets.cutNodes > EXPECTED.nodes - 20, String(r.budgets.cutNodes));
    assert.equal(r.budgets.toolsOffered, 3);
  });
});

test('the Cost tab\'s worker names the tokenizer as Node does (the version build.sh vendors)', async () => {
  const { readFile } = await import('node:fs/promises');
  const worker = await readFile(new URL('../../extension/panel/profile-worker.js', import.meta.url), 'utf8');
  const named = /export const TOKENIZER = '([^']+)'/.exec(worker)?.[1];
  assert.equal(named, TOKENIZER, 'profile-worker.js spells the version the lock file installs');
});
