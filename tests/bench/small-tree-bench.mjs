// small-tree-bench.mjs: µs per patch frame (1 op, then 10 ops), the wasm core through js-glue (receive + drain,
// as every consumer session runs it) beside a plain JavaScript consumer in the same process
// (JSON.parse of the frame, then its ops applied to a JS object tree with a linear child lookup, as
// a JS SDK's consumer does), on the same frames, at N = 100, 1k, 10k (and 100k) children. After
// each run both trees are compared: a mismatch is printed, never hidden.
//
//   node tests/bench/small-tree-bench.mjs [--quick]

import { performance } from 'node:perf_hooks';
import { loadSlopCoreNode } from '../../js-glue/node/load-core.js';
import { item, makeFrames, snapshotText } from './patch-frames.mjs';
import { median } from './stats.mjs';

const quick = process.argv.includes('--quick');
const FRAMES = quick ? 3000 : 20000;
const ROUNDS = quick ? 3 : 7;
const SIZES = process.env.SIZES ? process.env.SIZES.split(",").map(Number) : quick ? [100, 1000, 10000] : [100, 1000, 10000, 100000];
const core = await loadSlopCoreNode();
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
  const c = new core.SlopConsumer({ transport: 'ws', seed: 7 });
  const sub = c.subscribe({ path: '/', depth: -1 }, 0);
  c.receive(HELLO, 0);
  c.receive(snapshotText(sub, treeOf(n)), 0);
  const js = treeOf(n);
  for (const f of makeFrames(sub, n, 30000, 1, true, 1)) {
    c.receive(f, 0);
    c.drain();
    for (const op of JSON.parse(f).ops) applyOp(js, op);
  }
  c.free();
}

/** One table: µs per frame of `ops` ops, core and plain JS, at each N. @param {number} ops */
function table(ops) {
  const frames = Math.max(300, Math.round(FRAMES / ops));
  console.log(`µs per ${ops}-op patch frame (${frames} frames, median of ${ROUNDS} rounds; mix: 70% replace, 10% add, 10% remove, 10% meta)`);
  console.log('  N          core via js-glue   plain JS consumer   core / JS speed   trees equal');
  for (const n of SIZES) {
    const tree = treeOf(n);
    const coreTimes = [], jsTimes = [];
    let equal = true;
    for (let round = 0; round < ROUNDS; round++) {
      const c = new core.SlopConsumer({ transport: 'ws', seed: 7 });
      const sub = c.subscribe({ path: '/', depth: -1 }, 0);
      c.receive(HELLO, 0);
      c.receive(snapshotText(sub, tree), 0);
      c.drain();
      const list = makeFrames(sub, n, frames, ops, true, 99 + n + round);
      let t0 = performance.now();
      for (const f of list) {
        c.receive(f, 0);
        c.drain();
      }
      coreTimes.push(((performance.now() - t0) * 1000) / frames);

      const js = JSON.parse(JSON.stringify(tree));
      t0 = performance.now();
      for (const f of list) {
        const msg = JSON.parse(f);
        if (msg.type === 'patch') for (const op of msg.ops) applyOp(js, op);
      }
      jsTimes.push(((performance.now() - t0) * 1000) / frames);
      if (round === 0) equal = canon(c.tree(sub, '/')) === canon(js);
      c.free();
    }
    const a = median(coreTimes), b = median(jsTimes);
    console.log(`  ${String(n).padEnd(9)}  ${a.toFixed(2).padStart(10)} µs      ${b.toFixed(2).padStart(10)} µs       ${(b / a).toFixed(2).padStart(6)}x          ${equal ? 'yes' : 'NO: the trees differ'}`);
  }
}

table(1);
table(10);
