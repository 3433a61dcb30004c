// playground-view.js: the DOM of the Playground tab (parts/playground-pane.js drives it). At the
// top the model endpoint (a profile of Options → Agent models), the step limit and which providers;
// then the chat of one run (the task, each turn's streamed text, its tool calls as cards with the
// provider's answer or why they were refused, the questions about dangerous calls, the outcome)
// or its trace (a row per turn: what was sent, the model's time and tokens, the extension's own
// overhead, each call's versions and diff, "Show in History"); at the bottom the task box.
//
// Everything a provider, a model or an endpoint wrote is text: textContent and attribute values
// only (dom.js h()), never HTML. The view keeps one element per turn and updates it in place, so
// a streamed delta costs a text append and a <details> the user opened stays open.

import { h, setChildren } from '../../shared/dom.js';
import { clockTime } from '../../shared/time-text.js';
import { nf, bytesText, msText, tokensShort, plural, argsValue, jsonText, callStatus, refusedText, outcomeText } from './playground-text.js';

/** Paths of a call's diff listed per kind before "+N more". */
const DIFF_PATHS = 4;
/** The chat counts as "at the bottom" within this many pixels. */
const STICK_PX = 24;

/** Does a scrolling box show its end? @param {HTMLElement} el */
const atBottom = (el) => el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_PX;

/**
 * @typedef {object} ViewTurn     what the pane knows of one turn (parts/playground-pane.js)
 * @property {number} i
 * @property {object|null} sent   the 'sent' event's record
 * @property {string} text        the model's text so far
 * @property {object|null} record the whole turn ('turn' event)
 */

export class PlaygroundView {
  /** Follow the chat's end while output comes (false once the user scrolled up). */
  stick = true;
  /** @type {'chat'|'trace'} */
  mode = 'chat';
  /** @type {Map<number, {block: HTMLElement, head: HTMLElement, text: Text, textEl: HTMLElement, calls: HTMLElement, pending: HTMLElement, row: HTMLDetailsElement, rowSummary: HTMLElement, rowBody: HTMLElement}>} */
  #turns = new Map();
  /** @type {Map<string, HTMLElement>} */
  #confirms = new Map();
  #profilesSig = '';

