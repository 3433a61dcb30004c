// The desktop bridge against a bridge that does not pair, as the SLOP project's own bridges are
// (tests/fixtures/desktop-bridge.mjs, kind 'rust': its desktop app's server, emulated from the
// notes): no subprotocol, every message of its five types sent to every client whatever its fields
// (the extension gets its own back, and all the junk below), the provider list replayed on
// connect, several desktop consumers. tests/ui/bridge-suite.mjs runs the TypeScript and Go servers. The extension uses it only
// once the user allowed unpaired bridges in Options; then the same announcements, relay and
// approvals as paired (tests/e2e/desktop-bridge.test.mjs), plus "invoke without asking" per
// provider, and a desktop that floods it with junk.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { startDesktopBridge } from '../fixtures/desktop-bridge.mjs';
import { newPairingCode } from '../../js-glue/bridge-pairing.js';
import {
  ROOT, launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openExtensionPage, swEval, waitForSw, until, mirror,
  collectConsole, TEST_TIMEOUT,
} from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
const bridgeStatus = (ctx) => swEval(ctx, () => globalThis.slopInspector.bridge.status());
const waitBridge = (ctx, state, what = `bridge ${state}`) =>
  waitForSw(ctx, (s) => globalThis.slopInspector.bridge.status().state === s && globalThis.slopInspector.bridge.status(), state, { what });

