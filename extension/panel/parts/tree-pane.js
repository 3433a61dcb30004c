// tree-pane.js: the tree of the shown state (views/tree-view.js) and the count of views the panel
// holds beside the search box. Rows scrolled into view ask for missing views (mirror-fill.js);
// "load more" under a windowed collection fetches a query page (load-more.js), shown under the
// live tree only. Around it: a row's context menu (row-menu.js), the selected path's breadcrumbs
// (breadcrumbs.js), and the filter and display strip (tree-options.js).
//
// The rows are rebuilt at once when the last rebuild was a while ago (a patch after a quiet spell
// shows without waiting for the next frame), else at most once per animation frame, right before
// the paint: a flood of deltas then costs one render a frame (style, layout, paint, and the hover
// hit test Chrome runs after a layout under the pointer), not one per batch.

import { loadMore } from '../load-more.js';
import { assembleTree } from '../export.js';
import { verbatimView } from '../exact-views.js';
import { stringifyExact } from '../../../js-glue/exact-json.js';
import { TreeView } from '../views/tree-view.js';
import { RowMenu } from './row-menu.js';
import { Breadcrumbs } from './breadcrumbs.js';
import { TreeOptions } from './tree-options.js';
import { oncePerFrame } from '../panes.js';
import { isAtOrUnder, parentPath } from '../../shared/node-path.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../bridge.js').Bridge} Bridge */
/** @typedef {import('../selection.js').Selection} Selection */

const NO_PAGES = new Map();
/** A render this long after the last one is done at once, not at the next frame. */
const TREE_QUIET_MS = 8;
const now = () => performance.timeOrigin + performance.now();

/** @typedef {import('../views/tree-view.js').TreeSelection} TreeSelection */

export class TreePane {
  /** {key, paths} changed since the last render, for the flash. @type {{key: string, paths: Set<string>}|null} */
  #touched = null;
  #lastRender = -Infinity;
  #due = false;
  #inFrame = oncePerFrame(() => { if (this.#due) this.#renderNow(); });

  /**
   * @param {{tree: HTMLElement, loadState: HTMLElement, crumbs: HTMLElement, filterButton: HTMLButtonElement, filterStrip: HTMLElement}} els
   * @param {{store: Store, bridge: Bridge,
   *          selection: Selection, fill: import('../mirror-fill.js').MirrorFill,
   *          marks: Record<string, number>, onSelect: (sel: TreeSelection|null) => void, onOpen: (sel: TreeSelection) => void,
   *          onRemoved: (info: {path: string, version: number, at: string}) => void,
   *          copy: (text: string, what: string) => void, showInLog: (path: string) => void}} o
   *   marks: the panel's timing marks (firstRows, firstRowsCount, firstRowsPainted are set here);
   *   onRemoved: a patch removed the selected node, the selection goes to its ancestor `at` next
   */
  constructor(els, { store, bridge, selection, fill, marks, onSelect, onOpen, onRemoved, copy, showInLog }) {
    this.els = els;
    this.store = store;
    this.selection = selection;
    this.marks = marks;
    this.copy = copy;
    this.showInLog = showInLog;
    this.onRemoved = onRemoved;
    /** A live tree the user may act on (not a version from the history). */
    const liveTree = () => (selection.scrub ? null : selection.tree());
    this.view = new TreeView(els.tree, {
      onSelect: (sel) => {
        this.#renderCrumbs();
        onSelect(sel);
      },
      onOpen,
      onNeedNodes: (paths) => {
        const tree = liveTree();
        if (tree) fill.need(/** @type {import('../store.js').Tree} */ (tree), paths); // live: the store's
      },
      onLoadMore: (path) => {
        const tree = liveTree();
        if (tree && !selection.isImport()) loadMore({ store, bridge }, tree, path);
      },
      onClearQuery: (path) => {
        const tree = selection.tree();
        if (tree) store.clearQuery(tree.key, tree.sub, path);
      },
      onCopy: (view) => this.copyNode(view),
      onMenu: (sel, at) => this.#openMenu(sel, at),
    });
    this.menu = new RowMenu(document.body);
    this.crumbs = new Breadcrumbs(els.crumbs, {
      onPick: (path) => {
        if (selection.source()?.nodes.has(path)) this.view.reveal(path);
      },
      onClearFilter: () => {
        const sel = this.view.selection();
        this.options.clear();
        if (sel && !sel.query && selection.source()?.nodes.has(sel.path)) this.view.reveal(sel.path, { notify: false });
      },
    });
    this.options = new TreeOptions({ button: els.filterButton, strip: els.filterStrip }, {
      store, bridge, selection, view: this.view,
      onChange: () => {
        this.view.setFilter(this.options.filterFor(selection.source()));
        this.#renderCrumbs();
      },
    });
  }

  /** Ctrl+C, and the menu: the node and everything under it that the panel holds, as SLOP node JSON. */
  copyNode(view) {
    const nodes = this.selection.source()?.nodes;
    const tree = nodes?.get(view.path) === view ? assembleTree(nodes, view.path).tree : (({ path: _p, child_ids: _c, ...node }) => node)(verbatimView(view));
    this.copy(stringifyExact(tree, 2), `${view.path ?? view.id} as JSON`);
  }

