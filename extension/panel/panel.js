// panel.js: the SLOP DevTools panel, put together. The bridge (port to the service worker,
// batching) feeds the store (node views by path, the history's steps, log); the selection says what is shown;
// each part of the page (parts/) renders it and acts through the store, the selection and the
// bridge. Nothing here speaks SLOP: every protocol decision is the core's.
//
// Runs inside DevTools (tab from chrome.devtools.inspectedWindow.tabId) and as a plain extension
// page, panel.html?tabId=N (tests, or a tab of its own).
//
// A store change reaches the screen in two speeds: the tree and the selected node at once (a patch
// shows within the frame it arrived in), the rest (bar, strips, banner, log, counts) once per
// animation frame at most.

import { Push } from '../shared/messages.js';
import { CoreEventName } from '../../js-glue/core-contract.js';
import { isAtOrUnder, parentPath } from '../shared/node-path.js';
import { inspectedTabId } from '../shared/browser.js';
import { Bridge } from './bridge.js';
import { Store } from './store.js';
import { Selection } from './selection.js';
import { MirrorFill } from './mirror-fill.js';
import { initTheme } from './theme.js';
import { Toast } from './parts/toast.js';
import { Toolbar } from './parts/toolbar.js';
import { ConformancePane } from './parts/conformance-pane.js';
import { StringSend } from './parts/string-send.js';
import { ConnectStrip } from './parts/connect-strip.js';
import { LocalAppsStrip } from './parts/local-apps.js';
import { Notices } from './parts/notices.js';
import { TreePane } from './parts/tree-pane.js';
import { SearchBar } from './parts/search-bar.js';
import { SidePane } from './parts/side-pane.js';
import { ConsoleGlobal } from './parts/console-global.js';
import { LogDrawer } from './parts/log-drawer.js';
import { HistoryPane, isRecordingText } from './parts/history-pane.js';
import { CopyAsTest } from './parts/copy-as-test.js';
import { PlaygroundPane } from './parts/playground-pane.js';
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
    side.renderDetail();
    consoleGlobal.later();
  },
  onOpen: () => side.openNode(),
  copy: (text, what) => copy(text, what),
  showInLog: (path) => logDrawer.showPath(path),
});
const treeView = treePane.view;
const side = new SidePane({ tabs: $('side-tabs'), detail: $('detail'), agent: $('agent'), playground: $('playground'), history: $('history'), conformance: $('conformance') }, {
  store, bridge, selection, treeView, copy,
  onPlayground: () => playground.shown(),
  onTab: () => playground.tabChanged(),
  onConformance: () => conformance.refresh(),
  onHistory: () => {
    historyPane.load();
    historyPane.render();
  },
});
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
const conformance = new ConformancePane({ root: $('conformance'), badge: $('conf-badge') }, {
  bridge, selection,
  isOpen: () => side.tab === 'conformance',
  // The badge opens the tab even over a provider's waiting card: one that never went live is judged too.
  open: () => { side.setTab('conformance'); notices.renderEmpty(); },
  revealNode: (path) => {
    if (!selection.source()?.nodes.has(path)) return false;
    treeView.reveal(path);
    return true;
  },
  revealFrame: (text) => logDrawer.reveal(text),
});
// $slop in the inspected page's console: the selected node and the mirror (the page's own providers only).
const consoleGlobal = new ConsoleGlobal({ selection, treeView, enabled: inspectedTabId() !== null });
const historyPane = new HistoryPane({ strip: $('history-strip'), button: $('toggle-history'), list: $('history'), file: $('recording-file') }, {
  store, bridge, selection, treeView, toast,
  onScrub: () => {
    renderAll();
    if (search.text) search.run();
  },
  showTab: () => side.showHistory(),
  onRecording: (key) => show(key),
  onClosed: () => side.historyClosed(),
});
// The strip's Test menu: the History's invokes as a runnable test (parts/copy-as-test.js).
const copyAsTest = new CopyAsTest($('history-strip'), { store, bridge, selection, toast, pins: () => historyPane.pins });
const playground = new PlaygroundPane($('playground'), {
  store, bridge, selection, toast,
  isShown: () => side.tab === 'playground',
  // A dangerous call waits while another tab is shown: the Playground tab says so.
  attention: (on) => { if (side.setAttention('playground', on)) toast.show('The agent waits for your answer in Playground'); },
  history: { pane: historyPane, showTab: () => side.setTab('history'), showProvider: (key) => show(key) },
});
const subscription = new SubscriptionStrip({ strip: $('sub-strip'), button: $('toggle-sub') }, { store, bridge, selection, onChange: () => renderAll() });
const importExport = new ImportExport({ exportBtn: $('export'), importBtn: $('import'), file: $('import-file') }, {
  store, bridge, selection, toast,
  onImported: (key) => {
    show(key);
    fill.kick(selection.tree());
  },
  openRecording: (text, name) => historyPane.openRecording(text, name),
  isRecordingText,
  onClosed: () => {
    selection.forget();
    show(selection.choice());
    renderAll();
  },
  onError: () => notices.renderBanner(),
});
const notices = new Notices({ empty: $('empty'), main: $('main'), banner: $('banner'), alert: $('alert') }, {
  store, bridge, selection, tabId, toast,
  conformanceShown: () => side.tab === 'conformance' && (conformance.report?.must ?? 0) > 0,
  openLocalApps: () => localApps.open(),
  importError: () => importExport.error,
  dismissImportError: () => importExport.dismissError(),
  backToLive: () => historyPane.backToLive(),
  closeImport: (key) => importExport.close(key),
  closeRecording: (key) => {
    historyPane.closeRecording(key);
    selection.forget();
    show(selection.choice());
    renderAll();
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

/** Shows another provider (or import, or nothing). */
function show(key) {
  if (!selection.select(key)) return;
  subscription.providerShown();
  historyPane.providerShown();
  logDrawer.syncPaused();
  conformance.select();
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
  historyPane.render();
  subscription.render();
  notices.renderBanner();
  logDrawer.render();
  search.renderCount();
}

const renderLater = oncePerFrame(renderLazy);

/** fn, called at the next animation frame however often it is asked for before then. */
function oncePerFrame(fn) {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      fn();
    });
  };
}

