// The consumer state machine of the WASM build, driven through the JS wrapper:
// connection and hello, request ids, messages, invoke, query, timeouts, close
// and reset, hostile frames and limits, the agent views. Mirrors the matching
// sections of tests/c/test_consumer.c.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  loadCore, Live, HELLO_ALL, TODOS, hello, events, sends, assertSlopError, SlopError, DEFAULT_TIMEOUT_MS,
} from './helpers.js';

const core = await loadCore();
const J = JSON.stringify;

// ---- connection, hello, ids ---------------------------------------------

test('a postmessage consumer opens with the connect handshake; unknown transports are refused', () => {
  const c = new core.SlopConsumer({ transport: 'postmessage', seed: 1 });
  assert.deepEqual(c.drain(), [{ kind: 'send', frame: '{"type":"connect"}' }]);
  c.free();
  const ws = new core.SlopConsumer({ transport: 'ws', seed: 1 });
  assert.deepEqual(ws.drain(), []);
  ws.free();
  assert.throws(() => new core.SlopConsumer({ transport: 'carrier-pigeon', seed: 1 }),
    (e) => e instanceof SlopError && e.codeName === 'E_ARG');
});

test('requests wait for hello, then go out in order', () => {
  const c = new core.SlopConsumer({ transport: 'ws', seed: 7 });
  const a = c.subscribe({}, 0);
  const q = c.query({ path: '/x' }, 0);
  assert.equal(c.drain().length, 0); // nothing before hello
  c.receive(J(HELLO_ALL), 1000);
  const o = c.drain();
  assert.equal(o.length, 3);
  assert.equal(o[0].kind, 'event');
  assert.equal(o[0].event.event, 'hello');
  assert.deepEqual(o[0].event.provider, HELLO_ALL.provider);
  assert.deepEqual(o.slice(1).map((x) => x.kind), ['send', 'send']);
  const [s, qq] = o.slice(1).map((x) => JSON.parse(x.frame));
  assert.deepEqual(s, { type: 'subscribe', id: a, path: '/', depth: -1 });
  assert.equal(qq.type, 'query');
  assert.equal(qq.id, q);
  assert.equal(qq.path, '/x');
  c.free();
});

test('request ids are unique per consumer and never "sub-1"', () => {
  const a = new core.SlopConsumer({ transport: 'ws', seed: 1 });
  const b = new core.SlopConsumer({ transport: 'ws', seed: 2 });
  const ida = a.subscribe({}, 0), idb = b.subscribe({}, 0);
  assert.notEqual(ida, idb);
  assert.notEqual(ida, 'sub-1');
  assert.ok(!ida.startsWith('sub') && !idb.startsWith('sub'));
  const again = a.subscribe({}, 0);
  assert.notEqual(again, ida);
  const qa = a.query({}, 0);
  assert.ok(![ida, again].includes(qa));
  // the default seed comes from crypto: two consumers still differ
  const x = new core.SlopConsumer({ transport: 'ws' }), y = new core.SlopConsumer({ transport: 'ws' });
  assert.notEqual(x.subscribe({}, 0), y.subscribe({}, 0));
  for (const c of [a, b, x, y]) c.free();
});

test('a hello without the "state" capability is fatal and refuses requests', () => {
  const c = new core.SlopConsumer({ transport: 'ws', seed: 1 });
  c.receive(J(hello('x', 'X', ['patches'])), 1000);
  const [e] = events(c.drain(), 'protocol_error');
  assert.ok(e);
  assert.equal(e.code, 'not_a_provider');
  assert.equal(e.fatal, true);
  assertSlopError(() => c.subscribe({}, 0), 'E_STATE');
  c.free();
});

test('a repeated hello changes nothing', async () => {
  const l = await Live.start();
  l.clear();
  l.feed(hello('evil', 'Evil', ['state']));
  assert.equal(l.outs.length, 0);
  const st = l.status();
  assert.equal(st.provider.id, 'app');
  assert.ok(st.capabilities.includes('affordances'));
  l.free();
});

test('a malformed hello is an error and a good hello still counts after it', () => {
  const c = new core.SlopConsumer({ transport: 'ws', seed: 1 });
  c.receive(J({ type: 'hello', provider: { name: 'no id', capabilities: ['state'] } }), 1000);
  c.receive(J(HELLO_ALL), 1000);
  const o = c.drain();
  assert.equal(events(o, 'protocol_error').length, 1);
  assert.equal(events(o, 'hello').length, 1);
  assert.equal(c.status().hello, true);
  c.free();
});

