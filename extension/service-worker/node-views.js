// node-views.js: what the UI ports are sent of a mirror: node views (the core's node(): one node
// without children, plus child_ids and path), breadth-first on a snapshot and as deltas on a patch.
// Reads the core's mirror and its patch events only; never looks inside frames or applies anything.
// A delta costs what the patch touched, whatever the number of siblings: structural changes go
// to the panel as the core's child insertions and removals, never as a parent's whole child list.

import { childPath, parentPath, isAtOrUnder } from '../shared/node-path.js';
import { ODD_NUMBER } from '../../js-glue/exact-json.js';

/** @typedef {import('../../js-glue/slop-core.js').SlopConsumerT} SlopConsumer */
/** @typedef {import('../shared/messages.js').NodeView} NodeView */

/**
 * The core's view of a node, with its text beside it (`exact`) when it may hold a number that
 * JavaScript would write otherwise (a 64-bit integer, -0, 1.50): a port would carry the parsed
 * number, and the panel shows and copies numbers as the provider wrote them.
 * @param {SlopConsumer} consumer @param {string} sub @param {string} path @returns {NodeView|null}
 */
export function nodeView(consumer, sub, path) {
  const text = consumer.nodeText(sub, path);
  if (text === null) return null;
  const view = JSON.parse(text);
  if (ODD_NUMBER.test(text)) view.exact = text;
  return view;
}

/**
 * Node views breadth-first from rootPath, at most `budget` of them.
 * @param {SlopConsumer} consumer @param {string} sub @param {string} rootPath @param {number} budget
 * @returns {{nodes: NodeView[], complete: boolean}}
 */
export function breadthFirstViews(consumer, sub, rootPath, budget) {
  /** @type {NodeView[]} */
  const nodes = [];
  const queue = [rootPath];
  for (let i = 0; i < queue.length; i++) {
    if (nodes.length >= budget) return { nodes, complete: false };
    const path = queue[i];
    const view = nodeView(consumer, sub, path);
    if (!view) continue;
    nodes.push(view);
    for (const id of view.child_ids ?? []) queue.push(childPath(view.path, id));
  }
  return { nodes, complete: true };
}

/**
 * Views of the given paths that exist in the mirror, and the paths that do not.
 * @param {SlopConsumer} consumer @param {string} sub @param {unknown[]} paths  from a UI (checked here)
 * @returns {{nodes: NodeView[], missing: unknown[]}}
 */
export function viewsOf(consumer, sub, paths) {
  const nodes = [];
  const missing = [];
  for (const p of paths) {
    const v = typeof p === 'string' ? nodeView(consumer, sub, p) : null;
    if (v) nodes.push(v);
    else missing.push(p);
  }
  return { nodes, missing };
}

/**
 * The paths a port holds views of, as a tree (a path's known children), so that dropping a
 * removed subtree costs the size of that subtree, not of everything the port knows.
 */
export class KnownPaths {
  /** path → Set of its known children's paths (created on first child) */
  #kids = new Map();
  /** known paths whose parent was not known when they came: scanned on a drop (rarely any) */
  #orphans = new Set();

  /** @param {Iterable<string>} [paths] parents before children, as breadth-first gives them */
  constructor(paths = []) {
    for (const p of paths) this.add(p);
  }
  get size() { return this.#kids.size; }
  /** @param {string} path */
  has(path) { return this.#kids.has(path); }
  /** @param {string} path */
  add(path) {
    if (this.#kids.has(path)) return;
    this.#kids.set(path, null);
    const parent = parentPath(path);
    if (parent !== null && this.#kids.has(parent)) {
      const set = this.#kids.get(parent) ?? new Set();
      set.add(path);
      this.#kids.set(parent, set);
    } else this.#orphans.add(path);
  }
  /** Forgets path and every known path under it. @param {string} path @returns {boolean} whether any was known */
  drop(path) {
    let hit = false;
    if (this.#kids.has(path)) {
      hit = true;
      const parent = parentPath(path);
      if (parent !== null) this.#kids.get(parent)?.delete(path);
      const stack = [path];
      while (stack.length) {
        const p = stack.pop();
        const set = this.#kids.get(p);
        if (set) for (const k of set) stack.push(k);
        this.#kids.delete(p);
        this.#orphans.delete(p);
      }
    }
    for (const o of this.#orphans) if (isAtOrUnder(o, path)) hit = this.drop(o) || hit;
    return hit;
  }
}

/**
 * The delta for one core `patch` event, for a port that has been sent the paths in `known`
 * (a KnownPaths, updated in place):
 * - removed: removed paths the port knows (or has descendants of);
 * - views: fresh views of the changed nodes it knows, and of added nodes under a known parent,
 *   as the JSON text of an array: the core's own text, neither parsed nor re-serialised here;
 * - children: the core's child insertions and removals under parents the port knows, in op
 *   order; the port applies them to the child lists it holds (never re-sent whole);
 * - partial: some added nodes under a known parent were left out (more than maxAdded): the
 *   port no longer holds every view of the mirror and should fetch the rest.
 * `read`: path → view text (null: not in the mirror) read for this patch so far, shared by the
 * ports watching it, so each node is read from the core once per patch however many panels watch.
 * @param {SlopConsumer} consumer @param {string} sub
 * @param {{event: string, removed?: string[], changed?: string[], added?: string[], children?: import('../shared/messages.js').ChildChange[]}} patch
 *   the core's patch event
 * @param {KnownPaths} known @param {Map<string, string|null>} [read] @param {number} [maxAdded]
 * @returns {{views: string, removed: string[], children: import('../shared/messages.js').ChildChange[], partial: boolean}}
 */
export function patchDelta(consumer, sub, patch, known, read = new Map(), maxAdded = 500) {
  const removed = [];
  for (const p of patch.removed ?? []) if (known.drop(p)) removed.push(p);
  const children = (patch.children ?? []).filter((c) => known.has(c.parent));
  /** @type {string[]} */
  const nodes = [];
  const sent = new Set();
  const send = (/** @type {string} */ p) => {
    if (sent.has(p)) return;
    let v = read.get(p);
    if (v === undefined) read.set(p, v = consumer.nodeText(sub, p));
    if (v) {
      nodes.push(v);
      known.add(p);
      sent.add(p);
    } else if (known.drop(p)) removed.push(p);
  };
  for (const p of patch.changed ?? []) if (known.has(p)) send(p);
  let added = 0;
  let partial = false;
  for (const p of patch.added ?? []) {
    const parent = parentPath(p);
    if (parent !== null && !known.has(parent)) continue;
    if (added++ >= maxAdded) { // the parent's child_ids show the rest; fetched on demand
      partial = true;
      break;
    }
    send(p);
  }
  return { views: `[${nodes.join(',')}]`, removed, children, partial };
}
