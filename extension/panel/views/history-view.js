// history-view.js: the history the service worker keeps for a provider (or a recording opened
// here). The strip under the bar: a slider over the steps, previous / next, back to live, play with
// a speed (a recording, or the live history replayed), Persist, the bounds, export and open a
// recording. The step list in the side pane's History tab: every step (snapshot, patch, resync,
// invoke, result, error, reload) with its time, version, op count and the paths it touched; a step
// is selected by a click, the arrow keys or the slider, and two steps can be pinned to diff them.
// The diff of the selected step against the one before it (or of the pinned pair) goes under it.
//
// Versions are the provider's and may start again (a restart) or belong to another app (a provider
// change at the same address) or another page load: such a step carries a boundary, shown in its
// row and in a diff that crosses it.

import { h, morph, setChildren } from '../../shared/dom.js';
import { boundaryText } from '../../shared/state-diff.js';
import { clockTime } from '../../shared/time-text.js';
import { VirtualList } from './virtual-list.js';
import { Press } from './press.js';
import { stringifyExact } from '../../../js-glue/exact-json.js';

const SHOW_MAX = 300;
const KIND_TEXT = { snapshot: 'snapshot', patch: 'patch', resync: 'resync', invoke: 'invoke', result: 'result', error: 'error', reload: 'reload' };
export const SPEEDS = [0.5, 1, 2, 4, 10];

/** A value of a diff, as the provider wrote it when the worker sent its text (FieldChange beforeText/afterText). */
const short = (v, text) => {
  if (v === undefined) return '—';
  const s = text ?? stringifyExact(v);
  return s.length > 120 ? `${s.slice(0, 117)}…` : s;
};

const mb = (n) => `${(n / 1024 / 1024).toFixed(n < 1024 * 1024 ? 2 : 1)} MB`;

/** The kinds of step, for the list's kind toggles. */
export const STEP_KINDS = Object.keys(KIND_TEXT);
/** The step bounds offered (Options and the History tab's "Keep"); 0: none, memory alone. */
export const KEEP_STEPS = [1000, 5000, 20000, 100000, 0];
export const KEEP_MB = [16, 64, 256, 1024];
/** A step bound this large is none (timeline-limits.js NO_STEP_BOUND). */
const noStepBound = (n) => !Number.isFinite(n) || n >= Number.MAX_SAFE_INTEGER;

/**
 * Which bound holds the history back, with the real figures: the one nearer its limit (the one
 * that drops steps). "keeps the last 1,000 steps (bound: steps; 3.1 MB of 64 MB used)".
 * @param {{steps: number, bytes: number, dropped: number, limits: {steps: number, bytes: number}, kept?: number}} info
 */
export function boundText(info) {
  const { limits } = info;
  const steps = info.steps.toLocaleString('en-US');
  const memory = info.bytes / limits.bytes >= (noStepBound(limits.steps) ? 0 : info.steps / limits.steps);
  // Small amounts in KB: "0.00 MB" says nothing.
  const size = (n) => (n < 1024 * 1024 ? `${Math.max(1, Math.round(n / 1024)).toLocaleString('en-US')} KB` : mb(n));
  const used = `${size(info.bytes)} of ${mb(limits.bytes)} used`;
  const stepBound = noStepBound(limits.steps) ? 'no step bound' : `step bound ${limits.steps.toLocaleString('en-US')}`;
  const head = info.dropped ? `keeps the last ${steps} step${info.steps === 1 ? '' : 's'}` : `${steps} step${info.steps === 1 ? '' : 's'}`;
  const why = memory ? `bound: memory, ${mb(limits.bytes)}; ${size(info.bytes)} used; ${stepBound}` : `bound: steps; ${used}`;
  const kept = info.kept ? ` · ${info.kept} kept while viewed or pinned` : '';
  return `${head} (${why})${info.dropped ? ` · ${info.dropped.toLocaleString('en-US')} dropped` : ''}${kept}`;
}

