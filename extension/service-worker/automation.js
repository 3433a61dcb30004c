// automation.js: the service worker's automation API, for the Playwright library
// (js-glue/node/playwright.js), the end-to-end tests and the developer console of this worker,
// all through worker.evaluate: Playwright reaches a service worker only that way, so the object
// is installed on the worker's global, as `globalThis.slopInspector` (AUTOMATION_GLOBAL). Pages
// cannot reach a service worker's globals. It returns mirror data and statuses only: a token can
// be stored from here, never read.
//
// Declared once, here: the methods and what each takes and returns (AutomationCalls, which the
// library imports as a type), the version of that contract (AUTOMATION_VERSION: the library
// checks it once, so an extension build and a library that differ say so instead of failing
// oddly), and the failures a caller tells apart (AutomationCode). The methods return their values
// and throw an AutomationError with a code; run(method, args) is the one entry the library uses:
// it answers {ok: true, value} or {ok: false, code, message}, because an error's own fields do not
// cross worker.evaluate (only its message does).

import { coreReady } from './core.js';
import { tabs, connectionOf, allConnections, MANUAL_TAB } from './tabs.js';
import { localAppsState } from './local-apps.js';
import { callProviderApi, ProviderApiCode } from '../../js-glue/provider-api.js';
import { readPortText, textForPort, exactEvent, parseExact } from '../../js-glue/exact-json.js';
import { setToken, approve } from '../shared/settings-store.js';

/**
 * The version of this API's contract: the methods, their arguments and results, the codes. Raise
 * it with any change a library of another version would misread (and the library's own,
 * EXPECTED_AUTOMATION_VERSION in js-glue/node/playwright.js, which type-checks against this one).
 */
export const AUTOMATION_VERSION = 1;

/** The global the API is installed as (the e2e tests, tests/ui/driver.mjs and the benches use it by name). */
export const AUTOMATION_GLOBAL = 'slopInspector';

/** Why an automation call failed: AutomationError.code, and `code` of a failed run() result. */
export const AutomationCode = Object.freeze({
  /** Said by the library, not the worker: the worker has no API on its global yet (its module is still being evaluated). Try again. */
  NOT_INSTALLED: 'not_installed',
  /** The wasm core failed to load: nothing will work in this worker. */
  NOT_READY: 'not_ready',
  /** No tab with this id shows a page with providers (closed, navigated away, or not announced again yet after a worker restart). */
  NO_TAB: 'no_tab',
  /** The tab has no provider with this key (nor is it one added by address or a local app). */
  NO_PROVIDER: 'no_provider',
  /** The provider's connection has no mirror now (connecting, waiting for approval, failed). */
  NOT_CONNECTED: 'not_connected',
  /** No such method (of this API, or of the provider API that call() and callText() reach). */
  UNKNOWN_METHOD: 'unknown_method',
  /** The arguments are not what the method takes (callText's text is not a JSON array, a token the store refuses). */
  BAD_ARGUMENTS: 'bad_arguments',
  /** The core refused the request (invoke params outside the schema, a capability the provider lacks): its words in the message. */
  REFUSED: 'refused',
  /** Anything else: a bug. The message says what. */
  FAILED: 'failed',
});

/** @typedef {typeof AutomationCode[keyof typeof AutomationCode]} AutomationCodeName */

