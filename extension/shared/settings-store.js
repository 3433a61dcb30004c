// settings-store.js: the user's settings in chrome.storage, shared by the options page (writes)
// and the service worker (reads, and reacts to storage.onChanged).
//
// chrome.storage.local
//   tokens      {[providerOrigin]: token}           read only by the service worker (tokenFor)
//   tokenIndex  {[providerOrigin]: {setAt, length}}  what the options page lists: never the token
//   approvals   {[approvalKey]: {at, page, target}}  key and parts come from the core (classifyTarget)
//   manualProviders     {[wsUrl]: {addedAt}}                  "Connect to…": providers no page announces
//   stringWebhook       "http://127.0.0.1:3923/webhook/wh_…"  read only by the service worker (a secret)
//   stringWebhookIndex  {origin, setAt, tokenLength, agentId?}  what pages show: never the token
//   bridgeEnabled       true|false                            share SLOP apps with the desktop bridge
//   bridgeUrl           "ws://127.0.0.1:9339/slop-bridge"     where the desktop hosts it (loopback)
//   bridgeToken         "<pairing code>"                      normalised; read only by the service worker (a secret)
//   bridgeTokenIndex    {setAt, length}                       what pages show: never the token
//   bridgeAllowUnpaired true|false                            use a bridge that does not prove a pairing code
//   localApps           true|false                            reach local apps through the native host
//   localApprovals      {[descriptorId]: {command, at}}       stdio commands the user approved, each exactly
//   historyMb           64                                    what each provider's history may hold (MB)
//   agentProfiles       {[id]: AgentProfile}                  model endpoints for the Agent playground:
//                                                             never the key
//   agentKeys           {[id]: "<API key>"}                   read only by the service worker (a secret)
//   agentKeyIndex       {[id]: {setAt, length}}               what pages show: never the key
//   agentDefault        "<profile id>"                        the profile the playground starts with
// chrome.storage.session
//   denied      {[approvalKey]: at}                  "Deny" in the popup, for this browser session
//   bridgeStatus  BridgeStatus (desktop-bridge.js)   written by the worker, shown by popup and options
//   bridgeTrust   {[trustKey]: {name, at}}           providers the desktop may invoke without asking:
//                                                    for this browser session only, never in local
//   optionsFocus  {origin, at} | {section, at}       "Open options" after a refusal: the options page
//                                                    fills that provider in and focuses its token field;
//                                                    or opens at a section (the Playground: Agent models)
//   localOpen     {[descriptorId]: at}              local apps being inspected: opened again when the
//                                                    worker starts again (local-apps.js)
//   history:<tabId> <key>  a recording (timeline.js)   a history with Persist on, written by the worker
//                                                    (timelines.js) and read back when it starts again
//
// A provider origin is the origin of the WebSocket URL ("ws://127.0.0.1:3737"). The options page
// also accepts http(s) origins and full URLs and stores the matching ws(s) origin.

import { storageLocal, storageSession } from './browser.js';
import { endpointProblem, AGENT_DEFAULTS } from '../../js-glue/agent.js';
import { normalizeCode } from '../../js-glue/bridge-pairing.js';

export const KEYS = Object.freeze({
  TOKENS: 'tokens',
  TOKEN_INDEX: 'tokenIndex',
  APPROVALS: 'approvals',
  DENIED: 'denied',
  MANUAL_PROVIDERS: 'manualProviders',
  STRING_WEBHOOK: 'stringWebhook',
  STRING_WEBHOOK_INDEX: 'stringWebhookIndex',
  BRIDGE_ENABLED: 'bridgeEnabled',
  LOCAL_APPS: 'localApps',
  LOCAL_APPROVALS: 'localApprovals',
  LOCAL_OPEN: 'localOpen',
  BRIDGE_URL: 'bridgeUrl',
  BRIDGE_TOKEN: 'bridgeToken',
  BRIDGE_TOKEN_INDEX: 'bridgeTokenIndex',
  BRIDGE_STATUS: 'bridgeStatus',
  BRIDGE_ALLOW_UNPAIRED: 'bridgeAllowUnpaired',
  BRIDGE_TRUST: 'bridgeTrust',
  OPTIONS_FOCUS: 'optionsFocus',
  HISTORY_MB: 'historyMb',
  AGENT_PROFILES: 'agentProfiles',
  AGENT_KEYS: 'agentKeys',
  AGENT_KEY_INDEX: 'agentKeyIndex',
  AGENT_DEFAULT: 'agentDefault',
});

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

/**
 * Asks the options page (about to be opened, or open already) to show the token form for this
 * provider. A hand-off through storage because runtime.openOptionsPage() takes no argument.
 * @param {string} wsUrl
 */
export async function askTokenFor(wsUrl) {
  await storageSession.set({ [KEYS.OPTIONS_FOCUS]: { origin: providerOriginOf(wsUrl), at: Date.now() } });
}

