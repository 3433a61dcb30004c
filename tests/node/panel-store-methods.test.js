// The panel's store (extension/panel/store.js) on its own, fed pushes as the service worker and
// the bridge send them: resets and deltas, views loaded later and paths answered missing, the
// provider list, events, the frame log, imports and the "load more" query pages; and what each
// change tells the listeners.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store, MAX_LOG } from '../../extension/panel/store.js';
import { Push, PanelNote } from '../../extension/shared/messages.js';

const KEY = 'ws://127.0.0.1:1/slop';
const SUB = 'sub-1';

/** A node view as the core's node() gives it, plus path and child ids. */
const view = (path, childIds = [], extra = {}) => ({ id: path === '/' ? 'root' : path.slice(path.lastIndexOf('/') + 1), type: 'item', path, child_ids: childIds, ...extra });

const reset = (nodes, o = {}) => ({ type: Push.TREE_RESET, key: KEY, sub: SUB, path: '/', version: 1, complete: true, nodes, ...o });
const delta = (version, nodes, removed = [], o = {}) => ({ type: Push.TREE_DELTA, key: KEY, sub: SUB, version, views: JSON.stringify(nodes), removed, ...o });
const nodesReply = (nodes, missing = [], count) => ({ type: PanelNote.BRIDGE_NODES, key: KEY, sub: SUB, nodes, missing, count });
const provider = (key, o = {}) => ({ key, status: 'connected', primarySub: SUB, subscriptions: [{ sub: SUB, path: '/' }], capabilities: [], ...o });

/** A store and the changes its listeners were told. */
function watched() {
  const store = new Store();
  const changes = [];
  store.subscribe((c) => changes.push(c));
  return { store, changes, last: () => changes.at(-1) };
}

const SMALL = [view('/', ['a', 'b']), view('/a', ['x']), view('/a/x'), view('/b')];

test('a reset holds the views by path; a delta removes subtrees, then adds and replaces', () => {
  const { store, last } = watched();
  store.applyBatch([reset(SMALL)]);
  const tree = store.tree(KEY, SUB);
  assert.deepEqual([...tree.nodes.keys()], ['/', '/a', '/a/x', '/b']);
  assert.equal(tree.live, true);
  assert.ok(last().trees.has(KEY) && last().resets.has(KEY) && last().structure.has(KEY));
  const structure = tree.structure;

  const b2 = view('/b', [], { properties: { label: 'B' } });
  store.applyBatch([delta(2, [view('/', ['b']), b2], ['/a'])]);
  assert.deepEqual([...tree.nodes.keys()].sort(), ['/', '/b'], 'the removed node took its subtree');
  assert.deepEqual(tree.nodes.get('/b'), b2);
  assert.equal(tree.version, 2);
  assert.notEqual(tree.structure, structure, 'child ids changed: the structure did');
  assert.deepEqual([...last().touched.get(KEY)].sort(), ['/', '/b']);

  // A delta that changes a label only is not structural.
  const s2 = tree.structure;
  store.applyBatch([delta(3, [view('/b', [], { properties: { label: 'B!' } })])]);
  assert.equal(tree.structure, s2);
  assert.equal(last().structure.has(KEY), false);
  assert.equal(last().trees.has(KEY), true);
});

test('a delta for a tree the panel does not hold is ignored', () => {
  const { store, last } = watched();
  store.applyBatch([delta(2, [view('/')])]);
  assert.equal(store.tree(KEY, SUB), null);
  assert.equal(last().trees.size, 0);
});

