/*
 * params.c: invoke params against an affordance params schema, with the
 * SLOP subset of JSON Schema (spec/affordances "params schema dialect"):
 * type, properties, required, items, enum. Every other keyword is ignored,
 * as the reference validators do. The first failure wins and is reported as
 * a message with a path from the root named "params" ("params.tags[1] must
 * be a string"); NULL means valid.
 */
#include <math.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define PARAMS_MAX_DEPTH  64   /* schema levels we follow; deeper is refused  */
#define TEXT_MAX_DEPTH    96   /* JSON nesting we let cJSON parse (see below) */
#define EQUAL_MAX_DEPTH   128  /* enum deep-equal recursion bound             */
#define ENUM_SHOW_MAX     8    /* enum members listed in a message            */
#define ENUM_MEMBER_SHOW  40   /* bytes of one listed enum member             */
#define KEY_SHOW_MAX      64   /* bytes of one property name in a path        */

/* ---- a growable string and UTF-8-safe cuts: util.c's --------------------- */

typedef slop__buf strbuf;
#define sb_putn slop__buf_putn
#define sb_puts slop__buf_puts
#define utf8_cut slop__utf8_cut

/* ---- schema helpers ----------------------------------------------------- */

static const char *const type_names[] = {
    "object", "array", "string", "number", "integer", "boolean", "null"};
static const char *const type_phrases[] = {
    "an object", "an array", "a string", "a number", "an integer", "a boolean", "null"};
#define TYPE_COUNT ((int)(sizeof type_names / sizeof type_names[0]))

static int type_index(const char *name) {
    for (int i = 0; i < TYPE_COUNT; i++)
        if (!strcmp(name, type_names[i])) return i;
    return -1;
}

static int type_matches(int t, const cJSON *v) {
    switch (t) {
    case 0: return cJSON_IsObject(v);
    case 1: return cJSON_IsArray(v);
    case 2: return cJSON_IsString(v);
    case 3: return cJSON_IsNumber(v) && isfinite(v->valuedouble);
    case 4: return cJSON_IsNumber(v) && isfinite(v->valuedouble) && floor(v->valuedouble) == v->valuedouble;
    case 5: return cJSON_IsBool(v);
    case 6: return cJSON_IsNull(v);
    default: return 1;
    }
}

/* Deep equality as JSON values: numbers by value (1 == 1.0), objects
 * regardless of key order. Past EQUAL_MAX_DEPTH values count as different. */
static int json_equal(const cJSON *a, const cJSON *b, int depth) {
    if (depth > EQUAL_MAX_DEPTH) return 0;
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b)) return a->valuedouble == b->valuedouble;
    if ((a->type & 0xFF) != (b->type & 0xFF)) return 0;
    if (cJSON_IsString(a)) return a->valuestring && b->valuestring && !strcmp(a->valuestring, b->valuestring);
    if (cJSON_IsArray(a)) {
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next)
            if (!json_equal(x, y, depth + 1)) return 0;
        return !x && !y;
    }
    if (cJSON_IsObject(a)) {
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b)) return 0;
        for (const cJSON *x = a->child; x; x = x->next) {
            const cJSON *y = x->string ? cJSON_GetObjectItemCaseSensitive(b, x->string) : NULL;
            if (!y || !json_equal(x, y, depth + 1)) return 0;
        }
        return 1;
    }
    return cJSON_IsBool(a) || cJSON_IsNull(a); /* same type, no payload */
}

/* ---- the checker -------------------------------------------------------- */

typedef struct checker {
    strbuf path;  /* "params.user.tags[1]", grown and cut back while walking */
    strbuf msg;   /* the failure message, once there is one */
} checker;

/* [A-Za-z_$][A-Za-z0-9_$]*: what may follow a '.' in a JS-style path. */
static int ident_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

static int ident_like(const char *k) {
    if (!ident_start(*k)) return 0;
    for (k++; *k; k++)
        if (!ident_start(*k) && !(*k >= '0' && *k <= '9')) return 0;
    return 1;
}

