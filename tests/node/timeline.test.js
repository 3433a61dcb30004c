// timeline.test.js: the service worker's history of a provider (extension/service-worker/timeline.js)
// against the real core: steps as frames come in, the state at any step rebuilt by a replay
// consumer (whole, or only what differs from a state the panel holds), diffs between any two steps,
// the bounds with a checkpoint, and recordings exported and read back, hostile ones refused.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore, HELLO_ALL } from './helpers.js';
import { Timeline, TIMELINE_LIMITS, RECORDING_FORMAT } from '../../extension/service-worker/timeline.js';
import { diffStates } from '../../extension/shared/state-diff.js';
import { PATHS_LISTED } from '../../extension/service-worker/timeline-limits.js';

const core = await loadCore();
const getCore = () => core;

/** A live consumer and its timeline, fed as connections.js feeds them. */
function session(limits = TIMELINE_LIMITS) {
  const c = new core.SlopConsumer({ transport: 'ws', seed: 7 });
  const sub = c.subscribe({ path: '/', depth: -1 }, 0);
  const tl = new Timeline({ core: getCore, label: { pageUrl: 'http://app.test/', transport: 'ws://app.test/slop' }, limits });
  const pushed = [];
  tl.listeners.add((steps, reset) => pushed.push({ n: steps.length, reset }));
  const wire = () => c.status().subscriptions[0].wire;
  const feed = (frame, t = 1000) => {
    const text = typeof frame === 'string' ? frame : JSON.stringify(frame);
    tl.input(text, t);
    c.receive(text, t);
    for (const o of c.drain()) {
      if (o.kind !== 'event') continue;
      if (o.event.event === 'hello') tl.helloSeen(o.event.provider);
      tl.event(o.event, sub, () => c.status());
    }
  };
  return { c, sub, tl, feed, wire, pushed };
}

const item = (i, extra = {}) => ({ id: `m${i}`, type: 'item', properties: { n: i, label: `Item ${i}` }, ...extra });
const tree = (n) => ({ id: 'root', type: 'root', children: [{ id: 'list', type: 'collection', properties: { count: n }, children: Array.from({ length: n }, (_, i) => item(i)) }] });

function start(n = 5, limits = TIMELINE_LIMITS) {
  const s = session(limits);
  s.feed(HELLO_ALL);
  s.feed({ type: 'snapshot', id: s.wire(), version: 1, seq: 0, tree: tree(n) });
  return s;
}

const patch = (s, version, seq, ops) => s.feed({ type: 'patch', subscription: s.wire(), version, seq, ops });
const views = (r) => new Map(r.views.map((v) => [v.path, v]));

test('every snapshot, patch, invoke, result and error is a step with its version, op count and paths', () => {
  const s = start();
  patch(s, 2, 1, [{ op: 'replace', path: '/list/m1/properties/n', value: 0.30000000000000004 }]);
  s.tl.invoked('/list/m2', 'delete');
  patch(s, 3, 2, [{ op: 'remove', path: '/list/m2' }, { op: 'replace', path: '/list/properties/count', value: 4 }]);
  s.feed({ type: 'patch', subscription: s.wire(), version: 4, seq: 9, ops: [] }); // a gap: resync
  assert.deepEqual(s.tl.steps.map((x) => [x.kind, x.version]), [['snapshot', 1], ['patch', 2], ['invoke', 2], ['patch', 3]]);
  const p = s.tl.steps[3];
  assert.equal(p.ops, 2);
  assert.deepEqual(p.paths.sort(), ['/list', '/list/m2']);
  assert.equal(s.tl.steps[0].ops, 7, 'a snapshot counts its nodes');
  // The resync's snapshot is a step of its own kind, in a new segment (a new id on the wire).
  s.feed({ type: 'snapshot', id: s.wire(), version: 5, seq: 0, tree: tree(3) });
  assert.equal(s.tl.steps.at(-1).kind, 'resync');
  assert.equal(s.tl.segments.length, 2);
  s.feed('{"type":"patch"'); // not JSON: a protocol error step
  assert.equal(s.tl.steps.at(-1).kind, 'error');
});

