// The desktop-bridge fixture itself, with a `ws` client standing in for the extension: the
// upgrade rules (token as subprotocol, 401/403/404, plain GET), provider tracking, the relay
// frames both ways, waitFor's timeout message, and stop()/start() on the same port.

import { test, describe, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { WebSocket } from 'ws';
import { startDesktopBridge } from '../fixtures/desktop-bridge.mjs';

const open = new Set();

// An "extension" connection; resolves once open, with its incoming frames parsed in `frames`.
async function dial(bridge, { token = bridge.token, origin } = {}) {
  const ws = new WebSocket(bridge.url, ['slop.bearer', token], origin ? { origin } : {});
  open.add(ws);
  ws.frames = [];
  ws.on('message', (data) => ws.frames.push(JSON.parse(data.toString())));
  await once(ws, 'open');
  return ws;
}

// A refused upgrade: the HTTP status the client saw.
function refusedStatus(url, protocols, options = {}) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, options);
    ws.on('open', () => { ws.terminate(); reject(new Error('upgrade was accepted')); });
    ws.on('error', () => {}); // terminate() during the handshake reports an abort; expected
    ws.on('unexpected-response', (req, res) => {
      res.resume();
      ws.once('close', () => resolve(res.statusCode));
      ws.terminate();
    });
  });
}

