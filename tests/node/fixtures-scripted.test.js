// Tests of the scripted provider's mechanics (tests/fixtures/provider/scripted.mjs): replay,
// waiting for a consumer frame and replying with its id, raw frames, the recorder, hand-over
// to a state engine after the script, and the shared upgrade gate.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startScriptedProvider, scenarios, frames, reply, deepNestingFrame, oversizeFrame } from '../fixtures/provider/scripted.mjs';
import { createTodoEngine } from '../fixtures/demo-trees.mjs';

const ORIGIN = 'chrome-extension://abcdefghijklmnop';

function client(srv) {
  const ws = new WebSocket(srv.wsUrl, ['slop.bearer', srv.token], { origin: ORIGIN });
  const got = [];
  let notify = null;
  ws.on('message', (d) => {
    got.push(d.toString());
    notify?.();
  });
  const nth = async (n, timeoutMs = 2000) => {
    const end = Date.now() + timeoutMs;
    while (got.length < n) {
      if (Date.now() > end) throw new Error(`only ${got.length} frames`);
      await new Promise((r) => { notify = r; setTimeout(r, 20); });
    }
    return got.slice(0, n);
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, got, nth, send: (m) => ws.send(JSON.stringify(m)) }));
    ws.once('error', reject);
  });
}

test('scripted: waits for subscribe, replies with its id, replays the gap scenario', async () => {
  const srv = await startScriptedProvider({ scenario: scenarios.gap() });
  try {
    const c = await client(srv);
    assert.equal(c.ws.protocol, 'slop.bearer');
    c.send({ type: 'subscribe', id: 'ext-1', path: '/' });
    const [hello, snap, p1, p3] = (await c.nth(4)).map((f) => JSON.parse(f));
    assert.equal(hello.type, 'hello');
    assert.deepEqual([snap.id, snap.seq, p1.seq, p3.seq], ['ext-1', 0, 1, 3]);
    c.send({ type: 'unsubscribe', id: 'ext-1' });
    c.send({ type: 'subscribe', id: 'ext-2', path: '/' });
    const [, , , , resnap, next] = (await c.nth(6)).map((f) => JSON.parse(f));
    assert.deepEqual([resnap.id, resnap.seq, resnap.version], ['ext-2', 0, 4]);
    assert.deepEqual([next.subscription, next.seq, next.version], ['ext-2', 1, 5]);
    await srv.connections[0].done;
    // After the script, afterScript answers further subscribes with the final tree.
    c.send({ type: 'subscribe', id: 'ext-3', path: '/' });
    const last = JSON.parse((await c.nth(7))[6]);
    assert.deepEqual(last.tree, scenarios.gap().expectTree);
    assert.deepEqual(srv.recorder.messages('subscribe').map((m) => m.id), ['ext-1', 'ext-2', 'ext-3']);
    assert.equal(srv.recorder.ofType('unsubscribe').length, 1);
    c.ws.close();
  } finally {
    await srv.close();
  }
});

test('scripted: raw strings are sent verbatim; hand-over to a state engine after the script', async () => {
  const engine = createTodoEngine();
  const srv = await startScriptedProvider({
    script: [frames.hello(), '{"type":"patch",', ...reply('query', (m) => frames.querySnapshot(m.id, 1, { id: 'r', type: 'root' }))],
    afterScript: engine,
  });
  try {
    const c = await client(srv);
    c.send({ type: 'query', id: 'q-9', path: '/' });
    const f = await c.nth(3);
    assert.equal(f[1], '{"type":"patch",');
    assert.equal(JSON.parse(f[2]).id, 'q-9');
    await srv.connections[0].done;
    c.send({ type: 'subscribe', id: 's', path: '/todos' });
    const snap = JSON.parse((await c.nth(4))[3]);
    assert.deepEqual(snap.tree.children.map((t) => t.id), ['t1', 't2', 't3']);
    c.ws.close();
  } finally {
    await srv.close();
  }
});

test('scripted: same gate (401 without token), timeouts recorded, hostile frame builders', async () => {
  const srv = await startScriptedProvider({ script: [{ $wait: 'subscribe', $timeout: 50 }] });
  try {
    const status = await new Promise((resolve) => {
      const ws = new WebSocket(srv.wsUrl, { origin: ORIGIN });
      ws.once('unexpected-response', (req, res) => resolve(res.statusCode));
    });
    assert.equal(status, 401);
    const c = await client(srv);
    await srv.connections[0].done;
    assert.match(srv.connections[0].errors[0], /timed out waiting for subscribe/);
    c.ws.close();
  } finally {
    await srv.close();
  }
  assert.equal(JSON.parse(deepNestingFrame(50)).tree.children[0].id, 'n0');
  assert.ok(deepNestingFrame(200000, { kind: 'array' }).length > 400000);
  assert.ok(oversizeFrame(1 << 20).length > 1 << 20);
  for (const make of Object.values(scenarios)) assert.ok(make().script.length > 0);
});
