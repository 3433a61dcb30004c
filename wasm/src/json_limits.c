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

/* ---------------------------------------------------------------------- */
/* Validating scanner                                                       */
/* ---------------------------------------------------------------------- */

#include <stdlib.h>
#include <string.h>

void slop__scan_init(slop__scan *sc, const char *s, size_t len, unsigned max_depth) {
    memset(sc, 0, sizeof *sc);
    sc->s = s;
    sc->len = len;
    sc->max_depth = max_depth;
}

void slop__scan_free(slop__scan *sc) {
    free(sc->buf);
    sc->buf = NULL;
    sc->cap = 0;
}

void slop__scan_ws(slop__scan *sc) {
    while (sc->pos < sc->len) {
        char c = sc->s[sc->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        sc->pos++;
    }
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int hex4(const slop__scan *sc, size_t at, unsigned *out) {
    if (at + 4 > sc->len) return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(sc->s[at + (size_t)i]);
        if (h < 0) return -1;
        v = v << 4 | (unsigned)h;
    }
    *out = v;
    return 0;
}

/* Walks a string at sc->pos (on its opening quote). With decode, writes the
 * UTF-8 value to sc->buf (NUL-terminated, *n its length; a \u0000 in it is
 * refused since C strings cannot hold it). Surrogates follow cJSON's rules,
 * so whatever passes here cJSON parses too. */
static int scan_string(slop__scan *sc, int decode, size_t *n) {
    size_t i = sc->pos + 1, o = 0;
    if (decode) {
        size_t need = 64;
        if (sc->cap < need) {
            char *nb = realloc(sc->buf, need);
            if (!nb) return -1;
            sc->buf = nb;
            sc->cap = need;
        }
    }
    for (;;) {
        if (!decode) { /* fast path: run over plain characters */
            const unsigned char *u = (const unsigned char *)sc->s;
            while (i < sc->len && u[i] != '"' && u[i] != '\\' && u[i] >= 0x20) i++;
        }
        if (i >= sc->len) return -1;
        unsigned char c = (unsigned char)sc->s[i];
        if (decode && o + 8 >= sc->cap) {
            char *nb = realloc(sc->buf, sc->cap * 2);
            if (!nb) return -1;
            sc->buf = nb;
            sc->cap *= 2;
        }
        if (c == '"') break;
        if (c < 0x20) return -1;
        if (c != '\\') {
            if (decode) sc->buf[o++] = (char)c;
            i++;
            continue;
        }
        if (i + 1 >= sc->len) return -1;
        char e = sc->s[i + 1];
        char plain = 0;
        switch (e) {
        case '"': plain = '"'; break;
        case '\\': plain = '\\'; break;
        case '/': plain = '/'; break;
        case 'b': plain = '\b'; break;
        case 'f': plain = '\f'; break;
        case 'n': plain = '\n'; break;
        case 'r': plain = '\r'; break;
        case 't': plain = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (hex4(sc, i + 2, &cp) != 0) return -1;
            i += 6;
            if (cp >= 0xDC00 && cp <= 0xDFFF) return -1; /* lone low surrogate */
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (i + 1 >= sc->len || sc->s[i] != '\\' || sc->s[i + 1] != 'u' || hex4(sc, i + 2, &lo) != 0 ||
                    lo < 0xDC00 || lo > 0xDFFF)
                    return -1;
                i += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            if (decode) {
                if (cp == 0) return -1;
                if (cp < 0x80) sc->buf[o++] = (char)cp;
                else if (cp < 0x800) {
                    sc->buf[o++] = (char)(0xC0 | cp >> 6);
                    sc->buf[o++] = (char)(0x80 | (cp & 0x3F));
                } else if (cp < 0x10000) {
                    sc->buf[o++] = (char)(0xE0 | cp >> 12);
                    sc->buf[o++] = (char)(0x80 | (cp >> 6 & 0x3F));
                    sc->buf[o++] = (char)(0x80 | (cp & 0x3F));
                } else {
                    sc->buf[o++] = (char)(0xF0 | cp >> 18);
                    sc->buf[o++] = (char)(0x80 | (cp >> 12 & 0x3F));
                    sc->buf[o++] = (char)(0x80 | (cp >> 6 & 0x3F));
                    sc->buf[o++] = (char)(0x80 | (cp & 0x3F));
                }
            }
            continue;
        }
        default: return -1;
        }
        if (decode) sc->buf[o++] = plain;
        i += 2;
    }
    if (decode) {
        sc->buf[o] = 0;
        if (n) *n = o;
    }
    sc->pos = i + 1;
    return 0;
}

int slop__scan_string(slop__scan *sc, size_t *n) {
    if (sc->pos >= sc->len || sc->s[sc->pos] != '"') return -1;
    return scan_string(sc, 1, n);
}

static int scan_number(slop__scan *sc) {
    size_t i = sc->pos;
    const char *s = sc->s;
    if (i < sc->len && s[i] == '-') i++;
    if (i >= sc->len) return -1;
    if (s[i] == '0') i++;
    else if (s[i] >= '1' && s[i] <= '9')
        while (i < sc->len && s[i] >= '0' && s[i] <= '9') i++;
    else return -1;
    if (i < sc->len && s[i] == '.') {
        i++;
        if (i >= sc->len || s[i] < '0' || s[i] > '9') return -1;
        while (i < sc->len && s[i] >= '0' && s[i] <= '9') i++;
    }
    if (i < sc->len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < sc->len && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= sc->len || s[i] < '0' || s[i] > '9') return -1;
        while (i < sc->len && s[i] >= '0' && s[i] <= '9') i++;
    }
    sc->pos = i;
    return 0;
}

