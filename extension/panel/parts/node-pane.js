// node-pane.js: the Node tab: the selected node's detail (views/detail-view.js), with whether it may
// be invoked and why not, and where the selection went when a patch removed it.

import { CoreEventName, Capability } from '../../../js-glue/core-contract.js';
import { Request, Status } from '../../shared/messages.js';
import { parentPath } from '../../shared/node-path.js';
import { textForPort } from '../../../js-glue/exact-json.js';
import { DetailView } from '../views/detail-view.js';

/** @typedef {import('../panes.js').Pane} Pane */
/** @typedef {import('../panes.js').PaneContext} PaneContext */

/** @implements {Pane} */
export class NodePane {
  /** The node view the detail shows, to tell whether a change touched it. */
  #shown = null;
  /** {path, version, at}: the selected node was removed and the selection went to `at` (said while it stays there). */
  #removed = null;

  /** @param {HTMLElement} root @param {Pick<PaneContext, 'store'|'bridge'|'selection'|'treeView'|'copy'>} o */
  constructor(root, { store, bridge, selection, treeView, copy }) {
    this.store = store;
    this.selection = selection;
    this.treeView = treeView;
    this.detail = new DetailView(root, {
      // As text: a 64-bit integer in the schema or typed into the form keeps its digits (exact-json.js).
      invoke: (path, action, params) => bridge.request(Request.INVOKE, { key: selection.key, path, action, paramsText: textForPort(params) }),
      validate: (schema, params) => bridge.request(Request.VALIDATE_PARAMS, { schemaText: textForPort(schema), paramsText: textForPort(params) }).then((r) => r.errors),
      copy,
      backToTree: () => treeView.root.focus(),
    });
  }

  // The detail is kept current while hidden: Enter on a row shows it at once.
  shown() {}
  hidden() {}
  dispose() {}

  /** @param {import('../panes.js').StoreChange|null} change */
  update(change) {
    if (!change) return this.render();
    const { selection } = this;
    const key = selection.key;
    // A core "task" event: invoke results waiting on that task follow it.
    for (const ev of change.newEvents) if (ev.key === key && ev.event.event === CoreEventName.TASK) this.detail.onTask(ev.event);
    if (change.providers || change.bridge || change.imports) return this.render();
    if (!change.trees.has(key) || selection.scrub) return;
    if (change.resets.has(key) || this.#outdated(selection.tree(), change.touched.get(key))) this.render();
  }

  /** Enter on a row: the node's detail, focused as a whole. Its actions are a Tab away, never an Enter. */
  open() {
    this.render();
    this.detail.focus();
  }

  /** The selected node at `path` was removed at `version`; the selection moves to its ancestor `at`. */
  nodeRemoved(info) {
    this.#removed = info;
  }

  /** Does the detail show an older view of the selected node than `tree` holds? */
  #outdated(tree, touched) {
    const sel = this.treeView.selection();
    return !!sel && !sel.query && (!!touched?.has(sel.path) || (!!tree && tree.nodes.get(sel.path) !== this.#shown));
  }

  render() {
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
    const affCap = !!p?.capabilities.includes(Capability.AFFORDANCES);
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
      contentRefs: imp || recording ? false : !!p?.capabilities.includes(Capability.CONTENT_REFS),
      version: scrub ? scrub.version : recording ? tree?.version
        : sel?.query ? (tree && store.queryPages(tree.key, tree.sub).get(parentPath(sel.path))?.version)
        : tree?.version,
    });
  }
}
