// Security rules end to end: forged postMessage traffic from cross-origin and same-origin frames
// never reaches the mirror (the relay checks event.source and event.origin before reading), and
// the bearer token appears nowhere a page or a log could see it.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, mirror, swEval, openPanel,
  openExtensionPage, collectConsole, until, TEST_TIMEOUT,
} from './helpers.mjs';
import { generateToken } from '../fixtures/provider/ws-server.mjs';

/** Text of the forger frame's counter ("who: forged batch #N") → N. */
async function forgedBatches(page, who) {
  const frame = page.frames().find((f) => f.url().includes(`who=${who}`));
  if (!frame) return 0;
  const text = await frame.evaluate(() => document.getElementById('out')?.textContent ?? '').catch(() => '');
  return Number(/#(\d+)/.exec(text)?.[1] ?? 0);
}

describe('security', () => {
  let browser;
  let srv;
  let other;
  let consoleLines;
  const wrongToken = generateToken();

  before(async () => {
    [srv, other] = await Promise.all([startProvider({ alt: true }), startProvider()]);
    browser = await launch();
    consoleLines = collectConsole(browser.ctx);
    // Everything a page receives by postMessage, recorded in the page's own world.
    await browser.ctx.addInitScript(() => {
      window.__slopSeen = [];
      window.addEventListener('message', (e) => {
        try { window.__slopSeen.push(JSON.stringify(e.data)); } catch { window.__slopSeen.push(String(e.data)); }
      }, true);
    });
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    await setTokenInExtension(browser.ctx, wsOrigin(other), wrongToken);
  });
  after(async () => {
    await browser?.close();
    await Promise.all([srv?.close(), other?.close()]);
  });

  test('forged messages from cross-origin and same-origin frames are ignored', { timeout: TEST_TIMEOUT }, async () => {
    const url = srv.url('/pages/forged.html');
    const page = await browser.ctx.newPage();
    await page.goto(url);
    const { tabId } = await waitForProvider(browser.ctx, url, (p) => p.key === 'postmessage' && p.status === 'connected' && p.nodes > 0);

    // A forger that knows our real request ids (read from the frame log) makes it harder.
    const ids = await swEval(browser.ctx, ([t]) => globalThis.slopInspector.log(t, 'postmessage')
      .filter((e) => e.dir === 'out').map((e) => JSON.parse(e.text).id).filter(Boolean), [tabId]);
    assert.ok(ids.length > 0);
    await page.evaluate(([alt, idList]) => {
      const f = document.createElement('iframe');
      f.src = `${alt}/pages/forged-frame.html?who=targeted&interval=100&ids=${encodeURIComponent(idList.join(','))}`;
      document.body.append(f);
    }, [srv.altOrigin, ids]);

    // Let every forger post several batches after we connected.
    await until(async () => (await forgedBatches(page, 'cross-origin')) >= 3 && (await forgedBatches(page, 'same-origin')) >= 3 &&
      (await forgedBatches(page, 'targeted')) >= 5, { what: 'the forgers to post' });

    const info = await swEval(browser.ctx, (t) => globalThis.slopInspector.info(t, 'postmessage'), tabId);
    assert.equal(info.provider.name, 'Todo SPA');
    assert.equal(info.provider.id, 'todo-spa');
    const tree = JSON.stringify(await mirror(browser.ctx, tabId, 'postmessage'));
    assert.ok(!/FORGED|forged/.test(tree), 'nothing forged in the mirror');
    const log = await swEval(browser.ctx, (t) => globalThis.slopInspector.log(t, 'postmessage'), tabId);
    const incoming = log.filter((e) => e.dir === 'in');
    assert.ok(incoming.length > 0);
    for (const e of incoming) assert.ok(!/FORGED|evil|forged/.test(e.text), `forged frame relayed: ${e.text.slice(0, 200)}`);
    // The page's provider never saw a forged consumer message either (its own check).
    const received = await page.evaluate(() => window.slopProvider.received.map((m) => m.id ?? m.type));
    assert.ok(!received.some((id) => String(id).startsWith('forged')), JSON.stringify(received));
    await page.close();
  });

  test('the token appears in no console, page, postMessage traffic or UI page', { timeout: TEST_TIMEOUT }, async () => {
    const pages = [];
    const open = async (u) => {
      const p = await browser.ctx.newPage();
      await p.goto(u);
      pages.push(p);
      return p;
    };
    await open(srv.url('/pages/meta-ws.html'));
    await open(srv.url('/pages/spa.html'));
    await open(other.url('/pages/meta-ws.html'));
    const ok = await waitForProvider(browser.ctx, srv.url('/pages/meta-ws.html'), (p) => p.status === 'connected' && p.nodes > 0);
    await waitForProvider(browser.ctx, srv.url('/pages/spa.html'), (p) => p.status === 'connected');
    const bad = await waitForProvider(browser.ctx, other.url('/pages/meta-ws.html'), (p) => p.status === 'auth-failed');

    // Extension pages that show these providers.
    const panel = await openPanel(browser.ctx, browser.extId, ok.tabId);
    await panel.waitForSelector('#tree .row[data-path="/"]', { timeout: 10_000 });
    await panel.click('#toggle-log');
    const badPanel = await openPanel(browser.ctx, browser.extId, bad.tabId);
    const popup = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${bad.tabId}`);
    const options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
    await options.locator('#tokens tbody tr').nth(1).waitFor({ timeout: 5000 });

    const secrets = [srv.token, wrongToken];
    const check = (where, text) => {
      for (const s of secrets) assert.ok(!String(text).includes(s), `token found in ${where}`);
    };
    for (const p of pages) {
      const where = p.url();
      check(`${where} DOM`, await p.content());
      check(`${where} postMessage traffic`, JSON.stringify(await p.evaluate(() => window.__slopSeen)));
      check(`${where} window properties`, await p.evaluate(() => {
        const out = [];
        for (const k of Object.getOwnPropertyNames(window)) {
          let v;
          try { v = window[k]; } catch { continue; }
          if (typeof v === 'string') out.push(`${k}=${v}`);
          else if (v && typeof v === 'object' && k.startsWith('slop')) {
            try { out.push(`${k}=${JSON.stringify(v, (key, val) => (typeof val === 'function' ? undefined : val))}`); } catch { /* cyclic */ }
          }
        }
        return out.join('\n') + document.cookie + JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage });
      }));
    }
    for (const [name, p] of [['panel', panel], ['panel (refused)', badPanel], ['popup', popup], ['options', options]]) {
      check(`${name} DOM`, await p.content());
      check(`${name} text`, await p.evaluate(() => document.body.innerText));
    }
    check('panel store', await panel.evaluate(() => {
      const s = window.slopPanel.store;
      return JSON.stringify({ providers: s.providers, logs: [...s.logs], events: [...s.events],
        trees: [...s.trees].map(([k, subs]) => [k, [...subs].map(([sub, t]) => [sub, [...t.nodes.values()]])]) });
    }));
    check('service worker status', JSON.stringify(await swEval(browser.ctx, () => globalThis.slopInspector.tabs())));
    // The collector does see the worker's console (so an empty result means something).
    await swEval(browser.ctx, () => console.info('slop-e2e console probe'));
    await until(() => consoleLines.some((l) => l.includes('slop-e2e console probe')), { what: 'the worker console probe' });
    check('console output', consoleLines.join('\n'));
    if (process.env.SLOP_E2E_DEBUG) console.log(consoleLines.join("\n"));
    for (const p of [...pages, panel, badPanel, popup, options]) await p.close();
  });
  test('each UI page asks only for what it shows: the popup and Options cannot invoke, watch or run an agent, whatever name their port gives', { timeout: TEST_TIMEOUT }, async () => {
    /** Opens a port from the page under `name`, says hello, sends one request; resolves with its reply. */
    const ask = (page, name, type, extra = {}) => page.evaluate(async ([n, t, x]) => {
      const port = chrome.runtime.connect({ name: n });
      port.postMessage({ type: 'ui/hello', v: 4, tabId: null });
      const reply = new Promise((resolve) => port.onMessage.addListener((m) => { if (m.type === 'sw/reply' && m.id === 7) resolve(m); }));
      port.postMessage({ type: t, id: 7, ...x });
      const r = await Promise.race([reply, new Promise((resolve) => setTimeout(() => resolve({ none: true }), 5000))]);
      port.disconnect();
      return r;
    }, [name, type, extra]);
    const popup = await openExtensionPage(browser.ctx, browser.extId, 'extension/popup/popup.html?tabId=1');
    const options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
    const panel = await openExtensionPage(browser.ctx, browser.extId, 'extension/panel/panel.html?tabId=1');
    try {
      for (const [page, what] of [[popup, 'popup'], [options, 'options']]) {
        for (const type of ['ui/invoke', 'ui/watch', 'ui/agent-run']) {
          // The port's name is the page's claim; the worker goes by the page's URL.
          const r = await ask(page, 'slop-panel', type, { key: 'x', path: '/', action: 'a' });
          assert.equal(r.ok, false, `${what} ${type}`);
          assert.equal(r.error.code, 'not_allowed', `${what} ${type}: ${JSON.stringify(r)}`);
          assert.match(r.error.message, new RegExp(`the ${what} page may not ask for ${type}`));
        }
      }
      // What each shows it may still ask: Options its local apps; the panel anything (here an
      // invoke on a provider that is not there: refused for that, not for the page).
      const local = await ask(options, 'slop-options', 'ui/local-apps');
      assert.equal(local.ok, true, JSON.stringify(local));
      const inv = await ask(panel, 'slop-panel', 'ui/invoke', { key: 'x', path: '/', action: 'a' });
      assert.equal(inv.ok, false);
      assert.equal(inv.error.code, 'not_found', JSON.stringify(inv));
    } finally {
      for (const p of [popup, options, panel]) await p.close();
    }
  });
});
