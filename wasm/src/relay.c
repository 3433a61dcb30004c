/*
 * relay.c: an outside consumer on a provider channel shared with others.
 *
 * The desktop bridge relays a desktop consumer's SLOP messages to a page's
 * postMessage provider. That window channel is shared: the extension's own
 * consumer (and any other script of the page) sees every message on it, and
 * desktop SDKs all number their ids "sub-1", "req-1", ... A relay keeps the
 * outside consumer apart: every id it forwards gets the relay's prefix
 * ("<tag>~"), and only provider frames addressed to such ids come back, the
 * prefix removed. The core's own ids never hold a '~' (consumer_state.c: base36
 * prefix, '-', kind, number), so the two can never meet.
 *
 * Provider frames are rewritten as text, not re-printed: numbers and strings
 * reach the outside consumer exactly as the provider wrote them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define RELAY_TAG_MAX 16
#define RELAY_MAX_SUBS 256       /* the outside consumer's open subscriptions */
#define RELAY_BATCH_NEST 4       /* a batch inside a batch inside ...         */
#define RELAY_MAX_MESSAGE_BYTES (1024u * 1024u) /* one outbound message        */

struct slop_relay {
    char prefix[RELAY_TAG_MAX + 2]; /* tag + '~' */
    size_t prefix_len;
    unsigned hellos_owed;           /* connects sent, hellos not yet forwarded */
    unsigned hellos_sent;           /* hellos forwarded since the relay opened */
    int open_connect_pending;       /* slop_relay_open's connect: its hello not yet back */
    char *subs[RELAY_MAX_SUBS];     /* wire ids (prefixed) of open subscriptions */
    unsigned sub_refs[RELAY_MAX_SUBS]; /* subscribes of that id not yet unsubscribed */
    size_t nsubs;
};

slop_relay *slop_relay_new(const char *tag) {
    if (!tag) return NULL;
    size_t n = strlen(tag);
    if (n == 0 || n > RELAY_TAG_MAX) return NULL;
    for (size_t i = 0; i < n; i++) {
        char ch = tag[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_')) return NULL;
    }
    slop_relay *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    memcpy(r->prefix, tag, n);
    r->prefix[n] = '~';
    r->prefix_len = n + 1;
    return r;
}

void slop_relay_free(slop_relay *r) {
    if (!r) return;
    for (size_t i = 0; i < r->nsubs; i++) free(r->subs[i]);
    free(r);
}

/* ---- outbound: the outside consumer's messages --------------------------- */

static char *outbound_error(const char *why, const cJSON *reply) {
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddFalseToObject(o, "ok") || !cJSON_AddStringToObject(o, "error", why) ||
        !cJSON_AddItemToObject(o, "reply", reply ? cJSON_Duplicate(reply, 1) : cJSON_CreateNull())) {
        cJSON_Delete(o);
        return NULL;
    }
    return slop__json_print_free(o);
}

/* The answer a provider would give to a refused request: a result for an
 * invoke (what its caller waits for), an error message for the rest. */
static cJSON *refusal(const char *kind, const char *id, const char *code, const char *message) {
    cJSON *m = cJSON_CreateObject();
    cJSON *err = cJSON_CreateObject();
    int is_invoke = slop__consumer_message_of(kind) == SLOP_CMSG_INVOKE;
    if (!m || !err ||
        !cJSON_AddStringToObject(m, "type", slop__provider_message_name(is_invoke ? SLOP_MSG_RESULT : SLOP_MSG_ERROR)) ||
        (id && !cJSON_AddStringToObject(m, "id", id)) || (is_invoke && !cJSON_AddStringToObject(m, "status", "error")) ||
        !cJSON_AddStringToObject(err, "code", code) || !cJSON_AddStringToObject(err, "message", message)) {
        cJSON_Delete(m);
        cJSON_Delete(err);
        return NULL;
    }
    cJSON_AddItemToObject(m, "error", err);
    return m;
}

