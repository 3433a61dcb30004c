// native-host.test.js: the native messaging host's protocol (js-glue/native-host-protocol.js:
// framing, chunking of host → browser messages over the browser's 1 MB, the limits) and the host
// itself (bin/slop-native-host.js) spawned as the browser spawns it, against a Unix-socket
// provider, a stdio provider and refused directories.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  HOST_NAME, ToHost, FromHost, NATIVE_LIMITS, frameNative, nativeReader, encodeForBrowser, splitText, chunkJoiner, utf8Length,
} from '../../js-glue/native-host-protocol.js';
import { startUnixProvider, registerDescriptor } from '../fixtures/provider/local-server.mjs';
import { createTodoEngine } from '../fixtures/demo-trees.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HOST = path.join(ROOT, 'bin/slop-native-host.js');
const LOCAL_SERVER = path.join(ROOT, 'tests/fixtures/provider/local-server.mjs');

/** The todo list on a Unix socket, announced in dir. */
async function startTodo(dir, id = 'todo-local') {
  const engine = createTodoEngine();
  const srv = await startUnixProvider({ path: path.join(dir, `${id}.sock`), engine });
  const descriptor = { id, name: 'Todo (local socket)', transport: { type: 'unix', path: srv.path }, pid: process.pid };
  const file = registerDescriptor(dir, descriptor);
  return { descriptor, async close() { await srv.close(); engine.close(); await fs.rm(file, { force: true }); } };
}

test('the host name is a valid native messaging name', () => {
  assert.match(HOST_NAME, /^[a-z0-9_]+(\.[a-z0-9_]+)*$/);
});

test('framing: a 4-byte little-endian length and UTF-8 JSON, read back across arbitrary cuts', () => {
  const msgs = [{ type: 'list' }, { type: 'send', channel: 1, text: '{"type":"subscribe","x":"é€😀"}' }];
  const bytes = Buffer.concat(msgs.map((m) => frameNative(JSON.stringify(m))));
  assert.equal(bytes.readUInt32LE(0), Buffer.byteLength(JSON.stringify(msgs[0])));
  for (const cut of [1, 2, 3, 5, 7, 13]) {
    const got = [];
    const errors = [];
    const r = nativeReader({ onMessage: (m) => got.push(m), onError: (w) => errors.push(w) });
    for (let i = 0; i < bytes.length; i += cut) r.push(bytes.subarray(i, i + cut));
    assert.deepEqual(got, msgs);
    assert.deepEqual(errors, []);
    assert.equal(r.pending(), 0);
  }
});

test('framing: a message over the cap is refused in words and skipped; the next one is read', () => {
  const got = [];
  const errors = [];
  const r = nativeReader({ maxBytes: 100, onMessage: (m) => got.push(m), onError: (w) => errors.push(w) });
  const big = frameNative(JSON.stringify({ type: 'send', text: 'x'.repeat(200) }));
  r.push(big.subarray(0, 50));
  r.push(Buffer.concat([big.subarray(50), frameNative('{"type":"list"}')]));
  assert.deepEqual(got, [{ type: 'list' }]);
  assert.equal(errors.length, 1);
  assert.match(errors[0], /over the 100 bytes a message may have: refused/);
});

test('framing: a broken length prefix (raw JSON without one) is refused in words, never taken as 2 GB to buffer', () => {
  const errors = [];
  const r = nativeReader({ onMessage: () => assert.fail('no message'), onError: (w) => errors.push(w) });
  r.push(Buffer.from('{"type":"list"}'));
  assert.equal(errors.length, 1);
  assert.match(errors[0], /length prefix says \d+ bytes\) is over the 64 MiB/);
});

test('framing: not JSON, not UTF-8, not an object with a type: each refused in words, reading goes on', () => {
  const errors = [];
  const got = [];
  const r = nativeReader({ onMessage: (m) => got.push(m), onError: (w) => errors.push(w) });
  const raw = (b) => { const h = Buffer.alloc(4); h.writeUInt32LE(b.length); return Buffer.concat([h, b]); };
  r.push(raw(Buffer.from('{nope')));
  r.push(raw(Buffer.from([0x22, 0xff, 0x22])));
  r.push(raw(Buffer.from('[1]')));
  r.push(raw(Buffer.from('')));
  r.push(frameNative('{"type":"close","channel":2}'));
  assert.deepEqual(got, [{ type: 'close', channel: 2 }]);
  assert.equal(errors.length, 4);
  assert.match(errors[0], /not JSON/);
  assert.match(errors[1], /not UTF-8/);
  assert.match(errors[2], /not an object with a type/);
});

