// small-tree-bench.mjs: µs per patch frame (1 op, then 10 ops), the wasm core through js-glue (receive + drain,
// as every consumer session runs it) beside a plain JavaScript consumer in the same process
// (JSON.parse of the frame, then its ops applied to a JS object tree with a linear child lookup, as
// a JS SDK's consumer does), on the same frames, at N = 100, 1k, 10k (and 100k) children. After
// each run both trees are compared: a mismatch is printed, never hidden.
//
// The contestants take turns on batches of 100 frames (core, previous build, plain JS, then the
// next batch), so a slow spell of the machine (a 2-core VM drifts by half between runs) falls on
// all of them alike; the times are per contestant, summed over its batches, median of the rounds.
// With SLOP_PREV=<dir of another checkout with its dist/ built> the core of that build runs as a
// third contestant on the same frames (issue 50: "measured in one sitting with the build before").
//
//   node tests/bench/small-tree-bench.mjs [--quick]
//   SLOP_PREV=/path/to/old-checkout node tests/bench/small-tree-bench.mjs

import { performance } from 'node:perf_hooks';
import { loadSlopCoreNode } from '../../js-glue/node/load-core.js';
import { item, makeFrames, snapshotText } from './patch-frames.mjs';
import { median } from './stats.mjs';

const quick = process.argv.includes('--quick');
const FRAMES = quick ? 3000 : 20000;
const ROUNDS = quick ? 3 : 7;
const SIZES = process.env.SIZES ? process.env.SIZES.split(",").map(Number) : quick ? [100, 1000, 10000] : [100, 1000, 10000, 100000];
const core = await loadSlopCoreNode();
const PREV = process.env.SLOP_PREV;
const prev = PREV ? await (await import(`${PREV}/js-glue/node/load-core.js`)).loadSlopCoreNode() : null;
const BATCH = 100;
const encoder = new TextEncoder(), decoder = new TextDecoder();
const HELLO = JSON.stringify({ type: 'hello', provider: { id: 'b', name: 'B', slop_version: '0.1', capabilities: ['state', 'patches', 'affordances', 'attention'] } });
const RESERVED = new Set(['properties', 'children', 'affordances', 'meta', 'content_ref']);
const unescape = (s) => s.replace(/~1/g, '/').replace(/~0/g, '~');

/** The plain JS consumer's apply: walk child ids with a linear lookup, then the field path. */
function applyOp(root, op) {
  const segs = op.path.split('/').slice(1).map(unescape);
  let node = root, i = 0;
  for (; i < segs.length - 1 && !RESERVED.has(segs[i]); i++) node = node.children.find((c) => c.id === segs[i]);
  if (!RESERVED.has(segs[i]) && i === segs.length - 1) {
    const kids = (node.children ??= []);
    const at = kids.findIndex((c) => c.id === segs[i]);
    if (op.op === 'remove') kids.splice(at, 1);
    else if (op.op === 'add') kids.splice(op.index ?? kids.length, 0, op.value);
    else kids[at] = op.value;
    return;
  }
  let obj = node;
  for (let k = i; k < segs.length - 1; k++) obj = (obj[segs[k]] ??= {});
  const key = segs[segs.length - 1];
  if (op.op === 'remove') delete obj[key];
  else obj[key] = op.value;
}

/** Key-sorted text, so two trees compare by content. */
const canon = (v) => JSON.stringify(v, (k, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().map((key) => [key, x[key]])) : x));

const treeOf = (n) => ({ id: 'root', type: 'root', children: [{ id: 'items', type: 'collection', children: Array.from({ length: n }, (_, i) => item(i, true)) }] });

