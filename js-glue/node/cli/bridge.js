// `slop-inspector bridge`: a desktop bridge that pairs with SLOP Inspector. Prints where it listens
// and the pairing code once, then one line per event (never the code) until Ctrl-C. Exits 1 when
// the code is not one or the port is taken.

import { startBridgeServer, BRIDGE_HOST, BRIDGE_PORT } from '../bridge-server.js';
import { resolvePairingCode, saveNewCode, codeFile, displayCode, CODE_ENV } from '../bridge-code.js';
import { UsageError, CliExit, int, out, untilStopped } from './common.js';

/** @type {import('./common.js').CliCommand} */
export default {
  name: 'bridge',
  usage: `  slop-inspector bridge [--port P] [--host H] [--new-code] [--print-code]
                                                                    a desktop bridge that pairs with SLOP
                                                                    Inspector (default 127.0.0.1:9339): share
                                                                    your tabs' SLOP apps with desktop agents
                                                                    and CLIs; --new-code replaces the saved
                                                                    pairing code, --print-code prints it and exits`,
  options: { port: { type: 'string' }, host: { type: 'string' }, 'new-code': { type: 'boolean' }, 'print-code': { type: 'boolean' } },
  async run({ opt, args, stdioCommand }) {
    if (args.length || stdioCommand) throw new UsageError('bridge takes no address (--host and --port say where it listens)');
    const port = int('port', opt.port, BRIDGE_PORT);
    if (port < 0 || port > 65535) throw new UsageError('--port must be 0 to 65535');
    const host = opt.host ?? BRIDGE_HOST;
    if (opt['print-code']) {
      let pc;
      try {
        pc = opt['new-code'] ? { code: await saveNewCode(codeFile()) } : await resolvePairingCode();
      } catch (e) {
        throw new CliExit(1, /** @type {any} */ (e).message);
      }
      out(displayCode(pc.code));
      return 0;
    }
    const stamp = () => new Date().toTimeString().slice(0, 8);
    let srv;
    try {
      // The server takes the port before it looks for a code: a busy port makes and saves none.
      srv = await startBridgeServer({ host, port, newCode: Boolean(opt['new-code']), log: (line) => out(`${stamp()} ${line}`) });
    } catch (e) {
      throw new CliExit(1, /** @type {any} */ (e).message);
    }
    const pc = srv.pairingCode;
    const where = {
      file: `kept in ${pc.file}`,
      new: `new, saved in ${pc.file}`,
      env: `from $${CODE_ENV}`,
      option: 'given',
    }[/** @type {'file'|'new'|'env'|'option'} */ (pc.from)];
    const loopback = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(host);
    out([
      `SLOP desktop bridge listening at ${srv.url}`,
      `Pairing code: ${displayCode(pc.code)}   (${where})`,
      'Paste it in SLOP Inspector: Options → Desktop bridge → Pairing code',
      '(The SLOP project\'s own browser extension pairs with it too: paste the code as its bridge token.)',
      'Desktop consumers (the Claude Code and Codex plugins, SLOP command-line tools) connect here as to any SLOP bridge.',
      ...(loopback ? [] : [`Warning: listening on ${host}, not loopback: other machines can reach this bridge and try pairing codes.`]),
      'Ctrl-C stops it.',
      '',
    ].join('\n'));
    await untilStopped();
    await srv.close();
    out(`${stamp()} bridge closed`);
    return 0;
  },
};
