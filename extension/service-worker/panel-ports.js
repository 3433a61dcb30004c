// panel-ports.js: the UI ports (DevTools panel "slop-panel", popup "slop-popup", options
// "slop-options"): their lifecycle, the outbox every push and reply goes through, the tab's
// provider list, and the dispatch of requests to the tables that answer them.
//
// Each port says which tab it shows (Request.HELLO) and gets that tab's provider list on every
// change. Its requests are answered by the tables sw.js hands to serveRequests, each beside the
// module it serves:
//   tree-watch.js        WATCH, UNWATCH, GET_NODES, and the pushes of a watched provider
//   provider-requests.js invoke, query, subscriptions, agent view, conformance, approvals, Connect to…
//   imports.js           INSPECT_TREE, CLOSE_IMPORT
//   history-requests.js  HISTORY…, OPEN_RECORDING, CLOSE_RECORDING, and the pushes of new steps
//   string-requests.js   SEND_TO_STRING, STRING_FIND_AGENTS, STRING_USE_AGENT
//   agent-requests.js    AGENT_RUN, AGENT_REPLAY, AGENT_STOP, AGENT_CONFIRM, AGENT_MODELS (the playground)
//   sw.js                BRIDGE_DECIDE, BRIDGE_RETRY (the desktop bridge lives there)
// A request is answered with exactly one reply, a failure with one of ErrorCode. See
// shared/messages.js.

import { Request, Push, PROTOCOL_VERSION, LIMITS, ErrorCode, errorCodeOf, catalogued, pageMayAsk } from '../shared/messages.js';
import { uiPageOf } from '../shared/browser.js';
import { requestArgsProblem } from '../shared/request-args.js';
import { CoreEventName } from '../../js-glue/core-contract.js';
import { withCore } from './core.js';
import { tabs, connectionOf, manualConnections, localConnections, MANUAL_TAB, reconnectTab } from './tabs.js';

/**
 * @typedef {object} UiPort
 * @property {import('../shared/browser.js').Port} port
 * @property {string} page       which UI page it comes from (UiPage): what it may ask (PAGE_REQUESTS)
 * @property {number|null} tabId
 * @property {import('../shared/messages.js').PushMessage[]} outbox   pushes not posted yet (see post)
 * @property {boolean} flushDue   a flush is scheduled (a timer, or a microtask)
 * @property {ReturnType<typeof setTimeout>|null} flushTimer
 * @property {number} lastFlush   performance.now() of the last post
 * @property {boolean} [counts]   follows node counts (HELLO {counts: true}, the popup): its provider
 *   list comes again while patches change a mirror, not only on status changes
 * What a request table keeps per port (watches, imports, recordings...) is its own (perPort).
 */

/** @typedef {import('../shared/request-args.js').RequestType} RequestType */
/**
 * A request's handler: its message has the members request-args.js declares for its type, already
 * checked (RequestArgs). Returns the reply's result, or a promise of it; throws to fail
 * (RequestError, or a core refusal).
 * @template {RequestType} T
 * @typedef {(ui: UiPort, m: import('../shared/request-args.js').RequestArgs<T>) => any} RequestHandler
 */
/**
 * @typedef {object} RequestTable
 * @property {{[T in RequestType]?: RequestHandler<T>}} requests   Request type → its handler
 * @property {(ui: UiPort) => void} [release]   drops what the port holds here: on HELLO (the
 *   port shows another tab) and when it closes
 */

/** @type {Set<UiPort>} */
const uiPorts = new Set();

/** Every open UI port (local-apps.js pushes its state to those that asked). @returns {UiPort[]} */
export function allUiPorts() {
  return [...uiPorts];
}

/** @type {Record<string, RequestHandler<any>|undefined>} */
const handlers = Object.create(null);
/** @type {((ui: UiPort) => void)[]} */
const releases = [];

