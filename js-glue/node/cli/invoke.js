// `slop-inspector invoke`: one affordance, its result as JSON; a dangerous one only with --yes.

import { stringifyExact } from '../../exact-json.js';
import { UsageError, jsonArg, out } from './common.js';
import { CONNECT_OPTIONS, resolveTarget, withClient } from './target.js';

/** @type {import('./common.js').CliCommand} */
export default {
  name: 'invoke',
  usage: `  slop-inspector invoke <ws-url> <path> <action> [params-json] [--yes]
                                                                    invoke an affordance (--yes for dangerous ones)`,
  options: { ...CONNECT_OPTIONS, yes: { type: 'boolean' } },
  async run(ctx) {
    if (!ctx.stdioCommand && !ctx.args[0]) throw new UsageError('no provider URL');
    const rest = ctx.stdioCommand ? ctx.args : ctx.args.slice(1);
    if (rest.length < 2) throw new UsageError('invoke needs <path> <action>');
    const params = rest[2] === undefined ? undefined : jsonArg(rest[2]);
    const target = await resolveTarget('invoke', ctx);
    await withClient(target, ctx.opt, async (client) => {
      out(stringifyExact(await client.invoke(rest[0], rest[1], params, { confirmDangerous: !!ctx.opt.yes }), 2));
    });
  },
};
