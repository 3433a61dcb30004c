// panel-suite.mjs: the panel's, the popup's and the options page's features, described once and
// run in Chromium (tests/e2e/panel-suite.test.mjs) and Firefox ESR (tests/firefox/panel-suite.test.mjs)
// through driver.mjs. Screenshots of the main states go to build/screenshots/<browser>-*.png, so
// the two browsers can be compared side by side.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startWsProvider, exactIntegers } from '../fixtures/provider/ws-server.mjs';
import { StateEngine } from '../fixtures/provider/state.mjs';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { startLlmServer } from '../fixtures/llm-server.mjs';
import { openBrowser, saveToken } from './driver.mjs';
import { ROOT } from '../e2e/helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots');
const TIMEOUT = 90_000;

/** The tree the panel shows: {selected, version, paths} (read through its debugging handle). */
const treeState = () => {
  const t = window.slopPanel?.currentTree();
  return t ? { key: window.slopPanel.selectedKey(), version: t.version, count: t.nodes.size } : null;
};

/** @param {'chromium'|'firefox'} kind */
export function panelSuite(kind) {
  describe(`panel, popup and options (${kind})`, () => {
    let d, srv, tabId, pageUrl;
    const shot = (page, name) => page.screenshot(path.join(SHOTS, `${kind}-${name}.png`));
    const panel = async (query = '') => {
      const p = await d.extensionPage(`extension/panel/panel.html?tabId=${tabId}${query}`);
      await p.waitFor('#tree .row[data-path="/inbox"]', { timeout: 15_000 });
      return p;
    };

    before(async () => {
      d = await openBrowser(kind);
      srv = await startWsProvider({ engine: createMailEngine({ messages: 12, live: false }), host: '127.0.0.1', port: 0, allowedOrigins: [d.extOrigin] });
      await saveToken(d, srv.origin, srv.token);
      pageUrl = srv.url('/pages/meta-ws.html');
      await d.webPage(pageUrl);
      tabId = await d.tabId(pageUrl);
      assert.ok(Number.isInteger(tabId), `the tab of ${pageUrl}`);
      await fs.mkdir(SHOTS, { recursive: true });
    });
    after(async () => {
      await d?.close();
      await srv?.close();
    });

    test('the live tree, a node\'s detail; an invoke form places every failure under its field; Enter invokes; a dangerous one asks with Cancel focused', { timeout: TIMEOUT }, async () => {
      const p = await panel();
      const t = await p.waitUntil(treeState, undefined, { what: 'the tree' });
      assert.ok(t.count > 12, `the mirror's views: ${t.count}`);
      assert.equal(await p.attr('#status', 'data-status'), 'connected');
      await p.click('#tree .row[data-path="/compose"]');
      const card = '.affordance[data-action-name="send"]';
      await p.waitFor(`${card} input[data-ppath="params.to"]`);
      await p.click(`${card} button[data-action="invoke"]`);
      await p.waitUntil((c) => [...document.querySelectorAll(`${c} .pf-error`)].filter((e) => e.textContent).length === 2, card, { what: 'both required errors' });
      assert.deepEqual((await p.texts(`${card} .pf-field > .pf-error`)).filter(Boolean).sort(), ['Subject is required', 'To is required']);
      await p.fill(`${card} input[data-ppath="params.to"]`, 'ada@acme.example');
      await p.fill(`${card} input[data-ppath="params.subject"]`, `From ${kind}`);
      const sent = srv.engine.version;
      await p.focus(`${card} input[data-ppath="params.subject"]`);
      await p.press('Enter');
      await p.waitFor(`${card} .aff-result .pill[data-outcome="ok"]`, { timeout: 10_000 });
      assert.ok(srv.engine.version > sent, 'the provider got the invoke');
      await shot(p, 'panel-invoke');

      // A dangerous affordance: Cancel has the focus, Escape closes the question.
      await p.evaluate(() => window.slopPanel.reveal('/inbox/msg-3'));
      const del = '.affordance[data-action-name="delete"]';
      await p.click(`${del} button[data-action="invoke"]`);
      await p.waitFor(`${del} .confirm:not([hidden])`);
      assert.equal(await p.activeAction(), 'cancel');
      await p.press('Escape');
      await p.waitFor(`${del} .confirm`, { state: 'hidden' });
      assert.ok(srv.engine.get('/inbox/msg-3'), 'nothing was deleted');
      await p.close();
    });

    test('the log: frames and events; the history: steps, a step\'s state and its diff', { timeout: TIMEOUT }, async () => {
      const p = await panel();
      await p.click('#toggle-log');
      await p.waitFor('#log .log-row[data-type="snapshot"]');
      assert.ok((await p.texts('#log .log-row .ftype')).includes('hello'));
      await p.click('#log [data-tab="events"]');
      await p.waitFor('#log .ev-row.ev-result');
      await p.click('#log [data-tab="frames"]');

      srv.engine.mutate((root) => { root.children[0].properties.label = `Inbox seen in ${kind}`; });
      await p.click('#toggle-history');
      await p.waitUntil(() => (window.slopPanel.history()?.steps.length ?? 0) >= 3, undefined, { what: 'the steps' });
      const steps = await p.evaluate(() => window.slopPanel.history().steps.map((s) => ({ step: s.step, kind: s.kind })));
      assert.equal(steps[0].kind, 'snapshot');
      await p.click(`#history .step-row[data-step="${steps[0].step}"]`);
      await p.waitFor('#banner[data-kind="scrub"]');
      assert.match(await p.text('#banner'), /Viewing version 1 \(snapshot at /);
      assert.doesNotMatch(await p.text('#tree .row[data-path="/inbox"]'), /seen in/);
      await p.click('#banner button[data-action="back-to-live"]');
      await p.waitFor('#banner', { state: 'hidden' });
      const last = steps.at(-1).step;
      await p.click(`#history .step-row[data-step="${last}"] [data-action="pin"]`);
      await p.click(`#history .step-row[data-step="${steps[0].step}"] [data-action="pin"]`);
      await p.waitUntil(() => window.slopPanel.lastDiff?.changed?.includes('/inbox'), undefined, { what: 'the pinned diff' });
      await shot(p, 'panel-history');
      await p.close();
    });

    test('the subscription strip, export and import of a snapshot', { timeout: TIMEOUT }, async () => {
      const p = await panel();
      await p.click('#toggle-sub');
      await p.waitFor('#sub-strip:not([hidden])');
      assert.match(await p.text('#sub-strip'), /Acme Mail/);
      await p.click('#export');
      const text = await p.waitUntil(() => window.slopPanel.lastExport, undefined, { what: 'the export' });
      const doc = JSON.parse(text);
      assert.equal(doc.format, 'slop-inspector-export');
      assert.equal(doc.tree.id, 'acme-mail');
      await p.evaluate((t) => window.slopPanel.importText(t, 'mail.json'), text);
      await p.waitFor('#banner[data-kind="import"]');
      assert.match(await p.text('#banner'), /Imported file “mail\.json”/);
      await p.click('#banner button[data-action="close-import"]');
      await p.waitFor('#banner', { state: 'hidden' });
      await p.close();
    });

    test('the popup lists the provider; the options page shows the origin to allow and keeps the token masked; light and dark', { timeout: TIMEOUT }, async () => {
      const popup = await d.extensionPage(`extension/popup/popup.html?tabId=${tabId}`);
      await popup.waitFor(`.provider[data-key="${srv.wsUrl}"] .pill[data-status="connected"]`);
      assert.match(await popup.text('.provider .name'), /Acme Mail/);
      await popup.setSize(400, 500);
      await shot(popup, 'popup');
      await popup.close();
      const options = await d.extensionPage('extension/options/options.html');
      assert.equal(await options.text('#ext-origin'), d.extOrigin, 'the exact origin to paste into a provider\'s allowlist');
      const listed = await options.text('#tokens tbody');
      assert.match(listed, /64 characters/);
      assert.ok(!listed.includes(srv.token));
      await shot(options, 'options');
      await options.close();
      for (const theme of ['light', 'dark']) {
        const p = await panel(`&theme=${theme}`);
        assert.equal(await p.evaluate(() => document.documentElement.dataset.theme), theme);
        await p.evaluate(() => window.slopPanel.reveal('/inbox/msg-5'));
        for (const [w, h] of [[1280, 800], [700, 500], [480, 800]]) {
          await p.setSize(w, h);
          await new Promise((r) => setTimeout(r, 100));
          await shot(p, `panel-${w}x${h}-${theme}`);
        }
        await p.close();
      }
    });

    test('subscription controls: the core checks the options; a subscription of the panel\'s own; back to the default', { timeout: TIMEOUT }, async () => {
      const p = await panel();
      await p.click('#toggle-sub');
      await p.fill('#sub-strip input[name="depth"]', 'deep');
      await p.click('#sub-strip button[data-action="subscribe"]');
      await p.waitUntil(() => /^Depth must be an integer/.test(document.querySelector('#sub-strip .sub-error')?.textContent ?? ''), undefined, { what: 'the core\'s message' });
      await p.fill('#sub-strip input[name="path"]', '/inbox');
      await p.fill('#sub-strip input[name="depth"]', '1');
      await p.fill('#sub-strip input[name="min_salience"]', '0.5');
      await p.click('#sub-strip button[data-action="subscribe"]');
      const paths = await p.waitUntil(() => {
        const t = window.slopPanel.currentTree();
        return t?.path === '/inbox' && t.complete ? [...t.nodes.keys()] : null;
      }, undefined, { what: 'the panel\'s own subscription' });
      const truth = srv.engine.truth('/inbox', 1, { filter: { min_salience: 0.5 } });
      assert.deepEqual(paths.sort(), ['/inbox', ...truth.children.map((c) => `/inbox/${c.id}`)].sort());
      assert.match(await p.text('#sub-strip .sub-status'), /made here/);
      await p.click('#sub-strip button[data-action="sub-reset"]');
      await p.waitFor('#tree .row[data-path="/"]');
      await p.close();
    });

    test('the states: no provider on the page; a provider that refuses the connection (no token)', { timeout: TIMEOUT }, async () => {
      // A server with no /.well-known/slop and a page with no meta tag.
      const bare = await startWsProvider({ host: '127.0.0.1', port: 0, wellKnown: false, pages: { '/plain.html': '<!doctype html><meta charset="utf-8"><title>no provider</title><p>Nothing here.</p>' } });
      const plain = bare.url('/plain.html');
      await d.webPage(plain);
      const plainTab = await d.tabId(plain);
      const empty = await d.extensionPage(`extension/panel/panel.html?tabId=${plainTab}`);
      await empty.waitUntil(() => document.body.dataset.state === 'empty', undefined, { what: 'the empty state' });
      assert.match(await empty.text('#empty'), /No SLOP provider on this page.*<meta name="slop"/s);
      await shot(empty, 'panel-empty');
      await empty.close();
      await bare.close();

      const locked = await startWsProvider({ engine: createMailEngine({ messages: 3, live: false }), host: '127.0.0.1', port: 0, allowedOrigins: [d.extOrigin] });
      try {
        const url = locked.url('/pages/meta-ws.html');
        await d.webPage(url);
        const lockedTab = await d.tabId(url);
        const p = await d.extensionPage(`extension/panel/panel.html?tabId=${lockedTab}`);
        // Read in one go: the extension retries on a back-off, showing "connecting" meanwhile.
        const seen = await p.waitUntil(() => (document.body.dataset.state === 'auth-failed'
          ? {
            text: document.getElementById('empty').textContent,
            options: document.querySelectorAll('#empty button[data-action="options"]').length,
            status: document.getElementById('status').dataset.status,
          } : null),
        undefined, { what: 'the refused state', timeout: 20_000 });
        assert.match(seen.text, /refused the connection.*Set the provider’s bearer token in Options/s);
        assert.equal(seen.options, 1);
        assert.equal(seen.status, 'auth-failed');
        await shot(p, 'panel-auth-failed');
        await p.close();
      } finally {
        await locked.close();
      }
    });

    test('the agent view; the conformance tab: no findings, then drift caught; Ctrl+C copies a node', { timeout: TIMEOUT }, async () => {
      const p = await panel();
      await p.click('#side-tabs button[data-tab="agent"]');
      await p.waitFor('#agent pre[data-role="tree-text"]');
      assert.match(await p.text('#agent pre[data-role="tree-text"]'), /\[root\] acme-mail: Acme Mail/);
      assert.ok((await p.texts('#agent .tool.is-dangerous .tool-name')).some((n) => /delete/.test(n)), 'dangerous tools marked');

      await p.click('#side-tabs button[data-tab="conformance"]');
      await p.waitFor('#conformance [data-role="conf-none"]');
      assert.match(await p.text('#conformance [data-role="conf-none"]'), /^No findings\. The provider followed every rule checked so far: 41 rules checked/);
      await p.click('#conformance [data-action="check-drift"]');
      await p.waitUntil(() => document.querySelector('#conformance [data-role="drift-result"]')?.dataset.status === 'same', undefined, { what: 'drift: same' });
      // The provider's state changes without a patch: the drift check finds it.
      srv.engine.root.children[0].children[0].properties.unread = !srv.engine.root.children[0].children[0].properties.unread;
      await p.click('#conformance [data-action="check-drift"]');
      await p.waitUntil(() => document.querySelector('#conformance [data-role="drift-result"]')?.dataset.status === 'differs', undefined, { what: 'drift: differs' });
      await p.waitFor('#conformance .conf-group[data-rule="drift"]');
      await shot(p, 'panel-conformance');

      // Ctrl+C on a row: the node and its subtree as SLOP JSON.
      await p.click('#tree .row[data-path="/compose"]');
      await p.focus('#tree');
      await p.press('Control+c');
      const copied = await p.waitUntil(() => window.slopPanel.lastCopied?.what === '/compose as JSON' && window.slopPanel.lastCopied.text, undefined, { what: 'the copy' });
      assert.equal(JSON.parse(copied).id, 'compose');
      await p.close();
    });

    test('Connect… to an address that does not answer: nothing kept, the live provider stays, "Save anyway" offered; names whole at 320 px, no status repeated; options without a sideways scroll', { timeout: TIMEOUT }, async () => {
      const p = await panel();
      // A port nothing listens on.
      const gone = await startWsProvider({ host: '127.0.0.1', port: 0 });
      const dead = gone.wsUrl;
      await gone.close();
      await p.click('#toggle-connect');
      await p.fill('#connect-address', dead);
      await p.click('#connect-strip [data-action="connect"]');
      await p.waitFor('#connect-strip [data-action="save-anyway"]', { timeout: 15_000 });
      assert.equal(await p.text('#connect-strip [data-role="no-answer-text"]'),
        `Nothing answers at ${dead}: nothing listens on ${new URL(dead).host}. Is the provider running? Nothing was saved.`);
      assert.equal(await p.value('#provider'), srv.wsUrl, 'still on the live provider');
      assert.equal(await p.count(`#provider option[value="${dead}"]`), 0, 'not kept');
      assert.equal(await p.count('#tree .row[data-path="/inbox"]'), 1);
      // The selector names the provider; its status is the indicator's beside it.
      assert.deepEqual(await p.texts('#provider option'), ['Acme Mail']);
      const kids = await p.evaluate(() => {
        const c = document.querySelector('#tree .row[data-path="/inbox"] .ncount');
        return { text: c.textContent, title: c.title };
      });
      assert.equal(kids.title, `${kids.text} ${kids.text === '1' ? 'child' : 'children'}`);
      await p.setSize(320, 600);
      const fits = await p.waitUntil(() => {
        const sel = document.getElementById('provider');
        const ctx = document.createElement('canvas').getContext('2d');
        ctx.font = getComputedStyle(sel).font;
        const bar = document.getElementById('bar').getBoundingClientRect();
        const cut = [...document.querySelectorAll('#bar > *')].some((e) => !e.hidden && e.id !== 'version' && e.getBoundingClientRect().right > bar.right + 0.5);
        return ctx.measureText(sel.selectedOptions[0].text).width <= sel.clientWidth - 20 && !cut ? 'fits' : null;
      }, undefined, { what: 'the name and the buttons whole at 320 px' });
      assert.equal(fits, 'fits');
      await shot(p, 'connect-no-answer-320');
      await p.close();

      const options = await d.extensionPage('extension/options/options.html');
      await options.setSize(320, 700);
      const width = await options.waitUntil(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth && document.documentElement.scrollWidth,
        undefined, { what: 'no sideways scroll at 320 px' });
      assert.ok(width <= 320);
      await shot(options, 'options-320');
      await options.close();
    });

    test('a row\'s menu by the keyboard copies its path and invokes nothing; Esc closes it; the breadcrumbs select an ancestor; a type filter hides the other rows, keeps the ancestors', { timeout: TIMEOUT }, async () => {
      const p = await panel();
      const rows = () => p.evaluate(() => [...document.querySelectorAll('#tree .row[data-path]')].map((e) => e.dataset.path));
      await p.click('#tree .row[data-path="/notifications/note-welcome"]');
      await p.focus('#tree');
      await p.press('Shift+F10');
      await p.waitFor('.row-menu');
      const labels = await p.texts('.row-menu [role="menuitem"] .menu-label');
      assert.deepEqual(labels, ['Copy path', 'Copy node as JSON', 'Copy value (properties)', 'Expand all below', 'Collapse all below', 'Collapse all', 'Select in the log']);
      assert.equal(await p.activeAction(), 'copy-path', 'the first item has the focus');
      await shot(p, 'panel-row-menu');
      await p.press('Enter');
      const copied = await p.waitUntil(() => window.slopPanel.lastCopied?.what === 'path' && window.slopPanel.lastCopied.text, undefined, { what: 'the path copied' });
      assert.equal(copied, '/notifications/note-welcome');
      assert.equal(await p.activeAction(), 'tree', 'the focus is back on the tree');
      await p.press('Shift+F10');
      await p.waitFor('.row-menu');
      await p.press('Escape');
      await p.waitUntil(() => !document.querySelector('.row-menu'), undefined, { what: 'the menu closed by Esc' });
      assert.equal(await p.activeAction(), 'tree');

      assert.deepEqual(await p.texts('#breadcrumbs .crumb-id'), ['acme-mail', 'notifications', 'note-welcome']);
      await p.click('#breadcrumbs .crumb[data-path="/notifications"]');
      await p.waitUntil(() => window.slopPanel.selection()?.path === '/notifications', undefined, { what: 'the ancestor selected' });
      assert.deepEqual(await p.texts('#breadcrumbs .crumb-id'), ['acme-mail', 'notifications']);

      await p.click('#tree-filter-btn');
      await p.select('#tree-filter select[data-filter="type"]', 'notification');
      // Earlier tests may have added notifications: every row is a notification or an ancestor of one.
      const shown = await p.waitUntil(() => {
        const els = [...document.querySelectorAll('#tree .row[data-path]')];
        const paths = els.map((e) => e.dataset.path);
        const types = els.map((e) => e.querySelector('.ntype')?.textContent);
        return !paths.includes('/inbox') && paths.includes('/notifications/note-welcome') ? { paths, types } : null;
      }, undefined, { what: 'only the notifications and their ancestors' });
      assert.deepEqual(shown.paths.slice(0, 2), ['/', '/notifications']);
      assert.ok(shown.paths.length >= 4 && shown.types.slice(2).every((t) => t === 'notification'), `only notifications: ${shown.paths}`);
      await p.click('#tree-filter [data-action="clear-filter"]');
      await p.waitUntil(() => !!document.querySelector('#tree .row[data-path="/inbox"]'), undefined, { what: 'every row again' });
      assert.ok((await rows()).includes('/compose'));
      await p.close();
    });

    test('the history\'s keys: ← shows the step before, Esc is live again', { timeout: TIMEOUT }, async () => {
      const p = await panel();
      srv.engine.mutate((root) => { root.children[0].properties.label = `Inbox, keys in ${kind}`; });
      await p.click('#toggle-history');
      const steps = await p.waitUntil(() => {
        const s = window.slopPanel.history()?.steps ?? [];
        return s.length >= 2 && s.at(-1).version === window.slopPanel.currentTree()?.version ? s.map((x) => x.step) : null;
      }, undefined, { what: 'the steps up to the live version' });
      // The focus is on the bar's History button: ← belongs to the history.
      await p.press('ArrowLeft');
      await p.waitUntil((s) => window.slopPanel.historyShown() === s && document.querySelector('#banner')?.dataset.kind === 'scrub'
        && document.querySelector('#history .step-row.selected')?.dataset.step === String(s) && window.slopPanel.lastDiff?.toStep === s, steps.at(-2), { what: 'the step before the newest, everywhere' });
      assert.match(await p.text('#banner'), /^Viewing version \d+ \([a-z]+ at \d\d:\d\d:\d\d\.\d{3}\)/);
      assert.doesNotMatch(await p.text('#tree .row[data-path="/inbox"]'), /keys in/);
      await p.press('Escape');
      await p.waitUntil(() => window.slopPanel.historyShown() === null && document.querySelector('#banner').hidden, undefined, { what: 'live again' });
      await p.waitFor('#tree .row[data-path="/inbox"]');
      assert.match(await p.text('#tree .row[data-path="/inbox"]'), /keys in/);
      assert.match(await p.text('#history-strip [data-role="history-label"]'), /^live · v/);
      await p.close();
    });

    test('the Playground: a model\'s run with a tool call, then text; the call\'s result and the turn\'s trace row', { timeout: TIMEOUT }, async () => {
      const llm = await startLlmServer({ kind: 'openai', apiKey: 'sk-suite-4321', script: [] });
      try {
        const p = await panel();
        // A profile as the options page saves it (its key for the worker only).
        await p.evaluate(async (baseUrl) => {
          await (globalThis.browser ?? globalThis.chrome).storage.local.set({
            agentProfiles: { p1: { id: 'p1', name: 'Fixture', kind: 'openai', baseUrl, model: 'fixture-model', addedAt: 1 } },
            agentKeys: { p1: 'sk-suite-4321' },
            agentKeyIndex: { p1: { setAt: 1, length: 13 } },
          });
        }, llm.baseUrl);
        await p.click('#side-tabs button[data-tab="playground"]');
        await p.waitUntil(() => document.querySelector('#playground [data-role="pg-profile"] option')?.textContent === 'Fixture · fixture-model', undefined, { what: 'the profile listed' });
        const msg = srv.engine.get('/inbox').children.find((m) => m.properties.unread) ?? srv.engine.get('/inbox').children[0];
        const tool = `${msg.id.replace(/-/g, '_')}__open`;
        llm.push({ text: 'Opening it.', calls: [{ name: tool, arguments: {} }] }, { text: `Opened in ${kind}.` });
        await p.fill('#playground [data-role="pg-task"]', 'Open the first unread message');
        await p.click('#playground [data-action="pg-run"]');
        await p.waitFor('#playground [data-role="pg-outcome"][data-outcome="answered"]', { timeout: 30_000 });
        assert.equal(await p.text('#playground .pg-call .pg-tool'), tool);
        assert.equal(await p.text('#playground .pg-call [data-role="pg-call-status"]'), 'ok');
        assert.match(await p.text('#playground .pg-call [data-role="pg-result"]'), /^ok · v\d+ → v\d+/);
        assert.equal(await p.text('#playground .pg-final [data-role="pg-text"]'), `Opened in ${kind}.`);
        assert.equal(srv.engine.get(`/inbox/${msg.id}`).properties.unread, false, 'the provider got the invoke');
        await p.click('#playground [data-pg-view="trace"]');
        await p.waitFor('#playground .pg-tturn[data-turn="1"] [data-role="pg-versions"]');
        assert.match(await p.text('#playground .pg-tturn[data-turn="1"] .pg-tsum'), /^Turn 1[\d.]+ KB state · \d+ tools/);
        assert.match(await p.text('#playground .pg-tturn[data-turn="1"] .pg-tbody'), /Sent[\d.]+ KB of state/);
        // The call's diff, from the core's change sets (js-glue/agent.js): the message it opened.
        assert.match(await p.text('#playground .pg-tturn[data-turn="1"] [data-role="pg-diff"]'), new RegExp(`changed.*/inbox/${msg.id}`));
        await shot(p, 'panel-playground');
        await p.close();
      } finally {
        await llm.close();
      }
    });

    test('Options → Agent models: a profile with a key, typed as a user would; the key shown as its length only, nowhere in the page; List models through the worker sends it to the endpoint alone', { timeout: TIMEOUT }, async () => {
      const KEY = 'sk-suite-options-9d2e7c41a0b3';
      const llm = await startLlmServer({ kind: 'openai', apiKey: KEY, models: ['fixture-model', 'fixture-small'] });
      const AGENT_KEYS = ['agentProfiles', 'agentKeys', 'agentKeyIndex', 'agentDefault'];
      const clear = (page) => page.evaluate(async (k) => (globalThis.browser ?? globalThis.chrome).storage.local.remove(k), AGENT_KEYS);
      const first = await d.extensionPage('extension/options/options.html');
      await clear(first); // the Playground test's profile: this one starts from none
      await first.close();
      const options = await d.extensionPage('extension/options/options.html');
      /** Everything the page holds: its DOM, attributes included, and every field's value. */
      const pageHolds = () => options.evaluate(() => [document.documentElement.outerHTML,
        ...[...document.querySelectorAll('input, select, textarea')].map((el) => el.value)].join('\n'));
      try {
        await options.fill('#agent-name', 'Hosted');
        await options.select('#agent-kind', 'openai');
        await options.fill('#agent-url', `${llm.baseUrl}/v1`);
        await options.fill('#agent-model', 'fixture-model');
        await options.fill('#agent-key', KEY);
        await options.click('#agent-save');
        await options.waitFor('#agent-message.ok');
        assert.match(await options.text('#agent-message'), new RegExp(`Added “Hosted” with its API key \\(${KEY.length} characters\\)`));
        assert.equal(await options.value('#agent-key'), '', 'the field is emptied');
        assert.match(await options.text('#agent-profiles tbody tr'), new RegExp(`set \\(${KEY.length} characters\\)`));
        assert.equal((await pageHolds()).includes(KEY), false, 'the key is nowhere in the page');

        await options.click('#agent-profiles tbody tr [data-action="agent-edit"]');
        assert.equal(await options.value('#agent-key'), '', 'never prefilled');
        await options.click('#agent-list-models');
        await options.waitFor('#agent-models-message.ok', { timeout: 20_000 });
        const listed = llm.requests.filter((r) => r.method === 'GET' && r.path === '/v1/models');
        assert.equal(listed.length, 1, 'one request for the list');
        assert.equal(listed[0].headers.authorization, `Bearer ${KEY}`, 'the worker sent the saved key to its endpoint');
        assert.deepEqual(await options.evaluate(() => [...document.querySelectorAll('#agent-model-pick option')].map((o) => o.value).filter(Boolean)), ['fixture-model', 'fixture-small']);
        assert.equal((await pageHolds()).includes(KEY), false, 'the list came back without the key');
        await options.setSize(480, 800);
        await options.evaluate(() => document.getElementById('agent-models').scrollIntoView());
        await shot(options, 'options-agent-models');
      } finally {
        await clear(options).catch(() => {});
        await options.close();
        await llm.close();
      }
    });

    test('a 64-bit integer shows as the provider sent it: in the detail and after a patch to its last digit', { timeout: TIMEOUT }, async () => {
      const ID = '1234567890123456789', NEXT = '1234567890123456788'; // one double, two ids
      const big = await startWsProvider({
        engine: new StateEngine({ tree: { id: 'shop', type: 'root', children: [{ id: 'order', type: 'item', properties: { label: 'Order', id64: `int:${ID}` } }] } }),
        encode: exactIntegers, host: '127.0.0.1', port: 0, allowedOrigins: [d.extOrigin],
      });
      try {
        await saveToken(d, big.origin, big.token);
        const url = big.url('/pages/meta-ws.html');
        await d.webPage(url);
        const bigTab = await d.tabId(url);
        const p = await d.extensionPage(`extension/panel/panel.html?tabId=${bigTab}`);
        await p.waitFor('#tree .row[data-path="/order"]', { timeout: 15_000 });
        await p.click('#tree .row[data-path="/order"]');
        const shown = () => [...document.querySelectorAll('#detail section[data-section="properties"] .jt-row')]
          .find((r) => r.querySelector('.jt-key')?.textContent === 'id64')?.textContent ?? null;
        assert.equal(await p.waitUntil(shown, undefined, { what: 'the id in the detail' }), `id64: ${ID}`);
        big.engine.mutate((root) => { root.children[0].properties.id64 = `int:${NEXT}`; });
        await p.waitUntil((want) => [...document.querySelectorAll('#detail section[data-section="properties"] .jt-row')]
          .some((r) => r.textContent === want), `id64: ${NEXT}`, { what: 'the patched id' });
        await p.close();
      } finally {
        await big.close();
      }
    });

    test('keys are safe: Enter on a row invokes nothing however often; a letter exports nothing; Enter searches what is typed', { timeout: TIMEOUT }, async () => {
      const p = await panel();
      await p.evaluate(() => window.slopPanel.reveal('/inbox/msg-5'));
      await p.focus('#tree');
      const version = srv.engine.version;
      for (let i = 0; i < 4; i++) await p.press('Enter');
      await p.waitFor('.affordance[data-action-name="open"]');
      assert.equal(await p.evaluate(() => document.activeElement?.id), 'detail');
      assert.equal(await p.count('#detail .aff-result .pill'), 0, 'no outcome');
      assert.equal(srv.engine.version, version, 'the provider state did not change');
      await p.focus('#tree');
      await p.press('e');
      assert.equal(await p.evaluate(() => window.slopPanel.lastExport ?? null), null, 'no export from a letter');
      await p.press('?');
      await p.waitFor('#shortcuts');
      assert.match(await p.text('#shortcuts'), /Ctrl\+Shift\+E/);
      await p.press('Escape');
      await p.waitFor('#shortcuts', { state: 'hidden' });
      await p.fill('#search', 'msg-7');
      await p.press('Enter');
      await p.waitUntil(() => window.slopPanel.selection()?.path === '/inbox/msg-7', undefined, { what: 'the first match of msg-7' });
      await p.fill('#search', 'msg-9');
      await p.press('Enter');
      await p.waitUntil(() => window.slopPanel.selection()?.path === '/inbox/msg-9', undefined, { what: 'the new query searched at once' });
      await p.close();
    });
  });
}
