/*
 * mirror_patch.c: the changes a patch reports (slop__changes), and patch
 * application with an undo log: every op records how to undo itself, and a
 * patch that fails part way is rolled back (mirror.h).
 */
#include "mirror_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* Patch application with an undo log                                      */
/* ---------------------------------------------------------------------- */

/* A field op keeps only what it replaced, never a copy of the field: a
 * whole field's old value (U_FIELD), or inside a field the one member or
 * element it took out, with where it was (U_VAL). Undone in reverse order,
 * every container is as the op left it when its entry is undone. */
typedef enum { U_FIELD, U_VAL, U_ADD, U_REMOVE, U_MOVE, U_ROOT } undo_kind;

typedef struct undo {
    undo_kind kind;
    slop__node *node;
    int field;               /* U_FIELD, U_VAL                                */
    cJSON *old;              /* U_FIELD: the field's old value (NULL: absent);
                              * U_VAL: the item taken out (NULL: none). Owned:
                              * freed at commit, put back at rollback         */
    slop__node *old_parent;  /* U_REMOVE                                      */
    size_t old_index;        /* U_REMOVE, U_MOVE                              */
    slop__node *old_root;    /* U_ROOT                                        */
    cJSON *box;              /* U_VAL: the object or array changed            */
    cJSON *neu;              /* U_VAL: the item put in (NULL: none), in the
                              * old one's place when both are set             */
    cJSON *after;            /* U_VAL removal: the item it followed (NULL: it
                              * was first)                                   */
} undo;

/* The log: a patch's first entries in place (a small patch allocates
 * none), more on the heap. */
#define UNDO_INLINE 8
typedef struct undo_log {
    undo *v;                 /* first, or malloc'd (owned) once it outgrew it */
    size_t len, cap;
    undo first[UNDO_INLINE];
} undo_log;

/* Room for one more entry, made before a change that cannot be taken back
 * if the entry then failed to go in. */
static int log_room(undo_log *l) {
    if (l->len < l->cap) return 0;
    if (l->cap > SIZE_MAX / 2 / sizeof *l->v) return -1;
    size_t cap = l->cap * 2;
    undo *v = l->v == l->first ? malloc(cap * sizeof *v) : realloc(l->v, cap * sizeof *v);
    if (!v) return -1;
    if (l->v == l->first) memcpy(v, l->first, sizeof l->first);
    l->v = v;
    l->cap = cap;
    return 0;
}

static int log_push(undo_log *l, undo u) {
    if (log_room(l) != 0) return -1;
    l->v[l->len++] = u;
    return 0;
}

/* cJSON's list of a container's items: the first item's prev is the last,
 * the last item's next is NULL. */

/* Puts item into box's list after `after` (NULL: first). */
static void link_after(cJSON *box, cJSON *item, cJSON *after) {
    if (!after) {
        cJSON *first = box->child;
        item->next = first;
        item->prev = first ? first->prev : item;
        if (first) first->prev = item;
        box->child = item;
        return;
    }
    item->prev = after;
    item->next = after->next;
    if (after->next) after->next->prev = item;
    else box->child->prev = item;
    after->next = item;
}

/* Puts neu in out's place in box's list, with out's member name (moved, not
 * copied); out leaves the list, nameless. */
static void swap_in(cJSON *box, cJSON *out, cJSON *neu) {
    neu->string = out->string;
    neu->type = (neu->type & ~cJSON_StringIsConst) | (out->type & cJSON_StringIsConst);
    out->string = NULL;
    out->type &= ~cJSON_StringIsConst;
    neu->next = out->next;
    if (out->next) out->next->prev = neu;
    if (box->child == out) {
        neu->prev = out->prev == out ? neu : out->prev;
        box->child = neu;
    } else {
        neu->prev = out->prev;
        out->prev->next = neu;
        if (!out->next) box->child->prev = neu;
    }
    out->next = out->prev = NULL;
}

/* Links n under parent at position at and enters it in the index. -1 when
 * out of memory (n is then neither linked nor indexed). */
static int relink(slop__mirror *m, slop__node *n, slop__node *parent, size_t at) {
    if (slop__mirror_kids_insert(parent, n, at) != 0) return -1;
    n->hash = slop__mirror_hash_key(parent, n->id);
    if (slop__mirror_index_put(&m->index, n) != 0) {
        slop__mirror_kids_remove(n);
        return -1;
    }
    return 0;
}

/* A detached subtree counts again in the mirror and its budget. */
static void count_back(slop__mirror *m, const slop__node *n) {
    size_t c = slop__mirror_subtree_count(n);
    m->nodes += c;
    m->budget->used += c;
}

