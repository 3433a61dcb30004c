// A panel watching a provider (extension/service-worker/tree-watch.js, with the node views of
// node-views.js) in Node: the whole worker (sw.js) with a fake browser and the real core
// (fake-browser.js), the fixtures' todo app behind a page's postMessage relay. What the panel's
// port receives: the first views breadth-first within its budget, a delta of what it has seen on
// each patch (the views as the core's text, removals, child insertions), views on demand, the
// frame log and the events kept from before it watched; nothing after it stops watching.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, openPage, openUi, until } from './fake-browser.js';
import { createTodoEngine } from '../fixtures/demo-trees.mjs';
import { Request, Push } from '../../extension/shared/messages.js';

const { fake, api } = await startWorker();
const engine = createTodoEngine();
const TAB = 3;
const KEY = 'postmessage';
const page = openPage(fake, { tabId: TAB, url: 'http://app.test/todos', metas: [KEY], engine });
await until(() => api.info(TAB, KEY)?.live, { what: 'the provider live' });
after(() => page.close());

/** @param {(root: any) => void} fn */
const change = (fn) => engine.mutate(fn);
const todos = (/** @type {any} */ root) => root.children.find((c) => c.id === 'todos');

test('WATCH: the first views come breadth-first within the budget, then the events kept and the log', async () => {
  const panel = openUi(fake, { tabId: TAB });
  assert.deepEqual(await panel.ask(Request.WATCH, { key: KEY, budget: 3, log: true }), {});
  const reset = await panel.waitFor((m) => m.type === Push.TREE_RESET, { what: 'the reset' });
  assert.deepEqual(reset.nodes.map((n) => n.path), ['/', '/todos', '/todos/t1'], 'breadth-first, three views');
  assert.equal(reset.complete, false, 'the budget cut it short');
  assert.equal(reset.count, 5);
  assert.equal(reset.path, '/');
  assert.deepEqual(reset.nodes[1].child_ids, ['t1', 't2', 't3']);
  const log = await panel.waitFor((m) => m.type === Push.LOG && m.replace === true, { what: 'the whole log' });
  assert.deepEqual(log.entries.slice(0, 2).map((e) => e.type), ['connect', 'hello']);
  const events = await panel.waitFor((m) => m.type === Push.EVENTS, { what: 'the kept events' });
  assert.ok(events.events.some((e) => e.event.event === 'hello'), JSON.stringify(events.events.map((e) => e.event.event)));
  // The rest on demand: views and what the mirror does not have.
  const got = await panel.ask(Request.GET_NODES, { key: KEY, sub: reset.sub, paths: ['/todos/t3', '/todos/gone'] });
  assert.deepEqual(got.nodes.map((n) => n.properties.title), ['Call Alice']);
  assert.deepEqual(got.missing, ['/todos/gone']);
  assert.equal(got.count, 5);
  panel.close();
});

test('a patch is a delta of what the port has seen: fresh views of changed nodes, removed paths, child insertions', async () => {
  const panel = openUi(fake, { tabId: TAB });
  await panel.ask(Request.WATCH, { key: KEY, log: true });
  const reset = await panel.waitFor((m) => m.type === Push.TREE_RESET, { what: 'the reset' });
  assert.equal(reset.complete, true);
  let from = panel.sent.length;
  change((root) => { todos(root).children[0].properties.title = 'Buy oat milk'; });
  const renamed = await panel.waitFor((m) => m.type === Push.TREE_DELTA, { from, what: 'the rename delta' });
  assert.equal(renamed.key, KEY);
  assert.equal(renamed.version, reset.version + 1);
  assert.equal(typeof renamed.views, 'string', 'the core\'s text, passed on');
  assert.deepEqual(JSON.parse(renamed.views).map((v) => [v.path, v.properties.title]), [['/todos/t1', 'Buy oat milk']]);
  assert.deepEqual(renamed.removed, []);
  await panel.waitFor((m) => m.type === Push.LOG && !m.replace && m.entries.some((e) => e.type === 'patch'), { from, what: 'the patch in the log' });

  from = panel.sent.length;
  change((root) => {
    const list = todos(root);
    list.children = list.children.filter((t) => t.id !== 't2');
    list.children.push({ id: 't9', type: 'item', properties: { title: 'New', done: false } });
  });
  const moved = await panel.waitFor((m) => m.type === Push.TREE_DELTA, { from, what: 'the structural delta' });
  assert.deepEqual(moved.removed, ['/todos/t2']);
  assert.ok(JSON.parse(moved.views).some((v) => v.path === '/todos/t9'), 'the added child\'s view');
  assert.ok(moved.children.some((c) => c.op === 'insert' && c.parent === '/todos' && c.id === 't9'), JSON.stringify(moved.children));
  assert.deepEqual(api.nodeViews(TAB, KEY, null, ['/todos'])?.[0]?.child_ids, ['t1', 't3', 't9'], 'the mirror the delta describes');

  // UNWATCH: the next patch sends this port nothing.
  await panel.ask(Request.UNWATCH, { key: KEY });
  from = panel.sent.length;
  change((root) => { todos(root).children[0].properties.done = true; });
  await until(() => api.mirror(TAB, KEY)?.children[0].children[0].properties.done === true, { what: 'the mirror patched' });
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.deepEqual(panel.sent.slice(from).filter((m) => m.type === Push.TREE_DELTA || m.type === Push.LOG), []);
  panel.close();
});

test('only the ports watching a provider get its pushes; a port on another tab gets nothing', async () => {
  const watching = openUi(fake, { tabId: TAB });
  const idle = openUi(fake, { tabId: TAB });
  const elsewhere = openUi(fake, { tabId: 77 });
  await watching.ask(Request.WATCH, { key: KEY });
  const r = await elsewhere.request(Request.WATCH, { key: KEY });
  assert.equal(r.ok, true, 'a watch of what is not there yet is kept, and answered');
  await watching.waitFor((m) => m.type === Push.TREE_RESET, { what: 'the reset' });
  const marks = [watching, idle, elsewhere].map((p) => p.sent.length);
  change((root) => { todos(root).properties.label = 'Todos (changed)'; });
  await watching.waitFor((m) => m.type === Push.TREE_DELTA, { from: marks[0], what: 'the delta' });
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.deepEqual(idle.sent.slice(marks[1]).filter((m) => m.type === Push.TREE_DELTA), []);
  assert.deepEqual(elsewhere.sent.slice(marks[2]).filter((m) => m.type === Push.TREE_DELTA || m.type === Push.TREE_RESET), []);
  // GET_NODES names the provider on the port's own tab only.
  const other = await elsewhere.request(Request.GET_NODES, { key: KEY, paths: ['/'] });
  assert.equal(other.ok, false);
  assert.equal(other.error.code, 'not_found');
  for (const p of [watching, idle, elsewhere]) p.close();
});
