// history.js: the versions a tree went through, as the panel saw them. UI state over node views
// (what the core's node() returned), never SLOP patches: each sw/tree-delta is recorded as the views
// it replaced (before) and brought (after), each sw/tree-reset as the whole set of views it
// replaced. An earlier state is rebuilt by undoing entries from the live views backwards.
//
// Bounded: at most MAX_ENTRIES versions, and at most MAX_VIEWS node views held only by the
// history (the oldest entries are dropped first).
//
// Views loaded on demand (ui/get-nodes, the background fill) are not versions: they are taken to
// have been there since the last reset. A node that changed before the panel first loaded it
// therefore shows its loaded view at earlier versions too; the panel loads the whole mirror right
// after every reset, so that window is short.
//
// Versions are the provider's and need not increase: a provider that restarted counts from 1
// again, and a different app may answer at the same address. Entries are therefore identified by
// `step`, a running number of this history, never by version; a reset that crossed such a
// boundary carries it (`boundary`), and the views show it as a separator.

export const MAX_ENTRIES = 500;
export const MAX_VIEWS = 50_000;

/**
 * @typedef {object} Boundary   what a reset crossed
 * @property {'restart'|'provider'} kind   the provider restarted (versions start again), or a
 *                                         different provider answers at the same address
 * @property {number|null} previousVersion the version before the reset
 * @property {{id: string, name: string}|null} [previous]   kind "provider": the one before
 * @property {{id: string, name: string}|null} [provider]   kind "provider": the one now
 */
/**
 * @typedef {object} Entry
 * @property {number} step      running number of the entry in this history (unique, increasing)
 * @property {number} version   the provider version this reset or patch brought
 * @property {number} t         epoch ms when the panel applied it
 * @property {'reset'|'delta'} kind
 * @property {Map<string, {before: object|undefined, after: object|undefined}>} [changes]  delta
 * @property {Map<string, object>} [prev]   reset: every view before it
 * @property {Boundary|null} [boundary]      reset: a restart or a provider change it crossed
 * @property {number} size      views held by this entry
 */

export class History {
  /** @type {Entry[]} */
  entries = [];
  retained = 0;
  dropped = 0;
  steps = 0;

  /** @param {Boundary|null} [boundary] */
  recordReset(version, prevMap, boundary = null) {
    this.#push({ step: ++this.steps, version, t: Date.now(), kind: 'reset', prev: prevMap, size: prevMap.size, boundary });
  }

  /** @param {Map<string, {before, after}>} changes */
  recordDelta(version, changes) {
    this.#push({ step: ++this.steps, version, t: Date.now(), kind: 'delta', changes, size: changes.size });
  }

  #push(entry) {
    this.entries.push(entry);
    this.retained += entry.size;
    while (this.entries.length > MAX_ENTRIES || (this.retained > MAX_VIEWS && this.entries.length > 1)) {
      const old = this.entries.shift();
      this.retained -= old.size;
      this.dropped++;
    }
  }

  get length() {
    return this.entries.length;
  }

  /** The index of the entry with this step, or -1 (dropped, or never recorded). */
  indexOfStep(step) {
    const first = this.entries[0]?.step;
    if (first === undefined) return -1;
    const i = step - first; // steps are consecutive within the kept entries
    return this.entries[i]?.step === step ? i : this.entries.findIndex((e) => e.step === step);
  }

  /** Boundaries crossed strictly after entry a up to and including entry b (indices, a <= b). */
  boundariesBetween(a, b) {
    const out = [];
    for (let i = a + 1; i <= b; i++) if (this.entries[i]?.boundary) out.push(this.entries[i]);
    return out;
  }

  /**
   * The views right after entries[index], rebuilt from the live views. index = length - 1 is
   * the live state itself (a copy).
   * @param {number} index
   * @param {Map<string, object>} live
   * @returns {Map<string, object>}
   */
  materialize(index, live) {
    let map = new Map(live);
    for (let i = this.entries.length - 1; i > index; i--) {
      const e = this.entries[i];
      if (e.kind === 'reset') {
        map = new Map(e.prev);
      } else {
        for (const [path, { before }] of e.changes) {
          if (before === undefined) map.delete(path);
          else map.set(path, before);
        }
      }
    }
    return map;
  }
}

// The diff of two states lives in shared/state-diff.js (the service worker's history uses it too).
export { viewDiff, boundaryText, diffStates } from '../shared/state-diff.js';
