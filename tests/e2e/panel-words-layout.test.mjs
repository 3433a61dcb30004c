// Words and layout (issue 45): the History's pin buttons are whole at every width; the node
// detail says a node went after the user's own delete, not "the provider removed" it; the
// Playground says "no model" once. Screenshots at 320, 480, 700 and 1280 px, light and dark, in
// build/screenshots/.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs/promises';
import { StateEngine } from '../fixtures/provider/state.mjs';
import { browserOnProvider, startProvider, openPanel, openExtensionPage, until, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
const WIDTHS = [320, 480, 700, 1280];

function tree() {
  return {
    id: 'root', type: 'root', properties: { label: 'Words' },
    children: [
      { id: 'c', type: 'status', properties: { label: 'count 0', n: 0 } },
      { id: 'items', type: 'list', properties: { label: 'Items' }, children: ['a', 'b', 'c'].map((id) => ({
        id, type: 'item', properties: { label: `Item ${id}` },
        affordances: [{ action: 'delete', label: 'Delete', dangerous: true }],
      })) },
    ],
  };
}

describe('words and layout (issue 45)', () => {
  let browser, srv, tabId;
  const tick = () => srv.engine.mutate((r) => {
    const c = r.children.find((x) => x.id === 'c');
    c.properties.n += 1;
    c.properties.label = `count ${c.properties.n}`;
  });

  before(async () => {
    const engine = new StateEngine({
      id: 'words', name: 'Words', tree: tree(),
      handlers: {
        // Inside the engine's own mutate (its patch goes out before the result).
        delete: ({ engine: e, path: at }) => {
          const items = e.root.children.find((x) => x.id === 'items');
          items.children = items.children.filter((x) => `/items/${x.id}` !== at);
        },
      },
    });
    srv = await startProvider({ engine });
    ({ browser, tabId } = await browserOnProvider(srv));
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('History step rows: "Pinned A" and "Pinned B" whole at 320, 480 and 700 px', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/c"]', { timeout: 10_000 });
    for (let i = 0; i < 3; i++) {
      tick();
      await until(() => panel.evaluate((v) => window.slopPanel.currentTree()?.version === v, srv.engine.version), { what: `v${srv.engine.version}` });
    }
    await panel.click('#toggle-history');
    await until(() => panel.locator('#history .step-row').count().then((n) => n >= 3), { what: 'three steps' });
    const steps = await panel.locator('#history .step-row').evaluateAll((rows) => rows.map((r) => r.dataset.step));
    await panel.click(`#history .step-row[data-step="${steps[0]}"] [data-action="pin"]`);
    await panel.click(`#history .step-row[data-step="${steps[2]}"] [data-action="pin"]`);
    await until(() => panel.locator('#history .step-row.pinned').count().then((n) => n === 2), { what: 'two pins' });
    for (const w of WIDTHS) {
      for (const scheme of ['light', 'dark']) {
        await panel.setViewportSize({ width: w, height: 700 });
        await panel.emulateMedia({ colorScheme: scheme });
        await panel.waitForTimeout(50);
        const pins = await panel.locator('#history .step-row.pinned [data-action="pin"]').evaluateAll((els) => els.map((e) => ({
          text: e.textContent, scroll: e.scrollWidth, client: e.clientWidth,
          // Inside what the list shows (its rows may be wider than the list, which clips them).
          inRow: e.getBoundingClientRect().right <= Math.min(e.closest('.step-row').getBoundingClientRect().right,
            e.closest('.steps').getBoundingClientRect().left + e.closest('.steps').clientWidth) + 0.5,
          row: [e.closest('.step-row').getBoundingClientRect().width, e.closest('.steps').clientWidth, e.closest('.steps').scrollWidth],
        })));
        assert.deepEqual(pins.map((p) => p.text), ['Pinned A', 'Pinned B']);
        for (const p of pins) {
          assert.ok(p.scroll <= p.client, `${w} px: “${p.text}” whole (scrollWidth ${p.scroll} <= clientWidth ${p.client})`);
          assert.ok(p.inRow, `${w} px: “${p.text}” inside its row: ${JSON.stringify(p)}`);
        }
        await panel.screenshot({ path: path.join(SHOTS, `panel-history-pins-${w}-${scheme}.png`) });
      }
    }
    await panel.emulateMedia({ colorScheme: 'light' });
    await panel.close();
  });

  test('no backtick in the visible text of Options and the popup: commands are <code> (the bridge on without a code, a bad code)', { timeout: TEST_TIMEOUT }, async () => {
    const visible = (page) => page.evaluate(() => document.body.innerText);
    const options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
    assert.doesNotMatch(await visible(options), /`/, 'Options as it opens');
    // On, but no pairing code: the worker's status names the command that prints one.
    await options.click('#bridge-enabled');
    await until(() => options.locator('#bridge-status').textContent().then((t) => /pairing code/.test(t)), { what: 'the bridge status' });
    await options.fill('#bridge-token', 'not a code');
    await options.click('#bridge-form button[type="submit"]');
    await until(() => options.locator('#bridge-message').textContent().then((t) => t.length > 0), { what: 'the code refused' });
    assert.doesNotMatch(await visible(options), /`/, 'Options: the bridge status and the refused code');
    assert.deepEqual(await options.locator('#bridge-message code').allTextContents(), ['slop-inspector bridge']);
    assert.ok((await options.locator('#bridge-status code').allTextContents()).includes('slop-inspector bridge'));
    for (const [w, scheme] of [[480, 'dark'], [1280, 'light']]) {
      await options.setViewportSize({ width: w, height: 900 });
      await options.emulateMedia({ colorScheme: scheme });
      await options.locator('#bridge-status').scrollIntoViewIfNeeded();
      await options.screenshot({ path: path.join(SHOTS, `options-bridge-code-${w}-${scheme}.png`) });
    }
    const popup = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${tabId}`);
    await until(() => visible(popup).then((t) => /pairing code/.test(t)), { what: 'the popup\'s bridge' });
    assert.doesNotMatch(await visible(popup), /`/, 'the popup');
    await popup.setViewportSize({ width: 400, height: 600 });
    await popup.screenshot({ path: path.join(SHOTS, 'popup-bridge-code.png') });
    await options.click('#bridge-enabled'); // off again for the tests after
    await popup.close();
    await options.close();
  });

  test('your own delete: the detail says the node was removed after it; a removal by the provider says so', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.setViewportSize({ width: 1280, height: 700 });
    await panel.waitForSelector('#tree .row[data-path="/items/b"]', { timeout: 10_000 });
    await panel.click('#tree .row[data-path="/items/b"]');
    const card = panel.locator('#detail .affordance[data-action-name="delete"]');
    await card.locator('[data-action="invoke"]').click();
    await card.locator('[data-action="confirm"]').click();
    const note = panel.locator('#detail [data-role="removed-note"]');
    await note.waitFor({ timeout: 10_000 });
    assert.match(await note.textContent(), /^Removed after your delete on \/items\/b \(version \d+\); its nearest remaining ancestor is shown\.$/);
    for (const w of WIDTHS) {
      for (const scheme of ['light', 'dark']) {
        await panel.setViewportSize({ width: w, height: 700 });
        await panel.emulateMedia({ colorScheme: scheme });
        await panel.screenshot({ path: path.join(SHOTS, `panel-removed-after-delete-${w}-${scheme}.png`) });
      }
    }
    await panel.emulateMedia({ colorScheme: 'light' });
    await panel.setViewportSize({ width: 1280, height: 700 });
    // The provider removes the next one by itself: its words.
    await panel.click('#tree .row[data-path="/items/c"]');
    await panel.locator('#detail .detail-head .nid', { hasText: 'c' }).waitFor();
    srv.engine.mutate((r) => {
      const items = r.children.find((x) => x.id === 'items');
      items.children = items.children.filter((x) => x.id !== 'c');
    });
    await until(() => note.textContent().then((t) => t.startsWith('The provider removed /items/c')).catch(() => false), { what: 'the provider\'s removal said' });
    await panel.close();
  });
});
