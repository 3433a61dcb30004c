// tree-view.js: the state tree of one subscription (live, or a version from the history),
// virtualized: the visible tree is flattened into rows (recomputed only when the structure or the
// expansion changes) and only the rows on screen are in the DOM (virtual-list.js). A row is rebuilt
// only when its node view, depth, expansion, selection or search mark changed; rows changed by a
// patch flash once. Keyboard: Up/Down, Left/Right (collapse / parent, expand / first child),
// Home/End, PageUp/PageDown, Enter (open the node's detail, or load more), Ctrl+C (copy the node
// as JSON), * / - (expand / collapse everything below), Shift+Left (collapse all), ContextMenu or
// Shift+F10 (the row's menu, hooks.onMenu). A filter (setFilter) shows only some node rows.
//
// Windowed collections (more children than shown, load-more.js) end with a "load more"
// row; what it fetches (a query with a window) is shown under the collection as a
// read-only "query result" block: those nodes are not part of the subscription's mirror and do
// not update live. When a query brings nothing new, the row says so instead of offering the same
// empty page again, until the collection changes.

import { h, morph } from '../../shared/dom.js';
import { childPath, parentPath } from '../../shared/node-path.js';
import { exhausted, moreToLoad } from '../load-more.js';
import { VirtualList } from './virtual-list.js';
import { Press } from './press.js';
import { flattenRows, nodeRow, placeholderRow, queryHeadRow, queryRow, moreRow } from './tree-rows.js';

// What a node's row says: tree-rows.js (nodeSummary, salienceOf there).

export const ROW_HEIGHT = 22;

/**
 * Starts a row's flash from its beginning on an element that was flashing already (the class it
 * keeps would not start it again). Rewinding the animation lays nothing out, unlike toggling the
 * class around a forced reflow. @param {Element} el
 */
function rewindFlash(el) {
  for (const a of el.getAnimations?.() ?? []) a.currentTime = 0;
}
const FLASH_EVERY_MS = 1000;
const DEPTH_INDENT = 14;

/** @typedef {{path: string, query?: object}} TreeSelection  a node row selected: a path, and the query page it is in */