function renderAll(change) {
  trackScrub();
  notices.renderEmpty();
  treePane.render(change);
  side.renderDetail();
  renderLazy();
  side.refreshAgent();
  playground.render();
}

store.subscribe((change) => {
  consoleGlobal.later(); // $slop in the page's console follows the panel
  // A new port (first time, or after a service worker restart): the worker knows no watch yet.
  if (change.bridge && store.bridgeState === 'connected') {
    selection.syncWatch(true);
    historyPane.reconnected();
    // Local apps: their count on the bar's button; the worker (started again, perhaps) follows them for this port.
    if (tabId !== null) localApps.refresh();
  }
  if (change.localApps) {
    localApps.render();
    if (!selection.provider()) notices.renderEmpty();
  }
  if (change.bridge) playground.bridgeChanged(store.bridgeState);
  if (change.agent.length) playground.onPush(change.agent);
  if (change.histories.size) playground.historiesChanged(change.histories);
  if (change.providers) {
    const wanted = wantedKey && store.providers.some((p) => p.key === wantedKey) ? wantedKey : null;
    if (wanted) wantedKey = null;
    show(wanted ?? selection.choice());
    selection.syncWatch();
    subscription.restore();
    document.body.dataset.ready = '1';
  }
  const key = selection.key;
  for (const ev of change.newEvents) if (ev.key === key && ev.event.event === CoreEventName.TASK) side.onTask(ev.event);
  if (change.queries.has(key)) treePane.renderPages();
  if (change.histories.has(key)) {
    historyPane.stepsChanged();
    renderLater();
  }

  if (change.providers || change.bridge || change.imports) {
    renderAll(change);
    const tree = selection.tree();
    if (tree && !tree.complete) fill.kick(tree);
    return;
  }
  if (change.trees.has(key)) onTreeChange(change, key);
  else if (change.logs.has(key) || change.events.has(key)) {
    if (logDrawer.open) renderLater();
  }
});

// The tree's rows are rebuilt at once when the last rebuild was a while ago (a patch after a quiet
// spell shows without waiting for the next frame), else at most once per animation frame, right
// before the paint: a flood of deltas then costs one render a frame (style, layout, paint, and the
// hover hit test Chrome runs after a layout under the pointer), not one per batch.
const TREE_QUIET_MS = 8;
let treeTouched = null; // {key, paths} changed since the last render, for the flash
let lastTreeRender = -Infinity;
let treeDue = false;
function renderTreeNow() {
  treeDue = false;
  lastTreeRender = performance.now();
  const touched = treeTouched?.key === selection.key ? treeTouched.paths : null;
  treeTouched = null;
  treePane.render(touched ? { touched: new Map([[selection.key, touched]]) } : null);
}
const renderTreeInFrame = oncePerFrame(() => { if (treeDue) renderTreeNow(); });
function renderTreeLater() {
  treeDue = true;
  if (performance.now() - lastTreeRender >= TREE_QUIET_MS) renderTreeNow();
  else renderTreeInFrame();
}

/**
 * A patch removed the selected node (or an ancestor of it): the selection goes to the nearest
 * ancestor still there, and the detail says what was removed and at which version, rather than
 * going blank. Not a sibling: an action then at hand must be on a node the user chose.
 */
