// The panel's store fed the way the service worker feeds it, from a real core consumer: node
// views from node-views.js (Push.TREE_RESET up to a budget, TREE_DELTA per patch event, GET_NODES
// answers with `missing`), applied in the order the bridge applies them. Checks that nodes
// removed while the panel is still loading the rest of a big tree end its "loading" bookkeeping
// (nothing stays requested, the total follows the mirror), and that the history marks a
// provider restart or a provider change and keys its entries by step, not by version.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Live } from './helpers.js';
import { Push, PanelNote } from '../../extension/shared/messages.js';
import { Store } from '../../extension/panel/store.js';
import { boundaryText, diffStates } from '../../extension/panel/history.js';
import { breadthFirstViews, patchDelta, viewsOf } from '../../extension/service-worker/node-views.js';

const KEY = 'ws://127.0.0.1:1/slop';
const ITEMS = 3000;

function bigTree() {
  const items = [];
  for (let i = 0; i < ITEMS; i++) items.push({ id: `item-${i}`, type: 'item', properties: { label: `Item ${i}` } });
  return { id: 'root', type: 'root', children: [{ id: 'big', type: 'collection', children: items }] };
}

/** What panel-ports.js does for one watching port, over a Live consumer. */
class Port {
  constructor(live, store, budget = 500) {
    this.live = live;
    this.sub = live.sub; // the caller-facing id the store keys by (stable across connections)
    this.store = store;
    this.budget = budget;
    this.known = new Set();
  }

  info() {
    return this.live.subStatus();
  }

  reset(extra = {}) {
    const info = this.info();
    const { nodes, complete } = breadthFirstViews(this.live.c, this.live.sub, info.path, this.budget);
    this.known = new Set(nodes.map((n) => n.path));
    this.store.applyBatch([{ type: Push.TREE_RESET, key: KEY, sub: this.sub, path: info.path, version: info.version, count: info.nodes, nodes, complete, ...extra }]);
  }

  /** Feeds a patch to the core and pushes its delta (as the worker does per patch event). */
  patch(version, seq, ops) {
    const outs = this.live.patch(version, seq, ops);
    const batch = [];
    for (const o of outs) {
      if (o.kind !== 'event' || o.event.event !== 'patch') continue;
      const { nodes, removed, partial } = patchDelta(this.live.c, this.live.sub, o.event, this.known);
      batch.push({ type: Push.TREE_DELTA, key: KEY, sub: this.sub, version: o.event.version, nodes, removed, ...(partial ? { partial } : {}) });
    }
    assert.ok(batch.length, `patch v${version} applied`);
    this.store.applyBatch(batch);
  }

  /** The GET_NODES answer for paths, applied as the bridge applies it (PanelNote.BRIDGE_NODES). */
  answer(paths) {
    const r = viewsOf(this.live.c, this.live.sub, paths);
    for (const n of r.nodes) this.known.add(n.path);
    this.store.applyBatch([{ type: PanelNote.BRIDGE_NODES, key: KEY, sub: this.sub, nodes: r.nodes, missing: r.missing, count: this.info().nodes }]);
    return r;
  }
}

const mirrorPaths = (live) => {
  const out = [];
  const walk = (n, p) => {
    out.push(p);
    for (const c of n.children ?? []) walk(c, p === '/' ? `/${c.id}` : `${p}/${c.id}`);
  };
  walk(live.tree('/'), '/');
  return out.sort();
};

test('nodes removed while the panel loads the rest: requested paths resolve as removed, loading ends', async () => {
  const live = await Live.start({ tree: bigTree() });
  const store = new Store();
  const port = new Port(live, store);
  port.reset();
  const tree = store.tree(KEY, live.sub);
  assert.equal(tree.complete, false, 'the budget cut the first reset short');
  assert.equal(tree.total, ITEMS + 2);

  let version = 1;
  let seq = 0;
  let removedWhileRequested = 0;
  for (let page = 0; page < 20; page++) {
    const paths = store.missingPaths(tree, 1000);
    if (!paths.length) break;
    store.markRequested(tree, paths); // as mirror-fill.js does
    // The race: the provider removes nodes after the panel asked for them and before the worker
    // answers. The worker has never sent their views, so its delta cannot name them.
    const victims = paths.filter((_, i) => i % 7 === 3).map((p) => p.slice(p.lastIndexOf('/') + 1));
    port.patch(++version, ++seq, victims.map((id) => ({ op: 'remove', path: `/big/${id}` })));
    // ...and some the panel already has, and an added one.
    port.patch(++version, ++seq, [
      { op: 'remove', path: `/big/item-${page}` },
      { op: 'add', path: `/big/new-${page}`, value: { id: `new-${page}`, type: 'item' } },
    ]);
    const r = port.answer(paths);
    removedWhileRequested += r.missing.length;
    assert.equal(r.missing.length, victims.length, 'the worker answers the removed paths as missing');
  }
  assert.ok(removedWhileRequested > 100, `${removedWhileRequested} requested nodes were removed meanwhile`);
  assert.equal(tree.requested.size, 0, 'nothing stays requested');
  assert.ok(store.isLoaded(tree), 'every listed node has a view');
  assert.deepEqual([...tree.nodes.keys()].sort(), mirrorPaths(live), 'the panel holds exactly the mirror');
  assert.equal(tree.total, live.subStatus().nodes, 'the total follows the mirror, not the first count');
  assert.ok(tree.total < ITEMS, 'removed nodes left the total');
  live.free();
});