test('the state at any step is the core\'s, whole or as what differs from a step the panel shows', () => {
  const s = start();
  patch(s, 2, 1, [{ op: 'replace', path: '/list/m1/properties/n', value: 0.30000000000000004 }]);
  patch(s, 3, 2, [{ op: 'add', path: '/list/children/m9', value: item(9, { children: [{ id: 'x', type: 'leaf' }] }) }]);
  patch(s, 4, 3, [{ op: 'remove', path: '/list/m0' }]);
  const [s1, s2, s3, s4] = s.tl.steps.map((x) => x.step);

  const at1 = views(s.tl.stateAt(s1));
  assert.equal(at1.get('/list/m1').properties.n, 1);
  assert.ok(at1.has('/list/m0') && !at1.has('/list/m9'));
  const at4 = s.tl.stateAt(s4);
  assert.equal(at4.full, true);
  // The live mirror and the rebuilt state agree on every node.
  // A view may carry its own text (`exact`, node-views.js): the same view otherwise.
  for (const { exact: _e, ...v } of at4.views) assert.deepEqual(v, s.c.node(s.sub, v.path), v.path);
  assert.equal(at4.views.length, s.c.status().nodes);

  // Backwards from 4 to 2: only what differs; m0 comes back whole, m9 (and its child) go.
  const back = s.tl.stateAt(s2, s4);
  assert.equal(back.full, false);
  assert.deepEqual(new Set(back.removed), new Set(['/list/m9', '/list/m9/x']));
  assert.ok(back.replaced.includes('/list/m0'));
  assert.ok(back.views.some((v) => v.path === '/list/m0'));
  assert.ok(back.views.length <= 4, `only what differs: ${back.views.map((v) => v.path)}`);
  // Applying it to the views at 4 gives exactly the views at 2.
  const held = views(at4);
  for (const p of [...back.removed, ...back.replaced]) for (const k of [...held.keys()]) if (k === p || k.startsWith(`${p}/`)) held.delete(k);
  for (const v of back.views) held.set(v.path, v);
  assert.deepEqual([...held.entries()].sort(), [...views(s.tl.stateAt(s2)).entries()].sort());

  // Forwards again from 2 to 3.
  const fwd = s.tl.stateAt(s3, s2);
  assert.deepEqual(fwd.replaced, ['/list/m9']);
  assert.ok(views(fwd).has('/list/m9/x'));
});

test('a diff between any two steps names what was added, removed and changed, with both values', () => {
  const s = start();
  patch(s, 2, 1, [{ op: 'replace', path: '/list/m1/properties/n', value: 10 }]);
  patch(s, 3, 2, [{ op: 'add', path: '/list/children/m9', value: item(9) }, { op: 'remove', path: '/list/m4' }]);
  const [s1, s2, s3] = s.tl.steps.map((x) => x.step);
  const step = s.tl.diff(s2, s3); // the step against the one before it
  assert.deepEqual(step.added.map((v) => v.path), ['/list/m9']);
  assert.deepEqual(step.removed.map((v) => v.path), ['/list/m4']);
  assert.deepEqual(step.changed.map((c) => c.path), ['/list']);
  assert.deepEqual(step.changed[0].diff.children, { added: ['m9'], removed: ['m4'], reordered: false });
  const pinned = s.tl.diff(s1, s3); // a pinned pair
  assert.deepEqual(pinned.changed.map((c) => c.path), ['/list', '/list/m1']);
  assert.deepEqual(pinned.changed[1].diff.properties, [{ key: 'n', before: 1, after: 10 }]);
  const reversed = s.tl.diff(s3, s1);
  assert.deepEqual(reversed.added.map((v) => v.path), ['/list/m4']);
  assert.throws(() => s.tl.diff(s1, 999), /no longer in the history/);
});

test('a provider restart is a boundary in the same history', () => {
  const s = start();
  patch(s, 2, 1, [{ op: 'replace', path: '/list/m1/properties/n', value: 10 }]);
  s.c.close(2000);
  s.c.reset(2000);
  s.c.drain();
  s.feed(HELLO_ALL);
  s.feed({ type: 'snapshot', id: s.wire(), version: 1, seq: 0, tree: tree(2) });
  const last = s.tl.steps.at(-1);
  assert.deepEqual(last.boundary, { kind: 'restart', previousVersion: 2 });
  const d = s.tl.diff(s.tl.steps[1].step, last.step);
  assert.equal(d.boundaries.length, 1);
  assert.deepEqual(d.removed.map((v) => v.path).sort(), ['/list/m2', '/list/m3', '/list/m4']);
});

test('bounded by steps: the oldest go, the first kept state comes from a checkpoint, the rest still replays', () => {
  const s = start(3);
  const total = TIMELINE_LIMITS.steps + 50;
  for (let v = 2; v <= total; v++) patch(s, v, v - 1, [{ op: 'replace', path: '/list/m0/properties/n', value: v }]);
  assert.ok(s.tl.steps.length <= TIMELINE_LIMITS.steps);
  assert.ok(s.tl.dropped > 0);
  assert.ok(s.pushed.some((p) => p.reset), 'the panels hear of the drop');
  const first = s.tl.steps[0];
  assert.equal(s.tl.segments[0].start.checkpoint, true);
  assert.equal(views(s.tl.stateAt(first.step)).get('/list/m0').properties.n, first.version);
  const last = s.tl.steps.at(-1);
  assert.equal(views(s.tl.stateAt(last.step)).get('/list/m0').properties.n, total);
  assert.ok(s.tl.frames[0].i > 1, 'frames before the checkpoint were let go');
});