function keepPlaceAfterRemoval(change, key) {
  const removed = change.removed.get(key);
  const tree = selection.tree();
  const sel = treeView.selection();
  if (!removed || !tree || !sel || sel.query || tree.nodes.has(sel.path)) return;
  const hit = removed.find((r) => r.sub === tree.sub && isAtOrUnder(sel.path, r.path));
  if (!hit) return;
  let at = parentPath(hit.path);
  while (at !== null && !tree.nodes.has(at)) at = parentPath(at);
  if (at === null) return;
  side.nodeRemoved({ path: sel.path, version: hit.version, at });
  treeView.select(at);
}

/** A delta, reset or loaded views of the shown provider's trees. */
function onTreeChange(change, key) {
  const tree = selection.tree();
  trackScrub();
  if (!selection.scrub) keepPlaceAfterRemoval(change, key);
  if (!selection.scrub) {
    const touched = change.touched.get(key);
    if (touched) {
      if (treeTouched?.key !== key) treeTouched = { key, paths: new Set() };
      for (const p of touched) treeTouched.paths.add(p);
    }
    renderTreeLater();
    if (change.resets.has(key) || side.detailOutdated(tree, change.touched.get(key))) side.renderDetail();
    if (change.resets.has(key)) notices.renderEmpty();
  }
  // filled: a ui/get-nodes answer (maybe only "missing" paths) may have been the last one pending.
  if (tree && !tree.complete && (change.structure.has(key) || change.resets.has(key) || change.filled.has(key))) fill.kick(tree);
  if (search.text && !selection.scrub) search.later(300);
  side.agentLater();
  conformance.later();
  renderLater();
}

// Debugging and test handle (developer console of the panel, end-to-end tests, benchmark).
globalThis.slopPanel = {
  store,
  marks,
  selectedKey: () => selection.key,
  currentTree: () => selection.tree(),
  currentSub: () => selection.sub(),
  request: (type, fields) => bridge.request(type, fields),
  selection: () => treeView.selection(),
  /** How long the detail marks a changed field (ms): an end-to-end test holds them for its screenshots. */
  set changeMarkMs(ms) { side.detail.markMs = ms; },
  conformance: () => conformance.report,
  stringResult: () => stringSend.lastResult,
  connectResult: () => connectStrip.last,
  localResult: () => localApps.last,
  reveal: (path) => treeView.reveal(path),
  toggle: (path, open) => treeView.toggle(path, open),
  rowCount: () => treeView.rowCount,
  /** Scrolls a row into view by its key (a path, "more:<path>", "q:<path>", "qhead:<path>"). */
  scrollToRow: (rowKey, align = 'center') => {
    const i = treeView.rowIndex.get(rowKey);
    if (i !== undefined) treeView.list.scrollToIndex(i, align);
    return i !== undefined;
  },
  /** Selects the step at this index of the shown history (null: live); resolves once shown. */
  scrubTo: (index) => {
    if (index === null) historyPane.select(null);
    else historyPane.selectIndex(index);
  },
  historyShown: () => historyPane.shown,
  pinSteps: (a, b) => historyPane.pinIndexes(a, b),
  history: () => store.histories.get(selection.key) ?? null,
  openRecording: (text, name) => historyPane.openRecording(text, name),
  get lastRecording() { return historyPane.lastExport; },
  /** "Copy as test": the test's text for the shown History ('playwright' or 'node'), as the Test menu writes it. */
  writeTest: (form) => copyAsTest.write(form),
  get lastTest() { return copyAsTest.last; },
  importText: (text, name) => importExport.importText(text, name),
  get lastCopied() { return toast.lastCopied; },
  get lastExport() { return importExport.lastExport; },
  get lastDiff() { return historyPane.lastDiff; },
  get lastAgentView() { return side.lastAgentView; },
  /** The Playground: its run, last trace and export (parts/playground-pane.js testState). */
  get playground() { return playground.testState(); },
  /** Replays an exported session's text, as the Replay… file chooser does. */
  playgroundReplay: (text, name) => playground.replayText(text, name),
  shortcutsOpen: () => shortcuts.open,
  /** What $slop in the inspected page holds now (built as it is sent; no tree). */
  consolePayload: () => consoleGlobal.payload(),
};

// The panel's own keys (parts/panel-keys.js; every key is listed in shortcuts.js and the "?" overlay).
const shortcuts = new ShortcutsOverlay(document.body);
new PanelKeys(document, { overlay: shortcuts, search: $('search') });

// Countdown of "retry in N s" in the bar.
setInterval(() => {
  const p = selection.provider();
  if (p?.retryAt || p?.sync?.retryAt) {
    toolbar.render();
    notices.renderEmpty();
    notices.renderBanner();
  }
}, 1000);

side.setTab('node');
if (tabId === null) {
  store.noTab();
  document.body.dataset.ready = '1';
} else {
  bridge.start();
}
renderAll();
