/*
 * slop_core.h: the SLOP consumer core (State Layer for Observable Programs).
 *
 * One consumer object speaks the consumer side of SLOP with one provider
 * connection. It never does I/O and never reads a clock: the caller feeds it
 * the provider's frames and the current time, and drains what it produced:
 * frames to send to the provider and events to show the user.
 *
 *     slop_consumer *c = slop_consumer_new(NULL, "ws", seed);
 *     const char *options = "{\"path\":\"/\",\"depth\":-1}";
 *     slop_consumer_subscribe(c, options, strlen(options), now_ms(), NULL);
 *     const char *frame, *out;
 *     size_t len, n;
 *     slop_output_kind kind;
 *     while (transport_read(&frame, &len)) {       // one provider frame
 *         slop_consumer_receive(c, frame, len, now_ms());
 *         while ((kind = slop_consumer_next(c, &out, &n)) != SLOP_OUT_NONE) {
 *             if (kind == SLOP_OUT_SEND) transport_send(out, n);  // a SLOP frame
 *             else show_event(out, n);                          // an event, JSON
 *         }
 *         slop_consumer_tick(c, now_ms());  // from a timer: timeouts, retries
 *     }
 *     slop_consumer_close(c, now_ms());     // transport closed: requests fail
 *     slop_consumer_free(c);
 *
 *   (tests/node/header.test.js compiles and runs this example.)
 *
 * Strings.
 *   Every string in or out is UTF-8. Frames and JSON documents passed in take
 *   an explicit length and need no NUL terminator; short strings (paths,
 *   action names, URLs) are NUL-terminated.
 *
 * Ownership.
 *   - A `const char *` returned by a slop_consumer_* function is owned by the
 *     consumer. It stays valid until the next call on the same consumer, or
 *     until slop_consumer_free(); copy it to keep it. It is NUL-terminated and
 *     its length (without the NUL) is stored in *out_len when out_len is not
 *     NULL.
 *   - A `char *` returned by a free-standing slop_* function (no consumer
 *     argument) is allocated for the caller, who frees it with slop_free().
 *   - Input buffers are only read during the call; the core keeps no pointer
 *     into them.
 *
 * Errors.
 *   Calls that can fail return NULL (or a negative slop_code) and leave a
 *   message in slop_consumer_last_error(). Bad input from the provider never
 *   fails a call: it becomes a "protocol_error" event, the offending frame is
 *   dropped whole, and the last good state stays. Nothing here aborts.
 *
 * Strict input.
 *   Every byte from outside passes one validating scanner before it is used.
 *   A frame is refused whole ("bad_json", state kept) for: invalid UTF-8 in
 *   any string, key or id (overlongs, surrogates, bytes C0 C1 F5..FF,
 *   truncated sequences, stray continuation bytes); a \u0000 escape (C
 *   strings cannot carry it); a number beyond a double (1e400, -1e400; one
 *   that underflows reads as 0); a member name twice in one object, at any
 *   depth (JSON.stringify never writes that, and readers disagree on which
 *   one wins). Inside a snapshot's tree the same refusals are reported as
 *   "bad_snapshot". Versions and seqs must be integers from 0 to 2^53.
 *
 * Exact output.
 *   Everything the core prints carries each number as the provider wrote
 *   it and strings byte for byte as the provider sent them: a field no patch
 *   touched is its own text, and a value the core parsed (a patched field,
 *   a result's or an event's data) keeps its text wherever the shortest text
 *   that reads back as the same double would differ (1.50, 1E5, 1e21,
 *   0.000010, -0.0, 0.30000000000000004 all stay so; 1.5 and -0 are their
 *   own shortest text). The text is only how the number is written: every
 *   check reads its value (salience 0.50 is 0.5, enum [2.50] takes 2.5). An
 *   integer a double cannot hold (beyond 2^53, as 64-bit ids are) keeps the
 *   provider's digits wherever it goes: views, tree text, patches, events,
 *   params checks (1234567890123456789 is never ...784). As a version or a
 *   seq it is refused. What the core makes up itself (versions, counts,
 *   indexes in events) it prints in the shortest form. A node
 *   without children has no "children" member, whether the provider wrote
 *   it absent, null or [] (the one canonical form for exports and diffs).
 *
 * What the spec leaves open, decided once:
 *   - Versions never go back within one connection; a snapshot answering a
 *     subscribe sent on a new connection (after reset()) starts a new
 *     history and re-bases the mirror whatever its version (the provider
 *     restarted: the event says "restarted"). A different provider id after
 *     a reconnect drops the old mirror ("provider_changed").
 *   - A snapshot with a seq other than 0 is refused ("bad_seq"): which
 *     patches follow it cannot be known.
 *   - With seq, a patch whose seq is next but whose version is older than
 *     the last one is refused and resyncs ("version_regressed"). Without
 *     seq (older providers), a patch not newer than the snapshot is taken as
 *     contained in it and ignored with a "stale_patch" protocol_error.
 *   - Patch ops refused (the patch is rolled back and the subscription
 *     resyncs, reason "patch_failed"): "add" of a child id that exists
 *     ("replace" replaces); "move" or indexed "add" past the end (move to
 *     count - 1 is last; add at count appends); a path with an empty
 *     segment ("//a", "/a//b", "/a/"); a reserved keyword where a node id
 *     must be ("/a/children/meta").
 *   - null where a node field is (properties, meta, affordances,
 *     content_ref, children) means absent, in snapshots and patches alike:
 *     "replace /a/properties null" removes a's properties.
 *   - Frames received after close() are ignored, never applied.
 *   - Consumer messages (connect, subscribe, unsubscribe, query, invoke)
 *     received are ignored: on "postmessage" they are the consumers' own
 *     posts seen again by the window, silently; on "ws" they count in
 *     status "ignored_frames".
 *   - A resync that loads a snapshot is a success. More than 10 resyncs of
 *     one subscription within 10 s pause it ("resync_loop": stale, the last
 *     good state kept). A subscription the core gave up on (refused
 *     snapshot, provider error, no snapshot within the request timeout,
 *     resync_loop) is retried by tick() after 5 s, doubling to 60 s, and
 *     revived by any good snapshot meanwhile; slop_consumer_resync() retries
 *     at once.
 *
 * Threads. A consumer is not thread-safe; distinct consumers are independent.
 * There is no global state besides the allocator.
 */
#ifndef SLOP_CORE_H
#define SLOP_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Limits and codes                                                          */
/* ------------------------------------------------------------------------ */

