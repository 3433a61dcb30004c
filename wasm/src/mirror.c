/*
 * mirror.c: a subscription's state tree, its id index and patch application.
 * See mirror.h for the data structure and its costs.
 */
#include "mirror.h"

#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const field_names[SLOP__FIELD_COUNT] = {"properties", "meta", "affordances",
                                                          "content_ref"};

static void set_err(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------------- */
/* Id index: open addressing, linear probing, backward-shift deletion.     */
/* ---------------------------------------------------------------------- */

static uint32_t hash_key(const slop__node *parent, const char *id) {
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++) {
        h ^= *p;
        h *= 1099511628211ull;
    }
    h ^= (uint64_t)(uintptr_t)parent * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return (uint32_t)h;
}

/* Slots keep each node's hash beside its pointer, so probing and the
 * backward shift compare hashes without touching the nodes (a cache miss
 * each on a big mirror); a node is read only when its hash matches. */
static int index_grow(slop__index *ix) {
    size_t ncap = ix->cap ? ix->cap * 2 : 64;
    slop__slot *ns = calloc(ncap, sizeof *ns);
    if (!ns) return -1;
    for (size_t i = 0; i < ix->cap; i++) {
        if (!ix->slot[i].node) continue;
        size_t j = ix->slot[i].hash & (ncap - 1);
        while (ns[j].node) j = (j + 1) & (ncap - 1);
        ns[j] = ix->slot[i];
    }
    free(ix->slot);
    ix->slot = ns;
    ix->cap = ncap;
    return 0;
}

static int index_put(slop__index *ix, slop__node *n) {
    if ((ix->len + 1) * 10 > ix->cap * 7 && index_grow(ix) != 0) return -1;
    size_t j = n->hash & (ix->cap - 1);
    while (ix->slot[j].node) j = (j + 1) & (ix->cap - 1);
    ix->slot[j].node = n;
    ix->slot[j].hash = n->hash;
    ix->len++;
    return 0;
}

static slop__node *index_get(const slop__index *ix, const slop__node *parent, const char *id) {
    if (!ix->cap) return NULL;
    uint32_t h = hash_key(parent, id);
    size_t mask = ix->cap - 1;
    for (size_t j = h & mask; ix->slot[j].node; j = (j + 1) & mask) {
        if (ix->slot[j].hash != h) continue;
        slop__node *n = ix->slot[j].node;
        if (n->parent == parent && strcmp(n->id, id) == 0) return n;
    }
    return NULL;
}

static void index_del(slop__index *ix, const slop__node *n) {
    if (!ix->cap) return;
    size_t mask = ix->cap - 1, j = n->hash & mask;
    while (ix->slot[j].node && ix->slot[j].node != n) j = (j + 1) & mask;
    if (!ix->slot[j].node) return;
    ix->slot[j].node = NULL;
    ix->len--;
    /* Shift later members of the probe run back so lookups never stop early. */
    for (size_t k = (j + 1) & mask; ix->slot[k].node; k = (k + 1) & mask) {
        size_t home = ix->slot[k].hash & mask;
        int movable = (j <= k) ? (home <= j || home > k) : (home <= j && home > k);
        if (movable) {
            ix->slot[j] = ix->slot[k];
            ix->slot[k].node = NULL;
            j = k;
        }
    }
}

/* ---------------------------------------------------------------------- */
/* Children: ordered chunks with a Fenwick tree over their sizes            */
/* ---------------------------------------------------------------------- */

#define CHUNK_CAP 64
/* Bulk builds fill chunks to this, leaving room for inserts before a split. */
#define CHUNK_FILL 48

struct slop__chunk {
    uint32_t n;                 /* children in use                            */
    uint32_t index;             /* position of this chunk in kids->chunk      */
    slop__node *node[CHUNK_CAP];
};

struct slop__kids {
    slop__chunk **chunk;         /* in order                                   */
    uint32_t nchunks, cap;
    uint32_t count;             /* all children                               */
    uint32_t *fen;              /* Fenwick tree over chunk sizes, 1-based     */
};

static void fen_add(slop__kids *k, uint32_t chunk, int32_t d) {
    for (uint32_t i = chunk + 1; i <= k->nchunks; i += i & (0u - i)) k->fen[i] += (uint32_t)d;
}

/* Children in chunks [0, chunk). */
static uint32_t fen_prefix(const slop__kids *k, uint32_t chunk) {
    uint32_t s = 0;
    for (uint32_t i = chunk; i > 0; i -= i & (0u - i)) s += k->fen[i];
    return s;
}

/* The chunk holding position *pos (< count); *pos becomes the offset in it. */
static uint32_t fen_find(const slop__kids *k, uint32_t *pos) {
    uint32_t at = 0, step = 1;
    while (step * 2 <= k->nchunks) step *= 2;
    for (; step; step /= 2) {
        if (at + step <= k->nchunks && k->fen[at + step] <= *pos) {
            at += step;
            *pos -= k->fen[at];
        }
    }
    return at;
}

/* After chunks were added or removed: renumber them and rebuild the tree. */
static void kids_reindex(slop__kids *k) {
    for (uint32_t i = 0; i < k->nchunks; i++) {
        k->chunk[i]->index = i;
        k->fen[i + 1] = k->chunk[i]->n;
    }
    for (uint32_t i = 1; i <= k->nchunks; i++) {
        uint32_t j = i + (i & (0u - i));
        if (j <= k->nchunks) k->fen[j] += k->fen[i];
    }
}

/* Makes room for one more chunk at position at. Returns the chunk or NULL. */
static slop__chunk *kids_new_chunk(slop__kids *k, uint32_t at) {
    if (k->nchunks == k->cap) {
        uint32_t nc = k->cap ? k->cap * 2 : 4;
        slop__chunk **cv = realloc(k->chunk, nc * sizeof *cv);
        if (!cv) return NULL;
        k->chunk = cv;
        uint32_t *fv = realloc(k->fen, (nc + 1) * sizeof *fv);
        if (!fv) return NULL;
        k->fen = fv;
        k->cap = nc;
    }
    slop__chunk *c = malloc(sizeof *c);
    if (!c) return NULL;
    c->n = 0;
    memmove(k->chunk + at + 1, k->chunk + at, (k->nchunks - at) * sizeof *k->chunk);
    k->chunk[at] = c;
    k->nchunks++;
    return c;
}

static void kids_destroy(slop__kids *k) {
    if (!k) return;
    for (uint32_t i = 0; i < k->nchunks; i++) free(k->chunk[i]);
    free(k->chunk);
    free(k->fen);
    free(k);
}

static size_t node_child_count(const slop__node *n) { return n->kids ? n->kids->count : 0; }

/* Node at position i among parent's children, or NULL. */
static slop__node *node_child_at(const slop__node *parent, size_t i) {
    const slop__kids *k = parent->kids;
    if (!k || i >= k->count) return NULL;
    uint32_t pos = (uint32_t)i, c = fen_find(k, &pos);
    return k->chunk[c]->node[pos];
}

