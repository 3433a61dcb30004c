// history-bound-bench.mjs: the history the worker keeps (extension/service-worker/timeline.js)
// against its bound and its cost per frame, driven as connections.js drives it (a script that
// prints figures; it never fails on time).
//
//   node tests/bench/history-bound-bench.mjs [--sizes 100,1000,...] [--patches N] [--big-bound MB]
//
// For a collection of N items (about 740 bytes each; 1M uses 90-byte items, as path-bench.mjs),
// one op per patch frame (path-bench's mix), each frame in a task of its own (the next one after a
// setTimeout 0, so that the history's checkpoint slices run between frames as they do in the
// worker). Per N, in one run:
//   without   µs per frame: the core's receive + drain (mean, median), and the worst frame in ms
//             (a garbage collection lands in some frame, with the history or without)
//   with      the same plus the history (timeline input + events): mean, median, and the worst
//             single frame's task
//   slice     the longest task the history ran between frames (a checkpoint written ahead; wall
//             time, and the process's CPU time in it, which other load does not inflate), and
//             how many of its tasks took over 10 ms (the first of a segment reads the snapshot
//             into the checkpoint writer's mirror in one task: the core cannot parse in parts)
//   bytes     what the history holds after the patches (its own count) against its bound
//   steps, dropped, checkpoints written ahead / inside a frame's task, and whether states are kept
// A last row runs the largest N under 100k again with a bound big enough to keep its states
// (--big-bound, 512 MB), so that the slices are measured on a tree that size too.

import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { loadSlopCoreNode } from '../../js-glue/node/load-core.js';
import { Timeline, TIMELINE_LIMITS } from '../../extension/service-worker/timeline.js';
import { item, makeFrames, snapshotText } from './patch-frames.mjs';
import { median } from './stats.mjs';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100,1000,10000,100000,1000000' },
    patches: { type: 'string', default: '10000' },
    'big-bound': { type: 'string', default: '512' },
  },
});
const SIZES = args.sizes.split(',').map(Number);
const PATCHES = Number(args.patches);
const BIG = Number(args['big-bound']) * 1024 * 1024;

const core = await loadSlopCoreNode();
const HELLO = JSON.stringify({ type: 'hello', slop_version: '0.1', provider: { id: 'bench', name: 'Bench', capabilities: ['state', 'patches', 'affordances', 'attention'] } });

// The history's own tasks (its slices use setTimeout): timed by wrapping the callbacks.
let sliceMax = 0;
let sliceCpuMax = 0; // the process's CPU time in the slice: what the slice cost, whatever else ran
let slices = 0;
let slicesOver = 0; // over 10 ms
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = (fn, ms, ...rest) => realSetTimeout(() => {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  fn(...rest);
  const dt = performance.now() - t0;
  const dc = process.cpuUsage(c0);
  slices++;
  if (dt > 10) slicesOver++;
  if (dt > sliceMax) sliceMax = dt;
  sliceCpuMax = Math.max(sliceCpuMax, (dc.user + dc.system) / 1000);
}, ms);
const nextTask = () => new Promise((r) => realSetTimeout(r, 0));

const mean = (xs) => xs.reduce((a, x) => a + x, 0) / xs.length;
const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const f1 = (n) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));

function consumer(snap) {
  const c = new core.SlopConsumer({ transport: 'ws', seed: 7, limits: { maxNodes: 4_000_000, maxFrameBytes: 1 << 30 } });
  const sub = c.subscribe({ path: '/', depth: -1 }, 0);
  c.receive(HELLO, 0);
  c.drain();
  return { c, sub, snap: snap.replace('"id":"SUB"', () => `"id":${JSON.stringify(sub)}`) };
}

