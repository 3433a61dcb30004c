// conformance-view.js: where the provider breaks SLOP, for its author: the core's findings grouped
// by rule (severity, count, the rule in one line, the spec section), each with its path (a click
// selects the node), what exactly, and the first frame that showed it (a click opens it in the
// log); the drift check and its last outcome; exports. The rules and findings are the core's
// (ui/conformance); the grouping and the Markdown are js-glue/conformance-report.js.

import { h, setChildren } from '../../shared/dom.js';
import { groupFindings, checkedLine } from '../../../js-glue/conformance-report.js';

const DRIFT_TEXT = {
  same: 'The mirror equals the provider’s state.',
  differs: 'The mirror and the provider’s state differ: see the drift findings.',
  inconclusive: 'Inconclusive: patches kept arriving while checking.',
};

export class ConformanceView {
  /**
   * @param {HTMLElement} root
   * @param {{refresh: () => void, checkDrift: () => void, setPeriodic: (on: boolean) => void,
   *          exportJson: () => void, exportMarkdown: () => void, revealNode: (path: string) => boolean,
   *          revealFrame: (text: string) => boolean}} hooks
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.periodic = false;
    this.drift = null;      // the last drift outcome: {event} or {error}
    this.checking = false;
  }

  /** @param {object|null} report the core's report @param {string} [error] */
  show(report, error) {
    this.report = report;
    const { hooks } = this;
    const head = h('div', { class: 'agent-head conf-head' },
      h('h3', { text: 'Conformance' }),
      h('span', { class: 'muted small', 'data-role': 'conf-checked', text: report ? checkedLine(report) : '' }),
      h('button', { type: 'button', class: 'small', 'data-action': 'conf-refresh', title: 'Read the findings again', onclick: () => hooks.refresh() }, 'Refresh'),
      h('button', { type: 'button', class: 'small', 'data-action': 'conf-export-md', title: 'Save the report as Markdown, for a bug report', disabled: !report, onclick: () => hooks.exportMarkdown() }, 'Markdown'),
      h('button', { type: 'button', class: 'small', 'data-action': 'conf-export-json', title: 'Save the report as JSON', disabled: !report, onclick: () => hooks.exportJson() }, 'JSON'));
    const drift = h('div', { class: 'conf-drift' },
      h('button', { type: 'button', class: 'small', 'data-action': 'check-drift', disabled: this.checking || !report || report.live === false,
        title: 'Ask the provider for the subscribed subtree and compare it with the mirror at the same version',
        onclick: () => hooks.checkDrift() }, this.checking ? 'Checking…' : 'Check for drift now'),
      h('label', { class: 'small conf-periodic', title: 'Check again every 30 seconds while this panel is open' },
        h('input', { type: 'checkbox', 'data-action': 'drift-periodic', checked: this.periodic, onchange: (e) => { this.periodic = e.target.checked; hooks.setPeriodic(this.periodic); } }),
        ' every 30 s'),
      h('span', { class: 'small', 'data-role': 'drift-result', 'data-status': this.drift?.event?.status ?? (this.drift?.error ? 'error' : ''),
        text: this.#driftText() }));
    if (error) return setChildren(this.root, head, h('p', { class: 'error-text', text: error }));
    if (!report) return setChildren(this.root, head, h('p', { class: 'empty small', text: 'Loading…' }));
    const groups = groupFindings(report);
    const summary = groups.length === 0
      ? h('div', { class: 'conf-none', 'data-role': 'conf-none' },
        h('strong', { text: 'No findings.' }),
        h('span', { text: ` The provider followed every rule checked so far: ${checkedLine(report)}.` }))
      : h('p', { class: 'conf-summary', 'data-role': 'conf-summary' },
        h('span', { class: `chip sev-must${report.must ? '' : ' zero'}`, text: `${report.must} MUST` }),
        h('span', { class: `chip sev-should${report.should ? '' : ' zero'}`, text: `${report.should} SHOULD` }),
        h('span', { class: 'muted small', text: report.dropped ? ` ${report.dropped} more findings were not kept.` : '' }));
    // A provider that never went live is judged too: why it is not live comes first.
    const notLive = report.live === false
      ? h('p', { class: 'conf-not-live', 'data-role': 'conf-not-live' },
        h('strong', { text: 'Not live: ' }), h('span', { text: report.not_live ?? '' }))
      : null;
    setChildren(this.root, head, drift, notLive, summary,
      groups.map((g) => this.#group(g)),
      h('details', { class: 'conf-rules' },
        h('summary', { text: `Rules checked (${report.rules.length})` }),
        h('ul', {}, report.rules.map((r) => h('li', { 'data-rule': r.id },
          h('code', { text: r.id }), h('span', { class: `sev sev-${r.severity.toLowerCase()}`, text: ` ${r.severity} ` }),
          h('span', { text: r.text }), h('span', { class: 'muted small', text: ` (${r.spec}; judged ${r.checked === 'frames' ? 'on every frame' : 'over the mirror'})` }))))));
  }

  /** A drift check started (null), ended (its event) or failed ({error}). */
  setDrift(outcome) {
    this.checking = outcome === null;
    if (outcome !== null) this.drift = outcome;
    this.show(this.report);
  }

  #driftText() {
    if (this.checking) return 'Asking the provider…';
    const d = this.drift;
    if (!d) return 'Not checked yet.';
    if (d.error) return `Failed: ${d.error}`;
    const e = d.event;
    return `v${e.version ?? '?'}: ${DRIFT_TEXT[e.status] ?? e.status}${e.count ? ` (${e.count} difference${e.count === 1 ? '' : 's'})` : ''}${e.message ? ` ${e.message}` : ''}`;
  }

  #group(g) {
    const { hooks } = this;
    const sev = g.rule.severity.toLowerCase();
    return h('section', { class: `conf-group sev-${sev}`, 'data-rule': g.rule.id },
      h('div', { class: 'conf-rule' },
        h('span', { class: `chip sev-${sev}`, text: g.rule.severity }),
        h('code', { class: 'conf-id', text: g.rule.id }),
        h('span', { class: 'conf-count', text: `×${g.count}` }),
        h('span', { class: 'muted small conf-spec', text: g.rule.spec })),
      h('p', { class: 'conf-text', text: g.rule.text }),
      h('ul', { class: 'conf-findings' }, g.findings.slice(0, 50).map((f) => h('li', { class: 'conf-finding' },
        f.path ? h('button', { type: 'button', class: 'link mono', 'data-action': 'conf-node', title: 'Select this node in the tree',
          onclick: (e) => { if (!hooks.revealNode(f.path)) e.target.title = 'Not in the mirror any more'; } }, f.path) : null,
        f.version !== undefined ? h('span', { class: 'muted small', text: ` v${f.version}` }) : null,
        f.count > 1 ? h('span', { class: 'muted small', text: ` ×${f.count}` }) : null,
        h('div', { class: 'conf-detail', text: f.detail }),
        f.frame ? h('button', { type: 'button', class: 'link mono conf-frame', 'data-action': 'conf-frame', title: 'Open this frame in the log',
          onclick: (e) => { if (!hooks.revealFrame(f.frame)) e.target.title = 'This frame is not in the log any more (the log keeps the latest frames)'; } },
        f.frame.length > 140 ? `${f.frame.slice(0, 140)}…` : f.frame) : null))),
      g.findings.length > 50 ? h('p', { class: 'muted small', text: `${g.findings.length - 50} more paths: export the report to see them all.` }) : null);
  }
}
