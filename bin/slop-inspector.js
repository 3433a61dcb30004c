#!/usr/bin/env node
// slop-inspector: a terminal inspector on the Node client (js-glue/node/client.js). Each command
// is a module under js-glue/node/cli/ (commands.js lists them; main.js runs one); `slop-inspector
// --help` prints the usage.
//
// The token comes from $SLOP_TOKEN or --token-file FILE (a token on the command line would be
// visible to every user of the machine in the process list). Exit codes: 0 done, 1 the provider or
// the connection failed (for `check`: nothing answered, or it never went live without breaking a
// MUST rule), 2 bad usage, 3 `check` found a MUST rule broken (live or not).

import { main } from '../js-glue/node/cli/main.js';

process.exit(await main(process.argv.slice(2)));
