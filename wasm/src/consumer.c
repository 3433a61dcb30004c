/*
 * consumer.c: the consumer state machine: hello and capabilities, requests
 * and their ids, subscriptions with seq/version rules and resync, results,
 * errors, timeouts, async tasks, and the output queue.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "internal.h"
#include "mirror.h"

/* ---------------------------------------------------------------------- */
/* Types                                                                    */
/* ---------------------------------------------------------------------- */

enum {
    CAP_STATE = 1 << 0,
    CAP_PATCHES = 1 << 1,
    CAP_AFFORDANCES = 1 << 2,
    CAP_ATTENTION = 1 << 3,
    CAP_WINDOWING = 1 << 4,
    CAP_ASYNC = 1 << 5,
    CAP_CONTENT_REFS = 1 << 6
};
static const char *const cap_names[] = {"state",     "patches", "affordances", "attention",
                                        "windowing", "async",   "content_refs"};
#define CAP_COUNT 7

typedef enum { REQ_SUBSCRIBE, REQ_QUERY, REQ_INVOKE } req_kind;
static const char *const req_names[] = {"subscribe", "query", "invoke"};

/* SUB_DOCUMENT: the mirror of a document loaded by slop_consumer_load(): a
 * read-only copy that nothing follows. */
typedef enum { SUB_WAITING, SUB_LIVE, SUB_RESYNCING, SUB_STALE, SUB_FAILED, SUB_DOCUMENT } sub_state;
static const char *const sub_state_names[] = {"waiting", "live", "resyncing", "stale", "failed", "document"};

/* A resync that loads a snapshot is a success, but a provider whose every
 * patch fails would be resubscribed at its patch rate forever: past
 * RESYNC_BURST resyncs within RESYNC_WINDOW_MS, the core pauses (stale, and
 * a retry on the schedule below) instead of looping. */
#define RESYNC_BURST 10
#define RESYNC_WINDOW_MS 10000.0
/* A subscription the core gave up on (stale or failed because of what the
 * provider sent, or no snapshot in time) is retried from slop_consumer_tick
 * after RETRY_FIRST_MS, doubling up to RETRY_MAX_MS. */
#define RETRY_FIRST_MS 5000.0
#define RETRY_MAX_MS 60000.0
/* Versions and seqs are integers a double holds exactly (JSON numbers in a
 * JavaScript provider). */
#define MAX_COUNTER 9007199254740992.0

typedef struct sub {
    char *handle;           /* caller-facing id, stable across resyncs      */
    char *wire;             /* id of the current subscribe on the wire      */
    cJSON *options;         /* subscribe frame members besides type and id  */
    char *path;             /* absolute path of the subscription root        */
    slop__mirror m;
    sub_state state;
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
    req_kind kind;
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
    const char *raw_tree;   /* the current frame's snapshot "tree" text, or NULL */
    size_t raw_tree_len;
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

/* ---------------------------------------------------------------------- */
/* Small helpers                                                            */
/* ---------------------------------------------------------------------- */

static void fail(slop_consumer *c, slop_code code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    c->code = code;
}

static void ok(slop_consumer *c) {
    c->err[0] = 0;
    c->code = SLOP_OK;
}

/* Ends a checkpoint printed in parts; broken: by a call that may change the
 * mirror it walks (its next part is then refused, not printed from freed or
 * moved nodes). */
static void cp_end(slop_consumer *c, int broken) {
    if (c->cp_open && broken) c->cp_broken = 1;
    free(c->cp);
    free(c->cp_head);
    c->cp = NULL;
    c->cp_head = NULL;
    c->cp_depth = c->cp_cap = 0;
    c->cp_open = 0;
}

/* Hands a malloc'd string to the caller: it lives until the next call. */
static const char *give(slop_consumer *c, char *s, size_t *out_len) {
    free(c->scratch);
    c->scratch = s;
    if (out_len) *out_len = s ? strlen(s) : 0;
    return s;
}

static const char *give_json(slop_consumer *c, cJSON *j, size_t *out_len) {
    char *s = slop__json_print_free(j);
    if (!s) {
        fail(c, SLOP_E_NOMEM, "out of memory");
        return give(c, NULL, out_len);
    }
    return give(c, s, out_len);
}

static void push_out(slop_consumer *c, slop_output_kind kind, char *text) {
    if (!text) return;
    if (c->out_head == c->out_len) c->out_head = c->out_len = 0;
    if (c->out_len == c->out_cap) {
        if (c->out_head > 0) {
            memmove(c->out, c->out + c->out_head, (c->out_len - c->out_head) * sizeof *c->out);
            c->out_len -= c->out_head;
            c->out_head = 0;
        }
        if (SLOP__RESERVE(c->out, c->out_len, c->out_cap, 32) != 0) {
            free(text);
            return;
        }
    }
    c->out[c->out_len++] = (out_item){kind, text, strlen(text)};
    c->queued++;
}

static void emit(slop_consumer *c, cJSON *ev) {
    if (!ev) return;
    push_out(c, SLOP_OUT_EVENT, slop__json_print(ev));
    cJSON_Delete(ev);
}

static cJSON *event(const char *name) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "event", name);
    return e;
}

static void protocol_error_v(slop_consumer *c, const char *rule, const char *code, int fatal, const char *fmt,
                             va_list ap) {
    char msg[400];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (rule) slop__conf_note(&c->conf, rule, NULL, -1, "%s", msg);
    cJSON *e = event("protocol_error");
    cJSON_AddStringToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", msg);
    cJSON_AddBoolToObject(e, "fatal", fatal);
    emit(c, e);
}

/* A protocol error; the conformance rule it breaks is the one its code
 * stands for (none for the consumer's own limits). */
