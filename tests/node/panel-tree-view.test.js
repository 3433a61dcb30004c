// The tree of node views (extension/panel/views/tree-view.js) in a DOM (jsdom): what a row shows,
// which rows there are (expansion, views still loading, "load more" and query pages), the keys,
// search marks, and rows kept when their view did not change.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mount, key } from './dom-env.js';
import { TreeView } from '../../extension/panel/views/tree-view.js';
import { nodeSummary } from '../../extension/panel/views/tree-rows.js';
import { collectionSig } from '../../extension/panel/load-more.js';

const v = (path, childIds = [], fields = {}) => ({ id: path === '/' ? 'app' : path.slice(path.lastIndexOf('/') + 1), type: 'item', path, child_ids: childIds, ...fields });

function source(views, o = {}) {
  return { key: 'k', sub: 's', path: '/', nodes: new Map(views.map((x) => [x.path, x])), structure: 1, resetId: 1, live: true, ...o };
}

const VIEWS = [
  v('/', ['inbox', 'settings'], { type: 'root', properties: { label: 'Mail' } }),
  v('/inbox', ['m1', 'm2'], { type: 'collection', properties: { title: 'Inbox' }, meta: { total_children: 40 }, more: 38, next_window: [2, 50] }),
  v('/inbox/m1', [], {
    type: 'message', properties: { label: 'Hello', count: 5 }, meta: { salience: 0.1, pinned: true, urgency: 'high', reason: 'boss' },
    affordances: [{ action: 'open' }, { action: 'delete', dangerous: true }], content_ref: { mime: 'text/plain' },
  }),
  v('/inbox/m2', [], { type: 'message', meta: { summary: 'From meta', focus: true, changed: true } }),
  v('/settings', ['a'], { type: 'form' }),
  v('/settings/a', [], { type: 'field' }),
];

function view(src = source(VIEWS), extras) {
  const calls = { select: [], open: [], need: [], more: [], clear: [] };
  const root = mount();
  const tv = new TreeView(root, {
    onSelect: (s) => calls.select.push(s),
    onOpen: (s) => calls.open.push(s),
    onNeedNodes: (paths) => calls.need.push(paths),
    onLoadMore: (p) => calls.more.push(p),
    onClearQuery: (p) => calls.clear.push(p),
  });
  tv.setSource(src, extras ? { extras } : {});
  return { tv, root, calls };
}

const rowKeys = (root) => [...root.querySelectorAll('.row')].map((r) => r.dataset.key);
const row = (root, k) => root.querySelector(`.row[data-key="${k}"]`);
const text = (el, cls) => el.querySelector(`.${cls}`)?.textContent ?? null;

test('a row: id, type, label, children count, salience, marks and affordances', () => {
  const { root } = view();
  const m1 = row(root, '/inbox/m1');
  assert.equal(text(m1, 'nid'), 'm1');
  assert.equal(text(m1, 'ntype'), 'message');
  assert.equal(text(m1, 'nsum'), 'Hello');
  assert.equal(text(m1, 'naff'), '2');
  assert.ok(m1.querySelector('.naff').classList.contains('i-bolt'), 'an icon, not a glyph');
  assert.ok(m1.classList.contains('low-sal'));
  assert.ok(m1.querySelector('.flag.pinned') && m1.querySelector('.flag.cref'));
  assert.equal(m1.querySelector('.urgency').title, 'urgency: high (boss)');
  assert.equal(text(row(root, '/inbox'), 'ncount'), '2 of 40');
  assert.equal(text(row(root, '/inbox'), 'nsum'), 'Inbox', 'title when there is no label');
  const m2 = row(root, '/inbox/m2');
  assert.equal(text(m2, 'nsum'), 'From meta');
  assert.ok(m2.querySelector('.flag.focus') && m2.querySelector('.flag.changed'));
  assert.equal(row(root, '/').getAttribute('aria-expanded'), 'true');
  assert.equal(m1.getAttribute('aria-level'), '3');
  assert.equal(nodeSummary({ properties: { label: '' }, meta: { summary: 's' } }), 's');
  assert.equal(nodeSummary({ properties: { count: 3 } }), '', 'not any first property');
});

