// dom.js: building DOM without HTML strings. Provider strings are untrusted: they only ever
// become text nodes or attribute values (never innerHTML).

/**
 * h('button', {class: 'primary', onclick: fn, 'data-x': 1, title: 't'}, 'Label', otherNode)
 * Keys: class, text (textContent), on<event> (listener), hidden/disabled/checked/value
 * (properties), anything else → setAttribute. Children: nodes, strings (text), null/false (skipped).
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = String(v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'style') el.style.cssText = String(v); // CSSOM: not subject to style-src
    else if (k === 'hidden' || k === 'disabled' || k === 'checked' || k === 'value') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces all children of el. */
export function setChildren(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}
