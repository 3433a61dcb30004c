// notices.js: what the panel says instead of the tree, or above it. The empty-state cards (no tab,
// no provider on the page, connecting, waiting for approval, refused, unreachable, protocol error:
// each says what to do next) and the banner (import refused, viewing an earlier version, an
// imported file, the last known state of a provider that is not live), and the alert that says a
// new connection error to a screen reader (the banner is not a live region: it repeats the
// countdown every second; the bar's #status-live says the state).

import { Request, Status } from '../../shared/messages.js';
import { openOptionsPage } from '../../shared/browser.js';
import { askTokenFor } from '../../shared/settings-store.js';
import { h, setChildren } from '../../shared/dom.js';
import { statusLabel, statusParts, syncText, providerTitle, transportText, canRetryNow } from '../../shared/status-text.js';
import { SubscriptionState } from '../../../js-glue/core-contract.js';
import { clockTime } from '../../shared/time-text.js';
import { boundText } from '../views/history-view.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../bridge.js').Bridge} Bridge */
/** @typedef {import('../selection.js').Selection} Selection */

/** What a history boundary after the viewed step means, in words (timeline.js boundary kinds). */
const BOUNDARY_WORDS = {
  restart: 'the provider restarted',
  provider: 'a different provider took over this address',
  reload: 'the page was loaded again',
  worker: 'the extension restarted',
};
const listWords = (xs) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);


function stateCard(title, text, ...actions) {
  return [h('div', { class: 'state-card' },
    h('h2', { text: title }),
    ...(Array.isArray(text) ? text : [text]).map((t) => (typeof t === 'string' ? h('p', { text: t }) : t)),
    actions.length ? h('div', { class: 'state-actions' }, actions) : null)];
}

/** Statuses said in the alert when they come: the connection failed, not merely dropped. */
/** @type {string[]} */
const ALERTS = [Status.AUTH_FAILED, Status.UNREACHABLE, Status.ERROR];

export class Notices {
  /** The error the alert said last (the same one is not said again until the provider is live). */
  #alerted = null;

  /**
   * @param {{empty: HTMLElement, main: HTMLElement, banner: HTMLElement, alert: HTMLElement}} els
   * @param {{store: Store, selection: Selection,
   *          bridge: Bridge, tabId: number|null, toast: {show: (text: string) => void},
   *          importError: () => string|null, dismissImportError: () => void, backToLive: () => void,
   *          closeImport: (key: string) => void, closeRecording: (key: string) => void, openImport: () => void,
   *          conformanceShown: () => boolean, openLocalApps?: () => void}} o  conformanceShown: the user opened the findings of a provider without a tree
   */
  constructor(els, o) {
    this.els = els;
    this.o = o;
  }

