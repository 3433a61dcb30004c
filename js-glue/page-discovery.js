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

/** @typedef {{status: number, type?: string, text?: string, json?: any, error?: string}} Answer */

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
  } catch (e) {
    return { status: 0, error: e?.name === 'AbortError' ? `no answer in ${FETCH_MS / 1000} s` : 'the request failed (nothing there, or the server does not let this program read it)' };
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
      a[m[1].toLowerCase()] = (m[2] ?? m[3] ?? m[4]).replace(/&(amp|quot|apos|lt|gt|#39|#34);/g, (_, e) => ENTITIES[e]);
    }
    if (a.name?.toLowerCase() === 'slop' && typeof a.content === 'string') out.push(a.content);
  }
  return out;
}

/**
 * @typedef {{ok: boolean, url?: string, via?: string, inPage?: boolean, message?: string, tried?: string}} Found
 *   ok: url is the provider's ws:// address, via how it was found, in words. Else message says why
 *   not; inPage: the page names a provider inside the page (postMessage), which only a browser
 *   reaches; tried: what was asked and what it answered
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
    return { ok: false, inPage: false, tried: `nothing answers there (${wk.error})`, message: `Nothing answers at ${origin} (${wk.error})` };
  }
  const tried = `/.well-known/slop gave ${said(wk)}${wk.status === 200 ? ' (not a SLOP descriptor)' : ''}${page ? `, the page gave ${page.status === 200 ? 'no <meta name="slop">' : said(page)}` : ''}`;
  return { ok: false, inPage: false, tried, message: `no SLOP provider named at ${pageUrl}: ${tried}` };
}
