// tabs.js: per tab, the content script's port, what it discovered, and the tab's connections.
//
// The content script reports raw <meta name="slop"> contents and, when asked, the raw
// /.well-known/slop response; the core decides what they mean (parseMeta, parseDescriptor,
// classifyTarget). Connections are reconciled with the discoveries after every report, so a tag
// added, changed or removed at run time opens, replaces or closes a connection.
//
// Nothing here is persisted: after the service worker restarts, the content scripts reconnect
// and re-announce, and the connections come back.

import { FromContent, ToContent, PROTOCOL_VERSION, Status, catalogued } from '../shared/messages.js';
import { isOwnContentScript, setBadge } from '../shared/browser.js';
import { KEYS, providerOriginOf, tokenFor, isApproved, isDenied, listManualProviders } from '../shared/settings-store.js';
import { withCore, core } from './core.js';
import { Connection } from './connections.js';

/** What a Connection takes from the worker (connections.js imports no extension API). */
export const workerHost = Object.freeze({ core, tokenFor, isApproved, isDenied });

/**
 * @typedef {object} TabState
 * @property {number} tabId
 * @property {import('../shared/browser.js').Port} port
 * @property {string|null} pageUrl
 * @property {string[]} metas
 * @property {{url: string, state: 'asked'|'done', transport?: import('../../js-glue/session-host.js').SessionTransport, error?: string}|null} wellKnown
 * @property {{content: string, error: string}[]} problems
 * @property {Map<string, Connection>} connections
 */

/** @type {Map<number, TabState>} */
export const tabs = new Map();

/**
 * Listeners (sw.js adds them): `change` fn(tabId), this tab's provider list changed (the panels'
 * provider lists, the histories kept, the desktop bridge); `pageFrame` fn(conn, text), a provider
 * frame from a page's postMessage channel (the desktop bridge's relay); `attention` fn(tabId) →
 * bool, something waits for the user in this tab (its badge says "?").
 */
export const tabEvents = {
  /** @type {Set<(tabId: number) => void>} */ change: new Set(),
  /** @type {Set<(conn: Connection, text: string) => void>} */ pageFrame: new Set(),
  /** @type {Set<(tabId: number) => boolean>} */ attention: new Set(),
};
/** @param {number} tabId */
function tabChanged(tabId) {
  updateBadge(tabId);
  for (const fn of tabEvents.change) fn(tabId);
}

/** A connection's status or mirror state changed (connectionEvents.change): its tab's badge and list. @param {Connection} conn */
export function connectionChanged(conn) {
  tabChanged(conn.tabId);
}

/** The providers shown on every tab changed (a local app opened or closed). */
export function sharedProvidersChanged() {
  tabChanged(MANUAL_TAB);
}

/** The pseudo tab of providers added by address ("Connect to…"): every tab's UI sees them. */
export const MANUAL_TAB = -1;
/** @type {Map<string, Connection>} ws URL → connection */
export const manualConnections = new Map();
/**
 * Local apps being inspected (local-apps.js): "local:<id>" → connection. Like the providers added
 * by address they belong to MANUAL_TAB: every tab's UI sees them, and their History is found there.
 * @type {Map<string, Connection>}
 */
export const localConnections = new Map();

/** @param {number} tabId @param {string} key @returns {Connection|null} */
export function connectionOf(tabId, key) {
  return tabs.get(tabId)?.connections.get(key) ?? manualConnections.get(key) ?? localConnections.get(key) ?? null;
}

/** @returns {Connection[]} */
export function allConnections() {
  return [...[...tabs.values()].flatMap((t) => [...t.connections.values()]), ...manualConnections.values(), ...localConnections.values()];
}

/**
 * The providers added by address, as stored (options: manualProviders): one connection each,
 * started at once (the user named it: no approval), disposed when removed.
 */
export async function reconcileManual() {
  const urls = new Set(await listManualProviders());
  for (const [url, conn] of manualConnections) {
    if (urls.has(url)) continue;
    conn.dispose();
    manualConnections.delete(url);
  }
  for (const url of urls) {
    if (manualConnections.has(url)) continue;
    const conn = new Connection({
      tabId: MANUAL_TAB, key: url, transport: { type: 'ws', url }, source: 'manual', pageUrl: null,
      target: { classification: 'same-origin', page_origin: null, target: url, approval_key: null }, host: workerHost,
    });
    manualConnections.set(url, conn);
    conn.start().catch((e) => console.error('SLOP Inspector: connect failed:', e?.message ?? e));
  }
  tabChanged(MANUAL_TAB);
}

// ------------------------------------------------------------------------ content port

