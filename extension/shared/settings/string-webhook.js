// settings/string-webhook.js: the String agent's webhook (storage.local: stringWebhook, a secret
// the service worker reads; stringWebhookIndex, what pages show).

import { storageLocal } from '../browser.js';
import { KEYS } from './keys.js';
import { isLoopbackHost } from '../../../js-glue/provider-address.js';

/**
 * A String agent's local webhook URL (from `string webhook show`), checked: http on a loopback
 * host, path /webhook/<token>. Returns {url, origin, tokenLength}; throws with a message that never
 * quotes the token.
 * @param {string} input @returns {{url: string, origin: string, tokenLength: number}}
 */
export function parseStringWebhook(input) {
  let url;
  try {
    url = new URL(String(input ?? '').trim());
  } catch {
    throw new Error('Paste the whole webhook URL, for example http://127.0.0.1:3923/webhook/wh_…');
  }
  if (url.protocol !== 'http:') throw new Error('A String webhook is an http:// URL on this machine');
  if (!isLoopbackHost(url.hostname)) throw new Error('Only a webhook on this machine (127.0.0.1, localhost or [::1]) is accepted: the state of your pages goes nowhere else');
  const m = /^\/webhook\/([A-Za-z0-9_-]{8,256})$/.exec(url.pathname);
  if (!m || url.search || url.hash || url.username || url.password) throw new Error('The URL must end in /webhook/<token>, as `string webhook show` prints it');
  return { url: `${url.origin}${url.pathname}`, origin: url.origin, tokenLength: m[1].length };
}

/**
 * Stores the webhook URL: pasted in the options page, or fetched by the worker for an agent picked
 * there (agentId: whose event stream shows that a send arrived). Throws with a user-facing message.
 * @param {string} input @param {{agentId?: string|null}} [o] @returns {Promise<string>} its origin
 */
export async function setStringWebhook(input, { agentId = null } = {}) {
  const w = parseStringWebhook(input);
  const index = { origin: w.origin, setAt: Date.now(), tokenLength: w.tokenLength, ...(agentId ? { agentId } : {}) };
  await storageLocal.set({ [KEYS.STRING_WEBHOOK]: w.url, [KEYS.STRING_WEBHOOK_INDEX]: index });
  return w.origin;
}

/** Service worker: the agent a pasted webhook belongs to, as its daemon named it in a 202. @param {string} url @param {string} agentId */
export async function noteStringAgent(url, agentId) {
  const got = await storageLocal.get([KEYS.STRING_WEBHOOK, KEYS.STRING_WEBHOOK_INDEX]);
  const index = got[KEYS.STRING_WEBHOOK_INDEX];
  // Only for the URL that was sent to: the user may have saved another one meanwhile.
  if (got[KEYS.STRING_WEBHOOK] !== url || !index || index.agentId === agentId) return;
  await storageLocal.set({ [KEYS.STRING_WEBHOOK_INDEX]: { ...index, agentId } });
}

export async function removeStringWebhook() {
  await storageLocal.remove([KEYS.STRING_WEBHOOK, KEYS.STRING_WEBHOOK_INDEX]);
}

/**
 * {origin, setAt, tokenLength, agentId?} or null: what a page may show.
 * @returns {Promise<{origin: string, setAt: number, tokenLength: number, agentId?: string}|null>}
 */
export async function stringWebhookInfo() {
  const { [KEYS.STRING_WEBHOOK_INDEX]: info = null } = await storageLocal.get(KEYS.STRING_WEBHOOK_INDEX);
  return info;
}

/** Service worker only: the webhook URL, or null. @returns {Promise<string|null>} */
export async function stringWebhookUrl() {
  const { [KEYS.STRING_WEBHOOK]: url = null } = await storageLocal.get(KEYS.STRING_WEBHOOK);
  return typeof url === 'string' ? url : null;
}
