// `slop-inspector bridge` (js-glue/node/bridge-server.js): a "browser" is a ws client that pairs
// with BrowserPairing and announces a postMessage provider, answering relayed SLOP messages like
// a tiny provider; consumers are plain ws clients speaking the protocol of the SLOP project's
// TypeScript bridge client (relay-open, slop-relay, relay-close).

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import net from 'node:net';
import { WebSocket } from 'ws';
import { startBridgeServer, CLOSE_PAIRING_REFUSED, portInUse } from '../../js-glue/node/bridge-server.js';
import { BrowserPairing, newPairingCode, normalizeCode, newNonce, proofOf, PAIR_VERSION } from '../../js-glue/bridge-pairing.js';
import { connect, bridgeProviders, SlopTestError, SlopTestCode } from '../../js-glue/node/client.js';
import { startDesktopBridge } from '../fixtures/desktop-bridge.mjs';
import { spawn } from 'node:child_process';
import { CLI, runCli, loadCore } from './helpers.js';
import { DesktopBridge } from '../../extension/service-worker/desktop-bridge.js';

const CODE = newPairingCode();
const KEY = '12:postmessage';
const WAIT = 3000;
const LOG = [];

/** The bridge of a test: a fresh port, the test code, its log kept (to check it never holds the code). */
async function bridge(o = {}) {
  return startBridgeServer({ port: 0, code: CODE, log: (line) => LOG.push(line), pairTimeoutMs: 300, ...o });
}

/** A ws client whose messages queue up until a test takes them. */
class Client {
  /** @param {string} url @param {import('ws').ClientOptions} [options] */
  constructor(url, options = {}) {
    this.ws = new WebSocket(url, options);
    /** @type {{text: string, msg: any}[]} */
    this.inbox = [];
    /** @type {Set<() => void>} */
    this.waiters = new Set();
    this.ws.on('message', (data) => {
      const text = String(data);
      let msg = null;
      try { msg = JSON.parse(text); } catch { /* kept as text */ }
      this.inbox.push({ text, msg });
      for (const w of [...this.waiters]) w();
    });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', resolve);
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => this.ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  }

  /** @param {object|string} m */
  send(m) { this.ws.send(typeof m === 'string' ? m : JSON.stringify(m)); }

  /** A SLOP message to a provider through the bridge. */
  relay(providerKey, message) { this.send({ type: 'slop-relay', providerKey, message }); }

  /** Takes the first queued message for which pred holds, waiting for it. */
  next(pred = () => true, what = 'a message', timeout = WAIT) {
    return new Promise((resolve, reject) => {
      const look = () => {
        const i = this.inbox.findIndex((e) => e.msg && pred(e.msg));
        if (i < 0) return false;
        const [e] = this.inbox.splice(i, 1);
        this.waiters.delete(look);
        clearTimeout(timer);
        resolve(e);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(look);
        reject(new Error(`no ${what} within ${timeout} ms; queued: ${this.inbox.map((e) => e.text.slice(0, 200)).join('\n')}`));
      }, timeout);
      if (!look()) this.waiters.add(look);
    });
  }

  /** A relayed SLOP message of this type (and id), the envelope's text included. */
  slop(type, id = undefined, key = undefined) {
    return this.next((m) => m.type === 'slop-relay' && m.message?.type === type && (id === undefined || m.message.id === id)
      && (key === undefined || m.providerKey === key), `slop-relay ${type}${id ? ` ${id}` : ''}`);
  }

  /** Asserts that nothing for which pred holds comes within ms. */
  async none(pred, what, ms = 200) {
    await new Promise((r) => setTimeout(r, ms));
    const hit = this.inbox.find((e) => e.msg && pred(e.msg));
    assert.equal(hit, undefined, `${what}: ${hit?.text}`);
  }

  close() { this.ws.close(); }
}

/** A consumer, open. */
async function consumer(srv) {
  const c = new Client(srv.url);
  await c.opened;
  return c;
}

const TREE = '{"id":"root","type":"root","properties":{"price":1.50,"zero":-0,"big":12345678901234567890,"count":0},'
  + '"affordances":[{"action":"inc","description":"count one up"}]}';

/**
 * The provider side of a paired browser for one key: hello on connect, snapshot on subscribe,
 * result (and a patch to every subscription) on invoke, as a page's provider answers the relayed
 * ids it is given. It writes its frames as text, numbers as a provider may write them.
 */
class TinyProvider {
  /** leaves: on connect it withdraws itself instead of saying hello. */
  constructor(browser, key, { id = 'tiny', name = 'Tiny', leaves = false } = {}) {
    this.leaves = leaves;
    this.browser = browser;
    this.key = key;
    this.id = id;
    this.name = name;
    this.version = 1;
    this.count = 0;
    /** @type {Map<string, number>} subscription id → its seq */
    this.subs = new Map();
    /** Every SLOP message relayed to it. */
    this.got = [];
    browser.ws.on('message', (data) => {
      const m = JSON.parse(String(data));
      if (m.type === 'slop-relay' && m.providerKey === key) this.#on(m.message);
    });
  }

  announce(extra = {}) {
    this.browser.send({ type: 'provider-available', tabId: 12, providerKey: this.key, provider: { id: this.id, name: this.name, transport: 'postmessage' }, ...extra });
  }

  #send(text) { this.browser.send(`{"type":"slop-relay","providerKey":${JSON.stringify(this.key)},"message":${text}}`); }