/* Defaults used when a field of slop_limits is 0. */
#define SLOP_DEFAULT_MAX_FRAME_BYTES   (64u * 1024u * 1024u) /* one frame      */
#define SLOP_DEFAULT_MAX_JSON_DEPTH    96u       /* array/object nesting       */
#define SLOP_DEFAULT_MAX_NODES         2000000u  /* mirrored nodes, all subs   */
#define SLOP_DEFAULT_TIMEOUT_MS        30000u    /* per request                */
#define SLOP_DEFAULT_MAX_PENDING       4096u     /* requests in flight         */
#define SLOP_TOOL_NAME_MAX_DEFAULT     64u       /* Gemini's function-name cap */


/* ------------------------------------------------------------------------ */
/* The contract: every name that crosses the core's boundary, in one table   */
/* ------------------------------------------------------------------------ */

/*
 * Each list below is an X-macro: SLOP_EVENTS(X) calls X once per event. The
 * core's own code takes its names from these lists (the dispatch of provider
 * messages, the relay, conformance, the events it prints), and the build makes
 * js-glue/core-contract.js and core-contract.d.ts from them
 * (wasm/tools/contract_gen.c), with SLOP_CONTRACT_VERSION and a hash of every
 * name, which the glue checks against slop_contract_hash() when the wasm
 * loads. To add a name, add its line here; nothing else spells it.
 */

/* Bump when a name's meaning changes without its spelling changing. */
#define SLOP_CONTRACT_VERSION 1u

/* The codes of slop_code: X(NAME, value, "what it means"). */
#define SLOP_CODES(X)                                                              \
    X(OK, 0, "success")                                                            \
    X(E_ARG, -1, "a caller argument is malformed")                                 \
    X(E_CAPABILITY, -2, "the provider did not declare the capability")             \
    X(E_PARAMS, -3, "invoke params fail the affordance schema")                    \
    X(E_NOT_FOUND, -4, "no such subscription, node or affordance")                 \
    X(E_STATE, -5, "not possible now (closed, no provider, ...)")                  \
    X(E_LIMIT, -6, "a configured limit would be exceeded")                         \
    X(E_NOMEM, -7, "out of memory")

/* What slop_consumer_next() hands back: X(NAME, value, "what it is"). */
#define SLOP_OUTPUT_KINDS(X)                                                       \
    X(NONE, 0, "queue empty")                                                      \
    X(SEND, 1, "a frame (JSON text) to send to the provider")                      \
    X(EVENT, 2, "an event (JSON object) for the caller")                           \
    X(PATCH, 3, "a patch event as a record (slop_consumer_patch_records)")

/* The message types a provider sends (spec: messages): X(NAME, "type"). */
#define SLOP_PROVIDER_MESSAGES(X)                                                  \
    X(HELLO, "hello")                                                              \
    X(SNAPSHOT, "snapshot")                                                        \
    X(PATCH, "patch")                                                              \
    X(RESULT, "result")                                                            \
    X(ERROR, "error")                                                              \
    X(EVENT, "event")                                                              \
    X(BATCH, "batch")

/* The message types a consumer sends: X(NAME, "type", needs an id). */
#define SLOP_CONSUMER_MESSAGES(X)                                                  \
    X(CONNECT, "connect", 0)                                                       \
    X(SUBSCRIBE, "subscribe", 1)                                                   \
    X(UNSUBSCRIBE, "unsubscribe", 1)                                               \
    X(QUERY, "query", 1)                                                           \
    X(INVOKE, "invoke", 1)

/* The capabilities a hello may declare, in bit order (bit k is 1 << k). */
#define SLOP_CAPABILITIES(X)                                                       \
    X(STATE, "state")                                                              \
    X(PATCHES, "patches")                                                          \
    X(AFFORDANCES, "affordances")                                                  \
    X(ATTENTION, "attention")                                                      \
    X(WINDOWING, "windowing")                                                      \
    X(ASYNC, "async")                                                              \
    X(CONTENT_REFS, "content_refs")

/* A request's kind, as timeout, closed and error events name it ("request"). */
#define SLOP_REQUEST_KINDS(X)                                                      \
    X(SUBSCRIBE, "subscribe")                                                      \
    X(QUERY, "query")                                                              \
    X(INVOKE, "invoke")

/* A subscription's state, as slop_consumer_status() gives it ("state"). */
#define SLOP_SUB_STATES(X)                                                         \
    X(WAITING, "waiting", "subscribed, no snapshot yet")                           \
    X(LIVE, "live", "the mirror follows the provider")                             \
    X(RESYNCING, "resyncing", "a new snapshot was asked for; the last good state stays") \
    X(STALE, "stale", "paused (resync_loop): the last good state, retried later")  \
    X(FAILED, "failed", "given up (refused snapshot, provider error, timeout): retried later") \
    X(DOCUMENT, "document", "a read-only copy loaded from a file")

/*
 * The codes of a protocol_error event ("code"), with the conformance rule a
 * provider breaks when the core reports it (NULL: the consumer's own limit):
 * X(NAME, "code", rule). bad_snapshot, too_many_nodes, bad_seq and
 * version_regressed also come as a query's error event code.
 */
#define SLOP_PROTOCOL_ERRORS(X)                                                    \
    X(BAD_JSON, "bad_json", "json")                                                \
    X(TOO_DEEP, "too_deep", NULL)                                                  \
    X(FRAME_TOO_LARGE, "frame_too_large", NULL)                                    \
    X(BAD_MESSAGE, "bad_message", "message-shape")                                 \
    X(BAD_SNAPSHOT, "bad_snapshot", "tree-shape")                                  \
    X(TOO_MANY_NODES, "too_many_nodes", NULL)                                      \
    X(BAD_SEQ, "bad_seq", "seq-snapshot")                                          \
    X(VERSION_REGRESSED, "version_regressed", "version-order")                     \
    X(STALE_PATCH, "stale_patch", "patch-newer")                                   \
    X(SEQ_REPEAT, "seq_repeat", "seq-order")                                       \
    X(PATCH_BEFORE_SNAPSHOT, "patch_before_snapshot", "snapshot-first")            \
    X(RESYNC_LOOP, "resync_loop", NULL)                                            \
    X(UNKNOWN_TYPE, "unknown_type", "message-type")                                \
    X(UNDECLARED_CAPABILITY, "undeclared_capability", "capability-patches")        \
    X(NOT_A_PROVIDER, "not_a_provider", "hello-state")                             \
    X(OUT_OF_MEMORY, "out_of_memory", NULL)