/**
 * The request tables the worker answers (sw.js, once, at start). A type must be one of Request
 * and served by one table only.
 * @param {...RequestTable} tables
 */
export function serveRequests(...tables) {
  /** @type {Set<string>} */
  const known = new Set(Object.values(Request));
  for (const table of tables) {
    for (const [type, handler] of Object.entries(table.requests)) {
      if (!known.has(type) || type === Request.HELLO || type === Request.PING) throw new Error(`panel-ports: ${type} is not a request of the catalogue`);
      if (handlers[type]) throw new Error(`panel-ports: ${type} is served twice`);
      handlers[type] = handler;
    }
    if (table.release) releases.push(table.release);
  }
}

/**
 * Per-port state of a request table: `of(ui)` makes it on first use; it goes with the port.
 * @template T
 * @param {() => T} make
 * @returns {(ui: UiPort) => T}
 */
export function perPort(make) {
  const states = new WeakMap();
  return (ui) => {
    let s = states.get(ui);
    if (!s) states.set(ui, s = make());
    return s;
  };
}

/** A UI page opened a port ("slop-panel", "slop-popup", "slop-options"). @param {import('../shared/browser.js').Port} port */
export function acceptUiPort(port) {
  const page = uiPageOf(port.sender);
  if (page === null) {
    port.disconnect();
    return;
  }
  /** @type {UiPort} */
  const ui = { port, page, tabId: null, outbox: [], flushDue: false, flushTimer: null, lastFlush: -Infinity };
  uiPorts.add(ui);
  port.onMessage.addListener((msg) => withCore(() => onUiMessage(ui, msg)).catch((e) => {
    console.error('SLOP Inspector: UI message failed:', e?.message ?? e);
  }));
  port.onDisconnect.addListener(() => {
    uiPorts.delete(ui);
    clearTimeout(ui.flushTimer ?? undefined);
    ui.outbox = [];
    releasePort(ui);
  });
}

/** What the port holds in every table: its subscriptions, imports, recordings, watches. @param {UiPort} ui */
function releasePort(ui) {
  for (const release of releases) release(ui);
}

/**
 * The open ports that show the providers of `tabId`: the ports on that tab, or every port for a
 * provider added by address (MANUAL_TAB, shown on every tab).
 * @param {number} tabId
 * @returns {UiPort[]}
 */
export function portsShowing(tabId) {
  return [...uiPorts].filter((u) => u.tabId === tabId || tabId === MANUAL_TAB);
}

// Pushes are coalesced per port: every runtime message costs a trip through the browser
// process and a task in the panel, so a burst of provider frames (thousands a second) goes out
// as one Push.BATCH at most every OUTBOX_DELAY_MS instead of one message per frame. A push after
// a quiet spell goes at the end of the current task, so a lone patch is not delayed. Replies go
// through the same outbox and flush it, so a UI sees pushes and replies in the order they were
// made (a GET_NODES reply is never overtaken by an older delta). Consecutive log pushes merge.
const OUTBOX_DELAY_MS = 4;
const OUTBOX_MAX = 256;

/**
 * Queues a push (one of Push) for one port; it is posted within OUTBOX_DELAY_MS.
 * @param {UiPort} ui @param {import('../shared/messages.js').PushMessage} msg
 */
export function post(ui, msg) {
  if (!catalogued(msg, Push)) return;
  const last = ui.outbox[ui.outbox.length - 1];
  if (msg.type === Push.LOG && !msg.replace && last?.type === Push.LOG && last.key === msg.key) {
    for (const e of msg.entries) last.entries.push(e);
  } else {
    ui.outbox.push(msg);
  }
  if (msg.type === Push.REPLY || ui.outbox.length >= OUTBOX_MAX) {
    flush(ui);
  } else if (!ui.flushDue) {
    ui.flushDue = true;
    const wait = ui.lastFlush + OUTBOX_DELAY_MS - performance.now();
    if (wait > 0) ui.flushTimer = setTimeout(() => flush(ui), wait);
    else queueMicrotask(() => flush(ui));
  }
}

