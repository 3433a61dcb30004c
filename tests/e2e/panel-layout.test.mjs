// The panel as a DevTools tool: at every size DevTools gives it (320 px docked right to a 4K
// window, docked at the bottom 300 px high), nothing overflows its box and no toolbar wraps into a
// second row; the splitters move the panes and the panel remembers where they were left; the log
// collapses to its bar; the bar's icons are images, not characters a font may draw as emoji; the
// bar's keys. Screenshots of each size, light and dark, go to build/screenshots/.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { browserOnProvider, startProvider, openPanel, until, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');

/** Elements of the bars that stick out of their bar, or bars taller than one row. */
function overflows(panel) {
  return panel.evaluate(() => {
    const bad = [];
    for (const sel of ['#bar', '#tree-toolbar', '#side-tabs', '#history-strip', '.log-toolbar']) {
      const bar = document.querySelector(sel);
      if (!bar || bar.hidden || !bar.offsetParent) continue;
      const box = bar.getBoundingClientRect();
      if (box.height > 34) bad.push(`${sel} is ${Math.round(box.height)} px high (more than one row)`);
      for (const el of bar.children) {
        if (el.hidden || !el.offsetParent || getComputedStyle(el).display === 'none') continue;
        const r = el.getBoundingClientRect();
        if (r.width === 0) continue;
        if (r.right > box.right + 1 || r.left < box.left - 1 || r.bottom > box.bottom + 1) {
          bad.push(`${sel} > ${el.id || el.dataset.action || el.className || el.tagName} (${Math.round(r.left)}..${Math.round(r.right)} in ${Math.round(box.left)}..${Math.round(box.right)})`);
        }
      }
    }
    if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1) bad.push('the page scrolls sideways');
    return bad;
  });
}

