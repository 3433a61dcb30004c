// side-pane.js: the pane beside the tree, with its tabs. The tabs and their panes are side-tabs.js's
// list; this makes them, shows one at a time (dom.js Tabs: the roles, the arrow keys) and tells the
// panes what concerns them: shown and hidden as the tabs change, every store change, the end.

import { Tabs } from '../../shared/dom.js';
import { SIDE_TABS, mountSideTabs } from '../side-tabs.js';

/** @typedef {import('../panes.js').Pane} Pane */
/** @typedef {import('../panes.js').PaneContext} PaneContext */
/** @typedef {import('../panes.js').StoreChange} StoreChange */
/** @typedef {import('../side-tabs.js').SideTab} SideTab */

/** The pane of a tab whose module is still loading: it hears nothing (it reads the store once made). @type {Pane} */
const LOADING = Object.freeze({ shown() {}, hidden() {}, update() {}, dispose() {} });

export class SidePane {
  /** The tab shown (its id). @type {string|null} */
  tab = null;
  /** @type {Map<string, Pane>} */
  #panes = new Map();
  /** The tab shown before showFor(#for) replaced it (giveBack returns to it). @type {string|null} */
  #before = null;
  /** @type {string|null} */
  #for = null;
  #disposed = false;

  /**
   * @param {{tabs: HTMLElement, side: HTMLElement}} els   the tab bar and the section its panes go in
   * @param {Omit<PaneContext, 'side'>} ctx   what the panes' factories get (with this as `side`)
   * @param {readonly SideTab[]} [tabs]
   */
  constructor(els, ctx, tabs = SIDE_TABS) {
    this.els = els;
    const panels = mountSideTabs(els.tabs, els.side, tabs);
    const c = { ...ctx, side: this };
    for (const t of tabs) {
      const made = t.create(/** @type {HTMLElement} */ (panels.get(t.id)), c);
      if (!(made instanceof Promise)) {
        this.#panes.set(t.id, made);
        continue;
      }
      this.#panes.set(t.id, LOADING);
      made.then((pane) => {
        if (this.#disposed) return pane.dispose();
        this.#panes.set(t.id, pane);
        if (this.tab === t.id) pane.shown();
      }, (e) => console.error(`side tab "${t.id}": ${e?.message ?? e}`));
    }
    // After the panes: a pane's own aria-label on its element becomes its description (Tabs).
    this.tabs = new Tabs(els.tabs, Object.fromEntries([...panels].map(([id, el]) => [id, [el]])), (id) => this.#showing(id));
    this.show(tabs[0].id);
  }

  /** A tab's pane (another pane's or the panel's way to it). @param {string} id @returns {Pane|undefined} */
  pane(id) {
    return this.#panes.get(id);
  }

  /** @param {string} id */
  show(id) {
    this.tabs.show(id);
  }

  /** Shows a tab, remembering the one it replaces (the History strip opening the History tab). @param {string} id */
  showFor(id) {
    if (this.tab !== id) this.#before = this.tab;
    this.#for = id;
    this.show(id);
  }

  /** Back to the tab showFor(id) replaced, if `id` is still shown (H, H leaves things as they were). @param {string} id */
  giveBack(id) {
    const back = this.#before;
    this.#before = null;
    if (back && this.tab === id) this.show(back);
  }

  /**
   * Marks a tab's button as waiting for the user (the Playground's dangerous call, while another
   * tab is shown) or not. @param {string} tab @param {boolean} on @returns {boolean} whether it was
   * not marked before and is now
   */
  setAttention(tab, on) {
    const button = this.els.tabs.querySelector(`[data-tab="${tab}"]`);
    if (!button) return false;
    const fresh = on && !button.hasAttribute('data-attention');
    button.toggleAttribute('data-attention', on);
    return fresh;
  }

  /** A store change (null: the shown state as a whole), to every pane in tab order. @param {StoreChange|null} change */
  update(change) {
    for (const pane of this.#panes.values()) pane.update(change);
  }

  dispose() {
    this.#disposed = true;
    for (const pane of this.#panes.values()) pane.dispose();
  }

  /** The Tabs showed `id` (its element is visible now). @param {string} id */
  #showing(id) {
    const before = this.tab;
    this.tab = id;
    if (id !== this.#for) this.#before = null; // the user went elsewhere: nothing to go back to
    if (before !== null && before !== id) this.#panes.get(before)?.hidden();
    this.#panes.get(id)?.shown();
  }
}
