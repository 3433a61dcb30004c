// `slop-inspector bridge` and the SLOP project's newer browser extension (its client is
// tests/fixtures/slop-extension-client.mjs): the extension offers ["slop.bearer", <our pairing
// code>] at the upgrade; the right code makes it a paired browser and only the label is selected;
// a wrong or missing one gets 401 (and the client, which cannot see a status, reports "rejected"
// after its HTTP probe). Also: the bridge's one-line refusals carry no secret, and a consumer's
// relayed requests reach the browser with the `agent` that asked.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { startBridgeServer, BEARER } from '../../js-glue/node/bridge-server.js';
import { newPairingCode, normalizeCode, newNonce, proofOf, PAIR_VERSION, BrowserPairing } from '../../js-glue/bridge-pairing.js';
import { SlopExtensionClient } from '../fixtures/slop-extension-client.mjs';

const CODE = newPairingCode(); // as printed: groups of four
const WRONG = newPairingCode();
const WAIT = 3000;
const LOG = [];
/** Every form of a secret that must never reach the log. */
const SECRETS = [CODE, normalizeCode(CODE), WRONG, normalizeCode(WRONG), 'a-desktop-app-token-0123456789abcdefABCDEF_x'];

/** Waits until fn() is true. */
async function until(fn, what, timeout = WAIT) {
  const end = Date.now() + timeout;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`not ${what} within ${timeout} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A ws client that keeps what it is sent. */
function client(url, protocols = [], options = {}) {
  const ws = new WebSocket(url, protocols, { perMessageDeflate: false, ...options });
  ws.inbox = [];
  ws.on('message', (d) => ws.inbox.push(JSON.parse(String(d))));
  ws.opened = new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  return ws;
}

/** The status of an upgrade refused (or 101 when it opened), with the response headers. */
function upgrade(url, protocols, options = {}) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, protocols, options);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => { resolve({ status: res.statusCode, body }); ws.terminate(); });
    });
    ws.on('upgrade', (res) => { ws.headers = res.headers; });
    ws.on('open', () => { resolve({ status: 101, protocol: ws.protocol, headers: ws.headers }); ws.close(); });
    ws.on('error', () => {});
  });
}

/** The SLOP extension's side of a relayed provider: hello on connect, a result on invoke. */
function answerAsProvider(ext, providerKey) {
  ext.onMessage((m) => {
    if (m.type !== 'slop-relay' || m.providerKey !== providerKey) return;
    if (m.message.type === 'connect') ext.relay(providerKey, { type: 'hello', provider: { id: 'todo', name: 'Todo', slop_version: '0.1', capabilities: ['state', 'affordances'] } });
    if (m.message.type === 'invoke') ext.relay(providerKey, { type: 'result', id: m.message.id, status: 'ok' });
  });
}

describe('slop-inspector bridge and the SLOP project\'s browser extension (slop.bearer and our code)', () => {
  let srv;
  before(async () => { srv = await startBridgeServer({ port: 0, code: CODE, log: (l) => LOG.push(l), pairTimeoutMs: 300 }); });
  after(async () => {
    await srv.close();
    for (const line of LOG) for (const s of SECRETS) assert.ok(!line.includes(s), `a secret in the log: ${line}`);
  });

  test('it pairs by the code as printed, only the label is selected, and its announcement reaches a consumer', async () => {
    const watcher = client(srv.url);
    await watcher.opened;
    const ext = new SlopExtensionClient({ url: srv.url, token: CODE, retryMs: 50 });
    try {
      ext.start();
      await ext.reach('connected');
      assert.equal(ext.protocol, BEARER);
      const me = srv.browsers().at(-1);
      assert.equal(me.pairedBy, 'token');
      assert.ok(LOG.includes(`browser ${me.n} paired (the pairing code offered with slop.bearer at the upgrade)`), LOG.join('\n'));
      ext.announce({ tabId: 4, providerKey: '4:postmessage', provider: { id: 'todo', name: 'Todo', transport: 'postmessage' } });
      await until(() => watcher.inbox.some((m) => m.type === 'provider-available' && m.providerKey === '4:postmessage'), 'the announcement at the consumer');
      assert.deepEqual(watcher.inbox.find((m) => m.providerKey === '4:postmessage'),
        { type: 'provider-available', tabId: 4, providerKey: '4:postmessage', provider: { id: 'todo', name: 'Todo', transport: 'postmessage' } });
      ext.withdraw('4:postmessage');
      await until(() => watcher.inbox.some((m) => m.type === 'provider-unavailable' && m.providerKey === '4:postmessage'), 'the withdrawal at the consumer');
    } finally {
      ext.stop();
      watcher.close();
    }
  });

  test('the code in any order, any form, one header or repeated: 101 with exactly slop.bearer, never the code', async () => {
    for (const protocols of [[BEARER, CODE], [CODE, BEARER], [BEARER, normalizeCode(CODE).toLowerCase()]]) {
      const r = await upgrade(srv.url, protocols);
      assert.equal(r.status, 101, protocols.join());
      assert.equal(r.protocol, BEARER);
      assert.equal(r.headers['sec-websocket-protocol'], BEARER);
    }
    // Two Sec-WebSocket-Protocol headers, written by hand (the ws client writes one).
    const { port } = new URL(srv.url);
    const reply = await new Promise((resolve, reject) => {
      const sock = net.connect(Number(port), '127.0.0.1', () => {
        sock.write(`GET /slop-bridge HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
          + `Sec-WebSocket-Key: ${Buffer.from('0123456789abcdef').toString('base64')}\r\nSec-WebSocket-Version: 13\r\n`
          + `Sec-WebSocket-Protocol: ${CODE}\r\nSec-WebSocket-Protocol: ${BEARER}\r\n\r\n`);
      });
      let text = '';
      sock.on('data', (d) => {
        text += d;
        if (text.includes('\r\n\r\n')) { sock.destroy(); resolve(text); }
      });
      sock.on('error', reject);
    });
    assert.match(reply, /^HTTP\/1\.1 101 /);
    assert.match(reply, /\r\nSec-WebSocket-Protocol: slop\.bearer\r\n/i);
    assert.ok(!reply.includes(normalizeCode(CODE)) && !reply.includes(CODE), 'the code is never echoed');
  });

  test('a wrong or missing code: 401 at the upgrade, and the SLOP extension says rejected (and keeps retrying)', async () => {
    const wrong = await upgrade(srv.url, [BEARER, WRONG]);
    assert.equal(wrong.status, 401);
    assert.ok(!wrong.body.includes(WRONG) && !wrong.body.includes(normalizeCode(WRONG)));
    assert.equal((await upgrade(srv.url, [BEARER])).status, 401);
    assert.equal((await upgrade(srv.url, [BEARER, SECRETS[4]])).status, 401, 'a desktop app token is not our code');
    assert.ok(LOG.some((l) => /^refused a client that offered slop\.bearer with a wrong pairing code: 401$/.test(l)), LOG.join('\n'));
    assert.ok(LOG.some((l) => /^refused a client that offered slop\.bearer with no pairing code: 401$/.test(l)), LOG.join('\n'));

    const ext = new SlopExtensionClient({ url: srv.url, token: WRONG, retryMs: 20 });
    try {
      ext.start();
      await ext.reach('rejected');
      await ext.until(() => ext.dials >= 3, 'dialled again');
      assert.equal(srv.browsers().length, 0);
      assert.ok(!ext.states.includes('connected'));
      // The user pastes the right code: it connects.
      ext.setToken(CODE);
      await ext.reach('connected');
    } finally {
      ext.stop();
    }
  });

  test('a web page offering the right code still gets 403', async () => {
    for (const origin of ['https://evil.example', 'null']) {
      assert.equal((await upgrade(srv.url, [BEARER, CODE], { origin })).status, 403, origin);
    }
    assert.ok(LOG.some((l) => l === 'refused a web page (Origin "https://evil.example"): 403'), LOG.join('\n'));
    assert.ok(LOG.some((l) => l === 'refused a web page (Origin "null"): 403'), LOG.join('\n'));
  });

  test('clients that dial bare keep today\'s flow: a consumer, then a browser by the challenge', async () => {
    const c = client(srv.url);
    await c.opened;
    assert.equal(c.protocol, '');
    const b = client(srv.url, [], { origin: 'chrome-extension://abc' });
    await b.opened;
    const outcome = await new Promise((resolve) => {
      const p = new BrowserPairing(normalizeCode(CODE), (t) => b.send(t), (o) => resolve(o));
      b.on('message', (d) => { const m = JSON.parse(String(d)); if (m.type.startsWith('pair-')) p.receive(m); });
      p.start(1000);
    });
    assert.equal(outcome, 'paired');
    assert.equal(srv.browsers().find((x) => x.origin === 'chrome-extension://abc')?.pairedBy, 'proof');
    b.close();
    c.close();
  });

  test('a desktop consumer\'s requests reach the browser with the agent that asked: its id, and its name when it gives one', async () => {
    const ext = new SlopExtensionClient({ url: srv.url, token: CODE, retryMs: 50 });
    const named = client(srv.url);
    const bare = client(srv.url);
    try {
      ext.start();
      await ext.reach('connected');
      answerAsProvider(ext, '9:postmessage');
      ext.announce({ tabId: 9, providerKey: '9:postmessage', provider: { id: 'todo', name: 'Todo', transport: 'postmessage' } });
      await Promise.all([named.opened, bare.opened]);
      await until(() => srv.consumers().length >= 2 && named.inbox.some((m) => m.providerKey === '9:postmessage'), 'announced');
      const ids = srv.consumers().map((c) => c.n);
      // A consumer that names itself in its connect (client, or MCP's clientInfo).
      named.send(JSON.stringify({ type: 'relay-open', providerKey: '9:postmessage' }));
      named.send(JSON.stringify({ type: 'slop-relay', providerKey: '9:postmessage', message: { type: 'connect', clientInfo: { name: 'claude-code\u0007', version: '2.0' } } }));
      await until(() => named.inbox.some((m) => m.message?.type === 'hello'), 'hello to the named consumer');
      named.send(JSON.stringify({ type: 'slop-relay', providerKey: '9:postmessage', message: { type: 'invoke', id: 'inv-1', path: '/', action: 'clear' } }));
      await until(() => named.inbox.some((m) => m.message?.type === 'result'), 'its result');
      bare.send(JSON.stringify({ type: 'relay-open', providerKey: '9:postmessage' }));
      await until(() => bare.inbox.some((m) => m.message?.type === 'hello'), 'hello to the bare consumer');
      bare.send(JSON.stringify({ type: 'slop-relay', providerKey: '9:postmessage', message: { type: 'invoke', id: 'inv-1', path: '/', action: 'clear' } }));
      await until(() => bare.inbox.some((m) => m.message?.type === 'result'), 'its result');

      const invokes = ext.received.filter((m) => m.type === 'slop-relay' && m.message.type === 'invoke');
      assert.equal(invokes.length, 2);
      const [first, second] = invokes;
      assert.ok(ids.includes(first.agent.id) && ids.includes(second.agent.id) && first.agent.id !== second.agent.id);
      assert.deepEqual(first.agent, { id: first.agent.id, name: 'claude-code' });
      assert.deepEqual(second.agent, { id: second.agent.id });
      // The relay's own connect on a consumer's behalf names it too.
      const connects = ext.received.filter((m) => m.type === 'slop-relay' && m.message.type === 'connect');
      assert.ok(connects.every((m) => typeof m.agent?.id === 'number'), JSON.stringify(connects));
      assert.ok(LOG.some((l) => l === `consumer ${first.agent.id} is "claude-code"`), LOG.join('\n'));
    } finally {
      named.close();
      bare.close();
      ext.stop();
    }
  });

  test('refusals are logged one line each, without a secret: wrong proof, a browser that leaves mid-pairing, announcements', async () => {
    const from = LOG.length;
    // A wrong proof.
    const b = client(srv.url, [], { origin: 'chrome-extension://abc' });
    await b.opened;
    const nb = newNonce();
    b.send(JSON.stringify({ type: 'pair-challenge', version: PAIR_VERSION, nonce: nb }));
    await until(() => b.inbox.some((m) => m.type === 'pair-proof'), 'the bridge\'s proof');
    const theirs = b.inbox.find((m) => m.type === 'pair-proof');
    b.send(JSON.stringify({ type: 'pair-proof', version: PAIR_VERSION, proof: await proofOf(normalizeCode(WRONG), 'browser', nb, theirs.nonce) }));
    await new Promise((r) => b.on('close', r));
    // A browser that holds another code: it checks the bridge's proof, finds it wrong and leaves.
    const other = client(srv.url, [], { origin: 'chrome-extension://abc' });
    await other.opened;
    await new Promise((resolve) => {
      const p = new BrowserPairing(normalizeCode(WRONG), (t) => other.send(t), (o) => { other.close(); resolve(o); });
      other.on('message', (d) => { const m = JSON.parse(String(d)); if (m.type.startsWith('pair-')) p.receive(m); });
      p.start(1000);
    });
    // A consumer that announces.
    const c = client(srv.url);
    await c.opened;
    c.send(JSON.stringify({ type: 'provider-available', tabId: 1, providerKey: '1:postmessage', provider: { id: 'x', name: 'Forged', transport: 'postmessage' } }));
    await until(() => c.inbox.some((m) => m.type === 'bridge-error'), 'not_paired');
    c.close();
    await until(() => LOG.slice(from).some((l) => /^pairing failed: client \d+ left after the bridge's proof/.test(l))
      && LOG.slice(from).some((l) => /^consumer \d+ left$/.test(l)), 'the lines');
    const lines = LOG.slice(from);
    assert.ok(lines.some((l) => /^pairing failed: client \d+: the browser’s proof does not match this bridge’s pairing code; closed \(4403\)$/.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => /^client \d+: provider-available refused \(not_paired: it has not paired with this bridge\)$/.test(l)), lines.join('\n'));
    // A refused pairing is not also "consumer N left".
    const failed = lines.filter((l) => l.startsWith('pairing failed')).map((l) => l.match(/client (\d+)/)[1]);
    assert.equal(failed.length, 2, lines.join('\n'));
    for (const n of failed) assert.ok(!lines.includes(`consumer ${n} left`), lines.join('\n'));
  });
});

