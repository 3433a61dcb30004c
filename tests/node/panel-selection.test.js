// What the panel shows (extension/panel/selection.js): which provider, which of its subscriptions,
// the live state or a version from the history; and the watch it keeps on the service worker.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../extension/panel/store.js';
import { Selection } from '../../extension/panel/selection.js';
import { MAX_ENTRIES } from '../../extension/panel/history.js';
import { Push } from '../../extension/shared/messages.js';

const A = 'ws://a/slop';
const B = 'ws://b/slop';
const provider = (key, status = 'connected', subs = ['s1']) => ({ key, status, primarySub: status === 'connected' ? subs[0] : null, subscriptions: subs.map((sub) => ({ sub, path: '/' })), capabilities: [] });
const reset = (key, sub, version = 1, nodes = [{ id: 'root', type: 'root', path: '/', child_ids: [] }]) => ({ type: Push.TREE_RESET, key, sub, path: '/', version, complete: true, nodes });

function setup(providers) {
  const store = new Store();
  const calls = [];
  const bridge = {
    watch: async (key) => { calls.push(['watch', key]); },
    unwatch: async (key) => { calls.push(['unwatch', key]); },
  };
  store.applyBatch([{ type: Push.PROVIDERS, providers }]);
  return { store, calls, sel: new Selection(store, bridge) };
}

test('the provider shown: the current one while it exists, else a connected one, else the first', () => {
  const { store, sel } = setup([provider(A, 'unreachable'), provider(B)]);
  assert.equal(sel.choice(), B);
  sel.select(A);
  assert.equal(sel.choice(), A, 'kept while it is there');
  store.applyBatch([{ type: Push.PROVIDERS, providers: [provider(B, 'reconnecting')] }]);
  assert.equal(sel.choice(), B);
  store.applyBatch([{ type: Push.PROVIDERS, providers: [] }]);
  assert.equal(sel.choice(), null);
});

test('the worker streams the provider shown, and only that one; an import is not watched', () => {
  const { store, sel, calls } = setup([provider(A), provider(B)]);
  assert.equal(sel.select(A), true);
  assert.equal(sel.select(A), false, 'shown already');
  sel.select(B);
  store.addImport({ key: 'import:1', sub: 'import', path: '/', version: 1, complete: true, nodes: [] });
  sel.select('import:1');
  assert.equal(sel.isImport(), true);
  assert.equal(sel.importInfo().key, 'import:1');
  sel.syncWatch(true);
  sel.select(A);
  sel.syncWatch(true);
  assert.deepEqual(calls, [['watch', A], ['unwatch', A], ['watch', B], ['unwatch', B], ['watch', A], ['watch', A]],
    'a new port (force) is told again');
});

test('the subscription shown: the one made here once the worker has it, else the extension’s', () => {
  const { store, sel } = setup([provider(A)]);
  sel.select(A);
  store.applyBatch([reset(A, 's1')]);
  assert.equal(sel.sub(), 's1');
  assert.equal(sel.tree(), store.tree(A, 's1'));
  sel.setCustom(A, 'mine', { path: '/inbox' });
  assert.equal(sel.sub(), 's1', 'the worker does not list it yet');
  store.applyBatch([reset(A, 'mine')]);
  assert.equal(sel.tree(), store.tree(A, 's1'), 'nor is its tree shown yet');
  store.applyBatch([{ type: Push.PROVIDERS, providers: [provider(A, 'connected', ['s1', 'mine'])] }]);
  assert.equal(sel.sub(), 'mine');
  assert.equal(sel.tree(), store.tree(A, 'mine'));
  assert.deepEqual(sel.custom(), { sub: 'mine', options: { path: '/inbox' } });
  assert.deepEqual(sel.customs(), [[A, { sub: 'mine', options: { path: '/inbox' } }]]);
  sel.dropCustom(A);
  assert.equal(sel.sub(), 's1');
  assert.equal(sel.custom(), null);
});

test('a disconnected provider shows its last known tree', () => {
  const { store, sel } = setup([provider(A)]);
  sel.select(A);
  store.applyBatch([reset(A, 's1', 7)]);
  store.applyBatch([{ type: Push.PROVIDERS, providers: [provider(A, 'reconnecting')] }]);
  assert.equal(sel.tree()?.version, 7);
  assert.equal(sel.source(), sel.tree());
});

test('scrubbing: a version rebuilt from the history, followed as entries come and go', () => {
  const { store, sel } = setup([provider(A)]);
  sel.select(A);
  store.applyBatch([reset(A, 's1', 1, [{ id: 'root', type: 'root', path: '/', child_ids: [], properties: { n: 1 } }])]);
  const delta = (v) => ({ type: Push.TREE_DELTA, key: A, sub: 's1', version: v, removed: [], views: JSON.stringify([{ id: 'root', type: 'root', path: '/', child_ids: [], properties: { n: v } }]) });
  store.applyBatch([delta(2), delta(3)]);
  sel.scrubTo(1);
  const src = sel.source();
  assert.equal(src.live, false);
  assert.equal(src.nodes.get('/').properties.n, 2);
  assert.equal(sel.scrub.version, 2);
  assert.equal(sel.tree().nodes.get('/').properties.n, 3, 'the live tree is untouched');

  // New versions push the scrubbed one down the list...
  for (let v = 4; v < MAX_ENTRIES + 1; v++) store.applyBatch([delta(v)]);
  assert.equal(sel.trackScrub(), false);
  assert.equal(sel.scrub.index, 1);
  // ...until it is dropped: the oldest kept one is shown instead.
  store.applyBatch([delta(MAX_ENTRIES + 1), delta(MAX_ENTRIES + 2)]);
  assert.equal(sel.trackScrub(), true);
  assert.equal(sel.scrub.index, 0);
  assert.equal(sel.scrub.version, 3);

  sel.scrubTo(null);
  assert.equal(sel.source(), sel.tree());
  sel.scrubTo(0);
  sel.select(null);
  assert.equal(sel.scrub, null, 'another provider: live again');
  assert.equal(sel.trackScrub(), false);
});
