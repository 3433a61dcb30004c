// The live mirror: after a few hundred random mutations at the provider, the service worker's
// mirror equals the provider's own tree and the panel's node views equal the core's; an invoke
// from the panel changes the state (visible in the mirror, the panel and the page); and after the
// service worker is stopped (CDP), the state comes back without reloading the page.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { StateEngine, mulberry32, deepEqual, canonicalChildren } from '../fixtures/provider/state.mjs';
import {
  launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, mirror, swEval, openPanel,
  stopServiceWorker, until, sleep, TEST_TIMEOUT,
} from './helpers.mjs';

const SUB_OPTS = { max_nodes: 20000 };

function randomTree() {
  const n = (id, kids = []) => ({ id, type: 'group', properties: { label: id }, children: kids });
  return { id: 'root', type: 'root', properties: { label: 'random' },
    children: [n('a', [n('a1'), n('a2')]), n('b', [n('b1')]), n('c'), n('keep', [n('k1')])] };
}

/** The panel's node views of the selected provider's first subscription: {version, nodes}. */
function panelViews(panel) {
  return panel.evaluate(() => {
    const s = window.slopPanel.store;
    const p = s.provider(window.slopPanel.selectedKey());
    const t = p && s.tree(p.key, p.primarySub);
    return t ? { key: p.key, sub: t.sub, version: t.version, nodes: [...t.nodes.values()] } : null;
  });
}

/** Waits until every view the panel holds equals the core's view of the same path (and, if
 * given, the panel has seen `version`). */
async function panelMatchesCore(ctx, panel, tabId, { what, version }) {
  return until(async () => {
    const pv = await panelViews(panel);
    if (!pv || pv.nodes.length === 0 || (version !== undefined && pv.version !== version)) return false;
    const core = await swEval(ctx, ([t, k, sub, paths]) => globalThis.slopInspector.nodeViews(t, k, sub, paths),
      [tabId, pv.key, pv.sub, pv.nodes.map((n) => n.path)]);
    return core && pv.nodes.every((n, i) => deepEqual(n, core[i])) ? pv : false;
  }, { what, timeout: 20_000 });
}

