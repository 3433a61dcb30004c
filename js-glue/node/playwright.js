// playwright.js: SLOP in users' own Playwright tests (`slop-inspector/playwright`).
//
// Chromium only: the extension is loaded with --load-extension into a persistent context, which
// Playwright's Firefox cannot do. Everything a test reads comes from the extension's service
// worker through worker.evaluate, from its automation API (globalThis.slopInspector, declared and
// typed in extension/service-worker/automation.js), so a test sees exactly the mirror the
// DevTools panel shows. The API's version is checked once per context; its failures come back as
// codes (AutomationCode), which this file branches on, never on the words of a message.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import './exact-json.js';
import { SlopProvider, SlopTestError, SlopTestCode, matchesPartial } from './provider.js';
import { parseExact, stringifyExact } from '../exact-json.js';
import { reportLines } from '../conformance-report.js';

export { SlopProvider, SlopTestError, SlopTestCode, stableText, matchesPartial, stringifyExact, isExactNumber } from './provider.js';

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The unpacked extension's folder: the installed package itself (it has the manifest, the
 * extension's pages and the wasm core), or build/extension in a checkout of the repository
 * (the package root there also holds node_modules and build output).
 */
export const extensionPath = fs.existsSync(path.join(PACKAGE_ROOT, 'build/extension/manifest.json'))
  ? path.join(PACKAGE_ROOT, 'build/extension') : PACKAGE_ROOT;

/**
 * Chromium for Playwright: $CHROMIUM, else Debian's /usr/bin/chromium when present, else Playwright's own.
 * @returns {string|undefined}
 */
export function defaultExecutablePath() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  return fs.existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined;
}

/**
 * The Chromium arguments that load the extension: add them to your own launchPersistentContext.
 * @param {string} [extDir] @returns {string[]}
 */
export function slopLaunchArgs(extDir = extensionPath) {
  return [
    `--disable-extensions-except=${extDir}`,
    `--load-extension=${extDir}`,
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-default-apps',
    '--disable-sync',
    '--no-first-run',
    '--no-default-browser-check',
    '--metrics-recording-only',
  ];
}

/** @typedef {import('playwright-core').BrowserContext} BrowserContext */

/** @param {import('playwright-core').Worker} w */
const isExtensionWorker = (w) => w.url().startsWith('chrome-extension://');

/**
 * The extension's service worker that runs now (waits for one to start).
 * @param {BrowserContext} context @param {number} [timeout] ms
 * @returns {Promise<import('playwright-core').Worker>}
 */
export async function currentWorker(context, timeout = 10_000) {
  const live = context.serviceWorkers().filter(isExtensionWorker);
  if (live.length) return /** @type {import('playwright-core').Worker} */ (live.at(-1));
  return context.waitForEvent('serviceworker', { timeout, predicate: isExtensionWorker });
}

/**
 * Playwright's own errors that mean "the worker stopped or restarted under us": try again on the
 * new one. Only Playwright's (a closed target, a destroyed execution context) are read from their
 * words, as Playwright gives no code for them; every failure of the extension's own comes as an
 * AutomationCode (automationResult).
 */
const STALE_WORKER = /Target (page, context or browser )?(has been )?closed|Execution context was destroyed|has been closed/;

/** @typedef {import('../../extension/service-worker/automation.js').AutomationCalls} AutomationCalls */
/** @typedef {import('../../extension/service-worker/automation.js').TabSummary} TabSummary */
/** @typedef {import('../../extension/service-worker/automation.js').AutomationApi} AutomationApi */
/** @typedef {import('../../extension/service-worker/automation.js').AutomationCodeName} AutomationCodeName */
/**
 * @template T
 * @typedef {import('../../extension/service-worker/automation.js').AutomationResult<T>} AutomationResult
 */

/**
 * The automation API version this library speaks (AUTOMATION_VERSION of
 * extension/service-worker/automation.js: the type says it must be the same number, so tsc fails
 * when one changes without the other). An extension build of another version is refused once, in
 * words (checkAutomation), instead of failing later on a method it lacks or answers otherwise.
 * @type {typeof import('../../extension/service-worker/automation.js').AUTOMATION_VERSION}
 */
