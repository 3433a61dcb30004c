// cost-timeline.js: the Cost tab's traffic timeline: ops, no-op writes and bytes per second, one
// point per sample (what came since the sample before), drawn with uPlot. Dragging across the
// chart (uPlot's select) limits the tab's measures to that time range; the buttons beside it do
// the same by keyboard (the last 10 or 60 seconds) and clear the range. The chart is a canvas: its
// text alternative is its label (the peaks in words) and the churn table under it.

import uPlot from '/vendor/uplot/dist/uPlot.esm.js';
import { h, setChildren } from '../../shared/dom.js';
import { bytes, dec, perSecond } from './cost-text.js';

const HEIGHT = 150;

/** The uPlot stylesheet, once per page (the panel's CSP allows the extension's own stylesheets). */
function loadStyle() {
  if (document.querySelector('link[data-vendor="uplot"]')) return;
  document.head.append(h('link', { rel: 'stylesheet', href: '/vendor/uplot/dist/uPlot.min.css', 'data-vendor': 'uplot' }));
}

/** A CSS colour of the panel's (a variable, light-dark()) as the canvas needs it: rgb(…). @param {HTMLElement} probe @param {string} css */
function resolve(probe, css) {
  probe.style.color = css;
  return getComputedStyle(probe).color;
}

/**
 * Per second rates from the engine's per-sample deltas (the first sample has no interval: none).
 * @param {{at: number[], ops: number[], noops: number[], bytes: number[]}} t
 * @returns {[number[], (number|null)[], (number|null)[], (number|null)[]]}
 */
export function rates(t) {
  const xs = [], ops = [], noops = [], by = [];
  for (let i = 0; i < t.at.length; i++) {
    const dt = i > 0 ? (t.at[i] - t.at[i - 1]) / 1000 : 0;
    xs.push(t.at[i] / 1000);
    ops.push(dt > 0 ? t.ops[i] / dt : null);
    noops.push(dt > 0 ? t.noops[i] / dt : null);
    by.push(dt > 0 ? t.bytes[i] / dt : null);
  }
  return [xs, ops, noops, by];
}

export class CostTimeline {
  /** @type {uPlot|null} */
  plot = null;
  /** @type {[number, number]|null} the range shown (epoch ms) */
  range = null;
  #colours = '';
  /** @type {any} */
  #last = null;
  /** @type {string[]|null} */
  #palette = null;

