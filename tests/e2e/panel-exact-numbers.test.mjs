// Integers a double cannot hold, as a provider written in Go, Rust or Python sends a 64-bit id:
// the panel shows the provider's digits in the detail (on first load and after a patch), the
// Agent tab's text (what a model reads) has them, a copy has them, and a change in the last
// digit is a change; in the Playground a model passes the id back as it read it, and the confirm
// card and the provider get its digits. Before, 1234567890123456789 showed as 1234567890123456800.
// An invoke's result data (2^63-1, 1.50, -0) shows as the provider wrote it in the panel and comes
// back exact from the Playwright library's invoke(); a patched field keeps 1.50 and 1E5.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { StateEngine } from '../fixtures/provider/state.mjs';
import { exactIntegers } from '../fixtures/provider/ws-server.mjs';
import { startLlmServer } from '../fixtures/llm-server.mjs';
import { browserOnProvider, startProvider, openPanel, until, ROOT, TEST_TIMEOUT } from './helpers.mjs';
import { Slop, isExactNumber } from '../../js-glue/node/playwright.js';

const SHOTS = path.join(ROOT, 'build/screenshots/exact-numbers');

const ID = '1234567890123456789';
const NEXT = '1234567890123456788'; // the same double as ID
const MIN64 = '-9223372036854775808'; // a double, but JSON.stringify writes -9223372036854776000
const MAX63 = '9223372036854775807'; // 2^63-1
/** The numbers of /as-written as the provider wrote them, as JSON.stringify(…, null, 2) lays them out. */
const WRITTEN = ['"neg0": -0', '"cents": 1.50', '"sum": 0.30000000000000004', `"max": ${MAX63}`, `"min": -${MAX63}`, '"exp": 1E5'];

function tree() {
  return {
    id: 'shop', type: 'root', properties: { label: 'Shop' },
    children: [{
      id: 'order', type: 'item',
      properties: { label: 'Order', id64: `int:${ID}`, min64: `int:${MIN64}`, ids: [`int:${ID}`, 7], small: 42, ratio: 0.1 },
      meta: { salience: 'num:0.50' },
      affordances: [{
        action: 'ship', label: 'Ship', dangerous: true,
        params: { type: 'object', properties: { order_id: { type: 'integer' } }, required: ['order_id'] },
      }, {
        action: 'tag', label: 'Tag',
        params: { type: 'object', properties: { order_id: { type: 'integer', enum: [`int:${ID}`, 7] }, ref: { type: 'integer' } } },
      }],
    }, {
      id: 'as-written', type: 'item',
      properties: { neg0: 'num:-0', cents: 'num:1.50', sum: 'num:0.30000000000000004', max: `int:${MAX63}`, min: `int:-${MAX63}`, exp: 'num:1E5' },
      affordances: [{ action: 'measure', label: 'Measure' }],
    }],
  };
}

