// native-host-install.js: `slop-inspector install-host`: registers the native messaging host
// (bin/slop-native-host.js) with the browsers of this user, so the extension can list and open
// local apps. Per browser it writes the host manifest <HOST_NAME>.json:
//   Chromium        ~/.config/chromium/NativeMessagingHosts/
//   Google Chrome   ~/.config/google-chrome/NativeMessagingHosts/
//   Firefox         ~/.mozilla/native-messaging-hosts/
//   --profile DIR   DIR/NativeMessagingHosts/ (a Chromium --user-data-dir profile reads its own)
// Its `path` is a small launcher script (a browser starts a host with no PATH guarantee: the
// launcher execs this Node, by its absolute path, on the host script's absolute path). Chromium
// and Chrome admit only `allowed_origins` (chrome-extension://<id>/: the id fixed by the manifest's
// `key`, plus any --extension-id given); Firefox only `allowed_extensions` (the manifest's gecko id).

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { HOST_NAME } from '../native-host-protocol.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const HOST_SCRIPT = path.join(ROOT, 'bin', 'slop-native-host.js');
const DESCRIPTION = 'SLOP Inspector: local SLOP apps (Unix sockets, stdio, ~/.slop/providers) for the extension';

/** Where each browser reads a user's host manifests, under `home`. */
export const BROWSER_DIRS = Object.freeze({
  chromium: ['.config', 'chromium', 'NativeMessagingHosts'],
  chrome: ['.config', 'google-chrome', 'NativeMessagingHosts'],
  firefox: ['.mozilla', 'native-messaging-hosts'],
});

/** Chromium's extension id of a manifest `key` (base64 DER public key): sha256, 32 hex digits as a-p. @param {string} key */
export function extensionIdOfKey(key) {
  const hex = crypto.createHash('sha256').update(Buffer.from(key, 'base64')).digest('hex').slice(0, 32);
  return [...hex].map((d) => String.fromCharCode(97 + parseInt(d, 16))).join('');
}

/** The extension's ids from its manifest.json: {chromeId, geckoId}. */
export async function extensionIds(manifestPath = path.join(ROOT, 'manifest.json')) {
  const m = JSON.parse(await fs.readFile(manifestPath, 'utf8'));
  return { chromeId: m.key ? extensionIdOfKey(m.key) : null, geckoId: m.browser_specific_settings?.gecko?.id ?? null };
}

/** A shell word in single quotes. @param {string} s */
const quote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Writes the launcher and the host manifests.
 * @param {{browsers?: string[], home?: string, profile?: string|null, extensionIds?: string[],
 *          nodePath?: string, hostScript?: string, launcherDir?: string}} [o]
 *   browsers: of BROWSER_DIRS (default all three); profile: a Chromium user-data dir (then only
 *   it); extensionIds: more Chromium ids to admit (a store install)
 * @returns {Promise<{launcher: string, manifests: {browser: string, file: string}[]}>}
 */
