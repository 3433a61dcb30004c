/*
 * internal.h: declarations shared between the core's own source files.
 * Internal, not part of the public API (that is include/slop_core.h, whose
 * names are slop_*): every name here is slop__* or SLOP__*, and may change
 * with any commit. These work on cJSON values; the public functions wrap
 * them. The mirror's declarations are in mirror.h, the URL parser's in url.h.
 */
#ifndef SLOP_INTERNAL_H
#define SLOP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "cJSON.h"
#include "slop_core.h"

/* ---- contract.c: the lists of slop_core.h's contract ------------------ */

/* The names of the lists, by enum value: a static string, or NULL for a
 * value out of range. */
const char *slop__event_name(slop_event_kind k);
const char *slop__protocol_error_name(slop_protocol_error k);
const char *slop__provider_message_name(slop_provider_message k);
const char *slop__consumer_message_name(slop_consumer_message k);
const char *slop__capability_name(slop_capability k);
const char *slop__request_kind_name(slop_request_kind k);
const char *slop__sub_state_name(slop_sub_state k);
const char *slop__local_refusal_name(slop_local_refusal_code k);
/* The conformance rule a provider breaks when the core reports k (NULL: the
 * consumer's own limit). */
const char *slop__protocol_error_rule(slop_protocol_error k);
/* Whether a consumer message of kind k carries a request id. */
int slop__consumer_message_needs_id(slop_consumer_message k);
/* The enum value (slop_provider_message, slop_consumer_message,
 * slop_capability) whose name is `text`, or -1 (text NULL or unknown). */
int slop__provider_message_of(const char *type);
int slop__consumer_message_of(const char *type);
int slop__capability_of(const char *name);

/* ---- params.c --------------------------------------------------------- */

/* Checks params against an affordance params schema (SLOP subset: type,
 * properties, required, items, enum). schema NULL means "anything goes";
 * params NULL is treated as {} when the schema is an object schema.
 * Returns NULL when valid, else a malloc'd message such as
 * "params.tags[1] must be a string" (caller frees with free()). */
char *slop__params_check(const cJSON *schema, const cJSON *params);

/* Every failure (at most 100) as [{"code","path":[keys and indexes],
 * "message"}], codes "type", "enum", "required", "too_deep",
 * "out_of_memory"; NULL when valid. The caller frees with cJSON_Delete(). */
cJSON *slop__params_errors(const cJSON *schema, const cJSON *params);

/* ---- agent_view.c, agent_tools.c: the agent view from a mirror --------- */

typedef struct slop__node slop__node;
typedef struct slop__buf slop__buf;

/* The deepest level the agent view walks: a node below it is one
 * "(deeper levels omitted)" line of the tree text, and offers no tools. */
#define SLOP__VIEW_MAX_DEPTH 256u

/* Member `key` of obj when it is a string, else NULL. */
const char *slop__str_member(const cJSON *obj, const char *key);

/* Canonical tree text (the reference consumers' format, described in
 * agent_view.c) of the mirror under root (NULL: ""). Malloc'd (caller frees
 * with free()); NULL on OOM. */
char *slop__mirror_tree_text(const slop__node *root, int max_depth);

/* The tools a slop__mirror_tools() call offered: name, path and action of
 * each, in order, kept to resolve names later. */
typedef struct slop__tool_refs {
    char *text;             /* "name\0path\0action\0" per tool, owned     */
    size_t *at;             /* where each tool's name starts in text, owned */
    size_t n;
} slop__tool_refs;
void slop__tool_refs_free(slop__tool_refs *r);
/* 1 and *path, *action (pointing into r) when r holds the name, else 0. */
int slop__tool_refs_find(const slop__tool_refs *r, const char *name, const char **path, const char **action);