describe('the SLOP extension\'s client itself (tests/fixtures/slop-extension-client.mjs)', () => {
  test('no token: it never dials; nothing listening: not-running', async () => {
    const ext = new SlopExtensionClient({ url: 'ws://127.0.0.1:9/slop-bridge', retryMs: 20 });
    ext.start();
    assert.equal(ext.state, 'unpaired');
    assert.equal(ext.dials, 0);
    const free = await new Promise((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
    });
    ext.url = `ws://127.0.0.1:${free}/slop-bridge`;
    ext.setToken('some-token');
    try {
      await ext.reach('not-running');
    } finally {
      ext.stop();
    }
  });

  test('a server that selects anything but exactly slop.bearer (the token echoed): it closes, never connected', async () => {
    const server = http.createServer((_req, res) => res.end('here'));
    const wss = new WebSocketServer({ server, handleProtocols: (offered) => [...offered].find((p) => p !== BEARER) });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const ext = new SlopExtensionClient({ url: `ws://127.0.0.1:${server.address().port}/slop-bridge`, token: 'tok', retryMs: 20 });
    try {
      ext.start();
      await ext.reach('unauthenticated');
      assert.ok(!ext.states.includes('connected'));
      assert.ok(ext.log.every((l) => !l.includes('tok')));
    } finally {
      ext.stop();
      wss.close();
      await new Promise((r) => server.close(r));
    }
  });
});
