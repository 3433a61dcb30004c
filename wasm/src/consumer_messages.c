/*
 * consumer_messages.c: what the provider sends: hello and capabilities,
 * snapshots (subscriptions, queries, drift checks), patches with the seq and
 * version rules, results and tasks, errors, events and batches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"

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
        slop__rule_error(c, "hello-fields", SLOP_PE_BAD_MESSAGE, 0, "hello: %s", bad);
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
        for (int k = 0; k < SLOP_CAP_COUNT; k++)
            if (strcmp(it->valuestring, slop__capability_name((slop_capability)k)) == 0) *bits |= 1u << k;
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
        slop__set_state(s, SLOP_SUB_WAITING, "provider_changed", m);
    }
    while (c->ntasks) slop__task_drop(c, c->ntasks - 1);
    cJSON *e = slop__event(SLOP_EV_PROVIDER_CHANGED);
    cJSON_AddItemToObject(e, "previous", prev);
    cJSON_AddItemToObject(e, "provider", cJSON_Duplicate(c->provider, 1));
    cJSON_AddStringToObject(e, "message", m);
    slop__emit(c, e);
}

static void on_hello(slop_consumer *c, cJSON *msg) {
    if (c->have_hello || c->refused) {
        c->ignored_frames++; /* a repeated hello changes nothing */
        return;
    }
    unsigned bits = 0;
    cJSON *provider = hello_provider(c, msg, &bits);
    if (!provider) return;
    if (!(bits & CAP_BIT(SLOP_CAP_STATE))) {
        c->refused = 1;
        slop__protocol_error(c, SLOP_PE_NOT_A_PROVIDER, 1,
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

    cJSON *e = slop__event(SLOP_EV_HELLO);
    cJSON_AddItemToObject(e, "provider", cJSON_Duplicate(c->provider, 1));
    slop__emit(c, e);
    cJSON *prev = c->prev_provider;
    c->prev_provider = NULL;
    check_same_provider(c, prev);

    cJSON *held = c->held;
    c->held = cJSON_CreateArray();
    while (held->child) slop__dispatch(c, cJSON_DetachItemViaPointer(held, held->child));
    cJSON_Delete(held);
}

/* A snapshot the core cannot take: a query's caller gets an error event; a
 * subscription keeps its last good state and is retried later. */
static void refuse_snapshot(slop_consumer *c, sub *s, pending *q, slop_protocol_error code, const char *message,
                            double now) {
    if (q) {
        cJSON *e = slop__event(SLOP_EV_ERROR);
        cJSON_AddStringToObject(e, "id", q->id);
        cJSON_AddStringToObject(e, "request", slop__request_kind_name(SLOP_REQ_QUERY));
        cJSON_AddStringToObject(e, "code", slop__protocol_error_name(code));
        cJSON_AddStringToObject(e, "message", message);
        slop__pending_drop(c, q);
        slop__emit(c, e);
        return;
    }
    slop__protocol_error(c, code, 0, "snapshot for %s refused: %s%s", s->handle, message,
                   s->has_mirror ? "; the last good state is kept" : "");
    pending *p = slop__find_pending(c, s->wire);
    if (p) slop__pending_drop(c, p);
    char m[400];
    snprintf(m, sizeof m, "snapshot refused: %s", message);
    slop__give_up(s, slop__protocol_error_name(code), m, now);
}

/* The string member `key` naming the subscription or request a message is
 * for; NULL, after a protocol_error, when it is not a string. */
static const char *addressee(slop_consumer *c, const cJSON *msg, const char *key, const char *what) {
    const cJSON *id = slop__member(msg, key);
    if (cJSON_IsString(id)) return id->valuestring;
    slop__protocol_error(c, SLOP_PE_BAD_MESSAGE, 0, "%s: \"%s\" must be a string", what, key);
    return NULL;
}

/* A snapshot's tree into m: straight from the frame's text when the
 * top-level frame carried it (raw), else from cJSON (inside a batch). */
static slop__mirror_status load_tree(slop_consumer *c, slop__mirror *m, const char *raw, size_t raw_len,
                                     cJSON *tree, char *err, size_t errlen) {
    return raw ? slop__mirror_load_text(m, raw, raw_len, c->lim.max_json_depth, err, errlen)
               : slop__mirror_load(m, tree, err, errlen);
}

cJSON *slop__snapshot_event(const sub *s, double version, int rebase) {
    cJSON *e = slop__event(SLOP_EV_SNAPSHOT);
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
void slop__send_drift_query(slop_consumer *c, sub *s, const char *id, int attempt, double now) {
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "type", slop__consumer_message_name(SLOP_CMSG_QUERY));
    cJSON_AddStringToObject(f, "id", id);
    for (const cJSON *it = s->options ? s->options->child : NULL; it; it = it->next)
        cJSON_AddItemToObject(f, it->string, cJSON_Duplicate(it, 1));
    if (slop__pending_add(c, id, SLOP_REQ_QUERY, now, s->handle, s->path, NULL) == 0) c->pend[c->npend - 1].drift_try = attempt;
    slop__dispatch(c, f);
}

static void drift_event(slop_consumer *c, const char *id, const sub *s, const char *status, double version,
                        cJSON *differences, size_t count, const char *message) {
    cJSON *e = slop__event(SLOP_EV_DRIFT);
    cJSON_AddStringToObject(e, "id", id);
    if (s) cJSON_AddStringToObject(e, "sub", s->handle);
    cJSON_AddStringToObject(e, "status", status);
    if (version >= 0) cJSON_AddNumberToObject(e, "version", version);
    if (differences) {
        cJSON_AddNumberToObject(e, "count", (double)count);
        cJSON_AddItemToObject(e, "differences", differences);
    }
    if (message) cJSON_AddStringToObject(e, "message", message);
    slop__emit(c, e);
}

/* The answer to a drift check, in tmp: compared with the mirror at the same
 * version, or asked again when patches moved one of them on. */
static void drift_answer(slop_consumer *c, pending *q, double version, slop__mirror *tmp, double now) {
    sub *s = slop__find_sub(c, q->sub_handle);
    char *id = slop__strdup(q->id);
    int attempt = q->drift_try;
    slop__pending_drop(c, q);
    char m[300];
    if (!id) return;
    if (!s || !s->has_mirror || s->state != SLOP_SUB_LIVE) {
        drift_event(c, id, s, "inconclusive", version, NULL, 0, "the subscription is not live any more");
    } else if (version != s->last_version) {
        if (attempt < DRIFT_TRIES) {
            slop__send_drift_query(c, s, id, attempt + 1, now);
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
    slop__budget b = {0, c->lim.max_nodes, 0};
    slop__mirror tmp;
    slop__mirror_init(&tmp, &b);
    slop__mirror_status st = load_tree(c, &tmp, raw, raw_len, tree, err, sizeof err);
    if (st != SLOP__MIRROR_OK) {
        if (st == SLOP__MIRROR_INVALID) slop__conf_note(&c->conf, "tree-shape", q->path, version, "query answer: %s", err);
        refuse_snapshot(c, NULL, q, SLOP_PE_BAD_SNAPSHOT, err, now);
    } else if (q->drift_try) {
        drift_answer(c, q, version, &tmp, now);
    } else {
        cJSON *e = slop__event(SLOP_EV_QUERY);
        cJSON_AddStringToObject(e, "id", q->id);
        if (q->path) cJSON_AddStringToObject(e, "path", q->path);
        cJSON_AddNumberToObject(e, "version", version);
        cJSON *t = slop__node_to_json(tmp.root, -1);
        cJSON_AddItemToObject(e, "tree", t);
        /* A page of a windowed collection: where the next one starts. */
        if (q->win[1] > 0)
            slop__add_window(e, cJSON_GetObjectItemCaseSensitive(t, "meta"),
                       (double)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t, "children")), q->win[0],
                       q->win[1], 1);
        slop__pending_drop(c, q);
        slop__emit(c, e);
    }
    slop__mirror_clear(&tmp);
}

/* A subscription's snapshot: the seq and version rules, then the mirror
 * re-based on it. */
static void take_snapshot(slop_consumer *c, sub *s, double v, const cJSON *seq, const char *raw, size_t raw_len,
                          cJSON *tree, double now) {
    char err[300], m[400];
    if (seq && !(slop__is_int(seq) && (seq->valuedouble == 0 || (c->replay && seq->valuedouble >= 0)))) {
        /* A snapshot re-bases seq to 0: with any other seq, which patches
         * follow it is unknowable, so it is refused rather than guessed at.
         * A replay's checkpoint (slop_consumer_checkpoint) is the exception:
         * it says which seq the recorded patches after it continue from. */
        snprintf(m, sizeof m, "it carries seq %.17g; a snapshot's seq is 0", cJSON_IsNumber(seq) ? seq->valuedouble : -1);
        refuse_snapshot(c, s, NULL, SLOP_PE_BAD_SEQ, m, now);
        return;
    }
    /* Versions never go back within one connection. A snapshot answering a
     * subscribe sent on a new connection starts a new history: the provider
     * may have restarted with its counter back at 1. */
    int new_history = s->epoch != c->epoch;
    if (s->has_mirror && !new_history && v < s->last_version) {
        snprintf(m, sizeof m, "version %.17g is older than %.17g on the same connection", v, s->last_version);
        refuse_snapshot(c, s, NULL, SLOP_PE_VERSION_REGRESSED, m, now);
        return;
    }
    int rebase = s->has_mirror;
    int restarted = rebase && new_history && v < s->last_version;
    double previous = s->last_version;
    slop__mirror_status bad = load_tree(c, &s->m, raw, raw_len, tree, err, sizeof err);
    if (bad != SLOP__MIRROR_OK) {
        refuse_snapshot(c, s, NULL, bad == SLOP__MIRROR_TOO_MANY_NODES ? SLOP_PE_TOO_MANY_NODES : SLOP_PE_BAD_SNAPSHOT, err, now);
        return;
    }
    pending *p = slop__find_pending(c, s->wire);
    if (p) slop__pending_drop(c, p);
    s->has_mirror = 1;
    s->wire_live = 1;
    s->epoch = c->epoch;
    slop__set_state(s, SLOP_SUB_LIVE, "", "");
    s->snap_version = s->last_version = v;
    s->last_seq = c->replay && seq ? (long long)seq->valuedouble : 0;
    s->retries = 0; /* a snapshot that loads is a success: the retry schedule starts over */
    s->tools_stale = 1;
    cJSON *e = slop__snapshot_event(s, v, rebase);
    if (rebase) cJSON_AddNumberToObject(e, "previous_version", previous);
    if (restarted) cJSON_AddBoolToObject(e, "restarted", 1);
    slop__emit(c, e);
    slop__check_tasks(c, s);
}

static void on_snapshot(slop_consumer *c, cJSON *msg, slop__frame_ctx *fr) {
    double now = fr->now;
    const char *id = addressee(c, msg, "id", "snapshot");
    if (!id) return;
    cJSON *ver = slop__member(msg, "version");
    cJSON *tree = cJSON_GetObjectItemCaseSensitive(msg, "tree");
    sub *s = slop__find_sub_wire(c, id);
    pending *q = s ? NULL : slop__find_pending(c, id);
    if (!s && !(q && q->kind == SLOP_REQ_QUERY)) {
        c->ignored_frames++; /* an id we never issued, or no longer use */
        /* Never issued: not one of the ids this consumer could have sent for
         * a subscribe or a query (an id with its prefix but a number it never
         * reached is none either). On a shared postMessage channel, other
         * consumers' ids are normal. */
        if (!c->postmessage && !slop__issued_for_snapshot(c, id))
            slop__conf_note(&c->conf, "snapshot-id", NULL, -1, "a snapshot for \"%.60s\", an id this consumer never sent",
                            id);
        return;
    }
    /* The top-level frame's tree arrives as text (see receive); one inside a
     * batch arrives parsed. Taken once: a nested snapshot must not reuse it. */
    const char *raw = fr->raw_tree;
    size_t raw_len = fr->raw_tree_len;
    fr->raw_tree = NULL;
    if (!cJSON_IsNull(tree)) raw = NULL;
    if (!slop__is_counter(ver)) {
        refuse_snapshot(c, s, q, SLOP_PE_BAD_MESSAGE, "\"version\" must be an integer from 0 to 2^53", now);
        return;
    }
    if (!(raw && raw[0] == '{') && !cJSON_IsObject(tree)) {
        refuse_snapshot(c, s, q, SLOP_PE_BAD_MESSAGE, "\"tree\" must be a node object", now);
        return;
    }
    cJSON *seq = slop__member(msg, "seq");
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
            slop__resync(c, s, "gap", m, now);
            return 0;
        }
        if (got < want) {
            slop__protocol_error(c, SLOP_PE_SEQ_REPEAT, 0, "patch for %s repeats seq %lld (expected %lld): ignored",
                           s->handle, got, want);
            return 0;
        }
        if (v < s->last_version) { /* the next patch in order, yet older */
            snprintf(m, sizeof m, "patch seq %lld has version %.17g after %.17g", got, v, s->last_version);
            slop__protocol_error(c, SLOP_PE_VERSION_REGRESSED, 0, "patch for %s: %s; resyncing", s->handle, m);
            slop__resync(c, s, slop__protocol_error_name(SLOP_PE_VERSION_REGRESSED), m, now);
            return 0;
        }
    } else if (v <= s->snap_version) {
        /* Without seq (older providers) a patch not newer than our snapshot
         * is taken as already contained in it; said, not silent. */
        c->stale_patches++;
        slop__protocol_error(c, SLOP_PE_STALE_PATCH, 0,
                       "patch for %s has version %.17g, not newer than its snapshot's %.17g: taken as already "
                       "applied, ignored",
                       s->handle, v, s->snap_version);
        return 0;
    } else if (v < s->last_version) {
        snprintf(m, sizeof m, "patch version %.17g after %.17g", v, s->last_version);
        slop__protocol_error(c, SLOP_PE_VERSION_REGRESSED, 0, "patch for %s: %s; resyncing", s->handle, m);
        slop__resync(c, s, slop__protocol_error_name(SLOP_PE_VERSION_REGRESSED), m, now);
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
    slop__buf_puts(&b, "{\"event\":\"");
    slop__buf_puts(&b, slop__event_name(SLOP_EV_PATCH));
    slop__buf_puts(&b, "\",\"sub\":");
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

/* A path as put_paths writes it, bare and NUL-ended (a record's string). */
static void put_record_path(slop__buf *b, const char *root, const char *rel) {
    if (strcmp(rel, "/") == 0) slop__buf_puts(b, root);
    else {
        if (strcmp(root, "/") != 0) slop__buf_puts(b, root);
        slop__buf_puts(b, rel);
    }
    slop__buf_putc(b, '\0');
}

static uint32_t record_paths(slop__buf *b, const sub *s, const cJSON *rel) {
    uint32_t n = 0;
    for (const cJSON *it = rel ? rel->child : NULL; it; it = it->next, n++) put_record_path(b, s->path, it->valuestring);
    return n;
}

/* The patch event as a record (slop_core.h, slop_consumer_patch_records):
 * the header's counts are written once the strings are in. */
static void push_patch_record(slop_consumer *c, const sub *s, double v, int nops, const slop__changes *ch) {
    slop__buf b = {0};
    struct { double version; uint32_t n[6]; } head = {v, {(uint32_t)nops, 0, 0, 0, (uint32_t)ch->nkids, ch->truncated != 0}};
    _Static_assert(sizeof head == 32, "a record's header is 32 bytes");
    slop__buf_putn(&b, (const char *)&head, sizeof head);
    slop__buf_puts(&b, s->handle);
    slop__buf_putc(&b, '\0');
    head.n[1] = record_paths(&b, s, ch->changed);
    head.n[2] = record_paths(&b, s, ch->added);
    head.n[3] = record_paths(&b, s, ch->removed);
    char num[SLOP__NUMBER_BUF];
    for (size_t i = 0; i < ch->nkids; i++) {
        const slop__kid_change *k = &ch->kids[i];
        slop__buf_puts(&b, k->insert ? "insert" : "remove");
        slop__buf_putc(&b, '\0');
        put_record_path(&b, s->path, k->parent);
        slop__buf_putn(&b, num, slop__format_number((double)k->index, num));
        slop__buf_putc(&b, '\0');
        slop__buf_puts(&b, k->id);
        slop__buf_putc(&b, '\0');
    }
    if (b.oom) {
        free(b.s);
        return;
    }
    memcpy(b.s, &head, sizeof head);
    size_t len = b.len;
    slop__push_out_len(c, SLOP_OUT_PATCH, slop__buf_take(&b), len);
}

/* Applies the next patch, all or nothing: a refused one resyncs. */
static void apply_patch(slop_consumer *c, sub *s, double v, const cJSON *seq, cJSON *ops, double now) {
    if (!(c->caps & CAP_BIT(SLOP_CAP_PATCHES)) && !c->warned_patches) {
        c->warned_patches = 1;
        slop__protocol_error(c, SLOP_PE_UNDECLARED_CAPABILITY, 0,
                       "the provider sends patches without declaring \"patches\"; applying them");
    }
    slop__changes ch;
    char err[300], m[400];
    int nops = cJSON_GetArraySize(ops);
    int ready = slop__changes_init(&ch, &c->frame_arena) == 0; /* the lists live as long as the frame */
    slop__mirror_status st = ready ? slop__mirror_apply(&s->m, ops, &ch, err, sizeof err) : SLOP__MIRROR_NOMEM;
    if (!ready) snprintf(err, sizeof err, "out of memory");
    if (st != SLOP__MIRROR_OK) {
        slop__changes_free(&ch);
        if (st == SLOP__MIRROR_INVALID) slop__conf_note(&c->conf, "patch-apply", s->path, v, "patch v%.17g: %s", v, err);
        snprintf(m, sizeof m, "patch version %.17g refused (%s); the last good state is kept", v, err);
        slop__resync(c, s, st == SLOP__MIRROR_TOO_MANY_NODES ? slop__protocol_error_name(SLOP_PE_TOO_MANY_NODES) : "patch_failed", m, now);
        return;
    }
    s->last_version = v;
    s->last_seq = seq ? (long long)seq->valuedouble : s->last_seq + 1;
    s->tools_stale = 1;
    if (c->patch_records) push_patch_record(c, s, v, nops, &ch);
    else slop__push_out(c, SLOP_OUT_EVENT, patch_event(s, v, nops, &ch));
    slop__changes_free(&ch);
    slop__check_tasks(c, s);
}

static void on_patch(slop_consumer *c, cJSON *msg, double now) {
    const char *id = addressee(c, msg, "subscription", "patch");
    if (!id) return;
    sub *s = slop__find_sub_wire(c, id);
    if (!s) {
        c->ignored_frames++;
        return;
    }
    if (!s->wire_live) {
        slop__protocol_error(c, SLOP_PE_PATCH_BEFORE_SNAPSHOT, 0, "patch for %s arrived before its snapshot: ignored",
                       s->handle);
        return;
    }
    if (s->state != SLOP_SUB_LIVE) { /* given up: only a snapshot (or the retry) revives it */
        c->ignored_frames++;
        return;
    }
    cJSON *ver = slop__member(msg, "version");
    cJSON *seq = slop__member(msg, "seq");
    cJSON *ops = slop__member(msg, "ops");
    if (!slop__is_counter(ver) || !cJSON_IsArray(ops) || (seq && !slop__is_counter(seq))) {
        const char *m =
            "malformed patch: needs an integer \"version\" and \"seq\" from 0 to 2^53 and an \"ops\" array";
        slop__protocol_error(c, SLOP_PE_BAD_MESSAGE, 0, "patch for %s: %s; dropped, resyncing", s->handle, m);
        slop__resync(c, s, "bad_patch", m, now);
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
    pending *p = cJSON_IsString(id) ? slop__find_pending(c, id->valuestring) : NULL;
    if (!p || p->kind != SLOP_REQ_INVOKE) {
        c->ignored_frames++;
        return;
    }
    cJSON *e = slop__event(SLOP_EV_RESULT);
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
    else if (accepted && !(c->caps & CAP_BIT(SLOP_CAP_ASYNC)))
        slop__conf_note(&c->conf, "capability-async", p->path, -1, "invoke \"%.60s\" answered \"accepted\"", p->action);
    else if (accepted && !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(data, "taskId")))
        slop__conf_note(&c->conf, "accepted-task", p->path, -1, "invoke \"%.60s\": \"accepted\" without data.taskId", p->action);
    else if (strcmp(st, "error") == 0 && !known_error_code(cJSON_GetObjectItemCaseSensitive(error, "code"), 1))
        slop__conf_note(&c->conf, "error-code", p->path, -1, "invoke \"%.60s\": error code %s", p->action,
                        cJSON_IsString(cJSON_GetObjectItemCaseSensitive(error, "code")) ? "not among the spec's" : "missing");
    if (!st) {
        cJSON_AddStringToObject(e, "status", "error");
        cJSON *er = cJSON_AddObjectToObject(e, "error");
        cJSON_AddStringToObject(er, "code", slop__protocol_error_name(SLOP_PE_BAD_MESSAGE));
        cJSON_AddStringToObject(er, "message", "result without a string \"status\"");
    } else if (strcmp(st, "accepted") == 0 && !(c->caps & CAP_BIT(SLOP_CAP_ASYNC))) {
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
    if (st && strcmp(st, "accepted") == 0 && (c->caps & CAP_BIT(SLOP_CAP_ASYNC)) && cJSON_IsString(tid)) {
        cJSON_AddStringToObject(e, "task_id", tid->valuestring);
        if (SLOP__RESERVE(c->tasks, c->ntasks, c->captasks, 8) == 0)
            c->tasks[c->ntasks++] = (task){slop__strdup(p->id), slop__strdup(tid->valuestring), NULL, NULL, 0, now};
    }
    slop__pending_drop(c, p);
    slop__emit(c, e);
    /* The task node may already be in the mirror (patches come first). */
    if (c->ntasks)
        for (size_t i = 0; i < c->nsubs; i++)
            if (c->subs[i]->has_mirror) slop__check_tasks(c, c->subs[i]);
}

static void on_error(slop_consumer *c, cJSON *msg, double now) {
    cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    cJSON *er = cJSON_GetObjectItemCaseSensitive(msg, "error");
    cJSON *code = cJSON_GetObjectItemCaseSensitive(er, "code");
    cJSON *m = cJSON_GetObjectItemCaseSensitive(er, "message");
    cJSON *e = slop__event(SLOP_EV_ERROR);
    if (cJSON_IsString(id)) {
        pending *p = slop__find_pending(c, id->valuestring);
        sub *s = slop__find_sub_wire(c, id->valuestring);
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
            slop__give_up(s, "provider_error", why, now);
        }
        cJSON_AddStringToObject(e, "id", s ? s->handle : p->id);
        if (p) {
            cJSON_AddStringToObject(e, "request", slop__request_kind_name(p->kind));
            slop__pending_drop(c, p);
        }
    }
    if (!known_error_code(code, 0))
        slop__conf_note(&c->conf, "error-code", NULL, -1, "error message: code %s",
                        cJSON_IsString(code) ? "not among the spec's" : "missing");
    cJSON_AddStringToObject(e, "code", cJSON_IsString(code) ? code->valuestring : "internal");
    cJSON_AddStringToObject(e, "message", cJSON_IsString(m) ? m->valuestring : "");
    slop__emit(c, e);
}

static void on_provider_event(slop_consumer *c, cJSON *msg) {
    cJSON *name = cJSON_GetObjectItemCaseSensitive(msg, "name");
    if (!cJSON_IsString(name)) {
        slop__protocol_error(c, SLOP_PE_BAD_MESSAGE, 0, "event: \"name\" must be a string");
        return;
    }
    cJSON *e = slop__event(SLOP_EV_PROVIDER_EVENT);
    cJSON_AddStringToObject(e, "name", name->valuestring);
    cJSON *data = cJSON_GetObjectItemCaseSensitive(msg, "data");
    if (data) cJSON_AddItemToObject(e, "data", cJSON_Duplicate(data, 1));
    slop__emit(c, e);
}

static void on_batch(slop_consumer *c, cJSON *msg, const slop__frame_ctx *fr) {
    cJSON *msgs = cJSON_GetObjectItemCaseSensitive(msg, "messages");
    if (!cJSON_IsArray(msgs)) {
        slop__protocol_error(c, SLOP_PE_BAD_MESSAGE, 0, "batch: \"messages\" must be an array");
        return;
    }
    /* A nested snapshot's tree comes parsed: no text for it. */
    slop__frame_ctx inner = {fr->now, NULL, 0};
    for (cJSON *it = msgs->child; it; it = it->next) slop__handle(c, it, &inner);
}

void slop__handle(slop_consumer *c, cJSON *msg, slop__frame_ctx *fr) {
    if (!cJSON_IsObject(msg)) {
        slop__protocol_error(c, SLOP_PE_BAD_MESSAGE, 0, "a message must be a JSON object");
        return;
    }
    cJSON *type = slop__member(msg, "type");
    if (!cJSON_IsString(type)) {
        slop__protocol_error(c, SLOP_PE_BAD_MESSAGE, 0, "a message needs a string \"type\"");
        return;
    }
    const char *t = type->valuestring;
    int kind = slop__provider_message_of(t);
    if (kind != SLOP_MSG_HELLO && c->refused) {
        c->ignored_frames++;
        return;
    }
    if (kind < 0) {
        /* Consumer traffic: on a window's postMessage channel every consumer
         * (this one included) sees its own posts come back, which is normal;
         * on a WebSocket it is a provider error worth counting. */
        if (slop__consumer_message_of(t) >= 0) {
            if (!c->postmessage) c->ignored_frames++;
        } else {
            slop__protocol_error(c, SLOP_PE_UNKNOWN_TYPE, 0, "unknown message type \"%.60s\": ignored", t);
        }
        return;
    }
    switch ((slop_provider_message)kind) {
    case SLOP_MSG_HELLO: on_hello(c, msg); break;
    case SLOP_MSG_SNAPSHOT: on_snapshot(c, msg, fr); break;
    case SLOP_MSG_PATCH: on_patch(c, msg, fr->now); break;
    case SLOP_MSG_RESULT: on_result(c, msg, fr->now); break;
    case SLOP_MSG_ERROR: on_error(c, msg, fr->now); break;
    case SLOP_MSG_EVENT: on_provider_event(c, msg); break;
    case SLOP_MSG_BATCH: on_batch(c, msg, fr); break;
    case SLOP_MSG_COUNT: break;
    }
}
