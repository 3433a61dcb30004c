// The frame log (every frame in and out; filter by type; pause; clear; copy a frame as JSON;
// batches expand into their messages) against a scripted provider that sends flat and nested
// batches; and the history (scrub back to an earlier version read-only, export it, diff two
// versions) against a state engine whose versions the test records.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs/promises';
import { StateEngine, deepEqual, normalizeTree } from '../fixtures/provider/state.mjs';
import { startScriptedProvider, scenarios } from '../fixtures/provider/scripted.mjs';
import { launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openPanel, until, swEval, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');

describe('panel log', () => {
  let browser;
  let srv;
  let tabId;
  let key;

  before(async () => {
    srv = await startScriptedProvider({ scenario: scenarios.batch() });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    let provider;
    ({ tabId, provider } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.subscriptions[0]?.version === 6));
    key = provider.key;
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('frames in and out; filter; batches expand; copy; pause; clear', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#toggle-log');
    const rows = panel.locator('#log .log-row');
    const swLog = await swEval(browser.ctx, ([t, k]) => globalThis.slopInspector.log(t, k), [tabId, key]);
    await until(async () => (await rows.count()) === swLog.length, { what: 'every frame the worker logged' });
    assert.deepEqual(await rows.locator('.ftype').allTextContents(), swLog.map((f) => f.type));
    assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => e.dataset.dir)), swLog.map((f) => f.dir));
    assert.ok(swLog.some((f) => f.dir === 'out' && f.type === 'subscribe'));
    assert.match(await rows.first().textContent(), /\d\d:\d\d:\d\d\.\d{3}.*hello.*B/);

    // Filter by type: a batch that holds patches counts as a patch frame.
    await panel.selectOption('#log select[data-filter="type"]', 'batch');
    await until(async () => (await rows.count()) === 2, { what: 'two batch frames' });
    await panel.selectOption('#log select[data-filter="type"]', 'hello');
    await until(async () => (await rows.count()) === 1, { what: 'one hello' });
    await panel.selectOption('#log select[data-filter="type"]', 'batch');
    await until(async () => (await rows.count()) === 2, { what: 'two batch frames again' });

    // Expand the flat batch, then the nested one and its inner batches.
    await rows.nth(0).locator('[data-action="expand"]').click();
    await until(async () => (await rows.count()) === 5, { what: 'the first batch’s three messages' });
    assert.deepEqual(await panel.locator('#log .log-row.inner .ftype').allTextContents(), ['patch', 'event', 'patch']);
    await rows.nth(4).locator('[data-action="expand"]').click();
    await panel.locator('#log .log-row.inner[data-type="batch"] [data-action="expand"]').first().click();
    await panel.locator('#log .log-row.inner[data-type="batch"] [data-action="expand"]').nth(1).click();
    assert.deepEqual(await panel.locator('#log .log-row.inner .ftype').allTextContents(), ['patch', 'event', 'patch', 'patch', 'batch', 'patch', 'batch', 'patch']);
    await panel.screenshot({ path: path.join(SHOTS, 'panel-log.png') });

    // Copy a frame as JSON (pretty); an inner message copies on its own.
    await rows.nth(0).click();
    await panel.click('#log button[data-action="copy-frame"]');
    const batchText = swLog.find((f) => f.type === 'batch').text;
    assert.equal(await panel.evaluate(() => window.slopPanel.lastCopied.text), JSON.stringify(JSON.parse(batchText), null, 2));
    await panel.locator('#log .log-row.inner').nth(1).click();
    assert.match(await panel.locator('#log .frame-json').textContent(), /"name": "tick"/);
    await panel.click('#log button[data-action="copy-frame"]');
    assert.deepEqual(JSON.parse(await panel.evaluate(() => window.slopPanel.lastCopied.text)), { type: 'event', name: 'tick', data: { n: 1 } });

    // Pause: frames are not recorded; resume: they are again.
    await panel.selectOption('#log select[data-filter="type"]', '');
    const n0 = await rows.count();
    const query = () => panel.evaluate((k) => window.slopPanel.request('query', { key: k, options: { path: '/', depth: 0 } }), key);
    await panel.click('#log button[data-action="pause"]');
    await query();
    await until(async () => /paused: 2 not recorded/.test(await panel.locator('#log .log-count').textContent()), { what: 'two frames skipped' });
    assert.equal(await rows.count(), n0);
    await panel.click('#log button[data-action="pause"]');
    await query();
    await until(async () => (await rows.count()) === n0 + 2, { what: 'query and answer logged after resuming' });
    assert.deepEqual((await rows.locator('.ftype').allTextContents()).slice(-2), ['query', 'snapshot']);

    await panel.click('#log button[data-action="clear"]');
    await until(async () => (await rows.count()) === 0, { what: 'a cleared log' });
    await query();
    await until(async () => (await rows.count()) === 2, { what: 'new frames after clearing' });
    await panel.close();
  });
});

