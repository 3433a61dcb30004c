// tree-rows.js: what the tree view's rows are: the rows of a tree as shown (a depth-first walk of
// the expanded nodes, with the query pages and "load more" rows of windowed collections), and the
// element of each kind of row. Moved out of tree-view.js as they were; the view keeps which rows
// are on screen, the cache, selection and keys, and hands these functions a RowContext.

import { h } from '../../shared/dom.js';
import { childPath } from '../../shared/node-path.js';
import { announcedTotal, countText, countTitle, exhausted, moreToLoad } from '../load-more.js';

/**
 * What a row's element is built with (TreeView gives it).
 * @typedef {object} RowContext
 * @property {(r: any, cls: string, extra?: object) => HTMLElement} base  the row's element: id, classes, indent, ARIA
 * @property {(view: any) => boolean} opens  whether a node opens (children, or a windowed collection)
 * @property {{stamp: any, shown: Set<string>}|null} filter
 * @property {Set<string>} matches
 * @property {string|null} currentMatch
 * @property {import('../store.js').TreeSource|null} source
 */

/**
 * Appends children, skipping null/false (Element.append would print "null").
 * @template {Element} E @param {E} el @param {...(Node|string|null|false|undefined)} kids @returns {E}
 */
function add(el, ...kids) {
  for (const k of kids) if (k) el.append(k);
  return el;
}

/**
 * A node's row label: properties.label, else properties.title, else meta.summary, else nothing.
 * Not "the first property": that reads as a label when it is not one ("repos: 3" for an
 * overview), and a count property would sit beside the child count ("count: 5  5").
 * @param {{properties?: Record<string, any>, meta?: Record<string, any>}} view @returns {string}
 */
export function nodeSummary(view) {
  const p = view.properties ?? {};
  for (const v of [p.label, p.title, view.meta?.summary]) {
    if (typeof v === 'string' && v) return v;
  }
  return '';
}

/** meta.salience within [0, 1], or null when it has none. @param {{meta?: Record<string, any>}|null|undefined} view */
export function salienceOf(view) {
  const s = view?.meta?.salience;
  return typeof s === 'number' && Number.isFinite(s) ? Math.max(0, Math.min(1, s)) : null;
}

/**
 * The rows of `src` as shown: node rows of the expanded nodes (only the filter's when one is set),
 * each windowed collection's query page and its "load more" row. Keys are set by the caller.
 * @param {import('../store.js').TreeSource} src
 * @param {{expanded: Set<string>, extras: Map<string, any>, filter: {shown: Set<string>}|null}} at
 * @returns {any[]}
 */
export function flattenRows(src, at) {
  const rows = [];
  // Iterative depth-first walk (trees can be deeper than the JS stack).
  /** @type {Array<[path: string, depth: number, kind?: string, ref?: object]>} */
  const stack = [[src.path, 0]];
  while (stack.length) {
    const [path, depth, kind, ref] = stack.pop();
    if (at.filter && !kind && !at.filter.shown.has(path)) continue;
    if (kind) {
      rows.push({ kind, path, depth, ref });
      continue;
    }
    rows.push({ kind: 'node', key: path, path, depth });
    const view = src.nodes.get(path);
    if (!view || !at.expanded.has(path)) continue;
    const extra = at.extras.get(path);
    const more = moreToLoad(view, extra);
    const done = exhausted(view, extra);
    /** @type {typeof stack} */
    const tail = [];
    if (extra?.nodes.length) { // nothing fetched yet (loading, failed, or none came): no empty block
      tail.push([path, depth + 1, 'qhead', extra]);
      for (const q of extra.nodes) tail.push([q.path, depth + 1, 'qnode', q]);
    }
    // An empty answer is said until the collection changes, whatever count that answer gave.
    if (more > 0 || done || extra?.loading || extra?.error) tail.push([path, depth + 1, 'more', { more, extra, done, announced: announcedTotal(view) }]);
    // Filtered: the tree's own nodes only (query pages and "load more" are not filtered).
    if (!at.filter) for (let i = tail.length - 1; i >= 0; i--) stack.push(tail[i]);
    for (let i = view.child_ids.length - 1; i >= 0; i--) stack.push([childPath(path, view.child_ids[i]), depth + 1]);
  }
  return rows;
}

