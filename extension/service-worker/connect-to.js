// connect-to.js: "Connect to…" an address no page announces. A ws:// address is a SLOP provider to
// keep (settings-store: manualProviders; tabs.js connects it), but only once it answered: a probe
// connects through the same consumer session as every provider (the core reads its hello) and
// waits for the hello or a failure; nothing is saved before that, unless the user says "save
// anyway". An http:// address is read for a
// /.well-known/slop descriptor (the core parses it); failing that, its /info tells whether it is an
// agnt-gg "Simple Language Open Protocol" server, which shares the name but not the protocol: its
// /info, /tools and /resources are shown read-only and nothing is ever invoked there.

import { Status } from '../shared/messages.js';
import { addManualProvider, normalizeProviderUrl, setToken, tokenFor, tokenProblem } from '../shared/settings-store.js';
import { core } from './core.js';
import { ConsumerSession } from '../../js-glue/consumer-session.js';
import { manualConnections } from './tabs.js';

/** Bytes of an answer read at most. */
const READ_MAX = 256 * 1024;
const PROBE_MS = 5000;
/** How long the probe waits for the provider's hello. */
const HELLO_MS = 5000;

/**
 * The body as text, at most `max` bytes of it: the rest is never read (a probe, not a download).
 * @param {Response} res @param {number} max
 */
async function readAtMost(res, max) {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks = [];
  let n = 0;
  while (n < max) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    n += value.length;
  }
  reader.cancel().catch(() => {});
  const all = new Uint8Array(Math.min(n, max));
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, all.length - at);
    all.set(part, at);
    at += part.length;
  }
  return new TextDecoder().decode(all);
}

/** @typedef {{status: number, type?: string, text?: string, json?: any, error?: string}} Answer */

/** @param {string} url @returns {Promise<Answer>} */
async function getJson(url) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), PROBE_MS);
  try {
    const res = await fetch(url, { credentials: 'omit', cache: 'no-store', redirect: 'error', signal: ctl.signal });
    const text = await readAtMost(res, READ_MAX);
    let json;
    try { json = JSON.parse(text); } catch { json = undefined; }
    return { status: res.status, type: res.headers.get('content-type') ?? '', text, json };
  } catch (e) {
    return { status: 0, error: e?.name === 'AbortError' ? 'no answer in 5 s' : 'the request failed (nothing there, or the server does not let the extension read it: CORS)' };
  } finally {
    clearTimeout(timer);
  }
}

/** An agnt-gg /info: {name, version?, endpoints: [{path, ...}]}. @param {any} info */
function looksAgntGg(info) {
  return !!info && typeof info === 'object' && typeof info.name === 'string' && Array.isArray(info.endpoints) &&
    info.endpoints.some((e) => typeof e?.path === 'string' && /^\/(chat|tools|memory|resources|pay)\b/.test(e.path));
}

/** @param {Answer} r */
function said(r) {
  if (r.status === 0) return r.error;
  return `HTTP ${r.status}${r.type ? ` ${r.type.split(';')[0]}` : ''}${r.json === undefined && r.text ? `: “${r.text.slice(0, 80).replace(/\s+/g, ' ')}”` : ''}`;
}

/**
 * @typedef {{kind: 'slop', key: string, provider: object|null, checked: boolean}
 *   |{kind: 'no-answer', key: string, status: string, message: string}} Kept
 */

/**
 * @param {string} address
 * @param {string|null} token
 * @param {{anyway?: boolean}} [o]  anyway: save without waiting for an answer ("save anyway")
 * @returns {Promise<Kept|{kind: 'agnt-gg', url: string, info: any, tools: any, resources: any}
 *   |{kind: 'not-slop', message: string}>}
 */
