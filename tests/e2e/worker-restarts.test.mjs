// The service worker stopped again and again on one page (as Chrome does to an idle worker):
// every time, the content scripts reconnect, the worker rebuilds the connections and the mirrors
// are live again. The recovery times are printed for the record, not asserted.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, stopServiceWorker, TEST_TIMEOUT } from './helpers.mjs';

const ROUNDS = 10;
const back = (p) => p.status === 'connected' && p.live === true && p.sync?.state === 'live' && p.nodes > 0;

describe('service worker stops', () => {
  let browser;
  let srv;

  before(async () => {
    srv = await startProvider();
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test(`stopped ${ROUNDS} times on one page: the WebSocket and postMessage providers come back live each time`, { timeout: TEST_TIMEOUT * 3 }, async () => {
    const wsUrl = srv.url('/pages/meta-ws.html');
    const spaUrl = srv.url('/pages/spa.html');
    const wsPage = await browser.ctx.newPage();
    await wsPage.goto(wsUrl);
    const spaPage = await browser.ctx.newPage();
    await spaPage.goto(spaUrl);
    let ws = (await waitForProvider(browser.ctx, wsUrl, back, { what: 'the WebSocket provider live' })).provider;
    let spa = (await waitForProvider(browser.ctx, spaUrl, back, { what: 'the in-page provider live' })).provider;

    const times = [];
    for (let round = 1; round <= ROUNDS; round++) {
      assert.ok(await stopServiceWorker(browser.ctx, browser.extId) >= 1, `round ${round}: a worker was stopped`);
      const t0 = Date.now();
      // A new worker has new subscription ids: the old worker's answer cannot pass for the new one.
      const oldWs = ws.primarySub;
      const oldSpa = spa.primarySub;
      ws = (await waitForProvider(browser.ctx, wsUrl, (p) => back(p) && p.primarySub !== oldWs,
        { timeout: 30_000, what: `round ${round}: the WebSocket provider live again` })).provider;
      const tWs = Date.now() - t0;
      spa = (await waitForProvider(browser.ctx, spaUrl, (p) => back(p) && p.primarySub !== oldSpa,
        { timeout: 30_000, what: `round ${round}: the in-page provider live again` })).provider;
      times.push({ round, ws: tWs, both: Date.now() - t0 });
    }
    console.log(`recovery after each worker stop (ms, WebSocket / both providers; polled every ~100 ms): ${
      times.map((t) => `${t.ws}/${t.both}`).join(', ')}`);
    for (const p of [wsPage, spaPage]) await p.close();
  });
});
