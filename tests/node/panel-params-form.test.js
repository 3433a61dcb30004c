// The invoke form generated from an affordance's params schema (extension/panel/views/params-form.js),
// in a DOM (jsdom): the fields a schema gives, the value they read back, the raw JSON editor, and
// where the core's failures (paths as data) land.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mount, type, choose } from './dom-env.js';
import { ParamsForm } from '../../extension/panel/views/params-form.js';

const SCHEMA = {
  type: 'object',
  properties: {
    note: { type: 'string' },
    title: { type: 'string', description: 'Shown on top' },
    count: { type: 'integer' },
    ratio: { type: 'number' },
    done: { type: 'boolean' },
    color: { enum: ['red', 'green'] },
    tags: { type: 'array', items: { type: 'string' } },
    when: { type: 'object', properties: { day: { type: 'string' } } },
    'a b': { type: 'string' },
    anything: {},
    body: { type: 'string' },
  },
  required: ['title', 'count'],
};

function form(schema = SCHEMA, o) {
  const f = new ParamsForm(schema, o);
  mount().append(f.el);
  return f;
}

const field = (f, ppath) => f.el.querySelector(`.pf-field[data-ppath='${ppath}']`);
const control = (f, ppath) => f.el.querySelector(`[data-ppath='${ppath}']:is(input, select, textarea)`);
const errorOf = (f, ppath) => field(f, ppath).querySelector(':scope > .pf-error').textContent;
const topError = (f) => f.el.querySelector('.pf-top-error').textContent;
const invalid = (f) => [...f.el.querySelectorAll('.pf-field.invalid')].map((el) => el.dataset.ppath);
const addItem = (f, ppath) => field(f, ppath).querySelector('[data-action="add-item"]').click();

test('a field per member, of the kind its schema says; required members first', () => {
  const f = form();
  const members = [...f.el.querySelectorAll('.pf-root > .pf-members > .pf-field')].map((el) => el.dataset.ppath);
  assert.deepEqual(members, ['params.title', 'params.count', 'params.note', 'params.ratio', 'params.done', 'params.color',
    'params.tags', 'params.when', 'params["a b"]', 'params.anything', 'params.body']);
  assert.equal(control(f, 'params.title').type, 'text');
  assert.equal(control(f, 'params.count').getAttribute('inputmode'), 'numeric');
  assert.equal(control(f, 'params.ratio').getAttribute('inputmode'), 'decimal');
  assert.deepEqual([...control(f, 'params.done').options].map((o) => o.value), ['', 'true', 'false']);
  assert.deepEqual([...control(f, 'params.color').options].map((o) => o.textContent), ['— not set —', 'red', 'green']);
  assert.equal(control(f, 'params.body').tagName, 'TEXTAREA', 'a body is written on several lines');
  assert.equal(control(f, 'params.anything').tagName, 'TEXTAREA', 'no type: a JSON value');
  assert.ok(field(f, 'params.when').querySelector('fieldset [data-ppath="params.when.day"]'), 'a nested object is a fieldset');
  const req = [...f.el.querySelectorAll('.pf-req')].map((el) => el.closest('.pf-field').dataset.ppath);
  assert.deepEqual(req, ['params.title', 'params.count']);
  assert.equal(field(f, 'params.title').querySelector('.pf-desc').textContent, 'Shown on top');
  assert.equal(field(f, 'params.tags').querySelector('.pf-type').textContent, 'array of string');
  assert.equal(f.el.dataset.mode, 'form');
});

test('the value read back: typed values, members left blank are left out', () => {
  const changes = [];
  const f = form(SCHEMA, { onChange: () => changes.push(1) });
  assert.deepEqual(f.value(), { ok: true, value: {} });
  type(control(f, 'params.title'), 'Hi');
  type(control(f, 'params.count'), '3');
  type(control(f, 'params.ratio'), '-0.5e1');
  choose(control(f, 'params.done'), 'false');
  choose(control(f, 'params.color'), '1');
  addItem(f, 'params.tags');
  addItem(f, 'params.tags');
  type(control(f, 'params.tags[0]'), 'a');
  type(control(f, 'params.tags[1]'), 'b');
  type(control(f, 'params.when.day'), 'mon');
  type(control(f, 'params["a b"]'), 'spaced');
  type(control(f, 'params.anything'), '{"x": [1, 2]}');
  assert.deepEqual(f.value(), {
    ok: true,
    value: { title: 'Hi', count: 3, ratio: -5, done: false, color: 'green', tags: ['a', 'b'], when: { day: 'mon' }, 'a b': 'spaced', anything: { x: [1, 2] } },
  });
  assert.ok(changes.length >= 10, 'every edit is reported');
});

test('what does not read as its type is sent as typed, for the core to report', () => {
  const f = form();
  type(control(f, 'params.count'), '3 apples');
  type(control(f, 'params.anything'), 'not json');
  assert.deepEqual(f.value().value, { count: '3 apples', anything: 'not json' });
});

