// Local discovery (SLOP spec, Transport & Discovery: local discovery, filesystem hardening): every
// REQUIRED rule has a case here that fails on a scanner that skips it. The directories are temp
// directories given as `dirs`; the CLI's are given by $SLOP_PROVIDER_DIRS.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadCore } from './helpers.js';
import { scanLocalProviders, watchLocalProviders, pickLocalProvider, providerDirs } from '../../js-glue/node/local-discovery.js';
import { registerDescriptor } from '../fixtures/provider/local-server.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'bin/slop-inspector.js');
const IS_ROOT = process.getuid?.() === 0;
const OTHER_UID = 65534; // nobody

const UNIX = { type: 'unix', path: '/tmp/slop/app.sock' };

/** A fresh temp directory (0700) to hold provider directories. */
function tempRoot() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'slop-local-'));
}

/** A conforming providers directory with one conforming descriptor "good". */
function goodDir(root, name = 'providers') {
  const dir = path.join(root, name);
  registerDescriptor(dir, { id: 'good', name: 'Good', transport: UNIX });
  return dir;
}

const ids = (scan) => scan.providers.map((p) => p.id).sort();
const ignoredCode = (scan, file) => scan.ignored.find((i) => i.file === file)?.code;

test('a conforming directory and descriptor are found, with the core\'s normalised descriptor', async () => {
  const core = await loadCore();
  const dir = goodDir(tempRoot());
  const scan = scanLocalProviders(core, { dirs: [dir] });
  assert.deepEqual(ids(scan), ['good']);
  assert.deepEqual(scan.dirs, [{ dir, state: 'ok' }]);
  const p = scan.providers[0];
  assert.equal(p.file, path.join(dir, 'good.json'));
  assert.deepEqual(p.transport, UNIX);
  assert.equal(p.pid, null);
  assert.equal(p.alive, null);
  assert.equal(p.stale, false);
  assert.deepEqual(scan.ignored, []);
});

test('an absent directory is said absent, not an error', async () => {
  const core = await loadCore();
  const dir = path.join(tempRoot(), 'none');
  const scan = scanLocalProviders(core, { dirs: [dir] });
  assert.deepEqual(scan.dirs, [{ dir, state: 'absent' }]);
  assert.deepEqual(scan.refused, []);
});

test('a directory open to group or others is refused whole, said once with the fix', async () => {
  const core = await loadCore();
  for (const mode of [0o755, 0o750, 0o701, 0o777]) {
    const dir = goodDir(tempRoot());
    fs.chmodSync(dir, mode);
    const scan = scanLocalProviders(core, { dirs: [dir] });
    assert.deepEqual(ids(scan), [], `a ${mode.toString(8)} directory is not read`);
    assert.equal(scan.refused.length, 1);
    assert.equal(scan.refused[0].code, 'dir_mode');
    assert.match(scan.refused[0].why, new RegExp(`its mode is 0${mode.toString(8)}; the spec requires 0700`));
    assert.equal(scan.refused[0].fix, `chmod 700 ${dir}`);
    assert.deepEqual(scan.ignored, [], 'a conforming descriptor inside a refused directory is neither read nor said');
  }
  const ok = goodDir(tempRoot());
  fs.chmodSync(ok, 0o500); // stricter than 0700 is fine
  assert.deepEqual(ids(scanLocalProviders(core, { dirs: [ok] })), ['good']);
  fs.chmodSync(ok, 0o700);
});

test('a directory owned by another user is refused', { skip: !IS_ROOT && 'needs root to give a directory to another user' }, async () => {
  const core = await loadCore();
  const dir = goodDir(tempRoot());
  fs.chownSync(dir, OTHER_UID, OTHER_UID);
  const scan = scanLocalProviders(core, { dirs: [dir] });
  assert.deepEqual(ids(scan), []);
  assert.equal(scan.refused[0].code, 'dir_owner');
  assert.match(scan.refused[0].why, new RegExp(`owned by uid ${OTHER_UID}, not by you \\(uid 0\\)`));
});

test('a directory that is a symbolic link is refused, even to a conforming directory', async () => {
  const core = await loadCore();
  const root = tempRoot();
  const real = goodDir(root, 'real');
  const link = path.join(root, 'providers');
  fs.symlinkSync(real, link);
  const scan = scanLocalProviders(core, { dirs: [link] });
  assert.deepEqual(ids(scan), []);
  assert.equal(scan.refused[0].code, 'not_a_directory');
  assert.match(scan.refused[0].why, /symbolic link/);
});

