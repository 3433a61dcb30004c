// Cross-origin targets: a page on a non-loopback host (page.test, mapped to 127.0.0.1 by the
// browser) that names a loopback WebSocket provider waits as pending-approval until the user
// approves that (page origin, target) pair in the popup; approvals are listed in the options page
// and revoking one disconnects. "Deny" holds for the browser session.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openExtensionPage, swEval, until, sleep, TEST_TIMEOUT,
} from './helpers.mjs';

describe('approval of cross-origin targets', () => {
  let browser;
  let srv;

  before(async () => {
    srv = await startProvider({
      alt: true,
      pages: {
        '/cross.html': '<!doctype html><meta charset="utf-8"><meta name="slop" content="ws://127.0.0.1:{{PORT}}/slop"><title>cross</title><p>names a loopback provider</p>',
        '/cross-alt.html': '<!doctype html><meta charset="utf-8"><meta name="slop" content="ws://127.0.0.1:{{ALT_PORT}}/slop"><title>cross alt</title>',
      },
    });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    await setTokenInExtension(browser.ctx, `ws://127.0.0.1:${srv.altPort}`, srv.token);
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('pending until approved in the popup, then connected; revoking in options disconnects', { timeout: TEST_TIMEOUT }, async () => {
    const pageUrl = `http://page.test:${srv.port}/cross.html`;
    const page = await browser.ctx.newPage();
    await page.goto(pageUrl);
    const { tabId, provider } = await waitForProvider(browser.ctx, pageUrl, (p) => p.status === 'pending-approval');
    assert.equal(provider.classification, 'cross-origin');
    assert.equal(provider.approvalKey, `http://page.test:${srv.port} -> ws://127.0.0.1:${srv.port}/slop`);
    await sleep(300);
    assert.equal(srv.sessions.size, 0, 'nothing connects before the approval');

    const popup = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${tabId}`);
    const card = popup.locator(`.provider[data-key="${provider.key}"]`);
    assert.match(await card.textContent(), /another origin/);
    await card.locator('button[data-action="approve"]').click({ timeout: 5000 });
    await waitForProvider(browser.ctx, pageUrl, (p) => p.status === 'connected' && p.nodes > 0);
    await card.locator('.pill[data-status="connected"]').waitFor({ timeout: 5000 });
    await popup.close();

    const stored = await swEval(browser.ctx, () => chrome.storage.local.get('approvals').then((r) => r.approvals ?? {}));
    assert.deepEqual(Object.keys(stored), [provider.approvalKey]);
    // The key's parts are the core's, stored beside it: nothing takes the key apart.
    assert.equal(stored[provider.approvalKey].page, provider.approvalPage);
    assert.equal(stored[provider.approvalKey].target, provider.approvalTarget);
    assert.equal(provider.approvalKey, `${provider.approvalPage} -> ${provider.approvalTarget}`);

    const options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
    const row = options.locator('#approvals tbody tr');
    await row.first().waitFor({ timeout: 5000 });
    assert.equal(await row.count(), 1);
    assert.equal(await row.locator('td').nth(0).textContent(), provider.approvalPage);
    assert.equal(await row.locator('td').nth(1).textContent(), provider.approvalTarget);
    await row.locator('button[data-action="revoke"]').click();
    await options.locator('#approvals-empty:not([hidden])').waitFor({ timeout: 5000 });
    await waitForProvider(browser.ctx, pageUrl, (p) => p.status === 'pending-approval' && p.nodes === 0);
    await until(() => srv.sessions.size === 0, { what: 'the socket to close after the revocation' });
    await options.close();
    await page.close();
  });

  test('deny keeps it disconnected for the session; approve later still works', { timeout: TEST_TIMEOUT }, async () => {
    const pageUrl = `http://page.test:${srv.port}/cross-alt.html`;
    const page = await browser.ctx.newPage();
    await page.goto(pageUrl);
    const { tabId, provider } = await waitForProvider(browser.ctx, pageUrl, (p) => p.status === 'pending-approval');
    const popup = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${tabId}`);
    const card = popup.locator(`.provider[data-key="${provider.key}"]`);
    await card.locator('button[data-action="deny"]').click({ timeout: 5000 });
    await waitForProvider(browser.ctx, pageUrl, (p) => p.status === 'denied');
    await card.locator('.pill[data-status="denied"]').waitFor({ timeout: 5000 });

    // Reloading the page does not ask again in this session.
    await page.reload();
    await waitForProvider(browser.ctx, pageUrl, (p) => p.status === 'denied');

    await card.locator('button[data-action="approve"]').click({ timeout: 5000 });
    await waitForProvider(browser.ctx, pageUrl, (p) => p.status === 'connected');
    await popup.close();
    await page.close();
  });

  test('a same-origin loopback page connects without asking', { timeout: TEST_TIMEOUT }, async () => {
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    const { provider } = await waitForProvider(browser.ctx, srv.url('/pages/meta-ws.html'), (p) => p.status === 'connected');
    assert.equal(provider.classification, 'same-origin');
    await page.close();
  });
});