/* Why slop_local_refusal() refuses a directory, a name or a descriptor. */
#define SLOP_LOCAL_REFUSALS(X)                                                     \
    X(TEMP_FILE, "temp_file")                                                      \
    X(BAD_NAME, "bad_name")                                                        \
    X(BAD_KIND, "bad_kind")                                                        \
    X(NOT_A_DIRECTORY, "not_a_directory")                                          \
    X(NOT_A_FILE, "not_a_file")                                                    \
    X(DIR_OWNER, "dir_owner")                                                      \
    X(FILE_OWNER, "file_owner")                                                    \
    X(DIR_MODE, "dir_mode")                                                        \
    X(FILE_MODE, "file_mode")

/* The parts of events that have a shape of their own: X(TypeName, "members", "what it is"). */
#define SLOP_EVENT_PARTS(X)                                                        \
    X(ChildListChange, "op: 'insert'|'remove'; parent: string; index: number; id: string", \
      "one entry of a patch event's children: parent is the list's node; index: insert, the child's " \
      "position after; remove, its position before (a move is both)")

/*
 * The events slop_consumer_next() gives as SLOP_OUT_EVENT: a JSON object whose
 * "event" member is the name. X(NAME, "name", "members", "what it says"); the
 * members are written as TypeScript object members (`?`: may be absent;
 * sub is the caller-facing subscription id, stable across resyncs; paths are
 * absolute node paths). A request's first event with its id is its answer:
 * result, query, drift, error, timeout or closed; task events follow an
 * accepted result.
 */
#define SLOP_EVENTS(X)                                                             \
    X(HELLO, "hello", "provider: {id: string, name: string, slop_version?: string, [k: string]: any}; " \
      "capabilities: string[]",                                                     \
      "the provider said who it is")                                                \
    X(SNAPSHOT, "snapshot", "sub: string; path: string; version: number; nodes: number; rebase: boolean; " \
      "previous_version?: number; restarted?: true",                                \
      "a subscription's mirror (re)based. rebase: it replaced a mirror (previous_version is that " \
      "mirror's); restarted: on a new connection, with a version below previous_version") \
    X(PROVIDER_CHANGED, "provider_changed", "previous: object; provider: object; message: string", \
      "another provider id answers after a reconnect: mirrors dropped")             \
    X(PATCH, "patch", "sub: string; version: number; ops: number; changed: string[]; added: string[]; " \
      "removed: string[]; children: ChildListChange[]; truncated?: true",           \
      "changed: nodes whose own fields changed; added, removed: roots of the subtrees that came " \
      "and went; children: every insertion into and removal from a children list, in op order " \
      "(applied in order to the ids as they were, they give the ids now); truncated: the patch " \
      "touched more than the lists hold (1024 entries in all): re-read the subtree") \
    X(RESYNC, "resync", "sub: string; reason: string; message: string",             \
      "a subscription is being re-read: frames follow")                             \
    X(QUERY, "query", "id: string; path: string; version: number; tree: object; more?: number; " \
      "next_window?: [number, number]",                                             \
      "the answer to a query; no mirror is kept. more/next_window: on a windowed collection, the " \
      "page after this one (none after a page that brought no child)")             \
    X(DRIFT, "drift", "id: string; sub: string; status: 'same'|'differs'|'inconclusive'; version: number; " \
      "count?: number; differences?: {path: string, mirror?: any, provider?: any}[]; message?: string", \
      "the outcome of slop_consumer_check_drift")                                   \
    X(RESULT, "result", "id: string; path: string; action: string; status: 'ok'|'error'|'accepted'; " \
      "data?: any; error?: {code: string, message: string}; task_id?: string",      \
      "the answer to an invoke")                                                    \
    X(TASK, "task", "id: string; task_id: string; path: string; status: string; progress: number; " \
      "message: string; done: boolean",                                             \
      "progress of an accepted invoke")                                             \
    X(ERROR, "error", "id?: string; request?: RequestKind; sub?: string; code: string; message: string", \
      "a provider error; sub: it answered that subscription (given up, retried later)") \
    X(TIMEOUT, "timeout", "id: string; request: RequestKind",                        \
      "a request not answered in time")                                             \
    X(CLOSED, "closed", "id: string; request: RequestKind; message?: string",        \
      "the transport closed before the request's answer (message: only in the one the glue's " \
      "consumer session makes up for requests still waiting when its consumer is freed)") \
    X(PROVIDER_EVENT, "provider_event", "name: string; data?: any",                 \
      "the provider's own event")                                                   \
    X(PROTOCOL_ERROR, "protocol_error", "code: ProtocolErrorCodeValue; message: string; fatal: boolean", \
      "the frame was dropped whole and the last good state stays; fatal: the caller should " \
      "disconnect (e.g. no \"state\" capability)")

/* The fields of slop_limits, in order: X(field, type, default for 0, "what a larger value is"). */
#define SLOP_LIMITS(X)                                                             \
    X(max_frame_bytes, size_t, SLOP_DEFAULT_MAX_FRAME_BYTES, "refused: frame_too_large") \
    X(max_json_depth, unsigned, SLOP_DEFAULT_MAX_JSON_DEPTH, "refused: too_deep")  \
    X(max_nodes, size_t, SLOP_DEFAULT_MAX_NODES, "mirror cap across subscriptions: too_many_nodes") \
    X(request_timeout_ms, unsigned, SLOP_DEFAULT_TIMEOUT_MS, "a request not answered in time: timeout event") \
    X(max_pending, unsigned, SLOP_DEFAULT_MAX_PENDING, "more requests in flight are refused locally")

#define SLOP__X_LIMIT_FIELD(field, type, dflt, what) type field;
typedef struct slop_limits {
    SLOP_LIMITS(SLOP__X_LIMIT_FIELD)
} slop_limits;

#define SLOP__X_CODE(name, value, what) SLOP_##name = value,
typedef enum slop_code { SLOP_CODES(SLOP__X_CODE) } slop_code;

#define SLOP__X_OUT(name, value, what) SLOP_OUT_##name = value,
typedef enum slop_output_kind { SLOP_OUTPUT_KINDS(SLOP__X_OUT) } slop_output_kind;

/* One enum per list, for the core's own code and C callers: SLOP_EV_PATCH,
 * SLOP_PE_BAD_JSON, SLOP_MSG_HELLO, SLOP_CMSG_INVOKE, SLOP_CAP_WINDOWING,
 * SLOP_REQ_QUERY, SLOP_SUB_LIVE, SLOP_LR_DIR_MODE; each ends with a _COUNT. */
