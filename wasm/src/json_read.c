/*
 * json_read.c: one strict way in for JSON text. Every byte from outside
 * (provider frames, descriptors, the caller's options and params) passes the
 * validating scanner below, and the parse at the end builds cJSON values in
 * the same pass, with the scanner's rules, instead of cJSON_Parse, because
 * cJSON's parser is lenient where the core must not be: it recurses without
 * a bound the small wasm stack can afford, accepts raw control characters,
 * invalid UTF-8 and duplicate keys (its lookups then take the first, while
 * code that walks the members takes the last), turns 1e400 into inf and
 * prints that as null, and truncates strings at \u0000. The scanner refuses
 * all of these, so the values built are exactly what the provider meant. (A
 * second pass, cJSON's parse after the scan, cost a small frame a fifth of
 * its time.)
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int slop__json_is_number(const cJSON *v) {
    return cJSON_IsNumber(v) || cJSON_IsRaw(v);
}

/* ---------------------------------------------------------------------- */
/* Validating scanner                                                       */
/* ---------------------------------------------------------------------- */

void slop__scan_init(slop__scan *sc, const char *s, size_t len, unsigned max_depth) {
    /* Field by field: key_room is left unwritten until used. */
    sc->s = s;
    sc->len = len;
    sc->pos = 0;
    sc->depth = 0;
    sc->max_depth = max_depth;
    sc->too_deep = 0;
    sc->why = NULL;
    sc->escaped = 0;
    sc->buf = NULL;
    sc->cap = 0;
    sc->keys = sc->key_room;
    sc->keys_len = 0;
    sc->keys_cap = SLOP__SCAN_KEY_ROOM;
}

void slop__scan_free(slop__scan *sc) {
    free(sc->buf);
    if (sc->keys != sc->key_room) free(sc->keys);
    sc->buf = NULL;
    sc->keys = sc->key_room;
    sc->cap = sc->keys_len = 0;
    sc->keys_cap = SLOP__SCAN_KEY_ROOM;
}

/* Refuses with a reason (the first one wins: it is where scanning stopped). */
static int refuse(slop__scan *sc, const char *why) {
    if (!sc->why) sc->why = why;
    return -1;
}

/* Length of the UTF-8 sequence at u (avail bytes there), or 0 when it is not
 * well-formed: overlong forms, surrogates, code points above U+10FFFF, bytes
 * C0, C1, F5..FF, stray continuation bytes and truncated sequences. */
