// What changed between two states of a tree (extension/shared/state-diff.js): by field for a node
// seen in both, and the nodes added and removed. The service worker's history computes its diffs
// with it (timeline.js, tests/node/timeline.test.js); the panel renders them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffStates, viewDiff, boundaryText } from '../../extension/shared/state-diff.js';

const v = (path, fields = {}) => ({ id: path.slice(path.lastIndexOf('/') + 1) || 'root', type: 'item', path, child_ids: [], ...fields });
const map = (...views) => new Map(views.map((x) => [x.path, x]));

test('boundaryText says what a boundary step crossed', () => {
  assert.equal(boundaryText({ version: 1, boundary: { kind: 'restart', previousVersion: 20101 } }), 'provider restarted: version 1 after 20101');
  assert.equal(boundaryText({ version: 7, boundary: { kind: 'provider', previous: { id: 'a', name: 'A' }, provider: { id: 'b', name: 'B' }, previousVersion: 2 } }),
    'provider changed: A (a) → B (b), version 7 after 2');
  assert.equal(boundaryText({ version: 3, boundary: { kind: 'reload', previousVersion: 9 } }), 'page loaded again (history kept)');
  assert.equal(boundaryText({ version: 3 }), '');
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