  /**
   * @param {HTMLElement} root
   * @param {{onProfile: (id: string) => void, onSteps: () => void, onAll: (on: boolean) => void, onTask: () => void,
   *   onRun: () => void, onStop: () => void, onConfirm: (confirmId: string, allow: boolean) => void, onExport: () => void,
   *   onReplayFile: (text: string, name: string) => void, onShowInHistory: (ref: object) => void, openOptions: () => void}} hooks
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.profile = h('select', { 'data-role': 'pg-profile', 'aria-label': 'Model endpoint', onchange: () => hooks.onProfile(this.profile.value) });
    this.steps = h('input', { type: 'number', min: '1', max: '100', step: '1', 'data-role': 'pg-steps', 'aria-label': 'Step limit', title: 'The most turns (model requests) this run may take: 1 to 100', oninput: () => hooks.onSteps() });
    this.all = h('input', { type: 'checkbox', 'data-role': 'pg-all', onchange: () => hooks.onAll(this.all.checked) });
    this.allText = h('span');
    this.allLabel = h('label', { class: 'pg-check', hidden: true }, this.all, this.allText);
    this.targets = h('span', { class: 'pg-targets', 'data-role': 'pg-targets' });
    this.noProfile = h('div', { class: 'pg-noprofile', 'data-role': 'pg-no-profile', hidden: true },
      h('span', { text: 'No model endpoint yet: add one in Options → Agent models.' }),
      h('button', { type: 'button', class: 'small primary', 'data-action': 'pg-open-options', onclick: () => hooks.openOptions() }, 'Open Options'));
    this.modelRow = h('div', { class: 'pg-row' },
      h('label', { class: 'pg-field pg-model' }, h('span', { class: 'pg-label', text: 'Model' }), this.profile),
      h('label', { class: 'pg-field pg-steps' }, h('span', { class: 'pg-label', text: 'Steps' }), this.steps));
    // Which providers: shown when there is a choice (several connected); else the bar's provider it is.
    this.targetRow = h('div', { class: 'pg-row pg-target-row', hidden: true }, this.targets, this.allLabel);
    const head = h('div', { class: 'pg-head' }, this.modelRow, this.noProfile, this.targetRow);

    this.chatBtn = h('button', { type: 'button', class: 'small active', 'data-pg-view': 'chat', 'aria-pressed': 'true', onclick: () => this.showMode('chat') }, 'Chat');
    this.traceBtn = h('button', { type: 'button', class: 'small', 'data-pg-view': 'trace', 'aria-pressed': 'false', onclick: () => this.showMode('trace') }, 'Trace');
    this.exportBtn = h('button', { type: 'button', class: 'small icon-btn i-download', 'data-action': 'pg-export', disabled: true,
      title: 'Save the last run (its whole trace) as a JSON file', onclick: () => hooks.onExport() }, h('span', { class: 'pg-btn-text', text: 'Export' }));
    this.file = h('input', { type: 'file', accept: '.json,application/json', hidden: true, id: 'playground-file' });
    this.file.addEventListener('change', async () => {
      const f = this.file.files?.[0];
      this.file.value = '';
      if (f) hooks.onReplayFile(await f.text(), f.name);
    });
    this.replayBtn = h('button', { type: 'button', class: 'small icon-btn i-upload', 'data-action': 'pg-replay',
      title: 'Run an exported session again without a model: its recorded calls against the live app, each result compared with the recording',
      onclick: () => this.file.click() }, h('span', { class: 'pg-btn-text', text: 'Replay…' }));
    const bar = h('div', { class: 'pg-bar' }, h('div', { class: 'seg' }, this.chatBtn, this.traceBtn), h('span', { class: 'spacer' }), this.exportBtn, this.replayBtn, this.file);

    // Tab stops: they scroll, and the keyboard must reach what is below the fold.
    this.chat = h('div', { class: 'pg-chat', 'data-role': 'pg-chat', role: 'log', 'aria-label': 'Agent chat', tabindex: '0' });
    this.trace = h('div', { class: 'pg-trace', 'data-role': 'pg-trace', role: 'region', 'aria-label': 'Trace', hidden: true, tabindex: '0' });
    this.jump = h('button', { type: 'button', class: 'small pg-jump', hidden: true, 'data-action': 'pg-jump', onclick: () => { this.stick = true; this.#scroll(); } }, 'Latest ↓');
    this.chat.addEventListener('scroll', () => {
      this.stick = atBottom(this.chat);
      if (this.stick) this.jump.hidden = true;
    });
    const middle = h('div', { class: 'pg-middle' }, this.chat, this.trace, this.jump);

    this.task = h('textarea', { rows: '2', 'data-role': 'pg-task', 'aria-label': 'Task for the model', spellcheck: 'false',
      placeholder: 'What should the model do? (Ctrl+Enter runs)', oninput: () => hooks.onTask() });
    this.task.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey) {
        e.preventDefault();
        if (!this.runBtn.disabled && !this.runBtn.hidden) hooks.onRun();
      }
    });
    this.runBtn = h('button', { type: 'button', class: 'primary', 'data-action': 'pg-run', 'aria-keyshortcuts': 'Control+Enter Meta+Enter', onclick: () => hooks.onRun() }, 'Run');
    this.stopBtn = h('button', { type: 'button', class: 'danger', 'data-action': 'pg-stop', hidden: true, onclick: () => hooks.onStop() }, 'Stop');
    this.why = h('div', { class: 'pg-why', 'data-role': 'pg-why', 'aria-live': 'polite' });
    const compose = h('div', { class: 'pg-compose' }, h('div', { class: 'pg-compose-row' }, this.task, h('div', { class: 'pg-compose-buttons' }, this.runBtn, this.stopBtn)), this.why);

    setChildren(root, head, bar, middle, compose);
    this.clear();
  }

  // ------------------------------------------------------------------------------ controls

  /**
   * @param {{profiles: {id: string, name: string, model: string, key?: object|null}[], profileId: string|null,
   *   targets: string, allCount: number, all: boolean, running: boolean, stopping: boolean, canRun: boolean,
   *   why: string, whyInNotice?: boolean, hasTrace: boolean, canReplay: boolean, replayWhy: string, turns: number}} s
   *   whyInNotice: the no-model notice above says `why` already (shown once, not under Run too)
   */
  controls(s) {
    // The options are rebuilt only when the list changed (a rebuild would close an open dropdown).
    const sig = JSON.stringify(s.profiles.map((p) => [p.id, p.name, p.model, !!p.key]));
    if (sig !== this.#profilesSig) {
      this.#profilesSig = sig;
      setChildren(this.profile, s.profiles.map((p) => h('option', { value: p.id, text: `${p.name} · ${p.model}`,
        title: `${p.name}: ${p.model}${p.key ? '' : ' (no API key set: fine for a local server)'}` })));
    }
    if (s.profileId && this.profile.value !== s.profileId) this.profile.value = s.profileId;
    this.modelRow.hidden = s.profiles.length === 0;
    this.noProfile.hidden = s.profiles.length > 0;
    this.targets.textContent = s.targets;
    this.targets.title = s.targets;
    this.allLabel.hidden = s.allCount < 2;
    this.targetRow.hidden = s.allCount < 2;
    this.all.checked = s.all;
    this.allText.textContent = `all ${s.allCount} connected providers on this tab`;
    this.runBtn.hidden = s.running;
    this.stopBtn.hidden = !s.running;
    this.stopBtn.disabled = s.stopping;
    this.stopBtn.textContent = s.stopping ? 'Stopping…' : 'Stop';
    this.runBtn.disabled = !s.canRun;
    this.runBtn.title = s.canRun ? `${s.targets} (Ctrl+Enter in the task box)` : s.why || 'Write a task first';
    const why = s.whyInNotice ? '' : s.why;
    this.why.textContent = why;
    this.why.hidden = !why;
    this.exportBtn.disabled = !s.hasTrace;
    this.replayBtn.disabled = !s.canReplay;
    this.replayBtn.title = s.canReplay ? 'Run an exported session again without a model: its recorded calls against the live app, each result compared with the recording' : s.replayWhy;
    this.traceBtn.textContent = s.turns ? `Trace (${s.turns})` : 'Trace';
  }

