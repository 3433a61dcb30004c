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

// ----------------------------------------------------------------- the watched node's changes

const marked = (root) => Object.fromEntries([...root.querySelectorAll('[data-change]')].map((r) => [r.dataset.changeKey, r.dataset.change]));
const rowOf = (root, id) => root.querySelector(`[data-change-key="${id}"]`);

test('a patch to the shown node marks the fields it changed, added and removed, with the old value', async () => {
  const { dv, root } = setup();
  const v1 = { ...MESSAGE, properties: { subject: 'Hello', size: 12, flags: ['a'], draft: true }, meta: { ...MESSAGE.meta, salience: 0.75 } };
  dv.show(v1, LIVE);
  assert.deepEqual(marked(root), {}, 'nothing on the first render');
  const v2 = { ...v1, properties: { subject: 'Hello', size: 13, flags: ['a', 'b'], cc: null }, meta: { ...v1.meta, salience: 0.5 } };
  dv.show(v2, LIVE);
  assert.deepEqual(marked(root), {
    'properties size': 'changed', 'properties flags': 'changed', 'properties cc': 'added', 'properties draft': 'removed', 'meta salience': 'changed',
  });
  const size = rowOf(root, 'properties size');
  assert.equal(size.querySelector('.fchange-was').textContent, 'was 12');
  assert.ok(size.querySelector('.fchange-was .scalar.t-number'), 'the old value as json-view writes it');
  assert.match(size.title, /size: 12 → 13/);
  assert.match(rowOf(root, 'properties flags').title, /flags: \["a"\] → \["a","b"\]/);
  assert.equal(rowOf(root, 'properties cc').querySelector('.fchange-was').textContent, 'new');
  const gone = rowOf(root, 'properties draft');
  assert.match(gone.textContent, /draft: removed was true/);
  assert.match(gone.title, /draft: removed, was true/);
  assert.equal(rowOf(root, 'meta salience').querySelector('.fchange-was').textContent, 'was 0.75');
  assert.equal(root.querySelector(`[data-section="properties"] .jt-row:not(.fchange)`).textContent, `subject: "Hello"`, 'an unchanged field has no mark');

  // The same view again (another tab shown, a render for another reason): the marks stay, none added.
  dv.show(v2, LIVE);
  assert.equal(Object.keys(marked(root)).length, 5);
});

test('changed-field marks: exact numbers as the provider wrote them; gone after their time; none for another node', async () => {
  const { dv, root } = setup();
  dv.markMs = 60;
  await import('../../js-glue/node/exact-json.js'); // Node 20: kept numbers through lossless-json
  const { parseVerbatim } = await import('../../js-glue/exact-json.js');
  const big = (n) => parseVerbatim(`{"id":"m1","type":"message","path":"/inbox/m1","child_ids":[],"properties":{"id64":${n}}}`);
  dv.show(big('9007199254740993'), LIVE);
  dv.show(big('9007199254740995'), LIVE);
  const row = rowOf(root, 'properties id64');
  assert.equal(row.querySelector('.fchange-was').textContent, 'was 9007199254740993');
  assert.match(row.title, /9007199254740993 → 9007199254740995/);
  await tick(120);
  assert.deepEqual(marked(root), {}, 'expired');
  assert.equal(root.querySelector('.fchange-was'), null);

  dv.markMs = 4000;
  dv.show(MESSAGE, LIVE);
  dv.show({ ...MESSAGE, id: 'm2', path: '/inbox/m2', properties: { subject: 'Other', size: 1 } }, LIVE);
  assert.deepEqual(marked(root), {}, 'another node: nothing to compare');
  dv.show({ ...MESSAGE, id: 'm2', path: '/inbox/m2', properties: { subject: 'Other', size: 2 } }, { ...LIVE, mode: 'history', canInvoke: false });
  assert.deepEqual(marked(root), {}, 'a version from the history is not a change watched live');
});

test('a fast-changing value: "was" is the value just before the latest change, not one from changes ago (issue 45)', () => {
  const { dv, root } = setup();
  const at = (n) => ({ ...MESSAGE, properties: { subject: 'Hello', size: n } });
  dv.show(at(1), LIVE);
  // Changes coming faster than the mark's time: each one's "was" is the one before it.
  for (const n of [2, 3, 4, 5]) {
    dv.show(at(n), LIVE);
    const row = rowOf(root, 'properties size');
    assert.equal(row.querySelector('.fchange-was').textContent, `was ${n - 1}`, `after ${n}`);
    assert.match(row.title, new RegExp(`size: ${n - 1} → ${n}$`));
    assert.ok(row.classList.contains('fchange-new'), 'a fresh change draws the eye');
  }
  // A render for another reason (nothing changed): the mark and its "was" stay, not drawn again.
  dv.show(at(5), LIVE);
  const row = rowOf(root, 'properties size');
  assert.equal(row.querySelector('.fchange-was').textContent, 'was 4');
  assert.equal(row.classList.contains('fchange-new'), false);
});