  #on(m) {
    this.got.push(m);
    switch (m.type) {
      case 'connect':
        if (this.leaves) return this.browser.send({ type: 'provider-unavailable', tabId: 12, providerKey: this.key });
        return this.#send(`{"type":"hello","provider":{"id":"${this.id}","name":"${this.name}","slop_version":"0.1","capabilities":["state","patches","affordances"]}}`);
      case 'subscribe':
        this.subs.set(m.id, 0);
        return this.#send(`{"type":"snapshot","id":${JSON.stringify(m.id)},"version":${this.version},"seq":0,"tree":${this.tree()}}`);
      case 'unsubscribe':
        this.subs.delete(m.id);
        return undefined;
      case 'invoke':
        this.#send(`{"type":"result","id":${JSON.stringify(m.id)},"status":"ok"}`);
        return this.patch();
      default:
        return undefined;
    }
  }

  tree() { return TREE.replace('"count":0', `"count":${this.count}`); }

  /** count + 1, to every subscription. */
  patch() {
    this.count++;
    this.version++;
    for (const [sub, seq] of this.subs) {
      this.subs.set(sub, seq + 1);
      this.#send(`{"type":"patch","subscription":${JSON.stringify(sub)},"version":${this.version},"seq":${seq + 1},"ops":[{"op":"replace","path":"/properties/count","value":${this.count}}]}`);
    }
  }
}

/** A browser paired with the bridge (as SLOP Inspector pairs), with one tiny provider per key. */
async function browser(srv, keys = [KEY], { code = CODE, names = {}, leaves = false } = {}) {
  const b = new Client(srv.url, { origin: 'chrome-extension://abcdefghijklmnop' });
  await b.opened;
  const result = await new Promise((resolve) => {
    const p = new BrowserPairing(normalizeCode(code), (t) => b.send(t), (o, detail) => resolve({ o, detail }));
    b.ws.on('message', (d) => {
      const m = JSON.parse(String(d));
      if (typeof m.type === 'string' && m.type.startsWith('pair-')) p.receive(m);
    });
    p.start(1000);
  });
  assert.equal(result.o, 'paired', result.detail);
  b.providers = keys.map((k) => new TinyProvider(b, k, { name: names[k] ?? 'Tiny', id: `id-${k}`, leaves }));
  for (const p of b.providers) p.announce();
  return b;
}

