// js-glue/core-contract.js is the core's boundary in JavaScript: its lists are derived here from
// wasm/include/slop_core.h and the core's C source, and must match them exactly. Then no other
// file of js-glue/, extension/ or bin/ may spell a core event name or a core error code as a
// literal where it decides on one (a comparison, a switch, an event it makes up): it uses the
// contract's constants, so a renamed event breaks at one place, checked here.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as contract from '../../js-glue/core-contract.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (rel) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const HEADER = read('wasm/include/slop_core.h');
const C_SOURCE = fs.readdirSync(path.join(ROOT, 'wasm/src')).filter((f) => f.endsWith('.c')).sort()
  .map((f) => read(`wasm/src/${f}`)).join('\n');
const CONTRACT_FILE = 'js-glue/core-contract.js';

/** The body of a C `typedef enum|struct name { ... }` in the header. */
function cBlock(kind, name) {
  const m = new RegExp(`typedef ${kind} ${name} \\{([^}]*)\\} ${name};`).exec(HEADER);
  assert.ok(m, `slop_core.h has typedef ${kind} ${name}`);
  return m[1].replace(/\/\*[\s\S]*?\*\//g, '');
}

/** The enum's members as {NAME (without the prefix): value}. */
function cEnum(name, prefix) {
  const entries = [...cBlock('enum', name).matchAll(/\b([A-Z_]+)\s*=\s*(-?\d+)/g)]
    .map(([, k, v]) => [k.slice(prefix.length), Number(v)]);
  assert.ok(entries.length > 1 && entries.every(([k]) => k), `${name}: ${entries}`);
  return Object.fromEntries(entries);
}

test('the event names are every event the core\'s source emits', () => {
  // slop__event("name") makes every event but the one printed straight into a buffer (the patch).
  const fromC = new Set([...C_SOURCE.matchAll(/\bslop__event\("([a-z_]+)"\)|\{\\"event\\":\\"([a-z_]+)\\"/g)].map((m) => m[1] ?? m[2]));
  assert.ok(fromC.size >= 14, `events found in wasm/src: ${[...fromC]}`);
  assert.ok(Object.isFrozen(contract.CoreEventName));
  assert.deepEqual(Object.values(contract.CoreEventName).sort(), [...fromC].sort());
  for (const [k, v] of Object.entries(contract.CoreEventName)) assert.equal(k, v.toUpperCase(), `CoreEventName.${k}`);
});

test('slop_code, slop_output_kind and the slop_limits layout are the header\'s', async () => {
  assert.deepEqual({ ...contract.SlopCode }, cEnum('slop_code', 'SLOP_'));
  assert.deepEqual({ ...contract.SlopOutputKind }, cEnum('slop_output_kind', 'SLOP_OUT_'));
  // The glue writes each field as 4 bytes: size_t and unsigned on wasm32.
  const fields = [...cBlock('struct', 'slop_limits').matchAll(/^\s*(\w+)\s+(\w+)\s*;/gm)];
  assert.ok(fields.length >= 5, `slop_limits fields: ${fields.map((f) => f[2])}`);
  for (const [, type, field] of fields) assert.ok(['size_t', 'unsigned'].includes(type), `${field} is ${type}`);
  const camel = (s) => s.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
  assert.deepEqual([...contract.LIMIT_FIELDS], fields.map(([, , field]) => camel(field)));
  assert.deepEqual(Object.keys(contract.DEFAULT_LIMITS), [...contract.LIMIT_FIELDS]); // values: header.test.js
  for (const o of [contract.SlopCode, contract.SlopOutputKind, contract.LIMIT_FIELDS, contract.DEFAULT_LIMITS]) assert.ok(Object.isFrozen(o));
  // The wasm wrapper's public names are the contract's own objects, not copies.
  const core = await import('../../js-glue/slop-core.js');
  assert.equal(core.SlopCode, contract.SlopCode);
  assert.equal(core.DEFAULT_LIMITS, contract.DEFAULT_LIMITS);
});

test('the protocol_error codes are the header\'s list and the codes the source reports', () => {
  const m = /C is one of ([a-z_,\s*]+?)\n \* S is/.exec(HEADER);
  assert.ok(m, 'the header lists the protocol_error codes');
  const listed = m[1].split(/[\s*,]+/).filter(Boolean);
  // slop__protocol_error(c, "code", ...), slop__rule_error(c, "rule", "code", ...), and a refused
  // snapshot's code (refuse_snapshot(c, s, q, <code or a choice of codes>, ...)).
  const fromC = new Set();
  for (const [, code] of C_SOURCE.matchAll(/\bslop__(?:protocol_error\(c, |rule_error\(c, "[a-z-]+", )"([a-z_]+)"/g)) fromC.add(code);
  for (const [, arg] of C_SOURCE.matchAll(/\brefuse_snapshot\(c, \w+, \w+, ([^,]+),/g)) {
    for (const [, code] of arg.matchAll(/"([a-z_]+)"/g)) fromC.add(code);
  }
  assert.deepEqual([...fromC].sort(), [...listed].sort(), 'the header lists the codes the source reports');
  assert.deepEqual(Object.values(contract.ProtocolErrorCode).sort(), [...listed].sort());
  assert.ok(Object.isFrozen(contract.ProtocolErrorCode));
});

test('the local refusal codes are every code slop_local_refusal gives', () => {
  const body = /char \*slop_local_refusal\([\s\S]*?\n\}/.exec(read('wasm/src/discovery.c'))?.[0];
  assert.ok(body, 'discovery.c defines slop_local_refusal');
  const fromC = new Set([...body.matchAll(/"([a-z_]+)"/g)].map((m) => m[1]).filter((c) => /_/.test(c) || c === 'dir_mode'));
  assert.deepEqual(Object.values(contract.LocalRefusalCode).sort(), [...fromC].sort());
  assert.ok(Object.isFrozen(contract.LocalRefusalCode));
});

// ---------------------------------------------------------------------------------------------
// The JSDoc types: one typedef per event, with the header's members.

/** The header's events (slop_consumer_next): name → {member: optional?}, top-level members only. */
function headerEvents() {
  const a = HEADER.indexOf('SLOP_OUT_EVENT: a JSON object');
  const b = HEADER.indexOf(' * S is the caller-facing', a);
  assert.ok(a > 0 && b > a, 'the header documents the events');
  const doc = HEADER.slice(a, b).split('\n').map((l) => l.replace(/^ \*\s?/, '')).join(' ');
  const events = new Map();
  for (const start of [...doc.matchAll(/\{"event":"([a-z_]+)"/g)].map((x) => x.index)) {
    const members = new Map();
    let depth = 0;
    for (let i = start; i < doc.length; i++) {
      const ch = doc[i];
      if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') { if (--depth === 0) break; }
      else if (ch === '"' && depth === 1) {
        const m = /^"([a-z_]+)":(\??)/.exec(doc.slice(i));
        if (m) members.set(m[1], m[2] === '?');
        i = doc.indexOf('"', i + 1);
      }
    }
    const name = /"event":"([a-z_]+)"/.exec(doc.slice(start))[1];
    members.delete('event');
    assert.ok(!events.has(name), `"${name}" is documented once`);
    events.set(name, members);
  }
  return events;
}

/** The contract's event typedefs: event name → {typedef, members: {member: optional?}}, and the CoreEvent union. */
function contractTypedefs() {
  const src = read(CONTRACT_FILE);
  const events = new Map();
  for (const [block] of src.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const name = /@property \{'([a-z_]+)'\} event\b/.exec(block)?.[1];
    if (!name) continue;
    const typedef = /@typedef \{object\} (\w+)/.exec(block)?.[1];
    assert.ok(typedef, `the typedef of "${name}" is named`);
    const members = new Map([...block.matchAll(/@property \{.*?\} (\[?)(\w+)\]?(?=\s)/g)].map(([, opt, k]) => [k, opt === '[']));
    members.delete('event');
    assert.ok(!events.has(name), `one typedef for "${name}"`);
    events.set(name, { typedef, members });
  }
  const union = /@typedef \{([\w|]+)\} CoreEvent\b/.exec(src)?.[1].split('|');
  assert.ok(union, 'CoreEvent is a union of the event typedefs');
  return { events, union };
}

/** Members a typedef has beyond the header's, each one the glue's, said in the typedef. */
const GLUE_MEMBERS = { closed: ['message'] }; // the consumer session's own closed event (consumer-session.js)

test('each event has a typedef with the header\'s members, and CoreEvent is their union', () => {
  const header = headerEvents();
  const { events, union } = contractTypedefs();
  assert.deepEqual([...header.keys()].sort(), Object.values(contract.CoreEventName).sort(), 'the header documents every event');
  assert.deepEqual([...events.keys()].sort(), [...header.keys()].sort(), 'a typedef per event');
  assert.deepEqual([...union].sort(), [...events.values()].map((e) => e.typedef).sort(), 'CoreEvent names every event typedef');
  for (const [name, documented] of header) {
    const { typedef, members } = events.get(name);
    for (const [k, optional] of documented) {
      assert.ok(members.has(k), `${typedef} has "${k}" (slop_core.h)`);
      assert.equal(members.get(k), optional, `${typedef}.${k} is ${optional ? 'optional' : 'always there'} (slop_core.h)`);
    }
    const extra = [...members.keys()].filter((k) => !documented.has(k));
    assert.deepEqual(extra, GLUE_MEMBERS[name] ?? [], `${typedef}: members the header does not document`);
  }
});

// ---------------------------------------------------------------------------------------------
// No literal of the contract elsewhere.

const alt = (values) => values.map((v) => v.replace(/[^a-zA-Z0-9_]/g, '\\$&')).join('|');
const EVENT = alt(Object.values(contract.CoreEventName));
const E_CODE = alt(Object.keys(contract.SlopCode).filter((k) => k !== 'OK'));
const P_CODE = alt(Object.values(contract.ProtocolErrorCode));
const L_CODE = alt(Object.values(contract.LocalRefusalCode));
const Q = `(['"\`])`;
/** [what, pattern]: each match is a hit. A `case` is a hit only inside a switch on an event (below). */
const RULES = [
  ['a core event name compared with an event', new RegExp(`\\bevent\\s*[!=]==?\\s*${Q}(?:${EVENT})\\1|${Q}(?:${EVENT})\\2\\s*[!=]==?\\s*[\\w$.?]*\\bevent\\b(?![\\w$])`)],
  ['a core event name in a list an event is looked up in', new RegExp(`\\[[^\\]]*${Q}(?:${EVENT})\\1[^\\]]*\\]\\.includes\\([\\w$.?]*\\bevent\\)`)],
  ['a core event made up with a literal name', new RegExp(`\\bevent\\s*:\\s*${Q}(?:${EVENT})\\1`)],
  ['a slop_code name as a literal', new RegExp(`${Q}(?:${E_CODE})\\1`)],
  ['a slop_code value compared with a code', /\b\w*[cC]ode\w*(?:\([^)]*\))?\s*[!=]==?\s*-[1-9]\b/],
  ['a local refusal code compared with a code', new RegExp(`\\bcode\\s*[!=]==?\\s*${Q}(?:${L_CODE})\\1`)],
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
  ]) assert.equal(found(src).length >= 1, true, `a hit in: ${src}`);
  for (const src of [
    "if (last?.kind === 'patch') x();",             // a history step's kind
    "this.failure = type === 'hello' ? a : b;",     // a frame's type
    "if (this.state === 'closed') return;",         // another state machine
    "if (conn.failure?.code === 'protocol_error') x();", // the session's failure code
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
