/*
 * json_limits.c: one strict way in for JSON text. cJSON parses recursively,
 * so text nested thousands deep could exhaust the small, fixed wasm stack
 * before cJSON's own limit trips; a linear pre-scan refuses it first. The
 * scan also refuses raw control characters, which cJSON would accept inside
 * strings or skip as whitespace, and the parse refuses trailing garbage.
 */
#include "internal.h"

unsigned slop__json_nesting(const char *s, size_t len) {
    unsigned depth = 0, max = 0;
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (in_string) {
            if (c == '\\') i++; /* skip the escaped character */
            else if (c == '"') in_string = 0;
            else if (c < 0x20) return SLOP__JSON_INVALID;
            continue;
        }
        switch (c) {
        case '"': in_string = 1; break;
        case '{': case '[':
            if (++depth > max) max = depth;
            break;
        case '}': case ']':
            if (depth) depth--;
            break;
        case ' ': case '\t': case '\n': case '\r': break;
        default:
            if (c < 0x20) return SLOP__JSON_INVALID;
            break;
        }
    }
    return max;
}

cJSON *slop__json_parse(const char *s, size_t len, unsigned max_depth, slop__json_status *status,
                        size_t *offset) {
    if (offset) *offset = 0;
    unsigned depth = s ? slop__json_nesting(s, len) : SLOP__JSON_INVALID;
    if (depth == SLOP__JSON_INVALID) {
        *status = SLOP__JSON_BAD;
        return NULL;
    }
    if (depth > max_depth) {
        *status = SLOP__JSON_TOO_DEEP;
        return NULL;
    }
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(s, len, &end, 0);
    if (!v) {
        if (offset && end && end >= s) *offset = (size_t)(end - s);
        *status = SLOP__JSON_BAD;
        return NULL;
    }
    size_t off = (size_t)(end - s);
    while (off < len && (s[off] == ' ' || s[off] == '\t' || s[off] == '\n' || s[off] == '\r')) off++;
    if (off != len) { /* trailing bytes after the value */
        cJSON_Delete(v);
        if (offset) *offset = off;
        *status = SLOP__JSON_BAD;
        return NULL;
    }
    *status = SLOP__JSON_OK;
    return v;
}
