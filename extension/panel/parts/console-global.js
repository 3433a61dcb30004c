// console-global.js: $slop in the inspected page's DevTools console, as React DevTools' $r: the
// node selected in the SLOP panel, its provider and version, and the mirror as the panel holds it,
// read-only (frozen) and refreshed while the panel is open (at most every EVERY_MS).
//
// Whose state goes to the page: only a provider that is the page's own (announced by the page and
// same-origin with it, or its postMessage provider), whose state the page's scripts could read
// anyway. A cross-origin provider, one added by address or a local app is withheld: $slop then
// says so and why, never the state (DESIGN.md: a user's data goes only where it is allowed).
//
// The data crosses as JSON text inside a string literal (JSON.stringify of the text), read by
// JSON.parse in the page: provider text is never code. Numbers stay exact: integers a double
// cannot hold become BigInt in the page (JSON.parse's source text, where the browser has it), and
// $slop.nodeJSON is the node's JSON in the provider's own digits.

import { evalInInspectedPage } from '../../shared/browser.js';
import { stringifyExact } from '../../../js-glue/exact-json.js';
import { childPath } from '../../shared/node-path.js';
import { verbatimView } from '../exact-views.js';

/** The page's copy is refreshed at most this often (a node patched 100 times a second). */
const EVERY_MS = 250;
/** The mirror goes along up to this much JSON text; a bigger one is left out, said in treeNote. */
export const TREE_MAX_CHARS = 2 * 1024 * 1024;
/** ...and up to this many nodes (written at most every TREE_EVERY_MS: a big tree costs the panel). */
const TREE_MAX_NODES = 10_000;
const TREE_EVERY_MS = 2000;

const ABOUT = 'SLOP Inspector: the node selected in the SLOP panel (read-only, refreshed while the panel is open). node: the selected node; tree: the state tree as the panel holds it; nodeJSON: the node in the provider\'s own digits.';

/**
 * Whether a provider's state may go to the inspected page's scripts: the page's own only.
 * @param {{source?: string, classification?: string, transport?: {type?: string}}|null|undefined} p
 */
export function pageOwnsProvider(p) {
  if (!p) return false;
  if (p.transport?.type === 'postmessage') return true;
  return (p.source === 'meta' || p.source === 'well-known') && p.classification === 'same-origin';
}

/**
 * The tree below `path` as nested nodes (children in provider order), from the views the panel
 * holds; a child whose view has not come is {id, notLoaded: true}.
 * @param {Map<string, any>} nodes @param {string} path
 */
export function nestedTree(nodes, path) {
  const top = nodes.get(path);
  if (!top) return null;
  const out = nodeOf(top);
  const stack = [[top, out]];
  while (stack.length) {
    const [view, into] = /** @type {[any, any]} */ (stack.pop());
    if (!view.child_ids?.length) continue;
    into.children = view.child_ids.map((/** @type {string} */ id) => {
      const v = nodes.get(childPath(view.path, id));
      if (!v) return { id, notLoaded: true };
      const n = nodeOf(v);
      stack.push([v, n]);
      return n;
    });
  }
  return out;
}

/** A view as the provider's node (the panel's own fields left out), numbers as written. */
function nodeOf(view) {
  const v = verbatimView(view);
  /** @type {Record<string, any>} */
  const n = { id: v.id, type: v.type };
  for (const k of ['properties', 'meta', 'affordances', 'content_ref']) if (v[k] !== undefined) n[k] = v[k];
  return n;
}

/**
 * The expression that sets globalThis.$slop in the page to `json` read there (frozen, exact).
 * @param {string} json
 */
export function consoleScript(json) {
  return `(() => {
  const exact = (k, v, ctx) => (typeof v === 'number' && !Number.isSafeInteger(v) && ctx && /^-?[0-9]+$/.test(ctx.source ?? '') ? BigInt(ctx.source) : v);
  const d = JSON.parse(${JSON.stringify(json)}, exact);
  const stack = [d];
  while (stack.length) {
    const o = stack.pop();
    if (o && typeof o === 'object' && !Object.isFrozen(o)) { Object.freeze(o); for (const k of Object.keys(o)) stack.push(o[k]); }
  }
  Object.defineProperty(globalThis, '$slop', { value: d, configurable: true, enumerable: false, writable: false });
  return true;
})()`;
}