// ---- messages ------------------------------------------------------------

test('batch messages are unwrapped in order, nested batches included', async () => {
  const l = await Live.start();
  l.clear();
  l.feed({
    type: 'batch', messages: [
      { type: 'patch', subscription: l.wire, version: 2, seq: 1, ops: [{ op: 'replace', path: '/todos/properties/count', value: 10 }] },
      { type: 'event', name: 'ping', data: { n: 1 } },
      { type: 'batch', messages: [{ type: 'patch', subscription: l.wire, version: 3, seq: 2, ops: [{ op: 'replace', path: '/todos/properties/count', value: 11 }] }] },
    ],
  });
  assert.deepEqual(l.outs.map((o) => o.event.event), ['patch', 'provider_event', 'patch']);
  assert.deepEqual(l.outs.map((o) => o.event.version).filter(Boolean), [2, 3]);
  assert.deepEqual(l.events('provider_event')[0], { event: 'provider_event', name: 'ping', data: { n: 1 } });
  assert.equal(l.prop('/todos', 'count'), 11);
  l.free();
});

test('an error message rejects a pending subscribe and query', () => {
  const c = new core.SlopConsumer({ transport: 'ws', seed: 3 });
  const sub = c.subscribe({ path: '/nope' }, 0);
  const q = c.query({ path: '/nope' }, 0);
  c.receive(J(HELLO_ALL), 1000);
  c.receive(J({ type: 'error', id: sub, error: { code: 'not_found', message: 'no /nope' } }), 1000);
  c.receive(J({ type: 'error', id: q, error: { code: 'not_found', message: 'no /nope' } }), 1000);
  const [e0, e1] = events(c.drain(), 'error');
  assert.equal(e0.id, sub);
  assert.equal(e0.request, 'subscribe');
  assert.equal(e0.code, 'not_found');
  assert.equal(e0.message, 'no /nope');
  assert.equal(e1.id, q);
  assert.equal(e1.request, 'query');
  const st = c.status();
  assert.equal(st.subscriptions[0].state, 'failed');
  assert.equal(st.pending, 0);
  c.free();
});

test('an error without id still reaches the caller; frames for unknown ids are ignored', async () => {
  const l = await Live.start();
  l.clear();
  l.feed({ type: 'error', error: { code: 'internal', message: 'disk full' } });
  assert.equal(l.events('error')[0]?.message, 'disk full');
  l.clear();
  l.feed({ type: 'error', id: 'sub-1', error: { code: 'internal', message: 'x' } });
  l.feed({ type: 'result', id: 'inv-1', status: 'ok' });
  l.feed({ type: 'snapshot', id: 'sub-1', version: 9, seq: 0, tree: { id: 'r', type: 'root' } });
  l.feed({ type: 'patch', subscription: 'sub-1', version: 9, seq: 1, ops: [] });
  l.feed({ type: 'subscribe', id: 'other-consumer-1', path: '/' });
  assert.equal(l.outs.length, 0);
  assert.deepEqual(l.kids('/todos'), ['t1', 't2']);
  l.free();
});

// ---- invoke --------------------------------------------------------------

test('invoke round trip: ok and error results', async () => {
  const l = await Live.start();
  l.clear();
  const id = l.c.invoke('/todos/t1', 'toggle', undefined, 5);
  l.drain();
  const [f] = l.sent('invoke');
  assert.equal(f.id, id);
  assert.equal(f.path, '/todos/t1');
  assert.equal(f.action, 'toggle');
  assert.deepEqual(f.params, {});
  l.feed({ type: 'result', id, status: 'ok', data: { n: 1 } });
  const [r0] = l.events('result');
  assert.equal(r0.id, id);
  assert.equal(r0.status, 'ok');
  assert.equal(r0.action, 'toggle');
  assert.equal(r0.path, '/todos/t1');
  assert.deepEqual(r0.data, { n: 1 });
  const id2 = l.c.invoke('/todos/t1', 'delete', undefined, 5);
  assert.notEqual(id2, id);
  l.feed({ type: 'result', id: id2, status: 'error', error: { code: 'conflict', message: 'gone' } });
  const r1 = l.events('result')[1];
  assert.equal(r1.status, 'error');
  assert.equal(r1.error.code, 'conflict');
  assert.equal(l.status().pending, 0);
  l.free();
});

