// panel.js: the SLOP DevTools panel. Wires bridge (port to the service worker, batching) → store
// (node views by path, history, log) → views (tree, node detail and invoke forms, agent view,
// diff, history strip, subscription strip, frames and events).
//
// Runs inside DevTools (tab from chrome.devtools.inspectedWindow.tabId) and as a plain extension
// page, panel.html?tabId=N (tests, or a tab of its own).
//
// Where the data comes from (nothing here speaks SLOP; every protocol decision is the core's):
//   - the tree: node views pushed by the service worker (tree/reset up to a budget, tree/delta per
//     patch); the rest of the mirror is loaded in the background with getNodes, breadth-first,
//     1000 views per request, up to MIRROR_MAX views, so search, history and export cover it all;
//   - search: over those views, in the panel (search.js);
//   - "load more" on a windowed collection: a query with a window, shown read-only under the
//     collection (not part of the mirror);
//   - export: the core's tree JSON (getTree); import: the core validates the file (inspectTree);
//   - agent view: the core's tree text and tools (agentView).

import { Request, Push, Status } from '../shared/messages.js';
import { inspectedTabId, openOptionsPage } from '../shared/browser.js';
import { h, setChildren } from '../shared/dom.js';
import { childPath, parentPath } from '../shared/node-path.js';
import { statusLabel, syncText, providerTitle, transportText } from '../shared/status-text.js';
import { Bridge } from './bridge.js';
import { Store } from './store.js';
import { diffStates } from './history.js';
import { searchTree, SEARCH_FIELDS } from './search.js';
import { assembleTree, exportDocument, download, fileName, copyText } from './export.js';
import { initTheme } from './theme.js';
import { TreeView, collectionSig, exhausted } from './views/tree-view.js';
import { DetailView } from './views/detail-view.js';
import { LogView } from './views/log-view.js';
import { AgentView } from './views/agent-view.js';
import { HistoryView, renderDiff } from './views/history-view.js';
import { SubscriptionView } from './views/subscription-view.js';

/** Views the panel loads in the background per tree (beyond that, search covers what is loaded). */
const MIRROR_MAX = 50_000;
const FILL_PAGE = 1000;
const QUERY_PAGE = 50;
const NO_EXTRAS = new Map();

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const tabId = inspectedTabId() ?? (params.has('tabId') ? Number(params.get('tabId')) : null);
document.body.dataset.inDevtools = String(inspectedTabId() !== null);
document.body.dataset.themeSource = initTheme();

const marks = { opened: performance.timeOrigin + performance.now() };
const store = new Store();
const bridge = new Bridge(tabId, (batch) => {
  if (!marks.firstReset && batch.some((m) => m.type === Push.TREE_RESET)) marks.firstReset = performance.timeOrigin + performance.now();
  store.applyBatch(batch);
});

// --------------------------------------------------------------------------- panel state

let selectedKey = null;          // the provider (or import) shown
let watchedKey = null;           // the provider the service worker streams to us
const customSubs = new Map();    // provider key → {sub, options}: a subscription made here
let subError = null;
let scrub = null;                // {key, sub, entry, index, source, version} while viewing a past version
const extrasBy = new Map();      // "key sub" → Map(collection path → query extra)
let sideTab = 'node';
let showLog = false;
let importError = null;
const search = { text: '', field: 'all', matches: [], set: new Set(), index: -1, timer: 0 };
let lazyScheduled = false;
let agentTimer = 0;

// ------------------------------------------------------------------------------- helpers

function currentProvider() {
  return selectedKey ? store.provider(selectedKey) : null;
}

function isImport(key = selectedKey) {
  return !!key && store.imports.has(key);
}

/** The subscription the tree shows: the one made here, else the provider's first. */
function currentSub() {
  if (isImport()) return store.imports.get(selectedKey).sub;
  const p = currentProvider();
  const custom = customSubs.get(selectedKey);
  if (custom && p?.subscriptions.some((s) => s.sub === custom.sub)) return custom.sub;
  return p?.primarySub ?? null;
}

/** The live tree shown (or the last one seen while the provider reconnects). */
function currentTree() {
  if (!selectedKey) return null;
  const subs = store.trees.get(selectedKey);
  if (!subs) return null;
  const sub = currentSub();
  const t = sub ? subs.get(sub) : null;
  if (t) return t;
  const custom = customSubs.get(selectedKey);
  if (custom && subs.get(custom.sub)) return subs.get(custom.sub);
  const p = currentProvider();
  if (p && !p.primarySub) return [...subs.values()].at(-1) ?? null; // disconnected: last known
  return null;
}

/** What the tree view shows: the live tree, or a version from the history. */
function displaySource() {
  const tree = currentTree();
  if (!tree) return null;
  if (scrub && scrub.key === tree.key && scrub.sub === tree.sub) return scrub.source;
  if (tree.live === undefined) tree.live = true;
  return tree;
}

function extrasOf(tree) {
  if (!tree) return new Map();
  const k = `${tree.key} ${tree.sub}`;
  if (!extrasBy.has(k)) extrasBy.set(k, new Map());
  return extrasBy.get(k);
}

function toast(text) {
  const t = $('toast');
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 1600);
}

