// The panel for keyboard and screen-reader users (issue 39). axe-core (WCAG 2.0/2.1 A and AA)
// finds no violation in the panel with a provider live and patching (a node selected, each side
// tab, the History strip open, at 320, 480 and 1280 px, light and dark), nor in the popup and the
// Options page; the side tabs follow the ARIA tabs pattern (roving tabindex, arrows, Home/End);
// the splitters say their size and move with the keys; under a reconnect countdown the polite
// status keeps its words while the visible seconds change, and an error goes to role="alert".
// Screenshots of the focus ring of a tab, a splitter and a bar button, in build/screenshots/a11y/.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import net from 'node:net';
import { StateEngine } from '../fixtures/provider/state.mjs';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { browserOnProvider, startProvider, launch, openPanel, openExtensionPage, waitForProvider, setTokenInExtension, wsOrigin, until, sleep, ROOT, TEST_TIMEOUT } from './helpers.mjs';

const SHOTS = path.join(ROOT, 'build/screenshots/a11y');
const AXE_SRC = await fs.readFile(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

function appTree() {
  const notes = Array.from({ length: 12 }, (_, i) => ({
    id: `note-${i}`, type: 'note',
    properties: { label: `Note ${i}`, body: `Text of note ${i}` },
    // Some rows low-salience (their ids dimmed); one with the focus dot, one with the changed dot.
    meta: { salience: i % 3 === 0 ? 0.1 : 0.7, ...(i === 1 ? { focus: true } : {}), ...(i === 2 ? { changed: true } : {}) },
  }));
  return {
    id: 'app', type: 'root', properties: { label: 'A11y lab' },
    children: [
      {
        id: 'counter', type: 'counter', properties: { label: 'Counter', count: 0, status: 'idle' },
        meta: { salience: 0.9, summary: 'Counts' },
        affordances: [{ action: 'set', label: 'Set', params: { type: 'object', properties: { n: { type: 'number' }, mode: { type: 'string', enum: ['a', 'b'] } } } }],
      },
      { id: 'ticker', type: 'clock', properties: { label: 'Ticker', t: 0 }, meta: { salience: 0.2 } },
      { id: 'notes', type: 'list', properties: { label: 'Notes' }, children: notes },
    ],
  };
}

/** Loads axe into the page (CDP evaluate: an extension page's CSP refuses inline scripts) and runs it. */
async function loadAxe(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(`${AXE_SRC}\n;void 0`);
}

async function axe(page) {
  await loadAxe(page);
  return page.evaluate(async (tags) => {
    const r = await /** @type {any} */ (window).axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return r.violations.flatMap((v) => v.nodes.map((n) => ({
      rule: v.id, target: n.target.map(String).join(' '),
      summary: (n.failureSummary ?? v.help).replace(/\s+/g, ' ').slice(0, 300),
    })));
  }, TAGS);
}

/** Every violation seen, by `rule target`, with the states it was seen in. */
function collector() {
  const seen = new Map();
  return {
    seen,
    add(state, list) {
      for (const v of list) {
        const k = `${v.rule} ${v.target}`;
        if (!seen.has(k)) seen.set(k, { ...v, states: [] });
        seen.get(k).states.push(state);
      }
    },
    /** Fails listing rule, selector and summary for each violation. */
    check() {
      const byRule = {};
      for (const v of seen.values()) byRule[v.rule] = (byRule[v.rule] ?? 0) + 1;
      console.log('axe violations by rule (distinct selectors):', JSON.stringify(byRule));
      const bad = [...seen.values()].map((v) =>
        `${v.rule}  ${v.target}\n    ${v.summary}\n    in ${v.states.length} state(s), e.g. ${v.states.slice(0, 3).join('; ')}`);
      assert.equal(bad.length, 0, `axe found ${bad.length} violation(s):\n${bad.join('\n')}`);
    },
  };
}

/**
 * A running animation keeps the colours it started with: after a theme change, a row's flash that
 * began in the other theme is left to end (0.6 s) before axe samples the page.
 */
async function setTheme(page, theme) {
  const changed = await page.evaluate((t) => {
    const was = document.documentElement.dataset.theme;
    document.documentElement.dataset.theme = t;
    return was !== t;
  }, theme);
  if (changed) await sleep(800);
}

describe('panel accessibility', () => {
  let browser, srv, tabId, timer;
  let paused = false; // the flash test holds a row still

  before(async () => {
    const engine = new StateEngine({ id: 'a11y', name: 'A11y lab', tree: appTree(), handlers: { set: () => ({ ok: true }) } });
    srv = await startProvider({ engine });
    ({ browser, tabId } = await browserOnProvider(srv));
    // Live and patching: the selected node and another change every 300 ms (their rows flash).
    let n = 0;
    timer = setInterval(() => {
      if (paused) return;
      n++;
      try {
        srv.engine.mutate((root) => {
          root.children[1].properties.t = n;
          if (n % 2 === 0) root.children[0].properties.count = n;
        });
      } catch { /* the provider closed */ }
    }, 300);
    await fs.mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    clearInterval(timer);
    await browser?.close();
    await srv?.close();
  });

  test('axe: the panel, live and patching, every side tab, 320/480/1280 px, light and dark', { timeout: 240_000 }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#tree .row[data-path="/counter"]', { timeout: 10_000 });
    await panel.locator('#detail [data-section="properties"]').waitFor();
    const found = collector();
    for (const width of [320, 480, 1280]) {
      await panel.setViewportSize({ width, height: 760 });
      for (const theme of ['light', 'dark']) {
        await setTheme(panel, theme);
        for (const tab of ['node', 'agent', 'playground', 'conformance', 'history']) {
          if (tab === 'history') {
            if (await panel.locator('#history-strip').isHidden()) await panel.click('#toggle-history');
            await panel.locator('#history-strip').waitFor();
          } else {
            if (await panel.locator('#history-strip').isVisible()) await panel.click('#toggle-history');
            await panel.click(`#side-tabs [data-tab="${tab}"]`);
          }
          await until(() => panel.evaluate((t) => document.querySelector(`#side-tabs [data-tab="${t}"]`)?.getAttribute('aria-selected') === 'true', tab), { what: `the ${tab} tab` });
          await sleep(150);
          found.add(`panel ${tab} ${width} ${theme}`, await axe(panel));
        }
        // The bar's other strips and the log (its splitter too), over the Node tab.
        await panel.click('#toggle-history');
        await panel.click('#side-tabs [data-tab="node"]');
        for (const [btn, el] of [['#toggle-sub', '#sub-strip'], ['#toggle-log', '#log']]) {
          await panel.click(btn);
          await panel.locator(el).waitFor();
        }
        await sleep(150);
        found.add(`panel strips+log ${width} ${theme}`, await axe(panel));
        for (const btn of ['#toggle-sub', '#toggle-log']) await panel.click(btn);
      }
    }
    if (await panel.locator('#history-strip').isVisible()) await panel.click('#toggle-history');
    await panel.close();
    found.check();
  });

  test('axe: the popup and the Options page, 480 and 1280 px, light and dark', { timeout: TEST_TIMEOUT }, async () => {
    const found = collector();
    for (const [name, rel] of [['popup', `extension/popup/popup.html?tabId=${tabId}`], ['options', 'extension/options/options.html']]) {
      const page = await openExtensionPage(browser.ctx, browser.extId, rel);
      for (const width of [480, 1280]) {
        await page.setViewportSize({ width, height: 800 });
        for (const theme of ['light', 'dark']) {
          await setTheme(page, theme);
          await sleep(100);
          found.add(`${name} ${width} ${theme}`, await axe(page));
        }
      }
      await page.close();
    }
    found.check();
  });

  test('the flash of a changed row keeps its text >= 4.5:1 at its first (strongest) frame, light and dark', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.click('#tree .row[data-path="/counter"]', { timeout: 10_000 });
    for (const theme of ['light', 'dark']) {
      await setTheme(panel, theme);
      // The patches stop (a re-render would replace the held row); one more patch flashes the
      // ticker's row in this theme, held at its first frame.
      paused = true;
      await sleep(1200);
      srv.engine.mutate((root) => { root.children[1].properties.t = -1 - root.children[1].properties.t; });
      await until(() => panel.evaluate(() => !!document.querySelector('#tree .row.flash:not(.selected)')), { what: 'a flashing row' });
      const held = await panel.evaluate(() => {
        for (const a of document.getAnimations()) if (a.animationName === 'flash') { a.pause(); a.currentTime = 0; }
        return document.querySelectorAll('#tree .row.flash:not(.selected)').length;
      });
      assert.ok(held > 0, 'a row held at its flash');
      await loadAxe(panel);
      const found = await panel.evaluate(async () => {
        const r = await /** @type {any} */ (window).axe.run({ include: [['#tree .row.flash']] }, { runOnly: ['color-contrast'] });
        return r.violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary}`));
      });
      assert.deepEqual(found, [], `${theme}: text on the flash colour`);
      await panel.evaluate(() => { for (const a of document.getAnimations()) a.finish(); });
      paused = false;
    }
    await panel.close();
  });

  test('the side tabs: ids, aria-controls, tabpanels; one Tab stop; arrows, Home and End select', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.setViewportSize({ width: 1280, height: 760 });
    await panel.locator('#tree .row[data-path="/counter"]').waitFor({ timeout: 10_000 });
    const state = () => panel.evaluate(() => [...document.querySelectorAll('#side-tabs [role="tab"]')].map((t) => {
      const panelEl = document.getElementById(t.getAttribute('aria-controls') ?? '');
      return {
        tab: /** @type {HTMLElement} */ (t).dataset.tab, id: t.id, selected: t.getAttribute('aria-selected'), tabindex: t.getAttribute('tabindex'),
        panel: panelEl?.id ?? null, role: panelEl?.getAttribute('role') ?? null, labelledby: panelEl?.getAttribute('aria-labelledby') ?? null,
        shown: !!panelEl && !panelEl.hidden, focused: document.activeElement === t,
      };
    }));
    const s0 = await state();
    assert.deepEqual(s0.map((t) => t.panel), ['detail', 'agent', 'playground', 'history', 'conformance', 'cost']);
    for (const t of s0) {
      assert.ok(t.id, `${t.tab}: an id`);
      assert.equal(t.role, 'tabpanel', `${t.tab}: its panel is a tabpanel`);
      assert.equal(t.labelledby, t.id, `${t.tab}: its panel is labelled by it`);
    }
    const selected = (st) => st.filter((t) => t.selected === 'true').map((t) => t.tab);
    const check = async (tab) => {
      const st = await state();
      assert.deepEqual(selected(st), [tab], 'one tab selected');
      assert.deepEqual(st.filter((t) => t.tabindex === '0').map((t) => t.tab), [tab], 'roving: only the selected tab is a Tab stop');
      assert.ok(st.filter((t) => t.tab !== tab).every((t) => t.tabindex === '-1'));
      assert.deepEqual(st.filter((t) => t.shown).map((t) => t.tab), [tab], 'its panel alone shows');
      assert.deepEqual(st.filter((t) => t.focused).map((t) => t.tab), [tab], 'focus on it');
    };
    // Tab from the search box's row reaches the tab list at the selected tab, not the first.
    await panel.click('#side-tabs [data-tab="agent"]');
    await panel.locator('#split').focus();
    await panel.keyboard.press('Tab');
    await check('agent');
    await panel.keyboard.press('ArrowRight');
    await check('playground');
    await panel.keyboard.press('End');
    await check('cost');
    await panel.keyboard.press('ArrowRight'); // wraps
    await check('node');
    await panel.keyboard.press('ArrowLeft');
    await check('cost');
    await panel.keyboard.press('Home');
    await check('node');
    // Tab leaves the list (to the panel's content), Shift+Tab comes back to the selected tab.
    await panel.keyboard.press('ArrowRight');
    await panel.keyboard.press('Tab');
    assert.equal(await panel.evaluate(() => document.activeElement?.getAttribute('role')), null, 'Tab left the tab list');
    await panel.keyboard.press('Shift+Tab');
    await check('agent');
    await panel.keyboard.press('Home');
    await panel.close();
  });

  test('the splitters: aria-valuenow/min/max/text kept up to date by keys and drags; Home/End; a 2-px accent ring', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.setViewportSize({ width: 1280, height: 760 });
    await panel.locator('#tree .row[data-path="/counter"]').waitFor({ timeout: 10_000 });
    const vals = (sel) => panel.locator(sel).evaluate((el) => ({
      now: Number(el.getAttribute('aria-valuenow')), min: Number(el.getAttribute('aria-valuemin')), max: Number(el.getAttribute('aria-valuemax')),
      text: el.getAttribute('aria-valuetext'),
    }));
    const treePct = () => panel.evaluate(() => Math.round(document.getElementById('tree-pane').getBoundingClientRect().width / document.getElementById('main').clientWidth * 100));
    const v0 = await vals('#split');
    assert.equal(v0.now, await treePct(), 'the tree\'s share of the width');
    assert.ok(v0.min > 0 && v0.min < v0.now && v0.now < v0.max && v0.max < 100, JSON.stringify(v0));
    assert.match(v0.text, new RegExp(`^Tree ${v0.now}% of the width \\(\\d+ px\\), details ${100 - v0.now}%$`));

    await panel.locator('#split').focus();
    await panel.keyboard.press('ArrowRight');
    await until(async () => (await vals('#split')).now > v0.now, { what: 'ArrowRight: a larger value' });
    await panel.keyboard.press('ArrowLeft');
    await panel.keyboard.press('ArrowLeft');
    await until(async () => (await vals('#split')).now < v0.now, { what: 'ArrowLeft: a smaller value' });
    await panel.keyboard.press('Home');
    await until(async () => { const v = await vals('#split'); return v.now === v.min; }, { what: 'Home: the minimum' });
    await panel.keyboard.press('End');
    await until(async () => { const v = await vals('#split'); return v.now === v.max; }, { what: 'End: the maximum' });
    assert.equal((await vals('#split')).now, await treePct());
    // The ring: 2 px, the accent colour.
    const ring = await panel.locator('#split').evaluate((el) => {
      const cs = getComputedStyle(el);
      const probe = document.createElement('i');
      probe.style.color = 'var(--accent)';
      document.body.append(probe);
      const accent = getComputedStyle(probe).color;
      probe.remove();
      return { width: cs.outlineWidth, style: cs.outlineStyle, color: cs.outlineColor, accent, focusVisible: el.matches(':focus-visible') };
    });
    assert.ok(ring.focusVisible);
    assert.deepEqual([ring.width, ring.style, ring.color], ['2px', 'solid', ring.accent]);
    // A drag moves the value too.
    const before = (await vals('#split')).now;
    const b = await panel.locator('#split').boundingBox();
    await panel.mouse.move(b.x + b.width / 2, b.y + 200);
    await panel.mouse.down();
    await panel.mouse.move(b.x + b.width / 2 - 300, b.y + 200, { steps: 5 });
    await panel.mouse.up();
    await until(async () => (await vals('#split')).now < before - 10, { what: 'the drag moved the value' });
    assert.equal((await vals('#split')).now, await treePct());
    await panel.dblclick('#split');

    // Docked right: the splitter turns, its value is the tree's share of the height, ↑/↓ move it.
    await panel.setViewportSize({ width: 480, height: 760 });
    await until(async () => (await panel.locator('#split').getAttribute('aria-orientation')) === 'horizontal', { what: 'the splitter turned' });
    await until(async () => /of the height/.test((await vals('#split')).text), { what: 'the value in height' });
    const h0 = (await vals('#split')).now;
    await panel.locator('#split').focus();
    await panel.keyboard.press('ArrowDown');
    await until(async () => (await vals('#split')).now > h0, { what: 'ArrowDown: a taller tree' });
    await panel.dblclick('#split');

    // The log's splitter: the log's height.
    await panel.setViewportSize({ width: 1280, height: 760 });
    await panel.click('#toggle-log');
    await panel.locator('#log-split').waitFor();
    await until(async () => /^Log \d+ px high/.test((await vals('#log-split')).text ?? ''), { what: 'the log splitter\'s value' });
    const l0 = await vals('#log-split');
    await panel.locator('#log-split').focus();
    await panel.keyboard.press('ArrowUp');
    await until(async () => (await vals('#log-split')).now > l0.now, { what: 'ArrowUp: a higher log' });
    await panel.keyboard.press('Home');
    await until(async () => { const v = await vals('#log-split'); return v.now === v.min; }, { what: 'Home: the smallest log' });
    await panel.dblclick('#log-split');
    await panel.click('#toggle-log');
    await panel.close();
  });

  test('focus rings (a tab, a splitter, a bar button) at 480 and 1280, light and dark: screenshots', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.locator('#tree .row[data-path="/counter"]').waitFor({ timeout: 10_000 });
    const shot = async (sel, file) => {
      const box = await panel.locator(sel).boundingBox();
      const vp = panel.viewportSize();
      const pad = 24;
      const x = Math.max(0, box.x - pad);
      const y = Math.max(0, box.y - pad);
      const clip = { x, y, width: Math.min(vp.width - x, box.width + 2 * pad), height: Math.min(vp.height - y, Math.min(box.height, 160) + 2 * pad) };
      await panel.screenshot({ path: path.join(SHOTS, file), clip });
    };
    for (const width of [480, 1280]) {
      await panel.setViewportSize({ width, height: 700 });
      for (const theme of ['light', 'dark']) {
        await setTheme(panel, theme);
        // By keyboard, so that :focus-visible applies.
        await panel.locator('#side-tabs [aria-selected="true"]').focus();
        await panel.keyboard.press('ArrowRight');
        assert.equal(await panel.evaluate(() => document.activeElement?.matches('[role="tab"]:focus-visible')), true);
        await shot('#side-tabs', `tab-${width}-${theme}.png`);
        await panel.keyboard.press('Home');
        await panel.locator('#split').focus();
        await shot('#split', `splitter-${width}-${theme}.png`);
        await panel.locator('#toggle-history').focus();
        await panel.keyboard.press('Shift+Tab');
        await panel.keyboard.press('Tab');
        assert.equal(await panel.evaluate(() => document.activeElement?.id), 'toggle-history');
        await shot('#bar', `button-${width}-${theme}.png`);
      }
    }
    await panel.close();
  });
});

describe('live regions: the connection\'s state, not its countdown; errors as alerts', () => {
  let browser;
  const servers = [];

  after(async () => {
    await browser?.close();
    for (const s of servers) await s.close().catch(() => {});
  });

  /** Samples #status-live (the live region) and #status (what shows) every 200 ms. */
  async function sample(panel, { ms, until: stop = () => false }) {
    const live = [];
    const shown = [];
    const t0 = Date.now();
    while (Date.now() - t0 < ms) {
      live.push(await panel.locator('#status-live').textContent());
      shown.push(await panel.locator('#status').textContent());
      if (Date.now() - t0 >= 3000 && stop(live, shown)) break;
      await sleep(200);
    }
    return { live: [...new Set(live)], shown: [...new Set(shown)] };
  }

  test('a provider nobody answers for: the alert says it once; under the retry countdown the status region keeps its words', { timeout: 120_000 }, async () => {
    // A page (served by a live fixture) announcing a WebSocket address on which nothing listens.
    const host = await startProvider({ engine: new StateEngine({ id: 'host', name: 'Host', tree: appTree() }) });
    servers.push(host);
    const dead = await new Promise((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = /** @type {import('node:net').AddressInfo} */ (probe.address());
        probe.close(() => resolve(`ws://127.0.0.1:${port}/slop`));
      });
    });
    browser = await launch();
    const page = await browser.ctx.newPage();
    await page.goto(host.url('/pages/dynamic-meta.html'));
    await page.evaluate((u) => /** @type {any} */ (window).slopMeta.add(u), dead);
    const { tabId } = await waitForProvider(browser.ctx, host.origin, (p) => p.transport?.url === dead && p.status === 'unreachable', { timeout: 30_000 });
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    assert.equal(await panel.locator('#alert').getAttribute('role'), 'alert');
    assert.equal(await panel.locator('#status-live').getAttribute('role'), 'status');
    assert.equal(await panel.locator('#banner').getAttribute('role'), null, 'the banner is not a second live region');
    await until(async () => /Unreachable/.test(await panel.locator('#alert').textContent()), { what: 'the alert', timeout: 15_000 });
    const text = await panel.locator('#alert').textContent();
    await panel.evaluate(() => {
      globalThis.__alertWrites = 0;
      new MutationObserver((ms) => { globalThis.__alertWrites += ms.length; })
        .observe(document.getElementById('alert'), { childList: true, characterData: true, subtree: true });
    });
    await until(async () => /retry in \d+ s/.test(await panel.locator('#status .status-count').textContent()), { what: 'a retry countdown' });
    // At least 3 s of countdown and tries in between, until the visible part has changed twice:
    // the live words never change.
    const { live, shown } = await sample(panel, { ms: 40_000, until: (_, sh) => new Set(sh).size > 2 });
    assert.deepEqual(live, ['Unreachable'], 'the live region kept its words for 3 s');
    assert.ok(shown.length > 1, `the visible countdown changed: ${shown.join(' | ')}`);
    assert.equal(await panel.evaluate(() => globalThis.__alertWrites), 0, 'the same error is not written again through the retries');
    assert.equal(await panel.locator('#alert').textContent(), text);
    await panel.close();
    await page.close();
  });

  test('a dev server restarting: "Provider restarted, reconnecting" stays the live words while the visible try/countdown changes; no alert', { timeout: 120_000 }, async () => {
    const srv = await startProvider({ engine: new StateEngine({ id: 'gone', name: 'Going away', tree: appTree() }) });
    servers.push(srv);
    await setTokenInExtension(browser.ctx, wsOrigin(srv), srv.token);
    const page = await browser.ctx.newPage();
    await page.goto(srv.url('/pages/meta-ws.html'));
    const { tabId } = await waitForProvider(browser.ctx, srv.origin, (p) => p.status === 'connected' && p.nodes > 0);
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    await panel.locator('#status[data-live="true"]').waitFor({ timeout: 10_000 });
    await srv.close();
    await until(async () => /next try in \d+ s|trying now/.test(await panel.locator('#status .status-count').textContent()), { what: 'the restart countdown' });
    // At least 3 s, until the visible part has changed twice ("next try in 1 s" ⇄ "trying now").
    const { live, shown } = await sample(panel, { ms: 40_000, until: (_, sh) => new Set(sh).size > 2 });
    assert.deepEqual(live, ['Provider restarted, reconnecting'], 'the live words never changed');
    assert.ok(shown.length > 1, `the visible part changed: ${shown.join(' | ')}`);
    assert.equal(await panel.locator('#alert').textContent(), '', 'a restart is not an error');
    await panel.close();
    await page.close();
  });
});

