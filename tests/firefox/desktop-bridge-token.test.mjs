// Firefox ESR: the desktop bridge with the SLOP desktop app's token (issue 46), against the app's
// newer upgrade gate (tests/fixtures/desktop-bridge.mjs kind 'app'). Firefox opens a socket whose
// server selected no subprotocol where Chrome fails it, and sends a moz-extension:// Origin: the
// gate must let that origin through, the bare dial must come first (401), and the extension must
// connect only after the dial offering ["slop.bearer", token] selected exactly slop.bearer; the
// tab's provider is then announced to the app.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { startDesktopBridge } from '../fixtures/desktop-bridge.mjs';
import { openBrowser } from '../ui/driver.mjs';

test('Firefox ESR: a saved app token connects to the token-gated bridge in mode token, after a refused bare dial', { timeout: 90_000 }, async () => {
  const d = await openBrowser('firefox');
  const srv = await startWsProvider({ engine: createMailEngine({ messages: 2, live: false }), host: '127.0.0.1', port: 0, allowedOrigins: [d.extOrigin] });
  const app = await startDesktopBridge({ kind: 'app' });
  try {
    await d.webPage(srv.url('/pages/spa.html?live=0'));
    const tabId = await d.tabId(srv.url('/pages/spa.html?live=0'));
    const options = await d.extensionPage('extension/options/options.html');
    await options.fill('#bridge-url', app.url);
    await options.click('#bridge-url-form button[type="submit"]');
    await options.waitUntil(() => /is dialled at/.test(document.getElementById('bridge-url-message').textContent), undefined, { what: 'address saved' });
    await options.fill('#bridge-token', app.token);
    await options.click('#bridge-form button[type="submit"]');
    await options.waitFor('#bridge-saved:not([hidden])');
    await options.click('#bridge-enabled');
    const st = await options.waitUntil(() => {
      const el = document.getElementById('bridge-status');
      return el.dataset.state === 'connected' && /announced/.test(el.textContent) ? { mode: el.dataset.mode, text: el.textContent } : null;
    }, undefined, { timeout: 20_000, what: 'connected, and the provider announced' });
    assert.equal(st.mode, 'token');
    assert.match(st.text, /token checked by the bridge when it connected/);
    assert.match(st.text, /1 provider announced \(this bridge does not confirm\)/);
    await app.waitFor((m) => m.type === 'provider-available' && m.providerKey === `${tabId}:postmessage`, { what: 'announced to the app' });
    assert.deepEqual(app.handshakes.map((h) => [h.protocols.length, h.status]), [[0, 401], [2, 101]], 'bare first, then the token');
    assert.doesNotMatch(app.handshakes[1].origin ?? '', /^(https?:|null$)/, `the extension's origin (${app.handshakes[1].origin}) passes the gate`);
    assert.equal(app.subprotocols.at(-1).selected, 'slop.bearer');
  } finally {
    await d.close();
    await app.close();
    await srv.close();
  }
});
