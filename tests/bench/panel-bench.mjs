// panel-bench.mjs: the DevTools panel in headless Chromium with the extension (a script that
// prints figures; it never fails on time). Called by tests/bench/run.sh.
//
//   node tests/bench/panel-bench.mjs [--quick] [--seconds N] [--rate N]
//
// A provider (here, in Node) serves a 10,101-node tree (100 groups of 100 items under the root)
// and, once the panel holds the whole mirror, sends RATE patches a second for SECONDS seconds:
// half change the label of a row on screen, the rest change labels of nodes off screen, add and
// remove nodes and change salience. Each on-screen change writes "@<send time>" into the label;
// the send time is taken just before the frame goes out, with performance.timeOrigin +
// performance.now(). In the panel page a MutationObserver notes when a row showing that label
// enters the DOM, on the page's own clock; the offset between the two clocks is measured with
// round trips (the smallest of 30) and taken off. Figures: median, p95 and max patch → DOM, and
// first render (panel opened → rows in the DOM, sw/tree-reset arrival → rows, → whole mirror loaded).

import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { startGatedServer } from '../fixtures/provider/ws-server.mjs';
import { ALL_CAPABILITIES, SLOP_VERSION } from '../fixtures/provider/state.mjs';
import { launch, setTokenInExtension, wsOrigin, waitForProvider, openPanel, until, sleep, currentWorker } from '../e2e/helpers.mjs';
import { median, pct } from './stats.mjs';
export { pct };

// Playwright inspects the service worker's network traffic: every WebSocket frame the worker
// receives becomes a DevTools event sent to Playwright, which costs the worker's thread more than
// the frame itself. A user's browser has no such observer, so the bench turns it off.
process.env.PLAYWRIGHT_DISABLE_SERVICE_WORKER_NETWORK ??= '1';

const isMain = import.meta.url === pathToFileURL(process.argv[1] ?? '').href;
const { values: args } = parseArgs({
  strict: isMain, // imported by another bench, whose options these are not
  options: {
    quick: { type: 'boolean', default: false },
    seconds: { type: 'string' },
    rate: { type: 'string', default: '100' },
    runs: { type: 'string' },
    // Writes CPU profiles of the service worker and the panel during the soak
    // (FILE.worker.cpuprofile, FILE.panel.cpuprofile; open them in DevTools' Performance panel)
    // and prints the worker's heaviest functions by self time.
    profile: { type: 'string' },
  },
});
const SECONDS = Number(args.seconds ?? (args.quick ? 4 : 10));
const RATE = Number(args.rate);
const FIRST_RENDER_RUNS = Number(args.runs ?? (args.quick ? 2 : 5));
const GROUPS = 100;
const PER_GROUP = 100;
const VISIBLE = 20; // items of g0 that are on screen in an 800 px panel

const now = () => performance.timeOrigin + performance.now();

export function bigTree() {
  const groups = [];
  for (let g = 0; g < GROUPS; g++) {
    const items = [];
    for (let i = 0; i < PER_GROUP; i++) {
      items.push({
        id: `n${g}-${i}`, type: 'item',
        properties: { label: `Item ${g}-${i}`, n: i, group: g },
        meta: { salience: ((g + i) % 10) / 10 },
        ...(i % 25 === 0 ? { affordances: [{ action: 'poke', label: 'Poke' }] } : {}),
      });
    }
    groups.push({ id: `g${g}`, type: 'collection', properties: { label: `Group ${g}` }, children: items });
  }
  return { id: 'bench', type: 'root', properties: { label: 'Panel bench' }, children: groups };
}
export const NODES = 1 + GROUPS * (1 + PER_GROUP);

/** The bench provider: the whole tree to every subscribe (it ignores max_nodes, as the reference
 * browser provider does), then patches on demand. */
