// toolbar.js: the bar at the top: the provider (or import, or recording) selector, one status
// indicator (the provider's state, or the extension's while the panel's port is down; the details
// in its tooltip), the version, which buttons apply to what is shown, and the bar's keys.

import { h, setChildren } from '../../shared/dom.js';
import { Status } from '../../shared/messages.js';
import { statusLabel, statusParts, syncText, providerTitle, transportText } from '../../shared/status-text.js';
import { RowMenu } from './row-menu.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../selection.js').Selection} Selection */

/**
 * Shows or hides a strip under the bar and presses its button to match.
 * @param {HTMLElement} btn @param {HTMLElement} el @param {boolean} [on] default: toggle
 */
export function toggleStrip(btn, el, on = el.hidden) {
  el.hidden = !on;
  btn.setAttribute('aria-pressed', String(on));
}

/** A select's arrow, padding and border around its text (px). */
const SELECT_CHROME = 28;
/** The status indicator's width in one row, at least (its dot and a short word). */
const STATUS_MIN = 90;
/** A separator in one row: 1 px and its margins. */
const SEP_WIDTH = 7;
/** A bar button (.tb): its width is fixed, so a folded one's room is known without showing it. */
const TB_WIDTH = 26;
/** The name takes at most this share of a one-row bar. */
const ONE_ROW_SHARE = 0.6;

/** Failures the extension retries by itself (a try in between keeps their words in the live region). */
/** @type {string[]} */
const RETRIED = [Status.UNREACHABLE, Status.RECONNECTING, Status.AUTH_FAILED];

export class Toolbar {
  /** The provider and state the live region said last: {key, status, state}. */
  #said = null;

