// Numbers leave the Node surfaces as the provider wrote them: the CLI's --json outputs (tree,
// watch, invoke), the Node client's values (an ExactNumber for an integer a double cannot hold,
// on Node 20 as on later Nodes) and stringifyExact. The provider here writes its frames by hand,
// as a provider in another language would: -0, 1.50, 0.30000000000000004, ±(2^63-1), 1E5.
// And the worker's plain reading: an event that may hold such a number comes out of drain() with
// the core's text beside it (`exact`), which exactEvent reads.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from './helpers.js';
import { startScriptedProvider, frames, reply } from '../fixtures/provider/scripted.mjs';
import { connect, stringifyExact, isExactNumber } from '../../js-glue/node/client.js';
import { loadSlopCoreNode } from '../../js-glue/node/load-core.js';
import { exactEvent, parseExact } from '../../js-glue/exact-json.js';

const PROPS = '{"neg0":-0,"cents":1.50,"sum":0.30000000000000004,"max":9223372036854775807,"min":-9223372036854775807,"exp":1E5}';
const WRITTEN = ['"neg0": -0', '"cents": 1.50', '"sum": 0.30000000000000004', '"max": 9223372036854775807', '"min": -9223372036854775807', '"exp": 1E5'];

/** Hello, the snapshot as text, and results whose data holds the same numbers. */
const script = () => [
  frames.hello(),
  ...reply('subscribe', (m) => `{"type":"snapshot","id":${JSON.stringify(m.id)},"version":1,"seq":0,"tree":{"id":"root","type":"root",`
    + `"properties":${PROPS},"affordances":[{"action":"read"}]}}`),
];
const afterScript = (msg) => (msg.type === 'invoke' ? `{"type":"result","id":${JSON.stringify(msg.id)},"status":"ok","data":${PROPS}}` : undefined);

describe('exact numbers out of the CLI and the Node client', () => {
  let srv;
  before(async () => {
    srv = await startScriptedProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true, script, afterScript });
  });
  after(() => srv.close());

  test('tree --json writes every number as the provider did', async () => {
    const r = await runCli(['tree', srv.wsUrl, '--json'], { SLOP_TOKEN: srv.token });
    assert.equal(r.code, 0, r.stderr);
    for (const w of WRITTEN) assert.ok(r.stdout.includes(w), `${w} in:\n${r.stdout}`);
  });

  test('invoke writes the result\'s data with its values exact', async () => {
    const r = await runCli(['invoke', srv.wsUrl, '/', 'read'], { SLOP_TOKEN: srv.token });
    assert.equal(r.code, 0, r.stderr);
    // A result's data is printed by the core from its parsed values, each number with the text
    // the provider wrote (json_read.c keeps it where the shortest form would differ).
    for (const w of WRITTEN) assert.ok(r.stdout.includes(w), `${w} in:\n${r.stdout}`);
  });

  test('watch --json starts with the tree as the provider wrote it', async () => {
    const { spawn } = await import('node:child_process');
    const { CLI } = await import('./helpers.js');
    const child = spawn(process.execPath, [CLI, 'watch', srv.wsUrl, '--json'], { env: { ...process.env, SLOP_TOKEN: srv.token } });
    const first = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
      child.on('close', () => reject(new Error(`watch ended: ${out}`)));
    });
    child.kill('SIGINT');
    for (const w of WRITTEN) assert.ok(first.includes(w.replace(': ', ':')), `${w} in ${first}`);
  });

  test('the Node client: numbers of the same value, an ExactNumber where a double cannot hold one', async () => {
    const client = await connect(srv.wsUrl, { token: srv.token });
    try {
      const p = (await client.tree()).properties;
      assert.ok(Object.is(p.neg0, -0), '-0 stays -0');
      assert.equal(p.cents, 1.5);
      assert.equal(p.sum, 0.30000000000000004);
      assert.equal(p.exp, 100000);
      for (const k of ['max', 'min']) assert.equal(isExactNumber(p[k]), true, `${k} is kept`);
      assert.equal(p.max.rawJSON, '9223372036854775807');
      assert.equal(p.min.rawJSON, '-9223372036854775807');
      assert.equal(stringifyExact(p), '{"neg0":-0,"cents":1.5,"sum":0.30000000000000004,"max":9223372036854775807,"min":-9223372036854775807,"exp":100000}');
      const r = await client.invoke('/', 'read');
      assert.equal(r.data.max.rawJSON, '9223372036854775807', 'a result\'s data too');
      assert.equal((await client.node('/')).properties.min.rawJSON, '-9223372036854775807');
    } finally {
      client.close();
    }
  });

  test('numbers: "verbatim" keeps the text of every number, for writing out', async () => {
    const client = await connect(srv.wsUrl, { token: srv.token, numbers: 'verbatim' });
    try {
      assert.equal(stringifyExact((await client.tree()).properties), PROPS);
    } finally {
      client.close();
    }
  });
});

