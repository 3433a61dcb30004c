// local-fixes.js: what to do about a refused provider directory or an ignored descriptor, in the
// exact shell command that fixes it, and one line that fixes them all (local-discovery.js adds
// these to its scan; the CLI, the Node client's errors and the panel's Local apps strip say them).
// The spec's rules stay the core's (slop_local_refusal): this only words the way out.
//
// Every public SLOP SDK creates ~/.slop/providers with mode 0755 and writes its descriptor with
// the umask's 0644, again at every start. A chmod on the directory lasts; one on the file lasts
// until the app starts next. So an ignored 0644 descriptor also names the address that needs no
// descriptor (unix:/path, the ws:// URL, or the command after --), read from the file only when
// nobody but this user could have written it (local-discovery.js peekDescriptor).

import path from 'node:path';
import { commandText } from '../provider-address.js';
import { LocalRefusalCode as L } from '../core-contract.js';

/** A path as a shell reads it, for a fix to copy. @param {string} p */
export const shellPath = (p) => (/^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);

/** The mode the SDKs' descriptors have (their umask's), which the spec's 0600 refuses. */
export const SDK_FILE_MODE = 0o644;

/** What the text says when a fix does not last. */
export const RECREATED =
  'SLOP SDKs write their descriptor again, as 0644, every time the app starts: this fix lasts until the app restarts';

/**
 * A refused directory's fix: `command` (a shell line, or '' when only a person can decide) and
 * `advice` (words, always).
 * @param {string} code the core's (dir_mode, dir_owner, not_a_directory) @param {string} dir
 * @param {'d'|'f'|'l'|'?'} type what lstat found at dir
 */
export function dirFix(code, dir, type) {
  const d = shellPath(dir);
  if (code === L.DIR_MODE) return { command: `chmod 700 ${d}`, advice: 'make it private to you (the SDKs create it 0755; this lasts)' };
  if (code === L.DIR_OWNER) {
    return { command: '', advice: 'it belongs to another user: remove it (or have its owner remove it) and let your providers create it again' };
  }
  // rm on a symbolic link removes the link, not the directory it points to.
  if (type === 'l') return { command: `rm ${d} && mkdir -m 700 ${d}`, advice: 'replace the symbolic link with a directory of your own (rm removes the link only)' };
  return { command: `mv ${d} ${shellPath(`${dir}.old`)} && mkdir -m 700 ${d}`, advice: 'move what is there away and make a directory of your own' };
}

/**
 * An ignored file's fix, as dirFix. A bad name gets the name the spec allows, when one is near.
 * @param {{dir: string, file: string, code: string}} f
 */
export function fileFix(f) {
  const p = shellPath(path.join(f.dir, f.file));
  switch (f.code) {
    case L.FILE_MODE: return { command: `chmod 600 ${p}`, advice: 'make it private to you' };
    case L.FILE_OWNER: return { command: '', advice: 'another user wrote it: remove it if you do not know it' };
    case L.NOT_A_FILE: return { command: '', advice: 'a descriptor is a regular file: a provider writes it there itself' };
    case L.BAD_NAME: {
      const near = f.file.toLowerCase().replace(/\.json$/, '').replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 64);
      return near ? { command: `mv ${p} ${shellPath(path.join(f.dir, `${near}.json`))}`, advice: 'rename it to a name the spec allows' } : { command: '', advice: '' };
    }
    default: return { command: '', advice: '' };
  }
}

/**
 * The address that reaches a provider without its descriptor, from what the descriptor says.
 * @param {{type: string, url?: string, path?: string, command?: string[]}} t
 * @returns {string|null} unix:/path, ws://…, or "-- argv" (to follow a command)
 */
export function directAddress(t) {
  if (t.type === 'unix' && t.path) return `unix:${t.path}`;
  if (t.type === 'ws' && t.url) return t.url;
  if (t.type === 'stdio' && t.command?.length) return `-- ${commandText(t.command)}`;
  return null;
}

/**
 * One shell line that runs every fix there is a command for (directories first), or null.
 * @param {{refused: {fix?: string}[], ignored: {fix?: string}[]}} scan
 */
export function fixAllLine(scan) {
  const commands = [...scan.refused, ...scan.ignored].map((x) => x.fix).filter(Boolean);
  if (commands.length < 1) return null;
  // chmods of one mode join into one command; the rest follow in order.
  const modes = new Map();
  const rest = [];
  for (const c of commands) {
    const m = /^chmod (\d{3}) (.+)$/.exec(/** @type {string} */ (c));
    if (m) modes.set(m[1], [...(modes.get(m[1]) ?? []), m[2]]);
    else rest.push(c);
  }
  return [...[...modes].map(([mode, paths]) => `chmod ${mode} ${paths.join(' ')}`), ...rest].join(' && ');
}

/**
 * Lines that say an ignored file, its fix, and when the fix does not last, the direct address.
 * @param {{dir: string, file: string, why: string, fix?: string, advice?: string, recreated?: boolean, direct?: string|null, inRefusedDir?: boolean}} f
 * @param {string} [verb] what runs the direct address (the CLI's "slop-inspector tree"; '': the address alone)
 */
export function ignoredLines(f, verb = '') {
  const lines = [`ignored ${path.join(f.dir, f.file)}: ${f.why}${f.inRefusedDir ? ' (and its directory is refused)' : ''}`];
  if (f.fix) lines.push(`  fix: ${f.fix}`);
  else if (f.advice) lines.push(`  ${f.advice}`);
  if (f.recreated) lines.push(`  ${RECREATED}${f.direct ? `; to reach it without a descriptor: ${verb ? `${verb} ` : ''}${f.direct}` : ''}`);
  return lines;
}