static void path_push_key(strbuf *p, const char *key) {
    if (ident_like(key)) {
        sb_puts(p, ".");
        sb_puts(p, key);
        return;
    }
    /* ["a b"], JSON-escaped so the message stays one printable line. */
    size_t n = strlen(key), show = utf8_cut(key, n, KEY_SHOW_MAX);
    sb_puts(p, "[\"");
    for (size_t i = 0; i < show; i++) {
        unsigned char c = (unsigned char)key[i];
        char esc[8];
        if (c == '"' || c == '\\') { esc[0] = '\\'; esc[1] = (char)c; sb_putn(p, esc, 2); }
        else if (c < 0x20 || c == 0x7f) { snprintf(esc, sizeof esc, "\\u%04x", c); sb_puts(p, esc); }
        else sb_putn(p, (const char *)&key[i], 1);
    }
    if (show < n) sb_puts(p, "...");
    sb_puts(p, "\"]");
}

static int fail(checker *ck, const char *what) {
    sb_putn(&ck->msg, ck->path.s ? ck->path.s : "", ck->path.len);
    sb_puts(&ck->msg, what);
    return 1;
}

static int fail_type(checker *ck, const int *types, int n) {
    sb_putn(&ck->msg, ck->path.s ? ck->path.s : "", ck->path.len);
    sb_puts(&ck->msg, " must be ");
    for (int i = 0; i < n; i++) {
        if (i > 0) sb_puts(&ck->msg, i == n - 1 ? " or " : ", ");
        sb_puts(&ck->msg, type_phrases[types[i]]);
    }
    return 1;
}

static int fail_enum(checker *ck, const cJSON *members) {
    sb_putn(&ck->msg, ck->path.s ? ck->path.s : "", ck->path.len);
    int total = cJSON_GetArraySize(members);
    if (total == 0) {
        sb_puts(&ck->msg, " cannot match an empty enum");
        return 1;
    }
    sb_puts(&ck->msg, " must be one of ");
    int shown = 0;
    for (const cJSON *m = members->child; m && shown < ENUM_SHOW_MAX; m = m->next, shown++) {
        char *text = slop__json_print(m);
        if (!text) { ck->msg.oom = 1; return 1; }
        size_t n = strlen(text), cut = utf8_cut(text, n, ENUM_MEMBER_SHOW);
        if (shown > 0) sb_puts(&ck->msg, ", ");
        sb_putn(&ck->msg, text, cut);
        if (cut < n) sb_puts(&ck->msg, "...");
        free(text);
    }
    if (total > shown) {
        char more[48];
        snprintf(more, sizeof more, ", ... (%d more)", total - shown);
        sb_puts(&ck->msg, more);
    }
    return 1;
}

/* Returns 0 when value satisfies schema, else 1 with ck->msg set. */
static int check(checker *ck, const cJSON *schema, const cJSON *value, int depth) {
    if (depth > PARAMS_MAX_DEPTH) {
        ck->msg.len = 0;
        sb_puts(&ck->msg, "params nesting is too deep");
        return 1;
    }
    if (!cJSON_IsObject(schema)) return 0; /* true, {} and non-schemas impose nothing */

    const cJSON *en = cJSON_GetObjectItemCaseSensitive(schema, "enum");
    if (cJSON_IsArray(en)) {
        int found = 0;
        for (const cJSON *m = en->child; m && !found; m = m->next) found = json_equal(m, value, 0);
        if (!found) return fail_enum(ck, en);
    }

    const cJSON *type = cJSON_GetObjectItemCaseSensitive(schema, "type");
    if (cJSON_IsString(type) || cJSON_IsArray(type)) {
        int listed[TYPE_COUNT], n = 0, ok = 0, unknown = 0;
        const cJSON *one = cJSON_IsString(type) ? type : type->child;
        for (; one && !ok; one = cJSON_IsString(type) ? NULL : one->next) {
            if (!cJSON_IsString(one)) continue;
            int t = type_index(one->valuestring);
            if (t < 0) { unknown = 1; break; } /* unknown type names pass */
            if (type_matches(t, value)) ok = 1;
            else if (n < TYPE_COUNT) {
                int dup = 0;
                for (int i = 0; i < n; i++) dup |= listed[i] == t;
                if (!dup) listed[n++] = t;
            }
        }
        if (!ok && !unknown && n > 0) return fail_type(ck, listed, n);
    }

    /* The object and array keywords apply to values of that kind (JSON
     * Schema semantics), whether or not "type" says so. */
    if (cJSON_IsObject(value)) {
        const cJSON *req = cJSON_GetObjectItemCaseSensitive(schema, "required");
        if (cJSON_IsArray(req)) {
            for (const cJSON *k = req->child; k; k = k->next) {
                if (!cJSON_IsString(k) || cJSON_GetObjectItemCaseSensitive(value, k->valuestring)) continue;
                path_push_key(&ck->path, k->valuestring);
                return fail(ck, " is required");
            }
        }
        const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
        if (cJSON_IsObject(props)) {
            for (const cJSON *p = props->child; p; p = p->next) {
                if (!p->string) continue;
                const cJSON *v = cJSON_GetObjectItemCaseSensitive(value, p->string);
                if (!v) continue;
                size_t mark = ck->path.len;
                path_push_key(&ck->path, p->string);
                if (check(ck, p, v, depth + 1)) return 1;
                ck->path.len = mark;
                if (ck->path.s) ck->path.s[mark] = '\0';
            }
        }
    } else if (cJSON_IsArray(value)) {
        const cJSON *items = cJSON_GetObjectItemCaseSensitive(schema, "items");
        if (cJSON_IsObject(items)) { /* the tuple form is outside the subset */
            size_t i = 0;
            for (const cJSON *e = value->child; e; e = e->next, i++) {
                size_t mark = ck->path.len;
                char idx[32];
                snprintf(idx, sizeof idx, "[%zu]", i);
                sb_puts(&ck->path, idx);
                if (check(ck, items, e, depth + 1)) return 1;
                ck->path.len = mark;
                if (ck->path.s) ck->path.s[mark] = '\0';
            }
        }
    }
    return 0;
}

