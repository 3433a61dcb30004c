// The frame log (every frame in and out; filter by type; pause; clear; copy a frame as JSON;
// batches expand into their messages) against a scripted provider that sends flat and nested
// batches; and the history (scrub back to an earlier version read-only, export it, diff two
// versions) against a state engine whose versions the test records.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs/promises';
import { StateEngine, deepEqual, normalizeTree } from '../fixtures/provider/state.mjs';
import { startScriptedProvider, scenarios, frames, reply } from '../fixtures/provider/scripted.mjs';
import { Request } from '../../extension/shared/messages.js';
import { launch, stopServiceWorker, startProvider, setTokenInExtension, wsOrigin, waitForProvider, openPanel, until, swEval, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');

describe('panel log', () => {
  let browser;
  let srv;
  let tabId;
  let key;

  before(async () => {
    srv = await startScriptedProvider({ scenario: scenarios.batch() });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    let provider;
    ({ tabId, provider } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.subscriptions[0]?.version === 6));
    key = provider.key;
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('frames in and out; filter; batches expand; copy; pause; clear', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#toggle-log');
    const rows = panel.locator('#log .log-row');
    const swLog = await swEval(browser.ctx, ([t, k]) => globalThis.slopInspector.log(t, k), [tabId, key]);
    await until(async () => (await rows.count()) === swLog.length, { what: 'every frame the worker logged' });
    assert.deepEqual(await rows.locator('.ftype').allTextContents(), swLog.map((f) => f.type));
    assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => e.dataset.dir)), swLog.map((f) => f.dir));
    assert.ok(swLog.some((f) => f.dir === 'out' && f.type === 'subscribe'));
    assert.match(await rows.first().textContent(), /\d\d:\d\d:\d\d\.\d{3}.*hello.*B/);

    // Filter by type: a batch that holds patches counts as a patch frame.
    await panel.selectOption('#log select[data-filter="type"]', 'batch');
    await until(async () => (await rows.count()) === 2, { what: 'two batch frames' });
    await panel.selectOption('#log select[data-filter="type"]', 'hello');
    await until(async () => (await rows.count()) === 1, { what: 'one hello' });
    await panel.selectOption('#log select[data-filter="type"]', 'batch');
    await until(async () => (await rows.count()) === 2, { what: 'two batch frames again' });

    // Expand the flat batch, then the nested one and its inner batches.
    await rows.nth(0).locator('[data-action="expand"]').click();
    await until(async () => (await rows.count()) === 5, { what: 'the first batch’s three messages' });
    assert.deepEqual(await panel.locator('#log .log-row.inner .ftype').allTextContents(), ['patch', 'event', 'patch']);
    await rows.nth(4).locator('[data-action="expand"]').click();
    await panel.locator('#log .log-row.inner[data-type="batch"] [data-action="expand"]').first().click();
    await panel.locator('#log .log-row.inner[data-type="batch"] [data-action="expand"]').nth(1).click();
    assert.deepEqual(await panel.locator('#log .log-row.inner .ftype').allTextContents(), ['patch', 'event', 'patch', 'patch', 'batch', 'patch', 'batch', 'patch']);
    await panel.screenshot({ path: path.join(SHOTS, 'panel-log.png') });

    // Copy a frame as JSON (pretty); an inner message copies on its own.
    await rows.nth(0).click();
    await panel.click('#log button[data-action="copy-frame"]');
    const batchText = swLog.find((f) => f.type === 'batch').text;
    assert.equal(await panel.evaluate(() => window.slopPanel.lastCopied.text), JSON.stringify(JSON.parse(batchText), null, 2));
    await panel.locator('#log .log-row.inner').nth(1).click();
    assert.match(await panel.locator('#log .frame-json').textContent(), /"name": "tick"/);
    await panel.click('#log button[data-action="copy-frame"]');
    assert.deepEqual(JSON.parse(await panel.evaluate(() => window.slopPanel.lastCopied.text)), { type: 'event', name: 'tick', data: { n: 1 } });

    // A filter that hides the selected frame takes it out of the detail too.
    await panel.selectOption('#log select[data-filter="type"]', 'hello');
    await until(async () => /Select a frame/.test(await panel.locator('#log .log-detail').textContent()), { what: 'the detail to follow the filter' });

    // Pause: frames are not recorded; resume: they are again.
    await panel.selectOption('#log select[data-filter="type"]', '');
    const n0 = await rows.count();
    const query = () => panel.evaluate(([t, k]) => window.slopPanel.request(t, { key: k, options: { path: '/', depth: 0 } }), [Request.QUERY, key]);
    await panel.click('#log button[data-action="pause"]');
    await query();
    await until(async () => /paused: 2 not recorded/.test(await panel.locator('#log .log-count').textContent()), { what: 'two frames skipped' });
    assert.equal(await rows.count(), n0);
    await panel.click('#log button[data-action="pause"]');
    await query();
    await until(async () => (await rows.count()) === n0 + 2, { what: 'query and answer logged after resuming' });
    assert.deepEqual((await rows.locator('.ftype').allTextContents()).slice(-2), ['query', 'snapshot']);

    await panel.click('#log button[data-action="clear"]');
    await until(async () => (await rows.count()) === 0, { what: 'a cleared log' });
    await query();
    await until(async () => (await rows.count()) === 2, { what: 'new frames after clearing' });
    await panel.close();
  });
});

