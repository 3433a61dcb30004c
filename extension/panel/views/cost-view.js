// cost-view.js: the Cost tab's content, from what profile-worker.js posts: the tokenizer and the
// counting, the totals, the budgets in words, the pickers (size the map by a measure, colour it by
// salience or churn), the map (cost-icicle.js), the hints, the top subtrees (cost-tables.js), the
// traffic timeline with its range (cost-timeline.js) and the churn table. Made once; each state
// fills the parts again, the keyboard focus kept where it was.

import { h, setChildren, keepFocus } from '../../shared/dom.js';
import { CostIcicle } from './cost-icicle.js';
import { CostTimeline } from './cost-timeline.js';
import { MEASURES, COLOURS, spanText } from './cost-text.js';
import { subtreesTable, churnTable, budgetsPart, hintsList, totalsLine } from './cost-tables.js';

/** Why there are no numbers, in words. */
const WHY = {
  none: 'No provider to measure.',
  'not-live': 'The Cost tab measures a live subscription: an import or a recording has no traffic to measure.',
  'not-connected': 'The provider is not connected: nothing to measure yet.',
  'no-state': 'The provider has no live state yet: nothing to measure.',
  gone: 'The provider went away: its numbers were dropped (a count it left half done is never shown as whole). They come back when it is connected again.',
};

/** A note (the numbers started over) stays this long. */
const NOTE_MS = 8000;

export class CostView {
  /** @type {{key: string, desc: boolean}|null} the top subtrees' order; null: the report's */
  sort = null;
  colour = 'salience';
  /** @type {ReturnType<typeof setTimeout>|0} */
  #noteTimer = 0;
  /** @type {any} */
  #last = null;
  #next = 0;

