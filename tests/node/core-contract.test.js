// js-glue/core-contract.js and its .d.ts are made by the build from the contract's lists in
// wasm/include/slop_core.h (wasm/tools/contract_gen.c), the lists the core's own code takes its names
// from. Checked here: the files are the generator's output as it is, the glue refuses a wasm built
// from another table, and no other file of js-glue/, extension/ or bin/ spells a name of the
// contract as a literal where it decides on one (a comparison, a switch, an event it makes up): it
// uses the contract's constants, so a renamed event breaks at one place. In C, the core's sources
// take the names from the lists too (scanned below).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as contract from '../../js-glue/core-contract.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (rel) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const CONTRACT_FILE = 'js-glue/core-contract.js';
const GENERATOR = path.join(ROOT, 'build/host/contract_gen');

test('core-contract.js and .d.ts are what the generator makes of slop_core.h, untouched', () => {
  assert.ok(fs.existsSync(GENERATOR), 'build.sh built wasm/tools/contract_gen.c');
  assert.equal(read(CONTRACT_FILE), execFileSync(GENERATOR, ['js'], { encoding: 'utf8' }));
  assert.equal(read('js-glue/core-contract.d.ts'), execFileSync(GENERATOR, ['dts'], { encoding: 'utf8' }));
  for (const [k, v] of Object.entries(contract)) if (typeof v === 'object') assert.ok(Object.isFrozen(v), `${k} is frozen`);
});

test('the glue refuses a wasm core made from another table, and takes its own', async () => {
  const core = await import('../../js-glue/slop-core.js');
  assert.doesNotThrow(() => core.checkContract(contract.CONTRACT_HASH));
  assert.throws(() => core.checkContract((contract.CONTRACT_HASH ^ 1) >>> 0), /different builds; run build.sh/);
  const loaded = await core.loadSlopCore({ wasmBinary: fs.readFileSync(path.join(ROOT, 'dist/slop_core.wasm')) });
  assert.match(loaded.version(), /\d/);
  // The wasm wrapper's public names are the contract's own objects, not copies.
  assert.equal(core.SlopCode, contract.SlopCode);
  assert.equal(core.DEFAULT_LIMITS, contract.DEFAULT_LIMITS);
});

