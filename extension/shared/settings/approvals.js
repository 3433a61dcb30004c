// settings/approvals.js: the user's approvals of cross-origin providers (storage.local) and
// denials (storage.session, until the browser quits).

import { storageLocal, storageSession } from '../browser.js';
import { KEYS } from './keys.js';

/** @param {string} approvalKey @param {{page?: string|null, target?: string|null}} [parts]  the core's, for display */
export async function approve(approvalKey, { page = null, target = null } = {}) {
  const { approvals = {} } = await storageLocal.get(KEYS.APPROVALS);
  approvals[approvalKey] = { at: Date.now(), page, target };
  await storageLocal.set({ [KEYS.APPROVALS]: approvals });
  const { denied = {} } = await storageSession.get(KEYS.DENIED);
  if (denied[approvalKey]) {
    delete denied[approvalKey];
    await storageSession.set({ [KEYS.DENIED]: denied });
  }
}

/** @param {string} approvalKey */
export async function revokeApproval(approvalKey) {
  const { approvals = {} } = await storageLocal.get(KEYS.APPROVALS);
  delete approvals[approvalKey];
  await storageLocal.set({ [KEYS.APPROVALS]: approvals });
}

/**
 * [{key, at, page, target}]: page and target as the core classified them (null if not stored)
 * @returns {Promise<{key: string, at: number, page: string|null, target: string|null}[]>}
 */
export async function listApprovals() {
  const { approvals = {} } = await storageLocal.get(KEYS.APPROVALS);
  return Object.entries(approvals)
    .map(([key, v]) => ({ key, at: v?.at ?? 0, page: typeof v?.page === 'string' ? v.page : null, target: typeof v?.target === 'string' ? v.target : null }))
    .sort((a, b) => a.key.localeCompare(b.key));
}

/** @param {string} approvalKey @returns {Promise<boolean>} */
export async function isApproved(approvalKey) {
  const { approvals = {} } = await storageLocal.get(KEYS.APPROVALS);
  return Object.prototype.hasOwnProperty.call(approvals, approvalKey);
}

/** @param {string} approvalKey */
export async function deny(approvalKey) {
  const { denied = {} } = await storageSession.get(KEYS.DENIED);
  denied[approvalKey] = Date.now();
  await storageSession.set({ [KEYS.DENIED]: denied });
}

/** @param {string} approvalKey @returns {Promise<boolean>} */
export async function isDenied(approvalKey) {
  const { denied = {} } = await storageSession.get(KEYS.DENIED);
  return Object.prototype.hasOwnProperty.call(denied, approvalKey);
}
