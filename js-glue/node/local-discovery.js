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
// A refused directory of this user's (the SDKs make it 0755) is also looked into, names and modes
// only, so that the files the fix would still leave ignored are said with it (local-fixes.js):
// what is inside is never taken for a provider while the directory is refused.
// A descriptor whose pid is not running is stale: shown, never connected to by itself.
// SLOP_PROVIDER_DIRS (paths joined by ":") replaces the two directories, for tests and for
// providers that register elsewhere.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalRefusalCode as L } from '../core-contract.js';
import { dirFix, fileFix, directAddress, fixAllLine, ignoredLines, SDK_FILE_MODE } from './local-fixes.js';

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
 * @property {string} [fix]   refused: the shell command that fixes it ('' when only a person can decide)
 * @property {string} [advice] refused: what to do, in words
 */
/**
 * @typedef {object} IgnoredFile  a file not read, or read and refused
 * @property {string} dir
 * @property {string} file     its name in dir
 * @property {string} code     the core's (file_mode, file_owner, not_a_file, bad_name, bad_descriptor) or unreadable
 * @property {string} why
 * @property {string} [fix]    the shell command that fixes it ('' when none is safe to offer)
 * @property {string} [advice] what to do, in words
 * @property {boolean} [inRefusedDir]  in a refused directory: not opened; said so the fix-all covers it
 * @property {boolean} [recreated]  of the SDKs' mode (0o644), written again at every start: a chmod lasts until then
 * @property {string|null} [id]     what it says its id is (only when nobody else could have written it)
 * @property {string|null} [name]
 * @property {string|null} [direct] the address that needs no descriptor (local-fixes.js directAddress)
 */
/**
 * @typedef {object} LocalScan
 * @property {LocalProvider[]} providers
 * @property {LocalDir[]} dirs
 * @property {LocalDir[]} refused  the refused directories (of dirs)
 * @property {IgnoredFile[]} ignored  files not read, or read and refused
 *   (a name without ".json", and a provider's temp file, are skipped without a word)
 * @property {string|null} fixAll  one shell line running every fix there is a command for
 */

/** The directories scanned: $SLOP_PROVIDER_DIRS, or the spec's two. @param {NodeJS.ProcessEnv} [env] */
export function providerDirs(env = process.env) {
  const set = env.SLOP_PROVIDER_DIRS;
  if (set) return set.split(':').filter(Boolean).map((d) => path.resolve(d));
  return [path.join(os.homedir(), '.slop', 'providers'), '/tmp/slop/providers'];
}

/** 'd' directory, 'f' regular file, 'l' symbolic link, '?' other (the core's file types). @param {fs.Stats} st */
const typeOf = (st) => (st.isSymbolicLink() ? 'l' : st.isDirectory() ? 'd' : st.isFile() ? 'f' : '?');

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

/** An ignored file with its fix. @param {Omit<IgnoredFile, 'fix'|'advice'>} f @returns {{ignored: IgnoredFile}} */
function ignore(f) {
  const { command, advice } = fileFix(f);
  return { ignored: { ...f, fix: command, advice } };
}

/**
 * What an ignored descriptor says (its id, name and direct address), read from the open file only
 * when nobody but this user could have written it: owned by me, not writable by group or others.
 * For the words only: it is never connected to.
 * @param {import('../slop-core.js').SlopCore} core @param {number} fd @param {fs.Stats} st @param {number} me
 */
function peek(core, fd, st, me) {
  if (st.uid !== me || (st.mode & 0o022) !== 0 || !st.isFile()) return null;
  const parsed = core.parseLocalDescriptor(readAll(fd));
  if (!parsed.ok) return null;
  const d = parsed.descriptor;
  return { id: String(d.id), name: String(d.name), direct: directAddress(d.transport) };
}

/** Up to READ_MAX bytes of an open file, as UTF-8. @param {number} fd */
function readAll(fd) {
  const buf = Buffer.alloc(READ_MAX);
  let n = 0, got;
  while (n < READ_MAX && (got = fs.readSync(fd, buf, n, READ_MAX - n, null)) > 0) n += got;
  return buf.subarray(0, n).toString('utf8');
}

/**
 * Reads one descriptor under the hardening rules; a provider, or why it is ignored (with its fix).
 * In a refused directory (inRefusedDir) nothing is a provider: a file that would be refused
 * anyway is said, so that one line fixes both; one that would be read is skipped.
 * @param {import('../slop-core.js').SlopCore} core @param {string} dir @param {string} name @param {number} me
 * @param {boolean} [inRefusedDir]
 * @returns {{provider: LocalProvider}|{ignored: IgnoredFile}|{skipped: true}}
 */
