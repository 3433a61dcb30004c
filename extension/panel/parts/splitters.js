// splitters.js: the splitters between the tree and the side pane (beside each other, or the side
// pane under the tree when the panel is narrow, docked right) and above the log, dragged with the
// pointer or moved with the arrow keys; where each was left is remembered by this panel
// (localStorage, which extension pages have). The log also collapses to its toolbar.
// Each is an ARIA separator that says its place (aria-valuenow/min/max: the tree's or the log's
// share of the panel, in percent; aria-valuetext in words), kept up to date as sizes change;
// Home/End take it to its minimum/maximum.

const STORE_KEY = 'slop-panel-layout';
const MIN_PANE = 120;   // px a pane keeps, whatever the drag
const MIN_LOG = 90;
const KEY_STEP = 24;    // px per arrow key

function load() {
  try {
    return JSON.parse(localStorage.getItem(STORE_KEY) ?? '{}') ?? {};
  } catch {
    return {};
  }
}

export class Splitters {
  /**
   * @param {{main: HTMLElement, split: HTMLElement, log: HTMLElement, logSplit: HTMLElement}} els
   *   split: between the tree and the side pane; logSplit: above the log
   */
  constructor(els) {
    this.els = els;
    this.layout = { tree: null, treeRows: null, log: null, logCollapsed: false, ...load() };
    this.#apply();
    this.#drag(els.split, (e, start) => {
      const r = els.main.getBoundingClientRect();
      if (this.#stacked()) this.layout.treeRows = clamp(start.value + (e.clientY - start.y), MIN_PANE, r.height - MIN_PANE);
      else this.layout.tree = clamp(start.value + (e.clientX - start.x), MIN_PANE, r.width - MIN_PANE);
    }, () => (this.#stacked() ? this.#treeSize('height') : this.#treeSize('width')));
    this.#drag(els.logSplit, (e, start) => {
      const max = document.body.clientHeight - 120;
      this.layout.log = clamp(start.value - (e.clientY - start.y), MIN_LOG, max);
      this.layout.logCollapsed = false;
    }, () => els.log.getBoundingClientRect().height);
    for (const el of [els.split, els.logSplit]) el.addEventListener('dblclick', () => this.reset(el));
    // Home/End: the tree (the log) at its smallest or largest.
    this.#ends(els.split, (end) => {
      if (this.#stacked()) this.layout.treeRows = end ? this.#treeMax() : MIN_PANE;
      else this.layout.tree = end ? this.#treeMax() : MIN_PANE;
    });
    this.#ends(els.logSplit, (end) => {
      this.layout.log = end ? document.body.clientHeight - 120 : MIN_LOG;
      this.layout.logCollapsed = false;
    });
    // Sizes change with the window, the panes shown and the log: the values follow whatever moved them.
    new ResizeObserver(() => this.#values()).observe(els.main);
    new ResizeObserver(() => this.#values()).observe(els.log);
    // The panel resized (docked elsewhere): the orientation may change.
    addEventListener('resize', () => this.relayout());
  }

  #ends(el, to) {
    el.addEventListener('keydown', (e) => {
      if (e.key !== 'Home' && e.key !== 'End') return;
      e.preventDefault();
      to(e.key === 'End');
      this.#apply();
      this.#save();
    });
  }

  /** aria-valuenow/min/max (percent of the panel) and aria-valuetext of both splitters. */
  #values() {
    const { main, split, log, logSplit } = this.els;
    const stacked = this.#stacked();
    const total = stacked ? main.clientHeight : main.clientWidth;
    if (total > 0) {
      const tree = this.#treeSize(stacked ? 'height' : 'width');
      setValues(split, tree, MIN_PANE, this.#treeMax(), total,
        (pct) => `Tree ${pct}% of the ${stacked ? 'height' : 'width'} (${Math.round(tree)} px), details ${100 - pct}%`);
    }
    const body = document.body.clientHeight;
    if (!log.hidden && body > 0) {
      const h = log.getBoundingClientRect().height;
      setValues(logSplit, h, MIN_LOG, body - 120, body, (pct) => `Log ${Math.round(h)} px high, ${pct}% of the panel`);
    }
  }

  #stacked() {
    return getComputedStyle(this.els.main).getPropertyValue('--stacked').trim() === '1';
  }

  /** The largest tree: the details keep MIN_PANE beside (under) it, and the splitter its own width. */
  #treeMax() {
    const stacked = this.#stacked();
    const r = this.els.main.getBoundingClientRect();
    const s = this.els.split.getBoundingClientRect();
    return (stacked ? r.height - s.height : r.width - s.width) - MIN_PANE;
  }

  #treeSize(dim) {
    return this.els.main.querySelector('#tree-pane').getBoundingClientRect()[dim];
  }

  /** Pointer drags and arrow keys on a splitter; `move(event, start)` changes the layout. */
  #drag(el, move, current) {
    el.addEventListener('pointerdown', (e) => {
      e.preventDefault();
      el.setPointerCapture(e.pointerId);
      const start = { x: e.clientX, y: e.clientY, value: current() };
      el.classList.add('dragging');
      const onMove = (ev) => { move(ev, start); this.#apply(); };
      const onUp = () => {
        el.classList.remove('dragging');
        el.removeEventListener('pointermove', onMove);
        this.#save();
      };
      el.addEventListener('pointermove', onMove);
      el.addEventListener('pointerup', onUp, { once: true });
      el.addEventListener('pointercancel', onUp, { once: true });
    });
    el.addEventListener('keydown', (e) => {
      const vertical = el.getAttribute('aria-orientation') === 'vertical';
      const d = { ArrowLeft: vertical ? -KEY_STEP : 0, ArrowRight: vertical ? KEY_STEP : 0, ArrowUp: vertical ? 0 : -KEY_STEP, ArrowDown: vertical ? 0 : KEY_STEP }[e.key];
      if (!d) return;
      e.preventDefault();
      const start = { x: 0, y: 0, value: current() };
      move({ clientX: vertical ? d : 0, clientY: vertical ? 0 : d }, start);
      this.#apply();
      this.#save();
    });
  }

  /** Double-click: back to the default size. */
  reset(el) {
    if (el === this.els.split) Object.assign(this.layout, { tree: null, treeRows: null });
    else this.layout.log = null;
    this.#apply();
    this.#save();
  }

  /** The log down to its toolbar, or back. */
  toggleLog(collapsed = !this.layout.logCollapsed) {
    this.layout.logCollapsed = collapsed;
    this.#apply();
    this.#save();
  }

  get logCollapsed() {
    return this.layout.logCollapsed;
  }

  #apply() {
    const { main, log } = this.els;
    const set = (el, name, v) => (v === null || v === undefined ? el.style.removeProperty(name) : el.style.setProperty(name, `${Math.round(v)}px`));
    set(main, '--tree-w', this.layout.tree);
    set(main, '--tree-h', this.layout.treeRows);
    set(document.body, '--log-h', this.layout.log);
    log.classList.toggle('collapsed', !!this.layout.logCollapsed);
    this.els.split.setAttribute('aria-orientation', this.#stacked() ? 'horizontal' : 'vertical');
    this.#values();
  }

  #save() {
    try {
      localStorage.setItem(STORE_KEY, JSON.stringify(this.layout));
    } catch { /* storage full or off: the layout is only not remembered */ }
  }

  /** The panel was resized (docked elsewhere): the orientation may have changed. */
  relayout() {
    this.#apply();
  }
}

function clamp(v, lo, hi) {
  return Math.max(lo, Math.min(Math.max(lo, hi), v));
}

/** A separator's value: `size` px of `total`, between `min` and `max` px, all said in percent. */
function setValues(el, size, min, max, total, words) {
  const pct = (v) => Math.round((clamp(v, 0, total) / total) * 100);
  const now = pct(size);
  const attrs = { 'aria-valuenow': now, 'aria-valuemin': pct(min), 'aria-valuemax': Math.max(pct(min), pct(max)), 'aria-valuetext': words(now) };
  // Only what changed: an unchanged attribute rewritten is still a mutation a screen reader may act on.
  for (const [k, v] of Object.entries(attrs)) if (el.getAttribute(k) !== String(v)) el.setAttribute(k, String(v));
}
