// tree-options.js: the tree's filter and display strip (the funnel button in the tree's toolbar).
// Filters hide rows, they do not only mark them: by node type, and "changed since" a step of the
// history (the service worker answers which paths differ between that step and the one shown;
// tree-filter.js keeps every ancestor of a match). Display: compact rows (remembered by this
// panel, like the splitters), and collapse all (Shift+← on the tree does the same).

import { h, setChildren } from '../../shared/dom.js';
import { Request } from '../../shared/messages.js';
import { clockTime } from '../../shared/time-text.js';
import { ancestorsOf, matchingPaths, typeCounts, withAncestors } from '../tree-filter.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../bridge.js').Bridge} Bridge */
/** @typedef {import('../selection.js').Selection} Selection */
/** @typedef {import('../views/tree-view.js').TreeView} TreeView */

const STORE_KEY = 'slop-panel-tree';
/** Row heights (px): the default, and compact (the Elements panel's density). */
export const ROW_PX = { normal: 22, compact: 18 };
const REFRESH_MS = 300;

function loadPrefs() {
  try {
    return JSON.parse(localStorage.getItem(STORE_KEY) ?? '{}') ?? {};
  } catch {
    return {};
  }
}

export class TreeOptions {
  /** The filter asked for: a node type ('' any), a step (null: none). */
  type = '';
  since = null;
  /** What the worker answered for `since`: {key, since, to, paths: Set} or {.., error}. */
  changed = null;
  #key = null;
  #stamp = 0;
  #cache = { sig: null, filter: null };
  #seq = 0;
  #asking = false;
  #again = false;
  /** @type {ReturnType<typeof setTimeout>|0} */
  #timer = 0;
  #typesSig = null;
  #stepsSig = null;
  #expandNext = false;

