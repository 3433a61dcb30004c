// The Agent playground's worker side (extension/service-worker/agent-requests.js), through a raw
// "slop-panel" port as the panel uses it: a run on the mail demo with the scripted model endpoint
// (tests/fixtures/llm-server.mjs), its pushes in order, the call linked to the history's steps and
// the diff between them, a dangerous call that waits for AGENT_CONFIRM (declined: nothing reaches
// the provider; allowed: it does), Stop, an endpoint's error in words, a replay of the exported
// session, the API key: sent to its endpoint only, never in a message a page receives, and a
// profile's state budget and tools at most (Options → Agent models) used by the run as stored.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { startLlmServer } from '../fixtures/llm-server.mjs';
import { connect } from '../../js-glue/node/client.js';
import { Request, Push, PORTS, PROTOCOL_VERSION } from '../../extension/shared/messages.js';
import {
  launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openExtensionPage, until, TEST_TIMEOUT,
} from './helpers.mjs';

const KEY = 'sk-agent-secret-4242';

describe('agent playground: the worker', () => {
  let browser, srv, llm, page, tabId, key;
  /** Every provider frame that reached the provider: invokes are checked here. */
  const invokes = [];

  before(async () => {
    const engine = createMailEngine({ live: false });
    const invoke = engine._invoke.bind(engine);
    engine._invoke = (session, msg, id) => { invokes.push(msg); return invoke(session, msg, id); };
    srv = await startProvider({ engine });
    llm = await startLlmServer({ kind: 'openai', apiKey: KEY, script: [] });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    const tab = await browser.ctx.newPage();
    await tab.goto(srv.url('/pages/meta-ws.html'));
    const found = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0);
    tabId = found.tabId;
    key = found.provider.key;
    // The panel's page: only the panel may run an agent (messages.js PAGE_REQUESTS).
    page = await openExtensionPage(browser.ctx, browser.extId, `extension/panel/panel.html?tabId=${tabId}`);
    await page.evaluate(async ([baseUrl, apiKey]) => {
      await chrome.storage.local.set({
        agentProfiles: { p1: { id: 'p1', name: 'Fixture', kind: 'openai', baseUrl, model: 'fixture-model', addedAt: 1 } },
        agentKeys: { p1: apiKey },
        agentKeyIndex: { p1: { setAt: 1, length: apiKey.length } },
      });
    }, [llm.baseUrl, KEY]);
    // A raw panel port: every message the worker posts is kept (batches taken apart).
    await page.evaluate(([name, v, tab]) => {
      const port = chrome.runtime.connect({ name });
      const got = [];
      let id = 0;
      const waiting = new Map();
      const take = (m) => {
        if (m.type === 'sw/batch') { m.pushes.forEach(take); return; }
        got.push(m);
        if (m.type === 'sw/reply' && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
      };
      port.onMessage.addListener(take);
      port.postMessage({ type: 'ui/hello', v, tabId: tab });
      window.t = {
        got,
        req: (type, fields) => new Promise((resolve) => { const i = ++id; waiting.set(i, resolve); port.postMessage({ type, id: i, ...fields }); }),
        agent: (runId) => got.filter((m) => m.type === 'sw/agent' && m.runId === runId),
        all: () => JSON.stringify(got),
      };
    }, [PORTS.PANEL, PROTOCOL_VERSION, tabId]);
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
    await llm?.close();
  });

  const req = (type, fields) => page.evaluate(([t, f]) => window.t.req(t, f), [type, fields]);
  const events = (runId) => page.evaluate((r) => window.t.agent(r), runId);
  const done = (runId) => until(async () => (await events(runId)).find((e) => e.event === 'done'), { what: 'the run to end', timeout: 20_000 });

  test('a run: sent, streamed, the call, its steps and diff, done; the key only to its endpoint', { timeout: TEST_TIMEOUT }, async () => {
    llm.push((r) => {
      const name = r.body.tools.map((t) => t.function.name).find((n) => /^msg_300__mark_/.test(n));
      return { calls: [{ name, arguments: {} }] };
    });
    llm.push({ text: 'I marked it.' });
    const r = await req(Request.AGENT_RUN, { keys: [key], profileId: 'p1', task: 'toggle the newest mail' });
    assert.equal(r.ok, true, JSON.stringify(r.error));
    const end = await done(r.result.runId);
    const evs = await events(r.result.runId);
    assert.deepEqual([...new Set(evs.map((e) => e.event))], ['sent', 'turn', 'delta', 'done'].filter((k) => evs.some((e) => e.event === k)).sort((a, b) => evs.findIndex((e) => e.event === a) - evs.findIndex((e) => e.event === b)));
    assert.equal(evs[0].event, 'sent');
    assert.ok(evs[0].sent.stateBytes > 1000 && evs[0].sent.tools > 5);
    const trace = end.trace;
    assert.equal(trace.outcome, 'answered');
    assert.equal(trace.turns.length, 2);
    const call = trace.turns[0].calls[0];
    assert.equal(call.path, '/inbox/msg-300');
    assert.equal(call.result.status, 'ok');
    assert.ok(Number.isInteger(call.stepBefore) && Number.isInteger(call.stepAfter) && call.stepAfter > call.stepBefore, JSON.stringify(call));
    assert.ok(call.versionAfter > call.versionBefore);
    assert.ok(call.diff.changed.includes('/inbox/msg-300'), JSON.stringify(call.diff));
    assert.equal(call.key, key);
    assert.ok(invokes.some((m) => m.path === '/inbox/msg-300'));
    const streamed = evs.filter((e) => e.event === 'delta').map((e) => e.text).join('');
    assert.equal(streamed, 'I marked it.');
    // The key went to its endpoint, in the Authorization header, and into no message the page got.
    assert.ok(llm.requests.filter((q) => q.path === '/v1/chat/completions').every((q) => q.headers.authorization === `Bearer ${KEY}`));
    assert.equal((await page.evaluate(() => window.t.all())).includes(KEY), false);
    // The history has the steps the call names.
    const h = await req(Request.HISTORY, { key });
    assert.ok(h.result.steps.some((s) => s.step === call.stepAfter));

    // Replay the exported session: no model request. The call toggled the mail, so the recorded
    // tool (mark_unread or mark_read) is gone now: the replay says it differs.
    const before = llm.requests.length;
    const replay = async (t) => {
      const session = JSON.stringify({ format: 'slop-inspector-agent-session', version: 1, exportedAt: 'x', trace: t });
      const rr = await req(Request.AGENT_REPLAY, { keys: [key], session });
      assert.equal(rr.ok, true, JSON.stringify(rr.error));
      return (await done(rr.result.runId)).trace;
    };
    const changed = await replay(trace);
    assert.equal(llm.requests.length, before, 'a replay asks no model');
    assert.equal(changed.outcome, 'answered');
    // The recorded outcome is the result and what the call changed (its diff, from the core's change sets).
    assert.deepEqual(changed.turns[0].calls[0].replay.recorded.result, { event: 'result', status: 'ok', data: null, code: null });
    assert.ok(changed.turns[0].calls[0].replay.recorded.diff.changed.length > 0, JSON.stringify(changed.turns[0].calls[0].replay));
    assert.equal(changed.turns[0].calls[0].replay.same, false);
    assert.equal(changed.turns[0].calls[0].refused, 'unknown tool');

    // An idempotent call replays the same.
    llm.push({ calls: [{ name: 'msg_300__open', arguments: {} }] }, { text: 'Opened.' });
    const r2 = await req(Request.AGENT_RUN, { keys: [key], profileId: 'p1', task: 'open the newest mail' });
    const opened = (await done(r2.result.runId)).trace;
    assert.equal(opened.turns[0].calls[0].result?.status, 'ok', JSON.stringify(opened.turns[0].calls[0]));
    // A replay compares what each call changed too: from the state the recording started in
    // (the message unread again), opening it changes the same paths.
    const back = await req(Request.INVOKE, { key, path: '/inbox/msg-300', action: 'mark_unread' });
    assert.equal(back.ok, true, JSON.stringify(back.error));
    const same = await replay(opened);
    assert.equal(same.turns[0].calls[0].path, '/inbox/msg-300');
    assert.equal(same.turns[0].calls[0].replay.same, true, JSON.stringify(same.turns[0].calls[0].replay));
    const bad = await req(Request.AGENT_REPLAY, { keys: [key], session: '{"format":"nope"}' });
    assert.equal(bad.ok, false);
    assert.match(bad.error.message, /Not an exported agent session/);
  });

  test('a dangerous call waits for the user: declined sends nothing, allowed sends it', { timeout: TEST_TIMEOUT }, async () => {
    const del = (r) => ({ calls: [{ name: r.body.tools.map((t) => t.function.name).find((n) => /^msg_299__delete$/.test(n)), arguments: {} }] });
    llm.push(del);
    llm.push({ text: 'It was refused.' });
    const r = await req(Request.AGENT_RUN, { keys: [key], profileId: 'p1', task: 'delete msg 299' });
    const ask = await until(async () => (await events(r.result.runId)).find((e) => e.event === 'confirm'), { what: 'the confirm event' });
    assert.equal(ask.call.path, '/inbox/msg-299');
    assert.equal(ask.call.action, 'delete');
    assert.equal((await req(Request.AGENT_CONFIRM, { runId: r.result.runId, confirmId: ask.confirmId, allow: false })).ok, true);
    const end = await done(r.result.runId);
    assert.equal(end.trace.turns[0].calls[0].refused, 'the user declined');
    assert.equal(invokes.some((m) => m.path === '/inbox/msg-299'), false);
    const told = llm.requests.filter((q) => q.path === '/v1/chat/completions').at(-1).body.messages.find((m) => m.role === 'tool');
    assert.match(told.content, /did not confirm/);
    // Answering again: it no longer waits.
    assert.equal((await req(Request.AGENT_CONFIRM, { runId: r.result.runId, confirmId: ask.confirmId, allow: true })).ok, false);

    llm.push(del);
    llm.push({ text: 'Deleted.' });
    const r2 = await req(Request.AGENT_RUN, { keys: [key], profileId: 'p1', task: 'delete msg 299' });
    const ask2 = await until(async () => (await events(r2.result.runId)).find((e) => e.event === 'confirm'), { what: 'the confirm event' });
    await req(Request.AGENT_CONFIRM, { runId: r2.result.runId, confirmId: ask2.confirmId, allow: true });
    const end2 = await done(r2.result.runId);
    assert.equal(end2.trace.turns[0].calls[0].confirmed, true);
    assert.ok(invokes.some((m) => m.path === '/inbox/msg-299' && m.action === 'delete'));
  });

  test('Stop, a second run refused while one runs, errors in words', { timeout: TEST_TIMEOUT }, async () => {
    llm.push({ hang: true, text: 'thinking' });
    const r = await req(Request.AGENT_RUN, { keys: [key], profileId: 'p1', task: 'anything' });
    await until(async () => (await events(r.result.runId)).some((e) => e.event === 'delta'), { what: 'the hanging stream to start' });
    const second = await req(Request.AGENT_RUN, { keys: [key], profileId: 'p1', task: 'again' });
    assert.equal(second.ok, false);
    assert.match(second.error.message, /A run is going on/);
    await req(Request.AGENT_STOP, { runId: r.result.runId });
    assert.equal((await done(r.result.runId)).trace.outcome, 'stopped');

    llm.push({ status: 429, retryAfter: 7 });
    const r3 = await req(Request.AGENT_RUN, { keys: [key], profileId: 'p1', task: 'anything' });
    const t3 = (await done(r3.result.runId)).trace;
    assert.equal(t3.outcome, 'error');
    assert.equal(t3.error.kind, 'rate-limit');
    assert.match(t3.error.message, /wait 7 s/);

    const none = await req(Request.AGENT_RUN, { keys: [key], profileId: 'nope', task: 'x' });
    assert.match(none.error.message, /No such model endpoint/);
    const empty = await req(Request.AGENT_RUN, { keys: [key], profileId: 'p1', task: '  ' });
    assert.equal(empty.error.code, 'bad_request');

    const models = await req(Request.AGENT_MODELS, { profileId: 'p1' });
    assert.equal(models.ok, true, JSON.stringify(models.error));
    assert.ok(models.result.models.length > 0);
    const down = await req(Request.AGENT_MODELS, { endpoint: { kind: 'openai', baseUrl: 'http://127.0.0.1:9' } });
    assert.equal(down.ok, false);
    assert.match(down.error.message, /Nothing answers/);
    assert.equal((await page.evaluate(() => window.t.all())).includes(KEY), false);
  });

  test('a profile\'s state budget and tools at most are the run\'s', { timeout: TEST_TIMEOUT }, async () => {
    await page.evaluate(async () => {
      const { agentProfiles } = await chrome.storage.local.get('agentProfiles');
      agentProfiles.p2 = { ...agentProfiles.p1, id: 'p2', name: 'Small', maxStateBytes: 8192, maxTools: 20, addedAt: 2 };
      const { agentKeys } = await chrome.storage.local.get('agentKeys');
      await chrome.storage.local.set({ agentProfiles, agentKeys: { ...agentKeys, p2: agentKeys.p1 } });
    });
    llm.push({ text: 'Small enough.' });
    const before = llm.requests.length;
    const r = await req(Request.AGENT_RUN, { keys: [key], profileId: 'p2', task: 'what is in the inbox?' });
    assert.equal(r.ok, true, JSON.stringify(r.error));
    const trace = (await done(r.result.runId)).trace;
    assert.equal(trace.outcome, 'answered', JSON.stringify(trace.error));
    assert.equal(trace.maxStateBytes, 8192);
    assert.equal(trace.maxTools, 20);
    const sent = trace.turns[0].sent;
    assert.ok(sent.stateBytes <= 8192 && sent.stateBytes > 1000, `${sent.stateBytes}`);
    assert.ok(sent.tools <= 20 && sent.tools > 0, `${sent.tools}`);
    // Both bit: at the defaults this app's state is about 16 KiB and 128 of its 210 actions go.
    assert.deepEqual([sent.stateCut, sent.toolsCut], [true, true], JSON.stringify(sent));
    const body = llm.requests.slice(before).find((q) => q.path === '/v1/chat/completions').body;
    assert.equal(body.tools.length, sent.tools, 'what the endpoint got is what the trace says');
  });
  test('one trace: the Node client\'s and the Playground\'s trace of one scripted run are the same', async () => {
    const path = '/inbox/msg-300';
    const unread = async (on) => {
      if (srv.engine.get(path).properties.unread === on) return;
      const r = await req(Request.INVOKE, { key, path, action: on ? 'mark_unread' : 'mark_read' });
      assert.equal(r.ok, true, JSON.stringify(r.error));
      await until(() => srv.engine.get(path).properties.unread === on, { what: `msg-300 unread: ${on}` });
    };
    const script = () => llm.push({ text: 'Marking it read.', calls: [{ name: 'msg_300__mark_read', arguments: {} }] }, { text: 'Done.' });
    /** What both must agree on: per turn the reply and, per call, its target, result and diff. */
    const shape = (trace) => ({
      outcome: trace.outcome, error: trace.error ?? null,
      turns: trace.turns.map((t) => ({
        text: t.reply?.text ?? null, timing: Object.keys(t.timing ?? {}).sort(), sent: Object.keys(t.sent ?? {}).sort(),
        calls: t.calls.map((c) => ({ name: c.name, path: c.path, action: c.action, params: c.params, status: c.result?.status ?? null,
          data: c.result?.data ?? null, diff: c.diff ?? null, refused: c.refused ?? null, changedVersion: c.versionAfter > c.versionBefore })),
      })),
    });

    // In Node, from the state with the message unread.
    await unread(true);
    script();
    const app = await connect(srv.wsUrl, { token: srv.token, origin: `chrome-extension://${browser.extId}` });
    let node;
    try {
      node = await app.agent({ endpoint: { kind: 'openai', baseUrl: llm.baseUrl, apiKey: KEY }, model: 'fixture-model' }).run('read the newest mail');
    } finally {
      app.close();
    }
    // In the Playground (the worker), from the same state.
    await unread(true);
    script();
    const r = await req(Request.AGENT_RUN, { keys: [key], profileId: 'p1', task: 'read the newest mail' });
    assert.equal(r.ok, true, JSON.stringify(r.error));
    const worker = (await done(r.result.runId)).trace;

    assert.equal(node.outcome, 'answered', JSON.stringify(node.error));
    assert.deepEqual(shape(worker), shape(node));
    const call = node.turns[0].calls[0];
    assert.deepEqual(call.diff.changed.sort(), ['/inbox', path], JSON.stringify(call.diff));
  });
  test('Ollama through the extension: a profile of kind ollama runs a call and answers (/api/chat, NDJSON)', async () => {
    const ollama = await startLlmServer({ kind: 'ollama', script: [
      { text: 'Looking.', calls: [{ name: 'inbox__search', arguments: { query: 'review' } }] },
      { text: 'Found them.' },
    ] });
    try {
      await page.evaluate(async (baseUrl) => {
        const { agentProfiles } = await chrome.storage.local.get('agentProfiles');
        await chrome.storage.local.set({ agentProfiles: { ...agentProfiles, o1: { id: 'o1', name: 'Local Ollama', kind: 'ollama', baseUrl, model: 'llama3.2:3b', addedAt: 2 } } });
      }, ollama.baseUrl);
      const r = await req(Request.AGENT_RUN, { keys: [key], profileId: 'o1', task: 'find the review mails' });
      assert.equal(r.ok, true, JSON.stringify(r.error));
      const trace = (await done(r.result.runId)).trace;
      assert.equal(trace.outcome, 'answered', JSON.stringify(trace.error));
      assert.equal(trace.endpoint.kind, 'ollama');
      assert.equal(trace.turns[0].calls[0].path, '/inbox');
      assert.equal(trace.turns[0].calls[0].result.status, 'ok');
      assert.deepEqual(ollama.chats.map((c) => c.path), ['/api/chat', '/api/chat']);
      assert.equal(ollama.chats[0].body.model, 'llama3.2:3b');
      assert.ok(!ollama.chats[0].headers.authorization, 'no key: none sent');
    } finally {
      await ollama.close();
    }
  });
});
