// "Load more" under windowed collections (extension/panel/load-more.js): the counts shown, the
// next window asked for, the children a query answer adds, and the whole round trip through a
// stand-in bridge into the store's query pages.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../extension/panel/store.js';
import {
  countText, childrenText, moreToLoad, nextWindow, collectionSig, exhausted, newChildViews, loadMore, QUERY_MAX,
} from '../../extension/panel/load-more.js';
import { Push, Request } from '../../extension/shared/messages.js';

const KEY = 'ws://127.0.0.1:1/slop';
const ids = (n, from = 0) => Array.from({ length: n }, (_, i) => `m${from + i}`);
/** A node view as the core gives it: `more` and `next_window` (slop_consumer_node) on a windowed collection. */
const collection = (childIds, meta, core) => ({ id: 'inbox', type: 'collection', path: '/inbox', child_ids: childIds, ...(meta ? { meta } : {}), ...(core ?? {}) });

test('counts: "50 of 300" for a windowed collection, plain otherwise', () => {
  assert.equal(countText(collection(ids(50), { total_children: 300 })), '50 of 300');
  assert.equal(countText(collection(ids(3))), '3');
  assert.equal(countText(collection(ids(3), { total_children: 3 })), '3');
  assert.equal(countText(collection([])), '');
  assert.equal(childrenText(collection(ids(50), { total_children: 300, window: [100, 50] })), '50 shown of 300 · window [100, 50]');
  assert.equal(childrenText(collection(ids(2))), '2');
  assert.equal(childrenText(collection([])), null);
  assert.equal(childrenText(collection([], { total_children: 0 })), '0');
});

test('more to load and the next window are the core\'s, from the view and then from the last page', () => {
  const c = collection(ids(50), { total_children: 300, window: [0, 50] }, { more: 250, next_window: [50, 50] });
  assert.equal(moreToLoad(c, null), 250);
  assert.deepEqual(nextWindow(c, null), [50, 50]);
  const asking = { nodes: [], version: null };
  assert.deepEqual(nextWindow(c, asking), [50, 50], 'a page not answered yet: the view says');
  const page = { nodes: ids(50, 50).map((id) => ({ id })), version: 3, more: 200, next: [100, 50], sig: collectionSig(c) };
  assert.equal(moreToLoad(c, page), 200);
  assert.deepEqual(nextWindow(c, page), [100, 50]);
  assert.equal(moreToLoad(c, { ...page, more: 0, next: null }), 0);
  assert.equal(nextWindow(c, { ...page, more: 0, next: null }), null, 'nothing more: no window');
  // The collection changed since the page came: the core's view of it is the latest word.
  const changed = collection(ids(51), { total_children: 310, window: [0, 50] }, { more: 259, next_window: [51, 50] });
  assert.equal(moreToLoad(changed, page), 259);
  assert.deepEqual(nextWindow(changed, page), [51, 50]);
  // A window bigger than the panel asks for at once is cut; a view without the core's fields has nothing more.
  assert.deepEqual(nextWindow(collection(ids(10), { total_children: 9999 }, { more: 9989, next_window: [10, 5000] }), null), [10, QUERY_MAX]);
  assert.equal(moreToLoad(collection(ids(10)), null), 0);
  assert.equal(nextWindow(collection(ids(10)), null), null);
});

test('a collection that came back empty stays exhausted until it changes', () => {
  const c = collection(ids(50), { total_children: 300 }, { more: 250, next_window: [50, 50] });
  const page = { nodes: [], exhausted: { sig: collectionSig(c) } };
  assert.equal(exhausted(c, page), true);
  assert.equal(exhausted(collection(ids(51), { total_children: 300 }, { more: 249, next_window: [51, 50] }), page), false, 'a child more');
  assert.equal(exhausted(collection(ids(50), { total_children: 301 }, { more: 251, next_window: [50, 50] }), page), false, 'another total');
  assert.equal(exhausted(collection(ids(50, 1), { total_children: 300 }, { more: 250, next_window: [50, 50] }), page), false, 'other children');
  assert.equal(exhausted(collection(ids(50), { total_children: 300, window: [10, 50] }, { more: 240, next_window: [60, 50] }), page), false, 'a window');
  assert.equal(exhausted(c, null), false);
});

