// main.js: the `slop-inspector` command line (bin/slop-inspector.js calls main). It finds the
// command (commands.js), parses the options that command takes (an option another command takes
// is said to go with that one), and runs it; its exit code: 0 done, 1 the provider or the
// connection failed (for check: nothing answered, or it never went live without breaking a MUST
// rule), 2 bad usage, 3 check found a MUST rule broken.

import { parseArgs } from 'node:util';
import { COMMANDS } from './commands.js';
import { UsageError, CliExit, say } from './common.js';

const TRAILER = `options:
  --token-file FILE   read the token from FILE (else $SLOP_TOKEN; none: connect without one)
  --origin ORIGIN     the Origin header to send (for providers that check it)
  --timeout MS        how long to wait for the provider, and for the answer to a request (default 10000)
  --bridge URL        the desktop bridge for a bridge:<provider> address (default ws://127.0.0.1:9339/slop-bridge)
a <ws-url> may also be a page's http(s):// address (its /.well-known/slop or <meta name="slop"> says
where the provider is, and the command says what it found), or host:port (read the same way);
for tree, watch, invoke and tools it may be bridge:<provider>: a provider a desktop bridge shares
(its providerKey, name or id).
A local provider: unix:/path/to/app.sock, local:<id or name> (its descriptor, see list), or its
command after -- (slop-inspector tree -- my-tool --slop): run with stdio, never through a shell.
A descriptor's stdio command runs only once you confirm it: asked on a terminal, else
--run-command (--yes confirms a dangerous invoke, never a command).`;

/** Where an option that a command does not take belongs, when more than its commands' names helps. */
const GOES_WITH = {
  watch: 'check (list --watch takes no value)',
  invoke: 'check (for one invoke, use the invoke command)',
  yes: 'invoke: it confirms a dangerous invoke (a descriptor\'s command runs with --run-command)',
};

/** The usage text: every command's lines, then the options and addresses they share. */
export function usageText(commands = COMMANDS) {
  return `usage:\n${commands.map((c) => c.usage).join('\n')}\n${TRAILER}`;
}

/**
 * Runs the command line; resolves with the exit code.
 * @param {string[]} argv the arguments after the program's name
 * @param {readonly import('./common.js').CliCommand[]} [commands]
 */
export async function main(argv, commands = COMMANDS) {
  try {
    return (await run(argv, commands)) ?? 0;
  } catch (e) {
    if (e instanceof UsageError) {
      if (e.message) say(e.message);
      process.stderr.write(`${usageText(commands)}\n`);
      return 2;
    }
    if (e instanceof CliExit) {
      if (e.message) say(e.message);
      return e.code;
    }
    say(/** @type {any} */ (e)?.message ?? String(e));
    return 1;
  }
}

/** @param {string[]} argv @param {readonly import('./common.js').CliCommand[]} commands */
async function run(argv, commands) {
  // After `--`: a stdio provider's command, as its argv.
  const dashes = argv.indexOf('--');
  const stdioCommand = dashes === -1 ? null : argv.slice(dashes + 1);
  const before = dashes === -1 ? argv : argv.slice(0, dashes);
  const at = before.findIndex((a) => commands.some((c) => c.name === a));
  const command = at === -1 ? null : commands.find((c) => c.name === before[at]) ?? null;
  if (command?.ownOptions && at === 0) return command.run({ opt: {}, args: [], stdioCommand, argv: argv.slice(1) });
  if (before.includes('--help') || before.includes('-h')) {
    process.stdout.write(`${usageText(commands)}\n`);
    return 0;
  }
  if (!command) {
    const word = before.find((a) => !a.startsWith('-'));
    throw new UsageError(word ? `unknown command "${word}"` : 'no command');
  }
  let parsed;
  try {
    parsed = parseArgs({ args: before.filter((_, i) => i !== at), allowPositionals: true, strict: true, options: { ...command.options } });
  } catch (e) {
    throw new UsageError(optionProblem(/** @type {any} */ (e), command, commands));
  }
  if (stdioCommand && !stdioCommand.length) throw new UsageError('nothing after --: give the provider\'s command (slop-inspector tree -- my-tool --slop)');
  return command.run({ opt: parsed.values, args: parsed.positionals, stdioCommand, argv: argv.slice(at + 1) });
}

/**
 * Words for an option the command does not take (which command does), or parseArgs's own.
 * @param {Error & {code?: string}} e @param {import('./common.js').CliCommand} command
 * @param {readonly import('./common.js').CliCommand[]} commands
 */
function optionProblem(e, command, commands) {
  const name = e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'--?([^']+)'/.exec(e.message)?.[1] : undefined;
  if (!name) return e.message;
  const takers = commands.filter((c) => Object.hasOwn(c.options, name)).map((c) => c.name);
  if (!takers.length) return `${command.name} takes no option --${name}`;
  return `--${name} goes with ${Object.hasOwn(GOES_WITH, name) ? GOES_WITH[/** @type {keyof typeof GOES_WITH} */ (name)] : takers.join(', ')}`;
}
