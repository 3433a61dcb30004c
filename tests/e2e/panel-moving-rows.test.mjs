// A press on a row that moves: a person's click takes 30-100 ms between the button going down and
// coming up, and a list patched 100 times a second re-renders (or scrolls) its rows meanwhile.
// Each press here holds the button 100 ms, as a person does, on rows patched at 100/s (a /hot
// counter) and at 10/s on a 2,000-node tree, in the tree, the History's step list and the Log; and
// Playwright's own locator click on a row being patched succeeds (no "element was detached").

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { StateEngine } from '../fixtures/provider/state.mjs';
import { browserOnProvider, startProvider, openPanel, until, sleep, TEST_TIMEOUT } from './helpers.mjs';

/** A person's press: the pointer onto the element's middle, the button down for 100 ms, up. */
async function press(page, locator, holdMs = 100) {
  const box = await locator.boundingBox();
  assert.ok(box, 'the row is on screen');
  await page.mouse.move(box.x + Math.min(box.width / 2, 120), box.y + box.height / 2);
  await page.mouse.down();
  await sleep(holdMs);
  await page.mouse.up();
}

function tree(n) {
  const items = Array.from({ length: n }, (_, i) => ({ id: `i${i}`, type: 'item', properties: { label: `item ${i}` } }));
  return {
    id: 'root', type: 'root', properties: { label: 'Moving' },
    children: [
      { id: 'hot', type: 'status', properties: { label: 'count 0', n: 0 }, children: [{ id: 'unit', type: 'field', properties: { label: 'per second' } }] },
      { id: 'calm', type: 'status', properties: { label: 'never patched' } },
      { id: 'items', type: 'collection', properties: { label: 'Items' }, children: items },
    ],
  };
}