async function copy(text, what) {
  const entry = { text, what, ok: null };
  slopPanel.lastCopied = entry;
  const ok = await copyText(text);
  entry.ok = ok;
  toast(ok ? `Copied ${what}` : `Could not copy ${what}`);
}

// ------------------------------------------------------------------------------- views

const treeView = new TreeView($('tree'), {
  onSelect: () => renderDetail(),
  onOpen: () => {
    setSideTab('node');
    renderDetail();
    $('detail').querySelector('button[data-action="invoke"]:not([disabled]), input, select')?.focus();
  },
  onNeedNodes: (paths) => {
    const tree = currentTree();
    if (!tree || scrub) return;
    const want = paths.filter((p) => !tree.requested.has(p) && !tree.gone.has(p));
    if (!want.length) return;
    for (const p of want) tree.requested.add(p);
    bridge.getNodes(tree.key, tree.sub, want).catch(() => { for (const p of want) tree.requested.delete(p); });
  },
  onLoadMore: (path) => loadMore(path),
  onClearQuery: (path) => {
    extrasOf(currentTree()).delete(path);
    treeView.setExtras(extrasOf(currentTree()));
  },
});

const detailView = new DetailView($('detail'), {
  invoke: (path, action, p) => bridge.request(Request.INVOKE, { key: selectedKey, path, action, params: p }),
  validate: (schema, p) => bridge.request(Request.VALIDATE_PARAMS, { schema, params: p }).then((r) => r.errors),
  copy,
});

const logView = new LogView($('log'), {
  onPause: (paused) => {
    if (selectedKey) store.setLogPaused(selectedKey, paused);
  },
  onClear: (tab) => {
    if (!selectedKey) return;
    if (tab === 'events') store.clearEvents(selectedKey);
    else store.clearLog(selectedKey);
  },
  copy,
});

const agentView = new AgentView($('agent'), { copy, refresh: () => refreshAgent() });

const historyView = new HistoryView($('history-strip'), {
  onScrub: (index) => setScrub(index),
  onDiff: (a, b) => showDiff(a, b),
});

const subView = new SubscriptionView($('sub-strip'), {
  onApply: (options) => applySubscription(options),
  onReset: () => resetSubscription(),
});

// ----------------------------------------------------------------------- provider choice

function chooseProvider() {
  if (selectedKey && (store.provider(selectedKey) || isImport(selectedKey))) return;
  const list = store.providers;
  const pick = list.find((p) => p.status === Status.CONNECTED) ?? list[0] ?? null;
  selectProvider(pick?.key ?? null);
}

function selectProvider(key) {
  if (key === selectedKey) return;
  selectedKey = key;
  scrub = null;
  subError = null;
  syncWatch();
  const p = currentProvider();
  subView.fill(customSubs.get(key)?.options ?? { path: p?.subscriptions.find((s) => s.sub === p.primarySub)?.path ?? '/' });
  logView.setPaused(store.logPaused.has(key), store.logPaused.get(key) ?? 0);
  renderAll();
}

function syncWatch(force = false) {
  const key = isImport(selectedKey) ? null : selectedKey;
  if (!force && watchedKey === key) return;
  if (watchedKey && watchedKey !== key) bridge.unwatch(watchedKey).catch(() => {});
  watchedKey = key;
  if (watchedKey) bridge.watch(watchedKey, { log: true }).catch(() => {});
}

$('provider').addEventListener('change', (e) => selectProvider(e.target.value || null));

// ---------------------------------------------------------------------- toolbar toggles

function toggleStrip(btn, el, on = el.hidden) {
  el.hidden = !on;
  btn.setAttribute('aria-pressed', String(on));
}
$('toggle-sub').addEventListener('click', () => { toggleStrip($('toggle-sub'), $('sub-strip')); renderSubscription(); });
$('toggle-history').addEventListener('click', () => {
  toggleStrip($('toggle-history'), $('history-strip'));
  if ($('history-strip').hidden && scrub) setScrub(null);
  renderHistory();
});
$('toggle-log').addEventListener('click', () => {
  showLog = !showLog;
  $('toggle-log').setAttribute('aria-pressed', String(showLog));
  $('log').hidden = !showLog;
  renderLog();
});

function setSideTab(tab) {
  sideTab = tab;
  for (const b of $('side-tabs').querySelectorAll('button')) b.classList.toggle('active', b.dataset.tab === tab);
  $('detail').hidden = tab !== 'node';
  $('agent').hidden = tab !== 'agent';
  $('diff').hidden = tab !== 'diff';
  if (tab === 'agent') refreshAgent();
  if (tab === 'diff' && !$('diff').firstChild) {
    setChildren($('diff'), h('div', { class: 'empty small' }, h('p', { text: 'Open History, pick two versions and press Diff.' })));
  }
}
$('side-tabs').addEventListener('click', (e) => {
  const b = e.target.closest('button[data-tab]');
  if (b) setSideTab(b.dataset.tab);
});

// ------------------------------------------------------------------------------- search

setChildren($('search-field'), Object.entries(SEARCH_FIELDS).map(([k, label]) => h('option', { value: k, text: k === 'all' ? 'all' : label })));