test('a recording reads back into a timeline with the same steps and states; hostile ones are refused', () => {
  const s = start();
  patch(s, 2, 1, [{ op: 'replace', path: '/list/m1/properties/n', value: 1e-7 }]);
  s.tl.invoked('/list/m1', 'open');
  const rec = JSON.parse(JSON.stringify(s.tl.recording()));
  assert.equal(rec.format, RECORDING_FORMAT);
  assert.deepEqual(rec.provider, { id: 'app', name: 'App' });
  const back = Timeline.fromRecording(rec, getCore);
  assert.deepEqual(back.steps.map((x) => [x.step, x.kind, x.version]), s.tl.steps.map((x) => [x.step, x.kind, x.version]));
  for (const st of s.tl.steps) assert.deepEqual(back.stateAt(st.step).views, s.tl.stateAt(st.step).views);

  const refuse = (doc, re) => assert.throws(() => Timeline.fromRecording(doc, getCore), re);
  refuse(null, /no "format"/);
  refuse({ ...rec, format: 'slop-inspector-export' }, /no "format"/);
  refuse({ ...rec, formatVersion: 2 }, /format version 2/);
  refuse({ ...rec, frames: 'x' }, /must be arrays/);
  refuse({ ...rec, frames: [{ i: 1, t: 0, text: 'a' }, { i: 1, t: 0, text: 'b' }] }, /increasing integer "i"/);
  refuse({ ...rec, steps: [{ ...rec.steps[0], kind: 'explode' }] }, /known "kind"/);
  refuse({ ...rec, steps: [{ ...rec.steps[0], record: { seg: 5, frame: 0 } }] }, /segment the recording does not hold/);
  refuse({ ...rec, segments: [{ ...rec.segments[0], start: { frame: 1, text: '{"type":"snapshot","id":"x","version":1,"tree":{"id":"root"}}' } }] }, /segment 1/);
  refuse({ ...rec, segments: [{ ...rec.segments[0], start: { frame: 1, text: rec.segments[0].start.text.replace('"tree"', '"tree":1,"tree"') } }] }, /segment 1/);
  refuse({ ...rec, segments: [{ ...rec.segments[0], hello: '{"type":"hello","provider":{"id":"x","capabilities":["patches"]}}' }] }, /segment 1/);
});

/** A core whose replay consumers count what they are made and fed (the timeline makes them all). */
function countingCore() {
  const n = { made: 0, frames: 0 };
  class Counting extends core.SlopConsumer {
    constructor(o) { super(o); n.made++; }
    receive(text, t) { n.frames++; return super.receive(text, t); }
  }
  const c = Object.create(core);
  c.SlopConsumer = Counting;
  return { n, get: () => c };
}

/** A session with varied patches: labels, a counter, items (with a child) added and removed. */
function busy(tlCore, n = 20) {
  const s = session();
  s.tl.core = tlCore;
  s.feed(HELLO_ALL);
  s.feed({ type: 'snapshot', id: s.wire(), version: 1, seq: 0, tree: tree(n) });
  let seed = 99;
  const rnd = (k) => ((seed = (seed * 1103515245 + 12345) >>> 0) % k);
  const live = Array.from({ length: n }, (_, i) => i);
  let next = n;
  s.version = 1;
  s.more = (count) => {
    for (let k = 0; k < count; k++) {
      const v = ++s.version;
      const pick = rnd(4);
      let ops;
      if (pick === 0 || live.length < 3) {
        const i = next++;
        live.push(i);
        ops = [{ op: 'add', path: `/list/children/m${i}`, value: item(i, { children: [{ id: 'x', type: 'leaf', properties: { v } }] }) }];
      } else if (pick === 1) ops = [{ op: 'remove', path: `/list/m${live.splice(rnd(live.length), 1)[0]}` }];
      else ops = [{ op: 'replace', path: `/list/m${live[rnd(live.length)]}/properties/label`, value: `v${v}` }, { op: 'replace', path: '/list/properties/count', value: v }];
      patch(s, v, v - 1, ops);
    }
  };
  return s;
}

/** What a panel holds after applying a state answer to what it held (history-pane.js does the same). */
function apply(held, r) {
  const nodes = r.full || !held ? new Map() : new Map(held);
  for (const p of [...r.removed, ...r.replaced]) for (const k of [...nodes.keys()]) if (k === p || k.startsWith(`${p}/`)) nodes.delete(k);
  for (const v of r.views) nodes.set(v.path, v);
  return nodes;
}

const sorted = (m) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