export async function connectTo(address, token, { anyway = false } = {}) {
  const text = String(address ?? '').trim();
  let url;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `ws://${text}`);
  } catch {
    throw Object.assign(new Error(`“${text}” is not an address`), { code: 'bad_request' });
  }
  if (url.protocol === 'ws:' || url.protocol === 'wss:') return keep(url.href, token, anyway);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw Object.assign(new Error('Use a ws://, wss://, http:// or https:// address'), { code: 'bad_request' });
  }
  const base = url.href.replace(/\/+$/, '');
  const wk = await getJson(`${url.origin}/.well-known/slop`);
  if (wk.status === 200) {
    const d = core().parseDescriptor(wk.text);
    if (d.ok && d.descriptor.transport?.type === 'ws') return keep(d.descriptor.transport.url, token, anyway);
    if (d.ok) return { kind: 'not-slop', message: `${url.origin}/.well-known/slop names a provider in a page (${d.descriptor.transport?.type}): open that page instead.` };
  }
  const info = await getJson(`${base}/info`);
  if (info.status === 200 && looksAgntGg(info.json)) {
    const [tools, resources] = await Promise.all([getJson(`${base}/tools`), getJson(`${base}/resources`)]);
    return {
      kind: 'agnt-gg', url: base, info: info.json,
      tools: tools.status === 200 && tools.json !== undefined ? tools.json : null,
      resources: resources.status === 200 && resources.json !== undefined ? resources.json : null,
    };
  }
  return {
    kind: 'not-slop',
    message: `${base} is not a SLOP provider: /.well-known/slop gave ${said(wk)}${wk.status === 200 ? ' (not a SLOP descriptor)' : ''}, /info gave ${said(info)}.`,
  };
}

/**
 * Connects to wsUrl as a provider connection does, with the token given (else the one stored), and
 * resolves when the core has its hello ({ok: true, provider}) or the connection failed or stayed
 * silent ({ok: false, status, message}). The connection is then closed: nothing of it is kept.
 * @param {string} wsUrl @param {string|null} token
 * @returns {Promise<{ok: boolean, provider?: object|null, status?: string, message?: string}>}
 */
function probe(wsUrl, token) {
  // A bare session, not a tab's Connection: its events reach no panel, history or badge.
  const conn = new ConsumerSession({ key: wsUrl, transport: { type: 'ws', url: wsUrl }, host: { core, tokenFor: async (u) => token ?? await tokenFor(u) } });
  const { listeners } = conn;
  return new Promise((resolve) => {
    const done = (answer) => {
      clearTimeout(timer);
      listeners.change.clear();
      // Once the core's events of this turn are handled: not from inside the connection's pump.
      queueMicrotask(() => conn.dispose());
      resolve(answer);
    };
    const timer = setTimeout(() => done({ ok: false, status: Status.UNREACHABLE, message: `No hello from ${wsUrl} in ${HELLO_MS / 1000} s.` }), HELLO_MS);
    listeners.change.add(() => {
      switch (conn.status) {
        case Status.CONNECTED:
          return done({ ok: true, provider: conn.provider });
        case Status.AUTH_FAILED:
          return done({ ok: false, status: conn.status, message: token
            ? `${wsUrl} refused the connection: check the token, and that the provider allows this extension’s origin.`
            : `${wsUrl} refused the connection: it probably needs a token (type it above), or it does not allow this extension’s origin.` });
        case Status.UNREACHABLE:
          return done({ ok: false, status: conn.status, message: `Nothing answers at ${wsUrl}.` });
        case Status.RECONNECTING:
          return done({ ok: false, status: conn.status, message: `${wsUrl} closed the connection before its hello${conn.message ? ` (${conn.message.replace(/\.$/, '')})` : ''}.` });
        case Status.ERROR:
          return done({ ok: false, status: conn.status, message: `${wsUrl}: ${conn.message}` });
        default:
          return undefined;
      }
    });
    conn.start().catch((e) => done({ ok: false, status: Status.ERROR, message: `${wsUrl}: ${e?.message ?? e}` }));
  });
}

/** @param {string} wsUrl @param {string|null} token @param {boolean} anyway @returns {Promise<Kept>} */
async function keep(wsUrl, token, anyway) {
  let key;
  try {
    key = normalizeProviderUrl(wsUrl);
    const problem = token ? tokenProblem(token) : null;
    if (problem) throw new Error(problem);
  } catch (e) {
    throw Object.assign(new Error(e.message), { code: 'bad_request' });
  }
  // Already kept and connected (and no new token to try): nothing to find out.
  const known = manualConnections.get(key);
  let provider = !token && known?.status === Status.CONNECTED ? known.provider : null;
  if (!anyway && !provider) {
    const answer = await probe(key, token);
    if (!answer.ok) return { kind: 'no-answer', key, status: answer.status, message: answer.message };
    provider = answer.provider;
  }
  try {
    if (token) await setToken(key, token);
  } catch (e) {
    throw Object.assign(new Error(e.message), { code: 'bad_request' });
  }
  await addManualProvider(key);
  return { kind: 'slop', key, provider, checked: !!provider };
}