#define SLOP__X_EV(name, text, members, doc) SLOP_EV_##name,
typedef enum slop_event_kind { SLOP_EVENTS(SLOP__X_EV) SLOP_EV_COUNT } slop_event_kind;
#define SLOP__X_PE(name, text, rule) SLOP_PE_##name,
typedef enum slop_protocol_error { SLOP_PROTOCOL_ERRORS(SLOP__X_PE) SLOP_PE_COUNT } slop_protocol_error;
#define SLOP__X_MSG(name, text) SLOP_MSG_##name,
typedef enum slop_provider_message { SLOP_PROVIDER_MESSAGES(SLOP__X_MSG) SLOP_MSG_COUNT } slop_provider_message;
#define SLOP__X_CMSG(name, text, needs_id) SLOP_CMSG_##name,
typedef enum slop_consumer_message { SLOP_CONSUMER_MESSAGES(SLOP__X_CMSG) SLOP_CMSG_COUNT } slop_consumer_message;
#define SLOP__X_CAP(name, text) SLOP_CAP_##name,
typedef enum slop_capability { SLOP_CAPABILITIES(SLOP__X_CAP) SLOP_CAP_COUNT } slop_capability;
#define SLOP__X_REQ(name, text) SLOP_REQ_##name,
typedef enum slop_request_kind { SLOP_REQUEST_KINDS(SLOP__X_REQ) SLOP_REQ_COUNT } slop_request_kind;
#define SLOP__X_SUB(name, text, doc) SLOP_SUB_##name,
typedef enum slop_sub_state { SLOP_SUB_STATES(SLOP__X_SUB) SLOP_SUB_COUNT } slop_sub_state;
#define SLOP__X_LR(name, text) SLOP_LR_##name,
typedef enum slop_local_refusal_code { SLOP_LOCAL_REFUSALS(SLOP__X_LR) SLOP_LR_COUNT } slop_local_refusal_code;

/* SLOP_CONTRACT_VERSION in the high byte, a 24-bit FNV-1a hash of every name
 * and member of the lists above below it: what the glue's generated
 * core-contract.js must match (it refuses to run against another core). */
uint32_t slop_contract_hash(void);

typedef struct slop_consumer slop_consumer;

/* ------------------------------------------------------------------------ */
/* Life cycle                                                                */
/* ------------------------------------------------------------------------ */

/*
 * Creates a consumer for one provider connection.
 *   limits:    NULL, or limits whose 0 fields take the defaults above.
 *   transport: "ws", "unix", "stdio" (one frame per WebSocket message or per
 *              NDJSON line: the same rules) or "postmessage". With
 *              "postmessage" the first output is
 *              the {"type":"connect"} handshake frame. "document": no
 *              provider, a tree from a file (see slop_consumer_load).
 *              "replay": a recording played back: the caller feeds the
 *              recorded provider frames with their recorded times, drains
 *              and drops what the consumer would send, and subscribes with
 *              the recorded subscription's id (options "id"), so every rule
 *              applies to the frames exactly as it did live.
 *   seed:      random bits from the caller (the core has no entropy source);
 *              they make this consumer's request ids unique ("sk3x9-1"), so
 *              two consumers on a shared channel never collide.
 * Returns NULL on a bad transport name or when out of memory.
 * The caller frees the consumer with slop_consumer_free().
 */
slop_consumer *slop_consumer_new(const slop_limits *limits, const char *transport,
                                 uint64_t seed);

/* Frees the consumer and everything it owns. NULL is a no-op. */
void slop_consumer_free(slop_consumer *c);

/* ------------------------------------------------------------------------ */
/* Input: frames, time, close                                                */
/* ------------------------------------------------------------------------ */

/*
 * Feeds one provider frame (one WebSocket or postMessage message: the SLOP
 * message itself, without the postMessage {slop:true} envelope).
 * Processes it completely (a batch in order, nested batches included) and
 * queues the resulting frames and events. Returns the number of outputs
 * queued by this call.
 */
int slop_consumer_receive(slop_consumer *c, const char *frame, size_t len, double now_ms);

/*
 * A frame the transport dropped unread because it is longer than
 * max_frame_bytes: a Unix socket's or stdio's line is never buffered whole,
 * so its length is not known. len: the bytes seen when it was dropped.
 * Reported as slop_consumer_receive reports an oversize frame (a
 * "frame_too_large" protocol_error); no state changes. Returns the number
 * of outputs queued.
 */
int slop_consumer_receive_oversize(slop_consumer *c, size_t len, double now_ms);

/* Expires requests older than the timeout ("timeout" events). Returns the
 * number of outputs queued. Call it from a timer, about once a second. */
int slop_consumer_tick(slop_consumer *c, double now_ms);

/* The transport closed: every pending request fails with a "closed" event,
 * subscriptions are marked stale (their mirrors stay readable), and
 * slop_consumer_reset() may be called to start over on a new connection.
 * Returns the number of outputs queued. */
int slop_consumer_close(slop_consumer *c, double now_ms);

/* A new connection to the same provider: forgets the hello, keeps the
 * subscriptions and re-sends them (after the new hello) so the mirrors
 * re-base from fresh snapshots. Returns the number of outputs queued. */
int slop_consumer_reset(slop_consumer *c, double now_ms);

/*
 * Takes the next output. Returns its kind; *out points to its text (owned by
 * the consumer, valid until the next call on c), *out_len gets its length.
 *
 * SLOP_OUT_SEND: a complete SLOP frame to send as is.
 * SLOP_OUT_EVENT: a JSON object with an "event" member: one of SLOP_EVENTS
 *   above, with the members listed there. A patch event's children entries
 *   are {"op":"insert"|"remove","parent":P,"index":I,"id":X} (insert: X's
 *   position after; remove: before; a move is both). A protocol_error's code
 *   is one of SLOP_PROTOCOL_ERRORS.
 * SLOP_OUT_PATCH: a patch event as a record, only after
 *   slop_consumer_patch_records(c, 1) (below); *out_len counts its NULs.
 */
slop_output_kind slop_consumer_next(slop_consumer *c, const char **out, size_t *out_len);

/*
 * Patch events as records instead of JSON, for a caller that would parse
 * the JSON again (the JavaScript glue: a patch event is the one output of
 * nearly every frame, and JSON.parse of it cost more than applying a small
 * patch). on: 1 for records, 0 for JSON (the default). Outputs already
 * queued keep their form.
 *
 * A record (SLOP_OUT_PATCH) holds the patch event's members, the same values
 * as its JSON form: a 32-byte header in the machine's byte order
 * (little-endian in wasm) at an 8-aligned address,
 *   double version; uint32 ops, changed, added, removed, children, truncated;
 * then strings, each ended by a NUL (the core's strings hold none: a
 * "\u0000" in a frame is refused): sub; the changed, added and removed
 * paths; per children entry four: "insert" or "remove", parent, index as
 * decimal digits, id. *out_len counts the header and every NUL.
 */
int slop_consumer_patch_records(slop_consumer *c, int on);

