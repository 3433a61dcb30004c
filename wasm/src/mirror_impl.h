/*
 * mirror_impl.h: the mirror's own types and the helpers its two parts share.
 * Private to them:
 *
 *   mirror.c        the id index, children in chunks, errors, nodes, building
 *                   trees (from cJSON and from JSON text), fields
 *   mirror_patch.c  the changes a patch reports, and patch application with
 *                   an undo log
 *
 * The data structure is mirror.h's. Every function named here is
 * slop__mirror_*; the ones a single part uses stay static there, and their
 * comments are at their definitions.
 */
#ifndef SLOP_MIRROR_IMPL_H
#define SLOP_MIRROR_IMPL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "mirror.h"

/* ---- Types -------------------------------------------------------------- */

static const char *const field_names[SLOP__FIELD_COUNT] = {"properties", "meta", "affordances",
                                                          "content_ref"};

/* Why building or patching stopped: the code callers decide on, and the
 * message for people, written into the caller's buffer. Inside a patch
 * every message starts with the op's number. */
typedef struct mirror_err {
    slop__mirror_status code;
    char *msg;                  /* may be NULL                                */
    size_t cap;
    int opno;                   /* >= 0 inside a patch                        */
} mirror_err;

/* Where a node being built sits, for messages only: a chain of ids up to a
 * label ("tree", "value", "children"). It is formatted when an error is
 * reported, never on the way down (a path string per node cost a snapshot
 * load 14% of its time). */
typedef struct where {
    const struct where *up;     /* NULL: this is the label                    */
    const char *label;
    const char *id;             /* the node's id (escapes kept in text), or
                                 * NULL: not read yet ("?")                   */
    size_t id_len;
} where;

/* The members of a node object that mean something: a field (0 ..
 * SLOP__FIELD_COUNT - 1), id, type, children; anything else is kept out. */
enum { M_OTHER = -1, M_ID = SLOP__FIELD_COUNT, M_TYPE, M_CHILDREN };

/* A tree being built: its mirror, the nodes it may still add, the error. */
typedef struct build_ctx {
    slop__mirror *m;
    size_t budget_left;
    mirror_err *err;
} build_ctx;

/* The JSON type of a member's value, as both front ends see it. */
typedef enum { V_STRING, V_OBJECT, V_ARRAY, V_NULL, V_OTHER } vkind;

/* ---- Id index */

uint32_t slop__mirror_hash_key(const slop__node *parent, const char *id);
int slop__mirror_index_put(slop__index *ix, slop__node *n);
slop__node *slop__mirror_index_get(const slop__index *ix, const slop__node *parent, const char *id);
void slop__mirror_index_del(slop__index *ix, const slop__node *n);

/* ---- Children */

slop__node *slop__mirror_node_child_at(const slop__node *parent, size_t i);
size_t slop__mirror_kid_rank(const slop__node *n);
int slop__mirror_kids_insert(slop__node *parent, slop__node *n, size_t at);
size_t slop__mirror_kids_remove(slop__node *n);

/* ---- Errors */

int slop__mirror_vfail(mirror_err *e, slop__mirror_status code, const where *w, const char *fmt, va_list ap);
int slop__mirror_fail(mirror_err *e, slop__mirror_status code, const where *w, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int slop__mirror_nomem(mirror_err *e);

/* ---- Nodes */

int slop__mirror_member_of(const char *s);
int slop__mirror_is_reserved(const char *s);
void slop__mirror_node_free(slop__mirror *m, slop__node *n);
size_t slop__mirror_subtree_count(const slop__node *n);
cJSON *slop__mirror_copy(const cJSON *item);

/* ---- Building a node */

size_t slop__mirror_budget_left(const slop__budget *b);
const char *slop__mirror_field_type_error(int f, vkind k);
vkind slop__mirror_json_kind(const cJSON *v);
slop__node *slop__mirror_build_json(build_ctx *b, cJSON *j, const where *up, unsigned depth);

/* ---- Fields */

int slop__mirror_meta_may_have(const slop__node *n, const char *key);
void slop__mirror_raw_drop(slop__node *n, int f);
void slop__mirror_hot_touch(slop__mirror *m, slop__node *n, int f);

#endif /* SLOP_MIRROR_IMPL_H */
