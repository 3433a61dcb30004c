// page-discovery.js: where a page's SLOP provider is, asked over HTTP as the content script asks a
// page in the browser: its /.well-known/slop descriptor, then (where there is no DOM: the CLI) the
// page's own <meta name="slop"> tags. The core reads both (parseDescriptor, parseMeta); this module
// only fetches, with a time limit and a size limit, and says what it found in words. fetch only, so
// it runs in the extension's worker (Connect…) and in Node (the CLI) alike.

/** Bytes of an answer read at most. */
const READ_MAX = 256 * 1024;
const FETCH_MS = 5000;

/**
 * The body as text, at most `max` bytes of it: the rest is never read (a probe, not a download).
 * @param {Response} res @param {number} max
 */
export async function readAtMost(res, max = READ_MAX) {
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

/**
 * @typedef {{status: number, type?: string, text?: string, json?: any, error?: string, reason?: NoAnswer}} Answer
 * @typedef {'bad-port'|'refused'|'unreachable'|'timeout'|'unreadable'} NoAnswer  why status is 0:
 *   a port fetch never dials; nothing listens (Node sees ECONNREFUSED; a browser, a loopback host);
 *   no connection to another host; no answer in time; it answers, but CORS (no site access for the
 *   extension) hides the answer
 */

/** The Fetch standard's "bad ports": browsers and Node's fetch never connect to them. */
const BAD_PORTS = new Set([1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103,
  104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532,
  540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665,
  6666, 6667, 6668, 6669, 6679, 6697, 10080]);

/** @param {URL} u */
const isLoopback = (u) => u.hostname === 'localhost' || u.hostname.endsWith('.localhost') || u.hostname === '[::1]' || /^127\./.test(u.hostname);

/**
 * Why a fetch of url failed, as far as it can be told: a browser's fetch says only "failed" for a
 * refused connection and for an answer CORS hides alike, so an opaque no-cors request (it resolves
 * whenever anything answers) tells them apart.
 * @param {string} url @param {any} e the fetch's error @returns {Promise<NoAnswer>}
 */
async function whyNoAnswer(url, e) {
  const u = new URL(url);
  if (BAD_PORTS.has(Number(u.port))) return 'bad-port';
  if (e?.cause?.code === 'ECONNREFUSED') return 'refused';
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), FETCH_MS);
  try {
    const res = await fetch(url, { mode: 'no-cors', credentials: 'omit', cache: 'no-store', redirect: 'manual', signal: ctl.signal });
    res.body?.cancel().catch(() => {});
    return 'unreadable';
  } catch {
    return isLoopback(u) ? 'refused' : 'unreachable';
  } finally {
    clearTimeout(timer);
  }
}

/** @type {Record<NoAnswer, (port: string) => string>} */
const NO_ANSWER_WORDS = {
  'bad-port': (port) => `port ${port} is blocked (browsers never connect to it)`,
  refused: () => 'connection refused',
  unreachable: () => 'no connection: the host is unknown or unreachable',
  timeout: () => `no answer in ${FETCH_MS / 1000} s`,
  unreadable: () => 'it answers, but does not let this extension read the answer',
};

/**
 * One sentence for an address where a GET got no answer (status 0), with what to do about it.
 * @param {string} origin e.g. http://localhost:9 @param {Answer} r
 */
export function noAnswerText(origin, r) {
  const port = new URL(origin).port || (origin.startsWith('https:') ? '443' : '80');
  switch (r.reason) {
    case 'bad-port': return `Nothing answers at ${origin}: port ${port} is blocked (browsers never connect to it). Is the app on another port?`;
    case 'refused': return `Nothing answers at ${origin} (connection refused). Is the app running on that port?`;
    case 'timeout': return `Nothing answers at ${origin} (no answer in ${FETCH_MS / 1000} s). Is the app running, and is the address right?`;
    case 'unreadable': return `${origin} answers, but does not let this extension read it (no CORS header, and no site access for the extension). Allow the extension on that site, or type the provider’s ws:// address.`;
    default: return `Nothing answers at ${origin} (the host is unknown or unreachable). Check the address.`;
  }
}

/**
 * GET url: its status, content type and text (JSON parsed when it is). status 0: no answer
 * (`error` says why). No credentials, no redirects followed.
 * @param {string} url @returns {Promise<Answer>}
 */
