// The npm package as a user gets it: `npm pack`, install the tarball into a fresh project, and run
// that project's own tests, written against the public API only (slop-inspector/playwright and
// slop-inspector/node), with Node's test runner and with @playwright/test, against the fixture
// providers: a WebSocket provider with a token, an in-page postMessage provider, and each way
// of failing (no provider, approval pending, wrong token, nobody there, a protocol error, a
// dangerous invoke without consent).

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, TEST_TIMEOUT } from './helpers.mjs';
import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { startScriptedProvider, frames } from '../fixtures/provider/scripted.mjs';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { StateEngine } from '../fixtures/provider/state.mjs';

const exec = promisify(execFile);
/** The Origin the user's Node client sends (the mail provider allows it, as a real one would be told to). */
const NODE_ORIGIN = 'http://tests.example';
const PW_TEST_VERSION = JSON.parse(await fs.readFile(path.join(ROOT, 'node_modules/@playwright/test/package.json'), 'utf8')).version;

/** Runs a command in dir; resolves {code, out} (stdout and stderr together) without throwing. */
async function run(cmd, args, dir, env = {}, timeout = 240_000) {
  const base = { ...process.env };
  delete base.NODE_TEST_CONTEXT; // else the user's node --test thinks it runs under ours and runs nothing
  try {
    const { stdout, stderr } = await exec(cmd, args, { cwd: dir, env: { ...base, ...env }, timeout, maxBuffer: 32 << 20 });
    return { code: 0, out: stdout + stderr };
  } catch (e) {
    return { code: e.code ?? 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}${e.killed ? '\n(killed: timeout)' : ''}` };
  }
}

// --- the user's project -----------------------------------------------------------------

const USER_NODE_TEST = `
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { launchWithSlop, Slop, SlopTestError } from 'slop-inspector/playwright';
import { connect } from 'slop-inspector/node';

const fx = JSON.parse(process.env.SLOP_FIXTURES);
let context, slop;
before(async () => {
  context = await launchWithSlop({
    tokens: { [fx.mail.origin]: fx.mail.token, [fx.other.origin]: 'not-the-token', [fx.broken.origin]: fx.broken.token },
    args: ['--host-resolver-rules=MAP *.test 127.0.0.1'],
  });
  slop = new Slop(context);
});
after(() => context?.close());

async function fails(promise, code, pattern) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof SlopTestError, e.stack);
    assert.equal(e.code, code, e.message);
    assert.match(e.message, pattern);
    return true;
  });
}

test('a WebSocket provider with a token: read, invoke, wait', async () => {
  const page = await context.newPage();
  await page.goto(fx.mail.page);
  const app = await slop.provider(page, { name: 'Acme Mail' });
  assert.equal((await app.info()).live, true);
  assert.deepEqual((await app.node('/inbox')).child_ids, ['msg-5', 'msg-4', 'msg-3', 'msg-2', 'msg-1']);
  assert.match(await app.text(), /^\\[root\\] acme-mail: Acme Mail/);
  assert.ok((await app.tools()).tools.length > 5);
  await fails(app.invoke('/inbox/msg-2', 'delete'), 'dangerous', /confirmDangerous/);
  assert.ok(await app.node('/inbox/msg-2'), 'a refused dangerous invoke sends nothing');
  const r = await app.invoke('/inbox/msg-2', 'delete', undefined, { confirmDangerous: true });
  assert.equal(r.status, 'ok');
  assert.equal(await app.waitFor('/inbox/msg-2', (n) => n === null), null);
  await fails(app.invoke('/compose', 'send', { to: 'nobody', subject: 'x' }), 'invoke_failed', /invalid_params: not an email address/);
  const q = await app.query({ path: '/folders', depth: 1 });
  assert.equal(q.tree.id, 'folders');
  assert.ok((await app.events()).some((e) => e.event === 'result'));
  assert.ok((await app.frames()).some((f) => f.dir === 'out' && f.type === 'invoke'));
  await page.close();
});

