// The public header says what the core does: its usage example compiles and runs, and every event
// the core emits (each of its members) and every status field is documented in it. A new event,
// member or field without a line in wasm/include/slop_core.h fails here.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Live, HELLO_ALL, TODOS } from './helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HEADER = fs.readFileSync(path.join(ROOT, 'wasm/include/slop_core.h'), 'utf8');

/** The header's text between the first line containing `from` and the next containing `to`. */
function section(from, to) {
  const a = HEADER.indexOf(from);
  assert.ok(a >= 0, `the header has "${from}"`);
  const b = HEADER.indexOf(to, a + from.length);
  assert.ok(b > a, `the header has "${to}" after "${from}"`);
  return HEADER.slice(a, b);
}

test('the usage example at the top of the header compiles and runs', () => {
  const lines = HEADER.split('\n');
  const first = lines.findIndex((l) => l.includes('slop_consumer *c = slop_consumer_new('));
  const last = lines.findIndex((l, i) => i > first && l.includes('slop_consumer_free(c);'));
  assert.ok(first > 0 && last > first, 'the example is in the header');
  const example = lines.slice(first, last + 1).map((l) => l.replace(/^ \* {5}/, '')).join('\n');
  // The caller's side the example names: a transport that delivers a hello, then the snapshot
  // answering the subscribe the example sent, and a clock.
  const program = `#include <stdio.h>
#include <string.h>
#include "slop_core.h"
static const uint64_t seed = 42;
static double clock_ms = 1000;
static double now_ms(void) { return clock_ms += 10; }
static char sub_id[64], frame_buf[512];
static int step, sent, events, snapshots;
static void transport_send(const char *f, size_t n) {
    const char *id = strstr(f, "\\"id\\":\\"");
    if (strstr(f, "\\"type\\":\\"subscribe\\"") && id) sscanf(id + 6, "%63[^\\"]", sub_id);
    sent++;
    (void)n;
}
static void show_event(const char *e, size_t n) {
    events++;
    if (strstr(e, "\\"event\\":\\"snapshot\\"")) snapshots++;
    printf("%.*s\\n", (int)n, e);
}
static int transport_read(const char **f, size_t *len) {
    if (step == 0) *f = "{\\"type\\":\\"hello\\",\\"provider\\":{\\"id\\":\\"p\\",\\"name\\":\\"P\\",\\"capabilities\\":[\\"state\\"]}}";
    else if (step == 1) {
        snprintf(frame_buf, sizeof frame_buf, "{\\"type\\":\\"snapshot\\",\\"id\\":\\"%s\\",\\"version\\":1,\\"seq\\":0,"
                 "\\"tree\\":{\\"id\\":\\"root\\",\\"type\\":\\"root\\"}}", sub_id);
        *f = frame_buf;
    } else return 0;
    step++;
    *len = strlen(*f);
    return 1;
}
int main(void) {
${example}
    printf("sent=%d events=%d snapshots=%d\\n", sent, events, snapshots);
    return sent == 1 && snapshots == 1 ? 0 : 1;
}
`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slop-header-'));
  try {
    const src = path.join(dir, 'example.c');
    const bin = path.join(dir, 'example');
    fs.writeFileSync(src, program);
    execFileSync('gcc', ['-std=c11', '-D_POSIX_C_SOURCE=200809L', '-Wall', '-Wextra', '-Werror',
      '-fsanitize=address,undefined', `-I${path.join(ROOT, 'wasm/include')}`, src,
      path.join(ROOT, 'build/native/libslopcore.a'), '-lm', '-o', bin], { stdio: 'pipe' });
    const out = execFileSync(bin, { encoding: 'utf8', env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=1' } });
    assert.match(out, /"event":"hello"/);
    assert.match(out, /"event":"snapshot"/);
    assert.match(out, /sent=1 events=2 snapshots=1/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Every event the scenario below makes the core emit, by name: the union of their members. */
async function emittedEvents() {
  const seen = new Map();
  const note = (outs) => {
    for (const o of outs) {
      if (o.kind !== 'event') continue;
      const keys = seen.get(o.event.event) ?? new Set();
      for (const k of Object.keys(o.event)) keys.add(k);
      seen.set(o.event.event, keys);
    }
  };
  const l = await Live.start();
  const wide = { ...TODOS, children: [{ id: 'big', type: 'collection', meta: { total_children: 9 }, children: [] }] };
  const bigOps = Array.from({ length: 600 }, (_, i) => ({ op: 'add', path: `/todos/n${i}`, value: { id: `n${i}`, type: 'item' } }));
  l.patch(2, 1, bigOps); // truncated change lists
  l.patch(3, 5, []); // a seq gap: resync
  l.rewire(1);
  l.snapshot(4, TODOS);
  const inv = l.c.invoke('/todos/t1', 'toggle', undefined, 1000);
  l.drain();
  l.feed({ type: 'result', id: inv, status: 'ok', data: { done: true } });
  const inv2 = l.c.invoke('/todos/t1', 'toggle', undefined, 1000);
  l.drain();
  l.feed({ type: 'result', id: inv2, status: 'accepted', data: { taskId: 'k1' } });
  l.patch(5, 1, [{ op: 'add', path: '/tasks', value: { id: 'tasks', type: 'collection', children: [{ id: 'k1', type: 'task', properties: { status: 'running', progress: 0.5, message: 'half' } }] } }]);
  l.patch(6, 2, [{ op: 'remove', path: '/tasks/k1' }]);
  const drift = l.c.checkDrift(l.sub, 1000);
  l.drain();
  l.feed({ type: 'snapshot', id: drift, version: 6, tree: TODOS }); // differs: the mirror has /tasks
  const drift2 = l.c.checkDrift(l.sub, 1000);
  l.drain();
  for (const v of [7, 8, 9]) l.feed({ type: 'snapshot', id: drift2, version: v, tree: TODOS }); // inconclusive
  const q = l.c.query({ path: '/', depth: 1, window: [0, 5] }, 1000);
  l.drain();
  l.feed({ type: 'snapshot', id: q, version: 5, tree: wide });
  l.feed({ type: 'event', name: 'toast', data: { text: 'hi' } });
  l.feed({ type: 'error', error: { code: 'internal', message: 'no' } });
  const q2 = l.c.query({ path: '/' }, 1000);
  l.drain();
  l.feed({ type: 'error', id: q2, error: { code: 'not_found', message: 'no' } });
  l.feed({ type: 'error', id: l.wire, error: { code: 'internal', message: 'down' } });
  l.feed('{"type":');
  l.c.query({ path: '/' }, 1000);
  l.c.tick(1000 + 60_000);
  l.c.query({ path: '/' }, 70_000);
  l.c.close(70_000);
  l.c.reset(70_000);
  l.feed({ type: 'hello', provider: { ...HELLO_ALL.provider, id: 'other' } });
  note(l.c.drain());
  note(l.outs);
  l.free();
  return seen;
}

test('every event the core emits, and each of its members, is declared in the contract\'s table', async () => {
  const seen = await emittedEvents();
  // The table's events as the build wrote them for TypeScript (core-contract.d.ts): name → members.
  const dts = fs.readFileSync(path.join(ROOT, 'js-glue/core-contract.d.ts'), 'utf8');
  const declared = new Map();
  for (const [, body] of dts.matchAll(/export interface \w+Event \{\n([\s\S]*?)\n\}/g)) {
    const name = /^ {2}event: '([a-z_]+)';/m.exec(body)?.[1];
    assert.ok(name, `an event interface names its event: ${body.slice(0, 60)}`);
    declared.set(name, new Set([...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1])));
  }
  const { CoreEventName } = await import('../../js-glue/core-contract.js');
  assert.deepEqual([...declared.keys()].sort(), Object.values(CoreEventName).sort(), 'an interface per event of the table');
  // The scenario reaches every event of the table, and each emitted member is declared.
  assert.deepEqual([...seen.keys()].sort(), [...declared.keys()].sort(), 'the scenario reaches every event of the table');
  for (const [name, keys] of seen) {
    for (const k of keys) assert.ok(declared.get(name).has(k), `member "${k}" of event "${name}" is in SLOP_EVENTS`);
  }
});

test('every status field the core reports is documented in the header', async () => {
  const doc = section('The provider and connection state as JSON', 'slop_consumer_status(');
  const l = await Live.start();
  l.patch(2, 7, []); // resyncing: reason and retry fields present
  const st = l.status();
  const doc2 = new Live(l.core, { transport: 'document' });
  doc2.c.load(JSON.stringify(TODOS));
  const states = new Set([st.subscriptions[0].state, doc2.status().subscriptions[0].state, 'live', 'waiting', 'stale', 'failed']);
  for (const k of Object.keys(st)) assert.ok(doc.includes(`"${k}"`), `status field "${k}" is documented`);
  for (const k of Object.keys(st.subscriptions[0])) assert.ok(doc.includes(`"${k}"`), `subscription field "${k}" is documented`);
  for (const s of states) assert.ok(doc.includes(`"${s}"`), `state "${s}" is documented`);
  l.free();
  doc2.free();
});

test('no README link or comment points outside the repository', () => {
  const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n')
    .filter((f) => /\.(c|h|js|mjs|md|sh|html|css|json)$|Makefile$/.test(f) && !f.startsWith('tests/fuzz/') && f !== 'package-lock.json');
  const outside = /shared\/(spec|notes|DESIGN)|\bnotes\/[a-z-]+\.md|\bnotes (section|items?) \d|spec\/slop-[a-z-]+\.txt/;
  const hits = [];
  for (const f of files) {
    const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
    text.split('\n').forEach((line, i) => {
      if (outside.test(line)) hits.push(`${f}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(hits, []);
});

test('the glue\'s default limits are the header\'s SLOP_DEFAULT_* values', async () => {
  const { DEFAULT_LIMITS } = await import('../../js-glue/slop-core.js');
  const define = (name) => {
    const m = new RegExp(`#define\\s+${name}\\s+\\(?([0-9u *]+)\\)?`).exec(HEADER);
    assert.ok(m, `${name} is defined in slop_core.h`);
    return m[1].replace(/u/g, '').split('*').reduce((a, b) => a * Number(b.trim()), 1);
  };
  assert.deepEqual({ ...DEFAULT_LIMITS }, {
    maxFrameBytes: define('SLOP_DEFAULT_MAX_FRAME_BYTES'),
    maxJsonDepth: define('SLOP_DEFAULT_MAX_JSON_DEPTH'),
    maxNodes: define('SLOP_DEFAULT_MAX_NODES'),
    requestTimeoutMs: define('SLOP_DEFAULT_TIMEOUT_MS'),
    maxPending: define('SLOP_DEFAULT_MAX_PENDING'),
  });
});
