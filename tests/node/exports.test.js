// The wasm build exports exactly the public C API (wasm/exports.txt), and
// exports.txt lists every function declared in wasm/include/slop_core.h.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const read = (p) => readFileSync(new URL(p, root));

// wasm/exports.txt, the one list of the module's interface: bare names are
// the exported C functions, "@kind name" lines the rest (see its header).
const entries = read('wasm/exports.txt').toString()
  .split('\n').map((l) => l.replace(/#.*/, '').trim()).filter(Boolean).map((l) => l.split(/\s+/));
const ofKind = (kind) => entries.filter((e) => e[0] === `@${kind}`).map((e) => e[1]);
const exportsTxt = entries.filter((e) => !e[0].startsWith('@')).map((e) => e[0]);
const EMSCRIPTEN_EXPORTS = ofKind('emscripten');
const RUNTIME_EXTRAS = ['malloc', 'free'];

function headerFunctions() {
  const src = read('wasm/include/slop_core.h').toString()
    .replace(/\/\*[\s\S]*?\*\//g, '')       // block comments (the usage example calls functions)
    .replace(/\/\/.*$/gm, '')
    .replace(/^\s*#.*$/gm, '');            // preprocessor lines (macros with parentheses)
  return [...src.matchAll(/\b(slop_\w+)\s*\(/g)].map((m) => m[1]);
}

const sorted = (a) => [...new Set(a)].sort();

test('exports.txt has no duplicates', () => {
  assert.equal(new Set(exportsTxt).size, exportsTxt.length);
});

test('every function declared in slop_core.h is in exports.txt, and nothing else but malloc/free', () => {
  const declared = headerFunctions();
  assert.ok(declared.length >= 20, `parsed only ${declared.length} declarations from the header`);
  assert.deepEqual(sorted(exportsTxt), sorted([...declared, ...RUNTIME_EXTRAS]));
});

test('the wasm module exports exactly exports.txt plus the emscripten runtime exports', async () => {
  const mod = await WebAssembly.compile(read('dist/slop_core.wasm'));
  const actual = WebAssembly.Module.exports(mod).map((e) => e.name);
  assert.ok(EMSCRIPTEN_EXPORTS.length > 0, 'exports.txt lists what emscripten adds');
  assert.deepEqual(sorted(actual), sorted([...exportsTxt, ...EMSCRIPTEN_EXPORTS]));
});

test('the wasm module imports exactly the @import entries of exports.txt', async () => {
  const mod = await WebAssembly.compile(read('dist/slop_core.wasm'));
  const actual = WebAssembly.Module.imports(mod).map((i) => `${i.module}.${i.name}`);
  assert.deepEqual(sorted(actual), sorted(ofKind('import')));
});

test('the glue exposes every exported function as Module._name', async () => {
  const { loadSlopCoreNode } = await import('../../js-glue/node/load-core.js');
  // loadSlopCore hides the Module; instantiate the glue directly for this check.
  const createSlopCore = (await import('../../dist/slop_core.mjs')).default;
  const M = await createSlopCore({ wasmBinary: read('dist/slop_core.wasm') });
  for (const name of exportsTxt) assert.equal(typeof M[`_${name}`], 'function', `_${name}`);
  for (const name of ofKind('runtime')) {
    if (name.startsWith('HEAP')) assert.ok(M[name] instanceof Uint8Array, name);
    else assert.equal(typeof M[name], 'function', name);
  }
  const core = await loadSlopCoreNode();
  assert.equal(typeof core.version(), 'string');
});
