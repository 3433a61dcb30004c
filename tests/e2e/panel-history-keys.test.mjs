// The history's keys and its five places (tree, banner, strip, step list, diff) naming one step:
// ← / → step and Esc goes back to live; a viewed step that the worker's 1,000-step bound reaches
// under load is kept (held by the panel) and stays shown; live, a step chosen shows its own diff
// (its version against the step before it) and the list selects the step whose diff is shown.
//
// The provider is a StateEngine whose counter node /c carries label "count N" with N = version - 1
// (one patch a step), so the tree row says which version is shown.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs/promises';
import { StateEngine } from '../fixtures/provider/state.mjs';
import { browserOnProvider, startProvider, openPanel, until, sleep, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');

/** In the panel, in one turn: what each of the five places names. */
function places() {
  const sp = window.slopPanel;
  const banner = document.querySelector('#banner');
  const sel = document.querySelector('#history .step-row.selected');
  const d = sp.lastDiff;
  const steps = sp.history()?.steps ?? [];
  return {
    shown: sp.historyShown(),
    steps: steps.map((s) => [s.step, s.version]),
    dropped: sp.history()?.info?.dropped ?? 0,
    banner: banner.hidden ? null : { kind: banner.dataset.kind, text: banner.textContent },
    strip: document.querySelector('#history-strip [data-role="history-label"]').textContent,
    slider: Number(document.querySelector('#history-strip input[type="range"]').value),
    liveDisabled: document.querySelector('#history-strip [data-action="h-live"]').disabled,
    selected: sel ? Number(sel.dataset.step) : null,
    diff: d ? { fromStep: d.fromStep, toStep: d.toStep, from: d.from, to: d.to } : null,
    diffHead: document.querySelector('#history .diff-head h3')?.textContent ?? null,
    tree: document.querySelector('#tree .row[data-path="/c"] .nsum')?.textContent ?? null,
    liveVersion: sp.currentTree()?.version ?? null,
  };
}

/**
 * places(), as painted: read right after a frame's rendering (the tree renders as a delta comes,
 * the strip, banner and list once per frame: between two frames they may differ, on screen never),
 * and only when no tree change or step came between that frame and the read.
 */
async function paintedPlaces(places) {
  const mark = () => `${window.slopPanel.currentTree()?.version} ${window.slopPanel.history()?.stamp}`;
  for (let k = 0; k < 100; k++) {
    const r = await new Promise((resolve) => requestAnimationFrame(() => {
      const m = mark();
      setTimeout(() => resolve(mark() === m ? places() : null), 0);
    }));
    if (r) return r;
  }
  throw new Error('no frame without a change in between');
}
const painted = (panel) => panel.evaluate(`(${paintedPlaces.toString()})(${places.toString()})`);

/** The five places agree on step `step` (scrubbed). */
function assertViewing(p, step) {
  const i = p.steps.findIndex(([s]) => s === step);
  assert.ok(i >= 0, `step ${step} is in the list`);
  const v = p.steps[i][1];
  assert.equal(p.shown, step, 'the step shown');
  assert.equal(p.banner?.kind, 'scrub');
  // Named by version, kind and time, never by its position (which moves as old steps go).
  assert.match(p.banner.text, new RegExp(`^Viewing version ${v} \\([a-z]+ at \\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\)`));
  assert.match(p.strip, new RegExp(`^v${v} · \\d\\d:\\d\\d:\\d\\d\\.\\d{3} · [a-z]+$`));
  assert.equal(p.slider, i);
  assert.equal(p.liveDisabled, false);
  assert.equal(p.selected, step, 'the list selects it');
  assert.equal(p.tree, `count ${v - 1}`, 'the tree shows its state');
  if (i > 0) {
    assert.deepEqual(p.diff, { fromStep: p.steps[i - 1][0], toStep: step, from: p.steps[i - 1][1], to: v }, 'the diff is of that step');
    assert.equal(p.diffHead, `Diff v${p.steps[i - 1][1]} → v${v}`);
  }
}

/** Live: the tree and the strip name the live state; the list selects the step whose diff is shown. */
function assertLive(p, { settled = true } = {}) {
  assert.equal(p.shown, null);
  assert.ok(p.banner === null || p.banner.kind === 'scrub-dropped', JSON.stringify(p.banner));
  assert.ok(p.strip.startsWith(`live · v${p.liveVersion} · `), p.strip);
  assert.equal(p.liveDisabled, true);
  assert.equal(p.slider, p.steps.length - 1);
  assert.equal(p.tree, `count ${p.liveVersion - 1}`);
  assert.ok(p.diff, 'a diff is shown');
  assert.equal(p.selected, p.diff.toStep, 'the list selects the step whose diff is shown');
  const i = p.steps.findIndex(([s]) => s === p.diff.toStep);
  assert.ok(i > 0, 'the diffed step is in the list');
  assert.deepEqual(p.diff, { fromStep: p.steps[i - 1][0], toStep: p.steps[i][0], from: p.steps[i - 1][1], to: p.steps[i][1] });
  if (settled) {
    assert.equal(p.diff.toStep, p.steps.at(-1)[0], 'quiet: the newest step');
    assert.equal(p.steps.at(-1)[1], p.liveVersion);
  }
}

describe('history keys and agreement', () => {
  let browser;
  let srv;
  let tabId;
  const tick = () => srv.engine.mutate((r) => {
    const c = r.children.find((x) => x.id === 'c');
    c.properties.n += 1;
    c.properties.label = `count ${c.properties.n}`;
  });

  before(async () => {
    srv = await startProvider({ engine: new StateEngine({
      id: 'keys', name: 'History keys',
      tree: { id: 'root', type: 'root', properties: { label: 'Keys' }, children: [{ id: 'c', type: 'status', properties: { label: 'count 0', n: 0 } }] },
    }) });
    ({ browser, tabId } = await browserOnProvider(srv));
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('← and → step through the history and Esc returns to live; tree, banner, strip, list and diff agree; ← in the tree is the tree\'s', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/c"]', { timeout: 10_000 });
    for (let i = 0; i < 4; i++) {
      tick();
      await until(() => panel.evaluate((v) => window.slopPanel.currentTree()?.version === v, srv.engine.version), { what: `v${srv.engine.version}` });
    }
    await panel.click('#toggle-history');
    await until(async () => (await painted(panel)).steps.length === 5 && (await painted(panel)).diff?.toStep === (await painted(panel)).steps[4][0], { what: 'five steps and the newest one\'s diff' });
    assertLive(await painted(panel));
    const steps = (await painted(panel)).steps.map(([s]) => s);
    assert.match(await panel.getAttribute('#history-strip [data-action="h-prev"]', 'title'), /←/);
    assert.match(await panel.getAttribute('#history-strip [data-action="h-live"]', 'title'), /Esc/);

    // The focus is on the bar's History button: ← is the history's.
    await panel.keyboard.press('ArrowLeft');
    await until(() => panel.evaluate((s) => window.slopPanel.historyShown() === s, steps[3]), { what: 'the step before the newest' });
    assertViewing(await painted(panel), steps[3]);
    await panel.keyboard.press('ArrowLeft');
    await panel.keyboard.press('ArrowLeft');
    await until(() => panel.evaluate((s) => window.slopPanel.historyShown() === s, steps[1]), { what: 'two steps further back' });
    assertViewing(await painted(panel), steps[1]);
    await panel.keyboard.press('ArrowRight');
    await until(() => panel.evaluate((s) => window.slopPanel.historyShown() === s, steps[2]), { what: 'one step forward' });
    assertViewing(await painted(panel), steps[2]);
    for (const [w, hgt] of [[1280, 800], [320, 600]]) {
      for (const scheme of ['light', 'dark']) {
        await panel.emulateMedia({ colorScheme: scheme });
        await panel.setViewportSize({ width: w, height: hgt });
        await panel.screenshot({ path: path.join(SHOTS, `panel-history-keys-${w}-${scheme}.png`) });
      }
    }
    await panel.emulateMedia({ colorScheme: 'light' });
    await panel.setViewportSize({ width: 1280, height: 800 });

    // In the tree, ← and → fold and unfold: the history stays where it is.
    await panel.click('#tree .row[data-path="/c"]');
    await panel.keyboard.press('ArrowLeft');
    await panel.keyboard.press('ArrowRight');
    await sleep(300);
    assert.equal(await panel.evaluate(() => window.slopPanel.historyShown()), steps[2], 'the tree kept its keys');

    // Esc: live again, wherever the focus is (but a text field).
    await panel.keyboard.press('Escape');
    await until(() => panel.evaluate(() => window.slopPanel.historyShown() === null && document.querySelector('#banner').hidden), { what: 'live again' });
    await until(async () => (await painted(panel)).diff?.toStep === steps[4], { what: 'the newest step\'s diff' });
    assertLive(await painted(panel));
    // In the search field, ← moves the caret, not the history.
    await panel.focus('#search');
    await panel.keyboard.press('ArrowLeft');
    await sleep(200);
    assert.equal(await panel.evaluate(() => window.slopPanel.historyShown()), null);
    await panel.close();
  });

  test('H from the tree: the focus goes to the step list, where ← / → step; H again: back to the tree, where ← / → are the tree\'s (issue 45)', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/c"]', { timeout: 10_000 });
    for (let i = 0; i < 3; i++) {
      tick();
      await until(() => panel.evaluate((v) => window.slopPanel.currentTree()?.version === v, srv.engine.version), { what: `v${srv.engine.version}` });
    }
    const focus = () => panel.evaluate(() => ({ id: document.activeElement?.id || null, role: document.activeElement?.getAttribute('role') ?? null,
      list: !!document.activeElement?.closest('#history [data-role="steps"]') }));
    await panel.click('#tree .row[data-path="/"]');
    assert.equal((await focus()).id, 'tree');
    await panel.keyboard.press('h');
    await panel.locator('#history-strip:not([hidden])').waitFor({ timeout: 2000 });
    assert.deepEqual(await focus(), { id: null, role: 'listbox', list: true }, 'H put the focus in the History step list');
    await until(async () => (await painted(panel)).steps.length >= 3, { what: 'the steps' });
    const steps = (await painted(panel)).steps.map(([s]) => s);
    const expanded = () => panel.locator('#tree .row[data-path="/"]').getAttribute('aria-expanded');
    const before = await expanded();
    await panel.keyboard.press('ArrowLeft');
    await until(() => panel.evaluate((s) => window.slopPanel.historyShown() === s, steps.at(-2)), { what: '← stepped back' });
    await panel.keyboard.press('ArrowLeft');
    await until(() => panel.evaluate((s) => window.slopPanel.historyShown() === s, steps.at(-3)), { what: '← again' });
    await panel.keyboard.press('ArrowRight');
    await until(() => panel.evaluate((s) => window.slopPanel.historyShown() === s, steps.at(-2)), { what: '→ stepped forward' });
    assert.equal(await expanded(), before, 'no tree row folded');
    await panel.screenshot({ path: path.join(SHOTS, 'panel-history-focus-list-1280-light.png') });
    // H again: the History closes, the focus is back in the tree, and ← / → are the tree's there.
    await panel.keyboard.press('h');
    await panel.locator('#history-strip').waitFor({ state: 'hidden', timeout: 2000 });
    assert.equal((await focus()).id, 'tree', 'H gave the focus back to the tree');
    // The tree's keys again: → goes to the root's first child, ← back to its parent.
    const active = () => panel.evaluate(() => document.getElementById(document.querySelector('#tree').getAttribute('aria-activedescendant'))?.dataset.path);
    await panel.keyboard.press('ArrowRight');
    await until(async () => (await active()) === '/c', { what: '→ in the tree: its first child' });
    await panel.keyboard.press('ArrowLeft');
    await until(async () => (await active()) === '/', { what: '← in the tree: its parent' });
    assert.equal(await panel.evaluate(() => window.slopPanel.historyShown()), null, 'live: the History closed');
    await panel.close();
  });

  test('live under load, a step chosen shows its own diff, and the list selects the step whose diff is shown', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/c"]', { timeout: 10_000 });
    await panel.click('#toggle-history');
    await until(async () => (await painted(panel)).diff, { what: 'a diff' });
    let streaming = true;
    const stream = (async () => {
      while (streaming) {
        tick();
        await sleep(15);
      }
    })();
    try {
      await sleep(500);
      // Sampled in one turn each, while steps keep coming: the list and the diff name one step.
      for (let k = 0; k < 8; k++) {
        assertLive(await painted(panel), { settled: false });
        await sleep(70);
      }
      // Click steps a little back from the newest: each shows its own diff with its state.
      for (let k = 0; k < 4; k++) {
        const step = await panel.evaluate(() => {
          const rows = [...document.querySelectorAll('#history .step-row')];
          const row = rows.at(-4);
          row.click();
          return Number(row.dataset.step);
        });
        await until(() => panel.evaluate((s) => window.slopPanel.historyShown() === s, step), { what: `step ${step} shown` });
        assertViewing(await painted(panel), step);
        await panel.keyboard.press('Escape');
        await until(() => panel.evaluate(() => window.slopPanel.historyShown() === null), { what: 'live' });
        await sleep(150);
      }
    } finally {
      streaming = false;
      await stream;
    }
    await until(async () => {
      const p = await painted(panel);
      return p.steps.at(-1)[1] === srv.engine.version && p.diff?.toStep === p.steps.at(-1)[0] && p.liveVersion === srv.engine.version;
    }, { what: 'the newest step\'s diff once quiet' });
    assertLive(await painted(panel));
    await panel.close();
  });

  test('a viewed step that the 1,000-step bound reaches under load is kept: the panel stays on it, the five places agree; released, it goes at the next drop', { timeout: 180_000 }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/c"]', { timeout: 10_000 });
    await panel.click('#toggle-history');
    await until(async () => (await painted(panel)).steps.length > 3, { what: 'the steps' });
    // View the oldest step kept.
    await panel.evaluate(() => window.slopPanel.scrubTo(0));
    const first = (await painted(panel)).steps[0][0];
    await until(() => panel.evaluate((s) => window.slopPanel.historyShown() === s, first), { what: 'the oldest step shown' });
    assertViewing(await painted(panel), first);

    // More than 1,000 patches, fast: the bound drops the oldest quarter, but the viewed step is
    // held (the panel told the worker): it stays, kept past the bound, and so does the view.
    const sent = 1100;
    for (let k = 0; k < sent; k++) {
      tick();
      if (k % 20 === 19) await sleep(5);
    }
    await until(() => panel.evaluate(() => window.slopPanel.history()?.info?.dropped > 0), { what: 'steps dropped at the bound', timeout: 60_000 });
    await until(() => panel.evaluate((v) => window.slopPanel.currentTree()?.version === v, srv.engine.version), { what: 'the live tree caught up', timeout: 60_000 });
    const p = await painted(panel);
    assert.equal(p.steps[0][0], first, 'the viewed step is still listed first');
    assert.ok(p.steps[1][0] > first + 1, 'the steps after it were dropped');
    assert.ok(p.steps.length <= 1001);
    assertViewing(p, first);
    for (const [w, scheme] of [[1280, 'light'], [320, 'dark']]) {
      await panel.emulateMedia({ colorScheme: scheme });
      await panel.setViewportSize({ width: w, height: 600 });
      await panel.screenshot({ path: path.join(SHOTS, `panel-history-kept-${w}-${scheme}.png`) });
    }
    await panel.emulateMedia({ colorScheme: 'light' });
    await panel.setViewportSize({ width: 1280, height: 800 });

    // Esc: live again; the step is released and goes at the next drop, without a note.
    await panel.locator('#history .steps').focus();
    await panel.keyboard.press('Escape');
    await until(() => panel.evaluate(() => window.slopPanel.historyShown() === null), { what: 'live again' });
    // The focus leaves the list: it follows the newest step again (it holds still while focused).
    await panel.evaluate(() => /** @type {HTMLElement} */ (document.activeElement)?.blur());
    for (let k = 0; k < 400; k++) {
      tick();
      if (k % 20 === 19) await sleep(5);
    }
    await until(async () => (await painted(panel)).steps[0][0] !== first, { what: 'the released step gone at the next drop', timeout: 60_000 });
    await until(() => panel.evaluate((v) => window.slopPanel.currentTree()?.version === v, srv.engine.version), { what: 'the live tree caught up', timeout: 60_000 });
    await panel.locator('#banner').waitFor({ state: 'hidden', timeout: 5000 });
    assertLive(await until(async () => {
      const x = await painted(panel);
      return x.diff?.toStep === x.steps.at(-1)[0] ? x : null;
    }, { what: 'the newest step\'s diff' }));
    await panel.close();
  });
});
