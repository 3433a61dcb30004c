// test-handle.js: globalThis.slopPanel, the panel's debugging and test handle (the panel's
// developer console, the end-to-end tests, the benchmark). It reads the parts; the panel never
// reads it.

/** @typedef {import('./store.js').Store} Store */

/**
 * @param {{store: Store, marks: Record<string, number>, bridge: import('./bridge.js').Bridge,
 *   selection: import('./selection.js').Selection, treeView: import('./views/tree-view.js').TreeView,
 *   side: import('./parts/side-pane.js').SidePane, stringSend: import('./parts/string-send.js').StringSend,
 *   connectStrip: import('./parts/connect-strip.js').ConnectStrip, localApps: import('./parts/local-apps.js').LocalAppsStrip,
 *   copyAsTest: import('./parts/copy-as-test.js').CopyAsTest, importExport: import('./parts/import-export.js').ImportExport,
 *   toast: import('./parts/toast.js').Toast, shortcuts: import('./parts/shortcuts-overlay.js').ShortcutsOverlay,
 *   consoleGlobal: import('./parts/console-global.js').ConsoleGlobal}} p
 */
export function installTestHandle(p) {
  const { store, selection, treeView, side } = p;
  // The side tabs' panes (side-tabs.js), as they are.
  const nodePane = /** @type {import('./parts/node-pane.js').NodePane} */ (side.pane('node'));
  const agentPane = /** @type {import('./parts/agent-pane.js').AgentPane} */ (side.pane('agent'));
  const playground = /** @type {import('./parts/playground-pane.js').PlaygroundPane} */ (side.pane('playground'));
  const historyPane = /** @type {import('./parts/history-pane.js').HistoryPane} */ (side.pane('history'));
  const conformance = /** @type {import('./parts/conformance-pane.js').ConformancePane} */ (side.pane('conformance'));
  globalThis.slopPanel = {
    store,
    marks: p.marks,
    selectedKey: () => selection.key,
    currentTree: () => selection.tree(),
    currentSub: () => selection.sub(),
    request: (type, fields) => p.bridge.request(type, fields),
    selection: () => treeView.selection(),
    /** How long the detail marks a changed field (ms): an end-to-end test holds them for its screenshots. */
    set changeMarkMs(ms) { nodePane.detail.markMs = ms; },
    conformance: () => conformance.report,
    stringResult: () => p.stringSend.lastResult,
    connectResult: () => p.connectStrip.last,
    localResult: () => p.localApps.last,
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
    historyShown: () => historyPane.shownStep,
    pinSteps: (a, b) => historyPane.pinIndexes(a, b),
    history: () => store.histories.get(selection.key) ?? null,
    openRecording: (text, name) => historyPane.openRecording(text, name),
    get lastRecording() { return historyPane.lastExport; },
    /** "Copy as test": the test's text for the shown History ('playwright' or 'node'), as the Test menu writes it. */
    writeTest: (form) => p.copyAsTest.write(form),
    get lastTest() { return p.copyAsTest.last; },
    importText: (text, name) => p.importExport.importText(text, name),
    get lastCopied() { return p.toast.lastCopied; },
    get lastExport() { return p.importExport.lastExport; },
    get lastDiff() { return historyPane.lastDiff; },
    get lastAgentView() { return agentPane.lastAgentView; },
    /** The Cost tab: its profile worker's last state ({report, hierarchy, timeline, counting}), why it has none. */
    get cost() {
      const pane = /** @type {import('./parts/cost-pane.js').CostPane|undefined} */ (side.pane('cost'));
      return { state: pane?.state ?? null, why: pane?.why ?? null, options: pane?.viewOptions ?? null };
    },
    /** The Playground: its run, last trace and export. */
    get playground() {
      const run = playground.run;
      return {
        runId: run?.runId ?? null,
        kind: run?.kind ?? null,
        running: !!run && !run.ended,
        outcome: run?.outcome?.kind ?? null,
        turns: run ? [...run.turns.values()].map((t) => ({ i: t.i, text: t.text, done: !!t.record })) : [],
        waiting: run ? [...run.confirms.values()].filter((c) => !c.answer).map((c) => c.confirmId) : [],
        lastTrace: playground.lastTrace,
        lastExport: playground.lastExport,
        profileId: playground.profileId,
        profiles: playground.profiles.length,
      };
    },
    /** Replays an exported session's text, as the Replay… file chooser does. */
    playgroundReplay: (text, name) => playground.replayText(text, name),
    shortcutsOpen: () => p.shortcuts.open,
    /** What $slop in the inspected page holds now (built as it is sent; no tree). */
    consolePayload: () => p.consoleGlobal.payload(),
  };
}
