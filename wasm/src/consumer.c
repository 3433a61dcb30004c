/*
 * consumer.c: the consumer's public life cycle and input: new, free,
 * receive (a frame parsed once, then handed to consumer_messages.c with its
 * per-frame context), tick, close, reset and next. What the parts share is in
 * consumer_state.c; the parts are listed in consumer.h.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"

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
        cJSON_AddStringToObject(f, "type", slop__consumer_message_name(SLOP_CMSG_CONNECT));
        slop__send_frame(c, f);
        cJSON_Delete(f);
    }
    return c;
}

void slop_consumer_free(slop_consumer *c) {
    if (!c) return;
    for (size_t i = 0; i < c->nsubs; i++) slop__sub_free(c->subs[i]);
    free(c->subs);
    while (c->npend) slop__pending_drop(c, &c->pend[c->npend - 1]);
    free(c->pend);
    while (c->ntasks) slop__task_drop(c, c->ntasks - 1);
    free(c->tasks);
    for (size_t i = c->out_head; i < c->out_len; i++) free(c->out[i].text);
    free(c->out);
    cJSON_Delete(c->held);
    cJSON_Delete(c->provider);
    cJSON_Delete(c->prev_provider);
    free(c->adopt);
    slop__conf_free(&c->conf);
    slop__cp_end(c, 1);
    free(c->scratch);
    slop__arena_free(&c->frame_arena);
    free(c);
}

/* Keeps the frame's "type" for the caller's frame log (so it never parses the
 * frame again), cut at 40 bytes on a UTF-8 boundary. */
static void note_frame_type(slop_consumer *c, const cJSON *msg) {
    const cJSON *t = slop__member(msg, "type");
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
        slop__protocol_error(c, SLOP_PE_FRAME_TOO_LARGE, 0, "frame of %zu bytes exceeds the limit of %zu: dropped", len,
                       c->lim.max_frame_bytes);
        return c->queued;
    }
    /* One pass validates and builds; a top-level snapshot's tree is left as
     * text and loaded straight from it. The values live in the frame arena,
     * reset when the frame is done. */
    slop__frame_info fi;
    cJSON *msg = slop__parse_frame(frame, len, c->lim.max_json_depth, &c->frame_arena, &fi);
    if (!msg) {
        if (fi.out_of_memory)
            slop__protocol_error(c, SLOP_PE_OUT_OF_MEMORY, 0, "no memory to parse a frame of %zu bytes: dropped", len);
        else if (fi.too_deep)
            slop__protocol_error(c, SLOP_PE_TOO_DEEP, 0, "frame nests more than %u levels: dropped", c->lim.max_json_depth);
        else
            slop__protocol_error(c, SLOP_PE_BAD_JSON, 0, "frame is not valid JSON: %s (at byte %zu of %zu): dropped", fi.why,
                           fi.offset, len);
        slop__arena_reset(&c->frame_arena);
        return c->queued;
    }
    slop__frame_ctx fr = {now_ms, fi.tree, fi.tree_len};
    note_frame_type(c, msg);
    slop__handle(c, msg, &fr);
    slop__arena_reset(&c->frame_arena);
    return c->queued;
}

int slop_consumer_receive(slop_consumer *c, const char *frame, size_t len, double now_ms) {
    if (!c) return 0;
    slop__cp_end(c, 1);
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
    slop__cp_end(c, 1);
    c->queued = 0;
    c->frame_type[0] = '\0';
    if (c->closed || c->document) {
        c->ignored_frames++;
        return 0;
    }
    c->now = now_ms;
    c->conf.frames++;
    if (len <= c->lim.max_frame_bytes) len = c->lim.max_frame_bytes + 1;
    slop__protocol_error(c, SLOP_PE_FRAME_TOO_LARGE, 0, "frame of over %zu bytes exceeds the limit of %zu: dropped unread", len - 1,
                   c->lim.max_frame_bytes);
    return c->queued;
}

