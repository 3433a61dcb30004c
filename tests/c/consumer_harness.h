/*
 * consumer_harness.h: drives a consumer through the public header as a
 * transport would (frames in at time 1000, outputs drained and kept) for
 * test_consumer.c and test_trust.c.
 */
#ifndef SLOP_TEST_CONSUMER_HARNESS_H
#define SLOP_TEST_CONSUMER_HARNESS_H

#include <stdlib.h>
#include <string.h>

#include "cJSON.h"
#include "check.h"
#include "slop_core.h"

/* ---- harness ----------------------------------------------------------- */

#define MAX_OUT 512
typedef struct outs {
    int n;
    int kind[MAX_OUT];
    char *text[MAX_OUT];
    size_t len[MAX_OUT];    /* a patch record holds NULs */
} outs;

static inline void outs_free(outs *o) {
    for (int i = 0; i < o->n; i++) free(o->text[i]);
    o->n = 0;
}

static inline void drain(slop_consumer *c, outs *o) {
    const char *t;
    size_t n;
    int k;
    while ((k = slop_consumer_next(c, &t, &n)) != SLOP_OUT_NONE) {
        if (o->n < MAX_OUT) {
            o->kind[o->n] = k;
            o->text[o->n] = malloc(n + 1);
            memcpy(o->text[o->n], t, n + 1);
            o->len[o->n] = n;
            o->n++;
        }
    }
}

static inline void feed(slop_consumer *c, const char *frame, outs *o) {
    slop_consumer_receive(c, frame, strlen(frame), 1000);
    drain(c, o);
}

/* The nth output event named `name`, parsed (caller deletes), or NULL. */
static inline cJSON *ev(outs *o, const char *name, int nth) {
    for (int i = 0; i < o->n; i++) {
        if (o->kind[i] != SLOP_OUT_EVENT) continue;
        cJSON *j = cJSON_Parse(o->text[i]);
        cJSON *e = cJSON_GetObjectItem(j, "event");
        if (e && strcmp(e->valuestring, name) == 0 && nth-- == 0) return j;
        cJSON_Delete(j);
    }
    return NULL;
}

static inline int count_ev(outs *o, const char *name) {
    int k = 0;
    cJSON *j;
    while ((j = ev(o, name, k)) != NULL) {
        cJSON_Delete(j);
        k++;
    }
    return k;
}

/* The nth frame sent of a type, parsed (caller deletes), or NULL. */
static inline cJSON *sent(outs *o, const char *type, int nth) {
    for (int i = 0; i < o->n; i++) {
        if (o->kind[i] != SLOP_OUT_SEND) continue;
        cJSON *j = cJSON_Parse(o->text[i]);
        cJSON *t = cJSON_GetObjectItem(j, "type");
        if (t && strcmp(t->valuestring, type) == 0 && nth-- == 0) return j;
        cJSON_Delete(j);
    }
    return NULL;
}

