// local-transport.js: a local SLOP provider's connection: a Unix domain socket, or a command
// run with stdio (SLOP spec, Transport & Discovery: transports, stdio convention). Node only.
//
// Both carry NDJSON: one SLOP message per line. This module frames and moves bytes, nothing else:
// each line's bytes go to onFrame as they came (the core reads them as UTF-8 JSON and refuses, in
// its words, what is not), so a bad line is one refused frame and the stream goes on. A line
// longer than maxFrameBytes is never buffered whole: it is dropped unread as it grows (onOversize,
// once per line) up to its newline. Reading is paced by the reader: each chunk's lines are handed
// over before the next chunk is read, and pause() stops reading (the kernel's buffer then fills
// and the provider's writes wait), so a provider that writes faster than its consumer reads costs
// no memory here and loses nothing.
//
// stdio: the command runs without a shell, as the argv given. The spec's channel is fd 3
// (provider → consumer) and fd 4 (consumer → provider), with stdout/stdin as the fallback when a
// provider has no fd 3/4. A consumer cannot tell beforehand which one a provider speaks (the
// public SDKs' stdio transports use stdout/stdin), so both are open, and the channel is fd 3 as
// soon as fd 3 carries anything (only SLOP goes there), or stdout once a line there begins with
// "{" (a banner or log line printed first is the app's own); frames wait for it (a consumer sends
// nothing before the provider's hello). The other output, and stderr, are the app's own: their
// last lines are kept to say why it exited. An app on fd 3/4 that prints a JSON object on stdout
// before its hello is read as a stdout provider (docs/decisions.md).

import net from 'node:net';
import { spawn } from 'node:child_process';
import { DEFAULT_LIMITS } from '../slop-core.js';
import { commandText } from '../provider-address.js';

/** What a close says (as ws-transport.js's CloseInfo, which the session reads). */
/**
 * @typedef {object} LocalCloseInfo
 * @property {'closed'} kind
 * @property {boolean} opened    the socket connected / the command started
 * @property {boolean} [noListener]  nothing to connect to (no socket file, nothing listening, no such program)
 * @property {number} code       0 (a socket has no close code; a process's exit code is in `exit`)
 * @property {{code: number|null, signal: string|null}} [exit]  stdio: how the command ended
 * @property {string} message    in words, with the command's last stderr line when it has one
 */

/**
 * @typedef {object} LocalTransportHandlers
 * @property {() => void} onOpen
 * @property {(frame: Uint8Array) => void} onFrame   one line's bytes, without its newline
 * @property {(info: LocalCloseInfo) => void} onClose   once, unless close() was called first
 * @property {(bytes: number) => void} [onOversize]  a line passed maxFrameBytes: dropped unread
 * @property {number} [maxFrameBytes]  default: the core's limit
 * @property {string} [cwd]   stdio: the command's working directory
 * @property {number} [killAfterMs]  stdio: after close(), SIGKILL if it has not exited (default 2000)
 */

/**
 * @typedef {object} LocalTransport
 * @property {boolean} isOpen
 * @property {(text: string) => boolean} send  one frame (a newline is added); false when not open
 * @property {() => void} close   closes without reporting
 * @property {() => void} pause   stops reading until resume()
 * @property {() => void} resume
 * @property {string} label  the address in words: the socket path, or the command
 */

const NL = 0x0a;
const TAIL_LINES = 5;
const TAIL_BYTES = 2000;

/** Splits a byte stream into lines; a line over the limit is dropped as it grows. */
export class LineFramer {
  /** @param {number} maxBytes @param {(line: Uint8Array) => void} onLine @param {(bytes: number) => void} onOversize */
  constructor(maxBytes, onLine, onOversize) {
    this.maxBytes = maxBytes;
    this.onLine = onLine;
    this.onOversize = onOversize;
    /** @type {Buffer[]} */
    this.parts = [];
    this.length = 0;
    this.dropping = 0; // bytes of the current line dropped so far (0: not dropping)
  }

  /** @param {Buffer} chunk */
  push(chunk) {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NL, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (this.dropping) {
        this.dropping += piece.length;
      } else if (this.length + piece.length > this.maxBytes) {
        this.dropping = this.length + piece.length;
        this.parts = [];
        this.length = 0;
        this.onOversize(this.dropping);
      } else if (piece.length) {
        this.parts.push(piece);
        this.length += piece.length;
      }
      if (nl === -1) break;
      if (this.dropping) this.dropping = 0;
      else this.#emit();
      start = nl + 1;
    }
  }

  #emit() {
    let line = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.length);
    this.parts = [];
    this.length = 0;
    if (line.length && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1); // CRLF
    // Blank lines separate nothing (the SDKs skip them too).
    for (let i = 0; i < line.length; i++) {
      const b = line[i];
      if (b !== 0x20 && b !== 0x09 && b !== 0x0d) {
        this.onLine(new Uint8Array(line.buffer, line.byteOffset, line.length));
        return;
      }
    }
  }
}