/* ------------------------------------------------------------------------ */
/* Requests                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * Subscribes. options: JSON object, all members optional:
 *   {"path":"/","depth":-1,"max_nodes":N,"filter":{"types":[..],"min_salience":x}}
 * A "replay" consumer also takes "id": the recorded subscription id to use
 * (1 to 200 bytes, not one it has already); any other consumer refuses it.
 * Returns the subscription id (owned by c) or NULL (see last_error). Frames
 * are queued; before the provider's hello they wait for it.
 */
const char *slop_consumer_subscribe(slop_consumer *c, const char *options, size_t len,
                                    double now_ms, size_t *out_len);

/* Unsubscribes and drops the mirror. Returns SLOP_OK or a negative code. */
int slop_consumer_unsubscribe(slop_consumer *c, const char *sub_id, double now_ms);

/* Starts a subscription over now (unsubscribe, subscribe under a fresh wire
 * id): the user's "Retry" for a stale or failed subscription. Clears the
 * resync count and any scheduled retry. SLOP_OK or a negative code. */
int slop_consumer_resync(slop_consumer *c, const char *sub_id, double now_ms);

/*
 * One-shot read. options as subscribe plus "window":[offset,count]; the
 * window is dropped when the provider lacks "windowing". The answer is a
 * "query" event carrying the tree. Returns the request id or NULL.
 */
const char *slop_consumer_query(slop_consumer *c, const char *options, size_t len,
                                double now_ms, size_t *out_len);

/*
 * Invokes `action` on the node at absolute `path`. params: a JSON object or
 * NULL/0 for none. Refused locally (NULL, last_error set) when the provider
 * lacks "affordances" (SLOP_E_CAPABILITY), when params are not an object or
 * fail the affordance's schema ("params.tags[1] must be a string",
 * SLOP_E_PARAMS), or when a mirror holds the node and it has no such
 * affordance (SLOP_E_NOT_FOUND; a stub node, id/type/meta only, is left to
 * the provider). A path no mirror holds is sent as it is: the node may be
 * outside every subscription or below its depth, or gone since; the
 * provider answers (an error result when it is gone).
 * Returns the request id or NULL. The answer is a "result" event.
 */
const char *slop_consumer_invoke(slop_consumer *c, const char *path, const char *action,
                                 const char *params, size_t params_len, double now_ms,
                                 size_t *out_len);

/*
 * Loads a document into a consumer made with transport "document": a tree
 * from a file, mirrored read-only with every rule a provider's snapshot
 * meets (ids, types, fields, limits). Accepted shapes: an export
 * {"provider":{id,name}?,"version":V?,"exportedAt":S?,"tree":{..}}, a
 * snapshot message {"type":"snapshot","version":V,"tree":{..}}, or a bare
 * node. `name` (the file's name, or NULL) names the provider when the
 * document does not. The document's provider id and name and its
 * exportedAt are labels for display: each is cut to 200 bytes (on a
 * character boundary); the tree itself is kept exactly. Queues a "hello" and a "snapshot" event, and returns
 *   {"sub":S,"format":"export"|"snapshot"|"node","version":V,"nodes":N,
 *    "provider":{id,name,capabilities},"names_provider":bool,
 *    "exported_at":S|null}
 * (owned by c), or NULL with last_error: SLOP_E_ARG (not JSON, the tree
 * refused, with the reason), SLOP_E_LIMIT (longer than max_frame_bytes, or
 * more nodes than max_nodes),
 * SLOP_E_STATE (not a document consumer, or one already loaded).
 * The subscription's state is "document"; subscribe, query, invoke and
 * resync are refused (SLOP_E_STATE), receive/close/reset change nothing.
 */
const char *slop_consumer_load(slop_consumer *c, const char *doc, size_t len, const char *name,
                               double now_ms, size_t *out_len);

/* ------------------------------------------------------------------------ */
/* Reading the mirror                                                        */
/* ------------------------------------------------------------------------ */

/*
 * The provider and connection state as JSON:
 *   {"hello":bool,"provider":{...}|null,"capabilities":[..],"closed":bool,
 *    "refused":bool,"document":bool,"pending":N,"nodes":N,"ignored_frames":N,"stale_patches":N,
 *    "subscriptions":[{"sub","wire","path","options","state","reason","retry_at",
 *                      "version"?,"seq"?,"nodes"}]}
 * wire: the id the subscription has on the wire now (a resync or a reset
 * subscribes again under a new one; a recording's frames address it).
 * state: "live" (the mirror follows the provider), "waiting" (no snapshot
 * yet), "resyncing" (a fresh snapshot was asked for; the mirror may be
 * behind), "stale" (the last good state, not following: disconnected, or
 * given up until retry_at), "failed" (no state: given up until retry_at),
 * "document" (a file loaded by slop_consumer_load: read-only, not live).
 * reason: null when live, else {"code","message"}: why, in words for a user.
 * retry_at: when tick() retries a given-up subscription (ms, the clock the
 * caller passes in), else null.
 */
const char *slop_consumer_status(slop_consumer *c, size_t *out_len);

/*
 * The mirrored subtree at absolute `path` of subscription `sub_id`, as SLOP
 * node JSON cut at `depth` levels (-1 = all). NULL if absent.
 */
const char *slop_consumer_tree(slop_consumer *c, const char *sub_id, const char *path,
                               int depth, size_t *out_len);

/*
 * The subscription's whole mirror as a snapshot frame, for a recording that
 * drops its oldest frames: {"type":"snapshot","id":<the subscription's id on
 * the wire>,"version":V,"seq":<the last patch's seq>,"tree":{...}}. Fed to a
 * "replay" consumer, the recorded patches after it apply in order (only a
 * replay consumer takes a snapshot whose seq is not 0). NULL when the
 * subscription has no mirror.
 */
const char *slop_consumer_checkpoint(slop_consumer *c, const char *sub_id, size_t *out_len);

/*
 * The same checkpoint printed in parts, so that a large mirror is written
 * over several calls (a history prints one between a provider's frames
 * without holding up the next one). begin: SLOP_OK, or SLOP_E_NOT_FOUND /
 * SLOP_E_STATE as checkpoint() fails; a print already begun is dropped.
 * next: the next part (owned by c, until the next call), whole nodes of
 * about max_bytes (at least one node); "" (length 0) once the last part was
 * given. The parts joined equal slop_consumer_checkpoint()'s text. NULL with
 * SLOP_E_STATE when none was begun, or when a call that may change a mirror
 * (receive, tick, close, reset, subscribe, load, unsubscribe, resync) came
 * in between: the walk is never continued on a changed tree.
 */
