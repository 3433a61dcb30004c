// cost-icicle.js: the Cost tab's map: an icicle of the subscription's tree (the root on top, each
// row one depth below, a node as wide as its share of the measure picked), laid out by
// d3-hierarchy's partition and drawn here in SVG. Colour by salience or churn; a node left out of
// the agent view is dashed. The pointer (hover) and the keyboard (a focus moved with the arrows)
// show a node's numbers in the readout under the map; a click, Enter or Space selects the node in
// the tree. The map is a picture for sighted users: its numbers are in the tables below, and the
// readout (a polite live region) says the focused node's.

import { hierarchy, partition } from '/vendor/d3-hierarchy/src/index.js';
import { h, setChildren } from '../../shared/dom.js';
import { int, pct, dec, perSecond, measureText } from './cost-text.js';

const SVG = 'http://www.w3.org/2000/svg';
const ROW_H = 22;
/** A node narrower than this is not drawn alone: its parent's narrow children are one band
 * ("400 small"), which a pointer and the arrow keys can reach. */
const MIN_W = 2;
/** Labels get about this many pixels per character (11 px sans). */
const CHAR_W = 6.4;

/**
 * @typedef {import('/vendor/d3-hierarchy/src/index.js').HierarchyRectangularNode<any>} LaidOut
 * @typedef {{value: number, own: number, path: string|null, id: string, type: string, depth: number,
 *   salience: number|null, churn: number, inView: boolean, other?: true, children: any[]}} HNode
 * @typedef {{g: SVGGElement, rect: SVGRectElement, text: SVGTextElement|null, state: string}} Cell
 */

/**
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag @param {Record<string, string|number>} attrs @returns {SVGElementTagNameMap[K]}
 */