// A page with two providers: the in-page todo app and the WebSocket provider.
const TWO_PROVIDERS = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="slop" content="postmessage"><meta name="slop" content="{{WS_URL}}"><title>Two providers</title></head>
<body><h1>Two providers</h1><script type="module">
import { startPageProvider } from './spa-provider.mjs';
startPageProvider({ app: 'todo' });
</script></body></html>`;

/** The Options bridge section, light and dark, 1280 and 480 wide. */
async function shootOptions(options, name) {
  await fs.mkdir(SHOTS, { recursive: true });
  for (const width of [1280, 480]) {
    await options.setViewportSize({ width, height: 800 });
    for (const scheme of ['light', 'dark']) {
      await options.emulateMedia({ colorScheme: scheme });
      await options.locator('#bridge-h').scrollIntoViewIfNeeded();
      await options.locator('section[aria-labelledby="bridge-h"]').screenshot({ path: path.join(SHOTS, `${name}-${width}-${scheme}.png`) });
    }
  }
  await options.emulateMedia({ colorScheme: 'light' });
  await options.setViewportSize({ width: 1280, height: 800 });
}

describe('desktop bridge, unpaired (the bridges that exist)', () => {
  let browser, srv, bridge, consoleLines;
  let spa1, spa2, tab1, tab2, key1, key2, desk;

  before(async () => {
    srv = await startProvider({ engine: createMailEngine({ messages: 3 }), pages: { '/pages/two.html': TWO_PROVIDERS } });
    bridge = await startDesktopBridge({ kind: 'rust' });
    browser = await launch();
    consoleLines = collectConsole(browser.ctx);
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    desk = await bridge.consumer();
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
    await bridge?.close();
  });

  test('a bridge that does not pair is used only once allowed in Options; with a token or without', { timeout: TEST_TIMEOUT }, async () => {
    const options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
    assert.equal(await options.locator('#bridge-unpaired').isChecked(), false, 'off by default');
    assert.match(await options.locator('#bridge-unpaired-help').textContent(), /any program on this computer that opens port\s+9339\s+sees the shared tabs and can ask to invoke their actions/);
    await options.fill('#bridge-url', bridge.url);
    await options.click('#bridge-url-form button[type="submit"]');
    await until(async () => /is dialled at/.test(await options.locator('#bridge-url-message').textContent()), { what: 'address saved' });
    assert.equal(await options.locator('#bridge-port').textContent(), String(bridge.port));

    // On, no code, unpaired not allowed: nothing is dialled.
    await options.check('#bridge-enabled');
    await until(async () => (await options.locator('#bridge-status').getAttribute('data-state')) === 'no-token', { what: 'no-token status' });
    assert.match(await options.locator('#bridge-status').textContent(), /nothing is saved.*allow bridges that do not pair/);
    assert.equal(bridge.connections, 0);

    // Not a pairing code: refused in words that do not repeat it.
    await options.fill('#bridge-token', 'a'.repeat(32));
    await options.click('#bridge-form button[type="submit"]');
    await until(async () => /neither a pairing code nor the SLOP desktop app’s token/.test(await options.locator('#bridge-message').textContent()), { what: 'refused' });
    assert.ok(!(await options.locator('#bridge-message').textContent()).includes('a'.repeat(32)));

    // A code (say, of another bridge): dialled bare, challenged; their server answers nothing
    // (it only passes its own message types on), so it proved nothing: closed, and not dialled
    // again by itself. Before: it "selected" slop.bearer and got the tabs and the token.
    const code = newPairingCode();
    await options.fill('#bridge-token', code);
    await options.click('#bridge-form button[type="submit"]');
    const st = await waitBridge(browser.ctx, 'no-pairing');
    assert.match(st.message, /^The bridge at ws:\/\/127\.0\.0\.1:\d+\/slop-bridge did not prove a pairing code \(the bridge did not answer the pairing challenge within 3 s\); allow unpaired bridges in Options to use it\. Nothing is shared\.$/);
    assert.equal(st.retryAt, null, 'no retry is scheduled');
    assert.equal(bridge.connections, 1, 'one bare dial');
    assert.deepEqual(bridge.received.map((m) => m.type), ['pair-challenge'], 'only the challenge was sent to it');
    assert.ok(!JSON.stringify(bridge.received).includes(code.replace(/-/g, '')), 'not the code');
    await until(async () => (await options.locator('#bridge-status').getAttribute('data-state')) === 'no-pairing', { what: 'options says it' });
    assert.match(await options.locator('#bridge-status').textContent(), /did not prove a pairing code.*allow unpaired bridges in Options/);
    const popup = await openExtensionPage(browser.ctx, browser.extId, 'extension/popup/popup.html?tabId=1');
    assert.equal(await popup.locator('#bridge .pill').textContent(), 'Does not pair');
    assert.match(await popup.locator('#bridge .error-text').textContent(), /allow unpaired bridges in Options/);
    assert.equal(await popup.locator('#bridge [data-action="options"]').count(), 1);
    await popup.close();
    await shootOptions(options, 'options-bridge-no-pairing');

    // Allowed: the same dialling now keeps the connection, unpaired.
    await options.check('#bridge-unpaired');
    const on = await waitBridge(browser.ctx, 'connected');
    assert.equal(on.mode, 'unpaired');
    await bridge.waitForConnection();
    await until(async () => (await options.locator('#bridge-status').getAttribute('data-mode')) === 'unpaired', { what: 'options connected unpaired' });
    assert.match(await options.locator('#bridge-status').textContent(), /without pairing: any program on this computer that opens this port sees what is shared\. 0 providers announced: only connected providers are\./);

    // Without a code: connected at once, no challenge.
    const before = bridge.connections;
    const sent = bridge.received.length;
    await options.click('#bridge-remove');
    await until(async () => (await bridgeStatus(browser.ctx)).state === 'connected' && bridge.connections > before, { what: 'reconnected bare' });
    assert.equal((await bridgeStatus(browser.ctx)).mode, 'unpaired');
    assert.equal(bridge.connections, before + 1);
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(bridge.received.slice(sent), [], 'no challenge without a code');
    await options.close();
  });

  test('in-page providers are announced in their shapes; a desktop consumer connects, subscribes, invokes and queries through the relay; the extension ignores its own messages coming back', { timeout: TEST_TIMEOUT }, async () => {
    spa1 = await browser.ctx.newPage();
    await spa1.goto(srv.url('/pages/spa.html?tab=1'));
    ({ tabId: tab1 } = await waitForProvider(browser.ctx, srv.url('/pages/spa.html?tab=1'), (p) => p.status === 'connected' && p.nodes > 0));
    key1 = `${tab1}:postmessage`;
    const sent = await bridge.waitFor((m) => m.type === 'provider-available' && m.providerKey === key1, { what: 'the SPA announced' });
    assert.deepEqual(sent, { type: 'provider-available', tabId: tab1, providerKey: key1, provider: { id: 'todo-spa', name: 'Todo SPA', transport: 'postmessage' } });
    assert.deepEqual(await desk.waitFor((m) => m.type === 'provider-available' && m.providerKey === key1), sent, 'the consumer got it through the bridge');

    const r = desk.relay(key1);
    r.open();
    r.send({ type: 'connect' });
    const hello = await r.next((m) => m.type === 'hello', { what: 'hello' });
    assert.equal(hello.provider.id, 'todo-spa');
    r.send({ type: 'subscribe', id: 'sub-1', path: '/', depth: -1 });
    const snap = await r.next((m) => m.type === 'snapshot' && m.id === 'sub-1', { what: 'snapshot' });
    assert.deepEqual(snap.tree.children[0].children.map((c) => c.id), ['t1', 't2', 't3']);
    let since = r.messages.length;
    r.send({ type: 'invoke', id: 'req-1', path: '/todos/t1', action: 'toggle' });
    assert.equal((await r.next((m) => m.type === 'result' && m.id === 'req-1', { since, what: 'the toggle result' })).status, 'ok');
    await r.next((m) => m.type === 'patch' && m.subscription === 'sub-1', { since, what: 'the patch' });
    await until(async () => (await mirror(browser.ctx, tab1, 'postmessage'))?.children?.[0]?.children?.[0]?.properties?.done === true, { what: 't1 done in the extension mirror' });
    since = r.messages.length;
    r.send({ type: 'query', id: 'q-1', path: '/todos', depth: 0 });
    await r.next((m) => m.type === 'snapshot' && m.id === 'q-1', { since, what: 'the query answer' });

    // Everything the extension sent came back to it: its announcement and each provider frame.
    // None of it was taken for a desktop message: the page got only the consumer's requests,
    // and the extension answered none of its own frames (no error went out).
    const types = await spa1.evaluate(() => window.slopProvider.received.map((m) => m.type));
    const fromRelay = await spa1.evaluate(() => window.slopProvider.received.filter((m) => /~/.test(m.id ?? '')).map((m) => m.type));
    assert.deepEqual(fromRelay, ['subscribe', 'invoke', 'query']);
    assert.ok(types.every((t) => ['connect', 'subscribe', 'unsubscribe', 'query', 'invoke'].includes(t)), JSON.stringify(types));
    assert.ok(!bridge.relayed(key1).some((m) => m.type === 'error'), 'no error went back');
    const st = await bridgeStatus(browser.ctx);
    assert.ok(st.ignored >= bridge.relayed(key1).length + 1, `echoes counted as ignored: ${st.ignored}`);
    assert.equal(st.shared.find((s) => s.providerKey === key1).relayed, true);
  });

  test('a dangerous invoke waits for the popup (refused, approved); "don\'t ask again" is per provider, in session storage, and revocable in Options', { timeout: TEST_TIMEOUT }, async () => {
    spa2 = await browser.ctx.newPage();
    await spa2.goto(srv.url('/pages/spa.html?tab=2'));
    ({ tabId: tab2 } = await waitForProvider(browser.ctx, srv.url('/pages/spa.html?tab=2'), (p) => p.status === 'connected' && p.nodes > 0));
    key2 = `${tab2}:postmessage`;
    await bridge.waitFor((m) => m.type === 'provider-available' && m.providerKey === key2, { what: 'the second SPA announced' });
    const r1 = desk.relay(key1);
    const r2 = desk.relay(key2);
    r2.open();
    r2.send({ type: 'connect' });
    await r2.next((m) => m.type === 'hello', { what: 'hello 2' });

    const popup = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${tab1}`);
    let since = r1.messages.length;
    r1.send({ type: 'invoke', id: 'del-1', path: '/todos/t3', action: 'delete' });
    await popup.locator('.bridge-ask').waitFor({ timeout: 5000 });
    assert.match(await popup.locator('.bridge-ask').textContent(), /invoke delete on \/todos\/t3 in Todo SPA, which the provider marks dangerous/);
    assert.match(await popup.locator('.bridge-ask .trust').textContent(), /Don’t ask again for Todo SPA \(until the browser restarts\)/);
    assert.equal(await popup.locator('#bridge .pill').textContent(), 'Connected, unpaired');
    await fs.mkdir(SHOTS, { recursive: true });
    for (const scheme of ['light', 'dark']) {
      await popup.emulateMedia({ colorScheme: scheme });
      await popup.screenshot({ path: path.join(SHOTS, `popup-bridge-unpaired-ask-${scheme}.png`), fullPage: true });
    }
    await popup.emulateMedia({ colorScheme: 'light' });
    await popup.click('[data-action="bridge-refuse"]');
    const no = await r1.next((m) => m.type === 'result' && m.id === 'del-1', { since, what: 'refused' });
    assert.deepEqual(no.error, { code: 'unauthorized', message: 'declined in SLOP Inspector' });

    since = r1.messages.length;
    r1.send({ type: 'invoke', id: 'del-2', path: '/todos/t3', action: 'delete' });
    await popup.locator('.bridge-ask').waitFor({ timeout: 5000 });
    await popup.check('.bridge-ask [data-action="bridge-trust"]');
    await popup.click('[data-action="bridge-allow"]');
    assert.equal((await r1.next((m) => m.type === 'result' && m.id === 'del-2', { since, what: 'approved' })).status, 'ok');
    const stored = await swEval(browser.ctx, async () => ({
      session: await chrome.storage.session.get('bridgeTrust'), local: Object.keys(await chrome.storage.local.get(null)),
    }));
    assert.equal(Object.keys(stored.session.bridgeTrust).length, 1);
    assert.match(Object.keys(stored.session.bridgeTrust)[0], new RegExp(`^${key1} http://127\\.0\\.0\\.1:\\d+ todo-spa$`));
    assert.ok(!stored.local.some((k) => /trust/i.test(k)), 'never in storage.local');
    await until(async () => (await bridgeStatus(browser.ctx)).shared.find((s) => s.providerKey === key1)?.trusted, { what: 'trusted in the status' });

    // Trusted: the next dangerous invoke in this provider runs at once.
    since = r1.messages.length;
    r1.send({ type: 'invoke', id: 'del-3', path: '/todos/t2', action: 'delete' });
    assert.equal((await r1.next((m) => m.type === 'result' && m.id === 'del-3', { since, what: 'invoked without asking' })).status, 'ok');
    assert.equal((await bridgeStatus(browser.ctx)).approvals.length, 0);
    await until(async () => (await mirror(browser.ctx, tab1, 'postmessage')).children[0].children.length === 1, { what: 't2 and t3 deleted' });
    await popup.close();

    // Another provider is still asked about, dangerous or unknown to the mirror.
    const popup2 = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${tab2}`);
    since = r2.messages.length;
    r2.send({ type: 'invoke', id: 'del-x', path: '/todos/t3', action: 'delete' });
    await popup2.locator('.bridge-ask').waitFor({ timeout: 5000 });
    await popup2.click('[data-action="bridge-refuse"]');
    assert.equal((await r2.next((m) => m.type === 'result' && m.id === 'del-x', { since, what: 'refused in tab 2' })).status, 'error');
    r2.send({ type: 'invoke', id: 'odd-1', path: '/todos/t2', action: 'self_destruct' });
    await popup2.locator('.bridge-ask').waitFor({ timeout: 5000 });
    assert.match(await popup2.locator('.bridge-ask').textContent(), /which this page’s state does not show as safe/);
    await popup2.click('[data-action="bridge-refuse"]');
    await r2.next((m) => m.type === 'result' && m.id === 'odd-1', { since, what: 'refused unknown' });
    assert.deepEqual(await spa2.evaluate(() => window.slopProvider.received.filter((m) => m.type === 'invoke').map((m) => m.action)), []);
    await popup2.close();

    // Options lists what is shared; unticking asks again.
    const options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
    const row1 = options.locator(`#bridge-shared tr[data-provider-key="${key1}"]`);
    const row2 = options.locator(`#bridge-shared tr[data-provider-key="${key2}"]`);
    assert.equal(await row1.locator('[data-action="bridge-trust"]').isChecked(), true);
    assert.equal(await row2.locator('[data-action="bridge-trust"]').isChecked(), false);
    await shootOptions(options, 'options-bridge-unpaired');
    await row1.locator('[data-action="bridge-trust"]').uncheck();
    await until(async () => (await bridgeStatus(browser.ctx)).shared.find((s) => s.providerKey === key1)?.trusted === false, { what: 'trust revoked' });
    assert.deepEqual(await swEval(browser.ctx, () => chrome.storage.session.get('bridgeTrust')), { bridgeTrust: {} });
    await options.close();
    await swEval(browser.ctx, () => globalThis.slopInspector.bridge.setApprovalTimeout(700));
    since = r1.messages.length;
    r1.send({ type: 'invoke', id: 'del-4', path: '/todos/t1', action: 'delete' });
    const late = await r1.next((m) => m.type === 'result' && m.id === 'del-4', { since, what: 'asked again, timed out' });
    assert.match(late.error.message, /no answer in SLOP Inspector within 1 s/);
    await swEval(browser.ctx, () => globalThis.slopInspector.bridge.setApprovalTimeout(60_000));
    assert.equal((await mirror(browser.ctx, tab1, 'postmessage')).children[0].children.length, 1, 't1 is still there');
  });

  test('a desktop consumer that disconnects mid-subscription: the others go on, the relay\'s close unsubscribes what it left', { timeout: TEST_TIMEOUT }, async () => {
    const gone = await bridge.consumer();
    const rg = gone.relay(key1);
    rg.send({ type: 'subscribe', id: 'sub-gone', path: '/', depth: -1 });
    await rg.next((m) => m.type === 'snapshot' && m.id === 'sub-gone', { what: 'its snapshot' });
    await gone.drop(); // killed: no relay-close, no goodbye

    // Consumers share one relay per provider and look alike: the subscription it left stays
    // until the relay closes. The extension and the other consumer go on.
    const r = desk.relay(key1);
    const since = r.messages.length;
    r.send({ type: 'invoke', id: 'tog-2', path: '/todos/t1', action: 'toggle' });
    assert.equal((await r.next((m) => m.type === 'result' && m.id === 'tog-2', { since, what: 'toggle after the drop' })).status, 'ok');
    await r.next((m) => m.type === 'patch' && m.subscription === 'sub-gone', { since, what: 'the left subscription still patched' });
    await until(async () => (await mirror(browser.ctx, tab1, 'postmessage')).children[0].children[0].properties.done === false, { what: 'mirror followed' });
    assert.equal((await bridgeStatus(browser.ctx)).state, 'connected');

    r.close();
    await until(() => spa1.evaluate(() => {
      const ids = window.slopProvider.received.filter((m) => m.type === 'unsubscribe').map((m) => m.id);
      return ids.some((id) => /~sub-gone$/.test(id)) && ids.some((id) => /~sub-1$/.test(id));
    }), { what: 'both subscriptions unsubscribed in the page' });
    await until(async () => !(await bridgeStatus(browser.ctx)).shared.find((s) => s.providerKey === key1)?.relayed, { what: 'relay closed' });
  });

  test('20 providers in 10 tabs are announced once each and withdrawn as their tabs close', { timeout: TEST_TIMEOUT }, async () => {
    const since = bridge.received.length;
    const pages = [];
    for (let n = 0; n < 10; n++) {
      const p = await browser.ctx.newPage();
      await p.goto(srv.url(`/pages/two.html?n=${n}`));
      pages.push(p);
    }
    const tabs = [];
    for (let n = 0; n < 10; n++) {
      const url = srv.url(`/pages/two.html?n=${n}`);
      await waitForProvider(browser.ctx, url, (p) => p.key === 'postmessage' && p.status === 'connected', { timeout: 30_000 });
      const { tabId } = await waitForProvider(browser.ctx, url, (p) => p.key === srv.wsUrl && p.status === 'connected', { timeout: 30_000 });
      tabs.push(tabId);
    }
    const keys = tabs.flatMap((t) => [`${t}:postmessage`, `${t}:${srv.wsUrl}`]);
    await until(() => keys.every((k) => bridge.providers.has(k)), { what: 'all 20 on the bridge', timeout: 30_000 });
    const announced = bridge.received.slice(since).filter((m) => m.type === 'provider-available');
    assert.deepEqual(announced.map((m) => m.providerKey).sort(), [...keys].sort(), 'each once, nothing else');
    for (const m of announced) {
      assert.deepEqual(m.provider, m.providerKey.endsWith(':postmessage')
        ? { id: 'todo-spa', name: 'Todo SPA', transport: 'postmessage' }
        : { id: 'acme-mail', name: 'Acme Mail', transport: 'ws', url: srv.wsUrl });
    }
    assert.ok(!JSON.stringify(bridge.received).includes(srv.token), 'the provider token is never handed over');
    // A consumer arriving now is told all of them (replayed by the bridge).
    const late = await bridge.consumer();
    await until(() => keys.every((k) => late.providers.has(k)), { what: 'replayed to a new consumer' });
    await late.close();

    for (const p of pages.slice(0, 5)) await p.close();
    const closed = keys.slice(0, 10);
    await until(() => closed.every((k) => !bridge.providers.has(k)), { what: 'the first 10 withdrawn' });
    assert.ok(keys.slice(10).every((k) => bridge.providers.has(k)), 'the rest still there');
    for (const p of pages.slice(5)) await p.close();
    await until(() => keys.every((k) => !bridge.providers.has(k)), { what: 'all withdrawn' });
    const withdrawn = bridge.received.slice(since).filter((m) => m.type === 'provider-unavailable');
    assert.deepEqual(withdrawn.map((m) => m.providerKey).sort(), [...keys].sort(), 'each withdrawn once');
    for (const m of withdrawn) assert.deepEqual(Object.keys(m).sort(), ['providerKey', 'tabId', 'type']);
    assert.deepEqual((await bridgeStatus(browser.ctx)).shared.map((s) => s.providerKey).sort(), [key1, key2].sort());
  });

  test('the bridge restarting: the extension dials again (bare) and announces everything again', { timeout: TEST_TIMEOUT }, async () => {
    await bridge.stop();
    const st = await waitBridge(browser.ctx, 'retrying');
    assert.equal(st.shared.length, 0);
    assert.equal(desk.open, false);
    const since = bridge.received.length;
    await bridge.start();
    const on = await waitBridge(browser.ctx, 'connected', 'reconnected');
    assert.equal(on.mode, 'unpaired');
    await until(() => bridge.providers.has(key1) && bridge.providers.has(key2), { what: 're-announced' });
    assert.deepEqual(bridge.received.slice(since).map((m) => m.type), ['provider-available', 'provider-available']);
    desk = await bridge.consumer();
    await until(() => desk.providers.has(key1) && desk.providers.has(key2), { what: 'replayed to the new consumer' });
    const r = desk.relay(key2);
    r.open();
    r.send({ type: 'connect' });
    await r.next((m) => m.type === 'hello', { what: 'hello after the restart' });
  });

  test('a desktop sending 10,000 junk messages: all dropped, counted, said once; the extension answers on', { timeout: TEST_TIMEOUT }, async () => {
    const r = desk.relay(key2);
    const before = {
      status: await bridgeStatus(browser.ctx),
      sent: bridge.received.length,
      page: await spa2.evaluate(() => window.slopProvider.received.length),
      log: (await swEval(browser.ctx, (t) => globalThis.slopInspector.log(t, 'postmessage').length, tab2)),
      lines: consoleLines.length,
    };
    // Through the bridge (its message types with bad fields, a forged provider message, unknown
    // keys) and straight to the extension (what another bridge might pass on).
    const viaBridge = [
      '{"type":"slop-relay"}',
      '{"type":"slop-relay","providerKey":5,"message":{"type":"connect"}}',
      `{"type":"slop-relay","providerKey":"${key2}"}`,
      `{"type":"slop-relay","providerKey":"${key2}","message":"connect"}`,
      `{"type":"slop-relay","providerKey":"${key2}","message":{"type":"snapshot","id":"x","version":9,"tree":{"id":"root"}}}`,
      `{"type":"slop-relay","providerKey":"${key2}","message":{"type":"result","id":"y","status":"ok"}}`,
      '{"type":"slop-relay","providerKey":"999:nope","message":{"type":"connect"}}',
      '{"type":"relay-open","providerKey":"999:nope"}',
      '{"type":"relay-close","providerKey":"999:nope"}',
      '{"type":"relay-open"}',
      '{"type":"provider-unavailable","tabId":999,"providerKey":"999:nope"}',
    ];
    const direct = ['not json', '[]', '42', 'null', '{"type":"frobnicate","providerKey":"x"}', '{"providerKey":"x"}',
      `{"type":"slop-relay","providerKey":"${key2}","message":${'['.repeat(5000)}${']'.repeat(5000)}}`];
    let n = 0;
    while (n < 10_000) {
      for (const t of viaBridge) if (n++ < 10_000) desk.sendRaw(t);
      for (const t of direct) if (n++ < 10_000) bridge.inject(t);
    }
    bridge.inject(`{"type":"slop-relay","providerKey":"${key2}","message":{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}}`); // over 1 MiB
    await waitForSw(browser.ctx, (min) => globalThis.slopInspector.bridge.status().ignored >= min, before.status.ignored + 10_001, { timeout: 60_000, what: 'all junk seen' });

    // Still answering: the options page shows the status, a relay round trip works.
    const options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
    await until(async () => (await options.locator('#bridge-status').getAttribute('data-state')) === 'connected', { what: 'options status' });
    await options.close();
    const since = r.messages.length;
    r.send({ type: 'query', id: 'q-after', path: '/todos', depth: 0 });
    await r.next((m) => m.type === 'snapshot' && m.id === 'q-after', { since, what: 'a query after the flood' });

    const after = await bridgeStatus(browser.ctx);
    assert.equal(after.state, 'connected');
    assert.equal(after.approvals.length, 0, 'no approval came of it');
    assert.equal(after.shared.length, before.status.shared.length);
    assert.deepEqual(bridge.received.slice(before.sent).filter((m) => !(m.type === 'slop-relay' && m.message?.id === 'q-after')), [], 'nothing answered');
    assert.equal(await spa2.evaluate(() => window.slopProvider.received.length), before.page + 1, 'only the query reached the page');
    const log = await swEval(browser.ctx, (t) => globalThis.slopInspector.log(t, 'postmessage').length, tab2);
    assert.ok(log <= before.log + 4, `the frame log did not grow with the junk (${before.log} → ${log})`);
    // (collectConsole may hear a worker line twice: as the worker's and as the context's.)
    const said = consoleLines.slice(before.lines).filter((l) => /^worker .*bridge/i.test(l));
    assert.ok(said.length <= 1, `said at most once: ${JSON.stringify(said)}`);
  });

  test('turned off: the connection closes and "invoke without asking" is forgotten', { timeout: TEST_TIMEOUT }, async () => {
    await swEval(browser.ctx, ([k]) => chrome.storage.session.set({ bridgeTrust: { [k]: { name: 'x', at: 1 } } }), [`${key2} whatever`]);
    await swEval(browser.ctx, () => chrome.storage.local.set({ bridgeEnabled: false }));
    await waitBridge(browser.ctx, 'off');
    await until(() => !bridge.connected, { what: 'closed by the extension' });
    await until(async () => Object.keys(await swEval(browser.ctx, () => chrome.storage.session.get('bridgeTrust'))).length === 0, { what: 'trust cleared' });
  });
});
