// local-discovery.js: local SLOP providers, found by their descriptor files in
// ~/.slop/providers/ and /tmp/slop/providers/ (SLOP spec, Transport & Discovery: local discovery).
// Node only. The I/O is here; every judgement is the core's: the filesystem hardening
// (slop_local_refusal: directory owner and mode, file names, the descriptor's owner and mode
// after it is opened) and the descriptor itself (slop_parse_local_descriptor).
//
// The hardening, as the spec requires it:
//   - a directory is read with lstat: one that is a symbolic link, not ours, or open to group or
//     others is refused whole and said once, with how to fix it;
//   - a name is judged before anything is opened (a temp file, a bad name: ignored, never opened);
//   - a descriptor is opened with O_NOFOLLOW (a symbolic link fails to open) and O_NONBLOCK (a
//     FIFO never blocks the scan), and its owner, type and mode are judged on the open file
//     (fstat), so what is read is what was checked.
// A descriptor whose pid is not running is stale: shown, never connected to by itself.
// SLOP_PROVIDER_DIRS (paths joined by ":") replaces the two directories, for tests and for
// providers that register elsewhere.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A descriptor is a few hundred bytes; the core refuses more than 64 KiB. */
const READ_MAX = 64 * 1024 + 1;
/** The directories are read again this often: a dead pid makes no filesystem event. */
const RESCAN_MS = 2000;
/** Events come in bursts (a provider writes its temp file, then renames it). */
const SETTLE_MS = 50;

/**
 * @typedef {object} LocalProvider
 * @property {string} id
 * @property {string} name
 * @property {string} file     the descriptor's path
 * @property {string} dir
 * @property {any} descriptor  as the core normalised it
 * @property {{type: 'unix', path: string}|{type: 'stdio', command: string[]}|{type: 'ws', url: string}} transport
 * @property {number|null} pid
 * @property {boolean|null} alive  null: no pid to tell by
 * @property {boolean} stale   its pid is not running
 */
/**
 * @typedef {object} LocalDir
 * @property {string} dir
 * @property {'ok'|'absent'|'refused'} state
 * @property {string} [code]  refused: the core's code (dir_mode, dir_owner, not_a_directory)
 * @property {string} [why]   refused: why, in words
 * @property {string} [fix]   refused: what to do
 */
/**
 * @typedef {object} LocalScan
 * @property {LocalProvider[]} providers
 * @property {LocalDir[]} dirs
 * @property {LocalDir[]} refused  the refused directories (of dirs)
 * @property {{dir: string, file: string, code: string, why: string}[]} ignored  files not read, or read and refused
 *   (a name without ".json", and a provider's temp file, are skipped without a word)
 */

/** The directories scanned: $SLOP_PROVIDER_DIRS, or the spec's two. @param {NodeJS.ProcessEnv} [env] */
export function providerDirs(env = process.env) {
  const set = env.SLOP_PROVIDER_DIRS;
  if (set) return set.split(':').filter(Boolean).map((d) => path.resolve(d));
  return [path.join(os.homedir(), '.slop', 'providers'), '/tmp/slop/providers'];
}

/** 'd' directory, 'f' regular file, 'l' symbolic link, '?' other (the core's file types). @param {fs.Stats} st */
const typeOf = (st) => (st.isSymbolicLink() ? 'l' : st.isDirectory() ? 'd' : st.isFile() ? 'f' : '?');

/** A path as a shell reads it (for a fix to copy). @param {string} p */
const shellPath = (p) => (/^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);

/** What to do about a refused directory. @param {string} code @param {string} dir */
function dirFix(code, dir) {
  if (code === 'dir_mode') return `chmod 700 ${shellPath(dir)}`;
  if (code === 'dir_owner') return `it belongs to another user: remove it (or have its owner remove it) and let your providers create it again`;
  return `replace it with a directory of your own (mkdir -m 700 ${shellPath(dir)})`;
}

/** Whether a process runs: true, false, or null without a pid. @param {number|null} pid */
export function pidAlive(pid) {
  if (!pid) return null;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return /** @type {any} */ (e).code === 'EPERM'; // it runs, as another user
  }
}

/**
 * Reads one descriptor under the hardening rules; a provider, or why it is ignored.
 * @param {import('../slop-core.js').SlopCore} core @param {string} dir @param {string} name @param {number} me
 * @returns {{provider: LocalProvider}|{ignored: {dir: string, file: string, code: string, why: string}}|{skipped: true}}
 */
function readDescriptor(core, dir, name, me) {
  const file = path.join(dir, name);
  const named = core.localRefusal({ kind: 'name', name });
  // Not opened either way; said only of what looks meant as a descriptor (not a provider's socket,
  // nor its temp file mid-rename, which would flicker in a watch).
  if (named) return named.code === 'temp_file' || !name.includes('.json') ? { skipped: true } : { ignored: { dir, file: name, ...named } };
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (e) {
    const code = /** @type {any} */ (e).code;
    if (code === 'ELOOP') {
      const r = core.localRefusal({ kind: 'file', type: 'l', mode: 0o120777, uid: me, me });
      return { ignored: { dir, file: name, code: r?.code ?? 'not_a_file', why: r?.why ?? 'a symbolic link' } };
    }
    return { ignored: { dir, file: name, code: 'unreadable', why: `cannot open it (${code ?? e})` } };
  }
  let text;
  try {
    const st = fs.fstatSync(fd);
    const refused = core.localRefusal({ kind: 'file', type: typeOf(st), mode: st.mode, uid: st.uid, me });
    if (refused) return { ignored: { dir, file: name, ...refused } };
    const buf = Buffer.alloc(READ_MAX);
    let n = 0, got;
    while (n < READ_MAX && (got = fs.readSync(fd, buf, n, READ_MAX - n, null)) > 0) n += got;
    text = buf.subarray(0, n).toString('utf8');
  } catch (e) {
    return { ignored: { dir, file: name, code: 'unreadable', why: `cannot read it (${/** @type {any} */ (e).code ?? e})` } };
  } finally {
    fs.closeSync(fd);
  }
  const parsed = core.parseLocalDescriptor(text);
  if (!parsed.ok) return { ignored: { dir, file: name, code: 'bad_descriptor', why: parsed.error } };
  const d = parsed.descriptor;
  const pid = typeof d.pid === 'number' ? d.pid : null;
  const alive = pidAlive(pid);
  return {
    provider: { id: d.id, name: d.name, file, dir, descriptor: d, transport: d.transport, pid, alive, stale: alive === false },
  };
}

