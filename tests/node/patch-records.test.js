// Patch events as records (slop_consumer_patch_records, issue 50): drain() reads them without
// JSON.parse, and must give the very event the JSON form gives: the same members in the same
// order, at "/" and below it, with moves, escapes, non-ASCII ids, empty patches and truncation.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSlopCoreNode } from '../../js-glue/node/load-core.js';
import { item, makeFrames, snapshotText } from '../bench/patch-frames.mjs';

const core = await loadSlopCoreNode();
const HELLO = JSON.stringify({ type: 'hello', provider: { id: 'p', name: 'P', slop_version: '0.1', capabilities: ['state', 'patches', 'affordances'] } });
const TREE = { id: 'root', type: 'root', children: [{ id: 'items', type: 'collection', children: Array.from({ length: 40 }, (_, i) => item(i, true)) }] };

/** Two consumers on the same frames, one per form; same seed, so the same subscription ids. */
function pair(path, tree, numbers = 'plain') {
  const made = ['record', 'json'].map((patchEvents) => {
    const c = new core.SlopConsumer({ transport: 'ws', seed: 11, patchEvents, numbers });
    const sub = c.subscribe({ path, depth: -1 }, 0);
    c.receive(HELLO, 0);
    c.receive(snapshotText(sub, tree), 0);
    c.drain();
    return { c, sub };
  });
  assert.equal(made[0].sub, made[1].sub);
  return made;
}

/** Feeds every frame to both and compares what each drain gives; the count of patch events. */
function compare([rec, json], frames) {
  let patches = 0;
  for (const f of frames) {
    rec.c.receive(f, 0);
    json.c.receive(f, 0);
    const a = rec.c.drain(), b = json.c.drain();
    assert.deepStrictEqual(a, b);
    assert.equal(JSON.stringify(a), JSON.stringify(b), 'the same members in the same order');
    patches += a.filter((o) => o.kind === 'event' && o.event.event === 'patch').length;
  }
  return patches;
}

const patchFrame = (sub, version, ops) => JSON.stringify({ type: 'patch', subscription: sub, version, seq: version - 1, ops });

test('the bench mix at "/": replaces, adds, removes and meta, one and ten ops a frame, every number mode', () => {
  for (const [ops, numbers] of [[1, 'plain'], [10, 'plain'], [3, 'exact'], [3, 'verbatim']]) {
    const both = pair('/', TREE, numbers);
    const frames = makeFrames(both[0].sub, 40, 400, ops, true, 5 + ops);
    assert.equal(compare(both, frames), 400);
    assert.deepStrictEqual(both[0].c.tree(both[0].sub, '/'), both[1].c.tree(both[1].sub, '/'));
    for (const { c } of both) c.free();
  }
});

test('below "/", with moves, escaped and non-ASCII ids, an empty patch and a truncated one', () => {
  const both = pair('/items', TREE.children[0]);
  const { sub } = both[0];
  const odd = 'é "q" \\ \u2028 😀'; // an id holds no "/" (the core refuses one)
  const frames = [
    patchFrame(sub, 2, [{ op: 'add', path: `/${odd}`, value: { id: odd, type: 'item' }, index: 0 }]),
    patchFrame(sub, 3, [{ op: 'move', path: '/m3', index: 0 }, { op: 'remove', path: '/m4' }, { op: 'replace', path: '/properties', value: { n: 1 } }]),
    patchFrame(sub, 4, []),
    patchFrame(sub, 5, Array.from({ length: 1100 }, (_, i) => ({ op: 'add', path: `/x${i}`, value: { id: `x${i}`, type: 't' } }))),
  ];
  assert.equal(compare(both, frames), 4);
  const last = both[0];
  last.c.receive(patchFrame(sub, 6, [{ op: 'remove', path: '/m5' }]), 0);
  const [out] = last.c.drain();
  assert.deepStrictEqual(out.event.removed, ['/items/m5']);
  assert.deepStrictEqual(out.event.children, [{ op: 'remove', parent: '/items', index: 5, id: 'm5' }]);
  for (const { c } of both) c.free();
});

test('a refused patch and a resync come out alike in both forms', () => {
  const both = pair('/', TREE);
  const { sub } = both[0];
  const frames = [
    patchFrame(sub, 2, [{ op: 'replace', path: '/items/m1/properties/subject', value: 'x' }, { op: 'remove', path: '/nope' }]),
    patchFrame(sub, 9, [{ op: 'replace', path: '/items/m2/properties/subject', value: 'y' }]),
  ];
  assert.equal(compare(both, frames), 0);
  for (const { c } of both) c.free();
});
