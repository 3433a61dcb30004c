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
 * With role="tab" buttons, the ARIA practices' tabs: each tab has an id and aria-controls its
 * panel (the first element listed for it: role="tabpanel", aria-labelledby the tab); only the
 * selected tab is a Tab stop (roving tabindex), and ←/→, Home/End move to a tab and select it
 * (automatic activation: showing a tab is cheap).
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
    if (this.#tabs().length === 0) return;
    for (const b of this.#tabs()) {
      const tab = b.dataset.tab;
      const panel = panes[tab]?.[0];
      if (!b.id) b.id = `${bar.id || 'tabs'}-${tab}`;
      if (!panel) continue;
      if (!panel.id) panel.id = `${b.id}-panel`;
      b.setAttribute('aria-controls', panel.id);
      panel.setAttribute('role', 'tabpanel');
      // The tab names its panel; a name the panel had (the detail's "Tab reaches its actions…")
      // is kept as its description, since aria-labelledby would silently override it.
      const own = panel.getAttribute('aria-label');
      if (own) {
        panel.setAttribute('aria-description', own);
        panel.removeAttribute('aria-label');
      }
      panel.setAttribute('aria-labelledby', b.id);
    }
    bar.addEventListener('keydown', (e) => {
      const tabs = this.#tabs().filter((b) => !b.hidden && !b.disabled);
      const i = tabs.indexOf(/** @type {HTMLButtonElement} */ (e.target));
      if (i < 0 || e.altKey || e.ctrlKey || e.metaKey) return;
      const j = { ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: tabs.length - 1 }[e.key];
      if (j === undefined) return;
      e.preventDefault();
      e.stopPropagation(); // handled: not also a key of the panel (panel.js listens on the document)
      const next = tabs[(j + tabs.length) % tabs.length];
      this.show(next.dataset.tab);
      next.focus();
    });
  }

  /** The role="tab" buttons, or none when this bar is plain buttons. @returns {HTMLButtonElement[]} */
  #tabs() {
    return [...this.bar.querySelectorAll('button[data-tab][role="tab"]')].map((b) => /** @type {HTMLButtonElement} */ (b));
  }

  /** @param {string} tab */
  show(tab) {
    for (const b of this.bar.querySelectorAll('button[data-tab]')) {
      const on = /** @type {HTMLElement} */ (b).dataset.tab === tab;
      b.classList.toggle('active', on);
      if (b.getAttribute('role') === 'tab') {
        b.setAttribute('aria-selected', String(on));
        /** @type {HTMLElement} */ (b).tabIndex = on ? 0 : -1; // roving: Tab goes past the tab list to its panel
      }
    }
    const shown = new Set(this.panes[tab] ?? []);
    for (const els of Object.values(this.panes)) for (const el of els) el.hidden = !shown.has(el);
    this.onShow(tab);
  }
}

/** Attributes that name a control across re-renders, most telling first (keepFocus). */
const IDENTITY = ['data-action', 'data-role', 'data-ppath', 'data-tool', 'data-action-name', 'data-section', 'data-path', 'data-key', 'id'];

/** One step of a selector that finds `el` again among its parent's new children. @param {Element} el */
function stepOf(el) {
  const tag = el.tagName.toLowerCase();
  for (const a of IDENTITY) {
    const v = el.getAttribute(a);
    if (v !== null) return `${tag}[${a}="${v.replace(/["\\]/g, '\\$&')}"]`;
  }
  const same = [...(el.parentElement?.children ?? [])].filter((c) => c.tagName === el.tagName);
  return `${tag}:nth-of-type(${same.indexOf(el) + 1})`;
}

/**
 * Runs render(), which may rebuild what is inside root, and gives the focus back to the control
 * that had it: the same element if it survived, else the one in its place (found by its
 * data-action, data-role, … or its position). A control that is gone passes the focus to its
 * nearest surviving container, and onLost(el) is told (to say so in words). A live update must
 * never drop a keyboard user's focus on <body>.
 * @param {HTMLElement} root @param {() => void} render @param {(gone: HTMLElement) => void} [onLost]
 */