slop__node *slop__kids_first(const slop__node *parent, slop__kid_iter *it) {
    it->kids = parent->kids;
    it->chunk = 0;
    it->at = 0;
    return it->kids ? it->kids->chunk[0]->node[0] : NULL;
}

slop__node *slop__kids_next(slop__kid_iter *it) {
    const slop__kids *k = it->kids;
    if (!k) return NULL;
    if (++it->at >= k->chunk[it->chunk]->n) {
        it->at = 0;
        if (++it->chunk >= k->nchunks) return NULL;
    }
    return k->chunk[it->chunk]->node[it->at];
}

/* Position of n among its siblings. */
static size_t kid_rank(const slop__node *n) {
    const slop__chunk *c = n->chunk;
    uint32_t pos = 0;
    while (c->node[pos] != n) pos++;
    return fen_prefix(n->parent->kids, c->index) + pos;
}

/* Inserts n at position `at` (clamped) among parent's children. -1 when out
 * of memory (nothing changed). */
static int kids_insert(slop__node *parent, slop__node *n, size_t at) {
    slop__kids *k = parent->kids;
    if (!k) {
        k = calloc(1, sizeof *k);
        if (!k || !kids_new_chunk(k, 0)) {
            kids_destroy(k);
            return -1;
        }
        kids_reindex(k);
        parent->kids = k;
    }
    if (at > k->count) at = k->count;
    uint32_t ci, off;
    if (at == k->count) { /* append: the last chunk */
        ci = k->nchunks - 1;
        off = k->chunk[ci]->n;
    } else {
        off = (uint32_t)at;
        ci = fen_find(k, &off);
    }
    slop__chunk *c = k->chunk[ci];
    if (c->n == CHUNK_CAP) { /* split: the upper half moves to a new chunk after it */
        slop__chunk *d = kids_new_chunk(k, ci + 1);
        if (!d) return -1;
        uint32_t half = CHUNK_CAP / 2;
        memcpy(d->node, c->node + half, (CHUNK_CAP - half) * sizeof *d->node);
        d->n = CHUNK_CAP - half;
        c->n = half;
        for (uint32_t i = 0; i < d->n; i++) d->node[i]->chunk = d;
        kids_reindex(k);
        if (off > half) {
            c = d;
            off -= half;
        }
    }
    memmove(c->node + off + 1, c->node + off, (c->n - off) * sizeof *c->node);
    c->node[off] = n;
    c->n++;
    k->count++;
    fen_add(k, c->index, 1);
    n->parent = parent;
    n->chunk = c;
    return 0;
}

/* Unlinks n from its parent's children; returns its former position. */
static size_t kids_remove(slop__node *n) {
    slop__node *parent = n->parent;
    slop__kids *k = parent->kids;
    slop__chunk *c = n->chunk;
    uint32_t pos = 0;
    while (c->node[pos] != n) pos++;
    size_t at = fen_prefix(k, c->index) + pos;
    memmove(c->node + pos, c->node + pos + 1, (c->n - pos - 1) * sizeof *c->node);
    c->n--;
    k->count--;
    if (k->count == 0) {
        kids_destroy(k);
        parent->kids = NULL;
    } else if (c->n == 0) { /* drop the empty chunk */
        uint32_t ci = c->index;
        free(c);
        memmove(k->chunk + ci, k->chunk + ci + 1, (k->nchunks - ci - 1) * sizeof *k->chunk);
        k->nchunks--;
        kids_reindex(k);
    } else {
        fen_add(k, c->index, -1);
    }
    n->chunk = NULL;
    return at;
}

/* Gives parent the children v[0..n) in order (n > 0), in O(n). -1 when out
 * of memory (nothing changed). */