/** Called from the top-level onConnect listener for a "slop-content" port. @param {import('../shared/browser.js').Port} port */
export function acceptContentPort(port) {
  if (!isOwnContentScript(port.sender)) {
    port.disconnect();
    return;
  }
  const tabId = port.sender.tab.id;
  const previous = tabs.get(tabId);
  if (previous) closeTab(previous); // a new page in this tab (or the same page after bfcache)
  /** @type {TabState} */
  const tab = { tabId, port, pageUrl: port.sender.url, metas: [], wellKnown: null, problems: [], connections: new Map() };
  tabs.set(tabId, tab);
  port.onMessage.addListener((msg) => withCore(() => onContentMessage(tab, msg)).catch((e) => {
    console.error('SLOP Inspector: content message failed:', e?.message ?? e);
  }));
  port.onDisconnect.addListener(() => {
    if (tabs.get(tabId) === tab) {
      closeTab(tab);
      tabs.delete(tabId);
      tabChanged(tabId);
    }
  });
}

/** @param {TabState} tab @param {any} msg what the content script posted (checked here) */
function onContentMessage(tab, msg) {
  if (tabs.get(tab.tabId) !== tab || !msg || typeof msg.type !== 'string') return;
  switch (msg.type) {
    case FromContent.HELLO:
      if (msg.v !== PROTOCOL_VERSION) console.warn('SLOP Inspector: content script speaks version', msg.v);
      if (typeof msg.url === 'string') tab.pageUrl = msg.url;
      break;
    case FromContent.DISCOVERY:
      if (!Array.isArray(msg.metas)) return;
      if (typeof msg.url === 'string') tab.pageUrl = msg.url;
      tab.metas = msg.metas.filter((/** @type {unknown} */ m) => typeof m === 'string').slice(0, 32);
      reconcile(tab);
      break;
    case FromContent.WELL_KNOWN:
      onWellKnown(tab, msg);
      break;
    case FromContent.FRAME: {
      // Second hop of the relay: only from this tab's own content script (checked on connect),
      // and only while a postMessage connection is open for it.
      const conn = tab.connections.get('postmessage');
      if (conn && conn.wire && typeof msg.text === 'string') {
        conn.receive(msg.text);
        for (const fn of tabEvents.pageFrame) fn(conn, msg.text);
      }
      break;
    }
    case FromContent.PING:
      break;
    default:
      break;
  }
}

/** @param {TabState} tab @param {{status?: number, body?: string}} msg */
function onWellKnown(tab, msg) {
  if (!tab.wellKnown || tab.wellKnown.state !== 'asked') return;
  tab.wellKnown.state = 'done';
  if (msg.status === 200 && typeof msg.body === 'string') {
    const r = core().parseDescriptor(msg.body);
    if (r.ok) tab.wellKnown.transport = r.descriptor.transport;
    else tab.wellKnown.error = r.error;
  }
  // 404 and network errors: this site has no SLOP provider, which is not a problem to show.
  reconcile(tab);
}

// --------------------------------------------------------------------------- reconcile

/** @param {{type: string, url?: string}} transport */
function keyOf(transport) {
  return transport.type === 'postmessage' ? 'postmessage' : transport.url;
}

/** @param {TabState} tab */
function reconcile(tab) {
  const c = core();
  const targets = new Map();
  const problems = [];
  const pageUrl = tab.pageUrl ?? '';
  for (const content of tab.metas) {
    const r = c.parseMeta(content, pageUrl);
    if (r.ok) {
      const key = keyOf(r.transport);
      if (!targets.has(key)) targets.set(key, { transport: r.transport, source: 'meta' });
    } else {
      problems.push({ content: `<meta name="slop" content="${content.slice(0, 200)}">`, error: r.error });
    }
  }
  if (tab.metas.length === 0) {
    // No meta tag: probe /.well-known/slop on the page's origin, once per page URL.
    if (!tab.wellKnown || tab.wellKnown.url !== pageUrl) {
      tab.wellKnown = { url: pageUrl, state: 'asked' };
      postToContent(tab, { type: ToContent.PROBE_WELL_KNOWN });
    } else if (tab.wellKnown.transport) {
      const t = tab.wellKnown.transport;
      if (t.type === 'ws' || t.type === 'postmessage') targets.set(keyOf(t), { transport: t, source: 'well-known' });
    } else if (tab.wellKnown.error) {
      problems.push({ content: '/.well-known/slop', error: tab.wellKnown.error });
    }
  }
  tab.problems = problems;

  for (const [key, conn] of tab.connections) {
    if (!targets.has(key)) {
      conn.dispose();
      tab.connections.delete(key);
    }
  }
  for (const [key, t] of targets) {
    const existing = tab.connections.get(key);
    if (existing) {
      existing.source = t.source; // e.g. found by /.well-known/slop first, then by a meta tag
      existing.reconnectNow().catch(() => {}); // the page changed (a navigation): no back-off wait
      continue;
    }
    const target = c.classifyTarget(pageUrl, t.transport.type === 'postmessage' ? 'postmessage' : t.transport.url);
    const conn = new Connection({
      tabId: tab.tabId, key, transport: t.transport, source: t.source, pageUrl, target,
      page: t.transport.type === 'postmessage' ? pageChannel(tab) : undefined, host: workerHost,
    });
    tab.connections.set(key, conn);
    conn.start().catch((e) => console.error('SLOP Inspector: connect failed:', e?.message ?? e));
  }
  tabChanged(tab.tabId);
}