const EXPECTED_AUTOMATION_VERSION = 1;
/** The worker's global the API is installed as (AUTOMATION_GLOBAL). */
const AUTOMATION_GLOBAL = 'slopInspector';

/**
 * worker.evaluate(fn, arg) on the extension's current service worker, retried while a restarting
 * worker makes the handle stale; any other error is thrown at once.
 * @template A, R
 * @param {BrowserContext} context @param {import('playwright-core/types/structs').PageFunction<A, R>} fn @param {A} [arg]
 * @param {number} [timeout] ms
 * @returns {Promise<R>}
 */
export async function workerEval(context, fn, arg, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      const sw = await currentWorker(context, Math.max(500, deadline - Date.now()));
      return await sw.evaluate(fn, /** @type {A} */ (arg)); // as Playwright's own optional arg
    } catch (/** @type {any} */ e) { // whatever evaluate threw
      if (!STALE_WORKER.test(e?.message ?? '') || Date.now() >= deadline) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * run(method, args) of the worker's automation API: {ok: true, value} or {ok: false, code,
 * message}. Retried while the worker has no API yet (a worker still evaluating its module:
 * not_installed) and across a restart (workerEval); any other failure is the answer.
 * @template {keyof AutomationCalls} M
 * @param {BrowserContext} context @param {M} method @param {Parameters<AutomationCalls[M]>} args
 * @param {number} [timeout] ms
 * @returns {Promise<AutomationResult<Awaited<ReturnType<AutomationCalls[M]>>>>}
 */