/* The affordances under root as LLM tools (the naming rules are in
 * agent_tools.c). root_path is the absolute path of root itself ("/" for the
 * provider's root); node paths are root_path joined with the child ids below
 * it (root's own id is never part of a path). prefix may be NULL or "".
 * max_len 0 means 64. Only the max_tools most salient actions when there are
 * more (0: all): ranked by their node's meta.salience (any non-number or
 * none: 0.5), ties in tree pre-order, listed in tree order, named unique
 * among themselves. json (may be NULL: refs only) gets
 *   {"tools":[{"name","description","parameters","dangerous"}],
 *    "resolve":{name:{"path","action"}},"total":<every action under root>}
 * refs the offered tools (freed with slop__tool_refs_free), *total every
 * action. Fills the nodes' view cache (mirror.h). 0, or -1 out of memory. */
int slop__mirror_tools(slop__node *root, const char *root_path, const char *prefix, unsigned max_len,
                       size_t max_tools, slop__buf *json, slop__tool_refs *refs, size_t *total);

/* One provider section of the state tail, from its mirror. */
typedef struct slop__tail_source {
    const char *name;       /* provider name from hello                  */
    const char *id;         /* provider id from hello                    */
    const slop__node *root; /* the mirror, or NULL: awaiting snapshot    */
    size_t nodes;           /* nodes under root                          */
} slop__tail_source;

/* The <slop-state ...> block (as the reference consumers write it) for n
 * sections, provider text neutralised so it cannot open or close the block:
 * the sections' whole tree texts when max_bytes is 0; else within max_bytes
 * (at least 512) as slop_render_state_tail() says. *out_left (may be NULL):
 * the nodes left out. Malloc'd; NULL when n == 0 or on OOM. */
char *slop__state_tail_mirror(const slop__tail_source *src, size_t n, const char *generated_at, size_t max_bytes,
                              size_t *out_left);

/* ---- json_print.c ----------------------------------------------------- */

/* Compact JSON text of v, every number printed with the fewest digits that
 * read back as the same double (-0 stays "-0"). Malloc'd, caller frees with
 * free(); NULL on OOM or when v is NULL. The core prints nothing with
 * cJSON_Print*, which rounds numbers to 15 digits. */
char *slop__json_print(const cJSON *v);
/* The same, then cJSON_Delete(v). */
char *slop__json_print_free(cJSON *v);

#define SLOP__NUMBER_BUF 32
/* Writes d as a JSON number the same way; returns its length. */
size_t slop__format_number(double d, char out[SLOP__NUMBER_BUF]);

typedef struct slop__buf slop__buf;
/* Appends s as a JSON string (quoted, escaped; NULL as ""), and d as above:
 * for events printed straight into a buffer without building cJSON values. */
void slop__buf_put_string(slop__buf *b, const char *s);
void slop__buf_put_number(slop__buf *b, double d);
/* Appends v printed as slop__json_print() prints it. */
void slop__buf_put_json(slop__buf *b, const cJSON *v);
/* Appends the absolute path of rel (a path relative to a subscription, "/"
 * for its root) under root, as a JSON string: slop__path_join's result
 * without the allocation. */
void slop__buf_put_path(slop__buf *b, const char *root, const char *rel);

/* ---- arena.c: memory for one frame's values --------------------------- */

/* A bump allocator, reset as a whole (slop__arena_reset) after the frame
 * whose values it held; zero-initialised is empty. Owned by its consumer. */
struct slop__arena_chunk;
typedef struct slop__arena {
    struct slop__arena_chunk *head;
    char *next, *end;           /* the free part of head's data              */
} slop__arena;

/* What slop__arena_alloc() rounds sizes up to: every piece is aligned for
 * any type (cJSON values hold doubles). */
#define SLOP__ARENA_ALIGN ((size_t)16)
/* Under AddressSanitizer the arena poisons what a reset takes back, so every
 * allocation takes the slow path, which unpoisons it. */