function runSearch({ jump = false } = {}) {
  const src = displaySource();
  const prev = search.matches[search.index];
  search.matches = search.text ? searchTree(src, search.text, search.field) : [];
  search.set = new Set(search.matches);
  let i = prev ? search.matches.indexOf(prev) : -1;
  if (i < 0 && search.matches.length) i = jump ? 0 : -1;
  search.index = i;
  treeView.setMatches(search.set, search.matches[search.index] ?? null);
  if (jump && search.index >= 0) treeView.reveal(search.matches[search.index]);
  renderSearchCount();
}

function renderSearchCount() {
  const n = search.matches.length;
  const tree = currentTree();
  const partial = tree && !tree.complete && !scrub ? ' (loading the rest…)' : '';
  $('search-count').textContent = !search.text ? '' : n ? `${search.index >= 0 ? search.index + 1 : '–'} of ${n}${partial}` : `no match${partial}`;
  $('search-prev').disabled = n === 0;
  $('search-next').disabled = n === 0;
}

function stepSearch(d) {
  const n = search.matches.length;
  if (!n) return;
  search.index = search.index < 0 ? (d > 0 ? 0 : n - 1) : (search.index + d + n) % n;
  treeView.setMatches(search.set, search.matches[search.index]);
  treeView.reveal(search.matches[search.index]);
  renderSearchCount();
}

$('search').addEventListener('input', () => {
  search.text = $('search').value;
  clearTimeout(search.timer);
  search.timer = setTimeout(() => runSearch({ jump: true }), 150);
});
$('search').addEventListener('keydown', (e) => {
  if (e.key === 'Enter') {
    e.preventDefault();
    clearTimeout(search.timer);
    if (search.text !== $('search').value || !search.matches.length) {
      search.text = $('search').value;
      runSearch({ jump: true });
    } else stepSearch(e.shiftKey ? -1 : 1);
  } else if (e.key === 'Escape') {
    $('search').value = '';
    search.text = '';
    runSearch();
    $('tree').focus();
  }
});
$('search-field').addEventListener('change', () => { search.field = $('search-field').value; runSearch({ jump: true }); });
$('search-prev').addEventListener('click', () => stepSearch(-1));
$('search-next').addEventListener('click', () => stepSearch(1));
document.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key === 'f' && !$('main').hidden) {
    e.preventDefault();
    $('search').focus();
    $('search').select();
  }
});

// ------------------------------------------------------------------- background loading

/** Loads the views of the mirror the panel has not got yet, breadth-first, a page at a time. */
function kickFill(tree) {
  if (!tree || tree.filling || tree.nodes.size >= MIRROR_MAX || !bridgeUp()) return;
  tree.filling = true;
  (async () => {
    try {
      for (;;) {
        if (store.tree(tree.key, tree.sub) !== tree || tree.nodes.size >= MIRROR_MAX) break;
        const paths = store.missingPaths(tree, FILL_PAGE);
        if (!paths.length) break;
        for (const p of paths) tree.requested.add(p);
        try {
          await bridge.getNodes(tree.key, tree.sub, paths);
        } catch (e) {
          for (const p of paths) tree.requested.delete(p); // never answered: not pending any more
          throw e;
        }
        await new Promise((r) => setTimeout(r, 0)); // let the queued views apply
      }
    } catch {
      /* the tree is being replaced, or the worker restarted: the next change kicks again */
    } finally {
      tree.filling = false;
      if (store.tree(tree.key, tree.sub) === tree) {
        // Paths removed meanwhile came back "missing" and are no longer pending (store.js).
        const done = store.isLoaded(tree);
        if (done && !tree.complete) {
          store.markComplete(tree);
          if (!marks.mirrorComplete) marks.mirrorComplete = performance.timeOrigin + performance.now();
          if (search.text) runSearch();
        }
        scheduleLazy();
      }
    }
  })();
}

function bridgeUp() {
  return store.bridgeState === 'connected';
}

// ----------------------------------------------------------------------- query "load more"

async function loadMore(path) {
  const tree = currentTree();
  if (!tree || scrub || isImport()) return;
  const view = tree.nodes.get(path);
  if (!view) return;
  const extras = extrasOf(tree);
  const extra = extras.get(path) ?? { nodes: [], total: view.meta?.total_children, version: null, loading: false, error: null, exhausted: null, stamp: 0 };
  extras.set(path, extra);
  if (extra.loading || exhausted(view, extra)) return;
  extra.exhausted = null;
  const win = Array.isArray(view.meta?.window) ? view.meta.window : null;
  const offset = (win ? win[0] : 0) + view.child_ids.length + extra.nodes.length;
  const count = win && win[1] > 0 ? Math.min(win[1], 200) : QUERY_PAGE;
  extra.loading = true;
  extra.error = null;
  extra.stamp++;
  treeView.setExtras(extras);
  try {
    const r = await bridge.request(Request.QUERY, { key: tree.key, options: { path, depth: 1, window: [offset, count] } });
    const ev = r.event ?? {};
    if (ev.event !== 'query') throw new Error(ev.message ?? `${ev.event}${ev.code ? ` ${ev.code}` : ''}`);
    const known = new Set([...view.child_ids, ...extra.nodes.map((n) => n.id)]);
    const kids = Array.isArray(ev.tree?.children) ? ev.tree.children : [];
    let added = 0;
    for (const { children, ...node } of kids) {
      if (known.has(node.id)) continue;
      known.add(node.id);
      extra.nodes.push({ ...node, path: childPath(path, node.id), child_ids: (children ?? []).map((c) => c.id) });
      added++;
    }
    extra.version = ev.version;
    if (Number.isFinite(ev.tree?.meta?.total_children)) extra.total = ev.tree.meta.total_children;
    // Nothing new: say so rather than offer the same empty page again, until the collection changes.
    if (added === 0) extra.exhausted = { sig: collectionSig(view) };
  } catch (e) {
    extra.error = e.message;
  } finally {
    extra.loading = false;
    extra.stamp++;
    treeView.setExtras(extras);
  }
}