/** Waits until fn() is true. */
async function until(fn, what, timeout = WAIT) {
  const end = Date.now() + timeout;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`not ${what} within ${timeout} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Opens a relay for consumer c and waits for its hello (the bridge's connect on its behalf). */
async function opened(c, key = KEY) {
  c.send({ type: 'relay-open', providerKey: key });
  return c.slop('hello');
}

describe('slop-inspector bridge', () => {
  let srv;
  before(async () => { srv = await bridge(); });
  after(async () => {
    await srv.close();
    const code = normalizeCode(CODE);
    for (const line of LOG) {
      assert.ok(!line.includes(CODE) && !line.includes(code), `the code in the log: ${line}`);
    }
  });

  describe('what is not a bridge client', () => {
    test('a plain HTTP request gets 426 and one line saying what this is', async () => {
      const { status, body } = await new Promise((resolve, reject) => {
        http.get(srv.url.replace('ws:', 'http:'), (res) => {
          let body = '';
          res.on('data', (d) => { body += d; });
          res.on('end', () => resolve({ status: res.statusCode, body }));
        }).on('error', reject);
      });
      assert.equal(status, 426);
      assert.match(body, /^This is a SLOP desktop bridge: a WebSocket endpoint .*\n$/);
      assert.equal(body.split('\n').length, 2);
    });

    /** The status of a refused WebSocket upgrade. */
    const refused = (url, options) => new Promise((resolve, reject) => {
      const ws = new WebSocket(url, options);
      ws.on('unexpected-response', (_req, res) => { resolve(res.statusCode); ws.terminate(); });
      ws.on('open', () => reject(new Error('it opened')));
      ws.on('error', () => {});
    });

    test('another path: 404', async () => {
      assert.equal(await refused(srv.url.replace('/slop-bridge', '/other')), 404);
      assert.equal(await refused(srv.url.replace('/slop-bridge', '/slop-bridge/x')), 404);
    });

    test('a web page (Origin http, https, null): 403; an extension or no Origin: opens, no subprotocol selected', async () => {
      for (const origin of ['https://evil.example', 'http://127.0.0.1:8080', 'null']) {
        assert.equal(await refused(srv.url, { origin }), 403, origin);
      }
      for (const origin of [undefined, 'chrome-extension://abc', 'moz-extension://0c2e1d7a-1f2b-4c3d-9e8f-123456789abc']) {
        const c = new Client(srv.url, origin ? { origin } : {});
        await c.opened;
        assert.equal(c.ws.protocol, '', 'no subprotocol');
        c.close();
      }
    });
  });

  describe('pairing', () => {
    test('a browser that proves the code is a browser; its providers are announced; the log says so without the code', async () => {
      const b = await browser(srv, ['7:postmessage']);
      await until(() => srv.providers().some((p) => p.providerKey === '7:postmessage'), 'announced');
      const me = srv.browsers().find((x) => x.providers.includes('7:postmessage'));
      assert.equal(me.origin, 'chrome-extension://abcdefghijklmnop');
      assert.ok(LOG.some((l) => l === `browser ${me.n} paired`), LOG.join('\n'));
      b.close();
      await until(() => !srv.providers().some((p) => p.providerKey === '7:postmessage'), 'withdrawn');
    });

    test('a wrong proof: pair-refused, closed with 4403, nothing it sends is announced', async () => {
      const watcher = await consumer(srv);
      const b = new Client(srv.url, { origin: 'chrome-extension://abc' });
      await b.opened;
      const nb = newNonce();
      b.send({ type: 'pair-challenge', version: PAIR_VERSION, nonce: nb });
      const { msg: proof } = await b.next((m) => m.type === 'pair-proof');
      b.send({ type: 'pair-proof', version: PAIR_VERSION, proof: await proofOf(normalizeCode(newPairingCode()), 'browser', nb, proof.nonce) });
      b.send({ type: 'provider-available', tabId: 1, providerKey: '1:postmessage', provider: { id: 'x', name: 'Forged', transport: 'postmessage' } });
      await b.next((m) => m.type === 'pair-refused');
      assert.deepEqual(await b.closed, { code: CLOSE_PAIRING_REFUSED, reason: 'pairing refused' });
      await watcher.none((m) => m.type === 'provider-available' && m.providerKey === '1:postmessage', 'a refused client announced');
      assert.ok(!srv.providers().some((p) => p.providerKey === '1:postmessage'));
      watcher.close();
    });

    test('a browser with another code finds the bridge wrong and is closed 4403 when its proof does not come', async () => {
      const b = new Client(srv.url, { origin: 'chrome-extension://abc' });
      await b.opened;
      const outcome = await new Promise((resolve) => {
        const p = new BrowserPairing(normalizeCode(newPairingCode()), (t) => b.send(t), (o) => resolve(o));
        b.ws.on('message', (d) => { const m = JSON.parse(String(d)); if (m.type.startsWith('pair-')) p.receive(m); });
        p.start(1000);
      });
      assert.equal(outcome, 'wrong');
      assert.equal((await b.closed).code, CLOSE_PAIRING_REFUSED);
    });

    test('a challenge and then no proof in time: refused, 4403', async () => {
      const b = new Client(srv.url);
      await b.opened;
      b.send({ type: 'pair-challenge', version: PAIR_VERSION, nonce: newNonce() });
      await b.next((m) => m.type === 'pair-proof');
      const { msg } = await b.next((m) => m.type === 'pair-refused');
      assert.match(msg.reason, /no proof from the browser in time/);
      assert.deepEqual(await b.closed, { code: CLOSE_PAIRING_REFUSED, reason: 'pairing refused' });
    });
  });

  describe('consumers', () => {
    test('get what is shared on connect, then each announcement and withdrawal', async () => {
      const b = await browser(srv, ['20:postmessage']);
      await until(() => srv.providers().some((p) => p.providerKey === '20:postmessage'), 'announced');
      const c = await consumer(srv);
      const { msg: replay } = await c.next((m) => m.type === 'provider-available' && m.providerKey === '20:postmessage');
      assert.deepEqual(replay, { type: 'provider-available', tabId: 12, providerKey: '20:postmessage', provider: { id: 'id-20:postmessage', name: 'Tiny', transport: 'postmessage' } });
      const later = new TinyProvider(b, '21:postmessage', { name: 'Later' });
      later.announce();
      assert.equal((await c.next((m) => m.type === 'provider-available' && m.providerKey === '21:postmessage')).msg.provider.name, 'Later');
      b.send({ type: 'provider-unavailable', tabId: 12, providerKey: '21:postmessage' });
      await c.next((m) => m.type === 'provider-unavailable' && m.providerKey === '21:postmessage');
      c.close();
      b.close();
    });

    test('a consumer cannot announce or withdraw: not_paired, and nobody hears of it', async () => {
      const c = await consumer(srv);
      const other = await consumer(srv);
      c.send({ type: 'provider-available', tabId: 9, providerKey: '9:postmessage', provider: { id: 'f', name: 'Forged', transport: 'postmessage' } });
      const { msg } = await c.next((m) => m.type === 'bridge-error');
      assert.equal(msg.error.code, 'not_paired');
      c.send({ type: 'provider-unavailable', tabId: 9, providerKey: '9:postmessage' });
      assert.equal((await c.next((m) => m.type === 'bridge-error')).msg.error.code, 'not_paired');
      await other.none((m) => m.providerKey === '9:postmessage', 'a consumer\'s announcement was passed on');
      assert.ok(!srv.providers().some((p) => p.providerKey === '9:postmessage'));
      c.close();
      other.close();
    });

    test('a consumer cannot speak for a provider: its snapshot is not relayed', async () => {
      const b = await browser(srv, ['22:postmessage']);
      const c = await consumer(srv);
      await c.next((m) => m.type === 'provider-available' && m.providerKey === '22:postmessage');
      c.relay('22:postmessage', { type: 'snapshot', id: 's', version: 1, tree: { id: 'root', type: 'root' } });
      const { msg } = await c.next((m) => m.type === 'bridge-error');
      assert.equal(msg.error.code, 'not_relayed');
      assert.match(msg.error.message, /not a consumer message/);
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(b.providers[0].got, [], 'the page got nothing');
      c.close();
      b.close();
    });

    test('two consumers using the same ids get only their own results, snapshots and patches', async () => {
      const b = await browser(srv, ['30:postmessage']);
      const key = '30:postmessage';
      const tiny = b.providers[0];
      const [c1, c2, c3] = [await consumer(srv), await consumer(srv), await consumer(srv)];
      for (const c of [c1, c2, c3]) await c.next((m) => m.type === 'provider-available' && m.providerKey === key);
      for (const c of [c1, c2, c3]) await opened(c, key);
      await b.next((m) => m.type === 'relay-open' && m.providerKey === key);
      await b.none((m) => m.type === 'relay-open', 'relay-open went to the browser more than once');

      for (const c of [c1, c2, c3]) c.relay(key, { type: 'subscribe', id: 'sub-1', path: '/', depth: -1 });
      for (const c of [c1, c2, c3]) {
        const { msg } = await c.slop('snapshot', 'sub-1');
        assert.equal(msg.providerKey, key);
      }
      const subs = tiny.got.filter((m) => m.type === 'subscribe').map((m) => m.id);
      assert.equal(new Set(subs).size, 3, `three subscriptions in the page, apart: ${subs}`);
      assert.ok(subs.every((id) => /^c[0-9a-z]+~sub-1$/.test(id)), subs.join());

      c1.relay(key, { type: 'invoke', id: 'inv-1', path: '/', action: 'inc' });
      c2.relay(key, { type: 'invoke', id: 'inv-1', path: '/', action: 'inc' });
      for (const c of [c1, c2]) {
        const { msg } = await c.slop('result', 'inv-1');
        assert.equal(msg.message.status, 'ok');
      }
      for (const c of [c1, c2, c3]) {
        await c.slop('patch');
        await c.slop('patch');
      }
      await c1.none((m) => m.message?.type === 'result' || m.message?.type === 'snapshot', 'c1 got another consumer\'s answer');
      await c3.none((m) => m.message?.type === 'result', 'c3 got a result it did not ask for');

      // c1 unsubscribes and c3 leaves: c2's subscription lives on.
      c1.relay(key, { type: 'unsubscribe', id: 'sub-1' });
      c3.close();
      await until(() => tiny.subs.size === 1, 'two subscriptions ended in the page');
      assert.ok(tiny.got.some((m) => m.type === 'unsubscribe'), 'the page heard the unsubscribes');
      await b.none((m) => m.type === 'relay-close', 'relay-close while a consumer still uses the relay', 50);
      c2.relay(key, { type: 'invoke', id: 'inv-2', path: '/', action: 'inc' });
      await c2.slop('result', 'inv-2');
      const { msg: p } = await c2.slop('patch');
      assert.equal(p.message.subscription, 'sub-1');
      await c1.none((m) => m.message?.type === 'patch', 'c1 unsubscribed yet got a patch');

      // The last one leaves: relay-close.
      c1.send({ type: 'relay-close', providerKey: key });
      c2.close();
      await b.next((m) => m.type === 'relay-close' && m.providerKey === key);
      c1.close();
      b.close();
    });

    test('a consumer that opens the relay and never sends connect gets a hello (as the Go CLI waits for one)', async () => {
      const b = await browser(srv, ['40:postmessage']);
      const c = await consumer(srv);
      await c.next((m) => m.type === 'provider-available' && m.providerKey === '40:postmessage');
      c.send({ type: 'relay-open', providerKey: '40:postmessage' });
      const { msg } = await c.slop('hello');
      assert.equal(msg.message.provider.id, 'id-40:postmessage');
      assert.deepEqual(b.providers[0].got, [{ type: 'connect' }]);
      c.close();
      b.close();
    });

    test('relay-open then connect at once (the TypeScript client): one connect reaches the page, one hello comes back', async () => {
      const b = await browser(srv, ['41:postmessage']);
      const c = await consumer(srv);
      await c.next((m) => m.type === 'provider-available' && m.providerKey === '41:postmessage');
      c.send({ type: 'relay-open', providerKey: '41:postmessage' });
      c.relay('41:postmessage', { type: 'connect' });
      await c.slop('hello');
      await c.none((m) => m.message?.type === 'hello', 'a second hello', 150);
      assert.deepEqual(b.providers[0].got, [{ type: 'connect' }]);
      c.close();
      b.close();
    });

    test('a request over 1 MiB gets a too_large answer with its id; other oversized messages a bridge-error', async () => {
      const b = await browser(srv, ['50:postmessage']);
      const c = await consumer(srv);
      await opened(c, '50:postmessage');
      const big = 'x'.repeat(1.5 * 1024 * 1024);
      c.relay('50:postmessage', { type: 'invoke', id: 'big-1', path: '/', action: 'inc', params: { text: big } });
      const { msg } = await c.slop('result', 'big-1');
      assert.equal(msg.message.status, 'error');
      assert.equal(msg.message.error.code, 'too_large');
      assert.match(msg.message.error.message, /^request of \d+ bytes is over the bridge's 1 MiB limit$/);
      c.relay('50:postmessage', { type: 'query', id: 'big-2', path: '/', filter: big });
      const { msg: q } = await c.slop('error', 'big-2');
      assert.equal(q.message.error.code, 'too_large');
      c.send(`{"type":"note","text":"${big}"}`);
      assert.equal((await c.next((m) => m.type === 'bridge-error')).msg.error.code, 'too_large');
      assert.ok(!b.providers[0].got.some((m) => m.type === 'invoke' || m.type === 'query'), 'nothing reached the page');
      c.close();
      b.close();
    });

    test('malformed JSON: bad_json; a slop-relay for a key nobody shares: a SLOP error with its id', async () => {
      const c = await consumer(srv);
      c.send('{"type": "slop-relay", ');
      const { msg } = await c.next((m) => m.type === 'bridge-error');
      assert.equal(msg.error.code, 'bad_json');
      c.relay('nobody:postmessage', { type: 'invoke', id: 'inv-9', path: '/', action: 'x' });
      const { msg: r } = await c.slop('result', 'inv-9');
      assert.equal(r.providerKey, 'nobody:postmessage');
      assert.equal(r.message.error.code, 'unknown_provider');
      c.relay('nobody:postmessage', { type: 'subscribe', id: 'sub-9', path: '/' });
      assert.equal((await c.slop('error', 'sub-9')).msg.message.error.code, 'unknown_provider');
      c.send({ type: 'relay-open', providerKey: 'nobody:postmessage' });
      const { msg: e } = await c.slop('error');
      assert.equal(e.message.error.code, 'unknown_provider');
      c.send({ type: 'something-new', providerKey: KEY });
      await c.none((m) => m.type === 'bridge-error', 'an unknown type is not an error');
      c.close();
    });

    test('numbers in a relayed snapshot arrive as the provider wrote them', async () => {
      const b = await browser(srv, ['60:postmessage']);
      const c = await consumer(srv);
      await opened(c, '60:postmessage');
      c.relay('60:postmessage', { type: 'subscribe', id: 'sub-n', path: '/' });
      const { text } = await c.slop('snapshot', 'sub-n');
      assert.equal(text, `{"type":"slop-relay","providerKey":"60:postmessage","message":{"type":"snapshot","id":"sub-n","version":1,"seq":0,"tree":${TREE}}}`);
      assert.ok(text.includes('"price":1.50,"zero":-0,"big":12345678901234567890'));
      c.close();
      b.close();
    });
  });

  describe('browsers', () => {
    test('a browser that leaves: provider-unavailable for each of its providers, and their relays freed', async () => {
      const b = await browser(srv, ['70:postmessage', '71:postmessage']);
      const c = await consumer(srv);
      await c.next((m) => m.type === 'provider-available' && m.providerKey === '71:postmessage');
      await opened(c, '70:postmessage');
      assert.equal(srv.consumers().filter((x) => x.relays.includes('70:postmessage')).length, 1);
      b.close();
      const gone = [];
      for (let i = 0; i < 2; i++) gone.push((await c.next((m) => m.type === 'provider-unavailable')).msg.providerKey);
      assert.deepEqual(gone.sort(), ['70:postmessage', '71:postmessage']);
      await until(() => !srv.consumers().some((x) => x.relays.includes('70:postmessage')), 'relays freed');
      c.relay('70:postmessage', { type: 'invoke', id: 'late', path: '/', action: 'inc' });
      assert.equal((await c.slop('result', 'late')).msg.message.error.code, 'unknown_provider');
      c.close();
    });

    test('two browsers with the same key are told apart ("<key>#<n>") and each gets only its own traffic', async () => {
      const b1 = await browser(srv, ['80:postmessage'], { names: { '80:postmessage': 'First' } });
      await until(() => srv.providers().some((p) => p.providerKey === '80:postmessage'), 'first announced');
      const b2 = await browser(srv, ['80:postmessage'], { names: { '80:postmessage': 'Second' } });
      const n2 = srv.browsers().at(-1).n;
      const second = `80:postmessage#${n2}`;
      await until(() => srv.providers().some((p) => p.providerKey === second), 'second announced');
      const c = await consumer(srv);
      const names = {};
      for (let i = 0; i < 2; i++) {
        const { msg } = await c.next((m) => m.type === 'provider-available' && m.providerKey.startsWith('80:'));
        names[msg.providerKey] = msg.provider.name;
      }
      assert.deepEqual(names, { '80:postmessage': 'First', [second]: 'Second' });

      await opened(c, second);
      const { msg: open } = await b2.next((m) => m.type === 'relay-open');
      assert.equal(open.providerKey, '80:postmessage', 'the browser hears its own key');
      c.relay(second, { type: 'subscribe', id: 'sub-2', path: '/' });
      const { msg: snap } = await c.slop('snapshot', 'sub-2');
      assert.equal(snap.providerKey, second);
      assert.equal(b1.providers[0].got.length, 0, 'the first browser got nothing');
      await b1.none((m) => m.type === 'relay-open', 'relay-open to the wrong browser', 50);

      // The first leaves; the second keeps its key as consumers know it.
      b1.close();
      await c.next((m) => m.type === 'provider-unavailable' && m.providerKey === '80:postmessage');
      c.relay(second, { type: 'invoke', id: 'inv-2', path: '/', action: 'inc' });
      await c.slop('result', 'inv-2', second);
      c.close();
      b2.close();
    });
  });

  describe('the Node client through the bridge', () => {
    test('connect({bridge, provider: name}) mirrors the tree and invokes; bridgeProviders lists what is shared', async () => {
      const b = await browser(srv, ['90:postmessage'], { names: { '90:postmessage': 'Counter' } });
      await until(() => srv.providers().some((p) => p.providerKey === '90:postmessage'), 'announced');
      const list = await bridgeProviders({ bridge: srv.url, timeout: WAIT });
      assert.ok(list.some((p) => p.providerKey === '90:postmessage' && p.provider.name === 'Counter'), JSON.stringify(list));

      const app = await connect({ bridge: srv.url, provider: 'Counter', timeout: WAIT });
      try {
        const info = await app.info();
        assert.equal(info.live, true);
        assert.equal(info.provider.name, 'Counter');
        assert.equal(app.url, srv.url);
        const root = await app.node('/');
        assert.equal(root.properties.count, 0);
        assert.match(await app.text(), /count=0/);
        const r = await app.invoke('/', 'inc');
        assert.equal(r.status, 'ok');
        await app.waitFor('/', (n) => n?.properties.count === 1);
        const frames = await app.frames();
        const snap = frames.find((f) => f.dir === 'in' && f.type === 'snapshot');
        assert.ok(snap.text.includes('"price":1.50,"zero":-0,"big":12345678901234567890'), 'the session read the provider\'s bytes');
      } finally {
        app.close();
      }
      await b.next((m) => m.type === 'relay-close' && m.providerKey === '90:postmessage');
      assert.ok(b.providers[0].got.some((m) => m.type === 'unsubscribe'), 'closing unsubscribed in the page');

      // By its key too; and an unknown name lists what there is.
      const byKey = await connect({ bridge: srv.url, provider: '90:postmessage', timeout: WAIT });
      byKey.close();
      await assert.rejects(connect({ bridge: srv.url, provider: 'Nope', timeout: WAIT }), (e) => {
        assert.ok(e instanceof SlopTestError);
        assert.equal(e.code, SlopTestCode.NO_PROVIDER);
        assert.match(e.message, /no provider "Nope"; it has .*"Counter" \(id id-90:postmessage, key 90:postmessage\)/);
        return true;
      });
      b.close();
    });

    test('the provider going away ends the client\'s wait with a clear error; no bridge: unreachable', async () => {
      const b = await browser(srv, ['91:postmessage'], { names: { '91:postmessage': 'Mute' }, leaves: true });
      await until(() => srv.providers().some((p) => p.providerKey === '91:postmessage'), 'announced');
      await assert.rejects(connect({ bridge: srv.url, provider: 'Mute', timeout: WAIT }), (e) => {
        assert.equal(e.code, SlopTestCode.UNREACHABLE);
        assert.match(e.message, /went away/);
        return true;
      });
      b.close();
      await assert.rejects(connect({ bridge: 'ws://127.0.0.1:1/slop-bridge', provider: 'x', timeout: 1000 }), (e) => {
        assert.equal(e.code, SlopTestCode.UNREACHABLE);
        return true;
      });
    });
  });
});

