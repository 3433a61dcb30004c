// The history's memory bound as the user sees and sets it: Options sets what each provider's
// history may hold; an app whose state does not fit in half of it keeps its steps but no states,
// and the strip, its tooltip and a click on a step say so; a bound large enough and a reload bring
// the states back. The worker's own count stays within the bound throughout.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs/promises';
import { StateEngine } from '../fixtures/provider/state.mjs';
import {
  launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openPanel, openExtensionPage, until, ROOT, TEST_TIMEOUT,
} from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
const TEXT = 'Thanks for the notes from Tuesday. I went through the figures again and the second quarter looks better than we thought. '.repeat(5);

/** 4,000 items of about 700 bytes: 2.8 MB of state, more than 16 MB's half holds with its two copies. */
function bigTree() {
  return {
    id: 'root', type: 'root', properties: { label: 'Big' },
    children: [
      { id: 'c', type: 'status', properties: { label: 'count 0', n: 0 } },
      { id: 'items', type: 'collection', children: Array.from({ length: 4000 }, (_, i) => ({ id: `m${i}`, type: 'item', properties: { subject: `Message ${i}`, body: TEXT } })) },
    ],
  };
}

const strip = (panel) => panel.evaluate(() => ({
  bound: document.querySelector('#history-strip [data-role="history-bound"]')?.textContent ?? document.querySelector('#history-strip')?.textContent,
  title: document.querySelector('#history-strip [data-role="history-title"]')?.title ?? '',
  info: window.slopPanel.history()?.info ?? null,
}));

describe('the history bound', () => {
  let browser;
  let srv;
  before(async () => {
    srv = await startProvider({ engine: new StateEngine({ id: 'big', name: 'Big app', tree: bigTree() }) });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('set in Options; a state too big for it keeps steps but no states and says why; a larger bound and a reload bring them back', { timeout: TEST_TIMEOUT * 2 }, async () => {
    const options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
    assert.equal(await options.inputValue('#history-mb'), '64', 'the default');
    await options.selectOption('#history-mb', '16');
    await until(() => options.evaluate(async () => (await chrome.storage.local.get('historyMb')).historyMb === 16), { what: 'the bound stored' });
    assert.match(await options.textContent('#history-message'), /may now hold 16 MB/);
    // The step bound beside it (issue 45): stored when not the default, removed when it is.
    assert.equal(await options.inputValue('#history-steps'), '1000', 'the default step bound');
    await options.selectOption('#history-steps', '20000');
    await until(() => options.evaluate(async () => (await chrome.storage.local.get('historySteps')).historySteps === 20000), { what: 'the step bound stored' });
    assert.match(await options.textContent('#history-message'), /may now keep 20,000 steps/);
    await options.selectOption('#history-steps', '1000');
    await until(() => options.evaluate(async () => !('historySteps' in await chrome.storage.local.get('historySteps'))), { what: 'the default step bound: nothing stored' });
    for (const w of [320, 480, 1280]) {
      for (const scheme of ['light', 'dark']) {
        await options.emulateMedia({ colorScheme: scheme });
        await options.setViewportSize({ width: w, height: 700 });
        await options.locator('section[aria-labelledby="history-h"]').screenshot({ path: path.join(SHOTS, `options-history-${w}-${scheme}.png`) });
      }
    }

    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    const { tabId } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 4000, { timeout: 30_000 });
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/c"]', { timeout: 20_000 });
    for (let i = 0; i < 5; i++) {
      srv.engine.mutate((r) => { const c = r.children[0]; c.properties.n += 1; c.properties.label = `count ${c.properties.n}`; });
      await until(() => panel.evaluate((v) => window.slopPanel.currentTree()?.version === v, srv.engine.version), { what: `v${srv.engine.version}` });
    }
    await panel.click('#toggle-history');
    // The store has the steps first; the strip paints them on the next frame.
    await until(async () => (await strip(panel)).info?.steps === 6 && /(^|[^\d])6 steps \(bound: /.test(await panel.textContent('#history-strip')), { what: 'six steps listed and painted' });
    const s = await strip(panel);
    assert.match(s.info.noStates, /state is 2\.\d MB as text.*half of the history's 16\.0 MB/);
    assert.ok(s.info.bytes <= s.info.limits.bytes && s.info.limits.bytes === 16 * 1024 * 1024, JSON.stringify(s.info));
    assert.match(await panel.textContent('#history-strip'), /16\.0 MB.*steps only, no states/);
    assert.match(await panel.textContent('#history [data-role="no-states"]'), /^Steps only, no states to travel to: this app's state is 2\.\d MB as text/);
    assert.match(await panel.evaluate(() => [...document.querySelectorAll('#history-strip [title]')].map((e) => e.title).join('\n')), /No states kept: this app's state is/);
    for (const [w, hgt] of [[320, 600], [480, 700], [700, 600], [1280, 800]]) {
      for (const scheme of ['light', 'dark']) {
        await panel.emulateMedia({ colorScheme: scheme });
        await panel.setViewportSize({ width: w, height: hgt });
        await panel.screenshot({ path: path.join(SHOTS, `panel-history-no-states-${w}-${scheme}.png`) });
      }
    }
    await panel.emulateMedia({ colorScheme: 'light' });
    // A step clicked: said plainly, and the panel stays live.
    await panel.click('#history .step-row[data-kind="patch"]');
    await until(async () => /keeps no state to show/.test(await panel.locator('#toast').textContent()), { what: 'the toast' });
    assert.equal(await panel.evaluate(() => window.slopPanel.historyShown()), null, 'still live');

    // A bound the state fits in, and a reload: states again.
    await options.selectOption('#history-mb', '256');
    await until(async () => (await strip(panel)).info?.limits.bytes === 256 * 1024 * 1024, { what: 'the strip shows the new bound' });
    await page.reload();
    await until(async () => {
      const i = (await strip(panel)).info;
      return i && i.noStates === null && i.steps > 6;
    }, { what: 'states kept after the reload', timeout: 30_000 });
    const reloadedAt = await panel.evaluate(() => window.slopPanel.history().steps.at(-1).step);
    for (const label of ['after reload', 'and again']) {
      srv.engine.mutate((r) => { r.children[0].properties.label = label; });
      await until(() => panel.evaluate((v) => window.slopPanel.currentTree()?.version === v, srv.engine.version), { what: 'the patch' });
    }
    const first = await panel.evaluate((at) => window.slopPanel.history().steps.find((x) => x.step > at && x.kind === 'patch')?.step, reloadedAt);
    await panel.click(`#history .step-row[data-step="${first}"]`);
    await until(() => panel.evaluate((st) => window.slopPanel.historyShown() === st, first), { what: 'the step shown' });
    await until(() => panel.evaluate(() => document.querySelector('#tree .row[data-path="/c"] .nsum')?.textContent === 'after reload'), { what: 'its state in the tree' });
    assert.doesNotMatch(await panel.textContent('#history-strip'), /steps only/);
    assert.equal(await panel.locator('#history [data-role="no-states"]').count(), 0);
    await options.close();
    await panel.close();
  });
});
