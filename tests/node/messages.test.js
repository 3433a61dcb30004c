// The message catalogue (extension/shared/messages.js): one naming scheme, unique types, the
// error codes and the core's codes mapped to them; and the content script (a classic script),
// which repeats the content types and PROTOCOL_VERSION verbatim.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as M from '../../extension/shared/messages.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const contentSrc = readFileSync(path.join(ROOT, 'extension/content/content.js'), 'utf8');

/** Each group of types and the sender its prefix names. */
const GROUPS = { FromContent: 'content', ToContent: 'sw', Request: 'ui', Push: 'sw', PanelNote: 'panel' };
/** What a message type looks like under the scheme: `<sender>/<kebab-case-name>`. */
const TYPE_SHAPE = /^(content|sw|ui|panel)\/[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

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
  // slop_code in the core's header: every E_* must map to a reply code.
  const header = readFileSync(path.join(ROOT, 'wasm/include/slop_core.h'), 'utf8');
  const coreCodes = [...header.matchAll(/\bSLOP_(E_[A-Z_]+)\s*=\s*-\d+/g)].map((m) => m[1]);
  assert.ok(coreCodes.length >= 7, `slop_code values found in the header: ${coreCodes}`);
  assert.deepEqual(Object.keys(M.CORE_ERROR_CODES).sort(), [...coreCodes].sort());
  for (const c of Object.values(M.CORE_ERROR_CODES)) assert.ok(codes.includes(c), c);
  assert.equal(M.errorCodeOf({ codeName: 'E_PARAMS', code: -3 }), M.ErrorCode.BAD_PARAMS);
  assert.equal(M.errorCodeOf({ code: M.ErrorCode.NOT_FOUND }), M.ErrorCode.NOT_FOUND);
  assert.equal(M.errorCodeOf({ code: 'made_up' }), M.ErrorCode.INTERNAL);
  assert.equal(M.errorCodeOf(new TypeError('x')), M.ErrorCode.INTERNAL);
});

test('content.js repeats the content types, the port name and PROTOCOL_VERSION', () => {
  const t = /const T = \{([\s\S]*?)\};/.exec(contentSrc);
  assert.ok(t, 'const T in content.js');
  const local = Object.fromEntries([...t[1].matchAll(/^\s*([A-Z_]+):\s*'([^']+)'/gm)].map((x) => [x[1], x[2]]));
  assert.deepEqual(local, { ...M.FromContent, ...M.ToContent });
  assert.ok(contentSrc.includes(`PORT_NAME = '${M.PORTS.CONTENT}'`), 'PORT_NAME');
  assert.ok(contentSrc.includes(`PROTOCOL_VERSION = ${M.PROTOCOL_VERSION};`), 'PROTOCOL_VERSION');
});

test('the content script never posts with targetOrigin "*" and checks source and origin first', () => {
  assert.ok(!/postMessage\([^)]*['"]\*['"]/.test(contentSrc));
  assert.match(contentSrc, /window\.postMessage\(\{ slop: true, message: msg\.message \}, location\.origin\)/);
  const handler = contentSrc.slice(contentSrc.indexOf("addEventListener('message'"));
  assert.ok(handler.indexOf('event.source !== window') < handler.indexOf('= event.data'), 'source checked before data');
  assert.ok(handler.indexOf('event.origin !== location.origin') < handler.indexOf('= event.data'), 'origin checked before data');
});
