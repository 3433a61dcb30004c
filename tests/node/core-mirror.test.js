// The mirror of the WASM build, driven through the JS wrapper: snapshots, patch
// ops, all-or-nothing rollback, resync, seq and version rules. Mirrors the
// mirror sections of tests/c/test_consumer.c.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Live, TODOS, HELLO_ALL } from './helpers.js';

const item = (id, extra = {}) => ({ id, type: 'item', ...extra });

// ---- reference state-mirror tests ---------------------------------------

test('initializes from snapshot', async () => {
  const l = await Live.start();
  const [snap] = l.events('snapshot');
  assert.equal(snap.sub, l.sub);
  assert.equal(snap.version, 1);
  assert.equal(snap.nodes, 4);
  assert.equal(snap.rebase, false);
  assert.equal(l.c.node(l.sub, '/').id, 'root');
  assert.deepEqual(l.kids('/todos'), ['t1', 't2']);
  assert.deepEqual(l.tree('/'), TODOS);
  l.free();
});

test('applies a property replace', async () => {
  const l = await Live.start();
  l.patch(2, 1, [{ op: 'replace', path: '/todos/t1/properties/done', value: true }]);
  assert.equal(l.prop('/todos/t1', 'done'), true);
  assert.equal(l.subStatus().version, 2);
  assert.deepEqual(l.events('patch')[0].changed, ['/todos/t1']);
  l.free();
});

test('applies a child add', async () => {
  const l = await Live.start();
  l.patch(2, 1, [{ op: 'add', path: '/todos/t3', value: item('t3') }]);
  assert.deepEqual(l.kids('/todos'), ['t1', 't2', 't3']);
  assert.deepEqual(l.events('patch')[0].added, ['/todos/t3']);
  l.free();
});

test('applies a child remove', async () => {
  const l = await Live.start();
  l.patch(2, 1, [{ op: 'remove', path: '/todos/t1' }]);
  assert.deepEqual(l.kids('/todos'), ['t2']);
  assert.equal(l.c.node(l.sub, '/todos/t1'), null);
  l.free();
});

test('applies multiple ops in sequence', async () => {
  const l = await Live.start();
  l.patch(2, 1, [
    { op: 'replace', path: '/todos/t1/properties/done', value: true },
    { op: 'replace', path: '/todos/properties/count', value: 3 },
    { op: 'add', path: '/todos/t3', value: item('t3', { properties: { title: 'New' } }) },
    { op: 'replace', path: '/todos/t3/properties/title', value: 'Newer' },
  ]);
  assert.equal(l.prop('/todos/t1', 'done'), true);
  assert.equal(l.prop('/todos', 'count'), 3);
  assert.equal(l.prop('/todos/t3', 'title'), 'Newer');
  l.free();
});

// ---- the rows other consumers get wrong ---------------------------------

test('add with index inserts, add without index appends', async () => {
  const l = await Live.start();
  l.patch(2, 1, [
    { op: 'add', path: '/todos/a', value: item('a'), index: 0 },
    { op: 'add', path: '/todos/b', value: item('b'), index: 2 },
    { op: 'add', path: '/todos/z', value: item('z') },
  ]);
  assert.deepEqual(l.kids('/todos'), ['a', 't1', 'b', 't2', 'z']);
  l.free();
});

test('move reorders [a,b,c,d] to [d,b,a,c] (index after removal); past the last position is refused', async () => {
  const l = await Live.start({ tree: { id: 'r', type: 'root', children: ['a', 'b', 'c', 'd'].map((id) => ({ id, type: 'i' })) } });
  l.patch(2, 1, [
    { op: 'move', path: '/d', index: 0 },
    { op: 'move', path: '/b', index: 1 },
    { op: 'move', path: '/a', index: 2 },
  ]);
  assert.deepEqual(l.kids('/'), ['d', 'b', 'a', 'c']);
  l.patch(3, 2, [{ op: 'move', path: '/d', index: 3 }]);
  assert.deepEqual(l.kids('/'), ['b', 'a', 'c', 'd']);
  l.clear();
  l.patch(4, 3, [{ op: 'move', path: '/d', index: 99 }]);
  assert.equal(l.events('resync')[0]?.reason, 'patch_failed');
  assert.deepEqual(l.kids('/'), ['b', 'a', 'c', 'd']);
  l.free();
});

