// Local providers over a Unix socket and over stdio (fd 3/4, and the stdout/stdin fallback), from
// the Node client and the CLI: the same session and rules as a WebSocket, framing and limits of
// NDJSON lines, a descriptor's command run only once approved.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect, checkConformance, SlopTestError } from '../../js-glue/node/client.js';
import { LineFramer } from '../../js-glue/node/local-transport.js';
import { DEFAULT_LIMITS } from '../../js-glue/slop-core.js';
import { startUnixProvider, registerDescriptor } from '../fixtures/provider/local-server.mjs';
import { createTodoEngine } from '../fixtures/demo-trees.mjs';
import { startLlmServer } from '../fixtures/llm-server.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'bin/slop-inspector.js');
const STDIO_PROVIDER = path.join(ROOT, 'tests/fixtures/provider/local-server.mjs');
const stdioCommand = (...args) => [process.execPath, STDIO_PROVIDER, 'stdio', ...args];

/** The stdio provider, run by a command that first leaves a file at `marker` (to tell whether it ran). */
const markerCommand = (marker) => [process.execPath, '-e',
  `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'); process.argv = [process.argv[0], ${JSON.stringify(STDIO_PROVIDER)}, 'stdio']; import(${JSON.stringify(STDIO_PROVIDER)})`];
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'slop-lt-'));
const until = async (pred, what, ms = 5000) => {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await pred()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
};

/** Runs the CLI; resolves {code, stdout, stderr}. */
function cli(args, env = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code ?? 1 : 0, stdout, stderr });
    });
  });
}

/**
 * A Unix-socket provider that writes what a test says, byte for byte: hello at once, the
 * snapshot on subscribe, then `after(socket, subscribeId)`.
 */
async function rawUnixProvider(sockPath, after) {
  const server = net.createServer((socket) => {
    socket.write(`${JSON.stringify({ type: 'hello', provider: { id: 'raw', name: 'Raw', slop_version: '0.1', capabilities: ['state', 'patches'] } })}\n`);
    let buf = '';
    socket.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) !== -1) {
        const msg = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (msg.type === 'subscribe') {
          socket.write(`${JSON.stringify({ type: 'snapshot', id: msg.id, version: 1, seq: 0, tree: { id: 'root', type: 'root', properties: { n: 0 } } })}\n`);
          after(socket, msg.id);
        }
      }
    });
    socket.on('error', () => {});
  });
  await new Promise((r) => server.listen(sockPath, r));
  return { close: () => new Promise((r) => server.close(r)) };
}
const patchLine = (sub, n) => `${JSON.stringify({ type: 'patch', subscription: sub, version: n + 1, seq: n, ops: [{ op: 'replace', path: '/properties/n', value: n }] })}\n`;

test('LineFramer: lines across chunks, CRLF, blank lines skipped, a line over the limit dropped as it grows', () => {
  const lines = [], over = [];
  const f = new LineFramer(10, (l) => lines.push(Buffer.from(l).toString()), (n) => over.push(n));
  f.push(Buffer.from('{"a"'));
  f.push(Buffer.from(':1}\r\n\n   \n{"b":2}\n01234'));
  f.push(Buffer.from('56789'));
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
  f.push(Buffer.from('X')); // 11 bytes: over the limit
  assert.deepEqual(over, [11]);
  assert.equal(f.length, 0, 'nothing of the long line is kept');
  f.push(Buffer.from('more and more bytes of the same line'));
  assert.deepEqual(over, [11], 'said once per line');
  assert.equal(f.length, 0);
  f.push(Buffer.from('\n{"c":3}\n'));
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}'], 'the next line is read as usual');
  f.push(Buffer.from('0123456789\n'));
  assert.deepEqual(lines.at(-1), '0123456789', 'exactly the limit is a line');
});

