// timelines.js: one Timeline (timeline.js) per (tab, provider), fed by the connections' events
// (recordInput, recordCoreEvent, recordInvoke). New steps go out on timelineEvents.steps.
//
// A page reload (or a navigation back to the same provider) is a boundary in the same history,
// not a reset: the new connection under the same (tab, provider) goes on in it after a "reload"
// step. A closed tab's histories go with it; a tab keeps the histories of its last few providers.
//
// Persist keeps a history even when the browser stops the extension's service worker (Chrome
// does that to an idle worker, or on an update): its recording is written to storage.session
// (a few seconds after it changes) and read back when the worker starts again, after a step that
// says so. Without Persist, a worker restart starts a new history.

import { core } from './core.js';
import { Timeline, TIMELINE_LIMITS } from './timeline.js';
import { storageSession, onStorageChanged } from '../shared/browser.js';
import { KEYS, historyMb, historySteps } from '../shared/settings-store.js';
import { NO_STEP_BOUND } from './timeline-limits.js';
import { CoreEventName, SubscriptionState } from '../../js-glue/core-contract.js';

/** @typedef {import('./connections.js').Connection} Connection */
/** @typedef {import('./timeline.js').Step} Step */

/**
 * fn(tabId, key, steps, reset, update): steps added (or, update, changed), or all of them again after reset.
 * @type {{steps: Set<(tabId: number, key: string, steps: Step[], reset: boolean, update: boolean) => void>}}
 */
export const timelineEvents = { steps: new Set() };

/** Histories a tab keeps for providers it no longer shows. */
const KEPT_PER_TAB = 4;
/** A persisted history is written this long after it last changed. */
const PERSIST_DELAY_MS = 2000;
const STORE_PREFIX = 'history:';

/** "tabId key" → Timeline @type {Map<string, Timeline>} */
const byId = new Map();
/** Connection → Timeline @type {WeakMap<Connection, Timeline>} */
const ofConn = new WeakMap();
/** "tabId key" → the next step number: a new history there goes on numbering (panels key steps by number). */
const nextStepOf = new Map();
/** "tabId key" → a persisted recording read at start, until a connection takes it up. */
const stored = new Map();

/** @param {number} tabId @param {string} key */
const idOf = (tabId, key) => `${tabId} ${key}`;

/** The bounds every history keeps: the defaults, or the memory and steps the user set (Options, the History pane). */
/** @type {Readonly<{steps: number, bytes: number}>} */
let limits = TIMELINE_LIMITS;
function readLimits() {
  Promise.all([historyMb(), historySteps()]).then(([mb, steps]) => {
    limits = Object.freeze({
      steps: steps === null ? TIMELINE_LIMITS.steps : steps === 0 ? NO_STEP_BOUND : steps,
      bytes: mb === null ? TIMELINE_LIMITS.bytes : mb * 1024 * 1024,
    });
    for (const tl of byId.values()) if (!tl.readOnly) tl.setLimits(limits);
  }).catch(() => { /* the default stays */ });
}
readLimits();
onStorageChanged((changes, area) => {
  if (area === 'local' && (KEYS.HISTORY_MB in changes || KEYS.HISTORY_STEPS in changes)) readLimits();
});

// The persisted histories of the worker's previous life (storage.session lasts a browser session).
storageSession.get(null).then((all) => {
  for (const [k, v] of Object.entries(all ?? {})) if (k.startsWith(STORE_PREFIX) && v && typeof v === 'object') stored.set(k.slice(STORE_PREFIX.length), v);
}).catch(() => { /* nothing kept */ });

/** @param {number} tabId @param {string} key @returns {Timeline|null} */
export function timelineOf(tabId, key) {
  return byId.get(idOf(tabId, key)) ?? null;
}

/** A persisted history of this (tab, provider) from before the worker started, or null. @param {string} id @param {Connection} conn */
function restore(id, conn) {
  const doc = stored.get(id);
  if (!doc) return null;
  stored.delete(id);
  try {
    const tl = Timeline.fromRecording(doc, core);
    tl.readOnly = false;
    tl.persist = true;
    tl.label.transport = conn.transport?.type === 'ws' ? conn.transport.url : 'postmessage';
    tl.workerRestarted(conn.pageUrl);
    return tl;
  } catch (e) {
    console.warn('SLOP Inspector: a persisted history could not be read back:', /** @type {any} a thrown value */ (e)?.message ?? e);
    storageSession.remove?.(STORE_PREFIX + id);
    return null;
  }
}

/** The connection's history, made on its first frame or event. @param {Connection} conn @returns {Timeline} */
function attach(conn) {
  let tl = ofConn.get(conn);
  if (tl) return tl;
  const id = idOf(conn.tabId, conn.key);
  tl = byId.get(id);
  if (tl && tl.conn !== conn) tl.reloaded(conn.pageUrl);
  if (!tl) {
    tl = restore(id, conn) ?? new Timeline({ core, label: { pageUrl: conn.pageUrl, transport: conn.transport?.type === 'ws' ? conn.transport.url : 'postmessage' }, firstStep: nextStepOf.get(id) ?? 1, limits });
    tl.setLimits(limits);
    const { tabId, key } = conn;
    const t = tl;
    tl.listeners.add((steps, reset, update) => {
      nextStepOf.set(id, t.nextStep);
      if (t.persist) schedulePersist(id, t);
      for (const fn of timelineEvents.steps) fn(tabId, key, steps, reset, update);
    });
    byId.set(id, tl);
    // A panel still showing the history this one replaces starts over with it.
    for (const fn of timelineEvents.steps) fn(tabId, key, tl.steps, true, false);
  }
  tl.conn = conn;
  tl.label.pageUrl = conn.pageUrl;
  ofConn.set(conn, tl);
  return tl;
}

