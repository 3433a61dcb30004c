// helpers.mjs: shared pieces of the end-to-end tests: launching Chromium with the unpacked
// extension, finding the (current) service worker, waiting on its state, fixture providers,
// opening extension pages, collecting console output, stopping the worker through CDP.
//
// Every wait has an explicit timeout; tests never assert on wall-clock time.
//
// Messages between contexts: a context about to post a message whose type is not in the
// catalogue (extension/shared/messages.js) drops it and prints UNCATALOGUED. launch() watches
// every page and worker of the browser for that line, and a test file that uses these helpers
// fails at its end if any context printed it (tests/firefox/helpers.mjs adds Firefox's).

import { after } from 'node:test';
import { chromium } from 'playwright-core';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { UNCATALOGUED } from '../../extension/shared/messages.js';
import { slopLaunchArgs, currentWorker } from '../../js-glue/node/playwright.js';

export { currentWorker };

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const EXT_DIR = path.join(ROOT, 'build/extension');
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** Hard limit per test (node:test `timeout` option). */
export const TEST_TIMEOUT = 90_000;

/** Console lines in which a context of a browser launched here reported an uncatalogued message. */
export const uncatalogued = [];

/** Removes and returns the reports a test provoked on purpose (pred(line) true). */
export function takeUncatalogued(pred) {
  const mine = uncatalogued.filter(pred);
  for (const l of mine) uncatalogued.splice(uncatalogued.indexOf(l), 1);
  return mine;
}

// Only under the test runner (the benchmarks and `npm start` use these helpers too).
if (process.env.NODE_TEST_CONTEXT || /\.test\.m?js$/.test(process.argv[1] ?? '')) {
  after(() => {
    if (uncatalogued.length === 0) return;
    throw new Error('a context posted a message type that is not in extension/shared/messages.js:\n' +
      uncatalogued.splice(0).join('\n'));
  });
}

/** The library's flags (the extension, a quiet Chromium); *.test names resolve to 127.0.0.1 (cross-origin tests). */
export function chromiumArgs(extDir = EXT_DIR) {
  return [...slopLaunchArgs(extDir), '--host-resolver-rules=MAP *.test 127.0.0.1'];
}

/**
 * Launches Chromium with the extension. Returns {ctx, extId, userDataDir, close}. close() also
 * removes the temporary profile. env: Chromium's environment (the native host it starts inherits it).
 */
export async function launch({ headless = true, extDir = EXT_DIR, extraArgs = [], env = undefined } = {}) {
  await fs.access(path.join(extDir, 'manifest.json')).catch(() => {
    throw new Error(`${extDir}/manifest.json is missing: run bash build.sh first`);
  });
  const userDataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'slop-e2e-'));
  const ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless,
    args: [...chromiumArgs(extDir), ...extraArgs],
    timeout: 30_000,
    viewport: { width: 1280, height: 800 },
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  // Pages, content scripts and service workers alike (a restarted worker too).
  ctx.on('console', (msg) => {
    if (msg.text().includes(UNCATALOGUED)) uncatalogued.push(`${msg.page()?.url() ?? 'worker'}: ${msg.text()}`);
  });
  const close = async () => {
    await ctx.close().catch(() => {});
    await fs.rm(userDataDir, { recursive: true, force: true }).catch(() => {});
  };
  try {
    const sw = await currentWorker(ctx, 15_000);
    const extId = new URL(sw.url()).host;
    await swEval(ctx, () => globalThis.slopInspector.ready(), undefined, 15_000);
    return { ctx, extId, userDataDir, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * worker.evaluate on the current service worker, retried while a restarting worker makes the
 * handle stale. Return only JSON values (never the wasm Module: serialising it is very slow).
 */
export async function swEval(ctx, fn, arg, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  let lastError;
  while (Date.now() < deadline) {
    try {
      const sw = await currentWorker(ctx, Math.max(500, deadline - Date.now()));
      return await sw.evaluate(fn, arg);
    } catch (e) {
      lastError = e;
      await sleep(100);
    }
  }
  throw new Error(`service worker evaluate failed: ${lastError?.message ?? 'timeout'}`);
}

/** Polls fn(arg) in the service worker until it returns a truthy value; returns that value. */
export async function waitForSw(ctx, fn, arg, { timeout = 15_000, what = 'service worker state' } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await swEval(ctx, fn, arg, Math.max(1000, deadline - Date.now()));
      if (last) return last;
    } catch (e) {
      last = e.message;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)?.slice(0, 800)}`);
}

/** The providers the service worker has for the tab showing pageUrl (prefix match), or null. */
export function tabInfo(ctx, urlPrefix) {
  return swEval(ctx, (u) => globalThis.slopInspector.tabs().find((t) => t.pageUrl?.startsWith(u)) ?? null, urlPrefix);
}

/**
 * Waits until the tab at urlPrefix has a provider for which pred(provider) is true (evaluated
 * here, in Node); returns {tabId, provider}.
 */
export async function waitForProvider(ctx, urlPrefix, pred, { timeout = 15_000, what } = {}) {
  const deadline = Date.now() + timeout;
  let last = null;
  while (Date.now() < deadline) {
    last = await tabInfo(ctx, urlPrefix).catch(() => null);
    const hit = last?.providers.find((p) => pred(p));
    if (hit) return { tabId: last.tabId, provider: hit };
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what ?? `a provider on ${urlPrefix} matching ${pred}`}; ` +
    `last: ${JSON.stringify(last?.providers?.map((p) => ({ key: p.key, status: p.status, message: p.message })) ?? last)}`);
}

