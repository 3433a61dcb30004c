// Local apps in Chromium: the native messaging host (bin/slop-native-host.js) installed into the
// test profile's NativeMessagingHosts (Chromium reads a --user-data-dir profile's own), a todo
// provider on a Unix socket announced by a descriptor in a temp providers directory (the host
// reads SLOP_PROVIDER_DIRS, which Chromium passes on to the host it starts), a directory refused
// for its mode, and a stdio app. The panel lists them, shows the socket app's tree, invokes one
// of its affordances, and runs the stdio app only after its command is approved.
//
// Granting the optional nativeMessaging permission in automation: Chromium (156) shows its
// permission prompt for permissions.request even headless, and nothing in Playwright answers it
// (no flag or CDP call grants an extension permission). So this test loads a copy of the
// extension whose manifest lists nativeMessaging under `permissions` (granted at load); the same
// `key` keeps the same extension id, which the host manifest names. The Options switch then finds
// the permission granted (permissions.request resolves true without a prompt).

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { launch, openExtensionPage, openPanel, swEval, waitForSw, until, stopServiceWorker, EXT_DIR, ROOT, TEST_TIMEOUT } from './helpers.mjs';
import { Request } from '../../extension/shared/messages.js';
import { installHost } from '../../js-glue/node/native-host-install.js';
import { startUnixProvider, registerDescriptor } from '../fixtures/provider/local-server.mjs';
import { createTodoEngine } from '../fixtures/demo-trees.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');

/** A copy of the built extension with nativeMessaging required (see the top of this file). */
export async function extensionWithNativeMessaging(tmp) {
  const dir = path.join(tmp, 'extension');
  await fs.cp(EXT_DIR, dir, { recursive: true, dereference: true });
  const manifestPath = path.join(dir, 'manifest.json');
  const m = JSON.parse(await fs.readFile(manifestPath, 'utf8'));
  m.permissions = [...m.permissions, 'nativeMessaging'];
  m.optional_permissions = (m.optional_permissions ?? []).filter((p) => p !== 'nativeMessaging');
  await fs.writeFile(manifestPath, JSON.stringify(m, null, 2));
  return dir;
}

