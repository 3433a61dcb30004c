/*
 * mirror.h: one subscription's copy of the provider's state tree. Internal
 * to the core, like internal.h (every name here is slop__ or SLOP__); the
 * public API is include/slop_core.h.
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
#include "internal.h"

enum { SLOP__FIELD_PROPERTIES, SLOP__FIELD_META, SLOP__FIELD_AFFORDANCES, SLOP__FIELD_CONTENT_REF,
       SLOP__FIELD_COUNT };

typedef struct slop__node slop__node;
typedef struct slop__kids slop__kids;

/* What patches did to a node and its subtree, for the profiler
 * (slop_consumer_profile): counted when a patch commits, so a refused patch
 * counts nothing. */
enum { SLOP__TR_PATCHES, SLOP__TR_OPS, SLOP__TR_BYTES, SLOP__TR_NOOPS, SLOP__TR_COUNT };
typedef struct slop__traffic {
    uint64_t self[SLOP__TR_COUNT]; /* ops whose target is the node itself      */
    uint64_t sub[SLOP__TR_COUNT];  /* ops on it or below it, descendants since
                                    * removed included                          */
    uint32_t self_serial;          /* the patch last counted in self[PATCHES]   */
    uint32_t sub_serial;           /* idem for sub: a patch counts once          */
} slop__traffic;
typedef struct slop__chunk slop__chunk;

struct slop__node {
    double view_salience;       /* agent_tools.c's cache (see view_actions):
                                 * meta.salience, 0.5 when none. First: no
                                 * padding before it on wasm32              */
    const char *id;             /* points into the same allocation            */
    const char *type;           /* idem                                       */
    cJSON *field[SLOP__FIELD_COUNT]; /* owned; NULL when absent or held as text */
    const char *raw[SLOP__FIELD_COUNT]; /* the field as compact JSON text when not
                                    * parsed (NULL: none, or parsed): inside this
                                    * node's allocation, or malloc'd and owned
                                    * when its bit in `owned` is set            */
    uint32_t raw_len[SLOP__FIELD_COUNT];
    uint32_t raw_cap[SLOP__FIELD_COUNT]; /* room for field f's text inside the
                                    * allocation (raw_room() in mirror.c)      */
    slop__node *parent;          /* NULL for the mirror root                   */
    slop__kids *kids;            /* the children, NULL if none                 */
    slop__chunk *chunk;          /* the chunk of the parent's children holding
                                 * this node (NULL for the root)              */
    uint32_t hash;              /* hash of (parent, id) for the index         */
    uint32_t view_actions;      /* agent_tools.c's cache: the actions of the
                                 * affordances, plus 1; 0 when not counted.
                                 * Every change of a field of the node (a
                                 * patch op, its rollback) sets it to 0      */
    slop__traffic *traffic;      /* owned; NULL until a patch touches the node */
    uint32_t own_bytes;         /* the profiler's cache: bytes of the node's
                                 * compact JSON without children; 0: not known.
                                 * Reset with view_actions                    */
    uint32_t text_serial;       /* the change serial (slop__budget) when its
                                 * tree text may last have changed: built, a
                                 * field written, a child added or removed    */
    uint8_t owned;              /* bit f: raw[f] is malloc'd (see raw)        */
    uint8_t hot;                /* bit f: field f is in the mirror's hot ring */
    uint8_t view_has_salience;  /* agent_tools.c's cache: meta.salience is a
                                 * number (view_salience holds it)            */
};

typedef struct slop__slot {
    slop__node *node;            /* NULL: empty                                */
    uint32_t hash;              /* node->hash, kept here to probe without it  */
} slop__slot;

typedef struct slop__index {
    slop__slot *slot;
    size_t cap;                 /* power of two, 0 when empty                 */
    size_t len;
} slop__index;

/* Node budget shared by every mirror of one consumer, and their change
 * serial: +1 at every load and patch of any of them, so "changed since
 * serial S" means the same in all of them. */
typedef struct slop__budget {
    size_t used;
    size_t max;
    uint32_t serial;
} slop__budget;