/** @param {UiPort} ui */
function flush(ui) {
  clearTimeout(ui.flushTimer ?? undefined);
  ui.flushTimer = null;
  ui.flushDue = false;
  const pushes = ui.outbox;
  if (pushes.length === 0) return;
  ui.outbox = [];
  ui.lastFlush = performance.now();
  const msg = pushes.length === 1 ? pushes[0] : { type: Push.BATCH, pushes };
  if (!catalogued(msg, Push)) return;
  try {
    ui.port.postMessage(msg);
  } catch {
    uiPorts.delete(ui);
  }
}

// ------------------------------------------------------------------------ provider lists

/** @param {number} tabId @returns {import('../shared/messages.js').ProvidersPush} */
function providersPush(tabId) {
  const tab = tabs.get(tabId);
  return {
    type: Push.PROVIDERS,
    tabId,
    pageUrl: tab?.pageUrl ?? null,
    // The page's providers, then those added by address (shown on every tab; once, when the
    // page announces the same address: requests reach the page's connection first), then the
    // local apps being inspected (every tab too).
    providers: [...(tab ? tab.connections.values() : []),
      ...[...manualConnections.values()].filter((c) => !tab?.connections.has(c.key)), ...localConnections.values()].map((c) => c.info()),
    problems: tab?.problems ?? [],
  };
}

// Provider lists are coalesced per tab: one push per task, however many changes happened.
/** @type {Set<number>} */
const dirtyTabs = new Set();

/** A tab's provider list changed (tabEvents.change, wired in sw.js): its ports get it again. @param {number} tabId */
export function providersChanged(tabId) {
  if (dirtyTabs.size === 0) setTimeout(flushProviders, 0);
  if (tabId !== MANUAL_TAB) dirtyTabs.add(tabId);
  else for (const u of uiPorts) if (u.tabId !== null) dirtyTabs.add(u.tabId);
}
function flushProviders() {
  const ids = [...dirtyTabs];
  dirtyTabs.clear();
  for (const tabId of ids) {
    const targets = [...uiPorts].filter((u) => u.tabId === tabId);
    if (targets.length === 0) continue;
    const msg = providersPush(tabId);
    for (const ui of targets) post(ui, msg);
  }
}

// A patch changes a mirror's node count without changing the provider's status, so the list is
// not pushed for it (a panel has the tree itself). A port that follows counts (the popup) gets its
// list again after patches, at most every COUNTS_EVERY_MS while they stream in.
const COUNTS_EVERY_MS = 250;
/** @type {Set<UiPort>} */
const countsDue = new Set();
/** @type {ReturnType<typeof setTimeout>|null} */
let countsTimer = null;

/**
 * A core event of a connection (connectionEvents.coreEvent, wired in sw.js): after a patch the
 * ports that follow counts on its tab are due their list again.
 * @param {import('./connections.js').Connection} conn @param {{event: string}} ev
 */
export function mirrorPatched(conn, ev) {
  if (ev.event !== CoreEventName.PATCH) return;
  for (const u of uiPorts) if (u.counts && u.tabId !== null && (u.tabId === conn.tabId || conn.tabId === MANUAL_TAB)) countsDue.add(u);
  if (countsDue.size && !countsTimer) countsTimer = setTimeout(flushCounts, COUNTS_EVERY_MS);
}
function flushCounts() {
  countsTimer = null;
  const due = [...countsDue];
  countsDue.clear();
  for (const ui of due) if (uiPorts.has(ui) && ui.tabId !== null) post(ui, providersPush(ui.tabId));
}

// ------------------------------------------------------------------------------ requests

