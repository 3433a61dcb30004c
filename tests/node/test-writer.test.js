// test-writer.test.js: "Copy as test" (extension/shared/test-writer.js). A History on the real core
// (timeline.js fed as connections.js feeds it) becomes a test: the invokes with their params as sent,
// each followed by what it changed (the worker's diff), a clock that ticks on its own left out; the
// text parses (acorn), every provider string is a literal that reads back exactly, numbers keep
// their digits; the generated comparison tells 1.50 = 1.5 and a 64-bit id's last digit apart.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import * as acorn from 'acorn';
import '../../js-glue/node/exact-json.js'; // exact numbers on Node 20
import { loadCore, HELLO_ALL } from './helpers.js';
import { Timeline } from '../../extension/service-worker/timeline.js';
import { planTest, writeTest, jsString, valueSource, comment, MAX_ASSERTIONS } from '../../extension/shared/test-writer.js';
import { parseVerbatim } from '../../js-glue/exact-json.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const core = await loadCore();

/** A live consumer and its timeline, as tests/node/timeline.test.js makes them. */
function session() {
  const c = new core.SlopConsumer({ transport: 'ws', seed: 7 });
  const sub = c.subscribe({ path: '/', depth: -1 }, 0);
  const tl = new Timeline({ core: () => core, label: { pageUrl: 'http://app.test/', transport: 'ws://app.test/slop' } });
  const wire = () => c.status().subscriptions[0].wire;
  const feed = (frame) => {
    const text = typeof frame === 'string' ? frame : JSON.stringify(frame);
    tl.input(text, 1000);
    c.receive(text, 1000);
    for (const o of c.drain()) {
      if (o.kind !== 'event') continue;
      if (o.event.event === 'hello') tl.helloSeen(o.event.provider);
      tl.event(o.event, sub, () => c.status());
    }
  };
  let v = 1;
  let seq = 0;
  const patch = (ops) => feed({ type: 'patch', subscription: wire(), version: ++v, seq: ++seq, ops });
  /** An invoke sent (as session-requests.js emits it to timelines.js), its result id. */
  const invoke = (p, action, params) => {
    const id = c.invoke(p, action, params, 1000);
    c.drain();
    tl.invoked(p, action, params);
    return id;
  };
  const result = (id, status = 'ok', extra = {}) => feed({ type: 'result', id, status, ...extra });
  return { c, tl, feed, wire, patch, invoke, result };
}

const TREE = {
  id: 'root', type: 'root', children: [
    { id: 'clock', type: 'status', properties: { now: 1 } },
    { id: 'inbox', type: 'collection', properties: { unread: 2, total: 'num:1234567890123456789' }, children: [
      { id: 'm1', type: 'item', properties: { unread: true, price: 1 }, affordances: [{ action: 'mark_read' }, { action: 'delete', dangerous: true }] },
      { id: 'm2', type: 'item', properties: { unread: true, price: 2 }, affordances: [{ action: 'mark_read' }, { action: 'delete', dangerous: true }] },
    ] },
  ],
};

/** Exact JSON text of a frame whose numbers are written as given ("num:1.50" → 1.50). */
const exactText = (m) => JSON.stringify(m).replace(/"num:(-?[\d.eE+-]+)"/g, '$1');

/** A recorded session: a clock tick, mark_read (patch before result, with a clock tick inside), delete (result first, then its patch), a tick. */
function recorded() {
  const s = session();
  s.feed(HELLO_ALL);
  s.feed(exactText({ type: 'snapshot', id: s.wire(), version: 1, seq: 0, tree: TREE }));
  s.patch([{ op: 'replace', path: '/clock/properties/now', value: 2 }]);
  const a = s.invoke('/inbox/m1', 'mark_read', { note: 'it\'s "done"', id: parseVerbatim('12345678901234567891'), price: parseVerbatim('1.50') });
  s.feed(exactText({ type: 'patch', subscription: s.wire(), version: 3, seq: 2, ops: [
    { op: 'replace', path: '/inbox/m1/properties/unread', value: false },
    { op: 'replace', path: '/inbox/m1/properties/price', value: 'num:1.50' },
    { op: 'replace', path: '/inbox/properties/unread', value: 1 },
    { op: 'replace', path: '/inbox/properties/total', value: 'num:1234567890123456788' },
    { op: 'replace', path: '/clock/properties/now', value: 3 },
    { op: 'add', path: '/inbox/r1', value: { id: 'r1', type: 'receipt', properties: { amount: 'num:1.50', zero: 'num:-0' } } },
  ] }));
  s.result(a);
  const b = s.invoke('/inbox/m2', 'delete');
  s.result(b);
  s.feed({ type: 'patch', subscription: s.wire(), version: 4, seq: 3, ops: [{ op: 'remove', path: '/inbox/m2' }] });
  s.feed({ type: 'patch', subscription: s.wire(), version: 5, seq: 4, ops: [{ op: 'replace', path: '/clock/properties/now', value: 4 }] });
  return s;
}

