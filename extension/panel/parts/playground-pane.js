// playground-pane.js: the Playground tab. A real model does a task on the tab's provider(s)
// through the extension: the service worker runs the agent loop (js-glue/agent.js runAgent, in
// service-worker/agent-requests.js) with the profile's key, which never reaches this page; the
// panel asks (Request.AGENT_RUN, AGENT_REPLAY, AGENT_STOP, AGENT_CONFIRM) and shows what the run
// does as it comes (Push.AGENT: 'sent', 'delta', 'confirm', 'turn', 'done'), in a chat and a trace
// (views/playground-view.js).
//
// One run at a time per panel (the worker refuses a second one on the port; the Run button is gone
// while one runs). The run belongs to the port: a worker that restarts ends it, and the panel
// says so. The profiles are the options page's (settings-store.js listAgentProfiles: names,
// models, whether a key is set, never a key), read again whenever storage changes.

import { Request, Status, ErrorCode } from '../../shared/messages.js';
import { onStorageChanged, openOptionsPage } from '../../shared/browser.js';
import { listAgentProfiles, askOptionsSection, KEYS } from '../../shared/settings-store.js';
import { sessionText } from '../../../js-glue/agent.js';
import { statusLabel, providerTitle } from '../../shared/status-text.js';
import { download, fileName } from '../export.js';
import { PlaygroundView } from '../views/playground-view.js';
import { outcomeText } from '../views/playground-text.js';

/** Why Run is off with no model endpoint (the Run button's tooltip; the head's notice says it on screen). */
const NO_MODEL = 'Add a model endpoint in Options → Agent models first.';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../bridge.js').Bridge} Bridge */
/** @typedef {import('../selection.js').Selection} Selection */
/** @typedef {import('./history-pane.js').HistoryPane} HistoryPane */
/** @typedef {import('../views/playground-view.js').ViewTurn} ViewTurn */
/** @typedef {import('../panes.js').Pane} Pane */

const DEFAULT_STEPS = 8;

/**
 * @typedef {object} Confirm   a dangerous call waiting for the user
 * @property {string} confirmId
 * @property {object} call       {name, path, action, params, description, provider}
 * @property {number|null} turnI the turn it came in
 * @property {'allow'|'cancel'|'gone'|null} answer
 * @property {string|null} [error]
 */

/**
 * @typedef {object} Run   one run as the panel knows it
 * @property {'run'|'replay'} kind
 * @property {string|null} runId   null until the worker answered
 * @property {string} task
 * @property {string[]} keys       the providers it acts on, in tab order
 * @property {Map<string, string>} keyOf   provider id (hello) → key
 * @property {Map<string, string>} nameOf  provider id → name
 * @property {string} label        "Fixture · fixture-model", or the file
 * @property {string} [fileName]
 * @property {Map<number, ViewTurn>} turns
 * @property {number|null} current the turn under way
 * @property {Map<string, Confirm>} confirms
 * @property {object|null} trace   the 'done' event's
 * @property {boolean} ended
 * @property {boolean} stopping
 * @property {{title: string, detail: string, kind: string}|null} outcome
 */

/** @implements {Pane} */
export class PlaygroundPane {
  /** @type {import('../../shared/settings-store.js').AgentProfile[]} */
  profiles = [];
  /** @type {string|null} */
  profileId = null;
  /** The profile chosen in this panel (else the default one). @type {string|null} */
  #chosen = null;
  profilesLoaded = false;
  /** Act on every connected provider of the tab, not only the shown one. */
  all = false;
  /** @type {Run|null} */
  run = null;
  /** The last run's whole trace (Export saves it). @type {object|null} */
  lastTrace = null;
  /** The last exported file's text (tests). @type {string|null} */
  lastExport = null;
  /** Pushes of a run whose AGENT_RUN answer has not come yet. @type {object[]} */
  #early = [];
  /** Steps the history no longer holds, found when the user asked for them: "key step". */
  #dropped = new Set();
  #stepsEdited = false;
  #visible = false;
  #disposed = false;

