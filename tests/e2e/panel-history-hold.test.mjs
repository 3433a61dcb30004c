// The History keeps what the user looks at (issue 45): about 100 patches a second with the step
// bound at 1,000 (set from the History tab's "Keep" control), a step clicked after scrolling up is
// still shown, selected, diffable and in the tree after 30 seconds and a dozen drops at the bound,
// listed in its place with the gap said, and the banner never sends the user back to live; a
// pinned step too. Released (back to live, pins cleared), it goes at the next drop. Recording
// paused and resumed: no steps while paused, the tree live, a resume step, and the states on
// both sides of the gap true. The path and kind filter: only matching steps, "N of M", ↓ among
// them. Screenshots of the History tab with the new controls at 320, 700 and 1280 px, light and dark.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs/promises';
import { StateEngine } from '../fixtures/provider/state.mjs';
import { browserOnProvider, startProvider, openPanel, until, sleep, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots/history-hold');

/** What the panel shows of step `step`, in one turn. */
function viewOf(step) {
  const sp = window.slopPanel;
  const row = document.querySelector(`#history .step-row[data-step="${step}"]`);
  const banner = document.getElementById('banner');
  return {
    shown: sp.historyShown(),
    listed: !!sp.history()?.steps.some((s) => s.step === step),
    kept: !!sp.history()?.steps.find((s) => s.step === step)?.kept,
    selected: row?.classList.contains('selected') ?? null,
    banner: banner.hidden ? '' : banner.dataset.kind,
    label: document.querySelector('#tree .row[data-path="/c"] .nsum')?.textContent ?? null,
    dropped: sp.history()?.info?.dropped ?? 0,
    diff: sp.lastDiff,
  };
}

/** Scrolls the step list (virtual: only rows on screen exist) to step `step`'s row; resolves once painted. */
async function scrollToStep(panel, step) {
  await panel.evaluate(async (s) => {
    const el = document.querySelector('#history .steps');
    const i = [...document.querySelectorAll('#history .step-row')].length && window.slopPanel.history().steps.findIndex((x) => x.step === s);
    el.scrollTop = Math.max(0, i * 22 - el.clientHeight / 2);
    el.dispatchEvent(new Event('scroll'));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  }, step);
}

describe('the History keeps what the user looks at', () => {
  let browser, srv, tabId;
  let streaming = false;
  let stream = Promise.resolve();
  /** Each patch: the counter (its label says the version: count v-1); every tenth also /hot. */
  const tick = () => srv.engine.mutate((r) => {
    const c = r.children[0];
    c.properties.n += 1;
    c.properties.label = `count ${c.properties.n}`;
    if (c.properties.n % 10 === 0) r.children[1].properties.n = c.properties.n;
  });
  const startStream = () => {
    streaming = true;
    stream = (async () => {
      while (streaming) {
        tick();
        await sleep(10);
      }
    })();
  };
  const stopStream = async () => {
    streaming = false;
    await stream;
  };

  before(async () => {
    srv = await startProvider({ engine: new StateEngine({
      id: 'hold', name: 'History hold',
      tree: { id: 'root', type: 'root', properties: { label: 'Hold' }, children: [
        { id: 'c', type: 'status', properties: { label: 'count 0', n: 0 } },
        { id: 'hot', type: 'status', properties: { n: 0 } },
      ] },
    }) });
    ({ browser, tabId } = await browserOnProvider(srv));
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await stopStream();
    await browser?.close();
    await srv?.close();
  });

  test('a viewed and a pinned step survive 30 s of 100 patches/s at a 1,000-step bound; released they go; pause, resume and the filter', { timeout: TEST_TIMEOUT * 6 }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.setViewportSize({ width: 1280, height: 800 });
    await panel.waitForSelector('#tree .row[data-path="/c"]', { timeout: 10_000 });
    await panel.click('#toggle-history');
    // The bound from the History tab: the same setting as Options.
    await panel.selectOption('#history [data-role="keep-steps"]', '5000');
    await until(() => panel.evaluate(async () => (await chrome.storage.local.get('historySteps')).historySteps === 5000), { what: 'the step bound stored' });
    await until(() => panel.evaluate(() => window.slopPanel.history()?.info?.limits.steps === 5000), { what: 'the worker keeps 5,000 steps' });
    await panel.selectOption('#history [data-role="keep-steps"]', '1000');
    await until(() => panel.evaluate(() => window.slopPanel.history()?.info?.limits.steps === 1000), { what: 'the worker keeps 1,000 steps' });
    startStream();
    try {
      await until(() => panel.evaluate(() => (window.slopPanel.history()?.info?.dropped ?? 0) > 0), { what: 'a first drop at the bound', timeout: 30_000 });
      assert.match(await panel.textContent('#history [data-role="steps-bound"]'), /^keeps the last [\d,]+ steps \(bound: steps; [\d.,]+ [KM]B of 64\.0 MB used\)/);

      // Scrolled up to the oldest steps kept, a row near the top is clicked: the next drop would
      // take it within seconds.
      const list = await panel.locator('#history .steps').boundingBox();
      await panel.mouse.move(list.x + list.width / 2, list.y + list.height / 2);
      await panel.mouse.wheel(0, -1e6);
      await sleep(150);
      const aim = await panel.evaluate(() => {
        const lr = document.querySelector('#history .steps').getBoundingClientRect();
        const row = [...document.querySelectorAll('#history .step-row')].find((r) => r.getBoundingClientRect().top >= lr.top + 22 && r.dataset.kind === 'patch');
        const b = row.getBoundingClientRect();
        return { x: b.left + b.width / 3, y: b.top + b.height / 2, step: Number(row.dataset.step) };
      });
      await panel.mouse.click(aim.x, aim.y);
      const S = aim.step;
      await until(() => panel.evaluate((s) => window.slopPanel.historyShown() === s, S), { what: `step ${S} shown` });
      const version = await panel.evaluate((s) => window.slopPanel.history().steps.find((x) => x.step === s).version, S);
      const wantLabel = `count ${version - 1}`;
      const start = await panel.evaluate(viewOf, S);
      assert.equal(start.label, wantLabel);

      // 30 seconds of streaming, looked at every second.
      const t0 = Date.now();
      let looks = 0;
      let pinned = null;
      while (Date.now() - t0 < 32_000) {
        await sleep(1000);
        const v = await panel.evaluate(viewOf, S);
        looks++;
        assert.equal(v.shown, S, `look ${looks}: still shown`);
        assert.equal(v.listed, true, `look ${looks}: still listed`);
        assert.equal(v.banner, 'scrub', `look ${looks}: the banner still says the step viewed, never back to live`);
        assert.equal(v.label, wantLabel, `look ${looks}: the tree shows its state`);
        // A few seconds in, a recent step is pinned (a second panel's worth of hold: a pin).
        if (looks === 3) {
          pinned = await panel.evaluate(() => window.slopPanel.history().steps.at(-200).step);
          await scrollToStep(panel, pinned);
          await panel.locator(`#history .step-row[data-step="${pinned}"] [data-action="pin"]`).click({ force: true });
        }
      }
      const end = await panel.evaluate(viewOf, S);
      assert.ok(end.dropped - start.dropped >= 1500, `several drops (a quarter of 1,000 each) meanwhile: ${end.dropped - start.dropped} steps dropped`);
      assert.equal(end.kept, true, 'kept past the bound');
      // Listed in its place, the gap after it said; selected; its diff against the step before it.
      await scrollToStep(panel, S);
      await until(() => panel.evaluate((s) => document.querySelector(`#history .step-row[data-step="${s}"]`)?.classList.contains('selected'), S), { what: 'its row selected' });
      assert.match(await panel.locator(`#history .step-row[data-step="${S}"] [data-role="step-kept"]`).textContent(), /kept/);
      assert.match(await panel.locator('#history [data-role="step-gap"]').first().textContent(), /^… [\d,]+ dropped …$/);
      assert.equal(end.diff?.toStep, S);
      assert.equal(end.diff?.fromStep, S - 1);
      assert.deepEqual(end.diff.changed, ['/c']);
      assert.equal(end.diff.to, version);
      for (const theme of ['light', 'dark']) {
        await panel.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
        for (const [w, hgt] of [[1280, 800], [700, 600], [320, 700]]) {
          await panel.setViewportSize({ width: w, height: hgt });
          await scrollToStep(panel, S);
          await panel.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
          await panel.screenshot({ path: path.join(SHOTS, `kept-${w}-${theme}.png`) });
        }
      }
      await panel.evaluate(() => { document.documentElement.dataset.theme = 'light'; });
      await panel.setViewportSize({ width: 1280, height: 800 });
      // The pinned step survived too; unpinned by clicking the step again, then clicking "clear".
      assert.ok(await panel.evaluate((p) => window.slopPanel.history().steps.some((x) => x.step === p), pinned), 'the pinned step is still listed');
      // The pair diffs: the viewed step and the pinned one.
      await scrollToStep(panel, S);
      await panel.locator(`#history .step-row[data-step="${S}"] [data-action="pin"]`).click({ force: true });
      await until(() => panel.evaluate(() => window.slopPanel.lastDiff?.pinned === true), { what: 'the pinned pair diffed' });
      const pair = await panel.evaluate(() => window.slopPanel.lastDiff);
      assert.deepEqual([pair.fromStep, pair.toStep], [S, pinned]);
      assert.ok(pair.changed.includes('/c'), JSON.stringify(pair));

      // Released: pins cleared, back to live. Gone at the next drop.
      await panel.click('#history [data-action="clear-pins"]');
      await panel.focus('#history .steps');
      await panel.keyboard.press('Escape'); // back to live (the banner's button says Esc)
      await until(() => panel.evaluate(() => window.slopPanel.historyShown() === null), { what: 'live again' });
      await until(() => panel.evaluate((s) => !window.slopPanel.history().steps.some((x) => x.step === s), S), { what: 'the released step gone at the next drop', timeout: 20_000 });
      assert.equal(await panel.evaluate(() => document.getElementById('banner').hidden), true, 'no "step dropped" note for a step released');

      // Pause: no steps, the tree live; resume: a step says what was missed.
      await panel.click('#history-strip [data-action="h-record"]');
      await until(async () => /^Paused · [\d,]+ patches not recorded/.test(await panel.textContent('#history-strip [data-role="history-label"]')), { what: 'the strip says paused' });
      const pausedAt = await panel.evaluate(() => window.slopPanel.history().steps.at(-1).step);
      const v0 = await panel.evaluate(() => window.slopPanel.currentTree().version);
      await sleep(1500);
      assert.equal(await panel.evaluate(() => window.slopPanel.history().steps.at(-1).step), pausedAt, 'no step recorded while paused');
      assert.ok(await panel.evaluate(() => window.slopPanel.currentTree().version) > v0 + 50, 'the tree stays live');
      for (const theme of ['light', 'dark']) {
        await panel.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
        for (const [w, hgt] of [[1280, 800], [700, 600], [320, 700]]) {
          await panel.setViewportSize({ width: w, height: hgt });
          await panel.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
          await panel.screenshot({ path: path.join(SHOTS, `paused-${w}-${theme}.png`) });
        }
      }
      await panel.evaluate(() => { document.documentElement.dataset.theme = 'light'; });
      await panel.setViewportSize({ width: 1280, height: 800 });
      await panel.click('#history-strip [data-action="h-record"]');
      await until(() => panel.evaluate((at) => window.slopPanel.history().steps.some((x) => x.step > at && x.resumed), pausedAt), { what: 'the resume step' });
      await stopStream();
      const resumed = await panel.evaluate((at) => window.slopPanel.history().steps.find((x) => x.step > at && x.resumed), pausedAt);
      assert.equal(resumed.step, pausedAt + 1);
      assert.match(resumed.message, /^recording resumed; [\d,]+ patches not recorded$/);
      assert.ok(resumed.resumed.notRecorded > 50);
      // The states on both sides of the gap are the true ones (count v-1 at version v).
      for (const st of [pausedAt, resumed.step, resumed.step + 1]) {
        const want = await panel.evaluate((s) => window.slopPanel.history().steps.find((x) => x.step === s)?.version, st);
        if (want === undefined) continue;
        await scrollToStep(panel, st);
        await panel.locator(`#history .step-row[data-step="${st}"]`).click();
        await until(() => panel.evaluate((s) => window.slopPanel.historyShown() === s, st), { what: `step ${st} shown` });
        await until(() => panel.evaluate((l) => document.querySelector('#tree .row[data-path="/c"] .nsum')?.textContent === l, `count ${want - 1}`), { what: `step ${st}: count ${want - 1}` });
      }
      const gapDiff = await panel.evaluate(() => window.slopPanel.lastDiff);
      assert.ok(gapDiff.changed.includes('/c'), 'the resume step diffs against the step before the pause');

      // The filter: "/hot" lists only the steps that touched /hot (snapshots may touch anything).
      await panel.focus('#history .steps');
      await panel.keyboard.press('Escape');
      await until(() => panel.evaluate(() => window.slopPanel.historyShown() === null), { what: 'live again' });
      await panel.fill('#history [data-role="steps-filter"]', '/hot');
      await until(async () => /^[\d,]+ of [\d,]+ steps$/.test(await panel.textContent('#history [data-role="steps-count"]')), { what: '"N of M steps"' });
      const rows = await panel.evaluate(() => [...document.querySelectorAll('#history .step-row')].map((r) => ({ kind: r.dataset.kind, title: r.querySelector('.step-text').title })));
      assert.ok(rows.length > 3);
      for (const r of rows) assert.ok(r.kind === 'snapshot' || /^\/hot$/m.test(r.title), `a /hot step: ${JSON.stringify(r)}`);
      const [shownN, totalN] = (await panel.textContent('#history [data-role="steps-count"]')).split(' of ').map((x) => Number.parseInt(x.replace(/,/g, ''), 10));
      assert.ok(shownN < totalN / 5, `${shownN} of ${totalN}`);
      // ↓ / ↑ move among the filtered steps.
      const hot = await panel.evaluate(() => [...document.querySelectorAll('#history .step-row[data-kind="patch"]')].map((r) => Number(r.dataset.step)));
      await panel.locator(`#history .step-row[data-step="${hot[1]}"]`).click();
      await until(() => panel.evaluate((s) => window.slopPanel.historyShown() === s, hot[1]), { what: 'a /hot step shown' });
      await panel.focus('#history .steps');
      await panel.keyboard.press('ArrowDown');
      await until(() => panel.evaluate((s) => window.slopPanel.historyShown() === s, hot[2]), { what: '↓: the next /hot step' });
      await panel.keyboard.press('ArrowUp');
      await until(() => panel.evaluate((s) => window.slopPanel.historyShown() === s, hot[1]), { what: '↑: the /hot step before' });
      // Kinds: patches off leaves the snapshots (the first, and the resume step).
      await panel.click('#history .steps-kind[data-kind="patch"]');
      await until(() => panel.evaluate(() => [...document.querySelectorAll('#history .step-row')].every((r) => r.dataset.kind === 'snapshot')), { what: 'only snapshot rows' });
      for (const theme of ['light', 'dark']) {
        await panel.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
        for (const [w, hgt] of [[1280, 800], [700, 600], [320, 700]]) {
          await panel.setViewportSize({ width: w, height: hgt });
          await panel.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
          await panel.screenshot({ path: path.join(SHOTS, `filtered-${w}-${theme}.png`) });
        }
      }
    } finally {
      await stopStream();
    }
    await panel.close();
  });
});
