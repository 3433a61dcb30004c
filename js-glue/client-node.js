// client-node.js: the Node client (`slop-inspector/node`): a SLOP consumer without a browser, for
// testing providers that have no page, and their backends. It runs the extension's own
// Connection (extension/service-worker/connections.js) on the same wasm core, so reconnects,
// request timeouts, the frame log and every protocol rule are the extension's.

import { WebSocket } from 'ws';
import { loadSlopCoreNode } from './load-core-node.js';
import { Connection, connectionEvents } from '../extension/service-worker/connections.js';
import { Status } from '../extension/shared/messages.js';
import { providerApi, callProviderApi } from './provider-api.js';
import { SlopProvider, SlopTestError, SlopTestCode } from './provider-node.js';

export { SlopProvider, SlopTestError, SlopTestCode, stableText, matchesPartial } from './provider-node.js';

let corePromise = null;
/** The one core of this process (loaded on first use). */
function loadCore() {
  corePromise ??= loadSlopCoreNode();
  return corePromise;
}

/** The core ticks once a second for request timeouts, as the extension's worker does. */
const TICK_MS = 1000;

/** Statuses after which waiting longer does not help (the connection stopped or needs the user). */
const GIVE_UP = new Map([
  [Status.AUTH_FAILED, SlopTestCode.AUTH_FAILED],
  [Status.ERROR, SlopTestCode.PROTOCOL_ERROR],
]);
const NOBODY_THERE = new Map([...GIVE_UP, [Status.UNREACHABLE, SlopTestCode.UNREACHABLE]]);

export class SlopClient extends SlopProvider {
  #conn;
  #timer;
  #listeners = new Set();
  #onEvent;

  /** Use connect(). */
  constructor(conn, label) {
    super((method, ...args) => Promise.resolve().then(() => callProviderApi(conn, method, args)), label);
    this.#conn = conn;
    this.#timer = setInterval(() => conn.tick(Date.now()), TICK_MS);
    this.#timer.unref?.();
    this.#onEvent = (c, ev) => {
      if (c !== conn) return;
      for (const fn of this.#listeners) fn(ev);
    };
    connectionEvents.coreEvent.add(this.#onEvent);
  }

  /** The ws:// URL this client connects to. */
  get url() { return this.#conn.key; }

  /** Calls fn(event) for every core event from now on (patches included); returns a function that stops it. */
  onEvent(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Unsubscribes, closes the WebSocket and frees the core's consumer. Idempotent. */
  close() {
    clearInterval(this.#timer);
    connectionEvents.coreEvent.delete(this.#onEvent);
    this.#listeners.clear();
    this.#conn.dispose();
  }
}

/**
 * Connects to a WebSocket provider and waits until its first subscription (the whole tree,
 * unless `subscribe` says otherwise) is mirrored and live.
 * @param {string} url  ws:// or wss:// URL of the provider
 * @param {{token?: string, origin?: string, timeout?: number, waitForServer?: boolean}} [options]
 *   origin: the Origin header to send (a browser always sends one; providers that check it need
 *   it allowed). waitForServer: keep retrying while nothing answers (a server still starting)
 *   instead of failing at once
 * @returns {Promise<SlopClient>}
 */
export async function connect(url, { token = null, origin = undefined, timeout = 10_000, waitForServer = false } = {}) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new SlopTestError(SlopTestCode.UNREACHABLE, `"${url}" is not a URL (expected ws://host:port/path)`);
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
    throw new SlopTestError(SlopTestCode.UNREACHABLE, `"${url}" is not a ws:// or wss:// URL`);
  }
  const core = await loadCore();
  const conn = new Connection({
    tabId: 0, key: url, transport: { type: 'ws', url }, source: 'manual', pageUrl: url,
    target: { classification: 'same-origin', page_origin: null, target: url, approval_key: null },
    host: {
      core: () => core,
      tokenFor: async () => token,
      isApproved: async () => true,
      isDenied: async () => false,
      WebSocket: origin === undefined ? WebSocket : withOrigin(origin),
    },
  });
  const client = new SlopClient(conn, `provider ${url}`);
  try {
    await waitLive(conn, url, timeout, waitForServer ? GIVE_UP : NOBODY_THERE);
  } catch (e) {
    client.close();
    throw e;
  }
  return client;
}

/** A WebSocket class that sends this Origin header (the browser's API has no such option). */
function withOrigin(origin) {
  return class extends WebSocket {
    constructor(url, protocols) { super(url, protocols, { origin }); }
  };
}

/** Resolves when conn is live; rejects with a SlopTestError saying what happened instead. */
function waitLive(conn, url, timeout, giveUp) {
  return new Promise((resolve, reject) => {
    const done = (err) => {
      clearTimeout(timer);
      connectionEvents.change.delete(onChange);
      if (err) reject(err); else resolve();
    };
    const onChange = (c) => {
      if (c !== conn) return;
      if (conn.live) return done();
      const code = giveUp.get(conn.status);
      if (code) done(new SlopTestError(code, `provider ${url}: ${conn.status}: ${conn.message}`, { status: conn.status }));
    };
    const timer = setTimeout(() => {
      const info = providerApi.info(conn);
      const code = info.status === Status.UNREACHABLE ? SlopTestCode.UNREACHABLE : SlopTestCode.TIMEOUT;
      const sync = info.status === Status.CONNECTED ? ` (mirror: ${info.sync.state}${info.sync.reason ? `: ${info.sync.reason.message}` : ''})` : '';
      done(new SlopTestError(code, `provider ${url}: not live after ${timeout} ms: ${info.status}${sync}: ${info.message}`, { status: info.status }));
    }, timeout);
    connectionEvents.change.add(onChange);
    conn.start().catch((e) => done(new SlopTestError(SlopTestCode.UNREACHABLE, `provider ${url}: ${e.message}`)));
  });
}
