// side-pane.js: the pane beside the tree, with its tabs. "Node": the selected node's detail
// (views/detail-view.js), with whether it may be invoked and why not; "Agent view": the core's tree
// text and tools for the shown subscription (views/agent-view.js); "Playground": a real model on
// the app (parts/playground-pane.js fills it); "History": the steps and their diffs
// (parts/history-pane.js fills it); "Conformance": parts/conformance-pane.js fills it.

import { Request, Status } from '../../shared/messages.js';
import { h, setChildren, Tabs } from '../../shared/dom.js';
import { parentPath } from '../../shared/node-path.js';
import { textForPort } from '../../../js-glue/exact-json.js';
import { AgentView } from '../views/agent-view.js';
import { DetailView } from '../views/detail-view.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../bridge.js').Bridge} Bridge */
/** @typedef {import('../selection.js').Selection} Selection */
/** @typedef {import('../views/tree-view.js').TreeView} TreeView */

/** The agent view is fetched again this long after the tree last changed. */
const AGENT_SETTLE_MS = 400;

export class SidePane {
  tab = 'node';
  /** The core's last agent view shown (for tests). */
  lastAgentView = null;
  /** The node view the detail shows, to tell whether a change touched it. */
  #shown = null;
  /** {path, version, at}: the selected node was removed and the selection went to `at` (said while it stays there). */
  #removed = null;
  /** @type {ReturnType<typeof setTimeout>|0} */
  #agentTimer = 0;
  /** The tab shown before the History strip opened the History tab (closing the strip goes back to it). */
  #beforeHistory = null;

  /**
   * @param {{tabs: HTMLElement, detail: HTMLElement, agent: HTMLElement, playground: HTMLElement, history: HTMLElement, conformance: HTMLElement}} els
   * @param {{store: Store, bridge: Bridge, selection: Selection, treeView: TreeView, copy: (text: string, what: string) => void,
   *          onPlayground: () => void, onTab: (tab: string) => void, onConformance: () => void, onHistory: () => void}} o
   *   onPlayground, onConformance, onHistory: that tab opened (its pane loads or refreshes); onTab: a tab
   *   was shown, whichever it is
   */
  constructor(els, { store, bridge, selection, treeView, copy, onPlayground, onTab, onConformance, onHistory }) {
    this.els = els;
    this.store = store;
    this.bridge = bridge;
    this.selection = selection;
    this.treeView = treeView;
    this.detail = new DetailView(els.detail, {
      // As text: a 64-bit integer in the schema or typed into the form keeps its digits (exact-json.js).
      invoke: (path, action, params) => bridge.request(Request.INVOKE, { key: selection.key, path, action, paramsText: textForPort(params) }),
      validate: (schema, params) => bridge.request(Request.VALIDATE_PARAMS, { schemaText: textForPort(schema), paramsText: textForPort(params) }).then((r) => r.errors),
      copy,
      backToTree: () => treeView.root.focus(),
    });
    this.agent = new AgentView(els.agent, { copy, refresh: () => this.refreshAgent() });
    this.tabs = new Tabs(els.tabs, { node: [els.detail], agent: [els.agent], playground: [els.playground], history: [els.history], conformance: [els.conformance] }, (tab) => {
      this.tab = tab;
      if (tab !== 'history') this.#beforeHistory = null; // the user went elsewhere: nothing to go back to
      if (tab === 'agent') this.refreshAgent();
      if (tab === 'playground') onPlayground();
      onTab(tab);
      if (tab === 'conformance') onConformance();
      if (tab === 'history') onHistory();
    });
  }

  /**
   * Marks a tab's button as waiting for the user (the Playground's dangerous call, while another
   * tab is shown) or not. @param {string} tab @param {boolean} on @returns {boolean} whether it was
   * not marked before and is now
   */
  setAttention(tab, on) {
    const button = this.els.tabs.querySelector(`[data-tab="${tab}"]`);
    if (!button) return false;
    const fresh = on && !button.hasAttribute('data-attention');
    button.toggleAttribute('data-attention', on);
    return fresh;
  }