test('a Unix-socket provider: tree, invoke, patches, as over a WebSocket', async () => {
  const dir = tempDir();
  const p = await startUnixProvider({ path: path.join(dir, 'todo.sock'), engine: createTodoEngine() });
  const c = await connect(`unix:${p.path}`);
  try {
    assert.equal(c.url, `unix:${p.path}`);
    assert.deepEqual((await c.tree('/todos', 1)).children.map((t) => t.id), ['t1', 't2', 't3']);
    const patches = [];
    c.onEvent((ev) => { if (ev.event === 'patch') patches.push(ev); });
    const r = await c.invoke('/todos/t1', 'toggle');
    assert.equal(r.status, 'ok');
    await until(() => patches.length > 0, 'the patch of the toggle');
    assert.equal((await c.node('/todos/t1')).properties.done, true);
  } finally {
    c.close();
    await p.close();
  }
});

for (const channel of ['fds', 'std']) {
  test(`a stdio provider on ${channel === 'fds' ? 'fd 3/4' : 'stdout/stdin'}: tree and invoke; the app's own output is not read as SLOP`, async () => {
    const c = await connect({ command: stdioCommand('--channel', channel, '--chatter') });
    try {
      assert.match(c.url, /^stdio:.*local-server\.mjs stdio --channel/);
      assert.deepEqual((await c.tree('/todos', 1)).children.map((t) => t.id), ['t1', 't2', 't3']);
      assert.equal((await c.invoke('/todos', 'add', { title: 'From stdio' })).status, 'ok');
      await until(async () => (await c.tree('/todos', 1)).children.length === 4, 'the added todo');
      const report = await c.conformance();
      assert.deepEqual(report.findings, [], 'no frame refused: the banner on stdout went to the app\'s output');
    } finally {
      c.close();
    }
  });
}

test('a stdio provider that exits says so, with its exit code and last stderr line', async () => {
  const err = await connect({ command: [process.execPath, '-e', 'process.stderr.write("config: no such file todo.db\\n"); process.exit(2)'] }, { timeout: 5000 })
    .then(() => null, (e) => e);
  assert.ok(err instanceof SlopTestError, String(err));
  assert.equal(err.code, 'unreachable');
  assert.match(err.message, /exited with code 2: config: no such file todo\.db/);
  const missing = await connect({ command: ['/nonexistent/slop-tool'] }, { timeout: 5000 }).then(() => null, (e) => e);
  assert.match(missing.message, /cannot run the command \/nonexistent\/slop-tool: no program/i);
});

test('a line over the frame limit is refused in words, unread, and loses nothing mirrored', async () => {
  const dir = tempDir();
  const sock = path.join(dir, 'big.sock');
  const big = Buffer.alloc(DEFAULT_LIMITS.maxFrameBytes + 4096, 0x20);
  big.write('{"type":"event","name":"x","data":"', 0);
  const srv = await rawUnixProvider(sock, (socket, sub) => {
    socket.write(patchLine(sub, 1));
    socket.write(big);
    socket.write('"}\n');
    socket.write(patchLine(sub, 2));
  });
  const c = await connect(`unix:${sock}`);
  try {
    const events = [];
    c.onEvent((ev) => events.push(ev));
    await until(async () => (await c.node('/')).properties.n === 2, 'the patch after the long line', 20_000);
    const oversize = (await c.events()).find((e) => e.event === 'protocol_error');
    assert.equal(oversize?.code, 'frame_too_large');
    assert.match(oversize.message, /frame of over \d+ bytes exceeds the limit of 67108864: dropped unread/);
    assert.equal((await c.info()).live, true, 'still live');
  } finally {
    c.close();
    await srv.close();
  }
});

test('a line that is not UTF-8, or not JSON, is one refused frame; the stream goes on', async () => {
  const dir = tempDir();
  const sock = path.join(dir, 'bad.sock');
  const srv = await rawUnixProvider(sock, (socket, sub) => {
    socket.write(patchLine(sub, 1));
    socket.write(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a])); // {"\xff\xfe"}
    socket.write('not json at all\n');
    socket.write(patchLine(sub, 2));
  });
  const c = await connect(`unix:${sock}`);
  try {
    await until(async () => (await c.node('/')).properties.n === 2, 'the patch after the bad lines');
    const codes = (await c.events()).filter((e) => e.event === 'protocol_error').map((e) => e.code);
    assert.deepEqual(codes, ['bad_json', 'bad_json']);
  } finally {
    c.close();
    await srv.close();
  }
});