  /**
   * @param {HTMLElement} root
   * @param {{setOptions: (o: {by?: string, depth?: number, range?: [number, number]|null}) => void, selectNode: (path: string) => boolean}} hooks
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    const select = (path) => hooks.selectNode(path);
    this.status = h('span', { class: 'muted small', 'data-role': 'cost-status' });
    this.noteEl = h('p', { class: 'cost-note', 'data-role': 'cost-note', role: 'status', hidden: true });
    this.message = h('p', { class: 'empty small', 'data-role': 'cost-why' });
    this.totals = h('div', {});
    this.budgets = h('div', {});
    this.by = h('select', { 'data-role': 'cost-by', id: 'cost-by', onchange: () => hooks.setOptions({ by: this.by.value }) },
      MEASURES.map(([v, label, what]) => h('option', { value: v, title: what, text: label })));
    this.colourSel = h('select', { 'data-role': 'cost-colour', id: 'cost-colour', onchange: () => { this.colour = this.colourSel.value; this.#fill(); } },
      COLOURS.map(([v, label]) => h('option', { value: v, text: label })));
    this.depthSel = h('select', { 'data-role': 'cost-depth', id: 'cost-depth', onchange: () => hooks.setOptions({ depth: Number(this.depthSel.value) }) },
      [1, 2, 3, 4].map((d) => h('option', { value: String(d), text: d === 1 ? 'top level' : `${d} levels` })));
    this.legend = h('p', { class: 'muted small cost-legend' });
    const mapHost = h('div', { class: 'cost-map-host' });
    this.icicle = new CostIcicle(mapHost, { select: (path) => { select(path); } });
    this.hints = h('div', {});
    this.subtrees = h('div', {});
    const timeHost = h('div', {});
    this.timeline = new CostTimeline(timeHost, { setRange: (range) => hooks.setOptions({ range }) });
    this.churn = h('div', {});
    this.body = h('div', { class: 'cost-body', hidden: true },
      this.totals,
      this.budgets,
      h('div', { class: 'cost-pickers' },
        h('label', { class: 'cost-pick' }, 'Size by ', this.by),
        h('label', { class: 'cost-pick' }, 'Colour by ', this.colourSel)),
      mapHost,
      this.legend,
      h('h3', { text: 'Hints' }), this.hints,
      h('div', { class: 'cost-subhead' }, h('h3', { id: 'cost-top-h', text: 'Top subtrees' }),
        h('label', { class: 'cost-pick' }, 'Down to ', this.depthSel)), this.subtrees,
      h('h3', { text: 'Traffic' }), timeHost,
      h('h3', { text: 'Churn' }), this.churn);
    setChildren(root,
      h('div', { class: 'agent-head cost-head' }, h('h3', { text: 'Cost' }), this.status),
      this.noteEl, this.message, this.body);
  }

  dispose() {
    clearTimeout(this.#noteTimer);
    cancelAnimationFrame(this.#next);
    this.icicle.dispose();
    this.timeline.dispose();
  }

  /** A short note above the numbers (they started over, and why). @param {string} text */
  note(text) {
    this.noteEl.textContent = text;
    this.noteEl.hidden = false;
    clearTimeout(this.#noteTimer);
    this.#noteTimer = setTimeout(() => { this.noteEl.hidden = true; }, NOTE_MS);
  }

  /** @param {string|null} path */
  setSelected(path) {
    this.icicle.setSelected(path);
  }

  /**
   * @param {{state: any, why: string|null, options: {by: string, depth: number, range: [number, number]|null},
   *          provider: string|null, selected: string|null}} s
   */
  render(s) {
    this.#last = s;
    this.by.value = s.options.by;
    this.depthSel.value = String(s.options.depth);
    this.icicle.selected = s.selected;
    const report = s.state?.report ?? null;
    if (!report) {
      this.body.hidden = true;
      this.message.hidden = false;
      this.message.classList.toggle('error-text', !!s.why && !(s.why in WHY));
      this.message.textContent = s.why ? WHY[s.why] ?? s.why : 'Measuring…';
      this.status.textContent = s.why === 'gone' ? 'Not measuring' : '';
      this.timeline.set(null, null);
      return;
    }
    this.message.hidden = true;
    this.body.hidden = false;
    const c = s.state.counting;
    this.status.textContent = report.complete
      ? `Tokens by ${report.tokenizer}; ${spanText(report.seconds)}`
      : `Tokens by ${report.tokenizer}; counting ${c.done} of ${c.total} texts`;
    this.status.setAttribute('data-complete', String(report.complete));
    // Two frames: the totals and the map now, the tables and the timeline at the next one (no
    // long task for the panel while patches come).
    keepFocus(this.root, () => this.#fillTop());
    cancelAnimationFrame(this.#next);
    this.#next = requestAnimationFrame(() => {
      this.#next = 0;
      keepFocus(this.root, () => this.#fillRest());
    });
  }

  /** @type {WeakMap<HTMLElement, string>} what each part shows now */
  #shown = new WeakMap();

  /** Fills a part again only when what it shows changed (a second's patches change little). @param {HTMLElement} el @param {string} sig @param {() => Node} make */
  #part(el, sig, make) {
    if (this.#shown.get(el) === sig) return;
    this.#shown.set(el, sig);
    setChildren(el, make());
  }

  /** Fills the parts from the last state. */
  #fill() {
    this.#fillTop();
    this.#fillRest();
  }

  /** The totals, the budgets and the map. */
  #fillTop() {
    const s = this.#last;
    const report = s?.state?.report;
    if (!report) return;
    setChildren(this.totals, totalsLine(report, s.state.counting));
    setChildren(this.budgets, budgetsPart(report));
    this.icicle.set(s.state.hierarchy, { by: s.options.by, colour: this.colour, complete: report.complete, rows: report.subtrees });
    setChildren(this.legend, `Width: the ${MEASURES.find(([v]) => v === s.options.by)?.[2] ?? ''}. Colour: ` +
      `${COLOURS.find(([v]) => v === this.colour)?.[2] ?? ''}. Dashed: left out of the agent view by maxStateBytes.` +
      `${report.complete ? '' : ' Tokens are still being counted: the widths are the counts so far.'}`);
  }

  /** The hints, the tables and the timeline. */
  #fillRest() {
    const s = this.#last;
    const report = s?.state?.report;
    if (!report) return;
    const select = (path) => this.hooks.selectNode(path);
    this.#part(this.hints, JSON.stringify(report.hints), () => hintsList(report, select));
    const rows = report.subtrees.map((r) => [r.path, r.type, r.inView, r.tokens, r.chars, r.toolTokens, r.bytes, r.nodes, r.window?.ops, r.share]);
    this.#part(this.subtrees, JSON.stringify([this.sort, report.complete, report.by, rows]), () => subtreesTable(report, this.sort, {
      select,
      sortBy: (key) => {
        this.sort = this.sort?.key === key ? (this.sort.desc ? { key, desc: false } : null) : { key, desc: true };
        keepFocus(this.root, () => this.#fill());
      },
    }));
    this.timeline.set(s.state.timeline, s.options.range);
    this.#part(this.churn, JSON.stringify(report.churn), () => churnTable(report, select));
  }
}
