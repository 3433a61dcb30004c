// history-hold-bench.mjs: a viewed and a pinned step held for an hour of 100 patches a second
// (issue 45: "a viewed or pinned step survives an hour at 100 patches/s within the bound").
// A Timeline (extension/service-worker/timeline.js) driven as connections.js drives it, by the
// core from js-glue, with time fast-forwarded (a frame every 10 ms of the provider's clock, fed as
// fast as the machine goes; every 200 frames a task boundary lets the checkpoint slices run).
// Prints figures, asserts nothing on time.
//
//   node tests/bench/history-hold-bench.mjs [--minutes 60] [--items 50]
//
// Two runs: the default bound (1,000 steps, 64 MB: the steps bind), and no step bound with 8 MB
// (the memory binds). In each, panel 1 views a step after the first minute, panel 2 pins two
// (at 10 and 30 minutes); at the end: the bytes held against the bound (the most at any frame, and
// now), the steps kept, the islands and what they take, whether the three are still listed,
// and whether their states and diffs are the live consumer's (recorded when they were made).

import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { loadSlopCoreNode } from '../../js-glue/node/load-core.js';
import { Timeline, TIMELINE_LIMITS } from '../../extension/service-worker/timeline.js';
import { NO_STEP_BOUND } from '../../extension/service-worker/timeline-limits.js';
import { diffStates } from '../../extension/shared/state-diff.js';

const { values: args } = parseArgs({ options: { minutes: { type: 'string', default: '60' }, items: { type: 'string', default: '50' } } });
const FRAMES = Math.round(Number(args.minutes) * 60 * 100);
const ITEMS = Number(args.items);
const core = await loadSlopCoreNode();
const HELLO = JSON.stringify({ type: 'hello', provider: { id: 'bench', name: 'Bench', capabilities: ['state', 'patches', 'affordances', 'attention'] } });
const mb = (n) => `${(n / 1024 / 1024).toFixed(2)} MB`;

