// The CLI's frame (js-glue/node/cli/main.js): a command added by the recipe in
// docs/architecture.md ("Adding a CLI command": a module and its line in COMMANDS) is listed in
// the usage, parsed with its own options, and an option of another command is said to go with
// that one. In-process: main(argv, commands) with the list the recipe extends.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main, usageText } from '../../js-glue/node/cli/main.js';
import { COMMANDS } from '../../js-glue/node/cli/commands.js';
import { UsageError, CliExit } from '../../js-glue/node/cli/common.js';

/** Runs main with stdout and stderr captured. @param {string[]} argv @param {any[]} commands */
async function run(argv, commands) {
  const saved = { out: process.stdout.write, err: process.stderr.write };
  let stdout = '', stderr = '';
  process.stdout.write = /** @type {any} */ ((chunk) => { stdout += chunk; return true; });
  process.stderr.write = /** @type {any} */ ((chunk) => { stderr += chunk; return true; });
  try {
    return { code: await main(argv, commands), stdout, stderr };
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
  }
}

/** Step 1 of the recipe: the command's module (here, in the test). */
const hello = {
  name: 'hello',
  usage: '  slop-inspector hello  <who> [--loud]                              says hello',
  options: { loud: { type: 'boolean' } },
  /** @param {import('../../js-glue/node/cli/common.js').CliContext} ctx */
  async run({ opt, args }) {
    if (!args[0]) throw new UsageError('hello needs <who>');
    if (args[0] === 'nobody') throw new CliExit(1, 'nobody is there');
    process.stdout.write(`${opt.loud ? 'HELLO' : 'hello'} ${args[0]}\n`);
    return 0;
  },
};
/** Step 2: its line in the list. */
const withHello = [...COMMANDS, hello];

test('a command added by the recipe: listed, run with its options, its errors said with their exit codes', async () => {
  assert.match(usageText(withHello), /\n {2}slop-inspector hello {2}<who> \[--loud\] +says hello\n/);
  assert.deepEqual(await run(['hello', 'ada', '--loud'], withHello), { code: 0, stdout: 'HELLO ada\n', stderr: '' });
  const usage = await run(['hello'], withHello);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /^slop-inspector: hello needs <who>\nusage:\n/);
  assert.deepEqual(await run(['hello', 'nobody'], withHello), { code: 1, stdout: '', stderr: 'slop-inspector: nobody is there\n' });
  // Its option is its own; another command's is said to belong there.
  const other = await run(['tree', 'ws://127.0.0.1:1/', '--loud'], withHello);
  assert.equal(other.code, 2);
  assert.match(other.stderr, /^slop-inspector: --loud goes with hello\n/);
  const theirs = await run(['hello', 'ada', '--depth', '2'], withHello);
  assert.match(theirs.stderr, /^slop-inspector: --depth goes with tree, profile\n/);
  assert.match((await run(['hello', 'ada', '--nope'], withHello)).stderr, /^slop-inspector: hello takes no option --nope\n/);
});

test('the frame: --help, no command, an unknown one, options before the command, the argv after --', async () => {
  const help = await run(['--help'], COMMANDS);
  assert.equal(help.code, 0);
  assert.equal(help.stdout, `${usageText(COMMANDS)}\n`);
  for (const c of COMMANDS) assert.ok(help.stdout.includes(c.usage), `${c.name} in the usage`);
  assert.match((await run([], COMMANDS)).stderr, /^slop-inspector: no command\n/);
  assert.match((await run(['fly', 'ws://x'], COMMANDS)).stderr, /^slop-inspector: unknown command "fly"\n/);
  // Options may come before the command, as parseArgs reads them.
  const seen = [];
  const probe = { name: 'probe', usage: '  probe', options: { timeout: { type: 'string' } }, run: async (/** @type {any} */ ctx) => { seen.push(ctx); return 0; } };
  assert.equal((await run(['--timeout', '5000', 'probe', 'x', '--', 'my-tool', '--slop'], [probe])).code, 0);
  assert.deepEqual({ opt: { ...seen[0].opt }, args: seen[0].args, stdio: seen[0].stdioCommand }, { opt: { timeout: '5000' }, args: ['x'], stdio: ['my-tool', '--slop'] });
  assert.match((await run(['probe', '--'], [probe])).stderr, /nothing after --/);
  // The options other commands are known by keep their words.
  assert.match((await run(['tree', 'ws://x', '--watch', '5'], COMMANDS)).stderr, /--watch goes with check \(list --watch takes no value\)/);
  assert.match((await run(['tree', 'ws://x', '--invoke', '/a'], COMMANDS)).stderr, /--invoke goes with check \(for one invoke, use the invoke command\)/);
});