char *slop_relay_refusal(const char *kind, const char *request_id, const char *code, const char *message) {
    if (!kind || (!request_id && slop__consumer_message_of(kind) == SLOP_CMSG_INVOKE) || !code || !message) return NULL;
    return slop__json_print_free(refusal(kind, request_id, code, message));
}

static int find_sub(const slop_relay *r, const char *wire) {
    for (size_t i = 0; i < r->nsubs; i++)
        if (strcmp(r->subs[i], wire) == 0) return (int)i;
    return -1;
}

static void forget_sub(slop_relay *r, int i) {
    free(r->subs[i]);
    r->nsubs--;
    r->subs[i] = r->subs[r->nsubs];
    r->sub_refs[i] = r->sub_refs[r->nsubs];
}

char *slop_relay_open(slop_relay *r) {
    if (!r || r->hellos_sent || r->hellos_owed) return NULL;
    char *m = slop__strdup("{\"type\":\"connect\"}");
    if (!m) return NULL;
    r->hellos_owed = 1;
    r->open_connect_pending = 1;
    return m;
}

/* {"ok":true,"type":t,"forward":false,...}: a request the relay answered or
 * kept itself, with nothing to send to the provider. */
static char *outbound_kept(const char *t, const char *id, const char *why) {
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddTrueToObject(o, "ok") || !cJSON_AddStringToObject(o, "type", t) ||
        !cJSON_AddFalseToObject(o, "forward") || (id && !cJSON_AddStringToObject(o, "id", id)) ||
        !cJSON_AddStringToObject(o, "why", why)) {
        cJSON_Delete(o);
        return NULL;
    }
    return slop__json_print_free(o);
}