int slop_consumer_checkpoint_begin(slop_consumer *c, const char *sub_id);
const char *slop_consumer_checkpoint_next(slop_consumer *c, size_t max_bytes, size_t *out_len);

/*
 * One node without its children, plus "child_ids":[ids in order] and
 * "path": its absolute path. What a UI needs to render a row. NULL if absent.
 * A windowed collection (meta.total_children, and meta.window [offset,
 * count] where the children present start) also gets "more": how many
 * children the provider has beyond those present, and, when more > 0,
 * "next_window": the [offset, count] to query for the next page (count:
 * the provider's window size, else 50).
 */
const char *slop_consumer_node(slop_consumer *c, const char *sub_id, const char *path,
                               size_t *out_len);

/*
 * What a subscription's state costs, per node, for a profiler:
 *   {"sub":"<handle>","serial":S,"nodes":N,"traffic":[P,O,B,Z],
 *    "counters_complete":bool,"rows":[row, ...]}
 * one row per node of the mirror, in pre-order (the tree text's order):
 *   [path, type, parent, depth, own_bytes, bytes, nodes, own_actions, actions,
 *    salience, windowed, self, sub, text]
 *   path         the node's absolute path
 *   parent       the parent's row index, -1 for the root's row; depth: 0 there
 *   own_bytes    UTF-8 bytes of the node's compact JSON without its children
 *   bytes        the same for the whole subtree (the node printed with them)
 *   nodes        nodes in the subtree, itself included
 *   own_actions  the actions of its affordances (one LLM tool each); actions:
 *                the subtree's
 *   salience     meta.salience when a number, else null
 *   windowed     1 when meta.window or meta.total_children is set, else 0
 *   self, sub    [patches, ops, bytes, noops]: ops whose target is the node
 *                (a write into one of its fields, an add, remove, replace or
 *                move of one of its children, its children list replaced),
 *                and ops on it or below it (descendants since removed
 *                included; a patch counts once in patches). bytes: the ops'
 *                text as the provider sent it; noops: writes of the value
 *                already there.
 *                Counted as patches commit (a refused patch counts nothing),
 *                since the node was built: a snapshot builds every node again
 *   text         the node's part of the tree text (slop_consumer_tree_text):
 *                its line, then its "(showing N of M)" or "(N children not
 *                loaded)" line, joined with "\n", without a trailing newline,
 *                so every row's text joined with "\n" is the tree text. null
 *                when it has not changed since serial `since` (0: every text)
 * serial: the consumer's change serial (+1 per snapshot or patch), to pass as
 * `since` next time; traffic: the subscription's [patches, ops, bytes, noops]
 * across snapshots; counters_complete false when memory ran out for a counter.
 * Sizes are cached per node until a patch changes it; the traffic counters
 * cost a patch a walk to the root per op.
 * NULL (E_NOT_FOUND, E_STATE) without a mirror.
 */
const char *slop_consumer_profile(slop_consumer *c, const char *sub_id, double since, size_t *out_len);

/* The canonical tree text (one line per node, 2-space indent) of a
 * subscription's mirror. NULL if absent. */
const char *slop_consumer_tree_text(slop_consumer *c, const char *sub_id, size_t *out_len);

/* The same text for the node at path (absolute; NULL: the subscription's
 * root) and depth levels below it (-1: all). A node whose children the
 * depth cuts gets the line "(N children below depth D)" under it. NULL (and
 * E_NOT_FOUND) when there is no node at path. */
const char *slop_consumer_subtree_text(slop_consumer *c, const char *sub_id, const char *path, int depth,
                                       size_t *out_len);

/*
 * The affordances of a subscription's mirror as LLM tools, one per action
 * (an affordance with a string "action"), nodes in tree pre-order:
 *   {"tools":[{"name","description","parameters","dangerous"}],
 *    "resolve":{"name":{"path","action"}},"total":N}
 * total: every action of the subscription, offered or not.
 * max_tools 0 offers them all. When there are more than max_tools, the
 * max_tools most salient are offered: ranked by their node's meta.salience
 * (a number; none, or any other value, counts as 0.5, so a provider that
 * marks nothing keeps tree order), ties in tree pre-order (a node's actions
 * in their order), listed in tree order. "resolve" holds the offered tools
 * only.
 * Names are {nodeId}__{action}, ancestors prepended until unique among the
 * offered tools, reduced to [a-zA-Z0-9_], prefixed "{provider_prefix}__"
 * when provider_prefix is not NULL/"" and cut to max_len (0 = 64; below 16
 * counts as 16) with a 7-character hash; a name still taken gets "_2", "_3"...
 * The cost is a walk over the mirror plus the offered tools: each node's
 * action count and salience are kept on the node until a patch changes it.
 * The list offered (names and targets) is kept for
 * slop_consumer_resolve_tool() with the same arguments, until the next
 * tools() call on the subscription.
 */
const char *slop_consumer_tools(slop_consumer *c, const char *sub_id,
                                const char *provider_prefix, unsigned max_len,
                                size_t max_tools, size_t *out_len);

/*
 * Maps a tool name back to {"path","action"} in the list that
 * slop_consumer_tools() gives with the same provider_prefix, max_len and
 * max_tools. NULL with last_error when it cannot:
 *   SLOP_E_NOT_FOUND  no such subscription or mirror, or no tool of that name
 *                     in the list;
 *   SLOP_E_STATE      the name was offered (by the last tools() call with
 *                     these arguments) but the mirror changed since and the
 *                     list these arguments give now maps it to another
 *                     target, or no longer has it: never resolved silently
 *                     against the old list nor switched to a new target;
 *                     read the tools again.
 * While the mirror is unchanged since that call, the offered list answers
 * (no walk); otherwise the list is built again for the mirror as it is now
 * (a name offered earlier that still names the same path and action
 * resolves). With no tools() call of these arguments before, the list they
 * give now answers.
 */
const char *slop_consumer_resolve_tool(slop_consumer *c, const char *sub_id,
                                       const char *provider_prefix, unsigned max_len,
                                       size_t max_tools, const char *tool_name,
                                       size_t *out_len);