test('a descriptor not of mode 0600 is ignored, and the others are read', async () => {
  const core = await loadCore();
  const dir = goodDir(tempRoot());
  for (const [name, mode] of [['loose', 0o644], ['group', 0o640], ['readonly', 0o400], ['exec', 0o700]]) {
    registerDescriptor(dir, { id: name, name, transport: UNIX }, { fileMode: mode });
  }
  const scan = scanLocalProviders(core, { dirs: [dir] });
  assert.deepEqual(ids(scan), ['good']);
  for (const name of ['loose', 'group', 'readonly', 'exec']) assert.equal(ignoredCode(scan, `${name}.json`), 'file_mode', name);
  assert.match(scan.ignored.find((i) => i.file === 'loose.json').why, /its mode is 0644; the spec requires 0600/);
});

test('a descriptor owned by another user is ignored', { skip: !IS_ROOT && 'needs root to give a file to another user' }, async () => {
  const core = await loadCore();
  const dir = goodDir(tempRoot());
  const file = registerDescriptor(dir, { id: 'theirs', name: 'Theirs', transport: UNIX });
  fs.chownSync(file, OTHER_UID, OTHER_UID);
  const scan = scanLocalProviders(core, { dirs: [dir] });
  assert.deepEqual(ids(scan), ['good']);
  assert.equal(ignoredCode(scan, 'theirs.json'), 'file_owner');
});

test('names outside ^[a-z0-9][a-z0-9._-]{0,63}\\.json$ are ignored without being opened', async () => {
  const core = await loadCore();
  const dir = goodDir(tempRoot());
  const bad = ['App.json', '.hidden.json', '-dash.json', 'a b.json', 'x.json5', 'x.json~', `${'a'.repeat(65)}.json`];
  for (const name of bad) registerDescriptor(dir, { id: 'x', name: 'X', transport: UNIX }, { name });
  // A FIFO under a bad name: opening it for reading would wait for a writer.
  execFileSync('mkfifo', ['-m', '600', path.join(dir, 'Fifo.json')]);
  const scan = scanLocalProviders(core, { dirs: [dir] });
  assert.deepEqual(ids(scan), ['good']);
  for (const name of [...bad, 'Fifo.json']) assert.equal(ignoredCode(scan, name), 'bad_name', name);
  // Not meant as descriptors (a socket, a README, x.JSON): not read, and not worth a word.
  for (const name of ['app.sock', 'README', 'x.JSON']) {
    registerDescriptor(dir, { id: 'x', name: 'X', transport: UNIX }, { name });
  }
  const again = scanLocalProviders(core, { dirs: [dir] });
  assert.deepEqual(ids(again), ['good']);
  for (const name of ['app.sock', 'README', 'x.JSON']) assert.equal(ignoredCode(again, name), undefined, name);
  registerDescriptor(dir, { id: 'longest', name: 'L', transport: UNIX }, { name: `${'a'.repeat(64)}.json` });
  assert.ok(scanLocalProviders(core, { dirs: [dir] }).providers.some((p) => p.id === 'longest'), 'a 64-character stem is allowed');
});

test('a provider\'s temp file (written before its rename) is neither read nor reported', async () => {
  const core = await loadCore();
  const dir = goodDir(tempRoot());
  fs.writeFileSync(path.join(dir, 'app.json.tmp.4242'), '{"id":"app","name":"A","slop_version":"0.1","transport":{"type":"unix","path":"/tmp/a.sock"},"capabilities":["state"]}', { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'half.json.tmp'), '{"id":', { mode: 0o600 });
  const scan = scanLocalProviders(core, { dirs: [dir] });
  assert.deepEqual(ids(scan), ['good']);
  assert.deepEqual(scan.ignored, [], 'a rename in progress is not a problem to report');
});

test('a descriptor that is a symbolic link is ignored, even to a conforming file (opened without following it)', async () => {
  const core = await loadCore();
  const root = tempRoot();
  const dir = goodDir(root);
  const elsewhere = registerDescriptor(path.join(root, 'elsewhere'), { id: 'linked', name: 'Linked', transport: UNIX });
  fs.symlinkSync(elsewhere, path.join(dir, 'linked.json'));
  const scan = scanLocalProviders(core, { dirs: [dir] });
  assert.deepEqual(ids(scan), ['good']);
  assert.equal(ignoredCode(scan, 'linked.json'), 'not_a_file');
  assert.match(scan.ignored.find((i) => i.file === 'linked.json').why, /symbolic link/);
});

