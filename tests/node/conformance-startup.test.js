// Conformance of providers that break at the start: each is a scripted provider, correct but for
// one violation, judged by `slop-inspector check` as a CI job would (exit code, JSON). A bad
// hello, a refused snapshot, no hello, no snapshot, a snapshot for another id: a report naming
// the MUST rule and why it never went live, exit 3 — exit 1 only when nothing answered. Then
// `check --invoke` (the answer to one invoke judged) and `invoke --timeout` (the answer bounded).

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from './helpers.js';
import { startScriptedProvider, frames, reply } from '../fixtures/provider/scripted.mjs';
import { connect, checkConformance, SlopTestError } from '../../js-glue/node/client.js';



const TREE = {
  id: 'root', type: 'root', children: [
    { id: 'a', type: 'item', properties: { n: 1 }, affordances: [{ action: 'poke' }] },
  ],
};
const hello = (provider = {}) => ({ type: 'hello', provider: { ...frames.hello().provider, ...provider } });
const goodStart = (h = frames.hello()) => [h, ...reply('subscribe', (m) => frames.snapshot(m.id, 1, TREE))];

/** Starts a scripted provider, runs `check --json` (plus args) on it; {code, report, stderr}. */
async function check(options, args = []) {
  const srv = await startScriptedProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true, ...options });
  try {
    const r = await runCli(['check', srv.wsUrl, '--watch', '0', '--json', ...args], { SLOP_TOKEN: srv.token });
    let report = null;
    try { report = JSON.parse(r.stdout); } catch { /* none: asserted by the caller */ }
    return { ...r, report };
  } finally {
    await srv.close();
  }
}

const rules = (report) => [...new Set(report.findings.map((f) => f.rule))].sort();
const finding = (report, rule) => report.findings.find((f) => f.rule === rule);

describe('check: a provider that never goes live is a finding, not "unreachable"', () => {
  test('control: a correct provider is live, with no finding, exit 0', async () => {
    const r = await check({ script: goodStart() });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.report.live, true);
    assert.equal(r.report.not_live, undefined);
    assert.deepEqual(r.report.findings, []);
  });

  test('a hello without provider.id: hello-fields (MUST) with its frame, exit 3', async () => {
    const r = await check({ script: [{ type: 'hello', provider: { name: 'No id', slop_version: '0.1', capabilities: ['state'] } }] });
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.report.live, false);
    assert.match(r.report.not_live, /^its hello was refused: "provider\.id" must be a non-empty string/);
    const f = finding(r.report, 'hello-fields');
    assert.equal(f.severity, 'MUST');
    assert.match(f.frame, /"name":"No id"/);
    assert.deepEqual(rules(r.report), ['hello-fields']);
    assert.match(r.stderr, /never went live: its hello was refused/);
  });

  test('a node whose type is a number: the snapshot is refused, tree-shape (MUST), exit 3', async () => {
    const bad = { id: 'root', type: 'root', children: [{ id: 'n', type: 7 }] };
    const r = await check({ script: [frames.hello(), ...reply('subscribe', (m) => frames.snapshot(m.id, 1, bad))] });
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.report.live, false);
    assert.match(r.report.not_live, /is failed: snapshot refused: .*"type" must be a string/);
    assert.deepEqual(rules(r.report), ['tree-shape']);
    assert.match(finding(r.report, 'tree-shape').frame, /"type":7/);
  });

  test('no "state" capability: hello-state (MUST), exit 3', async () => {
    const r = await check({ script: [hello({ capabilities: ['patches'] })] });
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.report.live, false);
    assert.match(r.report.not_live, /does not declare the "state" capability/);
    assert.deepEqual(rules(r.report), ['hello-state']);
  });

  test('hello, then no snapshot: snapshot-in-time (MUST) within --timeout, exit 3', async () => {
    const r = await check({ script: [frames.hello()] }, ['--timeout', '1500']);
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.report.live, false);
    assert.match(r.report.not_live, /no snapshot came in time/);
    assert.deepEqual(rules(r.report), ['snapshot-in-time']);
    assert.match(finding(r.report, 'snapshot-in-time').detail, /no snapshot in 1500 ms/);
  });

  test('no hello at all: hello-in-time (MUST), exit 3', async () => {
    const r = await check({ script: [] }, ['--timeout', '1500']);
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.report.live, false);
    assert.equal(r.report.not_live, 'no hello yet');
    assert.deepEqual(rules(r.report), ['hello-in-time']);
  });

  test('a snapshot for an id never sent: snapshot-id (MUST) with its frame, exit 3', async () => {
    const r = await check({ script: [frames.hello(), ...reply('subscribe', () => frames.snapshot('sub-1', 1, TREE))] },
      ['--timeout', '1500']);
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.report.live, false);
    assert.match(finding(r.report, 'snapshot-id').frame, /"id":"sub-1"/);
    assert.equal(finding(r.report, 'snapshot-id').severity, 'MUST');
  });

  test('slop_version: an unknown version is SHOULD (live, exit 0); a number breaks hello-fields (exit 3)', async () => {
    const unknown = await check({ script: goodStart(hello({ slop_version: '9.9' })) });
    assert.equal(unknown.code, 0, unknown.stderr);
    assert.equal(unknown.report.live, true);
    assert.deepEqual(rules(unknown.report), ['slop-version']);
    // A MUST broken in a hello the consumer still takes: judged on, live, and said as such.
    const number = await check({ script: goodStart(hello({ slop_version: 0.1 })) });
    assert.equal(number.code, 3, number.stderr);
    assert.deepEqual(rules(number.report), ['hello-fields']);
    assert.equal(number.report.live, true, 'it went live: not "never went live"');
    assert.doesNotMatch(number.stderr, /never went live/);
  });

  test('nothing listening: exit 1, no report', async () => {
    const srv = await startScriptedProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true, script: [] });
    const url = srv.wsUrl;
    await srv.close();
    const r = await runCli(['check', url, '--json', '--timeout', '1500']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
  });

  test('the library: checkConformance() reports, connect() rejects with the report', async () => {
    const srv = await startScriptedProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true,
      script: [{ type: 'hello', provider: { name: 'No id', slop_version: '0.1', capabilities: ['state'] } }] });
    try {
      const r = await checkConformance(srv.wsUrl, { token: srv.token, timeout: 1500, watch: 0 });
      assert.equal(r.report.live, false);
      assert.deepEqual(rules(r.report), ['hello-fields']);
      await assert.rejects(connect(srv.wsUrl, { token: srv.token, timeout: 1500 }), (e) => {
        assert.ok(e instanceof SlopTestError);
        assert.deepEqual(rules(e.conformance), ['hello-fields']);
        return true;
      });
    } finally {
      await srv.close();
    }
  });
});

