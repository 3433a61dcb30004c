// agent-extension-bench.mjs: what one Agent playground turn costs the extension itself, in
// Chromium's service worker, next to the model's time, at about 100 and 10,000 nodes. A run is
// started through a panel port (Request.AGENT_RUN) on the mail demo, the model being the scripted
// fixture endpoint (tests/fixtures/llm-server.mjs), which answers at once; each turn it calls one
// affordance that changes the state, so every turn has a call, its steps and its diff.
//
//   build  = the core's state tail and tool list (with the default budgets), messages, request body
//   route  = reading the reply, the core's resolve and params check, the call's record
//   trace  = the history's diff of each call (timeline.js), in the worker
//   overhead = build + route + trace: the extension's own time per turn
//   model  = the request, from fetch to the stream's end (the fixture: the HTTP round trip)
//   invoke = the provider's round trip (the app's time, not the extension's)
//
// Then the same run from the panel's Playground tab (openai kind), as a user starts it, to time the
// panel's part of each turn: from a port message carrying the turn's pushes ('sent', 'turn') to the
// end of the task that handled it (bridge, store, the chat and trace DOM: "handled") and to the
// frame after it ("painted", which includes waiting for the next frame). The tree's patches that
// share a message with them are counted too.
//
// Prints medians over the turns of a run after a warm-up run, and the overhead as a share of a
// 1 s model turn (a quick local model; a 7-8B model on a laptop takes longer to read a 16k-token
// state). Never fails on time.
// Usage: node tests/bench/agent-extension-bench.mjs [--quick]

import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { startLlmServer } from '../fixtures/llm-server.mjs';
import { Request, PORTS, PROTOCOL_VERSION } from '../../extension/shared/messages.js';
import { launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openExtensionPage, openPanel, until } from '../e2e/helpers.mjs';
import { median, kib as kb } from './stats.mjs';

const quick = process.argv.includes('--quick');
const TURNS = quick ? 5 : 15;
const SIZES = [100, 10_000];

/** Each reply: one state-changing call on the newest message (mark it read or unread), then text. */
function script(turns) {
  const out = [];
  for (let i = 0; i < turns; i++) {
    out.push((req) => {
      const name = req.body.tools.map((t) => t.function.name).find((n) => /^msg_\d+__mark_(un)?read$/.test(n));
      return { calls: [{ name, arguments: {} }] };
    });
  }
  out.push({ text: 'Done.' });
  return out;
}

/**
 * In the panel page, before its scripts: wraps the port's message listeners to time each message
 * that carries Push.AGENT events (window.__agentPanel: {evs, handled, painted} in ms).
 */
function timePanelPushes() {
  if (!location.pathname.endsWith('/panel/panel.html')) return;
  const log = (window.__agentPanel = []);
  const events = (m, out) => {
    if (m?.type === 'sw/batch') for (const x of m.pushes) events(x, out);
    else if (m?.type === 'sw/agent') out.push(`${m.event}:${m.turn?.i ?? m.turn ?? ''}`);
    return out;
  };
  const rt = chrome.runtime;
  const connect = rt.connect.bind(rt);
  rt.connect = (...args) => {
    const port = connect(...args);
    const add = port.onMessage.addListener.bind(port.onMessage);
    port.onMessage.addListener = (fn) => add((msg, p) => {
      const evs = events(msg, []);
      const t0 = performance.now();
      fn(msg, p);
      if (!evs.length) return;
      const rec = { evs };
      log.push(rec);
      // The bridge flushes in a microtask, so the first timeout runs after the DOM work; the
      // timeout inside the next animation frame runs after that frame's style, layout and paint.
      setTimeout(() => {
        rec.handled = performance.now() - t0;
        requestAnimationFrame(() => setTimeout(() => { rec.painted = performance.now() - t0; }, 0));
      }, 0);
    });
    return port;
  };
}

