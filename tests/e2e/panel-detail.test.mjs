// The node detail and invoking: properties and meta as the provider has them; content loaded
// through read_content and shown as text; a form generated from a schema with every type, checked
// by the core (inline errors, nothing sent while invalid), a raw JSON editor; an error result with
// its code; dangerous affordances confirmed first; an async action's task progress; results in
// the log; a result stays when the invoke replaced the affordance it used (close → reopen).
// Screenshots: the detail with a form, and a result.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { StateEngine, InvokeError, deepEqual } from '../fixtures/provider/state.mjs';
import { browserOnProvider, startProvider, openPanel, until, ROOT, TEST_TIMEOUT } from './helpers.mjs';

export const SHOTS = path.join(ROOT, 'build/screenshots');

const DOC_TEXT = 'Line one <b>not bold</b>\n<script>window.__pwned = 1</script>\nLine three: “quotes” & ampersands.';

const CONFIGURE_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'A display name' },
    count: { type: 'integer', description: 'How many' },
    ratio: { type: 'number' },
    enabled: { type: 'boolean' },
    mode: { type: 'string', enum: ['fast', 'safe', 'off'] },
    tags: { type: 'array', items: { type: 'string' } },
    options: {
      type: 'object',
      properties: {
        depth: { type: 'integer' },
        note: { type: 'string' },
        flags: { type: 'array', items: { type: 'boolean' } },
      },
    },
  },
  required: ['name', 'count'],
};

function labTree() {
  return {
    id: 'lab', type: 'root', properties: { label: 'Form lab' },
    children: [
      {
        id: 'doc', type: 'document',
        properties: { title: 'Notes.txt', words: 12, tags: ['a', 'b'], owner: { name: 'Ada', id: 7 } },
        meta: { salience: 0.7, urgency: 'medium', reason: 'unread', summary: 'Some notes' },
        content_ref: { type: 'text', mime: 'text/plain', uri: 'slop://content/doc', summary: 'The notes', size: DOC_TEXT.length },
        affordances: [{ action: 'read_content', label: 'Read', idempotent: true, estimate: 'instant' }],
      },
      {
        id: 'form', type: 'form', properties: { label: 'Configure', runs: 0 },
        affordances: [
          { action: 'configure', label: 'Configure', description: 'Every kind of parameter', params: CONFIGURE_SCHEMA, idempotent: true, estimate: 'fast' },
          { action: 'fail', label: 'Always fails', description: 'Answers with an error result' },
          { action: 'wipe', label: 'Wipe everything', description: 'Cannot be undone', dangerous: true },
          { action: 'slow', label: 'Slow job', description: 'Runs in the background', estimate: 'async' },
        ],
      },
    ],
  };
}

