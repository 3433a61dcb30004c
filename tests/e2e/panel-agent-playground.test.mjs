// The Playground tab of the panel (parts/playground-pane.js, views/playground-view.js) against the
// worker's agent runs (service-worker/agent-requests.js), the mail demo and the scripted model
// endpoint (tests/fixtures/llm-server.mjs): no endpoint yet (words and Options); a run with a tool
// call then text (streamed, the call's card with its result, the trace row with what was sent and
// the diff, "Show in History" on the History tab with the two steps pinned); Run off on an earlier
// version; export of the session and its replay (every call the same); a dangerous call (Cancel
// focused, Enter cancels and the model is told, keys on the tree answer nothing, "Run it" sends
// it); Stop during a reply that never ends; a 401 in words, the key nowhere in the page nor the
// console; screenshots at 320, 480, 700 and 1280 px, light and dark (build/screenshots/playground/).

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createMailEngine, createTodoEngine } from '../fixtures/demo-trees.mjs';
import { startLlmServer } from '../fixtures/llm-server.mjs';
import {
  launch, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openPanel, collectConsole, stopServiceWorker, until, ROOT, TEST_TIMEOUT,
} from './helpers.mjs';

const KEY = 'sk-secret-123';
const SHOTS = path.join(ROOT, 'build/screenshots/playground');