test('a FIFO or a directory under a good name is ignored, and the scan does not wait on it', async () => {
  const core = await loadCore();
  const dir = goodDir(tempRoot());
  execFileSync('mkfifo', ['-m', '600', path.join(dir, 'fifo.json')]);
  fs.mkdirSync(path.join(dir, 'sub.json'), { mode: 0o600 });
  const scan = scanLocalProviders(core, { dirs: [dir] });
  assert.deepEqual(ids(scan), ['good']);
  assert.equal(ignoredCode(scan, 'fifo.json'), 'not_a_file');
  assert.equal(ignoredCode(scan, 'sub.json'), 'not_a_file');
});

test('descriptors are validated by the core: what it refuses is ignored with its words', async () => {
  const core = await loadCore();
  const dir = goodDir(tempRoot());
  const raw = (name, text) => fs.writeFileSync(path.join(dir, name), text, { mode: 0o600 });
  raw('broken.json', '{"id": "broken",');
  raw('page.json', JSON.stringify({ id: 'page', name: 'P', slop_version: '0.1', capabilities: ['state'], transport: { type: 'postmessage' } }));
  raw('nostate.json', JSON.stringify({ id: 'n', name: 'N', slop_version: '0.1', capabilities: ['patches'], transport: UNIX }));
  raw('shell.json', JSON.stringify({ id: 's', name: 'S', slop_version: '0.1', capabilities: ['state'], transport: { type: 'stdio', command: 'my-tool --slop; rm -rf ~' } }));
  raw('relative.json', JSON.stringify({ id: 'r', name: 'R', slop_version: '0.1', capabilities: ['state'], transport: { type: 'unix', path: 'app.sock' } }));
  const scan = scanLocalProviders(core, { dirs: [dir] });
  assert.deepEqual(ids(scan), ['good']);
  const why = (f) => scan.ignored.find((i) => i.file === f)?.why;
  assert.equal(why('broken.json'), 'descriptor is not valid JSON');
  assert.match(why('page.json'), /postmessage.*inside a web page/);
  assert.equal(why('nostate.json'), 'capabilities must include "state"');
  assert.match(why('shell.json'), /transport.command must be a non-empty array of strings/);
  assert.equal(why('relative.json'), 'transport.path must be the socket\'s absolute path');
  for (const f of ['broken.json', 'page.json', 'nostate.json', 'shell.json', 'relative.json']) assert.equal(ignoredCode(scan, f), 'bad_descriptor');
});

