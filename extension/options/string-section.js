// options/string-section.js: the String agent's webhook: pasted, or found on this machine by the
// worker (the URL never reaches this page).

import { setStringWebhook, removeStringWebhook, stringWebhookInfo } from '../shared/settings-store.js';
import { h, setChildren } from '../shared/dom.js';
import { Request } from '../shared/messages.js';
import { $, when, worker } from './page.js';
import { setCodeText } from '../shared/code-text.js';

// ---- String agent: the webhook URL is a secret (written here, read only by the worker) --------

function sayString(text, kind) {
  const m = $('string-message');
  setCodeText(m, text);
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

export async function renderString() {
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

/** The last answer of STRING_FIND_AGENTS. */
let found = null;

function sayFind(text, kind) {
  const m = $('string-find-message');
  setCodeText(m, text);
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
