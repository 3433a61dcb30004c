// change-marks.js: the fields of the detail's node that a patch changed lately: compared with the
// last render of the same node, marked ("was 4" beside the value, old → new in the tooltip) for
// markMs, then unmarked without rendering the node again. Moved out of detail-view.js as it was
// (the detail's "changed fields" section); the detail owns one and calls note, has and show.

import { h } from '../../shared/dom.js';
import { scalar } from './json-view.js';
import { stringifyExact, isExactNumber } from '../../../js-glue/exact-json.js';

/** How long a field that a patch changed stays marked in the detail (ms). */
export const CHANGE_MARK_MS = 4000;

/** The longest old or new value text in a changed field's tooltip. */
const MAX_CHANGE_TEXT = 200;

const isScalarValue = (v) => v === null || typeof v !== 'object' || isExactNumber(v);

/** A value as its tooltip text: the provider's JSON (numbers as written), cut when long. */
function changeText(v) {
  if (v === undefined) return '(not set)';
  const t = stringifyExact(v);
  return t.length > MAX_CHANGE_TEXT ? `${t.slice(0, MAX_CHANGE_TEXT - 1)}…` : t;
}

/**
 * The top-level keys whose value differs between two objects (a node's properties or meta, numbers
 * as written): [key, before, after], `undefined` on the side that lacks the key.
 * @param {Record<string, any>|null|undefined} before @param {Record<string, any>|null|undefined} after
 * @returns {Array<[string, any, any]>}
 */
export function changedKeys(before, after) {
  const a = before ?? {};
  const b = after ?? {};
  /** @type {Array<[string, any, any]>} */
  const out = [];
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = Object.hasOwn(a, k) ? a[k] : undefined;
    const y = Object.hasOwn(b, k) ? b[k] : undefined;
    if (x === undefined && y === undefined) continue;
    if (x === undefined || y === undefined || stringifyExact(x) !== stringifyExact(y)) out.push([k, x, y]);
  }
  return out;
}

/** The key a top-level row of a properties or meta section shows (json-view entry, or a meta row). */
function rowKey(row) {
  return row.querySelector(':scope > .jt-key, :scope > summary > .jt-key')?.textContent ?? null;
}

export class ChangeMarks {
  /** @param {HTMLElement} main  the detail's element the properties and meta sections are in */
  constructor(main) {
    this.main = main;
    /** What the last render showed, to tell what a patch changed: {key, mode, properties, meta}. */
    this.lastShown = null;
    /** Fields marked as changed: "section key" → {section, key, before, after, at}. */
    this.changes = new Map();
    this.markMs = CHANGE_MARK_MS;
    this.noteAt = 0;
    /** @type {ReturnType<typeof setTimeout>|0} */
    this.markTimer = 0;
  }

  /**
   * Compares what is about to be shown with the last render of the same node (same provider, path
   * and mode; live only: a history step or another node is not a change the user watched happen).
   * Changed, added and removed keys are marked for markMs; another node starts afresh.
   */
  note(key, mode, vv) {
    const last = this.lastShown;
    const same = !!last && last.key === key && last.mode === mode && mode === 'live';
    if (!same) this.changes.clear();
    const now = Date.now();
    this.noteAt = now;
    if (same) {
      for (const name of /** @type {const} */ (['properties', 'meta'])) {
        for (const [k, before, after] of changedKeys(last[name], vv[name])) {
          // A key changed again while marked: "was" is the value just before this change (the
          // previous one shown), never one from several changes ago; the mark's time starts again.
          this.changes.set(`${name} ${k}`, { section: name, key: k, before, after, at: now });
        }
      }
    }
    for (const [id, c] of this.changes) {
      if (now - c.at >= this.markMs || (c.before === undefined && c.after === undefined)) this.changes.delete(id);
    }
    this.lastShown = key === null ? null : { key, mode, properties: vv?.properties ?? {}, meta: vv?.meta ?? {} };
  }

  has(name) {
    for (const c of this.changes.values()) if (c.section === name) return true;
    return false;
  }