/** The postMessage channel of a tab: the content script posts to the page and relays back. @param {TabState} tab */
function pageChannel(tab) {
  return {
    open: () => postToContent(tab, { type: ToContent.PM_OPEN }),
    send: (/** @type {object} */ message) => postToContent(tab, { type: ToContent.PM_SEND, message }),
    close: () => postToContent(tab, { type: ToContent.PM_CLOSE }),
  };
}

/** @param {TabState} tab @param {{type: string, [field: string]: any}} msg */
function postToContent(tab, msg) {
  if (!catalogued(msg, ToContent)) return;
  try {
    tab.port.postMessage(msg);
  } catch {
    /* the page is gone; onDisconnect cleans up */
  }
}

/** @param {TabState} tab */
function closeTab(tab) {
  for (const conn of tab.connections.values()) conn.dispose();
  tab.connections.clear();
}

// ------------------------------------------------------------------------------ other

/**
 * The user looks at this tab (a panel or the popup opened or got the focus): its connections,
 * and the ones added by address, that wait out a back-off dial now (Connection.reconnectNow).
 * @param {number} tabId
 */
export function reconnectTab(tabId) {
  const conns = [...(tabs.get(tabId)?.connections.values() ?? []), ...manualConnections.values(), ...localConnections.values()];
  for (const conn of conns) conn.reconnectNow().catch(() => {});
}

/** The tab was closed. @param {number} tabId */
export function dropTab(tabId) {
  const tab = tabs.get(tabId);
  if (!tab) return;
  closeTab(tab);
  tabs.delete(tabId);
  tabChanged(tabId);
}

/** 1 s timer: request timeouts and scheduled retries of given-up subscriptions in every core. @param {number} now */
export function tickAll(now) {
  for (const conn of allConnections()) conn.tick(now);
}

/** Keys whose value differs between two versions of a stored map. @param {{oldValue?: any, newValue?: any}|undefined} change */
function changedKeys(change) {
  const a = change?.oldValue ?? {};
  const b = change?.newValue ?? {};
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return new Set([...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])));
}

/**
 * chrome.storage changed (options page, popup approvals). An approval granted or revoked makes
 * the matching connections check it again (start(): connects, or goes back to pending); a token
 * saved or removed reconnects the WebSocket connections of that origin at once.
 * @param {Record<string, {oldValue?: any, newValue?: any}>} changes  storage.onChanged's
 */
export function settingsChanged(changes) {
  const approvalKeys = new Set([...changedKeys(changes[KEYS.APPROVALS]), ...changedKeys(changes[KEYS.DENIED])]);
  const tokenOrigins = changedKeys(changes[KEYS.TOKEN_INDEX]);
  if (KEYS.MANUAL_PROVIDERS in changes) reconcileManual().catch((e) => console.error('SLOP Inspector:', e?.message ?? e));
  if (approvalKeys.size === 0 && tokenOrigins.size === 0) return;
  for (const conn of allConnections()) {
    if (conn.disposed) continue;
    if (conn.classification !== 'same-origin' && approvalKeys.has(/** @type {string} cross-origin: it has one */ (conn.approvalKey))) {
      conn.retry().catch(() => {});
      continue;
    }
    if (tokenOrigins.size > 0 && !conn.isPostMessage) {
      let origin = null;
      try { origin = providerOriginOf(/** @type {string} */ (conn.transport.url)); } catch { /* not a ws URL */ }
      const waiting = conn.status === Status.PENDING_APPROVAL || conn.status === Status.DENIED;
      if (origin && tokenOrigins.has(origin) && !waiting) conn.retry().catch(() => {});
    }
  }
}

/** Redraws a tab's badge (the desktop bridge, when an approval starts or ends). @param {number} tabId */
export function updateBadge(tabId) {
  if (tabId === MANUAL_TAB) return;
  const tab = tabs.get(tabId);
  const conns = tab ? [...tab.connections.values()] : [];
  const asks = [...tabEvents.attention].some((fn) => fn(tabId));
  if (asks || conns.some((c) => c.status === Status.PENDING_APPROVAL)) setBadge(tabId, '?', '#b26b00');
  else if (conns.some((c) => c.status === Status.AUTH_FAILED || c.status === Status.ERROR)) setBadge(tabId, '!', '#c62828');
  // Connected but not live (waiting, resyncing, stale): the state shown may not be the provider's.
  else if (conns.some((c) => c.status === Status.CONNECTED && !c.live)) setBadge(tabId, '~', '#b26b00');
  else if (conns.length > 0) setBadge(tabId, String(conns.filter((c) => c.live).length || ''), '#2e7d32');
  else setBadge(tabId, '', null);
}