int slop_consumer_tick(slop_consumer *c, double now_ms) {
    if (!c) return 0;
    slop__cp_end(c, 1);
    c->queued = 0;
    c->now = now_ms;
    for (size_t i = 0; i < c->npend;) {
        pending *p = &c->pend[i];
        if (now_ms - p->sent_ms >= (double)c->lim.request_timeout_ms) {
            cJSON *e = slop__event(SLOP_EV_TIMEOUT);
            sub *s = p->kind == SLOP_REQ_SUBSCRIBE ? slop__find_sub(c, p->sub_handle) : NULL;
            cJSON_AddStringToObject(e, "id", s ? s->handle : p->id);
            cJSON_AddStringToObject(e, "request", slop__request_kind_name(p->kind));
            slop__emit(c, e);
            if (p->kind == SLOP_REQ_INVOKE)
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
            if (s) slop__give_up(s, "timeout", "no snapshot came in time", now_ms); /* a late one still counts */
            slop__pending_drop(c, p);
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
            slop__resync(c, s, "retry", "retrying after giving up", now_ms);
        }
    }
    return c->queued;
}

int slop_consumer_close(slop_consumer *c, double now_ms) {
    (void)now_ms;
    if (!c || c->document) return 0; /* a document has no connection */
    slop__cp_end(c, 1);
    c->queued = 0;
    while (c->npend) {
        pending *p = &c->pend[c->npend - 1];
        sub *s = p->kind == SLOP_REQ_SUBSCRIBE ? slop__find_sub(c, p->sub_handle) : NULL;
        cJSON *e = slop__event(SLOP_EV_CLOSED);
        cJSON_AddStringToObject(e, "id", s ? s->handle : p->id);
        cJSON_AddStringToObject(e, "request", slop__request_kind_name(p->kind));
        slop__emit(c, e);
        slop__pending_drop(c, p);
    }
    for (size_t i = 0; i < c->nsubs; i++) {
        sub *s = c->subs[i];
        slop__set_state(s, s->has_mirror ? SLOP_SUB_STALE : SLOP_SUB_WAITING, "disconnected",
                  "the connection closed; the state is the last one received");
        s->retry_at = 0; /* a reconnect re-subscribes (reset) */
        s->wire_live = 0;
    }
    c->closed = 1;
    return c->queued;
}

int slop_consumer_reset(slop_consumer *c, double now_ms) {
    if (!c || c->document) return 0;
    slop__cp_end(c, 1);
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
        cJSON_AddStringToObject(f, "type", slop__consumer_message_name(SLOP_CMSG_CONNECT));
        slop__send_frame(c, f);
        cJSON_Delete(f);
    }
    for (size_t i = 0; i < c->nsubs; i++) {
        sub *s = c->subs[i];
        free(s->wire);
        s->wire = slop__new_id(c, 's');
        s->burst = 0;
        s->retries = 0;
        slop__set_state(s, s->has_mirror ? SLOP_SUB_RESYNCING : SLOP_SUB_WAITING, "reconnected",
                  "a new connection: waiting for a fresh snapshot");
        slop__pending_add(c, s->wire, SLOP_REQ_SUBSCRIBE, now_ms, s->handle, NULL, NULL);
        slop__dispatch(c, slop__subscribe_frame(s));
    }
    return c->queued;
}

slop_output_kind slop_consumer_next(slop_consumer *c, const char **out, size_t *out_len) {
    if (out) *out = NULL;
    if (out_len) *out_len = 0;
    if (!c) return SLOP_OUT_NONE;
    if (c->out_head == c->out_len) {
        slop__give(c, NULL, NULL);
        return SLOP_OUT_NONE;
    }
    out_item it = c->out[c->out_head++];
    slop__give(c, it.text, NULL);
    if (out) *out = it.text;
    if (out_len) *out_len = it.len;
    return it.kind;
}
