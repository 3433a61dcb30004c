// core-contract.js: the contract of the core's boundary, in JavaScript: the names and numbers of
// wasm/include/slop_core.h that JavaScript compares against or sends. Every other file in js-glue/,
// extension/ and bin/ takes them from here and never spells them (tests/node/core-contract.test.js
// derives each list below from the header and the core's C source and fails on a difference, and
// scans those folders for a core event name or error code written as a literal).
//
// A plain module: no imports, no Node or browser API, so the service worker, the panel, Node and
// the CLI all load it as it is.

/**
 * Every event the core emits (slop_consumer_next, SLOP_OUT_EVENT: the `event` member), by name.
 * A request's first event with its id is its answer: RESULT, QUERY, DRIFT, ERROR, TIMEOUT or CLOSED.
 */
export const CoreEventName = Object.freeze({
  HELLO: 'hello',
  SNAPSHOT: 'snapshot',
  PROVIDER_CHANGED: 'provider_changed',
  PATCH: 'patch',
  RESYNC: 'resync',
  QUERY: 'query',
  DRIFT: 'drift',
  RESULT: 'result',
  TASK: 'task',
  ERROR: 'error',
  TIMEOUT: 'timeout',
  CLOSED: 'closed',
  PROVIDER_EVENT: 'provider_event',
  PROTOCOL_ERROR: 'protocol_error',
});

/**
 * The codes slop_local_refusal gives (wasm/src/discovery.c): why a provider directory, a file
 * name or a descriptor file is not read (local discovery's filesystem hardening).
 */
export const LocalRefusalCode = Object.freeze({
  TEMP_FILE: 'temp_file',
  BAD_NAME: 'bad_name',
  BAD_KIND: 'bad_kind',
  NOT_A_DIRECTORY: 'not_a_directory',
  NOT_A_FILE: 'not_a_file',
  DIR_OWNER: 'dir_owner',
  FILE_OWNER: 'file_owner',
  DIR_MODE: 'dir_mode',
  FILE_MODE: 'file_mode',
});

/** A request's kind, as closed and timeout events name it (RequestKind). */
export const RequestKindName = Object.freeze({ SUBSCRIBE: 'subscribe', QUERY: 'query', INVOKE: 'invoke', REQUEST: 'request' });

/**
 * The codes of a protocol_error event (its `code`), as the header lists them. bad_snapshot,
 * too_many_nodes, bad_seq and version_regressed also come as a query's error event code.
 */
export const ProtocolErrorCode = Object.freeze({
  BAD_JSON: 'bad_json',
  TOO_DEEP: 'too_deep',
  FRAME_TOO_LARGE: 'frame_too_large',
  BAD_MESSAGE: 'bad_message',
  BAD_SNAPSHOT: 'bad_snapshot',
  TOO_MANY_NODES: 'too_many_nodes',
  BAD_SEQ: 'bad_seq',
  VERSION_REGRESSED: 'version_regressed',
  STALE_PATCH: 'stale_patch',
  SEQ_REPEAT: 'seq_repeat',
  PATCH_BEFORE_SNAPSHOT: 'patch_before_snapshot',
  RESYNC_LOOP: 'resync_loop',
  UNKNOWN_TYPE: 'unknown_type',
  UNDECLARED_CAPABILITY: 'undeclared_capability',
  NOT_A_PROVIDER: 'not_a_provider',
  OUT_OF_MEMORY: 'out_of_memory',
});

/** Error codes of slop_code (0 and negative numbers) by name: a SlopError's `code` and `codeName`. */
export const SlopCode = Object.freeze({
  OK: 0, E_ARG: -1, E_CAPABILITY: -2, E_PARAMS: -3, E_NOT_FOUND: -4,
  E_STATE: -5, E_LIMIT: -6, E_NOMEM: -7,
});

/** slop_output_kind: what slop_consumer_next() hands back. */
export const SlopOutputKind = Object.freeze({ NONE: 0, SEND: 1, EVENT: 2 });

/**
 * The fields of struct slop_limits, in order (wasm32: size_t and unsigned are 4 bytes each), by
 * the names SlopConsumer's `limits` option takes.
 */
export const LIMIT_FIELDS = Object.freeze(['maxFrameBytes', 'maxJsonDepth', 'maxNodes', 'requestTimeoutMs', 'maxPending']);

/** The core's defaults for a 0 limit (SLOP_DEFAULT_* of slop_core.h; tests/node/header.test.js pins them). */
export const DEFAULT_LIMITS = Object.freeze({
  maxFrameBytes: 64 * 1024 * 1024, maxJsonDepth: 96, maxNodes: 2000000, requestTimeoutMs: 30000, maxPending: 4096,
});

// ---------------------------------------------------------------------------------------------
// The events, member by member, as slop_core.h documents them (slop_consumer_next). `?` members
// may be absent. Numbers are whatever the core's JSON reader gave (exact-json.js).

/** @typedef {'subscribe'|'query'|'invoke'|'request'} RequestKind  a request's kind ('request': only in the consumer session's own closed event) */

/**
 * @typedef {object} HelloEvent
 * @property {'hello'} event
 * @property {{id: string, name: string, slop_version?: string, [k: string]: any}} provider
 * @property {string[]} capabilities
 */
