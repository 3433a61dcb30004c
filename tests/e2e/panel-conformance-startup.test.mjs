// The panel's Conformance tab for providers that never go live: a hello without provider.id and a
// snapshot with a node whose type is a number are shown as MUST findings (with the toolbar's badge)
// and the reason the provider is not live, not as "nothing checked". Screenshots at 1280x800,
// 480 wide dark, 320 wide.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startScriptedProvider, frames, reply } from '../fixtures/provider/scripted.mjs';
import { launch, setTokenInExtension, wsOrigin, waitForProvider, openPanel, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
const page = (title) => `<!doctype html><meta charset="utf-8"><meta name="slop" content="{{WS_URL}}"><title>${title}</title>`;

describe('panel conformance: a provider that never goes live', () => {
  let browser;
  const closers = [];

  before(async () => {
    browser = await launch();
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    for (const c of closers) await c().catch(() => {});
  });

  async function openFor(script, pagePath) {
    const srv = await startScriptedProvider({ host: '127.0.0.1', port: 0, script, pages: { [pagePath]: page(pagePath) } });
    closers.push(() => srv.close());
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    const tab = await browser.ctx.newPage();
    await tab.goto(srv.url(pagePath));
    return srv;
  }

  async function conformanceTab(srv, pagePath, ready) {
    const { tabId } = await waitForProvider(browser.ctx, srv.url(pagePath), ready, { what: 'the provider' });
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    // The toolbar's badge counts the MUST findings, and opens them even over a waiting card.
    await panel.locator('#conf-badge:not([hidden])').waitFor({ timeout: 15_000 });
    await panel.click('#conf-badge');
    await panel.locator('#conformance [data-role="conf-not-live"]').waitFor({ timeout: 10_000 });
    return panel;
  }

  test('a hello without provider.id: hello-fields (MUST), why it is not live, the badge', { timeout: TEST_TIMEOUT }, async () => {
    const srv = await openFor([{ type: 'hello', provider: { name: 'No id', slop_version: '0.1', capabilities: ['state'] } }], '/no-id.html');
    const panel = await conformanceTab(srv, '/no-id.html', (p) => p.status === 'connecting' || p.status === 'connected');
    assert.equal(await panel.locator('#conformance [data-role="conf-not-live"]').textContent(),
      'Not live: its hello was refused: "provider.id" must be a non-empty string');
    await panel.locator('#conformance section.conf-group[data-rule="hello-fields"]').waitFor({ timeout: 5000 });
    assert.match(await panel.locator('#conformance').textContent(), /hello: "provider\.id" must be a non-empty string/);
    assert.equal(await panel.locator('#conf-badge').textContent(), '1 MUST');
    await panel.setViewportSize({ width: 1280, height: 800 });
    await panel.screenshot({ path: path.join(SHOTS, 'conformance-not-live-1280.png') });
    await panel.setViewportSize({ width: 320, height: 640 });
    await panel.screenshot({ path: path.join(SHOTS, 'conformance-not-live-320.png') });
  });

  test('a node whose type is a number: tree-shape (MUST), the refused snapshot named', { timeout: TEST_TIMEOUT }, async () => {
    const bad = { id: 'root', type: 'root', children: [{ id: 'n', type: 7 }] };
    const srv = await openFor([frames.hello(), ...reply('subscribe', (m) => frames.snapshot(m.id, 1, bad))], '/type-number.html');
    const panel = await conformanceTab(srv, '/type-number.html', (p) => p.sync?.state === 'failed');
    assert.match(await panel.locator('#conformance [data-role="conf-not-live"]').textContent(),
      /^Not live: subscription \S+ \(\/\) is failed: snapshot refused: .*"type" must be a string$/);
    await panel.locator('#conformance section.conf-group[data-rule="tree-shape"]').waitFor({ timeout: 5000 });
    assert.equal(await panel.locator('#conf-badge').textContent(), '1 MUST');
    await panel.emulateMedia({ colorScheme: 'dark' });
    await panel.setViewportSize({ width: 480, height: 700 });
    await panel.screenshot({ path: path.join(SHOTS, 'conformance-not-live-480-dark.png') });
  });
});
