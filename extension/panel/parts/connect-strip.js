// connect-strip.js: "Connect…": a provider that no page announces, by address (ws://, or an
// http:// site whose /.well-known/slop names one), with its token if it needs one. Such providers
// are shown on every tab until removed here. An address that answers as an agnt-gg "Simple
// Language Open Protocol" server is said to be one (same name, different protocol) and its /info,
// /tools and /resources are shown read-only; anything else is "not a SLOP provider", with what it
// answered.

import { Request } from '../../shared/messages.js';
import { h, setChildren } from '../../shared/dom.js';
import { jsonView } from '../views/json-view.js';
import { toggleStrip } from './toolbar.js';

export class ConnectStrip {
  /** The last outcome, for tests: the worker's answer or {error}. */
  last = null;

  /**
   * @param {{strip: HTMLElement, button: HTMLButtonElement}} els
   * @param {{store, bridge, onSelect: (key: string) => void}} o
   */
  constructor(els, { store, bridge, onSelect }) {
    Object.assign(this, { els, store, bridge, onSelect });
    this.address = h('input', { type: 'text', id: 'connect-address', placeholder: 'ws://localhost:3737/slop or http://host:port', spellcheck: 'false', 'aria-label': 'Provider address' });
    this.token = h('input', { type: 'password', id: 'connect-token', placeholder: 'token (if it needs one)', autocomplete: 'new-password', spellcheck: 'false', 'aria-label': 'Token' });
    this.message = h('span', { class: 'small', 'data-role': 'connect-message', role: 'status' });
    this.result = h('div', { class: 'connect-result' });
    this.list = h('span', { class: 'connect-list' });
    const form = h('form', { class: 'connect-form', onsubmit: (e) => { e.preventDefault(); this.connect(); } },
      h('span', { class: 'strip-title', text: 'Connect to' }), this.address, this.token,
      h('button', { type: 'submit', 'data-action': 'connect' }, 'Connect'), this.message);
    els.strip.replaceChildren(form, this.list, this.result);
    els.button.addEventListener('click', () => {
      toggleStrip(els.button, els.strip);
      this.render();
      if (!els.strip.hidden) this.address.focus();
    });
  }

  connect() {
    const address = this.address.value.trim();
    if (!address) return;
    this.message.textContent = 'Connecting…';
    this.message.dataset.kind = '';
    setChildren(this.result);
    this.bridge.request(Request.CONNECT_TO, { address, token: this.token.value || null })
      .then((r) => {
        this.last = r;
        this.token.value = '';
        if (r.kind === 'slop') {
          this.message.textContent = `Added ${r.key}: shown on every tab until you remove it.`;
          this.message.dataset.kind = 'ok';
          this.address.value = '';
          this.onSelect(r.key);
        } else if (r.kind === 'agnt-gg') {
          this.message.textContent = '';
          this.#agntGg(r);
        } else {
          this.message.textContent = r.message;
          this.message.dataset.kind = 'bad';
        }
      })
      .catch((e) => {
        this.last = { error: e.message };
        this.message.textContent = e.message;
        this.message.dataset.kind = 'bad';
      });
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