async function automationResult(context, method, args, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    /** @type {[string, string, unknown[]]} */
    const arg = [AUTOMATION_GLOBAL, method, args];
    /** @type {AutomationResult<any>} */
    const r = await workerEval(context, ([g, m, a]) => {
      const api = /** @type {AutomationApi|undefined} */ (/** @type {any} */ (globalThis)[g]);
      // An API without run() is an older build's: the version check (checkAutomation) names it.
      return typeof api?.run === 'function' ? api.run(/** @type {keyof AutomationCalls} */ (m), /** @type {any} */ (a))
        : { ok: false, code: 'not_installed', message: `the extension's service worker has no ${g}.run` };
    }, arg, Math.max(500, deadline - Date.now()));
    if (r.ok === true || r.code !== 'not_installed' || Date.now() >= deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A failed automation result as an Error with its code (AutomationCode) and the worker's words
 * (a core refusal's reach a test's SlopTestError as they are).
 * @param {{code: AutomationCodeName, message: string}} r
 */
function automationError(r) {
  return Object.assign(new Error(r.message), { code: r.code });
}

/**
 * automationResult's value, or its failure thrown (an Error with `code`, one of AutomationCode).
 * @template {keyof AutomationCalls} M
 * @param {BrowserContext} context @param {M} method @param {Parameters<AutomationCalls[M]>} args
 * @param {number} [timeout] ms
 * @returns {Promise<Awaited<ReturnType<AutomationCalls[M]>>>}
 */
async function automation(context, method, args, timeout) {
  const r = await automationResult(context, method, args, timeout);
  if (r.ok === false) throw automationError(r);
  return r.value;
}

/** Contexts whose extension was checked (checkAutomation), each once. @type {WeakMap<BrowserContext, Promise<void>>} */
const checked = new WeakMap();

/**
 * Once per context: the extension's automation API is there, of the version this library speaks,
 * and its core is ready. A build of another version is refused in words.
 * @param {BrowserContext} context @param {number} [timeout] ms
 */
function checkAutomation(context, timeout = 15_000) {
  let done = checked.get(context);
  if (!done) {
    done = (async () => {
      const deadline = Date.now() + timeout;
      /** @type {{version: unknown}|null} */
      let found = null;
      for (;;) {
        found = await workerEval(context, (g) => {
          const api = /** @type {any} */ (globalThis)[g];
          return api ? { version: api.version ?? null } : null;
        }, AUTOMATION_GLOBAL, Math.max(500, deadline - Date.now()));
        if (found || Date.now() >= deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      if (!found) throw new Error(`slop-inspector: the extension's service worker has no automation API (globalThis.${AUTOMATION_GLOBAL}) after ${timeout} ms: is this SLOP Inspector's extension?`);
      if (found.version !== EXPECTED_AUTOMATION_VERSION) {
        throw new Error(`slop-inspector: the extension build and this library differ: the extension in the browser speaks automation version ${found.version ?? '(none: a build older than versions)'}, ` +
          `this library version ${EXPECTED_AUTOMATION_VERSION}. Load the extension of the same slop-inspector package (extensionPath, slopLaunchArgs()), or rebuild it in a checkout (bash build.sh extension).`);
      }
      await automation(context, 'ready', [], Math.max(500, deadline - Date.now()));
    })();
    checked.set(context, done);
    done.catch(() => checked.delete(context));
  }
  return done;
}

/**
 * Stores tokens and approvals in the extension, as its options page and popup would. Tokens are
 * never printed, and never readable back from the extension.
 * @param {BrowserContext} context
 * @param {{tokens?: Record<string, string|undefined>, approvals?: string[]}} [options]  an undefined token is skipped
 */
export async function configureSlop(context, { tokens = {}, approvals = [] } = {}) {
  for (const [origin, token] of Object.entries(tokens)) {
    if (token == null) continue;
    await automation(context, 'setToken', [origin, token])
      .catch((e) => { throw Object.assign(new Error(`slop-inspector: the token for ${origin} was not stored: ${e.message.replace(token, '<token>')}`), { code: e.code }); });
  }
  for (const key of approvals) await automation(context, 'approve', [key]);
}

/**
 * A persistent Chromium context with the extension loaded, its core ready, and tokens and
 * approvals stored. close() also removes the temporary profile.
 * @param {import('./playwright.js').LaunchOptions} [options]  chromium: Playwright's BrowserType (default: playwright-core's),
 *   headless (default true), executablePath, args, tokens, approvals, userDataDir, and any other
 *   launchPersistentContext option
 */
export async function launchWithSlop(options = {}) {
  const { chromium: browserType, tokens, approvals, args = [], userDataDir, executablePath = defaultExecutablePath(),
    headless = true, ...rest } = options;
  const chromium = browserType ?? (await import('playwright-core')).chromium;
  if (!fs.existsSync(path.join(extensionPath, 'manifest.json'))) {
    throw new Error(`slop-inspector: no extension at ${extensionPath} (in a checkout, run bash build.sh first)`);
  }
  const dir = userDataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'slop-inspector-'));
  const context = await chromium.launchPersistentContext(dir, {
    viewport: { width: 1280, height: 800 }, ...rest, headless, executablePath, args: [...slopLaunchArgs(), ...args],
  });
  if (!userDataDir) {
    // Chromium may still be writing its profile as the context closes: retry, never fail the test.
    context.on('close', () => fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }).catch(() => {}));
  }
  try {
    await currentWorker(context, 15_000);
    await checkAutomation(context, 15_000);
    await configureSlop(context, { tokens, approvals });
  } catch (e) {
    await context.close().catch(() => {});
    throw e;
  }
  return context;
}

/** Why a provider is not ready yet, in words, from its ProviderInfo. @param {any} p */
function describe(p) {
  const who = p.provider?.name ? `"${p.provider.name}" (${p.key})` : p.key;
  const sync = p.status === 'connected' ? `, mirror ${p.sync.state}${p.sync.reason ? `: ${p.sync.reason.message}` : ''}` : '';
  return `${who}: ${p.status}${sync}${p.message ? ` — ${p.message}` : ''}`;
}

/** Statuses a wait cannot get past without the test changing something. */
const STUCK = new Map([
  ['auth-failed', SlopTestCode.AUTH_FAILED],
  ['denied', SlopTestCode.DENIED],
  ['error', SlopTestCode.PROTOCOL_ERROR],
]);

/** @param {any} p ProviderInfo @param {{id?: string, name?: string, url?: string}} selector */
function matchesSelector(p, { id, name, url }) {
  if (id !== undefined && p.provider?.id !== id) return false;
  if (name !== undefined && p.provider?.name !== name) return false;
  if (url !== undefined && p.key !== url && p.transport?.url !== url) return false;
  return true;
}

/** The SLOP side of a context that has the extension (launchWithSlop, or the withSlop fixture). */
export class Slop {
  /** @param {import('playwright-core').BrowserContext} context */
  constructor(context) {
    this.context = context;
  }

