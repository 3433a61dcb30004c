// agent-requests.js: the Agent playground's runs, in the worker: AGENT_RUN, AGENT_REPLAY,
// AGENT_STOP, AGENT_CONFIRM, AGENT_MODELS. The loop is js-glue/agent.js's runAgent, on the tab's
// connections (connections.js) and their normal invoke path; the model's endpoint is a profile of
// Options (settings-store.js), whose key is read here and goes nowhere but into that endpoint's
// Authorization header: never into a message, a trace or a log. A run belongs to the port that
// started it, one at a time: closing the port stops it. What it does is pushed as it happens
// (Push.AGENT): the loop's own trace, each call with the history's steps around it and the diff
// it caused (built in js-glue/agent.js from the core's change sets, as in Node).

import { Request, Push, ErrorCode, Status } from '../shared/messages.js';
import { agentEndpointFor } from '../shared/settings-store.js';
import { hasOriginAccess } from '../shared/browser.js';
import { runAgent, replaySession, listModels, readSession, AgentError } from '../../js-glue/agent.js';
import { core } from './core.js';
import { MANUAL_TAB } from './tabs.js';
import { timelineOf } from './timelines.js';
import { post, perPort, RequestError, needConnection } from './panel-ports.js';

/** Providers one run may see. */
const MAX_PROVIDERS = 8;
/** A task's longest text (characters). */
const MAX_TASK = 16_000;
/** A session file's longest text (characters). */
const MAX_SESSION = 32 * 1024 * 1024;

/**
 * @typedef {object} AgentRun
 * @property {string} runId
 * @property {AbortController} abort
 * @property {Map<string, (allow: boolean) => void>} confirms   confirmId → the waiting call's answer
 */
/** @typedef {import('../../js-glue/agent.js').AgentSession} AgentSession */
/** @typedef {import('../../js-glue/agent.js').Turn} Turn */
/** @typedef {NonNullable<Parameters<typeof runAgent>[3]>} RunOptions  what the loop is given besides the sessions */
/** @typedef {import('./connections.js').Connection} Connection */
/** @typedef {import('./panel-ports.js').UiPort} UiPort */
const runOf = perPort(() => /** @type {{run: AgentRun|null}} */ ({ run: null }));
let runSeq = 0;
let confirmSeq = 0;

/** @param {import('./panel-ports.js').UiPort} ui @param {any} m @returns {import('./connections.js').Connection[]} */
function needLiveConnections(ui, m) {
  const keys = m.keys;
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_PROVIDERS || keys.some((k) => typeof k !== 'string')) {
    throw new RequestError(ErrorCode.BAD_REQUEST, `keys must list 1 to ${MAX_PROVIDERS} providers of this tab`);
  }
  const conns = [...new Set(keys)].map((k) => needConnection(ui, k));
  for (const c of conns) {
    const name = c.provider?.name ? `"${c.provider.name}"` : c.key;
    if (c.status !== Status.CONNECTED || !c.consumer || !c.primarySub) throw new RequestError(ErrorCode.BAD_STATE, `${name} is not connected: the agent acts on the live app only.`);
  }
  return conns;
}

/** The history kept of a connection shown on this port's tab, or null. @param {UiPort} ui @param {Connection} conn */
function timelineFor(ui, conn) {
  return (ui.tabId !== null ? timelineOf(ui.tabId, conn.key) : null) ?? timelineOf(MANUAL_TAB, conn.key);
}

/**
 * What runAgent sees of a connection: read through getters, since a reconnect gives the
 * connection a new consumer and subscription; the invoke is the connection's own.
 * @param {UiPort} ui @param {Connection} conn
 */
