// node-views.js: what the UI ports are sent of a mirror: node views (the core's node(): one node
// without children, plus child_ids and path), breadth-first on a snapshot and as deltas on a patch.
// Reads the core's mirror only; never looks inside frames or applies anything.

import { childPath, parentPath, isAtOrUnder } from '../shared/node-path.js';

/**
 * Node views breadth-first from rootPath, at most `budget` of them.
 * @returns {{nodes: object[], complete: boolean}}
 */
export function breadthFirstViews(consumer, sub, rootPath, budget) {
  const nodes = [];
  const queue = [rootPath];
  for (let i = 0; i < queue.length; i++) {
    if (nodes.length >= budget) return { nodes, complete: false };
    const path = queue[i];
    const view = consumer.node(sub, path);
    if (!view) continue;
    nodes.push(view);
    for (const id of view.child_ids ?? []) queue.push(childPath(view.path, id));
  }
  return { nodes, complete: true };
}

/** Views of the given paths that exist in the mirror, and the paths that do not. */
export function viewsOf(consumer, sub, paths) {
  const nodes = [];
  const missing = [];
  for (const p of paths) {
    const v = typeof p === 'string' ? consumer.node(sub, p) : null;
    if (v) nodes.push(v);
    else missing.push(p);
  }
  return { nodes, missing };
}

function dropUnder(known, path) {
  for (const k of known) if (isAtOrUnder(k, path)) known.delete(k);
}

/**
 * The delta for one core `patch` event, for a port that has been sent the paths in `known`
 * (updated in place). Removed paths the port knows (or has descendants of) are listed; changed
 * nodes it knows get fresh views; added nodes get a view when their parent is known.
 * partial: some added nodes under a known parent were left out (more than maxAdded): the port
 * no longer holds every view of the mirror and should fetch the rest.
 * @returns {{nodes: object[], removed: string[], partial: boolean}}
 */
export function patchDelta(consumer, sub, patch, known, maxAdded = 500) {
  const removed = [];
  for (const p of patch.removed ?? []) {
    let hit = known.has(p);
    if (!hit) for (const k of known) if (isAtOrUnder(k, p)) { hit = true; break; }
    if (hit) {
      removed.push(p);
      dropUnder(known, p);
    }
  }
  const nodes = [];
  const sent = new Set();
  const send = (p) => {
    if (sent.has(p)) return;
    const v = consumer.node(sub, p);
    if (v) {
      nodes.push(v);
      known.add(p);
      sent.add(p);
    } else if (known.has(p)) {
      removed.push(p);
      dropUnder(known, p);
    }
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
  return { nodes, removed, partial };
}