  /** @returns {string} */
  taskText() {
    return this.task.value;
  }

  /** The step limit typed, or null when it is not a whole number from 1 to 100. */
  stepLimit() {
    const v = this.steps.value.trim();
    const n = Number(v);
    return v && Number.isInteger(n) && n >= 1 && n <= 100 ? n : null;
  }

  /** @param {number} n */
  setStepLimit(n) {
    this.steps.value = String(n);
  }

  focusTask() {
    this.task.focus();
  }

  /** @param {'chat'|'trace'} mode */
  showMode(mode) {
    this.mode = mode;
    this.chat.hidden = mode !== 'chat';
    this.trace.hidden = mode !== 'trace';
    this.chatBtn.classList.toggle('active', mode === 'chat');
    this.traceBtn.classList.toggle('active', mode === 'trace');
    this.chatBtn.setAttribute('aria-pressed', String(mode === 'chat'));
    this.traceBtn.setAttribute('aria-pressed', String(mode === 'trace'));
    this.jump.hidden = true;
    if (mode === 'chat' && this.stick) this.#scroll();
  }

  // -------------------------------------------------------------------------------- a run

  /** No run yet: what the playground does, in a few words. */
  clear() {
    this.#turns.clear();
    this.#confirms.clear();
    this.stick = true;
    this.jump.hidden = true;
    setChildren(this.chat, h('div', { class: 'pg-intro', 'data-role': 'pg-intro' },
      h('p', { text: 'Give a real model a task on this app. It gets what the Agent tab shows (the state as text, the actions as tools), calls them through the extension like any invoke, and every step lands in the Trace.' }),
      h('p', { class: 'muted', text: 'Dangerous actions wait for your answer. Nothing is retried without you; the API key stays in the extension’s worker.' })));
    setChildren(this.trace, h('p', { class: 'muted pg-trace-empty', text: 'No run yet: each turn of a run gets a row here (what was sent, the model’s time and tokens, the extension’s overhead, each call’s diff).' }));
  }

  /**
   * A new run: the chat and the trace start over with the task.
   * @param {{kind: 'run'|'replay', task: string, fileName?: string, label: string}} run
   */
  start(run) {
    this.#turns.clear();
    this.#confirms.clear();
    this.stick = true;
    this.jump.hidden = true;
    setChildren(this.chat, h('div', { class: 'pg-msg pg-user', 'data-role': 'pg-task-msg' },
      h('div', { class: 'pg-who' }, h('span', { text: run.kind === 'replay' ? `Replay of ${run.fileName ?? 'a session'}` : 'You' }),
        h('span', { class: 'muted', text: run.label })),
      h('div', { class: 'pg-user-text', text: run.task || '(no task)' })),
    h('div', { class: 'pg-status', 'data-role': 'pg-starting' }, h('span', { class: 'spinner' }), h('span', { text: run.kind === 'replay' ? 'Starting the replay…' : 'Starting…' })));
    this.traceHead = h('div', { class: 'pg-trace-head', 'data-role': 'pg-trace-head' });
    setChildren(this.trace, this.traceHead);
    this.#scroll();
  }