describe('panel history', () => {
  let browser;
  let srv;
  let tabId;
  let page;
  const node = (id, label) => ({ id, type: 'item', properties: { label }, affordances: [{ action: 'poke' }] });

  before(async () => {
    srv = await startProvider({ engine: new StateEngine({
      id: 'hist', name: 'History provider',
      tree: { id: 'root', type: 'root', properties: { label: 'History' }, children: [node('a', 'A'), node('b', 'B'), { id: 'c', type: 'status', properties: { n: 0 }, meta: { salience: 0.2 } }] },
      handlers: { poke: () => ({ poked: true }) },
    }) });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    ({ tabId } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0));
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('the steps the worker keeps: select, slide and step through them; the diff, the slider and the banner agree; pin two to diff; read-only, exportable', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/a"]', { timeout: 10_000 });
    const truths = [{ version: srv.engine.version, tree: srv.engine.truth('/', -1, { max_nodes: 20000 }) }];
    const step = async (fn) => {
      srv.engine.mutate(fn);
      truths.push({ version: srv.engine.version, tree: srv.engine.truth('/', -1, { max_nodes: 20000 }) });
      await until(() => panel.evaluate((v) => window.slopPanel.currentTree()?.version === v, srv.engine.version), { what: `the panel at v${srv.engine.version}` });
    };
    await step((r) => { r.children[0].properties.label = 'A, renamed'; });
    await step((r) => { r.children.push(node('d', 'D')); });
    await step((r) => {
      r.children = r.children.filter((c) => c.id !== 'b');
      r.children[1].meta = { salience: 0.9, urgency: 'high' };
      r.children[0].affordances.push({ action: 'shout', label: 'Shout' });
    });

    await panel.click('#toggle-history');
    const steps = () => panel.evaluate(() => window.slopPanel.history()?.steps.map((s) => ({ step: s.step, kind: s.kind, version: s.version, ops: s.ops, paths: s.paths })));
    await until(async () => (await steps())?.length === 4, { what: 'four steps' });
    const h = await steps();
    assert.deepEqual(h.map((s) => [s.kind, s.version]), [['snapshot', truths[0].version], ...truths.slice(1).map((t) => ['patch', t.version])]);
    assert.deepEqual(h[1].paths, ['/a']);
    // Which bound binds, with the real figures (the steps: 4 of 1,000 is nearer its bound than a few KB of 64 MB).
    await until(async () => /^4 steps \(bound: steps; \d+ KB of 64\.0 MB used\)$/.test(await panel.locator('#history-strip [data-role="history-bound"]').textContent()), { what: 'the bounds said' });
    assert.equal(await panel.locator('#history .step-row').count(), 4);
    assert.equal(await panel.locator('#side-tabs [data-tab="history"]').getAttribute('class'), 'active');

    // Slide to the second step: tree, banner, list, slider and diff all say step 2.
    await panel.locator('#history-strip input[type="range"]').fill('1');
    await panel.locator('#banner[data-kind="scrub"]').waitFor({ timeout: 5000 });
    const agree = async (i) => {
      await until(async () => (await panel.evaluate(() => window.slopPanel.historyShown())) === h[i].step, { what: `step ${i + 1} shown` });
      assert.match(await panel.locator('#banner').textContent(), new RegExp(`Viewing version ${h[i].version} \\(${h[i].kind} at `));
      assert.equal(await panel.locator('#history-strip input[type="range"]').inputValue(), String(i));
      assert.equal(await panel.locator('#history .step-row.selected').getAttribute('data-step'), String(h[i].step));
      const d = await panel.evaluate(() => window.slopPanel.lastDiff);
      if (i > 0) assert.deepEqual([d.fromStep, d.toStep], [h[i - 1].step, h[i].step]);
    };
    await agree(1);
    assert.match(await panel.locator('#tree .row[data-path="/a"]').textContent(), /A, renamed/);
    assert.equal(await panel.locator('#tree .row[data-path="/d"]').count(), 0, '/d came later');
    assert.equal(await panel.locator('#tree .row[data-path="/b"]').count(), 1, '/b was still there');
    assert.deepEqual(await panel.evaluate(() => window.slopPanel.lastDiff.changed), ['/a']);
    await panel.click('#tree .row[data-path="/a"]');
    assert.equal(await panel.locator('.affordance[data-action-name="poke"] button[data-action="invoke"]').isDisabled(), true, 'invoke is off');
    assert.equal(await panel.locator('.affordance[data-action-name="shout"]').count(), 0);
    assert.match(await panel.locator('#detail .mode-note').textContent(), /read-only/);
    // The state shown, exported, is the provider's tree at that version.
    await panel.click('#export');
    await until(() => panel.evaluate(() => window.slopPanel.lastExport), { what: 'the export' });
    const exported = JSON.parse(await panel.evaluate(() => window.slopPanel.lastExport));
    assert.equal(exported.version, truths[1].version);
    assert.equal(exported.scrubbed, true);
    assert.ok(deepEqual(normalizeTree(exported.tree), normalizeTree(truths[1].tree)), JSON.stringify(exported.tree));
    // The arrows and a click in the list move the same selection.
    await panel.click('#history-strip button[data-action="h-prev"]');
    await agree(0);
    assert.equal(await panel.locator('#tree .row[data-path="/a"] .nsum').textContent(), 'A');
    await panel.click(`#history .step-row[data-step="${h[2].step}"]`);
    await agree(2);
    assert.deepEqual(await panel.evaluate(() => window.slopPanel.lastDiff.added), ['/d']);
    await panel.locator('#history .steps').focus();
    await panel.keyboard.press('ArrowDown');
    await until(async () => (await panel.evaluate(() => window.slopPanel.historyShown())) === null, { what: 'the last step: live' });
    await panel.click('#history-strip button[data-action="h-prev"]');
    await agree(2);
    await panel.click('#banner button[data-action="back-to-live"]');
    await panel.locator('#banner').waitFor({ state: 'hidden', timeout: 5000 });
    await panel.locator('#tree .row[data-path="/d"]').waitFor({ timeout: 5000 });

    // Pin the first and the last step: their diff.
    await panel.click(`#history .step-row[data-step="${h[0].step}"] [data-action="pin"]`);
    await panel.click(`#history .step-row[data-step="${h[3].step}"] [data-action="pin"]`);
    await until(async () => (await panel.evaluate(() => window.slopPanel.lastDiff))?.fromStep === h[0].step
      && (await panel.evaluate(() => window.slopPanel.lastDiff)).toStep === h[3].step, { what: 'the pinned diff' });
    const diff = await panel.evaluate(() => window.slopPanel.lastDiff);
    assert.deepEqual(diff.added, ['/d']);
    assert.deepEqual(diff.removed, ['/b']);
    assert.deepEqual(diff.changed, ['/', '/a', '/c']);
    const a = panel.locator('#history .diff-node.changed[data-path="/a"]');
    assert.match(await a.locator('[data-field="properties"]').textContent(), /label.*"A".*→.*"A, renamed"/);
    assert.match(await a.locator('[data-field="affordances"] li[data-change="added"]').textContent(), /shout/);
    assert.match(await panel.locator('#history .diff-node.changed[data-path="/c"] [data-field="meta"]').textContent(), /salience.*0\.2.*→.*0\.9/);
    assert.match(await panel.locator('#history .diff-node.changed[data-path="/"] [data-field="children"]').textContent(), /\+ d.*− b/);
    assert.match(await panel.locator('#history .diff-head').textContent(), /1 added · 1 removed · 3 changed/);
    assert.equal(await panel.locator('#history .step-row.pinned').count(), 2);
    await panel.screenshot({ path: path.join(SHOTS, 'panel-history-diff.png') });
    for (const [w, hgt, name] of [[700, 500, 'panel-history-700.png'], [480, 800, 'panel-history-480.png']]) {
      await panel.setViewportSize({ width: w, height: hgt });
      await panel.screenshot({ path: path.join(SHOTS, name) });
    }
    await panel.emulateMedia({ colorScheme: 'dark' });
    await panel.setViewportSize({ width: 1280, height: 300 });
    await panel.screenshot({ path: path.join(SHOTS, 'panel-history-dark-1280x300.png') });
    await panel.emulateMedia({ colorScheme: 'light' });
    await panel.setViewportSize({ width: 1280, height: 800 });
    await panel.close();

    // The history is the worker's: a panel opened again sees the same steps.
    const again = await openPanel(browser.ctx, browser.extId, tabId);
    await again.click('#toggle-history');
    await until(async () => JSON.stringify(await again.evaluate(() => window.slopPanel.history()?.steps.map((s) => s.step))) === JSON.stringify(h.map((s) => s.step)), { what: 'the same steps after reopening' });
    await again.close();
  });

  test('a recording: exported, opened in another panel, played back read-only; a hostile one is refused and changes nothing', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/a"]', { timeout: 10_000 });
    await panel.click('#toggle-history');
    await until(async () => (await panel.evaluate(() => window.slopPanel.history()?.steps.length)) >= 4, { what: 'the steps' });
    await panel.click('#history-strip button[data-action="h-export"]');
    const text = await until(() => panel.evaluate(() => window.slopPanel.lastRecording), { what: 'the recording' });
    const rec = JSON.parse(text);
    assert.equal(rec.format, 'slop-inspector-recording');
    assert.deepEqual(rec.provider, { id: 'hist', name: 'History provider' });
    assert.ok(rec.frames.every((f) => typeof f.t === 'number' && typeof f.text === 'string'));
    assert.ok(rec.segments[0].hello.includes('"hello"'));
    await panel.close();

    const other = await openPanel(browser.ctx, browser.extId, tabId);
    await other.waitForSelector('#tree .row[data-path="/a"]', { timeout: 10_000 });
    const before = await other.evaluate(() => window.slopPanel.selectedKey());
    // Hostile: a snapshot that breaks the rules, a step pointing nowhere: refused, nothing changes.
    const bad = { ...rec, segments: [{ ...rec.segments[0], start: { ...rec.segments[0].start, text: '{"type":"snapshot","id":"x","version":1,"tree":[]}' } }] };
    assert.equal(await other.evaluate((t) => window.slopPanel.openRecording(t, 'bad.json'), JSON.stringify(bad)), null);
    assert.match(await other.locator('#toast').textContent(), /Not opened: bad\.json: Not a SLOP Inspector recording: segment 1/);
    assert.equal(await other.evaluate(() => window.slopPanel.selectedKey()), before);
    assert.equal(await other.evaluate(() => window.slopPanel.openRecording('{"format":"slop-inspector-recording","formatVersion":1,"frames":1}', 'x.json')), null);

    // Opened through Import: it plays back from its first step.
    const key = await other.evaluate((t) => window.slopPanel.openRecording(t, 'hist.json'), text);
    assert.match(key, /^recording:/);
    await other.locator('#banner[data-kind="recording"]').waitFor({ timeout: 5000 });
    assert.match(await other.locator('#banner').textContent(), /Recording “hist\.json” of History provider: step 1 of \d+, version 1 — read-only/);
    assert.match(await other.locator('#provider optgroup[label="Recordings"] option:checked').textContent(), /hist\.json/);
    assert.equal(await other.locator('#tree .row[data-path="/a"] .nsum').textContent(), 'A');
    await other.click('#tree .row[data-path="/a"]');
    assert.equal(await other.locator('.affordance[data-action-name="poke"] button[data-action="invoke"]').isDisabled(), true);
    await other.selectOption('#history-strip select[data-role="history-speed"]', '10');
    await other.click('#history-strip button[data-action="h-play"]');
    await until(() => other.evaluate(() => window.slopPanel.historyShown() === window.slopPanel.history()?.steps.at(-1)?.step), { what: 'played to the end', timeout: 20_000 });
    // Play stops on the tick after it shows the last step.
    await until(async () => (await other.locator('#history-strip button[data-action="h-play"]').getAttribute('aria-pressed')) === 'false', { what: 'stopped at the end' });
    assert.equal(await other.locator('#tree .row[data-path="/b"]').count(), 0, 'the last state');
    await other.screenshot({ path: path.join(SHOTS, 'panel-recording.png') });
    await other.click('#banner button[data-action="close-recording"]');
    await until(async () => (await other.evaluate(() => window.slopPanel.selectedKey())) === before, { what: 'back to the provider' });
    await other.close();
  });

  test('a page reload is a boundary in the same history; with Persist the history outlives a service-worker stop', { timeout: TEST_TIMEOUT }, async () => {
    let panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.waitForSelector('#tree .row[data-path="/a"]', { timeout: 10_000 });
    await panel.click('#toggle-history');
    const steps = (p) => p.evaluate(() => window.slopPanel.history()?.steps.map((s) => ({ step: s.step, kind: s.kind, boundary: s.boundary?.kind ?? null })));
    await until(async () => (await steps(panel))?.length >= 1, { what: 'the steps so far' });
    srv.engine.mutate((root) => { root.children[0].properties.label = 'before the reload'; });
    await until(async () => (await steps(panel))?.at(-1).kind === 'patch', { what: 'a patch step' });
    const before = (await steps(panel)).map((s) => s.step);

    // The page loaded again: the same history goes on after a "reload" step, marked as a boundary.
    await page.reload();
    const after = await until(async () => {
      const h = await steps(panel);
      return h?.some((s) => s.kind === 'reload' && s.step > before.at(-1)) && h.at(-1).kind === 'snapshot' && h.at(-1).step > before.at(-1) ? h : null;
    }, { what: 'the same history after a reload step' });
    assert.deepEqual(after.slice(0, before.length).map((s) => s.step), before, 'the steps before the reload are kept');
    assert.equal(after.at(-1).boundary, 'reload', 'the snapshot after it crosses the reload');
    await until(async () => (await panel.locator('#history .step-row[data-kind="reload"]').count()) >= 1, { what: 'the reload row' });
    // A step from before the reload is still there to look at. As a person does: the pointer on the
    // list first (the list stops following new steps while it is there), then the press.
    await panel.hover('#history .steps');
    await panel.click(`#history .step-row[data-step="${before.at(-1)}"]`);
    await until(() => panel.evaluate(() => window.slopPanel.historyShown()), { what: 'a step shown after the click' })
      .then((shown) => assert.equal(shown, before.at(-1), 'the step clicked is the one shown'));
    await until(async () => /before the reload/.test(await panel.locator('#tree .row[data-path="/a"]').textContent()), { what: 'the state before the reload' });
    await panel.click('#banner button[data-action="back-to-live"]');

    // Persist: the browser stops the service worker; when it starts again the history is read back.
    await panel.check('#history-strip [data-role="history-persist"]');
    await until(() => panel.evaluate(() => window.slopPanel.history()?.info?.persist === true), { what: 'Persist on' });
    const kept = (await steps(panel)).map((s) => s.step);
    await new Promise((r) => setTimeout(r, 2500)); // written a couple of seconds after the last change
    await stopServiceWorker(browser.ctx, browser.extId);
    await panel.close();
    await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0, { timeout: 20_000 });
    panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#toggle-history');
    const back = await until(async () => {
      const h = await steps(panel);
      return h && kept.every((st) => h.some((s) => s.step === st)) && h.some((s) => s.boundary === 'worker') ? h : null;
    }, { what: 'the persisted history after the worker started again', timeout: 20_000 });
    assert.ok(back.at(-1).step > kept.at(-1));
    await until(async () => /the extension started again/.test(await panel.locator('#history').textContent()), { what: 'the boundary said' });
    await panel.close();
  });


});

