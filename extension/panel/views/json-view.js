// json-view.js: JSON values as a collapsible tree (native <details>), text only.

import { h } from '../../shared/dom.js';
import { isExactNumber } from '../../../js-glue/exact-json.js';

/** A JSON scalar as text; a kept number (exact-json.js) as the provider wrote it, -0 as -0. */
export function scalar(v) {
  if (isExactNumber(v)) return h('span', { class: 'scalar t-number', text: v.rawJSON });
  const t = v === null ? 'null' : typeof v;
  return h('span', { class: `scalar t-${t}`, text: t === 'string' ? JSON.stringify(v) : Object.is(v, -0) ? '-0' : String(v) });
}

function brief(v) {
  if (Array.isArray(v)) return `[…] ${v.length} item${v.length === 1 ? '' : 's'}`;
  const n = Object.keys(v).length;
  return `{…} ${n} key${n === 1 ? '' : 's'}`;
}

/**
 * One "key: value" entry. Objects and arrays become <details>, open while depth < openDepth.
 * Large containers show their first `limit` members and a count of the rest.
 */
function entry(key, value, depth, openDepth, limit) {
  const keyEl = key === null ? null : h('span', { class: 'jt-key', text: key });
  if (value === null || typeof value !== 'object' || isExactNumber(value)) {
    return h('div', { class: 'jt-row' }, keyEl, keyEl ? h('span', { class: 'jt-colon', text: ': ' }) : null, scalar(value));
  }
  const members = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const det = h('details', { class: 'jt' });
  if (depth < openDepth) det.open = true;
  const body = h('div', { class: 'jt-body' });
  let filled = false;
  const fill = () => {
    if (filled) return;
    filled = true;
    for (const [k, v] of members.slice(0, limit)) body.append(entry(k, v, depth + 1, openDepth, limit));
    if (members.length > limit) body.append(h('div', { class: 'jt-row muted', text: `… ${members.length - limit} more` }));
  };
  if (det.open) fill();
  det.addEventListener('toggle', fill); // build closed subtrees only when opened
  det.append(h('summary', {}, keyEl, keyEl ? h('span', { class: 'jt-colon', text: ': ' }) : null, h('span', { class: 'jt-brief', text: brief(value) })), body);
  return det;
}

/**
 * The members of an object (or any value) as rows; nested containers collapsible.
 * @param {any} value
 * @param {{openDepth?: number, limit?: number}} [o]  openDepth: levels open at first (default 1)
 */
export function jsonView(value, { openDepth = 1, limit = 500 } = {}) {
  const root = h('div', { class: 'json-tree' });
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && !isExactNumber(value)) {
    for (const [k, v] of Object.entries(value)) root.append(entry(k, v, 1, openDepth, limit));
  } else {
    root.append(entry(null, value, 0, openDepth, limit));
  }
  return root;
}
