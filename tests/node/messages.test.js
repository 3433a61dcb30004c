// The message catalogue (extension/shared/messages.js) and its use, checked without a browser:
//   - the catalogue itself: one naming scheme, unique types, error codes, the core's codes mapped,
//     status values in kebab-case;
//   - the content script (a classic script) repeats the content types, PROTOCOL_VERSION and
//     UNCATALOGUED verbatim;
//   - a scan of every extension script (parsed with acorn) fails when a context sends a message
//     that is not in the catalogue: a type spelled as a string, a constant that does not exist,
//     a message built without a catalogue constant, a port post that skips the guard, or a
//     message field that is not camelCase (messages.js, Naming).
// The end-to-end helpers add the runtime half: a context that posts an uncatalogued type drops it
// and prints UNCATALOGUED, and the Chromium and Firefox tests fail on that line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as acorn from 'acorn';
import * as M from '../../extension/shared/messages.js';
import { SlopCode } from '../../js-glue/core-contract.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EXT = path.join(ROOT, 'extension');
const MESSAGES = path.join(EXT, 'shared/messages.js');
const CONTENT = path.join(EXT, 'content/content.js');

/** Each group of types and the sender its prefix names. */
const GROUPS = { FromContent: 'content', ToContent: 'sw', Request: 'ui', Push: 'sw', PanelNote: 'panel', ToProfiler: 'panel', FromProfiler: 'profiler' };
/** Exports of messages.js whose members are checked to exist wherever they are used. */
const CHECKED_EXPORTS = [...Object.keys(GROUPS), 'ErrorCode', 'CORE_ERROR_CODES', 'PORTS', 'Status', 'LIMITS', 'ToHost', 'FromHost'];
const ALL_TYPES = new Set(Object.keys(GROUPS).flatMap((g) => Object.values(M[g])));
/** What a message type looks like under the scheme: `<sender>/<kebab-case-name>`. */
const TYPE_SHAPE = /^(content|sw|ui|panel|profiler)\/[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
/** A field of a catalogue message: camelCase (shared/messages.js, Naming). */
const FIELD_SHAPE = /^[a-z][a-zA-Z0-9]*$/;
/** A value the catalogue names (Status): kebab-case. */
const VALUE_SHAPE = /^[a-z]+(-[a-z]+)*$/;
/** Functions that post a message between contexts (or, #enqueue, into the panel's store). */
const SENDERS = new Set(['post', 'postToContent', 'postMessage', '#post', '#enqueue']);

function extensionScripts(dir = EXT) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return extensionScripts(p);
    return e.name.endsWith('.js') ? [p] : [];
  });
}

function parse(file, text = readFileSync(file, 'utf8')) {
  return acorn.parse(text, {
    ecmaVersion: 'latest', sourceType: file === CONTENT ? 'script' : 'module', locations: true,
  });
}

/** Calls visit(node, ancestors) for every node, depth first, in source order. */
function walk(node, visit, ancestors = []) {
  visit(node, ancestors);
  ancestors.push(node);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'loc') continue;
    for (const child of Array.isArray(value) ? value : [value]) {
      if (child && typeof child.type === 'string') walk(child, visit, ancestors);
    }
  }
  ancestors.pop();
}

const isFunction = (n) => /^(FunctionDeclaration|FunctionExpression|ArrowFunctionExpression)$/.test(n.type);
const nameOf = (n) => n?.type === 'Identifier' ? n.name : n?.type === 'PrivateIdentifier' ? `#${n.name}` : null;
const calleeName = (call) => call.callee.type === 'MemberExpression' ? nameOf(call.callee.property) : nameOf(call.callee);
const typeProperty = (obj) => obj.properties.find((p) => p.type === 'Property' && !p.computed && nameOf(p.key) === 'type');

