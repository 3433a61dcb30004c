// fake-browser.js: the service worker in Node, for the tests/node/worker-*.test.js files. A fake
// `chrome` (this extension's id, ports, storage that tells its changes, tabs, permissions, the
// badge) installed before the worker's modules are imported (extension/shared/browser.js picks
// the API up at import); ports as the browser hands them to the worker; a page whose content
// script announces a provider, with a real in-page provider behind the postMessage relay
// (the fixtures' state engine); and the whole worker, sw.js itself, started with the real core.
//
// Each test file runs in its own process, so the worker's module-level state (tabs, connections,
// histories) is the file's own. Deliveries between a port's two ends are asynchronous, as in a
// browser: a reply never runs inside the code that posted.

import { loadCore } from './helpers.js';
import { FromContent, ToContent, Request, Push, PROTOCOL_VERSION, PORTS } from '../../extension/shared/messages.js';

export const EXTENSION_ID = 'test-extension';
export const BASE = `chrome-extension://${EXTENSION_ID}/`;

/** A browser event: addListener, and what the test fires. */
function event() {
  /** @type {Set<Function>} */
  const fns = new Set();
  return { fns, addListener: (/** @type {Function} */ fn) => fns.add(fn), removeListener: (/** @type {Function} */ fn) => fns.delete(fn), fire: (/** @type {any[]} */ ...a) => { for (const fn of [...fns]) fn(...a); } };
}

const nextTask = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Installs a fake `chrome` global; returns what the tests drive and read.
 * @param {{nativeMessaging?: boolean}} [o]
 */
export function installFakeBrowser({ nativeMessaging = false } = {}) {
  const onConnect = event();
  const onChanged = event();
  const onRemoved = event();
  const permAdded = event();
  const permRemoved = event();
  /** tabId → {text, color} */
  const badges = new Map();

  /** A storage area whose changes reach storage.onChanged, asynchronously, as the browser's do. @param {string} name */
  const area = (name) => {
    /** @type {Map<string, any>} */
    const data = new Map();
    /** @param {Record<string, {oldValue?: any, newValue?: any}>} changes */
    const tell = (changes) => { if (Object.keys(changes).length) setImmediate(() => onChanged.fire(changes, name)); };
    return {
      data,
      /** @param {string|string[]|Record<string, any>|null} keys */
      async get(keys) {
        if (keys === null || keys === undefined) return Object.fromEntries([...data].map(([k, v]) => [k, structuredClone(v)]));
        const defaults = typeof keys === 'object' && !Array.isArray(keys) ? keys : {};
        const names = typeof keys === 'string' ? [keys] : Array.isArray(keys) ? keys : Object.keys(keys);
        return Object.fromEntries(names.flatMap((k) => (data.has(k) ? [[k, structuredClone(data.get(k))]] : k in defaults ? [[k, defaults[k]]] : [])));
      },
      /** @param {Record<string, any>} items */
      async set(items) {
        /** @type {Record<string, any>} */
        const changes = {};
        for (const [k, v] of Object.entries(items)) {
          changes[k] = { ...(data.has(k) ? { oldValue: data.get(k) } : {}), newValue: structuredClone(v) };
          data.set(k, structuredClone(v));
        }
        tell(changes);
      },
      /** @param {string|string[]} keys */
      async remove(keys) {
        /** @type {Record<string, any>} */
        const changes = {};
        for (const k of [keys].flat()) {
          if (data.has(k)) changes[k] = { oldValue: data.get(k) };
          data.delete(k);
        }
        tell(changes);
      },
    };
  };
  const local = area('local');
  const session = area('session');

  const chrome = {
    runtime: {
      id: EXTENSION_ID,
      getURL: (/** @type {string} */ p) => `${BASE}${p}`,
      onConnect,
      openOptionsPage: async () => {},
      lastError: undefined,
    },
    storage: { local, session, onChanged },
    tabs: { onRemoved, query: async () => [] },
    permissions: {
      contains: async (/** @type {any} */ p) => (p?.permissions?.includes('nativeMessaging') ? nativeMessaging : true),
      getAll: async () => ({ origins: ['http://*/*', 'https://*/*'], permissions: nativeMessaging ? ['nativeMessaging'] : [] }),
      request: async () => false,
      remove: async () => false,
      onAdded: permAdded,
      onRemoved: permRemoved,
    },
    action: {
      setBadgeText: async (/** @type {{tabId: number, text: string}} */ { tabId, text }) => { badges.set(tabId, { ...badges.get(tabId), text }); },
      setBadgeBackgroundColor: async (/** @type {{tabId: number, color: string}} */ { tabId, color }) => { badges.set(tabId, { ...badges.get(tabId), color }); },
    },
  };
  /** @type {any} */ (globalThis).chrome = chrome;
  return {
    chrome, badges, local, session,
    /** The browser hands a port to the worker's onConnect listeners. @param {any} port */
    connect: (port) => onConnect.fire(port),
    /** The user closed a tab. @param {number} tabId */
    removeTab: (tabId) => onRemoved.fire(tabId, {}),
  };
}

