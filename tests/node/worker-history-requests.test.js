// The History's requests (extension/service-worker/history-requests.js) over the histories the
// worker keeps (timelines.js) in Node: the whole worker (sw.js) with a fake browser and the real
// core (fake-browser.js), the fixtures' todo app behind a page's postMessage relay. The steps as
// the provider changes, the new ones pushed only to the ports that follow that history, the state
// at a step and the diff between two, a recording exported and opened in another port, pause,
// and a closed tab's history gone with it.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, openPage, openUi, until } from './fake-browser.js';
import { createTodoEngine } from '../fixtures/demo-trees.mjs';
import { Request, Push, ErrorCode } from '../../extension/shared/messages.js';

const { fake, api } = await startWorker();
const engine = createTodoEngine();
const TAB = 6;
const KEY = 'postmessage';
const page = openPage(fake, { tabId: TAB, url: 'http://app.test/todos', metas: [KEY], engine });
await until(() => api.info(TAB, KEY)?.live, { what: 'the provider live' });
const panel = openUi(fake, { tabId: TAB });
after(() => { panel.close(); page.close(); });

const title = (/** @type {string} */ id, /** @type {string} */ text) => engine.mutate((root) => {
  root.children[0].children.find((/** @type {any} */ t) => t.id === id).properties.title = text;
});

test('HISTORY lists the steps; the new ones go to the ports that follow it, and only to those', async () => {
  const first = await panel.ask(Request.HISTORY, { key: KEY });
  assert.deepEqual(first.steps.map((s) => s.kind), ['snapshot']);
  assert.equal(first.info.steps, 1);
  const bystander = openUi(fake, { tabId: TAB });
  const from = panel.sent.length;
  const mark = bystander.sent.length;
  title('t1', 'Buy bread');
  const pushed = await panel.waitFor((m) => m.type === Push.HISTORY && m.steps.some((s) => s.kind === 'patch'), { from, what: 'the patch step' });
  const step = pushed.steps.find((s) => s.kind === 'patch');
  assert.equal(pushed.key, KEY);
  assert.deepEqual(step.paths, ['/todos/t1']);
  assert.equal(step.version, first.steps[0].version + 1);
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.deepEqual(bystander.sent.slice(mark).filter((m) => m.type === Push.HISTORY), [], 'a port that never opened the History gets nothing');
  bystander.close();
  // An invoke is a step, and so is its result.
  await panel.ask(Request.INVOKE, { key: KEY, path: '/todos/t2', action: 'toggle' });
  const all = await until(async () => {
    const h = await panel.ask(Request.HISTORY, { key: KEY });
    return h.steps.some((s) => s.kind === 'result') && h;
  }, { what: 'the invoke and its result listed' });
  assert.deepEqual(all.steps.filter((s) => s.kind === 'invoke').map((s) => [s.path, s.action]), [['/todos/t2', 'toggle']]);
});

test('the state at a step and the diff between two are the core\'s, from the steps kept', async () => {
  const { steps } = await panel.ask(Request.HISTORY, { key: KEY });
  const snap = steps.find((s) => s.kind === 'snapshot');
  const rename = steps.find((s) => s.kind === 'patch' && s.paths.includes('/todos/t1'));
  const at = await panel.ask(Request.HISTORY_STATE, { key: KEY, step: snap.step });
  assert.equal(at.full, true);
  assert.equal(at.views.find((v) => v.path === '/todos/t1').properties.title, 'Buy milk', 'before the rename');
  const after1 = await panel.ask(Request.HISTORY_STATE, { key: KEY, step: rename.step, have: snap.step });
  assert.equal(after1.full, false, 'only what differs from the state the panel has');
  assert.deepEqual(after1.views.map((v) => [v.path, v.properties.title]), [['/todos/t1', 'Buy bread']]);
  const d = await panel.ask(Request.HISTORY_DIFF, { key: KEY, from: snap.step, to: rename.step });
  assert.deepEqual(d.changed.map((c) => c.path), ['/todos/t1']);
  const paths = await panel.ask(Request.HISTORY_DIFF, { key: KEY, from: snap.step, to: rename.step, paths: true });
  assert.deepEqual(paths.changed, ['/todos/t1']);
  const filtered = await panel.ask(Request.HISTORY_FILTER, { key: KEY, path: 'todos/t1' });
  assert.deepEqual(filtered.steps, [snap.step, rename.step], 'the snapshot touched every path; the toggle of t2 none of t1');
  const bad = await panel.request(Request.HISTORY_STATE, { key: KEY, step: 'one' });
  assert.equal(bad.error.code, ErrorCode.BAD_REQUEST);
  const gone = await panel.request(Request.HISTORY_STATE, { key: KEY, step: 10_000 });
  assert.equal(gone.error.code, ErrorCode.NOT_FOUND);
});

test('a recording exported here opens read-only in another port, with the same steps and states; closing it lets it go', async () => {
  const exported = await panel.ask(Request.HISTORY_EXPORT, { key: KEY });
  const live = await panel.ask(Request.HISTORY, { key: KEY });
  assert.equal(exported.steps, live.steps.length);
  const other = openUi(fake, { tabId: 99 });
  const rec = await other.ask(Request.OPEN_RECORDING, { text: exported.text, name: 'todos.json' });
  assert.match(rec.key, /^recording:\d+$/);
  assert.deepEqual(rec.steps.map((s) => [s.step, s.kind, s.version]), live.steps.map((s) => [s.step, s.kind, s.version]));
  const last = live.steps.filter((s) => s.version !== null).at(-1);
  const [a, b] = await Promise.all([
    panel.ask(Request.HISTORY_STATE, { key: KEY, step: last.step }),
    other.ask(Request.HISTORY_STATE, { key: rec.key, step: last.step }),
  ]);
  assert.deepEqual(b.views, a.views);
  const ro = await other.request(Request.HISTORY_PAUSE, { key: rec.key, on: true });
  assert.equal(ro.error.code, ErrorCode.BAD_STATE);
  assert.equal((await panel.request(Request.HISTORY, { key: rec.key })).error.code, ErrorCode.NOT_FOUND, 'the recording is that port\'s own');
  await other.ask(Request.CLOSE_RECORDING, { key: rec.key });
  assert.equal((await other.request(Request.HISTORY, { key: rec.key })).error.code, ErrorCode.NOT_FOUND);
  const notJson = await other.request(Request.OPEN_RECORDING, { text: '{"steps": [' });
  assert.equal(notJson.error.code, ErrorCode.INVALID_TREE);
  other.close();
});

test('pause records no step; resume says what was missed; a closed tab takes its history with it', async () => {
  const paused = await panel.ask(Request.HISTORY_PAUSE, { key: KEY, on: true });
  assert.ok(paused.info.paused);
  const before = (await panel.ask(Request.HISTORY, { key: KEY })).steps.length;
  title('t3', 'Call Carol');
  await until(() => api.mirror(TAB, KEY)?.children[0].children.find((/** @type {any} */ t) => t.id === 't3').properties.title === 'Call Carol', { what: 'the mirror patched' });
  assert.equal((await panel.ask(Request.HISTORY, { key: KEY })).steps.length, before, 'no step while paused');
  const resumed = await panel.ask(Request.HISTORY_PAUSE, { key: KEY, on: false });
  assert.equal(resumed.info.paused, null);
  const steps = (await panel.ask(Request.HISTORY, { key: KEY })).steps;
  assert.deepEqual(steps.at(-1).resumed, { notRecorded: 1 });
  fake.removeTab(TAB);
  assert.equal((await panel.request(Request.HISTORY, { key: KEY })).error.code, ErrorCode.NOT_FOUND);
});
