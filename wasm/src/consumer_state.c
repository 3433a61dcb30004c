/*
 * consumer_state.c: what every part of the consumer shares: errors and the
 * caller's strings, the output queue, events and protocol errors, ids, the
 * bookkeeping of subscriptions, pending requests and tasks, and resyncs with
 * their back-off. It calls no other part: consumer_messages.c,
 * consumer_requests.c, consumer_read.c, consumer_documents.c and the life
 * cycle (consumer.c) build on it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"

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

/* ---------------------------------------------------------------------- */
/* Small helpers                                                            */
/* ---------------------------------------------------------------------- */

void slop__fail(slop_consumer *c, slop_code code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    c->code = code;
}

void slop__ok(slop_consumer *c) {
    c->err[0] = 0;
    c->code = SLOP_OK;
}

/* Ends a checkpoint printed in parts; broken: by a call that may change the
 * mirror it walks (its next part is then refused, not printed from freed or
 * moved nodes). */
void slop__cp_end(slop_consumer *c, int broken) {
    if (c->cp_open && broken) c->cp_broken = 1;
    free(c->cp);
    free(c->cp_head);
    c->cp = NULL;
    c->cp_head = NULL;
    c->cp_depth = c->cp_cap = 0;
    c->cp_open = 0;
}

/* Hands a malloc'd string to the caller: it lives until the next call. */
const char *slop__give(slop_consumer *c, char *s, size_t *out_len) {
    free(c->scratch);
    c->scratch = s;
    if (out_len) *out_len = s ? strlen(s) : 0;
    return s;
}

const char *slop__give_json(slop_consumer *c, cJSON *j, size_t *out_len) {
    char *s = slop__json_print_free(j);
    if (!s) {
        slop__fail(c, SLOP_E_NOMEM, "out of memory");
        return slop__give(c, NULL, out_len);
    }
    return slop__give(c, s, out_len);
}

void slop__push_out(slop_consumer *c, slop_output_kind kind, char *text) {
    if (text) slop__push_out_len(c, kind, text, strlen(text));
}

void slop__push_out_len(slop_consumer *c, slop_output_kind kind, char *text, size_t len) {
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
    c->out[c->out_len++] = (out_item){kind, text, len};
    c->queued++;
}

void slop__emit(slop_consumer *c, cJSON *ev) {
    if (!ev) return;
    slop__push_out(c, SLOP_OUT_EVENT, slop__json_print(ev));
    cJSON_Delete(ev);
}

cJSON *slop__event(slop_event_kind kind) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "event", slop__event_name(kind));
    return e;
}

static void protocol_error_v(slop_consumer *c, const char *rule, slop_protocol_error code, int fatal, const char *fmt,
                             va_list ap) {
    char msg[400];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (rule) slop__conf_note(&c->conf, rule, NULL, -1, "%s", msg);
    cJSON *e = slop__event(SLOP_EV_PROTOCOL_ERROR);
    cJSON_AddStringToObject(e, "code", slop__protocol_error_name(code));
    cJSON_AddStringToObject(e, "message", msg);
    cJSON_AddBoolToObject(e, "fatal", fatal);
    slop__emit(c, e);
}

/* A protocol error; the conformance rule it breaks is the one its code
 * stands for (none for the consumer's own limits). */
void slop__protocol_error(slop_consumer *c, slop_protocol_error code, int fatal, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    protocol_error_v(c, slop__protocol_error_rule(code), code, fatal, fmt, ap);
    va_end(ap);
}

/* The same, breaking a rule other than the one the code stands for. */
void slop__rule_error(slop_consumer *c, const char *rule, slop_protocol_error code, int fatal, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    protocol_error_v(c, rule, code, fatal, fmt, ap);
    va_end(ap);
}

void slop__send_frame(slop_consumer *c, const cJSON *frame) {
    slop__push_out(c, SLOP_OUT_SEND, slop__json_print(frame));
}

char *slop__new_id(slop_consumer *c, char kind) {
    char buf[40];
    snprintf(buf, sizeof buf, "%s-%c%llu", c->prefix, kind, ++c->next_id);
    return slop__strdup(buf);
}

/* Could this consumer have sent `id` for a subscribe or a query, now or before? Its ids are
 * "<prefix>-<kind><n>" with one counter for all kinds (new_id): a snapshot answers an 's', 'q'
 * or 'd' (a drift check's query) whose n it has reached. */
