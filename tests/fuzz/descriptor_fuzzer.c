/*
 * descriptor_fuzzer.c: libFuzzer target for slop_parse_descriptor and
 * slop_parse_local_descriptor (the same input through both), and for the
 * local name check (slop_local_refusal with SLOP_LOCAL_NAME).
 * Checks that each result is always {"ok":bool,...} JSON, that an accepted
 * descriptor's normalised form is accepted again unchanged, and that a name
 * the check passes has the spec's shape.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cJSON.h"
#include "slop_core.h"

static void check(char *(*parse)(const char *, size_t), const uint8_t *data, size_t size) {
    char *out = parse((const char *)data, size);
    if (!out) return; /* out of memory */
    cJSON *r = cJSON_Parse(out);
    if (!r) __builtin_trap();
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(r, "ok");
    if (!cJSON_IsBool(ok)) __builtin_trap();
    if (cJSON_IsTrue(ok)) {
        char *norm = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(r, "descriptor"));
        if (norm) {
            char *again = parse(norm, strlen(norm));
            if (again && strcmp(again, out) != 0) __builtin_trap();
            free(again);
            free(norm);
        }
    } else if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, "error"))) {
        __builtin_trap();
    }
    cJSON_Delete(r);
    free(out);
}

/* A name that passes: [a-z0-9] first, [a-z0-9._-] after, ".json" last, at most 69 bytes. */
static void check_name(const uint8_t *data, size_t size) {
    if (size > 200) size = 200;
    char name[201];
    memcpy(name, data, size);
    name[size] = '\0';
    char *r = slop_local_refusal(SLOP_LOCAL_NAME, name, 0, 0, 0, 0);
    if (r) {
        free(r);
        return;
    }
    size_t n = strlen(name);
    if (n < 6 || n > 69 || strcmp(name + n - 5, ".json") != 0 || strchr(name, '/') || name[0] == '.') __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check(slop_parse_descriptor, data, size);
    check(slop_parse_local_descriptor, data, size);
    check_name(data, size);
    return 0;
}