  /** Every tab the extension knows, with its providers (ProviderInfo). */
  async tabs() {
    await checkAutomation(this.context);
    return automation(this.context, 'tabs', []);
  }

  /**
   * The tab showing page, by URL (the page may have changed its hash since the extension saw it),
   * or null; throws when several tabs show the same URL.
   * @param {import('playwright-core').Page} page
   */
  async #tabOf(page) {
    const url = page.url();
    const noHash = (/** @type {string|null} */ u) => String(u).split('#')[0];
    const all = await this.tabs();
    let tabs = all.filter((t) => t.pageUrl === url);
    if (tabs.length === 0) tabs = all.filter((t) => noHash(t.pageUrl) === noHash(url));
    if (tabs.length > 1) {
      throw new SlopTestError(SlopTestCode.AMBIGUOUS, `${tabs.length} tabs show ${url}: the extension cannot tell which one is this page; open one of them only`);
    }
    return tabs[0] ?? null;
  }

  /** The providers the extension found on page (ProviderInfo[]; empty before discovery). @param {import('playwright-core').Page} page */
  async providers(page) {
    return (await this.#tabOf(page))?.providers ?? [];
  }

  /**
   * Waits until page has a provider matching {id | name | url} (any, if the page has one) that is
   * connected with a live mirror; returns it. approve: true approves a cross-origin provider the
   * page names, as a user would in the popup. The timeout error says what was found instead.
   * @param {import('playwright-core').Page} page
   * @param {{id?: string, name?: string, url?: string, timeout?: number, approve?: boolean}} [selector]
   * @returns {Promise<SlopProvider>}
   */
  async provider(page, { id, name, url, timeout = 15_000, approve = false } = {}) {
    const sel = { id, name, url };
    const wanted = [id !== undefined && `id "${id}"`, name !== undefined && `name "${name}"`, url !== undefined && `url ${url}`]
      .filter(Boolean).join(', ') || 'any provider';
    const deadline = Date.now() + timeout;
    const approved = new Set();
    /** @type {{tab: TabSummary|null}} */
    let seen = { tab: null };
    for (;;) {
      const tab = await this.#tabOf(page);
      seen = { tab };
      const all = tab?.providers ?? [];
      const hits = all.filter((p) => matchesSelector(p, sel));
      if (hits.length > 1 && wanted === 'any provider') {
        throw new SlopTestError(SlopTestCode.AMBIGUOUS, `${page.url()} has ${hits.length} providers; say which one with {id | name | url}:\n` +
          hits.map((p) => `  ${describe(p)}`).join('\n'));
      }
      const hit = hits[0];
      if (hit?.live) return this.#handle(tab.tabId, hit);
      if (hit && approve && hit.status === 'pending-approval' && !approved.has(hit.approvalKey)) {
        approved.add(hit.approvalKey);
        await automation(this.context, 'approve', [/** @type {string} */ (hit.approvalKey)]); // one waiting for approval has one
      }
      const stuck = hit && STUCK.get(hit.status);
      if (stuck) throw await this.#withConformance(new SlopTestError(stuck, `${page.url()}: ${describe(hit)}`, { status: hit.status }), tab, hit);
      if (Date.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const tab = seen.tab;
    throw await this.#withConformance(this.#timeoutError(page, wanted, timeout, tab, sel), tab,
      tab?.providers.find((p) => matchesSelector(p, sel)));
  }

  /** err, with the core's conformance report as err.conformance when the provider answered at all
   * (a bad hello, a refused snapshot: the rule it broke, and `not_live`, why it never went live).
   * @param {SlopTestError} err @param {any} tab @param {any} hit ProviderInfo */
  async #withConformance(err, tab, hit) {
    if (!tab || !hit) return err;
    /** @type {AutomationResult<any>} */
    let r;
    try {
      r = await automationResult(this.context, 'call', [tab.tabId, hit.key, 'conformance', []]);
    } catch {
      return err; // the worker went away (Playwright's error): the error as it is
    }
    // not_connected (no core consumer, so nothing was judged), no_tab or no_provider (gone
    // meanwhile): the error as it is. A report with no frame judged adds nothing either.
    if (r.ok && r.value?.frames > 0) err.conformance = r.value;
    return err;
  }

  /**
   * @param {import('playwright-core').Page} page @param {string} wanted @param {number} timeout
   * @param {TabSummary|null} tab @param {{id?: string, name?: string, url?: string}} sel
   */
  #timeoutError(page, wanted, timeout, tab, sel) {
    const head = `timed out after ${timeout} ms waiting for ${wanted} on ${page.url()}`;
    if (!tab) {
      return new SlopTestError(SlopTestCode.NO_PAGE, `${head}: the extension has not seen this page (only http and https pages are inspected; is it loaded?)`);
    }
    if (tab.providers.length === 0) {
      // Discovery's findings: {content, error}, e.g. a /.well-known/slop that is not JSON.
      const problems = (tab.problems ?? []).map((/** @type {{content?: string, error?: string, message?: string}} */ p) => `\n  ${p?.content ? `${p.content}: ` : ''}${p?.error ?? p?.message ?? JSON.stringify(p)}`).join('');
      return new SlopTestError(SlopTestCode.NO_PROVIDER, `${head}: no SLOP provider on the page (no usable <meta name="slop"> or /.well-known/slop)${problems}`);
    }
    const hit = tab.providers.find((p) => matchesSelector(p, sel));
    if (!hit) {
      return new SlopTestError(SlopTestCode.NO_PROVIDER, `${head}: none matches; the page has:\n` +
        tab.providers.map((p) => `  ${describe(p)}`).join('\n'));
    }
    const code = /** @type {Record<string, import('./provider.js').SlopTestCodeName>} */ ({
      'pending-approval': SlopTestCode.PENDING_APPROVAL,
      unreachable: SlopTestCode.UNREACHABLE,
    })[hit.status] ?? SlopTestCode.TIMEOUT;
    const hint = hit.status === 'pending-approval'
      ? `\n  it waits for the user's approval of "${hit.approvalKey}": pass {approve: true}, or approvals: ["${hit.approvalKey}"] at launch` : '';
    return new SlopTestError(code, `${head}: ${describe(hit)}${hint}`, { status: hit.status });
  }

  /** @param {number} tabId @param {any} info ProviderInfo */
  #handle(tabId, info) {
    const context = this.context;
    /** @type {(method: string, ...args: unknown[]) => Promise<any>} */
    const call = async (method, ...args) => {
      // As text both ways: a number the provider sent as 1234567890123456789 comes back so. JSON
      // has no undefined: a trailing one is left out (the worker's default applies), a middle one
      // goes as null (the API reads both with ??).
      while (args.length && args.at(-1) === undefined) args.pop();
      const text = await automation(context, 'callText', [tabId, info.key, /** @type {any} */ (method), stringifyExact(args)]);
      return text === undefined ? undefined : parseExact(text);
    };
    const label = info.provider?.name ? `provider "${info.provider.name}" (${info.key})` : `provider ${info.key}`;
    return new SlopProvider(call, label);
  }
}

