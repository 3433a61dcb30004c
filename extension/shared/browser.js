// browser.js: the only module that touches the WebExtension API (`browser` / `chrome`).
//
// Everything is feature-tested, never user-agent sniffed. Each workaround names the browser,
// the version it was seen on and the reason. The content script (a classic script that cannot
// import modules) is the one exception: it carries its own three-line accessor.

import { catalogued, ToHost } from './messages.js';

/**
 * `browser` in Firefox (promise-based), `chrome` in Chromium (MV3: promise-based too). Outside an
 * extension (a Node test importing a worker module) there is none until the test installs one
 * (a fake `chrome` global before the import): importing works, and a call that needs the API
 * fails in words (outside).
 */
const g = /** @type {any} the WebExtension API has no types here */ (globalThis);
const found = g.browser?.runtime?.id ? g.browser : g.chrome;
const api = found?.runtime?.id ? found : outside();

/** An API whose every use says there is none (importing this module outside an extension works). */
function outside() {
  const fail = () => { throw new Error('browser.js: not running in an extension context'); };
  /** @type {ProxyHandler<any>} */
  const handler = { get: (_, key) => (key === 'then' ? undefined : new Proxy(fail, handler)), apply: fail };
  return new Proxy(fail, handler);
}

/** This extension's id ('' outside an extension). */
export const extensionId = found?.runtime?.id ? String(api.runtime.id) : '';
/** "chrome-extension://<id>/" or "moz-extension://<uuid>/" ('' outside an extension) */
export const extensionBase = found?.runtime?.id ? api.runtime.getURL('') : '';

// ------------------------------------------------------------------------------------ runtime

/**
 * @typedef {object} MessageSender   runtime.MessageSender: who opened a port
 * @property {string} [id]        the extension's id
 * @property {string} [url]
 * @property {number} [frameId]
 * @property {{id?: number, url?: string}} [tab]   set for a content script
 */
/**
 * @typedef {object} Port   runtime.Port, in both browsers
 * @property {string} name
 * @property {MessageSender} [sender]
 * @property {(message: any) => void} postMessage
 * @property {() => void} disconnect
 * @property {{addListener(fn: (message: any, port: Port) => void): void}} onMessage
 * @property {{addListener(fn: (port: Port) => void): void}} onDisconnect
 */

/**
 * Listener for ports other contexts open to this one. Register at top level (service worker).
 * @param {(port: Port) => void} fn
 */
export function onConnect(fn) {
  api.runtime.onConnect.addListener(fn);
}

/** Opens a port to the service worker. @param {string} name @returns {Port} */
export function connect(name) {
  return api.runtime.connect({ name });
}

/**
 * The sender of a port is this extension's own page (not a content script, not another extension).
 * @param {MessageSender|undefined} sender @returns {boolean}
 */
export function isOwnExtensionPage(sender) {
  return sender?.id === extensionId && typeof sender.url === 'string' && sender.url.startsWith(extensionBase);
}

/**
 * Which of this extension's UI pages a sender is ('panel', 'popup', 'options': messages.js
 * UiPage), from the page's URL; null for anything else.
 * @param {MessageSender|undefined} sender @returns {string|null}
 */
export function uiPageOf(sender) {
  if (!isOwnExtensionPage(sender)) return null;
  const path = new URL(/** @type {string} */ (sender?.url)).pathname;
  const m = /\/extension\/(panel|popup|options)\/\1\.html$/.exec(path);
  return m ? m[1] : null;
}

/**
 * The sender of a port is this extension's content script in the top frame of a tab. Firefox does
 * not set sender.origin (Chrome ≥ 80 does), so the check uses sender.url and frameId, which both
 * browsers set.
 * @param {MessageSender|undefined} sender
 * @returns {sender is MessageSender & {tab: {id: number}, url: string}}
 */
export function isOwnContentScript(sender) {
  return sender?.id === extensionId && Number.isInteger(sender.tab?.id) && sender.frameId === 0 &&
    typeof sender.url === 'string' && /^https?:/.test(sender.url);
}

// ------------------------------------------------------------------------------------ storage

/**
 * @typedef {object} StorageArea   storage.local / storage.session, promise-based
 * @property {(keys: string|string[]|null) => Promise<Record<string, any>>} get
 * @property {(items: Record<string, any>) => Promise<void>} set
 * @property {(keys: string|string[]) => Promise<void>} remove
 */

/** @type {StorageArea} */
export const storageLocal = {
  get: (keys) => api.storage.local.get(keys),
  set: (items) => api.storage.local.set(items),
  remove: (keys) => api.storage.local.remove(keys),
};

