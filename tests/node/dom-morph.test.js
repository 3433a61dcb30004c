// morph (extension/shared/dom.js): a row rebuilt for a new view keeps its element and those of its
// children of the same shape, and ends up exactly as the new build.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import './dom-env.js';
import { h, morph } from '../../extension/shared/dom.js';

test('morph keeps the element and same-shaped children, and copies attributes and text', () => {
  const old = h('div', { class: 'row a', 'data-key': '/x', title: 'gone' }, h('span', { class: 'nid', text: 'x' }), h('span', { class: 'nsum', text: 'tick 1' }), h('b', { text: 'flag' }));
  const [nid, nsum] = old.children;
  const fresh = h('div', { class: 'row a selected', 'data-key': '/x', 'aria-selected': 'true' }, h('span', { class: 'nid', text: 'x' }), h('span', { class: 'nsum changed', text: 'tick 2' }), h('i', { text: 'other' }), 'tail');
  const want = fresh.outerHTML;
  assert.equal(morph(old, fresh), old);
  assert.equal(old.outerHTML, want, 'exactly what the new build is');
  assert.equal(old.children[0], nid, 'a child of the same tag is kept');
  assert.equal(old.children[1], nsum);
  assert.equal(old.hasAttribute('title'), false, 'an attribute the new build lacks goes');
  // Fewer children: the extra ones go.
  morph(old, h('div', { class: 'row' }, h('span', { text: 'only' })));
  assert.equal(old.outerHTML, '<div class="row"><span>only</span></div>');
  assert.equal(old.firstChild, nid);
});