export async function startBenchProvider() {
  const tree = bigTree();
  const conns = new Set();
  const srv = await startGatedServer({
    descriptor: { id: 'bench', name: 'Panel bench', slop_version: SLOP_VERSION, capabilities: [...ALL_CAPABILITIES] },
    pages: { '/bench.html': '<!doctype html><meta charset="utf-8"><meta name="slop" content="{{WS_URL}}"><title>panel bench</title>' },
    onSocket(ws) {
      const conn = { ws, sub: null, version: 1, seq: 0 };
      conns.add(conn);
      ws.on('close', () => conns.delete(conn));
      ws.on('message', (data) => {
        let m;
        try { m = JSON.parse(data.toString('utf8')); } catch { return; }
        if (m.type === 'subscribe') {
          conn.sub = m.id;
          conn.seq = 0;
          ws.send(JSON.stringify({ type: 'snapshot', id: m.id, version: conn.version, seq: 0, tree }));
        } else if (m.type === 'query') {
          ws.send(JSON.stringify({ type: 'snapshot', id: m.id, version: conn.version, tree }));
        } else if (m.type === 'invoke') {
          ws.send(JSON.stringify({ type: 'result', id: m.id, status: 'ok' }));
        }
      });
      ws.send(JSON.stringify({ type: 'hello', provider: { id: 'bench', name: 'Panel bench', slop_version: SLOP_VERSION, capabilities: [...ALL_CAPABILITIES] } }));
    },
  });
  /** Sends one patch to every subscriber; `ops` may use the stamp (taken right before sending). */
  srv.sentAt = new Map(); // version → send time
  srv.patch = (makeOps) => {
    const stamp = now();
    const ops = makeOps(stamp);
    for (const c of conns) {
      if (!c.sub || c.ws.readyState !== c.ws.OPEN) continue;
      c.version += 1;
      srv.sentAt.set(c.version, stamp);
      c.seq += 1;
      c.ws.send(JSON.stringify({ type: 'patch', subscription: c.sub, version: c.version, seq: c.seq, ops }));
    }
    return stamp;
  };
  return srv;
}

/**
 * The bench's mix of patches, one per call with the patch's number k: every other one relabels a
 * row on screen (visibleIndex(k); onVisibleStamp(text, stamp) sees the label's time stamp), the rest
 * relabel rows off screen, change a salience, or add and remove items under /g50.
 */
export function benchPatcher(srv, rnd, { visibleIndex = () => Math.floor(rnd() * VISIBLE), onVisibleStamp = () => {} } = {}) {
  const live = [];
  let added = 0;
  return (k) => {
    const kind = k % 2 === 0 ? 'visible' : ['offscreen', 'offscreen', 'offscreen', 'salience', 'add', 'remove'][Math.floor(rnd() * 6)];
    if (kind === 'visible') {
      const i = visibleIndex(k);
      srv.patch((stamp) => {
        const s = stamp.toFixed(3);
        onVisibleStamp(s, stamp);
        return [{ op: 'replace', path: `/g0/n0-${i}/properties/label`, value: `Item 0-${i} @${s}` }];
      });
    } else if (kind === 'offscreen') {
      const g = 2 + Math.floor(rnd() * (GROUPS - 2));
      const i = Math.floor(rnd() * PER_GROUP);
      srv.patch((stamp) => [{ op: 'replace', path: `/g${g}/n${g}-${i}/properties/label`, value: `Item ${g}-${i} #${stamp.toFixed(0)}` }]);
    } else if (kind === 'salience') {
      const g = 2 + Math.floor(rnd() * (GROUPS - 2));
      const i = Math.floor(rnd() * PER_GROUP);
      srv.patch(() => [{ op: 'replace', path: `/g${g}/n${g}-${i}/meta`, value: { salience: Math.round(rnd() * 100) / 100 } }]);
    } else if (kind === 'add' || live.length === 0) {
      const id = `x${added++}`;
      live.push(id);
      srv.patch(() => [{ op: 'add', path: `/g50/${id}`, value: { id, type: 'item', properties: { label: `Added ${id}` } } }]);
    } else {
      srv.patch(() => [{ op: 'remove', path: `/g50/${live.shift()}` }]);
    }
  };
}

const ms = (x) => `${x.toFixed(1)} ms`;

/** Offset of the page's clock against ours: page = node + offset, ± half the best round trip. */
async function clockOffset(page) {
  let best = null;
  for (let i = 0; i < 30; i++) {
    const t0 = now();
    const tp = await page.evaluate(() => performance.timeOrigin + performance.now());
    const t1 = now();
    if (!best || t1 - t0 < best.rtt) best = { rtt: t1 - t0, offset: tp - (t0 + t1) / 2 };
  }
  return best;
}

export const DEBUG_PORT = 9329;

/**
 * A CPU profiler on the extension's service worker, over a CDP connection of its own (Playwright
 * gives CDP sessions for pages only). Returns stop() → the profile.
 */
export async function profileWorker() {
  const { WebSocket } = await import('ws');
  const version = await (await fetch(`http://127.0.0.1:${DEBUG_PORT}/json/version`)).json();
  const ws = new WebSocket(version.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  let nextId = 1;
  const waiting = new Map();
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString('utf8'));
    if (m.id && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
  });
  const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
    ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
  });
  const { targetInfos } = await send('Target.getTargets');
  const target = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith('chrome-extension://'));
  if (!target) throw new Error('no extension service worker to profile');
  const { sessionId } = await send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
  await send('Profiler.enable', {}, sessionId);
  await send('Profiler.setSamplingInterval', { interval: 200 }, sessionId);
  await send('Profiler.start', {}, sessionId);
  return async () => {
    const { profile } = await send('Profiler.stop', {}, sessionId);
    ws.close();
    return profile;
  };
}