char *slop_relay_outbound(slop_relay *r, const char *msg, size_t len) {
    if (!r || !msg) return NULL;
    if (len > RELAY_MAX_MESSAGE_BYTES) return outbound_error("message larger than 1 MiB: not relayed", NULL);
    slop__json_status st;
    cJSON *m = slop__json_parse(msg, len, SLOP_DEFAULT_MAX_JSON_DEPTH, &st, NULL, NULL);
    if (!m) return outbound_error(st == SLOP__JSON_TOO_DEEP ? "message nests too deep: not relayed"
                                                             : "message is not valid JSON: not relayed", NULL);
    char *out = NULL;
    cJSON *reply = NULL;
    char why[200];
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(m, "type");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
    const char *t = cJSON_IsString(type) ? type->valuestring : NULL;
    int kind = slop__consumer_message_of(t);
    int needs_id = kind >= 0 && slop__consumer_message_needs_id((slop_consumer_message)kind);
    if (!cJSON_IsObject(m) || !t) {
        out = outbound_error("a message must be a JSON object with a string \"type\": not relayed", NULL);
        goto done;
    }
    if (kind < 0) {
        /* Provider messages (snapshot, patch, result, ...) from the outside
         * would reach the page's other consumers as if the provider sent them. */
        snprintf(why, sizeof why, "\"%.40s\" is not a consumer message: not relayed", t);
        out = outbound_error(why, NULL);
        goto done;
    }
    if (needs_id && (!cJSON_IsString(id) || id->valuestring[0] == '\0' || strlen(id->valuestring) > 200)) {
        snprintf(why, sizeof why, "%s needs a string \"id\" (1 to 200 bytes): not relayed", t);
        out = outbound_error(why, NULL);
        goto done;
    }
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(m, "path");
    const cJSON *action = cJSON_GetObjectItemCaseSensitive(m, "action");
    if (kind == SLOP_CMSG_INVOKE && (!cJSON_IsString(path) || !cJSON_IsString(action))) {
        reply = refusal(t, id->valuestring, "bad_request", "invoke needs a string \"path\" and \"action\"");
        out = outbound_error("invoke needs a string \"path\" and \"action\": not relayed", reply);
        goto done;
    }
    char *wire = NULL;
    if (needs_id) {
        size_t n = strlen(id->valuestring);
        wire = malloc(r->prefix_len + n + 1);
        if (!wire) goto done;
        memcpy(wire, r->prefix, r->prefix_len);
        memcpy(wire + r->prefix_len, id->valuestring, n + 1);
    }
    int held = kind == SLOP_CMSG_SUBSCRIBE ? find_sub(r, wire) : -1;
    if (held >= 0) r->sub_refs[held]++; /* a second consumer behind one relay, same id */
    if (kind == SLOP_CMSG_SUBSCRIBE && held < 0) {
        if (r->nsubs == RELAY_MAX_SUBS) {
            reply = refusal(t, id->valuestring, "bad_request", "too many subscriptions through this relay (256)");
            out = outbound_error("too many subscriptions through this relay (256): not relayed", reply);
            free(wire);
            goto done;
        }
        r->subs[r->nsubs] = slop__strdup(wire);
        if (!r->subs[r->nsubs]) {
            free(wire);
            goto done;
        }
        r->sub_refs[r->nsubs] = 1;
        r->nsubs++;
    }
    if (kind == SLOP_CMSG_UNSUBSCRIBE) {
        int i = find_sub(r, wire);
        if (i >= 0 && r->sub_refs[i] > 1) {
            /* Consumers a broadcasting bridge cannot tell apart subscribed
             * this id more than once: the last unsubscribe ends it. */
            r->sub_refs[i]--;
            snprintf(why, sizeof why, "%u more subscribe(s) of this id are still open", r->sub_refs[i]);
            out = outbound_kept(t, id->valuestring, why);
            free(wire);
            goto done;
        }
        if (i >= 0) forget_sub(r, i);
    }
    if (kind == SLOP_CMSG_CONNECT && r->open_connect_pending) {
        /* The connect slop_relay_open sent on the consumer's behalf is still
         * unanswered: its hello answers this one too. */
        r->open_connect_pending = 0;
        out = outbound_kept(t, NULL, "the hello asked for when the relay opened answers it");
        goto done;
    }
    if (kind == SLOP_CMSG_CONNECT) r->hellos_owed++;
    cJSON *o = cJSON_CreateObject();
    cJSON *fwd = cJSON_Duplicate(m, 1);
    /* A connect carries no id in the spec and its hello is counted, never
     * matched by id: an id on it would reach the page's channel unprefixed
     * (where it could meet another consumer's), so it is dropped. */
    if (fwd && kind == SLOP_CMSG_CONNECT) cJSON_DeleteItemFromObjectCaseSensitive(fwd, "id");
    if (!o || !fwd || (wire && !cJSON_ReplaceItemInObjectCaseSensitive(fwd, "id", cJSON_CreateString(wire))) ||
        !cJSON_AddTrueToObject(o, "ok") || !cJSON_AddStringToObject(o, "type", t)) {
        cJSON_Delete(o);
        cJSON_Delete(fwd);
        free(wire);
        goto done;
    }
    cJSON_AddItemToObject(o, "message", fwd);
    if (needs_id) cJSON_AddStringToObject(o, "id", id->valuestring);
    if (kind == SLOP_CMSG_INVOKE) {
        cJSON_AddStringToObject(o, "path", path->valuestring);
        cJSON_AddStringToObject(o, "action", action->valuestring);
    }
    free(wire);
    out = slop__json_print_free(o);
done:
    cJSON_Delete(reply);
    cJSON_Delete(m);
    return out;
}

