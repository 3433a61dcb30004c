// WebSocket auth with the slop.bearer subprotocol: the right token is accepted; a wrong token,
// no token, a server that selects no subprotocol and a server that echoes something else are all
// refused, with a visible status and no state. Tokens are set per provider origin.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, mirror, openExtensionPage, TEST_TIMEOUT,
} from './helpers.mjs';
import { generateToken } from '../fixtures/provider/ws-server.mjs';
import { canonicalChildren } from '../fixtures/provider/state.mjs';

const refused = (p) => p.status === 'auth-failed';

describe('WebSocket auth (slop.bearer)', () => {
  let browser;
  const servers = [];
  const start = async (opts) => {
    const s = await startProvider(opts);
    servers.push(s);
    return s;
  };

  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await Promise.all(servers.map((s) => s.close()));
  });

  test('the right token is accepted and the state arrives', { timeout: TEST_TIMEOUT }, async () => {
    const srv = await start();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0);
    assert.equal(provider.tokenSet, true);
    assert.deepEqual(await mirror(browser.ctx, tabId, provider.key), canonicalChildren(srv.engine.truth('/', -1, { max_nodes: 20000 })));
    await page.close();
  });

  test('a wrong token is refused: status says so, no state, and the popup shows it', { timeout: TEST_TIMEOUT }, async () => {
    const srv = await start();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), generateToken());
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.origin, refused);
    assert.match(provider.message, /refused/i);
    assert.match(provider.message, /token/i);
    assert.equal(provider.provider, null);
    assert.equal(provider.nodes, 0);
    assert.equal(await mirror(browser.ctx, tabId, provider.key), null);
    assert.equal(srv.sessions.size, 0, 'the provider never accepted a session');

    const popup = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${tabId}`);
    const card = popup.locator(`.provider[data-key="${provider.key}"]`);
    await card.waitFor({ timeout: 5000 });
    // The extension retries with back-off: between two refusals the card may say "Connecting".
    await card.locator('.pill', { hasText: /Refused/ }).waitFor({ timeout: 15_000 });
    assert.match(await card.textContent(), /token/);
    await popup.close();

    // Fixing the token in the settings reconnects at once (no back-off wait).
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0);
    await page.close();
  });

  test('no token for a provider that requires one: refused with a hint to set one', { timeout: TEST_TIMEOUT }, async () => {
    const srv = await start();
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    const { provider } = await waitForProvider(browser.ctx, srv.origin, refused);
    assert.equal(provider.tokenSet, false);
    // A browser is not told the HTTP status: the causes it cannot tell apart are named, with Options.
    assert.match(provider.message, /answers, but refused the WebSocket at \/slop\. The browser is not told why: a wrong path, a missing or wrong token, or an origin it does not allow\. Check the address; then check the token saved for it in Options/);
    await page.close();
  });

  test('a server that does not select the subprotocol is refused', { timeout: TEST_TIMEOUT }, async () => {
    const srv = await start({ noSubprotocolEcho: true });
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.origin, refused);
    assert.equal(provider.provider, null);
    assert.equal(await mirror(browser.ctx, tabId, provider.key), null);
    await page.close();
  });

  test('a server that echoes something other than slop.bearer (here: the token) is closed by the extension', { timeout: TEST_TIMEOUT }, async () => {
    // Chrome accepts any offered value, so the token echo opens the socket: our check must close it.
    const token = generateToken();
    const srv = await start({ token, echoProtocol: token });
    await setTokenInExtension(browser.ctx, wsOrigin(srv), token);
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.origin, refused);
    assert.equal(provider.message, 'server did not accept slop.bearer');
    assert.equal(provider.provider, null);
    assert.equal(await mirror(browser.ctx, tabId, provider.key), null);
    await page.close();
  });

  test('a provider that is down shows as unreachable, then connects when it comes up', { timeout: TEST_TIMEOUT }, async () => {
    const probe = await startProvider();
    const port = probe.port;
    await probe.close(); // a port nobody listens on (now)
    const host = await start({ wellKnown: false, pages: {
      '/down.html': `<!doctype html><meta name="slop" content="ws://127.0.0.1:${port}/slop"><title>down</title>`,
    } });
    const page = await browser.ctx.newPage();
    await page.goto(host.url('/down.html'));
    const { provider } = await waitForProvider(browser.ctx, host.url('/down.html'), (p) => p.status === 'unreachable');
    assert.ok(provider.retryAt > 0, 'a retry is scheduled');
    const late = await start({ port, token: host.token });
    await setTokenInExtension(browser.ctx, wsOrigin(late), late.token);
    await waitForProvider(browser.ctx, host.url('/down.html'), (p) => p.status === 'connected', { timeout: 30_000 });
    await page.close();
  });
});