/** Self time per function (name, file:line) of a CPU profile, heaviest first. */
export function selfTimes(profile) {
  const dt = new Map();
  for (let i = 0; i < profile.samples.length; i++) dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const byName = new Map();
  let total = 0;
  for (const n of profile.nodes) {
    const us = dt.get(n.id) ?? 0;
    total += us;
    const f = n.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url ? `${f.url.split('/').pop()}:${f.lineNumber + 1}` : ''}`.trim();
    byName.set(name, (byName.get(name) ?? 0) + us);
  }
  return { total, top: [...byName].sort((a, b) => b[1] - a[1]) };
}

async function main() {
  const srv = await startBenchProvider();
  const browser = await launch({ extraArgs: args.profile ? [`--remote-debugging-port=${DEBUG_PORT}`] : [] });
  try {
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/bench.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.url('/bench.html'), (p) => p.status === 'connected' && p.nodes >= NODES, { timeout: 60_000 });

    // ------------------------------------------------------------------ first render
    const first = [];
    let panel = null;
    for (let r = 0; r < FIRST_RENDER_RUNS; r++) {
      panel = await openPanel(browser.ctx, browser.extId, tabId);
      await panel.setViewportSize({ width: 1280, height: 800 });
      const m = await until(() => panel.evaluate(() => {
        const k = window.slopPanel.marks;
        return k.firstRowsPainted && k.mirrorComplete ? { ...k, origin: performance.timeOrigin, size: window.slopPanel.currentTree().nodes.size } : null;
      }), { what: 'the first render and the whole mirror', timeout: 60_000 });
      first.push({
        open: m.firstRows - m.origin,
        openPaint: m.firstRowsPainted - m.origin,
        reset: m.firstRows - m.firstReset,
        resetRows: m.firstRowsCount,
        mirror: m.mirrorComplete - m.origin,
        size: m.size,
      });
      if (r < FIRST_RENDER_RUNS - 1) await panel.close();
    }

    // ------------------------------------------------------------------ patch → DOM
    // Open the first group; its first rows are on screen.
    await panel.click('#tree .row[data-path="/g0"] .twisty');
    await panel.locator(`#tree .row[data-path="/g0/n0-${VISIBLE - 1}"]`).waitFor({ timeout: 10_000 });
    await panel.evaluate(() => {
      window.__seen = new Map();
      const grab = (el) => {
        const t = el?.querySelector?.(".nsum")?.textContent;
        const m = t && /@(\d+\.\d+)$/.exec(t);
        if (m && !window.__seen.has(m[1])) window.__seen.set(m[1], performance.timeOrigin + performance.now());
      };
      // A row shows a new label as a new row element, or (rows keep their element: dom.js morph)
      // as new text in the one it has.
      new MutationObserver((records) => {
        for (const r of records) {
          if (r.type === 'characterData') grab(r.target.parentElement?.closest('.row'));
          else for (const n of r.addedNodes) if (n.nodeType === 1) grab(n);
        }
      }).observe(document.getElementById('tree'), { childList: true, subtree: true, characterData: true });
      // Tasks over 50 ms on the panel's main thread: frames the user would see stall.
      window.__long = [];
      new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push(e.duration); })
        .observe({ type: 'longtask' });
    });
    const clock = await clockOffset(panel);

    const total = Math.round(SECONDS * RATE);
    const sent = new Map(); // stamp text → send time
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
    // The worker's lag, sampled every 50 ms: how long ago the oldest patch it has not applied
    // yet was sent (0 when it has applied everything sent).
    const sw = await currentWorker(browser.ctx);
    const workerLag = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const v = await sw.evaluate(([t, k]) => globalThis.slopInspector.info(t, k)?.subscriptions?.[0]?.version ?? 0, [tabId, provider.key]);
        const t = now();
        const next = srv.sentAt.get(v + 1);
        workerLag.push(next !== undefined && next < t ? t - next : 0);
        await sleep(50);
      }
    })();
    const stopWorkerProfile = args.profile ? await profileWorker() : null;
    let panelCdp = null;
    if (args.profile) {
      panelCdp = await browser.ctx.newCDPSession(panel);
      await panelCdp.send('Profiler.enable');
      await panelCdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await panelCdp.send('Profiler.start');
    }
    const patchOne = benchPatcher(srv, rnd, { visibleIndex: (k) => (k / 2) % VISIBLE, onVisibleStamp: (s, stamp) => sent.set(s, stamp) });
    const start = now();
    for (let k = 0; k < total; k++) {
      const due = start + (k * 1000) / RATE;
      const wait = due - now();
      if (wait > 1) await sleep(wait);
      patchOne(k);
    }
    const elapsed = (now() - start) / 1000;
    sampling = false;
    await sampler;
    workerLag.sort((a, b) => a - b);
    // How long after the last send the panel shows the provider's last version (the whole
    // path's backlog: worker and panel), up to 60 s.
    const lastSent = now();
    let caughtUp = null;
    while (now() - lastSent < 60_000) {
      const v = await panel.evaluate(() => window.slopPanel.currentTree()?.version);
      if (v === 1 + total) { caughtUp = now() - lastSent; break; }
      await sleep(20);
    }
    if (args.profile) {
      const { writeFile } = await import('node:fs/promises');
      const wp = await stopWorkerProfile();
      const { profile: pp } = await panelCdp.send('Profiler.stop');
      await writeFile(`${args.profile}.worker.cpuprofile`, JSON.stringify(wp));
      await writeFile(`${args.profile}.panel.cpuprofile`, JSON.stringify(pp));
      for (const [what, p] of [['service worker', wp], ['panel', pp]]) {
        const { total: t, top } = selfTimes(p);
        console.log(`${what}: heaviest functions by self time (of ${(t / 1000).toFixed(0)} ms profiled):`);
        for (const [name, us] of top.slice(0, 15)) console.log(`  ${(us / 1000).toFixed(0).padStart(7)} ms  ${(100 * us / t).toFixed(1).padStart(5)} %  ${name}`);
      }
      console.log(`profiles: ${args.profile}.worker.cpuprofile, ${args.profile}.panel.cpuprofile`);
    }
    await sleep(500);
    const longTasks = (await panel.evaluate(() => window.__long)).sort((a, b) => a - b);
    const seen = new Map(await panel.evaluate(() => [...window.__seen]));
    const lat = [];
    for (const [s, t] of sent) if (seen.has(s)) lat.push(seen.get(s) - clock.offset - t);
    lat.sort((a, b) => a - b);
    const version = await panel.evaluate(() => window.slopPanel.currentTree().version);

    // ------------------------------------------------------------------ report
    const f = (key) => median(first.map((x) => x[key]));
    console.log(`panel first render, ${NODES.toLocaleString()}-node tree (median of ${first.length} panel openings):`);
    console.log(`  panel opened → first rows in the DOM      ${ms(f('open'))}  (painted: ${ms(f('openPaint'))})`);
    console.log(`  sw/tree-reset arrival → first rows        ${ms(f('reset'))}  (the reset carries ${first[0].resetRows} views)`);
    console.log(`  panel opened → whole mirror in the panel  ${ms(f('mirror'))}  (${first[0].size.toLocaleString()} views, ui/get-nodes pages of 1000)`);
    console.log(`patch → DOM at ${RATE} patches/s for ${SECONDS} s (${total} patches sent in ${elapsed.toFixed(1)} s; ${sent.size} on rows on screen):`);
    if (lat.length) {
      console.log(`  median ${ms(pct(lat, 50))}   p95 ${ms(pct(lat, 95))}   p99 ${ms(pct(lat, 99))}   max ${ms(lat.at(-1))}   (${lat.length} measured; clock offset ±${(clock.rtt / 2).toFixed(2)} ms)`);
    }
    console.log(`  the worker's lag behind the provider (${workerLag.length} samples): median ${ms(pct(workerLag, 50))}   p99 ${ms(pct(workerLag, 99))}   max ${ms(workerLag.at(-1))} (aim: p99 < 100 ms)`);
    const missed = sent.size - lat.length;
    if (missed) console.log(`  ${missed} on-screen labels never showed (overwritten by a newer patch before a render)`);
    console.log(`  the panel ended at v${version} (provider: v${1 + total}); ${caughtUp === null ? 'not caught up 60 s after the last send' : `caught up ${ms(caughtUp)} after the last send`}`);
    console.log(`  panel tasks over 50 ms: ${longTasks.length}${longTasks.length ? ` (longest ${ms(longTasks.at(-1))})` : ''} (aim: none)`);
  } finally {
    await browser.close();
    await srv.close();
  }
}

// Run as a script; imported (history-bench.mjs takes its provider), it only defines.
if (isMain) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