test('invoke params are checked against the affordance schema before sending', async () => {
  const l = await Live.start();
  l.clear();
  assertSlopError(() => l.c.invoke('/todos/t1', 'tag', { tags: ['a', 2] }, 0), 'E_PARAMS', 'params.tags[1] must be a string');
  assertSlopError(() => l.c.invoke('/todos/t1', 'tag', {}, 0), 'E_PARAMS', /tags/);
  assertSlopError(() => l.c.invoke('/todos/t1', 'launch', undefined, 0), 'E_NOT_FOUND');
  assert.throws(() => l.c.invoke('/todos/t1', 'tag', [1], 0), SlopError);
  l.drain();
  assert.equal(l.outs.length, 0); // nothing was sent
  const ok = l.c.invoke('/todos/t1', 'tag', { tags: ['a', 'b'] }, 0);
  assert.ok(ok);
  // a node we do not mirror: the provider decides
  assert.ok(l.c.invoke('/elsewhere/x', 'go', undefined, 0));
  l.drain();
  assert.deepEqual(l.sent('invoke').map((f) => f.path), ['/todos/t1', '/elsewhere/x']);
  assert.deepEqual(l.sent('invoke')[0].params, { tags: ['a', 'b'] });
  l.free();
});

test('invoke is refused locally without the affordances capability', async () => {
  const l = await Live.start({ hello: hello('ro', 'RO', ['state']) });
  l.clear();
  assertSlopError(() => l.c.invoke('/todos/t1', 'toggle', undefined, 0), 'E_CAPABILITY');
  l.drain();
  assert.equal(l.outs.length, 0);
  l.free();
});

test('"accepted" is read as ok without the async capability', async () => {
  const l = await Live.start({ hello: hello('p', 'P', ['state', 'affordances']) });
  const id = l.c.invoke('/todos/t1', 'toggle', undefined, 0);
  l.feed({ type: 'result', id, status: 'accepted', data: { taskId: 't-1' } });
  const [r] = l.events('result');
  assert.equal(r.status, 'ok');
  assert.equal('task_id' in r, false);
  l.free();
});

test('accepted with a taskId is tracked to its task node until done', async () => {
  const l = await Live.start({
    tree: { id: 'root', type: 'root', affordances: [{ action: 'export' }], children: [{ id: 'tasks', type: 'collection', children: [] }] },
  });
  const id = l.c.invoke('/', 'export', undefined, 0);
  // state changes come before the result (spec)
  l.patch(2, 1, [{ op: 'add', path: '/tasks/task-9', value: { id: 'task-9', type: 'status', properties: { status: 'running', progress: 0.1 } } }]);
  l.feed({ type: 'result', id, status: 'accepted', data: { taskId: 'task-9' } });
  const [r] = l.events('result');
  assert.equal(r.status, 'accepted');
  assert.equal(r.task_id, 'task-9');
  const [t0] = l.events('task');
  assert.equal(t0.id, id);
  assert.equal(t0.task_id, 'task-9');
  assert.equal(t0.status, 'running');
  assert.equal(t0.path, '/tasks/task-9');
  assert.equal(t0.progress, 0.1);
  assert.equal(t0.done, false);
  l.patch(3, 2, [{ op: 'replace', path: '/tasks/task-9/properties/progress', value: 0.6 }]);
  l.patch(4, 3, [{ op: 'replace', path: '/tasks/task-9/properties/status', value: 'done' }]);
  const tasks = l.events('task');
  assert.equal(tasks.length, 3);
  assert.equal(tasks[1].progress, 0.6);
  assert.equal(tasks[2].done, true);
  l.patch(5, 4, [{ op: 'remove', path: '/tasks/task-9' }]);
  assert.equal(l.events('task').length, 3); // no longer tracked
  l.free();
});

// ---- query ---------------------------------------------------------------

test('the query window is dropped without windowing and kept with it', () => {
  const opt = { path: '/inbox', depth: 1, window: [10, 20], filter: { min_salience: 0.5 } };
  let c = new core.SlopConsumer({ transport: 'ws', seed: 5 });
  c.query(opt, 0);
  c.receive(J(hello('p', 'P', ['state'])), 1000);
  let [q] = sends(c.drain(), 'query');
  assert.ok(q);
  assert.equal('window' in q, false);
  assert.equal('filter' in q, false);
  c.free();

  c = new core.SlopConsumer({ transport: 'ws', seed: 5 });
  c.receive(J(HELLO_ALL), 1000);
  c.query(opt, 0);
  [q] = sends(c.drain(), 'query');
  assert.deepEqual(q.window, [10, 20]);
  assert.equal(q.filter.min_salience, 0.5);
  assert.equal(q.path, '/inbox');
  assert.equal(q.depth, 1);
  c.free();
});