const browser = await launch();
await browser.ctx.addInitScript(timePanelPushes);
const rows = [];
const panelRows = [];
try {
  for (const size of SIZES) {
    const srv = await startProvider({ engine: createMailEngine({ live: false, messages: size - 18, windowSize: size }) });
    try {
      await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
      const tab = await browser.ctx.newPage();
      await tab.goto(srv.url('/pages/meta-ws.html'));
      const { tabId, provider } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes >= size * 0.9, { timeout: 60_000 });
      const page = await openExtensionPage(browser.ctx, browser.extId, 'extension/options/options.html');
      await page.evaluate(([name, v, t]) => {
        const port = chrome.runtime.connect({ name });
        const done = new Map();
        let id = 0;
        const waiting = new Map();
        const take = (m) => {
          if (m.type === 'sw/batch') { m.pushes.forEach(take); return; }
          if (m.type === 'sw/reply' && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
          if (m.type === 'sw/agent' && m.event === 'done') done.set(m.runId, m.trace);
        };
        port.onMessage.addListener(take);
        port.postMessage({ type: 'ui/hello', v, tabId: t });
        window.b = {
          done,
          req: (type, fields) => new Promise((resolve) => { const i = ++id; waiting.set(i, resolve); port.postMessage({ type, id: i, ...fields }); }),
        };
      }, [PORTS.PANEL, PROTOCOL_VERSION, tabId]);

      for (const kind of ['openai', 'ollama']) {
        let last = null;
        let cold = null; // the first turn of the first run: the core's agent view built for the first time
        for (let round = 0; round < 2; round++) { // a warm-up run, then the measured one
          const llm = await startLlmServer({ kind, script: script(TURNS) });
          try {
            await page.evaluate((baseUrl_kind) => chrome.storage.local.set({
              agentProfiles: { b: { id: 'b', name: 'bench', kind: baseUrl_kind[1], baseUrl: baseUrl_kind[0], model: 'fixture-model', addedAt: 1 } },
            }), [llm.baseUrl, kind]);
            const r = await page.evaluate(([t, f]) => window.b.req(t, f), [Request.AGENT_RUN, { keys: [provider.key], profileId: 'b', task: 'keep the newest message changing', maxSteps: TURNS + 1 }]);
            if (!r.ok) throw new Error(r.error.message);
            last = await until(() => page.evaluate((id) => window.b.done.get(id) ?? null, r.result.runId), { timeout: 300_000, what: 'the run' });
            if (last.outcome !== 'answered') throw new Error(`run ended ${last.outcome}: ${last.error?.message}`);
            cold ??= last.turns[0];
          } finally {
            await llm.close();
          }
        }
        const turns = last.turns.slice(0, TURNS);
        const pick = (f) => median(turns.map(f));
        const t0 = turns[0].sent;
        rows.push({
          nodes: provider.nodes ?? size, kind,
          state: `${kb(t0.stateBytes)}${t0.stateCut ? ` (${t0.nodesLeftOut} nodes out)` : ''}`,
          tools: `${t0.tools}${t0.toolsCut ? ` (of ${t0.toolsTotal})` : ''}`,
          build: pick((t) => t.timing.buildMs), route: pick((t) => t.timing.routeMs), trace: pick((t) => t.timing.traceMs ?? 0),
          overhead: pick((t) => t.timing.buildMs + t.timing.routeMs + (t.timing.traceMs ?? 0)),
          first: cold.timing.buildMs + cold.timing.routeMs + (cold.timing.traceMs ?? 0),
          model: pick((t) => t.timing.modelMs), invoke: pick((t) => t.timing.invokeMs),
          diffs: turns.filter((t) => t.calls[0]?.diff?.changed?.length).length,
        });
      }
      await page.close();

      // The panel: the same run started from its Playground tab.
      const panel = await openPanel(browser.ctx, browser.extId, tabId);
      await until(async () => (await panel.evaluate(() => window.slopPanel?.currentTree()?.nodes.size ?? 0)) >= (provider.nodes ?? size) * 0.9, { timeout: 120_000, what: 'the tree in the panel' });
      await panel.click('#side-tabs button[data-tab="playground"]');
      let turnsTimed = null;
      for (let round = 0; round < 2; round++) {
        const llm = await startLlmServer({ kind: 'openai', script: script(TURNS) });
        try {
          await panel.evaluate((baseUrl) => { window.__agentPanel.length = 0; return chrome.storage.local.set({
            agentProfiles: { b: { id: 'b', name: 'bench', kind: 'openai', baseUrl, model: 'fixture-model', maxSteps: 100, addedAt: 1 } },
          }); }, llm.baseUrl);
          await panel.waitForFunction(() => document.querySelector('#playground [data-role="pg-profile"] option')?.textContent === 'bench · fixture-model');
          await panel.fill('#playground [data-role="pg-steps"]', String(TURNS + 1));
          await panel.fill('#playground [data-role="pg-task"]', 'keep the newest message changing');
          await panel.click('#playground [data-action="pg-run"]');
          await panel.waitForSelector('#playground [data-role="pg-outcome"][data-outcome="answered"]', { timeout: 300_000 });
          await new Promise((r) => setTimeout(r, 300)); // the last frame's timeout
          turnsTimed = await panel.evaluate((n) => {
            const per = new Map();
            for (const r of window.__agentPanel) {
              for (const e of r.evs) {
                const [ev, i] = e.split(':');
                if ((ev !== 'sent' && ev !== 'turn') || !(Number(i) >= 1 && Number(i) <= n)) continue;
                const t = per.get(i) ?? { handled: 0, painted: 0 };
                t.handled += r.handled ?? NaN; t.painted += r.painted ?? NaN;
                per.set(i, t);
                break; // one message, counted once
              }
            }
            return [...per.values()];
          }, TURNS);
        } finally {
          await llm.close();
        }
      }
      panelRows.push({
        nodes: provider.nodes ?? size, turns: turnsTimed.length,
        handled: median(turnsTimed.map((t) => t.handled)), handledMax: Math.max(...turnsTimed.map((t) => t.handled)),
        painted: median(turnsTimed.map((t) => t.painted)),
      });
      await panel.close();
      await tab.close();
    } finally {
      await srv.close();
    }
  }
} finally {
  await browser.close();
}

