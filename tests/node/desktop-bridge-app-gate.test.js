// The fixture of the SLOP desktop app's newer upgrade gate (tests/fixtures/desktop-bridge.mjs,
// kind 'app'), checked against the facts in the notes; then the extension's bridge logic
// (extension/service-worker/desktop-bridge.js) dialling it over real sockets with Node's `ws`.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import crypto from 'node:crypto';
import { WebSocket } from 'ws';
import { startDesktopBridge } from '../fixtures/desktop-bridge.mjs';
import { DesktopBridge } from '../../extension/service-worker/desktop-bridge.js';
import { loadCore } from './helpers.js';
import { settle, waitUntil } from './bridge-kit.js';



/** An upgrade request with the given headers (arrays: repeated headers); resolves with the status (0: no answer). */
function upgradeStatus(port, headers) {
  return new Promise((resolve) => {
    const req = http.request({
      host: '127.0.0.1', port, path: '/slop-bridge',
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': crypto.randomBytes(16).toString('base64'), ...headers },
    });
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve({ status: 101, protocol: res.headers['sec-websocket-protocol'] ?? null }); });
    req.on('response', (res) => { res.resume(); resolve({ status: res.statusCode, protocol: null }); });
    req.on('error', () => resolve({ status: 0, protocol: null }));
    req.end();
  });
}

describe('fixture: the desktop app\'s newer upgrade gate (kind app)', () => {
  let bridge;
  before(async () => { bridge = await startDesktopBridge({ kind: 'app' }); });
  after(() => bridge.close());

  test('its token is as the app makes one: 43 characters of base64url', () => {
    assert.match(bridge.token, /^[A-Za-z0-9_-]{43}$/);
  });

  test('a plain request gets no HTTP answer; a web Origin 403; no or a wrong token 401', async () => {
    const plain = await new Promise((resolve) => {
      const req = http.get({ host: '127.0.0.1', port: bridge.port, path: '/slop-bridge' }, (res) => resolve(res.statusCode));
      req.on('error', () => resolve(0));
    });
    assert.equal(plain, 0, 'closed without a status line');
    const t = bridge.token;
    for (const origin of ['http://evil.test', 'https://evil.test', 'null']) {
      assert.equal((await upgradeStatus(bridge.port, { Origin: origin, 'Sec-WebSocket-Protocol': `slop.bearer, ${t}` })).status, 403, origin);
    }
    assert.equal((await upgradeStatus(bridge.port, {})).status, 401, 'no token');
    assert.equal((await upgradeStatus(bridge.port, { 'Sec-WebSocket-Protocol': 'slop.bearer' })).status, 401, 'the label alone');
    // The last character changed (to another one: a token that ends in A stays wrong with B).
    const wrong = `${t.slice(0, 42)}${t.endsWith('A') ? 'B' : 'A'}`;
    assert.equal((await upgradeStatus(bridge.port, { 'Sec-WebSocket-Protocol': `slop.bearer, ${wrong}` })).status, 401, 'a wrong token');
    assert.equal((await upgradeStatus(bridge.port, { 'Sec-WebSocket-Protocol': t })).status, 401, 'the token without the label');
    assert.deepEqual(bridge.refusals.map((r) => r.status).filter(Boolean), [403, 403, 403, 401, 401, 401, 401]);
  });

  test('the token with the label, in any order, in one header or repeated ones, from an extension origin or none: only slop.bearer selected', async () => {
    const t = bridge.token;
    for (const headers of [
      { 'Sec-WebSocket-Protocol': `slop.bearer, ${t}` },
      { 'Sec-WebSocket-Protocol': `${t}, slop.bearer` },
      { 'Sec-WebSocket-Protocol': ['slop.bearer', t] },
      { 'Sec-WebSocket-Protocol': [t, 'slop.bearer'], Origin: 'chrome-extension://abcdefghijklmnop' },
      { 'Sec-WebSocket-Protocol': `slop.bearer, ${t}`, Origin: 'moz-extension://1234' },
    ]) {
      assert.deepEqual(await upgradeStatus(bridge.port, headers), { status: 101, protocol: 'slop.bearer' }, JSON.stringify(headers).replace(t, 'TOKEN'));
    }
    assert.ok(bridge.handshakes.every((h) => h.status !== 101 || h.protocols.includes(t)));
  });

  test('after the upgrade it is the rust kind: announcements echoed to everyone and replayed; a regenerated token closes every client', async () => {
    const ws = new WebSocket(bridge.url, ['slop.bearer', bridge.token]);
    await new Promise((r, j) => { ws.once('open', r); ws.once('error', j); });
    assert.equal(ws.protocol, 'slop.bearer');
    const got = [];
    ws.on('message', (d) => got.push(JSON.parse(d.toString())));
    ws.send(JSON.stringify({ type: 'provider-available', tabId: 4, providerKey: '4:postmessage', provider: { id: 'x', name: 'X', transport: 'postmessage' } }));
    await waitUntil(() => got.length === 1, 'the echo');
    assert.equal(got[0].providerKey, '4:postmessage');
    assert.ok(bridge.providers.has('4:postmessage'));
    const consumer = await bridge.consumer();
    await waitUntil(() => consumer.providers.has('4:postmessage'), 'the replay to a new client (it offered the token too)');
    assert.equal(consumer.providers.get('4:postmessage').provider.id, '4:postmessage', 'in the rust shape: id is the providerKey');
    const closed = new Promise((r) => ws.once('close', (code) => r(code)));
    bridge.setToken(crypto.randomBytes(32).toString('base64url'));
    assert.equal(await closed, 1000);
  });
});

