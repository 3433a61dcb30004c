// selection.js: what the panel shows. A provider of the tab (or an imported file, or a recording),
// which of its subscriptions (one made here, else the extension's own), and the live state or a
// step from the history ("scrub", its state fetched from the service worker by the history pane).
// It also keeps the service worker streaming that provider to the panel (watch). No DOM: the
// callers render after a change.

import { Status } from '../shared/messages.js';

/**
 * @typedef {object} Scrub   a step of the history shown instead of the live state
 * @property {string} key
 * @property {string} sub
 * @property {import('../service-worker/timeline.js').Step} step
 * @property {number} version
 * @property {import('./store.js').TreeSource} source   the step's state
 */
/** @typedef {import('./store.js').Tree} Tree */

export class Selection {
  /** The provider (or import) key shown, or null. @type {string|null} */
  key = null;
  /** @type {Scrub|null} */
  scrub = null;
  /**
   * The step that was shown until the history dropped it at its bound ({step, version, limits}),
   * said in the banner until the next choice of step or live; null: nothing to say.
   */
  /** @type {{step: number, version: number|null, limits: object|null}|null} */
  scrubDropped = null;
  /** @type {string|null} */
  #watched = null;
  /** provider key → {sub, options}: a subscription made in this panel */
  #custom = new Map();

  /**
   * @param {import('./store.js').Store} store
   * @param {{watch: (key: string, o: {log?: boolean}) => Promise<unknown>, unwatch: (key: string) => Promise<unknown>}} bridge
   */
  constructor(store, bridge) {
    this.store = store;
    this.bridge = bridge;
  }

  /** @returns {import('../shared/messages.js').ProviderInfo|null} */
  provider() {
    return this.key ? this.store.provider(this.key) : null;
  }

  /** @param {string|null} [key] */
  isImport(key = this.key) {
    return !!key && this.store.imports.has(key);
  }

  /** A recording opened here (history-pane.js): its states are the history's, read-only. @param {string|null} [key] */
  isRecording(key = this.key) {
    return !!key && this.recordings.has(key);
  }

  /**
   * key → {name, tree}: the recordings opened in this panel and the state each shows.
   * @type {Map<string, {name: string, provider: {id: string, name: string}|null, tree: import('./store.js').TreeSource|null, step: number|null}>}
   */
  recordings = new Map();

  /** The shown import's ui/inspect-tree reply (without nodes), or null. */
  importInfo() {
    return this.isImport() ? this.store.imports.get(this.key) : null;
  }

  // ------------------------------------------------------------------------- subscription

  /**
   * The subscription made here for a provider: {sub, options}, or null.
   * @param {string|null} [key] @returns {{sub: string, options: object}|null}
   */
  custom(key = this.key) {
    return this.#custom.get(key) ?? null;
  }

  /** Every subscription made here: [key, {sub, options}]. */
  customs() {
    return [...this.#custom];
  }

  /** @param {string} key @param {string} sub @param {object} options */
  setCustom(key, sub, options) {
    this.#custom.set(key, { sub, options });
  }

  /** @param {string} key */
  dropCustom(key) {
    this.#custom.delete(key);
  }

  /** The subscription the tree shows: the one made here, else the provider's first. @returns {string|null} */
  sub() {
    if (this.isImport()) return this.store.imports.get(this.key).sub;
    if (this.isRecording()) return this.recordings.get(this.key).tree?.sub ?? null;
    const p = this.provider();
    const custom = this.custom();
    if (custom && p?.subscriptions.some((s) => s.sub === custom.sub)) return custom.sub;
    return p?.primarySub ?? null;
  }

  /**
   * The live tree shown (or the last one seen while the provider reconnects); a recording's state.
   * @returns {Tree|import('./store.js').TreeSource|null}
   */
  tree() {
    if (!this.key) return null;
    if (this.isRecording()) return this.recordings.get(this.key).tree;
    const subs = this.store.trees.get(this.key);
    if (!subs) return null;
    const sub = this.sub();
    const t = sub ? subs.get(sub) : null;
    if (t) return t;
    const custom = this.custom();
    if (custom && subs.get(custom.sub)) return subs.get(custom.sub);
    const p = this.provider();
    if (p && !p.primarySub) return [...subs.values()].at(-1) ?? null; // disconnected: last known
    return null;
  }

  /** What the tree view shows: the live tree, or a version from the history. @returns {import('./store.js').TreeSource|null} */
  source() {
    const tree = this.tree();
    if (!tree) return null;
    if (this.scrub && this.scrub.key === tree.key && this.scrub.sub === tree.sub) return this.scrub.source;
    return tree;
  }

  // ----------------------------------------------------------------------------- provider

  /** The key to show: the current one while it exists, else a connected provider, else the first. @returns {string|null} */
  choice() {
    if (this.key && (this.store.provider(this.key) || this.isImport(this.key) || this.isRecording(this.key))) return this.key;
    const list = this.store.providers;
    return (list.find((p) => p.status === Status.CONNECTED) ?? list[0] ?? null)?.key ?? null;
  }

  /** Shows another provider (or import, or nothing). Returns false when it was shown already. @param {string|null} key */
  select(key) {
    if (key === this.key) return false;
    this.key = key;
    this.scrub = null;
    this.scrubDropped = null;
    this.syncWatch();
    return true;
  }

  /** Forgets the shown key without touching the watch (the import it named was closed). */
  forget() {
    this.key = null;
    this.scrub = null;
  }

  /**
   * Asks the worker to stream the shown provider (and to stop streaming the one before).
   * force: a new port (first time, or after a service worker restart) knows no watch yet.
   */
  syncWatch(force = false) {
    const key = this.isImport(this.key) || this.isRecording(this.key) ? null : this.key;
    if (!force && this.#watched === key) return;
    if (this.#watched && this.#watched !== key) this.bridge.unwatch(this.#watched).catch(() => {});
    this.#watched = key;
    if (key) this.bridge.watch(key, { log: true }).catch(() => {});
  }

  // ------------------------------------------------------------------------------ history

  /** Shows a step's state from the history (history-pane.js fetched it), or live again (null). @param {Scrub|null} scrub */
  setScrub(scrub) {
    this.scrub = scrub;
  }

  /** A scrub of another provider than the one shown is over. Returns true when it ended. */
  trackScrub() {
    if (!this.scrub || this.scrub.key === this.key) return false;
    this.scrub = null;
    return true;
  }
}
