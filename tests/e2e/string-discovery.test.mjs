// "Find String agents on this machine": Options asks the worker, the worker asks the String
// daemon (GET /agents), the agents are listed as text, a pick has the worker fetch the agent's
// webhook (GET /agents/:id/webhook) and store it as a pasted one is (the page never gets it).
// A send then watches the agent's GET /events/stream and says whether the event showed; a daemon
// without the stream, or one that never shows it, is said plainly. /exec is never called.
// Against our fixture daemon (tests/fixtures/stringd-webhook.mjs).

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { startStringDaemon } from '../fixtures/stringd-webhook.mjs';
import { browserOnProvider, startProvider, openPanel, openExtensionPage, swEval, until, collectConsole, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
/** An agent id as a daemon may hold it: shown as text, never as markup. */
const ODD_ID = '<b>odd</b>&amp;';

/** Everything the options page holds: its markup, and what its fields hold. */
const pageText = (page) => page.evaluate(() => document.documentElement.outerHTML +
  [...document.querySelectorAll('input')].map((i) => i.value).join('\n'));

async function find(options, address) {
  await options.fill('#string-daemon', address);
  await options.click('#string-find-form button[type="submit"]');
  await options.locator('#string-find-message.ok, #string-find-message.bad').waitFor({ timeout: 15_000 });
  return options.locator('#string-find-message').textContent();
}

describe('Find String agents on this machine', () => {
  let browser, srv, daemon, tabId, empty, html, deadOrigin, consoleLines;

  before(async () => {
    srv = await startProvider({ engine: createMailEngine({ messages: 5 }) });
    daemon = await startStringDaemon({ agents: ['default', 'research', ODD_ID, 'temp'] });
    empty = await startStringDaemon({ agents: [] });
    html = http.createServer((req, res) => { res.writeHead(200, { 'Content-Type': 'text/html' }); res.end('<!doctype html><title>a dev server</title>'); });
    await new Promise((r) => html.listen(0, '127.0.0.1', r));
    const gone = await startStringDaemon();
    deadOrigin = gone.origin;
    await gone.close();
    ({ browser, tabId } = await browserOnProvider(srv));
    consoleLines = collectConsole(browser.ctx);
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
    await daemon?.close();
    await empty?.close();
    html?.closeAllConnections();
    await new Promise((r) => (html ? html.close(r) : r()));
  });

  test('options: every failure in words; the agents listed as text; a pick stores the webhook, which the page never gets', { timeout: TEST_TIMEOUT }, async () => {
    const options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
    assert.equal(await options.locator('#string-daemon').inputValue(), 'http://127.0.0.1:3923', 'the default address');

    assert.match(await find(options, deadOrigin), /^No String daemon answers at http:\/\/127\.0\.0\.1:\d+: is it running \(string daemon start\)\? /);
    assert.match(await find(options, `http://127.0.0.1:${html.address().port}`), /but not as a String daemon \(GET \/agents gave an answer that is not JSON\)/);
    assert.match(await find(options, empty.origin), /has no agents yet: start a String agent, then look again/);
    assert.match(await find(options, 'example.com:3923'), /Only a String daemon on this machine \(127\.0\.0\.1, localhost or \[::1\]\)/);
    assert.equal(await options.locator('#string-agents').isHidden(), true, 'no list after a failure');

    // By its port alone.
    assert.equal(await find(options, new URL(daemon.origin).port), `4 agents at ${daemon.origin}: pick the one that gets the states.`);
    assert.equal(await options.locator('#string-daemon').inputValue(), daemon.origin, 'the address as understood');
    const rows = options.locator('#string-agents tbody tr');
    assert.equal(await rows.count(), 4);
    assert.deepEqual(await options.locator('#string-agents tbody tr td:first-child').allTextContents(), ['default', 'research', ODD_ID, 'temp']);
    assert.equal(await options.locator('#string-agents tbody b').count(), 0, 'an id is text, not markup');
    assert.match(await rows.nth(1).locator('td').nth(1).textContent(), /\/home\/alice\/\.string\/agents\/research$/);

    // The daemon removes an agent between the list and the pick: refused, said, nothing saved.
    daemon.removeAgent('temp');
    await options.locator('#string-agents tr[data-agent="temp"] button[data-action="use-agent"]').click();
    await until(async () => /refused/.test(await options.locator('#string-find-message').textContent()), { what: 'the refusal' });
    assert.equal(await options.locator('#string-find-message').textContent(),
      `The daemon at ${daemon.origin} refused agent temp's webhook (HTTP 401: Unknown agent: temp). Nothing was saved.`);
    assert.equal(await swEval(browser.ctx, () => chrome.storage.local.get('stringWebhook').then((g) => g.stringWebhook ?? null)), null);

    await options.locator('#string-agents tr[data-agent="research"] button[data-action="use-agent"]').click();
    await options.locator('#string-saved:not([hidden])').waitFor({ timeout: 10_000 });
    assert.equal(await options.locator('#string-find-message').textContent(), 'Agent research\'s webhook is saved: the panel and the popup send it states from now on.');
    const url = daemon.webhookUrlOf('research');
    assert.ok(url, 'the daemon made the agent a webhook');
    assert.equal(await swEval(browser.ctx, () => chrome.storage.local.get('stringWebhook').then((g) => g.stringWebhook)), url, 'stored as a pasted one is');
    assert.match(await options.locator('#string-saved-text').textContent(),
      new RegExp(`^Saved: ${daemon.origin.replace(/[.]/g, '\\.')}/webhook/•+ \\(\\d+ characters, .*\\), agent research\\.$`));
    await options.locator('#string-agents tr[data-agent="research"] .in-use').waitFor({ timeout: 5000 });
    const token = url.split('/').pop();
    assert.ok(!(await pageText(options)).includes(token), 'the token is nowhere in the page');
    await until(async () => (await options.locator('#string-health').getAttribute('data-state')) === 'up', { what: 'daemon health' });

    // The new section, 1280 and 480 wide, light and dark; never wider than the window.
    await fs.mkdir(SHOTS, { recursive: true });
    await options.locator('#string-h').scrollIntoViewIfNeeded();
    for (const [w, hgt] of [[1280, 800], [480, 900], [320, 1000]]) {
      await options.setViewportSize({ width: w, height: hgt });
      const size = await options.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      assert.ok(size.scroll <= size.client, `${w}px: the options page scrolls sideways: ${JSON.stringify(size)}`);
      for (const scheme of ['light', 'dark']) {
        await options.emulateMedia({ colorScheme: scheme });
        await options.locator('section[aria-labelledby="string-h"]').screenshot({ path: path.join(SHOTS, `options-string-agents-${w}-${scheme}.png`) });
      }
    }
    await options.close();
  });

  test('a send from the panel: delivered, and the event seen on the agent\'s stream', { timeout: TEST_TIMEOUT }, async () => {
    daemon.eventStream = 'live';
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    const btn = panel.locator('#send-string');
    await btn.waitFor({ state: 'visible', timeout: 5000 });
    const posts = daemon.events.length;
    await btn.click();
    await until(() => panel.evaluate(() => globalThis.slopPanel.stringResult()), { what: 'an answer' });
    const r = await panel.evaluate(() => globalThis.slopPanel.stringResult());
    assert.equal(r.ok, true, r.message);
    assert.equal(r.receipt.state, 'seen', r.message);
    assert.equal(daemon.events.length, posts + 1, 'one POST');
    assert.equal(daemon.events.at(-1).agentId, 'research');
    assert.equal(daemon.events.at(-1).id, r.eventId);
    assert.match(await panel.locator('#toast').textContent(),
      /^Delivered to agent research as evt_\S+\. String received it: the event was seen on agent research's event stream\./);
    const stream = daemon.requests.filter((q) => q.path === '/events/stream' && q.method === 'GET');
    assert.equal(stream.at(-1).agentHeader, 'research');
    await until(() => daemon.openStreams === 0, { what: 'the stream closed after the send' });
    await panel.close();
  });

  test('a daemon without /events/stream, and one that never shows the event: said plainly, not as errors; never /exec', { timeout: TEST_TIMEOUT }, async () => {
    const popup = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${tabId}`);
    const send = popup.locator('.provider [data-action="send-to-string"]');

    daemon.eventStream = 'none';
    await send.click({ timeout: 5000 });
    await popup.locator('.string-result[data-ok="true"]').waitFor({ timeout: 15_000 });
    assert.match(await popup.locator('.string-result').textContent(),
      /^Delivered to agent research as evt_\S+\. This daemon has no event stream \(GET \/events\/stream answers 404\), so whether the agent has read it is not known\.$/);

    daemon.eventStream = 'mute';
    await send.click({ timeout: 5000 });
    await until(async () => /did not show/.test(await popup.locator('.string-result').textContent()), { what: 'the time running out' });
    assert.equal(await popup.locator('.string-result').getAttribute('data-ok'), 'true');
    assert.match(await popup.locator('.string-result').textContent(),
      /^Delivered to agent research as evt_\S+\. It did not show on agent research's event stream within 3 s, so whether the agent has read it is not known\.$/);
    await popup.close();

    assert.deepEqual(daemon.requests.filter((q) => /exec/.test(q.path)), [], 'never /exec');
    // What the extension asked the daemon, all of it (/describe: the options page's health line).
    const ALLOWED = new Set(['GET /agents', 'GET /agents/:id/webhook', 'GET /events/stream', 'OPTIONS /events/stream',
      'POST /webhook/:token', 'GET /health', 'GET /describe']);
    const asked = new Set(daemon.requests.map((q) => `${q.method} ${q.path.replace(/^\/webhook\/.*/, '/webhook/:token').replace(/^\/agents\/[^/]+\/webhook$/, '/agents/:id/webhook')}`));
    assert.deepEqual([...asked].filter((x) => !ALLOWED.has(x)), [], 'nothing else');
    const token = daemon.webhookUrlOf('research').split('/').pop();
    assert.ok(!consoleLines.join('\n').includes(token), 'the token is never logged');
  });
});
