// core.js: the one wasm core instance of the service worker.
//
// The module is loaded by a static import (a service worker cannot use import()); instantiating
// the wasm is asynchronous, so callers either await coreReady or, once it has resolved, use
// core() synchronously. Every protocol decision goes through this object. In the extension it
// loads itself; a Node test of a worker module hands it one (provideCore), as Node cannot fetch
// the wasm by URL.

import { loadSlopCore } from '../../js-glue/slop-core.js';

/** Node (a test of a worker module) cannot fetch the wasm by its file: URL: the test provides the core. */
const IN_NODE = typeof (/** @type {any} */ (globalThis).process?.versions?.node) === 'string';

/** @typedef {import('../../js-glue/slop-core.js').SlopCore} SlopCore */

/** @type {SlopCore|null} */
let instance = null;
/** @type {Error|null} */
let failure = null;

/** @type {(c: SlopCore) => void} */
let provided = () => {};
/** Resolves with the core (the SlopCore object of js-glue/slop-core.js). */
export const coreReady = (IN_NODE ? new Promise((resolve) => { provided = resolve; }) : loadSlopCore()).then(
  (c) => { instance = c; return c; },
  (e) => { failure = e; console.error('SLOP Inspector: the wasm core failed to load:', e?.message ?? e); throw e; },
);

/** Outside an extension (a Node test): the core to use (js-glue/node/load-core.js loadSlopCoreNode). @param {SlopCore} c */
export function provideCore(c) {
  provided(c);
}

/** The loaded core; throws before coreReady has resolved. @returns {SlopCore} */
export function core() {
  if (!instance) throw new Error(failure ? `the SLOP core failed to load: ${failure.message}` : 'the SLOP core is still loading');
  return instance;
}

/**
 * Runs fn now if the core is loaded, else after it loads (preserving call order). Always returns
 * a promise: callers chain .catch(), and a synchronous handler returns undefined (seen in
 * Firefox 153's console as "can't access property "catch"" on every content message; Chrome
 * runs the same code).
 * @template T
 * @param {(core: SlopCore) => T|Promise<T>} fn @returns {Promise<T>}
 */
export function withCore(fn) {
  if (instance) {
    try {
      return Promise.resolve(fn(instance));
    } catch (e) {
      return Promise.reject(e);
    }
  }
  return coreReady.then(fn);
}
