// cost-pane.js: the Cost tab: what the shown subscription's state costs an agent (tokens of the tree
// text and of the tool definitions, bytes, nodes) and its traffic, per subtree (issue 49). While
// the tab is shown it asks the worker for the core's profile (ui/profile) about once a second,
// never while an answer is awaited, and hands each answer to profile-worker.js, a module Web
// Worker that parses it and counts the tokens (the tokenizer never runs on this page's thread);
// what the worker posts back is drawn by views/cost-view.js. The views and their libraries
// (d3-hierarchy, uPlot) load when the tab is first shown, not with the panel.

import { Request, ToProfiler, FromProfiler, catalogued } from '../../shared/messages.js';
import { oncePerFrame } from '../panes.js';

/** @typedef {import('../panes.js').Pane} Pane */
/** @typedef {import('../panes.js').PaneContext} PaneContext */
/** @typedef {import('../views/cost-view.js').CostView} CostView */
/** @typedef {import('../profile-worker.js').WorkerState} WorkerState */

/** A sample this often while the tab is shown (after the last answer came). */
const SAMPLE_MS = 1000;

/** @implements {Pane} */
export class CostPane {
  /** The worker's last state (tests read it through slopPanel). @type {WorkerState|null} */
  state = null;
  /** Why there are no numbers now: 'gone' (the provider went away), 'none' (no provider), an error. @type {string|null} */
  why = null;
  isShown = false;
  /** @type {CostView|null} */
  view = null;
  /** @type {Worker|null} */
  #worker = null;
  /** @type {Promise<void>|null} */
  #loading = null;
  /** @type {ReturnType<typeof setTimeout>|0} */
  #timer = 0;
  #inFlight = false;
  /** The provider and subscription measured ("key sub"), and the resets asked of the worker. */
  #measured = '';
  #seq = 0;
  #since = 0;
  #needsTools = true;
  /** What the worker reports: the measure, the depth of the top subtrees, the time range. @type {{by: string, depth: number, range: [number, number]|null}} */
  viewOptions = { by: 'tokens', depth: 2, range: null };