test('missing views: breadth-first, asked for once, answered or answered missing', () => {
  const { store, last } = watched();
  store.applyBatch([reset([view('/', ['a', 'b', 'c']), view('/a', ['a1', 'a2'])], { complete: false, count: 7 })]);
  const tree = store.tree(KEY, SUB);
  assert.equal(tree.total, 7);
  assert.deepEqual(store.missingPaths(tree, 10), ['/b', '/c', '/a/a1', '/a/a2'], 'children of loaded nodes, level by level');
  assert.deepEqual(store.missingPaths(tree, 2), ['/b', '/c']);

  assert.deepEqual(store.markRequested(tree, ['/b', '/c']), ['/b', '/c']);
  assert.deepEqual(store.markRequested(tree, ['/b', '/a/a1']), ['/a/a1'], 'what is pending is not asked for again');
  assert.deepEqual(store.missingPaths(tree, 10), ['/a/a2']);
  assert.equal(store.isLoaded(tree), false);

  // The worker answers: /b is there, /c was removed meanwhile.
  store.applyBatch([nodesReply([view('/b')], ['/c'], 6)]);
  assert.ok(last().filled.has(KEY));
  assert.ok(tree.nodes.has('/b'));
  assert.equal(tree.requested.has('/c'), false);
  assert.ok(tree.gone.has('/c'));
  assert.equal(tree.total, 6, 'the count follows the worker’s answer');
  assert.deepEqual(store.markRequested(tree, ['/c']), [], 'a path answered missing is not asked for again');

  // A request that failed (the worker restarted) is no longer pending.
  store.requestFailed(tree, ['/a/a1']);
  assert.deepEqual(store.missingPaths(tree, 10), ['/a/a1', '/a/a2']);
  store.markRequested(tree, ['/a/a1', '/a/a2']);
  store.applyBatch([nodesReply([view('/a/a1'), view('/a/a2')])]);
  assert.ok(store.isLoaded(tree));
  store.markComplete(tree);
  assert.equal(tree.complete, true);
  assert.equal(tree.total, tree.nodes.size);

  // Not while the listing stays as it was; once it changes, /c may be listed (and there) again.
  store.applyBatch([delta(2, [view('/', ['a', 'b', 'c'], { properties: { n: 1 } })])]);
  assert.ok(tree.gone.has('/c'));
  store.applyBatch([delta(3, [view('/', ['a', 'b', 'c', 'd'])])]);
  assert.equal(tree.gone.size, 0);
});

test('a removed path that was asked for is no longer pending', () => {
  const { store } = watched();
  store.applyBatch([reset([view('/', ['a']), view('/a', ['p', 'q'])], { complete: false })]);
  const tree = store.tree(KEY, SUB);
  store.markRequested(tree, ['/a/p', '/a/q']);
  store.applyBatch([delta(2, [view('/', [])], ['/a'])]);
  assert.equal(tree.requested.size, 0);
  assert.deepEqual([...tree.nodes.keys()], ['/']);
});

test('a delta that leaves views out makes the tree incomplete; a complete one keeps the count exact', () => {
  const { store } = watched();
  store.applyBatch([reset(SMALL)]);
  const tree = store.tree(KEY, SUB);
  store.applyBatch([delta(2, [view('/b', ['n'])], [], { partial: true })]);
  assert.equal(tree.complete, false);
  assert.deepEqual(store.missingPaths(tree, 5), ['/b/n']);

  const { store: s2 } = watched();
  s2.applyBatch([reset(SMALL, { count: 4 })]);
  s2.applyBatch([delta(2, [view('/', ['a'])], ['/b'])]);
  assert.equal(s2.tree(KEY, SUB).total, 3);
});

