// The desktop bridge with the SLOP desktop app's token, and the bridge's refusals, as the worker
// (extension/service-worker/desktop-bridge.js) lives them on sockets whose answers the test gives:
// the token is offered only after a refused bare dial, used only when exactly slop.bearer was
// selected, never shown; a refused token stops the loop; bridge-error not_paired means nothing
// is shared; a relayed ask names the agent the bridge says sent it.

import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { DesktopBridge, agentOf } from '../../extension/service-worker/desktop-bridge.js';
import { loadCore } from './helpers.js';
import { FakeSocket, settle } from './bridge-kit.js';



const PM = {
  tabId: 3, key: 'postmessage', isPostMessage: true, status: 'connected', disposed: false, wire: {},
  provider: { id: 'todo', name: 'Todo' }, pageUrl: 'http://app.test/', consumer: null, primarySub: null,
  page: { sent: [], send(m) { this.sent.push(m); } },
};

function fakeHost(core) {
  const published = [];
  return { published, host: { core: () => core, connections: () => [PM], publish: (st) => published.push(st), WebSocket: FakeSocket, pairTimeoutMs: 150 } };
}

const URL_ = 'ws://127.0.0.1:9/slop-bridge';
const appToken = () => crypto.randomBytes(32).toString('base64url');

/** Nothing the person or the console may see holds the token. */
function assertNoToken(b, published, token) {
  assert.ok(!JSON.stringify(b.status()).includes(token), 'not in the status');
  assert.ok(!published.some((st) => JSON.stringify(st).includes(token)), 'never published');
}