size_t slop__utf8_len(const unsigned char *u, size_t avail) {
    unsigned char c = u[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;      /* overlong */
        else if (c == 0xED) hi = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;      /* overlong */
        else if (c == 0xF4) hi = 0x8F; /* above U+10FFFF */
    } else return 0;
    if (avail < n || u[1] < lo || u[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if ((u[i] & 0xC0) != 0x80) return 0;
    return n;
}

void slop__scan_ws_run(slop__scan *sc) {
    while (sc->pos < sc->len) {
        char c = sc->s[sc->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        sc->pos++;
    }
}

static int hex4(const slop__scan *sc, size_t at, unsigned *out) {
    if (at + 4 > sc->len) return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = slop__hex_value(sc->s[at + (size_t)i]);
        if (h < 0) return -1;
        v = v << 4 | (unsigned)h;
    }
    *out = v;
    return 0;
}

/* Bytes a string's fast path runs over: printable ASCII but '"' and '\\'. */
#define PLAIN16(a) a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a
static const unsigned char plain_ascii[256] = {
    PLAIN16(0), PLAIN16(0),                                   /* 0x00-0x1F: control */
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,           /* 0x20-0x2F: '"' */
    PLAIN16(1), PLAIN16(1),                                   /* 0x30-0x4F */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,           /* 0x50-0x5F: '\\' */
    PLAIN16(1), PLAIN16(1),                                   /* 0x60-0x7F */
    PLAIN16(0), PLAIN16(0), PLAIN16(0), PLAIN16(0),           /* 0x80-0xBF: UTF-8, checked */
    PLAIN16(0), PLAIN16(0), PLAIN16(0), PLAIN16(0)};          /* 0xC0-0xFF */
#undef PLAIN16

/* Where the run of plain ASCII (plain_ascii) starting at i ends: len, or the
 * first byte that is not plain. */
static inline size_t plain_run(const unsigned char *u, size_t i, size_t len) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* 8 bytes at a time (wasm is little-endian): the high bit of each byte
     * >= 0x80, < 0x20, '"' or '\\' in w. A borrow may mark a byte after a
     * marked one, never before, so the lowest mark is the first byte that
     * ends the run. */
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, u + i, 8);
        uint64_t q = w ^ (ones * '"'), bs = w ^ (ones * '\\');
        uint64_t m = (w | ((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((bs - ones) & ~bs)) & highs;
        if (m) return i + ((size_t)__builtin_ctzll(m) >> 3);
    }
#endif
    while (i < len && plain_ascii[u[i]]) i++;
    return i;
}

/* Writes code point cp as UTF-8 at buf + *o. */
static void put_utf8(char *buf, size_t *o, unsigned cp) {
    if (cp < 0x80) {
        buf[(*o)++] = (char)cp;
    } else if (cp < 0x800) {
        buf[(*o)++] = (char)(0xC0 | cp >> 6);
        buf[(*o)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        buf[(*o)++] = (char)(0xE0 | cp >> 12);
        buf[(*o)++] = (char)(0x80 | (cp >> 6 & 0x3F));
        buf[(*o)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        buf[(*o)++] = (char)(0xF0 | cp >> 18);
        buf[(*o)++] = (char)(0x80 | (cp >> 12 & 0x3F));
        buf[(*o)++] = (char)(0x80 | (cp >> 6 & 0x3F));
        buf[(*o)++] = (char)(0x80 | (cp & 0x3F));
    }
}

/* The \uXXXX escape at s[*i] (a surrogate pair takes two): refuses lone
 * surrogates and \u0000 as cJSON would mangle them; *i moves past it. */
static int scan_u_escape(slop__scan *sc, size_t *i, unsigned *out) {
    unsigned cp, lo;
    if (hex4(sc, *i + 2, &cp) != 0) return refuse(sc, "bad \\u escape");
    *i += 6;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return refuse(sc, "lone surrogate in a \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        size_t k = *i;
        if (k + 1 >= sc->len || sc->s[k] != '\\' || sc->s[k + 1] != 'u' || hex4(sc, k + 2, &lo) != 0 || lo < 0xDC00 ||
            lo > 0xDFFF)
            return refuse(sc, "lone surrogate in a \\u escape");
        *i += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    if (cp == 0) return refuse(sc, "\\u0000 in a string");
    *out = cp;
    return 0;
}

/* The character a one-letter escape (\n, \", ...) stands for, or 0. */
static char plain_escape(char e) {
    switch (e) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return 0;
    }
}

/* Walks a string at sc->pos (on its opening quote). With decode, writes the
 * UTF-8 value to sc->buf (NUL-terminated, *n its length). Refuses invalid
 * UTF-8 and \u0000 (C strings cannot hold it: cJSON would cut the string
 * there). Surrogate escapes follow cJSON's rules, so whatever passes here
 * cJSON parses to the same bytes. Sets sc->escaped when the text holds a
 * backslash (its bytes then differ from its value). */
static int scan_string(slop__scan *sc, int decode, size_t *n) {
    size_t i = sc->pos + 1, o = 0;
    sc->escaped = 0;
    if (decode && sc->cap < 64) {
        char *nb = realloc(sc->buf, 64);
        if (!nb) return -1;
        sc->buf = nb;
        sc->cap = 64;
    }
    for (;;) {
        if (!decode) i = plain_run((const unsigned char *)sc->s, i, sc->len); /* fast path */
        if (i >= sc->len) return refuse(sc, "unterminated string");
        unsigned char c = (unsigned char)sc->s[i];
        if (decode && o + 8 >= sc->cap) {
            char *nb = realloc(sc->buf, sc->cap * 2);
            if (!nb) return refuse(sc, "out of memory");
            sc->buf = nb;
            sc->cap *= 2;
        }
        if (c == '"') break;
        if (c < 0x20) return refuse(sc, "raw control character in a string");
        if (c >= 0x80) {
            size_t u8 = slop__utf8_len((const unsigned char *)sc->s + i, sc->len - i);
            if (!u8) return refuse(sc, "invalid UTF-8 in a string");
            if (decode) {
                memcpy(sc->buf + o, sc->s + i, u8);
                o += u8;
            }
            i += u8;
            continue;
        }
        if (c != '\\') {
            if (decode) sc->buf[o++] = (char)c;
            i++;
            continue;
        }
        sc->escaped = 1;
        if (i + 1 >= sc->len) return refuse(sc, "unterminated string");
        char plain = plain_escape(sc->s[i + 1]);
        if (plain) {
            if (decode) sc->buf[o++] = plain;
            i += 2;
        } else if (sc->s[i + 1] == 'u') {
            unsigned cp;
            if (scan_u_escape(sc, &i, &cp) != 0) return -1;
            if (decode) put_utf8(sc->buf, &o, cp);
        } else {
            return refuse(sc, "bad escape in a string");
        }
    }
    if (decode) {
        sc->buf[o] = 0;
        if (n) *n = o;
    }
    sc->pos = i + 1;
    return 0;
}

/* The usual string, plain ASCII up to its closing quote, without the call
 * to scan_string (whose escapes and UTF-8 cost it a large frame): 1 when
 * scanned (pos past it, escaped 0), 0 when scan_string must decide. */
static inline int scan_plain(slop__scan *sc) {
    const unsigned char *u = (const unsigned char *)sc->s;
    size_t i = plain_run(u, sc->pos + 1, sc->len);
    if (i >= sc->len || u[i] != '"') return 0;
    sc->pos = i + 1;
    sc->escaped = 0;
    return 1;
}

/* The decoded value of the string at `at` (a valid string, already
 * scanned), malloc'd into *out. */
static int decode_at(const slop__scan *sc, size_t at, char **out, size_t *n) {
    slop__scan t;
    slop__scan_init(&t, sc->s, sc->len, 0);
    t.pos = at;
    if (scan_string(&t, 1, n) != 0) {
        slop__scan_free(&t);
        return -1;
    }
    *out = t.buf; /* handed over */
    return 0;
}

int slop__scan_name(slop__scan *sc, size_t at) {
    if (sc->keys_len == sc->keys_cap) {
        size_t cap = sc->keys_cap * 2;
        int inside = sc->keys == sc->key_room;
        slop__scan_key *k = inside ? malloc(cap * sizeof *k) : realloc(sc->keys, cap * sizeof *k);
        if (!k) return refuse(sc, "out of memory");
        if (inside) memcpy(k, sc->key_room, sizeof sc->key_room);
        sc->keys = k;
        sc->keys_cap = cap;
    }
    /* The signature: length, first, second and last bytes of the name. */
    const unsigned char *u = (const unsigned char *)sc->s + at + 1;
    uint32_t n = (uint32_t)(sc->pos - at - 2);
    uint32_t sig = n ? (n * 0x9E3779B1u) ^ u[0] ^ ((uint32_t)u[n - 1] << 8) ^ ((uint32_t)u[n > 1] << 16) : 0;
    sc->keys[sc->keys_len++] = (slop__scan_key){at, n + 2, sig, sc->escaped};
    return 0;
}

static int same_name(const slop__scan *sc, const slop__scan_key *a, const slop__scan_key *b) {
    const char *pa = sc->s + a->at, *pb = sc->s + b->at;
    if (!a->escaped && !b->escaped) return a->len == b->len && memcmp(pa, pb, a->len) == 0;
    char *da = NULL, *db = NULL;
    size_t na = 0, nb = 0;
    int same = decode_at(sc, a->at, &da, &na) == 0 && decode_at(sc, b->at, &db, &nb) == 0 && na == nb &&
               memcmp(da, db, na) == 0;
    free(da);
    free(db);
    return same;
}

/* Hash of the decoded name (escapes decoded first, so "a" and "\u0061" meet). */
static int hash_name(const slop__scan *sc, slop__scan_key *k) {
    if (!k->escaped) {
        k->hash = slop__fnv1a(sc->s + k->at + 1, k->len - 2);
        return 0;
    }
    char *d = NULL;
    size_t n = 0;
    if (decode_at(sc, k->at, &d, &n) != 0) return -1;
    k->hash = slop__fnv1a(d, n);
    free(d);
    return 0;
}

static int by_hash(const void *x, const void *y) {
    uint32_t a = ((const slop__scan_key *)x)->hash, b = ((const slop__scan_key *)y)->hash;
    return a < b ? -1 : a > b;
}

int slop__scan_keys_end(slop__scan *sc, size_t mark) {
    size_t n = sc->keys_len - mark;
    if (n < 2) {
        sc->keys_len = mark;
        return 0;
    }
    slop__scan_key *k = sc->keys + mark;
    int dup = 0;
    if (n <= 16) { /* small objects, the usual case: pairwise, unequal signatures differ */
        for (size_t i = 1; i < n && !dup; i++)
            for (size_t j = 0; j < i && !dup; j++)
                if (k[i].escaped || k[j].escaped || k[i].hash == k[j].hash) dup = same_name(sc, &k[i], &k[j]);
    } else { /* sorted by hash, equal names are neighbours in a run */
        for (size_t i = 0; i < n; i++)
            if (hash_name(sc, &k[i]) != 0) return refuse(sc, "out of memory");
        qsort(k, n, sizeof *k, by_hash);
        for (size_t i = 1; i < n && !dup; i++)
            for (size_t j = i; j-- > 0 && k[j].hash == k[i].hash && !dup;)
                dup = same_name(sc, &k[i], &k[j]);
    }
    sc->keys_len = mark;
    return dup ? refuse(sc, "duplicate member name in an object") : 0;
}

int slop__scan_string(slop__scan *sc, size_t *n) {
    if (sc->pos >= sc->len || sc->s[sc->pos] != '"') return -1;
    return scan_string(sc, 1, n);
}

int slop__scan_string_at(slop__scan *sc, size_t at, size_t *n) {
    size_t keep = sc->pos;
    sc->pos = at;
    int rc = slop__scan_string(sc, n);
    sc->pos = keep;
    return rc;
}

/* A number that overflows a double (1e400) would become inf in cJSON and
 * print as null: refused. Only a number whose decimal exponent reaches 309 is
 * parsed to tell; the rest cannot overflow. */
static int number_overflows(const char *s, size_t int_at, size_t int_n, size_t frac_at, size_t frac_n, long exp10) {
    long lead = 0; /* decimal exponent of the first significant digit, plus one */
    char digits[48];
    size_t nd = 0;
    for (size_t k = 0; k < int_n + frac_n && nd < 40; k++) {
        char d = k < int_n ? s[int_at + k] : s[frac_at + k - int_n];
        if (nd == 0 && d == '0') continue;
        if (nd == 0) lead = (long)int_n - (long)k;
        digits[nd++] = d;
    }
    if (nd == 0) return 0; /* zero */
    long e = lead + exp10;
    if (e < 309) return 0;
    if (e > 310) return 1;
    char buf[64];
    memcpy(buf, "0.", 2);
    memcpy(buf + 2, digits, nd);
    snprintf(buf + 2 + nd, sizeof buf - 2 - nd, "e%ld", e);
    return !isfinite(strtod(buf, NULL));
}

static int scan_number(slop__scan *sc) {
    size_t i = sc->pos;
    const char *s = sc->s;
    if (i < sc->len && s[i] == '-') i++;
    if (i >= sc->len) return refuse(sc, "bad value");
    size_t int_at = i, frac_at = 0, frac_n = 0;
    if (s[i] == '0') i++;
    else if (s[i] >= '1' && s[i] <= '9')
        while (i < sc->len && s[i] >= '0' && s[i] <= '9') i++;
    else return refuse(sc, "bad value");
    size_t int_n = i - int_at;
    if (i < sc->len && s[i] == '.') {
        i++;
        if (i >= sc->len || s[i] < '0' || s[i] > '9') return refuse(sc, "bad number");
        frac_at = i;
        while (i < sc->len && s[i] >= '0' && s[i] <= '9') i++;
        frac_n = i - frac_at;
    }
    long exp10 = 0;
    if (i < sc->len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int neg = 0;
        if (i < sc->len && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
        if (i >= sc->len || s[i] < '0' || s[i] > '9') return refuse(sc, "bad number");
        for (; i < sc->len && s[i] >= '0' && s[i] <= '9'; i++)
            if (exp10 < 100000000) exp10 = exp10 * 10 + (s[i] - '0');
        if (neg) exp10 = -exp10;
    }
    if ((long)int_n + exp10 >= 309 && number_overflows(s, int_at, int_n, frac_at, frac_n, exp10))
        return refuse(sc, "number too large for a double");
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
        return refuse(sc, "nested too deeply");
    }
    return 0;
}

int slop__scan_value(slop__scan *sc) {
    slop__scan_ws(sc);
    if (sc->pos >= sc->len) return refuse(sc, "unexpected end of the text");
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
        size_t mark = sc->keys_len;
        for (;;) {
            if (c == '{') {
                slop__scan_ws(sc);
                size_t at = sc->pos;
                if (at >= sc->len || sc->s[at] != '"') return refuse(sc, "expected a member name");
                if (scan_string(sc, 0, NULL) != 0 || slop__scan_name(sc, at) != 0) return -1;
                slop__scan_ws(sc);
                if (sc->pos >= sc->len || sc->s[sc->pos] != ':') return refuse(sc, "expected ':'");
                sc->pos++;
            }
            if (slop__scan_value(sc) != 0) return -1;
            int more = slop__scan_next(sc, close);
            if (more < 0) return refuse(sc, c == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
            if (more) continue;
            sc->depth--;
            return c == '{' ? slop__scan_keys_end(sc, mark) : 0;
        }
    }
    if (c == 't') return scan_literal(sc, "true", 4) ? refuse(sc, "bad value") : 0;
    if (c == 'f') return scan_literal(sc, "false", 5) ? refuse(sc, "bad value") : 0;
    if (c == 'n') return scan_literal(sc, "null", 4) ? refuse(sc, "bad value") : 0;
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


/* ---------------------------------------------------------------------- */
/* One pass: text to cJSON values                                           */
/* ---------------------------------------------------------------------- */

/* A parse in progress: the scanner, and where the values' memory comes
 * from. With an arena nothing is ever freed piece by piece (the arena goes
 * as a whole); without, cJSON's allocator, so cJSON_Delete() frees it. */
typedef struct build {
    slop__scan sc;
    slop__arena *arena;
    char *text;     /* a small frame's text copied into the arena, or NULL:
                     * a string without escapes is its own bytes there, the
                     * closing quote made its NUL, instead of a copy each */
    int oom;
} build;

/* Field by field: an initializer would zero the scanner's name room too,
 * a memset of its 256 bytes on every frame. slop__scan_init follows. */
static void build_init(build *b, slop__arena *arena) {
    b->arena = arena;
    b->text = NULL;
    b->oom = 0;
}

static void *b_alloc(build *b, size_t n) {
    void *p = b->arena ? slop__arena_alloc(b->arena, n) : cJSON_malloc(n);
    if (!p) {
        b->oom = 1;
        refuse(&b->sc, "out of memory");
    }
    return p;
}

static cJSON *b_node(build *b, int type) {
    cJSON *v = b_alloc(b, sizeof *v);
    if (v) {
        memset(v, 0, sizeof *v);
        v->type = type;
    }
    return v;
}

/* A value that failed half built, or a name not attached. */
static void b_drop(build *b, cJSON *v) {
    if (!b->arena) cJSON_Delete(v);
}
static void b_drop_text(build *b, char *s) {
    if (!b->arena) cJSON_free(s);
}

static char *b_copy(build *b, const char *s, size_t n) {
    char *p = b_alloc(b, n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* The string at pos (on its quote), validated, its value in fresh memory.
 * Most strings hold no backslash: their bytes are their value. */
static char *b_string(build *b) {
    slop__scan *sc = &b->sc;
    size_t at = sc->pos, n = 0;
    if (!scan_plain(sc) && scan_string(sc, 0, NULL) != 0) return NULL;
    if (!sc->escaped && b->text) {
        b->text[sc->pos - 1] = '\0';
        return b->text + at + 1;
    }
    if (!sc->escaped) return b_copy(b, sc->s + at + 1, sc->pos - at - 2);
    sc->pos = at;
    if (scan_string(sc, 1, &n) != 0) { /* out of memory only: it passed once */
        b->oom = 1;
        return NULL;
    }
    return b_copy(b, sc->buf, n);
}

/* The value of a plain integer literal of at most 15 digits, which a
 * double holds exactly, so the sum below is what strtod would give (-0
 * included): counters, versions and indexes, most of a frame's numbers,
 * skip strtod's general path. 0 for any other literal. The core's printer
 * writes every such value back as the same text. */
static int integer_value(const char *tok, size_t n, double *d) {
    size_t i = tok[0] == '-';
    if (n - i == 0 || n - i > 15) return 0;
    uint64_t u = 0;
    for (size_t k = i; k < n; k++) {
        if (tok[k] < '0' || tok[k] > '9') return 0;
        u = u * 10 + (uint64_t)(tok[k] - '0');
    }
    *d = i ? -(double)u : (double)u;
    return 1;
}

/* The value of a plain decimal literal ("0.37", "-12.5") of at most 15
 * digits and 8 decimals, without strtod: its digits m and 10^k are exact
 * doubles, so m / 10^k is correctly rounded, the double strtod gives (its
 * general path does long double arithmetic, in software in wasm). 0 for any
 * other literal. */
static int decimal_value(const char *tok, size_t n, double *d) {
    static const double tens[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
    size_t i = tok[0] == '-', point = 0, digits = 0;
    uint64_t u = 0;
    for (size_t k = i; k < n; k++) {
        if (tok[k] == '.' && !point) {
            point = k;
            continue;
        }
        if (tok[k] < '0' || tok[k] > '9') return 0;
        u = u * 10 + (uint64_t)(tok[k] - '0');
        digits++;
    }
    size_t decimals = point ? n - point - 1 : 0;
    if (!point || !decimals || digits > 15 || decimals > 8) return 0;
    double v = (double)u / tens[decimals];
    *d = i ? -v : v;
    return 1;
}

/* Whether the printer (slop__format_number) writes a literal that is not a
 * short plain integer otherwise, judged from its text alone so that 1.5 or
 * 0.25 never pay for a print: 0 the same text, 2 another, 1 maybe (the
 * print decides). It writes the shortest digits that read back (at most 15
 * significant ones reproduce a literal's own), in %g form: never an 'E',
 * never a fraction ending in 0 (1.50, -0.0: surely another text), an 'e'
 * always with a sign and two digits (1e5 is 1e+05, but 5e-324 is itself),
 * and below 1e-4 with an exponent (0.00001 is 1e-05). 16 digits or more
 * (0.30000000000000004, 64-bit integers) may or may not read back as
 * written. (-0 alone is a plain integer, printed back as -0.) */
static int prints_text_otherwise(const char *tok, size_t n) {
    size_t digits = 0, point = 0;
    int exp_lower = 0;
    for (size_t k = 0; k < n; k++) {
        char ch = tok[k];
        if (ch == 'E') return 2;
        if (ch == 'e') exp_lower = 1;
        else if (ch == '.') point = k;
        else if (ch != '-' && ch != '+' && !exp_lower) digits++;
    }
    if (point && !exp_lower && tok[n - 1] == '0') return 2;
    if (exp_lower || digits >= 16) return 1;
    return point && point + 5 <= n && tok[point - 1] == '0' && memcmp(tok + point + 1, "0000", 4) == 0;
}

/* Whether the printer writes d as other text than the literal. */
static int prints_otherwise(const char *tok, size_t n, double d) {
    char printed[SLOP__NUMBER_BUF];
    size_t k = slop__format_number(d, printed);
    return k != n || memcmp(printed, tok, n) != 0;
}

/* A number as cJSON's parse makes it (strtod; valueint saturated). When the
 * core's printer would write it otherwise, it keeps the provider's text in
 * valuestring, printed instead of the double (json_print.c): an integer
 * literal (16 digits or more: a double cannot hold it, 2^53+1 reads as 2^53,
 * or it would print in exponent form, -2^63 as -9.223372036854776e+18, which
 * an id's reader takes for a float) as a cJSON_Raw, compared by its digits;
 * any other (1.50, 1E5, 0.30000000000000004) stays a cJSON_Number, so every
 * numeric check (salience, the params check, indexes) reads it as before. */
static cJSON *b_number(build *b) {
    slop__scan *sc = &b->sc;
    size_t at = sc->pos;
    if (scan_number(sc) != 0) return NULL;
    const char *tok = sc->s + at;
    size_t n = sc->pos - at;
    double d;
    int plain = integer_value(tok, n, &d);
    if (!plain && !decimal_value(tok, n, &d)) {
        char small[64], *text = n < sizeof small ? small : malloc(n + 1); /* strtod needs a NUL */
        if (!text) {
            b->oom = 1;
            refuse(sc, "out of memory");
            return NULL;
        }
        memcpy(text, tok, n);
        text[n] = '\0';
        d = strtod(text, NULL);
        if (text != small) free(text);
    }
    cJSON *v = b_node(b, cJSON_Number);
    if (!v) return NULL;
    v->valuedouble = d;
    v->valueint = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
    int other = plain ? 0 : prints_text_otherwise(tok, n);
    if (other == 2 || (other == 1 && prints_otherwise(tok, n, d))) {
        if (!(v->valuestring = b_copy(b, tok, n))) {
            b_drop(b, v);
            return NULL;
        }
        if (!memchr(tok, '.', n) && !memchr(tok, 'e', n) && !memchr(tok, 'E', n)) v->type = cJSON_Raw;
    }
    return v;
}

static cJSON *b_value(build *b);

/* A frame's top-level object, parsed as any object is, with what the
 * consumer wants to know noted on the way: "type", and where a snapshot's
 * tree is. */
typedef struct frame_top {
    slop__frame_info *info;
    cJSON *tree;                /* the first "tree" member's value           */
    size_t tree_at, tree_end;   /* its text                                  */
} frame_top;

/* A top-level member's value: built, or for a snapshot's object "tree"
 * (type seen first) only delimited, a null in its place. */
static cJSON *frame_member(build *b, frame_top *top, const char *name) {
    slop__scan *sc = &b->sc;
    slop__frame_info *info = top->info;
    int is_tree = name[0] == 't' && strcmp(name, "tree") == 0;
    size_t start = sc->pos;
    cJSON *v;
    if (is_tree && !info->tree && info->is_snapshot && start < sc->len && sc->s[start] == '{') {
        /* The tree is validated while the mirror is built from it. */
        if (skip_balanced(sc) != 0) {
            refuse(sc, "unterminated tree");
            return NULL;
        }
        info->tree = sc->s + start;
        info->tree_len = sc->pos - start;
        v = b_node(b, cJSON_NULL);
    } else {
        v = b_value(b);
    }
    if (!v) return NULL;
    if (!info->type_seen && name[0] == 't' && strcmp(name, "type") == 0) {
        info->type_seen = 1;
        info->is_snapshot = cJSON_IsString(v) && slop__provider_message_of(v->valuestring) == SLOP_MSG_SNAPSHOT;
    }
    if (is_tree && !top->tree) {
        top->tree = v;
        top->tree_at = start;
        top->tree_end = sc->pos;
    }
    return v;
}

/* The frame's object is complete: a tree that came before "type" was
 * built, but is loaded from its text like any snapshot's, so both orders
 * behave the same. */
static void frame_end(build *b, frame_top *top) {
    slop__frame_info *info = top->info;
    cJSON *tree = top->tree;
    if (!info->is_snapshot || !tree || info->tree || !cJSON_IsObject(tree)) return;
    b_drop(b, tree->child);
    tree->child = NULL;
    tree->type = cJSON_NULL;
    info->tree = b->sc.s + top->tree_at;
    info->tree_len = top->tree_end - top->tree_at;
}

/* An object or array at pos, its members linked as cJSON links them (the
 * first one's prev is the last). top: this is a frame's top-level object. */
/* The text length of a container, kept in its valueint (which cJSON leaves
 * unused for objects and arrays): the profiler's traffic counters take an
 * op's size from it instead of printing the op (slop__json_text_len). */
static void b_span(cJSON *v, size_t start, size_t end) {
    v->valueint = end - start > (size_t)INT_MAX ? INT_MAX : (int)(end - start);
}

static cJSON *b_container(build *b, char open, frame_top *top) {
    slop__scan *sc = &b->sc;
    char close = open == '{' ? '}' : ']';
    size_t start = sc->pos;
    if (slop__scan_enter(sc) != 0) return NULL;
    cJSON *v = b_node(b, open == '{' ? cJSON_Object : cJSON_Array);
    if (!v) return NULL;
    sc->pos++;
    slop__scan_ws(sc);
    if (sc->pos < sc->len && sc->s[sc->pos] == close) {
        sc->pos++;
        sc->depth--;
        b_span(v, start, sc->pos);
        return v;
    }
    size_t mark = sc->keys_len;
    char *name = NULL;
    for (cJSON *last = NULL;;) {
        if (open == '{') {
            slop__scan_ws(sc);
            size_t at = sc->pos;
            if (at >= sc->len || sc->s[at] != '"') {
                refuse(sc, "expected a member name");
                break;
            }
            if (!(name = b_string(b)) || slop__scan_name(sc, at) != 0) break;
            slop__scan_ws(sc);
            if (sc->pos >= sc->len || sc->s[sc->pos] != ':') {
                refuse(sc, "expected ':'");
                break;
            }
            sc->pos++;
            slop__scan_ws(sc);
        }
        cJSON *item = top ? frame_member(b, top, name) : b_value(b);
        if (!item) break;
        item->string = name;
        name = NULL;
        if (last) {
            last->next = item;
            item->prev = last;
        } else {
            v->child = item;
        }
        v->child->prev = last = item;
        int more = slop__scan_next(sc, close);
        if (more < 0) {
            refuse(sc, open == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
            break;
        }
        if (more) continue;
        sc->depth--;
        if (open == '{' && slop__scan_keys_end(sc, mark) != 0) break;
        if (top) frame_end(b, top);
        b_span(v, start, sc->pos);
        return v;
    }
    b_drop_text(b, name);
    b_drop(b, v);
    return NULL;
}

static cJSON *b_literal(build *b, const char *lit, size_t n, int type) {
    if (scan_literal(&b->sc, lit, n) != 0) {
        refuse(&b->sc, "bad value");
        return NULL;
    }
    cJSON *v = b_node(b, type);
    if (v && type == cJSON_True) v->valueint = 1; /* as cJSON's parse sets it */
    return v;
}

static cJSON *b_value(build *b) {
    slop__scan *sc = &b->sc;
    slop__scan_ws(sc);
    if (sc->pos >= sc->len) {
        refuse(sc, "unexpected end of the text");
        return NULL;
    }
    char c = sc->s[sc->pos];
    if (c == '"') {
        char *text = b_string(b);
        cJSON *v = text ? b_node(b, cJSON_String) : NULL;
        if (!v) {
            b_drop_text(b, text);
            return NULL;
        }
        v->valuestring = text;
        return v;
    }
    if (c == '{' || c == '[') return b_container(b, c, NULL);
    if (c == 't') return b_literal(b, "true", 4, cJSON_True);
    if (c == 'f') return b_literal(b, "false", 5, cJSON_False);
    if (c == 'n') return b_literal(b, "null", 4, cJSON_NULL);
    return b_number(b);
}

/* One value spanning the text, whitespace around it allowed. */
static cJSON *b_whole(build *b) {
    cJSON *v = b_value(b);
    if (!v) return NULL;
    slop__scan_ws(&b->sc);
    if (b->sc.pos == b->sc.len) return v;
    refuse(&b->sc, "trailing bytes after the value");
    b_drop(b, v);
    return NULL;
}

cJSON *slop__json_parse(const char *s, size_t len, unsigned max_depth, slop__json_status *status,
                        size_t *offset, const char **why) {
    if (offset) *offset = 0;
    if (why) *why = NULL;
    if (!s) {
        *status = SLOP__JSON_BAD;
        return NULL;
    }
    build b;
    build_init(&b, NULL);
    slop__scan_init(&b.sc, s, len, max_depth);
    cJSON *v = b_whole(&b);
    if (!v) {
        if (offset) *offset = b.sc.pos;
        if (why) *why = b.sc.why ? b.sc.why : "not valid JSON";
        *status = b.sc.too_deep ? SLOP__JSON_TOO_DEEP : SLOP__JSON_BAD;
    } else {
        *status = SLOP__JSON_OK;
    }
    slop__scan_free(&b.sc);
    return v;
}

cJSON *slop__json_parse_exact(const char *s, size_t len) {
    slop__json_status st;
    return slop__json_parse(s, len, CJSON_NESTING_LIMIT, &st, NULL, NULL);
}

/* The largest frame whose text the arena takes a copy of (build.text). */
#define IN_PLACE_MAX ((size_t)16 * 1024)

cJSON *slop__parse_frame(const char *s, size_t len, unsigned max_depth, slop__arena *arena, slop__frame_info *info) {
    memset(info, 0, sizeof *info);
    build b;
    build_init(&b, arena);
    slop__scan_init(&b.sc, s ? s : "", s ? len : 0, max_depth);
    /* A small frame (a patch, a result) is copied whole for its strings; a
     * big one (a snapshot, whose tree is read from the text) is not. */
    if (s && arena && len <= IN_PLACE_MAX && (b.text = slop__arena_alloc(arena, len + 1))) memcpy(b.text, s, len);
    slop__scan_ws(&b.sc);
    cJSON *msg;
    if (b.sc.pos < b.sc.len && b.sc.s[b.sc.pos] == '{') {
        frame_top top = {.info = info};
        msg = b_container(&b, '{', &top);
        slop__scan_ws(&b.sc);
        if (msg && b.sc.pos != b.sc.len) {
            refuse(&b.sc, "trailing bytes after the value");
            b_drop(&b, msg);
            msg = NULL;
        }
    } else {
        msg = b_whole(&b);
    }
    if (!msg) {
        info->too_deep = b.sc.too_deep;
        info->out_of_memory = b.oom;
        info->offset = b.sc.pos;
        info->why = b.sc.why ? b.sc.why : "not valid JSON";
        info->tree = NULL;
    }
    slop__scan_free(&b.sc);
    return msg;
}
