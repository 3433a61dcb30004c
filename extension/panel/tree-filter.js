// tree-filter.js: which node rows the tree shows under a filter (by node type, by "changed since
// step N", or both). A filter hides the rows that do not match but keeps every ancestor of a
// match, so a match is always shown where it lives. What changed since a step is the service
// worker's answer (its history diff, read by the core's replay): nothing here compares states.
// No DOM.

import { isAtOrUnder, parentPath } from '../shared/node-path.js';

/** @typedef {Map<string, import('../shared/messages.js').NodeView>} Views  path → node view */

/**
 * The node types in a tree's views, sorted, with how many nodes have each: [[type, count]].
 * @param {Views} nodes @returns {Array<[string, number]>}
 */
export function typeCounts(nodes) {
  const counts = new Map();
  for (const v of nodes.values()) {
    if (typeof v?.type === 'string') counts.set(v.type, (counts.get(v.type) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * The paths that match every criterion given: `type` (a node type, or '' for any) and `changed`
 * (a Set of paths, or null for any). Only paths at or under `root` count.
 * @param {Views} nodes @param {string} root @param {{type?: string, changed?: Set<string>|null}} [criteria]
 * @returns {Set<string>}
 */
export function matchingPaths(nodes, root, { type = '', changed = null } = {}) {
  const out = new Set();
  if (changed) {
    for (const p of changed) {
      if (!isAtOrUnder(p, root)) continue;
      // A changed node whose view the panel does not hold yet still shows (as "loading…")
      // unless a type is asked for, which only a view can answer.
      if (type && nodes.get(p)?.type !== type) continue;
      out.add(p);
    }
    return out;
  }
  if (!type) return out;
  for (const [p, v] of nodes) if (v?.type === type && isAtOrUnder(p, root)) out.add(p);
  return out;
}

/** The matches and all their ancestors up to `root` (which is always shown). @param {Iterable<string>} matches @param {string} root */
export function withAncestors(matches, root) {
  const shown = new Set([root]);
  for (const m of matches) {
    let p = m;
    while (p !== null && !shown.has(p)) {
      shown.add(p);
      if (p === root) break;
      p = parentPath(p);
    }
  }
  return shown;
}

/**
 * The ancestors of the matches (not the matches themselves): the rows to open so every match shows.
 * @param {Iterable<string>} matches @param {string} root
 */
export function ancestorsOf(matches, root) {
  const out = new Set();
  for (const m of matches) {
    let p = m === root ? null : parentPath(m);
    while (p !== null && !out.has(p)) {
      out.add(p);
      if (p === root) break;
      p = parentPath(p);
    }
  }
  return out;
}