describe('desktop bridge: the SLOP desktop app\'s token', () => {
  let core;
  before(async () => { core = await loadCore(); });

  test('bare first; refused there, the token dial; exactly slop.bearer selected: connected, "token checked", announced unconfirmed', async () => {
    FakeSocket.made.length = 0;
    const token = appToken();
    const { host, published } = fakeHost(core);
    const b = new DesktopBridge(host);
    b.configure({ enabled: true, url: URL_, token, allowUnpaired: false });
    const bare = FakeSocket.made[0];
    assert.deepEqual(bare.offered, [], 'the first dial is bare');
    bare.fail();
    await settle();
    assert.equal(FakeSocket.made.length, 2, 'dialled again at once, with the token');
    const withToken = FakeSocket.made[1];
    assert.deepEqual(withToken.offered, ['slop.bearer', token]);
    assert.match(b.message, /with the SLOP desktop app’s token \(it refused a plain connection\)/);
    withToken.accept('slop.bearer');
    assert.equal(b.state, 'connected');
    const st = b.status();
    assert.equal(st.mode, 'token');
    assert.equal(st.secret, 'app-token');
    assert.equal(st.sharing, 'unconfirmed', 'the app never confirms an announcement');
    assert.match(st.message, /token checked by the bridge when it connected/);
    assert.deepEqual(withToken.messages.map((m) => m.type), ['provider-available'], 'no pairing challenge, the announcement');
    assertNoToken(b, published, token);
    b.configure({ enabled: false, url: URL_ });
  });

  test('a bridge that accepts the bare dial never gets the token: unpaired if allowed, else nothing', async () => {
    for (const allowUnpaired of [false, true]) {
      FakeSocket.made.length = 0;
      const token = appToken();
      const { host, published } = fakeHost(core);
      const b = new DesktopBridge(host);
      b.configure({ enabled: true, url: URL_, token, allowUnpaired });
      FakeSocket.made[0].accept('');
      await settle();
      assert.equal(FakeSocket.made.length, 1, 'no second dial');
      assert.deepEqual(FakeSocket.made[0].offered, []);
      assert.ok(!FakeSocket.made[0].sent.join('').includes(token), 'nothing sent holds the token');
      if (allowUnpaired) {
        assert.deepEqual([b.state, b.status().mode, b.status().sharing], ['connected', 'unpaired', 'unconfirmed']);
      } else {
        assert.equal(b.state, 'no-pairing');
        assert.match(b.message, /not given the desktop app's token/);
        assert.equal(FakeSocket.made[0].sent.length, 0);
      }
      assertNoToken(b, published, token);
      b.configure({ enabled: false, url: URL_ });
    }
  });

  test('a token dial that fails stops the loop and asks for the token, saying what a browser can tell', async () => {
    FakeSocket.made.length = 0;
    const token = appToken();
    const { host, published } = fakeHost(core);
    const b = new DesktopBridge(host);
    b.configure({ enabled: true, url: URL_, token, allowUnpaired: true });
    FakeSocket.made[0].fail();
    await settle();
    FakeSocket.made[1].fail();
    await settle();
    assert.equal(b.state, 'token-refused');
    assert.equal(b.retryAt, null);
    assert.match(b.message, /the app refused this token .* or nothing listens there \(a browser cannot tell the two apart\)/);
    assert.match(b.message, /Paste the app’s current token/);
    await settle(1200);
    assert.equal(FakeSocket.made.length, 2, 'not dialled again by itself');
    b.retry();
    assert.equal(FakeSocket.made.length, 3, 'Retry starts over');
    assert.deepEqual(FakeSocket.made[2].offered, [], 'bare first again');
    assertNoToken(b, published, token);
    b.configure({ enabled: false, url: URL_ });
  });

  test('a token dial that opens without selecting exactly slop.bearer is closed and said so', async () => {
    for (const selected of ['', 'other']) {
      FakeSocket.made.length = 0;
      const token = appToken();
      const { host, published } = fakeHost(core);
      const b = new DesktopBridge(host);
      b.configure({ enabled: true, url: URL_, token, allowUnpaired: true });
      FakeSocket.made[0].fail();
      await settle();
      FakeSocket.made[1].accept(selected);
      await settle();
      assert.equal(b.state, 'token-refused');
      assert.match(b.message, selected ? /selected another subprotocol instead of exactly slop.bearer: closed/ : /selected no subprotocol instead of exactly slop.bearer: closed/);
      assert.equal(FakeSocket.made[1].closedWith, 4001);
      assert.equal(FakeSocket.made[1].sent.length, 0, 'nothing announced');
      assertNoToken(b, published, token);
      b.configure({ enabled: false, url: URL_ });
    }
  });
});

describe('desktop bridge: the bridge\'s refusals', () => {
  let core;
  before(async () => { core = await loadCore(); });

  test('bridge-error not_paired: nothing counts as shared, the connection closes, the state says the bridge asks for pairing', async () => {
    FakeSocket.made.length = 0;
    const { host } = fakeHost(core);
    const b = new DesktopBridge(host);
    b.configure({ enabled: true, url: URL_, token: null, allowUnpaired: true });
    const sock = FakeSocket.made[0];
    sock.accept('');
    assert.equal(b.status().shared.length, 1, 'announced');
    sock.deliver({ type: 'bridge-error', error: { code: 'not_paired', message: 'only a paired browser may send provider-available' } });
    assert.equal(b.state, 'wants-pairing');
    assert.match(b.message, /This bridge asks for pairing: paste the code it printed/);
    assert.deepEqual(b.status().shared, []);
    assert.equal(b.status().sharing, null);
    assert.equal(sock.readyState, 3, 'closed');
    assert.deepEqual(sock.messages.map((m) => m.type), ['provider-available'], 'no withdrawal to a bridge that took nothing');
    await settle(1200);
    assert.equal(FakeSocket.made.length, 1, 'not dialled again by itself');
    b.configure({ enabled: false, url: URL_ });
  });

  test('another bridge-error is said in the status, in one short line and without the saved secret', async () => {
    FakeSocket.made.length = 0;
    const token = appToken();
    const { host } = fakeHost(core);
    const b = new DesktopBridge(host);
    b.configure({ enabled: true, url: URL_, token, allowUnpaired: false });
    FakeSocket.made[0].fail();
    await settle();
    FakeSocket.made[1].accept('slop.bearer');
    FakeSocket.made[1].deliver({ type: 'bridge-error', error: { code: 'too_large', message: `nope ${token}\n${'x'.repeat(400)}` } });
    const st = b.status();
    assert.equal(st.state, 'connected');
    assert.match(st.note, /^The bridge refused a message \(too_large\): nope •••• x+…\.$/);
    assert.ok(st.note.length < 260);
    assert.ok(!JSON.stringify(st).includes(token));
    b.configure({ enabled: false, url: URL_ });
  });

  test('a dangerous ask names the agent the bridge says sent it; without one it names none', async () => {
    FakeSocket.made.length = 0;
    const { host } = fakeHost(core);
    const b = new DesktopBridge(host);
    b.configure({ enabled: true, url: URL_, token: null, allowUnpaired: true });
    const sock = FakeSocket.made[0];
    sock.accept('');
    const key = '3:postmessage';
    sock.deliver({ type: 'relay-open', providerKey: key });
    sock.deliver({ type: 'slop-relay', providerKey: key, agent: { id: 'c2', name: 'claude-code\u0000 ' }, message: { type: 'invoke', id: 'i1', path: '/a', action: 'drop' } });
    sock.deliver({ type: 'slop-relay', providerKey: key, message: { type: 'invoke', id: 'i2', path: '/a', action: 'drop' } });
    const asks = b.status().approvals;
    assert.equal(asks.length, 2);
    assert.deepEqual(asks[0].agent, { id: 'c2', name: 'claude-code' });
    assert.equal(asks[1].agent, null);
    assert.equal(agentOf({ id: 7 })?.id, '7');
    assert.equal(agentOf('c1'), null);
    b.configure({ enabled: false, url: URL_ });
  });
});
