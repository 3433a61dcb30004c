// Local apps as people meet them (issue 47): an SDK-made app (its directory 0755, its descriptor
// 0644, written again at each start) reached by following the product's own words once; every
// refusal named with the command that fixes it; a stale descriptor dialled only when named by
// id, and a hello under another id said. The descriptors are written as the public SDKs write
// them (tests/fixtures/provider/local-server.mjs registerDescriptor with their modes).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadCore } from './helpers.js';
import { scanLocalProviders, pickLocalProvider } from '../../js-glue/node/local-discovery.js';
import { connect, SlopTestCode } from '../../js-glue/node/client.js';
import { startUnixProvider, registerDescriptor } from '../fixtures/provider/local-server.mjs';
import { createTodoEngine } from '../fixtures/demo-trees.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'bin/slop-inspector.js');
const tempRoot = () => fs.mkdtempSync(path.join(os.tmpdir(), 'slop-fix-'));
/** A pid that is not running (a stale descriptor's). */
const DEAD_PID = 2 ** 22 - 7;

/** Runs the CLI; resolves {code, stdout, stderr}. */
function cli(args, env) {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code ?? 1 : 0, stdout, stderr });
    });
  });
}

/** What an SDK does at each start: mkdir -p (0755 when it makes it) and the descriptor at its umask's 0644. */
function sdkStart(dir, descriptor) {
  const made = !fs.existsSync(dir);
  // mkdir -p leaves an existing directory's mode alone; a new one gets 0755.
  return registerDescriptor(dir, descriptor, { fileMode: 0o644, dirMode: made ? 0o755 : fs.statSync(dir).mode & 0o777 });
}

