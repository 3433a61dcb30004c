// `slop-inspector tree`: the mirrored tree, as the core's canonical text or as JSON, whole or the
// node at --path, --depth levels deep.

import { stringifyExact } from '../../exact-json.js';
import { int, out } from './common.js';
import { CONNECT_OPTIONS, resolveTarget, withClient } from './target.js';

/** @type {import('./common.js').CliCommand} */
export default {
  name: 'tree',
  usage: '  slop-inspector tree   <ws-url> [--path P] [--depth D] [--json]   the mirrored tree (canonical text)',
  options: { ...CONNECT_OPTIONS, path: { type: 'string' }, depth: { type: 'string' }, json: { type: 'boolean' } },
  async run(ctx) {
    const { opt } = ctx;
    const path = opt.path ?? '/';
    const depth = int('depth', opt.depth, -1);
    const target = await resolveTarget('tree', ctx);
    await withClient(target, opt, async (client) => {
      // One format whatever the path and depth: the core's canonical text, or the JSON.
      const found = opt.json ? await client.tree(path, depth) : await client.text({ path, depth });
      if (!found) throw new Error(`no node at ${path}`);
      out(typeof found === 'string' ? found : stringifyExact(found, 2));
    });
  },
};
