// path-bench.mjs: the extension's whole patch path, frame text in to panel delta out, as the
// service worker runs it (a script that prints figures; it never fails on time).
//
//   node tests/bench/path-bench.mjs [--quick] [--sizes 100,1000,...] [--frames N]
//
// For a collection of N items (about 740 bytes each; 1M uses 90-byte items so the snapshot fits),
// patch frames are fed one at a time. The op mix is the one the issue measured: 70 % replace of
// a property, 10 % add (at a random index), 10 % remove, 10 % set of meta.salience; one op
// per frame and ten. Columns, µs per frame (median over batches of 100 frames):
//   baseline  JSON.parse of the frame + a plain JS apply on a JS object tree (children found by
//             a linear search, spliced in place): what a consumer written in JS without an index
//             does. Same frames, same process.
//   core      js-glue receive + drain (the core parses, checks, applies and prints the events)
//   +log      the same plus the worker's frame log entry (frame-log.js, with the type the core read)
//   +hist     +log plus the history the worker keeps (timeline.js: the frame recorded, a step per
//             patch, and, every tenth of the 1,000 steps kept, a checkpoint written by a replay)
//   +1/+3     the same plus, per watching panel, the delta (node-views.js patchDelta, views
//             shared between panels as panel-ports.js does) and JSON.stringify of the message
//             (what a Chrome runtime port costs the worker)
//   panel     the panel's own cost per frame: JSON.parse of the message and its store applying
//             it (in the panel process, not the worker), measured in a pass of its own
// Ratios printed: baseline/core (aim: core at most the baseline at 100; 20x faster at 10k; 300x
// at 100k) and +1/+log, +3/+log (aim: at most 1.5x). A final check: the panel store's child lists
// equal the core's after the run.

import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { loadSlopCoreNode } from '../../js-glue/node/load-core.js';
import { breadthFirstViews, patchDelta, KnownPaths } from '../../extension/service-worker/node-views.js';
import { logEntry } from '../../js-glue/frame-log.js';
import { Timeline } from '../../extension/service-worker/timeline.js';
import { Store } from '../../extension/panel/store.js';
import { Push, LIMITS } from '../../extension/shared/messages.js';
import { item, makeFrames, snapshotText } from './patch-frames.mjs';
import { median } from './stats.mjs';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    sizes: { type: 'string' },
    frames: { type: 'string' },
  },
});
const quick = args.quick;
const SIZES = (args.sizes ?? (quick ? '100,1000,10000,100000' : '100,1000,10000,100000,1000000')).split(',').map(Number);
const FRAMES = Number(args.frames ?? (quick ? 2000 : 6000));
const BATCH = 100;
const PANEL_VIEWS = 50_000; // what the panel loads at most (panel/mirror-fill.js MIRROR_MAX)

const core = await loadSlopCoreNode();
const HELLO = JSON.stringify({
  type: 'hello', slop_version: '0.1',
  provider: { id: 'bench', name: 'Bench', capabilities: ['state', 'patches', 'affordances', 'attention'] },
});


// ---- the baseline: JSON.parse + a plain JS apply -------------------------------------------
function baselineApply(tree, ops) {
  for (const op of ops) {
    const segs = op.path.split('/').slice(1);
    let node = tree;
    let i = 0;
    for (; i < segs.length; i++) {
      const seg = segs[i];
      if (seg === 'properties' || seg === 'meta') break;
      if (i === segs.length - 1) break;
      node = node.children.find((c) => c.id === seg);
    }
    if (i < segs.length && (segs[i] === 'properties' || segs[i] === 'meta')) {
      const obj = node[segs[i]] ??= {};
      obj[segs[i + 1]] = op.value;
    } else if (op.op === 'add') {
      node.children.splice(op.index ?? node.children.length, 0, op.value);
    } else if (op.op === 'remove') {
      const at = node.children.findIndex((c) => c.id === segs[segs.length - 1]);
      node.children.splice(at, 1);
    }
  }
}

const fmt = (n, d = 1) => (n >= 100 ? n.toFixed(0) : n.toFixed(d));