// Wait until `ws.frames` has a frame matching predicate.
async function frame(ws, predicate, timeout = 2000) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    const hit = ws.frames.find(predicate);
    if (hit) return hit;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no matching frame; got ${JSON.stringify(ws.frames)}`);
}

async function closeAll() {
  await Promise.all([...open].map(async (ws) => {
    open.delete(ws);
    if (ws.readyState === WebSocket.CLOSED) return;
    const closed = once(ws, 'close');
    ws.terminate();
    await closed;
  }));
}

describe('desktop bridge fixture', () => {
  let bridge;
  before(async () => { bridge = await startDesktopBridge(); });
  afterEach(closeAll);
  after(async () => { await closeAll(); await bridge.close(); });

  test('the right token connects and selects exactly slop.bearer', async () => {
    assert.match(bridge.url, /^ws:\/\/127\.0\.0\.1:\d+\/slop-bridge$/);
    assert.match(bridge.token, /^[0-9a-f]{32}$/);
    const before = bridge.connections;
    const ws = await dial(bridge, { origin: 'chrome-extension://abcdefghijklmnop' });
    assert.equal(ws.protocol, 'slop.bearer');
    await bridge.waitForConnection();
    assert.equal(bridge.connected, true);
    assert.equal(bridge.connections, before + 1);
    const ff = await dial(bridge, { origin: 'moz-extension://0b1c2d3e-uuid' });
    assert.equal(ff.protocol, 'slop.bearer');
  });

  test('a wrong token is refused with 401 and recorded without the token', async () => {
    const n = bridge.refusals.length;
    const wrong = 'f'.repeat(32);
    assert.equal(await refusedStatus(bridge.url, ['slop.bearer', wrong]), 401);
    assert.equal(await refusedStatus(bridge.url, ['slop.bearer', 'short']), 401); // different length
    assert.deepEqual(bridge.refusals.slice(n).map((r) => r.reason), ['token', 'token']);
    assert.equal(typeof bridge.refusals[n].at, 'number');
    const recorded = JSON.stringify(bridge.refusals);
    assert.ok(!recorded.includes(bridge.token) && !recorded.includes(wrong));
  });

  test('a missing token is refused with 401', async () => {
    assert.equal(await refusedStatus(bridge.url, ['slop.bearer']), 401);
    assert.equal(await refusedStatus(bridge.url, []), 401);
    // The token alone, without slop.bearer, is not the bridge's handshake either.
    assert.equal(await refusedStatus(bridge.url, [bridge.token]), 401);
  });

  test('a web page Origin is refused with 403, even with the right token', async () => {
    const n = bridge.refusals.length;
    const protocols = ['slop.bearer', bridge.token];
    assert.equal(await refusedStatus(bridge.url, protocols, { origin: 'https://evil.example' }), 403);
    assert.equal(await refusedStatus(bridge.url, protocols, { origin: 'http://localhost:5173' }), 403);
    assert.equal(await refusedStatus(bridge.url, protocols, { origin: 'null' }), 403);
    assert.deepEqual(bridge.refusals.slice(n).map((r) => r.reason), ['origin', 'origin', 'origin']);
  });

  test('other paths get 404; a plain GET answers quickly', async () => {
    const other = bridge.url.replace('/slop-bridge', '/other');
    assert.equal(await refusedStatus(other, ['slop.bearer', bridge.token]), 404);
    assert.equal(bridge.refusals.at(-1).reason, 'path');
    const http = bridge.url.replace('ws:', 'http:');
    assert.equal((await fetch(http)).status, 426);
    assert.equal((await fetch(http.replace('/slop-bridge', '/'))).status, 404);
  });

  test('provider-available/unavailable are tracked; a disconnect clears them', async () => {
    const ws = await dial(bridge);
    const available = { type: 'provider-available', tabId: 12, providerKey: '12:app',
      provider: { id: 'app', name: 'Acme', transport: 'ws', url: 'ws://localhost:3737/slop', tabTitle: 'Acme' } };
    ws.send(JSON.stringify(available));
    ws.send(JSON.stringify({ ...available, providerKey: '12:other', provider: { id: 'other', name: 'Other', transport: 'postmessage' } }));
    await bridge.waitFor((m) => m.providerKey === '12:other');
    assert.deepEqual(bridge.providers.get('12:app'), available);
    assert.deepEqual([...bridge.providers.keys()], ['12:app', '12:other']);

    const since = bridge.received.length;
    ws.send(JSON.stringify({ type: 'provider-unavailable', tabId: 12, providerKey: '12:app' }));
    await bridge.waitFor((m) => m.type === 'provider-unavailable', { since });
    assert.deepEqual([...bridge.providers.keys()], ['12:other']);

    ws.send('not json');
    const bad = await bridge.waitFor((m) => m.type === '<bad json>', { since });
    assert.equal(bad.text, 'not json');

    const closed = once(ws, 'close');
    ws.close();
    await closed;
    for (let i = 0; i < 100 && bridge.connected; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(bridge.connected, false);
    assert.equal(bridge.providers.size, 0);
    assert.throws(() => bridge.send({ type: 'relay-open', providerKey: 'x' }), /no extension connected/);
  });

  test('relay: open/send/close reach the extension; slop-relay comes back per key', async () => {
    const ws = await dial(bridge);
    await bridge.waitForConnection();
    const r = bridge.relay('12:app');
    r.open();
    assert.deepEqual(await frame(ws, (f) => f.type === 'relay-open'), { type: 'relay-open', providerKey: '12:app' });
    r.send({ type: 'connect' });
    assert.deepEqual(await frame(ws, (f) => f.type === 'slop-relay'),
      { type: 'slop-relay', providerKey: '12:app', message: { type: 'connect' } });

    ws.send(JSON.stringify({ type: 'slop-relay', providerKey: '12:other', message: { type: 'hello', from: 'other' } }));
    ws.send(JSON.stringify({ type: 'slop-relay', providerKey: '12:app', message: { type: 'hello', provider: { id: 'app' } } }));
    ws.send(JSON.stringify({ type: 'slop-relay', providerKey: '12:app', message: { type: 'snapshot', version: 1 } }));
    const hello = await r.next((m) => m.type === 'hello');
    assert.deepEqual(hello, { type: 'hello', provider: { id: 'app' } });
    const snap = await r.next((m) => m.type === 'snapshot', { since: 1 });
    assert.equal(snap.version, 1);
    assert.deepEqual(r.messages.map((m) => m.type), ['hello', 'snapshot']);
    assert.deepEqual(bridge.relay('12:other').messages, [{ type: 'hello', from: 'other' }]);

    r.close();
    assert.deepEqual(await frame(ws, (f) => f.type === 'relay-close'), { type: 'relay-close', providerKey: '12:app' });
  });

  test('waitFor and relay next time out with a clear message', async () => {
    const ws = await dial(bridge);
    for (const type of ['hello', 'snapshot']) ws.send(JSON.stringify({ type: 'slop-relay', providerKey: '7:t', message: { type } }));
    await bridge.relay('7:t').next((m) => m.type === 'snapshot');
    await assert.rejects(bridge.waitFor((m) => m.type === 'never', { timeout: 50, what: 'a never message' }),
      (err) => /timed out after 50 ms waiting for a never message/.test(err.message) && /message types: \[.*"slop-relay"/.test(err.message));
    await assert.rejects(bridge.relay('7:t').next((m) => m.type === 'never', { timeout: 50, what: 'the patch' }),
      /relay 7:t next: timed out after 50 ms waiting for the patch; .*\["hello","snapshot"\]/);
    await closeAll();
    for (let i = 0; i < 100 && bridge.connected; i++) await new Promise((r) => setTimeout(r, 10));
    await assert.rejects(bridge.waitForConnection({ timeout: 50 }), /no extension connected within 50 ms/);
  });

  test('with two connections, the latest open one is the extension', async () => {
    const a = await dial(bridge);
    const b = await dial(bridge);
    await bridge.waitForConnection();
    bridge.send({ type: 'relay-open', providerKey: 'k' });
    await frame(b, (f) => f.type === 'relay-open');
    assert.equal(a.frames.length, 0);
    const closed = once(b, 'close');
    b.close();
    await closed;
    // The server sees b's close a moment after the client does; until then a send may go to b.
    for (let i = 0; i < 100 && a.frames.length === 0; i++) {
      try { bridge.send({ type: 'relay-close', providerKey: 'k' }); } catch { /* b closing, a not current yet */ }
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual(await frame(a, (f) => f.type === 'relay-close'), { type: 'relay-close', providerKey: 'k' });
  });
});

test('stop() then start() on the same port: the desktop goes away and comes back', async () => {
  const bridge = await startDesktopBridge();
  try {
    const { port } = bridge;
    const first = await dial(bridge);
    await bridge.waitForConnection();
    first.send(JSON.stringify({ type: 'provider-available', tabId: 1, providerKey: '1:a', provider: { id: 'a', name: 'A', transport: 'postmessage' } }));
    await bridge.waitFor((m) => m.type === 'provider-available');

    const closed = once(first, 'close');
    await bridge.stop();
    const [code] = await closed;
    assert.equal(code, 1001);
    assert.equal(bridge.connected, false);
    assert.equal(bridge.providers.size, 0);
    assert.equal(bridge.received.length, 1); // state is kept
    await assert.rejects(fetch(bridge.url.replace('ws:', 'http:'))); // nobody there

    await bridge.start();
    assert.equal(bridge.port, port);
    const second = await dial(bridge);
    assert.equal(second.protocol, 'slop.bearer');
    await bridge.waitForConnection();
    assert.equal(bridge.connections, 2);
  } finally {
    await closeAll();
    await bridge.close();
  }
  await assert.rejects(bridge.start(), /after close/);
});