#if defined(__SANITIZE_ADDRESS__)
#define SLOP__ARENA_POISONS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLOP__ARENA_POISONS 1
#endif
#endif
/* The slow path: a new chunk (and under ASan every allocation). */
void *slop__arena_alloc_chunk(slop__arena *a, size_t n);

/* n bytes aligned for any type, valid until the next reset; NULL when out
 * of memory. Inline: a frame takes dozens. */
static inline void *slop__arena_alloc(slop__arena *a, size_t n) {
    if (n > SIZE_MAX / 2) return NULL; /* rounding up must not wrap */
    n = (n + SLOP__ARENA_ALIGN - 1) & ~(SLOP__ARENA_ALIGN - 1);
#ifndef SLOP__ARENA_POISONS
    if (n && (size_t)(a->end - a->next) >= n) {
        void *p = a->next;
        a->next += n;
        return p;
    }
#endif
    return slop__arena_alloc_chunk(a, n);
}
/* Everything handed out is gone; the first chunk is kept for the next frame. */
void slop__arena_reset(slop__arena *a);
void slop__arena_free(slop__arena *a);

/* ---- json_read.c ---------------------------------------------------- */

typedef enum { SLOP__JSON_OK, SLOP__JSON_BAD, SLOP__JSON_TOO_DEEP } slop__json_status;

/* Parses exactly one JSON value spanning s[0..len) (whitespace around it
 * allowed), validating as it builds (the scanner's rules below, in the same
 * pass), so nesting deeper than max_depth is refused before the stack goes.
 * An integer literal of 16 digits or more that the number printer would not
 * write back as it is (a double cannot hold it, beyond 2^53 as 64-bit ids
 * often are, or it would print in exponent form) becomes a cJSON_Raw value
 * holding the provider's digits, so everything the core prints from it says
 * what the provider sent, and a comparison tells 12345678901234567891 from
 * ...892. Such a value is not cJSON_IsNumber: read it with
 * slop__json_is_number(). Any other number the printer would write
 * otherwise (1.50, 1E5, 0.30000000000000004) stays a cJSON_Number whose
 * valuestring holds the provider's text, printed instead of the double:
 * code that gives an existing number a new value must free and clear it
 * (none does: new values are new items). Returns the value (caller cJSON_Delete()s) or NULL
 * with *status set and, for bad JSON, *offset (may be NULL) at the byte
 * where parsing stopped and *why (may be NULL) the reason, static text. */
cJSON *slop__json_parse(const char *s, size_t len, unsigned max_depth, slop__json_status *status,
                        size_t *offset, const char **why);

/* The same for text already validated (a field value kept raw), nesting up
 * to cJSON's own limit. Caller cJSON_Delete()s; NULL only on OOM (or text
 * that is not JSON). */
cJSON *slop__json_parse_exact(const char *s, size_t len);
/* A number, or an integer kept exact as above (its valuedouble is the
 * nearest double). */
int slop__json_is_number(const cJSON *v);

/* strcmp(a, b) == 0 for the short strings compared on every frame (member
 * names, op names, ids, subscription ids): inline, where a call to strcmp
 * cost more than the compare (wasm has no vector strcmp). */
