// The service worker's automation API (extension/service-worker/automation.js) in Node: the whole
// worker (sw.js) started with a fake browser and the real core (fake-browser.js), a page whose
// in-page provider is the fixtures' todo app. What the API answers, its failures as codes, and
// the Playwright library (js-glue/node/playwright.js) driving it through a fake BrowserContext
// whose worker.evaluate runs the function here, as Playwright would run it in the worker.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, openPage, until } from './fake-browser.js';
import { createTodoEngine } from '../fixtures/demo-trees.mjs';
import { KEYS } from '../../extension/shared/settings/keys.js';
import { Slop, configureSlop } from '../../js-glue/node/playwright.js';

// The fake browser goes in before any worker module is imported.
const { fake, api } = await startWorker();
const { AUTOMATION_VERSION, AUTOMATION_GLOBAL, AutomationCode } = await import('../../extension/service-worker/automation.js');
const engine = createTodoEngine();
const TAB = 7;
const page = openPage(fake, { tabId: TAB, url: 'http://app.test/todos', metas: ['postmessage'], engine });
await until(() => api.info(TAB, 'postmessage')?.live, { what: 'the page\'s provider live' });
after(() => page.close());

test('the API is the declared object, on the global the tests name, of this build\'s version', async () => {
  assert.equal(/** @type {any} */ (globalThis)[AUTOMATION_GLOBAL], api);
  assert.equal(AUTOMATION_GLOBAL, 'slopInspector');
  assert.equal(api.version, AUTOMATION_VERSION);
  assert.equal(await api.ready(), true);
  assert.deepEqual(await api.run('ready', []), { ok: true, value: true });
});

test('tabs, info, mirror, node views, log and the connection count read the worker\'s connections', () => {
  const [tab] = api.tabs();
  assert.equal(tab.tabId, TAB);
  assert.equal(tab.pageUrl, 'http://app.test/todos');
  assert.deepEqual(tab.providers.map((p) => [p.key, p.status, p.live, p.provider?.name]), [['postmessage', 'connected', true, 'Todo SPA']]);
  assert.deepEqual(api.mirror(TAB, 'postmessage'), engine.truth('/'));
  const [todos, gone] = /** @type {any[]} */ (api.nodeViews(TAB, 'postmessage', null, ['/todos', '/todos/nope']));
  assert.deepEqual(todos.child_ids, ['t1', 't2', 't3']);
  assert.equal(gone, null);
  const log = api.log(TAB, 'postmessage');
  assert.deepEqual(log.slice(0, 2).map((e) => [e.dir, e.type]), [['out', 'connect'], ['in', 'hello']]);
  assert.equal(api.connectionCount(), 1);
  assert.equal(api.info(TAB, 'ws://nowhere.test/slop'), null, 'info of nothing is null, not a failure');
  assert.equal(api.mirror(99, 'postmessage'), null);
});

test('call and callText reach the provider API: an invoke changes the provider, and the mirror follows', async () => {
  const answer = await api.call(TAB, 'postmessage', 'invoke', ['/todos/t1', 'toggle']);
  assert.equal(answer.event.event, 'result');
  assert.deepEqual(answer.event.data, { done: true });
  await until(() => api.mirror(TAB, 'postmessage')?.children[0].properties.done === 2, { what: 'two done' });
  const text = await api.callText(TAB, 'postmessage', 'node', '["/todos/t1"]');
  assert.equal(JSON.parse(text).properties.done, true);
  assert.equal(await api.callText(TAB, 'postmessage', 'node', '["/todos/none"]'), 'null');
  const tree = JSON.parse(await api.callText(TAB, 'postmessage', 'tree', '["/todos", 0]'));
  assert.equal(tree.id, 'todos');
  assert.equal(tree.children, undefined, 'depth 0: no children');
});

test('failures come back as codes from the declared set, through run() and as AutomationError', async () => {
  /** @param {any} r */
  const code = (r) => (r.ok ? 'ok' : r.code);
  assert.equal(code(await api.run('callText', [99, 'postmessage', 'tree', '[]'])), AutomationCode.NO_TAB);
  assert.equal(code(await api.run('call', [TAB, 'ws://other.test/slop', 'tree', []])), AutomationCode.NO_PROVIDER);
  assert.equal(code(await api.run('callText', [TAB, 'postmessage', 'tree', 'not json'])), AutomationCode.BAD_ARGUMENTS);
  assert.equal(code(await api.run('call', [TAB, 'postmessage', /** @type {any} */ ('fly'), []])), AutomationCode.UNKNOWN_METHOD);
  assert.equal(code(await api.run(/** @type {any} */ ('fly'), [])), AutomationCode.UNKNOWN_METHOD);
  const refused = await api.run('call', [TAB, 'postmessage', 'invoke', ['/todos/t1', 'rename', { title: 5 }]]);
  assert.equal(code(refused), AutomationCode.REFUSED);
  assert.match(/** @type {any} */ (refused).message, /title/, 'the core\'s words');
  assert.equal(code(await api.run('setToken', ['ws://app.test', 'not a token'])), AutomationCode.BAD_ARGUMENTS);
  // The methods themselves throw the same codes.
  await assert.rejects(api.callText(98, 'postmessage', 'tree', '[]'), { name: 'AutomationError', code: AutomationCode.NO_TAB });
  assert.throws(() => api.call(TAB, 'nope', 'tree', []), { code: AutomationCode.NO_PROVIDER });
});

