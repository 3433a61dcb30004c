// tree-view.js: the live tree of one subscription. Rows are cached by path and rebuilt only when
// their node view, depth, expansion or selection changed; updated rows flash briefly. Children
// whose views have not been sent yet are requested (getNodes) when their parent is expanded.

import { h } from '../../shared/dom.js';
import { childPath } from '../store.js';

const MAX_ROWS = 5000;

/** A one-line summary of a node: its label-like property, else the first short scalar. */
function summary(view) {
  const p = view.properties ?? {};
  for (const k of ['label', 'title', 'name', 'subject', 'text']) {
    if (typeof p[k] === 'string' && p[k]) return p[k];
  }
  for (const [k, v] of Object.entries(p)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return `${k}: ${v}`;
  }
  return '';
}

export class TreeView {
  /**
   * @param {HTMLElement} root
   * @param {{onSelect: (path: string) => void, onNeedNodes: (paths: string[]) => void}} hooks
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.tree = null;
    this.expanded = new Set();
    this.selected = null;
    this.rows = new Map(); // path → {el, sig}
    this.requested = new Set();
    this.flash = new Set();
    this.treeId = null;
    root.setAttribute('role', 'tree');
    root.tabIndex = 0;
    root.addEventListener('keydown', (e) => this.#onKey(e));
  }

  /**
   * Shows `tree` (a store Tree). Expansion is kept while it is the same subscription; a new or
   * re-based tree opens its root and top-level nodes. `selected`: the path to highlight.
   */
  show(tree, touched = new Set(), selected = this.selected) {
    const id = tree ? `${tree.sub}@${tree.reset}` : null;
    if (!tree || tree.sub !== this.tree?.sub) {
      this.expanded = new Set();
      this.rows.clear();
    }
    if (tree && id !== this.treeId) {
      this.expanded.add(tree.path);
      // Top-level nodes with a few children open too; big collections stay closed.
      const rootView = tree.nodes.get(tree.path);
      for (const cid of rootView?.child_ids ?? []) {
        const p = childPath(tree.path, cid);
        const v = tree.nodes.get(p);
        if (v && v.child_ids.length > 0 && v.child_ids.length <= 12) this.expanded.add(p);
      }
      this.requested.clear();
    }
    this.tree = tree;
    this.treeId = id;
    this.selected = selected;
    for (const p of touched) this.flash.add(p);
    this.render();
  }

  select(path) {
    this.selected = path;
    this.render();
    this.hooks.onSelect(path);
  }

  toggle(path) {
    if (this.expanded.has(path)) this.expanded.delete(path);
    else this.expanded.add(path);
    this.render();
  }

  render() {
    const tree = this.tree;
    if (!tree) {
      this.root.replaceChildren();
      return;
    }
    const ordered = [];
    const missing = [];
    const walk = (path, depth) => {
      if (ordered.length >= MAX_ROWS) return;
      const view = tree.nodes.get(path);
      if (!view) {
        ordered.push(this.#placeholderRow(path, depth));
        if (!this.requested.has(path)) missing.push(path);
        return;
      }
      ordered.push(this.#row(view, depth, tree.stamps.get(path)));
      if (this.expanded.has(path)) for (const cid of view.child_ids) walk(childPath(path, cid), depth + 1);
    };
    walk(tree.path, 0);
    if (ordered.length >= MAX_ROWS) ordered.push(h('div', { class: 'row muted', text: `… more than ${MAX_ROWS} rows: collapse some nodes` }));
    // Drop cached rows that are no longer in the tree.
    for (const p of [...this.rows.keys()]) if (!tree.nodes.has(p)) this.rows.delete(p);
    this.root.replaceChildren(...ordered);
    this.flash.clear();
    if (missing.length > 0) {
      for (const p of missing) this.requested.add(p);
      this.hooks.onNeedNodes(missing);
    }
  }

  #placeholderRow(path, depth) {
    const id = path.slice(path.lastIndexOf('/') + 1);
    return h('div', { class: 'row placeholder', style: `--depth:${depth}`, 'data-path': path },
      h('span', { class: 'twisty' }), h('span', { class: 'nid', text: id }), h('span', { class: 'muted', text: ' loading…' }));
  }

  #row(view, depth, stamp) {
    const open = this.expanded.has(view.path);
    const selected = this.selected === view.path;
    const sig = `${stamp}|${depth}|${open}|${selected}`;
    const cached = this.rows.get(view.path);
    const flash = this.flash.has(view.path);
    if (cached && cached.sig === sig && !flash) return cached.el;

    const kids = view.child_ids.length;
    const total = view.meta?.total_children;
    const affs = view.affordances?.length ?? 0;
    const urgency = view.meta?.urgency;
    const win = Array.isArray(view.meta?.window) ? view.meta.window : null;
    const el = h('div', {
      class: `row${selected ? ' selected' : ''}${flash ? ' flash' : ''}`,
      style: `--depth:${depth}`,
      role: 'treeitem',
      'aria-expanded': kids ? String(open) : undefined,
      'aria-selected': String(selected),
      'data-path': view.path,
      onclick: (e) => {
        if (e.target.closest('.twisty') && kids) this.toggle(view.path);
        else this.select(view.path);
      },
      ondblclick: () => { if (kids) this.toggle(view.path); },
    },
    h('span', { class: 'twisty', text: kids ? (open ? '▾' : '▸') : '' }),
    h('span', { class: 'nid', text: view.id }),
    h('span', { class: 'ntype', text: view.type }),
    h('span', { class: 'nsum', text: summary(view) }),
    kids || total ? h('span', { class: 'ncount muted', text: total && total !== kids ? `${kids} of ${total}` : String(kids) }) : null,
    win ? h('span', { class: 'chip', title: 'meta.window', text: `window ${win[0]}–${win[0] + win[1]}` }) : null,
    urgency && urgency !== 'none' ? h('span', { class: `urgency u-${urgency}`, title: `urgency: ${urgency}`, text: urgency }) : null,
    affs ? h('span', { class: 'naff', title: view.affordances.map((a) => a.action).join(', '), text: `⚡${affs}` }) : null);
    this.rows.set(view.path, { el, sig });
    return el;
  }

  #onKey(e) {
    const tree = this.tree;
    if (!tree) return;
    const paths = [...this.root.querySelectorAll('.row[data-path]')].map((r) => r.dataset.path);
    const i = paths.indexOf(this.selected);
    const view = this.selected ? tree.nodes.get(this.selected) : null;
    if (e.key === 'ArrowDown' && i < paths.length - 1) this.select(paths[i + 1]);
    else if (e.key === 'ArrowUp' && i > 0) this.select(paths[i - 1]);
    else if (e.key === 'ArrowRight' && view?.child_ids.length && !this.expanded.has(view.path)) this.toggle(view.path);
    else if (e.key === 'ArrowLeft' && view && this.expanded.has(view.path)) this.toggle(view.path);
    else return;
    e.preventDefault();
  }
}