static void protocol_error(slop_consumer *c, const char *code, int fatal, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void protocol_error(slop_consumer *c, const char *code, int fatal, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    protocol_error_v(c, slop__conf_rule_of_error(code), code, fatal, fmt, ap);
    va_end(ap);
}

/* The same, breaking a rule other than the one the code stands for. */
static void rule_error(slop_consumer *c, const char *rule, const char *code, int fatal, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void rule_error(slop_consumer *c, const char *rule, const char *code, int fatal, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    protocol_error_v(c, rule, code, fatal, fmt, ap);
    va_end(ap);
}

static void send_frame(slop_consumer *c, const cJSON *frame) {
    push_out(c, SLOP_OUT_SEND, slop__json_print(frame));
}

static char *new_id(slop_consumer *c, char kind) {
    char buf[40];
    snprintf(buf, sizeof buf, "%s-%c%llu", c->prefix, kind, ++c->next_id);
    return slop__strdup(buf);
}

/* Could this consumer have sent `id` for a subscribe or a query, now or before? Its ids are
 * "<prefix>-<kind><n>" with one counter for all kinds (new_id): a snapshot answers an 's', 'q'
 * or 'd' (a drift check's query) whose n it has reached. */
static int issued_for_snapshot(const slop_consumer *c, const char *id) {
    size_t pl = strlen(c->prefix);
    if (strncmp(id, c->prefix, pl) != 0 || id[pl] != '-') return 0;
    char kind = id[pl + 1];
    if (kind != 's' && kind != 'q' && kind != 'd') return 0;
    const char *d = id + pl + 2;
    size_t nd = strlen(d);
    if (nd == 0 || nd > 19 || d[0] == '0') return 0; /* 1 to 10^19 - 1, no leading zero */
    unsigned long long n = 0;
    for (; *d; d++) {
        if (*d < '0' || *d > '9') return 0;
        n = n * 10 + (unsigned long long)(*d - '0');
    }
    return n <= c->next_id;
}

static int is_int(const cJSON *j) {
    return cJSON_IsNumber(j) && isfinite(j->valuedouble) && j->valuedouble == floor(j->valuedouble);
}

/* A version or seq: a non-negative integer within 2^53. */
static int is_counter(const cJSON *j) {
    return is_int(j) && j->valuedouble >= 0 && j->valuedouble <= MAX_COUNTER;
}

/* Pages of a windowed collection (a node whose meta.total_children says
 * how many children the provider has; meta.window [offset, count] where the
 * ones present start). Adds to `out` what a UI needs to offer the rest:
 *   "more": N children beyond the ones present (0 when none),
 *   "next_window": [offset, count] to query for the next page, when N > 0.
 * `shown`: children present; `page`: the count to ask for (the provider's
 * own window size when it gave one). Nothing is added to a node that is
 * not a windowed collection. `answer`: this is the answer to a query for a
 * page: one that brought no child has no next window (it would be the
 * window just asked, and a caller that follows next_window would ask it
 * forever); "more" still says how many the provider announced. */
#define WINDOW_PAGE_DEFAULT 50
static void add_window(cJSON *out, const cJSON *meta, double shown, double offset, double page, int answer) {
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(meta, "total_children");
    if (!is_counter(total)) return;
    const cJSON *win = cJSON_GetObjectItemCaseSensitive(meta, "window");
    if (cJSON_GetArraySize(win) == 2 && is_counter(win->child) && is_counter(win->child->next)) {
        offset = win->child->valuedouble;
        if (page <= 0) page = win->child->next->valuedouble;
    }
    if (page <= 0) page = WINDOW_PAGE_DEFAULT;
    double more = total->valuedouble - offset - shown;
    if (more < 0) more = 0;
    cJSON_AddNumberToObject(out, "more", more);
    if (more > 0 && (shown > 0 || !answer)) {
        cJSON *next = cJSON_AddArrayToObject(out, "next_window");
        cJSON_AddItemToArray(next, cJSON_CreateNumber(offset + shown));
        cJSON_AddItemToArray(next, cJSON_CreateNumber(page < more ? page : more));
    }
}

/* The mirror-relative part of an absolute path under root, or NULL. */
static const char *rel_path(const char *root, const char *abs) {
    if (strcmp(root, "/") == 0) return abs;
    size_t l = strlen(root);
    if (strncmp(abs, root, l) != 0) return NULL;
    if (abs[l] == 0) return "/";
    if (abs[l] != '/') return NULL;
    return abs + l;
}

/* ---------------------------------------------------------------------- */
/* Bookkeeping: subscriptions, pending requests, tasks                     */
/* ---------------------------------------------------------------------- */

static sub *find_sub_wire(slop_consumer *c, const char *wire) {
    for (size_t i = 0; i < c->nsubs; i++)
        if (strcmp(c->subs[i]->wire, wire) == 0) return c->subs[i];
    return NULL;
}

static sub *find_sub(slop_consumer *c, const char *handle) {
    if (!handle) return NULL;
    for (size_t i = 0; i < c->nsubs; i++)
        if (strcmp(c->subs[i]->handle, handle) == 0) return c->subs[i];
    return NULL;
}

static void sub_free(sub *s) {
    slop__mirror_clear(&s->m);
    free(s->handle);
    free(s->wire);
    free(s->path);
    cJSON_Delete(s->options);
    slop__tool_refs_free(&s->tools);
    free(s->tools_prefix);
    free(s);
}

static pending *find_pending(slop_consumer *c, const char *id) {
    for (size_t i = 0; i < c->npend; i++)
        if (strcmp(c->pend[i].id, id) == 0) return &c->pend[i];
    return NULL;
}

static void pending_drop(slop_consumer *c, pending *p) {
    free(p->id);
    free(p->sub_handle);
    free(p->path);
    free(p->action);
    *p = c->pend[--c->npend];
}

static int pending_add(slop_consumer *c, const char *id, req_kind kind, double now,
                       const char *sub_handle, const char *path, const char *action) {
    if (SLOP__RESERVE(c->pend, c->npend, c->cappend, 16) != 0) return -1;
    pending *p = &c->pend[c->npend++];
    memset(p, 0, sizeof *p);
    p->id = slop__strdup(id);
    p->kind = kind;
    p->sent_ms = now;
    p->sub_handle = sub_handle ? slop__strdup(sub_handle) : NULL;
    p->path = path ? slop__strdup(path) : NULL;
    p->action = action ? slop__strdup(action) : NULL;
    return 0;
}

static void task_drop(slop_consumer *c, size_t i) {
    task *t = &c->tasks[i];
    free(t->req_id);
    free(t->task_id);
    free(t->path);
    free(t->last);
    c->tasks[i] = c->tasks[--c->ntasks];
}

/* Sends a request frame now, or holds it until the provider's hello. */
static void dispatch(slop_consumer *c, cJSON *frame) {
    if (!frame) return; /* out of memory building it: its request times out */
    if (!c->have_hello) {
        cJSON_AddItemToArray(c->held, frame);
        return;
    }
    /* Capability rules the spec puts on the consumer side. */
    cJSON *type = cJSON_GetObjectItemCaseSensitive(frame, "type");
    if (type && strcmp(type->valuestring, "query") == 0 && !(c->caps & CAP_WINDOWING))
        cJSON_DeleteItemFromObjectCaseSensitive(frame, "window");
    if (!(c->caps & CAP_ATTENTION)) {
        cJSON *filter = cJSON_GetObjectItemCaseSensitive(frame, "filter");
        if (filter) {
            cJSON_DeleteItemFromObjectCaseSensitive(filter, "min_salience");
            if (!filter->child) cJSON_DeleteItemFromObjectCaseSensitive(frame, "filter");
        }
    }
    send_frame(c, frame);
    cJSON_Delete(frame);
}

/* A request frame {"type":type,"id":id, <the members of options>} (options
 * as request_options() checked them; copied, the caller keeps them). NULL
 * when out of memory. */
static cJSON *request_frame(const char *type, const char *id, const cJSON *options) {
    cJSON *f = cJSON_CreateObject();
    if (!f || !id || !cJSON_AddStringToObject(f, "type", type) || !cJSON_AddStringToObject(f, "id", id)) {
        cJSON_Delete(f);
        return NULL;
    }
    for (const cJSON *it = options->child; it; it = it->next) {
        cJSON *copy = cJSON_Duplicate(it, 1);
        if (!copy || !cJSON_AddItemToObject(f, it->string, copy)) {
            cJSON_Delete(copy);
            cJSON_Delete(f);
            return NULL;
        }
    }
    return f;
}

static cJSON *subscribe_frame(const sub *s) {
    return request_frame("subscribe", s->wire, s->options);
}

/* Sets a subscription's state and why it is not live (code "" when live). */
static void set_state(sub *s, sub_state st, const char *code, const char *message) {
    s->state = st;
    snprintf(s->reason_code, sizeof s->reason_code, "%s", code);
    snprintf(s->reason, sizeof s->reason, "%s", message);
    if (st == SUB_LIVE) s->retry_at = 0;
}

/* The mirror cannot follow the provider for now (what it sent was refused,
 * or no snapshot came): stale (last good state kept) or failed (none), and a
 * retry from tick() later, ever less often. The subscription's wire id stays,
 * so a good snapshot arriving meanwhile still revives it. */
static void give_up(sub *s, const char *code, const char *message, double now) {
    set_state(s, s->has_mirror ? SUB_STALE : SUB_FAILED, code, message);
    double delay = RETRY_FIRST_MS;
    for (int i = 0; i < s->retries && delay < RETRY_MAX_MS; i++) delay *= 2;
    s->retry_at = now + (delay < RETRY_MAX_MS ? delay : RETRY_MAX_MS);
    s->retries++;
}

/* Starts over on a subscription: unsubscribe, then subscribe with a fresh id,
 * so late patches for the old id are recognisably stale. */
static void resync(slop_consumer *c, sub *s, const char *reason, const char *message, double now) {
    if (s->retry_at > 0) return; /* given up: tick() retries at retry_at */
    if (now - s->burst_start >= RESYNC_WINDOW_MS || now < s->burst_start) {
        s->burst_start = now;
        s->burst = 0;
    }
    if (s->burst >= RESYNC_BURST) {
        char m[300];
        snprintf(m, sizeof m, "%d resyncs within %.0f s (last: %s: %.160s)", RESYNC_BURST, RESYNC_WINDOW_MS / 1000,
                 reason, message);
        give_up(s, "resync_loop", m, now);
        protocol_error(c, "resync_loop", 0, "subscription %s: %s; showing the last good state, retrying in %.0f s",
                       s->handle, m, (s->retry_at - now) / 1000);
        return;
    }
    s->burst++;
    cJSON *e = event("resync");
    cJSON_AddStringToObject(e, "sub", s->handle);
    cJSON_AddStringToObject(e, "reason", reason);
    cJSON_AddStringToObject(e, "message", message);
    emit(c, e);

    pending *old = find_pending(c, s->wire);
    if (old) pending_drop(c, old);
    cJSON *un = cJSON_CreateObject();
    cJSON_AddStringToObject(un, "type", "unsubscribe");
    cJSON_AddStringToObject(un, "id", s->wire);
    dispatch(c, un);

    free(s->wire);
    s->wire = new_id(c, 's');
    s->wire_live = 0;
    s->retry_at = 0;
    set_state(s, s->has_mirror ? SUB_RESYNCING : SUB_WAITING, reason, message);
    pending_add(c, s->wire, REQ_SUBSCRIBE, now, s->handle, NULL, NULL);
    dispatch(c, subscribe_frame(s));
}

/* After a mirror changed: report progress of tracked async tasks. */
static void check_tasks(slop_consumer *c, sub *s) {
    for (size_t i = 0; i < c->ntasks;) {
        task *t = &c->tasks[i];
        char rel[300];
        snprintf(rel, sizeof rel, "/tasks/%s", t->task_id);
        slop__node *n = slop__mirror_find(&s->m, rel);
        if (!n && strcmp(s->path, "/tasks") == 0) n = slop__mirror_find(&s->m, rel + 6);
        if (!n) {
            if (t->seen) { /* the provider removed the finished task node */
                cJSON *e = event("task");
                cJSON_AddStringToObject(e, "id", t->req_id);
                cJSON_AddStringToObject(e, "task_id", t->task_id);
                cJSON_AddStringToObject(e, "path", t->path ? t->path : "");
                cJSON_AddStringToObject(e, "status", "removed");
                cJSON_AddBoolToObject(e, "done", 1);
                emit(c, e);
                task_drop(c, i);
                continue;
            }
            i++;
            continue;
        }
        cJSON *props = slop__node_field(n, SLOP__FIELD_PROPERTIES);
        char *now = props ? slop__json_print(props) : slop__strdup("{}");
        if (!t->seen || !t->last || strcmp(now, t->last) != 0) {
            t->seen = 1;
            free(t->last);
            t->last = now;
            now = NULL;
            char *rp = slop__node_path(n);
            char *ap = rp ? slop__path_join(s->path, rp) : NULL;
            free(rp);
            free(t->path);
            t->path = ap;
            cJSON *e = event("task");
            cJSON_AddStringToObject(e, "id", t->req_id);
            cJSON_AddStringToObject(e, "task_id", t->task_id);
            cJSON_AddStringToObject(e, "path", ap ? ap : "");
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(props, "status");
            const cJSON *pr = cJSON_GetObjectItemCaseSensitive(props, "progress");
            const cJSON *msg = cJSON_GetObjectItemCaseSensitive(props, "message");
            const char *status = cJSON_IsString(st) ? st->valuestring : "unknown";
            cJSON_AddStringToObject(e, "status", status);
            if (cJSON_IsNumber(pr)) cJSON_AddNumberToObject(e, "progress", pr->valuedouble);
            if (cJSON_IsString(msg)) cJSON_AddStringToObject(e, "message", msg->valuestring);
            int done = strcmp(status, "done") == 0 || strcmp(status, "failed") == 0 ||
                       strcmp(status, "cancelled") == 0;
            cJSON_AddBoolToObject(e, "done", done);
            emit(c, e);
            if (done) {
                task_drop(c, i);
                continue;
            }
        }
        free(now);
        i++;
    }
}

/* ---------------------------------------------------------------------- */
/* Provider messages                                                        */
/* ---------------------------------------------------------------------- */

/* hello.provider checked and normalised: {id, name (the id when absent),
 * slop_version?, capabilities (every string, as sent)}; *bits gets the
 * capabilities the core knows. NULL after a protocol_error. */
static cJSON *hello_provider(slop_consumer *c, const cJSON *msg, unsigned *bits) {
    cJSON *p = cJSON_GetObjectItemCaseSensitive(msg, "provider");
    cJSON *id = cJSON_GetObjectItemCaseSensitive(p, "id");
    cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
    cJSON *caps = cJSON_GetObjectItemCaseSensitive(p, "capabilities");
    cJSON *ver = cJSON_GetObjectItemCaseSensitive(p, "slop_version");
    const char *bad = NULL;
    if (!cJSON_IsObject(p) || !cJSON_IsString(id) || !id->valuestring[0]) bad = "\"provider.id\" must be a non-empty string";
    else if (name && !cJSON_IsString(name)) bad = "\"provider.name\" must be a string";
    else if (!cJSON_IsArray(caps)) bad = "\"provider.capabilities\" must be an array";
    if (bad) {
        rule_error(c, "hello-fields", "bad_message", 0, "hello: %s", bad);
        snprintf(c->hello_refused, sizeof c->hello_refused, "its hello was refused: %s", bad);
        return NULL;
    }
    /* What the core can do without, a provider author still wants to hear. */
    if (!cJSON_IsString(name)) slop__conf_note(&c->conf, "hello-fields", NULL, -1, "hello: no \"provider.name\"");
    if (!cJSON_IsString(ver))
        slop__conf_note(&c->conf, "hello-fields", NULL, -1, "hello: \"provider.slop_version\" is not a string");
    else if (strcmp(ver->valuestring, "0.1") != 0)
        slop__conf_note(&c->conf, "slop-version", NULL, -1, "hello: slop_version \"%.40s\"", ver->valuestring);
    for (cJSON *it = caps->child; it; it = it->next)
        if (!cJSON_IsString(it)) {
            slop__conf_note(&c->conf, "hello-fields", NULL, -1, "hello: a capability is not a string");
            break;
        }
    cJSON *clean = cJSON_CreateArray();
    *bits = 0;
    for (cJSON *it = caps->child; it; it = it->next) {
        if (!cJSON_IsString(it)) continue;
        for (int k = 0; k < CAP_COUNT; k++)
            if (strcmp(it->valuestring, cap_names[k]) == 0) *bits |= 1u << k;
        cJSON_AddItemToArray(clean, cJSON_CreateString(it->valuestring));
    }
    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "id", id->valuestring);
    cJSON_AddStringToObject(out, "name", cJSON_IsString(name) ? name->valuestring : id->valuestring);
    if (cJSON_IsString(ver)) cJSON_AddStringToObject(out, "slop_version", ver->valuestring);
    cJSON_AddItemToObject(out, "capabilities", clean);
    return out;
}

/* Another app at the same address after a reconnect: its tree has nothing
 * to do with the old one, which must not pass for its state. Takes prev
 * (the provider before the reconnect, or NULL). */
static void check_same_provider(slop_consumer *c, cJSON *prev) {
    cJSON *prev_id = cJSON_GetObjectItemCaseSensitive(prev, "id");
    const char *id = cJSON_GetObjectItemCaseSensitive(c->provider, "id")->valuestring;
    if (!cJSON_IsString(prev_id) || strcmp(prev_id->valuestring, id) == 0) {
        cJSON_Delete(prev);
        return;
    }
    char m[300];
    snprintf(m, sizeof m, "provider \"%.80s\" now answers where \"%.80s\" was: its state was dropped", id,
             prev_id->valuestring);
    for (size_t i = 0; i < c->nsubs; i++) {
        sub *s = c->subs[i];
        slop__mirror_clear(&s->m);
        s->has_mirror = 0;
        s->wire_live = 0;
        s->tools_stale = 1;
        set_state(s, SUB_WAITING, "provider_changed", m);
    }
    while (c->ntasks) task_drop(c, c->ntasks - 1);
    cJSON *e = event("provider_changed");
    cJSON_AddItemToObject(e, "previous", prev);
    cJSON_AddItemToObject(e, "provider", cJSON_Duplicate(c->provider, 1));
    cJSON_AddStringToObject(e, "message", m);
    emit(c, e);
}

static void on_hello(slop_consumer *c, cJSON *msg) {
    if (c->have_hello || c->refused) {
        c->ignored_frames++; /* a repeated hello changes nothing */
        return;
    }
    unsigned bits = 0;
    cJSON *provider = hello_provider(c, msg, &bits);
    if (!provider) return;
    if (!(bits & CAP_STATE)) {
        c->refused = 1;
        protocol_error(c, "not_a_provider", 1,
                       "provider \"%.80s\" does not declare the \"state\" capability: it is not a "
                       "SLOP provider; disconnect",
                       cJSON_GetObjectItemCaseSensitive(provider, "id")->valuestring);
        cJSON_Delete(provider);
        return;
    }
    c->have_hello = 1;
    c->caps = bits;
    cJSON_Delete(c->provider);
    c->provider = provider;

    cJSON *e = event("hello");
    cJSON_AddItemToObject(e, "provider", cJSON_Duplicate(c->provider, 1));
    emit(c, e);
    cJSON *prev = c->prev_provider;
    c->prev_provider = NULL;
    check_same_provider(c, prev);

    cJSON *held = c->held;
    c->held = cJSON_CreateArray();
    while (held->child) dispatch(c, cJSON_DetachItemViaPointer(held, held->child));
    cJSON_Delete(held);
}

/* A snapshot the core cannot take: a query's caller gets an error event; a
 * subscription keeps its last good state and is retried later. */
static void refuse_snapshot(slop_consumer *c, sub *s, pending *q, const char *code, const char *message,
                            double now) {
    if (q) {
        cJSON *e = event("error");
        cJSON_AddStringToObject(e, "id", q->id);
        cJSON_AddStringToObject(e, "request", "query");
        cJSON_AddStringToObject(e, "code", code);
        cJSON_AddStringToObject(e, "message", message);
        pending_drop(c, q);
        emit(c, e);
        return;
    }
    protocol_error(c, code, 0, "snapshot for %s refused: %s%s", s->handle, message,
                   s->has_mirror ? "; the last good state is kept" : "");
    pending *p = find_pending(c, s->wire);
    if (p) pending_drop(c, p);
    char m[400];
    snprintf(m, sizeof m, "snapshot refused: %s", message);
    give_up(s, code, m, now);
}

/* The string member `key` naming the subscription or request a message is
 * for; NULL, after a protocol_error, when it is not a string. */
static const char *addressee(slop_consumer *c, const cJSON *msg, const char *key, const char *what) {
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, key);
    if (cJSON_IsString(id)) return id->valuestring;
    protocol_error(c, "bad_message", 0, "%s: \"%s\" must be a string", what, key);
    return NULL;
}