export class ConsoleGlobal {
  /** @type {ReturnType<typeof setTimeout>|0} */
  #timer = 0;
  #sig = '';
  /** What was last given to the page (tests), or null. @type {object|null} */
  last = null;

  /**
   * @param {{selection: import('../selection.js').Selection, treeView: import('../views/tree-view.js').TreeView,
   *   enabled?: boolean}} o  enabled: false where there is no inspected page (the panel opened as a tab)
   * @param {(expression: string) => Promise<unknown>|null} [evaluate]  the page's eval (browser.js)
   */
  constructor(o, evaluate = evalInInspectedPage) {
    this.o = o;
    this.evaluate = evaluate;
    this.enabled = o.enabled ?? true;
  }

  /** Something the page's copy shows may have changed: it is sent again soon, once. */
  later() {
    if (this.#timer || !this.enabled) return;
    this.#timer = setTimeout(() => {
      this.#timer = 0;
      this.#send();
    }, EVERY_MS);
  }

  /** The page's copy as it is now, without the tree (#send adds it). */
  payload() {
    const { selection, treeView } = this.o;
    const p = selection.provider();
    const src = selection.source();
    const sel = treeView.selection();
    if (!p) return { about: ABOUT, provider: null, node: null };
    const provider = { id: p.provider?.id ?? null, name: p.provider?.name ?? null, address: p.transport?.url ?? p.transport?.path ?? p.transport?.type ?? null, status: p.status };
    if (!pageOwnsProvider(p)) {
      return { about: ABOUT, provider, node: null,
        withheld: 'This provider is not the page’s own (another origin, added by address, or a local app): its state is not given to the page’s scripts. Copy it from the SLOP panel instead.' };
    }
    const view = sel ? (sel.query ?? src?.nodes.get(sel.path) ?? null) : null;
    return {
      about: ABOUT, provider,
      version: src?.version ?? null,
      mode: selection.scrub ? 'history' : 'live',
      path: sel?.path ?? null,
      node: view ? nodeOf(view) : null,
    };
  }

  /** The tree's JSON and a note, written again at most every TREE_EVERY_MS (or when another tree is shown). */
  #tree(src) {
    const id = `${src.key} ${src.sub} ${src.resetId} ${src.version ?? ''}`;
    const now = Date.now();
    if (this.#treeCache && this.#treeCache.id.startsWith(`${src.key} ${src.sub} ${src.resetId} `) && now - this.#treeCache.at < TREE_EVERY_MS) return this.#treeCache;
    /** @type {{id: string, at: number, json: string, note: string}} */
    let t;
    if (src.nodes.size > TREE_MAX_NODES) {
      t = { id, at: now, json: 'null', note: `${src.nodes.size.toLocaleString('en-US')} nodes: too many to hand to the page; $slop.node is the selected one` };
    } else {
      const json = stringifyExact(nestedTree(src.nodes, src.path)) ?? 'null';
      t = json.length > TREE_MAX_CHARS
        ? { id, at: now, json: 'null', note: `the tree's JSON is over ${TREE_MAX_CHARS / 1024 / 1024} MB: left out; $slop.node is the selected one` }
        : { id, at: now, json, note: src.complete === false ? 'still loading: some nodes are {notLoaded: true}' : '' };
    }
    this.#treeCache = t;
    return t;
  }

  /** @type {{id: string, at: number, json: string, note: string}|null} */
  #treeCache = null;

  #send() {
    const data = /** @type {Record<string, any>} */ (this.payload());
    const src = data.node !== undefined && !data.withheld ? this.o.selection.source() : null;
    const tree = src ? this.#tree(src) : null;
    if (tree?.note) data.treeNote = tree.note;
    if (data.node) data.nodeJSON = stringifyExact(data.node);
    const head = stringifyExact(data) ?? '{}';
    // The tree's text is spliced in as written (it may be megabytes: not parsed and written again).
    const json = `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"tree":${tree?.json ?? 'null'}}`;
    if (json === this.#sig) return;
    this.#sig = json;
    this.last = data;
    this.evaluate(consoleScript(json))?.catch(() => { /* a page navigating away: the next change sends it again */ });
  }
}