test('rows in tree order; small children start expanded; a windowed collection ends with "load more"', () => {
  const { root } = view();
  assert.deepEqual(rowKeys(root), ['/', '/inbox', '/inbox/m1', '/inbox/m2', 'more:/inbox', '/settings', '/settings/a']);
  assert.equal(row(root, 'more:/inbox').querySelector('[data-action="load-more"]').textContent, 'Load more (38 not shown)');
});

test('views not loaded yet show as loading and are asked for; views answered missing say so', () => {
  const views = [v('/', ['x', 'y']), v('/x')];
  const { root, calls, tv } = view(source(views, { gone: new Set(['/y']) }));
  assert.equal(text(row(root, '/y'), 'muted'), 'removed from the provider’s tree');
  assert.deepEqual(calls.need.at(-1), ['/y']);
  tv.setSource(source(views, { gone: new Set(), resetId: 2 }));
  assert.equal(text(row(root, '/y'), 'muted'), 'loading…');
  // A version from the history asks for nothing.
  const before = calls.need.length;
  tv.setSource(source(views, { key: 'k', sub: 's', live: false, structure: 'h1' }));
  assert.equal(calls.need.length, before);
});

test('keys: arrows move and expand or collapse, Enter opens, * expands everything below', () => {
  const { root, tv, calls } = view();
  key(root, 'ArrowDown');
  assert.deepEqual(tv.selection(), { path: '/' });
  assert.deepEqual(calls.select.at(-1), { path: '/' });
  key(root, 'ArrowDown');
  key(root, 'ArrowLeft');
  assert.equal(row(root, '/inbox').getAttribute('aria-expanded'), 'false', 'collapsed');
  assert.deepEqual(rowKeys(root), ['/', '/inbox', '/settings', '/settings/a']);
  key(root, 'ArrowLeft');
  assert.deepEqual(tv.selection(), { path: '/' }, 'then to the parent');
  key(root, 'ArrowDown');
  key(root, 'ArrowRight');
  assert.ok(rowKeys(root).includes('/inbox/m1'), 'expanded again');
  key(root, 'ArrowRight');
  assert.deepEqual(tv.selection(), { path: '/inbox/m1' }, 'then to the first child');
  key(root, 'Enter');
  assert.deepEqual(calls.open.at(-1), { path: '/inbox/m1' });
  key(root, 'End');
  assert.deepEqual(tv.selection(), { path: '/settings/a' });
  key(root, 'Home');
  key(root, 'ArrowLeft');
  key(root, 'ArrowLeft');
  assert.deepEqual(tv.selection(), { path: '/' }, 'the root does not collapse');
  tv.toggleDeep('/', false);
  assert.deepEqual(rowKeys(root), ['/']);
  key(root, '*');
  assert.deepEqual(rowKeys(root), ['/', '/inbox', '/inbox/m1', '/inbox/m2', 'more:/inbox', '/settings', '/settings/a']);
});

test('clicks: a twisty toggles (Alt: the whole subtree), a row selects, load more and clear call out', () => {
  const page = { nodes: [v('/inbox/m3', [], { type: 'message' })], total: 40, version: 7, more: 37, next: [3, 50], sig: collectionSig(VIEWS.find((x) => x.path === '/inbox')), loading: false, error: null, exhausted: null, stamp: 1 };
  const { root, tv, calls } = view(source(VIEWS), new Map([['/inbox', page]]));
  row(root, '/settings').querySelector('.twisty').dispatchEvent(new MouseEvent('click', { bubbles: true }));
  assert.equal(row(root, '/settings/a'), null);
  row(root, '/inbox/m2').querySelector('.nid').dispatchEvent(new MouseEvent('click', { bubbles: true }));
  assert.deepEqual(tv.selection(), { path: '/inbox/m2' });
  assert.deepEqual(rowKeys(root).slice(0, 7), ['/', '/inbox', '/inbox/m1', '/inbox/m2', 'qhead:/inbox', 'q:/inbox/m3', 'more:/inbox']);
  assert.equal(text(row(root, 'qhead:/inbox'), 'qlabel'), 'query result · 1 more of 40 · v7 · read-only, not live');
  row(root, 'q:/inbox/m3').click();
  assert.deepEqual(tv.selection(), { path: '/inbox/m3', query: page.nodes[0] }, 'a query result: its view comes with the selection');
  assert.equal(row(root, 'more:/inbox').querySelector('button').textContent, 'Load more (37 not shown)');
  row(root, 'more:/inbox').querySelector('[data-action="load-more"]').click();
  row(root, 'qhead:/inbox').querySelector('[data-action="clear-query"]').click();
  assert.deepEqual(calls.more, ['/inbox']);
  assert.deepEqual(calls.clear, ['/inbox']);
});