char *slop_relay_close(slop_relay *r) {
    if (!r) return NULL;
    cJSON *a = cJSON_CreateArray();
    if (!a) return NULL;
    for (size_t i = 0; i < r->nsubs; i++) {
        cJSON *m = cJSON_CreateObject();
        if (!m || !cJSON_AddStringToObject(m, "type", slop__consumer_message_name(SLOP_CMSG_UNSUBSCRIBE)) || !cJSON_AddStringToObject(m, "id", r->subs[i])) {
            cJSON_Delete(m);
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, m);
    }
    for (size_t i = 0; i < r->nsubs; i++) free(r->subs[i]);
    r->nsubs = 0;
    r->hellos_owed = 0;
    r->hellos_sent = 0;
    r->open_connect_pending = 0;
    return slop__json_print_free(a);
}

/* ---- inbound: provider frames on the shared channel ---------------------- */

typedef struct { size_t at, end; } span; /* [at, end) in the frame; end 0: absent */

/* One message object at sc->pos: where its "type", "id", "subscription" and
 * "messages" values are. 0, or -1 when it is no valid object. */
static int scan_message(slop__scan *sc, span *type, span *id, span *sub, span *msgs) {
    const char *s = sc->s;
    memset(type, 0, sizeof *type);
    *id = *sub = *msgs = *type;
    slop__scan_ws(sc);
    if (sc->pos >= sc->len || s[sc->pos] != '{' || slop__scan_enter(sc) != 0) return -1;
    size_t mark = sc->keys_len;
    sc->pos++;
    slop__scan_ws(sc);
    if (sc->pos < sc->len && s[sc->pos] == '}') {
        sc->pos++;
        sc->depth--;
        return 0;
    }
    for (;;) {
        slop__scan_ws(sc);
        size_t kn = 0, at = sc->pos;
        if (slop__scan_string(sc, &kn) != 0 || slop__scan_name(sc, at) != 0) return -1;
        span *want = NULL;
        if (kn == 4 && memcmp(sc->buf, "type", 4) == 0) want = type;
        else if (kn == 2 && memcmp(sc->buf, "id", 2) == 0) want = id;
        else if (kn == 12 && memcmp(sc->buf, "subscription", 12) == 0) want = sub;
        else if (kn == 8 && memcmp(sc->buf, "messages", 8) == 0) want = msgs;
        slop__scan_ws(sc);
        if (sc->pos >= sc->len || s[sc->pos] != ':') return -1;
        sc->pos++;
        slop__scan_ws(sc);
        size_t start = sc->pos;
        if (slop__scan_value(sc) != 0) return -1;
        if (want) *want = (span){start, sc->pos};
        int more = slop__scan_next(sc, '}');
        if (more < 0) return -1;
        if (!more) break;
    }
    if (slop__scan_keys_end(sc, mark) != 0) return -1;
    sc->depth--;
    return 0;
}

/* Whether the span is the JSON string of provider message type k, as the
 * provider wrote it (quotes included, no escapes). */
static int type_is(const char *s, span v, slop_provider_message k) {
    const char *name = slop__provider_message_name(k);
    size_t n = strlen(name);
    return v.end && v.end - v.at == n + 2 && s[v.at] == '"' && memcmp(s + v.at + 1, name, n) == 0 &&
           s[v.end - 1] == '"';
}

/* The text of one message with the relay's prefix taken off its addressee,
 * appended to b; 1 when it is the outside consumer's, 0 when it is not. */
