// node-path.js: absolute node paths, as the core reports them in node views ("/", "/inbox/m1").
// Node ids contain no "/" or "~" (spec: node id), so a child's path is its parent's path, "/"
// and its id. Used by the service worker (node-views.js) and the panel (store, load more, export,
// views); the only place in JS that composes a path. tests/node/node-path.test.js checks it against
// the core's views.

/** The absolute path of child `id` of the node at `parent`. @param {string} parent @param {string} id */
export function childPath(parent, id) {
  return parent === '/' ? `/${id}` : `${parent}/${id}`;
}

/** The parent's path ("/" for top-level nodes), null for the root. @param {string} path @returns {string|null} */
export function parentPath(path) {
  if (path === '/') return null;
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

/** path itself or anything below it. @param {string} path @param {string} root */
export function isAtOrUnder(path, root) {
  return path === root || path.startsWith(root === '/' ? '/' : `${root}/`);
}