  /**
   * @param {HTMLElement} root
   * @param {{store: Store, bridge: Bridge, selection: Selection, toast: {show: (text: string) => void},
   *   attention: (on: boolean) => void,
   *   history: {pane: HistoryPane, showTab: () => void, showProvider: (key: string) => void}}} o
   */
  constructor(root, o) {
    this.o = o;
    this.view = new PlaygroundView(root, {
      onProfile: (id) => {
        this.#chosen = id;
        this.profileId = id;
        this.#stepsEdited = false;
        this.#defaultSteps();
        this.render();
      },
      onSteps: () => {
        this.#stepsEdited = true;
        this.render();
      },
      onAll: (on) => {
        this.all = on;
        this.render();
      },
      onTask: () => this.render(),
      onRun: () => this.start(),
      onStop: () => this.stop(),
      onConfirm: (id, allow) => this.answer(id, allow),
      onExport: () => this.exportSession(),
      onReplayFile: (text, name) => this.replayText(text, name),
      onShowInHistory: (call) => this.showInHistory(call),
      // On its Agent models section (a hand-off through storage: openOptionsPage takes no argument).
      openOptions: () => askOptionsSection('agent-models').catch(() => {}).then(() => openOptionsPage()),
    });
    this.view.setStepLimit(DEFAULT_STEPS);
    this.loadProfiles();
    onStorageChanged((changes, area) => {
      if (!this.#disposed && area === 'local' && [KEYS.AGENT_PROFILES, KEYS.AGENT_KEY_INDEX, KEYS.AGENT_DEFAULT].some((k) => k in changes)) this.loadProfiles();
    });
  }

  // ---------------------------------------------------------------------------- profiles

  async loadProfiles() {
    let list;
    try {
      list = await listAgentProfiles();
    } catch {
      list = { profiles: [], defaultId: null };
    }
    this.profiles = list.profiles;
    this.profilesLoaded = true;
    const has = (id) => !!id && this.profiles.some((p) => p.id === id);
    const before = this.profileId;
    this.profileId = has(this.#chosen) ? this.#chosen : has(list.defaultId) ? list.defaultId : this.profiles[0]?.id ?? null;
    if (this.profileId !== before) this.#stepsEdited = false;
    this.#defaultSteps();
    this.render();
  }

  profile() {
    return this.profiles.find((p) => p.id === this.profileId) ?? null;
  }

  /** The step limit follows the profile until the user types one. */
  #defaultSteps() {
    if (this.#stepsEdited) return;
    this.view.setStepLimit(this.profile()?.maxSteps ?? DEFAULT_STEPS);
  }

  // ------------------------------------------------------------------------------ context

  /**
   * What a run would act on, and why it cannot start (in words), from the panel's state.
   * @returns {{keys: string[], names: string[], connected: import('../../shared/messages.js').ProviderInfo[], live: string, run: string}}
   *   live: why nothing can act on the app now ('' if it can); run: why Run is off ('' if it is on)
   */
  context() {
    const { store, selection } = this.o;
    const connected = store.providers.filter((p) => p.status === Status.CONNECTED && !!p.primarySub);
    const out = { keys: [], names: [], connected, live: '', run: '' };
    if (store.bridgeState !== 'connected') {
      out.live = store.bridgeState === 'reconnecting'
        ? 'The extension’s service worker is reconnecting: the playground waits for it.'
        : 'Connecting to the extension’s service worker…';
    } else if (selection.isRecording()) {
      out.live = 'A recording is shown: the playground acts on the live app. Show a provider of this tab to run.';
    } else if (selection.isImport()) {
      out.live = 'An imported file is shown: the playground acts on the live app. Show a provider of this tab to run.';
    } else if (selection.scrub) {
      out.live = 'An earlier version is shown: the playground acts on the live app. Go back to live (Esc) to run.';
    } else if (this.all && connected.length > 1) {
      out.keys = connected.map((p) => p.key);
      out.names = connected.map((p) => providerTitle(p));
    } else {
      const p = selection.provider();
      if (!p) out.live = 'No provider on this tab: open a page that announces a SLOP provider.';
      else if (p.status !== Status.CONNECTED || !p.primarySub) {
        out.live = `“${providerTitle(p)}” is not connected (${statusLabel(p)}): the model would have nothing to act on.`;
        out.names = [providerTitle(p)];
      } else {
        out.keys = [p.key];
        out.names = [providerTitle(p)];
      }
    }
    if (this.run && !this.run.ended) out.run = '';
    else if (out.live) out.run = out.live;
    else if (!this.profilesLoaded) out.run = 'Reading the model endpoints…';
    else if (!this.profiles.length) out.run = NO_MODEL;
    else if (this.view.stepLimit() === null) out.run = 'The step limit is a whole number from 1 to 100.';
    return out;
  }

  /** The controls, from the state now (cheap: called on every change of the panel). */
  render() {
    const ctx = this.context();
    const running = !!this.run && !this.run.ended;
    const hasTask = !!this.view.taskText().trim();
    const targets = ctx.names.length
      ? `Acts on ${ctx.names.length > 1 ? `${ctx.names.length} providers: ` : ''}${ctx.names.join(', ')}`
      : 'No provider to act on';
    this.view.controls({
      profiles: this.profiles,
      profileId: this.profileId,
      targets,
      allCount: ctx.connected.length,
      all: this.all,
      running,
      stopping: !!this.run?.stopping,
      canRun: !running && !ctx.run && hasTask,
      why: running ? '' : ctx.run,
      // The head's "No model endpoint yet" notice says it already: not a second time under Run.
      whyInNotice: !running && this.profilesLoaded && !this.profiles.length && ctx.run === NO_MODEL,
      hasTrace: !!this.lastTrace,
      canReplay: !running && !ctx.live,
      replayWhy: running ? 'A run is going on' : ctx.live,
      turns: this.run?.turns.size ?? 0,
    });
  }

  /** The tab was opened: a waiting question no longer asks for a look from the tab's button. */
  shown() {
    this.#visible = true;
    this.render();
    this.#attention();
  }

  /** Another tab is shown: a waiting question asks for a look from the tab's button. */
  hidden() {
    this.#visible = false;
    this.#attention();
  }

  /** A run goes on behind another tab: its pushes are taken whether shown or not. @param {import('../panes.js').StoreChange|null} change */
  update(change) {
    if (change?.bridge) this.bridgeChanged(this.o.store.bridgeState);
    if (change?.agent.length) this.onPush(change.agent);
    if (change?.histories.size) this.historiesChanged(change.histories);
    if (!change || change.providers || change.bridge || change.imports) this.render();
  }

  /** The storage listener cannot be removed (browser.js): it does nothing from now on. */
  dispose() { this.#disposed = true; }

  // ---------------------------------------------------------------------------------- runs

  /** Run: the task in the box, on the providers chosen, with the profile chosen. */
  async start() {
    const ctx = this.context();
    const task = this.view.taskText();
    const profile = this.profile();
    const maxSteps = this.view.stepLimit();
    if ((this.run && !this.run.ended) || ctx.run || !profile || maxSteps === null) return;
    if (!task.trim()) {
      this.view.focusTask();
      return;
    }
    await this.#begin({ kind: 'run', task, keys: ctx.keys, label: `${profile.name} · ${profile.model}` },
      () => this.o.bridge.request(Request.AGENT_RUN, { keys: ctx.keys, profileId: profile.id, task, maxSteps }));
  }

  /**
   * Replay: an exported session's recorded replies against the live providers. The worker checks
   * the file; the task is read here only to show it.
   * @param {string} text @param {string} name
   */
  async replayText(text, name) {
    const ctx = this.context();
    if (this.run && !this.run.ended) return;
    if (ctx.live) {
      this.o.toast.show(`Not replayed: ${ctx.live}`);
      return;
    }
    let task = '';
    let keys = ctx.keys;
    try {
      const doc = JSON.parse(text);
      if (typeof doc?.trace?.task === 'string') task = doc.trace.task;
      // On the providers it was recorded on, when this tab has them all connected (in tab order):
      // a run on two providers named its tools after each.
      const ids = Array.isArray(doc?.trace?.providers) ? doc.trace.providers.map((p) => p?.id).filter((id) => typeof id === 'string') : [];
      const here = ctx.connected.filter((p) => ids.includes(p.provider?.id ?? ''));
      if (ids.length && here.length === ids.length) keys = here.map((p) => p.key);
    } catch { /* the worker says what is wrong with it */ }
    await this.#begin({ kind: 'replay', task, keys, label: 'recorded replies, no model', fileName: name },
      () => this.o.bridge.request(Request.AGENT_REPLAY, { keys, session: text }));
  }

  /**
   * @param {{kind: 'run'|'replay', task: string, keys: string[], label: string, fileName?: string}} meta
   * @param {() => Promise<{runId: string}>} send
   */
  async #begin(meta, send) {
    const { store } = this.o;
    const keyOf = new Map();
    const nameOf = new Map();
    for (const key of meta.keys) {
      const p = store.provider(key);
      if (p?.provider?.id) {
        keyOf.set(p.provider.id, key);
        nameOf.set(p.provider.id, providerTitle(p));
      }
    }
    /** @type {Run} */
    const run = {
      ...meta, runId: null, keyOf, nameOf, turns: new Map(), current: null, confirms: new Map(),
      trace: null, ended: false, stopping: false, outcome: null,
    };
    this.run = run;
    this.#early = [];
    this.view.start(run);
    this.view.traceInfo({ providers: meta.keys.map((k) => ({ name: providerTitle(store.provider(k) ?? { transport: { type: 'ws', url: k } }) })) });
    this.render();
    this.view.stopBtn.focus({ preventScroll: true });
    let reply;
    try {
      reply = await send();
    } catch (e) {
      if (this.run !== run) return;
      this.#end(run, { kind: 'error', title: meta.kind === 'replay' ? 'Not replayed' : 'Not started', detail: e.message });
      return;
    }
    if (this.run !== run) return;
    run.runId = reply.runId;
    // Stop pressed before the worker said which run it was.
    if (run.stopping) this.o.bridge.request(Request.AGENT_STOP, { runId: run.runId }).catch(() => {});
    const early = this.#early;
    this.#early = [];
    for (const m of early) if (m.runId === run.runId) this.#event(run, m);
    this.render();
  }

