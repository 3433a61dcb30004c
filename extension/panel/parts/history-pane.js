// history-pane.js: the history strip and the History tab (views/history-view.js) over the history
// the service worker keeps (ui/history, sw/history; extension/service-worker/timeline.js), and the
// recordings opened here.
//
// One selection drives everything: the step chosen (by the list, the slider, the arrows, the
// player) is fetched from the worker (its state, rebuilt by the core), and only when it arrives do
// the tree, the "viewing step N" banner, the slider, the list and the diff move to it together, so
// that they never disagree. A newer choice made meanwhile wins; a slider dragged fast asks for the
// step it rests on, not for every one it passed.
// The steps viewed and pinned are held: the worker keeps them past its bound (history-steps.js).

import { Request, ErrorCode } from '../../shared/messages.js';
import { HistoryStripView, StepListView, renderDiff, stepIndex } from '../views/history-view.js';
import { StepFilter, StepHolds, droppedGaps, dropSubtrees, setSetting, keepBound, shownIndex, stepBefore,
  exportRecording, openRecording, closeRecording } from './history-steps.js';
import { h, setChildren } from '../../shared/dom.js';
import { toggleStrip } from './toolbar.js';
import { exactView } from '../exact-views.js';
import { oncePerFrame } from '../panes.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../bridge.js').Bridge} Bridge */
/** @typedef {import('../selection.js').Selection} Selection */
/** @typedef {import('../views/tree-view.js').TreeView} TreeView */
/** @typedef {import('../panes.js').Pane} Pane */

/** A recording file: the worker checks it; this only routes the file (its first bytes say it). @param {string} text */
export const isRecordingText = (text) => /"format"\s*:\s*"slop-inspector-recording"/.test(text.slice(0, 300));

const PLAY_MIN_MS = 40;
/** While live, the diff of the newest step is asked for at most this often. */
const LIVE_DIFF_MS = 150;
const PLAY_MAX_MS = 2000;

/** @implements {Pane} */
export class HistoryPane {
  /** The last recording exported, its text (for tests). @type {string|null} */
  lastExport = null;
  /** Why the last recording file was not opened. @type {string|null} */
  error = null;
  /** The last diff shown, in short (for tests): steps, versions, boundaries, paths. @type {object|null} */
  lastDiff = null;
  /** The step whose state is shown (null: live), as last applied. @type {number|null} */
  shownStep = null;
  /** @type {number[]} */
  pins = [];
  playing = false;
  speed = 1;
  #seq = 0;
  #inFlight = false;
  /** @type {number|null|undefined} */
  #queued = undefined;
  #queuedExact = false;
  /** @type {ReturnType<typeof setTimeout>|0} */
  #timer = 0;
  #resetId = 0;
  /**
   * The banner's note for the next #go: the step viewed was dropped ({step, version, limits, info}).
   * @type {{step: number, version: number|null, limits: object|null, info?: object|null}|null}
   */
  #droppedNote = null;
  /** The step last asked for (null: live), shown or on its way; undefined: none asked yet. @type {number|null|undefined} */
  #wanted = undefined;
  #liveBusy = false;
  /** The provider (or recording) whose history this is: another one shown resets the selection. @type {string|null} */
  #of = null;
  #onKey = (e) => this.#key(e);
  /** The strip and the list, at the next frame (a store change; many in one frame render once). */
  #later = oncePerFrame(() => this.render());
  #liveAgain = false;
  #liveAt = -Infinity;
  /** @type {ReturnType<typeof setTimeout>|0} */
  #liveTimer = 0;
  /** The step whose diff is shown against the one before it (null: none, or the pinned pair). @type {number|null} */
  diffStep = null;

