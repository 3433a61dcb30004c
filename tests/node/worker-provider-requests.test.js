// What a UI asks of a provider (extension/service-worker/provider-requests.js) in Node: the whole
// worker (sw.js) with a fake browser and the real core (fake-browser.js), the fixtures' todo app
// behind a page's postMessage relay. Each request's reply, what reached the provider, and what a
// port's subscriptions become when it closes.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, openPage, openUi, until } from './fake-browser.js';
import { createTodoEngine } from '../fixtures/demo-trees.mjs';
import { Request, ErrorCode } from '../../extension/shared/messages.js';
import { KEYS } from '../../extension/shared/settings/keys.js';

const { fake, api } = await startWorker();
const engine = createTodoEngine();
const TAB = 5;
const KEY = 'postmessage';
const page = openPage(fake, { tabId: TAB, url: 'http://app.test/todos', metas: [KEY, 'ws://elsewhere.test/slop'], engine });
await until(() => api.info(TAB, KEY)?.live, { what: 'the provider live' });
const panel = openUi(fake, { tabId: TAB });
after(() => { panel.close(); page.close(); });

test('INVOKE reaches the provider and answers with the core\'s result; params outside the schema are refused before sending', async () => {
  const answer = await panel.ask(Request.INVOKE, { key: KEY, path: '/todos/t3', action: 'rename', paramsText: '{"title":"Call Bob"}' });
  assert.equal(answer.event.event, 'result');
  assert.equal(answer.event.status, 'ok');
  assert.equal(engine.get('/todos/t3').properties.title, 'Call Bob');
  const sent = page.received.filter((m) => m.type === 'invoke').length;
  const bad = await panel.request(Request.INVOKE, { key: KEY, path: '/todos/t3', action: 'rename', params: { title: 7 } });
  assert.equal(bad.ok, false);
  assert.equal(bad.error.code, ErrorCode.BAD_PARAMS);
  assert.match(bad.error.message, /title/);
  assert.equal(page.received.filter((m) => m.type === 'invoke').length, sent, 'nothing was sent');
  // The provider's own refusal is an answer, not a failed request.
  const conflict = await panel.ask(Request.INVOKE, { key: KEY, path: '/todos/none', action: 'toggle' });
  assert.notEqual(conflict.event.status, 'ok');
  const none = await panel.request(Request.INVOKE, { key: 'ws://nope.test/slop', path: '/', action: 'x' });
  assert.deepEqual(none.error, { code: ErrorCode.NOT_FOUND, message: 'No such provider on this tab' });
  const malformed = await panel.request(Request.INVOKE, { key: KEY, path: 3, action: 'x' });
  assert.equal(malformed.error.code, ErrorCode.BAD_REQUEST);
});

test('QUERY, GET_TREE, AGENT_VIEW, CONFORMANCE and VALIDATE_PARAMS answer from the provider and the core', async () => {
  const q = await panel.ask(Request.QUERY, { key: KEY, options: { path: '/todos', depth: 1 } });
  assert.equal(q.event.event, 'query');
  assert.deepEqual(q.event.tree.children.map((c) => c.id), engine.get('/todos').children.map((c) => c.id));
  const tree = await panel.ask(Request.GET_TREE, { key: KEY });
  assert.deepEqual(JSON.parse(tree.treeText), engine.truth('/'));
  assert.equal(tree.provider.name, 'Todo SPA');
  const agent = await panel.ask(Request.AGENT_VIEW, { key: KEY });
  assert.match(agent.treeText, /Call Bob/);
  assert.ok(agent.tools.tools.some((t) => /toggle/.test(t.function?.name ?? t.name)), JSON.stringify(agent.tools).slice(0, 300));
  const report = await panel.ask(Request.CONFORMANCE, { key: KEY });
  assert.ok(report.frames > 0);
  assert.ok(Array.isArray(report.findings));
  const v = await panel.ask(Request.VALIDATE_PARAMS, { schemaText: '{"type":"object","required":["n"]}', paramsText: '{}' });
  assert.equal(v.errors.length, 1);
  const fine = await panel.ask(Request.VALIDATE_PARAMS, { schema: { type: 'object' }, params: {} });
  assert.equal(fine.errors?.length ?? 0, 0, JSON.stringify(fine));
});

test('a subscription belongs to the port that made it: UNSUBSCRIBE ends it, and so does the port closing', async () => {
  const other = openUi(fake, { tabId: TAB });
  const { sub } = await other.ask(Request.SUBSCRIBE, { key: KEY, options: { path: '/todos', depth: 1 } });
  const { sub: sub2 } = await other.ask(Request.SUBSCRIBE, { key: KEY, options: { path: '/', depth: 0 } });
  await until(() => api.info(TAB, KEY)?.subscriptions.length === 3, { what: 'three subscriptions' });
  assert.deepEqual(api.mirror(TAB, KEY, sub)?.children?.map((/** @type {any} */ c) => c.id), ['t1', 't2', 't3']);
  await other.ask(Request.UNSUBSCRIBE, { key: KEY, sub: sub2 });
  assert.equal(api.info(TAB, KEY)?.subscriptions.length, 2);
  other.close();
  assert.deepEqual(api.info(TAB, KEY)?.subscriptions.map((s) => s.sub), [api.info(TAB, KEY)?.primarySub]);
  await until(() => page.received.filter((m) => m.type === 'unsubscribe').length === 2, { what: 'the provider told of both' });
});

test('APPROVE and DENY store the user\'s answer about a cross-origin provider; RETRY and WAKE are answered', async () => {
  const key = 'ws://elsewhere.test/slop';
  const info = await until(() => api.info(TAB, key)?.status === 'pending-approval' && api.info(TAB, key));
  await panel.ask(Request.DENY, { key });
  assert.ok(fake.session.data.get(KEYS.DENIED)[info.approvalKey]);
  await until(() => api.info(TAB, key)?.status === 'denied', { what: 'denied' });
  await panel.ask(Request.APPROVE, { key });
  assert.ok(fake.local.data.get(KEYS.APPROVALS)[info.approvalKey]);
  assert.equal(fake.session.data.get(KEYS.DENIED)[info.approvalKey], undefined, 'the denial is lifted');
  await until(() => !['pending-approval', 'denied'].includes(/** @type {string} */ (api.info(TAB, key)?.status)), { what: 'no longer waiting' });
  assert.deepEqual(await panel.ask(Request.RETRY, { key: KEY }), {});
  assert.deepEqual(await panel.ask(Request.WAKE), {});
  await until(() => api.info(TAB, KEY)?.live, { what: 'live again after the retry' });
  const popup = openUi(fake, { page: 'popup', tabId: TAB });
  const refused = await popup.request(Request.INVOKE, { key: KEY, path: '/', action: 'x' });
  assert.equal(refused.error.code, ErrorCode.NOT_ALLOWED, 'the popup approves, it does not invoke');
  popup.close();
});

test('REMOVE_PROVIDER takes only a provider added by address; CONNECT_TO refuses what cannot be an address', async () => {
  const r = await panel.request(Request.REMOVE_PROVIDER, { key: KEY });
  assert.equal(r.error.code, ErrorCode.NOT_FOUND);
  const c = await panel.request(Request.CONNECT_TO, { address: 42 });
  assert.equal(c.error.code, ErrorCode.BAD_REQUEST);
});