  /** Stop: the model's request is cancelled, no further call is sent; 'done' says stopped. */
  async stop() {
    const run = this.run;
    if (!run || run.ended || run.stopping) return;
    run.stopping = true;
    this.view.stopping();
    this.render();
    if (run.runId === null) return; // asked before the worker answered: stopped when it does (#begin)
    try {
      await this.o.bridge.request(Request.AGENT_STOP, { runId: run.runId });
    } catch (e) {
      // Ended meanwhile: its 'done' is on its way or here.
      if (e.code !== ErrorCode.NOT_FOUND && this.run === run && !run.ended) {
        run.stopping = false;
        this.o.toast.show(`Stop: ${e.message}`);
        this.render();
      }
    }
  }

  /** The user's answer to a dangerous call. @param {string} confirmId @param {boolean} allow */
  async answer(confirmId, allow) {
    const run = this.run;
    const c = run?.confirms.get(confirmId);
    if (!run || !c || c.answer) return;
    c.answer = allow ? 'allow' : 'cancel';
    c.error = null;
    this.view.confirmAnswered(c);
    this.#attention();
    try {
      await this.o.bridge.request(Request.AGENT_CONFIRM, { runId: run.runId, confirmId, allow });
    } catch (e) {
      c.answer = e.code === ErrorCode.NOT_FOUND ? 'gone' : null;
      c.error = e.code === ErrorCode.NOT_FOUND ? null : e.message;
      this.view.confirmAnswered(c);
      this.#attention();
    }
  }