/**
 * Extends @playwright/test's `test`: `context` becomes a Chromium context with the extension
 * (launched with test's own Playwright), and a `slop` fixture (a Slop) is added.
 * @param {any} test  @playwright/test's test
 * @param {object} [options]  as launchWithSlop (tokens, approvals, headless, executablePath, args...)
 */
export function withSlop(test, options = {}) {
  return test.extend({
    context: async (/** @type {{playwright: {chromium: import('playwright-core').BrowserType}}} */ { playwright }, /** @type {(c: import('playwright-core').BrowserContext) => Promise<void>} */ use) => {
      const context = await launchWithSlop({ chromium: playwright.chromium, ...options });
      await use(context);
      await context.close();
    },
    slop: async (/** @type {{context: import('playwright-core').BrowserContext}} */ { context }, /** @type {(s: Slop) => Promise<void>} */ use) => {
      await use(new Slop(context));
    },
  });
}

/**
 * Polls check() until it passes (or, under .not, fails) or the timeout ends; the last outcome.
 * @param {() => Promise<{pass: boolean}>} check @param {boolean} isNot @param {number} timeout
 */
async function poll(check, isNot, timeout) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const outcome = await check();
    if (outcome.pass !== isNot || Date.now() >= deadline) return outcome;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** @param {unknown} received @param {string} matcher */
