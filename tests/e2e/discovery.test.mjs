// Discovery routes: <meta name="slop"> with a ws:// URL, with "postmessage", /.well-known/slop
// without a meta tag, and meta tags added, changed and removed while the page runs.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { deepEqual, canonicalChildren } from '../fixtures/provider/state.mjs';
import {
  launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, mirror, tabInfo, until, TEST_TIMEOUT,
} from './helpers.mjs';

describe('discovery', () => {
  let browser;
  let srv;
  let quiet; // a server without /.well-known/slop, for the run-time meta tag test

  before(async () => {
    [srv, quiet] = await Promise.all([startProvider({ alt: true }), startProvider({ alt: true, wellKnown: false })]);
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    await setTokenInExtension(browser.ctx, wsOrigin(quiet), quiet.token);
    await setTokenInExtension(browser.ctx, `ws://127.0.0.1:${quiet.altPort}`, quiet.token);
  });
  after(async () => {
    await browser?.close();
    await Promise.all([srv?.close(), quiet?.close()]);
  });

  test('a meta tag naming a ws:// provider connects, with the name from hello and the mirror equal to the provider', { timeout: TEST_TIMEOUT }, async () => {
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.url('/pages/meta-ws.html'),
      (p) => p.status === 'connected' && p.subscriptions[0]?.state === 'live');
    assert.equal(provider.source, 'meta');
    assert.equal(provider.transport.url, srv.wsUrl);
    assert.equal(provider.provider.id, srv.engine.provider.id);
    assert.equal(provider.provider.name, srv.engine.provider.name);
    assert.equal(provider.classification, 'same-origin');
    assert.ok(provider.capabilities.includes('state'));
    assert.deepEqual(await mirror(browser.ctx, tabId, provider.key), canonicalChildren(srv.engine.truth('/', -1, { max_nodes: 20000 })));
    await page.close();
  });

  test('a "postmessage" meta tag connects to the in-page provider through the relay', { timeout: TEST_TIMEOUT }, async () => {
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/spa.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.url('/pages/spa.html'),
      (p) => p.status === 'connected' && p.subscriptions[0]?.state === 'live');
    assert.equal(provider.key, 'postmessage');
    assert.equal(provider.provider.name, 'Todo SPA');
    const tree = await mirror(browser.ctx, tabId, 'postmessage');
    assert.deepEqual(tree.children.map((c) => c.id), ['todos']);
    assert.deepEqual(tree.children[0].children.map((c) => c.properties.title), ['Buy milk', 'Write report', 'Call Alice']);
    await page.close();
  });

  test('without a meta tag the provider is found through /.well-known/slop', { timeout: TEST_TIMEOUT }, async () => {
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/wellknown.html'));
    const { provider } = await waitForProvider(browser.ctx, srv.url('/pages/wellknown.html'),
      (p) => p.status === 'connected');
    assert.equal(provider.source, 'well-known');
    assert.equal(provider.transport.url, srv.wsUrl);
    await page.close();
  });

  test('meta tags added, changed and removed at run time open, replace and close connections', { timeout: TEST_TIMEOUT }, async () => {
    const page = await browser.ctx.newPage();
    const url = quiet.url('/pages/dynamic-meta.html');
    await page.goto(url);
    // No tag and no /.well-known/slop: the tab has nothing.
    await until(async () => (await tabInfo(browser.ctx, url))?.providers.length === 0, { what: 'an empty tab' });

    await page.evaluate(() => window.slopMeta.add());
    await waitForProvider(browser.ctx, url, (p) => p.key === quiet.wsUrl && p.status === 'connected');

    // A second tag, in <body>, for another endpoint: both are connected.
    const altWs = `ws://127.0.0.1:${quiet.altPort}/slop`;
    await page.evaluate((u) => window.slopMeta.addToBody(u), altWs);
    await waitForProvider(browser.ctx, url, (p) => p.key === altWs && p.status === 'connected');
    assert.equal((await tabInfo(browser.ctx, url)).providers.length, 2);

    // Change the first tag to "postmessage" and start the page's provider: the ws connection
    // of that tag goes, an in-page one comes.
    await page.evaluate(async () => {
      await window.slopMeta.startPostMessageProvider({ app: 'todo', live: false });
      window.slopMeta.set('postmessage', 0);
    });
    await waitForProvider(browser.ctx, url, (p) => p.key === 'postmessage' && p.status === 'connected');
    await until(async () => {
      const keys = (await tabInfo(browser.ctx, url)).providers.map((p) => p.key).sort();
      return deepEqual(keys, [altWs, 'postmessage'].sort());
    }, { what: 'the first ws connection to be replaced' });

    // Remove them all: nothing is left.
    await page.evaluate(() => window.slopMeta.removeAll());
    await until(async () => (await tabInfo(browser.ctx, url))?.providers.length === 0, { what: 'all connections closed' });
    await until(() => quiet.sessions.size === 0, { what: 'the provider to see its sockets closed' });
    await page.close();
  });

  test('an invalid meta tag is reported, not connected', { timeout: TEST_TIMEOUT }, async () => {
    const page = await browser.ctx.newPage();
    const url = quiet.url('/pages/dynamic-meta.html?bad');
    await page.goto(url);
    await page.evaluate(() => window.slopMeta.add('ftp://example.com/slop'));
    const t = await until(async () => {
      const info = await tabInfo(browser.ctx, url);
      return info?.problems.length ? info : null;
    }, { what: 'a reported problem' });
    assert.equal(t.providers.length, 0);
    assert.match(t.problems[0].error, /ws|postmessage/i);
    await page.close();
  });
});
