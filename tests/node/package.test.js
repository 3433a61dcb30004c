// What a user loads (build/extension, which `npm run package` zips as is) holds the extension and
// nothing of the tests: only the manifest, extension/, js-glue/ (without the Node-only js-glue/node/)
// and the wasm core, and no file that reaches for Node, a test runner or a test fixture.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EXT = path.join(ROOT, 'build/extension');

function files(dir, base = dir) {
  return fs.readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name), base) : [path.relative(base, path.join(dir, e.name))]));
}

test('the built extension holds no test code', () => {
  const all = files(EXT);
  assert.ok(all.includes('manifest.json') && all.includes('dist/slop_core.wasm'));
  for (const f of all) {
    assert.match(f, /^(manifest\.json|extension\/|js-glue\/|dist\/|vendor\/)/, `${f} belongs to the extension`);
    assert.doesNotMatch(f, /(^|\/)tests?\/|\.test\.|^js-glue\/node\/|fixtures/, `${f} is not test code`);
    if (!/\.(m?js|html)$/.test(f)) continue;
    const text = fs.readFileSync(path.join(EXT, f), 'utf8');
    // Import statements, not text: the History's "Copy as test" writes a test's imports as strings.
    assert.doesNotMatch(text, /^\s*(import|export)\b[^;]*?from ['"](node:|playwright|puppeteer|jsdom|ws['"])|^\s*import ['"](node:|playwright)|\brequire\(|tests\/fixtures/m, `${f} reaches for nothing of Node or the tests`);
  }
});
