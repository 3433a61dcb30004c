// bridge-envelope.js: the desktop bridge's messages, named once for the three that speak them
// (the extension's worker, `slop-inspector bridge` and the Node client that dials it): their
// types, the bridge's error codes, and the `slop-relay` envelope, written and read so that the
// SLOP message inside keeps its bytes. A provider's numbers must arrive as written (1.50, -0, a
// 64-bit id), and JSON.parse then JSON.stringify would not keep them: the message's text is
// spliced into the envelope, and sliced back out of one written the same way.
//
// The types are the SLOP project's bridge protocol (docs/desktop-bridge.md); the error codes and
// the names beyond its envelope are ours: the bridge server writes them, the extension reads them
// if present. Nothing here touches Node or the browser.

/** The bridge protocol's message types. */
export const BridgeType = Object.freeze({
  PROVIDER_AVAILABLE: 'provider-available',
  PROVIDER_UNAVAILABLE: 'provider-unavailable',
  RELAY_OPEN: 'relay-open',
  RELAY_CLOSE: 'relay-close',
  RELAY: 'slop-relay',
  /** `slop-inspector bridge`'s complaint about a message (bridgeError). */
  ERROR: 'bridge-error',
});

/** The codes of a bridge-error. */
export const BridgeErrorCode = Object.freeze({
  BAD_JSON: 'bad_json',
  BAD_MESSAGE: 'bad_message',
  /** Announcements come only from a browser that paired: nothing was shared. */
  NOT_PAIRED: 'not_paired',
  TOO_LARGE: 'too_large',
  NOT_RELAYED: 'not_relayed',
});

/**
 * `agent`: on a slop-relay that `slop-inspector bridge` passes from a desktop consumer to the
 * browser, who asks: `{id, name?}`, id the consumer's connection number on the bridge, name what
 * the consumer called itself, if it did (untrusted text: a label, never a proof).
 * A consumer names itself with `client: {name}` (or MCP's `clientInfo: {name}`) on `relay-open`
 * or on the SLOP `connect` it relays.
 */
export const EnvelopeField = Object.freeze({
  AGENT: 'agent',
  AGENT_ID: 'id',
  AGENT_NAME: 'name',
  /** Where a consumer's message may carry its name (each an object with a string `name`). */
  CLIENT: Object.freeze(['client', 'clientInfo']),
});
/** An agent's name is cut to this many characters (it is shown in a popup). */
export const AGENT_NAME_MAX = 64;

/**
 * `{"type":"slop-relay","providerKey":…,"message":<messageText>}`: messageText as it is. With an
 * agent (agentOf), `"agent":{…}` goes before `"message"`, which stays last.
 * @param {string} providerKey @param {string} messageText one JSON value @param {object|null} [agent]
 */
export function relayEnvelope(providerKey, messageText, agent = null) {
  if (!agent) return `${envelopeHead(providerKey)}${messageText}}`;
  return `{"type":"${BridgeType.RELAY}","providerKey":${JSON.stringify(providerKey)},${JSON.stringify(EnvelopeField.AGENT)}:${JSON.stringify(agent)},"message":${messageText}}`;
}

/**
 * The `agent` of a consumer's relayed message: its id on the bridge, and its name when it gave one.
 * @param {number} id @param {string|null} name @returns {Record<string, string|number>}
 */
export function agentOf(id, name) {
  /** @type {Record<string, string|number>} */
  const agent = { [EnvelopeField.AGENT_ID]: id };
  if (name) agent[EnvelopeField.AGENT_NAME] = name;
  return agent;
}

/**
 * The name a consumer's message gives it (`client.name` or `clientInfo.name`), made printable and
 * cut short; null when it gives none.
 * @param {unknown} msg @returns {string|null}
 */
export function consumerName(msg) {
  if (msg === null || typeof msg !== 'object') return null;
  for (const field of EnvelopeField.CLIENT) {
    const info = /** @type {any} */ (msg)[field];
    const name = info !== null && typeof info === 'object' && typeof info.name === 'string'
      ? info.name.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ').trim().slice(0, AGENT_NAME_MAX) : '';
    if (name) return name;
  }
  return null;
}

/** @param {string} providerKey */
function envelopeHead(providerKey) {
  return `{"type":"${BridgeType.RELAY}","providerKey":${JSON.stringify(providerKey)},"message":`;
}

/**
 * The text of a slop-relay's message as the sender wrote it. The extension, this bridge and its
 * Node client write envelopes exactly as relayEnvelope does: then the message is the text between
 * that head and the closing brace. Any other writing (another bridge's, key order or spacing of
 * its own) falls back to the parsed message, re-printed.
 * @param {string} text the whole envelope @param {{providerKey: string, message: unknown}} envelope text, parsed
 * @returns {string}
 */
export function relayedMessageText(text, envelope) {
  const head = envelopeHead(envelope.providerKey);
  // Three keys only: with a fourth the tail would not be one value. (A repeated key would leave
  // two values there, which whoever reads the text next refuses as not JSON.)
  if (text.startsWith(head) && Object.keys(envelope).length === 3) {
    const tail = text.trimEnd();
    if (tail.endsWith('}')) return tail.slice(head.length, -1);
  }
  return JSON.stringify(envelope.message);
}

/**
 * The bridge's own complaint to a client (not a SLOP message): `{"type":"bridge-error","error":{code, message}}`.
 * Clients of the SLOP project's bridge ignore types they do not know.
 * @param {string} code @param {string} message
 */
export function bridgeError(code, message) {
  return JSON.stringify({ type: BridgeType.ERROR, error: { code, message } });
}