function asProvider(received, matcher) {
  if (!(received instanceof SlopProvider)) {
    throw new TypeError(`${matcher}: expected a SLOP provider (from slop.provider() or connect()), got ${typeof received}`);
  }
  return received;
}

/**
 * A failing assertion's message, with the nearest part of the tree (read now: messages are synchronous).
 * @param {SlopProvider} provider @param {boolean} pass @param {boolean} isNot @param {string} nodePath @param {string} message
 */
async function failureText(provider, pass, isNot, nodePath, message) {
  if (pass !== isNot) return message; // the assertion holds: the text is never shown
  return (await provider.failure(SlopTestCode.NOT_FOUND, message, nodePath)).message;
}

/**
 * Matchers for @playwright/test's expect.extend(slopMatchers). They retry until the timeout
 * (expect's, or {timeout}), like Playwright's own web-first assertions:
 *   await expect(app).toHaveSlopNode('/inbox/msg-1', { properties: { unread: false } });
 *   await expect(app).toHaveAffordance('/inbox/msg-1', 'archive');
 * `this` is expect's matcher state.
 */
/** @typedef {{isNot: boolean, timeout?: number}} MatcherState */
export const slopMatchers = {
  /**
   * @this {MatcherState} @param {unknown} received @param {string} nodePath @param {unknown} [partial]
   * @param {{timeout?: number}} [o]
   */
  async toHaveSlopNode(received, nodePath, partial = undefined, { timeout } = {}) {
    const provider = asProvider(received, 'toHaveSlopNode');
    /** @type {import('./provider.js').SlopNodeView|null} */
    let node = null;
    const { pass } = await poll(async () => {
      node = await provider.node(nodePath);
      return { pass: node !== null && matchesPartial(node, partial) };
    }, this.isNot, timeout ?? this.timeout ?? 5000);
    const what = partial === undefined ? 'a node' : `a node matching ${JSON.stringify(partial)}`;
    const text = await failureText(provider, pass, this.isNot, nodePath,
      `expected ${this.isNot ? 'no ' : ''}${what} at ${nodePath}; it is ${node ? JSON.stringify(node).slice(0, 400) : 'absent'}`);
    return { pass, name: 'toHaveSlopNode', expected: partial, actual: node, message: () => text };
  },
  /** @this {MatcherState} @param {unknown} received @param {string} nodePath @param {string} action @param {{timeout?: number}} [o] */
  async toHaveAffordance(received, nodePath, action, { timeout } = {}) {
    const provider = asProvider(received, 'toHaveAffordance');
    let node = /** @type {import('./provider.js').SlopNodeView|null} */ (null); // set in poll's callback
    const { pass } = await poll(async () => {
      node = await provider.node(nodePath);
      return { pass: !!node?.affordances?.some((a) => a.action === action) };
    }, this.isNot, timeout ?? this.timeout ?? 5000);
    const have = node ? (node.affordances ?? []).map((a) => a.action).join(', ') || 'none' : null;
    const text = await failureText(provider, pass, this.isNot, nodePath,
      `expected ${nodePath} ${this.isNot ? 'not ' : ''}to have the affordance "${action}"; ${node ? `it has: ${have}` : 'the node is absent'}`);
    return { pass, name: 'toHaveAffordance', expected: action, actual: have, message: () => text };
  },
  /**
   * The provider has no conformance finding beyond the rules in `allow` (rule ids), or none of
   * severity MUST when {severity: 'MUST'}. Not retried: the report is what was seen so far.
   * @this {MatcherState} @param {unknown} received @param {{allow?: string[], severity?: 'MUST'|'SHOULD'}} [o]
   */
  async toConformToSlop(received, { allow = [], severity = 'SHOULD' } = {}) {
    const provider = asProvider(received, 'toConformToSlop');
    const report = await provider.conformance();
    const counted = report.findings.filter((f) => !allow.includes(f.rule) && (severity === 'SHOULD' || f.severity === 'MUST'));
    const pass = counted.length === 0;
    const shown = { ...report, findings: counted };
    const text = this.isNot
      ? `expected ${provider.label} to break a SLOP rule, and it followed every one checked`
      : `${provider.label} breaks SLOP:\n${reportLines(shown).join('\n')}`;
    return { pass, name: 'toConformToSlop', expected: [], actual: counted.map((f) => f.rule), message: () => text };
  },
};
