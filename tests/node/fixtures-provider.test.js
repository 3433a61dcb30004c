// Tests of the test provider itself (tests/fixtures/provider/ws-server.mjs + state.mjs) over a
// real WebSocket, with `ws` as the client. 127.0.0.1 and ephemeral ports only.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import WebSocket from 'ws';
import { startWsProvider, originAllowed, tokensEqual } from '../fixtures/provider/ws-server.mjs';
import { StateEngine, ALL_CAPABILITIES } from '../fixtures/provider/state.mjs';
import { createMailEngine, createTodoEngine } from '../fixtures/demo-trees.mjs';

const EXT_ORIGIN = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';

// Open a client; resolves with { ws, next, all } once open, or { status } on an HTTP refusal.
function open(srv, { token = srv.token, origin = EXT_ORIGIN, protocols, headers } = {}) {
  const offered = protocols ?? (token === null ? undefined : ['slop.bearer', token]);
  const ws = new WebSocket(srv.wsUrl, offered, { origin: origin ?? undefined, headers });
  const all = [];
  const waiters = [];
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString());
    all.push(m);
    for (const w of [...waiters]) {
      const i = all.findIndex((x, k) => k >= w.from && w.pred(x));
      if (i >= 0) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(all[i]);
      }
    }
  });
  let cursor = 0;
  // next(pred): the next message (after the previous next()) that matches.
  const next = (pred = () => true, timeoutMs = 2000) => {
    const p = typeof pred === 'string' ? (m) => m.type === pred : pred;
    const i = all.findIndex((x, k) => k >= cursor && p(x));
    if (i >= 0) {
      cursor = i + 1;
      return Promise.resolve(all[i]);
    }
    return new Promise((resolve, reject) => {
      const w = { from: cursor, pred: p, resolve: (m) => { clearTimeout(t); cursor = all.indexOf(m) + 1; resolve(m); } };
      const t = setTimeout(() => reject(new Error('timed out waiting for a message')), timeoutMs);
      waiters.push(w);
    });
  };
  return new Promise((resolve) => {
    ws.once('open', () => resolve({ ws, next, all, send: (m) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)) }));
    ws.once('unexpected-response', (req, res) => {
      resolve({ status: res.statusCode });
      req.destroy();
    });
    ws.once('error', (error) => resolve({ error }));
  });
}

async function withServer(opts, fn) {
  const logs = [];
  const srv = await startWsProvider({ log: (l) => logs.push(l), ...opts });
  try {
    await fn(srv, logs);
  } finally {
    await srv.close();
  }
}

test('gate: right token is accepted and exactly slop.bearer is echoed; hello comes first', async () => {
  await withServer({ engine: createTodoEngine() }, async (srv, logs) => {
    const c = await open(srv);
    assert.equal(c.ws.protocol, 'slop.bearer');
    const hello = await c.next();
    assert.equal(hello.type, 'hello');
    assert.deepEqual(hello.provider, { id: 'todo-spa', name: 'Todo SPA', slop_version: '0.1', capabilities: [...ALL_CAPABILITIES] });
    c.ws.close();
    assert.ok(logs.length > 0 && logs.every((l) => !l.includes(srv.token)));
  });
});

test('gate: wrong or missing token → 401, bad or null Origin → 403, token never logged', async () => {
  await withServer({}, async (srv, logs) => {
    assert.equal((await open(srv, { token: 'wrong-token' })).status, 401);
    assert.equal((await open(srv, { token: srv.token + 'x' })).status, 401);
    assert.equal((await open(srv, { token: null })).status, 401);
    // The token without the slop.bearer label is not the agreed scheme.
    assert.equal((await open(srv, { protocols: [srv.token] })).status, 401);
    assert.equal((await open(srv, { origin: 'https://evil.example' })).status, 403);
    assert.equal((await open(srv, { origin: 'null' })).status, 403);
    assert.equal((await open(srv, { origin: 'chrome-extension://evil.example.com' })).status, 403);
    assert.equal((await open(srv, { origin: null })).status, 403); // missing Origin, not allowed by default
    const ff = await open(srv, { origin: 'moz-extension://0b8e5e1a-3c1f-4f0e-9d5e-123456789abc' });
    assert.equal(ff.ws.protocol, 'slop.bearer');
    ff.ws.close();
    assert.ok(logs.some((l) => l.includes('401')) && logs.some((l) => l.includes('403')));
    for (const l of logs) assert.ok(!l.includes(srv.token), 'token leaked into the log');
  });
});

