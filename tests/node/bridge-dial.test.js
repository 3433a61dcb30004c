// What the bridge field holds (our pairing code or the SLOP desktop app's token) and the order of
// dials that keeps our guarantees (js-glue/bridge-dial.js): bare first; a bridge that opens bare
// is never offered the app's token; the token only after a refused bare dial, and a refused
// token stops the loop.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { classifyBridgeSecret, nextDial, APP_TOKEN_CHARS } from '../../js-glue/bridge-dial.js';
import { newPairingCode, normalizeCode } from '../../js-glue/bridge-pairing.js';

/** A token as the desktop app makes one: 32 random bytes, base64url without padding. */
const appToken = () => crypto.randomBytes(32).toString('base64url');

describe('classifyBridgeSecret: a code or the app token, by form', () => {
  test('our pairing code, written any way it is read', () => {
    const code = newPairingCode();
    for (const written of [code, code.replace(/-/g, ''), code.toLowerCase(), ` ${code.replace(/-/g, ' ')} `]) {
      assert.deepEqual(classifyBridgeSecret(written), { kind: 'code', secret: normalizeCode(code) }, written);
    }
  });

  test('the desktop app\'s token: 43 characters of base64url, also as bridge-pairing.json holds it', () => {
    for (let i = 0; i < 50; i++) {
      const t = appToken();
      assert.equal(t.length, APP_TOKEN_CHARS);
      assert.deepEqual(classifyBridgeSecret(t), { kind: 'app-token', secret: t });
      assert.deepEqual(classifyBridgeSecret(`  ${t}\n`), { kind: 'app-token', secret: t });
      assert.deepEqual(classifyBridgeSecret(JSON.stringify({ token: t })), { kind: 'app-token', secret: t });
    }
    // A token with dashes is still a token, never read as a code with separators.
    const dashed = `${'-'.repeat(17)}${'A'.repeat(26)}`;
    assert.equal(classifyBridgeSecret(dashed)?.kind, 'app-token');
  });

  test('neither: wrong length, padding, other alphabets, not a string', () => {
    const t = appToken();
    for (const bad of [t.slice(1), `${t}A`, `${t.slice(0, 42)}=`, `${t.slice(0, 42)}+`, `${t.slice(0, 42)}/`, 'a'.repeat(32), '', '   ',
      '{"token": 5}', '{not json', null, undefined, 42]) {
      assert.equal(classifyBridgeSecret(bad), null, String(bad));
    }
  });
});

describe('nextDial: the order of dials', () => {
  const setups = [];
  for (const secret of [null, 'code', 'app-token']) for (const allowUnpaired of [false, true]) setups.push({ secret, allowUnpaired });

  test('start: bare first whenever anything may be used; nothing saved and unpaired not allowed stops', () => {
    for (const s of setups) {
      const want = !s.secret && !s.allowUnpaired ? 'stop' : 'dial-bare';
      assert.equal(nextDial(s, { on: 'start' }).do, want, JSON.stringify(s));
    }
  });

  test('a bridge that opens bare is never offered the app token: paired by proof, else unpaired only if allowed', () => {
    for (const s of setups) {
      const a = nextDial(s, { on: 'bare-opened' });
      assert.notEqual(a.do, 'dial-token', JSON.stringify(s));
      if (s.secret === 'code') assert.equal(a.do, 'pair');
      else if (s.allowUnpaired) assert.deepEqual(a, { do: 'live', mode: 'unpaired' });
      else assert.deepEqual([a.do, a.state], ['stop', 'no-pairing']);
    }
    assert.match(nextDial({ secret: 'app-token', allowUnpaired: false }, { on: 'bare-opened' }).why, /not given the desktop app's token/);
  });

  test('the pairing: proved → paired; no answer → unpaired (if allowed); refused or a wrong proof → stop', () => {
    for (const allowUnpaired of [false, true]) {
      const s = { secret: 'code', allowUnpaired };
      assert.deepEqual(nextDial(s, { on: 'pairing', outcome: 'paired' }), { do: 'live', mode: 'paired' });
      assert.deepEqual(nextDial(s, { on: 'pairing', outcome: 'no-answer' }).do, allowUnpaired ? 'live' : 'stop');
      for (const outcome of ['refused', 'bad-proof']) assert.equal(nextDial(s, { on: 'pairing', outcome }).state, 'refused');
    }
  });

  test('a failed bare dial: the token dial only with an app token saved (and not to a port known to be closed)', () => {
    for (const s of setups) {
      assert.equal(nextDial(s, { on: 'bare-failed' }).do, s.secret === 'app-token' ? 'dial-token' : 'retry', JSON.stringify(s));
      assert.equal(nextDial(s, { on: 'bare-failed', noListener: true }).do, 'retry');
    }
  });

  test('the token dial: live in mode token only if exactly slop.bearer was selected; a failure stops and asks', () => {
    const s = { secret: 'app-token', allowUnpaired: true };
    assert.deepEqual(nextDial(s, { on: 'token-opened', protocol: 'slop.bearer' }), { do: 'live', mode: 'token' });
    for (const protocol of ['', 'other', 'SLOP.BEARER']) {
      assert.deepEqual(nextDial(s, { on: 'token-opened', protocol }).state, 'token-refused', protocol);
    }
    assert.deepEqual(nextDial(s, { on: 'token-failed' }), { do: 'stop', state: 'token-refused', why: 'refused' });
    assert.equal(nextDial(s, { on: 'token-failed', noListener: true }).do, 'retry');
    assert.equal(nextDial(s, { on: 'lost' }).do, 'retry', 'a connection that went away: bare again, after the back-off');
  });
});
