// driver.mjs: one small interface over the two browsers the extension runs in, so that a test of
// the panel, the popup or the options page is written once and runs in both:
//   chromium   Playwright (playwright-core) driving Debian's Chromium (tests/e2e/helpers.mjs)
//   firefox    puppeteer-core over WebDriver BiDi driving Debian's Firefox ESR (tests/firefox/helpers.mjs)
//
// A Driver opens web pages and the extension's own pages and finds a tab's id; a UiPage offers the
// few things the tests do (click, fill, read, wait, evaluate in the page, screenshot, resize).
// What only one browser has is not here: a test that needs it (Chromium's service worker, say)
// stays in that browser's folder, with its counterpart in the other where one exists.
//
// Both extension pages load as ordinary tabs: chrome-extension:// in Chromium, moz-extension://
// (with Firefox's --remote-allow-system-access) in Firefox. The theme is forced with ?theme=, which
// the panel reads in both (prefers-color-scheme emulation is not in BiDi everywhere).

import { launch as launchChromium, swEval } from '../e2e/helpers.mjs';
import { launchFirefox, extensionPage as firefoxExtensionPage, webPage as firefoxWebPage } from '../firefox/helpers.mjs';

export const BROWSERS = ['chromium', 'firefox'];

/** Playwright and puppeteer pages behind one interface. */
class UiPage {
  constructor(kind, raw) {
    this.kind = kind;
    this.raw = raw;
  }

  url() { return this.raw.url(); }
  evaluate(fn, arg) { return this.raw.evaluate(fn, arg); }
  close() { return this.raw.close(); }

  /** Waits for a selector: visible (default), 'attached', or 'hidden'. */
  async waitFor(sel, { state = 'visible', timeout = 10_000 } = {}) {
    if (this.kind === 'chromium') return this.raw.locator(sel).first().waitFor({ state, timeout });
    const opts = { timeout, ...(state === 'visible' ? { visible: true } : state === 'hidden' ? { hidden: true } : {}) };
    return this.raw.waitForSelector(sel, opts);
  }

  /** Polls fn(arg) in the page until it is truthy; returns its value. */
  async waitUntil(fn, arg, { timeout = 10_000, what = 'a condition in the page' } = {}) {
    const deadline = Date.now() + timeout;
    let last;
    while (Date.now() < deadline) {
      last = await this.raw.evaluate(fn, arg).catch((e) => `error: ${e.message}`);
      if (last && !(typeof last === 'string' && last.startsWith('error: '))) return last;
      await new Promise((r) => setTimeout(r, 80));
    }
    throw new Error(`${this.kind}: timed out waiting for ${what}; last: ${JSON.stringify(last)?.slice(0, 300)}`);
  }

  async click(sel) {
    await this.waitFor(sel);
    if (this.kind === 'chromium') return this.raw.locator(sel).first().click();
    return this.raw.click(sel);
  }

  /** Sets a field's value as typing would (input and change events). */
  async fill(sel, value) {
    await this.waitFor(sel);
    if (this.kind === 'chromium') return this.raw.locator(sel).first().fill(value);
    await this.raw.$eval(sel, (e) => { e.value = ''; e.focus(); });
    if (value) await this.raw.type(sel, value);
    await this.raw.$eval(sel, (e) => e.dispatchEvent(new Event('change', { bubbles: true })));
  }

  async select(sel, value) {
    await this.waitFor(sel);
    if (this.kind === 'chromium') return this.raw.selectOption(sel, value);
    return this.raw.select(sel, value);
  }

  /** A key, or a chord as Playwright writes it ("Control+c"); puppeteer presses the modifiers itself. */
  async press(key) {
    if (this.kind === 'chromium') return this.raw.keyboard.press(key);
    const parts = key.split('+');
    const last = parts.pop();
    for (const m of parts) await this.raw.keyboard.down(m);
    try {
      await this.raw.keyboard.press(last);
    } finally {
      for (const m of parts.reverse()) await this.raw.keyboard.up(m);
    }
  }

  async focus(sel) {
    return this.raw.focus(sel);
  }