/**
 * Asks the options page (about to be opened, or open already) to show one of its sections, by its
 * element id ("agent-models"): the same hand-off as askTokenFor. @param {string} section
 */
export async function askOptionsSection(section) {
  await storageSession.set({ [KEYS.OPTIONS_FOCUS]: { section, at: Date.now() } });
}

/**
 * Options page: what askTokenFor() or askOptionsSection() asked for, once (it is removed):
 * {origin} (a provider's token), {section} (an element id), or null.
 * @returns {Promise<{origin: string|null, section: string|null}|null>}
 */
export async function takeOptionsFocus() {
  const { [KEYS.OPTIONS_FOCUS]: asked } = await storageSession.get(KEYS.OPTIONS_FOCUS);
  if (!asked) return null;
  await storageSession.remove(KEYS.OPTIONS_FOCUS);
  return {
    origin: typeof asked.origin === 'string' ? asked.origin : null,
    section: typeof asked.section === 'string' ? asked.section : null,
  };
}

// ------------------------------------------------------------------------------- approvals

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

// ------------------------------------------------------------------ String agent webhook

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

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
  if (!LOOPBACK.has(url.hostname)) throw new Error('Only a webhook on this machine (127.0.0.1, localhost or [::1]) is accepted: the state of your pages goes nowhere else');
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

// ------------------------------------------------------------------------ desktop bridge

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
  if (!LOOPBACK.has(url.hostname)) throw new Error('Only a bridge on this machine (127.0.0.1, localhost or [::1]) is accepted');
  if (url.username || url.password || url.search || url.hash) throw new Error('The bridge address has no user, query or fragment: the pairing code goes in its own field');
  return url.href;
}

/**
 * Stores the pairing code `slop-inspector bridge` prints (normalised: bridge-pairing.js). Throws
 * with a user-facing message that never quotes what was typed.
 * @param {string} text
 */
export async function setBridgeToken(text) {
  const code = normalizeCode(text);
  if (!code) {
    throw new Error('That is not a pairing code: `slop-inspector bridge` prints one of 26 letters and digits in groups of four (dashes and spaces may be left out).');
  }
  await storageLocal.set({ [KEYS.BRIDGE_TOKEN]: code, [KEYS.BRIDGE_TOKEN_INDEX]: { setAt: Date.now(), length: code.length } });
}

export async function removeBridgeToken() {
  await storageLocal.remove([KEYS.BRIDGE_TOKEN, KEYS.BRIDGE_TOKEN_INDEX]);
}

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

/** Bridges that select no subprotocol (the SLOP project's own) are used only with this on. @param {boolean} allow */
export async function setBridgeAllowUnpaired(allow) {
  await storageLocal.set({ [KEYS.BRIDGE_ALLOW_UNPAIRED]: !!allow });
}

/**
 * What pages may show: {enabled, url, allowUnpaired, token: {setAt, length}|null}, never the token.
 * @returns {Promise<{enabled: boolean, url: string, allowUnpaired: boolean, token: {setAt: number, length: number}|null}>}
 */
