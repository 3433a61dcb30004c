// agent-view.js: what an AI agent would be given for this state: the core's canonical tree text
// and its tool list (names, descriptions, parameters, dangerous flags), each copyable. Everything
// shown here comes from the core (ui/agent-view request); nothing is rebuilt in JS.

import { h, setChildren, keepFocus } from '../../shared/dom.js';
import { jsonView } from './json-view.js';
import { stringifyExact } from '../../../js-glue/exact-json.js';

const nf = new Intl.NumberFormat('en-US');

export class AgentView {
  /** @param {HTMLElement} root @param {{copy: (text: string, what: string) => void, refresh: () => void}} hooks */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
  }

  show(data, error) {
    keepFocus(this.root, () => this.#render(data, error));
  }

  #render(data, error) {
    if (error) return setChildren(this.root, h('p', { class: 'error-text', text: error }));
    if (!data) return setChildren(this.root, h('p', { class: 'empty small', text: 'Loading…' }));
    const tools = data.tools?.tools ?? [];
    const total = data.tools?.total ?? tools.length;
    const text = data.treeText ?? '';
    setChildren(this.root,
      h('div', { class: 'agent-head' },
        h('h3', { text: 'Tree text' }),
        h('span', { class: 'muted small', text: `${text.split('\n').filter(Boolean).length} lines · what the agent reads` }),
        h('button', { type: 'button', class: 'small', 'data-action': 'copy-tree-text', onclick: () => this.hooks.copy(text, 'tree text') }, 'Copy'),
        h('button', { type: 'button', class: 'small', 'data-action': 'agent-refresh', onclick: () => this.hooks.refresh() }, 'Refresh')),
      // A Tab stop with a name: it scrolls, and a keyboard user must be able to scroll it.
      h('pre', { class: 'tree-text', 'data-role': 'tree-text', tabindex: '0', 'aria-label': 'Tree text the agent reads', text: text || '(no state yet)' }),
      h('div', { class: 'agent-head' },
        h('h3', { text: total > tools.length ? `Tools (${nf.format(tools.length)} of ${nf.format(total)})` : `Tools (${nf.format(tools.length)})` }),
        h('span', { class: 'muted small', 'data-role': 'tools-note', text: total > tools.length
          ? 'the most salient, as the Playground offers them (meta.salience, then tree order); the others cannot be called'
          : 'names, descriptions and parameters as the agent gets them' }),
        h('button', { type: 'button', class: 'small', 'data-action': 'copy-tools', onclick: () => this.hooks.copy(stringifyExact(data.tools?.tools ?? [], 2), 'tools') }, 'Copy JSON')),
      tools.length === 0 ? h('p', { class: 'muted', text: 'No affordances, so no tools.' }) : null,
      h('div', { class: 'tools' }, tools.map((t) => h('div', { class: `tool${t.dangerous ? ' is-dangerous' : ''}`, 'data-tool': t.name },
        h('div', { class: 'tool-head' },
          h('code', { class: 'tool-name', text: t.name }),
          t.dangerous ? h('span', { class: 'chip danger-chip', text: 'dangerous' }) : null,
          data.tools?.resolve?.[t.name] ? h('span', { class: 'muted small mono', text: `→ ${data.tools.resolve[t.name].path} · ${data.tools.resolve[t.name].action}` }) : null),
        t.description ? h('div', { class: 'tool-desc', text: t.description }) : null,
        t.parameters && Object.keys(t.parameters.properties ?? {}).length
          ? h('details', { class: 'tool-params' }, h('summary', { text: `parameters (${Object.keys(t.parameters.properties).length})` }), jsonView(t.parameters, { openDepth: 3 }))
          : null))));
  }
}
