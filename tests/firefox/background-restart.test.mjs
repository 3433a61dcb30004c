// Firefox's counterpart of Chromium's "the service worker is stopped" (tests/e2e/mirror.test.mjs,
// tests/e2e/worker-restarts.test.mjs, which stop the worker through CDP): here the add-on's
// background page is started again (runtime.reload: Firefox has no call that stops only the
// background of an MV3 add-on from a test). The page is not reloaded: Firefox injects the content
// script into the open tab again, the provider is found and connected again, and a panel opened
// afterwards shows the live tree.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { openBrowser, saveToken } from '../ui/driver.mjs';

test('Firefox: the background starts again; the provider comes back without a page reload', { timeout: 90_000 }, async () => {
  const d = await openBrowser('firefox');
  const srv = await startWsProvider({ engine: createMailEngine({ messages: 5, live: false }), host: '127.0.0.1', port: 0, allowedOrigins: [d.extOrigin] });
  try {
    await saveToken(d, srv.origin, srv.token);
    const url = srv.url('/pages/meta-ws.html');
    const page = await d.webPage(url);
    await page.evaluate(() => { window.notReloaded = true; });
    const tabId = await d.tabId(url);
    const panel = await d.extensionPage(`extension/panel/panel.html?tabId=${tabId}`);
    await panel.waitFor('#tree .row[data-path="/inbox"]', { timeout: 15_000 });
    const connections = srv.connections?.length ?? null;

    // Start the background again (the add-on's pages close with it).
    const options = await d.extensionPage('extension/options/options.html');
    await options.evaluate(() => { setTimeout(() => browser.runtime.reload(), 50); });
    await new Promise((r) => setTimeout(r, 1500));
    d.helper = null; // the options page used for tab lookups closed with the old instance

    const again = await d.extensionPage(`extension/panel/panel.html?tabId=${tabId}`);
    await again.waitFor('#tree .row[data-path="/inbox"]', { timeout: 20_000 });
    assert.equal(await again.attr('#status', 'data-status'), 'connected');
    assert.equal(await page.evaluate(() => window.notReloaded), true, 'the page was not reloaded');
    srv.engine.mutate((root) => { root.properties.after_restart = true; });
    await again.waitUntil(() => window.slopPanel.currentTree()?.nodes.get('/')?.properties?.after_restart === true, undefined, { what: 'a change after the restart' });
    if (connections !== null) assert.ok(srv.connections.length > connections, 'a new connection');
  } finally {
    await d.close();
    await srv.close();
  }
});
