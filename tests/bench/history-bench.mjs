// history-bench.mjs: the DevTools panel under load with the History closed, then open, in the same
// run (a script that prints figures; it never fails on time). Called by tests/bench/run.sh.
//
//   node tests/bench/history-bench.mjs [--quick] [--seconds N] [--rate N] [--profile FILE] [--ext DIR]
//
// panel-bench.mjs's provider (a 10,101-node tree) sends RATE patches a second (labels on screen and
// off, nodes added and removed) for SECONDS seconds with the History closed, then as long again
// with the strip and the History tab open. The second phase runs the worker's history past its
// 1,000-step bound, so its drops (a quarter at a time, each with a checkpoint of the whole tree) fall
// inside it. In the panel page: every animation frame's interval (a frame over 16.7 ms is a frame
// the user did not get), the tasks over 50 ms (a long-task observer), and, with the History open,
// the time from a click on a step row to the next paint after the tree, banner, strip, list and diff
// show that step (and the same for "Live" after it). Also timed from the panel: the worker's
// answer to ui/history-state (a step's whole state, rebuilt by a replay core).

import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { writeFile } from 'node:fs/promises';
import { startBenchProvider, benchPatcher, NODES, pct, profileWorker, selfTimes, DEBUG_PORT } from './panel-bench.mjs';
import { launch, setTokenInExtension, wsOrigin, waitForProvider, openPanel, until, sleep } from '../e2e/helpers.mjs';
import { Request } from '../../extension/shared/messages.js';

process.env.PLAYWRIGHT_DISABLE_SERVICE_WORKER_NETWORK ??= '1';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    seconds: { type: 'string' },
    rate: { type: 'string', default: '100' },
    profile: { type: 'string' },
    // Another unpacked build of the extension (the same bench on a build from before a change).
    ext: { type: 'string' },
  },
});
const SECONDS = Number(args.seconds ?? (args.quick ? 5 : 8));
const RATE = Number(args.rate);
const VISIBLE = 20;
const now = () => performance.timeOrigin + performance.now();
const ms = (x) => (x === undefined ? '—' : `${x.toFixed(1)} ms`);

