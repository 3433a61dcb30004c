// The panel by keyboard alone, as a screen reader user moves through it, with the provider patching
// every 700 ms: at each step the focused element (or the widget's active item) is checked by its
// role and accessible name as the browser's accessibility tree gives them (Playwright's
// ariaSnapshot), not by our own markup. Tree (active row named, level and place in its set), detail
// (the focus stays on "Copy path" through patches), an invoke with Ctrl+Enter from a field (one
// invoke sent, its result in a live region), and the History list (Home, End, ↑, P to pin).

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { StateEngine } from '../fixtures/provider/state.mjs';
import { browserOnProvider, startProvider, openPanel, until, sleep, TEST_TIMEOUT } from './helpers.mjs';

describe('the panel by keyboard alone', () => {
  let srv, browser, tabId, timer;
  const invokes = [];
  before(async () => {
    srv = await startProvider({ engine: new StateEngine({
      id: 'kbd', name: 'Keyboard lab',
      tree: { id: 'app', type: 'root', properties: { label: 'Keyboard lab' }, children: [
        { id: 'todo', type: 'item', properties: { label: 'Write the docs', n: 0 },
          affordances: [{ action: 'rename', label: 'Rename', params: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } }] },
        { id: 'other', type: 'item', properties: { label: 'Other' } },
        { id: 'third', type: 'item', properties: { label: 'Third' } },
      ] },
      handlers: {
        // Slow enough that a second Ctrl+Enter comes while the first invoke is in flight.
        rename: async (ctx) => {
          invokes.push(ctx.params);
          await new Promise((r) => setTimeout(r, 400));
          ctx.node.properties.label = ctx.params.title;
          return { renamed: true };
        },
      },
    }) });
    ({ browser, tabId } = await browserOnProvider(srv));
    // The provider keeps patching the node the keyboard user is on.
    timer = setInterval(() => srv.engine.mutate((r) => { r.children[0].properties.n += 1; }), 700);
  });
  after(async () => {
    clearInterval(timer);
    await browser?.close();
    await srv?.close();
  });

  /** The focused element as the accessibility tree names it ("- button \"Copy path\""). */
  const focused = (panel) => panel.locator(':focus').ariaSnapshot();
  /** The tree's active row as the accessibility tree names it, and its place. */
  const activeRow = (panel) => panel.evaluate(() => {
    const t = document.querySelector('#tree');
    const id = t.getAttribute('aria-activedescendant');
    const row = id ? document.getElementById(id) : null;
    return row && { path: row.dataset.path, role: row.getAttribute('role'), level: row.getAttribute('aria-level'),
      pos: row.getAttribute('aria-posinset'), size: row.getAttribute('aria-setsize'), selected: row.getAttribute('aria-selected') };
  });

  test('tree, detail, invoke and History, by keys, each item named', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/todo"]', { timeout: 10_000 });
    await panel.focus('#tree');
    assert.match(await focused(panel), /tree "State tree"/);
    // ? opens the keys (a modal dialog: the focus inside it); Esc closes it and gives the focus back.
    await panel.keyboard.press('?');
    await until(async () => /button "Close"/i.test(await focused(panel)) && await panel.locator('dialog#shortcuts[open]').count() === 1, { what: 'the keys dialog, focused' });
    await panel.keyboard.press('Tab');
    assert.equal(await panel.evaluate(() => !!document.activeElement?.closest('dialog#shortcuts')), true, 'Tab stays in the dialog');
    await panel.keyboard.press('Escape');
    await until(async () => /tree "State tree"/.test(await focused(panel)), { what: 'the focus back on the tree' });

    // The tree: ↓ to the first child; the active row is announced with its level and place.
    await panel.keyboard.press('Home');
    await panel.keyboard.press('ArrowDown');
    await until(async () => (await activeRow(panel))?.path === '/todo', { what: 'the first child active' });
    assert.deepEqual(await activeRow(panel), { path: '/todo', role: 'treeitem', level: '2', pos: '1', size: '3', selected: 'true' });
    assert.match(await panel.locator('#tree .row[data-path="/todo"]').ariaSnapshot(), /treeitem "todo item/);
    await panel.keyboard.press('ArrowDown');
    await until(async () => (await activeRow(panel))?.path === '/other', { what: '/other active' });
    assert.equal((await activeRow(panel)).pos, '2');
    await panel.keyboard.press('ArrowUp');
    await until(async () => (await activeRow(panel))?.path === '/todo', { what: '/todo active again' });

    // Enter opens the detail; Tab reaches "Copy path"; patches to the node keep the focus there.
    await panel.keyboard.press('Enter');
    await panel.keyboard.press('Tab');
    await until(async () => /button "Copy path"/.test(await focused(panel)), { what: 'Copy path focused' });
    const n0 = srv.engine.root.children[0].properties.n;
    await until(() => srv.engine.root.children[0].properties.n >= n0 + 3, { what: 'three patches', timeout: 5000 });
    await sleep(300);
    assert.match(await focused(panel), /button "Copy path"/, 'the focus survived the patches');

    // Tab on to the form's field; Ctrl+Enter invokes once; the result is in a live region.
    await until(async () => {
      await panel.keyboard.press('Tab');
      return /textbox "title"/.test(await focused(panel));
    }, { what: 'the title field focused' });
    await panel.keyboard.type('Ship it');
    await panel.keyboard.press('Control+Enter');
    await panel.keyboard.press('Control+Enter'); // a second press while the first is in flight sends nothing
    await until(async () => /renamed/.test(await panel.locator('.affordance[data-action-name="rename"] .aff-result').textContent()), { what: 'the result' });
    assert.equal(await panel.locator('.affordance[data-action-name="rename"] .aff-result').getAttribute('aria-live'), 'polite');
    await sleep(300);
    assert.equal(invokes.length, 1, 'one invoke');
    assert.deepEqual(invokes[0], { title: 'Ship it' });

    // The History: H opens it; in its list, Home / End / ↑ move the active step; P pins it.
    await panel.keyboard.press('Escape'); // back to the tree
    await panel.focus('#tree');
    await panel.keyboard.press('h');
    await panel.locator('#history .steps').waitFor();
    await until(async () => (await panel.locator('#history .step-row').count()) > 3, { what: 'some steps' });
    await panel.focus('#history .steps');
    assert.match(await focused(panel), /listbox "History steps"/);
    const active = () => panel.evaluate(() => {
      const l = document.querySelector('#history .steps');
      const row = document.getElementById(l.getAttribute('aria-activedescendant') ?? '');
      return row && { step: Number(row.dataset.step), selected: row.getAttribute('aria-selected'), pos: Number(row.getAttribute('aria-posinset')), size: Number(row.getAttribute('aria-setsize')), role: row.getAttribute('role') };
    });
    await panel.keyboard.press('Home');
    await until(async () => (await active())?.pos === 1, { what: 'the oldest step active' });
    const first = await active();
    assert.equal(first.role, 'option');
    assert.equal(first.selected, 'true');
    assert.equal(await panel.evaluate(() => window.slopPanel.historyShown()), first.step);
    assert.equal(await panel.locator('#history .step-row[aria-selected="false"]').count() > 0, true, 'the others say they are not selected');
    await panel.keyboard.press('ArrowDown');
    await until(async () => (await active())?.pos === 2, { what: 'the second step active' });
    await panel.keyboard.press('p');
    await until(async () => (await panel.locator(`#history .step-row[data-step="${(await active()).step}"] [data-action="pin"]`).textContent()) === 'Pinned A', { what: 'pinned by P' });
    assert.equal(await panel.locator('#history .step-row button').count(), 0, 'nothing focusable inside an option');
    await panel.keyboard.press('End');
    await until(async () => { const a = await active(); return a && a.pos === a.size; }, { what: 'the newest step active' });
    await panel.close();
  });
});
