// history-strip.js: the History strip (views/history-view.js). Scrubbing shows a version from the
// shown tree's history read-only (selection.js); Diff compares two versions (history.js) in the
// side pane. Closing the strip goes back to live.

import { diffStates } from '../history.js';
import { HistoryView, renderDiff } from '../views/history-view.js';
import { toggleStrip } from './toolbar.js';

export class HistoryStrip {
  /** The last diff shown, in short (for tests): versions, steps, boundaries, paths. */
  lastDiff = null;

  /**
   * @param {{strip: HTMLElement, button: HTMLButtonElement, diff: HTMLElement}} els
   * @param {{selection, treeView, onScrub: () => void, showDiff: () => void}} o
   *   onScrub: the shown version changed (render); showDiff: bring the Diff tab forward
   */
  constructor(els, { selection, treeView, onScrub, showDiff }) {
    Object.assign(this, { els, selection, treeView, onScrub, showDiff });
    this.view = new HistoryView(els.strip, {
      onScrub: (index) => this.scrubTo(index),
      onDiff: (a, b) => this.diff(a, b),
    });
    els.button.addEventListener('click', () => {
      toggleStrip(els.button, els.strip);
      if (els.strip.hidden && selection.scrub) this.scrubTo(null);
      this.render();
    });
  }

  /** Shows entry `index` of the history (null: live). */
  scrubTo(index) {
    this.selection.scrubTo(index);
    this.onScrub();
  }

  /** Diffs entries a and b (indices, either order) of the shown tree's history. */
  diff(a, b) {
    const tree = this.selection.tree();
    if (!tree) return;
    const h = tree.history;
    const n = h.length;
    if (!(a >= 0 && a < n && b >= 0 && b < n)) return;
    const [x, y] = a <= b ? [a, b] : [b, a];
    const from = h.entries[x];
    const to = h.entries[y];
    const diff = diffStates(h.materialize(x, tree.nodes), h.materialize(y, tree.nodes));
    const boundaries = h.boundariesBetween(x, y);
    renderDiff(this.els.diff, diff, {
      from, to, boundaries,
      onPick: (path) => {
        if (this.selection.source()?.nodes.has(path)) this.treeView.reveal(path);
      },
    });
    this.lastDiff = {
      from: from.version, to: to.version, fromStep: from.step, toStep: to.step, boundaries: boundaries.length,
      added: diff.added.map((v) => v.path), removed: diff.removed.map((v) => v.path), changed: diff.changed.map((c) => c.path),
    };
    this.showDiff();
  }

  render() {
    const { els, selection } = this;
    els.button.setAttribute('aria-pressed', String(!els.strip.hidden));
    if (els.strip.hidden) return;
    this.view.show(selection.tree()?.history ?? null, selection.scrub ? selection.scrub.index : null);
  }
}
