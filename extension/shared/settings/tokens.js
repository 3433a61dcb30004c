// settings/tokens.js: provider tokens (storage.local: tokens, tokenIndex): a provider origin, a
// token's check, stored by the options page and read only by the service worker.

import { storageLocal } from '../browser.js';
import { KEYS } from './keys.js';

/**
 * "http://host:3737", "ws://host:3737/slop", "host:3737" → "ws://host:3737" (https → wss).
 * Throws an Error with a message for the user when the input is not usable.
 * @param {string} input @returns {string}
 */
export function normalizeProviderOrigin(input) {
  let text = String(input ?? '').trim();
  if (!text) throw new Error('Enter the provider’s address, for example ws://localhost:3737');
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) text = `ws://${text}`;
  let url;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`“${input}” is not a URL`);
  }
  const scheme = /** @type {Record<string, string>} */ ({ 'ws:': 'ws:', 'wss:': 'wss:', 'http:': 'ws:', 'https:': 'wss:' })[url.protocol];
  if (!scheme) throw new Error('Use a ws://, wss://, http:// or https:// address');
  if (!url.hostname) throw new Error('The address has no host');
  if (url.username || url.password) throw new Error('Put the token in the token field, not in the address');
  return `${scheme}//${url.host}`;
}

/** The provider origin a WebSocket URL belongs to (the key its token is stored under). @param {string} wsUrl */
export function providerOriginOf(wsUrl) {
  return normalizeProviderOrigin(wsUrl);
}

// A WebSocket subprotocol must be an HTTP token (RFC 9110 §5.6.2); anything else makes the
// WebSocket constructor throw, with the token in its message.
const TCHAR = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** null if usable as the second subprotocol of ["slop.bearer", token], else why not. @param {unknown} token @returns {string|null} */
export function tokenProblem(token) {
  if (typeof token !== 'string' || token.length === 0) return 'The token is empty';
  if (token.length > 4096) return 'The token is longer than 4096 characters';
  if (!TCHAR.test(token)) {
    return 'A token may only contain letters, digits and ! # $ % & \' * + - . ^ _ ` | ~ (use hex or unpadded base64url)';
  }
  if (token === 'slop.bearer') return 'The token cannot be “slop.bearer”';
  return null;
}

// ---------------------------------------------------------------------------------- tokens

/**
 * Stores a token (options page). Throws with a user-facing message.
 * @param {string} origin @param {string} token @returns {Promise<string>} the provider origin
 */
export async function setToken(origin, token) {
  const key = normalizeProviderOrigin(origin);
  const problem = tokenProblem(token);
  if (problem) throw new Error(problem);
  const { tokens = {}, tokenIndex = {} } = await storageLocal.get([KEYS.TOKENS, KEYS.TOKEN_INDEX]);
  tokens[key] = token;
  tokenIndex[key] = { setAt: Date.now(), length: token.length };
  await storageLocal.set({ [KEYS.TOKENS]: tokens, [KEYS.TOKEN_INDEX]: tokenIndex });
  return key;
}

/** @param {string} origin as listTokens() gives it */
export async function removeToken(origin) {
  const { tokens = {}, tokenIndex = {} } = await storageLocal.get([KEYS.TOKENS, KEYS.TOKEN_INDEX]);
  delete tokens[origin];
  delete tokenIndex[origin];
  await storageLocal.set({ [KEYS.TOKENS]: tokens, [KEYS.TOKEN_INDEX]: tokenIndex });
}

/** [{origin, setAt, length}]: never the tokens themselves. @returns {Promise<{origin: string, setAt: number, length: number}[]>} */
export async function listTokens() {
  const { tokenIndex = {} } = await storageLocal.get(KEYS.TOKEN_INDEX);
  return Object.entries(tokenIndex)
    .map(([origin, v]) => ({ origin, setAt: v?.setAt ?? 0, length: v?.length ?? 0 }))
    .sort((a, b) => a.origin.localeCompare(b.origin));
}

/** Service worker only: the token for a WebSocket URL, or null. @param {string} wsUrl @returns {Promise<string|null>} */
export async function tokenFor(wsUrl) {
  let origin;
  try {
    origin = providerOriginOf(wsUrl);
  } catch {
    return null;
  }
  const { tokens = {} } = await storageLocal.get(KEYS.TOKENS);
  return typeof tokens[origin] === 'string' ? tokens[origin] : null;
}
