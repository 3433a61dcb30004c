// native-host.js: the native messaging host's work (bin/slop-native-host.js runs it): local
// discovery and the local transports for the extension, which cannot open a Unix socket or run
// a command itself. It speaks native-host-protocol.js on its input and output (the browser's
// stdin and stdout of the host): lists the local providers (and again when their directories
// change) and opens, feeds and closes their transports on channels the extension numbers.
// Frames cross as text: the host never parses a SLOP message (the core in the extension does).
//
// Where it looks: $SLOP_PROVIDER_DIRS (directories separated by ":"), else ~/.slop/providers and
// /tmp/slop/providers. Nothing but native messages goes to the output; log lines go to `log`
// (the host's stderr, which the browser shows in its own log).

import { scanLocalProviders, watchLocalProviders, providerDirs } from './local-discovery.js';
import { openLocalTransport } from './local-transport.js';
import {
  ToHost, FromHost, NATIVE_LIMITS, nativeReader, frameNative, encodeForBrowser, utf8Length, sizeText,
} from '../native-host-protocol.js';

/** The directories scanned: $SLOP_PROVIDER_DIRS (":"-separated), else the spec's two. @param {NodeJS.ProcessEnv} env */
export function providerDirsFromEnv(env) {
  return providerDirs(env);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** @param {unknown} a @param {unknown} b */
function sameCommand(a, b) {
  return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Runs the host on a byte input and output until the input ends.
 * @param {object} o
 * @param {NodeJS.ReadableStream} o.input     the browser's messages (the host's stdin)
 * @param {{write(bytes: Uint8Array): boolean, once(event: 'drain', fn: () => void): any}} o.output
 *   to the browser (the host's stdout); while it is full, the transports stop reading
 * @param {any} o.core                        loadSlopCoreNode()
 * @param {string[]} [o.dirs]                 where descriptors are (default: the spec's two)
 * @param {(line: string) => void} [o.log]    the host's stderr
 * @param {number} [o.maxFrameBytes]
 * @returns {Promise<void>} when the input ended and everything is closed
 */
export function runNativeHost({ input, output, core, dirs, log = () => {}, maxFrameBytes = NATIVE_LIMITS.FRAME_MAX }) {
  /** @type {Map<number, {transport: ReturnType<typeof openLocalTransport>|null}>} */
  const channels = new Map();
  let chunkId = 0;
  /** @type {ReturnType<typeof watchLocalProviders>|null} */
  let watcher = null;
  let lastList = '';
  let full = false;

  const send = (/** @type {Record<string, any>} */ msg) => { // a message to the browser (native-host-protocol.js)
    const texts = encodeForBrowser(msg, { id: ++chunkId });
    if (texts.length > 1) {
      const bytes = texts.reduce((n, t) => n + utf8Length(t), 0);
      if (bytes > NATIVE_LIMITS.JOINED_MAX) {
        // Over what the extension joins: a frame is said to be dropped; anything else is a bug.
        if (msg.type === FromHost.FRAME) send({ type: FromHost.OVERSIZE, channel: msg.channel, bytes: utf8Length(msg.text) });
        else log(`a ${msg.type} message of ${sizeText(bytes)} is over ${sizeText(NATIVE_LIMITS.JOINED_MAX)}: not sent`);
        return;
      }
    }
    let ok = true;
    for (const t of texts) ok = output.write(frameNative(t)) && ok;
    if (!ok && !full) {
      // The browser reads slower than the providers write: stop reading them until it caught up
      // (their writes then wait in the kernel; nothing is lost or buffered here).
      full = true;
      for (const slot of channels.values()) slot.transport?.pause?.();
      output.once('drain', () => {
        full = false;
        for (const slot of channels.values()) slot.transport?.resume?.();
      });
    }
  };
  const closed = (/** @type {number} */ channel, /** @type {object} */ info) => send({ type: FromHost.CLOSED, channel, info });

  const list = (/** @type {import('./local-discovery.js').LocalScan} */ scan) => {
    const msg = { type: FromHost.LOCAL_PROVIDERS, providers: scan.providers, refused: scan.refused, ignored: scan.ignored, dirs: scan.dirs ?? [], fixAll: scan.fixAll ?? null };
    const text = JSON.stringify(msg);
    if (text === lastList) return;
    lastList = text;
    send(msg);
  };

  /** @param {{channel: number, id: string, approvedCommand?: unknown}} m */
  async function open(m) {
    const channel = m.channel;
    channels.get(channel)?.transport?.close();
    /** @type {{transport: ReturnType<typeof openLocalTransport>|null}} */
    const slot = { transport: null };
    channels.set(channel, slot);
    const scan = await Promise.resolve().then(() => scanLocalProviders(core, { dirs }));
    if (channels.get(channel) !== slot) return; // closed or reopened meanwhile
    const p = scan.providers.find((x) => x.id === m.id);
    if (!p) {
      channels.delete(channel);
      closed(channel, { kind: 'closed', opened: false, noListener: true, code: 0, message: `No local app "${m.id}" is announced now (its descriptor is gone).` });
      return;
    }
    const t = p.transport;
    if (t.type === 'stdio' && !sameCommand(m.approvedCommand, t.command)) {
      channels.delete(channel);
      closed(channel, { kind: 'approval', opened: false, code: 0, command: t.command,
        message: 'This app runs a command on your computer: it runs only after you approve that exact command.' });
      return;
    }
    if (t.type !== 'unix' && t.type !== 'stdio') {
      channels.delete(channel);
      closed(channel, { kind: 'closed', opened: false, code: 0, message: `A ${t.type} provider is not opened through the native host.` });
      return;
    }
    log(`open ${channel}: ${p.id} over ${t.type}`);
    slot.transport = openLocalTransport(/** @type {any} */ (t), {
      maxFrameBytes,
      onOpen: () => { if (channels.get(channel) === slot) send({ type: FromHost.OPEN, channel }); },
      // A line's bytes as text; bytes that are not UTF-8 go as base64, for the core to refuse.
      onFrame: (bytes) => {
        if (channels.get(channel) !== slot) return;
        let text;
        try { text = typeof bytes === 'string' ? bytes : strictUtf8.decode(bytes); } catch { text = null; }
        send(text === null ? { type: FromHost.FRAME, channel, base64: Buffer.from(bytes).toString('base64') } : { type: FromHost.FRAME, channel, text });
      },
      onOversize: (bytes) => { if (channels.get(channel) === slot) send({ type: FromHost.OVERSIZE, channel, bytes }); },
      onClose: (info) => {
        if (channels.get(channel) !== slot) return;
        channels.delete(channel);
        closed(channel, info);
      },
    });
  }

  const onMessage = (/** @type {Record<string, any>} */ m) => { // the browser's message: JSON from outside
    switch (m.type) {
      case ToHost.LIST:
        if (!watcher) watcher = watchLocalProviders(core, list, { dirs });
        else lastList = '';
        Promise.resolve().then(() => scanLocalProviders(core, { dirs })).then(list, (e) => log(`scan failed: ${e?.message ?? e}`));
        break;
      case ToHost.OPEN:
        if (!Number.isInteger(m.channel) || typeof m.id !== 'string') { send({ type: FromHost.ERROR, message: 'open needs an integer channel and a string id' }); break; }
        open(/** @type {{channel: number, id: string}} */ (m)).catch((e) => { channels.delete(m.channel); closed(m.channel, { kind: 'closed', opened: false, code: 0, message: `The host failed: ${e?.message ?? e}` }); });
        break;
      case ToHost.SEND: {
        const slot = channels.get(m.channel);
        if (typeof m.text !== 'string') { send({ type: FromHost.ERROR, message: 'send needs the frame as text' }); break; }
        if (!slot?.transport?.send(m.text)) log(`send on channel ${m.channel}, which is not open: dropped`);
        break;
      }
      case ToHost.CLOSE: {
        const slot = channels.get(m.channel);
        channels.delete(m.channel);
        slot?.transport?.close();
        break;
      }
      default:
        send({ type: FromHost.ERROR, message: `unknown message type ${JSON.stringify(String(m.type)).slice(0, 60)}` });
    }
  };

  const reader = nativeReader({
    onMessage: (m) => { try { onMessage(m); } catch (/** @type {any} */ e) { log(`failed: ${e?.stack ?? e}`); } },
    onError: (words) => { log(words); send({ type: FromHost.ERROR, message: words }); },
  });
  return new Promise((resolve) => {
    input.on('data', (b) => reader.push(b instanceof Uint8Array ? b : Buffer.from(b)));
    const finish = () => {
      watcher?.close();
      for (const slot of channels.values()) slot.transport?.close();
      channels.clear();
      resolve();
    };
    input.on('end', finish);
    input.on('error', finish);
  });
}
