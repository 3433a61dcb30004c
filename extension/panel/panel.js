// panel.js: the SLOP DevTools panel. Wires bridge (port to the service worker, batching) →
// store (node views by path) → views (tree, node detail, agent view, frames and events).
//
// Runs inside DevTools (tab from chrome.devtools.inspectedWindow.tabId) and as a plain extension
// page, panel.html?tabId=N (tests, or a tab of its own).

import { Request, Status } from '../shared/messages.js';
import { inspectedTabId } from '../shared/browser.js';
import { h, setChildren } from '../shared/dom.js';
import { statusLabel, providerTitle, transportText } from '../shared/status-text.js';
import { Bridge } from './bridge.js';
import { Store } from './store.js';
import { TreeView } from './views/tree-view.js';
import { DetailView } from './views/detail-view.js';
import { LogView } from './views/log-view.js';
import { AgentView } from './views/agent-view.js';

const $ = (id) => document.getElementById(id);
const query = new URLSearchParams(location.search);
const tabId = inspectedTabId() ?? (query.has('tabId') ? Number(query.get('tabId')) : null);
document.body.dataset.inDevtools = String(inspectedTabId() !== null);

const store = new Store();
const bridge = new Bridge(tabId, (batch) => store.applyBatch(batch));

let selectedKey = null;       // the provider shown
let watchedKey = null;        // the provider the service worker streams to us
const selectedPath = new Map(); // provider key → selected node path
let showAgent = false;
let showLog = false;
let agentTimer = 0;

const treeView = new TreeView($('tree'), {
  onSelect: (path) => {
    selectedPath.set(selectedKey, path);
    renderDetail();
  },
  onNeedNodes: (paths) => {
    const p = store.provider(selectedKey);
    const sub = currentTree()?.sub;
    if (!p || !sub) return;
    const key = selectedKey;
    bridge.request(Request.GET_NODES, { key, sub, paths })
      .then((r) => store.addNodes(key, sub, r.nodes))
      .catch(() => { /* the tree is being replaced; a new reset will come */ });
  },
});
const detailView = new DetailView($('detail'), {
  invoke: (path, action, params) => bridge.request(Request.INVOKE, { key: selectedKey, path, action, params }),
  validate: (schema, params) => bridge.request(Request.VALIDATE_PARAMS, { schema, params }).then((r) => r.error),
});
const logView = new LogView($('log'));
const agentView = new AgentView($('agent'));

function currentProvider() {
  return selectedKey ? store.provider(selectedKey) : null;
}

/** The tree to show: the provider's first subscription, or the last one seen (stale) meanwhile. */
function currentTree() {
  const p = currentProvider();
  if (!p) return null;
  const subs = store.trees.get(p.key);
  if (!subs) return null;
  const live = p.primarySub ? subs.get(p.primarySub) : null;
  if (live) {
    for (const s of [...subs.keys()]) if (s !== p.primarySub && !p.subscriptions.some((x) => x.sub === s)) subs.delete(s);
    return live;
  }
  return [...subs.values()].at(-1) ?? null;
}

// ------------------------------------------------------------------------------ selection

function chooseProvider() {
  const list = store.providers;
  if (selectedKey && list.some((p) => p.key === selectedKey)) return;
  const pick = list.find((p) => p.status === Status.CONNECTED) ?? list[0] ?? null;
  selectedKey = pick?.key ?? null;
}

function syncWatch(force = false) {
  if (!force && watchedKey === selectedKey) return;
  if (watchedKey && watchedKey !== selectedKey) bridge.unwatch(watchedKey).catch(() => {});
  watchedKey = selectedKey;
  if (watchedKey) bridge.watch(watchedKey, { log: true }).catch(() => {});
}

$('provider').addEventListener('change', (e) => {
  selectedKey = e.target.value || null;
  syncWatch();
  renderAll();
});
$('retry').addEventListener('click', () => {
  if (selectedKey) bridge.request(Request.RETRY, { key: selectedKey }).catch(() => {});
});
$('toggle-agent').addEventListener('click', () => {
  showAgent = !showAgent;
  $('toggle-agent').setAttribute('aria-pressed', String(showAgent));
  $('agent').hidden = !showAgent;
  $('detail').hidden = showAgent;
  if (showAgent) refreshAgent();
});
$('toggle-log').addEventListener('click', () => {
  showLog = !showLog;
  $('toggle-log').setAttribute('aria-pressed', String(showLog));
  $('log').hidden = !showLog;
  renderLog();
});

// -------------------------------------------------------------------------------- render

