#!/usr/bin/env node
// slop-native-host: the native messaging host the extension talks to for local apps (Unix
// sockets, stdio commands, descriptors in ~/.slop/providers and /tmp/slop/providers). The browser
// starts it (`npx slop-inspector install-host` registers it) and speaks native messaging on its
// stdin and stdout; see js-glue/node/native-host.js. Only native messages go to stdout: every log
// line goes to stderr. SLOP_PROVIDER_DIRS (":"-separated) replaces the directories it scans.

import { loadSlopCoreNode } from '../js-glue/node/load-core.js';
import { runNativeHost, providerDirsFromEnv } from '../js-glue/node/native-host.js';

// console.log would write to stdout and break the framing: send it to stderr.
console.log = console.error;
const log = (line) => process.stderr.write(`slop-native-host: ${line}\n`);

try {
  const core = await loadSlopCoreNode();
  await runNativeHost({
    input: process.stdin,
    output: process.stdout,
    core,
    dirs: providerDirsFromEnv(process.env),
    log,
  });
  process.exit(0);
} catch (e) {
  log(`failed: ${e?.stack ?? e}`);
  process.exit(1);
}
