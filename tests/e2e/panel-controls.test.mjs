// Subscription controls, "load more" on a windowed collection (query with window), several
// providers on one tab with their status and capabilities, the agent view, export, import and
// copying a node's path, each checked against the provider's truth (engine.truth()) or against an
// independent core instance in Node fed with that truth. A collection that announces more children
// than a query returns: the panel says so instead of offering Load more again.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createMailEngine, createTodoEngine } from '../fixtures/demo-trees.mjs';
import { deepEqual } from '../fixtures/provider/state.mjs';
import { startScriptedProvider, frames, reply } from '../fixtures/provider/scripted.mjs';
import { loadSlopCoreNode } from '../../js-glue/node/load-core.js';
import { AGENT_DEFAULTS } from '../../js-glue/agent.js';
import { browserOnProvider, launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openPanel, until, swEval, mirror, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
const FIRST_SUB = { max_nodes: 20000 };

/** What the core makes of `tree` as a subscription snapshot: {treeText, tools}, computed in Node. */
async function coreAgentView(engine, tree, version) {
  const core = await loadSlopCoreNode();
  const c = new core.SlopConsumer({ transport: 'ws', seed: 5 });
  const sub = c.subscribe({ path: '/', depth: -1 }, 0);
  c.receive(JSON.stringify(engine.hello()), 0);
  const id = JSON.parse(c.drain().find((o) => o.kind === 'send').frame).id;
  c.receive(JSON.stringify({ type: 'snapshot', id, version, seq: 0, tree }), 0);
  c.drain();
  const out = { treeText: c.treeText(sub), tools: c.tools(sub, null, 0, AGENT_DEFAULTS.maxTools) };
  c.free();
  return out;
}

describe('panel controls', () => {
  let browser;
  let mail;
  let todo;
  let tabId;
  const pageUrl = () => mail.url('/two.html');

  before(async () => {
    // Todo declares fewer capabilities: the panel must show which.
    todo = await startProvider({ engine: createTodoEngine({ capabilities: ['state', 'patches', 'affordances'] }) });
    mail = await startProvider({
      engine: createMailEngine({ live: false }),
      pages: { '/two.html': `<!doctype html><meta charset="utf-8"><meta name="slop" content="{{WS_URL}}"><meta name="slop" content="${todo.wsUrl}"><title>two providers</title>` },
    });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(mail), mail.token);
    await setTokenInExtension(browser.ctx, wsOrigin(todo), todo.token);
    const page = await browser.ctx.newPage();
    await page.goto(pageUrl());
    ({ tabId } = await waitForProvider(browser.ctx, pageUrl(), (p) => p.key === mail.wsUrl && p.status === 'connected' && p.nodes > 0));
    await waitForProvider(browser.ctx, pageUrl(), (p) => p.key === todo.wsUrl && p.status === 'connected' && p.nodes > 0);
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await mail?.close();
    await todo?.close();
  });

  async function panelOn(key) {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await until(async () => (await panel.locator('#provider option').count()) === 2, { what: 'two providers in the selector' });
    if ((await panel.inputValue('#provider')) !== key) await panel.selectOption('#provider', key);
    await panel.waitForSelector('#tree .row[data-path="/"]', { timeout: 10_000 });
    return panel;
  }

  test('several providers: a selector; status and capabilities shown', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await panelOn(mail.wsUrl);
    assert.deepEqual(await panel.locator('#provider option').allTextContents(), ['Acme Mail', 'Todo SPA'], 'names only: the status is the indicator\'s');
    assert.match(await panel.locator('#tree .row[data-path="/"]').textContent(), /acme-mail/);
    await panel.selectOption('#provider', todo.wsUrl);
    await panel.locator('#tree .row[data-path="/todos"]').waitFor({ timeout: 10_000 });
    assert.equal(await panel.locator('#status').textContent(), 'Connected');
    await panel.click('#toggle-sub');
    const on = await panel.locator('#sub-strip .chip.cap.on').evaluateAll((els) => els.map((e) => e.dataset.cap));
    assert.deepEqual(on, todo.engine.capabilities);
    assert.ok((await panel.locator('#sub-strip .chip.cap.off').allTextContents()).includes('attention'));
    assert.match(await panel.locator('#sub-strip .provider-info').textContent(), /Todo SPA.*todo-spa/);
    assert.match(await panel.locator('#sub-strip .sub-status').textContent(), /live · v\d+ · \d+ nodes mirrored/);
    await panel.close();
  });

  test('subscription controls: path, depth, min_salience, types change what is mirrored; the core checks options', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await panelOn(mail.wsUrl);
    await panel.click('#toggle-sub');
    const strip = panel.locator('#sub-strip');
    // A bad option: the core says what is wrong, nothing changes.
    await strip.locator('input[name="depth"]').fill('deep');
    await strip.locator('button[data-action="subscribe"]').click();
    await until(async () => /^Depth must be an integer/.test(await strip.locator('.sub-error').textContent()), { what: 'the core’s message' });

    await strip.locator('input[name="path"]').fill('/inbox');
    await strip.locator('input[name="depth"]').fill('1');
    await strip.locator('input[name="min_salience"]').fill('0.5');
    await strip.locator('input[name="types"]').fill('item, collection');
    await strip.locator('button[data-action="subscribe"]').click();
    await panel.locator('#tree .row[data-path="/inbox"]').first().waitFor({ timeout: 10_000 });
    const opts = { filter: { min_salience: 0.5, types: ['item', 'collection'] } };
    const truth = mail.engine.truth('/inbox', 1, opts);
    const sub = await until(() => panel.evaluate(() => { const t = window.slopPanel.currentTree(); return t?.path === '/inbox' && t.complete ? t.sub : null; }), { what: 'the new subscription in the panel' });
    const inWorker = await swEval(browser.ctx, ([t, k, s]) => globalThis.slopInspector.mirror(t, k, s), [tabId, mail.wsUrl, sub]);
    assert.ok(deepEqual(inWorker, truth), 'the core mirrors exactly what the options ask for');
    const paths = await panel.evaluate(() => [...window.slopPanel.currentTree().nodes.keys()].sort());
    assert.deepEqual(paths, ['/inbox', ...truth.children.map((c) => `/inbox/${c.id}`)].sort());
    assert.ok(truth.children.length > 0 && truth.children.every((c) => c.meta.salience >= 0.5));
    assert.match(await strip.locator('.sub-status').textContent(), /made here/);

    await strip.locator('button[data-action="sub-reset"]').click();
    await panel.locator('#tree .row[data-path="/"]').waitFor({ timeout: 10_000 });
    // The panel's own subscription is gone from the worker.
    await until(async () => (await swEval(browser.ctx, ([t, k]) => globalThis.slopInspector.info(t, k).subscriptions.length, [tabId, mail.wsUrl])) === 1, { what: 'one subscription left' });
    await panel.close();
  });

  test('load more on a windowed collection: a query with a window, shown read-only under it', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await panelOn(mail.wsUrl);
    await panel.click('#tree .row[data-path="/inbox"] .twisty');
    await panel.evaluate(() => window.slopPanel.scrollToRow('more:/inbox'));
    const more = panel.locator('#tree .row.more button[data-action="load-more"]');
    await more.waitFor({ timeout: 5000 });
    assert.match(await more.textContent(), /250 not shown/);
    await more.click();
    await panel.locator('#tree .row.qhead').waitFor({ timeout: 10_000 });
    const expected = mail.engine.truth('/inbox', 1, { window: [50, 50] }).children.map((c) => c.id);
    assert.match(await panel.locator('#tree .row.qhead').textContent(), /50 more of 300.*read-only, not live/);
    await panel.screenshot({ path: path.join(SHOTS, 'panel-load-more.png') });
    // Every query row, in order, is the provider's window [50, 50].
    const qpaths = await panel.evaluate(async () => {
      const out = [];
      const tree = document.getElementById('tree');
      tree.scrollTop = 0;
      for (let y = 0; y <= tree.scrollHeight; y += tree.clientHeight / 2) {
        tree.scrollTop = y;
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        for (const el of tree.querySelectorAll('.row.qnode')) if (!out.includes(el.dataset.path)) out.push(el.dataset.path);
      }
      return out;
    });
    assert.deepEqual(qpaths, expected.map((id) => `/inbox/${id}`));
    // A query row opens read-only.
    await panel.evaluate((p) => window.slopPanel.scrollToRow(`q:${p}`), `/inbox/${expected[0]}`);
    await panel.locator(`#tree .row.qnode[data-path="/inbox/${expected[0]}"]`).click();
    assert.match(await panel.locator('#detail .mode-note').textContent(), /Query result .*not part of the live mirror/);
    assert.equal(await panel.locator('#detail button[data-action="invoke"]').first().isDisabled(), true);
    // The next page.
    await panel.evaluate(() => window.slopPanel.scrollToRow('more:/inbox'));
    await panel.locator('#tree .row.more button[data-action="load-more"]').click();
    await until(async () => (await panel.evaluate(() => window.slopPanel.scrollToRow('qhead:/inbox', 'start')))
      && /100 more of 300/.test(await panel.locator('#tree .row.qhead').textContent({ timeout: 1000 })), { what: 'a second page' });
    await panel.close();
  });

  test('agent view: the core’s tree text and tools; copy buttons', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await panelOn(mail.wsUrl);
    const version = mail.engine.version;
    const expected = await coreAgentView(mail.engine, mail.engine.truth('/', -1, FIRST_SUB), version);
    await panel.click('#side-tabs button[data-tab="agent"]');
    const pre = panel.locator('#agent pre[data-role="tree-text"]');
    await pre.waitFor({ timeout: 5000 });
    assert.equal(await pre.textContent(), expected.treeText);
    const names = await panel.locator('#agent .tool .tool-name').allTextContents();
    assert.deepEqual(names, expected.tools.tools.map((t) => t.name));
    // The mail demo has more actions than the Playground offers: the Agent tab says how many.
    assert.ok(expected.tools.total > expected.tools.tools.length);
    assert.equal(await panel.locator('#agent h3', { hasText: 'Tools' }).textContent(), `Tools (${expected.tools.tools.length} of ${expected.tools.total})`);
    const dangerous = await panel.locator('#agent .tool.is-dangerous .tool-name').allTextContents();
    assert.deepEqual(dangerous, expected.tools.tools.filter((t) => t.dangerous).map((t) => t.name));
    await panel.click('#agent button[data-action="copy-tree-text"]');
    assert.equal(await panel.evaluate(() => window.slopPanel.lastCopied.text), expected.treeText);
    await panel.click('#agent button[data-action="copy-tools"]');
    assert.deepEqual(JSON.parse(await panel.evaluate(() => window.slopPanel.lastCopied.text)), expected.tools.tools);
    await panel.screenshot({ path: path.join(SHOTS, 'panel-agent-view.png') });
    await panel.close();
  });

  test('export is the core’s tree; import shows a file read-only (the core checks it); copy a path', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await panelOn(mail.wsUrl);
    const download = panel.waitForEvent('download');
    await panel.click('#export');
    const file = await download;
    assert.match(file.suggestedFilename(), /^slop-acme-mail-v\d+\.json$/);
    const doc = JSON.parse(await fs.readFile(await file.path(), 'utf8'));
    assert.equal(doc.format, 'slop-inspector-export');
    assert.deepEqual(doc.provider, { id: 'acme-mail', name: 'Acme Mail', slop_version: '0.1' });
    assert.equal(doc.version, mail.engine.version);
    assert.ok(deepEqual(doc.tree, await mirror(browser.ctx, tabId, mail.wsUrl)), 'the core’s tree JSON');
    assert.ok(deepEqual(doc.tree, mail.engine.truth('/', -1, FIRST_SUB)), 'which is the provider’s');

    // Import it back: a read-only tree of its own.
    await panel.setInputFiles('#import-file', { name: 'snapshot.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) });
    await panel.locator('#banner[data-kind="import"]').waitFor({ timeout: 10_000 });
    assert.match(await panel.locator('#banner').textContent(), /snapshot\.json/);
    assert.match(await panel.locator('#provider optgroup[label="Imported files"] option:checked').textContent(), /snapshot\.json/);
    await panel.locator('#tree .row[data-path="/inbox"]').waitFor({ timeout: 5000 });
    await until(() => panel.evaluate(() => window.slopPanel.currentTree()?.complete), { what: 'the import loaded' });
    const n = await panel.evaluate(() => window.slopPanel.currentTree().nodes.size);
    const count = (t) => 1 + (t.children ?? []).reduce((a, c) => a + count(c), 0);
    assert.equal(n, count(doc.tree));
    await panel.click('#tree .row[data-path="/compose"]');
    assert.equal(await panel.locator('.affordance[data-action-name="send"] button[data-action="invoke"]').isDisabled(), true);
    await panel.click('#side-tabs button[data-tab="agent"]');
    const expected = await coreAgentView(mail.engine, doc.tree, doc.version);
    await until(async () => (await panel.locator('#agent pre[data-role="tree-text"]').textContent()) === expected.treeText, { what: 'the import’s agent view' });
    await panel.click('#side-tabs button[data-tab="node"]');
    // Copy a node's path.
    await panel.click('#detail button[data-action="copy-path"]');
    assert.equal(await panel.evaluate(() => window.slopPanel.lastCopied.text), '/compose');

    // A file the core refuses: the panel says why.
    await panel.setInputFiles('#import-file', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ id: 'x', children: [] })) });
    await panel.locator('#banner[data-kind="error"]').waitFor({ timeout: 10_000 });
    assert.match(await panel.locator('#banner').textContent(), /bad\.json: the tree was refused: .*type/);
    await panel.setInputFiles('#import-file', { name: 'notjson.json', mimeType: 'application/json', buffer: Buffer.from('{nope') });
    await until(async () => /notjson\.json: the document is not valid JSON/.test(await panel.locator('#banner').textContent()), { what: 'not JSON' });
    await panel.close();
  });
});

