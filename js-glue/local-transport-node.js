// local-transport-node.js: STAND-IN written on the native-host branch until main's module lands
// (same exports and signatures); drop this file in favour of main's when merging.
//
// A local provider's transport: a Unix domain socket, or a spawned command's stdout/stdin
// (never through a shell), carrying NDJSON: one SLOP message per line. Lines are handed on as
// text, never parsed; a line over maxFrameBytes is dropped and said (onOversize).

import net from 'node:net';
import { spawn } from 'node:child_process';

/**
 * @param {{type: 'unix', path: string}|{type: 'stdio', command: string[]}} transport
 * @param {{onOpen?: () => void, onFrame: (text: string) => void, onClose: (info: object) => void,
 *          onOversize?: (bytes: number) => void, maxFrameBytes?: number}} h
 * @returns {{readonly isOpen: boolean, send(text: string): boolean, close(): void}}
 */
export function openLocalTransport(transport, { onOpen = () => {}, onFrame, onClose, onOversize = () => {}, maxFrameBytes = 32 * 1024 * 1024 }) {
  let open = false;
  let ended = false;
  let opened = false;
  /** @type {Buffer[]} */
  let parts = [];
  let have = 0;
  let dropping = 0; // bytes of an oversize line dropped so far
  const end = (info) => {
    if (ended) return;
    ended = true;
    open = false;
    onClose({ kind: 'closed', opened, code: 0, ...info });
  };
  const data = (buf) => {
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0) break;
      const piece = buf.subarray(start, nl);
      start = nl + 1;
      if (dropping) { onOversize(dropping + piece.length); dropping = 0; parts = []; have = 0; continue; }
      if (have + piece.length > maxFrameBytes) { onOversize(have + piece.length); parts = []; have = 0; continue; }
      const line = (have ? Buffer.concat([...parts, piece]) : piece).toString('utf8').replace(/\r$/, '');
      parts = []; have = 0;
      if (line.trim()) onFrame(line);
    }
    const rest = buf.subarray(start);
    if (dropping) { dropping += rest.length; return; }
    if (have + rest.length > maxFrameBytes) { dropping = have + rest.length; parts = []; have = 0; return; }
    if (rest.length) { parts.push(Buffer.from(rest)); have += rest.length; }
  };

  if (transport.type === 'unix') {
    const sock = net.createConnection({ path: transport.path });
    sock.on('connect', () => { open = opened = true; onOpen(); });
    sock.on('data', data);
    sock.on('error', (e) => end({ noListener: !opened && (e.code === 'ENOENT' || e.code === 'ECONNREFUSED'), message: opened ? `The socket failed: ${e.code ?? e.message}` : `Nothing listens on ${transport.path} (${e.code ?? e.message})` }));
    sock.on('close', () => end({ message: opened ? 'The provider closed the socket.' : `Could not connect to ${transport.path}` }));
    return {
      get isOpen() { return open; },
      send(text) { if (!open) return false; sock.write(text + '\n'); return true; },
      close() { if (!ended) { sock.destroy(); end({ message: 'Closed.' }); } },
    };
  }
  if (transport.type === 'stdio') {
    const [cmd, ...args] = transport.command;
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'], shell: false });
    child.on('spawn', () => { open = opened = true; onOpen(); });
    child.stdout.on('data', data);
    child.stdin.on('error', () => {});
    child.on('error', (e) => end({ message: `Could not run ${cmd}: ${e.code ?? e.message}` }));
    child.on('exit', (code, signal) => end({ code: code ?? 0, message: signal ? `The command was ended by ${signal}.` : `The command exited with code ${code}.` }));
    return {
      get isOpen() { return open; },
      send(text) { if (!open) return false; child.stdin.write(text + '\n'); return true; },
      close() { if (!ended) { child.kill('SIGTERM'); end({ message: 'Closed.' }); } },
    };
  }
  queueMicrotask(() => end({ message: `transport ${JSON.stringify(String(/** @type {any} */ (transport).type))} is not a local stream` }));
  return { get isOpen() { return false; }, send() { return false; }, close() {} };
}
