// What the panel shows (extension/panel/selection.js): which provider, which of its subscriptions,
// the live state or a version from the history; and the watch it keeps on the service worker.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../extension/panel/store.js';
import { Selection } from '../../extension/panel/selection.js';
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

test('scrubbing: a step\'s state (fetched by the history pane) shown instead of the live one, until another provider is shown', () => {
  const { store, sel } = setup([provider(A)]);
  sel.select(A);
  store.applyBatch([reset(A, 's1', 3, [{ id: 'root', type: 'root', path: '/', child_ids: [], properties: { n: 3 } }])]);
  const nodes = new Map([['/', { id: 'root', type: 'root', path: '/', child_ids: [], properties: { n: 2 } }]]);
  sel.setScrub({ key: A, sub: 's1', step: { step: 2, version: 2 }, version: 2, source: { key: A, sub: 's1', path: '/', nodes, structure: 'h2', resetId: 1, live: false } });
  const src = sel.source();
  assert.equal(src.live, false);
  assert.equal(src.nodes.get('/').properties.n, 2);
  assert.equal(sel.tree().nodes.get('/').properties.n, 3, 'the live tree is untouched');
  assert.equal(sel.trackScrub(), false, 'same provider: it stays');
  sel.setScrub(null);
  assert.equal(sel.source(), sel.tree());
  sel.setScrub({ key: A, sub: 's1', step: { step: 2 }, version: 2, source: src });
  sel.select(null);
  assert.equal(sel.scrub, null, 'another provider: live again');
  sel.key = A;
  sel.scrub = { key: 'other' };
  assert.equal(sel.trackScrub(), true);
  assert.equal(sel.scrub, null);
});

test('a recording opened here is shown as its current step\'s state, read-only and never watched', () => {
  const { sel, calls } = setup([provider(A)]);
  const tree = { key: 'recording:1', sub: 'recording', path: '/', nodes: new Map(), live: false, readOnly: true };
  sel.recordings.set('recording:1', { name: 'r.json', tree, step: 1 });
  sel.select('recording:1');
  assert.equal(sel.isRecording(), true);
  assert.equal(sel.tree(), tree);
  assert.equal(sel.source(), tree);
  assert.equal(sel.sub(), 'recording');
  assert.equal(sel.choice(), 'recording:1');
  assert.ok(!calls.some((c) => c[1] === 'recording:1'), 'a recording is not watched');
});
