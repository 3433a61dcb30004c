// The desktop-bridge fixture itself, with `ws` clients standing in for the extension.
// The paired bridge: the pairing (js-glue/bridge-pairing.js), the upgrade rules (403/404, plain
// GET), provider tracking, the relay frames both ways, waitFor's timeout message, stop()/start() on the same port.
// The SLOP project's three bridges (kinds ts, go, rust): the subprotocol each selects, its answer
// to plain HTTP and other paths, who gets which message (the sender too), how it re-encodes them,
// the replay to new clients, what it forgets when the last client goes, go's 32 KiB limit, the
// in-process relay consumer of each, and stop()/start() as a new process on the same port.

import { test, describe, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { WebSocket } from 'ws';
import { startDesktopBridge } from '../fixtures/desktop-bridge.mjs';
import { BrowserPairing, normalizeCode, newPairingCode } from '../../js-glue/bridge-pairing.js';

const open = new Set();

// An "extension" connection to the paired bridge: a bare socket, then the pairing under `code`;
// resolves once paired (ws.outcome says how it ended), with later frames parsed in `frames`.
async function dial(bridge, { code = bridge.code, origin } = {}) {
  const ws = new WebSocket(bridge.url, origin ? { origin } : {});
  open.add(ws);
  ws.frames = [];
  await once(ws, 'open');
  let done;
  const outcome = new Promise((r) => { done = r; });
  const pairing = new BrowserPairing(normalizeCode(code), (t) => ws.send(t), (o) => done(o));
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString());
    if (String(m.type).startsWith('pair-')) pairing.receive(m);
    else ws.frames.push(m);
  });
  pairing.start(1000);
  ws.outcome = await outcome;
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

  test('the right code pairs: no subprotocol, proofs both ways; only then is it the extension', async () => {
    assert.match(bridge.url, /^ws:\/\/127\.0\.0\.1:\d+\/slop-bridge$/);
    assert.ok(normalizeCode(bridge.code), 'a pairing code');
    const ws = await dial(bridge, { origin: 'chrome-extension://abcdefghijklmnop' });
    assert.equal(ws.outcome, 'paired');
    assert.equal(ws.protocol, '');
    await bridge.waitForConnection();
    assert.equal(bridge.connected, true);
    const ff = await dial(bridge, { origin: 'moz-extension://0b1c2d3e-uuid' });
    assert.equal(ff.outcome, 'paired');
  });

  test('another code: the browser finds the bridge\'s proof wrong; the bridge refuses a wrong proof (4403)', async () => {
    const n = bridge.refusals.length;
    const ws = await dial(bridge, { code: newPairingCode() });
    assert.equal(ws.outcome, 'wrong', 'the bridge could not prove the browser\'s code');
    // A browser that answers anyway with a proof under another code is refused.
    const raw = new WebSocket(bridge.url);
    open.add(raw);
    await once(raw, 'open');
    raw.send(JSON.stringify({ type: 'pair-challenge', version: 1, nonce: 'A'.repeat(43) }));
    await once(raw, 'message');
    raw.send(JSON.stringify({ type: 'pair-proof', version: 1, proof: 'B'.repeat(43) }));
    const [code] = await once(raw, 'close');
    assert.equal(code, 4403);
    assert.deepEqual(bridge.refusals.slice(n).map((r) => r.reason), ['code']);
    assert.ok(!JSON.stringify(bridge.refusals).includes(normalizeCode(bridge.code)));
  });

  test('a web page Origin is refused with 403', async () => {
    const n = bridge.refusals.length;
    const protocols = [];
    assert.equal(await refusedStatus(bridge.url, protocols, { origin: 'https://evil.example' }), 403);
    assert.equal(await refusedStatus(bridge.url, protocols, { origin: 'http://localhost:5173' }), 403);
    assert.equal(await refusedStatus(bridge.url, protocols, { origin: 'null' }), 403);
    assert.deepEqual(bridge.refusals.slice(n).map((r) => r.reason), ['origin', 'origin', 'origin']);
  });

  test('other paths get 404; a plain GET answers quickly', async () => {
    const other = bridge.url.replace('/slop-bridge', '/other');
    assert.equal(await refusedStatus(other, []), 404);
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
    assert.equal(second.outcome, 'paired');
    await bridge.waitForConnection();
    assert.equal(bridge.connections, 2);
  } finally {
    await closeAll();
    await bridge.close();
  }
  await assert.rejects(bridge.start(), /after close/);
});

// ------------------------------------------------------------------- the SLOP project's bridges
// kind 'ts' (their TypeScript server), 'go' (their CLI), 'rust' (their desktop app): what each one
// selects at the handshake, answers to plain HTTP, passes on to whom, replays, forgets, and what
// its in-process relay consumer sends.

// A client of the bridge ("extension" unless the fixture marks it); parsed frames and raw texts.
async function dialKind(url, protocols = [], options = {}) {
  const ws = new WebSocket(url, protocols, options);
  open.add(ws);
  ws.frames = [];
  ws.texts = [];
  ws.on('message', (data) => {
    ws.texts.push(data.toString());
    let parsed;
    try { parsed = JSON.parse(data.toString()); } catch { parsed = { type: '<bad json>' }; }
    ws.frames.push(parsed);
  });
  await once(ws, 'open');
  return ws;
}

