// The watched node (issue 35, items 4 and 5): a patch to the selected node rings its row in the
// accent colour (not the amber of the other changed rows, not only the selection's blue; held
// still under reduced motion) and marks the changed, added and removed fields of its detail with
// the old value; Ctrl+Enter invokes from a form's select (Enter there is the select's); the
// breadcrumbs say when the tree's filter hides the selected node; H, H gives the side pane its
// tab back; the Subscription and Filter buttons have different icons.
// Screenshots in build/screenshots/watched-node/: the patched row and detail at 320, 700 and
// 1280 px, light and dark; the bar's buttons; the breadcrumbs' chip.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { StateEngine } from '../fixtures/provider/state.mjs';
import { exactIntegers } from '../fixtures/provider/ws-server.mjs';
import { browserOnProvider, startProvider, openPanel, until, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots/watched-node');
const BIG = '9007199254740993'; // not a double: the detail must say these digits
const BIG2 = '9007199254740995';

function appTree() {
  return {
    id: 'app', type: 'root', properties: { label: 'Watch lab' },
    children: [
      {
        id: 'counter', type: 'counter',
        properties: { label: 'Counter', count: 1, status: 'idle', serial: `int:${BIG}`, legacy: 'old field', tags: ['a'] },
        meta: { salience: 0.6, summary: 'A counter' },
        affordances: [{
          action: 'set', label: 'Set mode',
          params: { type: 'object', properties: { mode: { type: 'string', enum: ['fast', 'safe'] }, note: { type: 'string' } } },
        }],
      },
      { id: 'other', type: 'note', properties: { label: 'Other', n: 0 } },
      { id: 'third', type: 'note', properties: { label: 'Third' } },
    ],
  };
}

describe('panel: the watched node', () => {
  let browser;
  let srv;
  let tabId;
  const calls = [];

  before(async () => {
    const engine = new StateEngine({
      id: 'watch', name: 'Watch lab', tree: appTree(),
      handlers: { set: (ctx) => { calls.push(ctx.params); return { ok: true }; } },
    });
    srv = await startProvider({ engine, encode: exactIntegers }); // "int:…" written as the digits
    ({ browser, tabId } = await browserOnProvider(srv));
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  const frames = (panel) => panel.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

  test('a patch to the selected node: its row rings in the accent colour, its detail marks what changed', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.setViewportSize({ width: 1280, height: 800 });
    await panel.click('#tree .row[data-path="/counter"]', { timeout: 10_000 });
    await panel.locator('#detail [data-section="properties"]').waitFor();
    assert.equal(await panel.locator('#detail [data-change]').count(), 0, 'nothing marked on the first render');
    await panel.evaluate(() => { globalThis.slopPanel.changeMarkMs = 120_000; }); // held for the screenshots

    // What the panel does while the patch lands: the row's animation and class, seen as they happen.
    await panel.evaluate(() => {
      globalThis.__seen = { selected: null, other: null };
      new MutationObserver(() => {
        const sel = document.querySelector('#tree .row.selected.flash');
        if (sel && !globalThis.__seen.selected) globalThis.__seen.selected = getComputedStyle(sel).animationName;
        const other = document.querySelector('#tree .row.flash:not(.selected)');
        if (other && !globalThis.__seen.other) globalThis.__seen.other = getComputedStyle(other).animationName;
      }).observe(document.getElementById('tree'), { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
    });
    srv.engine.mutate((root) => {
      const c = root.children[0];
      c.properties.count = 2;
      c.properties.status = 'busy';
      c.properties.serial = `int:${BIG2}`;
      c.properties.owner = 'Ada';
      delete c.properties.legacy;
      c.meta.salience = 0.9;
      root.children[1].properties.n = 1;
    });
    await until(() => panel.evaluate(() => globalThis.__seen.selected !== null && globalThis.__seen.other !== null), { what: 'both rows marked', timeout: 10_000 });
    const seen = await panel.evaluate(() => globalThis.__seen);
    assert.match(seen.selected, /^watched/, 'the selected row: the accent ring');
    assert.equal(seen.other, 'flash', 'another changed row: amber');

    const marks = () => panel.evaluate(() => Object.fromEntries([...document.querySelectorAll('#detail [data-change]')].map((r) => [r.dataset.changeKey, r.dataset.change])));
    await until(async () => Object.keys(await marks()).length === 6, { what: 'the field marks' });
    assert.deepEqual(await marks(), {
      'properties count': 'changed', 'properties status': 'changed', 'properties serial': 'changed',
      'properties owner': 'added', 'properties legacy': 'removed', 'meta salience': 'changed',
    });
    const row = (k) => panel.locator(`#detail [data-change-key="${k}"]`);
    assert.equal(await row('properties serial').locator('.fchange-was').textContent(), `was ${BIG}`, 'the provider\'s digits');
    assert.match(await row('properties serial').getAttribute('title'), new RegExp(`${BIG} → ${BIG2}`));
    assert.equal(await row('properties status').locator('.fchange-was').textContent(), 'was "idle"');
    assert.match(await row('properties legacy').textContent(), /legacy: removed was "old field"/);
    assert.equal(await row('properties owner').locator('.fchange-was').textContent(), 'new');
    assert.equal(await panel.locator('#detail [data-section="properties"] .jt-row:not([data-change])', { hasText: 'label' }).count(), 1, 'an unchanged field: no mark');

    // Hovering shows old → new; its contrast holds in both themes (checked on the screenshots too).
    await row('properties count').hover();
    await panel.mouse.move(0, 0);

    // The screenshots: the ring at its start, held.
    const hold = () => panel.evaluate(() => {
      // The rows' animations start again in the theme now shown (a running one keeps the colours
      // it started with), then hold at their first frame.
      const sel = document.querySelector('#tree .row.selected');
      const other = document.querySelector('#tree .row[data-path="/other"]');
      for (const row of [sel, other]) {
        row?.classList.remove('flash');
        void row?.offsetWidth;
        row?.classList.add('flash');
      }
      // The rows' ring and amber at their start; the fields' brief brightening over (their steady tint).
      for (const a of document.getAnimations()) {
        if (/^(watched|flash)/.test(a.animationName)) { a.pause(); a.currentTime = 0; } else a.finish();
      }
    });
    for (const theme of ['light', 'dark']) {
      await panel.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
      for (const [w, hgt] of [[1280, 720], [700, 600], [320, 760]]) {
        await panel.setViewportSize({ width: w, height: hgt });
        await frames(panel);
        await hold();
        await frames(panel);
        await panel.screenshot({ path: path.join(SHOTS, `patched-${w}-${theme}.png`) });
      }
    }
    // Text on a marked row against its tint: ≥ 4.5:1 in both themes (the "was" note and the values).
    for (const theme of ['light', 'dark']) {
      await panel.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
      const worst = await panel.evaluate(() => {
        // A computed colour: "rgb(r, g, b)", "rgba(r, g, b, a)" or "color(srgb r g b / a)" (0–1), as [r, g, b, a].
        const rgba = (s) => {
          const n = s.match(/-?[\d.]+/g).map(Number);
          if (s.startsWith('color(')) return [n[0] * 255, n[1] * 255, n[2] * 255, n[3] ?? 1];
          return [n[0], n[1], n[2], n[3] ?? 1];
        };
        const rgb = (s) => rgba(s).slice(0, 3);
        const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
        const bg = rgb(getComputedStyle(document.body).backgroundColor);
        let min = { ratio: Infinity, what: '' };
        for (const el of document.querySelectorAll('#detail .fchange .fchange-was, #detail .fchange .fchange-word, #detail .fchange .scalar, #detail .fchange .jt-key')) {
          // The tint is 10% accent over the page: blended here as the browser does.
          const row = el.closest('.fchange');
          const tint = getComputedStyle(row).backgroundColor;
          const [r, g, b, a] = rgba(tint);
          const under = [r, g, b].map((v, i) => v * a + bg[i] * (1 - a));
          const fg = rgb(getComputedStyle(el).color);
          const [l1, l2] = [lum(fg), lum(under)].sort((x, y) => y - x);
          const ratio = (l1 + 0.05) / (l2 + 0.05);
          if (ratio < min.ratio) min = { ratio, what: `${el.className} ${getComputedStyle(el).color} on ${tint}` };
        }
        return min;
      });
      assert.ok(worst.ratio >= 4.5, `${theme}: the lowest contrast on a marked row is ${worst.ratio.toFixed(2)} (${worst.what})`);
    }
    await panel.evaluate(() => { document.documentElement.dataset.theme = 'light'; });
    await panel.setViewportSize({ width: 1280, height: 800 });

    // Reduced motion: the ring holds still (a step, no fade), then goes.
    await panel.emulateMedia({ reducedMotion: 'reduce' });
    await panel.evaluate(() => { globalThis.__seen = { selected: null, other: null, timing: null }; new MutationObserver(() => {
      const sel = document.querySelector('#tree .row.selected.flash');
      if (sel && !globalThis.__seen.timing) globalThis.__seen.timing = getComputedStyle(sel).animationTimingFunction;
    }).observe(document.getElementById('tree'), { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] }); });
    await new Promise((r) => setTimeout(r, 1100)); // a row flashes at most once a second
    srv.engine.mutate((root) => { root.children[0].properties.count = 3; });
    await until(() => panel.evaluate(() => globalThis.__seen.timing !== null), { what: 'the still ring', timeout: 10_000 });
    assert.match(await panel.evaluate(() => globalThis.__seen.timing), /steps\(1(, end)?\)/);
    await panel.emulateMedia({ reducedMotion: 'no-preference' });

    // Another node: its detail starts without marks.
    await panel.click('#tree .row[data-path="/third"]');
    await until(async () => (await panel.locator('#detail .detail-head .nid').textContent()) === 'third', { what: 'the other node' });
    assert.equal(await panel.locator('#detail [data-change]').count(), 0);
    await panel.close();
  });

  test('Ctrl+Enter invokes from a select of the form; Enter there does not; no key on a row invokes', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#tree .row[data-path="/counter"]', { timeout: 10_000 });
    const card = panel.locator('.affordance[data-action-name="set"]');
    await card.waitFor();
    const select = card.locator('select[data-ppath="params.mode"]');
    await select.selectOption({ label: 'safe' });
    // Keys on the tree row first: Enter opens the detail, Ctrl+Enter does nothing.
    await panel.focus('#tree');
    await panel.keyboard.press('Enter');
    await panel.keyboard.press('Control+Enter');
    await panel.keyboard.press('Enter');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(calls.length, 0, 'no key on a row invokes');
    await select.focus();
    await panel.keyboard.press('Control+Enter');
    await until(() => calls.length === 1, { what: 'the invoke from the select' });
    assert.deepEqual(calls[0], { mode: 'safe' });
    await card.locator('.aff-result [data-outcome="ok"]').waitFor({ timeout: 10_000 });
    assert.equal(await card.locator('button[data-action="invoke"]').textContent(), 'Invoke', 'back from "Invoking…"');
    await panel.close();
  });

  test('the breadcrumbs say when the filter hides the selected node, and clear it', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.setViewportSize({ width: 700, height: 500 });
    await panel.click('#tree .row[data-path="/counter"]', { timeout: 10_000 });
    await panel.click('#tree-filter-btn');
    await panel.selectOption('#tree-filter select[data-filter="type"]', 'note');
    const chip = panel.locator('#breadcrumbs [data-role="filtered-out"]');
    await chip.waitFor({ timeout: 5000 });
    assert.match(await chip.textContent(), /hidden by the filter/);
    assert.equal(await panel.locator('#tree .row[data-path="/counter"]').count(), 0, 'its row is hidden');
    assert.equal(await panel.locator('#detail .detail-head .nid').textContent(), 'counter', 'still selected, still in the detail');
    for (const theme of ['light', 'dark']) {
      await panel.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
      await frames(panel);
      await panel.screenshot({ path: path.join(SHOTS, `filtered-crumbs-700-${theme}.png`) });
      await panel.locator('#breadcrumbs').screenshot({ path: path.join(SHOTS, `filtered-crumbs-bar-${theme}.png`) });
    }
    await panel.evaluate(() => { document.documentElement.dataset.theme = 'light'; });
    // Filtering to its own type: shown again, no chip.
    await panel.selectOption('#tree-filter select[data-filter="type"]', 'counter');
    await until(async () => (await chip.count()) === 0, { what: 'the chip gone' });
    await panel.selectOption('#tree-filter select[data-filter="type"]', 'note');
    await chip.waitFor();
    await chip.locator('button[data-action="clear-filter"]').click();
    await until(async () => (await chip.count()) === 0, { what: 'the chip gone after Clear filter' });
    await panel.locator('#tree .row.selected[data-path="/counter"]').waitFor({ timeout: 5000 });
    assert.equal(await panel.locator('#tree-filter-btn.filtering').count(), 0, 'no filter on');
    await panel.close();
  });

  test('H opens the History tab; H again gives back the tab shown before', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#tree .row[data-path="/counter"]', { timeout: 10_000 });
    const tab = () => panel.evaluate(() => document.querySelector('#side-tabs button.active')?.dataset.tab);
    for (const start of ['node', 'agent']) {
      await panel.click(`#side-tabs button[data-tab="${start}"]`);
      await panel.focus('#tree');
      await panel.keyboard.press('h');
      await until(async () => (await tab()) === 'history', { what: 'the History tab' });
      assert.equal(await panel.locator('#history-strip').isHidden(), false);
      await panel.focus('#tree');
      await panel.keyboard.press('h');
      await until(async () => (await tab()) === start, { what: `back to ${start}` });
      assert.equal(await panel.locator('#history-strip').isHidden(), true);
    }
    // Another tab chosen meanwhile: H closes the strip and leaves that tab be.
    await panel.keyboard.press('h');
    await until(async () => (await tab()) === 'history', { what: 'the History tab' });
    await panel.click('#side-tabs button[data-tab="conformance"]');
    await panel.focus('#tree');
    await panel.keyboard.press('h');
    await until(() => panel.locator('#history-strip').isHidden(), { what: 'the strip closed' });
    assert.equal(await tab(), 'conformance');
    await panel.close();
  });

  test('the Subscription and Filter buttons have different icons', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.setViewportSize({ width: 700, height: 400 });
    await panel.locator('#tree .row[data-path="/counter"]').waitFor({ timeout: 10_000 });
    const icon = (sel) => panel.evaluate((s) => getComputedStyle(document.querySelector(s), '::before').getPropertyValue('mask-image') || getComputedStyle(document.querySelector(s), '::before').getPropertyValue('-webkit-mask-image'), sel);
    const sub = await icon('#toggle-sub');
    const filter = await icon('#tree-filter-btn');
    assert.match(sub, /subscribe\.svg/);
    assert.match(filter, /filter\.svg/);
    for (const theme of ['light', 'dark']) {
      await panel.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
      await frames(panel);
      await panel.screenshot({ path: path.join(SHOTS, `bar-icons-${theme}.png`), clip: { x: 0, y: 0, width: 700, height: 64 } });
      // The two buttons close up (the bar's and the tree's), hovered so their box shows too.
      await panel.hover('#toggle-sub');
      await panel.locator('#toggle-sub').screenshot({ path: path.join(SHOTS, `icon-subscription-${theme}.png`) });
      await panel.hover('#tree-filter-btn');
      await panel.locator('#tree-filter-btn').screenshot({ path: path.join(SHOTS, `icon-filter-${theme}.png`) });
    }
    await panel.close();
  });
});
