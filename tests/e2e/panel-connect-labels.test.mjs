// Connect… and the panel's labels (issue 21):
// - Connect… probes first: an address that does not answer is not saved, the live provider the
//   panel shows stays shown, the error says why and offers "Save anyway"; a wrong token is refused
//   the same way; one that answers (its hello) is saved with its token, and shown.
// - "Open options" after a refusal opens the options page on that provider, token field focused.
// - At 320, 480 and 1280 px, light and dark: the bar cuts no name and no badge; the selector names
//   the provider without repeating the status beside it; Connect…'s placeholders are whole; the
//   options page does not scroll sideways.
// - Words: a field's error with its label ("To is required"), "1 child", a history step that does
//   not repeat its kind, the subscription strip without the protocol's raw names, labelled dropdowns.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { StateEngine } from '../fixtures/provider/state.mjs';
import { launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openPanel, openExtensionPage, until, swEval, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
const SIZES = [[320, 560], [480, 640], [1280, 720]];

/** A tree with a one-child collection and an affordance that needs "to". */
function tidyTree() {
  return {
    id: 'root', type: 'root', properties: { label: 'Tidy app' },
    children: [
      { id: 'inbox', type: 'collection', children: [
        { id: 'm1', type: 'item', properties: { subject: 'Hello' }, affordances: [{ action: 'open', idempotent: true }] }] },
      { id: 'compose', type: 'form', affordances: [{ action: 'send', label: 'Send',
        params: { type: 'object', required: ['to'], properties: { to: { type: 'string' }, subject: { type: 'string' } } } }] },
    ],
  };
}

/** Breaks MUST rules (the conformance badge shows), with a name long enough to need room. */
function oddTree() {
  return {
    id: 'shop', type: 'root', properties: { label: 'Odd shop' },
    children: [
      { id: 'cart', type: 'collection', meta: { salience: 1.7, total_children: 0 },
        children: [{ id: 'line-1', type: 'item', properties: { sku: 'A-1', qty: 2 } }],
        affordances: [{ action: 'checkout', estimate: 'soonish' }] },
    ],
  };
}

/** A port nothing listens on (bound, then closed). */
/** A WebSocket server that opens and never says hello (/silent), or says something that is not SLOP (/echo). */
async function startOddWs() {
  const { WebSocketServer } = await import('ws');
  const wss = new WebSocketServer({ noServer: true });
  const server = http.createServer((req, res) => { res.writeHead(404); res.end(); });
  server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => {
    if (req.url.startsWith('/echo')) ws.send('hello there');
  }));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { base: `ws://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => { for (const c of wss.clients) c.terminate(); server.close(r); }) };
}

async function deadPort() {
  const s = http.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/** In the page: what of the bar, its selector and its badge is cut. */
function barClipping() {
  const bar = document.getElementById('bar');
  const sel = document.getElementById('provider');
  const badge = document.getElementById('conf-badge');
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = getComputedStyle(sel).font;
  const name = sel.selectedOptions[0]?.text ?? '';
  const barBox = bar.getBoundingClientRect();
  const cut = [...bar.children].filter((el) => !el.hidden && getComputedStyle(el).display !== 'none' && el.id !== 'version')
    .filter((el) => { const b = el.getBoundingClientRect(); return b.width > 0 && (b.right > barBox.right + 0.5 || b.bottom > barBox.bottom + 0.5); })
    .map((el) => el.id || el.className);
  return {
    name,
    // The select's text box: its width less padding, border and the arrow (about 20 px).
    nameFits: Math.ceil(ctx.measureText(name).width) <= sel.clientWidth - 20,
    nameWidth: Math.ceil(ctx.measureText(name).width),
    selectWidth: sel.clientWidth,
    badge: badge.hidden ? null : { text: badge.textContent, cut: badge.scrollWidth > badge.clientWidth },
    cut,
    fold: bar.dataset.fold,
    height: Math.round(barBox.height),
  };
}

/** In the page: inputs whose placeholder is cut. */
function cutPlaceholders(sels) {
  const ctx = document.createElement('canvas').getContext('2d');
  return sels.filter((s) => {
    const el = document.querySelector(s);
    const cs = getComputedStyle(el);
    ctx.font = cs.font;
    const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    return Math.ceil(ctx.measureText(el.placeholder).width) > room;
  });
}

describe('Connect… and labels', () => {
  let browser, tidy, other, locked, odd, tidyTab, lockedTab, oddTab;

  before(async () => {
    tidy = await startProvider({ engine: new StateEngine({ id: 'tidy', name: 'Tidy app', tree: tidyTree() }) });
    other = await startProvider({ engine: new StateEngine({ id: 'other', name: 'Other app', tree: { id: 'root', type: 'root', children: [{ id: 'elsewhere', type: 'item' }] } }) });
    locked = await startProvider({ engine: new StateEngine({ id: 'locked', name: 'Locked app', tree: tidyTree() }) });
    const oddEngine = new StateEngine({ id: 'odd', name: 'Odd shop', tree: oddTree() });
    oddEngine.root.children[0].affordances.push({ action: 'checkout' }); // a duplicate action: a MUST broken
    odd = await startProvider({ engine: oddEngine });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(tidy), tidy.token);
    await setTokenInExtension(browser.ctx, wsOrigin(odd), odd.token);
    const open = async (srv) => {
      const page = await browser.ctx.newPage();
      await page.goto(srv.url('/pages/meta-ws.html'));
    };
    await open(tidy);
    await open(odd);
    await open(locked);
    tidyTab = (await waitForProvider(browser.ctx, tidy.origin, (p) => p.status === 'connected' && p.nodes > 0)).tabId;
    oddTab = (await waitForProvider(browser.ctx, odd.origin, (p) => p.status === 'connected' && p.nodes > 0)).tabId;
    lockedTab = (await waitForProvider(browser.ctx, locked.origin, (p) => p.status === 'auth-failed', { timeout: 20_000 })).tabId;
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    for (const s of [tidy, other, locked, odd]) await s?.close();
  });

  const stored = () => swEval(browser.ctx, () => chrome.storage.local.get(['manualProviders', 'tokenIndex'])
    .then((x) => ({ manual: Object.keys(x.manualProviders ?? {}), tokens: Object.keys(x.tokenIndex ?? {}) })));

  async function connect(panel, address, token = '') {
    await panel.evaluate(() => { globalThis.__before = globalThis.slopPanel.connectResult(); });
    await panel.fill('#connect-address', address);
    await panel.fill('#connect-token', token);
    await panel.click('#connect-strip [data-action="connect"]');
    return until(() => panel.evaluate(() => { const r = globalThis.slopPanel.connectResult(); return r !== globalThis.__before ? r : null; }), { what: 'an answer', timeout: 20_000 });
  }

  test('Connect…: an address that does not answer is not saved and the live provider stays; "Save anyway"; a wrong token is refused; one that answers is saved and shown', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tidyTab);
    await panel.locator('#tree .row[data-path="/inbox"]').waitFor({ timeout: 15_000 });
    await panel.click('#toggle-connect');
    const dead = `ws://127.0.0.1:${await deadPort()}/slop`;

    const r = await connect(panel, dead);
    assert.equal(r.kind, 'no-answer', JSON.stringify(r));
    assert.equal(r.status, 'unreachable');
    assert.deepEqual((await stored()).manual, [], 'nothing saved');
    const box = panel.locator('#connect-strip [data-role="no-answer"]');
    assert.equal(await box.locator('[data-role="no-answer-text"]').textContent(),
      `Nothing answers at ${dead}: nothing listens on ${new URL(dead).host}. Is the provider running? Nothing was saved.`);
    assert.equal(await box.locator('[data-action="save-anyway"]').textContent(), 'Save anyway');
    // The panel stays on the live provider, its tree shown.
    assert.equal(await panel.locator('#provider').inputValue(), tidy.wsUrl);
    assert.equal(await panel.evaluate(() => document.body.dataset.state), 'tree');
    assert.equal(await panel.locator('#tree .row[data-path="/inbox"]').count(), 1);
    assert.deepEqual(await panel.locator('#provider option').evaluateAll((o) => o.map((x) => x.value)), [tidy.wsUrl]);
    for (const [w, hgt] of SIZES) {
      await panel.setViewportSize({ width: w, height: hgt });
      for (const scheme of ['light', 'dark']) {
        await panel.emulateMedia({ colorScheme: scheme });
        await panel.screenshot({ path: path.join(SHOTS, `connect-no-answer-${w}-${scheme}.png`) });
      }
    }
    await panel.emulateMedia({ colorScheme: 'light' });
    await panel.setViewportSize({ width: 1280, height: 720 });

    // "Save anyway": kept, listed, but the live provider is still the one shown.
    await panel.evaluate(() => { globalThis.__before = globalThis.slopPanel.connectResult(); });
    await box.locator('[data-action="save-anyway"]').click();
    const saved = await until(() => panel.evaluate(() => { const x = globalThis.slopPanel.connectResult(); return x !== globalThis.__before ? x : null; }), { what: 'saved anyway' });
    assert.equal(saved.kind, 'slop');
    assert.equal(saved.checked, false);
    assert.deepEqual((await stored()).manual, [dead]);
    await until(async () => (await panel.locator('#provider option').evaluateAll((o) => o.map((x) => x.value))).includes(dead), { what: 'listed' });
    assert.equal(await panel.locator('#provider').inputValue(), tidy.wsUrl, 'still on the live provider');
    assert.equal(await panel.locator('#tree .row[data-path="/inbox"]').count(), 1);
    await panel.click(`#connect-strip .connect-item[data-key="${dead}"] [data-action="remove-provider"]`);
    await until(async () => (await stored()).manual.length === 0, { what: 'removed' });

    // A wrong token: refused, nothing saved (neither the address nor the token).
    const refused = await connect(panel, other.wsUrl, 'not-the-token');
    assert.equal(refused.kind, 'no-answer');
    assert.equal(refused.status, 'auth-failed');
    assert.match(await panel.locator('#connect-strip [data-role="no-answer-text"]').textContent(),
      /^The server at 127\.0\.0\.1:\d+ answers, but refused the WebSocket at \/slop\. The browser is not told why: a wrong path, a missing or wrong token, or an origin it does not allow\. Check the address; then check the token saved for it in Options.*Nothing was saved\.$/);
    assert.equal(await panel.locator('#connect-strip [data-action="save-anyway"]').count(), 0, 'a server that answered and refused is not saved anyway');
    assert.deepEqual((await stored()).manual, []);
    assert.ok(!(await stored()).tokens.includes(wsOrigin(other)), 'the wrong token is not kept');
    assert.equal(await panel.locator('#provider').inputValue(), tidy.wsUrl);

    // The right one: it says hello, so it is saved with its token and shown.
    const ok = await connect(panel, other.wsUrl, other.token);
    assert.equal(ok.kind, 'slop');
    assert.equal(ok.checked, true);
    assert.equal(ok.provider?.name, 'Other app');
    assert.match(await panel.locator('#connect-strip [data-role="connect-message"]').textContent(), /^Added Other app \(ws:\/\/127\.0\.0\.1:\d+\/slop\): shown on every tab/);
    const after = await stored();
    assert.deepEqual(after.manual, [other.wsUrl]);
    assert.ok(after.tokens.includes(wsOrigin(other)));
    await panel.locator('#tree .row[data-path="/elsewhere"]').waitFor({ timeout: 15_000 });
    assert.equal(await panel.locator('#provider').inputValue(), other.wsUrl);
    await panel.click(`#connect-strip .connect-item[data-key="${other.wsUrl}"] [data-action="remove-provider"]`);
    await until(async () => (await stored()).manual.length === 0, { what: 'removed' });
    await panel.close();
  });

  test('Connect… reads addresses as people type them, refuses what cannot be one before any dial, and says each failure\'s cause', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tidyTab);
    await panel.locator('#tree .row[data-path="/inbox"]').waitFor({ timeout: 15_000 });
    await panel.click('#toggle-connect');
    const port = new URL(other.wsUrl).port;
    const text = () => panel.locator('#connect-strip [data-role="no-answer-text"]').textContent();

    // Not an address: refused as a bad request, no probe (no no-answer result, no "Save anyway").
    for (const [typed, words] of [['ftp://127.0.0.1/x', /“ftp:” addresses are not SLOP providers/], ['ws://127.0.0.1:99999/slop', /port is over 65535/]]) {
      const r = await connect(panel, typed);
      assert.match(r.error ?? '', words, typed);
      assert.equal(r.kind, undefined, typed);
      assert.equal(await panel.locator('#connect-strip [data-role="no-answer"]').count(), 0, typed);
    }

    // A wrong path: the browser cannot see the 404, and says what it can tell and what it cannot.
    let r = await connect(panel, `ws://127.0.0.1:${port}/slp`, other.token);
    assert.equal(r.kind, 'no-answer');
    assert.match(await text(), /refused the WebSocket at \/slp\. The browser is not told why: a wrong path, a missing or wrong token/);
    assert.doesNotMatch(await text(), /probably needs a token/);
    assert.equal(await panel.locator('#connect-strip [data-action="save-anyway"]').count(), 0);

    // One slash after ws:, and a server's host:port (its /.well-known/slop names the provider):
    // each connected, and said how it was read.
    r = await connect(panel, `ws:/127.0.0.1:${port}/slop`, other.token);
    assert.equal(r.kind, 'slop', JSON.stringify(r));
    assert.equal(r.key, other.wsUrl);
    assert.match(await panel.locator('#connect-strip [data-role="connect-message"]').textContent(), /^Added Other app \(ws:\/\/127\.0\.0\.1:\d+\/slop\) \(read “ws:\/127\.0\.0\.1:\d+\/slop” as ws:\/\/127\.0\.0\.1:\d+\/slop\)/);
    await panel.click(`#connect-strip .connect-item[data-key="${other.wsUrl}"] [data-action="remove-provider"]`);
    await until(async () => (await stored()).manual.length === 0, { what: 'removed' });
    r = await connect(panel, ` 127.0.0.1:${port} `, other.token);
    assert.equal(r.kind, 'slop', JSON.stringify(r));
    assert.match(r.read, new RegExp(`read “127\\.0\\.0\\.1:${port}” as http://127\\.0\\.0\\.1:${port}/; http://127\\.0\\.0\\.1:${port}/\\.well-known/slop names ws://127\\.0\\.0\\.1:${port}/slop`));
    await panel.click(`#connect-strip .connect-item[data-key="${other.wsUrl}"] [data-action="remove-provider"]`);
    await until(async () => (await stored()).manual.length === 0, { what: 'removed' });

    // A server that upgrades and never says hello; one whose first message is not SLOP.
    const odd = await startOddWs();
    try {
      r = await connect(panel, `${odd.base}/silent`);
      assert.equal(r.kind, 'no-answer');
      assert.match(await text(), /The WebSocket at ws:\/\/127\.0\.0\.1:\d+\/silent opened, but no hello came in 5 s: is it a SLOP provider\?/);
      r = await connect(panel, `${odd.base}/echo`);
      assert.equal(r.kind, 'no-answer');
      assert.match(await text(), /does not speak SLOP, it seems: its first message is not a SLOP hello/);
      assert.equal(await panel.locator('#connect-strip [data-action="save-anyway"]').count(), 0);
    } finally {
      await odd.close();
    }
    assert.deepEqual((await stored()).manual, []);
    await panel.close();
  });

  test('"Open options" after a refusal: the options page opens on that provider, its token field focused', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, lockedTab);
    await until(() => panel.evaluate(() => document.body.dataset.state === 'auth-failed'), { what: 'the refused state', timeout: 20_000 });
    const opened = browser.ctx.waitForEvent('page', { predicate: (p) => p.url().includes('/extension/options/options.html'), timeout: 10_000 });
    await panel.click('#empty button[data-action="options"]');
    const options = await opened;
    await options.waitForSelector('body[data-ready="1"]', { timeout: 10_000 });
    const seen = await until(() => options.evaluate(() => (document.activeElement?.id === 'token-value'
      ? { origin: document.getElementById('token-origin').value, message: document.getElementById('token-message').textContent } : null)), { what: 'the token field focused' });
    assert.equal(seen.origin, wsOrigin(locked));
    assert.match(seen.message, /refused the connection: paste its token and save\./);
    // Saving it there connects the provider.
    await options.fill('#token-value', locked.token);
    await options.click('#token-form button[type="submit"]');
    await panel.locator('#tree .row[data-path="/inbox"]').waitFor({ timeout: 15_000 });
    await options.close();
    await panel.close();
  });

  test('at 320, 480 and 1280 px, light and dark: no name or badge cut, names without their status, Connect…\'s placeholders whole, options without a sideways scroll', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, oddTab);
    await panel.locator('#conf-badge:not([hidden])').waitFor({ timeout: 20_000 });
    assert.deepEqual(await panel.locator('#provider option').allTextContents(), ['Odd shop'], 'the status is the indicator\'s, not repeated');
    assert.equal(await panel.locator('#status .status-text').textContent(), 'Connected');
    await panel.click('#toggle-connect');
    for (const [w, hgt] of SIZES) {
      await panel.setViewportSize({ width: w, height: hgt });
      await panel.waitForTimeout(100);
      for (const scheme of ['light', 'dark']) {
        await panel.emulateMedia({ colorScheme: scheme });
        await panel.screenshot({ path: path.join(SHOTS, `bar-connect-${w}-${scheme}.png`) });
      }
      const bar = await panel.evaluate(barClipping);
      assert.ok(bar.nameFits, `${w}px: the name is whole: ${JSON.stringify(bar)}`);
      assert.deepEqual(bar.cut, [], `${w}px: nothing in the bar is cut: ${JSON.stringify(bar)}`);
      assert.deepEqual(bar.badge, { text: '1 MUST', cut: false }, `${w}px`);
      // One row always (issue 45): at 320 px the export/import/connect buttons go into the More menu.
      assert.equal(bar.fold, w === 320 ? 'true' : 'false', `${w}px: ${JSON.stringify(bar)}`);
      assert.ok(bar.height <= 30, `${w}px: one row: ${JSON.stringify(bar)}`);
      assert.deepEqual(await panel.evaluate(cutPlaceholders, ['#connect-address', '#connect-token']), [], `${w}px: Connect…'s placeholders`);
      // The tree's bar: the search field's choice ("in all") and the node count are whole.
      assert.deepEqual(await panel.evaluate(() => {
        const bar = document.getElementById('tree-toolbar').getBoundingClientRect();
        const sel = document.getElementById('search-field');
        const ctx = document.createElement('canvas').getContext('2d');
        ctx.font = getComputedStyle(sel).font;
        return { choiceCut: Math.ceil(ctx.measureText(sel.selectedOptions[0].text).width) > sel.clientWidth - 20,
          countCut: document.getElementById('search-count').getBoundingClientRect().right > bar.right + 0.5 || [...document.querySelectorAll('#tree-toolbar > *')].some((e) => e.getBoundingClientRect().right > bar.right + 0.5) };
      }), { choiceCut: false, countCut: false }, `${w}px: the tree's bar`);
    }
    await panel.emulateMedia({ colorScheme: 'light' });

    // A long file name in the selector: whole from 480 px (the buttons fold into More for it); at
    // 320 px the bar stays one row and cuts it (whole in the selector's tooltip).
    const text = JSON.stringify({ type: 'snapshot', id: 'odd', version: 3, tree: oddTree() });
    await panel.evaluate((t) => globalThis.slopPanel.importText(t, 'odd-shop-2026-11-25.recording.json'), text);
    await until(() => panel.evaluate(() => document.getElementById('provider').selectedOptions[0]?.text === 'odd-shop-2026-11-25.recording.json'), { what: 'the import shown' });
    for (const [w, hgt] of SIZES) {
      await panel.setViewportSize({ width: w, height: hgt });
      await panel.waitForTimeout(100);
      const bar = await panel.evaluate(barClipping);
      if (w > 320) assert.ok(bar.nameFits, `${w}px: the file name is whole: ${JSON.stringify(bar)}`);
      assert.ok(bar.height <= 30, `${w}px: one row: ${JSON.stringify(bar)}`);
      assert.deepEqual(bar.cut, [], `${w}px: ${JSON.stringify(bar)}`);
      await panel.screenshot({ path: path.join(SHOTS, `bar-long-name-${w}.png`) });
    }
    assert.deepEqual(await panel.locator('#provider optgroup').evaluateAll((g) => g.map((x) => x.label)), ['Providers', 'Imported files']);
    assert.equal(await panel.locator('#provider').getAttribute('title'), 'odd-shop-2026-11-25.recording.json');
    await panel.close();

    const options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
    for (const [w, hgt] of SIZES) {
      await options.setViewportSize({ width: w, height: hgt });
      await options.waitForTimeout(50);
      const size = await options.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth, rows: document.querySelectorAll('#tokens tbody tr').length }));
      assert.ok(size.rows >= 2, 'a token row or two to lay out');
      assert.ok(size.scroll <= size.client, `${w}px: the options page scrolls sideways: ${JSON.stringify(size)}`);
      for (const scheme of ['light', 'dark']) {
        await options.emulateMedia({ colorScheme: scheme });
        await options.screenshot({ path: path.join(SHOTS, `options-${w}-${scheme}.png`), fullPage: w === 320 });
      }
    }
    await options.close();
  });

  test('words: a field\'s error by its label, "1 child", a history step without its kind twice, the subscription strip in words, dropdowns that say what they choose', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tidyTab);
    await panel.locator('#tree .row[data-path="/inbox"]').waitFor({ timeout: 15_000 });
    assert.equal(await panel.locator('#tree .row[data-path="/inbox"] .ncount').getAttribute('title'), '1 child');
    assert.equal(await panel.locator('#tree .row[data-path="/"] .ncount').getAttribute('title'), '2 children');

    // The invoke form: the core's "params.to is required" under the field, in its words.
    await panel.click('#tree .row[data-path="/compose"]');
    const card = panel.locator('.affordance[data-action-name="send"]');
    await card.locator('button[data-action="invoke"]').click();
    const err = card.locator('.pf-field[data-ppath="params.to"] > .pf-error');
    await until(async () => (await err.textContent()) !== '', { what: 'the field\'s error' });
    assert.equal(await err.textContent(), 'To is required');

    // The history: a snapshot step says its version and size; "snapshot" is its label already.
    await panel.click('#side-tabs button[data-tab="history"]');
    const step = panel.locator('#history .step-row[data-kind="snapshot"]').first();
    await step.waitFor({ timeout: 10_000 });
    assert.equal(await step.locator('.step-kind').textContent(), 'snapshot');
    assert.match(await step.locator('.step-text').textContent(), /^v\d+ · 4 nodes$/);

    // The subscription strip: labels and the shown options in words; the raw names in tooltips.
    await panel.click('#toggle-sub');
    const strip = panel.locator('#sub-strip');
    assert.deepEqual(await strip.locator('.sub-field > span').allTextContents(), ['Path', 'Depth', 'Max nodes', 'Min salience', 'Types']);
    assert.match(await strip.locator('input[name="max_nodes"]').getAttribute('title'), /\(max_nodes\)$/);
    await strip.locator('input[name="depth"]').fill('deep');
    await strip.locator('button[data-action="subscribe"]').click();
    await until(async () => /^Depth must be an integer/.test(await strip.locator('.sub-error').textContent()), { what: 'the core\'s message, worded' });
    await strip.locator('input[name="depth"]').fill('-1');
    await strip.locator('input[name="max_nodes"]').fill('50');
    await strip.locator('button[data-action="subscribe"]').click();
    await until(async () => /made here/.test(await strip.locator('.sub-status').textContent()), { what: 'the panel\'s own subscription' });
    const status = await strip.locator('.sub-status').textContent();
    assert.match(status, /path \/ · all levels · at most 50 nodes/);
    assert.doesNotMatch(status, /max_nodes|min_salience|depth -1/);
    assert.match(await strip.locator('.sub-options').getAttribute('title'), /"max_nodes":50/);
    for (const [w, hgt] of SIZES) {
      await panel.setViewportSize({ width: w, height: hgt });
      await panel.screenshot({ path: path.join(SHOTS, `sub-strip-words-${w}.png`) });
    }
    await strip.locator('button[data-action="sub-reset"]').click();

    // Every dropdown has a name, and the search field's choices say what they do.
    const unnamed = await panel.evaluate(() => [...document.querySelectorAll('select')]
      .filter((s) => !s.getAttribute('aria-label') && !s.labels?.length).map((s) => s.outerHTML.slice(0, 80)));
    assert.deepEqual(unnamed, []);
    assert.equal(await panel.locator('#search-field option:checked').textContent(), 'in all');
    assert.ok(await panel.locator('#search-field').getAttribute('title'));
    await panel.close();
  });
});
