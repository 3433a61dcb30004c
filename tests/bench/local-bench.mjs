// local-bench.mjs: what a local provider's transport costs, side by side with a WebSocket in one run,
// through the Node client (the same consumer session and core the CLI runs).
//   round trip  an invoke and its result, from the client's call to its answer, on the fixture
//               state engine (the todo tree) over a loopback WebSocket, a Unix socket, and stdio
//               (fd 3/4, and stdout/stdin)
//   flood       N one-op patches written at once by the provider: time from the first byte to the
//               last patch in the mirror, frames per second, beside JSON.parse of the same lines
//               (the least any consumer does)
// Prints medians and p95; never fails on time.
//
//   node tests/bench/local-bench.mjs [--quick]

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { connect } from '../../js-glue/node/client.js';
import { startUnixProvider } from '../fixtures/provider/local-server.mjs';
import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { createTodoEngine } from '../fixtures/demo-trees.mjs';
import { median, pct } from './stats.mjs';

const quick = process.argv.includes('--quick');
const TRIPS = quick ? 200 : 1000;
const FLOOD = quick ? 20_000 : 100_000;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STDIO = path.join(ROOT, 'tests/fixtures/provider/local-server.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slop-local-bench-'));

const fmt = (us) => `${us.toFixed(1).padStart(7)} µs`;

async function roundTrips(label, client) {
  for (let i = 0; i < 50; i++) await client.invoke('/todos/t1', 'toggle'); // warm up
  const times = [];
  for (let i = 0; i < TRIPS; i++) {
    const t0 = process.hrtime.bigint();
    await client.invoke('/todos/t1', 'toggle');
    times.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  console.log(`  ${label.padEnd(22)} median ${fmt(median(times))}   p95 ${fmt(pct(times.sort((a, b) => a - b), 95))}`);
}

console.log(`round trip: invoke → result (${TRIPS} each)`);
{
  const ws = await startWsProvider({ engine: createTodoEngine(), authRequired: false, allowMissingOrigin: true });
  const c = await connect(ws.wsUrl);
  await roundTrips('WebSocket (loopback)', c);
  c.close();
  await ws.close();
  const unix = await startUnixProvider({ path: path.join(dir, 'rt.sock'), engine: createTodoEngine() });
  const u = await connect(`unix:${unix.path}`);
  await roundTrips('Unix socket', u);
  u.close();
  await unix.close();
  for (const channel of ['fds', 'std']) {
    const s = await connect({ command: [process.execPath, STDIO, 'stdio', '--channel', channel] });
    await roundTrips(`stdio (${channel === 'fds' ? 'fd 3/4' : 'stdout/stdin'})`, s);
    s.close();
  }
}

const HELLO = JSON.stringify({ type: 'hello', provider: { id: 'flood', name: 'Flood', slop_version: '0.1', capabilities: ['state', 'patches', 'affordances'] } });
const snapshot = (id) => JSON.stringify({ type: 'snapshot', id, version: 1, seq: 0, tree: { id: 'root', type: 'root', properties: { n: 0 }, affordances: [{ action: 'go' }] } });
const patch = (sub, n) => JSON.stringify({ type: 'patch', subscription: sub, version: n + 1, seq: n, ops: [{ op: 'replace', path: '/properties/n', value: n }] });

/** Connects, waits for the flood's last patch; ms from the client's first look at it. */
async function flood(address) {
  const c = await connect(address);
  const t0 = performance.now();
  await new Promise((resolve) => {
    c.onEvent((ev) => { if (ev.event === 'patch' && ev.version === FLOOD + 1) resolve(); });
    c.invoke('/', 'go').catch(() => {});
  });
  const ms = performance.now() - t0;
  c.close();
  return ms;
}

console.log(`\nflood: ${FLOOD} one-op patches written at once (time to the last in the mirror)`);
{
  const lines = [];
  let subId = '';
  const onSub = (send) => (text) => {
    const m = JSON.parse(text);
    if (m.type === 'subscribe') { subId = m.id; send(snapshot(m.id)); }
    if (m.type === 'invoke') for (let i = 1; i <= FLOOD; i++) send(patch(subId, i));
  };
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((r) => wss.once('listening', r));
  wss.on('connection', (ws) => { ws.send(HELLO); ws.on('message', (d) => onSub((t) => ws.send(t))(String(d))); });
  const wsMs = await flood(`ws://127.0.0.1:${wss.address().port}/`);
  wss.close();
  const sock = path.join(dir, 'flood.sock');
  const server = net.createServer((s) => {
    s.write(`${HELLO}\n`);
    let buf = '';
    const handle = onSub((t) => s.write(`${t}\n`));
    s.on('data', (d) => { buf += d; let nl; while ((nl = buf.indexOf('\n')) !== -1) { handle(buf.slice(0, nl)); buf = buf.slice(nl + 1); } });
    s.on('error', () => {});
  });
  await new Promise((r) => server.listen(sock, r));
  const unixMs = await flood(`unix:${sock}`);
  server.close();
  for (let i = 1; i <= FLOOD; i++) lines.push(patch('s', i));
  const t0 = performance.now();
  let sum = 0;
  for (const l of lines) sum += JSON.parse(l).seq;
  const parseMs = performance.now() - t0;
  const row = (label, ms) => console.log(`  ${label.padEnd(22)} ${ms.toFixed(0).padStart(6)} ms   ${(FLOOD / ms * 1000).toFixed(0).padStart(8)} frames/s   ${(ms * 1000 / FLOOD).toFixed(2)} µs/frame`);
  row('WebSocket (loopback)', wsMs);
  row('Unix socket', unixMs);
  row('JSON.parse only', parseMs);
  if (sum < 0) console.log(sum);
}
fs.rmSync(dir, { recursive: true, force: true });
process.exit(0);