// storage.session exists in Chrome ≥ 102 and Firefox ≥ 115. Without it, keep session data in
// memory (it then lives only as long as this context, which is the documented fallback).
const memorySession = new Map();
/** @type {StorageArea} */
export const storageSession = found?.runtime?.id && api.storage.session
  ? {
      get: (keys) => api.storage.session.get(keys),
      set: (items) => api.storage.session.set(items),
      remove: (keys) => api.storage.session.remove(keys),
    }
  : {
      get: async (keys) => Object.fromEntries((keys === null ? [...memorySession.keys()] : [keys].flat()).filter((k) => memorySession.has(k)).map((k) => [k, memorySession.get(k)])),
      set: async (items) => { for (const [k, v] of Object.entries(items)) memorySession.set(k, v); },
      remove: async (keys) => { for (const k of [keys].flat()) memorySession.delete(k); },
    };

/**
 * fn(changes, areaName) for every storage change.
 * @param {(changes: Record<string, {oldValue?: any, newValue?: any}>, areaName: string) => void} fn
 */
export function onStorageChanged(fn) {
  api.storage.onChanged.addListener(fn);
}

// --------------------------------------------------------------------------------------- tabs

/** @param {(tabId: number) => void} fn */
export function onTabRemoved(fn) {
  api.tabs.onRemoved.addListener(fn);
}

/**
 * The id of the active tab of the current window (no "tabs" permission needed for the id).
 * @returns {Promise<number|null>}
 */
export async function activeTabId() {
  const [tab] = await api.tabs.query({ active: true, currentWindow: true });
  return tab?.id ?? null;
}

// ------------------------------------------------------------------------------ site access

/** The pages the content script reads (manifest content_scripts.matches). */
const PAGE_ORIGINS = ['http://*/*', 'https://*/*'];

/**
 * Whether the extension may read web pages. Firefox (MV3) lets the user withhold or revoke it
 * ("Access your data for all websites" in the add-on's permissions); then the content script
 * does not run and the extension finds nothing. Chrome grants it at install, though its users
 * may restrict site access too. Both answer permissions.contains the same way.
 * @returns {Promise<boolean>}
 */
export async function hasSiteAccess() {
  try {
    return await api.permissions.contains({ origins: PAGE_ORIGINS });
  } catch {
    return true; // cannot tell: say nothing rather than a wrong warning
  }
}

/** Asks the user for it (call it from a click: the browser shows its own prompt). @returns {Promise<boolean>} */
export function requestSiteAccess() {
  return api.permissions.request({ origins: PAGE_ORIGINS });
}

/**
 * Whether the extension may fetch from an origin ("http://127.0.0.1:11434"): an endpoint the
 * worker calls (the Agent playground's model). All-sites access covers it. Read from
 * permissions.getAll(), not contains(): see originAccess below.
 * @param {string} origin @returns {Promise<boolean>}
 */
export async function hasOriginAccess(origin) {
  try {
    const url = new URL(origin);
    const { origins = [] } = await api.permissions.getAll();
    return origins.some((/** @type {string} */ p) => patternCovers(p, url));
  } catch {
    return true; // cannot tell: let the fetch say what happens
  }
}

/**
 * Whether a granted match pattern ("http://*\/*", "*://*.example.com/*", "<all_urls>",
 * "http://127.0.0.1:8080/*") covers an http(s) origin.
 * @param {string} pattern @param {URL} url
 */
function patternCovers(pattern, url) {
  if (pattern === '<all_urls>') return true;
  const m = /^(\*|[a-z][a-z0-9+.-]*):\/\/(\[[^\]]*\]|[^/:]*)(?::(\d+|\*))?\//.exec(pattern);
  if (!m) return false;
  const scheme = url.protocol.slice(0, -1);
  if (m[1] === '*' ? scheme !== 'http' && scheme !== 'https' : m[1] !== scheme) return false;
  if (m[3] && m[3] !== '*' && m[3] !== (url.port || (scheme === 'https' ? '443' : '80'))) return false;
  const host = m[2];
  if (host === '*') return true;
  if (host.startsWith('*.')) return url.hostname === host.slice(2) || url.hostname.endsWith(host.slice(1));
  return url.hostname === host;
}

