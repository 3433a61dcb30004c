// native-host-install.test.js: `install-host` writes the host manifests with the right fields into
// a temp HOME (or a Chromium profile), and a launcher that runs the host with this Node.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installHost, uninstallHost, runInstallHost, extensionIds, extensionIdOfKey, HOST_SCRIPT } from '../../js-glue/node/native-host-install.js';
import { HOST_NAME, frameNative, nativeReader } from '../../js-glue/native-host-protocol.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('the manifest key gives Chromium the fixed extension id, and a gecko id is set', async () => {
  const m = JSON.parse(await fs.readFile(path.join(ROOT, 'manifest.json'), 'utf8'));
  assert.ok(m.key, 'manifest.json has a key');
  const { chromeId, geckoId } = await extensionIds();
  assert.equal(chromeId, extensionIdOfKey(m.key));
  assert.match(chromeId, /^[a-p]{32}$/);
  assert.equal(geckoId, m.browser_specific_settings.gecko.id);
  assert.deepEqual(m.optional_permissions, ['nativeMessaging']);
});

test('install writes the three manifests and an executable launcher into HOME; uninstall removes them', async () => {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'slop-home-'));
  try {
    const lines = [];
    assert.equal(await runInstallHost([], { home, out: (l) => lines.push(l), err: (l) => lines.push(l) }), 0);
    const { chromeId, geckoId } = await extensionIds();
    const launcher = path.join(home, '.local/share/slop-inspector/slop-native-host');
    const st = await fs.stat(launcher);
    assert.ok(st.mode & 0o100, 'the launcher is executable');
    const script = await fs.readFile(launcher, 'utf8');
    assert.ok(script.startsWith('#!/bin/sh\n'));
    assert.ok(script.includes(`exec '${process.execPath}' '${HOST_SCRIPT}' "$@"`), script);
    for (const [dir, browser] of [['.config/chromium/NativeMessagingHosts', 'chromium'], ['.config/google-chrome/NativeMessagingHosts', 'chrome'], ['.mozilla/native-messaging-hosts', 'firefox']]) {
      const file = path.join(home, dir, `${HOST_NAME}.json`);
      const m = JSON.parse(await fs.readFile(file, 'utf8'));
      assert.equal(m.name, HOST_NAME);
      assert.equal(m.type, 'stdio');
      assert.equal(m.path, launcher);
      assert.ok(path.isAbsolute(m.path));
      if (browser === 'firefox') {
        assert.deepEqual(m.allowed_extensions, [geckoId]);
        assert.equal(m.allowed_origins, undefined);
      } else {
        assert.deepEqual(m.allowed_origins, [`chrome-extension://${chromeId}/`]);
        assert.equal(m.allowed_extensions, undefined);
      }
      assert.ok(lines.some((l) => l.includes(file)), `it says it wrote ${file}`);
    }
    const removed = await uninstallHost({ home });
    assert.equal(removed.length, 4);
  } finally {
    await fs.rm(home, { recursive: true, force: true });
  }
});

test('--profile writes into the profile, --extension-id adds an origin; bad words exit 2', async () => {
  const profile = await fs.mkdtemp(path.join(os.tmpdir(), 'slop-profile-'));
  try {
    const extra = 'a'.repeat(32);
    const sink = [];
    assert.equal(await runInstallHost(['--profile', profile, '--extension-id', extra], { out: (l) => sink.push(l) }), 0);
    const m = JSON.parse(await fs.readFile(path.join(profile, 'NativeMessagingHosts', `${HOST_NAME}.json`), 'utf8'));
    assert.equal(m.allowed_origins.length, 2);
    assert.ok(m.allowed_origins.includes(`chrome-extension://${extra}/`));
    assert.equal(m.path, path.join(profile, 'NativeMessagingHosts', 'slop-native-host'));
    assert.equal(await runInstallHost(['--browser', 'safari'], { out: () => {}, err: (l) => sink.push(l) }), 2);
    assert.match(sink.at(-1), /unknown browser "safari"/);
    assert.equal(await runInstallHost(['--extension-id', 'XYZ'], { home: profile, out: () => {}, err: (l) => sink.push(l) }), 2);
  } finally {
    await fs.rm(profile, { recursive: true, force: true });
  }
});

test('the launcher runs the host: a list request is answered over native messaging', { timeout: 20_000 }, async () => {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'slop-home-'));
  try {
    const { launcher } = await installHost({ home, browsers: ['firefox'] });
    // An empty PATH, as a browser may give: the launcher names Node by its absolute path.
    const child = spawn(launcher, ['/path/to/manifest.json', 'slop-inspector@slop.invalid'], { env: { PATH: '', SLOP_PROVIDER_DIRS: path.join(home, 'none') }, stdio: ['pipe', 'pipe', 'pipe'] });
    const got = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer')), 15_000);
      const r = nativeReader({ onMessage: (m) => { clearTimeout(timer); resolve(m); }, onError: reject });
      child.stdout.on('data', (b) => r.push(b));
      child.stdin.write(frameNative('{"type":"list"}'));
    });
    assert.equal(got.type, 'local-providers');
    child.stdin.end();
    assert.equal(await new Promise((r) => child.on('exit', r)), 0);
  } finally {
    await fs.rm(home, { recursive: true, force: true });
  }
});
