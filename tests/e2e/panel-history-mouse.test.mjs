// The History under the mouse while the app runs: about 100 patches a second, the pointer on the
// step list. The list holds still while the pointer is over it (it follows the newest step only
// while nobody is there), so the row under the pointer is the row clicked: ten clicks by
// coordinates, each showing that step a second later (shown, selected, in view, named by its
// version in the strip); a Playwright locator click on a row succeeds (the row holds still for
// its stability check); "▼ Newest" takes the list back to the live state and following again.
// Screenshots of the list held still, at 320, 700 and 1280 px, light and dark.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs/promises';
import { StateEngine } from '../fixtures/provider/state.mjs';
import { browserOnProvider, startProvider, openPanel, until, sleep, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots/history-mouse');

/** What the panel shows of step `step`, in one turn. */
function shownOf(step) {
  const sp = window.slopPanel;
  const list = document.querySelector('#history .steps');
  const row = document.querySelector(`#history .step-row[data-step="${step}"]`);
  const lr = list.getBoundingClientRect();
  const rr = row?.getBoundingClientRect();
  const st = sp.history()?.steps.find((s) => s.step === step);
  return {
    shown: sp.historyShown(),
    selected: row?.classList.contains('selected') ?? false,
    visible: !!rr && rr.top >= lr.top - 1 && rr.bottom <= lr.bottom + 1,
    strip: document.querySelector('#history-strip [data-role="history-label"]').textContent,
    version: st?.version ?? null,
  };
}

describe('the History under the mouse', () => {
  let browser, srv, tabId;
  let streaming = false;
  let stream = Promise.resolve();
  const tick = () => srv.engine.mutate((r) => {
    const c = r.children[0];
    c.properties.n += 1;
    c.properties.label = `count ${c.properties.n}`;
  });
  /** About 100 patches a second until stopped. */
  const startStream = () => {
    streaming = true;
    stream = (async () => {
      while (streaming) {
        tick();
        await sleep(10);
      }
    })();
  };

  before(async () => {
    srv = await startProvider({ engine: new StateEngine({
      id: 'mouse', name: 'History mouse',
      tree: { id: 'root', type: 'root', properties: { label: 'Mouse' }, children: [{ id: 'c', type: 'status', properties: { label: 'count 0', n: 0 } }] },
    }) });
    ({ browser, tabId } = await browserOnProvider(srv));
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    streaming = false;
    await stream;
    await browser?.close();
    await srv?.close();
  });

  test('ten clicks by coordinates under 100 patches/s: each shows the step under the pointer, selected and in view a second later', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.setViewportSize({ width: 1280, height: 800 });
    await panel.waitForSelector('#tree .row[data-path="/c"]', { timeout: 10_000 });
    await panel.click('#toggle-history');
    startStream();
    try {
      await until(async () => (await panel.locator('#history .step-row').count()) > 12, { what: 'a list of steps' });
      const list = await panel.locator('#history .steps').boundingBox();
      // The pointer comes to the list, as a person's does before aiming.
      await panel.mouse.move(list.x + list.width / 2, list.y + 10);
      await sleep(100);
      for (let k = 0; k < 10; k++) {
        // Down to the newest steps with the wheel (the history's bound drops the oldest quarter
        // every ten seconds at this rate), then aim at a row in view, a different one each time.
        await panel.mouse.wheel(0, 1e6);
        await sleep(100);
        const aim = await panel.evaluate((k) => {
          const lr = document.querySelector('#history .steps').getBoundingClientRect();
          const rows = [...document.querySelectorAll('#history .step-row')].filter((r) => {
            const b = r.getBoundingClientRect();
            return b.top >= lr.top && b.bottom <= lr.bottom;
          });
          const row = rows[(k * 3) % rows.length];
          const b = row.getBoundingClientRect();
          return { x: b.left + b.width / 3, y: b.top + b.height / 2, step: Number(row.dataset.step) };
        }, k);
        await sleep(150); // aiming takes a moment; steps keep coming
        await panel.mouse.click(aim.x, aim.y);
        await sleep(1000);
        const s = await panel.evaluate(shownOf, aim.step);
        assert.equal(s.shown, aim.step, `click ${k + 1}: the step under the pointer is shown`);
        assert.equal(s.selected, true, `click ${k + 1}: it is selected`);
        assert.equal(s.visible, true, `click ${k + 1}: it is in view`);
        assert.ok(s.strip.startsWith(`v${s.version} · `), `click ${k + 1}: the strip names its version: ${s.strip}`);
      }

      // Held still, the list says how many newer steps wait below.
      const newest = panel.locator('#history [data-action="newest"]');
      await until(async () => /^▼ Newest · [\d,]+ newer steps?$/.test(await newest.textContent()) && await newest.isVisible(), { what: '"▼ Newest" with the count' });
      for (const theme of ['light', 'dark']) {
        await panel.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
        for (const [w, hgt] of [[1280, 800], [700, 600], [480, 700], [320, 700]]) {
          await panel.setViewportSize({ width: w, height: hgt });
          await panel.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
          await panel.screenshot({ path: path.join(SHOTS, `held-${w}-${theme}.png`) });
        }
      }
      await panel.setViewportSize({ width: 1280, height: 800 });

      // A Playwright locator click: the row holds still for its stability check, and is shown.
      const row = panel.locator('#history .step-row').nth(4);
      const step = Number(await row.getAttribute('data-step'));
      await row.click({ timeout: 5000 });
      await until(() => panel.evaluate((s) => window.slopPanel.historyShown() === s, step), { what: `step ${step} shown after a locator click` });

      // "▼ Newest": live again, the list following the newest step once the pointer has gone.
      await newest.click();
      await until(() => panel.evaluate(() => window.slopPanel.historyShown() === null), { what: 'live again' });
      await panel.mouse.move(5, 5);
      await until(() => panel.evaluate(() => {
        const steps = window.slopPanel.history().steps;
        const lr = document.querySelector('#history .steps').getBoundingClientRect();
        const last = document.querySelector(`#history .step-row[data-step="${steps.at(-1).step}"]`);
        return !!last && last.getBoundingClientRect().bottom <= lr.bottom + 1 && document.querySelector('#history [data-action="newest"]').hidden;
      }), { what: 'the list at the newest step, following' });
    } finally {
      streaming = false;
      await stream;
    }
    await panel.close();
  });
});
