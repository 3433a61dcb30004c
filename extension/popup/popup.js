// popup.js: the toolbar popup for one tab: providers found, their status, name and capabilities
// (from hello), approve/deny for cross-origin targets, retry, the desktop bridge (its status, what
// it shares, and the invokes from desktop agents waiting for approval), and a way to options.
// As a plain page for tests: popup.html?tabId=N.

import { PORTS, Request, Push, Status } from '../shared/messages.js';
import { activeTabId, openOptionsPage, onStorageChanged, hasSiteAccess, requestSiteAccess } from '../shared/browser.js';
import { stringWebhookInfo, bridgeStatus, KEYS, askTokenFor, setBridgeTrust } from '../shared/settings-store.js';
import { UiPort } from '../shared/ui-port.js';
import { h, setChildren } from '../shared/dom.js';
import { codeText } from '../shared/code-text.js';
import { statusLabel, syncText, providerTitle, transportText, canRetryNow } from '../shared/status-text.js';
import { bridgePill, bridgeModeText, bridgeSharedText, bridgeNeedsUser, bridgeCanRetry } from '../shared/bridge-text.js';

/**
 * The element of popup.html with this id, as the element its tag makes it (the caller's type).
 * @template {HTMLElement} [E=HTMLElement]
 * @param {string} id @returns {E}
 */
const $ = (id) => /** @type {E} */ (document.getElementById(id));
let last = null;
let port = null;
/** A String agent's webhook is set (Options): providers with state get "Send to String agent". */
let stringSet = false;
/** The extension may read web pages (Firefox lets the user withhold it); null until known. */
let siteAccess = null;

function originOf(url) {
  try { return new URL(url).origin; } catch { return url ?? ''; }
}

function act(button, type, key) {
  button.disabled = true;
  port.request(type, { key })
    .catch((e) => { button.replaceWith(h('span', { class: 'error-text', text: e.message })); })
    .finally(() => { button.disabled = false; });
}

/** The last "Send to String agent" outcome per provider: kept across re-renders. */
const stringResults = new Map();

/** One request per click; the daemon's answer shown in words under the card's buttons. */
function sendToString(button, key) {
  button.disabled = true;
  stringResults.set(key, { text: 'Sending…', ok: '' });
  if (last) render(last);
  port.request(Request.SEND_TO_STRING, { key })
    .then((r) => stringResults.set(key, { text: r.message + (r.kept < r.total ? ` (cut to ${r.kept} of ${r.total} nodes to fit)` : ''), ok: String(r.ok) }))
    .catch((e) => stringResults.set(key, { text: e.message, ok: 'false' }))
    .finally(() => { if (last) render(last); });
}

