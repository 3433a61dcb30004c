// failure-text.js: why a connection to a provider failed, in the same words in the extension, the
// Node client and the CLI; only the advice differs, fitted to where the user is (Options in the
// extension, connect()'s options in Node, $SLOP_TOKEN and flags in the CLI). Each failure has a
// code: the Node client's SlopTestError code for it.
//
// What can be told differs by where the socket lives: Node's `ws` sees the HTTP status of a refused
// upgrade; a browser sees only that the upgrade failed (close code 1006), and the extension then
// asks the network whether anything listens there, so it says what it can tell and what it cannot.

/** @typedef {'extension'|'node'|'cli'} Surface */
/** @typedef {'unreachable'|'not_found'|'auth_failed'|'timeout'|'protocol_error'} FailureCode */
/**
 * @typedef {{code: FailureCode, message: string, silence?: {since: number, what: 'WebSocket'|'socket'|'command'}}} Failure
 *   silence: a transport open without a hello since `since` (ms), for finalFailure
 */

/** @type {Record<Surface, string>} */
const TOKEN_ADVICE = {
  extension: 'check the token saved for it in Options (or save one), and that the provider allows this extension’s origin',
  node: 'pass its token (connect(url, { token })) and, if it checks the Origin header, an origin it allows ({ origin })',
  cli: 'give its token with $SLOP_TOKEN or --token-file FILE and, if it checks the Origin header, an origin it allows (--origin ORIGIN)',
};

/** "127.0.0.1:3737" and "/slop" of a ws URL (the URL itself when it does not parse). @param {string} url */
function parts(url) {
  try {
    const u = new URL(url);
    return { host: u.host, path: u.pathname + u.search };
  } catch {
    return { host: url, path: '/' };
  }
}

/**
 * The upgrade did not succeed.
 * @param {string} url
 * @param {{surface?: Surface, httpStatus?: number|null, listening?: boolean}} o
 *   httpStatus: what the server answered instead of 101 (Node only); listening: something
 *   answers at the host and port at all (false: nothing listens)
 * @returns {Failure}
 */
export function handshakeFailure(url, { surface = 'extension', httpStatus = null, listening = true }) {
  const { host, path } = parts(url);
  if (!listening) return { code: 'unreachable', message: `Nothing answers at ${url}: nothing listens on ${host}. Is the provider running?` };
  if (httpStatus === 401 || httpStatus === 403) {
    return { code: 'auth_failed', message: `The server at ${host} refused the connection (HTTP ${httpStatus}): ${TOKEN_ADVICE[surface]}.` };
  }
  if (httpStatus === 404 || httpStatus === 410) {
    return { code: 'not_found', message: `Nothing serves SLOP at ${path} on ${host} (HTTP ${httpStatus} to the WebSocket upgrade): check the path of the address.` };
  }
  if (httpStatus) {
    return { code: 'not_found', message: `The server at ${host} answered the WebSocket upgrade at ${path} with HTTP ${httpStatus}: no SLOP provider takes WebSockets there.` };
  }
  // A browser: something answers there, but it is not told why the upgrade failed.
  return {
    code: 'auth_failed',
    message: `The server at ${host} answers, but refused the WebSocket at ${path}. The browser is not told why: a wrong path, a missing or wrong token, or an origin it does not allow. Check the address; then ${TOKEN_ADVICE[surface]}.`,
  };
}

/**
 * The transport opened and nothing came that a SLOP provider says first.
 * @param {string} url the address @param {number} ms how long it waited
 * @param {'WebSocket'|'socket'|'command'} [what] what opened
 * @param {boolean} [final] the waiting is over (a command gave up): no late hello will be taken
 * @returns {Failure}
 */
export function noHello(url, ms, what = 'WebSocket', final = false) {
  const opened = what === 'command' ? `${url} started` : `The ${what} at ${url} opened`;
  return {
    code: 'timeout', silence: { since: Date.now() - ms, what },
    message: `${opened}, but no hello came in ${Math.round(ms / 100) / 10} s: is it a SLOP provider?${final ? '' : ' (A late hello is still taken.)'}`,
  };
}

/**
 * The failure a caller that stops waiting gives up with: a silence says how long it lasted by
 * now, not the 5 s after which the session first said it (and no late hello will be taken).
 * @param {Failure|null} f @param {string} url @param {boolean} stillSilent no hello came since
 * @returns {Failure|null}
 */
export function finalFailure(f, url, stillSilent) {
  return f?.silence && stillSilent ? noHello(url, Date.now() - f.silence.since, f.silence.what, true) : f;
}

/**
 * The socket opened and its first message was not a SLOP hello.
 * @param {string} url @param {string} reason the core's words for that message
 * @returns {Failure}
 */
export function notSlop(url, reason) {
  return { code: 'protocol_error', message: `${url} does not speak SLOP, it seems: its first message is not a SLOP hello (${reason.replace(/[.\s]+$/, '')}).` };
}

/**
 * The socket opened and its first message was a hello the core refused (a missing provider.id, …).
 * @param {string} url @param {string} reason the core's words
 * @returns {Failure}
 */
export function helloRefused(url, reason) {
  return { code: 'protocol_error', message: `${url} said hello, but its hello breaks the spec and was refused (${reason.replace(/[.\s]+$/, '')}).` };
}
