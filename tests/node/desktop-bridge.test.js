// The desktop bridge's connection logic and message habits outside the browser
// (extension/service-worker/desktop-bridge.js takes everything it needs through `host`): the
// pairing as a browser sees it (a socket whose answers the test gives, a bridge side run with
// js-glue/bridge-pairing.js), the retry pace, the withdrawal when sharing stops, an oversized
// request, and, against a bridge that sends every message to every client (the TypeScript
// server's emulation in tests/fixtures/desktop-bridge.mjs), that the extension's own messages
// coming back are ignored and never answered.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { WebSocket } from 'ws';
import { DesktopBridge, RETRY_CAP_MS } from '../../extension/service-worker/desktop-bridge.js';
import { BridgePairing, newPairingCode, normalizeCode } from '../../js-glue/bridge-pairing.js';
import { startDesktopBridge } from '../fixtures/desktop-bridge.mjs';
import { loadCore } from './helpers.js';
import { FakeSocket, settle, waitUntil } from './bridge-kit.js';



/** A port nobody listens on. */
async function deadUrl() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return `ws://127.0.0.1:${port}/slop-bridge`;
}


/** The bridge's side of a pairing on a FakeSocket: what `slop-inspector bridge` does. */
function bridgeSide(sock, code) {
  const side = { outcome: null, seen: 0 };
  const pairing = new BridgePairing(normalizeCode(code), (text) => sock.deliver(text), (o) => { side.outcome = o; });
  side.pump = async () => {
    while (side.seen < sock.sent.length) await pairing.receive(JSON.parse(sock.sent[side.seen++]));
  };
  return side;
}

const PM = {
  tabId: 3, key: 'postmessage', isPostMessage: true, status: 'connected', disposed: false, wire: {},
  provider: { id: 'todo', name: 'Todo' }, pageUrl: 'http://app.test/', consumer: null, primarySub: null,
  page: { send: () => {} },
};

function fakeHost(core, connections = [PM]) {
  const published = [];
  return { published, host: { core: () => core, connections: () => connections, publish: (st) => published.push(st), WebSocket: FakeSocket, pairTimeoutMs: 150 } };
}

