// No C source of the core grows past 1,200 lines: a file that does is split along its sections
// (as consumer.c, mirror.c and agent_view.c were), with the helpers its parts share declared in a
// private header. No JavaScript module under js-glue/ (js-glue/node/ included) or bin/ grows past
// 600 lines: one that does is split along its sections as well (as agent.js, consumer-session.js
// and slop-core.js were). A table (data laid out one entry a line: a catalogue, a list of rules)
// may be longer; it is recognised only by its line in JS_TABLES below, with the reason it is one,
// and a line there for a file that is gone or back under the limit fails, so the list stays true.
// The same holds for extension/ (as timeline.js, options.js, settings-store.js and the panel's
// views were split). Lines are counted as `wc -l` counts them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = 'wasm/src';
const MAX_LINES = 1200;
const JS_TREES = ['js-glue', 'bin', 'extension'];
const JS_MAX_LINES = 600;
/** Files allowed over JS_MAX_LINES because they are tables: repo-relative path → why it is one. */
const JS_TABLES = new Map([
  ['extension/shared/messages.js', 'the catalogue: every message name between the contexts and its typedef, one table read whole'],
]);

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

/** Every .js, .mjs and .cjs file under `dir` (repo-relative), node_modules left out. */
function scripts(dir) {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : scripts(p);
    return /\.(m?js|cjs)$/.test(e.name) ? [p] : [];
  });
}

/**
 * The files over `max` lines that are not tables, and the table entries that are wrong (a file
 * that is gone, back under the limit, or listed without a reason). @param {Map<string, string>} tables
 */
export function sizeProblems(files, max, tables) {
  const over = files.filter(({ n }) => n > max);
  const sizes = new Map(files.map(({ f, n }) => [f, n]));
  return {
    over: over.filter(({ f }) => !tables.has(f)).map(({ f, n }) => `${f}: ${n} lines`),
    badTables: [...tables].filter(([f, why]) => !(sizes.get(f) > max) || typeof why !== 'string' || !why.trim())
      .map(([f]) => `${f}: ${sizes.has(f) ? `${sizes.get(f)} lines, or no reason given` : 'no such file'}`),
  };
}

test(`no .js file under ${JS_TREES.join('/ or ')}/ is over ${JS_MAX_LINES} lines, unless it is a table`, () => {
  const files = JS_TREES.flatMap(scripts).map((f) => ({ f, n: lineCount(fs.readFileSync(path.join(ROOT, f), 'utf8')) }));
  assert.ok(['js-glue/node/', 'bin/', 'extension/panel/'].every((d) => files.some(({ f }) => f.startsWith(d))), 'the walk finds the files');
  const { over, badTables } = sizeProblems(files, JS_MAX_LINES, JS_TABLES);
  assert.deepEqual(over, [], 'split these along their sections (or, for a table, add it to JS_TABLES with the reason)');
  assert.deepEqual(badTables, [], 'JS_TABLES lists these, but they are not tables over the limit any more: take their lines out');
});

test('the size check lets a listed table through and catches a stale or reasonless entry', () => {
  const files = [{ f: 'a.js', n: 700 }, { f: 'b.js', n: 601 }, { f: 'c.js', n: 600 }, { f: 'd.js', n: 900 }];
  const tables = new Map([['a.js', 'one rule a line'], ['c.js', 'was long once'], ['gone.js', 'moved'], ['d.js', ' ']]);
  assert.deepEqual(sizeProblems(files, 600, tables), {
    over: ['b.js: 601 lines'],
    badTables: ['c.js: 600 lines, or no reason given', 'gone.js: no such file', 'd.js: 900 lines, or no reason given'],
  });
});

test('lines are counted as wc -l counts them', () => {
  assert.equal(lineCount(''), 0);
  assert.equal(lineCount('a'), 0);
  assert.equal(lineCount('a\n'), 1);
  assert.equal(lineCount('a\nb\n\n'), 3);
});
