/*
 * json_limits.c: a pre-parse scan of JSON text. cJSON parses recursively, so
 * a frame nested thousands deep could exhaust the (small, fixed) wasm stack
 * before cJSON's own limit trips; this linear scan lets the core refuse such
 * a frame with a clear error first.
 */
#include "internal.h"

unsigned slop__json_nesting(const char *s, size_t len) {
    unsigned depth = 0, max = 0;
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\') i++;          /* skip the escaped character */
            else if (c == '"') in_string = 0;
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
        default: break;
        }
    }
    return max;
}
