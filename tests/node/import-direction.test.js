// Imports go one way (docs/architecture.md): extension/ → js-glue/ → the core. Nothing under
// js-glue/ imports from extension/, and nothing the extension loads, directly or through js-glue/,
// is Node-only: js-glue/node/ (the package's Node surface) is left out of build/extension, so an
// import of it would fail in the browser. Imports are read with acorn: static imports, re-exports
// and import() of a literal; a JSDoc type import (`@typedef {import('./node/provider.js')...}`) is a
// comment and loads nothing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as acorn from 'acorn';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NODE_ONLY = 'js-glue/node/';

/** Every .js and .mjs file under `dir`, repo-relative. */
function scripts(dir) {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) return scripts(p);
    return /\.m?js$/.test(e.name) ? [p] : [];
  });
}

/** The relative specifiers a module's text loads (static imports, re-exports, import() of a literal). */
export function importSpecifiers(text) {
  let ast;
  try {
    ast = acorn.parse(text, { ecmaVersion: 'latest', sourceType: 'module' });
  } catch {
    ast = acorn.parse(text, { ecmaVersion: 'latest', sourceType: 'script' }); // a classic script (content.js)
  }
  const out = [];
  const visit = (node) => {
    if (!node || typeof node.type !== 'string') return;
    if ((node.type === 'ImportDeclaration' || node.type === 'ExportNamedDeclaration' || node.type === 'ExportAllDeclaration') && node.source) {
      out.push(node.source.value);
    } else if (node.type === 'ImportExpression' && node.source.type === 'Literal') {
      out.push(node.source.value);
    }
    for (const v of Object.values(node)) {
      if (Array.isArray(v)) v.forEach(visit);
      else if (v && typeof v === 'object') visit(v);
    }
  };
  visit(ast);
  return out.filter((s) => typeof s === 'string' && s.startsWith('.'));
}

/** repo-relative file → the repo-relative files it imports. */
function importsOf(file) {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return importSpecifiers(text).map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s)));
}

test('nothing under js-glue/ imports from extension/', () => {
  const wrong = scripts('js-glue').flatMap((f) => importsOf(f).filter((d) => d.startsWith('extension/')).map((d) => `${f} → ${d}`));
  assert.deepEqual(wrong, []);
});

test(`nothing the extension loads, directly or through js-glue/, is under ${NODE_ONLY}`, () => {
  const entries = scripts('extension');
  assert.ok(entries.length > 30, `${entries.length} extension scripts found`);
  const seen = new Map(); // file → the file that imported it first
  const queue = entries.map((f) => [f, '']);
  const wrong = [];
  while (queue.length) {
    const [file, from] = /** @type {[string, string]} */ (queue.shift());
    if (seen.has(file)) continue;
    seen.set(file, from);
    if (file.startsWith(NODE_ONLY)) {
      const chain = [file];
      for (let f = from; f; f = seen.get(f) ?? '') chain.unshift(f);
      wrong.push(chain.join(' → '));
      continue;
    }
    if (!fs.existsSync(path.join(ROOT, file))) continue; // dist/slop_core.mjs before a build: not ours to check
    if (!/\.m?js$/.test(file)) continue;
    for (const dep of importsOf(file)) queue.push([dep, file]);
  }
  assert.ok([...seen.keys()].some((f) => f.startsWith('js-glue/')), 'the walk reaches js-glue/');
  assert.deepEqual(wrong, [], `Node-only modules reached from extension/ (${NODE_ONLY} is left out of build/extension)`);
});

test('the scan sees imports, re-exports and import(), and not a JSDoc type import', () => {
  const text = [
    "import { a } from './a.js';",
    "export { b } from '../b.js';",
    "export * from './c.js';",
    "import 'node:fs';",
    "/** @typedef {import('./node/provider.js').X} X */",
    "const m = await import('./d.js');",
  ].join('\n');
  assert.deepEqual(importSpecifiers(text), ['./a.js', '../b.js', './c.js', './d.js']);
});
