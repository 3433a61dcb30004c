// virtual-list.js: a scrolling list of fixed-height rows of which only the visible ones (plus a
// few above and below) are in the DOM. The caller says how many rows there are and builds (or
// returns a cached element for) row i; moving elements in and out is kept to the minimum, so a
// cached row keeps its state (and a running flash animation) while the list scrolls.

export class VirtualList {
  /**
   * @param {HTMLElement} scroller  the element that scrolls (overflow: auto)
   * @param {{rowHeight: number, overscan?: number, renderRow: (i: number) => HTMLElement, onRender?: (first: number, last: number) => void,
   *   onUserScroll?: (top: number) => void}} o
   *   onUserScroll: a scroll this list did not make (the wheel, the scrollbar, a key, scrollIntoView)
   */
  constructor(scroller, { rowHeight, overscan = 8, renderRow, onRender, onUserScroll }) {
    this.scroller = scroller;
    this.rowHeight = rowHeight;
    this.overscan = overscan;
    this.renderRow = renderRow;
    this.onRender = onRender ?? (() => {});
    this.count = 0;
    this.first = 0;
    this.last = 0;
    this.sizer = document.createElement('div');
    this.sizer.className = 'vl-sizer';
    this.layer = document.createElement('div');
    this.layer.className = 'vl-layer';
    this.sizer.append(this.layer);
    scroller.append(this.sizer);
    // The viewport's height and scroll offset are cached: reading them after a DOM change
    // forces a synchronous layout, and render() runs several times a frame during a patch flood.
    this.height = 600;
    this.top = 0;
    let pending = false;
    /** The offset this list last set itself: a scroll event elsewhere is the user's. */
    this.setTop = 0;
    scroller.addEventListener('scroll', () => {
      this.top = scroller.scrollTop;
      if (Math.abs(this.top - this.setTop) > 1) onUserScroll?.(this.top);
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        this.render();
      });
    }, { passive: true });
    new ResizeObserver(() => {
      this.height = scroller.clientHeight || 600;
      this.top = scroller.scrollTop;
      this.render();
    }).observe(scroller);
  }

  setCount(n) {
    if (n < this.count) {
      // The browser clamps the offset when the list gets shorter (its scroll event comes later).
      this.top = Math.max(0, Math.min(this.top, n * this.rowHeight - this.height));
    }
    this.count = n;
    this.sizer.style.height = `${n * this.rowHeight}px`;
  }

  /** Another row height (a denser list): the row at the top stays at the top. */
  setRowHeight(px) {
    const first = this.top / this.rowHeight;
    this.rowHeight = px;
    this.setCount(this.count);
    this.#scrollTo(Math.max(0, Math.min(first * px, this.count * px - this.height)));
  }

  /** The rows that are (or would be) in the DOM now: [first, last). */
  range() {
    const h = this.height;
    const top = this.top;
    const first = Math.max(0, Math.floor(top / this.rowHeight) - this.overscan);
    const last = Math.min(this.count, Math.ceil((top + h) / this.rowHeight) + this.overscan);
    return [first, last];
  }

  render() {
    const [first, last] = this.range();
    this.first = first;
    this.last = last;
    const els = [];
    for (let i = first; i < last; i++) els.push(this.renderRow(i));
    this.layer.style.transform = `translateY(${first * this.rowHeight}px)`;
    // Keyed reconciliation: drop rows that left, then put each row in place (usually a no-op).
    /** @type {Set<Element>} */
    const keep = new Set(els);
    for (const c of [...this.layer.children]) if (!keep.has(c)) c.remove();
    let cur = this.layer.firstChild;
    for (const el of els) {
      if (cur === el) {
        cur = cur.nextSibling;
        continue;
      }
      this.layer.insertBefore(el, cur);
    }
    this.onRender(first, last);
  }

  /** Whether the view shows the end of the list (within `slack` px). */
  atEnd(slack = this.rowHeight * 2) {
    return this.count * this.rowHeight - this.top - this.height < slack;
  }

  /** Scrolls to the end (a log that follows new lines). */
  scrollToEnd() {
    this.#scrollTo(Math.max(0, this.count * this.rowHeight - this.height));
  }

  /** Scrolls to `top` px (clamped), as this list's own move, not the user's. */
  scrollToTop(top) {
    this.#scrollTo(Math.max(0, Math.min(top, this.count * this.rowHeight - this.height)));
  }

  /**
   * The list's own scroll. Setting scrollTop lays the page out at once, so an offset the list
   * already has is not set again (a list held still gets one every update).
   * @param {number} top
   */
  #scrollTo(top) {
    if (top === this.top && top === this.setTop) return;
    this.top = top;
    this.setTop = top;
    this.scroller.scrollTop = top;
  }

  /** Scrolls so row i is visible ('nearest'), or at the top ('start') / middle ('center'). */
  scrollToIndex(i, align = 'nearest') {
    const h = this.height;
    const top = i * this.rowHeight;
    const st = this.top;
    let next = st;
    if (align === 'start') next = top;
    else if (align === 'center') next = top - h / 2 + this.rowHeight / 2;
    else if (top < st) next = top;
    else if (top + this.rowHeight > st + h) next = top + this.rowHeight - h;
    if (next !== st) {
      this.#scrollTo(Math.max(0, next));
      this.top = this.scroller.scrollTop; // as clamped by the browser (a rare forced layout)
      this.setTop = this.top;
      this.render(); // now, not on the scroll event: callers look for the row right away
    }
  }
}
