// panel-keys.js: the panel's own keys on the page (every key is listed in shortcuts.js and the "?"
// overlay). Single letters only toggle what is shown; what starts a download or opens a file
// chooser needs a modifier. Moved out of panel.js as it was.

/** @typedef {import('./shortcuts-overlay.js').ShortcutsOverlay} ShortcutsOverlay */

const BAR_KEYS = { h: 'toggle-history', l: 'toggle-log', s: 'toggle-sub' };
const MOD_KEYS = { e: 'export', o: 'import' }; // Ctrl+Shift (Cmd+Shift on a Mac)
const inField = (t) => t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement || !!t?.isContentEditable;

export class PanelKeys {
  /**
   * @param {Document} doc  the panel's page: its bar's buttons are pressed by id
   * @param {{overlay: ShortcutsOverlay, search: HTMLElement}} o  "?" toggles the overlay; "/" focuses the search
   */
  constructor(doc, { overlay, search }) {
    doc.addEventListener('keydown', (e) => {
      if (e.defaultPrevented || overlay.open) return;
      const press = (/** @type {string} */ id) => {
        const btn = /** @type {HTMLButtonElement|null} */ (doc.getElementById(id));
        if (!btn || btn.disabled || btn.hidden) return false;
        btn.click();
        e.preventDefault();
        return true;
      };
      if ((e.ctrlKey || e.metaKey) && e.shiftKey && !e.altKey) {
        const id = MOD_KEYS[e.key.toLowerCase()];
        if (id) press(id);
        return;
      }
      if (e.ctrlKey || e.metaKey || e.altKey || inField(e.target)) return;
      if (e.key === '?') {
        overlay.toggle();
        e.preventDefault();
        return;
      }
      if (e.key === '/') {
        search.focus();
        e.preventDefault();
        return;
      }
      const id = BAR_KEYS[e.key.toLowerCase()];
      if (id && !e.shiftKey && press(id) && id === 'toggle-history') historyFocus(doc);
    });
  }
}

/**
 * H moves the keyboard with the History: opened, into its step list (where ← / → step, not fold
 * tree rows); closed, back to the tree. The list is in the side pane; where that is not shown, the
 * strip's slider (its arrows step too).
 * @param {Document} doc
 */
function historyFocus(doc) {
  const open = doc.getElementById('toggle-history')?.getAttribute('aria-pressed') === 'true';
  const shown = (/** @type {HTMLElement|null} */ el) => (el && el.offsetParent ? el : null);
  const to = open
    ? shown(doc.querySelector('#history [data-role="steps"]')) ?? shown(doc.querySelector('#history-strip input[type="range"]'))
    : shown(doc.getElementById('tree'));
  to?.focus({ preventScroll: true });
}