function s(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

export class CostIcicle {
  /** @type {LaidOut[]} every node drawn, in pre-order */
  nodes = [];
  /** The focused node (keyboard), by its key (path, or the parent's path and id of an "other"). @type {string|null} */
  focusKey = null;
  /** The node selected in the tree. @type {string|null} */
  selected = null;
  /** @type {LaidOut|null} */
  #hover = null;
  /** @type {HNode|null} */
  #data = null;
  #by = 'tokens';
  #colour = 'salience';
  #maxChurn = 0;
  #complete = true;
  /** @type {Map<string, LaidOut>} the drawn nodes by key */
  #byKey = new Map();
  /** @type {SVGSVGElement|null} */
  #svg = null;
  /** @type {Map<string, Cell>} the cells drawn, by key */
  #cells = new Map();
  /** @type {Map<string, any>} path → the report's subtree row (more numbers for the readout) */
  #rows = new Map();

  /**
   * @param {HTMLElement} root
   * @param {{select: (path: string) => void}} hooks
   */
  constructor(root, hooks) {
    this.hooks = hooks;
    this.box = h('div', {
      class: 'cost-map', tabindex: 0, role: 'group', 'data-role': 'cost-map',
      'aria-label': 'Cost map of the tree. Arrow keys move between nodes (up: parent, down: largest child, left and right: neighbours), Enter selects the node in the tree.',
      onkeydown: (e) => this.#key(e),
      onfocus: () => { if (!this.focusKey && this.nodes[0]) this.#focus(this.nodes[0]); },
      onmouseleave: () => { this.#hover = null; this.#say(); },
      // One listener for every cell (a map has up to 1,500): the cell is the <g> under the pointer.
      onmouseover: (e) => {
        const n = this.#cellAt(e.target);
        if (n && n !== this.#hover) { this.#hover = n; this.#say(); }
      },
      onclick: (e) => {
        const n = this.#cellAt(e.target);
        if (!n) return;
        this.#focus(n, false);
        if (n.data.path) this.hooks.select(n.data.path);
      },
      onblur: () => this.#mark(),
    });
    this.readout = h('p', { class: 'cost-readout', 'data-role': 'cost-readout', 'aria-live': 'polite' });
    root.append(this.box, this.readout);
    /** The map's width, from the observer (read during a draw it would force a layout). */
    this.width = 0;
    this.resize = new ResizeObserver(([e]) => {
      const w = Math.floor(e.contentBoxSize?.[0]?.inlineSize ?? e.contentRect.width);
      if (w !== this.width) {
        this.width = w;
        this.draw();
      }
    });
    this.resize.observe(this.box);
  }

  dispose() {
    this.resize.disconnect();
  }

  /**
   * @param {HNode|null} data  the worker's hierarchy
   * @param {{by: string, colour: string, complete: boolean, rows: any[]}} o
   */
  set(data, { by, colour, complete, rows }) {
    this.#data = data;
    this.#by = by;
    this.#colour = colour;
    this.#complete = complete;
    this.#rows = new Map(rows.map((r) => [r.path, r]));
    this.draw();
  }

  /** @param {string|null} path */
  setSelected(path) {
    if (path === this.selected) return;
    this.selected = path;
    this.draw();
  }

  draw() {
    const data = this.#data;
    if (!data || !(data.value > 0) || this.width <= 0) {
      this.nodes = [];
      this.#svg = null;
      this.#cells.clear();
      setChildren(this.box, h('p', { class: 'empty small', text: data ? 'Nothing to draw: the measure is 0 everywhere.' : '' }));
      this.#say();
      return;
    }
    const root = hierarchy(data, (d) => d.children);
    root.each((n) => { n.value = Math.max(0, n.data.value); });
    root.sort((a, b) => (b.value ?? 0) - (a.value ?? 0));
    const H = (root.height + 1) * ROW_H;
    const laid = partition().size([this.width, H])(root);
    this.#maxChurn = 0;
    laid.each((n) => { this.#maxChurn = Math.max(this.#maxChurn, n.data.churn ?? 0); });
    this.nodes = laid.descendants().filter((n) => n.x1 - n.x0 >= MIN_W);
    this.nodes.push(...bandsOf(this.nodes));
    // The cells are kept from one state to the next (found by key) and only what changed is set:
    // a second's patches move a few cells, not the map.
    let svg = this.#svg;
    if (!svg || svg.parentNode !== this.box) {
      svg = this.#svg = s('svg', { 'aria-hidden': 'true', class: 'cost-svg' });
      this.#cells.clear();
      setChildren(this.box, svg);
    }
    const size = `${this.width} ${H}`;
    if (svg.getAttribute('data-size') !== size) {
      for (const [k, v] of [['width', this.width], ['height', H], ['viewBox', `0 0 ${size}`], ['data-size', size]]) svg.setAttribute(String(k), String(v));
    }
    this.#byKey = new Map();
    for (const n of this.nodes) {
      const key = keyOf(n);
      this.#byKey.set(key, n);
      let c = this.#cells.get(key);
      if (!c) {
        const g = s('g', { class: 'cost-cell', 'data-key': key });
        if (n.data.path) g.setAttribute('data-path', n.data.path);
        c = { g, rect: s('rect', { height: ROW_H - 1 }), text: null, state: '' };
        g.append(c.rect);
        svg.append(g);
        this.#cells.set(key, c);
      }
      this.#cell(c, n);
    }
    for (const [key, c] of this.#cells) {
      if (!this.#byKey.has(key)) {
        c.g.remove();
        this.#cells.delete(key);
      }
    }
    // The focus and the hover follow their node through a redraw (found by key again).
    if (this.focusKey && !this.#byKey.has(this.focusKey)) this.focusKey = null;
    if (this.#hover) this.#hover = this.#byKey.get(keyOf(/** @type {LaidOut} */ (this.#hover))) ?? null;
    this.#mark();
    this.#say();
  }

  /** Sets a cell to its node: place, width, colour, marks and label, when they changed. @param {Cell} c @param {LaidOut} n */
  #cell(c, n) {
    const d = n.data;
    const w = n.x1 - n.x0;
    const chars = Math.floor((w - 8) / CHAR_W);
    let label = '';
    if (chars >= 3) {
      const name = d.other ? d.id : n.depth === 0 ? (d.id || d.type || '/') : d.id;
      const full = w > 150 ? `${name} · ${shortValue(this.#by, d.value)}` : name;
      label = full.length > chars ? `${full.slice(0, Math.max(1, chars - 1))}…` : full;
    }
    // A thin cell has no gap: many small siblings read as one band, not as nothing. Half pixels:
    // a value that grew a little moves no cell (and sets no attribute).
    const x = half(n.x0);
    const width = half(w >= 4 ? w - 1 : w + 0.6);
    const fill = this.#fill(d);
    const cls = `${w < 4 ? 'thin ' : ''}${d.inView ? '' : 'cut '}${d.other ? 'other' : ''}`.trim();
    const state = `${x} ${n.y0} ${width} ${fill} ${cls} ${label}`;
    if (state === c.state) return;
    c.state = state;
    c.g.setAttribute('transform', `translate(${x},${n.y0})`);
    c.rect.setAttribute('width', String(width));
    c.rect.setAttribute('rx', w >= 4 ? '2' : '0');
    c.rect.style.fill = fill;
    c.rect.setAttribute('class', cls);
    if (label) {
      if (!c.text) {
        c.text = s('text', { x: 4, y: ROW_H / 2 + 4 });
        c.g.append(c.text);
      }
      if (c.text.textContent !== label) c.text.textContent = label;
    } else if (c.text) {
      c.text.remove();
      c.text = null;
    }
  }

  /** The drawn node of the cell an event hit. @param {EventTarget|null} target */
  #cellAt(target) {
    const g = /** @type {Element} */ (target)?.closest?.('g.cost-cell');
    return g ? this.#byKey.get(g.getAttribute('data-key') ?? '') ?? null : null;
  }

  /** The fill: the accent for salience, the warning colour for churn; grey when it says nothing. @param {HNode} d */
  #fill(d) {
    if (d.other) return 'color-mix(in srgb, var(--fg-muted) 24%, var(--bg))';
    if (this.#colour === 'churn') {
      const c = d.churn ?? 0;
      if (!(c > 0) || !(this.#maxChurn > 0)) return 'color-mix(in srgb, var(--fg-muted) 20%, var(--bg))';
      const k = Math.log1p(c) / Math.log1p(this.#maxChurn);
      return `color-mix(in srgb, var(--warn) ${Math.round(14 + 36 * k)}%, var(--bg))`;
    }
    if (d.salience === null || d.salience === undefined) return 'color-mix(in srgb, var(--fg-muted) 20%, var(--bg))';
    const k = Math.max(0, Math.min(1, d.salience));
    return `color-mix(in srgb, var(--accent) ${Math.round(10 + 40 * k)}%, var(--bg))`;
  }

  /** Marks the focused and the selected node. */
  #mark() {
    const focused = this.box.matches(':focus-within') ? this.focusKey : null;
    for (const [key, c] of this.#cells) {
      const f = key === focused, sel = this.selected !== null && key === this.selected;
      if (c.g.classList.contains('focused') !== f) c.g.classList.toggle('focused', f);
      if (c.g.classList.contains('selected') !== sel) c.g.classList.toggle('selected', sel);
    }
  }

  /** @param {LaidOut} n @param {boolean} [scroll] */
  #focus(n, scroll = true) {
    this.focusKey = keyOf(n);
    this.#mark();
    this.#say(n);
    if (scroll) {
      const g = this.box.querySelector(`g.cost-cell[data-key="${CSS.escape(this.focusKey)}"]`);
      /** @type {Element|null} */ (g)?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
    }
  }

  /** @param {KeyboardEvent} e */
  #key(e) {
    if (e.altKey || e.ctrlKey || e.metaKey || !this.nodes.length) return;
    const cur = this.nodes.find((n) => keyOf(n) === this.focusKey) ?? this.nodes[0];
    let next = null;
    if (e.key === 'ArrowUp') next = cur.parent && this.nodes.includes(cur.parent) ? cur.parent : null;
    else if (e.key === 'ArrowDown') next = this.nodes.find((n) => n.parent === cur) ?? null;
    else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      const row = this.nodes.filter((n) => n.depth === cur.depth).sort((a, b) => a.x0 - b.x0);
      next = row[row.indexOf(cur) + (e.key === 'ArrowLeft' ? -1 : 1)] ?? null;
    } else if (e.key === 'Home') next = this.nodes[0];
    else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      e.stopPropagation();
      if (cur.data.path) this.hooks.select(cur.data.path);
      this.#focus(cur, false);
      return;
    } else return;
    e.preventDefault();
    e.stopPropagation(); // the map's keys, not also the panel's
    this.#focus(next ?? cur);
  }

  /** The readout: the hovered node, else the focused one, else the root. @param {LaidOut} [n] */
  #say(n) {
    const node = n ?? this.#hover ?? this.nodes.find((x) => keyOf(x) === this.focusKey) ?? this.nodes[0] ?? null;
    if (!node) return setChildren(this.readout, '');
    const d = node.data;
    const total = this.nodes[0].data.value;
    const row = d.path ? this.#rows.get(d.path) : null;
    const partial = !this.#complete && (this.#by === 'tokens' || this.#by === 'tools') ? ' so far' : '';
    const parts = [
      `${measureText(this.#by, d.value)}${partial}`,
      total > 0 && node.depth > 0 ? `${pct(d.value / total)} of the whole` : null,
      d.children?.length ? `own ${int(d.own)}` : null,
      row && this.#by !== 'tokens' ? `${int(row.tokens)} tokens` : null,
      row ? `${int(row.chars)} characters` : null,
      row && this.#by !== 'bytes' ? `${int(row.bytes)} bytes` : null,
      row && this.#by !== 'nodes' ? `${int(row.nodes)} nodes` : null,
      d.salience !== null && d.salience !== undefined ? `salience ${dec(d.salience)}` : 'no salience',
      perSecond(d.churn ?? 0, 'ops'),
      d.inView ? null : 'left out of the agent view',
    ].filter(Boolean);
    setChildren(this.readout,
      h('strong', { class: 'mono', text: d.other ? `${d.id} under ${node.parent?.data.path ?? '/'}` : (d.path ?? d.id) }),
      h('span', { class: 'muted', text: d.type && !d.other ? ` ${d.type}` : '' }),
      ': ', parts.join(', '), '.');
  }
}

/**
 * The children too narrow to draw one by one (400 messages in 300 px), drawn as one band per
 * parent: "(400 small)", their values summed (they are the last children: sorted by value).
 * @param {LaidOut[]} drawn @returns {LaidOut[]}
 */
function bandsOf(drawn) {
  const set = new Set(drawn);
  const out = [];
  for (const n of drawn) {
    const small = (n.children ?? []).filter((c) => !set.has(c));
    if (!small.length) continue;
    let x0 = Infinity, x1 = -Infinity, value = 0, churn = 0, inView = false;
    for (const c of small) {
      x0 = Math.min(x0, c.x0);
      x1 = Math.max(x1, c.x1);
      value += c.data.value;
      churn += c.data.churn ?? 0;
      inView ||= c.data.inView;
    }
    if (x1 - x0 < MIN_W) continue;
    out.push(/** @type {LaidOut} */ (/** @type {unknown} */ ({
      data: { path: null, id: `(${small.length} small)`, type: '', depth: n.depth + 1, salience: null, value, own: value, churn, inView, other: true, children: [] },
      depth: n.depth + 1, x0, x1, y0: small[0].y0, y1: small[0].y1, parent: n, height: 0,
    })));
  }
  return out;
}

/** A node's key in the map: its path, or (an "other" node) its parent's path and its id. @param {LaidOut} n */
function keyOf(n) {
  return n.data.path ?? `${n.parent?.data.path ?? ''}\u0000${n.data.id}`;
}

/** To the half pixel. @param {number} v */
const half = (v) => Math.round(v * 2) / 2;

/** The value on a wide cell: short. @param {string} by @param {number} v */
function shortValue(by, v) {
  if (by === 'bytes') return v < 1024 ? `${v} B` : `${dec(v / 1024)} KiB`;
  return int(v);
}