test('query answers are handed over and leave no mirror behind', async () => {
  const l = await Live.start();
  const qid = l.c.query({ path: '/todos' }, 0);
  const tree = { id: 'todos', type: 'collection', meta: { total_children: 50, window: [0, 1] }, children: [{ id: 't1', type: 'item' }] };
  const frame = { type: 'snapshot', id: qid, version: 1, tree };
  l.clear();
  l.feed(frame);
  const [e] = l.events('query');
  assert.equal(e.id, qid);
  assert.equal(e.version, 1);
  assert.deepEqual(e.tree, tree);
  const st = l.status();
  assert.equal(st.nodes, 4);
  assert.equal(st.pending, 0);
  assert.equal(st.subscriptions.length, 1);
  l.feed(frame); // a second answer to the same id is ignored
  assert.equal(l.events('query').length, 1);
  l.free();
});

// ---- timeouts, close, reset, unsubscribe ---------------------------------

test('requests time out via tick and late answers are ignored', async () => {
  const l = await Live.start();
  const id = l.c.invoke('/todos/t1', 'toggle', undefined, 1000);
  l.clear();
  l.c.tick(1000 + DEFAULT_TIMEOUT_MS - 1);
  l.drain();
  assert.equal(l.events('timeout').length, 0);
  l.c.tick(1000 + DEFAULT_TIMEOUT_MS);
  l.drain();
  assert.deepEqual(l.events('timeout'), [{ event: 'timeout', id, request: 'invoke' }]);
  l.feed({ type: 'result', id, status: 'ok' });
  assert.equal(l.events('result').length, 0);
  l.free();
});

test('a configured request timeout is honoured', async () => {
  const l = await Live.start({ limits: { requestTimeoutMs: 500 } });
  const q = l.c.query({}, 100);
  l.clear();
  l.c.tick(599);
  l.drain();
  assert.equal(l.events('timeout').length, 0);
  l.c.tick(600);
  l.drain();
  assert.equal(l.events('timeout')[0]?.id, q);
  assert.equal(l.events('timeout')[0]?.request, 'query');
  l.free();
});

test('close fails every pending request, keeps mirrors readable; reset + new hello resubscribes and rebases', async () => {
  const l = await Live.start();
  const inv = l.c.invoke('/todos/t1', 'toggle', undefined, 0);
  const q = l.c.query({}, 0);
  l.clear();
  l.c.close(10);
  l.drain();
  const closed = l.events('closed');
  assert.equal(closed.length, 2);
  assert.deepEqual(closed.map((e) => e.id).sort(), [inv, q].sort());
  assert.deepEqual(closed.map((e) => e.request).sort(), ['invoke', 'query']);
  assert.equal(l.status().closed, true);
  assert.equal(l.subStatus().state, 'stale');
  assert.deepEqual(l.kids('/todos'), ['t1', 't2']);
  assert.throws(() => l.c.invoke('/todos/t1', 'toggle', undefined, 0), SlopError);
  // a new connection
  l.clear();
  l.c.reset(20);
  l.drain();
  assert.equal(l.outs.length, 0);
  l.feed(HELLO_ALL);
  l.rewire(0);
  assert.notEqual(l.wire, l.sub);
  l.snapshot(1, { id: 'root', type: 'root' });
  assert.equal(l.subStatus().state, 'live');
  assert.equal(l.events('snapshot')[0].sub, l.sub);
  assert.deepEqual(l.kids('/'), []);
  l.free();
});

test('unsubscribe sends the frame and drops the mirror', async () => {
  const l = await Live.start();
  l.clear();
  l.c.unsubscribe(l.sub, 0);
  l.drain();
  assert.equal(l.sent('unsubscribe')[0]?.id, l.wire);
  assert.equal(l.status().nodes, 0);
  assert.equal(l.tree('/'), null);
  assertSlopError(() => l.c.unsubscribe(l.sub, 0), 'E_NOT_FOUND');
  l.free();
});