test('gate: exact-origin allowlist, missing Origin with Authorization header, authRequired false', async () => {
  await withServer({ allowedOrigins: ['http://127.0.0.1:9'], allowMissingOrigin: true }, async (srv) => {
    const ok = await open(srv, { origin: 'http://127.0.0.1:9' });
    assert.equal(ok.ws.protocol, 'slop.bearer');
    ok.ws.close();
    assert.equal((await open(srv)).status, 403); // extension prefixes not in this allowlist
    const cli = await open(srv, { origin: null, token: null, headers: { Authorization: `Bearer ${srv.token}` } });
    assert.equal(cli.ws.protocol, '');
    cli.ws.close();
  });
  await withServer({ authRequired: false }, async (srv) => {
    const c = await open(srv, { token: null });
    assert.equal((await c.next()).type, 'hello');
    c.ws.close();
  });
  assert.equal(originAllowed('null', { allowedOrigins: ['null'] }), false);
  assert.equal(tokensEqual('abc', 'abc'), true);
  assert.equal(tokensEqual('abc', 'abcd'), false);
});

test('gate: noSubprotocolEcho accepts without a Sec-WebSocket-Protocol header', async () => {
  await withServer({ noSubprotocolEcho: true }, async (srv) => {
    const ws = new WebSocket(srv.wsUrl, ['slop.bearer', srv.token], { origin: EXT_ORIGIN });
    const upgraded = new Promise((resolve) => ws.once('upgrade', (res) => resolve(res.headers['sec-websocket-protocol'])));
    const failed = new Promise((resolve) => ws.once('error', resolve));
    assert.equal(await upgraded, undefined);
    const err = await failed;
    assert.match(err.message, /no subprotocol/); // what Chrome also does; Firefox opens
  });
});

test('subscribe: snapshot seq 0, then patches with seq+1, moves and escaped keys', async () => {
  const engine = createTodoEngine();
  await withServer({ engine }, async (srv) => {
    const c = await open(srv);
    await c.next('hello');
    c.send({ type: 'subscribe', id: 'sub-a', path: '/todos', depth: -1 });
    const snap = await c.next('snapshot');
    assert.equal(snap.id, 'sub-a');
    assert.equal(snap.seq, 0);
    assert.equal(snap.version, engine.version);
    assert.deepEqual(snap.tree.children.map((t) => t.id), ['t1', 't2', 't3']);

    engine.mutate((root) => {
      root.children[0].children[0].properties.done = true;
      root.children[0].properties['a/b~c'] = 1;
    });
    const p1 = await c.next('patch');
    assert.equal(p1.subscription, 'sub-a');
    assert.equal(p1.seq, 1);
    assert.equal(p1.version, snap.version + 1);
    assert.deepEqual(p1.ops, [
      { op: 'add', path: '/properties/a~1b~0c', value: 1 },
      { op: 'replace', path: '/t1/properties/done', value: true },
    ]);

    engine.mutate((root) => {
      const kids = root.children[0].children;
      kids.reverse(); // t3, t2, t1
    });
    const p2 = await c.next('patch');
    assert.equal(p2.seq, 2);
    assert.ok(p2.ops.every((o) => o.op === 'move'));
    assert.deepEqual(p2.ops[0], { op: 'move', path: '/t3', index: 0 });

    // A change outside the subscribed subtree bumps the version but sends nothing.
    engine.mutate((root) => { root.properties.label = 'Renamed'; });
    c.send({ type: 'query', id: 'q-after', path: '/', depth: 0 });
    const q = await c.next((m) => m.type === 'snapshot' || m.type === 'patch');
    assert.equal(q.id, 'q-after');
    assert.equal(q.version, p2.version + 1);
    c.ws.close();
  });
});

test('query: window honored with meta.total_children / meta.window, no seq', async () => {
  await withServer({ engine: createMailEngine() }, async (srv) => {
    const c = await open(srv);
    await c.next('hello');
    c.send({ type: 'query', id: 'q-1', path: '/inbox', depth: 1, window: [10, 5] });
    const q = await c.next('snapshot');
    assert.equal(q.id, 'q-1');
    assert.equal('seq' in q, false);
    assert.deepEqual(q.tree.children.map((m) => m.id), ['msg-290', 'msg-289', 'msg-288', 'msg-287', 'msg-286']);
    assert.equal(q.tree.meta.total_children, 300);
    assert.deepEqual(q.tree.meta.window, [10, 5]);
    // The subscription sees the provider's default window (newest 50).
    c.send({ type: 'subscribe', id: 'sub-inbox', path: '/inbox', depth: 1 });
    const s = await c.next('snapshot');
    assert.equal(s.tree.children.length, 50);
    assert.deepEqual(s.tree.meta.window, [0, 50]);
    c.ws.close();
  });
  // Without `windowing` the window is ignored and the full list comes back.
  const caps = ALL_CAPABILITIES.filter((x) => x !== 'windowing');
  await withServer({ engine: createMailEngine({ capabilities: caps, messages: 80 }) }, async (srv) => {
    const c = await open(srv);
    await c.next('hello');
    c.send({ type: 'query', id: 'q-2', path: '/inbox', depth: 1, window: [0, 5] });
    const q = await c.next('snapshot');
    assert.equal(q.tree.children.length, 80);
    assert.equal(q.tree.meta.window, undefined);
    c.ws.close();
  });
});

