// history-view.js: the history strip (a slider over the versions the panel recorded, read-only
// scrubbing, back to live) and the diff between two chosen versions (nodes added, removed, changed;
// for changed nodes the property, meta, affordance, content_ref, type and children differences).
//
// Versions are named by the provider and may start again (a restart) or belong to another app (a
// provider change at the same address): the version lists are keyed by the history's running
// `step`, and such a boundary is shown as a separator line and in the labels.

import { h, setChildren } from '../../shared/dom.js';
import { MAX_ENTRIES, MAX_VIEWS, boundaryText } from '../history.js';
import { time } from './log-view.js';

const SHOW_MAX = 300;

const short = (v) => {
  if (v === undefined) return '—';
  const s = JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 117)}…` : s;
};

function entryLabel(e, i, n, withTime = false) {
  const what = e.kind === 'reset' ? 'snapshot' : `${e.size} change${e.size === 1 ? '' : 's'}`;
  return `v${e.version} · ${what}${withTime ? ` · ${time(e.t)}` : ''}${i === n - 1 ? ' (live)' : ''}`;
}

/** The boundaries recorded in a history, for the strip: "2 restarts" etc. */
function boundarySummary(history) {
  const all = (history?.entries ?? []).filter((e) => e.boundary);
  if (!all.length) return '';
  const last = all.at(-1);
  return all.length === 1 ? `⟂ ${boundaryText(last)}` : `⟂ ${all.length} boundaries; last: ${boundaryText(last)}`;
}

export class HistoryView {
  /**
   * @param {HTMLElement} strip   the slider bar
   * @param {{onScrub: (index: number|null) => void, onDiff: (a: number, b: number) => void}} hooks
   *   onScrub(null) = back to live
   */
  constructor(strip, hooks) {
    this.strip = strip;
    this.hooks = hooks;
    this.history = null;
    this.index = null;
    this.slider = h('input', { type: 'range', min: '0', max: '0', value: '0', step: '1', 'aria-label': 'Version', 'data-role': 'history-slider',
      oninput: () => this.#scrubTo(Number(this.slider.value)) });
    this.label = h('span', { class: 'h-label mono' });
    this.prevBtn = h('button', { type: 'button', class: 'small icon', title: 'Previous version', 'data-action': 'h-prev', onclick: () => this.step(-1) }, '◀');
    this.nextBtn = h('button', { type: 'button', class: 'small icon', title: 'Next version', 'data-action': 'h-next', onclick: () => this.step(1) }, '▶');
    this.liveBtn = h('button', { type: 'button', class: 'small', 'data-action': 'h-live', onclick: () => this.#scrubTo(null) }, 'Live');
    // Until the user picks versions, the selects follow the newest two.
    this.chosen = false;
    this.fromSel = h('select', { 'aria-label': 'Diff from version', 'data-role': 'diff-from', onchange: () => { this.chosen = true; } });
    this.toSel = h('select', { 'aria-label': 'Diff to version', 'data-role': 'diff-to', onchange: () => { this.chosen = true; } });
    this.diffBtn = h('button', { type: 'button', class: 'small primary', 'data-action': 'diff', onclick: () => this.hooks.onDiff(this.#indexOf(this.fromSel), this.#indexOf(this.toSel)) }, 'Diff');
    this.bound = h('span', { class: 'muted small', title: `The panel keeps the last ${MAX_ENTRIES} versions and at most ${MAX_VIEWS.toLocaleString()} replaced node views; older versions are dropped.` });
    // Where the versions start again (restart) or another app took over: the slider alone hides it.
    this.boundaryEl = h('span', { class: 'h-boundary small', 'data-role': 'history-boundary', hidden: true });
    strip.replaceChildren(
      h('span', { class: 'strip-title', text: 'History' }),
      this.prevBtn, this.slider, this.nextBtn, this.label, this.liveBtn,
      h('span', { class: 'sep' }),
      h('span', { class: 'small', text: 'Diff' }), this.fromSel, h('span', { class: 'small', text: '→' }), this.toSel, this.diffBtn,
      this.bound, this.boundaryEl);
  }

  /** @param {import('../history.js').History|null} history @param {number|null} index  scrubbed entry, null = live */
  show(history, index) {
    this.history = history;
    this.index = index;
    const n = history?.length ?? 0;
    this.slider.max = String(Math.max(0, n - 1));
    this.slider.value = String(index ?? Math.max(0, n - 1));
    this.slider.disabled = n < 2;
    this.prevBtn.disabled = n < 2 || (index ?? n - 1) <= 0;
    this.nextBtn.disabled = index === null;
    this.liveBtn.disabled = index === null;
    const e = n ? history.entries[index ?? n - 1] : null;
    // Scrubbed onto a boundary: the label says it (live, the note beside the selects does).
    const atBoundary = index !== null && !!e?.boundary;
    this.label.textContent = e ? `${(index ?? n - 1) + 1}/${n} · ${entryLabel(e, index ?? n - 1, n, true)}${atBoundary ? ` · ${boundaryText(e)}` : ''}` : 'no versions yet';
    this.label.classList.toggle('at-boundary', atBoundary);
    const summary = boundarySummary(history);
    this.boundaryEl.hidden = !summary;
    this.boundaryEl.textContent = summary;
    this.bound.textContent = n ? `keeps the last ${MAX_ENTRIES} versions${history.dropped ? ` (${history.dropped} dropped)` : ''}` : '';
    this.strip.classList.toggle('scrubbed', index !== null);
    this.#fillSelects(history);
  }

  /** The options of both selects, newest first, valued by step; a boundary gets a separator. */
  #fillSelects(history) {
    const entries = history?.entries ?? [];
    const n = entries.length;
    const lastStep = entries.at(-1)?.step ?? 0;
    // Keyed by the newest step, not the count: at the cap, every new version drops the oldest.
    if (this.filledFor === history && this.filledStep === lastStep && this.filledN === n) return;
    const from = this.fromSel.value;
    const to = this.toSel.value;
    const opts = [];
    for (let i = n - 1; i >= 0; i--) {
      const e = entries[i];
      opts.push(h('option', { value: String(e.step), text: entryLabel(e, i, n) }));
      if (e.boundary) opts.push(h('option', { disabled: true, class: 'h-sep', 'data-boundary': e.boundary.kind, text: `── ${boundaryText(e)} ──` }));
    }
    setChildren(this.fromSel, opts.map((o) => o.cloneNode(true)));
    setChildren(this.toSel, opts);
    // Defaults: the previous version → live; a choice of the user's stays while it exists.
    if (this.filledFor !== history) this.chosen = false;
    const has = (v) => v !== '' && history.indexOfStep(Number(v)) >= 0;
    const keep = this.chosen && has(from) && has(to);
    this.fromSel.value = keep ? from : String(entries[Math.max(0, n - 2)]?.step ?? '');
    this.toSel.value = keep ? to : String(entries[Math.max(0, n - 1)]?.step ?? '');
    this.filledFor = history;
    this.filledStep = lastStep;
    this.filledN = n;
  }

  /** The entry index a select points at (-1 if none). */
  #indexOf(sel) {
    return sel.value === '' || !this.history ? -1 : this.history.indexOfStep(Number(sel.value));
  }

  step(d) {
    const n = this.history?.length ?? 0;
    if (!n) return;
    const cur = this.index ?? n - 1;
    this.#scrubTo(Math.max(0, Math.min(n - 1, cur + d)));
  }

  #scrubTo(i) {
    const n = this.history?.length ?? 0;
    this.hooks.onScrub(i === null || i >= n - 1 ? null : i);
  }

  /** Sets the two version selects by entry index (tests, and "diff this version" shortcuts). */
  choose(a, b) {
    this.chosen = true;
    this.fromSel.value = String(this.history?.entries[a]?.step ?? '');
    this.toSel.value = String(this.history?.entries[b]?.step ?? '');
  }
}

/** The diff of two states, for the side pane. */
export function renderDiff(root, diff, { from, to, onPick, boundaries = [] }) {
  const { added, removed, changed } = diff;
  const pathLink = (path, cls) => h('button', { type: 'button', class: `link mono ${cls}`, 'data-path': path, onclick: () => onPick(path), text: path });
  const list = (items, make) => [items.slice(0, SHOW_MAX).map(make), items.length > SHOW_MAX ? h('p', { class: 'muted', text: `… ${items.length - SHOW_MAX} more` }) : null];
  const kv = (rows) => h('table', { class: 'diff-kv' }, rows.map((r) => h('tr', {},
    h('th', { class: 'mono', text: r.key }),
    h('td', { class: 'before mono', text: short(r.before) }),
    h('td', { class: 'arrow', text: '→' }),
    h('td', { class: 'after mono', text: short(r.after) }))));
  setChildren(root,
    h('div', { class: 'diff-head' },
      h('h3', { text: `Diff v${from.version} → v${to.version}` }),
      h('span', { class: 'muted small', text: `${added.length} added · ${removed.length} removed · ${changed.length} changed` })),
    boundaries.length ? h('p', { class: 'diff-boundary', 'data-role': 'diff-boundary',
      text: `This diff crosses ${boundaries.length === 1 ? 'a boundary' : `${boundaries.length} boundaries`} (${boundaries.map((e) => boundaryText(e)).join('; ')}): the versions on either side are not one sequence.` }) : null,
    added.length + removed.length + changed.length === 0 ? h('p', { class: 'muted', text: 'No differences between these two versions.' }) : null,
    added.length ? h('section', { class: 'diff-section', 'data-kind': 'added' }, h('h4', { text: `Added (${added.length})` }),
      list(added, (v) => h('div', { class: 'diff-node added', 'data-path': v.path }, h('span', { class: 'sign', text: '+' }), pathLink(v.path, ''), h('span', { class: 'ntype', text: v.type })))) : null,
    removed.length ? h('section', { class: 'diff-section', 'data-kind': 'removed' }, h('h4', { text: `Removed (${removed.length})` }),
      list(removed, (v) => h('div', { class: 'diff-node removed', 'data-path': v.path }, h('span', { class: 'sign', text: '−' }), h('span', { class: 'mono', text: v.path }), h('span', { class: 'ntype', text: v.type })))) : null,
    changed.length ? h('section', { class: 'diff-section', 'data-kind': 'changed' }, h('h4', { text: `Changed (${changed.length})` }),
      list(changed, (c) => {
        const d = c.diff;
        return h('div', { class: 'diff-node changed', 'data-path': c.path },
          h('div', { class: 'diff-node-head' }, h('span', { class: 'sign', text: '~' }), pathLink(c.path, ''), h('span', { class: 'ntype', text: c.after.type })),
          d.type ? h('div', { class: 'diff-field', 'data-field': 'type' }, h('span', { class: 'dlabel', text: 'type' }), kv([{ key: 'type', ...d.type }])) : null,
          d.properties.length ? h('div', { class: 'diff-field', 'data-field': 'properties' }, h('span', { class: 'dlabel', text: 'properties' }), kv(d.properties)) : null,
          d.meta.length ? h('div', { class: 'diff-field', 'data-field': 'meta' }, h('span', { class: 'dlabel', text: 'meta' }), kv(d.meta)) : null,
          d.affordances.length ? h('div', { class: 'diff-field', 'data-field': 'affordances' }, h('span', { class: 'dlabel', text: 'affordances' }),
            h('ul', { class: 'diff-affs' }, d.affordances.map((a) => h('li', { 'data-change': a.change },
              h('span', { class: `sign ${a.change}`, text: a.change === 'added' ? '+' : a.change === 'removed' ? '−' : '~' }),
              h('code', { text: a.action }), h('span', { class: 'muted', text: ` ${a.change}` }))))) : null,
          d.contentRef ? h('div', { class: 'diff-field', 'data-field': 'content_ref' }, h('span', { class: 'dlabel', text: 'content_ref' }), kv([{ key: 'content_ref', ...d.contentRef }])) : null,
          d.children ? h('div', { class: 'diff-field', 'data-field': 'children' }, h('span', { class: 'dlabel', text: 'children' }),
            h('span', { class: 'mono small', text: d.children.reordered ? 'reordered'
              : [d.children.added.length ? `+ ${d.children.added.slice(0, 20).join(', ')}${d.children.added.length > 20 ? '…' : ''}` : '',
                d.children.removed.length ? `− ${d.children.removed.slice(0, 20).join(', ')}${d.children.removed.length > 20 ? '…' : ''}` : ''].filter(Boolean).join('  ') })) : null);
      })) : null);
}