  text(sel) { return this.raw.$eval(sel, (e) => e.textContent); }
  texts(sel) { return this.raw.$$eval(sel, (els) => els.map((e) => e.textContent)); }
  attr(sel, name) { return this.raw.$eval(sel, (e, n) => e.getAttribute(n), name); }
  value(sel) { return this.raw.$eval(sel, (e) => e.value); }
  count(sel) { return this.raw.$$eval(sel, (els) => els.length); }
  isDisabled(sel) { return this.raw.$eval(sel, (e) => e.disabled === true); }
  activeAction() { return this.raw.evaluate(() => document.activeElement?.dataset?.action ?? document.activeElement?.id ?? null); }

  async setSize(width, height) {
    if (this.kind === 'chromium') return this.raw.setViewportSize({ width, height });
    return this.raw.setViewport({ width, height });
  }

  screenshot(path) { return this.raw.screenshot({ path }); }
}

/**
 * Starts a browser with build/extension loaded.
 * @param {'chromium'|'firefox'} kind
 * @returns {Promise<Driver>}
 */
export async function openBrowser(kind, { headless = true } = {}) {
  return kind === 'chromium' ? ChromiumDriver.start({ headless }) : FirefoxDriver.start({ headless });
}

class ChromiumDriver {
  kind = 'chromium';
  static async start({ headless }) {
    const d = new ChromiumDriver();
    d.b = await launchChromium({ headless });
    d.extOrigin = `chrome-extension://${d.b.extId}`;
    return d;
  }

  async webPage(url) {
    const page = await this.b.ctx.newPage();
    await page.goto(url);
    return new UiPage(this.kind, page);
  }

  async extensionPage(rel, { ready = true } = {}) {
    const page = await this.b.ctx.newPage();
    await page.goto(`${this.extOrigin}/${rel}`);
    if (ready) await page.waitForSelector('body[data-ready="1"]', { timeout: 10_000 });
    return new UiPage(this.kind, page);
  }

  /** The id of the tab showing url, once its content script has reported to the worker. */
  async tabId(url, timeout = 15_000) {
    const deadline = Date.now() + timeout;
    while (Date.now() < deadline) {
      const id = await swEval(this.b.ctx, (u) => globalThis.slopInspector.tabs().find((t) => t.pageUrl === u)?.tabId ?? null, url).catch(() => null);
      if (Number.isInteger(id)) return id;
      await new Promise((r) => setTimeout(r, 100));
    }
    return null;
  }

  close() {
    return this.b.close();
  }
}

class FirefoxDriver {
  kind = 'firefox';
  static async start({ headless }) {
    const d = new FirefoxDriver();
    d.ff = await launchFirefox({ headless });
    d.extOrigin = d.ff.extOrigin;
    return d;
  }

  async webPage(url) {
    return new UiPage(this.kind, await firefoxWebPage(this.ff, url));
  }

  async extensionPage(rel, { ready = true } = {}) {
    return new UiPage(this.kind, await firefoxExtensionPage(this.ff, rel, { ready }));
  }

  /** The id of the tab showing url, asked of the extension (Firefox has no worker to evaluate in). */
  async tabId(url) {
    const page = this.helper ??= await this.extensionPage('extension/options/options.html');
    return page.evaluate(async (u) => (await browser.tabs.query({})).find((t) => t.url === u)?.id ?? null, url);
  }

  close() {
    return this.ff.close();
  }
}

/**
 * Stores a provider token through the options page, as a user does (the same in both browsers).
 * @param {ChromiumDriver|FirefoxDriver} driver
 */
export async function saveToken(driver, origin, token) {
  const options = await driver.extensionPage('extension/options/options.html');
  await options.fill('#token-origin', origin);
  await options.fill('#token-value', token);
  await options.click('#token-form button[type="submit"]');
  await options.waitUntil((o) => document.getElementById('token-message').classList.contains('ok') && !!document.querySelector(`#tokens tr[data-origin="${o}"]`),
    origin.replace(/^http/, 'ws'), { what: 'the token saved' });
  await options.close();
}