describe('tree rows in words (issue 45)', () => {
  let browser, srv, tabId;
  before(async () => {
    srv = await startProvider({ engine: createMailEngine({ messages: 60 }) });
    ({ browser, tabId } = await browserOnProvider(srv));
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('a row\'s accessible name says what its counts are: "50 of 60 children", "3 actions", never a bare number', { timeout: TEST_TIMEOUT }, async () => {
    const panel = await openPanel(browser.ctx, browser.extId, tabId);
    const inbox = panel.locator('#tree .row[data-path="/inbox"]');
    await inbox.waitFor({ timeout: 10_000 });
    // As the browser's accessibility tree names the row (Playwright's ariaSnapshot).
    const name = (await inbox.ariaSnapshot()).match(/treeitem "([^"]*)"/)?.[1];
    assert.equal(name, 'inbox collection Inbox 50 of 60 children 3 actions');
    const root = (await panel.locator('#tree .row[data-path="/"]').ariaSnapshot()).match(/treeitem "([^"]*)"/)?.[1];
    assert.match(root, /\d+ children$|\d+ child$|\d+ children \d+ actions?$/, root);
    for (const n of [name, root]) assert.doesNotMatch(n, /\d$/, `no bare number at the end: ${n}`);
    await panel.close();
  });
});