console.log(`Agent playground in Chromium's service worker, per turn (median of ${TURNS} turns after a warm-up run; the model answers at once)`);
console.log('  nodes   endpoint  state sent                 tools sent         build ms  route ms  trace ms  overhead ms  model ms  invoke ms  diffs  overhead/1 s');
for (const r of rows) {
  console.log(`  ${String(r.nodes).padStart(6)}  ${r.kind.padEnd(8)}  ${r.state.padEnd(26)} ${r.tools.padEnd(17)}  ${r.build.toFixed(2).padStart(8)}  ${r.route.toFixed(2).padStart(8)}  `
    + `${r.trace.toFixed(2).padStart(8)}  ${r.overhead.toFixed(2).padStart(11)}  ${r.model.toFixed(2).padStart(8)}  ${r.invoke.toFixed(2).padStart(9)}  ${String(r.diffs).padStart(5)}  ${(r.overhead / 10).toFixed(2).padStart(10)} %`);
}
console.log('  (diffs: turns whose call shows the changed message in its diff; overhead/1 s: the extension\'s own time as a share of a 1 s model turn)');
console.log('  the first turn of the first run (nothing warmed up), the extension\'s own time:');
for (const r of rows) console.log(`  ${String(r.nodes).padStart(6)}  ${r.kind.padEnd(8)}  ${r.first.toFixed(2).padStart(8)} ms`);
console.log('');
console.log(`The same run from the panel's Playground tab: the panel's time per turn, its 'sent' and 'turn' pushes (median of ${TURNS} turns)`);
console.log('  nodes  turns   handled ms  (max)   painted ms  handled/1 s');
for (const r of panelRows) {
  console.log(`  ${String(r.nodes).padStart(6)}  ${String(r.turns).padStart(5)}  ${r.handled.toFixed(2).padStart(10)}  ${r.handledMax.toFixed(2).padStart(6)}  ${r.painted.toFixed(2).padStart(10)}  ${(r.handled / 10).toFixed(2).padStart(10)} %`);
}
console.log('  (handled: the port message in to the end of the task that drew it; painted: to the frame after, waiting for it included)');