static int scan_literal(slop__scan *sc, const char *lit, size_t n) {
    if (sc->len - sc->pos < n || memcmp(sc->s + sc->pos, lit, n) != 0) return -1;
    sc->pos += n;
    return 0;
}

int slop__scan_next(slop__scan *sc, char close) {
    slop__scan_ws(sc);
    if (sc->pos >= sc->len) return -1;
    if (sc->s[sc->pos] == ',') {
        sc->pos++;
        return 1;
    }
    if (sc->s[sc->pos] != close) return -1;
    sc->pos++;
    return 0;
}

int slop__scan_enter(slop__scan *sc) {
    if (++sc->depth > sc->max_depth) {
        sc->too_deep = 1;
        return -1;
    }
    return 0;
}

int slop__scan_value(slop__scan *sc) {
    slop__scan_ws(sc);
    if (sc->pos >= sc->len) return -1;
    char c = sc->s[sc->pos];
    if (c == '"') return scan_string(sc, 0, NULL);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        if (slop__scan_enter(sc) != 0) return -1;
        sc->pos++;
        slop__scan_ws(sc);
        if (sc->pos < sc->len && sc->s[sc->pos] == close) {
            sc->pos++;
            sc->depth--;
            return 0;
        }
        for (;;) {
            if (c == '{') {
                slop__scan_ws(sc);
                if (sc->pos >= sc->len || sc->s[sc->pos] != '"' || scan_string(sc, 0, NULL) != 0) return -1;
                slop__scan_ws(sc);
                if (sc->pos >= sc->len || sc->s[sc->pos] != ':') return -1;
                sc->pos++;
            }
            if (slop__scan_value(sc) != 0) return -1;
            int more = slop__scan_next(sc, close);
            if (more < 0) return -1;
            if (more) continue;
            sc->depth--;
            return 0;
        }
    }
    if (c == 't') return scan_literal(sc, "true", 4);
    if (c == 'f') return scan_literal(sc, "false", 5);
    if (c == 'n') return scan_literal(sc, "null", 4);
    return scan_number(sc);
}

/* Finds the end of the object or array at pos by bracket matching, strings
 * skipped, without validating anything else. */
static int skip_balanced(slop__scan *sc) {
    const char *s = sc->s;
    size_t depth = 0;
    for (size_t i = sc->pos; i < sc->len; i++) {
        char c = s[i];
        if (c == '"') {
            for (i++; i < sc->len && s[i] != '"'; i++)
                if (s[i] == '\\') i++;
            if (i >= sc->len) return -1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) {
                sc->pos = i + 1;
                return 0;
            }
        }
    }
    return -1;
}

int slop__scan_frame(const char *s, size_t len, unsigned max_depth, slop__frame_info *info) {
    memset(info, 0, sizeof *info);
    slop__scan sc;
    slop__scan_init(&sc, s, len, max_depth);
    int rc = -1;
    slop__scan_ws(&sc);
    if (sc.pos < len && s[sc.pos] == '{') {
        /* Top-level members by hand, to note where "type" and "tree" are. */
        if (slop__scan_enter(&sc) != 0) goto out;
        sc.pos++;
        slop__scan_ws(&sc);
        if (sc.pos < len && s[sc.pos] == '}') sc.pos++;
        else {
            for (;;) {
                slop__scan_ws(&sc);
                size_t kn = 0;
                if (slop__scan_string(&sc, &kn) != 0) goto out;
                int is_type = kn == 4 && memcmp(sc.buf, "type", 4) == 0;
                int is_tree = kn == 4 && memcmp(sc.buf, "tree", 4) == 0;
                slop__scan_ws(&sc);
                if (sc.pos >= len || s[sc.pos] != ':') goto out;
                sc.pos++;
                slop__scan_ws(&sc);
                size_t start = sc.pos;
                if (is_tree && !info->tree && info->is_snapshot && start < len && s[start] == '{') {
                    /* The tree is validated while the mirror is built from
                     * it; here only its end is found. */
                    if (skip_balanced(&sc) != 0) goto out;
                } else if (slop__scan_value(&sc) != 0) {
                    goto out;
                }
                if (is_type && !info->type_seen) {
                    info->type_seen = 1;
                    info->is_snapshot = sc.pos - start == 10 && memcmp(s + start, "\"snapshot\"", 10) == 0;
                }
                if (is_tree && !info->tree) {
                    info->tree = s + start;
                    info->tree_len = sc.pos - start;
                }
                int more = slop__scan_next(&sc, '}');
                if (more < 0) goto out;
                if (!more) break;
            }
        }
    } else if (slop__scan_value(&sc) != 0) {
        goto out;
    }
    slop__scan_ws(&sc);
    if (sc.pos == len) rc = 0;
out:
    info->too_deep = sc.too_deep;
    info->offset = sc.pos;
    slop__scan_free(&sc);
    return rc;
}
