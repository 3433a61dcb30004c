// code-text.js: a message naming a command in backticks shows it as <code>, never the backticks,
// and never parses anything as HTML (issue 45).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mount } from './dom-env.js';
import { setCodeText } from '../../extension/shared/code-text.js';

test('`…` spans become <code>; the rest stays text; no backtick is left', () => {
  const el = mount('p');
  setCodeText(el, 'On, but no pairing code is saved: paste the one `slop-inspector bridge` prints (or `--print-code`).');
  assert.equal(el.textContent, 'On, but no pairing code is saved: paste the one slop-inspector bridge prints (or --print-code).');
  assert.deepEqual([...el.querySelectorAll('code')].map((c) => c.textContent), ['slop-inspector bridge', '--print-code']);
});

test('markup in a message is text; a message without backticks is unchanged; set again replaces', () => {
  const el = mount('p');
  setCodeText(el, 'a `<b>x</b>` and <i>y</i>');
  assert.equal(el.querySelector('b'), null);
  assert.equal(el.querySelector('i'), null);
  assert.equal(el.querySelector('code').textContent, '<b>x</b>');
  setCodeText(el, 'plain');
  assert.equal(el.innerHTML, 'plain');
});