  /**
   * Pushes of this port's runs (Push.AGENT), in order.
   * @param {object[]} msgs
   */
  onPush(msgs) {
    for (const m of msgs) {
      const run = this.run;
      if (!run || run.ended) continue;
      if (run.runId === null) this.#early.push(m);
      else if (m.runId === run.runId) this.#event(run, m);
    }
  }

  /** @param {Run} run @param {any} m */
  #event(run, m) {
    switch (m.event) {
      case 'sent': {
        const turn = this.#turn(run, m.turn);
        turn.sent = m.sent ?? null;
        run.current = turn.i;
        this.view.turnSent(turn, this.#traceCtx(run));
        this.render();
        break;
      }
      case 'delta': {
        const turn = this.#turn(run, m.turn);
        const text = String(m.text ?? '');
        turn.text += text;
        if (text) this.view.turnDelta(turn, text);
        break;
      }
      case 'confirm': {
        /** @type {Confirm} */
        const c = { confirmId: m.confirmId, call: m.call ?? {}, turnI: run.current, answer: null };
        run.confirms.set(c.confirmId, c);
        this.view.addConfirm(c, { providerName: run.keys.length > 1 ? (m.call?.provider?.name ?? null) : null });
        this.#attention();
        break;
      }
      case 'turn': {
        const rec = m.turn ?? {};
        const turn = this.#turn(run, rec.i);
        turn.record = rec;
        turn.sent = rec.sent ?? turn.sent;
        this.view.turnDone(turn, this.#chatCtx(run, false), this.#traceCtx(run));
        this.render();
        break;
      }
      case 'done':
        this.#done(run, m.trace ?? null);
        break;
      default:
        break;
    }
  }

  /** @param {Run} run @param {number} i @returns {ViewTurn} */
  #turn(run, i) {
    let t = run.turns.get(i);
    if (!t) {
      t = { i, sent: null, text: '', record: null };
      run.turns.set(i, t);
    }
    return t;
  }

