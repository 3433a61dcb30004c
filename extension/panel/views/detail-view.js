// detail-view.js: the selected node: id, type, path (copyable), properties and meta as collapsible
// JSON, its content reference (with "Load content" through its read_content affordance), children,
// and its affordances, each with a form generated from its params schema (params-form.js).
//
// Params are checked by the core (ui/validate-params request) as you type and again before sending;
// dangerous affordances ask for confirmation; the outcome (ok + data, error + code and message,
// accepted + live task progress from the core's task events) is shown under the form.
//
// Outcomes are kept by node (the last MAX_OUTCOMES per node path), not by affordance card: an
// invoke often replaces the affordance it used (close → reopen), and its result must not vanish
// with the card. The newest outcome of an affordance still offered shows under its form; the
// outcomes of affordances no longer offered are listed above the affordances, until dismissed.

import { ErrorCode } from '../../shared/messages.js';
import { h, setChildren, keepFocus } from '../../shared/dom.js';
import { clockTime } from '../../shared/time-text.js';
import { childrenText } from '../load-more.js';
import { jsonView, scalar } from './json-view.js';
import { ParamsForm } from './params-form.js';
import { salienceOf } from './tree-rows.js';
import { ChangeMarks } from './change-marks.js';
import { verbatimView } from '../exact-views.js';
import { stringifyExact, exactEvent } from '../../../js-glue/exact-json.js';
import { CoreEventName } from '../../../js-glue/core-contract.js';
import { isAtOrUnder } from '../../shared/node-path.js';

/** Invoke outcomes kept per node. */
export const MAX_OUTCOMES = 5;

/**
 * The text of a read_content result: a string, {content: string}, or else its JSON.
 * @param {any} data  an invoke result's data @returns {{text: string, mime?: string|null}}
 */
export function contentText(data) {
  if (typeof data === 'string') return { text: data };
  if (data && typeof data === 'object' && typeof data.content === 'string') {
    return { text: data.content, mime: typeof data.mime === 'string' ? data.mime : null };
  }
  return { text: stringifyExact(data, 2) };
}

function section(title, ...body) {
  return h('section', { class: 'd-section', 'data-section': title.toLowerCase().replace(/\W+/g, '-') }, h('h3', { text: title }), ...body);
}

/** @param {object} meta the view's (numbers to compute with) @param {object} shown the same, numbers as written */
function metaView(meta, shown) {
  const sal = salienceOf({ meta });
  const rows = [];
  if (sal !== null) {
    rows.push(h('div', { class: 'meta-row' }, h('span', { class: 'jt-key', text: 'salience' }), h('span', { class: 'jt-colon', text: ': ' }),
      h('span', { class: 'sal big' }, h('i', { style: `width:${Math.round(sal * 100)}%` })), scalar(shown.salience)));
  }
  if (meta.urgency !== undefined) {
    rows.push(h('div', { class: 'meta-row' }, h('span', { class: 'jt-key', text: 'urgency' }), h('span', { class: 'jt-colon', text: ': ' }),
      h('span', { class: `urgency u-${String(meta.urgency)}`, text: String(meta.urgency) })));
  }
  const rest = Object.fromEntries(Object.entries(shown).filter(([k]) => !(k === 'salience' && sal !== null) && k !== 'urgency'));
  return h('div', { class: 'meta-view' }, rows, jsonView(rest));
}

/**
 * Sets el's children to `head` then `rest`, leaving `head` in place when it is there already (a
 * node removed and put back loses the focus and a press in progress). @param {HTMLElement} el
 * @param {Element[]} head @param {...(Node|null|false|undefined)} rest
 */
function afterHead(el, head, ...rest) {
  if (!head.every((x, i) => el.childNodes[i] === x)) el.replaceChildren(...head);
  while (el.childNodes.length > head.length) el.lastChild?.remove();
  for (const x of rest) if (x) el.append(x);
}

