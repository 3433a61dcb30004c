// The free-standing functions of the WASM build through the JS wrapper:
// validateParams, parseDescriptor, parseMeta, classifyTarget. A few cases of
// each from tests/c/test_params.c and tests/c/test_discovery.c.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from './helpers.js';

const core = await loadCore();

test('validateParams: valid params give null, failures give every path as data', () => {
  const v = core.validateParams;
  const first = (schema, params) => v(schema, params)?.[0]?.message ?? null;
  assert.equal(v({ type: 'object' }, {}), null);
  assert.deepEqual(v({ type: 'object', required: ['body'] }, {}),
    [{ code: 'required', path: ['body'], message: 'params.body is required' }]);
  assert.equal(first({ type: 'object', properties: { count: { type: 'integer' } } }, { count: 'not an int' }),
    'params.count must be an integer');
  assert.equal(first({ type: 'object', properties: { status: { type: 'string', enum: ['open', 'closed'] } } }, { status: 'other' }),
    'params.status must be one of "open", "closed"');
  const tags = { type: 'object', required: ['title'], properties: { tags: { type: 'array', items: { type: 'string' } } } };
  assert.equal(v(tags, { title: 't', tags: ['a', 'b'] }), null);
  assert.deepEqual(v(tags, { tags: ['a', 2, 'c', null] }).map((e) => e.path), [['title'], ['tags', 1], ['tags', 3]]);
  // missing params (undefined -> NULL) are checked as an empty object
  assert.equal(v({ type: 'object' }, undefined), null);
  assert.equal(first({ type: 'object', required: ['x'] }, undefined), 'params.x is required');
  // non-ASCII keys and values survive the UTF-8 boundary, in the message and the path
  assert.equal(v({ type: 'object', properties: { 'ключ': { type: 'string' } } }, { 'ключ': 'значение' }), null);
  assert.deepEqual(v({ type: 'object', properties: { 'ключ': { type: 'string' } } }, { 'ключ': 1 })[0].path, ['ключ']);
});

test('parseDescriptor: the spec example is accepted, bad descriptors give the error', () => {
  const kanban = '{ "id": "kanban", "name": "Kanban Board", "slop_version": "0.1",\n'
    + '  "transport": { "type": "ws", "url": "ws://localhost:3737/slop" },\n'
    + '  "capabilities": ["state", "patches", "affordances"] }\n';
  assert.deepEqual(core.parseDescriptor(kanban), {
    ok: true,
    descriptor: {
      id: 'kanban', name: 'Kanban Board', slop_version: '0.1',
      transport: { type: 'ws', url: 'ws://localhost:3737/slop' }, capabilities: ['state', 'patches', 'affordances'],
    },
  });
  const withTransport = (t) => JSON.stringify({ id: 'a', name: 'A', slop_version: '0.1', capabilities: ['state'], transport: t });
  assert.deepEqual(core.parseDescriptor(withTransport({ type: 'ws', url: 'http://localhost:3737/slop' })),
    { ok: false, error: 'transport.url must be a ws:// or wss:// URL' });
  assert.deepEqual(core.parseDescriptor(withTransport({ type: 'unix', path: '/tmp/slop/a.sock' })),
    { ok: false, error: 'transport type "unix" is for local apps; a browser consumer needs "ws" or "postmessage"' });
  assert.deepEqual(core.parseDescriptor(withTransport({ type: 'postmessage' })).descriptor.transport, { type: 'postmessage' });
  const noId = core.parseDescriptor('{"name":"A","slop_version":"0.1","capabilities":["state"],"transport":{"type":"postmessage"}}');
  assert.deepEqual(noId, { ok: false, error: 'id is required' });
  const bad = core.parseDescriptor('{not json');
  assert.equal(bad.ok, false);
  assert.equal(typeof bad.error, 'string');
});

test('parseMeta: postmessage, absolute and relative ws URLs, refusals', () => {
  assert.deepEqual(core.parseMeta('  PostMessage \n', 'https://app.example/'), { ok: true, transport: { type: 'postmessage' } });
  assert.deepEqual(core.parseMeta(' WSS://API.Example.com:443/slop\t', 'https://app.example/'),
    { ok: true, transport: { type: 'ws', url: 'wss://api.example.com/slop' } });
  assert.deepEqual(core.parseMeta('/api/slop?v=1', 'https://Example.com/app'),
    { ok: true, transport: { type: 'ws', url: 'wss://example.com/api/slop?v=1' } });
  assert.deepEqual(core.parseMeta('/slop', 'http://localhost:3000/board?x=1#top'),
    { ok: true, transport: { type: 'ws', url: 'ws://localhost:3000/slop' } });
  assert.deepEqual(core.parseMeta('/slop', 'file:///home/me/index.html'),
    { ok: false, error: 'a relative meta URL needs an http:// or https:// page' });
  assert.deepEqual(core.parseMeta('http://localhost:3737/slop', 'http://localhost:3000/'),
    { ok: false, error: 'meta content must be a WebSocket URL (ws:// or wss://), not http(s)' });
  assert.deepEqual(core.parseMeta('javascript:alert(1)', 'https://example.com/'),
    { ok: false, error: 'meta content must be "postmessage" or a ws:// or wss:// URL' });
  assert.deepEqual(core.parseMeta('', 'https://example.com/'), { ok: false, error: 'meta content is empty' });
});

test('classifyTarget: same-origin, cross-origin, opaque pages, approval keys', () => {
  const cls = (p, t) => core.classifyTarget(p, t).classification;
  assert.equal(cls('http://example.com:8080/app', 'wss://example.com/slop'), 'same-origin');
  assert.equal(cls('https://Example.COM/', 'wss://example.com/slop'), 'same-origin');
  assert.equal(cls('https://example.com/', 'wss://evil.example/slop'), 'cross-origin');
  assert.equal(cls('http://localhost:3000/', 'ws://127.0.0.1:3737/slop'), 'same-origin');
  assert.equal(cls('https://example.com/', 'ws://localhost:3737/slop'), 'cross-origin');
  assert.equal(cls('not a url', 'ws://localhost:3737/slop'), 'cross-origin');
  assert.equal(cls('http://localhost:3000/', 'ws://2130706433/'), 'cross-origin');
  assert.deepEqual(core.classifyTarget('file:///home/me/index.html', 'ws://localhost:3737/slop'),
    { classification: 'cross-origin', page_origin: null, target: 'ws://localhost:3737/slop', approval_key: null });
  assert.deepEqual(core.classifyTarget('https://User:pw@Example.com:443/a/b?c=1#d', 'wss://example.com/slop'), {
    classification: 'same-origin', page_origin: 'https://example.com', target: 'wss://example.com/slop',
    approval_key: 'https://example.com -> wss://example.com/slop',
  });
  assert.deepEqual(core.classifyTarget('https://example.com/one', 'ws://localhost:3737/slop'),
    core.classifyTarget('https://EXAMPLE.com:443/two?x#y', 'WS://LOCALHOST:3737/slop'));
  assert.deepEqual(core.classifyTarget('https://example.com/app', 'postmessage'), {
    classification: 'same-origin', page_origin: 'https://example.com', target: 'postmessage', approval_key: 'https://example.com -> postmessage',
  });
});
