// dom-env.js: a DOM for the panel's view tests (jsdom), installed as the globals the panel's
// modules use in the browser. Import it before the modules under test. jsdom does no layout:
// elements measure 0 px, so the virtual lists fall back to their default height.

import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>', { pretendToBeVisual: true, url: 'chrome-extension://test/panel.html' });
const { window } = dom;

for (const name of ['window', 'document', 'Node', 'HTMLElement', 'Event', 'KeyboardEvent', 'MouseEvent', 'requestAnimationFrame', 'cancelAnimationFrame']) {
  globalThis[name] = name === 'window' ? window : window[name];
}
/** jsdom has no ResizeObserver: nothing resizes without layout. */
globalThis.ResizeObserver = class {
  observe() {}
  disconnect() {}
};

/** A new element attached to the body. */
export function mount(tag = 'div') {
  const el = document.createElement(tag);
  document.body.append(el);
  return el;
}

/** Presses a key on el. */
export function key(el, k, init = {}) {
  el.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, ...init }));
}

/** Types text into an input (as the user would: value, then an input event). */
export function type(input, text) {
  input.value = text;
  input.dispatchEvent(new Event('input', { bubbles: true }));
}

/** Chooses an option of a select by its value. */
export function choose(select, value) {
  select.value = value;
  select.dispatchEvent(new Event('change', { bubbles: true }));
}

export const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));
