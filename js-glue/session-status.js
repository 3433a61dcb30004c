// session-status.js: where a consumer session stands (ConsumerSession.status), the values the
// extension's UI shows (ProviderInfo.status) and the Node client waits on. Kebab case, as every
// status value across the worker/UI boundary (extension/shared/messages.js: naming).

export const Status = Object.freeze({
  /** Found (announced by a page, or added by address), not dialled yet. */
  DISCOVERED: 'discovered',
  /** A page names a provider on another origin: waits for the user's approval (the extension). */
  PENDING_APPROVAL: 'pending-approval',
  /** The user denied it for this browser session (the extension). */
  DENIED: 'denied',
  CONNECTING: 'connecting',
  /** The provider's hello came: connected (its mirror's state is the session's `sync`). */
  CONNECTED: 'connected',
  /** The connection ended; it is dialled again after the reconnect policy's delay. */
  RECONNECTING: 'reconnecting',
  /** Refused: a token is missing or wrong, or the origin is not allowed. */
  AUTH_FAILED: 'auth-failed',
  /** Nothing answers at the address. */
  UNREACHABLE: 'unreachable',
  /** Stopped: a fatal protocol error, or a transport that could not be made. */
  ERROR: 'error',
});
/** @typedef {typeof Status[keyof typeof Status]} StatusValue */
