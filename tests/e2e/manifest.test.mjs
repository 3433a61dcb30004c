// The manifest loads in Chromium with no install warnings and no manifest errors (as listed by
// chrome://extensions), and using the extension's pages (panel, popup, options) with both
// transports logs no error or warning from any extension context.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openPanel, openExtensionPage, collectConsole, sleep, TEST_TIMEOUT,
} from './helpers.mjs';

/** chrome.developerPrivate info of our extension, read from chrome://extensions. */
async function extensionInfo(ctx, extId) {
  const page = await ctx.newPage();
  try {
    await page.goto('chrome://extensions/');
    return await page.evaluate((id) => new Promise((resolve) => {
      chrome.developerPrivate.getExtensionsInfo({ includeDisabled: true, includeTerminated: true }, (list) => {
        const e = list.find((x) => x.id === id);
        resolve(e && {
          state: e.state,
          installWarnings: e.installWarnings,
          manifestErrors: e.manifestErrors,
          runtimeErrors: e.runtimeErrors.map((r) => `${r.severity} ${r.source}: ${r.message}`),
          permissions: e.permissions.simplePermissions.map((p) => p.message),
        });
      });
    }), extId);
  } finally {
    await page.close();
  }
}

describe('manifest', () => {
  let browser;
  let srv;
  let consoleLines;

  before(async () => {
    srv = await startProvider();
    browser = await launch();
    consoleLines = collectConsole(browser.ctx);
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('Chromium loads it with no warnings, and using it logs no errors', { timeout: TEST_TIMEOUT }, async () => {
    const ws = await browser.ctx.newPage();
    await ws.goto(srv.url('/pages/meta-ws.html'));
    const spa = await browser.ctx.newPage();
    await spa.goto(srv.url('/pages/spa.html'));
    const a = await waitForProvider(browser.ctx, srv.url('/pages/meta-ws.html'), (p) => p.status === 'connected' && p.nodes > 0);
    const b = await waitForProvider(browser.ctx, srv.url('/pages/spa.html'), (p) => p.status === 'connected' && p.nodes > 0);
    for (const tabId of [a.tabId, b.tabId]) {
      const panel = await openPanel(browser.ctx, browser.extId, tabId);
      await panel.waitForSelector('#tree .row[data-path="/"]', { timeout: 10_000 });
      await panel.click('#side-tabs button[data-tab="agent"]');
      await panel.waitForSelector('#agent pre.tree-text', { timeout: 5000 });
      await panel.click('#toggle-log');
      await panel.close();
    }
    const popup = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${a.tabId}`);
    await popup.close();
    const options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
    await options.close();
    await sleep(300);

    const info = await extensionInfo(browser.ctx, browser.extId);
    assert.ok(info, 'the extension is listed');
    assert.equal(info.state, 'ENABLED');
    assert.deepEqual(info.installWarnings, []);
    assert.deepEqual(info.manifestErrors, []);
    assert.deepEqual(info.runtimeErrors, []);
    // "storage" shows no warning; the content script on http(s) pages is the only one shown.
    assert.deepEqual(info.permissions, ['Read and change all your data on all websites']);
    const own = consoleLines.filter((l) => l.includes(`chrome-extension://${browser.extId}/`) && /: (error|warning): /.test(l));
    assert.deepEqual(own, []);
    await ws.close();
    await spa.close();
  });
});
