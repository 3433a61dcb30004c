// settings/history-bound.js: what each provider's History may hold (storage.local: historyMb).

import { storageLocal } from '../browser.js';
import { KEYS } from './keys.js';

/** What a provider's history may hold, in MB (Options; timeline.js's default when unset). */
export const HISTORY_MB = Object.freeze({ min: 8, max: 1024, choices: [16, 64, 256, 1024] });

/** The stored bound in MB, or null for the default. @returns {Promise<number|null>} */
export async function historyMb() {
  const { [KEYS.HISTORY_MB]: mb = null } = await storageLocal.get(KEYS.HISTORY_MB);
  return Number.isInteger(mb) && mb >= HISTORY_MB.min && mb <= HISTORY_MB.max ? mb : null;
}

/** Sets the bound (null: the default). Throws an Error with a message for the user when out of range. @param {number|null} mb */
export async function setHistoryMb(mb) {
  if (mb === null) return storageLocal.remove(KEYS.HISTORY_MB);
  if (!Number.isInteger(mb) || mb < HISTORY_MB.min || mb > HISTORY_MB.max) throw new Error(`Between ${HISTORY_MB.min} and ${HISTORY_MB.max} MB`);
  return storageLocal.set({ [KEYS.HISTORY_MB]: mb });
}