  /** The trace's heading: the outcome first, then model, endpoint, providers, limits. @param {object} info */
  traceInfo(info) {
    if (!this.traceHead) return;
    const replayOf = info.replayOf ?? null;
    const at = Date.parse(info.startedAt ?? '');
    const o = info.outcome ? outcomeText(info) : null;
    const [model, endpoint] = replayOf
      ? ['Replay', `of a run of ${replayOf.model ?? 'a model'}: its ${plural(replayOf.turns ?? 0, 'recorded reply', 'recorded replies')}, no model asked`]
      : [info.model ?? '', info.endpoint?.baseUrl ? `at ${info.endpoint.baseUrl} (${info.endpoint.kind === 'ollama' ? 'Ollama' : 'OpenAI-compatible'})` : ''];
    const who = [model, endpoint].filter(Boolean).join(' ');
    const where = [info.providers?.length ? `on ${info.providers.map((p) => p?.name ?? p?.id ?? '?').join(', ')}` : null,
      Number.isFinite(at) ? `started ${clockTime(at)}` : null].filter(Boolean).join(' · ');
    setChildren(this.traceHead,
      o ? h('div', { class: `pg-trace-outcome o-${info.outcome}`, 'data-role': 'pg-trace-outcome' }, h('strong', { text: o.title }), ` ${o.detail}`) : null,
      who || where ? h('div', { class: 'pg-trace-run' }, model ? h('span', { class: 'pg-trace-model', text: model }) : null, endpoint ? ` ${endpoint}` : null, where ? h('span', { class: 'muted', text: `${who ? ' · ' : ''}${where}` }) : null) : null,
      Number.isFinite(info.maxSteps) ? h('div', { class: 'muted', text: `At most ${plural(info.maxSteps, 'step')} · state budget ${bytesText(info.maxStateBytes)} · at most ${nf.format(info.maxTools)} tools` }) : null);
  }

