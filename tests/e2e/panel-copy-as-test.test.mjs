// "Copy as test" (issue 45, item 3): a session recorded in the panel becomes a test that passes
// against the app and fails against a changed one. The Acme Mail demo provider (with a clock of
// its own that ticks while it is recorded) gets three invokes through the panel (mark_read,
// move with params, the dangerous empty); the History strip's Test menu copies the Playwright form
// and the Node form; each is written under build/ (so that `slop-inspector/...` resolves to this
// package by its own name) and run with `node --test` as a child process: against a fresh demo
// provider it passes, against one whose mark_read forgets to recount the inbox it fails, naming
// the path and the value. The menu is looked at in screenshots (320 and 1280 px, light and dark).

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs/promises';
import { execFile } from 'node:child_process';
import * as acorn from 'acorn';
import { createMailEngine, mailTree } from '../fixtures/demo-trees.mjs';
import { DEFAULT_ALLOWED_ORIGINS } from '../fixtures/provider/ws-server.mjs';
import { Request } from '../../extension/shared/messages.js';
import { launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openPanel, openExtensionPage, until, ROOT, CHROMIUM, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
/** The Origin the Node form sends (SLOP_ORIGIN): the providers here allow it. */
const NODE_ORIGIN = 'http://node-client.test';
const MESSAGES = 20;

/** A demo provider as `npm start` runs it (smaller), allowing the Node form's Origin. */
function mailProvider(engineOptions = {}) {
  return startProvider({ engine: createMailEngine({ messages: MESSAGES, ...engineOptions }), allowedOrigins: [...DEFAULT_ALLOWED_ORIGINS, NODE_ORIGIN] });
}

/** A changed app: mark_read marks the message but forgets to recount the inbox. */
const forgetfulMarkRead = {
  handlers: {
    mark_read(ctx) {
      const msg = ctx.node;
      msg.properties.unread = false;
      msg.properties.labels = [];
      msg.meta = { ...msg.meta, salience: 0.3 };
      msg.affordances = msg.affordances.map((a) => (a.action === 'mark_read' ? { action: 'mark_unread', label: 'Mark as unread', idempotent: true } : a));
    },
  },
};

/** Runs a generated test file with `node --test`: {code, out}. */
function runTest(file, env) {
  // Not as a subtest of this run: the child is a test run of its own.
  const { NODE_TEST_CONTEXT: _, ...base } = process.env;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--test', '--test-reporter=tap', file], { cwd: ROOT, timeout: 120_000, env: { ...base, CHROMIUM, ...env } },
      (err, stdout, stderr) => resolve({ code: err ? (err.code ?? 1) : 0, out: `${stdout}\n${stderr}` }));
  });
}