/* The node's own text, size or tools may differ now. */
static void node_changed(const slop__mirror *m, slop__node *n) {
    n->view_actions = 0; /* the agent view counts again (agent_tools.c) */
    n->own_bytes = 0;
    n->text_serial = m->budget->serial;
}

static void rollback(slop__mirror *m, undo_log *l) {
    while (l->len) {
        undo *u = &l->v[--l->len];
        switch (u->kind) {
        /* Fields stay parsed until the patch is over (the hot ring moves
         * only at commit): what an entry points into is still there. A
         * field given back stays parsed, as one a reader parsed does. */
        case U_FIELD:
            node_changed(m, u->node);
            cJSON_Delete(u->node->field[u->field]);
            u->node->field[u->field] = u->old;
            u->old = NULL;
            break;
        case U_VAL:
            node_changed(m, u->node);
            if (u->neu && u->old) {
                swap_in(u->box, u->neu, u->old);
            } else if (u->neu) {
                cJSON_DetachItemViaPointer(u->box, u->neu);
            } else {
                link_after(u->box, u->old, u->after);
            }
            cJSON_Delete(u->neu);
            u->old = u->neu = NULL;
            break;
        case U_ADD:
            slop__mirror_kids_remove(u->node);
            slop__mirror_node_free(m, u->node);
            break;
        case U_REMOVE:
            count_back(m, u->node);
            relink(m, u->node, u->old_parent, u->old_index);
            break;
        case U_MOVE:
            slop__mirror_kids_remove(u->node);
            slop__mirror_kids_insert(u->node->parent, u->node, u->old_index);
            break;
        case U_ROOT:
            slop__mirror_node_free(m, m->root);
            m->root = u->old_root;
            if (m->root) count_back(m, m->root);
            break;
        }
    }
}

/* The patch succeeded: release what the undo log kept alive. */
static void commit(slop__mirror *m, undo_log *l) {
    for (size_t i = 0; i < l->len; i++) {
        undo *u = &l->v[i];
        if (u->kind == U_FIELD || u->kind == U_VAL) {
            cJSON_Delete(u->old);
            slop__mirror_hot_touch(m, u->node, u->field);
        } else if (u->kind == U_REMOVE || (u->kind == U_ROOT && u->old_root)) {
            slop__node *dead = u->kind == U_REMOVE ? u->node : u->old_root;
            count_back(m, dead); /* counted out when detached; node_free counts again */
            slop__mirror_node_free(m, dead);
        }
    }
    l->len = 0;
}

