// panel.js: the SLOP DevTools panel, put together. The bridge (port to the service worker,
// batching) feeds the store (node views by path, the history's steps, log); the selection says what is shown;
// each part of the page (parts/) renders it and acts through the store, the selection and the
// bridge; the side pane's tabs are side-tabs.js's list, each tab's pane told of every store change
// (panes.js). Nothing here speaks SLOP: every protocol decision is the core's.
//
// Runs inside DevTools (tab from chrome.devtools.inspectedWindow.tabId) and as a plain extension
// page, panel.html?tabId=N (tests, or a tab of its own).
//
// A store change reaches the screen in two speeds: the tree and the selected node at once (a patch
// shows within the frame it arrived in; parts/tree-pane.js), the rest (bar, strips, banner, log,
// counts) once per animation frame at most.

import { Push } from '../shared/messages.js';
import { inspectedTabId } from '../shared/browser.js';
import { Bridge } from './bridge.js';
import { Store } from './store.js';
import { Selection } from './selection.js';
import { MirrorFill } from './mirror-fill.js';
import { initTheme } from './theme.js';
import { oncePerFrame } from './panes.js';
import { installTestHandle } from './test-handle.js';
import { Toast } from './parts/toast.js';
import { Toolbar } from './parts/toolbar.js';
import { StringSend } from './parts/string-send.js';
import { ConnectStrip } from './parts/connect-strip.js';
import { LocalAppsStrip } from './parts/local-apps.js';
import { Notices } from './parts/notices.js';
import { TreePane } from './parts/tree-pane.js';
import { SearchBar } from './parts/search-bar.js';
import { SidePane } from './parts/side-pane.js';
import { ConsoleGlobal } from './parts/console-global.js';
import { LogDrawer } from './parts/log-drawer.js';
import { isRecordingText } from './parts/history-pane.js';
import { CopyAsTest } from './parts/copy-as-test.js';
import { SubscriptionStrip } from './parts/subscription-strip.js';
import { ImportExport } from './parts/import-export.js';
import { Splitters } from './parts/splitters.js';
import { ShortcutsOverlay } from './parts/shortcuts-overlay.js';
import { PanelKeys } from './parts/panel-keys.js';

/**
 * The element of panel.html with this id, as the element its tag makes it (the caller's type).
 * @template {HTMLElement} [E=HTMLElement]
 * @param {string} id @returns {E}
 */
const $ = (id) => /** @type {E} */ (document.getElementById(id));
const now = () => performance.timeOrigin + performance.now();
const params = new URLSearchParams(location.search);
const tabId = inspectedTabId() ?? (params.has('tabId') ? Number(params.get('tabId')) : null);
document.body.dataset.inDevtools = String(inspectedTabId() !== null);
document.body.dataset.themeSource = initTheme();

// Timings (epoch ms) for the benchmark: opened (script start), firstReset (the first sw/tree-reset
// applied), firstRows (rows in the DOM), firstRowsPainted, mirrorComplete (every view loaded).
const marks = { opened: now() };
const store = new Store();
const bridge = new Bridge(tabId, (batch) => {
  if (!marks.firstReset && batch.some((m) => m.type === Push.TREE_RESET)) marks.firstReset = now();
  store.applyBatch(batch);
});
const selection = new Selection(store, bridge);

// The parts of the page. They reach each other only through the callbacks given here, which run
// after this set-up (on events and store changes), so the order of construction does not matter.
const toast = new Toast($('toast'));
const copy = (text, what) => toast.copy(text, what);

