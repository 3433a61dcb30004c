// imports.js: JSON documents the panel imports to look at read-only. Each goes into a throwaway
// core consumer made for documents (slop_consumer_load): the core finds the tree in the file
// (an export, a snapshot message or a bare node) and checks it exactly as it would a provider's
// snapshot; whatever it refuses fails the import with the core's message. Nothing is parsed or
// checked here.
//
// An import is reached like a connection (key "import:N"): GET_NODES, GET_TREE and AGENT_VIEW
// work on it; INVOKE does not (the core refuses every request on a document).

import { LIMITS, ErrorCode } from '../shared/messages.js';
import { core } from './core.js';

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
    this.key = `import:${++counter}`;
    this.name = String(name ?? 'file').slice(0, 200);
    const c = new (core().SlopConsumer)({ transport: 'document', limits: { maxFrameBytes: LIMITS.IMPORT_TEXT_MAX * 3 } });
    try {
      const doc = c.load(text, this.name);
      this.primarySub = doc.sub;
      this.version = doc.version;
      this.fileProvider = doc.names_provider ? { id: doc.provider.id, name: doc.provider.name } : null;
      this.exportedAt = doc.exported_at;
      c.drain(); // the hello and snapshot events: nobody listens to an import
      this.consumer = c;
    } catch (e) {
      c.free();
      throw new ImportError(String(e?.message ?? e)); // the core's reason: "the tree was refused: ..."
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