/*
 * Where the provider breaks SLOP, for its author: every rule the core checks
 * and every finding so far, as JSON:
 *   {"live":bool,"not_live"?:"why","frames":N,"mirrors":M,"nodes":K,
 *    "must":A,"should":B,"dropped":D,
 *    "rules":[{"id","severity":"MUST"|"SHOULD","spec","text",
 *              "checked":"frames"|"mirror"}],
 *    "findings":[{"rule","severity","count","path"?,"detail","frame"?,
 *                 "version"?,"seen":"frame"|"mirror"}]}
 * Frame rules (hello, seq, version, capabilities against behaviour, results,
 * error codes) are judged as frames arrive; a finding keeps the first frame
 * that showed it (cut at 400 bytes), deduplicated by (rule, path) with a
 * count. Tree rules (types, meta ranges, affordances, what the subscription
 * asked for) are judged over the mirrors now, at a cost linear in their
 * nodes; their findings name the path and the mirror's version. Findings
 * last as long as the consumer, across reconnects; past 512 of them, only
 * `dropped` counts. A provider that never goes live is judged too: a hello
 * refused (hello-fields), none in time (hello-in-time), a snapshot refused
 * (tree-shape...), for an id never sent (snapshot-id) or not in time
 * (snapshot-in-time); "live" is false then, and "not_live" says why (the
 * hello, or the first subscription not live, and its reason). Owned by c
 * (valid until the next call on c).
 */
const char *slop_consumer_conformance(slop_consumer *c, size_t *out_len);

/*
 * Checks that a live subscription's mirror equals the provider's state: asks
 * the provider for what the subscription asked for (a query with the same
 * path, depth, max_nodes and filter) and compares the answer with the mirror
 * at the same version, node by node (a cost linear in the subtree; the answer
 * is freed once compared). When the versions differ (patches in flight) it
 * asks again, three times in all. The outcome is one event with the returned
 * request id:
 *   {"event":"drift","id":I,"sub":S,"status":"same"|"differs"|"inconclusive",
 *    "version":V,"count":N,"differences":[{"path","mirror"?,"provider"?}],
 *    "message"?}
 * at most 20 differences listed, all counted; a side is absent where the
 * value is absent. Each difference is also a "drift" conformance finding.
 * A timeout, error or closed event with the id ends it as for a query.
 * Returns the request id (owned by c), or NULL: SLOP_E_NOT_FOUND (unknown
 * sub, as every call that names one), SLOP_E_STATE (not live).
 */
const char *slop_consumer_check_drift(slop_consumer *c, const char *sub_id, double now_ms, size_t *out_len);

/* The last error message of a call on c ("" if none) and its code. */
const char *slop_consumer_last_error(const slop_consumer *c);
slop_code slop_consumer_last_code(const slop_consumer *c);

/* The "type" of the frame the last slop_consumer_receive() took, as the
 * provider wrote it, cut at 40 bytes: for a frame log, which then never
 * parses the frame again. "" when the frame had none (not JSON, not an
 * object, no string "type", dropped unread). Owned by c, valid until the
 * next receive. */
const char *slop_consumer_frame_type(const slop_consumer *c);

/* ------------------------------------------------------------------------ */
/* Free-standing helpers (results freed by the caller with slop_free)        */
/* ------------------------------------------------------------------------ */

/*
 * Checks params (JSON) against an affordance params schema (JSON) with the
 * SLOP subset: type, properties, required, items, enum. Returns NULL when
 * valid, else every failure (at most 100) as data:
 *   {"errors":[{"code":"type","path":["tags",1],
 *               "message":"params.tags[1] must be a string"}, ...]}
 * code: "type", "enum", "required", "too_deep", "bad_json" (either argument
 * is not strict JSON; path []), "out_of_memory". path: member names and
 * array indexes from the params root. The first message is what
 * slop_consumer_invoke reports for the same params.
 */
char *slop_validate_params(const char *schema, size_t schema_len,
                           const char *params, size_t params_len);

/*
 * Validates a /.well-known/slop descriptor. Returns
 *   {"ok":true,"descriptor":{id,name,slop_version,transport,capabilities,..}}
 * or {"ok":false,"error":"transport.url must be a ws:// or wss:// URL"}.
 */
char *slop_parse_descriptor(const char *json, size_t len);

/*
 * Validates a local provider's descriptor (a file in ~/.slop/providers/ or
 * /tmp/slop/providers/): as slop_parse_descriptor, but its transport may be
 *   {"type":"unix","path":P}         P absolute, at most 107 bytes
 *   {"type":"stdio","command":[..]}  the program and its arguments (an argv,
 *                                    run without a shell), 1 to 64 strings
 *   {"type":"ws","url":U}
 * and not "postmessage" or "pipe". pid, when present, must be a positive
 * integer and is kept. Caller frees with slop_free().
 */
char *slop_parse_local_descriptor(const char *json, size_t len);

/* What slop_local_refusal() judges. */
enum {
    SLOP_LOCAL_DIR = 1,  /* a provider directory, from lstat()             */
    SLOP_LOCAL_NAME = 2, /* a directory entry's name, before opening it     */
    SLOP_LOCAL_FILE = 3  /* an opened descriptor file, from fstat()         */
};

/*
 * Local discovery's filesystem hardening (Transport & Discovery, REQUIRED),
 * judged from what the caller read of one entry:
 *   SLOP_LOCAL_DIR:  a directory owned by `me` whose mode grants group and
 *                    others nothing; a symbolic link is refused (lstat);
 *   SLOP_LOCAL_NAME: name matches ^[a-z0-9][a-z0-9._-]{0,63}\.json$ (a
 *                    provider's "x.json.tmp.123" is a temp_file);
 *   SLOP_LOCAL_FILE: a regular file (opened without following a link, then
 *                    fstat) owned by `me` with mode exactly 0600.
 * name: the entry's name (SLOP_LOCAL_NAME only; else may be NULL).
 * type: 'd' directory, 'f' regular file, 'l' symbolic link, '?' other.
 * mode: st_mode (its permission bits are read); owner: st_uid; me: the
 * caller's uid (doubles: a uid fits, and wasm takes them plainly).
 * Returns NULL when the entry passes, else {"code":C,"why":W}: C one of
 * bad_name, temp_file, not_a_directory, dir_owner, dir_mode, not_a_file,
 * file_owner, file_mode; W says why in words. Caller frees with slop_free().
 */
char *slop_local_refusal(int kind, const char *name, int type, unsigned mode, double owner, double me);

/*
 * Turns the content of <meta name="slop" content="..."> on a page at
 * page_url into a transport. Relative ws paths are resolved against the page.
 * Returns {"ok":true,"transport":{"type":"ws","url":U}|{"type":"postmessage"}}
 * or {"ok":false,"error":M}.
 */
char *slop_parse_meta(const char *content, const char *page_url);

/*
 * Classifies a target against the page that named it:
 *   {"classification":"same-origin"|"cross-origin","page_origin":O|null,
 *    "target":T,"approval_key":"<page origin> -> <target>"}
 * target: the target as compared (a URL normalised by the WHATWG rules, or
 * "postmessage"). approval_key is a key to store a decision under, never
 * to take apart: page_origin and target are its parts.
 * Same host (port ignored) or both loopback is same-origin; a loopback target
 * named by a non-loopback page, another host, or anything unparsable is
 * cross-origin and needs the user's approval before connecting.
 * page_origin and approval_key are null when the page's origin is opaque
 * (file:, data:, about:): such pages all share the origin "null", so an
 * approval stored for one would silently apply to all of them.
 */
