// profile-bench.mjs: the state profiler (js-glue/state-profile.js) on the wasm core's profile, as
// client.profile() and the Cost tab's worker run it: the first full count of a 10,000-node and a
// 100,000-node tree (the core's profile text, JSON.parse, ingest, countPending to completion in
// 8 ms slices, the report), then a refresh after a one-op patch at 10,000 nodes (only the changed
// text counted again), each beside JSON.parse of the same profile text as the baseline. Prints
// figures; never asserts a time.
//
//   node tests/bench/profile-bench.mjs [--quick]   (--quick: 10,000 nodes only, fewer refreshes)
// Each size twice: full items (a 4.6 MB tree text at 10,000 nodes) and small ones (0.5 MB).

import { performance } from 'node:perf_hooks';
import { loadSlopCoreNode } from '../../js-glue/node/load-core.js';
import { StateProfile } from '../../js-glue/state-profile.js';
import { countTokens, TOKENIZER } from '../../js-glue/node/tokenizer.js';
import { item, snapshotText } from './patch-frames.mjs';
import { median, kib } from './stats.mjs';

const quick = process.argv.includes('--quick');
/** [nodes, small items]: the patch benches' full items (about 470 characters a line), and their small ones (about 60). */
const RUNS = quick ? [[10_000, false], [10_000, true]] : [[10_000, false], [10_000, true], [100_000, false], [100_000, true]];
const REFRESHES = quick ? 20 : 100;
const core = await loadSlopCoreNode();
const HELLO = JSON.stringify({ type: 'hello', provider: { id: 'b', name: 'B', slop_version: '0.1', capabilities: ['state', 'patches', 'affordances', 'attention'] } });

/** n nodes: the root, folders of 100 items each (the patch benches' items: full ones have properties, meta, two actions). @param {number} n @param {boolean} small */
function treeOf(n, small) {
  const folders = Math.max(1, Math.round((n - 1) / 101));
  const per = Math.floor((n - 1 - folders) / folders);
  let k = 0;
  return {
    id: 'root', type: 'root', children: Array.from({ length: folders }, (_, f) => ({
      id: `f${f}`, type: 'folder', properties: { name: `Folder ${f}` },
      children: Array.from({ length: per }, () => item(k++, small)),
    })),
  };
}

const ms = (x) => `${x.toFixed(1)} ms`;

console.log(`tokenizer: ${TOKENIZER}; slices of 8 ms (countPending({budgetMs: 8}))`);
for (const [n, small] of RUNS) {
  const c = new core.SlopConsumer({ transport: 'ws', seed: 7 });
  const sub = c.subscribe({ path: '/', depth: -1 }, 0);
  c.receive(HELLO, 0);
  c.receive(snapshotText(sub, treeOf(n, small)), 0);
  c.drain();
  const p = new StateProfile({ countTokens, tokenizer: TOKENIZER });
  // First full count.
  let t = performance.now();
  const text = c.profileText(sub, p.since);
  const tText = performance.now() - t;
  t = performance.now();
  const profile = JSON.parse(text);
  const tParse = performance.now() - t;
  t = performance.now();
  p.ingest({ at: Date.now(), profile });
  const tIngest = performance.now() - t;
  t = performance.now();
  let slices = 0, longest = 0;
  for (;;) {
    const s = performance.now();
    const done = p.countPending({ budgetMs: 8 });
    longest = Math.max(longest, performance.now() - s);
    slices++;
    if (done) break;
  }
  const tCount = performance.now() - t;
  t = performance.now();
  const report = p.report();
  const tReport = performance.now() - t;
  t = performance.now();
  const tools = c.tools(sub, null, 0, 0);
  const offered = c.tools(sub, null, 0, 128);
  const tToolsRead = performance.now() - t;
  t = performance.now();
  p.ingest({ at: Date.now(), profile: JSON.parse(c.profileText(sub, p.since)), tools, offered });
  while (!p.countPending({ budgetMs: 8 }));
  const tTools = performance.now() - t;
  const nodes = report.totals.nodes;
  console.log(`\n${nodes} nodes (${small ? 'small' : 'full'} items): tree text ${kib(report.budgets.stateBytes)}, ${report.totals.tokens} tokens; profile text ${kib(Buffer.byteLength(text))}`);
  console.log(`  first full count: ${ms(tText + tParse + tIngest + tCount + tReport)} (core profile text ${ms(tText)}, JSON.parse ${ms(tParse)}, ingest ${ms(tIngest)}, `
    + `counting ${ms(tCount)} in ${slices} slices, longest ${ms(longest)}, report ${ms(tReport)})`);
  console.log(`  baseline: JSON.parse of the same profile text ${ms(tParse)}`);
  console.log(`  tools: ${tools.tools.length} tool definitions read from the core ${ms(tToolsRead)}; a second sample carrying them (profile since, ingest, their texts counted) ${ms(tTools)}`);
  if (n !== 10_000) { c.free(); continue; }
  // Refreshes after a one-op patch: the profile since the last serial (only changed rows carry text).
  const per = [], parses = [], counted = [], coreMs = [], ingestMs = [], reportMs = [];
  let calls = 0;
  const counting = new StateProfile({ countTokens: (s) => { calls++; return countTokens(s); }, tokenizer: TOKENIZER });
  counting.ingest({ at: 0, profile: JSON.parse(c.profileText(sub, 0)), tools, offered });
  while (!counting.countPending({ budgetMs: 8 }));
  for (let r = 0; r < REFRESHES; r++) {
    const i = (r * 7919) % 100;
    c.receive(JSON.stringify({ type: 'patch', subscription: sub, version: 2 + r, seq: 1 + r, ops: [{ op: 'replace', path: `/f0/m${i}/properties/subject`, value: `Refreshed ${r}` }] }), 0);
    c.drain();
    calls = 0;
    t = performance.now();
    const since = c.profileText(sub, counting.since);
    const t1 = performance.now();
    const parsed = JSON.parse(since);
    const t2 = performance.now();
    counting.ingest({ at: 1000 * (r + 1), profile: parsed });
    while (!counting.countPending({ budgetMs: 8 }));
    const t3 = performance.now();
    counting.report();
    const t4 = performance.now();
    per.push(t4 - t);
    coreMs.push(t1 - t);
    ingestMs.push(t3 - t2);
    reportMs.push(t4 - t3);
    t = performance.now();
    JSON.parse(since);
    parses.push(performance.now() - t);
    counted.push(calls);
  }
  console.log(`  refresh after a one-op patch (profile since the last serial, ingest, count, report): median ${ms(median(per))} `
    + `over ${REFRESHES}; texts counted per refresh: median ${median(counted)}; baseline JSON.parse of the same profile text: median ${ms(median(parses))}`);
  console.log(`    of which: the core's profile text ${ms(median(coreMs))}, ingest and count ${ms(median(ingestMs))}, report ${ms(median(reportMs))}; profile text ${kib(Buffer.byteLength(c.profileText(sub, counting.since)))}`);
  c.free();
}
