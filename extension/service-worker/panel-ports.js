// panel-ports.js: the UI ports (DevTools panel "slop-panel", popup "slop-popup").
//
// Each port says which tab it shows (Request.HELLO), gets that tab's provider list on every
// change, and may WATCH providers: then it gets Push.TREE_RESET on every snapshot, TREE_DELTA on
// every patch (views of what it has seen, see node-views.js), the other core events, and
// optionally the frame log. Requests are answered with exactly one reply, a failure with one of
// ErrorCode. See shared/messages.js.

import { Request, Push, PROTOCOL_VERSION, LIMITS, ErrorCode, errorCodeOf, catalogued } from '../shared/messages.js';
import { isOwnExtensionPage } from '../shared/browser.js';
import {
  approve, deny, stringWebhookUrl, stringWebhookInfo, setStringWebhook, parseStringWebhook, noteStringAgent, removeManualProvider,
} from '../shared/settings-store.js';
import { connectTo } from './connect-to.js';
import { stringPayload, sendWithReceipt, findAgents, useAgent } from './string-webhook.js';
import { withCore, core } from './core.js';
import { connectionEvents } from './connections.js';
import { tabs, tabEvents, connectionOf, manualConnections, MANUAL_TAB, reconnectTab } from './tabs.js';
import { breadthFirstViews, KnownPaths, patchDelta, viewsOf } from './node-views.js';
import { ImportedTree } from './imports.js';
import { Timeline } from './timeline.js';
import { timelineOf, timelineEvents, pruneTimelines, setPersist } from './timelines.js';

/**
 * @typedef {object} Watch
 * @property {number} budget
 * @property {boolean} log
 * @property {Map<string, KnownPaths>} known   sub → paths this port has a view of
 */
/**
 * @typedef {object} UiPort
 * @property {chrome.runtime.Port} port
 * @property {number|null} tabId
 * @property {Map<string, Watch>} watches   provider key → watch
 * @property {Map<string, Set<string>>} ownedSubs   provider key → subscriptions this port made
 * @property {Map<string, ImportedTree>} imports   "import:N" → imported document
 * @property {object[]} outbox   pushes not posted yet (see post)
 * @property {boolean} flushDue   a flush is scheduled (a timer, or a microtask)
 * @property {ReturnType<typeof setTimeout>|null} flushTimer
 * @property {number} lastFlush   performance.now() of the last post
 */

/** @type {Set<UiPort>} */
const uiPorts = new Set();

/** Services the worker wires in (sw.js): the desktop bridge (desktop-bridge.js). */
export const services = { bridge: null };

export function acceptUiPort(port) {
  if (!isOwnExtensionPage(port.sender)) {
    port.disconnect();
    return;
  }
  /** @type {UiPort} */
  const ui = { port, tabId: null, watches: new Map(), ownedSubs: new Map(), imports: new Map(), recordings: new Map(), histories: new Set(), outbox: [], flushDue: false, flushTimer: null, lastFlush: -Infinity };
  uiPorts.add(ui);
  port.onMessage.addListener((msg) => withCore(() => onUiMessage(ui, msg)).catch((e) => {
    console.error('SLOP Inspector: UI message failed:', e?.message ?? e);
  }));
  port.onDisconnect.addListener(() => {
    uiPorts.delete(ui);
    clearTimeout(ui.flushTimer);
    ui.outbox = [];
    releasePort(ui);
  });
}

/** What a closed port leaves behind: its extra subscriptions and its imports. */
function releasePort(ui) {
  for (const [key, subs] of ui.ownedSubs) {
    const conn = ui.tabId !== null ? connectionOf(ui.tabId, key) : null;
    for (const sub of subs) {
      try { conn?.unsubscribe(sub); } catch { /* the connection is gone or closed */ }
    }
  }
  ui.ownedSubs.clear();
  for (const imp of ui.imports.values()) imp.dispose();
  ui.imports.clear();
  for (const rec of ui.recordings.values()) rec.dispose();
  ui.recordings.clear();
}

// Pushes are coalesced per port: every runtime message costs a trip through the browser
// process and a task in the panel, so a burst of provider frames (thousands a second) goes out
// as one Push.BATCH at most every OUTBOX_DELAY_MS instead of one message per frame. A push after
// a quiet spell goes at the end of the current task, so a lone patch is not delayed. Replies go
// through the same outbox and flush it, so a UI sees pushes and replies in the order they were
// made (a GET_NODES reply is never overtaken by an older delta). Consecutive log pushes merge.
const OUTBOX_DELAY_MS = 4;
const OUTBOX_MAX = 256;

