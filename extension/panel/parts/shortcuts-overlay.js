// shortcuts-overlay.js: the "?" overlay, the panel's keys as shortcuts.js lists them (the one
// place they are written down). A modal dialog: Escape or "?" closes it and the focus goes back
// where it was.

import { h, trapFocus } from '../../shared/dom.js';
import { SHORTCUT_GROUPS } from '../shortcuts.js';

/** "Ctrl+Shift+E" → <kbd>Ctrl</kbd>+<kbd>Shift</kbd>+<kbd>E</kbd>. */
function keyView(key) {
  const parts = key === '+' ? ['+'] : key.split('+');
  const out = [];
  parts.forEach((p, i) => {
    if (i) out.push('+');
    out.push(h('kbd', { text: p }));
  });
  return h('span', { class: 'keys' }, out);
}

export class ShortcutsOverlay {
  /** @param {HTMLElement} host  where the dialog is added (document.body) */
  constructor(host) {
    this.dialog = h('dialog', { id: 'shortcuts', 'aria-label': 'Keyboard shortcuts' }, h('div', { class: 'sc-body' },
      h('div', { class: 'sc-head' },
        h('h2', { text: 'Keyboard shortcuts' }),
        h('button', { type: 'button', class: 'small', 'data-action': 'close', text: 'Close', onclick: () => this.close() })),
      SHORTCUT_GROUPS.map((g) => h('section', { class: 'sc-group' },
        h('h3', { text: g.title }, h('span', { class: 'muted small', text: ` ${g.where}` })),
        h('table', {}, h('tbody', {}, g.items.map((s) => h('tr', {},
          h('th', {}, s.keys.map((k, i) => [i ? h('span', { class: 'muted', text: ' or ' }) : null, keyView(k)])),
          h('td', { text: s.what })))))))));
    this.dialog.addEventListener('keydown', (e) => {
      if (e.key === '?') {
        e.preventDefault();
        this.close();
      }
    });
    trapFocus(this.dialog);
    this.dialog.addEventListener('close', () => this.#back?.focus?.({ preventScroll: true }));
    // A click on the backdrop closes it (the dialog has no padding: its body takes every other click).
    this.dialog.addEventListener('click', (e) => { if (e.target === this.dialog) this.close(); });
    host.append(this.dialog);
  }

  #back = null;

  get open() {
    return this.dialog.open;
  }

  toggle() {
    if (this.dialog.open) this.close();
    else {
      this.#back = document.activeElement;
      this.dialog.showModal();
      /** @type {HTMLButtonElement} */ (this.dialog.querySelector('[data-action="close"]')).focus();
    }
  }

  close() {
    if (this.dialog.open) this.dialog.close();
  }
}