static int inbound_message(slop_relay *r, slop__scan *sc, slop__buf *b, unsigned nest) {
    const char *s = sc->s;
    slop__scan_ws(sc);
    size_t from = sc->pos;
    span type, id, sub, msgs;
    if (scan_message(sc, &type, &id, &sub, &msgs) != 0) return -1;
    size_t to = sc->pos;
    if (type_is(s, type, SLOP_MSG_HELLO)) {
        /* Every consumer on the channel sees the provider's hello; the outside
         * one gets one per connect it sent (more would duplicate its handlers). */
        if (!r->hellos_owed) return 0;
        r->hellos_owed--;
        r->hellos_sent++;
        r->open_connect_pending = 0;
        slop__buf_putn(b, s + from, to - from);
        return 1;
    }
    if (type_is(s, type, SLOP_MSG_EVENT)) { /* the provider's events are for all */
        slop__buf_putn(b, s + from, to - from);
        return 1;
    }
    if (type_is(s, type, SLOP_MSG_BATCH) && msgs.end && s[msgs.at] == '[') {
        if (nest >= RELAY_BATCH_NEST) return 0;
        slop__buf inner = {0};
        slop__scan el;
        slop__scan_init(&el, s, msgs.end, SLOP_DEFAULT_MAX_JSON_DEPTH);
        el.pos = msgs.at + 1;
        int kept = 0, rc = 0;
        slop__scan_ws(&el);
        if (el.pos < msgs.end && s[el.pos] == ']') el.pos++;
        else for (;;) {
            size_t mark = inner.len;
            if (kept) slop__buf_putc(&inner, ',');
            int k = inbound_message(r, &el, &inner, nest + 1);
            if (k < 0) { rc = -1; break; }
            if (k) kept++;
            else if (inner.s) inner.len = mark, inner.s[mark] = '\0';
            int more = slop__scan_next(&el, ']');
            if (more < 0) { rc = -1; break; }
            if (!more) break;
        }
        slop__scan_free(&el);
        if (rc == 0 && kept) {
            slop__buf_putn(b, s + from, msgs.at - from);
            slop__buf_putc(b, '[');
            slop__buf_putn(b, inner.s, inner.len);
            slop__buf_putc(b, ']');
            slop__buf_putn(b, s + msgs.end, to - msgs.end);
        }
        free(inner.s);
        return rc < 0 ? -1 : kept > 0;
    }
    span addr = type_is(s, type, SLOP_MSG_PATCH) ? sub : id;
    int addressed = type_is(s, type, SLOP_MSG_SNAPSHOT) || type_is(s, type, SLOP_MSG_PATCH) ||
                    type_is(s, type, SLOP_MSG_RESULT) || type_is(s, type, SLOP_MSG_ERROR);
    if (!addressed) return 0; /* consumer messages (echoes), unknown types */
    if (!addr.end) {
        /* An error about no request (the provider's own trouble) is for every
         * consumer; any other frame without its addressee is for nobody. */
        if (!type_is(s, type, SLOP_MSG_ERROR)) return 0;
        slop__buf_putn(b, s + from, to - from);
        return 1;
    }
    if (s[addr.at] != '"') return 0;
    size_t n = 0;
    if (slop__scan_string_at(sc, addr.at, &n) != 0) return -1;
    if (n <= r->prefix_len || memcmp(sc->buf, r->prefix, r->prefix_len) != 0) return 0;
    slop__buf_putn(b, s + from, addr.at - from);
    slop__buf_put_string(b, sc->buf + r->prefix_len);
    slop__buf_putn(b, s + addr.end, to - addr.end);
    return 1;
}

char *slop_relay_inbound(slop_relay *r, const char *frame, size_t len, size_t *out_len) {
    if (out_len) *out_len = 0;
    if (!r || !frame || len > SLOP_DEFAULT_MAX_FRAME_BYTES) return NULL;
    slop__scan sc;
    slop__scan_init(&sc, frame, len, SLOP_DEFAULT_MAX_JSON_DEPTH);
    slop__buf b = {0};
    unsigned owed = r->hellos_owed, sent = r->hellos_sent;
    int pending = r->open_connect_pending;
    int k = inbound_message(r, &sc, &b, 0);
    if (k == 1) {
        slop__scan_ws(&sc);
        if (sc.pos != len) k = -1; /* trailing bytes: not one message */
    }
    slop__scan_free(&sc);
    if (k != 1 || b.oom) {
        /* nothing forwarded: no hello used up */
        r->hellos_owed = owed;
        r->hellos_sent = sent;
        r->open_connect_pending = pending;
        free(b.s);
        return NULL;
    }
    if (out_len) *out_len = b.len;
    return slop__buf_take(&b);
}
