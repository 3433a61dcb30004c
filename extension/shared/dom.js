// dom.js: building DOM without HTML strings. Provider strings are untrusted: they only ever
// become text nodes or attribute values (never innerHTML).

/**
 * h('button', {class: 'primary', onclick: fn, 'data-x': 1, title: 't'}, 'Label', otherNode)
 * Keys: class, text (textContent), on<event> (listener), hidden/disabled/checked/value
 * (properties), anything else → setAttribute. Children: nodes, strings (text), null/false (skipped).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag @param {Record<string, any>|null} [attrs] @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = String(v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'style') el.style.cssText = String(v); // CSSOM: not subject to style-src
    else if (k === 'hidden' || k === 'disabled' || k === 'checked' || k === 'value') Object.assign(el, { [k]: v });
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

/** @typedef {Node|string|number|boolean|null|undefined} ChildItem */
/** @typedef {ChildItem|Array<ChildItem|ChildItem[]>} Child  what h() and setChildren() take (arrays are spread) */

/** @param {Element} el @param {Child[]} children */
function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/**
 * Replaces all children of el.
 * @template {Element} E
 * @param {E} el @param {...Child} children @returns {E}
 */
export function setChildren(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * Tabs: the buttons with data-tab in `bar` choose which elements show. show(tab) marks its
 * button (class "active"; aria-selected when the buttons are role="tab"), shows the elements
 * listed under that tab and hides those of the others, then calls onShow(tab). A click on a
 * button shows its tab.
 */
export class Tabs {
  /**
   * @param {HTMLElement} bar
   * @param {Record<string, HTMLElement[]>} panes   tab → the elements shown with it
   * @param {(tab: string) => void} [onShow]
   */
  constructor(bar, panes, onShow = () => {}) {
    this.bar = bar;
    this.panes = panes;
    this.onShow = onShow;
    bar.addEventListener('click', (e) => {
      const b = /** @type {Element} */ (e.target).closest?.('button[data-tab]');
      if (b && bar.contains(b)) this.show(/** @type {HTMLElement} */ (b).dataset.tab);
    });
  }

  /** @param {string} tab */
  show(tab) {
    for (const b of this.bar.querySelectorAll('button[data-tab]')) {
      const on = /** @type {HTMLElement} */ (b).dataset.tab === tab;
      b.classList.toggle('active', on);
      if (b.getAttribute('role') === 'tab') b.setAttribute('aria-selected', String(on));
    }
    const shown = new Set(this.panes[tab] ?? []);
    for (const els of Object.values(this.panes)) for (const el of els) el.hidden = !shown.has(el);
    this.onShow(tab);
  }
}
