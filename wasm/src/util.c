/*
 * util.c: the small helpers the rest of the core shares, written once:
 * string copies, growable arrays and the growable string buffer, UTF-8-safe
 * cuts, ASCII case and hex digits, the FNV-1a hash, node path joins and
 * error messages into a caller's buffer. Declarations in internal.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- strings ------------------------------------------------------------ */

char *slop__strndup(const char *s, size_t n) {
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *slop__strdup(const char *s) { return slop__strndup(s, strlen(s)); }

size_t slop__utf8_cut(const char *s, size_t n, size_t max) {
    if (n <= max) return n;
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80) max--;
    return max;
}

int slop__starts_with_ci(const char *s, const char *lower) {
    for (; *lower; s++, lower++)
        if (!*s || slop__ascii_lower(*s) != *lower) return 0;
    return 1;
}

int slop__hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    c = slop__ascii_lower(c);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

uint32_t slop__fnv1a_more(uint32_t h, const void *p, size_t n) {
    const unsigned char *u = p;
    for (size_t i = 0; i < n; i++) h = (h ^ u[i]) * 16777619u;
    return h;
}

uint32_t slop__fnv1a(const void *p, size_t n) { return slop__fnv1a_more(SLOP__FNV1A_BASIS, p, n); }

/* ---- node paths --------------------------------------------------------- */

char *slop__path_child(const char *parent, const char *id) {
    size_t pl = strlen(parent), il = strlen(id);
    if (pl > 0 && parent[pl - 1] == '/') pl--; /* "/" + "a" is "/a", not "//a" */
    char *o = malloc(pl + il + 2);
    if (!o) return NULL;
    memcpy(o, parent, pl);
    o[pl] = '/';
    memcpy(o + pl + 1, id, il + 1);
    return o;
}

char *slop__path_join(const char *root, const char *rel) {
    return strcmp(rel, "/") == 0 ? slop__strdup(root) : slop__path_child(root, rel + 1);
}

/* ---- growable arrays and the string buffer ------------------------------ */

int slop__grow(void *arrp, size_t *cap, size_t elem, size_t first) {
    void *old;
    memcpy(&old, arrp, sizeof old); /* *arrp is a T*: copied, not type-punned */
    size_t nc = *cap ? *cap * 2 : first;
    if (nc < *cap || nc > SIZE_MAX / elem) return -1;
    void *nv = realloc(old, nc * elem);
    if (!nv) return -1;
    memcpy(arrp, &nv, sizeof nv);
    *cap = nc;
    return 0;
}

int slop__buf_grow(slop__buf *b, size_t more) {
    if (b->oom) return -1;
    if (more > SIZE_MAX / 2 - b->len) {
        b->oom = 1;
        return -1;
    }
    size_t need = b->len + more + 1, cap = b->cap ? b->cap : 256;
    while (cap < need) cap *= 2;
    char *p = realloc(b->s, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->s = p;
    b->cap = cap;
    return 0;
}

char *slop__buf_take(slop__buf *b) {
    if (!b->oom && !b->s && slop__buf_grow(b, 0) == 0) b->s[0] = '\0';
    char *s = b->oom ? NULL : b->s;
    if (!s) free(b->s);
    memset(b, 0, sizeof *b);
    return s;
}

void slop__buf_put_u00(slop__buf *b, unsigned char c) {
    static const char hex[] = "0123456789abcdef";
    char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
    slop__buf_putn(b, esc, sizeof esc);
}
