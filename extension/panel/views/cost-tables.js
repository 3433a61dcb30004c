// cost-tables.js: the Cost tab's words and tables: the top subtrees (a real table, sortable by
// every number, the map's text alternative), the churn table (the nodes rewritten most, with their
// no-op writes), the budgets of the agent view in words, and the hints as a list. A path is a
// button that selects the node in the tree.

import { h } from '../../shared/dom.js';
import { int, pct, rate, perSecond, bytes, count, budgetSentences } from './cost-text.js';

/** The top subtrees' columns: key in the report's row, heading, how it is said. */
const SUBTREE_COLUMNS = /** @type {const} */ ([
  ['tokens', 'Tokens', int],
  ['chars', 'Chars', int],
  ['toolTokens', 'Tool tokens', int],
  ['bytes', 'Bytes', bytes],
  ['nodes', 'Nodes', int],
  ['ops', 'Ops', int],
  ['share', 'Share', pct],
]);

/** A row's number for a column ('ops': the window's, or the range's). @param {any} r @param {string} k */
const numberOf = (r, k) => (k === 'ops' ? r.window?.ops ?? 0 : r[k] ?? 0);

/**
 * A path that selects its node, or the words for the root.
 * @param {string|null} path @param {(path: string) => boolean} select
 */
export function pathButton(path, select) {
  if (!path) return h('span', { class: 'muted', text: '(the whole tree)' });
  return h('button', {
    type: 'button', class: 'link mono cost-path', 'data-action': 'cost-node', 'data-path': path,
    title: 'Select this node in the tree',
    onclick: (e) => { if (!select(path)) e.currentTarget.title = 'Not in the tree shown'; },
  }, path);
}

/**
 * The sortable table of the top subtrees.
 * @param {any} report @param {{key: string, desc: boolean}|null} sort  null: the report's order
 * @param {{select: (path: string) => boolean, sortBy: (key: string) => void}} hooks
 */
export function subtreesTable(report, sort, hooks) {
  const rows = [...report.subtrees];
  if (sort) rows.sort((a, b) => (numberOf(a, sort.key) - numberOf(b, sort.key)) * (sort.desc ? -1 : 1) || a.path.localeCompare(b.path));
  const partial = !report.complete;
  const th = (/** @type {readonly [string, string, any]} */ [key, label]) => {
    const on = sort?.key === key;
    return h('th', { scope: 'col', class: 'num', 'aria-sort': on ? (sort?.desc ? 'descending' : 'ascending') : null },
      h('button', { type: 'button', class: 'link cost-sort', 'data-sort': key, title: `Sort by ${label.toLowerCase()}`, onclick: () => hooks.sortBy(key) },
        label, on ? h('span', { 'aria-hidden': 'true', text: sort?.desc ? ' ▾' : ' ▴' }) : null));
  };
  return h('div', { class: 'cost-table-wrap' },
    h('table', { class: 'cost-table', 'data-role': 'cost-subtrees' },
      h('caption', { class: 'sr-only', text: `The ${rows.length} costliest subtrees, by ${report.by}${partial ? ' (tokens still being counted)' : ''}` }),
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col', text: 'Subtree' }),
        SUBTREE_COLUMNS.map(th))),
      h('tbody', {}, rows.map((r) => h('tr', { 'data-path': r.path, class: r.inView ? '' : 'cut' },
        h('th', { scope: 'row', class: 'cost-name' },
          pathButton(r.path, hooks.select), ' ',
          h('span', { class: 'cost-meta' },
            h('span', { class: 'muted small', text: r.type }),
            r.inView ? null : h('span', { class: 'chip cost-cut', title: 'maxStateBytes leaves this subtree (or part of it) out of the agent view', text: 'cut' }))),
        SUBTREE_COLUMNS.map(([key, , say]) => h('td', {
          class: `num${partial && (key === 'tokens' || key === 'toolTokens') ? ' partial' : ''}`,
          'data-col': key, 'data-value': numberOf(r, key),
        }, say(numberOf(r, key)))))))));
}