/* Patched fields stay parsed (cJSON) while they are among the last fields
 * patched, so a field patched again and again is not printed and parsed each
 * time; a field leaving the ring is printed back to compact text, which costs
 * a fraction of its cJSON tree. The ring holds up to twice as many fields as
 * the mirror has nodes (SLOP__HOT_MIN to SLOP__HOT_MAX), as long as their
 * text stays within SLOP__HOT_BYTES (but always SLOP__HOT_MIN fields): a
 * small tree's patched fields all stay parsed (a ring of 64 re-parsed one
 * field in three at 100 nodes), while a big tree's rich fields keep the heap
 * near its text (native_bench's patch pass). */
#define SLOP__HOT_MIN 64
#define SLOP__HOT_MAX 1024
#define SLOP__HOT_BYTES ((size_t)16 * 1024)
typedef struct slop__hot {
    slop__node *node;            /* NULL: its node was freed                  */
    int field;
    uint32_t bytes;             /* its text's room (raw_cap), 64 when none    */
} slop__hot;

typedef struct slop__mirror {
    slop__node *root;            /* NULL until the first snapshot              */
    slop__index index;
    size_t nodes;               /* nodes in this mirror                        */
    slop__budget *budget;        /* not owned                                  */
    slop__hot *hot;              /* owned; a queue in hot_cap slots, oldest at
                                 * hot_head, grown with the tree              */
    size_t hot_cap, hot_head, hot_len;
    size_t hot_bytes;           /* the bytes of the fields in it               */
    slop__buf scratch;          /* owned: reused to size nodes, print texts    */
    uint64_t total[SLOP__TR_COUNT]; /* every patch applied to this mirror:
                                 * kept when a snapshot rebuilds the nodes    */
    int traffic_lost;           /* a counter could not be kept (out of memory) */
} slop__mirror;

/* A child inserted into or removed from a node's children list, in op
 * order: applied one after the other to the list as it was before the patch,
 * they give the list after it. A move is a removal and an insertion. */
typedef struct slop__kid_change {
    char *parent;               /* path relative to the mirror root (arena)   */
    char *id;                   /* the child's id (arena)                     */
    size_t index;               /* insert: its position after; remove: before */
    int insert;                 /* 1 inserted, 0 removed                      */
} slop__kid_change;

/* Paths of nodes touched by a patch, relative to the mirror root. A node is
 * "changed" when its own fields changed; insertions into and removals from
 * its children list are in kids, so a consumer of the changes never needs the
 * whole list again (O(1) per op, whatever the number of siblings). */
typedef struct slop__changes {
    slop__arena *arena;         /* where the lists and their strings live: the
                                 * frame's, so a patch's changes go with it    */
    cJSON *changed;             /* arrays of strings (from the arena)          */
    cJSON *added;
    cJSON *removed;
    slop__kid_change *kids;     /* owned (malloc'd), nkids of them             */
    size_t nkids, kids_cap;
    int truncated;              /* more than SLOP__CHANGES_MAX: refetch all    */
    int count;                  /* entries in the four lists                  */
} slop__changes;
#define SLOP__CHANGES_MAX 1024

/* Deepest node the mirror holds, so recursion over it stays bounded even
 * when patches grow the tree one level at a time. */
#define SLOP__MAX_TREE_DEPTH 256

/* Why a load or a patch was refused. Callers decide on this code, never on
 * the message, which carries provider text. */
typedef enum slop__mirror_status {
    SLOP__MIRROR_OK = 0,
    SLOP__MIRROR_INVALID,       /* the tree or an op breaks a rule            */
    SLOP__MIRROR_TOO_MANY_NODES,/* the node budget would be exceeded          */
    SLOP__MIRROR_NOMEM          /* out of memory                              */
} slop__mirror_status;

void slop__mirror_init(slop__mirror *m, slop__budget *budget);
/* Frees every node; m stays usable (empty). */
void slop__mirror_clear(slop__mirror *m);

