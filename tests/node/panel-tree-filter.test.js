// The tree's filters (extension/panel/tree-filter.js) and how the tree view shows them: matches
// by type and by a set of changed paths (the worker's answer), every ancestor kept, the rows of
// the others hidden (not marked), a twisty only where a child is shown; collapse all and "-".

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mount, key } from './dom-env.js';
import { TreeView } from '../../extension/panel/views/tree-view.js';
import { ancestorsOf, matchingPaths, typeCounts, withAncestors } from '../../extension/panel/tree-filter.js';

const v = (path, childIds = [], type = 'item') => ({ id: path === '/' ? 'app' : path.slice(path.lastIndexOf('/') + 1), type, path, child_ids: childIds });
const VIEWS = [
  v('/', ['inbox', 'settings'], 'root'),
  v('/inbox', ['m1', 'm2'], 'collection'),
  v('/inbox/m1', ['att'], 'message'),
  v('/inbox/m1/att', [], 'attachment'),
  v('/inbox/m2', [], 'message'),
  v('/settings', ['a'], 'form'),
  v('/settings/a', [], 'field'),
];
const nodes = new Map(VIEWS.map((x) => [x.path, x]));

test('matches by type, by changed paths, or both; ancestors kept up to the root', () => {
  assert.deepEqual(typeCounts(nodes), [['attachment', 1], ['collection', 1], ['field', 1], ['form', 1], ['message', 2], ['root', 1]]);
  assert.deepEqual([...matchingPaths(nodes, '/', { type: 'message' })].sort(), ['/inbox/m1', '/inbox/m2']);
  assert.deepEqual([...matchingPaths(nodes, '/', {})], [], 'no criterion: no matches (the caller shows no filter)');
  const changed = new Set(['/inbox/m2', '/settings/a', '/gone/elsewhere']);
  assert.deepEqual([...matchingPaths(nodes, '/', { changed })], ['/inbox/m2', '/settings/a', '/gone/elsewhere'], 'a changed path without a view still counts');
  assert.deepEqual([...matchingPaths(nodes, '/', { changed, type: 'field' })], ['/settings/a']);
  assert.deepEqual([...matchingPaths(nodes, '/inbox', { type: 'field' })], [], 'only under the root shown');
  assert.deepEqual([...withAncestors(new Set(['/inbox/m1/att']), '/')].sort(), ['/', '/inbox', '/inbox/m1', '/inbox/m1/att']);
  assert.deepEqual([...withAncestors(new Set(), '/')], ['/'], 'the root always');
  assert.deepEqual([...ancestorsOf(new Set(['/inbox/m1/att', '/inbox/m2']), '/')].sort(), ['/', '/inbox', '/inbox/m1']);
});

function view() {
  const root = mount();
  const tv = new TreeView(root, { onSelect() {}, onOpen() {}, onNeedNodes() {}, onLoadMore() {}, onClearQuery() {} });
  tv.setSource({ key: 'k', sub: 's', path: '/', nodes, structure: 1, resetId: 1, live: true });
  return { tv, root };
}
const rowKeys = (root) => [...root.querySelectorAll('.row')].map((r) => r.dataset.key);

test('a filter hides the other rows; a twisty only where a child is shown; off again, every row', () => {
  const { tv, root } = view();
  tv.toggle('/inbox/m1', true);
  const all = rowKeys(root);
  assert.deepEqual(all, ['/', '/inbox', '/inbox/m1', '/inbox/m1/att', '/inbox/m2', '/settings', '/settings/a']);
  const matches = matchingPaths(nodes, '/', { type: 'message' });
  tv.setFilter({ stamp: 'f1', shown: withAncestors(matches, '/'), matches });
  assert.deepEqual(rowKeys(root), ['/', '/inbox', '/inbox/m1', '/inbox/m2']);
  const m1 = root.querySelector('.row[data-key="/inbox/m1"]');
  assert.equal(m1.getAttribute('aria-expanded'), null, 'm1\'s only child is hidden: no twisty');
  assert.ok(!m1.querySelector('.twisty').classList.contains('i'));
  assert.equal(root.querySelector('.row[data-key="/inbox"]').getAttribute('aria-expanded'), 'true');
  tv.setFilter(null);
  assert.deepEqual(rowKeys(root), all);
  assert.equal(root.querySelector('.row[data-key="/inbox/m1"]').getAttribute('aria-expanded'), 'true');
});

test('Shift+Left collapses all (the selection moves to its top-level ancestor); - collapses below', () => {
  const { tv, root } = view();
  tv.toggle('/inbox/m1', true);
  tv.select('/inbox/m1/att');
  key(root, 'ArrowLeft', { shiftKey: true });
  assert.deepEqual(rowKeys(root), ['/', '/inbox', '/settings']);
  assert.deepEqual(tv.selection(), { path: '/inbox' });
  key(root, '*');
  assert.deepEqual(rowKeys(root), ['/', '/inbox', '/inbox/m1', '/inbox/m1/att', '/inbox/m2', '/settings']);
  key(root, '-');
  assert.deepEqual(rowKeys(root), ['/', '/inbox', '/settings']);
  key(root, 'ArrowRight');
  assert.deepEqual(rowKeys(root), ['/', '/inbox', '/inbox/m1', '/inbox/m2', '/settings'], 'm1 was closed too');
});

test('the ContextMenu key and Shift+F10 ask for the selected row\'s menu; F10 alone does not', () => {
  const root = mount();
  const menus = [];
  const tv = new TreeView(root, { onSelect() {}, onOpen() {}, onNeedNodes() {}, onLoadMore() {}, onClearQuery() {}, onMenu: (sel, at) => menus.push({ sel, keyboard: at.keyboard }) });
  tv.setSource({ key: 'k', sub: 's', path: '/', nodes, structure: 1, resetId: 1, live: true });
  key(root, 'ContextMenu');
  assert.equal(menus.length, 0, 'nothing selected: no menu');
  tv.select('/inbox/m2');
  key(root, 'ContextMenu');
  key(root, 'F10');
  key(root, 'F10', { shiftKey: true });
  assert.deepEqual(menus, [{ sel: { path: '/inbox/m2' }, keyboard: true }, { sel: { path: '/inbox/m2' }, keyboard: true }]);
});
