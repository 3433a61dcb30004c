// Randomized differential test of the WASM build's mirror: a random tree and
// ~500 random patches (child adds with and without index, replaces of an
// existing id in place or at an index, removes, moves, whole-node replaces, property
// add/replace/remove at nested object and array paths, keys with "/" and "~"
// escaped, the "children" keyword form of paths) are fed to the core through
// the JS wrapper; after every 50 patches consumer.tree(sub, '/', -1) must equal
// the model.
//
// The tiny reference model below exists ONLY inside this test, as an oracle;
// the product's patch applier is the C core.
//
// Reproduce a failure with SLOP_DIFF_SEED=<seed> node --test tests/node/core-differential.test.js

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Live } from './helpers.js';
import { mulberry32 } from '../fixtures/provider/state.mjs';

const PATCHES = 500;
const CHECK_EVERY = 50;
const SEEDS = process.env.SLOP_DIFF_SEED ? [Number(process.env.SLOP_DIFF_SEED)] : [1, 20261120, 777];


const clone = (v) => structuredClone(v);
const esc = (k) => k.replace(/~/g, '~0').replace(/\//g, '~1');

function makeGen(seed) {
  const rnd = mulberry32(seed);
  const int = (n) => Math.floor(rnd() * n);
  const pick = (a) => a[int(a.length)];
  const chance = (p) => rnd() < p;
  let nextId = 0;
  const ID_STYLES = [(n) => `n${n}`, (n) => `item-${n}`, (n) => `n.${n}`, (n) => `ñ${n}`, (n) => `N ${n}`, (n) => `${n}`];
  const newId = () => pick(ID_STYLES)(nextId++);
  // keys that need escaping, look like escapes, or look like array tokens
  const KEYS = ['title', 'done', 'count', 'a/b', 'x~y', '~1', '~0', '/', '~', 'a~1b', '-', '0', 'é', 'k/~/k', 'properties', 'meta', 'children', ''];
  const key = () => (chance(0.7) ? pick(KEYS) : `k${int(20)}`);

  function value(depth = 0) {
    const r = int(depth > 2 ? 5 : 8);
    switch (r) {
      case 0: return int(1000) - 500;
      case 1: return pick(['', 'x', 'hello world', 'ü/~', '</slop-state>']);
      case 2: return chance(0.5);
      case 3: return null;
      case 4: return int(100);
      case 5: case 6: {
        const o = {};
        for (let i = int(3); i > 0; i--) o[key()] = value(depth + 1);
        return o;
      }
      default: return Array.from({ length: int(4) }, () => value(depth + 1));
    }
  }
  function props() {
    const p = {};
    for (let i = int(4); i > 0; i--) p[key()] = value(1);
    return p;
  }
  function node(depth, maxKids) {
    const n = { id: newId(), type: pick(['item', 'group', 'field']) };
    if (chance(0.7)) n.properties = props();
    if (depth > 0 && chance(0.6)) {
      const kids = [];
      for (let i = int(maxKids + 1); i > 0; i--) kids.push(node(depth - 1, maxKids));
      n.children = kids;
    }
    return n;
  }
  return { rnd, int, pick, chance, newId, key, value, props, node };
}

// ---- the model (test-only oracle) -----------------------------------------

/** Every node with its path of ids (root: []). */
function allNodes(root) {
  const out = [];
  const walk = (n, ids) => {
    out.push({ n, ids });
    for (const k of n.children ?? []) walk(k, [...ids, k.id]);
  };
  walk(root, []);
  return out;
}
const countNodes = (root) => allNodes(root).length;
/** The core's one form of "no children": no member (not [] or null). */
function canonical(n) {
  const c = { ...n };
  if (c.children?.length) c.children = c.children.map(canonical);
  else delete c.children;
  return c;
}
const find = (root, ids) => ids.reduce((n, id) => n.children.find((k) => k.id === id), root);

/** Node path on the wire; sometimes in the "/a/children/b" form. */
function nodePath(ids, g) {
  let p = '';
  for (const id of ids) p += (g.chance(0.15) ? '/children/' : '/') + id;
  return p;
}

/** Every JSON-pointer location inside a value: {container, key|index, segs}. */
function locations(v, segs = []) {
  const out = [];
  if (Array.isArray(v)) v.forEach((x, i) => { out.push({ parent: v, at: i, segs: [...segs, String(i)] }); out.push(...locations(x, [...segs, String(i)])); });
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) { out.push({ parent: v, at: k, segs: [...segs, k] }); out.push(...locations(x, [...segs, k])); }
  return out;
}
/** Every container (object or array) inside a value, with its segments. */
function containers(v, segs = []) {
  const out = [];
  if (Array.isArray(v)) { out.push({ c: v, segs }); v.forEach((x, i) => out.push(...containers(x, [...segs, String(i)]))); }
  else if (v && typeof v === 'object') { out.push({ c: v, segs }); for (const [k, x] of Object.entries(v)) out.push(...containers(x, [...segs, k])); }
  return out;
}
const ptr = (segs) => segs.map((s) => '/' + esc(s)).join('');

