// What the popup and the panel header say about a provider (status-text.js):
// "Connected" alone only when the first subscription's mirror is live; otherwise what the mirror
// is doing, why, and what happens next.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statusLabel, statusParts, syncText } from '../../extension/shared/status-text.js';

const NOW = 1_700_000_000_000;
const info = (status, state, reason = null, retryAt = null, extra = {}) => ({
  status, live: status === 'connected' && state === 'live', sync: { state, reason, retryAt }, retryAt: null, ...extra,
});

test('live: "Connected" and no sync sentence', () => {
  const p = info('connected', 'live');
  assert.equal(statusLabel(p, NOW), 'Connected');
  assert.equal(syncText(p, NOW), '');
});

test('waiting for the snapshot', () => {
  const p = info('connected', 'waiting');
  assert.equal(statusLabel(p, NOW), 'Connected · waiting for snapshot');
  assert.equal(syncText(p, NOW), 'Waiting for the provider’s snapshot.');
  const changed = info('connected', 'waiting', { code: 'provider_changed', message: 'a different app answers at this address' });
  assert.equal(syncText(changed, NOW), 'A different app answers at this address; waiting for the provider’s snapshot.');
});

test('resyncing: the reason, then what happens', () => {
  const p = info('connected', 'resyncing', { code: 'patch_failed', message: 'patch version 2 refused (no node at /nope)' });
  assert.equal(statusLabel(p, NOW), 'Connected · resyncing');
  assert.equal(syncText(p, NOW), 'Patch version 2 refused (no node at /nope); resyncing from a fresh snapshot.');
  assert.equal(syncText(info('connected', 'resyncing'), NOW), 'Resyncing from a fresh snapshot.');
  // Only a code: it is shown as is.
  assert.equal(syncText(info('connected', 'resyncing', { code: 'gap', message: '' }), NOW), 'Gap; resyncing from a fresh snapshot.');
});

test('stale: the countdown of the core\'s own retry, or Retry', () => {
  const reason = { code: 'resync_loop', message: 'Gave up after 3 resyncs in a row.' };
  const p = info('connected', 'stale', reason, NOW + 7_200);
  assert.equal(statusLabel(p, NOW), 'Connected · stale (retry in 8 s)');
  assert.equal(syncText(p, NOW), 'Gave up after 3 resyncs in a row; retrying in 8 s, or press Retry.');
  const noRetry = info('connected', 'stale', reason);
  assert.equal(statusLabel(noRetry, NOW), 'Connected · stale');
  assert.equal(syncText(noRetry, NOW), 'Gave up after 3 resyncs in a row; press Retry to resubscribe.');
  // retry_at already passed: no "retry in" any more.
  assert.equal(statusLabel(info('connected', 'stale', reason, NOW - 1), NOW), 'Connected · stale');
  assert.equal(syncText(info('connected', 'stale'), NOW), 'The shown state may be out of date; press Retry to resubscribe.');
});

test('failed', () => {
  const p = info('connected', 'failed', { code: 'error', message: 'subscribe refused: no such path' });
  assert.equal(statusLabel(p, NOW), 'Connected · failed');
  assert.equal(syncText(p, NOW), 'Subscribe refused: no such path; press Retry to resubscribe.');
  assert.equal(syncText(info('connected', 'failed', null, NOW + 20_000), NOW), 'The subscription failed; retrying in 20 s, or press Retry.');
});

test('a connected provider without the sync field never reads as live', () => {
  assert.equal(statusLabel({ status: 'connected', retryAt: null }, NOW), 'Connected · no subscription');
});

test('not connected: the status and its countdown; the sync state is not the story', () => {
  const p = info('reconnecting', 'stale', { code: 'closed', message: 'connection closed' }, null, { retryAt: NOW + 3_500 });
  assert.equal(statusLabel(p, NOW), 'Reconnecting · retry in 4 s');
  assert.equal(syncText(p, NOW), '');
  assert.equal(statusLabel(info('unreachable', 'none'), NOW), 'Unreachable');
});

test('a provider that restarted: "provider restarted, reconnecting" with a countdown, never a frozen label', () => {
  const reconnect = { mode: 'restart', delay: 800, closedAt: NOW - 100, seq: 3 };
  const waiting = info('reconnecting', 'stale', null, null, { retryAt: NOW + 800, reconnect });
  assert.equal(statusLabel(waiting, NOW), 'Provider restarted, reconnecting (next try in 1 s)');
  // The new process is not listening yet: still the restart, with the next try's countdown.
  assert.equal(statusLabel({ ...waiting, status: 'unreachable', retryAt: NOW + 2_400 }, NOW), 'Provider restarted, reconnecting (next try in 3 s)');
  // The countdown ran out and the try is under way.
  assert.equal(statusLabel({ ...waiting, status: 'connecting', retryAt: null }, NOW), 'Provider restarted, reconnecting (trying now)');
  assert.equal(statusLabel({ ...waiting, retryAt: NOW - 1 }, NOW), 'Provider restarted, reconnecting (trying now)');
  // Live again: no trace of the restart.
  assert.equal(statusLabel({ ...info('connected', 'live'), reconnect }, NOW), 'Connected');
  // Live since: a later reconnect the user asked for (a new token, Retry) is no restart.
  assert.equal(statusLabel({ ...waiting, status: 'connecting', retryAt: null, reconnect: { ...reconnect, settled: true } }, NOW), 'Connecting');
  const loop = { ...waiting, reconnect: { ...reconnect, mode: 'crash-loop' }, retryAt: NOW + 16_000 };
  assert.equal(statusLabel(loop, NOW), 'Crash loop: it closes before its snapshot each time (next try in 16 s)');
  assert.equal(statusLabel({ ...loop, status: 'connecting', retryAt: null }, NOW), 'Crash loop: it closes before its snapshot each time (trying now)');
});

test('statusParts: the state a live region says apart from the seconds that tick (issue 39)', () => {
  const reconnect = { mode: 'restart', delay: 800, closedAt: NOW - 100, seq: 3 };
  const waiting = info('reconnecting', 'stale', null, null, { retryAt: NOW + 2_400, reconnect });
  // The restart's words stay the same through the countdown and the try itself.
  assert.deepEqual(statusParts(waiting, NOW), { state: 'Provider restarted, reconnecting', countdown: ' (next try in 3 s)' });
  assert.deepEqual(statusParts(waiting, NOW + 1_000), { state: 'Provider restarted, reconnecting', countdown: ' (next try in 2 s)' });
  assert.deepEqual(statusParts({ ...waiting, status: 'connecting', retryAt: null }, NOW), { state: 'Provider restarted, reconnecting', countdown: ' (trying now)' });
  const p = info('reconnecting', 'stale', null, null, { retryAt: NOW + 3_500 });
  assert.deepEqual(statusParts(p, NOW), { state: 'Reconnecting', countdown: ' · retry in 4 s' });
  assert.deepEqual(statusParts(info('connected', 'live'), NOW), { state: 'Connected', countdown: '' });
  // The two parts are always the label.
  for (const x of [waiting, p, info('connected', 'live'), info('unreachable', 'none')]) {
    const { state, countdown } = statusParts(x, NOW);
    assert.equal(state + countdown, statusLabel(x, NOW));
  }
});