/* A fresh malloc'd copy of a short constant message; NULL only on OOM. */
static char *message(const char *text) {
    size_t n = strlen(text) + 1;
    char *m = malloc(n);
    if (m) memcpy(m, text, n);
    return m;
}

char *slop__params_check(const cJSON *schema, const cJSON *params) {
    if (!schema) return NULL;
    cJSON *empty = NULL;
    if (!params) {
        /* No params at all is an empty object, as the invoke frame sends. */
        empty = cJSON_CreateObject();
        if (!empty) return message("params could not be checked (out of memory)");
        params = empty;
    }
    checker ck = {{0}, {0}};
    sb_puts(&ck.path, "params");
    int bad = check(&ck, schema, params, 0);
    cJSON_Delete(empty);
    free(ck.path.s);
    if (!bad) {
        free(ck.msg.s);
        return NULL;
    }
    if (ck.msg.oom || ck.path.oom || !ck.msg.s) {
        /* Never report an invalid value as valid just because the message
         * could not be built. (A NULL here is only total memory exhaustion.) */
        free(ck.msg.s);
        return message("params are invalid");
    }
    return ck.msg.s;
}

/* ---- the public wrapper ------------------------------------------------- */

/* Strict parse (json_limits.c). NULL with a message such as "params is not
 * valid JSON (number too large for a double)" in *msg. */
static cJSON *parse_whole(const char *what, const char *text, size_t len, char **msg) {
    slop__json_status st;
    const char *why = NULL;
    cJSON *v = slop__json_parse(text, len, TEXT_MAX_DEPTH, &st, NULL, &why);
    if (!v) {
        char m[160];
        if (st == SLOP__JSON_TOO_DEEP) snprintf(m, sizeof m, "%s nesting is too deep", what);
        else snprintf(m, sizeof m, "%s is not valid JSON (%s)", what, why ? why : "out of memory");
        *msg = message(m);
    }
    return v;
}

char *slop_validate_params(const char *schema, size_t schema_len,
                           const char *params, size_t params_len) {
    /* NULL or empty means "none", as for slop_consumer_invoke's params. */
    if (!schema || schema_len == 0) return NULL;
    char *msg = NULL;
    cJSON *s = parse_whole("schema", schema, schema_len, &msg);
    if (!s) return msg;
    cJSON *p = NULL;
    if (params && params_len > 0) {
        p = parse_whole("params", params, params_len, &msg);
        if (!p) {
            cJSON_Delete(s);
            return msg;
        }
    }
    char *err = slop__params_check(s, p);
    cJSON_Delete(s);
    cJSON_Delete(p);
    return err;
}
