// agent-view.js: what an AI agent would be given for this provider: the core's canonical tree
// text and its tool list (names, descriptions, dangerous flags).

import { h, setChildren } from '../../shared/dom.js';

export class AgentView {
  constructor(root) {
    this.root = root;
  }

  show(data, error) {
    if (error) return setChildren(this.root, h('p', { class: 'error-text', text: error }));
    if (!data) return setChildren(this.root, h('p', { class: 'empty', text: 'Loading…' }));
    const tools = data.tools?.tools ?? [];
    setChildren(this.root,
      h('h3', { text: 'Tree text' }),
      h('pre', { class: 'tree-text', text: data.treeText ?? '(no state yet)' }),
      h('h3', { text: `Tools (${tools.length})` }),
      h('table', { class: 'kv tools' }, tools.map((t) => h('tr', {},
        h('th', { class: 'mono', text: t.name }),
        h('td', {}, t.description ?? '', t.dangerous ? h('span', { class: 'chip danger-chip', text: 'dangerous' }) : null)))));
  }
}