/** The object literal `const T = {...}` of content.js, as {KEY: value}. */
function contentTable() {
  const found = [];
  walk(parse(CONTENT), (n) => {
    if (n.type === 'VariableDeclarator' && n.id.name === 'T' && n.init?.type === 'ObjectExpression') found.push(n.init);
  });
  assert.equal(found.length, 1, 'one const T = {...} in content.js');
  return Object.fromEntries(found[0].properties.map((p) => [p.key.name, p.value.value]));
}

/**
 * Everything the scan finds wrong in one file, as "file:line: what" strings.
 * `catalogue`: local name → the catalogue object it stands for (imports of messages.js; T in
 * content.js).
 */
function scan(file, text = readFileSync(file, 'utf8')) {
  const rel = path.relative(ROOT, file);
  const ast = parse(file, text);
  const problems = [];
  const at = (n, what) => problems.push(`${rel}:${n.loc.start.line}: ${what}`);
  const catalogue = new Map();
  let table = null; // content.js: the T object literal, where the types may be spelled
  walk(ast, (n) => {
    if (n.type === 'ImportDeclaration' && path.resolve(path.dirname(file), n.source.value) === MESSAGES) {
      for (const s of n.specifiers) {
        if (s.type === 'ImportSpecifier' && CHECKED_EXPORTS.includes(s.imported.name)) catalogue.set(s.local.name, M[s.imported.name]);
      }
    }
    if (file === CONTENT && n.type === 'VariableDeclarator' && n.id.name === 'T') {
      table = n.init;
      catalogue.set('T', contentTable());
    }
  });

  // The fields a message of the catalogue is given by name are camelCase (messages.js, Naming);
  // what SLOP or the core names travels inside them (a request's options, a push's event).
  const fieldNames = (obj, sender) => {
    for (const p of obj.properties) {
      const key = p.type === 'Property' && !p.computed ? nameOf(p.key) ?? p.key.value : null;
      if (typeof key === 'string' && !FIELD_SHAPE.test(key)) at(p, `${sender}() of a message with the field '${key}' (fields of the catalogue's messages are camelCase)`);
    }
  };

  walk(ast, (n, ancestors) => {
    const inTable = table && ancestors.includes(table);
    // A type spelled as a string (only the catalogue and content.js's copy of it may).
    const strings = n.type === 'Literal' && typeof n.value === 'string' ? [n.value]
      : n.type === 'TemplateLiteral' ? n.quasis.map((q) => q.value.cooked) : [];
    for (const s of strings) {
      if (!inTable && (ALL_TYPES.has(s) || TYPE_SHAPE.test(s))) at(n, `message type spelled as a string: '${s}' (use its constant from messages.js)`);
    }
    // A constant of the catalogue that does not exist (its value would be undefined).
    if (n.type === 'MemberExpression' && !n.computed && n.object.type === 'Identifier' && catalogue.has(n.object.name)) {
      const key = nameOf(n.property);
      if (!Object.hasOwn(catalogue.get(n.object.name), key)) at(n, `${n.object.name}.${key} is not in the catalogue`);
    }
    if (n.type !== 'CallExpression') return;
    const name = calleeName(n);
    const fn = ancestors.findLast(isFunction);
    const constant = (v, group) => v?.type === 'MemberExpression' && v.object.type === 'Identifier'
      && catalogue.has(v.object.name) && (!group || catalogue.get(v.object.name) === group);
    // A type handed on by a forwarding function (UiPort.request(type, ...)): checked at its callers.
    const forwarded = (v) => v?.type === 'Identifier'
      && ancestors.some((f) => isFunction(f) && f.params.some((p) => p.type === 'Identifier' && p.name === v.name));
    // A message handed to a sender: its type must be a catalogue constant.
    if (SENDERS.has(name)) {
      for (const arg of n.arguments) {
        const t = arg.type === 'ObjectExpression' ? typeProperty(arg) : null;
        if (t && !constant(t.value) && !forwarded(t.value)) at(arg, `${name}() of a message whose type is not a catalogue constant`);
        if (t) fieldNames(arg, name);
      }
    }
    // A request: its type is Request.X, or a parameter handed on. (The browser's own
    // permissions.request({origins}) is no message.)
    const browserPermissions = n.callee.type === 'MemberExpression' && n.callee.object?.type === 'MemberExpression'
      && nameOf(n.callee.object.property) === 'permissions';
    if (name === 'request' && n.callee.type === 'MemberExpression' && !browserPermissions) {
      const t = n.arguments[0];
      if (!constant(t, M.Request) && !forwarded(t)) at(n, 'request() whose type is neither Request.X nor a parameter it forwards');
      if (n.arguments[1]?.type === 'ObjectExpression') fieldNames(n.arguments[1], name);
    }
    // A port post: only inside a function that checks the type against the catalogue first.
    // (window.postMessage in the content script posts a SLOP message to the page, not one of ours.)
    if (name === 'postMessage' && !(n.callee.object.type === 'Identifier' && n.callee.object.name === 'window')) {
      let guarded = false;
      if (fn) {
        walk(fn, (g) => {
          if (g.type === 'CallExpression' && g.start < n.start
            && (calleeName(g) === 'catalogued' || (file === CONTENT && calleeName(g) === 'has' && g.callee.object?.name === 'SENDS'))) guarded = true;
        });
      }
      if (!guarded) at(n, 'postMessage() on a port without checking catalogued() first');
    }
  });
  return problems;
}

