// core-relay.test.js: the core's relay through the JS wrapper (SlopRelay, relayRefusal), as the
// desktop bridge uses it in the service worker: the same rules as tests/c/test_relay.c, plus the
// wrapper's own (objects in and out, free, a bad tag).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore, SlopError } from './helpers.js';

test('an outside consumer\'s ids go out prefixed and only its frames come back, as the provider wrote them', async () => {
  const core = await loadCore();
  const r = new core.SlopRelay('b1');
  try {
    const sub = r.outbound(JSON.stringify({ type: 'subscribe', id: 'sub-1', path: '/' }));
    assert.deepEqual(sub, { ok: true, type: 'subscribe', message: { type: 'subscribe', id: 'b1~sub-1', path: '/' }, id: 'sub-1' });
    const inv = r.outbound(JSON.stringify({ type: 'invoke', id: 'r1', path: '/a', action: 'delete', params: { n: 0.1 } }));
    assert.equal(inv.path, '/a');
    assert.equal(inv.action, 'delete');
    assert.equal(inv.message.id, 'b1~r1');
    assert.equal(r.inbound('{"type":"patch","subscription":"ab12cd34-s1","version":2,"ops":[]}'), null, 'the extension\'s own');
    assert.equal(r.inbound('{"type":"patch","subscription":"b1~sub-1","version":2,"ops":[{"op":"replace","path":"/x","value":1.50}]}'),
      '{"type":"patch","subscription":"sub-1","version":2,"ops":[{"op":"replace","path":"/x","value":1.50}]}');
    assert.equal(r.inbound('{"type":"result","id":"b1~r1","status":"ok","data":"é\u{1F600}"}'), '{"type":"result","id":"r1","status":"ok","data":"é\u{1F600}"}');
    const bad = r.outbound('{"type":"snapshot","id":"x"}');
    assert.equal(bad.ok, false);
    assert.match(bad.error, /not a consumer message/);
    assert.deepEqual(r.close(), [{ type: 'unsubscribe', id: 'b1~sub-1' }]);
  } finally {
    r.free();
  }
  r.free(); // idempotent
  assert.throws(() => r.inbound('{}'), SlopError);
  assert.throws(() => new core.SlopRelay('Bad Tag'), /bad relay tag/);
  assert.deepEqual(core.relayRefusal('invoke', 'r9', 'unauthorized', 'declined'),
    { type: 'result', id: 'r9', status: 'error', error: { code: 'unauthorized', message: 'declined' } });
});

test('a relay frees its memory: 2,000 relays, each forwarding a 20 KB snapshot, leave the wasm heap where it was', async () => {
  const core = await loadCore();
  const warm = new core.SlopRelay('w');
  warm.outbound('{"type":"connect"}');
  warm.free();
  // 40 MB pass through: anything kept per relay or per frame would have to grow the heap.
  const filler = 'x'.repeat(20_000);
  const before = core.heapBytes();
  for (let i = 0; i < 2000; i++) {
    const r = new core.SlopRelay(`r${i}`);
    r.outbound(JSON.stringify({ type: 'subscribe', id: `s${i}`, path: '/' }));
    const back = r.inbound(`{"type":"snapshot","id":"r${i}~s${i}","version":1,"tree":{"id":"root","properties":{"p":${i},"f":"${filler}"}}}`);
    assert.ok(back?.length > 20_000);
    r.close();
    r.free();
  }
  assert.equal(core.heapBytes(), before);
});