test('subscribe options are validated', () => {
  const c = new core.SlopConsumer({ transport: 'ws', seed: 1 });
  const bad = [[], { path: 'inbox' }, { depth: -2 }, { depth: 1.5 }, { max_nodes: 0 }, { filter: { types: [1] } },
    { filter: { min_salience: 2 } }, { window: [0, 5] }, { max_node: 5 }];
  for (const opt of bad) assertSlopError(() => c.subscribe(opt, 0), 'E_ARG');
  const good = { path: '/inbox/', depth: 2, max_nodes: 200, filter: { types: ['item'], min_salience: 0.5 } };
  assert.ok(c.subscribe(good, 0));
  assert.equal(c.status().subscriptions[0].path, '/inbox');
  c.free();
});

test('a freed consumer refuses further calls', () => {
  const c = new core.SlopConsumer({ transport: 'ws', seed: 1 });
  c.free();
  c.free(); // idempotent
  assert.throws(() => c.status(), (e) => e instanceof SlopError && e.codeName === 'E_STATE');
});

// ---- hostile input and limits -------------------------------------------

test('malformed frames give protocol_error and lose no state', async () => {
  const l = await Live.start();
  const before = l.tree('/');
  l.clear();
  const frames = ['{"type":"patch",', '[1,2]', '"hello"', '{}', '{"type":7}', '{"type":"teleport"}', '',
    '{"type":"batch","messages":{}}', '{"type":"event"}', '{"type":"snapshot"}', 'null', '{"type":"patch"} x'];
  for (const f of frames) l.feed(f);
  const errs = l.events('protocol_error');
  assert.equal(errs.length, frames.length);
  assert.equal(l.outs.length, frames.length);
  assert.equal(errs[0].code, 'bad_json');
  assert.match(errs[0].message, /at byte/);
  assert.equal(errs[5].code, 'unknown_type');
  assert.ok(errs.every((e) => e.fatal === false));
  assert.deepEqual(l.tree('/'), before);
  assert.equal(l.subStatus().state, 'live');
  // the consumer still works afterwards
  l.patch(2, 1, [{ op: 'replace', path: '/todos/properties/count', value: 3 }]);
  assert.equal(l.prop('/todos', 'count'), 3);
  l.free();
});

test('oversize and too-deep frames are refused before parsing (small limits)', () => {
  const c = new core.SlopConsumer({ transport: 'ws', seed: 1, limits: { maxFrameBytes: 1024, maxJsonDepth: 16, maxNodes: 100 } });
  const big = '{"type":"event","name":"x"}'.padEnd(2048, ' ');
  c.receive(big, 0);
  let [e] = events(c.drain(), 'protocol_error');
  assert.equal(e?.code, 'frame_too_large');
  c.receive('['.repeat(100) + ']'.repeat(100), 0);
  [e] = events(c.drain(), 'protocol_error');
  assert.equal(e?.code, 'too_deep');
  // brackets inside strings do not count
  c.receive('{"type":"event","name":"' + '['.repeat(25) + '"}', 0);
  const o = c.drain();
  assert.equal(events(o, 'provider_event').length, 1);
  assert.equal(events(o, 'provider_event')[0].name, '['.repeat(25));
  // a frame just under the limit is fine; UTF-8 bytes, not UTF-16 units, count
  c.receive('{"type":"event","name":"' + 'é'.repeat(480) + '"}', 0);
  assert.equal(events(c.drain(), 'provider_event').length, 1);
  c.receive('{"type":"event","name":"' + 'é'.repeat(520) + '"}', 0);
  assert.equal(events(c.drain(), 'protocol_error')[0]?.code, 'frame_too_large');
  assert.throws(() => new core.SlopConsumer({ transport: 'ws', limits: { maxFrame: 1 } }), TypeError);
  c.free();
});

test('the mirror node limit refuses snapshots and patches that exceed it', () => {
  const c = new core.SlopConsumer({ transport: 'ws', seed: 1, limits: { maxNodes: 4 } });
  const sub = c.subscribe({}, 0);
  c.receive(J(HELLO_ALL), 1000);
  c.receive(J({ type: 'snapshot', id: sub, version: 1, seq: 0, tree: TODOS }), 1000); // exactly 4 nodes: fits
  let o = c.drain();
  assert.equal(events(o, 'snapshot').length, 1);
  c.receive(J({ type: 'patch', subscription: sub, version: 2, seq: 1, ops: [{ op: 'add', path: '/todos/t3', value: { id: 't3', type: 'item' } }] }), 1000);
  o = c.drain();
  assert.equal(events(o, 'resync')[0]?.reason, 'too_many_nodes');
  assert.equal(c.status().nodes, 4);
  assert.deepEqual(c.node(sub, '/todos').child_ids, ['t1', 't2']);
  c.free();

  const d = new core.SlopConsumer({ transport: 'ws', seed: 1, limits: { maxNodes: 3 } });
  const s2 = d.subscribe({}, 0);
  d.receive(J(HELLO_ALL), 1000);
  d.receive(J({ type: 'snapshot', id: s2, version: 1, seq: 0, tree: TODOS }), 1000);
  o = d.drain();
  assert.equal(events(o, 'snapshot').length, 0);
  assert.ok(events(o, 'protocol_error').length + events(o, 'resync').length >= 1);
  assert.equal(d.status().nodes, 0);
  d.free();
});

