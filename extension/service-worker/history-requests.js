// history-requests.js: the panel's History, answered from the timelines the worker keeps
// (timelines.js) or from a recording a port opened (read-only, its own until the port closes):
// HISTORY, HISTORY_STATE, HISTORY_DIFF, HISTORY_PERSIST, HISTORY_EXPORT, HISTORY_HOLD,
// HISTORY_PAUSE, HISTORY_FILTER, OPEN_RECORDING, CLOSE_RECORDING. A port's holds (the steps it
// views and pins) keep those steps past the bound until it releases them or closes. A port that asked for a provider's HISTORY gets its new steps (Push.HISTORY,
// pushSteps, which sw.js hands timelineEvents.steps); a port that never opened it pays nothing.

import { Request, Push, ErrorCode, LIMITS } from '../shared/messages.js';
import { core } from './core.js';
import { MANUAL_TAB } from './tabs.js';
import { Timeline } from './timeline.js';
import { timelineOf, setPersist, pauseTimeline } from './timelines.js';
import { post, portsShowing, perPort, RequestError } from './panel-ports.js';

/**
 * @typedef {object} PortHistories
 * @property {Set<string>} followed   provider keys whose new steps this port gets
 * @property {Map<string, Timeline>} recordings   "recording:N" → a recording opened here (the oldest first)
 * @property {string} holder   this port's name in a timeline's holds
 * @property {Set<Timeline>} holding   the timelines this port holds steps in
 */
let holders = 0;
const historiesOf = perPort(() => /** @type {PortHistories} */ ({ followed: new Set(), recordings: new Map(), holder: `port ${++holders}`, holding: new Set() }));

/**
 * New steps of a provider's history (timelineEvents.steps): to the ports following it.
 * @param {number} tabId @param {string} key @param {import('./timeline.js').Step[]} steps
 * @param {boolean} reset @param {boolean} update
 */
export function pushSteps(tabId, key, steps, reset, update) {
  for (const ui of portsShowing(tabId)) {
    if (historiesOf(ui).followed.has(key)) {
      post(ui, { type: Push.HISTORY, key, steps, reset: !!reset, update: !!update, info: timelineOf(tabId, key)?.info() ?? null });
    }
  }
}

/** A timeline's refusal as the panel reads it: a step gone at the bound, or no states kept. @param {any} e */
function historyError(e) {
  if (e.code === 'not_found') return new RequestError(ErrorCode.NOT_FOUND, e.message);
  if (e.code === 'not_kept') return new RequestError(ErrorCode.BAD_STATE, e.message);
  return e;
}

/**
 * The history of a provider shown in this port (a live one, or a recording opened here).
 * @param {import('./panel-ports.js').UiPort} ui @param {unknown} key @returns {Timeline}
 */
function needTimeline(ui, key) {
  const { recordings } = historiesOf(ui);
  if (typeof key === 'string' && recordings.has(key)) return /** @type {Timeline} */ (recordings.get(key));
  const tl = typeof key === 'string' && ui.tabId !== null ? (timelineOf(ui.tabId, key) ?? timelineOf(MANUAL_TAB, key)) : null;
  if (!tl) throw new RequestError(ErrorCode.NOT_FOUND, 'No history for this provider yet');
  return tl;
}

/** @param {Record<string, any>} m the request @param {string} name @returns {number} */
function needStep(m, name) {
  if (!Number.isInteger(m[name])) throw new RequestError(ErrorCode.BAD_REQUEST, `${name} must be a step number`);
  return m[name];
}

let recordingSeq = 0;