  /** @param {number} i @returns {NonNullable<ReturnType<PlaygroundView['turnEls']>>} */
  #turn(i) {
    let t = this.#turns.get(i);
    if (t) return t;
    this.chat.querySelector('[data-role="pg-starting"]')?.remove();
    const text = document.createTextNode('');
    const textEl = h('div', { class: 'pg-text', 'data-role': 'pg-text' }, text);
    const head = h('div', { class: 'pg-who' }, h('span', { text: 'Model' }), h('span', { class: 'muted', text: `turn ${i}` }),
      h('span', { class: 'pg-live', 'data-role': 'pg-live' }, h('span', { class: 'spinner' }), h('span', { text: 'waiting for the model…' })));
    const calls = h('div', { class: 'pg-calls', 'data-role': 'pg-calls' });
    const pending = h('div', { class: 'pg-pending' });
    // The questions asked in the turn stay above its calls' cards, answered in a line.
    const block = h('div', { class: 'pg-msg pg-model', 'data-turn': String(i) }, head, textEl, pending, calls);
    // Before the outcome, if it is already there (it never is; kept in order anyway).
    const outcome = this.chat.querySelector('.pg-outcome');
    this.chat.insertBefore(block, outcome);
    const rowSummary = h('summary', { class: 'pg-tsum' });
    const rowBody = h('div', { class: 'pg-tbody' });
    const row = h('details', { class: 'pg-tturn', 'data-turn': String(i), open: true }, rowSummary, rowBody);
    this.trace.append(row);
    t = { block, head, text, textEl, calls, pending, row, rowSummary, rowBody };
    this.#turns.set(i, t);
    return t;
  }

  /** The elements of turn i, if shown. @param {number} i */
  turnEls(i) {
    return this.#turns.get(i) ?? null;
  }

  /** A request of turn i is on its way. @param {ViewTurn} turn @param {object} ctx what the trace row needs */
  turnSent(turn, ctx) {
    const t = this.#turn(turn.i);
    this.#traceRow(t, turn, ctx);
    this.#changed();
  }

  /** Streamed text of turn i. @param {ViewTurn} turn @param {string} text */
  turnDelta(turn, text) {
    const t = this.#turn(turn.i);
    t.text.appendData(text);
    t.textEl.classList.add('has-text');
    this.#live(t, 'writing…');
    this.#changed();
  }

  /** What turn t waits for now, beside its heading. @param {{head: HTMLElement}} t @param {string} text */
  #live(t, text) {
    const live = t.head.querySelector('[data-role="pg-live"] span:last-child');
    if (live) live.textContent = text;
  }

  /**
   * A dangerous call waits for the user's answer: a card in the chat, Cancel focused (only when
   * the focus is in the playground or nowhere: a key meant for the tree never lands on it).
   * @param {{confirmId: string, call: object, turnI: number|null, answer: string|null}} c
   * @param {{providerName: string|null}} o
   */
  addConfirm(c, { providerName }) {
    const call = c.call ?? {};
    const cancel = h('button', { type: 'button', 'data-action': 'pg-confirm-cancel', onclick: () => this.hooks.onConfirm(c.confirmId, false) }, 'Cancel');
    const run = h('button', { type: 'button', class: 'danger-solid', 'data-action': 'pg-confirm-run', onclick: () => this.hooks.onConfirm(c.confirmId, true) }, 'Run it');
    const card = h('div', { class: 'pg-confirm', role: 'alertdialog', 'aria-label': `The model wants to run ${call.action} on ${call.path} (dangerous)`,
      'data-confirm': c.confirmId, 'data-state': 'waiting', tabindex: '-1' },
    h('div', { class: 'pg-confirm-text' }, 'The model wants to run ', h('code', { text: String(call.action ?? '?') }), ' on ', h('code', { text: String(call.path ?? '?') }), ' (dangerous)'),
    providerName ? h('div', { class: 'muted small', text: `on ${providerName}` }) : null,
    h('div', { class: 'pg-confirm-detail' },
      call.description ? h('div', { class: 'pg-confirm-desc', text: String(call.description) }) : null,
      h('div', { class: 'pg-confirm-tool' }, h('code', { text: String(call.name ?? 'tool') }), h('span', { class: 'muted', text: ' with the arguments' })),
      h('pre', { class: 'pg-json', 'data-role': 'pg-confirm-params', text: jsonText(argsValue({ arguments: call.arguments, parsed: call.params ?? {} })) })),
    h('div', { class: 'confirm-buttons', 'data-role': 'pg-confirm-buttons' }, cancel, run),
    h('div', { class: 'pg-confirm-answer', 'data-role': 'pg-confirm-answer', hidden: true }));
    // Enter (anywhere in the card but on "Run it") and Escape answer Cancel.
    card.addEventListener('keydown', (e) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === 'Escape' || (e.key === 'Enter' && e.target !== run)) {
        e.preventDefault();
        if (card.dataset.state === 'waiting') this.hooks.onConfirm(c.confirmId, false);
      }
    });
    this.#confirms.set(c.confirmId, card);
    const turn = c.turnI !== null ? this.#turn(c.turnI) : null;
    if (turn) this.#live(turn, 'waiting for your answer…');
    (turn?.pending ?? this.chat).append(card);
    const active = document.activeElement;
    if (!active || active === document.body || this.root.contains(active)) cancel.focus({ preventScroll: true });
    this.stick = true;
    this.#changed();
  }

  /**
   * The answer is given (or the question went away): the card says what was chosen.
   * @param {{confirmId: string, answer: string|null, error?: string|null}} c
   */
  confirmAnswered(c) {
    const card = this.#confirms.get(c.confirmId);
    if (!card) return;
    const had = card.contains(document.activeElement);
    const text = c.answer === 'allow' ? 'You chose Run it: the call was sent.'
      : c.answer === 'cancel' ? 'You chose Cancel: nothing was sent; the model is told it was refused.'
        : c.answer === 'gone' ? 'Not answered: the run ended before an answer (nothing was sent).'
          : c.error ? `The answer did not reach the extension: ${c.error}` : '';
    card.dataset.state = c.answer ?? 'waiting';
    // Answered, the card folds to the question and the choice; the call's card below has the rest.
    for (const el of card.querySelectorAll('[data-role="pg-confirm-buttons"], .pg-confirm-detail')) /** @type {HTMLElement} */ (el).hidden = !!c.answer;
    const ans = /** @type {HTMLElement} */ (card.querySelector('[data-role="pg-confirm-answer"]'));
    ans.textContent = text;
    ans.hidden = !text;
    // The focus stays on the card (not on the next button, nor lost): a second Enter does nothing.
    if (had && c.answer) card.focus({ preventScroll: true });
    const turn = [...this.#turns.values()].find((t) => t.pending.contains(card));
    if (turn && (c.answer === 'allow' || c.answer === 'cancel')) this.#live(turn, 'running the calls…');
    this.#changed();
  }

  /**
   * Turn i ended: its text as the model gave it, its calls as cards.
   * @param {ViewTurn} turn
   * @param {{final: boolean, replay: boolean, providerName: (id: string|null|undefined) => string|null,
   *   confirms: {call: object, answer: string|null}[]}} ctx
   * @param {object} traceCtx what the trace row needs
   */
  turnDone(turn, ctx, traceCtx) {
    const t = this.#turn(turn.i);
    const rec = turn.record;
    t.head.querySelector('[data-role="pg-live"]')?.remove();
    const text = rec.reply?.text ?? turn.text ?? '';
    if (t.text.data !== text) t.text.data = text;
    t.textEl.classList.toggle('has-text', !!text);
    const toolCalls = rec.reply?.toolCalls ?? [];
    const final = ctx.final && !toolCalls.length;
    t.block.classList.toggle('pg-final', final);
    if (final && !text) t.text.data = '(the model answered with no text)';
    if (final) t.head.firstElementChild.textContent = 'Answer';
    const byId = new Map((rec.calls ?? []).map((c) => [c.id, c]));
    setChildren(t.calls, toolCalls.map((tc) => this.#callCard(tc, byId.get(tc.id) ?? null, ctx)));
    this.#traceRow(t, turn, traceCtx);
    this.#changed();
  }

  /** One tool call: name, target, arguments, then the result or why not. */
  #callCard(tc, call, ctx) {
    const status = callStatus(call);
    const replay = call?.replay;
    const args = tc.parsed !== undefined ? jsonText(argsValue(tc)) : String(tc.arguments ?? '');
    const target = call?.path ? `${call.path} · ${call.action}` : null;
    const provider = call?.provider ? ctx.providerName(call.provider) : null;
    const confirmLine = call?.confirmed === true ? 'Dangerous: you chose Run it.' : null;
    return h('div', { class: 'pg-call', 'data-call': tc.id, 'data-status': status, 'data-replay': replay ? (replay.same ? 'same' : 'differs') : null },
      h('div', { class: 'pg-call-head' },
        h('code', { class: 'pg-tool', text: tc.name || '(no name)' }),
        h('span', { class: `pill pg-pill s-${status}`, 'data-role': 'pg-call-status', text: status.replace('-', ' ') }),
        replay ? h('span', { class: `chip pg-replay ${replay.same ? 'same' : 'differs'}`, 'data-role': 'pg-replay', text: replay.same ? 'same as recorded' : 'differs from the recording' }) : null),
      target ? h('div', { class: 'pg-target mono', text: provider ? `${target} · on ${provider}` : target }) : null,
      // Short arguments on one line; long ones in a box that folds.
      args.length <= 60 && !args.includes('\n')
        ? h('div', { class: 'pg-args-inline' }, h('span', { class: 'muted', text: 'arguments ' }), h('code', { text: args || '(none)' }))
        : h('details', { class: 'pg-args', open: args.length <= 400 }, h('summary', { text: 'arguments' }), h('pre', { class: 'pg-json', text: args })),
      confirmLine ? h('div', { class: 'pg-confirmed', text: confirmLine }) : null,
      this.#resultEl(call, status),
      replay && !replay.same ? h('div', { class: 'pg-recorded' }, h('div', { class: 'pg-label', text: 'recorded result' }), h('pre', { class: 'pg-json', text: jsonText(replay.recorded) })) : null);
  }

  #resultEl(call, status) {
    if (!call) return h('div', { class: 'pg-result muted', text: 'Not run: the turn ended before this call.' });
    if (call.refused) return h('div', { class: 'pg-result pg-refused', 'data-role': 'pg-refused', text: refusedText(call.refused) });
    if (call.pending) return h('div', { class: 'pg-result muted', text: 'Sent; the run stopped before the provider answered.' });
    const r = call.result ?? {};
    if (status === 'error' || r.error) {
      return h('div', { class: 'pg-result pg-error', 'data-role': 'pg-result' },
        h('span', { text: 'error ' }), h('code', { text: String(r.error?.code ?? '') }), h('span', { text: r.error?.message ? `: ${r.error.message}` : '' }));
    }
    if (status === 'accepted') {
      return h('div', { class: 'pg-result', 'data-role': 'pg-result' }, h('span', { text: `accepted${r.task_id ? ` · task ${r.task_id}` : ''}: it goes on in the provider` }),
        r.data !== undefined ? h('pre', { class: 'pg-json', text: jsonText(r.data) }) : null);
    }
    if (status !== 'ok') return h('div', { class: 'pg-result pg-error', 'data-role': 'pg-result', text: `${status}${r.message ? `: ${r.message}` : ''}` });
    return h('div', { class: 'pg-result', 'data-role': 'pg-result' },
      h('span', { class: 'muted', text: call.versionBefore != null && call.versionAfter != null ? `ok · v${call.versionBefore} → v${call.versionAfter}` : 'ok' }),
      r.data !== undefined ? h('pre', { class: 'pg-json', text: jsonText(r.data) }) : null);
  }

  /**
   * The turn's trace row: the summary line and what was sent, the model's time and tokens, the
   * overhead, each call with its versions, diff and a way into the History.
   * @param {ReturnType<PlaygroundView['turnEls']>} t @param {ViewTurn} turn
   * @param {{providerName: (id: string|null|undefined) => string|null, history: (call: object) => {state: 'link'|'dropped'|'none', text?: string}}} ctx
   */
  #traceRow(t, turn, ctx) {
    const sent = turn.sent ?? turn.record?.sent ?? null;
    const rec = turn.record;
    const timing = rec?.timing ?? null;
    const usage = rec?.usage ?? null;
    // The extension's own time: building the request, routing the calls, and the trace's diffs.
    const overhead = timing ? (timing.buildMs ?? 0) + (timing.routeMs ?? 0) + (timing.traceMs ?? 0) : null;
    setChildren(t.rowSummary,
      h('span', { class: 'pg-tnum', text: `Turn ${turn.i}` }),
      sent ? h('span', { class: 'pg-tfact', text: `${bytesText(sent.stateBytes)} state · ${sent.toolsCut ? `${nf.format(sent.tools)} of ${nf.format(sent.toolsTotal)}` : nf.format(sent.tools)} tools` }) : null,
      timing ? h('span', { class: 'pg-tfact', text: `model ${msText(timing.modelMs)}` }) : h('span', { class: 'pg-tfact muted', text: 'waiting…' }),
      usage?.totalTokens != null ? h('span', { class: 'pg-tfact', text: `${nf.format(usage.totalTokens)} tokens` }) : null,
      overhead !== null ? h('span', { class: 'pg-tfact muted', title: 'The extension’s own time: building the request, routing the calls, the diffs', text: `extension +${msText(overhead)}` }) : null,
      rec?.calls?.length ? h('span', { class: 'pg-tfact', text: plural(rec.calls.length, 'call') }) : null);

    const rows = [];
    const row = (label, ...value) => rows.push(h('div', { class: 'pg-tline' }, h('span', { class: 'pg-tlabel', text: label }), h('span', { class: 'pg-tvalue' }, ...value)));
    if (sent) {
      row('Sent', `${bytesText(sent.stateBytes)} of state (~${tokensShort(sent.stateTokensEst)} tokens), ${sent.toolsCut ? `${nf.format(sent.tools)} of ${nf.format(sent.toolsTotal)}` : nf.format(sent.tools)} tools, ${plural(sent.messages, 'message')}; request ${bytesText(sent.bodyBytes)}`);
      if (sent.stateCut) row('', h('span', { class: 'pg-warn', 'data-role': 'pg-state-cut', text: `state cut to fit: ${nf.format(sent.nodesLeftOut ?? 0)} nodes left out` }));
      if (sent.toolsCut) row('', h('span', { class: 'pg-warn', 'data-role': 'pg-tools-cut', text: `tools cut to fit: ${nf.format(sent.tools)} of ${nf.format(sent.toolsTotal)} offered; the others cannot be called` }));
    }
    if (rec) {
      const u = usage
        ? [usage.promptTokens != null ? `${nf.format(usage.promptTokens)} in` : null, usage.completionTokens != null ? `${nf.format(usage.completionTokens)} out` : null,
          usage.totalTokens != null ? `${nf.format(usage.totalTokens)} tokens` : null].filter(Boolean).join(' · ')
        : 'no token counts reported';
      row('Model', `${msText(timing?.modelMs)} · ${u}${rec.reply?.finish ? ` · finish: ${rec.reply.finish}` : ''}`);
      row('Extension', `${msText(overhead)} (building the request ${msText(timing?.buildMs)}, routing ${msText(timing?.routeMs)}${Number.isFinite(timing?.traceMs) ? `, diffs ${msText(timing.traceMs)}` : ''})`);
      const waits = [timing?.invokeMs ? `provider ${msText(timing.invokeMs)}` : null, timing?.confirmMs ? `your answer ${msText(timing.confirmMs)}` : null].filter(Boolean);
      if (waits.length) row('Waited', waits.join(' · '));
      row('Turn', msText(rec.ms));
    } else {
      row('Model', h('span', { class: 'muted', text: 'waiting for the answer…' }));
    }
    const calls = rec?.calls ?? [];
    setChildren(t.rowBody, rows, calls.length ? h('div', { class: 'pg-tcalls' }, calls.map((c) => this.#traceCall(c, ctx))) : null);
  }

  #traceCall(c, ctx) {
    const status = callStatus(c);
    const provider = c.provider ? ctx.providerName(c.provider) : null;
    const d = c.diff;
    const paths = (list, sign, cls) => (Array.isArray(list) && list.length
      ? h('div', { class: `pg-diff ${cls}` }, h('span', { class: 'pg-diff-sign', text: `${sign} ${cls}` }),
        h('span', { class: 'pg-diff-paths', text: list.slice(0, DIFF_PATHS).join(', ') + (list.length > DIFF_PATHS ? ` (+${nf.format(list.length - DIFF_PATHS)} more)` : '') }))
      : null);
    const hist = ctx.history(c);
    const more = d?.more ? h('div', { class: 'pg-diff muted', text: `+${nf.format(d.more)} more paths` }) : null;
    const noChange = d && !d.unavailable && !d.added?.length && !d.removed?.length && !d.changed?.length && !d.more;
    return h('div', { class: 'pg-tcall', 'data-call': c.id, 'data-status': status },
      h('div', { class: 'pg-tcall-head' },
        h('code', { class: 'pg-tool', text: c.name || '(no name)' }),
        h('span', { class: `pill pg-pill s-${status}`, text: status.replace('-', ' ') }),
        c.versionBefore != null || c.versionAfter != null
          ? h('span', { class: 'pg-versions mono', 'data-role': 'pg-versions', text: `v${c.versionBefore ?? '?'} → v${c.versionAfter ?? '?'}` }) : null,
        c.replay ? h('span', { class: `chip pg-replay ${c.replay.same ? 'same' : 'differs'}`, text: c.replay.same ? 'same' : 'differs' }) : null),
      c.path ? h('div', { class: 'pg-target mono', text: `${c.path} · ${c.action}${provider ? ` · on ${provider}` : ''}` }) : null,
      c.refused ? h('div', { class: 'pg-refused small', text: refusedText(c.refused) }) : null,
      d?.unavailable ? h('div', { class: 'pg-diff muted', text: `no diff: ${d.unavailable}` }) : null,
      d && !d.unavailable ? h('div', { class: 'pg-diffs', 'data-role': 'pg-diff' }, paths(d.added, '+', 'added'), paths(d.removed, '−', 'removed'), paths(d.changed, '~', 'changed'), more,
        noChange ? h('div', { class: 'pg-diff muted', text: 'no change to the state' }) : null) : null,
      hist.state === 'link'
        ? h('button', { type: 'button', class: 'link small', 'data-action': 'pg-show-history', title: hist.text ?? '', onclick: () => this.hooks.onShowInHistory(c) }, 'Show in History')
        : hist.state === 'dropped' ? h('div', { class: 'muted small', 'data-role': 'pg-history-dropped', text: hist.text ?? 'These steps were dropped from the history.' }) : null);
  }

  /** Re-draws the trace rows (the history dropped steps, or loaded): the rows keep their open state. @param {ViewTurn[]} turns @param {object} ctx */
  refreshTrace(turns, ctx) {
    for (const turn of turns) {
      const t = this.#turns.get(turn.i);
      if (t) this.#traceRow(t, turn, ctx);
    }
  }

  /**
   * The run ended. `outcome`: {title, detail, kind} in words.
   * @param {{title: string, detail: string, kind: string}} outcome
   */
  outcome(outcome) {
    this.chat.querySelector('[data-role="pg-starting"]')?.remove();
    for (const t of this.#turns.values()) t.head.querySelector('[data-role="pg-live"]')?.remove();
    this.chat.querySelector('.pg-outcome')?.remove();
    this.chat.append(h('div', { class: 'pg-outcome', 'data-outcome': outcome.kind, 'data-role': 'pg-outcome' },
      h('strong', { text: outcome.title }), outcome.detail ? h('span', { 'data-role': 'pg-outcome-detail', text: ` ${outcome.detail}` }) : null));
    this.#changed();
  }

  /** Stop was pressed: the live line says so until the run ends. */
  stopping() {
    for (const t of this.#turns.values()) this.#live(t, 'stopping…');
  }

  /** After output was added: follow the end, or offer to jump there. */
  #changed() {
    if (this.mode !== 'chat') return;
    if (this.stick) this.#scroll();
    else this.jump.hidden = false;
  }

  #scroll() {
    this.chat.scrollTop = this.chat.scrollHeight;
  }
}
