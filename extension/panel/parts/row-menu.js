// row-menu.js: the context menu of a tree row (right-click, or the ContextMenu key / Shift+F10 on
// the selected row): copy its path, the node (and subtree) as JSON, its value (properties);
// expand or collapse everything below it; select its frames in the log. Keys: ↑ ↓ Home End move,
// Enter / Space choose, Esc or Tab close (the focus goes back to the tree).
//
// Safety: the menu reads and arranges; it never invokes an affordance. An invoke is chosen in
// the node's detail, never from a row.

import { h } from '../../shared/dom.js';

/**
 * @typedef {object} MenuItem
 * @property {string} id        data-action of the item
 * @property {string} label
 * @property {string} [keys]    the key that does the same on the tree (shown, not handled here)
 * @property {boolean} [disabled]
 * @property {boolean} [checked]  a toggle (menuitemcheckbox): whether it is on
 * @property {() => void} run
 */

export class RowMenu {
  /** @type {HTMLElement|null} */
  el = null;
  #restore = null;
  #onDocDown = (e) => {
    if (this.el && !this.el.contains(e.target)) this.close({ focus: false });
  };
  #onBlur = () => this.close({ focus: false });

  /** @param {HTMLElement} host  where the menu is put (the page's body) */
  constructor(host) {
    this.host = host;
  }

  get open() {
    return !!this.el;
  }

  /**
   * Opens the menu at (x, y) (viewport px), kept inside the window.
   * @param {MenuItem[][]} groups  items, in groups split by a line
   * @param {{x: number, y: number}} at
   * @param {HTMLElement} restoreFocus  focused again when the menu closes by a key or a choice
   * @param {{label?: string}} [o]  label: the menu's accessible name
   */
  show(groups, at, restoreFocus, { label = 'Node' } = {}) {
    this.close({ focus: false });
    this.#restore = restoreFocus;
    const items = [];
    const kids = [];
    groups.filter((g) => g.length).forEach((g, i) => {
      if (i > 0) kids.push(h('div', { class: 'menu-sep', role: 'separator' }));
      for (const it of g) {
        const b = h('button', {
          type: 'button', class: 'menu-item', role: it.checked === undefined ? 'menuitem' : 'menuitemcheckbox', tabindex: '-1', 'data-action': it.id,
          'aria-disabled': it.disabled ? 'true' : null, 'aria-checked': it.checked === undefined ? null : String(it.checked),
          onclick: () => this.#choose(it),
        }, h('span', { class: 'menu-label', text: it.label }), it.keys ? h('span', { class: 'menu-keys', text: it.keys }) : null);
        items.push(b);
        kids.push(b);
      }
    });
    this.el = h('div', { class: 'row-menu', role: 'menu', 'aria-label': label, onkeydown: (e) => this.#onKey(e, items) }, ...kids);
    this.host.append(this.el);
    // Inside the window: flipped left / up when it would stick out.
    const r = this.el.getBoundingClientRect();
    const x = Math.max(2, Math.min(at.x, innerWidth - r.width - 2));
    const y = at.y + r.height > innerHeight - 2 ? Math.max(2, at.y - r.height) : at.y;
    this.el.style.left = `${Math.round(x)}px`;
    this.el.style.top = `${Math.round(y)}px`;
    (items.find((b) => !b.hasAttribute('aria-disabled')) ?? items[0])?.focus();
    document.addEventListener('pointerdown', this.#onDocDown, true);
    addEventListener('blur', this.#onBlur);
    addEventListener('resize', this.#onBlur);
  }

  close({ focus = true } = {}) {
    if (!this.el) return;
    this.el.remove();
    this.el = null;
    document.removeEventListener('pointerdown', this.#onDocDown, true);
    removeEventListener('blur', this.#onBlur);
    removeEventListener('resize', this.#onBlur);
    if (focus) this.#restore?.focus({ preventScroll: true });
    this.#restore = null;
  }

  #choose(it) {
    if (it.disabled) return;
    this.close();
    it.run();
  }

  #onKey(e, items) {
    const i = items.indexOf(document.activeElement);
    const go = (j) => items[(j + items.length) % items.length]?.focus();
    switch (e.key) {
      case 'ArrowDown': go(i + 1); break;
      case 'ArrowUp': go(i < 0 ? items.length - 1 : i - 1); break;
      case 'Home': go(0); break;
      case 'End': go(items.length - 1); break;
      case 'Escape': this.close(); break;
      case 'Tab': this.close(); break;
      case 'ContextMenu': this.close(); break;
      case 'Enter':
      case ' ':
        if (i >= 0) items[i].click();
        break;
      default:
        return;
    }
    e.preventDefault();
    // The panel's own keys (Esc: back to live; letters) are not for the menu's keys.
    e.stopPropagation();
  }
}
