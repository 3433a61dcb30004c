// tree-pane.js: the tree of the shown state (views/tree-view.js) and the count of views the panel
// holds beside the search box. Rows scrolled into view ask for missing views (mirror-fill.js);
// "load more" under a windowed collection fetches a query page (load-more.js), shown under the
// live tree only.

import { loadMore } from '../load-more.js';
import { assembleTree } from '../export.js';
import { TreeView } from '../views/tree-view.js';

const NO_PAGES = new Map();
const now = () => performance.timeOrigin + performance.now();

export class TreePane {
  /**
   * @param {{tree: HTMLElement, loadState: HTMLElement}} els
   * @param {{store, bridge, selection, fill: import('../mirror-fill.js').MirrorFill, marks: object,
   *          onSelect: () => void, onOpen: () => void, copy: (text: string, what: string) => void}} o
   *   marks: the panel's timing marks (firstRows, firstRowsCount, firstRowsPainted are set here)
   */
  constructor(els, { store, bridge, selection, fill, marks, onSelect, onOpen, copy }) {
    Object.assign(this, { els, store, selection, marks });
    /** A live tree the user may act on (not a version from the history). */
    const liveTree = () => (selection.scrub ? null : selection.tree());
    this.view = new TreeView(els.tree, {
      onSelect,
      onOpen,
      onNeedNodes: (paths) => {
        const tree = liveTree();
        if (tree) fill.need(tree, paths);
      },
      onLoadMore: (path) => {
        const tree = liveTree();
        if (tree && !selection.isImport()) loadMore({ store, bridge }, tree, path);
      },
      onClearQuery: (path) => {
        const tree = selection.tree();
        if (tree) store.clearQuery(tree.key, tree.sub, path);
      },
      // Ctrl+C: the node and everything under it that the panel holds, as SLOP node JSON.
      onCopy: (view) => {
        const nodes = selection.source()?.nodes;
        const tree = nodes?.get(view.path) === view ? assembleTree(nodes, view.path).tree : (({ path: _p, child_ids: _c, ...node }) => node)(view);
        copy(JSON.stringify(tree, null, 2), `${view.path ?? view.id} as JSON`);
      },
    });
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
    if (!marks.firstRows && src && this.els.tree.querySelector('.row[data-path]')) {
      marks.firstRows = now();
      marks.firstRowsCount = src.nodes.size;
      // After the next paint: a task queued from an animation frame callback runs once it is drawn.
      requestAnimationFrame(() => setTimeout(() => { marks.firstRowsPainted = now(); }, 0));
    }
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
