// The side pane's tabs (extension/panel/side-tabs.js) and their routing (parts/side-pane.js) in a
// DOM (jsdom): the registry makes the buttons and the panes' elements, a tab shown tells its pane
// shown() and the one before hidden(), every store change reaches every pane, the History's "show
// for a while" gives the tab back, a pane whose module loads later catches up, and all are disposed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mount, key, tick } from './dom-env.js';
import { SIDE_TABS, sideTab, mountSideTabs } from '../../extension/panel/side-tabs.js';
import { SidePane } from '../../extension/panel/parts/side-pane.js';

const PANEL = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../extension/panel');

/** A pane that writes down what it is told, in `log` ("id shown", …). */
function recorder(log) {
  return (id) => (/** @type {HTMLElement} */ root) => ({
    root,
    shown: () => log.push(`${id} shown`),
    hidden: () => log.push(`${id} hidden`),
    update: (change) => log.push(`${id} update ${change === null ? 'null' : change.n}`),
    dispose: () => log.push(`${id} dispose`),
  });
}

/** A side pane over fixture tabs a, b, c (b's pane made by `bMake`, if given). */
function setup({ bMake } = {}) {
  const log = [];
  const make = recorder(log);
  const tabs = ['a', 'b', 'c'].map((id) => sideTab({
    id, label: id.toUpperCase(), title: `Tab ${id}`, module: `parts/${id}-pane.js`,
    create: id === 'b' && bMake ? bMake(make) : make(id),
  }));
  const side = mount('section');
  const bar = document.createElement('div');
  bar.id = 'tabs';
  side.append(bar);
  const pane = new SidePane({ tabs: bar, side }, /** @type {any} */ ({}), tabs);
  const button = (id) => /** @type {HTMLButtonElement} */ (bar.querySelector(`[data-tab="${id}"]`));
  return { log, pane, bar, side, button };
}

test('the registry: the five tabs users see, in order, each with its module preloaded by panel.html', () => {
  assert.deepEqual(SIDE_TABS.map((t) => [t.id, t.label, t.panelId ?? t.id]), [
    ['node', 'Node', 'detail'], ['agent', 'Agent', 'agent'], ['playground', 'Playground', 'playground'],
    ['history', 'History', 'history'], ['conformance', 'Conformance', 'conformance'], ['cost', 'Cost', 'cost'],
  ]);
  assert.equal(SIDE_TABS.find((t) => t.id === 'history').title, 'Every step of the provider\'s history, and what each changed');
  const html = readFileSync(path.join(PANEL, 'panel.html'), 'utf8');
  for (const t of SIDE_TABS) {
    assert.ok(existsSync(path.join(PANEL, t.module)), t.module);
    assert.ok(html.includes(`<link rel="modulepreload" href="${t.module}">`), `${t.module} preloaded`);
  }
  assert.doesNotMatch(html, /data-tab=/, 'panel.html spells no tab button');
});

test('sideTab checks an entry and freezes it', () => {
  const ok = { id: 'notes', label: 'Notes', title: 'Notes', module: 'parts/notes-pane.js', create: () => null };
  assert.ok(Object.isFrozen(sideTab(ok)));
  assert.throws(() => sideTab({ ...ok, label: '' }), /"label" must be a non-empty string/);
  assert.throws(() => sideTab({ ...ok, id: 'My Tab' }), /lower-case/);
  assert.throws(() => sideTab({ ...ok, create: undefined }), /create must be a function/);
});

test('mountSideTabs: a button per tab and an element per pane, the first one shown; an id twice is refused', () => {
  const bar = mount();
  const side = mount();
  const tabs = [sideTab({ id: 'x', label: 'X', title: 'The x', module: 'x.js', panelId: 'x-body', create: () => null }),
    sideTab({ id: 'y', label: 'Y', title: 'The y', module: 'y.js', create: () => null })];
  const panels = mountSideTabs(bar, side, tabs);
  assert.deepEqual([...bar.children].map((b) => [b.tagName, b.getAttribute('type'), b.dataset.tab, b.getAttribute('role'), b.title, b.textContent]),
    [['BUTTON', 'button', 'x', 'tab', 'The x', 'X'], ['BUTTON', 'button', 'y', 'tab', 'The y', 'Y']]);
  assert.deepEqual([...panels].map(([id, el]) => [id, el.id, el.className, el.hidden]), [['x', 'x-body', 'side-body', false], ['y', 'y', 'side-body', true]]);
  assert.throws(() => mountSideTabs(mount(), mount(), [tabs[0], tabs[0]]), /twice/);
});