/** One line for a step, beside its kind's label: "v12 · 3 ops · 2 paths", "v3 · 65 nodes". @param {Step} st */
export function stepText(st) {
  const v = st.version === null || st.version === undefined ? '' : `v${st.version}`;
  switch (st.kind) {
    // The kind is the row's label already: not said twice.
    case 'snapshot': case 'resync': return `${v} · ${st.ops.toLocaleString()} node${st.ops === 1 ? '' : 's'}${st.resumed ? ` · ${st.message}` : ''}`;
    case 'patch': return `${v} · ${st.ops} op${st.ops === 1 ? '' : 's'} · ${st.pathCount} path${st.pathCount === 1 ? '' : 's'}`;
    case 'invoke': return `${st.action} on ${st.path}`;
    case 'result': return `${st.action} on ${st.path} → ${st.status}${st.message ? `: ${st.message}` : ''}`;
    case 'reload': return `page loaded again${st.message ? `: ${st.message}` : ''}`;
    default: return st.message ?? '';
  }
}

export class HistoryStripView {
  /**
   * @param {HTMLElement} strip
   * @param {{onStep: (d: number) => void, onSlide: (index: number) => void, onLive: () => void,
   *          onPlay: () => void, onSpeed: (x: number) => void, onPersist: (on: boolean) => void,
   *          onExport: () => void, onOpen: () => void, onPauseRecording: () => void}} hooks
   */
  constructor(strip, hooks) {
    this.strip = strip;
    const btn = (action, title, text, onclick, cls = 'small') => h('button', { type: 'button', class: cls, title, 'aria-label': title, 'data-action': action, onclick }, text);
    // The keys named here are the ones history-pane.js handles (and shortcuts.js lists).
    this.prevBtn = btn('h-prev', 'Previous step (← when the focus is not in the tree or a text field; ↑ in the step list)', '', () => hooks.onStep(-1), 'small icon-btn i-prev');
    this.nextBtn = btn('h-next', 'Next step (→ when the focus is not in the tree or a text field; ↓ in the step list)', '', () => hooks.onStep(1), 'small icon-btn i-next');
    this.prevBtn.setAttribute('aria-keyshortcuts', 'ArrowLeft');
    this.nextBtn.setAttribute('aria-keyshortcuts', 'ArrowRight');
    this.slider = h('input', { type: 'range', min: '0', max: '0', value: '0', step: '1', 'aria-label': 'Step', 'data-role': 'history-slider',
      oninput: () => hooks.onSlide(Number(this.slider.value)) });
    this.label = h('span', { class: 'h-label mono', 'data-role': 'history-label' });
    this.liveBtn = btn('h-live', 'Back to the live state (Esc)', 'Live', () => hooks.onLive());
    this.liveBtn.setAttribute('aria-keyshortcuts', 'Escape');
    this.playBtn = btn('h-play', 'Play the steps in their own time', '', () => hooks.onPlay(), 'small icon-btn i-play');
    this.speedSel = h('select', { 'aria-label': 'Speed', 'data-role': 'history-speed', onchange: () => hooks.onSpeed(Number(this.speedSel.value)) },
      SPEEDS.map((x) => h('option', { value: String(x), text: `${x}×` })));
    this.speedSel.value = '1';
    // Pausing the recording (not the player): no new steps until resumed; the tree stays live.
    this.recText = h('span', { class: 'h-record-text', text: 'Pause rec' });
    this.recBtn = btn('h-record', 'Pause rec: no new steps are kept (the tree stays live)', this.recText, () => hooks.onPauseRecording(), 'small h-record i-before i-pause');
    this.persist = h('input', { type: 'checkbox', 'data-role': 'history-persist', onchange: () => hooks.onPersist(this.persist.checked) });
    this.persistLabel = h('label', { class: 'small h-persist', title: 'Persist: keep this history even when the browser stops the extension\'s service worker (it is written to the browser session\'s storage)' }, this.persist, h('span', { class: 'h-persist-text', text: 'Persist' }));
    this.bound = h('span', { class: 'muted small h-bound', 'data-role': 'history-bound' });
    this.exportBtn = btn('h-export', 'Export the history as a recording file', '', () => hooks.onExport(), 'tb icon-btn i-download');
    this.openBtn = btn('h-open', 'Open a recording file to play it back, read-only', '', () => hooks.onOpen(), 'tb icon-btn i-upload');
    this.title = h('span', { class: 'strip-title', text: 'History' });
    strip.replaceChildren(
      this.title, this.prevBtn, this.slider, this.nextBtn, this.label, this.liveBtn, this.playBtn, this.speedSel,
      h('span', { class: 'sep' }), this.recBtn, this.persistLabel, this.bound, this.exportBtn, this.openBtn);
  }

