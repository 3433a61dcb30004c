// history-pane.js: the history strip and the History tab (views/history-view.js) over the history
// the service worker keeps (ui/history, sw/history; extension/service-worker/timeline.js), and the
// recordings opened here.
//
// One selection drives everything: the step chosen (by the list, the slider, the arrows, the
// player) is fetched from the worker (its state, rebuilt by the core), and only when it arrives do
// the tree, the "viewing step N" banner, the slider, the list and the diff move to it together, so
// that they never disagree. A newer choice made meanwhile wins; a slider dragged fast asks for the
// step it rests on, not for every one it passed.

import { Request, ErrorCode } from '../../shared/messages.js';
import { isAtOrUnder } from '../../shared/node-path.js';
import { HistoryStripView, StepListView, renderDiff } from '../views/history-view.js';
import { toggleStrip } from './toolbar.js';
import { download, fileName } from '../export.js';

/** A recording file: the worker checks it; this only routes the file (its first bytes say it). */
export const isRecordingText = (text) => /"format"\s*:\s*"slop-inspector-recording"/.test(text.slice(0, 300));

const PLAY_MIN_MS = 40;
const PLAY_MAX_MS = 2000;

export class HistoryPane {
  /** The last diff shown, in short (for tests): steps, versions, boundaries, paths. */
  lastDiff = null;
  /** The step whose state is shown (null: live), as last applied. */
  shown = null;
  pins = [];
  playing = false;
  speed = 1;
  #seq = 0;
  #inFlight = false;
  #queued = undefined;
  #timer = 0;
  #diffTimer = 0;
  #resetId = 0;

  /**
   * @param {{strip: HTMLElement, button: HTMLButtonElement, list: HTMLElement, file: HTMLInputElement}} els
   * @param {{store, bridge, selection, treeView, toast, onScrub: () => void, showTab: () => void,
   *          onRecording: (key: string) => void}} o
   */
  constructor(els, o) {
    Object.assign(this, { els, ...o });
    this.strip = new HistoryStripView(els.strip, {
      onStep: (d) => this.step(d),
      onSlide: (i) => this.selectIndex(i),
      onLive: () => this.select(null),
      onPlay: () => this.togglePlay(),
      onSpeed: (x) => { this.speed = x; },
      onPersist: (on) => this.persist(on),
      onExport: () => this.exportRecording().catch((e) => this.toast.show(`Export failed: ${e.message}`)),
      onOpen: () => els.file.click(),
    });
    this.list = new StepListView(els.list, {
      onSelect: (step) => this.select(step),
      onPin: (step) => this.pin(step),
      onClearPins: () => { this.pins = []; this.#diff(); this.render(); },
      onKey: (d) => this.step(d),
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
    });
    els.file.addEventListener('change', async () => {
      const file = els.file.files?.[0];
      els.file.value = '';
      if (file) await this.openRecording(await file.text(), file.name);
    });
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

  /**
   * A new port (the service worker started again): it knows nothing of what this panel asked for.
   * An open history asks again (a worker that restarted kept no history: it starts over).
   */
  reconnected() {
    if (!this.els.strip.hidden || !this.els.list.hidden) this.load();
  }

  /** Another provider is shown: nothing of the last one's history stays selected. */
  providerShown() {
    this.stop();
    this.pins = [];
    this.shown = null;
    this.#seq++;
    if (!this.els.strip.hidden) this.load();
  }

  #steps() {
    return this.history()?.steps ?? [];
  }

  #indexOf(step) {
    return this.#steps().findIndex((s) => s.step === step);
  }

  /** Moves the selection d steps (the arrow buttons and keys, the player). */
  step(d) {
    const steps = this.#steps();
    if (!steps.length) return;
    const cur = this.shown === null ? steps.length - 1 : Math.max(0, this.#indexOf(this.shown));
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
  select(step) {
    if (this.#inFlight) {
      this.#queued = step;
      return;
    }
    this.#go(step).finally(() => {
      this.#inFlight = false;
      if (this.#queued !== undefined) {
        const next = this.#queued;
        this.#queued = undefined;
        if (next !== this.shown) this.select(next);
      }
    });
  }

  async #go(step) {
    const { selection, bridge } = this;
    const key = selection.key;
    const steps = this.#steps();
    const last = steps.at(-1)?.step ?? null;
    const recording = selection.isRecording();
    // The newest step of a live provider is the live state itself.
    const live = !recording && (step === null || step === last);
    this.#inFlight = true;
    const seq = ++this.#seq;
    if (live) {
      this.shown = null;
      selection.setScrub(null);
      this.onScrub();
      await this.#diff(seq);
      this.render();
      return;
    }
    const tree = selection.tree();
    const held = recording ? selection.recordings.get(key)?.tree : selection.scrub?.key === key ? selection.scrub.source : null;
    const have = recording ? selection.recordings.get(key)?.step ?? null : selection.scrub?.key === key ? selection.scrub.step.step : null;
    let state;
    try {
      [state] = await Promise.all([
        bridge.request(Request.HISTORY_STATE, { key, step, have }),
        this.#diff(seq, step),
      ]);
    } catch (e) {
      if (seq === this.#seq) this.toast.show(e.code === ErrorCode.NOT_FOUND ? 'That step is no longer in the history.' : `History: ${e.message}`);
      return;
    }
    if (seq !== this.#seq || selection.key !== key) return;
    const nodes = state.full || !held ? new Map() : new Map(held.nodes);
    for (const p of [...state.removed, ...state.replaced]) for (const k of [...nodes.keys()]) if (isAtOrUnder(k, p)) nodes.delete(k);
    for (const v of state.views) nodes.set(v.path, v);
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
    this.shown = step;
    this.onScrub();
    this.render();
  }

  /** New steps: while the live state is shown, the diff follows the newest step (at most every 300 ms). */
  stepsChanged() {
    if (this.shown !== null || this.pins.length === 2 || this.els.strip.hidden || this.#diffTimer) return;
    this.#diffTimer = setTimeout(() => {
      this.#diffTimer = 0;
      if (this.shown === null && this.pins.length !== 2) this.#diff();
    }, 300);
  }