test('a provider that floods: 20,000 patches in one burst all apply, in order', async () => {
  const dir = tempDir();
  const sock = path.join(dir, 'flood.sock');
  const N = 20_000;
  const srv = await rawUnixProvider(sock, (socket, sub) => {
    let text = '';
    for (let i = 1; i <= N; i++) text += patchLine(sub, i);
    socket.write(text);
  });
  const c = await connect(`unix:${sock}`);
  try {
    let patches = 0;
    c.onEvent((ev) => { if (ev.event === 'patch') patches++; });
    await until(async () => (await c.node('/')).properties.n === N, 'the last patch', 30_000);
    assert.equal((await c.events()).filter((e) => e.event === 'resync' || e.event === 'protocol_error').length, 0, 'no gap, nothing refused');
    assert.ok(patches > 0);
  } finally {
    c.close();
    await srv.close();
  }
});

test('a Unix-socket provider that restarts is dialled again and goes live', async () => {
  const dir = tempDir();
  const sockPath = path.join(dir, 'restart.sock');
  let p = await startUnixProvider({ path: sockPath, engine: createTodoEngine() });
  const c = await connect(`unix:${sockPath}`);
  try {
    await p.close();
    await until(async () => !(await c.info()).live, 'the close');
    p = await startUnixProvider({ path: sockPath, engine: createTodoEngine() });
    await until(async () => (await c.info()).live, 'live again', 10_000);
    assert.deepEqual((await c.tree('/todos', 1)).children.map((t) => t.id), ['t1', 't2', 't3']);
  } finally {
    c.close();
    await p.close();
  }
});

test('local:<id>: a socket descriptor connects; a command descriptor runs only with that exact command approved', async () => {
  const dir = tempDir();
  const providers = path.join(dir, 'providers');
  const p = await startUnixProvider({ path: path.join(dir, 'todo.sock'), engine: createTodoEngine() });
  registerDescriptor(providers, { id: 'todo', name: 'Todos', pid: process.pid, transport: { type: 'unix', path: p.path } });
  const marker = path.join(dir, 'ran');
  const command = markerCommand(marker);
  registerDescriptor(providers, { id: 'tool', name: 'Tool', transport: { type: 'stdio', command: stdioCommand() } });
  registerDescriptor(providers, { id: 'marker', name: 'Marker', transport: { type: 'stdio', command } });
  try {
    const c = await connect('local:todo', { dirs: [providers] });
    assert.deepEqual((await c.tree('/todos', 1)).children.map((t) => t.id), ['t1', 't2', 't3']);
    c.close();
    const refused = await connect('local:marker', { dirs: [providers] }).then(() => null, (e) => e);
    assert.equal(refused?.code, 'pending_approval');
    assert.match(refused.message, /runs the command .* it runs only when you approve that command/);
    const other = await connect('local:marker', { dirs: [providers], runCommand: [...command.slice(0, -1), 'other'] }).then(() => null, (e) => e);
    assert.equal(other?.code, 'pending_approval', 'another argv is not this one');
    assert.equal(fs.existsSync(marker), false, 'nothing was run');
    const t = await connect('local:tool', { dirs: [providers], runCommand: stdioCommand() });
    assert.deepEqual((await t.tree('/todos', 1)).children.map((x) => x.id), ['t1', 't2', 't3']);
    t.close();
    const none = await connect('local:nobody', { dirs: [providers] }).then(() => null, (e) => e);
    assert.equal(none?.code, 'no_provider');
    assert.match(none.message, /there are: marker, todo, tool/);
  } finally {
    await p.close();
  }
});