static int kids_build(slop__node *parent, slop__node **v, size_t n) {
    slop__kids *k = calloc(1, sizeof *k);
    if (!k) return -1;
    size_t chunks = (n + CHUNK_FILL - 1) / CHUNK_FILL;
    for (size_t i = 0; i < chunks; i++) {
        slop__chunk *c = kids_new_chunk(k, (uint32_t)i);
        if (!c) {
            kids_destroy(k);
            return -1;
        }
        size_t from = i * CHUNK_FILL, take = n - from < CHUNK_FILL ? n - from : CHUNK_FILL;
        memcpy(c->node, v + from, take * sizeof *v);
        c->n = (uint32_t)take;
        for (size_t j = 0; j < take; j++) {
            c->node[j]->chunk = c;
            c->node[j]->parent = parent;
        }
    }
    k->count = (uint32_t)n;
    kids_reindex(k);
    parent->kids = k;
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Nodes                                                                    */
/* ---------------------------------------------------------------------- */

static int is_reserved(const char *s) {
    return strcmp(s, "properties") == 0 || strcmp(s, "children") == 0 ||
           strcmp(s, "affordances") == 0 || strcmp(s, "meta") == 0 ||
           strcmp(s, "content_ref") == 0;
}

static int field_of(const char *s) {
    for (int f = 0; f < SLOP__FIELD_COUNT; f++)
        if (strcmp(s, field_names[f]) == 0) return f;
    return -1;
}

/* Frees n and its subtree, removing them from the index. */
static void node_free(slop__mirror *m, slop__node *n) {
    if (!n) return;
    if (n->kids) {
        slop__kids *k = n->kids;
        for (uint32_t i = 0; i < k->nchunks; i++)
            for (uint32_t j = 0; j < k->chunk[i]->n; j++) node_free(m, k->chunk[i]->node[j]);
        kids_destroy(k);
    }
    index_del(&m->index, n);
    for (int f = 0; f < SLOP__FIELD_COUNT; f++) cJSON_Delete(n->field[f]);
    m->nodes--;
    m->budget->used--;
    free(n);
}

static size_t subtree_count(const slop__node *n) {
    size_t c = 1;
    slop__kid_iter it;
    for (slop__node *k = slop__kids_first(n, &it); k; k = slop__kids_next(&it)) c += subtree_count(k);
    return c;
}

static int check_id(const char *id, char *err, size_t errlen) {
    if (!*id) {
        set_err(err, errlen, "node id is empty");
        return -1;
    }
    if (strchr(id, '/') || strchr(id, '~')) {
        set_err(err, errlen, "node id \"%.64s\" contains '/' or '~'", id);
        return -1;
    }
    if (is_reserved(id)) {
        set_err(err, errlen, "node id \"%s\" is a reserved keyword", id);
        return -1;
    }
    return 0;
}

/* Takes ownership of *slot (detaches it from its cJSON parent). */
static cJSON *steal(cJSON *obj, cJSON *item) {
    cJSON *v = cJSON_DetachItemViaPointer(obj, item);
    if (v && v->string && !(v->type & cJSON_StringIsConst)) {
        cJSON_free(v->string);
    }
    if (v) v->string = NULL;
    return v;
}

typedef struct build_ctx {
    slop__mirror *m;
    size_t budget_left;
    char *err;
    size_t errlen;
} build_ctx;

/*
 * Builds a node (and its subtree) from JSON, stealing its field values.
 * Nodes are linked to `parent` and entered in the index; on failure
 * everything built so far is freed by the caller through the returned
 * partial tree (see build()).
 */
static slop__node *build_node(build_ctx *b, cJSON *j, slop__node *parent, const char *where,
                             unsigned depth) {
    if (depth > SLOP__MAX_TREE_DEPTH) {
        set_err(b->err, b->errlen, "%s: tree is deeper than %d levels", where, SLOP__MAX_TREE_DEPTH);
        return NULL;
    }
    if (!cJSON_IsObject(j)) {
        set_err(b->err, b->errlen, "%s: a node must be an object", where);
        return NULL;
    }
    cJSON *jid = NULL, *jtype = NULL, *jkids = NULL, *jf[SLOP__FIELD_COUNT] = {0};
    for (cJSON *it = j->child; it; it = it->next) {
        const char *k = it->string;
        if (!k) continue;
        int f;
        if (strcmp(k, "id") == 0) jid = it;
        else if (strcmp(k, "type") == 0) jtype = it;
        else if (strcmp(k, "children") == 0) jkids = it;
        else if ((f = field_of(k)) >= 0) jf[f] = it;
    }
    if (!cJSON_IsString(jid)) {
        set_err(b->err, b->errlen, "%s: node has no string \"id\"", where);
        return NULL;
    }
    if (check_id(jid->valuestring, b->err, b->errlen) != 0) return NULL;
    if (!cJSON_IsString(jtype)) {
        set_err(b->err, b->errlen, "%s/%s: node has no string \"type\"", where, jid->valuestring);
        return NULL;
    }
    static const int want_object[SLOP__FIELD_COUNT] = {1, 1, 0, 1};
    for (int f = 0; f < SLOP__FIELD_COUNT; f++) {
        if (!jf[f] || cJSON_IsNull(jf[f])) continue;
        if (want_object[f] ? !cJSON_IsObject(jf[f]) : !cJSON_IsArray(jf[f])) {
            set_err(b->err, b->errlen, "%s/%s: \"%s\" must be %s", where, jid->valuestring,
                    field_names[f], want_object[f] ? "an object" : "an array");
            return NULL;
        }
    }
    if (jkids && !cJSON_IsNull(jkids) && !cJSON_IsArray(jkids)) {
        set_err(b->err, b->errlen, "%s/%s: \"children\" must be an array", where, jid->valuestring);
        return NULL;
    }
    if (b->budget_left == 0) {
        set_err(b->err, b->errlen, "tree exceeds the limit of %zu mirrored nodes", b->m->budget->max);
        return NULL;
    }
    size_t idl = strlen(jid->valuestring), tyl = strlen(jtype->valuestring);
    slop__node *n = calloc(1, sizeof *n + idl + tyl + 2);
    if (!n) {
        set_err(b->err, b->errlen, "out of memory");
        return NULL;
    }
    char *s = (char *)(n + 1);
    memcpy(s, jid->valuestring, idl + 1);
    memcpy(s + idl + 1, jtype->valuestring, tyl + 1);
    n->id = s;
    n->type = s + idl + 1;
    n->parent = parent;
    n->hash = hash_key(parent, n->id);
    b->budget_left--;
    b->m->nodes++;
    b->m->budget->used++;
    if (parent) {
        if (index_get(&b->m->index, parent, n->id)) {
            set_err(b->err, b->errlen, "%s: two children have the id \"%s\"", where, n->id);
            b->m->nodes--;
            b->m->budget->used--;
            free(n);
            return NULL;
        }
        if (index_put(&b->m->index, n) != 0) {
            set_err(b->err, b->errlen, "out of memory");
            b->m->nodes--;
            b->m->budget->used--;
            free(n);
            return NULL;
        }
    }
    for (int f = 0; f < SLOP__FIELD_COUNT; f++)
        if (jf[f] && !cJSON_IsNull(jf[f])) n->field[f] = steal(j, jf[f]);

    size_t count = (size_t)cJSON_GetArraySize(jkids && cJSON_IsArray(jkids) ? jkids : NULL);
    if (count) {
        slop__node **v = malloc(count * sizeof *v);
        if (!v) {
            set_err(b->err, b->errlen, "out of memory");
            node_free(b->m, n);
            return NULL;
        }
        size_t built = 0;
        char here[160];
        snprintf(here, sizeof here, "%s/%s", parent ? where : "", n->id);
        int failed = 0;
        for (cJSON *c = jkids->child; c; c = c->next) {
            slop__node *k = build_node(b, c, n, here, depth + 1);
            if (!k) {
                failed = 1;
                break;
            }
            v[built++] = k;
        }
        if (!failed && kids_build(n, v, count) != 0) {
            set_err(b->err, b->errlen, "out of memory");
            failed = 1;
        }
        if (failed) {
            /* Children are not linked yet: free them one by one. */
            for (size_t i = 0; i < built; i++) node_free(b->m, v[i]);
            free(v);
            node_free(b->m, n);
            return NULL;
        }
        free(v);
    }
    return n;
}

static slop__node *build(slop__mirror *m, cJSON *tree, slop__node *parent, const char *where,
                        char *err, size_t errlen) {
    build_ctx b = {m, 0, err, errlen};
    b.budget_left = m->budget->max > m->budget->used ? m->budget->max - m->budget->used : 0;
    unsigned depth = 0; /* the tree can grow deeper patch by patch: bound it */
    for (const slop__node *a = parent; a; a = a->parent) depth++;
    return build_node(&b, tree, parent, where, depth);
}

/* ---------------------------------------------------------------------- */
/* Building from JSON text                                                  */
/* ---------------------------------------------------------------------- */

typedef struct span {
    const char *p;
    size_t n;
} span;

typedef struct text_ctx {
    build_ctx *b;
    slop__scan *sc;
    char *tmp;                  /* decoded id while the type is decoded      */
    size_t tmp_cap;
} text_ctx;

/* Decodes the JSON string at span s into sc->buf (the scanner's position is
 * restored). */
static int decode_span(slop__scan *sc, span s, size_t *n) {
    size_t keep = sc->pos;
    sc->pos = (size_t)(s.p - sc->s);
    int rc = slop__scan_string(sc, n);
    sc->pos = keep;
    return rc;
}

static void free_kids(slop__mirror *m, slop__node **kids, size_t n) {
    for (size_t i = 0; i < n; i++) node_free(m, kids[i]);
    free(kids);
}

#define TFAIL(...)                                                        \
    do {                                                                  \
        set_err(b->err, b->errlen, __VA_ARGS__);                          \
        goto fail;                                                        \
    } while (0)

/*
 * Builds the node whose object starts at the scanner's position. Children
 * are built first (the node's size is known only once its members are), so
 * they are linked to it, hashed and checked for duplicate ids at the end.
 */
static slop__node *build_text_node(text_ctx *t, const char *where, unsigned depth) {
    build_ctx *b = t->b;
    slop__scan *sc = t->sc;
    slop__node **kids = NULL, *n = NULL;
    size_t nk = 0, capk = 0;
    span id = {0}, type = {0}, raw[SLOP__FIELD_COUNT] = {{0}};
    char here[160];
    snprintf(here, sizeof here, "%s/?", where);

    if (depth > SLOP__MAX_TREE_DEPTH) TFAIL("%s: tree is deeper than %d levels", where, SLOP__MAX_TREE_DEPTH);
    slop__scan_ws(sc);
    if (sc->pos >= sc->len || sc->s[sc->pos] != '{') TFAIL("%s: a node must be an object", where);
    if (slop__scan_enter(sc) != 0) TFAIL("tree nests too deeply");
    sc->pos++;
    slop__scan_ws(sc);
    size_t names = sc->keys_len;
    int empty = sc->pos < sc->len && sc->s[sc->pos] == '}';
    if (empty) sc->pos++;
    while (!empty) {
        slop__scan_ws(sc);
        size_t kn = 0, at = sc->pos;
        if (slop__scan_string(sc, &kn) != 0 || slop__scan_name(sc, at) != 0)
            TFAIL("%s: bad member name (%s)", where, sc->why ? sc->why : "not a string");
        int which = -1; /* 0 id, 1 type, 2 children, 3+f field f */
        if (strcmp(sc->buf, "id") == 0) which = 0;
        else if (strcmp(sc->buf, "type") == 0) which = 1;
        else if (strcmp(sc->buf, "children") == 0) which = 2;
        else {
            int f = field_of(sc->buf);
            if (f >= 0) which = 3 + f;
        }
        slop__scan_ws(sc);
        if (sc->pos >= sc->len || sc->s[sc->pos] != ':') TFAIL("%s: expected ':'", where);
        sc->pos++;
        slop__scan_ws(sc);
        if (sc->pos >= sc->len) TFAIL("%s: truncated", where);
        char first = sc->s[sc->pos];
        size_t start = sc->pos;
        if (which == 2 && first == '[') {
            if (slop__scan_enter(sc) != 0) TFAIL("tree nests too deeply");
            sc->pos++;
            if (id.p) {
                size_t idn;
                if (decode_span(sc, id, &idn) == 0) snprintf(here, sizeof here, "%s/%s", where, sc->buf);
            }
            slop__scan_ws(sc);
            if (sc->pos < sc->len && sc->s[sc->pos] == ']') sc->pos++;
            else {
                for (;;) {
                    if (nk == capk) {
                        size_t nc = capk ? capk * 2 : 8;
                        slop__node **nv = realloc(kids, nc * sizeof *nv);
                        if (!nv) TFAIL("out of memory");
                        kids = nv;
                        capk = nc;
                    }
                    slop__node *k = build_text_node(t, here, depth + 1);
                    if (!k) goto fail_quiet;
                    kids[nk++] = k;
                    int more = slop__scan_next(sc, ']');
                    if (more < 0) TFAIL("%s: expected ',' or ']' in children", here);
                    if (!more) break;
                }
            }
            sc->depth--;
        } else {
            if (slop__scan_value(sc) != 0)
                TFAIL(sc->too_deep ? "tree nests too deeply" : "%s: %s", where, sc->why ? sc->why : "invalid JSON");
            span v = {sc->s + start, sc->pos - start};
            if (which == 0 || which == 1) {
                if (first != '"') TFAIL("%s: node \"%s\" must be a string", where, which ? "type" : "id");
                if (which == 0) id = v;
                else type = v;
            } else if (which == 2) {
                if (first != 'n') TFAIL("%s: \"children\" must be an array", here);
            } else if (which >= 3 && first != 'n') {
                int f = which - 3, want_array = f == SLOP__FIELD_AFFORDANCES;
                if (first != (want_array ? '[' : '{'))
                    TFAIL("%s: \"%s\" must be %s", where, field_names[f], want_array ? "an array" : "an object");
                raw[f] = v;
            }
        }
        int more = slop__scan_next(sc, '}');
        if (more < 0) TFAIL("%s: expected ',' or '}'", where);
        if (!more) break;
    }
    sc->depth--;
    if (slop__scan_keys_end(sc, names) != 0) TFAIL("%s: a member name appears twice in a node", where);

    if (!id.p) TFAIL("%s: node has no string \"id\"", where);
    size_t idl, tyl;
    if (decode_span(sc, id, &idl) != 0) TFAIL("%s: bad id string", where);
    if (t->tmp_cap < idl + 1) {
        char *nt = realloc(t->tmp, idl + 1);
        if (!nt) TFAIL("out of memory");
        t->tmp = nt;
        t->tmp_cap = idl + 1;
    }
    memcpy(t->tmp, sc->buf, idl + 1);
    if (check_id(t->tmp, b->err, b->errlen) != 0) goto fail_quiet;
    if (!type.p) TFAIL("%s/%s: node has no string \"type\"", where, t->tmp);
    if (decode_span(sc, type, &tyl) != 0) TFAIL("%s: bad type string", where);
    if (b->budget_left == 0) TFAIL("tree exceeds the limit of %zu mirrored nodes", b->m->budget->max);
    size_t rawn = 0;
    for (int f = 0; f < SLOP__FIELD_COUNT; f++) rawn += raw[f].n;
    n = calloc(1, sizeof *n + idl + tyl + 2 + rawn);
    if (!n) TFAIL("out of memory");
    char *p = (char *)(n + 1);
    memcpy(p, t->tmp, idl + 1);
    n->id = p;
    p += idl + 1;
    memcpy(p, sc->buf, tyl + 1);
    n->type = p;
    p += tyl + 1;
    for (int f = 0; f < SLOP__FIELD_COUNT; f++) {
        if (!raw[f].p) continue;
        memcpy(p, raw[f].p, raw[f].n);
        n->raw[f] = p;
        n->raw_len[f] = (uint32_t)raw[f].n;
        p += raw[f].n;
    }
    b->budget_left--;
    b->m->nodes++;
    b->m->budget->used++;
    for (size_t i = 0; i < nk; i++) {
        slop__node *k = kids[i];
        k->parent = n;
        k->hash = hash_key(n, k->id);
        if (index_get(&b->m->index, n, k->id)) {
            set_err(b->err, b->errlen, "%s/%s: two children have the id \"%s\"", where, n->id, k->id);
            /* Unlink what was linked so far, then free everything. */
            for (size_t j = 0; j < i; j++) index_del(&b->m->index, kids[j]);
            goto fail_quiet;
        }
        if (index_put(&b->m->index, k) != 0) {
            for (size_t j = 0; j < i; j++) index_del(&b->m->index, kids[j]);
            TFAIL("out of memory");
        }
    }
    if (nk && kids_build(n, kids, nk) != 0) {
        for (size_t j = 0; j < nk; j++) index_del(&b->m->index, kids[j]);
        TFAIL("out of memory");
    }
    free(kids);
    return n;

fail:
fail_quiet:
    free_kids(b->m, kids, nk);
    if (n) node_free(b->m, n);
    return NULL;
}

/* Replaces m's tree with the one built in fresh (same budget). */
static void adopt(slop__mirror *m, slop__mirror *fresh) {
    slop__mirror_clear(m);
    *m = *fresh;
}

int slop__mirror_load_text(slop__mirror *m, const char *text, size_t len, unsigned max_depth, char *err,
                          size_t errlen) {
    slop__mirror fresh;
    slop__mirror_init(&fresh, m->budget);
    size_t old = m->nodes;
    m->budget->used -= old;
    build_ctx b = {&fresh, 0, err, errlen};
    b.budget_left = m->budget->max > m->budget->used ? m->budget->max - m->budget->used : 0;
    slop__scan sc;
    slop__scan_init(&sc, text, len, max_depth);
    text_ctx t = {&b, &sc, NULL, 0};
    fresh.root = build_text_node(&t, "tree", 0);
    if (fresh.root) {
        slop__scan_ws(&sc);
        if (sc.pos != len) {
            set_err(err, errlen, "trailing bytes after the tree");
            node_free(&fresh, fresh.root);
            fresh.root = NULL;
        }
    }
    free(t.tmp);
    slop__scan_free(&sc);
    m->budget->used += old;
    if (!fresh.root) {
        slop__mirror_clear(&fresh);
        return -1;
    }
    adopt(m, &fresh);
    return 0;
}

void slop__mirror_init(slop__mirror *m, slop__budget *budget) {
    memset(m, 0, sizeof *m);
    m->budget = budget;
}

void slop__mirror_clear(slop__mirror *m) {
    node_free(m, m->root);
    m->root = NULL;
    free(m->index.slot);
    m->index.slot = NULL;
    m->index.cap = m->index.len = 0;
}

int slop__mirror_load(slop__mirror *m, cJSON *tree, char *err, size_t errlen) {
    /* Build into a scratch mirror so a bad snapshot leaves the old state. */
    slop__mirror fresh;
    slop__mirror_init(&fresh, m->budget);
    /* The new tree replaces the old one: its nodes do not count twice. */
    size_t old = m->nodes;
    m->budget->used -= old;
    fresh.root = build(&fresh, tree, NULL, "tree", err, errlen);
    m->budget->used += old;
    if (!fresh.root) {
        slop__mirror_clear(&fresh);
        return -1;
    }
    adopt(m, &fresh);
    return 0;
}

slop__node *slop__mirror_find(const slop__mirror *m, const char *path) {
    slop__node *n = m->root;
    if (!n || !path) return NULL;
    const char *p = path;
    char seg[512];
    while (*p) {
        if (*p == '/') {
            p++;
            continue;
        }
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len >= sizeof seg) return NULL;
        memcpy(seg, p, len);
        seg[len] = 0;
        n = index_get(&m->index, n, seg);
        if (!n) return NULL;
        p += len;
    }
    return n;
}

