// Firefox smoke test: the same build/extension that Chromium loads, as a temporary add-on in
// Debian's Firefox ESR (headless, puppeteer-core over WebDriver BiDi; see helpers.mjs).
//
//   - the options page stores the tokens (typed into its form, as a user would: the token is
//     never handed to a web page or a page-world script);
//   - the content script discovers a <meta name="slop" content="ws://…"> provider; the
//     background page (module event page in Firefox) runs the wasm core and connects with
//     ["slop.bearer", token] from moz-extension://<pinned UUID>; the panel shows the live tree;
//   - a server that accepts the token but echoes no subprotocol: Firefox opens that socket (Chrome
//     fails the handshake), and the extension must still refuse it (close 4001, "auth failed");
//   - the postMessage relay (content script under Firefox's Xray wrappers): an SPA's provider
//     shows up, an invoke from the panel reaches the page and its result comes back, and forged
//     frames from cross-origin and same-origin iframes are dropped;
//   - nothing of the extension threw or logged an error (Firefox's stdout);
//   - a screenshot of the panel: build/screenshots/firefox-panel.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { launchFirefox, extensionPage, webPage, until, sleep, ROOT } from './helpers.mjs';
import { Request } from '../../extension/shared/messages.js';

const SUITE_TIMEOUT = 75_000;
const STEP = { timeout: 25_000 };

/** Per-connection record at the server: what the extension offered and did. */
function recorder() {
  const conns = [];
  return {
    conns,
    onSession(session, ws, req) {
      const c = { origin: req.headers.origin ?? null, offered: req.headers['sec-websocket-protocol'] ?? '',
        protocol: ws.protocol, received: [], closeCode: null };
      conns.push(c);
      ws.on('message', (data) => c.received.push(String(data)));
      ws.on('close', (code) => { c.closeCode = code; });
    },
  };
}

/** The panel's view of its tab: {providers, selected, tree: {version, paths}} (read-only). */
function panelState(panel) {
  return panel.evaluate(() => {
    const s = window.slopPanel.store;
    const key = window.slopPanel.selectedKey();
    const p = key ? s.provider(key) : null;
    const t = p?.primarySub ? s.tree(p.key, p.primarySub) : null;
    return {
      providers: s.providers.map((x) => ({ key: x.key, status: x.status, message: x.message, name: x.provider?.name ?? null,
        tokenSet: x.tokenSet, nodes: x.nodes })),
      selected: key,
      tree: t ? { version: t.version, paths: [...t.nodes.keys()] } : null,
      log: key ? (s.logs.get(key) ?? []).map((e) => ({ dir: e.dir, type: e.type, text: e.text })) : [],
    };
  });
}

