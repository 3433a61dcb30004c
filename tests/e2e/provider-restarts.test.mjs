// A developer restarts their dev server again and again: each time the extension must follow the
// new process at once (the reconnect policy's fast path, js-glue/reconnect-policy.js), never show
// a dead or old tree as live meanwhile, and never let the back-off grow with the restarts. A
// provider that crash-loops (dies right after hello) must still back off to the ceiling.
//
// Tests never assert on wall time: they assert on the delays the worker's policy chose (ProviderInfo
// .reconnect) and print the measured recovery times as figures.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { startScriptedProvider, frames } from '../fixtures/provider/scripted.mjs';
import { POLICY } from '../../js-glue/reconnect-policy.js';
import { launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, waitForSw, swEval, openExtensionPage, until, sleep } from './helpers.mjs';

const PAGE = { '/app.html': '<!doctype html><meta charset="utf-8"><meta name="slop" content="{{WS_URL}}"><title>dev app</title>' };
const portOf = (srv) => Number(new URL(srv.wsUrl).port);

/**
 * Installs a 10 ms watcher in the worker for one connection: every reconnect decision (by its
 * seq), each time it turns live (with the mirror's inbox count and version), and every moment it
 * was live with a tree other than the one expected (globalThis.__rs.expect, set by the test).
 */
function watch(ctx, tabId, key) {
  return swEval(ctx, ([t, k]) => {
    clearInterval(globalThis.__rs?.timer);
    const rs = { decisions: [], lives: [], wrong: [], expect: null, wasLive: false, lastSeq: 0 };
    rs.timer = setInterval(() => {
      const p = globalThis.slopInspector.info(t, k);
      if (!p) return;
      const r = p.reconnect;
      if (r && r.seq !== rs.lastSeq) {
        rs.lastSeq = r.seq;
        rs.decisions.push({ ...r, retryAt: p.retryAt, status: p.status });
      }
      if (!p.live) { rs.wasLive = false; return; }
      const tree = globalThis.slopInspector.mirror(t, k);
      const count = tree?.children?.find((c) => c.id === 'inbox')?.meta?.total_children ?? null;
      const version = p.subscriptions.find((s) => s.sub === p.primarySub)?.version ?? null;
      if (rs.expect && (count !== rs.expect.count || version !== rs.expect.version)) {
        rs.wrong.push({ at: Date.now(), count, version, expect: { ...rs.expect } });
      }
      if (!rs.wasLive) rs.lives.push({ at: Date.now(), count, version });
      rs.wasLive = true;
    }, 10);
    globalThis.__rs = rs;
    return true;
  }, [tabId, key]);
}
const state = (ctx) => swEval(ctx, () => {
  const { timer, ...rest } = globalThis.__rs;
  return rest;
});
const expectTree = (ctx, expect) => swEval(ctx, (e) => { globalThis.__rs.expect = e; return true; }, expect);