/** The panel's gathering (parts/copy-as-test.js write), with the worker's diffs as a port carries them. */
function gather(s, range = null) {
  const plan = planTest(s.tl.steps, range);
  const invokes = plan.invokes.map((w) => ({
    step: w.invoke.step, path: w.invoke.path, action: w.invoke.action, paramsText: w.invoke.paramsText,
    status: w.result?.status ?? null, message: w.result?.message,
    diff: w.to === null ? null : JSON.parse(JSON.stringify(s.tl.diff(w.from, w.to))),
  }));
  return { plan, invokes };
}

/** Every string literal of a program, in order. */
function literals(text) {
  const out = [];
  const visit = (n) => {
    if (!n || typeof n.type !== 'string') return;
    if (n.type === 'Literal' && typeof n.value === 'string') out.push(n.value);
    for (const v of Object.values(n)) {
      if (Array.isArray(v)) v.forEach(visit);
      else if (v && typeof v === 'object') visit(v);
    }
  };
  visit(acorn.parse(text, { ecmaVersion: 'latest', sourceType: 'module' }));
  return out;
}

test('the History keeps an invoke\'s params as the JSON text sent, in recordings too (older recordings still read)', () => {
  const s = recorded();
  const inv = s.tl.steps.find((x) => x.kind === 'invoke');
  assert.equal(inv.paramsText, '{"note":"it\'s \\"done\\"","id":12345678901234567891,"price":1.50}');
  assert.equal(s.tl.steps.filter((x) => x.kind === 'invoke')[1].paramsText, undefined, 'no params: none kept');
  const rec = JSON.parse(JSON.stringify(s.tl.recording()));
  const back = Timeline.fromRecording(rec, () => core);
  assert.equal(back.steps.find((x) => x.kind === 'invoke').paramsText, inv.paramsText);
  // A recording from before params were kept, and one with a params field of the wrong type.
  const old = { ...rec, steps: rec.steps.map(({ paramsText: _p, ...st }) => st) };
  assert.equal(Timeline.fromRecording(old, () => core).steps.find((x) => x.kind === 'invoke').paramsText, undefined);
  const odd = { ...rec, steps: rec.steps.map((st) => (st.kind === 'invoke' ? { ...st, paramsText: { x: 1 } } : st)) };
  assert.equal(Timeline.fromRecording(odd, () => core).steps.find((x) => x.kind === 'invoke').paramsText, undefined);
});

test('each invoke is judged up to its result (patches first) or the first patch after it; paths that tick on their own are volatile', () => {
  const s = recorded();
  const kinds = s.tl.steps.map((x) => `${x.step}:${x.kind}`);
  assert.deepEqual(kinds, ['1:snapshot', '2:patch', '3:invoke', '4:patch', '5:result', '6:invoke', '7:result', '8:patch', '9:patch']);
  const { invokes, volatile, volatileComplete } = planTest(s.tl.steps);
  assert.deepEqual(invokes.map((w) => [w.from, w.to, w.result?.step]), [[3, 5, 5], [6, 8, 7]]);
  assert.deepEqual(volatile, ['/clock'], 'the ticks at steps 2 and 9 are outside every invoke');
  assert.equal(volatileComplete, true);
  // A range: only its invokes, and nothing judged past its end.
  const r = planTest(s.tl.steps, { from: 6, to: 7 });
  assert.deepEqual(r.invokes.map((w) => [w.from, w.to]), [[6, 7]]);
  assert.deepEqual(planTest(s.tl.steps, { from: 8, to: 9 }).invokes, []);
  // No result recorded: up to the step before the next invoke.
  const steps = [{ step: 1, kind: 'snapshot' }, { step: 2, kind: 'invoke', path: '/a', action: 'x' }, { step: 3, kind: 'patch', paths: ['/a'] }, { step: 4, kind: 'invoke', path: '/a', action: 'x' }];
  assert.deepEqual(planTest(steps).invokes.map((w) => [w.from, w.to]), [[2, 3], [4, null]]);
});

