// history-steps.js: what the History pane (history-pane.js) keeps around its list of steps, each
// asked of the service worker: the filter (a path prefix the worker matches on every path each
// step touched, and the kinds shown), the holds (the steps viewed and pinned, which the worker
// keeps past its bound while held), the gaps of dropped steps before a kept one, the history's
// switches (recording paused, Persist) and bounds (the same settings as Options), a step's
// state applied to the views the panel holds (dropSubtrees), and recordings exported and opened.

import { Request } from '../../shared/messages.js';
import { childPath } from '../../shared/node-path.js';
import { setHistorySteps, setHistoryMb } from '../../shared/settings-store.js';
import { download, fileName } from '../export.js';
import { toggleStrip } from './toolbar.js';

/** @typedef {import('../bridge.js').Bridge} Bridge */
/** @typedef {import('../../service-worker/timeline.js').Step} Step */

/** While a path filter is on, the worker is asked which steps match at most this often. */
const FILTER_MS = 250;

export class StepFilter {
  /** A path prefix ('' none) and the kinds shown (null: all). */
  path = '';
  /** @type {Set<string>|null} */
  kinds = null;
  /** The steps the worker said match the path (null: not answered yet). @type {Set<number>|null} */
  matches = null;
  /** Changes whenever what the filter shows may have changed (the list's stamp). */
  version = 0;
  #busy = false;
  #again = false;
  /** @type {{all: Step[], version: number, steps: Step[]}|null} */
  #cache = null;

  /**
   * @param {Bridge} bridge
   * @param {() => string|null} key   the history shown (null: none, or an imported snapshot)
   * @param {() => void} onChange     a new answer came: render again
   */
  constructor(bridge, key, onChange) {
    this.bridge = bridge;
    this.key = key;
    this.onChange = onChange;
  }

  active() {
    return !!this.path || !!this.kinds;
  }

  /** @param {{path: string, kinds: string[]|null}} f */
  set({ path, kinds }) {
    const p = path.trim();
    this.path = p && !p.startsWith('/') ? `/${p}` : p;
    this.kinds = kinds ? new Set(kinds) : null;
    this.reset();
  }

  /** Another history is shown (or the filter changed): its matches are asked for anew. */
  reset() {
    this.matches = null;
    this.version++;
    this.refresh();
  }

  /** The steps of `all` the filter shows (the same array while nothing changed). @param {Step[]} all */
  apply(all) {
    if (!this.active()) return all;
    if (this.#cache?.all === all && this.#cache.version === this.version) return this.#cache.steps;
    const { path, kinds, matches } = this;
    const steps = all.filter((s) => (!kinds || kinds.has(s.kind)) && (!path || !!matches?.has(s.step)));
    this.#cache = { all, version: this.version, steps };
    return steps;
  }

  /** What the empty list says when the filter hides every step. */
  emptyText() {
    return this.path && !this.matches ? 'Filtering…' : 'No step matches the filter.';
  }

  /**
   * Asks the worker which steps match the path (exact: it has every path each step touched): one
   * request at a time, at most every FILTER_MS while steps come.
   */
  refresh() {
    const key = this.key();
    if (!this.path || !key) return;
    if (this.#busy) {
      this.#again = true;
      return;
    }
    this.#busy = true;
    const version = this.version;
    this.bridge.request(Request.HISTORY_FILTER, { key, path: this.path }).then((r) => {
      if (version !== this.version || key !== this.key()) return;
      this.matches = new Set(r.steps);
      this.version++;
      this.onChange();
    }).catch(() => { /* no history yet: the next steps ask again */ }).finally(() => {
      setTimeout(() => {
        this.#busy = false;
        if (this.#again) {
          this.#again = false;
          this.refresh();
        }
      }, FILTER_MS);
    });
  }
}

/**
 * Tells the worker which steps a panel holds (Request.HISTORY_HOLD): the ones the worker keeps past
 * its bound. Sent only when they change; a history no longer shown has its holds released.
 */
export class StepHolds {
  #sent = '';
  /** @type {string|null} */
  #key = null;

  /** @param {Bridge} bridge */
  constructor(bridge) {
    this.bridge = bridge;
  }

