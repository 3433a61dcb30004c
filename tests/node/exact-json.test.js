// Numbers leave the tool as the provider wrote them (js-glue/exact-json.js): parseExact for values
// to compute with (an integer a double cannot hold is kept), parseVerbatim and stringifyExact for
// everything written out (-0, 1.50, 1E5, 64-bit integers as sent). Two engines: JSON.rawJSON where
// the engine has it (the browsers; Node 20 only with --harmony-json-parse-with-source, so that one
// runs in a child process) and lossless-json where it has not (Node 20 as it starts,
// node/exact-json.js). Both must write the same text. The panel's side: tests/e2e/panel-exact-numbers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import '../../js-glue/node/exact-json.js';
import { parseExact, parseVerbatim, stringifyExact, isExactNumber, ODD_NUMBER, keepsNumbers } from '../../js-glue/exact-json.js';
import { nodeView } from '../../extension/service-worker/node-views.js';
import { Live } from './helpers.js';

const MODULE = fileURLToPath(new URL('../../js-glue/exact-json.js', import.meta.url));
const NODE_MODULE = fileURLToPath(new URL('../../js-glue/node/exact-json.js', import.meta.url));

/** The numbers the issue names, and their neighbours: each written back as sent. */
const TEXT = '{"neg0":-0,"cents":1.50,"sum":0.30000000000000004,"max":9223372036854775807,"min":-9223372036854775807,'
  + '"exp":1E5,"tiny":0.0000001,"list":[1,2.0,-0.0],"s":"1.50","id":1234567890123456789,"two53":9007199254740992,"f":0.1}';

/** What each engine makes of TEXT. @param {boolean} native */
function readings(native) {
  const script = `
    await import(${JSON.stringify(NODE_MODULE)});
    const { parseExact, parseVerbatim, stringifyExact, isExactNumber } = await import(${JSON.stringify(MODULE)});
    const text = process.argv[1];
    const v = parseExact(text);
    console.log(JSON.stringify({
      native: typeof JSON.rawJSON === 'function',
      verbatim: stringifyExact(parseVerbatim(text)),
      pretty: stringifyExact(parseVerbatim(text), 2),
      exact: stringifyExact(v),
      kept: Object.entries(v).filter(([, x]) => isExactNumber(x)).map(([k]) => k),
      neg0: Object.is(v.neg0, -0), cents: v.cents, two53: typeof v.two53, maxDigits: v.max.rawJSON, s: v.s,
    }));`;
  const flag = native && typeof JSON.rawJSON !== 'function' ? ['--harmony-json-parse-with-source'] : [];
  return JSON.parse(execFileSync(process.execPath, [...flag, '--input-type=module', '-e', script, TEXT], { encoding: 'utf8' }));
}

for (const native of [false, true]) {
  test(`${native ? 'JSON.rawJSON' : 'lossless-json (no JSON source access)'}: every number written back as sent`, { skip: !native && typeof JSON.rawJSON === 'function' && 'this Node has JSON.rawJSON' }, () => {
    const r = readings(native);
    assert.equal(r.native, native);
    assert.equal(r.verbatim, TEXT, 'parseVerbatim then stringifyExact gives back the text');
    assert.equal(JSON.stringify(JSON.parse(r.pretty)), JSON.stringify(JSON.parse(TEXT)), 'indented, the same JSON');
    for (const n of ['-0', '1.50', '0.30000000000000004', '9223372036854775807', '-9223372036854775807', '1E5', '0.0000001']) {
      assert.ok(r.pretty.includes(`: ${n}`), `${n} in the indented text`);
    }
    assert.deepEqual(r.kept, ['max', 'min', 'id'], 'values: only integers a double cannot hold are kept');
    assert.equal(r.neg0, true, '-0 stays -0');
    assert.equal(r.cents, 1.5, '1.50 is the number 1.5 to compute with');
    assert.equal(r.two53, 'number', '2^53 is a double: a number');
    assert.equal(r.maxDigits, '9223372036854775807');
    assert.equal(r.s, '1.50', 'a string stays a string');
    assert.match(r.exact, /"neg0":-0,"cents":1.5,.*"max":9223372036854775807,"min":-9223372036854775807,"exp":100000/);
  });
}