  /**
   * @param {{steps: object[], index: number|null, info: object|null, playing: boolean, recording: boolean, note: string, liveVersion: number|null}} st
   *   index: the selected step's index (null: live, the last step); liveVersion: the live tree's
   */
  show({ steps, index, info, playing, recording, note, liveVersion = null }) {
    const n = steps.length;
    const at = index ?? n - 1;
    this.slider.max = String(Math.max(0, n - 1));
    this.slider.value = String(Math.max(0, at));
    this.slider.disabled = n < 2;
    this.prevBtn.disabled = n < 2 || at <= 0;
    this.nextBtn.disabled = n < 2 || at >= n - 1;
    this.liveBtn.hidden = recording;
    this.liveBtn.disabled = index === null;
    this.playBtn.disabled = n < 2;
    this.playBtn.classList.toggle('i-play', !playing);
    this.playBtn.classList.toggle('i-pause', playing);
    this.playBtn.title = playing ? 'Pause' : 'Play the steps in their own time';
    this.playBtn.setAttribute('aria-label', this.playBtn.title);
    this.playBtn.setAttribute('aria-pressed', String(playing));
    const st = n ? steps[at] : null;
    // Live, the strip names the live state (the tree's version), not a step: under load the
    // newest step changes faster than anything could name it; the list and the diff name the
    // step whose diff is shown.
    // A step is named by its version, time and kind, never by its position: steps dropped at the
    // bound would renumber it while it is viewed. Its position is in the tooltip.
    const paused = !recording && info?.paused ? `Paused · ${info.paused.patches.toLocaleString('en-US')} patch${info.paused.patches === 1 ? '' : 'es'} not recorded` : '';
    const label = paused && index === null ? paused
      : !st ? note || 'no steps yet'
      : index === null && !recording ? `live · ${liveVersion === null ? 'no state' : `v${liveVersion}`} · ${n.toLocaleString()} step${n === 1 ? '' : 's'}`
        : `${st.version === null ? 'no state' : `v${st.version}`} · ${clockTime(st.t, { ms: true })} · ${KIND_TEXT[st.kind] ?? st.kind}`;
    if (this.label.textContent !== label) this.label.textContent = label;
    const where = st && (index !== null || recording) ? `step ${(at + 1).toLocaleString()} of ${n.toLocaleString()} kept` : '';
    if (this.label.title !== where) this.label.title = where;
    if (this.slider.getAttribute('aria-valuetext') !== label) this.slider.setAttribute('aria-valuetext', label);
    this.label.classList.toggle('at-boundary', !!st?.boundary && index !== null);
    this.persistLabel.hidden = recording;
    this.persist.checked = !!info?.persist;
    const bound = info ? `${paused ? `${paused} · ` : ''}${boundText(info)}${info.noStates ? ' · steps only, no states' : ''}${info.persistError ? ` · Persist: ${info.persistError}` : ''}` : '';
    this.recBtn.hidden = recording;
    this.recText.textContent = paused ? 'Resume rec' : 'Pause rec';
    this.recBtn.classList.toggle('i-pause', !paused);
    this.recBtn.classList.toggle('i-record', !!paused);
    this.recBtn.title = paused ? `Resume recording (${paused})` : 'Pause recording: no new steps are kept (the tree stays live)';
    // The name starts with the words shown (WCAG 2.5.3: a voice user says what they see).
    this.recBtn.setAttribute('aria-label', paused ? `Resume rec: record steps again (${paused})` : 'Pause rec: no new steps are kept (the tree stays live)');
    this.recBtn.setAttribute('aria-pressed', String(!!paused));
    this.recBtn.disabled = !info;
    this.strip.classList.toggle('rec-paused', !!paused);
    // Where the strip is too narrow for it, the bounds are in the title's tooltip (with why a
    // history keeps no states: too long for the strip).
    this.bound.textContent = bound;
    this.title.title = info?.noStates ? `${bound}\nNo states kept: ${info.noStates}.` : bound;
    this.exportBtn.disabled = n === 0;
    this.strip.classList.toggle('scrubbed', index !== null);
  }
}