describe('desktop bridge: paired means the bridge proved the code', () => {
  let core, url;
  const code = newPairingCode();
  before(async () => {
    core = await loadCore();
    url = await deadUrl();
  });

  test('it dials bare, and pairs by proof: the bridge proves first, nothing is announced before pair-ok, the code never crosses the wire', async () => {
    FakeSocket.made.length = 0;
    const { host } = fakeHost(core);
    const b = new DesktopBridge(host);
    b.configure({ enabled: true, url, token: normalizeCode(code), allowUnpaired: false });
    const sock = FakeSocket.made[0];
    assert.deepEqual(sock.offered, [], 'no subprotocol offered: nothing secret in the handshake');
    sock.accept();
    assert.equal(b.state, 'connecting');
    assert.match(b.message, /Pairing with the bridge/);
    assert.equal(sock.messages.length, 1);
    assert.equal(sock.messages[0].type, 'pair-challenge');
    const side = bridgeSide(sock, code);
    await side.pump(); // the bridge's proof goes back; the browser checks it and proves itself
    await waitUntil(() => sock.sent.length === 2, 'the browser\'s proof');
    assert.equal(sock.messages[1].type, 'pair-proof');
    assert.equal(b.state, 'connecting', 'not before the bridge confirmed');
    await side.pump();
    assert.equal(side.outcome, 'paired');
    await waitUntil(() => b.state === 'connected', 'connected');
    assert.equal(b.status().mode, 'paired');
    assert.match(b.status().message, /paired: the bridge proved it knows your pairing code/);
    assert.deepEqual(sock.messages.slice(2).map((m) => m.type), ['provider-available']);
    const wire = sock.sent.join('\n');
    assert.ok(!wire.includes(normalizeCode(code)) && !wire.includes(code), 'the code is nowhere on the wire');
    b.configure({ enabled: false, url });
  });

  test('a bridge that echoes slop.bearer but proves nothing is unpaired: refused unless allowed, never sent a provider', async () => {
    for (const allowUnpaired of [false, true]) {
      FakeSocket.made.length = 0;
      const { host } = fakeHost(core);
      const b = new DesktopBridge(host);
      b.configure({ enabled: true, url, token: normalizeCode(code), allowUnpaired });
      const sock = FakeSocket.made[0];
      sock.accept('slop.bearer'); // what the TypeScript server would select, had anything been offered
      // Their server replays another browser's providers at once; that is not a proof.
      sock.deliver({ type: 'provider-available', tabId: 1, providerKey: '1:postmessage', provider: { id: 'x', name: 'X', transport: 'postmessage' } });
      sock.deliver({ type: 'pair-ok', version: 1 }); // out of turn: proves nothing
      assert.equal(b.state, 'connecting');
      await waitUntil(() => b.state !== 'connecting', 'the pairing time limit');
      if (!allowUnpaired) {
        assert.equal(b.state, 'no-pairing');
        assert.match(b.message, /did not prove a pairing code \(the bridge did not answer the pairing challenge within 0\.2 s\); allow unpaired bridges/);
        assert.equal(b.retryAt, null);
        assert.equal(FakeSocket.made.length, 1, 'not dialled again by itself');
      } else {
        assert.equal(b.state, 'connected');
        assert.equal(b.status().mode, 'unpaired');
        assert.match(b.message, /without pairing: any program on this computer/);
      }
      const types = sock.messages.map((m) => m.type);
      assert.deepEqual(types, allowUnpaired ? ['pair-challenge', 'provider-available'] : ['pair-challenge']);
      b.configure({ enabled: false, url });
    }
  });

  test('a token saved before pairing codes is said to be none, and nothing is dialled', () => {
    FakeSocket.made.length = 0;
    const { host } = fakeHost(core);
    const b = new DesktopBridge(host);
    b.configure({ enabled: true, url, token: 'a'.repeat(32), allowUnpaired: false });
    assert.equal(b.state, 'no-token');
    assert.match(b.message, /what is saved is neither a pairing code nor the SLOP desktop app’s token/);
    assert.equal(FakeSocket.made.length, 0);
    b.configure({ enabled: false, url });
  });

  test('a bridge with another code: its proof fails, the browser never proves itself, nothing is shared and it is not dialled again', async () => {
    FakeSocket.made.length = 0;
    const { host } = fakeHost(core);
    const b = new DesktopBridge(host);
    b.configure({ enabled: true, url, token: normalizeCode(code), allowUnpaired: true });
    const sock = FakeSocket.made[0];
    sock.accept();
    await bridgeSide(sock, newPairingCode()).pump();
    await waitUntil(() => b.state === 'refused', 'refused');
    assert.match(b.message, /could not prove your pairing code \(the bridge’s proof does not match this pairing code\)/);
    assert.deepEqual(sock.messages.map((m) => m.type), ['pair-challenge'], 'no proof of ours to a bridge that failed its own');
    assert.equal(b.retryAt, null);
    await settle(300);
    assert.equal(FakeSocket.made.length, 1);
    // A replayed proof from an earlier connection does not pass either: the nonce is new.
    b.retry();
    const again = FakeSocket.made[1];
    again.accept();
    const replay = JSON.parse(sock.sent[0]);
    assert.notEqual(JSON.parse(again.sent[0]).nonce, replay.nonce, 'a fresh nonce per connection');
    b.configure({ enabled: false, url });
  });

  test('a bridge that refuses our proof (it has another code) is said so', async () => {
    FakeSocket.made.length = 0;
    const { host } = fakeHost(core);
    const b = new DesktopBridge(host);
    b.configure({ enabled: true, url, token: normalizeCode(code), allowUnpaired: false });
    const sock = FakeSocket.made[0];
    sock.accept();
    sock.deliver({ type: 'pair-refused', version: 1, reason: 'no' });
    await waitUntil(() => b.state === 'refused', 'refused');
    assert.match(b.message, /has another pairing code/);
    b.configure({ enabled: false, url });
  });

  test('nothing listening: dialled again after 1 s, doubling to 5 s, with or without a code', async () => {
    for (const token of [null, normalizeCode(code)]) {
      FakeSocket.made.length = 0;
      const { host } = fakeHost(core);
      const b = new DesktopBridge(host);
      b.configure({ enabled: true, url, token, allowUnpaired: true });
      const t0 = Date.now();
      FakeSocket.made[0].fail();
      assert.equal(b.state, 'retrying');
      assert.match(b.message, /No desktop bridge answers at .* \(nothing listening there, or it refused a WebSocket\)/);
      assert.ok(b.retryAt >= t0 + 500 && b.retryAt <= Date.now() + 1000, `first wait at most 1 s (${b.retryAt - t0})`);
      b.configure({ enabled: false, url });
    }
    assert.equal(RETRY_CAP_MS, 5000);
  });

  test('sharing turned off: every announced provider is withdrawn before the socket closes', async () => {
    FakeSocket.made.length = 0;
    const ws = { ...PM, key: 'ws://p.test/slop', isPostMessage: false, transport: { url: 'ws://p.test/slop' }, provider: { id: 'mail', name: 'Mail' } };
    const { host } = fakeHost(core, [PM, ws]);
    const b = new DesktopBridge(host);
    b.configure({ enabled: true, url, token: null, allowUnpaired: true });
    const sock = FakeSocket.made[0];
    sock.accept();
    assert.equal(b.state, 'connected');
    assert.deepEqual(sock.messages.map((m) => m.type), ['provider-available', 'provider-available']);
    b.configure({ enabled: false, url });
    assert.deepEqual(sock.messages.slice(2), [
      { type: 'provider-unavailable', tabId: 3, providerKey: '3:postmessage' },
      { type: 'provider-unavailable', tabId: 3, providerKey: '3:ws://p.test/slop' },
    ]);
    assert.equal(sock.readyState, 3);
    assert.equal(b.state, 'off');
  });

  test('a desktop request over 1 MiB is answered with an error that names it, with its id', async () => {
    FakeSocket.made.length = 0;
    const { host } = fakeHost(core);
    const b = new DesktopBridge(host);
    b.configure({ enabled: true, url, token: null, allowUnpaired: true });
    const sock = FakeSocket.made[0];
    sock.accept();
    const pad = 'x'.repeat(1.5 * 1024 * 1024);
    sock.deliver({ type: 'slop-relay', providerKey: '3:postmessage', message: { type: 'invoke', id: 'inv-big', path: '/', action: 'save', params: { pad } } });
    sock.deliver({ type: 'slop-relay', providerKey: '3:postmessage', message: { type: 'query', id: 'q-big', path: '/', pad } });
    const replies = sock.messages.filter((m) => m.type === 'slop-relay').map((m) => m.message);
    assert.equal(replies.length, 2);
    assert.deepEqual(replies[0], { type: 'result', id: 'inv-big', status: 'error', error: { code: 'too_large', message: "a request of 1536 KiB is over SLOP Inspector's 1 MiB limit for desktop requests: not relayed" } });
    assert.deepEqual({ ...replies[1], error: replies[1].error.code }, { type: 'error', id: 'q-big', error: 'too_large' });
    b.configure({ enabled: false, url });
  });
});