function renderBar() {
  const sel = $('provider');
  const options = store.providers.map((p) => h('option', { value: p.key, text: `${providerTitle(p)} — ${statusLabel(p)}` }));
  setChildren(sel, options.length ? options : h('option', { value: '', text: 'none found' }));
  sel.value = selectedKey ?? '';
  sel.disabled = options.length === 0;
  const p = currentProvider();
  $('status').hidden = !p;
  if (p) {
    $('status').dataset.status = p.status;
    $('status').textContent = statusLabel(p);
    $('status-msg').textContent = p.message || transportText(p);
    $('status-msg').title = `${transportText(p)}${p.message ? `\n${p.message}` : ''}`;
  } else {
    $('status-msg').textContent = '';
  }
  $('retry').hidden = !p || ![Status.AUTH_FAILED, Status.UNREACHABLE, Status.RECONNECTING, Status.ERROR].includes(p.status);
  const tree = currentTree();
  $('version').textContent = tree ? `v${tree.version} · ${tree.nodes.size} nodes loaded` : '';
  const sw = $('sw-state');
  sw.hidden = store.bridgeState === 'connected';
  sw.dataset.status = 'reconnecting';
  sw.textContent = store.bridgeState === 'reconnecting' ? 'service worker restarting…' : 'connecting…';
}

function renderEmpty() {
  const p = currentProvider();
  const tree = currentTree();
  let content = null;
  if (!store.seenProviders) {
    content = [h('h2', { text: 'Connecting to the extension…' })];
  } else if (tabId === null) {
    content = [h('h2', { text: 'No tab' }), h('p', { text: 'Open this panel from DevTools, or as panel.html?tabId=N.' })];
  } else if (!p) {
    content = [h('h2', { text: 'No SLOP provider found on this page' }),
      h('p', {}, 'A page announces one with ', h('code', { text: '<meta name="slop" content="ws://host:port/slop">' }),
        ' or ', h('code', { text: '<meta name="slop" content="postmessage">' }), ', or serves ', h('code', { text: '/.well-known/slop' }), '.'),
      store.problems.length ? h('p', { class: 'error-text' }, store.problems.map((x) => `${x.content}: ${x.error}`).join('\n')) : null];
  } else if (!tree) {
    const msg = {
      [Status.PENDING_APPROVAL]: 'This page names a provider on another origin. Approve it in the toolbar popup (SLOP Inspector icon) to connect.',
      [Status.DENIED]: 'You denied this provider for this browser session. Approve it in the toolbar popup to connect.',
      [Status.AUTH_FAILED]: p.message,
      [Status.UNREACHABLE]: p.message,
      [Status.ERROR]: p.message,
    }[p.status] ?? 'Waiting for the first snapshot…';
    content = [h('h2', { text: `${providerTitle(p)}: ${statusLabel(p)}` }), h('p', { text: msg }), h('p', { class: 'muted mono', text: transportText(p) })];
  }
  $('empty').hidden = content === null;
  $('main').hidden = content !== null;
  if (content) setChildren($('empty'), content);
  const stale = !!tree && p && p.status !== Status.CONNECTED;
  $('banner').hidden = !stale;
  $('banner').textContent = stale ? `${statusLabel(p)}: showing the last known state.` : '';
}

function renderDetail() {
  const p = currentProvider();
  const tree = currentTree();
  const path = selectedPath.get(selectedKey) ?? null;
  const view = tree && path ? tree.nodes.get(path) ?? null : null;
  detailView.show(view, {
    providerKey: selectedKey,
    stale: p?.status !== Status.CONNECTED,
    affordancesAllowed: !!p?.capabilities.includes('affordances') && p.status === Status.CONNECTED,
  });
}

function renderLog() {
  if (!showLog) return;
  logView.show(store.logs.get(selectedKey) ?? [], store.events.get(selectedKey) ?? []);
}

function refreshAgent() {
  if (!showAgent || !selectedKey) return;
  const key = selectedKey;
  bridge.request(Request.AGENT_VIEW, { key })
    .then((r) => { if (key === selectedKey) agentView.show(r); })
    .catch((e) => agentView.show(null, e.message));
}

function renderAll(change) {
  renderBar();
  renderEmpty();
  treeView.show(currentTree(), change?.touched?.get(selectedKey) ?? new Set(), selectedPath.get(selectedKey) ?? null);
  renderDetail();
  renderLog();
}

store.subscribe((change) => {
  if (change.bridge && store.bridgeState === 'connected') {
    // A new port (first time, or after a service worker restart): the worker knows no watch yet.
    syncWatch(true);
  }
  if (change.providers) {
    chooseProvider();
    syncWatch();
    document.body.dataset.ready = '1';
  }
  if (change.providers || change.bridge || change.trees.has(selectedKey)) {
    renderAll(change);
    if (showAgent && change.trees.has(selectedKey)) {
      clearTimeout(agentTimer);
      agentTimer = setTimeout(refreshAgent, 400);
    }
  } else if (change.logs.has(selectedKey) || change.events.has(selectedKey)) {
    renderLog();
  }
});

// Debugging handle (developer console of the panel, end-to-end tests): read-only use.
globalThis.slopPanel = { store, selectedKey: () => selectedKey, request: (type, fields) => bridge.request(type, fields) };

// Countdown of "retry in N s" in the bar.
setInterval(() => { if (currentProvider()?.retryAt) renderBar(); }, 1000);

if (tabId === null) {
  store.seenProviders = true;
  renderAll();
} else {
  bridge.start();
  renderAll();
}
