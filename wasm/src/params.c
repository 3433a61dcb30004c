/*
 * params.c: invoke params against an affordance params schema, with the
 * SLOP subset of JSON Schema (SLOP spec, Affordances: the params schema):
 * type, properties, required, items, enum. Every other keyword is ignored,
 * as the reference validators do. Every failure is reported as data, with
 * its path as keys and indexes and a message naming it from the root
 * "params" ("params.tags[1] must be a string"); the first one is what invoke
 * reports. NULL means valid.
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
    case 3: return slop__json_is_number(v) && isfinite(v->valuedouble);
    /* An exact integer beyond a double (cJSON_Raw, see slop__json_parse_exact) is one. */
    case 4: return cJSON_IsRaw(v) || (cJSON_IsNumber(v) && isfinite(v->valuedouble) && floor(v->valuedouble) == v->valuedouble);
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
    if (cJSON_IsString(a) || cJSON_IsRaw(a)) return a->valuestring && b->valuestring && !strcmp(a->valuestring, b->valuestring);
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

/* Every failure is collected (up to ERRORS_MAX), so a form can mark every
 * field at once; the first one is the message invoke reports. */
#define ERRORS_MAX 100

typedef struct checker {
    slop__buf path;    /* "params.user.tags[1]", grown and cut back while walking */
    cJSON *segs;    /* the same path as data: ["user","tags",1]                */
    cJSON *errors;  /* [{code, path, message}]                                 */
    int count, oom;
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

static void path_text_key(slop__buf *p, const char *key) {
    if (ident_like(key)) {
        slop__buf_puts(p, ".");
        slop__buf_puts(p, key);
        return;
    }
    /* ["a b"], JSON-escaped so the message stays one printable line. */
    size_t n = strlen(key), show = slop__utf8_cut(key, n, KEY_SHOW_MAX);
    slop__buf_puts(p, "[\"");
    for (size_t i = 0; i < show; i++) {
        unsigned char c = (unsigned char)key[i];
        char esc[8];
        if (c == '"' || c == '\\') { esc[0] = '\\'; esc[1] = (char)c; slop__buf_putn(p, esc, 2); }
        else if (c < 0x20 || c == 0x7f) { snprintf(esc, sizeof esc, "\\u%04x", c); slop__buf_puts(p, esc); }
        else slop__buf_putn(p, (const char *)&key[i], 1);
    }
    if (show < n) slop__buf_puts(p, "...");
    slop__buf_puts(p, "\"]");
}

/* Steps into a member (key) or an array element (key NULL, index i); returns
 * the mark path_pop() goes back to. */
static size_t path_push(checker *ck, const char *key, size_t i) {
    size_t mark = ck->path.len;
    cJSON *seg;
    if (key) {
        path_text_key(&ck->path, key);
        seg = cJSON_CreateString(key);
    } else {
        char idx[32];
        snprintf(idx, sizeof idx, "[%zu]", i);
        slop__buf_puts(&ck->path, idx);
        seg = cJSON_CreateNumber((double)i);
    }
    if (!seg || !cJSON_AddItemToArray(ck->segs, seg)) {
        cJSON_Delete(seg);
        ck->oom = 1;
    }
    return mark;
}

static void path_pop(checker *ck, size_t mark) {
    ck->path.len = mark;
    if (ck->path.s) ck->path.s[mark] = '\0';
    int n = cJSON_GetArraySize(ck->segs);
    if (n > 0) cJSON_DeleteItemFromArray(ck->segs, n - 1);
}

/* Records a failure: {code, path, message}. */
static void record(checker *ck, const char *code, const char *message) {
    ck->count++;
    if (ck->count > ERRORS_MAX) return;
    cJSON *e = cJSON_CreateObject();
    cJSON *path = cJSON_Duplicate(ck->segs, 1);
    if (!e || !path || !cJSON_AddStringToObject(e, "code", code) || !cJSON_AddItemToObject(e, "path", path) ||
        !cJSON_AddStringToObject(e, "message", message) || !cJSON_AddItemToArray(ck->errors, e)) {
        if (!cJSON_GetObjectItemCaseSensitive(e, "path")) cJSON_Delete(path);
        cJSON_Delete(e);
        ck->oom = 1;
    }
}

/* A failure at the current path; its message is the path text then `what`. */
static void fail(checker *ck, const char *code, const slop__buf *what) {
    slop__buf m = {0};
    slop__buf_putn(&m, ck->path.s ? ck->path.s : "", ck->path.len);
    slop__buf_putn(&m, what->s ? what->s : "", what->len);
    if (m.oom || !m.s) ck->oom = 1;
    else record(ck, code, m.s);
    free(m.s);
}

static void fail_text(checker *ck, const char *code, const char *text) {
    slop__buf w = {0};
    slop__buf_puts(&w, text);
    if (w.oom) ck->oom = 1;
    fail(ck, code, &w);
    free(w.s);
}

static void fail_type(checker *ck, const int *types, int n) {
    slop__buf w = {0};
    slop__buf_puts(&w, " must be ");
    for (int i = 0; i < n; i++) {
        if (i > 0) slop__buf_puts(&w, i == n - 1 ? " or " : ", ");
        slop__buf_puts(&w, type_phrases[types[i]]);
    }
    if (w.oom) ck->oom = 1;
    fail(ck, "type", &w);
    free(w.s);
}

static void fail_enum(checker *ck, const cJSON *members) {
    int total = cJSON_GetArraySize(members);
    if (total == 0) {
        fail_text(ck, "enum", " cannot match an empty enum");
        return;
    }
    slop__buf w = {0};
    slop__buf_puts(&w, " must be one of ");
    int shown = 0;
    for (const cJSON *m = members->child; m && shown < ENUM_SHOW_MAX; m = m->next, shown++) {
        char *text = slop__json_print(m);
        if (!text) { w.oom = 1; break; }
        size_t n = strlen(text), cut = slop__utf8_cut(text, n, ENUM_MEMBER_SHOW);
        if (shown > 0) slop__buf_puts(&w, ", ");
        slop__buf_putn(&w, text, cut);
        if (cut < n) slop__buf_puts(&w, "...");
        free(text);
    }
    if (total > shown) {
        char more[48];
        snprintf(more, sizeof more, ", ... (%d more)", total - shown);
        slop__buf_puts(&w, more);
    }
    if (w.oom) ck->oom = 1;
    fail(ck, "enum", &w);
    free(w.s);
}

/* The "type" keyword: 0 when value has one of the listed types (or a type
 * name outside the subset is listed: it imposes nothing), else a failure. */
static int check_type(checker *ck, const cJSON *type, const cJSON *value) {
    int listed[TYPE_COUNT], n = 0;
    const cJSON *one = cJSON_IsString(type) ? type : type->child;
    for (; one; one = cJSON_IsString(type) ? NULL : one->next) {
        if (!cJSON_IsString(one)) continue;
        int t = type_index(one->valuestring);
        if (t < 0 || type_matches(t, value)) return 0;
        int dup = 0;
        for (int i = 0; i < n; i++) dup |= listed[i] == t;
        if (!dup && n < TYPE_COUNT) listed[n++] = t;
    }
    if (n == 0) return 0;
    fail_type(ck, listed, n);
    return 1;
}

static void check(checker *ck, const cJSON *schema, const cJSON *value, int depth);

/* required, then properties: every member is checked, failures collected. */
static void check_object(checker *ck, const cJSON *schema, const cJSON *value, int depth) {
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(schema, "required");
    if (cJSON_IsArray(req)) {
        for (const cJSON *k = req->child; k; k = k->next) {
            if (!cJSON_IsString(k) || cJSON_GetObjectItemCaseSensitive(value, k->valuestring)) continue;
            size_t mark = path_push(ck, k->valuestring, 0);
            fail_text(ck, "required", " is required");
            path_pop(ck, mark);
        }
    }
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
    if (!cJSON_IsObject(props)) return;
    for (const cJSON *p = props->child; p; p = p->next) {
        const cJSON *v = p->string ? cJSON_GetObjectItemCaseSensitive(value, p->string) : NULL;
        if (!v) continue;
        size_t mark = path_push(ck, p->string, 0);
        check(ck, p, v, depth + 1);
        path_pop(ck, mark);
    }
}

/* Records every failure of value against schema. */
static void check(checker *ck, const cJSON *schema, const cJSON *value, int depth) {
    if (ck->count > ERRORS_MAX || ck->oom) return;
    if (depth > PARAMS_MAX_DEPTH) {
        /* One failure for the whole value, and the walk stops: a value this
         * deep would repeat it at every leaf. */
        record(ck, "too_deep", "params nesting is too deep");
        ck->count = ERRORS_MAX + 1;
        return;
    }
    if (!cJSON_IsObject(schema)) return; /* true, {} and non-schemas impose nothing */

    const cJSON *en = cJSON_GetObjectItemCaseSensitive(schema, "enum");
    if (cJSON_IsArray(en)) {
        int found = 0;
        for (const cJSON *m = en->child; m && !found; m = m->next) found = json_equal(m, value, 0);
        if (!found) {
            fail_enum(ck, en);
            return;
        }
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(schema, "type");
    if ((cJSON_IsString(type) || cJSON_IsArray(type)) && check_type(ck, type, value)) return;

    /* The object and array keywords apply to values of that kind (JSON
     * Schema semantics), whether or not "type" says so. */
    if (cJSON_IsObject(value)) {
        check_object(ck, schema, value, depth);
    } else if (cJSON_IsArray(value)) {
        const cJSON *items = cJSON_GetObjectItemCaseSensitive(schema, "items");
        if (!cJSON_IsObject(items)) return; /* the tuple form is outside the subset */
        size_t i = 0;
        for (const cJSON *e = value->child; e; e = e->next, i++) {
            size_t mark = path_push(ck, NULL, i);
            check(ck, items, e, depth + 1);
            path_pop(ck, mark);
        }
    }
}

/* A one-error list for a failure outside the schema walk (bad JSON, no
 * memory); NULL only when even that cannot be allocated. */
static cJSON *single_error(const char *code, const char *message) {
    cJSON *list = cJSON_CreateArray(), *e = cJSON_CreateObject();
    if (!list || !e || !cJSON_AddStringToObject(e, "code", code) || !cJSON_AddArrayToObject(e, "path") ||
        !cJSON_AddStringToObject(e, "message", message)) {
        cJSON_Delete(list);
        cJSON_Delete(e);
        return NULL;
    }
    cJSON_AddItemToArray(list, e);
    return list;
}

cJSON *slop__params_errors(const cJSON *schema, const cJSON *params) {
    if (!schema) return NULL;
    cJSON *empty = NULL;
    if (!params) {
        /* No params at all is an empty object, as the invoke frame sends. */
        empty = cJSON_CreateObject();
        if (!empty) return single_error("out_of_memory", "params could not be checked (out of memory)");
        params = empty;
    }
    checker ck = {{0}, cJSON_CreateArray(), cJSON_CreateArray(), 0, 0};
    slop__buf_puts(&ck.path, "params");
    if (!ck.segs || !ck.errors) ck.oom = 1;
    else check(&ck, schema, params, 0);
    cJSON_Delete(empty);
    free(ck.path.s);
    cJSON_Delete(ck.segs);
    if (ck.oom || ck.path.oom) {
        /* Never report an invalid value as valid just because the list could
         * not be built. */
        cJSON_Delete(ck.errors);
        return single_error("out_of_memory", "params could not be checked (out of memory)");
    }
    if (ck.count == 0) {
        cJSON_Delete(ck.errors);
        return NULL;
    }
    return ck.errors;
}

/* A fresh malloc'd copy of a message; NULL only on OOM. */
static char *message(const char *text) {
    size_t n = strlen(text) + 1;
    char *m = malloc(n);
    if (m) memcpy(m, text, n);
    return m;
}

char *slop__params_check(const cJSON *schema, const cJSON *params) {
    cJSON *errors = slop__params_errors(schema, params);
    if (!errors) return NULL;
    cJSON *first = cJSON_GetObjectItemCaseSensitive(errors->child, "message");
    char *m = message(cJSON_IsString(first) ? first->valuestring : "params are invalid");
    cJSON_Delete(errors);
    return m ? m : message("params are invalid");
}

/* ---- the public wrapper ------------------------------------------------- */

/* Strict parse (json_read.c). NULL with a one-error list such as
 * "params is not valid JSON (number too large for a double)" in *errors. */
static cJSON *parse_whole(const char *what, const char *text, size_t len, cJSON **errors) {
    slop__json_status st;
    const char *why = NULL;
    cJSON *v = slop__json_parse(text, len, TEXT_MAX_DEPTH, &st, NULL, &why);
    if (!v) {
        char m[160];
        if (st == SLOP__JSON_TOO_DEEP) snprintf(m, sizeof m, "%s nesting is too deep", what);
        else snprintf(m, sizeof m, "%s is not valid JSON (%s)", what, why ? why : "out of memory");
        *errors = single_error(st == SLOP__JSON_TOO_DEEP ? "too_deep" : "bad_json", m);
    }
    return v;
}

/* {"errors":[...]} as text for the caller; the plain fallback when even
 * that cannot be built (never "valid"). */
static char *errors_text(cJSON *errors) {
    cJSON *o = cJSON_CreateObject();
    char *t = NULL;
    if (o && errors && cJSON_AddItemToObject(o, "errors", errors)) {
        errors = NULL;
        t = slop__json_print(o);
    }
    cJSON_Delete(errors);
    cJSON_Delete(o);
    return t ? t : message("{\"errors\":[{\"code\":\"out_of_memory\",\"path\":[],\"message\":\"params could not be checked (out of memory)\"}]}");
}

char *slop_validate_params(const char *schema, size_t schema_len,
                           const char *params, size_t params_len) {
    /* NULL or empty means "none", as for slop_consumer_invoke's params. */
    if (!schema || schema_len == 0) return NULL;
    cJSON *errors = NULL;
    cJSON *s = parse_whole("schema", schema, schema_len, &errors);
    if (!s) return errors_text(errors);
    cJSON *p = NULL;
    if (params && params_len > 0) {
        p = parse_whole("params", params, params_len, &errors);
        if (!p) {
            cJSON_Delete(s);
            return errors_text(errors);
        }
    }
    errors = slop__params_errors(s, p);
    cJSON_Delete(s);
    cJSON_Delete(p);
    return errors ? errors_text(errors) : NULL;
}
