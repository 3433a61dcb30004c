// `slop-inspector tools`: the affordances as the tool list an LLM would be given (JSON).

import { stringifyExact } from '../../exact-json.js';
import { out } from './common.js';
import { CONNECT_OPTIONS, resolveTarget, withClient } from './target.js';

/** @type {import('./common.js').CliCommand} */
export default {
  name: 'tools',
  usage: '  slop-inspector tools  <ws-url>                                    the affordances as LLM tools (JSON)',
  options: { ...CONNECT_OPTIONS },
  async run(ctx) {
    const target = await resolveTarget('tools', ctx);
    await withClient(target, ctx.opt, async (client) => { out(stringifyExact(await client.tools(), 2)); });
  },
};