/* Detaches child n (kept alive for rollback). */
static int detach_child(slop__mirror *m, undo_log *l, slop__node *n) {
    undo u = {.kind = U_REMOVE, .node = n, .old_parent = n->parent};
    if (log_push(l, u) != 0) return -1;
    n->parent->text_serial = m->budget->serial; /* its "(showing N of M)" line */
    slop__mirror_index_del(&m->index, n);
    l->v[l->len - 1].old_index = slop__mirror_kids_remove(n);
    size_t c = slop__mirror_subtree_count(n);
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

typedef enum { OP_ADD, OP_REMOVE, OP_REPLACE, OP_MOVE, OP_UNKNOWN } op_kind;

/* ---- the profiler's counters (slop__traffic) ---- */

/* The ops of a patch being applied, counted only once it commits: a few in
 * place, more on the heap. */
typedef struct touch {
    slop__node *node;           /* NULL: the mirror's root after the patch    */
    size_t bytes;               /* the op's text, as the provider sent it     */
    int noop;
} touch;
#define TOUCH_INLINE 8
typedef struct touch_list {
    touch first[TOUCH_INLINE];
    touch *more;                /* owned                                      */
    size_t len, more_cap;
    int lost;                   /* out of memory: some ops are not counted    */
} touch_list;

static void touch_push(touch_list *t, touch one) {
    if (t->len < TOUCH_INLINE) {
        t->first[t->len++] = one;
        return;
    }
    size_t k = t->len - TOUCH_INLINE;
    if (SLOP__RESERVE(t->more, k, t->more_cap, 16) != 0) {
        t->lost = 1;
        return;
    }
    t->more[k] = one;
    t->len++;
}

static slop__traffic *traffic_of(slop__mirror *m, slop__node *n) {
    if (!n->traffic && !(n->traffic = calloc(1, sizeof *n->traffic))) m->traffic_lost = 1;
    return n->traffic;
}

static void count_into(uint64_t *c, uint32_t *last, uint32_t serial, const touch *t) {
    if (*last != serial) c[SLOP__TR_PATCHES]++;
    *last = serial;
    c[SLOP__TR_OPS]++;
    c[SLOP__TR_BYTES] += t->bytes;
    c[SLOP__TR_NOOPS] += (uint64_t)t->noop;
}

/* A committed patch's ops go into their nodes' counters, and each
 * ancestor's (before commit() frees the nodes the patch removed). */
static void count_traffic(slop__mirror *m, const touch_list *t) {
    uint32_t serial = m->budget->serial;
    if (t->lost) m->traffic_lost = 1;
    if (t->len) m->total[SLOP__TR_PATCHES]++;
    for (size_t i = 0; i < t->len; i++) {
        const touch *one = i < TOUCH_INLINE ? &t->first[i] : &t->more[i - TOUCH_INLINE];
        m->total[SLOP__TR_OPS]++;
        m->total[SLOP__TR_BYTES] += one->bytes;
        m->total[SLOP__TR_NOOPS] += (uint64_t)one->noop;
        slop__node *n = one->node ? one->node : m->root;
        slop__traffic *tr = n ? traffic_of(m, n) : NULL;
        if (tr) count_into(tr->self, &tr->self_serial, serial, one);
        for (slop__node *a = n; a; a = a->parent)
            if ((tr = traffic_of(m, a))) count_into(tr->sub, &tr->sub_serial, serial, one);
    }
}

/* Whether two JSON values are the same value: numbers by value (and by the
 * provider's text when both kept one, past 2^53), objects by members in any
 * order. */
static int same_value(const cJSON *a, const cJSON *b) {
    if ((a->type & 0xFF) != (b->type & 0xFF)) return 0;
    switch (a->type & 0xFF) {
    case cJSON_Number:
        if (a->valuedouble != b->valuedouble) return 0;
        return !a->valuestring || !b->valuestring || strcmp(a->valuestring, b->valuestring) == 0;
    case cJSON_String: return strcmp(a->valuestring, b->valuestring) == 0;
    case cJSON_Array: {
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next)
            if (!same_value(x, y)) return 0;
        return !x && !y;
    }
    case cJSON_Object: {
        int na = 0, nb = 0;
        for (const cJSON *y = b->child; y; y = y->next) nb++;
        for (const cJSON *x = a->child; x; x = x->next, na++) {
            const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
            if (!y || !same_value(x, y)) return 0;
        }
        return na == nb;
    }
    default: return 1; /* true, false, null */
    }
}

/* The patch being applied and its current op. */
typedef struct op_ctx {
    slop__mirror *m;
    undo_log *log;
    slop__changes *ch;
    mirror_err err;             /* err.opno: the op's position               */
    cJSON *op;                  /* the op object (values are taken from it)  */
    op_kind kind;
    const char *name;           /* its "op", for messages                    */
    cJSON *value;               /* its "value", or NULL                      */
    slop__node *target;         /* the node the op wrote to (NULL: the root
                                 * once the patch is done), for the counters */
    int noop;                   /* it wrote the value already there           */
    touch_list *touched;
    int field;                  /* the field a field op writes                */
} op_ctx;