char *slop__node_path(const slop__node *n) {
    size_t len = 0;
    for (const slop__node *c = n; c->parent; c = c->parent) len += strlen(c->id) + 1;
    if (!len) {
        char *root = malloc(2);
        if (root) memcpy(root, "/", 2);
        return root;
    }
    char *s = malloc(len + 1);
    if (!s) return NULL;
    s[len] = 0;
    size_t at = len;
    for (const slop__node *c = n; c->parent; c = c->parent) {
        size_t l = strlen(c->id);
        at -= l;
        memcpy(s + at, c->id, l);
        s[--at] = '/';
    }
    return s;
}

cJSON *slop__node_to_json(const slop__node *n, int depth) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddStringToObject(o, "id", n->id);
    cJSON_AddStringToObject(o, "type", n->type);
    for (int f = 0; f < SLOP__FIELD_COUNT; f++) {
        if (n->field[f]) cJSON_AddItemToObject(o, field_names[f], cJSON_Duplicate(n->field[f], 1));
        else if (n->raw[f]) /* parsed for the copy only: reading keeps the node compact */
            cJSON_AddItemToObject(o, field_names[f], cJSON_ParseWithLength(n->raw[f], n->raw_len[f]));
    }
    if (n->kids && depth != 0) {
        cJSON *arr = cJSON_AddArrayToObject(o, "children");
        slop__kid_iter it;
        for (slop__node *k = slop__kids_first(n, &it); k; k = slop__kids_next(&it))
            cJSON_AddItemToArray(arr, slop__node_to_json(k, depth < 0 ? -1 : depth - 1));
    } /* no children: no "children" member, however the provider wrote it */
    return o;
}