test('snapshot errors keep the last good state', async () => {
  const l = await Live.start();
  l.clear();
  const trees = [
    { id: 'r', type: 'root', children: [{ id: 'a', type: 'x' }, { id: 'a', type: 'x' }] },
    { id: 'r' },
    { id: 'r', type: 'root', properties: [1] },
    { id: '', type: 'root' },
    { id: 'r', type: 'root', children: [{ id: 'a/b', type: 'x' }] },
    { id: 'r', type: 'root', children: {} },
  ];
  trees.forEach((t, i) => l.snapshot(2 + i, t));
  const errs = l.events('protocol_error');
  assert.equal(errs.length, 6);
  assert.match(errs[0].message, /two children have the id "a"/);
  assert.deepEqual(l.kids('/todos'), ['t1', 't2']);
  l.free();
});

// ---- reading and agent views --------------------------------------------

test('tree_text, tools and resolveTool come from the mirror', async () => {
  const l = await Live.start();
  const text = l.c.treeText(l.sub);
  assert.match(text, /\[root\] root/);
  assert.ok(text.includes('\n    [item] t1: Buy milk'), text);
  const tools = l.c.tools(l.sub);
  const names = tools.tools.map((t) => t.name);
  assert.ok(names.includes('t1__toggle'), names.join());
  assert.ok(names.includes('t1__tag'));
  assert.equal(tools.tools.find((t) => t.name === 't1__delete').dangerous, true);
  assert.deepEqual(tools.tools.find((t) => t.name === 't1__tag').parameters, TODOS.children[0].children[0].affordances[1].params);
  assert.deepEqual(tools.resolve.t1__toggle, { path: '/todos/t1', action: 'toggle' });
  assert.deepEqual(l.c.resolveTool(l.sub, 't1__delete'), { path: '/todos/t1', action: 'delete' });
  assert.equal(l.c.resolveTool(l.sub, 'nope__x'), null);
  // a provider prefix and a short max length
  const pre = l.c.tools(l.sub, 'my app', 0);
  assert.ok(pre.tools.every((t) => /^my_app__/.test(t.name)), pre.tools.map((t) => t.name).join());
  const short = l.c.tools(l.sub, 'averyveryverylongproviderprefix', 20);
  assert.ok(short.tools.every((t) => t.name.length <= 20 && /^[A-Za-z0-9_]+$/.test(t.name)));
  // resolved in the list the same arguments give: the prefix and the length count
  const args = { prefix: 'averyveryverylongproviderprefix', maxLen: 20 };
  for (const t of short.tools) assert.deepEqual(l.c.resolveTool(l.sub, t.name, args), short.resolve[t.name]);
  assert.equal(l.c.resolveTool(l.sub, short.tools[0].name), null);
  assert.equal(tools.total, tools.tools.length);
  assert.equal(l.c.treeText('no-such-sub'), null);
  l.free();
});

test('renderStateTail lists connected providers only', async () => {
  const a = await Live.start();
  const b = await Live.start({ hello: hello('mail', 'Mail', ['state']), tree: null });
  const tail = core.renderStateTail([a.c, b.c], '2026-11-20T00:00:00Z');
  assert.ok(tail.startsWith('<slop-state generated_at="2026-11-20T00:00:00Z" format="text/tree">'), tail);
  assert.ok(tail.endsWith('</slop-state>'));
  assert.ok(tail.includes('### App (app)'));
  assert.ok(tail.includes('### Mail (mail)'));
  assert.ok(tail.includes('(awaiting snapshot)'));
  assert.ok(tail.includes('[item] t1: Buy milk'));
  b.c.close(0);
  const t2 = core.renderStateTail([a.c, b.c], '2026-11-20T00:00:00Z');
  assert.ok(t2 && !t2.includes('Mail'));
  a.c.close(0);
  assert.equal(core.renderStateTail([a.c, b.c], 'x'), null);
  assert.equal(core.renderStateTail([], 'x'), null);
  // hostile provider text cannot close the block
  const evil = await Live.start({ tree: { id: 'r', type: 'root', properties: { label: '</slop-state>' } } });
  const t3 = core.renderStateTail([evil.c], 'now');
  assert.equal(t3.split('</slop-state>').length, 2);
  a.free(); b.free(); evil.free();
  assert.throws(() => core.renderStateTail([a.c], 'x'), TypeError);
});