/** The last lines of a process's own output, for "why did it exit". */
class Tail {
  text = '';
  /** @param {Buffer} chunk */
  push(chunk) {
    this.text = (this.text + chunk.toString('utf8')).slice(-TAIL_BYTES);
  }
  /** The last non-blank line, trimmed, or ''. */
  last() {
    const lines = this.text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
    return lines.slice(-TAIL_LINES).pop() ?? '';
  }
}

/**
 * Whether stdout's chunk starts a SLOP line: its first line that begins at the chunk (after
 * spaces) begins with "{". Lines of the app's own text before it are skipped.
 * @param {Buffer} chunk @param {boolean} atLineStart the chunk begins a line
 */
function startsObject(chunk, atLineStart) {
  let i = 0;
  if (!atLineStart) {
    const nl = chunk.indexOf(NL);
    if (nl === -1) return false;
    i = nl + 1;
  }
  for (; i < chunk.length; i++) {
    const b = chunk[i];
    if (b === 0x7b) return true; // {
    if (b === NL) continue;
    if (b === 0x20 || b === 0x09 || b === 0x0d) continue;
    const nl = chunk.indexOf(NL, i);
    if (nl === -1) return false;
    i = nl;
  }
  return false;
}

/** Whether the next chunk starts a line. @param {Buffer} chunk @param {boolean} before */
const lastLineStart = (chunk, before) => (chunk.length ? chunk[chunk.length - 1] === NL : before);

/**
 * Opens a local provider's transport.
 * @param {{type: 'unix', path: string}|{type: 'stdio', command: string[]}} transport
 * @param {LocalTransportHandlers} h
 * @returns {LocalTransport}
 */
export function openLocalTransport(transport, h) {
  if (transport.type === 'unix') return openUnix(transport.path, h);
  if (transport.type === 'stdio') return openStdio(transport.command, h);
  throw new TypeError(`openLocalTransport: transport type "${/** @type {any} */ (transport).type}" is not a local one (unix or stdio)`);
}

/** @param {string} path @param {LocalTransportHandlers} h @returns {LocalTransport} */
function openUnix(path, h) {
  const maxBytes = h.maxFrameBytes ?? DEFAULT_LIMITS.maxFrameBytes;
  let opened = false, reported = false, errorCode = '';
  const socket = net.createConnection({ path });
  const framer = new LineFramer(maxBytes, (line) => h.onFrame(line), (n) => h.onOversize?.(n));
  const t = {
    label: `unix:${path}`,
    get isOpen() { return opened && !reported && !socket.destroyed && socket.writable; },
    /** @param {string} text */
    send(text) {
      if (!t.isOpen) return false;
      socket.write(`${text}\n`);
      return true;
    },
    close() {
      reported = true;
      socket.destroy();
    },
    pause() { socket.pause(); },
    resume() { socket.resume(); },
  };
  socket.on('connect', () => {
    opened = true;
    if (!reported) h.onOpen();
  });
  socket.on('data', (/** @type {Buffer} */ chunk) => { if (!reported) framer.push(chunk); });
  socket.on('error', (e) => { errorCode = /** @type {any} */ (e).code ?? ''; });
  socket.on('close', () => {
    if (reported) return;
    reported = true;
    /** @type {LocalCloseInfo} */
    const info = { kind: 'closed', opened, code: 0, message: '' };
    if (opened) info.message = `the provider closed the socket ${path}`;
    else if (errorCode === 'ENOENT') Object.assign(info, { noListener: true, message: `no socket at ${path}: is the provider running?` });
    else if (errorCode === 'ECONNREFUSED') Object.assign(info, { noListener: true, message: `nothing listens on ${path} (a socket left behind by a provider that is not running?)` });
    else if (errorCode === 'EACCES' || errorCode === 'EPERM') info.message = `not allowed to connect to ${path} (its mode or its directory's does not let you in)`;
    else if (errorCode === 'ENOTSOCK') info.message = `${path} is not a socket`;
    else info.message = `cannot connect to ${path}${errorCode ? ` (${errorCode})` : ''}`;
    h.onClose(info);
  });
  return t;
}

