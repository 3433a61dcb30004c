// tree-watch.js: a UI port WATCHes a provider: from then on it gets Push.TREE_RESET on every
// snapshot, TREE_DELTA on every patch (views of what it has seen, see node-views.js), the other
// core events (Push.EVENT) and optionally the frame log (Push.LOG). Views beyond the first
// budget it asks for with GET_NODES. The requests: WATCH, UNWATCH, GET_NODES.
//
// It is the last stop of a provider frame in the worker (connections.js tells the whole way):
// sw.js hands the worker's connectionEvents.coreEvent to pushCoreEvent and .frame to pushFrame.

import { Request, Push, ErrorCode, LIMITS } from '../shared/messages.js';
import { CoreEventName, SubscriptionState } from '../../js-glue/core-contract.js';
import { connectionOf } from './tabs.js';
import { breadthFirstViews, KnownPaths, patchDelta, viewsOf } from './node-views.js';
import { post, portsShowing, perPort, RequestError, needSub, subscriptionInfo, viewBudget } from './panel-ports.js';
import { needSource } from './imports.js';

/**
 * @typedef {object} Watch
 * @property {number} budget
 * @property {boolean} log
 * @property {Map<string, KnownPaths>} known   sub → paths this port has a view of
 */

/** @typedef {import('./connections.js').Connection} Connection */
/** @typedef {import('./panel-ports.js').UiPort} UiPort */
/** @typedef {import('../../js-glue/slop-core.js').SlopConsumerT} SlopConsumer */

/** Port → provider key → its watch. */
const watchesOf = perPort(() => /** @type {Map<string, Watch>} */ (new Map()));

/** The watch of a port among watchersOf(conn). @param {UiPort} ui @param {Connection} conn */
const watchOf = (ui, conn) => /** @type {Watch} */ (watchesOf(ui).get(conn.key));

/** The ports watching this connection. @param {Connection} conn */
function watchersOf(conn) {
  return portsShowing(conn.tabId).filter((u) => watchesOf(u).has(conn.key));
}

/**
 * The subscription's views from its root, up to the watch's budget.
 * @param {UiPort} ui @param {Connection} conn @param {Watch} watch @param {string} sub
 */
function sendReset(ui, conn, watch, sub) {
  const st = /** @type {import('../shared/messages.js').ConsumerStatus|undefined} */ (conn.consumer?.status());
  const info = st?.subscriptions?.find((s) => s.sub === sub);
  if (!info || info.state === SubscriptionState.WAITING) return;
  const { nodes, complete } = breadthFirstViews(/** @type {SlopConsumer} it has a status */ (conn.consumer), sub, info.path, watch.budget);
  watch.known.set(sub, new KnownPaths(nodes.map((n) => n.path)));
  post(ui, {
    type: Push.TREE_RESET, key: conn.key, sub, path: info.path, version: info.version ?? 0,
    count: info.nodes ?? null, nodes, complete,
  });
}

/** A connection's kept events as the panel lists them: what Push.EVENT would have brought. @param {Connection} conn */
function keptEvents(conn) {
  return /** @type {(import('../../js-glue/core-contract.js').DrainedEvent & {at: number})[]} */ (conn.events)
    .filter((e) => e.event !== CoreEventName.SNAPSHOT || e.restarted === true)
    .map(({ at, ...event }) => ({ t: at, event }));
}

/**
 * A core event of a connection (connectionEvents.coreEvent): a snapshot resets the watchers'
 * trees, a patch becomes a delta of what each has seen, any other event goes as it is.
 * @param {Connection} conn @param {import('../../js-glue/core-contract.js').CoreEvent} ev
 */
export function pushCoreEvent(conn, ev) {
  const watchers = watchersOf(conn);
  if (watchers.length === 0) return;
  if (ev.event === CoreEventName.SNAPSHOT) {
    for (const ui of watchers) {
      sendReset(ui, conn, watchOf(ui, conn), ev.sub);
      // A provider restart is worth a line in the panel's event list; ordinary snapshots are not.
      if (ev.restarted === true) post(ui, { type: Push.EVENT, key: conn.key, event: ev });
    }
  } else if (ev.event === CoreEventName.PATCH) {
    const read = new Map(); // views read once for all the watchers
    for (const ui of watchers) {
      const watch = watchOf(ui, conn);
      const known = watch.known.get(ev.sub);
      // truncated: the patch touched more nodes than the core lists (SLOP_CHANGES_MAX), so the
      // lists are incomplete and only a fresh set of views is sure to match the mirror.
      if (!known || ev.truncated) {
        sendReset(ui, conn, watch, ev.sub);
        continue;
      }
      const { views, removed, children, partial } = patchDelta(/** @type {SlopConsumer} its event */ (conn.consumer), ev.sub, ev, known, read);
      post(ui, { type: Push.TREE_DELTA, key: conn.key, sub: ev.sub, version: ev.version, views, removed, children, ...(partial ? { partial } : {}) });
    }
  } else {
    for (const ui of watchers) post(ui, { type: Push.EVENT, key: conn.key, event: ev });
  }
}

/**
 * A frame in or out (connectionEvents.frame): the Log of the watchers that asked for it.
 * @param {Connection} conn @param {import('../../js-glue/frame-log.js').LogEntry} entry
 */
export function pushFrame(conn, entry) {
  for (const ui of watchersOf(conn)) {
    if (watchOf(ui, conn).log) post(ui, { type: Push.LOG, key: conn.key, entries: [entry], replace: false });
  }
}

/** @type {import('./panel-ports.js').RequestTable} */
export const watchRequests = {
  requests: {
    [Request.WATCH](ui, m) {
      if (typeof m.key !== 'string') throw new RequestError(ErrorCode.BAD_REQUEST, 'key must be a string');
      const watch = { budget: viewBudget(m), log: m.log === true, known: new Map() };
      watchesOf(ui).set(m.key, watch);
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
      watchesOf(ui).delete(m.key);
      return {};
    },
    [Request.GET_NODES](ui, m) {
      const conn = needSource(ui, m.key);
      const sub = needSub(conn, m.sub);
      if (!Array.isArray(m.paths)) throw new RequestError(ErrorCode.BAD_REQUEST, 'paths must be an array');
      // `missing`: paths the mirror no longer has (removed since the panel saw them listed);
      // `count`: the subscription's node count now, so the panel's "loading N of M" stays true
      // while patches add and remove nodes under it.
      const consumer = /** @type {SlopConsumer} needSub checked it */ (conn.consumer);
      const r = viewsOf(consumer, sub, m.paths.slice(0, LIMITS.GET_NODES_MAX));
      const watch = watchesOf(ui).get(conn.key);
      if (watch) {
        if (!watch.known.has(sub)) watch.known.set(sub, new KnownPaths());
        const known = /** @type {KnownPaths} */ (watch.known.get(sub));
        for (const n of r.nodes) known.add(n.path);
      }
      return { ...r, count: subscriptionInfo(consumer, sub)?.nodes ?? null };
    },
  },
  release(ui) {
    watchesOf(ui).clear();
  },
};