describe('with the extension\'s own bridge client (extension/service-worker/desktop-bridge.js, driven outside the browser)', () => {
  test('it pairs, announces its tab, relays through its own relay; two Node clients on one tab stay apart, numbers exact', async () => {
    const srv = await bridge();
    const core = await loadCore();
    /** The page's provider: it answers what the extension's relay passes in, through pageFrame. */
    const page = { subs: new Map(), version: 1, count: 0, got: [] };
    const conn = {
      tabId: 4, key: 'postmessage', isPostMessage: true, status: 'connected', disposed: false, wire: {},
      provider: { id: 'tab-app', name: 'Tab App' }, pageUrl: 'http://app.test/', consumer: null, primarySub: null,
      page: { send: (m) => setImmediate(() => answer(m)) },
    };
    let ext = null;
    const frame = (text) => ext.pageFrame(conn, text);
    function answer(m) {
      page.got.push(m);
      if (m.type === 'connect') frame('{"type":"hello","provider":{"id":"tab-app","name":"Tab App","slop_version":"0.1","capabilities":["state","patches","affordances"]}}');
      if (m.type === 'subscribe') {
        page.subs.set(m.id, 0);
        frame(`{"type":"snapshot","id":${JSON.stringify(m.id)},"version":${page.version},"seq":0,"tree":${TREE.replace('"count":0', `"count":${page.count}`)}}`);
      }
      if (m.type === 'unsubscribe') page.subs.delete(m.id);
      if (m.type === 'invoke') {
        frame(`{"type":"result","id":${JSON.stringify(m.id)},"status":"ok"}`);
        page.count++;
        page.version++;
        for (const [sub, seq] of page.subs) {
          page.subs.set(sub, seq + 1);
          frame(`{"type":"patch","subscription":${JSON.stringify(sub)},"version":${page.version},"seq":${seq + 1},"ops":[{"op":"replace","path":"/properties/count","value":${page.count}}]}`);
        }
      }
    }
    ext = new DesktopBridge({ core: () => core, connections: () => [conn], publish: () => {}, WebSocket, pairTimeoutMs: 1000 });
    try {
      ext.configure({ enabled: true, url: srv.url, token: normalizeCode(CODE), allowUnpaired: false });
      await until(() => ext.state === 'connected', 'the extension paired');
      assert.equal(ext.status().mode, 'paired');
      await until(() => srv.providers().some((p) => p.providerKey === '4:postmessage'), 'its tab announced');
      // The extension asks before a desktop invoke of an affordance its own mirror does not show;
      // this test has no mirror, so the user trusts the provider.
      ext.setTrust(ext.status().shared.map((x) => x.trustKey));

      const a = await connect({ bridge: srv.url, provider: 'Tab App', timeout: WAIT });
      const b = await connect({ bridge: srv.url, provider: '4:postmessage', timeout: WAIT });
      try {
        assert.equal((await a.invoke('/', 'inc')).status, 'ok');
        await a.waitFor('/', (n) => n?.properties.count === 1);
        await b.waitFor('/', (n) => n?.properties.count === 1);
        const subs = [...page.subs.keys()];
        assert.equal(subs.length, 2, subs.join());
        assert.ok(subs.every((id) => /^b[0-9a-z]+~c[0-9a-z]+~/.test(id)), `the extension's prefix, then the bridge's: ${subs}`);
        const results = (await b.events()).filter((e) => e.event === 'result');
        assert.deepEqual(results, [], 'b did not get a\'s result');
        const snap = (await b.frames()).find((f) => f.dir === 'in' && f.type === 'snapshot');
        assert.ok(snap.text.includes('"price":1.50,"zero":-0,"big":12345678901234567890'), snap.text);
        a.close();
        await until(() => page.subs.size === 1, 'a\'s subscription ended in the page');
        assert.equal((await b.invoke('/', 'inc')).status, 'ok');
        await b.waitFor('/', (n) => n?.properties.count === 2);
      } finally {
        a.close();
        b.close();
      }
    } finally {
      ext.configure({ enabled: false, url: srv.url });
      await srv.close();
    }
  });
});

