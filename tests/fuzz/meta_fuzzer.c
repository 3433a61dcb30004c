/*
 * meta_fuzzer.c: libFuzzer target for slop_parse_meta and
 * slop_classify_target. Input: meta content, page URL and a target URL,
 * separated by NUL or newline. Checks that a resolved ws URL parses back
 * to itself and that a URL classified against its own page is same-origin.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cJSON.h"
#include "slop_core.h"

/* The next field of the input as a malloc'd NUL-terminated string. */
static char *field(const char **p, const char *end) {
    const char *s = *p;
    while (*p < end && **p != '\0' && **p != '\n') (*p)++;
    size_t n = (size_t)(*p - s);
    if (*p < end) (*p)++;
    char *out = malloc(n + 1);
    if (out) {
        memcpy(out, s, n);
        out[n] = '\0';
    }
    return out;
}

static const char *str_member(const cJSON *o, const char *a, const char *b) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *p = (const char *)data, *end = p + size;
    char *content = field(&p, end), *page = field(&p, end), *target = field(&p, end);
    if (!content || !page || !target) goto done;

    char *meta = slop_parse_meta(content, page);
    cJSON *m = meta ? cJSON_Parse(meta) : NULL;
    if (meta && !m) __builtin_trap();
    const char *url = str_member(m, "transport", "url");
    if (url) {
        /* Normalisation is idempotent. */
        char *again = slop_parse_meta(url, page);
        if (again && strcmp(again, meta) != 0) __builtin_trap();
        free(again);
        free(slop_classify_target(page, url));
    }
    cJSON_Delete(m);
    free(meta);

    char *c = slop_classify_target(page, target);
    cJSON *r = c ? cJSON_Parse(c) : NULL;
    if (c && !r) __builtin_trap();
    const cJSON *origin = cJSON_GetObjectItemCaseSensitive(r, "page_origin");
    if (cJSON_IsString(origin)) {
        /* A page's own origin names the same host. */
        char *self = slop_classify_target(page, origin->valuestring);
        if (self && !strstr(self, "\"same-origin\"")) __builtin_trap();
        free(self);
    }
    cJSON_Delete(r);
    free(c);
done:
    free(content);
    free(page);
    free(target);
    return 0;
}
