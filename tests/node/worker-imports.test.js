// A file opened read-only in the panel (extension/service-worker/imports.js) in Node: the whole
// worker with a fake browser and the real core (fake-browser.js). The core validates the
// document; the import is then read like a connection (GET_NODES, GET_TREE, AGENT_VIEW) under its
// key until CLOSE_IMPORT or its port's end, and nothing it holds can be invoked.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, openUi } from './fake-browser.js';
import { Request, ErrorCode } from '../../extension/shared/messages.js';

const { fake } = await startWorker();
const panel = openUi(fake, { tabId: 9 });
after(() => panel.close());

/** An export of the panel, as Export writes it (a provider, a version, the tree), a number written 1.50. */
const EXPORT = JSON.stringify({
  format: 'slop-inspector/export', provider: { id: 'mail', name: 'Mail' }, version: 12, exportedAt: '2026-11-29T10:00:00Z',
  tree: {
    id: 'root', type: 'root', children: [
      { id: 'inbox', type: 'collection', properties: { unread: 2 }, children: [
        { id: 'm1', type: 'item', properties: { subject: 'Hello', size: 1.50 }, affordances: [{ action: 'open' }] },
        { id: 'm2', type: 'item', properties: { subject: 'Bills' } },
      ] },
    ],
  },
}).replace('"size":1.5', '"size":1.50');

test('INSPECT_TREE loads a file through the core; it is read like a connection and cannot be invoked', async () => {
  const r = await panel.ask(Request.INSPECT_TREE, { text: EXPORT, name: 'mail.json' });
  assert.match(r.key, /^import:/);
  assert.equal(r.name, 'mail.json');
  assert.equal(r.version, 12);
  assert.deepEqual(r.nodes.map((/** @type {any} */ n) => n.path), ['/', '/inbox', '/inbox/m1', '/inbox/m2']);
  assert.equal(r.complete, true);
  const nodes = await panel.ask(Request.GET_NODES, { key: r.key, sub: r.sub, paths: ['/inbox/m2', '/inbox/gone'] });
  assert.deepEqual(nodes.nodes.map((/** @type {any} */ n) => n.properties.subject), ['Bills']);
  assert.deepEqual(nodes.missing, ['/inbox/gone']);
  const tree = await panel.ask(Request.GET_TREE, { key: r.key, sub: r.sub });
  assert.match(tree.treeText, /"size":1\.50/, 'the file\'s number text is kept');
  const agent = await panel.ask(Request.AGENT_VIEW, { key: r.key, sub: r.sub });
  assert.match(agent.treeText, /Hello/);
  const invoke = await panel.request(Request.INVOKE, { key: r.key, path: '/inbox/m1', action: 'open' });
  assert.equal(invoke.ok, false, 'an import has no provider behind it');
  await panel.ask(Request.CLOSE_IMPORT, { key: r.key });
  const after = await panel.request(Request.GET_TREE, { key: r.key, sub: r.sub });
  assert.equal(after.error.code, ErrorCode.NOT_FOUND);
});

test('a file the core refuses fails with INVALID_TREE and its reason; a bare node tree and a snapshot message load too', async () => {
  const bad = await panel.request(Request.INSPECT_TREE, { text: '{"id":"root","type":"root","children":[{"id":"a"},{"id":"a"}]}', name: 'dup.json' });
  assert.equal(bad.error.code, ErrorCode.INVALID_TREE);
  assert.ok(bad.error.message.length > 0);
  const notJson = await panel.request(Request.INSPECT_TREE, { text: '{"id":', name: 'cut.json' });
  assert.equal(notJson.error.code, ErrorCode.INVALID_TREE);
  const bare = await panel.ask(Request.INSPECT_TREE, { text: '{"id":"root","type":"root","properties":{"n":1}}', name: 'bare.json' });
  assert.deepEqual(bare.nodes.map((/** @type {any} */ n) => n.id), ['root']);
  const snap = await panel.ask(Request.INSPECT_TREE, { text: '{"type":"snapshot","id":"s","version":4,"tree":{"id":"root","type":"root"}}', name: 'snap.json' });
  assert.equal(snap.version, 4);
  const missingText = await panel.request(Request.INSPECT_TREE, { name: 'x.json' });
  assert.equal(missingText.error.code, ErrorCode.BAD_REQUEST);
});

test('an import goes with the port that opened it', async () => {
  const other = openUi(fake, { tabId: 9 });
  const r = await other.ask(Request.INSPECT_TREE, { text: EXPORT, name: 'mine.json' });
  other.close();
  const gone = await panel.request(Request.GET_TREE, { key: r.key, sub: r.sub });
  assert.equal(gone.ok, false);
});
