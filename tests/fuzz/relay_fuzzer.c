/*
 * relay_fuzzer.c: libFuzzer target for the relay (slop_relay_*): the outside
 * consumer's messages and the shared channel's provider frames. Input: lines;
 * a line starting with '>' goes out (from the outside consumer), a line that
 * is exactly "open" opens the relay (slop_relay_open), any other line comes in
 * (from the provider). Checks that every answer is strict JSON, that what goes
 * out carries the relay's prefix on its id (a connect: no id at all), that a
 * message the relay keeps ("forward": false) carries nothing to send, that an
 * opening asks for nothing but a connect, that what comes back is one message
 * with a type, and that closing unsubscribes each id once.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cJSON.h"
#include "slop_core.h"

static void check_json(const char *s) {
    cJSON *v = s ? cJSON_Parse(s) : NULL;
    if (s && !v) __builtin_trap();
    cJSON_Delete(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    slop_relay *r = slop_relay_new("fz");
    if (!r) return 0;
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *line = p;
        while (p < end && *p != '\n') p++;
        size_t n = (size_t)(p - line);
        if (p < end) p++;
        if (n == 4 && memcmp(line, "open", 4) == 0) {
            char *hi = slop_relay_open(r);
            if (hi && strcmp(hi, "{\"type\":\"connect\"}") != 0) __builtin_trap();
            free(hi);
        } else if (n > 0 && line[0] == '>') {
            char *o = slop_relay_outbound(r, line + 1, n - 1);
            cJSON *v = o ? cJSON_Parse(o) : NULL;
            if (o && !v) __builtin_trap();
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "message"), "id");
            /* Every id that goes out is the relay's (prefixed); a connect goes with none. */
            const cJSON *ty = cJSON_GetObjectItemCaseSensitive(v, "type");
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "ok")) &&
                ((id && !cJSON_IsString(id)) || (cJSON_IsString(id) && strncmp(id->valuestring, "fz~", 3) != 0) ||
                 (cJSON_IsString(ty) && strcmp(ty->valuestring, "connect") == 0 && id)))
                __builtin_trap();
            /* Kept by the relay: nothing to send. */
            if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(v, "forward")) && cJSON_GetObjectItemCaseSensitive(v, "message"))
                __builtin_trap();
            cJSON_Delete(v);
            free(o);
        } else {
            size_t back_len = 0;
            char *back = slop_relay_inbound(r, line, n, &back_len);
            if (back && strlen(back) != back_len) __builtin_trap();
            cJSON *v = back ? cJSON_Parse(back) : NULL;
            if (back && !v) __builtin_trap();
            /* Only frames of the shared channel's kinds come back. */
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(v, "type");
            if (v && !cJSON_IsString(t)) __builtin_trap();
            cJSON_Delete(v);
            free(back);
        }
    }
    char *bye = slop_relay_close(r);
    check_json(bye);
    /* One unsubscribe per id, however often it was subscribed. */
    cJSON *list = bye ? cJSON_Parse(bye) : NULL;
    for (const cJSON *a = list ? list->child : NULL; a; a = a->next)
        for (const cJSON *b = a->next; b; b = b->next)
            if (cJSON_Compare(cJSON_GetObjectItemCaseSensitive(a, "id"), cJSON_GetObjectItemCaseSensitive(b, "id"), 1))
                __builtin_trap();
    cJSON_Delete(list);
    free(bye);
    slop_relay_free(r);
    return 0;
}
