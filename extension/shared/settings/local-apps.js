// settings/local-apps.js: local apps through the native host: on or off, the stdio commands the
// user approved (storage.local), the apps being inspected (storage.session).

import { storageLocal, storageSession } from '../browser.js';
import { KEYS } from './keys.js';

/** Whether the user turned local apps on (Options). @returns {Promise<boolean>} */
export async function localAppsEnabled() {
  return (await storageLocal.get(KEYS.LOCAL_APPS))[KEYS.LOCAL_APPS] === true;
}

/** @param {boolean} enabled */
export async function setLocalAppsEnabled(enabled) {
  await storageLocal.set({ [KEYS.LOCAL_APPS]: !!enabled });
}

/** @param {unknown} a @param {unknown} b */
const sameArgv = (a, b) => Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Whether the user approved running exactly this command for the local app `id` (a stdio
 * descriptor): the same argv, element by element. A changed command is not approved.
 * @param {string} id @param {string[]} command @returns {Promise<boolean>}
 */
export async function isLocalCommandApproved(id, command) {
  const all = (await storageLocal.get(KEYS.LOCAL_APPROVALS))[KEYS.LOCAL_APPROVALS] ?? {};
  return Object.hasOwn(all, id) && sameArgv(all[id]?.command, command);
}

/** The local apps being inspected (storage.session: until the browser quits). @returns {Promise<string[]>} */
export async function openLocalApps() {
  return Object.keys((await storageSession.get(KEYS.LOCAL_OPEN))[KEYS.LOCAL_OPEN] ?? {});
}

/** @param {string} id @param {boolean} open */
export async function setLocalAppOpen(id, open) {
  const all = { ...((await storageSession.get(KEYS.LOCAL_OPEN))[KEYS.LOCAL_OPEN] ?? {}) };
  if (open) all[id] = Date.now();
  else delete all[id];
  await storageSession.set({ [KEYS.LOCAL_OPEN]: all });
}

/** The user approved running `command` for the local app `id`. @param {string} id @param {string[]} command */
export async function approveLocalCommand(id, command) {
  const all = (await storageLocal.get(KEYS.LOCAL_APPROVALS))[KEYS.LOCAL_APPROVALS] ?? {};
  await storageLocal.set({ [KEYS.LOCAL_APPROVALS]: { ...all, [id]: { command: [...command], at: Date.now() } } });
}
