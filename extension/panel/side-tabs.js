// side-tabs.js: the tabs of the side pane, in their order: each one's button (label, tooltip), the
// element its pane fills, and the factory that makes the pane (panes.js says what a pane is;
// parts/side-pane.js shows them and routes to them). Adding a tab: docs/architecture.md,
// "Adding a panel tab".

import { h } from '../shared/dom.js';
import { NodePane } from './parts/node-pane.js';
import { AgentPane } from './parts/agent-pane.js';
import { PlaygroundPane } from './parts/playground-pane.js';
import { HistoryPane } from './parts/history-pane.js';
import { ConformancePane } from './parts/conformance-pane.js';
import { CostPane } from './parts/cost-pane.js';

/** @typedef {import('./panes.js').Pane} Pane */
/** @typedef {import('./panes.js').PaneContext} PaneContext */

/**
 * @typedef {object} SideTab
 * @property {string} id      the button's data-tab
 * @property {string} label   the button's text
 * @property {string} title   its tooltip
 * @property {string} module  the module that makes the pane, from extension/panel/
 * @property {(root: HTMLElement, ctx: PaneContext) => Pane|Promise<Pane>} create   makes the pane
 *   in its element; a promise: a module loaded with import() (the tab shows once it is made)
 * @property {string} [panelId]  the id of the pane's element (the stylesheet's and the tests'), else the id
 */

/** A tab's entry, checked. @param {SideTab} tab @returns {Readonly<SideTab>} */
export function sideTab(tab) {
  for (const k of /** @type {const} */ (['id', 'label', 'title', 'module'])) {
    if (typeof tab[k] !== 'string' || !tab[k]) throw new TypeError(`side tab: "${k}" must be a non-empty string`);
  }
  if (!/^[a-z][a-z0-9-]*$/.test(tab.id)) throw new TypeError(`side tab: id "${tab.id}" must be lower-case letters, digits and "-"`);
  if (typeof tab.create !== 'function') throw new TypeError(`side tab "${tab.id}": create must be a function`);
  return Object.freeze({ ...tab });
}

/** The History tab's pane, for the panes that act on it (only once every pane is made). @param {PaneContext} c */
const historyOf = (c) => /** @type {HistoryPane} */ (c.side.pane('history'));

/** The side tabs, in the order of their buttons. @type {Readonly<SideTab>[]} */
export const SIDE_TABS = [
  sideTab({
    id: 'node', label: 'Node', title: 'The selected node: properties, meta, affordances', panelId: 'detail',
    module: 'parts/node-pane.js',
    create: (root, c) => new NodePane(root, c),
  }),
  sideTab({
    id: 'agent', label: 'Agent', title: 'Agent view: the tree text and tools an AI agent would be given',
    module: 'parts/agent-pane.js',
    create: (root, c) => new AgentPane(root, c),
  }),
  sideTab({
    id: 'playground', label: 'Playground', title: 'Playground: a real model does a task on this app through the extension; every step in a trace',
    module: 'parts/playground-pane.js',
    create: (root, c) => new PlaygroundPane(root, {
      store: c.store, bridge: c.bridge, selection: c.selection, toast: c.toast,
      // A dangerous call waits while another tab is shown: the Playground tab says so.
      attention: (on) => { if (c.side.setAttention('playground', on)) c.toast.show('The agent waits for your answer in Playground'); },
      history: { get pane() { return historyOf(c); }, showTab: () => c.side.show('history'), showProvider: (key) => c.panel.showProvider(key) },
    }),
  }),
  sideTab({
    id: 'history', label: 'History', title: 'Every step of the provider\'s history, and what each changed',
    module: 'parts/history-pane.js',
    create: (root, c) => new HistoryPane({ strip: c.el('history-strip'), button: c.el('toggle-history'), list: root, file: c.el('recording-file') }, {
      store: c.store, bridge: c.bridge, selection: c.selection, treeView: c.treeView, toast: c.toast,
      onScrub: () => c.panel.stepShown(),
      // The strip opened it: closing the strip gives back the tab it replaced.
      showTab: () => c.side.showFor('history'),
      onClosed: () => c.side.giveBack('history'),
      onRecording: (key) => c.panel.showProvider(key),
    }),
  }),
  sideTab({
    id: 'conformance', label: 'Conformance', title: 'Where the provider breaks SLOP: findings by rule, drift check',
    module: 'parts/conformance-pane.js',
    create: (root, c) => new ConformancePane({ root, badge: c.el('conf-badge') }, {
      bridge: c.bridge, selection: c.selection,
      // The badge opens the tab even over a provider's waiting card: one that never went live is judged too.
      open: () => { c.side.show('conformance'); c.panel.renderNotices(); },
      revealNode: (path) => {
        if (!c.selection.source()?.nodes.has(path)) return false;
        c.treeView.reveal(path);
        return true;
      },
      revealFrame: (text) => c.panel.revealFrame(text),
    }),
  }),
  sideTab({
    id: 'cost', label: 'Cost', title: 'What the state costs an agent: tokens, tools, bytes and traffic per subtree',
    module: 'parts/cost-pane.js',
    // Small: its views, the tokenizer's worker and the chart libraries load when the tab is first shown.
    create: (root, c) => new CostPane(root, c),
  }),
];

/**
 * Makes the tabs' buttons in `bar` and their panes' elements after it in `side`, the first one
 * shown. @param {HTMLElement} bar @param {HTMLElement} side @param {readonly SideTab[]} tabs
 * @returns {Map<string, HTMLElement>} tab id → its pane's element
 */
export function mountSideTabs(bar, side, tabs) {
  const panels = new Map();
  tabs.forEach((t, i) => {
    if (panels.has(t.id)) throw new Error(`side tab "${t.id}" twice`);
    bar.append(h('button', { type: 'button', 'data-tab': t.id, role: 'tab', title: t.title, text: t.label }));
    const panel = h('div', { id: t.panelId ?? t.id, class: 'side-body', hidden: i > 0 });
    side.append(panel);
    panels.set(t.id, panel);
  });
  return panels;
}