describe('desktop bridge against a bridge that sends everything to everyone', () => {
  let core, fixture, b, desk;
  const pageSent = [];
  const pm = {
    tabId: 7, key: 'postmessage', isPostMessage: true, status: 'connected', disposed: false, wire: {},
    provider: { id: 'todo', name: 'Todo' }, pageUrl: 'http://app.test/list', consumer: null, primarySub: null,
    page: { send: (m) => pageSent.push(m) },
  };
  const ws = {
    tabId: 7, key: 'ws://p.test/slop', isPostMessage: false, status: 'connected', disposed: false,
    provider: { id: 'mail', name: 'Mail' }, pageUrl: 'http://app.test/list', transport: { url: 'ws://p.test/slop' },
  };

  before(async () => {
    core = await loadCore();
    fixture = await startDesktopBridge({ kind: 'ts' });
    desk = await fixture.consumer();
    b = new DesktopBridge({ core: () => core, connections: () => [pm, ws], publish: () => {}, WebSocket });
    b.configure({ enabled: true, url: fixture.url, token: null, allowUnpaired: true });
    await waitUntil(() => b.state === 'connected', 'connected');
  });
  after(async () => {
    b?.configure({ enabled: false, url: fixture.url });
    await desk?.drop();
    await fixture?.close();
  });

  test('announced in their shapes; the relay works; its own messages come back and are ignored, never answered', async () => {
    await waitUntil(() => desk.providers.size === 2, 'both announced');
    assert.deepEqual(desk.providers.get('7:postmessage'), { type: 'provider-available', tabId: 7, providerKey: '7:postmessage', provider: { id: 'todo', name: 'Todo', transport: 'postmessage' } });
    assert.deepEqual(desk.providers.get('7:ws://p.test/slop').provider, { id: 'mail', name: 'Mail', transport: 'ws', url: 'ws://p.test/slop' });

    const r = desk.relay('7:postmessage');
    r.open();
    r.send({ type: 'connect' });
    await waitUntil(() => pageSent.length === 1, 'connect into the page');
    assert.deepEqual(pageSent, [{ type: 'connect' }]);
    b.pageFrame(pm, '{"type":"hello","provider":{"id":"todo","name":"Todo"}}');
    await r.next((m) => m.type === 'hello');
    r.send({ type: 'invoke', id: 'i1', path: '/x', action: 'go' }); // the mirror shows nothing: asked
    await waitUntil(() => b.status().approvals.length === 1, 'the approval');
    assert.equal(b.decide(b.status().approvals[0].id, false), true);
    const refused = await r.next((m) => m.type === 'result' && m.id === 'i1');
    assert.equal(refused.error.code, 'unauthorized');
    desk.send({ type: 'relay-open', providerKey: '7:ws://p.test/slop' });
    const notRelayed = await desk.relay('7:ws://p.test/slop').next((m) => m.type === 'error');
    assert.equal(notRelayed.error.code, 'not_supported');
    desk.send({ type: 'relay-open', providerKey: '99:another-browsers' });

    // Back to the extension came: 2 announcements, the hello, the refusal, the error; plus the
    // relay-open of a key it never announced. All ignored.
    await waitUntil(() => b.ignored >= 6, `6 ignored (${b.ignored})`);
    await settle(100);
    assert.deepEqual(fixture.received.map((m) => (m.type === 'slop-relay' ? `relay ${m.message.type}` : m.type)),
      ['provider-available', 'provider-available', 'relay hello', 'relay result', 'relay error'], 'nothing answered an echo');
    assert.equal(b.ignored, 6);
    assert.deepEqual(pageSent, [{ type: 'connect' }], 'no echo reached the page');
    assert.equal(b.state, 'connected');
  });

  test('after relay-close, its own frames still on the way do not open it again', async () => {
    const r = desk.relay('7:postmessage');
    r.close();
    await waitUntil(() => !b.relays.has('7:postmessage'), 'closed');
    const before = b.ignored;
    // A provider frame sent while the relay was open comes back after it closed.
    desk.send({ type: 'slop-relay', providerKey: '7:postmessage', message: { type: 'patch', subscription: 's', version: 2, ops: [] } });
    await waitUntil(() => b.ignored > before, 'ignored');
    assert.equal(b.relays.has('7:postmessage'), false);
    // A consumer request without relay-open opens it, as before.
    r.send({ type: 'query', id: 'q1', path: '/' });
    await waitUntil(() => b.relays.has('7:postmessage'), 'opened by a request');
    assert.match(pageSent.at(-1).id, /^b[0-9a-z]+~q1$/);
  });
});
