// options/tokens-section.js: tokens per provider origin (add, replace, remove; listed masked, never
// read back), and the token field focused when another page asks ("Open options" after a refusal).

import { setToken, removeToken, listTokens, takeOptionsFocus } from '../shared/settings-store.js';
import { h, setChildren } from '../shared/dom.js';
import { $, when } from './page.js';
import { setCodeText } from '../shared/code-text.js';

export function say(text, kind) {
  const m = $('token-message');
  setCodeText(m, text);
  m.className = `form-message ${kind ?? ''}`;
}

export async function renderTokens() {
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

/**
 * "Open options" from another page: after a provider refused the connection, its address in the
 * form and the token field focused; from the Playground, the Agent models section.
 */
export async function tokenRequested() {
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