test('shown and hidden follow the tabs: a click, the arrow keys, a tab asked for again', () => {
  const { log, pane, button } = setup();
  assert.deepEqual(log, ['a shown'], 'the first tab is shown at start');
  assert.equal(pane.tab, 'a');
  log.length = 0;
  button('c').click();
  assert.deepEqual(log, ['a hidden', 'c shown']);
  assert.equal(button('c').getAttribute('aria-selected'), 'true');
  assert.equal(/** @type {any} */ (pane.pane('c')).root.hidden, false);
  assert.equal(/** @type {any} */ (pane.pane('a')).root.hidden, true);
  log.length = 0;
  button('c').click();
  assert.deepEqual(log, ['c shown'], 'asked for again: shown again (a refresh), never hidden');
  log.length = 0;
  key(button('c'), 'ArrowRight');
  assert.deepEqual(log, ['c hidden', 'a shown'], 'the tablist wraps round');
  assert.equal(document.activeElement, button('a'));
});

test('every store change reaches every pane, shown or not, in tab order; null is the whole state', () => {
  const { log, pane } = setup();
  log.length = 0;
  pane.update(/** @type {any} */ ({ n: 1 }));
  pane.update(null);
  assert.deepEqual(log, ['a update 1', 'b update 1', 'c update 1', 'a update null', 'b update null', 'c update null']);
});

test('showFor and giveBack: the tab replaced comes back, unless the user went elsewhere', () => {
  const { log, pane, button } = setup();
  button('b').click();
  pane.showFor('c');
  pane.giveBack('c');
  assert.equal(pane.tab, 'b');
  pane.showFor('c');
  button('a').click();
  pane.giveBack('c');
  assert.equal(pane.tab, 'a', 'the user chose a: nothing to go back to');
  assert.ok(log.length > 0);
});

test('setAttention marks a tab’s button once', () => {
  const { pane, button } = setup();
  assert.equal(pane.setAttention('b', true), true);
  assert.equal(pane.setAttention('b', true), false, 'marked already');
  assert.equal(button('b').hasAttribute('data-attention'), true);
  pane.setAttention('b', false);
  assert.equal(button('b').hasAttribute('data-attention'), false);
  assert.equal(pane.setAttention('nope', true), false);
});

test('a pane made later (its module loaded by import()) is shown if its tab is, and hears changes from then on', async () => {
  /** @type {(v?: any) => void} */
  let release = () => {};
  const gate = new Promise((r) => { release = r; });
  const { log, pane, button } = setup({ bMake: (make) => async (root) => { await gate; return make('b')(root); } });
  button('b').click();
  pane.update(/** @type {any} */ ({ n: 1 }));
  assert.deepEqual(log, ['a shown', 'a hidden', 'a update 1', 'c update 1'], 'nothing reaches b while it loads');
  release();
  await tick();
  assert.deepEqual(log.slice(4), ['b shown']);
  pane.update(/** @type {any} */ ({ n: 2 }));
  assert.deepEqual(log.slice(5), ['a update 2', 'b update 2', 'c update 2']);
});

test('dispose reaches every pane; one still loading is disposed of once made', async () => {
  /** @type {(v?: any) => void} */
  let release = () => {};
  const gate = new Promise((r) => { release = r; });
  const { log, pane } = setup({ bMake: (make) => async (root) => { await gate; return make('b')(root); } });
  log.length = 0;
  pane.dispose();
  assert.deepEqual(log, ['a dispose', 'c dispose']);
  release();
  await tick();
  assert.deepEqual(log, ['a dispose', 'c dispose', 'b dispose']);
});