test('chunking: a message under 1 MB goes whole; a 3 MB frame with quotes, non-ASCII and emoji goes in chunks each under 1 MB, and joins back equal', () => {
  assert.deepEqual(encodeForBrowser({ type: 'frame', channel: 1, text: 'small' }, { id: 1 }), ['{"type":"frame","channel":1,"text":"small"}']);
  const unit = '{"a":"\\"q\\"","é":"€😀","n":[1,2,3]}\n';
  const text = unit.repeat(Math.ceil(3 * 1024 * 1024 / unit.length));
  const msg = { type: FromHost.FRAME, channel: 7, text };
  const texts = encodeForBrowser(msg, { id: 42 });
  assert.ok(texts.length >= 6, `${texts.length} chunks`);
  for (const t of texts) assert.ok(utf8Length(t) <= NATIVE_LIMITS.TO_BROWSER_MAX, `a chunk of ${utf8Length(t)} bytes`);
  const j = chunkJoiner();
  let out = null;
  texts.forEach((t, i) => {
    const r = j.add(JSON.parse(t));
    if (i < texts.length - 1) assert.equal(r, null);
    else out = r;
  });
  assert.deepEqual(out, { message: msg });
  assert.equal(j.pending, 0);
});

test('chunking: a part never splits a surrogate pair, whatever the part size', () => {
  const text = JSON.stringify({ t: '😀'.repeat(50) + 'x' });
  for (const partBytes of [6, 7, 9, 10, 11]) {
    const chunks = splitText(text, { id: 1, partBytes });
    for (const c of chunks) {
      assert.ok(!/[\ud800-\udbff]$/.test(c.part) && !/^[\udc00-\udfff]/.test(c.part), `part ${JSON.stringify(c.part)}`);
      assert.ok(utf8Length(JSON.stringify(c.part)) <= partBytes || c.part.length <= 2);
    }
    assert.equal(chunks.map((c) => c.part).join(''), text);
    assert.equal(chunks.at(-1).last, true);
  }
});

test('chunking: over the joined cap is refused in words, its later chunks dropped, the next message joins', () => {
  const j = chunkJoiner({ maxBytes: 1000 });
  const big = splitText(JSON.stringify({ type: 'frame', channel: 1, text: 'y'.repeat(3000) }), { id: 1, partBytes: 400 });
  const answers = big.map((c) => j.add(c)).filter(Boolean);
  assert.equal(answers.length, 1);
  assert.match(answers[0].error, /over the 1000 bytes a message may have .*: refused/);
  assert.equal(j.pending, 0);
  const ok = splitText(JSON.stringify({ type: 'open', channel: 2 }), { id: 2, partBytes: 10 });
  const last = ok.map((c) => j.add(c)).at(-1);
  assert.deepEqual(last, { message: { type: 'open', channel: 2 } });
});

test('chunking: out of order or without the first chunk is dropped in words', () => {
  const j = chunkJoiner();
  const cs = splitText(JSON.stringify({ type: 'frame', text: 'z'.repeat(100) }), { id: 5, partBytes: 30 });
  assert.match(j.add(cs[1]).error, /without its first/);
  assert.equal(j.add(cs[0]), null);
  assert.match(j.add(cs[2]).error, /out of order/);
});

// ------------------------------------------------------------------------ the host itself