describe('panel history', () => {
  let browser;
  let srv;
  let tabId;
  const node = (id, label) => ({ id, type: 'item', properties: { label }, affordances: [{ action: 'poke' }] });

  before(async () => {
    srv = await startProvider({ engine: new StateEngine({
      id: 'hist', name: 'History provider',
      tree: { id: 'root', type: 'root', properties: { label: 'History' }, children: [node('a', 'A'), node('b', 'B'), { id: 'c', type: 'status', properties: { n: 0 }, meta: { salience: 0.2 } }] },
      handlers: { poke: () => ({ poked: true }) },
    }) });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    ({ tabId } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0));
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('scrub back to an earlier version (read-only, exportable); diff two versions', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/a"]', { timeout: 10_000 });
    const truths = [{ version: srv.engine.version, tree: srv.engine.truth('/', -1, { max_nodes: 20000 }) }];
    const step = async (fn) => {
      srv.engine.mutate(fn);
      truths.push({ version: srv.engine.version, tree: srv.engine.truth('/', -1, { max_nodes: 20000 }) });
      await until(() => panel.evaluate((v) => window.slopPanel.currentTree()?.version === v, srv.engine.version), { what: `the panel at v${srv.engine.version}` });
    };
    await step((r) => { r.children[0].properties.label = 'A, renamed'; });
    await step((r) => { r.children.push(node('d', 'D')); });
    await step((r) => {
      r.children = r.children.filter((c) => c.id !== 'b');
      r.children[1].meta = { salience: 0.9, urgency: 'high' };
      r.children[0].affordances.push({ action: 'shout', label: 'Shout' });
    });

    await panel.click('#toggle-history');
    const versions = await panel.evaluate(() => window.slopPanel.currentTree().history.entries.map((e) => e.version));
    assert.deepEqual(versions, truths.map((t) => t.version), 'one history entry per version');
    assert.match(await panel.locator('#history-strip').textContent(), /keeps the last 500 versions/);

    // Scrub to the second version with the slider.
    await panel.locator('#history-strip input[type="range"]').fill('1');
    await panel.locator('#banner[data-kind="scrub"]').waitFor({ timeout: 5000 });
    assert.match(await panel.locator('#banner').textContent(), new RegExp(`Viewing version ${truths[1].version}`));
    assert.match(await panel.locator('#tree .row[data-path="/a"]').textContent(), /A, renamed/);
    assert.equal(await panel.locator('#tree .row[data-path="/d"]').count(), 0, '/d came later');
    assert.equal(await panel.locator('#tree .row[data-path="/b"]').count(), 1, '/b was still there');
    await panel.click('#tree .row[data-path="/a"]');
    assert.equal(await panel.locator('.affordance[data-action-name="poke"] button[data-action="invoke"]').isDisabled(), true, 'invoke is off');
    assert.equal(await panel.locator('.affordance[data-action-name="shout"]').count(), 0);
    assert.match(await panel.locator('#detail .mode-note').textContent(), /read-only/);
    // The scrubbed state, exported, is the provider's tree at that version.
    await panel.click('#export');
    await until(() => panel.evaluate(() => window.slopPanel.lastExport), { what: 'the export' });
    const exported = JSON.parse(await panel.evaluate(() => window.slopPanel.lastExport));
    assert.equal(exported.version, truths[1].version);
    assert.equal(exported.scrubbed, true);
    assert.ok(deepEqual(normalizeTree(exported.tree), normalizeTree(truths[1].tree)), JSON.stringify(exported.tree));
    // Step with the arrows; the bar says where we are; back to live.
    await panel.click('#history-strip button[data-action="h-prev"]');
    assert.match(await panel.locator('#banner').textContent(), new RegExp(`Viewing version ${truths[0].version}`));
    assert.equal(await panel.locator('#tree .row[data-path="/a"] .nsum').textContent(), 'A');
    await panel.click('#banner button[data-action="back-to-live"]');
    await panel.locator('#banner').waitFor({ state: 'hidden', timeout: 5000 });
    await panel.locator('#tree .row[data-path="/d"]').waitFor({ timeout: 5000 });

    // Diff the first and the last version.
    await panel.selectOption('#history-strip select[data-role="diff-from"]', '0');
    await panel.selectOption('#history-strip select[data-role="diff-to"]', String(truths.length - 1));
    await panel.click('#history-strip button[data-action="diff"]');
    const diff = await until(() => panel.evaluate(() => window.slopPanel.lastDiff), { what: 'the diff' });
    assert.deepEqual(diff.added, ['/d']);
    assert.deepEqual(diff.removed, ['/b']);
    assert.deepEqual(diff.changed, ['/', '/a', '/c']);
    const a = panel.locator('#diff .diff-node.changed[data-path="/a"]');
    assert.match(await a.locator('[data-field="properties"]').textContent(), /label.*"A".*→.*"A, renamed"/);
    assert.match(await a.locator('[data-field="affordances"] li[data-change="added"]').textContent(), /shout/);
    assert.match(await panel.locator('#diff .diff-node.changed[data-path="/c"] [data-field="meta"]').textContent(), /salience.*0\.2.*→.*0\.9/);
    assert.match(await panel.locator('#diff .diff-node.changed[data-path="/"] [data-field="children"]').textContent(), /\+ d.*− b/);
    assert.match(await panel.locator('#diff .diff-head').textContent(), /1 added · 1 removed · 3 changed/);
    await panel.screenshot({ path: path.join(SHOTS, 'panel-history-diff.png') });
    await panel.close();
  });
});