test('replace of a whole child node swaps it in place', async () => {
  const l = await Live.start();
  l.patch(2, 1, [{
    op: 'replace', path: '/todos/t1',
    value: item('t1', { properties: { title: 'Replaced' }, children: [{ id: 'sub', type: 'field' }] }),
  }]);
  assert.deepEqual(l.kids('/todos'), ['t1', 't2']);
  assert.equal(l.prop('/todos/t1', 'title'), 'Replaced');
  assert.equal(l.prop('/todos/t1', 'done'), undefined);
  assert.deepEqual(l.kids('/todos/t1'), ['sub']);
  l.free();
});

test('deep property paths reach into nested objects and arrays', async () => {
  const l = await Live.start({ tree: { id: 'r', type: 'root', properties: { obj: { k: 1, list: [1, 2, 3] } } } });
  l.patch(2, 1, [
    { op: 'replace', path: '/properties/obj/k', value: 2 },
    { op: 'add', path: '/properties/obj/list/1', value: 9 },
    { op: 'add', path: '/properties/obj/list/-', value: 4 },
    { op: 'remove', path: '/properties/obj/list/0' },
  ]);
  assert.deepEqual(l.prop('/', 'obj'), { k: 2, list: [9, 2, 3, 4] });
  l.free();
});

test('escaped keys decode ~1 then ~0 ("~01" is "~1", not "/")', async () => {
  const l = await Live.start({ tree: { id: 'r', type: 'root', properties: { 'a/b~c': 1 }, meta: { 'x~y': 1 } } });
  l.patch(2, 1, [
    { op: 'replace', path: '/properties/a~1b~0c', value: 2 },
    { op: 'add', path: '/properties/~01', value: 'tilde-one' },
    { op: 'replace', path: '/meta/x~0y', value: 5 },
  ]);
  assert.equal(l.prop('/', 'a/b~c'), 2);
  assert.equal(l.prop('/', '~1'), 'tilde-one');
  assert.equal(l.prop('/', '/'), undefined);
  assert.deepEqual(l.c.node(l.sub, '/').meta, { 'x~y': 5 });
  l.free();
});

test('reserved keywords win over child ids but not inside properties', async () => {
  const l = await Live.start({ tree: { id: 'r', type: 'root', properties: { properties: 1, meta: 2 } } });
  l.patch(2, 1, [
    { op: 'replace', path: '/properties/properties', value: 10 },
    { op: 'replace', path: '/properties/meta', value: 20 },
    { op: 'add', path: '/meta', value: { salience: 0.5 } },
    { op: 'add', path: '/content_ref', value: { type: 'text', uri: 'slop://content/x' } },
    { op: 'replace', path: '/affordances', value: [{ action: 'go' }] },
  ]);
  assert.equal(l.prop('/', 'properties'), 10);
  assert.equal(l.prop('/', 'meta'), 20);
  const n = l.c.node(l.sub, '/');
  assert.deepEqual(n.meta, { salience: 0.5 });
  assert.deepEqual(n.content_ref, { type: 'text', uri: 'slop://content/x' });
  assert.deepEqual(n.affordances, [{ action: 'go' }]);
  l.free();
});

test('a snapshot with a reserved id is refused and the subscription fails', async () => {
  const l = await Live.start({ tree: { id: 'r', type: 'root', children: [{ id: 'meta', type: 'x' }] } });
  const [e] = l.events('protocol_error');
  assert.ok(e);
  assert.match(e.message, /reserved keyword/);
  assert.equal(l.subStatus().state, 'failed');
  l.free();
});

test('the children keyword addresses the child list', async () => {
  const l = await Live.start();
  l.patch(2, 1, [{ op: 'replace', path: '/todos/children/t1/properties/done', value: true }]);
  assert.equal(l.prop('/todos/t1', 'done'), true);
  l.patch(3, 2, [{ op: 'replace', path: '/todos/children', value: [item('n')] }]);
  assert.deepEqual(l.kids('/todos'), ['n']);
  l.free();
});

test('removing a root-level child works', async () => {
  const l = await Live.start();
  l.patch(2, 1, [{ op: 'remove', path: '/todos' }]);
  assert.deepEqual(l.kids('/'), []);
  assert.equal(l.status().nodes, 1);
  l.free();
});

