// cost-bench.mjs: the Cost tab (issue 49) in the DevTools panel under load (a script that prints
// figures; it never fails on time). Called by tests/bench/run.sh.
//
//   node tests/bench/cost-bench.mjs [--quick] [--seconds N] [--rate N]
//
// panel-bench.mjs's provider (a 10,101-node tree) sends RATE patches a second for SECONDS seconds
// with the Cost tab closed, then the tab is opened and the first full count is timed (the click to
// a report that says it is complete: every text of the tree and every tool counted, in the panel's
// Web Worker), then the load runs as long again with the tab open. In the panel page: every
// animation frame's interval and the tasks over 50 ms (a long-task observer), per phase. Also: the
// worker's ui/profile answer timed from the panel (the core's profile of the whole tree, texts only
// of what changed), and how many reports the tab drew during the load.

import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { startBenchProvider, benchPatcher, NODES, pct } from './panel-bench.mjs';
import { launch, setTokenInExtension, wsOrigin, waitForProvider, openPanel, until, sleep } from '../e2e/helpers.mjs';
import { Request } from '../../extension/shared/messages.js';

process.env.PLAYWRIGHT_DISABLE_SERVICE_WORKER_NETWORK ??= '1';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    seconds: { type: 'string' },
    rate: { type: 'string', default: '100' },
  },
});
const SECONDS = Number(args.seconds ?? (args.quick ? 5 : 10));
const RATE = Number(args.rate);
const now = () => performance.timeOrigin + performance.now();
const ms = (x) => (x === undefined || x === null ? '—' : `${x.toFixed(1)} ms`);

/** In the panel: frame intervals, long tasks and Cost reports from now on (read and reset by take()). */
function instrument() {
  const b = (window.__bench = { frames: [], long: [], reports: 0, lastAt: null });
  let last = performance.now();
  const loop = (t) => {
    b.frames.push(t - last);
    last = t;
    const at = window.slopPanel.cost?.state?.report?.at ?? null;
    if (at !== null && at !== b.lastAt) { b.reports++; b.lastAt = at; }
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  new PerformanceObserver((list) => { for (const e of list.getEntries()) b.long.push(e.duration); }).observe({ type: 'longtask' });
}

function take() {
  const b = window.__bench;
  const out = { frames: b.frames, long: b.long, reports: b.reports };
  b.frames = [];
  b.long = [];
  b.reports = 0;
  return out;
}

function summary(name, { frames, long, reports }) {
  const f = [...frames].sort((a, b) => a - b);
  const l = [...long].sort((a, b) => a - b);
  console.log(`${name}:`);
  console.log(`  frames: ${frames.length}   p50 ${ms(pct(f, 50))}   p99 ${ms(pct(f, 99))}   max ${ms(f.at(-1))}   over 20 ms: ${frames.filter((x) => x > 20).length}`);
  console.log(`  tasks over 50 ms: ${l.length}${l.length ? ` (longest ${ms(l.at(-1))})` : ''}`);
  if (reports) console.log(`  Cost reports drawn: ${reports}`);
}

async function main() {
  const srv = await startBenchProvider();
  const browser = await launch();
  try {
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/bench.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.url('/bench.html'), (p) => p.status === 'connected' && p.nodes >= NODES, { timeout: 60_000 });
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.setViewportSize({ width: 1280, height: 800 });
    await until(() => panel.evaluate(() => !!window.slopPanel.marks.mirrorComplete), { what: 'the whole mirror', timeout: 60_000 });
    await panel.evaluate(instrument);

    let seed = 4242;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
    let k = 0;
    const nextPatch = benchPatcher(srv, rnd);
    const load = async () => {
      const total = Math.round(SECONDS * RATE);
      const start = now();
      for (let n = 0; n < total; n++) {
        const wait = start + (n * 1000) / RATE - now();
        if (wait > 1) await sleep(wait);
        nextPatch(k++);
      }
      return (now() - start) / 1000;
    };

    // ------------------------------------------------------------------ the Cost tab closed
    await sleep(500);
    await panel.evaluate(take);
    const closedSecs = await load();
    const closed = await panel.evaluate(take);

    // ------------------------------------------------------------------ the first full count
    await sleep(500);
    await panel.evaluate(take);
    const t0 = now();
    await panel.click('#side-tabs button[data-tab="cost"]');
    await until(() => panel.evaluate(() => {
      const r = window.slopPanel.cost?.state?.report;
      return !!r && r.complete && r.totals.nodes > 10000;
    }), { what: 'a complete count of the tree', timeout: 120_000, interval: 20 });
    const firstCount = now() - t0;
    const counting = await panel.evaluate(take);
    const report = await panel.evaluate(() => window.slopPanel.cost.state.report);

    // ------------------------------------------------------------------ the Cost tab open
    const rtts = [];
    const openSecs = await Promise.all([load(), (async () => {
      for (let i = 0; i < 5; i++) {
        await sleep(SECONDS * 1000 / 6);
        rtts.push(await panel.evaluate(async ([type, key]) => {
          const t = performance.now();
          await window.slopPanel.request(type, { key, since: 1 });
          return performance.now() - t;
        }, [Request.PROFILE, provider.key]));
      }
    })()]).then(([s]) => s);
    const open = await panel.evaluate(take);

    console.log(`The Cost tab on a ${NODES.toLocaleString()}-node tree, ${RATE} patches/s, ${SECONDS} s closed then open (sent in ${closedSecs.toFixed(1)} s and ${openSecs.toFixed(1)} s):`);
    summary('Cost tab closed', closed);
    console.log(`first full count, the tab's click → a complete report: ${ms(firstCount)} (${report.totals.tokens.toLocaleString()} tokens, ${report.totals.toolTokens.toLocaleString()} tool tokens, ${report.totals.chars.toLocaleString()} characters of tree text; counted in the panel's worker)`);
    summary('  during that count', counting);
    summary('Cost tab open', open);
    const r = [...rtts].sort((a, b) => a - b);
    console.log(`  the worker's ui/profile answer (whole tree, texts changed since, from the panel): p50 ${ms(pct(r, 50))}   max ${ms(r.at(-1))}`);
    console.log('  (aims: the first count under 1 s off the panel\'s main thread, no task over 50 ms with the tab open)');
  } finally {
    await browser.close();
    await srv.close();
  }
}

await main();
