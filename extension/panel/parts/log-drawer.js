// log-drawer.js: the Log drawer at the bottom (views/log-view.js): opened and closed from the bar,
// showing the frames and core events the store keeps for the shown provider; Pause and Clear act
// on the store.

import { LogView } from '../views/log-view.js';

export class LogDrawer {
  open = false;

  /**
   * @param {{log: HTMLElement, button: HTMLButtonElement, split: HTMLElement}} els  split: the splitter above it
   * @param {{store, selection, copy: (text: string, what: string) => void, splitters: import('./splitters.js').Splitters}} o
   */
  constructor(els, { store, selection, copy, splitters }) {
    this.els = els;
    this.store = store;
    this.selection = selection;
    this.splitters = splitters;
    this.view = new LogView(els.log, {
      onPause: (paused) => {
        if (selection.key) store.setLogPaused(selection.key, paused);
      },
      onClear: (tab) => {
        if (!selection.key) return;
        if (tab === 'events') store.clearEvents(selection.key);
        else store.clearLog(selection.key);
      },
      copy,
      onCollapse: () => {
        splitters.toggleLog();
        this.#layout();
      },
    });
    els.button.addEventListener('click', () => {
      this.open = !this.open;
      // Opened from the bar: shown whole, even if it was left collapsed.
      if (this.open && splitters.logCollapsed) splitters.toggleLog(false);
      this.#layout();
      this.render();
    });
  }

  #layout() {
    const { els, splitters } = this;
    els.button.setAttribute('aria-pressed', String(this.open));
    els.log.hidden = !this.open;
    els.split.hidden = !this.open || splitters.logCollapsed;
    this.view.setCollapsed(splitters.logCollapsed);
  }

  /** Opens the drawer on the frame whose text starts as `text` does (a finding's first frame); false if the log no longer has it. */
  reveal(text) {
    if (!this.open) this.els.button.click();
    return this.view.reveal(text);
  }

  /** Opens the drawer (whole, not collapsed) on the frames that name this node path, newest selected. */
  showPath(path) {
    if (!this.open) this.els.button.click();
    else if (this.splitters.logCollapsed) {
      this.splitters.toggleLog(false);
      this.#layout();
    }
    return this.view.showPath(path);
  }

  /** The pause state of the shown provider's log (another provider may be paused, or not). */
  syncPaused() {
    const key = this.selection.key;
    this.view.setPaused(this.store.logPaused.has(key), this.store.logPaused.get(key) ?? 0);
  }

  render() {
    if (!this.open) return;
    const key = this.selection.key;
    this.syncPaused();
    this.view.show(this.store.logs.get(key) ?? [], this.store.events.get(key) ?? []);
  }
}