test('this process keeps numbers (the Node fallback is installed)', () => {
  assert.equal(keepsNumbers(), true);
  assert.equal(isExactNumber(parseExact('[12345678901234567890]')[0]), true);
  assert.equal(isExactNumber({ rawJSON: '1' }), false, 'a provider\'s object that looks like one is not one');
  assert.equal(stringifyExact({ rawJSON: '1' }), '{"rawJSON":"1"}');
});

test('ODD_NUMBER finds every number JavaScript would write otherwise (20,000 random number texts)', () => {
  let seed = 7;
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const digits = (n, lead = true) => Array.from({ length: n }, (_, i) => String(i === 0 && lead ? 1 + rnd(9) : rnd(10))).join('');
  const forms = [
    () => digits(1 + rnd(24)),
    () => `${rnd(2) ? '-' : ''}0`,
    () => `-0.${'0'.repeat(rnd(4))}${rnd(2) ? digits(1 + rnd(3)) : ''}`,
    () => `${digits(1 + rnd(5))}.${digits(1 + rnd(18), false)}`,
    () => `0.${'0'.repeat(rnd(9))}${digits(1 + rnd(6))}`,
    () => `${digits(1 + rnd(3))}.${digits(rnd(4), false)}0`,
    () => `${digits(1 + rnd(3))}${['e', 'E'][rnd(2)]}${['', '+', '-'][rnd(3)]}${1 + rnd(30)}`,
    () => `${digits(1 + rnd(16))}.${digits(1 + rnd(16), false)}`,
  ];
  let odd = 0;
  for (let i = 0; i < 20000; i++) {
    const n = `${rnd(3) === 0 ? '-' : ''}${forms[rnd(forms.length)]()}`.replace(/^--/, '-');
    if (String(Number(n)) === n) continue;
    odd++;
    assert.ok(ODD_NUMBER.test(`{"v":${n}}`), `${n} is written otherwise (${String(Number(n))}) and ODD_NUMBER must see it`);
    assert.equal(stringifyExact(parseVerbatim(`{"v":${n}}`)), `{"v":${n}}`);
  }
  assert.ok(odd > 3000, `${odd} odd numbers tried`);
});

test('a worker\'s node view carries its own text when it may hold a number written otherwise, and only then', async () => {
  const l = await Live.start({ tree: null });
  l.feed(`{"type":"snapshot","id":"${l.wire}","version":1,"seq":0,"tree":{"id":"r","type":"root","properties":{"label":"x","n":0.5},`
    + '"children":[{"id":"o","type":"item","properties":{"id64":1234567890123456789}},'
    + '{"id":"z","type":"item","properties":{"t":-0,"p":1.50}}]}}');
  const root = nodeView(l.c, l.sub, '/');
  assert.equal(root.exact, undefined);
  assert.deepEqual(root, l.c.node(l.sub, '/'));
  for (const [path, shown] of [['/o', /"id64":1234567890123456789[,}]/], ['/z', /"t":-0,"p":1.50[,}]/]]) {
    const view = nodeView(l.c, l.sub, path);
    assert.equal(view.exact, l.c.nodeText(l.sub, path));
    assert.match(view.exact, shown, 'the core printed the provider\'s text');
    const { exact, ...rest } = view;
    assert.deepEqual(rest, JSON.parse(exact), 'the same view otherwise');
    assert.equal(stringifyExact(parseVerbatim(exact)), exact, 'written out again as the core printed it');
  }
  assert.equal(nodeView(l.c, l.sub, '/nope'), null);
  l.free();
});
