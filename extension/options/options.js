// options.js: tokens per provider origin (add, replace, remove; listed masked, never read back),
// approvals (revoke), the String agent's webhook and the desktop bridge (on/off, pairing token,
// bridges that do not pair, address, its status as the worker publishes it, and what it shares,
// each in-page provider with "invoke without asking" for this browser session). Writes go straight to chrome.storage through settings-store.js; the
// service worker sees the change (storage.onChanged) and reconnects or disconnects. The token
// therefore never travels in a message, and this page never reads a stored token.

import {
  setToken, removeToken, listTokens, listApprovals, revokeApproval, setStringWebhook, removeStringWebhook, stringWebhookInfo,
  KEYS, setBridgeEnabled, setBridgeToken, removeBridgeToken, setBridgeUrl, bridgeSettingsInfo, bridgeStatus, takeTokenRequest,
  setBridgeAllowUnpaired, setBridgeTrust, historyMb, setHistoryMb,
} from '../shared/settings-store.js';
import { onStorageChanged, extensionBase } from '../shared/browser.js';
import { h, setChildren } from '../shared/dom.js';
import { PORTS, Request } from '../shared/messages.js';
import { UiPort } from '../shared/ui-port.js';

/**
 * The elements of options.html this page reads or sets beyond HTMLElement, by id (their tags there).
 * @typedef {{
 *   'approvals': HTMLTableElement, 'bridge-enabled': HTMLInputElement, 'bridge-form': HTMLFormElement,
 *   'bridge-remove': HTMLButtonElement, 'bridge-shared': HTMLTableElement, 'bridge-token': HTMLInputElement,
 *   'bridge-unpaired': HTMLInputElement, 'bridge-url': HTMLInputElement, 'bridge-url-form': HTMLFormElement,
 *   'history-mb': HTMLSelectElement, 'string-agents': HTMLTableElement, 'string-daemon': HTMLInputElement,
 *   'string-find-form': HTMLFormElement, 'string-form': HTMLFormElement, 'string-remove': HTMLButtonElement,
 *   'string-url': HTMLInputElement, 'token-form': HTMLFormElement, 'token-origin': HTMLInputElement,
 *   'token-value': HTMLInputElement, 'tokens': HTMLTableElement
 * }} Elements
 */

/**
 * The element of options.html with this id.
 * @template {string} K
 * @param {K} id @returns {K extends keyof Elements ? Elements[K] : HTMLElement}
 */
const $ = (id) => /** @type {K extends keyof Elements ? Elements[K] : HTMLElement} */ (document.getElementById(id));

function when(ms) {
  return ms ? new Date(ms).toLocaleString() : '';
}

function say(text, kind) {
  const m = $('token-message');
  m.textContent = text;
  m.className = `form-message ${kind ?? ''}`;
}

async function renderTokens() {
  const rows = await listTokens();
  $('tokens-empty').hidden = rows.length > 0;
  $('tokens').hidden = rows.length === 0;
  setChildren($('tokens').tBodies[0], rows.map((r) => h('tr', { 'data-origin': r.origin },
    h('td', {}, h('code', { text: r.origin })),
    h('td', { class: 'muted' }, `•••••••• (${r.length} characters, saved ${when(r.setAt)})`),
    h('td', {},
      h('button', { type: 'button', onclick: () => {
        $('token-origin').value = r.origin;
        $('token-value').value = '';
        $('token-value').focus();
        say(`Paste the new token for ${r.origin} and save.`);
      } }, 'Replace…'),
      h('button', { type: 'button', class: 'danger', 'data-action': 'remove', onclick: async () => {
        await removeToken(r.origin);
        say(`Token for ${r.origin} removed.`, 'ok');
      } }, 'Remove')))));
}

async function renderApprovals() {
  const rows = await listApprovals();
  $('approvals-empty').hidden = rows.length > 0;
  $('approvals').hidden = rows.length === 0;
  setChildren($('approvals').tBodies[0], rows.map((r) => {
    // An approval stored without its parts (an older version) shows its whole key.
    return h('tr', { 'data-key': r.key },
      h('td', {}, h('code', { text: r.page ?? r.key })),
      h('td', {}, h('code', { text: r.target ?? '' })),
      h('td', { class: 'muted', text: when(r.at) }),
      h('td', {}, h('button', { type: 'button', class: 'danger', 'data-action': 'revoke', onclick: () => revokeApproval(r.key) }, 'Revoke')));
  }));
}

$('token-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const tokenInput = $('token-value');
  try {
    const origin = await setToken($('token-origin').value, tokenInput.value);
    tokenInput.value = '';
    $('token-origin').value = '';
    say(`Token saved for ${origin}. Open connections to it reconnect now.`, 'ok');
  } catch (err) {
    say(err.message, 'bad'); // messages from settings-store never quote the token
  }
});