/**
 * Scans the provider directories once.
 * @param {import('../slop-core.js').SlopCore} core
 * @param {{dirs?: string[], me?: number}} [o]  me: the uid the files must belong to (default: ours)
 * @returns {LocalScan}
 */
export function scanLocalProviders(core, { dirs = providerDirs(), me = process.getuid?.() ?? -1 } = {}) {
  /** @type {LocalScan} */
  const scan = { providers: [], dirs: [], refused: [], ignored: [] };
  for (const dir of dirs) {
    let st;
    try {
      st = fs.lstatSync(dir);
    } catch {
      scan.dirs.push({ dir, state: 'absent' });
      continue;
    }
    const refused = core.localRefusal({ kind: 'dir', type: typeOf(st), mode: st.mode, uid: st.uid, me });
    if (refused) {
      const d = { dir, state: /** @type {'refused'} */ ('refused'), code: refused.code, why: refused.why, fix: dirFix(refused.code, dir) };
      scan.dirs.push(d);
      scan.refused.push(d);
      continue;
    }
    scan.dirs.push({ dir, state: 'ok' });
    let names = [];
    try {
      names = fs.readdirSync(dir).sort();
    } catch (e) {
      const d = { dir, state: /** @type {'refused'} */ ('refused'), code: 'unreadable', why: `cannot list it (${/** @type {any} */ (e).code ?? e})`, fix: '' };
      scan.dirs[scan.dirs.length - 1] = d;
      scan.refused.push(d);
      continue;
    }
    for (const name of names) {
      const r = readDescriptor(core, dir, name, me);
      if ('provider' in r) scan.providers.push(r.provider);
      else if ('ignored' in r) scan.ignored.push(r.ignored);
    }
  }
  return scan;
}

/**
 * The provider a `local:<id>` address names: by id, else by name; a running one before a stale
 * one. Throws an Error in words when none or several match.
 * @param {LocalScan} scan @param {string} wanted
 * @returns {LocalProvider}
 */
export function pickLocalProvider(scan, wanted) {
  let hits = scan.providers.filter((p) => p.id === wanted);
  if (!hits.length) hits = scan.providers.filter((p) => p.name === wanted);
  if (hits.length > 1) {
    const running = hits.filter((p) => !p.stale);
    if (running.length === 1) hits = running;
  }
  if (hits.length === 1) return hits[0];
  if (hits.length > 1) {
    throw new Error(`${hits.length} local providers are called "${wanted}": ${hits.map((p) => p.file).join(', ')}; remove the one you do not mean`);
  }
  const where = scan.dirs.map((d) => (d.state === 'refused' ? `${d.dir} (refused: ${d.why})` : d.dir)).join(' and ');
  const known = scan.providers.map((p) => p.id);
  throw new Error(`no local provider "${wanted}" in ${where}${known.length ? ` (there are: ${known.join(', ')})` : ''}`);
}

/**
 * Watches the provider directories: onScan(scan) now, and again whenever what a scan finds
 * changes (a descriptor written or removed, a directory made or its mode changed, a pid that
 * died). Returns {close()}.
 * @param {import('../slop-core.js').SlopCore} core @param {(scan: LocalScan) => void} onScan
 * @param {{dirs?: string[], me?: number, rescanMs?: number, keepAlive?: boolean}} [o]
 *   keepAlive: the watch alone keeps the process running (a command that only watches)
 */
export function watchLocalProviders(core, onScan, { dirs = providerDirs(), me, rescanMs = RESCAN_MS, keepAlive = false } = {}) {
  let last = '';
  let closed = false;
  /** @type {Map<string, fs.FSWatcher>} */
  const watchers = new Map();
  /** @type {ReturnType<typeof setTimeout>|null} */
  let settle = null;
  const scanNow = () => {
    if (closed) return;
    const scan = scanLocalProviders(core, { dirs, ...(me === undefined ? {} : { me }) });
    // A directory that appeared is watched from now on; inotify cannot watch one that is not there.
    for (const d of scan.dirs) {
      if (d.state === 'ok' && !watchers.has(d.dir)) {
        try {
          const w = fs.watch(d.dir, { persistent: false }, () => soon());
          w.on('error', () => { w.close(); watchers.delete(d.dir); });
          watchers.set(d.dir, w);
        } catch { /* gone again: the timer sees it */ }
      }
    }
    const text = JSON.stringify(scan);
    if (text === last) return;
    last = text;
    onScan(scan);
  };
  const soon = () => {
    if (settle) return;
    settle = setTimeout(() => { settle = null; scanNow(); }, SETTLE_MS);
  };
  const timer = setInterval(scanNow, rescanMs);
  if (!keepAlive) timer.unref?.();
  scanNow();
  return {
    close() {
      closed = true;
      clearInterval(timer);
      if (settle) clearTimeout(settle);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}
