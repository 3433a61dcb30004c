/*
 * consumer.h: the consumer's own types and the helpers its parts share.
 * Private to consumer*.c, the one consumer split by what it does:
 *
 *   consumer_state.c      what every part shares: errors, the output queue,
 *                         events, ids, subscriptions, requests, tasks,
 *                         resyncs; it calls no other part
 *   consumer.c            the life cycle and input (new, receive, tick,
 *                         close, reset, next)
 *   consumer_messages.c   what the provider sends: hello, snapshot, patch,
 *                         result, error, event, batch
 *   consumer_requests.c   subscribe, unsubscribe, resync, query, invoke
 *   consumer_documents.c  a tree from a file, read-only
 *   consumer_read.c       reading (status, trees, nodes, checkpoints, the
 *                         agent view), the state tail, conformance
 *
 * Every function named here is slop__*, as in internal.h; the ones a single
 * part uses stay static there.
 */
#ifndef SLOP_CONSUMER_H
#define SLOP_CONSUMER_H

#include <stddef.h>
#include <stdint.h>

#include "conformance.h"
#include "internal.h"
#include "mirror.h"

/* ---- Types -------------------------------------------------------------- */

/* c->caps holds bit k for slop_capability k (slop_core.h) the hello declared. */
#define CAP_BIT(k) (1u << (k))

/* A pending request's kind is a slop_request_kind, a subscription's state a
 * slop_sub_state (SLOP_SUB_DOCUMENT: the mirror of a document loaded by
 * slop_consumer_load(): a read-only copy that nothing follows). */


typedef struct sub {
    char *handle;           /* caller-facing id, stable across resyncs      */
    char *wire;             /* id of the current subscribe on the wire      */
    cJSON *options;         /* subscribe frame members besides type and id  */
    char *path;             /* absolute path of the subscription root        */
    slop__mirror m;
    slop_sub_state state;
    int wire_live;          /* a snapshot arrived for the current wire id   */
    int has_mirror;
    double snap_version;    /* version of the snapshot the mirror is based on */
    double last_version;
    long long last_seq;
    double burst_start;     /* start of the current resync window            */
    int burst;              /* resyncs in it                                 */
    unsigned epoch;         /* connection the mirror's snapshot came on      */
    char reason_code[32];   /* why the mirror is not live ("" when it is)    */
    char reason[300];
    double retry_at;        /* when tick() retries a given-up sub (0: never) */
    int retries;            /* scheduled retries since the last good snapshot */
    /* The list slop_consumer_tools() last offered, with its arguments:
     * slop_consumer_resolve_tool() with the same ones reads it. */
    slop__tool_refs tools;
    char *tools_prefix;     /* as given ("" for none); NULL: none offered   */
    unsigned tools_max_len; /* as given                                     */
    size_t tools_max_tools;
    int tools_stale;        /* the mirror changed since it was offered      */
} sub;

typedef struct pending {
    char *id;
    slop_request_kind kind;
    double sent_ms;
    char *sub_handle;       /* subscribe                                     */
    char *path, *action;    /* invoke; query (path)                          */
    double win[2];          /* query: the window asked for, win[1] 0 if none */
    int drift_try;          /* a drift check's query: its attempt (1..), else 0 */
} pending;

typedef struct task {
    char *req_id, *task_id, *path, *last;
    int seen;
    double at;              /* when the accepted result came                 */
} task;

/* One node of a checkpoint printed in parts: its children not yet printed. */
typedef struct cp_frame {
    const slop__node *n;
    slop__kid_iter it;
    int in_kids;            /* its head and "children":[ are printed        */
} cp_frame;

typedef struct out_item {
    slop_output_kind kind;
    char *text;
    size_t len;
} out_item;

struct slop_consumer {
    slop_limits lim;
    int postmessage;
    char prefix[12];
    unsigned long long next_id;

    int have_hello, refused, closed;
    char hello_refused[200]; /* why the last hello was not taken, "" if none */
    int document;           /* transport "document": a file, no provider     */
    int replay;             /* transport "replay": a recording played back   */
    char *adopt;            /* replay: the recorded id the next subscription takes (options.id) */
    unsigned epoch;         /* bumps on every reset(): a new connection      */
    cJSON *provider;        /* hello.provider, normalised                    */
    cJSON *prev_provider;   /* the provider of the connection before reset() */
    unsigned caps;
    int warned_patches;
    int patch_records;      /* patch events as records (slop_consumer_patch_records) */
    cJSON *held;            /* request frames waiting for hello              */

    pending *pend;
    size_t npend, cappend;
    sub **subs;
    size_t nsubs, capsubs;
    task *tasks;
    size_t ntasks, captasks;

    out_item *out;
    size_t out_head, out_len, out_cap;
    int queued;             /* outputs queued by the current call            */