/** Every view of a live consumer's mirror (the reference a kept state is compared with). */
function liveViews(c, sub) {
  const out = new Map();
  const queue = [c.node(sub, '/')];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i];
    out.set(v.path, v);
    for (const id of v.child_ids) queue.push(c.node(sub, v.path === '/' ? `/${id}` : `${v.path}/${id}`));
  }
  return out;
}
const sorted = (m) => JSON.stringify([...m.entries()].map(([p, { exact: _e, ...v }]) => [p, v]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
const shape = (d) => JSON.stringify([d.added.map((v) => v.path), d.removed.map((v) => v.path), d.changed.map((x) => [x.path, x.diff.properties])]);

async function run(name, limits, body) {
  const c = new core.SlopConsumer({ transport: 'ws', seed: 1 });
  const sub = c.subscribe({ path: '/', depth: -1 }, 0);
  const tl = new Timeline({ core: () => core, label: { pageUrl: 'bench', transport: 'bench' }, limits });
  let t = 0;
  const feed = (text) => {
    tl.input(text, t);
    c.receive(text, t);
    for (const o of c.drain()) {
      if (o.kind !== 'event') continue;
      if (o.event.event === 'hello') tl.helloSeen(o.event.provider);
      tl.event(o.event, sub, () => c.status());
    }
  };
  feed(HELLO);
  const wire = c.status().subscriptions[0].wire;
  const tree = { id: 'root', type: 'root', children: [{ id: 'list', type: 'collection', properties: { count: ITEMS }, children: Array.from({ length: ITEMS }, (_, i) => ({ id: `m${i}`, type: 'item', properties: { n: 0, label: body(0) } })) }, { id: 'hot', type: 'status', properties: { n: 0 } }] };
  feed(JSON.stringify({ type: 'snapshot', id: wire, version: 1, seq: 0, tree }));
  const held = new Map(); // step → {views, before (views of the step before)}
  let before = liveViews(c, sub);
  // At 1, 10 and 30 minutes of an hour (the same fractions of a shorter run).
  const holdAt = { [Math.round(FRAMES / 60)]: 'view', [Math.round(FRAMES / 6)]: 'pinA', [Math.round(FRAMES / 2)]: 'pinB' };
  const marks = {};
  let maxBytes = 0;
  let overs = 0;
  const t0 = performance.now();
  for (let k = 1; k <= FRAMES; k++) {
    t = k * 10;
    const v = k + 1;
    const ops = k % 10 === 0 ? [{ op: 'replace', path: '/hot/properties/n', value: k }]
      : [{ op: 'replace', path: `/list/m${k % ITEMS}/properties/label`, value: body(k) }, { op: 'replace', path: '/list/properties/count', value: k }];
    feed(JSON.stringify({ type: 'patch', subscription: wire, version: v, seq: k, ops }));
    const role = holdAt[k];
    if (role) {
      const step = tl.steps.at(-1).step;
      const views = liveViews(c, sub);
      held.set(step, { views, before });
      marks[role] = step;
      tl.hold('panel 1', marks.view === undefined ? [] : [marks.view]);
      tl.hold('panel 2', [marks.pinA, marks.pinB].filter((x) => x !== undefined));
    }
    if (holdAt[k + 1]) before = liveViews(c, sub);
    if (tl.bytes > maxBytes) maxBytes = tl.bytes;
    if (tl.bytes > limits.bytes) overs++;
    if (k % 200 === 0) await new Promise((r) => setImmediate(r)); // a task boundary: slices run
  }
  const wall = performance.now() - t0;
  const listed = new Set(tl.listed().map((s) => s.step));
  const survive = Object.entries(marks).map(([role, step]) => {
    const h = held.get(step);
    const state = sorted(new Map(tl.stateAt(step).views.map((x) => [x.path, x]))) === sorted(h.views);
    const island = tl.islands.find((x) => x.step.step === step);
    const diff = island?.step.before === step - 1 ? shape(tl.diff(step - 1, step)) === shape(diffStates(h.before, h.views)) : null;
    return { role, step, listed: listed.has(step), state, diff };
  });
  const pair = shape(tl.diff(marks.pinA, marks.pinB)) === shape(diffStates(held.get(marks.pinA).views, held.get(marks.pinB).views));
  const info = tl.info();
  console.log(`\n${name}: ${FRAMES.toLocaleString('en-US')} patch frames (${args.minutes} min at 100/s), ${ITEMS} items, bound ${limits.steps === NO_STEP_BOUND ? 'no step bound' : `${limits.steps.toLocaleString('en-US')} steps`} / ${mb(limits.bytes)}`);
  console.log(`  bytes now ${mb(info.bytes)} (${info.bytes.toLocaleString('en-US')}), most at any frame ${mb(maxBytes)}, frames over the bound: ${overs}`);
  console.log(`  steps kept ${info.steps.toLocaleString('en-US')}, dropped ${info.dropped.toLocaleString('en-US')}, islands ${info.kept} taking ${(info.keptBytes / 1024).toFixed(1)} KB, checkpoints sliced ${info.checkpoints.sliced} / blocking ${info.checkpoints.blocking}`);
  for (const s of survive) console.log(`  ${s.role.padEnd(5)} step ${s.step}: listed ${s.listed ? 'yes' : 'NO'}, state ${s.state ? 'true' : 'WRONG'}, diff with the step before ${s.diff === null ? 'n/a' : s.diff ? 'true' : 'WRONG'}`);
  console.log(`  pinned pair diff ${pair ? 'true' : 'WRONG'}; wall ${(wall / 1000).toFixed(1)} s (${(wall * 1000 / FRAMES).toFixed(1)} µs a frame)`);
  tl.dispose();
  c.free();
}

await run('steps bind (the default bound)', TIMELINE_LIMITS, (k) => `label ${k}`);
await run('memory binds (no step bound, 8 MB)', { steps: NO_STEP_BOUND, bytes: 8 * 1024 * 1024 }, (k) => `label ${k} ${'x'.repeat(200)}`);