function readDescriptor(core, dir, name, me, inRefusedDir = false) {
  const file = path.join(dir, name);
  const also = inRefusedDir ? { inRefusedDir: true } : {};
  const named = core.localRefusal({ kind: 'name', name });
  // Not opened either way; said only of what looks meant as a descriptor (not a provider's socket,
  // nor its temp file mid-rename, which would flicker in a watch).
  if (named) return named.code === L.TEMP_FILE || !name.includes('.json') ? { skipped: true } : ignore({ dir, file: name, ...named, ...also });
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (e) {
    const code = /** @type {any} */ (e).code;
    if (code === 'ELOOP') {
      const r = core.localRefusal({ kind: 'file', type: 'l', mode: 0o120777, uid: me, me });
      return ignore({ dir, file: name, code: r?.code ?? L.NOT_A_FILE, why: r?.why ?? 'a symbolic link', ...also });
    }
    return ignore({ dir, file: name, code: 'unreadable', why: `cannot open it (${code ?? e})`, ...also });
  }
  let text;
  try {
    const st = fs.fstatSync(fd);
    const refused = core.localRefusal({ kind: 'file', type: typeOf(st), mode: st.mode, uid: st.uid, me });
    if (refused) {
      const sdk = refused.code === L.FILE_MODE && (st.mode & 0o777) === SDK_FILE_MODE;
      const seen = refused.code === L.FILE_MODE ? peek(core, fd, st, me) : null;
      return ignore({ dir, file: name, ...refused, ...also, ...(sdk ? { recreated: true } : {}), ...(seen ?? {}) });
    }
    if (inRefusedDir) return { skipped: true };
    text = readAll(fd);
  } catch (e) {
    return ignore({ dir, file: name, code: 'unreadable', why: `cannot read it (${/** @type {any} */ (e).code ?? e})`, ...also });
  } finally {
    fs.closeSync(fd);
  }
  const parsed = core.parseLocalDescriptor(text);
  if (!parsed.ok) return ignore({ dir, file: name, code: 'bad_descriptor', why: parsed.error });
  const d = parsed.descriptor;
  const pid = typeof d.pid === 'number' ? d.pid : null;
  const alive = pidAlive(pid);
  return {
    provider: { id: d.id, name: d.name, file, dir, descriptor: d, transport: d.transport, pid, alive, stale: alive === false },
  };
}

/**
 * The names in dir, sorted, or why they cannot be listed.
 * @param {string} dir @returns {{names: string[]}|{error: string}}
 */
function listNames(dir) {
  try {
    return { names: fs.readdirSync(dir).sort() };
  } catch (e) {
    return { error: `cannot list it (${/** @type {any} */ (e).code ?? e})` };
  }
}

/**
 * Scans the provider directories once.
 * @param {import('../slop-core.js').SlopCore} core
 * @param {{dirs?: string[], me?: number}} [o]  me: the uid the files must belong to (default: ours)
 * @returns {LocalScan}
 */
export function scanLocalProviders(core, { dirs = providerDirs(), me = process.getuid?.() ?? -1 } = {}) {
  /** @type {LocalScan} */
  const scan = { providers: [], dirs: [], refused: [], ignored: [], fixAll: null };
  for (const dir of dirs) {
    let st;
    try {
      st = fs.lstatSync(dir);
    } catch {
      scan.dirs.push({ dir, state: 'absent' });
      continue;
    }
    const type = typeOf(st);
    const refused = core.localRefusal({ kind: 'dir', type, mode: st.mode, uid: st.uid, me });
    const listed = refused && refused.code !== L.DIR_MODE ? null : listNames(dir);
    if (listed && 'error' in listed) {
      const d = { dir, state: /** @type {'refused'} */ ('refused'), code: 'unreadable', why: listed.error, fix: '', advice: '' };
      scan.dirs.push(d);
      scan.refused.push(d);
      continue;
    }
    if (refused) {
      const { command, advice } = dirFix(refused.code, dir, type);
      const d = { dir, state: /** @type {'refused'} */ ('refused'), code: refused.code, why: refused.why, fix: command, advice };
      scan.dirs.push(d);
      scan.refused.push(d);
    } else {
      scan.dirs.push({ dir, state: 'ok' });
    }
    for (const name of listed && 'names' in listed ? listed.names : []) {
      const r = readDescriptor(core, dir, name, me, !!refused);
      if ('provider' in r) scan.providers.push(r.provider);
      else if ('ignored' in r) scan.ignored.push(r.ignored);
    }
  }
  scan.fixAll = fixAllLine(scan);
  return scan;
}