export class DetailView {
  /**
   * @param {HTMLElement} root
   * @param {{invoke: (path: string, action: string, params?: object) => Promise<any>,
   *          validate: (schema: object, params: unknown) => Promise<Array<{path: Array<string|number>, message: string}>|null>,
   *          copy: (text: string, what: string) => void, backToTree?: () => void}} actions
   *   backToTree: Escape in the detail gives the focus back to the tree
   */
  constructor(root, actions) {
    this.root = root;
    this.actions = actions;
    this.outcomes = new Map(); // "key path" → outcomes, oldest first (at most MAX_OUTCOMES)
    this.tasks = new Map();    // task id → last task event
    this.content = new Map();  // "key path" → {state, text, mime, error, at}
    this.cards = new Map();    // "key path action" → {refresh}
    this.affSig = null;
    this.seq = 0;
    this.main = h('div', { class: 'detail-main' });
    this.earlier = h('div', { class: 'detail-earlier', 'data-role': 'earlier-results' });
    this.affs = h('div', { class: 'detail-affordances' });
    // Words for what a screen reader cannot see happen: the focused control went with an update.
    this.said = h('div', { class: 'sr-only', role: 'status', 'data-role': 'detail-said' });
    root.replaceChildren(this.main, this.earlier, this.affs, this.said);
    // Enter on a tree row focuses the detail itself, never one of its buttons: a second Enter
    // must not invoke anything. The user reaches an action with Tab, which is choosing it.
    root.tabIndex = -1;
    root.setAttribute('aria-label', 'Node detail: Tab reaches its actions, Escape goes back to the tree');
    root.addEventListener('keydown', (e) => {
      if (e.target === root && e.key === 'Escape' && !e.altKey && !e.ctrlKey && !e.metaKey) {
        e.preventDefault();
        this.actions.backToTree?.();
      }
    });
    this.view = null;
    this.ctx = null;
    /** The fields a patch changed lately, marked in the detail (change-marks.js). */
    this.marks = new ChangeMarks(this.main);
    /** The user's last invoke from here that may have removed its node: {providerKey, path, action}. */
    this.sent = null;
    /** Each removal said (side-pane's object) → the invoke it came after, or null: decided once. */
    this.removedBy = new WeakMap();
  }

  /** How long a changed field stays marked (ms; tests shorten it). */
  get markMs() { return this.marks.markMs; }
  set markMs(ms) { this.marks.markMs = ms; }

  /** Focuses the detail as a whole (not a control in it), scrolled to its top. */
  focus() {
    this.root.scrollTop = 0;
    this.root.focus({ preventScroll: true });
  }

