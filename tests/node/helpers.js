// helpers.js: shared harness of the tests/node/core-*.test.js files. They drive
// the WASM build (dist/slop_core.wasm) through the JS wrapper only, frame by
// frame, mirroring the native tests in tests/c/test_consumer.c.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadSlopCoreNode, SlopError, SlopCode } from '../../js-glue/node/load-core.js';

export { SlopError, SlopCode };

let corePromise = null;
/** The wasm core, loaded once per test process. */
export function loadCore() {
  corePromise ??= loadSlopCoreNode();
  return corePromise;
}

export const DEFAULT_TIMEOUT_MS = 30000; // SLOP_DEFAULT_TIMEOUT_MS

export const HELLO_ALL = {
  type: 'hello',
  provider: {
    id: 'app', name: 'App', slop_version: '0.1',
    capabilities: ['state', 'patches', 'affordances', 'attention', 'windowing', 'async', 'content_refs'],
  },
};

export const hello = (id, name, capabilities) => ({ type: 'hello', provider: { id, name, capabilities } });

export const TODOS = {
  id: 'root', type: 'root', children: [{
    id: 'todos', type: 'collection', properties: { count: 2 }, children: [
      {
        id: 't1', type: 'item', properties: { title: 'Buy milk', done: false },
        affordances: [
          { action: 'toggle' },
          { action: 'tag', params: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } }, required: ['tags'] } },
          { action: 'delete', dangerous: true },
        ],
      },
      { id: 't2', type: 'item', properties: { title: 'Walk dog', done: true } },
    ],
  }],
};

/** Output list helpers: outs is the array drain() returns (accumulated). */
export const events = (outs, name) => outs.filter((o) => o.kind === 'event' && o.event.event === name).map((o) => o.event);
export const sends = (outs, type) => outs.filter((o) => o.kind === 'send').map((o) => JSON.parse(o.frame)).filter((f) => f.type === type);

const text = (f) => (typeof f === 'string' ? f : JSON.stringify(f));

/**
 * A consumer with its accumulated outputs. `sub` is the caller-facing id, `wire`
 * the id currently on the wire (changes on resync).
 */
export class Live {
  constructor(core, { transport = 'ws', seed = 42, limits } = {}) {
    this.core = core;
    this.c = new core.SlopConsumer({ transport, seed, limits });
    this.outs = [];
    this.sub = null;
    this.wire = null;
  }

  /** A consumer subscribed at `path`, fed hello and (if tree) a version-1 snapshot. */
  static async start({ hello: h = HELLO_ALL, path = '/', tree = TODOS, ...opts } = {}) {
    const l = new Live(await loadCore(), opts);
    l.sub = l.wire = l.c.subscribe({ path, depth: -1 }, 0);
    l.feed(h);
    if (tree) l.feed({ type: 'snapshot', id: l.wire, version: 1, seq: 0, tree });
    return l;
  }

  drain() { const o = this.c.drain(); this.outs.push(...o); return o; }
  feed(frame, now = 1000) { this.c.receive(text(frame), now); return this.drain(); }
  clear() { this.outs = []; }
  free() { this.c.free(); }

  patch(version, seq, ops) {
    const f = { type: 'patch', subscription: this.wire, version, ops };
    if (seq >= 0) f.seq = seq;
    return this.feed(f);
  }
  snapshot(version, tree, seq = 0) { return this.feed({ type: 'snapshot', id: this.wire, version, seq, tree }); }

  events(name) { return events(this.outs, name); }
  sent(type) { return sends(this.outs, type); }
  status() { return this.c.status(); }
  subStatus() { return this.status().subscriptions.find((s) => s.sub === this.sub); }
  tree(path = '/') { return this.c.tree(this.sub, path, -1); }
  kids(path) { return this.c.node(this.sub, path)?.child_ids; }
  prop(path, key) { return this.c.node(this.sub, path)?.properties?.[key]; }

  /** Takes the wire id of the nth subscribe frame sent (after a resync). */
  rewire(nth = 0) {
    const s = this.sent('subscribe')[nth];
    assert.ok(s, `no subscribe frame #${nth} was sent`);
    this.wire = s.id;
  }
}

/** Asserts fn throws a SlopError with the given code name (and message, if given). */
export function assertSlopError(fn, codeName, message) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof SlopError, `expected a SlopError, got ${e}`);
    assert.equal(e.codeName, codeName, `code: ${e.message}`);
    assert.equal(e.code, SlopCode[codeName]);
    if (message instanceof RegExp) assert.match(e.message, message);
    else if (message !== undefined) assert.equal(e.message, message);
    return true;
  });
}

/** The terminal command. */
export const CLI = fileURLToPath(new URL('../../bin/slop-inspector.js', import.meta.url));

/** Runs the terminal command (no token from the environment); resolves {code, stdout, stderr}. */
export function runCli(args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, SLOP_TOKEN: '', ...env } });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
