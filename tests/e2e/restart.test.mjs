// A developer restarts their dev server: the new process answers on the same port with its
// version counter back at 1. The extension must follow the new process (its snapshot starts a new
// history) and never keep showing the dead process's tree as "Connected". And when another app
// takes the port, the old mirror is dropped and the panel says so.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createMailEngine, createTodoEngine } from '../fixtures/demo-trees.mjs';
import { launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, waitForSw, mirror, openPanel, until, TEST_TIMEOUT } from './helpers.mjs';

const PAGE = { '/app.html': '<!doctype html><meta charset="utf-8"><meta name="slop" content="{{WS_URL}}"><title>dev app</title>' };
const portOf = (srv) => Number(new URL(srv.wsUrl).port);
const inbox = (tree) => tree?.children?.find((k) => k.id === 'inbox');

describe('a provider that restarts', () => {
  let browser;
  const closers = [];
  before(async () => { browser = await launch(); });
  after(async () => {
    await browser?.close();
    for (const c of closers) await c().catch(() => {});
  });

  test('with its counter back at 1: the panel shows the new process\'s tree, live, and marks the restart', { timeout: TEST_TIMEOUT }, async () => {
    const old = await startProvider({ engine: createMailEngine({ live: false, initialVersion: 20101 }), pages: PAGE });
    const port = portOf(old);
    await setTokenInExtension(browser.ctx, wsOrigin(old), old.token);
    const page = await browser.ctx.newPage();
    await page.goto(old.url('/app.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, old.url('/app.html'), (p) => p.status === 'connected' && p.nodes > 0);
    assert.equal(inbox(await mirror(browser.ctx, tabId, provider.key)).meta.total_children, 300);
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    const inboxRow = panel.locator('#tree .row[data-path="/inbox"]');
    await inboxRow.waitFor({ timeout: 10_000 });
    assert.match(await inboxRow.textContent(), /300/, 'the old process has 300 messages');

    // The dev server restarts: same app, same port and token, a fresh process at version 1.
    await old.close();
    const fresh = await startProvider({ engine: createMailEngine({ live: false, messages: 8 }), pages: PAGE, port, token: old.token });
    closers.push(() => fresh.close());
    const t0 = Date.now();
    const info = await waitForSw(browser.ctx, ([t, k]) => {
      const p = globalThis.slopInspector.info(t, k);
      const tree = globalThis.slopInspector.mirror(t, k);
      const inbox = tree?.children?.find((c) => c.id === 'inbox');
      return p?.status === 'connected' && inbox?.meta?.total_children === 8 ? p : null;
    }, [tabId, provider.key], { timeout: 15_000, what: 'the mirror of the restarted provider' });
    console.log(`# restarted provider followed ${Date.now() - t0} ms after it started listening`);
    const sub = info.subscriptions.find((s) => s.sub === info.primarySub);
    assert.equal(sub.state, 'live');
    assert.ok(sub.version < 20101, `the new history starts low (version ${sub.version})`);
    if (info.sync) assert.equal(info.sync.state, 'live');

    // The panel follows: the inbox row counts the new process's 8 messages, and the header
    // says connected and live.
    await until(async () => {
      const text = await inboxRow.locator('.ncount').textContent();
      if (!/^8$/.test(text)) throw new Error(`inbox row's count: ${text}`);
      return true;
    }, { timeout: 10_000, what: 'the inbox row to show the new process\'s 8 messages' });
    await until(async () => (await panel.locator('#status').getAttribute('data-live')) !== 'false',
      { timeout: 10_000, what: 'the header to say live' });
    // No refusal of the new snapshot as an old version, and the restart is in the events.
    const log = await waitForSw(browser.ctx, ([t, k]) => globalThis.slopInspector.log(t, k), [tabId, provider.key]);
    assert.ok(log.some((e) => e.dir === 'in' && e.type === 'snapshot'));
    const events = await panel.evaluate(() => document.body.innerText);
    assert.doesNotMatch(events, /version_regressed|older than 20101/);
    await panel.close();
    await page.close();
  });

  test('another app on the same port: the old mirror is dropped and the panel says so', { timeout: TEST_TIMEOUT }, async () => {
    const mail = await startProvider({ engine: createMailEngine({ live: false }), pages: PAGE });
    const port = portOf(mail);
    await setTokenInExtension(browser.ctx, wsOrigin(mail), mail.token);
    const page = await browser.ctx.newPage();
    await page.goto(mail.url('/app.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, mail.url('/app.html'), (p) => p.status === 'connected' && p.nodes > 0);
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.locator('#tree .row[data-path="/inbox"]').waitFor({ timeout: 10_000 });
    await mail.close();
    const todo = await startProvider({ engine: createTodoEngine({ live: false }), pages: PAGE, port, token: mail.token });
    closers.push(() => todo.close());
    const info = await waitForSw(browser.ctx, ([t, k]) => {
      const p = globalThis.slopInspector.info(t, k);
      return p?.status === 'connected' && p.provider?.id !== 'acme-mail' && p.nodes > 0 ? p : null;
    }, [tabId, provider.key], { timeout: 15_000, what: 'the new app' });
    assert.notEqual(info.provider.id, provider.provider.id);
    const tree = await mirror(browser.ctx, tabId, provider.key);
    assert.equal(inbox(tree), undefined, 'nothing of the mail app passes for the new one');
    await until(async () => (await panel.locator('#tree .row[data-path="/inbox"]').count()) === 0,
      { timeout: 10_000, what: 'the mail rows to leave the panel' });
    await panel.close();
    await page.close();
  });
});
