// The versions a tree went through (extension/panel/history.js): steps and boundaries, earlier
// states rebuilt from the live views, the bounds on what is kept, and the diff of two states.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { History, MAX_ENTRIES, MAX_VIEWS, diffStates, viewDiff, boundaryText } from '../../extension/panel/history.js';

const v = (path, fields = {}) => ({ id: path.slice(path.lastIndexOf('/') + 1) || 'root', type: 'item', path, child_ids: [], ...fields });
const map = (...views) => new Map(views.map((x) => [x.path, x]));

/** A history of: reset v1 {/, /a}, delta v2 (a changed), delta v3 (b added), delta v4 (a removed). */
function sample() {
  const h = new History();
  const root = v('/', { child_ids: ['a'] });
  const a1 = v('/a', { properties: { n: 1 } });
  const a2 = v('/a', { properties: { n: 2 } });
  const b = v('/b');
  const root2 = v('/', { child_ids: ['a', 'b'] });
  const root3 = v('/', { child_ids: ['b'] });
  h.recordReset(1, new Map());
  h.recordDelta(2, new Map([['/a', { before: a1, after: a2 }]]));
  h.recordDelta(3, new Map([['/b', { before: undefined, after: b }], ['/', { before: root, after: root2 }]]));
  h.recordDelta(4, new Map([['/a', { before: a2, after: undefined }], ['/', { before: root2, after: root3 }]]));
  return { h, live: map(root3, b), a1, a2, b };
}

test('materialize rebuilds each version from the live views', () => {
  const { h, live, a1, a2, b } = sample();
  assert.equal(h.length, 4);
  assert.deepEqual(h.entries.map((e) => [e.step, e.version, e.kind, e.size]), [[1, 1, 'reset', 0], [2, 2, 'delta', 1], [3, 3, 'delta', 2], [4, 4, 'delta', 2]]);
  const at = (i) => h.materialize(i, live);
  assert.deepEqual([...at(0).keys()].sort(), ['/', '/a']);
  assert.equal(at(0).get('/a'), a1);
  assert.equal(at(1).get('/a'), a2);
  assert.equal(at(2).get('/b'), b);
  assert.deepEqual([...at(3).keys()].sort(), ['/', '/b']);
  assert.notEqual(at(3), live, 'the live state comes back as a copy');
});

test('a reset undoes to the views it replaced', () => {
  const h = new History();
  const old = map(v('/', { child_ids: ['x'] }), v('/x'));
  h.recordReset(1, new Map());
  h.recordReset(1, old, { kind: 'restart', previousVersion: 40 });
  const live = map(v('/'));
  assert.deepEqual([...h.materialize(0, live).keys()].sort(), ['/', '/x']);
  assert.deepEqual([...h.materialize(1, live).keys()], ['/']);
});

test('boundaries: marked on the reset that crossed them, found between two entries', () => {
  const h = new History();
  h.recordReset(20101, new Map());
  h.recordDelta(20102, new Map());
  h.recordReset(1, new Map(), { kind: 'restart', previousVersion: 20102 });
  h.recordDelta(2, new Map());
  h.recordReset(1, new Map(), { kind: 'provider', previous: { id: 'old', name: 'Old' }, provider: { id: 'new', name: 'New' }, previousVersion: 2 });
  assert.deepEqual(h.boundariesBetween(0, 4).map((e) => e.step), [3, 5]);
  assert.deepEqual(h.boundariesBetween(2, 3), [], 'entry a itself is not crossed');
  assert.deepEqual(h.boundariesBetween(1, 2).map((e) => e.version), [1]);
  assert.equal(boundaryText(h.entries[2]), 'provider restarted: version 1 after 20102');
  assert.equal(boundaryText(h.entries[4]), 'provider changed: Old (old) → New (new), version 1 after 2');
  assert.equal(boundaryText(h.entries[1]), '');
  assert.equal(boundaryText({ version: 3, boundary: { kind: 'restart', previousVersion: null } }), 'provider restarted: version 3');
});