describe('a dev server restarted again and again', () => {
  let browser;
  const closers = [];
  before(async () => { browser = await launch(); });
  after(async () => {
    await browser?.close();
    for (const c of closers) await c().catch(() => {});
  });

  test('20 restarts on the same port: each followed by the fast path, never live with a wrong tree', { timeout: 240_000 }, async () => {
    let srv = await startProvider({ engine: createMailEngine({ live: false, messages: 10, initialVersion: 7 }), pages: PAGE });
    const port = portOf(srv);
    const token = srv.token;
    await setTokenInExtension(browser.ctx, wsOrigin(srv), token);
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/app.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.url('/app.html'), (p) => p.live, { what: 'the first process, live' });
    await watch(browser.ctx, tabId, provider.key);
    let current = { count: 10, version: 7 };
    await expectTree(browser.ctx, current);

    const rows = [];
    for (let i = 0; i < 20; i++) {
      // Two of the restarts come after 15 s of quiet; the others 1 s after the mirror was live.
      const quiet = i === 4 || i === 14 ? 15_000 : 1_000;
      await sleep(quiet);
      const continues = i % 2 === 0; // half continue the version counter, half start again at 1
      const next = { count: 11 + i, version: continues ? current.version + 1 : 1 };
      // The new process listens at once, or after 0.3 s or 0.7 s (a dev server's start-up): the
      // extension's first try may find nobody there.
      const gap = [0, 300, 700][i % 3];
      const before = (await state(browser.ctx)).decisions.length;
      await srv.close();
      await sleep(gap);
      srv = await startProvider({
        engine: createMailEngine({ live: false, messages: next.count, ...(continues ? { initialVersion: next.version } : {}) }),
        pages: PAGE, port, token,
      });
      const listening = Date.now();
      await expectTree(browser.ctx, next);
      const st = await waitForSw(browser.ctx, (n) => {
        const rs = globalThis.__rs;
        const hit = rs.lives.find((l) => l.count === n.count && l.version === n.version);
        if (!hit) return null;
        const { timer, ...rest } = rs;
        return { ...rest, hit };
      }, next, { timeout: 20_000, what: `restart ${i + 1}: the new process's tree, live` });
      const decisions = st.decisions.slice(before);
      rows.push({
        restart: i + 1,
        after: `${quiet / 1000} s`,
        version: continues ? 'continues' : 'back at 1',
        'listens after (ms)': gap,
        'recovery (ms)': st.hit.at - listening,
        tries: decisions.length,
        'policy delays (ms)': decisions.map((d) => d.delay).join(' '),
        'close→retryAt (ms)': decisions[0] ? decisions[0].retryAt - decisions[0].closedAt : null,
      });
      // The policy's choices: the first try after the close is the fast one, and while the new
      // process was not listening yet, the tries came at most RESTART_CAP_MS apart; the back-off
      // did not grow from one restart to the next.
      assert.ok(decisions.length >= 1, `restart ${i + 1}: a reconnect was scheduled`);
      assert.equal(decisions[0].mode, 'restart', `restart ${i + 1}: ${JSON.stringify(decisions)}`);
      assert.ok(decisions[0].delay <= POLICY.FAST_MS, `restart ${i + 1}: first try after ${decisions[0].delay} ms`);
      for (const d of decisions) {
        assert.equal(d.mode, 'restart', `restart ${i + 1}: ${JSON.stringify(decisions)}`);
        assert.ok(d.delay <= POLICY.RESTART_CAP_MS, `restart ${i + 1}: ${JSON.stringify(decisions)}`);
      }
      current = next;
    }
    closers.push(() => srv.close());
    const final = await state(browser.ctx);
    await swEval(browser.ctx, () => { clearInterval(globalThis.__rs.timer); return true; });
    console.log('# recovery after each restart, from the moment the new process listened:');
    console.table(rows);
    const times = rows.map((r) => r['recovery (ms)']).sort((a, b) => a - b);
    console.log(`# recovery (ms): median ${times[10]}, max ${times[19]}`);
    // Never live with a tree that is not the current process's (the old one after its close, or a
    // mix of both).
    assert.deepEqual(final.wrong, [], 'live with a tree other than the provider\'s');
    await page.close();
  });

  test('a provider that dies right after every hello backs off to the ceiling; Retry now, opening or focusing the panel and a reload dial at once', { timeout: 120_000 }, async () => {
    const srv = await startScriptedProvider({
      script: [frames.hello(), { $wait: 'subscribe' }, { $terminate: true }],
      pages: { '/dies.html': '<!doctype html><meta charset="utf-8"><meta name="slop" content="{{WS_URL}}"><title>dies</title>' },
    });
    closers.push(() => srv.close());
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/dies.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.url('/dies.html'), (p) => p.reconnect?.seq >= 1, { what: 'the first crash' });
    await watch(browser.ctx, tabId, provider.key);
    const popup = await openExtensionPage(browser.ctx, browser.extId, `extension/popup/popup.html?tabId=${tabId}`);
    // Waiting out 1 + 2 + 4 + 8 + 16 s would be a minute: after each scheduled reconnect the test
    // presses Retry now, which dials at once and keeps what the policy knows of the crash loop.
    const decisions = [];
    for (let n = 0; n < 7; n++) {
      const d = await until(async () => {
        const rs = await state(browser.ctx);
        return rs.decisions.length > n ? rs.decisions[n] : null;
      }, { what: `reconnect decision ${n + 1}`, timeout: 40_000, interval: 50 });
      decisions.push(d);
      // The popup says what happens next, with a countdown (not a frozen "Reconnecting").
      const pill = popup.locator('.pill[data-status="reconnecting"]');
      await until(async () => /retry in \d+ s/.test(await pill.first().textContent().catch(() => '')), { what: 'the countdown in the popup' });
      if (n < 6) await popup.locator('button[data-action="retry"]').first().click();
    }
    console.log(`# crash loop: scheduled delays (ms) by crash: ${decisions.map((d) => `${d.seq}: ${d.delay}`).join(', ')}`);
    assert.ok(decisions.every((d) => d.mode === 'crash-loop'), JSON.stringify(decisions));
    // Crash n waits within [step/2, step] of 1, 2, 4, 8, 16, 30, 30... s: up to the ceiling and there.
    for (const d of decisions) {
      const step = Math.min(POLICY.CAP_MS, POLICY.BASE_MS * 2 ** (d.seq - 1));
      assert.ok(d.delay >= step / 2 && d.delay <= step, `crash ${d.seq}: ${d.delay} ms, step ${step}`);
    }
    assert.ok(decisions.at(-1).seq >= 6 && decisions.at(-1).delay >= POLICY.CAP_MS / 2, 'the ceiling was reached');
    // Retry now did not wait out the long delays: the next close came before the scheduled try.
    for (let k = 0; k + 1 < decisions.length; k++) {
      if (decisions[k].delay >= 4000) assert.ok(decisions[k + 1].closedAt < decisions[k].retryAt, `the try after crash ${decisions[k].seq} came at once`);
    }
    await popup.close();

    // At the ceiling (15 to 30 s to wait), the user opens the panel, then focuses it, then reloads
    // the page: each time the provider is dialled at once, before the scheduled try.
    const nextDecision = (after, what) => until(async () => (await state(browser.ctx)).decisions.find((d) => d.seq > after.seq),
      { what, timeout: 10_000, interval: 50 });
    // A click may land while the timer's own try is under way (two tries, two decisions): wait
    // until no try is in flight, then take the last decision as the one scheduled.
    let scheduled = null;
    await until(async () => {
      const last = (await state(browser.ctx)).decisions.at(-1);
      const settled = scheduled && last.seq === scheduled.seq;
      scheduled = last;
      return settled && last.status === 'reconnecting';
    }, { what: 'the crash loop to wait out its back-off', interval: 1500 });
    assert.equal(scheduled.mode, 'crash-loop');
    assert.ok(scheduled.delay >= POLICY.CAP_MS / 2, `at the ceiling: ${scheduled.delay} ms`);
    const panel = await openExtensionPage(browser.ctx, browser.extId, `extension/panel/panel.html?tabId=${tabId}`);
    const afterOpen = await nextDecision(scheduled, 'a try when the panel opened');
    assert.ok(afterOpen.closedAt < scheduled.retryAt, 'opening the panel dialled before the scheduled try');
    assert.equal(afterOpen.mode, 'crash-loop', 'and the crash loop is still one');
    await panel.evaluate(() => window.dispatchEvent(new Event('focus')));
    const afterFocus = await nextDecision(afterOpen, 'a try when the panel got the focus');
    assert.ok(afterFocus.closedAt < afterOpen.retryAt, 'focusing the panel dialled before the scheduled try');
    const dialled = srv.connections.length;
    await page.reload();
    // The reloaded page has a new connection, which dials at once.
    await until(() => srv.connections.length > dialled, { what: 'a connection after the reload', interval: 50 });
    const fresh = await swEval(browser.ctx, ([t, k]) => globalThis.slopInspector.info(t, k), [tabId, provider.key]);
    assert.ok(!fresh || !fresh.live, 'never live');
    assert.ok(Date.now() < afterFocus.retryAt, 'the reload did not wait for the scheduled try');
    await swEval(browser.ctx, () => { clearInterval(globalThis.__rs.timer); return true; });
    await panel.close();
    await page.close();
  });
});
