// docs/conformance-rules.md stays the truth about the core's rule levels: one row per rule of the
// core's report and no other; each row's level is the core's; a quoted spec sentence's own level
// word (RFC 2119, capitals) is that level; a row without a quote says it is inferred.
//
// The spec documents are not in the repository (CI cannot read them), so nothing here needs them.
// With SLOP_SPEC_DIR set (folders, separated by ':'), each quote is also looked for in the document
// its row names, found by file name anywhere under those folders.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSlopCoreNode } from '../../js-glue/node/load-core.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOC = fs.readFileSync(path.join(ROOT, 'docs/conformance-rules.md'), 'utf8');

/** The table's rows: {id, level, sentence, document, word, line}. Throws on a malformed row. */
export function parseRules(doc) {
  const m = doc.match(/<!-- rules:start[^>]*-->\n([\s\S]*?)\n<!-- rules:end -->/);
  if (!m) throw new Error('no table between <!-- rules:start --> and <!-- rules:end -->');
  const rows = [];
  for (const line of m[1].split('\n').slice(2)) { // the header and its rule line
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    const id = cells[0]?.match(/^`([a-z0-9-]+)`$/)?.[1];
    if (cells.length !== 5 || !id) throw new Error(`malformed row: ${line}`);
    rows.push({ id, level: cells[1], sentence: cells[2], document: cells[3], word: cells[4], line });
  }
  return rows;
}

/**
 * The level a quoted sentence's own words give (MUST, SHOULD or MAY), or an error when it has
 * none or words of two levels (quote the clause that carries the rule).
 */
export function levelOf(sentence) {
  const words = sentence.match(/\b(MUST(?: NOT)?|REQUIRED|SHALL(?: NOT)?|SHOULD(?: NOT)?|(?:NOT )?RECOMMENDED|MAY|OPTIONAL)\b/g) ?? [];
  const levels = new Set(words.map((w) =>
    /^(MUST|REQUIRED|SHALL)/.test(w) ? 'MUST' : /SHOULD|RECOMMENDED/.test(w) ? 'SHOULD' : 'MAY'));
  if (levels.size !== 1) return { error: levels.size ? `words of several levels: ${words.join(', ')}` : 'no level word' };
  return { level: [...levels][0] };
}

/** A quoted row's quote, without its quotation marks; null for an inferred row. */
const quoteOf = (row) => (row.word === 'inferred' ? null : row.sentence.match(/^"(.+)"$/)?.[1] ?? '');

const core = await loadSlopCoreNode();
const consumer = new core.SlopConsumer({ transport: 'ws', seed: 1 });
const coreRules = consumer.conformance().rules;
consumer.free();
const rows = parseRules(DOC);

test('every rule of the core has one row, and every row is a rule of the core', () => {
  const ids = rows.map((r) => r.id);
  assert.deepEqual(ids.filter((id, i) => ids.indexOf(id) !== i), [], 'no rule has two rows');
  assert.deepEqual(coreRules.map((r) => r.id).filter((id) => !ids.includes(id)), [], 'rules of the core missing from the table');
  assert.deepEqual(ids.filter((id) => !coreRules.some((r) => r.id === id)), [], 'rows that are no rule of the core');
});

test("each row's level is the level the core gives its rule", () => {
  const wrong = coreRules.flatMap((r) => {
    const row = rows.find((x) => x.id === r.id);
    return row && row.level !== r.severity ? [`${r.id}: the core says ${r.severity}, the table ${row.level}`] : [];
  });
  assert.deepEqual(wrong, []);
});

test("each quoted sentence's own level word is the row's level; inferred rows say so", () => {
  const wrong = [];
  for (const row of rows) {
    if (!['MUST', 'SHOULD', 'MAY'].includes(row.level)) wrong.push(`${row.id}: level "${row.level}"`);
    if (!/\(`[a-z0-9.-]+\.(txt|md)`\)/.test(row.document)) wrong.push(`${row.id}: the document names no file: ${row.document}`);
    const quote = quoteOf(row);
    if (quote === null) {
      if (!row.sentence.startsWith('Inferred: ')) wrong.push(`${row.id}: an inferred row's sentence cell starts "Inferred: "`);
      continue;
    }
    if (!quote) { wrong.push(`${row.id}: the sentence is not "quoted" (or the word column is not "inferred")`); continue; }
    const { level, error } = levelOf(quote);
    if (error) wrong.push(`${row.id}: ${error}`);
    else {
      if (row.word !== level) wrong.push(`${row.id}: the quote's word is ${level}, the word column says ${row.word}`);
      if (row.level !== level) wrong.push(`${row.id}: the quote says ${level}, the level is ${row.level}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('the level words are read as RFC 2119 says', () => {
  assert.deepEqual(levelOf('The state tree MUST NOT contain any affordances arrays.'), { level: 'MUST' });
  assert.deepEqual(levelOf('providers SHOULD NOT emit it'), { level: 'SHOULD' });
  assert.deepEqual(levelOf('a consumer seeing one MAY disconnect.'), { level: 'MAY' });
  assert.deepEqual(levelOf('It is REQUIRED.'), { level: 'MUST' });
  assert.ok(levelOf('Consumers must support batch messages').error, 'lower case is prose');
  assert.ok(levelOf('validators MUST enforce and MAY treat').error, 'two levels: ambiguous');
});

// Opt-in: the spec documents are not in the repository.
const SPEC_DIRS = (process.env.SLOP_SPEC_DIR ?? '').split(':').filter(Boolean);

/** name -> path of every file under dirs, the first found winning. */
function filesUnder(dirs) {
  const found = new Map();
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (!found.has(e.name)) found.set(e.name, p);
    }
  };
  dirs.forEach(walk);
  return found;
}

test('with SLOP_SPEC_DIR: each quote is in the document its row names', { skip: SPEC_DIRS.length ? false : 'SLOP_SPEC_DIR is not set' }, () => {
  const files = filesUnder(SPEC_DIRS);
  // Whitespace aside, all of it: the published text pages lost the spaces around code spans
  // ("versiondecreases"), so a quote with them and the page without them are the same words.
  const squash = (s) => s.replace(/\s+/g, '');
  const missing = [];
  let checked = 0;
  for (const row of rows) {
    const quote = quoteOf(row);
    if (!quote) continue;
    const names = [...row.document.matchAll(/\(`([a-z0-9.-]+\.(?:txt|md))`\)/g)].map((x) => x[1]);
    const texts = names.map((n) => (files.has(n) ? fs.readFileSync(files.get(n), 'utf8') : null));
    if (texts.every((t) => t === null)) { missing.push(`${row.id}: ${names.join(', ')} not under SLOP_SPEC_DIR`); continue; }
    if (!texts.some((t) => t !== null && squash(t).includes(squash(quote)))) missing.push(`${row.id}: not in ${names.join(', ')}: "${quote}"`);
    checked++;
  }
  assert.deepEqual(missing, []);
  assert.ok(checked > 0);
});