test('add on an existing id is refused (rolled back, resync); replace replaces', async () => {
  const l = await Live.start();
  l.patch(2, 1, [{ op: 'add', path: '/todos/t1', value: item('t1', { properties: { v: 2 } }) }]);
  assert.match(l.events('resync')[0]?.message ?? '', /node "t1" already exists/);
  assert.deepEqual(l.kids('/todos'), ['t1', 't2']);
  assert.equal(l.prop('/todos/t1', 'v'), undefined);
  l.free();
  const r = await Live.start();
  r.patch(2, 1, [{ op: 'replace', path: '/todos/t1', value: item('t1', { properties: { v: 2 } }) }]);
  assert.deepEqual(r.kids('/todos'), ['t1', 't2']);
  assert.equal(r.prop('/todos/t1', 'v'), 2);
  r.free();
});

test('patch paths are relative to the subscription root', async () => {
  const l = await Live.start({ path: '/todos', tree: { id: 'todos', type: 'collection', children: [item('t1')] } });
  l.patch(2, 1, [{ op: 'add', path: '/t1/properties/done', value: true }]);
  assert.equal(l.prop('/todos/t1', 'done'), true);
  assert.deepEqual(l.events('patch')[0].changed, ['/todos/t1']);
  l.free();
});

// ---- all-or-nothing, resync, seq and version ----------------------------

test('a failing op rolls back the whole patch and resyncs with a new wire id (caller id stable)', async () => {
  const l = await Live.start();
  const before = l.tree('/');
  l.clear();
  l.patch(2, 1, [
    { op: 'replace', path: '/todos/t1/properties/done', value: true },
    { op: 'remove', path: '/todos/t2' },
    { op: 'move', path: '/todos/t1', index: 0 },
    { op: 'add', path: '/todos/t9', value: item('t9'), index: 0 },
    { op: 'replace', path: '/todos/properties', value: {} },
    { op: 'replace', path: '/nope/x/properties/y', value: 1 },
  ]);
  assert.deepEqual(l.tree('/'), before);
  assert.equal(l.events('patch').length, 0);
  const [e] = l.events('resync');
  assert.ok(e);
  assert.equal(e.sub, l.sub);
  assert.equal(e.reason, 'patch_failed');
  assert.match(e.message, /op 5/);
  assert.match(e.message, /no node "nope"/);
  const [un] = l.sent('unsubscribe');
  const [sub] = l.sent('subscribe');
  assert.ok(un && sub);
  assert.equal(un.id, l.wire);
  assert.notEqual(sub.id, l.wire);
  assert.equal(sub.path, '/');
  // unsubscribe goes out before the new subscribe
  const frames = l.outs.filter((o) => o.kind === 'send').map((o) => JSON.parse(o.frame).type);
  assert.deepEqual(frames, ['unsubscribe', 'subscribe']);
  assert.equal(l.subStatus().state, 'resyncing');
  // the new snapshot on the new wire id rebases; the caller's id is unchanged
  l.rewire(0);
  l.clear();
  l.snapshot(3, { id: 'root', type: 'root' });
  const [snap] = l.events('snapshot');
  assert.equal(snap.sub, l.sub);
  assert.equal(snap.rebase, true);
  assert.equal(l.subStatus().state, 'live');
  assert.deepEqual(l.tree('/'), { id: 'root', type: 'root' });
  l.free();
});

test('patches to unknown paths fail for every op kind and leave the mirror untouched', async () => {
  const bad = [
    [{ op: 'remove', path: '/todos/missing' }],
    [{ op: 'replace', path: '/todos/missing', value: { id: 'missing', type: 'x' } }],
    [{ op: 'move', path: '/todos/missing', index: 0 }],
    [{ op: 'replace', path: '/todos/t1/properties/missing', value: 1 }],
    [{ op: 'remove', path: '/todos/t2/meta' }],
    [{ op: 'add', path: '/todos/t1/properties/title/deeper', value: 1 }],
    [{ op: 'copy', path: '/todos' }],
    [{ op: 'add', path: '/todos/x', value: { id: 'y', type: 'item' } }],
    [{ op: 'add', path: '/todos/x', value: { id: 'x' } }],
    [{ op: 'replace', path: '/todos/t1/properties/title' }],
    [{ op: 'replace', path: '/todos/t1/properties/a~2b', value: 1 }],
    [{ op: 'move', path: '/todos/t1' }],
    [42],
  ];
  for (const ops of bad) {
    const l = await Live.start();
    const before = l.tree('/');
    l.patch(2, 1, ops);
    assert.deepEqual(l.tree('/'), before, JSON.stringify(ops));
    assert.equal(l.events('resync').length, 1, `did not resync: ${JSON.stringify(ops)}`);
    l.free();
  }
});

