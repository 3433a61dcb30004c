// string-send.js: the bar's "Send to String" button, shown once a String agent's webhook is set in
// Options: one request per click (the worker posts a text snapshot of the shown provider to the
// agent's local webhook, never retried); the daemon's answer in words in the toast.

import { Request } from '../../shared/messages.js';
import { onStorageChanged } from '../../shared/browser.js';
import { stringWebhookInfo } from '../../shared/settings-store.js';

/** @typedef {import('../bridge.js').Bridge} Bridge */
/** @typedef {import('../selection.js').Selection} Selection */
/** @typedef {import('./toast.js').Toast} Toast */

/** The answer stays readable this long. */
const RESULT_MS = 6000;

export class StringSend {
  /** The last answer {ok, status, message, ...} or {ok: false, message}, for tests. */
  lastResult = null;
  #set = false;
  #busy = false;

  /** @param {HTMLButtonElement} button @param {{bridge: Bridge, selection: Selection, toast: Toast}} o */
  constructor(button, { bridge, selection, toast }) {
    this.button = button;
    this.bridge = bridge;
    this.selection = selection;
    this.toast = toast;
    button.addEventListener('click', () => this.send());
    stringWebhookInfo().then((info) => { this.#set = !!info; this.render(); });
    onStorageChanged((changes, area) => {
      if (area !== 'local' || !('stringWebhookIndex' in changes)) return;
      this.#set = !!changes.stringWebhookIndex.newValue;
      this.render();
    });
  }

  render() {
    const { button, selection } = this;
    button.hidden = !this.#set;
    button.disabled = this.#busy || !selection.provider() || selection.isImport() || !selection.tree() || !!selection.scrub;
    button.title = selection.scrub ? 'Go back to the live state to send it'
      : 'Send a text snapshot of this state to your String agent (one request to its local webhook)';
  }

  send() {
    const { selection } = this;
    if (!selection.key || this.#busy) return;
    this.#busy = true;
    this.render();
    this.toast.show('Sending to your String agent…', RESULT_MS);
    this.bridge.request(Request.SEND_TO_STRING, { key: selection.key, sub: selection.tree()?.sub })
      .then((r) => {
        this.lastResult = r;
        this.toast.show(r.message + (r.kept < r.total ? ` (cut to ${r.kept} of ${r.total} nodes to fit its limit)` : ''), RESULT_MS);
      })
      .catch((e) => {
        this.lastResult = { ok: false, message: e.message };
        this.toast.show(e.message, RESULT_MS);
      })
      .finally(() => { this.#busy = false; this.render(); });
  }
}
