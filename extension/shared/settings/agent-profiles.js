// settings/agent-profiles.js: the Agent playground's model endpoints (storage.local: agentProfiles,
// agentKeys, a secret the service worker reads; agentKeyIndex, what pages show; agentDefault).

import { storageLocal } from '../browser.js';
import { KEYS } from './keys.js';
import { endpointProblem, AGENT_DEFAULTS } from '../../../js-glue/agent.js';

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

/** The stored fields of a profile as the options page gives them (name and id aside). @param {any} p unchecked */
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
