// ws-transport.js: one WebSocket to a SLOP provider, with the slop.bearer subprotocol.
//
// Transport only: frames are handed over as received and sent as given; the core decides what
// they mean. A binary frame is handed over as its bytes (some servers send JSON text in binary
// frames): the core reads them as UTF-8 and refuses them in its own words when they are not.
// Uses only web platform APIs (WebSocket, fetch), so it runs in the Chrome service worker and in
// the Firefox background page alike.
//
// Auth (SLOP spec, Transport & Discovery: security): with a token the socket is
// opened with the subprotocol list ["slop.bearer", token] and is used only if the server selected
// "slop.bearer". Chrome already fails the handshake when the server selects nothing; Firefox opens
// with protocol "" and this check closes it. The token never appears in an error or a status.

export const SUBPROTOCOL = 'slop.bearer';

/** Close code used when we reject the server's handshake answer (private-use range). */
export const CLOSE_SUBPROTOCOL_REJECTED = 4001;


/**
 * A binary frame's bytes, without a leading UTF-8 byte order mark (the WebSocket API drops it from
 * text frames; a JSON reader would not take it).
 * @param {ArrayBuffer} data
 */
function binaryFrame(data) {
  const u8 = new Uint8Array(data);
  return u8.length >= 3 && u8[0] === 0xef && u8[1] === 0xbb && u8[2] === 0xbf ? u8.subarray(3) : u8;
}

/**
 * @typedef {object} CloseInfo
 * @property {'construct'|'subprotocol'|'closed'} kind
 *   construct: the WebSocket constructor refused the URL or the token (no connection attempt);
 *   subprotocol: the server opened without selecting slop.bearer (we closed it); `none` says
 *     whether it selected no subprotocol at all (a server that does not pair) rather than another;
 *   closed: the socket closed, before (opened = false) or after opening.
 * @property {boolean} [none]   kind subprotocol: the server selected nothing (never says what else it chose)
 * @property {number} [httpStatus]  kind closed, not opened: the HTTP status the server answered the
 *   upgrade with (Node's `ws` tells it; a browser never does)
 * @property {boolean} [noListener] kind closed, not opened: the connection itself was refused, nothing
 *   listens there (Node's `ws` tells it; a browser never does)
 * @property {boolean} opened   the socket had opened (and been accepted)
 * @property {number} code
 * @property {string} message   safe to show: never contains the token
 */

export class WsTransport {
  /** @type {WebSocket|null} */
  #ws = null;
  #accepted = false;
  #closedReported = false;
  /** What Node's `ws` said of a failed upgrade (its error's message); a browser says nothing. */
  #httpStatus = 0;
  #noListener = false;