describe('panel layout', () => {
  let browser, srv, tabId;

  before(async () => {
    srv = await startProvider({ engine: createMailEngine({ messages: 60 }) });
    ({ browser, tabId } = await browserOnProvider(srv));
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('from 320 px to 4K, docked right or at the bottom, light and dark: nothing overflows, no toolbar wraps', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/inbox"]', { timeout: 10_000 });
    await panel.evaluate(() => window.slopPanel.reveal('/inbox/msg-3'));
    await panel.click('#toggle-history');
    await panel.click('#toggle-log');
    const sizes = [[320, 600], [480, 800], [700, 500], [1280, 300], [1280, 800], [1920, 1080], [3840, 2160]];
    for (const [w, h] of sizes) {
      for (const scheme of ['light', 'dark']) {
        await panel.setViewportSize({ width: w, height: h });
        await panel.emulateMedia({ colorScheme: scheme });
        await panel.waitForTimeout(50);
        assert.deepEqual(await overflows(panel), [], `${w}x${h} ${scheme}`);
        if (w <= 1920) await panel.screenshot({ path: path.join(SHOTS, `panel-layout-${w}x${h}-${scheme}.png`) });
      }
    }
    await panel.emulateMedia({ colorScheme: 'light' });
    await panel.close();
  });

  test('the splitters move the panes, by pointer or keys; the panel remembers them; double-click resets; the log collapses to its bar', { timeout: TEST_TIMEOUT }, async () => {
    let panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.setViewportSize({ width: 1280, height: 800 });
    await panel.waitForSelector('#tree .row[data-path="/inbox"]', { timeout: 10_000 });
    const width = () => panel.locator('#tree-pane').evaluate((e) => e.getBoundingClientRect().width);
    const w0 = await width();
    const s = await panel.locator('#split').boundingBox();
    await panel.mouse.move(s.x + s.width / 2, s.y + 100);
    await panel.mouse.down();
    await panel.mouse.move(s.x + s.width / 2 - 200, s.y + 100, { steps: 5 });
    await panel.mouse.up();
    assert.ok(Math.abs((await width()) - (w0 - 200)) <= 2, `dragged 200 px to the left: ${w0} → ${await width()}`);
    await panel.locator('#split').focus();
    await panel.keyboard.press('ArrowRight');
    assert.ok(Math.abs((await width()) - (w0 - 176)) <= 2, 'an arrow key moves it 24 px');

    await panel.click('#toggle-log');
    const logH = () => panel.locator('#log').evaluate((e) => e.getBoundingClientRect().height);
    const h0 = await logH();
    const ls = await panel.locator('#log-split').boundingBox();
    await panel.mouse.move(ls.x + 300, ls.y + ls.height / 2);
    await panel.mouse.down();
    await panel.mouse.move(ls.x + 300, ls.y + ls.height / 2 - 100, { steps: 5 });
    await panel.mouse.up();
    assert.ok(Math.abs((await logH()) - (h0 + 100)) <= 2, `the log 100 px higher: ${h0} → ${await logH()}`);
    await panel.click('#log [data-action="collapse-log"]');
    assert.ok((await logH()) <= 32, 'collapsed to its bar');
    assert.equal(await panel.locator('#log-split').isHidden(), true);
    const kept = await width();
    await panel.close();

    // A panel opened again finds them where they were left.
    panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.setViewportSize({ width: 1280, height: 800 });
    await panel.waitForSelector('#tree .row[data-path="/inbox"]', { timeout: 10_000 });
    assert.ok(Math.abs((await width()) - kept) <= 2, 'the splitter is remembered');
    await panel.click('#toggle-log');
    assert.ok((await logH()) > 100, 'opened from the bar, the log shows whole again');
    assert.ok(Math.abs((await logH()) - (h0 + 100)) <= 2, 'at the height it was left');
    await panel.dblclick('#split');
    assert.ok(Math.abs((await width()) - w0) <= 2, 'double-click: back to the default');
    // Docked right: the details go under the tree and the splitter turns.
    await panel.setViewportSize({ width: 480, height: 800 });
    await until(async () => (await panel.locator('#split').getAttribute('aria-orientation')) === 'horizontal', { what: 'the splitter turned' });
    await panel.close();
  });

  test('the bar: icons are images (the same in every browser and font), each with a tooltip; one status indicator; its keys', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/inbox"]', { timeout: 10_000 });
    const buttons = await panel.$$eval('#bar button.tb', (bs) => bs.map((b) => ({
      id: b.id, text: b.textContent, title: b.title, label: b.getAttribute('aria-label'),
      mask: getComputedStyle(b, '::before').maskImage || getComputedStyle(b, '::before').webkitMaskImage,
    })));
    assert.ok(buttons.length >= 6);
    for (const b of buttons) {
      assert.equal(b.text, '', `${b.id} draws no character`);
      assert.ok(b.title && b.label, `${b.id} has a tooltip and a name`);
      assert.match(b.mask, /url\(.*\.svg/, `${b.id} is an SVG icon`);
    }
    // No emoji or pictographs anywhere in the panel's own text.
    const pictographs = await panel.evaluate(() => /[\u{1F300}-\u{1FAFF}\u{2600}-\u{27BF}]/u.test(document.body.innerText));
    assert.equal(pictographs, false);
    assert.equal(await panel.locator('#bar .status-ind').count(), 1, 'one status indicator');
    assert.equal(await panel.locator('#status').getAttribute('data-status'), 'connected');
    assert.match(await panel.locator('#status').getAttribute('title'), /ws:\/\/127\.0\.0\.1:\d+\/slop/);
    // Keys: H opens the history, L the log, / the search; not while typing in a field.
    await panel.locator('#tree').focus();
    await panel.keyboard.press('h');
    await panel.locator('#history-strip:not([hidden])').waitFor({ timeout: 2000 });
    await panel.keyboard.press('l');
    assert.equal(await panel.locator('#toggle-log').getAttribute('aria-pressed'), 'true');
    await panel.keyboard.press('/');
    assert.equal(await panel.evaluate(() => document.activeElement?.id), 'search');
    await panel.keyboard.type('hl');
    assert.equal(await panel.locator('#toggle-log').getAttribute('aria-pressed'), 'true', 'typing in the search box is typing');
    assert.equal(await panel.locator('#search').inputValue(), 'hl');
    await panel.close();
  });

  test('at 320 px with Local apps on (and every optional button shown, and a long name): one row, the rest in the More menu (issue 45)', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/inbox"]', { timeout: 10_000 });
    // Local apps on shows its button (local-apps.js); turning it on for real needs the optional
    // nativeMessaging permission granted (local-apps.test.mjs builds a copy of the extension for that).
    await panel.evaluate(() => { document.getElementById('toggle-local').hidden = false; });
    const bar = () => panel.evaluate(() => {
      const b = document.getElementById('bar');
      return { height: Math.round(b.getBoundingClientRect().height), fold: b.dataset.fold, more: !document.getElementById('bar-more').hidden };
    });
    for (const [w, scheme] of [[320, 'light'], [320, 'dark'], [480, 'light'], [700, 'dark'], [1280, 'light']]) {
      await panel.setViewportSize({ width: w, height: 600 });
      await panel.emulateMedia({ colorScheme: scheme });
      await panel.waitForTimeout(50);
      assert.deepEqual(await overflows(panel), [], `${w} px, Local apps on`);
      const b = await bar();
      assert.ok(b.height <= 30, `${w} px: one row (${JSON.stringify(b)})`);
      await panel.screenshot({ path: path.join(SHOTS, `panel-bar-local-${w}-${scheme}.png`), clip: { x: 0, y: 0, width: w, height: 120 } });
    }
    // The worst case: every optional button shown, the MUST badge, a name longer than the bar.
    await panel.evaluate(() => {
      for (const id of ['send-string', 'conf-badge']) document.getElementById(id).hidden = false;
      document.getElementById('send-string').setAttribute('aria-label', 'Send to String');
      document.getElementById('conf-badge').textContent = '12 MUST';
      document.getElementById('provider').options[0].text = 'A provider with a very long name indeed (ws://127.0.0.1:3737/slop)';
      dispatchEvent(new Event('resize'));
    });
    for (const w of [320, 480]) {
      await panel.setViewportSize({ width: w, height: 600 });
      await panel.waitForTimeout(50);
      assert.deepEqual(await overflows(panel), [], `${w} px, every button shown`);
      const b = await bar();
      assert.deepEqual(b, { height: b.height, fold: 'true', more: true }, `${w} px: folded into More`);
      assert.ok(b.height <= 30, `${w} px: one row`);
    }
    await panel.screenshot({ path: path.join(SHOTS, 'panel-bar-folded-480.png'), clip: { x: 0, y: 0, width: 480, height: 120 } });
    // The menu: the folded buttons by name (for screen readers too), toggles with their state; by keys.
    await panel.locator('#bar-more').focus();
    await panel.keyboard.press('Enter');
    const menu = panel.locator('.row-menu[role="menu"][aria-label="More"]');
    await menu.waitFor({ timeout: 2000 });
    assert.equal(await panel.locator('#bar-more').getAttribute('aria-expanded'), 'true');
    assert.deepEqual(await menu.locator('.menu-label').allTextContents(), ['Export', 'Import', 'Connect to a provider', 'Local apps', 'Send to String']);
    assert.equal(await menu.locator('[data-action="toggle-connect"]').getAttribute('role'), 'menuitemcheckbox');
    assert.equal(await menu.locator('[data-action="toggle-connect"]').getAttribute('aria-checked'), 'false');
    await panel.screenshot({ path: path.join(SHOTS, 'panel-bar-more-menu-480.png'), clip: { x: 0, y: 0, width: 480, height: 240 } });
    await panel.keyboard.press('ArrowDown');
    await panel.keyboard.press('ArrowDown');
    await panel.keyboard.press('Enter');
    await panel.locator('#connect-strip:not([hidden])').waitFor({ timeout: 2000 });
    assert.equal(await panel.locator('#toggle-connect').getAttribute('aria-pressed'), 'true');
    assert.equal(await panel.locator('#bar-more').getAttribute('aria-expanded'), 'false');
    // Wide again: the buttons are back in the bar, no More.
    await panel.evaluate(() => { document.getElementById('provider').options[0].text = 'Mail'; dispatchEvent(new Event('resize')); });
    await panel.setViewportSize({ width: 1280, height: 600 });
    await panel.waitForTimeout(50);
    assert.deepEqual(await bar(), { height: (await bar()).height, fold: 'false', more: false });
    await panel.emulateMedia({ colorScheme: 'light' });
    await panel.close();
  });
});
