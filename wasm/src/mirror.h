/*
 * mirror.h: one subscription's copy of the provider's state tree.
 *
 * Children of a node are kept in order in chunks of up to 64 pointers, with
 * a Fenwick tree over the chunk sizes, and every node is also in a hash index
 * keyed by (parent, id). Finding a child by id is O(1); inserting, removing
 * or moving it by position is O(log chunks) plus a move of at most 64
 * pointers, in memory that stays contiguous: a patch op costs about O(depth),
 * where reference consumers pay O(depth x siblings).
 *
 * Patches apply all-or-nothing: every op records how to undo itself, and if a
 * later op fails the log is replayed backwards, leaving the mirror exactly as
 * it was before the patch.
 */
#ifndef SLOP_MIRROR_H
#define SLOP_MIRROR_H

#include <stddef.h>
#include <stdint.h>
#include "cJSON.h"

enum { SLOP_FIELD_PROPERTIES, SLOP_FIELD_META, SLOP_FIELD_AFFORDANCES, SLOP_FIELD_CONTENT_REF,
       SLOP_FIELD_COUNT };

typedef struct slop_node slop_node;
typedef struct slop_kids slop_kids;
typedef struct slop_chunk slop_chunk;

struct slop_node {
    const char *id;             /* points into the same allocation            */
    const char *type;           /* idem                                       */
    cJSON *field[SLOP_FIELD_COUNT]; /* owned; NULL when absent or still raw  */
    const char *raw[SLOP_FIELD_COUNT]; /* JSON text of a field not parsed yet,
                                    * inside this node's allocation (NULL: none) */
    uint32_t raw_len[SLOP_FIELD_COUNT];
    slop_node *parent;          /* NULL for the mirror root                   */
    slop_kids *kids;            /* the children, NULL if none                 */
    slop_chunk *chunk;          /* the chunk of the parent's children holding
                                 * this node (NULL for the root)              */
    uint32_t hash;              /* hash of (parent, id) for the index         */
};

typedef struct slop_slot {
    slop_node *node;            /* NULL: empty                                */
    uint32_t hash;              /* node->hash, kept here to probe without it  */
} slop_slot;

typedef struct slop_index {
    slop_slot *slot;
    size_t cap;                 /* power of two, 0 when empty                 */
    size_t len;
} slop_index;

/* Node budget shared by every mirror of one consumer. */
typedef struct slop_budget {
    size_t used;
    size_t max;
} slop_budget;

typedef struct slop_mirror {
    slop_node *root;            /* NULL until the first snapshot              */
    slop_index index;
    size_t nodes;               /* nodes in this mirror                        */
    slop_budget *budget;        /* not owned                                  */
} slop_mirror;

/* Paths of nodes touched by a patch, relative to the mirror root. */
typedef struct slop_changes {
    cJSON *changed;             /* array of strings, owned                    */
    cJSON *added;
    cJSON *removed;
    int truncated;              /* more than SLOP_CHANGES_MAX: refetch all    */
    int count;                  /* paths in the three lists                   */
} slop_changes;
#define SLOP_CHANGES_MAX 512

/* Deepest node the mirror holds, so recursion over it stays bounded even
 * when patches grow the tree one level at a time. */
#define SLOP_MAX_TREE_DEPTH 256

void slop_mirror_init(slop_mirror *m, slop_budget *budget);
/* Frees every node; m stays usable (empty). */
void slop_mirror_clear(slop_mirror *m);

/*
 * Replaces the whole mirror with the node tree `tree` (consumed: subtrees of
 * it are stolen, the caller still cJSON_Delete()s what is left). On error the
 * mirror is unchanged, a message is written to err and -1 returned.
 */
int slop_mirror_load(slop_mirror *m, cJSON *tree, char *err, size_t errlen);

/*
 * The same from JSON text (a snapshot's "tree" value), without building cJSON
 * values: the text is validated and field values are kept as raw text until
 * something reads or patches them. max_depth bounds the nesting.
 */
int slop_mirror_load_text(slop_mirror *m, const char *text, size_t len, unsigned max_depth, char *err,
                          size_t errlen);

/* A node's field as cJSON, parsing its raw text on first use (NULL when
 * absent, or out of memory). The node keeps the parsed value. */
cJSON *slop_node_field(slop_node *n, int field);
int slop_node_has_field(const slop_node *n, int field);

/*
 * Applies a patch's ops array (consumed the same way). All-or-nothing: on
 * error the mirror is unchanged and -1 is returned with a message naming the
 * op. `ch` (may be NULL) receives the touched node paths.
 */
int slop_mirror_apply(slop_mirror *m, cJSON *ops, slop_changes *ch, char *err, size_t errlen);

void slop_changes_init(slop_changes *ch);
void slop_changes_free(slop_changes *ch);

/* The node at a node path relative to the root ("" or "/" is the root). */
slop_node *slop_mirror_find(const slop_mirror *m, const char *path);

/* Node at position i among parent's children, or NULL. */
slop_node *slop_node_child_at(const slop_node *parent, size_t i);
size_t slop_node_child_count(const slop_node *n);

/* Children in order: for (k = slop_kids_first(n, &it); k; k = slop_kids_next(&it)). The
 * children must not change during the walk. */
typedef struct slop_kid_iter {
    const slop_kids *kids;
    uint32_t chunk, at;
} slop_kid_iter;
slop_node *slop_kids_first(const slop_node *parent, slop_kid_iter *it);
slop_node *slop_kids_next(slop_kid_iter *it);

/* The node as SLOP JSON, children cut at depth (-1: all). Caller deletes. */
cJSON *slop_node_to_json(const slop_node *n, int depth);

/* Writes the node path relative to the mirror root ("/a/b", "/" for the root)
 * into a malloc'd string. Caller frees. */
char *slop_node_path(const slop_node *n);

#endif