/** Polls an async fn until it returns a truthy value. */
export async function until(fn, { timeout = 15_000, what = 'a condition', interval = 100 } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e.message;
    }
    await sleep(interval);
  }
  throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)?.slice(0, 800)}`);
}

export function mirror(ctx, tabId, key) {
  return swEval(ctx, ([t, k]) => globalThis.slopInspector.mirror(t, k), [tabId, key]);
}

/** Opens chrome-extension://ID/<rel> in a new tab and waits for body[data-ready="1"]. */
export async function openExtensionPage(ctx, extId, rel, { timeout = 10_000 } = {}) {
  const page = await ctx.newPage();
  await page.goto(`chrome-extension://${extId}/${rel}`, { timeout });
  await page.waitForSelector('body[data-ready="1"]', { timeout });
  return page;
}

/** The SLOP panel as a page for one tab. */
export function openPanel(ctx, extId, tabId) {
  return openExtensionPage(ctx, extId, `extension/panel/panel.html?tabId=${tabId}`);
}

/** Stops the extension's service worker like Chrome does when it is idle (CDP Target.closeTarget). */
export async function stopServiceWorker(ctx, extId) {
  const cdp = await ctx.browser().newBrowserCDPSession();
  try {
    const { targetInfos } = await cdp.send('Target.getTargets');
    const targets = targetInfos.filter((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${extId}/`));
    for (const t of targets) await cdp.send('Target.closeTarget', { targetId: t.targetId });
    return targets.length;
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/** Collects console output of every page and service worker of ctx (now and later). */
export function collectConsole(ctx) {
  const lines = [];
  const add = (where) => (msg) => lines.push(`${where}: ${msg.type()}: ${msg.text()}`);
  const seen = new WeakSet();
  const watchWorker = (w) => {
    if (seen.has(w)) return;
    seen.add(w);
    w.on('console', add(`worker ${w.url()}`));
  };
  ctx.on('console', (msg) => lines.push(`page ${msg.page()?.url() ?? '?'}: ${msg.type()}: ${msg.text()}`));
  ctx.on('weberror', (e) => lines.push(`weberror: ${e.error().message}`));
  ctx.serviceWorkers().forEach(watchWorker);
  ctx.on('serviceworker', watchWorker);
  return lines;
}

/** The Acme-style WebSocket provider with auth (startWsProvider), closed by the caller. */
export function startProvider(opts = {}) {
  return startWsProvider({ host: '127.0.0.1', port: 0, ...opts });
}

/** Stores a token through the service worker, as the options page would (test set-up only). */
export function setTokenInExtension(ctx, providerOrigin, token) {
  return swEval(ctx, async ([o, t]) => {
    const { tokens = {}, tokenIndex = {} } = await chrome.storage.local.get(['tokens', 'tokenIndex']);
    tokens[o] = t;
    tokenIndex[o] = { setAt: Date.now(), length: t.length };
    await chrome.storage.local.set({ tokens, tokenIndex });
    return true;
  }, [providerOrigin, token]);
}

/**
 * The usual set-up of a panel test: Chromium with the extension, the provider's token stored, a tab
 * on its meta-tag page, and the provider connected with its snapshot. Returns {browser, tabId, page}.
 */
export async function browserOnProvider(srv, { page: pagePath = '/pages/meta-ws.html' } = {}) {
  const browser = await launch();
  await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
  const page = await browser.ctx.newPage();
  await page.goto(srv.url(pagePath));
  const { tabId } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0);
  return { browser, tabId, page };
}

/** "ws://127.0.0.1:PORT" for a provider handle. */
export function wsOrigin(srv) {
  return new URL(srv.wsUrl).origin;
}

export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}