test('the "load more" row follows its page: loading, failed, nothing more', () => {
  const page = { nodes: [], total: 40, version: null, loading: true, error: null, exhausted: null, stamp: 1 };
  const pages = new Map([['/inbox', page]]);
  const { root, tv } = view(source(VIEWS), pages);
  const btn = () => row(root, 'more:/inbox').querySelector('button');
  assert.equal(btn().textContent, 'loading…');
  assert.equal(btn().disabled, true);
  assert.equal(row(root, 'qhead:/inbox'), null, 'no empty block');
  Object.assign(page, { loading: false, error: 'timeout', stamp: 2 });
  tv.setExtras(pages);
  assert.equal(btn().textContent, 'query failed: timeout');
  // Exhausted for the collection as it is: a note instead of the button.
  Object.assign(page, { error: null, exhausted: { sig: collectionSig(VIEWS[1]) }, stamp: 3 });
  tv.setExtras(pages);
  assert.equal(btn(), null);
  assert.equal(row(root, 'more:/inbox').querySelector('[data-role="no-more"]').textContent, 'the provider returned no more children (it announced 40)');
});

test('search marks, reveal, and rows kept while their view is the same', () => {
  const views = [v('/', ['a', 'b']), v('/a', Array.from({ length: 13 }, (_, i) => `c${i}`)), ...Array.from({ length: 13 }, (_, i) => v(`/a/c${i}`)), v('/b')];
  const { root, tv, calls } = view(source(views));
  assert.equal(row(root, '/a/c3'), null, 'more than 12 children start collapsed');
  tv.reveal('/a/c3');
  assert.deepEqual(tv.selection(), { path: '/a/c3' });
  assert.deepEqual(calls.select.at(-1), { path: '/a/c3' });
  assert.ok(row(root, '/a/c3').classList.contains('selected'));
  tv.setMatches(new Set(['/a/c3', '/b']), '/b');
  assert.ok(row(root, '/a/c3').classList.contains('match'));
  assert.ok(row(root, '/b').classList.contains('current-match'));

  const bRow = row(root, '/b');
  const c1Row = row(root, '/a/c1');
  const changed = v('/a/c1', [], { properties: { label: 'new' } });
  const next = source(views.map((x) => (x.path === '/a/c1' ? changed : x)), { structure: 2 });
  tv.setSource(next, { touched: new Set(['/a/c1']) });
  assert.equal(row(root, '/b'), bRow, 'the same element');
  assert.equal(row(root, '/a/c1'), c1Row, 'a patched row keeps its element (a press on it ends on it)');
  assert.equal(text(c1Row, 'nsum'), 'new', 'and shows the new view');
  assert.ok(row(root, '/a/c1').classList.contains('flash'), 'a patched row flashes');
});

test('a press selects the row it started on, whatever re-rendered or moved before the release', () => {
  const views = [v('/', ['hot', 'b']), v('/hot', [], { properties: { label: 'tick 0' } }), v('/b')];
  const { root, tv } = view(source(views));
  const hotRow = row(root, '/hot');
  const hotName = hotRow.querySelector('.nsum');
  hotName.dispatchEvent(new MouseEvent('pointerdown', { bubbles: true, button: 0 }));
  // Patched between the button going down and coming up: the row's children are new.
  for (let n = 1; n <= 3; n++) {
    tv.setSource(source(views.map((x) => (x.path === '/hot' ? v('/hot', [], { properties: { label: `tick ${n}` } }) : x)), { structure: 1 + n }), { touched: new Set(['/hot']) });
  }
  assert.equal(row(root, '/hot'), hotRow, 'the same row element');
  assert.equal(text(hotRow, 'nsum'), 'tick 3');
  // The release lands elsewhere (the list moved, or the pressed span is gone): the click goes to
  // what the two have in common, the tree itself, as a browser sends it.
  root.dispatchEvent(new MouseEvent('click', { bubbles: true, detail: 1 }));
  assert.deepEqual(tv.selection(), { path: '/hot' }, 'the row pressed is selected');
  // A twisty pressed then re-rendered still toggles rather than selects.
  const rootRow = row(root, '/');
  rootRow.querySelector('.twisty').dispatchEvent(new MouseEvent('pointerdown', { bubbles: true, button: 0 }));
  tv.setSource(source(views, { structure: 9 }), { touched: new Set(['/']) });
  root.dispatchEvent(new MouseEvent('click', { bubbles: true, detail: 1 }));
  assert.equal(row(root, '/hot'), null, 'collapsed by the twisty pressed');
  // A click without a press (detail 0: a key, a script) is read from its own target.
  tv.toggle('/', true);
  row(root, '/b').querySelector('.nid').dispatchEvent(new MouseEvent('click', { bubbles: true }));
  assert.deepEqual(tv.selection(), { path: '/b' });
  // A right button press notes nothing.
  row(root, '/hot').dispatchEvent(new MouseEvent('pointerdown', { bubbles: true, button: 2 }));
  root.dispatchEvent(new MouseEvent('click', { bubbles: true, detail: 1 }));
  assert.deepEqual(tv.selection(), { path: '/b' });
});

