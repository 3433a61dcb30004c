/*
 * json_scan_fuzzer.c: the core's one-pass JSON parse against cJSON's own.
 * The core validates and builds in one pass (json_read.c); cJSON's parse
 * is the reference for what it builds. Where the validating scanner alone
 * accepts a text, both parses must accept it and build the same values
 * (types, names in order, strings byte for byte, numbers the same double
 * with the same valueint; an integer kept as its digits only where cJSON
 * has that very double); where it refuses, the parse refuses at the same
 * byte for the same reason. A frame parsed into an arena builds the same
 * values as one parsed onto the heap. And what is accepted comes out of the
 * core's printer exactly: a number keeps its text only where the printer
 * would write its double otherwise, and a text that is one number prints
 * back as itself. Traps otherwise.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A well-linked child list: the first one's prev is the last (cJSON's
 * lookups and appends rely on it). */
static int linked(const cJSON *v) {
    const cJSON *last = NULL;
    for (const cJSON *k = v->child; k; k = k->next) {
        if (k != v->child && k->prev != last) return 0;
        last = k;
    }
    return !v->child || v->child->prev == last;
}

/* a (the core's) against b (cJSON's, or the core's again): same structure,
 * same member names in order, numbers equal as doubles (sign of zero
 * included) unless a keeps the digits of b's double, strings equal byte
 * for byte. */
static int same(const cJSON *a, const cJSON *b) {
    if ((a->string == NULL) != (b->string == NULL) || (a->string && strcmp(a->string, b->string) != 0)) return 0;
    if (cJSON_IsRaw(a) && cJSON_IsNumber(b)) return strlen(a->valuestring) >= 16 && strtod(a->valuestring, NULL) == b->valuedouble;
    if ((a->type & 0xFF) != (b->type & 0xFF)) return 0;
    if (cJSON_IsNumber(a))
        return isfinite(a->valuedouble) && a->valuedouble == b->valuedouble &&
               signbit(a->valuedouble) == signbit(b->valuedouble) && a->valueint == b->valueint;
    if (cJSON_IsString(a) || cJSON_IsRaw(a)) return strcmp(a->valuestring, b->valuestring) == 0;
    if (cJSON_IsTrue(a) && a->valueint != b->valueint) return 0;
    if (!linked(a)) return 0;
    const cJSON *x = a->child, *y = b->child;
    for (; x && y; x = x->next, y = y->next)
        if (!same(x, y)) return 0;
    return x == NULL && y == NULL;
}

/* Every number that keeps its text (valuestring) reads as its value and
 * would be printed otherwise from the double (json_read.c keeps no more
 * than it must); a Raw one is an integer literal. */
static int texts_kept_right(const cJSON *v) {
    if (cJSON_IsNumber(v) || cJSON_IsRaw(v)) {
        if (!v->valuestring) return cJSON_IsNumber(v);
        double d = strtod(v->valuestring, NULL);
        char printed[SLOP__NUMBER_BUF];
        size_t k = slop__format_number(v->valuedouble, printed);
        if (d != v->valuedouble || signbit(d) != signbit(v->valuedouble)) return 0;
        if (k == strlen(v->valuestring) && memcmp(printed, v->valuestring, k) == 0) return 0;
        return !cJSON_IsRaw(v) || strcspn(v->valuestring, ".eE") == strlen(v->valuestring);
    }
    for (const cJSON *k = v->child; k; k = k->next)
        if (!texts_kept_right(k)) return 0;
    return 1;
}

/* Every number prints as printf's shortest %.*g that reads back (the
 * printer's by-hand paths, integers and short decimals, included). */
static int prints_like_printf(const cJSON *v) {
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
        char mine[SLOP__NUMBER_BUF], ref[SLOP__NUMBER_BUF];
        size_t k = slop__format_number(v->valuedouble, mine);
        double d = v->valuedouble;
        int n = 0;
        if (d == 0 || (fabs(d) < 1e17 && d == floor(d))) return 1; /* integers: %.0f, 0 and -0 */
        for (int prec = fabs(d) < DBL_MIN ? 1 : 15;; prec++) {
            n = snprintf(ref, sizeof ref, "%.*g", prec, d);
            if (prec == 17 || strtod(ref, NULL) == d) break;
        }
        if ((size_t)n != k || memcmp(mine, ref, k) != 0) return 0;
    }
    for (const cJSON *k = v->child; k; k = k->next)
        if (!prints_like_printf(k)) return 0;
    return 1;
}