describe('the worker\'s plain reading: events carry their text where a number would change', () => {
  const HELLO = '{"type":"hello","provider":{"id":"p","name":"P","slop_version":"0.1","capabilities":["state","patches","affordances"]}}';
  const TREE = '{"id":"root","type":"root","properties":{"n":1},"affordances":[{"action":"read"}]}';
  let core;
  before(async () => { core = await loadSlopCoreNode(); });

  /** A consumer live on TREE; its drained events from here on. */
  function live(numbers) {
    const c = new core.SlopConsumer({ transport: 'ws', seed: 3, ...(numbers ? { numbers } : {}) });
    c.subscribe({ path: '/', depth: -1 }, 0);
    c.receive(HELLO, 0);
    const wire = JSON.parse(c.drain().find((o) => o.kind === 'send').frame).id;
    c.receive(`{"type":"snapshot","id":${JSON.stringify(wire)},"version":1,"seq":0,"tree":${TREE}}`, 0);
    c.drain();
    return { c, wire };
  }
  const events = (c) => c.drain().filter((o) => o.kind === 'event').map((o) => o.event);

  test('a result whose data holds 2^63-1, 1.50 and -0 comes with the core\'s text; exactEvent reads the digits', () => {
    const { c } = live();
    const id = c.invoke('/', 'read', undefined, 0);
    c.drain();
    c.receive(`{"type":"result","id":${JSON.stringify(id)},"status":"ok","data":{"max":9223372036854775807,"cents":1.50,"neg0":-0,"exp":1E5}}`, 0);
    const [ev] = events(c);
    assert.equal(ev.event, 'result');
    assert.equal(ev.data.max, 9223372036854775807, 'the plain values: a double');
    assert.equal(typeof ev.exact, 'string');
    assert.match(ev.exact, /"data":\{"max":9223372036854775807,"cents":1\.50,"neg0":-0,"exp":1E5\}/, 'the core\'s text, as the provider wrote it');
    // What crosses a port is JSON: the text survives it, the values do not.
    const crossed = JSON.parse(JSON.stringify(ev));
    assert.equal(stringifyExact(exactEvent(crossed).data), '{"max":9223372036854775807,"cents":1.50,"neg0":-0,"exp":1E5}', 'verbatim: to show');
    const values = exactEvent(crossed, parseExact);
    assert.equal(isExactNumber(values.data.max), true);
    assert.equal(values.data.max.rawJSON, '9223372036854775807');
    assert.ok(Object.is(values.data.neg0, -0) && values.data.cents === 1.5, 'exact: to compute with');
    assert.equal('exact' in values, false, 'read from the text: no text beside it');
    assert.equal(values.requestId, undefined);
    assert.equal(values.id, id);
    c.free();
  });

  test('no text where JSON.parse changes nothing, on patches, or where the reading is exact already', () => {
    const { c, wire } = live();
    c.receive('{"type":"event","name":"tick","data":{"n":42,"r":0.25,"s":"plain"}}', 0);
    c.receive(`{"type":"patch","subscription":${JSON.stringify(wire)},"version":2,"seq":1,"ops":[{"op":"replace","path":"/properties/n","value":1.50}]}`, 0);
    const [tick, patch] = events(c);
    assert.equal(tick.event, 'provider_event');
    assert.equal(tick.exact, undefined, 'ordinary numbers: no text');
    assert.equal(exactEvent(tick), tick, 'exactEvent gives back an event without text');
    assert.equal(patch.event, 'patch');
    assert.equal(patch.exact, undefined, 'a patch carries paths: never its text');
    assert.match(c.nodeText(c.status().subscriptions[0].sub, '/'), /"n":1\.50/, 'the patched value as written');
    c.free();
    for (const numbers of ['exact', 'verbatim']) {
      const x = live(numbers).c;
      x.receive('{"type":"event","name":"big","data":[9223372036854775807,1.50]}', 0);
      const [big] = events(x);
      assert.equal(big.exact, undefined, `numbers: '${numbers}' reads the values exactly: no text`);
      assert.equal(big.data[0].rawJSON, '9223372036854775807');
      x.free();
    }
  });
});
