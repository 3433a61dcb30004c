// The panel's Cost tab in Firefox ESR (issue 49): its module Web Worker (profile-worker.js, which
// imports the vendored tokenizer from /vendor/) starts from a moz-extension:// page under the
// manifest's CSP, counts the profile fixture's tokens, and the total equals the o200k count of the
// agent's tree text in Node; the subtrees are ranked as the fixture says. The Chromium test
// (tests/e2e/panel-cost.test.mjs) covers the rest.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { createProfileEngine, EXPECTED } from '../fixtures/profile-provider.mjs';
import { countTokens } from '../../js-glue/node/tokenizer.js';
import { launchFirefox, extensionPage, webPage, until } from './helpers.mjs';

test('Firefox ESR: the Cost tab counts the tokens in its worker', { timeout: 90_000 }, async () => {
  let ff = null;
  let srv = null;
  try {
    ff = await launchFirefox();
    srv = await startWsProvider({ engine: createProfileEngine({ clock: false }), authRequired: false, allowedOrigins: [ff.extOrigin] });
    const page = await webPage(ff, srv.url('/pages/meta-ws.html'));
    const options = await extensionPage(ff, 'extension/options/options.html');
    const tabId = await options.evaluate(async (url) => (await browser.tabs.query({})).find((x) => x.url === url)?.id, page.url());
    assert.ok(Number.isInteger(tabId), 'the page\'s tab');
    const panel = await extensionPage(ff, `extension/panel/panel.html?tabId=${tabId}`);
    await panel.waitForSelector('#tree .row[data-path="/messages"]', { timeout: 15_000 });
    await panel.click('#side-tabs button[data-tab="cost"]');
    await panel.waitForSelector('#cost [data-role="cost-tokens"]', { timeout: 30_000 });
    const shown = Number(await panel.$eval('#cost [data-role="cost-tokens"]', (e) => e.getAttribute('data-value')));
    const view = await panel.evaluate(() => window.slopPanel.request('ui/agent-view', { key: window.slopPanel.selectedKey(), sub: window.slopPanel.currentSub() }));
    assert.equal(shown, countTokens(view.treeText), 'the tab counts what an agent is given, with the same tokenizer as Node');
    await panel.select('#cost [data-role="cost-depth"]', '1');
    const ranked = await until(async () => {
      const paths = await panel.$$eval('#cost [data-role="cost-subtrees"] tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-path')));
      return paths.length === EXPECTED.byTokens.length ? paths : null;
    }, { what: 'the top-level subtrees' });
    assert.deepEqual(ranked, EXPECTED.byTokens);
  } finally {
    await ff?.close();
    await srv?.close();
  }
});