test('the selected node removed after the user\'s own delete says so; any other removal is the provider\'s (issue 45)', async () => {
  const INBOX = { id: 'inbox', type: 'collection', path: '/inbox', child_ids: [], properties: {}, affordances: [] };
  const deleteIt = async (root) => {
    invokeBtn(root, 'delete').click();
    await settle();
    card(root, 'delete').querySelector('[data-action="confirm"]').click();
    await settle();
  };
  const note = (root) => root.querySelector('[data-role="removed-note"]');
  {
    const { dv, root } = setup();
    dv.show(MESSAGE, LIVE);
    await deleteIt(root);
    const removed = { path: '/inbox/m1', version: 5 };
    dv.show(INBOX, { ...LIVE, removed });
    assert.equal(note(root).textContent, 'Removed after your delete on /inbox/m1 (version 5); its nearest remaining ancestor is shown.');
    assert.equal(note(root).dataset.by, 'invoke');
    dv.show(INBOX, { ...LIVE, removed });
    assert.match(note(root).textContent, /^Removed after your delete/, 'the same removal, rendered again: still the user\'s');
    // One invoke explains one removal: the next one is the provider's.
    dv.show(INBOX, { ...LIVE, removed: { path: '/inbox/m1', version: 7 } });
    assert.equal(note(root).textContent, 'The provider removed /inbox/m1 at version 7; its nearest remaining ancestor is shown.');
  }
  {
    // No invoke: the provider removed it.
    const { dv, root } = setup();
    dv.show(MESSAGE, LIVE);
    dv.show(INBOX, { ...LIVE, removed: { path: '/inbox/m1', version: 4 } });
    assert.equal(note(root).dataset.by, 'provider');
    assert.match(note(root).textContent, /^The provider removed \/inbox\/m1 at version 4/);
  }
  {
    // An invoke that failed removed nothing; one on another provider is not this one's.
    const { dv, root } = setup({ invoke: () => ({ event: { event: 'result', status: 'error', error: { code: 'x', message: 'no' } } }) });
    dv.show(MESSAGE, LIVE);
    await deleteIt(root);
    dv.show(INBOX, { ...LIVE, removed: { path: '/inbox/m1', version: 6 } });
    assert.equal(note(root).dataset.by, 'provider');
    const other = setup();
    other.dv.show(MESSAGE, LIVE);
    await deleteIt(other.root);
    other.dv.show(INBOX, { ...LIVE, providerKey: 'other', removed: { path: '/inbox/m1', version: 6 } });
    assert.equal(note(other.root).dataset.by, 'provider');
  }
});

// ------------------------------------------------------------------------- keys and in flight

const PICK = { action: 'pick', params: { type: 'object', properties: { color: { enum: ['red', 'blue'] }, title: { type: 'string' }, body: { type: 'string' } } } };
const PICKER = { id: 'p', type: 'picker', path: '/p', child_ids: [], properties: {}, affordances: [PICK] };

test('Ctrl+Enter / Cmd+Enter invokes from any field, a select too; Enter from a one-line input only; no key outside the form', async () => {
  const { key } = await import('./dom-env.js');
  const { dv, root, calls } = setup();
  dv.show(PICKER, LIVE);
  const c = card(root, 'pick');
  const select = c.querySelector('select[data-ppath="params.color"]');
  select.value = '1';
  select.dispatchEvent(new Event('change', { bubbles: true }));
  key(select, 'Enter');
  await settle();
  assert.equal(calls.invoke.length, 0, 'Enter on a select is the select\'s (its list)');
  key(select, 'Enter', { ctrlKey: true });
  await settle();
  assert.deepEqual(calls.invoke, [{ path: '/p', action: 'pick', params: { color: 'blue' } }]);
  key(c.querySelector('textarea[data-ppath="params.body"]'), 'Enter', { metaKey: true });
  await settle();
  assert.equal(calls.invoke.length, 2, 'Cmd+Enter in a textarea');
  key(c.querySelector('textarea[data-ppath="params.body"]'), 'Enter');
  await settle();
  assert.equal(calls.invoke.length, 2, 'Enter in a textarea starts a line');
  key(c.querySelector('input[data-ppath="params.title"]'), 'Enter');
  await settle();
  assert.equal(calls.invoke.length, 3, 'Enter in a one-line input');
  key(invokeBtn(root, 'pick'), 'Enter', { ctrlKey: true });
  key(root, 'Enter', { ctrlKey: true });
  await settle();
  assert.equal(calls.invoke.length, 3, 'Ctrl+Enter outside a field invokes nothing');
});

