// options/agent-models-section.js: the Agent playground's model endpoints (profiles: add, edit, list
// the endpoint's models, default, step limit, state budget and tools at most, API key set or removed
// but never read back, host access asked for from the click that saves).

import { listAgentProfiles, saveAgentProfile, removeAgentProfile, setAgentKey, setDefaultAgentProfile, agentProfileProblem, agentKeyProblem, AGENT_LIMITS } from '../shared/settings-store.js';
import { originAccess } from '../shared/browser.js';
import { h, setChildren } from '../shared/dom.js';
import { Request, ErrorCode } from '../shared/messages.js';
import { $, when, worker } from './page.js';
import { setCodeText } from '../shared/code-text.js';

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
  setCodeText(m, text);
  m.className = `${m.classList.contains('models-message') ? 'models-message' : 'form-message'} ${kind ?? ''}`;
}
const sayAgent = (text, kind) => sayIn('agent-message', text, kind);
const sayAgentList = (text, kind) => sayIn('agent-list-message', text, kind);
const sayModels = (text, kind) => sayIn('agent-models-message', text, kind);

/** What a refused host access means, in words. @param {string} origin */
const noAccessText = (origin) => `The extension may not reach ${origin} yet, so the playground cannot use it: choose Allow access in the list and accept the browser’s prompt.`;

export async function renderAgentProfiles() {
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
