// store.js: what the panel knows, built only from the service worker's pushes: the tab's
// providers, and per provider and subscription the node views by path (tree/reset replaces,
// tree/delta removes then upserts), recent core events and the frame log. It never parses
// frames or applies patches: node views come ready-made from the core.

import { Push } from '../shared/messages.js';
import { isAtOrUnder } from '../shared/node-path.js';

export { childPath } from '../shared/node-path.js';

const MAX_EVENTS = 200;
const MAX_LOG = 300;

/**
 * @typedef {object} Tree
 * @property {string} sub
 * @property {string} path            root of the subscription
 * @property {number} version
 * @property {boolean} complete
 * @property {Map<string, object>} nodes   path → NodeView
 * @property {Map<string, number>} stamps  path → change counter (for the views' row cache)
 */

export class Store {
  constructor() {
    this.tabId = null;
    this.pageUrl = null;
    this.providers = [];
    this.problems = [];
    this.bridgeState = 'connecting';
    this.seenProviders = false;
    /** @type {Map<string, Map<string, Tree>>} key → sub → tree */
    this.trees = new Map();
    /** @type {Map<string, {t: number, event: object}[]>} */
    this.events = new Map();
    /** @type {Map<string, object[]>} */
    this.logs = new Map();
    this.listeners = new Set();
    this.stamp = 0;
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  provider(key) {
    return this.providers.find((p) => p.key === key) ?? null;
  }

  tree(key, sub) {
    return this.trees.get(key)?.get(sub) ?? null;
  }

  /** Applies a batch of pushes and tells the listeners once. */
  applyBatch(batch) {
    const change = { providers: false, bridge: false, trees: new Set(), touched: new Map(), events: new Set(), logs: new Set(), newEvents: [] };
    for (const msg of batch) this.#apply(msg, change);
    for (const fn of this.listeners) fn(change);
  }

  #touch(change, key, path) {
    if (!change.touched.has(key)) change.touched.set(key, new Set());
    change.touched.get(key).add(path);
  }

  #apply(msg, change) {
    switch (msg.type) {
      case 'bridge/state':
        this.bridgeState = msg.state;
        change.bridge = true;
        break;
      case Push.PROVIDERS: {
        this.tabId = msg.tabId;
        this.pageUrl = msg.pageUrl;
        this.providers = msg.providers;
        this.problems = msg.problems ?? [];
        this.seenProviders = true;
        const keys = new Set(msg.providers.map((p) => p.key));
        for (const key of [...this.trees.keys()]) if (!keys.has(key)) this.trees.delete(key);
        change.providers = true;
        break;
      }
      case Push.TREE_RESET: {
        if (!this.trees.has(msg.key)) this.trees.set(msg.key, new Map());
        const nodes = new Map(msg.nodes.map((n) => [n.path, n]));
        const stamps = new Map(msg.nodes.map((n) => [n.path, ++this.stamp]));
        this.trees.get(msg.key).set(msg.sub, { sub: msg.sub, path: msg.path, version: msg.version, complete: msg.complete, nodes, stamps, reset: this.stamp });
        change.trees.add(msg.key);
        break;
      }
      case Push.TREE_DELTA: {
        const tree = this.tree(msg.key, msg.sub);
        if (!tree) break;
        for (const p of msg.removed) this.#removeUnder(tree, p);
        for (const n of msg.nodes) {
          tree.nodes.set(n.path, n);
          tree.stamps.set(n.path, ++this.stamp);
          this.#touch(change, msg.key, n.path);
        }
        tree.version = msg.version;
        change.trees.add(msg.key);
        break;
      }
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
      case Push.LOG: {
        const list = [...(msg.replace ? [] : (this.logs.get(msg.key) ?? [])), ...msg.entries];
        if (list.length > MAX_LOG) list.splice(0, list.length - MAX_LOG);
        this.logs.set(msg.key, list);
        change.logs.add(msg.key);
        break;
      }
      default:
        break;
    }
  }

  /** Views fetched on demand (getNodes reply). */
  addNodes(key, sub, nodes) {
    const tree = this.tree(key, sub);
    if (!tree) return;
    const change = { providers: false, bridge: false, trees: new Set([key]), touched: new Map(), events: new Set(), logs: new Set(), newEvents: [] };
    for (const n of nodes) {
      tree.nodes.set(n.path, n);
      tree.stamps.set(n.path, ++this.stamp);
    }
    for (const fn of this.listeners) fn(change);
  }

  #removeUnder(tree, path) {
    for (const p of [...tree.nodes.keys()]) {
      if (isAtOrUnder(p, path)) {
        tree.nodes.delete(p);
        tree.stamps.delete(p);
      }
    }
  }
}
