/*
 * params_fuzzer.c: libFuzzer target for slop_validate_params.
 * Input: schema JSON, then a NUL or newline, then params JSON (absent
 * params when there is no separator).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slop_core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    size_t cut = 0;
    while (cut < size && text[cut] != '\0' && text[cut] != '\n') cut++;
    const char *params = cut < size ? text + cut + 1 : NULL;
    size_t params_len = cut < size ? size - cut - 1 : 0;

    char *err = slop_validate_params(text, cut, params, params_len);
    /* Every message names its subject; anything else is a bug. */
    if (err && strncmp(err, "params", 6) != 0 && strncmp(err, "schema", 6) != 0) __builtin_trap();
    free(err);
    return 0;
}