test('a descriptor whose pid is not running is stale; a running one is alive', async () => {
  const core = await loadCore();
  const dir = goodDir(tempRoot());
  const child = spawn(process.execPath, ['-e', '0']);
  const deadPid = child.pid;
  await new Promise((r) => child.on('exit', r));
  registerDescriptor(dir, { id: 'dead', name: 'Dead', pid: deadPid, transport: UNIX });
  registerDescriptor(dir, { id: 'alive', name: 'Alive', pid: process.pid, transport: UNIX });
  const scan = scanLocalProviders(core, { dirs: [dir] });
  const by = Object.fromEntries(scan.providers.map((p) => [p.id, p]));
  assert.equal(by.dead.stale, true);
  assert.equal(by.dead.alive, false);
  assert.equal(by.alive.stale, false);
  assert.equal(by.alive.alive, true);
  // local:<name> prefers the running one of two with the same name.
  registerDescriptor(dir, { id: 'twin-a', name: 'Twin', pid: deadPid, transport: UNIX });
  registerDescriptor(dir, { id: 'twin-b', name: 'Twin', pid: process.pid, transport: UNIX });
  assert.equal(pickLocalProvider(scanLocalProviders(core, { dirs: [dir] }), 'Twin').id, 'twin-b');
  assert.throws(() => pickLocalProvider(scan, 'nobody'), /no local provider "nobody" in .* \(there are: /);
});

test('the directories are watched: a provider appears, goes, and a directory opened to others is refused', async () => {
  const core = await loadCore();
  const root = tempRoot();
  const dir = path.join(root, 'providers');
  const scans = [];
  const waitFor = async (pred, what) => {
    for (let i = 0; i < 100; i++) {
      if (scans.length && pred(scans[scans.length - 1])) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail(`no scan where ${what}; last: ${JSON.stringify(scans[scans.length - 1])}`);
  };
  const w = watchLocalProviders(core, (s) => scans.push(s), { dirs: [dir], rescanMs: 300 });
  try {
    await waitFor((s) => s.dirs[0].state === 'absent', 'the directory is absent');
    registerDescriptor(dir, { id: 'late', name: 'Late', transport: UNIX });
    await waitFor((s) => ids(s).join() === 'late', 'the new provider is listed');
    registerDescriptor(dir, { id: 'second', name: 'Second', transport: UNIX });
    await waitFor((s) => ids(s).join() === 'late,second', 'a second one is listed');
    fs.unlinkSync(path.join(dir, 'late.json'));
    await waitFor((s) => ids(s).join() === 'second', 'the removed one is gone');
    fs.chmodSync(dir, 0o755);
    await waitFor((s) => s.refused.length === 1 && ids(s).length === 0, 'the directory is refused');
    const n = scans.length;
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(scans.length, n, 'nothing is reported while nothing changes');
  } finally {
    w.close();
  }
});

test('SLOP_PROVIDER_DIRS replaces the spec\'s two directories', () => {
  assert.deepEqual(providerDirs({ SLOP_PROVIDER_DIRS: '/a/b:/c' }), ['/a/b', '/c']);
  assert.deepEqual(providerDirs({}), [path.join(os.homedir(), '.slop', 'providers'), '/tmp/slop/providers']);
});

test('slop-inspector list: a table, the refused directory with its fix, the ignored files; --json for tools', async () => {
  const root = tempRoot();
  const dir = goodDir(root);
  registerDescriptor(dir, { id: 'tool', name: 'Tool', transport: { type: 'stdio', command: ['my-tool', '--slop'] } });
  registerDescriptor(dir, { id: 'loose', name: 'Loose', transport: UNIX }, { fileMode: 0o644 });
  // As the public SDKs write them today: 0644 in a 0755 directory.
  const sdk = path.join(root, 'sdk');
  registerDescriptor(sdk, { id: 'sdk', name: 'SDK', transport: UNIX }, { fileMode: 0o644, dirMode: 0o755 });
  const env = { ...process.env, SLOP_PROVIDER_DIRS: `${dir}:${sdk}` };
  const text = execFileSync(process.execPath, [CLI, 'list'], { env, encoding: 'utf8' });
  assert.match(text, /^ID\s+NAME\s+TRANSPORT\s+PID$/m);
  assert.match(text, /^good\s+Good\s+unix:\/tmp\/slop\/app\.sock\s+-$/m);
  assert.match(text, /^tool\s+Tool\s+stdio:my-tool --slop\s+-$/m);
  assert.match(text, new RegExp(`${sdk}: refused, not read: its mode is 0755; the spec requires 0700.*\\n  fix: chmod 700 ${sdk}`));
  assert.match(text, new RegExp(`ignored ${dir}/loose.json: its mode is 0644; the spec requires 0600`));
  const json = JSON.parse(execFileSync(process.execPath, [CLI, 'list', '--json'], { env, encoding: 'utf8' }));
  assert.deepEqual(json.providers.map((p) => p.id).sort(), ['good', 'tool']);
  assert.deepEqual(json.refused.map((d) => [d.dir, d.code]), [[sdk, 'dir_mode']]);
  // The refused directory's descriptor is said too (not read as a provider), so one line fixes both.
  assert.deepEqual(json.ignored.map((i) => [i.file, i.code, !!i.inRefusedDir]), [['loose.json', 'file_mode', false], ['sdk.json', 'file_mode', true]]);
  assert.equal(json.fixAll, `chmod 700 ${sdk} && chmod 600 ${dir}/loose.json ${sdk}/sdk.json`);
  assert.match(text, new RegExp(`\\nfix all: chmod 700 ${sdk} && chmod 600 ${dir}/loose.json ${sdk}/sdk.json\\n`));
});

test('slop-inspector list --watch --json prints a line per change', async () => {
  const dir = goodDir(tempRoot());
  const child = spawn(process.execPath, [CLI, 'list', '--watch', '--json'], { env: { ...process.env, SLOP_PROVIDER_DIRS: dir } });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  const lines = () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const waitLines = async (n) => {
    for (let i = 0; i < 100 && lines().length < n; i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(lines().length >= n, `${n} lines; got: ${out}`);
  };
  try {
    await waitLines(1);
    assert.deepEqual(lines()[0].providers.map((p) => p.id), ['good']);
    registerDescriptor(dir, { id: 'new', name: 'New', transport: UNIX });
    await waitLines(2);
    assert.deepEqual(lines()[1].providers.map((p) => p.id).sort(), ['good', 'new']);
  } finally {
    child.kill('SIGINT');
    await new Promise((r) => child.on('exit', r));
  }
});