describe('the agent that asks, from this bridge to the extension\'s bridge client', () => {
  test('an invoke it holds for approval names the consumer: its id on the bridge, and the name it gave', async () => {
    const srv = await bridge();
    const core = await loadCore();
    const page = { got: [] };
    const conn = {
      tabId: 5, key: 'postmessage', isPostMessage: true, status: 'connected', disposed: false, wire: {},
      provider: { id: 'tab-app', name: 'Tab App' }, pageUrl: 'http://app.test/', consumer: null, primarySub: null,
      page: { send: (m) => { page.got.push(m); if (m.type === 'connect') setImmediate(() => ext.pageFrame(conn, '{"type":"hello","provider":{"id":"tab-app","name":"Tab App","slop_version":"0.1","capabilities":["state","affordances"]}}')); } },
    };
    const ext = new DesktopBridge({ core: () => core, connections: () => [conn], publish: () => {}, WebSocket, pairTimeoutMs: 1000 });
    const named = new Client(srv.url);
    const bare = new Client(srv.url);
    try {
      ext.configure({ enabled: true, url: srv.url, token: normalizeCode(CODE), allowUnpaired: false });
      await until(() => srv.providers().some((p) => p.providerKey === '5:postmessage'), 'its tab announced');
      await Promise.all([named.opened, bare.opened]);
      named.send({ type: 'relay-open', providerKey: '5:postmessage', client: { name: 'codex' } });
      await named.slop('hello');
      bare.send({ type: 'relay-open', providerKey: '5:postmessage' });
      await bare.slop('hello');
      // No mirror in this test: the extension does not know the affordance, so it asks.
      named.relay('5:postmessage', { type: 'invoke', id: 'inv-1', path: '/', action: 'wipe' });
      bare.relay('5:postmessage', { type: 'invoke', id: 'inv-1', path: '/', action: 'wipe' });
      await until(() => ext.status().approvals.length === 2, 'two asks held');
      const ids = srv.consumers().map((c) => String(c.n));
      const agents = ext.status().approvals.map((a) => a.agent);
      assert.ok(agents.every((a) => ids.includes(a.id)), JSON.stringify(agents));
      assert.notEqual(agents[0].id, agents[1].id);
      assert.deepEqual(agents.map((a) => a.name).sort(), ['codex', null]);
    } finally {
      named.close();
      bare.close();
      ext.configure({ enabled: false, url: srv.url });
      await srv.close();
    }
  });
});

