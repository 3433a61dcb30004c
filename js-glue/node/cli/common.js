// common.js: what every command of the `slop-inspector` CLI shares: its errors (a usage error exits
// 2 with the usage; a failure exits with its code and its words), writing out, integers and JSON
// from the command line, and waiting for Ctrl-C. A command is a module under cli/ (see
// commands.js); main.js parses its options and runs it.

import { parseExact } from '../../exact-json.js';

/** A mistake in the command line: exit 2, the message and the usage on stderr. */
export class UsageError extends Error {}

/** The command cannot go on: exit `code`, the message (if any) on stderr as "slop-inspector: …". */
export class CliExit extends Error {
  /** @param {number} code @param {string} [message] */
  constructor(code, message = '') {
    super(message);
    this.code = code;
  }
}

/** A line on stdout (a newline added when it has none). @param {string} text */
export const out = (text) => { process.stdout.write(text.endsWith('\n') ? text : `${text}\n`); };

/** A line on stderr, said as the command's. @param {string} text */
export const say = (text) => { process.stderr.write(`slop-inspector: ${text}\n`); };

/**
 * An integer option, or fallback when absent.
 * @param {string} name @param {string|undefined} text @param {number} fallback
 */
export function int(name, text, fallback) {
  if (text === undefined) return fallback;
  if (!/^-?\d+$/.test(text)) throw new UsageError(`--${name} must be an integer`);
  return Number(text);
}

/** Params given as JSON, read with the provider's digits kept. @param {string} text */
export function jsonArg(text) {
  try {
    return parseExact(text);
  } catch {
    throw new UsageError('params must be JSON, for example \'{"folder":"archive"}\'');
  }
}

/** Resolves on Ctrl-C (SIGINT) or SIGTERM: the end of a command that follows something. */
export const untilStopped = () => new Promise((resolve) => {
  process.once('SIGINT', resolve);
  process.once('SIGTERM', resolve);
});

/**
 * @typedef {object} CliContext  what a command's run() gets
 * @property {Record<string, any>} opt      its options, parsed (strings, booleans)
 * @property {string[]} args                the positionals after the command's name
 * @property {string[]|null} stdioCommand   the argv after `--` (a stdio provider's command), or null
 * @property {string[]} argv                the raw arguments after the command's name (for a command that parses its own)
 */

/**
 * @typedef {object} CliCommand  one command: its module's default export
 * @property {string} name
 * @property {string} usage      its lines in the usage text (name, arguments, what it does)
 * @property {Record<string, {type: 'string'|'boolean', short?: string}>} options  the options it takes
 * @property {boolean} [ownOptions]  it parses its own options from ctx.argv (install-host)
 * @property {(ctx: CliContext) => Promise<number|void>} run  resolves with the exit code (none: 0)
 */