// ------------------------------------------------------------------------- subscriptions

async function applySubscription(options) {
  const key = selectedKey;
  if (!key || isImport()) return;
  subError = null;
  renderSubscription();
  let sub;
  try {
    ({ sub } = await bridge.request(Request.SUBSCRIBE, { key, options }));
  } catch (e) {
    subError = e.message; // the core's word on the options
    renderSubscription();
    return;
  }
  const old = customSubs.get(key);
  customSubs.set(key, { sub, options });
  if (old) {
    bridge.request(Request.UNSUBSCRIBE, { key, sub: old.sub }).catch(() => {});
    store.trees.get(key)?.delete(old.sub);
  }
  scrub = null;
  renderAll();
}

function resetSubscription() {
  const key = selectedKey;
  const old = customSubs.get(key);
  if (!old) return;
  customSubs.delete(key);
  bridge.request(Request.UNSUBSCRIBE, { key, sub: old.sub }).catch(() => {});
  store.trees.get(key)?.delete(old.sub);
  const p = currentProvider();
  subView.fill({ path: p?.subscriptions.find((s) => s.sub === p.primarySub)?.path ?? '/' });
  scrub = null;
  renderAll();
}

/**
 * Trees of subscriptions a connected provider no longer has (a restart of the worker, a
 * resubscription) are dropped; while it is disconnected the last one stays as "last known state".
 */
function dropStaleTrees() {
  for (const p of store.providers) {
    const subs = store.trees.get(p.key);
    if (!subs || p.status !== Status.CONNECTED || !p.primarySub || !subs.has(p.primarySub)) continue;
    for (const sub of [...subs.keys()]) if (!p.subscriptions.some((s) => s.sub === sub)) subs.delete(sub);
  }
}

/** After a service worker restart the subscriptions made here are gone: make them again. */
function restoreSubscriptions() {
  for (const [key, c] of customSubs) {
    const p = store.provider(key);
    if (!p || p.status !== Status.CONNECTED || !p.primarySub) continue;
    if (p.subscriptions.some((s) => s.sub === c.sub) || c.restoring) continue;
    c.restoring = true;
    bridge.request(Request.SUBSCRIBE, { key, options: c.options })
      .then(({ sub }) => { c.sub = sub; })
      .catch(() => customSubs.delete(key))
      .finally(() => { c.restoring = false; renderAll(); });
  }
}

// ------------------------------------------------------------------------------- history

function setScrub(index) {
  const tree = currentTree();
  if (index === null || !tree) {
    scrub = null;
  } else {
    const entry = tree.history.entries[index];
    const nodes = tree.history.materialize(index, tree.nodes);
    scrub = {
      key: tree.key, sub: tree.sub, entry, index, version: entry.version,
      source: { key: tree.key, sub: tree.sub, path: tree.path, nodes, structure: `h${entry.step}`, resetId: tree.resetId, live: false },
    };
  }
  renderAll();
  if (search.text) runSearch();
}

/** Keeps the scrubbed entry's index right as new versions arrive and old ones are dropped. */
function trackScrub() {
  if (!scrub) return;
  const tree = currentTree();
  if (!tree || tree.key !== scrub.key || tree.sub !== scrub.sub) {
    scrub = null;
    return;
  }
  const i = tree.history.entries.indexOf(scrub.entry);
  if (i < 0) setScrub(0); // dropped from the history: the oldest kept
  else scrub.index = i;
}

function showDiff(a, b) {
  const tree = currentTree();
  if (!tree) return;
  const n = tree.history.length;
  if (!(a >= 0 && a < n && b >= 0 && b < n)) return;
  const [x, y] = a <= b ? [a, b] : [b, a];
  const from = tree.history.entries[x];
  const to = tree.history.entries[y];
  const diff = diffStates(tree.history.materialize(x, tree.nodes), tree.history.materialize(y, tree.nodes));
  const boundaries = tree.history.boundariesBetween(x, y);
  renderDiff($('diff'), diff, {
    from, to, boundaries,
    onPick: (path) => {
      if (displaySource()?.nodes.has(path)) treeView.reveal(path);
    },
  });
  slopPanel.lastDiff = { from: from.version, to: to.version, fromStep: from.step, toStep: to.step, boundaries: boundaries.length, added: diff.added.map((v) => v.path), removed: diff.removed.map((v) => v.path), changed: diff.changed.map((c) => c.path) };
  setSideTab('diff');
}

// ------------------------------------------------------------------------ export / import