/**
 * The churn table: the nodes rewritten most (their own ops), per second and their no-op share.
 * @param {any} report @param {(path: string) => boolean} select
 */
export function churnTable(report, select) {
  if (!report.churn.length) return h('p', { class: 'muted small', 'data-role': 'cost-churn', text: 'No patch has touched the state since the panel started measuring.' });
  return h('div', { class: 'cost-table-wrap' },
    h('table', { class: 'cost-table', 'data-role': 'cost-churn' },
      h('caption', { class: 'sr-only', text: 'The nodes patched most: ops on the node itself' }),
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col', text: 'Node' }),
        ['Ops', 'Per second', 'No-op writes', 'Bytes', 'Patches'].map((t) => h('th', { scope: 'col', class: 'num', text: t })))),
      h('tbody', {}, report.churn.map((c) => h('tr', { 'data-path': c.path },
        h('th', { scope: 'row', class: 'cost-name' }, pathButton(c.path, select), h('span', { class: 'muted small', text: ` ${c.type}` })),
        h('td', { class: 'num', text: int(c.ops) }),
        h('td', { class: 'num', text: rate(c.perSecond) }),
        h('td', { class: `num${c.noopShare >= 0.5 ? ' warn' : ''}`, text: c.noops ? `${int(c.noops)} (${pct(c.noopShare)})` : '0' }),
        h('td', { class: 'num', text: bytes(c.bytes) }),
        h('td', { class: 'num', text: int(c.patches) }))))));
}

/** The budgets in words. @param {any} report */
export function budgetsPart(report) {
  return h('div', { class: 'cost-budgets', 'data-role': 'cost-budgets' },
    budgetSentences(report.budgets, report.complete).map((t) => h('p', { text: t })));
}

const HINT_TITLES = {
  'noop-writes': 'No-op writes',
  'unwindowed-collection': 'A collection with no window',
  'low-salience-cost': 'Low salience, high cost',
  'state-budget-cut': 'Cut by the state budget',
  'tools-cut': 'Tools left out',
};

/** The hints as a list. @param {any} report @param {(path: string) => boolean} select */
export function hintsList(report, select) {
  if (!report.hints.length) return h('p', { class: 'muted small', 'data-role': 'cost-hints', text: 'No hints: nothing stands out.' });
  return h('ul', { class: 'cost-hints', 'data-role': 'cost-hints' }, report.hints.map((hint) => h('li', { 'data-kind': hint.kind },
    h('strong', { text: `${HINT_TITLES[hint.kind] ?? hint.kind}: ` }),
    h('span', { text: hint.text }),
    hint.path ? [' ', pathButton(hint.path, select)] : null)));
}

/**
 * The totals in one line: tokens (with characters), tool tokens, bytes, nodes, the rate of ops.
 * Tokens still being counted are said as such, never as a total.
 * @param {any} report @param {{done: number, total: number}} counting
 */
export function totalsLine(report, counting) {
  const t = report.totals;
  const tokens = report.complete
    ? h('strong', { 'data-role': 'cost-tokens', 'data-value': t.tokens, text: count(t.tokens, 'token') })
    : h('strong', { 'data-role': 'cost-counting', text: `Counting tokens… ${int(counting.done)} of ${int(counting.total)}` });
  return h('p', { class: 'cost-totals', 'data-role': 'cost-totals' },
    tokens,
    h('span', { 'data-role': 'cost-chars', 'data-value': t.chars, text: ` (${count(t.chars, 'character')})` }),
    ' of tree text; ',
    report.complete ? h('span', { 'data-role': 'cost-tool-tokens', 'data-value': t.toolTokens, text: count(t.toolTokens, 'tool token') }) : 'tool tokens counting',
    ` for ${count(t.tools, 'action')}; `,
    h('span', { text: `${bytes(t.bytes)} of JSON in ${count(t.nodes, 'node')}; ` }),
    h('span', { text: `${perSecond(t.rate.ops, 'ops')}, ${perSecond(t.rate.noops, 'no-op writes')}` }),
    '.');
}
