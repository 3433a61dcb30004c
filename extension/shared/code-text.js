// code-text.js: a message that names a command in backticks ("paste the code `slop-inspector
// bridge` prints", as the worker writes it) shown with the command as <code>, never with the
// backticks themselves. Built with h(): the text is never parsed as HTML.

import { h, setChildren } from './dom.js';

/**
 * The text as nodes: each `…` span a <code>, the rest text; a lone backtick stays as it is.
 * @param {string} text @returns {Array<string|HTMLElement>}
 */
export function codeText(text) {
  const out = [];
  const re = /`([^`\n]+)`/g;
  let at = 0;
  for (const m of String(text).matchAll(re)) {
    if (m.index > at) out.push(text.slice(at, m.index));
    out.push(h('code', { text: m[1] }));
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/** el's content becomes text, its `…` spans as <code>. @param {Element} el @param {string} text */
export function setCodeText(el, text) {
  setChildren(el, codeText(text ?? ''));
}
