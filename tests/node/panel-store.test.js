// The panel's store fed the way the service worker feeds it, from a real core consumer: node
// views from node-views.js (Push.TREE_RESET up to a budget, TREE_DELTA per patch event, GET_NODES
// answers with `missing`), applied in the order the bridge applies them. Checks that nodes
// removed while the panel is still loading the rest of a big tree end its "loading" bookkeeping
// (nothing stays requested, the total follows the mirror). (The history is the service worker's:
// tests/node/timeline.test.js.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Live } from './helpers.js';
import { Push, PanelNote } from '../../extension/shared/messages.js';
import { Store } from '../../extension/panel/store.js';
import { breadthFirstViews, KnownPaths, patchDelta, viewsOf } from '../../extension/service-worker/node-views.js';

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
    this.known = new KnownPaths();
  }

  info() {
    return this.live.subStatus();
  }

  reset(extra = {}) {
    const info = this.info();
    const { nodes, complete } = breadthFirstViews(this.live.c, this.live.sub, info.path, this.budget);
    this.known = new KnownPaths(nodes.map((n) => n.path));
    this.store.applyBatch([{ type: Push.TREE_RESET, key: KEY, sub: this.sub, path: info.path, version: info.version, count: info.nodes, nodes, complete, ...extra }]);
  }

  /** Feeds a patch to the core and pushes its delta (as the worker does per patch event). */
  patch(version, seq, ops, maxAdded = undefined) {
    const outs = this.live.patch(version, seq, ops);
    let applied = false;
    for (const o of outs) {
      if (o.kind !== 'event' || o.event.event !== 'patch') continue;
      applied = true;
      if (o.event.truncated) { // the change lists are incomplete: fresh views (panel-ports.js)
        this.reset();
        continue;
      }
      const { views, removed, children, partial } = patchDelta(this.live.c, this.live.sub, o.event, this.known, new Map(), maxAdded);
      this.store.applyBatch([{ type: Push.TREE_DELTA, key: KEY, sub: this.sub, version: o.event.version, views, removed, children, ...(partial ? { partial } : {}) }]);
    }
    assert.ok(applied, `patch v${version} applied: ${JSON.stringify(outs.map((o) => o.event ?? o.frame)).slice(0, 400)} ops ${JSON.stringify(ops).slice(0, 300)}`);
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
  for (let i = 0; i < 300; i++) ops.push({ op: 'add', path: `/c/n${i}`, value: { id: `n${i}`, type: 'item' } });
  port.patch(2, 1, ops, 200);
  assert.equal(tree.complete, false, 'the worker left 100 views out');
  assert.equal(store.missingPaths(tree, 1000).length, 100);
  live.free();
});

test('the panel\'s child lists equal the core\'s after thousands of random structural ops', async () => {
  // Two collections with nested children; ops: add at an index or at the end, remove, move,
  // replace of a child, a whole children list replaced, and property changes on parents (their
  // fresh views come in the same delta as child changes, which must not apply twice).
  const seed = Number(process.env.SLOP_KIDS_SEED ?? 20261123);
  let s = seed >>> 0;
  const r = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 4294967296; };
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const live = await Live.start({
    tree: { id: 'root', type: 'root', children: [{ id: 'a', type: 'collection' }, { id: 'b', type: 'collection', children: [{ id: 'x', type: 'group' }] }] },
  });
  const store = new Store();
  const port = new Port(live, store, 100_000);
  port.reset();
  let next = 0;
  let version = 1;
  let structural = 0;
  for (let p = 0; p < 600; p++) {
    const ops = [];
    for (let k = 1 + Math.floor(r() * 8); k > 0; k--) {
      const parent = pick(['/a', '/b', '/b/x']);
      const kids = (live.kids(parent) ?? []).filter((id) => id !== 'x'); // /b/x stays
      const x = r();
      let op;
      const item = () => ({ id: `n${next++}`, type: 'item', ...(r() < 0.3 ? { children: [{ id: 'leaf', type: 'item' }] } : {}) });
      const all = live.kids(parent) ?? [];
      if (x < 0.35 || kids.length === 0) {
        const v = item();
        op = { op: 'add', path: `${parent}/${v.id}`, value: v, ...(r() < 0.7 ? { index: Math.floor(r() * (all.length + 1)) } : {}) };
      } else if (x < 0.55) op = { op: 'remove', path: `${parent}/${pick(kids)}` };
      else if (x < 0.75) op = { op: 'move', path: `${parent}/${pick(kids)}`, index: Math.floor(r() * all.length) };
      else if (x < 0.85) {
        const id = pick(kids);
        op = { op: 'replace', path: `${parent}/${id}`, value: { id, type: 'item', properties: { v: p } } };
      } else if (x < 0.9 && parent !== '/b') op = { op: 'replace', path: `${parent}/children`, value: [item(), item()] };
      else op = { op: 'add', path: `${parent}/properties/n`, value: p };
      port.patch(++version, version - 1, [op]);
      structural++;
    }
  }
  // And the same through multi-op patches, fed to the store as the worker does.
  for (let p = 0; p < 300; p++) {
    const ops = [];
    const shadow = new Map(['/a', '/b', '/b/x'].map((q) => [q, [...(live.kids(q) ?? [])]]));
    for (let k = 1 + Math.floor(r() * 8); k > 0; k--) {
      const parent = pick(['/a', '/b', '/b/x']);
      const kids = shadow.get(parent);
      const movable = kids.filter((id) => id !== 'x');
      const x = r();
      if (x < 0.4 || kids.length === 0) {
        const id = `n${next++}`;
        const at = Math.floor(r() * (kids.length + 1));
        ops.push({ op: 'add', path: `${parent}/${id}`, value: { id, type: 'item' }, index: at });
        kids.splice(at, 0, id);
      } else if (x < 0.65 && movable.length) {
        const i = kids.indexOf(pick(movable));
        ops.push({ op: 'remove', path: `${parent}/${kids[i]}` });
        kids.splice(i, 1);
      } else if (x < 0.9) {
        const i = Math.floor(r() * kids.length);
        const to = Math.floor(r() * kids.length);
        ops.push({ op: 'move', path: `${parent}/${kids[i]}`, index: to });
        kids.splice(to, 0, ...kids.splice(i, 1));
      } else ops.push({ op: 'add', path: `${parent}/properties/n`, value: p });
    }
    port.patch(++version, version - 1, ops);
    structural += ops.length;
    if (p % 50 === 49 || p === 299) {
      const tree = store.tree(KEY, live.sub);
      for (const q of ['/', '/a', '/b', '/b/x']) {
        assert.deepEqual(tree.nodes.get(q)?.child_ids, live.kids(q), `seed ${seed}, patch ${p}: child list of ${q}`);
      }
      for (const [q, view] of tree.nodes) assert.deepEqual(view.child_ids, live.kids(q), `seed ${seed}: ${q} in the panel is in the core with the same children`);
    }
  }
  assert.ok(structural > 2000, `${structural} ops`);
  live.free();
});