  /** @param {HTMLElement} root @param {PaneContext} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    root.classList.add('cost-pane');
  }

  shown() {
    this.isShown = true;
    this.#load().then(() => {
      if (!this.isShown) return;
      this.#check();
      this.#render();
      this.#tick();
    });
  }

  hidden() {
    this.isShown = false;
    clearTimeout(this.#timer);
    this.#timer = 0;
  }

  /** @param {import('../panes.js').StoreChange|null} change */
  update(change) {
    if (!this.#worker) return;
    const key = this.ctx.selection.key;
    if (!change || change.providers || (key && change.resets.has(key))) {
      if (change && key && change.resets.has(key)) this.#restart('The subscription started over (a new snapshot): counting again.');
      else this.#check();
      if (this.isShown) this.#render();
    }
    if (this.isShown && this.ctx.treeView) this.view?.setSelected(this.ctx.treeView.selection()?.path ?? null);
  }

  dispose() {
    clearTimeout(this.#timer);
    this.#worker?.terminate();
    this.#worker = null;
    this.view?.dispose();
  }

  /** The views, their libraries and the worker, once. */
  #load() {
    this.#loading ??= (async () => {
      const { CostView } = await import('../views/cost-view.js');
      this.view = new CostView(this.root, {
        setOptions: (o) => this.#setOptions(o),
        selectNode: (path) => this.#selectNode(path),
      });
      this.#worker = new Worker(new URL('../profile-worker.js', import.meta.url), { type: 'module', name: 'slop-profile' });
      this.#worker.onmessage = (e) => this.#fromWorker(e.data);
      this.#worker.onerror = (e) => {
        this.why = `The counting worker failed: ${e.message || 'it did not start'}`;
        this.#render();
      };
      this.#post({ type: ToProfiler.VIEW, view: this.viewOptions });
    })().catch((e) => {
      this.#loading = null;
      this.root.textContent = `The Cost tab could not load: ${e.message}`;
      throw e;
    });
    return this.#loading;
  }

  /** What is measured: the shown provider's subscription; another one drops what was counted. */
  #check() {
    const { selection } = this.ctx;
    const p = selection.provider();
    // Connected and live: a mirror kept through a reconnect is not measured (its numbers would be stale).
    const live = p && !selection.isImport() && !selection.isRecording() && p.status === 'connected' && p.live && p.subscriptions?.length;
    const measured = live ? `${selection.key} ${selection.sub() ?? ''}` : '';
    if (measured === this.#measured) return;
    const had = this.#measured !== '' && this.state?.report;
    this.#measured = measured;
    this.#resetWorker();
    if (!measured) {
      this.why = !p ? 'none' : selection.isImport() || selection.isRecording() ? 'not-live'
        : had || this.why === 'gone' ? 'gone' : p.status === 'connected' ? 'no-state' : 'not-connected';
    }
    else this.why = null;
    if (measured && this.isShown) this.#tick();
  }

  /** Starts over with the same provider (a new snapshot), saying why. @param {string} note */
  #restart(note) {
    const had = !!this.state?.report;
    this.#resetWorker();
    if (had) this.view?.note(note);
  }

  #resetWorker() {
    this.#seq++;
    this.#since = 0;
    this.#needsTools = true;
    this.state = null;
    this.#post({ type: ToProfiler.RESET, seq: this.#seq });
  }

  /** Asks for a sample unless one is awaited; the next one SAMPLE_MS after this one's answer. */
  #tick() {
    clearTimeout(this.#timer);
    this.#timer = 0;
    if (!this.isShown || this.#inFlight || !this.#measured) return;
    const { selection, bridge } = this.ctx;
    const key = /** @type {string} */ (selection.key);
    const sub = selection.sub() ?? undefined;
    const seq = this.#seq;
    const since = this.#since;
    this.#inFlight = true;
    bridge.request(Request.PROFILE, { key, sub, since, withTools: this.#needsTools })
      .then((answer) => {
        if (seq !== this.#seq) return;
        this.#post({ type: ToProfiler.SAMPLE, seq, since, answer });
      })
      .catch((e) => {
        if (seq !== this.#seq) return;
        // The provider went away between two samples: what was counted is dropped, not shown as whole.
        this.#resetWorker();
        this.why = /not connected|no provider|gone|closed|not_connected|no_provider/i.test(e.message) ? 'gone' : e.message;
        this.#render();
      })
      .finally(() => {
        this.#inFlight = false;
        if (this.isShown && !this.#timer) this.#timer = setTimeout(() => this.#tick(), SAMPLE_MS);
      });
  }

  /** @param {{type: string, [k: string]: any}} msg */
  #post(msg) {
    if (catalogued(msg, ToProfiler)) this.#worker?.postMessage(msg);
  }

  /** @param {WorkerState} m */
  #fromWorker(m) {
    if (!catalogued(m, FromProfiler) || m.seq !== this.#seq) return;
    this.#since = m.since;
    this.#needsTools = m.needsTools;
    if (m.error === 'gone') {
      this.state = null;
      this.why = 'gone';
    } else {
      this.state = m;
      this.why = m.error;
      if (m.restarted) this.view?.note(`The numbers started over: ${m.restarted}.`);
    }
    if (this.isShown) this.#render();
  }

  /** @param {{by?: string, depth?: number, range?: [number, number]|null}} o */
  #setOptions(o) {
    this.viewOptions = { ...this.viewOptions, ...o };
    this.#post({ type: ToProfiler.VIEW, view: this.viewOptions });
    this.#render();
  }

  /** @param {string} path */
  #selectNode(path) {
    const { selection, treeView } = this.ctx;
    if (!selection.source()?.nodes.has(path)) return false;
    treeView.reveal(path);
    this.view?.setSelected(path);
    return true;
  }

  /** Draws the last state at the next frame (two states in one frame: drawn once). */
  #render = oncePerFrame(() => this.#draw());

  #draw() {
    if (!this.isShown) return;
    this.view?.render({
      state: this.state, why: this.why, options: this.viewOptions,
      provider: this.ctx.selection.provider()?.provider?.name ?? null,
      selected: this.ctx.treeView?.selection()?.path ?? null,
    });
  }
}