cJSON *slop__node_field(slop__node *n, int f) {
    if (!n->field[f] && n->raw[f]) {
        /* The scanner accepted this text and cJSON accepts a superset. */
        n->field[f] = cJSON_ParseWithLength(n->raw[f], n->raw_len[f]);
        if (n->field[f]) n->raw[f] = NULL;
    }
    return n->field[f];
}

int slop__node_has_field(const slop__node *n, int f) { return n->field[f] != NULL || n->raw[f] != NULL; }

/* ---------------------------------------------------------------------- */
/* Changes                                                                  */
/* ---------------------------------------------------------------------- */

void slop__changes_init(slop__changes *ch) {
    ch->changed = cJSON_CreateArray();
    ch->added = cJSON_CreateArray();
    ch->removed = cJSON_CreateArray();
    ch->truncated = 0;
    ch->count = 0;
}

void slop__changes_free(slop__changes *ch) {
    cJSON_Delete(ch->changed);
    cJSON_Delete(ch->added);
    cJSON_Delete(ch->removed);
    memset(ch, 0, sizeof *ch);
}

static void note(slop__changes *ch, cJSON *list, const slop__node *n, const char *child_id) {
    if (!ch || ch->truncated) return;
    char *p = slop__node_path(n);
    if (!p) return;
    if (child_id) {
        size_t l = strlen(p), cl = strlen(child_id);
        char *q = malloc(l + cl + 2);
        if (!q) {
            free(p);
            return;
        }
        if (l == 1) l = 0; /* root path "/" */
        memcpy(q, p, l);
        q[l] = '/';
        memcpy(q + l + 1, child_id, cl + 1);
        free(p);
        p = q;
    }
    /* Consecutive ops often touch the same node: skip exact repeats cheaply
     * (cJSON keeps an array's last element in child->prev). */
    cJSON *last = list->child ? list->child->prev : NULL;
    if (!(last && strcmp(last->valuestring, p) == 0)) {
        if (ch->count >= SLOP__CHANGES_MAX) ch->truncated = 1;
        else {
            cJSON_AddItemToArray(list, cJSON_CreateString(p));
            ch->count++;
        }
    }
    free(p);
}

/* ---------------------------------------------------------------------- */
/* Patch application with an undo log                                      */
/* ---------------------------------------------------------------------- */

typedef enum { U_FIELD, U_ADD, U_REMOVE, U_MOVE, U_ROOT } undo_kind;