describe('the command: slop-inspector bridge', () => {
  test('prints where it listens and the code once, one line per event, no code after; Ctrl-C closes it; tree bridge:<name> reads a tab', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'slop-bridge-cli-'));
    const env = { ...process.env, XDG_CONFIG_HOME: dir, SLOP_BRIDGE_CODE: '' };
    const child = spawn(process.execPath, [CLI, 'bridge', '--port', '0'], { env });
    let stdout = '';
    child.stdout.on('data', (d) => { stdout += d; });
    const exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await until(() => /Ctrl-C stops it/.test(stdout), 'the start block');
      const url = stdout.match(/listening at (ws:\/\/\S+)/)[1];
      const code = stdout.match(/Pairing code: (\S+)/)[1];
      assert.match(stdout, new RegExp(`\\(new, saved in ${dir}/slop-inspector/bridge\\.json\\)`));
      assert.match(stdout, /Paste it in SLOP Inspector: Options → Desktop bridge → Pairing code/);
      assert.equal(normalizeCode(code)?.length, 26);
      const b = await browser({ url }, ['3:postmessage'], { code, names: { '3:postmessage': 'Cli' } });
      await until(() => /provider announced: "Cli"/.test(stdout), 'the announcement line');
      const r = await runCli(['tree', 'bridge:Cli', '--bridge', url, '--timeout', String(WAIT)]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^\[root\] root \(.*count=0/);
      await until(() => /consumer \d+ left/.test(stdout), 'the consumer line');
      b.close();
      await until(() => /browser \d+ left/.test(stdout), 'the browser line');
      assert.equal(stdout.split(code).length, 2, 'the code is printed once');
      child.kill('SIGINT');
      assert.equal(await exited, 0);
      assert.match(stdout, /bridge closed\n$/);
    } finally {
      child.kill();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  test('a port in use (a real listener holds it): exit 1, who may be there and what to do, and no code made or saved; a bad code: exit 1', async () => {
    const holder = net.createServer((sock) => sock.destroy());
    await new Promise((r) => holder.listen(0, '127.0.0.1', r));
    const port = holder.address().port;
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'slop-bridge-busy-'));
    try {
      for (const args of [['bridge', '--port', String(port)], ['bridge', '--port', String(port), '--new-code']]) {
        const r = await runCli(args, { XDG_CONFIG_HOME: dir, SLOP_BRIDGE_CODE: '' });
        assert.equal(r.code, 1, args.join(' '));
        assert.equal(r.stderr, `slop-inspector: ${portInUse(port)}\n`);
        assert.equal(r.stdout, '', 'no code printed');
        assert.deepEqual(await fs.readdir(dir), [], 'nothing created');
      }
      assert.equal(portInUse(9339), 'port 9339 is in use: another bridge (the SLOP desktop app, or a Claude Code/Codex plugin\'s own server) is running. '
        + 'Start `slop-inspector bridge` before the plugins (they then use it as clients), or stop the program holding 9339');
    } finally {
      await new Promise((r) => holder.close(r));
      await fs.rm(dir, { recursive: true, force: true });
    }
    const bad = await runCli(['bridge', '--port', '0'], { SLOP_BRIDGE_CODE: 'nope' });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /\$SLOP_BRIDGE_CODE is not a SLOP Inspector pairing code/);
  });

  test('--print-code prints the kept code (made if none); --new-code replaces it', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'slop-bridge-cli-'));
    const env = { XDG_CONFIG_HOME: dir, SLOP_BRIDGE_CODE: '' };
    try {
      const a = await runCli(['bridge', '--print-code'], env);
      assert.equal(a.code, 0, a.stderr);
      assert.match(a.stdout, /^([0-9A-Z]{4}-){6}[0-9A-Z]{2}\n$/);
      assert.equal((await runCli(['bridge', '--print-code'], env)).stdout, a.stdout);
      const b = await runCli(['bridge', '--new-code', '--print-code'], env);
      assert.notEqual(b.stdout, a.stdout);
      assert.equal((await runCli(['bridge', '--print-code'], env)).stdout, b.stdout);
      assert.equal((await runCli(['tree', 'ws://x', '--port', '1'])).code, 2, '--port goes with bridge');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the Node client through the SLOP project\'s TypeScript bridge (kind "ts" of tests/fixtures/desktop-bridge.mjs)', () => {
  test('it sends everything to everyone, ours included: the client drops its own messages coming back', async () => {
    const ts = await startDesktopBridge({ kind: 'ts' });
    const ext = new Client(ts.url);
    try {
      await ext.opened;
      const tiny = new TinyProvider(ext, '5:postmessage', { name: 'Echoed' });
      tiny.announce();
      await ext.next((m) => m.type === 'provider-available'); // its own, back
      const app = await connect({ bridge: ts.url, provider: 'Echoed', timeout: WAIT });
      try {
        assert.equal((await app.info()).live, true);
        assert.equal((await app.invoke('/', 'inc')).status, 'ok');
        await app.waitFor('/', (n) => n?.properties.count === 1);
        const types = (await app.frames()).filter((f) => f.dir === 'in').map((f) => f.type);
        assert.deepEqual([...new Set(types)].sort(), ['hello', 'patch', 'result', 'snapshot'], types.join());
        assert.deepEqual((await app.conformance()).findings, []);
      } finally {
        app.close();
      }
    } finally {
      ext.close();
      await ts.close();
    }
  });
});