export class TreeView {
  /**
   * @param {HTMLElement} root   the scrolling element
   * @param {{onSelect: (sel: TreeSelection|null) => void, onOpen: (sel: TreeSelection) => void,
   *          onMenu?: (sel: TreeSelection, at: {x: number, y: number, keyboard?: boolean}) => void,
   *          onNeedNodes: (paths: string[]) => void, onLoadMore: (path: string) => void,
   *          onClearQuery: (path: string) => void, onCopy?: (view: object) => void}} hooks
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.source = null;       // {key, sub, path, nodes, structure, resetId, live}
    this.extras = new Map();  // collection path → {nodes, total, version, loading, error}
    this.expandedBy = new Map(); // "key sub" → Set of expanded paths
    this.expanded = new Set();
    this.rows = [];
    this.rowIndex = new Map(); // row key → index
    this.cache = new Map();    // row key → {el, sig}
    this.flash = new Set();
    this.flashedAt = new Map(); // path → when its row last flashed
    this.selected = null;      // row key: a path, or "q:" + path for a query result
    this.matches = new Set();
    this.currentMatch = null;
    this.flatKey = null;
    this.filter = null;        // {stamp, shown: Set of paths}: only these node rows (tree-filter.js)
    root.setAttribute('role', 'tree');
    if (!root.hasAttribute('aria-label')) root.setAttribute('aria-label', 'State tree');
    root.tabIndex = 0;
    /** row key → its element id (a path may hold any character; an id is made for it). */
    this.rowIds = new Map();
    root.addEventListener('keydown', (e) => this.#onKey(e));
    this.press = new Press(root, '.row');
    root.addEventListener('click', (e) => this.handleClick(e));
    // A flash ends by itself (the class goes, so the row can flash again later).
    const flashDone = (e) => { if (e.target.classList?.contains('row')) e.target.classList.remove('flash'); };
    root.addEventListener('animationend', flashDone);
    root.addEventListener('animationcancel', flashDone);
    root.addEventListener('dblclick', (e) => this.handleDblClick(e));
    root.addEventListener('contextmenu', (e) => this.#onContextMenu(e));
    this.list = new VirtualList(root, {
      rowHeight: ROW_HEIGHT,
      renderRow: (i) => this.#row(i),
      onRender: (first, last) => this.#afterRender(first, last),
    });
  }

  /**
   * Shows a tree. `touched`: paths a patch just changed (they flash).
   * @param {import('../store.js').TreeSource|null} source
   * @param {{touched?: Iterable<string>|null, extras?: Map<string, import('../store.js').QueryPage>|null}} [o]
   */
  setSource(source, { touched = null, extras = null } = {}) {
    if (extras && extras !== this.extras) {
      this.extras = extras;
      this.flatKey = null;
    }
    const id = source ? `${source.key} ${source.sub}` : null;
    const prevId = this.source ? `${this.source.key} ${this.source.sub}` : null;
    if (id !== prevId) {
      this.cache.clear();
      this.selected = null;
      this.#revealWanted = null;
      if (id && !this.expandedBy.has(id)) this.expandedBy.set(id, this.#defaultExpansion(source));
      this.expanded = id ? this.expandedBy.get(id) : new Set();
    } else if (source && this.source && source.resetId !== this.source.resetId && source.live) {
      // A re-base: new view objects for everything; drop rows of paths that are gone.
      for (const k of [...this.cache.keys()]) if (!source.nodes.has(k)) this.cache.delete(k);
    }
    if (source) this.expanded.add(source.path);
    this.source = source;
    if (touched && source?.live) {
      // A row that keeps changing flashes at most once a second, never a steady band.
      const now = performance.now();
      for (const p of touched) {
        if (now - (this.flashedAt.get(p) ?? -Infinity) < FLASH_EVERY_MS) continue;
        this.flashedAt.set(p, now);
        this.flash.add(p);
      }
      if (this.flashedAt.size > 5000) this.flashedAt.clear();
    }
    this.render();
  }

  #defaultExpansion(source) {
    const set = new Set([source.path]);
    const rootView = source.nodes.get(source.path);
    for (const cid of rootView?.child_ids ?? []) {
      const p = childPath(source.path, cid);
      const v = source.nodes.get(p);
      if (v && v.child_ids.length > 0 && v.child_ids.length <= 12) set.add(p);
    }
    return set;
  }

  /** The query results shown under collections (a Map that the caller updates in place). */
  setExtras(extras) {
    this.extras = extras;
    this.flatKey = null;
    this.render();
  }

  setMatches(matches, current) {
    this.matches = matches;
    this.currentMatch = current;
    this.render();
  }

  // -------------------------------------------------------------------------- flattening

  #flatten() {
    const src = this.source;
    const key = src ? `${src.key}|${src.sub}|${src.structure}|${src.resetId}|${this.expandedStamp ?? 0}|${this.extrasStamp()}|${this.filter?.stamp ?? ''}` : '';
    if (key === this.flatKey) return;
    // The same tree with rows added or removed: keep the reader's place (below).
    const anchor = this.flatKey && src && this.flatKey.startsWith(`${src.key}|${src.sub}|`) ? this.#anchor() : null;
    this.flatKey = key;
    const rows = src ? flattenRows(src, this) : [];
    for (const r of rows) if (!r.key) r.key = r.kind === 'qnode' ? `q:${r.path}` : `${r.kind}:${r.path}`;
    this.rows = rows;
    this.rowIndex = new Map(rows.map((r, i) => [r.key, i]));
    this.list.setCount(rows.length);
    if (anchor) this.#keepAnchor(anchor);
  }