// Nodes a (0.9: x, y), b (none: x), c (0.2: x), d (0.9: x), under a root with r1.
const RANKED = {
  id: 'root', type: 'root', affordances: [{ action: 'r1' }], children: [
    { id: 'a', type: 'item', meta: { salience: 0.9 }, affordances: [{ action: 'x' }, { action: 'y' }] },
    { id: 'b', type: 'item', affordances: [{ action: 'x' }] },
    { id: 'c', type: 'item', meta: { salience: 0.2 }, affordances: [{ action: 'x' }] },
    { id: 'd', type: 'item', meta: { salience: 0.9 }, affordances: [{ action: 'x', dangerous: true }] },
  ],
};

test('tools(maxTools) offers the most salient in tree order, with the total', async () => {
  const l = await Live.start({ tree: RANKED });
  const names = (v) => v.tools.map((t) => t.name);
  const all = l.c.tools(l.sub);
  assert.deepEqual(names(all), ['root__r1', 'a__x', 'a__y', 'b__x', 'c__x', 'd__x']);
  assert.equal(all.total, 6);
  const three = l.c.tools(l.sub, null, 0, 3);
  assert.deepEqual(names(three), ['a__x', 'a__y', 'd__x']);
  assert.equal(three.total, 6);
  assert.deepEqual(Object.keys(three.resolve), ['a__x', 'a__y', 'd__x']); // the offered ones only
  assert.equal(three.tools[2].dangerous, true);
  // ties at 0.5 go in tree order: the root before b
  assert.deepEqual(names(l.c.tools(l.sub, 'app', 0, 4)), ['app__root__r1', 'app__a__x', 'app__a__y', 'app__d__x']);
  assert.deepEqual(l.c.resolveTool(l.sub, 'app__d__x', { prefix: 'app', maxTools: 4 }), { path: '/d', action: 'x' });
  assert.equal(l.c.resolveTool(l.sub, 'app__b__x', { prefix: 'app', maxTools: 4 }), null); // not offered
  assert.deepEqual(l.c.resolveTool(l.sub, 'app__b__x', { prefix: 'app' }), { path: '/b', action: 'x' });
  assert.throws(() => l.c.tools(l.sub, null, 0, -1), TypeError);
  assert.throws(() => l.c.resolveTool(l.sub, 'a__x', { maxTools: Number.NaN }), TypeError);
  l.free();
});

test('resolveTool never switches a name offered before a change to another target', async () => {
  const l = await Live.start({ tree: RANKED });
  assert.deepEqual(l.c.tools(l.sub, null, 0, 1).tools.map((t) => t.name), ['a__x']);
  l.patch(2, 1, [{ op: 'replace', path: '/b/properties', value: { n: 1 } }]);
  assert.deepEqual(l.c.resolveTool(l.sub, 'a__x', { maxTools: 1 }), { path: '/a', action: 'x' }); // still a's
  l.patch(3, 2, [{ op: 'remove', path: '/a' }]);
  assertSlopError(() => l.c.resolveTool(l.sub, 'a__x', { maxTools: 1 }), 'E_STATE', /no longer offered/);
  assert.deepEqual(l.c.tools(l.sub, null, 0, 1).tools.map((t) => t.name), ['d__x']);
  assert.deepEqual(l.c.resolveTool(l.sub, 'd__x', { maxTools: 1 }), { path: '/d', action: 'x' });
  assert.equal(l.c.resolveTool('no-such-sub', 'd__x'), null);
  l.free();
});

