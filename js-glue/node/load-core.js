// load-core.js: loads the wasm core in Node (tests, benchmarks).
// The browser build fetches dist/slop_core.wasm by URL; Node has no such fetch
// for file paths, so the bytes are read here and passed as wasmBinary.
// Node-only: build.sh leaves js-glue/node/ out of build/extension.

import { readFile } from 'node:fs/promises';
import './exact-json.js'; // exact numbers on a Node without JSON.rawJSON
import { loadSlopCore } from '../slop-core.js';

export { SlopError, SlopCode } from '../slop-core.js';

/** URL of the wasm next to the ES module glue. */
export const WASM_URL = new URL('../../dist/slop_core.wasm', import.meta.url);

/**
 * @param {Parameters<typeof loadSlopCore>[0]} [options]
 * @returns {ReturnType<typeof loadSlopCore>}
 */
export async function loadSlopCoreNode(options = {}) {
  return loadSlopCore({ ...options, wasmBinary: options.wasmBinary ?? await readFile(WASM_URL) });
}
