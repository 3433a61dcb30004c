// js-glue/bridge-pairing.js: the pairing of the extension with `slop-inspector bridge`. Both sides
// are wired to each other in memory; every message goes through JSON text, as on the socket.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  normalizeCode, newPairingCode, proofOf, newNonce, pairingMessage, BrowserPairing, BridgePairing,
  PairType, PAIR_VERSION, CODE_CHARS,
} from '../../js-glue/bridge-pairing.js';

const SHORT = 150; // ms: the timeouts of these tests

/** Resolves with the first outcome, as [outcome, detail]. */
function outcome() {
  /** @type {(v: [string, string]) => void} */
  let resolve;
  const p = new Promise((r) => { resolve = r; });
  return { p, done: (/** @type {string} */ o, /** @type {string} */ d) => resolve([o, d]) };
}

/** The two sides on one in-memory connection; `wire` records every message, as sent. */
function pair(browserCode, bridgeCode, { timeout = 1000 } = {}) {
  const wire = [];
  const b = outcome();
  const d = outcome();
  /** @type {BrowserPairing} */
  let browser = null;
  const bridge = new BridgePairing(bridgeCode, (text) => {
    wire.push(['bridge', text]);
    setImmediate(() => browser.receive(JSON.parse(text)));
  }, d.done, timeout);
  browser = new BrowserPairing(browserCode, (text) => {
    wire.push(['browser', text]);
    setImmediate(() => bridge.receive(JSON.parse(text)));
  }, b.done);
  browser.start(timeout);
  return { wire, browser: b.p, bridge: d.p };
}

/** Collects what one side sends. */
function sink() {
  const sent = [];
  return { sent, send: (/** @type {string} */ t) => sent.push(JSON.parse(t)) };
}

describe('pairing codes', () => {
  test('normalizeCode: upper case, no separators, I and L read as 1, O as 0', () => {
    const code = newPairingCode();
    const norm = normalizeCode(code);
    assert.equal(norm.length, CODE_CHARS);
    assert.equal(norm, code.replace(/-/g, ''));
    assert.equal(normalizeCode(code.toLowerCase()), norm);
    assert.equal(normalizeCode(` ${code.replace(/-/g, ' ')} `), norm);
    assert.equal(normalizeCode('0123-4567-89ab-cdef-ghjk-mnpq-rs'), '0123456789ABCDEFGHJKMNPQRS');
    assert.equal(normalizeCode('O1I3-4567-89AB-CDEF-GHJK-MNPQ-RL'), '0113456789ABCDEFGHJKMNPQR1');
  });

  test('normalizeCode refuses a wrong length, a letter outside the alphabet, a first character above 7, a non-string', () => {
    const good = normalizeCode(newPairingCode());
    assert.equal(normalizeCode(good.slice(1)), null, 'one short');
    assert.equal(normalizeCode(`${good}0`), null, 'one long');
    assert.equal(normalizeCode(`0${good.slice(2)}U`), null, 'U is not in the alphabet');
    assert.equal(normalizeCode(`0${good.slice(2)}!`), null);
    assert.equal(normalizeCode(`8${good.slice(1)}`), null, '130 bits written, 128 carried: the first character is at most 7');
    assert.equal(normalizeCode(''), null);
    assert.equal(normalizeCode(null), null);
    assert.equal(normalizeCode(12345), null);
  });

  test('newPairingCode: 26 characters in groups of four, each a fresh code', () => {
    const a = newPairingCode();
    assert.match(a, /^([0-9A-HJKMNP-TV-Z]{4}-){6}[0-9A-HJKMNP-TV-Z]{2}$/);
    assert.notEqual(a, newPairingCode());
    assert.equal(normalizeCode(a), a.replace(/-/g, ''));
  });

  test('pairingMessage tells the pairing messages by their type', () => {
    for (const type of Object.values(PairType)) assert.ok(pairingMessage({ type }));
    assert.equal(pairingMessage({ type: 'provider-available' }), null);
    assert.equal(pairingMessage(null), null);
    assert.equal(pairingMessage('pair-ok'), null);
  });
});