static inline int slop__same(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

/* cJSON_GetObjectItemCaseSensitive for the per-frame lookups (a message's
 * and an op's members), without a strcmp call per member. */
static inline cJSON *slop__member(const cJSON *obj, const char *name) {
    for (cJSON *it = obj ? obj->child : NULL; it; it = it->next)
        if (it->string && slop__same(it->string, name)) return it;
    return NULL;
}

/* A validating JSON scanner (RFC 8259, strict): the rules every byte from
 * outside passes, by the parse above (which builds as it scans) or alone
 * where building cJSON values would cost more than the work needs: snapshot
 * trees load straight from the text (mirror.c), field values stay raw until
 * touched. Beyond RFC 8259 it refuses what cJSON would silently change:
 * invalid UTF-8, \u0000, numbers beyond a double (1e400), and duplicate
 * member names in an object (one rule for the whole core; JSON.stringify
 * never writes them). Surrogate escapes follow cJSON's rules. */
typedef struct slop__scan_key {
    size_t at;              /* offset of the name's opening quote           */
    uint32_t len;           /* bytes up to and including the closing quote  */
    uint32_t hash;          /* small objects: a signature of an unescaped
                             * name's length and edge bytes (unequal: the
                             * names differ); big ones: of the decoded name */
    int escaped;            /* the text holds a backslash                   */
} slop__scan_key;

/* Names of objects being scanned that fit in the scanner itself: a frame's
 * objects (nested ones stacked) rarely hold more, so a parse allocates none. */
#define SLOP__SCAN_KEY_ROOM 16

typedef struct slop__scan {
    const char *s;
    size_t len, pos;
    unsigned depth, max_depth;
    int too_deep;           /* set when a value nests deeper than max_depth */
    const char *why;        /* why scanning stopped, static text, or NULL   */
    int escaped;            /* the last string scanned held a backslash     */
    char *buf;              /* decoded string (slop__scan_string), owned    */
    size_t cap;
    slop__scan_key *keys;   /* names of the objects being scanned, a stack:
                             * key_room, or malloc'd (owned) once it outgrew it */
    size_t keys_len, keys_cap;
    slop__scan_key key_room[SLOP__SCAN_KEY_ROOM];
} slop__scan;

/* A slop__scan holds a pointer into itself (keys): never copy one. */
void slop__scan_init(slop__scan *sc, const char *s, size_t len, unsigned max_depth);
void slop__scan_free(slop__scan *sc);
void slop__scan_ws_run(slop__scan *sc);
/* Skips whitespace at pos. Providers mostly send compact JSON: the usual
 * case, none, costs a test and no call. */
static inline void slop__scan_ws(slop__scan *sc) {
    if (sc->pos < sc->len && (unsigned char)sc->s[sc->pos] > ' ') return;
    slop__scan_ws_run(sc);
}
/* Validates and skips one value at pos (after whitespace). 0 or -1. */
int slop__scan_value(slop__scan *sc);
/* Decodes the string at pos into sc->buf (*n its length). 0 or -1. */
int slop__scan_string(slop__scan *sc, size_t *n);
/* The same for the string at offset `at`, already scanned; pos stays. */
int slop__scan_string_at(slop__scan *sc, size_t at, size_t *n);
/* After a member or element: 1 on ',' (more follow), 0 on `close` (both
 * consumed), -1 on anything else. */
int slop__scan_next(slop__scan *sc, char close);
/* Counts one level of nesting entered by the caller. 0, or -1 when too deep. */
int slop__scan_enter(slop__scan *sc);
/* Duplicate member names, for callers that walk an object's members
 * themselves: note the stack height on '{' (keys_len), call
 * slop__scan_name() right after scanning each name (sc->pos just past it,
 * the name at `at`), and slop__scan_keys_end() on '}': -1 when two names
 * are equal. */
int slop__scan_name(slop__scan *sc, size_t at);
int slop__scan_keys_end(slop__scan *sc, size_t mark);

/* What slop__parse_frame learned about a frame. */
typedef struct slop__frame_info {
    int is_snapshot;        /* top-level "type" is "snapshot"                */
    int type_seen;
    const char *tree;       /* a snapshot's top-level "tree" (points into the
                             * frame), left as text: the mirror loads it     */
    size_t tree_len;
    int too_deep;
    int out_of_memory;
    size_t offset;          /* where parsing stopped                         */
    const char *why;        /* why, static text ("invalid UTF-8 in a string") */
} slop__frame_info;

/* Every object and array slop__json_parse and slop__parse_frame build carries
 * the length of its text, as the provider wrote it, in valueint (cJSON leaves
 * it unused for containers; 0 for a container made any other way). */

/* A provider frame in one pass: validated and built as slop__json_parse
 * does, its values allocated from `arena` (the caller resets it when done
 * with the frame, and never cJSON_Delete()s them; NULL: from cJSON's
 * allocator, the caller cJSON_Delete()s). A top-level snapshot's object
 * "tree" stays text (info->tree; null in the returned value): only its end
 * is found here. NULL with info->why (or info->out_of_memory) when the
 * frame is not exactly one JSON value. */
cJSON *slop__parse_frame(const char *s, size_t len, unsigned max_depth, slop__arena *arena, slop__frame_info *info);

/* ---- util.c: small helpers shared by every file ------------------------ */

/* malloc'd copies (NUL-terminated); NULL when out of memory. */
char *slop__strdup(const char *s);
char *slop__strndup(const char *s, size_t n);

/* Length of the well-formed UTF-8 sequence at u (avail bytes there), or 0
 * (overlong, surrogate, above U+10FFFF, stray or truncated). json_read.c. */
size_t slop__utf8_len(const unsigned char *u, size_t avail);
/* Bytes of s (n long) to keep so that at most max are kept and no UTF-8
 * sequence is cut in half: for echoing provider text into a message. */
size_t slop__utf8_cut(const char *s, size_t n, size_t max);

static inline char slop__ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }
/* 1 when s starts with `lower` (lowercase ASCII), ignoring ASCII case. */
int slop__starts_with_ci(const char *s, const char *lower);
/* The value of a hex digit, or -1. */
int slop__hex_value(char c);