describe('live mirror', () => {
  let browser;
  let srv;

  before(async () => {
    srv = await startProvider({ engine: new StateEngine({ id: 'random', name: 'Random provider', tree: randomTree() }) });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('after 300 random mutations the mirror equals the provider and the panel equals the mirror', { timeout: TEST_TIMEOUT }, async () => {
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0);
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/a"]', { timeout: 10_000 });

    const rng = mulberry32(20260115);
    const kinds = new Map();
    for (let i = 0; i < 300; i++) {
      const what = srv.engine.randomMutation(rng, { protect: ['/keep'] });
      const k = what.split(' ')[0];
      kinds.set(k, (kinds.get(k) ?? 0) + 1);
      if (i % 10 === 9) await sleep(5); // let frames interleave with the mutations
    }
    assert.ok(kinds.size >= 6, `mutation kinds: ${[...kinds.keys()]}`);

    // Wait for the last patch (its version), then compare whole trees.
    const truth = canonicalChildren(srv.engine.truth('/', -1, SUB_OPTS));
    const version = srv.engine.version;
    await until(async () => (await swEval(browser.ctx, ([t, k]) => globalThis.slopInspector.info(t, k), [tabId, provider.key]))
      ?.subscriptions[0].version === version, { what: `the mirror to reach version ${version}`, timeout: 20_000 });
    assert.deepEqual(await mirror(browser.ctx, tabId, provider.key), truth);

    await panelMatchesCore(browser.ctx, panel, tabId, { what: 'the panel views to equal the core views', version });
    // Every top-level node is on screen.
    for (const c of truth.children) await panel.locator(`#tree .row[data-path="/${c.id}"]`).waitFor({ timeout: 5000 });
    await panel.close();
    await page.close();
  });

  test('a patch that touches more nodes than the core lists still leaves the panel equal to the mirror', { timeout: TEST_TIMEOUT }, async () => {
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0);
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/keep"]', { timeout: 10_000 });
    const many = 700; // the core lists at most 512 changed paths per patch (SLOP_CHANGES_MAX)
    srv.engine.mutate((root) => {
      const keep = root.children.find((c) => c.id === 'keep');
      for (let i = 0; i < many; i++) keep.children.push({ id: `m${i}`, type: 'item', properties: { label: `m${i}`, n: 0 } });
    });
    const atVersion = async (version) => until(async () => (await swEval(browser.ctx, ([t, k]) => globalThis.slopInspector.info(t, k), [tabId, provider.key]))
      ?.subscriptions[0].version === version, { what: `the mirror to reach version ${version}`, timeout: 20_000 });
    await atVersion(srv.engine.version);
    await panelMatchesCore(browser.ctx, panel, tabId, { what: 'the panel to hold the new nodes', version: srv.engine.version });
    // One patch with a property change on every one of them: the core's change lists are cut.
    srv.engine.mutate((root) => {
      for (const c of root.children.find((x) => x.id === 'keep').children) if (c.properties) c.properties.n = 1;
    });
    const version = srv.engine.version;
    await atVersion(version);
    // The service worker answers the cut patch with a reset of 500 views; the panel loads the rest
    // in the background, so the changed nodes are all there only once that has finished.
    const changed = (pv) => pv?.nodes.filter((n) => n.properties?.n === 1).length ?? 0;
    await until(async () => changed(await panelViews(panel)) >= many, { what: 'the panel to load every changed node', timeout: 20_000 });
    const pv = await panelMatchesCore(browser.ctx, panel, tabId, { what: 'the panel views to equal the core views after a big patch', version });
    assert.ok(changed(pv) >= many, 'the panel holds every changed node, changed');
    await panel.close();
    await page.close();
  });

  test('invoke from the panel: the state changes in the mirror, the panel and the page', { timeout: TEST_TIMEOUT }, async () => {
    const url = srv.url('/pages/spa.html');
    const page = await browser.ctx.newPage();
    await page.goto(url);
    const { tabId } = await waitForProvider(browser.ctx, url, (p) => p.status === 'connected' && p.nodes > 0);
    const panel = await openPanel(browser.ctx, browser.extId, tabId);

    await panel.click('#tree .row[data-path="/todos"]', { timeout: 10_000 });
    const card = panel.locator('.affordance[data-action-name="add"]');
    await card.waitFor({ timeout: 5000 });
    // The core checks params as you type (here in the form's raw JSON editor).
    await card.locator('button[data-action="toggle-raw"]').click();
    await card.locator('textarea.pf-raw').fill('{"title": 42}');
    await card.locator('.aff-status .error-text').waitFor({ timeout: 5000 });
    assert.match(await card.locator('.pf-top-error').textContent(), /params\.title must be a string/);
    await card.locator('textarea.pf-raw').fill('{"title": "Written from the panel", "tags": ["e2e"]}');
    await card.locator('.aff-status .ok-text').waitFor({ timeout: 5000 });
    await card.locator('button[data-action="invoke"]').click();
    await card.locator('.aff-result .pill.outcome-ok').waitFor({ timeout: 10_000 });
    assert.match(await card.locator('.aff-result').textContent(), /id: "t4"/);

    const tree = await until(async () => {
      const t = await mirror(browser.ctx, tabId, 'postmessage');
      return t?.children[0].children.some((c) => c.properties.title === 'Written from the panel') ? t : null;
    }, { what: 'the new todo in the mirror' });
    assert.equal(tree.children[0].properties.count, 4);
    await panel.locator('#tree .row[data-path="/todos/t4"]').waitFor({ timeout: 5000 });
    assert.match(await panel.locator('#tree .row[data-path="/todos/t4"]').textContent(), /Written from the panel/);
    await page.locator('[data-testid="todo-list"] li[data-id="t4"]').waitFor({ timeout: 5000 });

    // The frame log shows the invoke going out and the result and patch coming back.
    await panel.click('#toggle-log');
    for (const type of ['invoke', 'result', 'patch']) {
      await panel.locator('.log-row .ftype', { hasText: new RegExp(`^${type}$`) }).first().waitFor({ timeout: 5000 });
    }
    await panel.click('#log button[data-tab="events"]');
    await panel.locator('#log .ev-row.ev-result').first().waitFor({ timeout: 5000 });

    // A dangerous affordance asks first.
    await panel.click('#tree .row[data-path="/todos/t4"]');
    const del = panel.locator('.affordance[data-action-name="delete"]');
    await del.locator('button[data-action="invoke"]').click({ timeout: 5000 });
    await del.locator('.confirm:not([hidden])').waitFor({ timeout: 5000 });
    assert.ok(await page.locator('li[data-id="t4"]').count() === 1, 'not deleted before confirming');
    await del.locator('button[data-action="confirm"]').click();
    await page.locator('li[data-id="t4"]').waitFor({ state: 'detached', timeout: 5000 });
    await panel.locator('#tree .row[data-path="/todos/t4"]').waitFor({ state: 'detached', timeout: 5000 });
    await panel.close();
    await page.close();
  });

  test('the service worker is stopped: connections, subscriptions and the panel come back without a reload', { timeout: TEST_TIMEOUT }, async () => {
    const wsPage = await browser.ctx.newPage();
    await wsPage.goto(srv.url('/pages/meta-ws.html'));
    const spaUrl = srv.url('/pages/spa.html');
    const spaPage = await browser.ctx.newPage();
    await spaPage.goto(spaUrl);
    const ws = await waitForProvider(browser.ctx, srv.url('/pages/meta-ws.html'), (p) => p.status === 'connected' && p.nodes > 0);
    await waitForProvider(browser.ctx, spaUrl, (p) => p.status === 'connected' && p.nodes > 0);
    const panel = await openPanel(browser.ctx, browser.extId, ws.tabId);
    await panel.waitForSelector('#tree .row[data-path="/"]', { timeout: 10_000 });
    for (const p of [wsPage, spaPage]) await p.evaluate(() => { window.__notReloaded = true; });
    const oldSub = ws.provider.primarySub;

    assert.ok(await stopServiceWorker(browser.ctx, browser.extId) >= 1, 'a service worker target was closed');

    // The content scripts reconnect (starting the worker again) and re-announce; the panel reconnects.
    const again = await waitForProvider(browser.ctx, srv.url('/pages/meta-ws.html'),
      (p) => p.status === 'connected' && p.subscriptions[0]?.state === 'live' && p.primarySub !== oldSub, { timeout: 20_000 });
    srv.engine.mutate((root) => { root.properties.after_restart = true; });
    await until(async () => deepEqual(await mirror(browser.ctx, again.tabId, again.provider.key), canonicalChildren(srv.engine.truth('/', -1, SUB_OPTS))),
      { what: 'the mirror after the restart', timeout: 20_000 });
    await waitForProvider(browser.ctx, spaUrl, (p) => p.status === 'connected' && p.nodes > 0, { timeout: 20_000 });

    await panel.locator('#status[data-port="connected"]').waitFor({ state: 'attached', timeout: 10_000 });
    await panelMatchesCore(browser.ctx, panel, again.tabId, { what: 'the panel after the restart' });
    await until(() => panel.evaluate(() => {
      const s = window.slopPanel.store;
      const p = s.provider(window.slopPanel.selectedKey());
      return s.tree(p.key, p.primarySub)?.nodes.get('/')?.properties?.after_restart === true;
    }), { what: 'the panel to show a change made after the restart' });
    for (const p of [wsPage, spaPage]) assert.equal(await p.evaluate(() => window.__notReloaded), true, 'the page was not reloaded');
    await panel.close();
    await wsPage.close();
    await spaPage.close();
  });
});
