// restart-bench.mjs: how fast a consumer is back after its provider restarts, in the patterns people
// produce. The Node client (the same consumer session and reconnect policy as the extension's
// worker, js-glue/reconnect-policy.js) on a provider process that is killed (SIGKILL) and started
// again on the same port (tests/bench/restart-provider.mjs):
//   A  20 restarts in a row, each as soon as the mirror was live again and a few patches flowed
//      (its version counter continuing, as a dev server that keeps its state)
//   B  5 bursts of 3 restarts within one second (a file watcher seeing a build write several files)
//   C  5 restarts with the version counter back at 1 (a dev server that keeps nothing)
// Each recovery is timed from the moment the new process listens to the moment the mirror is live
// with the new process's tree. Prints each, the median and the worst; never fails on time.
//
//   node tests/bench/restart-bench.mjs [--quick]

import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { connect } from '../../js-glue/node/client.js';
import { median } from './stats.mjs';

const quick = process.argv.includes('--quick');
const CHILD = fileURLToPath(new URL('./restart-provider.mjs', import.meta.url));
const TOKEN = 'restart-bench-token';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const port = await new Promise((resolve) => {
  const s = net.createServer();
  s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
});
const url = `ws://127.0.0.1:${port}/slop`;

/** Starts a provider process; resolves with {child, listening: ms timestamp}. */
function startProcess(version) {
  const child = spawn(process.execPath, [CHILD, String(port), TOKEN, String(version), '10'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => { if (String(d).includes('listening')) resolve({ child, listening: performance.now() }); });
    child.once('exit', (code) => reject(new Error(`provider process exited (${code}) before listening`)));
  });
}
const kill = (p) => new Promise((r) => { p.child.once('exit', r); p.child.kill('SIGKILL'); });

/** The client's count of connections that ended (the policy's decisions). */
const ends = async (client) => (await client.info()).reconnect?.seq ?? 0;

/**
 * Resolves with the time at which the client is live again after `before` ends: the old process
 * was killed before the new one started, so a live mirror after a new end is the new process's.
 */
async function liveAfter(client, before) {
  for (;;) {
    const info = await client.info();
    if (info.live && (info.reconnect?.seq ?? 0) > before) return performance.now();
    await sleep(2);
  }
}

/** Waits for a few patches on the live mirror. */
async function patches(client, n = 3) {
  let seen = 0;
  await new Promise((resolve) => {
    const off = client.onEvent((ev) => { if (ev.event === 'patch' && ++seen >= n) { off(); resolve(); } });
  });
}

let proc = await startProcess(1);
const client = await connect(url, { token: TOKEN, timeout: 10_000 });
let version = 1;

const results = {};
async function pattern(name, rounds, one) {
  const times = [];
  for (let i = 0; i < rounds; i++) times.push(await one(i));
  results[name] = times;
  const s = [...times].sort((a, b) => a - b);
  console.log(`${name}: ${times.map((t) => t.toFixed(0)).join(' ')} ms`);
  console.log(`   median ${median(s).toFixed(0)} ms, worst ${s.at(-1).toFixed(0)} ms${s.at(-1) < 1500 ? '' : '  (over 1.5 s)'}`);
}

await pattern('A  20 restarts in a row, no pause after recovery', quick ? 6 : 20, async () => {
  await patches(client);
  const before = await ends(client);
  await kill(proc);
  version += 200; // the state it kept: its counter goes on
  proc = await startProcess(version);
  return (await liveAfter(client, before)) - proc.listening;
});

await pattern('B  5 bursts of 3 restarts within one second (time after the third)', quick ? 2 : 5, async () => {
  await patches(client);
  for (let k = 0; k < 2; k++) {
    await kill(proc);
    proc = await startProcess(1);
    await sleep(150);
  }
  const before = await ends(client);
  await kill(proc);
  proc = await startProcess(1);
  return (await liveAfter(client, before)) - proc.listening;
});

await pattern('C  5 restarts, the version counter back at 1', quick ? 2 : 5, async () => {
  await patches(client);
  const before = await ends(client);
  await kill(proc);
  proc = await startProcess(1);
  return (await liveAfter(client, before)) - proc.listening;
});

const all = Object.values(results).flat().sort((a, b) => a - b);
console.log(`all ${all.length} recoveries: median ${median(all).toFixed(0)} ms, worst ${all.at(-1).toFixed(0)} ms; ${all.filter((t) => t >= 1500).length} over 1.5 s`);
client.close();
await kill(proc);
