// press.js: a press on a live list means the row it started on. Between the button going down and
// coming up (30-100 ms for a person) a list patched 100 times a second re-renders its rows, or
// scrolls them as new ones come; the click then lands on whatever is common to the two elements
// (the list itself) and names no row. A Press notes, at pointerdown, the row and the elements
// pressed inside it, and a click made by that press is read from them, whatever moved since.

export class Press {
  /** @type {{row: Element, chain: Element[]}|null} */
  #down = null;

  /**
   * @param {HTMLElement} root  the list
   * @param {string} rowSelector  what a row is (".row", ".step-row", ...)
   */
  constructor(root, rowSelector) {
    this.root = root;
    this.rowSelector = rowSelector;
    root.addEventListener('pointerdown', (e) => {
      this.#down = null;
      const t = /** @type {Element|null} */ (e.target);
      if (e.button !== 0 || typeof t?.closest !== 'function') return;
      const row = t.closest(rowSelector);
      if (!row || !root.contains(row)) return;
      const chain = [];
      for (let el = /** @type {Element|null} */ (t); el && el !== row; el = el.parentElement) chain.push(el);
      chain.push(row);
      this.#down = { row, chain };
    }, { capture: true });
  }

  /**
   * What a click means: the row it was pressed on, and `closest(sel)`, the pressed element (or its
   * ancestor up to the row) matching sel. A click without a pointer press (Enter on a control, a
   * script's click(): detail 0) is read from its own target.
   * @param {MouseEvent} e
   * @returns {{row: HTMLElement|null, closest: (sel: string) => Element|null}}
   */
  resolve(e) {
    const down = this.#down;
    this.#down = null;
    if (down && e.detail > 0) {
      return { row: /** @type {HTMLElement} */ (down.row), closest: (sel) => down.chain.find((el) => el.matches(sel)) ?? null };
    }
    const t = typeof (/** @type {any} */ (e.target))?.closest === 'function' ? /** @type {Element} */ (e.target) : null;
    const row = /** @type {HTMLElement|null} */ (t?.closest(this.rowSelector) ?? null);
    const inRow = row && this.root.contains(row) ? row : null;
    return { row: inRow, closest: (sel) => { const c = t?.closest(sel); return c && inRow?.contains(c) ? c : null; } };
  }
}