test('going back and forth between steps gives exactly the states and diffs of a fresh replay, across dropped quarters', () => {
  const s = busy(getCore);
  const fresh = () => Timeline.fromRecording(s.tl.recording(), getCore);
  let checks = 0;
  const look = (moves) => {
    // A panel on live clicks a step, steps back and forth, jumps; each answer is checked against a
    // timeline that replays from scratch (no reader, no kept pair).
    const ref = fresh();
    let have = s.tl.steps.at(-1).step;
    let held = views(s.tl.stateAt(have));
    for (const to of moves(s.tl.steps.map((x) => x.step))) {
      held = apply(held, s.tl.stateAt(to, have));
      have = to;
      assert.deepEqual(sorted(held), sorted(views(ref.stateAt(to))), `state at ${to}`);
      const i = s.tl.steps.findIndex((x) => x.step === to);
      if (i > 0) assert.deepEqual(s.tl.diff(s.tl.steps[i - 1].step, to), ref.diff(s.tl.steps[i - 1].step, to), `diff at ${to}`);
      checks++;
    }
  };
  for (let round = 0; round < 8; round++) {
    s.more(170);
    // The live diff a panel follows moves a reader to the newest step meanwhile.
    const last = s.tl.steps.at(-1).step;
    s.tl.diff(last - 1, last);
    look((st) => {
      const n = st.length;
      const back = Array.from({ length: 12 }, (_, k) => st[n - 6 - k]);
      return [st[n - 5], ...back, st[n - 15], st[n - 10], st[Math.floor(n / 2)], st[Math.floor(n / 2) - 1], st[1], st[0], st[n - 2]];
    });
  }
  assert.ok(s.tl.dropped >= 2 * Math.floor(TIMELINE_LIMITS.steps / 4), `quarters dropped: ${s.tl.dropped}`);
  assert.ok(checks >= 8 * 20);
  // Whatever the readers and pairs hold is counted, and goes with the steps it belongs to.
  const size = s.tl.frames.reduce((n, f) => n + f.text.length, 0) + s.tl.segments.reduce((n, sg) => n + (sg?.start.checkpoint ? sg.start.length : 0), 0);
  assert.ok(s.tl.bytes > size, 'the readers and the pairs kept count in the bytes');
  assert.ok(s.tl.pairs.every((p) => s.tl.records.has(p.lo) && s.tl.records.has(p.hi)));
  s.tl.clear();
  assert.equal(s.tl.bytes, 0);
  assert.equal(s.tl.cursors.length, 0);
});

test('a step\'s diff, and stepping back from it, replay no frame; a panel\'s reads never move the checkpoints\' consumer', () => {
  const counting = countingCore();
  const s = busy(counting.get);
  s.more(TIMELINE_LIMITS.steps + 10); // one quarter dropped: the checkpoints' consumer is made
  const last = () => s.tl.steps.at(-1).step;
  s.tl.diff(last() - 1, last()); // the live diff
  const st = s.tl.steps.map((x) => x.step);
  const S = st.at(-6);
  s.tl.stateAt(S, last());
  const { made, frames } = counting.n;
  // The step's diff with the one before, then back one step at a time.
  s.tl.diff(st.at(-7), S);
  for (let k = 1; k <= 20; k++) {
    s.tl.stateAt(st.at(-6 - k), st.at(-5 - k));
    s.tl.diff(st.at(-7 - k), st.at(-6 - k));
  }
  assert.deepEqual(counting.n, { made, frames }, 'no consumer made, no frame replayed');
  // The next quarter's checkpoint moves the consumer that printed the last one forward: not one
  // that a panel's read left at the newest step.
  s.more(TIMELINE_LIMITS.steps - s.tl.steps.length + 1);
  const before = counting.n.made;
  s.tl.diff(last() - 1, last());
  s.more(1);
  assert.ok(s.tl.dropped > TIMELINE_LIMITS.steps / 4);
  assert.equal(counting.n.made, before, 'the drop made no new replay consumer');
});

/** Every view of a consumer's mirror (the reference a step's state is checked against). */
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

/** What the history holds, counted from its parts: what its bytes must equal. */
function counted(tl) {
  let n = 0;
  for (const f of tl.frames) n += f.text.length;
  for (const sg of tl.segments) if (sg?.start.checkpoint) n += sg.start.length;
  for (const r of tl.records.values()) n += r.bytes;
  for (const c of tl.cursors) n += c.bytes;
  for (const p of tl.pairs) n += p.bytes;
  if (tl.ready) n += tl.ready.length;
  for (const x of tl.islands ?? []) n += x.bytes;
  return n;
}

const tick = () => new Promise((r) => setTimeout(r, 0));