  /**
   * @param {HTMLElement} root
   * @param {{setRange: (range: [number, number]|null) => void}} hooks
   */
  constructor(root, hooks) {
    loadStyle();
    this.hooks = hooks;
    this.probe = h('span', { hidden: true });
    this.chart = h('div', { class: 'cost-chart', role: 'img', 'data-role': 'cost-timeline', 'aria-label': 'Traffic timeline: no samples yet.' });
    this.key = h('p', { class: 'cost-key small' },
      h('span', { class: 'swatch s-ops' }), 'ops/s ',
      h('span', { class: 'swatch s-noops' }), 'no-op writes/s ',
      h('span', { class: 'swatch s-bytes' }), 'bytes/s (right axis)');
    this.rangeText = h('span', { class: 'small', 'data-role': 'cost-range' });
    const btn = (text, title, action, fn) => h('button', { type: 'button', class: 'small', title, 'data-action': action, onclick: fn }, text);
    this.clear = btn('Clear range', 'Measure the whole session again (the last 10 s for rates)', 'cost-range-clear', () => this.hooks.setRange(null));
    this.controls = h('div', { class: 'cost-range' },
      btn('Last 10 s', 'Limit the measures to the last 10 seconds sampled', 'cost-range-10', () => this.#last10(10)),
      btn('Last 60 s', 'Limit the measures to the last 60 seconds sampled', 'cost-range-60', () => this.#last10(60)),
      this.clear, this.rangeText);
    root.append(this.probe, this.chart, this.key, this.controls);
    /** The chart's width, from the observer (read during a render it would force a layout). */
    this.width = 0;
    this.resize = new ResizeObserver(([e]) => {
      const w = Math.floor(e.contentBoxSize?.[0]?.inlineSize ?? e.contentRect.width);
      if (w === this.width) return;
      this.width = w;
      if (this.plot && w > 0) this.plot.setSize({ width: w, height: HEIGHT });
      else if (!this.plot && w > 0 && this.#last) this.set(this.#last, this.range);
    });
    this.resize.observe(this.chart);
    // Light or dark: the panel sets data-theme on <html> (theme.js), or the system's scheme applies.
    const retheme = () => {
      this.#palette = null;
      if (this.#last) this.set(this.#last, this.range);
    };
    this.themes = new MutationObserver(retheme);
    this.themes.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    this.scheme = matchMedia('(prefers-color-scheme: dark)');
    this.scheme.addEventListener('change', retheme);
    this.retheme = retheme;
  }

  dispose() {
    this.resize.disconnect();
    this.themes.disconnect();
    this.scheme.removeEventListener('change', this.retheme);
    this.plot?.destroy();
    this.plot = null;
  }

  /** @param {number} s */
  #last10(s) {
    const at = this.#last?.at;
    if (!at?.length) return;
    const end = at[at.length - 1];
    this.hooks.setRange([end - s * 1000, end]);
  }

  /**
   * @param {{at: number[], patches: number[], ops: number[], bytes: number[], noops: number[]}|null} timeline
   * @param {[number, number]|null} range
   */
  set(timeline, range) {
    this.#last = timeline;
    this.range = range;
    this.clear.disabled = !range;
    setChildren(this.rangeText, range ? `Range: ${clock(range[0])} to ${clock(range[1])} (${dec((range[1] - range[0]) / 1000)} s)` : 'Whole session');
    // A rate needs two samples: no chart before them.
    const data = timeline && timeline.at.length > 1 ? rates(timeline) : null;
    this.#label(data);
    const width = this.width;
    if (!data || width <= 0) {
      this.plot?.destroy();
      this.plot = null;
      return;
    }
    // The panel's colours as the canvas needs them, read again only when the theme changed.
    this.#palette ??= ['var(--fg-muted)', 'var(--border)', 'var(--accent)', 'var(--warn)', 'var(--code)', 'var(--bg-hover)'].map((c) => resolve(this.probe, c));
    const colours = this.#palette;
    if (this.plot && colours.join() !== this.#colours) {
      this.plot.destroy();
      this.plot = null;
    }
    this.#colours = colours.join();
    if (!this.plot) this.plot = this.#make(width, colours, data);
    else this.plot.setData(/** @type {any} */ (data));
  }

  /** @param {number} width @param {string[]} c @param {any} data */
  #make(width, [fg, grid, ops, noops, by, band], data) {
    const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 }, font: '11px system-ui, sans-serif' };
    return new uPlot({
      width, height: HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false } },
      scales: { x: { time: true }, rate: { range: (_u, _min, max) => [0, Math.max(1, max)] }, bytes: { range: (_u, _min, max) => [0, Math.max(10, max)] } },
      axes: [
        // The time of day only (uPlot's second line, the date, is cut at a narrow width).
        { ...axis, space: 64, size: 30, values: (_u, vals) => vals.map((v) => clock(v * 1000)) },
        { ...axis, scale: 'rate', size: 40, values: (_u, vals) => vals.map((v) => (v >= 1000 ? `${dec(v / 1000)}k` : String(v))) },
        { ...axis, scale: 'bytes', side: 1, size: 56, grid: { show: false }, values: (_u, vals) => vals.map((v) => bytes(v)) },
      ],
      series: [
        {},
        { label: 'ops/s', scale: 'rate', stroke: ops, width: 1.5 },
        { label: 'no-op writes/s', scale: 'rate', stroke: noops, width: 1.5, dash: [4, 3] },
        { label: 'bytes/s', scale: 'bytes', stroke: by, width: 1, fill: alpha(by, 0.14), points: { show: false } },
      ],
      hooks: {
        setSelect: [(u) => {
          if (u.select.width < 3) return;
          const t0 = u.posToVal(u.select.left, 'x') * 1000;
          const t1 = u.posToVal(u.select.left + u.select.width, 'x') * 1000;
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
          this.hooks.setRange([Math.round(t0), Math.round(t1)]);
        }],
        // The range chosen, as a band behind the lines.
        drawClear: [(u) => {
          if (!this.range) return;
          const x0 = u.valToPos(this.range[0] / 1000, 'x', true), x1 = u.valToPos(this.range[1] / 1000, 'x', true);
          const { top, height } = u.bbox;
          u.ctx.save();
          u.ctx.fillStyle = band;
          u.ctx.fillRect(Math.min(x0, x1), top, Math.abs(x1 - x0), height);
          u.ctx.restore();
        }],
      },
    }, data, this.chart);
  }

  /** The chart's words: the span and the peaks. @param {any[]|null} data */
  #label(data) {
    if (!data) {
      this.chart.setAttribute('aria-label', 'Traffic timeline: no samples yet.');
      return;
    }
    const peak = (/** @type {(number|null)[]} */ xs) => xs.reduce((m, v) => Math.max(m, v ?? 0), 0);
    const span = data[0].length > 1 ? data[0][data[0].length - 1] - data[0][0] : 0;
    this.chart.setAttribute('aria-label', `Traffic timeline over ${dec(span)} s sampled: at most ${perSecond(peak(data[1]), 'ops')}, ` +
      `${perSecond(peak(data[2]), 'no-op writes')}, ${bytes(peak(data[3]))}/s. The churn table below has the numbers per node.`);
  }
}

/** rgb(r, g, b) with an alpha: rgba(r, g, b, a) (what a canvas fill takes). @param {string} rgb @param {number} a */
function alpha(rgb, a) {
  const m = /^rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(rgb);
  return m ? `rgba(${m[1]}, ${m[2]}, ${m[3]}, ${a})` : rgb;
}

/** 14:03:07 @param {number} ms */
function clock(ms) {
  return new Date(ms).toLocaleTimeString('en-GB', { hour12: false });
}
