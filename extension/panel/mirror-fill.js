// mirror-fill.js: loading the node views the panel lacks. The service worker pushes the first views
// of a snapshot (sw/tree-reset up to a budget); the rest of the mirror is fetched in the background
// with ui/get-nodes, breadth-first, FILL_PAGE views per request, up to MIRROR_MAX views, so search,
// history and export cover it all. Rows scrolled into view ask for their views at once.

/** Views the panel loads in the background per tree (beyond that, search covers what is loaded). */
export const MIRROR_MAX = 50_000;
const FILL_PAGE = 1000;

/** @typedef {import('./store.js').Tree} Tree */
/** @typedef {import('./store.js').TreeSource} TreeSource */

export class MirrorFill {
  /** Trees a background load is running for. */
  #filling = new WeakSet();

  /**
   * @param {{store: import('./store.js').Store,
   *          bridge: {getNodes: (key: string, sub: string, paths: string[]) => Promise<unknown>},
   *          onComplete: (tree: Tree) => void, onSettled: (tree: Tree) => void}} o
   *   onComplete: the panel now holds every view of the tree; onSettled: a background load ended
   */
  constructor({ store, bridge, onComplete, onSettled }) {
    this.store = store;
    this.bridge = bridge;
    this.onComplete = onComplete;
    this.onSettled = onSettled;
  }

  /** Rows on screen whose views are missing: ask for those not asked for yet. @param {Tree} tree @param {string[]} paths */
  need(tree, paths) {
    const want = this.store.markRequested(tree, paths);
    if (!want.length) return;
    this.bridge.getNodes(tree.key, tree.sub, want).catch(() => this.store.requestFailed(tree, want));
  }

  /**
   * Loads the views of the tree the panel has not got yet, a page at a time, unless already loading.
   * @param {Tree|TreeSource|null} tree  a recording's state is not the store's: nothing to load
   */
  kick(tree) {
    if (!tree || this.#filling.has(tree) || tree.nodes.size >= MIRROR_MAX || this.store.bridgeState !== 'connected') return;
    this.#filling.add(tree);
    this.#fill(tree);
  }

  /** The tree is still the store's (not replaced by a reset, nor dropped). @param {TreeSource} tree @returns {tree is Tree} */
  #current(tree) {
    return this.store.tree(tree.key, tree.sub) === tree;
  }

  /** @param {TreeSource} tree */
  async #fill(tree) {
    try {
      while (this.#current(tree) && tree.nodes.size < MIRROR_MAX) {
        const paths = this.store.missingPaths(tree, FILL_PAGE);
        if (!paths.length) break;
        this.store.markRequested(tree, paths);
        try {
          await this.bridge.getNodes(tree.key, tree.sub, paths);
        } catch (e) {
          this.store.requestFailed(tree, paths);
          throw e;
        }
        await new Promise((r) => setTimeout(r, 0)); // let the queued views apply
      }
    } catch {
      /* the tree is being replaced, or the worker restarted: the next change kicks again */
    } finally {
      this.#filling.delete(tree);
      if (this.#current(tree)) {
        // Paths removed meanwhile came back "missing" and are no longer pending (store.js).
        if (this.store.isLoaded(tree) && !tree.complete) {
          this.store.markComplete(tree);
          this.onComplete(tree);
        }
        this.onSettled(tree);
      }
    }
  }
}