/** In the panel: frame intervals and long tasks from now on (read and reset by take()). */
function instrument() {
  const b = (window.__bench = { frames: [], long: [] });
  let last = performance.now();
  const loop = (t) => {
    b.frames.push(t - last);
    last = t;
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  new PerformanceObserver((list) => { for (const e of list.getEntries()) b.long.push(e.duration); }).observe({ type: 'longtask' });
}

function take() {
  const b = window.__bench;
  const out = { frames: b.frames, long: b.long };
  b.frames = [];
  b.long = [];
  return out;
}

/**
 * In the panel: clicks the row `back` rows above the newest and waits until every place shows that
 * step (tree source, banner, strip, selected row, diff), then for the paint after it. Then "Live"
 * the same way. Returns {step, click, live} in ms, or null if there was no such row.
 */
async function clickStep(back) {
  // The rows in the DOM (the list may keep only those on screen), from the newest back.
  const rows = document.querySelectorAll('#history .step-row');
  const row = rows[Math.max(0, rows.length - 1 - (back % Math.max(1, rows.length)))];
  if (!row) return null;
  const step = Number(row.dataset.step);
  const paint = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const settle = async (ok) => {
    for (let i = 0; i < 2000 && !ok(); i++) await new Promise((r) => setTimeout(r, 1));
    await paint();
  };
  const t0 = performance.now();
  row.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  await settle(() => window.slopPanel.historyShown() === step
    && document.querySelector('#banner')?.dataset.kind === 'scrub'
    && document.querySelector('#history .step-row.selected')?.dataset.step === String(step)
    && window.slopPanel.lastDiff?.toStep === step);
  const click = performance.now() - t0;
  const t1 = performance.now();
  document.querySelector('#history-strip [data-action="h-live"]').click();
  await settle(() => window.slopPanel.historyShown() === null && document.querySelector('#banner').hidden);
  return { step, click, live: performance.now() - t1 };
}

/** In the panel: a row in view near the end of the step list, to aim the mouse at ({x, y, step} or null). */
function aimAtRow(back) {
  const lr = document.querySelector('#history .steps').getBoundingClientRect();
  const rows = [...document.querySelectorAll('#history .step-row')].filter((r) => {
    const b = r.getBoundingClientRect();
    return b.top >= lr.top && b.bottom <= lr.bottom;
  });
  const row = rows[Math.max(0, rows.length - 1 - (back % Math.max(1, rows.length)))];
  if (!row) return null;
  const b = row.getBoundingClientRect();
  // The time of the press, taken in the page (the click's own clock).
  document.querySelector('#history .steps').addEventListener('pointerdown', () => { window.__pressAt = performance.now(); }, { once: true });
  return { x: b.left + b.width / 3, y: b.top + b.height / 2, step: Number(row.dataset.step) };
}

/**
 * In the panel, after a real click: waits until every place shows `step` (or another step: the
 * wrong one), then for the paint. {ms from the press, right: the step aimed at is the one shown}.
 */
async function clickPainted(step) {
  const paint = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  for (let i = 0; i < 2000; i++) {
    const shown = window.slopPanel.historyShown();
    if (shown !== null && document.querySelector('#banner')?.dataset.kind === 'scrub'
      && document.querySelector('#history .step-row.selected')?.dataset.step === String(shown) && window.slopPanel.lastDiff?.toStep === shown) break;
    await new Promise((r) => setTimeout(r, 1));
  }
  await paint();
  return { ms: performance.now() - window.__pressAt, right: window.slopPanel.historyShown() === step };
}

function summary(name, { frames, long }, clicks, states, mouse = []) {
  const f = [...frames].sort((a, b) => a - b);
  const l = [...long].sort((a, b) => a - b);
  const janky = frames.filter((x) => x > 20).length;
  console.log(`${name}:`);
  console.log(`  frames: ${frames.length}   p50 ${ms(pct(f, 50))}   p99 ${ms(pct(f, 99))}   max ${ms(f.at(-1))}   over 20 ms: ${janky}`);
  console.log(`  tasks over 50 ms: ${l.length}${l.length ? ` (longest ${ms(l.at(-1))}, p50 ${ms(pct(l, 50))})` : ''}`);
  if (clicks?.length) {
    const c = clicks.map((x) => x.click).sort((a, b) => a - b);
    const v = clicks.map((x) => x.live).sort((a, b) => a - b);
    console.log(`  a click on a step → all five places show it, painted (${c.length} clicks): p50 ${ms(pct(c, 50))}   p99 ${ms(pct(c, 99))}   max ${ms(c.at(-1))}`);
    console.log(`  "Live" after it → live again, painted: p50 ${ms(pct(v, 50))}   max ${ms(v.at(-1))}`);
  }
  if (mouse.length) {
    const m = mouse.map((x) => x.ms).sort((a, b) => a - b);
    console.log(`  a mouse click on a step row (the pointer on the list) → shown everywhere, painted (${m.length} clicks): p50 ${ms(pct(m, 50))}   p99 ${ms(pct(m, 99))}   max ${ms(m.at(-1))}; the step under the pointer shown: ${mouse.filter((x) => x.right).length} of ${m.length}`);
  }
  if (states?.length) {
    const s = [...states].sort((a, b) => a - b);
    console.log(`  the worker's ui/history-state (a whole ${NODES.toLocaleString()}-node state, round trip from the panel, ${s.length}): p50 ${ms(pct(s, 50))}   max ${ms(s.at(-1))}`);
  }
}

async function main() {
  const srv = await startBenchProvider();
  const browser = await launch({ ...(args.ext ? { extDir: args.ext } : {}), extraArgs: args.profile ? [`--remote-debugging-port=${DEBUG_PORT}`] : [] });
  try {
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/bench.html'));
    const { tabId, provider } = await waitForProvider(browser.ctx, srv.url('/bench.html'), (p) => p.status === 'connected' && p.nodes >= NODES, { timeout: 60_000 });
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.setViewportSize({ width: 1280, height: 800 });
    await until(() => panel.evaluate(() => !!window.slopPanel.marks.mirrorComplete), { what: 'the whole mirror', timeout: 60_000 });
    await panel.click('#tree .row[data-path="/g0"] .twisty');
    await panel.locator(`#tree .row[data-path="/g0/n0-${VISIBLE - 1}"]`).waitFor({ timeout: 10_000 });
    await panel.evaluate(instrument);

    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
    let k = 0;
    const nextPatch = benchPatcher(srv, rnd);
    const patchOne = () => nextPatch(k++);
    /** RATE patches a second for SECONDS; `during(t)` is called (not awaited) five times a second. */
    const load = async (during) => {
      const total = Math.round(SECONDS * RATE);
      const start = now();
      const side = [];
      for (let n = 0; n < total; n++) {
        const due = start + (n * 1000) / RATE;
        const wait = due - now();
        if (wait > 1) await sleep(wait);
        patchOne();
        // Five times a second, so that a run gives enough clicks for a p99.
        if (during && n % Math.max(1, Math.round(RATE / 5)) === Math.floor(RATE / 10)) side.push(during(n / RATE));
      }
      await Promise.all(side);
      return (now() - start) / 1000;
    };

    // ------------------------------------------------------------------ History closed
    await sleep(500);
    await panel.evaluate(take);
    const closedSecs = await load(null);
    const closed = await panel.evaluate(take);

    // ------------------------------------------------------------------ History open
    await panel.click('#toggle-history');
    await until(() => panel.evaluate(() => window.slopPanel.history()?.steps.length > 100 && !!document.querySelector('#history .step-row')), { what: 'the step list' });
    await sleep(500);
    const stopWorkerProfile = args.profile ? await profileWorker() : null;
    let panelCdp = null;
    if (args.profile) {
      panelCdp = await browser.ctx.newCDPSession(panel);
      await panelCdp.send('Profiler.enable');
      await panelCdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await panelCdp.send('Profiler.start');
    }
    await panel.evaluate(take);
    const clicks = [];
    const mouse = [];
    const states = [];
    let busy = false;
    let turn = 0;
    const openSecs = await load(async () => {
      if (busy) return;
      busy = true;
      try {
        // Alternately: a click on a step a little back, and the worker's answer for a whole state.
        const kind = turn++ % 3;
        if (kind === 0) {
          const r = await panel.evaluate(clickStep, 3 + Math.floor(rnd() * 10));
          if (r) clicks.push(r);
        } else if (kind === 1) {
          // As a person clicks: the pointer on the list first, a moment to aim, then the press.
          const box = await panel.locator('#history .steps').boundingBox();
          await panel.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
          const aim = await panel.evaluate(aimAtRow, 2 + Math.floor(rnd() * 8));
          if (aim) {
            await sleep(60);
            await panel.mouse.click(aim.x, aim.y);
            mouse.push(await panel.evaluate(clickPainted, aim.step));
          }
          await panel.mouse.move(2, 2); // away, so the list follows again
          await panel.evaluate(() => document.querySelector('#history-strip [data-action="h-live"]').click());
        } else {
          const t = await panel.evaluate(async ([type, key]) => {
            const steps = window.slopPanel.history()?.steps ?? [];
            const st = steps[Math.floor(steps.length / 2)];
            if (!st) return null;
            const t0 = performance.now();
            await window.slopPanel.request(type, { key, step: st.step, have: null });
            return performance.now() - t0;
          }, [Request.HISTORY_STATE, provider.key]);
          if (t !== null) states.push(t);
        }
      } finally {
        busy = false;
      }
    });
    const open = await panel.evaluate(take);
    const info = await panel.evaluate(() => window.slopPanel.history()?.info);

    console.log(`History closed vs open, ${NODES.toLocaleString()}-node tree, ${RATE} patches/s, ${SECONDS} s each (sent in ${closedSecs.toFixed(1)} s and ${openSecs.toFixed(1)} s):`);
    summary('History closed', closed);
    summary('History open (strip and tab)', open, clicks, states, mouse);
    console.log(`  the history after it: ${info?.steps} steps kept, ${info?.dropped} dropped at the bounds, ${(info?.bytes / 1024 / 1024).toFixed(1)} MB`);
    console.log('  (aims with the History open: no task over 50 ms, frame p99 under 33 ms, a step click under 50 ms)');

    if (args.profile) {
      const wp = await stopWorkerProfile();
      const { profile: pp } = await panelCdp.send('Profiler.stop');
      await writeFile(`${args.profile}.worker.cpuprofile`, JSON.stringify(wp));
      await writeFile(`${args.profile}.panel.cpuprofile`, JSON.stringify(pp));
      for (const [what, p] of [['service worker', wp], ['panel', pp]]) {
        const { total: t, top } = selfTimes(p);
        console.log(`${what}: heaviest functions by self time (of ${(t / 1000).toFixed(0)} ms profiled):`);
        for (const [name, us] of top.slice(0, 15)) console.log(`  ${(us / 1000).toFixed(0).padStart(7)} ms  ${(100 * us / t).toFixed(1).padStart(5)} %  ${name}`);
      }
    }
  } finally {
    await browser.close();
    await srv.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