static int op_fail(op_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int op_fail(op_ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    slop__mirror_vfail(&c->err, SLOP__MIRROR_INVALID, NULL, fmt, ap);
    va_end(ap);
    return -1;
}

int op_nomem(op_ctx *c) { return slop__mirror_nomem(&c->err); }

enum { CH_CHANGED, CH_ADDED, CH_REMOVED };

/* Records the path of n (or of its child child_id) in one of the change
 * lists, at most SLOP__CHANGES_MAX paths in all. */
static void note(op_ctx *c, int which, const slop__node *n, const char *child_id) {
    slop__changes *ch = c->ch;
    if (!ch || ch->truncated) return;
    cJSON *list = which == CH_ADDED ? ch->added : which == CH_REMOVED ? ch->removed : ch->changed;
    /* The path goes straight into the frame's arena, with its list node. */
    size_t len = slop__node_path_len(n), id_len = child_id ? strlen(child_id) : 0;
    size_t whole = child_id ? (len > 1 ? len : 0) + 1 + id_len : len;
    char *p = slop__arena_alloc(ch->arena, whole + 1);
    cJSON *item = p ? slop__arena_alloc(ch->arena, sizeof *item) : NULL;
    if (!item) {
        ch->truncated = 1; /* the reader re-reads the subtree */
        return;
    }
    slop__node_path_write(n, p);
    if (child_id) { /* the root's child is "/id", not "//id" */
        size_t at = len > 1 ? len : 0;
        p[at] = '/';
        memcpy(p + at + 1, child_id, id_len + 1);
    }
    /* Consecutive ops often touch the same node: skip exact repeats cheaply
     * (cJSON keeps an array's last element in child->prev). */
    cJSON *last = list->child ? list->child->prev : NULL;
    if (last && strcmp(last->valuestring, p) == 0) return;
    if (ch->count >= SLOP__CHANGES_MAX) {
        ch->truncated = 1;
        return;
    }
    memset(item, 0, sizeof *item);
    item->type = cJSON_String;
    item->valuestring = p;
    cJSON_AddItemToArray(list, item);
    ch->count++;
}

/* Records that child k of n was inserted at (insert) or removed from its
 * position at. Out of memory drops the entry and marks the list truncated:
 * the reader then re-reads the subtree instead of trusting an incomplete list. */
static void note_kid(op_ctx *c, const slop__node *n, const slop__node *k, size_t at, int insert) {
    slop__changes *ch = c->ch;
    if (!ch || ch->truncated) return;
    if (ch->count >= SLOP__CHANGES_MAX || SLOP__RESERVE(ch->kids, ch->nkids, ch->kids_cap, 8) != 0) {
        ch->truncated = 1;
        return;
    }
    size_t id_len = strlen(k->id);
    slop__kid_change kc = {slop__arena_alloc(ch->arena, slop__node_path_len(n) + 1),
                           slop__arena_alloc(ch->arena, id_len + 1), at, insert};
    if (!kc.parent || !kc.id) {
        ch->truncated = 1;
        return;
    }
    slop__node_path_write(n, kc.parent);
    memcpy(kc.id, k->id, id_len + 1);
    ch->kids[ch->nkids++] = kc;
    ch->count++;
    /* A windowed collection's view says how many more the provider has, which
     * depends on the children present: its view must be read again. */
    if (slop__mirror_meta_may_have(n, "total_children")) note(c, CH_CHANGED, n, NULL);
}

static int parse_index(op_ctx *c, int required, long *out) {
    cJSON *ji = slop__member(c->op, "index");
    if (!ji || cJSON_IsNull(ji)) {
        if (required) return op_fail(c, "\"index\" is required");
        *out = -1;
        return 0;
    }
    if (!cJSON_IsNumber(ji) || ji->valuedouble < 0 || ji->valuedouble != (double)(long)ji->valuedouble)
        return op_fail(c, "\"index\" must be a non-negative integer");
    *out = (long)ji->valuedouble;
    return 0;
}

/* A subtree for a patch from a value: not linked (the caller links it),
 * its depth counted from parent so the tree stays bounded even when
 * patches grow it one level at a time. */
static slop__node *build_value(op_ctx *c, cJSON *value, const slop__node *parent, const char *label) {
    build_ctx b = {c->m, slop__mirror_budget_left(c->m->budget), &c->err};
    unsigned depth = 0;
    for (const slop__node *a = parent; a; a = a->parent) depth++;
    where top = {NULL, label, NULL, 0};
    return slop__mirror_build_json(&b, value, &top, depth);
}

/* Links a built subtree under n at position at, logged for rollback. On
 * failure fresh is freed. */
static int add_child(op_ctx *c, slop__node *n, slop__node *fresh, size_t at) {
    if (slop__mirror_index_get(&c->m->index, n, fresh->id)) {
        where w = {NULL, "children", NULL, 0};
        slop__mirror_fail(&c->err, SLOP__MIRROR_INVALID, &w, "two children have the id \"%s\"", fresh->id);
        slop__mirror_node_free(c->m, fresh);
        return -1;
    }
    if (relink(c->m, fresh, n, at) != 0) {
        slop__mirror_node_free(c->m, fresh);
        return op_nomem(c);
    }
    undo u = {.kind = U_ADD, .node = fresh};
    if (log_push(c->log, u) != 0) {
        slop__mirror_kids_remove(fresh);
        slop__mirror_node_free(c->m, fresh);
        return op_nomem(c);
    }
    n->text_serial = c->m->budget->serial;
    note(c, CH_ADDED, n, fresh->id);
    note_kid(c, n, fresh, at, 1);
    return 0;
}

/* ---- ops inside a field value (properties, meta, ...), RFC 6902 style ---- */

/* The field as a whole: removed, set to null (absent), or replaced. */
static int field_whole(op_ctx *c, slop__node *n, int f) {
    cJSON *jv = c->value;
    if (c->kind == OP_REMOVE) {
        if (!n->field[f]) return op_fail(c, "no %s to remove", field_names[f]);
    } else if (!cJSON_IsNull(jv)) {
        const char *want = slop__mirror_field_type_error(f, slop__mirror_json_kind(jv));
        if (want) return op_fail(c, "\"%s\" must be %s", field_names[f], want);
    }
    if (c->kind == OP_REPLACE)
        c->noop = cJSON_IsNull(jv) ? !n->field[f] : n->field[f] && same_value(n->field[f], jv);
    cJSON *v = NULL;
    if (c->kind != OP_REMOVE && !cJSON_IsNull(jv) && !(v = slop__mirror_copy(jv))) return op_nomem(c);
    if (log_room(c->log) != 0) {
        cJSON_Delete(v);
        return op_nomem(c);
    }
    log_push(c->log, (undo){.kind = U_FIELD, .node = n, .field = f, .old = n->field[f]});
    n->field[f] = v;
    return 0;
}

/* Logs a change inside field c->field of c->target (room made before). */
static void log_val(op_ctx *c, cJSON *box, cJSON *neu, cJSON *old, cJSON *after) {
    log_push(c->log, (undo){.kind = U_VAL, .node = c->target, .field = c->field, .old = old, .box = box, .neu = neu, .after = after});
}

/* Takes item out of box, logged so a rollback puts it back where it was. */
static void take_out(op_ctx *c, cJSON *box, cJSON *item) {
    cJSON *after = item == box->child ? NULL : item->prev;
    cJSON_DetachItemViaPointer(box, item);
    log_val(c, box, NULL, item, after);
}

/* Puts a copy of the op's value in item's place, logged. */
static int put_over(op_ctx *c, cJSON *box, cJSON *item) {
    c->noop = same_value(item, c->value);
    cJSON *v = slop__mirror_copy(c->value);
    if (!v) return op_nomem(c);
    swap_in(box, item, v);
    log_val(c, box, v, item, NULL);
    return 0;
}

/* A key ("0", "12") of an array, or -1 with a message. */
static int array_index(op_ctx *c, const char *key, long *idx) {
    char *endp;
    *idx = strtol(key, &endp, 10);
    if (!*key || *endp || *idx < 0 || (key[0] == '0' && key[1]))
        return op_fail(c, "\"%.64s\" is not an array index", key);
    return 0;
}

/* The member or element key of cur, to descend into; NULL with a message. */
static cJSON *value_child(op_ctx *c, cJSON *cur, const char *key, int f) {
    if (cJSON_IsObject(cur)) {
        cJSON *item = cJSON_GetObjectItemCaseSensitive(cur, key);
        if (!item) op_fail(c, "no key \"%.64s\" in %s", key, field_names[f]);
        return item;
    }
    if (cJSON_IsArray(cur)) {
        long idx;
        if (array_index(c, key, &idx) != 0) return NULL;
        if (idx >= cJSON_GetArraySize(cur)) {
            op_fail(c, "array index %ld out of range", idx);
            return NULL;
        }
        return cJSON_GetArrayItem(cur, (int)idx);
    }
    op_fail(c, "cannot descend into a scalar at \"%.64s\"", key);
    return NULL;
}

/* The op on member or element key of cur, the path's last step. */
static int value_op(op_ctx *c, cJSON *cur, const char *key) {
    if (log_room(c->log) != 0) return op_nomem(c);
    if (cJSON_IsObject(cur)) {
        cJSON *item = cJSON_GetObjectItemCaseSensitive(cur, key);
        if (c->kind == OP_REMOVE) {
            if (!item) return op_fail(c, "no key \"%.64s\" to remove", key);
            take_out(c, cur, item);
        } else if (item) {
            return put_over(c, cur, item);
        } else if (c->kind == OP_ADD) {
            cJSON *v = slop__mirror_copy(c->value);
            if (!v) return op_nomem(c);
            if (!cJSON_AddItemToObject(cur, key, v)) {
                cJSON_Delete(v);
                return op_nomem(c);
            }
            log_val(c, cur, v, NULL, NULL);
        } else {
            return op_fail(c, "no key \"%.64s\" to replace", key);
        }
        return 0;
    }
    if (!cJSON_IsArray(cur)) return op_fail(c, "cannot descend into a scalar at \"%.64s\"", key);
    int size = cJSON_GetArraySize(cur);
    long idx = size;
    if (!(c->kind == OP_ADD && strcmp(key, "-") == 0) && array_index(c, key, &idx) != 0) return -1;
    if (c->kind == OP_ADD) {
        if (idx > size) return op_fail(c, "array index %ld out of range", idx);
        cJSON *v = slop__mirror_copy(c->value);
        if (!v) return op_nomem(c);
        array_insert(cur, (int)idx, v);
        log_val(c, cur, v, NULL, NULL);
        return 0;
    }
    if (idx >= size) return op_fail(c, "array index %ld out of range", idx);
    cJSON *item = cJSON_GetArrayItem(cur, (int)idx);
    if (c->kind == OP_REMOVE) {
        take_out(c, cur, item);
        return 0;
    }
    return put_over(c, cur, item);
}

/* Inside the field: rest ("/a/0/b") is a JSON pointer into its value. */
static int field_at(op_ctx *c, slop__node *n, int f, const char *rest) {
    if (!n->field[f]) {
        if (c->kind != OP_ADD) return op_fail(c, "%s has no %s", n->id, field_names[f]);
        if (log_room(c->log) != 0) return op_nomem(c);
        n->field[f] = f == SLOP__FIELD_AFFORDANCES ? cJSON_CreateArray() : cJSON_CreateObject();
        if (!n->field[f]) return op_nomem(c);
        log_push(c->log, (undo){.kind = U_FIELD, .node = n, .field = f}); /* it was absent */
    }
    cJSON *cur = n->field[f];
    char key[1024];
    for (const char *p = rest + 1;; p++) { /* p past a '/' */
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (decode_seg(p, len, key, sizeof key) != 0) return op_fail(c, "bad escape or key in path");
        if (!e) return value_op(c, cur, key);
        if (!(cur = value_child(c, cur, key, f))) return -1;
        p += len;
    }
}

static int field_op(op_ctx *c, slop__node *n, int f, const char *rest) {
    if (slop__node_has_field(n, f) && !slop__node_field(n, f)) return op_nomem(c);
    if (c->kind != OP_REMOVE && !c->value) return op_fail(c, "\"%s\" needs a \"value\"", c->name);
    node_changed(c->m, n);
    c->target = n;
    c->field = f;
    int rc = *rest ? field_at(c, n, f, rest) : field_whole(c, n, f);
    if (rc == 0) note(c, CH_CHANGED, n, NULL);
    return rc;
}

/* ---- ops on nodes ----------------------------------------------------------- */

/* Replaces the whole children list of n with the node array jv (NULL:
 * none). */
static int replace_children(op_ctx *c, slop__node *n, cJSON *jv) {
    if (jv && !cJSON_IsArray(jv) && !cJSON_IsNull(jv)) return op_fail(c, "children must be an array");
    c->target = n;
    while (n->kids) {
        slop__node *k = slop__mirror_node_child_at(n, 0);
        note(c, CH_REMOVED, n, k->id);
        note_kid(c, n, k, 0, 0);
        if (detach_child(c->m, c->log, k) != 0) return op_nomem(c);
    }
    size_t at = 0;
    int rc = 0;
    for (cJSON *it = jv ? jv->child : NULL; it && rc == 0; it = it->next, at++) {
        slop__node *k = build_value(c, it, n, "children");
        rc = k ? add_child(c, n, k, at) : -1;
    }
    return rc;
}

/* "replace" of the path "" or "/": a whole new tree. */
static int op_on_root(op_ctx *c) {
    slop__mirror *m = c->m;
    if (c->kind != OP_REPLACE) return op_fail(c, "\"%s\" cannot target the subscription root", c->name);
    slop__node *fresh = build_value(c, c->value, NULL, "value");
    if (!fresh) return -1;
    undo u = {.kind = U_ROOT, .old_root = m->root};
    if (log_push(c->log, u) != 0) {
        slop__mirror_node_free(m, fresh);
        return op_nomem(c);
    }
    size_t cnt = slop__mirror_subtree_count(m->root);
    m->nodes -= cnt;
    m->budget->used -= cnt;
    m->root = fresh;
    note(c, CH_REMOVED, fresh, NULL);
    note(c, CH_ADDED, fresh, NULL);
    return 0;
}

static int child_move(op_ctx *c, slop__node *n, slop__node *k, const char *seg) {
    long idx;
    if (parse_index(c, 1, &idx) != 0) return -1;
    if (!k) return op_fail(c, "no node \"%.64s\" to move", seg);
    size_t count = slop__node_child_count(n);
    if ((size_t)idx >= count)
        return op_fail(c, "move index %ld is past the last position (%zu children)", idx, count);
    undo u = {.kind = U_MOVE, .node = k};
    if (log_push(c->log, u) != 0) return op_nomem(c);
    size_t from = slop__mirror_kids_remove(k);
    if (slop__mirror_kids_insert(n, k, (size_t)idx) != 0) {
        slop__mirror_kids_insert(n, k, from); /* back where it was (a chunk has room there) */
        c->log->len--;
        return op_nomem(c);
    }
    c->log->v[c->log->len - 1].old_index = from;
    note_kid(c, n, k, from, 0);
    note_kid(c, n, k, (size_t)idx, 1);
    return 0;
}

/* "add" or "replace" of the child seg of n (k: the child there now). */
static int child_put(op_ctx *c, slop__node *n, slop__node *k, const char *seg) {
    cJSON *jv = c->value;
    if (!cJSON_IsObject(jv)) return op_fail(c, "the value for a child must be a node object");
    cJSON *vid = cJSON_GetObjectItemCaseSensitive(jv, "id");
    if (vid && (!cJSON_IsString(vid) || strcmp(vid->valuestring, seg) != 0))
        return op_fail(c, "value.id does not match the path segment \"%.64s\"", seg);
    if (c->kind == OP_REPLACE && !k) return op_fail(c, "no node \"%.64s\" to replace", seg);
    long idx = -1;
    if (parse_index(c, 0, &idx) != 0) return -1;
    size_t at = slop__node_child_count(n);
    /* Ids are unique among siblings: an add of an existing id would hide
     * a provider's bookkeeping error by replacing the node silently. */
    if (k && c->kind == OP_ADD)
        return op_fail(c, "node \"%.64s\" already exists (an add needs a new id; replace replaces)", seg);
    if (k) { /* replace: the new node takes the old one's place */
        size_t was = slop__mirror_kid_rank(k);
        if (idx < 0) at = was;
        note(c, CH_REMOVED, n, seg);
        note_kid(c, n, k, was, 0);
        if (detach_child(c->m, c->log, k) != 0) return op_nomem(c);
    }
    if (idx >= 0) {
        size_t room = slop__node_child_count(n); /* positions 0..room: room appends */
        if ((size_t)idx > room) return op_fail(c, "index %ld is past the end (%zu children)", idx, room);
        at = (size_t)idx;
    }
    /* A value without an id takes the segment's: lent as a member for the
     * build (the frame's values are not ours to add to). */
    cJSON id = {.type = cJSON_String, .valuestring = (char *)seg, .string = (char *)"id"};
    if (!vid) {
        id.next = jv->child;
        id.prev = jv->child ? jv->child->prev : &id;
        jv->child = &id;
    }
    slop__node *fresh = build_value(c, jv, n, "value");
    if (!vid) {
        jv->child = id.next;
        if (jv->child) jv->child->prev = id.prev;
    }
    return fresh && add_child(c, n, fresh, at) == 0 ? 0 : -1;
}

/* The op on the child seg of n, the path's last node segment. */
static int child_op(op_ctx *c, slop__node *n, const char *seg) {
    slop__node *k = slop__mirror_index_get(&c->m->index, n, seg);
    c->target = n;
    if (c->kind == OP_MOVE) return child_move(c, n, k, seg);
    if (c->kind != OP_REMOVE) return child_put(c, n, k, seg);
    if (!k) return op_fail(c, "no node \"%.64s\" to remove", seg);
    note(c, CH_REMOVED, n, seg);
    note_kid(c, n, k, slop__mirror_kid_rank(k), 0);
    return detach_child(c->m, c->log, k) == 0 ? 0 : op_nomem(c);
}

/* The child seg of n on the way down, or NULL with a message. */
static slop__node *descend(op_ctx *c, slop__node *n, const char *seg) {
    slop__node *k = slop__mirror_index_get(&c->m->index, n, seg);
    if (!k) {
        char *np = slop__node_path(n);
        op_fail(c, "no node \"%.64s\" under %.100s", seg, np ? np : "?");
        free(np);
    }
    return k;
}

/* Walks the node segments of path from the root, to a field of a node, a
 * node's whole children list, or a child of a node. */
static int op_on_path(op_ctx *c, const char *path) {
    slop__node *n = c->m->root;
    char seg[512];
    int after_children = 0; /* the segment follows "children": a node id */
    for (const char *p = path + 1;; p++) { /* p past a '/' */
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        /* An empty node segment ("//a", "/a//b", "/a/") names no node; inside
         * a field, "" is a key like any other (JSON Pointer). */
        if (len == 0) return op_fail(c, "path \"%.64s\" has an empty segment", path);
        if (len >= sizeof seg) return op_fail(c, "path segment too long");
        memcpy(seg, p, len);
        seg[len] = 0;
        int which = slop__mirror_member_of(seg);
        if (after_children && slop__mirror_is_reserved(seg))
            return op_fail(c, "\"%.64s\" after \"children\" must be a node id, and it is a reserved keyword", seg);
        after_children = 0;
        if (which >= 0 && which < SLOP__FIELD_COUNT) {
            if (c->kind == OP_MOVE) return op_fail(c, "\"move\" applies to child nodes only");
            return field_op(c, n, which, p + len);
        }
        if (e && !e[1]) return op_fail(c, "path \"%.64s\" has an empty segment", path);
        if (which == M_CHILDREN && !e) { /* the whole list */
            if (c->kind == OP_MOVE) return op_fail(c, "\"move\" applies to child nodes only");
            return replace_children(c, n, c->kind == OP_REMOVE ? NULL : c->value);
        }
        if (which == M_CHILDREN) after_children = 1; /* "/a/children/x": child x of a */
        else if (!e) return child_op(c, n, seg);
        else if (!(n = descend(c, n, seg))) return -1;
        p += len;
    }
}

static int apply_one(op_ctx *c, cJSON *op) {
    if (!cJSON_IsObject(op)) return op_fail(c, "an op must be an object");
    cJSON *jop = slop__member(op, "op");
    cJSON *jpath = slop__member(op, "path");
    if (!cJSON_IsString(jop)) return op_fail(c, "\"op\" must be a string");
    if (!cJSON_IsString(jpath)) return op_fail(c, "\"path\" must be a string");
    static const char *const names[] = {"add", "remove", "replace", "move"};
    c->op = op;
    c->name = jop->valuestring;
    c->kind = OP_ADD;
    while (c->kind < OP_UNKNOWN && !slop__same(c->name, names[c->kind])) c->kind++;
    const char *path = jpath->valuestring;
    if (c->kind == OP_UNKNOWN) return op_fail(c, "unknown op \"%.32s\"", c->name);
    if (*path && *path != '/') return op_fail(c, "path \"%.64s\" must start with '/'", path);
    if (!c->m->root) return op_fail(c, "no snapshot to patch");
    c->value = slop__member(op, "value");
    if ((c->kind == OP_ADD || c->kind == OP_REPLACE) && !c->value)
        return op_fail(c, "\"%s\" needs a \"value\"", c->name);
    c->target = NULL;
    c->noop = 0;
#ifndef SLOP_NO_COUNTERS /* the core bench's build without counters, to weigh them */
    /* Its text's length, as the parse noted it (internal.h); printed only for an op made
     * otherwise. Sized before the op runs: building a subtree may take values from it. */
    size_t bytes = op->valueint > 0 ? (size_t)op->valueint : 0;
    if (!bytes) {
        slop__buf *b = &c->m->scratch;
        b->len = 0;
        slop__buf_put_json(b, op);
        bytes = b->oom ? 0 : b->len;
        if (b->oom) c->touched->lost = 1;
        b->oom = 0;
    }
#endif
    int rc = !*path || strcmp(path, "/") == 0 ? op_on_root(c) : op_on_path(c, path);
#ifndef SLOP_NO_COUNTERS
    if (rc == 0) touch_push(c->touched, (touch){c->target, bytes, c->noop});
#endif
    return rc;
}

slop__mirror_status slop__mirror_apply(slop__mirror *m, cJSON *ops, slop__changes *ch, char *err, size_t errlen) {
    undo_log log; /* a pointer into itself: never copied */
    log.v = log.first;
    log.len = 0;
    log.cap = UNDO_INLINE;
    touch_list touched;
    touched.len = touched.more_cap = 0;
    touched.more = NULL;
    touched.lost = 0;
    op_ctx c = {.m = m, .log = &log, .ch = ch, .err = {SLOP__MIRROR_OK, err, errlen, -1}, .kind = OP_ADD, .touched = &touched};
    m->budget->serial++;
    if (!cJSON_IsArray(ops)) {
        slop__mirror_fail(&c.err, SLOP__MIRROR_INVALID, NULL, "\"ops\" must be an array");
        return c.err.code;
    }
    int rc = 0;
    c.err.opno = 0;
    for (cJSON *op = ops->child; op && rc == 0; op = op->next, c.err.opno++) rc = apply_one(&c, op);
    if (rc == 0) {
        count_traffic(m, &touched);
        commit(m, &log);
    } else {
        rollback(m, &log); /* field pre-images go back to their nodes */
    }
    free(touched.more);
    if (log.v != log.first) free(log.v);
    if (rc == 0) return SLOP__MIRROR_OK;
    return c.err.code != SLOP__MIRROR_OK ? c.err.code : SLOP__MIRROR_INVALID;
}
