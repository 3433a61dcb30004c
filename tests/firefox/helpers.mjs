// helpers.mjs: Firefox ESR (Debian's /usr/bin/firefox-esr) driven by puppeteer-core over
// WebDriver BiDi, with build/extension installed as a temporary add-on.
//
// How the tests reach the extension:
//   - The extension UUID is random per install; the pref extensions.webextensions.uuids pins it,
//     so the origin (moz-extension://<UUID>) is known before the add-on is installed and the
//     fixture servers can allow exactly that origin.
//   - Firefox refuses BiDi navigation to moz-extension:// (and about:) URLs ("not allowed in this
//     context") unless the browser was started with --remote-allow-system-access: that is Firefox's
//     own switch for automation (RemoteAgent.allowSystemAccess, checked in
//     chrome://remote/content/webdriver-bidi/modules/root/browsingContext.sys.mjs). With it, the
//     tests open the options page and the panel as ordinary tabs, like the Chromium tests open
//     chrome-extension:// URLs, and the extension needs no test hook at all.
//   - puppeteer's page.goto() never settles for a moz-extension document (Firefox 153: the
//     navigation's load is not reported to puppeteer's frame tracking), so extensionPage() sends
//     browsingContext.navigate itself (wait: "complete"), which Firefox answers normally.
//   - The background page cannot be evaluated in. Everything the Chromium tests read from the
//     service worker is read here through the extension's own pages (the panel's port, the
//     options page) or at the fixture servers.
//
// Every wait has an explicit timeout.

import puppeteer from 'puppeteer-core';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Polling helpers are shared with the Chromium tests, and so is the list of uncatalogued
// messages the test files fail on (see tests/e2e/helpers.mjs).
import { uncatalogued } from '../e2e/helpers.mjs';
import { UNCATALOGUED } from '../../extension/shared/messages.js';
export { until, sleep } from '../e2e/helpers.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The unpacked extension (SLOP_EXT_DIR overrides it, e.g. to check that a broken build fails). */
export const EXT_DIR = process.env.SLOP_EXT_DIR ? path.resolve(process.env.SLOP_EXT_DIR) : path.join(ROOT, 'build/extension');
export const FIREFOX = process.env.FIREFOX ?? '/usr/bin/firefox-esr';

/**
 * Launches Firefox headless with the extension installed; returns {browser, uuid, extOrigin, geckoId, output, close}.
 * env: Firefox's environment (HOME decides where it reads native messaging host manifests, and the
 * host it starts inherits it); prefs: more Firefox preferences.
 */
export async function launchFirefox({ timeout = 30_000, headless = true, env = undefined, prefs = {} } = {}) {
  const manifestPath = path.join(EXT_DIR, 'manifest.json');
  if (!fs.existsSync(manifestPath)) throw new Error(`${manifestPath} is missing: run bash build.sh first`);
  if (!fs.existsSync(FIREFOX)) throw new Error(`${FIREFOX} is missing: run bash build.sh (installs firefox-esr)`);
  const geckoId = JSON.parse(fs.readFileSync(manifestPath, 'utf8')).browser_specific_settings.gecko.id;
  const uuid = crypto.randomUUID();
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless,
    timeout,
    protocolTimeout: 20_000,
    defaultViewport: { width: 1280, height: 800 },
    args: ['--remote-allow-system-access'],
    extraPrefsFirefox: {
      'extensions.webextensions.uuids': JSON.stringify({ [geckoId]: uuid }),
      // Console output of extension pages (the background page too) goes to stdout, so a
      // failing test can show what the background said.
      'devtools.console.stdout.content': true,
      ...prefs,
    },
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  // Firefox's stdout/stderr (puppeteer pipes them), kept for failure messages.
  const output = [];
  const proc = browser.process();
  for (const stream of [proc?.stdout, proc?.stderr]) {
    stream?.setEncoding('utf8');
    stream?.on('data', (d) => {
      const lines = String(d).split('\n').filter(Boolean);
      output.push(...lines);
      if (output.length > 2000) output.splice(0, output.length - 2000);
      uncatalogued.push(...lines.filter((l) => l.includes(UNCATALOGUED)).map((l) => `firefox: ${l}`));
    });
  }
  const close = async () => {
    if (process.env.SLOP_FF_DEBUG) console.log(`--- Firefox output ---\n${output.join('\n')}`);
    const closing = browser.close().catch(() => {});
    const timer = setTimeout(() => proc?.kill('SIGKILL'), 10_000);
    await closing;
    clearTimeout(timer);
  };
  try {
    const installed = await withTimeout(browser.installExtension(EXT_DIR), 15_000, 'installExtension');
    if (installed !== geckoId) throw new Error(`installExtension returned ${installed}, expected ${geckoId}`);
  } catch (e) {
    await close();
    throw e;
  }
  return { browser, uuid, geckoId, extOrigin: `moz-extension://${uuid}`, output, close };
}

/**
 * Opens moz-extension://<uuid>/<rel> in a new tab and waits for body[data-ready="1"] (unless
 * ready: false).
 */
export async function extensionPage(ff, rel, { ready = true, timeout = 10_000 } = {}) {
  const page = await ff.browser.newPage();
  const url = `${ff.extOrigin}/${rel}`;
  const context = page.mainFrame().browsingContext; // puppeteer-core internals (pinned version)
  if (typeof context?.navigate !== 'function') throw new Error('puppeteer-core changed: no BiDi browsingContext.navigate on the frame');
  await withTimeout(context.navigate(url, 'complete'), timeout, `navigation to ${url}`);
  if (ready) await page.waitForSelector('body[data-ready="1"]', { timeout });
  return page;
}

/** A web page in a new tab. */
export async function webPage(ff, url, { timeout = 10_000 } = {}) {
  const page = await ff.browser.newPage();
  await page.goto(url, { timeout, waitUntil: 'load' });
  return page;
}

export function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}

