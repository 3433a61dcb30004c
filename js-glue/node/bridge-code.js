// bridge-code.js: where `slop-inspector bridge` gets its pairing code (bridge-pairing.js):
// the caller's, else $SLOP_BRIDGE_CODE, else the one kept in the user's config file, else a new one
// written there. The file holds a secret, so its folder is 0700, the file 0600, and it is written
// whole or not at all (a temporary file renamed over it): a crash never leaves half a code.
// Node-only (js-glue/node/ stays out of the extension build).

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { normalizeCode, newPairingCode, CODE_CHARS } from '../bridge-pairing.js';

/** The environment variable that names the code (it wins over the config file). */
export const CODE_ENV = 'SLOP_BRIDGE_CODE';

/**
 * @typedef {object} PairingCode
 * @property {string} code      normalised (what both sides key the HMAC with)
 * @property {string} display   the same in groups of four, as the user pastes it
 * @property {'option'|'env'|'file'|'new'} from  where it came from ('new': made now, saved in file)
 * @property {string} file      the config file (where it is kept, or would be)
 */

/** $XDG_CONFIG_HOME/slop-inspector/bridge.json (default ~/.config/…). @param {NodeJS.ProcessEnv} [env] */
export function codeFile(env = process.env) {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(os.homedir(), '.config');
  return path.join(base, 'slop-inspector', 'bridge.json');
}

/** A normalised code in groups of four. @param {string} code */
export function displayCode(code) {
  return code.match(/.{1,4}/g)?.join('-') ?? code;
}

/** Why a text is not a pairing code, never quoting it (it may be most of a secret). */
const notACode = (/** @type {string} */ where) => new Error(`${where} is not a SLOP Inspector pairing code (${CODE_CHARS} characters of 0-9 and A-Z without I, L, O, U; dashes and spaces are ignored)`);

/**
 * The bridge's pairing code and where it came from.
 * @param {{code?: string|null, env?: NodeJS.ProcessEnv, file?: string}} [o]
 * @returns {Promise<PairingCode>}
 */
export async function resolvePairingCode({ code = null, env = process.env, file = codeFile(env) } = {}) {
  const made = (/** @type {string} */ c, /** @type {PairingCode['from']} */ from) => ({ code: c, display: displayCode(c), from, file });
  if (code !== null && code !== undefined) {
    const c = normalizeCode(code);
    if (!c) throw notACode('the code given');
    return made(c, 'option');
  }
  if (env[CODE_ENV]) {
    const c = normalizeCode(env[CODE_ENV]);
    if (!c) throw notACode(`$${CODE_ENV}`);
    return made(c, 'env');
  }
  const kept = await readCodeFile(file);
  if (kept !== null) return made(kept, 'file');
  return made(await saveNewCode(file), 'new');
}

/** The code kept in file, or null when there is no file. @param {string} file @returns {Promise<string|null>} */
export async function readCodeFile(file) {
  let text;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if (/** @type {NodeJS.ErrnoException} */ (e).code === 'ENOENT') return null;
    throw new Error(`cannot read the pairing code from ${file}: ${/** @type {NodeJS.ErrnoException} */ (e).code ?? e}`);
  }
  let stored = null;
  try { stored = JSON.parse(text)?.code; } catch { stored = null; }
  const c = normalizeCode(stored);
  if (!c) throw notACode(`the code in ${file} (remove the file, or start with --new-code, to make a new one)`);
  return c;
}

/**
 * A new code, written to file (replacing any): the folder made 0700, the file 0600, atomically.
 * @param {string} file @returns {Promise<string>} the code, normalised
 */
export async function saveNewCode(file) {
  const code = /** @type {string} */ (normalizeCode(newPairingCode()));
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  await fs.chmod(dir, 0o700); // mkdir leaves an existing folder's mode as it was
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const body = `${JSON.stringify({ code: displayCode(code), created: new Date().toISOString() }, null, 2)}\n`;
  try {
    const fh = await fs.open(tmp, 'wx', 0o600);
    try {
      await fh.writeFile(body);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw new Error(`cannot save the pairing code in ${file}: ${/** @type {NodeJS.ErrnoException} */ (e).code ?? e}`);
  }
  return code;
}