/* A snapshot's tree into m: straight from the frame's text when the
 * top-level frame carried it (raw), else from cJSON (inside a batch). */
static slop__mirror_status load_tree(slop_consumer *c, slop__mirror *m, const char *raw, size_t raw_len,
                                     cJSON *tree, char *err, size_t errlen) {
    return raw ? slop__mirror_load_text(m, raw, raw_len, c->lim.max_json_depth, err, errlen)
               : slop__mirror_load(m, tree, err, errlen);
}

static cJSON *snapshot_event(const sub *s, double version, int rebase) {
    cJSON *e = event("snapshot");
    cJSON_AddStringToObject(e, "sub", s->handle);
    cJSON_AddStringToObject(e, "path", s->path);
    cJSON_AddNumberToObject(e, "version", version);
    cJSON_AddNumberToObject(e, "nodes", (double)s->m.nodes);
    cJSON_AddBoolToObject(e, "rebase", rebase);
    return e;
}

/* A drift check asks again while patches are in flight, this many times. */
#define DRIFT_TRIES 3
/* Differences a drift event lists (all of them are counted). */
#define DRIFT_SHOW_MAX 20

/* Sends attempt `attempt` of the drift check `id` of s: a query for what the
 * subscription asked for (path, depth, max_nodes, filter). */
static void send_drift_query(slop_consumer *c, sub *s, const char *id, int attempt, double now) {
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "type", "query");
    cJSON_AddStringToObject(f, "id", id);
    for (const cJSON *it = s->options ? s->options->child : NULL; it; it = it->next)
        cJSON_AddItemToObject(f, it->string, cJSON_Duplicate(it, 1));
    if (pending_add(c, id, REQ_QUERY, now, s->handle, s->path, NULL) == 0) c->pend[c->npend - 1].drift_try = attempt;
    dispatch(c, f);
}

static void drift_event(slop_consumer *c, const char *id, const sub *s, const char *status, double version,
                        cJSON *differences, size_t count, const char *message) {
    cJSON *e = event("drift");
    cJSON_AddStringToObject(e, "id", id);
    if (s) cJSON_AddStringToObject(e, "sub", s->handle);
    cJSON_AddStringToObject(e, "status", status);
    if (version >= 0) cJSON_AddNumberToObject(e, "version", version);
    if (differences) {
        cJSON_AddNumberToObject(e, "count", (double)count);
        cJSON_AddItemToObject(e, "differences", differences);
    }
    if (message) cJSON_AddStringToObject(e, "message", message);
    emit(c, e);
}

/* The answer to a drift check, in tmp: compared with the mirror at the same
 * version, or asked again when patches moved one of them on. */
static void drift_answer(slop_consumer *c, pending *q, double version, slop__mirror *tmp, double now) {
    sub *s = find_sub(c, q->sub_handle);
    char *id = slop__strdup(q->id);
    int attempt = q->drift_try;
    pending_drop(c, q);
    char m[300];
    if (!id) return;
    if (!s || !s->has_mirror || s->state != SUB_LIVE) {
        drift_event(c, id, s, "inconclusive", version, NULL, 0, "the subscription is not live any more");
    } else if (version != s->last_version) {
        if (attempt < DRIFT_TRIES) {
            send_drift_query(c, s, id, attempt + 1, now);
        } else {
            snprintf(m, sizeof m, "the provider answered at version %.17g while the mirror was at %.17g, %d times: "
                     "patches kept coming", version, s->last_version, DRIFT_TRIES);
            drift_event(c, id, s, "inconclusive", version, NULL, 0, m);
        }
    } else {
        cJSON *diffs = cJSON_CreateArray();
        size_t n = slop__conf_drift(&s->m, tmp, s->path, diffs, DRIFT_SHOW_MAX);
        const cJSON *d;
        cJSON_ArrayForEach(d, diffs) {
            char *a = slop__json_print(cJSON_GetObjectItemCaseSensitive(d, "mirror"));
            char *b = slop__json_print(cJSON_GetObjectItemCaseSensitive(d, "provider"));
            slop__conf_note(&c->conf, "drift", cJSON_GetObjectItemCaseSensitive(d, "path")->valuestring, version,
                            "at version %.17g the patches give %.120s, the provider's state is %.120s", version,
                            a ? a : "(absent)", b ? b : "(absent)");
            free(a);
            free(b);
        }
        drift_event(c, id, s, n ? "differs" : "same", version, diffs, n, NULL);
    }
    free(id);
}

/* A query's answer: checked as a snapshot, handed over, nothing kept. */
static void answer_query(slop_consumer *c, pending *q, double version, const char *raw, size_t raw_len, cJSON *tree,
                         double now) {
    char err[300];
    slop__budget b = {0, c->lim.max_nodes};
    slop__mirror tmp;
    slop__mirror_init(&tmp, &b);
    slop__mirror_status st = load_tree(c, &tmp, raw, raw_len, tree, err, sizeof err);
    if (st != SLOP__MIRROR_OK) {
        if (st == SLOP__MIRROR_INVALID) slop__conf_note(&c->conf, "tree-shape", q->path, version, "query answer: %s", err);
        refuse_snapshot(c, NULL, q, "bad_snapshot", err, now);
    } else if (q->drift_try) {
        drift_answer(c, q, version, &tmp, now);
    } else {
        cJSON *e = event("query");
        cJSON_AddStringToObject(e, "id", q->id);
        if (q->path) cJSON_AddStringToObject(e, "path", q->path);
        cJSON_AddNumberToObject(e, "version", version);
        cJSON *t = slop__node_to_json(tmp.root, -1);
        cJSON_AddItemToObject(e, "tree", t);
        /* A page of a windowed collection: where the next one starts. */
        if (q->win[1] > 0)
            add_window(e, cJSON_GetObjectItemCaseSensitive(t, "meta"),
                       (double)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t, "children")), q->win[0],
                       q->win[1], 1);
        pending_drop(c, q);
        emit(c, e);
    }
    slop__mirror_clear(&tmp);
}

/* A subscription's snapshot: the seq and version rules, then the mirror
 * re-based on it. */
static void take_snapshot(slop_consumer *c, sub *s, double v, const cJSON *seq, const char *raw, size_t raw_len,
                          cJSON *tree, double now) {
    char err[300], m[400];
    if (seq && !(is_int(seq) && (seq->valuedouble == 0 || (c->replay && seq->valuedouble >= 0)))) {
        /* A snapshot re-bases seq to 0: with any other seq, which patches
         * follow it is unknowable, so it is refused rather than guessed at.
         * A replay's checkpoint (slop_consumer_checkpoint) is the exception:
         * it says which seq the recorded patches after it continue from. */
        snprintf(m, sizeof m, "it carries seq %.17g; a snapshot's seq is 0", cJSON_IsNumber(seq) ? seq->valuedouble : -1);
        refuse_snapshot(c, s, NULL, "bad_seq", m, now);
        return;
    }
    /* Versions never go back within one connection. A snapshot answering a
     * subscribe sent on a new connection starts a new history: the provider
     * may have restarted with its counter back at 1. */
    int new_history = s->epoch != c->epoch;
    if (s->has_mirror && !new_history && v < s->last_version) {
        snprintf(m, sizeof m, "version %.17g is older than %.17g on the same connection", v, s->last_version);
        refuse_snapshot(c, s, NULL, "version_regressed", m, now);
        return;
    }
    int rebase = s->has_mirror;
    int restarted = rebase && new_history && v < s->last_version;
    double previous = s->last_version;
    slop__mirror_status bad = load_tree(c, &s->m, raw, raw_len, tree, err, sizeof err);
    if (bad != SLOP__MIRROR_OK) {
        refuse_snapshot(c, s, NULL, bad == SLOP__MIRROR_TOO_MANY_NODES ? "too_many_nodes" : "bad_snapshot", err, now);
        return;
    }
    pending *p = find_pending(c, s->wire);
    if (p) pending_drop(c, p);
    s->has_mirror = 1;
    s->wire_live = 1;
    s->epoch = c->epoch;
    set_state(s, SUB_LIVE, "", "");
    s->snap_version = s->last_version = v;
    s->last_seq = c->replay && seq ? (long long)seq->valuedouble : 0;
    s->retries = 0; /* a snapshot that loads is a success: the retry schedule starts over */
    s->tools_stale = 1;
    cJSON *e = snapshot_event(s, v, rebase);
    if (rebase) cJSON_AddNumberToObject(e, "previous_version", previous);
    if (restarted) cJSON_AddBoolToObject(e, "restarted", 1);
    emit(c, e);
    check_tasks(c, s);
}

static void on_snapshot(slop_consumer *c, cJSON *msg, double now) {
    const char *id = addressee(c, msg, "id", "snapshot");
    if (!id) return;
    cJSON *ver = cJSON_GetObjectItemCaseSensitive(msg, "version");
    cJSON *tree = cJSON_GetObjectItemCaseSensitive(msg, "tree");
    sub *s = find_sub_wire(c, id);
    pending *q = s ? NULL : find_pending(c, id);
    if (!s && !(q && q->kind == REQ_QUERY)) {
        c->ignored_frames++; /* an id we never issued, or no longer use */
        /* Never issued: not one of the ids this consumer could have sent for
         * a subscribe or a query (an id with its prefix but a number it never
         * reached is none either). On a shared postMessage channel, other
         * consumers' ids are normal. */
        if (!c->postmessage && !issued_for_snapshot(c, id))
            slop__conf_note(&c->conf, "snapshot-id", NULL, -1, "a snapshot for \"%.60s\", an id this consumer never sent",
                            id);
        return;
    }
    /* The top-level frame's tree arrives as text (see receive); one inside a
     * batch arrives parsed. Taken once: a nested snapshot must not reuse it. */
    const char *raw = c->raw_tree;
    size_t raw_len = c->raw_tree_len;
    c->raw_tree = NULL;
    if (!cJSON_IsNull(tree)) raw = NULL;
    if (!is_counter(ver)) {
        refuse_snapshot(c, s, q, "bad_message", "\"version\" must be an integer from 0 to 2^53", now);
        return;
    }
    if (!(raw && raw[0] == '{') && !cJSON_IsObject(tree)) {
        refuse_snapshot(c, s, q, "bad_message", "\"tree\" must be a node object", now);
        return;
    }
    cJSON *seq = cJSON_GetObjectItemCaseSensitive(msg, "seq");
    if (q && seq) slop__conf_note(&c->conf, "query-seq", q->path, ver->valuedouble, "the answer to query %s carries seq", q->id);
    if (s && !seq) slop__conf_note(&c->conf, "seq-present", s->path, ver->valuedouble, "snapshot for %s without seq", s->handle);
    if (q) answer_query(c, q, ver->valuedouble, raw, raw_len, tree, now);
    else take_snapshot(c, s, ver->valuedouble, seq, raw, raw_len, tree, now);
}

/* The seq and version rules for a patch to a live mirror: 1 when it is the
 * one to apply next; 0 when it is ignored or a resync was asked for. */
static int patch_in_order(slop_consumer *c, sub *s, double v, const cJSON *seq, double now) {
    char m[400];
    if (!seq) slop__conf_note(&c->conf, "seq-present", s->path, v, "patch for %s without seq", s->handle);
    if (seq) { /* seq counts this subscription's patches: it decides */
        long long got = (long long)seq->valuedouble, want = s->last_seq + 1;
        if (got > want) {
            snprintf(m, sizeof m, "expected seq %lld, got %lld", want, got);
            slop__conf_note(&c->conf, "seq-order", s->path, v, "patch for %s: %s", s->handle, m);
            resync(c, s, "gap", m, now);
            return 0;
        }
        if (got < want) {
            protocol_error(c, "seq_repeat", 0, "patch for %s repeats seq %lld (expected %lld): ignored",
                           s->handle, got, want);
            return 0;
        }
        if (v < s->last_version) { /* the next patch in order, yet older */
            snprintf(m, sizeof m, "patch seq %lld has version %.17g after %.17g", got, v, s->last_version);
            protocol_error(c, "version_regressed", 0, "patch for %s: %s; resyncing", s->handle, m);
            resync(c, s, "version_regressed", m, now);
            return 0;
        }
    } else if (v <= s->snap_version) {
        /* Without seq (older providers) a patch not newer than our snapshot
         * is taken as already contained in it; said, not silent. */
        c->stale_patches++;
        protocol_error(c, "stale_patch", 0,
                       "patch for %s has version %.17g, not newer than its snapshot's %.17g: taken as already "
                       "applied, ignored",
                       s->handle, v, s->snap_version);
        return 0;
    } else if (v < s->last_version) {
        snprintf(m, sizeof m, "patch version %.17g after %.17g", v, s->last_version);
        protocol_error(c, "version_regressed", 0, "patch for %s: %s; resyncing", s->handle, m);
        resync(c, s, "version_regressed", m, now);
        return 0;
    }
    return 1;
}

static void put_paths(slop__buf *b, const char *key, const sub *s, const cJSON *rel) {
    slop__buf_puts(b, key);
    for (const cJSON *it = rel ? rel->child : NULL; it; it = it->next) {
        if (it != rel->child) slop__buf_putc(b, ',');
        slop__buf_put_path(b, s->path, it->valuestring);
    }
    slop__buf_putc(b, ']');
}