/** Generates one valid op against `root`, applies it to the model, returns it. */
function randomOp(root, g) {
  const nodes = allNodes(root);
  const nonRoot = nodes.filter((x) => x.ids.length > 0);
  const leaves = nonRoot.filter((x) => !x.n.children?.length);
  // mostly leaves for removes and whole-node replaces, so the tree keeps growing
  const victim = () => (leaves.length && g.chance(0.85) ? g.pick(leaves) : g.pick(nonRoot));
  const kind = g.int(100);

  if (kind < 18) { // add a child, with or without index
    const parents = nodes.filter((x) => x.ids.length < 5);
    const { n, ids } = g.pick(parents);
    const kids = (n.children ??= []);
    const value = g.node(g.chance(0.3) ? 1 : 0, 2);
    const op = { op: 'add', path: nodePath([...ids, value.id], g), value: clone(value) };
    if (g.chance(0.5)) { op.index = g.int(kids.length + 1); kids.splice(op.index, 0, value); } else kids.push(value);
    return op;
  }
  if (kind < 24 && nonRoot.length) { // replace an existing id (in place, or at index after removal)
    const { n, ids } = victim();
    const parent = find(root, ids.slice(0, -1));
    const value = g.node(1, 2);
    value.id = n.id;
    if (g.chance(0.5)) delete value.id; // the id may be left out: it comes from the path
    const op = { op: 'replace', path: nodePath(ids, g), value: clone(value) };
    value.id = n.id;
    const at = parent.children.indexOf(n);
    parent.children.splice(at, 1);
    if (g.chance(0.5)) { op.index = g.int(parent.children.length + 1); parent.children.splice(op.index, 0, value); } else parent.children.splice(at, 0, value);
    return op;
  }
  if (kind < 34 && nonRoot.length > 10) { // remove a child (and its subtree)
    const { n, ids } = victim();
    const parent = find(root, ids.slice(0, -1));
    parent.children.splice(parent.children.indexOf(n), 1);
    return { op: 'remove', path: nodePath(ids, g) };
  }
  if (kind < 46 && nonRoot.length) { // move within its parent; index counted after removal
    const { n, ids } = g.pick(nonRoot);
    const parent = find(root, ids.slice(0, -1));
    const index = g.int(parent.children.length); // past the end is refused (core-mirror.test.js)
    parent.children.splice(parent.children.indexOf(n), 1);
    parent.children.splice(index, 0, n);
    return { op: 'move', path: nodePath(ids, g), index };
  }
  if (kind < 50 && nonRoot.length) { // replace a whole child node in place
    const { n, ids } = victim();
    const parent = find(root, ids.slice(0, -1));
    const value = g.node(1, 2);
    value.id = n.id;
    parent.children[parent.children.indexOf(n)] = value;
    return { op: 'replace', path: nodePath(ids, g), value: clone(value) };
  }
  // property ops
  const { n, ids } = g.pick(nodes);
  const base = nodePath(ids, g) + '/properties';
  const locs = n.properties ? locations(n.properties) : [];
  if (kind < 53) { // replace the whole properties object
    const value = g.props();
    n.properties = value;
    return { op: 'replace', path: base, value: clone(value) };
  }
  if (kind < 72 && locs.length) { // replace an existing value, at any depth
    const l = g.pick(locs);
    const value = g.value(1);
    l.parent[l.at] = value;
    return { op: 'replace', path: base + ptr(l.segs), value: clone(value) };
  }
  if (kind < 82 && locs.length) { // remove an existing key or array element
    const l = g.pick(locs);
    if (Array.isArray(l.parent)) l.parent.splice(l.at, 1); else delete l.parent[l.at];
    return { op: 'remove', path: base + ptr(l.segs) };
  }
  // add: a key to an object (new or existing) or an element to an array (index or "-")
  n.properties ??= {};
  const { c, segs } = g.pick(containers(n.properties));
  const value = g.value(1);
  if (Array.isArray(c)) {
    if (g.chance(0.5)) { c.push(value); return { op: 'add', path: base + ptr(segs) + '/-', value: clone(value) }; }
    const i = g.int(c.length + 1);
    c.splice(i, 0, value);
    return { op: 'add', path: base + ptr([...segs, String(i)]), value: clone(value) };
  }
  const k = g.key();
  c[k] = value;
  return { op: 'add', path: base + ptr([...segs, k]), value: clone(value) };
}

for (const seed of SEEDS) {
  test(`random patches (seed ${seed}): the core's mirror equals the model every ${CHECK_EVERY} patches`, async () => {
    const g = makeGen(seed);
    const model = { id: 'root', type: 'root', properties: g.props(), children: Array.from({ length: 6 }, () => g.node(3, 3)) };
    const l = await Live.start({ tree: model, seed });
    assert.equal(l.events('snapshot').length, 1, `snapshot refused: ${JSON.stringify(l.events('protocol_error'))}`);
    assert.deepEqual(l.tree('/'), canonical(model), `seed ${seed}: the snapshot`);
    let opsTotal = 0;
    const recent = [];
    for (let i = 1; i <= PATCHES; i++) {
      const ops = [];
      for (let k = 1 + g.int(3); k > 0; k--) ops.push(randomOp(model, g));
      opsTotal += ops.length;
      recent.push(ops);
      if (recent.length > CHECK_EVERY) recent.shift();
      l.clear();
      l.patch(1 + i, i, ops);
      const bad = l.outs.filter((o) => o.kind === 'send' || o.event.event !== 'patch');
      assert.equal(bad.length, 0,
        `seed ${seed}, patch ${i} was not applied: ${JSON.stringify(bad)}\nops: ${JSON.stringify(ops)}`);
      if (i % CHECK_EVERY === 0 || i === PATCHES) {
        const got = l.tree('/');
        assert.deepEqual(got, canonical(model), `seed ${seed}: mirror differs from the model after patch ${i}; last patches: ${JSON.stringify(recent)}`);
        assert.equal(l.status().nodes, countNodes(model));
        assert.equal(l.subStatus().version, 1 + i);
      }
    }
    assert.ok(opsTotal >= PATCHES);
    l.free();
  });
}