  /** @param {Run} run @param {object|null} trace */
  #done(run, trace) {
    if (!trace) {
      this.#end(run, { kind: 'error', title: 'Ended', detail: 'The run ended without a trace.' });
      return;
    }
    run.trace = trace;
    this.lastTrace = trace;
    // Turns whose 'turn' push did not come (a stopped one) come from the trace.
    for (const rec of trace.turns ?? []) {
      const turn = this.#turn(run, rec.i);
      if (turn.record !== rec) {
        turn.record = rec;
        turn.sent = rec.sent ?? turn.sent;
      }
    }
    const last = trace.turns?.at(-1)?.i;
    for (const turn of run.turns.values()) {
      if (turn.record) this.view.turnDone(turn, this.#chatCtx(run, trace.outcome === 'answered' && turn.i === last), this.#traceCtx(run));
    }
    this.view.traceInfo(trace);
    const o = outcomeText(trace);
    this.#end(run, { kind: trace.outcome ?? 'error', title: o.title, detail: o.detail });
  }

  /** @param {Run} run @param {{kind: string, title: string, detail: string}} outcome */
  #end(run, outcome) {
    run.ended = true;
    run.stopping = false;
    run.outcome = outcome;
    for (const c of run.confirms.values()) {
      if (!c.answer) {
        c.answer = 'gone';
        this.view.confirmAnswered(c);
      }
    }
    this.#attention();
    this.view.outcome(outcome);
    // Stop goes away with the run: the focus it had goes to the task box (never to Run).
    const hadFocus = this.view.stopBtn.contains(document.activeElement);
    this.render();
    if (hadFocus) this.view.focusTask();
  }

  /** The port changed: a worker that stopped took the run with it. @param {string} state */
  bridgeChanged(state) {
    const run = this.run;
    if (state !== 'connected' && run && !run.ended) {
      this.#end(run, { kind: 'lost', title: 'Ended', detail: 'The connection to the extension’s service worker was lost, and the run with it (a run belongs to this panel’s connection). What it did until then is shown above; nothing more will be sent.' });
    }
    this.render();
  }

  /** The tab's button asks for a look while a question waits and the tab is not shown. */
  #attention() {
    const waiting = !!this.run && [...this.run.confirms.values()].some((c) => !c.answer);
    this.o.attention(waiting && !this.#visible);
  }

  /** @param {Run} run @param {boolean} final */
  #chatCtx(run, final) {
    return {
      final,
      replay: run.kind === 'replay',
      providerName: (id) => (id ? run.nameOf.get(id) ?? id : null),
      confirms: [...run.confirms.values()],
    };
  }

  /** What a trace row needs: provider names, and whether a call's steps are still in the history. @param {Run} run */
  #traceCtx(run) {
    return {
      providerName: (id) => (id ? run.nameOf.get(id) ?? id : null),
      history: (call) => this.#historyRef(run, call),
    };
  }

  /** The provider key a call acted on. @param {Run} run @param {object} call */
  #keyOfCall(run, call) {
    if (typeof call.key === 'string' && run.keys.includes(call.key)) return call.key;
    if (call.provider) return run.keyOf.get(call.provider) ?? null;
    return run.keys.length === 1 ? run.keys[0] : null;
  }

  /** @param {Run} run @param {any} call @returns {{state: 'link'|'dropped'|'none', text?: string}} */
  #historyRef(run, call) {
    if (!Number.isInteger(call.stepAfter)) return { state: 'none' };
    const key = this.#keyOfCall(run, call);
    if (!key) return { state: 'none' };
    const steps = this.o.store.histories.get(key)?.steps;
    const first = steps?.[0]?.step;
    if (this.#dropped.has(`${key} ${call.stepAfter}`) || (Number.isInteger(first) && call.stepAfter < first)) {
      return { state: 'dropped', text: `The history no longer holds step ${call.stepAfter} (it keeps the newest steps within its bound): nothing to show.` };
    }
    return { state: 'link', text: Number.isInteger(call.stepBefore) ? `Step ${call.stepAfter}, compared with step ${call.stepBefore} (before the call)` : `Step ${call.stepAfter}` };
  }

  /** The history changed (steps added or dropped at its bound): the trace's links follow. @param {Set<string>} keys */
  historiesChanged(keys) {
    const run = this.run;
    if (!run || !run.keys.some((k) => keys.has(k))) return;
    this.view.refreshTrace([...run.turns.values()], this.#traceCtx(run));
  }

  /**
   * "Show in History": the History tab on the state after the call, its diff against the step
   * before the call (the two pinned), or only the step after when the one before is gone.
   * @param {any} call @returns {Promise<'shown'|'dropped'|'error'>}
   */
  async showInHistory(call) {
    const run = this.run;
    if (!run) return 'error';
    const key = this.#keyOfCall(run, call);
    const { store, bridge, selection, history, toast } = this.o;
    if (!key || !Number.isInteger(call.stepAfter)) return 'error';
    if (!store.provider(key)) {
      toast.show('That provider is no longer on this tab.');
      return 'error';
    }
    if (selection.key !== key) history.showProvider(key);
    let r;
    try {
      r = await bridge.request(Request.HISTORY, { key });
    } catch (e) {
      toast.show(`History: ${e.message}`);
      return 'error';
    }
    store.setHistory(key, r);
    const have = new Set((r.steps ?? []).map((s) => s.step));
    if (!have.has(call.stepAfter)) {
      this.#dropped.add(`${key} ${call.stepAfter}`);
      this.view.refreshTrace([...run.turns.values()], this.#traceCtx(run));
      toast.show(`Step ${call.stepAfter} was dropped from the history at its bound: nothing to show.`);
      return 'dropped';
    }
    const before = call.stepBefore;
    history.showTab();
    history.pane.pins = Number.isInteger(before) && before !== call.stepAfter && have.has(before) ? [before, call.stepAfter] : [];
    history.pane.select(call.stepAfter);
    return 'shown';
  }

  // ------------------------------------------------------------------------------- export

  /** Export: the last run's trace as a file (the key is not in it: the trace never holds one). */
  exportSession() {
    const trace = this.lastTrace;
    if (!trace) return;
    const text = sessionText(trace);
    this.lastExport = text;
    const day = String(trace.startedAt ?? '').slice(0, 19).replace(/[:T]/g, '-');
    download(text, fileName('slop-agent', trace.providers?.[0]?.id ?? 'session', day));
    this.o.toast.show(`Saved the session: ${trace.turns?.length ?? 0} turns`);
  }
}
