// The content script (a classic script) repeats the type strings of the content section of
// extension/shared/messages.js; they must match. Also: the catalogue's types are unique.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const messagesSrc = readFileSync(new URL('extension/shared/messages.js', root), 'utf8');
const contentSrc = readFileSync(new URL('extension/content/content.js', root), 'utf8');

/** The string values of `export const Name = Object.freeze({ ... })` in messages.js. */
function frozenObject(name) {
  const m = new RegExp(`export const ${name} = Object\\.freeze\\(\\{([\\s\\S]*?)\\n\\}\\);`).exec(messagesSrc);
  assert.ok(m, `${name} not found in messages.js`);
  return Object.fromEntries([...m[1].matchAll(/^\s*([A-Z_]+):\s*'([^']+)'/gm)].map((x) => [x[1], x[2]]));
}

test('content.js uses exactly the content <-> service worker types of messages.js', () => {
  const fromContent = frozenObject('FromContent');
  const toContent = frozenObject('ToContent');
  const t = /const T = \{([\s\S]*?)\};/.exec(contentSrc);
  assert.ok(t, 'const T in content.js');
  const local = Object.fromEntries([...t[1].matchAll(/^\s*([A-Z_]+):\s*'([^']+)'/gm)].map((x) => [x[1], x[2]]));
  assert.deepEqual(local, { ...fromContent, ...toContent });
  assert.match(contentSrc, new RegExp(`PORT_NAME = '${frozenObject('PORTS').CONTENT}'`));
  const version = /export const PROTOCOL_VERSION = (\d+);/.exec(messagesSrc)[1];
  assert.match(contentSrc, new RegExp(`PROTOCOL_VERSION = ${version};`));
});

test('message types are unique across the catalogue', () => {
  const all = ['FromContent', 'ToContent', 'Request', 'Push'].flatMap((n) => Object.values(frozenObject(n)));
  assert.equal(new Set(all).size, all.length);
});

test('the content script never posts with targetOrigin "*" and checks source and origin first', () => {
  assert.ok(!/postMessage\([^)]*['"]\*['"]/.test(contentSrc));
  assert.match(contentSrc, /window\.postMessage\(\{ slop: true, message: msg\.message \}, location\.origin\)/);
  const handler = contentSrc.slice(contentSrc.indexOf("addEventListener('message'"));
  assert.ok(handler.indexOf('event.source !== window') < handler.indexOf('= event.data'), 'source checked before data');
  assert.ok(handler.indexOf('event.origin !== location.origin') < handler.indexOf('= event.data'), 'origin checked before data');
});