test('the core\'s C source takes the contract\'s names from its lists', () => {
  // contract.c makes the lists' tables; params.c's codes are the params checker's own (type, enum,
  // required, too_deep, out_of_memory: slop_params_errors), spelled like two protocol_error codes.
  const files = fs.readdirSync(path.join(ROOT, 'wasm/src')).filter((f) => /\.[ch]$/.test(f) && f !== 'contract.c');
  const TYPES = 'hello|snapshot|patch|result|error|event|batch|connect|subscribe|unsubscribe|query|invoke';
  const names = [...Object.values(contract.ProtocolErrorCode), ...Object.values(contract.LocalRefusalCode)];
  const hits = [];
  for (const f of files) {
    read(`wasm/src/${f}`).split('\n').forEach((line, i) => {
      if (/^\s*(\/\*|\*)/.test(line)) return; // prose
      const at = `wasm/src/${f}:${i + 1}: ${line.trim()}`;
      if (/\bslop__event\("/.test(line)) hits.push(`an event made with a literal name: ${at}`);
      if (new RegExp(`"type",\\s*"(${TYPES})"`).test(line)) hits.push(`a message type as a literal: ${at}`);
      if (new RegExp(`strcmp\\((?:t|type->valuestring|v->valuestring), "(${TYPES})"\\)`).test(line)) {
        hits.push(`a message type compared as a literal: ${at}`);
      }
      if (f !== 'params.c') for (const n of names) if (line.includes(`"${n}"`)) hits.push(`"${n}" as a literal: ${at}`);
    });
  }
  assert.deepEqual(hits, [], `use the lists of slop_core.h (SLOP_EV_*, SLOP_PE_*, SLOP_MSG_*, SLOP_CMSG_*, SLOP_LR_*):\n${hits.join('\n')}`);
});

// ---------------------------------------------------------------------------------------------
// No literal of the contract elsewhere.

const alt = (values) => values.map((v) => v.replace(/[^a-zA-Z0-9_]/g, '\\$&')).join('|');
const EVENT = alt(Object.values(contract.CoreEventName));
const E_CODE = alt(Object.keys(contract.SlopCode).filter((k) => k !== 'OK'));
const P_CODE = alt(Object.values(contract.ProtocolErrorCode));
const L_CODE = alt(Object.values(contract.LocalRefusalCode));
const CAP = alt(Object.values(contract.Capability));
const SUB_STATE = alt(Object.values(contract.SubscriptionState));
const Q = `(['"\`])`;
/** [what, pattern]: each match is a hit. A `case` is a hit only inside a switch on an event (below). */
const RULES = [
  ['a core event name compared with an event', new RegExp(`\\bevent\\s*[!=]==?\\s*${Q}(?:${EVENT})\\1|${Q}(?:${EVENT})\\2\\s*[!=]==?\\s*[\\w$.?]*\\bevent\\b(?![\\w$])`)],
  ['a core event name in a list an event is looked up in', new RegExp(`\\[[^\\]]*${Q}(?:${EVENT})\\1[^\\]]*\\]\\.includes\\([\\w$.?]*\\bevent\\)`)],
  ['a core event made up with a literal name', new RegExp(`\\bevent\\s*:\\s*${Q}(?:${EVENT})\\1`)],
  ['a slop_code name as a literal', new RegExp(`${Q}(?:${E_CODE})\\1`)],
  ['a slop_code value compared with a code', /\b\w*[cC]ode\w*(?:\([^)]*\))?\s*[!=]==?\s*-[1-9]\b/],
  ['a local refusal code compared with a code', new RegExp(`\\bcode\\s*[!=]==?\\s*${Q}(?:${L_CODE})\\1`)],
  ['a capability name looked up in capabilities', new RegExp(`\\bcapabilities\\??\\.includes\\(\\s*${Q}(?:${CAP})\\1`)],
  ['a list of the capability names', new RegExp(`\\[\\s*${Q}state\\1\\s*,\\s*${Q}patches\\2`)],
  // A subscription's state travels as ProviderInfo.sync.state (other state machines have a `state` too).
  ['a subscription state compared with a state', new RegExp(`\\bsync\\??\\.state\\s*[!=]==?\\s*${Q}(?:${SUB_STATE})\\1|\\[[^\\]]*${Q}(?:${SUB_STATE})\\2[^\\]]*\\]\\.includes\\([\\w$.?]*\\bsync\\??\\.state\\)`)],
  ['a protocol_error code compared with a code', new RegExp(`\\bcode\\s*[!=]==?\\s*${Q}(?:${P_CODE})\\1|${Q}(?:${P_CODE})\\2\\s*[!=]==?\\s*[\\w$.?]*\\bcode\\b(?![\\w$])`)],
];
const CASE = new RegExp(`\\bcase\\s+${Q}(${EVENT}|${P_CODE}|${L_CODE})\\1\\s*:`, 'g');

/** The discriminant of the switch whose block holds position `at`, or null. */
function switchOf(text, at) {
  let depth = 0;
  for (let i = at; i >= 0; i--) {
    if (text[i] === '}') depth++;
    else if (text[i] === '{' && depth-- === 0) return /\bswitch\s*\(([^)]*(?:\([^)]*\))?[^)]*)\)\s*$/.exec(text.slice(Math.max(0, i - 200), i))?.[1].trim() ?? null;
  }
  return null;
}

/**
 * Every hit in one file's text, as "file:line: what: the line". Comment lines are prose and are
 * skipped (a JSDoc's {'closed'} type, "the connection closed" in words).
 * @param {string} file @param {string} text
 */
