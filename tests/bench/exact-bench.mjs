// What exact numbers cost, beside the plain JSON they replace, in one run: the worker's node views
// (10,000 nodes read from the core, the ODD_NUMBER test beside the old 16-digit one), the panel's
// reading of a delta, and an export's text (parseVerbatim + stringifyExact against JSON.parse +
// JSON.stringify), for a tree with ordinary numbers and one where every node holds -0, 1.50 and a
// 64-bit id. On this Node (20: lossless-json, see node/exact-json.js) and, in a child process,
// with JSON.rawJSON (--harmony-json-parse-with-source), as the browsers run it.
// node tests/bench/exact-bench.mjs [--quick]

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import '../../js-glue/node/exact-json.js';
import { parseExact, parseVerbatim, stringifyExact, ODD_NUMBER, LONG_DIGITS } from '../../js-glue/exact-json.js';
import { median } from './stats.mjs';

const quick = process.argv.includes('--quick');
const N = quick ? 2000 : 10000;
const RUNS = quick ? 5 : 11;

/** A tree text of n items; odd: each item's numbers as a Go or Python provider may write them. */
function treeText(n, odd) {
  const items = [];
  for (let i = 0; i < n; i++) {
    items.push(odd
      ? `{"id":"m${i}","type":"item","properties":{"n":${i},"neg":-0,"price":1.50,"id64":${9223372036854775000n + BigInt(i)},"label":"Item ${i}"},"meta":{"salience":0.50}}`
      : `{"id":"m${i}","type":"item","properties":{"n":${i},"price":1.5,"ratio":0.25,"label":"Item ${i}"},"meta":{"salience":0.5}}`);
  }
  return { all: `{"id":"root","type":"root","children":[{"id":"list","type":"collection","children":[${items.join(',')}]}]}`, items };
}

/** Median ms of fn over RUNS. */
function time(fn) {
  const xs = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    xs.push(performance.now() - t0);
  }
  return median(xs);
}

function run(label) {
  const rows = [];
  for (const odd of [false, true]) {
    const { all, items } = treeText(N, odd);
    const kind = odd ? '-0, 1.50, 64-bit ids' : 'ordinary numbers';
    rows.push([`${kind}: views, old test (16 digits)`, time(() => { for (const t of items) { JSON.parse(t); LONG_DIGITS.test(t); } })]);
    rows.push([`${kind}: views, ODD_NUMBER`, time(() => { for (const t of items) { JSON.parse(t); ODD_NUMBER.test(t); } })]);
    rows.push([`${kind}: delta read, JSON.parse`, time(() => JSON.parse(`[${items.join(',')}]`))]);
    rows.push([`${kind}: delta read, parseExact (+ parseVerbatim when odd)`, time(() => { const t = `[${items.join(',')}]`; parseExact(t); if (ODD_NUMBER.test(t)) parseVerbatim(t); })]);
    rows.push([`${kind}: export, JSON.parse + JSON.stringify`, time(() => JSON.stringify(JSON.parse(all), null, 2))]);
    rows.push([`${kind}: export, parseVerbatim + stringifyExact`, time(() => stringifyExact(parseVerbatim(all), 2))]);
  }
  console.log(`${label}, ${N.toLocaleString()} nodes, median of ${RUNS}:`);
  for (const [what, ms] of rows) console.log(`  ${what.padEnd(70)} ${ms.toFixed(1).padStart(8)} ms`);
}

if (process.argv.includes('--child')) {
  run('JSON.rawJSON (as in Chromium and Firefox)');
} else {
  run(typeof JSON.rawJSON === 'function' ? 'JSON.rawJSON' : 'lossless-json (Node 20 without JSON source access)');
  if (typeof JSON.rawJSON !== 'function') {
    const me = fileURLToPath(import.meta.url);
    process.stdout.write(execFileSync(process.execPath, ['--harmony-json-parse-with-source', me, '--child', ...(quick ? ['--quick'] : [])], { encoding: 'utf8' }));
  }
}
