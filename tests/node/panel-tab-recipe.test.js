// docs/architecture.md, "Adding a panel tab", followed literally: (1) a pane module exporting a
// factory, (2) an entry in side-tabs.js's SIDE_TABS importing it. Then the real side pane, with the
// five real panes beside it (jsdom, a fake extension API, a worker that answers nothing), shows
// the new tab's button after the others, tells the new pane shown() on a click and the pane before
// it hidden(), passes every store change to every pane (the new one too, shown or not), and
// disposes of them all when the panel goes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { mount, tick } from './dom-env.js';

// The Playground's pane reads its model profiles from extension storage: a fake API, before import.
globalThis.chrome = /** @type {any} */ ({
  runtime: { id: 'test', getURL: (p = '') => `chrome-extension://test/${p}` },
  storage: { onChanged: { addListener() {} }, local: { get: async () => ({}) }, session: { get: async () => ({}) } },
});
const { SIDE_TABS, sideTab } = await import('../../extension/panel/side-tabs.js');
const { SidePane } = await import('../../extension/panel/parts/side-pane.js');
const { Store } = await import('../../extension/panel/store.js');
const { Selection } = await import('../../extension/panel/selection.js');
const { Push } = await import('../../extension/shared/messages.js');

// Step 1: the pane module (here in a temporary folder; in the extension, extension/panel/parts/notes-pane.js).
const dir = mkdtempSync(path.join(os.tmpdir(), 'slop-tab-recipe-'));
const modulePath = path.join(dir, 'notes-pane.js');
writeFileSync(modulePath, `
/** @param {HTMLElement} root @param {import('../panes.js').PaneContext} ctx @returns {import('../panes.js').Pane} */
export function createNotesPane(root, ctx) {
  root.textContent = 'Notes';
  const pane = {
    calls: [],
    shown() { pane.calls.push('shown'); },
    hidden() { pane.calls.push('hidden'); },
    update(change) { pane.calls.push(['update', change, ctx.selection.key]); },
    dispose() { pane.calls.push('dispose'); },
  };
  return pane;
}
`);

// Step 2: its entry in SIDE_TABS, where its button goes (last).
SIDE_TABS.push(sideTab({
  id: 'notes', label: 'Notes', title: 'Notes on this provider',
  module: 'parts/notes-pane.js',
  create: async (root, ctx) => (await import(pathToFileURL(modulePath).href)).createNotesPane(root, ctx),
}));

/** The panel's side pane as panel.js makes it, around stand-ins for the rest of the panel. */
function panel() {
  for (const [id, tag] of [['history-strip', 'div'], ['toggle-history', 'button'], ['recording-file', 'input'], ['conf-badge', 'button']]) {
    const el = mount(tag);
    el.id = id;
    el.hidden = id === 'history-strip';
  }
  const store = new Store();
  const bridge = /** @type {any} */ ({ request: () => new Promise(() => {}), watch: async () => {}, unwatch: async () => {} });
  const selection = new Selection(store, bridge);
  const side = mount('section');
  const bar = document.createElement('div');
  bar.id = 'side-tabs';
  side.append(bar);
  const treeView = /** @type {any} */ ({ root: mount(), selection: () => null, reveal() {} });
  const sidePane = new SidePane({ tabs: bar, side }, {
    store, bridge, selection, treeView, toast: { show() {} }, copy() {}, el: (id) => /** @type {any} */ (document.getElementById(id)),
    panel: { showProvider() {}, stepShown() {}, revealFrame: () => false, renderNotices() {} },
  });
  return { sidePane, bar, store };
}

test('a tab added as the recipe says: its button, shown and hidden, every change, disposed of', async () => {
  const { sidePane, bar, store } = panel();
  // The new pane's module loads (import()): its pane takes the placeholder's place.
  for (let i = 0; i < 200 && !(/** @type {any} */ (sidePane.pane('notes')).calls); i++) await tick(5);
  const buttons = [...bar.querySelectorAll('button[data-tab]')];
  assert.deepEqual(buttons.map((b) => b.textContent), ['Node', 'Agent', 'Playground', 'History', 'Conformance', 'Cost', 'Notes']);
  const button = /** @type {HTMLButtonElement} */ (buttons.at(-1));
  assert.equal(button.title, 'Notes on this provider');
  assert.equal(button.getAttribute('role'), 'tab');
  const notes = /** @type {any} */ (sidePane.pane('notes'));
  assert.deepEqual(notes.calls, [], 'hidden at start: the Node tab is shown');
  const root = /** @type {HTMLElement} */ (document.getElementById(/** @type {string} */ (button.getAttribute('aria-controls'))));
  assert.equal(root.textContent, 'Notes');
  assert.equal(root.hidden, true);

  // Clicking it: the new pane is shown, the Node pane before it hidden.
  const node = sidePane.pane('node');
  const nodeCalls = [];
  node.hidden = () => nodeCalls.push('hidden');
  button.click();
  assert.deepEqual(notes.calls, ['shown']);
  assert.deepEqual(nodeCalls, ['hidden']);
  assert.equal(root.hidden, false);
  assert.equal(button.getAttribute('aria-selected'), 'true');

  // A store change reaches every pane, the new one as the others (the contract in panes.js).
  const heard = [];
  const history = sidePane.pane('history');
  const historyUpdate = history.update.bind(history);
  history.update = (change) => { heard.push(change); historyUpdate(change); };
  /** @type {any} */
  let change = null;
  const unsubscribe = store.subscribe((c) => { change = c; sidePane.update(c); });
  store.applyBatch([{ type: Push.PROVIDERS, providers: [] }]);
  unsubscribe();
  assert.ok(change, 'the store reported a change');
  assert.deepEqual(notes.calls.slice(1), [['update', change, null]]);
  assert.deepEqual(heard, [change], 'a hidden pane hears it too');

  // Another tab: the new pane is hidden.
  /** @type {HTMLButtonElement} */ (bar.querySelector('[data-tab="agent"]')).click();
  assert.deepEqual(notes.calls.slice(2), ['hidden']);

  // The panel goes: every pane is disposed of (the Conformance badge's timer too, or this test would not end).
  sidePane.dispose();
  assert.deepEqual(notes.calls.slice(3), ['dispose']);
});