describe('panel: the Agent playground', () => {
  let browser, srv, todo, llm, tabId, panel, consoleLines;
  /** Every invoke that reached the provider. */
  const invokes = [];

  const pg = () => panel.evaluate(() => window.slopPanel.playground);
  const shot = (name) => panel.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  /** Types the task and presses Run; resolves with the new run's id once the worker answered. */
  const run = async (task, { keys = false } = {}) => {
    const before = (await pg()).runId;
    await panel.fill('#playground [data-role="pg-task"]', task);
    if (keys) {
      await panel.focus('#playground [data-role="pg-task"]');
      await panel.keyboard.press('Control+Enter');
    } else {
      await panel.click('#playground [data-action="pg-run"]');
    }
    return until(async () => {
      const s = await pg();
      return s.runId && s.runId !== before ? s.runId : null;
    }, { what: 'the run to start' });
  };
  const ended = (runId) => until(async () => {
    const s = await pg();
    return s.runId === runId && !s.running && s.outcome ? s : null;
  }, { what: `run ${runId} to end`, timeout: 20_000 });
  /** The inbox's unread messages the model sees (the newest, windowed), newest first. */
  const unreadIds = () => srv.engine.get('/inbox').children.filter((m) => m.properties.unread).map((m) => m.id);
  const toolOf = (id, action) => `${id.replace(/-/g, '_')}__${action}`;

  before(async () => {
    const engine = createMailEngine({ live: false });
    const invoke = engine._invoke.bind(engine);
    engine._invoke = (session, msg, id) => { invokes.push(msg); return invoke(session, msg, id); };
    todo = await startProvider({ engine: createTodoEngine() });
    srv = await startProvider({
      engine,
      pages: { '/two.html': `<!doctype html><meta charset="utf-8"><meta name="slop" content="{{WS_URL}}"><meta name="slop" content="${todo.wsUrl}"><title>two providers</title>` },
    });
    llm = await startLlmServer({ kind: 'openai', apiKey: KEY, script: [] });
    browser = await launch();
    consoleLines = collectConsole(browser.ctx);
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    await setTokenInExtension(browser.ctx, wsOrigin(todo), todo.token);
    const tab = await browser.ctx.newPage();
    await tab.goto(srv.url('/pages/meta-ws.html'));
    ({ tabId } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0));
    panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.setViewportSize({ width: 1280, height: 800 });
    await panel.waitForSelector('#tree .row[data-path="/inbox"]', { timeout: 15_000 });
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
    await todo?.close();
    await llm?.close();
  });

  test('no endpoint yet: said, with Options; a profile saved elsewhere shows at once', { timeout: TEST_TIMEOUT }, async () => {
    await panel.click('#side-tabs button[data-tab="playground"]');
    await panel.waitForSelector('#playground [data-role="pg-no-profile"]', { state: 'visible' });
    assert.match(await panel.textContent('#playground [data-role="pg-no-profile"]'), /No model endpoint yet: add one in Options → Agent models/);
    // Open Options lands on the Agent models section, its first field focused.
    const opened = browser.ctx.waitForEvent('page', { predicate: (p) => p.url().includes('/options/options.html'), timeout: 10_000 });
    await panel.click('#playground [data-action="pg-open-options"]');
    const options = await opened;
    await until(() => options.evaluate(() => !!document.activeElement?.closest('#agent-models')), { what: 'the focus in Agent models' });
    await options.close();
    await panel.fill('#playground [data-role="pg-task"]', 'anything');
    assert.equal(await panel.isDisabled('#playground [data-action="pg-run"]'), true);
    // Said once (issue 45): the head's notice, not again under Run (its tooltip keeps the reason).
    const said = await panel.evaluate(() => document.querySelector('#playground').innerText.match(/model endpoint/gi)?.length ?? 0);
    assert.equal(said, 1, 'the no-model notice is on screen once');
    assert.equal(await panel.isHidden('#playground [data-role="pg-why"]'), true);
    assert.match(await panel.getAttribute('#playground [data-action="pg-run"]', 'title'), /Add a model endpoint in Options/);
    await shot('no-endpoint-1280');

    // The options page saves a profile: the panel lists it without a reload.
    await panel.evaluate(async ([baseUrl, apiKey]) => {
      await chrome.storage.local.set({
        agentProfiles: { p1: { id: 'p1', name: 'Fixture', kind: 'openai', baseUrl, model: 'fixture-model', addedAt: 1 } },
        agentKeys: { p1: apiKey },
        agentKeyIndex: { p1: { setAt: 1, length: apiKey.length } },
      });
    }, [llm.baseUrl, KEY]);
    await panel.waitForSelector('#playground [data-role="pg-no-profile"]', { state: 'hidden' });
    assert.deepEqual(await panel.locator('#playground [data-role="pg-profile"] option').allTextContents(), ['Fixture · fixture-model']);
    assert.equal(await panel.inputValue('#playground [data-role="pg-steps"]'), '8');
    assert.equal(await panel.isDisabled('#playground [data-action="pg-run"]'), false);
    assert.match(await panel.getAttribute('#playground [data-action="pg-run"]', 'title'), /^Acts on Acme Mail/);
    assert.equal(await panel.isVisible('#playground [data-role="pg-all"]'), false, 'one provider: no choice to offer');
  });

  test('a run: streamed text, the call\'s card and result, the answer; the trace row; Show in History pins the call\'s steps', { timeout: TEST_TIMEOUT }, async () => {
    const id = unreadIds()[0];
    assert.ok(id, 'an unread message');
    const tool = toolOf(id, 'open');
    llm.push((r) => {
      assert.ok(r.body.tools.some((t) => t.function.name === tool), `${tool} offered`);
      return { text: 'Opening the newest unread message.', calls: [{ name: tool, arguments: {} }] };
    });
    llm.push({ text: 'Done: I opened it, and it is read now.' });
    const runId = await run('Open the newest unread message', { keys: true });
    const end = await ended(runId);
    assert.equal(end.outcome, 'answered');
    const t1 = '#playground .pg-model[data-turn="1"]';
    assert.equal(await panel.textContent(`${t1} [data-role="pg-text"]`), 'Opening the newest unread message.');
    const card = `${t1} .pg-call[data-status="ok"]`;
    assert.equal(await panel.textContent(`${card} .pg-tool`), tool);
    assert.equal(await panel.textContent(`${card} .pg-target`), `/inbox/${id} · open`);
    assert.match(await panel.textContent(`${card} [data-role="pg-result"]`), /^ok · v\d+ → v\d+/);
    assert.match(await panel.textContent(`${card} [data-role="pg-result"] pre`), /"body":/);
    assert.equal(await panel.textContent('#playground .pg-final [data-role="pg-text"]'), 'Done: I opened it, and it is read now.');
    assert.match(await panel.textContent('#playground [data-role="pg-outcome"]'), /^Answered 2 turns · 1 tool call · 220 tokens/);
    assert.equal(srv.engine.get(`/inbox/${id}`).properties.unread, false, 'the provider got the invoke');

    // The trace: what was sent (the tools the model got), the model's time, the diff.
    const sentTools = llm.chats.at(-2).body.tools.length;
    // The mail demo declares more actions than the 128 tools a request offers: the trace says so.
    const tools = `${sentTools} of \\d+`;
    await panel.click('#playground [data-pg-view="trace"]');
    const row = '#playground .pg-tturn[data-turn="1"]';
    await panel.waitForSelector(row, { state: 'visible' });
    const facts = await panel.locator(`${row} .pg-tsum > span`).allTextContents();
    assert.equal(facts.length, 6, JSON.stringify(facts));
    assert.equal(facts[0], 'Turn 1');
    assert.match(facts[1], new RegExp(`^[\\d.]+ KB state · ${tools} tools$`));
    assert.match(facts[2], /^model [\d.]+ (ms|s)$/);
    assert.equal(facts[3], '110 tokens');
    assert.match(facts[4], /^extension \+[\d.]+ ms$/);
    assert.equal(facts[5], '1 call');
    const body = await panel.textContent(`${row} .pg-tbody`);
    assert.match(body, new RegExp(`Sent[\\d.]+ KB of state \\(~[\\d.k]+ tokens\\), ${tools} tools, 2 messages; request [\\d.]+ KB`), body);
    assert.match(await panel.textContent(`${row} [data-role="pg-tools-cut"]`), new RegExp(`^tools cut to fit: ${tools} offered`));
    assert.match(body, /Model[\d.]+ (ms|s) · 100 in · 10 out · 110 tokens · finish: tool_calls/, body);
    assert.match(body, /Extension[\d.]+ ms \(building the request [\d.]+ ms, routing [\d.]+ ms/, body);
    assert.match(await panel.textContent(`${row} .pg-diff.changed .pg-diff-paths`), new RegExp(`/inbox/${id}`));
    assert.match(await panel.textContent(`${row} [data-role="pg-versions"]`), /^v\d+ → v\d+$/);
    const call = end.lastTrace.turns[0].calls[0];
    assert.ok(Number.isInteger(call.stepBefore) && call.stepAfter > call.stepBefore, JSON.stringify(call));
    await shot('trace-1280');

    // Show in History: the History tab, the state after the call, diffed against the step before it.
    await panel.click(`${row} [data-action="pg-show-history"]`);
    const diff = await until(() => panel.evaluate(() => window.slopPanel.lastDiff), { what: 'the History\'s diff' });
    assert.equal(await panel.getAttribute('#side-tabs [data-tab="history"]', 'aria-selected'), 'true');
    assert.deepEqual([diff.fromStep, diff.toStep, diff.pinned], [call.stepBefore, call.stepAfter, true]);
    assert.ok(diff.changed.includes(`/inbox/${id}`), JSON.stringify(diff));
    assert.equal(await panel.locator(`#history .step-row.pinned[data-step="${call.stepAfter}"]`).count(), 1);
    assert.equal(await panel.locator(`#history .step-row.pinned[data-step="${call.stepBefore}"]`).count(), 1);
    await panel.click('#side-tabs button[data-tab="playground"]');
    await panel.click('#playground [data-pg-view="chat"]');
  });

  test('an earlier version shown: Run is off, in words; live again: on', { timeout: TEST_TIMEOUT }, async () => {
    await panel.click('#toggle-history');
    await until(() => panel.evaluate(() => (window.slopPanel.history()?.steps.length ?? 0) > 1), { what: 'the steps' });
    await panel.evaluate(() => window.slopPanel.scrubTo(0));
    await until(() => panel.evaluate(() => document.querySelector('#banner')?.dataset.kind === 'scrub'), { what: 'the earlier version shown' });
    await until(async () => await panel.isDisabled('#playground [data-action="pg-run"]'), { what: 'Run off' });
    assert.match(await panel.textContent('#playground [data-role="pg-why"]'), /An earlier version is shown: the playground acts on the live app/);
    assert.equal(await panel.isDisabled('#playground [data-action="pg-replay"]'), true);
    await panel.click('#banner button[data-action="back-to-live"]');
    await until(async () => !(await panel.isDisabled('#playground [data-action="pg-run"]')), { what: 'Run on again' });
    assert.equal(await panel.isVisible('#playground [data-role="pg-why"]'), false);
    await panel.click('#toggle-history');
    await panel.click('#side-tabs button[data-tab="playground"]');
  });

  test('export saves the session; its replay runs the recorded calls again, each the same', { timeout: TEST_TIMEOUT }, async () => {
    const chats = llm.chats.length;
    const [download] = await Promise.all([panel.waitForEvent('download'), panel.click('#playground [data-action="pg-export"]')]);
    const text = await fs.readFile(await download.path(), 'utf8');
    const doc = JSON.parse(text);
    assert.equal(doc.format, 'slop-inspector-agent-session');
    assert.equal(doc.version, 1);
    assert.match(doc.exportedAt, /^\d{4}-\d\d-\d\dT/);
    assert.equal(doc.trace.task, 'Open the newest unread message');
    assert.equal(doc.trace.turns.length, 2);
    assert.ok(!text.includes(KEY), 'no key in the file');
    assert.match(download.suggestedFilename(), /^slop-agent-acme-mail-.*\.json$/);

    // A replay compares what each call changed too: it starts from the state the recording did
    // (the message opened by the run unread again), as a CI replay on a fresh app would.
    for (const c of doc.trace.turns.flatMap((t) => t.calls)) {
      if (c.action !== 'open') continue;
      const r = await panel.evaluate(([key, path]) => window.slopPanel.request('ui/invoke', { key, path, action: 'mark_unread' }), [await panel.evaluate(() => window.slopPanel.selectedKey()), c.path]);
      assert.equal(r?.event?.status ?? r?.status, 'ok', JSON.stringify(r));
    }
    await panel.setInputFiles('#playground-file', { name: 'session.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    const runId = await until(async () => {
      const s = await pg();
      return s.kind === 'replay' ? s.runId : null;
    }, { what: 'the replay to start' });
    const end = await ended(runId);
    assert.equal(end.outcome, 'answered');
    assert.equal(llm.chats.length, chats, 'a replay asks no model');
    assert.match(await panel.textContent('#playground [data-role="pg-task-msg"]'), /^Replay of session\.json.*Open the newest unread message$/);
    const calls = end.lastTrace.turns.flatMap((t) => t.calls);
    assert.ok(calls.length >= 1 && calls.every((c) => c.replay?.same === true), JSON.stringify(calls.map((c) => c.replay)));
    assert.equal(await panel.locator('#playground .pg-call[data-replay="same"] [data-role="pg-replay"]').count(), calls.length);
    assert.equal(await panel.locator('#playground .pg-call[data-replay="differs"]').count(), 0);
    assert.equal(await panel.textContent('#playground .pg-call [data-role="pg-replay"]'), 'same as recorded');

    // A file that is not a session: said, nothing run.
    await panel.setInputFiles('#playground-file', { name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('{"format":"something-else"}') });
    await until(() => panel.evaluate(() => document.querySelector('#playground [data-role="pg-outcome"]')?.textContent.startsWith('Not replayed')), { what: 'the refusal' });
    assert.match(await panel.textContent('#playground [data-role="pg-outcome"]'), /^Not replayed Not an exported agent session/);
    assert.equal(llm.chats.length, chats);
  });

  test('a dangerous call: Cancel focused, Enter cancels and the model is told; keys on the tree answer nothing; Run it sends it', { timeout: TEST_TIMEOUT }, async () => {
    const id = srv.engine.get('/inbox').children[3].id;
    const tool = toolOf(id, 'delete');
    const del = () => ({ calls: [{ name: tool, arguments: {} }] });
    llm.push(del, { text: 'It was refused, so I left the message.' });
    const runId = await run(`Delete ${id}`);
    const confirm = '#playground .pg-confirm[data-state="waiting"]';
    await panel.waitForSelector(confirm);
    assert.match(await panel.textContent(`${confirm} .pg-confirm-text`), new RegExp(`^The model wants to run delete on /inbox/${id} \\(dangerous\\)$`));
    assert.equal(await panel.evaluate(() => document.activeElement?.dataset.action), 'pg-confirm-cancel');
    await shot('confirm-1280');
    await panel.keyboard.press('Enter');
    const end = await ended(runId);
    assert.equal(end.outcome, 'answered');
    assert.equal(await panel.getAttribute('#playground .pg-confirm', 'data-state'), 'cancel');
    assert.match(await panel.textContent('#playground .pg-confirm [data-role="pg-confirm-answer"]'), /^You chose Cancel/);
    assert.match(await panel.textContent('#playground .pg-call[data-status="declined"] [data-role="pg-refused"]'), /^Declined: you chose Cancel/);
    const told = llm.chats.at(-1).body.messages.find((m) => m.role === 'tool');
    assert.match(told.content, /^Refused: .* the user did not confirm it/);
    assert.equal(invokes.some((m) => m.path === `/inbox/${id}`), false, 'nothing reached the provider');
    // A second Enter answers nothing more (the focus stayed on the answered card).
    await panel.keyboard.press('Enter');
    assert.ok(srv.engine.get(`/inbox/${id}`));

    // Again, with the focus on the tree when the question comes: keys there never answer it.
    let open;
    const gate = new Promise((r) => { open = r; });
    llm.push(async () => { await gate; return del(); }, { text: 'Deleted.' });
    const runId2 = await run(`Delete ${id}`);
    await panel.evaluate((p) => window.slopPanel.reveal(p), `/inbox/${id}`);
    await panel.focus('#tree');
    open();
    await until(async () => (await pg()).waiting.length === 1, { what: 'the question' });
    assert.equal(await panel.evaluate(() => document.activeElement?.id), 'tree', 'the focus stays on the tree');
    for (const k of ['Enter', 'ArrowDown', 'Enter', 'Space', 'Enter']) await panel.keyboard.press(k);
    assert.equal((await pg()).waiting.length, 1, 'still waiting');
    assert.equal(await panel.getAttribute('#side-tabs [data-tab="playground"]', 'data-attention'), '', 'the tab asks for a look');
    assert.equal(invokes.some((m) => m.path === `/inbox/${id}`), false);
    await panel.click('#side-tabs button[data-tab="playground"]');
    assert.equal(await panel.getAttribute('#side-tabs [data-tab="playground"]', 'data-attention'), null);
    await panel.click('#playground [data-action="pg-confirm-run"]');
    const end2 = await ended(runId2);
    assert.equal(end2.outcome, 'answered');
    assert.match(await panel.textContent('#playground .pg-confirm [data-role="pg-confirm-answer"]'), /^You chose Run it/);
    assert.equal(await panel.textContent('#playground .pg-call [data-role="pg-call-status"]'), 'ok');
    assert.ok(invokes.some((m) => m.path === `/inbox/${id}` && m.action === 'delete'), 'the provider got it');
    await until(() => !srv.engine.get(`/inbox/${id}`), { what: 'the message deleted' });
  });

  test('Stop during a reply that never ends: stopped at once, the text so far kept; the chat follows its end unless scrolled up', { timeout: TEST_TIMEOUT }, async () => {
    await panel.setViewportSize({ width: 480, height: 700 });
    llm.push({ hang: true, text: 'Let me look at the inbox first' });
    const task = ['Look around:', ...Array.from({ length: 24 }, (_, i) => `- point ${i + 1} of a long task`)].join('\n');
    const runId = await run(task);
    await until(() => panel.evaluate(() => document.querySelector('#playground .pg-model[data-turn="1"] [data-role="pg-text"]')?.textContent === 'Let me look at the inbox first'),
      { what: 'the streamed text while the reply goes on' });
    assert.equal((await pg()).running, true);
    assert.equal(await panel.isVisible('#playground [data-action="pg-run"]'), false, 'no second Run while one runs');
    const chat = '#playground [data-role="pg-chat"]';
    const scroll = () => panel.$eval(chat, (c) => ({ top: c.scrollTop, end: c.scrollHeight - c.clientHeight }));
    const s0 = await scroll();
    assert.ok(s0.end > 100, `the chat overflows: ${JSON.stringify(s0)}`);
    assert.ok(Math.abs(s0.top - s0.end) <= 2, `at its end while the text streams: ${JSON.stringify(s0)}`);
    await shot('streaming-480');
    // Scrolled up: what comes next does not pull the chat down; a button offers the end.
    await panel.$eval(chat, (c) => { c.scrollTop = 0; c.dispatchEvent(new Event('scroll')); });
    await panel.click('#playground [data-action="pg-stop"]');
    const end = await ended(runId);
    assert.equal(end.outcome, 'stopped');
    assert.equal((await scroll()).top, 0, 'the chat stayed where the user put it');
    await panel.click('#playground [data-action="pg-jump"]');
    const s1 = await scroll();
    assert.ok(Math.abs(s1.top - s1.end) <= 2, 'the end again');
    assert.match(await panel.textContent('#playground [data-role="pg-outcome"]'), /^Stopped/);
    assert.equal(await panel.textContent('#playground .pg-model[data-turn="1"] [data-role="pg-text"]'), 'Let me look at the inbox first');
    await until(() => llm.chats.at(-1).aborted === true, { what: 'the model request cancelled' });
    await panel.setViewportSize({ width: 1280, height: 800 });
  });

  test('a 401 in words; the key is nowhere in the page nor the console', { timeout: TEST_TIMEOUT }, async () => {
    llm.push({ status: 401 });
    const runId = await run('Anything');
    const end = await ended(runId);
    assert.equal(end.outcome, 'error');
    const said = await panel.textContent('#playground [data-role="pg-outcome"]');
    assert.match(said, /^Error The endpoint refused the API key \(HTTP 401\): check the key set for http:\/\/127\.0\.0\.1:\d+\. The endpoint said: Incorrect API key provided\.$/);
    assert.ok(llm.chats.every((r) => r.headers.authorization === `Bearer ${KEY}`), 'the key went to its endpoint');
    const page = await panel.evaluate(() => document.documentElement.outerHTML + [...document.querySelectorAll('input, textarea, select')].map((e) => e.value).join(' '));
    assert.equal(page.includes(KEY), false, 'not in the DOM');
    assert.equal(JSON.stringify(await pg()).includes(KEY), false, 'not in what the panel holds');
    assert.ok(consoleLines.length >= 0);
    assert.equal(consoleLines.filter((l) => l.includes(KEY)).length, 0, 'not in the console');
  });

  test('two providers on the tab: "all 2 connected providers" acts on both, in tab order; each call names its provider; Show in History shows its provider', { timeout: TEST_TIMEOUT }, async () => {
    const url = srv.url('/two.html');
    const tab = await browser.ctx.newPage();
    await tab.goto(url);
    const { tabId: twoTab } = await waitForProvider(browser.ctx, url, (p) => p.key === todo.wsUrl && p.status === 'connected' && p.nodes > 0);
    await waitForProvider(browser.ctx, url, (p) => p.key === srv.wsUrl && p.status === 'connected' && p.nodes > 0);
    const two = await openPanel(browser.ctx, browser.extId, twoTab);
    try {
      await two.setViewportSize({ width: 480, height: 900 });
      await two.waitForSelector('#tree .row[data-path="/inbox"]', { timeout: 15_000 });
      await two.click('#side-tabs button[data-tab="playground"]');
      await two.waitForSelector('#playground [data-role="pg-all"]', { state: 'visible' });
      assert.equal(await two.textContent('#playground .pg-check'), 'all 2 connected providers on this tab');
      await two.check('#playground [data-role="pg-all"]');
      assert.equal(await two.textContent('#playground [data-role="pg-targets"]'), 'Acts on 2 providers: Acme Mail, Todo SPA');
      const item = todo.engine.get('/todos').children[0];
      const wasDone = item.properties.done;
      llm.push((r) => {
        const names = r.body.tools.map((t) => t.function.name);
        const toggle = names.find((n) => n.endsWith(`${item.id.replace(/-/g, '_')}__toggle`));
        assert.ok(toggle, `a todo toggle among ${names.length} tools`);
        return { calls: [{ name: toggle, arguments: {} }] };
      }, { text: 'Toggled it.' });
      const before = (await two.evaluate(() => window.slopPanel.playground)).runId;
      await two.fill('#playground [data-role="pg-task"]', 'Toggle the first todo');
      await two.click('#playground [data-action="pg-run"]');
      const end = await until(async () => {
        const st = await two.evaluate(() => window.slopPanel.playground);
        return st.runId !== before && !st.running && st.outcome ? st : null;
      }, { what: 'the run on both' });
      assert.equal(end.outcome, 'answered');
      assert.deepEqual(end.lastTrace.providers.map((p) => p.name), ['Acme Mail', 'Todo SPA'], 'tab order');
      assert.equal(todo.engine.get(`/todos/${item.id}`).properties.done, !wasDone, 'the todo provider got it');
      assert.match(await two.textContent('#playground .pg-call .pg-target'), new RegExp(`^/todos/${item.id} · toggle · on Todo SPA$`));
      await two.screenshot({ path: path.join(SHOTS, 'two-providers-480.png') });
      await two.click('#playground [data-pg-view="trace"]');
      await two.click('#playground .pg-tturn[data-turn="1"] [data-action="pg-show-history"]');
      await until(() => two.evaluate(() => window.slopPanel.selectedKey()), { what: 'a provider shown' });
      const diff = await until(() => two.evaluate(() => window.slopPanel.lastDiff?.pinned && window.slopPanel.lastDiff), { what: 'the todo\'s diff in History' });
      assert.equal(await two.evaluate(() => window.slopPanel.selectedKey()), todo.wsUrl, 'the History of the provider the call acted on');
      assert.ok(diff.changed.includes(`/todos/${item.id}`), JSON.stringify(diff));
    } finally {
      await two.close();
      await tab.close();
    }
  });

  test('the worker stops during a run: the run ends, said; Run waits for the worker, then works again', { timeout: TEST_TIMEOUT }, async () => {
    llm.push({ hang: true, text: 'Still thinking' });
    const runId = await run('Think for a long time');
    await until(() => panel.evaluate(() => /Still thinking/.test(document.querySelector('#playground .pg-model[data-turn="1"] [data-role="pg-text"]')?.textContent ?? '')),
      { what: 'the reply under way' });
    assert.ok(await stopServiceWorker(browser.ctx, browser.extId) >= 1, 'the worker stopped');
    const end = await ended(runId);
    assert.equal(end.outcome, 'lost');
    assert.match(await panel.textContent('#playground [data-role="pg-outcome"]'), /^Ended The connection to the extension’s service worker was lost, and the run with it/);
    // Back: the provider reconnects through the new worker, and Run is on again.
    await until(async () => !(await panel.isDisabled('#playground [data-action="pg-run"]')), { what: 'Run on again', timeout: 30_000 });
    assert.equal(await panel.isVisible('#playground [data-role="pg-why"]'), false);
    await until(() => llm.chats.at(-1).aborted === true, { what: 'the old request let go' });
  });

  test('screenshots: chat and trace at 320, 480, 700 and 1280 px, light and dark; the tabs fit at 320', { timeout: TEST_TIMEOUT }, async () => {
    const id = unreadIds()[0] ?? srv.engine.get('/inbox').children[0].id;
    llm.push({ text: 'I will open it and check what it says.', calls: [{ name: toolOf(id, 'open'), arguments: {} }, { name: 'no_such_tool', arguments: { x: 1 } }] });
    llm.push({ text: 'The message is open. One tool I tried does not exist, so I left it.' });
    const runId = await run('Open the newest unread message and tell me what it says');
    await ended(runId);
    for (const theme of ['light', 'dark']) {
      await panel.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
      for (const [w, h] of [[320, 700], [480, 800], [700, 500], [1280, 800]]) {
        await panel.setViewportSize({ width: w, height: h });
        for (const view of ['chat', 'trace']) {
          await panel.click(`#playground [data-pg-view="${view}"]`);
          await panel.waitForTimeout(60);
          const bad = await panel.evaluate(() => {
            const out = [];
            const tabs = document.getElementById('side-tabs').getBoundingClientRect();
            for (const b of document.querySelectorAll('#side-tabs button')) {
              const r = b.getBoundingClientRect();
              if (r.right > tabs.right + 1 || r.bottom > tabs.bottom + 1) out.push(`tab ${b.dataset.tab} sticks out`);
            }
            if (tabs.height > 34) out.push('the tabs wrap');
            const pane = document.getElementById('playground').getBoundingClientRect();
            for (const el of document.querySelectorAll('#playground .pg-bar > *, #playground .pg-compose button, #playground .pg-head select')) {
              const r = el.getBoundingClientRect();
              if (r.width && (r.right > pane.right + 1 || r.left < pane.left - 1)) out.push(`${el.dataset.action ?? el.dataset.role ?? el.className} sticks out`);
            }
            if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1) out.push('the page scrolls sideways');
            const chat = document.querySelector('#playground [data-role="pg-chat"]');
            if (chat.scrollWidth > chat.clientWidth + 1) out.push('the chat scrolls sideways');
            return out;
          });
          assert.deepEqual(bad, [], `${w}x${h} ${theme} ${view}`);
          await shot(`${view}-${w}-${theme}`);
        }
      }
    }
    await panel.evaluate(() => { document.documentElement.dataset.theme = 'light'; });
    await panel.setViewportSize({ width: 1280, height: 800 });
    // The unknown tool's card says why it was refused.
    assert.match(await panel.textContent('#playground .pg-call[data-status="refused"] [data-role="pg-refused"]'), /^Refused: no tool by that name was offered/);
  });
});