export async function getText(url) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), FETCH_MS);
  try {
    const res = await fetch(url, { credentials: 'omit', cache: 'no-store', redirect: 'error', signal: ctl.signal });
    const text = await readAtMost(res, READ_MAX);
    let json;
    try { json = JSON.parse(text); } catch { json = undefined; }
    return { status: res.status, type: res.headers.get('content-type') ?? '', text, json };
  } catch (/** @type {any} */ e) { // whatever fetch threw
    clearTimeout(timer);
    const reason = e?.name === 'AbortError' ? 'timeout' : await whyNoAnswer(url, e);
    return { status: 0, reason, error: NO_ANSWER_WORDS[reason](new URL(url).port) };
  } finally {
    clearTimeout(timer);
  }
}

/** What an answer was, in a few words: "HTTP 404 text/html", or why there was none. @param {Answer} r */
export function said(r) {
  if (r.status === 0) return r.error ?? 'no answer';
  return `HTTP ${r.status}${r.type ? ` ${r.type.split(';')[0]}` : ''}${r.json === undefined && r.text ? `: “${r.text.slice(0, 80).replace(/\s+/g, ' ')}”` : ''}`;
}

const ENTITIES = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>', '#39': "'", '#34': '"' };

/**
 * The content of every <meta name="slop"> in an HTML text, in order (a scan of the tags' attributes;
 * the page's scripts do not run here, so tags they would add are not seen).
 * @param {string} html @returns {string[]}
 */
export function slopMetaContents(html) {
  const out = [];
  for (const [, attrs] of html.matchAll(/<meta\b([^>]*)>/gi)) {
    /** @type {Record<string, string>} */
    const a = {};
    for (const m of attrs.matchAll(/([a-z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi)) {
      a[m[1].toLowerCase()] = (m[2] ?? m[3] ?? m[4]).replace(/&(amp|quot|apos|lt|gt|#39|#34);/g, (_, /** @type {keyof typeof ENTITIES} */ e) => ENTITIES[e]); // the pattern's names only
    }
    if (a.name?.toLowerCase() === 'slop' && typeof a.content === 'string') out.push(a.content);
  }
  return out;
}

/**
 * @typedef {{ok: boolean, url?: string, via?: string, inPage?: boolean, message?: string, tried?: string,
 *   noAnswer?: NoAnswer, wellKnown?: string}} Found
 *   ok: url is the provider's ws:// address, via how it was found, in words. Else message says why
 *   not; inPage: the page names a provider inside the page (postMessage), which only a browser
 *   reaches; tried: what was asked and what it answered; noAnswer: nothing answered, and why;
 *   wellKnown: what /.well-known/slop answered, in a few words
 */

/**
 * Where the provider of pageUrl is: /.well-known/slop at its origin, then (meta) the page's
 * <meta name="slop"> tags.
 * @param {string} pageUrl
 * @param {{core: any, meta?: boolean}} o  core: the loaded core (parseDescriptor, parseMeta)
 * @returns {Promise<Found>}
 */
export async function findPageProvider(pageUrl, { core, meta = true }) {
  const origin = new URL(pageUrl).origin;
  const wk = await getText(`${origin}/.well-known/slop`);
  if (wk.status === 200) {
    const d = core.parseDescriptor(wk.text);
    if (d.ok && d.descriptor.transport?.type === 'ws') {
      return { ok: true, url: d.descriptor.transport.url, via: `${origin}/.well-known/slop names ${d.descriptor.transport.url}` };
    }
    if (d.ok) return { ok: false, inPage: true, message: `${origin}/.well-known/slop names a provider in the page (${d.descriptor.transport?.type}): only a browser reaches it` };
  }
  let page = null;
  if (meta) {
    page = await getText(pageUrl);
    if (page.status >= 200 && page.status < 300 && page.text) {
      let inPage = false;
      for (const content of slopMetaContents(page.text)) {
        const m = core.parseMeta(content, pageUrl);
        if (m.ok && m.transport.type === 'ws') return { ok: true, url: m.transport.url, via: `the page ${pageUrl} names ${m.transport.url} (<meta name="slop">)` };
        if (m.ok) inPage = true;
      }
      if (inPage) return { ok: false, inPage: true, message: `the page ${pageUrl} names a provider in the page (postMessage): only a browser reaches it` };
    }
  }
  if (wk.status === 0 && (!page || page.status === 0)) {
    return { ok: false, inPage: false, noAnswer: wk.reason, tried: `nothing answers there (${wk.error})`, message: noAnswerText(origin, wk) };
  }
  const tried = `/.well-known/slop gave ${said(wk)}${wk.status === 200 ? ' (not a SLOP descriptor)' : ''}${page ? `, the page gave ${page.status === 200 ? 'no <meta name="slop">' : said(page)}` : ''}`;
  return { ok: false, inPage: false, tried, wellKnown: said(wk), message: `no SLOP provider named at ${pageUrl}: ${tried}` };
}
