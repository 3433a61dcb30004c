// toolbar.js: the bar at the top: the provider (or import) selector, its status and version, which
// buttons apply to what is shown, and the service worker's state when the port is down.

import { h, setChildren } from '../../shared/dom.js';
import { statusLabel, syncText, providerTitle, transportText } from '../../shared/status-text.js';

/** Shows or hides a strip under the bar and presses its button to match. */
export function toggleStrip(btn, el, on = el.hidden) {
  el.hidden = !on;
  btn.setAttribute('aria-pressed', String(on));
}

export class Toolbar {
  /**
   * @param {{provider: HTMLSelectElement, status: HTMLElement, statusMsg: HTMLElement, version: HTMLElement,
   *          exportBtn: HTMLButtonElement, historyBtn: HTMLButtonElement, subBtn: HTMLButtonElement,
   *          swState: HTMLElement}} els
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
    els.swState.hidden = store.bridgeState === 'connected' || this.tabId === null;
    els.swState.dataset.status = 'reconnecting';
    els.swState.textContent = store.bridgeState === 'reconnecting' ? 'service worker restarting…' : 'connecting…';
  }

  #status(p, imp) {
    const { status, statusMsg } = this.els;
    status.hidden = !p && !imp;
    if (imp) {
      status.dataset.status = 'import';
      status.textContent = 'Imported';
      statusMsg.textContent = imp.fileProvider ? `${imp.fileProvider.name} (${imp.fileProvider.id})` : imp.name;
    } else if (p) {
      status.dataset.status = p.status;
      status.dataset.live = String(!!p.live);
      status.textContent = statusLabel(p);
      statusMsg.textContent = syncText(p) || p.message || transportText(p);
      statusMsg.title = `${transportText(p)}${p.message ? `\n${p.message}` : ''}`;
    } else {
      statusMsg.textContent = '';
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
