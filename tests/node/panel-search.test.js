// Search over the views the panel holds (extension/panel/search.js): by id, type, label (the row's
// label: label, title, or meta.summary) and property value, case-insensitive, in tree order.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { searchTree, matchView, SEARCH_FIELDS } from '../../extension/panel/search.js';

const v = (path, type, childIds = [], fields = {}) => ({ id: path === '/' ? 'app' : path.slice(path.lastIndexOf('/') + 1), type, path, child_ids: childIds, ...fields });

const SOURCE = {
  path: '/',
  nodes: new Map([
    v('/', 'root', ['inbox', 'drafts', 'settings']),
    v('/inbox', 'collection', ['m1', 'm2'], { properties: { label: 'Inbox' } }),
    v('/inbox/m1', 'message', [], { properties: { title: 'Quarterly report', from: 'ann@example.com', unread: true } }),
    v('/inbox/m2', 'message', [], { properties: { title: 'Lunch?', size: 2048 }, meta: { summary: 'ignored: title wins' } }),
    v('/drafts', 'collection', ['d1'], { meta: { summary: 'Report drafts' } }),
    v('/drafts/d1', 'draft', [], { properties: { body: { text: 'the REPORT, v2' } } }),
    v('/settings', 'form', []),
  ].map((x) => [x.path, x])),
};

test('all fields: id, type, label and values, case-insensitive, in depth-first tree order', () => {
  assert.deepEqual(searchTree(SOURCE, 'report'), ['/inbox/m1', '/drafts', '/drafts/d1']);
  assert.deepEqual(searchTree(SOURCE, '  MESSAGE '), ['/inbox/m1', '/inbox/m2'], 'trimmed, any case');
  assert.deepEqual(searchTree(SOURCE, 'settings'), ['/settings']);
});

test('one field at a time', () => {
  assert.deepEqual(searchTree(SOURCE, 'm1', 'id'), ['/inbox/m1']);
  assert.deepEqual(searchTree(SOURCE, 'collection', 'type'), ['/inbox', '/drafts']);
  assert.deepEqual(searchTree(SOURCE, 'report', 'label'), ['/inbox/m1', '/drafts'], 'a title, a summary; not a property value');
  assert.deepEqual(searchTree(SOURCE, 'ignored', 'label'), [], 'the title is the label, not the summary');
  assert.deepEqual(searchTree(SOURCE, 'report', 'value'), ['/inbox/m1', '/drafts/d1'], 'values, nested ones as JSON');
  assert.deepEqual(searchTree(SOURCE, '2048', 'value'), ['/inbox/m2'], 'numbers as text');
  assert.deepEqual(searchTree(SOURCE, 'true', 'value'), ['/inbox/m1']);
  assert.deepEqual(searchTree(SOURCE, 'message', 'id'), []);
  assert.deepEqual(Object.keys(SEARCH_FIELDS), ['all', 'id', 'type', 'label', 'value']);
});

test('nothing to search, views not loaded yet, and the limit', () => {
  assert.deepEqual(searchTree(SOURCE, '   '), []);
  assert.deepEqual(searchTree(null, 'x'), []);
  const partial = { path: '/', nodes: new Map([['/', v('/', 'root', ['a', 'b'])], ['/b', v('/b', 'thing')]]) };
  assert.deepEqual(searchTree(partial, 'thing'), ['/b'], 'a listed child without a view is skipped');
  assert.deepEqual(searchTree(SOURCE, 'message', 'all', 1), ['/inbox/m1']);
  const sub = { path: '/inbox', nodes: SOURCE.nodes };
  assert.deepEqual(searchTree(sub, 'report'), ['/inbox/m1'], 'from the subscription’s root only');
});

test('matchView takes the query in lower case', () => {
  const m = SOURCE.nodes.get('/inbox/m1');
  assert.equal(matchView(m, 'ann@'), true);
  assert.equal(matchView(m, 'ann@', 'id'), false);
  assert.equal(matchView({ id: 'x', type: 't', child_ids: [] }, 'x'), true, 'no properties');
});

test('no match among the loaded nodes is not "no match" while collections hold children not loaded: said, with Load more', async () => {
  const { mount } = await import('./dom-env.js');
  const { SearchBar } = await import('../../extension/panel/parts/search-bar.js');
  const { unloadedChildren } = await import('../../extension/panel/search.js');
  const src = {
    path: '/',
    nodes: new Map([
      v('/', 'root', ['inbox', 'later']),
      v('/inbox', 'collection', ['m1'], { meta: { total_children: 40 }, more: 39 }),
      v('/inbox/m1', 'message', []),
      v('/later', 'collection', [], { meta: { total_children: 3 }, more: 3 }),
    ].map((x) => [x.path, x])),
  };
  assert.deepEqual(unloadedChildren(src), { count: 42, collections: ['/inbox', '/later'] });
  assert.deepEqual(unloadedChildren(SOURCE), { count: 0, collections: [] });

  const root = mount();
  const el = (tag, id) => { const e = document.createElement(tag); e.id = id; root.append(e); return e; };
  const els = { input: el('input', 's'), field: el('select', 'f'), count: el('span', 'c'), prev: el('button', 'p'), next: el('button', 'n'), tree: el('div', 't'), main: el('div', 'm') };
  const did = [];
  const treeView = { setMatches: () => {}, reveal: (p) => did.push(['reveal', p]), toggle: (p, o) => did.push(['toggle', p, o]), hooks: { onLoadMore: (p) => did.push(['more', p]) } };
  const bar = new SearchBar(els, { selection: { source: () => src, tree: () => ({ complete: true }), scrub: false }, treeView });
  bar.text = 'msg-30';
  bar.run();
  assert.equal(els.count.textContent, 'no match · 42 not loaded');
  assert.equal(els.count.title, 'No match in the loaded nodes; 42 more children are not loaded (2 collections: /inbox, /later).');
  const button = root.querySelector('[data-action="search-load-more"]');
  assert.equal(button.hidden, false);
  button.click();
  assert.deepEqual(did, [['toggle', '/inbox', true], ['more', '/inbox'], ['reveal', '/inbox']]);
  bar.text = 'm1';
  bar.run({ jump: true });
  assert.equal(els.count.textContent, '1 of 1');
  assert.equal(button.hidden, true);
});
