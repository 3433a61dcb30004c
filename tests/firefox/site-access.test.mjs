// Firefox lets the user withhold an add-on's access to websites (MV3 host permissions are the
// user's to grant). Without it the content script does not run and nothing is found: the popup
// says why and offers to allow it, instead of "No SLOP provider on this page". (Chromium grants
// the access at install; the same check answers yes there, and the popup shows what it always did:
// the shared suite's popup test covers it.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { openBrowser } from '../ui/driver.mjs';

test('Firefox: site access withheld: the popup says so and offers to allow it', { timeout: 90_000 }, async () => {
  const d = await openBrowser('firefox');
  const srv = await startWsProvider({ host: '127.0.0.1', port: 0, allowedOrigins: [d.extOrigin] });
  try {
    const options = await d.extensionPage('extension/options/options.html');
    const removed = await options.evaluate(() => browser.permissions.remove({ origins: ['http://*/*', 'https://*/*'] }));
    assert.equal(removed, true, 'the user took the access away');
    assert.equal(await options.evaluate(() => browser.permissions.contains({ origins: ['http://*/*', 'https://*/*'] })), false);
    const url = srv.url('/pages/meta-ws.html');
    await d.webPage(url);
    const tabId = await options.evaluate(async () => (await browser.tabs.query({ active: true })).map((t) => t.id)[0]);
    const popup = await d.extensionPage(`extension/popup/popup.html?tabId=${tabId}`);
    await popup.waitFor('[data-role="site-access"]');
    assert.match(await popup.text('[data-role="site-access"]'), /not allowed to read websites.*Access your data for all websites/s);
    assert.equal(await popup.count('[data-action="allow-sites"]'), 1);
    await popup.screenshot('build/screenshots/firefox-popup-site-access.png');
  } finally {
    await d.close();
    await srv.close();
  }
});
