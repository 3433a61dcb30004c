// The reconnect policy (js-glue/reconnect-policy.js): a provider that went live and ended is a
// restart however briefly it lived, dialled again fast every time; on this machine no wait exceeds
// 1 s, a crash loop included; remote providers keep the exponential back-off to the ceiling; every
// delay is jittered within its step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { POLICY, INITIAL_STATE, isLoopbackUrl, noteEnd, noteUserRetry, reconnectDelay, backoffDelay } from '../../js-glue/reconnect-policy.js';

const LIVE = { opened: true, liveMs: 5_000 };
const CRASH_AFTER_HELLO = { opened: true, liveMs: null };
const LIVE_BRIEFLY = { opened: true, liveMs: 20 }; // served its snapshot, killed 20 ms later
const DOWN = { opened: false, liveMs: null };
const top = () => 1 - Number.EPSILON; // random() at its highest: the whole step
const low = () => 0;                  // random() at its lowest: half the step

/** Runs the ends through the policy; the delays chosen after each. */
function delays(ends, { loopback, random = top } = {}) {
  let state = INITIAL_STATE;
  return ends.map((end) => {
    state = noteEnd(state, end);
    return reconnectDelay(state, { loopback, random });
  });
}

test('loopback hosts: 127.0.0.0/8, ::1, localhost; not other hosts', () => {
  for (const u of ['ws://127.0.0.1:8080/slop', 'ws://127.4.5.6/', 'ws://localhost:3000', 'wss://LOCALHOST/x',
    'ws://[::1]:9000/', 'ws://app.localhost:5173/', 'ws://2130706433:80/']) assert.equal(isLoopbackUrl(u), true, u);
  for (const u of ['ws://128.0.0.1/', 'ws://example.com/', 'ws://127.0.0.1.example.com/', 'ws://[::2]/',
    'ws://localhost.example.com/', 'ws://10.0.0.1/', 'not a url']) assert.equal(isLoopbackUrl(u), false, u);
});

test('a provider that restarts is dialled again fast, every time', () => {
  // Live, gone, back (the new process listened after one refused try), live, gone... twenty times.
  const ends = [];
  for (let i = 0; i < 20; i++) ends.push(LIVE, DOWN);
  const out = delays(ends, { loopback: true });
  for (let i = 0; i < out.length; i += 2) {
    assert.equal(out[i].mode, 'restart');
    assert.ok(out[i].delay <= POLICY.FAST_MS, `restart ${i / 2}: first try after ${out[i].delay} ms`);
    assert.equal(out[i + 1].mode, 'restart');
    assert.ok(out[i + 1].delay <= 2 * POLICY.RESTART_BASE_MS, `restart ${i / 2}: second try after ${out[i + 1].delay} ms`);
  }
});

test('while a restarted loopback provider is not listening yet, tries come at most 1 s apart', () => {
  const out = delays([LIVE, ...Array(30).fill(DOWN)], { loopback: true });
  assert.deepEqual(out.slice(0, 4).map((d) => d.step), [200, 500, 1000, 1000]);
  assert.ok(out.every((d) => d.mode === 'restart' && d.delay <= POLICY.LOOPBACK_CAP_MS));
});

test('a remote provider that restarts: a fast first try, then the long ceiling', () => {
  const out = delays([LIVE, ...Array(12).fill(DOWN)], { loopback: false });
  assert.equal(out[0].step, POLICY.FAST_MS);
  assert.deepEqual(out.slice(1, 8).map((d) => d.step), [500, 1000, 2000, 4000, 8000, 16000, 30000]);
  assert.equal(out.at(-1).step, POLICY.CAP_MS);
});

test('restarts in quick succession, however short each run lived, are restarts: the first try at once, every time', () => {
  // The pattern of a file watcher restarting a dev server twice in a second: each run served its
  // snapshot and a few patches and lived 20 ms to a few hundred.
  for (const loopback of [true, false]) {
    const ends = [];
    for (let i = 0; i < 20; i++) ends.push(i % 2 ? LIVE_BRIEFLY : { opened: true, liveMs: 0 }, DOWN);
    const out = delays(ends, { loopback });
    for (let i = 0; i < out.length; i += 2) {
      assert.equal(out[i].mode, 'restart');
      assert.equal(out[i].step, POLICY.FAST_MS, `run ${i / 2}`);
      assert.equal(out[i + 1].step, 2 * POLICY.RESTART_BASE_MS);
    }
  }
});