/*
 * Replaces the whole mirror with the node tree `tree` (consumed: subtrees of
 * it are stolen, the caller still cJSON_Delete()s what is left). On error the
 * mirror is unchanged, a message is written to err (errlen bytes, may be 0)
 * and the status says why.
 */
slop__mirror_status slop__mirror_load(slop__mirror *m, cJSON *tree, char *err, size_t errlen);

/*
 * The same from JSON text (a snapshot's "tree" value), without building cJSON
 * values: the text is validated and field values are kept as raw text until
 * something reads or patches them. max_depth bounds the nesting.
 */
slop__mirror_status slop__mirror_load_text(slop__mirror *m, const char *text, size_t len, unsigned max_depth,
                                           char *err, size_t errlen);

/* A node's field as cJSON, parsing its raw text on first use (NULL when
 * absent, or out of memory). The node keeps the parsed value. */
cJSON *slop__node_field(slop__node *n, int field);
int slop__node_has_field(const slop__node *n, int field);

/*
 * Applies a patch's ops array (consumed the same way). All-or-nothing: on
 * error the mirror is unchanged, the status says why and the message names
 * the op ("op 3: ..."). `ch` (may be NULL) receives the touched node paths.
 */
slop__mirror_status slop__mirror_apply(slop__mirror *m, cJSON *ops, slop__changes *ch, char *err,
                                       size_t errlen);

/* Empty lists in arena (the caller resets it after reading them). -1 when
 * out of memory. */
int slop__changes_init(slop__changes *ch, slop__arena *arena);
void slop__changes_free(slop__changes *ch);

/* The node at a node path relative to the root ("" or "/" is the root). */
slop__node *slop__mirror_find(const slop__mirror *m, const char *path);

/* How many children n has. */
size_t slop__node_child_count(const slop__node *n);

/* Children in order: for (k = slop__kids_first(n, &it); k; k = slop__kids_next(&it)). The
 * children must not change during the walk. */
typedef struct slop__kid_iter {
    const slop__kids *kids;
    uint32_t chunk, at;
} slop__kid_iter;
slop__node *slop__kids_first(const slop__node *parent, slop__kid_iter *it);
slop__node *slop__kids_next(slop__kid_iter *it);

/* Appends n as the JSON text slop__node_to_json(n, depth) prints (the
 * fields a patch never touched copied as the provider wrote them, without
 * building cJSON values). close 0 leaves the object open, without its '}',
 * for the caller to add members. */
typedef struct slop__buf slop__buf;
void slop__node_put(slop__buf *b, const slop__node *n, int depth, int close);
/* A parsed copy of n's meta (caller cJSON_Delete()s) when it may have the
 * member key, else NULL. */
cJSON *slop__node_meta_if(const slop__node *n, const char *key);
/* The node as SLOP JSON, children cut at depth (-1: all). Caller deletes. */
cJSON *slop__node_to_json(const slop__node *n, int depth);

/* n's own lines of the tree text at depth (its line, then its "(showing N
 * of M)" or "(N children not loaded)" line), joined with '\n', appended to b
 * (agent_view.c). Every node's text joined with '\n' in pre-order is
 * slop__mirror_tree_text(root, -1). */
void slop__node_view_text(slop__buf *b, const slop__node *n, unsigned depth);

/* n's actions and meta.salience, cached on the node until a patch changes
 * it (agent_tools.c). -1 when out of memory. */
int slop__node_view_cache(slop__node *n);

/*
 * The profile of the mirror (slop_consumer_profile in slop_core.h): one row
 * per node in pre-order, paths prefixed with root_path, texts only for nodes
 * changed after serial `since`. malloc'd; NULL when out of memory.
 */
char *slop__mirror_profile(slop__mirror *m, const char *root_path, const char *handle, uint32_t since);

/* Writes the node path relative to the mirror root ("/a/b", "/" for the root)
 * into a malloc'd string. Caller frees. */
char *slop__node_path(const slop__node *n);
/* Its length without the NUL, and the same path written into out (room for
 * that length + 1 bytes), for a caller with memory of its own. */
size_t slop__node_path_len(const slop__node *n);
void slop__node_path_write(const slop__node *n, char *out);

#endif