/** @param {RowContext} at */
export function nodeRow(at, view, r, open, flash) {
  const shownKids = at.filter ? view.child_ids.filter((id) => at.filter.shown.has(childPath(view.path, id))).length : view.child_ids.length;
  const kids = shownKids || (!at.filter && at.opens(view));
  const sal = salienceOf(view);
  const urgency = view.meta?.urgency;
  const affs = view.affordances?.length ?? 0;
  const count = countText(view);
  const match = at.matches.has(r.path);
  const el = at.base(r, `node${flash ? ' flash' : ''}${sal !== null && sal < 0.25 ? ' low-sal' : ''}${match ? ' match' : ''}${at.currentMatch === r.path ? ' current-match' : ''}`, {
    role: 'treeitem',
    'data-path': view.path,
    'aria-expanded': kids ? String(open) : undefined,
  });
  add(el,
    h('span', { class: `twisty${kids ? ` i ${open ? 'i-chevron-down' : 'i-chevron-right'}` : ''}` }),
    h('span', { class: `sal${sal === null ? ' none' : ''}`, title: sal === null ? 'no salience' : `salience ${sal.toFixed(2)}` },
      h('i', { style: `width:${Math.round((sal ?? 0) * 100)}%` })),
    h('span', { class: 'nid', text: view.id }),
    h('span', { class: 'ntype', text: view.type }),
    h('span', { class: 'nsum', text: nodeSummary(view) }),
    // Counts in words for a screen reader ("50 of 364 children", "3 actions"), as the flags are:
    // a bare "3" after the label says nothing.
    count ? h('span', { class: 'ncount', text: count, title: countTitle(view), role: 'img', 'aria-label': countTitle(view) }) : null,
    view.meta?.pinned ? h('span', { class: 'flag pinned', title: 'pinned: never compacted', text: 'pinned' }) : null,
    view.meta?.focus ? h('span', { class: 'flag focus dot-flag', title: 'focus: the user is here', role: 'img', 'aria-label': 'focus' }) : null,
    view.meta?.changed ? h('span', { class: 'flag changed dot-flag', title: 'changed in the last patch', role: 'img', 'aria-label': 'changed' }) : null,
    urgency && urgency !== 'none' ? h('span', { class: `urgency u-${String(urgency)}`, title: `urgency: ${urgency}${view.meta?.reason ? ` (${view.meta.reason})` : ''}`, text: String(urgency) }) : null,
    view.content_ref ? h('span', { class: 'flag cref', title: `content reference: ${view.content_ref.mime ?? view.content_ref.type ?? ''}`, text: 'content' }) : null,
    affs ? h('span', { class: 'naff i-before i-bolt', title: `affordances: ${view.affordances.map((a) => a.action).join(', ')}`, text: String(affs),
      role: 'img', 'aria-label': `${affs} ${affs === 1 ? 'action' : 'actions'}` }) : null,
  );
  // The flash is taken off when it ends by the tree (tree-view.js), so a row scrolled out mid-flash
  // does not flash again when it comes back.
  return el;
}

/** @param {RowContext} at */
export function placeholderRow(at, r) {
  const id = r.path.slice(r.path.lastIndexOf('/') + 1);
  const el = at.base(r, 'node placeholder', { role: 'treeitem', 'data-path': r.path });
  const gone = at.source.gone?.has(r.path);
  add(el, h('span', { class: 'twisty' }), h('span', { class: 'sal none' }, h('i')), h('span', { class: 'nid', text: id }),
    h('span', { class: 'muted', text: gone ? 'removed from the provider’s tree' : 'loading…' }));
  return el;
}

/** @param {RowContext} at */
export function queryHeadRow(at, r) {
  const e = r.ref;
  const el = at.base(r, 'qhead');
  add(el,
    h('span', { class: 'twisty' }),
    h('span', { class: 'qlabel', text: `query result · ${e.nodes.length} more of ${e.total ?? '?'} · v${e.version ?? '?'} · read-only, not live` }),
    h('button', { type: 'button', class: 'link', 'data-action': 'clear-query', text: 'clear', title: 'Remove these query results' }),
  );
  return el;
}

/** @param {RowContext} at */
export function queryRow(at, r) {
  const q = r.ref;
  const el = at.base(r, 'node qnode', { role: 'treeitem', 'data-path': q.path, 'data-query': '1' });
  const sal = salienceOf(q);
  add(el,
    h('span', { class: 'twisty' }),
    h('span', { class: `sal${sal === null ? ' none' : ''}` }, h('i', { style: `width:${Math.round((sal ?? 0) * 100)}%` })),
    h('span', { class: 'nid', text: q.id }),
    h('span', { class: 'ntype', text: q.type }),
    h('span', { class: 'nsum', text: nodeSummary(q) }),
    countText(q) ? h('span', { class: 'ncount', text: countText(q), title: countTitle(q), role: 'img', 'aria-label': countTitle(q) }) : null,
    q.affordances?.length ? h('span', { class: 'naff i-before i-bolt', text: String(q.affordances.length),
      role: 'img', 'aria-label': `${q.affordances.length} ${q.affordances.length === 1 ? 'action' : 'actions'}` }) : null,
  );
  return el;
}

/** @param {RowContext} at */
export function moreRow(at, r) {
  const { more, extra, done, announced } = r.ref;
  const el = at.base(r, 'more');
  if (done && !extra?.loading && !extra?.error) {
    // Offering the same empty page again would promise what the provider does not return.
    add(el, h('span', { class: 'twisty' }),
      h('span', { class: 'more-note', 'data-role': 'no-more',
        text: `the provider returned no more children (it announced ${announced})`,
        title: `meta.total_children is ${announced}, but a query for the next children returned none. Load more comes back when the collection changes.` }));
    return el;
  }
  const label = extra?.loading ? 'loading…'
    : extra?.error ? `query failed: ${extra.error}`
    : `Load more (${more} not shown)`;
  add(el, h('span', { class: 'twisty' }),
    h('button', { type: 'button', class: `link${extra?.error ? ' error-text' : ''}`, 'data-action': 'load-more', disabled: !!extra?.loading, text: label,
      title: 'Fetch the next page of children with a query (window); shown read-only under the collection' }));
  return el;
}