test('a seq gap resyncs, late patches on the old id are ignored, the new snapshot rebases', async () => {
  const l = await Live.start();
  l.patch(2, 1, [{ op: 'replace', path: '/todos/t1/properties/done', value: true }]);
  l.clear();
  const oldWire = l.wire;
  l.patch(4, 3, [{ op: 'remove', path: '/todos/t2' }]); // seq 2 was lost
  const [e] = l.events('resync');
  assert.ok(e);
  assert.equal(e.reason, 'gap');
  assert.match(e.message, /expected seq 2, got 3/);
  assert.deepEqual(l.kids('/todos'), ['t1', 't2']);
  l.rewire(0);
  assert.notEqual(l.wire, oldWire);
  l.clear();
  l.feed({ type: 'patch', subscription: oldWire, version: 5, seq: 4, ops: [{ op: 'remove', path: '/todos' }] });
  assert.equal(l.outs.length, 0);
  assert.deepEqual(l.kids('/todos'), ['t1', 't2']);
  l.snapshot(6, { id: 'root', type: 'root', children: [{ id: 'todos', type: 'collection', children: [] }] });
  const [snap] = l.events('snapshot');
  assert.equal(snap.rebase, true);
  assert.equal(snap.sub, l.sub);
  assert.deepEqual(l.kids('/todos'), []);
  l.patch(7, 1, [{ op: 'add', path: '/todos/n', value: item('n') }]);
  assert.deepEqual(l.kids('/todos'), ['n']);
  l.free();
});

test('a patch older than its snapshot resyncs when it has a seq, and is reported without one', async () => {
  const l = await Live.start();
  l.snapshot(5, { id: 'root', type: 'root' }); // backpressure: a fresh snapshot on the same id
  l.clear();
  l.patch(4, 1, [{ op: 'add', path: '/x', value: item('x') }]);
  assert.equal(l.events('resync')[0]?.reason, 'version_regressed');
  assert.deepEqual(l.kids('/'), []);
  l.free();
  const o = await Live.start();
  o.feed({ type: 'snapshot', id: o.wire, version: 5, tree: { id: 'root', type: 'root' } });
  o.clear();
  o.patch(5, -1, [{ op: 'add', path: '/y', value: item('y') }]);
  assert.equal(o.events('protocol_error')[0]?.code, 'stale_patch');
  assert.deepEqual(o.kids('/'), []);
  assert.equal(o.status().stale_patches, 1);
  o.patch(6, -1, [{ op: 'add', path: '/z', value: item('z') }]);
  assert.deepEqual(o.kids('/'), ['z']);
  o.free();
});

test('a version going back on one connection is refused and keeps the state', async () => {
  const l = await Live.start();
  l.patch(5, 1, [{ op: 'replace', path: '/todos/t1/properties/done', value: true }]);
  l.clear();
  l.patch(3, 2, [{ op: 'remove', path: '/todos/t1' }]);
  assert.equal(l.events('protocol_error')[0]?.code, 'version_regressed');
  assert.deepEqual(l.kids('/todos'), ['t1', 't2']);
  l.rewire(0);
  l.clear();
  l.snapshot(2, { id: 'root', type: 'root' });
  assert.equal(l.events('protocol_error')[0]?.code, 'version_regressed');
  assert.deepEqual(l.kids('/todos'), ['t1', 't2']);
  assert.equal(l.prop('/todos/t1', 'done'), true);
  const st = l.subStatus();
  assert.equal(st.state, 'stale');
  assert.equal(st.reason.code, 'version_regressed');
  assert.equal(st.retry_at, 1000 + 5000);
  l.free();
});

