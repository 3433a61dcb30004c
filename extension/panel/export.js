// export.js: snapshot files. A live export holds the core's tree JSON of the subscription
// (getTree); an export of a version from the history is put together from that version's node
// views (the core's node() output: a node without children, plus child_ids and path), nesting
// them by child_ids. Imports go back through the core (ui/inspect-tree), never checked here.

import { childPath } from '../shared/node-path.js';
import { stringifyExact } from '../../js-glue/exact-json.js';
import { verbatimView } from './exact-views.js';

export const EXPORT_FORMAT = 'slop-inspector-export';

/**
 * The nested node tree of `views` under rootPath; {tree, missing} (missing: child views not loaded).
 * @param {Map<string, import('../shared/messages.js').NodeView>} views @param {string} rootPath
 * @returns {{tree: object|null, missing: number}}
 */
export function assembleTree(views, rootPath) {
  let missing = 0;
  /** @param {string} path @returns {Record<string, any>} the SLOP node */
  const build = (path) => {
    /** @type {Record<string, any>} */
    const v = verbatimView(views.get(path)); // numbers as the provider wrote them
    const { path: _p, child_ids: ids, ...node } = v;
    const kids = [];
    for (const id of ids ?? []) {
      const cp = childPath(path, id);
      if (views.has(cp)) kids.push(build(cp));
      else missing++;
    }
    if (kids.length) node.children = kids;
    return node;
  };
  if (!views.has(rootPath)) return { tree: null, missing: 1 };
  return { tree: build(rootPath), missing };
}

/**
 * The file's JSON text.
 * @param {{provider: object|null, source: string|null, subscription: object, version: number,
 *   scrubbed?: boolean, capabilities: string[], tree: object|null, incomplete?: string}} doc
 * @returns {string}
 */
export function exportDocument({ provider, source, subscription, version, scrubbed, capabilities, tree, incomplete }) {
  return stringifyExact({
    format: EXPORT_FORMAT,
    formatVersion: 1,
    exportedAt: new Date().toISOString(),
    provider,
    source,
    subscription,
    version,
    scrubbed: !!scrubbed,
    ...(incomplete ? { incomplete } : {}),
    capabilities,
    tree,
  }, 2);
}

/** Saves text as a download named `name`. @param {string} text @param {string} name @param {string} [type] */
export function download(text, name, type = 'application/json') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** A file name from untrusted parts: [A-Za-z0-9._-] only. @param {...unknown} parts @returns {string} */
export function fileName(...parts) {
  return `${parts.map((p) => String(p).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '')).filter(Boolean).join('-').slice(0, 120) || 'slop'}.json`;
}

/**
 * Copies text to the clipboard. DevTools panels may not allow the async Clipboard API (permission
 * policy), so a selected textarea and execCommand("copy") are the fallback.
 * @param {string} text @returns {Promise<boolean>} whether it was copied
 */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.style.cssText = 'position:fixed;left:-9999px;top:0';
    document.body.append(ta);
    ta.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    ta.remove();
    return ok;
  }
}