/**
 * The provider a `local:<id or name>` address names: by id, else by name; a running one before a
 * stale one. A stale descriptor (its pid is not running) found by its name alone is not dialled:
 * naming its id says the user means it. Throws a LocalPickError in words when none or several
 * match: a descriptor ignored under that id or file name is named with why and its fix, and the
 * one line that fixes everything refused.
 * @param {LocalScan} scan @param {string} wanted
 * @param {{verb?: string}} [o]  verb: what runs a direct address, for the words ("slop-inspector tree")
 * @returns {LocalProvider}
 */
export function pickLocalProvider(scan, wanted, { verb = '' } = {}) {
  let hits = scan.providers.filter((p) => p.id === wanted);
  const byId = hits.length > 0;
  if (!hits.length) hits = scan.providers.filter((p) => p.name === wanted);
  if (hits.length > 1) {
    const running = hits.filter((p) => !p.stale);
    if (running.length === 1) hits = running;
  }
  if (hits.length === 1 && (byId || !hits[0].stale)) return hits[0];
  if (hits.length === 1) {
    const p = hits[0];
    throw new LocalPickError(`local provider "${wanted}" (${p.file}) is stale: its pid ${p.pid} is not running; to dial it anyway, name its id: local:${p.id}`, scan, []);
  }
  if (hits.length > 1) {
    throw new LocalPickError(`${hits.length} local providers are called "${wanted}": ${hits.map((p) => p.file).join(', ')}; remove the one you do not mean`, scan, []);
  }
  const where = scan.dirs.map((d) => (d.state === 'refused' ? `${d.dir} (refused: ${d.why})` : d.dir)).join(' and ');
  const known = scan.providers.map((p) => p.id);
  const lines = [`no local provider "${wanted}" in ${where}${known.length ? ` (there are: ${known.join(', ')})` : ''}`];
  const meant = scan.ignored.filter((f) => f.id === wanted || f.name === wanted || f.file === `${wanted}.json`);
  for (const f of meant) lines.push(...ignoredLines(f, verb).map((l) => `  ${l}`));
  const others = scan.ignored.length - meant.length;
  if (!meant.length && (others || scan.refused.length)) {
    lines.push(`  ${[scan.refused.length ? `${scan.refused.length} director${scan.refused.length === 1 ? 'y' : 'ies'} refused` : '', others ? `${others} file${others === 1 ? '' : 's'} ignored` : ''].filter(Boolean).join(', ')}: slop-inspector list says which and why`);
  }
  for (const d of scan.refused) if (!d.fix && d.advice) lines.push(`  ${d.dir}: ${d.advice}`);
  if (scan.fixAll) lines.push(`fix all: ${scan.fixAll}`);
  throw new LocalPickError(lines.join('\n'), scan, meant);
}

/**
 * What to say when the provider that answers at a descriptor's address is not the one the
 * descriptor names (its hello's id differs): most often a stale descriptor whose socket another
 * app now serves. null when they agree.
 * @param {LocalProvider} p @param {{id?: string, name?: string}|null|undefined} hello the provider's hello
 */
export function descriptorMismatch(p, hello) {
  if (!hello || hello.id === undefined || hello.id === p.id) return null;
  const addr = p.transport.type === 'ws' ? p.transport.url : p.transport.type === 'unix' ? `unix:${p.transport.path}` : 'its command';
  const why = p.stale ? `its pid ${p.pid} is not running: the descriptor is stale and another app answers there now` : 'the descriptor and the app disagree';
  return `${p.file} names "${p.id}" (${p.name}), but the provider at ${addr} says it is "${hello.id}"${hello.name ? ` (${hello.name})` : ''}; ${why}`;
}

/** No provider, or not one, for a local:<id> address: the words, and what a tool can act on. */
export class LocalPickError extends Error {
  /** @param {string} message @param {LocalScan} scan @param {IgnoredFile[]} ignored  the files ignored under that id */
  constructor(message, scan, ignored) {
    super(message);
    this.name = 'LocalPickError';
    this.refused = scan.refused;
    this.ignored = ignored;
    this.fixAll = scan.fixAll;
  }
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
      // A refused 0755 directory too: a chmod inside it changes what is said.
      if ((d.state === 'ok' || d.code === L.DIR_MODE) && !watchers.has(d.dir)) {
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
