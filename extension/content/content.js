// content.js: SLOP discovery and the postMessage relay, in the top frame of http(s) pages.
//
// A classic script (MV3 content scripts cannot be ES modules), self-contained in one IIFE. It
// holds no protocol state and makes no protocol decision: it reports the raw contents of every
// <meta name="slop"> (and, when the service worker asks, the raw /.well-known/slop response), and
// relays postMessage traffic between the page's provider and the service worker.
//
// postMessage rules (spec: transport §postMessage convention, REQUIRED):
//   - sends {slop: true, message} with targetOrigin = location.origin, never "*";
//   - on receipt checks event.source === window and event.origin === location.origin BEFORE
//     reading event.data; anything else is dropped unread (forged frames from iframes included);
//   - ignores the extension's own echoes (consumer → provider message types);
//   - forwards only verified messages, and only while the service worker has a postMessage
//     connection open for this page. The service worker checks the port's sender again.
//
// The message type strings, PROTOCOL_VERSION and UNCATALOGUED repeat extension/shared/messages.js
// (tests/node/messages.test.js checks they match); like every context, this one posts only types
// of the catalogue (content/...) and drops anything else with UNCATALOGUED on the console.

(() => {
  'use strict';

  // This script cannot import extension/shared/browser.js: Firefox exposes `browser`, Chromium
  // `chrome`; both have runtime.connect with the same shape.
  const ext = globalThis.browser?.runtime?.id ? globalThis.browser : globalThis.chrome;
  if (!ext?.runtime?.id || window.top !== window) return; // top frame only (also all_frames: false)
  if (location.protocol !== 'http:' && location.protocol !== 'https:') return;

  const PROTOCOL_VERSION = 4;
  const PORT_NAME = 'slop-content';
  const T = {
    HELLO: 'content/hello',
    DISCOVERY: 'content/discovery',
    WELL_KNOWN: 'content/well-known',
    FRAME: 'content/frame',
    PING: 'content/ping',
    PROBE_WELL_KNOWN: 'sw/probe-well-known',
    PM_OPEN: 'sw/pm-open',
    PM_SEND: 'sw/pm-send',
    PM_CLOSE: 'sw/pm-close',
  };
  const SENDS = new Set(Object.values(T).filter((t) => t.startsWith('content/')));
  const UNCATALOGUED = 'SLOP Inspector: message type not in the catalogue';
  const WELL_KNOWN_MAX = 65536;
  const PING_MS = 20000;

  let port = null;
  let pmOpen = false;
  let metas = [];
  let wellKnownFound = false;
  // Reconnecting to the service worker: the worker can always be started again, so retry soon;
  // the back-off only absorbs a worker that is still shutting down (a connect to it fails at once),
  // and starts over once a port holds. A try costs one runtime.connect; with 100 ms doubling to 1 s
  // a stopped worker was back in 260-1090 ms, with 25 ms to 250 ms in 110-320 ms (worker-restarts e2e).
  const RETRY_MIN_MS = 25;
  const RETRY_MAX_MS = 250;
  const PORT_HOLDS_MS = 250;
  let retryMs = RETRY_MIN_MS;
  /** @type {ReturnType<typeof setTimeout>|0} */
  let retryTimer = 0;
  let gone = false; // the extension was reloaded or removed: this script is orphaned

  // ------------------------------------------------------------------------------- port

  function post(msg) {
    if (!SENDS.has(msg.type)) {
      console.error(`${UNCATALOGUED}: ${JSON.stringify(String(msg.type)).slice(0, 80)} (content script)`);
      return;
    }
    if (!port) return;
    try {
      port.postMessage(msg);
    } catch {
      port = null;
      scheduleReconnect();
    }
  }

  function connect() {
    retryTimer = 0;
    if (gone || port) return;
    if (!ext.runtime?.id) {
      gone = true;
      return;
    }
    try {
      port = ext.runtime.connect({ name: PORT_NAME });
    } catch {
      gone = true; // "Extension context invalidated"
      return;
    }
    const mine = port;
    // A port that stays up is a working worker: the next stop starts the back-off over (the worker
    // may never message a page whose provider is a WebSocket, so this cannot wait for a message).
    setTimeout(() => { if (port === mine) retryMs = RETRY_MIN_MS; }, PORT_HOLDS_MS);
    port.onMessage.addListener(onServiceWorkerMessage);
    port.onDisconnect.addListener(() => {
      void ext.runtime.lastError; // read it, or Chrome logs "Unchecked runtime.lastError"
      port = null;
      pmOpen = false;
      scheduleReconnect();
    });
    // (Re-)announce everything: after a service worker restart this rebuilds its state.
    post({ type: T.HELLO, v: PROTOCOL_VERSION, url: location.href });
    post({ type: T.DISCOVERY, url: location.href, metas });
  }

  // The service worker was stopped (or is restarting): reconnect, which starts it again.
  function scheduleReconnect() {
    if (gone || retryTimer) return;
    retryTimer = setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  }

  function onServiceWorkerMessage(msg) {
    retryMs = RETRY_MIN_MS; // the worker answers: reset the reconnect back-off
    if (!msg || typeof msg.type !== 'string') return;
    switch (msg.type) {
      case T.PROBE_WELL_KNOWN:
        probeWellKnown();
        break;
      case T.PM_OPEN:
        pmOpen = true;
        break;
      case T.PM_CLOSE:
        pmOpen = false;
        break;
      case T.PM_SEND:
        if (msg.message && typeof msg.message === 'object' && location.origin !== 'null') {
          window.postMessage({ slop: true, message: msg.message }, location.origin);
        }
        break;
      default:
        break;
    }
  }

  // ---------------------------------------------------------------------------- discovery

  function readMetas() {
    return Array.from(document.querySelectorAll('meta[name="slop" i]'), (m) => m.getAttribute('content') ?? '');
  }

  function rescan() {
    const now = readMetas();
    if (now.length === metas.length && now.every((c, i) => c === metas[i])) return;
    metas = now;
    post({ type: T.DISCOVERY, url: location.href, metas });
  }

  let rescanQueued = false;
  function queueRescan() {
    if (rescanQueued) return;
    rescanQueued = true;
    setTimeout(() => {
      rescanQueued = false;
      rescan();
    }, 30);
  }

  const touchesMeta = (node) => node.nodeType === 1 &&
    (node.nodeName === 'META' || (typeof node.querySelector === 'function' && node.querySelector('meta') !== null));

  // Tags added, changed or removed anywhere in the document (head or body).
  const observer = new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes' ? r.target.nodeName === 'META'
        : [...r.addedNodes, ...r.removedNodes].some(touchesMeta)) {
        queueRescan();
        return;
      }
    }
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['name', 'content'] });

  async function probeWellKnown() {
    const url = new URL('/.well-known/slop', location.origin).href;
    let status = 0;
    let body = null;
    let error = null;
    try {
      // Same-origin with the page, so no host permission is needed; no cookies are sent.
      const res = await fetch(url, { credentials: 'omit', cache: 'no-store', headers: { Accept: 'application/json' } });
      status = res.status;
      if (res.ok) {
        const text = await res.text();
        if (text.length > WELL_KNOWN_MAX) error = 'descriptor larger than 64 KiB';
        else body = text;
      }
    } catch (e) {
      error = 'request failed';
    }
    wellKnownFound = body !== null;
    post({ type: T.WELL_KNOWN, url: location.href, status, body, error });
  }

  // -------------------------------------------------------------------------- the relay
  // Every {slop: true} message of this window goes to the worker, our own posts included (a
  // window sees what it posts): which messages a consumer ignores is the core's rule.

  window.addEventListener('message', (event) => {
    // Checked before event.data is touched: only this window, only this origin.
    if (event.source !== window || event.origin !== location.origin) return;
    if (!pmOpen || !port) return;
    const data = event.data;
    if (data === null || typeof data !== 'object' || data.slop !== true) return;
    const message = data.message;
    let text;
    try {
      text = JSON.stringify(message);
    } catch {
      text = undefined;
    }
    // Not representable as JSON: pass a marker so the core reports a protocol error.
    post({ type: T.FRAME, text: typeof text === 'string' ? text : '"<not JSON>"' });
  });

  // ---------------------------------------------------------------------------- start

  // Keep the service worker alive while this page has a provider (Chrome stops an idle worker
  // after 30 s; a port message resets that timer).
  setInterval(() => {
    if (metas.length > 0 || wellKnownFound) post({ type: T.PING });
  }, PING_MS);

  // Back from the back/forward cache: Chrome disconnected our port when the page was frozen.
  window.addEventListener('pageshow', (e) => {
    if (e.persisted && !port) {
      retryMs = RETRY_MIN_MS;
      connect();
    }
  });

  metas = readMetas();
  connect();
})();
