// restart-provider.mjs: one dev-server process for restart-bench.mjs: the Acme Mail provider on
// 127.0.0.1:PORT with TOKEN, its version counter starting at VERSION, a patch every 50 ms. Prints
// "listening" once it accepts connections; killed with SIGKILL, as a file watcher's restart does.
//   node tests/bench/restart-provider.mjs PORT TOKEN VERSION MESSAGES
import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { createMailEngine } from '../fixtures/demo-trees.mjs';

const [port, token, version, messages] = process.argv.slice(2);
await startWsProvider({
  host: '127.0.0.1', port: Number(port), token, allowMissingOrigin: true,
  engine: createMailEngine({ live: true, intervalMs: 50, messages: Number(messages), initialVersion: Number(version) }),
});
process.stdout.write('listening\n');
