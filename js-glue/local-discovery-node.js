// local-discovery-node.js: STAND-IN written on the native-host branch until main's module lands
// (same exports and signatures); drop this file in favour of main's when merging.
//
// Local SLOP providers announce themselves by descriptor files in ~/.slop/providers/ and
// /tmp/slop/providers/ (spec: transport and discovery, local discovery). A directory is scanned
// only when it is the user's own and mode 0700; a descriptor is read only when its name matches
// ^[a-z0-9][a-z0-9._-]{0,63}\.json$ and, re-checked after open (fstat), it is a regular file of
// the user's with no group or other access.

import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const NAME = /^[a-z0-9][a-z0-9._-]{0,63}\.json$/;
const DESCRIPTOR_MAX = 64 * 1024;

/** The directories scanned by default: the user's, then the session's. */
export function defaultProviderDirs(home = os.homedir()) {
  return [path.join(home, '.slop', 'providers'), '/tmp/slop/providers'];
}

/** "~/.slop/providers" for the user's home, else the path. @param {string} dir */
function shown(dir) {
  const home = os.homedir();
  return home && (dir === home || dir.startsWith(home + path.sep)) ? `~${dir.slice(home.length)}` : dir;
}

/** @param {number} pid */
function pidAlive(pid) {
  try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; }
}

/** @param {any} d @returns {string|null} why it is no descriptor */
function descriptorProblem(d) {
  if (!d || typeof d !== 'object' || Array.isArray(d)) return 'not a JSON object';
  for (const f of ['id', 'name', 'slop_version']) if (typeof d[f] !== 'string' || !d[f]) return `"${f}" must be a non-empty string`;
  if (!Array.isArray(d.capabilities)) return '"capabilities" must be a list';
  const t = d.transport;
  if (!t || typeof t !== 'object') return '"transport" is missing';
  if (t.type === 'unix') return typeof t.path === 'string' && path.isAbsolute(t.path) ? null : 'transport.path must be an absolute path';
  if (t.type === 'stdio') return Array.isArray(t.command) && t.command.length > 0 && t.command.every((a) => typeof a === 'string') ? null : 'transport.command must be a list of strings';
  if (t.type === 'ws') return typeof t.url === 'string' && /^wss?:\/\//.test(t.url) ? null : 'transport.url must be a ws:// URL';
  return `transport type ${JSON.stringify(String(t.type))} is not one this consumer opens`;
}

/**
 * @param {any} core unused by the stand-in (main's asks the core to validate descriptors)
 * @param {{dirs?: string[]}} [o]
 */
export async function scanLocalProviders(core, { dirs = defaultProviderDirs() } = {}) {
  const providers = [];
  const refused = [];
  const ignored = [];
  const uid = process.getuid?.() ?? -1;
  for (const dir of dirs) {
    let st;
    try { st = await fsp.lstat(dir); } catch { continue; } // not there: nothing announced
    if (!st.isDirectory()) { refused.push({ dir, why: `${shown(dir)} is not a directory` }); continue; }
    if (st.uid !== uid) { refused.push({ dir, why: `${shown(dir)} belongs to user ${st.uid}, not to you: the spec requires your own directory` }); continue; }
    const mode = st.mode & 0o777;
    if (mode & 0o077) {
      refused.push({ dir, why: `${shown(dir)} is mode 0${mode.toString(8)}: the spec requires 0700 — run chmod 700 ${shown(dir)}` });
      continue;
    }
    let names;
    try { names = await fsp.readdir(dir); } catch (e) { refused.push({ dir, why: `${shown(dir)} cannot be read: ${e.code ?? e.message}` }); continue; }
    for (const file of names.sort()) {
      if (!NAME.test(file)) {
        if (!file.includes('.json.tmp.')) ignored.push({ dir, file, why: 'its name is not one the spec allows ([a-z0-9][a-z0-9._-]*.json)' });
        continue;
      }
      let fd;
      try {
        fd = fs.openSync(path.join(dir, file), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
        const f = fs.fstatSync(fd);
        if (!f.isFile()) { ignored.push({ dir, file, why: 'not a regular file' }); continue; }
        if (f.uid !== uid) { ignored.push({ dir, file, why: `belongs to user ${f.uid}, not to you` }); continue; }
        if (f.mode & 0o077) { ignored.push({ dir, file, why: `mode 0${(f.mode & 0o777).toString(8)}: the spec requires 0600` }); continue; }
        if (f.size > DESCRIPTOR_MAX) { ignored.push({ dir, file, why: `${f.size} bytes: too large for a descriptor` }); continue; }
        const text = fs.readFileSync(fd, 'utf8');
        let d;
        try { d = JSON.parse(text); } catch { ignored.push({ dir, file, why: 'not JSON' }); continue; }
        const problem = descriptorProblem(d);
        if (problem) { ignored.push({ dir, file, why: problem }); continue; }
        const pid = Number.isInteger(d.pid) && d.pid > 0 ? d.pid : null;
        const alive = pid === null ? null : pidAlive(pid);
        providers.push({ id: d.id, name: d.name, file, dir, descriptor: d, transport: d.transport, pid, alive, stale: alive === false });
      } catch (e) {
        ignored.push({ dir, file, why: e.code === 'ELOOP' ? 'a symbolic link' : `cannot be read: ${e.code ?? e.message}` });
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
    }
  }
  return { providers, refused, ignored };
}

/**
 * Scans now and again whenever a directory changes (fs.watch, and every 5 s for directories
 * that appear later).
 * @param {any} core @param {(scan: Awaited<ReturnType<typeof scanLocalProviders>>) => void} onScan
 * @param {{dirs?: string[], intervalMs?: number}} [o]
 */
export function watchLocalProviders(core, onScan, { dirs = defaultProviderDirs(), intervalMs = 5000 } = {}) {
  let closed = false;
  let timer = null;
  const watchers = new Map();
  const rescan = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      scanLocalProviders(core, { dirs }).then((s) => { if (!closed) onScan(s); }, () => {});
    }, 50);
  };
  const attach = () => {
    for (const dir of dirs) {
      if (watchers.has(dir)) continue;
      try {
        const w = fs.watch(dir, rescan);
        w.on('error', () => { w.close(); watchers.delete(dir); rescan(); });
        watchers.set(dir, w);
      } catch { /* not there yet */ }
    }
  };
  attach();
  rescan();
  const poll = setInterval(() => { attach(); rescan(); }, intervalMs);
  poll.unref?.();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      clearInterval(poll);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}