  /**
   * @param {{button: HTMLButtonElement, strip: HTMLElement}} els
   * @param {{store: Store, bridge: Bridge, selection: Selection, view: TreeView, onChange: () => void}} o
   *   onChange: the filter changed (the pane shows the tree again)
   */
  constructor(els, { store, bridge, selection, view, onChange }) {
    this.els = els;
    this.store = store;
    this.bridge = bridge;
    this.selection = selection;
    this.view = view;
    this.onChange = onChange;
    this.prefs = { compact: false, ...loadPrefs() };
    this.typeSel = h('select', { 'data-filter': 'type', 'aria-label': 'Show only nodes of this type', onchange: () => this.setType(this.typeSel.value) });
    this.sinceSel = h('select', { 'data-filter': 'since', 'aria-label': 'Show only nodes changed since this step', onchange: () => this.setSince(this.sinceSel.value === '' ? null : Number(this.sinceSel.value)) });
    this.countEl = h('span', { class: 'muted small tf-count', 'aria-live': 'polite' });
    this.clearBtn = h('button', { type: 'button', class: 'small', 'data-action': 'clear-filter', text: 'Clear', title: 'Show every row again', onclick: () => this.clear() });
    this.compactBox = h('input', { type: 'checkbox', 'data-action': 'compact', checked: this.prefs.compact, onchange: () => this.setCompact(this.compactBox.checked) });
    this.collapseBtn = h('button', { type: 'button', class: 'small', 'data-action': 'collapse-all', text: 'Collapse all', title: 'Collapse the whole tree to its first level (Shift+← on the tree)', onclick: () => view.collapseAll() });
    setChildren(els.strip,
      h('label', { class: 'tf-field' }, h('span', { class: 'tf-label', text: 'Type' }), this.typeSel),
      h('label', { class: 'tf-field' }, h('span', { class: 'tf-label', text: 'Changed since' }), this.sinceSel),
      this.clearBtn, this.countEl,
      h('span', { class: 'spacer' }),
      h('label', { class: 'tf-check', title: 'Denser rows, as in the Elements panel (remembered)' }, this.compactBox, 'Compact rows'),
      this.collapseBtn);
    els.button.addEventListener('click', () => {
      els.strip.hidden = !els.strip.hidden;
      this.#renderButton();
      if (!els.strip.hidden) {
        this.#loadSteps();
        this.render();
      }
    });
    store.subscribe((change) => {
      const key = selection.key;
      if (!change.histories.has(key)) return;
      if (!els.strip.hidden) this.render();
      // Live: "now" moved on; the answer follows the newest step, at most every REFRESH_MS.
      if (this.since !== null && !selection.scrub && !this.#timer) {
        this.#timer = setTimeout(() => {
          this.#timer = 0;
          this.#refresh();
        }, REFRESH_MS);
      }
    });
    this.#applyDensity();
  }

  get active() {
    return !!this.type || this.since !== null;
  }

  setType(type) {
    this.type = type;
    this.#expandNext = true;
    this.#changed();
  }

  /** Changed since step `step` (null: off). The worker is asked which paths differ. */
  setSince(step) {
    this.since = step;
    this.changed = null;
    this.#seq++; // an answer on its way is for another step
    this.#asking = this.#again = false;
    this.#expandNext = true;
    if (step !== null) this.#refresh();
    this.#changed();
  }

  clear() {
    this.type = '';
    this.since = null;
    this.changed = null;
    this.#changed();
  }

  setCompact(on) {
    this.prefs.compact = on;
    this.compactBox.checked = on;
    try {
      localStorage.setItem(STORE_KEY, JSON.stringify(this.prefs));
    } catch { /* storage off: only not remembered */ }
    this.#applyDensity();
  }

  #applyDensity() {
    this.view.root.classList.toggle('compact', !!this.prefs.compact);
    this.view.setRowHeight(this.prefs.compact ? ROW_PX.compact : ROW_PX.normal);
  }

  #changed() {
    this.#stamp++;
    this.#renderButton();
    this.onChange();
    this.render();
  }

  #steps() {
    return this.store.histories.get(this.selection.key)?.steps ?? [];
  }

  /** Why "changed since" cannot be used for what is shown, or ''. */
  #noHistory() {
    const { selection } = this;
    if (!selection.key) return 'Nothing is shown';
    if (selection.isImport()) return 'An imported snapshot has no history';
    const p = selection.provider();
    if (p && selection.custom() && selection.sub() !== p.primarySub) return 'The history follows the provider’s main subscription';
    return '';
  }

  #loadSteps() {
    const key = this.selection.key;
    if (!key || this.#noHistory() || this.store.histories.has(key)) return;
    this.bridge.request(Request.HISTORY, { key }).then((r) => {
      if (this.selection.key === key) this.store.setHistory(key, r);
    }).catch(() => { /* no history yet: sw/history brings it */ });
  }

  /** The step whose state the tree shows: a recording's or the history's chosen one, else the newest. */
  #now() {
    const { selection } = this;
    if (selection.isRecording()) return selection.recordings.get(selection.key)?.step ?? this.#steps().at(-1)?.step ?? null;
    if (selection.scrub?.key === selection.key) return selection.scrub.step.step;
    return this.#steps().at(-1)?.step ?? null;
  }

  /** Asks the worker which paths differ between `since` and now. A newer question wins. */
  #refresh() {
    const key = this.selection.key;
    const since = this.since;
    const to = this.#now();
    if (since === null || to === null || !key) return;
    // One question at a time: under a flood of steps the answers keep coming, a step behind at worst.
    if (this.#asking) {
      this.#again = true;
      return;
    }
    if (this.changed && this.changed.key === key && this.changed.since === since && this.changed.to === to && !this.changed.error) return;
    this.#asking = true;
    const seq = ++this.#seq;
    const done = (changed) => {
      if (seq !== this.#seq) return;
      this.#asking = false;
      if (this.selection.key === key && this.since === since) {
        this.changed = changed;
        this.#stamp++;
        this.onChange();
        this.render();
      }
      if (this.#again) {
        this.#again = false;
        this.#refresh();
      }
    };
    if (since === to) {
      done({ key, since, to, paths: new Set() });
      return;
    }
    this.bridge.request(Request.HISTORY_DIFF, { key, from: since, to, paths: true })
      .then((d) => done({ key, since, to, paths: new Set([...d.added, ...d.changed]) }))
      .catch((e) => done({ key, since, to, paths: new Set(), error: e.message }));
  }

  /**
   * The filter for this source, for TreeView.setFilter: {stamp, shown, matches}, or null (no
   * filter). The same object while nothing it depends on changed.
   */
  filterFor(src) {
    const key = this.selection.key;
    if (key !== this.#key) {
      // Another provider: its history is another one; a type filter still means something.
      this.#key = key;
      if (this.since !== null) {
        this.since = null;
        this.changed = null;
        this.#stamp++;
        this.#renderButton();
      }
    }
    if (!src || !this.active) return null;
    if (this.since !== null && this.#now() !== this.changed?.to) queueMicrotask(() => this.#refresh());
    const changed = this.since === null ? null : this.changed?.key === key ? this.changed.paths : null;
    if (this.since !== null && !changed) return this.#cache.filter; // the answer is on its way
    const sig = `${this.#stamp}|${src.key}|${src.sub}|${src.structure}|${src.resetId}|${src.path}|${src.nodes.size}`;
    if (sig === this.#cache.sig) return this.#cache.filter;
    const matches = matchingPaths(src.nodes, src.path, { type: this.type, changed });
    const filter = { stamp: sig, shown: withAncestors(matches, src.path), matches };
    this.#cache = { sig, filter };
    if (this.#expandNext) {
      // The user asked for this filter: open the way to every match (later changes leave it be).
      this.#expandNext = false;
      queueMicrotask(() => this.view.expandPaths(ancestorsOf(matches, src.path)));
    }
    return filter;
  }

  #renderButton() {
    const b = this.els.button;
    b.setAttribute('aria-pressed', String(!this.els.strip.hidden));
    b.classList.toggle('filtering', this.active);
    b.title = this.active ? 'Filter and display: a filter hides rows now' : 'Filter the tree (type, changed since a step); compact rows; collapse all';
  }

  /** The strip's lists and count (when it is shown). */
  render() {
    if (this.els.strip.hidden) return;
    const src = this.selection.source();
    // The types are counted again when the tree's structure changed, not on every patch.
    const typesSig = `${this.type}|${src ? `${src.key}|${src.sub}|${src.structure}|${src.resetId}|${src.nodes.size}` : ''}`;
    if (typesSig !== this.#typesSig) {
      this.#typesSig = typesSig;
      const types = src ? typeCounts(src.nodes) : [];
      const known = types.some(([t]) => t === this.type);
      setChildren(this.typeSel, h('option', { value: '', text: 'any' }),
        types.map(([t, n]) => h('option', { value: t, text: `${t} (${n})` })),
        this.type && !known ? h('option', { value: this.type, text: `${this.type} (0)` }) : null);
      this.typeSel.value = this.type;
    }
    const why = this.#noHistory();
    const steps = why ? [] : this.#steps();
    const stepsSig = `${why}|${this.since}|${this.selection.key}|${steps.length}|${steps[0]?.step}|${steps.at(-1)?.step}`;
    if (stepsSig !== this.#stepsSig) {
      this.#stepsSig = stepsSig;
      const opts = [];
      for (let i = steps.length - 1; i >= 0; i--) {
        const st = steps[i];
        opts.push(h('option', { value: String(st.step), text: `${st.version === null ? 'no state' : `v${st.version}`} · ${clockTime(st.t, { ms: true })} · ${st.kind}` }));
      }
      setChildren(this.sinceSel, h('option', { value: '', text: why ? '—' : steps.length ? 'any time' : 'no steps yet' }), opts);
      this.sinceSel.value = this.since === null ? '' : String(this.since);
      this.sinceSel.disabled = !!why;
      this.sinceSel.title = why || 'Show only the nodes added or changed since this step of the history (and their ancestors)';
    }
    const f = this.#cache.filter;
    let text = '';
    if (this.since !== null && this.changed?.error) text = `history: ${this.changed.error}`;
    else if (this.since !== null && !this.changed) text = 'asking the history…';
    else if (this.active && f) text = `${f.matches.size.toLocaleString()} match${f.matches.size === 1 ? '' : 'es'}`;
    this.countEl.textContent = text;
    this.countEl.classList.toggle('error-text', !!this.changed?.error);
    this.clearBtn.disabled = !this.active;
  }
}
