// store.js: what the panel knows, built only from the service worker's pushes and replies: the
// tab's providers, per provider and subscription the node views by path (sw/tree-reset replaces,
// sw/tree-delta removes, upserts, then splices child lists at the core's indexes; ui/get-nodes adds), the steps of each
// provider's history as the service worker keeps them (sw/history), core events, the frame log,
// imported documents and recordings, and the query pages loaded under windowed collections. It never parses frames or applies patches: node views come
// ready-made from the core.
//
// Everything here changes through the methods below, never by writing into the objects they
// hand out: the listeners are told what changed, and the views compare by identity.

import { Push, PanelNote, Status } from '../shared/messages.js';
import { childPath, isAtOrUnder } from '../shared/node-path.js';
import { exactView, exactViews } from './exact-views.js';

export { childPath } from '../shared/node-path.js';

const MAX_EVENTS = 500;
/** Frame log entries kept per provider in the panel (the service worker keeps fewer). */
export const MAX_LOG = 1000;

/**
 * @typedef {object} Tree
 * @property {string} key
 * @property {string} sub
 * @property {string} path            root of the subscription
 * @property {number} version
 * @property {boolean} complete       every view of the mirror is loaded
 * @property {number|null} total      the subscription's node count as the service worker last
 *                                    told it (sw/tree-reset, ui/get-nodes replies); null if unknown
 * @property {Map<string, NodeView>} nodes   path → NodeView
 * @property {Map<string, number>} stamps  path → change counter (the views' row cache)
 * @property {number} resetId         changes on every sw/tree-reset
 * @property {number} structure       changes whenever a node appears, disappears or its child_ids change
 * @property {Set<string>} requested  paths asked for with ui/get-nodes and not answered yet
 * @property {Set<string>} gone       paths ui/get-nodes answered as missing (removed meanwhile): not
 *                                    asked for again until the structure changes
 * @property {number} missingAnswered how many requested views came back missing (diagnostics)
 * @property {boolean} readOnly       an import
 * @property {boolean} live           the current state (a version rebuilt from the history is not)
 */

/** @typedef {import('../shared/messages.js').NodeView} NodeView */
/** @typedef {import('../shared/messages.js').ProviderInfo} ProviderInfo */

/**
 * @typedef {object} TreeSource   what the tree view shows: a Tree, or a state from the history
 * @property {string} key
 * @property {string} sub
 * @property {string} path
 * @property {number|null} [version]
 * @property {Map<string, NodeView>} nodes
 * @property {number|string} structure
 * @property {number} resetId
 * @property {boolean} [live]
 * @property {boolean} [complete]
 * @property {number|null} [total]
 * @property {boolean} [readOnly]
 * @property {Set<string>} [gone]
 */

/**
 * @typedef {object} HistoryList   a provider's history as the service worker keeps it (timeline.js)
 * @property {object[]} steps      Step[], oldest first
 * @property {object|null} info    {steps, bytes, dropped, limits, persist, provider}
 * @property {number} stamp        changes on every change
 */

/**
 * @typedef {object} QueryPage   what "load more" fetched under one collection (load-more.js)
 * @property {NodeView[]} nodes      views of the children fetched, in order (not in the mirror)
 * @property {number|undefined} total the collection's announced total_children
 * @property {number|null} version   the version the provider answered at
 * @property {number} more           the core's count of children beyond this page
 * @property {[number, number]|null} next   the window after it
 * @property {string|null} sig       the collection's signature the answer was for
 * @property {boolean} loading
 * @property {string|null} error
 * @property {{sig: string}|null} exhausted  the last query brought nothing new (collection signature)
 * @property {number} stamp          changes on every change of this page
 */

/** @typedef {ReturnType<typeof newChange>} StoreChange   what one batch changed (the subscribers get it) */

function newChange() {
  return {
    providers: false, bridge: false, imports: false, localApps: false,
    trees: new Set(), resets: new Set(), structure: new Set(), touched: new Map(),
    filled: new Set(), events: new Set(), logs: new Set(), queries: new Set(), newEvents: [], histories: new Set(),
    /** key → [{sub, path, version}]: subtrees a patch removed (the panel keeps a removed selection's place). */
    removed: new Map(),
    /** Push.AGENT messages, in order: passed on to the Playground (parts/playground-pane.js), not kept here. */
    agent: [],
  };
}