export async function installHost({
  browsers = Object.keys(BROWSER_DIRS), home = os.homedir(), profile = null, extensionIds: extraIds = [],
  nodePath = process.execPath, hostScript = HOST_SCRIPT, launcherDir,
} = {}) {
  for (const b of browsers) if (!Object.hasOwn(BROWSER_DIRS, b)) throw new Error(`unknown browser "${b}" (one of ${Object.keys(BROWSER_DIRS).join(', ')})`);
  for (const id of extraIds) if (!/^[a-p]{32}$/.test(id)) throw new Error(`"${id}" is not a Chromium extension id (32 letters a to p)`);
  const { chromeId, geckoId } = await extensionIds();
  const chromeIds = [...new Set([chromeId, ...extraIds].filter(Boolean))];
  const dir = launcherDir ?? (profile ? path.resolve(profile, 'NativeMessagingHosts') : path.join(home, '.local', 'share', 'slop-inspector'));
  await fs.mkdir(dir, { recursive: true });
  const launcher = path.join(dir, 'slop-native-host');
  await fs.writeFile(launcher, `#!/bin/sh\n# Written by slop-inspector install-host: the SLOP Inspector native messaging host.\nexec ${quote(path.resolve(nodePath))} ${quote(path.resolve(hostScript))} "$@"\n`, { mode: 0o755 });
  await fs.chmod(launcher, 0o755);

  const targets = profile ? [{ browser: 'chromium', dir: path.resolve(profile, 'NativeMessagingHosts') }]
    : browsers.map((b) => ({ browser: b, dir: path.join(home, ...BROWSER_DIRS[/** @type {keyof typeof BROWSER_DIRS} */ (b)]) })); // checked above
  const manifests = [];
  for (const t of targets) {
    /** @type {{name: string, description: string, path: string, type: string, allowed_extensions?: unknown[], allowed_origins?: string[]}} */
    const manifest = { name: HOST_NAME, description: DESCRIPTION, path: launcher, type: 'stdio' };
    if (t.browser === 'firefox') manifest.allowed_extensions = [geckoId];
    else manifest.allowed_origins = chromeIds.map((id) => `chrome-extension://${id}/`);
    await fs.mkdir(t.dir, { recursive: true });
    const file = path.join(t.dir, `${HOST_NAME}.json`);
    await fs.writeFile(`${file}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o644 });
    await fs.rename(`${file}.tmp`, file);
    manifests.push({ browser: t.browser, file });
  }
  return { launcher, manifests };
}

/**
 * Removes the host manifests (and the launcher).
 * @param {{browsers?: string[], home?: string, profile?: string|null}} [o]
 * @returns {Promise<string[]>} the files removed
 */
export async function uninstallHost({ browsers = Object.keys(BROWSER_DIRS), home = os.homedir(), profile = null } = {}) {
  const files = profile ? [path.resolve(profile, 'NativeMessagingHosts', `${HOST_NAME}.json`), path.resolve(profile, 'NativeMessagingHosts', 'slop-native-host')]
    : [...browsers.map((b) => path.join(home, ...BROWSER_DIRS[/** @type {keyof typeof BROWSER_DIRS} */ (b)], `${HOST_NAME}.json`)), path.join(home, '.local', 'share', 'slop-inspector', 'slop-native-host')];
  const removed = [];
  for (const f of files) {
    try { await fs.unlink(f); removed.push(f); } catch { /* not there */ }
  }
  return removed;
}

export const INSTALL_USAGE = `usage: slop-inspector install-host [--browser chromium,chrome,firefox] [--profile DIR] [--extension-id ID]... [--uninstall]
  Registers the native messaging host that lets the extension show local SLOP apps.
  --browser       which browsers (default: all three)
  --profile DIR   a Chromium --user-data-dir profile: write into DIR/NativeMessagingHosts only
  --extension-id  another Chromium extension id to admit (e.g. a store install)
  --uninstall     remove what install-host wrote`;

/**
 * The CLI's `install-host` (bin/slop-inspector.js hands it the words after the subcommand).
 * @param {string[]} argv @param {{out?: (line: string) => void, err?: (line: string) => void, home?: string}} [io]
 * @returns {Promise<number>} the exit code
 */
export async function runInstallHost(argv, { out = (l) => console.log(l), err = (l) => console.error(l), home } = {}) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        browser: { type: 'string' }, profile: { type: 'string' }, 'extension-id': { type: 'string', multiple: true },
        uninstall: { type: 'boolean', default: false }, help: { type: 'boolean', default: false },
      },
    }));
  } catch (e) {
    err(`${/** @type {Error} */ (e).message}\n${INSTALL_USAGE}`); // parseArgs's
    return 2;
  }
  if (values.help) { out(INSTALL_USAGE); return 0; }
  const browsers = values.browser ? values.browser.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
  try {
    if (values.uninstall) {
      const removed = await uninstallHost({ browsers, home, profile: values.profile ?? null });
      out(removed.length ? removed.map((f) => `removed ${f}`).join('\n') : 'nothing to remove');
      return 0;
    }
    const r = await installHost({ browsers, home, profile: values.profile ?? null, extensionIds: values['extension-id'] ?? [] });
    out(`wrote ${r.launcher} (runs ${HOST_SCRIPT} with ${process.execPath})`);
    for (const m of r.manifests) out(`wrote ${m.file} (${m.browser})`);
    out(`The extension can now reach local apps: turn on "Local apps" in its Options.`);
    // npx runs a package from its cache, which npm cleans: the launcher would then point at nothing.
    if (/[\\/]_npx[\\/]/.test(HOST_SCRIPT)) {
      err('install-host: note: this copy of slop-inspector runs from npx\'s cache, which npm may clean; for a host that lasts, install the package (npm install -g slop-inspector, or in your project) and run its install-host');
    }
    return 0;
  } catch (/** @type {any} */ e) { // an Error: ours, or the file system's
    err(`install-host: ${e.message}`);
    return e.message.startsWith('unknown browser') || e.message.includes('not a Chromium extension id') ? 2 : 1;
  }
}
