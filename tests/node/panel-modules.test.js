// The panel page preloads every module panel.js imports, directly or not (<link rel=modulepreload>
// in panel.html): without it the browser finds them level by level as it reads the imports, which
// costs the panel's first render a round trip per level. This keeps the list equal to the imports.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PANEL = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../extension/panel');
const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gm;

/** Every module file `entry` imports, directly or not (absolute paths). */
function imports(entry) {
  const seen = new Set();
  const walk = (file) => {
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const dep = path.resolve(path.dirname(file), spec);
      if (!seen.has(dep)) {
        seen.add(dep);
        walk(dep);
      }
    }
  };
  walk(entry);
  return seen;
}

test('panel.html preloads exactly the modules panel.js imports', () => {
  const html = readFileSync(path.join(PANEL, 'panel.html'), 'utf8');
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map(([, href]) => path.resolve(PANEL, href));
  assert.equal(new Set(preloaded).size, preloaded.length, 'each once');
  const needed = imports(path.join(PANEL, 'panel.js'));
  const rel = (files) => [...files].map((f) => path.relative(PANEL, f)).sort();
  assert.deepEqual(rel(preloaded), rel(needed));
  assert.ok(needed.size > 20, `${needed.size} modules found: the import scan works`);
});
