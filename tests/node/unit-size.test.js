// No C source of the core grows past 1,200 lines: a file that does is split along its sections
// (as consumer.c, mirror.c and agent_view.c were), with the helpers its parts share declared in a
// private header. Lines are counted as `wc -l` counts them.

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

test('lines are counted as wc -l counts them', () => {
  assert.equal(lineCount(''), 0);
  assert.equal(lineCount('a'), 0);
  assert.equal(lineCount('a\n'), 1);
  assert.equal(lineCount('a\nb\n\n'), 3);
});