function sessionOf(ui, conn) {
  return {
    get consumer() { return conn.consumer; },
    get primarySub() { return conn.primarySub; },
    get provider() { return conn.provider; },
    key: conn.key,
    invoke: (/** @type {string} */ path, /** @type {string} */ action, /** @type {any} */ params) => conn.invoke(path, action, params),
    historyStep: () => timelineFor(ui, conn)?.steps.at(-1)?.step ?? null,
    // The core's events of this connection (the connections share one set of listeners): the
    // agent loop folds a call's patch events into its diff (js-glue/agent.js watchChanges).
    onCoreEvent: (/** @type {(ev: import('../../js-glue/core-contract.js').DrainedEvent) => void} */ fn) => {
      const l = (/** @type {unknown} */ from, /** @type {import('../../js-glue/core-contract.js').DrainedEvent} */ ev) => { if (from === conn) fn(ev); };
      conn.listeners.coreEvent.add(l);
      return () => conn.listeners.coreEvent.delete(l);
    },
  };
}

/**
 * Starts a run on this port, with the callbacks that push what happens.
 * @param {import('./panel-ports.js').UiPort} ui
 * @param {import('./connections.js').Connection[]} conns
 * @param {(sessions: AgentSession[], o: RunOptions) => Promise<object>} go  runAgent (with the endpoint, whose
 *   key stays in its closure and its request) or replaySession
 * @param {string|null} [baseUrl]  the endpoint's, for the hint when nothing answers there
 */
function startRun(ui, conns, go, baseUrl = null) {
  const state = runOf(ui);
  if (state.run) throw new RequestError(ErrorCode.BAD_STATE, 'A run is going on: stop it first.');
  const run = { runId: `run-${++runSeq}`, abort: new AbortController(), confirms: new Map() };
  state.run = run;
  const { runId } = run;
  /** @param {import('../shared/messages.js').AgentPush['event']} event @param {Record<string, any>} fields */
  const push = (event, fields) => post(ui, { type: Push.AGENT, runId, event, ...fields });
  const sessions = conns.map((c) => sessionOf(ui, c));
  go(sessions, {
    signal: run.abort.signal,
    core: core(),
    onSent: (turn) => push('sent', { turn: /** @type {Turn} */ (turn).i, sent: /** @type {Turn} */ (turn).sent }),
    onDelta: (text, turn) => push('delta', { turn, text }),
    confirm: (call) => new Promise((resolve) => {
      const confirmId = `c${++confirmSeq}`;
      run.confirms.set(confirmId, (/** @type {boolean} */ allow) => {
        run.confirms.delete(confirmId);
        resolve(allow);
      });
      push('confirm', { confirmId, call });
    }),
    // The trace, each call's diff included, is built by the loop itself (js-glue/agent.js): the
    // same object as the Node client's and an exported session's.
    onTurn: (turn) => push('turn', { turn }),
  }).then(
    async (/** @type {{error?: {kind: string, message: string}|null}} the loop's trace */ trace) => {
      if (trace.error?.kind === 'unreachable' && baseUrl) trace.error.message += await accessHint(baseUrl);
      push('done', { trace });
    },
    // runAgent answers its own failures in the trace; this is a bug, said as one.
    (e) => push('done', { trace: { turns: [], outcome: 'error', error: { kind: 'internal', message: `The agent loop failed: ${e?.message ?? e}` } } }),
  ).finally(() => {
    for (const answer of run.confirms.values()) answer(false);
    if (state.run === run) state.run = null;
  });
  return { runId };
}

/** The endpoint of a profile, with its key; refused in words when there is no such profile. @param {unknown} profileId */
async function needEndpoint(profileId) {
  if (typeof profileId !== 'string') throw new RequestError(ErrorCode.BAD_REQUEST, 'profileId must be a string');
  const endpoint = await agentEndpointFor(profileId);
  if (!endpoint) throw new RequestError(ErrorCode.BAD_STATE, 'No such model endpoint: add one in Options → Agent models.');
  return endpoint;
}

/**
 * What to add to "nothing answers" when the extension has no host access to the endpoint: the
 * browser then needs the server to allow the extension's origin (CORS), which some refuse
 * (Ollama unless OLLAMA_ORIGINS lets it; LM Studio with CORS off). '' when access is granted.
 * @param {string} baseUrl
 */
