// timelines.js: one Timeline (timeline.js) per (tab, provider), fed by the connections' events,
// kept while its connection lives. A new connection under the same (tab, provider) (the page was
// reloaded) clears it, or, with Persist on, goes on in the same timeline after a "reload" step.

import { connectionEvents } from './connections.js';
import { core } from './core.js';
import { Timeline } from './timeline.js';

/** fn(tabId, key, steps, reset, update): steps added (or, update, changed), or all of them again after reset. */
export const timelineEvents = { steps: new Set() };

/** "tabId key" → Timeline */
const byId = new Map();
/** Connection → Timeline */
const ofConn = new WeakMap();
/** "tabId key" → the next step number: a new history there goes on numbering (panels key steps by number). */
const nextStepOf = new Map();

const idOf = (tabId, key) => `${tabId} ${key}`;

export function timelineOf(tabId, key) {
  return byId.get(idOf(tabId, key)) ?? null;
}

function attach(conn) {
  let tl = ofConn.get(conn);
  if (tl) return tl;
  const id = idOf(conn.tabId, conn.key);
  tl = byId.get(id);
  if (tl && tl.conn !== conn) {
    if (tl.persist) tl.reloaded(conn.pageUrl);
    else tl.clear();
  }
  if (!tl) {
    tl = new Timeline({ core, label: { pageUrl: conn.pageUrl, transport: conn.transport?.type === 'ws' ? conn.transport.url : 'postmessage' }, firstStep: nextStepOf.get(id) ?? 1 });
    const { tabId, key } = conn;
    const t = tl;
    tl.listeners.add((steps, reset, update) => {
      nextStepOf.set(id, t.nextStep);
      for (const fn of timelineEvents.steps) fn(tabId, key, steps, reset, update);
    });
    byId.set(id, tl);
    // A panel still showing the history this one replaces starts over with it.
    for (const fn of timelineEvents.steps) fn(tabId, key, [], true, false);
  }
  tl.conn = conn;
  tl.label.pageUrl = conn.pageUrl;
  ofConn.set(conn, tl);
  return tl;
}

connectionEvents.input.add((conn, text) => attach(conn).input(text));
connectionEvents.coreEvent.add((conn, ev) => {
  const tl = attach(conn);
  if (ev.event === 'hello') tl.helloSeen(ev.provider);
  tl.event(ev, conn.primarySub, () => conn.consumer?.status());
});
connectionEvents.invoked.add((conn, { path, action }) => attach(conn).invoked(path, action));

/**
 * After a tab's provider list changed: a timeline whose connection is gone goes with it, unless
 * Persist keeps it for the provider's return (a page reload takes the tab's connections down
 * before the new page's come).
 */
export function pruneTimelines() {
  for (const [id, tl] of byId) if (tl.conn?.disposed && !tl.persist) drop(id, tl);
}

/** The tab was closed: its timelines go, Persist or not. */
export function dropTimelinesOf(tabId) {
  for (const [id, tl] of byId) if (tl.conn?.tabId === tabId) drop(id, tl);
}

function drop(id, tl) {
  nextStepOf.set(id, tl.nextStep);
  tl.dispose();
  byId.delete(id);
}