int slop__issued_for_snapshot(const slop_consumer *c, const char *id) {
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

int slop__is_int(const cJSON *j) {
    return cJSON_IsNumber(j) && isfinite(j->valuedouble) && j->valuedouble == floor(j->valuedouble);
}

/* A version or seq: a non-negative integer within 2^53. */
int slop__is_counter(const cJSON *j) {
    return slop__is_int(j) && j->valuedouble >= 0 && j->valuedouble <= MAX_COUNTER;
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
void slop__add_window(cJSON *out, const cJSON *meta, double shown, double offset, double page, int answer) {
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(meta, "total_children");
    if (!slop__is_counter(total)) return;
    const cJSON *win = cJSON_GetObjectItemCaseSensitive(meta, "window");
    if (cJSON_GetArraySize(win) == 2 && slop__is_counter(win->child) && slop__is_counter(win->child->next)) {
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
const char *slop__rel_path(const char *root, const char *abs) {
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

sub *slop__find_sub_wire(slop_consumer *c, const char *wire) {
    for (size_t i = 0; i < c->nsubs; i++)
        if (slop__same(c->subs[i]->wire, wire)) return c->subs[i];
    return NULL;
}

sub *slop__find_sub(slop_consumer *c, const char *handle) {
    if (!handle) return NULL;
    for (size_t i = 0; i < c->nsubs; i++)
        if (strcmp(c->subs[i]->handle, handle) == 0) return c->subs[i];
    return NULL;
}

void slop__sub_free(sub *s) {
    slop__mirror_clear(&s->m);
    free(s->handle);
    free(s->wire);
    free(s->path);
    cJSON_Delete(s->options);
    slop__tool_refs_free(&s->tools);
    free(s->tools_prefix);
    free(s);
}

pending *slop__find_pending(slop_consumer *c, const char *id) {
    for (size_t i = 0; i < c->npend; i++)
        if (strcmp(c->pend[i].id, id) == 0) return &c->pend[i];
    return NULL;
}

void slop__pending_drop(slop_consumer *c, pending *p) {
    free(p->id);
    free(p->sub_handle);
    free(p->path);
    free(p->action);
    *p = c->pend[--c->npend];
}

int slop__pending_add(slop_consumer *c, const char *id, slop_request_kind kind, double now,
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

void slop__task_drop(slop_consumer *c, size_t i) {
    task *t = &c->tasks[i];
    free(t->req_id);
    free(t->task_id);
    free(t->path);
    free(t->last);
    c->tasks[i] = c->tasks[--c->ntasks];
}

/* Sends a request frame now, or holds it until the provider's hello. */
void slop__dispatch(slop_consumer *c, cJSON *frame) {
    if (!frame) return; /* out of memory building it: its request times out */
    if (!c->have_hello) {
        cJSON_AddItemToArray(c->held, frame);
        return;
    }
    /* Capability rules the spec puts on the consumer side. */
    cJSON *type = cJSON_GetObjectItemCaseSensitive(frame, "type");
    if (cJSON_IsString(type) && slop__consumer_message_of(type->valuestring) == SLOP_CMSG_QUERY && !(c->caps & CAP_BIT(SLOP_CAP_WINDOWING)))
        cJSON_DeleteItemFromObjectCaseSensitive(frame, "window");
    if (!(c->caps & CAP_BIT(SLOP_CAP_ATTENTION))) {
        cJSON *filter = cJSON_GetObjectItemCaseSensitive(frame, "filter");
        if (filter) {
            cJSON_DeleteItemFromObjectCaseSensitive(filter, "min_salience");
            if (!filter->child) cJSON_DeleteItemFromObjectCaseSensitive(frame, "filter");
        }
    }
    slop__send_frame(c, frame);
    cJSON_Delete(frame);
}

/* A request frame {"type":type,"id":id, <the members of options>} (options
 * as request_options() checked them; copied, the caller keeps them). NULL
 * when out of memory. */
cJSON *slop__request_frame(slop_consumer_message type, const char *id, const cJSON *options) {
    cJSON *f = cJSON_CreateObject();
    if (!f || !id || !cJSON_AddStringToObject(f, "type", slop__consumer_message_name(type)) ||
        !cJSON_AddStringToObject(f, "id", id)) {
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

cJSON *slop__subscribe_frame(const sub *s) {
    return slop__request_frame(SLOP_CMSG_SUBSCRIBE, s->wire, s->options);
}

/* Sets a subscription's state and why it is not live (code "" when live). */
void slop__set_state(sub *s, slop_sub_state st, const char *code, const char *message) {
    s->state = st;
    snprintf(s->reason_code, sizeof s->reason_code, "%s", code);
    snprintf(s->reason, sizeof s->reason, "%s", message);
    if (st == SLOP_SUB_LIVE) s->retry_at = 0;
}

/* The mirror cannot follow the provider for now (what it sent was refused,
 * or no snapshot came): stale (last good state kept) or failed (none), and a
 * retry from tick() later, ever less often. The subscription's wire id stays,
 * so a good snapshot arriving meanwhile still revives it. */
void slop__give_up(sub *s, const char *code, const char *message, double now) {
    slop__set_state(s, s->has_mirror ? SLOP_SUB_STALE : SLOP_SUB_FAILED, code, message);
    double delay = RETRY_FIRST_MS;
    for (int i = 0; i < s->retries && delay < RETRY_MAX_MS; i++) delay *= 2;
    s->retry_at = now + (delay < RETRY_MAX_MS ? delay : RETRY_MAX_MS);
    s->retries++;
}

/* Starts over on a subscription: unsubscribe, then subscribe with a fresh id,
 * so late patches for the old id are recognisably stale. */
void slop__resync(slop_consumer *c, sub *s, const char *reason, const char *message, double now) {
    if (s->retry_at > 0) return; /* given up: tick() retries at retry_at */
    if (now - s->burst_start >= RESYNC_WINDOW_MS || now < s->burst_start) {
        s->burst_start = now;
        s->burst = 0;
    }
    if (s->burst >= RESYNC_BURST) {
        char m[300];
        snprintf(m, sizeof m, "%d resyncs within %.0f s (last: %s: %.160s)", RESYNC_BURST, RESYNC_WINDOW_MS / 1000,
                 reason, message);
        slop__give_up(s, slop__protocol_error_name(SLOP_PE_RESYNC_LOOP), m, now);
        slop__protocol_error(c, SLOP_PE_RESYNC_LOOP, 0, "subscription %s: %s; showing the last good state, retrying in %.0f s",
                       s->handle, m, (s->retry_at - now) / 1000);
        return;
    }
    s->burst++;
    cJSON *e = slop__event(SLOP_EV_RESYNC);
    cJSON_AddStringToObject(e, "sub", s->handle);
    cJSON_AddStringToObject(e, "reason", reason);
    cJSON_AddStringToObject(e, "message", message);
    slop__emit(c, e);

    pending *old = slop__find_pending(c, s->wire);
    if (old) slop__pending_drop(c, old);
    cJSON *un = cJSON_CreateObject();
    cJSON_AddStringToObject(un, "type", slop__consumer_message_name(SLOP_CMSG_UNSUBSCRIBE));
    cJSON_AddStringToObject(un, "id", s->wire);
    slop__dispatch(c, un);

    free(s->wire);
    s->wire = slop__new_id(c, 's');
    s->wire_live = 0;
    s->retry_at = 0;
    slop__set_state(s, s->has_mirror ? SLOP_SUB_RESYNCING : SLOP_SUB_WAITING, reason, message);
    slop__pending_add(c, s->wire, SLOP_REQ_SUBSCRIBE, now, s->handle, NULL, NULL);
    slop__dispatch(c, slop__subscribe_frame(s));
}

/* After a mirror changed: report progress of tracked async tasks. */
void slop__check_tasks(slop_consumer *c, sub *s) {
    for (size_t i = 0; i < c->ntasks;) {
        task *t = &c->tasks[i];
        char rel[300];
        snprintf(rel, sizeof rel, "/tasks/%s", t->task_id);
        slop__node *n = slop__mirror_find(&s->m, rel);
        if (!n && strcmp(s->path, "/tasks") == 0) n = slop__mirror_find(&s->m, rel + 6);
        if (!n) {
            if (t->seen) { /* the provider removed the finished task node */
                cJSON *e = slop__event(SLOP_EV_TASK);
                cJSON_AddStringToObject(e, "id", t->req_id);
                cJSON_AddStringToObject(e, "task_id", t->task_id);
                cJSON_AddStringToObject(e, "path", t->path ? t->path : "");
                cJSON_AddStringToObject(e, "status", "removed");
                cJSON_AddBoolToObject(e, "done", 1);
                slop__emit(c, e);
                slop__task_drop(c, i);
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
            cJSON *e = slop__event(SLOP_EV_TASK);
            cJSON_AddStringToObject(e, "id", t->req_id);
            cJSON_AddStringToObject(e, "task_id", t->task_id);
            cJSON_AddStringToObject(e, "path", ap ? ap : "");
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(props, "status");
            const cJSON *pr = cJSON_GetObjectItemCaseSensitive(props, "progress");
            const cJSON *msg = cJSON_GetObjectItemCaseSensitive(props, "message");
            const char *status = cJSON_IsString(st) ? st->valuestring : "unknown";
            cJSON_AddStringToObject(e, "status", status);
            /* a copy, not a new number: the provider's text (0.50) goes with it */
            if (cJSON_IsNumber(pr)) cJSON_AddItemToObject(e, "progress", cJSON_Duplicate(pr, 0));
            if (cJSON_IsString(msg)) cJSON_AddStringToObject(e, "message", msg->valuestring);
            int done = strcmp(status, "done") == 0 || strcmp(status, "failed") == 0 ||
                       strcmp(status, "cancelled") == 0;
            cJSON_AddBoolToObject(e, "done", done);
            slop__emit(c, e);
            if (done) {
                slop__task_drop(c, i);
                continue;
            }
        }
        free(now);
        i++;
    }
}