test('the history\'s steps: the whole list from ui/history, then appended, the last one updated, or all again', () => {
  const { store, last } = watched();
  const st = (step, kind = 'patch', version = step) => ({ step, kind, version, t: step, ops: 1, paths: [], pathCount: 1, boundary: null });
  store.applyBatch([{ type: Push.HISTORY, key: KEY, steps: [st(1)], reset: false }]);
  assert.equal(store.histories.has(KEY), false, 'not loaded yet: nothing to append to');
  store.setHistory(KEY, { steps: [st(1, 'snapshot'), st(2)], info: { steps: 2 } });
  assert.ok(last().histories.has(KEY));
  const before = store.histories.get(KEY);
  store.applyBatch([{ type: Push.HISTORY, key: KEY, steps: [st(3)], reset: false, info: { steps: 3 } }]);
  const after = store.histories.get(KEY);
  assert.notEqual(after, before, 'a new object on every change');
  assert.deepEqual(after.steps.map((x) => x.step), [1, 2, 3]);
  assert.deepEqual(after.info, { steps: 3 });
  assert.ok(after.stamp > before.stamp);
  // The patches of one frame grow the last step; a step seen twice is not added twice.
  store.applyBatch([{ type: Push.HISTORY, key: KEY, steps: [{ ...st(3), ops: 4 }], reset: false, update: true }]);
  store.applyBatch([{ type: Push.HISTORY, key: KEY, steps: [st(2)], reset: false }]);
  assert.deepEqual(store.histories.get(KEY).steps.map((x) => [x.step, x.ops]), [[1, 1], [2, 1], [3, 4]]);
  // The oldest dropped: the whole list again.
  store.applyBatch([{ type: Push.HISTORY, key: KEY, steps: [st(2), st(3)], reset: true }]);
  assert.deepEqual(store.histories.get(KEY).steps.map((x) => x.step), [2, 3]);
  store.setHistoryInfo(KEY, { persist: true });
  assert.deepEqual(store.histories.get(KEY).info, { persist: true });
});

test('the provider list drops trees of providers gone and of subscriptions a connected provider no longer has', () => {
  const { store, last } = watched();
  const other = 'ws://127.0.0.1:2/slop';
  store.applyBatch([
    reset(SMALL),
    { ...reset(SMALL), sub: 'custom-1' },
    { ...reset(SMALL), key: other },
  ]);
  store.applyBatch([{ type: Push.PROVIDERS, tabId: 7, pageUrl: 'http://x/', providers: [provider(KEY)] }]);
  assert.ok(last().providers);
  assert.equal(store.tabId, 7);
  assert.ok(store.seenProviders);
  assert.equal(store.trees.has(other), false, 'its provider is gone');
  assert.deepEqual([...store.trees.get(KEY).keys()], [SUB], 'custom-1 is not a subscription any more');

  // Disconnected: the last known trees stay.
  store.applyBatch([{ ...reset(SMALL), sub: 'old' }]);
  store.applyBatch([{ type: Push.PROVIDERS, providers: [provider(KEY, { status: 'reconnecting', primarySub: null, subscriptions: [] })] }]);
  assert.deepEqual([...store.trees.get(KEY).keys()].sort(), ['old', SUB]);
});

test('events: a new list on every change, the new ones named in the change', () => {
  const { store, last } = watched();
  store.applyBatch([{ type: Push.EVENT, key: KEY, event: { event: 'task', task_id: 't1' } }]);
  const list = store.events.get(KEY);
  store.applyBatch([{ type: Push.EVENT, key: KEY, event: { event: 'result' } }]);
  assert.notEqual(store.events.get(KEY), list);
  assert.deepEqual(store.events.get(KEY).map((e) => e.event.event), ['task', 'result']);
  assert.deepEqual(last().newEvents.map((e) => [e.key, e.event.event]), [[KEY, 'result']]);
  store.clearEvents(KEY);
  assert.deepEqual(store.events.get(KEY), []);
  assert.ok(last().events.has(KEY));
});

test('the frame log: capped, paused (counting what was skipped), cleared, kept across a re-watch', () => {
  const { store, last } = watched();
  const entries = (n, from = 0) => Array.from({ length: n }, (_, i) => ({ dir: 'in', type: 'patch', text: String(from + i) }));
  store.applyBatch([{ type: Push.LOG, key: KEY, entries: entries(MAX_LOG + 5) }]);
  assert.equal(store.logs.get(KEY).length, MAX_LOG);
  assert.equal(store.logs.get(KEY)[0].text, '5', 'the oldest go first');

  store.setLogPaused(KEY, true);
  store.applyBatch([{ type: Push.LOG, key: KEY, entries: entries(3) }]);
  assert.equal(store.logPaused.get(KEY), 3);
  assert.equal(store.logs.get(KEY).length, MAX_LOG);
  store.setLogPaused(KEY, false);
  assert.equal(store.logPaused.has(KEY), false);

  store.clearLog(KEY);
  assert.deepEqual(store.logs.get(KEY), []);
  assert.ok(last().logs.has(KEY));
  // A re-watch sends the worker's log again (replace): the panel keeps its own, cleared one.
  store.applyBatch([{ type: Push.LOG, key: KEY, entries: entries(4), replace: true }]);
  assert.deepEqual(store.logs.get(KEY), []);
});