test('every message type follows <sender>/<kebab-name> and is unique', () => {
  const all = [];
  for (const [group, sender] of Object.entries(GROUPS)) {
    assert.ok(Object.isFrozen(M[group]), `${group} is frozen`);
    for (const [key, type] of Object.entries(M[group])) {
      assert.match(type, TYPE_SHAPE, `${group}.${key}`);
      assert.equal(type.split('/')[0], sender, `${group}.${key} = '${type}' is sent by ${sender}`);
      assert.match(key, /^[A-Z][A-Z0-9_]*$/, `${group}.${key}`);
      all.push(type);
    }
  }
  assert.equal(new Set(all).size, all.length, 'no type twice');
});

test('error codes: snake_case, unique, and every code of the core is mapped to one', () => {
  const codes = Object.values(M.ErrorCode);
  for (const c of codes) assert.match(c, /^[a-z]+(_[a-z]+)*$/);
  assert.equal(new Set(codes).size, codes.length);
  // slop_code (the contract's table, generated into core-contract.js): every E_* maps to a reply code.
  const coreCodes = Object.keys(SlopCode).filter((k) => k !== 'OK');
  assert.ok(coreCodes.length >= 7, `slop_code values: ${coreCodes}`);
  assert.deepEqual(Object.keys(M.CORE_ERROR_CODES).sort(), [...coreCodes].sort());
  for (const c of Object.values(M.CORE_ERROR_CODES)) assert.ok(codes.includes(c), c);
  assert.equal(M.errorCodeOf({ codeName: 'E_PARAMS', code: -3 }), M.ErrorCode.BAD_PARAMS);
  assert.equal(M.errorCodeOf({ code: M.ErrorCode.NOT_FOUND }), M.ErrorCode.NOT_FOUND);
  assert.equal(M.errorCodeOf({ code: 'made_up' }), M.ErrorCode.INTERNAL);
  assert.equal(M.errorCodeOf(new TypeError('x')), M.ErrorCode.INTERNAL);
});

test('values the catalogue names are kebab-case (Status)', () => {
  const values = Object.values(M.Status);
  assert.ok(values.length >= 8, `${values.length} statuses`);
  for (const v of values) assert.match(v, VALUE_SHAPE);
  assert.equal(new Set(values).size, values.length);
});