// ---- String agent: the webhook URL is a secret (written here, read only by the worker) --------

function sayString(text, kind) {
  const m = $('string-message');
  m.textContent = text;
  m.className = `form-message ${kind ?? ''}`;
}

/** The daemon's liveness (GET /health; /describe where a newer daemon has it): no secret involved. */
async function stringHealth(origin) {
  const el = $('string-health');
  el.textContent = `Checking ${origin}…`;
  try {
    const res = await fetch(`${origin}/health`, { cache: 'no-store', credentials: 'omit' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    let version = '';
    const d = await fetch(`${origin}/describe`, { cache: 'no-store', credentials: 'omit' }).catch(() => null);
    if (d?.ok) {
      const j = await d.json().catch(() => null);
      version = j?.version ?? j?.instance?.version ?? '';
    }
    el.textContent = `The String daemon at ${origin} is running${version ? ` (version ${version})` : ''}.`;
    el.dataset.state = 'up';
  } catch {
    el.textContent = `No String daemon answers at ${origin}: start it (string daemon start) to send it states.`;
    el.dataset.state = 'down';
  }
}

async function renderString() {
  const info = await stringWebhookInfo();
  renderStringAgents(info);
  $('string-saved').hidden = !info;
  $('string-health').hidden = !info;
  if (!info) return;
  $('string-saved-text').textContent = `Saved: ${info.origin}/webhook/•••••••• (${info.tokenLength} characters, ${when(info.setAt)})${info.agentId ? `, agent ${info.agentId}` : ''}.`;
  const daemon = $('string-daemon');
  if (document.activeElement !== daemon && daemon.value === daemon.defaultValue) daemon.value = info.origin;
  stringHealth(info.origin);
}

// "Find String agents on this machine": the worker asks the daemon (GET /agents) and, for the
// agent picked, fetches its webhook and stores it; the URL never reaches this page.

let stringPort = null;
/** The port to the worker, opened on first use (the options page needs it only here). */
const worker = () => (stringPort ??= new UiPort(PORTS.OPTIONS, null, { onPush: () => {} }).start());
/** The last answer of STRING_FIND_AGENTS. */
let found = null;

function sayFind(text, kind) {
  const m = $('string-find-message');
  m.textContent = text;
  m.className = `form-message ${kind ?? ''}`;
}

/** The agents found, the one in use marked. Ids and homes come from the daemon: text only. */
function renderStringAgents(info) {
  $('string-agents').hidden = !found?.ok;
  if (!found?.ok) return;
  setChildren($('string-agents').tBodies[0], found.agents.map((a) => {
    const inUse = info?.agentId === a.id && info?.origin === found.origin;
    return h('tr', { 'data-agent': a.id },
      h('td', {}, h('code', { text: a.id })),
      h('td', { class: 'muted' }, a.home ? h('code', { text: a.home }) : ''),
      h('td', {}, inUse ? h('span', { class: 'in-use', text: 'In use' })
        : h('button', { type: 'button', 'data-action': 'use-agent', onclick: () => useStringAgent(found.origin, a.id) }, 'Use this agent')));
  }));
}

async function askWorker(type, fields) {
  try {
    return await worker().request(type, fields, 20_000);
  } catch (err) {
    return { ok: false, message: `The extension could not ask: ${err.message}` };
  }
}

$('string-find-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const button = /** @type {HTMLButtonElement} */ ($('string-find-form').querySelector('button[type="submit"]'));
  button.disabled = true;
  sayFind('Looking for a String daemon…');
  found = null;
  const r = await askWorker(Request.STRING_FIND_AGENTS, { address: $('string-daemon').value });
  button.disabled = false;
  if (r.origin) $('string-daemon').value = r.origin;
  found = r.ok ? r : null;
  sayFind(r.message, r.ok ? 'ok' : 'bad');
  renderStringAgents(await stringWebhookInfo());
});

async function useStringAgent(origin, agentId) {
  for (const b of $('string-agents').querySelectorAll('button')) b.disabled = true;
  sayFind(`Fetching agent ${agentId}'s webhook…`);
  const r = await askWorker(Request.STRING_USE_AGENT, { address: origin, agentId });
  sayFind(r.message, r.ok ? 'ok' : 'bad');
  renderStringAgents(await stringWebhookInfo()); // storage.onChanged re-renders too, when it was saved
}

$('string-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const input = $('string-url');
  try {
    const origin = await setStringWebhook(input.value);
    input.value = '';
    sayString(`Webhook saved for the daemon at ${origin}.`, 'ok');
  } catch (err) {
    sayString(err.message, 'bad'); // parseStringWebhook's messages never quote the token
  }
});
$('string-remove').addEventListener('click', async () => {
  await removeStringWebhook();
  sayString('Webhook removed.', 'ok');
});

