// What a DevTools user expects of the tree and the log: a row's context menu (copy path, node as
// JSON, value; expand / collapse below; select in the log; never an invoke), opened by the mouse,
// the ContextMenu key or Shift+F10, closed by Esc; breadcrumbs of the selected path that select
// an ancestor and fit at 320 px; collapse all (Shift+←) and collapse below (-); filters that hide
// rows (by node type, by "changed since step N" as the worker's history answers), keeping the
// ancestors; the log's text filter, inverted and as a regular expression (a bad one marks the
// field); compact rows (18 px, remembered) with the row under the pointer still the one clicked.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs/promises';
import { StateEngine } from '../fixtures/provider/state.mjs';
import { browserOnProvider, startProvider, openPanel, until, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');

const msg = (i, extra = {}) => ({ id: `m${i}`, type: 'message', properties: { label: `Message ${i}`, unread: i % 2 === 0 }, affordances: [{ action: 'delete', label: 'Delete', dangerous: true }], ...extra });

function tree() {
  let deep = { id: 'a-rather-long-leaf-identifier', type: 'leaf', properties: { label: 'Deep leaf' } };
  for (let d = 6; d >= 1; d--) deep = { id: `level-${d}-section`, type: 'group', properties: { label: `Level ${d}` }, children: [deep] };
  return {
    id: 'mail', type: 'root', properties: { label: 'Mail' },
    children: [
      { id: 'inbox', type: 'collection', properties: { label: 'Inbox' }, children: [
        msg(1, { children: [{ id: 'att', type: 'attachment', properties: { label: 'report.pdf', size: 1200 } }] }),
        msg(2), msg(3), msg(4), msg(5),
      ] },
      { id: 'settings', type: 'form', properties: { label: 'Settings' }, children: [
        { id: 'theme', type: 'field', properties: { label: 'Theme', value: 'dark' } },
        { id: 'lang', type: 'field', properties: { label: 'Language', value: 'en' } },
      ] },
      { id: 'deep', type: 'group', properties: { label: 'Deep' }, children: [deep] },
      { id: 'status', type: 'status', properties: { label: 'Status', ticks: 0 } },
    ],
  };
}

const DEEP_LEAF = '/deep/level-1-section/level-2-section/level-3-section/level-4-section/level-5-section/level-6-section/a-rather-long-leaf-identifier';

describe('panel: what DevTools users expect', () => {
  let browser;
  let srv;
  let tabId;
  const errors = [];

  before(async () => {
    srv = await startProvider({ engine: new StateEngine({ id: 'devtools', name: 'DevTools fixture', tree: tree() }) });
    ({ browser, tabId } = await browserOnProvider(srv));
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  async function panelOpen() {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    panel.on('pageerror', (e) => errors.push(e.message));
    await panel.waitForSelector('#tree .row[data-path="/inbox/m1"]', { timeout: 10_000 });
    await until(() => panel.evaluate(() => window.slopPanel.currentTree()?.complete), { what: 'the whole mirror' });
    return panel;
  }
  const rowPaths = (panel) => panel.locator('#tree .row[data-path]').evaluateAll((els) => els.map((e) => e.dataset.path));
  const selected = (panel) => panel.evaluate(() => window.slopPanel.selection()?.path ?? null);
  const copied = (panel, what) => until(() => panel.evaluate((w) => window.slopPanel.lastCopied?.what === w && window.slopPanel.lastCopied.text, what), { what: `the copy of ${what}` });
  const menuItems = (panel) => panel.locator('.row-menu [role="menuitem"]').evaluateAll((els) => els.map((e) => ({ id: e.dataset.action, label: e.textContent, disabled: e.getAttribute('aria-disabled') === 'true' })));
  const focusedAction = (panel) => panel.evaluate(() => document.activeElement?.dataset.action ?? document.activeElement?.id ?? null);

  test('context menu: each item does what it says; keyboard opens it, Esc closes it; it never invokes', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await panelOpen();
    await panel.click('#tree .row[data-path="/inbox/m2"] .nid', { button: 'right' });
    await panel.locator('.row-menu').waitFor();
    assert.equal(await selected(panel), '/inbox/m2', 'a right-click selects the row');
    const items = await menuItems(panel);
    assert.deepEqual(items.map((i) => i.id), ['copy-path', 'copy-json', 'copy-value', 'expand-below', 'collapse-below', 'collapse-all', 'select-in-log']);
    assert.ok(items.every((i) => !/invoke|delete/i.test(`${i.id} ${i.label}`)), 'no item invokes (m2 has a "delete" affordance)');
    assert.deepEqual(items.filter((i) => i.disabled).map((i) => i.id), ['expand-below', 'collapse-below'], 'a leaf has nothing below it');
    await panel.click('.row-menu [data-action="copy-path"]');
    assert.equal(await copied(panel, 'path'), '/inbox/m2');
    assert.equal(await panel.locator('.row-menu').count(), 0, 'a choice closes the menu');

    await panel.click('#tree .row[data-path="/inbox/m2"]', { button: 'right' });
    await panel.click('.row-menu [data-action="copy-value"]');
    assert.deepEqual(JSON.parse(await copied(panel, '/inbox/m2 properties')), { label: 'Message 2', unread: true });

    // Keyboard: Shift+F10 on the selected row; the first item has the focus; ↓ Enter copies the JSON.
    await panel.click('#tree .row[data-path="/inbox/m1"]');
    await panel.keyboard.press('Shift+F10');
    await panel.locator('.row-menu').waitFor();
    assert.equal(await focusedAction(panel), 'copy-path');
    await panel.keyboard.press('ArrowDown');
    assert.equal(await focusedAction(panel), 'copy-json');
    await panel.keyboard.press('Enter');
    const json = JSON.parse(await copied(panel, '/inbox/m1 as JSON'));
    assert.equal(json.id, 'm1');
    assert.deepEqual(json.children.map((c) => c.id), ['att'], 'the node and its subtree');
    assert.equal(await focusedAction(panel), 'tree', 'the focus is back on the tree');

    // The ContextMenu key opens it; Esc closes it and gives the focus back to the tree.
    await panel.keyboard.press('ContextMenu');
    await panel.locator('.row-menu').waitFor();
    await panel.keyboard.press('Escape');
    assert.equal(await panel.locator('.row-menu').count(), 0);
    assert.equal(await focusedAction(panel), 'tree');
    assert.equal(await panel.locator('#banner[data-kind="scrub"]').count(), 0);
    // A click elsewhere closes it too.
    await panel.click('#tree .row[data-path="/inbox"]', { button: 'right' });
    await panel.locator('.row-menu').waitFor();
    await panel.mouse.click(5, 5);
    assert.equal(await panel.locator('.row-menu').count(), 0);

    // Collapse all below, expand all below (the deep chain opens to its leaf).
    await panel.click('#tree .row[data-path="/inbox"]', { button: 'right' });
    await panel.click('.row-menu [data-action="collapse-below"]');
    await until(async () => !(await rowPaths(panel)).includes('/inbox/m1'), { what: 'the inbox collapsed' });
    await panel.click('#tree .row[data-path="/deep"]', { button: 'right' });
    await panel.click('.row-menu [data-action="expand-below"]');
    await until(async () => (await rowPaths(panel)).includes(DEEP_LEAF), { what: 'the deep chain open to its leaf' });
    await panel.click('#tree .row[data-path="/inbox"] .twisty');

    // Select in the log: the drawer opens on the frames that name the node, the newest selected.
    srv.engine.mutate((r) => { r.children[0].children[1].properties.label = 'Message 2, edited'; });
    await until(async () => /edited/.test(await panel.locator('#tree .row[data-path="/inbox/m2"]').textContent()), { what: 'the patch' });
    await panel.click('#tree .row[data-path="/inbox/m2"]', { button: 'right' });
    await panel.click('.row-menu [data-action="select-in-log"]');
    await panel.locator('#log:not([hidden])').waitFor();
    await until(async () => (await panel.locator('#log .log-row.selected').count()) === 1, { what: 'a frame selected' });
    assert.match(await panel.locator('#log .frame-json').textContent(), /"\/inbox\/m2\/properties\/label"/);
    assert.match(await panel.locator('#log input[data-filter="text"]').inputValue(), /inbox.*m2/);
    const types = await panel.locator('#log .log-row .ftype').allTextContents();
    assert.ok(types.length >= 1 && types.every((t) => t === 'patch' || t === 'batch'), `only frames that name /inbox/m2: ${types}`);
    assert.deepEqual(errors, []);
    await panel.close();
  });

  test('breadcrumbs: the selected path, each ancestor selects; at 320 px they give way from the root end', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await panelOpen();
    assert.equal(await panel.locator('#breadcrumbs').isHidden(), true, 'nothing selected, no crumbs');
    await panel.click('#tree .row[data-path="/inbox/m1"] .twisty');
    await panel.click('#tree .row[data-path="/inbox/m1/att"]');
    const crumbs = panel.locator('#breadcrumbs .crumb');
    assert.deepEqual(await crumbs.evaluateAll((els) => els.map((e) => e.dataset.path)), ['/', '/inbox', '/inbox/m1', '/inbox/m1/att']);
    assert.deepEqual(await panel.locator('#breadcrumbs .crumb-id').allTextContents(), ['mail', 'inbox', 'm1', 'att']);
    assert.equal(await panel.locator('#breadcrumbs .crumb[aria-current="location"]').getAttribute('data-path'), '/inbox/m1/att');
    await panel.click('#breadcrumbs .crumb[data-path="/inbox"]');
    assert.equal(await selected(panel), '/inbox');
    assert.deepEqual(await crumbs.evaluateAll((els) => els.map((e) => e.dataset.path)), ['/', '/inbox']);

    // Narrow and deep: the root end gives way to "…"; the selected crumb is whole in the bar.
    await panel.setViewportSize({ width: 320, height: 700 });
    await panel.evaluate((p) => window.slopPanel.reveal(p), DEEP_LEAF);
    await until(async () => (await panel.locator('#breadcrumbs .crumb.current').getAttribute('data-path')) === DEEP_LEAF, { what: 'the deep crumbs' });
    assert.equal(await panel.locator('#breadcrumbs .crumb-more').isVisible(), true, 'an ellipsis at the left');
    const fit = await panel.evaluate(() => {
      const bar = document.getElementById('breadcrumbs').getBoundingClientRect();
      const shown = [...document.querySelectorAll('#breadcrumbs .crumb')].filter((c) => !c.hidden);
      return { bar: [bar.left, bar.right], overflow: document.getElementById('breadcrumbs').scrollWidth - document.getElementById('breadcrumbs').clientWidth,
        first: shown[0]?.dataset.path, last: shown.at(-1).getBoundingClientRect().right, n: shown.length };
    });
    assert.ok(fit.overflow <= 1, `nothing sticks out (${fit.overflow} px)`);
    assert.ok(fit.last <= fit.bar[1] + 0.5, 'the selected crumb is inside the bar');
    assert.notEqual(fit.first, '/', 'the root crumb gave way');
    assert.ok(fit.n >= 2, 'the parent is still there to click');
    const parent = DEEP_LEAF.slice(0, DEEP_LEAF.lastIndexOf('/'));
    await panel.click(`#breadcrumbs .crumb[data-path="${parent}"]`);
    assert.equal(await selected(panel), parent);
    assert.deepEqual(errors, []);
    await panel.close();
  });

  test('collapse all (Shift+←) keeps the selection in view; - collapses the node and below', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await panelOpen();
    await panel.evaluate((p) => window.slopPanel.reveal(p), DEEP_LEAF);
    await panel.click('#tree .row[data-path="/inbox/m1"] .twisty');
    assert.ok((await rowPaths(panel)).includes('/inbox/m1/att'));
    await panel.evaluate((p) => window.slopPanel.reveal(p), '/deep/level-1-section/level-2-section');
    await panel.focus('#tree');
    await panel.keyboard.press('Shift+ArrowLeft');
    await until(async () => (await rowPaths(panel)).length === 5, { what: 'the tree collapsed to its first level' });
    assert.deepEqual(await rowPaths(panel), ['/', '/inbox', '/settings', '/deep', '/status']);
    assert.equal(await selected(panel), '/deep', 'the selection moved to its top-level ancestor');

    // "-": the node and everything below it (→ then shows the children closed).
    await panel.keyboard.press('*');
    assert.ok((await rowPaths(panel)).includes(DEEP_LEAF), '* opened everything below');
    await panel.keyboard.press('-');
    assert.deepEqual(await rowPaths(panel), ['/', '/inbox', '/settings', '/deep', '/status']);
    await panel.keyboard.press('ArrowRight');
    assert.deepEqual((await rowPaths(panel)).filter((p) => p.startsWith('/deep/')), ['/deep/level-1-section'], 'its children were closed too');
    await panel.close();
  });

  test('filter by type hides the rest, keeps the ancestors; changed since a step hides the unchanged, live', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await panelOpen();
    await panel.click('#tree-filter-btn');
    await panel.locator('#tree-filter').waitFor();
    await panel.selectOption('#tree-filter select[data-filter="type"]', 'attachment');
    await until(async () => (await rowPaths(panel)).join() === '/,/inbox,/inbox/m1,/inbox/m1/att', { what: 'only the attachment and its ancestors' });
    assert.match(await panel.locator('#tree-filter .tf-count').textContent(), /^1 match$/);
    assert.equal(await panel.locator('#tree .row[data-path="/inbox/m1"] .twisty.i').count(), 1, 'm1 shows its twisty (a child is shown)');
    assert.equal(await panel.locator('#tree .row[data-path="/inbox"]').getAttribute('aria-expanded'), 'true');
    assert.equal(await panel.locator('#tree-filter-btn.filtering').count(), 1, 'the button says a filter is on');
    await panel.selectOption('#tree-filter select[data-filter="type"]', 'field');
    await until(async () => (await rowPaths(panel)).join() === '/,/settings,/settings/theme,/settings/lang', { what: 'the fields and their form' });
    await panel.click('#tree-filter [data-action="clear-filter"]');
    await until(async () => (await rowPaths(panel)).includes('/status'), { what: 'every row again' });

    // Changed since the newest step: m3 (renamed), /settings and its new field; nothing else.
    const last = await until(() => panel.evaluate(() => window.slopPanel.history()?.steps.at(-1)?.step), { what: 'the history loaded by the strip' });
    srv.engine.mutate((r) => {
      r.children[0].children[2].properties.label = 'Message 3, renamed';
      r.children[1].children.push({ id: 'font', type: 'field', properties: { label: 'Font', value: 'mono' } });
    });
    await until(async () => (await rowPaths(panel)).includes('/settings/font'), { what: 'the patch in the tree' });
    await until(() => panel.evaluate((n) => window.slopPanel.history()?.steps.at(-1)?.step > n, last), { what: 'the patch in the history' });
    await panel.selectOption('#tree-filter select[data-filter="since"]', String(last));
    await until(async () => (await rowPaths(panel)).join() === '/,/inbox,/inbox/m3,/settings,/settings/font', { what: 'only what changed since that step, with ancestors' });
    assert.equal((await rowPaths(panel)).includes('/status'), false);
    // Live: a later change shows up in the filtered tree.
    srv.engine.mutate((r) => { r.children[3].properties.ticks = 1; });
    await until(async () => (await rowPaths(panel)).includes('/status'), { what: 'the status, changed since too' });
    // Both filters: changed since, and of type field.
    await panel.selectOption('#tree-filter select[data-filter="type"]', 'field');
    await until(async () => (await rowPaths(panel)).join() === '/,/settings,/settings/font', { what: 'changed fields only' });
    await panel.click('#tree-filter [data-action="clear-filter"]');
    await until(async () => (await rowPaths(panel)).includes('/inbox/m1'), { what: 'every row again' });
    assert.deepEqual(errors, []);
    await panel.close();
  });

  test('log filter: text, inverted, as a regular expression; a bad one marks the field, no exception', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await panelOpen();
    await panel.click('#toggle-log');
    const rows = panel.locator('#log .log-row');
    await until(async () => (await rows.count()) >= 3, { what: 'frames' });
    const all = await rows.locator('.ftype').allTextContents();
    const field = panel.locator('#log input[data-filter="text"]');
    await field.fill('"type":"hello"');
    await until(async () => (await rows.locator('.ftype').allTextContents()).join() === 'hello', { what: 'the hello frame only' });
    await panel.click('#log [data-action="invert"]');
    assert.equal(await panel.locator('#log [data-action="invert"]').getAttribute('aria-pressed'), 'true');
    await until(async () => (await rows.count()) === all.length - 1, { what: 'everything but the hello' });
    assert.ok(!(await rows.locator('.ftype').allTextContents()).includes('hello'));
    await panel.click('#log [data-action="invert"]');
    await panel.click('#log [data-action="regex"]');
    await field.fill('"type":"(hello|snapshot)"');
    await until(async () => (await rows.locator('.ftype').allTextContents()).join() === 'hello,snapshot', { what: 'hello and snapshot by a regular expression' });
    await field.fill('"type":"(hello');
    await until(async () => (await field.getAttribute('aria-invalid')) !== null, { what: 'the field marked invalid' });
    assert.match(await field.getAttribute('title'), /Not a regular expression/);
    assert.equal(await field.evaluate((e) => e.classList.contains('invalid')), true);
    assert.equal(await rows.count(), all.length, 'a bad expression filters nothing');
    await field.fill('');
    assert.equal(await field.getAttribute('aria-invalid'), null);
    assert.deepEqual(errors, [], 'no exception');
    await panel.close();
  });

  test('compact rows: 18 px, remembered; the row under the pointer is the one clicked; the selection stays in view', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await panelOpen();
    await panel.setViewportSize({ width: 1280, height: 360 });
    await panel.click('#tree .row[data-path="/deep"]', { button: 'right' });
    await panel.click('.row-menu [data-action="expand-below"]');
    await panel.click('#tree .row[data-path="/inbox/m1"] .twisty');
    await panel.evaluate((p) => window.slopPanel.reveal(p), DEEP_LEAF);
    const heights = () => panel.locator('#tree .row').evaluateAll((els) => [...new Set(els.map((e) => e.getBoundingClientRect().height))]);
    assert.deepEqual(await heights(), [22]);
    await panel.click('#tree-filter-btn');
    await panel.check('#tree-filter [data-action="compact"]');
    assert.deepEqual(await heights(), [18]);
    const check = async () => {
      // Row i of the list is at i × 18 px in the sizer; the point at a row's middle hits that row.
      const layout = await panel.evaluate(() => {
        const sizer = document.querySelector('#tree .vl-sizer').getBoundingClientRect();
        return [...document.querySelectorAll('#tree .row')].map((e) => ({ key: e.dataset.key, top: e.getBoundingClientRect().top - sizer.top }));
      });
      const order = await panel.evaluate(() => window.slopPanel.rowCount());
      assert.ok(order > layout.length - 1);
      for (let i = 1; i < layout.length; i++) assert.equal(layout[i].top - layout[i - 1].top, 18, `row ${layout[i].key} 18 px under the one before`);
      assert.equal(layout[0].top % 18, 0);
    };
    await check();
    // The selected row is still on screen after the switch.
    const inView = () => panel.evaluate((p) => {
      const r = document.querySelector(`#tree .row[data-path="${p}"]`)?.getBoundingClientRect();
      const t = document.getElementById('tree').getBoundingClientRect();
      return !!r && r.top >= t.top - 0.5 && r.bottom <= t.bottom + 0.5;
    }, DEEP_LEAF);
    assert.equal(await inView(), true);
    // Click the middle of a row picked by its place on screen: that row is selected.
    const target = await panel.evaluate(() => {
      const rows = [...document.querySelectorAll('#tree .row[data-path]')];
      const t = document.getElementById('tree').getBoundingClientRect();
      const r = rows.filter((e) => e.getBoundingClientRect().top > t.top + 30 && e.getBoundingClientRect().bottom < t.bottom - 30)[1];
      const b = r.getBoundingClientRect();
      return { path: r.dataset.path, x: b.left + 120, y: b.top + b.height / 2 };
    });
    await panel.mouse.click(target.x, target.y);
    assert.equal(await selected(panel), target.path);
    // Scrolled, then clicked: still the row under the pointer.
    await panel.evaluate(() => { document.getElementById('tree').scrollTop = 37; });
    await panel.waitForTimeout(100);
    await check();
    const hit = await panel.evaluate(() => {
      const t = document.getElementById('tree').getBoundingClientRect();
      const el = document.elementFromPoint(t.left + 100, t.top + 100).closest('.row');
      return { key: el.dataset.key, y: t.top + 100 };
    });
    await panel.mouse.click(200, hit.y);
    assert.equal(await selected(panel), hit.key);

    // Remembered by the panel.
    const again = await panelOpen();
    assert.deepEqual(await again.locator('#tree .row').evaluateAll((els) => [...new Set(els.map((e) => e.getBoundingClientRect().height))]), [18]);
    await again.click('#tree-filter-btn');
    assert.equal(await again.locator('#tree-filter [data-action="compact"]').isChecked(), true);
    await again.uncheck('#tree-filter [data-action="compact"]');
    assert.deepEqual(await again.locator('#tree .row').evaluateAll((els) => [...new Set(els.map((e) => e.getBoundingClientRect().height))]), [22]);
    await again.close();
    await panel.close();
  });

  test('screenshots: the menu, the breadcrumbs and the filter strip at 320, 700 and 1280 px, light and dark', { timeout: TEST_TIMEOUT }, async () => {
    for (const scheme of ['light', 'dark']) {
      const panel = await panelOpen();
      await panel.emulateMedia({ colorScheme: scheme });
      for (const width of [320, 700, 1280]) {
        await panel.setViewportSize({ width, height: 560 });
        await panel.evaluate((p) => window.slopPanel.reveal(p), '/inbox/m1/att');
        if (await panel.locator('#tree-filter').isHidden()) await panel.click('#tree-filter-btn');
        await panel.click('#tree .row[data-path="/inbox/m2"] .nid', { button: 'right' });
        await panel.locator('.row-menu').waitFor();
        await panel.screenshot({ path: path.join(SHOTS, `panel-devtools-menu-${width}-${scheme}.png`) });
        // Nothing of the menu outside the window.
        const box = await panel.locator('.row-menu').boundingBox();
        assert.ok(box.x >= 0 && box.x + box.width <= width && box.y + box.height <= 560, `the menu fits at ${width} px`);
        await panel.keyboard.press('Escape');
        await panel.evaluate((p) => window.slopPanel.reveal(p), DEEP_LEAF);
        await panel.screenshot({ path: path.join(SHOTS, `panel-devtools-crumbs-${width}-${scheme}.png`) });
      }
      // Compact rows, a type filter on, and the log's filter (a bad expression) at each width.
      await panel.check('#tree-filter [data-action="compact"]');
      await panel.selectOption('#tree-filter select[data-filter="type"]', 'message');
      await panel.click('#toggle-log');
      await panel.click('#log [data-action="regex"]');
      await panel.fill('#log input[data-filter="text"]', '"op":"(replace');
      for (const width of [320, 700, 1280]) {
        await panel.setViewportSize({ width, height: 640 });
        await panel.click('#tree .row[data-path="/inbox/m3"]');
        await panel.screenshot({ path: path.join(SHOTS, `panel-devtools-compact-log-${width}-${scheme}.png`) });
        // Every control of the log's bar is inside it (none cut off at the right).
        const bar = await panel.locator('#log .log-toolbar').boundingBox();
        for (const sel of ['input[data-filter="text"]', '[data-action="regex"]', '[data-action="invert"]', '[data-action="collapse-log"]']) {
          const b = await panel.locator(`#log ${sel}`).boundingBox();
          assert.ok(b && b.x >= bar.x && b.x + b.width <= bar.x + bar.width + 0.5, `${sel} inside the log's bar at ${width} px`);
        }
      }
      await panel.uncheck('#tree-filter [data-action="compact"]');
      await panel.close();
    }
  });
});
