// client.js: the Node client (`slop-inspector/node`): a SLOP consumer without a browser, for
// testing providers that have no page, and their backends. It runs the consumer session the
// extension's connections run (consumer-session.js) on the same wasm core, so reconnects, request
// timeouts, the frame log and every protocol rule are the extension's.

import { WebSocket } from 'ws';
import { loadSlopCoreNode } from './load-core.js';
import { ConsumerSession } from '../consumer-session.js';
import { Status } from '../session-status.js';
import { providerApi, callProviderApi } from '../provider-api.js';
import { SlopProvider, SlopTestError, SlopTestCode } from './provider.js';
import { runAgent, replaySession, sessionText, listModels, endpointProblem } from '../agent.js';
import { BridgeLink, bridgePage, pickProvider, DEFAULT_BRIDGE } from './bridge-client.js';
import { openLocalTransport } from './local-transport.js';
import { scanLocalProviders, pickLocalProvider, providerDirs, descriptorMismatch } from './local-discovery.js';
import { localAddress, commandText } from '../provider-address.js';
import { finalFailure } from '../failure-text.js';
import { SubscriptionState } from '../core-contract.js';
import { restartOf } from '../event-text.js';
import { StateProfile, stateLeftOut } from '../state-profile.js';
import { AGENT_DEFAULTS } from '../agent-endpoint.js';

export { SlopProvider, SlopTestError, SlopTestCode, stableText, matchesPartial, stringifyExact, isExactNumber } from './provider.js';
/** An agent trace as an exported session's text (what the panel's Export saves, and replayAgent takes). */
export { sessionText };

/** @typedef {NonNullable<Parameters<typeof runAgent>[3]>} AgentRunOpts  runAgent's options */

let corePromise = null;
/** The one core of this process (loaded on first use). */
function loadCore() {
  corePromise ??= loadSlopCoreNode();
  return corePromise;
}

/** The core ticks once a second for request timeouts, as the extension's worker does. */
const TICK_MS = 1000;

/** Statuses after which waiting longer does not help (the connection stopped or needs the user). */
/** @type {Map<string, string>} */
const GIVE_UP = new Map([
  [Status.AUTH_FAILED, SlopTestCode.AUTH_FAILED],
  [Status.ERROR, SlopTestCode.PROTOCOL_ERROR],
]);
/** @type {Map<string, string>} */
const NOBODY_THERE = new Map([...GIVE_UP, [Status.UNREACHABLE, SlopTestCode.UNREACHABLE]]);

export class SlopClient extends SlopProvider {
  /**
   * What the client noticed and did not refuse, in words: a local:<id> descriptor whose provider
   * answered under another id (a stale descriptor, another app on its socket).
   * @type {string[]}
   */
  warnings = [];
  #conn;
  #timer;
  #listeners = new Set();
  #onEvent;
  #onClose;