/** Spawns the host; returns {send, next(pred), stderr, close}. */
function spawnHost(env) {
  const child = spawn(process.execPath, [HOST, 'chrome-extension://x/'], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const got = [];
  const waiters = [];
  let stderr = '';
  const joiner = chunkJoiner();
  const deliver = (m) => {
    if (m.type === FromHost.CHUNK) {
      const r = joiner.add(m);
      if (!r) return;
      if (r.error) throw new Error(r.error);
      m = r.message;
    }
    got.push(m);
    for (const w of [...waiters]) if (w.pred(m)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(m); }
  };
  const reader = nativeReader({ maxBytes: 2 * 1024 * 1024, onMessage: deliver, onError: (w) => { stderr += `[reader] ${w}\n`; } });
  child.stdout.on('data', (b) => reader.push(b));
  child.stderr.on('data', (b) => { stderr += b; });
  return {
    got,
    get stderr() { return stderr; },
    send: (m) => child.stdin.write(frameNative(JSON.stringify(m))),
    next(pred, what = 'a message', timeout = 10_000) {
      const hit = got.find(pred);
      if (hit) { got.splice(got.indexOf(hit), 1); return Promise.resolve(hit); }
      return new Promise((resolve, reject) => {
        const w = { pred, resolve: (m) => { clearTimeout(timer); got.splice(got.indexOf(m), 1); resolve(m); } };
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(got).slice(0, 400)}; stderr ${stderr}`)), timeout);
        waiters.push(w);
      });
    },
    close: () => new Promise((resolve) => { child.on('exit', (code) => resolve(code)); child.stdin.end(); }),
  };
}

test('the host lists local apps, says why a directory is refused, and pushes the list again when a directory changes', { timeout: 30_000 }, async () => {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'slop-host-'));
  const good = path.join(tmp, 'providers');
  const open = path.join(tmp, 'open');
  await fs.mkdir(open, { mode: 0o755 });
  await fs.chmod(open, 0o755);
  const p = await startTodo(good);
  const host = spawnHost({ SLOP_PROVIDER_DIRS: `${good}:${open}` });
  try {
    host.send({ type: ToHost.LIST });
    const list = await host.next((m) => m.type === FromHost.LOCAL_PROVIDERS, 'the list');
    assert.deepEqual(list.providers.map((x) => [x.id, x.transport.type, x.alive]), [['todo-local', 'unix', true]]);
    assert.equal(list.refused.length, 1);
    assert.equal(list.refused[0].dir, open);
    assert.match(`${list.refused[0].why} ${list.refused[0].fix}`, /0755[\s\S]*chmod 700 /);
    registerDescriptor(good, { ...p.descriptor, id: 'later', name: 'Later' });
    const again = await host.next((m) => m.type === FromHost.LOCAL_PROVIDERS && m.providers.length === 2, 'the list with the new descriptor');
    assert.deepEqual(again.providers.map((x) => x.id).sort(), ['later', 'todo-local']);
  } finally {
    assert.equal(await host.close(), 0);
    await p.close();
    await fs.rm(tmp, { recursive: true, force: true });
  }
});

test('the host opens a Unix-socket app and relays frames as text both ways; a frame over 1 MB arrives in chunks, joined', { timeout: 30_000 }, async () => {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'slop-host-'));
  const dir = path.join(tmp, 'providers');
  const p = await startTodo(dir);
  // A second, raw provider that answers any line with one 3 MB line.
  const bigSock = path.join(dir, 'big.sock');
  const bigText = JSON.stringify({ type: 'snapshot', big: 'ü"'.repeat(1024 * 1024) });
  const server = net.createServer((s) => {
    s.write('{"type":"hello","provider":{"id":"big","name":"Big","slop_version":"0.1","capabilities":["state"]}}\n');
    s.on('data', () => s.write(`${bigText}\n`));
    s.on('error', () => {});
  });
  await new Promise((r) => server.listen(bigSock, r));
  await fs.writeFile(path.join(dir, 'big.json'), JSON.stringify({ id: 'big', name: 'Big', slop_version: '0.1', capabilities: ['state'], transport: { type: 'unix', path: bigSock } }), { mode: 0o600 });
  const host = spawnHost({ SLOP_PROVIDER_DIRS: dir });
  try {
    host.send({ type: ToHost.OPEN, channel: 1, id: 'todo-local' });
    await host.next((m) => m.type === FromHost.OPEN && m.channel === 1, 'open');
    const hello = await host.next((m) => m.type === FromHost.FRAME && m.channel === 1, 'hello');
    assert.equal(typeof hello.text, 'string');
    assert.match(hello.text, /"type":"hello"/);
    host.send({ type: ToHost.SEND, channel: 1, text: JSON.stringify({ type: 'subscribe', id: 'sub-x', path: '/', depth: -1 }) });
    const snap = await host.next((m) => m.type === FromHost.FRAME && m.channel === 1, 'snapshot');
    assert.match(snap.text, /"type":"snapshot"/);

    host.send({ type: ToHost.OPEN, channel: 2, id: 'big' });
    await host.next((m) => m.type === FromHost.FRAME && m.channel === 2, 'big hello');
    host.send({ type: ToHost.SEND, channel: 2, text: '{"type":"subscribe","id":"s","path":"/"}' });
    const big = await host.next((m) => m.type === FromHost.FRAME && m.channel === 2, 'the 3 MB frame');
    assert.equal(big.text, bigText);

    host.send({ type: ToHost.CLOSE, channel: 1 });
    host.send({ type: ToHost.OPEN, channel: 3, id: 'nobody' });
    const gone = await host.next((m) => m.type === FromHost.CLOSED && m.channel === 3, 'closed');
    assert.equal(gone.info.opened, false);
    assert.match(gone.info.message, /No local app "nobody"/);
  } finally {
    assert.equal(await host.close(), 0);
    server.close();
    await p.close();
    await fs.rm(tmp, { recursive: true, force: true });
  }
});

test('a stdio app runs only with its exact command approved', { timeout: 30_000 }, async () => {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'slop-host-'));
  const dir = path.join(tmp, 'providers');
  await fs.mkdir(dir, { mode: 0o700 });
  const command = [process.execPath, LOCAL_SERVER, 'stdio'];
  await fs.writeFile(path.join(dir, 'todo-stdio.json'), JSON.stringify({ id: 'todo-stdio', name: 'Todo (stdio)', slop_version: '0.1', capabilities: ['state'], transport: { type: 'stdio', command } }), { mode: 0o600 });
  const host = spawnHost({ SLOP_PROVIDER_DIRS: dir });
  try {
    host.send({ type: ToHost.OPEN, channel: 1, id: 'todo-stdio' });
    const refused = await host.next((m) => m.type === FromHost.CLOSED && m.channel === 1, 'the refusal');
    assert.equal(refused.info.kind, 'approval');
    assert.deepEqual(refused.info.command, command);
    host.send({ type: ToHost.OPEN, channel: 2, id: 'todo-stdio', approvedCommand: [...command.slice(0, 2), '--other'] });
    assert.equal((await host.next((m) => m.type === FromHost.CLOSED && m.channel === 2, 'the second refusal')).info.kind, 'approval');
    host.send({ type: ToHost.OPEN, channel: 3, id: 'todo-stdio', approvedCommand: command });
    const hello = await host.next((m) => m.type === FromHost.FRAME && m.channel === 3, 'hello');
    assert.match(hello.text, /"type":"hello"/);
    host.send({ type: ToHost.CLOSE, channel: 3 });
  } finally {
    assert.equal(await host.close(), 0);
    await fs.rm(tmp, { recursive: true, force: true });
  }
});

test('the host answers a refused browser message in words and goes on', { timeout: 20_000 }, async () => {
  const host = spawnHost({ SLOP_PROVIDER_DIRS: '/nonexistent-slop-dir' });
  try {
    host.send({ type: 'bogus' });
    assert.match((await host.next((m) => m.type === FromHost.ERROR, 'the error')).message, /unknown message type "bogus"/);
    host.send({ type: ToHost.LIST });
    const list = await host.next((m) => m.type === FromHost.LOCAL_PROVIDERS, 'the list');
    assert.deepEqual(list.providers, []);
  } finally {
    assert.equal(await host.close(), 0);
  }
});

test('utf8Length counts what TextEncoder writes, lone surrogates (U+FFFD, 3 bytes) included', () => {
  const enc = new TextEncoder();
  for (const s of ['', 'a', 'é', '€', '😀', '\ud83d', '\ude00', '\ud83dx', '\ud83dé', '\ud800€', 'x\ude00\ud83d', '\ud83d\ud83d\ude00', 'a😀b\ud800']) {
    assert.equal(utf8Length(s), enc.encode(s).length, JSON.stringify(s));
  }
});
