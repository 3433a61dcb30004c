// commands.js: the `slop-inspector` commands, in the order the usage lists them. A command is one
// module (cli/<name>.js, a CliCommand: its name, its usage lines, the options it takes, run());
// adding one is that module and its line here (docs/architecture.md, "Adding a CLI command").

import tree from './tree.js';
import watch from './watch.js';
import invoke from './invoke.js';
import tools from './tools.js';
import profile from './profile.js';
import check from './check.js';
import bridge from './bridge.js';
import list from './list.js';
import installHost from './install-host.js';

/** @type {readonly import('./common.js').CliCommand[]} */
export const COMMANDS = Object.freeze([tree, watch, invoke, tools, profile, check, bridge, list, installHost]);