/* A frame against the same text parsed whole: a snapshot's tree left as
 * text (a null in the frame) parses to the whole parse's tree member. */
static int same_frame(const cJSON *frame, const slop__frame_info *fi, const cJSON *whole) {
    if (!fi->tree) return same(frame, whole);
    if (!cJSON_IsObject(frame) || !cJSON_IsObject(whole)) return 0;
    const cJSON *x = frame->child, *y = whole->child;
    for (; x && y; x = x->next, y = y->next) {
        if (strcmp(x->string, "tree") == 0 && cJSON_IsNull(x) && cJSON_IsObject(y)) {
            slop__json_status st;
            cJSON *t = slop__json_parse(fi->tree, fi->tree_len, 64, &st, NULL, NULL);
            int ok = t && cJSON_Compare(t, y, 1);
            cJSON_Delete(t);
            if (!ok) return 0;
        } else if (!same(x, y)) {
            return 0;
        }
    }
    return x == NULL && y == NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *s = (const char *)data;
    /* The scanner alone: the verdict. */
    slop__scan sc;
    slop__scan_init(&sc, s, size, 64);
    int ok = slop__scan_value(&sc) == 0;
    if (ok) {
        slop__scan_ws(&sc);
        ok = sc.pos == size;
    }
    /* The heap parse agrees, to the byte where it stopped. */
    slop__json_status st;
    size_t at = 0;
    const char *why = NULL;
    cJSON *v = slop__json_parse(s, size, 64, &st, &at, &why);
    if ((v != NULL) != ok) __builtin_trap();
    if (!ok && sc.why && (at != sc.pos || strcmp(why, sc.why) != 0 || (st == SLOP__JSON_TOO_DEEP) != sc.too_deep))
        __builtin_trap();
    slop__scan_free(&sc);
    /* The frame parse, into an arena: as lenient only inside a snapshot's
     * tree, which it leaves for the mirror to validate. */
    slop__arena arena = {0};
    slop__frame_info fi;
    cJSON *frame = slop__parse_frame(s, size, 64, &arena, &fi);
    if (!frame && ok) __builtin_trap();
    if (frame && !ok && !fi.tree) __builtin_trap();
    if (ok) {
        cJSON *ref = cJSON_ParseWithLength(s, size);
        if (!ref || !same(v, ref) || !same_frame(frame, &fi, v)) __builtin_trap();
        cJSON_Delete(ref);
        char *printed = slop__json_print(v);
        cJSON *again = printed ? slop__json_parse(printed, strlen(printed), 64, &st, NULL, NULL) : NULL;
        /* same(), not cJSON_Compare: cJSON 1.7.15 compares an object's members
         * from both sides, each recursively, 2^depth work on nested objects
         * (a 10 s timeout, kept in the inputs as nested-objects-compare). */
        if (!again || !same(again, v) || !texts_kept_right(v)) __builtin_trap();
        if (!prints_like_printf(v)) __builtin_trap();
        /* one number alone: its own text (whitespace around it aside), whatever
         * the printer makes of doubles */
        if (cJSON_IsNumber(v) || cJSON_IsRaw(v)) {
            size_t from = 0, to = size;
            while (from < to && s[from] != '-' && (s[from] < '0' || s[from] > '9')) from++; /* JSON whitespace */
            while (to > from && (s[to - 1] < '0' || s[to - 1] > '9')) to--;
            if (!printed || strlen(printed) != to - from || memcmp(printed, s + from, to - from) != 0) __builtin_trap();
        }
        free(printed);
        cJSON_Delete(again);
    }
    cJSON_Delete(v);
    slop__arena_reset(&arena);
    slop__arena_free(&arena);
    /* A single string value: the scanner's decoder and cJSON's agree. */
    slop__scan_init(&sc, s, size, 64);
    size_t n = 0;
    if (size && s[0] == '"' && slop__scan_string(&sc, &n) == 0 && sc.pos == size) {
        cJSON *str = cJSON_ParseWithLength(s, size);
        if (!cJSON_IsString(str) || strlen(str->valuestring) != n || memcmp(str->valuestring, sc.buf, n) != 0)
            __builtin_trap();
        cJSON_Delete(str);
    }
    slop__scan_free(&sc);
    return 0;
}
