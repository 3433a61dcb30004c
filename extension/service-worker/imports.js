// imports.js: JSON documents the panel imports to look at read-only. Each goes into a throwaway
// core consumer, which validates it exactly as it would a provider's snapshot: the document is
// handed to the core as the answer to that consumer's own subscribe, and whatever the core
// refuses (a node without id or type, bad ids, nesting, size...) fails the import with the
// core's message. Nothing is checked here; JSON.parse only finds the tree inside the wrapper.
//
// An import is reached like a connection (key "import:N"): GET_NODES, GET_TREE and AGENT_VIEW
// work on it; INVOKE does not (there is no provider behind it).

import { LIMITS, ErrorCode } from '../shared/messages.js';
import { core } from './core.js';

/** Every capability, so the core keeps and renders every field the document has. */
const IMPORT_CAPABILITIES = ['state', 'patches', 'affordances', 'attention', 'windowing', 'async', 'content_refs'];

export class ImportError extends Error {
  constructor(message) {
    super(message);
    this.code = ErrorCode.INVALID_TREE;
  }
}

let counter = 0;

/**
 * An imported document: the same surface panel-ports.js uses of a Connection (key, consumer,
 * primarySub, info()).
 */
export class ImportedTree {
  /**
   * @param {string} text  the file's contents
   * @param {string} name  the file's name (shown, never interpreted)
   */
  constructor(text, name) {
    if (typeof text !== 'string' || text.length === 0) throw new ImportError('The file is empty.');
    if (text.length > LIMITS.IMPORT_TEXT_MAX) throw new ImportError(`The file is larger than ${LIMITS.IMPORT_TEXT_MAX} characters.`);
    let doc;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new ImportError(`Not JSON: ${e.message}`);
    }
    // Accepted shapes: this panel's export {format, provider, version, tree}, a snapshot message
    // {type: "snapshot", version, tree}, or a bare node. Which one it is only decides where the
    // tree is; the core judges the tree.
    const wrapped = doc && typeof doc === 'object' && !Array.isArray(doc) && doc.tree !== undefined;
    const tree = wrapped ? doc.tree : doc;
    const version = wrapped && Number.isFinite(doc.version) && doc.version >= 0 ? doc.version : 0;
    const fileProvider = wrapped && doc.provider && typeof doc.provider === 'object' ? doc.provider : null;
    this.key = `import:${++counter}`;
    this.name = String(name ?? 'file').slice(0, 200);
    this.version = version;
    this.fileProvider = fileProvider
      ? { id: String(fileProvider.id ?? '').slice(0, 200), name: String(fileProvider.name ?? '').slice(0, 200) }
      : null;
    this.exportedAt = wrapped && typeof doc.exportedAt === 'string' ? doc.exportedAt.slice(0, 40) : null;

    const now = Date.now();
    const c = new (core().SlopConsumer)({ transport: 'ws' });
    try {
      this.primarySub = c.subscribe({ path: '/', depth: -1 }, now);
      c.receive(JSON.stringify({
        type: 'hello',
        provider: { id: 'import', name: this.name, slop_version: '0.1', capabilities: IMPORT_CAPABILITIES },
      }), now);
      // The core's subscribe frame carries the request id the snapshot must answer.
      const out = c.drain().find((o) => o.kind === 'send');
      const wireId = out ? JSON.parse(out.frame).id : null;
      if (typeof wireId !== 'string') throw new ImportError('the core sent no subscribe');
      c.receive(JSON.stringify({ type: 'snapshot', id: wireId, version, seq: 0, tree }), now);
      const events = c.drain().filter((o) => o.kind === 'event').map((o) => o.event);
      const bad = events.find((e) => e.event === 'protocol_error' || e.event === 'error');
      if (bad || !events.some((e) => e.event === 'snapshot')) {
        throw new ImportError(`The core refused the tree: ${bad?.message ?? 'no snapshot'}`);
      }
      this.consumer = c;
    } catch (e) {
      c.free();
      throw e instanceof ImportError ? e : new ImportError(String(e?.message ?? e));
    }
  }

  /** The subscription's root path and node count (core status). */
  subscription() {
    return this.consumer.status().subscriptions?.find((s) => s.sub === this.primarySub) ?? null;
  }

  info() {
    return { key: this.key, name: this.name, fileProvider: this.fileProvider, exportedAt: this.exportedAt, version: this.version };
  }

  dispose() {
    this.consumer?.free();
    this.consumer = null;
  }
}