typedef struct undo {
    undo_kind kind;
    slop__node *node;
    int field;               /* U_FIELD                                       */
    cJSON *old;              /* U_FIELD: pre-image of the field, owned        */
    slop__node *old_parent;   /* U_REMOVE                                      */
    size_t old_index;        /* U_REMOVE, U_MOVE                              */
    slop__node *old_root;     /* U_ROOT                                        */
} undo;

typedef struct undo_log {
    undo *v;
    size_t len, cap;
} undo_log;

static int log_push(undo_log *l, undo u) {
    if (l->len == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 16;
        undo *nv = realloc(l->v, nc * sizeof *nv);
        if (!nv) return -1;
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->len++] = u;
    return 0;
}

/* Links n under parent at position at and enters it in the index. -1 when
 * out of memory (n is then neither linked nor indexed). */
static int relink(slop__mirror *m, slop__node *n, slop__node *parent, size_t at) {
    if (kids_insert(parent, n, at) != 0) return -1;
    n->hash = hash_key(parent, n->id);
    if (index_put(&m->index, n) != 0) {
        kids_remove(n);
        return -1;
    }
    return 0;
}

static void rollback(slop__mirror *m, undo_log *l) {
    while (l->len) {
        undo *u = &l->v[--l->len];
        switch (u->kind) {
        case U_FIELD:
            cJSON_Delete(u->node->field[u->field]);
            u->node->field[u->field] = u->old;
            u->old = NULL;
            break;
        case U_ADD:
            kids_remove(u->node);
            node_free(m, u->node);
            break;
        case U_REMOVE: {
            size_t c = subtree_count(u->node);
            m->nodes += c;
            m->budget->used += c;
            relink(m, u->node, u->old_parent, u->old_index);
            break;
        }
        case U_MOVE:
            kids_remove(u->node);
            kids_insert(u->node->parent, u->node, u->old_index);
            break;
        case U_ROOT:
            node_free(m, m->root);
            m->root = u->old_root;
            if (m->root) {
                size_t c = subtree_count(m->root);
                m->nodes += c;
                m->budget->used += c;
            }
            break;
        }
    }
}

/* The patch succeeded: release what the undo log kept alive. */
static void commit(slop__mirror *m, undo_log *l) {
    for (size_t i = 0; i < l->len; i++) {
        undo *u = &l->v[i];
        if (u->kind == U_FIELD) cJSON_Delete(u->old);
        else if (u->kind == U_REMOVE || (u->kind == U_ROOT && u->old_root)) {
            slop__node *dead = u->kind == U_REMOVE ? u->node : u->old_root;
            /* Counted out when detached; node_free counts again, so add back. */
            size_t c = subtree_count(dead);
            m->nodes += c;
            m->budget->used += c;
            node_free(m, dead);
        }
    }
    l->len = 0;
}

/* Detaches child n (kept alive for rollback). */
static int detach_child(slop__mirror *m, undo_log *l, slop__node *n) {
    undo u = {U_REMOVE, n, 0, NULL, n->parent, 0, NULL};
    if (log_push(l, u) != 0) return -1;
    index_del(&m->index, n);
    l->v[l->len - 1].old_index = kids_remove(n);
    size_t c = subtree_count(n);
    m->nodes -= c;
    m->budget->used -= c;
    return 0;
}

/* Decodes a JSON-pointer segment (~1 -> '/', ~0 -> '~'). Returns -1 on a
 * stray '~'. */
static int decode_seg(const char *s, size_t len, char *out, size_t outlen) {
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (ch == '~') {
            if (i + 1 >= len || (s[i + 1] != '0' && s[i + 1] != '1')) return -1;
            ch = s[i + 1] == '1' ? '/' : '~';
            i++;
        }
        if (o + 1 >= outlen) return -1;
        out[o++] = ch;
    }
    out[o] = 0;
    return 0;
}

/* Inserts item before position idx (or appends). Not cJSON_InsertItemInArray:
 * in Debian's 1.7.15+deb12u4 its added corruption check refuses every fresh
 * item (prev == NULL) anywhere but the front, and the item then leaks. */
static void array_insert(cJSON *arr, int idx, cJSON *item) {
    cJSON *after = cJSON_GetArrayItem(arr, idx);
    if (!after) {
        cJSON_AddItemToArray(arr, item);
        return;
    }
    item->next = after;
    item->prev = after->prev;
    after->prev = item;
    if (after == arr->child) arr->child = item;
    else item->prev->next = item;
}

typedef struct op_ctx {
    slop__mirror *m;
    undo_log *log;
    slop__changes *ch;
    char *err;
    size_t errlen;
    int opno;
} op_ctx;

#define OP_FAIL(c, ...)                                                          \
    do {                                                                         \
        char op_msg_[300];                                                       \
        snprintf(op_msg_, sizeof op_msg_, __VA_ARGS__);                          \
        set_err((c)->err, (c)->errlen, "op %d: %s", (c)->opno, op_msg_);         \
        return -1;                                                               \
    } while (0)

static int parse_index(const cJSON *op, int required, long *out, op_ctx *c) {
    cJSON *ji = cJSON_GetObjectItemCaseSensitive(op, "index");
    if (!ji || cJSON_IsNull(ji)) {
        if (required) OP_FAIL(c, "\"index\" is required");
        *out = -1;
        return 0;
    }
    if (!cJSON_IsNumber(ji) || ji->valuedouble < 0 || ji->valuedouble != (double)(long)ji->valuedouble)
        OP_FAIL(c, "\"index\" must be a non-negative integer");
    *out = (long)ji->valuedouble;
    return 0;
}