function contractLiterals(file, text) {
  const lines = text.split('\n');
  const isComment = (l) => /^\s*(\/\/|\/\*|\*)/.test(l);
  const hits = [];
  lines.forEach((line, i) => {
    if (isComment(line)) return;
    for (const [what, re] of RULES) if (re.test(line)) hits.push(`${file}:${i + 1}: ${what}: ${line.trim()}`);
  });
  for (const m of text.matchAll(CASE)) {
    const n = text.slice(0, m.index).split('\n').length;
    if (isComment(lines[n - 1])) continue;
    const on = switchOf(text, m.index);
    const isEvent = m[2] && Object.values(contract.CoreEventName).includes(m[2]);
    if (on && (isEvent ? /\bevent$/ : /\bcode$/).test(on)) {
      hits.push(`${file}:${n}: a ${isEvent ? 'core event name' : 'protocol_error code'} as a case of switch (${on}): ${lines[n - 1].trim()}`);
    }
  }
  return hits;
}

test('the scan finds the literals it is meant to, and nothing else', () => {
  const found = (src) => contractLiterals('x.js', src).map((h) => h.replace(/^x\.js:\d+: /, '').split(':')[0]);
  for (const src of [
    "if (ev.event === 'patch') x();",
    'if (event.event !== "drift") x();',
    "if (ev?.event !== 'patch' || ev.sub !== sub) return;",
    "const a = 'query' === r.event;",
    "if (['timeout', 'closed'].includes(ev.event)) x();",
    "resolve({ event: 'closed', request: 'request' });",
    "switch (ev.event) {\n  case 'hello': {\n    if (x) { y(); }\n  }\n  case 'result': break;\n}",
    "if (e.codeName === 'E_PARAMS') x();",
    "if (M._slop_consumer_last_code(c) !== -4) x();",
    "if (ev.code === 'resync_loop') x();",
    "switch (ev.reason.code) { case 'bad_json': break; }",
    "if (refused.code === 'file_mode') x();",
    "switch (f.code) { case 'dir_owner': break; }",
    "const affCap = !!p?.capabilities.includes('affordances');",
    "const ALL = ['state', 'patches', 'affordances'];",
    "if (!p || p.sync.state === 'waiting') return;",
    "const stuck = ['stale', 'failed'].includes(p.sync?.state);",
  ]) assert.equal(found(src).length >= 1, true, `a hit in: ${src}`);
  for (const src of [
    "if (last?.kind === 'patch') x();",             // a history step's kind
    "this.failure = type === 'hello' ? a : b;",     // a frame's type
    "if (this.state === 'closed') return;",         // another state machine
    "if (conn.failure?.code === 'protocol_error') x();", // the session's failure code
    "if (watch.state === 'no-stream' || watch.state === 'failed') x();", // another state machine
    "post(ui, { type: Push.EVENT, event: ev });",
    "switch (st.kind) {\n  case 'snapshot': case 'resync': return 1;\n  case 'patch': return 2;\n}",
    "// the connection closed: ev.event === 'closed' here",
    " * @property {'closed'} event",
    "push('done', { trace });",
    "const i = s.indexOf(x); if (i === -1) return;",
    "if (ev.event === CoreEventName.PATCH) x();",
  ]) assert.deepEqual(found(src), [], `no hit in: ${src}`);
});

test('no file in js-glue/, extension/ or bin/ but the contract spells its names and codes', () => {
  const files = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (/\.(m?js)$/.test(e.name) && rel !== CONTRACT_FILE) files.push(rel);
    }
  };
  for (const dir of ['js-glue', 'extension', 'bin']) walk(dir);
  assert.ok(files.length > 50, `${files.length} files scanned`);
  const hits = files.flatMap((f) => contractLiterals(f, read(f)));
  assert.deepEqual(hits, [], `use the constants of ${CONTRACT_FILE} (CoreEventName, SlopCode, ProtocolErrorCode):\n${hits.join('\n')}`);
});