/* The patch event, printed straight from the change lists: it is the one
 * event of every frame, so it skips building cJSON values. */
static char *patch_event(const sub *s, double v, int nops, const slop__changes *ch) {
    slop__buf b = {0};
    slop__buf_puts(&b, "{\"event\":\"patch\",\"sub\":");
    slop__buf_put_string(&b, s->handle);
    slop__buf_puts(&b, ",\"version\":");
    slop__buf_put_number(&b, v);
    slop__buf_puts(&b, ",\"ops\":");
    slop__buf_put_number(&b, nops);
    put_paths(&b, ",\"changed\":[", s, ch->changed);
    put_paths(&b, ",\"added\":[", s, ch->added);
    put_paths(&b, ",\"removed\":[", s, ch->removed);
    slop__buf_puts(&b, ",\"children\":[");
    for (size_t i = 0; i < ch->nkids; i++) {
        const slop__kid_change *k = &ch->kids[i];
        slop__buf_puts(&b, i ? ",{\"op\":\"" : "{\"op\":\"");
        slop__buf_puts(&b, k->insert ? "insert\",\"parent\":" : "remove\",\"parent\":");
        slop__buf_put_path(&b, s->path, k->parent);
        slop__buf_puts(&b, ",\"index\":");
        slop__buf_put_number(&b, (double)k->index);
        slop__buf_puts(&b, ",\"id\":");
        slop__buf_put_string(&b, k->id);
        slop__buf_putc(&b, '}');
    }
    slop__buf_putc(&b, ']');
    if (ch->truncated) slop__buf_puts(&b, ",\"truncated\":true");
    slop__buf_putc(&b, '}');
    return slop__buf_take(&b);
}

/* Applies the next patch, all or nothing: a refused one resyncs. */
static void apply_patch(slop_consumer *c, sub *s, double v, const cJSON *seq, cJSON *ops, double now) {
    if (!(c->caps & CAP_PATCHES) && !c->warned_patches) {
        c->warned_patches = 1;
        protocol_error(c, "undeclared_capability", 0,
                       "the provider sends patches without declaring \"patches\"; applying them");
    }
    slop__changes ch;
    slop__changes_init(&ch);
    char err[300], m[400];
    int nops = cJSON_GetArraySize(ops);
    slop__mirror_status st = slop__mirror_apply(&s->m, ops, &ch, err, sizeof err);
    if (st != SLOP__MIRROR_OK) {
        slop__changes_free(&ch);
        if (st == SLOP__MIRROR_INVALID) slop__conf_note(&c->conf, "patch-apply", s->path, v, "patch v%.17g: %s", v, err);
        snprintf(m, sizeof m, "patch version %.17g refused (%s); the last good state is kept", v, err);
        resync(c, s, st == SLOP__MIRROR_TOO_MANY_NODES ? "too_many_nodes" : "patch_failed", m, now);
        return;
    }
    s->last_version = v;
    s->last_seq = seq ? (long long)seq->valuedouble : s->last_seq + 1;
    s->tools_stale = 1;
    push_out(c, SLOP_OUT_EVENT, patch_event(s, v, nops, &ch));
    slop__changes_free(&ch);
    check_tasks(c, s);
}

static void on_patch(slop_consumer *c, cJSON *msg, double now) {
    const char *id = addressee(c, msg, "subscription", "patch");
    if (!id) return;
    sub *s = find_sub_wire(c, id);
    if (!s) {
        c->ignored_frames++;
        return;
    }
    if (!s->wire_live) {
        protocol_error(c, "patch_before_snapshot", 0, "patch for %s arrived before its snapshot: ignored",
                       s->handle);
        return;
    }
    if (s->state != SUB_LIVE) { /* given up: only a snapshot (or the retry) revives it */
        c->ignored_frames++;
        return;
    }
    cJSON *ver = cJSON_GetObjectItemCaseSensitive(msg, "version");
    cJSON *seq = cJSON_GetObjectItemCaseSensitive(msg, "seq");
    cJSON *ops = cJSON_GetObjectItemCaseSensitive(msg, "ops");
    if (!is_counter(ver) || !cJSON_IsArray(ops) || (seq && !is_counter(seq))) {
        const char *m =
            "malformed patch: needs an integer \"version\" and \"seq\" from 0 to 2^53 and an \"ops\" array";
        protocol_error(c, "bad_message", 0, "patch for %s: %s; dropped, resyncing", s->handle, m);
        resync(c, s, "bad_patch", m, now);
        return;
    }
    if (patch_in_order(c, s, ver->valuedouble, seq, now)) apply_patch(c, s, ver->valuedouble, seq, ops, now);
}

/* The error codes of results, then the two only error messages may carry. */
static const char *const error_codes[] = {"not_found", "invalid_params", "unauthorized", "conflict",
                                          "internal",  "bad_request",    "not_supported"};

static int known_error_code(const cJSON *code, int for_result) {
    if (!cJSON_IsString(code)) return 0;
    for (int i = 0; i < (for_result ? 5 : 7); i++)
        if (strcmp(code->valuestring, error_codes[i]) == 0) return 1;
    return 0;
}

static void on_result(slop_consumer *c, cJSON *msg, double now) {
    cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    cJSON *status = cJSON_GetObjectItemCaseSensitive(msg, "status");
    pending *p = cJSON_IsString(id) ? find_pending(c, id->valuestring) : NULL;
    if (!p || p->kind != REQ_INVOKE) {
        c->ignored_frames++;
        return;
    }
    cJSON *e = event("result");
    cJSON_AddStringToObject(e, "id", p->id);
    cJSON_AddStringToObject(e, "path", p->path);
    cJSON_AddStringToObject(e, "action", p->action);
    const char *st = cJSON_IsString(status) ? status->valuestring : NULL;
    cJSON *data = cJSON_GetObjectItemCaseSensitive(msg, "data");
    cJSON *error = cJSON_GetObjectItemCaseSensitive(msg, "error");
    int accepted = st && strcmp(st, "accepted") == 0;
    if (!st || (strcmp(st, "ok") != 0 && strcmp(st, "error") != 0 && !accepted))
        slop__conf_note(&c->conf, "result-status", p->path, -1, "invoke \"%.60s\": status %s%.40s%s", p->action,
                        st ? "\"" : "", st ? st : "missing", st ? "\"" : "");
    else if (accepted && !(c->caps & CAP_ASYNC))
        slop__conf_note(&c->conf, "capability-async", p->path, -1, "invoke \"%.60s\" answered \"accepted\"", p->action);
    else if (accepted && !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(data, "taskId")))
        slop__conf_note(&c->conf, "accepted-task", p->path, -1, "invoke \"%.60s\": \"accepted\" without data.taskId", p->action);
    else if (strcmp(st, "error") == 0 && !known_error_code(cJSON_GetObjectItemCaseSensitive(error, "code"), 1))
        slop__conf_note(&c->conf, "error-code", p->path, -1, "invoke \"%.60s\": error code %s", p->action,
                        cJSON_IsString(cJSON_GetObjectItemCaseSensitive(error, "code")) ? "not among the spec's" : "missing");
    if (!st) {
        cJSON_AddStringToObject(e, "status", "error");
        cJSON *er = cJSON_AddObjectToObject(e, "error");
        cJSON_AddStringToObject(er, "code", "bad_message");
        cJSON_AddStringToObject(er, "message", "result without a string \"status\"");
    } else if (strcmp(st, "accepted") == 0 && !(c->caps & CAP_ASYNC)) {
        /* Without the async capability "accepted" reads as "ok" (spec). */
        cJSON_AddStringToObject(e, "status", "ok");
    } else {
        cJSON_AddStringToObject(e, "status", st);
    }
    if (data) cJSON_AddItemToObject(e, "data", cJSON_Duplicate(data, 1));
    if (st && strcmp(st, "error") == 0) {
        cJSON *er = cJSON_AddObjectToObject(e, "error");
        cJSON *code = cJSON_GetObjectItemCaseSensitive(error, "code");
        cJSON *m = cJSON_GetObjectItemCaseSensitive(error, "message");
        cJSON_AddStringToObject(er, "code", cJSON_IsString(code) ? code->valuestring : "internal");
        cJSON_AddStringToObject(er, "message", cJSON_IsString(m) ? m->valuestring : "");
    }
    cJSON *tid = cJSON_GetObjectItemCaseSensitive(data, "taskId");
    if (st && strcmp(st, "accepted") == 0 && (c->caps & CAP_ASYNC) && cJSON_IsString(tid)) {
        cJSON_AddStringToObject(e, "task_id", tid->valuestring);
        if (SLOP__RESERVE(c->tasks, c->ntasks, c->captasks, 8) == 0)
            c->tasks[c->ntasks++] = (task){slop__strdup(p->id), slop__strdup(tid->valuestring), NULL, NULL, 0, now};
    }
    pending_drop(c, p);
    emit(c, e);
    /* The task node may already be in the mirror (patches come first). */
    if (c->ntasks)
        for (size_t i = 0; i < c->nsubs; i++)
            if (c->subs[i]->has_mirror) check_tasks(c, c->subs[i]);
}

static void on_error(slop_consumer *c, cJSON *msg, double now) {
    cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    cJSON *er = cJSON_GetObjectItemCaseSensitive(msg, "error");
    cJSON *code = cJSON_GetObjectItemCaseSensitive(er, "code");
    cJSON *m = cJSON_GetObjectItemCaseSensitive(er, "message");
    cJSON *e = event("error");
    if (cJSON_IsString(id)) {
        pending *p = find_pending(c, id->valuestring);
        sub *s = find_sub_wire(c, id->valuestring);
        if (!p && !s) {
            cJSON_Delete(e);
            c->ignored_frames++;
            return;
        }
        if (s) {
            char why[300];
            snprintf(why, sizeof why, "the provider answered the subscription with an error: %.60s: %.200s",
                     cJSON_IsString(code) ? code->valuestring : "internal", cJSON_IsString(m) ? m->valuestring : "");
            cJSON_AddStringToObject(e, "sub", s->handle);
            give_up(s, "provider_error", why, now);
        }
        cJSON_AddStringToObject(e, "id", s ? s->handle : p->id);
        if (p) {
            cJSON_AddStringToObject(e, "request", req_names[p->kind]);
            pending_drop(c, p);
        }
    }
    if (!known_error_code(code, 0))
        slop__conf_note(&c->conf, "error-code", NULL, -1, "error message: code %s",
                        cJSON_IsString(code) ? "not among the spec's" : "missing");
    cJSON_AddStringToObject(e, "code", cJSON_IsString(code) ? code->valuestring : "internal");
    cJSON_AddStringToObject(e, "message", cJSON_IsString(m) ? m->valuestring : "");
    emit(c, e);
}

static void handle(slop_consumer *c, cJSON *msg, double now, unsigned nest) {
    if (!cJSON_IsObject(msg)) {
        protocol_error(c, "bad_message", 0, "a message must be a JSON object");
        return;
    }
    cJSON *type = cJSON_GetObjectItemCaseSensitive(msg, "type");
    if (!cJSON_IsString(type)) {
        protocol_error(c, "bad_message", 0, "a message needs a string \"type\"");
        return;
    }
    const char *t = type->valuestring;
    if (strcmp(t, "hello") == 0) on_hello(c, msg);
    else if (c->refused) c->ignored_frames++;
    else if (strcmp(t, "snapshot") == 0) on_snapshot(c, msg, now);
    else if (strcmp(t, "patch") == 0) on_patch(c, msg, now);
    else if (strcmp(t, "result") == 0) on_result(c, msg, now);
    else if (strcmp(t, "error") == 0) on_error(c, msg, now);
    else if (strcmp(t, "event") == 0) {
        cJSON *name = cJSON_GetObjectItemCaseSensitive(msg, "name");
        if (!cJSON_IsString(name)) {
            protocol_error(c, "bad_message", 0, "event: \"name\" must be a string");
            return;
        }
        cJSON *e = event("provider_event");
        cJSON_AddStringToObject(e, "name", name->valuestring);
        cJSON *data = cJSON_GetObjectItemCaseSensitive(msg, "data");
        if (data) cJSON_AddItemToObject(e, "data", cJSON_Duplicate(data, 1));
        emit(c, e);
    } else if (strcmp(t, "batch") == 0) {
        cJSON *msgs = cJSON_GetObjectItemCaseSensitive(msg, "messages");
        if (!cJSON_IsArray(msgs)) {
            protocol_error(c, "bad_message", 0, "batch: \"messages\" must be an array");
            return;
        }
        for (cJSON *it = msgs->child; it; it = it->next) handle(c, it, now, nest + 1);
    } else if (strcmp(t, "subscribe") == 0 || strcmp(t, "unsubscribe") == 0 || strcmp(t, "query") == 0 ||
               strcmp(t, "invoke") == 0 || strcmp(t, "connect") == 0) {
        /* Consumer traffic: on a window's postMessage channel every consumer
         * (this one included) sees its own posts come back, which is normal;
         * on a WebSocket it is a provider error worth counting. */
        if (!c->postmessage) c->ignored_frames++;
    } else {
        protocol_error(c, "unknown_type", 0, "unknown message type \"%.60s\": ignored", t);
    }
}

/* ---------------------------------------------------------------------- */
/* Public: life cycle and input                                             */
/* ---------------------------------------------------------------------- */