/** @typedef {import('../../service-worker/timeline.js').Step} Step */
/** @typedef {HTMLDivElement & {step?: Step, pinText?: string, gap?: number}} StepRow  a row, and what it shows */

/**
 * One row of the step list; `row.step` is the Step it shows (rows are replaced when it changes).
 * gap: steps dropped at the bound between the row before it and this one (said in the row).
 * @param {Step} st @param {number} [gap] @returns {StepRow}
 */
function stepRow(st, gap = 0) {
  /** @type {StepRow} */
  const row = h('div', { class: `step-row kind-${st.kind}${st.boundary ? ' boundary' : ''}${gap ? ' after-gap' : ''}${st.kept ? ' kept' : ''}`, role: 'option', id: `step-${st.step}`, 'aria-selected': 'false', 'data-step': String(st.step), 'data-kind': st.kind },
    h('span', { class: 'step-time mono', text: clockTime(st.t, { ms: true }) }),
    h('span', { class: `step-kind k-${st.kind}`, text: KIND_TEXT[st.kind] ?? st.kind }),
    st.kept ? h('span', { class: 'step-kept', 'data-role': 'step-kept', title: 'Kept past the history\'s bound while a panel views or pins it', text: 'kept' }) : null,
    h('span', { class: 'step-text', text: stepText(st), title: st.paths?.length ? `${st.paths.join('\n')}${st.pathCount > st.paths.length ? `\n… ${st.pathCount - st.paths.length} more` : ''}` : stepText(st) }),
    st.boundary ? h('span', { class: 'step-boundary', text: boundaryText(st) }) : null,
    // Said at the end of the row under the dashed line that marks the gap: the version comes first.
    gap ? h('span', { class: 'step-gap', 'data-role': 'step-gap', title: `${gap.toLocaleString('en-US')} steps before this one were dropped at the history's bound`, text: `… ${gap.toLocaleString('en-US')} dropped …` }) : null,
    // Nothing focusable inside an option (a listbox's rows are read as one item): the Pin is for
    // the mouse; the keyboard pins the selected step with P.
    h('span', { class: 'small step-pin', 'data-action': 'pin', title: 'Pin to diff two steps (P pins the selected step)', 'aria-hidden': 'true', text: 'Pin' }));
  row.step = st;
  return row;
}

/**
 * The index of step number `step` in steps (ordered by step number), -1 when it is not there;
 * with `nearest`, the first step after it instead (0 when the bound dropped it). A binary search:
 * it runs on every update of a long list.
 * @param {Step[]} steps @param {number} step @param {boolean} [nearest]
 */
export function stepIndex(steps, step, nearest = false) {
  let lo = 0, hi = steps.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (steps[mid].step < step) lo = mid + 1;
    else hi = mid;
  }
  if (lo < steps.length && steps[lo].step === step) return lo;
  return nearest ? Math.min(lo, steps.length - 1) : -1;
}

/** The step list's row height (px): panel.css .step-row says the same. */
const STEP_ROW = 22;