test('a path answered missing is not asked for again until the structure changes', async () => {
  const live = await Live.start({ tree: bigTree() });
  const store = new Store();
  const port = new Port(live, store, 10);
  port.reset();
  const tree = store.tree(KEY, live.sub);
  const ghost = '/big/item-5000';
  store.markRequested(tree, [ghost]);
  port.answer([ghost]);
  assert.equal(tree.requested.has(ghost), false);
  assert.equal(tree.gone.has(ghost), true);
  // A later add under a known parent lists it (and sends its view): it is wanted again.
  port.patch(2, 1, [{ op: 'add', path: '/big/item-5000', value: { id: 'item-5000', type: 'item' } }]);
  assert.equal(tree.gone.size, 0);
  assert.ok(tree.nodes.has(ghost));
  live.free();
});

test('more added nodes than a delta carries: the tree is no longer complete', async () => {
  const live = await Live.start({ tree: { id: 'root', type: 'root', children: [{ id: 'c', type: 'collection' }] } });
  const store = new Store();
  const port = new Port(live, store);
  port.reset();
  const tree = store.tree(KEY, live.sub);
  assert.equal(tree.complete, true);
  const ops = [];
  for (let i = 0; i < 600; i++) ops.push({ op: 'add', path: `/c/n${i}`, value: { id: `n${i}`, type: 'item' } });
  port.patch(2, 1, ops);
  assert.equal(tree.complete, false, 'the worker left 100 views out');
  assert.equal(store.missingPaths(tree, 1000).length, 100);
  live.free();
});

test('history: a restart is a boundary; entries are keyed by step, versions may go back', async () => {
  const tree0 = { id: 'root', type: 'root', properties: { n: 0 }, children: [{ id: 'a', type: 'item' }] };
  const live = await Live.start({ tree: tree0 });
  const store = new Store();
  const port = new Port(live, store);
  port.reset();
  for (let v = 2; v <= 5; v++) port.patch(v, v - 1, [{ op: 'replace', path: '/properties/n', value: v }]);
  const before = store.tree(KEY, live.sub);
  // The provider restarted: the new connection's snapshot starts again at version 1, and the
  // worker passes the core's restart marks on with the reset. (The mirror after the restart
  // comes from a second consumer here: what the core does on reconnection is tested in C.)
  const after = await Live.start({ tree: { id: 'root', type: 'root', properties: { n: 1 }, children: [{ id: 'b', type: 'item' }] } });
  const port2 = new Port(after, store);
  port2.sub = live.sub;
  port2.reset({ restarted: true, previousVersion: 5 });
  port2.patch(2, 1, [{ op: 'replace', path: '/properties/n', value: 2 }]);

  const tree = store.tree(KEY, live.sub);
  const h = tree.history;
  assert.equal(h, before.history, 'one history across the restart');
  assert.deepEqual(h.entries.map((e) => e.version), [1, 2, 3, 4, 5, 1, 2]);
  const steps = h.entries.map((e) => e.step);
  assert.deepEqual(steps, [...steps].sort((x, y) => x - y), 'steps increase');
  assert.equal(new Set(steps).size, steps.length, 'steps are unique');
  const restart = h.entries[5];
  assert.deepEqual(restart.boundary, { kind: 'restart', previousVersion: 5 });
  assert.equal(boundaryText(restart), 'provider restarted: version 1 after 5');
  assert.equal(h.entries.filter((e) => e.boundary).length, 1);
  assert.equal(h.indexOfStep(restart.step), 5);
  assert.deepEqual(h.boundariesBetween(1, 6), [restart]);
  assert.deepEqual(h.boundariesBetween(5, 6), []);

  // Version 2 before and version 2 after the restart are different states.
  const v2before = h.materialize(1, tree.nodes);
  const v2after = h.materialize(6, tree.nodes);
  assert.equal(v2before.get('/').properties.n, 2);
  assert.ok(v2before.has('/a') && !v2before.has('/b'));
  assert.ok(v2after.has('/b') && !v2after.has('/a'));
  const d = diffStates(v2before, v2after);
  assert.deepEqual(d.added.map((v) => v.path), ['/b']);
  assert.deepEqual(d.removed.map((v) => v.path), ['/a']);
  live.free();
  after.free();
});

test('history: a different provider at the same address is a boundary too', async () => {
  const live = await Live.start({ tree: { id: 'root', type: 'root' } });
  const store = new Store();
  const port = new Port(live, store);
  port.reset();
  port.patch(2, 1, [{ op: 'add', path: '/properties/x', value: 1 }]);
  store.applyBatch([{ type: Push.EVENT, key: KEY, event: { event: 'provider_changed', previous: { id: 'old', name: 'Old app' }, provider: { id: 'new', name: 'New app' } } }]);
  live.snapshot(7, { id: 'root', type: 'root' });
  port.reset();
  const h = store.tree(KEY, live.sub).history;
  const e = h.entries.at(-1);
  assert.equal(e.boundary.kind, 'provider');
  assert.equal(boundaryText(e), 'provider changed: Old app (old) → New app (new), version 7 after 2');
  // Only the reset right after the change is marked.
  port.reset();
  assert.equal(h.entries.at(-1).boundary, null);
  live.free();
});