test('a path revealed before its parent\'s view came is scrolled to once its row is there, unless something else was selected', () => {
  const ids = Array.from({ length: 200 }, (_, i) => `c${i}`);
  // /a's own view has not come: the panel does not know its children yet.
  const some = [v('/', ['a'])];
  const all = [v('/', ['a']), v('/a', ids), ...ids.map((id) => v(`/a/${id}`))];
  const { tv } = view(source(some));
  const scrolled = [];
  const scrollToIndex = tv.list.scrollToIndex.bind(tv.list);
  tv.list.scrollToIndex = (i, where) => { scrolled.push([tv.rows[i]?.path ?? tv.rows[i]?.key, where]); scrollToIndex(i, where); };
  tv.reveal('/a/c150');
  assert.deepEqual(scrolled, []);
  tv.setSource(source(all, { structure: 2 }));
  assert.deepEqual(scrolled, [['/a/c150', 'center']]);
  assert.deepEqual(tv.selection(), { path: '/a/c150' });
  tv.setSource(source(all, { structure: 3 }));
  assert.equal(scrolled.length, 1, 'once');

  // A selection made meanwhile wins.
  const other = view(source(some));
  const moved = [];
  other.tv.list.scrollToIndex = (i) => moved.push(i);
  other.tv.reveal('/a/c150');
  other.tv.select('/a/c1');
  other.tv.setSource(source(all, { structure: 2 }));
  assert.deepEqual(moved.filter((i) => other.tv.rows[i]?.path === '/a/c150'), []);
});

test('a collection announced as 0 of 40 opens (twisty, →, a click) and offers Load more; an empty plain node does not open', () => {
  const views = [
    v('/', ['later', 'leaf'], { type: 'root' }),
    v('/later', [], { type: 'collection', meta: { total_children: 40 }, more: 40, next_window: [0, 50] }),
    v('/leaf', [], { type: 'item' }),
  ];
  const { root, tv, calls } = view(source(views));
  assert.match(row(root, '/later').querySelector('.twisty').className, /i-chevron-right/, 'an arrow: there is more to see');
  assert.equal(row(root, '/later').getAttribute('aria-expanded'), 'false');
  assert.doesNotMatch(row(root, '/leaf').querySelector('.twisty').className, /i-chevron/);
  assert.equal(row(root, '/leaf').getAttribute('aria-expanded'), null);
  row(root, '/later').querySelector('.twisty').dispatchEvent(new MouseEvent('click', { bubbles: true }));
  assert.deepEqual(rowKeys(root), ['/', '/later', 'more:/later', '/leaf']);
  assert.equal(row(root, 'more:/later').querySelector('button').textContent, 'Load more (40 not shown)');
  row(root, 'more:/later').querySelector('[data-action="load-more"]').click();
  assert.deepEqual(calls.more, ['/later']);
  // Collapsed and opened again by keys.
  row(root, '/later').querySelector('.nid').dispatchEvent(new MouseEvent('click', { bubbles: true }));
  key(tv.root ?? root, 'ArrowLeft');
  assert.deepEqual(rowKeys(root), ['/', '/later', '/leaf']);
  key(tv.root ?? root, 'ArrowRight');
  assert.deepEqual(rowKeys(root), ['/', '/later', 'more:/later', '/leaf']);
});
