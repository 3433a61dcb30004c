// Every connection failure says its real cause (js-glue/failure-text.js), in the Node client
// (e.code and the message) and the CLI (its words, its exit code, advice that fits a terminal):
// nothing listening; an HTTP answer to the upgrade (404: the path; 401/403: the token or the
// origin; another status); a server that upgrades but never says hello; one whose first message
// is no SLOP hello. And addresses as people type them (js-glue/provider-address.js): one slash,
// no scheme, a trailing space, a page's http:// address read for the provider it names.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { WebSocketServer } from 'ws';
import { connect } from '../../js-glue/node/client.js';
import { readAddress } from '../../js-glue/provider-address.js';
import { slopMetaContents } from '../../js-glue/page-discovery.js';
import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { runCli } from './helpers.js';

/** A server with one bad endpoint of each kind, and a port where nothing listens. */
async function startOddServer() {
  const wss = new WebSocketServer({ noServer: true });
  const server = http.createServer((req, res) => { res.writeHead(404); res.end('not here'); });
  server.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url, 'http://x').pathname;
    const answer = (status, text) => socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    if (path === '/silent') return wss.handleUpgrade(req, socket, head, () => {}); // opens, says nothing
    if (path === '/echo') return wss.handleUpgrade(req, socket, head, (ws) => ws.send('hello there')); // not SLOP
    if (path === '/json') return wss.handleUpgrade(req, socket, head, (ws) => ws.send('{"jsonrpc":"2.0","method":"initialize"}'));
    if (path === '/auth') return answer(401, 'Unauthorized');
    if (path === '/origin') return answer(403, 'Forbidden');
    if (path === '/boom') return answer(500, 'Internal Server Error');
    return answer(404, 'Not Found');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `ws://127.0.0.1:${server.address().port}`;
  return { base, close: () => new Promise((r) => { for (const c of wss.clients) c.terminate(); server.close(r); }) };
}

async function deadPort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

async function failure(url, options = {}) {
  try {
    const c = await connect(url, { timeout: 6500, ...options });
    c.close();
  } catch (e) {
    return e;
  }
  throw new Error(`${url} connected`);
}

