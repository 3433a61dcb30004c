// The desktop bridge's names live once, in js-glue/bridge-envelope.js (BridgeType,
// BridgeErrorCode): the extension's worker, `slop-inspector bridge` and the Node client read them
// from there, so a name changed on one side cannot leave another speaking the old one. The test
// fixtures that stand for other bridges spell them as those bridges do, and are not scanned.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BridgeType, BridgeErrorCode, relayEnvelope, relayedMessageText, bridgeError } from '../../js-glue/bridge-envelope.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The .js files under a folder, repo-relative. @param {string} rel @returns {string[]} */
function jsFiles(rel) {
  return fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath ?? e.path, e.name)));
}

test('no source file but bridge-envelope.js spells a bridge message type, or a bridge-error code where one is written or read', () => {
  const names = Object.values(BridgeType);
  // Some codes are also SLOP's own (a relayed request refused as too_large, a protocol_error's
  // bad_json): a bridge-error's code is looked for where one is written or compared.
  const codeUse = new RegExp(`(bridgeError\\(|code === )['"\`](${Object.values(BridgeErrorCode).join('|')})['"\`]`);
  const found = [];
  for (const file of [...jsFiles('extension'), ...jsFiles('js-glue'), ...jsFiles('bin')]) {
    if (file === path.join('js-glue', 'bridge-envelope.js')) continue;
    const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, '').trim();
      if (code.startsWith('*') || code.startsWith('/*')) return; // a comment says them in words
      for (const n of names) if (code.includes(`'${n}'`) || code.includes(`"${n}"`) || code.includes(`\`${n}\``)) found.push(`${file}:${i + 1}: ${n}`);
      const c = codeUse.exec(code);
      if (c) found.push(`${file}:${i + 1}: ${c[2]}`);
    });
  }
  assert.deepEqual(found, []);
});

test('the envelope keeps the message\'s bytes, with or without an agent, and a bridge-error is one JSON object', () => {
  const message = '{"type":"result","id":"1","data":{"n":1.50,"id":9223372036854775807,"z":-0}}';
  const text = relayEnvelope('12:postmessage', message);
  assert.equal(text, `{"type":"${BridgeType.RELAY}","providerKey":"12:postmessage","message":${message}}`);
  assert.equal(relayedMessageText(text, JSON.parse(text)), message);
  const withAgent = relayEnvelope('12:postmessage', message, { id: 3, name: 'codex' });
  assert.equal(JSON.parse(withAgent).agent.name, 'codex');
  assert.ok(withAgent.endsWith(`"message":${message}}`));
  assert.deepEqual(JSON.parse(bridgeError(BridgeErrorCode.NOT_PAIRED, 'pair first')), { type: 'bridge-error', error: { code: 'not_paired', message: 'pair first' } });
});
