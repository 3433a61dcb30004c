// Tests of the provider state engine (tests/fixtures/provider/state.mjs) without a transport.
//
// `applyOps` below is a deliberately small, test-only oracle used to prove that the
// fixture's patches transform its previous projection into its next one. It is not a
// consumer and must not be used as one: the product's patch applier lives in the C core.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  StateEngine, diffNodes, validateParams, normalizeTree, mulberry32, clone,
  escapePointerKey, unescapePointerKey, RESERVED_KEYWORDS, ALL_CAPABILITIES,
} from '../fixtures/provider/state.mjs';
import { createKanbanEngine, createTodoEngine, createMailEngine } from '../fixtures/demo-trees.mjs';

function applyOps(tree, ops) {
  for (const op of ops) {
    const segs = op.path.split('/').slice(1);
    let node = tree;
    let i = 0;
    while (i < segs.length - 1 && !RESERVED_KEYWORDS.includes(segs[i])) {
      node = node.children.find((c) => c.id === segs[i]);
      assert.ok(node, `oracle: no node for ${op.path}`);
      i++;
    }
    if (!RESERVED_KEYWORDS.includes(segs[i])) {
      const kids = (node.children ??= []);
      const at = kids.findIndex((c) => c.id === segs[i]);
      if (op.op === 'add') kids.splice(Math.min(op.index ?? kids.length, kids.length), 0, clone(op.value));
      else if (op.op === 'remove') kids.splice(at, 1);
      else if (op.op === 'replace') kids[at] = clone(op.value);
      else if (op.op === 'move') kids.splice(op.index, 0, kids.splice(at, 1)[0]);
      continue;
    }
    const field = segs[i];
    const keys = segs.slice(i + 1).map(unescapePointerKey);
    if (keys.length === 0) {
      if (op.op === 'remove') delete node[field];
      else node[field] = clone(op.value);
      continue;
    }
    let obj = (node[field] ??= {});
    for (const k of keys.slice(0, -1)) obj = obj[k];
    const last = keys.at(-1);
    if (op.op === 'remove') delete obj[last];
    else obj[last] = clone(op.value);
  }
  return tree;
}

function collect(engine) {
  const out = [];
  const session = engine.connect((m) => out.push(m));
  return { session, out, take: () => out.splice(0) };
}

