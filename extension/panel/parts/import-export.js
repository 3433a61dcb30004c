// import-export.js: the Export and Import… buttons. Export saves the shown state as a snapshot
// file (export.js): the core's tree of the subscription, or the version shown from the history.
// Import sends a file to the service worker, whose core checks it (ui/inspect-tree) and answers with a
// read-only tree the store keeps under its own key; a refused file is said in the banner.

import { Request } from '../../shared/messages.js';
import { assembleTree, exportDocument, download, fileName } from '../export.js';
import { parseVerbatim } from '../../../js-glue/exact-json.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../bridge.js').Bridge} Bridge */
/** @typedef {import('../selection.js').Selection} Selection */

/** Views of an imported tree sent with the first answer (the rest loads like a mirror's). */
const IMPORT_BUDGET = 2000;

export class ImportExport {
  /** Why the last import was refused, or null. */
  error = null;
  /** The last exported file's text (for tests). */
  lastExport = null;

  /**
   * @param {{exportBtn: HTMLButtonElement, importBtn: HTMLButtonElement, file: HTMLInputElement}} els
   * @param {{store: Store, bridge: Bridge,
   *          selection: Selection, toast: {show: (text: string) => void},
   *          onImported: (key: string) => void, onClosed: () => void, onError: () => void,
   *          isRecordingText?: (text: string) => boolean, openRecording: (text: string, name: string) => Promise<unknown>}} o
   *   isRecordingText: the file is a recording, for openRecording (the history)
   */
  constructor(els, o) {
    this.els = els;
    this.o = o;
    els.exportBtn.addEventListener('click', () => this.export().catch((e) => o.toast.show(`Export failed: ${e.message}`)));
    els.importBtn.addEventListener('click', () => this.pick());
    els.file.addEventListener('change', async () => {
      const file = els.file.files?.[0];
      els.file.value = '';
      if (file) await this.importText(await file.text(), file.name);
    });
  }

  /** Opens the file picker. */
  pick() {
    this.els.file.click();
  }

  async export() {
    const { selection, bridge, toast } = this.o;
    const tree = selection.tree();
    const p = selection.provider();
    if (!tree) return;
    const imp = selection.importInfo();
    const scrub = selection.scrub;
    let doc;
    const shown = scrub?.source ?? (selection.isRecording() ? tree : null);
    if (shown) {
      const { tree: t, missing } = assembleTree(shown.nodes, tree.path);
      doc = { tree: t, version: shown.version ?? scrub?.version, scrubbed: true, incomplete: missing ? `${missing} child views were not loaded` : undefined };
    } else {
      const r = await bridge.request(Request.GET_TREE, { key: selection.key, sub: tree.sub });
      doc = { tree: parseVerbatim(r.treeText), version: r.version, capabilities: r.capabilities };
    }
    const provider = imp ? (imp.fileProvider ?? { id: 'import', name: imp.name }) : p?.provider ?? null;
    const text = exportDocument({
      ...doc,
      provider,
      source: imp ? `import:${imp.name}` : p ? (p.transport.url ?? 'postmessage') : null,
      subscription: { path: tree.path, ...(selection.custom()?.options ?? {}) },
      capabilities: doc.capabilities ?? p?.capabilities ?? [],
    });
    this.lastExport = text;
    download(text, fileName('slop', provider?.id ?? 'tree', `v${doc.version}`));
    toast.show(`Exported v${doc.version}`);
  }

  /** @param {string} text @param {string} name the file's */
  async importText(text, name) {
    const { store, bridge } = this.o;
    this.error = null;
    // A recording (Export recording) plays back in the history; anything else is a snapshot.
    if (this.o.isRecordingText?.(text)) {
      await this.o.openRecording(text, name);
      return;
    }
    try {
      const r = await bridge.request(Request.INSPECT_TREE, { text, name, budget: IMPORT_BUDGET });
      store.addImport(r);
      this.o.onImported(r.key);
    } catch (e) {
      this.error = `${name}: ${e.message}`;
      this.o.onError();
    }
  }

  dismissError() {
    this.error = null;
    this.o.onError();
  }

  /** @param {string} key an import's */
  close(key) {
    this.o.bridge.request(Request.CLOSE_IMPORT, { key }).catch(() => {});
    this.o.store.removeImport(key);
    this.o.onClosed();
  }
}