test('Firefox ESR: discovery, wasm core, WebSocket auth, postMessage relay, panel', { timeout: SUITE_TIMEOUT }, async (t) => {
  const good = recorder();
  const noEcho = recorder();
  let ff = null;
  let srv = null;
  let bare = null;
  const pages = {};
  try {
    const t0 = Date.now();
    ff = await launchFirefox();
    const timing = [`firefox up + add-on installed ${Date.now() - t0} ms`];
    // Only this add-on's origin may open the sockets (the pinned UUID makes it known).
    [srv, bare] = await Promise.all([
      startWsProvider({ engine: createMailEngine({ live: false }), alt: true, allowedOrigins: [ff.extOrigin], onSession: good.onSession }),
      startWsProvider({ allowedOrigins: [ff.extOrigin], noSubprotocolEcho: true, onSession: noEcho.onSession }),
    ]);

    await t.test('the options page stores both tokens (masked afterwards)', STEP, async () => {
      const options = await extensionPage(ff, 'extension/options/options.html');
      pages.options = options;
      assert.equal(await options.$eval('#ext-origin', (e) => e.textContent), ff.extOrigin, 'the pinned UUID is the extension origin');
      for (const [origin, token] of [[srv.origin, srv.token], [bare.origin, bare.token]]) {
        await options.$eval('#token-origin', (e, v) => { e.value = v; }, origin); // the address is not secret
        await options.type('#token-value', token);
        await options.click('#token-form button[type="submit"]');
        await options.waitForFunction((o) => document.getElementById('token-message').classList.contains('ok') &&
          document.querySelector(`#tokens tr[data-origin="${o}"]`), { timeout: 5000 }, origin.replace(/^http/, 'ws'));
      }
      const listed = await options.$eval('#tokens tbody', (e) => e.textContent);
      assert.match(listed, /64 characters/);
      for (const s of [srv, bare]) assert.ok(!listed.includes(s.token), 'the token is not shown');
      assert.equal(await options.$eval('#token-value', (e) => e.value), '', 'the form is cleared');
    });

    pages.ws = await webPage(ff, srv.url('/pages/meta-ws.html'));
    pages.noEcho = await webPage(ff, bare.url('/pages/meta-ws.html'));
    pages.spa = await webPage(ff, srv.url('/pages/spa.html'));
    pages.forged = await webPage(ff, srv.url('/pages/forged.html'));
    const tabIds = await pages.options.evaluate(async () => Object.fromEntries((await browser.tabs.query({})).map((x) => [x.url, x.id])));
    const tabOf = (page) => {
      const id = tabIds[page.url()];
      assert.ok(Number.isInteger(id), `tab id of ${page.url()} in ${JSON.stringify(tabIds)}`);
      return id;
    };

    await t.test('meta tag → background wasm core → WebSocket with slop.bearer → live tree in the panel', STEP, async () => {
      const panel = await extensionPage(ff, `extension/panel/panel.html?tabId=${tabOf(pages.ws)}`);
      pages.panel = panel;
      const st = await until(async () => {
        const s = await panelState(panel);
        return s.providers[0]?.status === 'connected' && s.tree?.paths.includes('/inbox') ? s : null;
      }, { what: 'the WebSocket provider to connect and its tree to reach the panel', timeout: 15_000 });
      timing.push(`ws provider connected, tree in panel ${Date.now() - t0} ms`);
      assert.equal(st.providers.length, 1);
      assert.equal(st.providers[0].key, srv.wsUrl);
      assert.equal(st.providers[0].name, srv.engine.provider.name, 'hello parsed by the wasm core');
      assert.equal(st.providers[0].tokenSet, true);
      // At the server: the extension's origin, the token offered as the second subprotocol, and
      // exactly slop.bearer selected.
      assert.ok(good.conns.length >= 1);
      const c = good.conns.at(-1);
      assert.equal(c.origin, ff.extOrigin);
      assert.equal(c.offered, `slop.bearer, ${srv.token}`);
      assert.equal(c.protocol, 'slop.bearer');
      assert.ok(c.received.some((f) => JSON.parse(f).type === 'subscribe'), 'the core subscribed');
      // The core answers the panel's requests (params are checked by the wasm core).
      const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };
      const bad = await panel.evaluate(([t, sc]) => window.slopPanel.request(t, { schema: sc, params: { title: 42 } }), [Request.VALIDATE_PARAMS, schema]);
      assert.deepEqual(bad.errors.map((e) => e.path), [['title']], JSON.stringify(bad));
      const fine = await panel.evaluate(([t, sc]) => window.slopPanel.request(t, { schema: sc, params: { title: 'x' } }), [Request.VALIDATE_PARAMS, schema]);
      assert.equal(fine.errors, null);
      await panel.waitForSelector('#tree .row[data-path="/inbox"]', { timeout: 5000 });
      // The bar renders once per animation frame after the store changes: wait for it.
      await panel.waitForSelector('#status[data-status="connected"]', { timeout: 5000 });

      // Live: a change at the provider shows up in the panel.
      srv.engine.mutate((root) => {
        root.children.push({ id: 'firefox-live', type: 'group', properties: { label: 'Added while Firefox watched' } });
      });
      await panel.waitForSelector('#tree .row[data-path="/firefox-live"]', { timeout: 5000 });
      assert.match(await panel.$eval('#tree .row[data-path="/firefox-live"]', (e) => e.textContent), /Added while Firefox watched/);
      const st2 = await panelState(panel);
      assert.equal(st2.tree.version, srv.engine.version);
      assert.ok(!(await pages.ws.content()).includes(srv.token), 'the token is not in the page');

      await panel.click('#tree .row[data-path="/inbox"]');
      await sleep(300); // the detail pane renders
      const dir = path.join(ROOT, 'build/screenshots');
      await fs.mkdir(dir, { recursive: true });
      await panel.screenshot({ path: path.join(dir, 'firefox-panel.png') });
    });

    await t.test('a server that selects no subprotocol: Firefox opens the socket, the extension refuses it', STEP, async () => {
      const panel = await extensionPage(ff, `extension/panel/panel.html?tabId=${tabOf(pages.noEcho)}`);
      const st = await until(async () => {
        const s = await panelState(panel);
        return s.providers[0]?.status === 'auth-failed' ? s : null;
      }, { what: 'the no-echo provider to be refused', timeout: 15_000 });
      assert.match(st.providers[0].message, /did not accept slop\.bearer/);
      assert.equal(st.tree, null, 'no tree from a refused provider');
      await until(() => noEcho.conns.length >= 1 && noEcho.conns[0].closeCode !== null, { what: 'the refused socket to close' });
      const c = noEcho.conns[0];
      assert.equal(c.origin, ff.extOrigin);
      assert.equal(c.offered, `slop.bearer, ${bare.token}`, 'the token was offered (and matched: the server upgraded)');
      assert.equal(c.protocol, '', 'the server selected no subprotocol, and Firefox still opened the socket');
      assert.equal(c.closeCode, 4001, 'the extension closed it with CLOSE_SUBPROTOCOL_REJECTED');
      for (const conn of noEcho.conns) assert.deepEqual(conn.received, [], 'nothing was sent on a refused socket');
      await panel.waitForSelector('#status[data-status="auth-failed"]', { timeout: 5000 });
      await panel.close();
      // The toolbar popup (as a tab) says the same.
      const popup = await extensionPage(ff, `extension/popup/popup.html?tabId=${tabOf(pages.noEcho)}`);
      await popup.waitForSelector(`.provider[data-key="${bare.wsUrl}"] .pill[data-status="auth-failed"]`, { timeout: 5000 });
      await popup.close();
    });

    await t.test('postMessage relay: SPA provider, invoke round trip through the page', STEP, async () => {
      const panel = await extensionPage(ff, `extension/panel/panel.html?tabId=${tabOf(pages.spa)}`);
      await until(async () => {
        const s = await panelState(panel);
        return s.providers[0]?.status === 'connected' && s.tree?.paths.includes('/todos/t3') ? s : null;
      }, { what: 'the SPA provider to connect over postMessage' });
      const st = await panelState(panel);
      assert.equal(st.providers[0].key, 'postmessage');
      assert.equal(st.providers[0].name, 'Todo SPA');
      // The page's provider got the core's connect/subscribe through the content script.
      const received = await pages.spa.evaluate(() => window.slopProvider.received.map((m) => m.type));
      assert.ok(received.includes('subscribe'), JSON.stringify(received));

      const result = await panel.evaluate((t) => window.slopPanel.request(t,
        { key: 'postmessage', path: '/todos', action: 'add', params: { title: 'Added from Firefox' } }), Request.INVOKE);
      assert.equal(result.event.event, 'result');
      assert.equal(result.event.status, 'ok', JSON.stringify(result.event));
      await panel.waitForSelector('#tree .row[data-path="/todos/t4"]', { timeout: 5000 });
      await pages.spa.waitForSelector('[data-testid="todo-list"] li[data-id="t4"]', { timeout: 5000 });
      await panel.close();
    });

    await t.test('postMessage relay: forged frames from cross-origin and same-origin iframes are dropped', STEP, async () => {
      const panel = await extensionPage(ff, `extension/panel/panel.html?tabId=${tabOf(pages.forged)}`);
      await until(async () => {
        const s = await panelState(panel);
        return s.providers[0]?.status === 'connected' && s.tree?.paths.includes('/todos') ? s : null;
      }, { what: 'the forged page’s real provider to connect' });
      // Every forger posts a batch every 500 ms: wait for a few after we connected.
      const batches = (who) => {
        const frame = pages.forged.frames().find((f) => f.url().includes(`who=${who}`));
        return frame ? frame.evaluate(() => Number(/#(\d+)/.exec(document.getElementById('out').textContent)?.[1] ?? 0)) : 0;
      };
      const start = { cross: await batches('cross-origin'), same: await batches('same-origin') };
      await until(async () => (await batches('cross-origin')) >= start.cross + 3 && (await batches('same-origin')) >= start.same + 3,
        { what: 'the forgers to post 3 more batches' });
      const st = await panelState(panel);
      assert.equal(st.providers.length, 1);
      assert.equal(st.providers[0].name, 'Todo SPA');
      assert.ok(!st.tree.paths.some((p) => /forged/i.test(p)));
      const incoming = st.log.filter((e) => e.dir === 'in');
      assert.ok(incoming.length > 0, 'the frame log has the real frames');
      for (const e of incoming) assert.ok(!/FORGED|evil|forged/.test(e.text), `forged frame relayed: ${e.text.slice(0, 200)}`);
      const treeText = await panel.$eval('#tree', (e) => e.textContent);
      assert.ok(!/FORGED/.test(treeText));
      await panel.close();
    });

    await t.test('no uncaught error and no error logged by the extension (background page included)', async () => {
      // The background page cannot be evaluated in; Firefox prints its uncaught errors, and
      // (devtools.console.stdout.content) its console, on stdout.
      const ours = ff.output.filter((l) => l.includes(`JavaScript error: ${ff.extOrigin}/`) ||
        /^console\.(error|warn): "SLOP Inspector/.test(l));
      assert.deepEqual(ours, []);
      const all = ff.output.join('\n');
      for (const s of [srv, bare]) assert.ok(!all.includes(s.token), 'no token in Firefox\'s output');
    });

    t.diagnostic(timing.join('; '));
  } finally {
    await ff?.close();
    await Promise.all([srv?.close(), bare?.close()]);
  }
});