  setTab(tab) {
    this.tabs.show(tab);
  }

  /** The History strip opened (H, its button, a recording): the History tab, remembering the one it replaces. */
  showHistory() {
    if (this.tab !== 'history') this.#beforeHistory = this.tab;
    this.setTab('history');
  }

  /** The History strip closed: back to the tab shown before it opened, if History is still shown. */
  historyClosed() {
    const back = this.#beforeHistory;
    this.#beforeHistory = null;
    if (back && this.tab === 'history') this.setTab(back);
  }

  /** Enter on a row: the node's detail, focused as a whole. Its actions are a Tab away, never an Enter. */
  openNode() {
    this.setTab('node');
    this.renderDetail();
    this.detail.focus();
  }

  /** The selected node at `path` was removed at `version`; the selection moves to its ancestor `at`. */
  nodeRemoved(info) {
    this.#removed = info;
  }

  /** Does the detail show an older view of the selected node than `tree` holds? */
  detailOutdated(tree, touched) {
    const sel = this.treeView.selection();
    return !!sel && !sel.query && (!!touched?.has(sel.path) || (!!tree && tree.nodes.get(sel.path) !== this.#shown));
  }

  renderDetail() {
    const { selection, store } = this;
    const p = selection.provider();
    const src = selection.source();
    const tree = selection.tree();
    const scrub = selection.scrub;
    const sel = this.treeView.selection();
    const view = sel ? (sel.query ?? src?.nodes.get(sel.path) ?? null) : null;
    const imp = selection.isImport();
    const recording = selection.isRecording();
    const mode = scrub || recording ? 'history' : imp ? 'import' : sel?.query ? 'query' : 'live';
    const connected = p?.status === Status.CONNECTED;
    const affCap = !!p?.capabilities.includes('affordances');
    const whyNot = recording ? 'A recording is read-only.'
      : mode === 'history' ? 'Viewing an earlier version: go back to live to invoke.'
      : mode === 'import' ? 'An imported file has no provider behind it.'
      : mode === 'query' ? 'Not in the subscription’s state: only nodes the subscription shows can be invoked.'
      : !connected ? 'The provider is not connected.'
      : !affCap ? 'The provider did not declare the "affordances" capability.' : '';
    this.#shown = view;
    if (this.#removed && (sel?.path !== this.#removed.at || sel?.query || mode !== 'live')) this.#removed = null;
    this.detail.show(view, {
      removed: this.#removed,
      providerKey: selection.key,
      mode,
      canInvoke: mode === 'live' && connected && affCap,
      whyNot,
      stale: mode === 'live' && !connected,
      contentRefs: imp || recording ? false : !!p?.capabilities.includes('content_refs'),
      version: scrub ? scrub.version : recording ? tree?.version
        : sel?.query ? (tree && store.queryPages(tree.key, tree.sub).get(parentPath(sel.path))?.version)
        : tree?.version,
    });
  }

  /** A core "task" event: invoke results waiting on that task follow it. */
  onTask(ev) {
    this.detail.onTask(ev);
  }

  /** Fetches the agent view of the shown subscription, if that tab is open. */
  refreshAgent() {
    const { selection } = this;
    if (this.tab !== 'agent' || !selection.key) return;
    const key = selection.key;
    this.bridge.request(Request.AGENT_VIEW, { key, sub: selection.tree()?.sub })
      .then((r) => {
        if (key !== selection.key) return;
        this.agent.show(r);
        this.lastAgentView = r;
      })
      .catch((e) => this.agent.show(null, e.message));
  }

  /** The tree changed: fetch the agent view once it has settled. */
  agentLater() {
    if (this.tab !== 'agent') return;
    clearTimeout(this.#agentTimer);
    this.#agentTimer = setTimeout(() => this.refreshAgent(), AGENT_SETTLE_MS);
  }
}