$('export').addEventListener('click', () => doExport().catch((e) => toast(`Export failed: ${e.message}`)));

async function doExport() {
  const tree = currentTree();
  const p = currentProvider();
  if (!tree) return;
  const imp = isImport() ? store.imports.get(selectedKey) : null;
  let doc;
  if (scrub) {
    const { tree: t, missing } = assembleTree(scrub.source.nodes, tree.path);
    doc = { tree: t, version: scrub.version, scrubbed: true, incomplete: missing ? `${missing} child views were not loaded` : undefined };
  } else {
    const r = await bridge.request(Request.GET_TREE, { key: selectedKey, sub: tree.sub });
    doc = { tree: r.tree, version: r.version, capabilities: r.capabilities };
  }
  const provider = imp ? (imp.fileProvider ?? { id: 'import', name: imp.name }) : p?.provider ?? null;
  const text = exportDocument({
    ...doc,
    provider,
    source: imp ? `import:${imp.name}` : p ? (p.transport.url ?? 'postmessage') : null,
    subscription: { path: tree.path, ...(customSubs.get(selectedKey)?.options ?? {}) },
    capabilities: doc.capabilities ?? p?.capabilities ?? [],
  });
  slopPanel.lastExport = text;
  download(text, fileName('slop', provider?.id ?? 'tree', `v${doc.version}`));
  toast(`Exported v${doc.version}`);
}

$('import').addEventListener('click', () => $('import-file').click());
$('import-file').addEventListener('change', async () => {
  const file = $('import-file').files?.[0];
  $('import-file').value = '';
  if (file) await importText(await file.text(), file.name);
});

async function importText(text, name) {
  importError = null;
  try {
    const r = await bridge.request(Request.INSPECT_TREE, { text, name, budget: 2000 });
    store.addImport(r);
    selectProvider(r.key);
    kickFill(currentTree());
  } catch (e) {
    importError = `${name}: ${e.message}`;
    renderBanner();
  }
}

function closeImport(key) {
  bridge.request(Request.CLOSE_IMPORT, { key }).catch(() => {});
  store.removeImport(key);
  selectedKey = null;
  chooseProvider();
  renderAll();
}

// -------------------------------------------------------------------------------- render

function renderBar() {
  const sel = $('provider');
  const options = store.providers.map((p) => h('option', { value: p.key, text: `${providerTitle(p)} — ${statusLabel(p)}` }));
  for (const [key, imp] of store.imports) options.push(h('option', { value: key, text: `📄 ${imp.name} (imported)` }));
  setChildren(sel, options.length ? options : h('option', { value: '', text: store.seenProviders ? 'no provider on this page' : 'connecting…' }));
  sel.value = selectedKey ?? '';
  sel.disabled = options.length === 0;
  const p = currentProvider();
  const imp = isImport() ? store.imports.get(selectedKey) : null;
  $('status').hidden = !p && !imp;
  if (imp) {
    $('status').dataset.status = 'import';
    $('status').textContent = 'Imported';
    $('status-msg').textContent = imp.fileProvider ? `${imp.fileProvider.name} (${imp.fileProvider.id})` : imp.name;
  } else if (p) {
    $('status').dataset.status = p.status;
    $('status').dataset.live = String(!!p.live);
    $('status').textContent = statusLabel(p);
    $('status-msg').textContent = syncText(p) || p.message || transportText(p);
    $('status-msg').title = `${transportText(p)}${p.message ? `\n${p.message}` : ''}`;
  } else {
    $('status-msg').textContent = '';
  }
  const tree = currentTree();
  const info = p?.subscriptions.find((s) => s.sub === tree?.sub);
  const total = tree?.total ?? info?.nodes ?? null;
  const loading = tree && !tree.complete && total > tree.nodes.size;
  $('version').textContent = tree ? `v${tree.version} · ${tree.nodes.size.toLocaleString()}${loading ? ` of ${total.toLocaleString()}` : ''} node${tree.nodes.size === 1 && !loading ? '' : 's'}` : '';
  $('export').disabled = !tree;
  $('toggle-history').disabled = !tree;
  $('toggle-sub').disabled = !p;
  const sw = $('sw-state');
  sw.hidden = store.bridgeState === 'connected' || tabId === null;
  sw.dataset.status = 'reconnecting';
  sw.textContent = store.bridgeState === 'reconnecting' ? 'service worker restarting…' : 'connecting…';
}

function stateCard(title, text, ...actions) {
  return [h('div', { class: 'state-card' },
    h('h2', { text: title }),
    ...(Array.isArray(text) ? text : [text]).map((t) => (typeof t === 'string' ? h('p', { text: t }) : t)),
    actions.length ? h('div', { class: 'state-actions' }, actions) : null)];
}