function providerCard(p) {
  const actions = [];
  if (p.status === Status.PENDING_APPROVAL || p.status === Status.DENIED) {
    const approveBtn = h('button', { class: 'primary', type: 'button', 'data-action': 'approve', onclick: (e) => act(e.target, Request.APPROVE, p.key) }, 'Approve');
    const denyBtn = p.status === Status.DENIED ? null
      : h('button', { type: 'button', 'data-action': 'deny', onclick: (e) => act(e.target, Request.DENY, p.key) }, 'Deny');
    actions.push(h('div', { class: 'approval' },
      h('p', {}, 'The page ', h('code', { text: p.approvalPage }), ' names a provider on another origin: ', h('code', { text: p.approvalTarget }),
        '. Connect to it? Your answer is remembered for this page origin and target.'),
      h('div', { class: 'actions' }, approveBtn, denyBtn)));
  } else {
    const row = [];
    if (p.status === Status.AUTH_FAILED) {
      // The options page opens on this provider's token (askTokenFor), its field focused.
      const ask = () => (p.transport?.type === 'ws' ? askTokenFor(p.transport.url).catch(() => {}) : Promise.resolve());
      row.push(h('button', { type: 'button', 'data-action': 'options', onclick: () => ask().then(() => openOptionsPage()) }, p.tokenSet ? 'Change token…' : 'Set a token…'));
    }
    if (canRetryNow(p)) {
      row.push(h('button', { type: 'button', 'data-action': 'retry', onclick: (e) => act(e.target, Request.RETRY, p.key) }, 'Retry now'));
    }
    if (stringSet && p.nodes > 0) {
      row.push(h('button', { type: 'button', 'data-action': 'send-to-string', title: 'Send a text snapshot of this state to your String agent (one request)',
        disabled: stringResults.get(p.key)?.text === 'Sending…', onclick: (e) => sendToString(e.target, p.key) }, 'Send to String agent'));
    }
    if (row.length) actions.push(h('div', { class: 'actions' }, row));
  }
  const bad = [Status.AUTH_FAILED, Status.UNREACHABLE, Status.ERROR].includes(p.status);
  return h('div', { class: 'provider', 'data-key': p.key, 'data-status': p.status },
    h('div', { class: 'top' },
      h('span', { class: 'name', text: providerTitle(p), title: providerTitle(p) }),
      h('span', { class: 'pill', 'data-status': p.status, 'data-live': String(!!p.live), text: statusLabel(p) })),
    syncText(p) ? h('div', { class: 'sync', 'data-sync': p.sync?.state ?? '', text: syncText(p) }) : null,
    h('div', { class: 'where muted mono', text: transportText(p) }),
    p.provider ? h('div', { class: 'muted' }, 'id ', h('code', { text: p.provider.id }),
      p.provider.slop_version ? ` · SLOP ${p.provider.slop_version}` : '', p.nodes ? ` · ${p.nodes} nodes mirrored` : '') : null,
    p.message && p.status !== Status.PENDING_APPROVAL ? h('div', { class: `message ${bad ? 'error-text' : 'muted'}`, text: p.message }) : null,
    p.capabilities.length ? h('div', { class: 'caps' }, p.capabilities.map((c) => h('span', { class: 'chip', text: c }))) : null,
    actions,
    stringResults.has(p.key) ? h('div', { class: 'string-result', 'data-ok': stringResults.get(p.key).ok }, codeText(stringResults.get(p.key).text)) : null);
}

function render(msg) {
  last = msg;
  $('page').textContent = msg.pageUrl ? originOf(msg.pageUrl) : '';
  $('page').title = msg.pageUrl ?? '';
  if (msg.providers.length === 0 && !msg.pageUrl && siteAccess === false) {
    // Firefox: the user withheld the extension's access to websites, so nothing is read.
    setChildren($('providers'), h('div', { class: 'empty site-access', 'data-role': 'site-access' },
      h('p', { class: 'error-text', text: 'SLOP Inspector is not allowed to read websites, so it cannot find providers in this tab.' }),
      h('p', { class: 'muted', text: 'Allow it here, or in the add-on’s permissions (Firefox: Add-ons → SLOP Inspector → Permissions → Access your data for all websites); then reload the page.' }),
      h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'button', 'data-action': 'allow-sites', onclick: () => requestSiteAccess().then((ok) => {
        siteAccess = ok;
        if (last) render(last);
      }).catch(() => {}) }, 'Allow on all websites'))));
  } else if (msg.providers.length === 0) {
    setChildren($('providers'), h('div', { class: 'empty' },
      h('p', {}, msg.pageUrl ? 'No SLOP provider on this page.' : 'This tab has no page the extension can read (only http and https pages are scanned).'),
      h('p', { class: 'muted' }, 'A page announces one with ', h('code', { text: '<meta name="slop" content="ws://host:port/slop">' }),
        ' (or content="postmessage"), or serves ', h('code', { text: '/.well-known/slop' }), '.')));
  } else {
    setChildren($('providers'), msg.providers.map(providerCard));
  }
  const problems = msg.problems ?? [];
  $('problems').hidden = problems.length === 0;
  setChildren($('problems'), h('h2', { text: 'Ignored announcements' }),
    h('ul', {}, problems.map((p) => h('li', {}, h('code', { text: p.content }), ' — ', h('span', { class: 'error-text', text: p.error })))));
  document.body.dataset.ready = '1';
}