  #request(type, p, onError = () => {}) {
    this.o.bridge.request(type, { key: p.key }).catch(onError);
  }

  #retryButton(p, cls = 'primary') {
    return h('button', { type: 'button', class: cls, 'data-action': 'retry', onclick: () => this.#request(Request.RETRY, p) }, 'Retry now');
  }

  /** The options page, on this provider's token (its address filled in, the token field focused). */
  #openOptions(p) {
    const ask = p.transport?.type === 'ws' ? askTokenFor(p.transport.url).catch(() => {}) : Promise.resolve();
    ask.then(() => openOptionsPage()).catch((e) => this.o.toast.show(e.message));
  }

  #approveButton(p) {
    return h('button', { type: 'button', class: 'primary', 'data-action': 'approve', onclick: () => this.#request(Request.APPROVE, p, (e) => this.o.toast.show(e.message)) }, 'Approve and connect');
  }

  /** The state card instead of the tree, if there is no tree to show. */
  renderEmpty() {
    const { store, selection, tabId } = this.o;
    const p = selection.provider();
    const tree = selection.tree();
    let content = null;
    let state = null;
    if (tabId === null) {
      state = 'no-tab';
      content = stateCard('No tab to inspect', 'Open this panel from DevTools (the SLOP tab), or as panel.html?tabId=N.');
    } else if (!store.seenProviders) {
      state = 'connecting-extension';
      content = stateCard('Connecting to the extension…', 'Waiting for the SLOP Inspector service worker. If this stays, reload the extension.');
    } else if (!p && !selection.isImport() && !selection.isRecording()) {
      state = 'empty';
      content = this.#noProvider(store.problems);
    } else if (p && !tree && !this.o.conformanceShown?.()) { // the findings of one that never went live win over its card
      ({ state, content } = this.#providerCard(p));
    }
    document.body.dataset.state = state ?? (p && p.status !== Status.CONNECTED ? `stale-${p.status}` : 'tree');
    this.els.empty.hidden = content === null;
    this.els.main.hidden = content !== null;
    if (content) setChildren(this.els.empty, content);
  }

  #noProvider(problems) {
    const st = this.o.store.localApps;
    const local = st?.state === 'ready' ? st.apps.length : 0;
    return stateCard('No SLOP provider on this page', [
      h('p', {}, 'A page announces one with ', h('code', { text: '<meta name="slop" content="ws://host:port/slop">' }),
        ' or ', h('code', { text: '<meta name="slop" content="postmessage">' }), ', or serves ', h('code', { text: '/.well-known/slop' }), '.'),
      h('p', { class: 'muted', text: 'Reload the page after adding one; this panel updates by itself. A provider that no page announces (a desktop app, a server) can be added by address with Connect…; a snapshot file can be imported.' }),
      problems.length ? h('div', { class: 'problems' }, h('p', { class: 'error-text', text: 'What this page announced could not be used:' }),
        h('ul', {}, problems.map((x) => h('li', { class: 'mono small', text: `${x.content} — ${x.error}` })))) : null,
      local ? h('p', { 'data-role': 'local-hint', text: `${local} local app${local === 1 ? ' is' : 's are'} announced on this computer (desktop apps, daemons, command-line tools): see Local apps.` })
        : st?.state === 'off' ? h('p', { class: 'muted', 'data-role': 'local-hint', text: 'Apps on this computer (desktop apps, daemons, command-line tools) can be inspected here too: turn on Local apps in Options.' }) : null],
    h('button', { type: 'button', 'data-action': 'import', onclick: () => this.o.openImport() }, 'Import a snapshot…'),
    local ? h('button', { type: 'button', 'data-action': 'open-local', onclick: () => this.o.openLocalApps?.() }, `Local apps (${local})`) : null);
  }

  /** A provider without a tree yet: what it waits for, and what to do ({state, content}). */
  #providerCard(p) {
    const title = providerTitle(p);
    const where = h('p', { class: 'muted mono small', text: transportText(p) });
    const card = (...args) => ({ state: p.status, content: stateCard(...args) });
    switch (p.status) {
      case Status.PENDING_APPROVAL:
        return card(`${title} is on another origin`, [
          h('p', { text: 'This page names a provider that is not same-origin with it. Connect only if you trust it: the provider will see what you invoke.' }),
          h('p', { class: 'mono small', text: p.approvalKey }), where],
        this.#approveButton(p),
        h('button', { type: 'button', 'data-action': 'deny', onclick: () => this.#request(Request.DENY, p, (e) => this.o.toast.show(e.message)) }, 'Deny'));
      case Status.DENIED:
        return card(`${title}: denied`, ['You denied this provider for this browser session.', where], this.#approveButton(p));
      case Status.AUTH_FAILED:
        return card(`${title}: the provider refused the connection`, [p.message || 'Authentication failed.',
          h('p', { text: p.tokenSet ? 'Check the token stored for this provider’s origin in Options, then retry.' : 'Set the provider’s bearer token in Options, then retry.' }), where],
        h('button', { type: 'button', class: 'primary', 'data-action': 'options', onclick: () => this.#openOptions(p) }, 'Open options'), this.#retryButton(p, ''));
      case Status.UNREACHABLE:
      case Status.RECONNECTING:
        return card(`${title}: ${statusLabel(p)}`, [p.message || 'The connection dropped.', 'Is the provider running? The extension retries by itself.', where], this.#retryButton(p));
      case Status.ERROR:
        return card(`${title}: error`, [p.message || 'The provider broke the protocol.', 'The extension stopped talking to it. Fix the provider, then retry.', where], this.#retryButton(p));
      default: {
        const connected = p.status === Status.CONNECTED;
        return {
          state: connected ? 'waiting-snapshot' : 'connecting',
          content: stateCard(connected ? `${title}: waiting for the first snapshot…` : `Connecting to ${title}…`,
            [h('p', { class: 'spinner-line' }, h('span', { class: 'spinner' }), h('span', { text: syncText(p) || p.message || 'Opening the connection…' })),
              h('p', { class: 'muted', text: 'If this takes more than a few seconds, check that the provider is running and sends its hello.' }), where],
            ...(p.sync?.state === SubscriptionState.FAILED ? [this.#retryButton(p)] : [])),
        };
      }
    }
  }

  /** The banner above the tree, or none. */
  renderBanner() {
    const { selection, importError } = this.o;
    const b = this.els.banner;
    const p = selection.provider();
    const tree = selection.tree();
    const imp = selection.importInfo();
    const scrub = selection.scrub;
    let content = null;
    let kind = '';
    if (importError()) {
      kind = 'error';
      content = [h('span', { text: `Import refused. ${importError()}` }), h('button', { type: 'button', class: 'small', onclick: () => this.o.dismissImportError() }, 'Dismiss')];
    } else if (selection.isRecording()) {
      kind = 'recording';
      content = this.#recordingBanner(selection.recordings.get(selection.key));
    } else if (scrub) {
      kind = 'scrub';
      content = this.#scrubBanner(scrub);
    } else if (selection.scrubDropped) {
      kind = 'scrub-dropped';
      content = this.#droppedBanner(selection.scrubDropped);
    } else if (imp) {
      kind = 'import';
      content = [h('span', { text: `Imported file “${imp.name}”${imp.exportedAt ? `, exported ${imp.exportedAt}` : ''}: v${imp.version}, ${imp.count} nodes, read-only.` }),
        h('button', { type: 'button', class: 'small', 'data-action': 'close-import', onclick: () => this.o.closeImport(imp.key) }, 'Close')];
    } else if (tree && p && !p.live) {
      // Disconnected, or connected while the mirror waits, resyncs or is stale: never shown as live.
      kind = 'stale';
      const canRetry = canRetryNow(p);
      // No snapshot was ever taken (the first was refused, say): there is no earlier state to show.
      const shown = tree.nodes.size ? `showing the last known state (v${tree.version})` : 'no state received yet';
      const text = p.status === Status.CONNECTED ? `${shown[0].toUpperCase()}${shown.slice(1)}. ${syncText(p)}`
        : `${statusLabel(p)}${p.message ? ` — ${p.message.replace(/\.$/, '')}` : ''}: ${shown}.`;
      content = [h('span', { text }), canRetry ? this.#retryButton(p, 'small') : null];
    }
    b.hidden = content === null;
    b.dataset.kind = kind;
    if (content) setChildren(b, content);
    this.#announce(p);
  }

  /**
   * A new connection (or import) error into the role="alert" element, once: its text is set only
   * when the error differs from the last one said, so retries that fail the same way, or the
   * countdown, say nothing more. A provider back live clears it, so the same error later is new.
   */
  #announce(p) {
    const imp = this.o.importError();
    // A dev server restarting is a reconnect the status says, not an error.
    const restarting = p?.reconnect?.mode === 'restart' && !p.reconnect.settled;
    const error = imp ? `Import refused. ${imp}`
      : p && ALERTS.includes(p.status) && !restarting ? `${providerTitle(p)}: ${statusParts(p).state}${p.message ? ` — ${p.message}` : ''}`
      : null;
    const { alert } = this.els;
    if (error === null) {
      if (p?.live && this.#alerted !== null) {
        this.#alerted = null;
        alert.textContent = '';
      }
      return;
    }
    if (error === this.#alerted) return;
    this.#alerted = error;
    alert.textContent = error;
  }

  #scrubBanner(scrub) {
    // The same version number may come again after a restart, another provider or a page load:
    // say in words what happened after this step, so the number is not read as part of one count.
    const steps = this.o.store.histories.get(scrub.key)?.steps ?? [];
    const i = steps.findIndex((s) => s.step === scrub.step.step);
    const since = [...new Set(steps.slice(i + 1).filter((s) => s.boundary).map((s) => s.boundary.kind))].map((k) => BOUNDARY_WORDS[k] ?? BOUNDARY_WORDS.restart);
    // Named by its kind and time, not its position: the position changes as steps are dropped.
    const where = i >= 0 ? `${scrub.step.kind ?? 'step'} at ${clockTime(scrub.step.t, { ms: true })}` : 'no longer in the history';
    return [h('span', { class: 'banner-text' }, h('strong', { text: `Viewing version ${scrub.version ?? '—'}` }),
      ` (${where}) — read-only; invoking is off.`,
      since.length ? ` After this step ${listWords(since)}, so later version numbers are a new count, not a continuation of this one.` : ''),
    h('button', { type: 'button', class: 'small primary', 'data-action': 'back-to-live', title: 'Back to the live state (Esc)', onclick: () => this.o.backToLive() }, 'Back to live')];
  }

  /** The step viewed was dropped at the history's bound: the panel went back to live (history-pane.js). */
  #droppedBanner(d) {
    // Steps viewed are held past the bound (history-pane.js): this is a step the bound took before
    // the hold reached the worker, or one it had no room to keep. The bound is said as it is.
    const bound = d.info?.limits ? ` The history ${boundText(d.info)}.` : '';
    return [h('span', { class: 'banner-text', 'data-role': 'scrub-dropped' },
      h('strong', { text: `The step you were viewing${d.version === null || d.version === undefined ? '' : ` (version ${d.version})`} is gone from the history` }),
      `: the newest steps pushed it out before it could be kept.${bound} You are back on the live state.`),
    h('button', { type: 'button', class: 'small', 'data-action': 'dismiss-dropped', title: 'Hide this note (Esc)', onclick: () => this.o.backToLive() }, 'OK')];
  }

  #recordingBanner(rec) {
    const steps = this.o.store.histories.get(this.o.selection.key)?.steps ?? [];
    const i = steps.findIndex((s) => s.step === rec.step);
    return [h('span', { class: 'banner-text' }, h('strong', { text: `Recording “${rec.name}”` }),
      `${rec.provider ? ` of ${rec.provider.name || rec.provider.id}` : ''}: step ${i + 1} of ${steps.length}, version ${rec.tree?.version ?? '—'} — read-only.`),
    h('button', { type: 'button', class: 'small', 'data-action': 'close-recording', onclick: () => this.o.closeRecording(this.o.selection.key) }, 'Close')];
  }
}