function renderEmpty() {
  const p = currentProvider();
  const tree = currentTree();
  let content = null;
  let state = null;
  const retry = (cls = 'primary') => h('button', { type: 'button', class: cls, 'data-action': 'retry', onclick: () => bridge.request(Request.RETRY, { key: p.key }).catch(() => {}) }, 'Retry now');
  if (tabId === null) {
    state = 'no-tab';
    content = stateCard('No tab to inspect', 'Open this panel from DevTools (the SLOP tab), or as panel.html?tabId=N.');
  } else if (!store.seenProviders) {
    state = 'connecting-extension';
    content = stateCard('Connecting to the extension…', 'Waiting for the SLOP Inspector service worker. If this stays, reload the extension.');
  } else if (!p && !isImport()) {
    state = 'empty';
    content = stateCard('No SLOP provider on this page', [
      h('p', {}, 'A page announces one with ', h('code', { text: '<meta name="slop" content="ws://host:port/slop">' }),
        ' or ', h('code', { text: '<meta name="slop" content="postmessage">' }), ', or serves ', h('code', { text: '/.well-known/slop' }), '.'),
      h('p', { class: 'muted', text: 'Reload the page after adding one; this panel updates by itself. You can also import a snapshot file.' }),
      store.problems.length ? h('div', { class: 'problems' }, h('p', { class: 'error-text', text: 'The core refused what this page announced:' }),
        h('ul', {}, store.problems.map((x) => h('li', { class: 'mono small', text: `${x.content} — ${x.error}` })))) : null],
    h('button', { type: 'button', 'data-action': 'import', onclick: () => $('import-file').click() }, 'Import a snapshot…'));
  } else if (p && !tree) {
    state = p.status;
    const title = providerTitle(p);
    const where = h('p', { class: 'muted mono small', text: transportText(p) });
    switch (p.status) {
      case Status.PENDING_APPROVAL:
        content = stateCard(`${title} is on another origin`, [
          h('p', { text: 'This page names a provider that is not same-origin with it. Connect only if you trust it: the provider will see what you invoke.' }),
          h('p', { class: 'mono small', text: p.approvalKey }), where],
        h('button', { type: 'button', class: 'primary', 'data-action': 'approve', onclick: () => bridge.request(Request.APPROVE, { key: p.key }).catch((e) => toast(e.message)) }, 'Approve and connect'),
        h('button', { type: 'button', 'data-action': 'deny', onclick: () => bridge.request(Request.DENY, { key: p.key }).catch((e) => toast(e.message)) }, 'Deny'));
        break;
      case Status.DENIED:
        content = stateCard(`${title}: denied`, ['You denied this provider for this browser session.', where],
          h('button', { type: 'button', class: 'primary', 'data-action': 'approve', onclick: () => bridge.request(Request.APPROVE, { key: p.key }).catch((e) => toast(e.message)) }, 'Approve and connect'));
        break;
      case Status.AUTH_FAILED:
        content = stateCard(`${title}: the provider refused the connection`, [p.message || 'Authentication failed.',
          h('p', { text: p.tokenSet ? 'Check the token stored for this provider’s origin in Options, then retry.' : 'Set the provider’s bearer token in Options, then retry.' }), where],
        h('button', { type: 'button', class: 'primary', 'data-action': 'options', onclick: () => openOptionsPage() }, 'Open options'), retry(''));
        break;
      case Status.UNREACHABLE:
      case Status.RECONNECTING:
        content = stateCard(`${title}: ${statusLabel(p)}`, [p.message || 'The connection dropped.', 'Is the provider running? The extension retries by itself.', where], retry());
        break;
      case Status.ERROR:
        content = stateCard(`${title}: error`, [p.message || 'The provider broke the protocol.', 'The extension stopped talking to it. Fix the provider, then retry.', where], retry());
        break;
      default:
        state = p.status === Status.CONNECTED ? 'waiting-snapshot' : 'connecting';
        content = stateCard(p.status === Status.CONNECTED ? `${title}: waiting for the first snapshot…` : `Connecting to ${title}…`,
          [h('p', { class: 'spinner-line' }, h('span', { class: 'spinner' }), h('span', { text: syncText(p) || p.message || 'Opening the connection…' })),
            h('p', { class: 'muted', text: 'If this takes more than a few seconds, check that the provider is running and sends its hello.' }), where],
          ...(p.sync?.state === 'failed' ? [retry()] : []));
    }
  }
  document.body.dataset.state = state ?? (p && p.status !== Status.CONNECTED ? `stale-${p.status}` : 'tree');
  $('empty').hidden = content === null;
  $('main').hidden = content !== null;
  if (content) setChildren($('empty'), content);
}