describe('every failure says its cause: the Node client', () => {
  let odd, dead;
  before(async () => {
    odd = await startOddServer();
    dead = await deadPort();
  });
  after(() => odd.close());

  test('nothing listening', async () => {
    const e = await failure(`ws://127.0.0.1:${dead}/slop`);
    assert.equal(e.code, 'unreachable');
    assert.match(e.message, new RegExp(`Nothing answers at ws://127\\.0\\.0\\.1:${dead}/slop: nothing listens on 127\\.0\\.0\\.1:${dead}\\. Is the provider running\\?`));
  });

  test('a wrong path (HTTP 404 to the upgrade) is said as the path, not as a token', async () => {
    const e = await failure(`${odd.base}/slp`);
    assert.equal(e.code, 'not_found');
    assert.match(e.message, /Nothing serves SLOP at \/slp on 127\.0\.0\.1:\d+ \(HTTP 404 to the WebSocket upgrade\): check the path of the address\./);
    assert.doesNotMatch(e.message, /token/);
  });

  test('401 and 403: the token or the origin, with advice for connect()', async () => {
    for (const [path, status] of [['/auth', 401], ['/origin', 403]]) {
      const e = await failure(`${odd.base}${path}`);
      assert.equal(e.code, 'auth_failed');
      assert.match(e.message, new RegExp(`refused the connection \\(HTTP ${status}\\): pass its token \\(connect\\(url, \\{ token \\}\\)\\)`));
      assert.doesNotMatch(e.message, /Options/);
    }
  });

  test('another HTTP answer to the upgrade names its status', async () => {
    const e = await failure(`${odd.base}/boom`);
    assert.equal(e.code, 'not_found');
    assert.match(e.message, /answered the WebSocket upgrade at \/boom with HTTP 500/);
  });

  test('a server that upgrades but never says hello', async () => {
    const e = await failure(`${odd.base}/silent`);
    assert.equal(e.code, 'timeout');
    // It says how long it waited (the 6.5 s timeout), not the 5 s after which the session first said it,
    // and no longer that a late hello is taken: the client gave up.
    const m = /The WebSocket at ws:\/\/127\.0\.0\.1:\d+\/silent opened, but no hello came in ([\d.]+) s: is it a SLOP provider\?$/.exec(e.message);
    assert.ok(m, e.message);
    assert.ok(Number(m[1]) >= 6.5 && Number(m[1]) < 8, e.message);
  });

  test('not a SLOP provider: its first message is no hello (at once, not after the timeout)', async () => {
    for (const path of ['/echo', '/json']) {
      const t0 = Date.now();
      const e = await failure(`${odd.base}${path}`);
      assert.equal(e.code, 'protocol_error', path);
      assert.match(e.message, /does not speak SLOP, it seems: its first message is not a SLOP hello \(/);
      assert.ok(Date.now() - t0 < 3000, `said at once (${Date.now() - t0} ms)`);
    }
  });
});

describe('every failure says its cause: the CLI, with advice for a terminal', () => {
  let odd, dead;
  before(async () => {
    odd = await startOddServer();
    dead = await deadPort();
  });
  after(() => odd.close());

  test('nothing listening, a wrong path, a refused token, no hello, not SLOP: exit 1 and the cause', async () => {
    const cases = [
      [`ws://127.0.0.1:${dead}/slop`, /Nothing answers at .*Is the provider running\?/],
      [`${odd.base}/slp`, /Nothing serves SLOP at \/slp on 127\.0\.0\.1:\d+ \(HTTP 404/],
      [`${odd.base}/auth`, /refused the connection \(HTTP 401\): give its token with \$SLOP_TOKEN or --token-file FILE and, if it checks the Origin header, an origin it allows \(--origin ORIGIN\)/],
      [`${odd.base}/silent`, /opened, but no hello came in (6\.[5-9]|7(\.\d)?) s: is it a SLOP provider\?\n/],
      [`${odd.base}/echo`, /does not speak SLOP/],
    ];
    for (const [url, words] of cases) {
      const r = await runCli(['tree', url, '--timeout', '6500']);
      assert.equal(r.code, 1, `${url}: ${r.stderr}`);
      assert.match(r.stderr, words, url);
      assert.doesNotMatch(r.stderr, /Options|probably needs a token/, url);
    }
  });

  test('an address that cannot be a provider is refused before any dial (exit 2)', async () => {
    for (const [text, words] of [['ftp://example.com/x', /“ftp:” addresses are not SLOP providers/], ['ws://a b/slop', /has a space in it/],
      ['ws://localhost:99999/slop', /its port is over 65535/], ['ws://u:p@localhost:1/slop', /Put the token in the token field/]]) {
      const r = await runCli(['tree', text]);
      assert.equal(r.code, 2, `${text}: ${r.stderr}`);
      assert.match(r.stderr, words);
    }
  });
});

describe('addresses as people type them', () => {
  let srv, metaOnly, inPage;
  before(async () => {
    srv = await startWsProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true, engine: createMailEngine({ messages: 3 }) });
    // A server without /.well-known/slop whose page names the provider by meta tag.
    metaOnly = await startWsProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true, wellKnown: false, engine: createMailEngine({ messages: 4 }) });
    inPage = await startWsProvider({
      host: '127.0.0.1', port: 0, allowMissingOrigin: true, wellKnown: false, engine: createMailEngine({ messages: 1 }),
      pages: { '/app.html': '<!doctype html><meta charset="utf-8"><meta content="postmessage" name=\'slop\'><title>in page</title>' },
    });
  });
  after(async () => {
    await srv.close();
    await metaOnly.close();
    await inPage.close();
  });

  test('readAddress: one slash, none, no scheme, spaces; what cannot be an address is said', () => {
    assert.deepEqual(readAddress(' ws:/127.0.0.1:3737/slop '), { ok: true, kind: 'ws', url: 'ws://127.0.0.1:3737/slop', read: 'read “ws:/127.0.0.1:3737/slop” as ws://127.0.0.1:3737/slop' });
    assert.equal(readAddress('ws:127.0.0.1:3737/slop').url, 'ws://127.0.0.1:3737/slop');
    assert.deepEqual(readAddress('localhost:3737'), { ok: true, kind: 'page', url: 'http://localhost:3737/', read: 'read “localhost:3737” as http://localhost:3737/' });
    assert.deepEqual(readAddress('localhost:3737/slop'), { ok: true, kind: 'ws', url: 'ws://localhost:3737/slop', read: 'read “localhost:3737/slop” as ws://localhost:3737/slop' });
    assert.deepEqual(readAddress('ws://localhost:3737/slop\t'), { ok: true, kind: 'ws', url: 'ws://localhost:3737/slop', read: null });
    assert.equal(readAddress('https://app.example/todos').kind, 'page');
    assert.equal(readAddress('[::1]:3737').url, 'http://[::1]:3737/');
    for (const bad of ['', 'ftp://x', 'ws://', 'ws://a b', 'not an address', 'ws://localhost:70000/']) assert.equal(readAddress(bad).ok, false, bad);
  });

  test('meta tags read from a page\'s HTML in any attribute order and quoting', () => {
    assert.deepEqual(slopMetaContents('<meta name="slop" content="ws://a/slop"><META CONTENT=\'postmessage\' NAME=slop><meta name="other" content="x"><meta name="slop" content="ws://b/?a=1&amp;b=2">'),
      ['ws://a/slop', 'postmessage', 'ws://b/?a=1&b=2']);
  });

  test('the CLI: ws:/ with one slash, host:port read as the server\'s page, a page\'s http:// address, its meta tag; each said', async () => {
    const port = new URL(srv.wsUrl).port;
    let r = await runCli(['tree', `ws:/127.0.0.1:${port}/slop`, '--depth', '0', '--path', '/'], { SLOP_TOKEN: srv.token });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /read “ws:\/127\.0\.0\.1:\d+\/slop” as ws:\/\/127\.0\.0\.1:\d+\/slop/);
    r = await runCli(['tree', `127.0.0.1:${port}`], { SLOP_TOKEN: srv.token });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`http://127\\.0\\.0\\.1:${port}/\\.well-known/slop names ${srv.wsUrl.replace(/[.?]/g, '\\$&')}`));
    assert.match(r.stdout, /inbox/);
    r = await runCli(['tree', srv.url('/pages/wellknown.html')], { SLOP_TOKEN: srv.token });
    assert.equal(r.code, 0, r.stderr);
    const page = metaOnly.url('/pages/meta-ws.html');
    r = await runCli(['tree', page], { SLOP_TOKEN: metaOnly.token });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /\(<meta name="slop">\)/);
  });

  test('the CLI: a page whose provider is in the page, or that names none, is said so (exit 1)', async () => {
    let r = await runCli(['tree', inPage.url('/app.html')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /names a provider in the page \(postMessage\): only a browser reaches it; while SLOP Inspector shares the tab, reach it through the desktop bridge/);
    r = await runCli(['tree', metaOnly.url('/nothing-here')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no SLOP provider named at http:\/\/127\.0\.0\.1:\d+\/nothing-here: \/\.well-known\/slop gave HTTP 404/);
  });
});

test('a first message that is a hello the core refuses is said as such, not as "not SLOP"', async () => {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => wss.once('listening', r));
  wss.on('connection', (ws) => ws.send(JSON.stringify({ type: 'hello', provider: { name: 'No id', slop_version: '0.1', capabilities: ['state'] } })));
  try {
    const e = await failure(`ws://127.0.0.1:${wss.address().port}/`);
    assert.equal(e.code, 'protocol_error');
    assert.match(e.message, /said hello, but its hello breaks the spec and was refused \(.*provider\.id/);
  } finally {
    await new Promise((r) => wss.close(r));
  }
});
