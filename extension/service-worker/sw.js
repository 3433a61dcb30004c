// sw.js: the service worker entry (Chrome) / module background page (Firefox).
//
// It only wires things up: every listener is registered synchronously at the top level, so that
// an event that wakes a stopped worker finds its listener; the handlers wait for the wasm core
// inside (core.js). The managers hold the state:
//   tabs.js          content script ports, discovery, connections per tab
//   connections.js   one core consumer + transport per (tab, provider)
//   panel-ports.js   DevTools panel and popup ports: provider lists, tree deltas, requests
//   node-views.js    node views for the UI from the core's mirror
// Only settings (tokens, approvals) are persisted; after a restart the content scripts and the
// panels reconnect and everything is rebuilt from their announcements.

import { PORTS } from '../shared/messages.js';
import { onConnect, onStorageChanged, onTabRemoved } from '../shared/browser.js';
import { coreReady, withCore } from './core.js';
import { acceptContentPort, dropTab, tickAll, settingsChanged, tabs, connectionOf, allConnections } from './tabs.js';
import { acceptUiPort } from './panel-ports.js';

onConnect((port) => {
  if (port.name === PORTS.CONTENT) acceptContentPort(port);
  else if (port.name === PORTS.PANEL || port.name === PORTS.POPUP) acceptUiPort(port);
  else port.disconnect();
});

onStorageChanged((changes, area) => {
  if (area === 'local' || area === 'session') withCore(() => settingsChanged(changes)).catch(() => {});
});

onTabRemoved((tabId) => dropTab(tabId));

// Request timeouts: the core never reads a clock; it is told the time once a second.
setInterval(() => {
  if (tabs.size > 0) tickAll(Date.now());
}, 1000);

coreReady.catch(() => { /* reported in core.js; every handler reports it again */ });

// Debugging handle for the developer console of this worker and for the end-to-end tests
// (Playwright's worker.evaluate). Pages cannot reach a service worker's globals. It returns
// mirror data and statuses only; no token is reachable from here.
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
};