// What the history hears of each connection (sw.js hands them the worker's connectionEvents):
// every provider frame before the core reads it, the core's events after, and the invokes sent.

/** A provider frame as it came (connectionEvents.input): kept to replay states from. @param {Connection} conn @param {string} text */
export function recordInput(conn, text) {
  attach(conn).input(text);
}

/**
 * A core event (connectionEvents.coreEvent): a step, or what the next step needs to know.
 * @param {Connection} conn @param {import('../../js-glue/core-contract.js').DrainedEvent} ev  a core event (slop_core.h)
 */
export function recordCoreEvent(conn, ev) {
  const tl = attach(conn);
  if (ev.event === CoreEventName.HELLO) tl.helloSeen(ev.provider);
  tl.event(ev, conn.primarySub, () => /** @type {import('../shared/messages.js').ConsumerStatus|undefined} */ (conn.consumer?.status()));
}

/** An invoke sent (connectionEvents.invoked): a step. @param {Connection} conn @param {{path: string, action: string, params?: unknown}} invoke */
export function recordInvoke(conn, { path, action, params }) {
  attach(conn).invoked(path, action, params);
}

/**
 * Recording paused (on) or resumed. Resuming starts from a checkpoint of the connection's live
 * mirror (the core prints it): throws (code not_live) when there is none.
 * @param {Timeline} tl @param {boolean} on
 */
export function pauseTimeline(tl, on) {
  if (on) return tl.pause();
  const conn = tl.conn;
  tl.resume(() => {
    const c = conn?.consumer;
    if (!c || conn.disposed || !conn.primarySub) return null;
    const status = () => /** @type {import('../shared/messages.js').ConsumerStatus} */ (c.status());
    const st = status()?.subscriptions?.find((x) => x.sub === conn.primarySub);
    if (!st?.wire || st.state !== SubscriptionState.LIVE) return null;
    const text = c.checkpoint(conn.primarySub);
    return text ? { text, wire: st.wire, options: st.options ?? {}, version: st.version ?? null, nodes: st.nodes ?? status()?.nodes ?? 0 } : null;
  });
}

/** Persist on or off for a history (the panel's switch). @param {Timeline} tl @param {boolean} on */
export function setPersist(tl, on) {
  tl.persist = !!on;
  const id = [...byId].find(([, t]) => t === tl)?.[0];
  if (!id) return;
  if (tl.persist) schedulePersist(id, tl);
  else {
    clearTimeout(tl.persistTimer);
    storageSession.remove?.(STORE_PREFIX + id);
  }
}

/** @param {string} id @param {Timeline} tl */
function schedulePersist(id, tl) {
  if (tl.persistTimer) return;
  tl.persistTimer = setTimeout(() => {
    tl.persistTimer = 0;
    if (!tl.persist || byId.get(id) !== tl) return;
    let doc;
    try {
      doc = tl.recording();
    } catch (e) {
      tl.persistError = `not written: ${/** @type {Error} */ (e).message}`; // a history without states has nothing to replay
      return;
    }
    storageSession.set({ [STORE_PREFIX + id]: doc }).then(() => {
      tl.persistError = null;
    }).catch((e) => {
      // storage.session holds 10 MB in Chrome: a history bigger than that is kept in memory only.
      tl.persistError = `not written: ${e?.message ?? e}`;
    });
  }, PERSIST_DELAY_MS);
}

/**
 * After a tab's provider list changed: each tab keeps the histories of its last KEPT_PER_TAB
 * providers whose connection went (a provider that comes back goes on in its own).
 */
export function pruneTimelines() {
  const gone = new Map(); // tabId → [[id, tl]] of disposed connections, oldest first
  for (const [id, tl] of byId) {
    if (!tl.conn?.disposed) continue;
    const list = gone.get(tl.conn.tabId) ?? [];
    list.push([id, tl]);
    gone.set(tl.conn.tabId, list);
  }
  for (const list of gone.values()) for (const [id, tl] of list.slice(0, Math.max(0, list.length - KEPT_PER_TAB))) drop(id, tl);
}

/** The tab was closed: its histories go, Persist or not. @param {number} tabId */
export function dropTimelinesOf(tabId) {
  for (const [id, tl] of byId) if (tl.conn?.tabId === tabId) drop(id, tl);
  for (const id of [...stored.keys()]) {
    if (!id.startsWith(`${tabId} `)) continue;
    stored.delete(id);
    storageSession.remove?.(STORE_PREFIX + id); // persisted before the worker stopped, never taken up
  }
}

/** @param {string} id @param {Timeline} tl */
function drop(id, tl) {
  nextStepOf.set(id, tl.nextStep);
  clearTimeout(tl.persistTimer);
  if (tl.persist) storageSession.remove?.(STORE_PREFIX + id);
  tl.dispose();
  byId.delete(id);
}
