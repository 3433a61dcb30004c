// core-bench.mjs: speed and memory of the wasm core, as the extension runs it
// (through js-glue, strings copied across the boundary, events drained).
//
//   node tests/bench/core-bench.mjs [--quick]
//
// Prints: patch-op throughput and per-op cost on collections of 100, 10,000
// and 100,000 children (a mix of replace/add/remove/move); snapshot ingest of
// about 1 MB and 20 MB next to JSON.parse of the same bytes in this process;
// the wasm size; wasm heap growth per mirrored node. A script, not a test:
// it asserts nothing about time.

import { stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { loadSlopCoreNode, WASM_URL } from '../../js-glue/node/load-core.js';
import { mulberry32 } from '../fixtures/provider/state.mjs';
import { median } from './stats.mjs';

const quick = process.argv.includes('--quick');
const core = await loadSlopCoreNode();

const HELLO = JSON.stringify({
  type: 'hello',
  provider: { id: 'bench', name: 'Bench', slop_version: '0.1', capabilities: ['state', 'patches', 'affordances', 'attention'] },
});


function item(i) {
  return { id: `i${i}`, type: 'item', properties: { title: `Item ${i}`, n: i, done: false } };
}

function connect(limits) {
  const c = new core.SlopConsumer({ transport: 'ws', seed: 7, limits });
  const sub = c.subscribe({ path: '/', depth: -1 }, 0);
  c.receive(HELLO, 0);
  c.drain();
  return { c, sub };
}

function snapshotFrame(sub, version, tree) {
  return `{"type":"snapshot","id":${JSON.stringify(sub)},"version":${version},"seq":0,"tree":${JSON.stringify(tree)}}`;
}

/** Patch frames with a replace/add/remove/move mix over a collection of n. */
function makePatches(sub, n, ops, opsPerPatch, seed) {
  const r = mulberry32(seed); // deterministic, so runs are comparable
  const ids = Array.from({ length: n }, (_, i) => `i${i}`);
  let next = n, count = n, seq = 0;
  const frames = [];
  for (let done = 0; done < ops; ) {
    const list = [];
    for (let k = 0; k < opsPerPatch && done < ops; k++, done++) {
      const x = r();
      const pick = () => Math.floor(r() * ids.length);
      if (x < 0.4) {
        list.push({ op: 'replace', path: `/items/${ids[pick()]}/properties/n`, value: done });
      } else if (x < 0.6) {
        const fresh = item(next++);
        const id = fresh.id;
        list.push({ op: 'add', path: `/items/${id}`, value: fresh, index: Math.floor(r() * (count + 1)) });
        ids.push(id);
        count++;
      } else if (x < 0.8 && count > 1) {
        const at = pick();
        list.push({ op: 'remove', path: `/items/${ids[at]}` });
        ids[at] = ids[ids.length - 1]; // generator order need not match the mirror's
        ids.pop();
        count--;
      } else {
        list.push({ op: 'move', path: `/items/${ids[pick()]}`, index: Math.floor(r() * count) });
      }
    }
    seq++;
    frames.push(`{"type":"patch","subscription":${JSON.stringify(sub)},"version":${seq + 1},"seq":${seq},"ops":${JSON.stringify(list)}}`);
  }
  return frames;
}


function fmt(n, digits = 2) { return n.toFixed(digits); }

// ---- patch ops ------------------------------------------------------------
console.log('Patch ops (mix: 40% replace property, 20% add at random index, 20% remove, 20% move; 10 ops per patch)');
console.log('  children   ops      total ms   ops/s       us/op');
const opsTotal = quick ? 20000 : 100000;
const perOp = {};
for (const n of [100, 10000, 100000]) {
  const { c, sub } = connect();
  c.receive(snapshotFrame(sub, 1, { id: 'root', type: 'root', children: [{ id: 'items', type: 'collection', children: Array.from({ length: n }, (_, i) => item(i)) }] }), 0);
  c.drain();
  const frames = makePatches(sub, n, opsTotal, 10, 1234 + n);
  // Warm-up on a copy so the JIT and allocator are in steady state.
  const t0 = performance.now();
  let events = 0;
  for (const f of frames) {
    c.receive(f, 0);
    events += c.drain().length;
  }
  const ms = performance.now() - t0;
  const status = c.status();
  if (events !== frames.length || status.subscriptions[0].state !== 'live') {
    console.log(`  !! ${n}: expected one patch event per frame and a live subscription, got ${events} events, state ${status.subscriptions[0].state}`);
  }
  perOp[n] = (ms * 1000) / opsTotal;
  console.log(`  ${String(n).padEnd(9)}  ${String(opsTotal).padEnd(7)}  ${fmt(ms, 1).padStart(8)}   ${String(Math.round(opsTotal / (ms / 1000))).padEnd(10)}  ${fmt(perOp[n], 3)}`);
  c.free();
}
console.log(`  per-op cost at 100k / at 100: ${fmt(perOp[100000] / perOp[100])}x (aim: within 2x)`);

// ---- snapshot ingest --------------------------------------------------------
function bigTree(targetBytes, seed) {
  const r = mulberry32(seed); // deterministic, so runs are comparable
  const groups = [];
  let bytes = 0, g = 0;
  while (bytes < targetBytes) {
    const children = [];
    for (let i = 0; i < 50; i++) {
      const node = {
        id: `g${g}-n${i}`, type: 'item',
        properties: { label: `Message ${g}.${i}`, from: 'someone@example.com', unread: r() < 0.5, size: Math.floor(r() * 1e6), tags: ['a', 'b'] },
        meta: { salience: Math.round(r() * 100) / 100 },
        affordances: [{ action: 'open' }, { action: 'archive', params: { type: 'object', properties: { reason: { type: 'string' } } } }],
      };
      children.push(node);
      bytes += 330;
    }
    groups.push({ id: `g${g}`, type: 'collection', properties: { label: `Group ${g}` }, children });
    g++;
  }
  return { id: 'root', type: 'root', children: groups };
}

console.log('\nSnapshot ingest (core: copy into wasm, validate, build the mirror from the text; JSON.parse: same bytes, same process)');
console.log('  size      nodes     JSON.parse ms  MB/s     core ms   MB/s     core/JSON.parse speed');
for (const target of quick ? [1e6] : [1e6, 20e6]) {
  const tree = bigTree(target, 99);
  const { c, sub } = connect();
  const frame = snapshotFrame(sub, 1, tree);
  const mb = Buffer.byteLength(frame) / 1e6;
  const runs = target > 5e6 ? 3 : 7;
  const jp = [], ci = [];
  let nodes = 0;
  for (let k = 0; k < runs; k++) {
    let t = performance.now();
    JSON.parse(frame);
    jp.push(performance.now() - t);
    t = performance.now();
    c.receive(frame, 0);
    const ev = c.drain();
    ci.push(performance.now() - t);
    nodes = ev.find((e) => e.kind === 'event' && e.event.event === 'snapshot')?.event.nodes ?? 0;
  }
  const j = median(jp), m = median(ci);
  console.log(`  ${fmt(mb, 1).padStart(5)} MB  ${String(nodes).padEnd(8)}  ${fmt(j, 1).padStart(12)}  ${fmt(mb / (j / 1000), 0).padStart(6)}  ${fmt(m, 1).padStart(8)}  ${fmt(mb / (m / 1000), 0).padStart(6)}   ${fmt(j / m)}x (aim: >= 0.5x)`);
  c.free();
}

// ---- conformance ----------------------------------------------------------------
// Frame rules cost a counter per frame (their findings only when a rule breaks: see callgrind in
// run.sh against the previous build); tree rules and the drift check walk the mirror on request.
{
  console.log('\nConformance on request (mail-like items with meta and affordances; JSON.parse of the same answer as the baseline)');
  console.log('  nodes     report ms   drift check ms   JSON.parse of the answer ms');
  const mailItem = (i) => ({ id: `m${i}`, type: 'item', properties: { from: `p${i % 97}@acme.example`, subject: `Subject ${i}`, unread: i % 3 === 0 },
    meta: { salience: (i % 10) / 10, summary: `Subject ${i}` },
    affordances: [{ action: 'open', idempotent: true }, { action: 'move', params: { type: 'object', properties: { folder: { type: 'string', enum: ['a', 'b'] } }, required: ['folder'] } }, { action: 'delete', dangerous: true }] });
  for (const n of quick ? [1000, 10000] : [1000, 10000, 100000]) {
    const tree = { id: 'root', type: 'root', children: [{ id: 'inbox', type: 'collection', children: Array.from({ length: n }, (_, i) => mailItem(i)) }] };
    const { c, sub } = connect({ maxNodes: 2 * n + 10 });
    c.receive(snapshotFrame(sub, 1, tree), 0);
    c.drain();
    const reports = [];
    for (let k = 0; k < 5; k++) {
      const t0 = performance.now();
      const r = c.conformance();
      reports.push(performance.now() - t0);
      if (r.findings.length) console.log(`  !! unexpected findings: ${JSON.stringify(r.findings.slice(0, 2))}`);
    }
    const answer = `{"type":"snapshot","id":"ID","version":1,"tree":${JSON.stringify(tree)}}`;
    const drifts = [], parses = [];
    for (let k = 0; k < 5; k++) {
      const id = c.checkDrift(sub, 0);
      c.drain();
      const frame = answer.replace('"ID"', JSON.stringify(id));
      const t0 = performance.now();
      c.receive(frame, 0);
      const ev = c.drain().find((o) => o.kind === 'event' && o.event.event === 'drift')?.event;
      drifts.push(performance.now() - t0);
      if (ev?.status !== 'same') console.log(`  !! drift check: ${JSON.stringify(ev).slice(0, 200)}`);
      const t1 = performance.now();
      JSON.parse(frame);
      parses.push(performance.now() - t1);
    }
    console.log(`  ${String(n).padEnd(8)}  ${fmt(median(reports), 1).padStart(9)}   ${fmt(median(drifts), 1).padStart(14)}   ${fmt(median(parses), 1).padStart(10)}`);
    c.free();
  }
}

// ---- size and memory ----------------------------------------------------------
// ---- the desktop bridge's relay ---------------------------------------------------
// What the worker adds per frame of a relayed in-page provider: the relay's inbound (scan the
// frame, take the prefix off the addressee, copy the rest as text) next to what a JS relay would
// do (JSON.parse, rewrite the id, JSON.stringify), on the same frames.
{
  console.log('\nDesktop bridge relay, per provider frame (median of 200; JS baseline: JSON.parse + id rewrite + JSON.stringify)');
  console.log('  frame                          bytes      relay us   JS baseline us   relay / JS');
  const relay = new core.SlopRelay('bench');
  const patch = JSON.stringify({ type: 'patch', subscription: 'bench~sub-1', version: 7, seq: 7, ops: [{ op: 'replace', path: '/inbox/m42/properties/unread', value: false }] });
  const foreign = patch.replace('bench~sub-1', 'k3x9q2ab-s1');
  const snap = (n) => JSON.stringify({ type: 'snapshot', id: 'bench~sub-1', version: 1, tree: { id: 'root', type: 'root', children: [{ id: 'inbox', type: 'collection', children: Array.from({ length: n }, (_, i) => item(i)) }] } });
  const jsRelay = (text) => {
    const m = JSON.parse(text);
    const key = m.type === 'patch' ? 'subscription' : 'id';
    if (typeof m[key] !== 'string' || !m[key].startsWith('bench~')) return null;
    m[key] = m[key].slice(6);
    return JSON.stringify(m);
  };
  for (const [name, frame] of [['patch (one op), ours', patch], ['patch, the extension\'s own', foreign], ['snapshot, 1,000 items', snap(1000)], ['snapshot, 10,000 items', snap(10000)]]) {
    const reps = frame.length > 100000 ? 20 : 200;
    const ours = [], js = [];
    for (let k = 0; k < reps; k++) {
      let t0 = performance.now();
      relay.inbound(frame);
      ours.push(performance.now() - t0);
      t0 = performance.now();
      jsRelay(frame);
      js.push(performance.now() - t0);
    }
    const a = median(ours) * 1000, b = median(js) * 1000;
    console.log(`  ${name.padEnd(30)} ${String(frame.length).padStart(9)}  ${fmt(a, 1).padStart(9)}  ${fmt(b, 1).padStart(14)}   ${fmt(a / b)}x`);
  }
  relay.free();
}

const wasmBytes = (await stat(WASM_URL)).size;
console.log(`\nwasm size: ${wasmBytes} bytes (${fmt(wasmBytes / 1024, 1)} KiB)`);

{
  // Heap bytes per node: wasm memory only grows, so load into a fresh module
  // and divide the growth by the node count (an upper bound: it includes
  // allocator slack and page rounding).
  const fresh = await loadSlopCoreNode();
  const heapBefore = fresh.heapBytes?.();
  const c = new fresh.SlopConsumer({ transport: 'ws', seed: 3 });
  const sub = c.subscribe({}, 0);
  c.receive(HELLO, 0);
  const n = 100000;
  c.receive(snapshotFrame(sub, 1, { id: 'root', type: 'root', children: [{ id: 'items', type: 'collection', children: Array.from({ length: n }, (_, i) => item(i)) }] }), 0);
  c.drain();
  // Free the parse garbage's pages back to the allocator, then measure what stays.
  const heapAfter = fresh.heapBytes?.();
  if (heapBefore === undefined || heapAfter === undefined) {
    console.log('heap bytes per node: (the wrapper exposes no heap size; see the native benchmark)');
  } else {
    console.log(`wasm heap growth for ${n} mirrored nodes (3 properties each): ${fmt((heapAfter - heapBefore) / n, 0)} bytes/node (upper bound: includes the peak of parsing the snapshot)`);
  }
  c.free();
}