slop_consumer *slop_consumer_new(const slop_limits *limits, const char *transport, uint64_t seed) {
    int pm = 0, document = 0, replay = 0;
    if (!transport) return NULL;
    /* A Unix socket or stdio line is one frame, as a WebSocket message is. */
    if (!strcmp(transport, "ws") || !strcmp(transport, "unix") || !strcmp(transport, "stdio")) pm = 0;
    else if (strcmp(transport, "postmessage") == 0) pm = 1;
    else if (strcmp(transport, "document") == 0) document = 1;
    else if (strcmp(transport, "replay") == 0) replay = 1;
    else return NULL;
    slop_consumer *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    if (limits) c->lim = *limits;
    if (!c->lim.max_frame_bytes) c->lim.max_frame_bytes = SLOP_DEFAULT_MAX_FRAME_BYTES;
    if (!c->lim.max_json_depth) c->lim.max_json_depth = SLOP_DEFAULT_MAX_JSON_DEPTH;
    if (!c->lim.max_nodes) c->lim.max_nodes = SLOP_DEFAULT_MAX_NODES;
    if (!c->lim.request_timeout_ms) c->lim.request_timeout_ms = SLOP_DEFAULT_TIMEOUT_MS;
    if (!c->lim.max_pending) c->lim.max_pending = SLOP_DEFAULT_MAX_PENDING;
    c->postmessage = pm;
    c->document = document;
    c->replay = replay;
    c->budget.max = c->lim.max_nodes;
    /* A short base36 prefix from the seed keeps ids unique per consumer. */
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    uint64_t x = seed ^ (seed >> 31) ^ 0x5851F42D4C957F2Dull;
    c->prefix[0] = digits[10 + (x % 26)]; /* a letter first: never "sub-1"-like */
    x /= 26;
    for (int i = 1; i < 8; i++, x /= 36) c->prefix[i] = digits[x % 36];
    c->prefix[8] = 0;
    c->held = cJSON_CreateArray();
    if (!c->held) {
        free(c);
        return NULL;
    }
    if (pm) {
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "type", "connect");
        send_frame(c, f);
        cJSON_Delete(f);
    }
    return c;
}

void slop_consumer_free(slop_consumer *c) {
    if (!c) return;
    for (size_t i = 0; i < c->nsubs; i++) sub_free(c->subs[i]);
    free(c->subs);
    while (c->npend) pending_drop(c, &c->pend[c->npend - 1]);
    free(c->pend);
    while (c->ntasks) task_drop(c, c->ntasks - 1);
    free(c->tasks);
    for (size_t i = c->out_head; i < c->out_len; i++) free(c->out[i].text);
    free(c->out);
    cJSON_Delete(c->held);
    cJSON_Delete(c->provider);
    cJSON_Delete(c->prev_provider);
    free(c->adopt);
    slop__conf_free(&c->conf);
    cp_end(c, 1);
    free(c->scratch);
    free(c);
}

/* Keeps the frame's "type" for the caller's frame log (so it never parses the
 * frame again), cut at 40 bytes on a UTF-8 boundary. */
static void note_frame_type(slop_consumer *c, const cJSON *msg) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(msg, "type");
    if (!cJSON_IsString(t)) return;
    size_t n = strlen(t->valuestring);
    if (n > 40) {
        n = 40;
        while (n > 0 && ((unsigned char)t->valuestring[n] & 0xC0) == 0x80) n--;
    }
    memcpy(c->frame_type, t->valuestring, n);
    c->frame_type[n] = '\0';
}

static int receive_frame(slop_consumer *c, const char *frame, size_t len, double now_ms) {
    if (len > c->lim.max_frame_bytes) {
        protocol_error(c, "frame_too_large", 0, "frame of %zu bytes exceeds the limit of %zu: dropped", len,
                       c->lim.max_frame_bytes);
        return c->queued;
    }
    /* Validate once; a top-level snapshot's tree is then loaded straight
     * from the text, and cJSON parses only the small envelope around it. */
    slop__frame_info fi;
    if (slop__scan_frame(frame, len, c->lim.max_json_depth, &fi) != 0) {
        if (fi.too_deep)
            protocol_error(c, "too_deep", 0, "frame nests more than %u levels: dropped", c->lim.max_json_depth);
        else
            protocol_error(c, "bad_json", 0, "frame is not valid JSON: %s (at byte %zu of %zu): dropped", fi.why,
                           fi.offset, len);
        return c->queued;
    }
    cJSON *msg;
    if (fi.is_snapshot && fi.tree) {
        size_t a = (size_t)(fi.tree - frame), rest = len - a - fi.tree_len;
        char *env = malloc(a + 4 + rest);
        if (!env) {
            protocol_error(c, "out_of_memory", 0, "no memory for a frame of %zu bytes: dropped", len);
            return c->queued;
        }
        memcpy(env, frame, a);
        memcpy(env + a, "null", 4);
        memcpy(env + a + 4, fi.tree + fi.tree_len, rest);
        msg = slop__json_parse_scanned(env, a + 4 + rest, fi.long_int);
        free(env);
        c->raw_tree = fi.tree;
        c->raw_tree_len = fi.tree_len;
    } else {
        msg = slop__json_parse_scanned(frame, len, fi.long_int);
    }
    if (!msg) {
        c->raw_tree = NULL;
        protocol_error(c, "out_of_memory", 0, "no memory to parse a frame of %zu bytes: dropped", len);
        return c->queued;
    }
    note_frame_type(c, msg);
    handle(c, msg, now_ms, 0);
    cJSON_Delete(msg);
    c->raw_tree = NULL;
    return c->queued;
}

int slop_consumer_receive(slop_consumer *c, const char *frame, size_t len, double now_ms) {
    if (!c) return 0;
    cp_end(c, 1);
    c->queued = 0;
    c->frame_type[0] = '\0';
    if (c->closed || c->document) { /* a connection that is gone, or none: never applied */
        c->ignored_frames++;
        return 0;
    }
    if (!frame) len = 0;
    c->now = now_ms;
    /* Findings keep the frame that showed them. */
    c->conf.frames++;
    c->conf.frame = frame;
    c->conf.frame_len = len;
    int n = receive_frame(c, frame, len, now_ms);
    c->conf.frame = NULL;
    return n;
}

int slop_consumer_receive_oversize(slop_consumer *c, size_t len, double now_ms) {
    if (!c) return 0;
    cp_end(c, 1);
    c->queued = 0;
    c->frame_type[0] = '\0';
    if (c->closed || c->document) {
        c->ignored_frames++;
        return 0;
    }
    c->now = now_ms;
    c->conf.frames++;
    if (len <= c->lim.max_frame_bytes) len = c->lim.max_frame_bytes + 1;
    protocol_error(c, "frame_too_large", 0, "frame of over %zu bytes exceeds the limit of %zu: dropped unread", len - 1,
                   c->lim.max_frame_bytes);
    return c->queued;
}

int slop_consumer_tick(slop_consumer *c, double now_ms) {
    if (!c) return 0;
    cp_end(c, 1);
    c->queued = 0;
    c->now = now_ms;
    for (size_t i = 0; i < c->npend;) {
        pending *p = &c->pend[i];
        if (now_ms - p->sent_ms >= (double)c->lim.request_timeout_ms) {
            cJSON *e = event("timeout");
            sub *s = p->kind == REQ_SUBSCRIBE ? find_sub(c, p->sub_handle) : NULL;
            cJSON_AddStringToObject(e, "id", s ? s->handle : p->id);
            cJSON_AddStringToObject(e, "request", req_names[p->kind]);
            emit(c, e);
            if (p->kind == REQ_INVOKE)
                slop__conf_note(&c->conf, "result-in-time", p->path, -1, "invoke \"%.60s\": no result in %u ms", p->action,
                                c->lim.request_timeout_ms);
            /* A subscribe waits for the hello; with none (nor a refused one)
             * in time, the hello is what is missing. A page's postMessage
             * provider may simply not be there: not a finding. */
            if (s && c->have_hello)
                slop__conf_note(&c->conf, "snapshot-in-time", s->path, -1, "subscribe %s: no snapshot in %u ms", s->handle,
                                c->lim.request_timeout_ms);
            else if (s && !c->closed && !c->refused && !c->postmessage && !c->hello_refused[0])
                slop__conf_note(&c->conf, "hello-in-time", NULL, -1, "no hello in %u ms", c->lim.request_timeout_ms);
            if (s) give_up(s, "timeout", "no snapshot came in time", now_ms); /* a late one still counts */
            pending_drop(c, p);
            continue;
        }
        i++;
    }
    if (c->closed || !c->have_hello) return c->queued;
    for (size_t i = 0; i < c->nsubs; i++) {
        sub *s = c->subs[i];
        if (s->retry_at > 0 && now_ms >= s->retry_at) {
            s->retry_at = 0;
            s->burst = 0;
            resync(c, s, "retry", "retrying after giving up", now_ms);
        }
    }
    return c->queued;
}

int slop_consumer_close(slop_consumer *c, double now_ms) {
    (void)now_ms;
    if (!c || c->document) return 0; /* a document has no connection */
    cp_end(c, 1);
    c->queued = 0;
    while (c->npend) {
        pending *p = &c->pend[c->npend - 1];
        sub *s = p->kind == REQ_SUBSCRIBE ? find_sub(c, p->sub_handle) : NULL;
        cJSON *e = event("closed");
        cJSON_AddStringToObject(e, "id", s ? s->handle : p->id);
        cJSON_AddStringToObject(e, "request", req_names[p->kind]);
        emit(c, e);
        pending_drop(c, p);
    }
    for (size_t i = 0; i < c->nsubs; i++) {
        sub *s = c->subs[i];
        set_state(s, s->has_mirror ? SUB_STALE : SUB_WAITING, "disconnected",
                  "the connection closed; the state is the last one received");
        s->retry_at = 0; /* a reconnect re-subscribes (reset) */
        s->wire_live = 0;
    }
    c->closed = 1;
    return c->queued;
}

int slop_consumer_reset(slop_consumer *c, double now_ms) {
    if (!c || c->document) return 0;
    cp_end(c, 1);
    c->queued = 0;
    if (!c->closed) slop_consumer_close(c, now_ms);
    c->queued = 0;
    c->closed = 0;
    c->have_hello = 0;
    c->refused = 0;
    c->hello_refused[0] = '\0';
    c->caps = 0;
    c->epoch++;
    if (c->provider) { /* compared with the next hello: the same app or another */
        cJSON_Delete(c->prev_provider);
        c->prev_provider = c->provider;
    }
    c->provider = NULL;
    cJSON_Delete(c->held);
    c->held = cJSON_CreateArray();
    if (c->postmessage) {
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "type", "connect");
        send_frame(c, f);
        cJSON_Delete(f);
    }
    for (size_t i = 0; i < c->nsubs; i++) {
        sub *s = c->subs[i];
        free(s->wire);
        s->wire = new_id(c, 's');
        s->burst = 0;
        s->retries = 0;
        set_state(s, s->has_mirror ? SUB_RESYNCING : SUB_WAITING, "reconnected",
                  "a new connection: waiting for a fresh snapshot");
        pending_add(c, s->wire, REQ_SUBSCRIBE, now_ms, s->handle, NULL, NULL);
        dispatch(c, subscribe_frame(s));
    }
    return c->queued;
}

slop_output_kind slop_consumer_next(slop_consumer *c, const char **out, size_t *out_len) {
    if (out) *out = NULL;
    if (out_len) *out_len = 0;
    if (!c) return SLOP_OUT_NONE;
    if (c->out_head == c->out_len) {
        give(c, NULL, NULL);
        return SLOP_OUT_NONE;
    }
    out_item it = c->out[c->out_head++];
    give(c, it.text, NULL);
    if (out) *out = it.text;
    if (out_len) *out_len = it.len;
    return it.kind;
}

/* ---------------------------------------------------------------------- */
/* Public: requests                                                         */
/* ---------------------------------------------------------------------- */

/* options.filter checked and copied into out; -1 after fail(). */
static int parse_filter(slop_consumer *c, const cJSON *filter, cJSON *out) {
    if (!cJSON_IsObject(filter)) {
        fail(c, SLOP_E_ARG, "options.filter must be an object");
        return -1;
    }
    cJSON *f = cJSON_AddObjectToObject(out, "filter");
    for (const cJSON *fi = filter->child; fi; fi = fi->next) {
        if (strcmp(fi->string, "types") == 0) {
            int all_strings = cJSON_IsArray(fi);
            for (const cJSON *t = all_strings ? fi->child : NULL; t; t = t->next) all_strings &= cJSON_IsString(t);
            if (!all_strings) {
                fail(c, SLOP_E_ARG, "options.filter.types must be an array of strings");
                return -1;
            }
            cJSON_AddItemToObject(f, "types", cJSON_Duplicate(fi, 1));
        } else if (strcmp(fi->string, "min_salience") == 0) {
            if (!cJSON_IsNumber(fi) || fi->valuedouble < 0 || fi->valuedouble > 1) {
                fail(c, SLOP_E_ARG, "options.filter.min_salience must be a number from 0 to 1");
                return -1;
            }
            cJSON_AddNumberToObject(f, "min_salience", fi->valuedouble);
        } else {
            fail(c, SLOP_E_ARG, "options.filter has an unknown member \"%.40s\"", fi->string);
            return -1;
        }
    }
    return 0;
}