function renderBanner() {
  const b = $('banner');
  const p = currentProvider();
  const tree = currentTree();
  const imp = isImport() ? store.imports.get(selectedKey) : null;
  let content = null;
  let kind = '';
  if (importError) {
    kind = 'error';
    content = [h('span', { text: `Import refused. ${importError}` }), h('button', { type: 'button', class: 'small', onclick: () => { importError = null; renderBanner(); } }, 'Dismiss')];
  } else if (scrub) {
    kind = 'scrub';
    // The same version number may exist on both sides of a provider restart: say which side.
    const crossed = tree ? tree.history.boundariesBetween(scrub.index, tree.history.length - 1).length : 0;
    content = [h('span', { class: 'banner-text' }, h('strong', { text: `Viewing version ${scrub.version}` }),
      ` (${scrub.index + 1} of ${tree?.history.length ?? '?'} recorded${crossed ? `, before ${crossed === 1 ? 'a provider restart or change' : `${crossed} provider restarts or changes`}` : ''}) — read-only; invoking is off.`),
    h('button', { type: 'button', class: 'small primary', 'data-action': 'back-to-live', onclick: () => setScrub(null) }, 'Back to live')];
  } else if (imp) {
    kind = 'import';
    content = [h('span', { text: `Imported file “${imp.name}”${imp.exportedAt ? `, exported ${imp.exportedAt}` : ''}: v${imp.version}, ${imp.count} nodes, read-only.` }),
      h('button', { type: 'button', class: 'small', 'data-action': 'close-import', onclick: () => closeImport(imp.key) }, 'Close')];
  } else if (tree && p && !p.live) {
    // Disconnected, or connected while the mirror waits, resyncs or is stale: never shown as live.
    kind = 'stale';
    const canRetry = [Status.AUTH_FAILED, Status.UNREACHABLE, Status.RECONNECTING, Status.ERROR].includes(p.status) ||
      (p.status === Status.CONNECTED && ['stale', 'failed'].includes(p.sync?.state));
    const text = p.status === Status.CONNECTED ? `Showing the last known state (v${tree.version}). ${syncText(p)}`
      : `${statusLabel(p)}${p.message ? ` — ${p.message}` : ''}: showing the last known state (v${tree.version}).`;
    content = [h('span', { text }),
      canRetry ? h('button', { type: 'button', class: 'small', 'data-action': 'retry', onclick: () => bridge.request(Request.RETRY, { key: p.key }).catch(() => {}) }, 'Retry now') : null];
  }
  b.hidden = content === null;
  b.dataset.kind = kind;
  if (content) setChildren(b, content);
}

function renderTree(change) {
  const src = displaySource();
  const touched = !scrub ? change?.touched?.get(selectedKey) : null;
  treeView.setSource(src, { touched, extras: scrub ? NO_EXTRAS : extrasOf(currentTree()) });
  if (!marks.firstRows && src && $('tree').querySelector('.row[data-path]')) {
    marks.firstRows = performance.timeOrigin + performance.now();
    marks.firstRowsCount = src.nodes.size;
    // After the next paint: a task queued from an animation frame callback runs once it is drawn.
    requestAnimationFrame(() => setTimeout(() => { marks.firstRowsPainted = performance.timeOrigin + performance.now(); }, 0));
  }
}

let lastDetail = null;
function renderDetail() {
  const p = currentProvider();
  const src = displaySource();
  const sel = treeView.selection();
  const view = sel ? (sel.query ?? src?.nodes.get(sel.path) ?? null) : null;
  const imp = isImport();
  const mode = scrub ? 'history' : imp ? 'import' : sel?.query ? 'query' : 'live';
  const connected = p?.status === Status.CONNECTED;
  const affCap = !!p?.capabilities.includes('affordances');
  const whyNot = mode === 'history' ? 'Viewing an earlier version: go back to live to invoke.'
    : mode === 'import' ? 'An imported file has no provider behind it.'
    : mode === 'query' ? 'Not in the subscription’s mirror: the core only invokes on mirrored nodes.'
    : !connected ? 'The provider is not connected.'
    : !affCap ? 'The provider did not declare the "affordances" capability.' : '';
  lastDetail = view;
  detailView.show(view, {
    providerKey: selectedKey,
    mode,
    canInvoke: mode === 'live' && connected && affCap,
    whyNot,
    stale: mode === 'live' && !connected,
    contentRefs: imp ? false : !!p?.capabilities.includes('content_refs'),
    version: scrub ? scrub.version : sel?.query ? extrasOf(currentTree()).get(parentPath(sel.path))?.version : currentTree()?.version,
  });
}

function renderLog() {
  if (!showLog) return;
  logView.setPaused(store.logPaused.has(selectedKey), store.logPaused.get(selectedKey) ?? 0);
  logView.show(store.logs.get(selectedKey) ?? [], store.events.get(selectedKey) ?? []);
}

function renderHistory() {
  if ($('history-strip').hidden) return;
  const tree = currentTree();
  historyView.show(tree?.history ?? null, scrub ? scrub.index : null);
}

function renderSubscription() {
  if ($('sub-strip').hidden) return;
  const p = currentProvider();
  const tree = currentTree();
  const custom = customSubs.get(selectedKey);
  const sub = tree?.sub ?? currentSub();
  const known = p?.subscriptions.find((s) => s.sub === sub) ?? null;
  // The provider list is pushed on status changes, not on every patch: version and count come
  // from the views the panel holds when it holds them all.
  const info = known && tree ? { ...known, version: tree.version, nodes: tree.complete ? tree.nodes.size : known.nodes } : known;
  subView.show(p, { custom: !!custom, options: custom?.options ?? { path: known?.path ?? '/' }, sub, info }, subError);
}

function renderLoadState() {
  const tree = currentTree();
  const p = currentProvider();
  const info = p?.subscriptions.find((s) => s.sub === tree?.sub);
  const el = $('load-state');
  if (!tree) { el.textContent = ''; return; }
  if (scrub) { el.textContent = `v${scrub.version} · ${scrub.source.nodes.size.toLocaleString()} nodes`; return; }
  // The worker's count as of its last answer (removed nodes leave it); the provider list's is older.
  const total = tree.total ?? info?.nodes ?? (isImport() ? store.imports.get(selectedKey)?.count : null);
  el.textContent = tree.complete || (total && tree.nodes.size >= total)
    ? `${tree.nodes.size.toLocaleString()} node${tree.nodes.size === 1 ? '' : 's'}`
    : `loading ${tree.nodes.size.toLocaleString()}${total ? ` of ${total.toLocaleString()}` : ''}…`;
  el.title = `${el.textContent}: node views held by the panel (search, history and export cover these)`;
}