describe('the pairing code and the port', () => {
  test('no code given: made, saved 0600 in a 0700 folder, and the same one used next time', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'slop-bridge-code-'));
    const saved = { xdg: process.env.XDG_CONFIG_HOME, code: process.env.SLOP_BRIDGE_CODE };
    process.env.XDG_CONFIG_HOME = dir;
    delete process.env.SLOP_BRIDGE_CODE;
    try {
      const a = await bridge({ code: undefined });
      await a.close();
      assert.equal(a.pairingCode.from, 'new');
      const file = path.join(dir, 'slop-inspector', 'bridge.json');
      assert.equal(a.pairingCode.file, file);
      assert.equal((await fs.stat(path.dirname(file))).mode & 0o777, 0o700);
      assert.equal((await fs.stat(file)).mode & 0o777, 0o600);
      assert.deepEqual((await fs.readdir(path.dirname(file))), ['bridge.json'], 'no temporary file left');
      const stored = JSON.parse(await fs.readFile(file, 'utf8'));
      assert.equal(normalizeCode(stored.code), a.code);

      const b = await bridge({ code: undefined });
      await b.close();
      assert.equal(b.pairingCode.from, 'file');
      assert.equal(b.code, a.code);

      // $SLOP_BRIDGE_CODE wins, in any form normalizeCode reads; a code that is none refuses to start.
      process.env.SLOP_BRIDGE_CODE = CODE.toLowerCase();
      const c = await bridge({ code: undefined });
      await c.close();
      assert.equal(c.pairingCode.from, 'env');
      assert.equal(c.code, normalizeCode(CODE));
      process.env.SLOP_BRIDGE_CODE = 'not-a-code';
      await assert.rejects(bridge({ code: undefined }), /\$SLOP_BRIDGE_CODE is not a SLOP Inspector pairing code/);
      await assert.rejects(bridge({ code: 'ABCD' }), /the code given is not a SLOP Inspector pairing code/);
      delete process.env.SLOP_BRIDGE_CODE;
      await fs.writeFile(file, '{"code":"1234"}');
      await assert.rejects(bridge({ code: undefined }), /the code in .*bridge\.json .* is not a SLOP Inspector pairing code/);
    } finally {
      if (saved.xdg === undefined) delete process.env.XDG_CONFIG_HOME; else process.env.XDG_CONFIG_HOME = saved.xdg;
      if (saved.code === undefined) delete process.env.SLOP_BRIDGE_CODE; else process.env.SLOP_BRIDGE_CODE = saved.code;
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  test('a port in use: EADDRINUSE, in words that say who may be there and what to do; no code made', async () => {
    const a = await bridge();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'slop-bridge-busy-'));
    const saved = { xdg: process.env.XDG_CONFIG_HOME, code: process.env.SLOP_BRIDGE_CODE };
    process.env.XDG_CONFIG_HOME = dir;
    delete process.env.SLOP_BRIDGE_CODE;
    try {
      for (const o of [{ code: undefined }, { code: undefined, newCode: true }]) {
        await assert.rejects(bridge({ port: a.port, ...o }), (e) => {
          assert.equal(e.code, 'EADDRINUSE');
          assert.equal(e.message, portInUse(a.port));
          return true;
        });
      }
      assert.deepEqual(await fs.readdir(dir), [], 'no code saved');
    } finally {
      if (saved.xdg === undefined) delete process.env.XDG_CONFIG_HOME; else process.env.XDG_CONFIG_HOME = saved.xdg;
      if (saved.code !== undefined) process.env.SLOP_BRIDGE_CODE = saved.code;
      await a.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
