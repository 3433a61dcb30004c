// Smoke test of the real DevTools: the devtools page creates the "SLOP" panel, and the panel,
// shown inside DevTools, takes its tab from chrome.devtools.inspectedWindow.tabId and shows the
// live tree. DevTools targets are hidden from Playwright, so this goes through a browser CDP
// session. It relies on DevTools-internal module paths that
// work in Chromium 156; the other panel tests open panel.html?tabId=N as a page instead.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, until, TEST_TIMEOUT } from './helpers.mjs';

/** Runtime.evaluate in hidden targets through Target.sendMessageToTarget (flatten: false). */
async function cdpEvaluator(browserCtx) {
  const cdp = await browserCtx.browser().newBrowserCDPSession();
  let seq = 0;
  const waiters = new Map();
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    const m = JSON.parse(e.message);
    waiters.get(m.id)?.(m);
    waiters.delete(m.id);
  });
  const sessions = new Map();
  const attach = async (targetId) => {
    if (!sessions.has(targetId)) sessions.set(targetId, (await cdp.send('Target.attachToTarget', { targetId, flatten: false })).sessionId);
    return sessions.get(targetId);
  };
  return {
    targets: async () => (await cdp.send('Target.getTargets')).targetInfos,
    async evaluate(targetId, expression, timeout = 5000) {
      const sessionId = await attach(targetId);
      const id = ++seq;
      const reply = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => { waiters.delete(id); reject(new Error(`no CDP answer for ${expression.slice(0, 60)}`)); }, timeout);
        waiters.set(id, (m) => { clearTimeout(timer); resolve(m); });
        cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method: 'Runtime.evaluate', params: { expression, awaitPromise: true, returnByValue: true } }) });
      });
      if (reply.error || reply.result?.exceptionDetails) throw new Error(JSON.stringify(reply.error ?? reply.result.exceptionDetails).slice(0, 300));
      return reply.result.result.value;
    },
    detach: () => cdp.detach().catch(() => {}),
  };
}

describe('DevTools panel', () => {
  let browser;
  let srv;

  before(async () => {
    srv = await startProvider({ engine: createMailEngine({ live: false }) });
    browser = await launch({ extraArgs: ['--auto-open-devtools-for-tabs'] });
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('the SLOP panel inside DevTools shows the inspected tab’s live tree', { timeout: TEST_TIMEOUT }, async () => {
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    const { tabId } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0);
    const cdp = await cdpEvaluator(browser.ctx);
    try {
      // The DevTools window of our tab, then its "SLOP" tab.
      const frontend = await until(async () => {
        for (const t of (await cdp.targets()).filter((x) => x.url.startsWith('devtools://devtools/'))) {
          const url = await cdp.evaluate(t.targetId, `(async () => { const SDK = await import('./core/sdk/sdk.js');
            return SDK.TargetManager.TargetManager.instance().primaryPageTarget()?.inspectedURL() ?? ''; })()`).catch(() => '');
          if (url.includes('/pages/meta-ws.html')) return t.targetId;
        }
        return null;
      }, { what: 'the DevTools window of the page' });
      const panelId = await until(() => cdp.evaluate(frontend, `(async () => { const UI = await import('./ui/legacy/legacy.js');
        const iv = UI.InspectorView.InspectorView.instance();
        const id = iv.tabbedPane.tabIds().find((x) => x.startsWith('chrome-extension://') && x.endsWith('SLOP'));
        if (id) await iv.showPanel(id);
        return id ?? null; })()`), { what: 'the SLOP panel tab in DevTools' });
      assert.match(panelId, /SLOP$/);

      const panelTarget = await until(async () => (await cdp.targets())
        .find((t) => t.url === `chrome-extension://${browser.extId}/extension/panel/panel.html`)?.targetId, { what: 'the panel iframe' });
      const state = await until(async () => {
        const s = await cdp.evaluate(panelTarget, `JSON.stringify({ inDevtools: document.body.dataset.inDevtools,
          theme: document.documentElement.dataset.theme, themeSource: document.body.dataset.themeSource,
          tabId: window.slopPanel?.store.tabId ?? null,
          rows: [...document.querySelectorAll('#tree .row[data-path]')].map((r) => r.dataset.path) })`);
        const v = JSON.parse(s);
        return v.rows.includes('/inbox') ? v : null;
      }, { what: 'the tree in the DevTools panel' });
      assert.equal(state.inDevtools, 'true');
      // The panel follows the DevTools theme (default: light).
      assert.equal(state.themeSource, 'devtools');
      assert.equal(state.theme, 'light');
      assert.equal(state.tabId, tabId);
      assert.ok(state.rows.includes('/compose'));

      // $slop in the page's console: the node selected in the panel, the provider, the tree; read-only.
      await cdp.evaluate(panelTarget, `window.slopPanel.reveal('/inbox'), true`);
      const got = await until(async () => {
        const v = await page.evaluate(() => {
          const s = /** @type {any} */ (globalThis).$slop;
          if (!s || s.path !== '/inbox') return null;
          try { s.node.id = 'changed'; } catch { /* strict code throws; this is sloppy and ignored */ }
          return { path: s.path, id: s.node.id, type: s.node.type, provider: s.provider.id, root: s.tree?.id, kids: s.tree?.children?.map((c) => c.id),
            frozen: Object.isFrozen(s) && Object.isFrozen(s.node) && Object.isFrozen(s.tree), json: JSON.parse(s.nodeJSON).id };
        });
        return v;
      }, { what: '$slop in the page following the panel\'s selection' });
      assert.deepEqual({ ...got, kids: undefined }, { path: '/inbox', id: 'inbox', type: got.type, provider: got.provider, root: got.root, kids: undefined, frozen: true, json: 'inbox' }, 'the id is unchanged: read-only');
      assert.ok(got.kids.includes('inbox') && got.kids.includes('compose'), `the tree: ${got.kids}`);
      assert.equal(got.provider, srv.engine.id ?? got.provider);
    } finally {
      await cdp.detach();
    }
    await page.close();
  });
});