/* Parses and checks subscribe/query options into frame members. */
static cJSON *parse_options(slop_consumer *c, const char *text, size_t len, int is_query, char **path_out) {
    slop__json_status st;
    cJSON *in = len ? slop__json_parse(text, len, c->lim.max_json_depth, &st, NULL, NULL) : cJSON_CreateObject();
    if (!cJSON_IsObject(in)) {
        cJSON_Delete(in);
        fail(c, SLOP_E_ARG, "options must be a JSON object");
        return NULL;
    }
    cJSON *out = cJSON_CreateObject();
    const char *path = "/";
    double depth = -1;
    for (cJSON *it = in->child; it; it = it->next) {
        const char *k = it->string;
        if (strcmp(k, "path") == 0) {
            if (!cJSON_IsString(it) || it->valuestring[0] != '/') {
                fail(c, SLOP_E_ARG, "options.path must be a string starting with '/'");
                goto bad;
            }
            path = it->valuestring;
        } else if (strcmp(k, "depth") == 0) {
            if (!is_int(it) || it->valuedouble < -1) {
                fail(c, SLOP_E_ARG, "options.depth must be an integer >= -1");
                goto bad;
            }
            depth = it->valuedouble;
        } else if (strcmp(k, "max_nodes") == 0) {
            if (!is_int(it) || it->valuedouble < 1) {
                fail(c, SLOP_E_ARG, "options.max_nodes must be a positive integer");
                goto bad;
            }
            cJSON_AddNumberToObject(out, "max_nodes", it->valuedouble);
        } else if (strcmp(k, "filter") == 0) {
            if (parse_filter(c, it, out) != 0) goto bad;
        } else if (strcmp(k, "id") == 0 && c->replay && !is_query) {
            /* A recording's frames address the subscription by the id it had. */
            if (!cJSON_IsString(it) || !it->valuestring[0] || strlen(it->valuestring) > 200) {
                fail(c, SLOP_E_ARG, "options.id must be a string of 1 to 200 bytes");
                goto bad;
            }
            free(c->adopt);
            c->adopt = slop__strdup(it->valuestring);
        } else if (strcmp(k, "window") == 0 && is_query) {
            cJSON *a = cJSON_GetArrayItem(it, 0), *b = cJSON_GetArrayItem(it, 1);
            if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2 || !is_int(a) || !is_int(b) ||
                a->valuedouble < 0 || b->valuedouble < 0) {
                fail(c, SLOP_E_ARG, "options.window must be [offset, count] with non-negative integers");
                goto bad;
            }
            cJSON_AddItemToObject(out, "window", cJSON_Duplicate(it, 1));
        } else {
            fail(c, SLOP_E_ARG, "options has an unknown member \"%.40s\"%s", k,
                 strcmp(k, "window") == 0 ? " (window is for query only)" : "");
            goto bad;
        }
    }
    /* Normalise "/a/b/" to "/a/b" so absolute paths join cleanly. */
    size_t pl = strlen(path);
    char *np = slop__strdup(path);
    while (pl > 1 && np[pl - 1] == '/') np[--pl] = 0;
    cJSON *ordered = cJSON_CreateObject();
    cJSON_AddStringToObject(ordered, "path", np);
    cJSON_AddNumberToObject(ordered, "depth", depth);
    while (out->child) {
        cJSON *it = cJSON_DetachItemViaPointer(out, out->child);
        cJSON_AddItemToObject(ordered, it->string, it);
    }
    cJSON_Delete(out);
    cJSON_Delete(in);
    *path_out = np;
    return ordered;
bad:
    cJSON_Delete(in);
    cJSON_Delete(out);
    free(c->adopt);
    c->adopt = NULL;
    return NULL;
}

static int can_request(slop_consumer *c) {
    if (c->document) {
        fail(c, SLOP_E_STATE, "a document has no provider: it is read-only");
        return 0;
    }
    if (c->refused) {
        fail(c, SLOP_E_STATE, "the peer is not a SLOP provider (no \"state\" capability)");
        return 0;
    }
    if (c->closed) {
        fail(c, SLOP_E_STATE, "the connection is closed");
        return 0;
    }
    if (c->npend >= c->lim.max_pending) {
        fail(c, SLOP_E_LIMIT, "%u requests are already waiting for an answer", c->lim.max_pending);
        return 0;
    }
    return 1;
}

/* The start of subscribe and query: a request possible now, its options
 * checked. NULL after fail(). */
static cJSON *request_options(slop_consumer *c, const char *options, size_t len, int is_query, char **path) {
    ok(c);
    if (!can_request(c)) return NULL;
    return parse_options(c, options, options ? len : 0, is_query, path);
}

const char *slop_consumer_subscribe(slop_consumer *c, const char *options, size_t len, double now_ms,
                                    size_t *out_len) {
    if (!c) return NULL;
    cp_end(c, 1);
    char *path = NULL;
    cJSON *opts = request_options(c, options, len, 0, &path);
    if (!opts) return give(c, NULL, out_len);
    if (SLOP__RESERVE(c->subs, c->nsubs, c->capsubs, 4) != 0) {
        cJSON_Delete(opts);
        free(path);
        free(c->adopt);
        c->adopt = NULL;
        fail(c, SLOP_E_NOMEM, "out of memory");
        return give(c, NULL, out_len);
    }
    if (c->adopt && find_sub_wire(c, c->adopt)) {
        fail(c, SLOP_E_ARG, "options.id \"%.60s\" is already a subscription of this consumer", c->adopt);
        free(c->adopt);
        c->adopt = NULL;
        cJSON_Delete(opts);
        free(path);
        return give(c, NULL, out_len);
    }
    sub *s = calloc(1, sizeof *s);
    char *wire = c->adopt ? c->adopt : new_id(c, 's');
    c->adopt = NULL;
    char *handle = wire ? slop__strdup(wire) : NULL;
    if (!s || !handle) {
        free(s);
        free(wire);
        free(handle);
        cJSON_Delete(opts);
        free(path);
        fail(c, SLOP_E_NOMEM, "out of memory");
        return give(c, NULL, out_len);
    }
    s->wire = wire;
    s->handle = handle;
    s->options = opts;
    s->path = path;
    slop__mirror_init(&s->m, &c->budget);
    c->subs[c->nsubs++] = s;
    pending_add(c, s->wire, REQ_SUBSCRIBE, now_ms, s->handle, NULL, NULL);
    dispatch(c, subscribe_frame(s));
    return give(c, slop__strdup(s->handle), out_len);
}

/* ---------------------------------------------------------------------- */
/* Documents: a tree from a file, read-only                                 */
/* ---------------------------------------------------------------------- */

#define DOC_TEXT_MAX 200 /* bytes kept of a document's provider id, name, date */

/* A copy of member `key` of obj when it is a string, cut to DOC_TEXT_MAX
 * bytes on a character boundary; NULL otherwise. */
static cJSON *doc_string(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsString(v)) return NULL;
    size_t n = strlen(v->valuestring);
    if (n <= DOC_TEXT_MAX) return cJSON_CreateString(v->valuestring);
    size_t cut = slop__utf8_cut(v->valuestring, n, DOC_TEXT_MAX);
    char buf[DOC_TEXT_MAX + 1];
    memcpy(buf, v->valuestring, cut);
    buf[cut] = 0;
    return cJSON_CreateString(buf);
}

/* The document's provider as a hello would give it: the file's own
 * provider id and name when it names one, with every capability, so every
 * field the document carries is kept and shown. */
static cJSON *doc_provider(const cJSON *named, const char *fallback_name) {
    cJSON *p = cJSON_CreateObject();
    cJSON *id = doc_string(named, "id"), *name = doc_string(named, "name");
    cJSON_AddItemToObject(p, "id", id && id->valuestring[0] ? id : cJSON_CreateString("document"));
    if (id && !id->valuestring[0]) cJSON_Delete(id);
    cJSON_AddItemToObject(p, "name", name ? name : cJSON_CreateString(fallback_name));
    cJSON *caps = cJSON_AddArrayToObject(p, "capabilities");
    for (int k = 0; k < CAP_COUNT; k++) cJSON_AddItemToArray(caps, cJSON_CreateString(cap_names[k]));
    return p;
}

/* The document parsed under the consumer's limits; NULL after fail(). */
static cJSON *doc_parse(slop_consumer *c, const char *doc, size_t len) {
    if (!doc || len == 0) {
        fail(c, SLOP_E_ARG, "the document is empty");
        return NULL;
    }
    if (len > c->lim.max_frame_bytes) {
        fail(c, SLOP_E_LIMIT, "the document has %zu bytes, more than the limit of %zu", len, c->lim.max_frame_bytes);
        return NULL;
    }
    slop__json_status st;
    const char *why = NULL;
    cJSON *j = slop__json_parse(doc, len, c->lim.max_json_depth, &st, NULL, &why);
    if (!j) {
        if (st == SLOP__JSON_TOO_DEEP) fail(c, SLOP_E_ARG, "the document nests more than %u levels", c->lim.max_json_depth);
        else fail(c, SLOP_E_ARG, "the document is not valid JSON (%s)", why ? why : "out of memory");
    }
    return j;
}

/* The document's one subscription, with its tree mirrored (taken from
 * tree as a snapshot's is); NULL after fail(). */
static sub *doc_sub(slop_consumer *c, cJSON *tree, double version) {
    sub *s = calloc(1, sizeof *s);
    sub **ns = s ? realloc(c->subs, sizeof *ns) : NULL;
    if (!ns) {
        free(s);
        fail(c, SLOP_E_NOMEM, "out of memory");
        return NULL;
    }
    c->subs = ns;
    c->capsubs = 1;
    s->wire = new_id(c, 's');
    s->handle = slop__strdup(s->wire);
    s->path = slop__strdup("/");
    s->options = cJSON_CreateObject();
    cJSON_AddStringToObject(s->options, "path", "/");
    cJSON_AddNumberToObject(s->options, "depth", -1);
    slop__mirror_init(&s->m, &c->budget);
    char err[300];
    slop__mirror_status st = cJSON_IsObject(tree) ? slop__mirror_load(&s->m, tree, err, sizeof err) : SLOP__MIRROR_INVALID;
    if (st != SLOP__MIRROR_OK) {
        fail(c, st == SLOP__MIRROR_TOO_MANY_NODES ? SLOP_E_LIMIT : st == SLOP__MIRROR_NOMEM ? SLOP_E_NOMEM : SLOP_E_ARG,
             "the tree was refused: %s", cJSON_IsObject(tree) ? err : "it is not a node object");
        sub_free(s);
        return NULL;
    }
    c->subs[c->nsubs++] = s;
    s->has_mirror = s->wire_live = 1;
    s->snap_version = s->last_version = version;
    set_state(s, SUB_DOCUMENT, "document", "a read-only copy loaded from a file: nothing follows it");
    return s;
}

const char *slop_consumer_load(slop_consumer *c, const char *doc, size_t len, const char *name, double now_ms,
                               size_t *out_len) {
    (void)now_ms;
    if (!c) return NULL;
    cp_end(c, 1);
    ok(c);
    if (!c->document || c->nsubs > 0) {
        fail(c, SLOP_E_STATE, c->document ? "this consumer already holds a document"
                                          : "only a consumer made for transport \"document\" loads documents");
        return give(c, NULL, out_len);
    }
    cJSON *j = doc_parse(c, doc, len);
    if (!j) return give(c, NULL, out_len);
    /* Accepted: this inspector's export {format, provider, version, tree,
     * exportedAt}, a snapshot message {type:"snapshot", version, tree}, or a
     * bare node. The shape only says where the tree is; the mirror judges it. */
    cJSON *tree = cJSON_GetObjectItemCaseSensitive(j, "tree");
    const cJSON *wrapper = cJSON_IsObject(j) && tree ? j : NULL;
    if (!wrapper) tree = j;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(wrapper, "type");
    const char *format = !wrapper ? "node" : cJSON_IsString(type) && !strcmp(type->valuestring, "snapshot") ? "snapshot" : "export";
    cJSON *ver = cJSON_GetObjectItemCaseSensitive(wrapper, "version");
    double version = is_counter(ver) ? ver->valuedouble : 0;
    const cJSON *named = cJSON_GetObjectItemCaseSensitive(wrapper, "provider");
    sub *s = doc_sub(c, tree, version);
    if (!s) {
        cJSON_Delete(j);
        return give(c, NULL, out_len);
    }

    c->have_hello = 1;
    c->caps = (1u << CAP_COUNT) - 1;
    c->provider = doc_provider(cJSON_IsObject(named) ? named : NULL, name && name[0] ? name : "document");
    cJSON *e = event("hello");
    cJSON_AddItemToObject(e, "provider", cJSON_Duplicate(c->provider, 1));
    emit(c, e);
    emit(c, snapshot_event(s, version, 0));

    cJSON *info = cJSON_CreateObject();
    cJSON_AddStringToObject(info, "sub", s->handle);
    cJSON_AddStringToObject(info, "format", format);
    cJSON_AddNumberToObject(info, "version", version);
    cJSON_AddNumberToObject(info, "nodes", (double)s->m.nodes);
    cJSON_AddItemToObject(info, "provider", cJSON_Duplicate(c->provider, 1));
    cJSON_AddBoolToObject(info, "names_provider", cJSON_IsObject(named));
    cJSON *at = doc_string(wrapper, "exportedAt");
    cJSON_AddItemToObject(info, "exported_at", at ? at : cJSON_CreateNull());
    cJSON_Delete(j);
    return give_json(c, info, out_len);
}

