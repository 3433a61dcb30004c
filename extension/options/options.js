// options.js: tokens per provider origin (add, replace, remove; listed masked, never read back),
// approvals (revoke), the String agent's webhook and the desktop bridge (on/off, pairing code,
// bridges that do not pair, address, its status as the worker publishes it, and what it shares,
// each in-page provider with "invoke without asking" for this browser session), and the Agent
// playground's model endpoints (profiles: add, edit, list the endpoint's models, default, step
// limit, state budget and tools at most, API key set or removed but never read back, host access
// asked for from the click that saves). Writes go straight to chrome.storage through settings-store.js; the
// service worker sees the change (storage.onChanged) and reconnects or disconnects. The token
// therefore never travels in a message, and this page never reads a stored token.

import {
  setToken, removeToken, listTokens, listApprovals, revokeApproval, setStringWebhook, removeStringWebhook, stringWebhookInfo,
  KEYS, setBridgeEnabled, setBridgeToken, removeBridgeToken, setBridgeUrl, bridgeSettingsInfo, bridgeStatus, takeOptionsFocus,
  setBridgeAllowUnpaired, setBridgeTrust, historyMb, setHistoryMb,
  listAgentProfiles, saveAgentProfile, removeAgentProfile, setAgentKey, setDefaultAgentProfile, agentProfileProblem, agentKeyProblem,
  AGENT_LIMITS, localAppsEnabled, setLocalAppsEnabled,
} from '../shared/settings-store.js';
import { onStorageChanged, extensionBase, originAccess, requestNativeMessaging, removeNativeMessaging, onPermissionsChanged } from '../shared/browser.js';
import { h, setChildren } from '../shared/dom.js';
import { PORTS, Request, ErrorCode, Push } from '../shared/messages.js';
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
 *   'token-value': HTMLInputElement, 'tokens': HTMLTableElement,
 *   'agent-profiles': HTMLTableElement, 'agent-form': HTMLFormElement, 'agent-name': HTMLInputElement,
 *   'agent-kind': HTMLSelectElement, 'agent-url': HTMLInputElement, 'agent-model': HTMLInputElement,
 *   'agent-model-options': HTMLDataListElement, 'agent-model-pick': HTMLSelectElement, 'agent-steps': HTMLInputElement,
 *   'agent-key': HTMLInputElement, 'agent-save': HTMLButtonElement, 'agent-cancel': HTMLButtonElement,
 *   'local-enabled': HTMLInputElement, 'local-retry': HTMLButtonElement,
 *   'agent-list-models': HTMLButtonElement, 'agent-state': HTMLSelectElement, 'agent-tools': HTMLInputElement, 'agent-first-byte': HTMLInputElement, 'agent-idle': HTMLInputElement, 'agent-run': HTMLInputElement
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
const worker = () => (stringPort ??= new UiPort(PORTS.OPTIONS, null, {
  onPush: (m) => { if (m?.type === Push.LOCAL_APPS) renderLocalState(m); },
  // A worker that started again forgot who follows local apps: ask again.
  onState: (st, { reconnected }) => { if (st === 'connected' && reconnected && localFollowed) askLocalApps(); },
}).start());
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

