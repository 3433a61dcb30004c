// `slop-inspector list`: the local providers (descriptors in ~/.slop/providers/ and
// /tmp/slop/providers/), the directories refused and the files ignored, each with its fix and one
// line that fixes them all; with --watch, again on every change until Ctrl-C (--json: one JSON
// object per line).

import { loadSlopCoreNode } from '../load-core.js';
import { scanLocalProviders, watchLocalProviders } from '../local-discovery.js';
import { ignoredLines } from '../local-fixes.js';
import { localAddress } from '../../provider-address.js';
import { UsageError, out, untilStopped } from './common.js';

/** @type {import('./common.js').CliCommand} */
export default {
  name: 'list',
  usage: `  slop-inspector list   [--json] [--watch]                          local providers (~/.slop/providers/,
                                                                    /tmp/slop/providers/): id, name, transport,
                                                                    whether their pid runs; refused directories
                                                                    and ignored files, why, and the fix`,
  options: { json: { type: 'boolean' }, watch: { type: 'boolean' } },
  async run({ opt, args, stdioCommand }) {
    if (args.length || stdioCommand) throw new UsageError('list takes no address');
    const core = await loadSlopCoreNode();
    const show = (/** @type {import('../local-discovery.js').LocalScan} */ scan) => out(opt.json ? JSON.stringify(scan) : listText(scan));
    if (!opt.watch) {
      show(scanLocalProviders(core));
      return 0;
    }
    let first = true;
    const w = watchLocalProviders(core, (scan) => {
      if (!first && !opt.json) out(`--- ${new Date().toTimeString().slice(0, 8)}`);
      first = false;
      show(scan);
    }, { keepAlive: true });
    await untilStopped();
    w.close();
    return 0;
  },
};

/**
 * A scan as text: a table of providers, then each directory's state, then what was ignored.
 * @param {import('../local-discovery.js').LocalScan} scan
 */
export function listText(scan) {
  const lines = [];
  if (!scan.providers.length) lines.push('No local SLOP providers.');
  else {
    // By id, whatever order the directories list their files in (a refresh keeps the rows in place).
    const byId = [...scan.providers].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const rows = byId.map((p) => [
      p.id, p.name,
      p.transport.type === 'ws' ? p.transport.url : localAddress(p.transport),
      p.pid === null ? '-' : `${p.pid} ${p.stale ? 'stale (not running)' : 'running'}`,
    ]);
    const head = ['ID', 'NAME', 'TRANSPORT', 'PID'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const r of [head, ...rows]) lines.push(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
  }
  lines.push('');
  for (const d of scan.dirs) {
    if (d.state === 'absent') lines.push(`${d.dir}: absent`);
    else if (d.state === 'ok') lines.push(`${d.dir}: ${scan.providers.filter((p) => p.dir === d.dir).length} provider(s)`);
    else lines.push(`${d.dir}: refused, not read: ${d.why}${d.fix ? `\n  fix: ${d.fix}` : d.advice ? `\n  ${d.advice}` : ''}`);
  }
  for (const f of scan.ignored) lines.push(...ignoredLines(f, 'slop-inspector tree'));
  if (scan.fixAll && scan.refused.length + scan.ignored.length > 1) lines.push('', `fix all: ${scan.fixAll}`);
  return lines.join('\n');
}