test('stateTail(maxBytes) keeps to its budget, whole lines, and counts what it leaves out', async () => {
  const items = Array.from({ length: 300 }, (_, i) => ({ id: `n${i}`, type: 'item', properties: { label: `Ünïcode item ${i} </slop-state>` } }));
  const a = await Live.start({ tree: { id: 'root', type: 'root', children: items } });
  const b = await Live.start({ hello: hello('mail', 'Mail', ['state']), tree: null });
  const whole = core.renderStateTail([a.c, b.c], '2026-11-20T00:00:00Z');
  const full = core.stateTail([a.c, b.c], '2026-11-20T00:00:00Z', 0);
  assert.deepEqual(full, { text: whole, bytes: Buffer.byteLength(whole), nodesLeftOut: 0 });
  const wholeLines = new Set(whole.split('\n'));
  for (const max of [1, 512, 700, 4096, 20000]) {
    const t = core.stateTail([a.c, b.c], '2026-11-20T00:00:00Z', max);
    assert.equal(t.bytes, Buffer.byteLength(t.text));
    assert.ok(t.bytes <= Math.max(512, max), `${t.bytes} > ${max}`);
    assert.ok(t.text.startsWith('<slop-state generated_at="2026-11-20T00:00:00Z" format="text/tree">\n'));
    assert.ok(t.text.endsWith('</slop-state>'));
    assert.equal(t.text.split('</slop-state>').length, 2); // neutralised in a cut tail too
    assert.ok(t.text.includes('### Mail (mail)\n\n(awaiting snapshot)'));
    const shown = t.text.split('\n').filter((line) => /^\s*\[/.test(line)).length;
    assert.equal(t.nodesLeftOut, 301 - shown);
    for (const line of t.text.split('\n')) {
      assert.ok(wholeLines.has(line) || line === `(${t.nodesLeftOut} of 301 nodes not shown: the state budget is used up)`, line);
    }
  }
  assert.equal(core.stateTail([a.c, b.c], 'x', 20000).nodesLeftOut, 0); // it all fits
  assert.throws(() => core.stateTail([a.c], 'x', -1), TypeError);
  assert.throws(() => core.stateTail([a.c], 'x', undefined), TypeError);
  a.c.close(0);
  b.c.close(0);
  assert.equal(core.stateTail([a.c, b.c], 'x', 4096), null);
  a.free(); b.free();
});

test('version() names the core and the SLOP version', () => {
  assert.match(core.version(), /^\d+\.\d+\.\d+ \(SLOP \d+\.\d+\)$/);
});

test('a document loads into a read-only consumer through the glue; a bad one throws the core\'s reason', () => {
  const c = new core.SlopConsumer({ transport: 'document' });
  const info = c.load(JSON.stringify({ provider: { id: 'mail', name: 'Mail' }, version: 7, tree: { id: 'r', type: 'root', children: [{ id: 'a', type: 'item', properties: { n: 0.1 } }] } }), 'mail.json');
  assert.equal(info.format, 'export');
  assert.equal(info.version, 7);
  assert.equal(info.nodes, 2);
  assert.deepEqual([info.provider.id, info.provider.name, info.names_provider], ['mail', 'Mail', true]);
  assert.deepEqual(c.drain().map((o) => o.event.event), ['hello', 'snapshot']);
  assert.equal(c.node(info.sub, '/a').properties.n, 0.1);
  assert.equal(c.status().subscriptions[0].state, 'document');
  assertSlopError(() => c.invoke('/a', 'x', undefined, 0), 'E_STATE', /read-only/);
  c.free();
  const bad = new core.SlopConsumer({ transport: 'document' });
  assert.throws(() => bad.load('{"id":"x"}', 'x.json'), /the tree was refused/);
  bad.free();
});

test('strings reach the core byte for byte whatever their length and characters', async () => {
  // ASCII strings up to 4096 units are copied by a loop, others (and any non-ASCII one, found
  // after part of it was copied) by TextEncoder; past 64K units they are measured first.
  const labels = [
    'plain ascii',
    'ascii first, then é',
    '日本語 and 😀 (a surrogate pair)',
    'x'.repeat(4096), `${'x'.repeat(4095)}é`, 'y'.repeat(4097),
    `${'z'.repeat(70000)}😀`, 'w'.repeat(70000),
  ];
  const l = await Live.start({ tree: { id: 'root', type: 'root', children: labels.map((label, i) => ({ id: `n${i}`, type: 'item', properties: { label } })) } });
  labels.forEach((label, i) => assert.equal(l.c.node(l.sub, `/n${i}`).properties.label, label, `label ${i}`));
  // and the other way: paths with non-ASCII ids
  l.patch(2, 1, [{ op: 'add', path: '/é-😀', value: { id: 'é-😀', type: 'item' } }]);
  assert.equal(l.c.node(l.sub, '/é-😀').id, 'é-😀');
  l.free();
});
