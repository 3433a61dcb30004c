// agent-bench.mjs: what the agent loop (js-glue/agent.js) costs per turn on its own, next to the
// model's time, at about 100 and 10,000 nodes. The model is the scripted fixture endpoint
// (tests/fixtures/llm-server.mjs), which answers at once: its time is the HTTP round trip, the
// fixture reading the request and streaming a reply. Each turn the model calls one affordance
// that changes the state (a patch comes back before the result).
//
//   overhead = build (core state tail + tool list, messages, request body) + route (reading the
//              reply, the core's resolve and params check, the trace)
//   model    = the request, from fetch to the stream's end
//   invoke   = the provider's round trip (not the loop's)
//
// Prints medians over the turns of a run after a warm-up run. Never fails on time.
// Usage: node tests/bench/agent-bench.mjs [--quick]

import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { startLlmServer } from '../fixtures/llm-server.mjs';
import { connect } from '../../js-glue/node/client.js';
import { loadSlopCoreNode } from '../../js-glue/node/load-core.js';
import { median, kib as kb } from './stats.mjs';

const quick = process.argv.includes('--quick');
const TURNS = quick ? 5 : 15;
/** The mail tree has 18 nodes besides its messages. */
const SIZES = [100, 10_000];


/** Each reply: one state-changing call on the newest message (mark it unread, then open it), then text. */
function script(turns) {
  let n = 0;
  return () => {
    if (++n > turns) return { text: 'Done.' };
    return (req) => {
      const names = new Set(req.body.tools.map((t) => t.function.name));
      const id = [...names].find((x) => /^msg_\d+__open$/.test(x))?.split('__')[0] ?? 'msg_1';
      const name = names.has(`${id}__mark_unread`) ? `${id}__mark_unread` : `${id}__open`;
      return { calls: [{ name, arguments: {} }] };
    };
  };
}

async function measure(app, kind, { maxStateBytes, maxTools } = {}) {
  const next = script(TURNS);
  const llm = await startLlmServer({ kind, script: Array.from({ length: TURNS + 1 }, () => next()) });
  try {
    const trace = await app.agent({ endpoint: { kind, baseUrl: llm.baseUrl }, model: 'fixture-model', maxSteps: TURNS + 1, maxStateBytes, maxTools })
      .run('keep the newest message changing');
    if (trace.outcome !== 'answered') throw new Error(`run ended ${trace.outcome}: ${trace.error?.message}`);
    const turns = trace.turns.slice(0, TURNS); // the turns with a call
    const pick = (f) => median(turns.map(f));
    return {
      state: turns[0].sent.stateBytes, cut: !!turns[0].sent.stateCut, left: turns[0].sent.nodesLeftOut ?? 0,
      tools: turns[0].sent.tools, toolsTotal: turns[0].sent.toolsTotal ?? turns[0].sent.tools, body: turns[0].sent.bodyBytes,
      build: pick((t) => t.timing.buildMs), route: pick((t) => t.timing.routeMs),
      overhead: pick((t) => t.timing.buildMs + t.timing.routeMs),
      model: pick((t) => t.timing.modelMs), invoke: pick((t) => t.timing.invokeMs),
    };
  } finally {
    await llm.close();
  }
}

console.log(`agent loop, per turn (median of ${TURNS} turns after a warm-up run; the model answers at once)`);
console.log('  nodes   endpoint  state sent (of)              tools (of)     request    build ms  route ms  overhead ms  model ms  invoke ms  overhead/1 s');
const coreRows = [];
for (const size of SIZES) {
  const srv = await startWsProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true, engine: createMailEngine({ messages: size - 18, windowSize: size }) });
  const app = await connect(srv.wsUrl, { token: srv.token, timeout: 60_000 });
  try {
    const nodes = (await app.info()).nodes;
    // The default budgets (64 KiB of state, 128 tools), then none: the whole agent view each turn.
    const budgets = [{}, { maxStateBytes: 1e9, maxTools: 1e6 }];
    for (const kind of ['openai', 'ollama']) {
      for (const budget of budgets) {
        await measure(app, kind, budget); // warm-up
        const r = await measure(app, kind, budget);
        const state = `${kb(r.state)}${r.cut ? ` (${r.left} nodes out)` : ''}`;
        const tools = `${r.tools}${r.tools < r.toolsTotal ? ` (${r.toolsTotal})` : ''}`;
        console.log(`  ${String(nodes).padStart(6)}  ${kind.padEnd(8)}  ${state.padEnd(27)} ${tools.padStart(12)}  ${kb(r.body).padStart(11)}  `
          + `${r.build.toFixed(2).padStart(8)}  ${r.route.toFixed(2).padStart(8)}  ${r.overhead.toFixed(2).padStart(11)}  `
          + `${r.model.toFixed(2).padStart(8)}  ${r.invoke.toFixed(2).padStart(9)}  ${(r.overhead / 10).toFixed(2).padStart(10)} %`);
      }
    }
    // The two core calls the build is made of (tools(), and the tree text inside the state tail).
    const timed = async (fn) => {
      const t = [];
      for (let i = 0; i < 5; i++) { const t0 = performance.now(); await fn(); t.push(performance.now() - t0); }
      return median(t).toFixed(2);
    };
    coreRows.push(`  ${String(nodes).padStart(6)}  core tools() ${await timed(() => app.tools())} ms, tree text ${await timed(() => app.text())} ms`);
    // The same mirror in a core of its own (a document consumer): the agent view with and without
    // its budgets (128 tools, 64 KiB of state), and tools(128) the first time (the action counts
    // and saliences read; later calls reuse them until a patch changes the node).
    const core = await loadSlopCoreNode();
    const doc = new core.SlopConsumer({ transport: 'document' });
    const sub = doc.load(JSON.stringify({ provider: { id: 'mail', name: 'Acme Mail' }, tree: await app.tree() })).sub;
    const t0 = performance.now();
    doc.tools(sub, null, 0, 128);
    const cold = (performance.now() - t0).toFixed(2);
    const at = new Date().toISOString();
    const cut = core.stateTail([doc], at, 65536);
    coreRows.push(`  ${String(nodes).padStart(6)}  core tools(128) ${await timed(() => doc.tools(sub, null, 0, 128))} ms (first ${cold} ms), `
      + `tools(all) ${await timed(() => doc.tools(sub))} ms; stateTail(64 KiB) ${await timed(() => core.stateTail([doc], at, 65536))} ms `
      + `(${kb(cut.bytes)}, ${cut.nodesLeftOut} nodes left out), renderStateTail (all) ${await timed(() => core.renderStateTail([doc], at))} ms`);
    doc.free();
  } finally {
    app.close();
    await srv.close();
  }
}
for (const row of coreRows) console.log(row);
console.log('  (overhead/1 s: the loop\'s own time as a share of a 1 s model turn, quick for a local model)');
