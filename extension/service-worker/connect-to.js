// connect-to.js: "Connect to…" an address no page announces, typed as people type it
// (provider-address.js: `ws:/host:port/path`, `localhost:3737`, a page's http:// address; what
// cannot be an address is refused before any dial). A ws:// address is a SLOP provider to keep
// (settings-store: manualProviders; tabs.js connects it), but only once it answered: a probe
// connects through the same consumer session as every provider (the core reads its hello) and
// waits for the hello or a failure; nothing is saved before that, unless the user says "save
// anyway" to an address where nothing listens yet. An http:// address is read for a
// /.well-known/slop descriptor (page-discovery.js; the core parses it) and the provider it names is
// kept, saying so; failing that, its /info tells whether it is an agnt-gg "Simple Language Open
// Protocol" server, which shares the name but not the protocol: its /info, /tools and /resources are
// shown read-only and nothing is ever invoked there.

import { Status } from '../shared/messages.js';
import { addManualProvider, normalizeProviderUrl, setToken, tokenFor, tokenProblem } from '../shared/settings-store.js';
import { core } from './core.js';
import { ConsumerSession } from '../../js-glue/consumer-session.js';
import { readAddress } from '../../js-glue/provider-address.js';
import { findPageProvider, getText as getJson, said } from '../../js-glue/page-discovery.js';
import { manualConnections } from './tabs.js';

/** How long the probe waits for the provider's hello. */
const HELLO_MS = 5000;

/** An agnt-gg /info: {name, version?, endpoints: [{path, ...}]}. @param {any} info */
function looksAgntGg(info) {
  return !!info && typeof info === 'object' && typeof info.name === 'string' && Array.isArray(info.endpoints) &&
    info.endpoints.some((/** @type {any} JSON of the server's */ e) => typeof e?.path === 'string' && /^\/(chat|tools|memory|resources|pay)\b/.test(e.path));
}

/**
 * @typedef {{kind: 'slop', key: string, provider: object|null, checked: boolean, read: string|null}
 *   |{kind: 'no-answer', key: string, status: string, message: string, read: string|null, canSave: boolean}} Kept
 *   read: how the typed address was read, or where a page said the provider is; canSave: nothing
 *   listens there yet ("Save anyway" keeps it); a server that answers and refuses is not saved
 */

/**
 * @typedef {{ok: boolean, provider?: import('../shared/messages.js').ProviderInfo['provider'], status?: string, message?: string}} Probed
 *   a probe's outcome: ok, with the provider; else status and message
 */

/**
 * @param {string} address
 * @param {string|null} token
 * @param {{anyway?: boolean}} [o]  anyway: save without waiting for an answer ("save anyway")
 * @returns {Promise<Kept|{kind: 'agnt-gg', url: string, info: any, tools: any, resources: any}
 *   |{kind: 'not-slop', message: string}>}
 */
export async function connectTo(address, token, { anyway = false } = {}) {
  const a = readAddress(address);
  if (!a.ok) throw Object.assign(new Error(a.problem), { code: 'bad_request' });
  const aUrl = /** @type {string} an address read has its URL */ (a.url);
  if (a.kind === 'ws') return keep(aUrl, token, anyway, a.read);
  const url = new URL(aUrl);
  const base = url.href.replace(/\/+$/, '');
  const found = await findPageProvider(aUrl, { core: core(), meta: false });
  const foundMessage = /** @type {string} found.ok, or message says why not */ (found.message);
  if (found.ok) return keep(/** @type {string} */ (found.url), token, anyway, [a.read, found.via].filter(Boolean).join('; '));
  if (found.inPage) return { kind: 'not-slop', message: `${found.message}: open that page instead.` };
  // Nothing there (or a port never dialled): its /info would say the same, after as long a wait.
  if (found.noAnswer && found.noAnswer !== 'unreadable') return { kind: 'not-slop', message: foundMessage };
  const info = await getJson(`${base}/info`);
  if (info.status === 200 && looksAgntGg(info.json)) {
    const [tools, resources] = await Promise.all([getJson(`${base}/tools`), getJson(`${base}/resources`)]);
    return {
      kind: 'agnt-gg', url: base, info: info.json,
      tools: tools.status === 200 && tools.json !== undefined ? tools.json : null,
      resources: resources.status === 200 && resources.json !== undefined ? resources.json : null,
    };
  }
  // One sentence: what answered, and what to type instead.
  return {
    kind: 'not-slop',
    message: found.noAnswer ? foundMessage
      : `${base} answers, but is not a SLOP provider (/.well-known/slop: ${found.wellKnown}; /info: ${said(info)}). Type the provider’s ws:// address, or the address of a page that announces one.`,
  };
}

