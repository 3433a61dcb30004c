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

// ------------------------------------------------------------------------------ open mode
// The bridges that exist, as the public SLOP project's bridge protocol describes them: a plain upgrade,
// every bridge message to every client (the sender included), the provider list replayed.

// A bare "extension" connection (no role header: the fixture records what it sends).
async function dialBare(bridge, options = {}) {
  const ws = new WebSocket(bridge.url, options);
  open.add(ws);
  ws.frames = [];
  ws.on('message', (data) => ws.frames.push(JSON.parse(data.toString())));
  await once(ws, 'open');
  return ws;
}

// Waits until every socket in `list` has a frame matching predicate; returns those frames.
const allGet = (list, predicate) => Promise.all(list.map((ws) => frame(ws, predicate)));
const settle = () => new Promise((r) => setTimeout(r, 50));

describe('desktop bridge fixture, open mode', () => {
  let bridge;
  const consumers = [];
  const consumer = async () => {
    const c = await bridge.consumer();
    consumers.push(c);
    return c;
  };
  before(async () => { bridge = await startDesktopBridge({ mode: 'open' }); });
  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.drop()));
    await closeAll();
  });
  after(async () => { await closeAll(); await bridge.close(); });

  test('a plain upgrade: no subprotocol selected, no token, any Origin; other paths 404; a plain GET 426', async () => {
    assert.equal(bridge.mode, 'open');
    assert.equal(bridge.token, null);
    const ws = await dialBare(bridge, { origin: 'https://any.example' });
    assert.equal(ws.protocol, '');
    // Offered slop.bearer and a token, it still selects nothing: a client that requires the
    // subprotocol fails the handshake (Chrome does; the ws client says so).
    const offered = new WebSocket(bridge.url, ['slop.bearer', 'some-token']);
    const [err] = await once(offered, 'error');
    assert.match(err.message, /Server sent no subprotocol/);
    assert.equal(await refusedStatus(bridge.url.replace('/slop-bridge', '/other'), []), 404);
    assert.equal((await fetch(bridge.url.replace('ws:', 'http:'))).status, 426);
    assert.deepEqual(bridge.refusals.map((r) => r.reason), ['path']);
  });

  test('every bridge message goes to every client, the sender included; other messages to nobody', async () => {
    const ext = await dialBare(bridge);
    const a = await consumer();
    const b = await consumer();
    await bridge.waitForConnection();
    // frame() reads ws.frames: the consumers' sockets get their consumer's record.
    a.ws.frames = a.frames;
    b.ws.frames = b.frames;
    const everyone = [ext, a.ws, b.ws];

    const available = { type: 'provider-available', tabId: 3, providerKey: '3:postmessage', provider: { id: 'spa', name: 'SPA', transport: 'postmessage' } };
    ext.send(JSON.stringify(available));
    await frame(ext, (f) => f.type === 'provider-available');
    assert.deepEqual(await a.waitFor((f) => f.type === 'provider-available'), available);
    assert.deepEqual(await b.waitFor((f) => f.type === 'provider-available'), available);
    assert.deepEqual([...bridge.providers.keys()], ['3:postmessage']);
    assert.deepEqual(a.providers.get('3:postmessage'), available);

    const ra = a.relay('3:postmessage');
    ra.open();
    assert.deepEqual(await frame(ext, (f) => f.type === 'relay-open'), { type: 'relay-open', providerKey: '3:postmessage' });
    await a.waitFor((f) => f.type === 'relay-open');
    await b.waitFor((f) => f.type === 'relay-open');
    ra.send({ type: 'connect' });
    assert.deepEqual(await frame(ext, (f) => f.type === 'slop-relay'), { type: 'slop-relay', providerKey: '3:postmessage', message: { type: 'connect' } });
    ext.send(JSON.stringify({ type: 'slop-relay', providerKey: '3:postmessage', message: { type: 'hello', provider: { id: 'spa' } } }));
    // Both consumers get the provider's hello; the extension gets it back too.
    assert.deepEqual(await ra.next((m) => m.type === 'hello'), { type: 'hello', provider: { id: 'spa' } });
    await b.relay('3:postmessage').next((m) => m.type === 'hello');
    await frame(ext, (f) => f.type === 'slop-relay' && f.message.type === 'hello');
    assert.deepEqual(ra.messages.map((m) => m.type), ['connect', 'hello'], 'a consumer sees its own message come back');
    assert.deepEqual(bridge.relayed('3:postmessage'), [{ type: 'hello', provider: { id: 'spa' } }], 'only the extension\'s are recorded');

    ra.close();
    await allGet(everyone, (f) => f.type === 'relay-close');
    ext.send(JSON.stringify({ type: 'provider-unavailable', tabId: 3, providerKey: '3:postmessage' }));
    await allGet(everyone, (f) => f.type === 'provider-unavailable');
    assert.equal(bridge.providers.size, 0);
    assert.equal(a.providers.size, 0);

    // Anything else goes nowhere: an unknown type, a bad JSON text, an array.
    const counts = () => [ext.frames.length, a.frames.length, b.frames.length];
    const before = counts();
    ext.send(JSON.stringify({ type: 'hello-world', providerKey: 'x' }));
    a.sendRaw('not json');
    b.sendRaw('[1,2]');
    await bridge.waitFor((m) => m.type === 'hello-world');
    await settle();
    assert.deepEqual(counts(), before);
    assert.deepEqual(bridge.received.map((m) => m.type), ['provider-available', 'slop-relay', 'provider-unavailable', 'hello-world']);
  });

  test('the provider list is replayed to each new client; a client leaving does not change it', async () => {
    const ext = await dialBare(bridge);
    const p = (n) => ({ type: 'provider-available', tabId: n, providerKey: `${n}:postmessage`, provider: { id: `p${n}`, name: `P${n}`, transport: 'postmessage' } });
    for (const n of [1, 2, 3]) ext.send(JSON.stringify(p(n)));
    ext.send(JSON.stringify({ ...p(2), provider: { id: 'p2b', name: 'P2 again', transport: 'postmessage' } })); // replaces
    ext.send(JSON.stringify({ type: 'provider-unavailable', tabId: 1, providerKey: '1:postmessage' }));
    await frame(ext, (f) => f.type === 'provider-unavailable');
    const c = await consumer();
    await c.waitFor((f) => f.providerKey === '3:postmessage');
    assert.deepEqual(c.frames.map((f) => [f.type, f.providerKey, f.provider.id]), [['provider-available', '2:postmessage', 'p2b'], ['provider-available', '3:postmessage', 'p3']]);

    const closed = once(ext, 'close');
    ext.close();
    await closed;
    for (let i = 0; i < 100 && bridge.connected; i++) await settle();
    assert.equal(bridge.connected, false);
    assert.deepEqual([...bridge.providers.keys()], ['2:postmessage', '3:postmessage'], 'kept after the sender left');
    const again = await dialBare(bridge);
    await frame(again, (f) => f.providerKey === '3:postmessage');
    assert.equal(again.frames.length, 2);
    // Tidy for the next test: withdraw what is left.
    for (const n of [2, 3]) again.send(JSON.stringify({ type: 'provider-unavailable', tabId: n, providerKey: `${n}:postmessage` }));
    for (let i = 0; i < 100 && bridge.providers.size; i++) await settle();
    assert.equal(bridge.providers.size, 0);
  });

  test('several consumers; one that drops leaves the rest connected; inject reaches only the extension', async () => {
    const ext = await dialBare(bridge);
    const [a, b, c] = [await consumer(), await consumer(), await consumer()];
    await bridge.waitForConnection();
    assert.equal(bridge.clients, 4);
    await b.drop();
    assert.equal(b.open, false);
    for (let i = 0; i < 100 && bridge.clients !== 3; i++) await settle();
    assert.equal(bridge.clients, 3);
    a.send({ type: 'relay-open', providerKey: 'k' });
    await c.waitFor((f) => f.type === 'relay-open');
    await frame(ext, (f) => f.type === 'relay-open');
    bridge.inject('{"type":"anything"}');
    await frame(ext, (f) => f.type === 'anything');
    await settle();
    assert.ok(!a.frames.some((f) => f.type === 'anything') && !c.frames.some((f) => f.type === 'anything'));
    await c.close();
    assert.equal(c.open, false);
  });

  test('paired-only helpers refuse in open mode and the other way round; a bad mode is refused', async () => {
    assert.throws(() => bridge.send({ type: 'relay-open', providerKey: 'k' }), /open mode.*bridge\.consumer\(\)/);
    assert.throws(() => bridge.relay('k'), /open mode/);
    const paired = await startDesktopBridge();
    try {
      await assert.rejects(paired.consumer(), /for the open mode/);
      assert.throws(() => paired.inject('x'), /for the open mode/);
    } finally {
      await paired.close();
    }
    await assert.rejects(startDesktopBridge({ mode: 'pairless' }), /mode must be 'paired' or 'open'/);
  });
});

test('open mode: stop() then start() is a new process: same port, empty provider list', async () => {
  const bridge = await startDesktopBridge({ mode: 'open' });
  try {
    const ext = await dialBare(bridge);
    ext.send(JSON.stringify({ type: 'provider-available', tabId: 1, providerKey: '1:a', provider: { id: 'a', name: 'A', transport: 'postmessage' } }));
    await bridge.waitFor((m) => m.type === 'provider-available');
    assert.equal(bridge.providers.size, 1);
    const c = await bridge.consumer();
    const closed = once(ext, 'close');
    await bridge.stop();
    assert.equal((await closed)[0], 1001);
    assert.equal(c.open, false);
    assert.equal(bridge.providers.size, 0);
    await bridge.start();
    const again = await dialBare(bridge);
    await bridge.waitForConnection();
    await settle();
    assert.deepEqual(again.frames, [], 'nothing to replay');
    assert.equal(bridge.connections, 2);
  } finally {
    await closeAll();
    await bridge.close();
  }
});