    slop__budget budget;
    char *scratch;          /* the string last returned to the caller       */
    char err[320];
    slop_code code;
    unsigned long long ignored_frames, stale_patches;
    slop__arena frame_arena;/* the current frame's values (slop__parse_frame);
                             * reset after each frame: nothing in it is kept */
    char frame_type[44];    /* "type" of the last frame received, cut; "" if none */
    double now;             /* the latest time a caller gave                 */
    slop__conformance conf; /* the frame rules' findings (conformance.h)     */
    /* slop_consumer_checkpoint_begin/_next: the walk of a checkpoint printed
     * in parts. It points into a mirror, so every call that may change a
     * mirror ends it first (cp_end) and the next part is refused. */
    cp_frame *cp;           /* the stack, NULL when no print was begun      */
    size_t cp_depth, cp_cap;
    int cp_open;            /* begun, and the last part not given yet       */
    int cp_broken;          /* ended by a call that may change a mirror     */
    char *cp_head;          /* the snapshot frame's members before "tree"  */
};

/* ---- consumer_state.c: what every part uses (their comments are there) -- */

/* The caller's error (slop_consumer_last_error), cleared by slop__ok(). */
void slop__fail(slop_consumer *c, slop_code code, const char *fmt, ...);
void slop__ok(slop_consumer *c);
/* Ends a checkpoint printed in parts; broken: by a call that may change a mirror. */
void slop__cp_end(slop_consumer *c, int broken);
/* Hand a malloc'd string (or cJSON, printed and deleted) to the caller until its next call. */
const char *slop__give(slop_consumer *c, char *s, size_t *out_len);
const char *slop__give_json(slop_consumer *c, cJSON *j, size_t *out_len);

/* The output queue: events, and frames to send. */
void slop__push_out(slop_consumer *c, slop_output_kind kind, char *text);
/* The same for a text that may hold NULs (a patch record): len bytes. */
void slop__push_out_len(slop_consumer *c, slop_output_kind kind, char *text, size_t len);
void slop__emit(slop_consumer *c, cJSON *ev);
cJSON *slop__event(slop_event_kind kind);
void slop__protocol_error(slop_consumer *c, slop_protocol_error code, int fatal, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void slop__rule_error(slop_consumer *c, const char *rule, slop_protocol_error code, int fatal, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Ids, numbers, windows, paths. */
char *slop__new_id(slop_consumer *c, char kind);
int slop__issued_for_snapshot(const slop_consumer *c, const char *id);
int slop__is_int(const cJSON *j);
int slop__is_counter(const cJSON *j);
void slop__add_window(cJSON *out, const cJSON *meta, double shown, double offset, double page, int answer);
const char *slop__rel_path(const char *root, const char *abs);

/* Bookkeeping: subscriptions, pending requests, tasks. */
sub *slop__find_sub_wire(slop_consumer *c, const char *wire);
sub *slop__find_sub(slop_consumer *c, const char *handle);
void slop__sub_free(sub *s);
pending *slop__find_pending(slop_consumer *c, const char *id);
void slop__pending_drop(slop_consumer *c, pending *p);
int slop__pending_add(slop_consumer *c, const char *id, slop_request_kind kind, double now,
                      const char *sub_handle, const char *path, const char *action);
void slop__task_drop(slop_consumer *c, size_t i);
void slop__dispatch(slop_consumer *c, cJSON *frame);
void slop__send_frame(slop_consumer *c, const cJSON *frame);
cJSON *slop__request_frame(slop_consumer_message type, const char *id, const cJSON *options);
cJSON *slop__subscribe_frame(const sub *s);
void slop__set_state(sub *s, slop_sub_state st, const char *code, const char *message);
void slop__give_up(sub *s, const char *code, const char *message, double now);
void slop__resync(slop_consumer *c, sub *s, const char *reason, const char *message, double now);
void slop__check_tasks(slop_consumer *c, sub *s);

/* ---- consumer_messages.c ---------------------------------------------- */

/* What the frame being handled carries besides its parsed message: on the
 * stack of the receive call (never in the consumer), one per batch level. */
typedef struct slop__frame_ctx {
    double now;
    const char *raw_tree; /* a top-level snapshot's "tree" as text, loaded straight
                             from it (the parse left it unbuilt), or NULL; taken once */
    size_t raw_tree_len;
} slop__frame_ctx;
/* One message from the provider (a batch's members each in turn; a batch's
 * depth is bounded by the frame's nesting limit). */
void slop__handle(slop_consumer *c, cJSON *msg, slop__frame_ctx *fr);
cJSON *slop__snapshot_event(const sub *s, double version, int rebase);
void slop__send_drift_query(slop_consumer *c, sub *s, const char *id, int attempt, double now);

/* ---- consumer_requests.c ---------------------------------------------- */

/* 1 when a request can go now, else 0 after slop__fail(). */
int slop__can_request(slop_consumer *c);

#endif /* SLOP_CONSUMER_H */
