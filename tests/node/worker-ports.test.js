// The worker's UI ports in Node (extension/service-worker/panel-ports.js), with a fake browser
// API and the real core: the first worker module tested without a browser (issue 48: browser.js
// no longer throws on import outside an extension; core.js takes a core a test provides). It
// checks what security.test.mjs checks end to end, one level down: which page a port comes from
// is read from its sender's URL, and each page is answered only what it may ask.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from './helpers.js';
import { installFakeBrowser, EXTENSION_ID as ID, BASE } from './fake-browser.js';

// The fake browser (fake-browser.js) goes in before panel-ports.js imports browser.js.
installFakeBrowser();

const { acceptUiPort, serveRequests } = await import('../../extension/service-worker/panel-ports.js');
const { provideCore } = await import('../../extension/service-worker/core.js');
const { Request, Push, ErrorCode, PROTOCOL_VERSION, PAGE_REQUESTS } = await import('../../extension/shared/messages.js');
provideCore(await loadCore());
/** The messages the handlers below got: a request refused at the port never reaches one. @type {any[]} */
const handled = [];
serveRequests({
  requests: {
    [Request.INVOKE]: (ui, m) => { handled.push(m); return 'invoked'; },
    [Request.LOCAL_APPS]: () => 'apps',
    [Request.APPROVE]: () => 'approved',
  },
});

/** A port from `url` (sender id: ours unless given), as the browser hands it to the worker. */
function openPort(url, { name = 'slop-panel', id = ID } = {}) {
  /** @type {any[]} */
  const sent = [];
  /** @type {((m: any) => void)[]} */
  const listeners = [];
  const port = {
    name, sender: { id, url }, disconnected: false, sent,
    postMessage: (/** @type {any} */ m) => { sent.push(...(m.type === Push.BATCH ? m.pushes : [m])); },
    disconnect() { port.disconnected = true; },
    onMessage: { addListener: (/** @type {(m: any) => void} */ fn) => listeners.push(fn) },
    onDisconnect: { addListener() {} },
    /** Posts msg to the worker. @param {any} msg */
    tell(msg) { for (const fn of listeners) fn(msg); },
    /** Posts msg to the worker; resolves with the reply to request `id`, if any comes. @param {any} msg */
    async ask(msg) {
      port.tell(msg);
      for (let i = 0; i < 100; i++) {
        const r = sent.find((m) => m.type === Push.REPLY && m.id === msg.id);
        if (r) return r;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return null;
    },
  };
  acceptUiPort(/** @type {any} */ (port));
  return port;
}

test('a port is a UI page only by its sender\'s URL: another extension, a content page or an unknown page is closed', () => {
  assert.equal(openPort(`${BASE}extension/panel/panel.html?tabId=3`).disconnected, false);
  assert.equal(openPort(`${BASE}extension/panel/panel.html`, { id: 'another-extension' }).disconnected, true);
  assert.equal(openPort('https://evil.example/extension/panel/panel.html').disconnected, true);
  assert.equal(openPort(`${BASE}extension/devtools/devtools.html`).disconnected, true);
  assert.equal(openPort(`${BASE}extension/popup/panel.html`).disconnected, true, 'a name and a folder that do not go together');
});

test('each page is answered what it may ask, whatever its port calls itself; the refusal names the page and the request', async () => {
  let id = 0;
  const hello = { type: Request.HELLO, v: PROTOCOL_VERSION, tabId: null };
  for (const [page, url] of [['panel', 'extension/panel/panel.html'], ['popup', 'extension/popup/popup.html'], ['options', 'extension/options/options.html']]) {
    const port = openPort(`${BASE}${url}`, { name: 'slop-panel' });
    port.tell(hello);
    /** @type {[string, string, object][]} */
    const asks = [[Request.INVOKE, 'invoked', { key: 'k', path: '/', action: 'a' }], [Request.LOCAL_APPS, 'apps', {}], [Request.APPROVE, 'approved', { key: 'k' }]];
    for (const [type, result, members] of asks) {
      const r = await port.ask({ type, id: ++id, ...members });
      const allowed = PAGE_REQUESTS[page] === 'all' || PAGE_REQUESTS[page].includes(type);
      if (allowed) assert.deepEqual({ ok: r.ok, result: r.result }, { ok: true, result }, `${page} ${type}`);
      else assert.deepEqual(r.error, { code: ErrorCode.NOT_ALLOWED, message: `the ${page} page may not ask for ${type}` }, `${page} ${type}`);
    }
  }
  // The panel asks anything; the popup approves; Options reads its local apps: each its own.
  assert.equal(PAGE_REQUESTS.panel, 'all');
  assert.ok(PAGE_REQUESTS.popup.includes(Request.APPROVE) && !PAGE_REQUESTS.popup.includes(Request.INVOKE));
  assert.ok(PAGE_REQUESTS.options.includes(Request.LOCAL_APPS) && !PAGE_REQUESTS.options.includes(Request.INVOKE));
});

test('an unknown request, and one without an id, are answered as before: bad_request, and nothing', async () => {
  const port = openPort(`${BASE}extension/panel/panel.html`);
  const r = await port.ask({ type: 'ui/fly', id: 1 });
  assert.equal(r.error.code, ErrorCode.BAD_REQUEST);
  assert.equal(await port.ask({ type: Request.INVOKE }), null);
});

test('every request\'s members are checked against request-args.js before its handler runs: a wrong one is refused in words', async () => {
  const port = openPort(`${BASE}extension/panel/panel.html`);
  port.tell({ type: Request.HELLO, v: PROTOCOL_VERSION, tabId: null });
  handled.length = 0;
  const cases = [
    [{ path: '/', action: 'a' }, 'ui/invoke: "key" is missing'],
    [{ key: 'k', path: 7, action: 'a' }, 'ui/invoke: "path" must be a string'],
    [{ key: 'k', path: '/', action: 'a', paramsText: { not: 'text' } }, 'ui/invoke: "paramsText" must be a string'],
  ];
  let id = 100;
  for (const [members, message] of cases) {
    const r = await port.ask({ type: Request.INVOKE, id: ++id, ...members });
    assert.deepEqual(r.error, { code: ErrorCode.BAD_REQUEST, message }, JSON.stringify(members));
  }
  assert.equal(handled.length, 0, 'no refused request reached its handler');
  // Optional members may be absent or null; members the table does not name are let through.
  const ok = await port.ask({ type: Request.INVOKE, id: ++id, key: 'k', path: '/', action: 'a', params: null, extra: 1 });
  assert.equal(ok.ok, true);
  assert.equal(handled.length, 1);
});