describe('local apps through the native host (Chromium)', () => {
  let tmp, browser, provider, engine;
  let good, open;

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'slop-local-e2e-'));
    good = path.join(tmp, 'providers');
    open = path.join(tmp, 'shared-providers');
    engine = createTodoEngine();
    provider = await startUnixProvider({ path: path.join(good, 'todo.sock'), engine });
    registerDescriptor(good, { id: 'todo-local', name: 'Todo (local)', transport: { type: 'unix', path: provider.path }, pid: process.pid, description: 'A todo list on a Unix socket' });
    registerDescriptor(good, { id: 'todo-stdio', name: 'Todo (stdio)', transport: { type: 'stdio', command: [process.execPath, path.join(ROOT, 'tests/fixtures/provider/local-server.mjs'), 'stdio'] } });
    registerDescriptor(open, { id: 'other', name: 'Other', transport: { type: 'unix', path: '/nonexistent.sock' } }, { dirMode: 0o755, fileMode: 0o644 });
    const extDir = await extensionWithNativeMessaging(tmp);
    browser = await launch({ extDir, env: { SLOP_PROVIDER_DIRS: `${good}:${open}` } });
  });
  after(async () => {
    await browser?.close();
    await provider?.close();
    engine?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  test('without the host: the panel and Options say how to install it', { timeout: TEST_TIMEOUT }, async () => {
    const options = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
    await options.click('#local-enabled');
    await options.waitForSelector('#local-install:not([hidden])', { timeout: 10_000 });
    assert.match(await options.textContent('#local-status'), /native messaging host is not installed/);
    assert.equal(await options.textContent('#local-install-command'), 'npx slop-inspector install-host');
    const st = await waitForSw(browser.ctx, async () => { const s = await globalThis.slopInspector.localApps(); return s.state === 'no-host' && s; }, undefined, { what: 'no-host' });
    assert.match(st.message, /Specified native messaging host not found/);
    const panel = await openPanel(browser.ctx, browser.extId, 999);
    await panel.click('#toggle-local');
    await panel.waitForSelector('#local-strip [data-role="install-command"]', { timeout: 10_000 });
    assert.equal(await panel.textContent('#local-strip [data-role="install-command"]'), 'npx slop-inspector install-host');
    await panel.setViewportSize({ width: 480, height: 600 });
    await panel.screenshot({ path: path.join(SHOTS, 'local-apps-no-host-480.png') });
    await options.screenshot({ path: path.join(SHOTS, 'local-apps-options-no-host.png'), fullPage: false });
    await options.close();
    await panel.close();
  });

  test('with the host: listed with refused directories; the socket app inspected and invoked; the stdio app runs once approved', { timeout: TEST_TIMEOUT * 2 }, async () => {
    await installHost({ profile: browser.userDataDir });
    const panel = await openPanel(browser.ctx, browser.extId, 999);
    await panel.click('#toggle-local');
    // A panel that opens asks for local apps (Request.LOCAL_APPS): the worker tries the host
    // again, installed now.
    const app = panel.locator('#local-strip .local-app[data-id="todo-local"]');
    await app.waitFor({ timeout: 15_000 });
    assert.match(await app.textContent(), /Todo \(local\)[\s\S]*Unix socket[\s\S]*todo\.sock[\s\S]*pid \d+ running/);
    const refused = await panel.textContent('#local-strip [data-role="local-refused"]');
    assert.ok(refused.includes(open), refused);
    assert.match(refused, /0755[\s\S]*chmod 700/);
    // The SDK-made descriptor inside it: named with its fix, that the app writes it again, and the
    // address that needs none; one line fixes both, with a Copy button.
    const ignored = panel.locator('#local-strip [data-role="local-ignored"] li[data-file="other.json"]');
    assert.match(await ignored.textContent(), new RegExp(`its mode is 0644[\\s\\S]*Fix: chmod 600 ${open}/other\\.json`));
    assert.match(await ignored.locator('[data-role="local-recreated"]').textContent(),
      /write it again as 0644 each time the app starts[\s\S]*Without a descriptor: npx slop-inspector tree unix:\/nonexistent\.sock/);
    assert.equal(await panel.textContent('#local-strip [data-role="local-fix-all"] code'), `chmod 700 ${open} && chmod 600 ${open}/other.json`);
    assert.ok(await panel.locator('#local-strip [data-action="copy-fix-all"]').isVisible());
    const stdioApp = panel.locator('#local-strip .local-app[data-id="todo-stdio"]');
    assert.match(await stdioApp.textContent(), /runs .*local-server\.mjs stdio/);
    for (const [w, hgt] of [[320, 640], [480, 700], [700, 600], [1280, 800]]) {
      await panel.setViewportSize({ width: w, height: hgt });
      for (const scheme of ['light', 'dark']) {
        await panel.emulateMedia({ colorScheme: scheme });
        await panel.screenshot({ path: path.join(SHOTS, `local-apps-list-${w}-${scheme}.png`) });
      }
    }
    await panel.emulateMedia({ colorScheme: 'light' });
    await panel.setViewportSize({ width: 1280, height: 800 });

    // Inspect: the tree of the socket app.
    await app.locator('[data-action="local-inspect"]').click();
    await until(() => panel.evaluate(() => globalThis.slopPanel.selectedKey()), { what: 'the local app selected' })
      .catch(async (e) => { throw new Error(`${e.message}; LOCAL_OPEN: ${JSON.stringify(await panel.evaluate(() => globalThis.slopPanel.localResult()))}; message: ${await panel.textContent('#local-strip [data-role="local-message"]')}`); });
    assert.equal(await panel.evaluate(() => globalThis.slopPanel.selectedKey()), 'local:todo-local');
    await panel.waitForSelector('#tree .row[data-path="/todos"]', { timeout: 15_000 });
    await panel.evaluate(() => globalThis.slopPanel.reveal('/todos/t1'));
    await panel.click('#tree .row[data-path="/todos/t1"]', { timeout: 10_000 });
    const card = panel.locator('.affordance[data-action-name="toggle"]');
    await card.locator('button[data-action="invoke"]').click();
    await until(() => engine.get('/todos/t1')?.properties?.done === true, { what: 'the provider toggled t1' });
    await until(async () => (await panel.locator('.aff-result .pill').count()) > 0, { what: 'the invoke result shown' });
    // The mirror followed: the worker's tree of this app has t1 done.
    await waitForSw(browser.ctx, () => {
      const t = globalThis.slopInspector.mirror(-1, 'local:todo-local');
      return t?.children?.find((c) => c.id === 'todos')?.children?.find((c) => c.id === 't1')?.properties?.done === true;
    }, undefined, { what: 'the mirror patched' });
    for (const [w, hgt] of [[320, 640], [700, 600], [1280, 800]]) {
      await panel.setViewportSize({ width: w, height: hgt });
      await panel.screenshot({ path: path.join(SHOTS, `local-apps-inspect-${w}.png`) });
    }
    await panel.setViewportSize({ width: 1280, height: 800 });

    // The stdio app: the exact command shown, run only once approved.
    await panel.click('#toggle-local'); // Inspect closed the strip to make room for the tree
    await stdioApp.locator('[data-action="local-review"]').click();
    const review = stdioApp.locator('[data-role="local-review"]');
    await review.waitFor({ timeout: 5000 });
    const args = await review.locator('.local-argv code').allTextContents();
    assert.deepEqual(args, [process.execPath, path.join(ROOT, 'tests/fixtures/provider/local-server.mjs'), 'stdio']);
    await panel.setViewportSize({ width: 480, height: 800 });
    await panel.screenshot({ path: path.join(SHOTS, 'local-apps-approve-480.png') });
    await panel.setViewportSize({ width: 1280, height: 800 });
    const before = await swEval(browser.ctx, () => globalThis.slopInspector.info(-1, 'local:todo-stdio'));
    assert.equal(before, null, 'nothing runs before the approval');
    await review.locator('[data-action="local-approve"]').click();
    await waitForSw(browser.ctx, () => globalThis.slopInspector.info(-1, 'local:todo-stdio')?.live, undefined, { what: 'the stdio app live' });
    assert.equal(await panel.evaluate(() => globalThis.slopPanel.selectedKey()), 'local:todo-stdio');
    await panel.waitForSelector('#tree .row[data-path="/todos"]', { timeout: 15_000 });
    // The approval is kept: the list says so.
    const st = await swEval(browser.ctx, () => globalThis.slopInspector.localApps());
    assert.equal(st.apps.find((a) => a.id === 'todo-stdio').approved, true);

    // History and Conformance work on a local app as on any connection.
    const history = await panel.evaluate((r) => globalThis.slopPanel.request(r, { key: 'local:todo-local' }), Request.HISTORY);
    assert.ok(history.steps.length >= 2, `history steps: ${history.steps.length}`);
    const report = await panel.evaluate((r) => globalThis.slopPanel.request(r, { key: 'local:todo-local' }), Request.CONFORMANCE);
    assert.equal(report.must, 0, JSON.stringify(report.findings).slice(0, 400));

    // The worker stops (as Chrome stops an idle one): the apps being inspected come back.
    await stopServiceWorker(browser.ctx, browser.extId);
    await waitForSw(browser.ctx, () => globalThis.slopInspector.info(-1, 'local:todo-local')?.live && globalThis.slopInspector.info(-1, 'local:todo-stdio')?.live,
      undefined, { what: 'both local apps live again after a worker restart', timeout: 30_000 });

    // Stop: the stdio app's connection goes (its command is ended by the host).
    await panel.evaluate((r) => globalThis.slopPanel.request(r, { key: 'local:todo-stdio' }), Request.LOCAL_CLOSE);
    assert.equal(await swEval(browser.ctx, () => globalThis.slopInspector.info(-1, 'local:todo-stdio')), null);
    await panel.close();
  });
});