describe('the extension\'s bridge logic against the gate, over real sockets', () => {
  let core;
  before(async () => { core = await loadCore(); });

  const host = (published = []) => ({ core: () => core, connections: () => [], publish: (st) => published.push(st), WebSocket, pairTimeoutMs: 200 });

  test('the right token: refused bare (401), then connected in mode token; the handshakes show the bare dial first', async () => {
    const bridge = await startDesktopBridge({ kind: 'app' });
    const published = [];
    const b = new DesktopBridge(host(published));
    b.configure({ enabled: true, url: bridge.url, token: bridge.token, allowUnpaired: false });
    await waitUntil(() => b.state === 'connected', 'connected');
    assert.equal(b.status().mode, 'token');
    assert.deepEqual(bridge.handshakes.map((h) => [h.protocols.length, h.status]), [[0, 401], [2, 101]]);
    assert.ok(!published.some((st) => JSON.stringify(st).includes(bridge.token)));
    b.configure({ enabled: false, url: bridge.url });
    await bridge.close();
  });

  test('a wrong token: 401 twice, then it stops and asks; not dialled again by itself', async () => {
    const bridge = await startDesktopBridge({ kind: 'app' });
    const b = new DesktopBridge(host());
    b.configure({ enabled: true, url: bridge.url, token: crypto.randomBytes(32).toString('base64url'), allowUnpaired: true });
    await waitUntil(() => b.state === 'token-refused', 'token-refused');
    await settle(1300);
    assert.deepEqual(bridge.handshakes.map((h) => h.status), [401, 401]);
    b.configure({ enabled: false, url: bridge.url });
    await bridge.close();
  });

  test('nothing listening: dialled again bare, the token never offered to a closed port', async () => {
    const s = net.createServer();
    await new Promise((r) => s.listen(0, '127.0.0.1', r));
    const { port } = s.address();
    await new Promise((r) => s.close(r));
    const b = new DesktopBridge(host());
    b.configure({ enabled: true, url: `ws://127.0.0.1:${port}/slop-bridge`, token: crypto.randomBytes(32).toString('base64url'), allowUnpaired: false });
    await waitUntil(() => b.state === 'retrying', 'retrying');
    assert.equal(b.dial, 'bare');
    b.configure({ enabled: false, url: '' });
  });
});