char *slop_classify_target(const char *page_url, const char *target_url);

/*
 * The LLM state tail for several consumers, one "### Name (id)" section per
 * connected provider (hello taken, not closed), inside
 * <slop-state generated_at=".." format="text/tree">, each section the tree
 * text of the consumer's primary subscription: its first subscription with a
 * mirror (the one an agent acts on), or "(awaiting snapshot)". Provider text
 * that could open or close the block is neutralised, on every line.
 * Returns NULL when no consumer has a provider (or out of memory); the caller
 * frees the text with slop_free().
 *
 * max_bytes 0: no limit, the whole text (*out_left 0). Otherwise the text,
 * envelope included, is at most max_bytes bytes (values below 512 count as
 * 512), made of whole lines only:
 *   - generated_at is cut to 64 bytes and each heading's name and id to 100
 *     (on character boundaries) before escaping;
 *   - each section gets a fair share: sections take theirs smallest (fewest
 *     nodes) first, each an equal part of what is left, so the room a small
 *     one leaves goes to the larger ones; sections print in order;
 *   - a section's lines are rendered in pre-order and rendering stops at the
 *     first line that does not fit (nothing is rendered past it); a cut
 *     section ends with the line
 *       "(N of M nodes not shown: the state budget is used up)"
 *     N: its nodes without a line, M: its mirror's nodes;
 *   - a section with no room for its heading and that line is left out
 *     whole (all its nodes count as not shown).
 * *out_left (may be NULL): the nodes left out by the budget, all sections.
 */
char *slop_render_state_tail(slop_consumer *const *consumers, size_t n,
                             const char *generated_at, size_t max_bytes,
                             size_t *out_left);

/* ------------------------------------------------------------------------ */
/* Relay: an outside consumer on a shared provider channel                   */
/* ------------------------------------------------------------------------ */

/*
 * The desktop bridge relays a desktop consumer's messages to a page's
 * postMessage provider, whose window channel the extension's own consumer
 * and the page's scripts share. A relay keeps that outside consumer apart:
 * each request and subscription id it forwards becomes "<tag>~<id>", and of
 * the provider's frames only those addressed to such ids go back to it, the
 * prefix taken off (the core's own ids never hold a '~'). The relay keeps no
 * mirror and judges no state: the outside consumer is a SLOP consumer itself.
 *
 *     slop_relay *r = slop_relay_new("b1");
 *     char *hi = slop_relay_open(r);                // a connect for the page, or NULL
 *     char *o = slop_relay_outbound(r, msg, len);   // {"ok":true,"message":..}
 *     char *back = slop_relay_inbound(r, frame, n, &back_len); // or NULL
 *     char *bye = slop_relay_close(r);              // unsubscribe frames
 *     slop_free(hi); slop_free(o); slop_free(back); slop_free(bye); slop_relay_free(r);
 *
 * Several outside consumers may share one relay without being told apart (a
 * bridge that sends every message to every client): a subscription id
 * subscribed n times ends only at the n-th unsubscribe.
 *
 * Every char * returned is the caller's, freed with slop_free().
 */
typedef struct slop_relay slop_relay;

/* tag: 1 to 16 of [a-z0-9_-], unique among the channel's relays. NULL on a
 * bad tag or out of memory. */
slop_relay *slop_relay_new(const char *tag);
void slop_relay_free(slop_relay *r);

/*
 * The outside consumer opened the relay. Some desktop consumers wait for the
 * provider's hello without sending connect: unless a hello was already
 * forwarded or is owed, this returns a connect frame to send to the provider
 * on its behalf (NULL otherwise). A connect the consumer sends while that
 * hello is still on its way is not forwarded again (outbound's "forward":
 * false): the one hello answers both.
 */
char *slop_relay_open(slop_relay *r);

/*
 * One message of the outside consumer. Only consumer messages pass (connect;
 * subscribe, unsubscribe, query and invoke with a string id): a provider
 * message from outside would reach the page's other consumers as if the
 * provider had sent it. A connect's "id", if any, is dropped (the spec's
 * connect has none, and it would go out unprefixed). Returns
 *   {"ok":true,"type":"invoke","message":{..with "id":"<tag>~<id>"..},
 *    "id":"<id>","path":"/a","action":"delete"}   (path, action: invoke only)
 * or {"ok":true,"type":..,"forward":false,"why":..} for a message the relay
 * keeps (an unsubscribe of an id still subscribed by another subscribe, a
 * connect answered by slop_relay_open's hello): nothing to send,
 * or {"ok":false,"error":"<why>","reply":<frame for the outside consumer>|null}
 * (reply: the provider-style answer to a refused request that has an id).
 * Frames of at most 1 MiB and 96 levels of nesting.
 */
char *slop_relay_outbound(slop_relay *r, const char *msg, size_t len);

/*
 * One provider frame from the shared channel: the text to forward to the
 * outside consumer, or NULL when none of it is its own. Forwarded: snapshot,
 * patch, result and error frames addressed to the relay's ids (the prefix
 * taken off, every other byte as the provider wrote it); the provider's
 * events and its errors about no request; one hello per connect the outside
 * consumer sent; a batch cut down to those. *out_len: the text's length.
 */
char *slop_relay_inbound(slop_relay *r, const char *frame, size_t len, size_t *out_len);

/*
 * The relay closes (the outside consumer left): a JSON array of unsubscribe
 * frames for the subscriptions it still had open, to send to the provider,
 * so that it stops sending patches nobody reads.
 */
char *slop_relay_close(slop_relay *r);

/*
 * The answer to a request of the outside consumer refused before it reached
 * the provider (the user declined a dangerous invoke, it timed out):
 * kind "invoke" gives {"type":"result","id":..,"status":"error","error":{code,
 * message}}, other kinds an error message {"type":"error","id":..,"error":..}.
 * request_id may be NULL but for an invoke: the error then has no "id" (a
 * refusal of the relay itself, not of one request).
 */
char *slop_relay_refusal(const char *kind, const char *request_id, const char *code, const char *message);

/* Frees a buffer returned by a free-standing slop_* function. NULL is a no-op. */
void slop_free(void *p);

/* The core's version string, e.g. "0.1.0 (SLOP 0.1)". Static storage. */
const char *slop_core_version(void);

#ifdef __cplusplus
}
#endif
#endif /* SLOP_CORE_H */
