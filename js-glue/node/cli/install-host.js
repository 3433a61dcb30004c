// `slop-inspector install-host`: registers the native messaging host (native-host-install.js,
// which reads its own options), so the extension's panel shows local apps.

import { runInstallHost } from '../native-host-install.js';

/** @type {import('./common.js').CliCommand} */
export default {
  name: 'install-host',
  usage: `  slop-inspector install-host [--browser B,...] [--profile DIR] [--extension-id ID] [--uninstall]
                                                                    register the native messaging host, so the
                                                                    extension's panel shows local apps`,
  options: {},
  ownOptions: true,
  run: ({ argv }) => runInstallHost(argv),
};