test('the Node form: recorded order, params and values with the provider\'s digits, the clock not asserted; it parses', () => {
  const s = recorded();
  const { plan, invokes } = gather(s);
  const text = writeTest({ form: 'node', provider: { id: 'app', name: 'App' }, transport: { type: 'ws', url: 'ws://app.test/slop' }, pageUrl: 'http://app.test/',
    range: null, invokes, volatile: plan.volatile });
  const ast = acorn.parse(text, { ecmaVersion: 'latest', sourceType: 'module' });
  assert.ok(ast.body.length > 5);
  assert.doesNotMatch(text, /`/, 'no template literal anywhere: nothing is interpolated into code at run time');
  const body = text.slice(0, text.indexOf('// ----'));
  const calls = body.split('\n').filter((l) => /app\.invoke|expectNode|assert\.rejects/.test(l)).map((l) => l.trim());
  assert.deepEqual(calls, [
    "await app.invoke('/inbox/m1', 'mark_read', { note: 'it\\'s \"done\"', id: num('12345678901234567891'), price: num('1.50') });",
    "await expectNode(app, '/inbox', { properties: { unread: 1, total: num('1234567890123456788') } });",
    // A value a patch set keeps its text in the core as every other does (1.50, -0, a 64-bit id:
    // wasm/src/json_read.c, b_number).
    "await expectNode(app, '/inbox/m1', { properties: { unread: false, price: num('1.50') } });",
    "await expectNode(app, '/inbox/r1', { type: 'receipt', properties: { amount: num('1.50'), zero: num('-0') } });",
    "await app.invoke('/inbox/m2', 'delete');",
    "await expectNode(app, '/inbox/m2', null);",
  ]);
  assert.match(body, /not asserted, they change on their own: \/clock/);
  assert.match(text, /from 'slop-inspector\/node'/);
  assert.match(text, /numbers: 'verbatim'/);
  assert.match(text, /const PROVIDER_URL = process\.env\.SLOP_PROVIDER_URL \?\? 'ws:\/\/app\.test\/slop';/);
});

test('the Playwright form opens the page and confirms a dangerous affordance as the user did; a postMessage provider has no Node form', () => {
  const s = recorded();
  const { plan, invokes } = gather(s, { from: 6, to: 8 });
  invokes[0].dangerous = true;
  const text = writeTest({ form: 'playwright', provider: { id: 'app', name: 'App' }, transport: { type: 'postmessage' }, pageUrl: 'http://app.test/page.html',
    range: { from: 6, to: 8 }, invokes, volatile: plan.volatile });
  acorn.parse(text, { ecmaVersion: 'latest', sourceType: 'module' });
  assert.match(text, /import \{ launchWithSlop, Slop, stringifyExact \} from 'slop-inspector\/playwright';/);
  assert.match(text, /await app\.invoke\('\/inbox\/m2', 'delete', undefined, \{ confirmDangerous: true \}\);/);
  assert.match(text, /const PAGE_URL = process\.env\.SLOP_PAGE_URL \?\? 'http:\/\/app\.test\/page\.html';/);
  assert.match(text, /steps 6 to 8, 1 invoke/);
  assert.throws(() => writeTest({ form: 'node', provider: null, transport: { type: 'postmessage' }, pageUrl: null, range: null, invokes }),
    (e) => e.code === 'needs_playwright' && /use the Playwright form/.test(e.message));
});

test('hostile provider text stays inside literals and one-line comments, and reads back exactly', () => {
  const nasty = ["'); process.exit(1); ('", '"}); x(); ({"', '\\\'', '*/ */', '\n// x\nprocess.exit(2)', '\u2028\u2029', '${process.exit(3)}', '`', '</script>', '\0\x1f\ud800'];
  for (const s of nasty) {
    assert.deepEqual(literals(`x(${jsString(s)});`), [s], JSON.stringify(s));
    assert.doesNotMatch(comment(s), /[\n\r\u2028\u2029]/);
  }
  const props = Object.fromEntries(nasty.map((s, i) => [s, `${i}${s}`]));
  props.__proto__ = 'own key'; // a key, not the literal's prototype
  const invokes = nasty.map((s, i) => ({
    step: i + 2, path: `/n/${s}`, action: s, paramsText: JSON.stringify({ [s]: s }), status: i % 2 ? 'error' : 'ok', message: s,
    diff: { added: [{ path: `/n/${s}/new`, type: s, properties: props, affordances: [{ action: s }], child_ids: [] }], removed: [], changed: [] },
  }));
  for (const form of ['playwright', 'node']) {
    const text = writeTest({ form, provider: { id: nasty[0], name: nasty[4] }, transport: { type: 'ws', url: `ws://h/${nasty[1]}` }, pageUrl: `http://h/${nasty[2]}`,
      range: null, invokes, volatile: [], generatedAt: nasty[4] });
    const lits = literals(text);
    for (const s of nasty) {
      assert.ok(lits.includes(`/n/${s}`), `path ${JSON.stringify(s)} is a literal`);
      assert.ok(lits.includes(s), `${JSON.stringify(s)} is a literal`);
    }
    assert.ok(!/process\.exit/.test(text.replace(/'(?:[^'\\\n]|\\.)*'/g, "''").replace(/\/\/[^\n]*/g, '')), 'no provider text outside literals and comments');
  }
  // The __proto__ key is written as a computed key: an own property of the value.
  assert.equal(valueSource({ ['__proto__']: 1, a: -0 }), "{ ['__proto__']: 1, a: num('-0') }");
});

test(`at most ${MAX_ASSERTIONS} assertions an invoke; the rest are counted`, () => {
  const added = Array.from({ length: MAX_ASSERTIONS + 7 }, (_, i) => ({ path: `/list/i${String(i).padStart(3, '0')}`, type: 'item', child_ids: [] }));
  const text = writeTest({ form: 'node', provider: { id: 'a' }, transport: { type: 'ws', url: 'ws://h/' }, pageUrl: null, range: null,
    invokes: [{ step: 2, path: '/list', action: 'fill', status: 'ok', diff: { added, removed: [], changed: [] } }] });
  assert.equal(text.match(/await expectNode/g).length, MAX_ASSERTIONS);
  assert.match(text, /… 7 more changes not asserted/);
  assert.match(text, /const ORIGIN = process\.env\.SLOP_ORIGIN;/, 'no page: no Origin but the one given');
});

test('the generated comparison: exact decimal value (1.50 = 1.5, -0 ≠ 0, a 64-bit id to its last digit), arrays and absent keys', async () => {
  // The helpers part of a generated file, as a module of its own (no eval).
  const text = writeTest({ form: 'node', provider: { id: 'a' }, transport: { type: 'ws', url: 'ws://h/' }, pageUrl: null, range: null, invokes: [] });
  const helpers = text.slice(text.indexOf('// ----'));
  const dir = fs.mkdtempSync(path.join(ROOT, 'build', 'test-writer-'));
  try {
    const file = path.join(dir, 'helpers.mjs');
    fs.writeFileSync(file, `const stringifyExact = (v) => JSON.stringify(v);\nconst assert = null;\nconst WAIT_MS = 0;\n${helpers}\nexport { num, same, mismatch };\n`);
    const { num, same, mismatch } = await import(pathToFileURL(file).href);
    assert.ok(same(1.5, num('1.50')));
    assert.ok(same(num('1.50'), num('15e-1')));
    assert.ok(same(100, num('1E2')));
    assert.ok(!same(0, num('-0')));
    assert.ok(same(-0, num('-0')));
    assert.ok(same(num('1234567890123456789'), num('1234567890123456789')));
    assert.ok(!same(num('1234567890123456788'), num('1234567890123456789')), 'a double would call these equal');
    assert.ok(!same(1, '1'));
    assert.ok(same({ a: [1, { b: null }] }, { a: [1, { b: null }] }));
    assert.ok(!same({ a: [1, 2] }, { a: [1] }));
    assert.ok(!same({ a: 1, b: 2 }, { a: 1 }), 'a value object must be whole');
    assert.equal(mismatch({ properties: { x: 1 } }, { properties: { x: 1, gone: undefined } }), '');
    assert.match(mismatch({ properties: { gone: 1 } }, { properties: { gone: undefined } }), /gone.*is 1, expected \(absent\)/);
    assert.match(mismatch({ type: 'item', affordances: [] }, { affordances: { open: true } }), /"open" is not offered/);
    assert.match(mismatch(null, { type: 'item' }), /there is none/);
    assert.equal(mismatch(null, null), '');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
