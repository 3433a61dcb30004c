// "Connected" means connected and live: a provider whose first subscription is resyncing reads as
// such in the popup, the panel header and banner and the badge, and turns live again once the
// provider answers. The reconnect back-off keeps growing for a provider that dies after every
// hello. Binary WebSocket frames are read as strict UTF-8: valid ones count as text, invalid
// ones are dropped with an error in the events.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startScriptedProvider, frames, reply, answerSubscribes } from '../fixtures/provider/scripted.mjs';
import {
  launch, setTokenInExtension, wsOrigin, waitForProvider, openPanel, openExtensionPage, swEval, mirror, until, ROOT, TEST_TIMEOUT,
} from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');

const page = (title) => `<!doctype html><meta charset="utf-8"><meta name="slop" content="{{WS_URL}}"><title>${title}</title>`;
const tree = (count, label = 'Scripted') => ({
  id: 'root', type: 'root', properties: { count, label },
  children: [{ id: 'a', type: 'item', properties: { n: 1 } }],
});
const badge = (ctx, tabId) => swEval(ctx, (t) => chrome.action.getBadgeText({ tabId: t }), tabId);

describe('live status, back-off, binary frames', () => {
  let browser;
  const closers = [];

  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    for (const c of closers) await c().catch(() => {});
  });

  async function scripted(opts, path) {
    const srv = await startScriptedProvider({ ...opts, pages: { [path]: page(path) } });
    closers.push(() => srv.close());
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    return srv;
  }

  test('a patch that cannot apply, resubscribe unanswered: not "Connected", data-live="false", badge "~"; live again once answered', { timeout: TEST_TIMEOUT }, async () => {
    let answer;
    const answered = new Promise((r) => { answer = r; });
    const srv = await scripted({
      script: [
        frames.hello(),
        ...reply('subscribe', (m) => frames.snapshot(m.id, 1, tree(0))),
        (ctx) => frames.patch(ctx.last.id, 2, 1, [{ op: 'replace', path: '/nope/properties/x', value: 1 }]),
        // The core resubscribes; the answer waits until the test has looked at every surface.
        { $wait: 'subscribe', $timeout: 60_000 },
        async (ctx) => { await answered; return frames.snapshot(ctx.last.id, 3, tree(3)); },
      ],
      afterScript: answerSubscribes(3, tree(3)),
    }, '/resync.html');
    const tab = await browser.ctx.newPage();
    await tab.goto(srv.url('/resync.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.url('/resync.html'),
      (p) => p.status === 'connected' && p.sync?.state === 'resyncing', { what: 'the resyncing provider' });
    assert.equal(provider.live, false);
    assert.ok(provider.sync.reason?.message || provider.sync.reason?.code, `a reason: ${JSON.stringify(provider.sync)}`);

    const popup = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${tabId}`);
    const pill = popup.locator(`.provider[data-key="${srv.wsUrl}"] .pill`);
    await pill.and(popup.locator('[data-live="false"]')).waitFor({ timeout: 5000 });
    assert.equal(await pill.textContent(), 'Connected · resyncing');
    assert.match(await popup.locator('.provider .sync').textContent(), /resyncing from a fresh snapshot\.$/);

    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.locator('#status[data-live="false"]').waitFor({ timeout: 10_000 });
    assert.equal(await panel.locator('#status').getAttribute('data-status'), 'connected');
    assert.equal(await panel.locator('#status').textContent(), 'Connected · resyncing');
    await panel.locator('#banner[data-kind="stale"]').waitFor({ timeout: 10_000 });
    assert.match(await panel.locator('#banner').textContent(), /^Showing the last known state \(v1\)\. .*resyncing from a fresh snapshot\.$/);
    assert.equal(await badge(browser.ctx, tabId), '~');

    answer();
    await waitForProvider(browser.ctx, srv.url('/resync.html'), (p) => p.live && p.sync.state === 'live' && p.sync.reason === null,
      { what: 'live again' });
    await pill.and(popup.locator('[data-live="true"]')).waitFor({ timeout: 5000 });
    assert.equal(await pill.textContent(), 'Connected');
    assert.equal(await popup.locator('.provider .sync').count(), 0);
    await panel.locator('#status[data-live="true"]').waitFor({ timeout: 10_000 });
    assert.equal(await panel.locator('#status').textContent(), 'Connected');
    await panel.locator('#banner').waitFor({ state: 'hidden', timeout: 10_000 });
    assert.deepEqual(await mirror(browser.ctx, tabId, srv.wsUrl), tree(3));
    await until(async () => (await badge(browser.ctx, tabId)) === '1', { what: 'badge "1"' });
    await popup.close();
    await panel.close();
    await tab.close();
  });

  test('stale after a refused snapshot: the countdown and reason; Retry resubscribes over the same connection', { timeout: TEST_TIMEOUT }, async () => {
    let mode = 'refuse';
    let release;
    const released = new Promise((r) => { release = r; });
    const srv = await scripted({
      script: [
        frames.hello(),
        ...reply('subscribe', (m) => frames.snapshot(m.id, 1, tree(0))),
        (ctx) => frames.patch(ctx.last.id, 2, 1, [{ op: 'replace', path: '/nope/properties/x', value: 1 }]),
      ],
      // Resubscribes get a snapshot the core refuses (a tree that is not a node) until the test
      // has pressed Retry; that one waits for the test, then gets a good snapshot.
      afterScript: (m) => {
        if (m?.type !== 'subscribe') return undefined;
        if (mode === 'refuse') return frames.snapshot(m.id, 3, 42);
        return async () => { await released; return frames.snapshot(m.id, 5, tree(5)); };
      },
    }, '/stale.html');
    const tab = await browser.ctx.newPage();
    await tab.goto(srv.url('/stale.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.url('/stale.html'),
      (p) => p.status === 'connected' && p.sync?.state === 'stale' && p.sync.retryAt, { what: 'the stale provider' });
    assert.equal(provider.live, false);
    assert.ok(provider.sync.reason?.message, `a reason: ${JSON.stringify(provider.sync)}`);

    const popup = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${tabId}`);
    const card = popup.locator(`.provider[data-key="${srv.wsUrl}"]`);
    await card.locator('.sync[data-sync="stale"]').waitFor({ timeout: 5000 });
    assert.match(await card.locator('.pill').textContent(), /^Connected · stale \(retry in \d+ s\)$/);
    assert.match(await card.locator('.sync').textContent(), /; retrying in \d+ s, or press Retry\.$/);
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.locator('#banner[data-kind="stale"] button[data-action="retry"]').waitFor({ timeout: 10_000 });
    assert.equal(await badge(browser.ctx, tabId), '~');
    // What a person sees, at the sizes DevTools gives the panel, light and dark.
    await fs.mkdir(SHOTS, { recursive: true });
    await popup.screenshot({ path: path.join(SHOTS, 'popup-stale.png') });
    for (const [w, h, name] of [[1280, 800, 'panel-stale.png'], [700, 500, 'panel-stale-700.png'], [480, 800, 'panel-stale-480.png']]) {
      await panel.setViewportSize({ width: w, height: h });
      await panel.screenshot({ path: path.join(SHOTS, name) });
    }
    await panel.emulateMedia({ colorScheme: 'dark' });
    await panel.setViewportSize({ width: 700, height: 500 });
    await panel.screenshot({ path: path.join(SHOTS, 'panel-stale-dark-700.png') });
    await panel.emulateMedia({ colorScheme: 'light' });
    await panel.setViewportSize({ width: 1280, height: 800 });

    mode = 'hold';
    await card.locator('button[data-action="retry"]').click();
    // The core resubscribed because the user asked (its reason says so), on the same connection.
    await waitForProvider(browser.ctx, srv.url('/stale.html'),
      (p) => p.status === 'connected' && p.sync?.state === 'resyncing' && p.sync.reason?.code === 'manual', { what: 'a manual resync' });
    release();
    await waitForProvider(browser.ctx, srv.url('/stale.html'), (p) => p.live, { what: 'live after Retry' });
    assert.deepEqual(await mirror(browser.ctx, tabId, srv.wsUrl), tree(5));
    assert.equal(srv.connections.length, 1, 'Retry did not reconnect');
    await panel.locator('#status[data-live="true"]').waitFor({ timeout: 10_000 });
    await popup.close();
    await panel.close();
    await tab.close();
  });

  test('a provider on this machine that dies after every hello: retried within a second each time, never more', { timeout: TEST_TIMEOUT }, async () => {
    const srv = await scripted({ script: [frames.hello(), { $wait: 'subscribe' }, { $terminate: true }] }, '/dies.html');
    const url = srv.url('/dies.html');
    // The worker records each reconnect the extension schedules: its delay = retryAt − the time of
    // the status change (both the extension's own figures).
    await swEval(browser.ctx, (u) => {
      globalThis.__delays = [];
      let last = null;
      globalThis.__delayPoll = setInterval(() => {
        const p = globalThis.slopInspector.tabs().find((t) => t.pageUrl?.startsWith(u))?.providers[0];
        if (p?.status === 'reconnecting' && p.retryAt && p.retryAt !== last) {
          last = p.retryAt;
          globalThis.__delays.push(p.retryAt - p.statusAt);
        }
      }, 20);
      return true;
    }, url);
    const tab = await browser.ctx.newPage();
    await tab.goto(url);
    const delays = await until(async () => {
      const d = await swEval(browser.ctx, () => globalThis.__delays);
      return d.length >= 5 ? d : false;
    }, { what: 'five reconnects', timeout: 60_000, interval: 250 });
    await swEval(browser.ctx, () => { clearInterval(globalThis.__delayPoll); return true; });
    console.log(`retry delays after hello-then-close (ms): ${delays.join(', ')}`);
    assert.ok(srv.connections.length >= 5, 'the provider saw a connection per attempt');
    // A crash loop on loopback: every wait between half and all of 1 s (LOOPBACK_CAP_MS), not
    // doubling to 30 s (a remote one still does: tests/node/reconnect-policy.test.js).
    for (const d of delays) assert.ok(d >= 450 && d <= 1100, `each retry within a second: ${delays}`);
    await tab.close();
  });

  test('binary frames: UTF-8 text counts as text, invalid UTF-8 is refused by the core in its words', { timeout: TEST_TIMEOUT }, async () => {
    let go;
    const ready = new Promise((r) => { go = r; });
    const greeting = 'Grüße ✓ 🎉';
    const bin = (frame) => Buffer.from(JSON.stringify(frame), 'utf8');
    const srv = await scripted({
      script: [
        bin(frames.hello()),
        ...reply('subscribe', (m) => bin(frames.snapshot(m.id, 1, tree(0, greeting)))),
        async (ctx) => { await ready; return Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]); }, // {"\xff\xfe"}
        (ctx) => frames.patch(ctx.last.id, 2, 1, [{ op: 'replace', path: '/properties/count', value: 2 }]),
      ],
      afterScript: answerSubscribes(2, tree(2, greeting)),
    }, '/binary.html');
    const tab = await browser.ctx.newPage();
    await tab.goto(srv.url('/binary.html'));
    const { tabId } = await waitForProvider(browser.ctx, srv.url('/binary.html'), (p) => p.live, { what: 'live over binary frames' });
    assert.deepEqual(await mirror(browser.ctx, tabId, srv.wsUrl), tree(0, greeting));
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.locator('#tree .row[data-path="/a"]').waitFor({ timeout: 10_000 });
    await panel.click('#toggle-log');
    go();
    await until(async () => (await mirror(browser.ctx, tabId, srv.wsUrl))?.properties.count === 2, { what: 'the patch after the bad frame' });
    const info = await swEval(browser.ctx, ([t, k]) => globalThis.slopInspector.info(t, k), [tabId, srv.wsUrl]);
    assert.equal(info.live, true, 'a dropped frame does not break the mirror');
    const log = await swEval(browser.ctx, ([t, k]) => globalThis.slopInspector.log(t, k), [tabId, srv.wsUrl]);
    assert.ok(log.some((e) => e.dir === 'in' && e.text === '<6 binary bytes>'), 'the bad frame is in the log');
    assert.ok(log.some((e) => e.dir === 'in' && e.type === 'snapshot' && e.text.includes(greeting)), 'the binary snapshot is logged as text');
    await panel.click('#log button[data-tab="events"]');
    await panel.locator('#log .ev-row.ev-protocol_error', { hasText: 'frame is not valid JSON: invalid UTF-8 in a string' }).waitFor({ timeout: 5000 });
    await panel.close();
    await tab.close();
  });
});