test('the CLI on local providers: tree, invoke and check on unix:, a command after --, local:<id> with --yes', async () => {
  const dir = tempDir();
  const providers = path.join(dir, 'providers');
  const p = await startUnixProvider({ path: path.join(dir, 'todo.sock'), engine: createTodoEngine() });
  const marker = path.join(dir, 'ran');
  registerDescriptor(providers, { id: 'tool', name: 'Tool', transport: { type: 'stdio', command: markerCommand(marker) } });
  const env = { SLOP_PROVIDER_DIRS: providers };
  try {
    const tree = await cli(['tree', `unix:${p.path}`]);
    assert.equal(tree.code, 0, tree.stderr);
    assert.match(tree.stdout, /\[item\] t1: Buy milk/);
    const inv = await cli(['invoke', `unix:${p.path}`, '/todos/t1', 'toggle']);
    assert.equal(inv.code, 0, inv.stderr);
    assert.match(inv.stdout, /"status": "ok"/);
    const check = await cli(['check', `unix:${p.path}`, '--watch', '200']);
    assert.equal(check.code, 0, check.stdout + check.stderr);
    const viaDashes = await cli(['tree', '--json', '--', ...stdioCommand('--channel', 'std')]);
    assert.equal(viaDashes.code, 0, viaDashes.stderr);
    assert.equal(JSON.parse(viaDashes.stdout).id, 'todo-app');
    const notRun = await cli(['tree', 'local:tool'], env);
    assert.equal(notRun.code, 1);
    assert.match(notRun.stderr, /runs the command:\n  .*\nslop-inspector: not run: confirm it with --run-command/);
    assert.equal(fs.existsSync(marker), false, 'the command did not run');
    // --yes confirms a dangerous invoke: it never runs a program.
    const yes = await cli(['tree', 'local:tool', '--yes'], env);
    assert.equal(yes.code, 2);
    assert.match(yes.stderr, /--yes goes with invoke: it confirms a dangerous invoke \(a descriptor's command runs with --run-command\)/);
    const invokeYes = await cli(['invoke', 'local:tool', '/todos/t1', 'toggle', '--yes'], env);
    assert.equal(invokeYes.code, 1);
    assert.match(invokeYes.stderr, /confirm it with --run-command .*; --yes confirms a dangerous invoke, not a command/);
    assert.equal(fs.existsSync(marker), false, '--yes did not run the command');
    const run = await cli(['tree', 'local:tool', '--run-command'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /\[item\] t1: Buy milk/);
    assert.equal(fs.existsSync(marker), true);
    const bad = await cli(['tree', 'unix:relative.sock']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /absolute path/);
  } finally {
    await p.close();
  }
});

test('checkConformance judges a Unix-socket provider', async () => {
  const dir = tempDir();
  const p = await startUnixProvider({ path: path.join(dir, 'c.sock'), engine: createTodoEngine() });
  try {
    const r = await checkConformance(`unix:${p.path}`, { watch: 100 });
    assert.equal(r.report.live, true);
    assert.equal(r.report.must, 0);
  } finally {
    await p.close();
  }
});

test('an agent run on a stdio provider: the model\'s call is invoked over stdio and the trace holds its diff', async () => {
  const c = await connect({ command: stdioCommand('--channel', 'fds') });
  const tools = (await c.tools()).tools.map((t) => t.name);
  const toggle = tools.find((n) => /t1__toggle$/.test(n));
  assert.ok(toggle, `a toggle tool among ${tools.join(', ')}`);
  const llm = await startLlmServer({ kind: 'openai', script: [{ calls: [{ name: toggle, arguments: {} }] }, { text: 'Toggled it.' }] });
  try {
    const trace = await c.agent({ endpoint: { kind: 'openai', baseUrl: llm.baseUrl }, model: 'fixture-model' }).run('Mark "Buy milk" done');
    assert.equal(trace.outcome, 'answered', JSON.stringify(trace.error));
    const call = trace.turns[0].calls[0];
    assert.equal(call.result.status, 'ok');
    assert.equal((await c.node('/todos/t1')).properties.done, true);
  } finally {
    c.close();
    await llm.close();
  }
});