describe('check --invoke and invoke --timeout', () => {
  /** A correct provider whose answer to an invoke is answer(msg) (undefined: none). */
  const answering = (answer, h = frames.hello()) => ({
    script: goodStart(h),
    afterScript: (m) => (m?.type === 'invoke' ? answer(m) : undefined),
  });

  test('a MUST broken in a hello the provider goes live despite: the invoke is still sent and judged', async () => {
    const r = await check(answering((m) => frames.result(m.id, 'ok'), hello({ slop_version: 0.1 })), ['--invoke', '/a', 'poke']);
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.report.live, true);
    assert.deepEqual(rules(r.report), ['hello-fields']);
    assert.equal(r.report.invoke?.event.status, 'ok', 'the invoke was sent');
  });

  test('an ok result: no finding, exit 0, the answer in the JSON', async () => {
    const r = await check(answering((m) => frames.result(m.id, 'ok', { data: { n: 2 } })), ['--invoke', '/a', 'poke', '--params', '{"x":1}']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.report.findings, []);
    assert.equal(r.report.invoke.event.event, 'result');
    assert.equal(r.report.invoke.event.status, 'ok');
  });

  test('"accepted" from a provider without "async": capability-async (SHOULD: the spec\'s SHOULD NOT), exit 0', async () => {
    const noAsync = hello({ capabilities: ['state', 'patches', 'affordances'] });
    const r = await check(answering((m) => frames.result(m.id, 'accepted', { data: { taskId: 't-1' } }), noAsync), ['--invoke', '/a', 'poke']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(rules(r.report), ['capability-async']);
    assert.equal(finding(r.report, 'capability-async').severity, 'SHOULD');
  });

  test('a result with a status that is none of ok, error, accepted: result-status (SHOULD: extensions may add statuses), exit 0', async () => {
    const r = await check(answering((m) => frames.result(m.id, 'done')), ['--invoke', '/a', 'poke']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(rules(r.report), ['result-status']);
    assert.equal(finding(r.report, 'result-status').severity, 'SHOULD');
  });

  test('no answer within --timeout: result-in-time (MUST), exit 3', async () => {
    const r = await check(answering(() => undefined), ['--invoke', '/a', 'poke', '--timeout', '1500']);
    assert.equal(r.code, 3, r.stderr);
    assert.deepEqual(rules(r.report), ['result-in-time']);
    assert.equal(r.report.invoke.event.event, 'timeout');
  });

  test('invoke --timeout bounds the answer, not only the connection', async () => {
    const srv = await startScriptedProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true, ...answering(() => undefined) });
    try {
      const r = await runCli(['invoke', srv.wsUrl, '/a', 'poke', '--timeout', '1500'], { SLOP_TOKEN: srv.token });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /timeout|timed out|no answer/i);
    } finally {
      await srv.close();
    }
  });

  test('usage: --invoke needs an action and goes with check; --params must be JSON', async () => {
    assert.equal((await runCli(['check', 'ws://127.0.0.1:1/', '--invoke', '/a'])).code, 2);
    assert.equal((await runCli(['tree', 'ws://127.0.0.1:1/', '--invoke', '/a', 'poke'])).code, 2);
    assert.equal((await runCli(['check', 'ws://127.0.0.1:1/', '--invoke', '/a', 'poke', '--params', '{bad'])).code, 2);
  });
});