export async function bridgeSettingsInfo() {
  const got = await storageLocal.get([KEYS.BRIDGE_ENABLED, KEYS.BRIDGE_URL, KEYS.BRIDGE_TOKEN_INDEX, KEYS.BRIDGE_ALLOW_UNPAIRED]);
  return {
    enabled: got[KEYS.BRIDGE_ENABLED] === true, url: got[KEYS.BRIDGE_URL] ?? BRIDGE_DEFAULT_URL,
    allowUnpaired: got[KEYS.BRIDGE_ALLOW_UNPAIRED] === true, token: got[KEYS.BRIDGE_TOKEN_INDEX] ?? null,
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

// ------------------------------------------------------------ providers added by address

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

// ---- the history's memory bound --------------------------------------------------------------

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

// ---- model endpoints for the Agent playground ------------------------------------------------

/**
 * @typedef {object} AgentProfile  a model endpoint (Options → Agent models); never holds the key
 * @property {string} id
 * @property {string} name            the user's name for it ("Local llama.cpp")
 * @property {'openai'|'ollama'} kind  openai: any /v1/chat/completions server; ollama: /api/chat
 * @property {string} baseUrl         http(s)://host:port (a pasted /v1 or /api is taken off by agent.js)
 * @property {string} model           the model's id at that endpoint
 * @property {number} [maxSteps]      the playground's default step limit (1-100; default 8)
 * @property {number} [maxStateBytes] the state text's budget per request, UTF-8 bytes (AGENT_LIMITS; absent: 64 KiB)
 * @property {number} [maxTools]      tools offered per request (1-512; absent: 128)
 * @property {number} [firstByteMs]   the model's first byte within (ms; absent: AGENT_DEFAULTS.firstByteMs)
 * @property {number} [idleMs]        a stream's silence allowed (ms; absent: AGENT_DEFAULTS.idleMs)
 * @property {number} [runMs]         the whole run within (ms; 0 or absent: no limit)
 * @property {number} addedAt
 * @property {{setAt: number, length: number}|null} [key]  listAgentProfiles(): whether a key is set
 */

/**
 * What a profile's state budget and tool count may be (Options → Agent models). The budget is
 * stored in bytes (js-glue/agent.js's maxStateBytes, at least 512); the page offers `stateKiB`.
 * A value equal to the default is not stored.
 */
export const AGENT_LIMITS = Object.freeze({
  minStateBytes: 512,
  maxStateBytes: 256 * 1024,
  stateKiB: Object.freeze([8, 16, 32, 64, 128, 256]),
  maxTools: 512,
  defaultStateBytes: AGENT_DEFAULTS.maxStateBytes,
  defaultTools: AGENT_DEFAULTS.maxTools,
  defaultFirstByteMs: AGENT_DEFAULTS.firstByteMs,
  defaultIdleMs: AGENT_DEFAULTS.idleMs,
  defaultRunMs: AGENT_DEFAULTS.runMs,
});

/** A key as an Authorization: Bearer value: printable ASCII, no spaces. null if usable, else why not. @param {unknown} key */
export function agentKeyProblem(key) {
  if (typeof key !== 'string' || !key) return 'The API key is empty';
  if (key.length > 4096) return 'The API key is longer than 4096 characters';
  if (!/^[\x21-\x7e]+$/.test(key)) return 'An API key is printable ASCII without spaces: check what was pasted';
  return null;
}

/** The stored fields of a profile as the options page gives them (name and id aside). */
function agentProfileFields(p) {
  return {
    kind: p?.kind, baseUrl: String(p?.baseUrl ?? '').trim(), model: String(p?.model ?? '').trim(),
    ...(p?.maxSteps === undefined ? {} : { maxSteps: p.maxSteps }),
    ...(p?.maxStateBytes === undefined || p.maxStateBytes === AGENT_LIMITS.defaultStateBytes ? {} : { maxStateBytes: p.maxStateBytes }),
    ...(p?.maxTools === undefined || p.maxTools === AGENT_LIMITS.defaultTools ? {} : { maxTools: p.maxTools }),
    // The time limits (ms), stored only when not the default: a later default then applies.
    ...(p?.firstByteMs === undefined || p.firstByteMs === AGENT_LIMITS.defaultFirstByteMs ? {} : { firstByteMs: p.firstByteMs }),
    ...(p?.idleMs === undefined || p.idleMs === AGENT_LIMITS.defaultIdleMs ? {} : { idleMs: p.idleMs }),
    ...(p?.runMs === undefined || p.runMs === AGENT_LIMITS.defaultRunMs ? {} : { runMs: p.runMs }),
  };
}

/**
 * What is wrong with a profile about to be saved, in words for the user, or null. Synchronous: the
 * options page checks before it asks the browser for access to the endpoint (from the click), so
 * a profile that will not be saved never brings up the browser's prompt.
 * @param {{name: string, kind: string, baseUrl: string, model: string, maxSteps?: number, maxStateBytes?: number, maxTools?: number}} p
 * @returns {string|null}
 */
export function agentProfileProblem(p) {
  const name = String(p?.name ?? '').trim();
  if (!name) return 'Give the profile a name';
  if (name.length > 80) return 'The name is longer than 80 characters';
  if (p.maxSteps !== undefined && !(Number.isInteger(p.maxSteps) && p.maxSteps >= 1 && p.maxSteps <= 100)) {
    return 'The step limit is a whole number from 1 to 100';
  }
  const bytes = p.maxStateBytes;
  if (bytes !== undefined && !(Number.isInteger(bytes) && bytes >= AGENT_LIMITS.minStateBytes && bytes <= AGENT_LIMITS.maxStateBytes)) {
    return `The state budget is from ${AGENT_LIMITS.minStateBytes} bytes to ${AGENT_LIMITS.maxStateBytes / 1024} KiB, in whole bytes`;
  }
  if (p.maxTools !== undefined && !(Number.isInteger(p.maxTools) && p.maxTools >= 1 && p.maxTools <= AGENT_LIMITS.maxTools)) {
    return `The number of tools offered is a whole number from 1 to ${AGENT_LIMITS.maxTools}`;
  }
  const problem = endpointProblem(agentProfileFields(p));
  return problem ? problem.charAt(0).toUpperCase() + problem.slice(1) : null;
}

/**
 * Adds or updates a profile (options page). Throws an Error with a message for the user.
 * @param {{id?: string, name: string, kind: string, baseUrl: string, model: string, maxSteps?: number, maxStateBytes?: number, maxTools?: number}} p
 * @returns {Promise<string>} its id
 */
export async function saveAgentProfile(p) {
  const problem = agentProfileProblem(p);
  if (problem) throw new Error(problem);
  const name = String(p.name).trim();
  const profile = agentProfileFields(p);
  const { [KEYS.AGENT_PROFILES]: list = {}, [KEYS.AGENT_DEFAULT]: def = null } = await storageLocal.get([KEYS.AGENT_PROFILES, KEYS.AGENT_DEFAULT]);
  const id = typeof p.id === 'string' && Object.hasOwn(list, p.id) ? p.id : `p${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  list[id] = { id, name, ...profile, addedAt: list[id]?.addedAt ?? Date.now() };
  await storageLocal.set({ [KEYS.AGENT_PROFILES]: list, ...(def && Object.hasOwn(list, def) ? {} : { [KEYS.AGENT_DEFAULT]: id }) });
  return id;
}

/** Removes a profile and its key. @param {string} id */
export async function removeAgentProfile(id) {
  const got = await storageLocal.get([KEYS.AGENT_PROFILES, KEYS.AGENT_KEYS, KEYS.AGENT_KEY_INDEX, KEYS.AGENT_DEFAULT]);
  const list = got[KEYS.AGENT_PROFILES] ?? {}, keys = got[KEYS.AGENT_KEYS] ?? {}, index = got[KEYS.AGENT_KEY_INDEX] ?? {};
  delete list[id];
  delete keys[id];
  delete index[id];
  const rest = Object.values(list).sort((a, b) => a.addedAt - b.addedAt);
  const def = got[KEYS.AGENT_DEFAULT] === id ? (rest[0]?.id ?? null) : got[KEYS.AGENT_DEFAULT] ?? null;
  await storageLocal.set({ [KEYS.AGENT_PROFILES]: list, [KEYS.AGENT_KEYS]: keys, [KEYS.AGENT_KEY_INDEX]: index });
  if (def) await storageLocal.set({ [KEYS.AGENT_DEFAULT]: def });
  else await storageLocal.remove(KEYS.AGENT_DEFAULT);
}

/** Sets (or with null, removes) a profile's API key (options page). Throws with a message. @param {string} id @param {string|null} key */
export async function setAgentKey(id, key) {
  const got = await storageLocal.get([KEYS.AGENT_PROFILES, KEYS.AGENT_KEYS, KEYS.AGENT_KEY_INDEX]);
  if (!Object.hasOwn(got[KEYS.AGENT_PROFILES] ?? {}, id)) throw new Error('No such profile');
  const keys = got[KEYS.AGENT_KEYS] ?? {}, index = got[KEYS.AGENT_KEY_INDEX] ?? {};
  if (key === null) {
    delete keys[id];
    delete index[id];
  } else {
    const problem = agentKeyProblem(key);
    if (problem) throw new Error(problem);
    keys[id] = key;
    index[id] = { setAt: Date.now(), length: key.length };
  }
  await storageLocal.set({ [KEYS.AGENT_KEYS]: keys, [KEYS.AGENT_KEY_INDEX]: index });
}

/** The profile the playground starts with. @param {string} id */
export async function setDefaultAgentProfile(id) {
  await storageLocal.set({ [KEYS.AGENT_DEFAULT]: id });
}

/**
 * What pages may show: the profiles, oldest first, each with `key` {setAt, length} or null, and
 * the default's id. Never a key.
 * @returns {Promise<{profiles: AgentProfile[], defaultId: string|null}>}
 */
export async function listAgentProfiles() {
  const got = await storageLocal.get([KEYS.AGENT_PROFILES, KEYS.AGENT_KEY_INDEX, KEYS.AGENT_DEFAULT]);
  const index = got[KEYS.AGENT_KEY_INDEX] ?? {};
  const profiles = Object.values(got[KEYS.AGENT_PROFILES] ?? {})
    .sort((a, b) => a.addedAt - b.addedAt)
    .map((p) => ({ ...p, key: index[p.id] ?? null }));
  const def = got[KEYS.AGENT_DEFAULT] ?? null;
  return { profiles, defaultId: profiles.some((p) => p.id === def) ? def : (profiles[0]?.id ?? null) };
}

/**
 * Service worker only: a profile with its key, as js-glue/agent.js takes an endpoint, or null.
 * @param {string} id @returns {Promise<(AgentProfile & {apiKey: string|null})|null>}
 */
export async function agentEndpointFor(id) {
  const got = await storageLocal.get([KEYS.AGENT_PROFILES, KEYS.AGENT_KEYS]);
  const p = (got[KEYS.AGENT_PROFILES] ?? {})[id];
  if (!p) return null;
  const key = (got[KEYS.AGENT_KEYS] ?? {})[id];
  return { ...p, apiKey: typeof key === 'string' ? key : null };
}