  /**
   * @param {{strip: HTMLElement, button: HTMLButtonElement, list: HTMLElement, file: HTMLInputElement}} els
   * @param {{store: Store, bridge: Bridge,
   *          selection: Selection, treeView: TreeView,
   *          toast: {show: (text: string) => void}, onScrub: () => void, showTab: () => void,
   *          onRecording: (key: string) => void, onClosed: () => void}} o
   *   onClosed: the strip was closed by its button (the side pane gives back the tab it had before)
   */
  constructor(els, o) {
    this.els = els;
    this.store = o.store;
    this.bridge = o.bridge;
    this.selection = o.selection;
    this.treeView = o.treeView;
    this.toast = o.toast;
    this.onScrub = o.onScrub;
    this.showTab = o.showTab;
    this.onRecording = o.onRecording;
    this.onClosed = o.onClosed;
    // The step list's filter (history-steps.js), and the steps held past the worker's bound.
    this.filter = new StepFilter(this.bridge, () => (this.selection.isImport() ? null : this.selection.key), () => this.render());
    this.holds = new StepHolds(this.bridge);
    this.strip = new HistoryStripView(els.strip, {
      onStep: (d) => this.step(d),
      onSlide: (i) => { const s = this.#all()[i]; if (s) this.select(s.step); },
      onLive: () => this.select(null),
      onPlay: () => this.togglePlay(),
      onSpeed: (x) => { this.speed = x; },
      onPersist: (on) => setSetting(this, Request.HISTORY_PERSIST, on),
      onExport: () => exportRecording(this).catch((e) => this.toast.show(`Export failed: ${e.message}`)),
      onOpen: () => els.file.click(),
      // Pauses or resumes recording this provider's history.
      onPauseRecording: () => setSetting(this, Request.HISTORY_PAUSE, !this.history()?.info?.paused),
    });
    this.list = new StepListView(els.list, {
      // A row clicked is that step, the newest one too (it is not "live": new steps keep coming).
      onSelect: (step) => this.select(step, { exact: true }),
      onNewest: () => this.backToLive(),
      onPin: (step) => this.pin(step),
      onClearPins: () => { this.pins = []; this.#hold(); this.#diff(); this.render(); },
      onKey: (d) => this.step(d),
      onFilter: (f) => { this.filter.set(f); this.render(); },
      onKeep: (k) => keepBound(k).catch((e) => this.toast.show(`History bound: ${e.message}`)),
    });
    els.button.addEventListener('click', () => {
      toggleStrip(els.button, els.strip);
      if (els.strip.hidden) {
        this.stop();
        if (this.selection.scrub) this.select(null);
      } else {
        this.load();
        this.showTab();
      }
      this.render();
      // After the pane's own work: a closed strip gives the side pane back the tab it had before the
      // strip opened the History tab (H, H leaves things as they were).
      if (els.strip.hidden) this.onClosed();
    });
    document.addEventListener('keydown', this.#onKey);
    els.file.addEventListener('change', async () => {
      const file = els.file.files?.[0];
      els.file.value = '';
      if (file) await this.openRecording(await file.text(), file.name);
    });
  }

  /**
   * ← / → step and Esc goes back to live, while the strip or the History tab is shown. Not in a
   * text field (its own caret), the slider (it moves itself), the tree (← / → fold and unfold),
   * a dialog or a menu, nor when another part took the key.
   */
  #key(e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.shiftKey) return;
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight' && e.key !== 'Escape') return;
    if (this.els.strip.hidden && this.els.list.hidden) return;
    const t = e.target;
    if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement || t?.isContentEditable) return;
    // A dialog or a menu (the keys overlay, a confirmation, a row's menu) has the key to itself.
    if (t instanceof Element && t.closest('dialog, [role="dialog"], [role="alertdialog"], [role="menu"]')) return;
    if (e.key === 'Escape') {
      if (this.selection.isRecording() || (this.shownStep === null && !this.selection.scrubDropped && !this.playing)) return;
      this.backToLive();
      e.preventDefault();
      return;
    }
    if (t instanceof Element && t.closest('#tree')) return;
    if (!this.#steps().length || this.#note()) return;
    this.step(e.key === 'ArrowLeft' ? -1 : 1);
    e.preventDefault();
  }

  /** The history shown: the shown provider's or recording's (null if none). */
  history() {
    const key = this.selection.key;
    return key ? this.store.histories.get(key) ?? null : null;
  }

  /** Why there is no history to show (the strip and the tab say it), or ''. */
  #note() {
    const { selection } = this;
    if (selection.isImport()) return 'An imported snapshot has no history: open a recording to play one back.';
    const p = selection.provider();
    if (p && selection.custom() && selection.sub() !== p.primarySub) return 'The history follows the provider’s main subscription: show it to step through.';
    return '';
  }

  /** Fetches the whole list (the strip opened, or another provider is shown). */
  load() {
    const key = this.selection.key;
    if (!key || this.selection.isImport()) return;
    this.bridge.request(Request.HISTORY, { key }).then((r) => {
      if (this.selection.key === key) this.store.setHistory(key, r);
    }).catch(() => { /* no history yet: sw/history brings it */ });
  }

  /** The History tab opened (or was asked for again): the whole list. */
  shown() {
    this.load();
    this.render();
  }

  // Hidden, the list is (its element's hidden attribute): render() then draws the strip only.
  hidden() {}

  /** @param {import('../panes.js').StoreChange|null} change */
  update(change) {
    if (!change) {
      if (this.selection.key !== this.#of) this.providerShown();
      return this.render();
    }
    if (change.bridge && this.store.bridgeState === 'connected') this.reconnected();
    if (change.histories.has(this.selection.key)) this.stepsChanged();
    if (change.providers || change.bridge || change.imports) this.render();
    else this.#later();
  }

  dispose() {
    document.removeEventListener('keydown', this.#onKey);
    this.stop();
  }

  /**
   * A new port (the service worker started again): it knows nothing of what this panel asked for.
   * An open history asks again (a worker that restarted kept no history: it starts over).
   */
  reconnected() {
    if (!this.els.strip.hidden || !this.els.list.hidden) this.load();
  }

  /** Another provider is shown: nothing of the last one's history stays selected. */
  providerShown() {
    this.#of = this.selection.key;
    this.stop();
    this.pins = [];
    this.shownStep = null;
    this.diffStep = null;
    this.#wanted = undefined;
    this.#droppedNote = null;
    this.selection.scrubDropped = null;
    this.#seq++;
    this.#hold();
    this.filter.reset();
    if (!this.els.strip.hidden) this.load();
  }

  /** Every step listed (held ones kept past the bound too); #steps: those the filter shows (the list, ↑/↓, the player). */
  #all() { return this.history()?.steps ?? []; }
  #steps() { return this.filter.apply(this.#all()); }
  #indexOf(step) { return stepIndex(this.#steps(), step); }

  /** The steps held: shown, on its way, pinned. Sent before a state is asked for (one port, in order): nothing drops it in between. */
  #hold() {
    const { selection } = this;
    this.holds.send(selection.isRecording() || selection.isImport() ? null : selection.key, [this.#wanted, this.shownStep, ...this.pins]);
  }

  /** Moves the selection d steps (the arrow buttons and keys, the player). */
  step(d) {
    const steps = this.#steps();
    if (!steps.length) return;
    // From the step last asked for: keys pressed faster than steps arrive add up.
    const from = this.#wanted !== undefined && (this.#wanted === null || stepIndex(this.#all(), this.#wanted) >= 0) ? this.#wanted : this.shownStep;
    const cur = from === null ? steps.length - 1 : shownIndex(steps, from, d);
    this.selectIndex(Math.max(0, Math.min(steps.length - 1, cur + d)));
  }

  selectIndex(i) {
    const steps = this.#steps();
    if (steps[i]) this.select(steps[i].step);
  }

  /**
   * Shows a step's state (null: live). Its state and its diff are asked for together; the screen
   * moves when both are here. While one is on its way, only the latest wish is kept.
   */
  select(step, { exact = false } = {}) {
    this.#wanted = step;
    this.#hold();
    if (this.#inFlight) {
      this.#queued = step;
      this.#queuedExact = exact;
      return;
    }
    this.#go(step, exact).finally(() => {
      this.#inFlight = false;
      if (this.#queued !== undefined) {
        const next = this.#queued;
        const nextExact = this.#queuedExact;
        this.#queued = undefined;
        if (next !== this.shownStep || this.#droppedNote) this.select(next, { exact: nextExact });
      } else this.stepsChanged(); // steps that came meanwhile (maybe dropping the one shown)
    });
  }

  /** @param {number|null} step @param {boolean} exact  the step itself even when it is the newest */
  async #go(step, exact = false) {
    const { selection, bridge } = this;
    const key = selection.key;
    const steps = this.#all();
    const last = steps.at(-1)?.step ?? null;
    const recording = selection.isRecording();
    // The newest step of a live provider is the live state itself (unless a row was clicked:
    // that step stays shown while newer ones come).
    const live = !recording && (step === null || (step === last && !exact));
    this.#inFlight = true;
    const seq = ++this.#seq;
    // A choice made now replaces what the banner said about a step that was dropped.
    selection.scrubDropped = this.#droppedNote;
    this.#droppedNote = null;
    if (live) {
      this.shownStep = null;
      this.#hold(); // the step viewed before is released (it goes at the worker's next drop)
      selection.setScrub(null);
      this.onScrub();
      let r = null;
      try {
        r = await this.#fetchDiff(null);
      } catch { /* the steps moved on: the next refresh brings the newest */ }
      if (seq === this.#seq && r) this.#showDiff(r);
      this.render();
      return;
    }
    const tree = selection.tree();
    let held = recording ? selection.recordings.get(key)?.tree : selection.scrub?.key === key ? selection.scrub.source : null;
    let have = recording ? selection.recordings.get(key)?.step ?? null : selection.scrub?.key === key ? selection.scrub.step.step : null;
    // From live, the panel's own whole mirror is the newest step's state when their versions
    // match within one segment (a patch, not a new snapshot): the worker then sends only what
    // differs, not every view of the tree again (10,000 views cost the worker and the port
    // hundreds of ms).
    const newest = steps.at(-1);
    const p = selection.provider();
    if (!recording && have === null && tree?.live && tree.complete && p && tree.sub === p.primarySub && newest
      && !['snapshot', 'resync', 'reload'].includes(newest.kind) && newest.version === tree.version) {
      held = tree;
      have = newest.step;
    }
    let state, diff;
    try {
      [state, diff] = await Promise.all([
        bridge.request(Request.HISTORY_STATE, { key, step, have }),
        // The step before it may go at the bound meanwhile: then there is nothing to diff against.
        this.#fetchDiff(step).catch(() => ({ from: null, to: step, d: null, pinned: false })),
      ]);
    } catch (e) {
      if (seq !== this.#seq || selection.key !== key) return;
      if (e.code === ErrorCode.NOT_FOUND) this.#dropped(step, steps.find((s) => s.step === step)?.version ?? null);
      else this.toast.show(`History: ${e.message}`);
      return;
    }
    if (seq !== this.#seq || selection.key !== key) return;
    const nodes = state.full || !held ? new Map() : new Map(held.nodes);
    dropSubtrees(nodes, [...state.removed, ...state.replaced]);
    for (const v of state.views) nodes.set(v.path, exactView(v));
    const stepObj = steps.find((s) => s.step === step) ?? { step, version: state.version, t: Date.now() };
    const path = tree?.path ?? '/';
    const source = { key, sub: tree?.sub ?? 'recording', path, nodes, structure: `h${step}:${seq}`, resetId: recording ? ++this.#resetId : tree?.resetId ?? 0, live: false,
      version: state.version, complete: true, total: nodes.size, readOnly: true };
    if (recording) {
      const rec = selection.recordings.get(key);
      rec.step = step;
      rec.tree = source;
    } else {
      selection.setScrub({ key, sub: tree?.sub, step: stepObj, version: state.version, source });
    }
    // Tree, banner, strip, list and diff move to the step in this one turn: they never disagree.
    this.shownStep = step;
    this.#hold();
    this.#showDiff(diff);
    this.onScrub();
    this.render();
  }

  /**
   * The step shown is no longer in the history (the worker dropped it at its bound): the banner
   * says so plainly and the panel goes back to live, so that nothing names a step that is gone.
   */
  #dropped(step, version) {
    this.stop();
    this.#droppedNote = { step, version, limits: this.history()?.info?.limits ?? null, info: this.history()?.info ?? null };
    if (this.#inFlight) {
      this.#queued = null;
      this.#wanted = null;
    } else this.select(null);
  }

  /** Esc and the banner's button: back to live (and the banner's note about a dropped step goes). */
  backToLive() {
    this.stop();
    this.selection.scrubDropped = null;
    if (this.shownStep !== null || this.#inFlight) this.select(null);
    else this.onScrub();
  }

  /**
   * New steps. The steps viewed and pinned are held: the worker keeps them past its bound, listed
   * in their place. Only a step it could not keep (the bound came before the hold, or no room)
   * ends the view (see #dropped) or the pin; while live the diff follows the newest step.
   */
  stepsChanged() {
    const steps = this.#all();
    if (!steps.length || this.selection.isRecording()) return;
    this.filter.refresh();
    const gone = (n) => stepIndex(steps, n) < 0;
    if (this.shownStep !== null && gone(this.shownStep) && !this.#inFlight) {
      const scrub = this.selection.scrub;
      this.#dropped(this.shownStep, scrub?.step?.step === this.shownStep ? scrub.version : null);
      return;
    }
    if (this.pins.some(gone)) {
      this.pins = this.pins.filter((p) => !gone(p));
      this.#hold();
      if (this.shownStep === null) this.#followLive(true);
      return;
    }
    this.#followLive();
  }

  /**
   * While the live state is shown, the diff (and the list's selected row with it) follows the
   * newest step: one request at a time, at most every LIVE_DIFF_MS.
   */
  #followLive(now = false) {
    if (this.shownStep !== null || this.#inFlight || this.pins.length === 2 || (this.els.strip.hidden && this.els.list.hidden)) return;
    if (this.#liveBusy) {
      this.#liveAgain = true;
      return;
    }
    const newest = this.#all().at(-1)?.step ?? null;
    if (!now && newest === this.diffStep) return;
    const wait = now ? 0 : Math.max(0, this.#liveAt + LIVE_DIFF_MS - performance.now());
    this.#liveBusy = true;
    clearTimeout(this.#liveTimer);
    this.#liveTimer = setTimeout(async () => {
      this.#liveAt = performance.now();
      const token = this.#seq;
      try {
        const r = await this.#fetchDiff(null);
        // A step chosen meanwhile wins: its own diff comes with its state.
        if (token === this.#seq && this.shownStep === null && !this.#inFlight && r.pinned === (this.pins.length === 2)) {
          this.#showDiff(r);
          this.render();
        }
      } catch { /* dropped meanwhile: the next one asks again */ }
      this.#liveBusy = false;
      if (this.#liveAgain) {
        this.#liveAgain = false;
        this.#followLive();
      }
    }, wait);
  }

  /**
   * The diff to show with `step` (null: the newest): the pinned pair, else the step against the
   * one before it. {from, to, d}; d is null when there is nothing before it to diff.
   */
  async #fetchDiff(step) {
    // The step before it in the whole list, not the filtered one: a step's diff is its own change.
    const steps = this.#all();
    let from, to;
    if (this.pins.length === 2) [from, to] = [...this.pins].sort((a, b) => a - b);
    else {
      const i = step === null ? steps.length - 1 : stepIndex(steps, step);
      const st = steps[i];
      const before = stepBefore(steps, i);
      if (before === null) return { from: null, to: st?.step ?? step, d: null, pinned: false };
      [from, to] = [before, st.step];
    }
    const d = await this.bridge.request(Request.HISTORY_DIFF, { key: this.selection.key, from, to });
    return { from, to, d, pinned: this.pins.length === 2 };
  }

  #showDiff({ from, to, d, pinned }) {
    this.diffStep = pinned ? null : to;
    if (!d) {
      setChildren(this.diffEl(), to === null || to === undefined ? null
        : h('p', { class: 'muted small', text: 'No step before this one is kept: there is nothing to diff it against.' }));
      this.lastDiff = null;
      return;
    }
    renderDiff(this.diffEl(), d, {
      from: d.from, to: d.to, boundaries: d.boundaries,
      onPick: (path) => {
        if (this.selection.source()?.nodes.has(path)) this.treeView.reveal(path);
      },
    });
    this.lastDiff = {
      fromStep: from, toStep: to, from: d.from.version, to: d.to.version, boundaries: d.boundaries.length, pinned,
      added: d.added.map((v) => v.path), removed: d.removed.map((v) => v.path), changed: d.changed.map((c) => c.path),
    };
  }

  /** The pinned pair's diff, or (no pair) the shown step's again. */
  async #diff() {
    const seq = this.#seq;
    let r;
    try {
      r = await this.#fetchDiff(this.shownStep);
    } catch {
      return;
    }
    if (seq === this.#seq) {
      this.#showDiff(r);
      this.render();
    }
  }

  diffEl() {
    return this.list.diffEl;
  }

  pin(step) {
    const i = this.pins.indexOf(step);
    if (i >= 0) this.pins.splice(i, 1);
    else this.pins = [...this.pins, step].slice(-2);
    this.#hold();
    this.render();
    if (this.pins.length === 2 || i >= 0) this.#diff();
  }

  /** Pins two steps by index (tests, and a "diff these" from elsewhere). */
  pinIndexes(a, b) {
    const steps = this.#steps();
    this.pins = [steps[a]?.step, steps[b]?.step].filter((x) => x !== undefined);
    this.#hold();
    this.render();
    return this.#diff();
  }

  // ------------------------------------------------------------------------------ player

  togglePlay() {
    if (this.playing) this.stop();
    else this.play();
  }

  play() {
    const steps = this.#steps();
    if (steps.length < 2) return;
    this.playing = true;
    if (this.shownStep === null || this.#indexOf(this.shownStep) >= steps.length - 1) this.selectIndex(0);
    this.#next();
    this.render();
  }

  stop() {
    this.playing = false;
    clearTimeout(this.#timer);
    this.render();
  }

  #next() {
    clearTimeout(this.#timer);
    if (!this.playing) return;
    const steps = this.#steps();
    const i = this.shownStep === null ? steps.length - 1 : this.#indexOf(this.shownStep);
    if (i < 0 || i >= steps.length - 1) {
      this.stop();
      return;
    }
    // The steps' own spacing, sped up, within bounds a person can follow.
    const wait = Math.max(PLAY_MIN_MS, Math.min(PLAY_MAX_MS, (steps[i + 1].t - steps[i].t) / this.speed));
    this.#timer = setTimeout(() => {
      if (!this.playing) return;
      this.selectIndex(i + 1);
      this.#timer = setTimeout(() => this.#next(), 0);
    }, wait);
  }

  // -------------------------------------------------------------------------- recordings

  /** A recording file, checked by the worker, played back read-only under its own key. */
  openRecording(text, name) {
    return openRecording(this, text, name);
  }

  closeRecording(key) {
    closeRecording(this, key);
  }

  render() {
    const { els, selection } = this;
    els.button.setAttribute('aria-pressed', String(!els.strip.hidden));
    if (els.strip.hidden && els.list.hidden) return; // neither the strip nor the History tab is shown
    const hist = this.history();
    const note = this.#note();
    // The strip's slider runs over the whole history; the list (and ↑/↓) over the steps the filter shows.
    const all = note ? [] : hist?.steps ?? [];
    const steps = note ? [] : this.#steps();
    const recording = selection.isRecording();
    const index = this.shownStep === null ? null : stepIndex(all, this.shownStep);
    this.strip.show({ steps: all, index: index === -1 ? null : index, info: note ? null : hist?.info ?? null, playing: this.playing, recording, note, liveVersion: selection.tree()?.version ?? null });
    // Live, the row selected is the step whose diff is shown (it follows the newest step).
    const selected = this.shownStep ?? (this.diffStep !== null && this.#indexOf(this.diffStep) >= 0 ? this.diffStep : steps.at(-1)?.step ?? null);
    const filtered = this.filter.active();
    const info = note || !hist?.info ? null : recording ? { ...hist.info, readOnly: true } : hist.info;
    this.list.show({ steps, stamp: note ? `note:${note}` : `${hist?.stamp ?? 0}/${this.filter.version}`, selected, pins: this.pins,
      note: note || (filtered && all.length && !steps.length ? this.filter.emptyText() : ''),
      live: this.shownStep === null && !recording, noStates: note ? null : hist?.info?.noStates ?? null,
      total: all.length, filtered, gaps: droppedGaps(all), info });
  }

}