test('a provider that crash-loops (dies after hello, before its snapshot): dialled every second here, backed off to the ceiling when remote', () => {
  const local = delays(Array(10).fill(CRASH_AFTER_HELLO), { loopback: true });
  assert.ok(local.every((d) => d.mode === 'crash-loop' && d.step === POLICY.LOOPBACK_CAP_MS && d.delay <= 1000));
  const remote = delays(Array(10).fill(CRASH_AFTER_HELLO), { loopback: false });
  assert.ok(remote.every((d) => d.mode === 'crash-loop'));
  assert.deepEqual(remote.map((d) => d.step), [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000, 30000]);
  // A remote crash loop whose process is also down between crashes keeps backing off.
  const mixed = delays([CRASH_AFTER_HELLO, DOWN, CRASH_AFTER_HELLO, DOWN], { loopback: false });
  assert.deepEqual(mixed.map((d) => d.step), [1000, 2000, 4000, 8000]);
  // A crash loop that ends (a run that goes live) is forgotten: the next end is a restart.
  const out = delays([...Array(6).fill(CRASH_AFTER_HELLO), LIVE_BRIEFLY], { loopback: false });
  assert.equal(out.at(-1).mode, 'restart');
  assert.equal(out.at(-1).step, POLICY.FAST_MS);
});

test('on this machine no wait exceeds 1 s, whatever the story; down remote backs off to 30 s', () => {
  const local = delays(Array(10).fill(DOWN), { loopback: true });
  assert.deepEqual(local.map((d) => d.step), Array(10).fill(1000));
  assert.ok(local.every((d) => d.mode === 'down'));
  const any = [LIVE, DOWN, DOWN, DOWN, DOWN, CRASH_AFTER_HELLO, DOWN, DOWN, CRASH_AFTER_HELLO, LIVE_BRIEFLY, DOWN, DOWN, DOWN];
  for (const random of [top, low, Math.random]) {
    assert.ok(delays(any, { loopback: true, random }).every((d) => d.delay <= POLICY.LOOPBACK_CAP_MS));
  }
  const remote = delays(Array(8).fill(DOWN), { loopback: false });
  assert.deepEqual(remote.map((d) => d.step), [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
});

test('jitter: every delay is between half and all of its step, and varies', () => {
  const ends = [LIVE, DOWN, DOWN, DOWN, CRASH_AFTER_HELLO, CRASH_AFTER_HELLO, DOWN, DOWN];
  for (const loopback of [true, false]) {
    const highs = delays(ends, { loopback, random: top });
    const lows = delays(ends, { loopback, random: low });
    for (let i = 0; i < ends.length; i++) {
      assert.equal(highs[i].delay, highs[i].step);
      assert.equal(lows[i].delay, Math.round(lows[i].step / 2));
    }
    const seen = new Set(Array.from({ length: 50 }, () => delays([LIVE, DOWN, DOWN], { loopback, random: Math.random })[2].delay));
    assert.ok(seen.size > 5, 'delays differ between tries');
    for (const d of seen) assert.ok(d >= 250 && d <= 1000, `${d}`);
  }
});

test('a refused handshake (auth) ends the fast path: the provider is up, and waits for the user', () => {
  const out = delays([LIVE, { opened: false, liveMs: null, refused: true }, DOWN], { loopback: false });
  assert.equal(out[0].mode, 'restart');
  assert.deepEqual(out.slice(1).map((d) => [d.mode, d.step]), [['down', 1000], ['down', 2000]]);
});

test('Retry now forgets the wait for a server that is down, not a crash loop', () => {
  let state = INITIAL_STATE;
  for (let i = 0; i < 6; i++) state = noteEnd(state, DOWN);
  state = noteEnd(noteUserRetry(state), DOWN);
  assert.equal(reconnectDelay(state, { loopback: false, random: top }).step, 1000);
  let loop = INITIAL_STATE;
  for (let i = 0; i < 4; i++) loop = noteEnd(loop, CRASH_AFTER_HELLO);
  loop = noteEnd(noteUserRetry(loop), CRASH_AFTER_HELLO);
  assert.equal(reconnectDelay(loop, { loopback: false, random: top }).step, 16000);
});

test('backoffDelay (the desktop bridge): exponential, capped, jittered', () => {
  assert.deepEqual([0, 1, 2, 5, 6, 40].map((n) => backoffDelay(n, { random: top })), [1000, 2000, 4000, 30000, 30000, 30000]);
  assert.equal(backoffDelay(3, { random: low }), 4000);
  assert.equal(backoffDelay(0, { baseMs: 500, capMs: 800, random: top }), 500);
});
