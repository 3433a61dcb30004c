// The panel's tree: a 10,000-node tree stays virtualized (a few dozen rows in the DOM) and scrolls
// to its last node; Elements-style keyboard navigation; search by id, type, label and property
// value reveals deep matches and steps through them; rows changed by a patch flash and show the
// provider's new values (salience bar, urgency badge). Row labels (label, title, meta.summary,
// nothing); nodes removed while the panel is still loading the rest of a big tree.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs/promises';
import { StateEngine } from '../fixtures/provider/state.mjs';
import { startScriptedProvider, frames, reply } from '../fixtures/provider/scripted.mjs';
import { launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openPanel, openExtensionPage, until, sleep, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
await fs.mkdir(SHOTS, { recursive: true });

const ITEMS = 10_000;
const URGENCY = ['none', 'low', 'medium', 'high', 'critical'];

function bigTree() {
  const items = [];
  for (let i = 0; i < ITEMS; i++) {
    items.push({
      id: `item-${i}`, type: 'item',
      properties: { label: `Item ${i}`, n: i, color: ['red', 'green', 'blue'][i % 3] },
      meta: { salience: (i % 10) / 10, ...(i % 250 === 0 ? { urgency: URGENCY[(i / 250) % 5] } : {}) },
      ...(i % 100 === 0 ? { affordances: [{ action: 'poke', label: 'Poke' }] } : {}),
    });
  }
  // A chain eight levels deep; pinned so the provider never compacts it away.
  let deep = { id: 'needle', type: 'item', properties: { label: 'Needle in a haystack', secret: 'xyzzy' }, meta: { pinned: true } };
  for (let d = 8; d >= 1; d--) deep = { id: `l${d}`, type: 'group', properties: { label: `Level ${d}` }, meta: { pinned: true }, children: [deep] };
  return {
    id: 'big-app', type: 'root', properties: { label: 'Big app' },
    children: [
      { id: 'big', type: 'collection', properties: { label: 'Ten thousand items' }, children: items },
      { id: 'deep', type: 'group', properties: { label: 'Deep' }, children: [deep] },
      { id: 'status', type: 'status', properties: { label: 'Status', ticks: 0 } },
    ],
  };
}

const NEEDLE = '/deep/l1/l2/l3/l4/l5/l6/l7/l8/needle';

describe('panel tree', () => {
  let browser;
  let srv;
  let tabId;
  let page;

  before(async () => {
    srv = await startProvider({ engine: new StateEngine({ id: 'big', name: 'Big provider', tree: bigTree() }) });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    ({ tabId } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > ITEMS, { timeout: 30_000 }));
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  /** A fresh panel with the whole mirror loaded into it. */
  async function panelLoaded() {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/big"]', { timeout: 15_000 });
    await until(() => panel.evaluate(() => window.slopPanel.currentTree()?.complete), { what: 'the whole mirror in the panel', timeout: 30_000 });
    return panel;
  }

  const domRows = (panel) => panel.locator('#tree .row').count();
  const selectedPath = (panel) => panel.evaluate(() => window.slopPanel.selection()?.path ?? null);

  test('10,000 nodes: only the visible rows are in the DOM, and scrolling reaches the last node', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await panelLoaded();
    const loaded = await panel.evaluate(() => window.slopPanel.currentTree().nodes.size);
    assert.equal(loaded, ITEMS + 13, 'every node view is in the panel');
    assert.match(await panel.locator('#load-state').textContent(), /10,013 nodes/);

    await panel.click('#tree .row[data-path="/big"] .twisty');
    await panel.locator('#tree .row[data-path="/big"][aria-expanded="true"]').waitFor({ timeout: 5000 });
    assert.ok(await panel.evaluate(() => window.slopPanel.rowCount()) > ITEMS, 'all rows are in the flattened list');
    const before = await domRows(panel);
    assert.ok(before < 100, `${before} rows in the DOM`);

    // Scroll to the end in steps, as a user would, then all the way.
    for (const frac of [0.25, 0.5, 0.75, 1]) {
      await panel.evaluate((f) => { const t = document.getElementById('tree'); t.scrollTop = f * t.scrollHeight; }, frac);
      await panel.waitForTimeout(50);
      assert.ok(await domRows(panel) < 100, `rows in the DOM stay few at ${frac * 100}%`);
    }
    const last = panel.locator(`#tree .row[data-path="/big/item-${ITEMS - 1}"]`);
    // /deep and /status come after the big collection: the last item is near the end.
    await panel.evaluate(() => window.slopPanel.reveal('/big/item-9999'));
    await last.waitFor({ timeout: 5000 });
    const truth = srv.engine.truth('/big/item-9999', 0);
    assert.match(await last.textContent(), new RegExp(truth.properties.label));
    assert.ok(await domRows(panel) < 100);
    await panel.evaluate(() => { const t = document.getElementById('tree'); t.scrollTop = t.scrollHeight; });
    await panel.locator('#tree .row[data-path="/status"]').waitFor({ timeout: 5000 });
    await panel.close();
  });

  test('keyboard: arrows, Left/Right, Home/End, Enter', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await panelLoaded();
    await panel.focus('#tree');
    await panel.keyboard.press('Home');
    assert.equal(await selectedPath(panel), '/');
    await panel.keyboard.press('ArrowDown');
    assert.equal(await selectedPath(panel), '/big');
    assert.equal(await panel.getAttribute('#tree .row[data-path="/big"]', 'aria-expanded'), 'false');
    await panel.keyboard.press('ArrowRight');
    assert.equal(await panel.getAttribute('#tree .row[data-path="/big"]', 'aria-expanded'), 'true', 'Right expands');
    await panel.keyboard.press('ArrowRight');
    assert.equal(await selectedPath(panel), '/big/item-0', 'Right again goes to the first child');
    await panel.keyboard.press('ArrowDown');
    await panel.keyboard.press('ArrowDown');
    assert.equal(await selectedPath(panel), '/big/item-2');
    await panel.keyboard.press('ArrowLeft');
    assert.equal(await selectedPath(panel), '/big', 'Left on a leaf goes to the parent');
    await panel.keyboard.press('ArrowLeft');
    assert.equal(await panel.getAttribute('#tree .row[data-path="/big"]', 'aria-expanded'), 'false', 'Left collapses');
    await panel.keyboard.press('End');
    assert.equal(await selectedPath(panel), '/status');
    await panel.keyboard.press('ArrowUp');
    assert.equal(await selectedPath(panel), '/deep/l1', '/deep is open (one child), l1 is not');
    await panel.keyboard.press('Enter');
    assert.match(await panel.locator('#detail .detail-head').textContent(), /l1/);
    assert.equal(await panel.locator('#detail .path').textContent(), '/deep/l1');
    assert.equal(await panel.evaluate(() => document.activeElement?.id), 'detail', 'Enter focuses the detail, not a control in it');
    await panel.keyboard.press('Escape'); // back to the tree
    // The selected row is scrolled into view as the cursor moves through the big list.
    await panel.keyboard.press('Home');
    await panel.keyboard.press('ArrowDown');
    await panel.keyboard.press('ArrowRight');
    for (let i = 0; i < 60; i++) await panel.keyboard.press('ArrowDown');
    assert.equal(await selectedPath(panel), '/big/item-59');
    assert.ok(await panel.locator('#tree .row[data-path="/big/item-59"]').isVisible());
    await panel.keyboard.press('PageDown');
    assert.ok((await selectedPath(panel)).startsWith('/big/item-'));
    await panel.close();
  });

  test('search: a deep match is revealed; id, type, label and value; next/prev with a count', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await panelLoaded();
    await panel.fill('#search', 'needle');
    await until(async () => (await panel.locator('#search-count').textContent()) === '1 of 1', { what: 'one match' });
    const row = panel.locator(`#tree .row[data-path="${NEEDLE}"]`);
    await row.waitFor({ timeout: 5000 });
    assert.ok(await row.isVisible(), 'the match is on screen');
    assert.equal(await selectedPath(panel), NEEDLE);
    for (const anc of ['/deep', '/deep/l1', '/deep/l1/l2/l3/l4/l5/l6/l7/l8']) {
      assert.equal(await panel.getAttribute(`#tree .row[data-path="${anc}"]`, 'aria-expanded'), 'true', `${anc} expanded`);
    }
    assert.match(await panel.locator('#detail').textContent(), /Needle in a haystack/);

    // By property value only.
    await panel.selectOption('#search-field', 'value');
    await panel.fill('#search', 'xyzzy');
    await until(async () => (await panel.locator('#search-count').textContent()) === '1 of 1' && await selectedPath(panel) === NEEDLE, { what: 'a match by value' });
    await panel.fill('#search', 'l8');
    await until(async () => /no match/.test(await panel.locator('#search-count').textContent()), { what: 'no value match for an id' });

    // By id: counted against the provider's truth; next / previous move through them in order.
    await panel.selectOption('#search-field', 'id');
    await panel.fill('#search', 'item-99');
    const truth = srv.engine.truth('/big', 1).children.filter((c) => c.id.includes('item-99')).map((c) => `/big/${c.id}`);
    await until(async () => (await panel.locator('#search-count').textContent()) === `1 of ${truth.length}`, { what: `${truth.length} matches` });
    assert.equal(await selectedPath(panel), truth[0]);
    await panel.click('#search-next');
    assert.equal(await selectedPath(panel), truth[1]);
    assert.equal(await panel.locator('#search-count').textContent(), `2 of ${truth.length}`);
    await panel.click('#search-prev');
    await panel.click('#search-prev');
    assert.equal(await selectedPath(panel), truth.at(-1), 'previous wraps around');
    await panel.focus('#search');
    await panel.keyboard.press('Enter');
    assert.equal(await selectedPath(panel), truth[0], 'Enter steps to the next match');
    assert.equal(await panel.locator(`#tree .row.match.current-match[data-path="${truth[0]}"]`).count(), 1, 'the current match is marked');

    // By type and by label.
    await panel.selectOption('#search-field', 'type');
    await panel.fill('#search', 'status');
    await until(async () => (await panel.locator('#search-count').textContent()) === '1 of 1' && await selectedPath(panel) === '/status', { what: 'the status node by type' });
    await panel.selectOption('#search-field', 'label');
    await panel.fill('#search', 'Level 5');
    await until(async () => (await panel.locator('#search-count').textContent()) === '1 of 1' && await selectedPath(panel) === '/deep/l1/l2/l3/l4/l5', { what: 'a match by label' });
    await panel.close();
  });

  test('a patch updates the rows it touches; they flash; salience and urgency at a glance', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await panelLoaded();
    await panel.click('#tree .row[data-path="/big"] .twisty');
    const row = panel.locator('#tree .row[data-path="/big/item-3"]');
    await row.waitFor({ timeout: 5000 });
    // The flash is removed when its animation ends; record it as it is added: on a new row, or on
    // the row already there (a patched row keeps its element).
    await panel.evaluate(() => {
      window.__flashed = [];
      new MutationObserver((ms) => {
        for (const m of ms) {
          if (m.type === 'attributes') {
            if (m.target.classList.contains('flash') && !(m.oldValue ?? '').split(' ').includes('flash')) window.__flashed.push(m.target.dataset.path);
          } else for (const n of m.addedNodes) if (n.classList?.contains('flash')) window.__flashed.push(n.dataset.path);
        }
      }).observe(document.getElementById('tree'), { childList: true, subtree: true, attributes: true, attributeFilter: ['class'], attributeOldValue: true });
    });
    srv.engine.mutate((root) => {
      const it = root.children[0].children[3];
      it.properties.label = 'Changed by a patch';
      it.meta = { salience: 0.95, urgency: 'critical', reason: 'test' };
    });
    await until(async () => /Changed by a patch/.test(await row.textContent()), { what: 'the new label' });
    assert.ok((await panel.evaluate(() => window.__flashed)).includes('/big/item-3'), 'the row flashed');
    const truth = srv.engine.truth('/big/item-3', 0);
    assert.equal(await row.locator('.urgency').textContent(), truth.meta.urgency);
    const width = await row.locator('.sal i').evaluate((i) => i.style.width);
    assert.equal(width, `${Math.round(truth.meta.salience * 100)}%`);
    assert.equal(await panel.locator('#tree .row[data-path="/big/item-4"].flash').count(), 0, 'untouched rows do not flash');
    // Low salience is dimmed, and pinned nodes say so.
    assert.equal(await panel.locator('#tree .row[data-path="/big/item-0"]').evaluate((r) => r.classList.contains('low-sal')), true);
    await panel.close();
  });
});