const fill = new MirrorFill({
  store, bridge,
  onComplete: () => {
    marks.mirrorComplete ??= now();
    if (search.text) search.run();
  },
  onSettled: () => renderLater(),
});
const treePane = new TreePane({ tree: $('tree'), loadState: $('load-state'), crumbs: $('breadcrumbs'), filterButton: $('tree-filter-btn'), filterStrip: $('tree-filter') }, {
  store, bridge, selection, fill, marks,
  onSelect: () => {
    nodePane.render();
    consoleGlobal.later();
  },
  onOpen: () => {
    side.show('node');
    nodePane.open();
  },
  onRemoved: (info) => nodePane.nodeRemoved(info),
  copy: (text, what) => copy(text, what),
  showInLog: (path) => logDrawer.showPath(path),
});
const treeView = treePane.view;
const search = new SearchBar({
  input: $('search'), field: $('search-field'), count: $('search-count'), prev: $('search-prev'), next: $('search-next'), tree: $('tree'), main: $('main'),
}, { selection, treeView });
const toolbar = new Toolbar({
  provider: $('provider'), status: $('status'), version: $('version'),
  exportBtn: $('export'), historyBtn: $('toggle-history'), subBtn: $('toggle-sub'),
}, { store, selection, tabId, onSelect: (key) => show(key) });
const splitters = new Splitters({ main: $('main'), split: $('split'), log: $('log'), logSplit: $('log-split') });
const logDrawer = new LogDrawer({ log: $('log'), button: $('toggle-log'), split: $('log-split') }, { store, selection, copy, splitters });
const connectStrip = new ConnectStrip({ strip: $('connect-strip'), button: $('toggle-connect') }, {
  store, bridge,
  // A live provider stays shown unless the user picked one that answered.
  onSelect: (key, { unlessLive = false } = {}) => { if (!(unlessLive && selection.provider()?.live)) pendingSelect(key); },
});
const localApps = new LocalAppsStrip({ strip: $('local-strip'), button: $('toggle-local') }, {
  store, bridge, copy, toast,
  // The user asked for this app: show it.
  onSelect: (key) => pendingSelect(key),
  onButton: () => toolbar.render(),
});
const stringSend = new StringSend($('send-string'), { bridge, selection, toast });
// The side pane: its tabs and their panes are side-tabs.js's; this is what a pane may ask of the panel.
const side = new SidePane({ tabs: $('side-tabs'), side: $('side') }, {
  store, bridge, selection, treeView, toast, copy, el: $,
  panel: {
    showProvider: (key) => show(key),
    stepShown: () => {
      renderAll();
      if (search.text) search.run();
    },
    revealFrame: (text) => logDrawer.reveal(text),
    renderNotices: () => notices.renderEmpty(),
  },
});
// The panes other parts act on (side-tabs.js makes them).
const nodePane = /** @type {import('./parts/node-pane.js').NodePane} */ (side.pane('node'));
const historyPane = /** @type {import('./parts/history-pane.js').HistoryPane} */ (side.pane('history'));
const conformance = /** @type {import('./parts/conformance-pane.js').ConformancePane} */ (side.pane('conformance'));
// $slop in the inspected page's console: the selected node and the mirror (the page's own providers only).
const consoleGlobal = new ConsoleGlobal({ selection, treeView, enabled: inspectedTabId() !== null });
// The strip's Test menu: the History's invokes as a runnable test (parts/copy-as-test.js).
const copyAsTest = new CopyAsTest($('history-strip'), { store, bridge, selection, toast, pins: () => historyPane.pins });
const subscription = new SubscriptionStrip({ strip: $('sub-strip'), button: $('toggle-sub') }, { store, bridge, selection, onChange: () => renderAll() });
const importExport = new ImportExport({ exportBtn: $('export'), importBtn: $('import'), file: $('import-file') }, {
  store, bridge, selection, toast,
  onImported: (key) => {
    show(key);
    fill.kick(selection.tree());
  },
  openRecording: (text, name) => historyPane.openRecording(text, name),
  isRecordingText,
  onClosed: () => showChoice(),
  onError: () => notices.renderBanner(),
});
const notices = new Notices({ empty: $('empty'), main: $('main'), banner: $('banner'), alert: $('alert') }, {
  store, bridge, selection, tabId, toast,
  conformanceShown: () => conformance.isShown && (conformance.report?.must ?? 0) > 0,
  openLocalApps: () => localApps.open(),
  importError: () => importExport.error,
  dismissImportError: () => importExport.dismissError(),
  backToLive: () => historyPane.backToLive(),
  closeImport: (key) => importExport.close(key),
  closeRecording: (key) => {
    historyPane.closeRecording(key);
    showChoice();
  },
  openImport: () => importExport.pick(),
});

/** A provider added by address: shown once the worker lists it. */
let wantedKey = null;
function pendingSelect(key) {
  wantedKey = key;
  if (store.providers.some((p) => p.key === key)) {
    wantedKey = null;
    show(key);
  }
}

