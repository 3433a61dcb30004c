// What exact numbers cost, beside the plain JSON they replace, in one run: the worker's node views
// (10,000 nodes read from the core, the ODD_NUMBER test beside the old 16-digit one), the panel's
// reading of a delta, and an export's text (parseVerbatim + stringifyExact against JSON.parse +
// JSON.stringify), for a tree with ordinary numbers and one where every node holds -0, 1.50 and a
// 64-bit id. On this Node (20: lossless-json, see node/exact-json.js) and, in a child process,
// with JSON.rawJSON (--harmony-json-parse-with-source), as the browsers run it. Then the wasm
// core's side (json_read.c keeps a number's text when its printer would write it otherwise,
// behind a pre-filter that ordinary numbers pass at no cost): a provider event whose data holds
// the numbers, and one patch frame replacing a number on every item, received and drained as the
// worker does (numbers 'plain', which adds the event's text when it may hold such a number).
// node tests/bench/exact-bench.mjs [--quick] [--before=<an earlier dist/slop_core.wasm>]

import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import '../../js-glue/node/exact-json.js';
import { parseExact, parseVerbatim, stringifyExact, ODD_NUMBER, LONG_DIGITS } from '../../js-glue/exact-json.js';
import { loadSlopCoreNode } from '../../js-glue/node/load-core.js';
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

const HELLO = '{"type":"hello","provider":{"id":"bench","name":"Bench","slop_version":"0.1","capabilities":["state","patches"]}}';

/** ms of receive + drain of the frame setup(consumer) makes (untimed), on a fresh consumer of core. */
function timeCore(core, setup) {
  const c = new core.SlopConsumer({ transport: 'ws', seed: 7 });
  const frame = setup(c);
  const t0 = performance.now();
  c.receive(frame, 0);
  c.drain();
  const ms = performance.now() - t0;
  c.free();
  return ms;
}

/**
 * The core's rows. --before=<slop_core.wasm>: an earlier build of the core (the same dist/slop_core.mjs
 * glue: copy dist/ before rebuilding) timed beside this one, runs interleaved, so a machine's load
 * weighs on both alike.
 */
async function runCore() {
  const before = process.argv.find((a) => a.startsWith('--before='))?.slice('--before='.length);
  const cores = [['this build', await loadSlopCoreNode()]];
  if (before) cores.unshift(['before', await loadSlopCoreNode({ wasmBinary: await readFile(before) })]);
  const runs = before ? RUNS * 3 : RUNS;
  const rows = [];
  for (const odd of [false, true]) {
    const kind = odd ? '1.50, 1E5, -0.0, 17 digits' : 'ordinary numbers';
    const nums = [];
    for (let i = 0; i < N; i++) nums.push(odd ? ['1.50', '1E5', '-0.0', '0.30000000000000004'][i % 4] : [String(i), '1.5', '0.25', String(-i)][i % 4]);
    const event = `{"type":"event","name":"numbers","data":[${nums.join(',')}]}`;
    const { all } = treeText(N, odd);
    const ops = [];
    for (let i = 0; i < N; i++) ops.push(`{"op":"replace","path":"/list/m${i}/properties/price","value":${odd ? '2.50' : '2.5'}}`);
    const cases = [
      [`${kind}: an event with ${N.toLocaleString()} numbers`, (c) => {
        c.receive(HELLO, 0);
        c.drain();
        return event;
      }],
      [`${kind}: one patch replacing a number on each item`, (c) => {
        c.subscribe({ path: '/', depth: -1 }, 0);
        c.receive(HELLO, 0);
        const wire = JSON.parse(c.drain().find((o) => o.kind === 'send')?.frame ?? 'null')?.id;
        c.receive(`{"type":"snapshot","id":${JSON.stringify(wire)},"version":1,"seq":0,"tree":${all}}`, 0);
        c.drain();
        return `{"type":"patch","subscription":${JSON.stringify(wire)},"version":2,"seq":1,"ops":[${ops.join(',')}]}`;
      }],
    ];
    for (const [what, setup] of cases) {
      const xs = cores.map(() => []);
      for (let i = 0; i < runs; i++) {
        for (let k = 0; k < cores.length; k++) {
          const j = (i + k) % cores.length; // each build goes first in turn
          xs[j].push(timeCore(cores[j][1], setup));
        }
      }
      rows.push([what, xs.map(median)]);
    }
  }
  console.log(`The wasm core: receive + drain (numbers 'plain'), ${N.toLocaleString()} numbers or items, median of ${runs}${before ? `; ${cores.map(([n]) => n).join(' | ')}` : ''}:`);
  for (const [what, ms] of rows) console.log(`  ${what.padEnd(70)} ${ms.map((x) => `${x.toFixed(1).padStart(8)} ms`).join(' |')}`);
}

if (process.argv.includes('--child')) {
  run('JSON.rawJSON (as in Chromium and Firefox)');
} else {
  run(typeof JSON.rawJSON === 'function' ? 'JSON.rawJSON' : 'lossless-json (Node 20 without JSON source access)');
  if (typeof JSON.rawJSON !== 'function') {
    const me = fileURLToPath(import.meta.url);
    process.stdout.write(execFileSync(process.execPath, ['--harmony-json-parse-with-source', me, '--child', ...(quick ? ['--quick'] : [])], { encoding: 'utf8' }));
  }
  await runCore();
}
