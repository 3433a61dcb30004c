// The core's conformance report through js-glue: the bundled demo providers and the fixture
// provider, driven live (timers, invokes, async tasks, windowed queries, structural patches),
// produce no finding; a provider that breaks a rule is reported with the frame that showed it.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { loadSlopCoreNode } from '../../js-glue/node/load-core.js';
import { createMailEngine, createKanbanEngine, createTodoEngine } from '../fixtures/demo-trees.mjs';
import { StateEngine } from '../fixtures/provider/state.mjs';

const core = await loadSlopCoreNode();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A core consumer wired to an engine in this process, as the extension's connection would be. */
function wire(engine) {
  const consumer = new core.SlopConsumer({ transport: 'ws', seed: 7 });
  const events = [];
  let session;
  const pump = () => {
    for (const out of consumer.drain()) {
      if (out.kind === 'send') session.receive(out.frame);
      else events.push(out.event);
    }
  };
  session = engine.connect((m) => { consumer.receive(JSON.stringify(m), Date.now()); pump(); }, { label: 'test' });
  const sub = consumer.subscribe({ path: '/', depth: -1, max_nodes: 20000 }, Date.now());
  session.sendHello();
  pump();
  return {
    consumer, events, sub, pump,
    invoke(path, action, params) { consumer.invoke(path, action, params, Date.now()); pump(); },
    query(options) { consumer.query(options, Date.now()); pump(); },
    close() { session.close(); consumer.free(); },
  };
}

const findings = (w) => w.consumer.conformance().findings.map((f) => `${f.rule} ${f.path ?? ''}: ${f.detail}`);

describe('conformance of the bundled providers', () => {
  test('Acme Mail, live, with invokes, an async task and a windowed query: no finding', async () => {
    const engine = createMailEngine({ live: true, intervalMs: 15, messages: 120, taskStepMs: 20 });
    const w = wire(engine);
    try {
      w.invoke('/inbox/msg-120', 'mark_unread');
      w.invoke('/inbox/msg-119', 'move', { folder: 'archive' });
      w.invoke('/inbox/msg-118', 'delete');
      w.invoke('/compose', 'send', { to: 'ada@acme.example', subject: 'Hi' });
      w.invoke('/inbox', 'archive_all');
      w.query({ path: '/inbox', depth: 1, window: [50, 50] });
      for (let i = 0; i < 40; i++) { await sleep(15); w.consumer.tick(Date.now()); w.pump(); }
      const report = w.consumer.conformance();
      assert.deepEqual(findings(w), []);
      assert.ok(report.frames > 20, `frames judged: ${report.frames}`);
      assert.ok(w.events.some((e) => e.event === 'result' && e.status === 'accepted'), 'the async task ran');
      assert.ok(w.events.some((e) => e.event === 'task'), 'its task node appeared');
    } finally {
      w.close();
      engine.close();
    }
  });

  for (const [name, make, actions] of [
    ['Kanban', createKanbanEngine, [
      ['/boards/launch/todo/card-1', 'move', { to_column: 'doing' }],
      ['/boards/launch/doing', 'add_card', { title: 'New card' }],
      ['/boards/launch/done/card-11', 'delete'],
    ]],
    ['Todo SPA', createTodoEngine, [['/todos', 'add', { title: 'Write tests' }], ['/todos', 'clear_done']]],
  ]) {
    test(`${name}, live: no finding`, async () => {
      const engine = make({ live: true, intervalMs: 15 });
      const w = wire(engine);
      try {
        for (const [p, a, params] of actions) w.invoke(p, a, params);
        for (let i = 0; i < 20; i++) { await sleep(15); w.consumer.tick(Date.now()); w.pump(); }
        assert.deepEqual(findings(w), []);
        assert.ok(w.consumer.conformance().nodes > 2);
        assert.ok(w.events.filter((e) => e.event === 'result').every((e) => e.status === 'ok'), JSON.stringify(w.events.filter((e) => e.event === 'result')));
      } finally {
        w.close();
        engine.close();
      }
    });
  }

  test('a provider that breaks a rule: the finding names the rule, the path and the frame', () => {
    const engine = new StateEngine({
      tree: { id: 'root', type: 'root', children: [{ id: 'n', type: 'item', meta: { urgency: 'asap' } }] },
    });
    const w = wire(engine);
    try {
      const report = w.consumer.conformance();
      assert.deepEqual(report.findings.map((f) => [f.rule, f.severity, f.path, f.seen]), [['meta-urgency', 'SHOULD', '/n', 'mirror']]);
      const rule = report.rules.find((r) => r.id === 'meta-urgency');
      assert.equal(rule.spec, 'attention');
      assert.match(rule.text, /none, low, medium, high, critical/);
      assert.equal(report.must, 0);
      assert.equal(report.should, 1);
    } finally {
      w.close();
      engine.close();
    }
  });

  test('affordances and attention hints from a provider that does not declare them: one MUST finding each per subscription', () => {
    const consumer = new core.SlopConsumer({ transport: 'ws', seed: 7 });
    try {
      consumer.subscribe({ path: '/', depth: -1 }, 1000);
      consumer.receive(JSON.stringify({ type: 'hello', provider: { id: 'p', name: 'P', slop_version: '0.1', capabilities: ['state', 'patches'] } }), 1000);
      const sent = consumer.drain().filter((o) => o.kind === 'send').map((o) => JSON.parse(o.frame));
      const id = sent.find((m) => m.type === 'subscribe').id;
      const item = (n, meta) => ({ id: n, type: 'item', meta, affordances: [{ action: 'open' }] });
      const tree = { id: 'root', type: 'root', children: [item('a', { salience: 0.9 }), item('b', { urgency: 'high' }), item('c', { pinned: true })] };
      consumer.receive(JSON.stringify({ type: 'snapshot', id, version: 1, seq: 0, tree }), 1010);
      consumer.drain();
      const report = consumer.conformance();
      assert.deepEqual(report.findings.map((f) => [f.rule, f.severity, f.path, f.count]),
        [['capability-attention', 'MUST', '/a', 3], ['capability-affordances', 'MUST', '/a', 3]]);
      assert.match(report.findings[0].detail, /^meta\.salience without the "attention" capability/);
      assert.equal(report.must, 2);
    } finally {
      consumer.free();
    }
  });
});