/* An op inside a field value (properties, meta, ...), RFC 6902 style. */
static int field_op(op_ctx *c, const char *opname, slop__node *n, int f, const char *rest,
                    cJSON *op) {
    if (slop__node_has_field(n, f) && !slop__node_field(n, f)) OP_FAIL(c, "out of memory");
    /* Pre-image for rollback: fields are small, so a copy is cheap. */
    undo u = {U_FIELD, n, f, NULL, NULL, 0, NULL};
    if (n->field[f]) {
        u.old = cJSON_Duplicate(n->field[f], 1);
        if (!u.old) OP_FAIL(c, "out of memory");
    }
    if (log_push(c->log, u) != 0) {
        cJSON_Delete(u.old);
        OP_FAIL(c, "out of memory");
    }
    int is_add = strcmp(opname, "add") == 0, is_rm = strcmp(opname, "remove") == 0;
    cJSON *jv = cJSON_GetObjectItemCaseSensitive(op, "value");
    if (!is_rm && !jv) OP_FAIL(c, "\"%s\" needs a \"value\"", opname);

    if (!*rest) { /* the whole field */
        if (is_rm) {
            if (!n->field[f]) OP_FAIL(c, "no %s to remove", field_names[f]);
            cJSON_Delete(n->field[f]);
            n->field[f] = NULL;
        } else {
            int want_array = f == SLOP__FIELD_AFFORDANCES;
            if (cJSON_IsNull(jv)) {
                cJSON_Delete(n->field[f]);
                n->field[f] = NULL;
            } else {
                if (want_array ? !cJSON_IsArray(jv) : !cJSON_IsObject(jv))
                    OP_FAIL(c, "%s must be %s", field_names[f], want_array ? "an array" : "an object");
                cJSON_Delete(n->field[f]);
                n->field[f] = steal(op, jv);
            }
        }
        note(c->ch, c->ch ? c->ch->changed : NULL, n, NULL);
        return 0;
    }
    if (!n->field[f]) {
        if (!is_add) OP_FAIL(c, "%s has no %s", n->id, field_names[f]);
        n->field[f] = f == SLOP__FIELD_AFFORDANCES ? cJSON_CreateArray() : cJSON_CreateObject();
        if (!n->field[f]) OP_FAIL(c, "out of memory");
    }
    cJSON *cur = n->field[f];
    char key[1024];
    const char *p = rest;
    for (;;) {
        p++; /* skip '/' */
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (decode_seg(p, len, key, sizeof key) != 0) OP_FAIL(c, "bad escape or key in path");
        int last = e == NULL;
        if (cJSON_IsObject(cur)) {
            cJSON *item = cJSON_GetObjectItemCaseSensitive(cur, key);
            if (!last) {
                if (!item) OP_FAIL(c, "no key \"%.64s\" in %s", key, field_names[f]);
                cur = item;
                p += len;
                continue;
            }
            if (is_rm) {
                if (!item) OP_FAIL(c, "no key \"%.64s\" to remove", key);
                cJSON_DeleteItemFromObjectCaseSensitive(cur, key);
            } else if (is_add || item) {
                cJSON *v = steal(op, jv);
                if (item) cJSON_ReplaceItemInObjectCaseSensitive(cur, key, v);
                else cJSON_AddItemToObject(cur, key, v);
            } else {
                OP_FAIL(c, "no key \"%.64s\" to replace", key);
            }
            break;
        } else if (cJSON_IsArray(cur)) {
            int size = cJSON_GetArraySize(cur);
            long idx = -1;
            if (strcmp(key, "-") == 0 && last && is_add) idx = size;
            else {
                char *endp;
                idx = strtol(key, &endp, 10);
                if (!*key || *endp || idx < 0 || (key[0] == '0' && key[1]))
                    OP_FAIL(c, "\"%.64s\" is not an array index", key);
            }
            if (!last) {
                if (idx >= size) OP_FAIL(c, "array index %ld out of range", idx);
                cur = cJSON_GetArrayItem(cur, (int)idx);
                p += len;
                continue;
            }
            if (is_add) {
                if (idx > size) OP_FAIL(c, "array index %ld out of range", idx);
                cJSON *v = steal(op, jv);
                array_insert(cur, (int)idx, v);
            } else {
                if (idx >= size) OP_FAIL(c, "array index %ld out of range", idx);
                if (is_rm) cJSON_DeleteItemFromArray(cur, (int)idx);
                else cJSON_ReplaceItemInArray(cur, (int)idx, steal(op, jv));
            }
            break;
        } else {
            OP_FAIL(c, "cannot descend into a scalar at \"%.64s\"", key);
        }
    }
    note(c->ch, c->ch ? c->ch->changed : NULL, n, NULL);
    return 0;
}

/* Replaces the whole children list of n with the node array jv. */
static int replace_children(op_ctx *c, slop__node *n, cJSON *op, cJSON *jv) {
    if (jv && !cJSON_IsArray(jv) && !cJSON_IsNull(jv)) OP_FAIL(c, "children must be an array");
    while (n->kids) {
        slop__node *k = node_child_at(n, 0);
        note(c->ch, c->ch ? c->ch->removed : NULL, n, k->id);
        if (detach_child(c->m, c->log, k) != 0) OP_FAIL(c, "out of memory");
    }
    cJSON *arr = jv ? steal(op, jv) : NULL;
    size_t at = 0;
    for (cJSON *it = arr ? arr->child : NULL; it; it = it->next, at++) {
        slop__node *k = build(c->m, it, n, "children", c->err, c->errlen);
        if (!k) {
            cJSON_Delete(arr);
            char msg[256];
            snprintf(msg, sizeof msg, "%s", c->err);
            OP_FAIL(c, "%s", msg);
        }
        index_del(&c->m->index, k); /* relink re-enters it at its place */
        if (relink(c->m, k, n, at) != 0) {
            node_free(c->m, k);
            cJSON_Delete(arr);
            OP_FAIL(c, "out of memory");
        }
        undo u = {U_ADD, k, 0, NULL, NULL, 0, NULL};
        if (log_push(c->log, u) != 0) {
            cJSON_Delete(arr);
            OP_FAIL(c, "out of memory");
        }
        note(c->ch, c->ch ? c->ch->added : NULL, n, k->id);
    }
    cJSON_Delete(arr);
    note(c->ch, c->ch ? c->ch->changed : NULL, n, NULL);
    return 0;
}