test('the bound holds, counting everything; checkpoints are written ahead in slices between frames, and a step from before a dropped quarter still rebuilds exactly', async () => {
  const limits = { steps: 200, bytes: 256 * 1024 };
  const s = start(40, limits);
  const expected = new Map(); // step → the live consumer's whole state right after it
  let v = 1;
  const blockingBefore = s.tl.blocking;
  for (let k = 0; k < 700; k++) {
    v++;
    const ops = k % 5 === 0
      ? [{ op: 'add', path: `/list/children/m${1000 + k}`, value: item(1000 + k) }]
      : [{ op: 'replace', path: `/list/m${k % 40}/properties/label`, value: `label ${k} ${'x'.repeat(k % 300)}` }];
    patch(s, v, v - 1, ops);
    if (k % 3 === 0) expected.set(s.tl.steps.at(-1).step, liveViews(s.c, s.sub));
    assert.ok(s.tl.bytes <= limits.bytes, `bytes ${s.tl.bytes} within ${limits.bytes} after frame ${k}`);
    assert.ok(s.tl.steps.length <= limits.steps);
    assert.equal(s.tl.bytes, counted(s.tl), 'bytes are what the parts add up to');
    await tick(); // the provider's next frame comes in a later task: slices run in between
    // The panel looks at a step now and then (a reader and pairs, counted too).
    if (k % 97 === 50) s.tl.stateAt(s.tl.steps[Math.floor(s.tl.steps.length / 2)].step);
  }
  const info = s.tl.info();
  assert.ok(info.dropped > 400, `dropped ${info.dropped}`);
  assert.ok(info.checkpoints.sliced >= 2, `checkpoints written ahead: ${info.checkpoints.sliced}`);
  assert.equal(s.tl.blocking - blockingBefore, 0, 'no checkpoint was written inside a frame\'s task');
  // The oldest kept steps replay from a checkpoint written before their quarter was dropped.
  assert.ok(s.tl.segments[s.tl.records.get(s.tl.steps[0].step).seg].start.checkpoint);
  let checked = 0;
  for (const st of s.tl.steps) {
    const want = expected.get(st.step);
    if (!want) continue;
    assert.deepEqual(sorted(views(s.tl.stateAt(st.step))), sorted(want), `state at step ${st.step}`);
    checked++;
  }
  assert.ok(checked > 40, `steps checked: ${checked}`);
  assert.equal(s.tl.bytes, counted(s.tl));
});

test('a tree too big for the bound keeps its steps but no states, says why, and stays within the bound; a smaller snapshot keeps states again', () => {
  const limits = { steps: 1000, bytes: 64 * 1024 };
  const s = start(200, limits); // about 12 KB of text: three copies of it are more than half of 64 KB
  assert.match(s.tl.info().noStates, /state is .* MB as text/);
  for (let v = 2; v < 150; v++) patch(s, v, v - 1, [{ op: 'replace', path: `/list/m${v % 200}/properties/label`, value: 'y'.repeat(200) }]);
  assert.equal(s.tl.steps.length, 149, 'every step is listed');
  for (let v = 150; v < 600; v++) patch(s, v, v - 1, [{ op: 'replace', path: `/list/m${v % 200}/properties/label`, value: 'y'.repeat(200) }]);
  assert.ok(s.tl.dropped > 0, 'the steps alone are bounded too');
  assert.ok(s.tl.bytes <= limits.bytes, `${s.tl.bytes} bytes`);
  assert.equal(s.tl.bytes, counted(s.tl));
  assert.ok(s.tl.frames.length <= 1 && s.tl.cursors.length === 0);
  assert.throws(() => s.tl.stateAt(s.tl.steps[5].step), (e) => e.code === 'not_kept' && /keeps no state/.test(e.message));
  assert.throws(() => s.tl.recording(), (e) => e.code === 'not_kept');
  // A resync with a small tree: states again from its snapshot on.
  s.feed({ type: 'patch', subscription: s.wire(), version: 700, seq: 999, ops: [] });
  s.feed({ type: 'snapshot', id: s.wire(), version: 700, seq: 0, tree: tree(3) });
  patch(s, 701, 1, [{ op: 'replace', path: '/list/m1/properties/n', value: 7 }]);
  assert.equal(s.tl.info().noStates, null);
  const last = s.tl.steps.at(-1).step;
  assert.equal(views(s.tl.stateAt(last)).get('/list/m1').properties.n, 7);
  assert.throws(() => s.tl.stateAt(s.tl.steps[5].step), (e) => e.code === 'not_kept');
});