  /**
   * @param {string} url  ws:// or wss:// URL (from the core's parseMeta / parseDescriptor)
   * @param {{token?: string|null, WebSocket?: typeof WebSocket, onOpen: () => void,
   *          onFrame: (frame: string|Uint8Array) => void, onClose: (info: CloseInfo) => void}} handlers
   *   onFrame: a text frame's text, a binary frame's bytes
   */
  constructor(url, { token = null, WebSocket = globalThis.WebSocket, onOpen, onFrame, onClose }) {
    this.url = url;
    this.tokenOffered = !!token;
    this.onOpen = onOpen;
    this.onFrame = onFrame;
    this.onClose = onClose;
    try {
      this.#ws = token ? new WebSocket(url, [SUBPROTOCOL, token]) : new WebSocket(url);
    } catch {
      // The constructor's message quotes the subprotocol, i.e. the token: never pass it on.
      this.#ws = null;
      queueMicrotask(() => this.#reportClose({
        kind: 'construct', opened: false, code: 0,
        message: token
          ? 'cannot open a WebSocket with this URL and the stored token (a token may only contain letters, digits and !#$%&\'*+-.^_`|~)'
          : 'cannot open a WebSocket to this URL',
      }));
      return;
    }
    const ws = this.#ws;
    ws.binaryType = 'arraybuffer';
    ws.onopen = () => {
      if (this.tokenOffered && ws.protocol !== SUBPROTOCOL) {
        // Firefox opens even when the server selected no subprotocol; a server that echoes
        // anything else (even the token) did not accept slop.bearer either.
        this.#reportClose({ kind: 'subprotocol', opened: false, code: CLOSE_SUBPROTOCOL_REJECTED, none: ws.protocol === '',
          message: 'server did not accept slop.bearer' });
        try { ws.close(CLOSE_SUBPROTOCOL_REJECTED, 'slop.bearer not selected'); } catch { /* already closing */ }
        return;
      }
      this.#accepted = true;
      this.onOpen();
    };
    ws.onmessage = (e) => {
      if (!this.#accepted) return;
      if (typeof e.data === 'string') {
        this.onFrame(e.data);
        return;
      }
      this.onFrame(binaryFrame(e.data));
    };
    ws.onclose = (e) => {
      /** @type {CloseInfo} */
      const info = { kind: 'closed', opened: this.#accepted, code: e.code,
        message: this.#accepted ? `connection closed (code ${e.code})` : `connection failed (code ${e.code})` };
      if (!this.#accepted && this.#httpStatus) info.httpStatus = this.#httpStatus;
      if (!this.#accepted && this.#noListener) info.noListener = true;
      this.#reportClose(info);
    };
    // Always followed by close. Node's `ws` names the cause in the error's message ("Unexpected
    // server response: 404", "connect ECONNREFUSED …"); a browser's error event has none.
    ws.onerror = (e) => {
      const text = String(/** @type {any} */ (e)?.message ?? '');
      const status = /Unexpected server response: (\d{3})/.exec(text);
      if (status) this.#httpStatus = Number(status[1]);
      if (/ECONNREFUSED/.test(text)) this.#noListener = true;
    };
  }

  get isOpen() {
    return this.#accepted && this.#ws?.readyState === 1; // OPEN, in every WebSocket class
  }

  /** Sends one frame; false if the socket is not open. @param {string} text */
  send(text) {
    if (!this.isOpen) return false;
    /** @type {WebSocket} */ (this.#ws).send(text); // open, so there is one
    return true;
  }

  /** Closes without reporting (the owner asked for it). @param {number} [code] @param {string} [reason] */
  close(code = 1000, reason = '') {
    this.#closedReported = true;
    const ws = this.#ws;
    if (!ws) return;
    ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
    try { ws.close(code, reason); } catch { /* not open yet */ }
  }

  /** @param {CloseInfo} info */
  #reportClose(info) {
    if (this.#closedReported) return;
    this.#closedReported = true;
    this.#accepted = false;
    if (this.#ws) this.#ws.onopen = this.#ws.onmessage = this.#ws.onclose = null;
    this.onClose(info);
  }
}

// The desktop bridge's back-off; providers use the reconnect policy (reconnect-policy.js).
export { backoffDelay } from './reconnect-policy.js';

/**
 * After a handshake failed: is the server there at all? A page (or worker) cannot tell a refused
 * handshake (401/403, subprotocol) from a server that is down: both are close code 1006. An opaque
 * no-cors request to the same host and port resolves when something answers HTTP there and
 * rejects on a network error. No cookies are sent.
 * @param {string} wsUrl @param {number} [timeoutMs]
 * @returns {Promise<boolean>}
 */
export async function serverAnswers(wsUrl, timeoutMs = 3000) {
  let httpUrl;
  try {
    const u = new URL(wsUrl);
    u.protocol = u.protocol === 'wss:' ? 'https:' : 'http:';
    httpUrl = u.href;
  } catch {
    return false;
  }
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  try {
    await fetch(httpUrl, { mode: 'no-cors', credentials: 'omit', cache: 'no-store', redirect: 'manual', signal: ctl.signal });
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
