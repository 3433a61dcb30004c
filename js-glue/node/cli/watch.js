// `slop-inspector watch`: the tree, then one line per event until Ctrl-C. The connection follows
// the provider across restarts (the session's reconnect policy): a lost connection is said once,
// and a restart (the core's snapshot with restarted: true) as "provider restarted: version 3 after
// 380" followed by the new tree. --json: each core event as a line, and {"event": "restarted",
// version, previous_version, provider, tree} after a restart's snapshot.

import { stringifyExact } from '../../exact-json.js';
import { CoreEventName, RequestKindName } from '../../core-contract.js';
import { eventText, restartOf, restartText } from '../../event-text.js';
import { out, say, untilStopped } from './common.js';
import { CONNECT_OPTIONS, resolveTarget, withClient } from './target.js';

/** @type {import('./common.js').CliCommand} */
export default {
  name: 'watch',
  usage: '  slop-inspector watch  <ws-url> [--json]                           the tree, then each patch as it comes',
  options: { ...CONNECT_OPTIONS, json: { type: 'boolean' } },
  async run(ctx) {
    const target = await resolveTarget('watch', ctx);
    await withClient(target, ctx.opt, (client) => watch(client, !!ctx.opt.json));
  },
};

/** @param {import('../client.js').SlopClient} c @param {boolean} json */
async function watch(c, json) {
  if (json) out(stringifyExact({ event: 'tree', tree: await c.tree() }));
  else out(await c.text());
  let lost = false;
  // Events come one at a time, but reading the new tree is asynchronous: lines keep their order.
  let chain = Promise.resolve();
  const then = (/** @type {() => Promise<void>} */ fn) => { chain = chain.then(fn).catch((e) => say(e.message)); };
  c.onEvent((slopEvent) => then(async () => {
    const ev = /** @type {import('../../core-contract.js').CoreEvent} */ (/** @type {unknown} */ (slopEvent));
    const r = restartOf(ev);
    if (json) {
      out(stringifyExact(ev));
      if (r) {
        const info = await c.info();
        out(stringifyExact({ event: 'restarted', version: r.version, previous_version: r.previousVersion, provider: info.provider ?? null, tree: await c.tree() }));
      }
      return;
    }
    if (ev.event === CoreEventName.PATCH) {
      const p = /** @type {import('../../core-contract.js').PatchEvent} */ (/** @type {unknown} */ (ev));
      const parts = /** @type {[string, string[]][]} */ ([['changed', p.changed], ['added', p.added], ['removed', p.removed]])
        .filter(([, list]) => list?.length).map(([k, list]) => `${k} ${list.join(' ')}`);
      out(`v${ev.version} ${ev.ops} op${ev.ops === 1 ? '' : 's'}: ${parts.join('; ') || 'no node changed'}${ev.truncated ? ' (truncated)' : ''}`);
    } else if (ev.event === CoreEventName.CLOSED && ev.request === RequestKindName.SUBSCRIBE) {
      // The subscription ends with the connection: said once per loss, not once per dial.
      if (!lost) out('connection lost: reconnecting (the tree above is the last one seen)');
      lost = true;
    } else if (ev.event === CoreEventName.SNAPSHOT && (r || lost)) {
      out(r ? `${restartText(r)}; the new tree:` : `back: version ${ev.version}, the tree:`);
      out(await c.text() ?? '');
      lost = false;
    } else if (ev.event === CoreEventName.HELLO && lost) {
      out(`hello: ${eventText(ev)}`);
    } else {
      const words = eventText(ev);
      out(`${ev.event}${words ? `: ${words}` : ''}`);
    }
  }));
  await untilStopped();
}