  /** A row's menu. It copies, arranges rows, or finds frames; it never invokes (keys are safety). */
  #openMenu(sel, at) {
    if (!sel) return;
    const { selection, view: tv } = this;
    const view = sel.query ?? selection.source()?.nodes.get(sel.path) ?? null;
    const kids = !sel.query && view?.child_ids.length > 0;
    const what = sel.path;
    this.menu.show([
      [
        { id: 'copy-path', label: 'Copy path', run: () => this.copy(sel.path, 'path') },
        { id: 'copy-json', label: 'Copy node as JSON', keys: 'Ctrl+C', disabled: !view, run: () => this.copyNode(view) },
        { id: 'copy-value', label: 'Copy value (properties)', disabled: !view, run: () => this.copy(stringifyExact(verbatimView(view).properties ?? {}, 2), `${what} properties`) },
      ],
      [
        { id: 'expand-below', label: 'Expand all below', keys: '*', disabled: !kids, run: () => tv.toggleDeep(sel.path, true) },
        { id: 'collapse-below', label: 'Collapse all below', keys: '-', disabled: !kids, run: () => tv.toggleDeep(sel.path, false) },
        { id: 'collapse-all', label: 'Collapse all', keys: 'Shift+←', run: () => tv.collapseAll() },
      ],
      [
        { id: 'select-in-log', label: 'Select in the log', disabled: !this.showInLog || selection.isImport() || selection.isRecording(),
          run: () => this.showInLog(sel.path) },
      ],
    ], at, this.els.tree);
  }

  #renderCrumbs() {
    const src = this.selection.source();
    const sel = this.view.selection();
    // A node row the filter leaves out (a query result's row is not filtered).
    const filter = this.view.filter;
    const filtered = !!(src && sel && !sel.query && filter && !filter.shown.has(sel.path));
    this.crumbs.render(src && sel ? sel.path : null, src?.path ?? '/', (p) => src?.nodes.get(p), { filtered });
  }

  /** The query pages shown under the tree's collections (none under a version from the history). */
  #pages() {
    const tree = this.selection.tree();
    return this.selection.scrub || !tree ? NO_PAGES : this.store.queryPages(tree.key, tree.sub);
  }

  /** Shows the selected state; `change`: the store change that led here (its rows flash). */
  render(change) {
    const { selection, marks } = this;
    const src = selection.source();
    const touched = !selection.scrub ? change?.touched?.get(selection.key) : null;
    this.view.setSource(src, { touched, extras: this.#pages() });
    this.view.setFilter(this.options.filterFor(src));
    this.#renderCrumbs();
    this.options.render();
    if (!marks.firstRows && src && this.els.tree.querySelector('.row[data-path]')) {
      marks.firstRows = now();
      marks.firstRowsCount = src.nodes.size;
      // After the next paint: a task queued from an animation frame callback runs once it is drawn.
      requestAnimationFrame(() => setTimeout(() => { marks.firstRowsPainted = now(); }, 0));
    }
  }

  /**
   * A delta, reset or loaded views of the shown provider's tree, live (not a step of the History):
   * the selection keeps its place, the rows follow (at once or at the next frame), the changed ones flash.
   * @param {import('../store.js').StoreChange} change @param {string} key
   */
  treeChanged(change, key) {
    this.#keepPlace(change, key);
    const touched = change.touched.get(key);
    if (touched) {
      if (this.#touched?.key !== key) this.#touched = { key, paths: new Set() };
      for (const p of touched) this.#touched.paths.add(p);
    }
    this.#due = true;
    if (performance.now() - this.#lastRender >= TREE_QUIET_MS) this.#renderNow();
    else this.#inFrame();
  }

  #renderNow() {
    this.#due = false;
    this.#lastRender = performance.now();
    const key = this.selection.key;
    const touched = this.#touched?.key === key ? this.#touched.paths : null;
    this.#touched = null;
    this.render(touched ? { touched: new Map([[key, touched]]) } : null);
  }

  /**
   * A patch removed the selected node (or an ancestor of it): the selection goes to the nearest
   * ancestor still there, and the detail says what was removed and at which version, rather than
   * going blank. Not a sibling: an action then at hand must be on a node the user chose.
   */
  #keepPlace(change, key) {
    const removed = change.removed.get(key);
    const tree = this.selection.tree();
    const sel = this.view.selection();
    if (!removed || !tree || !sel || sel.query || tree.nodes.has(sel.path)) return;
    const hit = removed.find((r) => r.sub === tree.sub && isAtOrUnder(sel.path, r.path));
    if (!hit) return;
    let at = parentPath(hit.path);
    while (at !== null && !tree.nodes.has(at)) at = parentPath(at);
    if (at === null) return;
    this.onRemoved({ path: sel.path, version: hit.version, at });
    this.view.select(at);
  }

  /** The query pages changed. */
  renderPages() {
    this.view.setExtras(this.#pages());
  }

  /** "10,101 nodes", or "loading 3,000 of 10,101…" while the background load runs. */
  renderLoadState() {
    const { selection, store } = this;
    const tree = selection.tree();
    const el = this.els.loadState;
    if (!tree) { el.textContent = ''; return; }
    const scrub = selection.scrub;
    if (scrub) { el.textContent = `v${scrub.version} · ${scrub.source.nodes.size.toLocaleString()} nodes`; return; }
    const info = selection.provider()?.subscriptions.find((s) => s.sub === tree.sub);
    // The worker's count as of its last answer (removed nodes leave it); the provider list's is older.
    const total = tree.total ?? info?.nodes ?? (selection.isImport() ? store.imports.get(selection.key)?.count : null);
    el.textContent = tree.complete || (total && tree.nodes.size >= total)
      ? `${tree.nodes.size.toLocaleString()} node${tree.nodes.size === 1 ? '' : 's'}`
      : `loading ${tree.nodes.size.toLocaleString()}${total ? ` of ${total.toLocaleString()}` : ''}…`;
    el.title = `${el.textContent}: node views held by the panel (search, history and export cover these)`;
  }
}
