// Connect… to an address where nothing answers says so in one sentence with what to do, and tells
// a refused connection from a blocked port and from an answer the browser hides (issue 45).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { getText, noAnswerText } from '../../js-glue/page-discovery.js';

/** A port nothing listens on: one just opened and closed. */
async function deadPort() {
  const s = http.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

test('nothing listening: "connection refused", one sentence with the fix', async () => {
  const port = await deadPort();
  const r = await getText(`http://127.0.0.1:${port}/.well-known/slop`);
  assert.equal(r.status, 0);
  assert.equal(r.reason, 'refused');
  assert.equal(noAnswerText(`http://127.0.0.1:${port}`, r), `Nothing answers at http://127.0.0.1:${port} (connection refused). Is the app running on that port?`);
});

test('a port fetch never dials (localhost:9) is named as blocked, not as refused', async () => {
  const r = await getText('http://localhost:9/.well-known/slop');
  assert.equal(r.reason, 'bad-port');
  const text = noAnswerText('http://localhost:9', r);
  assert.equal(text, 'Nothing answers at http://localhost:9: port 9 is blocked (browsers never connect to it). Is the app on another port?');
});

test('every reason reads as one sentence, no nested parentheses, nothing repeated', () => {
  for (const reason of ['bad-port', 'refused', 'unreachable', 'timeout', 'unreadable']) {
    const text = noAnswerText('http://example.test:8080', { status: 0, reason });
    assert.doesNotMatch(text, /\([^)]*\(/, `${reason}: ${text}`);
    assert.equal(text.split('http://example.test:8080').length, 2, `${reason}: the address once`);
    assert.ok(text.split(/[.?!](\s|$)/).filter((s) => s && s.trim()).length <= 2, `${reason}: a sentence and its fix: ${text}`);
  }
  assert.match(noAnswerText('http://x.test', { status: 0, reason: 'unreadable' }), /^http:\/\/x\.test answers, but does not let this extension read it/);
});