test('content.js repeats the content types, the port name, PROTOCOL_VERSION and UNCATALOGUED', () => {
  const src = readFileSync(CONTENT, 'utf8');
  assert.deepEqual(contentTable(), { ...M.FromContent, ...M.ToContent });
  assert.ok(src.includes(`PORT_NAME = '${M.PORTS.CONTENT}'`), 'PORT_NAME');
  assert.ok(src.includes(`PROTOCOL_VERSION = ${M.PROTOCOL_VERSION};`), 'PROTOCOL_VERSION');
  assert.ok(src.includes(`UNCATALOGUED = '${M.UNCATALOGUED}'`), 'UNCATALOGUED');
});

test('the content script never posts with targetOrigin "*" and checks source and origin first', () => {
  const src = readFileSync(CONTENT, 'utf8');
  assert.ok(!/postMessage\([^)]*['"]\*['"]/.test(src));
  assert.match(src, /window\.postMessage\(\{ slop: true, message: msg\.message \}, location\.origin\)/);
  const handler = src.slice(src.indexOf("addEventListener('message'"));
  assert.ok(handler.indexOf('event.source !== window') < handler.indexOf('= event.data'), 'source checked before data');
  assert.ok(handler.indexOf('event.origin !== location.origin') < handler.indexOf('= event.data'), 'origin checked before data');
});

test('the guard passes catalogue types and reports the rest', (t) => {
  const errors = [];
  t.mock.method(console, 'error', (...a) => errors.push(a.join(' ')));
  assert.equal(M.catalogued({ type: M.Request.GET_NODES }, M.Request), true);
  assert.equal(M.catalogued({ type: M.PanelNote.BRIDGE_STATE }, M.Push, M.PanelNote), true);
  assert.equal(errors.length, 0);
  assert.equal(M.catalogued({ type: M.Push.REPLY }, M.Request), false, 'a push is not a request');
  assert.equal(M.catalogued({ type: 'getNodes' }, M.Request), false);
  assert.equal(M.catalogued({}, M.ToContent), false);
  assert.equal(errors.length, 3);
  assert.ok(errors.every((e) => e.startsWith(M.UNCATALOGUED)), errors.join('\n'));
});

test('no extension script sends a message that is not in the catalogue', () => {
  const files = extensionScripts();
  assert.ok(files.includes(MESSAGES) && files.includes(CONTENT) && files.length > 20, `${files.length} scripts`);
  const problems = files.filter((f) => f !== MESSAGES).flatMap((f) => scan(f));
  assert.deepEqual(problems, []);
});

test('the scan catches what it is meant to', () => {
  // Each snippet, in a module that imports the catalogue, is at least one problem.
  const module = (body) => `import { Push, Request } from '../shared/messages.js';\nfunction f(ui, port, bridge, msg) { ${body} }\n`;
  const file = path.join(EXT, 'service-worker/scan-case.js'); // never written: scan() gets the text
  for (const snippet of [
    "post(ui, { type: 'ui/bogus' });",           // a type spelled as a string
    "post(ui, { type: 'bogus' });",              // a message without a catalogue constant
    'post(ui, { type: Push.BOGUS });',           // a constant that does not exist
    "bridge.request('getNodes', {});",           // a request type spelled as a string
    'port.postMessage({ type: Push.LOG });',     // a port post that skips the guard
    "if (msg.type === 'sw/tree-reset') f();",    // a handler spelling a type
    'post(ui, { type: Push.LOG, retry_at: 1 });', // a field of ours in snake_case
    "bridge.request(Request.WATCH, { 'max-nodes': 1 });", // nor kebab-case
  ]) {
    assert.notDeepEqual(scan(file, module(snippet)), [], snippet);
  }
  // And lets these through.
  assert.deepEqual(scan(file, module(
    "post(ui, { type: Push.LOG }); bridge.request(Request.WATCH, {}); h('button', { type: 'button' });" +
    'post(ui, { type: Push.EVENT, key, event: { previous_version: 1 } }); bridge.request(Request.QUERY, { key, options: { max_nodes: 5 } });' +
    'if (catalogued(msg, Push)) port.postMessage(msg);')), []);
});