/** A failure of an automation call, with one of AutomationCode. */
export class AutomationError extends Error {
  /** @param {AutomationCodeName} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'AutomationError';
    this.code = code;
  }
}

/** @typedef {import('../shared/messages.js').ProviderInfo} ProviderInfo */
/** @typedef {import('../shared/messages.js').NodeView} NodeView */
/** @typedef {import('../shared/messages.js').LocalAppsState} LocalAppsState */
/** @typedef {import('../../js-glue/frame-log.js').LogEntry} LogEntry */
/** @typedef {import('../shared/bridge-text.js').BridgeStatus} BridgeStatus */
/** @typedef {keyof typeof import('../../js-glue/provider-api.js').providerApi} ProviderApiMethod */

/**
 * @typedef {object} TabSummary   one tab the worker knows
 * @property {number} tabId
 * @property {string|null} pageUrl
 * @property {{content: string, error: string}[]} problems   what discovery could not use (a bad meta tag, a bad descriptor)
 * @property {ProviderInfo[]} providers   the page's own providers (not those added by address)
 */

/**
 * @typedef {object} AutomationCalls   the methods run() calls by name; each throws AutomationError
 * @property {() => Promise<true>} ready   resolves once the core is loaded (NOT_READY if it failed)
 * @property {() => TabSummary[]} tabs   every tab with providers, or problems, the worker knows
 * @property {(tabId: number, key: string) => ProviderInfo|null} info   one connection's ProviderInfo; null when there is none
 * @property {(tabId: number, key: string, sub?: string|null) => object|null} mirror
 *   the mirror of a subscription (default: the first) as SLOP node JSON; null when there is none
 * @property {(tabId: number, key: string, sub: string|null|undefined, paths: string[]) => (NodeView|null)[]|null} nodeViews
 *   the node views of paths (what the panel is sent), null for a path the mirror lacks; null when there is no mirror
 * @property {(tabId: number, key: string) => LogEntry[]} log   one connection's frame log; [] when there is none
 * @property {() => number} connectionCount   every connection the worker holds (pages', by address, local apps)
 * @property {(tabId: number, key: string, method: ProviderApiMethod, args?: unknown[]) => any} call
 *   providerApi[method](connection, ...args) (js-glue/provider-api.js) for one (tab, provider):
 *   NO_TAB, NO_PROVIDER, NOT_CONNECTED, UNKNOWN_METHOD, REFUSED
 * @property {(tabId: number, key: string, method: ProviderApiMethod, argsText: string) => Promise<string|undefined>} callText
 *   call() with its arguments and answer as JSON text, so that numbers cross to the library as the
 *   provider wrote them (worker.evaluate would carry them as doubles); BAD_ARGUMENTS when argsText is not a JSON array;
 *   undefined when call() answers undefined
 * @property {(origin: string, token: string) => Promise<string>} setToken
 *   stores a token as the options page does; resolves with the provider origin it is kept under (BAD_ARGUMENTS: refused)
 * @property {(approvalKey: string) => Promise<true>} approve   approves a cross-origin (page, target) pair as the popup does
 * @property {() => Promise<LocalAppsState>} localApps   local apps as a UI is told of them
 */

/**
 * @template T
 * @typedef {{ok: true, value: T} | {ok: false, code: AutomationCodeName, message: string}} AutomationResult
 */

/** @typedef {keyof AutomationCalls} AutomationMethod */

/**
 * @typedef {AutomationCalls & {
 *   version: number,
 *   bridge: {status: () => BridgeStatus, setApprovalTimeout: (ms: number) => void},
 *   run: <M extends AutomationMethod>(method: M, args?: Parameters<AutomationCalls[M]>) =>
 *     Promise<AutomationResult<Awaited<ReturnType<AutomationCalls[M]>>>>,
 * }} AutomationApi
 *   `version`: AUTOMATION_VERSION of this build; `bridge`: the desktop bridge's status, and a
 *   shorter approval wait for tests; `run`: any of AutomationCalls by name, as a result, never a throw
 */

/**
 * An answer's core events read from their own text where they came with it (`exact`, added by the
 * worker's plain reading: exact-json.js exactEvent), so that an invoke's data, a query's tree, a
 * drift's values and the events() list cross to the Playwright library with the provider's digits
 * and without that text beside them.
 * @param {string} method @param {any} answer
 */
function exactAnswer(method, answer) {
  if (method === 'events' && Array.isArray(answer)) {
    return answer.map((e) => (typeof e?.exact === 'string' ? { at: e.at, ...parseExact(e.exact) } : e));
  }
  if (answer && typeof answer === 'object' && answer.event && typeof answer.event === 'object') {
    return { ...answer, event: exactEvent(answer.event, parseExact) };
  }
  return answer;
}

/**
 * The connection of (tabId, key), or NO_TAB / NO_PROVIDER.
 * @param {number} tabId @param {string} key
 */
function needConnection(tabId, key) {
  const c = connectionOf(tabId, key);
  if (c) return c;
  if (!tabs.has(tabId) && tabId !== MANUAL_TAB) throw new AutomationError(AutomationCode.NO_TAB, `no tab ${tabId} with SLOP providers`);
  throw new AutomationError(AutomationCode.NO_PROVIDER, `no provider ${key} in tab ${tabId}`);
}

/**
 * An error of the provider API or the core as an AutomationError (one already is stays as it is).
 * @param {any} e @returns {AutomationError}
 */
export function automationErrorOf(e) {
  if (e instanceof AutomationError) return e;
  const message = String(e?.message ?? e);
  if (e?.code === ProviderApiCode.NOT_CONNECTED) return new AutomationError(AutomationCode.NOT_CONNECTED, message);
  if (e?.code === ProviderApiCode.UNKNOWN_METHOD) return new AutomationError(AutomationCode.UNKNOWN_METHOD, message);
  if (e?.name === 'SlopError') return new AutomationError(AutomationCode.REFUSED, message);
  return new AutomationError(AutomationCode.FAILED, message);
}

/**
 * providerApi[method] for one connection, its failures as AutomationErrors.
 * @param {number} tabId @param {string} key @param {string} method @param {unknown[]} args
 */
async function callOn(tabId, key, method, args) {
  const c = needConnection(tabId, key);
  try {
    return await callProviderApi(c, method, args);
  } catch (e) {
    throw automationErrorOf(e);
  }
}

/**
 * The API object. What it reaches: the tabs and connections (tabs.js), the core (core.js), the
 * settings store, local apps, and the desktop bridge sw.js made.
 * @param {{bridge: {status(): BridgeStatus, approvals: {timeoutMs: number}}}} o
 * @returns {AutomationApi}
 */
export function createAutomationApi({ bridge }) {
  /** @type {AutomationCalls} */
  const calls = {
    ready: () => coreReady.then(() => /** @type {true} */ (true), (e) => {
      throw new AutomationError(AutomationCode.NOT_READY, `the SLOP core failed to load: ${e?.message ?? e}`);
    }),
    tabs: () => [...tabs.values()].map((t) => ({
      tabId: t.tabId, pageUrl: t.pageUrl, problems: t.problems,
      providers: [...t.connections.values()].map((c) => c.info()),
    })),
    info: (tabId, key) => connectionOf(tabId, key)?.info() ?? null,
    mirror: (tabId, key, sub) => {
      const c = connectionOf(tabId, key);
      if (!c?.consumer) return null;
      const s = sub ?? c.primarySub;
      const st = c.consumer.status().subscriptions?.find((x) => x.sub === s);
      return st ? c.consumer.tree(s, st.path, -1) : null;
    },
    nodeViews: (tabId, key, sub, paths) => {
      const c = connectionOf(tabId, key);
      const consumer = c?.consumer;
      return consumer ? paths.map((p) => /** @type {NodeView|null} */ (consumer.node(sub ?? c.primarySub, p))) : null;
    },
    log: (tabId, key) => connectionOf(tabId, key)?.log.slice() ?? [],
    connectionCount: () => allConnections().length,
    call: (tabId, key, method, args = []) => {
      const c = needConnection(tabId, key);
      try {
        const answer = callProviderApi(c, method, args);
        // A request's answer comes later: its refusal is this call's too.
        return answer instanceof Promise ? answer.catch((e) => { throw automationErrorOf(e); }) : answer;
      } catch (e) {
        throw automationErrorOf(e);
      }
    },
    callText: async (tabId, key, method, argsText) => {
      const args = readPortText(argsText);
      if (!args.ok || !Array.isArray(args.value)) throw new AutomationError(AutomationCode.BAD_ARGUMENTS, 'callText: the arguments are not a JSON array');
      const c = needConnection(tabId, key);
      // The mirror as the core printed it (the worker's own reading of events is plain JSON.parse,
      // which ports carry): a tree or a node keeps every number the provider sent.
      const [a0, a1, a2] = args.value;
      try {
        if (method === 'tree' && c.consumer) return c.consumer.treeJson(a2 ?? c.primarySub, a0 ?? '/', a1 ?? -1) ?? 'null';
        if (method === 'node' && c.consumer) return c.consumer.nodeText(a1 ?? c.primarySub, a0) ?? 'null';
      } catch (e) {
        throw automationErrorOf(e);
      }
      return textForPort(exactAnswer(method, await callOn(tabId, key, method, args.value)));
    },
    setToken: (origin, token) => setToken(origin, token).catch((e) => {
      throw new AutomationError(AutomationCode.BAD_ARGUMENTS, String(e?.message ?? e));
    }),
    approve: (approvalKey) => {
      const c = allConnections().find((x) => x.approvalKey === approvalKey);
      return approve(approvalKey, { page: c?.approvalPage ?? null, target: c?.approvalTarget ?? null }).then(() => /** @type {true} */ (true));
    },
    localApps: () => localAppsState(),
  };
  return {
    ...calls,
    version: AUTOMATION_VERSION,
    bridge: {
      status: () => bridge.status(),
      setApprovalTimeout: (ms) => { bridge.approvals.timeoutMs = ms; },
    },
    async run(method, args) {
      try {
        if (typeof method !== 'string' || !Object.hasOwn(calls, method)) {
          throw new AutomationError(AutomationCode.UNKNOWN_METHOD, `unknown automation method "${String(method).slice(0, 60)}"`);
        }
        if (args !== undefined && !Array.isArray(args)) throw new AutomationError(AutomationCode.BAD_ARGUMENTS, `${method}: the arguments must be an array`);
        /** @type {(...a: any[]) => any} */
        const fn = calls[method];
        return { ok: true, value: await fn(...(args ?? [])) };
      } catch (e) {
        const err = automationErrorOf(e);
        return { ok: false, code: err.code, message: err.message };
      }
    },
  };
}

/** Installs the API as the worker's AUTOMATION_GLOBAL (sw.js, once, at start). @param {AutomationApi} api */
export function installAutomation(api) {
  /** @type {any} */ (globalThis)[AUTOMATION_GLOBAL] = api;
}
