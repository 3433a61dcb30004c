// imports.js: JSON documents the panel imports to look at read-only. Each goes into a throwaway
// core consumer made for documents (slop_consumer_load): the core finds the tree in the file
// (an export, a snapshot message or a bare node) and checks it exactly as it would a provider's
// snapshot; whatever it refuses fails the import with the core's message. Nothing is parsed or
// checked here.
//
// An import is reached like a connection (key "import:N"): GET_NODES, GET_TREE and AGENT_VIEW
// work on it (needSource); INVOKE does not (the core refuses every request on a document). The
// requests that open and close one (INSPECT_TREE, CLOSE_IMPORT) are at the end; an import belongs
// to the UI port that opened it and goes when that port closes.

import { Request, LIMITS, ErrorCode } from '../shared/messages.js';
import { core } from './core.js';
import { breadthFirstViews } from './node-views.js';
import { perPort, needConnection, viewBudget, RequestError } from './panel-ports.js';

export class ImportError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.code = ErrorCode.INVALID_TREE;
  }
}

let counter = 0;

/** @typedef {import('../../js-glue/slop-core.js').SlopConsumerT} SlopConsumer */

/**
 * An imported document: the same surface panel-ports.js uses of a Connection (key, consumer,
 * primarySub, info()).
 */
export class ImportedTree {
  /**
   * @param {string} text  the file's contents
   * @param {string|null|undefined} name  the file's name (shown, never interpreted)
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
      const provider = /** @type {{id: string, name: string}} */ (doc.provider);
      this.fileProvider = doc.names_provider ? { id: provider.id, name: provider.name } : null;
      this.exportedAt = doc.exported_at;
      c.drain(); // the hello and snapshot events: nobody listens to an import
      /** @type {SlopConsumer|null} null once disposed */
      this.consumer = c;
    } catch (e) {
      c.free();
      throw new ImportError(String(/** @type {any} a thrown value */ (e)?.message ?? e)); // the core's reason: "the tree was refused: ..."
    }
  }

  /** The subscription's root path and node count (core status). */
  subscription() {
    const st = /** @type {import('../shared/messages.js').ConsumerStatus} */ (/** @type {SlopConsumer} */ (this.consumer).status());
    return st.subscriptions?.find((s) => s.sub === this.primarySub) ?? null;
  }

  info() {
    return { key: this.key, name: this.name, fileProvider: this.fileProvider, exportedAt: this.exportedAt, version: this.version };
  }

  dispose() {
    this.consumer?.free();
    this.consumer = null;
  }
}

// ------------------------------------------------------------------------------ requests

/** Port → "import:N" → the documents it opened (the oldest first). */
const importsOf = perPort(() => /** @type {Map<string, ImportedTree>} */ (new Map()));

/**
 * A live connection, or one of this port's imports (read-only requests only).
 * @param {import('./panel-ports.js').UiPort} ui @param {unknown} key
 * @returns {import('./connections.js').Connection|ImportedTree}
 */
export function needSource(ui, key) {
  const imports = importsOf(ui);
  if (typeof key === 'string' && imports.has(key)) return /** @type {ImportedTree} */ (imports.get(key));
  return needConnection(ui, key);
}

/** @type {import('./panel-ports.js').RequestTable} */
export const importRequests = {
  requests: {
    [Request.INSPECT_TREE](ui, m) {
      if (typeof m.text !== 'string') throw new RequestError(ErrorCode.BAD_REQUEST, 'text must be a string');
      const imports = importsOf(ui);
      const imp = new ImportedTree(m.text, m.name);
      imports.set(imp.key, imp);
      while (imports.size > LIMITS.IMPORTS_PER_PORT) {
        const [oldest] = imports.keys();
        /** @type {ImportedTree} */ (imports.get(oldest)).dispose();
        imports.delete(oldest);
      }
      const info = /** @type {import('../shared/messages.js').SubscriptionInfo} a loaded document has its subscription */ (imp.subscription());
      const { nodes, complete } = breadthFirstViews(/** @type {SlopConsumer} */ (imp.consumer), imp.primarySub, info.path, viewBudget(m));
      return {
        ...imp.info(), sub: imp.primarySub, path: info.path, version: info.version ?? imp.version,
        count: info.nodes ?? nodes.length, nodes, complete,
      };
    },
    [Request.CLOSE_IMPORT](ui, m) {
      const imports = importsOf(ui);
      imports.get(m.key)?.dispose();
      imports.delete(m.key);
      return {};
    },
  },
  release(ui) {
    const imports = importsOf(ui);
    for (const imp of imports.values()) imp.dispose();
    imports.clear();
  },
};
