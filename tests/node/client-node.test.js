// The Node client (slop-inspector/node) and the terminal command, against the fixture providers:
// what a user's test of a page-less provider does, and each way it can fail.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CLI, runCli } from './helpers.js';
import { spawn } from 'node:child_process';
import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { StateEngine } from '../fixtures/provider/state.mjs';
import { connect, SlopTestError, SlopTestCode, stableText } from '../../js-glue/node/client.js';



async function rejectsWith(promise, code, pattern) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof SlopTestError, `a SlopTestError, got ${e?.name}: ${e?.message}`);
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

describe('Node client', () => {
  let srv;
  before(async () => {
    srv = await startWsProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true, engine: createMailEngine({ messages: 5 }) });
  });
  after(() => srv.close());

  test('connects with a token and reads the mirror the extension would show', async () => {
    const app = await connect(srv.wsUrl, { token: srv.token });
    try {
      const info = await app.info();
      assert.equal(info.status, 'connected');
      assert.equal(info.live, true);
      assert.equal(info.provider.name, 'Acme Mail');
      const inbox = await app.node('/inbox');
      assert.equal(inbox.path, '/inbox');
      assert.deepEqual(inbox.child_ids, ['msg-5', 'msg-4', 'msg-3', 'msg-2', 'msg-1']);
      assert.equal(inbox.children, undefined, 'a node view has child_ids, not children');
      const tree = await app.tree('/inbox', 1);
      assert.deepEqual(tree.children.map((c) => c.id), inbox.child_ids);
      assert.match(await app.text(), /^\[root\] acme-mail: Acme Mail/);
      assert.equal(await app.node('/inbox/nope'), null);
      const events = (await app.events()).map((e) => e.event);
      assert.deepEqual(events, ['hello', 'snapshot']);
      const frames = await app.frames();
      assert.deepEqual(frames.slice(0, 3).map((f) => `${f.dir} ${f.type}`), ['in hello', 'out subscribe', 'in snapshot']);
      const tools = await app.tools();
      assert.ok(tools.tools.some((t) => t.name === 'msg_1__delete' && t.dangerous === true), JSON.stringify(tools.tools.map((t) => t.name)));
    } finally {
      app.close();
    }
  });

  test('invoke: results, consent for dangerous actions, failures with the nearest tree', async () => {
    const app = await connect(srv.wsUrl, { token: srv.token });
    try {
      const r = await app.invoke('/inbox/msg-2', 'mark_unread');
      assert.equal(r.status, 'ok');
      const node = await app.waitFor('/inbox/msg-2', (n) => n?.properties.unread === true);
      assert.equal(node.properties.unread, true);

      await rejectsWith(app.invoke('/inbox/msg-1', 'delete'), SlopTestCode.DANGEROUS, /confirmDangerous/);
      assert.ok(await app.node('/inbox/msg-1'), 'nothing was sent');
      await app.invoke('/inbox/msg-1', 'delete', undefined, { confirmDangerous: true });
      assert.equal(await app.waitFor('/inbox/msg-1', (n) => n === null), null);

      await rejectsWith(app.invoke('/inbox/msg-3', 'fly'), SlopTestCode.NOT_FOUND, /has no affordance "fly" \(it has: open, mark_unread, move, delete\)/);
      await rejectsWith(app.invoke('/inbox/msg-99', 'open'), SlopTestCode.NOT_FOUND, /no node at \/inbox\/msg-99\nnearest node: \/inbox\n {2}inbox \(collection\)/);
      // Params outside the schema: the core refuses before sending (or the provider answers an error).
      await rejectsWith(app.invoke('/inbox/msg-3', 'move', { folder: 'moon' }), SlopTestCode.INVOKE_FAILED, /invoke "move" on \/inbox\/msg-3 refused: params.folder must be one of/);
      // The provider's own error result.
      await rejectsWith(app.invoke('/compose', 'send', { to: 'nobody', subject: 'x' }), SlopTestCode.INVOKE_FAILED,
        /invoke "send" on \/compose failed: invalid_params: not an email address: nobody/);
      await rejectsWith(app.waitFor('/inbox/msg-99', undefined, { timeout: 200 }), SlopTestCode.TIMEOUT,
        /provider ws:\/\/.*: timed out after 200 ms waiting for \/inbox\/msg-99 to exist; it is absent\nnearest node: \/inbox/);
      const results = (await app.events()).filter((e) => e.event === 'result');
      assert.ok(results.length >= 2);
    } finally {
      app.close();
    }
  });

  test('query and a second subscription', async () => {
    const app = await connect(srv.wsUrl, { token: srv.token });
    try {
      const q = await app.query({ path: '/inbox', depth: 1 });
      assert.equal(q.event, 'query');
      assert.equal(q.tree.id, 'inbox');
      const sub = await app.subscribe({ path: '/folders', depth: -1 });
      const st = await (async () => {
        for (let i = 0; i < 100; i++) {
          const s = await app.subscription(sub);
          if (s?.state === 'live') return s;
          await new Promise((r) => setTimeout(r, 20));
        }
        return app.subscription(sub);
      })();
      assert.equal(st.state, 'live');
      assert.equal((await app.tree('/folders', -1, { sub })).id, 'folders');
      await app.unsubscribe(sub);
    } finally {
      app.close();
    }
  });

  test('a stable snapshot text: sorted fields, volatile meta left out, values as sent', () => {
    const text = stableText({
      id: 'a', type: 'item', properties: { z: 1.50, a: 'x' }, meta: { changed: true, salience: 0.5 },
      affordances: [{ action: 'b', dangerous: true }, { action: 'a', params: { type: 'object', properties: {} } }],
      children: [{ id: 'c', type: 'note' }],
    });
    assert.equal(text, 'a (item)\n  properties.a: "x"\n  properties.z: 1.5\n  meta.salience: 0.5\n' +
      '  action a {"properties":{},"type":"object"}\n  action b [dangerous]\n  c (note)\n');
    assert.match(stableText({ id: 'a', type: 't', properties: { at: 5 } }, { replace: { 'properties.at': '<time>' } }), /properties.at: <time>/);
  });

  test('failures: wrong token, no token, nothing there, not a ws URL', async () => {
    await rejectsWith(connect(srv.wsUrl, { token: 'wrong-token', timeout: 5000 }), SlopTestCode.AUTH_FAILED, /refused/);
    await rejectsWith(connect(srv.wsUrl, { timeout: 5000 }), SlopTestCode.AUTH_FAILED, /refused the connection \(HTTP 401\): pass its token/);
    const gone = await startWsProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true });
    const url = gone.wsUrl;
    await gone.close();
    await rejectsWith(connect(url, { timeout: 5000 }), SlopTestCode.UNREACHABLE, /Nothing answers/);
    await rejectsWith(connect('http://127.0.0.1:1/slop'), SlopTestCode.UNREACHABLE, /not a ws:\/\/ or wss:\/\/ URL/);
    await rejectsWith(connect('not a url'), SlopTestCode.UNREACHABLE, /is not a URL/);
  });

  test('a drift check: same, then the provider changes its state without a patch', async () => {
    const engine = new StateEngine({ tree: { id: 'root', type: 'root', children: [
      { id: 'inbox', type: 'collection', children: [{ id: 'm7', type: 'item', properties: { unread: true } }] }] } });
    const p = await startWsProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true, engine });
    try {
      const app = await connect(p.wsUrl, { token: p.token });
      assert.equal((await app.checkDrift()).status, 'same');
      engine.root.children[0].children[0].properties.unread = false; // no patch goes out
      const d = await app.checkDrift();
      assert.equal(d.status, 'differs');
      assert.deepEqual(d.differences, [{ path: '/inbox/m7/properties/unread', mirror: true, provider: false }]);
      const f = (await app.conformance()).findings;
      assert.deepEqual(f.map((x) => [x.rule, x.path, x.detail]), [['drift', '/inbox/m7/properties/unread',
        `at version ${d.version} the patches give true, the provider's state is false`]]);
      app.close();
      // The command's own connection: the state changes silently while it watches.
      const earlier = new Set(p.sessions);
      const pending = runCli(['check', p.wsUrl, '--watch', '3000', '--drift'], { SLOP_TOKEN: p.token });
      // Once the command's own subscription has its snapshot, the state changes silently.
      const deadline = Date.now() + 10_000;
      while (![...p.sessions].some((s) => !earlier.has(s) && s.subscriptions.size > 0) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      await new Promise((r) => setTimeout(r, 100));
      engine.root.children[0].children[0].properties.unread = true;
      const r = await pending;
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stdout, /MUST drift .*\n {2}\/inbox\/m7\/properties\/unread v\d+: at version \d+ the patches give false, the provider's state is true/);
    } finally {
      await p.close();
    }
  });

  test('an Origin header for providers that check it', async () => {
    const strict = await startWsProvider({ host: '127.0.0.1', port: 0, allowedOrigins: ['http://tests.example'] });
    try {
      await rejectsWith(connect(strict.wsUrl, { token: strict.token, timeout: 5000 }), SlopTestCode.AUTH_FAILED);
      const app = await connect(strict.wsUrl, { token: strict.token, origin: 'http://tests.example' });
      assert.equal((await app.info()).live, true);
      app.close();
    } finally {
      await strict.close();
    }
  });
});

