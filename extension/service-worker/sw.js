// sw.js: the service worker entry (Chrome) / module background page (Firefox).
//
// It only wires things up: every listener is registered synchronously at the top level, so that
// an event that wakes a stopped worker finds its listener; the handlers wait for the wasm core
// inside (core.js). The managers hold the state:
//   tabs.js          content script ports, discovery, connections per tab
//   connections.js   one core consumer + transport per (tab, provider)
//   panel-ports.js   the UI ports (panel, popup, options): outbox, provider lists, requests
//   tree-watch.js    a watched provider's trees, events and log, pushed to the ports watching
//   node-views.js    node views for the UI from the core's mirror
//   timelines.js     the History of each (tab, provider) (timeline.js)
//   desktop-bridge.js  the desktop bridge: announcements, the relay, approvals
//   local-apps.js    local apps through the native messaging host
// What outlives the worker: the settings (settings-store.js: tokens, approvals, the history's
// bound… in storage.local; denials and the bridge's trust in storage.session) and the histories
// with Persist on (storage.session, read back by timelines.js). After a restart the content
// scripts and the panels reconnect and everything else is rebuilt from their announcements.

import { PORTS, Request, ErrorCode } from '../shared/messages.js';
import { onConnect, onStorageChanged, onTabRemoved, onPermissionsChanged } from '../shared/browser.js';
import { coreReady, withCore, core } from './core.js';
import {
  acceptContentPort, dropTab, tickAll, settingsChanged, tabs, tabEvents, connectionOf, allConnections, reconcileManual, updateBadge,
  connectionChanged,
} from './tabs.js';
import { acceptUiPort, serveRequests, providersChanged, mirrorPatched, RequestError } from './panel-ports.js';
import { connectionEvents } from './connections.js';
import { DesktopBridge } from './desktop-bridge.js';
import { dropTimelinesOf, pruneTimelines, recordInput, recordCoreEvent, recordInvoke, timelineEvents } from './timelines.js';
import { watchRequests, pushCoreEvent, pushFrame } from './tree-watch.js';
import { providerRequests } from './provider-requests.js';
import { importRequests } from './imports.js';
import { historyRequests, pushSteps } from './history-requests.js';
import { stringRequests } from './string-requests.js';
import { agentRequests } from './agent-requests.js';
import { localAppsRequests, configureLocalApps, localApprovalsChanged, localAppsState } from './local-apps.js';
import { callProviderApi } from '../../js-glue/provider-api.js';
import { readPortText, textForPort, exactEvent, parseExact } from '../../js-glue/exact-json.js';
import { setToken, approve, KEYS, bridgeSettings, publishBridgeStatus, bridgeTrust, clearBridgeTrust } from '../shared/settings-store.js';

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

onConnect((port) => {
  if (port.name === PORTS.CONTENT) acceptContentPort(port);
  else if (port.name === PORTS.PANEL || port.name === PORTS.POPUP || port.name === PORTS.OPTIONS) acceptUiPort(port);
  else port.disconnect();
});

// The desktop bridge (off until the user turns it on in Options).
const bridge = new DesktopBridge({
  core,
  connections: () => [...tabs.values()].flatMap((t) => [...t.connections.values()]),
  publish: (status) => {
    publishBridgeStatus(status).catch(() => {});
    for (const tabId of tabs.keys()) updateBadge(tabId);
  },
});

