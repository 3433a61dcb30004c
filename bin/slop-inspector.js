#!/usr/bin/env node
// slop-inspector: a terminal inspector on the Node client (js-glue/node/client.js).
//
//   slop-inspector tree   <ws-url> [--path P] [--depth D] [--json]
//   slop-inspector watch  <ws-url> [--json]
//   slop-inspector invoke <ws-url> <path> <action> [params-json] [--yes]
//   slop-inspector tools  <ws-url>
//   slop-inspector check  <ws-url> [--watch MS] [--drift] [--invoke PATH ACTION [--params JSON]]
//                         [--allow RULE,...] [--json|--markdown]
//   slop-inspector bridge [--port P] [--host H] [--new-code] [--print-code]
//   slop-inspector list   [--json] [--watch]
//   slop-inspector install-host [--browser chromium,chrome,firefox] [--profile DIR] [--uninstall]
//
// A local provider is `unix:<socket path>`, `local:<id or name>` (its descriptor in
// ~/.slop/providers/ or /tmp/slop/providers/), or a command after `--` (run with stdio, as its
// argv, never through a shell). A descriptor's command runs only when the user confirms it (asked
// on a terminal; --run-command otherwise). --yes is only for invoking a dangerous affordance.
//
// tree, watch, invoke and tools also take `bridge:<provider>` (a providerKey, or a provider's name
// or id) for a browser tab's provider that a desktop bridge shares (--bridge URL, default
// ws://127.0.0.1:9339/slop-bridge).
//
// The token comes from $SLOP_TOKEN or --token-file FILE (a token on the command line would be
// visible to every user of the machine in the process list). Exit codes: 0 done, 1 the provider or
// the connection failed (for `check`: nothing answered, or it never went live without breaking a
// MUST rule), 2 bad usage, 3 `check` found a MUST rule broken (live or not).

import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { readAddress } from '../js-glue/provider-address.js';
import { findPageProvider } from '../js-glue/page-discovery.js';
import { loadSlopCoreNode } from '../js-glue/node/load-core.js';
import { connect, checkConformance } from '../js-glue/node/client.js';
import { parseExact, stringifyExact } from '../js-glue/exact-json.js';
import { CoreEventName } from '../js-glue/core-contract.js';
import { eventText, restartOf, restartText } from '../js-glue/event-text.js';
import { reportLines, reportMarkdown } from '../js-glue/conformance-report.js';
import { startBridgeServer, BRIDGE_HOST, BRIDGE_PORT } from '../js-glue/node/bridge-server.js';
import { resolvePairingCode, saveNewCode, codeFile, displayCode, CODE_ENV } from '../js-glue/node/bridge-code.js';
import { scanLocalProviders, watchLocalProviders, pickLocalProvider, descriptorMismatch } from '../js-glue/node/local-discovery.js';
import { ignoredLines } from '../js-glue/node/local-fixes.js';
import { commandText, localAddress } from '../js-glue/provider-address.js';
import { runInstallHost } from '../js-glue/node/native-host-install.js';