test('escaping and params validation messages', () => {
  assert.equal(escapePointerKey('a/b~c'), 'a~1b~0c');
  assert.equal(unescapePointerKey('a~1b~0c'), 'a/b~c');
  assert.equal(unescapePointerKey(escapePointerKey('~1')), '~1');
  const schema = {
    type: 'object',
    properties: { tags: { type: 'array', items: { type: 'string' } }, n: { type: 'integer' }, nested: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
    required: ['n'],
  };
  assert.equal(validateParams(schema, { n: 1 }), null);
  assert.equal(validateParams(schema, {}), 'params.n is required');
  assert.equal(validateParams(schema, { n: 1.5 }), 'params.n must be an integer');
  assert.equal(validateParams(schema, { n: 1, tags: ['a', 2] }), 'params.tags[1] must be a string');
  assert.equal(validateParams(schema, { n: 1, nested: {} }), 'params.nested.ok is required');
  assert.equal(validateParams(schema, { n: 1, nested: { ok: 'yes' } }), 'params.nested.ok must be a boolean');
  assert.equal(validateParams({ enum: ['low', 'high'] }, 'mid'), 'params must be one of ["low","high"]');
  assert.equal(validateParams({ type: 'object' }, []), 'params must be an object');
  assert.equal(validateParams(undefined, 42), null);
});

test('diff shape: removes, then indexed adds, then moves; whole replaces of fields', () => {
  const a = { id: 'r', type: 'root', properties: { x: 1, gone: 2 }, meta: { salience: 0.5 },
    children: ['a', 'b', 'c', 'd'].map((id) => ({ id, type: 'item' })) };
  const b = { id: 'r', type: 'root', properties: { x: { deep: 1 }, 'a/b': 3 }, affordances: [{ action: 'go' }],
    children: ['d', 'e', 'b', 'a'].map((id) => ({ id, type: 'item' })) };
  const ops = diffNodes(a, b);
  assert.deepEqual(ops, [
    { op: 'remove', path: '/properties/gone' },
    { op: 'replace', path: '/properties/x', value: { deep: 1 } },
    { op: 'add', path: '/properties/a~1b', value: 3 },
    { op: 'add', path: '/affordances', value: [{ action: 'go' }] },
    { op: 'remove', path: '/meta' },
    { op: 'remove', path: '/c' },
    { op: 'add', path: '/e', value: { id: 'e', type: 'item' }, index: 1 },
    // [a,b,d] → add e at 1 → [a,e,b,d] → moves until the order is [d,e,b,a]
    { op: 'move', path: '/d', index: 0 },
    { op: 'move', path: '/e', index: 1 },
    { op: 'move', path: '/b', index: 2 },
  ]);
  assert.deepEqual(applyOps(clone(a), ops), b);
  assert.deepEqual(diffNodes(b, b), []);
});

test('projection: depth, filter, max_nodes, and the capability "if absent" rules', () => {
  const engine = createKanbanEngine();
  const d1 = engine.truth('/boards', 1);
  assert.ok(d1.children.every((board) => board.children === undefined && board.meta.total_children > 0));
  const blocked = engine.truth('/boards/launch', -1, { filter: { min_salience: 0.8 } });
  for (const col of blocked.children) for (const card of col.children) assert.equal(card.properties.blocked, true);
  const cols = engine.truth('/boards/launch', -1, { filter: { types: ['collection'] } });
  assert.ok(cols.children.every((c) => c.children.length === 0));
  const small = engine.truth('/', -1, { max_nodes: 10 });
  const count = (n) => 1 + (n.children ?? []).reduce((s, c) => s + count(c), 0);
  assert.ok(count(small) <= 10, `compacted to ${count(small)}`);
  assert.ok(JSON.stringify(small).includes('"summary"'));

  const bare = new StateEngine({ tree: createMailEngine().root, capabilities: ['state'] });
  const t = JSON.stringify(bare.truth('/', -1));
  for (const absent of ['"affordances"', '"salience"', '"urgency"', '"content_ref"', '"window"']) {
    assert.ok(!t.includes(absent), `${absent} must not appear without its capability`);
  }
  assert.equal(bare.truth('/inbox', 1).children.length, 300);
});

test('random mutations: every subscription\'s patches rebuild its projection exactly', async () => {
  for (const seed of [1, 2, 3, 4]) {
    const rng = mulberry32(seed);
    const engine = new StateEngine({ tree: { id: 'root', type: 'root', children: [
      { id: 'keep', type: 'group', properties: { label: 'kept' }, children: [] },
    ] } });
    for (let i = 0; i < 30; i++) engine.randomMutation(rng, { protect: ['/keep'] });
    const subs = [
      { id: 'all', path: '/', depth: -1 },
      { id: 'shallow', path: '/', depth: 2 },
      { id: 'keep', path: '/keep', depth: -1 },
      { id: 'items', path: '/', depth: -1, filter: { types: ['item', 'group', 'collection'] } },
      { id: 'salient', path: '/', depth: -1, filter: { min_salience: 0.5 } },
      { id: 'budget', path: '/', depth: -1, max_nodes: 12 },
    ];
    const { session, take } = collect(engine);
    const mirrors = {};
    const seqs = {};
    for (const s of subs) await session.receive({ type: 'subscribe', ...s });
    for (const m of take()) {
      assert.equal(m.type, 'snapshot');
      assert.equal(m.seq, 0);
      mirrors[m.id] = m.tree;
      seqs[m.id] = 0;
    }
    for (let step = 0; step < 250; step++) {
      const what = engine.randomMutation(rng, { protect: ['/keep'] });
      for (const m of take()) {
        if (m.type === 'snapshot') { // subscription root replaced: re-base
          mirrors[m.id] = m.tree;
          seqs[m.id] = 0;
          continue;
        }
        assert.equal(m.type, 'patch', JSON.stringify(m));
        assert.equal(m.seq, seqs[m.subscription] + 1);
        assert.equal(m.version, engine.version);
        seqs[m.subscription] = m.seq;
        applyOps(mirrors[m.subscription], m.ops);
      }
      for (const s of subs) {
        assert.deepEqual(normalizeTree(mirrors[s.id]), normalizeTree(engine.truth(s.path, s.depth, s)),
          `seed ${seed} step ${step} (${what}) subscription ${s.id}`);
      }
    }
  }
});

test('batchPatches: one batch per connection per flush', async () => {
  const engine = createTodoEngine({ batchPatches: true });
  const { session, take } = collect(engine);
  await session.receive({ type: 'subscribe', id: 'a', path: '/todos' });
  await session.receive({ type: 'subscribe', id: 'b', path: '/', depth: 1 });
  take();
  await session.receive({ type: 'invoke', id: 'i', path: '/todos', action: 'add', params: { title: 'x' } });
  const [batch, result] = take();
  assert.equal(batch.type, 'batch');
  assert.deepEqual(batch.messages.map((m) => [m.subscription, m.seq]), [['a', 1], ['b', 1]]);
  assert.equal(result.type, 'result');
});

test('a handler that throws after mutating: patches first, then an internal error', async () => {
  const engine = createTodoEngine({ handlers: { toggle(ctx) {
    ctx.node.properties.done = true;
    throw new Error('disk full');
  } } });
  const { session, take } = collect(engine);
  await session.receive({ type: 'subscribe', id: 's', path: '/' });
  take();
  await session.receive({ type: 'invoke', id: 'i', path: '/todos/t1', action: 'toggle' });
  const [patch, result] = take();
  assert.equal(patch.type, 'patch');
  assert.deepEqual(result.error, { code: 'internal', message: 'disk full' });
});

test('removed subscription root → error not_found for that subscription; invalid trees roll back', async () => {
  const engine = createTodoEngine();
  const { session, take } = collect(engine);
  await session.receive({ type: 'subscribe', id: 't1', path: '/todos/t1' });
  take();
  engine.mutate((root) => { root.children[0].children.shift(); });
  const [err] = take();
  assert.deepEqual(err, { type: 'error', id: 't1', error: { code: 'not_found', message: 'Subscribed path /todos/t1 no longer exists' } });
  const before = engine.version;
  assert.throws(() => engine.mutate((root) => { root.children.push({ id: 'meta', type: 'item' }); }), /invalid node id/);
  assert.throws(() => engine.mutate((root) => { root.children.push({ id: 'todos', type: 'item' }); }), /duplicate sibling id/);
  assert.equal(engine.version, before);
  assert.equal(engine.root.children.length, 1);
});

test('task cancel affordance and emitEvent', async () => {
  const engine = new StateEngine({ handlers: { work: (ctx) => ctx.startTask(async (task) => {
    for (let i = 1; i <= 100 && !task.cancelled; i++) {
      await task.sleep(2);
      task.progress(i / 100);
    }
  }) } });
  engine.mutate((root) => { root.affordances = [{ action: 'work', estimate: 'async' }]; });
  const { session, take } = collect(engine);
  await session.receive({ type: 'invoke', id: 'w', path: '/', action: 'work' });
  const [res] = take();
  assert.equal(res.status, 'accepted');
  await session.receive({ type: 'invoke', id: 'c', path: `/tasks/${res.data.taskId}`, action: 'cancel' });
  assert.equal(take().at(-1).status, 'ok');
  assert.equal(engine.get(`/tasks/${res.data.taskId}`).properties.status, 'cancelled');
  engine.emitEvent('user-navigation', { to: '/inbox' });
  assert.deepEqual(take(), [{ type: 'event', name: 'user-navigation', data: { to: '/inbox' } }]);
  engine.close();
});

test('hello lists the configured capabilities; connect re-sends hello', async () => {
  const engine = new StateEngine({ id: 'p', name: 'P', capabilities: ['state'] });
  const { session, take } = collect(engine);
  await session.receive({ type: 'connect' });
  assert.deepEqual(take(), [{ type: 'hello', provider: { id: 'p', name: 'P', slop_version: '0.1', capabilities: ['state'] } }]);
  assert.deepEqual(new StateEngine().hello().provider.capabilities, [...ALL_CAPABILITIES]);
});

test('live demo engines mutate on their timers until closed', async () => {
  const mail = createMailEngine({ live: true, intervalMs: 5, messages: 5 });
  const kanban = createKanbanEngine({ live: true, intervalMs: 5 });
  const v0 = [mail.version, kanban.version];
  await new Promise((r) => setTimeout(r, 60));
  assert.ok(mail.get('/inbox').children.length > 5);
  assert.ok(mail.version > v0[0] && kanban.version > v0[1]);
  mail.close();
  kanban.close();
  const v1 = [mail.version, kanban.version];
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual([mail.version, kanban.version], v1);
});
