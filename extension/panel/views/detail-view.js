// detail-view.js: the selected node: path, type, properties, meta, content_ref, and its
// affordances with a params editor. Params are checked by the core (validateParams request) as
// you type and again when invoking; dangerous affordances ask for confirmation first.

import { h, setChildren } from '../../shared/dom.js';

const json = (v) => JSON.stringify(v, null, 2);

/** A starting point for the params editor: each property with its default or an empty value. */
function paramsSkeleton(schema) {
  if (!schema || schema.type !== 'object' || typeof schema.properties !== 'object') return {};
  const out = {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const keys = Object.keys(schema.properties).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  for (const k of keys) {
    const p = schema.properties[k] ?? {};
    if (p.default !== undefined) out[k] = p.default;
    else if (Array.isArray(p.enum) && p.enum.length) out[k] = p.enum[0];
    else out[k] = { string: '', number: 0, integer: 0, boolean: false, array: [], object: {} }[p.type] ?? null;
  }
  return out;
}

function valueCell(v) {
  if (v !== null && typeof v === 'object') return h('pre', { class: 'json', text: json(v) });
  return h('span', { class: `scalar t-${v === null ? 'null' : typeof v}`, text: typeof v === 'string' ? JSON.stringify(v) : String(v) });
}

function keyValueTable(obj) {
  return h('table', { class: 'kv' }, Object.entries(obj).map(([k, v]) => h('tr', {}, h('th', { text: k }), h('td', {}, valueCell(v)))));
}

export class DetailView {
  /**
   * @param {HTMLElement} root
   * @param {{invoke: (path, action, params) => Promise<any>, validate: (schema, params) => Promise<string|null>}} actions
   */
  constructor(root, actions) {
    this.root = root;
    this.actions = actions;
    this.drafts = new Map();   // "path action" → params text being edited
    this.results = new Map();  // "path action" → last outcome
    this.shownKey = null;
    this.affSig = null;
    this.main = h('div', { class: 'detail-main' });
    this.affs = h('div', { class: 'detail-affordances' });
    root.replaceChildren(this.main, this.affs);
  }

  /** @param {object|null} view  the node view; @param {boolean} affordancesAllowed  provider declared "affordances" */
  show(view, { providerKey, stale, affordancesAllowed }) {
    if (!view) {
      this.shownKey = null;
      this.affSig = null;
      setChildren(this.main, h('p', { class: 'empty', text: 'Select a node to see its properties and affordances.' }));
      this.affs.replaceChildren();
      return;
    }
    const key = `${providerKey} ${view.path}`;
    setChildren(this.main,
      h('div', { class: 'detail-head' },
        h('span', { class: 'nid big', text: view.id }), h('span', { class: 'ntype', text: view.type }),
        stale ? h('span', { class: 'pill', 'data-status': 'reconnecting', text: 'last known state' }) : null),
      h('div', { class: 'mono muted path', text: view.path, title: 'absolute path' }),
      view.properties && Object.keys(view.properties).length
        ? [h('h3', { text: 'Properties' }), keyValueTable(view.properties)] : h('p', { class: 'muted', text: 'No properties.' }),
      view.meta && Object.keys(view.meta).length ? [h('h3', { text: 'Meta' }), keyValueTable(view.meta)] : null,
      view.content_ref ? [h('h3', { text: 'Content reference' }), keyValueTable(view.content_ref)] : null,
      view.child_ids.length ? h('p', { class: 'muted', text: `${view.child_ids.length} children` }) : null);

    const sig = `${key}|${JSON.stringify(view.affordances ?? [])}|${affordancesAllowed}`;
    if (sig === this.affSig) return; // keep the editors (and focus) while the node updates
    this.affSig = sig;
    this.shownKey = key;
    const list = view.affordances ?? [];
    setChildren(this.affs, list.length ? h('h3', { text: 'Affordances' }) : null,
      list.map((a) => this.#affordance(view.path, a, affordancesAllowed)));
  }

  #affordance(path, aff, allowed) {
    const id = `${path} ${aff.action}`;
    const hasParams = aff.params && typeof aff.params === 'object';
    const status = h('div', { class: 'aff-status' });
    const result = h('div', { class: 'aff-result' });
    const confirmRow = h('div', { class: 'confirm', hidden: true });
    let editor = null;
    let timer = 0;

    const readParams = () => {
      if (!editor) return { ok: true, value: undefined };
      const text = editor.value.trim();
      if (!text) return { ok: true, value: undefined };
      try {
        return { ok: true, value: JSON.parse(text) };
      } catch (e) {
        return { ok: false, message: `Not JSON: ${e.message}` };
      }
    };
    const check = async () => {
      const r = readParams();
      if (!r.ok) return setChildren(status, h('span', { class: 'error-text', text: r.message }));
      const problem = await this.actions.validate(aff.params, r.value ?? {}).catch((e) => e.message);
      setChildren(status, problem ? h('span', { class: 'error-text', text: problem }) : h('span', { class: 'ok-text', text: '✓ params fit the schema' }));
    };
    const showOutcome = (o) => {
      this.results.set(id, o);
      if (o.error) return setChildren(result, h('span', { class: 'error-text', text: o.error }));
      const ev = o.event ?? {};
      const outcome = ev.event === 'result' ? ev.status : ev.event;
      setChildren(result,
        h('div', {}, h('span', { class: `pill outcome-${outcome}`, text: outcome ?? '?' }),
          ev.task_id ? h('span', { class: 'muted', text: ` task ${ev.task_id}` }) : null,
          h('span', { class: 'muted', text: ` · ${new Date(o.at).toLocaleTimeString()}` })),
        ev.error ? h('div', { class: 'error-text', text: `${ev.error.code ?? ''} ${ev.error.message ?? ''}`.trim() }) : null,
        ev.message && !ev.error ? h('div', { class: 'error-text', text: ev.message }) : null,
        ev.data !== undefined ? h('pre', { class: 'json', text: json(ev.data) }) : null);
    };
    const invoke = async () => {
      const r = readParams();
      if (!r.ok) return setChildren(status, h('span', { class: 'error-text', text: r.message }));
      setChildren(result, h('span', { class: 'muted', text: 'invoking…' }));
      try {
        const reply = await this.actions.invoke(path, aff.action, r.value);
        showOutcome({ event: reply.event, at: Date.now() });
      } catch (e) {
        showOutcome({ error: e.message, at: Date.now() });
      }
    };
    const invokeBtn = h('button', { class: aff.dangerous ? 'danger' : 'primary', type: 'button', disabled: !allowed, 'data-action': 'invoke',
      title: allowed ? '' : 'The provider did not declare the "affordances" capability',
      onclick: () => {
        if (aff.dangerous) confirmRow.hidden = false;
        else invoke();
      } }, aff.dangerous ? 'Invoke…' : 'Invoke');
    setChildren(confirmRow,
      h('div', { text: `“${aff.label ?? aff.action}” is marked dangerous. Invoke it anyway?` }),
      h('div', { class: 'confirm-buttons' },
        h('button', { class: 'danger', type: 'button', 'data-action': 'confirm', onclick: () => { confirmRow.hidden = true; invoke(); } }, 'Invoke anyway'),
        h('button', { type: 'button', onclick: () => { confirmRow.hidden = true; } }, 'Cancel')));

    if (hasParams) {
      editor = h('textarea', { class: 'params', rows: 4, spellcheck: 'false', 'aria-label': `params for ${aff.action}` });
      editor.value = this.drafts.get(id) ?? json(paramsSkeleton(aff.params));
      const fit = () => { editor.rows = Math.min(14, Math.max(3, editor.value.split('\n').length)); };
      fit();
      editor.addEventListener('input', () => {
        fit();
        this.drafts.set(id, editor.value);
        clearTimeout(timer);
        timer = setTimeout(check, 300);
      });
    }
    const chips = [
      aff.dangerous ? h('span', { class: 'chip danger-chip', text: 'dangerous' }) : null,
      aff.idempotent ? h('span', { class: 'chip', text: 'idempotent' }) : null,
      aff.estimate ? h('span', { class: 'chip', text: `estimate: ${aff.estimate}` }) : null,
    ];
    const card = h('div', { class: 'affordance', 'data-action-name': aff.action },
      h('div', { class: 'aff-head' },
        h('span', { class: 'aff-label', text: aff.label ?? aff.action }),
        aff.label ? h('code', { class: 'muted', text: aff.action }) : null, chips),
      aff.description ? h('div', { class: 'muted', text: aff.description }) : null,
      hasParams ? h('details', { class: 'schema' }, h('summary', { text: 'params schema' }), h('pre', { class: 'json', text: json(aff.params) })) : null,
      editor, editor ? status : null,
      h('div', { class: 'aff-buttons' }, invokeBtn), confirmRow, result);
    const last = this.results.get(id);
    if (last) showOutcome(last);
    return card;
  }
}
