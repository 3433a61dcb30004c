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
    tl = new Timeline({ core, label: { pageUrl: conn.pageUrl, transport: conn.transport?.type === 'ws' ? conn.transport.url : 'postmessage' } });
    const { tabId, key } = conn;
    tl.listeners.add((steps, reset, update) => {
      for (const fn of timelineEvents.steps) fn(tabId, key, steps, reset, update);
    });
    byId.set(id, tl);
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
 * Persist keeps it for the provider's return; a closed tab's go in any case.
 * @param {(tabId: number) => boolean} tabOpen
 */
export function pruneTimelines(tabOpen) {
  for (const [id, tl] of byId) {
    const gone = tl.conn?.disposed;
    if (!gone) continue;
    if (tl.persist && tabOpen(tl.conn.tabId)) continue;
    tl.dispose();
    byId.delete(id);
  }
}
