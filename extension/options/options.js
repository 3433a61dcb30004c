// options.js: tokens per provider origin (add, replace, remove; listed masked, never read back)
// and approvals (revoke). Writes go straight to chrome.storage through settings-store.js; the
// service worker sees the change (storage.onChanged) and reconnects or disconnects. The token
// therefore never travels in a message, and this page never reads a stored token.

import { setToken, removeToken, listTokens, listApprovals, revokeApproval } from '../shared/settings-store.js';
import { onStorageChanged, extensionBase } from '../shared/browser.js';
import { h, setChildren } from '../shared/dom.js';

const $ = (id) => document.getElementById(id);

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

onStorageChanged((changes, area) => {
  if (area !== 'local') return;
  if ('tokenIndex' in changes) renderTokens();
  if ('approvals' in changes) renderApprovals();
});

$('ext-origin').textContent = extensionBase.replace(/\/$/, '');
Promise.all([renderTokens(), renderApprovals()]).then(() => { document.body.dataset.ready = '1'; });
