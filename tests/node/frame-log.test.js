// frame-log.test.js: the worker's log entry for a frame (js-glue/frame-log.js):
// the type comes from the core, which read the frame already; sizes are UTF-8 bytes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { logEntry } from '../../js-glue/frame-log.js';
import { Live } from './helpers.js';
import { LIMITS } from '../../extension/shared/messages.js';

test('an incoming frame is logged with the type the core read, never parsed again', async () => {
  const l = await Live.start();
  const frame = JSON.stringify({ type: 'patch', subscription: l.wire, version: 2, seq: 1, ops: [] });
  l.c.receive(frame, 1000);
  const e = logEntry('in', frame, l.c.frameType());
  assert.equal(e.type, 'patch');
  assert.equal(e.size, frame.length);
  // Not JSON: the core read no type, the log says "?".
  l.c.receive('{"type":', 1000);
  assert.equal(logEntry('in', '{"type":', l.c.frameType()).type, '?');
  // A "type" nested before the frame's own is not taken for it.
  const tricky = `{"tree":{"type":"root"},"type":"snapshot","id":${JSON.stringify(l.wire)},"version":3,"seq":0}`;
  l.c.receive(tricky, 1000);
  assert.equal(logEntry('in', tricky, l.c.frameType()).type, 'snapshot');
  l.free();
});

test('frames the core wrote are read for their type; sizes are UTF-8 bytes; long frames are cut', () => {
  assert.equal(logEntry('out', '{"type":"subscribe","id":"s1"}').type, 'subscribe');
  assert.equal(logEntry('in', '{"type":"x","s":"é"}', 'x').size, 21); // 20 characters, é is two bytes
  const big = `{"type":"snapshot","pad":"${'a'.repeat(LIMITS.LOG_TEXT_MAX)}"}`;
  const e = logEntry('in', big, 'snapshot');
  assert.equal(e.truncated, true);
  assert.equal(e.text.length, LIMITS.LOG_TEXT_MAX);
  assert.equal(logEntry('in', new Uint8Array([0xff, 0xfe])).text, '<2 binary bytes>');
});
