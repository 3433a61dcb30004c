// target.js: the provider a command names, the same way for tree, watch, invoke, tools and check:
// a ws:// URL, a page's address (read for the provider it names), host:port, bridge:<provider>
// (a tab's provider through a desktop bridge), unix:/path, local:<id or name> (its descriptor),
// or a command after `--` (run with stdio). Also the token, and the connection with the options
// every one of them takes.

import fs from 'node:fs';
import { readAddress, commandText, localAddress } from '../../provider-address.js';
import { findPageProvider } from '../../page-discovery.js';
import { loadSlopCoreNode } from '../load-core.js';
import { connect } from '../client.js';
import { scanLocalProviders, pickLocalProvider, descriptorMismatch } from '../local-discovery.js';
import { UsageError, CliExit, int, say } from './common.js';

export const BRIDGE_PREFIX = 'bridge:';

/** The options of every command that names a provider. @type {Readonly<Record<string, {type: 'string'|'boolean'}>>} */
export const CONNECT_OPTIONS = Object.freeze({
  'token-file': { type: 'string' }, origin: { type: 'string' }, timeout: { type: 'string' },
  bridge: { type: 'string' }, 'run-command': { type: 'boolean' },
});

/**
 * @typedef {object} Target
 * @property {string|{command: string[]}} url   what connect() takes (a bridge: address as typed)
 * @property {any} descriptor   the local descriptor a local:<id> was read from, or null
 * @property {string|null} token
 * @property {number} timeout
 */

/**
 * Reads and checks what the command line names; a page's address is read for its provider, a
 * local:<id> for its descriptor (its command run only once confirmed).
 * @param {string} command the command's name @param {import('./common.js').CliContext} ctx
 * @param {{bridge?: boolean}} [o] bridge: a bridge:<provider> address is taken
 * @returns {Promise<Target>}
 */
export async function resolveTarget(command, { opt, args, stdioCommand }, { bridge = true } = {}) {
  const typed = stdioCommand ? undefined : args[0];
  if (!stdioCommand && !typed) throw new UsageError('no provider URL');
  const timeout = int('timeout', opt.timeout, 10_000);
  const token = readToken(opt);
  /** @type {Target} */
  const target = { url: stdioCommand ? { command: stdioCommand } : /** @type {string} */ (typed), descriptor: null, token, timeout };
  if (typeof target.url !== 'string') return target;
  const url = target.url;
  if (opt.bridge !== undefined && !url.startsWith(BRIDGE_PREFIX)) throw new UsageError('--bridge goes with a bridge:<provider> address');
  if (!bridge && url.startsWith(BRIDGE_PREFIX)) throw new UsageError(`${command} takes a ws:// URL (a provider a bridge relays is judged with tree or watch)`);
  if (url === BRIDGE_PREFIX) throw new UsageError('bridge: needs a provider (its providerKey, name or id)');
  if (url.startsWith('unix:') && !url.startsWith('unix:/')) throw new UsageError('a unix: address is the socket\'s absolute path: unix:/tmp/slop/app.sock');
  if (url === 'local:') throw new UsageError('local: needs a provider (its id or name: see slop-inspector list)');
  if (url.startsWith('local:')) Object.assign(target, await localTarget(command, url, opt));
  else if (!url.startsWith('unix:') && !url.startsWith(BRIDGE_PREFIX)) target.url = await providerUrl(url);
  return target;
}

/** The token from --token-file, else $SLOP_TOKEN (never the command line, which every user can read). @param {Record<string, any>} opt */
function readToken(opt) {
  if (!opt['token-file']) return process.env.SLOP_TOKEN || null;
  try {
    return fs.readFileSync(opt['token-file'], 'utf8').trim();
  } catch (e) {
    throw new UsageError(`cannot read --token-file: ${/** @type {any} */ (e).code ?? /** @type {any} */ (e).message}`);
  }
}

/**
 * A local:<id> address: its descriptor's transport. A WebSocket is its URL; a socket, unix:<path>;
 * a command runs only when the user confirms that exact argv (asked on a terminal, else
 * --run-command: not --yes, which confirms a dangerous invoke and should not also run programs).
 * @param {string} command @param {string} text @param {Record<string, any>} opt
 */
