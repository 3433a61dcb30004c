// bridge-suite.mjs: the desktop bridge against every real desktop tool, described once and run in
// Chromium (tests/e2e/desktop-bridges.test.mjs) and Firefox ESR (tests/firefox/desktop-bridges.test.mjs)
// for each bridge:
//   ts     the SLOP project's TypeScript server (its Claude Code and Codex plugins): echoes the first
//          subprotocol offered, sends everything to everyone, forgets a provider only when told
//   go     its Go CLI: no subprotocol, 32 KiB read limit, a consumer that never sends connect
//   rust   its desktop app: no subprotocol, no HTTP answer to a plain request
//   ours   `slop-inspector bridge`: pairs by proof, keeps its consumers apart
// The first three are our emulations (tests/fixtures/desktop-bridge.mjs; docs/desktop-bridge.md
// says what each does); the last is the package's own server. Everything the user does goes through
// the options page, as a user would; what the desktop sees is read from the bridge's side.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { WebSocket } from 'ws';
import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { startDesktopBridge } from '../fixtures/desktop-bridge.mjs';
import { startBridgeServer } from '../../js-glue/node/bridge-server.js';
import { newPairingCode } from '../../js-glue/bridge-pairing.js';
import { openBrowser } from './driver.mjs';
import { ROOT } from '../e2e/helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
const TIMEOUT = 90_000;
export const BRIDGE_KINDS = ['ts', 'go', 'rust', 'ours'];

const settle = (ms) => new Promise((r) => setTimeout(r, ms));