/** @param {UiPort} ui @param {any} msg what the UI posted (checked here) */
async function onUiMessage(ui, msg) {
  if (!msg || typeof msg.type !== 'string') return;
  if (msg.type === Request.HELLO) {
    if (msg.v !== PROTOCOL_VERSION) console.warn('SLOP Inspector: UI speaks version', msg.v);
    releasePort(ui);
    ui.tabId = Number.isInteger(msg.tabId) ? msg.tabId : null;
    ui.counts = msg.counts === true;
    if (ui.tabId !== null) post(ui, providersPush(ui.tabId));
    // A panel or the popup opened on this tab: whoever waits out a back-off dials now.
    if (ui.tabId !== null) reconnectTab(ui.tabId);
    return;
  }
  if (msg.type === Request.PING) return;
  const handler = handlers[msg.type] ?? null;
  const id = msg.id;
  if (!Number.isInteger(id)) return;
  if (handler && !pageMayAsk(ui.page, msg.type)) {
    post(ui, { type: Push.REPLY, id, ok: false, error: { code: ErrorCode.NOT_ALLOWED, message: `the ${ui.page} page may not ask for ${msg.type}` } });
    return;
  }
  if (!handler) {
    post(ui, { type: Push.REPLY, id, ok: false, error: { code: ErrorCode.BAD_REQUEST, message: `unknown request ${String(msg.type).slice(0, 40)}` } });
    return;
  }
  // Every request's members against the one table of them, before its handler sees it.
  const problem = requestArgsProblem(msg.type, msg);
  if (problem) {
    post(ui, { type: Push.REPLY, id, ok: false, error: { code: ErrorCode.BAD_REQUEST, message: problem } });
    return;
  }
  try {
    const result = await handler(ui, msg);
    post(ui, { type: Push.REPLY, id, ok: true, result });
  } catch (e) {
    // A RequestError or ImportError carries its ErrorCode; a SlopError (a core refusal) its
    // codeName, which errorCodeOf maps. Messages come from the core or from the tables.
    post(ui, { type: Push.REPLY, id, ok: false, error: { code: errorCodeOf(e), message: String(/** @type {any} a thrown value */ (e).message ?? e) } });
  }
}

// ------------------------------------------------------- what the request tables share

/** A refusal of a request table's own: `code` is one of ErrorCode. */
export class RequestError extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/**
 * The connection to the provider `key` this port's tab shows (its page's, or one added by address).
 * @param {UiPort} ui @param {unknown} key @returns {import('./connections.js').Connection}
 */
export function needConnection(ui, key) {
  const conn = typeof key === 'string' && ui.tabId !== null ? connectionOf(ui.tabId, key) : null;
  if (!conn) throw new RequestError(ErrorCode.NOT_FOUND, 'No such provider on this tab');
  return conn;
}

/**
 * The subscription a request names, or the connection's first.
 * @param {{primarySub: string|null, consumer: object|null}} conn  a Connection or an ImportedTree
 * @param {unknown} sub @returns {string}
 */
export function needSub(conn, sub) {
  const s = sub ?? conn.primarySub;
  if (typeof s !== 'string' || !conn.consumer) throw new RequestError(ErrorCode.BAD_STATE, 'Not subscribed yet');
  return s;
}

/**
 * The core's status of one subscription (SubscriptionInfo), or null.
 * @param {import('../../js-glue/slop-core.js').SlopConsumerT} consumer @param {string} sub
 * @returns {import('../shared/messages.js').SubscriptionInfo|null}
 */
export function subscriptionInfo(consumer, sub) {
  const st = /** @type {import('../shared/messages.js').ConsumerStatus} */ (consumer.status());
  return st.subscriptions?.find((s) => s.sub === sub) ?? null;
}

/** How many node views a request wants at first (WATCH, INSPECT_TREE `budget`). @param {{budget?: any}} m @returns {number} */
export function viewBudget(m) {
  return Number.isInteger(m.budget) && m.budget > 0 ? Math.min(m.budget, 20000) : LIMITS.RESET_BUDGET;
}
