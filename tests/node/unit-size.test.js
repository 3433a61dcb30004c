// No C source of the core grows past 1,200 lines: a file that does is split along its sections
// (as consumer.c, mirror.c and agent_view.c were), with the helpers its parts share declared in a
// private header. Lines are counted as `wc -l` counts them.
//
// No .js file under extension/ grows past 600 lines either: a file that does is split along its
// sections into modules named for what each is (as timeline.js, options.js, settings-store.js and
// the panel's views were). A table may stay longer, named below with why.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = 'wasm/src';
const MAX_LINES = 1200;

/** Newline-terminated lines of a text, as `wc -l` counts them. */
export function lineCount(text) {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

test(`no ${SRC}/*.c file is over ${MAX_LINES} lines`, () => {
  const files = fs.readdirSync(path.join(ROOT, SRC)).filter((f) => f.endsWith('.c'));
  assert.ok(files.length > 0, `no C files in ${SRC}`);
  const over = files
    .map((f) => ({ f, n: lineCount(fs.readFileSync(path.join(ROOT, SRC, f), 'utf8')) }))
    .filter(({ n }) => n > MAX_LINES)
    .map(({ f, n }) => `${SRC}/${f}: ${n} lines`);
  assert.deepEqual(over, [], `split these along their sections (see docs/architecture.md, wasm/)`);
});

const EXT = 'extension';
const EXT_MAX_LINES = 600;
/** Files under extension/ allowed over EXT_MAX_LINES: tables, each with why it stays whole. */
const EXT_TABLES = new Map([
  ['extension/shared/messages.js', 'the catalogue: every message name between the contexts and its typedef, one table read whole'],
]);

/** Every .js file under `dir` (relative to ROOT). */
function jsFiles(dir) {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath ?? e.path, e.name)).split(path.sep).join('/'));
}

test(`no ${EXT}/**/*.js file is over ${EXT_MAX_LINES} lines, but the tables named with their reason`, () => {
  const files = jsFiles(EXT);
  assert.ok(files.length > 20, `${files.length} .js files found under ${EXT}`);
  const over = files
    .map((f) => ({ f, n: lineCount(fs.readFileSync(path.join(ROOT, f), 'utf8')) }))
    .filter(({ f, n }) => n > EXT_MAX_LINES && !EXT_TABLES.has(f))
    .map(({ f, n }) => `${f}: ${n} lines`);
  assert.deepEqual(over, [], 'split these along their sections into modules that say what they are (docs/architecture.md)');
});

test('every table allowed over the limit exists, says why, and is still over it', () => {
  for (const [f, why] of EXT_TABLES) {
    assert.ok(fs.existsSync(path.join(ROOT, f)), `${f} is gone: take it off the list`);
    assert.ok(why.length > 20, `${f}: say why it stays whole`);
    assert.ok(lineCount(fs.readFileSync(path.join(ROOT, f), 'utf8')) > EXT_MAX_LINES, `${f} fits now: take it off the list`);
  }
});

test('lines are counted as wc -l counts them', () => {
  assert.equal(lineCount(''), 0);
  assert.equal(lineCount('a'), 0);
  assert.equal(lineCount('a\n'), 1);
  assert.equal(lineCount('a\nb\n\n'), 3);
});