describe('panel tree: row labels, and nodes removed while the panel loads', () => {
  const FLOOD_ITEMS = 15_000;
  const OTHERS = 11; // root, overview, titled, plain, counted and its 5 children, the collection
  let browser;
  let srv;
  let tabId;

  function floodTree() {
    const items = [];
    for (let i = 0; i < FLOOD_ITEMS; i++) items.push({ id: `f-${i}`, type: 'item', properties: { label: `Flood ${i}`, n: i } });
    const five = [1, 2, 3, 4, 5].map((i) => ({ id: `c${i}`, type: 'item', properties: { label: `Counted ${i}` } }));
    return {
      id: 'flood-app', type: 'root', properties: { label: 'Flood app' },
      children: [
        // Labels: properties.label, then properties.title, then meta.summary, then nothing.
        { id: 'overview', type: 'overview', properties: { repos: 3, stars: 12 }, meta: { summary: 'Three repositories, 12 stars' } },
        { id: 'titled', type: 'doc', properties: { size: 10, title: 'A titled document' }, meta: { summary: 'not this' } },
        { id: 'plain', type: 'stats', properties: { repos: 3, open: true } },
        { id: 'counted', type: 'collection', properties: { count: 5 }, children: five },
        { id: 'flood', type: 'collection', properties: { label: 'Fifteen thousand items' }, children: items },
      ],
    };
  }

  before(async () => {
    // Scripted: the test sends the patches itself, as fast as the socket takes them.
    srv = await startScriptedProvider({
      script: [frames.hello({ id: 'flood', name: 'Flood provider' }), ...reply('subscribe', (m) => frames.snapshot(m.id, 1, floodTree()), { $as: 'sub' })],
      afterScript: () => undefined,
    });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    ({ tabId } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > FLOOD_ITEMS, { timeout: 30_000 }));
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('a row’s label is properties.label, else title, else meta.summary, else nothing', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    const label = (p) => panel.locator(`#tree .row[data-path="${p}"] .nsum`).textContent({ timeout: 10_000 });
    assert.equal(await label('/'), 'Flood app');
    assert.equal(await label('/overview'), 'Three repositories, 12 stars', 'meta.summary, not the first property');
    assert.equal(await label('/titled'), 'A titled document');
    assert.equal(await label('/plain'), '', 'no label-like field: nothing rather than "repos: 3"');
    const counted = panel.locator('#tree .row[data-path="/counted"]');
    assert.equal(await counted.locator('.nsum').textContent(), '');
    assert.equal(await counted.locator('.ncount').textContent(), '5');
    assert.doesNotMatch(await counted.textContent(), /count: 5/, 'no "count: 5  5"');
    await panel.setViewportSize({ width: 700, height: 500 });
    await panel.screenshot({ path: path.join(SHOTS, 'panel-labels-700.png') });
    await panel.close();
  });

  test('nodes removed while the rest of a big tree loads: loading ends and search is complete', { timeout: 5 * TEST_TIMEOUT }, async (t) => {
    // The race: the panel asks for views of nodes it saw listed; the provider removes some of them
    // before the worker answers. The answer says "missing"; the panel must stop waiting for them.
    const conn = srv.connections.at(-1);
    const wire = conn.vars.sub.id;
    const present = [];
    for (let i = 0; i < FLOOD_ITEMS; i++) present.push(`f-${i}`);
    let version = 1;
    let seq = 0;
    let raced = 0;
    let attempts = 0;
    let nextId = FLOOD_ITEMS;
    // Whether the race happens in one attempt depends on timing: try up to 4 times, each time with
    // the collection filled up again (with no panel open) so the flood has nodes to remove.
    for (; attempts < 4 && raced === 0; attempts++) {
      while (present.length < FLOOD_ITEMS) {
        const ops = [];
        for (let k = 0; k < 500 && present.length < FLOOD_ITEMS; k++, nextId++) {
          present.push(`f-${nextId}`);
          ops.push({ op: 'add', path: `/flood/f-${nextId}`, value: { id: `f-${nextId}`, type: 'item', properties: { label: `Flood ${nextId}`, n: nextId } } });
        }
        conn.send(frames.patch(wire, ++version, ++seq, ops));
      }
      // A flood of small removal patches across the collection (20 every few ms: the worker keeps
      // a backlog of them), with the panel opened into it so its whole background load runs
      // while nodes disappear.
      let stop = false;
      const flood = (async () => {
        for (let round = 0; round < 150 && !stop; round++) {
          for (let i = 0; i < 20 && present.length > 1000; i++) {
            const ops = [];
            for (let k = 0; k < 2; k++) ops.push({ op: 'remove', path: `/flood/${present.splice(Math.floor(Math.random() * present.length), 1)[0]}` });
            conn.send(frames.patch(wire, ++version, ++seq, ops));
          }
          await sleep(5);
        }
      })();
      await sleep(50);
      // The worker is busy with the flood: more time than usual to open.
      const panel = await openExtensionPage(browser.ctx, browser.extId, `extension/panel/panel.html?tabId=${tabId}`, { timeout: 30_000 });
      await panel.fill('#search', 'Flood 1499');
      await until(() => panel.evaluate(() => window.slopPanel.currentTree()?.complete), { what: 'the panel to finish loading', timeout: 60_000 });
      stop = true;
      await flood;
      // Settled: every patch is in; the panel holds exactly the provider's nodes.
      const want = OTHERS + present.length;
      await until(async () => (await panel.evaluate(() => window.slopPanel.currentTree().version)) === version, { what: `the panel at v${version}` });
      raced += await panel.evaluate(() => window.slopPanel.currentTree().missingAnswered);
      const state = await panel.evaluate(() => {
        const tr = window.slopPanel.currentTree();
        return { complete: tr.complete, requested: tr.requested.size, total: tr.total, size: tr.nodes.size };
      });
      assert.deepEqual(state, { complete: true, requested: 0, total: want, size: want });
      await until(async () => (await panel.locator('#load-state').textContent()) === `${want.toLocaleString('en-US')} nodes`, { what: 'the bar without "loading"' });
      assert.doesNotMatch(await panel.locator('#version').textContent(), / of /, 'no "N of M" left in the bar');
      // "Flood 1499" also matches "Flood 14990".."Flood 14999": whichever the flood left.
      const matches = present.filter((id) => `Flood ${id.slice(2)}`.includes('Flood 1499')).length;
      const countText = matches ? new RegExp(`^(\\d+|–) of ${matches}$`) : /^no match$/;
      await until(async () => countText.test(await panel.locator('#search-count').textContent()), { what: `a search count of ${matches} without "loading the rest"` });
      await panel.screenshot({ path: path.join(SHOTS, 'panel-flood-settled.png') });
      await panel.close();
    }
    // Whether the race happened is timing (on this machine it went from every run to none within an
    // hour, with the same code): the panel's handling of a view answered missing is pinned down by
    // tests/node/panel-store-methods.test.js; here every attempt checked that loading ends and the
    // search is complete, raced or not.
    t.diagnostic(`${raced} requested views came back missing, in ${attempts} attempt(s)`);
  });
});