int slop_consumer_unsubscribe(slop_consumer *c, const char *sub_id, double now_ms) {
    (void)now_ms;
    if (!c) return SLOP_E_ARG;
    cp_end(c, 1);
    ok(c);
    for (size_t i = 0; i < c->nsubs; i++) {
        sub *s = c->subs[i];
        if (!sub_id || strcmp(s->handle, sub_id) != 0) continue;
        pending *p = find_pending(c, s->wire);
        if (p) pending_drop(c, p);
        if (!c->closed && !c->document) {
            cJSON *un = cJSON_CreateObject();
            cJSON_AddStringToObject(un, "type", "unsubscribe");
            cJSON_AddStringToObject(un, "id", s->wire);
            dispatch(c, un);
        }
        sub_free(s);
        c->subs[i] = c->subs[--c->nsubs];
        return SLOP_OK;
    }
    fail(c, SLOP_E_NOT_FOUND, "no subscription \"%.60s\"", sub_id ? sub_id : "(null)");
    return SLOP_E_NOT_FOUND;
}

int slop_consumer_resync(slop_consumer *c, const char *sub_id, double now_ms) {
    if (!c) return SLOP_E_ARG;
    cp_end(c, 1);
    ok(c);
    sub *s = find_sub(c, sub_id);
    if (!s) {
        fail(c, SLOP_E_NOT_FOUND, "no subscription \"%.60s\"", sub_id ? sub_id : "(null)");
        return SLOP_E_NOT_FOUND;
    }
    if (!can_request(c)) return c->code;
    s->retry_at = 0;
    s->burst = 0;
    resync(c, s, "manual", "resync asked for by the user", now_ms);
    return SLOP_OK;
}

const char *slop_consumer_query(slop_consumer *c, const char *options, size_t len, double now_ms,
                                size_t *out_len) {
    if (!c) return NULL;
    char *path = NULL;
    cJSON *opts = request_options(c, options, len, 1, &path);
    if (!opts) return give(c, NULL, out_len);
    char *id = new_id(c, 'q');
    cJSON *f = request_frame("query", id, opts);
    cJSON_Delete(opts);
    if (!f) {
        free(id);
        free(path);
        fail(c, SLOP_E_NOMEM, "out of memory");
        return give(c, NULL, out_len);
    }
    if (pending_add(c, id, REQ_QUERY, now_ms, NULL, path, NULL) == 0) {
        cJSON *w = cJSON_GetObjectItemCaseSensitive(f, "window");
        pending *p = &c->pend[c->npend - 1];
        if (cJSON_GetArraySize(w) == 2) {
            p->win[0] = w->child->valuedouble;
            p->win[1] = w->child->next->valuedouble;
        }
    }
    free(path);
    dispatch(c, f);
    return give(c, id, out_len);
}

/* The mirrored node at an absolute path, searching every subscription. */
static slop__node *find_mirrored(slop_consumer *c, const char *path) {
    for (size_t i = 0; i < c->nsubs; i++) {
        sub *s = c->subs[i];
        if (!s->has_mirror) continue;
        const char *rel = rel_path(s->path, path);
        slop__node *n = rel ? slop__mirror_find(&s->m, rel) : NULL;
        if (n) return n;
    }
    return NULL;
}

const char *slop_consumer_invoke(slop_consumer *c, const char *path, const char *action, const char *params,
                                 size_t params_len, double now_ms, size_t *out_len) {
    if (!c) return NULL;
    ok(c);
    if (!path || path[0] != '/' || !action || !action[0]) {
        fail(c, SLOP_E_ARG, "invoke needs an absolute path and an action name");
        return give(c, NULL, out_len);
    }
    if (!can_request(c)) return give(c, NULL, out_len);
    if (!c->have_hello) {
        fail(c, SLOP_E_STATE, "the provider has not said hello yet");
        return give(c, NULL, out_len);
    }
    if (!(c->caps & CAP_AFFORDANCES)) {
        fail(c, SLOP_E_CAPABILITY, "the provider does not declare \"affordances\": nothing can be invoked");
        return give(c, NULL, out_len);
    }
    slop__json_status st;
    cJSON *pj = params && params_len ? slop__json_parse(params, params_len, c->lim.max_json_depth, &st, NULL, NULL)
                                     : cJSON_CreateObject();
    if (!cJSON_IsObject(pj)) {
        cJSON_Delete(pj);
        fail(c, SLOP_E_PARAMS, "params must be a JSON object");
        return give(c, NULL, out_len);
    }
    slop__node *n = find_mirrored(c, path);
    if (n) {
        cJSON *aff = NULL;
        cJSON *list = slop__node_field(n, SLOP__FIELD_AFFORDANCES);
        for (cJSON *a = list ? list->child : NULL; a; a = a->next) {
            cJSON *an = cJSON_GetObjectItemCaseSensitive(a, "action");
            if (cJSON_IsString(an) && strcmp(an->valuestring, action) == 0) aff = a;
        }
        /* A stub (id/type/meta only) carries no affordances: let the provider decide. */
        int stub = !slop__node_has_field(n, SLOP__FIELD_PROPERTIES) && !list && !n->kids;
        if (!aff && !stub) {
            cJSON_Delete(pj);
            fail(c, SLOP_E_NOT_FOUND, "%.120s has no affordance \"%.60s\"", path, action);
            return give(c, NULL, out_len);
        }
        char *msg = aff ? slop__params_check(cJSON_GetObjectItemCaseSensitive(aff, "params"), pj) : NULL;
        if (msg) {
            fail(c, SLOP_E_PARAMS, "%s", msg);
            free(msg);
            cJSON_Delete(pj);
            return give(c, NULL, out_len);
        }
    }
    char *id = new_id(c, 'i');
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "type", "invoke");
    cJSON_AddStringToObject(f, "id", id);
    cJSON_AddStringToObject(f, "path", path);
    cJSON_AddStringToObject(f, "action", action);
    cJSON_AddItemToObject(f, "params", pj);
    pending_add(c, id, REQ_INVOKE, now_ms, NULL, path, action);
    dispatch(c, f);
    return give(c, id, out_len);
}

/* ---------------------------------------------------------------------- */
/* Public: reading                                                          */
/* ---------------------------------------------------------------------- */

const char *slop_consumer_status(slop_consumer *c, size_t *out_len) {
    if (!c) return NULL;
    ok(c);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddBoolToObject(j, "hello", c->have_hello);
    cJSON_AddItemToObject(j, "provider", c->provider ? cJSON_Duplicate(c->provider, 1) : cJSON_CreateNull());
    cJSON *caps = cJSON_AddArrayToObject(j, "capabilities");
    for (int k = 0; k < CAP_COUNT; k++)
        if (c->caps & (1u << k)) cJSON_AddItemToArray(caps, cJSON_CreateString(cap_names[k]));
    cJSON_AddBoolToObject(j, "closed", c->closed);
    cJSON_AddBoolToObject(j, "refused", c->refused);
    cJSON_AddBoolToObject(j, "document", c->document);
    cJSON_AddNumberToObject(j, "pending", (double)c->npend);
    cJSON_AddNumberToObject(j, "nodes", (double)c->budget.used);
    cJSON_AddNumberToObject(j, "ignored_frames", (double)c->ignored_frames);
    cJSON_AddNumberToObject(j, "stale_patches", (double)c->stale_patches);
    cJSON *subs = cJSON_AddArrayToObject(j, "subscriptions");
    for (size_t i = 0; i < c->nsubs; i++) {
        sub *s = c->subs[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "sub", s->handle);
        cJSON_AddStringToObject(o, "wire", s->wire);
        cJSON_AddStringToObject(o, "path", s->path);
        cJSON_AddItemToObject(o, "options", cJSON_Duplicate(s->options, 1));
        cJSON_AddStringToObject(o, "state", sub_state_names[s->state]);
        if (s->state == SUB_LIVE) cJSON_AddNullToObject(o, "reason");
        else {
            cJSON *r = cJSON_AddObjectToObject(o, "reason");
            cJSON_AddStringToObject(r, "code", s->reason_code[0] ? s->reason_code : "subscribing");
            cJSON_AddStringToObject(r, "message", s->reason[0] ? s->reason : "waiting for the first snapshot");
        }
        if (s->retry_at > 0) cJSON_AddNumberToObject(o, "retry_at", s->retry_at);
        else cJSON_AddNullToObject(o, "retry_at");
        if (s->has_mirror) {
            cJSON_AddNumberToObject(o, "version", s->last_version);
            cJSON_AddNumberToObject(o, "seq", (double)s->last_seq);
        }
        cJSON_AddNumberToObject(o, "nodes", (double)s->m.nodes);
        cJSON_AddItemToArray(subs, o);
    }
    return give_json(c, j, out_len);
}

static slop__node *lookup(slop_consumer *c, const char *sub_id, const char *path, sub **s_out) {
    sub *s = find_sub(c, sub_id);
    if (!s) {
        fail(c, SLOP_E_NOT_FOUND, "no subscription \"%.60s\"", sub_id ? sub_id : "(null)");
        return NULL;
    }
    if (!s->has_mirror) {
        fail(c, SLOP_E_STATE, "subscription %s has no snapshot yet", s->handle);
        return NULL;
    }
    const char *rel = path ? rel_path(s->path, path) : "/";
    slop__node *n = rel ? slop__mirror_find(&s->m, rel) : NULL;
    if (!n) fail(c, SLOP_E_NOT_FOUND, "no node at %.120s", path ? path : "/");
    if (s_out) *s_out = s;
    return n;
}

const char *slop_consumer_tree(slop_consumer *c, const char *sub_id, const char *path, int depth,
                               size_t *out_len) {
    if (!c) return NULL;
    ok(c);
    slop__node *n = lookup(c, sub_id, path, NULL);
    if (!n) return give(c, NULL, out_len);
    /* Printed from the mirror's text, as node views are: a field no patch touched keeps the
     * provider's text for its numbers (1.50, 1E5), not the shortest form of their value. */
    slop__buf b = {0};
    slop__node_put(&b, n, depth, 1);
    char *text = slop__buf_take(&b);
    if (!text) fail(c, SLOP_E_NOMEM, "out of memory");
    return give(c, text, out_len);
}

/* The snapshot frame's members before the tree: {"type":"snapshot",...,"tree": */
static void checkpoint_head(slop__buf *b, const sub *s) {
    slop__buf_puts(b, "{\"type\":\"snapshot\",\"id\":");
    slop__buf_put_string(b, s->wire);
    slop__buf_puts(b, ",\"version\":");
    slop__buf_put_number(b, s->last_version);
    slop__buf_puts(b, ",\"seq\":");
    slop__buf_put_number(b, (double)s->last_seq);
    slop__buf_puts(b, ",\"tree\":");
}

const char *slop_consumer_checkpoint(slop_consumer *c, const char *sub_id, size_t *out_len) {
    if (!c) return NULL;
    ok(c);
    sub *s = NULL;
    slop__node *n = lookup(c, sub_id, "/", &s);
    if (!n) return give(c, NULL, out_len);
    n = s->m.root;
    slop__buf b = {0};
    checkpoint_head(&b, s);
    slop__node_put(&b, n, -1, 1);
    slop__buf_putc(&b, '}');
    char *text = slop__buf_take(&b);
    if (!text) fail(c, SLOP_E_NOMEM, "out of memory");
    return give(c, text, out_len);
}

static int cp_push(slop_consumer *c, const slop__node *n) {
    if (SLOP__RESERVE(c->cp, c->cp_depth, c->cp_cap, 16) != 0) return -1;
    c->cp[c->cp_depth++] = (cp_frame){.n = n};
    return 0;
}

int slop_consumer_checkpoint_begin(slop_consumer *c, const char *sub_id) {
    if (!c) return SLOP_E_ARG;
    ok(c);
    cp_end(c, 0);
    c->cp_broken = 0;
    sub *s = NULL;
    if (!lookup(c, sub_id, "/", &s)) return c->code;
    slop__buf b = {0};
    checkpoint_head(&b, s);
    c->cp_head = slop__buf_take(&b);
    if (!c->cp_head || cp_push(c, s->m.root) != 0) {
        cp_end(c, 0);
        fail(c, SLOP_E_NOMEM, "out of memory");
        return c->code;
    }
    c->cp_open = 1;
    return SLOP_OK;
}

