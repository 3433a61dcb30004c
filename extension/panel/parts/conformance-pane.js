// conformance-pane.js: the Conformance tab of the side pane (views/conformance-view.js) and the
// toolbar's badge with the number of MUST findings. The report is the core's (ui/conformance),
// read again when the tab opens, a while after the shown provider's state changed, and every few
// seconds for the badge; the drift check runs on request and, when switched on, every 30 s while
// this panel is open.

import { Request } from '../../shared/messages.js';
import { reportMarkdown } from '../../../js-glue/conformance-report.js';
import { ConformanceView } from '../views/conformance-view.js';
import { download, fileName } from '../export.js';
import { stringifyExact } from '../../../js-glue/exact-json.js';

/** @typedef {import('../bridge.js').Bridge} Bridge */
/** @typedef {import('../selection.js').Selection} Selection */
/** @typedef {import('../panes.js').Pane} Pane */

/** The report is read again this long after the state last changed (the tab open). */
const SETTLE_MS = 400;
/** The badge follows the findings this often, while the panel is visible (a report walks the
 * mirror: about 27 ms at 10,000 nodes in the worker, tests/bench/core-bench.mjs). */
const BADGE_MS = 10_000;
/** The periodic drift check. */
const DRIFT_EVERY_MS = 30_000;

/** @implements {Pane} */
export class ConformancePane {
  /** The last report shown (for tests). */
  report = null;
  /** The tab is shown. */
  isShown = false;
  /** @type {ReturnType<typeof setTimeout>|0} */
  #timer = 0;
  /** @type {ReturnType<typeof setTimeout>|0} */
  #driftTimer = 0;
  /** @type {ReturnType<typeof setInterval>} */
  #badgeTimer;
  #key = null;

  /**
   * @param {{root: HTMLElement, badge: HTMLButtonElement}} els
   * @param {{bridge: Bridge, selection: Selection, open: () => void, revealNode: (path: string) => boolean,
   *          revealFrame: (text: string) => boolean}} o   open: the badge asks for the tab
   */
  constructor(els, { bridge, selection, open, revealNode, revealFrame }) {
    this.els = els;
    this.bridge = bridge;
    this.selection = selection;
    this.view = new ConformanceView(els.root, {
      refresh: () => this.refresh(),
      checkDrift: () => this.checkDrift(),
      setPeriodic: (on) => this.#periodic(on),
      exportJson: () => this.#export('json'),
      exportMarkdown: () => this.#export('md'),
      revealNode,
      revealFrame,
    });
    els.badge.addEventListener('click', () => open());
    this.#badgeTimer = setInterval(() => {
      if (!this.isShown && document.visibilityState === 'visible') this.refresh({ quiet: true });
    }, BADGE_MS);
  }

  /** The tab opened, or was asked for again: the report is read again. */
  shown() {
    this.isShown = true;
    this.refresh();
  }

  hidden() {
    this.isShown = false;
  }

  /** @param {import('../panes.js').StoreChange|null} change */
  update(change) {
    if (!change) this.select();
    else if (change.trees.has(this.selection.key)) this.later();
  }

  dispose() {
    clearInterval(this.#badgeTimer);
    clearTimeout(this.#timer);
    this.#periodic(false);
  }

  /** The shown provider changed: forget what belonged to the last one. */
  select() {
    const key = this.selection.key;
    if (key === this.#key) return;
    this.#key = key;
    this.report = null;
    this.view.drift = null;
    this.#periodic(false);
    this.view.periodic = false;
    this.refresh();
  }

  /** Reads the report (the tab shows it; the badge counts it). quiet: the badge only. */
  refresh({ quiet = false } = {}) {
    const { selection } = this;
    const p = selection.provider();
    if (!p || selection.isImport() || !p.subscriptions?.length) {
      this.#badge(null);
      if (!quiet && this.isShown) this.view.show(null, p ? 'Nothing checked yet: the provider is not connected.' : 'No provider.');
      return;
    }
    const key = selection.key;
    this.bridge.request(Request.CONFORMANCE, { key })
      .then((r) => {
        if (key !== selection.key) return;
        this.report = r;
        this.#badge(r);
        if (this.isShown) this.view.show(r);
      })
      .catch((e) => { if (this.isShown && !quiet) this.view.show(null, e.message); });
  }

  /** The state changed: read the report again once it settles, if the tab is open. */
  later() {
    if (!this.isShown) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.refresh(), SETTLE_MS);
  }

  checkDrift() {
    const { selection } = this;
    const key = selection.key;
    if (!key) return;
    this.view.setDrift(null);
    this.bridge.request(Request.CHECK_DRIFT, { key, sub: selection.tree()?.sub })
      .then((event) => { if (key === selection.key) this.view.setDrift({ event }); })
      .catch((e) => { if (key === selection.key) this.view.setDrift({ error: e.message }); })
      .finally(() => this.refresh());
  }

  #periodic(on) {
    clearInterval(this.#driftTimer);
    this.#driftTimer = on ? setInterval(() => this.checkDrift(), DRIFT_EVERY_MS) : 0;
  }

  #badge(r) {
    const b = this.els.badge;
    b.hidden = !r || r.must === 0;
    if (!r) return;
    b.textContent = `${r.must} MUST`;
    b.title = `This provider breaks ${r.must} MUST rule${r.must === 1 ? '' : 's'} of SLOP` +
      `${r.should ? ` (and ${r.should} SHOULD)` : ''}: open Conformance`;
  }

  #export(kind) {
    const r = this.report;
    if (!r) return;
    const p = this.selection.provider();
    const name = fileName('slop-conformance', p?.provider?.id ?? 'provider'); // "….json"
    if (kind === 'json') download(stringifyExact({ provider: p?.provider ?? null, url: p?.transport?.url ?? p?.key, report: r }, 2), name);
    else download(reportMarkdown(r, { provider: p?.provider, url: p?.transport?.url ?? p?.key }), name.replace(/\.json$/, '.md'), 'text/markdown');
  }
}