test('a provider waiting for approval is not_connected; approve() stores the approval and it stops waiting', async () => {
  const other = openPage(fake, { tabId: 8, url: 'http://app.test/other', metas: ['ws://elsewhere.test/slop'] });
  try {
    const pending = await until(() => api.info(8, 'ws://elsewhere.test/slop')?.status === 'pending-approval' && api.info(8, 'ws://elsewhere.test/slop'));
    const r = await api.run('call', [8, 'ws://elsewhere.test/slop', 'tree', []]);
    assert.deepEqual(r.ok ? null : r.code, AutomationCode.NOT_CONNECTED);
    assert.equal(await api.approve(/** @type {string} */ (pending.approvalKey)), true);
    assert.deepEqual(Object.keys(fake.local.data.get(KEYS.APPROVALS)), [pending.approvalKey]);
    await until(() => api.info(8, 'ws://elsewhere.test/slop')?.status !== 'pending-approval', { what: 'no longer pending' });
  } finally {
    other.close();
  }
  await until(() => api.tabs().length === 1, { what: 'the closed tab gone' });
});

test('setToken stores a token under its provider origin; nothing in the API reads it back', async () => {
  assert.equal(await api.setToken('ws://app.test:3737/slop', 'secret-1'), 'ws://app.test:3737');
  assert.equal(fake.local.data.get(KEYS.TOKENS)['ws://app.test:3737'], 'secret-1');
  assert.doesNotMatch(JSON.stringify([api.tabs(), api.info(TAB, 'postmessage')]), /secret-1/);
});

/**
 * A BrowserContext with one extension service worker, whose evaluate runs fn here (where the
 * worker's API is installed), its argument and answer cloned as Playwright would carry them.
 * @param {{before?: number}} [o]  before: how many evaluations find no API yet (a worker still loading)
 */
function fakeContext({ before = 0 } = {}) {
  let missing = before;
  const worker = {
    url: () => 'chrome-extension://test-extension/extension/service-worker/sw.js',
    /** @param {Function} fn @param {any} arg */
    async evaluate(fn, arg) {
      const saved = /** @type {any} */ (globalThis)[AUTOMATION_GLOBAL];
      if (missing > 0) {
        missing -= 1;
        delete (/** @type {any} */ (globalThis)[AUTOMATION_GLOBAL]);
      }
      try {
        return structuredClone(await fn(structuredClone(arg)));
      } finally {
        /** @type {any} */ (globalThis)[AUTOMATION_GLOBAL] = saved;
      }
    },
  };
  return /** @type {any} */ ({ serviceWorkers: () => [worker], waitForEvent: async () => worker });
}
const fakePage = (/** @type {string} */ url) => /** @type {any} */ ({ url: () => url });

test('the Playwright library drives the API: providers, a provider handle, its reads and invokes', async () => {
  const slop = new Slop(fakeContext({ before: 2 }));
  assert.deepEqual((await slop.providers(fakePage('http://app.test/todos'))).map((p) => p.key), ['postmessage']);
  const app = await slop.provider(fakePage('http://app.test/todos'), { name: 'Todo SPA', timeout: 2000 });
  assert.equal((await app.node('/todos/t2'))?.properties?.title, 'Write report');
  const r = await app.invoke('/todos/t3', 'toggle');
  assert.deepEqual(r.data, { done: true });
  await app.waitFor('/todos/t3', (n) => n?.properties?.done === true, { timeout: 2000 });
  // The core's refusal reaches the test in its own words, as a SlopTestError.
  await assert.rejects(app.invoke('/todos/t3', 'rename', { title: 5 }), (e) => {
    assert.equal(/** @type {any} */ (e).code, 'invoke_failed');
    assert.match(/** @type {any} */ (e).message, /^provider "Todo SPA" \(postmessage\): invoke "rename" on \/todos\/t3 refused: [^\n]*title/);
    return true;
  });
  // A page the extension has not seen: no_page, in words.
  await assert.rejects(slop.provider(fakePage('http://app.test/unknown'), { timeout: 200 }), { code: 'no_page' });
});

test('a handle whose tab is gone fails with the API\'s code, not a message to parse', async () => {
  const engine2 = createTodoEngine();
  const p2 = openPage(fake, { tabId: 9, url: 'http://app.test/second', metas: ['postmessage'], engine: engine2 });
  const slop = new Slop(fakeContext());
  const app = await slop.provider(fakePage('http://app.test/second'), { timeout: 2000 });
  p2.close();
  await until(() => !api.tabs().some((t) => t.tabId === 9), { what: 'tab 9 gone' });
  await assert.rejects(app.node('/todos'), { code: AutomationCode.NO_TAB });
});

test('the library refuses an extension build of another automation version, in words', async () => {
  const saved = api.version;
  api.version = saved + 1;
  try {
    await assert.rejects(new Slop(fakeContext()).tabs(), new RegExp(`the extension build and this library differ: the extension in the browser speaks automation version ${saved + 1}, this library version ${saved}`));
  } finally {
    api.version = saved;
  }
  await configureSlop(fakeContext(), { tokens: { 'ws://lib.test': 'tok-2' }, approvals: ['http://a.test -> ws://b.test'] });
  assert.equal(fake.local.data.get(KEYS.TOKENS)['ws://lib.test'], 'tok-2');
  assert.ok(fake.local.data.get(KEYS.APPROVALS)['http://a.test -> ws://b.test']);
  await assert.rejects(configureSlop(fakeContext(), { tokens: { 'ws://lib.test': 'bad token' } }), (e) => {
    assert.equal(/** @type {any} */ (e).code, AutomationCode.BAD_ARGUMENTS);
    assert.doesNotMatch(/** @type {any} */ (e).message, /bad token/, 'the token is never printed');
    return true;
  });
});
