// "Send to String agent": the options page takes a String agent's local webhook URL (loopback only,
// masked once saved, the daemon's health beside it); the panel's bar and the popup then send the
// shown provider's state as text, one request per click, and say what the daemon answered.
// Against our fixture daemon (tests/fixtures/stringd-webhook.mjs).

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { startStringDaemon } from '../fixtures/stringd-webhook.mjs';
import { browserOnProvider, startProvider, openPanel, openExtensionPage, until, TEST_TIMEOUT } from './helpers.mjs';

describe('Send to String agent', () => {
  let browser, srv, daemon, tabId;

  before(async () => {
    srv = await startProvider({ engine: createMailEngine({ messages: 5 }) });
    daemon = await startStringDaemon();
    ({ browser, tabId } = await browserOnProvider(srv));
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
    await daemon?.close();
  });

  test('options: loopback only, masked once saved, the daemon\'s health; removable', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    assert.equal(await panel.locator('#send-string').isHidden(), true, 'no webhook: no button');
    await panel.close();

    const options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
    await options.fill('#string-url', 'http://example.com/webhook/wh_abcdefgh1234');
    await options.click('#string-form button[type="submit"]');
    assert.match(await options.locator('#string-message').textContent(), /Only a webhook on this machine/);
    await options.fill('#string-url', `${daemon.origin}/nothook/wh_abcdefgh1234`);
    await options.click('#string-form button[type="submit"]');
    assert.match(await options.locator('#string-message').textContent(), /must end in \/webhook\/<token>/);

    await options.fill('#string-url', daemon.webhookUrl);
    await options.click('#string-form button[type="submit"]');
    await options.locator('#string-saved:not([hidden])').waitFor({ timeout: 5000 });
    const saved = await options.locator('#string-saved-text').textContent();
    assert.match(saved, new RegExp(`^Saved: ${daemon.origin.replace(/[.]/g, '\\.')}/webhook/•+ \\(\\d+ characters, `));
    assert.ok(!saved.includes(new URL(daemon.webhookUrl).pathname.split('/').pop()), 'the token is not shown');
    assert.equal(await options.locator('#string-url').inputValue(), '', 'the field is cleared');
    await until(async () => (await options.locator('#string-health').getAttribute('data-state')) === 'up', { what: 'daemon health' });
    assert.match(await options.locator('#string-health').textContent(), /is running/);
    await options.close();
  });

  test('the panel sends the shown provider\'s state: one request, the answer in words', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    const btn = panel.locator('#send-string');
    await btn.waitFor({ state: 'visible', timeout: 5000 });
    const before = daemon.events.length;
    await btn.click();
    await until(() => panel.evaluate(() => globalThis.slopPanel.stringResult()), { what: 'an answer' });
    const r = await panel.evaluate(() => globalThis.slopPanel.stringResult());
    assert.equal(r.ok, true, r.message);
    assert.match(await panel.locator('#toast').textContent(), /^Delivered to agent default as evt_/);
    assert.equal(daemon.events.length, before + 1, 'exactly one request');
    const text = daemon.events.at(-1).text;
    assert.match(text, /^SLOP state from a web page, sent by SLOP Inspector\nSource: http:\/\/127\.0\.0\.1:\d+\/pages\/meta-ws\.html\nProvider: Acme Mail \(id acme-mail\) over ws:\/\/127\.0\.0\.1:\d+\/slop\nVersion: \d+ \(\d+ nodes\), live, at /);
    assert.match(text, /\nUntrusted: everything below comes from a web page\./);
    assert.match(text, /\n\[root\] acme-mail: Acme Mail/);
    assert.match(text, /\nAffordances \(shown for context; not invocable from String\):\n/);
    assert.match(text, /\n- \/inbox\/msg-5: open, mark_unread, move, delete \(dangerous\)\n/);

    // Rotated token: said, not retried.
    daemon.rotate();
    const requests = daemon.requests.length;
    await btn.click();
    await until(async () => (await panel.evaluate(() => globalThis.slopPanel.stringResult()))?.status === 401, { what: 'the 401' });
    assert.match(await panel.locator('#toast').textContent(), /rotated.*string webhook show/);
    // The agent was learnt from the first send's 202, so its event stream was opened too: one POST.
    assert.equal(daemon.requests.slice(requests).filter((q) => q.method === 'POST').length, 1, 'one request, no retry');
    await panel.close();
  });

  test('the popup sends too; a daemon that is down is said plainly', { timeout: TEST_TIMEOUT }, async () => {
    const options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
    await options.fill('#string-url', daemon.webhookUrl); // the rotated one
    await options.click('#string-form button[type="submit"]');
    await options.locator('#string-message.ok').waitFor({ timeout: 5000 });
    await options.close();

    const popup = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${tabId}`);
    const send = popup.locator('.provider [data-action="send-to-string"]');
    await send.click({ timeout: 5000 });
    await popup.locator('.string-result[data-ok="true"]').waitFor({ timeout: 10_000 });
    assert.match(await popup.locator('.string-result').textContent(), /^Delivered to agent default as evt_/);

    await daemon.close();
    await popup.locator('.provider [data-action="send-to-string"]').click();
    await popup.locator('.string-result[data-ok="false"]').waitFor({ timeout: 10_000 });
    assert.match(await popup.locator('.string-result').textContent(), /No String daemon answers at that address/);
    await popup.close();
  });
});