/**
 * Connects to wsUrl as a provider connection does, with the token given (else the one stored), and
 * resolves when the core has its hello ({ok: true, provider}) or the connection failed or stayed
 * silent ({ok: false, status, message}). The connection is then closed: nothing of it is kept.
 * @param {string} wsUrl @param {string|null} token
 * @returns {Promise<Probed>}
 */
function probe(wsUrl, token) {
  // A bare session, not a tab's Connection: its events reach no panel, history or badge.
  const conn = new ConsumerSession({ key: wsUrl, transport: { type: 'ws', url: wsUrl }, host: { core, tokenFor: async (u) => token ?? await tokenFor(u), helloWaitMs: HELLO_MS } });
  const { listeners } = conn;
  return new Promise((resolve) => {
    const done = (/** @type {Probed} */ answer) => {
      clearTimeout(timer);
      listeners.change.clear();
      // Once the core's events of this turn are handled: not from inside the connection's pump.
      queueMicrotask(() => conn.dispose());
      resolve(answer);
    };
    const timer = setTimeout(() => done({ ok: false, status: Status.CONNECTING, message: conn.failure?.message ?? `No hello from ${wsUrl} in ${HELLO_MS / 1000} s.` }), HELLO_MS + 100);
    listeners.change.add(() => {
      switch (conn.status) {
        case Status.CONNECTED:
          return done({ ok: true, provider: conn.provider });
        case Status.AUTH_FAILED:
        case Status.UNREACHABLE:
          return done({ ok: false, status: conn.status, message: conn.failure?.message ?? conn.message });
        case Status.RECONNECTING:
          return done({ ok: false, status: conn.status, message: `${wsUrl} closed the connection before its hello${conn.message ? ` (${conn.message.replace(/\.$/, '')})` : ''}.` });
        case Status.ERROR:
          return done({ ok: false, status: conn.status, message: `${wsUrl}: ${conn.message}` });
        default:
          // Open, but its first message was no SLOP hello: no point waiting.
          if (conn.failure?.code === 'protocol_error') return done({ ok: false, status: conn.status, message: conn.failure.message });
          return undefined;
      }
    });
    conn.start().catch((e) => done({ ok: false, status: Status.ERROR, message: `${wsUrl}: ${e?.message ?? e}` }));
  });
}

/**
 * @param {string} wsUrl @param {string|null} token @param {boolean} anyway
 * @param {string|null} [read] how the address was read or found, said with the result
 * @returns {Promise<Kept>}
 */
async function keep(wsUrl, token, anyway, read = null) {
  let key;
  try {
    key = normalizeProviderUrl(wsUrl);
    const problem = token ? tokenProblem(token) : null;
    if (problem) throw new Error(problem);
  } catch (e) {
    throw Object.assign(new Error(/** @type {Error} */ (e).message), { code: 'bad_request' });
  }
  // Already kept and connected (and no new token to try): nothing to find out.
  const known = manualConnections.get(key);
  let provider = !token && known?.status === Status.CONNECTED ? known.provider : null;
  if (!anyway && !provider) {
    const answer = await probe(key, token);
    if (!answer.ok) {
      const failed = /** @type {{status: string, message: string}} */ (answer);
      return { kind: 'no-answer', key, status: failed.status, message: failed.message, read, canSave: failed.status === Status.UNREACHABLE };
    }
    provider = /** @type {NonNullable<Probed['provider']>} ok */ (answer.provider);
  }
  try {
    if (token) await setToken(key, token);
  } catch (e) {
    throw Object.assign(new Error(/** @type {Error} */ (e).message), { code: 'bad_request' });
  }
  await addManualProvider(key);
  return { kind: 'slop', key, provider, checked: !!provider, read };
}