async function localTarget(command, text, opt) {
  let p;
  try {
    p = pickLocalProvider(scanLocalProviders(await loadSlopCoreNode()), text.slice(6), { verb: `slop-inspector ${command}` });
  } catch (e) {
    throw new CliExit(1, /** @type {any} */ (e).message);
  }
  if (p.stale) say(`${p.file} names pid ${p.pid}, which is not running: the descriptor may be stale`);
  const t = p.transport;
  if (t.type === 'ws') return { url: t.url, descriptor: p };
  if (t.type === 'unix') return { url: localAddress(t), descriptor: p };
  process.stderr.write(`slop-inspector: local provider "${p.name}" (${p.file}) runs the command:\n  ${commandText(t.command)}\n`);
  if (!opt['run-command']) {
    if (!process.stdin.isTTY || !process.stderr.isTTY) {
      throw new CliExit(1, `not run: confirm it with --run-command (it runs as that argv, without a shell)${opt.yes ? '; --yes confirms a dangerous invoke, not a command' : ''}`);
    }
    const readline = await import('node:readline/promises');
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
    const answer = await rl.question('Run it? [y/N] ');
    rl.close();
    if (!/^y(es)?$/i.test(answer.trim())) throw new CliExit(1, 'not run');
  }
  return { url: { command: t.command }, descriptor: p };
}

/**
 * The provider's ws:// address from what was typed (provider-address.js): refused before any
 * dial when it cannot be an address (exit 2); a page's address is read for the provider it names
 * (its /.well-known/slop, then its <meta name="slop">), said on stderr (exit 1 when it names none).
 * @param {string} text
 */
async function providerUrl(text) {
  const a = readAddress(text);
  if (!a.ok) throw new UsageError(a.problem);
  if (a.read) say(a.read);
  if (a.kind === 'ws') return /** @type {string} */ (a.url); // ok: a url
  const found = await findPageProvider(/** @type {string} */ (a.url), { core: await loadSlopCoreNode(), meta: true });
  if (!found.ok) {
    throw new CliExit(1, `${found.message}${found.inPage ? '; while SLOP Inspector shares the tab, reach it through the desktop bridge: bridge:<name>' : ''}`);
  }
  say(/** @type {string} */ (found.via)); // ok: url and via
  return /** @type {string} */ (found.url);
}

/** Says when the provider that answered is not the one the descriptor names. @param {Target} target @param {any} hello */
export function sayMismatch(target, hello) {
  const text = target.descriptor && descriptorMismatch(target.descriptor, hello);
  if (text) say(text);
}

/** The address as the report names it. @param {Target} target */
export const targetText = (target) => (typeof target.url === 'string' ? target.url : localAddress({ type: 'stdio', command: target.url.command }));

/**
 * Connects and waits until live (the Node client); the timeout bounds the connection and then each
 * request's answer. A descriptor whose provider answers under another id is said.
 * @param {Target} target @param {Record<string, any>} opt
 */
export async function connectTarget(target, opt) {
  const { url, token, timeout } = target;
  const client = typeof url === 'string' && url.startsWith(BRIDGE_PREFIX)
    ? await connect({ bridge: opt.bridge, provider: url.slice(BRIDGE_PREFIX.length), token, origin: opt.origin, timeout, requestTimeout: timeout, numbers: 'verbatim' })
    : await connect(url, { token, origin: opt.origin, timeout, requestTimeout: timeout, surface: 'cli', numbers: 'verbatim' });
  try {
    sayMismatch(target, (await client.info()).provider);
  } catch (e) {
    client.close();
    throw e;
  }
  return client;
}

/**
 * Runs fn on a connected client and closes it after, whatever happens; a failure is said (exit 1).
 * @param {Target} target @param {Record<string, any>} opt @param {(client: import('../client.js').SlopClient) => Promise<void>} fn
 */
export async function withClient(target, opt, fn) {
  let client;
  try {
    client = await connectTarget(target, opt);
    await fn(client);
  } catch (e) {
    throw e instanceof CliExit || e instanceof UsageError ? e : new CliExit(1, /** @type {any} */ (e).message);
  } finally {
    client?.close();
  }
}