// ------------------------------------------------------------------------ desktop bridge

let bridge = null;
/** The tab this popup is for: its own providers are marked in the bridge's list. */
let shownTab = null;

/** "Don't ask again" goes to storage.session first, so the worker trusts the next invoke too. */
async function decide(button, a, allow) {
  const ask = button.closest('.bridge-ask');
  for (const el of ask.querySelectorAll('button, input')) el.disabled = true;
  try {
    if (allow && ask.querySelector('[data-action="bridge-trust"]')?.checked) await setBridgeTrust(a.trustKey, a.provider, true);
    await port.request(Request.BRIDGE_DECIDE, { approval: a.id, allow });
  } catch (e) {
    button.parentElement.replaceWith(h('p', { class: 'error-text', text: e.message }));
  }
}

const secondsLeft = (at) => Math.max(0, Math.round((at - Date.now()) / 1000));

/** Countdowns tick in place: the buttons are never rebuilt under the user's pointer. */
function tickBridge() {
  for (const el of /** @type {NodeListOf<HTMLElement>} */ ($('bridge').querySelectorAll('[data-until]'))) {
    el.textContent = el.dataset.format.replace('{s}', String(secondsLeft(Number(el.dataset.until))));
  }
}

function countdown(at, format, cls = 'muted') {
  return h('span', { class: cls, 'data-until': String(at), 'data-format': format, text: format.replace('{s}', String(secondsLeft(at))) });
}

/**
 * Who asks: the desktop consumer the bridge named (ours relays `agent: {id, name?}`), else "an
 * agent on this machine": two asks at once must not read the same.
 * @param {{id: string, name: string|null}|null|undefined} agent
 */
function askerWords(agent) {
  if (!agent) return ['An agent on this machine'];
  // The id is the bridge's number for the consumer; the name is what the agent calls itself.
  if (agent.name) return ['The agent ', h('b', { 'data-role': 'agent', text: agent.name }), agent.id ? ` (consumer ${agent.id} of the bridge)` : ''];
  return ['The agent that is consumer ', h('b', { 'data-role': 'agent', text: agent.id }), ' of the bridge'];
}

function bridgeAsk(a) {
  const cancel = h('button', { type: 'button', 'data-action': 'bridge-refuse', onclick: (e) => decide(e.target, a, false) }, 'Refuse');
  return h('div', { class: 'approval bridge-ask', 'data-approval': a.id },
    h('p', {}, ...askerWords(a.agent), ' asks to invoke ', h('code', { text: a.action }), ' on ', h('code', { text: a.path }), ' in ',
      h('b', { text: a.provider }), a.why === 'dangerous' ? ', which the provider marks dangerous.' : ', which this page’s state does not show as safe.'),
    a.params && a.params !== '{}' ? h('p', { class: 'params mono', text: `params ${a.params}` }) : null,
    h('p', {}, countdown(a.expiresAt, 'Refused by itself in {s} s.')),
    a.trustKey ? h('label', { class: 'trust' }, h('input', { type: 'checkbox', 'data-action': 'bridge-trust' }),
      h('span', {}, 'Don’t ask again for ', h('b', { text: a.provider }), ' (until the browser restarts)')) : null,
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'danger', 'data-action': 'bridge-allow', onclick: (e) => decide(e.target, a, true) }, 'Invoke'),
      cancel));
}