describe('panel detail and invoke', () => {
  let browser;
  let srv;
  let tabId;
  const calls = [];

  before(async () => {
    const engine = new StateEngine({
      id: 'lab', name: 'Form lab', tree: labTree(),
      handlers: {
        read_content: () => ({ content: DOC_TEXT, mime: 'text/plain' }),
        configure: (ctx) => {
          calls.push({ action: 'configure', params: ctx.params });
          ctx.node.properties.runs += 1;
          return { echo: ctx.params };
        },
        fail: () => { throw new InvokeError('conflict', 'Nope: already done'); },
        wipe: () => { calls.push({ action: 'wipe' }); return { wiped: true }; },
        slow: (ctx) => ctx.startTask(async (task) => {
          for (let i = 1; i <= 4; i++) {
            await task.sleep(120);
            task.progress(i / 4, `step ${i} of 4`);
          }
          return { steps: 4 };
        }, { message: 'Starting' }),
      },
    });
    srv = await startProvider({ engine });
    ({ browser, tabId } = await browserOnProvider(srv));
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('detail: properties, meta and content_ref as the provider has them; Load content shows text', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#tree .row[data-path="/doc"]', { timeout: 10_000 });
    const truth = srv.engine.truth('/doc', 0);
    const props = panel.locator('#detail section[data-section="properties"]');
    for (const [k, v] of Object.entries(truth.properties)) {
      const entry = props.locator('.json-tree > *', { has: panel.locator(`.jt-key:text-is("${k}")`) }).first();
      const text = await entry.textContent();
      if (v === null || typeof v !== 'object') assert.ok(text.includes(JSON.stringify(v)), `${k}: ${text}`);
      else assert.match(text, Array.isArray(v) ? new RegExp(`${v.length} items?`) : new RegExp(`${Object.keys(v).length} keys?`));
    }
    // A nested object opens to its members.
    await props.locator('summary', { hasText: 'owner' }).click();
    await until(async () => /"Ada"/.test(await props.textContent()), { what: 'the members of owner' });
    const meta = panel.locator('#detail section[data-section="meta"]');
    assert.match(await meta.locator('.urgency').textContent(), new RegExp(truth.meta.urgency));
    assert.equal(await meta.locator('.sal i').evaluate((i) => i.style.width), `${truth.meta.salience * 100}%`);
    assert.match(await meta.textContent(), /"unread"/);
    const cref = panel.locator('#detail section[data-section="content-reference"]');
    assert.match(await cref.textContent(), /slop:\/\/content\/doc/);

    await cref.locator('button[data-action="load-content"]').click();
    const pre = cref.locator('pre.content-text');
    await pre.waitFor({ timeout: 10_000 });
    assert.equal(await pre.textContent(), DOC_TEXT, 'the text exactly, as text');
    assert.equal(await pre.locator('*').count(), 0, 'no markup was created from it');
    assert.equal(await panel.evaluate(() => window.__pwned), undefined);
    // Affordance flags.
    const read = panel.locator('.affordance[data-action-name="read_content"]');
    assert.match(await read.textContent(), /idempotent/);
    assert.match(await read.textContent(), /estimate: instant/);
    await panel.close();
  });

  test('a form from a schema with every type; the core checks it; raw JSON; ok result with data', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#tree .row[data-path="/form"]', { timeout: 10_000 });
    const card = panel.locator('.affordance[data-action-name="configure"]');
    await card.waitFor();
    const field = (pp) => card.locator(`[data-ppath="${pp}"]`).first();
    const control = (pp) => card.locator(`input[data-ppath="${pp}"], select[data-ppath="${pp}"], textarea[data-ppath="${pp}"]`);
    const errorOf = (pp) => card.locator(`.pf-field[data-ppath="${pp}"] > .pf-error`);

    // One control per kind.
    assert.equal(await control('params.name').getAttribute('type'), 'text');
    assert.equal(await control('params.count').getAttribute('inputmode'), 'numeric');
    assert.equal(await control('params.ratio').getAttribute('inputmode'), 'decimal');
    assert.deepEqual(await control('params.enabled').locator('option').allTextContents(), ['— not set —', 'true', 'false']);
    assert.deepEqual(await control('params.mode').locator('option').allTextContents(), ['— not set —', 'fast', 'safe', 'off']);
    assert.equal(await field('params.options').locator('fieldset').count(), 1, 'nested object');
    assert.equal(await control('params.options.depth').count(), 1);

    // The core's message lands under the field it names.
    await control('params.name').fill('Widget');
    await control('params.count').fill('1.5');
    await until(async () => (await errorOf('params.count').textContent()) === 'Count must be an integer', { what: 'the integer error under count' });
    await control('params.count').fill('3');
    await card.locator('.aff-status .ok-text').waitFor({ timeout: 5000 });
    // Every failure at once, each under its own field (the core reports paths as data).
    await control('params.name').fill('');
    await control('params.count').fill('x');
    await until(async () => (await errorOf('params.name').textContent()) === 'Name is required'
      && (await errorOf('params.count').textContent()) === 'Count must be an integer', { what: 'both errors, each under its field' });
    assert.equal(await card.locator('.aff-status .error-text').textContent(), '✗ 2 fields do not fit the schema');
    await panel.screenshot({ path: path.join(SHOTS, 'panel-params-errors.png') });
    await panel.setViewportSize({ width: 700, height: 500 });
    await panel.emulateMedia({ colorScheme: 'dark' });
    await panel.screenshot({ path: path.join(SHOTS, 'panel-params-errors-dark-700.png') });
    await panel.emulateMedia({ colorScheme: 'light' });
    await panel.setViewportSize({ width: 480, height: 800 });
    await panel.screenshot({ path: path.join(SHOTS, 'panel-params-errors-480.png') });
    await panel.setViewportSize({ width: 1280, height: 800 });
    await control('params.count').fill('3');
    // Required: nothing is sent while the core says no.
    await control('params.name').fill('');
    await card.locator('button[data-action="invoke"]').click();
    await until(async () => (await errorOf('params.name').textContent()) === 'Name is required', { what: 'the required error under name' });
    assert.equal(calls.length, 0, 'nothing was invoked');
    assert.equal(await card.locator('.aff-result .pill').count(), 0);

    // Arrays: add, fill, remove; nested object members; enum, boolean, number.
    await control('params.name').fill('Widget');
    const tags = field('params.tags');
    await tags.locator('button[data-action="add-item"]').click();
    await tags.locator('button[data-action="add-item"]').click();
    await tags.locator('button[data-action="add-item"]').click();
    await control('params.tags[0]').fill('zero');
    await control('params.tags[1]').fill('one');
    await control('params.tags[2]').fill('two');
    await tags.locator('.pf-item').first().locator('button[data-action="remove-item"]').click();
    assert.equal(await control('params.tags[0]').inputValue(), 'one', 'items renumber after a removal');
    await control('params.ratio').fill('0.25');
    await control('params.enabled').selectOption('true');
    await control('params.mode').selectOption({ label: 'safe' });
    await control('params.options.depth').fill('2');
    await control('params.options.note').fill('nested');
    await field('params.options.flags').locator('button[data-action="add-item"]').click();
    await control('params.options.flags[0]').selectOption('false');
    const expected = { name: 'Widget', count: 3, ratio: 0.25, enabled: true, mode: 'safe', tags: ['one', 'two'], options: { depth: 2, note: 'nested', flags: [false] } };
    await card.locator('.aff-status .ok-text').waitFor({ timeout: 5000 });
    assert.equal(await card.locator('.pf-error:not(:empty)').count(), 0, 'no stale field errors');
    await screenshotCard(panel, card, 'panel-invoke-form.png');
    await card.locator('button[data-action="invoke"]').click();
    await card.locator('.aff-result .pill[data-outcome="ok"]').waitFor({ timeout: 10_000 });
    assert.equal(calls.length, 1);
    assert.ok(deepEqual(calls[0].params, expected), JSON.stringify(calls[0].params));
    assert.match(await card.locator('.aff-result .result-data').textContent(), /echo/);
    await screenshotCard(panel, card, 'panel-invoke-result.png');

    // The raw JSON editor carries the value over, both ways.
    await card.locator('button[data-action="toggle-raw"]').click();
    const raw = card.locator('textarea.pf-raw');
    assert.ok(deepEqual(JSON.parse(await raw.inputValue()), expected));
    await raw.fill('{"name": "raw", "count": 2, "mode": "nope"}');
    await card.locator('button[data-action="invoke"]').click();
    await until(async () => /params\.mode must be one of "fast", "safe", "off"/.test(await card.locator('.pf-top-error').textContent()), { what: 'the enum error for raw JSON' });
    await raw.fill('{"name": "raw", "count": 2}');
    await card.locator('button[data-action="invoke"]').click();
    await until(() => calls.length === 2, { what: 'the raw invoke' });
    assert.deepEqual(calls[1].params, { name: 'raw', count: 2 });
    await card.locator('button[data-action="toggle-raw"]').click();
    assert.equal(await control('params.name').inputValue(), 'raw');
    assert.equal(await control('params.count').inputValue(), '2');
    assert.equal(await control('params.mode').inputValue(), '');

    // The results are in the log too.
    await panel.click('#toggle-log');
    await panel.click('#log button[data-tab="events"]');
    // (With those of earlier invokes on this connection: the worker keeps them for a panel opened later.)
    await until(async () => (await panel.locator('#log .ev-row.ev-result').count()) >= 2, { what: 'result events in the log' });
    assert.match((await panel.locator('#log .ev-row.ev-result').allTextContents()).join('\n'), /configure on \/form: ok/);
    await panel.close();
  });

  test('error result with its code; dangerous asks first; accepted shows live task progress', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#tree .row[data-path="/form"]', { timeout: 10_000 });

    const fail = panel.locator('.affordance[data-action-name="fail"]');
    await fail.locator('button[data-action="invoke"]').click();
    await fail.locator('.aff-result .pill[data-outcome="error"]').waitFor({ timeout: 10_000 });
    assert.equal(await fail.locator('[data-error-code]').getAttribute('data-error-code'), 'conflict');
    assert.match(await fail.locator('.aff-result').textContent(), /Nope: already done/);

    const wipe = panel.locator('.affordance[data-action-name="wipe"]');
    assert.match(await wipe.textContent(), /dangerous/);
    const before = calls.filter((c) => c.action === 'wipe').length;
    await wipe.locator('button[data-action="invoke"]').click();
    await wipe.locator('.confirm:not([hidden])').waitFor({ timeout: 5000 });
    await wipe.locator('button[data-action="cancel"]').click();
    assert.equal(await wipe.locator('.confirm:not([hidden])').count(), 0);
    assert.equal(calls.filter((c) => c.action === 'wipe').length, before, 'cancel sends nothing');
    await wipe.locator('button[data-action="invoke"]').click();
    await wipe.locator('button[data-action="confirm"]').click();
    await wipe.locator('.aff-result .pill[data-outcome="ok"]').waitFor({ timeout: 10_000 });
    assert.equal(calls.filter((c) => c.action === 'wipe').length, before + 1);

    const slow = panel.locator('.affordance[data-action-name="slow"]');
    await slow.locator('button[data-action="invoke"]').click();
    await slow.locator('.aff-result .pill[data-outcome="accepted"]').waitFor({ timeout: 10_000 });
    const task = slow.locator('.task');
    await task.waitFor({ timeout: 5000 });
    await until(async () => (await task.getAttribute('data-status')) === 'done', { what: 'the task to finish', timeout: 10_000 });
    assert.match(await task.textContent(), /100%/);
    assert.equal(await task.locator('.progress i').evaluate((i) => i.style.width), '100%');
    const truth = srv.engine.truth('/tasks', -1);
    assert.equal(truth.children[0].properties.status, 'done');
    await panel.close();
  });

  test('keys: the dangerous confirmation focuses Cancel and Escape closes it; Enter in a field invokes, Escape goes back to the tree; Ctrl+C copies the node as JSON', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#tree .row[data-path="/form"]', { timeout: 10_000 });
    const focused = () => panel.evaluate(() => document.activeElement?.dataset?.action ?? document.activeElement?.id ?? null);

    // Dangerous: two presses of Enter never run it.
    const wipe = panel.locator('.affordance[data-action-name="wipe"]');
    const before = calls.filter((c) => c.action === 'wipe').length;
    await wipe.locator('button[data-action="invoke"]').focus();
    await panel.keyboard.press('Enter');
    await wipe.locator('.confirm:not([hidden])').waitFor({ timeout: 5000 });
    assert.equal(await focused(), 'cancel', 'Cancel has the focus');
    await panel.keyboard.press('Enter');
    assert.equal(await wipe.locator('.confirm:not([hidden])').count(), 0, 'Enter on Cancel closed it');
    assert.equal(await focused(), 'invoke', 'back on the Invoke button');
    await panel.keyboard.press('Enter');
    await wipe.locator('.confirm:not([hidden])').waitFor({ timeout: 5000 });
    await panel.keyboard.press('Escape');
    assert.equal(await wipe.locator('.confirm:not([hidden])').count(), 0, 'Escape closed it');
    assert.equal(calls.filter((c) => c.action === 'wipe').length, before, 'nothing was sent');

    // A form: Enter in a field invokes; Escape goes back to the tree.
    const card = panel.locator('.affordance[data-action-name="configure"]');
    const runs = calls.filter((c) => c.action === 'configure').length;
    await card.locator('input[data-ppath="params.name"]').fill('By keyboard');
    await card.locator('input[data-ppath="params.count"]').fill('7');
    await card.locator('input[data-ppath="params.count"]').press('Enter');
    await until(() => calls.filter((c) => c.action === 'configure').length === runs + 1, { what: 'the invoke sent by Enter' });
    assert.deepEqual(calls.at(-1).params, { name: 'By keyboard', count: 7 });
    await card.locator('input[data-ppath="params.name"]').press('Escape');
    assert.equal(await focused(), 'tree', 'Escape went back to the tree');

    // Ctrl+C on a row: the node and its subtree as SLOP node JSON; Copy path stays.
    await panel.keyboard.press('Control+c');
    await until(() => panel.evaluate(() => globalThis.slopPanel.lastCopied?.what === '/form as JSON'), { what: 'the copy' });
    const copied = JSON.parse(await panel.evaluate(() => globalThis.slopPanel.lastCopied.text));
    const truth = srv.engine.truth('/form', -1);
    assert.equal(copied.id, 'form');
    assert.deepEqual(copied.properties, truth.properties);
    assert.deepEqual(copied.affordances.map((a) => a.action), truth.affordances.map((a) => a.action));
    assert.equal(await panel.locator('#detail button[data-action="copy-path"]').count(), 1);
    await panel.close();
  });
});