test('a resync the provider never answers: the steps after it show the last good state, across dropped quarters', () => {
  const limits = { steps: 60, bytes: 1024 * 1024 };
  const s = start(10, limits);
  const expected = new Map();
  const keep = () => expected.set(s.tl.steps.at(-1).step, liveViews(s.c, s.sub));
  for (let v = 2; v < 40; v++) { patch(s, v, v - 1, [{ op: 'replace', path: `/list/m${v % 10}/properties/n`, value: v }]); keep(); }
  // A patch the core refuses (the value's id does not match its path): resync, last good state kept.
  patch(s, 40, 39, [{ op: 'add', path: '/list/children/x1', value: item(99) }]);
  // The provider goes on patching the old subscription; nothing applies until a snapshot.
  for (let v = 41; v < 200; v++) { patch(s, v, v - 1, [{ op: 'replace', path: '/list/m1/properties/n', value: `${-v} ${'x'.repeat(20_000)}` }]); keep(); }
  assert.ok(s.tl.dropped > 100, `dropped ${s.tl.dropped}`);
  // Those frames are not kept: a provider that never answers cannot grow the history.
  assert.ok(s.tl.bytes < 100 * 1024, `${s.tl.bytes} bytes`);
  assert.equal(s.tl.bytes, counted(s.tl));
  let checked = 0;
  for (const st of s.tl.steps) {
    const want = expected.get(st.step);
    if (!want) continue;
    assert.deepEqual(sorted(views(s.tl.stateAt(st.step))), sorted(want), `state at step ${st.step} (${st.kind})`);
    checked++;
  }
  assert.ok(checked > 20, `checked ${checked}`);
});

test('a lower bound set in Options applies at once: the oldest steps go, and what is held stays counted', () => {
  const s = start(20);
  for (let v = 2; v < 300; v++) patch(s, v, v - 1, [{ op: 'replace', path: `/list/m${v % 20}/properties/label`, value: 'z'.repeat(500) }]);
  const pushed = s.pushed.length;
  const before = s.tl.bytes;
  assert.ok(before > 100 * 1024);
  s.tl.setLimits({ steps: 1000, bytes: 100 * 1024 });
  assert.ok(s.tl.bytes <= 100 * 1024, `${s.tl.bytes}`);
  assert.ok(s.tl.dropped > 0);
  assert.equal(s.tl.bytes, counted(s.tl));
  assert.equal(s.tl.info().limits.bytes, 100 * 1024);
  assert.ok(s.pushed.length > pushed, 'the panels hear of it');
  // The oldest kept step still rebuilds.
  const first = s.tl.steps[0].step;
  assert.ok(views(s.tl.stateAt(first)).get('/list'));
});

// ------------------------------------------------------------------ held steps, pause, filter

/** The live consumer's state as the core's checkpoint (what timelines.js pauseTimeline gives resume). */
const liveAt = (s) => () => {
  const st = s.c.status().subscriptions.find((x) => x.sub === s.sub);
  return { text: s.c.checkpoint(s.sub), wire: st.wire, options: st.options, version: st.version, nodes: st.nodes };
};

/** A diff's paths and field changes, to compare with diffStates of the reference states. */
const diffShape = (d) => ({
  added: d.added.map((v) => v.path), removed: d.removed.map((v) => v.path),
  changed: d.changed.map((c) => [c.path, c.diff.properties.map((f) => [f.key, f.before, f.after]), c.diff.children]),
});

