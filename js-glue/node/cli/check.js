// `slop-inspector check`: where the provider breaks SLOP, live or not: the core's conformance
// report after watching its patches, with --drift (after --invoke, when both) and --invoke.
// Exit 3 when a MUST rule not allowed is broken, 1 when it never went live otherwise, else 0.

import { stringifyExact } from '../../exact-json.js';
import { CoreEventName } from '../../core-contract.js';
import { reportLines, reportMarkdown } from '../../conformance-report.js';
import { checkConformance } from '../client.js';
import { UsageError, CliExit, int, jsonArg, out, say } from './common.js';
import { CONNECT_OPTIONS, resolveTarget, sayMismatch, targetText } from './target.js';

/** @type {import('./common.js').CliCommand} */
export default {
  name: 'check',
  usage: `  slop-inspector check  <ws-url> [--watch MS] [--drift] [--invoke PATH ACTION [--params JSON]]
                        [--allow RULE,...] [--json|--markdown]
                                                                    where the provider breaks SLOP, after
                                                                    watching its patches for MS (default 2000),
                                                                    with --drift comparing the mirror with its
                                                                    state, with --invoke judging the answer to
                                                                    one invoke; a provider that never goes live
                                                                    is judged too; exit 3 on a MUST finding`,
  options: {
    ...CONNECT_OPTIONS, watch: { type: 'string' }, drift: { type: 'boolean' }, invoke: { type: 'string' }, params: { type: 'string' },
    allow: { type: 'string' }, json: { type: 'boolean' }, markdown: { type: 'boolean' },
  },
  async run(ctx) {
    const { opt } = ctx;
    if (!ctx.stdioCommand && !ctx.args[0]) throw new UsageError('no provider URL');
    const rest = ctx.stdioCommand ? ctx.args : ctx.args.slice(1);
    let invoke = null;
    if (opt.invoke !== undefined) {
      if (!rest[0]) throw new UsageError('--invoke needs PATH ACTION');
      invoke = { path: opt.invoke, action: rest[0], params: opt.params === undefined ? undefined : jsonArg(opt.params) };
    } else if (opt.params !== undefined) throw new UsageError('--params goes with check --invoke');
    const ms = int('watch', opt.watch, 2000);
    const allow = String(opt.allow ?? '').split(',').filter(Boolean);
    const target = await resolveTarget('check', ctx, { bridge: false });
    /** @type {any} the report, the provider and the drift and invoke events */
    let r;
    try {
      // surface and numbers are the session's, beyond the declared options: the CLI's words, digits as sent.
      const options = /** @type {any} */ ({ token: target.token, origin: opt.origin, timeout: target.timeout, watch: ms, drift: !!opt.drift, invoke, surface: 'cli', numbers: 'verbatim' });
      r = await checkConformance(/** @type {any} */ (target.url), options);
    } catch (e) {
      throw new CliExit(1, /** @type {any} */ (e).message);
    }
    sayMismatch(target, r.provider);
    if (r.drift && r.drift.event === CoreEventName.DRIFT && r.drift.status === 'inconclusive') {
      say(`drift check inconclusive: ${r.drift.message}`);
    } else if (r.drift && r.drift.event !== CoreEventName.DRIFT) {
      say(`drift check failed: ${r.drift.event}${r.drift.message ? `: ${r.drift.message}` : ''}`);
    }
    const report = r.report;
    const findings = report.findings.filter((/** @type {any} */ f) => !allow.includes(f.rule));
    const shown = { ...report, findings, ...(r.invoke ? { invoke: r.invoke } : {}) };
    if (opt.json) out(stringifyExact(shown, 2));
    else if (opt.markdown) out(reportMarkdown(shown, { provider: r.provider, url: targetText(target) }));
    else out(reportLines(shown).join('\n'));
    if (!report.live) say(`the provider never went live: ${report.not_live}`);
    if (findings.some((/** @type {any} */ f) => f.severity === 'MUST')) return 3;
    return report.live ? 0 : 1;
  },
};
