// The desktop bridge: the extension dials the desktop's bridge and pairs by proof, announces
// the providers the user can see (after hello, withdrawn when they go), relays an in-page
// provider to a desktop consumer with its own ids, and holds a dangerous invoke from the desktop
// until the user answers in the popup. Against our own bridge (tests/fixtures/desktop-bridge.mjs).

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { startDesktopBridge } from '../fixtures/desktop-bridge.mjs';
import { newPairingCode, normalizeCode } from '../../js-glue/bridge-pairing.js';
import { ROOT, launch, stopServiceWorker, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openExtensionPage, swEval, waitForSw, until, mirror, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
const bridgeStatus = (ctx) => swEval(ctx, () => globalThis.slopInspector.bridge.status());
const waitBridge = (ctx, state, what = `bridge ${state}`) =>
  waitForSw(ctx, (s) => globalThis.slopInspector.bridge.status().state === s && globalThis.slopInspector.bridge.status(), state, { what });

describe('desktop bridge', () => {
  let browser, srv, bridge, spa, spaTab, wsTab, pmKey, wsKey;

  before(async () => {
    srv = await startProvider({ engine: createMailEngine({ messages: 3 }) });
    bridge = await startDesktopBridge();
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
    await bridge?.close();
  });

  test('off by default; the options page pairs it (loopback only, token masked) and it connects', { timeout: TEST_TIMEOUT }, async () => {
    assert.equal((await bridgeStatus(browser.ctx)).state, 'off');
    assert.equal(bridge.connections, 0, 'nothing dialled while off');
    const options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
    assert.equal(await options.locator('#bridge-url').inputValue(), 'ws://127.0.0.1:9339/slop-bridge');
    await options.fill('#bridge-url', 'ws://example.com:9339/slop-bridge');
    await options.click('#bridge-url-form button[type="submit"]');
    assert.match(await options.locator('#bridge-url-message').textContent(), /Only a bridge on this machine/);
    await options.fill('#bridge-url', bridge.url);
    await options.click('#bridge-url-form button[type="submit"]');
    await until(async () => /is dialled at/.test(await options.locator('#bridge-url-message').textContent()), { what: 'address saved' });

    await options.check('#bridge-enabled');
    await until(async () => (await options.locator('#bridge-status').getAttribute('data-state')) === 'no-token', { what: 'no-token status' });
    assert.match(await options.locator('#bridge-status').textContent(), /nothing is saved/);

    await options.fill('#bridge-token', bridge.token);
    await options.click('#bridge-form button[type="submit"]');
    await options.locator('#bridge-saved:not([hidden])').waitFor({ timeout: 5000 });
    const saved = await options.locator('#bridge-saved-text').textContent();
    assert.match(saved, /^Pairing code saved: •+ \(/);
    assert.ok(!saved.includes(bridge.token) && !saved.includes(normalizeCode(bridge.token)));
    await until(async () => (await options.locator('#bridge-status').getAttribute('data-state')) === 'connected', { what: 'connected status' });
    await bridge.waitForConnection();
    assert.match(await options.locator('#bridge-status').textContent(), /^Connected to ws:\/\/127\.0\.0\.1:\d+\/slop-bridge, paired: the bridge proved it knows your pairing code\. Sharing 0 providers: only connected providers are shared\.$/);
    assert.equal(await options.locator('#bridge-status').getAttribute('data-mode'), 'paired');
    // The "saved" line does not sit beside a status that moved on.
    await until(async () => (await options.locator('#bridge-message').textContent()) === '', { what: 'the saved line gone once paired' });
    assert.equal(bridge.refusals.length, 0);
    await fs.mkdir(SHOTS, { recursive: true });
    await options.locator('#bridge-h').scrollIntoViewIfNeeded();
    await options.screenshot({ path: path.join(SHOTS, 'options-bridge.png'), fullPage: true });
    const page = await options.content();
    assert.ok(!page.includes(bridge.token) && !page.includes(normalizeCode(bridge.token)), 'the code is nowhere in the page');
    await options.close();
  });

  test('connected providers are announced after hello, with the hello\'s name and id; a provider that goes is withdrawn', { timeout: TEST_TIMEOUT }, async () => {
    spa = await browser.ctx.newPage();
    await spa.goto(srv.url('/pages/spa.html'));
    ({ tabId: spaTab } = await waitForProvider(browser.ctx, srv.url('/pages/spa.html'), (p) => p.status === 'connected' && p.nodes > 0));
    pmKey = `${spaTab}:postmessage`;
    const pm = await bridge.waitFor((m) => m.type === 'provider-available' && m.providerKey === pmKey, { what: 'the SPA announced' });
    assert.deepEqual(pm.provider, { id: 'todo-spa', name: 'Todo SPA', transport: 'postmessage' });
    assert.equal(pm.tabId, spaTab);

    const mail = await browser.ctx.newPage();
    await mail.goto(srv.url('/pages/meta-ws.html'));
    ({ tabId: wsTab } = await waitForProvider(browser.ctx, srv.url('/pages/meta-ws.html'), (p) => p.status === 'connected'));
    wsKey = `${wsTab}:${srv.wsUrl}`;
    const ws = await bridge.waitFor((m) => m.type === 'provider-available' && m.providerKey === wsKey, { what: 'the ws provider announced' });
    assert.deepEqual(ws.provider, { id: 'acme-mail', name: 'Acme Mail', transport: 'ws', url: srv.wsUrl });
    assert.ok(!JSON.stringify(bridge.received).includes(srv.token), 'the provider token is never handed over');

    const popup = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${spaTab}`);
    await until(async () => (await popup.locator('#bridge li').count()) === 2, { what: 'two shared providers in the popup' });
    assert.equal(await popup.locator('#bridge .pill').textContent(), 'Connected, paired');
    assert.match(await popup.locator('#bridge').textContent(), /Todo SPA \(in-page\).*Acme Mail \(WebSocket: the agent connects itself\)/s);
    await popup.close();

    const since = bridge.received.length;
    await mail.close();
    const gone = await bridge.waitFor((m) => m.type === 'provider-unavailable' && m.providerKey === wsKey, { since, what: 'withdrawn' });
    assert.equal(gone.tabId, wsTab);
    assert.equal(bridge.providers.has(wsKey), false);
  });

  test('a desktop consumer drives the in-page provider through the relay with its own ids; the extension\'s mirror stays live', { timeout: TEST_TIMEOUT }, async () => {
    const r = bridge.relay(pmKey);
    r.open();
    r.send({ type: 'connect' });
    const hello = await r.next((m) => m.type === 'hello', { what: 'hello' });
    assert.equal(hello.provider.id, 'todo-spa');
    r.send({ type: 'subscribe', id: 'sub-1', path: '/', depth: -1 });
    const snap = await r.next((m) => m.type === 'snapshot', { what: 'snapshot' });
    assert.equal(snap.id, 'sub-1', 'the relay prefix is taken off');
    assert.deepEqual(snap.tree.children[0].children.map((c) => c.id), ['t1', 't2', 't3']);
    // The page saw the desktop's subscription under the relay's own id, never as "sub-1".
    const seen = await spa.evaluate(() => window.slopProvider.received.filter((m) => m.type === 'subscribe').map((m) => m.id));
    assert.ok(seen.some((id) => /^b[0-9a-z]+~sub-1$/.test(id)), JSON.stringify(seen));
    assert.ok(!seen.includes('sub-1'));

    const since = r.messages.length;
    r.send({ type: 'invoke', id: 'req-1', path: '/todos/t1', action: 'toggle' });
    const result = await r.next((m) => m.type === 'result' && m.id === 'req-1', { since, what: 'the toggle result' });
    assert.equal(result.status, 'ok');
    await r.next((m) => m.type === 'patch' && m.subscription === 'sub-1', { since, what: 'the patch' });
    // Only its own frames: no snapshot or patch of the extension's subscription reached it.
    assert.ok(r.messages.every((m) => !['snapshot', 'patch'].includes(m.type) || m.id === 'sub-1' || m.subscription === 'sub-1'));
    // The extension's own mirror followed the same change and is live.
    await until(async () => (await mirror(browser.ctx, spaTab, 'postmessage'))?.children?.[0]?.children?.[0]?.properties?.done === true, { what: 't1 done in the extension mirror' });
    const info = await swEval(browser.ctx, (t) => globalThis.slopInspector.info(t, 'postmessage'), spaTab);
    assert.equal(info.live, true);

    // A provider message from the desktop is not relayed into the page.
    const before = await spa.evaluate(() => window.slopProvider.received.length);
    r.send({ type: 'snapshot', id: 'x', version: 99, tree: { id: 'root' } });
    r.send({ type: 'query', id: 'q-1', path: '/todos', depth: 0 });
    await r.next((m) => m.type === 'snapshot' && m.id === 'q-1', { since, what: 'the query answer' });
    const received = await spa.evaluate(() => window.slopProvider.received.map((m) => m.type));
    assert.deepEqual(received.slice(before), ['query'], 'the forged snapshot never reached the page');
  });

  test('a dangerous invoke from the desktop waits for the popup: Refuse has the focus; Invoke runs it, Refuse and the timeout refuse it', { timeout: TEST_TIMEOUT }, async () => {
    const r = bridge.relay(pmKey);
    const popup = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${spaTab}`);
    await popup.setViewportSize({ width: 400, height: 600 });

    let since = r.messages.length;
    r.send({ type: 'invoke', id: 'del-1', path: '/todos/t3', action: 'delete' });
    const ask = popup.locator('.bridge-ask');
    await ask.waitFor({ timeout: 5000 });
    assert.match(await ask.textContent(), /invoke delete on \/todos\/t3 in Todo SPA, which the provider marks dangerous/);
    assert.equal(await popup.evaluate(() => document.activeElement?.dataset.action), 'bridge-refuse');
    assert.equal(await swEval(browser.ctx, (t) => chrome.action.getBadgeText({ tabId: t }), spaTab), '?', 'the tab\'s badge asks');
    // What a person sees, light and dark.
    await fs.mkdir(SHOTS, { recursive: true });
    for (const scheme of ['light', 'dark']) {
      await popup.emulateMedia({ colorScheme: scheme });
      await popup.screenshot({ path: path.join(SHOTS, `popup-bridge-ask-${scheme}.png`), fullPage: true });
    }
    await popup.emulateMedia({ colorScheme: 'light' });
    const sent = await spa.evaluate(() => window.slopProvider.received.some((m) => m.type === 'invoke' && m.action === 'delete'));
    assert.equal(sent, false, 'nothing reached the page before the answer');
    await popup.click('[data-action="bridge-allow"]');
    const ok = await r.next((m) => m.type === 'result' && m.id === 'del-1', { since, what: 'the approved result' });
    assert.equal(ok.status, 'ok');
    await until(async () => (await mirror(browser.ctx, spaTab, 'postmessage')).children[0].children.length === 2, { what: 't3 deleted' });
    await until(async () => (await popup.locator('.bridge-ask').count()) === 0, { what: 'the ask gone' });

    since = r.messages.length;
    r.send({ type: 'invoke', id: 'del-2', path: '/todos/t2', action: 'delete' });
    await popup.locator('.bridge-ask').waitFor({ timeout: 5000 });
    await popup.click('[data-action="bridge-refuse"]');
    const no = await r.next((m) => m.type === 'result' && m.id === 'del-2', { since, what: 'the refusal' });
    assert.deepEqual(no, { type: 'result', id: 'del-2', status: 'error', error: { code: 'unauthorized', message: 'declined in SLOP Inspector' } });

    // An affordance the mirror does not show is asked about too.
    await swEval(browser.ctx, () => globalThis.slopInspector.bridge.setApprovalTimeout(700));
    since = r.messages.length;
    r.send({ type: 'invoke', id: 'odd-1', path: '/todos/t2', action: 'self_destruct' });
    await popup.locator('.bridge-ask').waitFor({ timeout: 5000 });
    assert.match(await popup.locator('.bridge-ask').textContent(), /which this page’s state does not show as safe/);
    const late = await r.next((m) => m.type === 'result' && m.id === 'odd-1', { since, what: 'the timeout' });
    assert.equal(late.status, 'error');
    assert.match(late.error.message, /no answer in SLOP Inspector within 1 s: not invoked/);
    const invoked = await spa.evaluate(() => window.slopProvider.received.filter((m) => m.type === 'invoke').map((m) => m.action));
    assert.deepEqual(invoked.filter((a) => a !== 'toggle'), ['delete'], 'only the approved delete reached the page');
    assert.equal((await mirror(browser.ctx, spaTab, 'postmessage')).children[0].children.length, 2, 't2 is still there');
    await swEval(browser.ctx, () => globalThis.slopInspector.bridge.setApprovalTimeout(60_000));
    await popup.close();
  });

  test('relay-close unsubscribes the desktop\'s subscriptions in the page', { timeout: TEST_TIMEOUT }, async () => {
    const r = bridge.relay(pmKey);
    r.close();
    await until(() => spa.evaluate(() => window.slopProvider.received.some((m) => m.type === 'unsubscribe' && /~sub-1$/.test(m.id))), { what: 'the unsubscribe' });
    await until(async () => !(await bridgeStatus(browser.ctx)).shared.find((s) => s.providerKey === pmKey)?.relayed, { what: 'relay closed' });
    // A WebSocket provider is never relayed: the desktop is told to connect itself.
    const mail = await browser.ctx.newPage();
    await mail.goto(srv.url('/pages/meta-ws.html'));
    const { tabId } = await waitForProvider(browser.ctx, srv.url('/pages/meta-ws.html'), (p) => p.status === 'connected');
    const key = `${tabId}:${srv.wsUrl}`;
    await bridge.waitFor((m) => m.type === 'provider-available' && m.providerKey === key, { what: 'ws announced' });
    const ws = bridge.relay(key);
    ws.open();
    const err = await ws.next((m) => m.type === 'error', { what: 'not_supported' });
    assert.equal(err.error.code, 'not_supported');
    await mail.close();
  });

  test('another pairing code: the bridge\'s proof fails, nothing is shared, it is said and not retried; the right one pairs and everything is announced again', { timeout: TEST_TIMEOUT }, async () => {
    const other = normalizeCode(newPairingCode());
    const since0 = bridge.received.length;
    await swEval(browser.ctx, (c) => chrome.storage.local.set({ bridgeToken: c, bridgeTokenIndex: { setAt: Date.now(), length: 26 } }), other);
    const st = await waitBridge(browser.ctx, 'refused');
    assert.match(st.message, /could not prove your pairing code \(the bridge’s proof does not match this pairing code\)/);
    assert.ok(!st.message.includes(other));
    assert.equal(st.retryAt, null, 'not dialled again by itself');
    assert.equal(st.shared.length, 0);
    const popup = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${spaTab}`);
    assert.equal(await popup.locator('#bridge .pill').textContent(), 'Pairing failed');
    assert.equal(await popup.locator('[data-action="bridge-retry"]').count(), 1);
    await popup.close();
    // The old connection withdrew what it shared before it closed; the new one sent nothing.
    assert.deepEqual(bridge.received.slice(since0).map((m) => m.type), ['provider-unavailable'], 'only the withdrawal');

    const since = bridge.received.length;
    await swEval(browser.ctx, (t) => chrome.storage.local.set({ bridgeToken: t }), normalizeCode(bridge.token));
    await waitBridge(browser.ctx, 'connected');
    await bridge.waitFor((m) => m.type === 'provider-available' && m.providerKey === pmKey, { since, what: 're-announced' });
  });

  test('the bridge going away and coming back, the worker restarting: dialled again, providers announced again; off closes it', { timeout: TEST_TIMEOUT }, async () => {
    await bridge.stop();
    const st = await waitBridge(browser.ctx, 'retrying');
    assert.match(st.message, /dialling again/);
    assert.equal(st.shared.length, 0);
    const since = bridge.received.length;
    await bridge.start();
    await waitBridge(browser.ctx, 'connected', 'reconnected');
    await bridge.waitFor((m) => m.type === 'provider-available' && m.providerKey === pmKey, { since, what: 'announced after the comeback' });

    // The service worker stopped (Chrome does that to an idle worker): when it starts again it
    // dials the bridge again, and the pages' providers are announced again.
    const before = bridge.connections;
    const since2 = bridge.received.length;
    assert.equal(await stopServiceWorker(browser.ctx, browser.extId), 1);
    await until(() => bridge.connections > before && bridge.connected, { what: 'dialled again after the worker restart' });
    await bridge.waitFor((m) => m.type === 'provider-available' && m.providerKey === pmKey, { since: since2, what: 'announced after the worker restart' });

    // Turned off: the connection closes and nothing more is sent.
    await swEval(browser.ctx, () => chrome.storage.local.set({ bridgeEnabled: false }));
    await waitBridge(browser.ctx, 'off');
    await until(() => !bridge.connected, { what: 'closed by the extension' });
  });
});