/**
 * Median µs per frame of step(frame) over batches of BATCH frames. step returns the ms it spent
 * on work that is not the worker's (the panel's store), taken off.
 */
let lastMean = 0; // µs per frame over all frames of the last timeFrames (its spikes included)
function timeFrames(frames, step) {
  const per = [];
  for (let b = 0; b < frames.length; b += BATCH) {
    const t0 = performance.now();
    const end = Math.min(b + BATCH, frames.length);
    let other = 0;
    for (let i = b; i < end; i++) other += step(frames[i]) ?? 0;
    per.push(((performance.now() - t0 - other) * 1000) / (end - b));
  }
  lastMean = per.reduce((a, x) => a + x, 0) / per.length;
  return median(per);
}

/** A consumer with the collection mirrored. */
function mirrored(snapText) {
  // The defaults (as the extension sets them) refuse a 1M-node mirror: raised here, as a user would.
  const c = new core.SlopConsumer({ transport: 'ws', seed: 7, limits: { maxNodes: 4_000_000, maxFrameBytes: 1 << 30 } });
  const sub = c.subscribe({ path: '/', depth: -1 }, 0);
  c.receive(HELLO, 0);
  c.drain();
  c.receive(snapText.replace('"id":"SUB"', `"id":${JSON.stringify(sub)}`), 0);
  c.drain();
  return { c, sub };
}

/** A watching panel as the worker holds it (known paths) and as the panel holds it (a store). */
function watcher(c, sub, withStore) {
  const { nodes } = breadthFirstViews(c, sub, '/', PANEL_VIEWS);
  const known = new KnownPaths(nodes.map((n) => n.path));
  let store = null;
  if (withStore) {
    store = new Store();
    store.applyBatch([structuredClone({ type: Push.TREE_RESET, key: 'k', sub, path: '/', version: 1, count: nodes.length, nodes, complete: true })]);
  }
  return { known, store };
}

function run(n, opsPerFrame) {
  const small = n >= 1_000_000;
  const tree = { id: 'root', type: 'root', children: [{ id: 'items', type: 'collection', children: Array.from({ length: n }, (_, i) => item(i, small)) }] };
  const snap = snapshotText('SUB', tree);
  const count = n >= 1_000_000 ? Math.min(FRAMES, 2000) : FRAMES;
  const frameCount = opsPerFrame === 1 ? count : Math.max(BATCH * 4, count / 10);
  const frames = makeFrames('SUB', n, frameCount, opsPerFrame, small, 99 + n);
  const out = {};

  // Baseline.
  {
    const t = JSON.parse(JSON.stringify(tree));
    out.baseline = timeFrames(frames, (f) => baselineApply(t, JSON.parse(f).ops));
  }
  // The worker's path with 0, 1 and 3 panels (a fresh mirror each time: same frames, same state),
  // then once more with one panel's store applying the deltas, for the panel's own cost. The
  // store runs in its own pass: in the extension it is another process, and its garbage (the
  // history keeps every version's views) must not be collected on the worker's clock here.
  for (const panels of [-1, 0, 'hist', 1, 3, 'store']) {
    const { c, sub } = mirrored(snap);
    const tl = panels === 'hist' ? new Timeline({ core: () => core, label: {} }) : null;
    if (tl) {
      // Its first step: the snapshot the mirror was built from (what the worker would have recorded).
      tl.input(snapshotText(sub, tree), 0);
      tl.event({ event: 'snapshot', sub, version: 1, nodes: n + 2 }, sub, () => c.status());
    }
    const fs = frames.map((f) => f.replace('"subscription":"SUB"', `"subscription":${JSON.stringify(sub)}`));
    const ws = panels === 'store' ? [watcher(c, sub, true)] : Array.from({ length: Math.max(panels, 0) }, () => watcher(c, sub, false));
    const log = [];
    let panelUs = 0;
    let bad = 0;
    let firstBad = '';
    const step = (f) => {
      let other = 0;
      tl?.input(f, 0);
      c.receive(f, 0);
      const outs = c.drain();
      if (tl) for (const o of outs) if (o.kind === 'event') tl.event(o.event, sub, () => c.status());
      if (panels !== -1) {
        log.push(logEntry('in', f, c.frameType()));
        if (log.length > LIMITS.LOG_ENTRIES) log.splice(0, log.length - LIMITS.LOG_ENTRIES);
      }
      for (const o of outs) {
        if (o.kind !== 'event' || o.event.event !== 'patch') { if (!bad++) firstBad = JSON.stringify(o.event ?? o.frame).slice(0, 300); continue; }
        const read = new Map();
        for (const w of ws) {
          const d = patchDelta(c, sub, o.event, w.known, read);
          // Chrome's runtime ports send JSON: the worker pays the stringify, the panel the parse.
          const text = JSON.stringify({ type: Push.TREE_DELTA, key: 'k', sub, version: o.event.version, ...d });
          if (w.store) {
            const t0 = performance.now();
            w.store.applyBatch([JSON.parse(text)]);
            const ms = performance.now() - t0;
            panelUs += ms * 1000;
            other += ms;
          }
        }
      }
      return other;
    };
    const us = timeFrames(fs, step);
    if (panels === 'store') {
      out.panel = panelUs / fs.length;
      out.equal = sameChildLists(c, sub, ws[0].store.tree('k', sub));
    } else {
      out[panels === 'hist' ? 'hist' : panels < 0 ? 'core' : panels === 0 ? 'log' : `p${panels}`] = us;
      if (panels === 0) out.logMean = lastMean;
      if (panels === 'hist') out.histMean = lastMean;
      if (tl) {
        // What one patch adds: its frame's text (kept for the replays) and its step (listed, with
        // the paths it touched), the step measured as JSON: a lower bound of its heap size.
        const kept = tl.frames.slice(1);
        const frameBytes = kept.reduce((a, f) => a + f.text.length, 0) / Math.max(1, kept.length);
        const last = tl.steps.at(-1);
        const stepBytes = JSON.stringify(last).length + JSON.stringify([...(tl.records.get(last.step).touched ?? [])]).length;
        out.histBytes = frameBytes + stepBytes;
        tl.dispose();
      }
    }
    if (bad) out.problem = `${bad} outputs were not patch events (state ${c.status().subscriptions[0].state}; first: ${firstBad})`;
    c.free();
  }
  return out;
}