// ---- desktop bridge: the pairing code is a secret (written here, read only by the worker) ------

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
  if (info.token) $('bridge-saved-text').textContent = `Pairing code saved: •••••••• (${when(info.token.setAt)}). Only a bridge that proves it knows this code is paired; the code never leaves this browser.`;
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
    sayBridge('bridge-message', 'Pairing code saved. The bridge must now prove it knows it.', 'ok');
  } catch (err) {
    sayBridge('bridge-message', err.message, 'bad'); // setBridgeToken never quotes what was typed
  }
});
$('bridge-remove').addEventListener('click', async () => {
  await removeBridgeToken();
  sayBridge('bridge-message', $('bridge-unpaired').checked
    ? 'Pairing code removed: only a bridge that does not pair is used now.'
    : 'Pairing code removed: nothing is shared until a new one is saved.', 'ok');
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

// ---- Agent models: the Agent playground's endpoints (a key is written here, read only by the worker) -----

/** @typedef {import('../shared/settings-store.js').AgentProfile} AgentProfile */

const AGENT_KINDS = /** @type {Record<string, string>} */ ({ openai: 'OpenAI-compatible', ollama: 'Ollama' });
const AGENT_DEFAULT_STEPS = 8;

/** A state budget in words: "16 KiB", "9.8 KiB", "512 bytes". @param {number} bytes */
function kibText(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  return `${bytes % 1024 === 0 ? bytes / 1024 : (bytes / 1024).toFixed(1)} KiB`;
}

/** What a profile's row says of its state budget and tools when not the defaults ("state 16 KiB · 32 tools"), or ''. @param {AgentProfile} p */
function limitsText(p) {
  return [
    p.maxStateBytes !== undefined && p.maxStateBytes !== AGENT_LIMITS.defaultStateBytes ? `state ${kibText(p.maxStateBytes)}` : null,
    p.maxTools !== undefined && p.maxTools !== AGENT_LIMITS.defaultTools ? `${p.maxTools} ${p.maxTools === 1 ? 'tool' : 'tools'}` : null,
  ].filter(Boolean).join(' · ');
}

/** The state budget's choices; the default is the form's (reset) choice. */
setChildren($('agent-state'), AGENT_LIMITS.stateKiB.map((kib) => {
  const bytes = kib * 1024, isDefault = bytes === AGENT_LIMITS.defaultStateBytes;
  return h('option', { value: String(bytes), selected: isDefault, text: `${kib} KiB${isDefault ? ' (default)' : ''}` });
}));

/** The base URLs most users want, one click each. */
const AGENT_PRESETS = [
  { label: 'Ollama', kind: 'ollama', baseUrl: 'http://127.0.0.1:11434' },
  { label: 'llama.cpp server', kind: 'openai', baseUrl: 'http://127.0.0.1:8080' },
  { label: 'LM Studio', kind: 'openai', baseUrl: 'http://127.0.0.1:1234' },
  { label: 'vLLM', kind: 'openai', baseUrl: 'http://127.0.0.1:8000' },
  { label: 'OpenRouter', kind: 'openai', baseUrl: 'https://openrouter.ai/api' },
  { label: 'OpenAI', kind: 'openai', baseUrl: 'https://api.openai.com' },
];

/** The profile the form edits (as last listed), or null: the form adds one. @type {AgentProfile|null} */
let editing = null;
/** The profiles as last listed. @type {AgentProfile[]} */
let agentProfiles = [];

// Whether the extension may reach each endpoint: known once the browser said what is granted.
/** @type {(value?: unknown) => void} */
let accessKnown;
const accessReady = new Promise((resolve) => { accessKnown = resolve; });
const access = originAccess(() => {
  accessKnown();
  renderAgentProfiles();
});

/** "http://127.0.0.1:8080" for a base URL, or null when it is not an http(s) URL. @param {string} baseUrl */
function originOf(baseUrl) {
  try {
    const url = new URL(String(baseUrl).trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

/** @param {string} id @param {string} text @param {string} [kind]  ok | bad | warn */
function sayIn(id, text, kind) {
  const m = $(id);
  m.textContent = text;
  m.className = `${m.classList.contains('models-message') ? 'models-message' : 'form-message'} ${kind ?? ''}`;
}
const sayAgent = (text, kind) => sayIn('agent-message', text, kind);
const sayAgentList = (text, kind) => sayIn('agent-list-message', text, kind);
const sayModels = (text, kind) => sayIn('agent-models-message', text, kind);

/** What a refused host access means, in words. @param {string} origin */
const noAccessText = (origin) => `The extension may not reach ${origin} yet, so the playground cannot use it: choose Allow access in the list and accept the browser’s prompt.`;

async function renderAgentProfiles() {
  await accessReady;
  const { profiles, defaultId } = await listAgentProfiles();
  agentProfiles = profiles;
  if (editing) {
    editing = profiles.find((p) => p.id === editing.id) ?? null;
    if (editing) renderAgentKeyState();
    else resetAgentForm('The profile being edited was removed.');
  }
  const tbody = $('agent-profiles').tBodies[0];
  // A re-render (any storage change) replaces the rows: the focused control gets its focus back.
  const focused = /** @type {HTMLElement|null} */ (document.activeElement);
  const focusRow = tbody.contains(focused) ? focused.closest('tr')?.dataset.profile : null;
  const focusAction = focusRow ? focused.dataset.action : null;
  $('agent-profiles-empty').hidden = profiles.length > 0;
  $('agent-profiles').hidden = profiles.length === 0;
  setChildren(tbody, profiles.map((p) => {
    const origin = originOf(p.baseUrl);
    const reachable = origin ? access.has(origin) : true;
    const isDefault = p.id === defaultId;
    return h('tr', { 'data-profile': p.id, class: editing?.id === p.id ? 'editing' : null },
      h('td', { class: 'agent-name-cell' },
        h('label', { class: 'default-pick', title: 'The playground starts with the default endpoint' },
          h('input', {
            type: 'radio', name: 'agent-default', value: p.id, checked: isDefault, 'data-action': 'agent-default',
            'aria-label': `Default: ${p.name}`,
            onchange: async () => {
              await setDefaultAgentProfile(p.id);
              sayAgentList(`“${p.name}” is the playground’s default now.`, 'ok');
            },
          }),
          h('b', { text: p.name })),
        isDefault ? h('span', { class: 'pill default-pill', text: 'default' }) : null),
      h('td', {},
        h('div', { class: 'muted', text: AGENT_KINDS[p.kind] ?? p.kind }),
        h('code', { text: p.baseUrl }),
        reachable ? null : h('div', { class: 'no-access' },
          h('span', { text: 'Not allowed to reach it yet. ' }),
          h('button', { type: 'button', 'data-action': 'agent-allow', 'aria-label': `Allow access to ${origin}`, onclick: () => {
            access.ensure(origin).then((ok) => sayAgentList(ok ? `The extension may reach ${origin} now.`
              : `Access to ${origin} was not allowed: the playground cannot use “${p.name}” until it is.`, ok ? 'ok' : 'warn'));
          } }, 'Allow access'))),
      h('td', {},
        h('code', { text: p.model }),
        h('div', { class: 'muted steps', text: `up to ${p.maxSteps ?? AGENT_DEFAULT_STEPS} steps` }),
        limitsText(p) ? h('div', { class: 'muted limits', 'data-role': 'agent-limits', text: limitsText(p) }) : null),
      h('td', { class: p.key ? 'key key-set' : 'key muted', text: p.key ? `set (${p.key.length} characters)` : 'no key' }),
      h('td', {},
        h('button', { type: 'button', 'data-action': 'agent-edit', 'aria-label': `Edit ${p.name}`, onclick: () => editAgentProfile(p) }, 'Edit'),
        h('button', { type: 'button', class: 'danger', 'data-action': 'agent-remove', 'aria-label': `Remove ${p.name}`, onclick: () => removeAgent(p) }, 'Remove')));
  }));
  if (focusRow) {
    const row = [...tbody.rows].find((r) => r.dataset.profile === focusRow);
    /** @type {HTMLElement|null} */ (row?.querySelector(`[data-action="${focusAction}"]`) ?? null)?.focus();
  }
}

/** A number field's value: undefined when empty, NaN when it holds no number. @param {HTMLInputElement} input */
function numberOf(input) {
  const text = input.value.trim();
  return input.validity.badInput ? NaN : text === '' ? undefined : Number(text);
}

/**
 * The form's fields as saveAgentProfile takes them (a number NaN when its field holds no number;
 * the state budget and tools undefined at their defaults, so the profile does not store them).
 */
function agentFormFields() {
  const bytes = Number($('agent-state').value);
  const tools = numberOf($('agent-tools'));
  return {
    ...(editing ? { id: editing.id } : {}),
    name: $('agent-name').value,
    kind: $('agent-kind').value,
    baseUrl: $('agent-url').value,
    model: $('agent-model').value,
    maxSteps: numberOf($('agent-steps')),
    maxStateBytes: bytes === AGENT_LIMITS.defaultStateBytes ? undefined : bytes,
    maxTools: tools === AGENT_LIMITS.defaultTools ? undefined : tools,
    ...timeLimitFields(),
  };
}

/** The time limits in ms from their fields in seconds (NaN when a field holds no number). */
function timeLimitFields() {
  const ms = (el) => {
    const n = numberOf(el);
    return n === undefined ? undefined : Math.round(n * 1000);
  };
  return { firstByteMs: ms($('agent-first-byte')), idleMs: ms($('agent-idle')), runMs: ms($('agent-run')) };
}

/** The field a problem (settings-store's words) is about. @param {string} problem */
function fieldOf(problem) {
  if (/\bURL\b/.test(problem)) return $('agent-url');
  if (/\bname\b/i.test(problem)) return $('agent-name');
  if (/step limit/i.test(problem)) return $('agent-steps');
  if (/state budget/i.test(problem)) return $('agent-state');
  if (/\btools\b/i.test(problem)) return $('agent-tools');
  if (/firstByteMs|first byte/i.test(problem)) return $('agent-first-byte');
  if (/idleMs|silence/i.test(problem)) return $('agent-idle');
  if (/runMs|whole run/i.test(problem)) return $('agent-run');
  if (/\bkind\b/i.test(problem)) return $('agent-kind');
  if (/\bmodel\b/i.test(problem)) return $('agent-model');
  if (/\bkey\b/i.test(problem)) return $('agent-key');
  return null;
}

/** The key's line for the profile being edited: "set (N characters)" with Replace and Remove key. */
function renderAgentKeyState() {
  const key = editing?.key ?? null;
  $('agent-key-saved').hidden = !key;
  if (key) $('agent-key-saved-text').textContent = `API key: set (${key.length} characters).`;
  $('agent-key').placeholder = key ? 'leave empty to keep the saved key' : 'none for a local endpoint';
}

function clearListedModels() {
  setChildren($('agent-model-options'));
  setChildren($('agent-model-pick'));
  $('agent-model-pick-box').hidden = true;
  sayModels('');
}

/** Back to "Add a model endpoint", the fields empty. @param {string} [message] */
function resetAgentForm(message) {
  editing = null;
  for (const o of $('agent-state').querySelectorAll('option.stored')) o.remove(); // a stored budget not among the choices
  $('agent-form').reset(); // the limits back to their defaults; the key field empty
  delete $('agent-form').dataset.mode;
  $('agent-form-h').textContent = 'Add a model endpoint';
  $('agent-save').textContent = 'Add endpoint';
  $('agent-cancel').hidden = true;
  renderAgentKeyState();
  clearListedModels();
  for (const r of $('agent-profiles').tBodies[0].rows) r.classList.remove('editing');
  sayAgent(message ?? '');
}

/** @param {AgentProfile} p */
function editAgentProfile(p) {
  resetAgentForm();
  editing = p;
  $('agent-form').dataset.mode = 'edit';
  $('agent-form-h').textContent = `Edit “${p.name}”`;
  $('agent-save').textContent = 'Save changes';
  $('agent-cancel').hidden = false;
  $('agent-name').value = p.name;
  $('agent-kind').value = p.kind;
  $('agent-url').value = p.baseUrl;
  $('agent-model').value = p.model;
  $('agent-steps').value = String(p.maxSteps ?? AGENT_DEFAULT_STEPS);
  // The profile's own budget, even one that is not among the choices (set in storage or by an
  // older version): saving keeps it unless another is chosen.
  const bytes = String(p.maxStateBytes ?? AGENT_LIMITS.defaultStateBytes);
  const options = [...$('agent-state').options];
  if (!options.some((o) => o.value === bytes)) {
    const next = options.find((o) => Number(o.value) > Number(bytes)) ?? null;
    $('agent-state').insertBefore(h('option', { class: 'stored', value: bytes, text: `${kibText(Number(bytes))} (this profile’s)` }), next);
  }
  $('agent-state').value = bytes;
  $('agent-tools').value = String(p.maxTools ?? AGENT_LIMITS.defaultTools);
  $('agent-first-byte').value = String((p.firstByteMs ?? AGENT_LIMITS.defaultFirstByteMs) / 1000);
  $('agent-idle').value = String((p.idleMs ?? AGENT_LIMITS.defaultIdleMs) / 1000);
  $('agent-run').value = String((p.runMs ?? AGENT_LIMITS.defaultRunMs) / 1000);
  renderAgentKeyState();
  for (const r of $('agent-profiles').tBodies[0].rows) r.classList.toggle('editing', r.dataset.profile === p.id);
  $('agent-form').scrollIntoView({ block: 'nearest' });
  $('agent-name').focus();
}

/** @param {AgentProfile} p */
async function removeAgent(p) {
  const rows = [...$('agent-profiles').tBodies[0].rows];
  const next = rows[rows.findIndex((r) => r.dataset.profile === p.id) + 1] ?? rows.find((r) => r.dataset.profile !== p.id);
  const nextId = next?.dataset.profile;
  if (editing?.id === p.id) resetAgentForm();
  await removeAgentProfile(p.id);
  sayAgentList(`Removed “${p.name}”${p.key ? ' and its API key' : ''}.`, 'ok');
  await renderAgentProfiles();
  // The focus goes to the next row's Remove (or the form when none is left), not to the page's top.
  const row = nextId ? [...$('agent-profiles').tBodies[0].rows].find((r) => r.dataset.profile === nextId) : null;
  /** @type {HTMLElement} */ (row?.querySelector('[data-action="agent-remove"]') ?? $('agent-name')).focus();
}

/** Saves the form (the browser's access prompt, if any, was started by the click). */
async function saveAgentForm(fields, key, origin, allowed) {
  const button = $('agent-save');
  button.disabled = true;
  let id;
  try {
    id = await saveAgentProfile(fields);
    if (key) await setAgentKey(id, key);
  } catch (err) {
    sayAgent(err.message, 'bad'); // settings-store's messages never quote the key
    fieldOf(err.message)?.focus();
    return;
  } finally {
    button.disabled = false;
  }
  const name = fields.name.trim();
  const done = `${fields.id ? 'Saved' : 'Added'} “${name}”${key ? ` with its API key (${key.length} characters)` : ''}.`;
  resetAgentForm();
  $('agent-key').value = '';
  const answer = await Promise.race([allowed, new Promise((r) => setTimeout(() => r(null), 0))]);
  if (answer === null) sayAgent(`${done} Answer the browser’s prompt to let the extension reach ${origin}.`);
  const ok = answer ?? await allowed;
  if (ok) sayAgent(`${done} The DevTools panel’s Playground tab can use it.`, 'ok');
  else sayAgent(`${done} ${noAccessText(origin)}`, 'warn');
}

$('agent-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const fields = agentFormFields();
  const key = $('agent-key').value;
  const problem = agentProfileProblem(fields) ?? (key ? agentKeyProblem(key) : null);
  if (problem) {
    sayAgent(problem, 'bad');
    fieldOf(problem)?.focus();
    return;
  }
  const origin = /** @type {string} */ (originOf(fields.baseUrl)); // a valid http(s) URL: checked above
  // From the click (a user gesture), before anything is awaited: Firefox requires it.
  const allowed = access.ensure(origin);
  saveAgentForm(fields, key, origin, allowed);
});

$('agent-cancel').addEventListener('click', () => {
  const id = editing?.id;
  resetAgentForm();
  const row = [...$('agent-profiles').tBodies[0].rows].find((r) => r.dataset.profile === id);
  /** @type {HTMLElement} */ (row?.querySelector('[data-action="agent-edit"]') ?? $('agent-name')).focus();
});

$('agent-key-replace').addEventListener('click', () => {
  $('agent-key').value = '';
  $('agent-key').focus();
  sayAgent(`Paste the new API key for “${editing?.name ?? ''}” and save.`);
});

$('agent-key-remove').addEventListener('click', async () => {
  if (!editing) return;
  const { id, name } = editing;
  try {
    await setAgentKey(id, null);
  } catch (err) {
    sayAgent(err.message, 'bad');
    return;
  }
  editing = { ...editing, key: null };
  renderAgentKeyState();
  $('agent-key').focus();
  sayAgent(`API key of “${name}” removed: requests to it carry no key now.`, 'ok');
});

for (const preset of AGENT_PRESETS) {
  $('agent-presets').append(h('button', {
    type: 'button', class: 'preset', 'data-preset': preset.label, title: `${AGENT_KINDS[preset.kind]}: ${preset.baseUrl}`,
    'aria-label': `${preset.label}: ${preset.baseUrl}`,
    onclick: () => {
      $('agent-kind').value = preset.kind;
      $('agent-url').value = preset.baseUrl;
      if (!$('agent-name').value.trim()) $('agent-name').value = preset.label;
      clearListedModels();
    },
  }, preset.label));
}

// A listed model belongs to the endpoint it came from.
$('agent-url').addEventListener('input', clearListedModels);
$('agent-kind').addEventListener('change', clearListedModels);
$('agent-model-pick').addEventListener('change', (e) => {
  const v = /** @type {HTMLSelectElement} */ (e.target).value;
  if (v) $('agent-model').value = v;
});

// "List models": the worker asks the endpoint (a saved profile with its key; the form's endpoint,
// not saved yet, without one). The key never comes to this page.
$('agent-list-models').addEventListener('click', async () => {
  const kind = $('agent-kind').value;
  const baseUrl = $('agent-url').value.trim();
  const origin = originOf(baseUrl);
  if (!origin) {
    sayModels(baseUrl ? `“${baseUrl.slice(0, 80)}” is not an http:// or https:// URL.` : 'Enter the endpoint’s base URL first (or pick one above).', 'bad');
    $('agent-url').focus();
    return;
  }
  const saved = editing && editing.kind === kind && editing.baseUrl === baseUrl;
  const allowed = access.ensure(origin); // from the click, like Save
  const button = $('agent-list-models');
  button.disabled = true;
  clearListedModels();
  sayModels(`Asking ${origin}…`);
  try {
    if (!(await allowed)) {
      sayModels(`The extension may not reach ${origin}: allow it when the browser asks (List models or Save ask again).`, 'bad');
      return;
    }
    const { models } = await worker().request(Request.AGENT_MODELS, saved ? { profileId: editing.id } : { endpoint: { kind, baseUrl } }, 30_000);
    const ids = [...new Set(models.map((m) => String(m.id)))];
    setChildren($('agent-model-options'), ids.map((id) => h('option', { value: id })));
    if (ids.length === 0) {
      sayModels(`${origin} lists no models: type the model’s id.`, 'warn');
      return;
    }
    const current = $('agent-model').value.trim();
    setChildren($('agent-model-pick'),
      h('option', { value: '', text: `Choose one of ${ids.length}…` }),
      ids.map((id) => h('option', { value: id, text: id, selected: id === current })));
    $('agent-model-pick-box').hidden = false;
    sayModels(`${ids.length} model${ids.length === 1 ? '' : 's'} at ${origin}.`, 'ok');
  } catch (err) {
    const words = err.code === ErrorCode.TIMEOUT ? `${origin} did not answer in time.`
      : err.code === ErrorCode.DISCONNECTED ? 'The extension’s background worker does not answer: reload this page.' : err.message;
    // A key typed here is not sent before it is saved (the worker alone reads keys).
    const hint = !saved && $('agent-key').value ? ' The key typed here is used once the profile is saved: save it, then list again.' : '';
    sayModels(`${words}${hint}`, 'bad');
  } finally {
    button.disabled = false;
  }
});

// --------------------------------------------------------------------------- local apps
// The switch asks for nativeMessaging synchronously in its change handler (Firefox grants a
// permission only from the user's input handler), and stores the setting once it is granted; the
// worker then starts the native host, whose state (and the directories it refused) shows here.

let localFollowed = false;

function sayLocal(text, kind = '') {
  const el = $('local-status');
  el.textContent = text;
  el.className = kind ? `form-message ${kind}` : 'form-message';
}

/** @param {import('../shared/messages.js').LocalAppsState} st */
function renderLocalState(st) {
  $('local-install').hidden = st.state !== 'no-host' && st.state !== 'failed';
  if (st.state === 'ready') {
    const n = st.apps.length;
    const waiting = st.apps.filter((a) => a.transport?.type === 'stdio' && !a.approved).length;
    sayLocal(`The native host is running: ${n === 0 ? 'no local app is announced now' : `${n} local app${n === 1 ? '' : 's'} announced`}` +
      `${waiting ? ` (${waiting} run${waiting === 1 ? 's' : ''} a command you have not approved yet: approve it in the panel)` : ''}. They are listed in the panel’s Local apps.`, 'ok');
  } else {
    // The install box below says the command: the words need not say it again.
    const words = $('local-install').hidden ? st.message : st.message.replace(/ ?(Install it with|Is it installed) .*$/, '');
    sayLocal(words, st.state === 'off' || st.state === 'connecting' ? '' : 'bad');
  }
  setChildren($('local-refused'), st.refused.map((d) => h('li', { 'data-dir': d.dir },
    h('span', { text: `${d.dir}: not read: ${d.why}` }), d.fix ? [' Fix: ', h('code', { text: d.fix })] : null)));
}

function askLocalApps() {
  localFollowed = true;
  return worker().request(Request.LOCAL_APPS, {}, 20_000).then(renderLocalState, (e) => sayLocal(e.message, 'bad'));
}

async function renderLocalSettings() {
  const on = await localAppsEnabled();
  $('local-enabled').checked = on;
  if (on) askLocalApps();
  else sayLocal('Off.');
}

$('local-enabled').addEventListener('change', (e) => {
  const box = /** @type {HTMLInputElement} */ (e.target);
  if (box.checked) {
    const asked = requestNativeMessaging(); // before any await: see browser.js
    sayLocal('Asking the browser for native messaging…');
    asked.then(async (ok) => {
      if (!ok) {
        box.checked = false;
        sayLocal('The browser did not grant native messaging: local apps stay off.', 'bad');
        return;
      }
      await setLocalAppsEnabled(true);
    });
  } else {
    setLocalAppsEnabled(false).then(() => removeNativeMessaging());
  }
});
$('local-retry').addEventListener('click', () => { sayLocal('Trying the native host again…'); askLocalApps(); });
onPermissionsChanged(() => { if ($('local-enabled').checked) askLocalApps(); });

/**
 * "Open options" from another page: after a provider refused the connection, its address in the
 * form and the token field focused; from the Playground, the Agent models section.
 */
async function tokenRequested() {
  const asked = await takeOptionsFocus();
  if (asked?.section) {
    const section = document.getElementById(asked.section);
    section?.scrollIntoView({ block: 'start' });
    /** @type {HTMLElement|null|undefined} */ (section?.querySelector('input, select, button'))?.focus({ preventScroll: true });
    return;
  }
  const origin = asked?.origin;
  if (!origin) return;
  $('token-origin').value = origin;
  $('token-value').value = '';
  $('token-value').focus();
  say(`${origin} refused the connection: paste its token and save.`);
}

onStorageChanged((changes, area) => {
  if (area === 'session' && changes[KEYS.OPTIONS_FOCUS]?.newValue) tokenRequested();
  if (area === 'session' && KEYS.BRIDGE_STATUS in changes) renderBridgeStatus(changes[KEYS.BRIDGE_STATUS].newValue);
  if (area === 'local' && KEYS.LOCAL_APPS in changes) renderLocalSettings();
  if (area === 'local' && [KEYS.BRIDGE_ENABLED, KEYS.BRIDGE_URL, KEYS.BRIDGE_TOKEN_INDEX, KEYS.BRIDGE_ALLOW_UNPAIRED].some((k) => k in changes)) renderBridgeSettings();
  if (area !== 'local') return;
  if ('tokenIndex' in changes) renderTokens();
  if ('approvals' in changes) renderApprovals();
  if ('stringWebhookIndex' in changes) renderString();
  if (KEYS.HISTORY_MB in changes) renderHistory();
  if ([KEYS.AGENT_PROFILES, KEYS.AGENT_KEY_INDEX, KEYS.AGENT_DEFAULT].some((k) => k in changes)) renderAgentProfiles();
});

$('ext-origin').textContent = extensionBase.replace(/\/$/, '');
Promise.all([renderTokens(), renderApprovals(), renderString(), renderHistory(), renderBridgeSettings(), bridgeStatus().then(renderBridgeStatus), tokenRequested(),
  renderAgentProfiles(), renderLocalSettings()])
  .then(() => { document.body.dataset.ready = '1'; });
