// bridge-dial.js: what the extension saved for the desktop bridge (our pairing code or the SLOP
// desktop app's token), and which dial comes next. Pure: no sockets, no clock, no browser API, so
// the order that keeps our guarantees is decided (and tested) in one place.
//
// The order, and why:
//   1. Always dial bare first: nothing secret is in the handshake, and every bridge that accepts a
//      bare dial (ours, the SLOP project's TypeScript server, Go CLI and older desktop app) is
//      told apart after the socket opens.
//   2. Opened bare, with our code saved: the pairing challenge. A bridge that proves the code is
//      paired; one that does not answer is unpaired.
//   3. Opened bare and not proven: unpaired, used only if the user allowed it. The app token is
//      never offered to it: the TypeScript server echoes the first subprotocol offered, so
//      "it selected slop.bearer" would prove nothing, and any program on the port would read it.
//   4. The bare dial failed and an app token is saved: the desktop app's newer versions refuse a
//      bare upgrade (401), so dial again offering ["slop.bearer", token]; use the socket only if
//      the bridge selected exactly slop.bearer (it checked the token before upgrading).
//   5. That token dial failed: the token was refused (or nothing listens; a browser cannot tell a
//      401 from a closed port, both are a failed handshake): stop and ask for the token.

import { normalizeCode } from './bridge-pairing.js';

/** The desktop app's token: 32 random bytes, base64url without padding. */
export const APP_TOKEN_CHARS = 43;
const APP_TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

/**
 * What a pasted text is: our pairing code (normalised), the desktop app's token, or neither.
 * The app keeps its token as {"token": "..."} in bridge-pairing.json: that whole text is read too.
 * The token is tried first: a code (26 characters, at most 32 with its dashes) never has 43.
 * @param {unknown} text
 * @returns {{kind: 'code'|'app-token', secret: string}|null}
 */
export function classifyBridgeSecret(text) {
  if (typeof text !== 'string') return null;
  let s = text.trim();
  if (s.startsWith('{')) {
    try {
      const o = JSON.parse(s);
      s = o && typeof o.token === 'string' ? o.token.trim() : '';
    } catch { s = ''; }
  }
  s = s.replace(/^["']|["']$/g, '');
  if (APP_TOKEN_RE.test(s)) return { kind: 'app-token', secret: s };
  const code = normalizeCode(s);
  return code ? { kind: 'code', secret: code } : null;
}

/**
 * @typedef {object} DialSetup
 * @property {'code'|'app-token'|null} secret   what is saved (classifyBridgeSecret's kind)
 * @property {boolean} allowUnpaired
 *
 * @typedef {{on: 'start'}
 *   | {on: 'bare-failed', noListener?: boolean}
 *   | {on: 'bare-opened'}
 *   | {on: 'pairing', outcome: 'paired'|'no-answer'|'refused'|'bad-proof'}
 *   | {on: 'token-opened', protocol: string}
 *   | {on: 'token-failed', noListener?: boolean}
 *   | {on: 'lost'}} DialEvent
 *   noListener: Node's `ws` saw the connection itself refused (a browser never knows)
 *
 * @typedef {{do: 'dial-bare'}|{do: 'dial-token'}|{do: 'pair'}|{do: 'retry'}
 *   | {do: 'live', mode: 'paired'|'unpaired'|'token'}
 *   | {do: 'stop', state: 'no-token'|'no-pairing'|'refused'|'token-refused', why: string}} DialAction
 *   stop: close, and do not dial again until the settings change or the user retries
 */

/**
 * The next step after `event`.
 * @param {DialSetup} setup @param {DialEvent} event @returns {DialAction}
 */
export function nextDial(setup, event) {
  const { secret, allowUnpaired } = setup;
  /** @type {(why: string) => DialAction} */
  const unpaired = (why) => (allowUnpaired ? { do: 'live', mode: 'unpaired' } : { do: 'stop', state: 'no-pairing', why });
  switch (event.on) {
    case 'start':
      return !secret && !allowUnpaired ? { do: 'stop', state: 'no-token', why: 'nothing saved' } : { do: 'dial-bare' };
    case 'bare-failed':
      // Only a bridge that refused the bare upgrade may be offered the token; a port known to be
      // closed is not dialled with it (a browser cannot know that, so it dials).
      return secret === 'app-token' && !event.noListener ? { do: 'dial-token' } : { do: 'retry' };
    case 'bare-opened':
      if (secret === 'code') return { do: 'pair' };
      return unpaired(secret === 'app-token' ? 'it accepts a plain connection, so it is not given the desktop app\'s token' : 'no pairing code is saved');
    case 'pairing':
      if (event.outcome === 'paired') return { do: 'live', mode: 'paired' };
      if (event.outcome === 'no-answer') return unpaired('it did not answer the pairing challenge');
      return { do: 'stop', state: 'refused', why: event.outcome };
    case 'token-opened':
      return event.protocol === 'slop.bearer' ? { do: 'live', mode: 'token' }
        : { do: 'stop', state: 'token-refused', why: event.protocol ? 'another subprotocol selected' : 'no subprotocol selected' };
    case 'token-failed':
      return event.noListener ? { do: 'retry' } : { do: 'stop', state: 'token-refused', why: 'refused' };
    case 'lost':
      return { do: 'retry' };
    default:
      return { do: 'retry' };
  }
}
