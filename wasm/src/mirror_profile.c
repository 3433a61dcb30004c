/*
 * mirror_profile.c: what a mirror costs, per node, for the state profiler
 * (slop_consumer_profile in slop_core.h). Sizes are summed up the tree from
 * each node's own size, cached on the node until a patch changes it; the
 * traffic counters are the ones mirror_patch.c keeps as patches commit; the
 * tree text is printed only for nodes whose text changed since the caller's
 * serial, so a caller that caches token counts reads only what changed.
 */
#include <stdlib.h>
#include <string.h>

#include "mirror_impl.h"

typedef struct prow {
    slop__node *n;
    long parent;                /* row index, -1 for the root                */
    unsigned depth;
    uint64_t bytes, nodes, actions; /* the subtree's, once summed            */
    size_t kids;
} prow;

typedef struct pctx {
    slop__mirror *m;
    prow *v;
    size_t len, cap;
    int oom;
} pctx;

/* Pre-order, with each node's own size and actions. The mirror's depth is
 * bounded (SLOP__MAX_TREE_DEPTH), so is the recursion. */
static void collect(pctx *p, slop__node *n, long parent, unsigned depth) {
    if (p->oom) return;
    if (SLOP__RESERVE(p->v, p->len, p->cap, 64) != 0 || slop__node_view_cache(n) != 0) {
        p->oom = 1;
        return;
    }
    if (!n->own_bytes) {
        slop__buf *b = &p->m->scratch;
        b->len = 0;
        slop__node_put(b, n, 0, 1);
        if (b->oom || b->len > UINT32_MAX) {
            b->oom = 0;
            p->oom = 1;
            return;
        }
        n->own_bytes = (uint32_t)b->len;
    }
    long self = (long)p->len;
    p->v[p->len++] = (prow){n, parent, depth, n->own_bytes, 1, n->view_actions - 1, 0};
    slop__kid_iter it;
    for (slop__node *k = slop__kids_first(n, &it); k; k = slop__kids_next(&it)) collect(p, k, self, depth + 1);
}

/* Whether meta has the member key, not null. */
static int meta_has(const slop__node *n, const char *key) {
    cJSON *meta = slop__node_meta_if(n, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, key);
    int has = v && !cJSON_IsNull(v);
    cJSON_Delete(meta);
    return has;
}

static void put_counts(slop__buf *b, const uint64_t *c) {
    for (int i = 0; i < SLOP__TR_COUNT; i++) {
        slop__buf_putc(b, i ? ',' : '[');
        slop__buf_put_number(b, (double)c[i]);
    }
    slop__buf_putc(b, ']');
}

/* One row: [path, type, parent, depth, own_bytes, bytes, nodes, own_actions,
 * actions, salience, windowed, self, sub, text]. */
static void put_row(pctx *p, slop__buf *b, const prow *r, const char *root_path, uint32_t since, char **path,
                    size_t *path_cap) {
    const slop__node *n = r->n;
    size_t len = slop__node_path_len(n);
    if (len + 1 > *path_cap) {
        char *grown = realloc(*path, len + 64);
        if (!grown) {
            p->oom = 1;
            return;
        }
        *path = grown;
        *path_cap = len + 64;
    }
    slop__node_path_write(n, *path);
    slop__buf_putc(b, '[');
    slop__buf_put_path(b, root_path, *path);
    slop__buf_putc(b, ',');
    slop__buf_put_string(b, n->type);
    const double nums[] = {(double)r->parent, r->depth, n->own_bytes, (double)r->bytes,
                           (double)r->nodes, n->view_actions - 1, (double)r->actions};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        slop__buf_putc(b, ',');
        slop__buf_put_number(b, nums[i]);
    }
    slop__buf_putc(b, ',');
    if (n->view_has_salience) slop__buf_put_number(b, n->view_salience);
    else slop__buf_puts(b, "null");
    slop__buf_puts(b, meta_has(n, "window") || meta_has(n, "total_children") ? ",1," : ",0,");
    if (n->traffic) {
        put_counts(b, n->traffic->self);
        slop__buf_putc(b, ',');
        put_counts(b, n->traffic->sub);
        slop__buf_putc(b, ',');
    } else { /* most nodes: never patched */
        slop__buf_puts(b, "[0,0,0,0],[0,0,0,0],");
    }
    if (since == 0 || n->text_serial > since) {
        slop__buf *t = &p->m->scratch;
        t->len = 0;
        slop__node_view_text(t, n, r->depth);
        if (t->oom) {
            t->oom = 0;
            p->oom = 1;
            return;
        }
        slop__buf_put_string(b, t->s); /* the buffer keeps a NUL after its text */
    } else {
        slop__buf_puts(b, "null");
    }
    slop__buf_putc(b, ']');
}

char *slop__mirror_profile(slop__mirror *m, const char *root_path, const char *handle, uint32_t since) {
    pctx p = {m, NULL, 0, 0, 0};
    if (m->root) collect(&p, m->root, -1, 0);
    /* Reverse pre-order: a node's descendants come after it, so each is
     * whole by the time its own row is reached. */
    for (size_t i = p.len; !p.oom && i-- > 0;) {
        prow *r = &p.v[i];
        if (r->kids) r->bytes += 13 + (r->kids - 1) + 1; /* ,"children":[ the commas ] */
        if (r->parent < 0) continue;
        prow *up = &p.v[r->parent];
        up->bytes += r->bytes;
        up->nodes += r->nodes;
        up->actions += r->actions;
        up->kids++;
    }
    slop__buf b = {0};
    slop__buf_puts(&b, "{\"sub\":");
    slop__buf_put_string(&b, handle);
    slop__buf_puts(&b, ",\"serial\":");
    slop__buf_put_number(&b, m->budget->serial);
    slop__buf_puts(&b, ",\"nodes\":");
    slop__buf_put_number(&b, (double)p.len);
    slop__buf_puts(&b, ",\"traffic\":");
    put_counts(&b, m->total);
    slop__buf_puts(&b, m->traffic_lost ? ",\"counters_complete\":false,\"rows\":[" : ",\"counters_complete\":true,\"rows\":[");
    char *path = NULL;
    size_t path_cap = 0;
    for (size_t i = 0; i < p.len && !p.oom; i++) {
        if (i) slop__buf_putc(&b, ',');
        put_row(&p, &b, &p.v[i], root_path, since, &path, &path_cap);
    }
    slop__buf_puts(&b, "]}");
    free(path);
    free(p.v);
    if (p.oom) {
        free(b.s);
        return NULL;
    }
    return slop__buf_take(&b);
}