function refreshAgent() {
  if (sideTab !== 'agent' || !selectedKey) return;
  const key = selectedKey;
  const sub = currentTree()?.sub;
  bridge.request(Request.AGENT_VIEW, { key, sub })
    .then((r) => { if (key === selectedKey) { agentView.show(r); slopPanel.lastAgentView = r; } })
    .catch((e) => agentView.show(null, e.message));
}

/** Things that need not be exact to the millisecond: once per frame at most. */
function scheduleLazy() {
  if (lazyScheduled) return;
  lazyScheduled = true;
  requestAnimationFrame(() => {
    lazyScheduled = false;
    renderBar();
    renderLoadState();
    renderHistory();
    renderSubscription();
    renderBanner();
    renderLog();
    renderSearchCount();
  });
}

function renderAll(change) {
  trackScrub();
  renderBar();
  renderEmpty();
  renderBanner();
  renderTree(change);
  renderDetail();
  renderLog();
  renderHistory();
  renderSubscription();
  renderLoadState();
  if (sideTab === 'agent') refreshAgent();
  $('toggle-history').setAttribute('aria-pressed', String(!$('history-strip').hidden));
}

store.subscribe((change) => {
  if (change.bridge && store.bridgeState === 'connected') {
    // A new port (first time, or after a service worker restart): the worker knows no watch yet.
    syncWatch(true);
  }
  if (change.providers) {
    dropStaleTrees();
    chooseProvider();
    syncWatch();
    restoreSubscriptions();
    document.body.dataset.ready = '1';
  }
  for (const ev of change.newEvents) if (ev.key === selectedKey && ev.event.event === 'task') detailView.onTask(ev.event);

  if (change.providers || change.bridge || change.imports) {
    renderAll(change);
    const tree = currentTree();
    if (tree && !tree.complete) kickFill(tree);
    return;
  }
  if (change.trees.has(selectedKey)) {
    const tree = currentTree();
    trackScrub();
    if (!scrub) {
      renderTree(change);
      const sel = treeView.selection();
      const touched = change.touched.get(selectedKey);
      if (change.resets.has(selectedKey) || (sel && !sel.query && (touched?.has(sel.path) || (tree && tree.nodes.get(sel.path) !== lastDetail)))) renderDetail();
      if (change.resets.has(selectedKey)) renderEmpty();
    }
    // filled: a getNodes answer (maybe only "missing" paths) may have been the last one pending.
    if (tree && (change.structure.has(selectedKey) || change.resets.has(selectedKey) || change.filled.has(selectedKey)) && !tree.complete) kickFill(tree);
    if (search.text && !scrub) {
      clearTimeout(search.timer);
      search.timer = setTimeout(() => runSearch(), 300);
    }
    if (sideTab === 'agent') {
      clearTimeout(agentTimer);
      agentTimer = setTimeout(refreshAgent, 400);
    }
    scheduleLazy();
  } else if (change.logs.has(selectedKey) || change.events.has(selectedKey)) {
    if (showLog) scheduleLazy();
  }
});

// Debugging and test handle (developer console of the panel, end-to-end tests, benchmark).
// marks (epoch ms, performance.timeOrigin + now): opened (script start), firstReset (the first
// tree/reset applied), firstRows (rows in the DOM), firstRowsPainted, mirrorComplete (every view
// of the mirror loaded).
const slopPanel = {
  store,
  marks,
  selectedKey: () => selectedKey,
  currentTree: () => currentTree(),
  currentSub: () => currentSub(),
  request: (type, fields) => bridge.request(type, fields),
  selection: () => treeView.selection(),
  reveal: (path) => treeView.reveal(path),
  toggle: (path, open) => treeView.toggle(path, open),
  rowCount: () => treeView.rowCount,
  /** Scrolls a row into view by its key (a path, "more:<path>", "q:<path>", "qhead:<path>"). */
  scrollToRow: (key, align = 'center') => {
    const i = treeView.rowIndex.get(key);
    if (i !== undefined) treeView.list.scrollToIndex(i, align);
    return i !== undefined;
  },
  scrubTo: (index) => setScrub(index),
  diff: (a, b) => showDiff(a, b),
  importText: (text, name) => importText(text, name),
  lastCopied: null,
  lastExport: null,
  lastDiff: null,
  lastAgentView: null,
};
globalThis.slopPanel = slopPanel;

// Countdown of "retry in N s" in the bar.
setInterval(() => {
  const p = currentProvider();
  if (p?.retryAt || p?.sync?.retryAt) { renderBar(); renderEmpty(); renderBanner(); }
}, 1000);

setSideTab('node');
if (tabId === null) {
  store.seenProviders = true;
  document.body.dataset.ready = '1';
  renderAll();
} else {
  bridge.start();
  renderAll();
}