// Warm-up: V8 runs wasm in its baseline compiler first and tiers hot functions up as they run, and
// the JS JIT does the same: both are brought to steady state (as in a worker that has been running)
// before anything is timed.
for (const n of [100, 1000]) {
  for (const k of prev ? [core, prev] : [core]) {
    const c = new k.SlopConsumer({ transport: 'ws', seed: 7 });
    const sub = c.subscribe({ path: '/', depth: -1 }, 0);
    c.receive(HELLO, 0);
    c.receive(snapshotText(sub, treeOf(n)), 0);
    const js = treeOf(n);
    for (const f of makeFrames(sub, n, 30000, 1, true, 1)) {
      c.receive(f, 0);
      c.drain();
      if (k === core) for (const op of JSON.parse(f).ops) applyOp(js, op);
    }
    c.free();
  }
}

/** A consumer of core k on the tree, its subscription id. @param {any} k @param {object} tree */
function consumerOn(k, tree) {
  const c = new k.SlopConsumer({ transport: 'ws', seed: 7 });
  const sub = c.subscribe({ path: '/', depth: -1 }, 0);
  c.receive(HELLO, 0);
  c.receive(snapshotText(sub, tree), 0);
  c.drain();
  return { c, sub };
}

/** One table: µs per frame of `ops` ops, core and plain JS, at each N. @param {number} ops */
function table(ops) {
  const frames = Math.max(300, Math.round(FRAMES / ops));
  console.log(`µs per ${ops}-op patch frame (${frames} frames, median of ${ROUNDS} rounds; mix: 70% replace, 10% add, 10% remove, 10% meta)`);
  console.log(`  N          core via js-glue   plain JS consumer   core / JS speed${prev ? '   previous build  prev / JS' : ''}   trees equal`);
  for (const n of SIZES) {
    const tree = treeOf(n);
    const coreTimes = [], prevTimes = [], jsTimes = [];
    let equal = true;
    for (let round = 0; round < ROUNDS; round++) {
      const { c, sub } = consumerOn(core, tree);
      const p = prev ? consumerOn(prev, tree) : null;
      // The same frames for every contestant: both cores chose the same subscription id (seed 7).
      // Flat strings, as a WebSocket hands them over (decoded from the bytes received): built by
      // concatenation they would be V8 cons strings, flattened by whichever contestant reads one
      // first, at its cost.
      const list = makeFrames(sub, n, frames, ops, true, 99 + n + round).map((f) => decoder.decode(encoder.encode(f)));
      const js = JSON.parse(JSON.stringify(tree));
      let tc = 0, tp = 0, tj = 0;
      for (let at = 0; at < list.length; at += BATCH) {
        const batch = list.slice(at, at + BATCH);
        let t0 = performance.now();
        for (const f of batch) {
          c.receive(f, 0);
          c.drain();
        }
        tc += performance.now() - t0;
        if (p) {
          t0 = performance.now();
          for (const f of batch) {
            p.c.receive(f, 0);
            p.c.drain();
          }
          tp += performance.now() - t0;
        }
        t0 = performance.now();
        for (const f of batch) {
          const msg = JSON.parse(f);
          if (msg.type === 'patch') for (const op of msg.ops) applyOp(js, op);
        }
        tj += performance.now() - t0;
      }
      coreTimes.push((tc * 1000) / frames);
      prevTimes.push((tp * 1000) / frames);
      jsTimes.push((tj * 1000) / frames);
      if (round === 0) equal = canon(c.tree(sub, '/')) === canon(js) && (!p || canon(p.c.tree(p.sub, '/')) === canon(js));
      c.free();
      p?.c.free();
    }
    const a = median(coreTimes), b = median(jsTimes), pr = median(prevTimes);
    const before = prev ? `   ${pr.toFixed(2).padStart(8)} µs  ${(b / pr).toFixed(2).padStart(6)}x` : '';
    console.log(`  ${String(n).padEnd(9)}  ${a.toFixed(2).padStart(10)} µs      ${b.toFixed(2).padStart(10)} µs       ${(b / a).toFixed(2).padStart(6)}x       ${before}   ${equal ? 'yes' : 'NO: the trees differ'}`);
  }
}

table(1);
table(10);