/** Shows another provider (or import, or nothing); the panes follow in renderAll (side.update(null)). */
function show(key) {
  if (!selection.select(key)) return;
  subscription.providerShown();
  logDrawer.syncPaused();
  renderAll();
}

/** What was shown is gone (an import or a recording closed): the provider the panel would choose. */
function showChoice() {
  selection.forget();
  show(selection.choice());
  renderAll();
}

/** A scrub of a provider no longer shown is over. */
function trackScrub() {
  if (!selection.trackScrub()) return;
  renderAll();
  if (search.text) search.run();
}

/** What need not be exact to the millisecond: once per animation frame at most. */
function renderLazy() {
  toolbar.render();
  connectStrip.render();
  localApps.render();
  stringSend.render();
  treePane.renderLoadState();
  subscription.render();
  notices.renderBanner();
  logDrawer.render();
  search.renderCount();
}

const renderLater = oncePerFrame(renderLazy);

/** Everything, now; `change`: the store change that led here (null: the shown state as a whole). */
function renderAll(change = null) {
  trackScrub();
  notices.renderEmpty();
  treePane.render(change);
  side.update(change);
  renderLazy();
}

store.subscribe((change) => {
  consoleGlobal.later(); // $slop in the page's console follows the panel
  // A new port (first time, or after a service worker restart): the worker knows no watch yet.
  if (change.bridge && store.bridgeState === 'connected') {
    selection.syncWatch(true);
    // Local apps: their count on the bar's button; the worker (started again, perhaps) follows them for this port.
    if (tabId !== null) localApps.refresh();
  }
  if (change.localApps) {
    localApps.render();
    if (!selection.provider()) notices.renderEmpty();
  }
  if (change.providers) {
    const wanted = wantedKey && store.providers.some((p) => p.key === wantedKey) ? wantedKey : null;
    if (wanted) wantedKey = null;
    show(wanted ?? selection.choice());
    selection.syncWatch();
    subscription.restore();
    document.body.dataset.ready = '1';
  }
  const key = selection.key;
  if (change.queries.has(key)) treePane.renderPages();
  if (change.histories.has(key)) renderLater();

  if (change.providers || change.bridge || change.imports) {
    renderAll(change);
    const tree = selection.tree();
    if (tree && !tree.complete) fill.kick(tree);
    return;
  }
  // A delta, reset or loaded views of the shown provider's trees: the tree first (the selection
  // keeps its place), then the panes (the detail follows the selection).
  const treeChanged = change.trees.has(key);
  const tree = selection.tree();
  if (treeChanged) trackScrub();
  if (treeChanged && !selection.scrub) {
    treePane.treeChanged(change, key);
    if (change.resets.has(key)) notices.renderEmpty();
  }
  side.update(change);
  if (treeChanged) {
    // filled: a ui/get-nodes answer (maybe only "missing" paths) may have been the last one pending.
    if (tree && !tree.complete && (change.structure.has(key) || change.resets.has(key) || change.filled.has(key))) fill.kick(tree);
    if (search.text && !selection.scrub) search.later(300);
    renderLater();
  } else if (change.logs.has(key) || change.events.has(key)) {
    if (logDrawer.open) renderLater();
  }
});

// The panel's own keys (parts/panel-keys.js; every key is listed in shortcuts.js and the "?" overlay).
const shortcuts = new ShortcutsOverlay(document.body);
new PanelKeys(document, { overlay: shortcuts, search: $('search') });

installTestHandle({
  store, marks, bridge, selection, treeView, side, stringSend, connectStrip, localApps, copyAsTest, importExport, toast, shortcuts, consoleGlobal,
});

// Countdown of "retry in N s" in the bar.
setInterval(() => {
  const p = selection.provider();
  if (p?.retryAt || p?.sync?.retryAt) {
    toolbar.render();
    notices.renderEmpty();
    notices.renderBanner();
  }
}, 1000);

// The panes' timers and listeners stop with the page (not when it is only put aside in a cache).
addEventListener('pagehide', (e) => { if (!e.persisted) side.dispose(); });
if (tabId === null) {
  store.noTab();
  document.body.dataset.ready = '1';
} else {
  bridge.start();
}
renderAll();
