// Numbers leave the Node surfaces as the provider wrote them: the CLI's --json outputs (tree,
// watch, invoke), the Node client's values (an ExactNumber for an integer a double cannot hold,
// on Node 20 as on later Nodes) and stringifyExact. The provider here writes its frames by hand,
// as a provider in another language would: -0, 1.50, 0.30000000000000004, ±(2^63-1), 1E5.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from './helpers.js';
import { startScriptedProvider, frames, reply } from '../fixtures/provider/scripted.mjs';
import { connect, stringifyExact, isExactNumber } from '../../js-glue/node/client.js';

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
    // A result's data is printed by the core from its parsed values (docs/decisions.md, "Exact
    // numbers"): every value exact, 1.50 and 1E5 in their shortest form.
    for (const w of WRITTEN.filter((x) => !/cents|exp/.test(x))) assert.ok(r.stdout.includes(w), `${w} in:\n${r.stdout}`);
    assert.ok(r.stdout.includes('"cents": 1.5,') && r.stdout.includes('"exp": 100000'), r.stdout);
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