test('an SDK-made app: one line from the product\'s words fixes it, the app\'s restart undoes the file fix and the words say so, the direct address works', async () => {
  const root = tempRoot();
  const providers = path.join(root, 'providers');
  const sock = path.join(root, 'tsk.sock');
  const app = await startUnixProvider({ path: sock, engine: createTodoEngine({ id: 'tsk', name: 'Tasks' }) });
  const env = { SLOP_PROVIDER_DIRS: providers };
  try {
    sdkStart(providers, { id: 'tsk', name: 'Tasks', transport: { type: 'unix', path: sock }, pid: process.pid });
    // A new user asks for the app by its id: refused, and told everything at once.
    const first = await cli(['tree', 'local:tsk'], env);
    assert.equal(first.code, 1);
    assert.match(first.stderr, /no local provider "tsk" in .*providers \(refused: its mode is 0755/);
    assert.match(first.stderr, new RegExp(`ignored ${providers}/tsk\\.json: its mode is 0644; the spec requires 0600 \\(and its directory is refused\\)`));
    assert.match(first.stderr, new RegExp(`fix: chmod 600 ${providers}/tsk\\.json`));
    assert.match(first.stderr, new RegExp(`SLOP SDKs write their descriptor again, as 0644, every time the app starts.*to reach it without a descriptor: slop-inspector tree unix:${sock}`));
    const fixAll = /^fix all: (.+)$/m.exec(first.stderr)?.[1];
    assert.equal(fixAll, `chmod 700 ${providers} && chmod 600 ${providers}/tsk.json`);
    // Followed once, as printed: the tree comes.
    execFileSync('sh', ['-c', fixAll]);
    const fixed = await cli(['tree', 'local:tsk'], env);
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.match(fixed.stdout, /\[item\] t1: Buy milk/);
    // The app starts again: its descriptor is 0644 again (its directory stays 0700).
    fs.unlinkSync(path.join(providers, 'tsk.json'));
    sdkStart(providers, { id: 'tsk', name: 'Tasks', transport: { type: 'unix', path: sock }, pid: process.pid });
    const again = await cli(['tree', 'local:tsk'], env);
    assert.equal(again.code, 1);
    assert.doesNotMatch(again.stderr, /refused: its mode/, 'the directory fix lasted');
    assert.match(again.stderr, /fix all: chmod 600 .*tsk\.json/);
    // The address the words offer needs no descriptor.
    const direct = /without a descriptor: slop-inspector tree (\S+)/.exec(again.stderr)?.[1];
    assert.equal(direct, `unix:${sock}`);
    const viaDirect = await cli(['tree', direct], env);
    assert.equal(viaDirect.code, 0, viaDirect.stderr);
    assert.match(viaDirect.stdout, /\[item\] t1: Buy milk/);
  } finally {
    await app.close();
  }
});

test('the Node client\'s error for local:<id> names the ignored descriptor, its fix and the fix-all, for people and tools', async () => {
  const root = tempRoot();
  const providers = path.join(root, 'providers');
  sdkStart(providers, { id: 'tsk', name: 'Tasks', transport: { type: 'unix', path: '/tmp/slop/tsk.sock' } });
  const e = await connect('local:tsk', { dirs: [providers], timeout: 2000 }).then(() => null, (err) => err);
  assert.ok(e, 'refused');
  assert.equal(e.code, SlopTestCode.NO_PROVIDER);
  assert.match(e.message, /ignored .*tsk\.json: its mode is 0644/);
  assert.match(e.message, /to reach it without a descriptor: unix:\/tmp\/slop\/tsk\.sock/);
  assert.deepEqual(e.ignored.map((f) => [f.file, f.code, f.id, f.direct, f.recreated]), [['tsk.json', 'file_mode', 'tsk', 'unix:/tmp/slop/tsk.sock', true]]);
  assert.equal(e.fixAll, `chmod 700 ${providers} && chmod 600 ${providers}/tsk.json`);
  assert.deepEqual(e.refused.map((d) => d.code), ['dir_mode']);
});

test('each refusal\'s fix is a command that works: a symbolic link for a directory, a name the spec refuses', async () => {
  const core = await loadCore();
  const root = tempRoot();
  const real = path.join(root, 'real');
  fs.mkdirSync(real, { mode: 0o700 });
  const link = path.join(root, 'providers');
  fs.symlinkSync(real, link);
  let scan = scanLocalProviders(core, { dirs: [link] });
  assert.equal(scan.refused[0].code, 'not_a_directory');
  assert.equal(scan.refused[0].fix, `rm ${link} && mkdir -m 700 ${link}`, 'mkdir alone fails on the existing link');
  execFileSync('sh', ['-c', scan.fixAll]);
  assert.ok(fs.existsSync(real), 'the link went, not what it pointed to');
  registerDescriptor(link, { id: 'ok', name: 'OK', transport: { type: 'unix', path: '/tmp/x.sock' } }, { name: 'My App.json' });
  scan = scanLocalProviders(core, { dirs: [link] });
  assert.deepEqual(scan.refused, []);
  assert.equal(scan.ignored[0].code, 'bad_name');
  assert.equal(scan.ignored[0].fix, `mv '${link}/My App.json' ${link}/my-app.json`);
  execFileSync('sh', ['-c', scan.fixAll]);
  assert.deepEqual(scanLocalProviders(core, { dirs: [link] }).providers.map((p) => p.id), ['ok']);
});

test('a file owned by no one else is never peeked at when others could have written it; a fix that needs a person is advice, not a command', async () => {
  const core = await loadCore();
  const dir = path.join(tempRoot(), 'providers');
  registerDescriptor(dir, { id: 'open', name: 'Open', transport: { type: 'unix', path: '/tmp/o.sock' } }, { fileMode: 0o666 });
  const scan = scanLocalProviders(core, { dirs: [dir] });
  const f = scan.ignored[0];
  assert.equal(f.code, 'file_mode');
  assert.equal(f.id, undefined, 'a file others may write is not read, even for words');
  assert.equal(f.direct, undefined);
  assert.equal(f.recreated, undefined, '0666 is not the SDKs\' 0644');
  assert.equal(f.fix, `chmod 600 ${dir}/open.json`);
});

test('a stale descriptor is dialled only when its id is named, and a hello under another id is said (CLI and Node client)', async () => {
  const root = tempRoot();
  const providers = path.join(root, 'providers');
  const sock = path.join(root, 'shared.sock');
  // Another app now serves the socket the stale descriptor names.
  const other = await startUnixProvider({ path: sock, engine: createTodoEngine({ id: 'tsk', name: 'Tasks' }) });
  registerDescriptor(providers, { id: 'dead', name: 'Old Tool', transport: { type: 'unix', path: sock }, pid: DEAD_PID });
  const env = { SLOP_PROVIDER_DIRS: providers };
  try {
    const core = await loadCore();
    assert.throws(() => pickLocalProvider(scanLocalProviders(core, { dirs: [providers] }), 'Old Tool'),
      /local provider "Old Tool" .* is stale: its pid \d+ is not running; to dial it anyway, name its id: local:dead/);
    const byName = await cli(['tree', 'local:Old Tool'], env);
    assert.equal(byName.code, 1);
    assert.match(byName.stderr, /is stale/);
    const byId = await cli(['tree', 'local:dead'], env);
    assert.equal(byId.code, 0, byId.stderr);
    assert.match(byId.stderr, /names pid \d+, which is not running/);
    assert.match(byId.stderr, new RegExp(`dead\\.json names "dead" \\(Old Tool\\), but the provider at unix:${sock} says it is "tsk" \\(Tasks\\); its pid \\d+ is not running: the descriptor is stale and another app answers there now`));
    const c = await connect('local:dead', { dirs: [providers] });
    try {
      assert.equal(c.warnings.length, 1);
      assert.match(c.warnings[0], /says it is "tsk"/);
    } finally {
      c.close();
    }
  } finally {
    await other.close();
  }
});

test('list --watch keeps its rows in id order across refreshes, and sees a fix inside a refused directory', async () => {
  const root = tempRoot();
  const dir = path.join(root, 'providers');
  registerDescriptor(dir, { id: 'mid', name: 'Mid', transport: { type: 'unix', path: '/tmp/m.sock' } });
  const child = spawn(process.execPath, [CLI, 'list', '--watch'], { env: { ...process.env, SLOP_PROVIDER_DIRS: dir } });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  const blocks = () => out.split(/^--- \d\d:\d\d:\d\d\n/m);
  const until = async (pred, what) => {
    for (let i = 0; i < 150 && !pred(); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(pred(), `${what}; got:\n${out}`);
  };
  const rows = (block) => block.split('\n').filter((l) => /^[a-z]+ {2}/.test(l)).map((l) => l.split(/\s+/)[0]);
  try {
    await until(() => rows(blocks()[0]).length === 1, 'the first listing');
    // Written in the reverse of id order, and a descriptor re-created (as an SDK's restart does).
    registerDescriptor(dir, { id: 'zed', name: 'Zed', transport: { type: 'unix', path: '/tmp/z.sock' } });
    await until(() => blocks().length >= 2 && rows(blocks().at(-1)).length === 2, 'a second listing');
    registerDescriptor(dir, { id: 'abe', name: 'Abe', transport: { type: 'unix', path: '/tmp/a.sock' } });
    await until(() => rows(blocks().at(-1)).length === 3, 'a third listing');
    fs.unlinkSync(path.join(dir, 'mid.json'));
    registerDescriptor(dir, { id: 'mid', name: 'Mid', transport: { type: 'unix', path: '/tmp/m.sock' }, pid: DEAD_PID });
    await until(() => /stale/.test(blocks().at(-1)), 'the re-created descriptor');
    for (const b of blocks().slice(1)) {
      const r = rows(b);
      assert.deepEqual(r, [...r].sort(), `rows in id order:\n${b}`);
    }
    // The SDK's way: the directory opened to others; then the printed fix, run.
    fs.chmodSync(dir, 0o755);
    await until(() => /refused, not read/.test(blocks().at(-1)), 'the refusal');
    fs.chmodSync(dir, 0o700);
    await until(() => rows(blocks().at(-1)).length === 3 && !/refused/.test(blocks().at(-1)), 'the fix seen');
  } finally {
    child.kill('SIGINT');
    await new Promise((r) => child.on('exit', r));
  }
});