/**
 * @typedef {object} SnapshotEvent  a subscription's mirror (re)based
 * @property {'snapshot'} event
 * @property {string} sub       the caller-facing subscription id, stable across resyncs
 * @property {string} path
 * @property {number} version
 * @property {number} nodes
 * @property {boolean} rebase   it replaced a mirror (previous_version is that mirror's)
 * @property {number} [previous_version]
 * @property {true} [restarted] on a new connection, with a version below previous_version
 */
/**
 * @typedef {object} ProviderChangedEvent  another provider id answers after a reconnect: mirrors dropped
 * @property {'provider_changed'} event
 * @property {object} previous
 * @property {object} provider
 * @property {string} message
 */
/**
 * @typedef {object} ChildListChange  one entry of a patch event's `children`
 * @property {'insert'|'remove'} op
 * @property {string} parent    absolute path of the list's node
 * @property {number} index     insert: the child's position after; remove: its position before
 * @property {string} id
 */
/**
 * @typedef {object} PatchEvent
 * @property {'patch'} event
 * @property {string} sub
 * @property {number} version
 * @property {number} ops
 * @property {string[]} changed   nodes whose own fields changed (absolute paths)
 * @property {string[]} added     roots of the subtrees that came
 * @property {string[]} removed   roots of the subtrees that went
 * @property {ChildListChange[]} children  in op order
 * @property {true} [truncated]   the lists hold only part of it: re-read the subtree
 */
/**
 * @typedef {object} ResyncEvent  frames follow
 * @property {'resync'} event
 * @property {string} sub
 * @property {string} reason
 * @property {string} message
 */
/**
 * @typedef {object} QueryEvent  the answer to a query
 * @property {'query'} event
 * @property {string} id
 * @property {string} path
 * @property {number} version
 * @property {object} tree
 * @property {number} [more]                     a windowed collection: children beyond this page
 * @property {[number, number]} [next_window]    and the page after it
 */
/**
 * @typedef {object} DriftEvent  the outcome of slop_consumer_check_drift
 * @property {'drift'} event
 * @property {string} id
 * @property {string} sub
 * @property {'same'|'differs'|'inconclusive'} status
 * @property {number} version
 * @property {number} [count]
 * @property {{path: string, mirror?: any, provider?: any}[]} [differences]
 * @property {string} [message]
 */
/**
 * @typedef {object} ResultEvent  the answer to an invoke
 * @property {'result'} event
 * @property {string} id
 * @property {string} path
 * @property {string} action
 * @property {'ok'|'error'|'accepted'} status
 * @property {any} [data]
 * @property {{code: string, message: string}} [error]
 * @property {string} [task_id]
 */
/**
 * @typedef {object} TaskEvent  follows an accepted result
 * @property {'task'} event
 * @property {string} id
 * @property {string} task_id
 * @property {string} path
 * @property {string} status
 * @property {number} progress
 * @property {string} message
 * @property {boolean} done
 */
/**
 * @typedef {object} ErrorEvent  a provider error; sub: it answered that subscription
 * @property {'error'} event
 * @property {string} [id]
 * @property {RequestKind} [request]
 * @property {string} [sub]
 * @property {string} code
 * @property {string} message
 */
/**
 * @typedef {object} TimeoutEvent  a request not answered in time
 * @property {'timeout'} event
 * @property {string} id
 * @property {RequestKind} request
 */
/**
 * @typedef {object} ClosedEvent  the transport closed before the request's answer
 * @property {'closed'} event
 * @property {string} id
 * @property {RequestKind} request
 * @property {string} [message]   not the core's: only in the one the consumer session makes up for
 *                                the requests still waiting when its core consumer is freed
 */
/**
 * @typedef {object} ProviderEventEvent  the provider's own event
 * @property {'provider_event'} event
 * @property {string} name
 * @property {any} [data]
 */
/**
 * @typedef {object} ProtocolErrorEvent  the frame was dropped whole; the last good state stays
 * @property {'protocol_error'} event
 * @property {typeof ProtocolErrorCode[keyof typeof ProtocolErrorCode]} code
 * @property {string} message
 * @property {boolean} fatal    the caller should disconnect
 */
/**
 * @typedef {HelloEvent|SnapshotEvent|ProviderChangedEvent|PatchEvent|ResyncEvent|QueryEvent|DriftEvent|ResultEvent|TaskEvent|ErrorEvent|TimeoutEvent|ClosedEvent|ProviderEventEvent|ProtocolErrorEvent} CoreEvent
 *   one event of the core, told apart by `event` (one of CoreEventName)
 */
/** @typedef {CoreEvent['event']} CoreEventNameValue */
/**
 * @typedef {object} EventText  what SlopConsumer.drain() adds to an event when it reads numbers
 *   plainly (numbers: 'plain', the extension's worker: its events cross ports, which carry doubles)
 * @property {string} [exact]  the core's JSON text of the whole event, only on an event that is not
 *   a patch and whose text may hold a number JSON.parse or a port would change (-0, 1.50, 1E5, an
 *   integer a double cannot hold: exact-json.js ODD_NUMBER). Whoever shows or returns the event's
 *   values reads them from it: exactEvent(ev) in exact-json.js.
 */
/** @typedef {CoreEvent & EventText} DrainedEvent  a core event as drain() gives it */