export class StepListView {
  /**
   * @param {HTMLElement} root   the History tab's body
   * @param {{onSelect: (step: number) => void, onPin: (step: number) => void, onClearPins: () => void, onKey: (d: number) => void,
   *   onNewest: () => void, onFilter: (f: {path: string, kinds: string[]|null}) => void, onKeep: (k: {steps?: number, mb?: number}) => void}} hooks
   *   onNewest: "▼ newest" was pressed (back to the live state, the list following it again);
   *   onFilter: the filter changed (kinds: those shown, null: all); onKeep: a bound was chosen
   */
  constructor(root, hooks) {
    this.hooks = hooks;
    this.head = h('div', { class: 'steps-head small' });
    // Above the list: the filter (a path prefix, the kinds shown: the worker answers which steps
    // match, from every path each touched) and what the history keeps (the user's bounds).
    this.filterInput = h('input', { type: 'search', class: 'steps-filter mono', placeholder: 'Path filter, e.g. /list', spellcheck: 'false',
      'aria-label': 'Filter the steps by path: a step that touched it or below it', 'data-role': 'steps-filter', oninput: () => this.#filterChanged() });
    this.kindBtns = STEP_KINDS.map((k) => h('button', { type: 'button', class: `steps-kind k-${k}`, 'aria-pressed': 'true', 'data-kind': k, title: `Show ${k} steps`, text: KIND_TEXT[k],
      onclick: (e) => {
        const b = /** @type {HTMLElement} */ (e.currentTarget);
        b.setAttribute('aria-pressed', String(b.getAttribute('aria-pressed') !== 'true'));
        this.#filterChanged();
      } }));
    this.countEl = h('span', { class: 'muted steps-count', 'data-role': 'steps-count' });
    this.keepSteps = h('select', { 'aria-label': 'Steps the history keeps', 'data-role': 'keep-steps', onchange: () => hooks.onKeep({ steps: Number(this.keepSteps.value) }) },
      KEEP_STEPS.map((n) => h('option', { value: String(n), text: n ? `${n.toLocaleString('en-US')} steps` : 'no step bound' })));
    this.keepMb = h('select', { 'aria-label': 'Memory the history may take', 'data-role': 'keep-mb', onchange: () => hooks.onKeep({ mb: Number(this.keepMb.value) }) },
      KEEP_MB.map((n) => h('option', { value: String(n), text: `${n} MB` })));
    this.keepText = h('span', { class: 'muted steps-bound', 'data-role': 'steps-bound' });
    this.tools = h('div', { class: 'steps-tools small' },
      h('div', { class: 'steps-tools-row' }, this.filterInput, h('span', { class: 'steps-kinds', role: 'group', 'aria-label': 'Kinds of step shown' }, this.kindBtns), this.countEl),
      h('div', { class: 'steps-tools-row' }, h('span', { class: 'steps-keep-label', text: 'Keep' }), this.keepSteps, h('span', { class: 'muted', text: '·' }), this.keepMb, this.keepText));
    /** Steps dropped at the bound before a listed step: step number → how many (history-pane.js). @type {Map<number, number>} */
    this.gaps = new Map();
    this.list = h('div', { class: 'steps', role: 'listbox', tabindex: '0', 'aria-label': 'History steps', 'data-role': 'steps' });
    // Shown while the list does not follow the newest step and newer ones are below the view.
    this.newestBtn = h('button', { type: 'button', class: 'steps-newest small', 'data-action': 'newest', hidden: true,
      title: 'Show the newest step and follow new ones again', onclick: () => this.resume() });
    this.diffEl = h('div', { class: 'steps-diff', 'data-role': 'history-diff' });
    root.replaceChildren(this.tools, this.head, this.list, this.newestBtn, this.diffEl);
    this.empty = h('div', { class: 'muted empty small' });
    // Only the rows on screen are in the DOM: a history of 1,000 steps that grows 100 times a
    // second (and loses a quarter at its bound) costs a few rows a frame, not a layout of all.
    this.vl = new VirtualList(this.list, {
      rowHeight: STEP_ROW, overscan: 6, renderRow: (i) => this.#row(i),
      onRender: (first, last) => this.#afterRender(first, last),
      // Scrolled up by the user: the list holds still; back at the end, it follows again. Read
      // from the DOM, not the list's cached height: a browser that clamped our own scroll (the
      // list grew meanwhile) is at the end, not scrolled away.
      onUserScroll: () => {
        const el = this.list;
        this.scrolledAway = el.scrollTop + el.clientHeight < el.scrollHeight - STEP_ROW / 2;
        this.#updateNewest();
      },
    });
    // The list follows the newest step only while the user is not there (as Chrome's Console
    // and Network panels do): a pointer over it, a press, keyboard focus in it or a scroll up
    // each hold it still, so that the row under the pointer is the row clicked.
    this.pointerIn = false;
    this.focusIn = false;
    this.scrolledAway = false;
    this.live = true;
    this.list.addEventListener('pointerenter', () => { this.pointerIn = true; });
    this.list.addEventListener('pointerleave', () => {
      this.pointerIn = false;
      this.#catchUp();
    });
    this.list.addEventListener('pointerdown', () => { this.pointerIn = true; });
    this.list.addEventListener('wheel', (e) => {
      if (e.deltaY < 0) this.scrolledAway = true;
    }, { passive: true });
    this.list.addEventListener('focusin', () => { this.focusIn = true; });
    this.list.addEventListener('focusout', () => {
      this.focusIn = false;
      this.#catchUp();
    });
    // The list grows up to its maximum height as steps come: one that follows the newest step
    // stays at its end when its height changes (after the list's own observer took the height).
    new ResizeObserver(() => {
      if (!this.following()) return;
      this.vl.scrollToEnd();
      this.vl.render();
    }).observe(this.list);
    // A click is the step row it was pressed on (press.js), whatever re-rendered or moved since.
    const press = new Press(this.list, '.step-row');
    this.list.addEventListener('click', (e) => {
      const { row, closest } = press.resolve(e);
      if (!row) return;
      const step = Number(row.dataset.step);
      if (closest('[data-action="pin"]')) hooks.onPin(step);
      else hooks.onSelect(step);
    });
    // The listbox keys: ↑ ↓ a step, PageUp / PageDown a screenful, Home / End the oldest and the
    // newest kept, P pins (or unpins) the selected step.
    this.list.addEventListener('keydown', (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const page = Math.max(1, Math.floor(this.vl.height / STEP_ROW) - 1);
      const d = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page, Home: -Infinity, End: Infinity }[e.key];
      if (d !== undefined) {
        hooks.onKey(d);
        e.preventDefault();
      } else if ((e.key === 'p' || e.key === 'P') && !e.shiftKey && this.selected !== null) {
        hooks.onPin(this.selected);
        e.preventDefault();
      }
    });
    /** @type {Step[]} */
    this.steps = [];
    /** @type {Map<number, StepRow>} */
    this.rows = new Map(); // step number → row element (built when first on screen)
    this.shownStamp = null;
    this.selected = null;
    this.pins = [];
  }

  #filterChanged() {
    const kinds = this.kindBtns.filter((b) => b.getAttribute('aria-pressed') === 'true').map((b) => b.dataset.kind);
    this.hooks.onFilter({ path: this.filterInput.value.trim(), kinds: kinds.length === STEP_KINDS.length ? null : kinds });
  }