describe('slop-inspector command', () => {
  let srv;
  before(async () => {
    srv = await startWsProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true, engine: createMailEngine({ messages: 3 }) });
  });
  after(() => srv.close());

  test('tree, tools, invoke; the token from $SLOP_TOKEN', async () => {
    const env = { SLOP_TOKEN: srv.token };
    const tree = await runCli(['tree', srv.wsUrl], env);
    assert.equal(tree.code, 0, tree.stderr);
    assert.match(tree.stdout, /^\[root\] acme-mail: Acme Mail/);
    assert.match(tree.stdout, /\[item\] msg-3 /);
    const sub = await runCli(['tree', srv.wsUrl, '--path', '/inbox', '--depth', '1', '--json'], env);
    assert.deepEqual(JSON.parse(sub.stdout).children.map((c) => c.id), ['msg-3', 'msg-2', 'msg-1']);
    const tools = await runCli(['tools', srv.wsUrl], env);
    assert.ok(JSON.parse(tools.stdout).tools.length > 5);

    const refused = await runCli(['invoke', srv.wsUrl, '/inbox/msg-1', 'delete'], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /dangerous/);
    const done = await runCli(['invoke', srv.wsUrl, '/inbox/msg-1', 'delete', '--yes'], env);
    assert.equal(done.code, 0, done.stderr);
    assert.equal(JSON.parse(done.stdout).status, 'ok');
    const moved = await runCli(['invoke', srv.wsUrl, '/inbox/msg-2', 'move', '{"folder":"archive"}'], env);
    assert.equal(moved.code, 0, moved.stderr);
  });

  test('watch prints each patch as it comes', async () => {
    const child = spawn(process.execPath, [CLI, 'watch', srv.wsUrl], { env: { ...process.env, SLOP_TOKEN: srv.token } });
    let stdout = '';
    const seen = (re) => new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`watch printed no ${re} in 10 s:\n${stdout}`)), 10_000);
      const check = () => { if (re.test(stdout)) { clearTimeout(t); resolve(); } };
      child.stdout.on('data', (d) => { stdout += d; check(); });
      check();
    });
    try {
      await seen(/\[root\] acme-mail/);
      const app = await connect(srv.wsUrl, { token: srv.token });
      await app.invoke('/inbox/msg-3', 'mark_unread');
      app.close();
      await seen(/^v\d+ \d+ ops?: changed .*\/inbox\/msg-3/m);
    } finally {
      child.kill('SIGINT');
    }
  });

  test('check: the conformance report; exit 3 on a MUST finding, --allow to accept one', async () => {
    const ok = await runCli(['check', srv.wsUrl, '--watch', '100'], { SLOP_TOKEN: srv.token });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^0 MUST and 0 SHOULD findings; 41 rules checked over \d+ frames and \d+ mirrored nodes/);
    // A repeated action (MUST: it cannot be invoked), an out-of-range salience and an unknown type
    // (SHOULD). The fixture engine refuses a repeated action up front; a real provider may send one.
    const engine = new StateEngine({
      tree: { id: 'root', type: 'root', children: [{ id: 'n', type: 'gadget', meta: { salience: 3 }, affordances: [{ action: 'go' }] }] } });
    engine.root.children[0].affordances.push({ action: 'go' });
    const bad = await startWsProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true, engine });
    try {
      const env = { SLOP_TOKEN: bad.token };
      const r = await runCli(['check', bad.wsUrl, '--watch', '0'], env);
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stdout, /^1 MUST and 2 SHOULD findings/);
      assert.match(r.stdout, /\nMUST affordance-action \(1×, spec: affordances\): Each affordance is an object with a non-empty string action, unique within its node\.\n {2}\/n v\d+: action "go" appears twice\n/);
      assert.match(r.stdout, /\nSHOULD meta-salience \(1×, spec: attention\): meta\.salience is a number from 0 to 1\.\n {2}\/n v\d+: meta\.salience is out of 0\.\.1\n/);
      assert.match(r.stdout, /\nSHOULD node-type /);
      const allowed = await runCli(['check', bad.wsUrl, '--watch', '0', '--allow', 'affordance-action'], env);
      assert.equal(allowed.code, 0);
      const md = await runCli(['check', bad.wsUrl, '--watch', '0', '--markdown'], env);
      assert.match(md.stdout, /^# SLOP conformance: SLOP fixture provider\n/);
      assert.match(md.stdout, /\n## MUST: `affordance-action` \(1×\)\n/);
      assert.match(md.stdout, /\n## SHOULD: `meta-salience` \(1×\)\n/);
      const json = JSON.parse((await runCli(['check', bad.wsUrl, '--watch', '0', '--json'], env)).stdout);
      assert.deepEqual(json.findings.map((f) => f.rule).sort(), ['affordance-action', 'meta-salience', 'node-type']);
    } finally {
      await bad.close();
    }
  });

  test('usage and connection errors', async () => {
    const none = await runCli([]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /usage:/);
    assert.equal((await runCli(['fly', srv.wsUrl])).code, 2);
    assert.equal((await runCli(['invoke', srv.wsUrl, '/inbox'])).code, 2);
    assert.equal((await runCli(['invoke', srv.wsUrl, '/inbox', 'search', '{bad'])).code, 2);
    const wrong = await runCli(['tree', srv.wsUrl], { SLOP_TOKEN: 'wrong' });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /refused the connection \(HTTP 401\): give its token with \$SLOP_TOKEN/);
    assert.doesNotMatch(wrong.stderr, /wrong/, 'the token is never printed');
    // A page's address is read for its provider: none answers at this one.
    const bad = await runCli(['tree', 'http://127.0.0.1:1/']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Nothing answers at http:\/\/127\.0\.0\.1:1/);
  });
});
