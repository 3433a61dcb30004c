// The panel's Cost tab (issue 49) on the profile fixture (tests/fixtures/profile-provider.mjs),
// whose sizes and traffic are known: the tab ranks the subtrees as the fixture says; the total
// tokens it shows equal the o200k count (js-glue/node/tokenizer.js, the tokenizer Node counts with)
// of the agent's tree text, and say the characters too; a click on the map, a path in the table,
// and Enter on the map select the node in the tree; the map is reached and walked by keyboard;
// the churn table, the hints and the timeline show the clock's no-op writes; the brush's range and
// its clear button; a provider that goes away leaves no numbers; axe finds no violation; and
// screenshots at 320, 480, 700 and 1280 px, light and dark, in build/screenshots/.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startProfileProvider, EXPECTED } from '../fixtures/profile-provider.mjs';
import { countTokens } from '../../js-glue/node/tokenizer.js';
import { launch, setTokenInExtension, wsOrigin, waitForProvider, openPanel, until, sleep, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
const AXE_SRC = await fs.readFile(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** axe-core on the page (loaded through CDP: the panel's CSP refuses inline scripts), the Cost tab's violations. */
async function axe(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(`${AXE_SRC}\n;void 0`);
  return page.evaluate(async (tags) => {
    const r = await /** @type {any} */ (window).axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return r.violations.flatMap((v) => v.nodes.map((n) => `${v.id} ${n.target.map(String).join(' ')}: ${(n.failureSummary ?? v.help).replace(/\s+/g, ' ').slice(0, 240)}`));
  }, TAGS);
}

/** Opens the Cost tab and waits for a complete count (the tokens shown as a total). */
async function openCost(panel) {
  await panel.click('#side-tabs button[data-tab="cost"]');
  await panel.locator('#cost [data-role="cost-tokens"]').waitFor({ timeout: 20_000 });
}

/** The worker's state as the tab has it. */
const costState = (panel) => panel.evaluate(() => globalThis.slopPanel.cost);

describe('panel Cost tab', () => {
  let browser, quiet, ticking, quietTab, tickingTab;

  before(async () => {
    quiet = await startProfileProvider({ clock: false });
    ticking = await startProfileProvider({ clock: true });
    browser = await launch();
    for (const [srv, set] of [[quiet, (t) => { quietTab = t; }], [ticking, (t) => { tickingTab = t; }]]) {
      await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
      const page = await browser.ctx.newPage();
      await page.goto(srv.url('/pages/meta-ws.html'));
      set((await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0)).tabId);
    }
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await quiet?.close();
    await ticking?.close();
  });

  test('ranks the subtrees as the fixture says; the total is the tokenizer\'s count of the tree text, characters beside it', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, quietTab);
    await openCost(panel);
    // The top level only: the subtrees at depth 1, by tokens.
    await panel.selectOption('#cost [data-role="cost-depth"]', '1');
    await until(async () => (await costState(panel)).state?.report?.depth === 1, { what: 'a report at depth 1' });
    await panel.waitForFunction(() => document.querySelectorAll('#cost [data-role="cost-subtrees"] tbody tr').length === 5);
    const ranked = await panel.locator('#cost [data-role="cost-subtrees"] tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-path')));
    assert.deepEqual(ranked, EXPECTED.byTokens);

    // The tokens shown are the engine's, and the tokenizer's count of the same agent-view text.
    const { state } = await costState(panel);
    const shown = Number(await panel.locator('#cost [data-role="cost-tokens"]').getAttribute('data-value'));
    assert.equal(shown, state.report.totals.tokens);
    const { key, sub } = await panel.evaluate(() => ({ key: globalThis.slopPanel.selectedKey(), sub: globalThis.slopPanel.currentSub() }));
    const view = await panel.evaluate(([k, s]) => globalThis.slopPanel.request('ui/agent-view', { key: k, sub: s }), [key, sub]);
    assert.equal(shown, countTokens(view.treeText), 'the tab counts what an agent is given');
    assert.equal(await panel.locator('#cost [data-role="cost-tokens"]').textContent(), `${shown.toLocaleString('en-US')} tokens`);
    assert.equal(Number(await panel.locator('#cost [data-role="cost-chars"]').getAttribute('data-value')), view.treeText.length);
    assert.match(await panel.locator('#cost [data-role="cost-status"]').textContent(), /^Tokens by o200k_base \(gpt-tokenizer 4\.0\.0\)/);
    assert.equal(state.report.totals.nodes, EXPECTED.nodes);
    // The share column adds up with the first row's numbers.
    const first = panel.locator('#cost [data-role="cost-subtrees"] tbody tr').first();
    const tokens = Number(await first.locator('td[data-col="tokens"]').getAttribute('data-value'));
    assert.ok(tokens / shown > 0.5, `/messages holds most of the tokens (${tokens} of ${shown})`);

    // Sorting by a column: nodes, largest first, then smallest first.
    await panel.click('#cost [data-sort="nodes"]');
    const nodes = await panel.locator('#cost [data-role="cost-subtrees"] tbody td[data-col="nodes"]').evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-value'))));
    assert.deepEqual(nodes, [...nodes].sort((a, b) => b - a));
    assert.equal(await panel.locator('#cost th[aria-sort="descending"] [data-sort="nodes"]').count(), 1);
    await panel.click('#cost [data-sort="nodes"]');
    assert.equal(await panel.locator('#cost th[aria-sort="ascending"] [data-sort="nodes"]').count(), 1);

    // While counting, the totals line says how far it got and shows no token total (the view's
    // own function, on a report the engine marks incomplete).
    const counting = await panel.evaluate(async (r) => {
      const { totalsLine } = await import('./views/cost-tables.js');
      const el = totalsLine({ ...r, complete: false }, { done: 3200, total: 10000 });
      return { text: el.textContent, total: !!el.querySelector('[data-role="cost-tokens"]') };
    }, state.report);
    assert.match(counting.text, /^Counting tokens… 3,200 of 10,000 \([\d,]+ characters\) of tree text; tool tokens counting/);
    assert.equal(counting.total, false, 'no total while counting');

    // A path in the table selects the node in the tree.
    await panel.click('#cost [data-role="cost-subtrees"] [data-action="cost-node"][data-path="/debug"]');
    await panel.locator('#tree .row.selected[data-path="/debug"]').waitFor({ timeout: 5000 });
    await panel.close();
  });

  test('the map: hover gives the numbers, a click selects the node; by keyboard: Tab, arrows, Enter', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, quietTab);
    await openCost(panel);
    const cell = panel.locator('#cost .cost-cell[data-path="/debug"]');
    await cell.hover();
    assert.match(await panel.locator('#cost [data-role="cost-readout"]').textContent(), /^\/debug debug: [\d,]+ tokens, [\d.]+ % of the whole, .*salience 0\.1/);
    await cell.click();
    await panel.locator('#tree .row.selected[data-path="/debug"]').waitFor({ timeout: 5000 });
    assert.equal(await panel.locator('#cost .cost-cell.selected').getAttribute('data-path'), '/debug');

    // Keyboard: the map is a Tab stop; Down goes to the largest child, Right to its neighbour, Enter selects.
    await panel.locator('#cost [data-role="cost-by"]').focus();
    await panel.keyboard.press('Tab'); // Colour by
    await panel.keyboard.press('Tab'); // the map
    assert.equal(await panel.evaluate(() => document.activeElement?.getAttribute('data-role')), 'cost-map');
    await panel.keyboard.press('Home'); // the root (the click left the focus on /debug)
    assert.equal(await panel.locator('#cost .cost-cell.focused').getAttribute('data-key'), '/');
    await panel.keyboard.press('ArrowDown');
    assert.equal(await panel.locator('#cost .cost-cell.focused').getAttribute('data-path'), '/messages');
    await panel.keyboard.press('ArrowRight');
    assert.equal(await panel.locator('#cost .cost-cell.focused').getAttribute('data-path'), '/debug');
    assert.match(await panel.locator('#cost [data-role="cost-readout"]').textContent(), /^\/debug debug: /);
    await panel.keyboard.press('ArrowRight');
    await panel.keyboard.press('Enter');
    await panel.locator('#tree .row.selected[data-path="/archive"]').waitFor({ timeout: 5000 });
    await panel.keyboard.press('ArrowUp');
    assert.equal(await panel.locator('#cost .cost-cell.focused').getAttribute('data-key'), '/');
    assert.equal(await panel.evaluate(() => document.activeElement?.getAttribute('data-role')), 'cost-map', 'the focus stays on the map');
    await panel.close();
  });

  test('traffic: the clock\'s no-op writes in the churn table and the hints; a range from the timeline, cleared', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tickingTab);
    await openCost(panel);
    const clock = panel.locator('#cost [data-role="cost-churn"] tbody tr[data-path="/clock"]');
    await clock.waitFor({ timeout: 15_000 });
    await until(async () => (await costState(panel)).state?.report?.hints.length >= 3, { what: 'the three hints', timeout: 20_000 });
    const hints = await panel.locator('#cost [data-role="cost-hints"] li').evaluateAll((lis) => lis.map((li) => [li.dataset.kind, li.querySelector('[data-action="cost-node"]')?.getAttribute('data-path')]));
    for (const h of EXPECTED.hints) assert.ok(hints.some(([k, p]) => k === h[0] && p === h[1]), `hint ${h.join(' ')} in ${JSON.stringify(hints)}`);
    assert.match(await panel.locator('#cost [data-role="cost-budgets"]').textContent(), /maxStateBytes/);

    // Colour by churn: the clock is the one coloured.
    await panel.selectOption('#cost [data-role="cost-colour"]', 'churn');
    // The timeline: a few samples, then a brush across it sets a range; Clear range drops it.
    await until(async () => (await costState(panel)).state?.timeline?.at.length >= 4, { what: 'four samples', timeout: 20_000 });
    await panel.locator('#cost .cost-chart').scrollIntoViewIfNeeded();
    const box = await panel.locator('#cost .cost-chart .u-over').boundingBox();
    await panel.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
    await panel.mouse.down();
    await panel.mouse.move(box.x + box.width * 0.9, box.y + box.height / 2, { steps: 5 });
    await panel.mouse.up();
    await until(async () => (await costState(panel)).state?.report?.range !== null, { what: 'a report over the range' });
    assert.match(await panel.locator('#cost [data-role="cost-range"]').textContent(), /^Range: \d\d:\d\d:\d\d to \d\d:\d\d:\d\d \([\d.]+ s\)$/);
    await panel.click('#cost [data-action="cost-range-clear"]');
    await until(async () => (await costState(panel)).state?.report?.range === null, { what: 'the range cleared' });
    assert.equal(await panel.locator('#cost [data-role="cost-range"]').textContent(), 'Whole session');
    // By keyboard: the last 10 seconds.
    await panel.click('#cost [data-action="cost-range-10"]');
    await until(async () => (await costState(panel)).state?.report?.range !== null, { what: 'the last 10 s' });
    await panel.click('#cost [data-action="cost-range-clear"]');

    // Axe, and the screenshots: every width, light and dark.
    for (const [w, hgt] of [[320, 900], [480, 900], [700, 800], [1280, 900]]) {
      for (const theme of ['light', 'dark']) {
        await panel.setViewportSize({ width: w, height: hgt });
        await panel.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
        await sleep(1300); // a sample and the chart in the new colours
        const bad = await axe(panel);
        assert.deepEqual(bad.filter((v) => /#cost|cost-/.test(v)), [], `${w} px ${theme}`);
        // The top of the tab (totals, budgets, map), then its lower half (tables, timeline).
        await panel.evaluate(() => { document.getElementById('cost').scrollTop = 0; });
        await panel.screenshot({ path: path.join(SHOTS, `panel-cost-${w}-${theme}.png`) });
        await panel.locator('#cost [data-role="cost-timeline"]').scrollIntoViewIfNeeded();
        await panel.screenshot({ path: path.join(SHOTS, `panel-cost-${w}-${theme}-traffic.png`) });
      }
    }
    await panel.close();
  });

  test('a provider that goes away: its numbers are dropped, and the tab says so', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tickingTab);
    await openCost(panel);
    await ticking.close();
    ticking = null;
    await panel.locator('#cost [data-role="cost-why"]:not([hidden])').waitFor({ timeout: 20_000 });
    assert.match(await panel.locator('#cost [data-role="cost-why"]').textContent(), /went away|not connected/);
    assert.equal(await panel.locator('#cost [data-role="cost-tokens"]').isVisible(), false);
    assert.equal((await costState(panel)).state, null);
    await panel.close();
  });
});
