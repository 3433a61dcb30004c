// agent-session.js: an agent run's trace as an exported session (the panel's Export, the Node
// client's sessionText), read back and checked, and what a replay compares: the reply recorded for
// a turn, and what each call came to. replaySession (agent.js) plays one again.

import { isObject } from './agent-endpoint.js';

// ------------------------------------------------------------------------------ sessions

/** The format of an exported Agent playground session (the panel's Export). */
export const SESSION_FORMAT = 'slop-inspector-agent-session';

/**
 * An exported session as a file's text. @param {object} trace what runAgent returned
 * @returns {string}
 */
export function sessionText(trace) {
  return JSON.stringify({ format: SESSION_FORMAT, version: 1, exportedAt: new Date().toISOString(), trace }, null, 2);
}

/**
 * The trace of an exported session, checked enough to replay it (its replies: text and tool
 * calls, per turn). Throws an Error whose message says what is wrong.
 * @param {string} text @returns {Record<string, any>} the trace (JSON from outside, checked as said)
 */
export function readSession(text) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`The file is not JSON: ${/** @type {Error} */ (e).message}`);
  }
  if (!isObject(doc) || doc.format !== SESSION_FORMAT) throw new Error(`Not an exported agent session (its "format" is not "${SESSION_FORMAT}")`);
  if (doc.version !== 1) throw new Error(`An agent session of version ${JSON.stringify(doc.version)}: this SLOP Inspector reads version 1`);
  const trace = doc.trace;
  if (!isObject(trace) || typeof trace.task !== 'string' || !Array.isArray(trace.turns)) throw new Error('The session has no trace (task and turns)');
  for (const [n, t] of trace.turns.entries()) {
    // The last turn of a stopped or failed run may have no reply: the replay ends there.
    if (t?.reply === null && n === trace.turns.length - 1) break;
    const calls = t?.reply?.toolCalls;
    if (!isObject(t?.reply) || (calls !== undefined && !Array.isArray(calls))) throw new Error(`Turn ${n + 1} has no reply to play`);
    for (const c of calls ?? []) {
      if (!isObject(c) || typeof c.name !== 'string' || typeof c.arguments !== 'string') throw new Error(`Turn ${n + 1}: a tool call without a name and its arguments`);
    }
  }
  return trace;
}

/**
 * The reply recorded for turn i (1-based), as the wire readers give one; past the end, a text that says so.
 * @param {Record<string, any>} trace  as readSession checked it @param {number} i @returns {import('./agent-endpoint.js').Reply}
 */
function recordedReply(trace, i) {
  const t = trace.turns[i - 1];
  if (!t?.reply) return { text: '[SLOP Inspector: the recording has no more turns]', calls: [], usage: null, finish: 'stop' };
  const text = typeof t.reply.text === 'string' ? t.reply.text : '';
  const calls = (t.reply.toolCalls ?? []).map((/** @type {{id?: unknown, name: string, arguments: string}} */ c) => ({ id: String(c.id ?? ''), name: c.name, arguments: c.arguments }));
  return { text, calls, usage: null, finish: t.reply.finish ?? null };
}

/**
 * What a call came to, for comparing a replay with its recording: refused (and why), or the provider's answer.
 * @param {unknown} call  a trace's (a run's, or an exported session's) @returns {Record<string, unknown>}
 */
function recordedOutcome(call) {
  if (!isObject(call)) return { missing: true };
  if (call.refused) return { refused: String(call.refused).replace(/:.*$/s, '') };
  const r = call.result;
  if (!isObject(r)) return { result: null };
  // What the call changed is part of its outcome: a replay that answers the same but changes
  // other paths differs. Compared as sorted lists (sessions from before diffs were kept: absent).
  const d = isObject(call.diff) && !call.diff.unavailable
    ? { added: [...(call.diff.added ?? [])].sort(), removed: [...(call.diff.removed ?? [])].sort(), changed: [...(call.diff.changed ?? [])].sort(), more: call.diff.more ?? 0 }
    : null;
  return { result: { event: r.event ?? null, status: r.status ?? null, data: r.data ?? null, code: r.error?.code ?? null }, ...(d ? { diff: d } : {}) };
}

/** Whether two outcomes (recordedOutcome) are the same. @param {Record<string, unknown>} a @param {Record<string, unknown>} b */
function sameOutcome(a, b) {
  // A session recorded before calls kept their diff is compared on its result alone.
  if (a && b && (!('diff' in a) || !('diff' in b))) {
    const { diff: _a, ...ra } = a;
    const { diff: _b, ...rb } = b;
    return JSON.stringify(ra) === JSON.stringify(rb);
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

export { recordedReply, recordedOutcome, sameOutcome };