async function accessHint(baseUrl) {
  let origin;
  try {
    origin = new URL(baseUrl).origin;
  } catch {
    return '';
  }
  if (await hasOriginAccess(origin)) return '';
  return ` If it is running, it may refuse the extension's origin: allow SLOP Inspector to reach ${origin} (Options → Agent models → Save asks for it), or let the server accept browser extensions (Ollama: OLLAMA_ORIGINS=chrome-extension://*,moz-extension://*).`;
}

/** @type {import('./panel-ports.js').RequestTable} */
export const agentRequests = {
  requests: {
    async [Request.AGENT_RUN](ui, m) {
      if (typeof m.task !== 'string' || !m.task.trim()) throw new RequestError(ErrorCode.BAD_REQUEST, 'The task is empty: say what the agent should do.');
      if (m.task.length > MAX_TASK) throw new RequestError(ErrorCode.BAD_REQUEST, `The task is longer than ${MAX_TASK} characters.`);
      // null is not an integer: refused here too
      if (m.maxSteps !== undefined && !(Number.isInteger(m.maxSteps) && /** @type {number} */ (m.maxSteps) >= 1 && /** @type {number} */ (m.maxSteps) <= 100)) {
        throw new RequestError(ErrorCode.BAD_REQUEST, 'The step limit is a whole number from 1 to 100.');
      }
      const conns = needLiveConnections(ui, m);
      const endpoint = await needEndpoint(m.profileId);
      if (m.maxSteps !== undefined) endpoint.maxSteps = /** @type {number} checked above */ (m.maxSteps);
      return startRun(ui, needLiveConnections(ui, { keys: conns.map((c) => c.key) }), (sessions, o) => runAgent(sessions, endpoint, m.task, o), endpoint.baseUrl);
    },
    [Request.AGENT_REPLAY](ui, m) {
      if (typeof m.session !== 'string' || m.session.length > MAX_SESSION) throw new RequestError(ErrorCode.BAD_REQUEST, 'session must be the text of an exported session');
      try {
        readSession(m.session);
      } catch (e) {
        throw new RequestError(ErrorCode.BAD_REQUEST, /** @type {Error} */ (e).message);
      }
      const conns = needLiveConnections(ui, m);
      return startRun(ui, conns, (sessions, o) => replaySession(sessions, m.session, o));
    },
    [Request.AGENT_STOP](ui, m) {
      const { run } = runOf(ui);
      if (run && run.runId === m.runId) run.abort.abort();
      return {};
    },
    [Request.AGENT_CONFIRM](ui, m) {
      const answer = runOf(ui).run?.runId === m.runId ? /** @type {AgentRun} */ (runOf(ui).run).confirms.get(m.confirmId) : undefined;
      if (!answer) throw new RequestError(ErrorCode.NOT_FOUND, 'That call no longer waits for an answer.');
      answer(m.allow === true);
      return {};
    },
    async [Request.AGENT_MODELS](ui, m) {
      let endpoint;
      if (m.profileId !== undefined) {
        endpoint = await needEndpoint(m.profileId);
      } else {
        const kind = m.endpoint?.kind;
        if ((kind !== 'openai' && kind !== 'ollama') || typeof m.endpoint?.baseUrl !== 'string') {
          throw new RequestError(ErrorCode.BAD_REQUEST, 'endpoint {kind: "openai"|"ollama", baseUrl} or profileId is needed');
        }
        endpoint = { kind, baseUrl: m.endpoint.baseUrl, apiKey: null };
      }
      try {
        return { models: await listModels(endpoint, { signal: AbortSignal.timeout(15_000) }) };
      } catch (e) {
        if (!(e instanceof AgentError)) throw e;
        throw new RequestError(ErrorCode.BAD_STATE, e.message + (e.kind === 'unreachable' ? await accessHint(endpoint.baseUrl) : ''));
      }
    },
  },
  release(ui) {
    const state = runOf(ui);
    state.run?.abort.abort();
  },
};