// What a handshake came to: {protocol} once open, {status} for an HTTP answer, {error} otherwise.
function handshake(url, protocols = [], options = {}) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, protocols, options);
    ws.on('open', () => { resolve({ protocol: ws.protocol }); ws.terminate(); });
    ws.on('unexpected-response', (req, res) => {
      res.resume();
      resolve({ status: res.statusCode });
      ws.terminate();
    });
    ws.on('error', (err) => resolve({ error: err.message }));
  });
}

// Writes `text` on a bare TCP connection; resolves with everything that came back before close.
function rawExchange(port, text) {
  return new Promise((resolve, reject) => {
    let data = '';
    const sock = net.connect(port, '127.0.0.1', () => sock.write(text));
    const timer = setTimeout(() => { sock.destroy(); reject(new Error(`still open; got ${JSON.stringify(data)}`)); }, 3000);
    sock.on('data', (d) => { data += d; });
    sock.on('error', () => {}); // a reset is as good as a close here
    sock.on('close', () => { clearTimeout(timer); resolve(data); });
  });
}

async function waitUntil(check, what, timeout = 3000) {
  const end = Date.now() + timeout;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const available = (n, extra = {}) => ({
  type: 'provider-available', tabId: n, providerKey: `${n}:postmessage`,
  provider: { id: `p${n}`, name: `P${n}`, transport: 'postmessage' }, ...extra,
});
const send = (ws, msg) => ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
const sentinel = (n) => ({ type: 'provider-unavailable', tabId: 0, providerKey: `sentinel-${n}` });
const types = (ws, from = 0) => ws.frames.slice(from).map((f) => (f.type === 'slop-relay' ? `relay ${f.message?.type}` : f.type));

// Everything each socket got from index `from` on, once every socket has the sentinel `n` (sent by
// `by`, which all of them are told of): nothing can still be on the way before it.
async function upToSentinel(sockets, by, n, from) {
  send(by, sentinel(n));
  await Promise.all(sockets.map((ws) => frame(ws, (f) => f.providerKey === `sentinel-${n}`)));
  return sockets.map((ws, i) => {
    const got = ws.frames.slice(from[i]);
    return got.slice(0, got.findIndex((f) => f.providerKey === `sentinel-${n}`));
  });
}

describe('kind ts: their TypeScript server (ws with host, port and path)', () => {
  let bridge;
  const consumers = [];
  const consumer = async () => {
    const c = await bridge.consumer();
    c.ws.frames = c.frames; // frame() and upToSentinel() read ws.frames
    consumers.push(c);
    return c;
  };
  beforeEach(async () => { bridge = await startDesktopBridge({ kind: 'ts' }); });
  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.drop()));
    await closeAll();
    await bridge.close();
  });

  test('the first offered subprotocol is selected and the token never looked at; any Origin', async () => {
    assert.equal(bridge.kind, 'ts');
    assert.match(bridge.url, /^ws:\/\/127\.0\.0\.1:\d+\/slop-bridge$/);
    const n = bridge.subprotocols.length;
    const before = bridge.connections;
    const a = await dialKind(bridge.url, ['slop.bearer', 'tok'], { origin: 'https://evil.example' });
    assert.equal(a.protocol, 'slop.bearer');
    const b = await dialKind(bridge.url, ['tok', 'slop.bearer']);
    assert.equal(b.protocol, 'tok', 'the first offered, whatever it is');
    const c = await dialKind(bridge.url, [], { origin: 'null' });
    assert.equal(c.protocol, '');
    assert.deepEqual(bridge.subprotocols.slice(n), [
      { offered: ['slop.bearer', 'tok'], selected: 'slop.bearer', role: 'extension' },
      { offered: ['tok', 'slop.bearer'], selected: 'tok', role: 'extension' },
      { offered: [], selected: null, role: 'extension' },
    ]);
    assert.equal(bridge.connections, before + 3);
    await bridge.waitForConnection();
    assert.equal(bridge.connected, true);
    assert.equal(bridge.clients, 3);
  });

  test('plain HTTP gets 426 on any path (ws\'s own server); an upgrade on another path 400', async () => {
    const httpUrl = bridge.url.replace('ws:', 'http:');
    const res = await fetch(httpUrl);
    assert.equal(res.status, 426);
    assert.equal(await res.text(), 'Upgrade Required');
    assert.equal((await fetch(httpUrl.replace('/slop-bridge', '/other'))).status, 426);
    assert.deepEqual(await handshake(bridge.url.replace('/slop-bridge', '/other')), { status: 400 });
    assert.deepEqual(await handshake(`${bridge.url}?x=1`), { protocol: '' }, 'the query is not part of the path');
  });

  test('its five message types go to every client, the sender included, re-serialised; the rest nowhere', async () => {
    const ext = await dialKind(bridge.url);
    const c = await consumer();
    const key = '3:postmessage';
    send(ext, available(3));
    assert.deepEqual(await frame(ext, (f) => f.type === 'provider-available'), available(3));
    assert.deepEqual(await c.waitFor((f) => f.type === 'provider-available'), available(3));
    const r = c.relay(key);
    r.open();
    r.send({ type: 'connect' });
    await frame(ext, (f) => f.type === 'slop-relay');
    send(ext, { type: 'slop-relay', providerKey: key, message: { type: 'hello', provider: { id: 'p3' } } });
    await r.next((m) => m.type === 'hello');
    assert.deepEqual(r.messages.map((m) => m.type), ['connect', 'hello'], 'the consumer gets its own back');
    r.close();
    send(ext, { type: 'provider-unavailable', tabId: 3, providerKey: key });
    await frame(ext, (f) => f.type === 'provider-unavailable');
    await c.waitFor((f) => f.type === 'provider-unavailable');
    assert.deepEqual(types(ext), ['provider-available', 'relay-open', 'relay connect', 'relay hello', 'relay-close', 'provider-unavailable']);
    assert.deepEqual(c.frames.map((f) => f.type), ['provider-available', 'relay-open', 'slop-relay', 'slop-relay', 'relay-close', 'provider-unavailable']);
    assert.deepEqual(bridge.received.map((m) => m.type), ['provider-available', 'slop-relay', 'provider-unavailable'], 'only the extension\'s are recorded');
    assert.deepEqual(bridge.relayed(key), [{ type: 'hello', provider: { id: 'p3' } }]);

    // Dropped: other types, bad JSON, non-objects, and its types without what it needs.
    const from = [ext.frames.length, c.frames.length];
    for (const junk of ['{"type":"hello-world","providerKey":"x"}', 'not json', '[1,2]', 'null', '"provider-available"',
      { type: 'provider-available', tabId: 1, provider: { id: 'x' } }, { type: 'provider-available', providerKey: '' },
      { type: 'provider-unavailable', tabId: 1 }, { type: 'slop-relay', providerKey: key }, { type: 'slop-relay', message: { type: 'x' } }]) {
      send(ext, junk);
    }
    c.sendRaw('{"type":"slop-relay","providerKey":"k","message":null}');
    const [extGot, cGot] = await upToSentinel([ext, c.ws], ext, 1, from);
    assert.deepEqual(extGot, []);
    assert.deepEqual(cGot, []);
    assert.equal(bridge.providers.size, 0);

    // relay-open/relay-close pass whatever their fields; texts come out as JSON.stringify writes them.
    send(ext, '{ "type" : "relay-open", "n": 1.50, "big": 12345678901234567890, "z": -0, "dup": 1, "dup": 2 }');
    await frame(ext, (f) => f.type === 'relay-open' && f.n === 1.5);
    assert.equal(ext.texts.at(-1), '{"type":"relay-open","n":1.5,"big":12345678901234567000,"z":0,"dup":2}');
  });

  test('providers are replayed to each new client in its normalised shape; replacing keeps the place', async () => {
    const ext = await dialKind(bridge.url);
    send(ext, available(1));
    send(ext, available(2, { tabTitle: 'dropped', provider: { id: 'p2', name: 'P2', transport: 'postmessage', url: '' } }));
    send(ext, { type: 'provider-available', providerKey: '9:bare' });
    send(ext, { type: 'provider-available', tabId: 4, providerKey: '4:ws', provider: { id: 'w', name: 'W', transport: 'ws', url: 'ws://x.test/slop' } });
    send(ext, available(1, { provider: { id: 'p1b', name: 'P1 again', transport: 'postmessage' } }));
    send(ext, { type: 'provider-unavailable', tabId: 4, providerKey: '4:ws' });
    await frame(ext, (f) => f.type === 'provider-unavailable');
    const expected = [
      { type: 'provider-available', tabId: 1, providerKey: '1:postmessage', provider: { id: 'p1b', name: 'P1 again', transport: 'postmessage' } },
      { type: 'provider-available', tabId: 2, providerKey: '2:postmessage', provider: { id: 'p2', name: 'P2', transport: 'postmessage' } },
      { type: 'provider-available', tabId: 0, providerKey: '9:bare', provider: { id: '9:bare', name: 'Tab', transport: 'postmessage' } },
    ];
    assert.deepEqual([...bridge.providers.values()], expected);
    const late = await dialKind(bridge.url);
    await frame(late, (f) => f.providerKey === '9:bare');
    assert.deepEqual(late.frames, expected);
    assert.equal(late.texts[0], '{"type":"provider-available","tabId":1,"providerKey":"1:postmessage","provider":{"id":"p1b","name":"P1 again","transport":"postmessage"}}');
  });

  test('a client leaving changes nothing while another stays; the last one leaving forgets providers and subscriptions', async () => {
    const ext = await dialKind(bridge.url);
    const other = await consumer();
    send(ext, available(5));
    await other.waitFor((f) => f.type === 'provider-available');
    const r = bridge.local('5:postmessage', { connect: false });
    await r.open();
    assert.equal(r.subscribed, true);
    const closed = once(ext, 'close');
    ext.close();
    await closed;
    await waitUntil(() => !bridge.connected, 'the extension gone');
    assert.deepEqual([...bridge.providers.keys()], ['5:postmessage'], 'its tabs still listed for the consumer');
    assert.equal(r.subscribed, true);
    const late = await dialKind(bridge.url);
    await frame(late, (f) => f.providerKey === '5:postmessage');
    await other.drop();
    late.terminate();
    await waitUntil(() => bridge.clients === 0, 'nobody left');
    await waitUntil(() => bridge.providers.size === 0, 'providers forgotten');
    assert.equal(r.subscribed, false, 'subscriptions forgotten');
    assert.equal(r.ended, false, 'silently: its consumer is not told');
    const again = await dialKind(bridge.url);
    const [got] = await upToSentinel([again], again, 2, [0]);
    assert.deepEqual(got, [], 'nothing to replay');
  });

  test('in-process consumer: relay-open, then connect every 300 ms, 4 at most, until anything comes back', async () => {
    const ext = await dialKind(bridge.url);
    const c = await consumer();
    const r = bridge.local('6:postmessage');
    const opening = r.open();
    assert.equal(r.subscribed, true);
    await opening;
    const keyed = (ws, key) => ws.frames.filter((f) => f.providerKey === key).map((f) => (f.type === 'slop-relay' ? f.message.type : f.type));
    assert.deepEqual(keyed(ext, '6:postmessage'), ['relay-open', 'connect', 'connect', 'connect', 'connect'], 'to every client');
    await c.waitFor((f) => f.type === 'slop-relay');
    assert.equal(c.frames.filter((f) => f.type === 'slop-relay').length, 4);

    // Answered at once: one connect is enough.
    ext.on('message', (data) => {
      const m = JSON.parse(data.toString());
      if (m.type === 'slop-relay' && m.providerKey === '7:postmessage' && m.message.type === 'connect') {
        send(ext, { type: 'slop-relay', providerKey: '7:postmessage', message: { type: 'hello', provider: { id: 'p7' } } });
      }
    });
    const r7 = bridge.local('7:postmessage');
    await r7.open();
    await frame(ext, (f) => f.message?.type === 'hello'); // its own hello back (the sender is included)
    const seen7 = keyed(ext, '7:postmessage');
    assert.deepEqual(seen7.slice(0, 2), ['relay-open', 'connect']);
    assert.ok(seen7.filter((t) => t === 'connect').length < 4, 'the retries stop once answered (one is enough unless the answer took over 300 ms)');
    assert.ok(!seen7.slice(seen7.indexOf('hello')).includes('connect'), 'no connect after the answer');
    assert.deepEqual(r7.messages, [{ type: 'hello', provider: { id: 'p7' } }]);
    // Any client's slop-relay for the key reaches it, a desktop consumer's too.
    c.relay('7:postmessage').send({ type: 'query', id: 'q' });
    await r7.next((m) => m.type === 'query');
    r7.send({ type: 'subscribe', id: 's1', path: '/' });
    await frame(ext, (f) => f.message?.type === 'subscribe');
    r7.close();
    await frame(ext, (f) => f.type === 'relay-close' && f.providerKey === '7:postmessage');
    assert.equal(r7.subscribed, false);
    const n = r7.messages.length;
    send(ext, { type: 'slop-relay', providerKey: '7:postmessage', message: { type: 'patch' } });
    await frame(ext, (f) => f.message?.type === 'patch');
    assert.equal(r7.messages.length, n, 'nothing after close');

    // provider-unavailable forgets its subscriptions without a word.
    const r8 = bridge.local('8:postmessage', { connect: false });
    await r8.open();
    await frame(ext, (f) => f.type === 'relay-open' && f.providerKey === '8:postmessage');
    send(ext, { type: 'provider-unavailable', tabId: 8, providerKey: '8:postmessage' });
    await frame(ext, (f) => f.type === 'provider-unavailable' && f.providerKey === '8:postmessage');
    assert.equal(r8.subscribed, false);
    assert.equal(r8.ended, false);
    assert.equal(ext.frames.filter((f) => f.providerKey === '8:postmessage' && f.type === 'slop-relay').length, 0, 'connect: false sends none');
  });
});