describe('pressing rows that move', () => {
  let browser, srv, tabId, panel;
  let streaming = false;
  let stream = Promise.resolve();
  /** Patches /hot every `ms` until stopped (about 1000/ms a second). */
  const startStream = (ms) => {
    streaming = true;
    stream = (async () => {
      while (streaming) {
        srv.engine.mutate((r) => {
          const c = r.children[0];
          c.properties.n += 1;
          c.properties.label = `count ${c.properties.n}`;
        });
        await sleep(ms);
      }
    })();
  };
  const stopStream = async () => {
    streaming = false;
    await stream;
  };
  const selected = () => panel.evaluate(() => window.slopPanel.selection()?.path ?? null);

  before(async () => {
    srv = await startProvider({ engine: new StateEngine({ id: 'moving', name: 'Moving rows', tree: tree(2000) }) });
    ({ browser, tabId } = await browserOnProvider(srv));
    panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.setViewportSize({ width: 1280, height: 800 });
    await panel.waitForSelector('#tree .row[data-path="/hot"]', { timeout: 10_000 });
  });
  after(async () => {
    await stopStream();
    await browser?.close();
    await srv?.close();
  });

  for (const [rate, ms, presses] of [[100, 10, 5], [10, 100, 8]]) {
    test(`a 100 ms press selects /hot patched ${rate} times a second, ${presses} of ${presses}`, { timeout: TEST_TIMEOUT }, async () => {
      startStream(ms);
      try {
        const hot = panel.locator('#tree .row[data-path="/hot"]');
        const calm = panel.locator('#tree .row[data-path="/calm"]');
        const before = await hot.locator('.nsum').textContent();
        await until(async () => (await hot.locator('.nsum').textContent()) !== before, { what: '/hot being patched' });
        let got = 0;
        for (let i = 0; i < presses; i++) {
          await press(panel, calm);
          await until(async () => (await selected()) === '/calm', { what: '/calm selected', timeout: 3000 });
          const n0 = await hot.locator('.nsum').textContent();
          await press(panel, hot);
          // The row re-rendered while the button was down (at 10/s most presses see a patch).
          const n1 = await hot.locator('.nsum').textContent();
          if (rate === 100) assert.notEqual(n0, n1, 'patched during the press');
          await until(async () => (await selected()) === '/hot', { what: `/hot selected by press ${i + 1}`, timeout: 3000 });
          got++;
        }
        assert.equal(got, presses);
      } finally {
        await stopStream();
      }
    });
  }

  test('Playwright\'s locator click on a row patched 100 times a second succeeds, and the twisty of a patched row folds it', { timeout: TEST_TIMEOUT }, async () => {
    startStream(10);
    try {
      await panel.locator('#tree .row[data-path="/calm"]').click({ timeout: 5000 });
      await panel.locator('#tree .row[data-path="/hot"] .nsum').click({ timeout: 5000 });
      await until(async () => (await selected()) === '/hot', { what: '/hot selected by a locator click', timeout: 3000 });
      // The twisty of the patched row, pressed 100 ms, folds it and unfolds it.
      await press(panel, panel.locator('#tree .row[data-path="/hot"] .twisty'));
      await until(async () => (await panel.locator('#tree .row[data-path="/hot/unit"]').count()) === 0, { what: '/hot folded', timeout: 3000 });
      await sleep(600); // not a double click
      await press(panel, panel.locator('#tree .row[data-path="/hot"] .twisty'));
      await panel.waitForSelector('#tree .row[data-path="/hot/unit"]', { timeout: 3000 });
    } finally {
      await stopStream();
    }
  });

  test('the History\'s step list and the Log: a 100 ms press and a locator click pick the row pressed', { timeout: TEST_TIMEOUT }, async () => {
    await panel.click('#toggle-history');
    startStream(10);
    try {
      await until(async () => (await panel.locator('#history .step-row').count()) > 12, { what: 'a list of steps' });
      const rows = panel.locator('#history .step-row');
      // The pointer comes to the list first, as a person's does before aiming (the list then holds still).
      const list = await panel.locator('#history .steps').boundingBox();
      await panel.mouse.move(list.x + list.width / 2, list.y + 10);
      await sleep(100);
      /** The steps whose rows are wholly in view in the list, top to bottom. */
      const inView = () => panel.evaluate(() => {
        const lr = document.querySelector('#history .steps').getBoundingClientRect();
        return [...document.querySelectorAll('#history .step-row')].filter((r) => {
          const b = r.getBoundingClientRect();
          return b.top >= lr.top && b.bottom <= lr.bottom;
        }).map((r) => Number(r.dataset.step));
      });
      for (let i = 0; i < 5; i++) {
        const seen = await inView();
        assert.ok(seen.length > 6, `rows in view: ${seen}`);
        const step = seen[1 + i];
        const row = panel.locator(`#history .step-row[data-step="${step}"]`);
        await press(panel, row);
        await until(async () => (await panel.evaluate(() => window.slopPanel.historyShown())) === step, { what: `step ${step} shown after a press`, timeout: 5000 })
          .catch(async (e) => { throw new Error(`${e.message}: ${JSON.stringify(await panel.evaluate(() => [window.slopPanel.historyShown(), document.querySelector('#history .step-row.selected')?.dataset.step, document.querySelector('#history-strip')?.textContent]))}`); });
      }
      const step = (await inView())[0];
      await rows.locator(`xpath=self::*[@data-step="${step}"]`).locator('.step-text').click({ timeout: 5000 });
      await until(async () => (await panel.evaluate(() => window.slopPanel.historyShown())) === step, { what: `step ${step} shown after a locator click`, timeout: 5000 });
      await panel.click('#history-strip [data-action="live"]').catch(() => {});
      await panel.mouse.move(5, 5);

      // The Log follows new frames; under the pointer it holds still, and a press picks its row.
      await panel.click('#toggle-log');
      const frames = panel.locator('#log .log-list .log-row');
      await until(async () => (await frames.count()) > 5, { what: 'frames in the log' });
      const log = await panel.locator('#log .log-list').first().boundingBox();
      await panel.mouse.move(log.x + log.width / 2, log.y + 5);
      await sleep(100);
      const shown = await panel.evaluate(() => {
        const lr = document.querySelector('#log .log-list').getBoundingClientRect();
        return [...document.querySelectorAll('#log .log-list .log-row')].map((r, i) => [i, r.getBoundingClientRect()])
          .filter(([, b]) => b.top >= lr.top && b.bottom <= lr.bottom).map(([i]) => i);
      });
      assert.ok(shown.length > 3, `log rows in view: ${shown}`);
      for (let i = 0; i < 3; i++) {
        const target = frames.nth(shown[i]);
        const text = await target.locator('.fpreview').textContent();
        await press(panel, target);
        await until(async () => (await panel.locator('#log .log-row.selected .fpreview').textContent().catch(() => null)) === text, { what: 'the frame pressed selected', timeout: 3000 })
          .catch(async (e) => { throw new Error(`${e.message}: wanted ${text}, got ${await panel.locator('#log .log-row.selected .fpreview').allTextContents()}`); });
      }
    } finally {
      await stopStream();
    }
  });
});
