/*
 * mirror.c: a subscription's state tree: its id index, children in chunks,
 * errors, nodes, building trees from cJSON or JSON text, and fields. Patch
 * application is mirror_patch.c's. See mirror.h for the data structure and
 * its costs.
 */
#include "mirror_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* Id index: open addressing, linear probing, backward-shift deletion.     */
/* ---------------------------------------------------------------------- */

uint32_t slop__mirror_hash_key(const slop__node *parent, const char *id) {
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

int slop__mirror_index_put(slop__index *ix, slop__node *n) {
    if ((ix->len + 1) * 10 > ix->cap * 7 && index_grow(ix) != 0) return -1;
    size_t j = n->hash & (ix->cap - 1);
    while (ix->slot[j].node) j = (j + 1) & (ix->cap - 1);
    ix->slot[j].node = n;
    ix->slot[j].hash = n->hash;
    ix->len++;
    return 0;
}

slop__node *slop__mirror_index_get(const slop__index *ix, const slop__node *parent, const char *id) {
    if (!ix->cap) return NULL;
    uint32_t h = slop__mirror_hash_key(parent, id);
    size_t mask = ix->cap - 1;
    for (size_t j = h & mask; ix->slot[j].node; j = (j + 1) & mask) {
        if (ix->slot[j].hash != h) continue;
        slop__node *n = ix->slot[j].node;
        if (n->parent == parent && slop__same(n->id, id)) return n;
    }
    return NULL;
}

void slop__mirror_index_del(slop__index *ix, const slop__node *n) {
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

size_t slop__node_child_count(const slop__node *n) { return n->kids ? n->kids->count : 0; }

/* Node at position i among parent's children, or NULL. */
slop__node *slop__mirror_node_child_at(const slop__node *parent, size_t i) {
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
size_t slop__mirror_kid_rank(const slop__node *n) {
    const slop__chunk *c = n->chunk;
    uint32_t pos = 0;
    while (c->node[pos] != n) pos++;
    return fen_prefix(n->parent->kids, c->index) + pos;
}

/* Inserts n at position `at` (clamped) among parent's children. -1 when out
 * of memory (nothing changed). */
int slop__mirror_kids_insert(slop__node *parent, slop__node *n, size_t at) {
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
size_t slop__mirror_kids_remove(slop__node *n) {
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
/* Errors                                                                   */
/* ---------------------------------------------------------------------- */

#define WHERE_MAX 160           /* bytes of a location in a message           */

static size_t append(char *out, size_t cap, size_t at, const char *s, size_t n) {
    if (at + 1 >= cap) return at;
    n = slop__utf8_cut(s, n, cap - 1 - at);
    memcpy(out + at, s, n);
    out[at + n] = '\0';
    return at + n;
}

/* "tree/root/a": the location w names, into out (NUL-terminated). */
static size_t where_text(const where *w, char *out, size_t cap) {
    if (!w->up) return append(out, cap, 0, w->label, strlen(w->label));
    size_t at = where_text(w->up, out, cap);
    at = append(out, cap, at, "/", 1);
    return w->id ? append(out, cap, at, w->id, w->id_len) : append(out, cap, at, "?", 1);
}

/* Records code and "[op N: ][location: ]message"; returns -1. */
int slop__mirror_vfail(mirror_err *e, slop__mirror_status code, const where *w, const char *fmt, va_list ap) {
    e->code = code;
    if (!e->msg || !e->cap) return -1;
    char head[WHERE_MAX + 32];
    size_t at = 0;
    head[0] = '\0';
    if (e->opno >= 0) at = (size_t)snprintf(head, sizeof head, "op %d: ", e->opno);
    if (w) {
        at = where_text(w, head + at, WHERE_MAX) + at;
        append(head, sizeof head, at, ": ", 2);
    }
    size_t hn = (size_t)snprintf(e->msg, e->cap, "%s", head);
    if (hn < e->cap) vsnprintf(e->msg + hn, e->cap - hn, fmt, ap);
    return -1;
}

int slop__mirror_fail(mirror_err *e, slop__mirror_status code, const where *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    slop__mirror_vfail(e, code, w, fmt, ap);
    va_end(ap);
    return -1;
}

int slop__mirror_nomem(mirror_err *e) { return slop__mirror_fail(e, SLOP__MIRROR_NOMEM, NULL, "out of memory"); }

/* ---------------------------------------------------------------------- */
/* Nodes                                                                    */
/* ---------------------------------------------------------------------- */

int slop__mirror_member_of(const char *s) {
    /* By first letter: every member name and every path segment of every
     * op comes through here, most of them no keyword at all. */
    int f;
    switch (s[0]) {
    case 'i': return strcmp(s, "id") == 0 ? M_ID : M_OTHER;
    case 't': return strcmp(s, "type") == 0 ? M_TYPE : M_OTHER;
    case 'c':
        if (strcmp(s, "children") == 0) return M_CHILDREN;
        f = SLOP__FIELD_CONTENT_REF;
        break;
    case 'p': f = SLOP__FIELD_PROPERTIES; break;
    case 'm': f = SLOP__FIELD_META; break;
    case 'a': f = SLOP__FIELD_AFFORDANCES; break;
    default: return M_OTHER;
    }
    return strcmp(s, field_names[f]) == 0 ? f : M_OTHER;
}

/* The reserved keywords: a path segment or a node id that names a field or
 * "children" is one, and is never a node id. */
int slop__mirror_is_reserved(const char *s) {
    int m = slop__mirror_member_of(s);
    return m == M_CHILDREN || (m >= 0 && m < SLOP__FIELD_COUNT);
}

/* Frees n and its subtree, removing them from the index. */
void slop__mirror_node_free(slop__mirror *m, slop__node *n) {
    if (!n) return;
    if (n->kids) {
        slop__kids *k = n->kids;
        for (uint32_t i = 0; i < k->nchunks; i++)
            for (uint32_t j = 0; j < k->chunk[i]->n; j++) slop__mirror_node_free(m, k->chunk[i]->node[j]);
        kids_destroy(k);
    }
    slop__mirror_index_del(&m->index, n);
    if (n->hot)
        for (size_t i = 0; i < m->hot_cap; i++)
            if (m->hot[i].node == n) {
                m->hot[i].node = NULL;
                m->hot_bytes -= m->hot[i].bytes;
                m->hot[i].bytes = 0;
            }
    for (int f = 0; f < SLOP__FIELD_COUNT; f++) {
        cJSON_Delete(n->field[f]);
        if (n->owned & (1u << f)) free((char *)n->raw[f]);
    }
    free(n->traffic);
    m->nodes--;
    m->budget->used--;
    free(n);
}

size_t slop__mirror_subtree_count(const slop__node *n) {
    size_t c = 1;
    slop__kid_iter it;
    for (slop__node *k = slop__kids_first(n, &it); k; k = slop__kids_next(&it)) c += slop__mirror_subtree_count(k);
    return c;
}

/* A copy of item without its member name, for the mirror to keep: a
 * frame's values live in the consumer's frame arena and go with it after
 * the frame. NULL when out of memory. */
cJSON *slop__mirror_copy(const cJSON *item) {
    cJSON bare = *item; /* the same value with no name and no siblings */
    bare.string = NULL;
    bare.next = bare.prev = NULL;
    bare.type &= ~cJSON_StringIsConst;
    return cJSON_Duplicate(&bare, 1);
}

/* ---------------------------------------------------------------------- */
/* Building a node: the rules, once                                         */
/* ---------------------------------------------------------------------- */
/*
 * Two front ends read a node: build_json from cJSON values (patch values,
 * snapshots inside a batch) and build_text straight from a snapshot's text.
 * Both only walk their input; every rule of the spec lives in the shared
 * steps below: node_open (depth, an object), check_member (the JSON type of
 * id, type, children and each field; null means absent) and node_finish
 * (id and type present, ids never reserved, the node budget, ids unique
 * among siblings, then the node itself). Children are built before their
 * parent (the text learns a node's size only at its end), so node_finish
 * also links them.
 */

typedef struct span {
    const char *p;
    size_t n;
} span;

/* What a front end read of one node object. */
typedef struct node_parts {
    const char *id, *type;      /* decoded, NUL-terminated; NULL: absent      */
    size_t id_len, type_len;
    span raw[SLOP__FIELD_COUNT]; /* text: field values as JSON text           */
    cJSON *obj;                 /* cJSON: the node object, and its field      */
    cJSON *json[SLOP__FIELD_COUNT]; /* members, copied once the node is made   */
    slop__node **kids;          /* built children, not linked yet             */
    size_t nk, capk;
} node_parts;

size_t slop__mirror_budget_left(const slop__budget *b) { return b->max > b->used ? b->max - b->used : 0; }

static int node_open(build_ctx *b, const where *up, unsigned depth, int is_object) {
    if (depth > SLOP__MAX_TREE_DEPTH)
        return slop__mirror_fail(b->err, SLOP__MIRROR_INVALID, up, "tree is deeper than %d levels", SLOP__MAX_TREE_DEPTH);
    if (!is_object) return slop__mirror_fail(b->err, SLOP__MIRROR_INVALID, up, "a node must be an object");
    return 0;
}

/* What a field's value must be, null aside: NULL when k is right. */
const char *slop__mirror_field_type_error(int f, vkind k) {
    int want_array = f == SLOP__FIELD_AFFORDANCES;
    if (k == (want_array ? V_ARRAY : V_OBJECT)) return NULL;
    return want_array ? "an array" : "an object";
}

/* The type rules of the members that mean something (see member_of). */
static int check_member(build_ctx *b, const where *up, const where *self, int which, vkind k) {
    if (which == M_ID || which == M_TYPE) {
        if (k != V_STRING)
            return slop__mirror_fail(b->err, SLOP__MIRROR_INVALID, up, "node \"%s\" must be a string", which == M_ID ? "id" : "type");
    } else if (which == M_CHILDREN) {
        if (k != V_ARRAY && k != V_NULL) return slop__mirror_fail(b->err, SLOP__MIRROR_INVALID, self, "\"children\" must be an array");
    } else if (which >= 0 && k != V_NULL) {
        const char *want = slop__mirror_field_type_error(which, k);
        if (want) return slop__mirror_fail(b->err, SLOP__MIRROR_INVALID, up, "\"%s\" must be %s", field_names[which], want);
    }
    return 0;
}

static int check_id(build_ctx *b, const char *id) {
    if (!*id) return slop__mirror_fail(b->err, SLOP__MIRROR_INVALID, NULL, "node id is empty");
    if (strchr(id, '/') || strchr(id, '~'))
        return slop__mirror_fail(b->err, SLOP__MIRROR_INVALID, NULL, "node id \"%.64s\" contains '/' or '~'", id);
    if (slop__mirror_is_reserved(id)) return slop__mirror_fail(b->err, SLOP__MIRROR_INVALID, NULL, "node id \"%s\" is a reserved keyword", id);
    return 0;
}

static void parts_free(build_ctx *b, node_parts *p) {
    for (size_t i = 0; i < p->nk; i++) slop__mirror_node_free(b->m, p->kids[i]);
    free(p->kids);
    p->kids = NULL;
    p->nk = p->capk = 0;
}

static int parts_add_kid(build_ctx *b, node_parts *p, slop__node *k) {
    if (SLOP__RESERVE(p->kids, p->nk, p->capk, 8) != 0) {
        slop__mirror_node_free(b->m, k);
        return slop__mirror_nomem(b->err);
    }
    p->kids[p->nk++] = k;
    return 0;
}

/* Room for a field's text in its node: an eighth more than the snapshot's
 * text, so a patched field printed back (a counter going up, true becoming
 * false) usually fits where it was instead of moving to a buffer of its own
 * and leaving its old room unused. */
static size_t raw_room(size_t n) { return n + n / 8 + 2; }

/* One allocation holds the node, its id, its type and its raw fields. */
static slop__node *node_alloc(build_ctx *b, const node_parts *p) {
    size_t rawn = 0;
    for (int f = 0; f < SLOP__FIELD_COUNT; f++)
        if (p->raw[f].p) rawn += raw_room(p->raw[f].n);
    slop__node *n = calloc(1, sizeof *n + p->id_len + p->type_len + 2 + rawn);
    if (!n) return NULL;
    char *s = (char *)(n + 1);
    memcpy(s, p->id, p->id_len + 1);
    n->id = s;
    s += p->id_len + 1;
    memcpy(s, p->type, p->type_len + 1);
    n->type = s;
    s += p->type_len + 1;
    for (int f = 0; f < SLOP__FIELD_COUNT; f++) {
        if (p->raw[f].p) {
            memcpy(s, p->raw[f].p, p->raw[f].n);
            n->raw[f] = s;
            n->raw_len[f] = (uint32_t)p->raw[f].n;
            n->raw_cap[f] = (uint32_t)raw_room(p->raw[f].n);
            s += n->raw_cap[f];
        } else if (p->json[f] && !(n->field[f] = slop__mirror_copy(p->json[f]))) {
            for (int g = 0; g < f; g++) cJSON_Delete(n->field[g]);
            free(n);
            return NULL;
        }
    }
    n->text_serial = b->m->budget->serial;
    b->budget_left--;
    b->m->nodes++;
    b->m->budget->used++;
    return n;
}

/* Links the built children under n and enters them in the index. -1, with
 * none of them linked, on a duplicate id or out of memory. */
static int link_kids(build_ctx *b, const where *self, slop__node *n, node_parts *p) {
    for (size_t i = 0; i < p->nk; i++) {
        slop__node *k = p->kids[i];
        k->parent = n;
        k->hash = slop__mirror_hash_key(n, k->id);
        int dup = slop__mirror_index_get(&b->m->index, n, k->id) != NULL;
        if (dup || slop__mirror_index_put(&b->m->index, k) != 0) {
            for (size_t j = 0; j < i; j++) slop__mirror_index_del(&b->m->index, p->kids[j]);
            if (!dup) return slop__mirror_nomem(b->err);
            return slop__mirror_fail(b->err, SLOP__MIRROR_INVALID, self, "two children have the id \"%s\"", k->id);
        }
    }
    if (p->nk && kids_build(n, p->kids, p->nk) != 0) {
        for (size_t j = 0; j < p->nk; j++) slop__mirror_index_del(&b->m->index, p->kids[j]);
        return slop__mirror_nomem(b->err);
    }
    return 0;
}

/* After the members, the rules of the whole node: id and type present, the
 * id no reserved keyword, room in the node budget. */
static int node_rules(build_ctx *b, const where *up, const where *self, const node_parts *p) {
    if (!p->id) return slop__mirror_fail(b->err, SLOP__MIRROR_INVALID, up, "node has no string \"id\"");
    if (check_id(b, p->id) != 0) return -1;
    if (!p->type) return slop__mirror_fail(b->err, SLOP__MIRROR_INVALID, self, "node has no string \"type\"");
    if (b->budget_left == 0)
        return slop__mirror_fail(b->err, SLOP__MIRROR_TOO_MANY_NODES, NULL, "tree exceeds the limit of %zu mirrored nodes",
                    b->m->budget->max);
    return 0;
}

/* The node itself once its rules hold, with its children linked. up is
 * where the node sits, self the node. On failure everything in p is freed. */
static slop__node *node_finish(build_ctx *b, const where *up, const where *self, node_parts *p) {
    slop__node *n = NULL;
    if (node_rules(b, up, self, p) == 0 && !(n = node_alloc(b, p))) slop__mirror_nomem(b->err);
    if (n && link_kids(b, self, n, p) == 0) {
        free(p->kids);
        return n;
    }
    parts_free(b, p);
    if (n) slop__mirror_node_free(b->m, n);
    return NULL;
}

/* ---- from cJSON --------------------------------------------------------- */

vkind slop__mirror_json_kind(const cJSON *v) {
    if (cJSON_IsString(v)) return V_STRING;
    if (cJSON_IsObject(v)) return V_OBJECT;
    if (cJSON_IsArray(v)) return V_ARRAY;
    return cJSON_IsNull(v) ? V_NULL : V_OTHER;
}

/* Builds the node j (and its subtree), taking its field values from j. */
slop__node *slop__mirror_build_json(build_ctx *b, cJSON *j, const where *up, unsigned depth) {
    if (node_open(b, up, depth, cJSON_IsObject(j)) != 0) return NULL;
    where self = {up, NULL, NULL, 0};
    node_parts p = {0};
    p.obj = j;
    cJSON *kids = NULL;
    for (cJSON *it = j->child; it; it = it->next) {
        int which = slop__mirror_member_of(it->string);
        vkind k = slop__mirror_json_kind(it);
        if (which == M_OTHER) continue;
        if (check_member(b, up, &self, which, k) != 0) return NULL;
        if (k == V_NULL) continue; /* null is absent */
        if (which == M_ID) {
            p.id = self.id = it->valuestring;
            p.id_len = self.id_len = strlen(p.id);
        } else if (which == M_TYPE) {
            p.type = it->valuestring;
            p.type_len = strlen(p.type);
        } else if (which == M_CHILDREN) {
            kids = it;
        } else {
            p.json[which] = it;
        }
    }
    for (cJSON *c = kids ? kids->child : NULL; c; c = c->next) {
        slop__node *k = slop__mirror_build_json(b, c, &self, depth + 1);
        if (!k || parts_add_kid(b, &p, k) != 0) {
            parts_free(b, &p);
            return NULL;
        }
    }
    return node_finish(b, up, &self, &p);
}

/* ---- from JSON text ----------------------------------------------------- */

typedef struct text_ctx {
    build_ctx *b;
    slop__scan *sc;
    char *tmp;                  /* decoded id while the type is decoded      */
    size_t tmp_cap;
} text_ctx;

static vkind text_kind(char first) {
    switch (first) {
    case '"': return V_STRING;
    case '{': return V_OBJECT;
    case '[': return V_ARRAY;
    case 'n': return V_NULL; /* the scanner accepted the value: "null" */
    default: return V_OTHER;
    }
}

static slop__node *build_text(text_ctx *t, const where *up, unsigned depth);

/* The children array at the scanner's position, each child built. */
static int text_children(text_ctx *t, const where *self, node_parts *p, unsigned depth) {
    slop__scan *sc = t->sc;
    if (slop__scan_enter(sc) != 0) return slop__mirror_fail(t->b->err, SLOP__MIRROR_INVALID, NULL, "tree nests too deeply");
    sc->pos++;
    slop__scan_ws(sc);
    if (sc->pos < sc->len && sc->s[sc->pos] == ']') sc->pos++;
    else
        for (;;) {
            slop__node *k = build_text(t, self, depth + 1);
            if (!k || parts_add_kid(t->b, p, k) != 0) return -1;
            int more = slop__scan_next(sc, ']');
            if (more < 0) return slop__mirror_fail(t->b->err, SLOP__MIRROR_INVALID, self, "expected ',' or ']' in children");
            if (!more) break;
        }
    sc->depth--;
    return 0;
}

/* One member of a node object: its name, then its value, checked by the
 * shared rules and kept as text (id and type are decoded at the end). */
static int text_member(text_ctx *t, const where *up, where *self, node_parts *p, span *id, span *type,
                       unsigned depth) {
    mirror_err *e = t->b->err;
    slop__scan *sc = t->sc;
    slop__scan_ws(sc);
    size_t kn = 0, at = sc->pos;
    if (slop__scan_string(sc, &kn) != 0 || slop__scan_name(sc, at) != 0)
        return slop__mirror_fail(e, SLOP__MIRROR_INVALID, up, "bad member name (%s)", sc->why ? sc->why : "not a string");
    int which = slop__mirror_member_of(sc->buf);
    slop__scan_ws(sc);
    if (sc->pos >= sc->len || sc->s[sc->pos] != ':') return slop__mirror_fail(e, SLOP__MIRROR_INVALID, up, "expected ':'");
    sc->pos++;
    slop__scan_ws(sc);
    if (sc->pos >= sc->len) return slop__mirror_fail(e, SLOP__MIRROR_INVALID, up, "truncated");
    size_t start = sc->pos;
    vkind k = text_kind(sc->s[start]);
    if (which == M_CHILDREN && k == V_ARRAY) return text_children(t, self, p, depth);
    if (slop__scan_value(sc) != 0) {
        if (sc->too_deep) return slop__mirror_fail(e, SLOP__MIRROR_INVALID, NULL, "tree nests too deeply");
        return slop__mirror_fail(e, SLOP__MIRROR_INVALID, up, "%s", sc->why ? sc->why : "invalid JSON");
    }
    if (which == M_OTHER) return 0;
    if (check_member(t->b, up, self, which, k) != 0) return -1;
    span v = {sc->s + start, sc->pos - start};
    if (k == V_NULL) return 0; /* null is absent */
    if (which == M_ID) {
        *id = v;
        self->id = v.p + 1; /* inside the quotes */
        self->id_len = v.n - 2;
    } else if (which == M_TYPE) {
        *type = v;
    } else if (which < SLOP__FIELD_COUNT) {
        p->raw[which] = v;
    }
    return 0;
}

/* Decodes the id into t->tmp and the type into the scanner's buffer: both
 * stay there until node_finish has copied them. */
static int text_decode(text_ctx *t, node_parts *p, span id, span type) {
    slop__scan *sc = t->sc;
    if (id.p) {
        if (slop__scan_string_at(sc, (size_t)(id.p - sc->s), &p->id_len) != 0) return slop__mirror_nomem(t->b->err);
        if (t->tmp_cap < p->id_len + 1) {
            char *nt = realloc(t->tmp, p->id_len + 1);
            if (!nt) return slop__mirror_nomem(t->b->err);
            t->tmp = nt;
            t->tmp_cap = p->id_len + 1;
        }
        memcpy(t->tmp, sc->buf, p->id_len + 1);
        p->id = t->tmp;
    }
    if (type.p) {
        if (slop__scan_string_at(sc, (size_t)(type.p - sc->s), &p->type_len) != 0) return slop__mirror_nomem(t->b->err);
        p->type = sc->buf;
    }
    return 0;
}

/* Builds the node whose object starts at the scanner's position. */
static slop__node *build_text(text_ctx *t, const where *up, unsigned depth) {
    slop__scan *sc = t->sc;
    mirror_err *e = t->b->err;
    slop__scan_ws(sc);
    if (node_open(t->b, up, depth, sc->pos < sc->len && sc->s[sc->pos] == '{') != 0) return NULL;
    if (slop__scan_enter(sc) != 0) {
        slop__mirror_fail(e, SLOP__MIRROR_INVALID, NULL, "tree nests too deeply");
        return NULL;
    }
    sc->pos++;
    slop__scan_ws(sc);
    where self = {up, NULL, NULL, 0};
    node_parts p = {0};
    span id = {0}, type = {0};
    size_t names = sc->keys_len;
    int more = 1;
    if (sc->pos < sc->len && sc->s[sc->pos] == '}') {
        sc->pos++;
        more = 0;
    }
    while (more) {
        if (text_member(t, up, &self, &p, &id, &type, depth) != 0) goto fail;
        more = slop__scan_next(sc, '}');
        if (more < 0) {
            slop__mirror_fail(e, SLOP__MIRROR_INVALID, up, "expected ',' or '}'");
            goto fail;
        }
    }
    sc->depth--;
    if (slop__scan_keys_end(sc, names) != 0) {
        slop__mirror_fail(e, SLOP__MIRROR_INVALID, up, "a member name appears twice in a node");
        goto fail;
    }
    if (text_decode(t, &p, id, type) != 0) goto fail;
    return node_finish(t->b, up, &self, &p);
fail:
    parts_free(t->b, &p);
    return NULL;
}

/* ---- whole trees ---------------------------------------------------------- */

typedef struct text_src {
    const char *text;
    size_t len;
    unsigned max_depth;
} text_src;

static slop__node *root_from_json(build_ctx *b, void *tree) {
    where top = {NULL, "tree", NULL, 0};
    return slop__mirror_build_json(b, tree, &top, 0);
}

static slop__node *root_from_text(build_ctx *b, void *src) {
    const text_src *ts = src;
    slop__scan sc;
    slop__scan_init(&sc, ts->text, ts->len, ts->max_depth);
    text_ctx t = {b, &sc, NULL, 0};
    where top = {NULL, "tree", NULL, 0};
    slop__node *root = build_text(&t, &top, 0);
    slop__scan_ws(&sc);
    if (root && sc.pos != ts->len) {
        slop__mirror_fail(b->err, SLOP__MIRROR_INVALID, NULL, "trailing bytes after the tree");
        slop__mirror_node_free(b->m, root);
        root = NULL;
    }
    free(t.tmp);
    slop__scan_free(&sc);
    return root;
}

/* Builds a new tree into a scratch mirror, so a refused one leaves the old
 * state; the new tree's nodes replace the old ones in the budget. */
static slop__mirror_status load(slop__mirror *m, slop__node *(*root_from)(build_ctx *, void *), void *src,
                                char *err, size_t errlen) {
    slop__mirror fresh;
    slop__mirror_init(&fresh, m->budget);
    m->budget->serial++;
    size_t old = m->nodes;
    m->budget->used -= old;
    mirror_err e = {SLOP__MIRROR_OK, err, errlen, -1};
    build_ctx b = {&fresh, slop__mirror_budget_left(m->budget), &e};
    fresh.root = root_from(&b, src);
    m->budget->used += old;
    if (!fresh.root) {
        slop__mirror_clear(&fresh);
        return e.code != SLOP__MIRROR_OK ? e.code : SLOP__MIRROR_INVALID;
    }
    memcpy(fresh.total, m->total, sizeof fresh.total); /* the subscription's traffic goes on */
    slop__mirror_clear(m);
    *m = fresh;
    return SLOP__MIRROR_OK;
}

slop__mirror_status slop__mirror_load(slop__mirror *m, cJSON *tree, char *err, size_t errlen) {
    return load(m, root_from_json, tree, err, errlen);
}

slop__mirror_status slop__mirror_load_text(slop__mirror *m, const char *text, size_t len, unsigned max_depth,
                                           char *err, size_t errlen) {
    text_src src = {text, len, max_depth};
    return load(m, root_from_text, &src, err, errlen);
}

void slop__mirror_init(slop__mirror *m, slop__budget *budget) {
    memset(m, 0, sizeof *m);
    m->budget = budget;
}

void slop__mirror_clear(slop__mirror *m) {
    /* The ring goes first, so freeing the nodes need not search it. */
    for (size_t i = 0; i < m->hot_cap; i++)
        if (m->hot[i].node) m->hot[i].node->hot = 0;
    free(m->hot);
    m->hot = NULL;
    m->hot_cap = m->hot_head = m->hot_len = m->hot_bytes = 0;
    slop__mirror_node_free(m, m->root);
    m->root = NULL;
    free(m->index.slot);
    m->index.slot = NULL;
    m->index.cap = m->index.len = 0;
    free(m->scratch.s);
    memset(&m->scratch, 0, sizeof m->scratch);
    m->traffic_lost = 0;
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
        n = slop__mirror_index_get(&m->index, n, seg);
        if (!n) return NULL;
        p += len;
    }
    return n;
}

size_t slop__node_path_len(const slop__node *n) {
    size_t len = 0;
    for (const slop__node *c = n; c->parent; c = c->parent) len += strlen(c->id) + 1;
    return len ? len : 1; /* the root is "/" */
}

void slop__node_path_write(const slop__node *n, char *out) {
    size_t at = slop__node_path_len(n);
    out[at] = '\0';
    if (!n->parent) {
        out[0] = '/';
        return;
    }
    for (const slop__node *c = n; c->parent; c = c->parent) {
        size_t l = strlen(c->id);
        at -= l;
        memcpy(out + at, c->id, l);
        out[--at] = '/';
    }
}

char *slop__node_path(const slop__node *n) {
    char *s = malloc(slop__node_path_len(n) + 1);
    if (s) slop__node_path_write(n, s);
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
            cJSON_AddItemToObject(o, field_names[f], slop__json_parse_exact(n->raw[f], n->raw_len[f]));
    }
    if (n->kids && depth != 0) {
        cJSON *arr = cJSON_AddArrayToObject(o, "children");
        slop__kid_iter it;
        for (slop__node *k = slop__kids_first(n, &it); k; k = slop__kids_next(&it))
            cJSON_AddItemToArray(arr, slop__node_to_json(k, depth < 0 ? -1 : depth - 1));
    } /* no children: no "children" member, however the provider wrote it */
    return o;
}

void slop__node_put(slop__buf *b, const slop__node *n, int depth, int close) {
    slop__buf_puts(b, "{\"id\":");
    slop__buf_put_string(b, n->id);
    slop__buf_puts(b, ",\"type\":");
    slop__buf_put_string(b, n->type);
    for (int f = 0; f < SLOP__FIELD_COUNT; f++) {
        if (!n->field[f] && !n->raw[f]) continue;
        slop__buf_puts(b, ",\"");
        slop__buf_puts(b, field_names[f]);
        slop__buf_puts(b, "\":");
        /* Untouched: the text the scanner accepted, as the provider wrote it. */
        if (n->field[f]) slop__buf_put_json(b, n->field[f]);
        else slop__buf_putn(b, n->raw[f], n->raw_len[f]);
    }
    if (n->kids && depth != 0) {
        slop__buf_puts(b, ",\"children\":[");
        slop__kid_iter it;
        int first = 1;
        for (slop__node *k = slop__kids_first(n, &it); k; k = slop__kids_next(&it), first = 0) {
            if (!first) slop__buf_putc(b, ',');
            slop__node_put(b, k, depth < 0 ? -1 : depth - 1, 1);
        }
        slop__buf_putc(b, ']');
    }
    if (close) slop__buf_putc(b, '}');
}

/* Whether n's meta may have the member key: a raw field is searched as text
 * (parsing it for every view would cost more than the view), so a string
 * value equal to the key counts too; callers then parse and look. */
int slop__mirror_meta_may_have(const slop__node *n, const char *key) {
    const int f = SLOP__FIELD_META;
    if (n->field[f]) return cJSON_GetObjectItemCaseSensitive(n->field[f], key) != NULL;
    if (!n->raw[f]) return 0;
    size_t kl = strlen(key);
    const char *r = n->raw[f], *end = r + n->raw_len[f];
    for (const char *q = r; q + kl + 2 <= end; q++)
        if (q[0] == '"' && memcmp(q + 1, key, kl) == 0 && q[kl + 1] == '"') return 1;
    return 0;
}

cJSON *slop__node_meta_if(const slop__node *n, const char *key) {
    const int f = SLOP__FIELD_META;
    if (!slop__mirror_meta_may_have(n, key)) return NULL;
    return n->field[f] ? cJSON_Duplicate(n->field[f], 1) : slop__json_parse_exact(n->raw[f], n->raw_len[f]);
}

/* Forgets field f's text (freeing it when it has a buffer of its own). */
void slop__mirror_raw_drop(slop__node *n, int f) {
    if (n->owned & (1u << f)) free((char *)n->raw[f]);
    n->owned &= (uint8_t)~(1u << f);
    n->raw[f] = NULL;
    n->raw_len[f] = 0;
}

cJSON *slop__node_field(slop__node *n, int f) {
    if (!n->field[f] && n->raw[f]) {
        /* The scanner (or the printer, for a field printed back) wrote this
         * text, and cJSON accepts a superset. */
        n->field[f] = slop__json_parse_exact(n->raw[f], n->raw_len[f]);
        if (n->field[f]) slop__mirror_raw_drop(n, f);
    }
    return n->field[f];
}

/* Where field f's text went in n's allocation: after the id, the type and
 * the room of the fields before it (node_alloc's layout). */
static char *raw_home(slop__node *n, int f) {
    char *s = (char *)n->type + strlen(n->type) + 1;
    for (int g = 0; g < f; g++) s += n->raw_cap[g];
    return s;
}

/* Prints a parsed field back to compact text: into its room in the node's
 * allocation when it fits, else into a buffer of its own. Left parsed when
 * out of memory. Numbers come out in the shortest text that reads back the
 * same double, as in every view of a patched field. */
static void field_compact(slop__node *n, int f) {
    if (!n->field[f]) return;
    slop__buf b = {0};
    slop__buf_put_json(&b, n->field[f]);
    if (b.oom || !b.s || b.len > UINT32_MAX) {
        free(b.s);
        return;
    }
    if (b.len <= n->raw_cap[f]) {
        char *home = raw_home(n, f);
        memcpy(home, b.s, b.len);
        free(b.s);
        n->raw[f] = home;
    } else {
        char *own = realloc(b.s, b.len ? b.len : 1); /* give back the slack */
        n->raw[f] = own ? own : b.s;
        n->owned |= (uint8_t)(1u << f);
    }
    n->raw_len[f] = (uint32_t)b.len;
    cJSON_Delete(n->field[f]);
    n->field[f] = NULL;
}

/* The ring's size for the mirror as it is now (mirror.h); it only grows,
 * its fields copied oldest first. */
static void hot_fit(slop__mirror *m) {
    size_t want = m->nodes * 2;
    want = want < SLOP__HOT_MIN ? SLOP__HOT_MIN : want > SLOP__HOT_MAX ? SLOP__HOT_MAX : want;
    if (want <= m->hot_cap) return;
    slop__hot *grown = calloc(want, sizeof *grown);
    if (!grown) return; /* the ring as it was: fields are printed back sooner */
    for (size_t i = 0; i < m->hot_len; i++) grown[i] = m->hot[(m->hot_head + i) % m->hot_cap];
    free(m->hot);
    m->hot = grown;
    m->hot_cap = want;
    m->hot_head = 0;
}

/* The oldest field leaves the ring, printed back to text. */
static void hot_evict(slop__mirror *m) {
    slop__hot *slot = &m->hot[m->hot_head];
    if (slot->node) {
        slot->node->hot &= (uint8_t)~(1u << slot->field);
        field_compact(slot->node, slot->field);
    }
    m->hot_bytes -= slot->bytes;
    *slot = (slop__hot){NULL, 0, 0};
    m->hot_head = (m->hot_head + 1) % m->hot_cap;
    m->hot_len--;
}

/* Field f of n was just patched: it joins the ring, and the oldest fields
 * leave it while it is full or over its bytes. Out of memory with no ring
 * at all, the field is printed back at once. */
void slop__mirror_hot_touch(slop__mirror *m, slop__node *n, int f) {
    if (n->hot & (1u << f)) return;
    hot_fit(m);
    if (!m->hot_cap) {
        field_compact(n, f);
        return;
    }
    if (m->hot_len == m->hot_cap) hot_evict(m);
    uint32_t bytes = n->raw_cap[f] ? n->raw_cap[f] : 64;
    m->hot[(m->hot_head + m->hot_len) % m->hot_cap] = (slop__hot){n, f, bytes};
    m->hot_len++;
    m->hot_bytes += bytes;
    n->hot |= (uint8_t)(1u << f);
    while (m->hot_bytes > SLOP__HOT_BYTES && m->hot_len > SLOP__HOT_MIN) hot_evict(m);
}

int slop__node_has_field(const slop__node *n, int f) { return n->field[f] != NULL || n->raw[f] != NULL; }

/* ---------------------------------------------------------------------- */
/* Changes                                                                  */
/* ---------------------------------------------------------------------- */

/* An empty array node from the arena (cJSON links items without allocating). */
static cJSON *arena_array(slop__arena *a) {
    cJSON *v = slop__arena_alloc(a, sizeof *v);
    if (v) {
        memset(v, 0, sizeof *v);
        v->type = cJSON_Array;
    }
    return v;
}

int slop__changes_init(slop__changes *ch, slop__arena *arena) {
    memset(ch, 0, sizeof *ch);
    ch->arena = arena;
    ch->changed = arena_array(arena);
    ch->added = arena_array(arena);
    ch->removed = arena_array(arena);
    return ch->changed && ch->added && ch->removed ? 0 : -1;
}

void slop__changes_free(slop__changes *ch) {
    free(ch->kids); /* the rest is the arena's */
    ch->kids = NULL;
    ch->nkids = ch->kids_cap = 0;
}