test('invoke: patches before ok result; invalid_params; not_found; read_content', async () => {
  const engine = createMailEngine();
  await withServer({ engine }, async (srv) => {
    const c = await open(srv);
    await c.next('hello');
    c.send({ type: 'subscribe', id: 's', path: '/', depth: -1 });
    await c.next('snapshot');

    c.send({ type: 'invoke', id: 'inv-1', path: '/compose', action: 'send', params: { to: 'grace@acme.example', subject: 'Hi', cc: ['a@b.c'], priority: 'high' } });
    const first = await c.next((m) => m.type === 'patch' || m.type === 'result');
    assert.equal(first.type, 'patch', 'state changes must arrive before the result');
    const r1 = await c.next('result');
    assert.deepEqual(r1, { type: 'result', id: 'inv-1', status: 'ok', data: { message_id: 'sent-1' } });

    const bad = async (id, msg) => {
      c.send({ type: 'invoke', id, ...msg });
      return c.next((m) => m.type === 'result' && m.id === id);
    };
    let r = await bad('inv-2', { path: '/compose', action: 'send', params: { to: 'x@y.z', subject: 'S', cc: ['a@b.c', 7] } });
    assert.deepEqual(r.error, { code: 'invalid_params', message: 'params.cc[1] must be a string' });
    r = await bad('inv-3', { path: '/compose', action: 'send', params: { to: 'x@y.z' } });
    assert.deepEqual(r.error, { code: 'invalid_params', message: 'params.subject is required' });
    r = await bad('inv-4', { path: '/compose', action: 'send', params: { to: 'x@y.z', subject: 'S', priority: 'urgent' } });
    assert.equal(r.error.code, 'invalid_params');
    assert.match(r.error.message, /params\.priority must be one of/);
    r = await bad('inv-5', { path: '/nowhere', action: 'send' });
    assert.equal(r.status, 'error');
    assert.equal(r.error.code, 'not_found');
    r = await bad('inv-6', { path: '/compose', action: 'launch_rockets' });
    assert.equal(r.error.code, 'not_found');
    r = await bad('inv-7', { path: '/docs/readme', action: 'read_content' });
    assert.equal(r.status, 'ok');
    assert.match(r.data.content, /^# Acme Mail/);
    c.ws.close();
  });
});

test('invoke: not_supported without `affordances`, and the tree carries no affordances', async () => {
  const engine = createTodoEngine({ capabilities: ['state', 'patches'] });
  await withServer({ engine }, async (srv) => {
    const c = await open(srv);
    assert.deepEqual((await c.next('hello')).provider.capabilities, ['state', 'patches']);
    c.send({ type: 'query', id: 'q', path: '/', depth: -1 });
    const q = await c.next('snapshot');
    assert.ok(!JSON.stringify(q.tree).includes('"affordances"'));
    c.send({ type: 'invoke', id: 'inv', path: '/todos/t1', action: 'toggle' });
    const r = await c.next('result');
    assert.deepEqual(r, { type: 'result', id: 'inv', status: 'error', error: { code: 'not_supported', message: r.error.message } });
    assert.equal(engine.get('/todos/t1').properties.done, false);
    c.ws.close();
  });
});

test('no patches without `patches`: subscribe still answers with a snapshot', async () => {
  const engine = createTodoEngine({ capabilities: ['state', 'affordances'] });
  await withServer({ engine }, async (srv) => {
    const c = await open(srv);
    await c.next('hello');
    c.send({ type: 'subscribe', id: 's', path: '/' });
    assert.equal((await c.next('snapshot')).seq, 0);
    c.send({ type: 'invoke', id: 'i', path: '/todos/t1', action: 'toggle' });
    const r = await c.next((m) => m.type === 'result' || m.type === 'patch');
    assert.equal(r.type, 'result');
    assert.equal(c.all.filter((m) => m.type === 'patch').length, 0);
    c.ws.close();
  });
});

test('async: accepted with data.taskId, task node patched in first, progress, then done', async () => {
  const engine = createMailEngine({ messages: 30, taskStepMs: 5 });
  await withServer({ engine }, async (srv) => {
    const c = await open(srv);
    await c.next('hello');
    c.send({ type: 'subscribe', id: 's', path: '/', depth: -1 });
    await c.next('snapshot');
    c.send({ type: 'invoke', id: 'arch', path: '/inbox', action: 'archive_all' });
    const first = await c.next((m) => m.type === 'patch' || m.type === 'result');
    assert.equal(first.type, 'patch');
    const add = first.ops.find((o) => o.path === '/tasks');
    assert.equal(add.value.children[0].type, 'status');
    assert.deepEqual(Object.keys(add.value.children[0].properties).slice(0, 4), ['action', 'status', 'progress', 'message']);
    const res = await c.next('result');
    assert.equal(res.status, 'accepted');
    const taskId = res.data.taskId;
    assert.equal(add.value.children[0].id, taskId);
    const progress = [];
    for (;;) {
      const p = await c.next('patch');
      for (const o of p.ops) {
        if (o.path === `/tasks/${taskId}/properties/progress`) progress.push(o.value);
      }
      if (p.ops.some((o) => o.path === `/tasks/${taskId}/properties/status` && o.value === 'done')) break;
    }
    assert.ok(progress.length >= 2);
    assert.deepEqual([...progress].sort((a, b) => a - b), progress);
    assert.equal(engine.get('/inbox').children.length, 0);
    assert.equal(engine.get(`/tasks/${taskId}`).properties.progress, 1);
    c.ws.close();
  });
});

test('async without `async`: never accepted; the result is ok once the task finished', async () => {
  const caps = ALL_CAPABILITIES.filter((x) => x !== 'async');
  await withServer({ engine: createMailEngine({ messages: 10, taskStepMs: 2, capabilities: caps }) }, async (srv) => {
    const c = await open(srv);
    await c.next('hello');
    c.send({ type: 'invoke', id: 'arch', path: '/inbox', action: 'archive_all' });
    const r = await c.next('result');
    assert.deepEqual(r, { type: 'result', id: 'arch', status: 'ok', data: { archived: 10 } });
    c.ws.close();
  });
});

test('errors: unknown type → bad_request, unknown path → not_found with id, malformed JSON', async () => {
  await withServer({ engine: new StateEngine() }, async (srv) => {
    const c = await open(srv);
    await c.next('hello');
    c.send({ type: 'frobnicate', id: 'x-1' });
    assert.deepEqual((await c.next('error')), { type: 'error', id: 'x-1', error: { code: 'bad_request', message: 'Unknown message type "frobnicate"' } });
    c.send({ type: 'subscribe', id: 'sub-404', path: '/nonexistent' });
    const e = await c.next('error');
    assert.equal(e.id, 'sub-404');
    assert.equal(e.error.code, 'not_found');
    c.send('{"type":');
    assert.equal((await c.next('error')).error.code, 'bad_request');
    c.send({ type: 'query', id: 'q', path: '/', window: 'all' });
    assert.equal((await c.next('error')).error.code, 'bad_request');
    assert.equal(c.all.filter((m) => m.type === 'snapshot').length, 0);
    c.ws.close();
  });
});

test('http: /.well-known/slop descriptor, templated pages, static modules, no traversal', async () => {
  await withServer({ engine: createMailEngine(), alt: true }, async (srv) => {
    const wk = await fetch(srv.url('/.well-known/slop'));
    assert.equal(wk.status, 200);
    assert.match(wk.headers.get('content-type'), /^application\/json/);
    assert.deepEqual(await wk.json(), {
      id: 'acme-mail', name: 'Acme Mail', slop_version: '0.1', capabilities: [...ALL_CAPABILITIES],
      transport: { type: 'ws', url: srv.wsUrl },
    });
    const meta = await (await fetch(srv.url('/pages/meta-ws.html'))).text();
    assert.ok(meta.includes(`<meta name="slop" content="${srv.wsUrl}">`));
    assert.ok(!meta.includes(srv.token));
    const wkPage = await (await fetch(srv.url('/pages/wellknown.html'))).text();
    assert.ok(!wkPage.includes('name="slop"'));
    const forged = await (await fetch(srv.url('/pages/forged.html'))).text();
    assert.ok(forged.includes(`const alt = '${srv.altOrigin}'`));
    const mod = await fetch(srv.url('/provider/state.mjs'));
    assert.match(mod.headers.get('content-type'), /^text\/javascript/);
    assert.equal((await fetch(srv.url('/pages/%2e%2e/%2e%2e/package.json'))).status, 404);
    const raw = await new Promise((resolve) => {
      http.get({ host: '127.0.0.1', port: srv.port, path: '/../../package.json' }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
    });
    assert.equal(raw, 404);
    assert.equal((await fetch(srv.altUrl('/.well-known/slop'))).status, 200);
  });
});
