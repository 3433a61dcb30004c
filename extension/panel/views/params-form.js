// params-form.js: an invoke form generated from an affordance's `params` schema: string, number,
// integer, boolean, enum (a select), array (add / remove items), nested object, and a raw JSON
// editor (a toggle, and the fallback for schemas the form does not cover).
//
// The form only collects a value. Whether it fits the schema is the core's decision
// (ui/validate-params / invoke); showError() puts each of the core's failures next to the field at its
// path (the core reports paths as data: ["tags", 1]), else above the buttons. Numbers are sent as
// typed when they do not read as a number, so the core reports them.

import { h } from '../../shared/dom.js';
import { parseExact, isExactNumber } from '../../../js-glue/exact-json.js';

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** A field's name in the page (data-ppath, aria-label): params.a, params["a b"], params.tags[1]. */
const keyPath = (base, key) => (IDENT.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`);

const UNSET = Symbol('unset');

/** The single type a field is built for, or "json" when the schema does not say one. */
function kindOf(schema) {
  if (!schema || typeof schema !== 'object') return 'json';
  if (Array.isArray(schema.enum) && schema.enum.length) return 'enum';
  let t = schema.type;
  if (Array.isArray(t)) {
    const real = t.filter((x) => x !== 'null');
    t = real.length === 1 ? real[0] : null;
  }
  if (t === 'object' && schema.properties && typeof schema.properties === 'object') return 'object';
  if (['string', 'number', 'integer', 'boolean', 'array'].includes(t)) return t;
  return 'json';
}

function typeLabel(schema) {
  if (Array.isArray(schema?.enum)) return 'enum';
  const t = schema?.type;
  if (Array.isArray(t)) return t.join(' | ');
  if (t === 'array') return `array of ${typeLabel(schema.items ?? {}) || 'any'}`;
  return typeof t === 'string' ? t : 'any';
}

/**
 * A failure of the core, said under its own field in the field's words: the core names the value
 * by its path ("params.to is required"), the form by the field's label ("To is required"; an array
 * item: "Tags item 2 must be a string"). A failure deeper down than the field keeps the core's path.
 */
function worded(field, path, message) {
  if (field.segs.length !== path.length || !message.startsWith(field.ppath)) return message;
  const [parent, last] = [field.segs.at(-2), field.segs.at(-1)];
  const item = typeof parent === 'string' ? `${parent} item` : 'item';
  const label = field.name ?? (typeof last === 'number' ? `${item} ${last + 1}` : String(last));
  return `${label[0].toUpperCase()}${label.slice(1)}${message.slice(field.ppath.length)}`;
}

/**
 * @typedef {object} Field   one control of the form (and what it reads)
 * @property {HTMLElement} el
 * @property {() => any} read   its value, or UNSET
 * @property {(v: any) => void} write
 * @property {string} [ppath] @property {Array<string|number>} [segs] @property {string|null} [name]
 * @property {HTMLElement} [errorEl]
 */

export class ParamsForm {
  /**
   * @param {object} schema   the affordance's params schema
   * @param {{onChange?: () => void, label?: string}} [o]
   */
  constructor(schema, { onChange = () => {}, label = 'params' } = {}) {
    this.schema = schema;
    this.onChange = onChange;
    this.label = label;
    this.fields = [];           // every field with a path, for error placement
    this.formOk = kindOf(schema) === 'object';
    this.raw = !this.formOk;
    this.formEl = h('div', { class: 'pf-form' });
    this.rawEl = h('textarea', { class: 'pf-raw', rows: 6, spellcheck: 'false', 'aria-label': `${label} as JSON` });
    this.rawEl.addEventListener('input', () => { this.#fitRaw(); this.onChange(); });
    this.errorEl = h('div', { class: 'pf-error pf-top-error', role: 'alert' });
    this.toggleBtn = h('button', { type: 'button', class: 'link pf-toggle', 'data-action': 'toggle-raw', onclick: () => this.setRaw(!this.raw) });
    this.root = this.formOk ? this.#build(schema, 'params', [], null, true, undefined) : null;
    if (this.root) this.formEl.append(this.root.el);
    this.el = h('div', { class: 'params-form' },
      h('div', { class: 'pf-head' }, h('span', { class: 'pf-title', text: 'Parameters' }), this.formOk ? this.toggleBtn : h('span', { class: 'muted', text: 'raw JSON' })),
      this.formEl, this.rawEl, this.errorEl);
    this.rawEl.value = '{}';
    this.setRaw(this.raw, { quiet: true });
  }

  #fitRaw() {
    this.rawEl.rows = Math.min(16, Math.max(4, this.rawEl.value.split('\n').length));
  }

  /** Switches between the generated form and the raw JSON editor, carrying the value over. */
  setRaw(raw, { quiet = false } = {}) {
    if (raw && this.formOk) {
      const v = this.root.read();
      this.rawEl.value = JSON.stringify(v === UNSET ? {} : v, null, 2);
    } else if (!raw && this.formOk && this.raw) {
      let v;
      try {
        v = parseExact(this.rawEl.value || '{}');
      } catch (e) {
        this.showError(`Not JSON: ${e.message}`);
        return;
      }
      this.root.write(v);
    }
    this.raw = raw;
    this.#fitRaw();
    this.formEl.hidden = raw;
    this.rawEl.hidden = !raw;
    this.toggleBtn.textContent = raw ? 'Form' : 'Raw JSON';
    this.el.dataset.mode = raw ? 'raw' : 'form';
    this.showError(null);
    if (!quiet) this.onChange();
  }

  /** {ok: true, value} or {ok: false, message} (the raw editor does not hold JSON). */
  value() {
    if (this.raw) {
      const text = this.rawEl.value.trim();
      if (!text) return { ok: true, value: {} };
      try {
        return { ok: true, value: parseExact(text) };
      } catch (e) {
        return { ok: false, message: `Not JSON: ${e.message}` };
      }
    }
    const v = this.root.read();
    return { ok: true, value: v === UNSET ? {} : v };
  }

  /**
   * Shows a problem: a message of the form's own (text, above the buttons) or the core's failures
   * ([{path, message}]), each under the field at the longest prefix of its path, else on top.
   */
  showError(problem) {
    for (const f of this.fields) {
      f.errorEl.textContent = '';
      f.el.classList.remove('invalid');
    }
    this.errorEl.textContent = '';
    if (!problem) return;
    const failures = typeof problem === 'string' ? [{ path: null, message: problem }] : problem;
    const top = [];
    for (const { path, message } of failures) {
      const best = this.raw || !Array.isArray(path) ? null : this.#fieldAt(path);
      if (best) {
        const text = worded(best, path, message);
        best.errorEl.textContent = best.errorEl.textContent ? `${best.errorEl.textContent}\n${text}` : text;
        best.el.classList.add('invalid');
      } else {
        top.push(message);
      }
    }
    this.errorEl.textContent = top.join('\n');
  }

  /** The field whose path is the longest prefix of `path` (the root's is []), or null for the root. */
  #fieldAt(path) {
    let best = null;
    for (const f of this.fields) {
      const n = f.segs.length;
      if (n === 0 || n > path.length || (best && n <= best.segs.length)) continue;
      if (f.segs.every((s, i) => s === path[i])) best = f;
    }
    return best;
  }

  // ------------------------------------------------------------------------------ fields

  /**
   * A field: {el, read() → value | UNSET, write(v)}.
   * @param {any} schema  its part of the affordance's params schema
   * @param {string} ppath  its path as shown ("params.to[0]") @param {Array<string|number>} segs  the same, as data
   * @param {string|null} name  its member name (null: the root, or an array item)
   * @param {boolean} required @param {unknown} initial @param {boolean} [inArray]
   * @returns {Field}
   */
  #build(schema, ppath, segs, name, required, initial, inArray = false) {
    const kind = kindOf(schema);
    const changed = () => this.onChange();
    const errorEl = h('div', { class: 'pf-error' });
    const desc = schema?.description ? h('div', { class: 'pf-desc', text: String(schema.description) }) : null;
    const label = name === null ? null : h('label', { class: 'pf-label' },
      h('span', { class: 'pf-name', text: name }),
      required ? h('span', { class: 'pf-req', title: 'required', text: '*' }) : null,
      h('span', { class: 'pf-type', text: typeLabel(schema) }));
    const wrap = (control, extraClass = '') => h('div', { class: `pf-field pf-${kind}${extraClass}`, 'data-ppath': ppath }, label, control, desc, errorEl);
    /** An input, select or textarea of this field: named, placed (for errors) and listened to. */
    const control = (el, event = 'input') => {
      el.setAttribute('aria-label', name ?? ppath);
      el.dataset.ppath = ppath;
      el.addEventListener(event, changed);
      return el;
    };
    /** @type {Field} */
    let field;
    const start = initial !== undefined ? initial : schema?.default;

    switch (kind) {
      case 'string': {
        const multiline = /^(body|text|content|description|message|notes?)$/i.test(name ?? '');
        const input = control(multiline
          ? h('textarea', { rows: 3, spellcheck: 'false' })
          : h('input', { type: 'text', spellcheck: 'false' }));
        if (typeof start === 'string') input.value = start;
        field = {
          el: wrap(input),
          read: () => (input.value === '' && !inArray ? UNSET : input.value),
          write: (v) => { input.value = typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v); },
        };
        break;
      }
      case 'number':
      case 'integer': {
        const input = control(h('input', { type: 'text', inputmode: kind === 'integer' ? 'numeric' : 'decimal', spellcheck: 'false', placeholder: kind === 'integer' ? '0' : '0.0' }));
        if (typeof start === 'number') input.value = String(start);
        else if (isExactNumber(start)) input.value = start.rawJSON;
        field = {
          el: wrap(input),
          read: () => {
            const t = input.value.trim();
            if (t === '') return inArray ? null : UNSET;
            if (/^-?\d{16,}$/.test(t)) return parseExact(t); // a 64-bit id keeps its digits
            const n = Number(t);
            return Number.isFinite(n) && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t) ? n : t;
          },
          write: (v) => { input.value = v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v); },
        };
        break;
      }
      case 'boolean': {
        const sel = control(h('select', {}, h('option', { value: '', text: '— not set —' }), h('option', { value: 'true', text: 'true' }), h('option', { value: 'false', text: 'false' })), 'change');
        if (typeof start === 'boolean') sel.value = String(start);
        field = {
          el: wrap(sel),
          read: () => (sel.value === '' ? (inArray ? null : UNSET) : sel.value === 'true'),
          write: (v) => { sel.value = typeof v === 'boolean' ? String(v) : ''; },
        };
        break;
      }
      case 'enum': {
        const members = schema.enum;
        const sel = control(h('select', {}, h('option', { value: '', text: '— not set —' }),
          members.map((m, i) => h('option', { value: String(i), text: typeof m === 'string' ? m : JSON.stringify(m) }))), 'change');
        const indexOf = (v) => members.findIndex((m) => JSON.stringify(m) === JSON.stringify(v));
        if (start !== undefined && indexOf(start) >= 0) sel.value = String(indexOf(start));
        field = {
          el: wrap(sel),
          read: () => (sel.value === '' ? (inArray ? null : UNSET) : members[Number(sel.value)]),
          write: (v) => { const i = indexOf(v); sel.value = i >= 0 ? String(i) : ''; },
        };
        break;
      }
      case 'array': {
        const itemSchema = schema.items && typeof schema.items === 'object' ? schema.items : {};
        const list = h('div', { class: 'pf-items' });
        const items = [];
        const renumber = () => items.forEach((it, i) => {
          it.index.textContent = `[${i}]`;
          this.#repath(it.field, `${ppath}[${i}]`, [...segs, i]);
        });
        const addItem = (v) => {
          const i = items.length;
          const f = this.#build(itemSchema, `${ppath}[${i}]`, [...segs, i], null, false, v, true);
          const index = h('span', { class: 'pf-index muted', text: `[${i}]` });
          const it = { field: f, index };
          it.el = h('div', { class: 'pf-item' }, index, f.el,
            h('button', { type: 'button', class: 'icon', title: 'Remove this item', 'aria-label': 'remove item', 'data-action': 'remove-item',
              onclick: () => {
                items.splice(items.indexOf(it), 1);
                it.el.remove();
                this.fields = this.fields.filter((x) => !it.el.contains(x.el));
                renumber();
                changed();
              } }, '×'));
          items.push(it);
          list.append(it.el);
        };
        const addBtn = h('button', { type: 'button', class: 'small', 'data-action': 'add-item', onclick: () => { addItem(undefined); changed(); } }, '+ Add item');
        if (Array.isArray(start)) start.forEach((v) => addItem(v));
        field = {
          el: wrap(h('div', { class: 'pf-array-body' }, list, addBtn)),
          read: () => {
            if (items.length === 0) return required || inArray ? [] : UNSET;
            return items.map((it) => { const v = it.field.read(); return v === UNSET ? null : v; });
          },
          write: (v) => {
            for (const it of items) it.el.remove();
            this.fields = this.fields.filter((x) => !items.some((it) => it.el.contains(x.el)));
            items.length = 0;
            if (Array.isArray(v)) v.forEach((x) => addItem(x));
          },
        };
        break;
      }
      case 'object': {
        const req = new Set(Array.isArray(schema.required) ? schema.required : []);
        const keys = Object.keys(schema.properties);
        keys.sort((a, b) => Number(req.has(b)) - Number(req.has(a)));
        const members = keys.map((k) => /** @type {[string, Field]} */ ([k, this.#build(schema.properties[k] ?? {}, keyPath(ppath, k), [...segs, k], k, req.has(k),
          start && typeof start === 'object' ? start[k] : undefined)]));
        const body = h('div', { class: 'pf-members' }, members.map(([, f]) => f.el));
        const el = name === null && !inArray
          ? h('div', { class: 'pf-field pf-object pf-root', 'data-ppath': ppath }, body, errorEl)
          : wrap(h('fieldset', { class: 'pf-fieldset' }, body));
        field = {
          el,
          read: () => {
            const out = {};
            let any = false;
            for (const [k, f] of members) {
              const v = f.read();
              if (v !== UNSET) { out[k] = v; any = true; }
            }
            return any || required || name === null ? out : UNSET;
          },
          write: (v) => { for (const [k, f] of members) f.write(v && typeof v === 'object' ? v[k] : undefined); },
        };
        break;
      }
      default: {
        const input = control(h('textarea', { rows: 2, spellcheck: 'false', placeholder: 'JSON value (text that is not JSON is sent as a string)' }));
        if (start !== undefined) input.value = JSON.stringify(start);
        field = {
          el: wrap(input),
          read: () => {
            const t = input.value.trim();
            if (t === '') return inArray ? null : UNSET;
            try { return parseExact(t); } catch { return input.value; }
          },
          write: (v) => { input.value = v === undefined ? '' : JSON.stringify(v); },
        };
      }
    }
    field.ppath = ppath;
    field.segs = segs;
    field.name = name;
    field.errorEl = errorEl;
    this.fields.push(field);
    return field;
  }

  /** After an array item moved: its (and its members') paths follow the new index. */
  #repath(field, ppath, segs) {
    const old = field.ppath;
    const oldSegs = field.segs;
    for (const f of this.fields) {
      if (f.segs.length < oldSegs.length || !oldSegs.every((s, i) => s === f.segs[i])) continue;
      f.segs = [...segs, ...f.segs.slice(oldSegs.length)];
      f.ppath = ppath + f.ppath.slice(old.length);
      f.el.dataset.ppath = f.ppath;
      const control = f.el.querySelector(':scope > input, :scope > select, :scope > textarea');
      if (control) control.dataset.ppath = f.ppath;
    }
  }
}
