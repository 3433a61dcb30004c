// status-text.js: how the popup and the panel describe a provider (ProviderInfo of messages.js).
import { Status } from './messages.js';
import { SubscriptionState } from '../../js-glue/core-contract.js';

/** @typedef {import('./messages.js').ProviderInfo} ProviderInfo */

/** @type {Record<string, string>} */
const LABELS = {
  [Status.DISCOVERED]: 'Discovered',
  [Status.PENDING_APPROVAL]: 'Waiting for approval',
  [Status.DENIED]: 'Denied',
  [Status.CONNECTING]: 'Connecting',
  [Status.CONNECTED]: 'Connected',
  [Status.RECONNECTING]: 'Reconnecting',
  [Status.AUTH_FAILED]: 'Refused (auth)',
  [Status.UNREACHABLE]: 'Unreachable',
  [Status.ERROR]: 'Error',
};

/** Statuses whose connection "Retry now" restarts. @type {string[]} */
const RETRYABLE = [Status.AUTH_FAILED, Status.UNREACHABLE, Status.RECONNECTING, Status.ERROR];

/**
 * Whether "Retry now" may help: the connection failed or waits to be dialled again, or it is up
 * while the core gave its subscription up (stale, failed). The popup and the panel both offer it.
 * @param {ProviderInfo} info @returns {boolean}
 */
export function canRetryNow(info) {
  const stuck = info.status === Status.CONNECTED &&
    (info.sync?.state === SubscriptionState.STALE || info.sync?.state === SubscriptionState.FAILED);
  return stuck || RETRYABLE.includes(info.status);
}

/** @param {number} at @param {number} now */
const seconds = (at, now) => Math.max(1, Math.ceil((at - now) / 1000));

/**
 * The provider was live, then went away (a dev server restarting): the reconnect policy dials it
 * again fast, and the label says so with its countdown, never a bare "Reconnecting".
 * @param {ProviderInfo} info
 */
const between = (info) => !info.reconnect?.settled &&
  (info.status === Status.RECONNECTING || info.status === Status.UNREACHABLE || info.status === Status.CONNECTING);
/** @param {ProviderInfo} info */
const restarting = (info) => info.reconnect?.mode === 'restart' && between(info);
/** It opens and closes before its snapshot, again and again: said so, with the countdown. @param {ProviderInfo} info */
const crashLooping = (info) => info.reconnect?.mode === 'crash-loop' && between(info);

/** Connected but the first subscription is not live: what its mirror is doing. @type {Record<string, string>} */
const SYNC_LABELS = {
  none: 'no subscription',
  waiting: 'waiting for snapshot',
  resyncing: 'resyncing',
  stale: 'stale',
  failed: 'failed',
};

/**
 * "Reconnecting · retry in 4 s", "Connected", "Connected · stale (retry in 8 s)" etc. "Connected"
 * alone only when the mirror is live: a stale state must never read as live.
 * @param {ProviderInfo} info @param {number} [now] @returns {string}
 */
export function statusLabel(info, now = Date.now()) {
  const { state, countdown } = statusParts(info, now);
  return state + countdown;
}

/**
 * statusLabel in two parts: `state`, which changes only when the state does (what a live region
 * may announce), and `countdown`, the seconds to the next try that change every second
 * (" · retry in 4 s", " (next try in 3 s)", or "").
 * @param {ProviderInfo} info @param {number} [now] @returns {{state: string, countdown: string}}
 */
export function statusParts(info, now = Date.now()) {
  const base = LABELS[info.status] ?? info.status;
  if (restarting(info) || crashLooping(info)) {
    const at = info.status === Status.CONNECTING ? null : info.retryAt;
    const next = at && at > now ? `next try in ${seconds(at, now)} s` : 'trying now';
    return { state: restarting(info) ? 'Provider restarted, reconnecting' : 'Crash loop: it closes before its snapshot each time', countdown: ` (${next})` };
  }
  if (info.status === Status.CONNECTED) {
    if (info.live) return { state: base, countdown: '' };
    const state = info.sync?.state ?? 'none';
    const label = SYNC_LABELS[state] ?? state;
    const retry = info.sync?.retryAt && info.sync.retryAt > now ? ` (retry in ${seconds(info.sync.retryAt, now)} s)` : '';
    return { state: `${base} · ${label}`, countdown: retry };
  }
  if (info.retryAt && info.retryAt > now) return { state: base, countdown: ` · retry in ${seconds(info.retryAt, now)} s` };
  return { state: base, countdown: '' };
}

/** The core's reason, as the start of a sentence. @param {{code?: string, message?: string}|null|undefined} reason */
function reasonText(reason) {
  const text = (reason?.message || reason?.code || '').trim().replace(/[.;:]+$/, '');
  return text ? text[0].toUpperCase() + text.slice(1) : '';
}

/**
 * For a connected provider whose mirror is not live: why, and what happens next, in one
 * sentence ("Patch refused (…); resyncing from a fresh snapshot."). "" when live or not connected
 * (the status message says the rest).
 * @param {ProviderInfo} info @param {number} [now] @returns {string}
 */
export function syncText(info, now = Date.now()) {
  if (info.status !== Status.CONNECTED || info.live) return '';
  const state = info.sync?.state ?? 'none';
  const at = info.sync?.retryAt;
  const retry = at && at > now ? `retrying in ${seconds(at, now)} s, or press Retry` : 'press Retry to resubscribe';
  const next = /** @type {Record<string, string>} */ ({
    none: 'no subscription is open',
    waiting: 'waiting for the provider’s snapshot',
    resyncing: 'resyncing from a fresh snapshot',
    stale: retry,
    failed: retry,
  })[state] ?? `state "${state}"`;
  const fallback = /** @type {Record<string, string>} */ ({ stale: 'The shown state may be out of date', failed: 'The subscription failed' })[state] ?? '';
  const why = reasonText(info.sync?.reason) || fallback;
  const sentence = why ? `${why}; ${next}.` : `${next}.`;
  return sentence[0].toUpperCase() + sentence.slice(1);
}

/** The provider's name from its hello, else where it is. @param {ProviderInfo} info @returns {string} */
export function providerTitle(info) {
  if (info.provider?.name) return info.provider.name;
  if (info.transport.type === 'postmessage') return 'In-page provider';
  return info.transport.url ?? transportText(info); // a local app: its socket or command
}

/** Where the provider is, for a second line. @param {ProviderInfo} info @returns {string} */
export function transportText(info) {
  const t = info.transport;
  if (info.source === 'local') {
    if (t.type === 'unix') return `Unix socket ${t.path} (a local app)`;
    if (t.type === 'stdio') return `the command ${(t.command ?? []).join(' ')} (a local app)`;
    return `${t.url} (a local app)`;
  }
  const how = info.source === 'well-known' ? 'via /.well-known/slop' : info.source === 'manual' ? 'added by address' : 'via <meta name="slop">';
  return info.transport.type === 'postmessage' ? `postMessage (in this page) ${how}` : `${info.transport.url} ${how}`;
}
