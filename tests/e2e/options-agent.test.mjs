// Options → Agent models: the Agent playground's model endpoints as the user sets them up. Two
// scripted endpoints (tests/fixtures/llm-server.mjs): an Ollama one without a key and an
// OpenAI-compatible one that wants a key. Adding both through the form (a preset, "List models"
// on the unsaved form), the key shown only as "set (N characters)" and nowhere in the page or its
// index, "List models" on the saved profile (the fixture gets the key, the page never does), an
// endpoint that does not answer said in words, editing that keeps the key, Replace, Remove key,
// the default (by mouse and by keyboard), removing a profile, the state budget and tools at most
// (stored only when not the defaults, listed, kept on edit, refused in words), and a browser that
// refuses host access. Screenshots at 480 and 1280 px, light and dark: build/screenshots/options-agent/.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startLlmServer } from '../fixtures/llm-server.mjs';
import { launch, openExtensionPage, swEval, until, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const KEY = 'sk-test-options-agent-7f3a9c2e41b8d6f0';
const KEY2 = 'sk-test-replaced-key-0b1c2d3e';
const SHOTS = path.join(ROOT, 'build/screenshots/options-agent');
const OPTIONS = 'extension/options/options.html';

/** Everything the page holds: its serialised DOM (text and attributes) and every field's value. */
const pageText = (page) => page.evaluate(() => [
  new XMLSerializer().serializeToString(document),
  ...[...document.querySelectorAll('input, select, textarea')].map((el) => /** @type {HTMLInputElement} */ (el).value),
].join('\n'));

const storage = (page) => page.evaluate(() => chrome.storage.local.get(['agentProfiles', 'agentKeyIndex', 'agentDefault']));
/** The keys themselves, read in the worker (the test's view; the page never reads them). */
const storedKeys = (ctx) => swEval(ctx, async () => (await chrome.storage.local.get('agentKeys')).agentKeys ?? {});

/** The list's rows as the user reads them. */
const rows = (page) => page.$$eval('#agent-profiles tbody tr', (trs) => trs.map((tr) => ({
  id: tr.dataset.profile,
  text: [...tr.cells].map((td) => td.innerText).join(' ').replace(/\s+/g, ' ').trim(),
  isDefault: /** @type {HTMLInputElement} */ (tr.querySelector('input[type="radio"]')).checked,
})));
const rowOf = (page, name) => page.locator('#agent-profiles tbody tr', { hasText: name });

describe('options: Agent models', () => {
  let browser, page, ollama, openai;
  const errors = [];

  before(async () => {
    ollama = await startLlmServer({ kind: 'ollama', models: ['qwen3:8b', 'llama3.2:3b'] });
    openai = await startLlmServer({ kind: 'openai', apiKey: KEY, models: ['fixture-model', 'fixture-small'] });
    browser = await launch();
    page = await openExtensionPage(browser.ctx, browser.extId, OPTIONS);
    page.on('pageerror', (e) => errors.push(e.message));
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await ollama?.close();
    await openai?.close();
  });

  test('every field has a label; nothing listed yet', { timeout: TEST_TIMEOUT }, async () => {
    assert.equal(await page.locator('#agent-models h2').textContent(), 'Agent models');
    assert.match(await page.locator('#agent-models > p.muted').first().textContent(), /Playground tab/);
    assert.equal(await page.locator('#agent-profiles-empty').isVisible(), true);
    assert.equal(await page.locator('#agent-profiles').isVisible(), false);
    const unlabelled = await page.$$eval('#agent-models input, #agent-models select, #agent-models button',
      (els) => els.filter((el) => !(/** @type {HTMLInputElement} */ (el).labels?.length || el.getAttribute('aria-label') || el.textContent.trim())).map((el) => el.id || el.outerHTML));
    assert.deepEqual(unlabelled, []);
    assert.match(await page.locator('#agent-key-help').textContent(), /local endpoint needs no key[\s\S]*read only by the extension’s background worker and sent only to this endpoint/);
    assert.equal(await page.locator('#agent-key').getAttribute('type'), 'password');
  });

  test('add an Ollama profile: a preset, List models on the unsaved form, no key', { timeout: TEST_TIMEOUT }, async () => {
    await page.click('#agent-presets button[data-preset="Ollama"]');
    assert.equal(await page.locator('#agent-kind').inputValue(), 'ollama');
    assert.equal(await page.locator('#agent-url').inputValue(), 'http://127.0.0.1:11434');
    assert.equal(await page.locator('#agent-name').inputValue(), 'Ollama', 'an empty name takes the preset’s');
    await page.click('#agent-presets button[data-preset="OpenRouter"]');
    assert.equal(await page.locator('#agent-kind').inputValue(), 'openai');
    assert.equal(await page.locator('#agent-url').inputValue(), 'https://openrouter.ai/api');
    assert.equal(await page.locator('#agent-name').inputValue(), 'Ollama', 'a name typed (or taken) is kept');

    await page.fill('#agent-name', 'Local Ollama');
    await page.selectOption('#agent-kind', 'ollama');
    await page.fill('#agent-url', ollama.baseUrl);
    await page.click('#agent-list-models');
    await page.locator('#agent-models-message.ok').waitFor({ timeout: 10_000 });
    assert.match(await page.locator('#agent-models-message').textContent(), /2 models at http:\/\/127\.0\.0\.1:\d+/);
    assert.deepEqual(await page.$$eval('#agent-model-options option', (os) => os.map((o) => o.value)), ['qwen3:8b', 'llama3.2:3b']);
    await page.selectOption('#agent-model-pick', 'llama3.2:3b');
    assert.equal(await page.locator('#agent-model').inputValue(), 'llama3.2:3b');
    const tags = ollama.requests.filter((r) => r.path === '/api/tags');
    assert.equal(tags.length, 1);
    assert.equal(tags[0].headers.authorization, undefined, 'no key for an unsaved form');

    await page.fill('#agent-steps', '12');
    await page.click('#agent-save');
    await page.locator('#agent-message.ok').waitFor({ timeout: 5000 });
    assert.match(await page.locator('#agent-message').textContent(), /Added “Local Ollama”\. The DevTools panel’s Playground tab can use it\./);
    const [row] = await rows(page);
    assert.match(row.text, /Local Ollama default Ollama http:\/\/127\.0\.0\.1:\d+ llama3\.2:3b up to 12 steps no key EditRemove/);
    assert.equal(row.isDefault, true, 'the first profile is the default');
    assert.equal(await page.locator('#agent-name').inputValue(), '', 'the form is cleared for the next one');
    assert.equal(await page.locator('#agent-steps').inputValue(), '8');
    const st = await storage(page);
    assert.deepEqual(Object.values(st.agentProfiles).map(({ name, kind, model, maxSteps }) => ({ name, kind, model, maxSteps })),
      [{ name: 'Local Ollama', kind: 'ollama', model: 'llama3.2:3b', maxSteps: 12 }]);
  });

  test('errors in words; the access prompt is not shown for a profile that is not saved', { timeout: TEST_TIMEOUT }, async () => {
    await page.click('#agent-save');
    assert.equal(await page.locator('#agent-message').textContent(), 'Give the profile a name');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'agent-name');
    await page.fill('#agent-name', 'Broken');
    await page.fill('#agent-url', 'ftp://example.com');
    await page.click('#agent-save');
    assert.match(await page.locator('#agent-message.bad').textContent(), /must be http:\/\/ or https:\/\//);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'agent-url');
    await page.fill('#agent-url', 'http://127.0.0.1:9');
    await page.click('#agent-save');
    assert.match(await page.locator('#agent-message.bad').textContent(), /No model is chosen/);
    await page.fill('#agent-model', 'x');
    await page.fill('#agent-steps', '101');
    await page.click('#agent-save');
    assert.equal(await page.locator('#agent-message.bad').textContent(), 'The step limit is a whole number from 1 to 100');
    await page.fill('#agent-steps', '8');
    await page.fill('#agent-key', 'sk with spaces');
    await page.click('#agent-save');
    assert.match(await page.locator('#agent-message.bad').textContent(), /printable ASCII without spaces/);
    assert.equal((await rows(page)).length, 1, 'nothing was saved');

    // "List models" on the unsaved form, nothing listening there: the worker's words, by the button.
    await page.fill('#agent-key', '');
    await page.click('#agent-list-models');
    await page.locator('#agent-models-message.bad').waitFor({ timeout: 20_000 });
    const said = await page.locator('#agent-models-message').textContent();
    assert.match(said, /Nothing answers|could not|not reach/i, said);
    assert.doesNotMatch(said, /ui\/agent-models|undefined|\[object/);
    await page.fill('#agent-url', 'not a url');
    await page.click('#agent-list-models');
    assert.match(await page.locator('#agent-models-message.bad').textContent(), /is not an http:\/\/ or https:\/\/ URL/);
    await page.fill('#agent-url', '');
    await page.click('#agent-list-models');
    assert.match(await page.locator('#agent-models-message.bad').textContent(), /Enter the endpoint’s base URL first/);
    await page.fill('#agent-name', '');
    await page.fill('#agent-model', '');
  });

  test('add an OpenAI-compatible profile with a key: shown as its length only, nowhere in the page', { timeout: TEST_TIMEOUT }, async () => {
    await page.fill('#agent-name', 'Hosted');
    await page.selectOption('#agent-kind', 'openai');
    await page.fill('#agent-url', `${openai.baseUrl}/v1`);
    await page.fill('#agent-model', 'fixture-model');
    await page.fill('#agent-key', KEY);
    await page.click('#agent-save');
    await page.locator('#agent-message.ok').waitFor({ timeout: 5000 });
    assert.match(await page.locator('#agent-message').textContent(), new RegExp(`Added “Hosted” with its API key \\(${KEY.length} characters\\)`));
    assert.equal(await page.locator('#agent-key').inputValue(), '');
    const list = await rows(page);
    assert.equal(list.length, 2);
    assert.match(list[1].text, new RegExp(`Hosted OpenAI-compatible http://127\\.0\\.0\\.1:\\d+/v1 fixture-model up to 8 steps set \\(${KEY.length} characters\\)`));
    assert.equal(list[1].isDefault, false);

    assert.equal((await pageText(page)).includes(KEY), false, 'the key is nowhere in the page');
    const st = await storage(page);
    const id = list[1].id;
    assert.deepEqual(Object.keys(st.agentKeyIndex[id]).sort(), ['length', 'setAt']);
    assert.equal(st.agentKeyIndex[id].length, KEY.length);
    assert.equal(JSON.stringify(st).includes(KEY), false, 'profiles and index hold no key');
    assert.equal((await storedKeys(browser.ctx))[id], KEY, 'the worker has it');
  });

  test('List models on the saved profile: the worker sends the key, the page gets the models', { timeout: TEST_TIMEOUT }, async () => {
    await rowOf(page, 'Hosted').locator('[data-action="agent-edit"]').click();
    assert.equal(await page.locator('#agent-form-h').textContent(), 'Edit “Hosted”');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'agent-name');
    assert.equal(await page.locator('#agent-key').inputValue(), '', 'never prefilled');
    assert.equal(await page.locator('#agent-key-saved-text').textContent(), `API key: set (${KEY.length} characters).`);
    const before = openai.requests.length;
    await page.click('#agent-list-models');
    await page.locator('#agent-models-message.ok').waitFor({ timeout: 10_000 });
    const listed = openai.requests.slice(before).filter((r) => r.method === 'GET' && r.path === '/v1/models');
    assert.equal(listed.length, 1);
    assert.equal(listed[0].headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(await page.$$eval('#agent-model-pick option', (os) => os.map((o) => o.value)), ['', 'fixture-model', 'fixture-small']);
    assert.equal(await page.locator('#agent-model-pick').inputValue(), 'fixture-model', 'the current model is selected');
    assert.equal((await pageText(page)).includes(KEY), false);

    // Edit with the key field left empty: the key stays.
    await page.selectOption('#agent-model-pick', 'fixture-small');
    await page.click('#agent-save');
    await page.locator('#agent-message.ok').waitFor({ timeout: 5000 });
    assert.match(await page.locator('#agent-message').textContent(), /^Saved “Hosted”\./);
    const id = (await rows(page))[1].id;
    assert.equal((await storage(page)).agentProfiles[id].model, 'fixture-small');
    assert.equal((await storedKeys(browser.ctx))[id], KEY, 'an empty key field keeps the key');
    assert.match((await rows(page))[1].text, new RegExp(`fixture-small .* set \\(${KEY.length} characters\\)`));
    assert.equal(await page.locator('#agent-form-h').textContent(), 'Add a model endpoint');
  });

  test('screenshots: 480 and 1280 px, light and dark; nothing wider than 320 px', { timeout: TEST_TIMEOUT }, async () => {
    // The section as a user sees it while editing: the list, listed models, the saved key's line.
    await rowOf(page, 'Hosted').locator('[data-action="agent-edit"]').click();
    await page.click('#agent-list-models');
    await page.locator('#agent-models-message.ok').waitFor({ timeout: 10_000 });
    for (const width of [480, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      for (const scheme of ['light', 'dark']) {
        await page.emulateMedia({ colorScheme: scheme });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 0, `no sideways scrolling at ${width} px (${overflow} px too wide)`);
        await page.locator('#agent-models').screenshot({ path: path.join(SHOTS, `agent-models-${width}-${scheme}.png`) });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 320, height: 700 }); // the narrowest the page promises
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), 'no sideways scrolling at 320 px');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.click('#agent-cancel');
    assert.equal(await page.locator('#agent-form-h').textContent(), 'Add a model endpoint');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-action')), 'agent-edit', 'Cancel gives the focus back to the row');
  });

  test('Replace sets a new key; Remove key removes it', { timeout: TEST_TIMEOUT }, async () => {
    const id = (await rows(page))[1].id;
    await rowOf(page, 'Hosted').locator('[data-action="agent-edit"]').click();
    await page.click('#agent-key-replace');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'agent-key');
    await page.keyboard.type(KEY2);
    await page.keyboard.press('Enter'); // the form's submit, from the keyboard
    await page.locator('#agent-message.ok').waitFor({ timeout: 5000 });
    assert.equal((await storedKeys(browser.ctx))[id], KEY2);
    assert.equal((await storage(page)).agentKeyIndex[id].length, KEY2.length);
    assert.match((await rows(page))[1].text, new RegExp(`set \\(${KEY2.length} characters\\)`));
    assert.equal((await pageText(page)).includes(KEY2), false);

    // The endpoint refuses the new key: said in words, next to the button.
    await rowOf(page, 'Hosted').locator('[data-action="agent-edit"]').click();
    const before = openai.requests.length;
    await page.click('#agent-list-models');
    await page.locator('#agent-models-message.bad').waitFor({ timeout: 10_000 });
    assert.match(await page.locator('#agent-models-message').textContent(), /key/i);
    assert.equal(openai.requests.slice(before).find((r) => r.path === '/v1/models').headers.authorization, `Bearer ${KEY2}`);
    assert.equal((await pageText(page)).includes(KEY2), false, 'the error does not quote the key');

    await page.click('#agent-key-remove');
    await page.locator('#agent-message.ok').waitFor({ timeout: 5000 });
    assert.match(await page.locator('#agent-message').textContent(), /API key of “Hosted” removed/);
    assert.equal(await page.locator('#agent-key-saved').isVisible(), false);
    await until(async () => /no key/.test((await rows(page))[1].text), { what: 'the list to say no key' });
    assert.equal((await storage(page)).agentKeyIndex[id], undefined);
    assert.equal((await storedKeys(browser.ctx))[id], undefined);
    await page.click('#agent-cancel');
  });

  test('state budget and tools at most: stored when not the defaults, listed, kept on edit, refused in words', { timeout: TEST_TIMEOUT }, async () => {
    const id = (await rows(page))[0].id;
    const stored = async () => (await storage(page)).agentProfiles[id];
    await rowOf(page, 'Local Ollama').locator('[data-action="agent-edit"]').click();
    assert.deepEqual(await page.$$eval('#agent-state option', (os) => os.map((o) => o.textContent)),
      ['8 KiB', '16 KiB', '32 KiB', '64 KiB (default)', '128 KiB', '256 KiB']);
    assert.equal(await page.locator('#agent-state').inputValue(), '65536');
    assert.equal(await page.locator('#agent-tools').inputValue(), '128');
    assert.match(await page.locator('#agent-state-help').textContent(), /how much of the app’s state the model reads per request\s+\(about a quarter as many tokens\); a smaller one fits a smaller context/i);
    assert.match(await page.locator('#agent-tools-help').textContent(), /OpenAI accepts up to 128[\s\S]*fewer helps a small\s+local model\. The most salient actions are offered first/);

    // Out of range: said in words, the field focused, nothing saved.
    await page.selectOption('#agent-state', '16384');
    for (const bad of ['0', '513', '2.5']) {
      await page.fill('#agent-tools', bad);
      await page.click('#agent-save');
      assert.equal(await page.locator('#agent-message.bad').textContent(), 'The number of tools offered is a whole number from 1 to 512', bad);
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'agent-tools');
    }
    assert.equal((await stored()).maxStateBytes, undefined, 'nothing saved');
    // A budget the select does not offer (a page that was tampered with): refused too.
    await page.evaluate(() => {
      const sel = /** @type {HTMLSelectElement} */ (document.getElementById('agent-state'));
      sel.append(new Option('huge', '300000'));
      sel.value = '300000';
    });
    await page.fill('#agent-tools', '32');
    await page.click('#agent-save');
    assert.equal(await page.locator('#agent-message.bad').textContent(), 'The state budget is from 512 bytes to 256 KiB, in whole bytes');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'agent-state');
    await page.evaluate(() => document.querySelector('#agent-state option[value="300000"]')?.remove());
    // settings-store itself, as any other caller of it would meet it.
    const refused = await page.evaluate(async () => {
      const s = await import(new URL('../shared/settings-store.js', location.href).href);
      const base = { name: 'x', kind: 'ollama', baseUrl: 'http://127.0.0.1:11434', model: 'm' };
      const thrown = await s.saveAgentProfile({ ...base, maxTools: 1000 }).then(() => 'saved', (e) => e.message);
      return [s.agentProfileProblem({ ...base, maxStateBytes: 511 }), s.agentProfileProblem({ ...base, maxStateBytes: 256 * 1024 + 1 }),
        s.agentProfileProblem({ ...base, maxStateBytes: 8192.5 }), s.agentProfileProblem({ ...base, maxStateBytes: 512, maxTools: 512 }), thrown];
    });
    assert.deepEqual(refused, ['The state budget is from 512 bytes to 256 KiB, in whole bytes', 'The state budget is from 512 bytes to 256 KiB, in whole bytes',
      'The state budget is from 512 bytes to 256 KiB, in whole bytes', null, 'The number of tools offered is a whole number from 1 to 512']);
    assert.equal((await rows(page)).length, 2, 'nothing was saved');

    // 16 KiB and 32 tools: stored as bytes and a count, the row says so.
    await page.selectOption('#agent-state', '16384');
    await page.click('#agent-save');
    await page.locator('#agent-message.ok').waitFor({ timeout: 5000 });
    const saved = await stored();
    assert.deepEqual([saved.maxStateBytes, saved.maxTools, saved.maxSteps, saved.model], [16384, 32, 12, 'llama3.2:3b']);
    await until(async () => /state 16 KiB · 32 tools/.test((await rows(page))[0].text), { what: 'the row to show the limits' });
    assert.match((await rows(page))[0].text, /llama3\.2:3b up to 12 steps state 16 KiB · 32 tools no key/);
    assert.doesNotMatch((await rows(page))[1].text, /state|tools/, 'a profile at the defaults says nothing of them');
    assert.equal(await page.locator('#agent-state').inputValue(), '65536', 'the form is back to the defaults');
    assert.equal(await page.locator('#agent-tools').inputValue(), '128');
    for (const width of [480, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.locator('#agent-profiles').screenshot({ path: path.join(SHOTS, `agent-profiles-limits-${width}-light.png`) });
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    // Editing shows them, and saving another change keeps them.
    await rowOf(page, 'Local Ollama').locator('[data-action="agent-edit"]').click();
    assert.equal(await page.locator('#agent-state').inputValue(), '16384');
    assert.equal(await page.locator('#agent-tools').inputValue(), '32');
    await page.fill('#agent-steps', '11');
    await page.click('#agent-save');
    await page.locator('#agent-message.ok').waitFor({ timeout: 5000 });
    assert.deepEqual(await stored().then((p) => [p.maxStateBytes, p.maxTools, p.maxSteps]), [16384, 32, 11]);

    // A budget that is none of the choices (written by another version): shown as it is, kept.
    await page.evaluate(async (pid) => {
      const { agentProfiles } = await chrome.storage.local.get('agentProfiles');
      agentProfiles[pid].maxStateBytes = 10000;
      await chrome.storage.local.set({ agentProfiles });
    }, id);
    await until(async () => /state 9\.8 KiB · 32 tools/.test((await rows(page))[0].text), { what: 'the row to show 9.8 KiB' });
    await rowOf(page, 'Local Ollama').locator('[data-action="agent-edit"]').click();
    assert.equal(await page.locator('#agent-state').inputValue(), '10000');
    assert.deepEqual(await page.$$eval('#agent-state option', (os) => os.map((o) => o.textContent).slice(0, 3)), ['8 KiB', '9.8 KiB (this profile’s)', '16 KiB']);
    await page.click('#agent-save');
    await page.locator('#agent-message.ok').waitFor({ timeout: 5000 });
    assert.equal((await stored()).maxStateBytes, 10000);
    assert.equal(await page.locator('#agent-state option').count(), 6);

    // Back to the defaults: not stored at all.
    await rowOf(page, 'Local Ollama').locator('[data-action="agent-edit"]').click();
    await page.selectOption('#agent-state', '65536');
    await page.fill('#agent-tools', '128');
    await page.fill('#agent-steps', '12');
    await page.click('#agent-save');
    await page.locator('#agent-message.ok').waitFor({ timeout: 5000 });
    const back = await stored();
    assert.equal(Object.hasOwn(back, 'maxStateBytes') || Object.hasOwn(back, 'maxTools'), false, JSON.stringify(back));
    await until(async () => !/state|tools/.test((await rows(page))[0].text), { what: 'the row to drop the limits' });
  });

  test('the default: by click and by keyboard (the focus stays); removing a profile', { timeout: TEST_TIMEOUT }, async () => {
    const [first, second] = await rows(page);
    await rowOf(page, 'Hosted').locator('input[type="radio"]').check();
    await until(async () => (await storage(page)).agentDefault === second.id, { what: 'agentDefault to be the second profile' });
    await until(async () => (await rows(page))[1].isDefault, { what: 'the list to show the new default' });
    assert.match((await rows(page))[1].text, /^Hosted default/);
    assert.match(await page.locator('#agent-list-message.ok').textContent(), /“Hosted” is the playground’s default now/);

    await page.keyboard.press('ArrowUp'); // a radio group: the arrow keys choose
    await until(async () => (await storage(page)).agentDefault === first.id, { what: 'agentDefault back to the first' });
    await until(async () => (await rows(page))[0].isDefault, { what: 'the list to follow' });
    assert.equal(await page.evaluate(() => /** @type {HTMLInputElement} */ (document.activeElement)?.value), first.id, 'the focus survives the re-render');

    await rowOf(page, 'Local Ollama').locator('[data-action="agent-remove"]').click();
    await until(async () => (await rows(page)).length === 1, { what: 'the profile to go' });
    assert.match(await page.locator('#agent-list-message').textContent(), /Removed “Local Ollama”\./);
    const st = await storage(page);
    assert.deepEqual(Object.keys(st.agentProfiles), [second.id]);
    assert.equal(st.agentDefault, second.id, 'the default moves to the one left');
    assert.equal((await rows(page))[0].isDefault, true);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-action')), 'agent-remove', 'the focus goes to the next row');

    await rowOf(page, 'Hosted').locator('[data-action="agent-remove"]').click();
    await page.locator('#agent-profiles-empty').waitFor({ state: 'visible', timeout: 5000 });
    assert.deepEqual((await storage(page)).agentProfiles, {});
    assert.deepEqual(await storedKeys(browser.ctx), {});
    assert.deepEqual(errors, []);
  });

  test('host access refused: saved anyway, said, and asked again from the list', { timeout: TEST_TIMEOUT }, async () => {
    // A browser where the extension has no access to the endpoint and the user refuses the prompt.
    const p2 = await browser.ctx.newPage();
    await p2.addInitScript(() => {
      globalThis.asked = [];
      chrome.permissions.getAll = async () => ({ origins: [], permissions: ['storage'] });
      chrome.permissions.request = (req) => { globalThis.asked.push(req); return Promise.resolve(false); };
    });
    await p2.goto(`chrome-extension://${browser.extId}/${OPTIONS}`);
    await p2.waitForSelector('body[data-ready="1"]');
    await p2.fill('#agent-name', 'Far away');
    await p2.fill('#agent-url', 'https://models.example.com:8443/v1');
    await p2.fill('#agent-model', 'm');
    await p2.click('#agent-save');
    await p2.locator('#agent-message.warn').waitFor({ timeout: 5000 });
    assert.match(await p2.locator('#agent-message').textContent(), /^Added “Far away”\. The extension may not reach https:\/\/models\.example\.com:8443 yet, so the playground cannot use it/);
    assert.deepEqual(await p2.evaluate(() => globalThis.asked), [{ origins: ['https://models.example.com/*'] }], 'asked for the host, every port (Firefox takes no port)');
    assert.match((await rows(p2))[0].text, /Not allowed to reach it yet\. Allow access/);
    await p2.click('[data-action="agent-allow"]');
    await until(async () => (await p2.evaluate(() => globalThis.asked.length)) === 2, { what: 'Allow access to ask again' });
    assert.equal(await p2.locator('#agent-list-message.warn').textContent(), 'Access to https://models.example.com:8443 was not allowed: the playground cannot use “Far away” until it is.');
    await p2.locator('#agent-models').screenshot({ path: path.join(SHOTS, 'agent-models-no-access-1280-light.png') });
    // The first page, with access, shows no such warning for the same profile.
    await until(async () => (await rows(page)).length === 1, { what: 'the other page to list it' });
    assert.doesNotMatch((await rows(page))[0].text, /Not allowed/);
    await p2.close();
  });
});