test('an in-page postMessage provider', async () => {
  const page = await context.newPage();
  await page.goto(fx.spa);
  const app = await slop.provider(page, { url: 'postmessage' });
  assert.equal((await app.info()).provider.name, 'Todo SPA');
  const todos = await app.node('/todos');
  assert.ok(todos.child_ids.length > 0);
  await page.close();
});

test('each failure says what was found instead', async () => {
  const page = await context.newPage();
  await page.goto(fx.plain);
  await fails(slop.provider(page, { timeout: 1500 }), 'no_provider', /no SLOP provider on the page/);
  await page.goto(fx.crossOrigin);
  await fails(slop.provider(page, { timeout: 1500 }), 'pending_approval', /approval of "http:\\/\\/page\\.test:\\d+ -> ws:\\/\\/127\\.0\\.0\\.1:\\d+\\/slop"/);
  await page.goto(fx.other.page);
  await fails(slop.provider(page, { timeout: 10000 }), 'auth_failed', /auth-failed.*refused/);
  await page.goto(fx.dead);
  await fails(slop.provider(page, { timeout: 4000, approve: true }), 'unreachable', /Nothing answers/);
  await page.goto(fx.broken.page);
  await fails(slop.provider(page, { timeout: 10000 }), 'protocol_error', /error — .*state/);
  await page.goto(fx.mail.page);
  await fails(slop.provider(page, { name: 'Nope', timeout: 1500 }), 'no_provider', /none matches; the page has:\\n {2}"Acme Mail"/);
  const app = await slop.provider(page);
  await fails(app.waitFor('/inbox/msg-9', undefined, { timeout: 300 }), 'timeout', /nearest node: \\/inbox\\n {2}inbox \\(collection\\)/);
  await page.close();
});

test('the Node client and the command', async () => {
  const app = await connect(fx.mail.ws, { token: fx.mail.token, origin: fx.mail.nodeOrigin });
  assert.equal((await app.info()).provider.name, 'Acme Mail');
  app.close();
  await fails(connect(fx.mail.ws, { token: 'bad', origin: fx.mail.nodeOrigin }), 'auth_failed', /refused the connection \\(HTTP 401\\): pass its token/);
  const { stdout } = await promisify(execFile)('npx', ['--no-install', 'slop-inspector', 'tree', fx.mail.ws, '--origin', fx.mail.nodeOrigin],
    { env: { ...process.env, SLOP_TOKEN: fx.mail.token } });
  assert.match(stdout, /^\\[root\\] acme-mail/);
});
`;

const USER_PW_CONFIG = `export default { testDir: 'pw', workers: 1, reporter: 'line', timeout: 60000 };
`;

const USER_PW_SPEC = `
import { test, expect as baseExpect } from '@playwright/test';
import { withSlop, slopMatchers } from 'slop-inspector/playwright';

const fx = JSON.parse(process.env.SLOP_FIXTURES);
const expect = baseExpect.extend(slopMatchers);
const it = withSlop(test, { tokens: { [fx.mail.origin]: fx.mail.token, [fx.odd.origin]: fx.odd.token } });

it('deleting a message removes it from the inbox', async ({ page, slop }) => {
  await page.goto(fx.mail.page);
  const app = await slop.provider(page, { name: 'Acme Mail' });
  await expect(app).toHaveAffordance('/inbox/msg-3', 'delete');
  await expect(app).toHaveSlopNode('/inbox', { properties: { total: 5 } });
  await app.invoke('/inbox/msg-3', 'delete', undefined, { confirmDangerous: true });
  await expect.poll(() => app.node('/inbox/msg-3')).toBeNull();
  await expect(app).not.toHaveSlopNode('/inbox/msg-3');
  await expect(app).toHaveSlopNode('/inbox', { properties: { total: 4 } });
  expect(await app.snapshot('/inbox')).toMatchSnapshot('inbox.txt');
  await expect(app).toConformToSlop();
});