test('a viewed and two pinned steps survive many drops at the bound as islands, within the bytes bound, with their true states and diffs; released, they go at the next drop', () => {
  const limits = { steps: 120, bytes: 400 * 1024 };
  const s = start(30, limits);
  const expected = new Map(); // step → the live consumer's whole state right after it (a replay of the same frames)
  let v = 1;
  const more = (count) => {
    for (let k = 0; k < count; k++) {
      v++;
      const ops = v % 7 === 0
        ? [{ op: 'add', path: `/list/children/n${v}`, value: item(v, { id: `n${v}`, children: [{ id: 'x', type: 'leaf', properties: { v } }] }) }]
        : v % 11 === 0 ? [{ op: 'remove', path: `/list/n${v - 4}` }]
          : [{ op: 'replace', path: `/list/m${v % 30}/properties/label`, value: `label ${v}` }, { op: 'replace', path: '/list/properties/count', value: v }];
      patch(s, v, v - 1, ops);
      expected.set(s.tl.steps.at(-1).step, liveViews(s.c, s.sub));
      assert.ok(s.tl.bytes <= limits.bytes, `bytes ${s.tl.bytes} within ${limits.bytes}`);
      assert.equal(s.tl.bytes, counted(s.tl));
    }
  };
  more(100);
  // Panel 1 views a step; panel 2 pins two (A, B), one right after the other.
  const [viewed, a, b] = [s.tl.steps[40].step, s.tl.steps[60].step, s.tl.steps[61].step];
  s.tl.hold('port 1', [viewed]);
  s.tl.hold('port 2', [a, b]);
  const dropsBefore = s.tl.dropped;
  more(2000);
  assert.ok(s.tl.dropped - dropsBefore > 1500, `dropped ${s.tl.dropped - dropsBefore}`);
  const listed = s.tl.listed().map((x) => x.step);
  for (const x of [viewed, a, b]) assert.ok(listed.includes(x), `step ${x} still listed`);
  assert.ok(listed.length <= limits.steps + 3);
  assert.deepEqual(s.tl.islands.map((x) => x.step.step), [viewed, a, b]);
  assert.ok(s.tl.listed().slice(0, 3).every((x) => x.kept));
  // Their states are the true ones, whole.
  for (const x of [viewed, a, b]) {
    const r = s.tl.stateAt(x, s.tl.steps.at(-1).step);
    assert.equal(r.full, true);
    assert.deepEqual(sorted(views(r)), sorted(expected.get(x)), `state at ${x}`);
  }
  // A step's diff (against the step before it, kept with it), and the pinned pair's.
  const island = s.tl.islands[0];
  assert.equal(island.step.before, viewed - 1);
  assert.deepEqual(diffShape(s.tl.diff(viewed - 1, viewed)), diffShape(diffStates(expected.get(viewed - 1), expected.get(viewed))));
  assert.deepEqual(diffShape(s.tl.diff(a, b)), diffShape(diffStates(expected.get(a), expected.get(b))));
  // B's step before is A itself, an island too.
  assert.equal(s.tl.islands[2].step.before, a);
  assert.deepEqual(diffShape(s.tl.diff(a, b)), diffShape(s.tl.diff(s.tl.islands[2].step.before, b)));
  // An island against a kept step (a pinned pair across the gap), and a kept step's state.
  const newest = s.tl.steps.at(-1).step;
  assert.deepEqual(diffShape(s.tl.diff(viewed, newest)), diffShape(diffStates(expected.get(viewed), expected.get(newest))));
  assert.deepEqual(sorted(views(s.tl.stateAt(newest, viewed))), sorted(expected.get(newest)));
  // Released (panel 1 went back to live, panel 2's port closed): they go at the next drop.
  s.tl.hold('port 1', []);
  s.tl.hold('port 2', []);
  assert.equal(s.tl.islands.length, 3, 'kept until the next drop');
  more(limits.steps);
  assert.equal(s.tl.islands.length, 0);
  assert.ok(!s.tl.listed().some((x) => [viewed, a, b].includes(x.step)));
  assert.equal(s.tl.bytes, counted(s.tl));
  assert.throws(() => s.tl.stateAt(viewed), (e) => e.code === 'not_found');
});

test('a step no panel holds is still dropped, and a held step the bytes bound has no room for goes as before', () => {
  const limits = { steps: 100, bytes: 64 * 1024 };
  const s = start(5, limits);
  for (let v = 2; v < 60; v++) patch(s, v, v - 1, [{ op: 'replace', path: '/list/m1/properties/n', value: v }]);
  const held = s.tl.steps[10].step;
  const free = s.tl.steps[11].step;
  s.tl.hold('p', [held]);
  for (let v = 60; v < 400; v++) patch(s, v, v - 1, [{ op: 'replace', path: '/list/m1/properties/n', value: v }]);
  assert.ok(s.tl.listed().some((x) => x.step === held));
  assert.ok(!s.tl.listed().some((x) => x.step === free));
  // A tree whose whole state is more than the islands' share of the bound: not kept.
  const big = start(5, { steps: 40, bytes: 64 * 1024 });
  big.tl.hold('p', [big.tl.steps[0].step]);
  big.tl.limits = { steps: 40, bytes: 2 * 1024 }; // too small for any island (set directly: the test's own bound)
  for (let v = 2; v < 120; v++) patch(big, v, v - 1, [{ op: 'replace', path: '/list/m1/properties/n', value: v }]);
  assert.equal(big.tl.islands.length, 0, 'an island over its share of the bound is not kept');
});