/**
 * Host access for the endpoints the worker fetches (the Agent playground's models), in a page
 * that lets the user grant it. `const access = originAccess(onChange)`; then `access.has(origin)`
 * says synchronously whether the extension may reach that origin ("http://127.0.0.1:11434"), and
 * `access.ensure(origin)`, called from a click, resolves true when it may, after asking the user
 * when it may not yet (false: refused, or the browser cannot ask). onChange() runs when the
 * granted origins change.
 *
 * Why what is granted is read ahead (permissions.getAll(), at the start and on every change):
 * Firefox (142) grants permissions.request only when it is called synchronously in the user's
 * input handler, so nothing may be awaited before it; and Chromium (156) answers
 * permissions.contains() false for hosts granted through content_scripts.matches, though
 * getAll() lists them and the worker's fetch reaches them, so asking Chromium whenever contains()
 * is false would show a needless prompt. The pattern asked for has no port: Firefox's match
 * patterns take none, and a pattern without one covers every port in both browsers.
 * @param {() => void} [onChange]
 * @returns {{has: (origin: string) => boolean, ensure: (origin: string) => Promise<boolean>}}
 */
export function originAccess(onChange = () => {}) {
  /** @type {string[]|null} null until getAll() answered */
  let granted = null;
  const refresh = () => Promise.resolve(api.permissions?.getAll?.())
    .then((p) => { granted = Array.isArray(p?.origins) ? p.origins : []; }, () => { granted = []; })
    .then(() => onChange());
  refresh();
  api.permissions?.onAdded?.addListener(refresh);
  api.permissions?.onRemoved?.addListener(refresh);
  /** @param {string} origin */
  const urlOf = (origin) => {
    try {
      const url = new URL(origin);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
    } catch {
      return null;
    }
  };
  /** @param {string} origin */
  const has = (origin) => {
    const url = urlOf(origin);
    return !!url && !!granted?.some((p) => patternCovers(p, url));
  };
  return {
    has,
    ensure(origin) {
      const url = urlOf(origin);
      if (!url) return Promise.resolve(false);
      if (has(origin)) return Promise.resolve(true);
      let asked;
      try {
        asked = api.permissions.request({ origins: [`${url.protocol}//${url.hostname}/*`] }); // synchronously: see above
      } catch {
        return Promise.resolve(false);
      }
      return Promise.resolve(asked).then((ok) => {
        if (ok) refresh();
        return ok === true;
      }, () => false);
    },
  };
}

// --------------------------------------------------------------------------- native messaging

/** The optional permission that lets the extension start the native host (local apps). */
const NATIVE = { permissions: ['nativeMessaging'] };

/** Whether the user granted nativeMessaging. @returns {Promise<boolean>} */
export async function hasNativeMessaging() {
  try {
    return await api.permissions.contains(NATIVE);
  } catch {
    return false;
  }
}

/**
 * Asks for nativeMessaging. Call it synchronously in the click handler, before any await:
 * Firefox (142+) grants permissions.request only from the user's input handler (see
 * originAccess). Resolves true when granted.
 * @returns {Promise<boolean>}
 */
export function requestNativeMessaging() {
  try {
    return Promise.resolve(api.permissions.request(NATIVE)).then((ok) => ok === true, () => false);
  } catch {
    return Promise.resolve(false);
  }
}

/** Gives nativeMessaging back (local apps turned off). @returns {Promise<boolean>} */
export function removeNativeMessaging() {
  try {
    return Promise.resolve(api.permissions.remove(NATIVE)).then((ok) => ok === true, () => false);
  } catch {
    return Promise.resolve(false);
  }
}

/** fn() whenever a permission is granted or removed (the user may do it in the browser's own UI). @param {() => void} fn */
export function onPermissionsChanged(fn) {
  api.permissions?.onAdded?.addListener(() => fn());
  api.permissions?.onRemoved?.addListener(() => fn());
}

/**
 * @typedef {object} NativePort   a native messaging host's port
 * @property {(message: {type: string, [field: string]: any}) => void} send   one of ToHost (others are dropped)
 * @property {() => void} disconnect
 */

/**
 * Starts the native host `name` and talks to it. onDisconnect(error) once, when it ended: error is
 * the browser's words for why, or '' when it just exited. Chrome (156) tells why in
 * runtime.lastError ("Specified native messaging host not found.", "Access to the specified
 * native messaging host is forbidden.", "Native host has exited."); Firefox (153) in the port's
 * `error` ("No such native application …", "An unexpected error occurred"). Without the
 * permission, runtime.connectNative is missing (Firefox) or throws (Chrome): the error says so.
 * @param {string} name
 * @param {{onMessage: (message: any) => void, onDisconnect: (error: string) => void}} h
 * @returns {NativePort|null} null when it could not even start (onDisconnect was called)
 */
