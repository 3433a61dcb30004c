// subscription-strip.js: the Subscription strip (views/subscription-view.js). "Subscribe" makes a
// subscription of the panel's own with the options typed (the core checks them; its message shows
// under the form), which the tree then shows; "Back to default" returns to the extension's. A
// service worker restart loses the panel's subscriptions: they are made again.

import { Request, Status } from '../../shared/messages.js';
import { SubscriptionView } from '../views/subscription-view.js';
import { toggleStrip } from './toolbar.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../bridge.js').Bridge} Bridge */
/** @typedef {import('../selection.js').Selection} Selection */

export class SubscriptionStrip {
  /** The core's message about the last options tried, or null. */
  error = null;
  /** Providers whose subscription is being made again after a worker restart. */
  #restoring = new Set();

  /**
   * @param {{strip: HTMLElement, button: HTMLButtonElement}} els
   * @param {{store: Store, bridge: Bridge, selection: Selection, onChange: () => void}} o   onChange: the shown subscription changed (render)
   */
  constructor(els, { store, bridge, selection, onChange }) {
    this.els = els;
    this.store = store;
    this.bridge = bridge;
    this.selection = selection;
    this.onChange = onChange;
    this.view = new SubscriptionView(els.strip, {
      onApply: (options) => this.apply(options),
      onReset: () => this.reset(),
    });
    els.button.addEventListener('click', () => {
      toggleStrip(els.button, els.strip);
      this.render();
    });
  }

  /** The path of the extension's own subscription of the shown provider. */
  #defaultOptions() {
    const p = this.selection.provider();
    return { path: p?.subscriptions.find((s) => s.sub === p.primarySub)?.path ?? '/' };
  }

  /** Another provider is shown: its options in the form, no message. */
  providerShown() {
    this.error = null;
    this.view.fill(this.selection.custom()?.options ?? this.#defaultOptions());
  }

  async apply(options) {
    const { selection, bridge } = this;
    const key = selection.key;
    if (!key || selection.isImport()) return;
    this.error = null;
    this.render();
    let sub;
    try {
      ({ sub } = await bridge.request(Request.SUBSCRIBE, { key, options }));
    } catch (e) {
      this.error = e.message; // the core's word on the options
      this.render();
      return;
    }
    const old = selection.custom(key);
    selection.setCustom(key, sub, options);
    if (old) this.#unsubscribe(key, old.sub);
    selection.setScrub(null);
    this.onChange();
  }

  reset() {
    const { selection } = this;
    const key = selection.key;
    const old = selection.custom(key);
    if (!old) return;
    selection.dropCustom(key);
    this.#unsubscribe(key, old.sub);
    this.view.fill(this.#defaultOptions());
    selection.setScrub(null);
    this.onChange();
  }

  #unsubscribe(key, sub) {
    this.bridge.request(Request.UNSUBSCRIBE, { key, sub }).catch(() => {});
    this.store.dropTree(key, sub);
  }

  /** After a service worker restart the subscriptions made here are gone: make them again. */
  restore() {
    const { store, selection } = this;
    for (const [key, c] of selection.customs()) {
      const p = store.provider(key);
      if (!p || p.status !== Status.CONNECTED || !p.primarySub) continue;
      if (p.subscriptions.some((s) => s.sub === c.sub) || this.#restoring.has(key)) continue;
      this.#restoring.add(key);
      this.bridge.request(Request.SUBSCRIBE, { key, options: c.options })
        // Unless the user changed it meanwhile.
        .then(({ sub }) => { if (selection.custom(key) === c) selection.setCustom(key, sub, c.options); })
        .catch(() => { if (selection.custom(key) === c) selection.dropCustom(key); })
        .finally(() => {
          this.#restoring.delete(key);
          this.onChange();
        });
    }
  }

  render() {
    if (this.els.strip.hidden) return;
    const { selection } = this;
    const p = selection.provider();
    const tree = selection.tree();
    const custom = selection.custom();
    const sub = tree?.sub ?? selection.sub();
    const known = p?.subscriptions.find((s) => s.sub === sub) ?? null;
    // The provider list is pushed on status changes, not on every patch: version and count come
    // from the views the panel holds when it holds them all.
    const info = known && tree ? { ...known, version: tree.version, nodes: tree.complete ? tree.nodes.size : known.nodes } : known;
    this.view.show(p, { custom: !!custom, options: custom?.options ?? { path: known?.path ?? '/' }, sub, info }, this.error);
  }
}
