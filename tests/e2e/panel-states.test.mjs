// What the panel says when there is no tree to show (no provider, connecting, waiting for approval,
// refused for auth, protocol error, disconnected with the last known state) and that each tells
// the user what to do next; the light/dark theme; the main screenshots (live tree, dark theme and
// every state, saved to build/screenshots/).

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { startScriptedProvider, frames } from '../fixtures/provider/scripted.mjs';
import { launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openPanel, until, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
const shot = (panel, name) => panel.screenshot({ path: path.join(SHOTS, name) });
const state = (panel) => panel.evaluate(() => document.body.dataset.state);

describe('panel states and theme', () => {
  let browser;
  let mail;
  const closers = [];

  before(async () => {
    mail = await startProvider({
      engine: createMailEngine({ live: false }),
      alt: true,
      pages: {
        '/cross.html': '<!doctype html><meta charset="utf-8"><meta name="slop" content="ws://127.0.0.1:{{PORT}}/slop"><title>cross</title>',
      },
    });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(mail), mail.token);
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await mail?.close();
    for (const c of closers) await c().catch(() => {});
  });

  async function tabOf(url, pred) {
    const page = await browser.ctx.newPage();
    await page.goto(url);
    const { tabId } = await waitForProvider(browser.ctx, url, pred);
    return { page, tabId };
  }

  test('live tree (light), detail and log: the main screenshot', { timeout: TEST_TIMEOUT }, async () => {
    const { tabId } = await tabOf(mail.url('/pages/meta-ws.html'), (p) => p.status === 'connected' && p.nodes > 0);
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    assert.equal(await panel.evaluate(() => document.documentElement.dataset.theme), 'light');
    await panel.click('#tree .row[data-path="/inbox"] .twisty', { timeout: 10_000 });
    await panel.click('#tree .row[data-path="/inbox/msg-298"]');
    // Some traffic for the log and a flash.
    mail.engine.mutate((root) => { root.children.at(-1).properties.received = 1; });
    await panel.click('#toggle-log');
    await panel.locator('#log .log-row[data-type="patch"]').waitFor({ timeout: 5000 });
    await panel.locator('#log .log-row[data-type="snapshot"]').click();
    await panel.waitForTimeout(1000); // the flash fades
    await shot(panel, 'panel-live.png');
    await panel.click('#toggle-log');
    await panel.click('#tree .row[data-path="/inbox"] .twisty');
    await panel.click('#tree .row[data-path="/compose"]');
    await shot(panel, 'panel-detail.png');
    await panel.close();
  });

  test('theme: follows prefers-color-scheme outside DevTools; ?theme= forces one', { timeout: TEST_TIMEOUT }, async () => {
    const { tabId } = await tabOf(mail.url('/pages/meta-ws.html?theme'), (p) => p.status === 'connected' && p.nodes > 0);
    const panel = await browser.ctx.newPage();
    await panel.emulateMedia({ colorScheme: 'dark' });
    await panel.goto(`chrome-extension://${browser.extId}/extension/panel/panel.html?tabId=${tabId}`);
    await panel.waitForSelector('body[data-ready="1"]');
    const bg = () => panel.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(await panel.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.equal(await panel.evaluate(() => document.body.dataset.themeSource), 'system');
    assert.equal(await bg(), 'rgb(30, 31, 34)');
    await panel.click('#tree .row[data-path="/notifications/note-storage"]', { timeout: 10_000 });
    await shot(panel, 'panel-dark.png');
    await panel.emulateMedia({ colorScheme: 'light' });
    await until(async () => (await bg()) === 'rgb(255, 255, 255)', { what: 'the light theme after the switch' });
    assert.equal(await panel.evaluate(() => document.documentElement.dataset.theme), 'light');
    await panel.goto(`chrome-extension://${browser.extId}/extension/panel/panel.html?tabId=${tabId}&theme=dark`);
    await panel.waitForSelector('body[data-ready="1"]');
    assert.equal(await panel.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.equal(await bg(), 'rgb(30, 31, 34)');
    await panel.close();
  });

  test('no provider on the page: says how a page announces one', { timeout: TEST_TIMEOUT }, async () => {
    // A server with no /.well-known/slop and a page with no meta tag.
    const plain = await startProvider({ wellKnown: false, pages: { '/plain.html': '<!doctype html><meta charset="utf-8"><title>no provider</title><p>Nothing here.</p>' } });
    closers.push(() => plain.close());
    const page = await browser.ctx.newPage();
    const url = plain.url('/plain.html');
    await page.goto(url);
    const tabId = await until(async () => {
      const tabs = await browser.ctx.serviceWorkers().at(-1).evaluate(() => globalThis.slopInspector.tabs());
      return tabs.find((t) => t.pageUrl === url)?.tabId;
    }, { what: 'the plain tab in the worker' });
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await until(async () => (await state(panel)) === 'empty', { what: 'the empty state' });
    assert.match(await panel.locator('#empty').textContent(), /No SLOP provider on this page.*<meta name="slop"/s);
    assert.equal(await panel.locator('#empty button[data-action="import"]').count(), 1);
    await shot(panel, 'panel-empty.png');
    await panel.close();
  });

  test('waiting for approval: approve right in the panel, then the tree', { timeout: TEST_TIMEOUT }, async () => {
    const url = `http://page.test:${mail.port}/cross.html`;
    const { tabId } = await tabOf(url, (p) => p.status === 'pending-approval');
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await until(async () => (await state(panel)) === 'pending-approval', { what: 'the approval state' });
    assert.match(await panel.locator('#empty').textContent(), /on another origin.*Connect only if you trust it.*page\.test/s);
    await shot(panel, 'panel-pending-approval.png');
    await panel.click('#empty button[data-action="approve"]');
    await panel.locator('#tree .row[data-path="/inbox"]').waitFor({ timeout: 15_000 });
    assert.equal(await state(panel), 'tree');
    await panel.close();
  });

  test('refused (auth): points to the options page; protocol error; connecting', { timeout: TEST_TIMEOUT }, async () => {
    // A provider whose token the extension does not have.
    const locked = await startProvider({ engine: createMailEngine({ live: false }), pages: { '/locked.html': '<!doctype html><meta name="slop" content="{{WS_URL}}"><title>locked</title>' } });
    closers.push(() => locked.close());
    const a = await tabOf(locked.url('/locked.html'), (p) => p.status === 'auth-failed');
    const panel = await openPanel(browser.ctx, browser.extId, a.tabId);
    // Read in one go: the extension retries on a back-off, and each retry shows "connecting"
    // for a moment, so the state and the text must come from the same instant.
    const seen = await until(() => panel.evaluate(() => (document.body.dataset.state === 'auth-failed' ? {
      text: document.getElementById('empty').textContent,
      options: document.querySelectorAll('#empty button[data-action="options"]').length,
      retry: document.querySelectorAll('#empty button[data-action="retry"]').length,
    } : null)), { what: 'the auth state' });
    assert.match(seen.text, /refused the connection.*Set the provider’s bearer token in Options/s);
    assert.equal(seen.options, 1);
    assert.equal(seen.retry, 1);
    await shot(panel, 'panel-auth-failed.png');
    await panel.close();

    // A provider without the "state" capability: a fatal protocol error.
    const broken = await startScriptedProvider({ script: [frames.hello({ capabilities: ['patches'] })], pages: { '/broken.html': '<!doctype html><meta name="slop" content="{{WS_URL}}"><title>broken</title>' } });
    closers.push(() => broken.close());
    await setTokenInExtension(browser.ctx, wsOrigin(broken), broken.token);
    const b = await tabOf(broken.url('/broken.html'), (p) => p.status === 'error');
    const p2 = await openPanel(browser.ctx, browser.extId, b.tabId);
    await until(async () => (await state(p2)) === 'error', { what: 'the error state' });
    assert.match(await p2.locator('#empty').textContent(), /error.*state.*Fix the provider, then retry/s);
    await shot(p2, 'panel-error.png');
    // Opened after the error: the worker kept the event and the frame that caused it.
    await p2.click('#toggle-log');
    await p2.click('#log [data-tab="events"]');
    await p2.locator('#log .ev-row.ev-protocol_error').first().waitFor({ timeout: 5000 });
    assert.match(await p2.locator('#log .ev-row.ev-protocol_error').first().textContent(), /state/);
    await p2.click('#log [data-tab="frames"]');
    await p2.locator('#log .log-row[data-type="hello"]').first().waitFor({ timeout: 5000 });
    await p2.close();

    // A provider that never says hello: connecting.
    const silent = await startScriptedProvider({ script: [], pages: { '/silent.html': '<!doctype html><meta name="slop" content="{{WS_URL}}"><title>silent</title>' } });
    closers.push(() => silent.close());
    await setTokenInExtension(browser.ctx, wsOrigin(silent), silent.token);
    const c = await tabOf(silent.url('/silent.html'), (p) => p.status === 'connecting' && /hello/.test(p.message));
    const p3 = await openPanel(browser.ctx, browser.extId, c.tabId);
    await until(async () => (await state(p3)) === 'connecting', { what: 'the connecting state' });
    assert.match(await p3.locator('#empty').textContent(), /Connecting to .*waiting for hello/s);
    await shot(p3, 'panel-connecting.png');
    await p3.close();
  });

  test('disconnected: the last known state stays, with the reason and a retry', { timeout: TEST_TIMEOUT }, async () => {
    const gone = await startProvider({ engine: createMailEngine({ live: false }), pages: { '/gone.html': '<!doctype html><meta name="slop" content="{{WS_URL}}"><title>gone</title>' } });
    await setTokenInExtension(browser.ctx, wsOrigin(gone), gone.token);
    const { tabId } = await tabOf(gone.url('/gone.html'), (p) => p.status === 'connected' && p.nodes > 0);
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.locator('#tree .row[data-path="/inbox"]').waitFor({ timeout: 10_000 });
    await gone.close();
    await panel.locator('#banner[data-kind="stale"]').waitFor({ timeout: 15_000 });
    assert.match(await panel.locator('#banner').textContent(), /(Reconnecting|Unreachable|Provider restarted, reconnecting).*showing the last known state \(v\d+\)/);
    assert.equal(await panel.locator('#banner button[data-action="retry"]').count(), 1);
    assert.equal(await panel.locator('#tree .row[data-path="/inbox"]').count(), 1, 'the tree is still there');
    await panel.click('#tree .row[data-path="/compose"]');
    assert.equal(await panel.locator('.affordance[data-action-name="send"] button[data-action="invoke"]').isDisabled(), true);
    await shot(panel, 'panel-disconnected.png');
    await panel.close();
  });
});
