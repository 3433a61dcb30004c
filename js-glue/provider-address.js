// provider-address.js: a provider's address as people type it, read once for the CLI, the Node
// client and the extension's Connect…: `ws:/host:port/path` (one slash), `localhost:3737` (no
// scheme), a trailing space, a page's http(s):// address. What cannot be an address is refused
// before anything is dialled, with what is wrong; a page address is then read for the provider it
// names (page-discovery.js).

const SCHEMES = ['ws', 'wss', 'http', 'https'];

/**
 * @typedef {{ok: boolean, kind?: 'ws'|'page', url?: string, read?: string|null, problem?: string}} Address
 *   ok false: `problem` says what is wrong (nothing else is set). kind ws: a provider's WebSocket address; page: a page (or server) whose /.well-known/slop,
 *   or <meta name="slop">, says where its provider is. read: how the text was read, when it was
 *   not written as the URL it became ("read “localhost:3737” as http://localhost:3737/")
 */

/** @param {string} problem @returns {Address} */
const bad = (problem) => ({ ok: false, problem });

/**
 * @param {unknown} input what the user typed
 * @returns {Address}
 */
export function readAddress(input) {
  const text = String(input ?? '').trim();
  if (!text) return bad('Enter the provider’s address, for example ws://localhost:3737/slop');
  if (/\s/.test(text)) return bad(`“${text}” has a space in it: an address has none`);
  let written = text;
  // ws:/host, ws:host, http:/host: a scheme we know with one slash or none after its colon.
  const slashes = /^([a-z][a-z0-9+.-]*):(\/?)(?!\/)(.*)$/i.exec(text);
  if (slashes && SCHEMES.includes(slashes[1].toLowerCase())) {
    written = `${slashes[1].toLowerCase()}://${slashes[3]}`;
  } else if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    // No scheme: host, host:port, host:port/path. With a path it is the provider's own address;
    // without one, the server's pages are asked where it is.
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d*)?(\/.*)?$/i.test(text)) return bad(`“${text}” is not an address: expected ws://host:port/path, or a page’s http:// address`);
    written = /^[^/]+\/./.test(text) ? `ws://${text}` : `http://${text}`;
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(written)?.[1].toLowerCase() ?? '';
  if (!SCHEMES.includes(scheme)) return bad(`“${scheme}:” addresses are not SLOP providers: use ws:// or wss:// (the provider), or http:// or https:// (its page)`);
  let url;
  try {
    url = new URL(written);
  } catch {
    return bad(`“${text}” is not an address${/:\d{6,}|:(6553[6-9]|655[4-9]\d|65[6-9]\d\d|6[6-9]\d{3}|[7-9]\d{4})\b/.test(written) ? ': its port is over 65535' : ''}`);
  }
  if (!url.hostname) return bad(`“${text}” has no host`);
  if (url.username || url.password) return bad('Put the token in the token field (or $SLOP_TOKEN), not in the address');
  url.hash = '';
  const kind = scheme === 'ws' || scheme === 'wss' ? 'ws' : 'page';
  const href = url.href;
  const same = href.replace(/\/$/, '').toLowerCase() === text.replace(/\/$/, '').toLowerCase();
  return { ok: true, kind, url: href, read: same ? null : `read “${text}” as ${href}` };
}

/** An argv as one would type it, quoted where a shell would need it: for showing only (it is run as the argv, never by a shell). @param {string[]} argv */
export function commandText(argv) {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * A local provider's address, in words and as a key: `unix:/tmp/slop/app.sock`, or `stdio:` and
 * its command as commandText writes it.
 * @param {{type: 'unix', path: string}|{type: 'stdio', command: string[]}} t
 */
export function localAddress(t) {
  return t.type === 'unix' ? `unix:${t.path}` : `stdio:${commandText(t.command)}`;
}

/**
 * Is this host this machine (127.0.0.0/8, ::1, localhost and *.localhost)? The host as the URL
 * parser gives it (`URL.hostname`: IPv4 forms such as 0x7f.1 or 2130706433 already dotted
 * decimal, IPv6 in brackets). Only literal forms: a name that resolves to loopback is not known
 * here. The core's rule (url.c) is the same; tests/node/loopback.test.js compares them.
 * @param {string} host @returns {boolean}
 */
export function isLoopbackHost(host) {
  const h = String(host).toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost') || h === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** isLoopbackHost of a URL's host; false for what is not a URL. @param {string} url @returns {boolean} */
export function isLoopbackUrl(url) {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}
