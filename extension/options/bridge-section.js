// options/bridge-section.js: the desktop bridge: on/off, pairing code or the SLOP desktop app's
// token (told apart by form), bridges that do not pair,
// address, its status as the worker publishes it, and each in-page provider it shares with "invoke
// without asking" for this browser session.

import { setBridgeEnabled, setBridgeToken, removeBridgeToken, setBridgeUrl, bridgeSettingsInfo, setBridgeAllowUnpaired, setBridgeTrust } from '../shared/settings-store.js';
import { h, setChildren } from '../shared/dom.js';
import { $, when } from './page.js';
import { setCodeText } from '../shared/code-text.js';
import { bridgeModeText, bridgeSharedText } from '../shared/bridge-text.js';

// ---- desktop bridge: the code or token is a secret (written here, read only by the worker) -----

/**
 * The "saved" (or "removed") line under the field waits for what the bridge makes of it: it goes
 * once the worker dialled (connecting) and reached an outcome, so it never sits beside a status
 * that moved on.
 */
let savedLine = { shown: false, dialled: false };

function sayBridge(id, text, kind) {
  const m = $(id);
  setCodeText(m, text);
  m.className = `form-message ${kind ?? ''}`;
}

export async function renderBridgeSettings() {
  const info = await bridgeSettingsInfo();
  $('bridge-enabled').checked = info.enabled;
  $('bridge-unpaired').checked = info.allowUnpaired;
  try { $('bridge-port').textContent = new URL(info.url).port || '80'; } catch { /* a stored URL is valid */ }
  if (document.activeElement !== $('bridge-url')) $('bridge-url').value = info.url;
  $('bridge-saved').hidden = !info.token;
  if (info.token) {
    $('bridge-saved-text').textContent = info.token.kind === 'app-token'
      ? `SLOP desktop app’s token saved: •••••••• (${when(info.token.setAt)}). Offered only to a bridge that refuses a plain connection; used only if it checks it.`
      : `Pairing code saved: •••••••• (${when(info.token.setAt)}). Only a bridge that proves it knows this code is paired; the code never leaves this browser.`;
  }
}

export function renderBridgeStatus(st) {
  const el = $('bridge-status');
  el.dataset.state = st?.state ?? 'off';
  el.dataset.mode = st?.mode ?? '';
  el.dataset.sharing = st?.sharing ?? '';
  if (savedLine.shown) {
    if (st?.state === 'connecting') savedLine.dialled = true;
    else if (savedLine.dialled && st?.state !== 'retrying') clearSaved();
  }
  renderBridgeShared(st?.state === 'connected' ? st.shared : [], st?.sharing === 'confirmed');
  if (!st || st.state === 'off') {
    el.textContent = 'The bridge is off.';
    return;
  }
  // The same words as the popup (shared/bridge-text.js); the message names the mode already.
  const shared = bridgeSharedText(st);
  const note = st.note ? ` ${st.note}` : '';
  setCodeText(el, `${st.message}${shared ? ` ${shared}` : ''}${note}`);
  el.title = bridgeModeText(st);
}

function clearSaved() {
  savedLine = { shown: false, dialled: false };
  sayBridge('bridge-message', '', '');
}

/**
 * What the desktop was told of, and whether the bridge accepted it (confirmed) or only heard it;
 * an in-page provider can be let invoke without asking (storage.session).
 */
function renderBridgeShared(shared, confirmed) {
  $('bridge-shared-box').hidden = shared.length === 0;
  $('bridge-shared-head').textContent = confirmed ? 'Shared now' : 'Announced (not confirmed)';
  setChildren($('bridge-shared').tBodies[0], shared.map((p) => h('tr', { 'data-provider-key': p.providerKey },
    h('td', {}, h('b', { text: p.name || p.id }), ' ', h('span', { class: 'muted', text: p.page ? `on ${p.page}, tab ${p.tabId}` : `in tab ${p.tabId}` })),
    h('td', { class: 'muted', text: p.transport === 'ws' ? 'WebSocket: the desktop connects itself' : `in-page, through the relay${p.relayed ? ' (open)' : ''}` }),
    h('td', {}, p.transport === 'ws' ? h('span', { class: 'muted', text: 'sent to the provider directly' })
      : h('label', {}, h('input', { type: 'checkbox', 'data-action': 'bridge-trust', checked: !!p.trusted,
        onchange: (e) => setBridgeTrust(p.trustKey, p.name || p.id, e.target.checked) }), 'Invoke without asking')))));
}

$('bridge-enabled').addEventListener('change', (e) => setBridgeEnabled(/** @type {HTMLInputElement} */ (e.target).checked));
$('bridge-unpaired').addEventListener('change', (e) => setBridgeAllowUnpaired(/** @type {HTMLInputElement} */ (e.target).checked));
$('bridge-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const input = $('bridge-token');
  // Marked before the write: the worker may dial and reach an outcome before it resolves.
  const mine = savedLine = { shown: true, dialled: false };
  try {
    const kind = await setBridgeToken(input.value);
    input.value = '';
    sayBridge('bridge-message', kind === 'app-token'
      ? 'Saved as the SLOP desktop app’s token. It is offered only if the bridge refuses a plain connection.'
      : 'Saved as a pairing code. The bridge must now prove it knows it.', 'ok');
    if (savedLine !== mine) clearSaved(); // the state moved on already (the saved line above still says which)
  } catch (err) {
    savedLine = { shown: false, dialled: false };
    sayBridge('bridge-message', err.message, 'bad'); // setBridgeToken never quotes what was typed
  }
});
$('bridge-remove').addEventListener('click', async () => {
  const mine = savedLine = { shown: true, dialled: false };
  await removeBridgeToken();
  sayBridge('bridge-message', $('bridge-unpaired').checked
    ? 'Removed: only a bridge that does not pair is used now.'
    : 'Removed: nothing is shared until a code or token is saved.', 'ok');
  if (savedLine !== mine) clearSaved();
});
$('bridge-url-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  try {
    const url = await setBridgeUrl($('bridge-url').value);
    $('bridge-url').value = url;
    sayBridge('bridge-url-message', `The bridge is dialled at ${url}.`, 'ok');
  } catch (err) {
    sayBridge('bridge-url-message', err.message, 'bad');
  }
});
