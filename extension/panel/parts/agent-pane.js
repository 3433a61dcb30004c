// agent-pane.js: the Agent tab: the core's tree text and tools for the shown subscription
// (views/agent-view.js), fetched while the tab is shown.

import { Request } from '../../shared/messages.js';
import { AgentView } from '../views/agent-view.js';

/** @typedef {import('../panes.js').Pane} Pane */
/** @typedef {import('../panes.js').PaneContext} PaneContext */

/** The agent view is fetched again this long after the tree last changed. */
const SETTLE_MS = 400;

/** @implements {Pane} */
export class AgentPane {
  /** The core's last agent view shown (for tests). */
  lastAgentView = null;
  #visible = false;
  /** @type {ReturnType<typeof setTimeout>|0} */
  #timer = 0;

  /** @param {HTMLElement} root @param {Pick<PaneContext, 'bridge'|'selection'|'copy'>} o */
  constructor(root, { bridge, selection, copy }) {
    this.bridge = bridge;
    this.selection = selection;
    this.view = new AgentView(root, { copy, refresh: () => this.refresh() });
  }

  shown() {
    this.#visible = true;
    this.refresh();
  }

  hidden() {
    this.#visible = false;
  }

  /** @param {import('../panes.js').StoreChange|null} change */
  update(change) {
    if (!change || change.providers || change.bridge || change.imports) this.refresh();
    else if (change.trees.has(this.selection.key)) this.#later();
  }

  dispose() {
    clearTimeout(this.#timer);
  }

  /** Fetches the agent view of the shown subscription, if the tab is shown. */
  refresh() {
    const { selection } = this;
    if (!this.#visible || !selection.key) return;
    const key = selection.key;
    this.bridge.request(Request.AGENT_VIEW, { key, sub: selection.tree()?.sub })
      .then((r) => {
        if (key !== selection.key) return;
        this.view.show(r);
        this.lastAgentView = r;
      })
      .catch((e) => this.view.show(null, e.message));
  }

  /** The tree changed: fetch the agent view once it has settled. */
  #later() {
    if (!this.#visible) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.refresh(), SETTLE_MS);
  }
}