static int apply_one(op_ctx *c, cJSON *op) {
    slop__mirror *m = c->m;
    if (!cJSON_IsObject(op)) OP_FAIL(c, "an op must be an object");
    cJSON *jop = cJSON_GetObjectItemCaseSensitive(op, "op");
    cJSON *jpath = cJSON_GetObjectItemCaseSensitive(op, "path");
    if (!cJSON_IsString(jop)) OP_FAIL(c, "\"op\" must be a string");
    if (!cJSON_IsString(jpath)) OP_FAIL(c, "\"path\" must be a string");
    const char *opname = jop->valuestring, *path = jpath->valuestring;
    int is_add = strcmp(opname, "add") == 0, is_rm = strcmp(opname, "remove") == 0,
        is_rep = strcmp(opname, "replace") == 0, is_mv = strcmp(opname, "move") == 0;
    if (!is_add && !is_rm && !is_rep && !is_mv) OP_FAIL(c, "unknown op \"%.32s\"", opname);
    if (*path && *path != '/') OP_FAIL(c, "path \"%.64s\" must start with '/'", path);
    if (!m->root) OP_FAIL(c, "no snapshot to patch");
    cJSON *jv = cJSON_GetObjectItemCaseSensitive(op, "value");
    if ((is_add || is_rep) && !jv) OP_FAIL(c, "\"%s\" needs a \"value\"", opname);

    /* Walk node segments until a reserved keyword or the last segment. */
    slop__node *n = m->root;
    const char *p = path;
    char seg[512];
    int after_children = 0; /* the segment follows "children": a node id */
    for (;;) {
        if (!*p || (p == path && p[0] == '/' && !p[1])) { /* "" or "/" */
            /* The path names node n itself. */
            if (n == m->root && (is_rep)) {
                slop__node *fresh = build(m, jv, NULL, "value", c->err, c->errlen);
                if (!fresh) {
                    char msg[256];
                    snprintf(msg, sizeof msg, "%s", c->err);
                    OP_FAIL(c, "%s", msg);
                }
                undo u = {U_ROOT, NULL, 0, NULL, NULL, 0, m->root};
                if (log_push(c->log, u) != 0) {
                    node_free(m, fresh);
                    OP_FAIL(c, "out of memory");
                }
                size_t cnt = subtree_count(m->root);
                m->nodes -= cnt;
                m->budget->used -= cnt;
                m->root = fresh;
                note(c->ch, c->ch ? c->ch->removed : NULL, fresh, NULL);
                note(c->ch, c->ch ? c->ch->added : NULL, fresh, NULL);
                return 0;
            }
            OP_FAIL(c, "\"%s\" cannot target the subscription root", opname);
        }
        p++; /* skip '/' */
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        /* An empty node segment ("//a", "/a//b", "/a/") names no node; inside
         * a field, "" is a key like any other (JSON Pointer). */
        if (len == 0) OP_FAIL(c, "path \"%.64s\" has an empty segment", path);
        if (len >= sizeof seg) OP_FAIL(c, "path segment too long");
        memcpy(seg, p, len);
        seg[len] = 0;
        int f = field_of(seg);
        if (after_children && (f >= 0 || strcmp(seg, "children") == 0))
            OP_FAIL(c, "\"%.64s\" after \"children\" must be a node id, and it is a reserved keyword", seg);
        after_children = 0;
        if (f >= 0) {
            if (is_mv) OP_FAIL(c, "\"move\" applies to child nodes only");
            return field_op(c, opname, n, f, p + len, op);
        }
        if (e && !e[1]) OP_FAIL(c, "path \"%.64s\" has an empty segment", path);
        if (strcmp(seg, "children") == 0) {
            if (!e) { /* the whole list */
                if (is_mv) OP_FAIL(c, "\"move\" applies to child nodes only");
                if (is_rm) return replace_children(c, n, op, NULL);
                return replace_children(c, n, op, jv);
            }
            p += len;
            after_children = 1;
            continue; /* "/a/children/x" addresses child x of a */
        }
        slop__node *k = index_get(&m->index, n, seg);
        if (e && e[1]) { /* more segments follow: descend */
            if (!k) {
                char *np = slop__node_path(n);
                char msg[200];
                snprintf(msg, sizeof msg, "no node \"%.64s\" under %.100s", seg, np ? np : "?");
                free(np);
                OP_FAIL(c, "%s", msg);
            }
            n = k;
            p += len;
            continue;
        }
        /* Last segment: a child op on parent n. */
        if (is_rm) {
            if (!k) OP_FAIL(c, "no node \"%.64s\" to remove", seg);
            note(c->ch, c->ch ? c->ch->removed : NULL, n, seg);
            note(c->ch, c->ch ? c->ch->changed : NULL, n, NULL);
            return detach_child(m, c->log, k) == 0 ? 0 : -1;
        }
        if (is_mv) {
            long idx;
            if (parse_index(op, 1, &idx, c) != 0) return -1;
            if (!k) OP_FAIL(c, "no node \"%.64s\" to move", seg);
            size_t count = node_child_count(n);
            if ((size_t)idx >= count)
                OP_FAIL(c, "move index %ld is past the last position (%zu children)", idx, count);
            size_t to = (size_t)idx;
            undo u = {U_MOVE, k, 0, NULL, NULL, 0, NULL};
            if (log_push(c->log, u) != 0) OP_FAIL(c, "out of memory");
            size_t from = kids_remove(k);
            if (kids_insert(n, k, to) != 0) {
                kids_insert(n, k, from); /* back where it was (a chunk has room there) */
                c->log->len--;
                OP_FAIL(c, "out of memory");
            }
            c->log->v[c->log->len - 1].old_index = from;
            note(c->ch, c->ch ? c->ch->changed : NULL, n, NULL);
            return 0;
        }
        /* add or replace a child node */
        if (!cJSON_IsObject(jv)) OP_FAIL(c, "the value for a child must be a node object");
        cJSON *vid = cJSON_GetObjectItemCaseSensitive(jv, "id");
        if (!vid) cJSON_AddStringToObject(jv, "id", seg);
        else if (!cJSON_IsString(vid) || strcmp(vid->valuestring, seg) != 0)
            OP_FAIL(c, "value.id does not match the path segment \"%.64s\"", seg);
        if (is_rep && !k) OP_FAIL(c, "no node \"%.64s\" to replace", seg);
        long idx = -1;
        if (parse_index(op, 0, &idx, c) != 0) return -1;
        size_t at = node_child_count(n);
        /* Ids are unique among siblings: an add of an existing id would hide
         * a provider's bookkeeping error by replacing the node silently. */
        if (k && is_add) OP_FAIL(c, "node \"%.64s\" already exists (an add needs a new id; replace replaces)", seg);
        if (k) { /* replace: the new node takes the old one's place */
            if (idx < 0) at = kid_rank(k);
            note(c->ch, c->ch ? c->ch->removed : NULL, n, seg);
            if (detach_child(m, c->log, k) != 0) OP_FAIL(c, "out of memory");
        }
        if (idx >= 0) {
            size_t room = node_child_count(n); /* positions 0..room: room appends */
            if ((size_t)idx > room) OP_FAIL(c, "index %ld is past the end (%zu children)", idx, room);
            at = (size_t)idx;
        }
        cJSON *val = steal(op, jv);
        slop__node *fresh = build(m, val, n, "value", c->err, c->errlen);
        cJSON_Delete(val);
        if (!fresh) {
            char msg[256];
            snprintf(msg, sizeof msg, "%s", c->err);
            OP_FAIL(c, "%s", msg);
        }
        index_del(&m->index, fresh);
        if (relink(m, fresh, n, at) != 0) {
            node_free(m, fresh);
            OP_FAIL(c, "out of memory");
        }
        undo u = {U_ADD, fresh, 0, NULL, NULL, 0, NULL};
        if (log_push(c->log, u) != 0) {
            kids_remove(fresh);
            node_free(m, fresh);
            OP_FAIL(c, "out of memory");
        }
        note(c->ch, c->ch ? c->ch->added : NULL, n, seg);
        note(c->ch, c->ch ? c->ch->changed : NULL, n, NULL);
        return 0;
    }
}

int slop__mirror_apply(slop__mirror *m, cJSON *ops, slop__changes *ch, char *err, size_t errlen) {
    if (!cJSON_IsArray(ops)) {
        set_err(err, errlen, "\"ops\" must be an array");
        return -1;
    }
    undo_log log = {0};
    op_ctx c = {m, &log, ch, err, errlen, 0};
    int rc = 0;
    for (cJSON *op = ops->child; op; op = op->next, c.opno++) {
        if (apply_one(&c, op) != 0) {
            rc = -1;
            break;
        }
    }
    if (rc == 0) commit(m, &log);
    else {
        rollback(m, &log);
        /* Undo entries of field ops still own their pre-images after a
         * rollback only when they were not restored: none are. */
    }
    free(log.v);
    return rc;
}
