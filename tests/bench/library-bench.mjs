// library-bench.mjs: what a user's test pays for each call of the test library, side by side
// with a bare `ws` client in the same run (the floor: one WebSocket round trip, JSON.parse).
//
//   Node client (slop-inspector/node): connect until live, node() read, invoke round trip
//   Playwright (slop-inspector/playwright): launch, provider() until live, node(), invoke
//     (each call is one worker.evaluate into the extension's service worker)
//
// Prints medians (and p90) in ms. Never fails on time. Usage: node tests/bench/library-bench.mjs [--quick]

import { WebSocket } from 'ws';
import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { connect } from '../../js-glue/node/client.js';
import { launchWithSlop, Slop } from '../../js-glue/node/playwright.js';

const quick = process.argv.includes('--quick');
const N = quick ? 50 : 200;
const ORIGIN = 'http://bench.example';

const srv = await startWsProvider({
  host: '127.0.0.1', port: 0, allowedOrigins: ['chrome-extension://', ORIGIN],
  createEngine: () => createMailEngine({ messages: 300 }),
});

async function times(n, fn) {
  const t = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return { median: t[Math.floor(t.length / 2)], p90: t[Math.floor(t.length * 0.9)] };
}
const row = (name, r) => console.log(`  ${name.padEnd(46)} ${r.median.toFixed(3).padStart(9)} ms median  ${r.p90.toFixed(3).padStart(9)} ms p90`);

// --- baseline: a bare ws client ------------------------------------------------------------
async function bareClient() {
  const ws = new WebSocket(srv.wsUrl, ['slop.bearer', srv.token], { origin: ORIGIN });
  const waiters = new Map();
  let snapshot;
  const ready = new Promise((resolve) => {
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      if (m.type === 'hello') ws.send(JSON.stringify({ type: 'subscribe', id: 'sub-1', path: '/', depth: -1 }));
      else if (m.type === 'snapshot' && !snapshot) { snapshot = m; resolve(); }
      else if (m.type === 'result') waiters.get(m.id)?.(m);
    });
  });
  await ready;
  let next = 0;
  return {
    invoke: (path, action) => new Promise((resolve) => {
      const id = `inv-${next++}`;
      waiters.set(id, resolve);
      ws.send(JSON.stringify({ type: 'invoke', id, path, action }));
    }),
    close: () => ws.close(),
  };
}

console.log(`library-bench: ${N} calls per row, a mail provider of 300 messages (${srv.wsUrl})`);
console.log('\n*** baseline: bare ws client (JSON.parse, no mirror)');
row('connect + hello + snapshot', await times(quick ? 5 : 10, async () => (await bareClient()).close()));
const bare = await bareClient();
row('invoke round trip (open)', await times(N, (i) => bare.invoke(`/inbox/msg-${300 - (i % 50)}`, 'open')));
bare.close();

console.log('\n*** Node client (slop-inspector/node)');
row('connect until live', await times(quick ? 5 : 10, async () => (await connect(srv.wsUrl, { token: srv.token, origin: ORIGIN })).close()));
const app = await connect(srv.wsUrl, { token: srv.token, origin: ORIGIN });
row('node(path)', await times(N, (i) => app.node(`/inbox/msg-${300 - (i % 50)}`)));
row('invoke round trip (open)', await times(N, (i) => app.invoke(`/inbox/msg-${300 - (i % 50)}`, 'open')));
row('text() of the whole tree', await times(quick ? 10 : 50, () => app.text()));
app.close();

console.log('\n*** Playwright (slop-inspector/playwright, Chromium headless)');
let context;
row('launchWithSlop (Chromium, extension, core ready)', await times(quick ? 1 : 3, async (i) => {
  const c = await launchWithSlop({ tokens: { [new URL(srv.wsUrl).origin]: srv.token } });
  if (i === (quick ? 0 : 2)) context = c; else await c.close();
}));
const slop = new Slop(context);
const page = await context.newPage();
const pageUrl = `${srv.url('/pages/meta-ws.html')}`;
row('goto + provider() until live', await times(quick ? 3 : 5, async () => {
  await page.goto(`${pageUrl}?${Math.random()}`);
  await slop.provider(page, { name: 'Acme Mail' });
}));
const web = await slop.provider(page, { name: 'Acme Mail' });
row('node(path)', await times(N, (i) => web.node(`/inbox/msg-${300 - (i % 50)}`)));
row('invoke round trip (open)', await times(N, (i) => web.invoke(`/inbox/msg-${300 - (i % 50)}`, 'open')));
row('text() of the whole tree', await times(quick ? 10 : 50, () => web.text()));
await context.close();
await srv.close();
