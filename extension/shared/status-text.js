// status-text.js: how the popup and the panel describe a provider (ProviderInfo of messages.js).
import { Status } from './messages.js';

const LABELS = {
  [Status.DISCOVERED]: 'Discovered',
  [Status.PENDING_APPROVAL]: 'Waiting for approval',
  [Status.DENIED]: 'Denied',
  [Status.CONNECTING]: 'Connecting',
  [Status.CONNECTED]: 'Connected',
  [Status.RECONNECTING]: 'Reconnecting',
  [Status.AUTH_FAILED]: 'Refused (auth)',
  [Status.UNREACHABLE]: 'Unreachable',
  [Status.ERROR]: 'Error',
};

/** "Reconnecting in 4 s" etc. */
export function statusLabel(info, now = Date.now()) {
  const base = LABELS[info.status] ?? info.status;
  if (info.retryAt && info.retryAt > now) return `${base} · retry in ${Math.ceil((info.retryAt - now) / 1000)} s`;
  return base;
}

/** The provider's name from its hello, else where it is. */
export function providerTitle(info) {
  if (info.provider?.name) return info.provider.name;
  return info.transport.type === 'postmessage' ? 'In-page provider' : info.transport.url;
}

/** Where the provider is, for a second line. */
export function transportText(info) {
  const how = info.source === 'well-known' ? 'via /.well-known/slop' : 'via <meta name="slop">';
  return info.transport.type === 'postmessage' ? `postMessage (in this page) ${how}` : `${info.transport.url} ${how}`;
}