test('a provider restarted with its counter at 1 re-bases the mirror on the new connection', async () => {
  const l = await Live.start();
  l.patch(20101, 1, [{ op: 'remove', path: '/todos/t2' }]);
  l.c.close(2000);
  l.c.reset(2000);
  l.clear();
  l.feed(HELLO_ALL);
  l.rewire(0);
  l.snapshot(1, TODOS);
  const [snap] = l.events('snapshot');
  assert.equal(snap.restarted, true);
  assert.equal(snap.previous_version, 20101);
  assert.equal(l.events('protocol_error').length, 0);
  assert.deepEqual(l.kids('/todos'), ['t1', 't2']);
  assert.equal(l.subStatus().state, 'live');
  assert.equal(l.subStatus().reason, null);
  l.patch(2, 1, [{ op: 'replace', path: '/todos/properties/count', value: 9 }]);
  assert.equal(l.prop('/todos', 'count'), 9);
  l.free();
});

test('providers without seq work and version gaps never resync', async () => {
  const l = await Live.start();
  l.clear();
  l.patch(4, -1, [{ op: 'replace', path: '/todos/t1/properties/done', value: true }]);
  l.patch(9, -1, [{ op: 'remove', path: '/todos/t2' }]);
  assert.equal(l.events('resync').length, 0);
  assert.equal(l.events('patch').length, 2);
  assert.equal(l.sent('subscribe').length, 0);
  assert.deepEqual(l.kids('/todos'), ['t1']);
  assert.equal(l.subStatus().version, 9);
  l.free();
});

test('a repeated seq is ignored with an error', async () => {
  const l = await Live.start();
  l.patch(2, 1, [{ op: 'replace', path: '/todos/properties/count', value: 5 }]);
  l.clear();
  l.patch(3, 1, [{ op: 'replace', path: '/todos/properties/count', value: 6 }]);
  const [e] = l.events('protocol_error');
  assert.equal(e?.code, 'seq_repeat');
  assert.equal(l.prop('/todos', 'count'), 5);
  l.free();
});

test('a resync that loads a snapshot is a success; resync() retries by hand', async () => {
  const l = await Live.start();
  for (let i = 0; i < 5; i++) {
    l.patch(10 + 2 * i, 1, [{ op: 'remove', path: '/ghost' }]);
    l.rewire(i + 1); // frame 0 is the first subscribe
    l.snapshot(11 + 2 * i, TODOS);
  }
  assert.equal(l.events('resync').length, 5);
  assert.equal(l.events('protocol_error').length, 0);
  assert.equal(l.subStatus().state, 'live');
  l.clear();
  l.c.resync(l.sub, 3000);
  l.drain();
  assert.equal(l.events('resync')[0]?.reason, 'manual');
  assert.equal(l.sent('unsubscribe').length, 1);
  assert.equal(l.subStatus().state, 'resyncing');
  assert.throws(() => l.c.resync('nope', 3000));
  l.free();
});

test('numbers reach JavaScript as the very doubles the provider sent', async () => {
  const texts = ['0.39999999999999997', '0.30000000000000004', '5e-324', '9007199254740993', '1e21', '-0', '1.7976931348623157e308', '123456789012345680000'];
  const tree = `{"id":"r","type":"root","properties":{${texts.map((t, i) => `"n${i}":${t}`).join(',')}}}`;
  const l = await Live.start({ tree: null });
  l.c.receive(`{"type":"snapshot","id":"${l.wire}","version":1,"seq":0,"tree":${tree}}`, 1000);
  l.drain();
  const props = l.c.node(l.sub, '/').properties;
  const sent = JSON.parse(tree).properties;
  texts.forEach((t, i) => assert.ok(Object.is(props[`n${i}`], sent[`n${i}`]), `${t} came out as ${props[`n${i}`]}`));
  assert.deepEqual(l.tree('/'), JSON.parse(tree));
  l.free();
});

test('the node view lists child ids in order for a wide collection (3000 children)', async () => {
  const children = Array.from({ length: 3000 }, (_, i) => item(`c${i}`));
  const l = await Live.start({ tree: { id: 'r', type: 'root', children } });
  l.patch(2, 1, [
    { op: 'move', path: '/c2999', index: 0 },
    { op: 'remove', path: '/c1500' },
    { op: 'add', path: '/new', value: item('new'), index: 2 },
  ]);
  const ids = l.kids('/');
  assert.equal(ids.length, 3000);
  assert.deepEqual(ids.slice(0, 3), ['c2999', 'c0', 'new']);
  assert.equal(ids[1501], 'c1499');
  assert.equal(ids[1502], 'c1501');
  l.free();
});