  /** Use connect(). @param {ConsumerSession} conn @param {string} label @param {() => void} [onClose] */
  constructor(conn, label, onClose = () => {}) {
    super((method, ...args) => Promise.resolve().then(() => callProviderApi(conn, method, args)), label);
    this.#conn = conn;
    this.#onClose = onClose;
    this.#timer = setInterval(() => conn.tick(Date.now()), TICK_MS);
    this.#timer.unref?.();
    this.#onEvent = (/** @type {unknown} */ c, /** @type {object} */ ev) => {
      for (const fn of this.#listeners) fn(ev);
    };
    conn.listeners.coreEvent.add(this.#onEvent);
  }

  /** The ws:// URL this client connects to (through a desktop bridge: the bridge's). */
  get url() { return this.#conn.key; }

  /** Calls fn(event) for every core event from now on (patches included); returns a function that stops it. @param {(event: any) => void} fn  (types: client.d.ts) */
  onEvent(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /**
   * Calls fn(restart) each time the provider restarts from now on (a new process whose version
   * went back: restarts() says the same), after the mirror holds its new tree; returns a
   * function that stops it.
   * @param {(restart: import('../event-text.js').Restart) => void} fn
   */
  onRestart(fn) {
    return this.onEvent((/** @type {object} */ ev) => {
      const r = restartOf(ev);
      if (r) fn({ ...r, at: Date.now() });
    });
  }

  /**
   * An LLM agent on this provider (agent.js): it sees the core's agent view (state tail, tools) and
   * acts through this connection's invokes. run(task) resolves with the trace, whatever happened.
   * A dangerous affordance runs only with allowDangerous or a confirm callback that says yes.
   * @param {import('./client.js').AgentOptions} options  (the types: client.d.ts)
   * @returns {import('./client.js').Agent}
   */
  agent(options) {
    const conn = this.#conn;
    const { endpoint, model, maxSteps, allowDangerous = false, temperature, maxStateBytes, maxTools, firstByteMs, idleMs, runMs } = options ?? /** @type {any} */ ({});
    /** @type {Record<string, unknown>} */
    const config = { ...endpoint, model };
    for (const [k, v] of Object.entries({ maxSteps, temperature, maxStateBytes, maxTools, firstByteMs, idleMs, runMs })) if (v !== undefined) config[k] = v;
    const problem = endpointProblem(config);
    if (problem) throw new TypeError(`agent(): ${problem}`);
    const endpointConfig = /** @type {any} */ (config);
    return Object.freeze({
      // The options and the trace as client.d.ts declares them (the loop's own types are looser).
      run: (/** @type {string} */ task, /** @type {import('./client.js').AgentRunOptions} */ o = {}) => /** @type {Promise<import('./client.js').AgentTrace>} */ (
        runAgent(conn, endpointConfig, task, /** @type {AgentRunOpts} */ ({ ...o, confirm: o.confirm ?? options.confirm, allowDangerous }))),
      models: () => listModels(endpointConfig),
    });
  }

  /**
   * Plays an exported agent session (the panel's Export, or sessionText(trace)) against this
   * provider as it is now, without a model: the recorded replies in order, each call's result
   * compared with the recorded one (call.replay.same). A CI check that the app still answers a
   * recorded model as it did. Rejects with an Error in words for a text that is not a session.
   * @param {string} session @param {import('./client.js').AgentRunOptions & {allowDangerous?: boolean}} [o]
   */
  async replayAgent(session, o = {}) {
    return replaySession(this.#conn, session, /** @type {AgentRunOpts} */ (o)); // as in agent()
  }

  /**
   * What the state costs (state-profile.js): one sample now, then one a second for `seconds`,
   * every text's tokens counted (o200k_base), and the report: totals, the agent view's budgets,
   * the top subtrees down to `depth` by `by`, the churn table, the hints. The traffic window is
   * the whole span sampled (10 s when seconds is 0). Rejects with a SlopTestError "not_found"
   * when the subscription has no mirror.
   * @param {import('./client.js').ProfileOptions} [o]  (types: client.d.ts)
   * @returns {Promise<import('../profile-measures.js').ProfileReport>}
   */
  async profile({ seconds = 0, by = 'tokens', depth = 2, top = 20, maxStateBytes = AGENT_DEFAULTS.maxStateBytes,
    maxTools = AGENT_DEFAULTS.maxTools, sub = undefined } = {}) {
    if (!(seconds >= 0)) throw new TypeError('profile(): seconds must be a number >= 0');
    const conn = this.#conn;
    // Loaded on first use: the encoding's tables take a while, and only the profile needs them.
    const { countTokens, TOKENIZER } = await import('./tokenizer.js');
    const profile = new StateProfile({ countTokens, tokenizer: TOKENIZER, maxStateBytes, maxTools, windowSeconds: seconds > 0 ? seconds : 10 });
    const subId = sub ?? conn.primarySub;
    const sample = () => {
      const consumer = conn.consumer;
      const text = consumer && subId ? consumer.profileText(subId, profile.since) : null;
      if (text === null) throw new SlopTestError(SlopTestCode.NOT_FOUND, `${this.label}: the subscription ${subId ?? '(none)'} has no mirror to profile`);
      const c = /** @type {import('../slop-core.js').SlopConsumerT} */ (consumer);
      const tools = profile.needsTools ? c.tools(subId, null, 0, 0) : null;
      const offered = tools ? c.tools(subId, null, 0, maxTools) : null;
      const leftOut = stateLeftOut(conn.host.core(), c, /** @type {string} checked above */ (subId), conn.primarySub, maxStateBytes);
      profile.ingest({ at: Date.now(), profile: JSON.parse(text), tools, offered, leftOut });
    };
    const countAll = async () => {
      while (!profile.countPending({ budgetMs: 20 })) await new Promise((r) => setImmediate(r)); // the socket's frames go on
    };
    const start = Date.now();
    sample();
    await countAll();
    for (let k = 1; k <= Math.floor(seconds); k++) {
      await new Promise((r) => setTimeout(r, Math.max(0, start + k * 1000 - Date.now())));
      sample();
      await countAll();
    }
    return profile.report({ by, depth, top });
  }

  /** Unsubscribes, closes the WebSocket (the relay, through a bridge) and frees the core's consumer. Idempotent. */
  close() {
    clearInterval(this.#timer);
    this.#conn.listeners.coreEvent.delete(this.#onEvent);
    this.#listeners.clear();
    this.#conn.dispose();
    this.#onClose();
  }
}

/**
 * Connects to a WebSocket provider and waits until its first subscription (the whole tree,
 * unless `subscribe` says otherwise) is mirrored and live. A provider that connects but does not
 * go live rejects with a SlopTestError whose `conformance` is the core's report (the rule it
 * broke, and `not_live`: why).
 * With an object first, a provider a desktop bridge shares (a browser tab's): connectThroughBridge.
 * @param {string|BridgeConnectOptions} url  ws:// or wss:// URL of the provider
 * @param {{token?: string|null, origin?: string, timeout?: number, waitForServer?: boolean,
 *   requestTimeout?: number, numbers?: 'exact'|'verbatim'}} [options]
 *   origin: the Origin header to send (a browser always sends one; providers that check it need
 *   it allowed). waitForServer: keep retrying while nothing answers (a server still starting)
 *   instead of failing at once. requestTimeout: how long a request (invoke, query, subscribe)
 *   may wait for its answer (default: the core's, 30 s); past it, the core's "timeout".
 *   numbers: 'exact' (default) returns numbers as numbers, but an integer a double cannot hold
 *   as an ExactNumber ({rawJSON: digits}); 'verbatim' also keeps -0, 1.50, 1E5... as written,
 *   for writing out with stringifyExact (exact-json.js)
 * @returns {Promise<SlopClient>}
 */
export async function connect(url, options = {}) {
  // {command: [...]}: a stdio provider the caller names itself; {bridge?, provider}: a bridge's.
  if (url !== null && typeof url === 'object' && !('command' in url)) return connectThroughBridge(url);
  const { conn, client, descriptor } = await open(/** @type {string|{command: string[]}} */ (url), options); // not a bridge's: returned above
  const { timeout = 10_000, waitForServer = false } = options;
  await goLive(conn, client, conn.address, timeout, waitForServer ? GIVE_UP : NOBODY_THERE);
  const mismatch = descriptor ? descriptorMismatch(descriptor, conn.provider) : null;
  if (mismatch) client.warnings.push(mismatch);
  return client;
}

/**
 * Resolves with client once conn is live; else closes it and rejects, with the core's report when the provider answered.
 * @param {ConsumerSession} conn @param {SlopClient} client @param {string} label @param {number} timeout @param {Map<string, string>} giveUp
 */
async function goLive(conn, client, label, timeout, giveUp) {
  try {
    await waitLive(conn, label, timeout, giveUp);
  } catch (e) {
    if (conn.consumer && e instanceof SlopTestError) {
      const report = conn.consumer.conformance();
      if (report.frames > 0) e.conformance = report; // it answered: what it broke is known
    }
    client.close();
    throw e;
  }
  return client;
}

/**
 * @typedef {object} BridgeConnectOptions
 * @property {string} [bridge]   the bridge's ws:// URL (default ws://127.0.0.1:9339/slop-bridge)
 * @property {string} provider   its providerKey ("12:postmessage"), or the provider's name or id
 * @property {number} [timeout]  for the bridge, then for the mirror to go live (ms, default 10000)
 * @property {string|null} [token]  a WebSocket provider's token (it is dialled directly)
 * @property {string} [origin]   the Origin header for a WebSocket provider
 * @property {number} [requestTimeout]
 * @property {'exact'|'verbatim'} [numbers]
 */

/**
 * A provider shared by a desktop bridge (`slop-inspector bridge`, or another bridge): a relayed
 * (postMessage) one runs the consumer session over the bridge's relay, as the extension's own
 * in-page connections run it over the page; a WebSocket one is dialled at the URL the bridge
 * announced. Rejects with SlopTestError: "unreachable" (no bridge), "no_provider" (no such
 * provider: the message lists what the bridge shares), "ambiguous" (two share that name), and
 * what connect() rejects with.
 * @param {BridgeConnectOptions} o @returns {Promise<SlopClient>}
 */
async function connectThroughBridge(o) {
  const { bridge = DEFAULT_BRIDGE, provider: wanted, timeout = 10_000, requestTimeout = 0, numbers = 'exact' } = o;
  if (typeof wanted !== 'string' || !wanted) throw new TypeError('connect({bridge, provider}): provider must be a providerKey, or a provider\'s name or id');
  const link = await BridgeLink.open(bridge, timeout);
  let found;
  try {
    found = pickProvider(link, wanted);
  } catch (e) {
    link.close();
    throw e;
  }
  if (found.provider.transport === 'ws' || (found.provider.transport !== 'postmessage' && typeof found.provider.url === 'string')) {
    link.close();
    if (typeof found.provider.url !== 'string') throw new SlopTestError(SlopTestCode.UNREACHABLE, `bridge ${bridge}: the WebSocket provider ${found.providerKey} was announced without a url`);
    const { bridge: _b, provider: _p, ...rest } = o;
    return connect(found.provider.url, rest);
  }
  const key = found.providerKey;
  const core = withConsumerOptions(await loadCore(), { requestTimeout, numbers: numbers === 'verbatim' ? 'verbatim' : 'exact' });
  const channel = bridgePage(link, key);
  const conn = new ConsumerSession({
    key: bridge, transport: { type: 'postmessage' }, page: channel.page,
    host: { core: () => core, tokenFor: async () => null },
  });
  const label = `"${found.provider.name}" (${key}) through the bridge ${bridge}`;
  link.onRelay(key, (text) => { if (!channel.isEcho(text)) conn.receive(text); },
    (why) => { if (!conn.disposed) conn.halt(Status.UNREACHABLE, why); });
  const client = new SlopClient(conn, `provider ${label}`, () => link.close());
  return goLive(conn, client, label, timeout, NOBODY_THERE);
}

/**
 * What a desktop bridge shares: its provider-available announcements (the replay it sends a new
 * client). Rejects with SlopTestError "unreachable" when no bridge answers.
 * @param {{bridge?: string, timeout?: number}} [o]
 * @returns {Promise<import('./bridge-client.js').BridgeProviderInfo[]>}
 */
export async function bridgeProviders({ bridge = DEFAULT_BRIDGE, timeout = 10_000 } = {}) {
  const link = await BridgeLink.open(bridge, timeout);
  link.close();
  return [...link.providers.values()];
}

/**
 * Judges a provider against the core's rules whether or not it goes live: connects, waits until
 * it is live or cannot be (a MUST rule broken before, a fatal error) or `timeout`, then, when
 * live, watches for `watch` ms, invokes one affordance and then checks for drift if asked. The core's
 * request timeout is `timeout`, so "no snapshot" and "no result" are judged within it.
 * Rejects with a SlopTestError only when nothing could be judged (nothing answered, the token
 * was refused).
 * @param {string} url
 * @param {{token?: string|null, origin?: string, timeout?: number, watch?: number, drift?: boolean,
 *   invoke?: {path: string, action: string, params?: any}|null}} [options]
 * @returns {Promise<{report: object, provider: object|null, drift?: object,
 *   invoke?: {path: string, action: string, requestId: string, event: object}}>}
 *   report: the core's (slop_consumer_conformance), `live` false and `not_live` when it never went live
 */
export async function checkConformance(url, { timeout = 10_000, watch = 2000, drift = false, invoke = null, ...rest } = {}) {
  const { conn, client } = await open(url, { ...rest, requestTimeout: timeout });
  try {
    const live = await waitSettled(conn, conn.address, timeout);
    /** @type {{invoke?: {path: string, action: string, requestId: string, event: object}, drift?: object}} */
    const out = {};
    if (live) {
      await new Promise((r) => setTimeout(r, Math.max(0, watch)));
      // The invoke first: the drift check then judges the state the invoke left (its patches come
      // before its result), which is where a provider that forgets to send one is caught.
      if (invoke) {
        const { requestId, event } = await conn.invoke(invoke.path, invoke.action, invoke.params);
        out.invoke = { path: invoke.path, action: invoke.action, requestId, event };
      }
      if (drift) out.drift = (await conn.checkDrift()).event;
    }
    conn.tick(Date.now());
    // open() made the consumer: conn.consumer is set.
    return { report: /** @type {import('../slop-core.js').SlopConsumerT} */ (conn.consumer).conformance(), provider: conn.provider ?? null, ...out };
  } finally {
    client.close();
  }
}

/**
 * A local provider's transport from its address: `unix:<path>`, `local:<id or name>` (its
 * descriptor in the provider directories), or {type: 'stdio', command}. A descriptor's stdio
 * command runs only when runCommand is true or is that exact argv.
 * @param {any} address @param {{runCommand?: boolean|string[], dirs?: string[]}} o
 * @returns {Promise<{transport: {type: 'unix', path: string}|{type: 'stdio', command: string[]}|{type: 'ws', url: string}, label: string,
 *   descriptor?: import('./local-discovery.js').LocalProvider}|null>}
 *   null: not a local address; descriptor: the one a local:<id> address was read from
 */
async function localTransportOf(address, { runCommand = false, dirs = providerDirs() } = {}) {
  if (address && typeof address === 'object' && 'command' in address) {
    const command = address.command;
    if (!Array.isArray(command) || !command.length || command.some((a) => typeof a !== 'string') || !command[0]) {
      throw new TypeError('connect({command}): command must be a non-empty array of strings (the program and its arguments)');
    }
    return { transport: { type: 'stdio', command: [...command] }, label: localAddress({ type: 'stdio', command }) };
  }
  if (typeof address !== 'string') return null;
  if (address.startsWith('unix:')) {
    const path = address.slice(5);
    if (!path.startsWith('/')) throw new SlopTestError(SlopTestCode.UNREACHABLE, `"${address}": a unix: address is the socket's absolute path (unix:/tmp/slop/app.sock)`);
    return { transport: { type: 'unix', path }, label: address };
  }
  if (!address.startsWith('local:')) return null;
  const scan = scanLocalProviders(await loadCore(), { dirs });
  let p;
  try {
    p = pickLocalProvider(scan, address.slice(6));
  } catch (e) {
    // The words name an ignored descriptor under that id and its fix; ignored and fixAll are for tools.
    throw new SlopTestError(SlopTestCode.NO_PROVIDER, String(/** @type {any} */ (e).message),
      { refused: scan.refused, ignored: /** @type {any} */ (e).ignored ?? [], fixAll: scan.fixAll });
  }
  const t = p.transport;
  const label = `"${p.name}" (${address}, ${p.file})`;
  if (t.type === 'stdio') {
    const approved = runCommand === true || (Array.isArray(runCommand) && runCommand.length === t.command.length && runCommand.every((a, i) => a === t.command[i]));
    if (!approved) {
      throw new SlopTestError(SlopTestCode.PENDING_APPROVAL,
        `local provider ${label} runs the command ${commandText(t.command)}: it runs only when you approve that command (the CLI's --yes; connect(address, {runCommand: [...the argv]}))`,
        { command: t.command });
    }
  }
  return { transport: t, label, descriptor: p };
}

/**
 * The Connection and its client, not yet started. @param {string|{command: string[]}} url
 * @param {{token?: string|null, origin?: string, requestTimeout?: number, surface?: string, numbers?: string, runCommand?: boolean|string[], dirs?: string[]}} [o]
 */
async function open(url, { token = null, origin = undefined, requestTimeout = 0, surface = 'node', numbers = 'exact', runCommand = false, dirs = undefined } = {}) {
  const local = await localTransportOf(url, { runCommand, ...(dirs ? { dirs } : {}) });
  const descriptor = local?.descriptor ?? null;
  if (local && local.transport.type === 'ws') url = local.transport.url;
  else if (local) {
    const core = withConsumerOptions(await loadCore(), { requestTimeout, numbers: numbers === 'verbatim' ? 'verbatim' : 'exact' });
    const transport = /** @type {{type: 'unix', path: string}|{type: 'stdio', command: string[]}} */ (local.transport);
    const conn = new ConsumerSession({
      key: localAddress(transport), transport,
      host: { core: () => core, tokenFor: async () => null, surface: /** @type {'node'|'cli'} */ (surface), openStream: (t, h) => openLocalTransport(t, h) },
    });
    return { conn, client: new SlopClient(conn, `provider ${local.label}`), descriptor };
  }
  let parsed;
  try {
    parsed = new URL(/** @type {string} */ (url)); // a {command} address is local: returned above
  } catch {
    throw new SlopTestError(SlopTestCode.UNREACHABLE, `"${url}" is not a URL (expected ws://host:port/path)`);
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
    throw new SlopTestError(SlopTestCode.UNREACHABLE, `"${url}" is not a ws:// or wss:// URL`);
  }
  const core = withConsumerOptions(await loadCore(), { requestTimeout, numbers: numbers === 'verbatim' ? 'verbatim' : 'exact' });
  // ws's class has what the session uses of a browser WebSocket (its on* handlers, send, close,
  // protocol, readyState), not the DOM's EventTarget.
  const Ws = /** @type {typeof globalThis.WebSocket} */ (/** @type {unknown} */ (origin === undefined ? WebSocket : withOrigin(origin)));
  const conn = new ConsumerSession({
    key: /** @type {string} */ (url), transport: { type: 'ws', url: /** @type {string} */ (url) },
    host: { core: () => core, tokenFor: async () => token, WebSocket: Ws, surface: /** @type {'node'|'cli'} */ (surface) },
  });
  return { conn, client: new SlopClient(conn, `provider ${url}`), descriptor };
}

/**
 * The core with consumers whose requests time out after requestTimeout ms (0: the core's default)
 * and whose JSON is read as `numbers` says (slop-core.js SlopConsumer).
 * @param {any} core @param {{requestTimeout?: number, numbers?: 'exact'|'verbatim'}} o
 */
function withConsumerOptions(core, { requestTimeout = 0, numbers = 'exact' }) {
  const Base = core.SlopConsumer;
  const limits = requestTimeout ? { requestTimeoutMs: requestTimeout } : {};
  return {
    ...core,
    SlopConsumer: class extends Base {
      constructor(/** @type {{limits?: object}} */ options = {}) { super({ ...options, numbers, limits: { ...options.limits, ...limits } }); }
    },
  };
}

/**
 * Resolves true when conn is live, false when it will not be (a MUST rule broken before it went
 * live, a fatal protocol error) or after timeout plus a tick (the core's request timeout, set to
 * timeout, judges a missing hello or snapshot by then). Rejects when nothing answered or the token
 * was refused: nothing to judge.
 * @param {ConsumerSession} conn @param {string} url @param {number} timeout @returns {Promise<boolean>}
 */
function waitSettled(conn, url, timeout) {
  return new Promise((resolve, reject) => {
    /** @param {Error|null} err @param {boolean} [live]  given when err is null */
    const done = (err, live) => {
      clearTimeout(timer);
      conn.listeners.change.delete(onChange);
      conn.listeners.coreEvent.delete(onChange);
      if (err) reject(err); else resolve(/** @type {boolean} */ (live));
    };
    const judged = () => conn.consumer && conn.consumer.conformance().frames > 0;
    const onChange = () => {
      if (conn.live) return done(null, true);
      if (conn.status === Status.ERROR && judged()) return done(null, false);
      if (NOBODY_THERE.has(conn.status) && !judged()) return done(failed(conn, url, NOBODY_THERE.get(conn.status)));
      // A MUST finding ends the wait only when it keeps the provider from going live (its hello
      // refused, its snapshot failed): one it goes live despite (a numeric slop_version) is judged
      // with the rest of its run, and --invoke still sent.
      if (conn.consumer && conn.consumer.conformance().must > 0 && (conn.status !== Status.CONNECTED || conn.sync.state === SubscriptionState.FAILED)) done(null, false);
    };
    const timer = setTimeout(() => {
      if (judged()) return done(null, conn.live);
      done(new SlopTestError(SlopTestCode.TIMEOUT, `provider ${url}: nothing answered in ${timeout} ms: ${conn.status}: ${conn.message}`, { status: conn.status }));
    }, timeout + TICK_MS + 500);
    conn.listeners.change.add(onChange);
    conn.listeners.coreEvent.add(onChange);
    conn.start().catch((/** @type {Error} */ e) => done(new SlopTestError(SlopTestCode.UNREACHABLE, `provider ${url}: ${e.message}`)));
  });
}

/**
 * The error for a connection that failed: the session's failure (failure-text.js: the cause in the
 * words every surface uses, and its code) when it knows one, else its status and message.
 * @param {ConsumerSession} conn @param {string} url @param {any} code the status's code (a SlopTestCode)
 */
function failed(conn, url, code) {
  const f = finalFailure(conn.failure, conn.address, !conn.provider);
  return f
    ? new SlopTestError(/** @type {any} */ (f.code), `provider ${url}: ${f.message}`, { status: conn.status })
    : new SlopTestError(code, `provider ${url}: ${conn.status}: ${conn.message}`, { status: conn.status });
}

/** A WebSocket class that sends this Origin header (the browser's API has no such option). @param {string} origin */
function withOrigin(origin) {
  return class extends WebSocket {
    /** @param {string} url @param {string|string[]} [protocols] */
    constructor(url, protocols) { super(url, protocols, { origin }); }
  };
}

/**
 * Resolves when conn is live; rejects with a SlopTestError saying what happened instead.
 * @param {ConsumerSession} conn @param {string} url @param {number} timeout @param {Map<string, string>} giveUp @returns {Promise<void>}
 */
function waitLive(conn, url, timeout, giveUp) {
  return new Promise((resolve, reject) => {
    /** @param {Error} [err] */
    const done = (err) => {
      clearTimeout(timer);
      conn.listeners.change.delete(onChange);
      if (err) reject(err); else resolve();
    };
    const onChange = () => {
      if (conn.live) return done();
      // Not a SLOP provider: waiting longer does not help.
      if (conn.failure?.code === 'protocol_error') return done(failed(conn, url, SlopTestCode.PROTOCOL_ERROR));
      const code = giveUp.get(conn.status);
      if (code) done(failed(conn, url, code));
    };
    const timer = setTimeout(() => {
      const info = providerApi.info(conn);
      if (conn.failure && info.status !== Status.CONNECTED) return done(failed(conn, url, SlopTestCode.TIMEOUT));
      const code = info.status === Status.UNREACHABLE ? SlopTestCode.UNREACHABLE : SlopTestCode.TIMEOUT;
      const sync = info.status === Status.CONNECTED ? ` (mirror: ${info.sync.state}${info.sync.reason ? `: ${info.sync.reason.message}` : ''})` : '';
      done(new SlopTestError(code, `provider ${url}: not live after ${timeout} ms: ${info.status}${sync}: ${info.message}`, { status: info.status }));
    }, timeout);
    conn.listeners.change.add(onChange);
    conn.start().catch((/** @type {Error} */ e) => done(new SlopTestError(SlopTestCode.UNREACHABLE, `provider ${url}: ${e.message}`)));
  });
}