export function keepFocus(root, render, onLost) {
  const a = document.activeElement;
  if (!(a instanceof HTMLElement) || a === root || !root.contains(a)) {
    render();
    return;
  }
  const chain = [];
  for (let el = /** @type {Element|null} */ (a); el && el !== root; el = el.parentElement) chain.unshift(stepOf(el));
  render();
  if (a.isConnected && root.contains(a)) return;
  for (let n = chain.length; n > 0; n--) {
    let found = null;
    try {
      found = /** @type {HTMLElement|null} */ (root.querySelector(`:scope > ${chain.slice(0, n).join(' > ')}`));
    } catch { /* an odd attribute value: fall back to a shorter chain */ }
    if (!found) continue;
    if (n === chain.length) {
      found.focus({ preventScroll: true });
      if (document.activeElement === found) return;
      continue; // something else in its place, which takes no focus: the control is gone
    }
    if (found.tabIndex < 0 && !found.hasAttribute('tabindex')) found.setAttribute('tabindex', '-1');
    found.focus({ preventScroll: true });
    onLost?.(a);
    return;
  }
  if (root.tabIndex < 0 && !root.hasAttribute('tabindex')) root.setAttribute('tabindex', '-1');
  root.focus({ preventScroll: true });
  onLost?.(a);
}

/**
 * Keeps Tab and Shift+Tab inside a modal container, cycling (a native modal dialog lets Tab leave
 * it for the browser's own UI: the ARIA practices' dialog keeps it).
 * @param {HTMLElement} container
 */
export function trapFocus(container) {
  container.addEventListener('keydown', (e) => {
    if (e.key !== 'Tab' || e.altKey || e.ctrlKey || e.metaKey) return;
    const focusable = /** @type {HTMLElement[]} */ ([...container.querySelectorAll('button, [href], input, select, textarea, summary, [tabindex]')]
      .filter((el) => el instanceof HTMLElement && el.tabIndex >= 0 && !el.hasAttribute('disabled') && el.getClientRects().length > 0));
    if (!focusable.length) return;
    const first = focusable[0], last = focusable[focusable.length - 1];
    const at = document.activeElement;
    if (e.shiftKey ? at === first || !container.contains(at) : at === last || !container.contains(at)) {
      (e.shiftKey ? last : first).focus();
      e.preventDefault();
    }
  });
}

/**
 * Makes `old` look like `fresh` while keeping `old` (and every descendant of the same shape) in the
 * document: attributes are copied, text nodes take the new text, children of another tag are
 * swapped. A live list rebuilds a row whenever its node changes; replacing the element would break
 * a press in progress (the press ends on a new element, so the click goes to the list) and
 * Playwright's actionability checks ("element was detached"). Only for elements whose behaviour is
 * delegated to a container: listeners and properties set on `fresh`'s kept elements are not moved.
 * `fresh` is emptied. Returns `old`.
 * @template {Element} E @param {E} old @param {Element} fresh @returns {E}
 */
export function morph(old, fresh) {
  for (const a of [...old.attributes]) if (!fresh.hasAttribute(a.name)) old.removeAttribute(a.name);
  for (const a of fresh.attributes) if (old.getAttribute(a.name) !== a.value) old.setAttribute(a.name, a.value);
  const olds = old.childNodes;
  const news = [...fresh.childNodes];
  news.forEach((f, i) => {
    const o = olds[i];
    if (!o) old.append(f);
    else if (o.nodeType === Node.TEXT_NODE && f.nodeType === Node.TEXT_NODE) {
      if (/** @type {Text} */ (o).data !== /** @type {Text} */ (f).data) /** @type {Text} */ (o).data = /** @type {Text} */ (f).data;
    } else if (o.nodeType === Node.ELEMENT_NODE && o.nodeName === f.nodeName) morph(/** @type {Element} */ (o), /** @type {Element} */ (f));
    else old.replaceChild(f, o);
  });
  while (olds.length > news.length) old.lastChild?.remove();
  return old;
}