// ------------------------------------------------------- who hears what, in the order called
//
// connections.js tells the way of one provider frame from the socket to the worker's fan-out
// (connectionEvents); these are its listeners. Every push to a UI goes through the outbox of
// panel-ports.js.
//   input      the frame as it came: its history keeps it (timelines.js)
//   coreEvent  what the core made of it: a history step (timelines.js; the new steps go to the
//              ports that follow that history, history-requests.js), then the tree reset, delta
//              or event to the ports watching the provider (tree-watch.js)
//   frame      the frame log, to the ports watching with the log on (tree-watch.js)
//   invoked    an invoke sent: a history step (timelines.js)
//   change     its status or mirror state changed: the tab's badge and tabEvents.change (tabs.js),
//              the desktop bridge's announcements
connectionEvents.input.add(recordInput);
connectionEvents.coreEvent.add(recordCoreEvent);
connectionEvents.coreEvent.add(pushCoreEvent);
connectionEvents.coreEvent.add(mirrorPatched);
connectionEvents.frame.add(pushFrame);
connectionEvents.invoked.add(recordInvoke);
connectionEvents.change.add(connectionChanged);
connectionEvents.change.add(() => bridge.sync());
timelineEvents.steps.add(pushSteps);
// A tab's provider list changed: its ports get the list again, the histories of providers gone
// are pruned, the bridge announces what changed.
tabEvents.change.add(providersChanged);
tabEvents.change.add(() => pruneTimelines());
tabEvents.change.add(() => bridge.sync());
// The bridge relays what a page's postMessage provider says, and its waiting approvals mark the badge.
tabEvents.pageFrame.add((conn, text) => bridge.pageFrame(conn, text));
tabEvents.attention.add((tabId) => bridge.waitingFor(tabId));

// The UI's requests: each table lives beside the module it serves (panel-ports.js lists them).
// The bridge's two are here, with the bridge.
/** @type {import('./panel-ports.js').RequestTable} */
const bridgeRequests = {
  requests: {
    [Request.BRIDGE_DECIDE](ui, m) {
      if (typeof m.approval !== 'string' || typeof m.allow !== 'boolean') throw new RequestError(ErrorCode.BAD_REQUEST, 'approval must be a string and allow a boolean');
      if (!bridge.decide(m.approval, m.allow)) throw new RequestError(ErrorCode.NOT_FOUND, 'That invoke is no longer waiting (it timed out or the desktop went away)');
      return {};
    },
    [Request.BRIDGE_RETRY]() {
      bridge.retry();
      return {};
    },
  },
};
serveRequests(providerRequests, watchRequests, importRequests, historyRequests, stringRequests, agentRequests, bridgeRequests, localAppsRequests);

const BRIDGE_KEYS = [KEYS.BRIDGE_ENABLED, KEYS.BRIDGE_URL, KEYS.BRIDGE_TOKEN, KEYS.BRIDGE_ALLOW_UNPAIRED];
const configureBridge = () => withCore(async () => bridge.configure(await bridgeSettings()))
  .catch((e) => console.error('SLOP Inspector: bridge:', e?.message ?? e));
configureBridge();
// "Invoke without asking" lives in storage.session (the popup and options write it): it survives
// a worker restart and ends with the browser.
bridgeTrust().then((t) => bridge.setTrust(Object.keys(t))).catch(() => {});

onStorageChanged((changes, area) => {
  if (area === 'local' || area === 'session') withCore(() => settingsChanged(changes)).catch(() => {});
  if (area === 'local' && BRIDGE_KEYS.some((k) => k in changes)) configureBridge();
  if (area === 'session' && KEYS.BRIDGE_TRUST in changes) bridge.setTrust(Object.keys(changes[KEYS.BRIDGE_TRUST].newValue ?? {}));
  if (area === 'local' && changes[KEYS.BRIDGE_ENABLED]?.newValue === false) clearBridgeTrust().catch(() => {});
});

// Local apps: on when Options says so and the browser granted nativeMessaging (the user may
// revoke it in the browser's own UI).
const configureLocal = () => configureLocalApps().catch((e) => console.error('SLOP Inspector: local apps:', e?.message ?? e));
configureLocal();
onPermissionsChanged(configureLocal);
onStorageChanged((changes, area) => {
  if (area !== 'local') return;
  if (KEYS.LOCAL_APPS in changes) configureLocal();
  if (KEYS.LOCAL_APPROVALS in changes) localApprovalsChanged();
});

onTabRemoved((tabId) => {
  dropTab(tabId);
  dropTimelinesOf(tabId);
});

// Request timeouts: the core never reads a clock; it is told the time once a second.
setInterval(() => {
  if (allConnections().length > 0) tickAll(Date.now());
}, 1000);