function renderBridge() {
  const el = $('bridge');
  const st = bridge;
  el.hidden = !st || st.state === 'off';
  if (el.hidden) return;
  const retry = bridgeCanRetry(st)
    ? h('button', { type: 'button', 'data-action': 'bridge-retry', onclick: (e) => { e.target.disabled = true; port.request(Request.BRIDGE_RETRY, {}).catch(() => {}); } }, 'Retry now') : null;
  const toOptions = bridgeNeedsUser(st) ? h('button', { type: 'button', 'data-action': 'options', onclick: () => openOptionsPage() }, 'Options…') : null;
  const connected = st.state === 'connected';
  // A re-render (a provider announced meanwhile) keeps a ticked "don't ask again".
  /** @param {Element} ask @returns {HTMLInputElement|null} */
  const trustBox = (ask) => ask.querySelector('[data-action="bridge-trust"]');
  const asks = /** @type {NodeListOf<HTMLElement>} */ (el.querySelectorAll('.bridge-ask'));
  const ticked = [...asks].filter((a) => trustBox(a)?.checked).map((a) => a.dataset.approval);
  // The words are Options' too (shared/bridge-text.js): both say the same thing.
  setChildren(el,
    h('h2', {}, 'Desktop bridge', h('span', { class: 'pill', 'data-bridge': st.state, 'data-mode': st.mode ?? '', text: bridgePill(st) })),
    connected ? h('p', { class: st.mode === 'unpaired' ? 'unpaired' : 'muted', 'data-testid': 'bridge-mode', text: bridgeModeText(st) }) : null,
    connected
      ? h('p', { class: 'muted', 'data-testid': 'bridge-shared', 'data-sharing': st.sharing ?? '', text: bridgeSharedText(st) })
      : h('p', { class: bridgeNeedsUser(st) ? 'error-text' : 'muted' }, codeText(st.message ?? ''),
        st.state === 'retrying' && st.retryAt ? countdown(st.retryAt, ' Next try in {s} s.', '') : null),
    connected && st.note ? h('p', { class: 'error-text', 'data-testid': 'bridge-note', text: st.note }) : null,
    connected && st.shared.length
      ? h('ul', { class: 'shared' }, st.shared.map((p) => h('li', { 'data-provider-key': p.providerKey, 'data-trusted': String(!!p.trusted) },
        h('b', { text: p.name || p.id }), ` (${p.transport === 'ws' ? 'WebSocket: the agent connects itself' : `in-page${p.relayed ? ', relayed now' : ''}`}${p.trusted ? '; invoked without asking' : ''})`,
        p.tabId === shownTab ? h('span', { class: 'muted', text: ' · this tab' }) : null)))
      : null,
    st.approvals.map(bridgeAsk),
    retry || toOptions ? h('div', { class: 'actions' }, retry, toOptions) : null);
  for (const ask of /** @type {NodeListOf<HTMLElement>} */ (el.querySelectorAll('.bridge-ask'))) {
    if (ticked.includes(ask.dataset.approval)) trustBox(ask).checked = true;
  }
  // A dangerous action must not run on a stray Enter: the safe answer has the focus.
  /** @type {HTMLButtonElement|null} */ (el.querySelector('[data-action="bridge-refuse"]'))?.focus();
}

async function main() {
  $('options').addEventListener('click', () => openOptionsPage());
  stringSet = !!(await stringWebhookInfo());
  siteAccess = await hasSiteAccess();
  bridge = await bridgeStatus();
  onStorageChanged((changes, area) => {
    if (area === 'session' && KEYS.BRIDGE_STATUS in changes) {
      bridge = changes[KEYS.BRIDGE_STATUS].newValue ?? null;
      renderBridge();
    }
    if (area !== 'local' || !('stringWebhookIndex' in changes)) return;
    stringSet = !!changes.stringWebhookIndex.newValue;
    if (last) render(last);
  });
  const q = new URLSearchParams(location.search);
  const tabId = q.has('tabId') ? Number(q.get('tabId')) : await activeTabId();
  shownTab = tabId;
  if (!Number.isInteger(tabId)) {
    setChildren($('providers'), h('p', { class: 'empty', text: 'No active tab.' }));
    return;
  }
  port = new UiPort(PORTS.POPUP, tabId, {
    // counts: the "N nodes mirrored" lines follow the patches, not only status changes.
    counts: true,
    onPush: (msg) => { if (msg.type === Push.PROVIDERS) render(msg); },
  }).start();
  renderBridge();
  // Retry and approval countdowns tick down.
  setInterval(() => {
    if (last?.providers.some((p) => p.retryAt || p.sync?.retryAt)) render(last);
    tickBridge();
  }, 1000);
}

main();