  /** The diff shown under the list: the pinned pair, else the step against the one before it. */
  async #diff(seq = ++this.#seq, step = this.shown) {
    const key = this.selection.key;
    const steps = this.#steps();
    let from, to;
    if (this.pins.length === 2) [from, to] = [...this.pins].sort((a, b) => a - b);
    else {
      const i = step === null ? steps.length - 1 : this.#indexOf(step);
      if (i < 1) {
        this.diffEl().replaceChildren();
        this.lastDiff = null;
        return;
      }
      [from, to] = [steps[i - 1].step, steps[i].step];
    }
    let d;
    try {
      d = await this.bridge.request(Request.HISTORY_DIFF, { key, from, to });
    } catch {
      return;
    }
    if (seq !== this.#seq && this.pins.length !== 2) return;
    renderDiff(this.diffEl(), d, {
      from: d.from, to: d.to, boundaries: d.boundaries,
      onPick: (path) => {
        if (this.selection.source()?.nodes.has(path)) this.treeView.reveal(path);
      },
    });
    this.lastDiff = {
      fromStep: from, toStep: to, from: d.from.version, to: d.to.version, boundaries: d.boundaries.length,
      added: d.added.map((v) => v.path), removed: d.removed.map((v) => v.path), changed: d.changed.map((c) => c.path),
    };
  }

  diffEl() {
    return this.list.diffEl;
  }

  pin(step) {
    const i = this.pins.indexOf(step);
    if (i >= 0) this.pins.splice(i, 1);
    else this.pins = [...this.pins, step].slice(-2);
    this.render();
    if (this.pins.length === 2 || i >= 0) this.#diff();
  }

  /** Pins two steps by index (tests, and a "diff these" from elsewhere). */
  pinIndexes(a, b) {
    const steps = this.#steps();
    this.pins = [steps[a]?.step, steps[b]?.step].filter((x) => x !== undefined);
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
    if (this.shown === null || this.#indexOf(this.shown) >= steps.length - 1) this.selectIndex(0);
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
    const i = this.shown === null ? steps.length - 1 : this.#indexOf(this.shown);
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

  // ---------------------------------------------------------------------------- settings

  async persist(on) {
    const key = this.selection.key;
    try {
      const r = await this.bridge.request(Request.HISTORY_PERSIST, { key, on });
      this.store.setHistoryInfo(key, r.info);
    } catch (e) {
      this.toast.show(`Persist: ${e.message}`);
    }
  }

  async exportRecording() {
    const key = this.selection.key;
    const r = await this.bridge.request(Request.HISTORY_EXPORT, { key });
    this.lastExport = r.text;
    const p = this.selection.provider();
    download(r.text, fileName('slop', p?.provider?.id ?? 'recording', 'recording'));
    this.toast.show(`Saved a recording of ${r.steps} steps`);
  }

  /** A recording file, checked by the worker, played back read-only under its own key. */
  async openRecording(text, name) {
    try {
      const r = await this.bridge.request(Request.OPEN_RECORDING, { text, name });
      this.selection.recordings.set(r.key, { name: r.name, provider: r.info?.provider ?? null, tree: null, step: null });
      this.store.setHistory(r.key, r);
      this.onRecording(r.key);
      if (this.els.strip.hidden) toggleStrip(this.els.button, this.els.strip, true);
      this.showTab();
      this.shown = null;
      this.selectIndex(0);
      return r.key;
    } catch (e) {
      this.error = `${name}: ${e.message}`;
      this.toast.show(`Not opened: ${this.error}`);
      return null;
    }
  }

  closeRecording(key) {
    this.bridge.request(Request.CLOSE_RECORDING, { key }).catch(() => {});
    this.selection.recordings.delete(key);
    this.store.histories.delete(key);
  }

  render() {
    const { els, selection } = this;
    els.button.setAttribute('aria-pressed', String(!els.strip.hidden));
    if (els.strip.hidden && els.list.hidden) return; // neither the strip nor the History tab is shown
    const h = this.history();
    const note = this.#note();
    const steps = note ? [] : h?.steps ?? [];
    const recording = selection.isRecording();
    const index = this.shown === null ? (recording ? null : null) : this.#indexOf(this.shown);
    this.strip.show({ steps, index: index === -1 ? null : index, info: note ? null : h?.info ?? null, playing: this.playing, recording, note });
    this.list.show({ steps, stamp: note ? `note:${note}` : h?.stamp ?? 0, selected: this.shown ?? steps.at(-1)?.step ?? null, pins: this.pins, note });
  }
}