// ---- desktop bridge: the pairing token is a secret (written here, read only by the worker) ------

function sayBridge(id, text, kind) {
  const m = $(id);
  m.textContent = text;
  m.className = `form-message ${kind ?? ''}`;
}

async function renderBridgeSettings() {
  const info = await bridgeSettingsInfo();
  $('bridge-enabled').checked = info.enabled;
  $('bridge-unpaired').checked = info.allowUnpaired;
  try { $('bridge-port').textContent = new URL(info.url).port || '80'; } catch { /* a stored URL is valid */ }
  if (document.activeElement !== $('bridge-url')) $('bridge-url').value = info.url;
  $('bridge-saved').hidden = !info.token;
  if (info.token) $('bridge-saved-text').textContent = `Pairing token saved: •••••••• (${info.token.length} characters, ${when(info.token.setAt)}).`;
}

function renderBridgeStatus(st) {
  const el = $('bridge-status');
  el.dataset.state = st?.state ?? 'off';
  el.dataset.mode = st?.mode ?? '';
  renderBridgeShared(st?.state === 'connected' ? st.shared : []);
  if (!st || st.state === 'off') {
    el.textContent = 'The bridge is off.';
    return;
  }
  const shared = st.state === 'connected' ? ` Sharing ${st.shared.length} provider${st.shared.length === 1 ? '' : 's'}.` : '';
  el.textContent = `${st.message}${shared}`;
}

/** What the desktop sees now; an in-page provider can be let invoke without asking (storage.session). */
function renderBridgeShared(shared) {
  $('bridge-shared-box').hidden = shared.length === 0;
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
  try {
    await setBridgeToken(input.value);
    input.value = '';
    sayBridge('bridge-message', 'Pairing token saved.', 'ok');
  } catch (err) {
    sayBridge('bridge-message', err.message, 'bad'); // tokenProblem never quotes the token
  }
});
$('bridge-remove').addEventListener('click', async () => {
  await removeBridgeToken();
  sayBridge('bridge-message', $('bridge-unpaired').checked
    ? 'Pairing token removed: only a bridge that does not pair is used now.'
    : 'Pairing token removed: nothing is shared until a new one is saved.', 'ok');
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

/** The history's memory bound: the default (64 MB) unless the user chose another. */
async function renderHistory() {
  const mb = (await historyMb()) ?? 64;
  $('history-mb').value = String(mb);
}

$('history-mb').addEventListener('change', async (e) => {
  const mb = Number(/** @type {HTMLSelectElement} */ (e.target).value);
  const m = $('history-message');
  try {
    await setHistoryMb(mb === 64 ? null : mb);
    m.textContent = `Each provider’s history may now hold ${mb} MB. A lower bound drops the oldest steps at once; states dropped for a bound too small come back with the app’s next snapshot (a reload).`;
    m.className = 'form-message ok';
  } catch (err) {
    m.textContent = err.message;
    m.className = 'form-message bad';
  }
});

/** "Open options" after a provider refused the connection: its address in the form, the token field focused. */
async function tokenRequested() {
  const origin = await takeTokenRequest();
  if (!origin) return;
  $('token-origin').value = origin;
  $('token-value').value = '';
  $('token-value').focus();
  say(`${origin} refused the connection: paste its token and save.`);
}

onStorageChanged((changes, area) => {
  if (area === 'session' && changes[KEYS.OPTIONS_FOCUS]?.newValue) tokenRequested();
  if (area === 'session' && KEYS.BRIDGE_STATUS in changes) renderBridgeStatus(changes[KEYS.BRIDGE_STATUS].newValue);
  if (area === 'local' && [KEYS.BRIDGE_ENABLED, KEYS.BRIDGE_URL, KEYS.BRIDGE_TOKEN_INDEX, KEYS.BRIDGE_ALLOW_UNPAIRED].some((k) => k in changes)) renderBridgeSettings();
  if (area !== 'local') return;
  if ('tokenIndex' in changes) renderTokens();
  if ('approvals' in changes) renderApprovals();
  if ('stringWebhookIndex' in changes) renderString();
  if (KEYS.HISTORY_MB in changes) renderHistory();
});

$('ext-origin').textContent = extensionBase.replace(/\/$/, '');
Promise.all([renderTokens(), renderApprovals(), renderString(), renderHistory(), renderBridgeSettings(), bridgeStatus().then(renderBridgeStatus), tokenRequested()])
  .then(() => { document.body.dataset.ready = '1'; });