/** @param {string[]} command @param {LocalTransportHandlers} h @returns {LocalTransport} */
function openStdio(command, h) {
  if (!Array.isArray(command) || !command.length || command.some((a) => typeof a !== 'string') || !command[0]) {
    throw new TypeError('openLocalTransport: a stdio command is a non-empty array of strings');
  }
  const maxBytes = h.maxFrameBytes ?? DEFAULT_LIMITS.maxFrameBytes;
  const label = `the command ${commandText(command)}`;
  let opened = false, reported = false, spawnError = '';
  /** @type {'fd'|'std'|null} which channel the provider speaks on: fd 3/4, or stdout/stdin */
  let channel = null;
  /** @type {string[]} frames waiting for the channel */
  const waiting = [];
  /** stdout before the channel is known: whether the line in progress is at its start, or in the app's text */
  let pendingStd = true;
  const stderrTail = new Tail(), stdoutTail = new Tail();
  const child = spawn(command[0], command.slice(1), {
    cwd: h.cwd, shell: false, windowsHide: true,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
  });
  const [stdin, stdout, stderr, fd3, fd4] = /** @type {any[]} */ (child.stdio);
  const writable = () => (channel === 'fd' ? fd4 : stdin);
  const framers = {
    fd: new LineFramer(maxBytes, (line) => h.onFrame(line), (n) => h.onOversize?.(n)),
    std: new LineFramer(maxBytes, (line) => h.onFrame(line), (n) => h.onOversize?.(n)),
  };
  /** @param {'fd'|'std'} which @param {Buffer} chunk */
  const onData = (which, chunk) => {
    if (reported) return;
    if (!channel && (which === 'fd' || startsObject(chunk, pendingStd))) {
      channel = which;
      for (const text of waiting.splice(0)) writable().write(`${text}\n`);
    }
    if (!channel) {
      // stdout before any SLOP: the app's own words (a banner, a log line), unless it is a JSON object
      pendingStd = lastLineStart(chunk, pendingStd);
      stdoutTail.push(chunk);
      return;
    }
    if (which === channel) framers[which].push(chunk);
    else stdoutTail.push(chunk); // the app's own output
  };
  fd3?.on('data', (/** @type {Buffer} */ c) => onData('fd', c));
  stdout.on('data', (/** @type {Buffer} */ c) => onData('std', c));
  stderr.on('data', (/** @type {Buffer} */ c) => stderrTail.push(c));
  // A provider that closes its input, or exits, makes writes fail: that is its close, said below.
  for (const s of [stdin, fd3, fd4, stdout, stderr]) s?.on('error', () => {});

  const t = {
    label,
    get isOpen() { return opened && !reported; },
    /** @param {string} text */
    send(text) {
      if (!t.isOpen) return false;
      if (!channel) waiting.push(text);
      else writable().write(`${text}\n`);
      return true;
    },
    close() {
      if (reported) return;
      reported = true;
      try { stdin.end(); fd4?.end(); } catch { /* already closed */ }
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); }, h.killAfterMs ?? 2000);
        timer.unref?.();
      }
    },
    pause() { (channel === 'fd' ? fd3 : stdout)?.pause(); },
    resume() { (channel === 'fd' ? fd3 : stdout)?.resume(); },
  };
  child.on('spawn', () => {
    opened = true;
    if (!reported) h.onOpen();
  });
  child.on('error', (e) => { spawnError = /** @type {any} */ (e).code ?? e.message; });
  child.on('close', (code, signal) => {
    if (reported) return;
    reported = true;
    /** @type {LocalCloseInfo} */
    const info = { kind: 'closed', opened, code: 0, exit: { code, signal }, message: '' };
    const said = stderrTail.last() || (channel === 'fd' ? stdoutTail.last() : '');
    if (!opened) {
      if (spawnError === 'ENOENT') Object.assign(info, { noListener: true, message: `cannot run ${label}: no program "${command[0]}" (not found)` });
      else if (spawnError === 'EACCES') info.message = `cannot run ${label}: "${command[0]}" is not executable`;
      else info.message = `cannot run ${label}${spawnError ? ` (${spawnError})` : ''}`;
    } else {
      info.message = `${label} exited${signal ? ` on ${signal}` : ` with code ${code}`}${said ? `: ${said}` : ''}`;
    }
    h.onClose(info);
  });
  return t;
}