describe('pairing', () => {
  test('both sides with the same code pair, in four messages, and the code never crosses the wire', async () => {
    const code = normalizeCode(newPairingCode());
    const { wire, browser, bridge } = pair(code, code);
    assert.deepEqual(await browser, ['paired', 'paired']);
    assert.deepEqual(await bridge, ['paired', 'paired']);
    assert.deepEqual(wire.map(([who, t]) => `${who} ${JSON.parse(t).type}`),
      ['browser pair-challenge', 'bridge pair-proof', 'browser pair-proof', 'bridge pair-ok']);
    for (const [, t] of wire) {
      assert.ok(!t.includes(code), 'the code is never sent');
      assert.equal(JSON.parse(t).version, PAIR_VERSION);
    }
    const [, bridgeProof] = wire[1];
    const [, browserProof] = wire[2];
    assert.notEqual(JSON.parse(bridgeProof).proof, JSON.parse(browserProof).proof, 'the roles give different proofs');
  });

  test('a bridge with another code: the browser finds its proof wrong and proves nothing itself', async () => {
    const { wire, browser, bridge } = pair(normalizeCode(newPairingCode()), normalizeCode(newPairingCode()), { timeout: SHORT });
    const [o, detail] = await browser;
    assert.equal(o, 'wrong');
    assert.match(detail, /does not match this pairing code/);
    assert.deepEqual(await bridge, ['refused', 'no proof from the browser in time']);
    assert.deepEqual(wire.map(([who, t]) => `${who} ${JSON.parse(t).type}`), ['browser pair-challenge', 'bridge pair-proof', 'bridge pair-refused']);
  });

  test('a browser proof made with another code is refused by the bridge', async () => {
    const code = normalizeCode(newPairingCode());
    const other = normalizeCode(newPairingCode());
    const out = sink();
    const d = outcome();
    const bridge = new BridgePairing(code, out.send, d.done, SHORT);
    const nb = newNonce();
    await bridge.receive({ type: PairType.CHALLENGE, version: PAIR_VERSION, nonce: nb });
    const nd = out.sent[0].nonce;
    assert.equal(out.sent[0].proof, await proofOf(code, 'bridge', nb, nd));
    await bridge.receive({ type: PairType.PROOF, version: PAIR_VERSION, proof: await proofOf(other, 'browser', nb, nd) });
    const [o, detail] = await d.p;
    assert.equal(o, 'refused');
    assert.match(detail, /does not match/);
    assert.equal(out.sent[1].type, PairType.REFUSED);
  });

  test('a bridge that knows the code but does not accept ours: the browser hears it refused', async () => {
    const code = normalizeCode(newPairingCode());
    const out = sink();
    const b = outcome();
    const browser = new BrowserPairing(code, out.send, b.done);
    browser.start(SHORT);
    const nb = out.sent[0].nonce;
    const nd = newNonce();
    await browser.receive({ type: PairType.PROOF, version: PAIR_VERSION, nonce: nd, proof: await proofOf(code, 'bridge', nb, nd) });
    assert.equal(out.sent[1].type, PairType.PROOF, 'it proved itself to a bridge that proved the code');
    await browser.receive({ type: PairType.REFUSED, version: PAIR_VERSION });
    assert.deepEqual(await b.p, ['refused', 'the bridge refused this pairing code']);
  });

  test('timeouts: a silent bridge, a browser that does not prove, a bridge that does not confirm', async () => {
    const code = normalizeCode(newPairingCode());
    const silent = outcome();
    new BrowserPairing(code, () => {}, silent.done).start(SHORT);
    const [o1, d1] = await silent.p;
    assert.equal(o1, 'no-answer');
    assert.match(d1, /did not answer the pairing challenge within 0\.2 s/);

    const out = sink();
    const d = outcome();
    const bridge = new BridgePairing(code, out.send, d.done, SHORT);
    await bridge.receive({ type: PairType.CHALLENGE, version: PAIR_VERSION, nonce: newNonce() });
    assert.deepEqual(await d.p, ['refused', 'no proof from the browser in time']);
    assert.equal(out.sent.at(-1).type, PairType.REFUSED);

    const out2 = sink();
    const b = outcome();
    const browser = new BrowserPairing(code, out2.send, b.done);
    browser.start(SHORT);
    const nb = out2.sent[0].nonce;
    const nd = newNonce();
    await browser.receive({ type: PairType.PROOF, version: PAIR_VERSION, nonce: nd, proof: await proofOf(code, 'bridge', nb, nd) });
    const [o3, d3] = await b.p;
    assert.equal(o3, 'refused');
    assert.match(d3, /did not confirm the pairing/);
  });

  test('a proof seen on one connection is no good on another: the nonces differ', async () => {
    const code = normalizeCode(newPairingCode());
    const first = pair(code, code);
    assert.equal((await first.bridge)[0], 'paired');
    const challenge = JSON.parse(first.wire[0][1]);
    const bridgeProof = JSON.parse(first.wire[1][1]);
    const browserProof = JSON.parse(first.wire[2][1]);

    // A program replays the browser's challenge and proof to the bridge: the bridge's nonce is new.
    const out = sink();
    const d = outcome();
    const bridge = new BridgePairing(code, out.send, d.done, SHORT);
    await bridge.receive(challenge);
    assert.notEqual(out.sent[0].nonce, bridgeProof.nonce);
    await bridge.receive(browserProof);
    assert.equal((await d.p)[0], 'refused');

    // A program replays the bridge's proof to a browser: the browser's nonce is new.
    const out2 = sink();
    const b = outcome();
    const browser = new BrowserPairing(code, out2.send, b.done);
    browser.start(SHORT);
    await browser.receive(bridgeProof);
    assert.equal((await b.p)[0], 'wrong');
    assert.equal(out2.sent.length, 1, 'no proof of the browser for it');
  });

  test('the bridge\'s proof sent back as the browser\'s is refused (the roles are in the MAC)', async () => {
    const code = normalizeCode(newPairingCode());
    const out = sink();
    const d = outcome();
    const bridge = new BridgePairing(code, out.send, d.done, SHORT);
    await bridge.receive({ type: PairType.CHALLENGE, version: PAIR_VERSION, nonce: newNonce() });
    await bridge.receive({ type: PairType.PROOF, version: PAIR_VERSION, proof: out.sent[0].proof });
    assert.equal((await d.p)[0], 'refused');
  });

  test('messages out of turn: the bridge refuses them; the browser ignores them', async () => {
    const code = normalizeCode(newPairingCode());
    for (const first of [
      { type: PairType.PROOF, version: PAIR_VERSION, proof: newNonce() },
      { type: PairType.OK, version: PAIR_VERSION },
      { type: PairType.CHALLENGE, version: 2, nonce: newNonce() },
      { type: PairType.CHALLENGE, version: PAIR_VERSION, nonce: 'short' },
    ]) {
      const out = sink();
      const d = outcome();
      await new BridgePairing(code, out.send, d.done, SHORT).receive(first);
      const [o, detail] = await d.p;
      assert.equal(o, 'refused', JSON.stringify(first));
      assert.match(detail, /out of turn|another version or shape/);
      assert.equal(out.sent.at(-1).type, PairType.REFUSED);
    }
    // A second challenge while the bridge waits for the proof.
    const out = sink();
    const d = outcome();
    const bridge = new BridgePairing(code, out.send, d.done, SHORT);
    await bridge.receive({ type: PairType.CHALLENGE, version: PAIR_VERSION, nonce: newNonce() });
    await bridge.receive({ type: PairType.CHALLENGE, version: PAIR_VERSION, nonce: newNonce() });
    assert.match((await d.p)[1], /"pair-challenge" out of turn/);

    // The browser: pair-ok before it proved anything changes nothing (a broadcasting bridge may
    // pass on another browser's); it still waits, and gives up as it would have.
    const out2 = sink();
    const b = outcome();
    const browser = new BrowserPairing(code, out2.send, b.done);
    browser.start(SHORT);
    await browser.receive({ type: PairType.OK, version: PAIR_VERSION });
    await browser.receive({ type: PairType.CHALLENGE, version: PAIR_VERSION, nonce: newNonce() });
    assert.equal((await b.p)[0], 'no-answer');
    assert.equal(out2.sent.length, 1);

    // A malformed proof from the bridge is a wrong one.
    const out3 = sink();
    const b3 = outcome();
    const browser3 = new BrowserPairing(code, out3.send, b3.done);
    browser3.start(SHORT);
    await browser3.receive({ type: PairType.PROOF, version: PAIR_VERSION, nonce: 'x', proof: 'y' });
    assert.deepEqual(await b3.p, ['wrong', 'the bridge answered the pairing challenge with a malformed proof']);
  });
});
