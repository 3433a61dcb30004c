// The core's profile of a mirror (slop_consumer_profile): sizes summed up the tree, traffic
// counted as patches commit, and the tree text only of nodes changed since a serial.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Live } from './helpers.js';

const COL = { PATH: 0, TYPE: 1, PARENT: 2, DEPTH: 3, OWN: 4, BYTES: 5, NODES: 6, OWN_ACTIONS: 7, ACTIONS: 8, SALIENCE: 9, WINDOWED: 10, SELF: 11, SUB: 12, TEXT: 13 };
const TREE = {
  id: 'root', type: 'root', meta: { salience: 0.9 }, children: [
    { id: 'clock', type: 'status', properties: { now: '12:00', tz: 'UTC' } },
    {
      id: 'list', type: 'collection', meta: { total_children: 40, window: [0, 2] }, children: [
        { id: 'a', type: 'item', properties: { title: 'Å ünïcode' }, affordances: [{ action: 'open' }, { action: 'drop', dangerous: true }] },
        { id: 'b', type: 'item', properties: { title: 'B', n: 1.50 } },
      ],
    },
  ],
};
const utf8 = (s) => Buffer.byteLength(s, 'utf8');
const profile = (l, since = 0) => JSON.parse(l.c.profileText(l.sub, since));
const row = (p, path) => p.rows.find((r) => r[COL.PATH] === path);

async function start() {
  const l = await Live.start();
  l.snapshot(1, TREE);
  return l;
}

test('rows come in pre-order with sizes the core prints, and their texts make the tree text', async () => {
  const l = await start();
  const p = profile(l);
  assert.deepEqual(p.rows.map((r) => r[COL.PATH]), ['/', '/clock', '/list', '/list/a', '/list/b']);
  assert.deepEqual(p.rows.map((r) => r[COL.PARENT]), [-1, 0, 0, 2, 2]);
  assert.deepEqual(p.rows.map((r) => r[COL.DEPTH]), [0, 1, 1, 2, 2]);
  assert.equal(p.nodes, 5);
  for (const r of p.rows) {
    const path = r[COL.PATH];
    assert.equal(r[COL.BYTES], utf8(l.c.treeJson(l.sub, path, -1)), `subtree bytes of ${path}`);
    assert.equal(r[COL.OWN], utf8(l.c.treeJson(l.sub, path, 0)), `own bytes of ${path}`);
  }
  assert.equal(row(p, '/')[COL.NODES], 5);
  assert.equal(row(p, '/list')[COL.NODES], 3);
  assert.equal(row(p, '/list/a')[COL.OWN_ACTIONS], 2);
  assert.equal(row(p, '/')[COL.ACTIONS], 2);
  assert.equal(row(p, '/')[COL.SALIENCE], 0.9);
  assert.equal(row(p, '/clock')[COL.SALIENCE], null, 'no salience is null, not the 0.5 the ranking assumes');
  assert.equal(row(p, '/list')[COL.WINDOWED], 1);
  assert.equal(row(p, '/clock')[COL.WINDOWED], 0);
  assert.equal(p.rows.map((r) => r[COL.TEXT]).join('\n'), l.c.treeText(l.sub));
  assert.match(row(p, '/list')[COL.TEXT], /\n {4}\(showing 2 of 40\)$/, 'the window line belongs to its collection');
  l.free();
});

test('traffic: ops on a node and its subtree, no-op writes apart, a patch once per subtree', async () => {
  const l = await start();
  const ops1 = [
    { op: 'replace', path: '/clock/properties/now', value: '12:01' },
    { op: 'replace', path: '/clock/properties/tz', value: 'UTC' }, // the value already there
  ];
  l.patch(2, 1, ops1);
  const ops2 = [
    { op: 'replace', path: '/list/a/properties/title', value: 'A' },
    { op: 'replace', path: '/list/b/properties/n', value: 1.5 }, // 1.50 == 1.5: the same value
  ];
  l.patch(3, 2, ops2);
  const p = profile(l);
  const bytes = (ops) => ops.reduce((n, o) => n + utf8(JSON.stringify(o)), 0);
  assert.deepEqual(row(p, '/clock')[COL.SELF], [1, 2, bytes(ops1), 1]);
  assert.deepEqual(row(p, '/list/a')[COL.SELF], [1, 1, bytes([ops2[0]]), 0]);
  assert.deepEqual(row(p, '/list/b')[COL.SELF], [1, 1, bytes([ops2[1]]), 1]);
  assert.deepEqual(row(p, '/list')[COL.SELF], [0, 0, 0, 0]);
  assert.deepEqual(row(p, '/list')[COL.SUB], [1, 2, bytes(ops2), 1], 'two children in one patch: one patch');
  assert.deepEqual(row(p, '/')[COL.SUB], [2, 4, bytes(ops1) + bytes(ops2), 2]);
  assert.deepEqual(p.traffic, [2, 4, bytes(ops1) + bytes(ops2), 2]);
  l.free();
});

test('a refused patch counts nothing and leaves the sizes as they were', async () => {
  const l = await start();
  const before = profile(l);
  l.patch(2, 1, [
    { op: 'replace', path: '/clock/properties/now', value: '99:99' },
    { op: 'remove', path: '/nowhere' },
  ]);
  const after = profile(l);
  assert.deepEqual(after.traffic, [0, 0, 0, 0]);
  assert.deepEqual(after.rows.map((r) => r.slice(0, COL.TEXT)), before.rows.map((r) => r.slice(0, COL.TEXT)));
  l.free();
});

test('since: only the texts of nodes a patch changed, and the parent whose children changed', async () => {
  const l = await start();
  const first = profile(l);
  l.patch(2, 1, [{ op: 'replace', path: '/clock/properties/now', value: '12:05' }]);
  const second = profile(l, first.serial);
  assert.ok(second.serial > first.serial);
  const withText = second.rows.filter((r) => r[COL.TEXT] !== null).map((r) => r[COL.PATH]);
  assert.deepEqual(withText, ['/clock']);
  assert.match(row(second, '/clock')[COL.TEXT], /now="12:05"|now=\"12:05\"/);
  l.patch(3, 2, [{ op: 'add', path: '/list/c', value: { id: 'c', type: 'item' } }]);
  const third = profile(l, second.serial);
  assert.deepEqual(third.rows.filter((r) => r[COL.TEXT] !== null).map((r) => r[COL.PATH]), ['/list', '/list/c']);
  assert.equal(row(third, '/list')[COL.SELF][1], 1, 'an add counts on the parent');
  l.free();
});

test('a snapshot rebuilds the nodes, and the subscription\'s traffic goes on', async () => {
  const l = await start();
  l.patch(2, 1, [{ op: 'replace', path: '/clock/properties/now', value: '12:01' }]);
  l.snapshot(3, TREE);
  const p = profile(l);
  assert.deepEqual(row(p, '/clock')[COL.SELF], [0, 0, 0, 0]);
  assert.equal(p.traffic[1], 1);
  assert.equal(p.counters_complete, true);
  assert.equal(l.c.profileText('no-such-sub'), null);
  l.free();
});