test('defaults fill the fields', () => {
  const f = form({ type: 'object', properties: { n: { type: 'number', default: 2 }, on: { type: 'boolean', default: true }, c: { enum: ['x', 'y'], default: 'y' } } });
  assert.deepEqual(f.value().value, { n: 2, on: true, c: 'y' });
});

/** A failure as the core reports it: its path as data, and its message. */
const failure = (path, message) => ({ code: 'type', path, message });

test('each failure goes under the field at its path (the longest prefix), else on top', () => {
  const f = form();
  addItem(f, 'params.tags');
  addItem(f, 'params.tags');
  f.showError([failure(['tags', 1], 'params.tags[1] must be a string')]);
  assert.equal(errorOf(f, 'params.tags[1]'), 'Tags item 2 must be a string', 'in the form\'s words, not the core\'s path');
  assert.equal(errorOf(f, 'params.tags'), '');
  assert.deepEqual(invalid(f), ['params.tags[1]']);
  assert.equal(topError(f), '');

  f.showError([failure(['when', 'day'], 'params.when.day must be a string')]);
  assert.deepEqual(invalid(f), ['params.when.day'], 'the previous failure is gone');
  f.showError([failure(['a b'], 'params["a b"] must be a string')]);
  assert.deepEqual(invalid(f), ['params["a b"]']);
  // Deeper than any field: the nearest field above it.
  f.showError([failure(['when', 'day', 'x'], 'params.when.day.x is odd')]);
  assert.deepEqual(invalid(f), ['params.when.day']);
  // Several at once: each in its place, the ones without a field together on top.
  f.showError([failure(['count'], 'params.count must be an integer'), failure(['title'], 'params.title is required'),
    failure(['countless'], 'params.countless is not allowed'), failure([], 'params must be an object')]);
  assert.deepEqual(invalid(f).sort(), ['params.count', 'params.title']);
  assert.equal(errorOf(f, 'params.count'), 'Count must be an integer');
  assert.equal(errorOf(f, 'params.title'), 'Title is required');
  assert.equal(topError(f), 'params.countless is not allowed\nparams must be an object');
  f.showError([failure(['title'], 'one'), failure(['title'], 'two')]);
  assert.equal(errorOf(f, 'params.title'), 'one\ntwo');
  // A message of the panel's own (text) goes on top.
  f.showError('the provider is gone');
  assert.deepEqual(invalid(f), []);
  assert.equal(topError(f), 'the provider is gone');
  f.showError(null);
  assert.equal(topError(f), '');
  assert.deepEqual(invalid(f), []);
});

test('removing an array item renumbers the others, and messages follow the new paths', () => {
  const f = form();
  for (let i = 0; i < 3; i++) addItem(f, 'params.tags');
  ['x', 'y', 'z'].forEach((t, i) => type(control(f, `params.tags[${i}]`), t));
  field(f, 'params.tags[0]').closest('.pf-item').querySelector('[data-action="remove-item"]').click();
  assert.deepEqual(f.value().value.tags, ['y', 'z']);
  assert.equal(control(f, 'params.tags[1]').value, 'z');
  assert.equal(control(f, 'params.tags[2]'), null);
  assert.deepEqual([...field(f, 'params.tags').querySelectorAll('.pf-index')].map((el) => el.textContent), ['[0]', '[1]']);
  f.showError([failure(['tags', 1], 'params.tags[1] must be short')]);
  assert.equal(field(f, 'params.tags[1]').querySelector('input').value, 'z');
  assert.deepEqual(invalid(f), ['params.tags[1]']);
});

test('raw JSON: the value carries over both ways; text that is not JSON stays in the editor', () => {
  const f = form();
  type(control(f, 'params.title'), 'Hi');
  f.setRaw(true);
  assert.equal(f.el.dataset.mode, 'raw');
  assert.deepEqual(JSON.parse(f.rawEl.value), { title: 'Hi' });
  f.rawEl.value = '{"title": "Yo", "tags": ["q"]}';
  f.setRaw(false);
  assert.equal(control(f, 'params.title').value, 'Yo');
  assert.equal(control(f, 'params.tags[0]').value, 'q');

  f.setRaw(true);
  f.rawEl.value = '{oops';
  assert.equal(f.value().ok, false);
  assert.match(f.value().message, /^Not JSON/);
  f.setRaw(false);
  assert.equal(f.el.dataset.mode, 'raw', 'not switched back');
  assert.match(topError(f), /^Not JSON/);
  // In the raw editor every failure is on top: there are no fields to point at.
  f.showError([failure(['title'], 'params.title must be a string')]);
  assert.equal(topError(f), 'params.title must be a string');
  assert.deepEqual(invalid(f), []);
});

test('a schema the form does not cover is edited as raw JSON only', () => {
  const f = form({ type: 'array', items: { type: 'string' } });
  assert.equal(f.el.dataset.mode, 'raw');
  assert.equal(f.el.querySelector('[data-action="toggle-raw"]'), null);
  f.rawEl.value = '["a"]';
  assert.deepEqual(f.value(), { ok: true, value: ['a'] });
  f.rawEl.value = '  ';
  assert.deepEqual(f.value(), { ok: true, value: {} });
});
