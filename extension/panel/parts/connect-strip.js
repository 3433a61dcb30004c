// connect-strip.js: "Connect…": a provider that no page announces, by address (ws://, or an
// http:// site whose /.well-known/slop names one), with its token if it needs one. The worker
// keeps it only once it answered (its hello); one that does not is said so, with "Save anyway".
// Such providers are shown on every tab until removed here. The panel switches to one that
// answered (the user asked for it); one saved anyway is shown only if nothing live is. An address that answers as an agnt-gg "Simple
// Language Open Protocol" server is said to be one (same name, different protocol) and its /info,
// /tools and /resources are shown read-only; anything else is "not a SLOP provider", with what it
// answered.

import { Request } from '../../shared/messages.js';
import { h, setChildren } from '../../shared/dom.js';
import { jsonView } from '../views/json-view.js';
import { toggleStrip } from './toolbar.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../bridge.js').Bridge} Bridge */

export class ConnectStrip {
  /** The last outcome, for tests: the worker's answer or {error}. */
  last = null;

  /**
   * @param {{strip: HTMLElement, button: HTMLButtonElement}} els
   * @param {{store: Store, bridge: Bridge,
   *          onSelect: (key: string, o?: {unlessLive?: boolean}) => void}} o
   *   onSelect: show this provider (unlessLive: not over a live one shown)
   */
  constructor(els, { store, bridge, onSelect }) {
    this.els = els;
    this.store = store;
    this.bridge = bridge;
    this.onSelect = onSelect;
    this.address = h('input', { type: 'text', id: 'connect-address', placeholder: 'ws://host:port/slop or http://host', spellcheck: 'false', 'aria-label': 'Provider address', title: 'A ws:// address, or an http:// site whose /.well-known/slop names one' });
    this.token = h('input', { type: 'password', id: 'connect-token', placeholder: 'token, if it needs one', autocomplete: 'new-password', spellcheck: 'false', 'aria-label': 'Token' });
    this.message = h('span', { class: 'small', 'data-role': 'connect-message', role: 'status' });
    this.result = h('div', { class: 'connect-result' });
    this.list = h('span', { class: 'connect-list' });
    this.submit = h('button', { type: 'submit', 'data-action': 'connect' }, 'Connect');
    const form = h('form', { class: 'connect-form', onsubmit: (e) => { e.preventDefault(); this.connect(); } },
      h('span', { class: 'strip-title', text: 'Connect to' }), this.address, this.token, this.submit, this.message);
    els.strip.replaceChildren(form, this.list, this.result);
    els.button.addEventListener('click', () => {
      toggleStrip(els.button, els.strip);
      this.render();
      if (!els.strip.hidden) this.address.focus();
    });
  }

  #say(text, kind = '') {
    this.message.textContent = text;
    this.message.dataset.kind = kind;
  }

  /** anyway: keep the address without waiting for it to answer ("Save anyway"). */
  connect({ anyway = false } = {}) {
    const address = this.address.value.trim();
    if (!address) return;
    this.#say(anyway ? 'Saving…' : 'Connecting: waiting for the provider’s hello…');
    this.submit.disabled = true;
    setChildren(this.result);
    this.bridge.request(Request.CONNECT_TO, { address, token: this.token.value || null, anyway })
      .then((r) => {
        this.last = r;
        if (r.kind === 'slop') {
          const name = r.provider?.name ? `${r.provider.name} (${r.key})` : r.key;
          const read = r.read ? ` (${r.read})` : '';
          this.#say(r.checked ? `Added ${name}${read}: shown on every tab until you remove it.`
            : `Saved ${r.key}${read} without an answer from it: shown on every tab until you remove it; it connects when the provider answers.`, 'ok');
          this.address.value = '';
          this.token.value = '';
          // It answered: show it (the user asked for it). Saved anyway: only if nothing live is shown.
          this.onSelect(r.key, { unlessLive: !r.checked });
        } else if (r.kind === 'no-answer') {
          this.#say('');
          this.#noAnswer(r);
        } else if (r.kind === 'agnt-gg') {
          this.#say('');
          this.#agntGg(r);
        } else {
          this.#say(r.message, 'bad');
        }
      })
      .catch((e) => {
        this.last = { error: e.message };
        this.#say(e.message, 'bad');
      })
      .finally(() => { this.submit.disabled = false; });
  }

  /**
   * The probe failed: nothing was saved; say why. Only an address where nothing listens yet may be
   * saved all the same (a provider not started); one whose server answered and refused may not.
   */
  #noAnswer(r) {
    setChildren(this.result, h('div', { class: 'connect-no-answer', 'data-role': 'no-answer', 'data-status': r.status },
      h('p', { class: 'error-text', 'data-role': 'no-answer-text', text: `${r.read ? `(${r.read}) ` : ''}${r.message} Nothing was saved.` }),
      h('div', { class: 'state-actions' },
        h('button', { type: 'button', 'data-action': 'connect-retry', onclick: () => this.connect() }, 'Try again'),
        r.canSave ? h('button', { type: 'button', 'data-action': 'save-anyway', title: 'Keep this address: it is shown on every tab and connects when the provider answers',
          onclick: () => this.connect({ anyway: true }) }, 'Save anyway') : null)));
  }

  #agntGg(r) {
    const section = (title, v) => (v == null ? null : h('details', { class: 'agnt-part', open: title === '/info' },
      h('summary', { text: title }), jsonView(v, { openDepth: 2 })));
    setChildren(this.result, h('div', { class: 'agnt', 'data-role': 'agnt-gg' },
      h('p', {}, h('strong', { text: `${r.info?.name ?? r.url} is an agnt-gg “Simple Language Open Protocol” server, not a SLOP provider.` }),
        ' It shares the name “SLOP” but is a different protocol (HTTP endpoints for chat, tools, memory, resources), with no live state to mirror. What it says about itself is shown read-only; nothing is invoked.'),
      section('/info', r.info), section('/tools', r.tools), section('/resources', r.resources)));
  }

  render() {
    if (this.els.strip.hidden) return;
    const manual = this.store.providers.filter((p) => p.source === 'manual');
    setChildren(this.list, manual.length ? [h('span', { class: 'muted small', text: 'Added:' }), manual.map((p) => h('span', { class: 'connect-item', 'data-key': p.key },
      h('code', { text: p.key }),
      h('button', { type: 'button', class: 'small', 'data-action': 'remove-provider', title: 'Forget this provider',
        onclick: () => this.bridge.request(Request.REMOVE_PROVIDER, { key: p.key }).catch((e) => { this.message.textContent = e.message; }) }, 'Remove')))] : null);
  }
}
