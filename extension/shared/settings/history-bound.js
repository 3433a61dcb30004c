// settings/history-bound.js: what each provider's History may hold (storage.local: historyMb,
// historySteps). Both bound it: the first reached drops the oldest steps.

import { storageLocal } from '../browser.js';
import { KEYS } from './keys.js';

/** What a provider's history may hold, in MB (Options; timeline.js's default when unset). */
export const HISTORY_MB = Object.freeze({ min: 8, max: 1024, choices: [16, 64, 256, 1024] });

/**
 * How many steps a provider's history may keep (Options, and the History pane's "Keep" menu;
 * timeline.js's default when unset). 0: no step bound, the memory alone bounds it.
 */
export const HISTORY_STEPS = Object.freeze({ choices: [1000, 5000, 20000, 100000, 0], default: 1000, max: 1_000_000 });

/** The stored step bound (0: none), or null for the default. @returns {Promise<number|null>} */
export async function historySteps() {
  const { [KEYS.HISTORY_STEPS]: n = null } = await storageLocal.get(KEYS.HISTORY_STEPS);
  return Number.isInteger(n) && (n === 0 || (n >= 100 && n <= HISTORY_STEPS.max)) ? n : null;
}

/** Sets the step bound (null: the default; 0: none). Throws an Error with a message for the user when out of range. @param {number|null} n */
export async function setHistorySteps(n) {
  if (n === null || n === HISTORY_STEPS.default) return storageLocal.remove(KEYS.HISTORY_STEPS);
  if (!Number.isInteger(n) || (n !== 0 && (n < 100 || n > HISTORY_STEPS.max))) throw new Error(`Between 100 and ${HISTORY_STEPS.max.toLocaleString('en-US')} steps, or no step bound`);
  return storageLocal.set({ [KEYS.HISTORY_STEPS]: n });
}

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