test('at most MAX_ENTRIES versions: the oldest go, steps stay unique and findable', () => {
  const h = new History();
  h.recordReset(1, new Map());
  for (let i = 2; i <= MAX_ENTRIES + 10; i++) h.recordDelta(i, new Map());
  assert.equal(h.length, MAX_ENTRIES);
  assert.equal(h.dropped, 10);
  assert.equal(h.entries[0].step, 11);
  assert.equal(h.indexOfStep(11), 0);
  assert.equal(h.indexOfStep(MAX_ENTRIES + 10), MAX_ENTRIES - 1);
  assert.equal(h.indexOfStep(5), -1, 'dropped');
  assert.equal(h.indexOfStep(10_000), -1, 'never recorded');
  assert.equal(new History().indexOfStep(1), -1);
});

test('at most MAX_VIEWS replaced views: old entries go first, the newest always stays', () => {
  const h = new History();
  const big = (n, tag) => new Map(Array.from({ length: n }, (_, i) => [`/${tag}${i}`, { before: v(`/${tag}${i}`), after: undefined }]));
  h.recordDelta(1, big(MAX_VIEWS / 2, 'a'));
  h.recordDelta(2, big(MAX_VIEWS / 2, 'b'));
  assert.equal(h.retained, MAX_VIEWS);
  h.recordDelta(3, big(10, 'c'));
  assert.deepEqual(h.entries.map((e) => e.version), [2, 3]);
  assert.equal(h.retained, MAX_VIEWS / 2 + 10);
  h.recordDelta(4, big(MAX_VIEWS + 1, 'd'));
  assert.deepEqual(h.entries.map((e) => e.version), [4], 'alone over the bound, still kept');
});

test('viewDiff: type, properties, meta, affordances, content_ref and children by field', () => {
  const before = v('/m', {
    properties: { subject: 'Hi', tags: ['a'], gone: 1 },
    meta: { salience: 0.5 },
    affordances: [{ action: 'close' }, { action: 'tag', params: { type: 'object' } }],
    content_ref: { uri: 'x:1' },
    child_ids: ['p1', 'p2', 'p3'],
  });
  const after = v('/m', {
    type: 'thread',
    properties: { subject: 'Hi', tags: ['a', 'b'], added: true },
    meta: { salience: 0.5 },
    affordances: [{ action: 'reopen' }, { action: 'tag', params: { type: 'object', required: ['t'] } }],
    content_ref: { uri: 'x:1' },
    child_ids: ['p2', 'p4'],
  });
  const d = viewDiff(before, after);
  assert.deepEqual(d.type, { before: 'item', after: 'thread' });
  assert.deepEqual(d.properties, [
    { key: 'tags', before: ['a'], after: ['a', 'b'] },
    { key: 'gone', before: 1, after: undefined },
    { key: 'added', before: undefined, after: true },
  ]);
  assert.deepEqual(d.meta, []);
  assert.deepEqual(d.affordances.map((a) => [a.action, a.change]), [['close', 'removed'], ['tag', 'changed'], ['reopen', 'added']]);
  assert.equal(d.contentRef, null, 'equal by value');
  assert.deepEqual(d.children, { added: ['p4'], removed: ['p1', 'p3'], reordered: false });
  assert.deepEqual(viewDiff(v('/x', { child_ids: ['a', 'b'] }), v('/x', { child_ids: ['b', 'a'] })).children, { added: [], removed: [], reordered: true });
});

test('diffStates: added, removed and changed nodes sorted by path; equal views are not changes', () => {
  const same = v('/s', { properties: { k: 1 } });
  const a = map(v('/'), same, v('/old'), v('/c', { properties: { n: 1 } }), v('/e', { properties: { x: [1] } }));
  const b = map(v('/'), same, v('/z'), v('/new'), v('/c', { properties: { n: 2 } }), v('/e', { properties: { x: [1] } }));
  const d = diffStates(a, b);
  assert.deepEqual(d.added.map((x) => x.path), ['/new', '/z']);
  assert.deepEqual(d.removed.map((x) => x.path), ['/old']);
  assert.deepEqual(d.changed.map((x) => x.path), ['/c'], 'a new object with the same content is no change');
  assert.deepEqual(d.changed[0].diff.properties, [{ key: 'n', before: 1, after: 2 }]);
  assert.deepEqual(diffStates(a, a), { added: [], removed: [], changed: [] });
});