test('pause records no step and keeps no frame; resume starts from the live mirror with a step that says what was missed, and every state across the gap is true', () => {
  const limits = { steps: 80, bytes: 1024 * 1024 };
  const s = start(10, limits);
  const expected = new Map();
  let v = 1;
  const more = (count) => {
    for (let k = 0; k < count; k++) {
      v++;
      const ops = v % 5 === 0 ? [{ op: 'add', path: `/list/children/n${v}`, value: item(v, { id: `n${v}` }) }]
        : [{ op: 'replace', path: `/list/m${v % 10}/properties/n`, value: v }];
      patch(s, v, v - 1, ops);
      if (!s.tl.paused) expected.set(s.tl.steps.at(-1).step, liveViews(s.c, s.sub));
    }
  };
  more(30);
  const beforePause = s.tl.steps.at(-1).step;
  const frames = s.tl.frames.length;
  const bytes = s.tl.bytes;
  s.tl.pause();
  assert.ok(s.tl.info().paused);
  more(50);
  s.tl.invoked('/list/m1', 'open');
  assert.equal(s.tl.steps.at(-1).step, beforePause, 'no step while paused');
  assert.equal(s.tl.frames.length, frames, 'no frame kept while paused');
  assert.equal(s.tl.bytes, bytes);
  assert.equal(s.tl.info().paused.patches, 50);
  s.tl.resume(liveAt(s));
  const resumed = s.tl.steps.at(-1);
  assert.equal(resumed.kind, 'snapshot');
  assert.deepEqual(resumed.resumed, { notRecorded: 50 });
  assert.equal(resumed.message, 'recording resumed; 50 patches not recorded');
  assert.equal(resumed.version, 81);
  expected.set(resumed.step, liveViews(s.c, s.sub));
  more(20);
  const check = () => {
    let n = 0;
    for (const st of s.tl.steps) {
      const want = expected.get(st.step);
      if (!want) continue;
      assert.deepEqual(sorted(views(s.tl.stateAt(st.step))), sorted(want), `state at ${st.step}`);
      n++;
    }
    return n;
  };
  assert.ok(check() > 40);
  // The resume step's diff is the whole gap, the core's own reading of both sides.
  assert.deepEqual(diffShape(s.tl.diff(beforePause, resumed.step)), diffShape(diffStates(expected.get(beforePause), expected.get(resumed.step))));
  // Across drops at the bound (the steps before the pause go, a checkpoint replaces them).
  more(200);
  assert.ok(s.tl.dropped > 100);
  assert.ok(check() >= 70);
  assert.equal(s.tl.bytes, counted(s.tl));
  // A recording of it reads back with the same states (the resume's checkpoint is its segment's start).
  const back = Timeline.fromRecording(JSON.parse(JSON.stringify(s.tl.recording())), getCore);
  for (const st of s.tl.steps.slice(-25)) assert.deepEqual(back.stateAt(st.step).views, s.tl.stateAt(st.step).views);
  // Without a live state to start from it stays paused.
  s.tl.pause();
  assert.throws(() => s.tl.resume(() => null), (e) => e.code === 'not_live');
  assert.ok(s.tl.paused);
});

test('the step filter is exact: by path prefix on every path a step touched (not only those it lists), and by kind', () => {
  const s = start(30);
  patch(s, 2, 1, [{ op: 'replace', path: '/list/m1/properties/n', value: 2 }]);
  patch(s, 3, 2, [{ op: 'replace', path: '/list/m10/properties/n', value: 3 }]);
  // More paths than a step lists: the one filtered for is not among those listed.
  const many = Array.from({ length: PATHS_LISTED + 8 }, (_, i) => ({ op: 'replace', path: `/list/m${i + 2}/properties/n`, value: 4 }));
  patch(s, 4, 3, many);
  s.tl.invoked('/list/m1', 'open');
  patch(s, 5, 4, [{ op: 'remove', path: '/list/m3' }]);
  patch(s, 6, 5, [{ op: 'replace', path: '/list/properties/count', value: 29 }]);
  const [snap, p2, p3, p4, inv, p5, p6] = s.tl.steps.map((x) => x.step);
  const last = `/list/m${PATHS_LISTED + 9}`;
  assert.ok(!s.tl.steps[3].paths.includes(last) && s.tl.steps[3].pathCount === PATHS_LISTED + 8);
  const m = (f) => s.tl.matching(f);
  assert.deepEqual(m({ path: last }), [snap, p4]);
  assert.deepEqual(m({ path: '/list/m1' }), [snap, p2, inv], '/list/m1 is not a prefix of /list/m10');
  assert.deepEqual(m({ path: '/list/m1/' }), [snap, p2, inv]);
  // Paths are nodes': a change to /list/m3 is not one below it; its removal is.
  assert.deepEqual(m({ path: '/list/m3/x' }), [snap, p5], 'a removed subtree holds the path');
  assert.deepEqual(m({ path: '/list/m3' }), [snap, p4, p5]);
  assert.deepEqual(m({ path: '/list', kinds: ['patch'] }), [p2, p3, p4, p5, p6]);
  assert.deepEqual(m({ kinds: ['invoke', 'snapshot'] }), [snap, inv]);
  assert.deepEqual(m({ path: '/' }), [snap, p2, p3, p4, inv, p5, p6]);
  assert.deepEqual(m({ path: '/nothing' }), [snap]);
  assert.deepEqual(m({ path: '/list/m1', kinds: ['patch'] }), [p2]);
});
