// exact-views.js: node views with the provider's own numbers. The worker sends a view that holds a
// number JavaScript would write otherwise (-0, 1.50, a 64-bit integer) with its text; the panel
// reads it once (exactView) and shows or writes out the numbers as the provider wrote them
// (verbatimView). Moved out of store.js, which reads the views it is sent through exactView.

import { parseExact, parseVerbatim, ODD_NUMBER } from '../../js-glue/exact-json.js';
/**
 * view → its text, or that text read verbatim, for the views that may hold a number JavaScript
 * would write otherwise (-0, 1.50, a 64-bit integer): what the detail shows and copies hand out.
 * @type {WeakMap<object, string|object>}
 */
const verbatimOf = new WeakMap();

/** A view as the worker sent it, or read from its own text when it came with one (node-views.js). */
export const exactView = (n) => {
  if (typeof n?.exact !== 'string') return n;
  const v = parseExact(n.exact);
  verbatimOf.set(v, n.exact);
  return v;
};

/**
 * The view to show or write out: its numbers as the provider wrote them, read from the core's
 * text (exact-json.js parseVerbatim). The view itself when every number reads back the same.
 * @template T @param {T} view @returns {T}
 */
export function verbatimView(view) {
  const t = view && typeof view === 'object' ? verbatimOf.get(view) : undefined;
  if (t === undefined) return view;
  if (typeof t !== 'string') return /** @type {T} */ (t);
  const v = parseVerbatim(t);
  verbatimOf.set(/** @type {object} */ (view), v);
  return v;
}

/**
 * The views of a tree delta's `views` text (one parse), each read verbatim too when the text holds
 * a number JavaScript would write otherwise.
 * @param {string} text @returns {any[]}
 */
export function exactViews(text) {
  const nodes = parseExact(text);
  if (ODD_NUMBER.test(text)) {
    const verbatim = parseVerbatim(text);
    nodes.forEach((n, i) => verbatimOf.set(n, verbatim[i]));
  }
  return nodes;
}