describe('panel controls: a collection that promises more than the provider returns', () => {
  let browser;
  let srv;
  let tabId;
  const queries = [];
  const eleven = () => Array.from({ length: 11 }, (_, i) => ({ id: `i${i}`, type: 'item', properties: { label: `Item ${i}` } }));
  const tree = () => ({
    id: 'root', type: 'root', properties: { label: 'Promises' },
    children: [{ id: 'list', type: 'collection', properties: { label: 'Twelve, they say' }, meta: { total_children: 12 }, children: eleven() }],
  });

  before(async () => {
    srv = await startScriptedProvider({
      script: [frames.hello({ id: 'promises', name: 'Promising provider' }), ...reply('subscribe', (m) => frames.snapshot(m.id, 1, tree()), { $as: 'sub' })],
      // Every query for the rest of the list gets the collection with no children at all.
      afterScript: (m) => {
        if (m?.type !== 'query') return undefined;
        queries.push(m);
        return frames.querySnapshot(m.id, 1, { id: 'list', type: 'collection', meta: { total_children: 12 }, children: [] });
      },
    });
    ({ browser, tabId } = await browserOnProvider(srv));
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('an empty query answer: the row says so and stops offering Load more until the collection changes', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.locator('#tree .row[data-path="/list"]').waitFor({ timeout: 10_000 });
    if (await panel.getAttribute('#tree .row[data-path="/list"]', 'aria-expanded') !== 'true') await panel.click('#tree .row[data-path="/list"] .twisty');
    const moreRow = panel.locator('#tree .row.more');
    const button = moreRow.locator('button[data-action="load-more"]');
    assert.match(await button.textContent({ timeout: 5000 }), /Load more \(1 not shown\)/);
    await button.click();
    const note = moreRow.locator('[data-role="no-more"]');
    await note.waitFor({ timeout: 10_000 });
    assert.equal(await note.textContent(), 'the provider returned no more children (it announced 12)');
    assert.equal(await button.count(), 0, 'Load more is not offered again');
    assert.equal(await panel.locator('#tree .row.qhead').count(), 0, 'no empty "query result · 0 more" block');
    assert.equal(queries.length, 1);
    // Enter on the row asks nothing either.
    await panel.focus('#tree');
    await panel.keyboard.press('End');
    await panel.locator('#tree .row.more.selected').waitFor({ timeout: 5000 });
    await panel.keyboard.press('Enter');
    await panel.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    assert.equal(queries.length, 1, 'no second query for the same collection');
    await panel.screenshot({ path: path.join(SHOTS, 'panel-no-more.png') });
    await panel.setViewportSize({ width: 700, height: 500 });
    await panel.screenshot({ path: path.join(SHOTS, 'panel-no-more-700.png') });
    await panel.setViewportSize({ width: 1280, height: 800 });

    // The collection changes (one more child, two more announced): Load more is back.
    const conn = srv.connections.at(-1);
    conn.send(frames.patch(conn.vars.sub.id, 2, 1, [
      { op: 'add', path: '/list/i11', value: { id: 'i11', type: 'item', properties: { label: 'Item 11' } } },
      { op: 'replace', path: '/list/meta/total_children', value: 14 },
    ]));
    await until(async () => /Load more \(2 not shown\)/.test(await button.textContent({ timeout: 1000 })), { what: 'Load more offered again' });
    assert.equal(await note.count(), 0);
    await button.click();
    await note.waitFor({ timeout: 10_000 });
    assert.equal(await note.textContent(), 'the provider returned no more children (it announced 14)');
    assert.equal(queries.length, 2);
    await panel.close();
  });
});