  /** @param {string|null} key  the history shown (null: none) @param {(number|null|undefined)[]} wanted */
  send(key, wanted) {
    const steps = key ? [...new Set(wanted.filter((x) => typeof x === 'number'))].sort((a, b) => a - b) : [];
    const sent = `${key} ${steps.join()}`;
    if (sent === this.#sent) return;
    this.#sent = sent;
    const hold = (k, s) => this.bridge.request(Request.HISTORY_HOLD, { key: k, steps: s }).catch(() => { /* gone: nothing held */ });
    if (this.#key && this.#key !== key) hold(this.#key, []);
    if (key && (steps.length || this.#key === key)) hold(key, steps);
    this.#key = steps.length ? key : null;
  }
}

/**
 * Where ↑/↓ start from step `from` in the steps shown: its index, or for a step the filter hides,
 * so that ↓ (d > 0) goes to the first shown after it and ↑ to the last before it.
 * @param {Step[]} steps @param {number} from @param {number} d
 */
export function shownIndex(steps, from, d) {
  const i = steps.findIndex((s) => s.step >= from);
  if (i >= 0 && steps[i].step === from) return i;
  return (i < 0 ? steps.length : i) - (d > 0 ? 1 : 0);
}

/**
 * The step a step's diff is against (null: none kept): the one before it in the whole list; for
 * a step kept past the bound, the step before it that was kept with it; after a gap of dropped
 * steps, none.
 * @param {Step[]} all @param {number} i
 */
export function stepBefore(all, i) {
  const st = all[i];
  if (!st) return null;
  if (st.kept) return st.before ?? null;
  return i >= 1 && !(all[i - 1].kept && all[i - 1].step !== st.step - 1) ? all[i - 1].step : null;
}

/** @type {WeakMap<Step[], Map<number, number>>} */
const gapsOf = new WeakMap();

/**
 * The steps dropped at the bound before each listed step that follows a gap: step number → how
 * many. Only kept steps (islands, at the front of the list) make gaps: the steps after them run on.
 * @param {Step[]} all
 */
export function droppedGaps(all) {
  let gaps = gapsOf.get(all);
  if (gaps) return gaps;
  gaps = new Map();
  if (all[0]?.kept) {
    for (let i = 1; i < all.length; i++) {
      const d = all[i].step - all[i - 1].step - 1;
      if (d > 0) gaps.set(all[i].step, d);
      if (!all[i].kept) break;
    }
  }
  gapsOf.set(all, gaps);
  return gaps;
}

/**
 * A switch of the shown history (Request.HISTORY_PAUSE: recording paused; HISTORY_PERSIST): the
 * worker answers with the history's new info; a refusal is said in a toast.
 * @param {import('./history-pane.js').HistoryPane} pane @param {typeof Request.HISTORY_PERSIST|typeof Request.HISTORY_PAUSE} type @param {boolean} on
 */
export async function setSetting(pane, type, on) {
  const key = pane.selection.key;
  if (!key || pane.selection.isRecording()) return;
  try {
    const r = await pane.bridge.request(type, { key, on });
    pane.store.setHistoryInfo(key, r.info);
  } catch (e) {
    const what = type === Request.HISTORY_PERSIST ? 'Persist' : on ? 'Pause' : 'Resume';
    pane.toast.show(`${what}: ${e.message}`);
  }
}

/** Export: the shown history as a recording file. @param {import('./history-pane.js').HistoryPane} pane */
export async function exportRecording(pane) {
  const r = await pane.bridge.request(Request.HISTORY_EXPORT, { key: pane.selection.key });
  pane.lastExport = r.text;
  download(r.text, fileName('slop', pane.selection.provider()?.provider?.id ?? 'recording', 'recording'));
  pane.toast.show(`Saved a recording of ${r.steps} steps`);
}

/**
 * A recording file, checked by the worker, played back read-only under its own key.
 * @param {import('./history-pane.js').HistoryPane} pane @param {string} text @param {string} name
 * @returns {Promise<string|null>} its key, or null (not opened: pane.error says why)
 */
export async function openRecording(pane, text, name) {
  const { els } = pane;
  try {
    const r = await pane.bridge.request(Request.OPEN_RECORDING, { text, name });
    pane.selection.recordings.set(r.key, { name: r.name, provider: r.info?.provider ?? null, tree: null, step: null });
    pane.store.setHistory(r.key, r);
    pane.onRecording(r.key);
    if (els.strip.hidden) toggleStrip(els.button, els.strip, true);
    pane.showTab();
    pane.shownStep = null;
    pane.selectIndex(0);
    return r.key;
  } catch (e) {
    pane.error = `${name}: ${e.message}`;
    pane.toast.show(`Not opened: ${pane.error}`);
    return null;
  }
}

/** A recording closed: the worker and the panel forget it. @param {import('./history-pane.js').HistoryPane} pane @param {string} key */
export function closeRecording(pane, key) {
  pane.bridge.request(Request.CLOSE_RECORDING, { key }).catch(() => {});
  pane.selection.recordings.delete(key);
  pane.store.histories.delete(key);
}

/**
 * Deletes each of `roots` and everything under it from a whole tree's views, by walking down the
 * views' child ids: the cost is the size of those subtrees, not a scan of the whole tree per root
 * (which cost a step click tens of ms on a 10,000-node tree).
 * @param {Map<string, import('../../shared/messages.js').NodeView>} nodes @param {string[]} roots
 */
export function dropSubtrees(nodes, roots) {
  const stack = [...roots];
  while (stack.length) {
    const p = stack.pop();
    const v = nodes.get(p);
    if (!v) continue;
    nodes.delete(p);
    for (const id of v.child_ids) stack.push(childPath(p, id));
  }
}

/** A bound chosen in the History tab: the same settings as Options (every provider's history). @param {{steps?: number, mb?: number}} k */
export async function keepBound(k) {
  if (k.steps !== undefined) await setHistorySteps(k.steps);
  if (k.mb !== undefined) await setHistoryMb(k.mb === 64 ? null : k.mb);
}