describe('panel history across a provider restart and a provider change', () => {
  let browser;
  let srv;
  let tabId;
  let key;
  const gates = [];
  const gate = (i) => {
    gates[i] ??= {};
    gates[i].promise ??= new Promise((r) => { gates[i].open = r; });
    return gates[i].promise;
  };
  const counter = (n) => ({ id: 'root', type: 'root', properties: { label: 'Counter', n } });

  before(async () => {
    // Connection 0: versions 20100, 20101. Connection 1 (the same app, restarted): its counter
    // starts at 1 again. Connection 2: a different app at the same address.
    const hello = frames.hello({ id: 'counter', name: 'Counter' });
    srv = await startScriptedProvider({
      script: (ctx) => {
        if (ctx.index === 0) {
          return [hello, ...reply('subscribe', (m) => frames.snapshot(m.id, 20100, counter(0)), { $as: 'sub' }),
            async (c) => { await gate(0); return frames.patch(c.vars.sub.id, 20101, 1, [{ op: 'replace', path: '/properties/n', value: 1 }]); },
            async () => { await gate(1); return { $close: 1001 }; }];
        }
        if (ctx.index === 1) {
          return [hello, ...reply('subscribe', (m) => frames.snapshot(m.id, 1, counter(100)), { $as: 'sub' }),
            (c) => frames.patch(c.vars.sub.id, 2, 1, [{ op: 'replace', path: '/properties/n', value: 101 }]),
            async () => { await gate(2); return { $close: 1001 }; }];
        }
        return [frames.hello({ id: 'other-app', name: 'Other app' }),
          ...reply('subscribe', (m) => frames.snapshot(m.id, 7, { id: 'other', type: 'root', properties: { label: 'Something else' } }), { $as: 'sub' })];
      },
      afterScript: () => undefined,
    });
    browser = await launch();
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    let provider;
    ({ tabId, provider } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.subscriptions[0]?.version === 20100));
    key = provider.key;
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    for (const g of gates) g?.open?.();
    await browser?.close();
    await srv?.close();
  });

  test('a restart (version 1 after 20101) and a provider change are marked in the history and the events', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#toggle-history');
    const history = () => panel.evaluate(() => window.slopPanel.history()?.steps.filter((s) => s.kind !== 'error').map((e) => ({ step: e.step, version: e.version, boundary: e.boundary ?? null })));
    await until(async () => (await history())?.length === 1, { what: 'version 20100 in the panel' });
    gate(0);
    gates[0].open();
    await until(async () => (await history())?.length === 2, { what: 'version 20101 in the panel' });

    // The provider restarts: the next connection's versions start at 1.
    gate(1);
    gates[1].open();
    await panel.evaluate(([t, k]) => window.slopPanel.request(t, { key: k }).catch(() => {}), [Request.RETRY, key]).catch(() => {});
    await until(async () => (await history())?.length === 4, { what: 'versions 1 and 2 after the restart', timeout: 20_000 });
    const h = await history();
    assert.deepEqual(h.map((e) => e.version), [20100, 20101, 1, 2], 'versions go back; nothing is dropped or merged');
    assert.ok(h.every((e, i) => i === 0 || e.step > h[i - 1].step), 'steps are numbered by a running count');
    assert.deepEqual(h[2].boundary, { kind: 'restart', previousVersion: 20101 });
    assert.equal(h.filter((e) => e.boundary).length, 1);

    // The step list marks the boundary; the banner says which side of it a step is on.
    const strip = panel.locator('#history-strip');
    const boundaryRow = panel.locator(`#history .step-row[data-step="${h[2].step}"]`);
    await boundaryRow.waitFor({ timeout: 5000 });
    assert.match(await boundaryRow.textContent(), /provider restarted: version 1 after 20101/);
    assert.equal(await panel.locator('#history .step-row.boundary').count(), 1);
    await panel.click(`#history .step-row[data-step="${h[1].step}"]`);
    await until(async () => /Viewing version 20101 \([a-z]+ at [0-9:.]+\) — read-only; invoking is off\. After this step the provider restarted, so later version numbers are a new count/.test(await panel.locator('#banner').textContent()), { what: 'the banner saying which side of the restart' });
    assert.match(await panel.locator('#tree .row[data-path="/"]').textContent(), /Counter/);
    await panel.click(`#history .step-row[data-step="${h[2].step}"]`);
    await until(async () => /v1 · /.test(await strip.locator('[data-role="history-label"]').textContent()), { what: 'the step after the restart' });
    assert.equal(await strip.locator('[data-role="history-label"]').evaluate((e) => e.classList.contains('at-boundary')), true);
    await panel.screenshot({ path: path.join(SHOTS, 'panel-history-restart.png') });
    await panel.setViewportSize({ width: 700, height: 500 });
    await panel.screenshot({ path: path.join(SHOTS, 'panel-history-restart-700.png') });
    await panel.setViewportSize({ width: 1280, height: 800 });
    await panel.click('#banner button[data-action="back-to-live"]');

    // A diff across the restart says so.
    await panel.click(`#history .step-row[data-step="${h[1].step}"] [data-action="pin"]`);
    await panel.click(`#history .step-row[data-step="${h[3].step}"] [data-action="pin"]`);
    await panel.locator('#history [data-role="diff-boundary"]').waitFor({ timeout: 5000 });
    assert.match(await panel.locator('#history [data-role="diff-boundary"]').textContent(), /This diff crosses a boundary \(provider restarted: version 1 after 20101\)/);
    assert.deepEqual(await panel.evaluate(() => { const d = window.slopPanel.lastDiff; return [d.from, d.to, d.boundaries]; }), [20101, 2, 1]);

    // The events list has a readable line for it.
    await panel.click('#toggle-log');
    await panel.click('#log button[data-tab="events"]');
    const restartRow = panel.locator('#log .ev-row.ev-snapshot');
    await restartRow.waitFor({ timeout: 5000 });
    assert.match(await restartRow.textContent(), /provider restarted: version 1 after 20101/);

    // A different app now answers at the same address.
    gate(2);
    gates[2].open();
    await panel.evaluate(([t, k]) => window.slopPanel.request(t, { key: k }).catch(() => {}), [Request.RETRY, key]).catch(() => {});
    const changed = panel.locator('#log .ev-row.ev-provider_changed');
    await changed.waitFor({ timeout: 20_000 });
    assert.match(await changed.textContent(), /a different provider answers at this address: Other app \(other-app\), was Counter \(counter\)/);
    await until(async () => (await history())?.at(-1).version === 7, { what: 'the other app’s snapshot in the history', timeout: 20_000 });
    const last = (await history()).at(-1);
    assert.equal(last.boundary.kind, 'provider');
    await until(async () => (await panel.locator('#history .step-row.boundary').count()) === 2, { what: 'the second boundary in the list' });
    assert.match(await panel.locator('#history .step-row.boundary').nth(1).textContent(), /provider changed: Counter \(counter\) → Other app \(other-app\), version 7 after 2/);
    await panel.screenshot({ path: path.join(SHOTS, 'panel-history-provider-changed.png') });
    await panel.close();
  });
});