  /**
   * The row the reader's eye is on, and where on screen: the selected row while it is in view,
   * else the first row in view (none at the very top: rows added there are meant to be seen).
   * As the Elements panel does, rows inserted or removed above it then do not move it.
   */
  #anchor() {
    const { list } = this;
    const rh = list.rowHeight;
    const sel = this.selected !== null ? this.rowIndex.get(this.selected) : undefined;
    if (sel !== undefined && sel * rh >= list.top && (sel + 1) * rh <= list.top + list.height) {
      return { key: this.selected, offset: sel * rh - list.top };
    }
    if (list.top <= 0) return null;
    const first = Math.ceil(list.top / rh);
    const r = this.rows[first];
    return r ? { key: r.key, offset: first * rh - list.top } : null;
  }

  #keepAnchor({ key, offset }) {
    const i = this.rowIndex.get(key);
    if (i === undefined) return;
    const { list } = this;
    const max = Math.max(0, list.count * list.rowHeight - list.height);
    const top = Math.max(0, Math.min(max, i * list.rowHeight - offset));
    if (top === list.top) return;
    list.top = top;
    this.root.scrollTop = top;
  }

  extrasStamp() {
    let s = '';
    for (const [p, e] of this.extras) s += `${p}:${e.nodes.length}:${e.loading ? 1 : 0}:${e.error ? 1 : 0}:${e.exhausted?.sig ?? ''}:${e.stamp ?? 0};`;
    return s;
  }

  render() {
    this.#flatten();
    this.#revealWhenHere();
    this.list.render();
    this.flash.clear();
  }

  /** A path revealed before its view came (the panel loads views in the background): scrolled to once it has a row. */
  #revealWanted = null;

  #revealWhenHere() {
    const want = this.#revealWanted;
    if (!want) return;
    // Anything else selected since (a click, a key) wins: the wish lapses.
    if (this.selected !== want) {
      this.#revealWanted = null;
      return;
    }
    const i = this.rowIndex.get(want);
    if (i === undefined) return;
    this.#revealWanted = null;
    this.list.scrollToIndex(i, 'center');
  }

  get rowCount() {
    return this.rows.length;
  }

  // -------------------------------------------------------------------------------- rows

  #row(i) {
    const r = this.rows[i];
    const src = this.source;
    if (r.kind === 'node') {
      const view = src.nodes.get(r.path) ?? null;
      const open = this.expanded.has(r.path);
      const sig = `${r.depth}|${open}|${this.selected === r.key}|${this.matches.has(r.path)}|${this.currentMatch === r.path}`;
      const c = this.cache.get(r.key);
      const flash = this.flash.has(r.path);
      if (c && c.view === view && c.sig === sig && !flash) return c.el;
      const fresh = view ? nodeRow(this.#rowContext(), view, r, open, flash) : placeholderRow(this.#rowContext(), r);
      // The row keeps its element while its key is the same: a press on a patched row ends on it.
      const wasFlashing = !!c && c.el.classList.contains('flash');
      const el = c ? morph(c.el, fresh) : fresh;
      if (flash && wasFlashing) rewindFlash(el);
      this.cache.set(r.key, { el, view, sig });
      return el;
    }
    const sig = `${r.kind}|${r.depth}|${this.selected === r.key}|${this.extrasStamp()}`;
    const c = this.cache.get(r.key);
    if (c && c.sig === sig && c.ref === r.ref) return c.el;
    let fresh;
    if (r.kind === 'qnode') fresh = queryRow(this.#rowContext(), r);
    else if (r.kind === 'qhead') fresh = queryHeadRow(this.#rowContext(), r);
    else fresh = moreRow(this.#rowContext(), r);
    const el = c ? morph(c.el, fresh) : fresh;
    this.cache.set(r.key, { el, sig, ref: r.ref });
    return el;
  }

  /** The element id of the row for key `key`, the same for as long as the view lives. @param {string} key */
  #rowId(key) {
    let id = this.rowIds.get(key);
    if (!id) this.rowIds.set(key, id = `tr-${this.rowIds.size + 1}`);
    return id;
  }

  /** What tree-rows.js builds a row with. @returns {import('./tree-rows.js').RowContext} */
  #rowContext() {
    return {
      base: (r, cls, extra) => this.#base(r, cls, extra), opens: (view) => this.#opens(view),
      filter: this.filter, matches: this.matches, currentMatch: this.currentMatch, source: this.source,
    };
  }

  #base(r, cls, extra = {}) {
    return h('div', {
      id: this.#rowId(r.key),
      class: `row ${cls}${this.selected === r.key ? ' selected' : ''}`,
      style: `padding-left:${6 + r.depth * DEPTH_INDENT}px`,
      'data-key': r.key,
      'aria-level': String(r.depth + 1),
      'aria-selected': String(this.selected === r.key),
      ...extra,
    });
  }

  /**
   * Whether a node opens: it shows children, or it is a windowed collection with more to load,
   * "0 of 40" included (opened, it offers Load more), or pages were loaded under it.
   * @param {import('../../shared/messages.js').NodeView|null|undefined} view @returns {boolean}
   */
  #opens(view) {
    if (!view) return false;
    if (view.child_ids.length) return true;
    const extra = this.extras.get(view.path);
    return moreToLoad(view, extra) > 0 || exhausted(view, extra) || !!extra?.nodes.length;
  }

  #afterRender(first, last) {
    if (!this.source) return;
    const missing = [];
    for (let i = first; i < last; i++) {
      const r = this.rows[i];
      if (r.kind === 'node' && !this.source.nodes.has(r.path)) missing.push(r.path);
      if (r.kind === 'node') this.#setPosition(r);
    }
    if (missing.length && this.source.live) this.hooks.onNeedNodes(missing);
    // The tree keeps the focus; it names its active row, so that a screen reader reads the row
    // the arrows moved to (as with a roving tabindex, without moving focus into a virtual list).
    const active = this.selected !== null ? this.cache.get(this.selected)?.el : null;
    if (active?.isConnected) {
      if (this.root.getAttribute('aria-activedescendant') !== active.id) this.root.setAttribute('aria-activedescendant', active.id);
    } else if (this.root.hasAttribute('aria-activedescendant')) this.root.removeAttribute('aria-activedescendant');
  }

  /**
   * A node row's place among its siblings (aria-posinset / aria-setsize): only the rows on
   * screen exist, so a screen reader cannot count them. Read from the parent's child ids.
   */
  #setPosition(r) {
    const el = this.cache.get(r.key)?.el;
    const slash = r.path.lastIndexOf('/');
    if (!el || slash < 0 || r.path === this.source.path) return;
    const parent = this.source.nodes.get(slash === 0 ? '/' : r.path.slice(0, slash));
    const ids = parent?.child_ids;
    if (!ids) return;
    const id = r.path.slice(slash + 1); // ids hold no '/' or '~': the segment is the id
    const pos = String(ids.indexOf(id) + 1);
    const size = String(Math.max(ids.length, Number(parent.meta?.total_children) || 0));
    if (pos !== '0' && el.getAttribute('aria-posinset') !== pos) el.setAttribute('aria-posinset', pos);
    if (el.getAttribute('aria-setsize') !== size) el.setAttribute('aria-setsize', size);
  }

  // -------------------------------------------------------------------------- interaction

  /** The selection as {path, query?}: query is the query-result node for "q:" rows. */
  selection() {
    if (!this.selected) return null;
    const r = this.rows[this.rowIndex.get(this.selected)];
    if (this.selected.startsWith('q:')) return r ? { path: r.path, query: r.ref } : null;
    return this.selected.startsWith('/') ? { path: this.selected } : null;
  }

  selectKey(key, { scroll = true, notify = true } = {}) {
    this.selected = key;
    const i = this.rowIndex.get(key);
    if (scroll && i !== undefined) this.list.scrollToIndex(i);
    this.render();
    if (notify) this.hooks.onSelect(this.selection());
  }

  /** Selects a node row by path (expanding nothing). */
  select(path, opts) {
    this.selectKey(path, opts);
  }

  /** Expands every ancestor of path, selects it and scrolls it to the middle. */
  reveal(path, { notify = true } = {}) {
    let p = parentPath(path);
    while (p !== null) {
      this.expanded.add(p);
      p = parentPath(p);
    }
    this.#expansionChanged();
    this.#flatten();
    this.selected = path;
    const i = this.rowIndex.get(path);
    if (i !== undefined) this.list.scrollToIndex(i, 'center');
    this.#revealWanted = i === undefined ? path : null;
    this.render();
    if (notify) this.hooks.onSelect(this.selection());
  }

  #expansionChanged() {
    this.expandedStamp = (this.expandedStamp ?? 0) + 1;
  }

  toggle(path, open = !this.expanded.has(path)) {
    if (open) this.expanded.add(path);
    else this.expanded.delete(path);
    this.#expansionChanged();
    this.render();
  }

  /** Expands or collapses a node and all its loaded descendants. */
  toggleDeep(path, open) {
    const stack = [path];
    while (stack.length) {
      const p = stack.pop();
      const v = this.source?.nodes.get(p);
      if (!this.#opens(v)) continue;
      if (open) this.expanded.add(p);
      else this.expanded.delete(p);
      for (const id of v.child_ids) stack.push(childPath(p, id));
    }
    this.#expansionChanged();
    this.render();
  }

  /**
   * Shows only the node rows in `filter.shown` (matches and their ancestors; tree-filter.js), or
   * every row (null). Rows are rebuilt: a twisty shows only when a child is shown.
   */
  setFilter(filter) {
    if (filter === this.filter) return;
    this.filter = filter;
    this.cache.clear();
    this.render();
  }

  /** Opens these nodes (a filter's matches' ancestors) without touching the others. */
  expandPaths(paths) {
    let added = false;
    for (const p of paths) if (!this.expanded.has(p)) { this.expanded.add(p); added = true; }
    if (!added) return;
    this.#expansionChanged();
    this.render();
  }

  /**
   * Collapses the whole tree to its top level (the root stays open). A selection that would be
   * hidden moves to its top-level ancestor, so the focus is never lost.
   */
  collapseAll() {
    const src = this.source;
    if (!src) return;
    this.expanded.clear();
    this.expanded.add(src.path);
    this.#expansionChanged();
    const s = this.selection();
    if (s && s.path !== src.path) {
      let p = s.path;
      while (parentPath(p) !== null && parentPath(p) !== src.path) p = parentPath(p);
      if (p !== this.selected) {
        this.selectKey(p);
        return;
      }
    }
    this.render();
  }

  /** Row height in px (the compact density); the same rows stay in view. */
  setRowHeight(px) {
    if (px === this.list.rowHeight) return;
    this.root.style.setProperty('--row-h', `${px}px`);
    this.list.setRowHeight(px);
    const sel = this.selected !== null ? this.rowIndex.get(this.selected) : undefined;
    if (sel !== undefined) this.list.scrollToIndex(sel);
    this.render();
  }

  /** A right-click on a row selects it and asks for its menu; the keyboard's opens the selected row's. */
  #onContextMenu(e) {
    if (!this.hooks.onMenu) return;
    const rowEl = e.target.closest('.row');
    e.preventDefault();
    if (rowEl) {
      const r = this.rows[this.rowIndex.get(rowEl.dataset.key)];
      if (!r || (r.kind !== 'node' && r.kind !== 'qnode')) return;
      if (this.selected !== r.key) this.selectKey(r.key, { scroll: false });
      this.hooks.onMenu(this.selection(), { x: e.clientX, y: e.clientY });
      return;
    }
    this.#menuForSelected();
  }

  /** The selected row's menu, placed under the row (ContextMenu key, Shift+F10). */
  #menuForSelected() {
    const s = this.selection();
    const i = this.selected !== null ? this.rowIndex.get(this.selected) : undefined;
    if (!s || i === undefined || !this.hooks.onMenu) return false;
    this.list.scrollToIndex(i); // a selected row scrolled away comes back under its menu
    const el = this.cache.get(this.selected)?.el;
    if (!el?.isConnected) return false;
    const b = el.getBoundingClientRect();
    const name = el.querySelector('.nid')?.getBoundingClientRect();
    this.hooks.onMenu(s, { x: name ? name.left : b.left + 16, y: b.bottom, keyboard: true });
    return true;
  }

  /** A click, read as the press that made it (press.js): the row pressed, even if it re-rendered or moved since. */
  handleClick(e) {
    const { row: rowEl, closest } = this.press.resolve(e);
    if (!rowEl) return;
    const key = rowEl.dataset.key;
    const i = this.rowIndex.get(key);
    const r = this.rows[i];
    if (!r) return;
    this.root.focus({ preventScroll: true });
    if (closest('[data-action="load-more"]')) return this.hooks.onLoadMore(r.path);
    if (closest('[data-action="clear-query"]')) return this.hooks.onClearQuery(r.path);
    if (r.kind !== 'node' && r.kind !== 'qnode') return;
    if (r.kind === 'node' && closest('.twisty')) {
      const v = this.source.nodes.get(r.path);
      if (this.#opens(v)) {
        if (e.altKey) this.toggleDeep(r.path, !this.expanded.has(r.path));
        else this.toggle(r.path);
      }
      return;
    }
    this.selectKey(key, { scroll: false });
  }

  /** Ctrl+C on a node row: the node as JSON, unless the user selected text to copy. */
  #copySelected() {
    const sel = globalThis.getSelection?.();
    if (sel && !sel.isCollapsed) return false;
    const s = this.selection();
    const view = s ? (s.query ?? this.source.nodes.get(s.path)) : null;
    if (!view || !this.hooks.onCopy) return false;
    this.hooks.onCopy(view);
    return true;
  }

  handleDblClick(e) {
    const rowEl = e.target.closest('.row.node');
    if (!rowEl || rowEl.dataset.query) return;
    const v = this.source?.nodes.get(rowEl.dataset.path);
    if (this.#opens(v)) this.toggle(v.path);
  }

  #onKey(e) {
    if (this.source && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'c' && this.#copySelected()) {
      e.preventDefault();
      return;
    }
    if (!this.source || e.altKey || e.ctrlKey || e.metaKey) return;
    // Shift+Left: collapse all (the plain arrow below collapses one node).
    if (e.shiftKey && e.key === 'ArrowLeft') {
      this.collapseAll();
      e.preventDefault();
      return;
    }
    const n = this.rows.length;
    if (!n) return;
    const i = this.selected ? (this.rowIndex.get(this.selected) ?? -1) : -1;
    const r = i >= 0 ? this.rows[i] : null;
    const view = r?.kind === 'node' ? this.source.nodes.get(r.path) : null;
    const selectable = (j) => this.rows[j] && this.rows[j].kind !== 'qhead';
    const move = (j, step) => {
      while (j >= 0 && j < n && !selectable(j)) j += step;
      if (j >= 0 && j < n) this.selectKey(this.rows[j].key);
    };
    const page = Math.max(1, Math.floor((this.root.clientHeight || 400) / this.list.rowHeight) - 1);
    switch (e.key) {
      case 'ArrowDown': move(i < 0 ? 0 : i + 1, 1); break;
      case 'ArrowUp': move(i < 0 ? 0 : i - 1, -1); break;
      case 'PageDown': move(Math.min(n - 1, Math.max(0, i) + page), 1); break;
      case 'PageUp': move(Math.max(0, i - page), -1); break;
      case 'Home': move(0, 1); break;
      case 'End': move(n - 1, -1); break;
      case 'ArrowRight':
        if (this.#opens(view) && !this.expanded.has(view.path)) this.toggle(view.path, true);
        else if (this.#opens(view)) move(i + 1, 1);
        break;
      case 'ArrowLeft':
        if (this.#opens(view) && this.expanded.has(view.path) && view.path !== this.source.path) this.toggle(view.path, false);
        else if (r) {
          const parent = r.kind === 'node' ? parentPath(r.path) : r.kind === 'qnode' ? parentPath(r.path) : r.path;
          if (parent !== null && this.rowIndex.has(parent)) this.selectKey(parent);
        }
        break;
      case 'Enter':
        if (r?.kind === 'more') this.hooks.onLoadMore(r.path);
        else if (r) this.hooks.onOpen(this.selection());
        break;
      case '*':
        if (view) this.toggleDeep(view.path, true);
        break;
      case '-':
        if (view) this.toggleDeep(view.path, false);
        break;
      case 'ContextMenu':
        this.#menuForSelected();
        break;
      case 'F10':
        if (!e.shiftKey || !this.#menuForSelected()) return;
        break;
      default:
        return;
    }
    e.preventDefault();
  }
}
