// The panel's Conformance tab: a conforming provider shows "No findings" with what was checked; a
// provider that breaks rules shows them by rule (MUST first) with the toolbar's MUST badge; a
// finding's path selects the node and its frame opens in the log; "Check for drift now" catches
// a provider whose state changed without a patch; the report exports as Markdown and JSON.
// Screenshots at 1280x800, 700x500 dark and 480 wide.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { StateEngine } from '../fixtures/provider/state.mjs';
import { launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openPanel, until, swEval, stopServiceWorker, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');

function oddTree() {
  return {
    id: 'shop', type: 'root', properties: { label: 'Odd shop' },
    children: [
      { id: 'cart', type: 'collection', meta: { salience: 1.7, total_children: 0 },
        children: [{ id: 'line-1', type: 'item', properties: { sku: 'A-1', qty: 2 } }],
        affordances: [{ action: 'checkout', estimate: 'soonish' }] },
      { id: 'promo', type: 'banner', properties: { text: 'Sale' } },
    ],
  };
}

async function openConformance(panel) {
  await panel.click('#side-tabs button[data-tab="conformance"]');
  await panel.locator('#conformance [data-role="conf-checked"]:not(:empty)').waitFor({ timeout: 10_000 });
}

describe('panel conformance', () => {
  let browser, good, odd, goodTab, oddTab;

  before(async () => {
    good = await startProvider({ engine: new StateEngine({ id: 'tidy', name: 'Tidy app', tree: {
      id: 'root', type: 'root', children: [{ id: 'inbox', type: 'collection', children: [
        { id: 'm1', type: 'item', properties: { unread: true, subject: 'Hello' }, affordances: [{ action: 'open', idempotent: true }] }] }] } }) });
    const oddEngine = new StateEngine({ id: 'odd', name: 'Odd shop', tree: oddTree() });
    // The fixture engine refuses a duplicate action up front; a real provider may still send one.
    oddEngine.root.children[0].affordances.push({ action: 'checkout' });
    odd = await startProvider({ engine: oddEngine });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(good), good.token);
    await setTokenInExtension(browser.ctx, wsOrigin(odd), odd.token);
    for (const [srv, set] of [[good, (t) => { goodTab = t; }], [odd, (t) => { oddTab = t; }]]) {
      const page = await browser.ctx.newPage();
      await page.goto(srv.url('/pages/meta-ws.html'));
      set((await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0)).tabId);
    }
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await good?.close();
    await odd?.close();
  });

  test('a conforming provider: "No findings", what was checked, no badge; drift: same, then caught', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, goodTab);
    await openConformance(panel);
    const none = panel.locator('#conformance [data-role="conf-none"]');
    await none.waitFor({ timeout: 10_000 });
    assert.match(await none.textContent(), /^No findings\. The provider followed every rule checked so far: 41 rules checked over \d+ frames and 3 mirrored nodes\.$/);
    assert.equal(await panel.locator('#conf-badge').isHidden(), true);
    assert.equal(await panel.locator('#conformance .conf-rules li').count(), 41);

    await panel.click('#conformance [data-action="check-drift"]');
    await until(async () => (await panel.locator('#conformance [data-role="drift-result"]').getAttribute('data-status')) === 'same', { what: 'drift: same' });
    assert.match(await panel.locator('#conformance [data-role="drift-result"]').textContent(), /^v\d+: The mirror equals the provider’s state\.$/);

    // The provider's state changes without a patch: the drift check finds it.
    good.engine.root.children[0].children[0].properties.unread = false;
    await panel.click('#conformance [data-action="check-drift"]');
    await until(async () => (await panel.locator('#conformance [data-role="drift-result"]').getAttribute('data-status')) === 'differs', { what: 'drift: differs' });
    const group = panel.locator('#conformance .conf-group[data-rule="drift"]');
    await group.waitFor({ timeout: 5000 });
    assert.equal(await group.locator('[data-action="conf-node"]').textContent(), '/inbox/m1/properties/unread');
    assert.match(await group.locator('.conf-detail').textContent(), /the patches give true, the provider's state is false/);
    await panel.locator('#conf-badge:not([hidden])').waitFor({ timeout: 10_000 });
    assert.equal(await panel.locator('#conf-badge').textContent(), '1 MUST');
    await panel.close();
  });

  test('a provider that breaks rules: grouped by rule, MUST first; path selects the node; frame opens in the log; exports', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, oddTab);
    await panel.locator('#conf-badge:not([hidden])').waitFor({ timeout: 15_000 });
    // One MUST (the repeated action); salience, estimate and window are hints, SHOULD (docs/conformance-rules.md).
    assert.equal(await panel.locator('#conf-badge').textContent(), '1 MUST');
    await panel.click('#conf-badge');
    await openConformance(panel);
    const rules = await panel.locator('#conformance .conf-group').evaluateAll((els) => els.map((e) => e.dataset.rule));
    assert.equal(rules[0], 'affordance-action');
    assert.deepEqual(rules.slice(1).sort(), ['affordance-estimate', 'meta-salience', 'meta-window', 'node-type']);
    const salience = panel.locator('#conformance .conf-group[data-rule="meta-salience"]');
    assert.equal(await salience.locator('.chip').first().textContent(), 'SHOULD');
    assert.equal(await salience.locator('.conf-text').textContent(), 'meta.salience is a number from 0 to 1.');

    // The path selects the node in the tree.
    await salience.locator('[data-action="conf-node"]').click();
    await panel.locator('#tree .row.selected[data-path="/cart"]').waitFor({ timeout: 5000 });

    for (const [w, h, scheme, name] of [[1280, 800, 'light', 'panel-conformance.png'], [700, 500, 'dark', 'panel-conformance-dark-700.png'], [480, 800, 'light', 'panel-conformance-480.png']]) {
      await panel.setViewportSize({ width: w, height: h });
      await panel.emulateMedia({ colorScheme: scheme });
      await panel.screenshot({ path: path.join(SHOTS, name) });
    }
    await panel.emulateMedia({ colorScheme: 'light' });
    await panel.setViewportSize({ width: 1280, height: 800 });

    // Exports: Markdown for a bug report, JSON for tools.
    const [md] = await Promise.all([panel.waitForEvent('download'), panel.click('#conformance [data-action="conf-export-md"]')]);
    assert.match(md.suggestedFilename(), /^slop-conformance-odd\.md$/);
    const text = await fs.readFile(await md.path(), 'utf8');
    assert.match(text, /^# SLOP conformance: Odd shop\n/);
    assert.match(text, /\n## SHOULD: `meta-salience` \(1×\)\n/);
    const [js] = await Promise.all([panel.waitForEvent('download'), panel.click('#conformance [data-action="conf-export-json"]')]);
    const doc = JSON.parse(await fs.readFile(await js.path(), 'utf8'));
    assert.equal(doc.provider.id, 'odd');
    assert.equal(doc.report.must, 1);
    await panel.close();
  });

  test('a frame finding opens its frame in the log', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, goodTab);
    await openConformance(panel);
    // A provider event of an unknown message type: a frame rule, found while the panel watches.
    for (const s of good.sessions) s.send({ type: 'gossip', about: 'the weather' });
    await panel.click('#conformance [data-action="conf-refresh"]');
    const group = panel.locator('#conformance .conf-group[data-rule="message-type"]');
    await group.waitFor({ timeout: 10_000 });
    await group.locator('[data-action="conf-frame"]').click();
    await panel.locator('#log:not([hidden]) .log-detail .frame-json').waitFor({ timeout: 5000 });
    assert.match(await panel.locator('#log .log-detail .frame-json').textContent(), /"type": "gossip"/);
    await panel.close();
  });

  test('after a service-worker restart the frame findings start over and the tree findings come back', { timeout: TEST_TIMEOUT }, async () => {
    const report = (tabId) => swEval(browser.ctx, (t) => {
      const info = globalThis.slopInspector.tabs().find((x) => x.tabId === t)?.providers[0];
      return info ? globalThis.slopInspector.call(t, info.key, 'conformance', []) : null;
    }, tabId);
    for (const s of good.sessions) s.send({ type: 'gossip' });
    await until(async () => (await report(goodTab))?.findings.some((f) => f.rule === 'message-type'), { what: 'a frame finding' });
    await stopServiceWorker(browser.ctx, browser.extId);
    await waitForProvider(browser.ctx, good.origin, (p) => p.status === 'connected' && p.live, { timeout: 20_000 });
    await waitForProvider(browser.ctx, odd.origin, (p) => p.status === 'connected' && p.live, { timeout: 20_000 });
    const goodAfter = await until(() => report(goodTab), { what: 'a report after the restart' });
    assert.deepEqual(goodAfter.findings.map((f) => f.rule), [], 'frame findings live in the worker: they start over');
    const oddAfter = await until(() => report(oddTab), { what: 'the odd provider\'s report' });
    assert.deepEqual(oddAfter.findings.map((f) => f.rule).sort(),
      ['affordance-action', 'affordance-estimate', 'meta-salience', 'meta-window', 'node-type'], 'tree findings are judged on the new mirror');
  });
});