/** @type {import('./panel-ports.js').RequestTable} */
export const historyRequests = {
  requests: {
    [Request.HISTORY](ui, m) {
      const { followed, recordings } = historiesOf(ui);
      if (typeof m.key === 'string' && !recordings.has(m.key)) followed.add(m.key);
      const tl = needTimeline(ui, m.key);
      return { steps: tl.listed(), info: tl.info() };
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
        const path = (/** @type {{path: string}} */ x) => x.path;
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
    [Request.HISTORY_HOLD](ui, m) {
      const tl = needTimeline(ui, m.key);
      if (!Array.isArray(m.steps) || m.steps.length > 8 || !m.steps.every(Number.isInteger)) throw new RequestError(ErrorCode.BAD_REQUEST, 'steps must be up to 8 step numbers');
      const { holder, holding } = historiesOf(ui);
      tl.hold(holder, m.steps);
      if (m.steps.length) holding.add(tl);
      else holding.delete(tl);
      return {};
    },
    [Request.HISTORY_PAUSE](ui, m) {
      const tl = needTimeline(ui, m.key);
      if (tl.readOnly) throw new RequestError(ErrorCode.BAD_STATE, 'A recording is read-only');
      try {
        pauseTimeline(tl, m.on === true);
      } catch (e) {
        const err = /** @type {Error & {code?: string}} */ (e);
        if (err.code === 'not_live') throw new RequestError(ErrorCode.BAD_STATE, err.message);
        throw e;
      }
      return { info: tl.info() };
    },
    [Request.HISTORY_FILTER](ui, m) {
      const tl = needTimeline(ui, m.key);
      if (m.path !== undefined && m.path !== null && (typeof m.path !== 'string' || m.path.length > 2000)) throw new RequestError(ErrorCode.BAD_REQUEST, 'path must be a string');
      if (m.kinds !== undefined && m.kinds !== null && (!Array.isArray(m.kinds) || !m.kinds.every((k) => typeof k === 'string'))) throw new RequestError(ErrorCode.BAD_REQUEST, 'kinds must be strings');
      const path = typeof m.path === 'string' && m.path.trim() ? m.path.trim() : null;
      return { steps: tl.matching({ path: path && !path.startsWith('/') ? `/${path}` : path, kinds: m.kinds ?? null }), upTo: tl.steps.at(-1)?.step ?? null };
    },
    [Request.OPEN_RECORDING](ui, m) {
      if (typeof m.text !== 'string') throw new RequestError(ErrorCode.BAD_REQUEST, 'text must be a string');
      if (m.text.length > LIMITS.IMPORT_TEXT_MAX) throw new RequestError(ErrorCode.INVALID_TREE, `The recording is larger than ${LIMITS.IMPORT_TEXT_MAX / 1024 / 1024} MB`);
      let doc;
      try {
        doc = JSON.parse(m.text);
      } catch (e) {
        throw new RequestError(ErrorCode.INVALID_TREE, `The file is not JSON: ${/** @type {Error} */ (e).message}`);
      }
      let tl;
      try {
        tl = Timeline.fromRecording(doc, core);
      } catch (e) {
        throw new RequestError(ErrorCode.INVALID_TREE, /** @type {Error} */ (e).message);
      }
      const { recordings } = historiesOf(ui);
      const key = `recording:${++recordingSeq}`;
      tl.name = typeof m.name === 'string' ? m.name.slice(0, 200) : 'recording';
      recordings.set(key, tl);
      while (recordings.size > LIMITS.IMPORTS_PER_PORT) {
        const [oldest, old] = /** @type {[string, Timeline]} */ (recordings.entries().next().value);
        old.dispose();
        recordings.delete(oldest);
      }
      return { key, name: tl.name, steps: tl.steps, info: tl.info() };
    },
    [Request.CLOSE_RECORDING](ui, m) {
      const { recordings } = historiesOf(ui);
      recordings.get(m.key)?.dispose();
      recordings.delete(m.key);
      return {};
    },
  },
  release(ui) {
    const { followed, recordings, holder, holding } = historiesOf(ui);
    // Its held steps go at the next drop of each history.
    for (const tl of holding) tl.hold(holder, []);
    holding.clear();
    for (const rec of recordings.values()) rec.dispose();
    recordings.clear();
    followed.clear();
  },
};