/** The panel store's child lists equal the core's for every node the panel holds. */
function sameChildLists(c, sub, storeTree) {
  for (const [path, view] of storeTree.nodes) {
    const v = c.node(sub, path);
    if (!v) return `${path}: in the panel, not in the core`;
    if (v.child_ids.length !== view.child_ids.length || v.child_ids.some((id, i) => id !== view.child_ids[i])) return `${path}: child lists differ`;
  }
  return 'yes';
}

run(1000, 1); // warm-up: the JIT and the allocator in steady state before the first row
console.log(`Patch path, µs per frame (median of batches of ${BATCH}); ${FRAMES} frames per size (2000 at 1M)`);
console.log('  ops  N          baseline   core    +log   +hist    +1     +3   | panel | base/core  +1/+log  +3/+log  B/patch kept  hist µs (mean, checkpoints in)  panel = core');
for (const opsPerFrame of [1, 10]) {
  for (const n of SIZES) {
    const r = run(n, opsPerFrame);
    const cells = [r.baseline, r.core, r.log, r.hist, r.p1, r.p3].map((x) => fmt(x).padStart(6)).join('  ');
    console.log(`  ${String(opsPerFrame).padStart(3)}  ${String(n).padEnd(9)} ${cells} | ${fmt(r.panel).padStart(5)} | ${(r.baseline / r.core).toFixed(2).padStart(8)}x ${(r.p1 / r.log).toFixed(2).padStart(6)}x ${(r.p3 / r.log).toFixed(2).padStart(7)}x  ${fmt(r.histBytes).padStart(10)}  ${fmt(r.histMean - r.logMean).padStart(6)}  ${r.equal}${r.problem ? `  !! ${r.problem}` : ''}`);
  }
}
console.log('  aims (one op per frame): core <= baseline at 100, >= 20x faster at 10k, >= 300x at 100k; +1 and +3 <= 1.5x +log at every N');
