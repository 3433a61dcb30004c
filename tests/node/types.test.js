// The package's type declarations: a user's code (tests/fixtures/types/usage.mts) compiles with
// `tsc --strict` against them, resolved through package.json "exports" as in an installed
// package; and every name an entry point exports at run time is declared. And the extension's and
// the glue's own JavaScript type-checks against its JSDoc.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(await fs.readFile(new URL('package.json', `file://${ROOT}`), 'utf8'));

test('a user\'s TypeScript compiles against the declarations (tsc --strict)', { timeout: 120_000 }, async () => {
  const tsc = `${ROOT}node_modules/typescript/bin/tsc`;
  const r = await promisify(execFile)(process.execPath, [tsc, '-p', 'tests/fixtures/types/tsconfig.json'], { cwd: ROOT })
    .then(() => ({ code: 0, out: '' }), (e) => ({ code: e.code, out: `${e.stdout}${e.stderr}` }));
  assert.equal(r.code, 0, r.out);
});

// The extension and the JS glue are checked from their JSDoc (checkJs; tsconfig.json at the root),
// and the glue and the service worker strictly too (tsconfig.strict.json). Both start at once: two
// programs, two cores.
/** @param {string} config */
const typeCheck = (config) => promisify(execFile)(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', config],
  { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 })
  .then(() => ({ code: 0, out: '' }), (e) => ({ code: e.code, out: `${e.stdout}${e.stderr}` }));
const checks = { normal: typeCheck('tsconfig.json'), strict: typeCheck('tsconfig.strict.json') };

test('extension/ and js-glue/ type-check (tsc -p tsconfig.json)', { timeout: 180_000 }, async () => {
  const r = await checks.normal;
  assert.equal(r.code, 0, r.out);
});

test('js-glue/ and the service worker type-check strictly (tsc -p tsconfig.strict.json)', { timeout: 180_000 }, async () => {
  const r = await checks.strict;
  assert.equal(r.code, 0, r.out);
});

/** Names a .d.ts exports: its own declarations plus those of the files it re-exports with `export *`. */
async function declaredNames(file) {
  const text = await fs.readFile(file, 'utf8');
  const names = new Set([...text.matchAll(/^export (?:declare )?(?:const|function|class|interface|type)\s+(\w+)/gm)].map((m) => m[1]));
  for (const m of text.matchAll(/^export \* from '(.+)';/gm)) {
    for (const n of await declaredNames(new URL(m[1].replace(/\.js$/, '.d.ts'), `file://${file}`).pathname)) names.add(n);
  }
  return names;
}

for (const [entry, target] of Object.entries(pkg.exports)) {
  if (typeof target === 'string') continue;
  test(`every export of ${pkg.name}${entry.slice(1)} is declared in ${target.types}`, async () => {
    const mod = await import(`${ROOT}${target.default}`);
    const declared = await declaredNames(`${ROOT}${target.types}`);
    const missing = Object.keys(mod).filter((n) => !declared.has(n));
    assert.deepEqual(missing, [], `exported but not declared in ${target.types}`);
  });
}