function post(ui, msg) {
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

function flush(ui) {
  clearTimeout(ui.flushTimer);
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

// ------------------------------------------------------------------------------- pushes

function providersPush(tabId) {
  const tab = tabs.get(tabId);
  return {
    type: Push.PROVIDERS,
    tabId,
    pageUrl: tab?.pageUrl ?? null,
    // The page's providers, then those added by address (shown on every tab; once, when the
    // page announces the same address: requests reach the page's connection first).
    providers: [...(tab ? tab.connections.values() : []),
      ...[...manualConnections.values()].filter((c) => !tab?.connections.has(c.key))].map((c) => c.info()),
    problems: tab?.problems ?? [],
  };
}

// Provider lists are coalesced per tab: one push per task, however many changes happened.
const dirtyTabs = new Set();
function scheduleProviders(tabId) {
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
tabEvents.change.add(scheduleProviders);
tabEvents.change.add(() => pruneTimelines());

// The history's new steps go to the panels that asked for that provider's history (Push.HISTORY):
// a panel that never opened it pays nothing for it.
timelineEvents.steps.add((tabId, key, steps, reset, update) => {
  for (const ui of uiPorts) {
    if ((ui.tabId === tabId || tabId === MANUAL_TAB) && ui.histories.has(key)) {
      post(ui, { type: Push.HISTORY, key, steps, reset: !!reset, update: !!update, info: timelineOf(tabId, key)?.info() ?? null });
    }
  }
});

function watchersOf(conn) {
  return [...uiPorts].filter((u) => (u.tabId === conn.tabId || conn.tabId === MANUAL_TAB) && u.watches.has(conn.key));
}

/**
 * The subscription's views from its root, up to the watch's budget. `snapshot`: the core's
 * snapshot event that caused it, whose restart marks (a new connection re-based the mirror to a
 * version below the previous one) go with it so the panel's history can show the boundary.
 */
function sendReset(ui, conn, watch, sub, snapshot = null) {
  const st = conn.consumer?.status();
  const info = st?.subscriptions?.find((s) => s.sub === sub);
  if (!info || info.state === 'waiting') return;
  const { nodes, complete } = breadthFirstViews(conn.consumer, sub, info.path, watch.budget);
  watch.known.set(sub, new KnownPaths(nodes.map((n) => n.path)));
  const restart = snapshot?.restarted === true
    ? { restarted: true, previousVersion: Number.isFinite(snapshot.previous_version) ? snapshot.previous_version : null } : {};
  post(ui, {
    type: Push.TREE_RESET, key: conn.key, sub, path: info.path, version: info.version ?? 0,
    count: info.nodes ?? null, nodes, complete, ...restart,
  });
}

connectionEvents.coreEvent.add((conn, ev) => {
  const watchers = watchersOf(conn);
  if (watchers.length === 0) return;
  if (ev.event === 'snapshot') {
    for (const ui of watchers) {
      sendReset(ui, conn, ui.watches.get(conn.key), ev.sub, ev);
      // A restart is worth a line in the panel's event list; ordinary snapshots are not.
      if (ev.restarted === true) post(ui, { type: Push.EVENT, key: conn.key, event: ev });
    }
  } else if (ev.event === 'patch') {
    const read = new Map(); // views read once for all the watchers
    for (const ui of watchers) {
      const watch = ui.watches.get(conn.key);
      const known = watch.known.get(ev.sub);
      // truncated: the patch touched more nodes than the core lists (SLOP_CHANGES_MAX), so the
      // lists are incomplete and only a fresh set of views is sure to match the mirror.
      if (!known || ev.truncated) {
        sendReset(ui, conn, watch, ev.sub);
        continue;
      }
      const { views, removed, children, partial } = patchDelta(conn.consumer, ev.sub, ev, known, read);
      post(ui, { type: Push.TREE_DELTA, key: conn.key, sub: ev.sub, version: ev.version, views, removed, children, ...(partial ? { partial } : {}) });
    }
  } else {
    for (const ui of watchers) post(ui, { type: Push.EVENT, key: conn.key, event: ev });
  }
});

connectionEvents.frame.add((conn, entry) => {
  for (const ui of watchersOf(conn)) {
    if (ui.watches.get(conn.key).log) post(ui, { type: Push.LOG, key: conn.key, entries: [entry], replace: false });
  }
});

// ------------------------------------------------------------------------------ requests

/** A refusal of this file's own: `code` is one of ErrorCode. */
class RequestError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function needConnection(ui, key) {
  const conn = typeof key === 'string' && ui.tabId !== null ? connectionOf(ui.tabId, key) : null;
  if (!conn) throw new RequestError(ErrorCode.NOT_FOUND, 'No such provider on this tab');
  return conn;
}

/** A live connection, or one of this port's imports (read-only requests only). */
function needSource(ui, key) {
  if (typeof key === 'string' && ui.imports.has(key)) return ui.imports.get(key);
  return needConnection(ui, key);
}

function subscriptionInfo(consumer, sub) {
  return consumer.status().subscriptions?.find((s) => s.sub === sub) ?? null;
}

function needSub(conn, sub) {
  const s = sub ?? conn.primarySub;
  if (typeof s !== 'string' || !conn.consumer) throw new RequestError(ErrorCode.BAD_STATE, 'Not subscribed yet');
  return s;
}

/** A connection's kept events as the panel lists them: what Push.EVENT would have brought. */
function keptEvents(conn) {
  return conn.events
    .filter((e) => e.event !== 'snapshot' || e.restarted === true)
    .map(({ at, ...event }) => ({ t: at, event }));
}

/** A timeline's refusal as the panel reads it: a step gone at the bound, or no states kept. */
function historyError(e) {
  if (e.code === 'not_found') return new RequestError(ErrorCode.NOT_FOUND, e.message);
  if (e.code === 'not_kept') return new RequestError(ErrorCode.BAD_STATE, e.message);
  return e;
}

/** The history of a provider shown in this port (a live one, or a recording opened here). */
function needTimeline(ui, key) {
  if (typeof key === 'string' && ui.recordings.has(key)) return ui.recordings.get(key);
  const tl = typeof key === 'string' && ui.tabId !== null ? (timelineOf(ui.tabId, key) ?? timelineOf(MANUAL_TAB, key)) : null;
  if (!tl) throw new RequestError(ErrorCode.NOT_FOUND, 'No history for this provider yet');
  return tl;
}

function needStep(m, name) {
  if (!Number.isInteger(m[name])) throw new RequestError(ErrorCode.BAD_REQUEST, `${name} must be a step number`);
  return m[name];
}

let recordingSeq = 0;

const handlers = {
  [Request.HISTORY](ui, m) {
    if (typeof m.key === 'string' && !ui.recordings.has(m.key)) ui.histories.add(m.key);
    const tl = needTimeline(ui, m.key);
    return { steps: tl.steps, info: tl.info() };
  },
  [Request.HISTORY_STATE](ui, m) {
    const tl = needTimeline(ui, m.key);
    const have = m.have === undefined || m.have === null ? null : needStep(m, 'have');
    try {
      return tl.stateAt(needStep(m, 'step'), have);
    } catch (e) {
      throw historyError(e);
    }
  },
  [Request.HISTORY_DIFF](ui, m) {
    const tl = needTimeline(ui, m.key);
    try {
      const d = tl.diff(needStep(m, 'from'), needStep(m, 'to'));
      if (m.paths !== true) return d;
      // Only which paths differ (the tree's "changed since step N" filter): no views to send.
      const path = (x) => x.path;
      return { ...d, added: d.added.map(path), removed: d.removed.map(path), changed: d.changed.map(path) };
    } catch (e) {
      throw historyError(e);
    }
  },
  [Request.HISTORY_PERSIST](ui, m) {
    const tl = needTimeline(ui, m.key);
    if (tl.readOnly) throw new RequestError(ErrorCode.BAD_STATE, 'A recording is read-only');
    setPersist(tl, m.on === true);
    return { info: tl.info() };
  },
  [Request.HISTORY_EXPORT](ui, m) {
    const tl = needTimeline(ui, m.key);
    try {
      return { text: JSON.stringify(tl.recording()), steps: tl.steps.length };
    } catch (e) {
      throw historyError(e);
    }
  },
  [Request.OPEN_RECORDING](ui, m) {
    if (typeof m.text !== 'string') throw new RequestError(ErrorCode.BAD_REQUEST, 'text must be a string');
    if (m.text.length > LIMITS.IMPORT_TEXT_MAX) throw new RequestError(ErrorCode.INVALID_TREE, `The recording is larger than ${LIMITS.IMPORT_TEXT_MAX / 1024 / 1024} MB`);
    let doc;
    try {
      doc = JSON.parse(m.text);
    } catch (e) {
      throw new RequestError(ErrorCode.INVALID_TREE, `The file is not JSON: ${e.message}`);
    }
    let tl;
    try {
      tl = Timeline.fromRecording(doc, core);
    } catch (e) {
      throw new RequestError(ErrorCode.INVALID_TREE, e.message);
    }
    const key = `recording:${++recordingSeq}`;
    tl.name = typeof m.name === 'string' ? m.name.slice(0, 200) : 'recording';
    ui.recordings.set(key, tl);
    while (ui.recordings.size > LIMITS.IMPORTS_PER_PORT) {
      const [oldest, old] = ui.recordings.entries().next().value;
      old.dispose();
      ui.recordings.delete(oldest);
    }
    return { key, name: tl.name, steps: tl.steps, info: tl.info() };
  },
  [Request.CLOSE_RECORDING](ui, m) {
    ui.recordings.get(m.key)?.dispose();
    ui.recordings.delete(m.key);
    return {};
  },

  [Request.BRIDGE_DECIDE](ui, m) {
    if (typeof m.approval !== 'string' || typeof m.allow !== 'boolean') throw new RequestError(ErrorCode.BAD_REQUEST, 'approval must be a string and allow a boolean');
    if (!services.bridge?.decide(m.approval, m.allow)) throw new RequestError(ErrorCode.NOT_FOUND, 'That invoke is no longer waiting (it timed out or the desktop went away)');
    return {};
  },
  [Request.BRIDGE_RETRY]() {
    services.bridge?.retry();
    return {};
  },
  [Request.WATCH](ui, m) {
    if (typeof m.key !== 'string') throw new RequestError(ErrorCode.BAD_REQUEST, 'key must be a string');
    const budget = Number.isInteger(m.budget) && m.budget > 0 ? Math.min(m.budget, 20000) : LIMITS.RESET_BUDGET;
    const watch = { budget, log: m.log === true, known: new Map() };
    ui.watches.set(m.key, watch);
    const conn = ui.tabId !== null ? connectionOf(ui.tabId, m.key) : null;
    if (conn?.consumer) {
      for (const s of conn.consumer.status().subscriptions ?? []) sendReset(ui, conn, watch, s.sub);
    }
    if (conn) {
      // What happened before this panel opened: kept by the connection, even past a fatal error.
      if (watch.log) post(ui, { type: Push.LOG, key: m.key, entries: conn.log.slice(), replace: true });
      post(ui, { type: Push.EVENTS, key: m.key, events: keptEvents(conn) });
    }
    // Not there yet (e.g. the service worker just restarted): the snapshot will be pushed later.
    return {};
  },
  [Request.UNWATCH](ui, m) {
    ui.watches.delete(m.key);
    return {};
  },
  [Request.GET_NODES](ui, m) {
    const conn = needSource(ui, m.key);
    const sub = needSub(conn, m.sub);
    if (!Array.isArray(m.paths)) throw new RequestError(ErrorCode.BAD_REQUEST, 'paths must be an array');
    // `missing`: paths the mirror no longer has (removed since the panel saw them listed);
    // `count`: the subscription's node count now, so the panel's "loading N of M" stays true
    // while patches add and remove nodes under it.
    const r = viewsOf(conn.consumer, sub, m.paths.slice(0, LIMITS.GET_NODES_MAX));
    const watch = ui.watches.get(conn.key);
    if (watch) {
      if (!watch.known.has(sub)) watch.known.set(sub, new KnownPaths());
      for (const n of r.nodes) watch.known.get(sub).add(n.path);
    }
    return { ...r, count: subscriptionInfo(conn.consumer, sub)?.nodes ?? null };
  },
  async [Request.INVOKE](ui, m) {
    const conn = needConnection(ui, m.key);
    if (typeof m.path !== 'string' || typeof m.action !== 'string') throw new RequestError(ErrorCode.BAD_REQUEST, 'path and action must be strings');
    return conn.invoke(m.path, m.action, m.params === null ? undefined : m.params);
  },
  async [Request.QUERY](ui, m) {
    const conn = needConnection(ui, m.key);
    return conn.query(m.options ?? {});
  },
  [Request.SUBSCRIBE](ui, m) {
    const conn = needConnection(ui, m.key);
    const sub = conn.subscribe(m.options ?? {});
    if (!ui.ownedSubs.has(conn.key)) ui.ownedSubs.set(conn.key, new Set());
    ui.ownedSubs.get(conn.key).add(sub);
    return { sub };
  },
  [Request.UNSUBSCRIBE](ui, m) {
    const conn = needConnection(ui, m.key);
    const sub = needSub(conn, m.sub);
    conn.unsubscribe(sub);
    ui.ownedSubs.get(conn.key)?.delete(sub);
    return {};
  },
  [Request.AGENT_VIEW](ui, m) {
    const conn = needSource(ui, m.key);
    const sub = needSub(conn, m.sub);
    return { treeText: conn.consumer.treeText(sub), tools: conn.consumer.tools(sub) };
  },
  [Request.CONFORMANCE](ui, m) {
    const conn = needConnection(ui, m.key);
    if (!conn.consumer) throw new RequestError(ErrorCode.BAD_STATE, 'Not connected: nothing was checked yet.');
    return conn.consumer.conformance();
  },
  async [Request.CHECK_DRIFT](ui, m) {
    const conn = needConnection(ui, m.key);
    const sub = needSub(conn, m.sub);
    const { event } = await conn.checkDrift(sub);
    if (event.event === 'drift') return event;
    throw new RequestError(ErrorCode.BAD_STATE,
      event.event === 'timeout' ? 'The provider did not answer the drift check in time.'
        : event.event === 'closed' ? 'The connection closed during the drift check.'
          : `The provider answered the drift check with an error: ${event.code ?? ''} ${event.message ?? ''}`.trim());
  },
  async [Request.SEND_TO_STRING](ui, m) {
    const conn = needConnection(ui, m.key);
    const sub = needSub(conn, m.sub);
    const info = subscriptionInfo(conn.consumer, sub);
    if (!info?.nodes) throw new RequestError(ErrorCode.BAD_STATE, 'Nothing to send: the provider has no state yet.');
    const url = await stringWebhookUrl();
    if (!url) throw new RequestError(ErrorCode.BAD_STATE, 'No String agent is set: find it or paste its webhook URL (`string webhook show`) in Options.');
    const agentId = (await stringWebhookInfo())?.agentId ?? null;
    const payload = stringPayload({
      pageUrl: conn.pageUrl, provider: conn.provider, live: conn.live, status: conn.status,
      transport: conn.isPostMessage ? 'postMessage, in the page' : conn.transport.url,
      version: info.version ?? 0, nodes: info.nodes, treeText: conn.consumer.treeText(sub) ?? '', tools: conn.consumer.tools(sub),
    });
    const answer = await sendWithReceipt(url, payload.text, { agentId });
    // A pasted URL's agent, named by its daemon: its event stream is watched from the next send.
    if (answer.ok && !agentId && answer.agentId) await noteStringAgent(url, answer.agentId).catch(() => {});
    return { ...answer, bytes: payload.bytes, kept: payload.kept, total: payload.total };
  },
  // Options, "Find String agents on this machine": the worker asks the daemon, so the webhook
  // URL (a secret) goes from the daemon into storage without passing through a page.
  [Request.STRING_FIND_AGENTS](ui, m) {
    if (m.address != null && typeof m.address !== 'string') throw new RequestError(ErrorCode.BAD_REQUEST, 'address must be a string');
    return findAgents(m.address);
  },
  [Request.STRING_USE_AGENT](ui, m) {
    if ((m.address != null && typeof m.address !== 'string') || typeof m.agentId !== 'string') throw new RequestError(ErrorCode.BAD_REQUEST, 'address and agentId must be strings');
    return useAgent(m.address, m.agentId, { accept: parseStringWebhook, store: (url, agentId) => setStringWebhook(url, { agentId }) });
  },
  async [Request.CONNECT_TO](ui, m) {
    if (typeof m.address !== 'string' || (m.token != null && typeof m.token !== 'string')) throw new RequestError(ErrorCode.BAD_REQUEST, 'address must be a string');
    try {
      return await connectTo(m.address, m.token || null, { anyway: m.anyway === true });
    } catch (e) {
      throw new RequestError(e.code === 'bad_request' ? ErrorCode.BAD_REQUEST : ErrorCode.INTERNAL, e.message);
    }
  },
  async [Request.REMOVE_PROVIDER](ui, m) {
    if (typeof m.key !== 'string' || !manualConnections.has(m.key)) throw new RequestError(ErrorCode.NOT_FOUND, 'Not a provider added by address');
    await removeManualProvider(m.key);
    return {};
  },
  [Request.GET_TREE](ui, m) {
    const conn = needSource(ui, m.key);
    const sub = needSub(conn, m.sub);
    const info = subscriptionInfo(conn.consumer, sub);
    if (!info) throw new RequestError(ErrorCode.NOT_FOUND, 'No such subscription');
    const st = conn.consumer.status();
    return {
      tree: conn.consumer.tree(sub, info.path, -1),
      path: info.path,
      version: info.version ?? 0,
      provider: st.provider ?? null,
      capabilities: st.capabilities ?? [],
    };
  },
  [Request.INSPECT_TREE](ui, m) {
    if (typeof m.text !== 'string') throw new RequestError(ErrorCode.BAD_REQUEST, 'text must be a string');
    const imp = new ImportedTree(m.text, m.name);
    ui.imports.set(imp.key, imp);
    while (ui.imports.size > LIMITS.IMPORTS_PER_PORT) {
      const [oldest] = ui.imports.keys();
      ui.imports.get(oldest).dispose();
      ui.imports.delete(oldest);
    }
    const info = imp.subscription();
    const budget = Number.isInteger(m.budget) && m.budget > 0 ? Math.min(m.budget, 20000) : LIMITS.RESET_BUDGET;
    const { nodes, complete } = breadthFirstViews(imp.consumer, imp.primarySub, info.path, budget);
    return {
      ...imp.info(), sub: imp.primarySub, path: info.path, version: info.version ?? imp.version,
      count: info.nodes ?? nodes.length, nodes, complete,
    };
  },
  [Request.CLOSE_IMPORT](ui, m) {
    ui.imports.get(m.key)?.dispose();
    ui.imports.delete(m.key);
    return {};
  },
  [Request.VALIDATE_PARAMS](ui, m) {
    return { errors: core().validateParams(m.schema ?? {}, m.params) };
  },
  async [Request.APPROVE](ui, m) {
    const conn = needConnection(ui, m.key);
    // storage.onChanged then starts every connection with this key
    await approve(conn.approvalKey, { page: conn.approvalPage, target: conn.approvalTarget });
    return {};
  },
  async [Request.DENY](ui, m) {
    const conn = needConnection(ui, m.key);
    await deny(conn.approvalKey);
    return {};
  },
  async [Request.RETRY](ui, m) {
    await needConnection(ui, m.key).retry();
    return {};
  },
  [Request.WAKE](ui) {
    if (ui.tabId !== null) reconnectTab(ui.tabId);
    return {};
  },
};

async function onUiMessage(ui, msg) {
  if (!msg || typeof msg.type !== 'string') return;
  if (msg.type === Request.HELLO) {
    if (msg.v !== PROTOCOL_VERSION) console.warn('SLOP Inspector: UI speaks version', msg.v);
    releasePort(ui);
    ui.tabId = Number.isInteger(msg.tabId) ? msg.tabId : null;
    ui.watches.clear();
    if (ui.tabId !== null) post(ui, providersPush(ui.tabId));
    // A panel or the popup opened on this tab: whoever waits out a back-off dials now.
    if (ui.tabId !== null) reconnectTab(ui.tabId);
    return;
  }
  if (msg.type === Request.PING) return;
  const handler = Object.prototype.hasOwnProperty.call(handlers, msg.type) ? handlers[msg.type] : null;
  const id = msg.id;
  if (!Number.isInteger(id)) return;
  if (!handler) {
    post(ui, { type: Push.REPLY, id, ok: false, error: { code: ErrorCode.BAD_REQUEST, message: `unknown request ${String(msg.type).slice(0, 40)}` } });
    return;
  }
  try {
    const result = await handler(ui, msg);
    post(ui, { type: Push.REPLY, id, ok: true, result });
  } catch (e) {
    // A RequestError or ImportError carries its ErrorCode; a SlopError (a core refusal) its
    // codeName, which errorCodeOf maps. Messages come from the core or from here.
    post(ui, { type: Push.REPLY, id, ok: false, error: { code: errorCodeOf(e), message: String(e.message ?? e) } });
  }
}
