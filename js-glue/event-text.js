// event-text.js: the core's events in words, one set of words for every surface: the panel's Log
// (Events tab) and History, the CLI's watch. A provider's restart is also read here for the Node
// client's onRestart and the test library's restarts()/waitForRestart(). The core decides what a
// restart is (a snapshot on a new connection whose version went back: `restarted: true`); this
// only reads and words it.

import { CoreEventName } from './core-contract.js';

/**
 * @typedef {object} Restart
 * @property {'restarted'} event
 * @property {string} sub              the subscription that was re-based
 * @property {number} version          the new process's version
 * @property {number|null} previousVersion  the mirror's version before (null: not known)
 * @property {number} [at]             when it was seen (ms since the epoch), where events carry it
 */

/**
 * The restart a core event says, or null.
 * @param {any} ev a core event (a SnapshotEvent with restarted: true is one)
 * @returns {Restart|null}
 */
export function restartOf(ev) {
  if (!ev || ev.event !== CoreEventName.SNAPSHOT || ev.restarted !== true) return null;
  return {
    event: 'restarted',
    sub: String(ev.sub ?? ''),
    version: Number(ev.version),
    previousVersion: Number.isFinite(ev.previous_version) ? ev.previous_version : null,
    ...(Number.isFinite(ev.at) ? { at: ev.at } : {}),
  };
}

/**
 * "provider restarted: version 3 after 380".
 * @param {{version?: number, previousVersion?: number|null}} r
 */
export function restartText(r) {
  const after = r.previousVersion !== null && r.previousVersion !== undefined ? ` after ${r.previousVersion}` : '';
  return `provider restarted: version ${r.version}${after}`;
}

/**
 * A core event in one line: the panel's Events tab, and the CLI's watch after the event's name.
 * @param {import('./core-contract.js').CoreEvent} ev @returns {string}
 */
export function eventText(ev) {
  switch (ev.event) {
    case CoreEventName.RESULT: return `${ev.action ?? ''} on ${ev.path ?? ''}: ${ev.status}${ev.error ? ` (${ev.error.code}: ${ev.error.message})` : ''}${ev.task_id ? ` task ${ev.task_id}` : ''}`;
    case CoreEventName.TASK: return `task ${ev.task_id}: ${ev.status ?? ''}${typeof ev.progress === 'number' ? ` ${Math.round(ev.progress * 100)}%` : ''} ${ev.message ?? ''}`;
    case CoreEventName.ERROR: return `${ev.code}: ${ev.message}`;
    case CoreEventName.PROTOCOL_ERROR: return `${ev.fatal ? 'FATAL ' : ''}${ev.code}: ${ev.message}`;
    case CoreEventName.RESYNC: return `${ev.reason}: ${ev.message ?? ''}`;
    case CoreEventName.TIMEOUT: return `${ev.request} ${ev.id} got no answer`;
    case CoreEventName.CLOSED: return `${ev.request} ${ev.id} ended by disconnect`;
    case CoreEventName.HELLO: return `${ev.provider?.name ?? ''} (${ev.provider?.id ?? ''})`;
    case CoreEventName.PROVIDER_EVENT: return `${ev.name}`;
    case CoreEventName.QUERY: return `query ${ev.id} answered (v${ev.version})`;
    case CoreEventName.SNAPSHOT: {
      const r = restartOf(ev);
      return r ? restartText(r) : `v${ev.version}, ${ev.nodes ?? '?'} nodes`;
    }
    case CoreEventName.PROVIDER_CHANGED: {
      const who = (/** @type {any} */ p) => (p ? `${p.name ?? '?'} (${p.id ?? '?'})` : 'an unknown provider');
      return `a different provider answers at this address: ${who(ev.provider)}, was ${who(ev.previous)}; the old mirror was dropped`;
    }
    case CoreEventName.DRIFT:
      return ev.status === 'differs' ? `the mirror differs from the provider at v${ev.version}: ${ev.count ?? ev.differences?.length ?? '?'} difference(s)`
        : ev.status === 'same' ? `the mirror equals the provider at v${ev.version}` : `drift check inconclusive: ${ev.message ?? ''}`;
    case CoreEventName.PATCH: return `v${ev.version}, ${ev.ops} op${ev.ops === 1 ? '' : 's'}`;
    default: {
      // Every event of the contract has its words: a new one fails to type-check here.
      /** @type {never} */
      const unknown = ev;
      return String(/** @type {any} */ (unknown)?.event ?? '');
    }
  }
}
