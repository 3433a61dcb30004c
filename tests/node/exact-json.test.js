// Integers a double cannot hold, on their way to the panel: parseExact (extension/shared/
// exact-json.js) keeps them as their digits where the engine has JSON.rawJSON (Chromium, Firefox;
// Node 20 only with --harmony-json-parse-with-source, so that part runs in a child process), and
// the worker's node views carry their own text when they may hold one (node-views.js nodeView),
// since a port would carry the parsed number rounded. The panel's side: tests/e2e/panel-exact-numbers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseExact, isExactNumber } from '../../js-glue/exact-json.js';
import { nodeView } from '../../extension/service-worker/node-views.js';
import { Live } from './helpers.js';

const MODULE = fileURLToPath(new URL('../../js-glue/exact-json.js', import.meta.url));

test('parseExact keeps the digits of integers a double cannot write back, and nothing else', () => {
  const text = '{"id":1234567890123456789,"min":-9223372036854775808,"two53":9007199254740992,"big":1e21,'
    + '"f":0.1,"s":"1234567890123456789","n":[12345678901234567890,7]}';
  const script = `
    const { parseExact, isExactNumber } = await import(${JSON.stringify(MODULE)});
    const v = parseExact(process.argv[1]);
    console.log(JSON.stringify({
      kept: Object.entries(v).filter(([, x]) => isExactNumber(x)).map(([k]) => k),
      inArray: isExactNumber(v.n[0]), two53: typeof v.two53, f: v.f, s: v.s,
      again: JSON.stringify(v),
    }));`;
  // Node 20 has JSON.rawJSON behind a flag; later versions have it on (and may drop the flag).
  const flag = typeof JSON.rawJSON === 'function' ? [] : ['--harmony-json-parse-with-source'];
  const out = JSON.parse(execFileSync(process.execPath, [...flag, '--input-type=module', '-e', script, text], { encoding: 'utf8' }));
  assert.deepEqual(out.kept, ['id', 'min']);
  assert.equal(out.inArray, true);
  assert.equal(out.two53, 'number', '2^53 is a double: a number');
  assert.equal(out.f, 0.1);
  assert.equal(out.s, '1234567890123456789', 'a string stays a string');
  assert.equal(out.again, text.replace('1e21', '1e+21'), 'written back with the provider\'s digits');
});

test('without JSON.rawJSON (Node 20 as it starts), parseExact is JSON.parse', { skip: typeof JSON.rawJSON === 'function' && 'this Node has JSON.rawJSON' }, () => {
  const text = '{"id":1234567890123456789,"s":"x"}';
  assert.deepEqual(parseExact(text), JSON.parse(text));
  assert.equal(isExactNumber(parseExact(text).id), false);
});

test('a worker\'s node view carries its own text when it may hold such an integer, and only then', async () => {
  const l = await Live.start({ tree: null });
  l.feed(`{"type":"snapshot","id":"${l.wire}","version":1,"seq":0,"tree":{"id":"r","type":"root","properties":{"label":"x"},`
    + '"children":[{"id":"o","type":"item","properties":{"id64":1234567890123456789}}]}}');
  const root = nodeView(l.c, l.sub, '/');
  assert.equal(root.exact, undefined);
  assert.deepEqual(root, l.c.node(l.sub, '/'));
  const order = nodeView(l.c, l.sub, '/o');
  assert.equal(order.exact, l.c.nodeText(l.sub, '/o'));
  assert.match(order.exact, /"id64":1234567890123456789[,}]/, 'the core printed the provider\'s digits');
  const { exact, ...rest } = order;
  assert.deepEqual(rest, JSON.parse(exact), 'the same view otherwise');
  assert.equal(nodeView(l.c, l.sub, '/nope'), null);
  l.free();
});