function sameIds(a, b) {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class Store {
  constructor() {
    this.tabId = null;
    this.pageUrl = null;
    this.providers = [];
    this.problems = [];
    this.bridgeState = 'connecting';
    this.seenProviders = false;
    /**
     * Local apps as the worker last said (Push.LOCAL_APPS, or the reply to Request.LOCAL_APPS).
     * @type {import('../shared/messages.js').LocalAppsState|null}
     */
    this.localApps = null;
    /** @type {Map<string, Map<string, Tree>>} key → sub → tree */
    this.trees = new Map();
    /** @type {Map<string, {t: number, event: object}[]>} */
    this.events = new Map();
    /** @type {Map<string, object[]>} */
    this.logs = new Map();
    /** Providers whose frame log is paused (not recorded), and how many frames were skipped. */
    this.logPaused = new Map();
    /** @type {Map<string, object>} "import:N" → ui/inspect-tree reply without its nodes */
    this.imports = new Map();
    /** @type {Map<string, HistoryList>} provider (or recording) key → its history */
    this.histories = new Map();
    /** @type {Map<string, Map<string, QueryPage>>} "key sub" → collection path → query page */
    this.queries = new Map();
    this.listeners = new Set();
    this.stamp = 0;
    this.resets = 0;
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  #emit(change) {
    for (const fn of this.listeners) fn(change);
  }

  /** The panel has no tab to inspect: no providers will come, none are waited for. */
  noTab() {
    this.seenProviders = true;
  }

  provider(key) {
    return this.providers.find((p) => p.key === key) ?? null;
  }

  tree(key, sub) {
    return this.trees.get(key)?.get(sub) ?? null;
  }

  /**
   * Applies a batch of pushes and tells the listeners once.
   * @param {(import('../shared/messages.js').PushMessage|import('../shared/messages.js').PanelNoteMessage)[]} batch
   */
  applyBatch(batch) {
    const change = newChange();
    for (const msg of batch) this.#apply(msg, change);
    if (change.providers) this.#dropStaleTrees();
    this.#emit(change);
  }

  /**
   * Trees of subscriptions a connected provider no longer has (a restart of the worker, a
   * resubscription) are dropped; while it is disconnected the last one stays as "last known state".
   */
  #dropStaleTrees() {
    for (const p of this.providers) {
      const subs = this.trees.get(p.key);
      if (!subs || p.status !== Status.CONNECTED || !p.primarySub || !subs.has(p.primarySub)) continue;
      for (const sub of [...subs.keys()]) if (!p.subscriptions.some((s) => s.sub === sub)) subs.delete(sub);
    }
  }

  #touch(change, key, path) {
    if (!change.touched.has(key)) change.touched.set(key, new Set());
    change.touched.get(key).add(path);
  }

  #newTree(key, sub, path, version, complete, nodes, readOnly = false, total = null) {
    return {
      key, sub, path, version, complete, total,
      nodes: new Map(nodes.map((n) => [n.path, exactView(n)])),
      stamps: new Map(nodes.map((n) => [n.path, ++this.stamp])),
      resetId: ++this.resets,
      structure: ++this.stamp,
      requested: new Set(),
      gone: new Set(),
      missingAnswered: 0,
      readOnly,
      live: true,
    };
  }

  /**
   * @param {import('../shared/messages.js').PushMessage|import('../shared/messages.js').PanelNoteMessage} msg
   * @param {StoreChange} change
   */
  #apply(msg, change) {
    switch (msg.type) {
      case PanelNote.BRIDGE_STATE:
        this.bridgeState = msg.state;
        change.bridge = true;
        break;
      case PanelNote.BRIDGE_NODES:
        this.#addNodes(msg.key, msg.sub, msg.nodes, msg.missing, msg.count, change);
        break;
      case Push.PROVIDERS: {
        this.tabId = msg.tabId;
        this.pageUrl = msg.pageUrl;
        this.providers = msg.providers;
        this.problems = msg.problems ?? [];
        this.seenProviders = true;
        const keys = new Set(msg.providers.map((p) => p.key));
        for (const key of [...this.trees.keys()]) if (!keys.has(key) && !this.imports.has(key)) this.trees.delete(key);
        change.providers = true;
        break;
      }
      case Push.LOCAL_APPS:
        this.localApps = msg;
        change.localApps = true;
        break;
      case Push.TREE_RESET: {
        if (!this.trees.has(msg.key)) this.trees.set(msg.key, new Map());
        const subs = this.trees.get(msg.key);
        const old = subs.get(msg.sub);
        const tree = this.#newTree(msg.key, msg.sub, msg.path, msg.version, msg.complete, msg.nodes, false,
          Number.isFinite(msg.count) ? msg.count : null);
        subs.set(msg.sub, tree);
        change.trees.add(msg.key);
        change.resets.add(msg.key);
        change.structure.add(msg.key);
        break;
      }
      case Push.TREE_DELTA: {
        const tree = this.tree(msg.key, msg.sub);
        if (!tree) break;
        let structural = false;
        for (const p of msg.removed) {
          if (!change.removed.has(msg.key)) change.removed.set(msg.key, []);
          change.removed.get(msg.key).push({ sub: msg.sub, path: p, version: msg.version });
          for (const path of this.#subtree(tree, p)) {
            tree.nodes.delete(path);
            tree.stamps.delete(path);
            tree.requested.delete(path);
            structural = true;
          }
          // Asked for but not answered yet: the answer will say "missing"; nothing to wait for.
          if (tree.requested.size) for (const r of tree.requested) if (isAtOrUnder(r, p)) tree.requested.delete(r);
        }
        const nodes = exactViews(msg.views);
        for (const n of nodes) {
          const before = tree.nodes.get(n.path);
          if (!before || !sameIds(before.child_ids, n.child_ids)) structural = true;
          tree.nodes.set(n.path, n);
          tree.stamps.set(n.path, ++this.stamp);
          tree.requested.delete(n.path);
          this.#touch(change, msg.key, n.path);
        }
        if (msg.children?.length) {
          const fresh = new Set(nodes.map((n) => n.path));
          // One copy of a parent's list per message (views are never changed in place), then
          // each insertion and removal at the core's index.
          const lists = new Map();
          for (const k of msg.children) {
            if (fresh.has(k.parent)) continue; // its view in this message already shows the list
            let ids = lists.get(k.parent);
            if (!ids) {
              const view = tree.nodes.get(k.parent);
              if (!view) continue;
              ids = view.child_ids.slice();
              lists.set(k.parent, ids);
            }
            if (k.op === 'insert') ids.splice(k.index, 0, k.id);
            else ids.splice(k.index, 1);
          }
          for (const [path, ids] of lists) {
            const before = tree.nodes.get(path);
            tree.nodes.set(path, { ...before, child_ids: ids });
            tree.stamps.set(path, ++this.stamp);
            this.#touch(change, msg.key, path);
            structural = true;
          }
        }
        tree.version = msg.version;
        if (structural) {
          tree.structure = ++this.stamp;
          tree.gone.clear(); // the listing changed: what was gone may be listed (and there) again
          change.structure.add(msg.key);
        }
        // The worker left out views of nodes added under known parents: fetch them.
        if (msg.partial) tree.complete = false;
        else if (tree.complete) tree.total = tree.nodes.size; // holding every view, the count is exact
        change.trees.add(msg.key);
        break;
      }
      case Push.HISTORY:
        this.#history(msg.key, msg, change);
        break;
      case Push.AGENT:
        change.agent.push(msg);
        break;
      case Push.EVENT: {
        // New arrays on every change: views compare by identity.
        const entry = { t: Date.now(), event: msg.event };
        const list = [...(this.events.get(msg.key) ?? []), entry];
        if (list.length > MAX_EVENTS) list.splice(0, list.length - MAX_EVENTS);
        this.events.set(msg.key, list);
        change.events.add(msg.key);
        change.newEvents.push({ key: msg.key, ...entry });
        break;
      }
      case Push.EVENTS: {
        // Sent on WATCH: a panel that already lists this provider's events (a re-watch) keeps its own.
        if (this.events.has(msg.key) || !Array.isArray(msg.events)) break;
        this.events.set(msg.key, msg.events.slice(-MAX_EVENTS));
        change.events.add(msg.key);
        break;
      }
      case Push.LOG: {
        if (this.logPaused.has(msg.key) && !msg.replace) {
          this.logPaused.set(msg.key, this.logPaused.get(msg.key) + msg.entries.length);
          change.logs.add(msg.key);
          break;
        }
        if (msg.replace && this.logs.has(msg.key)) break; // a re-watch: keep what the panel has (and its clears)
        const list = [...(this.logs.get(msg.key) ?? []), ...msg.entries];
        if (list.length > MAX_LOG) list.splice(0, list.length - MAX_LOG);
        this.logs.set(msg.key, list);
        change.logs.add(msg.key);
        break;
      }
      default:
        break;
    }
  }

  /** The loaded paths at or under `path` (through child_ids; a prefix scan if a link is missing). */
  #subtree(tree, path) {
    const out = [];
    const stack = [path];
    let gap = !tree.nodes.has(path);
    while (stack.length) {
      const p = stack.pop();
      const v = tree.nodes.get(p);
      if (!v) continue;
      out.push(p);
      for (const id of v.child_ids) {
        const c = childPath(p, id);
        if (tree.nodes.has(c)) stack.push(c);
        else gap = true;
      }
    }
    if (gap) {
      const seen = new Set(out);
      for (const p of tree.nodes.keys()) if (!seen.has(p) && isAtOrUnder(p, path)) out.push(p);
    }
    return out;
  }

  /** New steps (appended, or the last one updated), or the whole list again (reset). */
  #history(key, msg, change) {
    const cur = this.histories.get(key);
    if (!cur && !msg.reset) return; // not loaded yet: ui/history brings the whole list
    const steps = msg.reset ? [...msg.steps] : [...cur.steps];
    if (!msg.reset) {
      for (const st of msg.steps) {
        if (msg.update && steps.at(-1)?.step === st.step) steps[steps.length - 1] = st;
        else if (!(steps.at(-1)?.step >= st.step)) steps.push(st);
      }
    }
    this.histories.set(key, { steps, info: msg.info ?? cur?.info ?? null, stamp: ++this.stamp });
    change.histories.add(key);
  }

  /** A ui/history (or ui/open-recording) reply: the whole list. */
  setHistory(key, reply) {
    this.histories.set(key, { steps: [...reply.steps], info: reply.info ?? null, stamp: ++this.stamp });
    const change = newChange();
    change.histories.add(key);
    this.#emit(change);
  }

  /** The reply to Request.LOCAL_APPS: local apps now (later changes come as Push.LOCAL_APPS). */
  setLocalApps(state) {
    this.localApps = state;
    const change = newChange();
    change.localApps = true;
    this.#emit(change);
  }

  /** The history's info after a change of its settings (Persist). */
  setHistoryInfo(key, info) {
    const cur = this.histories.get(key);
    if (!cur) return;
    this.histories.set(key, { ...cur, info, stamp: ++this.stamp });
    const change = newChange();
    change.histories.add(key);
    this.#emit(change);
  }

  #addNodes(key, sub, nodes, missing, count, change) {
    const tree = this.tree(key, sub);
    if (!tree) return;
    let structural = false;
    for (const view of nodes) {
      const n = exactView(view);
      tree.requested.delete(n.path);
      if (!tree.nodes.has(n.path)) structural = true;
      tree.nodes.set(n.path, n);
      tree.stamps.set(n.path, ++this.stamp);
    }
    // Removed after the panel saw them listed: the answer is final. They are no longer pending,
    // and not asked for again unless a later change lists them.
    for (const p of missing ?? []) {
      if (typeof p !== 'string') continue;
      tree.requested.delete(p);
      tree.gone.add(p);
      tree.missingAnswered++;
    }
    if (Number.isFinite(count)) tree.total = count;
    if (structural) {
      tree.structure = ++this.stamp;
      change.structure.add(key);
    }
    change.trees.add(key);
    change.filled.add(key);
  }

  /**
   * Notes paths as asked for with ui/get-nodes. Returns those that were not pending already nor
   * answered as removed: the ones to ask for.
   */
  markRequested(tree, paths) {
    const want = paths.filter((p) => !tree.requested.has(p) && !tree.gone.has(p));
    for (const p of want) tree.requested.add(p);
    return want;
  }

  /** A ui/get-nodes request that will never be answered (the worker restarted): not pending any more. */
  requestFailed(tree, paths) {
    for (const p of paths) tree.requested.delete(p);
  }

  /** Forgets a subscription's tree (the panel unsubscribed it). The caller renders. */
  dropTree(key, sub) {
    this.trees.get(key)?.delete(sub);
  }

  /** Every view of the tree is loaded: nothing pending, no listed child without a view. */
  isLoaded(tree) {
    return tree.requested.size === 0 && this.missingPaths(tree, 1).length === 0;
  }

  /** The background load found nothing left to load: the panel holds the whole mirror. */
  markComplete(tree) {
    tree.complete = true;
    tree.total = tree.nodes.size;
  }

  /** The paths to load next, breadth-first: children of loaded nodes that are not loaded yet. */
  missingPaths(tree, limit) {
    const out = [];
    const queue = [tree.path];
    if (!tree.nodes.has(tree.path)) return tree.requested.has(tree.path) || tree.gone.has(tree.path) ? [] : [tree.path];
    for (let i = 0; i < queue.length && out.length < limit; i++) {
      const v = tree.nodes.get(queue[i]);
      for (const id of v.child_ids) {
        const p = childPath(v.path, id);
        if (tree.nodes.has(p)) queue.push(p);
        else if (!tree.requested.has(p) && !tree.gone.has(p)) {
          out.push(p);
          if (out.length >= limit) break;
        }
      }
    }
    return out;
  }

  // ------------------------------------------------------------------------ query pages

  /** The query pages loaded under the collections of a tree: collection path → QueryPage. */
  queryPages(key, sub) {
    const k = `${key} ${sub}`;
    let pages = this.queries.get(k);
    if (!pages) this.queries.set(k, (pages = new Map()));
    return pages;
  }

  #queryChanged(key, page) {
    page.stamp++;
    const change = newChange();
    change.queries.add(key);
    this.#emit(change);
  }

  /**
   * A query for more children of the collection at `path` is on its way. Returns the page it
   * will fill (pass it to queryAnswered / queryFailed).
   * @param {number|undefined} total  the collection's announced total_children
   */
  queryStarted(key, sub, path, total) {
    const pages = this.queryPages(key, sub);
    let page = pages.get(path);
    if (!page) pages.set(path, (page = { nodes: [], total, version: null, more: 0, next: null, sig: null, loading: false, error: null, exhausted: null, stamp: 0 }));
    Object.assign(page, { loading: true, error: null, exhausted: null });
    this.#queryChanged(key, page);
    return page;
  }

  /**
   * The answer: `nodes` are the views of children not shown before (maybe none; then
   * `exhausted` says for which state of the collection); `more` and `next` the core's count of
   * children beyond it and the window after it. A page cleared meanwhile stays cleared.
   */
  queryAnswered(key, page, { nodes, version, total, more = 0, next = null, sig = null, exhausted = null }) {
    page.nodes.push(...nodes);
    page.version = version;
    page.more = more;       // the core's: children beyond this page, and the window after it,
    page.next = next;       // for the collection as it was (sig)
    page.sig = sig;
    if (Number.isFinite(total)) page.total = total;
    page.exhausted = exhausted;
    page.loading = false;
    this.#queryChanged(key, page);
  }

  queryFailed(key, page, message) {
    page.error = message;
    page.loading = false;
    this.#queryChanged(key, page);
  }

  clearQuery(key, sub, path) {
    const pages = this.queries.get(`${key} ${sub}`);
    if (!pages?.delete(path)) return;
    const change = newChange();
    change.queries.add(key);
    this.#emit(change);
  }

  // ---------------------------------------------------------------------------- imports

  /** A ui/inspect-tree reply: a read-only tree under its own key. */
  addImport(reply) {
    const { nodes, ...info } = reply;
    this.imports.set(reply.key, info);
    const tree = this.#newTree(reply.key, reply.sub, reply.path, reply.version, reply.complete, nodes, true,
      Number.isFinite(reply.count) ? reply.count : null);
    this.trees.set(reply.key, new Map([[reply.sub, tree]]));
    const change = newChange();
    change.imports = true;
    change.trees.add(reply.key);
    change.resets.add(reply.key);
    change.structure.add(reply.key);
    this.#emit(change);
  }

  removeImport(key) {
    this.imports.delete(key);
    this.trees.delete(key);
    const change = newChange();
    change.imports = true;
    this.#emit(change);
  }

  // ------------------------------------------------------------------------------- log

  setLogPaused(key, paused) {
    if (paused) this.logPaused.set(key, 0);
    else this.logPaused.delete(key);
    const change = newChange();
    change.logs.add(key);
    this.#emit(change);
  }

  clearLog(key) {
    this.logs.set(key, []);
    const change = newChange();
    change.logs.add(key);
    this.#emit(change);
  }

  clearEvents(key) {
    this.events.set(key, []);
    const change = newChange();
    change.events.add(key);
    this.#emit(change);
  }
}