const char *slop_consumer_checkpoint_next(slop_consumer *c, size_t max_bytes, size_t *out_len) {
    if (!c) return NULL;
    ok(c);
    if (!c->cp_open) {
        if (c->cp_broken) fail(c, SLOP_E_STATE, "the mirror changed during the checkpoint: begin again");
        else if (c->cp_head) { /* the last part was given: an empty one says so */
            cp_end(c, 0);
            return give(c, slop__buf_take(&(slop__buf){0}), out_len);
        } else fail(c, SLOP_E_STATE, "no checkpoint begun");
        return give(c, NULL, out_len);
    }
    slop__buf b = {0};
    if (c->cp_head[0]) {
        slop__buf_puts(&b, c->cp_head);
        c->cp_head[0] = '\0'; /* printed; kept (empty) until the end */
    }
    /* Whole nodes only: a part ends between two nodes once it holds max_bytes. */
    for (int moved = 0; c->cp_depth && (!moved || b.len < max_bytes) && !b.oom; moved = 1) {
        cp_frame *f = &c->cp[c->cp_depth - 1];
        const slop__node *k;
        if (!f->in_kids) {
            slop__node_put(&b, f->n, 0, 0);
            if (!f->n->kids) {
                slop__buf_putc(&b, '}');
                c->cp_depth--;
                continue;
            }
            slop__buf_puts(&b, ",\"children\":[");
            f->in_kids = 1;
            k = slop__kids_first(f->n, &f->it);
        } else {
            k = slop__kids_next(&f->it);
            if (k) slop__buf_putc(&b, ',');
        }
        if (!k) {
            slop__buf_puts(&b, "]}");
            c->cp_depth--;
        } else if (cp_push(c, k) != 0) {
            b.oom = 1;
        }
    }
    if (!c->cp_depth) {
        slop__buf_putc(&b, '}'); /* the snapshot frame's */
        c->cp_open = 0;
    }
    char *text = slop__buf_take(&b);
    if (!text) {
        cp_end(c, 0);
        fail(c, SLOP_E_NOMEM, "out of memory");
    }
    return give(c, text, out_len);
}

const char *slop_consumer_node(slop_consumer *c, const char *sub_id, const char *path, size_t *out_len) {
    if (!c) return NULL;
    ok(c);
    sub *s = NULL;
    slop__node *n = lookup(c, sub_id, path, &s);
    if (!n) return give(c, NULL, out_len);
    /* Printed straight from the mirror: the panel asks for a view of every node a patch touches. */
    slop__buf b = {0};
    slop__node_put(&b, n, 0, 0);
    char *rp = slop__node_path(n);
    if (!rp) b.oom = 1;
    slop__buf_puts(&b, ",\"path\":");
    slop__buf_put_path(&b, s->path, rp ? rp : "/");
    free(rp);
    slop__buf_puts(&b, ",\"child_ids\":[");
    slop__kid_iter it;
    int first = 1;
    for (slop__node *k = slop__kids_first(n, &it); k; k = slop__kids_next(&it), first = 0) {
        if (!first) slop__buf_putc(&b, ',');
        slop__buf_put_string(&b, k->id);
    }
    slop__buf_putc(&b, ']');
    cJSON *meta = slop__node_meta_if(n, "total_children");
    if (meta) { /* a windowed collection: how many more the provider has */
        cJSON *w = cJSON_CreateObject();
        add_window(w, meta, (double)slop__node_child_count(n), 0, 0, 0);
        for (const cJSON *it2 = w ? w->child : NULL; it2; it2 = it2->next) {
            slop__buf_putc(&b, ',');
            slop__buf_put_string(&b, it2->string);
            slop__buf_putc(&b, ':');
            slop__buf_put_json(&b, it2);
        }
        cJSON_Delete(w);
        cJSON_Delete(meta);
    }
    slop__buf_putc(&b, '}');
    char *text = slop__buf_take(&b);
    if (!text) fail(c, SLOP_E_NOMEM, "out of memory");
    return give(c, text, out_len);
}

const char *slop_consumer_tree_text(slop_consumer *c, const char *sub_id, size_t *out_len) {
    if (!c) return NULL;
    ok(c);
    slop__node *n = lookup(c, sub_id, NULL, NULL);
    if (!n) return give(c, NULL, out_len);
    char *text = slop__mirror_tree_text(n);
    if (!text) fail(c, SLOP_E_NOMEM, "out of memory");
    return give(c, text, out_len);
}

/* The arguments of a tool list, as they name it: no prefix is "", and
 * max_len as the naming takes it. */
static unsigned tool_len_arg(unsigned max_len) {
    if (max_len == 0) return SLOP_TOOL_NAME_MAX_DEFAULT;
    return max_len < 16 ? 16 : max_len;
}

static int same_tool_args(const sub *s, const char *prefix, unsigned max_len, size_t max_tools) {
    return s->tools_prefix && strcmp(s->tools_prefix, prefix ? prefix : "") == 0 &&
           tool_len_arg(s->tools_max_len) == tool_len_arg(max_len) && s->tools_max_tools == max_tools;
}

const char *slop_consumer_tools(slop_consumer *c, const char *sub_id, const char *provider_prefix, unsigned max_len,
                                size_t max_tools, size_t *out_len) {
    if (!c) return NULL;
    ok(c);
    sub *s = NULL;
    slop__node *root = lookup(c, sub_id, NULL, &s);
    if (!root) return give(c, NULL, out_len);
    slop__buf b = {0};
    slop__tool_refs refs;
    size_t total;
    char *prefix = slop__strdup(provider_prefix ? provider_prefix : "");
    if (!prefix || slop__mirror_tools(root, s->path, provider_prefix, max_len, max_tools, &b, &refs, &total) != 0) {
        free(prefix);
        free(b.s);
        fail(c, SLOP_E_NOMEM, "out of memory");
        return give(c, NULL, out_len);
    }
    /* What was offered, for resolve_tool: this list replaces the last one. */
    slop__tool_refs_free(&s->tools);
    free(s->tools_prefix);
    s->tools = refs;
    s->tools_prefix = prefix;
    s->tools_max_len = max_len;
    s->tools_max_tools = max_tools;
    s->tools_stale = 0;
    char *text = slop__buf_take(&b);
    if (!text) fail(c, SLOP_E_NOMEM, "out of memory");
    return give(c, text, out_len);
}

/* {"path":P,"action":A} */
static const char *give_target(slop_consumer *c, const char *path, const char *action, size_t *out_len) {
    slop__buf b = {0};
    slop__buf_puts(&b, "{\"path\":");
    slop__buf_put_string(&b, path);
    slop__buf_puts(&b, ",\"action\":");
    slop__buf_put_string(&b, action);
    slop__buf_putc(&b, '}');
    char *text = slop__buf_take(&b);
    if (!text) fail(c, SLOP_E_NOMEM, "out of memory");
    return give(c, text, out_len);
}

const char *slop_consumer_resolve_tool(slop_consumer *c, const char *sub_id, const char *provider_prefix,
                                       unsigned max_len, size_t max_tools, const char *tool_name, size_t *out_len) {
    if (!c) return NULL;
    ok(c);
    sub *s = NULL;
    slop__node *root = lookup(c, sub_id, NULL, &s);
    if (!root) return give(c, NULL, out_len);
    const char *name = tool_name ? tool_name : "";
    const char *path, *action;
    int offered = same_tool_args(s, provider_prefix, max_len, max_tools);
    int was = offered && slop__tool_refs_find(&s->tools, name, &path, &action);
    if (offered && !s->tools_stale) {
        if (was) return give_target(c, path, action, out_len);
        fail(c, SLOP_E_NOT_FOUND, "no tool named \"%.80s\"", name);
        return give(c, NULL, out_len);
    }
    /* No list offered with these arguments, or the mirror changed since:
     * the list they give now. */
    slop__tool_refs now;
    size_t total;
    if (slop__mirror_tools(root, s->path, provider_prefix, max_len, max_tools, NULL, &now, &total) != 0) {
        fail(c, SLOP_E_NOMEM, "out of memory");
        return give(c, NULL, out_len);
    }
    const char *np, *na;
    int is = slop__tool_refs_find(&now, name, &np, &na);
    const char *r = NULL;
    if (was && !is)
        fail(c, SLOP_E_STATE,
             "tool \"%.80s\" was offered for \"%.60s\" on %.120s; the state changed since and it is no longer "
             "offered: read the tools again",
             name, action, path);
    else if (was && (strcmp(np, path) != 0 || strcmp(na, action) != 0))
        /* Never a silent switch: the caller was offered another target. */
        fail(c, SLOP_E_STATE,
             "tool \"%.80s\" was offered for \"%.60s\" on %.120s; the state changed since and it now names "
             "\"%.60s\" on %.120s: read the tools again",
             name, action, path, na, np);
    else if (!is)
        fail(c, SLOP_E_NOT_FOUND, "no tool named \"%.80s\"", name);
    else
        r = give_target(c, np, na, out_len);
    slop__tool_refs_free(&now);
    return r ? r : give(c, NULL, out_len);
}

const char *slop_consumer_last_error(const slop_consumer *c) { return c ? c->err : "no consumer"; }
slop_code slop_consumer_last_code(const slop_consumer *c) { return c ? c->code : SLOP_E_ARG; }

const char *slop_consumer_frame_type(const slop_consumer *c) { return c ? c->frame_type : ""; }

/* ---------------------------------------------------------------------- */
/* Free-standing                                                            */
/* ---------------------------------------------------------------------- */

char *slop_render_state_tail(slop_consumer *const *consumers, size_t n, const char *generated_at, size_t max_bytes,
                             size_t *out_left) {
    if (out_left) *out_left = 0;
    slop__tail_source *src = calloc(n ? n : 1, sizeof *src);
    if (!src) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        slop_consumer *c = consumers[i];
        /* A disconnected provider must not appear as current state. */
        if (!c || !c->have_hello || c->closed) continue;
        cJSON *id = cJSON_GetObjectItemCaseSensitive(c->provider, "id");
        cJSON *name = cJSON_GetObjectItemCaseSensitive(c->provider, "name");
        src[k].id = id->valuestring;
        src[k].name = name->valuestring;
        for (size_t j = 0; j < c->nsubs; j++) { /* the primary subscription: the first with a mirror */
            if (!c->subs[j]->has_mirror) continue;
            src[k].root = c->subs[j]->m.root;
            src[k].nodes = c->subs[j]->m.nodes;
            break;
        }
        k++;
    }
    char *out = k ? slop__state_tail_mirror(src, k, generated_at ? generated_at : "", max_bytes, out_left) : NULL;
    free(src);
    return out;
}

void slop_free(void *p) { free(p); }

const char *slop_core_version(void) { return "0.1.0 (SLOP 0.1)"; }

/* ---------------------------------------------------------------------- */
/* Public: conformance                                                      */
/* ---------------------------------------------------------------------- */

/* Why the provider is not live, into why; NULL when it is: the hello taken
 * and every subscription mirroring it. */
static const char *not_live(const slop_consumer *c, char *why, size_t len) {
    if (c->document) return NULL;
    if (c->refused) return snprintf(why, len, "it does not declare the \"state\" capability: not a SLOP provider"), why;
    if (!c->have_hello) {
        snprintf(why, len, "%s%s", c->hello_refused[0] ? c->hello_refused : "no hello yet",
                 c->closed ? "; the connection is closed" : "");
        return why;
    }
    for (size_t i = 0; i < c->nsubs; i++) {
        const sub *s = c->subs[i];
        if (s->state == SUB_LIVE) continue;
        snprintf(why, len, "subscription %s (%.100s) is %s: %.200s", s->handle, s->path, sub_state_names[s->state],
                 s->reason[0] ? s->reason : "waiting for its snapshot");
        return why;
    }
    if (c->closed) return snprintf(why, len, "the connection is closed"), why;
    return NULL;
}

const char *slop_consumer_conformance(slop_consumer *c, size_t *out_len) {
    if (!c) return NULL;
    ok(c);
    char why[400];
    slop__conformance trees = {0};
    size_t mirrors = 0, nodes = 0;
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(c->provider, "capabilities");
    for (size_t i = 0; i < c->nsubs; i++) {
        sub *s = c->subs[i];
        if (!s->has_mirror || s->state == SUB_DOCUMENT) continue;
        mirrors++;
        nodes += s->m.nodes;
        slop__conf_check_mirror(&trees, &s->m, s->path, s->options, caps, s->last_version);
    }
    /* A task still missing once a request would have timed out. */
    for (size_t i = 0; i < c->ntasks; i++) {
        const task *t = &c->tasks[i];
        if (!t->seen && c->now - t->at >= (double)c->lim.request_timeout_ms)
            slop__conf_note(&trees, "task-node", NULL, -1, "task \"%.60s\" (invoke %s) never appeared as a node",
                            t->task_id, t->req_id);
    }
    char *report = slop__conf_report(&c->conf, &trees, mirrors, nodes, not_live(c, why, sizeof why));
    slop__conf_free(&trees);
    if (!report) fail(c, SLOP_E_NOMEM, "out of memory");
    return give(c, report, out_len);
}

const char *slop_consumer_check_drift(slop_consumer *c, const char *sub_id, double now_ms, size_t *out_len) {
    if (!c) return NULL;
    ok(c);
    sub *s = find_sub(c, sub_id);
    if (!s) {
        fail(c, SLOP_E_NOT_FOUND, "no subscription \"%.60s\"", sub_id ? sub_id : "(null)");
        return give(c, NULL, out_len);
    }
    if (!can_request(c)) return give(c, NULL, out_len);
    if (!s->has_mirror || s->state != SUB_LIVE) {
        fail(c, SLOP_E_STATE, "subscription %s is not live: nothing to compare", s->handle);
        return give(c, NULL, out_len);
    }
    char *id = new_id(c, 'd');
    if (!id) {
        fail(c, SLOP_E_NOMEM, "out of memory");
        return give(c, NULL, out_len);
    }
    send_drift_query(c, s, id, 1, now_ms);
    return give(c, id, out_len);
}
