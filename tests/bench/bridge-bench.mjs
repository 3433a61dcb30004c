// bridge-bench.mjs: what the desktop bridge costs, side by side in one run.
//   pairing     connect + the four pairing messages to `slop-inspector bridge`, against a bare
//               connect to the same server (the price of proving the code)
//   round trip  a desktop consumer's invoke to an in-page provider and its result, through
//               `slop-inspector bridge` (a core relay per consumer, envelopes spliced as text)
//               and through the emulation of the SLOP project's TypeScript server (what the agent
//               plugins use today: every message re-serialised and sent to every client)
// The "browser" is a Node stand-in for the extension: it pairs when the bridge pairs, announces one
// postMessage provider and answers connect with hello and invoke with result at once, so the
// figures are the bridges' own cost on loopback. Prints medians and p95; never fails on time.
//
//   node tests/bench/bridge-bench.mjs [--quick]

import { WebSocket } from 'ws';
import { startBridgeServer } from '../../js-glue/node/bridge-server.js';
import { BrowserPairing, newPairingCode, normalizeCode } from '../../js-glue/bridge-pairing.js';
import { startDesktopBridge } from '../fixtures/desktop-bridge.mjs';
import { median, pct } from './stats.mjs';

const quick = process.argv.includes('--quick');
const PAIRINGS = quick ? 20 : 100;
const TRIPS = quick ? 300 : 2000;
const KEY = '1:postmessage';

const open = (url) => new Promise((resolve, reject) => {
  const ws = new WebSocket(url);
  ws.once('open', () => resolve(ws));
  ws.once('error', reject);
});
const closeWs = (ws) => new Promise((r) => { if (ws.readyState === WebSocket.CLOSED) return r(); ws.once('close', r); ws.close(); });

/** Connect and pair; resolves with the socket once paired. */
async function pairedSocket(url, code) {
  const ws = await open(url);
  await new Promise((resolve, reject) => {
    const p = new BrowserPairing(normalizeCode(code), (t) => ws.send(t), (o) => (o === 'paired' ? resolve() : reject(new Error(o))));
    ws.on('message', (d) => {
      const m = JSON.parse(String(d));
      if (String(m.type).startsWith('pair-')) p.receive(m);
    });
    p.start();
  });
  ws.removeAllListeners('message');
  return ws;
}

/** The extension's stand-in: announces one provider and answers what is relayed to it. */
function actAsBrowser(ws) {
  ws.send(JSON.stringify({ type: 'provider-available', tabId: 1, providerKey: KEY, provider: { id: 'bench', name: 'Bench', transport: 'postmessage' } }));
  ws.on('message', (d) => {
    const m = JSON.parse(String(d));
    if (m.type !== 'slop-relay' || m.providerKey !== KEY) return;
    const msg = m.message;
    // A broadcasting server hands the extension its own frames back: only requests are answered.
    let reply = null;
    if (msg.type === 'connect') reply = { type: 'hello', provider: { id: 'bench', name: 'Bench', slop_version: '0.1' }, capabilities: ['state'] };
    else if (msg.type === 'invoke') reply = { type: 'result', id: msg.id, status: 'ok', data: { n: 1.5 } };
    if (reply) ws.send(`{"type":"slop-relay","providerKey":${JSON.stringify(KEY)},"message":${JSON.stringify(reply)}}`);
  });
}

/** A desktop consumer (the TypeScript client's way): relay-open, connect, then invokes one at a time. */
async function consumer(url) {
  const ws = await open(url);
  const waiting = new Map();
  let hello;
  const gotHello = new Promise((r) => { hello = r; });
  ws.on('message', (d) => {
    const m = JSON.parse(String(d));
    if (m.type !== 'slop-relay' || m.providerKey !== KEY) return;
    if (m.message.type === 'hello') hello();
    if (m.message.type === 'result') waiting.get(m.message.id)?.();
  });
  const relay = (message) => ws.send(JSON.stringify({ type: 'slop-relay', providerKey: KEY, message }));
  ws.send(JSON.stringify({ type: 'relay-open', providerKey: KEY }));
  relay({ type: 'connect' });
  await gotHello;
  let n = 0;
  return {
    ws,
    async trip(tag) {
      const id = `inv-${tag}-${++n}`;
      const t0 = process.hrtime.bigint();
      await new Promise((resolve) => {
        waiting.set(id, resolve);
        relay({ type: 'invoke', id, path: '/a', action: 'go', params: { x: 1 } });
      });
      waiting.delete(id);
      return Number(process.hrtime.bigint() - t0) / 1000;
    },
  };
}

const fmt = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${median(s).toFixed(0).padStart(5)} µs, p95 ${pct(s, 95).toFixed(0).padStart(5)} µs`;
};

async function roundTrips(url, consumers) {
  const cs = [];
  for (let i = 0; i < consumers; i++) cs.push(await consumer(url));
  for (let i = 0; i < 50; i++) await Promise.all(cs.map((c, k) => c.trip(`w${k}`))); // warm up
  const times = [];
  for (let i = 0; i < TRIPS / consumers; i++) times.push(...await Promise.all(cs.map((c, k) => c.trip(`${k}`))));
  await Promise.all(cs.map((c) => closeWs(c.ws)));
  return times;
}

const code = newPairingCode();
const ours = await startBridgeServer({ port: 0, code, log: () => {} });

// Pairing, against a bare connect to the same server.
const bare = [];
const paired = [];
for (let i = 0; i < PAIRINGS; i++) {
  let t0 = process.hrtime.bigint();
  const a = await open(ours.url);
  bare.push(Number(process.hrtime.bigint() - t0) / 1000);
  await closeWs(a);
  t0 = process.hrtime.bigint();
  const b = await pairedSocket(ours.url, code);
  paired.push(Number(process.hrtime.bigint() - t0) / 1000);
  await closeWs(b);
}
console.log(`pairing (${PAIRINGS} connections to slop-inspector bridge on loopback)`);
console.log(`  bare connect        ${fmt(bare)}`);
console.log(`  connect + pairing   ${fmt(paired)}`);

// Round trips: ours, then the TypeScript server's emulation, with the same browser and consumers.
const browserOurs = await pairedSocket(ours.url, code);
actAsBrowser(browserOurs);
await new Promise((r) => setTimeout(r, 100));
const ts = await startDesktopBridge({ kind: 'ts' });
const browserTs = await open(ts.url);
actAsBrowser(browserTs);
await new Promise((r) => setTimeout(r, 100));

console.log(`invoke → result through the bridge (${TRIPS} round trips, loopback)`);
for (const n of [1, 4]) {
  const a = await roundTrips(ours.url, n);
  const b = await roundTrips(ts.url, n);
  console.log(`  ${n} consumer${n > 1 ? 's' : ' '}  slop-inspector bridge ${fmt(a)}   TypeScript server (emulated) ${fmt(b)}   ratio ${(median(a) / median(b)).toFixed(2)}x`);
}

await closeWs(browserOurs);
await closeWs(browserTs);
await ours.close();
await ts.close();