  /** Marks the rows of the fields changed lately; a removed key gets a row of its own. */
  show() {
    clearTimeout(this.markTimer);
    if (!this.changes.size) return;
    for (const name of ['properties', 'meta']) {
      const sec = this.main.querySelector(`[data-section="${name}"]`);
      if (!sec) continue;
      const rows = new Map();
      for (const row of sec.querySelectorAll('.meta-row, .json-tree > .jt-row, .json-tree > details')) {
        const k = rowKey(row);
        if (k !== null && !rows.has(k)) rows.set(k, row);
      }
      for (const c of this.changes.values()) {
        if (c.section !== name) continue;
        let row = rows.get(c.key);
        if (c.after === undefined) {
          // Removed: a row that says so, with the value it had.
          row = h('div', { class: 'jt-row fchange-removed' }, h('span', { class: 'jt-key', text: c.key }), h('span', { class: 'jt-colon', text: ': ' }),
            h('span', { class: 'muted', text: 'removed' }));
          let list = sec.querySelector('.json-tree') ?? sec.querySelector('.meta-view');
          if (!list) sec.append(list = h('div', { class: 'json-tree' })); // under "No properties."
          list.append(row);
        }
        if (!row) continue;
        this.#markRow(row, c);
      }
    }
    const next = Math.min(...[...this.changes.values()].map((c) => c.at)) + this.markMs - Date.now();
    this.markTimer = setTimeout(() => this.#expire(), Math.max(50, next));
  }

  /** One changed field's row: a class for the mark, "was X" beside the value, old → new in its tooltip. */
  #markRow(row, c) {
    const kind = c.before === undefined ? 'added' : c.after === undefined ? 'removed' : 'changed';
    row.classList.add('fchange', `fchange-${kind}`);
    if (c.at === this.noteAt) row.classList.add('fchange-new'); // only a fresh change draws the eye again
    row.dataset.change = kind;
    row.dataset.changeKey = `${c.section} ${c.key}`;
    const tip = kind === 'added' ? `${c.key}: added, ${changeText(c.after)}`
      : kind === 'removed' ? `${c.key}: removed, was ${changeText(c.before)}`
      : `${c.key}: ${changeText(c.before)} → ${changeText(c.after)}`;
    row.title = `Changed by a patch just now. ${tip}`;
    // The old value as the detail writes values (json-view's scalar; a container as its JSON, cut).
    const old = c.before === undefined ? null
      : isScalarValue(c.before) ? scalar(c.before) : h('code', { class: 'fchange-json', text: changeText(c.before) });
    // Read with the row by a screen reader too ("count: 5 was 4"); the tooltip says old → new.
    const note = h('span', { class: 'fchange-was' },
      kind === 'added' ? h('span', { class: 'fchange-word', text: 'new' }) : [h('span', { class: 'fchange-word', text: 'was ' }), old]);
    (row.tagName === 'DETAILS' ? row.querySelector(':scope > summary') ?? row : row).append(' ', note);
  }

  /** Takes off the marks that have had their time, without rendering the node again. */
  #expire() {
    const now = Date.now();
    for (const [id, c] of this.changes) {
      if (now - c.at < this.markMs) continue;
      this.changes.delete(id);
      for (const row of this.main.querySelectorAll('[data-change-key]')) {
        if (/** @type {HTMLElement} */ (row).dataset.changeKey !== id) continue;
        if (row.classList.contains('fchange-removed')) { row.remove(); continue; }
        const note = row.querySelector('.fchange-was');
        if (note?.previousSibling?.nodeType === 3 && note.previousSibling.textContent === ' ') note.previousSibling.remove();
        row.classList.remove('fchange', 'fchange-new', 'fchange-added', 'fchange-changed');
        row.removeAttribute('data-change');
        row.removeAttribute('data-change-key');
        row.removeAttribute('title');
        row.querySelector('.fchange-was')?.remove();
      }
    }
    if (this.changes.size) {
      const next = Math.min(...[...this.changes.values()].map((c) => c.at)) + this.markMs - now;
      this.markTimer = setTimeout(() => this.#expire(), Math.max(50, next));
    }
  }
}
