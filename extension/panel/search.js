// search.js: finding nodes among the views the panel holds (the whole mirror once the background
// load is done, see mirror-fill.js), by id, type, label or property value. Plain text, case-insensitive;
// results in tree order (depth-first).

import { childPath } from '../shared/node-path.js';
import { nodeSummary } from './views/tree-rows.js';

export const SEARCH_FIELDS = Object.freeze({
  all: 'id, type, label, values',
  id: 'id',
  type: 'type',
  label: 'label',
  value: 'property values',
});

/** @param {unknown} v */
function valueText(v) {
  if (v === null || typeof v !== 'object') return String(v);
  return JSON.stringify(v);
}

/**
 * Does the view match `q` (lower case) in `field`?
 * @param {import('../shared/messages.js').NodeView} view @param {string} q @param {string} [field] one of SEARCH_FIELDS
 */
export function matchView(view, q, field = 'all') {
  const has = (/** @type {unknown} */ s) => typeof s === 'string' && s.toLowerCase().includes(q);
  if ((field === 'all' || field === 'id') && has(view.id)) return true;
  if ((field === 'all' || field === 'type') && has(view.type)) return true;
  if ((field === 'all' || field === 'label') && has(nodeSummary(view))) return true;
  if (field === 'all' || field === 'value') {
    for (const v of Object.values(view.properties ?? {})) if (has(valueText(v))) return true;
  }
  return false;
}

/**
 * The paths of matching views in depth-first order from the root.
 * @param {{path: string, nodes: Map<string, import('../shared/messages.js').NodeView>}|null} source
 * @param {string} text @param {string} [field] one of SEARCH_FIELDS @param {number} [limit]
 * @returns {string[]}
 */
export function searchTree(source, text, field = 'all', limit = 100000) {
  const q = text.trim().toLowerCase();
  if (!q || !source) return [];
  const out = [];
  const stack = [source.path];
  while (stack.length && out.length < limit) {
    const p = stack.pop();
    const v = source.nodes.get(p);
    if (!v) continue;
    if (matchView(v, q, field)) out.push(p);
    for (let i = v.child_ids.length - 1; i >= 0; i--) stack.push(childPath(p, v.child_ids[i]));
  }
  return out;
}

/**
 * The children the provider announced but the panel does not hold (windowed collections not
 * loaded to their end; the core's `more` of each view): a search that finds nothing may not have
 * seen them. collections: their paths in tree order.
 * @param {{path: string, nodes: Map<string, import('../shared/messages.js').NodeView>}|null} source
 * @returns {{count: number, collections: string[]}}
 */
export function unloadedChildren(source) {
  const out = { count: 0, collections: [] };
  if (!source) return out;
  const stack = [source.path];
  while (stack.length) {
    const p = stack.pop();
    const v = source.nodes.get(p);
    if (!v) continue;
    if (Number.isFinite(v.more) && v.more > 0) {
      out.count += v.more;
      out.collections.push(p);
    }
    for (let i = v.child_ids.length - 1; i >= 0; i--) stack.push(childPath(p, v.child_ids[i]));
  }
  return out;
}
