// The selected node's detail (extension/panel/views/detail-view.js) in a DOM (jsdom): its sections,
// its affordances with their forms, and the invoke round trip through stand-ins for the core's
// checks and the provider's answers: checked first, confirmed when dangerous, results kept per
// node (also after the affordance that gave them is gone), tasks followed, content loaded.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mount, type, tick } from './dom-env.js';
import { DetailView } from '../../extension/panel/views/detail-view.js';
import { ErrorCode } from '../../extension/shared/messages.js';

const LIVE = { providerKey: 'k', mode: 'live', canInvoke: true, whyNot: '', stale: false, contentRefs: true, version: 3 };

const TAG = { action: 'tag', label: 'Tag', params: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } }, required: ['tags'] } };
const MESSAGE = {
  id: 'm1', type: 'message', path: '/inbox/m1', child_ids: ['p1', 'p2'],
  properties: { subject: 'Hello', size: 12 },
  meta: { salience: 0.75, urgency: 'low', total_children: 9, window: [0, 2] },
  content_ref: { uri: 'mail:m1', mime: 'text/plain' },
  affordances: [
    { action: 'close', label: 'Close', idempotent: true, estimate: 'instant' },
    TAG,
    { action: 'delete', label: 'Delete', dangerous: true, description: 'Gone for good' },
    { action: 'read_content' },
  ],
};

/** A detail view, the requests it made, and answers to give. */
function setup({ validate = () => null, invoke = () => ({ event: { event: 'result', status: 'ok', data: { done: true } } }) } = {}) {
  const calls = { invoke: [], validate: [], copy: [] };
  const root = mount();
  const dv = new DetailView(root, {
    invoke: async (path, action, params) => { calls.invoke.push({ path, action, params }); return invoke(action, params); },
    validate: async (schema, params) => { calls.validate.push(params); return validate(params); },
    copy: (text, what) => calls.copy.push([text, what]),
  });
  return { dv, root, calls };
}

const section = (root, name) => root.querySelector(`[data-section="${name}"]`);
const card = (root, action) => root.querySelector(`.affordance[data-action-name="${action}"]`);
const invokeBtn = (root, action) => card(root, action).querySelector('[data-action="invoke"]');
const outcome = (el) => el.querySelector('[data-outcome]')?.dataset.outcome ?? null;
const settle = () => tick(5);

test('nothing selected: how to pick a node', () => {
  const { dv, root } = setup();
  dv.show(null, LIVE);
  assert.match(root.textContent, /Select a node/);
  assert.equal(root.querySelectorAll('.affordance').length, 0);
});

test('the sections of a node: path, properties, meta, content reference, children, affordances', () => {
  const { dv, root, calls } = setup();
  dv.show(MESSAGE, LIVE);
  assert.equal(root.querySelector('.detail-head .nid').textContent, 'm1');
  assert.equal(root.querySelector('.path').textContent, '/inbox/m1');
  root.querySelector('[data-action="copy-path"]').click();
  assert.deepEqual(calls.copy, [['/inbox/m1', 'path']]);
  assert.match(section(root, 'properties').textContent, /subject: "Hello"/);
  assert.match(section(root, 'meta').textContent, /salience: 0\.75/);
  assert.equal(section(root, 'meta').querySelector('.sal.big i').style.width, '75%');
  assert.equal(section(root, 'children').textContent, 'Children2 shown of 9 · window [0, 2]');
  assert.equal(section(root, 'content-reference').querySelector('[data-action="load-content"]').disabled, false);
  assert.deepEqual([...root.querySelectorAll('.affordance')].map((c) => c.dataset.actionName), ['close', 'tag', 'delete', 'read_content']);
  assert.equal(root.querySelector('.detail-affordances h3').textContent, 'Affordances (4)');
  assert.deepEqual([...card(root, 'close').querySelectorAll('.chip')].map((c) => c.textContent), ['idempotent', 'estimate: instant']);
  assert.equal(invokeBtn(root, 'delete').textContent, 'Invoke…', 'dangerous: asks first');
  assert.ok(card(root, 'tag').querySelector('.params-form [data-ppath="params.tags"]'), 'a form from the params schema');
  assert.equal(card(root, 'close').querySelector('.params-form'), null, 'no params, no form');
});

test('not invokable: the buttons are off and say why; each mode says what it shows', () => {
  const { dv, root } = setup();
  dv.show(MESSAGE, { ...LIVE, mode: 'history', canInvoke: false, whyNot: 'Viewing an earlier version: go back to live to invoke.', version: 2 });
  assert.equal(invokeBtn(root, 'close').disabled, true);
  assert.equal(invokeBtn(root, 'close').title, 'Viewing an earlier version: go back to live to invoke.');
  assert.equal(root.querySelector('.mode-note').textContent, 'Version 2 from the history: read-only.');
  assert.equal(section(root, 'content-reference').querySelector('[data-action="load-content"]').disabled, true);
  dv.show(MESSAGE, { ...LIVE, mode: 'query', canInvoke: false, whyNot: 'no', version: 8 });
  assert.match(root.querySelector('.mode-note').textContent, /^Query result \(v8\)/);
  dv.show(MESSAGE, { ...LIVE, contentRefs: false });
  assert.equal(section(root, 'content-reference').querySelector('.muted.small').textContent, 'The provider does not offer content references.');
  dv.show(MESSAGE, { ...LIVE, stale: true });
  assert.equal(root.querySelector('.detail-head .pill').textContent, 'last known state');
});