/**
 * A port as the worker sees it. What the worker posts is kept in `sent` (a batch as its pushes);
 * tell() posts to the worker, asynchronously; close() is the other end going away.
 * @param {{name: string, sender: object, onPost?: (m: any) => void}} o
 */
export function makePort({ name, sender, onPost }) {
  /** @type {any[]} */
  const sent = [];
  const onMessage = event();
  const onDisconnect = event();
  const port = {
    name, sender, sent, disconnected: false, closed: false,
    onMessage, onDisconnect,
    /** @param {any} m */
    postMessage(m) {
      if (port.disconnected || port.closed) throw new Error('Attempting to use a disconnected port object');
      const list = m.type === Push.BATCH ? m.pushes : [m];
      sent.push(...list);
      if (onPost) for (const x of list) setImmediate(() => onPost(x));
    },
    disconnect() { port.disconnected = true; },
    /** Posts msg to the worker (delivered in a later task). @param {any} msg */
    tell(msg) {
      setImmediate(() => { if (!port.closed && !port.disconnected) onMessage.fire(structuredClone(msg), port); });
    },
    /** The other end closed: the worker's onDisconnect listeners run. */
    close() {
      if (port.closed) return;
      port.closed = true;
      onDisconnect.fire(port);
    },
    /**
     * Resolves with the first message the worker sent that pred accepts (looking at those sent
     * since `from`), waiting up to `timeout` ms.
     * @param {(m: any) => unknown} pred @param {{from?: number, timeout?: number, what?: string}} [o]
     */
    async waitFor(pred, { from = 0, timeout = 3000, what = 'a message' } = {}) {
      const deadline = Date.now() + timeout;
      for (;;) {
        const hit = sent.slice(from).find(pred);
        if (hit) return hit;
        if (Date.now() >= deadline) throw new Error(`timed out waiting for ${what}; the port got: ${JSON.stringify(sent.map((m) => m.type))}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
  return port;
}

/**
 * @typedef {ReturnType<typeof installFakeBrowser>} FakeBrowser
 * @typedef {ReturnType<typeof makePort>} FakePort
 */

let requestIds = 0;

/**
 * A UI page's port (panel, popup, options), opened and introduced for tabId.
 * @param {FakeBrowser} fake @param {{page?: 'panel'|'popup'|'options', tabId?: number|null, counts?: boolean}} [o]
 */
export function openUi(fake, { page = 'panel', tabId = null, counts = false } = {}) {
  const names = { panel: PORTS.PANEL, popup: PORTS.POPUP, options: PORTS.OPTIONS };
  const port = makePort({ name: names[page], sender: { id: EXTENSION_ID, url: `${BASE}extension/${page}/${page}.html${tabId === null ? '' : `?tabId=${tabId}`}` } });
  fake.connect(port);
  port.tell({ type: Request.HELLO, v: PROTOCOL_VERSION, tabId, ...(counts ? { counts: true } : {}) });
  return Object.assign(port, {
    /**
     * Asks the worker; resolves with the reply ({ok, result} or {ok: false, error}).
     * @param {string} type @param {Record<string, any>} [fields] @param {number} [timeout]
     */
    async request(type, fields = {}, timeout = 5000) {
      const id = ++requestIds;
      port.tell({ type, id, ...fields });
      return port.waitFor((m) => m.type === Push.REPLY && m.id === id, { timeout, what: `the reply to ${type}` });
    },
    /** The request's result; throws with the reply's error. @param {string} type @param {Record<string, any>} [fields] */
    async ask(type, fields = {}) {
      const r = await port.request(type, fields);
      if (!r.ok) throw Object.assign(new Error(`${type}: ${r.error.code}: ${r.error.message}`), { code: r.error.code });
      return r.result;
    },
  });
}

/**
 * A tab showing `url` whose content script announces `metas`. With an engine (the fixtures'
 * StateEngine), the page runs that provider on its postMessage channel: what the worker sends
 * through the relay reaches the engine, what the engine says comes back as content/frame.
 * @param {FakeBrowser} fake
 * @param {{tabId: number, url?: string, metas?: string[], engine?: any, wellKnown?: {status: number, body?: string}}} o
 */
export function openPage(fake, { tabId, url = `http://app.test/page-${tabId}`, metas = [], engine = null, wellKnown = { status: 404 } }) {
  /** @type {any} */
  let session = null;
  /** What the worker sent the page's provider, in order. @type {any[]} */
  const received = [];
  const port = makePort({
    name: PORTS.CONTENT,
    sender: { id: EXTENSION_ID, url, frameId: 0, tab: { id: tabId, url } },
    onPost(m) {
      if (m.type === ToContent.PROBE_WELL_KNOWN) port.tell({ type: FromContent.WELL_KNOWN, url, ...wellKnown });
      else if (m.type === ToContent.PM_OPEN && engine && !session) {
        session = engine.connect((/** @type {any} */ message) => port.tell({ type: FromContent.FRAME, text: JSON.stringify(message) }), { label: 'window' });
      } else if (m.type === ToContent.PM_SEND && session) {
        received.push(m.message);
        session.receive(m.message);
      } else if (m.type === ToContent.PM_CLOSE && session) {
        session.close();
        session = null;
      }
    },
  });
  fake.connect(port);
  port.tell({ type: FromContent.HELLO, v: PROTOCOL_VERSION, url });
  port.tell({ type: FromContent.DISCOVERY, url, metas });
  return Object.assign(port, {
    tabId, url, received,
    /** The content script announces other meta tags (the page changed them). @param {string[]} next */
    announce(next) { port.tell({ type: FromContent.DISCOVERY, url, metas: next }); },
  });
}

/**
 * Starts the whole worker (sw.js) in this process with the real core; resolves once the core is
 * ready, with the fake browser and the worker's automation API. sw.js's 1-s tick would keep the
 * test process alive: intervals set while it loads are unref'd.
 * @param {{nativeMessaging?: boolean}} [o]
 */
export async function startWorker(o = {}) {
  const fake = installFakeBrowser(o);
  const setIntervalReal = globalThis.setInterval;
  /** @type {any} */ (globalThis).setInterval = (/** @type {any[]} */ ...a) => {
    const t = setIntervalReal(.../** @type {[any, any]} */ (a));
    t.unref();
    return t;
  };
  try {
    await import('../../extension/service-worker/sw.js');
  } finally {
    globalThis.setInterval = setIntervalReal;
  }
  const { provideCore } = await import('../../extension/service-worker/core.js');
  provideCore(await loadCore());
  /** @type {import('../../extension/service-worker/automation.js').AutomationApi} */
  const api = /** @type {any} */ (globalThis).slopInspector;
  await api.ready();
  return { fake, api };
}

/**
 * Polls fn until it returns a truthy value; resolves with it.
 * @template T @param {() => T|Promise<T>} fn @param {{timeout?: number, what?: string}} [o]
 * @returns {Promise<T>}
 */
export async function until(fn, { timeout = 3000, what = 'the condition' } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() >= deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export { nextTask };
