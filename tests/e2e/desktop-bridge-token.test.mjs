// The desktop bridge with the SLOP desktop app's token (issue 46), in Chromium, through Options as
// a user does it: against the app's newer upgrade gate (tests/fixtures/desktop-bridge.mjs kind
// 'app': no token 401, only slop.bearer selected) a saved app token connects in the mode "token
// checked by the bridge when it connected" and the tab's provider reaches it; a wrong token stops
// and asks for a new one; bridges that accept a bare dial (kinds 'rust' and 'ts') never see the
// token and are used only when unpaired bridges are allowed; our own bridge refusing an unpaired
// browser (bridge-error not_paired) is never called sharing, in Options or the popup. Also: the
// "saved" line goes when the state moves on, an open popup's node count follows patches, and two
// asks at once name their agents. Screenshots of Options' bridge section and the popup in these
// states, 320 and 1280 wide, light and dark.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { startDesktopBridge } from '../fixtures/desktop-bridge.mjs';
import { startBridgeServer } from '../../js-glue/node/bridge-server.js';
import { newPairingCode } from '../../js-glue/bridge-pairing.js';
import { ROOT, launch, startProvider, waitForProvider, openExtensionPage, swEval, waitForSw, until, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
const bridgeStatus = (ctx) => swEval(ctx, () => globalThis.slopInspector.bridge.status());
const waitBridge = (ctx, state, what = `bridge ${state}`) =>
  waitForSw(ctx, (s) => globalThis.slopInspector.bridge.status().state === s && globalThis.slopInspector.bridge.status(), state, { what });
/** The bridge in `state` at `url` (a state of the address before is not the one awaited). */
const waitBridgeAt = (ctx, state, url) =>
  waitForSw(ctx, ([s, u]) => { const st = globalThis.slopInspector.bridge.status(); return st.state === s && st.url === u && st; }, [state, url], { what: `bridge ${state} at ${url}` });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Options' bridge section and the popup, 320 and 1280 wide, light and dark. */
async function shoot(options, popup, name) {
  await fs.mkdir(SHOTS, { recursive: true });
  for (const width of [320, 1280]) {
    for (const scheme of ['light', 'dark']) {
      await options.setViewportSize({ width, height: 900 });
      await options.emulateMedia({ colorScheme: scheme });
      await options.locator('#bridge-h').scrollIntoViewIfNeeded();
      await options.locator('section[aria-labelledby="bridge-h"]').screenshot({ path: path.join(SHOTS, `bridge46-options-${name}-${width}-${scheme}.png`) });
      if (popup) {
        await popup.setViewportSize({ width, height: 600 });
        await popup.emulateMedia({ colorScheme: scheme });
        await popup.screenshot({ path: path.join(SHOTS, `bridge46-popup-${name}-${width}-${scheme}.png`), fullPage: true });
      }
    }
  }
  await options.emulateMedia({ colorScheme: 'light' });
  await options.setViewportSize({ width: 1280, height: 900 });
  if (popup) {
    await popup.emulateMedia({ colorScheme: 'light' });
    await popup.setViewportSize({ width: 360, height: 600 });
  }
}

describe('desktop bridge: the SLOP desktop app\'s token, and no sharing that shares nothing', () => {
  let browser, srv, app, rust, ts, ours, options, spa, tabId, key;
  const status = () => options.evaluate(() => {
    const el = document.getElementById('bridge-status');
    return { state: el.dataset.state, mode: el.dataset.mode, sharing: el.dataset.sharing, text: el.textContent };
  });
  const optionsState = (state) => until(async () => (await status()).state === state && status(), { what: `Options says ${state}` });
  const useAddress = async (url) => {
    await options.fill('#bridge-url', url);
    await options.click('#bridge-url-form button[type="submit"]');
    await until(async () => (await options.locator('#bridge-url-message').textContent()).includes(url), { what: 'address saved' });
  };
  const saveSecret = async (text) => {
    await options.fill('#bridge-token', text);
    await options.click('#bridge-form button[type="submit"]');
  };
  const popupFor = () => openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${tabId}`);

  before(async () => {
    srv = await startProvider({ engine: createMailEngine({ messages: 3 }) });
    app = await startDesktopBridge({ kind: 'app' });
    rust = await startDesktopBridge({ kind: 'rust' });
    ts = await startDesktopBridge({ kind: 'ts' });
    ours = await startBridgeServer({ port: 0, code: newPairingCode(), log: () => {} });
    browser = await launch();
    spa = await browser.ctx.newPage();
    await spa.goto(srv.url('/pages/spa.html?bridge46=1'));
    ({ tabId } = await waitForProvider(browser.ctx, srv.url('/pages/spa.html?bridge46=1'), (p) => p.status === 'connected' && p.nodes > 0));
    key = `${tabId}:postmessage`;
    options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
  });
  after(async () => {
    await browser?.close();
    for (const b of [app, rust, ts]) await b?.close();
    await ours?.close();
    await srv?.close();
  });

  test('a wrong app token: refused bare, refused with the token, then it stops and asks for a new token', { timeout: TEST_TIMEOUT }, async () => {
    await useAddress(app.url);
    await saveSecret(crypto.randomBytes(32).toString('base64url'));
    await until(async () => /^Saved as the SLOP desktop app’s token\./.test(await options.locator('#bridge-message').textContent()), { what: 'said which was saved' });
    await options.locator('#bridge-saved:not([hidden])').waitFor({ timeout: 5000 });
    assert.match(await options.locator('#bridge-saved-text').textContent(), /^SLOP desktop app’s token saved: •+ \(/);
    await options.check('#bridge-enabled');
    const st = await waitBridge(browser.ctx, 'token-refused');
    assert.equal(st.retryAt, null, 'no retry scheduled');
    assert.match(st.message, /refused a plain connection, and the connection offering the SLOP desktop app’s token failed too/);
    assert.match(st.message, /a browser cannot tell the two apart/);
    const shown = await optionsState('token-refused');
    assert.match(shown.text, /Paste the app’s current token in Options/);
    assert.doesNotMatch(shown.text, /Sharing|announced/);
    await until(async () => (await options.locator('#bridge-message').textContent()) === '', { what: 'the "saved" line gone once the state moved on' });
    await sleep(1500);
    assert.deepEqual(app.handshakes.map((h) => [h.protocols.length, h.status]), [[0, 401], [2, 401]], 'bare, then the token; not again by itself');
    const popup = await popupFor();
    await popup.locator('#bridge .pill').waitFor();
    assert.equal(await popup.locator('#bridge .pill').textContent(), 'Token refused');
    assert.match(await popup.locator('#bridge .error-text').textContent(), /Paste the app’s current token/);
    assert.equal(await popup.locator('#bridge [data-action="options"]').count(), 1);
    await shoot(options, popup, 'token-refused');
    await popup.close();
  });

  test('the app\'s token: connected in "token checked" mode after a refused bare dial; the tab\'s provider reaches the app, announced and not called confirmed', { timeout: TEST_TIMEOUT }, async () => {
    await saveSecret(app.token);
    const st = await waitBridge(browser.ctx, 'connected');
    assert.equal(st.mode, 'token');
    assert.equal(st.sharing, 'unconfirmed');
    const sent = await app.waitFor((m) => m.type === 'provider-available' && m.providerKey === key, { what: 'the SPA announced to the app' });
    assert.equal(sent.provider.id, 'todo-spa');
    const hs = app.handshakes.slice(2);
    assert.deepEqual(hs.map((h) => [h.protocols.length, h.status]), [[0, 401], [2, 101]], 'bare first, then the token');
    assert.equal(app.subprotocols.at(-1).selected, 'slop.bearer');
    const shown = await until(async () => { const s = await status(); return s.state === 'connected' && /1 provider announced/.test(s.text) && s; }, { what: 'Options connected' });
    assert.equal(shown.mode, 'token');
    assert.match(shown.text, /token checked by the bridge when it connected/);
    assert.match(shown.text, /1 provider announced \(this bridge does not confirm\): agents on this machine may see it\./);
    assert.doesNotMatch(shown.text, /Sharing/);
    assert.equal(await options.locator('#bridge-shared-head').textContent(), 'Announced (not confirmed)');
    await until(async () => (await options.locator('#bridge-message').textContent()) === '', { what: 'the "saved" line gone' });
    const popup = await popupFor();
    await until(async () => (await popup.locator('#bridge .pill').textContent()) === 'Connected, token checked', { what: 'popup pill' });
    assert.match(await popup.locator('[data-testid="bridge-mode"]').textContent(), /^Token checked by the bridge when it connected/);
    const line = await popup.locator('[data-testid="bridge-shared"]').textContent();
    assert.equal(line, '1 provider announced (this bridge does not confirm): agents on this machine may see it.');
    assert.ok(shown.text.includes(line), 'Options and the popup say the same');
    // The token is in no page and no status.
    for (const page of [options, popup]) assert.ok(!(await page.content()).includes(app.token));
    assert.ok(!JSON.stringify(await bridgeStatus(browser.ctx)).includes(app.token));
    await shoot(options, popup, 'token-connected');
    await popup.close();
  });

  test('bridges that accept a bare dial (rust, ts) never see the app token, and are used only once unpaired bridges are allowed', { timeout: TEST_TIMEOUT }, async () => {
    for (const bridge of [rust, ts]) {
      await options.uncheck('#bridge-unpaired');
      await useAddress(bridge.url);
      const st = await waitBridgeAt(browser.ctx, 'no-pairing', bridge.url);
      assert.match(st.message, /not given the desktop app's token/);
      await sleep(300);
      assert.deepEqual(bridge.received, [], `${bridge.kind}: nothing sent to it`);
      await options.check('#bridge-unpaired');
      const on = await waitBridgeAt(browser.ctx, 'connected', bridge.url);
      assert.equal(on.mode, 'unpaired');
      await bridge.waitFor((m) => m.type === 'provider-available' && m.providerKey === key, { what: `${bridge.kind}: announced` });
      const offered = bridge.subprotocols.flatMap((s) => s.offered);
      assert.ok(!offered.includes(app.token) && !offered.includes('slop.bearer'), `${bridge.kind}: offered ${JSON.stringify(offered.length)} subprotocols`);
      if (bridge.handshakes) assert.ok(bridge.handshakes.every((h) => h.protocols.length === 0), `${bridge.kind}: every handshake bare`);
      assert.ok(!JSON.stringify(bridge.received).includes(app.token));
    }
    const shown = await until(async () => { const s = await status(); return s.mode === 'unpaired' && /announced/.test(s.text) && s; }, { what: 'Options unpaired' });
    assert.match(shown.text, /1 provider announced \(this bridge does not confirm\)/);
  });

  test('two dangerous asks at once name the agent that asked (or say "an agent on this machine")', { timeout: TEST_TIMEOUT }, async () => {
    // Still on the ts bridge, unpaired allowed. inject() is a desktop message as our bridge relays
    // it, with the asking consumer named (agent: {id, name?}), and one without.
    ts.inject(JSON.stringify({ type: 'relay-open', providerKey: key }));
    ts.inject(JSON.stringify({ type: 'slop-relay', providerKey: key, agent: { id: 3, name: 'claude-code' }, message: { type: 'invoke', id: 'd1', path: '/todos/t3', action: 'delete' } }));
    ts.inject(JSON.stringify({ type: 'slop-relay', providerKey: key, message: { type: 'invoke', id: 'd2', path: '/todos/t2', action: 'delete' } }));
    await until(async () => (await bridgeStatus(browser.ctx)).approvals.length === 2, { what: 'two asks waiting' });
    const popup = await popupFor();
    await until(async () => (await popup.locator('.bridge-ask').count()) === 2, { what: 'two asks shown' });
    const asks = await popup.locator('.bridge-ask').allTextContents();
    assert.match(asks[0], /^The agent claude-code \(consumer 3 of the bridge\) asks to invoke delete on \/todos\/t3/);
    assert.match(asks[1], /^An agent on this machine asks to invoke delete on \/todos\/t2/);
    await shoot(options, popup, 'two-asks');
    await popup.locator('[data-action="bridge-refuse"]').first().click();
    await until(async () => (await bridgeStatus(browser.ctx)).approvals.length === 1, { what: 'one refused' });
    await popup.locator('[data-action="bridge-refuse"]').first().click();
    await until(async () => (await bridgeStatus(browser.ctx)).approvals.length === 0, { what: 'both refused' });
    assert.deepEqual(await spa.evaluate(() => window.slopProvider.received.filter((m) => m.type === 'invoke').length), 0, 'nothing invoked');
    await popup.close();
    await options.uncheck('#bridge-unpaired');
  });

  test('our bridge refusing an unpaired browser (bridge-error not_paired): nothing is called shared, in Options or the popup; it asks for pairing', { timeout: TEST_TIMEOUT }, async () => {
    await options.click('#bridge-remove');
    await options.check('#bridge-unpaired');
    await useAddress(ours.url);
    const st = await waitBridgeAt(browser.ctx, 'wants-pairing', ours.url);
    assert.match(st.message, /^This bridge asks for pairing: paste the code it printed/);
    assert.deepEqual(st.shared, []);
    assert.deepEqual(ours.providers(), [], 'our bridge lists nothing');
    const shown = await optionsState('wants-pairing');
    assert.doesNotMatch(shown.text, /Sharing|announced/);
    assert.equal(await options.locator('#bridge-shared-box').isHidden(), true);
    const popup = await popupFor();
    await until(async () => (await popup.locator('#bridge .pill').textContent()) === 'Asks for pairing', { what: 'popup pill' });
    assert.doesNotMatch(await popup.locator('#bridge').textContent(), /see this provider|announced|Sharing/);
    assert.match(await popup.locator('#bridge .error-text').textContent(), /This bridge asks for pairing/);
    assert.match(await options.locator('#bridge-unpaired-help').textContent(), /Claude Code and Codex plugins of the SLOP project work paired through\s+slop-inspector bridge/);
    await shoot(options, popup, 'wants-pairing');
    await popup.close();
    await options.uncheck('#bridge-unpaired');
  });

  test('an open popup\'s node count follows the patches', { timeout: TEST_TIMEOUT }, async () => {
    const popup = await popupFor();
    const count = async () => Number((/(\d+) nodes mirrored/.exec(await popup.locator(`.provider[data-key="postmessage"]`).textContent()) ?? [])[1]);
    await until(async () => (await count()) > 0, { what: 'a count' });
    const before = await count();
    await spa.evaluate(() => window.slopProvider.engine.mutate((root) => {
      const todos = root.children.find((c) => c.id === 'todos');
      todos.children.push({ id: 't90', type: 'item', properties: { title: 'one more', done: false } });
      todos.children.push({ id: 't91', type: 'item', properties: { title: 'and another', done: false } });
    }));
    await until(async () => (await count()) === before + 2, { what: `the popup's count going from ${before} to ${before + 2}` });
    await popup.close();
  });
});