/* FNV-1a, 32 bits. Tool names carry it (agent_tools.c), so it must never
 * change. */
uint32_t slop__fnv1a(const void *p, size_t n);
/* The same, going on from h (SLOP__FNV1A_BASIS to start): a hash of many pieces. */
#define SLOP__FNV1A_BASIS 2166136261u
uint32_t slop__fnv1a_more(uint32_t h, const void *p, size_t n);

/* Node paths. slop__path_child: parent + "/" + id ("/" + "a" is "/a").
 * slop__path_join: a subscription's root path and a path relative to it
 * ("/" names the root itself). malloc'd, NULL when out of memory. */
char *slop__path_child(const char *parent, const char *id);
char *slop__path_join(const char *root, const char *rel);

/* Growable arrays: `arrp` points to the array pointer (any T *), *cap is its
 * capacity in elements of `elem` bytes; doubles it (from `first`). 0, or -1
 * when out of memory (the array is unchanged). SLOP__RESERVE makes room for
 * element number `len`. */
int slop__grow(void *arrp, size_t *cap, size_t elem, size_t first);
#define SLOP__RESERVE(arr, len, cap, first) \
    ((len) < (cap) ? 0 : slop__grow(&(arr), &(cap), sizeof *(arr), (first)))

/* A growable string, always NUL-terminated once something was put. After an
 * out of memory `oom` stays set and take() says NULL. */
typedef struct slop__buf {
    char *s;
    size_t len, cap;
    int oom;
} slop__buf;

/* The slow path of the puts below: room for `more` bytes and the NUL. */
int slop__buf_grow(slop__buf *b, size_t more);

/* Inline: the printer and the tree text put a few bytes at a time. */
static inline void slop__buf_putn(slop__buf *b, const char *s, size_t n) {
    if (n >= b->cap - b->len && slop__buf_grow(b, n) != 0) return;
    if (n) memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}
static inline void slop__buf_puts(slop__buf *b, const char *s) { slop__buf_putn(b, s, strlen(s)); }
static inline void slop__buf_putc(slop__buf *b, char c) { slop__buf_putn(b, &c, 1); }
/* "\u00XX" for the byte c. */
void slop__buf_put_u00(slop__buf *b, unsigned char c);
/* The string, malloc'd ("" when nothing was put), or NULL after out of
 * memory; b is empty again either way. */
char *slop__buf_take(slop__buf *b);

#endif /* SLOP_INTERNAL_H */