const USAGE = `usage:
  slop-inspector tree   <ws-url> [--path P] [--depth D] [--json]   the mirrored tree (canonical text)
  slop-inspector watch  <ws-url> [--json]                           the tree, then each patch as it comes
  slop-inspector invoke <ws-url> <path> <action> [params-json] [--yes]
                                                                    invoke an affordance (--yes for dangerous ones)
  slop-inspector tools  <ws-url>                                    the affordances as LLM tools (JSON)
  slop-inspector check  <ws-url> [--watch MS] [--drift] [--invoke PATH ACTION [--params JSON]]
                        [--allow RULE,...] [--json|--markdown]
                                                                    where the provider breaks SLOP, after
                                                                    watching its patches for MS (default 2000),
                                                                    with --drift comparing the mirror with its
                                                                    state, with --invoke judging the answer to
                                                                    one invoke; a provider that never goes live
                                                                    is judged too; exit 3 on a MUST finding
  slop-inspector bridge [--port P] [--host H] [--new-code] [--print-code]
                                                                    a desktop bridge that pairs with SLOP
                                                                    Inspector (default 127.0.0.1:9339): share
                                                                    your tabs' SLOP apps with desktop agents
                                                                    and CLIs; --new-code replaces the saved
                                                                    pairing code, --print-code prints it and exits
  slop-inspector list   [--json] [--watch]                          local providers (~/.slop/providers/,
                                                                    /tmp/slop/providers/): id, name, transport,
                                                                    whether their pid runs; refused directories
                                                                    and ignored files, and why
  slop-inspector install-host [--browser B,...] [--profile DIR] [--extension-id ID] [--uninstall]
                                                                    register the native messaging host, so the
                                                                    extension's panel shows local apps
options:
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

function usage(message) {
  if (message) process.stderr.write(`slop-inspector: ${message}\n`);
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}

// install-host has its own options (node/native-host-install.js).
if (process.argv[2] === 'install-host') process.exit(await runInstallHost(process.argv.slice(3)));

// After `--`: a stdio provider's command, as its argv.
const argv = process.argv.slice(2);
const dashes = argv.indexOf('--');
const stdioCommand = dashes === -1 ? null : argv.slice(dashes + 1);
let parsed;
try {
  parsed = parseArgs({
    // `list --watch` takes no value (check's --watch MS does).
    args: (dashes === -1 ? argv : argv.slice(0, dashes)).map((a) => (a === '--watch' && argv[0] === 'list' ? '--follow' : a)),
    allowPositionals: true,
    options: {
      'token-file': { type: 'string' }, origin: { type: 'string' }, timeout: { type: 'string' },
      path: { type: 'string' }, depth: { type: 'string' }, json: { type: 'boolean' }, yes: { type: 'boolean' },
      'run-command': { type: 'boolean' },
      watch: { type: 'string' }, allow: { type: 'string' }, markdown: { type: 'boolean' }, drift: { type: 'boolean' },
      invoke: { type: 'string' }, params: { type: 'string' },
      port: { type: 'string' }, host: { type: 'string' }, 'new-code': { type: 'boolean' }, 'print-code': { type: 'boolean' },
      bridge: { type: 'string' }, follow: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (e) {
  usage(e.message);
}
const { values: opt, positionals } = parsed;
const command = positionals[0];
if (stdioCommand && !stdioCommand.length) usage('nothing after --: give the provider\'s command (slop-inspector tree -- my-tool --slop)');
// With a command after --, no address comes before it.
const [typed, ...rest] = stdioCommand ? [undefined, ...positionals.slice(1)] : positionals.slice(1);
/** @type {any} */
let url = stdioCommand ? { command: stdioCommand } : typed;
if (opt.help) { process.stdout.write(`${USAGE}\n`); process.exit(0); }
if (!['tree', 'watch', 'invoke', 'tools', 'check', 'bridge', 'list'].includes(command)) usage(command ? `unknown command "${command}"` : 'no command');

const int = (name, text, fallback) => {
  if (text === undefined) return fallback;
  if (!/^-?\d+$/.test(text)) usage(`--${name} must be an integer`);
  return Number(text);
};
const out = (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);

if (command === 'bridge') {
  if (url !== undefined) usage('bridge takes no address (--host and --port say where it listens)');
  await bridge();
}
if (command === 'list') {
  if (url !== undefined) usage('list takes no address');
  await list();
}
if (opt.watch !== undefined && command !== 'check') usage('--watch MS goes with check (list --watch takes no value)');
if (!url) usage('no provider URL');
for (const o of ['port', 'host', 'new-code', 'print-code']) if (opt[o] !== undefined) usage(`--${o} goes with bridge`);
const timeout = int('timeout', opt.timeout, 10_000);
let token = process.env.SLOP_TOKEN || null;
if (opt['token-file']) {
  try {
    token = fs.readFileSync(opt['token-file'], 'utf8').trim();
  } catch (e) {
    usage(`cannot read --token-file: ${e.code ?? e.message}`);
  }
}
const json = (text) => {
  try { return parseExact(text); } catch { return usage('params must be JSON, for example \'{"folder":"archive"}\''); }
};
let params;
if (command === 'invoke') {
  if (rest.length < 2) usage('invoke needs <path> <action>');
  if (rest[2] !== undefined) params = json(rest[2]);
}
let invoke = null;
if (opt.invoke !== undefined) {
  if (command !== 'check') usage('--invoke goes with check (for one invoke, use the invoke command)');
  if (!rest[0]) usage('--invoke needs PATH ACTION');
  invoke = { path: opt.invoke, action: rest[0], params: opt.params === undefined ? undefined : json(opt.params) };
} else if (opt.params !== undefined) usage('--params goes with check --invoke');

const BRIDGE_PREFIX = 'bridge:';
/** The descriptor a local:<id> address was read from: its hello is compared with it. @type {any} */
let descriptor = null;
/** Says when the provider that answered is not the one the descriptor names. @param {any} hello */
const sayMismatch = (hello) => {
  const text = descriptor && descriptorMismatch(descriptor, hello);
  if (text) process.stderr.write(`slop-inspector: ${text}\n`);
};
const isLocal = typeof url !== 'string' || url.startsWith('unix:') || url.startsWith('local:');
if (typeof url === 'string') {
  if (opt.bridge !== undefined && !url.startsWith(BRIDGE_PREFIX)) usage('--bridge goes with a bridge:<provider> address');
  if (command === 'check' && url.startsWith(BRIDGE_PREFIX)) usage('check takes a ws:// URL (a provider a bridge relays is judged with tree or watch)');
  if (url === BRIDGE_PREFIX) usage('bridge: needs a provider (its providerKey, name or id)');
  if (url.startsWith('unix:') && !url.startsWith('unix:/')) usage('a unix: address is the socket\'s absolute path: unix:/tmp/slop/app.sock');
  if (url === 'local:') usage('local: needs a provider (its id or name: see slop-inspector list)');
  if (url.startsWith('local:')) url = await localProvider(url);
  else if (!isLocal && !url.startsWith(BRIDGE_PREFIX)) url = await providerUrl(url);
}

/**
 * A local:<id> address: its descriptor's transport. A WebSocket is its URL; a socket, unix:<path>;
 * a command runs only when the user confirms that exact argv (asked on a terminal, else
 * --run-command: not --yes, which confirms a dangerous invoke and should not also run programs).
 * @param {string} text
 */
async function localProvider(text) {
  let p;
  try {
    p = pickLocalProvider(scanLocalProviders(await loadSlopCoreNode()), text.slice(6), { verb: `slop-inspector ${command}` });
  } catch (e) {
    process.stderr.write(`slop-inspector: ${e.message}\n`);
    process.exit(1);
  }
  if (p.stale) process.stderr.write(`slop-inspector: ${p.file} names pid ${p.pid}, which is not running: the descriptor may be stale\n`);
  descriptor = p;
  const t = p.transport;
  if (t.type === 'ws') return t.url;
  if (t.type === 'unix') return localAddress(t);
  process.stderr.write(`slop-inspector: local provider "${p.name}" (${p.file}) runs the command:\n  ${commandText(t.command)}\n`);
  if (!opt['run-command']) {
    if (!process.stdin.isTTY || !process.stderr.isTTY) {
      process.stderr.write(`slop-inspector: not run: confirm it with --run-command (it runs as that argv, without a shell)${opt.yes ? '; --yes confirms a dangerous invoke, not a command' : ''}\n`);
      process.exit(1);
    }
    const readline = await import('node:readline/promises');
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
    const answer = await rl.question('Run it? [y/N] ');
    rl.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      process.stderr.write('slop-inspector: not run\n');
      process.exit(1);
    }
  }
  return { command: t.command };
}

/**
 * The provider's ws:// address from what was typed (provider-address.js): refused before any
 * dial when it cannot be an address (exit 2); a page's address is read for the provider it names
 * (its /.well-known/slop, then its <meta name="slop">), said on stderr (exit 1 when it names none).
 * @param {string} text
 */
async function providerUrl(text) {
  const a = readAddress(text);
  if (!a.ok) usage(a.problem);
  if (a.read) process.stderr.write(`slop-inspector: ${a.read}\n`);
  if (a.kind === 'ws') return a.url;
  const found = await findPageProvider(a.url, { core: await loadSlopCoreNode(), meta: true });
  if (!found.ok) {
    process.stderr.write(`slop-inspector: ${found.message}${found.inPage ? '; while SLOP Inspector shares the tab, reach it through the desktop bridge: bridge:<name>' : ''}\n`);
    process.exit(1);
  }
  process.stderr.write(`slop-inspector: ${found.via}\n`);
  return found.url;
}

if (command === 'check') {
  let code;
  try {
    code = await check(int('watch', opt.watch, 2000), (opt.allow ?? '').split(',').filter(Boolean));
  } catch (e) {
    process.stderr.write(`slop-inspector: ${e.message}\n`);
    code = 1;
  }
  process.exit(code);
}

let client;
try {
  // The timeout bounds the connection and then each request's answer (the core's request timeout).
  client = typeof url === 'string' && url.startsWith(BRIDGE_PREFIX)
    ? await connect({ bridge: opt.bridge, provider: url.slice(BRIDGE_PREFIX.length), token, origin: opt.origin, timeout, requestTimeout: timeout, numbers: 'verbatim' })
    : await connect(url, { token, origin: opt.origin, timeout, requestTimeout: timeout, surface: 'cli', numbers: 'verbatim' });
  sayMismatch((await client.info()).provider);
  if (command === 'tree') {
    const path = opt.path ?? '/';
    const depth = int('depth', opt.depth, -1);
    // One format whatever the path and depth: the core's canonical text, or the JSON.
    const found = opt.json ? await client.tree(path, depth) : await client.text({ path, depth });
    if (!found) throw new Error(`no node at ${path}`);
    out(opt.json ? stringifyExact(found, 2) : found);
  } else if (command === 'tools') {
    out(stringifyExact(await client.tools(), 2));
  } else if (command === 'invoke') {
    const result = await client.invoke(rest[0], rest[1], params, { confirmDangerous: !!opt.yes });
    out(stringifyExact(result, 2));
  } else {
    await watch(client, !!opt.json);
  }
  client.close();
} catch (e) {
  client?.close();
  process.stderr.write(`slop-inspector: ${e.message}\n`);
  process.exit(1);
}

/**
 * Judges the provider (live or not: checkConformance), prints the report; the exit code: 3 when a
 * MUST rule not allowed is broken, 1 when it never went live otherwise, else 0.
 */
async function check(ms, allow) {
  const r = await checkConformance(url, { token, origin: opt.origin, timeout, watch: ms, drift: !!opt.drift, invoke, surface: 'cli', numbers: 'verbatim' });
  sayMismatch(r.provider);
  if (r.drift && r.drift.event === CoreEventName.DRIFT && r.drift.status === 'inconclusive') {
    process.stderr.write(`slop-inspector: drift check inconclusive: ${r.drift.message}\n`);
  } else if (r.drift && r.drift.event !== CoreEventName.DRIFT) {
    process.stderr.write(`slop-inspector: drift check failed: ${r.drift.event}${r.drift.message ? `: ${r.drift.message}` : ''}\n`);
  }
  const findings = r.report.findings.filter((f) => !allow.includes(f.rule));
  const shown = { ...r.report, findings, ...(r.invoke ? { invoke: r.invoke } : {}) };
  if (opt.json) out(stringifyExact(shown, 2));
  else if (opt.markdown) out(reportMarkdown(shown, { provider: r.provider, url: typeof url === 'string' ? url : localAddress({ type: 'stdio', command: url.command }) }));
  else out(reportLines(shown).join('\n'));
  if (!r.report.live) process.stderr.write(`slop-inspector: the provider never went live: ${r.report.not_live}\n`);
  if (findings.some((f) => f.severity === 'MUST')) return 3;
  return r.report.live ? 0 : 1;
}

/**
 * Prints the tree, then one line per event until Ctrl-C. The connection follows the provider
 * across restarts (the session's reconnect policy): a lost connection is said once, and a
 * restart (the core's snapshot with restarted: true) as "provider restarted: version 3 after
 * 380" followed by the new tree. --json: each core event as a line, and {"event": "restarted",
 * version, previous_version, provider, tree} after a restart's snapshot.
 */
async function watch(c, json) {
  if (json) out(stringifyExact({ event: 'tree', tree: await c.tree() }));
  else out(await c.text());
  let lost = false;
  await new Promise((resolve) => {
    // Events come one at a time, but reading the new tree is asynchronous: lines keep their order.
    let chain = Promise.resolve();
    const say = (fn) => { chain = chain.then(fn).catch((e) => process.stderr.write(`slop-inspector: ${e.message}\n`)); };
    c.onEvent((ev) => say(async () => {
      const r = restartOf(ev);
      if (json) {
        out(stringifyExact(ev));
        if (r) {
          const info = await c.info();
          out(stringifyExact({ event: 'restarted', version: r.version, previous_version: r.previousVersion, provider: info.provider ?? null, tree: await c.tree() }));
        }
        return;
      }
      if (ev.event === CoreEventName.PATCH) {
        const parts = [['changed', ev.changed], ['added', ev.added], ['removed', ev.removed]]
          .filter(([, list]) => list?.length).map(([k, list]) => `${k} ${list.join(' ')}`);
        out(`v${ev.version} ${ev.ops} op${ev.ops === 1 ? '' : 's'}: ${parts.join('; ') || 'no node changed'}${ev.truncated ? ' (truncated)' : ''}`);
      } else if (ev.event === CoreEventName.CLOSED && ev.request === 'subscribe') {
        // The subscription ends with the connection: said once per loss, not once per dial.
        if (!lost) out('connection lost: reconnecting (the tree above is the last one seen)');
        lost = true;
      } else if (ev.event === CoreEventName.SNAPSHOT && (r || lost)) {
        out(r ? `${restartText(r)}; the new tree:` : `back: version ${ev.version}, the tree:`);
        out(await c.text());
        lost = false;
      } else if (ev.event === CoreEventName.HELLO && lost) {
        out(`hello: ${eventText(ev)}`);
      } else {
        const words = eventText(ev);
        out(`${ev.event}${words ? `: ${words}` : ''}`);
      }
    }));
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

/**
 * `slop-inspector list`: the local providers, the directories refused and the files ignored, and
 * why; with --watch, again on every change until Ctrl-C (--json: one JSON object per line).
 */
async function list() {
  const core = await loadSlopCoreNode();
  const show = (scan) => {
    if (opt.json) { out(JSON.stringify(scan)); return; }
    out(listText(scan));
  };
  if (!opt.follow) {
    show(scanLocalProviders(core));
    process.exit(0);
  }
  let first = true;
  const w = watchLocalProviders(core, (scan) => {
    if (!first && !opt.json) out(`--- ${new Date().toTimeString().slice(0, 8)}`);
    first = false;
    show(scan);
  }, { keepAlive: true });
  await new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  w.close();
  process.exit(0);
}

/** A scan as text: a table of providers, then each directory's state, then what was ignored. */
function listText(scan) {
  const lines = [];
  if (!scan.providers.length) lines.push('No local SLOP providers.');
  else {
    // By id, whatever order the directories list their files in (a refresh keeps the rows in place).
    const byId = [...scan.providers].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const rows = byId.map((p) => [
      p.id, p.name,
      p.transport.type === 'ws' ? p.transport.url : localAddress(p.transport),
      p.pid === null ? '-' : `${p.pid} ${p.stale ? 'stale (not running)' : 'running'}`,
    ]);
    const head = ['ID', 'NAME', 'TRANSPORT', 'PID'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const r of [head, ...rows]) lines.push(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
  }
  lines.push('');
  for (const d of scan.dirs) {
    if (d.state === 'absent') lines.push(`${d.dir}: absent`);
    else if (d.state === 'ok') lines.push(`${d.dir}: ${scan.providers.filter((p) => p.dir === d.dir).length} provider(s)`);
    else lines.push(`${d.dir}: refused, not read: ${d.why}${d.fix ? `\n  fix: ${d.fix}` : d.advice ? `\n  ${d.advice}` : ''}`);
  }
  for (const f of scan.ignored) lines.push(...ignoredLines(f, 'slop-inspector tree'));
  if (scan.fixAll && scan.refused.length + scan.ignored.length > 1) lines.push('', `fix all: ${scan.fixAll}`);
  return lines.join('\n');
}

/**
 * `slop-inspector bridge`: prints where it listens and the pairing code once, then one line per
 * event (never the code) until Ctrl-C. Exits 1 when the code is not one or the port is taken.
 */
async function bridge() {
  const port = int('port', opt.port, BRIDGE_PORT);
  if (port < 0 || port > 65535) usage('--port must be 0 to 65535');
  const host = opt.host ?? BRIDGE_HOST;
  if (opt['print-code']) {
    let pc;
    try {
      pc = opt['new-code'] ? { code: await saveNewCode(codeFile()) } : await resolvePairingCode();
    } catch (e) {
      process.stderr.write(`slop-inspector: ${e.message}\n`);
      process.exit(1);
    }
    out(displayCode(pc.code));
    process.exit(0);
  }
  const stamp = () => new Date().toTimeString().slice(0, 8);
  let srv;
  try {
    // The server takes the port before it looks for a code: a busy port makes and saves none.
    srv = await startBridgeServer({ host, port, newCode: Boolean(opt['new-code']), log: (line) => out(`${stamp()} ${line}`) });
  } catch (e) {
    process.stderr.write(`slop-inspector: ${e.message}\n`);
    process.exit(1);
  }
  const pc = srv.pairingCode;
  const where = {
    file: `kept in ${pc.file}`,
    new: `new, saved in ${pc.file}`,
    env: `from $${CODE_ENV}`,
    option: 'given',
  }[pc.from];
  const loopback = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(host);
  out([
    `SLOP desktop bridge listening at ${srv.url}`,
    `Pairing code: ${displayCode(pc.code)}   (${where})`,
    'Paste it in SLOP Inspector: Options → Desktop bridge → Pairing code',
    '(The SLOP project\'s own browser extension pairs with it too: paste the code as its bridge token.)',
    'Desktop consumers (the Claude Code and Codex plugins, SLOP command-line tools) connect here as to any SLOP bridge.',
    ...(loopback ? [] : [`Warning: listening on ${host}, not loopback: other machines can reach this bridge and try pairing codes.`]),
    'Ctrl-C stops it.',
    '',
  ].join('\n'));
  await new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await srv.close();
  out(`${stamp()} bridge closed`);
  process.exit(0);
}
