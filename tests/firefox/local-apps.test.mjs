// Local apps in Firefox ESR: the native messaging host installed for Firefox under a temp HOME
// ($HOME/.mozilla/native-messaging-hosts/, naming the add-on's gecko id; Firefox is started with
// that HOME, and the host it starts inherits SLOP_PROVIDER_DIRS), a todo provider on a Unix
// socket announced in a temp providers directory. Options turns local apps on (asking for the
// optional nativeMessaging permission from the click), the panel lists the app, shows its tree
// and an invoke reaches the provider.
//
// Granting the permission in automation: the pref extensions.webextOptionalPermissionPrompts =
// false makes Firefox grant an optional permission that permissions.request asks for without
// showing its prompt; the request must still come from a user's input handler, which puppeteer's
// click (WebDriver BiDi input actions) is.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { launchFirefox, extensionPage, until, ROOT } from './helpers.mjs';
import { installHost } from '../../js-glue/node/native-host-install.js';
import { startUnixProvider, registerDescriptor } from '../fixtures/provider/local-server.mjs';
import { createTodoEngine } from '../fixtures/demo-trees.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');

describe('local apps through the native host (Firefox)', () => {
  let tmp, ff, provider, engine;

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'slop-local-ff-'));
    const home = path.join(tmp, 'home');
    const dir = path.join(tmp, 'providers');
    engine = createTodoEngine();
    provider = await startUnixProvider({ path: path.join(dir, 'todo.sock'), engine });
    registerDescriptor(dir, { id: 'todo-local', name: 'Todo (local)', transport: { type: 'unix', path: provider.path }, pid: process.pid });
    await installHost({ home, browsers: ['firefox'] });
    ff = await launchFirefox({
      env: { HOME: home, SLOP_PROVIDER_DIRS: dir },
      prefs: { 'extensions.webextOptionalPermissionPrompts': false },
    });
  });
  after(async () => {
    await ff?.close();
    await provider?.close();
    engine?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  test('Options turns local apps on; the panel lists the Unix-socket app, shows its tree, and an invoke reaches it', { timeout: 120_000 }, async () => {
    const options = await extensionPage(ff, 'extension/options/options.html');
    await options.click('#local-enabled');
    await until(async () => /native host is running/.test(await options.$eval('#local-status', (e) => e.textContent)),
      { what: 'the host running, said in Options', timeout: 20_000 })
      .catch(async (e) => { throw new Error(`${e.message}; status: ${await options.$eval('#local-status', (el) => el.textContent)}`); });
    const panel = await extensionPage(ff, 'extension/panel/panel.html?tabId=999');
    await panel.click('#toggle-local');
    const inspect = await panel.waitForSelector('#local-strip .local-app[data-id="todo-local"] [data-action="local-inspect"]', { timeout: 15_000 });
    const text = await panel.$eval('#local-strip .local-app[data-id="todo-local"]', (e) => e.textContent);
    assert.match(text, /Todo \(local\)[\s\S]*Unix socket[\s\S]*todo\.sock[\s\S]*running/);
    await panel.screenshot({ path: path.join(SHOTS, 'local-apps-firefox-list.png') });
    await inspect.click();
    await panel.waitForSelector('#tree .row[data-path="/todos"]', { timeout: 15_000 });
    assert.equal(await panel.evaluate(() => globalThis.slopPanel.selectedKey()), 'local:todo-local');
    await panel.evaluate(() => globalThis.slopPanel.reveal('/todos/t2'));
    await panel.click('#tree .row[data-path="/todos/t2"]');
    await panel.waitForSelector('.affordance[data-action-name="toggle"] button[data-action="invoke"]', { timeout: 10_000 });
    const was = engine.get('/todos/t2').properties.done;
    await panel.click('.affordance[data-action-name="toggle"] button[data-action="invoke"]');
    await until(() => engine.get('/todos/t2')?.properties?.done === !was, { what: 'the provider toggled t2' })
      .catch(async (e) => {
        await panel.screenshot({ path: path.join(SHOTS, 'local-apps-firefox-failed.png') });
        throw new Error(`${e.message}; selected ${JSON.stringify(await panel.evaluate(() => globalThis.slopPanel.selection()))}; todos ${JSON.stringify(engine.get('/todos'))?.slice(0, 600)}`);
      });
    await panel.screenshot({ path: path.join(SHOTS, 'local-apps-firefox-inspect.png') });
  });
});