/** First element of list (from `since`) matching predicate, waiting up to timeout. */
async function nextIn(list, predicate, { since = 0, timeout = 10_000, what = 'a message' } = {}) {
  const end = Date.now() + timeout;
  for (;;) {
    for (let i = since; i < list.length; i++) if (predicate(list[i])) return list[i];
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(list.slice(-5)).slice(0, 600)}`);
    await settle(25);
  }
}

/** Polls fn until it is truthy. */
async function until(fn, what, timeout = 15_000) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await settle(50);
  }
}

/**
 * A desktop consumer as the SLOP project's TypeScript bridge client is (the Claude Code and Codex
 * plugins when a bridge already listens): a bare WebSocket client; relay-open, then connect.
 */
async function tsClient(url) {
  const ws = new WebSocket(url);
  const frames = [];
  const providers = new Map();
  const logs = new Map();
  const log = (key) => (logs.has(key) ? logs.get(key) : logs.set(key, []).get(key));
  ws.on('message', (data) => {
    let m;
    try { m = JSON.parse(data.toString()); } catch { return; }
    frames.push(m);
    if (m.type === 'provider-available') providers.set(m.providerKey, m);
    else if (m.type === 'provider-unavailable') providers.delete(m.providerKey);
    else if (m.type === 'slop-relay' && typeof m.providerKey === 'string') log(m.providerKey).push(m.message);
  });
  ws.on('error', () => {});
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  const send = (o) => ws.send(JSON.stringify(o));
  return {
    frames, providers, send, sendRaw: (t) => ws.send(t),
    relay(providerKey) {
      const messages = log(providerKey);
      return {
        messages,
        open: () => send({ type: 'relay-open', providerKey }),
        send: (message) => send({ type: 'slop-relay', providerKey, message }),
        next: (p, o) => nextIn(messages, p, o),
        close: () => send({ type: 'relay-close', providerKey }),
      };
    },
    close: () => new Promise((resolve) => { if (ws.readyState === WebSocket.CLOSED) return resolve(); ws.once('close', resolve); ws.close(); }),
  };
}

/** One bridge behind one interface: its address, what it lists, and its desktop consumers. */
async function startBridge(kind) {
  if (kind === 'ours') {
    const code = newPairingCode();
    const server = await startBridgeServer({ port: 0, code, log: () => {} });
    return {
      kind, url: server.url, code, pairs: true,
      listed: () => new Set(server.providers().map((p) => p.providerKey)),
      consumer: () => tsClient(server.url),
      seenBeforePairing: () => [],
      close: () => server.close(),
    };
  }
  const fixture = await startDesktopBridge({ kind });
  return {
    kind, url: fixture.url, code: newPairingCode(), pairs: false, fixture,
    listed: () => new Set(fixture.providers.keys()),
    consumer: kind === 'go' ? null : () => fixture.consumer(),
    /** The Go CLI's own consumer: relay-open, then waits for a hello without sending connect. */
    local: (key) => fixture.local(key, { connect: false }),
    seenBeforePairing: () => fixture.received.map((m) => m.type),
    close: () => fixture.close(),
  };
}

/** A relay as a desktop consumer of this bridge holds it: ts, rust, ours a client; go its own. */
async function desktopRelay(bridge, key) {
  if (bridge.kind === 'go') {
    const r = bridge.local(key);
    r.open();
    return { r, client: null, needsConnect: false };
  }
  const client = await bridge.consumer();
  await until(() => client.providers.has(key), `${key} announced to the consumer`);
  const r = client.relay(key);
  r.open();
  r.send({ type: 'connect' });
  return { r, client, needsConnect: true };
}

/**
 * @param {'chromium'|'firefox'} browserKind
 * @param {'ts'|'go'|'rust'|'ours'} bridgeKind
 */
export function bridgeSuite(browserKind, bridgeKind) {
  describe(`desktop bridge: ${bridgeKind} in ${browserKind}`, () => {
    let d, srv, bridge, options, spa, key;
    const state = () => options.evaluate(() => {
      const el = document.getElementById('bridge-status');
      return { state: el.dataset.state, mode: el.dataset.mode, text: el.textContent };
    });
    const waitState = (want, what) => options.waitUntil((w) => {
      const el = document.getElementById('bridge-status');
      return el.dataset.state === w.state && (!w.mode || el.dataset.mode === w.mode) ? { state: el.dataset.state, mode: el.dataset.mode, text: el.textContent } : null;
    }, want, { timeout: 20_000, what: what ?? `bridge ${JSON.stringify(want)}` });

    before(async () => {
      d = await openBrowser(browserKind);
      srv = await startWsProvider({ engine: createMailEngine({ messages: 2, live: false }), host: '127.0.0.1', port: 0, allowedOrigins: [d.extOrigin] });
      bridge = await startBridge(bridgeKind);
      const url = srv.url('/pages/spa.html?live=0');
      spa = await d.webPage(url);
      const tabId = await d.tabId(url);
      assert.ok(Number.isInteger(tabId), 'the SPA tab');
      key = `${tabId}:postmessage`;
      options = await d.extensionPage('extension/options/options.html');
      await fs.mkdir(SHOTS, { recursive: true });
    });
    after(async () => {
      await d?.close();
      await bridge?.close();
      await srv?.close();
    });

    test('with a pairing code saved and unpaired bridges not allowed, a tab goes only to a bridge that proves the code', { timeout: TIMEOUT }, async () => {
      await options.fill('#bridge-url', bridge.url);
      await options.click('#bridge-url-form button[type="submit"]');
      await options.waitUntil(() => /is dialled at/.test(document.getElementById('bridge-url-message').textContent), undefined, { what: 'address saved' });
      await options.fill('#bridge-token', bridge.code);
      await options.click('#bridge-form button[type="submit"]');
      await options.waitFor('#bridge-saved:not([hidden])');
      await options.click('#bridge-enabled');
      if (bridge.pairs) {
        const st = await waitState({ state: 'connected', mode: 'paired' });
        assert.match(st.text, /paired: the bridge proved it knows your pairing code/);
        await until(() => bridge.listed().has(key), 'the tab\'s provider announced to the paired bridge');
      } else {
        const st = await waitState({ state: 'no-pairing' });
        assert.match(st.text, /did not prove a pairing code/);
        await settle(500);
        assert.deepEqual(bridge.listed(), new Set(), 'nothing announced');
        assert.ok(bridge.seenBeforePairing().every((t) => t === 'pair-challenge'), `only the challenge was sent: ${bridge.seenBeforePairing()}`);
        const page = await options.evaluate(() => document.documentElement.outerHTML);
        assert.ok(!page.includes(bridge.code.replace(/-/g, '')), 'the code is not in the page');
      }
      await options.evaluate(() => document.getElementById('bridge-h').scrollIntoView());
      await options.screenshot(path.join(SHOTS, `bridge-${browserKind}-${bridgeKind}-consent.png`));
    });

    test('used once allowed (or paired): the tab\'s in-page provider is announced', { timeout: TIMEOUT }, async () => {
      if (!bridge.pairs) {
        await options.click('#bridge-unpaired');
        const st = await waitState({ state: 'connected', mode: 'unpaired' });
        assert.match(st.text, /without pairing/);
      }
      await until(() => bridge.listed().has(key), `${key} listed by the bridge`);
      assert.match((await state()).text, bridge.pairs ? /Sharing 1 provider: agents on this machine see it\./ : /1 provider announced \(this bridge does not confirm\)/);
    });

    test('a desktop consumer gets a hello, subscribes and invokes through the relay', { timeout: TIMEOUT }, async () => {
      const { r, client } = await desktopRelay(bridge, key);
      const hello = await r.next((m) => m?.type === 'hello', { what: 'the hello' });
      assert.equal(hello.provider.id, 'todo-spa');
      r.send({ type: 'subscribe', id: 'sub-1', path: '/', depth: -1 });
      const snap = await r.next((m) => m?.type === 'snapshot' && m.id === 'sub-1', { what: 'the snapshot' });
      assert.ok(snap.tree, 'a tree');
      r.send({ type: 'invoke', id: 'inv-1', path: '/todos/t1', action: 'toggle' });
      const res = await r.next((m) => m?.type === 'result' && m.id === 'inv-1', { what: 'the result' });
      assert.equal(res.status, 'ok');
      r.send({ type: 'unsubscribe', id: 'sub-1' });
      r.close();
      await client?.close();
    });

    test('two desktop consumers using the same ids: one leaving does not end the other\'s subscription', { timeout: TIMEOUT, skip: bridgeKind === 'go' ? 'the Go CLI has one consumer, its own' : false }, async () => {
      const a = await desktopRelay(bridge, key);
      const b = await desktopRelay(bridge, key);
      await a.r.next((m) => m?.type === 'hello', { what: 'a hello (a)' });
      await b.r.next((m) => m?.type === 'hello', { what: 'a hello (b)' });
      a.r.send({ type: 'subscribe', id: 'sub-1', path: '/', depth: -1 });
      await a.r.next((m) => m?.type === 'snapshot' && m.id === 'sub-1', { what: 'a\'s snapshot' });
      const bSince = b.r.messages.length;
      b.r.send({ type: 'subscribe', id: 'sub-1', path: '/', depth: -1 });
      await b.r.next((m) => m?.type === 'snapshot' && m.id === 'sub-1', { since: bSince, what: 'b\'s snapshot' });
      // Both invoke as "inv-1": a toggles, b renames.
      const aSince = a.r.messages.length;
      const bSince2 = b.r.messages.length;
      a.r.send({ type: 'invoke', id: 'inv-1', path: '/todos/t1', action: 'toggle' });
      await a.r.next((m) => m?.type === 'result' && m.id === 'inv-1', { since: aSince, what: 'a\'s result' });
      b.r.send({ type: 'invoke', id: 'inv-1', path: '/todos/t2', action: 'rename', params: { title: `renamed in ${browserKind}` } });
      await b.r.next((m) => m?.type === 'result' && m.id === 'inv-1' && !m.data, { since: bSince2, what: 'b\'s result' });
      if (bridgeKind === 'ours') {
        // Kept apart: each sees its own result only.
        await settle(300);
        const results = (msgs, since) => msgs.slice(since).filter((m) => m?.type === 'result' && m.id === 'inv-1');
        assert.equal(results(a.r.messages, aSince).length, 1, 'a saw one result');
        assert.ok(results(a.r.messages, aSince)[0].data && 'done' in results(a.r.messages, aSince)[0].data, 'a\'s is the toggle\'s');
        assert.equal(results(b.r.messages, bSince2).length, 1, 'b saw one result');
      }
      // a leaves the way the TypeScript client does: unsubscribe, then relay-close.
      a.r.send({ type: 'unsubscribe', id: 'sub-1' });
      a.r.close();
      await a.client?.close();
      await settle(300);
      const since = b.r.messages.length;
      await spa.evaluate(() => window.slopProvider.engine.mutate((root) => { (root.properties ??= {}).poke = Date.now(); }));
      await b.r.next((m) => m?.type === 'patch' && m.subscription === 'sub-1', { since, what: 'b\'s patch after a left' });
      b.r.send({ type: 'unsubscribe', id: 'sub-1' });
      b.r.close();
      await b.client?.close();
    });

    test('a request over 1 MiB gets an error with its id, not silence', { timeout: TIMEOUT }, async () => {
      const { r, client } = await desktopRelay(bridge, key);
      await r.next((m) => m?.type === 'hello', { what: 'the hello' });
      r.send({ type: 'invoke', id: 'inv-big', path: '/todos/t1', action: 'rename', params: { title: 'x'.repeat(1.5 * 1024 * 1024) } });
      // (A broadcasting server shows the consumer its own request too: the answer is the result.)
      const res = await r.next((m) => m?.id === 'inv-big' && m.type === 'result', { what: 'the answer to the big request' });
      assert.equal(res.status, 'error');
      assert.equal(res.error.code, 'too_large');
      r.close();
      await client?.close();
    });

    test('sharing turned off: every provider is withdrawn before the connection closes', { timeout: TIMEOUT }, async () => {
      const watcher = bridge.consumer ? await bridge.consumer() : null;
      if (watcher) await until(() => watcher.providers.has(key), 'the watcher told of the tab');
      await options.click('#bridge-enabled');
      await waitState({ state: 'off' });
      await until(() => !bridge.listed().has(key), 'the bridge no longer listing the tab');
      if (watcher) {
        await nextIn(watcher.frames, (m) => m.type === 'provider-unavailable' && m.providerKey === key, { what: 'provider-unavailable to the consumer' });
        await watcher.close();
      }
    });
  });
}
