// toolbar.js: the bar at the top: the provider (or import, or recording) selector, one status
// indicator (the provider's state, or the extension's while the panel's port is down; the details
// in its tooltip), the version, which buttons apply to what is shown, and the bar's keys.

import { h, setChildren } from '../../shared/dom.js';
import { statusLabel, syncText, providerTitle, transportText } from '../../shared/status-text.js';

/** Shows or hides a strip under the bar and presses its button to match. */
export function toggleStrip(btn, el, on = el.hidden) {
  el.hidden = !on;
  btn.setAttribute('aria-pressed', String(on));
}

export class Toolbar {
  /**
   * @param {{provider: HTMLSelectElement, status: HTMLElement, version: HTMLElement,
   *          exportBtn: HTMLButtonElement, historyBtn: HTMLButtonElement, subBtn: HTMLButtonElement}} els
   * @param {{store, selection, tabId: number|null, onSelect: (key: string|null) => void}} o
   */
  constructor(els, { store, selection, tabId, onSelect }) {
    Object.assign(this, { els, store, selection, tabId });
    els.provider.addEventListener('change', (e) => onSelect(e.target.value || null));
  }

  render() {
    const { els, store, selection } = this;
    const options = store.providers.map((p) => h('option', { value: p.key, text: `${providerTitle(p)} — ${statusLabel(p)}` }));
    for (const [key, imp] of store.imports) options.push(h('option', { value: key, text: `${imp.name} (imported)` }));
    for (const [key, rec] of selection.recordings) options.push(h('option', { value: key, text: `${rec.name} (recording)` }));
    setChildren(els.provider, options.length ? options : h('option', { value: '', text: store.seenProviders ? 'no provider on this page' : 'connecting…' }));
    els.provider.value = selection.key ?? '';
    els.provider.disabled = options.length === 0;
    const p = selection.provider();
    const tree = selection.tree();
    this.#status(p, selection.importInfo());
    els.version.textContent = tree ? versionText(tree, p) : '';
    els.exportBtn.disabled = !tree;
    els.historyBtn.disabled = !tree;
    els.subBtn.disabled = !p;
  }

  /** One indicator: a dot and a word or two; what it means at length in its tooltip. */
  #status(p, imp) {
    const { status } = this.els;
    const text = status.querySelector('.status-text');
    const port = this.tabId === null ? 'connected' : this.store.bridgeState;
    status.dataset.port = port;
    const set = (kind, live, label, title) => {
      status.hidden = false;
      status.dataset.status = kind;
      status.dataset.live = String(live);
      text.textContent = label;
      status.title = title;
    };
    if (port !== 'connected') {
      set('reconnecting', false, port === 'reconnecting' ? 'Extension restarting…' : 'Connecting…',
        'The panel’s connection to the extension’s service worker is down; it comes back by itself.');
    } else if (this.selection.isRecording()) {
      const rec = this.selection.recordings.get(this.selection.key);
      set('import', false, 'Recording', `A recording, read-only: ${rec?.name ?? ''}`);
    } else if (imp) {
      set('import', false, 'Imported', `An imported file, read-only: ${imp.fileProvider ? `${imp.fileProvider.name} (${imp.fileProvider.id})` : imp.name}`);
    } else if (p) {
      const detail = [syncText(p), p.message, transportText(p)].filter(Boolean);
      set(p.status, !!p.live, statusLabel(p), detail.join('\n'));
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