export function connectNative(name, { onMessage, onDisconnect }) {
  let port;
  try {
    if (typeof api.runtime.connectNative !== 'function') throw new Error('The nativeMessaging permission is not granted.');
    port = api.runtime.connectNative(name);
  } catch (e) {
    queueMicrotask(() => onDisconnect(String(/** @type {any} */ (e)?.message ?? e)));
    return null;
  }
  port.onMessage.addListener((/** @type {any} */ m) => onMessage(m));
  port.onDisconnect.addListener((/** @type {any} */ p) => {
    const err = api.runtime.lastError?.message ?? p?.error?.message ?? '';
    onDisconnect(String(err));
  });
  return {
    send(m) {
      if (!catalogued(m, ToHost)) return;
      try { port.postMessage(m); } catch { /* disconnected: onDisconnect says so */ }
    },
    disconnect: () => port.disconnect(),
  };
}

/**
 * Whether a native host's disconnect words say it is not installed (or not for this extension).
 * @param {string} error
 */
export function nativeHostMissing(error) {
  return /not found|no such native application|forbidden|not allowed|manifest/i.test(error);
}

// ----------------------------------------------------------------------------------- action

/**
 * Badge on the toolbar button for one tab. Failures (tab closed meanwhile) are ignored.
 * @param {number} tabId @param {string} text @param {string|null} [color]  none: the color stays
 */
export function setBadge(tabId, text, color) {
  if (!api.action) return;
  api.action.setBadgeText({ tabId, text }).catch(() => {});
  if (color) api.action.setBadgeBackgroundColor({ tabId, color }).catch(() => {});
}

/** Opens the options page (options_ui). @returns {Promise<void>} */
export function openOptionsPage() {
  return api.runtime.openOptionsPage();
}

// --------------------------------------------------------------------------------- devtools

/** The inspected tab inside DevTools, else null (the panel also runs as a plain extension page). @returns {number|null} */
export function inspectedTabId() {
  const id = api.devtools?.inspectedWindow?.tabId;
  return Number.isInteger(id) ? id : null;
}

/**
 * Evaluates `expression` in the inspected page's main world (DevTools pages only; null elsewhere).
 * Chrome (156) documents a callback form; Firefox's returns a promise of [result, exceptionInfo].
 * Resolves to the result, or rejects with the page's exception.
 * @param {string} expression @returns {Promise<unknown>|null}
 */
export function evalInInspectedPage(expression) {
  const iw = api.devtools?.inspectedWindow;
  if (!iw?.eval) return null;
  return new Promise((resolve, reject) => {
    const done = (/** @type {any} */ result, /** @type {any} */ error) => {
      if (error && (error.isException || error.isError)) reject(new Error(String(error.value ?? error.description ?? error.code ?? 'the page threw')));
      else resolve(result);
    };
    const r = iw.eval(expression, done);
    if (r && typeof r.then === 'function') r.then((/** @type {any} */ pair) => done(pair?.[0], pair?.[1]), reject);
  });
}

/**
 * Creates a DevTools panel (devtools page only). Chrome (156) documents only a callback form and
 * returns undefined; Firefox's browser.devtools.panels.create returns a promise. The panel object
 * is not needed, so it is called with the three common arguments in both, and a rejected promise
 * is swallowed.
 * @param {string} title @param {string} iconPath @param {string} pagePath
 */
export function createDevtoolsPanel(title, iconPath, pagePath) {
  const r = api.devtools.panels.create(title, iconPath, pagePath);
  if (r && typeof r.catch === 'function') r.catch(() => {});
}

/**
 * The DevTools theme when running inside DevTools: 'dark' or 'light', else null.
 * Chrome (and Firefox) expose devtools.panels.themeName ("default" | "dark"; Firefox also
 * "light") to DevTools pages and panels.
 * @returns {'dark'|'light'|null}
 */
export function devtoolsTheme() {
  const name = api.devtools?.panels?.themeName;
  if (typeof name !== 'string') return null;
  return name === 'dark' ? 'dark' : 'light';
}

/**
 * Calls fn('dark' | 'light') when the DevTools theme changes. Firefox has
 * devtools.panels.onThemeChanged; Chrome (156) has no such event, so there the theme is the one
 * read when the panel opened and this is a no-op.
 * @param {(theme: 'dark'|'light') => void} fn
 */
export function onDevtoolsThemeChanged(fn) {
  const ev = api.devtools?.panels?.onThemeChanged;
  if (ev?.addListener) ev.addListener((/** @type {string} */ name) => fn(name === 'dark' ? 'dark' : 'light'));
}