describe('panel: integers beyond a double keep their digits', () => {
  let srv, browser, tabId, page;
  const received = []; // the frames the provider got, as text (its engine parses them into doubles)
  before(async () => {
    srv = await startProvider({
      // measure: a result whose data a port would change (a double rounds 2^63-1, JSON drops -0's sign).
      engine: new StateEngine({ tree: tree(), handlers: { measure: () => ({ max: `int:${MAX63}`, cents: 'num:1.50', neg0: 'num:-0' }) } }),
      encode: exactIntegers,
      onSession: (_s, ws) => ws.on('message', (data) => received.push(data.toString('utf8'))),
    });
    ({ browser, tabId, page } = await browserOnProvider(srv));
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  /** The text of property k's row in the detail. */
  const propText = (panel, k) => panel.locator('#detail section[data-section="properties"] .json-tree > *', { has: panel.locator(`.jt-key:text-is("${k}")`) }).first().textContent();

  test('the detail, a copy and the Agent tab show the provider\'s digits; a patch to the last digit shows', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#tree .row[data-path="/order"]', { timeout: 10_000 });
    assert.equal(await propText(panel, 'id64'), `id64: ${ID}`);
    assert.equal(await propText(panel, 'min64'), `min64: ${MIN64}`);
    assert.equal(await propText(panel, 'small'), 'small: 42');
    assert.equal(await propText(panel, 'ratio'), 'ratio: 0.1');
    await panel.locator('#detail section[data-section="properties"] summary', { hasText: 'ids' }).click();
    await until(async () => (await panel.locator('#detail section[data-section="properties"]').textContent()).includes(`0: ${ID}`), { what: 'the array\'s members' });
    // As a user sees it: the detail with the ids, at DevTools sizes, light and dark.
    await fs.mkdir(SHOTS, { recursive: true });
    for (const theme of ['light', 'dark']) {
      await panel.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
      for (const [w, hgt] of [[1280, 800], [700, 600], [480, 800], [320, 700]]) {
        await panel.setViewportSize({ width: w, height: hgt });
        await panel.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        await panel.screenshot({ path: path.join(SHOTS, `detail-${w}-${theme}.png`) });
      }
    }
    await panel.setViewportSize({ width: 1280, height: 800 });

    // Copy node as JSON (Ctrl+C on the row): the digits, not a rounded double.
    await panel.focus('#tree');
    await panel.keyboard.press('Control+c');
    await until(() => panel.evaluate(() => globalThis.slopPanel.lastCopied?.what === '/order as JSON'), { what: 'the copy' });
    const copied = await panel.evaluate(() => globalThis.slopPanel.lastCopied.text);
    assert.match(copied, new RegExp(`"id64": ${ID}\\b`));
    assert.match(copied, new RegExp(`"min64": ${MIN64}\\b`));

    // The Agent tab: the core's tree text, what a model is given.
    await panel.click('#side-tabs button[data-tab="agent"]');
    const pre = panel.locator('#agent pre[data-role="tree-text"]');
    await pre.waitFor({ timeout: 5000 });
    assert.match(await pre.textContent(), new RegExp(`id64=${ID}, min64=${MIN64}`));

    // A patch that changes only the last digit: one double, two ids. The view comes as a delta.
    srv.engine.mutate((root) => { root.children[0].properties.id64 = `int:${NEXT}`; });
    await panel.click('#side-tabs button[data-tab="node"]');
    await until(async () => (await propText(panel, 'id64')) === `id64: ${NEXT}`, { what: 'the patched id', timeout: 10_000 });
    await panel.click('#side-tabs button[data-tab="agent"]');
    await until(async () => (await pre.textContent()).includes(`id64=${NEXT}`), { what: 'the Agent tab after the patch', timeout: 10_000 });
    await panel.close();
  });

  test('-0, 1.50, 0.30000000000000004 and ±(2^63-1): the detail, both copies and an exported file keep the provider\'s text', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#tree .row[data-path="/as-written"]', { timeout: 10_000 });
    for (const [k, v] of [['neg0', '-0'], ['cents', '1.50'], ['sum', '0.30000000000000004'], ['max', MAX63], ['min', `-${MAX63}`], ['exp', '1E5']]) {
      assert.equal(await propText(panel, k), `${k}: ${v}`);
    }
    const copied = async (run, what) => {
      await panel.evaluate(() => { globalThis.slopPanel.lastCopied = null; });
      await run();
      await until(() => panel.evaluate((w) => globalThis.slopPanel.lastCopied?.what === w, what), { what });
      return panel.evaluate(() => globalThis.slopPanel.lastCopied.text);
    };
    // Copy node as JSON (Ctrl+C) and Copy value (the row's menu).
    await panel.focus('#tree');
    const node = await copied(() => panel.keyboard.press('Control+c'), '/as-written as JSON');
    for (const w of WRITTEN) assert.ok(node.includes(w), `${w} in the node copy:\n${node}`);
    const value = await copied(async () => {
      await panel.click('#tree .row[data-path="/as-written"]', { button: 'right' });
      await panel.click('.row-menu [data-action="copy-value"]');
    }, '/as-written properties');
    for (const w of WRITTEN) assert.ok(value.includes(w), `${w} in the value copy:\n${value}`);
    // Export: the file the user saves.
    const [download] = await Promise.all([panel.waitForEvent('download'), panel.click('#export')]);
    const file = await fs.readFile(await download.path(), 'utf8');
    for (const w of WRITTEN) assert.ok(file.includes(w), `${w} in the exported file`);
    assert.ok(file.includes('"salience": 0.50'), 'meta as written too');
    // A salience written 0.50 is a number to the panel (its bar) and shown as written.
    await panel.click('#tree .row[data-path="/order"]');
    assert.match(await panel.locator('#detail section[data-section="meta"]').textContent(), /salience: 0\.50/);
    assert.match(await panel.locator('#detail section[data-section="meta"] .sal.big i').getAttribute('style'), /width:\s*50%/);
    await panel.close();
  });

  test('the invoke form: a 64-bit enum member chosen and one typed go to the provider with their digits', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#tree .row[data-path="/order"]', { timeout: 10_000 });
    const card = panel.locator('.affordance[data-action-name="tag"]');
    const pick = card.locator('select[data-ppath="params.order_id"]');
    await pick.waitFor();
    assert.deepEqual((await pick.locator('option').allTextContents()).slice(1), [ID, '7'], 'the enum lists the digits (after "not set")');
    await pick.selectOption({ label: ID });
    await card.locator('input[data-ppath="params.ref"]').fill(NEXT);
    const before = received.length;
    await card.locator('button[data-action="invoke"]').click();
    await until(() => received.slice(before).some((f) => f.includes('"type":"invoke"')), { what: 'the invoke frame' });
    const frame = received.slice(before).find((f) => f.includes('"type":"invoke"'));
    assert.match(frame, new RegExp(`"order_id":${ID}\\b`));
    assert.match(frame, new RegExp(`"ref":${NEXT}\\b`));
    await panel.close();
  });

  test('a panel opened after the patch loads the digits with the tree (views on demand too)', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#tree .row[data-path="/order"]', { timeout: 10_000 });
    assert.equal(await propText(panel, 'id64'), `id64: ${NEXT}`);
    // The worker's view of the node, as the store keeps it: the digits as JSON.rawJSON.
    const kept = await panel.evaluate(() => JSON.stringify(window.slopPanel.currentTree().nodes.get('/order').properties.id64));
    assert.equal(kept, NEXT);
    await panel.close();
  });

  test('the Playground: the model reads the id\'s digits, passes them back, and the confirm card and the provider get them', { timeout: TEST_TIMEOUT }, async () => {
    const llm = await startLlmServer({ kind: 'openai', script: [] });
    try {
      const panel = await openPanel(browser.ctx, browser.extId, tabId);
      await panel.evaluate((baseUrl) => chrome.storage.local.set({
        agentProfiles: { p1: { id: 'p1', name: 'Fixture', kind: 'openai', baseUrl, model: 'fixture-model', addedAt: 1 } },
      }), llm.baseUrl);
      await panel.click('#side-tabs button[data-tab="playground"]');
      await panel.waitForSelector('#playground [data-role="pg-no-profile"]', { state: 'hidden' });
      llm.push({ calls: [{ name: 'order__ship', arguments: `{"order_id":${NEXT}}` }] }, { text: 'Shipped.' });
      await panel.fill('#playground [data-role="pg-task"]', 'Ship the order');
      await panel.click('#playground [data-action="pg-run"]');
      const asked = panel.locator('#playground [data-role="pg-confirm-params"]');
      await asked.waitFor({ timeout: 20_000 });
      assert.match(await asked.textContent(), new RegExp(`"order_id":\\s*${NEXT}\\b`), 'the confirm card shows the id the model wrote');
      assert.match(llm.requests[0].text, new RegExp(`id64=${NEXT}`), 'the state text sent to the model has the digits');
      await panel.click('#playground [data-action="pg-confirm-run"]');
      await panel.waitForSelector('#playground [data-role="pg-outcome"][data-outcome="answered"]', { timeout: 20_000 });
      assert.ok(received.some((f) => f.includes('"type":"invoke"') && f.includes(`"order_id":${NEXT}`)), 'the invoke carried the digits');
      assert.match(await panel.locator('#playground .pg-call').first().textContent(), new RegExp(`"order_id":${NEXT}`));
      await panel.close();
    } finally {
      await llm.close();
    }
  });
  test('an invoke\'s result data shows 2^63-1, 1.50 and -0 as the provider wrote them', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#tree .row[data-path="/as-written"]', { timeout: 10_000 });
    const card = panel.locator('.affordance[data-action-name="measure"]');
    await card.locator('button[data-action="invoke"]').click();
    await card.locator('.aff-result .pill[data-outcome="ok"]').waitFor({ timeout: 10_000 });
    const rows = await card.locator('.aff-result .result-data .jt-row').allTextContents();
    assert.deepEqual(rows, [`max: ${MAX63}`, 'cents: 1.50', 'neg0: -0']);
    await panel.close();
  });

  test('the Playwright library: invoke() returns 2^63-1 as an exact number; query() and events() keep their digits too', { timeout: TEST_TIMEOUT }, async () => {
    const app = await new Slop(browser.ctx).provider(page);
    const r = await app.invoke('/as-written', 'measure');
    assert.equal(r.status, 'ok');
    assert.equal(isExactNumber(r.data.max), true, `max is ${JSON.stringify(r.data.max)}`);
    assert.equal(r.data.max.rawJSON, MAX63);
    assert.ok(Object.is(r.data.neg0, -0), '-0 stays -0');
    assert.equal(r.data.cents, 1.5);
    const q = await app.query({ path: '/as-written', depth: 0 });
    assert.equal(q.tree.properties.max.rawJSON, MAX63);
    assert.equal('exact' in q, false, 'the answer, not its text beside it');
    const result = (await app.events()).findLast((e) => e.event === 'result' && e.action === 'measure');
    assert.equal(result?.data.max.rawJSON, MAX63);
    assert.equal(typeof result.at, 'number');
    assert.equal('exact' in result, false);
  });

  test('a patched field keeps 1.50 and 1E5 as written, in the detail and after the patch', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#tree .row[data-path="/as-written"]', { timeout: 10_000 });
    assert.equal(await propText(panel, 'cents'), 'cents: 1.50');
    // The core parses the node's properties to apply the patch, and prints them all again.
    srv.engine.mutate((root) => { root.children[1].properties.price = 'num:1.50'; });
    await until(async () => (await propText(panel, 'price').catch(() => null)) === 'price: 1.50', { what: 'the patched price', timeout: 10_000 });
    for (const [k, v] of [['neg0', '-0'], ['cents', '1.50'], ['sum', '0.30000000000000004'], ['max', MAX63], ['min', `-${MAX63}`], ['exp', '1E5']]) {
      assert.equal(await propText(panel, k), `${k}: ${v}`, `${k} after the patch`);
    }
    srv.engine.mutate((root) => { root.children[1].properties.cents = 'num:1.250'; });
    await until(async () => (await propText(panel, 'cents')) === 'cents: 1.250', { what: 'cents patched to 1.250', timeout: 10_000 });
    await panel.close();
  });
});
