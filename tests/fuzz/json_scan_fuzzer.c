/*
 * json_scan_fuzzer.c: the core's validating JSON scanner against cJSON.
 * Field values the scanner accepts stay raw and are parsed by cJSON later,
 * so "the scanner accepts" must imply "cJSON parses it" and the decoded
 * strings must agree. And what the scanner accepts must come out of the
 * core's printer exactly: printed and read again, every number is the very
 * same double and every string the same bytes. Traps otherwise.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Same structure, same member names in order, numbers equal as doubles
 * (sign of zero included), strings equal byte for byte. */
static int same(const cJSON *a, const cJSON *b) {
    if ((a->type & 0xFF) != (b->type & 0xFF)) return 0;
    if ((a->string == NULL) != (b->string == NULL) || (a->string && strcmp(a->string, b->string) != 0)) return 0;
    if (cJSON_IsNumber(a))
        return isfinite(a->valuedouble) && a->valuedouble == b->valuedouble &&
               signbit(a->valuedouble) == signbit(b->valuedouble);
    if (cJSON_IsString(a)) return strcmp(a->valuestring, b->valuestring) == 0;
    const cJSON *x = a->child, *y = b->child;
    for (; x && y; x = x->next, y = y->next)
        if (!same(x, y)) return 0;
    return x == NULL && y == NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *s = (const char *)data;
    slop__frame_info fi;
    int ok = slop__scan_frame(s, size, 64, &fi) == 0;
    if (ok && fi.is_snapshot && fi.tree) {
        /* A snapshot's tree is only delimited here; the mirror builder
         * validates it. Validate it the same way before comparing. */
        slop__scan t;
        slop__scan_init(&t, fi.tree, fi.tree_len, 64);
        ok = slop__scan_value(&t) == 0 && t.pos == fi.tree_len;
        slop__scan_free(&t);
    }
    if (ok) {
        cJSON *v = cJSON_ParseWithLength(s, size);
        if (!v) __builtin_trap();
        char *printed = slop__json_print(v);
        cJSON *again = printed ? cJSON_Parse(printed) : NULL;
        if (!again || !same(v, again)) __builtin_trap();
        free(printed);
        cJSON_Delete(again);
        cJSON_Delete(v);
        /* Integers kept as the provider's digits print as they came and read
         * back the same. */
        cJSON *x = slop__json_parse_exact(s, size);
        char *xp = x ? slop__json_print(x) : NULL;
        cJSON *xa = xp ? slop__json_parse_exact(xp, strlen(xp)) : NULL;
        if (!xa || !cJSON_Compare(x, xa, 1)) __builtin_trap();
        /* The scanner's long_int flag never misses one: a parse that trusts
         * it keeps the same integers as one that looks for itself. */
        slop__json_status st;
        cJSON *viaflag = slop__json_parse(s, size, 64, &st, NULL, NULL);
        if (viaflag && !cJSON_Compare(x, viaflag, 1)) __builtin_trap();
        cJSON_Delete(viaflag);
        free(xp);
        cJSON_Delete(xa);
        cJSON_Delete(x);
    }
    /* A single string value: both decoders must produce the same bytes. */
    slop__scan sc;
    slop__scan_init(&sc, s, size, 64);
    size_t n = 0;
    if (size && s[0] == '"' && slop__scan_string(&sc, &n) == 0 && sc.pos == size) {
        cJSON *v = cJSON_ParseWithLength(s, size);
        if (!cJSON_IsString(v) || strlen(v->valuestring) != n || memcmp(v->valuestring, sc.buf, n) != 0)
            __builtin_trap();
        cJSON_Delete(v);
    }
    slop__scan_free(&sc);
    return 0;
}