describe('kind go: their CLI\'s server (nhooyr websocket behind http.ServeMux)', () => {
  let bridge;
  beforeEach(async () => { bridge = await startDesktopBridge({ kind: 'go' }); });
  afterEach(async () => {
    await closeAll();
    await bridge.close();
  });

  test('no subprotocol is selected, whatever is offered: a client that offered some fails; the server counted it', async () => {
    const before = bridge.connections;
    const offered = await handshake(bridge.url, ['slop.bearer', 'tok']);
    assert.match(offered.error, /Server sent no subprotocol/);
    assert.deepEqual(bridge.subprotocols.at(-1), { offered: ['slop.bearer', 'tok'], selected: null, role: 'extension' });
    const bare = await dialKind(bridge.url, [], { origin: 'https://evil.example' });
    assert.equal(bare.protocol, '');
    assert.equal(bridge.connections, before + 2);
    await bridge.waitForConnection();
  });

  test('only the exact path: others 404 "404 page not found"; a plain request on it 426', async () => {
    const httpUrl = bridge.url.replace('ws:', 'http:');
    const plain = await fetch(httpUrl);
    assert.equal(plain.status, 426);
    assert.match(plain.headers.get('content-type'), /^text\/plain/);
    assert.match(await plain.text(), /^WebSocket protocol violation: .+\n$/);
    for (const other of ['/other', '/', '/slop-bridge/']) {
      const res = await fetch(httpUrl.replace('/slop-bridge', other));
      assert.equal(res.status, 404, other);
      assert.equal(await res.text(), '404 page not found\n');
    }
    assert.deepEqual(await handshake(bridge.url.replace('/slop-bridge', '/other')), { status: 404 });
    assert.deepEqual(bridge.refusals.slice(-5).map((r) => r.reason), ['not-upgrade', 'path', 'path', 'path', 'path']);
  });

  test('provider-available/unavailable go to every connection, sender included, Go-encoded; slop-relay and relay-open/close to none', async () => {
    const a = await dialKind(bridge.url);
    const b = await dialKind(bridge.url);
    send(a, available(3, { provider: { id: 'p3', name: '<b>&', transport: 'postmessage' } }));
    await Promise.all([a, b].map((ws) => frame(ws, (f) => f.type === 'provider-available')));
    assert.equal(b.texts[0], '{"provider":{"id":"p3","name":"\\u003cb\\u003e\\u0026","transport":"postmessage"},"providerKey":"3:postmessage","tabId":3,"type":"provider-available"}');
    assert.deepEqual(a.frames[0], b.frames[0]);
    send(a, { type: 'relay-open', providerKey: '3:postmessage' });
    send(a, { type: 'slop-relay', providerKey: '3:postmessage', message: { type: 'hello' } });
    send(b, { type: 'slop-relay', providerKey: '3:postmessage', message: { type: 'connect' } });
    send(a, { type: 'relay-close', providerKey: '3:postmessage' });
    send(a, { type: 'provider-available', providerKey: '', provider: { id: 'x' } });
    send(a, '{"type":"provider-available","providerKey":"big","tabId":1e400}'); // out of float64: refused
    send(a, { type: 'provider-unavailable', tabId: 3, providerKey: '3:postmessage' });
    const [aGot, bGot] = await upToSentinel([a, b], a, 3, [1, 1]);
    assert.deepEqual(aGot.map((f) => f.type), ['provider-unavailable']);
    assert.deepEqual(bGot, aGot);
    assert.deepEqual(b.texts[1], '{"providerKey":"3:postmessage","tabId":3,"type":"provider-unavailable"}');
    assert.equal(bridge.providers.size, 0);
    assert.deepEqual(bridge.received.filter((m) => m.type === 'slop-relay').length, 2, 'recorded, though it passed them to no client');
  });

  test('new connections get the list replayed in Go\'s shape', async () => {
    const a = await dialKind(bridge.url);
    send(a, available(1, { tabId: 4.7, extra: 'dropped', provider: { id: 'x', url: '' } }));
    send(a, { type: 'provider-available', providerKey: '2:bare', tabId: 'nine' });
    send(a, { type: 'provider-available', tabId: 3, providerKey: '3:ws', provider: { id: 'w', name: 'W', transport: 'ws', url: 'ws://x.test/slop' } });
    await frame(a, (f) => f.providerKey === '3:ws');
    const late = await dialKind(bridge.url);
    await frame(late, (f) => f.providerKey === '3:ws');
    assert.deepEqual(late.texts, [
      '{"provider":{"id":"x","name":"","transport":""},"providerKey":"1:postmessage","tabId":4,"type":"provider-available"}',
      '{"provider":{"id":"","name":"","transport":""},"providerKey":"2:bare","tabId":0,"type":"provider-available"}',
      '{"provider":{"id":"w","name":"W","transport":"ws","url":"ws://x.test/slop"},"providerKey":"3:ws","tabId":3,"type":"provider-available"}',
    ]);
    assert.deepEqual([...bridge.providers.values()], late.frames);
  });

  test('the last connection leaving ends the in-process subscriptions but keeps the providers; provider-unavailable ends its own', async () => {
    const a = await dialKind(bridge.url);
    send(a, available(5));
    send(a, available(6));
    await frame(a, (f) => f.providerKey === '6:postmessage');
    const r5 = bridge.local('5:postmessage');
    const r6 = bridge.local('6:postmessage');
    await r5.open();
    await r6.open();
    send(a, { type: 'provider-unavailable', tabId: 6, providerKey: '6:postmessage' });
    await waitUntil(() => r6.ended, 'r6 ended');
    assert.equal(r6.subscribed, false);
    assert.equal(r5.ended, false);
    assert.equal(r5.subscribed, true);
    a.terminate();
    await waitUntil(() => r5.ended, 'r5 ended with the last connection');
    assert.equal(r5.subscribed, false);
    assert.ok(bridge.providers.has('5:postmessage'), 'the provider stays listed');
    const late = await dialKind(bridge.url);
    await frame(late, (f) => f.providerKey === '5:postmessage');
  });

  test('a message over 32768 bytes closes that connection with 1009; 32768 is read', async () => {
    const a = await dialKind(bridge.url);
    const b = await dialKind(bridge.url);
    const sized = (n, bytes) => {
      const base = JSON.stringify(available(n, { pad: '' }));
      return JSON.stringify(available(n, { pad: 'x'.repeat(bytes - base.length) }));
    };
    assert.equal(sized(1, 32768).length, 32768);
    send(a, sized(1, 32768));
    await frame(b, (f) => f.providerKey === '1:postmessage');
    const closed = once(a, 'close');
    send(a, sized(2, 32769));
    const [code, reason] = await closed;
    assert.equal(code, 1009);
    assert.equal(reason.toString(), 'read limited at 32769 bytes');
    assert.deepEqual(bridge.received.at(-1), { type: '<too big>', bytes: 32769 });
    assert.equal(b.readyState, WebSocket.OPEN, 'the others stay');
    assert.ok(!bridge.providers.has('2:postmessage'));
  });

  test('in-process consumer: relay-open to every connection, then waits for hello without connect', async () => {
    const a = await dialKind(bridge.url);
    const b = await dialKind(bridge.url);
    const key = '7:postmessage';
    const r = bridge.local(key);
    await r.open();
    await Promise.all([a, b].map((ws) => frame(ws, (f) => f.type === 'relay-open')));
    assert.equal(a.texts[0], '{"providerKey":"7:postmessage","type":"relay-open"}');
    send(a, { type: 'slop-relay', providerKey: '9:other', message: { type: 'hello' } });
    send(a, { type: 'slop-relay', providerKey: key, message: 'not an object' });
    send(a, { type: 'slop-relay', providerKey: key, message: { type: 'hello', provider: { id: 'p7' } } });
    assert.deepEqual(await r.next((m) => m.type === 'hello'), { type: 'hello', provider: { id: 'p7' } });
    assert.equal(r.messages.length, 1);
    await new Promise((res) => setTimeout(res, 400)); // longer than the ts kind's retry: still no connect
    const [aGot, bGot] = await upToSentinel([a, b], a, 4, [1, 1]);
    assert.deepEqual(aGot, []);
    assert.deepEqual(bGot, []);
    r.send({ type: 'subscribe', id: 's1', path: '/', depth: -1 });
    await frame(b, (f) => f.type === 'slop-relay');
    assert.equal(b.texts.at(-1), '{"message":{"depth":-1,"id":"s1","path":"/","type":"subscribe"},"providerKey":"7:postmessage","type":"slop-relay"}');
    r.close();
    await Promise.all([a, b].map((ws) => frame(ws, (f) => f.type === 'relay-close')));
    assert.equal(r.subscribed, false);
    const withConnect = bridge.local('8:postmessage', { connect: true });
    await withConnect.open();
    await frame(a, (f) => f.type === 'slop-relay' && f.providerKey === '8:postmessage');
    assert.deepEqual(types(a).slice(-2), ['relay-open', 'relay connect']);
    withConnect.close();
  });

  test('no external consumer (its consumers are in-process); the paired helpers refuse', async () => {
    await assert.rejects(bridge.consumer(), /go.*in-process; use bridge\.local\(providerKey\)/);
    assert.throws(() => bridge.send({ type: 'relay-open', providerKey: 'k' }), /paired bridge's.*bridge\.local/);
    assert.throws(() => bridge.relay('k'), /paired bridge's/);
    const a = await dialKind(bridge.url);
    bridge.inject('{"type":"anything"}');
    await frame(a, (f) => f.type === 'anything');
  });
});

describe('kind rust: their desktop app\'s server (tungstenite accept on a TCP listener)', () => {
  let bridge;
  const consumers = [];
  const consumer = async () => {
    const c = await bridge.consumer();
    c.ws.frames = c.frames; // frame() and upToSentinel() read ws.frames
    consumers.push(c);
    return c;
  };
  beforeEach(async () => { bridge = await startDesktopBridge({ kind: 'rust' }); });
  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.drop()));
    await closeAll();
    await bridge.close();
  });

  test('no subprotocol selected; any path upgrades; any Origin', async () => {
    const offered = await handshake(bridge.url, ['slop.bearer', 'tok']);
    assert.match(offered.error, /Server sent no subprotocol/);
    assert.deepEqual(bridge.subprotocols.at(-1), { offered: ['slop.bearer', 'tok'], selected: null, role: 'extension' });
    const base = `ws://127.0.0.1:${bridge.port}`;
    for (const p of ['/slop-bridge', '/', '/anything?x=1']) {
      assert.deepEqual(await handshake(`${base}${p}`, [], { origin: 'https://evil.example' }), { protocol: '' }, p);
    }
  });

  test('a request that is not a WebSocket upgrade gets no HTTP answer: the connection is just closed', async () => {
    const httpUrl = bridge.url.replace('ws:', 'http:');
    await assert.rejects(fetch(httpUrl), (err) => err instanceof TypeError && err.cause?.code === 'UND_ERR_SOCKET');
    await assert.rejects(fetch(httpUrl.replace('/slop-bridge', '/other')), TypeError);
    assert.equal(await rawExchange(bridge.port, 'GET /slop-bridge HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'), '');
    assert.equal(await rawExchange(bridge.port, 'hello there\r\n\r\n'), '');
    const upgradeV8 = 'GET /slop-bridge HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
      'Sec-WebSocket-Version: 8\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';
    assert.equal(await rawExchange(bridge.port, upgradeV8), '', 'a failed handshake is not answered either');
    assert.deepEqual(bridge.refusals.map((r) => r.reason), ['not-upgrade', 'not-upgrade', 'not-upgrade', 'handshake'], 'the garbage one never became a request');
    assert.equal(bridge.connections, 0);
  });

  test('its five message types go to every client, the sender included, whatever their fields; binary ignored', async () => {
    const ext = await dialKind(bridge.url);
    const c = await consumer();
    const key = '3:postmessage';
    send(ext, available(3));
    assert.deepEqual(await c.waitFor((f) => f.type === 'provider-available'), available(3));
    const r = c.relay(key);
    r.open();
    r.send({ type: 'connect' });
    await frame(ext, (f) => f.type === 'slop-relay');
    send(ext, { type: 'slop-relay', providerKey: key, message: { type: 'hello' } });
    send(ext, { type: 'slop-relay' }); // passed on all the same
    await c.waitFor((f) => f.type === 'slop-relay' && !('message' in f));
    r.close();
    await frame(ext, (f) => f.type === 'relay-close');
    send(ext, { type: 'provider-unavailable' });
    send(ext, { type: 'hello-world' });
    send(ext, 'not json');
    ext.send(Buffer.from(JSON.stringify({ type: 'relay-open', providerKey: 'binary' })), { binary: true });
    const [extGot, cGot] = await upToSentinel([ext, c.ws], ext, 5, [0, 0]);
    const expected = ['provider-available', 'relay-open', 'relay connect', 'relay hello', 'relay undefined', 'relay-close', 'provider-unavailable'];
    assert.deepEqual(extGot.map((f) => (f.type === 'slop-relay' ? `relay ${f.message?.type}` : f.type)), expected);
    assert.deepEqual(cGot, extGot);
    assert.deepEqual(bridge.received.map((m) => m.type), ['provider-available', 'slop-relay', 'slop-relay', 'provider-unavailable', 'hello-world', '<bad json>', 'relay-open', 'provider-unavailable'],
      'the fixture records what the extension sent, the binary one too');
  });

  test('re-serialised as serde_json writes a Value: keys sorted, 64-bit integers exact, floats Rust-style; too deep or lone surrogates refused', async () => {
    const ext = await dialKind(bridge.url);
    send(ext, '{"type":"slop-relay","providerKey":"k","message":{"b":1.50,"a":12345678901234567890,"z":-0,"f":1.0,"e":1e21,"s":1e-7,"n":-9223372036854775808,"dup":1,"dup":2,"u":"<é\\u2028>"}}');
    await frame(ext, (f) => f.type === 'slop-relay');
    assert.equal(ext.texts[0], '{"message":{"a":12345678901234567890,"b":1.5,"dup":2,"e":1e21,"f":1.0,"n":-9223372036854775808,"s":1e-7,"u":"<é\u2028>","z":-0.0},"providerKey":"k","type":"slop-relay"}');
    const deep = (n) => `{"type":"relay-open","providerKey":"d","x":${'['.repeat(n - 1)}${']'.repeat(n - 1)}}`;
    send(ext, deep(127));
    send(ext, deep(128));
    send(ext, '{"type":"relay-open","providerKey":"s","x":"\\ud800"}');
    send(ext, '{"type":"relay-open","providerKey":"big","x":1e400}');
    const [got] = await upToSentinel([ext], ext, 6, [1]);
    assert.deepEqual(got.map((f) => f.providerKey), ['d'], 'only the one 127 deep');
  });

  test('providers: stored the first time only, if postmessage (or no transport) or ws with a url; replayed as the app keeps them', async () => {
    const ext = await dialKind(bridge.url);
    send(ext, available(1, { extra: 'dropped' }));
    send(ext, available(1, { provider: { id: 'p1b', name: 'Again', transport: 'postmessage' } })); // ignored: known
    send(ext, { type: 'provider-available', tabId: 2.0, providerKey: '2:none', provider: {} });
    send(ext, { type: 'provider-available', tabId: 3, providerKey: '3:ws', provider: { id: 'w', name: 'W', transport: 'ws', url: 'ws://x.test/slop' } });
    send(ext, { type: 'provider-available', tabId: 4, providerKey: '4:ws-no-url', provider: { transport: 'ws' } });
    send(ext, { type: 'provider-available', tabId: 5, providerKey: '5:odd', provider: { transport: 'stdio' } });
    send(ext, { type: 'provider-available', tabId: 6, providerKey: '6:no-provider' });
    send(ext, '{"type":"provider-available","tabId":2.0,"providerKey":"7:float-tab","provider":{"id":"x"}}');
    await upToSentinel([ext], ext, 7, [0]);
    const late = await dialKind(bridge.url);
    await frame(late, (f) => f.providerKey === '7:float-tab');
    assert.deepEqual(late.texts, [
      '{"provider":{"id":"1:postmessage","name":"P1","transport":"postmessage"},"providerKey":"1:postmessage","tabId":1,"type":"provider-available"}',
      '{"provider":{"id":"2:none","name":"Browser Tab","transport":"postmessage"},"providerKey":"2:none","tabId":2,"type":"provider-available"}',
      '{"provider":{"id":"3:ws","name":"W","transport":"ws","url":"ws://x.test/slop"},"providerKey":"3:ws","tabId":3,"type":"provider-available"}',
      '{"provider":{"id":"7:float-tab","name":"Browser Tab","transport":"postmessage"},"providerKey":"7:float-tab","tabId":0,"type":"provider-available"}',
    ]);
    assert.deepEqual([...bridge.providers.keys()], ['1:postmessage', '2:none', '3:ws', '7:float-tab']);
  });

  test('the last client leaving ends the in-process subscriptions, the providers stay; provider-unavailable ends its own', async () => {
    const ext = await dialKind(bridge.url);
    const c = await consumer();
    send(ext, available(5));
    send(ext, available(6));
    await c.waitFor((f) => f.providerKey === '6:postmessage');
    const r5 = bridge.local('5:postmessage', { connect: false });
    const r6 = bridge.local('6:postmessage', { connect: false });
    await r5.open();
    await r6.open();
    send(c.ws, { type: 'provider-unavailable', tabId: 6, providerKey: '6:postmessage' }); // from any client
    await waitUntil(() => r6.ended, 'r6 ended');
    ext.terminate();
    await waitUntil(() => !bridge.connected, 'the extension gone');
    assert.equal(r5.subscribed, true, 'a client is still there');
    await c.drop();
    await waitUntil(() => r5.ended, 'r5 ended with the last client');
    assert.deepEqual([...bridge.providers.keys()], ['5:postmessage'], 'the provider stays listed');
    const late = await dialKind(bridge.url);
    await frame(late, (f) => f.providerKey === '5:postmessage');
  });

  test('in-process consumer: fails with no client; relay-open then one connect, no retry; any client\'s slop-relay reaches it', async () => {
    assert.throws(() => bridge.local('8:postmessage').open(), /No extension bridge is connected/);
    const ext = await dialKind(bridge.url);
    const c = await consumer();
    const r = bridge.local('8:postmessage');
    await r.open();
    await new Promise((res) => setTimeout(res, 700)); // longer than the ts kind's retries
    const [got, cGot] = await upToSentinel([ext, c.ws], ext, 8, [0, 0]);
    assert.deepEqual(got.map((f) => (f.type === 'slop-relay' ? `relay ${f.message.type}` : f.type)), ['relay-open', 'relay connect']);
    assert.deepEqual(cGot, got);
    c.relay('8:postmessage').send({ type: 'hello', provider: { id: 'p8' } });
    assert.deepEqual(await r.next((m) => m.type === 'hello'), { type: 'hello', provider: { id: 'p8' } });
    r.send({ type: 'invoke', id: 'i1', path: '/x', action: 'go', params: { n: 1.5, k: 0 } });
    await frame(ext, (f) => f.message?.type === 'invoke');
    assert.equal(ext.texts.at(-1), '{"message":{"action":"go","id":"i1","params":{"k":0,"n":1.5},"path":"/x","type":"invoke"},"providerKey":"8:postmessage","type":"slop-relay"}');
    r.close();
    await frame(ext, (f) => f.type === 'relay-close');
    const quiet = bridge.local('9:postmessage', { connect: false });
    await quiet.open();
    const [after] = await upToSentinel([ext], ext, 9, [ext.frames.length]);
    assert.deepEqual(after.map((f) => f.type), ['relay-open']);
  });

  test('desktop consumers are clients like the extension; inject reaches only extension connections', async () => {
    const ext = await dialKind(bridge.url);
    const [a, b] = [await consumer(), await consumer()];
    assert.equal(bridge.clients, 3);
    assert.deepEqual(bridge.subprotocols.slice(-2).map((s) => s.role), ['consumer', 'consumer']);
    const before = bridge.connections;
    await b.drop();
    await waitUntil(() => bridge.clients === 2, 'b gone');
    assert.equal(bridge.connections, before, 'consumers are not counted');
    a.send({ type: 'relay-open', providerKey: 'k' });
    await frame(ext, (f) => f.type === 'relay-open');
    bridge.inject('{"type":"anything"}');
    await frame(ext, (f) => f.type === 'anything');
    await a.waitFor((f) => f.type === 'relay-open');
    assert.ok(!a.frames.some((f) => f.type === 'anything'));
    assert.deepEqual(bridge.received, [], 'consumers\' messages are not recorded');
  });
});