it('a failing matcher names the provider and shows the nearest tree', async ({ page, slop }) => {
  await page.goto(fx.mail.page);
  const app = await slop.provider(page);
  const error = await expect(app).toHaveSlopNode('/inbox/msg-42', undefined, { timeout: 300 }).catch((e) => e);
  expect(error.message).toContain('provider "Acme Mail"');
  expect(error.message).toContain('nearest node: /inbox');
});

it('a provider that breaks SLOP fails toConformToSlop with its findings', async ({ page, slop }) => {
  await page.goto(fx.odd.page);
  const app = await slop.provider(page);
  const error = await expect(app).toConformToSlop().catch((e) => e);
  expect(error.message).toContain('0 MUST and 1 SHOULD findings'); // salience is a hint: SHOULD
  expect(error.message).toContain('SHOULD meta-salience');
  expect(error.message).toContain('/n v1: meta.salience is out of 0..1');
  await expect(app).toConformToSlop({ allow: ['meta-salience'] });
  const report = await app.conformance();
  expect(report.findings.map((f) => f.rule)).toEqual(['meta-salience']);
});
`;

describe("the npm package in a user's project", () => {
  let tmp, project, tarball;
  const servers = [];
  let fixtures;

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'slop-pkg-'));
    // The extension and the core are built by build.sh before the tests; prepack would only rebuild.
    const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', tmp], ROOT);
    assert.equal(packed.code, 0, packed.out);
    tarball = path.join(tmp, (await fs.readdir(tmp)).find((f) => f.endsWith('.tgz')));

    // The providers (one fresh mail state per connection, so the two runs do not meet).
    const mail = await startWsProvider({
      host: '127.0.0.1', port: 0, allowedOrigins: ['chrome-extension://', NODE_ORIGIN],
      createEngine: () => createMailEngine({ messages: 5 }),
      pages: { '/cross.html': '<!doctype html><meta name="slop" content="ws://127.0.0.1:{{PORT}}/slop"><title>cross</title>' },
    });
    const other = await startWsProvider({ host: '127.0.0.1', port: 0, engine: createMailEngine({ messages: 2 }) });
    const odd = await startWsProvider({ host: '127.0.0.1', port: 0, engine: new StateEngine({
      tree: { id: 'root', type: 'root', children: [{ id: 'n', type: 'item', meta: { salience: 3 } }] } }) });
    const broken = await startScriptedProvider({ host: '127.0.0.1', port: 0,
      script: [frames.hello({ id: 'broken', name: 'Broken', capabilities: ['patches'] })] });
    // A plain site: a page without SLOP, and one naming a WebSocket where nothing listens.
    const deadPort = await new Promise((r) => {
      const s = http.createServer();
      s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => r(p)); });
    });
    const site = http.createServer((req, res) => {
      res.setHeader('content-type', 'text/html');
      if (req.url === '/dead.html') res.end(`<!doctype html><meta name="slop" content="ws://127.0.0.1:${deadPort}/slop"><title>dead</title>`);
      else if (req.url === '/') res.end('<!doctype html><title>no SLOP here</title><p>plain page</p>');
      else { res.statusCode = 404; res.end(); }
    });
    await new Promise((r) => site.listen(0, '127.0.0.1', r));
    servers.push(mail, other, odd, broken, { close: () => new Promise((r) => site.close(r)) });
    const origin = (s) => new URL(s.wsUrl).origin;
    const siteUrl = `http://127.0.0.1:${site.address().port}`;
    fixtures = {
      mail: { page: `${mail.url('/pages/meta-ws.html')}`, ws: mail.wsUrl, origin: origin(mail), token: mail.token, nodeOrigin: NODE_ORIGIN },
      other: { page: `${other.url('/pages/meta-ws.html')}`, origin: origin(other) },
      odd: { page: odd.url('/pages/meta-ws.html'), origin: origin(odd), token: odd.token },
      broken: { page: `${broken.url('/pages/meta-ws.html')}`, origin: origin(broken), token: broken.token },
      spa: mail.url('/pages/spa.html'),
      plain: `${siteUrl}/`,
      dead: `${siteUrl}/dead.html`,
      crossOrigin: `http://page.test:${mail.port}/cross.html`,
    };

    // The user's project: the tarball and @playwright/test from the registry (no browser download).
    project = path.join(tmp, 'user-app');
    await fs.mkdir(path.join(project, 'pw'), { recursive: true });
    await fs.writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'user-app', private: true, type: 'module' }, null, 2));
    let installed;
    for (let attempt = 1; attempt <= 3; attempt++) { // the registry times out now and then
      installed = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, `@playwright/test@${PW_TEST_VERSION}`],
        project, { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' });
      if (installed.code === 0) break;
    }
    assert.equal(installed.code, 0, installed.out);
    await fs.writeFile(path.join(project, 'user.test.mjs'), USER_NODE_TEST);
    await fs.writeFile(path.join(project, 'playwright.config.mjs'), USER_PW_CONFIG);
    await fs.writeFile(path.join(project, 'pw/inbox.spec.mjs'), USER_PW_SPEC);
  });

  after(async () => {
    for (const s of servers) await s.close().catch(() => {});
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  const ENV = () => ({ SLOP_FIXTURES: JSON.stringify(fixtures), CHROMIUM: process.env.CHROMIUM ?? '/usr/bin/chromium' });

  test("a user's node:test file on the public API: providers, invokes, every failure", { timeout: 240_000 }, async () => {
    const r = await run(process.execPath, ['--test', '--test-reporter=spec', 'user.test.mjs'], project, ENV());
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /pass 4/);
  });

  test("a user's @playwright/test spec: withSlop, the matchers, a stable snapshot", { timeout: 240_000 }, async () => {
    const cli = path.join(project, 'node_modules/@playwright/test/cli.js');
    const first = await run(process.execPath, [cli, 'test', '--update-snapshots'], project, ENV());
    assert.equal(first.code, 0, first.out);
    const snapshots = await fs.readdir(path.join(project, 'pw/inbox.spec.mjs-snapshots'));
    assert.equal(snapshots.length, 1, snapshots.join());
    const text = await fs.readFile(path.join(project, 'pw/inbox.spec.mjs-snapshots', snapshots[0]), 'utf8');
    assert.match(text, /^inbox \(collection\)\n {2}properties\.label: "Inbox"\n/);
    assert.doesNotMatch(text, /msg-3|meta\.changed/);
    // A second run compares with the stored snapshot: the text is stable.
    const second = await run(process.execPath, [cli, 'test'], project, ENV());
    assert.equal(second.code, 0, second.out);
    assert.match(second.out, /3 passed/);
  });

  test('the tarball holds the extension, the core, the libraries and their types; no sources or tests', { timeout: TEST_TIMEOUT }, async () => {
    const list = (await run('tar', ['-tzf', tarball], tmp)).out.split('\n').filter(Boolean);
    for (const f of ['package/manifest.json', 'package/dist/slop_core.wasm', 'package/dist/slop_core.mjs',
      'package/extension/service-worker/sw.js', 'package/js-glue/node/playwright.js', 'package/js-glue/node/playwright.d.ts',
      'package/js-glue/node/client.js', 'package/js-glue/node/client.d.ts', 'package/js-glue/node/provider.d.ts',
      'package/bin/slop-inspector.js', 'package/README.md', 'package/LICENSE']) {
      assert.ok(list.includes(f), `${f} is in the tarball`);
    }
    // The README is a front page: the guide pages it links (docs/guide/, docs/*.md) ship with it.
    const readme = await fs.readFile(path.join(ROOT, 'README.md'), 'utf8');
    const linked = [...readme.matchAll(/\]\((docs\/[^)#\s]+\.md)/g)].map((m) => `package/${m[1]}`);
    assert.ok(linked.some((f) => f.startsWith('package/docs/guide/')), 'the README links the guide');
    for (const f of linked) assert.ok(list.includes(f), `${f} (linked from the README) is in the tarball`);
    for (const f of list) assert.doesNotMatch(f, /^package\/(tests|wasm|build|node_modules|\.ci)\//, f);
  });
});