  /**
   * @param {{provider: HTMLSelectElement, status: HTMLElement, version: HTMLElement,
   *          exportBtn: HTMLButtonElement, historyBtn: HTMLButtonElement, subBtn: HTMLButtonElement}} els
   * @param {{store: Store, selection: Selection, tabId: number|null, onSelect: (key: string|null) => void}} o
   */
  constructor(els, { store, selection, tabId, onSelect }) {
    this.els = els;
    this.store = store;
    this.selection = selection;
    this.tabId = tabId;
    els.provider.addEventListener('change', (e) => onSelect(/** @type {HTMLSelectElement} */ (e.target).value || null));
    addEventListener('resize', () => this.#fit());
    const bar = els.provider.parentElement;
    this.more = /** @type {HTMLButtonElement|null} */ (bar?.querySelector('#bar-more') ?? null);
    this.menu = new RowMenu(document.body);
    // A press on More while its menu is open closes it (the menu closes itself on a press outside
    // it, before the click): noted first, on the window, so the click does not open it again.
    let wasOpen = false;
    addEventListener('pointerdown', (e) => { wasOpen = this.menu.open && e.target === this.more; }, true);
    this.more?.addEventListener('click', () => {
      if (wasOpen) wasOpen = false;
      else this.#openMore();
    });
    // Buttons shown or hidden by their own parts (Local apps, Send to String, the MUST badge).
    if (bar) new MutationObserver(() => this.#fit()).observe(bar, { subtree: true, attributes: true, attributeFilter: ['hidden'] });
  }

  /**
   * One row, always (the guide's promise, docs/guide/panel.md: 320 px to 4K): while the shown name does not fit beside
   * the buttons, the .tb-fold ones go into the More menu; a name longer than that room is cut
   * (whole in its tooltip).
   */
  #fit() {
    const sel = this.els.provider;
    const bar = sel.parentElement;
    if (!bar || !bar.clientWidth) return;
    const text = sel.selectedOptions[0]?.text ?? '';
    const ctx = (Toolbar.#measure ??= document.createElement('canvas').getContext('2d'));
    ctx.font = getComputedStyle(sel).font;
    const need = Math.ceil(ctx.measureText(text).width) + SELECT_CHROME;
    let others = 0;
    let n = 0;
    for (const el of /** @type {HTMLCollectionOf<HTMLElement>} */ (bar.children)) {
      if (el === sel || el === this.more || el.hidden || el.id === 'version' || el.classList.contains('spacer')) continue;
      // A folded button is display: none now; its room is what it takes unfolded.
      const folds = el.classList.contains('tb-fold');
      if (!folds && getComputedStyle(el).display === 'none') continue;
      // The status gives way to its dot (and a word or two) before the name does.
      const w = el.classList.contains('tb-sep') ? SEP_WIDTH : folds ? TB_WIDTH : el.getBoundingClientRect().width;
      others += el === this.els.status ? Math.min(w, STATUS_MIN) : w;
      n++;
    }
    const gap = parseFloat(getComputedStyle(bar).columnGap) || 0;
    const room = bar.clientWidth - (parseFloat(getComputedStyle(bar).paddingLeft) || 0) * 2 - others - gap * n;
    const fold = String(need > Math.min(room, bar.clientWidth * ONE_ROW_SHARE));
    if (bar.dataset.fold !== fold) bar.dataset.fold = fold;
    if (this.more) {
      const none = !this.#folded().length;
      if (this.more.hidden !== (fold !== 'true' || none)) this.more.hidden = fold !== 'true' || none;
      if (this.more.hidden && this.menu.open) this.menu.close({ focus: false });
    }
  }
  static #measure = null;

  /** The folded buttons that are in use (not hidden by their part). */
  #folded() {
    const bar = this.els.provider.parentElement;
    return /** @type {HTMLButtonElement[]} */ ([...(bar?.querySelectorAll('button.tb-fold') ?? [])]).filter((b) => !b.hidden);
  }

  /** The More menu: each folded button by its name, a toggle with its state; choosing one clicks it. */
  #openMore() {
    const more = /** @type {HTMLButtonElement} */ (this.more);
    if (this.menu.open) return this.menu.close();
    const items = this.#folded().map((b) => ({
      id: b.id,
      label: `${b.getAttribute('aria-label')}${b.dataset.count ? ` (${b.dataset.count})` : ''}`,
      keys: b.getAttribute('aria-keyshortcuts')?.replace('Control', 'Ctrl') ?? undefined,
      disabled: b.disabled,
      checked: b.hasAttribute('aria-pressed') ? b.getAttribute('aria-pressed') === 'true' : undefined,
      run: () => b.click(),
    }));
    const r = more.getBoundingClientRect();
    more.setAttribute('aria-expanded', 'true');
    this.menu.show([items], { x: r.left, y: r.bottom + 2 }, more, { label: 'More' });
    // The menu closes by a choice, a key, a click elsewhere or a resize: the button says so.
    const el = this.menu.el;
    new MutationObserver((_, obs) => { if (!el?.isConnected) { more.setAttribute('aria-expanded', 'false'); obs.disconnect(); } })
      .observe(document.body, { childList: true });
  }

  render() {
    const { els, store, selection } = this;
    // Names only: the status (or "Imported", "Recording") is the indicator's beside it; in the open
    // list, a group's label says what kind each entry is and an entry's tooltip its status.
    const providers = store.providers.map((p) => h('option', { value: p.key, text: providerTitle(p), title: `${statusLabel(p)} · ${transportText(p)}` }));
    const imports = [...store.imports].map(([key, imp]) => h('option', { value: key, text: imp.name, title: 'An imported file, read-only' }));
    const recordings = [...selection.recordings].map(([key, rec]) => h('option', { value: key, text: rec.name, title: 'A recording, read-only' }));
    const count = providers.length + imports.length + recordings.length;
    const group = (label, list) => (list.length ? h('optgroup', { label }, list) : null);
    setChildren(els.provider, count === 0 ? h('option', { value: '', text: store.seenProviders ? 'no provider on this page' : 'connecting…' })
      : imports.length || recordings.length ? [group('Providers', providers), group('Imported files', imports), group('Recordings', recordings)]
        : providers);
    els.provider.value = selection.key ?? '';
    els.provider.disabled = count === 0;
    // A name longer than the whole bar is cut there: all of it in the tooltip.
    els.provider.title = els.provider.selectedOptions[0]?.text ?? '';
    this.#fit();
    const p = selection.provider();
    const tree = selection.tree();
    this.#status(p, selection.importInfo());
    els.version.textContent = tree ? versionText(tree, p) : '';
    els.exportBtn.disabled = !tree;
    els.historyBtn.disabled = !tree;
    els.subBtn.disabled = !p;
  }

  /**
   * One indicator: a dot and a word or two; what it means at length in its tooltip. The words of
   * the state go in the live region (#status-live), the countdown beside it (not live): each is
   * written only when it changes, so a screen reader hears a new state, never each second.
   */
  #status(p, imp) {
    const { status } = this.els;
    const live = status.querySelector('#status-live');
    const count = status.querySelector('.status-count');
    const port = this.tabId === null ? 'connected' : this.store.bridgeState;
    status.dataset.port = port;
    const put = (el, text) => { if (el.textContent !== text) el.textContent = text; };
    const set = (kind, isLive, { state, countdown = '' }, title) => {
      status.hidden = false;
      status.dataset.status = kind;
      status.dataset.live = String(isLive);
      put(live, state);
      put(count, countdown);
      status.title = title;
    };
    if (port !== 'connected') {
      set('reconnecting', false, { state: port === 'reconnecting' ? 'Extension restarting…' : 'Connecting…' },
        'The panel’s connection to the extension’s service worker is down; it comes back by itself.');
    } else if (this.selection.isRecording()) {
      const rec = this.selection.recordings.get(this.selection.key);
      set('import', false, { state: 'Recording' }, `A recording, read-only: ${rec?.name ?? ''}`);
    } else if (imp) {
      set('import', false, { state: 'Imported' }, `An imported file, read-only: ${imp.fileProvider ? `${imp.fileProvider.name} (${imp.fileProvider.id})` : imp.name}`);
    } else if (p) {
      const detail = [syncText(p), p.message, transportText(p)].filter(Boolean);
      let parts = statusParts(p);
      // An automatic retry of a failed connection is not a new state: the live words stay the
      // failure's ("Unreachable"), the visible part says the try, so each retry is not announced.
      const prev = this.#said;
      if (p.status === Status.CONNECTING && prev?.key === p.key && RETRIED.includes(prev.status)) {
        parts = { state: prev.state, countdown: ' · trying again' };
      } else {
        this.#said = { key: p.key, status: p.status, state: parts.state };
      }
      set(p.status, !!p.live, parts, detail.join('\n'));
    } else {
      status.hidden = true;
    }
  }
}

/** "v12 · 3,000 of 10,101 nodes" while loading, "v12 · 10,101 nodes" after. */
function versionText(tree, p) {
  const info = p?.subscriptions.find((s) => s.sub === tree.sub);
  const total = tree.total ?? info?.nodes ?? null;
  const loading = !tree.complete && total > tree.nodes.size;
  return `v${tree.version} · ${tree.nodes.size.toLocaleString()}${loading ? ` of ${total.toLocaleString()}` : ''} node${tree.nodes.size === 1 && !loading ? '' : 's'}`;
}