for (const kind of ['ts', 'go', 'rust']) {
  test(`kind ${kind}: stop() then start() is the process killed and started again: same port, empty state`, async () => {
    const bridge = await startDesktopBridge({ kind });
    try {
      const { port } = bridge;
      const ext = await dialKind(bridge.url);
      const c = kind === 'go' ? null : await bridge.consumer();
      send(ext, available(1));
      await bridge.waitFor((m) => m.type === 'provider-available');
      await waitUntil(() => bridge.providers.size === 1, 'stored');
      const r = bridge.local('1:postmessage', { connect: false });
      await r.open();
      const closed = once(ext, 'close');
      await bridge.stop();
      assert.equal((await closed)[0], 1006, 'cut, no close frame');
      if (c) assert.equal(c.open, false);
      assert.equal(bridge.connected, false);
      assert.equal(bridge.clients, 0);
      assert.equal(bridge.providers.size, 0);
      assert.equal(bridge.received.length, 1, 'the records are kept');
      await assert.rejects(fetch(bridge.url.replace('ws:', 'http:')), TypeError); // nobody there
      assert.throws(() => r.send({ type: 'query' }), /went away with the stopped process/);
      r.close(); // nothing to close: no throw

      await bridge.start();
      assert.equal(bridge.port, port);
      const again = await dialKind(bridge.url);
      await bridge.waitForConnection();
      const [got] = await upToSentinel([again], again, 10, [0]);
      assert.deepEqual(got, [], 'nothing to replay');
      assert.equal(bridge.connections, 2);
    } finally {
      await closeAll();
      await bridge.close();
    }
    await assert.rejects(bridge.start(), /after close/);
  });
}

test('startDesktopBridge: kinds and modes', async () => {
  await assert.rejects(startDesktopBridge({ mode: 'pairless' }), /mode must be 'paired'.*kind: 'ts', 'go' or 'rust'/);
  await assert.rejects(startDesktopBridge({ kind: 'java' }), /kind must be 'ts', 'go', 'rust' or 'app'/);
  await assert.rejects(startDesktopBridge({ kind: 'ts', mode: 'paired' }), /kind or mode, not both/);
  const old = await startDesktopBridge({ mode: 'open' });
  try {
    assert.equal(old.kind, 'rust');
    assert.equal(old.mode, 'open');
    assert.equal(old.token, null);
  } finally {
    await old.close();
  }
  const paired = await startDesktopBridge();
  try {
    assert.equal(paired.mode, 'paired');
    assert.equal(paired.kind, undefined);
    await assert.rejects(paired.consumer(), /SLOP project's bridges.*relay\(\)/);
    assert.throws(() => paired.inject('x'), /SLOP project's bridges/);
    assert.throws(() => paired.local('k'), /SLOP project's bridges/);
  } finally {
    await paired.close();
  }
});
