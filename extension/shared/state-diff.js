// state-diff.js: what changed between two states of a tree, as node views (the core's node()
// output: a node without its children, plus child_ids and path). The service worker computes the
// history's diffs with it (timeline.js); the panel renders them (views/history-view.js).

import { parseVerbatim } from '../../js-glue/exact-json.js';
import { restartText } from '../../js-glue/event-text.js';

/** @typedef {import('./messages.js').NodeView} NodeView */
/**
 * @typedef {{key: string, before: any, after: any, beforeText?: string, afterText?: string}} FieldChange
 *   undefined: absent. beforeText/afterText: the values as the provider wrote them, when a view
 *   holds a number JavaScript would write otherwise (the timeline adds them).
 */
/**
 * @typedef {object} ViewDiff
 * @property {{before: string, after: string}|null} type
 * @property {FieldChange[]} properties
 * @property {FieldChange[]} meta
 * @property {{action: string, change: 'added'|'removed'|'changed', before?: object, after?: object}[]} affordances
 * @property {{before: object|undefined, after: object|undefined}|null} contentRef
 * @property {{added: string[], removed: string[], reordered: boolean}|null} children
 */

/** @param {any} a @param {any} b @returns {boolean} */
function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}

/**
 * Key-by-key differences of two plain objects: [{key, before, after}] (undefined = absent).
 * @param {Record<string, any>} [a] @param {Record<string, any>} [b]
 */
function objectDiff(a = {}, b = {}) {
  /** @type {FieldChange[]} */
  const out = [];
  const keys = new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})]);
  for (const k of keys) {
    const x = a?.[k];
    const y = b?.[k];
    if (!deepEqual(x, y)) out.push({ key: k, before: x, after: y });
  }
  return out;
}

/** A view's affordances, each with its action name. @param {NodeView} v */
const affordancesOf = (v) => /** @type {{action: string}[]} */ (v.affordances ?? []);

/** Differences of two views of the same path, by field. @param {NodeView} before @param {NodeView} after */
export function viewDiff(before, after) {
  /** @type {ViewDiff} */
  const d = {
    type: before.type !== after.type ? { before: before.type, after: after.type } : null,
    properties: objectDiff(before.properties, after.properties),
    meta: objectDiff(before.meta, after.meta),
    affordances: [],
    contentRef: deepEqual(before.content_ref, after.content_ref) ? null : { before: before.content_ref, after: after.content_ref },
    children: null,
  };
  const affA = new Map(affordancesOf(before).map((a) => [a.action, a]));
  const affB = new Map(affordancesOf(after).map((a) => [a.action, a]));
  for (const [action, a] of affA) {
    if (!affB.has(action)) d.affordances.push({ action, change: 'removed', before: a });
    else if (!deepEqual(a, affB.get(action))) d.affordances.push({ action, change: 'changed', before: a, after: affB.get(action) });
  }
  for (const [action, b] of affB) if (!affA.has(action)) d.affordances.push({ action, change: 'added', after: b });
  const ca = before.child_ids ?? [];
  const cb = after.child_ids ?? [];
  if (!deepEqual(ca, cb)) {
    const sa = new Set(ca);
    const sb = new Set(cb);
    const added = cb.filter((x) => !sa.has(x));
    const removed = ca.filter((x) => !sb.has(x));
    d.children = { added, removed, reordered: added.length === 0 && removed.length === 0 };
  }
  return d;
}

/**
 * "provider restarted: version 1 after 20101", "provider changed: Old (old) → New (new), version 7
 * after 2", "page loaded again (history kept)", "the extension started again (history kept by Persist)".
 * @param {{version?: number, boundary?: {kind: string, previousVersion?: number|null, previous?: any, provider?: any}}|null} entry
 *   a history entry
 * @returns {string}
 */
export function boundaryText(entry) {
  const b = entry?.boundary;
  if (!b) return '';
  const who = (/** @type {{name?: string, id?: string}|null} */ p) => (p ? `${p.name ?? '?'} (${p.id ?? '?'})` : '?');
  const after = b.previousVersion !== null && b.previousVersion !== undefined ? ` after ${b.previousVersion}` : '';
  if (b.kind === 'reload') return 'page loaded again (history kept)';
  if (b.kind === 'worker') return 'the extension started again (history kept by Persist)';
  if (b.kind === 'provider') return `provider changed: ${who(b.previous)} → ${who(b.provider)}, version ${entry.version}${after}`;
  return restartText({ version: entry.version, previousVersion: b.previousVersion ?? null });
}

/** @param {ViewDiff} d */
function diffIsEmpty(d) {
  return !d.type && d.properties.length === 0 && d.meta.length === 0 && d.affordances.length === 0 && !d.contentRef && !d.children;
}

/**
 * The diff of two views of which one came with its text (node-views.js `exact`): decided on the
 * provider's digits, so that a 64-bit id that differs in its last digit (the same double) is a
 * change; the values reported are the views' own, the texts are added by the timeline.
 * @param {NodeView & {exact?: string}} va @param {NodeView & {exact?: string}} vb
 */
function exactDiff(va, vb) {
  const d = viewDiff(va.exact ? parseVerbatim(va.exact) : va, vb.exact ? parseVerbatim(vb.exact) : vb);
  for (const field of /** @type {const} */ (['properties', 'meta'])) {
    for (const fc of d[field]) {
      fc.before = /** @type {Record<string, any>|undefined} */ (va[field])?.[fc.key];
      fc.after = /** @type {Record<string, any>|undefined} */ (vb[field])?.[fc.key];
    }
  }
  const affA = new Map(affordancesOf(va).map((a) => [a.action, a]));
  const affB = new Map(affordancesOf(vb).map((a) => [a.action, a]));
  for (const a of d.affordances) {
    if (a.before) a.before = affA.get(a.action);
    if (a.after) a.after = affB.get(a.action);
  }
  if (d.contentRef) d.contentRef = { before: va.content_ref, after: vb.content_ref };
  return d;
}

/**
 * What changed from state a to state b (two Maps path → view).
 * @param {Map<string, NodeView>} a @param {Map<string, NodeView>} b
 * @returns {{added: NodeView[], removed: NodeView[], changed: {path: string, before: NodeView, after: NodeView, diff: ViewDiff}[]}}
 *   sorted by path
 */
export function diffStates(a, b) {
  /** @type {NodeView[]} */
  const added = [];
  /** @type {NodeView[]} */
  const removed = [];
  /** @type {{path: string, before: NodeView, after: NodeView, diff: ViewDiff}[]} */
  const changed = [];
  for (const [path, va] of a) {
    const vb = b.get(path);
    if (vb === undefined) removed.push(va);
    else if (vb !== va) {
      const diff = va.exact || vb.exact ? exactDiff(va, vb) : viewDiff(va, vb);
      if (!diffIsEmpty(diff)) changed.push({ path, before: va, after: vb, diff });
    }
  }
  for (const [path, vb] of b) if (!a.has(path)) added.push(vb);
  const byPath = (/** @type {{path: string}} */ x, /** @type {{path: string}} */ y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0);
  added.sort(byPath);
  removed.sort(byPath);
  changed.sort(byPath);
  return { added, removed, changed };
}
