/*
 * params_fuzzer.c: libFuzzer target for slop_validate_params.
 * Input: schema JSON, then a NUL or newline, then params JSON (absent
 * params when there is no separator).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cJSON.h"

#include "slop_core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    size_t cut = 0;
    while (cut < size && text[cut] != '\0' && text[cut] != '\n') cut++;
    const char *params = cut < size ? text + cut + 1 : NULL;
    size_t params_len = cut < size ? size - cut - 1 : 0;

    char *err = slop_validate_params(text, cut, params, params_len);
    /* A list of failures, each with a path array and a message that names
     * its subject; anything else is a bug. */
    if (err) {
        cJSON *j = cJSON_Parse(err);
        cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "errors");
        if (!cJSON_IsArray(list) || !list->child) __builtin_trap();
        for (cJSON *e = list->child; e; e = e->next) {
            cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
            if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(e, "path")) || !cJSON_IsString(m) ||
                (strncmp(m->valuestring, "params", 6) != 0 && strncmp(m->valuestring, "schema", 6) != 0))
                __builtin_trap();
        }
        cJSON_Delete(j);
    }
    free(err);
    return 0;
}
