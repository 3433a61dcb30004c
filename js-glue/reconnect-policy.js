// reconnect-policy.js: when to dial a WebSocket provider again after its connection ended.
//
// Pure (no timers, no I/O): the consumer session (consumer-session.js) asks it, in the extension's
// Connection and in the Node client alike.
//
// It tells three stories apart by how the last connections ended:
// - restart: the provider went live (it answered with a hello and served a snapshot), however
//   briefly, then went away. A dev server restarted by a file watcher, twice in a second if a build
//   writes several files: dial again at once, and while the new process is not listening yet, often
//   (at most LOOPBACK_CAP_MS apart on this machine), every time it happens.
// - crash-loop: it opened and died before its snapshot, so it never went live. On this machine it
//   is dialled every LOOPBACK_CAP_MS anyway (a dial is cheap and the developer is waiting; the
//   status says it is a crash loop); a remote one backs off exponentially to CAP_MS.
// - down: nothing (or a refusal) answered, and the last good run was not a restart. Exponential
//   from BASE_MS, capped at LOOPBACK_CAP_MS on this machine and at CAP_MS for a remote host.
// How long a provider lived never matters: only whether it went live.

export const POLICY = Object.freeze({
  /** First try after a restart. */
  FAST_MS: 200,
  /** Steps while a restarted provider is not listening yet: 250 ms · 2^failures. */
  RESTART_BASE_MS: 250,
  BASE_MS: 1000,
  /** The longest step on this machine, whatever the story. */
  LOOPBACK_CAP_MS: 1000,
  /** The ceiling for a remote provider. */
  CAP_MS: 30_000,
});

/** @typedef {{restarted: boolean, crashes: number, failures: number}} ReconnectState */

// Which hosts are this machine: one rule for every surface (provider-address.js).
export { isLoopbackUrl } from './provider-address.js';

/** No connection yet. @type {Readonly<ReconnectState>} */
export const INITIAL_STATE = Object.freeze({ restarted: false, crashes: 0, failures: 0 });

/**
 * The state after a connection attempt ended.
 * @param {ReconnectState} state
 * @param {{opened: boolean, liveMs: number|null, refused?: boolean}} run
 *   opened: the transport opened (and was accepted); liveMs: how long the first subscription was
 *   live before the end (null: it never was; any other value, 0 included, is a restart);
 *   refused: a server answered and refused the handshake (auth): that is no restart in progress,
 *   so the fast path ends
 * @returns {ReconnectState}
 */
export function noteEnd(state, { opened, liveMs, refused = false }) {
  if (!opened) return { ...state, restarted: state.restarted && !refused, failures: state.failures + 1 };
  if (liveMs !== null) return { restarted: true, crashes: 0, failures: 0 };
  // Within a crash loop the refused tries between crashes count too (the process may be down
  // between them); the tries before the loop began do not.
  return { restarted: false, crashes: state.crashes + 1, failures: state.crashes > 0 ? state.failures : 0 };
}

/**
 * The user asked (Retry now, a reload, the panel opened): the wait for a server that is down
 * starts over; a crash loop stays one (it would crash again just the same).
 * @param {ReconnectState} state
 */
export function noteUserRetry(state) {
  return { ...state, failures: 0 };
}

/**
 * "Equal jitter": between half and all of the step, so tabs do not dial in step.
 * @param {number} step @param {() => number} random
 */
function jittered(step, random) {
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * Plain exponential back-off for attempt `attempt` (0-based), from baseMs, capped at capMs,
 * jittered (the desktop bridge's, which has no restarts to tell apart).
 * @param {number} attempt @param {{baseMs?: number, capMs?: number, random?: () => number}} [o]
 * @returns {number}
 */
export function backoffDelay(attempt, { baseMs = POLICY.BASE_MS, capMs = POLICY.CAP_MS, random = Math.random } = {}) {
  return jittered(Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30)), random);
}

/**
 * How long to wait before the next attempt, after noteEnd.
 * @param {ReconnectState} state
 * @param {{loopback: boolean, random?: () => number}} o
 * @returns {{delay: number, mode: 'restart'|'crash-loop'|'down', step: number}}
 *   step: the un-jittered step (delay is within [step/2, step])
 */
export function reconnectDelay(state, { loopback, random = Math.random }) {
  const pow = (/** @type {number} */ n) => 2 ** Math.min(Math.max(n, 0), 30);
  /** @type {'restart'|'crash-loop'|'down'} */
  let mode;
  let step;
  const cap = loopback ? POLICY.LOOPBACK_CAP_MS : POLICY.CAP_MS;
  if (state.crashes > 0) {
    mode = 'crash-loop';
    step = Math.min(cap, POLICY.BASE_MS * pow(state.crashes - 1 + state.failures));
  } else if (state.restarted) {
    mode = 'restart';
    step = state.failures === 0 ? POLICY.FAST_MS : Math.min(cap, POLICY.RESTART_BASE_MS * pow(state.failures));
  } else {
    mode = 'down';
    step = Math.min(cap, POLICY.BASE_MS * pow(state.failures - 1));
  }
  return { delay: jittered(step, random), mode, step };
}
