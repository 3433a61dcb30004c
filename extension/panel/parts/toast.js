// toast.js: the short note at the bottom of the panel ("Copied path", "Exported v12"), and copying
// to the clipboard with such a note.

import { copyText } from '../export.js';
import { setCodeText } from '../../shared/code-text.js';

const SHOW_MS = 1600;

export class Toast {
  /** The last copy: {text, what, ok} (ok is null until the clipboard answered). For tests. */
  lastCopied = null;
  /** @type {ReturnType<typeof setTimeout>|0} */
  #timer = 0;

  /** @param {HTMLElement} el */
  constructor(el) {
    this.el = el;
  }

  show(text, ms = SHOW_MS) {
    setCodeText(this.el, text);
    this.el.hidden = false;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => { this.el.hidden = true; }, ms);
  }

  async copy(text, what) {
    const entry = { text, what, ok: null };
    this.lastCopied = entry;
    entry.ok = await copyText(text);
    this.show(entry.ok ? `Copied ${what}` : `Could not copy ${what}`);
  }
}
