// breadcrumbs.js: the selected node's path under the tree, as in the Elements panel: one crumb
// per ancestor (its id; the selected one's type too), each a button that selects that node. When they do not fit, the
// crumbs nearest the root give way first, replaced by "…" (its tooltip has the whole path), so
// the selected node and its parents stay in view at any width.

import { h } from '../../shared/dom.js';
import { parentPath } from '../../shared/node-path.js';

export class Breadcrumbs {
  #shown = null;

  /**
   * @param {HTMLElement} el  the bar
   * @param {{onPick: (path: string) => void, onClearFilter?: () => void}} o
   *   onClearFilter: the "hidden by the filter" chip's button (the selected row is filtered out)
   */
  constructor(el, { onPick, onClearFilter }) {
    this.el = el;
    this.onPick = onPick;
    this.onClearFilter = onClearFilter;
    el.setAttribute('aria-label', 'Path of the selected node');
    el.addEventListener('click', (e) => {
      const t = /** @type {Element} */ (e.target);
      if (t.closest('button[data-action="clear-filter"]')) {
        this.onClearFilter?.();
        return;
      }
      const b = /** @type {HTMLElement|null} */ (t.closest('button[data-path]'));
      if (b) onPick(b.dataset.path);
    });
    new ResizeObserver(() => this.#fit()).observe(el);
  }

  /**
   * Shows the crumbs of `path` from `root` (the tree's root path), or nothing.
   * @param {string|null} path
   * @param {string} root
   * @param {(path: string) => object|undefined} viewOf  the node view of a path (its id), if held
   * @param {{filtered?: boolean}} [o]  filtered: the tree's filter hides the selected node's row
   *   (it stays selected and in the detail: said here, with a way to show it again)
   */
  render(path, root, viewOf, { filtered = false } = {}) {
    const sig = path === null ? null : `${root}|${path}|${filtered}`;
    if (sig === this.#shown) return;
    this.#shown = sig;
    this.el.hidden = path === null;
    if (path === null) {
      this.el.replaceChildren();
      return;
    }
    const chain = [];
    for (let p = path; p !== null; p = p === root ? null : parentPath(p)) chain.unshift(p);
    const idOf = (p) => viewOf(p)?.id ?? (p === '/' ? '/' : p.slice(p.lastIndexOf('/') + 1));
    const crumbs = chain.map((p, i) => {
      const v = viewOf(p);
      const last = i === chain.length - 1;
      return h('button', {
        type: 'button', class: `crumb${last ? ' current' : ''}`, 'data-path': p,
        'aria-current': last ? 'location' : null,
        title: `${p}${v?.type ? ` (${v.type})` : ''}`,
      }, h('span', { class: 'crumb-id', text: idOf(p) }), last && v?.type ? h('span', { class: 'crumb-type', text: v.type }) : null);
    });
    const chip = filtered ? h('span', { class: 'crumb-filtered', role: 'status', 'data-role': 'filtered-out', title: 'The tree\'s filter hides this node\'s row; it stays selected.' },
      h('span', { text: 'hidden by the filter' }),
      h('button', { type: 'button', class: 'link small', 'data-action': 'clear-filter', title: 'Clear the tree\'s filter: every row shows again' }, 'Clear filter')) : null;
    this.el.replaceChildren(h('span', { class: 'crumb-more', text: '…', title: path, hidden: true }), ...crumbs, chip ?? '');
    this.#fit();
  }

  /** Hides crumbs from the root end until the rest fits; the last one shrinks with an ellipsis. */
  #fit() {
    const more = /** @type {HTMLElement|null} */ (this.el.firstElementChild);
    if (!more) return;
    const crumbs = /** @type {HTMLElement[]} */ ([...this.el.querySelectorAll('.crumb')]);
    for (const c of crumbs) c.hidden = false;
    more.hidden = true;
    let i = 0;
    while (this.el.scrollWidth > this.el.clientWidth + 1 && i < crumbs.length - 1) {
      crumbs[i++].hidden = true;
      more.hidden = false;
    }
  }
}