describe('Copy as test', () => {
  let browser;
  let srv;
  let tabId;
  let key;
  let ticker;
  let dir;

  before(async () => {
    srv = await mailProvider();
    // A clock of the app's own: the test written must not assert on it.
    ticker = setInterval(() => srv.engine?.mutate?.((root) => {
      const status = root.children.find((c) => c.id === 'status');
      if (status) status.properties.received += 1;
    }), 200);
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    let provider;
    ({ tabId, provider } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0));
    key = provider.key;
    await fs.mkdir(SHOTS, { recursive: true });
    dir = await fs.mkdtemp(path.join(ROOT, 'build', 'copy-as-test-'));
  });
  after(async () => {
    clearInterval(ticker);
    await browser?.close();
    await srv?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  test('a recorded session becomes a test that passes against the app and fails against a changed one', { timeout: TEST_TIMEOUT * 4 }, async () => {
    assert.ok(srv.engine, 'the provider handle exposes its engine (the clock ticks through it)');
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await until(() => panel.evaluate((k) => window.slopPanel.selectedKey() === k, key), { what: 'the provider shown' });
    // Some ticks of the clock first: they are what the test must leave alone.
    await until(() => panel.evaluate(() => (window.slopPanel.currentTree()?.nodes.get('/status')?.properties.received ?? 0) >= 3), { what: 'clock ticks' });

    const unread = mailTree({ messages: MESSAGES }).children[0].children.find((m) => m.properties.unread).id;
    const other = mailTree({ messages: MESSAGES }).children[0].children.find((m) => m.id !== unread).id;
    const invoke = (p, action, params) => panel.evaluate(([t, f]) => window.slopPanel.request(t, f), [Request.INVOKE, { key, path: p, action, ...(params ? { params } : {}) }]);
    // Two through the node's invoke form in the detail, as a user does; the dangerous one through
    // the panel's request (its confirmation is the detail test's).
    for (const [p, action, folder] of [[`/inbox/${unread}`, 'mark_read'], [`/inbox/${other}`, 'move', 'trash']]) {
      await panel.evaluate((x) => window.slopPanel.reveal(x), p);
      await panel.click(`#tree .row[data-path="${p}"]`, { timeout: 10_000 });
      const card = panel.locator(`.affordance[data-action-name="${action}"]`);
      await card.waitFor();
      if (folder) await card.locator('select[data-ppath="params.folder"]').selectOption(folder);
      await card.locator('button[data-action="invoke"]').click();
      // Done when the tree shows it (mark_read replaces its own affordance, so its card goes).
      await until(() => panel.evaluate(([x, gone]) => {
        const n = window.slopPanel.currentTree()?.nodes.get(x);
        return gone ? !n : n?.properties.unread === false;
      }, [p, action === 'move']), { what: `${action} done` });
    }
    const r = await invoke('/folders/trash', 'empty');
    assert.equal(r.event.status, 'ok', JSON.stringify(r.event));
    await panel.click('#toggle-history');
    await until(() => panel.evaluate(() => window.slopPanel.history().steps.filter((s) => s.kind === 'result').length === 3), { what: 'three results in the History' });
    const steps = await panel.evaluate(() => window.slopPanel.history().steps);
    assert.equal(steps.find((s) => s.kind === 'invoke' && s.action === 'move').paramsText, '{"folder":"trash"}', 'the invoke step keeps its params');
    await until(() => panel.evaluate(() => window.slopPanel.history().steps.filter((s) => s.kind === 'patch').length >= 8), { what: 'ticks after the invokes' });

    // The Test menu beside Export: both forms, copied.
    const menuBtn = panel.locator('#history-strip [data-action="h-test"]');
    assert.equal(await panel.locator('#history-strip [data-action="h-export"] + [data-action="h-test"]').count(), 1, 'next to Export');
    const copied = {};
    for (const form of ['playwright', 'node']) {
      await menuBtn.click();
      const item = panel.locator(`.row-menu [data-action="test-copy-${form}"]`);
      await item.waitFor();
      await item.click();
      await until(() => panel.evaluate((f) => window.slopPanel.lastCopied?.what?.includes(f) && window.slopPanel.lastCopied.text, form === 'node' ? 'Node' : 'Playwright'), { what: `the ${form} test copied` });
      copied[form] = await panel.evaluate(() => window.slopPanel.lastCopied.text);
      acorn.parse(copied[form], { ecmaVersion: 'latest', sourceType: 'module' });
    }
    const pw = copied.playwright;
    assert.match(pw, /from 'slop-inspector\/playwright'/);
    assert.match(pw, new RegExp(`await app\\.invoke\\('/inbox/${unread}', 'mark_read'\\);`));
    assert.match(pw, new RegExp(`await app\\.invoke\\('/inbox/${other}', 'move', \\{ folder: 'trash' \\}\\);`));
    assert.match(pw, /await app\.invoke\('\/folders\/trash', 'empty', undefined, \{ confirmDangerous: true \}\);/, 'the dangerous one confirmed, as in the panel');
    assert.match(pw, new RegExp(`await expectNode\\(app, '/inbox/${other}', null\\);`));
    assert.match(pw, /await expectNode\(app, '\/folders\/trash', \{ properties: \{ count: 1 \} \}\);/);
    assert.match(pw, /await expectNode\(app, '\/folders\/trash', \{ properties: \{ count: 0 \} \}\);/);
    assert.doesNotMatch(pw.slice(0, pw.indexOf('// ----')), /expectNode\(app, '\/status'/, 'the clock is not asserted');
    assert.match(copied.node, /from 'slop-inspector\/node'/);
    assert.match(copied.node, new RegExp(`const PROVIDER_URL = process\\.env\\.SLOP_PROVIDER_URL \\?\\? '${srv.wsUrl.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}';`));

    // Two pinned steps are the range: only the invokes between them.
    const from = steps.findIndex((s) => s.kind === 'invoke' && s.action === 'move');
    await panel.evaluate(([a, b]) => window.slopPanel.pinSteps(a, b), [from, steps.length - 1]);
    const ranged = await panel.evaluate(() => window.slopPanel.writeTest('node'));
    assert.equal(ranged.invokes, 2);
    assert.match(ranged.text, new RegExp(`steps ${steps[from].step} to ${steps.at(-1).step}, 2 invokes`));
    assert.doesNotMatch(ranged.text, /'mark_read'/);
    await panel.evaluate(() => window.slopPanel.pinSteps());

    // The file is also offered as a download (.mjs), with the same text.
    const [download] = await Promise.all([
      panel.waitForEvent('download'),
      menuBtn.click().then(() => panel.locator('.row-menu [data-action="test-download-node"]').click()),
    ]);
    assert.match(download.suggestedFilename(), /^slop-acme-mail-node-test\.test\.mjs$/);
    const noTime = (t) => t.replace(/ \(\d{4}-\d\d-\d\dT[\d:.]+Z\)/, '');
    assert.equal(noTime(await fs.readFile(await download.path(), 'utf8')), noTime(copied.node), 'the same test (but the time it was written)');

    // Screenshots of the strip and its menu: narrow and wide, light and dark (a panel of its own:
    // the theme is read when the page opens).
    for (const scheme of ['light', 'dark']) {
      const shot = scheme === 'light' ? panel : await openExtensionPage(browser.ctx, browser.extId, `extension/panel/panel.html?tabId=${tabId}&theme=dark`);
      if (shot !== panel) {
        await until(() => shot.evaluate((k) => window.slopPanel.selectedKey() === k, key), { what: 'the provider shown (dark)' });
        await shot.click('#toggle-history');
        await until(() => shot.evaluate(() => (window.slopPanel.history()?.steps.length ?? 0) > 10), { what: 'the History (dark)' });
      }
      const btn = shot.locator('#history-strip [data-action="h-test"]');
      for (const w of [320, 1280]) {
        await shot.setViewportSize({ width: w, height: 600 });
        await shot.keyboard.press('Escape');
        await btn.click();
        await shot.locator('.row-menu').waitFor();
        const box = await btn.boundingBox();
        assert.ok(box && box.x >= 0 && box.x + box.width <= w, `the Test button is on screen at ${w} px`);
        const menu = await shot.locator('.row-menu').boundingBox();
        assert.ok(menu.x >= 0 && menu.x + menu.width <= w, `the menu fits at ${w} px`);
        await shot.screenshot({ path: path.join(SHOTS, `panel-copy-as-test-${w}-${scheme}.png`) });
        await shot.keyboard.press('Escape');
      }
      if (shot !== panel) await shot.close();
    }
    await panel.setViewportSize({ width: 1280, height: 800 });

    // THE PROOF: each form passes against a fresh demo provider, and fails against a changed app.
    for (const form of ['playwright', 'node']) {
      const file = path.join(dir, `${form}.test.mjs`);
      await fs.writeFile(file, copied[form]);
      for (const changed of [false, true]) {
        const fresh = await mailProvider(changed ? forgetfulMarkRead : {});
        try {
          const { code, out } = await runTest(file, {
            SLOP_PAGE_URL: fresh.url('/pages/meta-ws.html'), SLOP_PROVIDER_URL: fresh.wsUrl, SLOP_TOKEN: fresh.token, SLOP_ORIGIN: NODE_ORIGIN,
          });
          if (!changed) {
            assert.equal(code, 0, `the ${form} test passes against the app:\n${out.slice(-3000)}`);
            assert.match(out, /# pass 1\b/);
          }
          else {
            assert.notEqual(code, 0, `the ${form} test fails against the changed app:\n${out.slice(-3000)}`);
            assert.match(out, /\/inbox: properties\["unread"\] is \d+, expected \d+/, `it says where and what:\n${out.slice(-3000)}`);
          }
        } finally {
          await fresh.close();
        }
      }
    }
  });
});