  /**
   * @param {object|null} view   a node view
   * @param {{providerKey: string, mode: 'live'|'history'|'import'|'query', canInvoke: boolean,
   *          whyNot: string, contentRefs: boolean, version?: number, note?: string, stale?: boolean,
   *          removed?: {path: string, version: number}|null}} ctx   removed: the selection was there;
   *   stale: live, but the provider is not connected (what is shown may be out of date)
   */
  show(view, ctx) {
    // A patch re-renders the detail: a keyboard user's focus stays on the control it was on.
    keepFocus(this.root, () => this.#render(view, ctx), (gone) => {
      this.said.textContent = `${gone.getAttribute('aria-label') || gone.textContent?.trim().slice(0, 60) || 'The control you were on'} is no longer there: the focus moved to what held it.`;
    });
  }

  /** @param {object|null} view @param {any} ctx */
  #render(view, ctx) {
    this.view = view;
    this.ctx = ctx;
    if (!view) {
      this.affSig = null;
      this.marks.note(null, ctx?.mode, null);
      setChildren(this.main, h('div', { class: 'empty small' },
        h('p', { text: 'Select a node to see its properties, meta and affordances.' }),
        h('p', { class: 'muted', text: 'Keys: ↑ ↓ move · ← → collapse / expand · Enter open · ? all keys' })));
      this.earlier.replaceChildren();
      this.affs.replaceChildren();
      return;
    }
    const key = `${ctx.providerKey} ${view.path}`;
    const vv = verbatimView(view);
    this.marks.note(key, ctx.mode, vv);
    const modeNote = {
      history: `Version ${ctx.version} from the history: read-only.`,
      import: 'Imported file: read-only.',
      query: `Query result (v${ctx.version ?? '?'}): a copy fetched on demand, not part of the live mirror; read-only.`,
    }[ctx.mode];
    // The head and its Copy path stay the same elements while the node is patched: a press on the
    // button of a node that changes 100 times a second ends on the button it started on.
    const headSig = `${view.id}\u0000${view.type}\u0000${view.path}\u0000${!!ctx.stale}`;
    if (this.head?.sig !== headSig) {
      this.head = { sig: headSig, els: [
        h('div', { class: 'detail-head' },
          h('span', { class: 'nid big', text: view.id }), h('span', { class: 'ntype', text: view.type }),
          ctx.stale ? h('span', { class: 'pill', 'data-status': 'reconnecting', text: 'last known state' }) : null,
          h('span', { class: 'detail-keys muted small', text: 'Tab: actions · Esc: back to the tree' })),
        h('div', { class: 'path-row' },
          h('code', { class: 'path', text: view.path, title: 'absolute path (as invoke and query take it)' }),
          h('button', { type: 'button', class: 'small', 'data-action': 'copy-path', onclick: () => this.actions.copy(view.path, 'path') }, 'Copy path'))] };
    }
    afterHead(this.main, this.head.els,
      modeNote ? h('div', { class: 'mode-note', text: modeNote }) : null,
      ctx.removed ? this.#removedNote(ctx) : null,
      view.properties && Object.keys(view.properties).length
        ? section('Properties', jsonView(vv.properties)) : section('Properties', h('p', { class: 'muted', text: 'No properties.' })),
      view.meta && Object.keys(view.meta).length ? section('Meta', metaView(view.meta, vv.meta))
        : this.marks.has('meta') ? section('Meta', h('div', { class: 'meta-view' })) : null,
      view.content_ref ? this.#contentSection(view, key, ctx) : null,
      this.#childrenLine(view));
    this.marks.show();

    const list = view.affordances ?? [];
    this.#renderEarlier();
    const sig = `${key}|${ctx.mode}|${ctx.canInvoke}|${JSON.stringify(list)}`;
    if (sig === this.affSig) return; // keep the forms (and focus) while the node updates
    this.affSig = sig;
    this.cards.clear();
    setChildren(this.affs, list.length ? h('h3', { text: `Affordances (${list.length})` }) : null,
      list.map((a) => this.#affordance(view.path, a, ctx)));
  }

  // ------------------------------------------------------------------------------ outcomes

  #nodeKey(path) {
    return `${this.ctx?.providerKey} ${path}`;
  }

  /**
   * The selected node was removed: after the user's own invoke on it (or on an ancestor) sent from
   * here, the last one before the removal, it says so; else the provider removed it.
   * @param {{providerKey: string, removed: {path: string, version: number}}} ctx
   */
  #removedNote(ctx) {
    const { removed } = ctx;
    if (!this.removedBy.has(removed)) {
      const s = this.sent;
      const mine = !!s && s.providerKey === ctx.providerKey && isAtOrUnder(removed.path, s.path);
      this.removedBy.set(removed, mine ? s : null);
      if (mine) this.sent = null; // one invoke explains one removal
    }
    const by = this.removedBy.get(removed);
    const tail = ` (version ${removed.version}); its nearest remaining ancestor is shown.`;
    return h('div', { class: 'removed-note', role: 'status', 'data-role': 'removed-note', 'data-by': by ? 'invoke' : 'provider' },
      by ? [h('span', { text: 'Removed after your ' }), h('code', { text: by.action }), h('span', { text: ' on ' }), h('code', { text: removed.path }), h('span', { text: tail })]
        : [h('span', { text: 'The provider removed ' }), h('code', { text: removed.path }), h('span', { text: ` at version ${removed.version}; its nearest remaining ancestor is shown.` })]);
  }

  /** A new outcome record for an invoke of `action` on the node at `path` (kept per node). */
  #record(providerKey, path, aff) {
    const nodeKey = `${providerKey} ${path}`;
    const o = { seq: ++this.seq, action: aff.action, label: aff.label ?? aff.action, pending: true, at: Date.now() };
    const list = [...(this.outcomes.get(nodeKey) ?? []), o];
    while (list.length > MAX_OUTCOMES) {
      const i = list.findIndex((x) => !x.pending);
      list.splice(i < 0 ? 0 : i, 1);
    }
    this.outcomes.set(nodeKey, list);
    return { nodeKey, o };
  }

  /** Shows an outcome's change wherever it is on screen (its card, or the earlier list). */
  #changed(nodeKey, action) {
    if (!this.view || this.#nodeKey(this.view.path) !== nodeKey) return;
    this.cards.get(`${nodeKey} ${action}`)?.refresh();
    this.#renderEarlier();
  }

  dismiss(nodeKey, seq) {
    const list = (this.outcomes.get(nodeKey) ?? []).filter((o) => o.seq !== seq);
    if (list.length) this.outcomes.set(nodeKey, list);
    else this.outcomes.delete(nodeKey);
    if (this.view && this.#nodeKey(this.view.path) === nodeKey) {
      for (const c of this.cards.values()) c.refresh();
      this.#renderEarlier();
    }
  }

  /** The newest outcome of `action` on the node, or null. */
  #latest(nodeKey, action) {
    const list = this.outcomes.get(nodeKey) ?? [];
    for (let i = list.length - 1; i >= 0; i--) if (list[i].action === action) return list[i];
    return null;
  }

  /** Outcomes of affordances the node no longer offers, newest first. */
  #renderEarlier() {
    const view = this.view;
    if (!view) return setChildren(this.earlier);
    const nodeKey = this.#nodeKey(view.path);
    const offered = new Set((view.affordances ?? []).map((a) => a.action));
    const list = (this.outcomes.get(nodeKey) ?? []).filter((o) => !offered.has(o.action)).reverse();
    if (!list.length) return setChildren(this.earlier);
    setChildren(this.earlier, h('section', { class: 'd-section', 'data-section': 'results' },
      h('h3', { text: `Results (${list.length})` }),
      h('p', { class: 'muted small', text: 'Of affordances this node no longer offers (an invoke often replaces the one it used).' }),
      list.map((o) => h('div', { class: 'earlier-result', 'data-action-name': o.action },
        this.#outcomeEls(o, { nodeKey, withAction: true })))));
  }

  /** The elements of one outcome: "close → ok 12:00:01 ×", then its error, data or task. */
  #outcomeEls(o, { nodeKey, withAction = false }) {
    const dismiss = h('button', { type: 'button', class: 'link small dismiss', 'data-action': 'dismiss-result', title: 'Dismiss this result', 'aria-label': 'Dismiss this result',
      onclick: () => this.dismiss(nodeKey, o.seq) }, '×');
    const head = (...kids) => h('div', { class: 'outcome' },
      withAction ? h('code', { class: 'outcome-action', text: o.action }) : null,
      withAction ? h('span', { class: 'muted', text: ' → ' }) : null,
      ...kids, dismiss);
    if (o.error) return [head(h('span', { class: 'pill outcome-error', 'data-outcome': 'not-sent', text: 'not sent' }), h('span', { class: 'error-text', text: ` ${o.error}` }))];
    if (o.pending) return [head(h('span', { class: 'muted', text: 'invoking…' }))];
    const ev = o.event ?? {}; // read from the core's text where it had one (send, exactEvent)
    const outcome = ev.event === CoreEventName.RESULT ? ev.status : ev.event;
    const task = ev.task_id ? this.tasks.get(ev.task_id) : null;
    return [
      head(h('span', { class: `pill outcome-${outcome}`, 'data-outcome': outcome, text: outcome ?? '?' }),
        h('span', { class: 'muted', text: ` ${clockTime(o.at)}` }),
        ev.task_id ? h('span', { class: 'muted', text: ` · task ${ev.task_id}` }) : null),
      ev.error ? h('div', { class: 'error-text', 'data-error-code': String(ev.error.code ?? '') },
        h('code', { text: String(ev.error.code ?? '') }), ` ${ev.error.message ?? ''}`) : null,
      !ev.error && ev.message ? h('div', { class: 'error-text', text: String(ev.message) }) : null,
      ev.data !== undefined ? h('div', { class: 'result-data' }, jsonView(ev.data, { openDepth: 2 })) : null,
      ev.task_id ? this.#taskView(ev.task_id, task) : null,
    ];
  }

  #childrenLine(view) {
    const text = childrenText(view);
    return text === null ? null : section('Children', h('p', { class: 'muted', text }));
  }

  #contentSection(view, key, ctx) {
    const ref = verbatimView(view).content_ref;
    const hasRead = (view.affordances ?? []).some((a) => a.action === 'read_content');
    const why = !ctx.contentRefs ? 'The provider does not offer content references.'
      : !hasRead ? 'This node has no read_content affordance.'
      : !ctx.canInvoke ? ctx.whyNot : '';
    const state = this.content.get(key);
    const out = h('div', { class: 'content-out' });
    const render = (st) => {
      if (!st) return setChildren(out);
      if (st.state === 'loading') return setChildren(out, h('span', { class: 'muted', text: 'loading…' }));
      if (st.state === 'error') return setChildren(out, h('div', { class: 'error-text', text: st.error }));
      setChildren(out,
        h('div', { class: 'muted small', text: `${st.mime ?? ref.mime ?? ''} · ${st.text.length} characters · ${clockTime(st.at)}` }),
        h('pre', { class: 'content-text', text: st.text }));
    };
    render(state);
    const load = async () => {
      const st = { state: 'loading' };
      this.content.set(key, st);
      render(st);
      let next;
      try {
        const reply = await this.actions.invoke(view.path, 'read_content', undefined);
        const ev = exactEvent(reply.event) ?? {}; // a JSON content's numbers as the provider wrote them
        if (ev.event === CoreEventName.RESULT && ev.status === 'ok') next = { state: 'ok', ...contentText(ev.data), at: Date.now() };
        else next = { state: 'error', error: ev.error ? `${ev.error.code}: ${ev.error.message}` : `${ev.event}: ${ev.message ?? ev.status ?? ''}` };
      } catch (e) {
        next = { state: 'error', error: e.message };
      }
      this.content.set(key, next);
      if (this.view?.path === view.path) render(next);
    };
    return section('Content reference',
      jsonView(ref),
      h('div', { class: 'content-actions' },
        h('button', { type: 'button', class: 'primary small', 'data-action': 'load-content', disabled: !!why, title: why, onclick: load }, 'Load content'),
        why ? h('span', { class: 'muted small', text: why, title: ctx.contentRefs ? undefined : 'Its hello does not declare the content_refs capability.' }) : h('span', { class: 'muted small', text: 'through the node’s read_content affordance' })),
      out);
  }

  // --------------------------------------------------------------------------- affordances

  #affordance(path, aff, ctx) {
    const id = `${ctx.providerKey} ${path} ${aff.action}`;
    const hasParams = aff.params && typeof aff.params === 'object';
    const status = h('div', { class: 'aff-status' });
    const result = h('div', { class: 'aff-result', 'aria-live': 'polite' });
    const confirmRow = h('div', { class: 'confirm', hidden: true });
    /** @type {ReturnType<typeof setTimeout>|0} */
    let timer = 0;
    let seq = 0;

    let form = null;

    /** Asks the core; shows and returns its failures (null = fits). */
    const check = async () => {
      if (!form) return null;
      const r = form.value();
      const mine = ++seq;
      if (!r.ok) {
        form.showError(r.message);
        setChildren(status);
        return r.message;
      }
      const problem = await this.actions.validate(aff.params, r.value).catch((e) => e.message);
      if (mine !== seq) return problem;
      form.showError(problem);
      const n = Array.isArray(problem) ? problem.length : 1;
      setChildren(status, problem
        ? h('span', { class: 'error-text', text: `✗ ${n} ${n === 1 ? 'field does' : 'fields do'} not fit the schema` })
        : h('span', { class: 'ok-text', text: '✓ params fit the schema' }));
      return problem;
    };

    if (hasParams) {
      form = new ParamsForm(aff.params, {
        label: aff.action,
        onChange: () => {
          // A message about the previous value would mislead while the core re-checks.
          form.showError(null);
          setChildren(status);
          clearTimeout(timer);
          timer = setTimeout(check, 250);
        },
      });
    }

    const nodeKey = `${ctx.providerKey} ${path}`;
    // One invoke in flight per affordance: while the params are checked or the reply is awaited,
    // a second Enter or click sends nothing, and the button says why. The pending outcome is kept
    // by node, so a card drawn again meanwhile (the node changed) is still busy.
    let checking = false;
    const busy = () => checking || !!this.#latest(nodeKey, aff.action)?.pending;
    const label = aff.dangerous ? 'Invoke…' : 'Invoke';
    const showBusy = () => {
      const b = busy();
      invokeBtn.disabled = b || !ctx.canInvoke;
      invokeBtn.textContent = b ? 'Invoking…' : label;
      invokeBtn.setAttribute('aria-busy', String(b));
    };
    const showLatest = () => {
      const o = this.#latest(nodeKey, aff.action);
      setChildren(result, o ? this.#outcomeEls(o, { nodeKey }) : null);
      showBusy();
    };

    const send = async () => {
      if (busy()) return;
      const r = form ? form.value() : { ok: true, value: undefined };
      // The record outlives this card: the reply may come after the node dropped the affordance.
      const rec = this.#record(ctx.providerKey, path, aff);
      this.#changed(rec.nodeKey, aff.action);
      const sent = { providerKey: ctx.providerKey, path, action: aff.action };
      this.sent = sent;
      try {
        const reply = await this.actions.invoke(path, aff.action, r.value);
        // Read once from the core's text when it came with one: #outcomeEls shows the data and
        // the error with the provider's numbers (a port carried them as doubles: -0, 1.50, 2^63-1).
        Object.assign(rec.o, { pending: false, event: exactEvent(reply.event), at: Date.now() });
        if (reply.event?.status === 'error' && this.sent === sent) this.sent = null; // it failed: it removed nothing
      } catch (e) {
        if (this.sent === sent) this.sent = null;
        // The core refused it locally (bad_params, no_capability...) or the worker is away.
        Object.assign(rec.o, { pending: false, error: `${e.code ? `${e.code}: ` : ''}${e.message}`, at: Date.now() });
        if (e.code === ErrorCode.BAD_PARAMS) form?.showError(e.message);
      }
      this.#changed(rec.nodeKey, aff.action);
    };

    const invoke = async () => {
      if (busy()) return;
      confirmRow.hidden = true;
      if (form) {
        checking = true;
        showBusy();
        let problem;
        try {
          problem = await check();
        } finally {
          checking = false;
          showBusy();
        }
        if (problem) return;
      }
      if (aff.dangerous) {
        confirmRow.hidden = false;
        // The safe answer has the focus: a second Enter must not run a dangerous action.
        /** @type {HTMLButtonElement|null} */ (confirmRow.querySelector('button[data-action="cancel"]'))?.focus();
        return;
      }
      send();
    };
    const closeConfirm = () => {
      confirmRow.hidden = true;
      invokeBtn.focus();
    };

    const invokeBtn = h('button', { class: aff.dangerous ? 'danger' : 'primary', type: 'button', disabled: !ctx.canInvoke, 'data-action': 'invoke',
      title: ctx.canInvoke ? (aff.dangerous ? 'Asks for confirmation first' : (form ? 'Ctrl+Enter (Cmd+Enter) in a field invokes too' : '')) : ctx.whyNot, onclick: invoke }, label);
    setChildren(confirmRow,
      h('div', { class: 'confirm-text', text: `“${aff.label ?? aff.action}” is marked dangerous. Invoke it on ${path}?` }),
      h('div', { class: 'confirm-buttons' },
        h('button', { class: 'danger-solid', type: 'button', 'data-action': 'confirm', onclick: () => { confirmRow.hidden = true; send(); } }, 'Invoke anyway'),
        h('button', { type: 'button', 'data-action': 'cancel', onclick: closeConfirm }, 'Cancel')));

    const chips = [
      aff.dangerous ? h('span', { class: 'chip danger-chip', text: 'dangerous' }) : null,
      aff.idempotent ? h('span', { class: 'chip', text: 'idempotent' }) : null,
      aff.estimate ? h('span', { class: 'chip', title: 'estimate', text: `estimate: ${aff.estimate}` }) : null,
    ];
    const card = h('div', { class: `affordance${aff.dangerous ? ' is-dangerous' : ''}`, 'data-action-name': aff.action },
      h('div', { class: 'aff-head' },
        h('span', { class: 'aff-label', text: aff.label ?? aff.action }),
        aff.label ? h('code', { class: 'muted', text: aff.action }) : null, chips),
      aff.description ? h('div', { class: 'aff-desc', text: aff.description }) : null,
      form ? form.el : null,
      form ? status : null,
      h('div', { class: 'aff-buttons' }, invokeBtn, ctx.canInvoke ? null : h('span', { class: 'muted small', text: ctx.whyNot })),
      confirmRow, result,
      hasParams ? h('details', { class: 'schema' }, h('summary', { text: 'params schema' }), jsonView(aff.params, { openDepth: 3 })) : null);
    // Keys, only from a field of this form (the tree's rows are elsewhere: no key there invokes):
    // Ctrl+Enter / Cmd+Enter invokes from any field, a select or a textarea included (Enter alone
    // is theirs: it opens the list, or starts a line); Enter alone invokes from a one-line input,
    // as a form's submit would. Escape closes the confirmation, or else goes back to the tree.
    card.addEventListener('keydown', (e) => {
      if (e.defaultPrevented || e.altKey) return;
      const t = e.target;
      const inField = !!form && t instanceof HTMLElement && form.el.contains(t) && t.matches('input, select, textarea');
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        if (!inField || e.shiftKey) return;
        e.preventDefault();
        if (!invokeBtn.disabled) invoke();
        return;
      }
      if (e.ctrlKey || e.metaKey) return;
      if (e.key === 'Escape') {
        if (!confirmRow.hidden) closeConfirm();
        else this.actions.backToTree?.();
        e.preventDefault();
      } else if (e.key === 'Enter' && inField && t.tagName === 'INPUT' && !['checkbox', 'radio', 'button', 'submit'].includes(/** @type {HTMLInputElement} */ (t).type)) {
        if (!invokeBtn.disabled) invoke();
        e.preventDefault();
      }
    });
    showLatest();
    this.cards.set(id, { refresh: showLatest });
    return card;
  }

  #taskView(taskId, ev) {
    const progress = typeof ev?.progress === 'number' ? Math.max(0, Math.min(1, ev.progress)) : null;
    return h('div', { class: 'task', 'data-task': taskId, 'data-status': ev?.status ?? 'pending' },
      h('div', { class: 'task-line' },
        h('span', { class: 'task-status', text: ev?.status ?? 'accepted' }),
        progress !== null ? h('span', { class: 'task-pct', text: `${Math.round(progress * 100)}%` }) : null,
        ev?.message ? h('span', { class: 'muted', text: ` ${ev.message}` }) : null),
      h('div', { class: 'progress' }, h('i', { style: `width:${Math.round((progress ?? 0) * 100)}%` })));
  }

  /** A core "task" event: refresh the outcomes waiting on that task. */
  onTask(ev) {
    if (!ev?.task_id) return;
    this.tasks.set(ev.task_id, ev);
    for (const [nodeKey, list] of this.outcomes) {
      for (const o of list) if (o.event?.task_id === ev.task_id) this.#changed(nodeKey, o.action);
    }
  }
}
