// settings/desktop-bridge.js: the desktop bridge's settings (storage.local), the providers it may
// invoke without asking and its status (storage.session).

import { storageLocal, storageSession } from '../browser.js';
import { KEYS } from './keys.js';
import { isLoopbackHost } from '../../../js-glue/provider-address.js';
import { classifyBridgeSecret } from '../../../js-glue/bridge-dial.js';

/** Where desktop SLOP consumers host the bridge (the extension dials it). */
export const BRIDGE_DEFAULT_URL = 'ws://127.0.0.1:9339/slop-bridge';

/**
 * A bridge address: ws:// on a loopback host (the bridge is the desktop app on this machine; the
 * state of your pages goes nowhere else). Returns the normalised URL; throws with a message.
 * @param {string} input @returns {string}
 */
export function normalizeBridgeUrl(input) {
  let url;
  try {
    url = new URL(String(input ?? '').trim());
  } catch {
    throw new Error(`Enter the bridge’s address, for example ${BRIDGE_DEFAULT_URL}`);
  }
  if (url.protocol !== 'ws:') throw new Error('The desktop bridge is a ws:// address on this machine');
  if (!isLoopbackHost(url.hostname)) throw new Error('Only a bridge on this machine (127.0.0.1, localhost or [::1]) is accepted');
  if (url.username || url.password || url.search || url.hash) throw new Error('The bridge address has no user, query or fragment: the pairing code goes in its own field');
  return url.href;
}

/**
 * Stores what the user pasted: the pairing code `slop-inspector bridge` prints (normalised) or the
 * SLOP desktop app's token (43 characters of base64url, from its bridge-pairing.json), told apart
 * by form (js-glue/bridge-dial.js). Returns which was saved. Throws with a user-facing message that
 * never quotes what was typed.
 * @param {string} text @returns {Promise<'code'|'app-token'>}
 */
export async function setBridgeToken(text) {
  const got = classifyBridgeSecret(text);
  if (!got) {
    throw new Error('That is neither a pairing code nor the SLOP desktop app’s token: `slop-inspector bridge` prints a code of 26 letters and digits in groups of four (dashes and spaces may be left out); the app’s token is 43 letters, digits, - and _ (the "token" in its bridge-pairing.json).');
  }
  await storageLocal.set({ [KEYS.BRIDGE_TOKEN]: got.secret, [KEYS.BRIDGE_TOKEN_INDEX]: { setAt: Date.now(), length: got.secret.length, kind: got.kind } });
  return got.kind;
}

export async function removeBridgeToken() {
  await storageLocal.remove([KEYS.BRIDGE_TOKEN, KEYS.BRIDGE_TOKEN_INDEX]);
}

/** @param {boolean} enabled */
export async function setBridgeEnabled(enabled) {
  await storageLocal.set({ [KEYS.BRIDGE_ENABLED]: !!enabled });
}

/** Stores the bridge address (normalised; the default is not stored). Throws with a message. @param {string} input */
export async function setBridgeUrl(input) {
  const url = normalizeBridgeUrl(input);
  if (url === BRIDGE_DEFAULT_URL) await storageLocal.remove(KEYS.BRIDGE_URL);
  else await storageLocal.set({ [KEYS.BRIDGE_URL]: url });
  return url;
}

/** Bridges that accept a bare dial and prove no pairing code (the SLOP project's own) are used only with this on. @param {boolean} allow */
export async function setBridgeAllowUnpaired(allow) {
  await storageLocal.set({ [KEYS.BRIDGE_ALLOW_UNPAIRED]: !!allow });
}

/**
 * What pages may show: {enabled, url, allowUnpaired, token: {setAt, length, kind}|null}, never the
 * token (kind: 'code' or 'app-token'; an index saved before app tokens were taken is a code's).
 * @returns {Promise<{enabled: boolean, url: string, allowUnpaired: boolean, token: {setAt: number, length: number, kind: 'code'|'app-token'}|null}>}
 */
export async function bridgeSettingsInfo() {
  const got = await storageLocal.get([KEYS.BRIDGE_ENABLED, KEYS.BRIDGE_URL, KEYS.BRIDGE_TOKEN_INDEX, KEYS.BRIDGE_ALLOW_UNPAIRED]);
  return {
    enabled: got[KEYS.BRIDGE_ENABLED] === true, url: got[KEYS.BRIDGE_URL] ?? BRIDGE_DEFAULT_URL,
    allowUnpaired: got[KEYS.BRIDGE_ALLOW_UNPAIRED] === true,
    token: got[KEYS.BRIDGE_TOKEN_INDEX] ? { kind: 'code', ...got[KEYS.BRIDGE_TOKEN_INDEX] } : null,
  };
}

/**
 * Service worker only: {enabled, url, token, allowUnpaired}.
 * @returns {Promise<{enabled: boolean, url: string, token: string|null, allowUnpaired: boolean}>}
 */
export async function bridgeSettings() {
  const got = await storageLocal.get([KEYS.BRIDGE_ENABLED, KEYS.BRIDGE_URL, KEYS.BRIDGE_TOKEN, KEYS.BRIDGE_ALLOW_UNPAIRED]);
  let url = BRIDGE_DEFAULT_URL;
  try { url = normalizeBridgeUrl(got[KEYS.BRIDGE_URL] ?? BRIDGE_DEFAULT_URL); } catch { /* a bad stored value: the default */ }
  return {
    enabled: got[KEYS.BRIDGE_ENABLED] === true, url, token: typeof got[KEYS.BRIDGE_TOKEN] === 'string' ? got[KEYS.BRIDGE_TOKEN] : null,
    allowUnpaired: got[KEYS.BRIDGE_ALLOW_UNPAIRED] === true,
  };
}

/**
 * {[trustKey]: {name, at}}: the providers the desktop may invoke without asking, this session.
 * @returns {Promise<Record<string, {name: string, at: number}>>}
 */
export async function bridgeTrust() {
  const { [KEYS.BRIDGE_TRUST]: trust = {} } = await storageSession.get(KEYS.BRIDGE_TRUST);
  return trust && typeof trust === 'object' ? trust : {};
}

/**
 * Lets the desktop invoke a provider without asking (on) or asks again (off). Session storage
 * only: it ends when the browser does. trustKey comes from the bridge's status (shared, approvals).
 * @param {string} trustKey @param {string} name @param {boolean} on
 */
export async function setBridgeTrust(trustKey, name, on) {
  const trust = { ...(await bridgeTrust()) };
  if (on) trust[trustKey] = { name: String(name ?? ''), at: Date.now() };
  else delete trust[trustKey];
  await storageSession.set({ [KEYS.BRIDGE_TRUST]: trust });
}

/** Service worker: the bridge turned off forgets every such permission. */
export async function clearBridgeTrust() {
  await storageSession.remove(KEYS.BRIDGE_TRUST);
}

/** The bridge's status as the worker last wrote it (BridgeStatus of desktop-bridge.js), or null. */
export async function bridgeStatus() {
  const { [KEYS.BRIDGE_STATUS]: st = null } = await storageSession.get(KEYS.BRIDGE_STATUS);
  return st;
}

/** Service worker only: publishes the bridge's status to the popup and the options page. @param {object} status BridgeStatus */
export async function publishBridgeStatus(status) {
  await storageSession.set({ [KEYS.BRIDGE_STATUS]: status });
}
