// The panel's keys are written down once (extension/panel/shortcuts.js): the "?" overlay shows
// that list and the key table of the user's guide (docs/guide/panel.md, "Keys") must be exactly it,
// so neither can drift from the other.
// The bar's letter keys and modifier keys in parts/panel-keys.js, and the keys its buttons announce
// (aria-keyshortcuts), must be in the list too.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SHORTCUT_GROUPS, allShortcuts } from '../../extension/panel/shortcuts.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (rel) => fs.readFileSync(path.join(ROOT, rel), 'utf8');

/** The guide's key table, as made from the list. */
export function keysTable() {
  const cell = (s) => s.replace(/\|/g, '\\|');
  const lines = ['| Where | Keys | What they do |', '|---|---|---|'];
  for (const g of SHORTCUT_GROUPS) {
    for (const s of g.items) lines.push(`| ${cell(g.title)} | ${s.keys.map((k) => `\`${cell(k)}\``).join(' ')} | ${cell(s.what)} |`);
  }
  return lines.join('\n');
}

// UPDATE_KEYS=1 node --test tests/node/shortcuts.test.js writes the table into the guide's page.
const KEYS_DOC = 'docs/guide/panel.md';
test('the guide\'s key table is the list in shortcuts.js', () => {
  const TABLE = /(<!-- keys:start[^>]*-->\n)([\s\S]*?)(\n<!-- keys:end -->)/;
  let doc = read(KEYS_DOC);
  if (process.env.UPDATE_KEYS === '1') {
    doc = doc.replace(TABLE, (_, a, _t, b) => a + keysTable() + b);
    fs.writeFileSync(path.join(ROOT, KEYS_DOC), doc);
  }
  const m = doc.match(TABLE);
  assert.ok(m, `${KEYS_DOC} has a table between <!-- keys:start --> and <!-- keys:end -->`);
  assert.equal(m[2], keysTable(), `${KEYS_DOC}'s key table differs from extension/panel/shortcuts.js; it should read:\n${keysTable()}`);
});

test('every key the panel binds in parts/panel-keys.js and announces in panel.html is listed', () => {
  const listed = new Set(allShortcuts().flatMap((s) => s.keys.map((k) => k.toLowerCase())));
  const js = read('extension/panel/parts/panel-keys.js');
  const letters = js.match(/const BAR_KEYS = \{([^}]*)\}/)[1].match(/\b([a-z]):/g).map((x) => x[0]);
  for (const l of letters) assert.ok(listed.has(l), `bar key ${l}`);
  const mods = js.match(/const MOD_KEYS = \{([^}]*)\}/)[1].match(/\b([a-z]):/g).map((x) => x[0]);
  for (const l of mods) assert.ok(listed.has(`ctrl+shift+${l}`), `Ctrl+Shift+${l.toUpperCase()}`);
  const html = read('extension/panel/panel.html');
  for (const [, k] of html.matchAll(/aria-keyshortcuts="([^"]+)"/g)) {
    const key = k.replace('Control', 'Ctrl').toLowerCase();
    assert.ok(listed.has(key), `aria-keyshortcuts ${k}`);
  }
});

test('no single letter on its own starts a download or opens a file chooser', () => {
  for (const s of allShortcuts()) {
    if (/export|import|download|file chooser/i.test(s.what)) {
      for (const k of s.keys) assert.match(k, /^(Ctrl|Cmd)\+/, `${s.what}: ${k} needs a modifier`);
    }
  }
});