test('a query answer adds the children not shown yet, as views under the collection', () => {
  const c = collection(['m0', 'm1']);
  const page = { nodes: [{ id: 'm2' }] };
  const answer = { id: 'inbox', children: [{ id: 'm1' }, { id: 'm2' }, { id: 'm3', type: 'message', children: [{ id: 'p' }] }, { id: 'm3' }, { id: 'm4' }] };
  assert.deepEqual(newChildViews('/inbox', c, page, answer), [
    { id: 'm3', type: 'message', path: '/inbox/m3', child_ids: ['p'] },
    { id: 'm4', path: '/inbox/m4', child_ids: [] },
  ]);
  assert.deepEqual(newChildViews('/', collection([]), null, {}), []);
});

/** A store holding one tree with a windowed collection, and a bridge that answers queries. */
function setup(answer) {
  const store = new Store();
  const c = collection(ids(50), { total_children: 60, window: [0, 50] }, { more: 10, next_window: [50, 50] });
  store.applyBatch([{ type: Push.TREE_RESET, key: KEY, sub: 's', path: '/', version: 4, complete: true, nodes: [{ id: 'root', type: 'root', path: '/', child_ids: ['inbox'] }, c] }]);
  const asked = [];
  const bridge = { request: async (type, fields) => { asked.push({ type, ...fields }); return answer(fields); } };
  return { store, bridge, tree: store.tree(KEY, 's'), asked };
}

test('load more: the next window is asked for and its children kept as a page of the store', async () => {
  // The provider answers with the same ten children whatever the window.
  const { store, bridge, tree, asked } = setup(() => ({
    event: { event: 'query', version: 5, more: 1, next_window: [60, 50], tree: { id: 'inbox', meta: { total_children: 61 }, children: ids(10, 50).map((id) => ({ id, type: 'message' })) } },
  }));
  const seen = [];
  store.subscribe((ch) => { if (ch.queries.has(KEY)) seen.push(store.queryPages(KEY, 's').get('/inbox')?.loading); });
  await loadMore({ store, bridge }, tree, '/inbox');
  assert.deepEqual(asked, [{ type: Request.QUERY, key: KEY, options: { path: '/inbox', depth: 1, window: [50, 50] } }]);
  const page = store.queryPages(KEY, 's').get('/inbox');
  assert.deepEqual(page.nodes.map((n) => n.path), ids(10, 50).map((id) => `/inbox/${id}`));
  assert.equal(page.version, 5);
  assert.equal(page.total, 61);
  assert.deepEqual(seen, [true, false], 'loading, then loaded');
  assert.equal(moreToLoad(tree.nodes.get('/inbox'), page), 1, 'the core counted one more');
  assert.equal(tree.nodes.size, 2, 'the mirror is untouched');

  await loadMore({ store, bridge }, tree, '/inbox');
  assert.deepEqual(asked[1].options.window, [60, 50], 'after the page loaded');
  assert.ok(exhausted(tree.nodes.get('/inbox'), page), 'only known children came back');
  await loadMore({ store, bridge }, tree, '/inbox');
  assert.equal(asked.length, 2, 'not asked again while nothing changed');
});

test('load more: a refused query is said on the page; unknown paths are ignored', async () => {
  const { store, bridge, tree, asked } = setup(() => ({ event: { event: 'error', code: 'not_found', message: 'no such path' } }));
  await loadMore({ store, bridge }, tree, '/inbox');
  assert.equal(store.queryPages(KEY, 's').get('/inbox').error, 'no such path');
  const failing = { request: async () => { throw new Error('worker gone'); } };
  await loadMore({ store, bridge: failing }, tree, '/inbox');
  assert.equal(store.queryPages(KEY, 's').get('/inbox').error, 'worker gone');
  await loadMore({ store, bridge }, tree, '/nope');
  assert.equal(asked.length, 1);
});
