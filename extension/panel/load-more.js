// load-more.js: windowed collections. A collection whose meta.total_children is above the children
// it lists has more to load; "load more" asks the provider for the next window with a query and
// keeps the answer as a read-only page under the collection (store.js: query pages), never part
// of the mirror: the core only invokes on mirrored nodes.
//
// How many more there are and which window to ask for next come from the core: a node view of a
// windowed collection carries `more` and `next_window`, and so does the answer to a query for a
// page (slop_consumer_node, the "query" event). Nothing here counts children against
// meta.total_children or meta.window; those are only shown.

import { Request } from '../shared/messages.js';
import { childPath } from '../shared/node-path.js';
import { CoreEventName } from '../../js-glue/core-contract.js';

/** At most this many per query, whatever window the collection announces. */
export const QUERY_MAX = 200;

/** @typedef {import('../shared/messages.js').NodeView} NodeView */
/** @typedef {import('./store.js').QueryPage} QueryPage */

/** @param {NodeView|null|undefined} view */
const windowOf = (view) => (Array.isArray(view?.meta?.window) ? view.meta.window : null);
/**
 * The last page's answer is the latest word on the collection while the collection is as it was
 * then; before an answer, or once the collection changed, the node view's.
 * @param {NodeView|null|undefined} view @param {QueryPage|null|undefined} page @returns {{more?: number, next?: [number, number]|null}}
 */
const latest = (view, page) => (page && page.version !== null && page.sig === collectionSig(view)
  ? page : { more: view?.more, next: view?.next_window });

/**
 * The number of children the collection says it has (meta.total_children), or undefined.
 * @param {{meta?: {total_children?: number}}|null|undefined} view  a node view, or a query's tree
 * @returns {number|undefined}
 */
export const announcedTotal = (view) => view?.meta?.total_children;

/** A row's child count: "3", "50 of 300" (total_children), "". @param {NodeView} view */
export function countText(view) {
  const kids = view.child_ids?.length ?? 0;
  const total = view.meta?.total_children;
  if (Number.isFinite(total) && total !== kids) return `${kids} of ${total}`;
  return kids ? String(kids) : '';
}

/** A row's child count in words, for its tooltip: "1 child", "3 children", "50 of 300 children". @param {NodeView} view */
export function countTitle(view) {
  const kids = view.child_ids?.length ?? 0;
  const total = view.meta?.total_children;
  if (Number.isFinite(total) && total !== kids) return `${kids} of ${total} ${total === 1 ? 'child' : 'children'}`;
  return `${kids} ${kids === 1 ? 'child' : 'children'}`;
}

/** The node detail's children line: "50 shown of 300 · window [0, 50]", "3", or null (none). @param {NodeView} view @returns {string|null} */
export function childrenText(view) {
  const kids = view.child_ids?.length ?? 0;
  const total = view.meta?.total_children;
  if (!kids && !Number.isFinite(total)) return null;
  const win = windowOf(view) ? ` · window [${view.meta.window.join(', ')}]` : '';
  return Number.isFinite(total) && total !== kids ? `${kids} shown of ${total}${win}` : `${kids}${win}`;
}

/**
 * What a collection looks like for "load more": when it changes (children, window, announced
 * total), a query that found nothing more may find something again.
 * @param {NodeView|null|undefined} view @returns {string}
 */
export function collectionSig(view) {
  const ids = view?.child_ids ?? [];
  return `${view?.more}|${view?.next_window ?? ''}|${ids.length}|${ids[0] ?? ''}|${ids.at(-1) ?? ''}`;
}

/**
 * The last query under this collection returned nothing new, and the collection has not changed since.
 * @param {NodeView|null|undefined} view @param {QueryPage|null|undefined} page @returns {boolean}
 */
export function exhausted(view, page) {
  return !!page?.exhausted && page.exhausted.sig === collectionSig(view);
}

/**
 * How many more children the provider has than the mirror and the loaded pages show (the core's count).
 * @param {NodeView|null|undefined} view @param {QueryPage|null|undefined} page @returns {number}
 */
export function moreToLoad(view, page) {
  return latest(view, page).more ?? 0;
}

/**
 * The query window for the next page, [offset, count] as the core says, or null when none.
 * @param {NodeView|null|undefined} view @param {QueryPage|null|undefined} page @returns {[number, number]|null}
 */
export function nextWindow(view, page) {
  const next = latest(view, page).next;
  return Array.isArray(next) ? [next[0], Math.min(next[1], QUERY_MAX)] : null;
}

/**
 * The views of the children a query answer brings that the collection does not show yet (in the
 * mirror or an earlier page), as node views: the child's fields, its path, its children's ids.
 * @param {string} path @param {NodeView} view @param {QueryPage|null|undefined} page
 * @param {any} answerTree  the query's tree (SLOP node JSON)
 * @returns {NodeView[]}
 */
export function newChildViews(path, view, page, answerTree) {
  const known = new Set([...view.child_ids, ...(page?.nodes ?? []).map((n) => n.id)]);
  const kids = Array.isArray(answerTree?.children) ? answerTree.children : [];
  /** @type {NodeView[]} */
  const out = [];
  for (const { children, ...node } of kids) {
    if (known.has(node.id)) continue;
    known.add(node.id);
    out.push({ ...node, path: childPath(path, node.id), child_ids: (children ?? []).map((c) => c.id) });
  }
  return out;
}

/**
 * Loads the next page of the collection at `path` of `tree` (a live tree of the store) into the
 * store's query pages; the store tells its listeners.
 * @param {{store: import('./store.js').Store, bridge: {request: (type: string, fields: object) => Promise<any>}}} deps
 * @param {import('./store.js').TreeSource} tree @param {string} path
 */
export async function loadMore({ store, bridge }, tree, path) {
  const view = tree.nodes.get(path);
  if (!view) return;
  const before = store.queryPages(tree.key, tree.sub).get(path);
  if (before?.loading || exhausted(view, before)) return;
  const window = nextWindow(view, before);
  if (!window) return;
  const page = store.queryStarted(tree.key, tree.sub, path, announcedTotal(view));
  try {
    const r = await bridge.request(Request.QUERY, { key: tree.key, options: { path, depth: 1, window } });
    const ev = r.event ?? {};
    if (ev.event !== CoreEventName.QUERY) throw new Error(ev.message ?? `${ev.event}${ev.code ? ` ${ev.code}` : ''}`);
    const nodes = newChildViews(path, view, page, ev.tree);
    store.queryAnswered(tree.key, page, {
      nodes,
      version: ev.version,
      total: announcedTotal(ev.tree),
      more: ev.more ?? 0,
      next: ev.next_window ?? null,
      sig: collectionSig(view),
      // Nothing new: say so rather than offer the same empty page again, until the collection changes.
      exhausted: nodes.length === 0 ? { sig: collectionSig(view) } : null,
    });
  } catch (e) {
    store.queryFailed(tree.key, page, e.message);
  }
}
