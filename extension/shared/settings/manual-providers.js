// settings/manual-providers.js: providers added by address ("Connect…"; storage.local: manualProviders).

import { storageLocal } from '../browser.js';
import { KEYS } from './keys.js';

/** "ws://host:port/path" as the key of a provider added by address; throws with a message. @param {string} input @returns {string} */
export function normalizeProviderUrl(input) {
  let url;
  try {
    url = new URL(String(input ?? '').trim());
  } catch {
    throw new Error('Enter the provider’s address, for example ws://localhost:3737/slop');
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new Error('A SLOP provider’s address is a ws:// or wss:// URL');
  if (url.username || url.password) throw new Error('Put the token in the token field, not in the address');
  if (url.hash) url.hash = '';
  return url.href;
}

/** @param {string} wsUrl @returns {Promise<string>} its key */
export async function addManualProvider(wsUrl) {
  const key = normalizeProviderUrl(wsUrl);
  const { [KEYS.MANUAL_PROVIDERS]: list = {} } = await storageLocal.get(KEYS.MANUAL_PROVIDERS);
  list[key] = { addedAt: list[key]?.addedAt ?? Date.now() };
  await storageLocal.set({ [KEYS.MANUAL_PROVIDERS]: list });
  return key;
}

/** @param {string} wsUrl its key */
export async function removeManualProvider(wsUrl) {
  const { [KEYS.MANUAL_PROVIDERS]: list = {} } = await storageLocal.get(KEYS.MANUAL_PROVIDERS);
  delete list[wsUrl];
  await storageLocal.set({ [KEYS.MANUAL_PROVIDERS]: list });
}

/** The ws:// URLs added by address, oldest first. @returns {Promise<string[]>} */
export async function listManualProviders() {
  const { [KEYS.MANUAL_PROVIDERS]: list = {} } = await storageLocal.get(KEYS.MANUAL_PROVIDERS);
  return Object.entries(list).sort((a, b) => (a[1]?.addedAt ?? 0) - (b[1]?.addedAt ?? 0)).map(([url]) => url);
}
