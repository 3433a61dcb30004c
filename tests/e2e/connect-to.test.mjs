// "Connect to…": a provider no page announces, added by address in the panel (ws://, or an http://
// site whose /.well-known/slop names one), shown like any other provider (on every tab), kept until
// removed; an agnt-gg "Simple Language Open Protocol" server is named as such and shown read-only
// (nothing invoked); a plain HTTP server is "not a SLOP provider", with what it answered.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { startAgntGgServer } from '../fixtures/agnt-gg-server.mjs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { launch, startProvider, openPanel, until, swEval, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');

describe('Connect to…', () => {
  let browser, srv, agnt, plain, plainUrl;

  before(async () => {
    srv = await startProvider({ engine: createMailEngine({ messages: 5 }), cors: true });
    agnt = await startAgntGgServer();
    plain = http.createServer((req, res) => {
      if (req.url === '/endless/info') { // a body that never ends: a probe reads a little of it, then lets go
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*' });
        const more = () => { if (!res.destroyed && res.write('x'.repeat(65536))) setImmediate(more); else if (!res.destroyed) res.once('drain', more); };
        req.on('close', () => res.destroy());
        return more();
      }
      res.writeHead(404, { 'Content-Type': 'text/html', 'Access-Control-Allow-Origin': '*' });
      res.end('<h1>Not here</h1>');
    });
    await new Promise((r) => plain.listen(0, '127.0.0.1', r));
    plainUrl = `http://127.0.0.1:${plain.address().port}`;
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
    await agnt?.close();
    await new Promise((r) => plain?.close(r));
  });

  /** A panel for a page without any provider (a tab the worker knows nothing about works too). */
  async function panelPage() {
    const page = await browser.ctx.newPage();
    await page.goto(`${plainUrl}/`);
    const tabId = await until(() => swEval(browser.ctx, (u) => globalThis.slopInspector.tabs().find((t) => t.pageUrl?.startsWith(u))?.tabId, plainUrl), { what: 'the tab' });
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#toggle-connect');
    return { page, panel };
  }

  async function connect(panel, address, token = '') {
    await panel.evaluate(() => { globalThis.__before = globalThis.slopPanel.connectResult(); });
    await panel.fill('#connect-address', address);
    await panel.fill('#connect-token', token);
    await panel.click('#connect-strip [data-action="connect"]');
    return until(() => panel.evaluate(() => { const r = globalThis.slopPanel.connectResult(); return r !== globalThis.__before ? r : null; }), { what: 'an answer' });
  }

  test('a ws:// address with its token: kept, connected, shown and selected; removed', { timeout: TEST_TIMEOUT }, async () => {
    const { page, panel } = await panelPage();
    const r = await connect(panel, srv.wsUrl, srv.token);
    assert.deepEqual(r, { kind: 'slop', key: srv.wsUrl, provider: r.provider, checked: true, read: null }, 'kept once it said hello');
    assert.ok(r.provider?.name);
    assert.equal(await panel.locator('#connect-token').inputValue(), '', 'the token field is cleared');
    await panel.locator('#tree .row[data-path="/inbox"]').waitFor({ timeout: 15_000 });
    assert.equal(await panel.locator('#provider').inputValue(), srv.wsUrl);
    assert.match(await panel.locator('#status').getAttribute('title'), /added by address/);
    assert.equal(await panel.locator(`#connect-strip .connect-item[data-key="${srv.wsUrl}"]`).count(), 1);
    // Remembered: in the storage the worker rebuilds it from.
    const stored = await swEval(browser.ctx, () => chrome.storage.local.get('manualProviders').then((x) => Object.keys(x.manualProviders ?? {})));
    assert.deepEqual(stored, [srv.wsUrl]);

    await panel.click(`#connect-strip .connect-item[data-key="${srv.wsUrl}"] [data-action="remove-provider"]`);
    await until(async () => (await panel.locator('#provider option').evaluateAll((o) => o.map((x) => x.value))).every((v) => v !== srv.wsUrl), { what: 'removed' });
    assert.equal(await swEval(browser.ctx, () => globalThis.slopInspector.connectionCount()), 0);
    await panel.close();
    await page.close();
  });

  test('an http:// address: its /.well-known/slop names the provider', { timeout: TEST_TIMEOUT }, async () => {
    const { page, panel } = await panelPage();
    const r = await connect(panel, srv.url('/'), srv.token);
    assert.equal(r.kind, 'slop');
    assert.equal(r.key, srv.wsUrl);
    await panel.locator('#tree .row[data-path="/inbox"]').waitFor({ timeout: 15_000 });
    await panel.click(`#connect-strip .connect-item[data-key="${srv.wsUrl}"] [data-action="remove-provider"]`);
    await panel.close();
    await page.close();
  });

  test('an agnt-gg server is named, shown read-only, nothing invoked; a plain server is not SLOP', { timeout: TEST_TIMEOUT }, async () => {
    const { page, panel } = await panelPage();
    const r = await connect(panel, agnt.url);
    assert.equal(r.kind, 'agnt-gg');
    const box = panel.locator('#connect-strip [data-role="agnt-gg"]');
    await box.waitFor({ timeout: 5000 });
    assert.match(await box.locator('p').textContent(), /^Example SLOP API is an agnt-gg “Simple Language Open Protocol” server, not a SLOP provider\. It shares the name/);
    assert.deepEqual(await box.locator(':scope > details > summary').allTextContents(), ['/info', '/tools', '/resources']);
    assert.ok(agnt.requests.every((q) => q.method === 'GET'), JSON.stringify(agnt.requests));
    assert.equal(await swEval(browser.ctx, () => globalThis.slopInspector.connectionCount()), 0, 'nothing was kept');
    await fs.mkdir(SHOTS, { recursive: true });
    for (const [w, h, scheme, name] of [[1280, 800, 'light', 'panel-connect-agnt-gg.png'], [480, 800, 'dark', 'panel-connect-agnt-gg-480-dark.png']]) {
      await panel.setViewportSize({ width: w, height: h });
      await panel.emulateMedia({ colorScheme: scheme });
      await panel.screenshot({ path: path.join(SHOTS, name) });
    }
    await panel.emulateMedia({ colorScheme: 'light' });
    await panel.setViewportSize({ width: 1280, height: 800 });

    const no = await connect(panel, plainUrl);
    assert.equal(no.kind, 'not-slop');
    assert.match(await panel.locator('#connect-strip [data-role="connect-message"]').textContent(),
      /^http:\/\/127\.0\.0\.1:\d+ answers, but is not a SLOP provider \(\/\.well-known\/slop: HTTP 404 text\/html: “<h1>Not here<\/h1>”; \/info: HTTP 404 text\/html: “<h1>Not here<\/h1>”\)\. Type the provider’s ws:\/\/ address/);
    // An answer that never ends is read only so far: the probe answers at once, not at its 5 s timeout.
    const endless = await connect(panel, `${plainUrl}/endless`);
    assert.equal(endless.kind, 'not-slop');
    assert.match(endless.message, /\/info: HTTP 200 text\/plain: “x{80}”/);
    const bad = await connect(panel, 'ftp://example.invalid/x');
    assert.match(bad.error, /“ftp:” addresses are not SLOP providers: use ws:\/\/ or wss:\/\/ \(the provider\), or http:\/\/ or https:\/\/ \(its page\)/);
    await panel.close();
    await page.close();
  });

  test('nothing there, a blocked port: one plain sentence each, with the fix (issue 45)', { timeout: TEST_TIMEOUT }, async () => {
    const { page, panel } = await panelPage();
    const gone = http.createServer();
    await new Promise((r) => gone.listen(0, '127.0.0.1', r));
    const dead = gone.address().port;
    await new Promise((r) => gone.close(r));
    try {
      const message = () => panel.locator('#connect-strip [data-role="connect-message"]').textContent();
      const refused = await connect(panel, `127.0.0.1:${dead}`);
      assert.equal(refused.kind, 'not-slop');
      assert.equal(await message(), `Nothing answers at http://127.0.0.1:${dead} (connection refused). Is the app running on that port?`);
      const blocked = await connect(panel, 'localhost:9');
      assert.equal(await message(), 'Nothing answers at http://localhost:9: port 9 is blocked (browsers never connect to it). Is the app on another port?', JSON.stringify(blocked));
      for (const text of [refused.message, blocked.message]) assert.doesNotMatch(text, /\([^)]*\(/, 'nothing nested');
      await fs.mkdir(SHOTS, { recursive: true });
      await connect(panel, `127.0.0.1:${dead}`);
      for (const [w, scheme] of [[320, 'light'], [480, 'dark'], [700, 'light'], [1280, 'dark']]) {
        await panel.setViewportSize({ width: w, height: 600 });
        await panel.emulateMedia({ colorScheme: scheme });
        await panel.screenshot({ path: path.join(SHOTS, `panel-connect-refused-${w}-${scheme}.png`) });
      }
    } finally {
      await panel.close();
      await page.close();
    }
  });
});
