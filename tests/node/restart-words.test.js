// A provider restarted under a watcher (issue 47): the CLI's watch says "provider restarted" with
// the versions and prints the new tree (text and --json); the Node client's onRestart, restarts()
// and waitForRestart() give the same restart; one set of words (js-glue/event-text.js) for them
// and the panel. The provider is a real process killed with SIGKILL and started again on the
// same port with its counter back at 3, as a dev server's file watcher does.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect } from '../../js-glue/node/client.js';
import { restartOf, restartText, eventText } from '../../js-glue/event-text.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'bin/slop-inspector.js');
const PROVIDER = path.join(ROOT, 'tests/bench/restart-provider.mjs');
const TOKEN = 'restart-words-token';

/** A free port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = /** @type {any} */ (s.address()); s.close(() => resolve(port)); });
  });
}

/** The Acme Mail provider as a process, its version counter starting at `version`. */
function startProvider(port, version) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [PROVIDER, String(port), TOKEN, String(version), '2']);
    p.stdout.on('data', (d) => { if (String(d).includes('listening')) resolve(p); });
    p.on('error', reject);
  });
}
const kill = (p) => new Promise((r) => { p.once('exit', r); p.kill('SIGKILL'); });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(pred, what, ms = 15_000) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (pred()) return;
  assert.fail(`timed out waiting for ${what}`);
}

test('the words: a restart read from the core\'s snapshot event, and said once for every surface', () => {
  const ev = { event: 'snapshot', sub: 's1', path: '/', version: 3, nodes: 19, rebase: true, previous_version: 380, restarted: true };
  assert.deepEqual(restartOf(ev), { event: 'restarted', sub: 's1', version: 3, previousVersion: 380 });
  assert.equal(restartText(restartOf(ev)), 'provider restarted: version 3 after 380');
  assert.equal(eventText(ev), 'provider restarted: version 3 after 380');
  assert.equal(restartOf({ ...ev, restarted: undefined }), null, 'a resync on the same connection is no restart');
  assert.equal(eventText({ ...ev, restarted: undefined }), 'v3, 19 nodes');
  // Every event has words (a drift check's used to fall through to nothing).
  assert.equal(eventText({ event: 'drift', id: 'q1', sub: 's1', status: 'differs', version: 7, count: 2 }), 'the mirror differs from the provider at v7: 2 difference(s)');
  assert.equal(eventText({ event: 'drift', id: 'q1', sub: 's1', status: 'same', version: 7 }), 'the mirror equals the provider at v7');
});

test('watch across a restart: "provider restarted: version N after M", then the new tree; --json says it as one line with the tree', { timeout: 60_000 }, async () => {
  const port = await freePort();
  let provider = await startProvider(port, 380);
  const runs = ['text', 'json'].map((mode) => {
    const child = spawn(process.execPath, [CLI, 'watch', `ws://127.0.0.1:${port}/slop`, ...(mode === 'json' ? ['--json'] : [])], { env: { ...process.env, SLOP_TOKEN: TOKEN } });
    const run = { child, out: '' };
    child.stdout.on('data', (d) => { run.out += d; });
    return run;
  });
  const [text, json] = runs;
  try {
    await until(() => /^v\d+ \d+ ops?:/m.test(text.out) && /"event":"patch"/.test(json.out), 'both watching');
    await kill(provider);
    await until(() => /connection lost/.test(text.out), 'the loss said');
    provider = await startProvider(port, 3);
    await until(() => /provider restarted/.test(text.out) && /"event":"restarted"/.test(json.out), 'the restart said', 20_000);
    await sleep(300);
    const after = text.out.slice(text.out.indexOf('connection lost'));
    assert.equal(after.match(/connection lost/g).length, 1, `the loss said once, not once per dial:\n${after}`);
    assert.doesNotMatch(after, /^closed/m, 'no bare "closed" lines');
    const m = /^provider restarted: version (\d+) after (\d+); the new tree:\n\[root\] acme-mail: Acme Mail/m.exec(after);
    assert.ok(m, after.slice(0, 800));
    assert.ok(Number(m[1]) < 50 && Number(m[2]) >= 380, `the versions went back: ${m[0].split('\n')[0]}`);
    const lines = json.out.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const r = lines.find((l) => l.event === 'restarted');
    assert.ok(r.version < 50 && r.previous_version >= 380, JSON.stringify({ ...r, tree: undefined }));
    assert.deepEqual(r.provider && { id: r.provider.id, name: r.provider.name }, { id: 'acme-mail', name: 'Acme Mail' });
    assert.equal(r.tree.id, 'acme-mail');
    const snap = lines.findIndex((l) => l.event === 'snapshot' && l.restarted === true);
    assert.ok(snap >= 0 && snap < lines.indexOf(r), 'the core\'s event, then the restart with its tree');
  } finally {
    for (const { child } of runs) child.kill('SIGINT');
    await kill(provider);
  }
});

test('the Node client: onRestart, restarts() and waitForRestart() give the restart the watch says', { timeout: 60_000 }, async () => {
  const port = await freePort();
  let provider = await startProvider(port, 500);
  const client = await connect(`ws://127.0.0.1:${port}/slop`, { token: TOKEN });
  try {
    const heard = [];
    client.onRestart((r) => heard.push(r));
    const since = Date.now();
    const waiting = client.waitForRestart({ since, timeout: 20_000 });
    await kill(provider);
    provider = await startProvider(port, 3);
    const r = await waiting;
    assert.equal(r.event, 'restarted');
    assert.ok(r.version < 50 && r.previousVersion >= 500, JSON.stringify(r));
    assert.ok(r.at >= since);
    await until(() => heard.length === 1, 'onRestart');
    assert.deepEqual({ ...heard[0], at: 0 }, { ...r, at: 0 });
    assert.deepEqual((await client.restarts({ since })).map((x) => x.version), [r.version]);
    assert.equal((await client.info()).live, true, 'live on the new process');
    assert.equal((await client.tree()).id, 'acme-mail');
    await assert.rejects(client.waitForRestart({ timeout: 300 }), /no restart in 300 ms/);
  } finally {
    client.close();
    await kill(provider);
  }
});
