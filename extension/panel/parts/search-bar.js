// search-bar.js: the search box over the tree (Ctrl+F): matches of the shown state (search.js),
// their count, Enter / Shift+Enter and the arrows to step through them, each revealed and selected.
// Typing searches after a short pause; the tree changing under an active search re-runs it. No
// match while windowed collections hold children not loaded yet is not "no match": it says how
// many are not loaded, and offers to load the next page of the first such collection.

import { h, setChildren } from '../../shared/dom.js';
import { searchTree, unloadedChildren, SEARCH_FIELDS } from '../search.js';

const TYPING_MS = 150;

export class SearchBar {
  text = '';
  field = 'all';
  /** Matching paths in tree order, the same as a Set, and the current one's index (-1: none). */
  matches = [];
  #set = new Set();
  index = -1;
  /** @type {ReturnType<typeof setTimeout>|0} */
  #timer = 0;
  /** The query and field the matches were found for: Enter searches again when the field differs. */
  #ran = { text: '', field: 'all' };

  /**
   * @param {{input: HTMLInputElement, field: HTMLSelectElement, count: HTMLElement,
   *          prev: HTMLButtonElement, next: HTMLButtonElement, tree: HTMLElement, main: HTMLElement}} els
   * @param {{selection, treeView}} o
   */
  constructor(els, { selection, treeView }) {
    this.els = els;
    this.selection = selection;
    this.treeView = treeView;
    // Each choice reads as what it does ("in values"), so the dropdown needs no label of its own.
    setChildren(els.field, Object.entries(SEARCH_FIELDS).map(([k, label]) => h('option', { value: k, text: k === 'all' ? 'in all' : k === 'value' ? 'in values' : `in ${label}`, title: `Search in ${label}` })));
    els.field.title = 'Where to search: id, type, label, property values, or all of them';
    els.input.addEventListener('input', () => {
      this.text = els.input.value;
      this.later(TYPING_MS, { jump: true });
    });
    els.input.addEventListener('keydown', (e) => this.#onKey(e));
    els.field.addEventListener('change', () => { this.field = els.field.value; this.run({ jump: true }); });
    this.loadMore = h('button', { type: 'button', class: 'link small', 'data-action': 'search-load-more', hidden: true,
      onclick: () => this.#loadUnloaded() }, 'Load');
    els.count.after(this.loadMore);
    els.prev.addEventListener('click', () => this.step(-1));
    els.next.addEventListener('click', () => this.step(1));
    document.addEventListener('keydown', (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key === 'f' && !els.main.hidden) {
        e.preventDefault();
        els.input.focus();
        els.input.select();
      }
    });
  }

  #onKey(e) {
    const { input } = this.els;
    if (e.key === 'Enter') {
      e.preventDefault();
      clearTimeout(this.#timer);
      // Enter always searches what is in the field: a query typed a moment ago (its pause not
      // over yet) runs now, rather than stepping through the previous query's matches.
      this.text = input.value;
      if (this.#ran.text !== this.text || this.#ran.field !== this.field || !this.matches.length) this.run({ jump: true });
      else this.step(e.shiftKey ? -1 : 1);
    } else if (e.key === 'Escape') {
      input.value = '';
      this.text = '';
      this.run();
      this.els.tree.focus();
    }
  }

  /** Runs the search after `ms` (the last call wins). */
  later(ms, opts) {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.run(opts), ms);
  }

  /** Searches the shown state again, keeping the current match when it still matches. jump: go to the first. */
  run({ jump = false } = {}) {
    clearTimeout(this.#timer);
    this.#ran = { text: this.text, field: this.field };
    const prev = this.matches[this.index];
    this.matches = this.text ? searchTree(this.selection.source(), this.text, this.field) : [];
    this.#set = new Set(this.matches);
    let i = prev ? this.matches.indexOf(prev) : -1;
    if (i < 0 && this.matches.length) i = jump ? 0 : -1;
    this.index = i;
    this.treeView.setMatches(this.#set, this.matches[this.index] ?? null);
    if (jump && this.index >= 0) this.treeView.reveal(this.matches[this.index]);
    this.renderCount();
  }

  step(d) {
    const n = this.matches.length;
    if (!n) return;
    this.index = this.index < 0 ? (d > 0 ? 0 : n - 1) : (this.index + d + n) % n;
    this.treeView.setMatches(this.#set, this.matches[this.index]);
    this.treeView.reveal(this.matches[this.index]);
    this.renderCount();
  }

  /** The next page of the first collection with children not loaded, opened and shown. */
  #loadUnloaded() {
    const [path] = unloadedChildren(this.selection.source()).collections;
    if (!path) return;
    this.treeView.toggle(path, true);
    this.treeView.hooks.onLoadMore(path);
    this.treeView.reveal(path);
  }

  renderCount() {
    const n = this.matches.length;
    const tree = this.selection.tree();
    const partial = tree && !tree.complete && !this.selection.scrub ? ' (loading the rest…)' : '';
    const unloaded = this.text && !n && !partial ? unloadedChildren(this.selection.source()) : { count: 0, collections: [] };
    const k = unloaded.collections.length;
    // Short in the bar (it shares a row with the field at 320 px); the whole sentence in its title.
    this.els.count.textContent = !this.text ? '' : n ? `${this.index >= 0 ? this.index + 1 : '–'} of ${n}${partial}`
      : unloaded.count ? `no match · ${unloaded.count} not loaded` : `no match${partial}`;
    this.els.count.title = unloaded.count
      ? `No match in the loaded nodes; ${unloaded.count} more ${unloaded.count === 1 ? 'child is' : 'children are'} not loaded (${k === 1 ? unloaded.collections[0] : `${k} collections: ${unloaded.collections.slice(0, 5).join(', ')}${k > 5 ? ', …' : ''}`}).`
      : '';
    this.loadMore.hidden = !unloaded.count;
    this.loadMore.title = unloaded.count ? `Load the next page of ${unloaded.collections[0]}` : '';
    this.els.prev.disabled = n === 0;
    this.els.next.disabled = n === 0;
  }
}