test('one invoke in flight per form: Enter twice and a second click send once; the button says Invoking… until the outcome', async () => {
  const { key } = await import('./dom-env.js');
  let release;
  const { dv, root, calls } = setup({ invoke: () => new Promise((r) => { release = () => r({ event: { event: 'result', status: 'ok', data: 1 } }); }) });
  dv.show(PICKER, LIVE);
  const input = card(root, 'pick').querySelector('input[data-ppath="params.title"]');
  key(input, 'Enter');
  key(input, 'Enter');
  await settle();
  key(input, 'Enter');
  invokeBtn(root, 'pick').click();
  await settle();
  assert.equal(calls.invoke.length, 1, 'sent once');
  assert.equal(invokeBtn(root, 'pick').disabled, true);
  assert.equal(invokeBtn(root, 'pick').textContent, 'Invoking…');
  // The node changes meanwhile (its card is drawn again): still busy.
  dv.show({ ...PICKER, properties: { n: 1 }, affordances: [{ ...PICK, description: 'now with a description' }] }, LIVE);
  assert.equal(invokeBtn(root, 'pick').textContent, 'Invoking…');
  invokeBtn(root, 'pick').click();
  await settle();
  assert.equal(calls.invoke.length, 1);
  release();
  await settle();
  assert.equal(invokeBtn(root, 'pick').disabled, false);
  assert.equal(invokeBtn(root, 'pick').textContent, 'Invoke');
  assert.equal(outcome(card(root, 'pick').querySelector('.aff-result')), 'ok');
  invokeBtn(root, 'pick').click();
  await settle();
  assert.equal(calls.invoke.length, 2, 'after the outcome, the next one goes');
  release();
  await settle();
});

test('a patch keeps the focus where it was: on the re-rendered control, or on what held a control that went, said in words', () => {
  const { dv, root } = setup();
  dv.show(MESSAGE, LIVE);
  const copy = root.querySelector('[data-action="copy-path"]');
  copy.focus();
  assert.equal(root.ownerDocument.activeElement, copy);
  // The provider changes the node: the detail is built again around its head, which stays (a press
  // on Copy path of a node patched 100 times a second ends on it); the focus stays on it.
  dv.show({ ...MESSAGE, properties: { ...MESSAGE.properties, size: 13 } }, LIVE);
  const again = root.querySelector('[data-action="copy-path"]');
  assert.equal(again, copy, 'the head is kept');
  assert.match(root.querySelector('[data-section="properties"]').textContent, /13/, 'the rest was re-rendered');
  assert.equal(root.ownerDocument.activeElement, again, 'the focus stayed on Copy path');
  // Another node: another head, and the focus comes to its Copy path.
  dv.show({ ...MESSAGE, path: `${MESSAGE.path}x`, id: `${MESSAGE.id}x` }, LIVE);
  const other = root.querySelector('[data-action="copy-path"]');
  assert.notEqual(other, copy, 'a new head for another node');
  assert.equal(root.ownerDocument.activeElement, other, 'the focus came to the new Copy path');
  dv.show({ ...MESSAGE, properties: { ...MESSAGE.properties, size: 13 } }, LIVE);
  root.querySelector('[data-action="copy-path"]').focus();
  // A property's JSON row focused, and the property goes: the focus stays in the detail.
  const summaryless = root.querySelector('[data-section="properties"]');
  summaryless.setAttribute('tabindex', '-1');
  const rowKey = summaryless.querySelector('.jt-row');
  rowKey.setAttribute('tabindex', '0');
  rowKey.focus();
  dv.show({ ...MESSAGE, properties: {} }, LIVE);
  const active = root.ownerDocument.activeElement;
  assert.ok(root.contains(active) && active !== root.ownerDocument.body, `the focus stays in the detail (${active?.className})`);
  assert.match(root.querySelector('[data-role="detail-said"]').textContent, /is no longer there/);
});
