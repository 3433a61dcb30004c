// The panel <-> service worker requests a richer panel builds on (extension/shared/messages.js):
// getNodes, query with a window, an extra subscription (its tree arrives as tree/reset), unsubscribe,
// agentView, validateParams, and errors for bad requests. Sent through the panel's own bridge.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openPanel, until, TEST_TIMEOUT } from './helpers.mjs';

describe('panel protocol', () => {
  let browser;
  let srv;

  before(async () => {
    srv = await startProvider({ engine: createMailEngine({ live: false }) });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('requests answer as the catalogue says', { timeout: TEST_TIMEOUT }, async () => {
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0);
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/inbox"]', { timeout: 10_000 });
    const req = (type, fields) => panel.evaluate(([t, f]) => window.slopPanel.request(t, f)
      .then((result) => ({ ok: true, result }), (e) => ({ ok: false, code: e.code, message: e.message })), [type, fields]);
    const key = provider.key;

    const nodes = await req('getNodes', { key, sub: provider.primarySub, paths: ['/inbox/msg-300', '/no/such/node'] });
    assert.equal(nodes.ok, true);
    assert.deepEqual(nodes.result.nodes.map((n) => n.path), ['/inbox/msg-300']);
    assert.deepEqual(nodes.result.missing, ['/no/such/node']);
    assert.ok(Array.isArray(nodes.result.nodes[0].child_ids));

    const q = await req('query', { key, options: { path: '/inbox', depth: 1, window: [10, 5] } });
    assert.equal(q.ok, true);
    assert.equal(q.result.event.event, 'query');
    assert.equal(q.result.event.tree.children.length, 5);
    assert.equal(q.result.event.tree.children[0].id, 'msg-290');

    const sub = await req('subscribe', { key, options: { path: '/folders', depth: -1 } });
    assert.equal(sub.ok, true);
    const tree = await until(() => panel.evaluate(([k, s]) => {
      const t = window.slopPanel.store.tree(k, s);
      return t && t.nodes.size > 0 ? { path: t.path, paths: [...t.nodes.keys()] } : null;
    }, [key, sub.result.sub]), { what: 'the extra subscription’s tree/reset' });
    assert.equal(tree.path, '/folders');
    assert.ok(tree.paths.includes('/folders/trash'));
    assert.equal((await req('unsubscribe', { key, sub: sub.result.sub })).ok, true);

    const agent = await req('agentView', { key });
    assert.equal(agent.ok, true);
    assert.match(agent.result.treeText, /acme-mail/);
    assert.ok(agent.result.tools.tools.some((t) => /send/.test(t.name)));

    const bad = await req('validateParams', { schema: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] }, params: {} });
    assert.deepEqual(bad.result.errors, [{ code: 'required', path: ['to'], message: 'params.to is required' }]);
    const good = await req('validateParams', { schema: { type: 'object', properties: { to: { type: 'string' } } }, params: { to: 'x' } });
    assert.equal(good.result.errors, null);

    // The core refuses bad params locally; unknown providers and request types are errors.
    const refused = await req('invoke', { key, path: '/compose', action: 'send', params: { to: 1 } });
    assert.equal(refused.ok, false);
    assert.equal(refused.code, 'E_PARAMS');
    assert.equal((await req('invoke', { key: 'ws://nowhere/slop', path: '/', action: 'x' })).code, 'not_found');
    assert.equal((await req('noSuchRequest', {})).code, 'bad_request');
    await panel.close();
    await page.close();
  });
});
