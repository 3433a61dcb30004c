// The worker's tabs (extension/service-worker/tabs.js) in Node: the whole worker (sw.js) with a
// fake browser and the real core (fake-browser.js). A content script's port and what it announces
// become the tab's connections: one per provider the core reads from the meta tags, or from
// /.well-known/slop when there is none; a tag changed at run time opens or closes one; the tab's
// badge and the UI's provider list follow; a port that is not our content script in a top frame
// is closed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, openPage, openUi, makePort, until, EXTENSION_ID } from './fake-browser.js';
import { createTodoEngine } from '../fixtures/demo-trees.mjs';
import { Push, ToContent, PORTS } from '../../extension/shared/messages.js';

const { fake, api } = await startWorker();
const keys = (/** @type {number} */ tabId) => api.tabs().find((t) => t.tabId === tabId)?.providers.map((p) => p.key) ?? null;

test('only our content script in a tab\'s top frame is taken; another extension, a subframe or a non-web page is closed', () => {
  const port = (/** @type {object} */ sender) => {
    const p = makePort({ name: PORTS.CONTENT, sender });
    fake.connect(p);
    return p.disconnected;
  };
  const tab = { id: 40 };
  assert.equal(port({ id: 'another-extension', url: 'http://a.test/', frameId: 0, tab }), true);
  assert.equal(port({ id: EXTENSION_ID, url: 'http://a.test/', frameId: 3, tab }), true, 'a subframe');
  assert.equal(port({ id: EXTENSION_ID, url: 'file:///etc/passwd', frameId: 0, tab }), true);
  assert.equal(port({ id: EXTENSION_ID, url: 'http://a.test/', frameId: 0 }), true, 'no tab');
  assert.equal(port({ id: EXTENSION_ID, url: 'http://a.test/', frameId: 0, tab }), false);
});

test('each provider the meta tags name is one connection; a bad tag is a problem the tab lists; the badge counts the live ones', async () => {
  const engine = createTodoEngine();
  const page = openPage(fake, {
    tabId: 1, url: 'http://app.test/one',
    metas: ['postmessage', 'ws://elsewhere.test/slop', 'postmessage', 'ftp://nope.test/slop'], engine,
  });
  await until(() => api.info(1, 'postmessage')?.live, { what: 'the page provider live' });
  const [tab] = api.tabs().filter((t) => t.tabId === 1);
  assert.deepEqual(tab.providers.map((p) => [p.key, p.source, p.classification]),
    [['postmessage', 'meta', 'same-origin'], ['ws://elsewhere.test/slop', 'meta', 'cross-origin']], 'the repeated tag is one connection');
  assert.equal(tab.problems.length, 1);
  assert.match(tab.problems[0].content, /ftp:\/\/nope\.test/);
  // One provider waits for the user's approval: the badge asks.
  assert.equal(api.info(1, 'ws://elsewhere.test/slop')?.status, 'pending-approval');
  await until(() => fake.badges.get(1)?.text === '?', { what: 'the badge asking' });
  // The page drops the cross-origin tag: that connection goes, the live one stays, the badge counts it.
  page.announce(['postmessage']);
  await until(() => keys(1)?.length === 1, { what: 'one provider left' });
  assert.deepEqual(keys(1), ['postmessage']);
  await until(() => fake.badges.get(1)?.text === '1', { what: 'the badge counting one live provider' });
  page.close();
  await until(() => keys(1) === null, { what: 'the tab dropped' });
  assert.equal(api.connectionCount(), 0);
  assert.equal(fake.badges.get(1)?.text, '', 'the badge cleared');
});

test('no meta tag: the content script is asked for /.well-known/slop, and its descriptor names the provider', async () => {
  const descriptor = { id: 'wk', name: 'Well-known app', slop_version: '0.1', transport: { type: 'postmessage' }, capabilities: ['state', 'patches'] };
  const engine = createTodoEngine();
  const page = openPage(fake, { tabId: 2, url: 'http://app.test/wk', metas: [], engine, wellKnown: { status: 200, body: JSON.stringify(descriptor) } });
  await page.waitFor((m) => m.type === ToContent.PROBE_WELL_KNOWN, { what: 'the probe' });
  const info = await until(() => api.info(2, 'postmessage')?.live && api.info(2, 'postmessage'), { what: 'the descriptor\'s provider live' });
  assert.equal(info.source, 'well-known');
  page.close();
  // A descriptor that is not JSON is a problem of the tab, and no connection.
  const bad = openPage(fake, { tabId: 3, url: 'http://app.test/bad', metas: [], wellKnown: { status: 200, body: '{"transport":' } });
  await until(() => api.tabs().find((t) => t.tabId === 3)?.problems.length, { what: 'the problem listed' });
  const [tab] = api.tabs().filter((t) => t.tabId === 3);
  assert.equal(tab.problems[0].content, '/.well-known/slop');
  assert.deepEqual(tab.providers, []);
  bad.close();
});

test('a panel on the tab gets its provider list, again on every change; a closed tab leaves nothing behind', async () => {
  const engine = createTodoEngine();
  const page = openPage(fake, { tabId: 4, url: 'http://app.test/four', metas: ['postmessage'], engine });
  const panel = openUi(fake, { tabId: 4 });
  const first = await panel.waitFor((m) => m.type === Push.PROVIDERS && m.providers.some((p) => p.live), { what: 'a list with the live provider' });
  assert.equal(first.tabId, 4);
  assert.equal(first.pageUrl, 'http://app.test/four');
  const from = panel.sent.length;
  page.announce([]);
  const emptied = await panel.waitFor((m) => m.type === Push.PROVIDERS && m.providers.length === 0, { from, what: 'the emptied list' });
  assert.deepEqual(emptied.providers, []);
  page.announce(['postmessage']);
  await until(() => api.info(4, 'postmessage')?.live, { what: 'live again' });
  // The browser says the tab was closed (its content port may linger a moment).
  fake.removeTab(4);
  assert.equal(keys(4), null);
  assert.equal(api.info(4, 'postmessage'), null);
  panel.close();
  page.close();
});

test('a new page in the same tab (a new content port) replaces the old page\'s connections', async () => {
  const a = openPage(fake, { tabId: 5, url: 'http://app.test/a', metas: ['postmessage'], engine: createTodoEngine() });
  await until(() => api.info(5, 'postmessage')?.live, { what: 'page a live' });
  const b = openPage(fake, { tabId: 5, url: 'http://app.test/b', metas: ['ws://b.test/slop'] });
  await until(() => keys(5)?.[0] === 'ws://b.test/slop', { what: 'page b\'s provider' });
  assert.deepEqual(keys(5), ['ws://b.test/slop']);
  assert.equal(api.tabs().find((t) => t.tabId === 5)?.pageUrl, 'http://app.test/b');
  // The old page's port closing now changes nothing: the tab is the new page's.
  a.close();
  assert.deepEqual(keys(5), ['ws://b.test/slop']);
  b.close();
  await until(() => keys(5) === null, { what: 'tab 5 gone' });
});