async function run(n, limits) {
  const small = n >= 1_000_000;
  const tree = { id: 'root', type: 'root', children: [{ id: 'items', type: 'collection', children: Array.from({ length: n }, (_, i) => item(i, small)) }] };
  const snapText = snapshotText('SUB', tree);
  const frames = makeFrames('SUB', n, PATCHES, 1, small, 99 + n);
  const row = { n, text: snapText.length };

  // Without the history: the core alone, each frame in its own task as well.
  {
    const { c, sub, snap } = consumer(snapText);
    c.receive(snap, 0);
    c.drain();
    const per = [];
    for (const f of frames) {
      const text = f.replace('"subscription":"SUB"', () => `"subscription":${JSON.stringify(sub)}`);
      const t0 = performance.now();
      c.receive(text, 0);
      c.drain();
      per.push((performance.now() - t0) * 1000);
      await nextTask();
    }
    row.without = { mean: mean(per), median: median(per), worstMs: Math.max(...per) / 1000 };
    c.free();
  }
  // With it.
  {
    const { c, sub, snap } = consumer(snapText);
    const tl = new Timeline({ core: () => core, label: {}, limits });
    const feed = (text) => {
      tl.input(text, 0);
      c.receive(text, 0);
      for (const o of c.drain()) if (o.kind === 'event') tl.event(o.event, sub, () => c.status());
    };
    tl.input(HELLO, 0);
    tl.helloSeen({ id: 'bench', name: 'Bench' });
    const s0 = performance.now();
    feed(snap);
    row.snapshotMs = performance.now() - s0;
    sliceMax = 0;
    sliceCpuMax = 0;
    slices = 0;
    slicesOver = 0;
    const per = [];
    for (const f of frames) {
      const text = f.replace('"subscription":"SUB"', () => `"subscription":${JSON.stringify(sub)}`);
      const t0 = performance.now();
      feed(text);
      per.push((performance.now() - t0) * 1000);
      await nextTask();
    }
    // The last slices, if any are due.
    for (let k = 0; k < 50 && tl.job; k++) await nextTask();
    const info = tl.info();
    row.with = { mean: mean(per), median: median(per), worstMs: Math.max(...per) / 1000 };
    row.sliceMs = sliceMax;
    row.sliceCpuMs = sliceCpuMax;
    row.slices = slices;
    row.slicesOver = slicesOver;
    row.info = info;
    row.bound = limits.bytes;
    tl.dispose();
    c.free();
  }
  return row;
}

function print(r) {
  const i = r.info;
  console.log(`${String(r.n).padEnd(8)} ${mb(r.text).padStart(9)} ${mb(r.bound).padStart(9)} ${mb(i.bytes).padStart(9)} ${(i.bytes <= r.bound ? 'yes' : 'NO').padStart(6)} `
    + `${String(i.steps).padStart(6)} ${String(i.dropped).padStart(7)} ${String(i.checkpoints.sliced).padStart(6)} ${String(i.checkpoints.blocking).padStart(6)} ${(i.noStates ? 'no' : 'yes').padStart(6)} | `
    + `${f1(r.without.mean).padStart(6)} ${f1(r.without.median).padStart(6)} ${f1(r.without.worstMs).padStart(6)} | ${f1(r.with.mean).padStart(6)} ${f1(r.with.median).padStart(6)} ${f1(r.with.worstMs).padStart(7)} ${f1(r.sliceMs).padStart(7)} ${f1(r.sliceCpuMs).padStart(6)} ${String(r.slicesOver).padStart(5)}/${String(r.slices).padEnd(6)} ${f1(r.snapshotMs).padStart(8)}`);
}

console.log(`History against its bound, ${PATCHES.toLocaleString()} patches of one op, each frame its own task (bound: ${TIMELINE_LIMITS.steps} steps, ${mb(TIMELINE_LIMITS.bytes)})`);
console.log('                                             within                    ahead  in-    states | without µs, worst ms | with history µs, worst ms         slices          snapshot');
console.log('N             text     bound   history  bound  steps dropped  slices frame   kept | mean median  frame | mean median   frame   slice  (cpu) >10ms/all      task ms');
let biggestKept = null;
for (const n of SIZES) {
  const r = await run(n, TIMELINE_LIMITS);
  print(r);
  if (!r.info.noStates) biggestKept = n;
}
const again = SIZES.filter((n) => n > (biggestKept ?? 0) && n <= 100_000).at(-1);
if (again) {
  console.log(`${again} again with a ${mb(BIG)} bound (states kept):`);
  print(await run(again, { steps: TIMELINE_LIMITS.steps, bytes: BIG }));
}
console.log('aims: history within its bound at every N; no frame\'s task with history over 10 ms at 100k');
