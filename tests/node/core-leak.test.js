// Leak loop over the WASM build: 2,000 consumers created, fed a full session
// (hello, snapshot, patches, a resync, requests, malformed frames, views) and
// freed; the wasm heap must not keep growing.
//
// The wrapper exposes neither the module nor its memory, and this test adds
// nothing to it: it captures the instance emscripten creates by wrapping
// WebAssembly.instantiate in this test process only (node --test runs each file
// in its own process), then reads the exported `memory` and calls the exported
// malloc/free to find the top of the dlmalloc heap.

import { test } from 'node:test';
import assert from 'node:assert/strict';

let instance = null;
const realInstantiate = WebAssembly.instantiate;
WebAssembly.instantiate = async function (...args) {
  const r = await realInstantiate.apply(this, args);
  instance ??= r.instance ?? r;
  return r;
};
const { loadCore, HELLO_ALL, TODOS } = await import('./helpers.js');
const core = await loadCore();
WebAssembly.instantiate = realInstantiate;

const J = JSON.stringify;
const WIDE = { id: 'root', type: 'root', children: Array.from({ length: 40 }, (_, i) => ({ id: `n${i}`, type: 'item', properties: { title: `node ${i}`, tags: ['a', 'b'] } })) };

function session(i) {
  const c = new core.SlopConsumer({ transport: i % 2 ? 'ws' : 'postmessage', seed: i + 1 });
  const sub = c.subscribe({ path: '/', depth: -1 }, 0);
  c.query({ path: '/todos' }, 0);
  c.receive(J(HELLO_ALL), 1);
  c.receive(J({ type: 'snapshot', id: sub, version: 1, seq: 0, tree: i % 3 ? TODOS : WIDE }), 2);
  c.receive(J({ type: 'patch', subscription: sub, version: 2, seq: 1, ops: [
    { op: 'add', path: '/x', value: { id: 'x', type: 'item', properties: { deep: { list: [1, 2, 3] } } }, index: 0 },
    { op: 'add', path: '/x/properties/deep/list/-', value: 4 },
    { op: 'move', path: '/x', index: 99 },
  ] }), 3);
  // a failing patch: rollback + resync (unsubscribe, subscribe with a new id)
  c.receive(J({ type: 'patch', subscription: sub, version: 3, seq: 2, ops: [
    { op: 'remove', path: '/x' }, { op: 'remove', path: '/ghost' },
  ] }), 4);
  c.receive('{"type":"patch",', 5);
  c.receive('[' .repeat(200) + ']'.repeat(200), 5);
  if (i % 2) {
    c.invoke('/todos/t1', 'toggle', undefined, 6);
    try { c.invoke('/todos/t1', 'tag', { tags: [1] }, 6); } catch { /* E_PARAMS (TODOS) or E_NOT_FOUND (WIDE) */ }
  }
  c.status();
  c.tree(sub, '/', -1);
  c.treeText(sub);
  c.tools(sub, 'p', 32);
  c.resolveTool(sub, 't1__toggle');
  core.renderStateTail([c], 'now');
  core.validateParams({ type: 'object', required: ['a'] }, {});
  c.drain();
  if (i % 4 === 0) { c.tick(1e9); c.close(1e9); c.reset(1e9); c.receive(J(HELLO_ALL), 1e9); }
  c.drain();
  c.free();
}

/** Address where a big block lands: the top of the heap after everything freed coalesces. */
function heapTop() {
  const { malloc, free } = instance.exports;
  const p = malloc(256 * 1024);
  assert.ok(p);
  free(p);
  return p;
}

test('2,000 consumers created, fed and freed do not grow the wasm heap', () => {
  assert.ok(instance?.exports?.memory instanceof WebAssembly.Memory, 'could not capture the wasm instance');
  const mem = instance.exports.memory;
  for (let i = 0; i < 200; i++) session(i); // warm-up
  const bytes0 = mem.buffer.byteLength, top0 = heapTop();
  for (let i = 0; i < 2000; i++) session(i);
  const bytes1 = mem.buffer.byteLength, top1 = heapTop();
  assert.equal(bytes1, bytes0, `linear memory grew from ${bytes0} to ${bytes1} bytes`);
  assert.ok(top1 <= top0 + 4096, `heap top moved from ${top0} to ${top1}`);
});