  /** "N of M steps" and the bounds' controls and words. @param {number} total @param {number} shown @param {boolean} filtered @param {object|null} info */
  #tools(total, shown, filtered, info) {
    const count = filtered ? `${shown.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} steps` : `${total.toLocaleString('en-US')} step${total === 1 ? '' : 's'}`;
    if (this.countEl.textContent !== count) this.countEl.textContent = count;
    this.keepSteps.disabled = this.keepMb.disabled = !info || !!info.readOnly;
    if (!info?.limits) return;
    const steps = noStepBound(info.limits.steps) ? '0' : String(info.limits.steps);
    // A bound set elsewhere (a recording's, an older setting) is offered as it is.
    if (![...this.keepSteps.options].some((o) => o.value === steps)) this.keepSteps.append(h('option', { value: steps, text: `${Number(steps).toLocaleString('en-US')} steps` }));
    if (this.keepSteps.value !== steps && document.activeElement !== this.keepSteps) this.keepSteps.value = steps;
    const mbs = String(Math.round(info.limits.bytes / 1024 / 1024));
    if (![...this.keepMb.options].some((o) => o.value === mbs)) this.keepMb.append(h('option', { value: mbs, text: `${mbs} MB` }));
    if (this.keepMb.value !== mbs && document.activeElement !== this.keepMb) this.keepMb.value = mbs;
    const text = boundText(info);
    if (this.keepText.textContent !== text) {
      this.keepText.textContent = text;
      this.keepText.title = text;
    }
  }

  /** Whether the list keeps the newest step in view: live, and nobody pointing, focused or scrolled up. */
  following() {
    return this.live && !this.pointerIn && !this.focusIn && !this.scrolledAway;
  }

  /** "▼ newest": the newest step in view and the list following again (the pane goes back to live). */
  resume() {
    this.scrolledAway = false;
    this.hooks.onNewest();
    this.vl.scrollToEnd();
    this.vl.render();
    this.#updateNewest();
  }

  /** The pointer or the focus left: a list that may follow again goes to the newest step. */
  #catchUp() {
    if (!this.following()) return;
    this.vl.scrollToEnd();
    this.vl.render();
    this.#updateNewest();
  }

  /** "▼ newest · N new": how many steps are below the view while the list holds still. */
  #updateNewest() {
    const below = this.following() ? 0 : Math.max(0, this.steps.length - Math.ceil((this.vl.top + this.vl.height) / STEP_ROW));
    const text = below ? `▼ Newest · ${below.toLocaleString()} newer step${below === 1 ? '' : 's'}` : '';
    this.newestBtn.hidden = !below;
    if (this.newestBtn.textContent !== text) this.newestBtn.textContent = text;
  }

  /** Row i, built once per Step object (a step that changed is a new object), marked as it is now. @param {number} i */
  #row(i) {
    const st = this.steps[i];
    let row = this.rows.get(st.step);
    const gap = this.gaps.get(st.step) ?? 0;
    if (row?.step !== st || row.gap !== gap) {
      // The same step anew (the worker sent the list again): the same element, so that a press
      // or a Playwright click on it in progress ends on it.
      const fresh = stepRow(st, gap);
      if (row) {
        morph(row, fresh);
        row.step = st;
        row.pinText = undefined; // the pin's words are set again below
      } else row = fresh;
      row.gap = gap;
      this.rows.set(st.step, row);
    }
    const sel = st.step === this.selected;
    if (row.classList.contains('selected') !== sel) {
      row.classList.toggle('selected', sel);
      row.setAttribute('aria-selected', String(sel));
    }
    const pin = this.pins.indexOf(st.step);
    const pinText = pin >= 0 ? `Pinned ${'AB'[pin]}` : 'Pin';
    if (row.pinText !== pinText) {
      row.pinText = pinText;
      row.classList.toggle('pinned', pin >= 0);
      row.querySelector('[data-action="pin"]').textContent = pinText;
    }
    return row;
  }

  /**
   * @param {{steps: Step[], stamp: number|string, selected: number|null, pins: number[], note: string, live?: boolean,
   *   noStates?: string|null, total?: number, filtered?: boolean, gaps?: Map<number, number>|null, info?: object|null}} st
   *   steps: those shown (filtered); total: all listed; gaps: steps dropped before a listed one
   *   selected: the step the tree, banner, strip and diff show (live: the step whose diff is shown)
   *   live: the live state is shown (the list follows the newest step unless the user is there)
   */
  show({ steps, stamp, selected, pins, note, live = false, noStates = null, total = steps.length, filtered = false, gaps = null, info = null }) {
    this.#tools(total, steps.length, filtered, info);
    if (gaps) this.gaps = gaps;
    const changed = this.shownStamp !== stamp;
    const selChanged = this.selected !== selected;
    this.noStates = noStates;
    const wasLive = this.live;
    this.live = live;
    if (live && !wasLive) this.scrolledAway = false; // back to live: follow again
    if (!changed && !selChanged && this.pins.join() === pins.join() && live === wasLive) return this.#head(pins);
    this.shownStamp = stamp;
    this.selected = selected;
    this.pins = pins;
    if (changed) {
      // Held still, the row at the top keeps its place when steps come at the end or go at the
      // front (the bound): found again by its step number, not by its index.
      const anchor = this.following() ? null : this.#anchor();
      this.steps = steps;
      if (this.rows.size > steps.length + 64) {
        // Steps go from the front at the bound: their rows go too.
        const now = new Set(steps.map((x) => x.step));
        for (const k of this.rows.keys()) if (!now.has(k)) this.rows.delete(k);
      }
      if (!steps.length) {
        this.empty.textContent = note || 'No steps yet: the history starts with the first snapshot.';
        if (!this.empty.isConnected) this.list.prepend(this.empty);
      } else this.empty.remove();
      this.vl.setCount(steps.length);
      if (anchor && steps.length) this.vl.scrollToTop(stepIndex(steps, anchor.step, true) * STEP_ROW + anchor.offset);
    }
    const at = selected === null ? -1 : stepIndex(steps, selected);
    if (this.following()) this.vl.scrollToEnd();
    else if (selChanged && at >= 0 && !live) this.vl.scrollToIndex(at);
    this.vl.render();
    this.#updateNewest();
    this.#head(pins);
  }

  /**
   * The rows in the DOM say where they are in the whole list (only some rows exist), and the
   * list names its active row, so that a screen reader reads the step the arrows moved to.
   */
  #afterRender(first, last) {
    const n = String(this.steps.length);
    for (let i = first; i < last; i++) {
      const row = this.rows.get(this.steps[i].step);
      if (!row) continue;
      if (row.getAttribute('aria-posinset') !== String(i + 1)) row.setAttribute('aria-posinset', String(i + 1));
      if (row.getAttribute('aria-setsize') !== n) row.setAttribute('aria-setsize', n);
    }
    const active = this.selected !== null && this.rows.get(this.selected)?.isConnected ? `step-${this.selected}` : null;
    if (active) {
      if (this.list.getAttribute('aria-activedescendant') !== active) this.list.setAttribute('aria-activedescendant', active);
    } else if (this.list.hasAttribute('aria-activedescendant')) this.list.removeAttribute('aria-activedescendant');
  }

  /** The step at the top of the view and how far into it the view starts. */
  #anchor() {
    if (!this.steps.length) return null;
    const i = Math.min(this.steps.length - 1, Math.floor(this.vl.top / STEP_ROW));
    return { step: this.steps[i].step, offset: this.vl.top - i * STEP_ROW };
  }

  #head(pins) {
    const key = `${pins.join()} ${this.noStates ?? ''}`;
    if (this.headKey === key) return;
    this.headKey = key;
    // A history without states lists its steps, and says at its head why none can be shown.
    if (this.noStates) {
      setChildren(this.head, h('span', { class: 'muted', 'data-role': 'no-states', text: `Steps only, no states to travel to: ${this.noStates}. A larger bound in Options (History) keeps them from the next reload.` }));
      return;
    }
    setChildren(this.head,
      pins.length === 2
        ? [h('span', { text: 'Diff of the pinned steps ' }), h('button', { type: 'button', class: 'link', 'data-action': 'clear-pins', onclick: () => this.hooks.onClearPins(), text: 'clear pins' })]
        : h('span', { class: 'muted', text: pins.length === 1 ? 'Pin a second step to diff the two (P in the list).' : 'Select a step to see what it changed; pin two (P in the list) to diff any pair.' }));
  }
}

/**
 * The diff of two states, for the side pane.
 * @param {HTMLElement} root @param {ReturnType<typeof import('../../shared/state-diff.js').diffStates>} diff  the worker's
 * @param {{from: {version: number|null}, to: {version: number|null}, onPick: (path: string) => void, boundaries?: Step[]}} o
 *   from, to: the steps compared; boundaries: the steps between them that start anew
 */
export function renderDiff(root, diff, { from, to, onPick, boundaries = [] }) {
  const { added, removed, changed } = diff;
  const pathLink = (path, cls) => h('button', { type: 'button', class: `link mono ${cls}`, 'data-path': path, onclick: () => onPick(path), text: path });
  const list = (items, make) => [items.slice(0, SHOW_MAX).map(make), items.length > SHOW_MAX ? h('p', { class: 'muted', text: `… ${items.length - SHOW_MAX} more` }) : null];
  const kv = (rows) => h('table', { class: 'diff-kv' }, rows.map((r) => h('tr', {},
    h('th', { class: 'mono', text: r.key }),
    h('td', { class: 'before mono', text: short(r.before, r.beforeText) }),
    h('td', { class: 'arrow', text: '→' }),
    h('td', { class: 'after mono', text: short(r.after, r.afterText) }))));
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
