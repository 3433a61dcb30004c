/*
 * descriptor_fuzzer.c: libFuzzer target for slop_parse_descriptor.
 * Checks that the result is always {"ok":bool,...} JSON and that an
 * accepted descriptor's normalised form is accepted again unchanged.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cJSON.h"
#include "slop_core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *out = slop_parse_descriptor((const char *)data, size);
    if (!out) return 0; /* out of memory */
    cJSON *r = cJSON_Parse(out);
    if (!r) __builtin_trap();
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(r, "ok");
    if (!cJSON_IsBool(ok)) __builtin_trap();
    if (cJSON_IsTrue(ok)) {
        char *norm = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(r, "descriptor"));
        if (norm) {
            char *again = slop_parse_descriptor(norm, strlen(norm));
            if (again && strcmp(again, out) != 0) __builtin_trap();
            free(again);
            free(norm);
        }
    } else if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, "error"))) {
        __builtin_trap();
    }
    cJSON_Delete(r);
    free(out);
    return 0;
}
