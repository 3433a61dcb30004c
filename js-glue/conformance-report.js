// conformance-report.js: the core's conformance report (slop_consumer_conformance) as text for
// people: Markdown for the panel's export and bug reports, plain lines for the terminal and for
// test failures. Formatting only: the rules and the findings are the core's.

/** @typedef {import('./node/provider.js').ConformanceReport} ConformanceReport  the core's report (slop_core.h) */
/** @typedef {import('./node/provider.js').ConformanceRule} ConformanceRule */
/** @typedef {import('./node/provider.js').ConformanceFinding} ConformanceFinding */

/**
 * Findings grouped by rule, MUST first, then by count.
 * @param {ConformanceReport} report
 * @returns {{rule: ConformanceRule, findings: ConformanceFinding[], count: number}[]}
 */
export function groupFindings(report) {
  const rules = new Map(report.rules.map((r) => [r.id, r]));
  const groups = new Map();
  for (const f of report.findings) {
    if (!groups.has(f.rule)) groups.set(f.rule, { rule: rules.get(f.rule) ?? { id: f.rule, severity: f.severity, spec: '', text: '' }, findings: [], count: 0 });
    const g = groups.get(f.rule);
    g.findings.push(f);
    g.count += f.count;
  }
  return [...groups.values()].sort((a, b) =>
    (a.rule.severity === b.rule.severity ? 0 : a.rule.severity === 'MUST' ? -1 : 1) || b.count - a.count);
}

/** What was checked, in one line. @param {ConformanceReport} report */
export function checkedLine(report) {
  return `${report.rules.length} rules checked over ${report.frames} frames and ${report.nodes} mirrored nodes`;
}

/**
 * Plain lines (terminal, test failures): a summary, then each finding.
 * @param {ConformanceReport} report @param {{frameChars?: number}} [o] @returns {string[]}
 */
export function reportLines(report, { frameChars = 160 } = {}) {
  const must = report.findings.filter((f) => f.severity === 'MUST').length;
  const lines = [`${must} MUST and ${report.findings.length - must} SHOULD findings; ${checkedLine(report)}` +
    (report.dropped ? `; ${report.dropped} more not kept` : '')];
  if (report.live === false) lines.push(`not live: ${report.not_live}`);
  for (const g of groupFindings(report)) {
    lines.push(`${g.rule.severity} ${g.rule.id} (${g.count}×, spec: ${g.rule.spec}): ${g.rule.text}`);
    for (const f of g.findings) {
      const where = [f.path, f.version !== undefined ? `v${f.version}` : null, f.count > 1 ? `${f.count}×` : null].filter(Boolean).join(' ');
      lines.push(`  ${where ? `${where}: ` : ''}${f.detail}`);
      if (f.frame) lines.push(`    first frame: ${f.frame.length > frameChars ? `${f.frame.slice(0, frameChars)}…` : f.frame}`);
    }
  }
  return lines;
}

/** @param {unknown} s */
const mdCell = (s) => String(s ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * Markdown for a provider's author: what was checked, then one section per broken rule.
 * @param {ConformanceReport} report
 * @param {{provider?: {id?: string, name?: string}|null, url?: string|null, at?: string}} [about]
 */
export function reportMarkdown(report, { provider = null, url = null, at = new Date().toISOString() } = {}) {
  const out = [`# SLOP conformance: ${provider?.name ?? provider?.id ?? url ?? 'provider'}`, ''];
  if (provider?.id) out.push(`- provider id: \`${provider.id}\``);
  if (url) out.push(`- address: ${url}`);
  out.push(`- checked: ${checkedLine(report)}, ${at}`);
  if (report.live === false) out.push(`- not live: ${report.not_live}`);
  out.push(`- findings: **${report.must} MUST**, ${report.should} SHOULD${report.dropped ? ` (${report.dropped} more not kept)` : ''}`, '');
  const groups = groupFindings(report);
  if (groups.length === 0) out.push('No findings: the provider followed every rule checked.', '');
  for (const g of groups) {
    out.push(`## ${g.rule.severity}: \`${g.rule.id}\` (${g.count}×)`, '', `${g.rule.text} (spec: ${g.rule.spec})`, '');
    out.push('| path | version | count | what | first frame |', '|---|---|---|---|---|');
    for (const f of g.findings) {
      const frame = f.frame ? `\`${mdCell(f.frame.slice(0, 200))}\`` : '';
      out.push(`| ${mdCell(f.path ?? '')} | ${f.version ?? ''} | ${f.count} | ${mdCell(f.detail)} | ${frame} |`);
    }
    out.push('');
  }
  return `${out.join('\n')}\n`;
}
