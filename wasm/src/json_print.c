/*
 * json_print.c: the one JSON printer of the core. Everything the core hands
 * out (events, frames, node views, trees, exports) is printed here, not by
 * cJSON_Print*: cJSON prints a double with 15 significant digits whenever
 * that reads back within one ULP, so 0.30000000000000004 came out as 0.3 and
 * the mirror differed from the provider. Here every number is printed with
 * the fewest digits that parse back to the very same double, or, when that
 * is not the text the provider wrote (1.50, 1E5, 64-bit integers), with the
 * provider's text, which the parse kept (json_read.c, b_number).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Powers of ten a double holds exactly. */
static const double exact_tens[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};

/* A decimal with at most 8 decimals and 15 significant digits (0.37, 12.25,
 * -1.5), written by hand as %.15g would write it: with at most 15 digits the
 * decimal that reads back as d is the one %.15g rounds d to, and the
 * shortest such is the one with the fewest decimals. It reads back as d when
 * m / 10^k == d, m and 10^k both exact, the division correctly rounded.
 * printf's floating-point path does long double arithmetic, in software in
 * wasm. 0 when d is not such a decimal. */
static size_t short_decimal(double d, char *out) {
    double a = fabs(d);
    if (!(a >= 1e-4 && a < 1e7)) return 0; /* %g writes an exponent below 1e-4 */
    for (int k = 1; k <= 8; k++) {
        double scaled = a * exact_tens[k];
        if (scaled >= 1e15) return 0;
        unsigned long long m = (unsigned long long)(scaled + 0.5);
        if ((double)m / exact_tens[k] != a) continue;
        char digits[24];
        size_t nd = 0, n = 0;
        do digits[nd++] = (char)('0' + m % 10); while ((m /= 10) != 0);
        while (nd <= (size_t)k) digits[nd++] = '0'; /* a 0 before the point */
        if (d < 0) out[n++] = '-';
        while (nd > (size_t)k) out[n++] = digits[--nd];
        out[n++] = '.';
        while (nd) out[n++] = digits[--nd];
        out[n] = '\0';
        return n;
    }
    return 0;
}

size_t slop__format_number(double d, char out[SLOP__NUMBER_BUF]) {
    int n;
    if (!isfinite(d)) n = snprintf(out, SLOP__NUMBER_BUF, "null"); /* never reaches here: frames refuse them */
    else if (d == 0) { /* by hand, as integers below: counters and indexes are often 0 */
        n = 0;
        if (signbit(d)) out[n++] = '-';
        out[n++] = '0';
        out[n] = '\0';
    }
    else if (fabs(d) < 9007199254740992.0 && d == floor(d)) { /* below 2^53: exact as an integer */
        /* Versions, seqs, counts and indexes are integers on every event: written by hand,
         * they skip printf's floating-point path. */
        char tmp[24];
        unsigned long long u = (unsigned long long)fabs(d);
        size_t k = 0;
        do tmp[k++] = (char)('0' + u % 10); while ((u /= 10) != 0);
        n = 0;
        if (d < 0) out[n++] = '-';
        while (k) out[n++] = tmp[--k];
        out[n] = '\0';
    } else if (fabs(d) < 1e17 && d == floor(d)) n = snprintf(out, SLOP__NUMBER_BUF, "%.0f", d); /* exact */
    else if ((n = (int)short_decimal(d, out)) > 0) {
    } else {
        /* 15 digits print the shortest form whenever it has 15 or fewer
         * (subnormals excepted: they carry fewer significant bits); the
         * first precision that reads back exactly is the shortest. */
        for (int prec = fabs(d) < DBL_MIN ? 1 : 15;; prec++) {
            n = snprintf(out, SLOP__NUMBER_BUF, "%.*g", prec, d);
            if (prec == 17 || strtod(out, NULL) == d) break;
        }
    }
    return n > 0 ? (size_t)n : 0;
}

/* The characters of s escaped for a JSON string, without the quotes. */
static void put_string_body(slop__buf *b, const char *s) {
    const unsigned char *u = (const unsigned char *)s;
    for (;;) {
        const unsigned char *run = u;
        while (*u >= 0x20 && *u != '"' && *u != '\\') u++;
        slop__buf_putn(b, (const char *)run, (size_t)(u - run));
        if (!*u) break;
        char esc[2] = {'\\', 0};
        switch (*u) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        }
        if (esc[1]) slop__buf_putn(b, esc, 2);
        else slop__buf_put_u00(b, *u);
        u++;
    }
}

void slop__buf_put_string(slop__buf *b, const char *s) {
    slop__buf_putc(b, '"');
    put_string_body(b, s ? s : "");
    slop__buf_putc(b, '"');
}

void slop__buf_put_path(slop__buf *b, const char *root, const char *rel) {
    slop__buf_putc(b, '"');
    if (strcmp(rel, "/") == 0) put_string_body(b, root);
    else {
        if (strcmp(root, "/") != 0) put_string_body(b, root);
        put_string_body(b, rel);
    }
    slop__buf_putc(b, '"');
}

static void put_value(slop__buf *b, const cJSON *v) {
    char num[SLOP__NUMBER_BUF];
    switch (v->type & 0xFF) {
    case cJSON_False: slop__buf_putn(b, "false", 5); break;
    case cJSON_True: slop__buf_putn(b, "true", 4); break;
    case cJSON_NULL: slop__buf_putn(b, "null", 4); break;
    case cJSON_Number: /* with the provider's text when the double would print otherwise (json_read.c) */
        if (v->valuestring) slop__buf_putn(b, v->valuestring, strlen(v->valuestring));
        else slop__buf_putn(b, num, slop__format_number(v->valuedouble, num));
        break;
    case cJSON_String: slop__buf_put_string(b, v->valuestring); break;
    case cJSON_Raw:
        if (v->valuestring) slop__buf_putn(b, v->valuestring, strlen(v->valuestring));
        break;
    case cJSON_Array:
    case cJSON_Object: {
        int obj = (v->type & 0xFF) == cJSON_Object;
        slop__buf_putn(b, obj ? "{" : "[", 1);
        for (const cJSON *it = v->child; it; it = it->next) {
            if (it != v->child) slop__buf_putn(b, ",", 1);
            if (obj) {
                slop__buf_put_string(b, it->string);
                slop__buf_putn(b, ":", 1);
            }
            put_value(b, it);
        }
        slop__buf_putn(b, obj ? "}" : "]", 1);
        break;
    }
    default: slop__buf_putn(b, "null", 4); break; /* cJSON_Invalid */
    }
}

void slop__buf_put_number(slop__buf *b, double d) {
    char num[SLOP__NUMBER_BUF];
    slop__buf_putn(b, num, slop__format_number(d, num));
}

void slop__buf_put_json(slop__buf *b, const cJSON *v) { put_value(b, v); }

char *slop__json_print(const cJSON *v) {
    if (!v) return NULL;
    slop__buf b = {0};
    put_value(&b, v);
    return slop__buf_take(&b);
}

char *slop__json_print_free(cJSON *v) {
    char *s = slop__json_print(v);
    cJSON_Delete(v);
    return s;
}
