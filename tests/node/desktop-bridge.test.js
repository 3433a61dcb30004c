// The desktop bridge's connection logic and message habits outside the browser
// (extension/service-worker/desktop-bridge.js takes everything it needs through `host`):
// handshakes as Firefox sees them (a socket whose answer the test chooses), the retry pace of each
// mode, and, against the open fixture (tests/fixtures/desktop-bridge.mjs, mode 'open'), that the
// extension's own messages coming back are ignored and never answered.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { WebSocket } from 'ws';
import { DesktopBridge, UNPAIRED_RETRY_MS } from '../../extension/service-worker/desktop-bridge.js';
import { startDesktopBridge } from '../fixtures/desktop-bridge.mjs';
import { loadCore } from './helpers.js';

const settle = (ms = 20) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(fn, what, timeout = 5000) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    const v = fn();
    if (v) return v;
    await settle(10);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A port nobody listens on: the fetch probe (serverAnswers) finds nobody there. */
async function deadUrl() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return `ws://127.0.0.1:${port}/slop-bridge`;
}

/** A browser WebSocket whose handshake answer the test gives: accept(protocol) or fail(). */
class FakeSocket {
  static made = [];
  constructor(url, protocols) {
    this.url = url;
    this.offered = protocols === undefined ? [] : [protocols].flat();
    this.protocol = '';
    this.readyState = 0;
    this.sent = [];
    FakeSocket.made.push(this);
  }
  send(text) { this.sent.push(text); }
  close() { this.readyState = 3; }
  accept(protocol) {
    this.protocol = protocol;
    this.readyState = 1;
    this.onopen?.();
  }
  fail(code = 1006) {
    this.readyState = 3;
    this.onclose?.({ code });
  }
}

function fakeHost(core, connections = []) {
  const published = [];
  return { published, host: { core: () => core, connections: () => connections, publish: (st) => published.push(st), WebSocket: FakeSocket } };
}

describe('desktop bridge, handshakes as a browser sees them', () => {
  let core, url;
  before(async () => {
    core = await loadCore();
    url = await deadUrl();
  });

  test('Firefox opens a bridge that selects nothing: "does not pair" until allowed, then a bare connection', async () => {
    FakeSocket.made.length = 0;
    const { host } = fakeHost(core);
    const b = new DesktopBridge(host);
    b.configure({ enabled: true, url, token: 'pairing-token-1', allowUnpaired: false });
    assert.deepEqual(FakeSocket.made[0].offered, ['slop.bearer', 'pairing-token-1']);
    FakeSocket.made[0].accept('');
    assert.equal(b.state, 'no-pairing');
    assert.equal(b.status().message, 'This bridge does not pair; allow unpaired bridges in Options to use it. Nothing is shared.');
    assert.equal(b.retryAt, null);
    assert.equal(FakeSocket.made.length, 1, 'not dialled again by itself');
    assert.deepEqual(FakeSocket.made[0].sent, [], 'nothing sent to it');

    b.configure({ enabled: true, url, token: 'pairing-token-1', allowUnpaired: true });
    FakeSocket.made[1].accept(''); // offered the token again, again nothing selected
    assert.deepEqual(FakeSocket.made[2].offered, [], 'then bare');
    FakeSocket.made[2].accept('');
    assert.equal(b.state, 'connected');
    assert.equal(b.status().mode, 'unpaired');
    assert.match(b.status().message, /without pairing: any program on this computer/);

    // The unpaired switch turned off closes it; a paired connection would not care.
    b.configure({ enabled: true, url, token: 'pairing-token-1', allowUnpaired: false });
    assert.notEqual(b.state, 'connected');
    FakeSocket.made.at(-1).accept('slop.bearer');
    assert.equal(b.status().mode, 'paired');
    const sockets = FakeSocket.made.length;
    b.configure({ enabled: true, url, token: 'pairing-token-1', allowUnpaired: true });
    assert.equal(b.state, 'connected');
    assert.equal(FakeSocket.made.length, sockets, 'a paired connection stays up');
    b.configure({ enabled: false, url });
  });

  test('a bridge that selects another subprotocol, or echoes the token, is refused without saying the token', () => {
    for (const answer of ['other', 'pairing-token-2']) {
      FakeSocket.made.length = 0;
      const { host } = fakeHost(core);
      const b = new DesktopBridge(host);
      b.configure({ enabled: true, url, token: 'pairing-token-2', allowUnpaired: true });
      FakeSocket.made[0].accept(answer);
      assert.equal(b.state, 'not-bridge');
      assert.match(b.message, /subprotocol other than slop\.bearer/);
      assert.ok(!JSON.stringify(b.status()).includes('pairing-token-2'));
      assert.equal(FakeSocket.made.length, 1);
      b.configure({ enabled: false, url });
    }
  });

  test('no bridge there: unpaired dialling retries every 5 s, paired backs off from 1 s', async () => {
    FakeSocket.made.length = 0;
    const { host } = fakeHost(core);
    const b = new DesktopBridge(host);
    b.configure({ enabled: true, url, token: null, allowUnpaired: true });
    assert.deepEqual(FakeSocket.made[0].offered, [], 'no token: a bare WebSocket');
    let t0 = Date.now();
    FakeSocket.made[0].fail();
    await waitUntil(() => b.state === 'retrying', 'retrying');
    let t1 = Date.now();
    assert.ok(b.retryAt >= t0 + UNPAIRED_RETRY_MS && b.retryAt <= t1 + UNPAIRED_RETRY_MS, `5 s (${b.retryAt - t0})`);
    assert.equal(UNPAIRED_RETRY_MS, 5000);

    b.configure({ enabled: true, url, token: 'pairing-token-3', allowUnpaired: true });
    t0 = Date.now();
    FakeSocket.made.at(-1).fail();
    await waitUntil(() => b.state === 'retrying', 'retrying paired');
    t1 = Date.now();
    assert.ok(b.retryAt >= t0 + 500 && b.retryAt <= t1 + 1000, `the first paired step is at most 1 s (${b.retryAt - t0})`);
    b.configure({ enabled: false, url });
    assert.equal(b.state, 'off');
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
    fixture = await startDesktopBridge({ mode: 'open' });
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
    await waitUntil(() => b.approvals.size === 1, 'the approval');
    assert.equal(b.decide([...b.approvals.keys()][0], false), true);
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