test('imports: a read-only tree under its own key, until removed', () => {
  const { store, last } = watched();
  store.addImport({ key: 'import:1', sub: 'import', path: '/', version: 3, complete: true, count: 4, name: 'f.json', nodes: SMALL });
  assert.ok(last().imports && last().resets.has('import:1'));
  const tree = store.tree('import:1', 'import');
  assert.equal(tree.readOnly, true);
  assert.equal(tree.nodes.size, 4);
  assert.equal(store.imports.get('import:1').name, 'f.json');
  assert.equal('nodes' in store.imports.get('import:1'), false, 'the views are in the tree only');
  // A provider list does not drop it.
  store.applyBatch([{ type: Push.PROVIDERS, providers: [] }]);
  assert.ok(store.tree('import:1', 'import'));
  store.removeImport('import:1');
  assert.equal(store.tree('import:1', 'import'), null);
  assert.equal(store.imports.size, 0);
});

test('query pages: started, answered, failed and cleared, each told to the listeners', () => {
  const { store, changes, last } = watched();
  const pages = store.queryPages(KEY, SUB);
  assert.equal(store.queryPages(KEY, SUB), pages, 'one map per tree');
  assert.equal(pages.size, 0);

  const page = store.queryStarted(KEY, SUB, '/inbox', 300);
  assert.deepEqual({ ...page, stamp: 0 }, { nodes: [], total: 300, version: null, more: 0, next: null, sig: null, loading: true, error: null, exhausted: null, stamp: 0 });
  assert.ok(last().queries.has(KEY));
  const stamp = page.stamp;

  store.queryAnswered(KEY, page, { nodes: [view('/inbox/m51')], version: 8, total: 301, more: 249, next: [52, 50] });
  assert.equal(pages.get('/inbox'), page);
  assert.deepEqual(page.nodes.map((n) => n.path), ['/inbox/m51']);
  assert.equal(page.loading, false);
  assert.equal(page.version, 8);
  assert.equal(page.total, 301);
  assert.deepEqual([page.more, page.next], [249, [52, 50]], 'the core\'s count and next window are kept');
  assert.ok(page.stamp > stamp, 'the tree view sees the page changed');

  // The next one brings nothing: exhausted for that state of the collection; then one fails.
  const again = store.queryStarted(KEY, SUB, '/inbox', 301);
  assert.equal(again, page, 'the same page grows');
  store.queryAnswered(KEY, page, { nodes: [], version: 9, total: undefined, exhausted: { sig: 'S' } });
  assert.deepEqual(page.exhausted, { sig: 'S' });
  assert.equal(page.total, 301, 'an answer without a total keeps the one known');
  store.queryStarted(KEY, SUB, '/inbox', 301);
  assert.equal(page.exhausted, null, 'asking again forgets it');
  store.queryFailed(KEY, page, 'timeout');
  assert.equal(page.error, 'timeout');
  assert.equal(page.loading, false);
  assert.equal(page.nodes.length, 1, 'what was loaded stays');

  const n = changes.length;
  store.clearQuery(KEY, SUB, '/inbox');
  assert.equal(pages.has('/inbox'), false);
  assert.equal(changes.length, n + 1);
  store.clearQuery(KEY, SUB, '/inbox');
  assert.equal(changes.length, n + 1, 'nothing to clear, nothing told');
});

test('a subscription the panel dropped is forgotten; without a tab nothing is waited for', () => {
  const { store } = watched();
  store.applyBatch([reset(SMALL), { ...reset(SMALL), sub: 'mine' }]);
  store.dropTree(KEY, 'mine');
  assert.deepEqual([...store.trees.get(KEY).keys()], [SUB]);
  assert.equal(store.seenProviders, false);
  store.noTab();
  assert.equal(store.seenProviders, true);
});
