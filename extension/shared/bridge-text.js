// bridge-text.js: the desktop bridge's state in words, one wording for the popup and Options, so
// the two never say different things (BridgeStatus of service-worker/desktop-bridge.js).

// What the service worker publishes (service-worker/desktop-bridge.js, status()):
/**
 * @typedef {object} BridgeStatus   what the popup and the options page show
 * @property {'off'|'no-token'|'connecting'|'connected'|'retrying'|'refused'|'no-pairing'|'token-refused'|'wants-pairing'} state
 *   no-token: on, but nothing saved (neither a pairing code nor the app's token) and unpaired bridges not allowed;
 *   no-pairing: the bridge did not prove a pairing code and the user has not allowed unpaired bridges;
 *   refused: a pairing that failed (the bridge has another code, or proved a wrong one);
 *   token-refused: the dial offering the app's token failed, or opened without selecting slop.bearer;
 *   wants-pairing: the bridge answered bridge-error not_paired (our bridge, to a browser that did not pair)
 * @property {'paired'|'unpaired'|'token'|null} mode   how the open connection was made (connected only)
 * @property {'code'|'app-token'|null} secret   what is saved (never the secret itself)
 * @property {'confirmed'|'unconfirmed'|null} sharing   connected only: confirmed when the bridge is
 *   ours and paired (it takes every announcement of a paired browser), unconfirmed when it never says
 * @property {string} message       for a person; never the code or the token
 * @property {string|null} note     the bridge's last complaint (bridge-error) about one message, in words
 * @property {string} url
 * @property {number|null} retryAt
 * @property {number} ignored       bridge messages dropped since the worker started (echoes, junk)
 * @property {{providerKey: string, tabId: number, page: string, name: string, id: string, transport: string,
 *             relayed: boolean, trustKey: string, trusted: boolean}[]} shared
 * @property {{id: string, providerKey: string, tabId: number, provider: string, path: string, action: string,
 *             why: 'dangerous'|'unknown', params: string, expiresAt: number, trustKey: string,
 *             agent: {id: string, name: string|null}|null}[]} approvals
 *   agent: the desktop consumer that asked, when the bridge says (ours relays `agent: {id, name?}`)
 */

/** The popup's pill, per state (connected: per mode, below). @type {Record<string, string>} */
const PILL = {
  connected: 'Connected', connecting: 'Connecting', retrying: 'Waiting', refused: 'Pairing failed',
  'no-token': 'Not paired', 'no-pairing': 'Does not pair', 'token-refused': 'Token refused', 'wants-pairing': 'Asks for pairing',
};
/** @type {Record<string, string>} */
const MODE_PILL = { paired: 'Connected, paired', token: 'Connected, token checked', unpaired: 'Connected, unpaired' };

/** @param {any} st BridgeStatus @returns {string} */
export function bridgePill(st) {
  if (st?.state === 'connected' && MODE_PILL[st.mode]) return MODE_PILL[st.mode];
  return PILL[st?.state] ?? String(st?.state ?? '');
}

/** How the open connection was made, in one sentence; '' when not connected. @param {any} st */
export function bridgeModeText(st) {
  if (st?.state !== 'connected') return '';
  if (st.mode === 'paired') return 'Paired: the bridge proved it knows your pairing code.';
  if (st.mode === 'token') return 'Token checked by the bridge when it connected: the SLOP desktop app’s token, offered only because the bridge refused a plain connection.';
  return 'Not paired: any program on this computer that opens the bridge’s port sees what is shared.';
}

/** States the user must act on (a code or token to paste, a switch to turn on). @param {any} st */
export function bridgeNeedsUser(st) {
  return ['refused', 'no-pairing', 'token-refused', 'wants-pairing'].includes(st?.state);
}

/** States a "Retry now" can help (a dial that failed or waits; not one that asks for a code first). @param {any} st */
export function bridgeCanRetry(st) {
  return ['refused', 'retrying', 'no-pairing', 'token-refused'].includes(st?.state);
}

/**
 * What is shared, in one sentence; '' when not connected (the state's message says why nothing is).
 * Shared only when the bridge accepted the announcements: a paired bridge (ours) takes every one;
 * the others never say, so theirs are "announced", never "shared".
 * @param {any} st
 */
export function bridgeSharedText(st) {
  if (st?.state !== 'connected') return '';
  const n = st.shared?.length ?? 0;
  const providers = `${n} provider${n === 1 ? '' : 's'}`;
  const them = n === 1 ? 'it' : 'them';
  if (st.sharing === 'confirmed') {
    return n ? `Sharing ${providers}: agents on this machine see ${them}.` : 'Sharing 0 providers: only connected providers are shared.';
  }
  return n ? `${providers} announced (this bridge does not confirm): agents on this machine may see ${them}.`
    : '0 providers announced: only connected providers are.';
}