static inline const char *str(const cJSON *j, const char *k) {
    const cJSON *v = cJSON_GetObjectItem(j, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *const HELLO_ALL =
    "{\"type\":\"hello\",\"provider\":{\"id\":\"app\",\"name\":\"App\",\"slop_version\":\"0.1\","
    "\"capabilities\":[\"state\",\"patches\",\"affordances\",\"attention\",\"windowing\",\"async\","
    "\"content_refs\"]}}";

static const char *const TODOS =
    "{\"id\":\"root\",\"type\":\"root\",\"children\":[{\"id\":\"todos\",\"type\":\"collection\","
    "\"properties\":{\"count\":2},\"children\":["
    "{\"id\":\"t1\",\"type\":\"item\",\"properties\":{\"title\":\"Buy milk\",\"done\":false},"
    "\"affordances\":[{\"action\":\"toggle\"},{\"action\":\"tag\",\"params\":{\"type\":\"object\","
    "\"properties\":{\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},\"required\":[\"tags\"]}},"
    "{\"action\":\"delete\",\"dangerous\":true}]},"
    "{\"id\":\"t2\",\"type\":\"item\",\"properties\":{\"title\":\"Walk dog\",\"done\":true}}]}]}";

typedef struct live {
    slop_consumer *c;
    char sub[64];   /* caller-facing id */
    char wire[64];  /* current wire id  */
    outs o;
} live;

/* A consumer subscribed at `path` and fed hello + a snapshot (version 1). */
static inline void start(live *l, const char *hello, const char *path, const char *tree) {
    memset(l, 0, sizeof *l);
    l->c = slop_consumer_new(NULL, "ws", 42);
    char opts[128];
    snprintf(opts, sizeof opts, "{\"path\":\"%s\",\"depth\":-1}", path);
    const char *id = slop_consumer_subscribe(l->c, opts, strlen(opts), 0, NULL);
    snprintf(l->sub, sizeof l->sub, "%s", id);
    snprintf(l->wire, sizeof l->wire, "%s", id);
    feed(l->c, hello, &l->o);
    if (tree) {
        char *snap = malloc(strlen(tree) + 200);
        sprintf(snap, "{\"type\":\"snapshot\",\"id\":\"%s\",\"version\":1,\"seq\":0,\"tree\":%s}", l->wire, tree);
        feed(l->c, snap, &l->o);
        free(snap);
    }
}

static inline void stop(live *l) {
    outs_free(&l->o);
    slop_consumer_free(l->c);
}

static inline void patch(live *l, int version, int seq, const char *ops) {
    char *f = malloc(strlen(ops) + 200);
    if (seq >= 0)
        sprintf(f, "{\"type\":\"patch\",\"subscription\":\"%s\",\"version\":%d,\"seq\":%d,\"ops\":%s}", l->wire,
                version, seq, ops);
    else
        sprintf(f, "{\"type\":\"patch\",\"subscription\":\"%s\",\"version\":%d,\"ops\":%s}", l->wire, version, ops);
    feed(l->c, f, &l->o);
    free(f);
}

/* Feeds a snapshot on the current wire id: version and seq as JSON text (seq
 * NULL: no seq member). */
static inline void snapshot(live *l, const char *version, const char *seq, const char *tree) {
    char *f = malloc(strlen(tree) + strlen(version) + (seq ? strlen(seq) : 0) + 200);
    sprintf(f, "{\"type\":\"snapshot\",\"id\":\"%s\",\"version\":%s%s%s,\"tree\":%s}", l->wire, version,
            seq ? ",\"seq\":" : "", seq ? seq : "", tree);
    feed(l->c, f, &l->o);
    free(f);
}

/* The mirrored tree at path as canonical JSON text (caller frees). */
static inline char *tree_at(live *l, const char *path) {
    const char *t = slop_consumer_tree(l->c, l->sub, path, -1, NULL);
    return t ? strdup(t) : NULL;
}

/* The text of member `key` of the node's properties exactly as the core
 * printed it (not re-printed: the printer is under test too), or NULL. */
static inline char *prop(live *l, const char *path, const char *key) {
    const char *t = slop_consumer_node(l->c, l->sub, path, NULL);
    const char *props = t ? strstr(t, "\"properties\":{") : NULL;
    if (!props) return NULL;
    char needle[128];
    snprintf(needle, sizeof needle, "\"%s\":", key);
    /* a member of properties itself: depth 1 below its opening brace */
    int depth = 0, in_str = 0;
    for (const char *p = props + strlen("\"properties\":"); *p; p++) {
        if (in_str) {
            if (*p == '\\') p++;
            else if (*p == '"') in_str = 0;
            continue;
        }
        if (depth == 1 && (p[-1] == '{' || p[-1] == ',') && strncmp(p, needle, strlen(needle)) == 0) {
            const char *v = p + strlen(needle), *e = v;
            int d = 0, q = 0;
            for (; *e; e++) {
                if (q) {
                    if (*e == '\\') e++;
                    else if (*e == '"') q = 0;
                } else if (*e == '"') q = 1;
                else if (*e == '{' || *e == '[') d++;
                else if ((*e == '}' || *e == ']') && d-- == 0) break;
                else if (*e == ',' && d == 0) break;
            }
            return strndup(v, (size_t)(e - v));
        }
        if (*p == '"') in_str = 1;
        else if (*p == '{' || *p == '[') depth++;
        else if (*p == '}' || *p == ']') {
            if (--depth == 0) break;
        }
    }
    return NULL;
}

static inline char *child_ids(live *l, const char *path) {
    const char *t = slop_consumer_node(l->c, l->sub, path, NULL);
    if (!t) return NULL;
    cJSON *j = cJSON_Parse(t);
    char *s = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "child_ids"));
    cJSON_Delete(j);
    return s;
}

#define CHECK_PROP(l, path, key, expect)              \
    do {                                              \
        char *p_ = prop(l, path, key);                \
        CHECK_STR(p_, expect);                        \
        free(p_);                                     \
    } while (0)

#define CHECK_KIDS(l, path, expect)                   \
    do {                                              \
        char *k_ = child_ids(l, path);                \
        CHECK_STR(k_, expect);                        \
        free(k_);                                     \
    } while (0)

static inline void update_wire_from_resubscribe(live *l, int nth) {
    cJSON *s = sent(&l->o, "subscribe", nth);
    if (s) snprintf(l->wire, sizeof l->wire, "%s", str(s, "id"));
    cJSON_Delete(s);
}

#endif
