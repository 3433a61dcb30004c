// bridge-envelope.js: the desktop bridge's `slop-relay` envelope, written and read so that
// the SLOP message inside keeps its bytes. A provider's numbers must arrive as written (1.50, -0,
// a 64-bit id), and JSON.parse then JSON.stringify would not keep them: the message's text is
// spliced into the envelope, and sliced back out of one written the same way. Shared by the
// bridge server and the Node client that dials it (both Node-only).

/**
 * `{"type":"slop-relay","providerKey":…,"message":<messageText>}`: messageText as it is.
 * @param {string} providerKey @param {string} messageText one JSON value
 */
export function relayEnvelope(providerKey, messageText) {
  return `${envelopeHead(providerKey)}${messageText}}`;
}

/** @param {string} providerKey */
function envelopeHead(providerKey) {
  return `{"type":"slop-relay","providerKey":${JSON.stringify(providerKey)},"message":`;
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
  return JSON.stringify({ type: 'bridge-error', error: { code, message } });
}