describe('panel detail: results outlive the affordance they came from', () => {
  let browser;
  let srv;
  let tabId;

  before(async () => {
    // Invoking close replaces it with reopen (and back), as an issue tracker would.
    srv = await startProvider({ engine: new StateEngine({
      id: 'issues', name: 'Issue tracker',
      tree: { id: 'tracker', type: 'root', properties: { label: 'Issues' }, children: [
        { id: 'issue', type: 'issue', properties: { title: 'Crash on save', state: 'open' }, affordances: [{ action: 'close', label: 'Close' }] },
        { id: 'other', type: 'issue', properties: { title: 'Typo in README', state: 'open' } },
      ] },
      handlers: {
        close: (ctx) => {
          ctx.node.properties.state = 'closed';
          ctx.node.affordances = [{ action: 'reopen', label: 'Reopen' }];
          return { state: 'closed', was: 'open' };
        },
        reopen: (ctx) => {
          ctx.node.properties.state = 'open';
          ctx.node.affordances = [{ action: 'close', label: 'Close' }];
          return { state: 'open', was: 'closed' };
        },
      },
    }) });
    ({ browser, tabId } = await browserOnProvider(srv));
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('close becomes reopen: "close → ok" stays in the node’s detail, across selections, until dismissed', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#tree .row[data-path="/issue"]', { timeout: 10_000 });
    await panel.locator('.affordance[data-action-name="close"] button[data-action="invoke"]').click();
    // The provider's patch (close → reopen) arrives before the result: the card is gone by then.
    await panel.locator('.affordance[data-action-name="reopen"]').waitFor({ timeout: 10_000 });
    assert.equal(await panel.locator('.affordance[data-action-name="close"]').count(), 0);
    assert.equal(srv.engine.truth('/issue', 0).properties.state, 'closed');
    const results = panel.locator('#detail section[data-section="results"]');
    const closed = results.locator('.earlier-result[data-action-name="close"]');
    await closed.locator('.pill[data-outcome="ok"]').waitFor({ timeout: 10_000 });
    assert.match(await closed.locator('.outcome').textContent(), /close → ok/);
    assert.match(await closed.locator('.result-data').textContent(), /state.*"closed"/);
    await panel.screenshot({ path: path.join(SHOTS, 'panel-result-kept.png') });
    await panel.setViewportSize({ width: 700, height: 500 });
    await panel.screenshot({ path: path.join(SHOTS, 'panel-result-kept-700.png') });
    await panel.setViewportSize({ width: 1280, height: 800 });

    // Another node, then back: the outcome is still there.
    await panel.click('#tree .row[data-path="/other"]');
    assert.equal(await results.count(), 0, 'the other node has no results');
    await panel.click('#tree .row[data-path="/issue"]');
    await closed.locator('.pill[data-outcome="ok"]').waitFor({ timeout: 5000 });

    // Reopen: close is offered again, so its last outcome shows under its card; reopen's is listed.
    await panel.locator('.affordance[data-action-name="reopen"] button[data-action="invoke"]').click();
    await panel.locator('.affordance[data-action-name="close"]').waitFor({ timeout: 10_000 });
    const reopened = results.locator('.earlier-result[data-action-name="reopen"]');
    await reopened.locator('.pill[data-outcome="ok"]').waitFor({ timeout: 10_000 });
    assert.match(await reopened.locator('.result-data').textContent(), /state.*"open"/);
    assert.match(await panel.locator('.affordance[data-action-name="close"] .aff-result').textContent(), /ok/);
    assert.equal(await results.locator('.earlier-result').count(), 1);

    // Dismissed: gone, here and after coming back.
    await reopened.locator('button[data-action="dismiss-result"]').click();
    assert.equal(await results.count(), 0);
    await panel.locator('.affordance[data-action-name="close"] .aff-result button[data-action="dismiss-result"]').click();
    assert.equal(await panel.locator('.affordance[data-action-name="close"] .aff-result .outcome').count(), 0);
    await panel.click('#tree .row[data-path="/other"]');
    await panel.click('#tree .row[data-path="/issue"]');
    await panel.locator('.affordance[data-action-name="close"]').waitFor({ timeout: 5000 });
    assert.equal(await panel.locator('#detail .outcome').count(), 0, 'nothing dismissed comes back');
    await panel.close();
  });
});

/** The card on a plain background, cut to its box (plus a margin). */
async function screenshotCard(panel, card, name) {
  await card.scrollIntoViewIfNeeded();
  await panel.screenshot({ path: path.join(SHOTS, name) });
}
