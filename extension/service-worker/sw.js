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
//   automation.js    the automation API the Playwright library and the tests use (globalThis.slopInspector)
// What outlives the worker: the settings (settings-store.js: tokens, approvals, the history's
// bound… in storage.local; denials and the bridge's trust in storage.session) and the histories
// with Persist on (storage.session, read back by timelines.js). After a restart the content
// scripts and the panels reconnect and everything else is rebuilt from their announcements.

import { PORTS, Request, ErrorCode } from '../shared/messages.js';
import { onConnect, onStorageChanged, onTabRemoved, onPermissionsChanged } from '../shared/browser.js';
import { coreReady, withCore, core } from './core.js';
import {
  acceptContentPort, dropTab, tickAll, settingsChanged, tabs, tabEvents, allConnections, reconcileManual, updateBadge,
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
import { localAppsRequests, configureLocalApps, localApprovalsChanged } from './local-apps.js';
import { createAutomationApi, installAutomation } from './automation.js';
import { KEYS, bridgeSettings, publishBridgeStatus, bridgeTrust, clearBridgeTrust } from '../shared/settings-store.js';

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

// The automation API (automation.js): the Playwright library, the end-to-end tests and this
// worker's developer console reach it through worker.evaluate, as globalThis.slopInspector.
installAutomation(createAutomationApi({ bridge }));
