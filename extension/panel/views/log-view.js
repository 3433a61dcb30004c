// log-view.js: the drawer at the bottom. "Frames": every frame in and out (time, direction, type,
// size), virtualized, filterable by type, direction and text (plain or a regular expression, and
// inverted: the frames that do not match), pausable, clearable; a frame's JSON opens
// on the right (copyable); a batch expands into its inner messages. "Events": the core's events
// (results, tasks, errors, resyncs, timeouts, protocol errors, provider restarts and changes).
//
// Frames are parsed here only to show them (pretty JSON, the members of a batch); nothing is
// applied or validated.

import { h, setChildren, Tabs } from '../../shared/dom.js';
import { VirtualList } from './virtual-list.js';
import { Press } from './press.js';
import { clockTime } from '../../shared/time-text.js';
import { parseVerbatim, stringifyExact } from '../../../js-glue/exact-json.js';
import { eventText } from '../../../js-glue/event-text.js';

const LOG_ROW = 20;

/** A byte count in words: "12 B", "3.4 KiB". @param {number} n */
export const size = (n) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`);
const utf8 = new TextEncoder();


/**
 * The parsed frame, or undefined when it is not JSON (or was cut). Kept beside the frame, not in
 * it: the frames are the store's.
 */
const parsedFrames = new WeakMap();
function parsed(f) {
  if (!parsedFrames.has(f)) {
    let m;
    try {
      m = f.truncated ? undefined : parseVerbatim(f.text); // shown and copied as sent
    } catch {
      m = undefined;
    }
    parsedFrames.set(f, m);
  }
  return parsedFrames.get(f);
}

export class LogView {
  /**
   * @param {HTMLElement} root
   * @param {{onPause: (paused: boolean) => void, onClear: (tab: string) => void, copy: (text: string, what: string) => void,
   *          onCollapse?: () => void}} hooks   onCollapse: the drawer's collapse button
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.tab = 'frames';
    this.frames = [];
    this.events = [];
    this.rows = [];          // frame rows after filtering and batch expansion
    this.expanded = new Set(); // frame objects expanded (batches)
    this.selected = null;    // a row object {frame, msg, depth, ...}
    this.typeFilter = '';
    this.dirFilter = '';
    /** The text filter: what is typed, whether it is a regular expression, whether it is inverted. */
    this.text = { value: '', regex: false, invert: false };
    this.textTest = null;      // (frame) => boolean, or null: no text filter (empty, or a bad regex)
    this.textHits = new WeakMap(); // frame → whether it matches the current text filter
    this.paused = false;
    this.skipped = 0;
    this.cache = new WeakMap();
    this.types = new Set();

    this.typeSel = h('select', { 'aria-label': 'Filter frames by type', 'data-filter': 'type', onchange: () => { this.typeFilter = this.typeSel.value; this.#refilter(); } },
      h('option', { value: '', text: 'all types' }));
    this.dirSel = h('select', { 'aria-label': 'Filter frames by direction', 'data-filter': 'dir', onchange: () => { this.dirFilter = this.dirSel.value; this.#refilter(); } },
      h('option', { value: '', text: 'in + out' }), h('option', { value: 'in', text: '↓ in' }), h('option', { value: 'out', text: '↑ out' }));
    this.textInput = h('input', { type: 'search', class: 'log-text', 'data-filter': 'text', placeholder: 'Filter', spellcheck: 'false', 'aria-label': 'Filter frames by text',
      title: 'Show the frames whose JSON contains this text (case-insensitive)', oninput: () => this.#setText({ value: this.textInput.value }) });
    this.regexBtn = h('button', { type: 'button', class: 'tb log-opt mono', 'data-action': 'regex', 'aria-pressed': 'false', 'aria-label': 'Regular expression', text: '.*',
      title: 'Read the filter as a regular expression (case-insensitive)', onclick: () => this.#setText({ regex: !this.text.regex }) });
    this.invertBtn = h('button', { type: 'button', class: 'tb log-opt mono', 'data-action': 'invert', 'aria-pressed': 'false', 'aria-label': 'Invert the filter', text: '!=',
      title: 'Invert: show the frames that do not match the filter', onclick: () => this.#setText({ invert: !this.text.invert }) });
    this.textBox = h('span', { class: 'log-filter' }, this.textInput, this.regexBtn, this.invertBtn);
    // Icons beside the words; a narrow log keeps only the icons (panel.css).
    this.pauseBtn = h('button', { type: 'button', class: 'small icon-btn i-pause', 'data-action': 'pause', 'aria-pressed': 'false', onclick: () => this.hooks.onPause(!this.paused) }, 'Pause');
    this.clearBtn = h('button', { type: 'button', class: 'small icon-btn i-close', 'data-action': 'clear', title: 'Clear the log', onclick: () => this.hooks.onClear(this.tab) }, 'Clear');
    this.countEl = h('span', { class: 'muted small log-count' });
    // Down to this toolbar, or back (splitters.js keeps the choice).
    this.collapseBtn = h('button', { type: 'button', class: 'tb icon-btn i-chevron-down', 'data-action': 'collapse-log', 'aria-label': 'Collapse the log', title: 'Collapse the log to this bar',
      onclick: () => hooks.onCollapse?.() });
    const tabBar = h('div', { class: 'seg' },
      h('button', { type: 'button', 'data-tab': 'frames' }, 'Frames'),
      h('button', { type: 'button', 'data-tab': 'events' }, 'Events'));
    this.tabsEl = h('div', { class: 'log-toolbar' },
      tabBar,
      this.typeSel, this.dirSel, this.textBox, this.pauseBtn, this.clearBtn, this.countEl, h('span', { class: 'spacer' }), this.collapseBtn);
    this.framesEl = h('div', { class: 'log-list', role: 'log', tabindex: '0', 'aria-label': 'Frames' });
    this.eventsEl = h('div', { class: 'log-list events', role: 'log', 'aria-label': 'Events' });
    this.frameDetail = h('div', { class: 'log-detail' });
    this.bodyEl = h('div', { class: 'log-body' }, this.framesEl, this.eventsEl, this.frameDetail);
    root.replaceChildren(this.tabsEl, this.bodyEl);
    this.list = new VirtualList(this.framesEl, { rowHeight: LOG_ROW, renderRow: (i) => this.#frameRow(this.rows[i]) });
    // The frames' filters and Pause go with the Frames tab.
    this.tabs = new Tabs(tabBar, {
      frames: [this.framesEl, this.frameDetail, this.typeSel, this.dirSel, this.textBox, this.pauseBtn],
      events: [this.eventsEl],
    }, (tab) => {
      this.tab = tab;
      this.#count();
      if (tab === 'frames') this.list.render();
    });
    this.press = new Press(this.framesEl, '.log-row');
    this.framesEl.addEventListener('click', (e) => this.#onClick(e));
    // A log that follows new frames holds still under the pointer (as the History's list does), so
    // the row aimed at stays where it was aimed; it catches up when the pointer leaves.
    this.pointerIn = false;
    this.catchUp = false;
    this.framesEl.addEventListener('pointerenter', () => { this.pointerIn = true; });
    this.framesEl.addEventListener('pointerleave', () => {
      this.pointerIn = false;
      if (!this.catchUp) return;
      this.catchUp = false;
      this.list.scrollToEnd();
      this.list.render();
    });
    this.framesEl.addEventListener('keydown', (e) => this.#onKey(e));
    this.tabs.show('frames');
    this.#showDetail();
  }

  /** The collapse button says which way it goes. */
  setCollapsed(collapsed) {
    this.collapseBtn.classList.toggle('i-chevron-down', !collapsed);
    this.collapseBtn.classList.toggle('i-up', collapsed);
    this.collapseBtn.setAttribute('aria-label', collapsed ? 'Expand the log' : 'Collapse the log');
    this.collapseBtn.title = collapsed ? 'Show the log again' : 'Collapse the log to this bar';
    this.collapseBtn.setAttribute('aria-expanded', String(!collapsed));
  }

  setPaused(paused, skipped) {
    this.paused = paused;
    this.skipped = skipped;
    this.pauseBtn.textContent = paused ? 'Resume' : 'Pause';
    this.pauseBtn.classList.toggle('i-pause', !paused);
    this.pauseBtn.classList.toggle('i-play', paused);
    this.pauseBtn.title = paused ? 'Record the frames again' : 'Stop recording frames (they are counted, not kept)';
    this.pauseBtn.setAttribute('aria-pressed', String(paused));
    this.root.classList.toggle('paused', paused);
    this.#count();
  }

  #count() {
    const n = this.tab === 'frames' ? this.rows.filter((r) => r.depth === 0).length : this.events.length;
    const total = this.tab === 'frames' ? this.frames.length : this.events.length;
    const filtered = this.tab === 'frames' && n !== total ? ` (${total} before filters)` : '';
    const paused = this.paused && this.tab === 'frames' ? ` · paused: ${this.skipped} not recorded` : '';
    this.countEl.textContent = `${n} ${this.tab}${filtered}${paused}`;
    // Narrow, the count is not shown (it would be cut): the log's bar says it in its tooltip.
    this.countEl.parentElement?.setAttribute('title', this.countEl.textContent);
  }

  /** @param {object[]} frames LogEntry[] @param {{t, event}[]} events */
  show(frames, events) {
    if (frames !== this.frames) {
      this.frames = frames;
      let newType = false;
      for (const f of frames) if (!this.types.has(f.type)) { this.types.add(f.type); newType = true; }
      if (newType) {
        const cur = this.typeSel.value;
        setChildren(this.typeSel, h('option', { value: '', text: 'all types' }), [...this.types].sort().map((t) => h('option', { value: t, text: t })));
        this.typeSel.value = cur;
      }
      if (this.selected && !frames.includes(this.selected.frame)) {
        this.selected = null;
        this.#showDetail();
      }
      this.#refilter();
    }
    if (events !== this.events) {
      const stick = this.eventsEl.scrollHeight - this.eventsEl.scrollTop - this.eventsEl.clientHeight < 30;
      this.events = events;
      setChildren(this.eventsEl, events.length ? null : h('div', { class: 'log-empty muted', text: 'No events yet: results of invokes, task progress, errors, resyncs and timeouts appear here.' }),
        events.slice(-500).map((e) => h('div', { class: `ev-row ev-${e.event.event}` },
          h('span', { class: 'mono muted', text: clockTime(e.t, { ms: true }) }),
          h('span', { class: 'etype', text: e.event.event }),
          h('span', { class: 'epreview', text: eventText(e.event) }))));
      if (stick) this.eventsEl.scrollTop = this.eventsEl.scrollHeight;
      this.#count();
    }
  }

  /**
   * Changes the text filter. A regular expression that does not compile filters nothing and
   * marks the field invalid (its tooltip says why), until it is corrected.
   */
  #setText(change) {
    Object.assign(this.text, change);
    const { value, regex, invert } = this.text;
    this.regexBtn.setAttribute('aria-pressed', String(regex));
    this.invertBtn.setAttribute('aria-pressed', String(invert));
    if (this.textInput.value !== value) this.textInput.value = value;
    let error = null;
    this.textTest = null;
    if (value && regex) {
      try {
        const re = new RegExp(value, 'i');
        this.textTest = (f) => re.test(f.text);
      } catch (e) {
        error = e.message;
      }
    } else if (value) {
      const needle = value.toLowerCase();
      this.textTest = (f) => f.text.toLowerCase().includes(needle);
    }
    this.textInput.classList.toggle('invalid', !!error);
    this.textInput.toggleAttribute('aria-invalid', !!error);
    this.textInput.title = error ? `Not a regular expression: ${error}` : regex ? 'Show the frames whose JSON matches this regular expression (case-insensitive)' : 'Show the frames whose JSON contains this text (case-insensitive)';
    this.textHits = new WeakMap();
    this.#refilter();
  }

  /** Whether the frame passes the text filter (a cached answer per frame until the filter changes). */
  #textPasses(f) {
    if (!this.textTest) return true;
    let hit = this.textHits.get(f);
    if (hit === undefined) {
      hit = this.textTest(f);
      this.textHits.set(f, hit);
    }
    return hit !== this.text.invert;
  }

  /**
   * Shows the frames that name this node path (in a patch op's path, itself or below it), newest
   * selected: the tree's "Select in the log". Type and direction filters are cleared.
   */
  showPath(path) {
    this.tabs.show('frames');
    this.typeFilter = this.dirFilter = '';
    this.typeSel.value = this.dirSel.value = '';
    const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // Quoted and followed by the end of the string or a "/": /a/item-1 is not /a/item-10.
    this.#setText({ value: `"${escaped}["/]`, regex: true, invert: false });
    const j = this.rows.findLastIndex((r) => r.depth === 0);
    if (j < 0) return false;
    this.#select(this.rows[j]);
    this.list.scrollToIndex(j, 'center');
    return true;
  }

  #matches(f) {
    if (this.dirFilter && f.dir !== this.dirFilter) return false;
    if (!this.#textPasses(f)) return false;
    if (!this.typeFilter) return true;
    if (f.type === this.typeFilter) return true;
    // A batch matches when one of its messages has the type.
    if (f.type === 'batch') {
      const m = parsed(f);
      const has = (x) => Array.isArray(x?.messages) && x.messages.some((y) => y?.type === this.typeFilter || (y?.type === 'batch' && has(y)));
      return has(m);
    }
    return false;
  }

  #refilter() {
    const stick = this.catchUp || this.list.atEnd();
    // Held still (read, or under the pointer), the row at the top keeps its place when the oldest
    // frames go at the log's bound: found again by its frame, not by its index.
    const anchor = !stick || this.pointerIn ? this.#anchor() : null;
    const rows = [];
    for (const f of this.frames) {
      if (!this.#matches(f)) continue;
      const row = { frame: f, depth: 0, msg: null, key: f };
      rows.push(row);
      if (f.type === 'batch' && this.expanded.has(f)) this.#inner(parsed(f), f, 1, rows);
    }
    this.rows = rows;
    // The detail follows the list: a frame the filters hide is no longer shown beside it.
    if (this.selected && !rows.some((r) => r.frame === this.selected.frame && r.msg === this.selected.msg)) {
      this.selected = null;
      this.#showDetail();
    }
    this.list.setCount(rows.length);
    if (stick && this.pointerIn) this.catchUp = true;
    else if (stick) this.list.scrollToEnd();
    if (anchor) {
      const j = rows.findIndex((r) => r.frame === anchor.frame && r.msg === anchor.msg);
      if (j >= 0) this.list.scrollToTop(j * this.list.rowHeight + anchor.offset);
    }
    this.list.render();
    this.#count();
  }

  /** The first row in view and how far above the view's top it starts. */
  #anchor() {
    const rh = this.list.rowHeight;
    const i = Math.floor(this.list.top / rh);
    const r = this.rows[i];
    return r ? { frame: r.frame, msg: r.msg, offset: this.list.top - i * rh } : null;
  }

  #inner(batch, frame, depth, rows) {
    if (!Array.isArray(batch?.messages)) return;
    batch.messages.forEach((m, i) => {
      const row = { frame, depth, msg: m, index: i, key: `${depth}:${i}` };
      rows.push(row);
      if (m?.type === 'batch' && this.expanded.has(m)) this.#inner(m, frame, depth + 1, rows);
    });
  }

  #frameRow(r) {
    const cacheKey = r.msg !== null && typeof r.msg === 'object' ? r.msg : r.depth === 0 ? r.frame : null;
    const cached = cacheKey ? this.cache.get(cacheKey) : null;
    const sel = this.selected && this.selected.frame === r.frame && this.selected.msg === r.msg;
    const isBatch = r.msg ? r.msg?.type === 'batch' : r.frame.type === 'batch';
    const open = isBatch && this.expanded.has(r.msg ?? r.frame);
    const sig = `${sel}|${open}`;
    if (cached && cached.sig === sig) return cached.el;
    /** @type {HTMLDivElement & {__row?: object}} a row, and the row object it shows */
    let el;
    if (r.depth === 0) {
      const f = r.frame;
      const inner = isBatch ? parsed(f)?.messages?.length : null;
      el = h('div', { class: `log-row dir-${f.dir}${sel ? ' selected' : ''}${isBatch ? ' batch' : ''}`, 'data-type': f.type, 'data-dir': f.dir },
        h('span', { class: `twisty${isBatch ? ` i ${open ? 'i-chevron-down' : 'i-chevron-right'}` : ''}`, 'data-action': isBatch ? 'expand' : null }),
        h('span', { class: 'mono muted', text: clockTime(f.t, { ms: true }) }),
        // role=img: an icon with a name (a bare span may not carry aria-label).
        h('span', { class: `dir i ${f.dir === 'in' ? 'i-arrow-down' : 'i-arrow-up'}`, role: 'img', title: f.dir === 'in' ? 'in: provider → extension' : 'out: extension → provider', 'aria-label': f.dir }),
        h('span', { class: 'ftype', text: f.type }),
        h('span', { class: 'fsize muted', text: size(f.size) }),
        h('span', { class: 'fpreview mono', text: isBatch && inner !== undefined ? `${inner} messages` + (f.truncated ? ' (cut)' : '') : f.text.slice(0, 200) }));
    } else {
      const m = r.msg;
      const text = stringifyExact(m) ?? '';
      el = h('div', { class: `log-row inner${sel ? ' selected' : ''}${isBatch ? ' batch' : ''}`, style: `--depth:${r.depth}`, 'data-type': String(m?.type ?? '?') },
        h('span', { class: `twisty${isBatch ? ` i ${open ? 'i-chevron-down' : 'i-chevron-right'}` : ''}`, 'data-action': isBatch ? 'expand' : null }),
        h('span', { class: 'mono muted', text: `#${r.index}` }),
        h('span', { class: 'dir' }),
        h('span', { class: 'ftype', text: String(m?.type ?? '?') }),
        h('span', { class: 'fsize muted', text: size(utf8.encode(text).length) }),
        h('span', { class: 'fpreview mono', text: isBatch ? `${m.messages?.length ?? 0} messages` : text.slice(0, 200) }));
    }
    el.__row = r;
    if (cacheKey) this.cache.set(cacheKey, { el, sig });
    return el;
  }

  /** A click, read as the press that made it (press.js): the row pressed, even if the log moved since. */
  #onClick(e) {
    const { row: el, closest } = this.press.resolve(e);
    const r = /** @type {any} */ (el)?.__row;
    if (!r) return;
    const target = r.msg ?? r.frame;
    if (closest('[data-action="expand"]')) {
      if (this.expanded.has(target)) this.expanded.delete(target);
      else this.expanded.add(target);
      this.#refilter();
      return;
    }
    this.#select(r);
  }

  #select(r) {
    this.selected = r;
    this.cache = new WeakMap();
    this.list.render();
    this.#showDetail();
  }

  #onKey(e) {
    const i = this.selected ? this.rows.findIndex((r) => r.frame === this.selected.frame && r.msg === this.selected.msg) : -1;
    let j = null;
    if (e.key === 'ArrowDown') j = Math.min(this.rows.length - 1, i + 1);
    else if (e.key === 'ArrowUp') j = Math.max(0, i - 1);
    else if ((e.key === 'ArrowRight' || e.key === 'ArrowLeft') && this.selected) {
      const target = this.selected.msg ?? this.selected.frame;
      const isBatch = this.selected.msg ? this.selected.msg?.type === 'batch' : this.selected.frame.type === 'batch';
      if (isBatch) {
        if (e.key === 'ArrowRight') this.expanded.add(target);
        else this.expanded.delete(target);
        this.#refilter();
      }
    } else return;
    e.preventDefault();
    if (j !== null && this.rows[j]) {
      this.#select(this.rows[j]);
      this.list.scrollToIndex(j);
    }
  }

  /**
   * Selects the frame whose text starts as `text` does (both may be cut), filters cleared, and
   * scrolls to it; false when the log does not have it.
   */
  reveal(text) {
    this.tabs.show('frames');
    if (this.typeFilter || this.dirFilter || this.text.value) {
      this.typeFilter = this.dirFilter = '';
      this.typeSel.value = this.dirSel.value = '';
      this.#setText({ value: '' });
    }
    const n = Math.min(text.length, 200);
    const j = this.rows.findIndex((r) => r.depth === 0 && r.frame.dir === 'in' && r.frame.text.slice(0, n) === text.slice(0, n));
    if (j < 0) return false;
    this.#select(this.rows[j]);
    this.list.scrollToIndex(j, 'center');
    return true;
  }

  /** The selected frame (or inner message) as pretty JSON text, or its raw text. */
  selectedJson() {
    const r = this.selected;
    if (!r) return null;
    if (r.msg) return stringifyExact(r.msg, 2);
    const m = parsed(r.frame);
    return m === undefined ? r.frame.text : stringifyExact(m, 2);
  }

  #showDetail() {
    const r = this.selected;
    this.bodyEl?.classList.toggle('has-selection', !!r);
    if (!r) {
      setChildren(this.frameDetail, h('div', { class: 'log-empty muted', text: 'Select a frame to see its JSON. Batches expand into their messages.' }));
      return;
    }
    const f = r.frame;
    const text = this.selectedJson();
    setChildren(this.frameDetail,
      h('div', { class: 'log-detail-head' },
        h('span', { class: 'ftype', text: r.msg ? `${String(r.msg?.type ?? '?')} (message ${r.index} of a batch)` : f.type }),
        h('span', { class: 'muted small', text: `${f.dir === 'in' ? '↓ in' : '↑ out'} · ${clockTime(f.t, { ms: true })} · ${size(f.size)}${f.truncated ? ' · cut' : ''}` }),
        h('button', { type: 'button', class: 'small', 'data-action': 'copy-frame', onclick: () => this.hooks.copy(text, 'frame') }, 'Copy JSON')),
      h('pre', { class: 'json frame-json', text }));
  }
}