test('invoke: the core checks the params first; its failures stop the invoke and show at their fields', async () => {
  const { dv, root, calls } = setup({ validate: (p) => (p.tags?.[0] === '' ? [{ code: 'min', path: ['tags', 0], message: 'Tags item 1 must not be empty' }] : null) });
  dv.show(MESSAGE, LIVE);
  card(root, 'tag').querySelector('[data-action="add-item"]').click();
  invokeBtn(root, 'tag').click();
  await settle();
  assert.deepEqual(calls.invoke, [], 'not sent');
  const item = card(root, 'tag').querySelector('.pf-field[data-ppath="params.tags[0]"]');
  assert.equal(item.querySelector('.pf-error').textContent, 'Tags item 1 must not be empty');
  assert.match(card(root, 'tag').querySelector('.aff-status').textContent, /not fit the schema/);

  type(item.querySelector('input'), 'work');
  invokeBtn(root, 'tag').click();
  await settle();
  assert.deepEqual(calls.invoke, [{ path: '/inbox/m1', action: 'tag', params: { tags: ['work'] } }]);
  const result = card(root, 'tag').querySelector('.aff-result');
  assert.equal(outcome(result), 'ok');
  assert.match(result.textContent, /done: true/);
});

test('a dangerous affordance asks first; Cancel sends nothing', async () => {
  const { dv, root, calls } = setup();
  dv.show(MESSAGE, LIVE);
  invokeBtn(root, 'delete').click();
  await settle();
  const confirm = card(root, 'delete').querySelector('.confirm');
  assert.equal(confirm.hidden, false);
  assert.match(confirm.textContent, /“Delete” is marked dangerous\. Invoke it on \/inbox\/m1\?/);
  confirm.querySelector('[data-action="cancel"]').click();
  assert.equal(confirm.hidden, true);
  assert.equal(calls.invoke.length, 0);
  invokeBtn(root, 'delete').click();
  await settle();
  confirm.querySelector('[data-action="confirm"]').click();
  await settle();
  assert.deepEqual(calls.invoke.map((c) => c.action), ['delete']);
});

test('results are kept by node: one that replaced its affordance stays under Results until dismissed', async () => {
  const { dv, root } = setup();
  dv.show(MESSAGE, LIVE);
  invokeBtn(root, 'close').click();
  await settle();
  assert.equal(outcome(card(root, 'close')), 'ok');
  // The invoke replaced Close with Reopen.
  const reopened = { ...MESSAGE, affordances: [{ action: 'reopen' }, ...MESSAGE.affordances.slice(1)] };
  dv.show(reopened, LIVE);
  const earlier = section(root, 'results');
  assert.equal(earlier.querySelector('h3').textContent, 'Results (1)');
  assert.equal(earlier.querySelector('.outcome-action').textContent, 'close');
  assert.equal(outcome(earlier), 'ok');
  // Another node does not show it; back on this one it is there.
  dv.show({ ...MESSAGE, id: 'm2', path: '/inbox/m2', affordances: [] }, LIVE);
  assert.equal(section(root, 'results'), null);
  dv.show(reopened, LIVE);
  section(root, 'results').querySelector('[data-action="dismiss-result"]').click();
  assert.equal(section(root, 'results'), null);
});

test('an accepted invoke follows its task; a refused one says it was not sent', async () => {
  let answer = { event: { event: 'result', status: 'accepted', task_id: 't9' } };
  const { dv, root } = setup({ invoke: () => { if (answer instanceof Error) throw answer; return answer; } });
  dv.show(MESSAGE, LIVE);
  invokeBtn(root, 'close').click();
  await settle();
  const task = () => card(root, 'close').querySelector('[data-task="t9"]');
  assert.equal(task().dataset.status, 'pending');
  dv.onTask({ event: 'task', task_id: 't9', status: 'running', progress: 0.4, message: 'copying' });
  assert.equal(task().querySelector('.task-pct').textContent, '40%');
  assert.match(task().textContent, /copying/);

  answer = Object.assign(new Error('params.tags must be an array'), { code: ErrorCode.BAD_PARAMS });
  card(root, 'tag').querySelector('[data-action="toggle-raw"]').click();
  card(root, 'tag').querySelector('.pf-raw').value = '{"tags": 1}';
  invokeBtn(root, 'tag').click();
  await settle();
  const result = card(root, 'tag').querySelector('.aff-result');
  assert.equal(outcome(result), 'not-sent');
  assert.match(result.textContent, /bad_params: params\.tags must be an array/);
  assert.equal(card(root, 'tag').querySelector('.pf-top-error').textContent, 'params.tags must be an array');
});

test('Load content reads the content reference through read_content and shows it as text', async () => {
  const { dv, root, calls } = setup({ invoke: () => ({ event: { event: 'result', status: 'ok', data: { content: '<b>not html</b>', mime: 'text/html' } } }) });
  dv.show(MESSAGE, LIVE);
  section(root, 'content-reference').querySelector('[data-action="load-content"]').click();
  await settle();
  assert.deepEqual(calls.invoke.at(-1), { path: '/inbox/m1', action: 'read_content', params: undefined });
  const pre = section(root, 'content-reference').querySelector('pre.content-text');
  assert.equal(pre.textContent, '<b>not html</b>');
  assert.equal(pre.querySelector('b'), null, 'text, never markup');
});