coreReady.catch(() => { /* reported in core.js; every handler reports it again */ });
// Providers added by address ("Connect to…") come back after a restart of the worker.
withCore(() => reconcileManual()).catch((e) => console.error('SLOP Inspector:', e?.message ?? e));

// Debugging handle for the developer console of this worker, for the end-to-end tests and for
// the Playwright library (js-glue/node/playwright.js), all through worker.evaluate. Pages cannot
// reach a service worker's globals. It returns mirror data and statuses only: a token can be
// stored from here, never read.
globalThis.slopInspector = {
  ready: () => coreReady.then(() => true),
  /** [{tabId, pageUrl, providers: ProviderInfo[]}] */
  tabs: () => [...tabs.values()].map((t) => ({
    tabId: t.tabId, pageUrl: t.pageUrl, problems: t.problems,
    providers: [...t.connections.values()].map((c) => c.info()),
  })),
  /** ProviderInfo of one connection, or null. */
  info: (tabId, key) => connectionOf(tabId, key)?.info() ?? null,
  /** The mirror of a subscription (default: the first) as SLOP node JSON, or null. */
  mirror: (tabId, key, sub) => {
    const c = connectionOf(tabId, key);
    if (!c?.consumer) return null;
    const s = sub ?? c.primarySub;
    const st = c.consumer.status().subscriptions?.find((x) => x.sub === s);
    return st ? c.consumer.tree(s, st.path, -1) : null;
  },
  /** Node views of the given paths (what the panel is sent), for comparing with the panel. */
  nodeViews: (tabId, key, sub, paths) => {
    const c = connectionOf(tabId, key);
    return c?.consumer ? paths.map((p) => c.consumer.node(sub ?? c.primarySub, p)) : null;
  },
  /** The frame log of one connection. */
  log: (tabId, key) => connectionOf(tabId, key)?.log.slice() ?? [],
  connectionCount: () => allConnections().length,
  /** providerApi[method](connection, ...args) (js-glue/provider-api.js) for one (tab, provider). */
  call: (tabId, key, method, args = []) => {
    const c = connectionOf(tabId, key);
    if (!c) throw new Error(`no provider ${key} in tab ${tabId}`);
    return callProviderApi(c, method, args);
  },
  /**
   * call() with its arguments and answer as JSON text, so that numbers cross to the Playwright
   * library as the provider wrote them (worker.evaluate would carry them as doubles).
   */
  callText: async (tabId, key, method, argsText) => {
    const args = readPortText(argsText);
    if (!args.ok || !Array.isArray(args.value)) throw new Error('callText: the arguments are not a JSON array');
    const c = connectionOf(tabId, key);
    if (!c) throw new Error(`no provider ${key} in tab ${tabId}`);
    // The mirror as the core printed it (the worker's own reading of events is plain JSON.parse,
    // which ports carry): a tree or a node keeps every number the provider sent.
    const [a0, a1, a2] = args.value;
    if (method === 'tree' && c.consumer) return c.consumer.treeJson(a2 ?? c.primarySub, a0 ?? '/', a1 ?? -1) ?? 'null';
    if (method === 'node' && c.consumer) return c.consumer.nodeText(a1 ?? c.primarySub, a0) ?? 'null';
    return textForPort(exactAnswer(method, await callProviderApi(c, method, args.value)));
  },
  /** Stores a token as the options page does; returns the provider origin it is kept under. */
  setToken: (origin, token) => setToken(origin, token),
  /** The desktop bridge: its status, and a shorter approval wait for tests. */
  bridge: {
    status: () => bridge.status(),
    setApprovalTimeout: (ms) => { bridge.approvals.timeoutMs = ms; },
  },
  /** Local apps as a UI is told of them (LocalAppsState). */
  localApps: () => localAppsState(),
  /** Approves a cross-origin (page, target) pair as the popup does. */
  approve: (approvalKey) => {
    const c = allConnections().find((x) => x.approvalKey === approvalKey);
    return approve(approvalKey, { page: c?.approvalPage ?? null, target: c?.approvalTarget ?? null }).then(() => true);
  },
};
