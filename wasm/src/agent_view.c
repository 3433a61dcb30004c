/*
 * agent_view.c: the LLM-facing views of a mirrored SLOP tree.
 *
 *   slop__tree_text   canonical text, one line per node (the reference consumers' format)
 *   slop__tools       affordances as LLM function tools + resolve map (item 54)
 *   slop__state_tail  the <slop-state> block for several providers (item 55)
 *
 * and the same straight from a mirror (what the consumer hands out), without
 * converting the tree to cJSON, with the agent's budgets:
 *
 *   slop__mirror_tree_text   the tree text, line by line
 *   slop__mirror_tools       the tools, or only the max_tools most salient
 *   slop__state_tail_mirror  the block within max_bytes, a fair share each
 *
 * Everything a provider sends is untrusted text. The tree text keeps every
 * node on one line (control characters and Unicode line separators in raw
 * strings become spaces; the summary is quoted with JSON-style escapes), and
 * the state tail neutralises anything that could open or close the block.
 *
 * ---- Tree text format -------------------------------------------------
 * One line per node, 2 spaces of indent per level, lines joined with "\n"
 * and no trailing newline. A node line is, in this order:
 *
 *   [type] id                  always ("?" for a missing type or id)
 *   : Label                    properties.label, else properties.title (a
 *                              null label counts as absent), when it is not
 *                              "" and differs from the id (a non-string
 *                              label is JSON-encoded)
 *    (k=v, k2=v2)              the other properties, values JSON-encoded
 *                              compactly, in the provider's key order
 *     — "summary"              meta.summary, quoted, \" \\ \n \uXXXX escapes
 *     salience=X               meta.salience as Math.round(x*100)/100,
 *                              printed minimally (0.9, 1, 0.85)
 *     urgency=U                meta.urgency when a string other than "none"
 *     focus                    meta.focus == true
 *     pinned                   meta.pinned == true
 *     content: MIME, N bytes — "summary"
 *                              content_ref: mime (else its type, else "?"),
 *                              ", N bytes" when size is a number, then the
 *                              quoted summary when present. Kept on the node
 *                              line so "one line per node" holds.
 *     actions: {a(p: type, q: ?), b [dangerous]}
 *                              affordances; "(...)" lists params.properties
 *                              names and types (a type array prints
 *                              "string|null", no type prints "?") whenever
 *                              params.properties is an object, so an empty
 *                              properties object prints "a()". A dangerous
 *                              affordance gets " [dangerous]" after its entry
 *                              (our addition; the reference does not mark it).
 *
 * Then, one level deeper: "(showing N of M)" when meta.window is set and
 * 0 < N < M (N = inline children, M = meta.total_children), or
 * "(M children not loaded)" ("child" when M is 1) when no child is inline and
 * M > 0; then the children. Below depth 256 a single "(deeper levels
 * omitted)" line stands for the rest.
 *
 * Example (the spec's Pet Store fixture):
 *   [root] store: Pet Store  salience=0.9  actions: {search(query: string)}
 *     [collection] catalog: Catalog (count=142)  — "142 products, 12 on sale"
 *       (showing 1 of 142)
 *       [item] prod-1: Rubber Duck (price=4.99, in_stock=true)  actions: {add_to_cart(quantity: number), view}
 *     [collection] cart: Cart  — "3 items, $24.97"
 *       (3 children not loaded)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mirror.h"

#define AV_MAX_DEPTH 256u
#define AV_MIN_TOOL_LEN 16u

/* ---------------------------------------------------------------------- */
/* Text helpers over util.c's string buffer                                 */
/* ---------------------------------------------------------------------- */

static void sb_indent(slop__buf *b, unsigned depth) {
    for (unsigned i = 0; i < depth; i++) slop__buf_putn(b, "  ", 2);
}

/* Length of a line-breaking sequence at s (C0 controls and DEL, U+0085,
 * U+2028, U+2029), else 0. */
static size_t line_break_len(const unsigned char *s) {
    if (s[0] < 0x20 || s[0] == 0x7f) return 1;
    if (s[0] == 0xc2 && s[1] == 0x85) return 2;
    if (s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9)) return 3;
    return 0;
}

/* Raw provider text on a single line: line-breaking sequences become spaces. */
static void sb_put_line_safe(slop__buf *b, const char *s) {
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        size_t brk = line_break_len(u);
        if (brk) { slop__buf_putc(b, ' '); u += brk; continue; }
        const unsigned char *start = u;
        while (*u && !line_break_len(u)) u++;
        slop__buf_putn(b, (const char *)start, (size_t)(u - start));
    }
}

/* A double-quoted string with JSON-style escapes for ", \ and line breaks;
 * other UTF-8 is copied as is. */
static void sb_put_quoted(slop__buf *b, const char *s) {
    const unsigned char *u = (const unsigned char *)s;
    slop__buf_putc(b, '"');
    while (*u) {
        char esc[8];
        if (*u == '"' || *u == '\\') {
            esc[0] = '\\'; esc[1] = (char)*u;
            slop__buf_putn(b, esc, 2); u++;
        } else if (*u == '\n') { slop__buf_putn(b, "\\n", 2); u++; }
        else if (*u == '\r') { slop__buf_putn(b, "\\r", 2); u++; }
        else if (*u == '\t') { slop__buf_putn(b, "\\t", 2); u++; }
        else if (*u < 0x20 || *u == 0x7f) { slop__buf_put_u00(b, *u); u++; }
        else if (u[0] == 0xc2 && u[1] == 0x85) { slop__buf_putn(b, "\\u0085", 6); u += 2; }
        else if (u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9)) {
            slop__buf_puts(b, u[2] == 0xa8 ? "\\u2028" : "\\u2029"); u += 3;
        } else { slop__buf_putc(b, (char)*u); u++; }
    }
    slop__buf_putc(b, '"');
}

/* Compact JSON of any cJSON value, line-safe (cJSON already escapes control
 * characters inside strings; U+2028/2029 stay raw in cJSON output). */
static void sb_put_json(slop__buf *b, const cJSON *v) {
    char *s = slop__json_print(v);
    if (!s) { b->oom = 1; return; }
    sb_put_line_safe(b, s);
    free(s);
}

/* A number as the JSON printer writes it, but never "-0" in text. */
static void sb_put_number(slop__buf *b, double d) {
    char tmp[SLOP__NUMBER_BUF];
    if (d == 0) d = 0;
    slop__buf_putn(b, tmp, slop__format_number(d, tmp));
}

/* ---------------------------------------------------------------------- */
/* Tree text                                                               */
/* ---------------------------------------------------------------------- */

static const char *str_member(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

static void put_salience(slop__buf *b, double x) {
    char tmp[64];
    double r = floor(x * 100.0 + 0.5) / 100.0; /* JS Math.round(x*100)/100 */
    if (r == 0) r = 0;
    snprintf(tmp, sizeof tmp, "%.2f", r);
    char *dot = strchr(tmp, '.');
    if (dot) {
        char *end = tmp + strlen(tmp);
        while (end > dot + 1 && end[-1] == '0') *--end = '\0';
        if (end == dot + 1) *dot = '\0';
    }
    slop__buf_puts(b, tmp);
}

static void put_param_type(slop__buf *b, const cJSON *schema) {
    const cJSON *t = cJSON_IsObject(schema) ? cJSON_GetObjectItemCaseSensitive(schema, "type") : NULL;
    if (cJSON_IsString(t) && t->valuestring) { sb_put_line_safe(b, t->valuestring); return; }
    if (cJSON_IsArray(t) && cJSON_GetArraySize(t) > 0) {
        int first = 1, ok = 1;
        const cJSON *e;
        cJSON_ArrayForEach(e, t) if (!cJSON_IsString(e)) ok = 0;
        if (ok) {
            cJSON_ArrayForEach(e, t) {
                if (!first) slop__buf_putc(b, '|');
                sb_put_line_safe(b, e->valuestring);
                first = 0;
            }
            return;
        }
    }
    slop__buf_putc(b, '?');
}

static void put_affordances(slop__buf *b, const cJSON *affs) {
    const cJSON *a;
    int first = 1;
    if (!cJSON_IsArray(affs)) return;
    cJSON_ArrayForEach(a, affs) {
        const char *action = cJSON_IsObject(a) ? str_member(a, "action") : NULL;
        if (!action) continue;
        slop__buf_puts(b, first ? "  actions: {" : ", ");
        first = 0;
        sb_put_line_safe(b, action);
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(a, "params");
        const cJSON *props = cJSON_IsObject(params) ? cJSON_GetObjectItemCaseSensitive(params, "properties") : NULL;
        if (cJSON_IsObject(props)) {
            const cJSON *p;
            int pf = 1;
            slop__buf_putc(b, '(');
            cJSON_ArrayForEach(p, props) {
                if (!pf) slop__buf_puts(b, ", ");
                pf = 0;
                sb_put_line_safe(b, p->string ? p->string : "");
                slop__buf_puts(b, ": ");
                put_param_type(b, p);
            }
            slop__buf_putc(b, ')');
        }
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "dangerous"))) slop__buf_puts(b, " [dangerous]");
    }
    if (!first) slop__buf_putc(b, '}');
}

static void put_content_ref(slop__buf *b, const cJSON *cr) {
    if (!cJSON_IsObject(cr)) return;
    const char *mime = str_member(cr, "mime");
    const char *type = str_member(cr, "type");
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(cr, "size");
    const char *summary = str_member(cr, "summary");
    slop__buf_puts(b, "  content: ");
    sb_put_line_safe(b, mime ? mime : type ? type : "?");
    if (cJSON_IsNumber(size) && isfinite(size->valuedouble)) {
        slop__buf_puts(b, ", ");
        sb_put_number(b, size->valuedouble);
        slop__buf_puts(b, " bytes");
    }
    if (summary) {
        slop__buf_puts(b, " \xe2\x80\x94 ");
        sb_put_quoted(b, summary);
    }
}

/* ": Label" (label ?? title; null counts as absent, as with JS "??"), then
 * " (k=v, ...)" for the other properties. */
static void put_properties(slop__buf *b, const cJSON *props, const char *id) {
    const cJSON *label = cJSON_GetObjectItemCaseSensitive(props, "label");
    if (!label || cJSON_IsNull(label)) label = cJSON_GetObjectItemCaseSensitive(props, "title");
    if (label && !cJSON_IsNull(label)) {
        if (cJSON_IsString(label) && label->valuestring) {
            if (label->valuestring[0] && (!id || strcmp(label->valuestring, id) != 0)) {
                slop__buf_puts(b, ": ");
                sb_put_line_safe(b, label->valuestring);
            }
        } else {
            slop__buf_puts(b, ": ");
            sb_put_json(b, label);
        }
    }
    const cJSON *p;
    int first = 1;
    cJSON_ArrayForEach(p, props) {
        const char *k = p->string ? p->string : "";
        if (!strcmp(k, "label") || !strcmp(k, "title")) continue;
        slop__buf_puts(b, first ? " (" : ", ");
        first = 0;
        sb_put_line_safe(b, k);
        slop__buf_putc(b, '=');
        sb_put_json(b, p);
    }
    if (!first) slop__buf_putc(b, ')');
}

/* Summary, salience, urgency, focus and pinned; *total gets
 * meta.total_children (-1: none) and *windowed whether meta.window is set. */
static void put_meta(slop__buf *b, const cJSON *meta, long long *total, int *windowed) {
    const char *summary = str_member(meta, "summary");
    if (summary) {
        slop__buf_puts(b, "  \xe2\x80\x94 ");
        sb_put_quoted(b, summary);
    }
    const cJSON *sal = cJSON_GetObjectItemCaseSensitive(meta, "salience");
    if (cJSON_IsNumber(sal) && isfinite(sal->valuedouble)) {
        slop__buf_puts(b, "  salience=");
        put_salience(b, sal->valuedouble);
    }
    const char *urgency = str_member(meta, "urgency");
    if (urgency && strcmp(urgency, "none") != 0) {
        slop__buf_puts(b, "  urgency=");
        sb_put_line_safe(b, urgency);
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(meta, "focus"))) slop__buf_puts(b, "  focus");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(meta, "pinned"))) slop__buf_puts(b, "  pinned");
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(meta, "total_children");
    if (cJSON_IsNumber(tc) && isfinite(tc->valuedouble) && tc->valuedouble >= 0 && tc->valuedouble < 9e15)
        *total = (long long)tc->valuedouble;
    const cJSON *win = cJSON_GetObjectItemCaseSensitive(meta, "window");
    *windowed = win && !cJSON_IsNull(win);
}

/* The text of the line one level deeper that says what is not inline:
 * "(N children not loaded)" or "(showing N of M)". 0 when there is none. */
static int unloaded_text(char tmp[96], long long total, int windowed, long long inline_n) {
    if (total > 0 && inline_n == 0)
        snprintf(tmp, 96, "(%lld %s not loaded)", total, total == 1 ? "child" : "children");
    else if (windowed && total > inline_n)
        snprintf(tmp, 96, "(showing %lld of %lld)", inline_n, total);
    else
        return 0;
    return 1;
}

static void put_unloaded(slop__buf *b, unsigned depth, long long total, int windowed, long long inline_n) {
    char tmp[96];
    if (!unloaded_text(tmp, total, windowed, inline_n)) return;
    slop__buf_putc(b, '\n');
    sb_indent(b, depth + 1);
    slop__buf_puts(b, tmp);
}

/* A node's line without its indent: "[type] id: Label (k=v)  — ...".
 * *total gets meta.total_children (-1: none), *windowed whether meta.window
 * is set. */
static void put_node_head(slop__buf *b, const char *id, const char *type, const cJSON *props, const cJSON *meta,
                          const cJSON *content_ref, const cJSON *affs, long long *total, int *windowed) {
    slop__buf_putc(b, '[');
    sb_put_line_safe(b, type ? type : "?");
    slop__buf_puts(b, "] ");
    sb_put_line_safe(b, id ? id : "?");
    if (cJSON_IsObject(props)) put_properties(b, props, id);
    *total = -1;
    *windowed = 0;
    if (cJSON_IsObject(meta)) put_meta(b, meta, total, windowed);
    put_content_ref(b, content_ref);
    put_affordances(b, affs);
}

static void tree_node(slop__buf *b, const cJSON *node, unsigned depth) {
    if (b->oom) return;
    sb_indent(b, depth);
    if (depth >= AV_MAX_DEPTH) { slop__buf_puts(b, "(deeper levels omitted)"); return; }

    long long total;
    int windowed;
    put_node_head(b, str_member(node, "id"), str_member(node, "type"),
                  cJSON_GetObjectItemCaseSensitive(node, "properties"), cJSON_GetObjectItemCaseSensitive(node, "meta"),
                  cJSON_GetObjectItemCaseSensitive(node, "content_ref"),
                  cJSON_GetObjectItemCaseSensitive(node, "affordances"), &total, &windowed);

    const cJSON *children = cJSON_GetObjectItemCaseSensitive(node, "children");
    long long inline_n = 0;
    const cJSON *c;
    if (cJSON_IsArray(children)) cJSON_ArrayForEach(c, children) if (cJSON_IsObject(c)) inline_n++;
    put_unloaded(b, depth, total, windowed, inline_n);
    if (inline_n > 0) {
        cJSON_ArrayForEach(c, children) {
            if (!cJSON_IsObject(c)) continue;
            slop__buf_putc(b, '\n');
            tree_node(b, c, depth + 1);
            if (b->oom) return;
        }
    }
}

char *slop__tree_text(const cJSON *tree) {
    slop__buf b = {0};
    if (cJSON_IsObject(tree)) tree_node(&b, tree, 0);
    return slop__buf_take(&b);
}

/* ---------------------------------------------------------------------- */
/* Tools                                                                   */
/* ---------------------------------------------------------------------- */
/*
 * Naming, in order:
 *  1. short name  sanitize(id) "__" sanitize(action); sanitize maps every
 *     byte outside [A-Za-z0-9_] to "_" (so a 2-byte UTF-8 letter gives "__").
 *  2. collisions  rounds: every entry whose current name is shared with
 *     another entry and that still has an unused ancestor prepends the next
 *     ancestor's sanitized id ("parent__id__action", then "grand__parent__.."),
 *     until no shared name can grow. The tree root's id counts as an ancestor.
 *  3. finalize    "{sanitize(prefix)}__" in front when prefix is non-empty;
 *     "_" in front when the name would start with a digit (Gemini needs
 *     [a-zA-Z_] first; names starting with a letter or "_" are untouched);
 *     if longer than max_len (0 = 64, values below 16 count as 16): the first
 *     max_len-8 bytes, "_", and the FNV-1a 32-bit hash of the whole finalized
 *     name in base 36, lowercase, zero-padded to 7 (exactly max_len bytes).
 *  4. duplicates  any finalized name already taken (identical ancestry, or a
 *     hash collision) goes, in tree pre-order, to the first of base "_2",
 *     "_3", ... (suffix added before step 3) not used by any tool; the first
 *     holder keeps the plain name, and no entry's natural name is stolen.
 * Description: (label ?? action) + (": " + description when present) +
 * " (on PATH)" + " [DANGEROUS - confirm first]" when dangerous (the reference
 * SDK's wording). parameters: a copy of params when it is an object (with
 * "type":"object" added if it has "properties" but no "type"), else
 * {"type":"object","properties":{}}. Nodes deeper than 256 levels and nodes
 * (other than the tree root) without a string id are skipped with their
 * subtrees.
 */

typedef struct av_node {
    char *sid;      /* sanitized id */
    char *path;     /* absolute path */
    size_t parent;  /* index, or SIZE_MAX for the tree root */
    unsigned depth; /* number of ancestors */
} av_node;

typedef struct av_entry {
    size_t node;
    char *saction;
    const cJSON *aff;
    unsigned level; /* ancestors prepended */
    char *name;     /* current base name */
    char *natural;  /* finalized name before duplicate handling */
    char *final;
} av_entry;

typedef struct av_ctx {
    av_node *nodes;
    size_t nn, ncap;
    av_entry *ents;
    size_t ne, ecap;
    int oom;
} av_ctx;

static char *sanitize(const char *s) {
    size_t n = strlen(s);
    char *o = malloc(n + 1);
    if (!o) return NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        o[i] = ok ? (char)c : '_';
    }
    o[n] = '\0';
    return o;
}

static void collect(av_ctx *cx, const cJSON *node, size_t parent, unsigned depth, const char *path_in) {
    if (cx->oom || depth >= AV_MAX_DEPTH) return;
    const char *id = str_member(node, "id");
    if (!id && parent != SIZE_MAX) return;
    if (SLOP__RESERVE(cx->nodes, cx->nn, cx->ncap, 32) != 0) { cx->oom = 1; return; }
    size_t me = cx->nn;
    av_node *nd = &cx->nodes[me];
    nd->sid = sanitize(id ? id : "");
    nd->path = parent == SIZE_MAX ? slop__strdup(path_in) : slop__path_child(path_in, id);
    nd->parent = parent;
    nd->depth = depth;
    cx->nn++;
    if (!nd->sid || !nd->path) { cx->oom = 1; return; }

    const cJSON *affs = cJSON_GetObjectItemCaseSensitive(node, "affordances");
    const cJSON *a;
    if (cJSON_IsArray(affs)) cJSON_ArrayForEach(a, affs) {
        const char *action = cJSON_IsObject(a) ? str_member(a, "action") : NULL;
        if (!action) continue;
        if (SLOP__RESERVE(cx->ents, cx->ne, cx->ecap, 32) != 0) { cx->oom = 1; return; }
        av_entry *e = &cx->ents[cx->ne++];
        memset(e, 0, sizeof *e);
        e->node = me;
        e->aff = a;
        e->saction = sanitize(action);
        if (!e->saction) { cx->oom = 1; return; }
    }
    const cJSON *children = cJSON_GetObjectItemCaseSensitive(node, "children");
    const cJSON *c;
    if (cJSON_IsArray(children)) cJSON_ArrayForEach(c, children) {
        if (!cJSON_IsObject(c)) continue;
        /* cx->nodes may move during recursion (re-read it each time); the
         * path string it points to does not */
        collect(cx, c, me, depth + 1, cx->nodes[me].path);
        if (cx->oom) return;
    }
}

/* base name of e with e->level ancestors prepended */
static char *build_name(const av_ctx *cx, const av_entry *e) {
    const av_node *nd = &cx->nodes[e->node];
    size_t len = strlen(nd->sid) + 2 + strlen(e->saction);
    size_t k = nd->parent;
    for (unsigned i = 0; i < e->level && k != SIZE_MAX; i++, k = cx->nodes[k].parent)
        len += strlen(cx->nodes[k].sid) + 2;
    char *o = malloc(len + 1);
    if (!o) return NULL;
    /* write right to left */
    size_t pos = len;
    o[pos] = '\0';
    size_t al = strlen(e->saction);
    pos -= al; memcpy(o + pos, e->saction, al);
    pos -= 2; memcpy(o + pos, "__", 2);
    size_t il = strlen(nd->sid);
    pos -= il; memcpy(o + pos, nd->sid, il);
    k = nd->parent;
    for (unsigned i = 0; i < e->level && k != SIZE_MAX; i++, k = cx->nodes[k].parent) {
        pos -= 2; memcpy(o + pos, "__", 2);
        il = strlen(cx->nodes[k].sid);
        pos -= il; memcpy(o + pos, cx->nodes[k].sid, il);
    }
    return o;
}

/* Open-addressing string multiset (keys are borrowed). */
typedef struct strset {
    const char **keys;
    size_t *counts;
    size_t cap;
} strset;

static int set_init(strset *s, size_t n) {
    size_t cap = 16;
    while (cap < n * 2 + 1) {
        if (cap > SIZE_MAX / 4) return 0;
        cap *= 2;
    }
    s->keys = calloc(cap, sizeof *s->keys);
    s->counts = calloc(cap, sizeof *s->counts);
    s->cap = cap;
    if (!s->keys || !s->counts) { free(s->keys); free(s->counts); s->keys = NULL; s->counts = NULL; return 0; }
    return 1;
}

static void set_free(strset *s) { free(s->keys); free(s->counts); s->keys = NULL; s->counts = NULL; }

static size_t set_slot(const strset *s, const char *k) {
    size_t i = slop__fnv1a(k, strlen(k)) & (s->cap - 1);
    while (s->keys[i] && strcmp(s->keys[i], k) != 0) i = (i + 1) & (s->cap - 1);
    return i;
}

static void set_add(strset *s, const char *k) {
    size_t i = set_slot(s, k);
    if (!s->keys[i]) s->keys[i] = k;
    s->counts[i]++;
}

static size_t set_count(const strset *s, const char *k) {
    size_t i = set_slot(s, k);
    return s->keys[i] ? s->counts[i] : 0;
}

/* prefix + base + suffix, digit-guarded, truncated with hash to max_len */
static char *finalize_name(const char *sprefix, const char *base, unsigned k, unsigned max_len) {
    char suf[24] = "";
    if (k) snprintf(suf, sizeof suf, "_%u", k);
    size_t pl = sprefix ? strlen(sprefix) : 0, bl = strlen(base), sl = strlen(suf);
    size_t len = (pl ? pl + 2 : 0) + bl + sl;
    char *o = malloc(len + 2);
    if (!o) return NULL;
    size_t pos = 0;
    char first = pl ? sprefix[0] : bl ? base[0] : suf[0];
    if (first >= '0' && first <= '9') o[pos++] = '_';
    if (pl) { memcpy(o + pos, sprefix, pl); pos += pl; memcpy(o + pos, "__", 2); pos += 2; }
    memcpy(o + pos, base, bl); pos += bl;
    memcpy(o + pos, suf, sl); pos += sl;
    o[pos] = '\0';
    if (pos > max_len) {
        static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
        uint32_t h = slop__fnv1a(o, pos);
        char hs[8];
        for (int i = 6; i >= 0; i--) { hs[i] = digits[h % 36]; h /= 36; }
        hs[7] = '\0';
        size_t keep = max_len - 8;
        o[keep] = '_';
        memcpy(o + keep + 1, hs, 8);
    }
    return o;
}

static void ctx_free(av_ctx *cx) {
    for (size_t i = 0; i < cx->nn; i++) { free(cx->nodes[i].sid); free(cx->nodes[i].path); }
    for (size_t i = 0; i < cx->ne; i++) {
        free(cx->ents[i].saction);
        free(cx->ents[i].name);
        free(cx->ents[i].natural);
        free(cx->ents[i].final);
    }
    free(cx->nodes);
    free(cx->ents);
}

/* Step 2: prepend ancestors to shared names until none can grow. */
static int disambiguate(av_ctx *cx) {
    for (size_t i = 0; i < cx->ne; i++) {
        cx->ents[i].name = build_name(cx, &cx->ents[i]);
        if (!cx->ents[i].name) return 0;
    }
    for (;;) {
        strset s;
        if (!set_init(&s, cx->ne)) return 0;
        for (size_t i = 0; i < cx->ne; i++) set_add(&s, cx->ents[i].name);
        int changed = 0;
        for (size_t i = 0; i < cx->ne; i++) {
            av_entry *e = &cx->ents[i];
            if (set_count(&s, e->name) > 1 && e->level < cx->nodes[e->node].depth) {
                e->level++;
                changed = 1;
            }
        }
        set_free(&s);
        if (!changed) return 1;
        for (size_t i = 0; i < cx->ne; i++) {
            av_entry *e = &cx->ents[i];
            char *nn = build_name(cx, e);
            if (!nn) return 0;
            free(e->name);
            e->name = nn;
        }
    }
}

/* Steps 3 and 4. */
static int finalize_all(av_ctx *cx, const char *sprefix, unsigned max_len) {
    strset all, claimed;
    for (size_t i = 0; i < cx->ne; i++) {
        cx->ents[i].natural = finalize_name(sprefix, cx->ents[i].name, 0, max_len);
        if (!cx->ents[i].natural) return 0;
    }
    if (!set_init(&all, cx->ne)) return 0;
    if (!set_init(&claimed, cx->ne)) { set_free(&all); return 0; }
    for (size_t i = 0; i < cx->ne; i++) set_add(&all, cx->ents[i].natural);
    int ok = 1;
    for (size_t i = 0; i < cx->ne && ok; i++) {
        av_entry *e = &cx->ents[i];
        if (!set_count(&claimed, e->natural)) {
            e->final = slop__strdup(e->natural);
        } else {
            for (unsigned k = 2;; k++) {
                char *cand = finalize_name(sprefix, e->name, k, max_len);
                if (!cand) break;
                if (!set_count(&all, cand) && !set_count(&claimed, cand)) { e->final = cand; break; }
                free(cand);
            }
        }
        if (!e->final) { ok = 0; break; }
        set_add(&claimed, e->final);
    }
    set_free(&all);
    set_free(&claimed);
    return ok;
}

static cJSON *tool_params(const cJSON *aff) {
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(aff, "params");
    cJSON *p;
    if (cJSON_IsObject(params)) {
        p = cJSON_Duplicate(params, 1);
        if (p && !cJSON_GetObjectItemCaseSensitive(p, "type") &&
            cJSON_GetObjectItemCaseSensitive(p, "properties")) {
            /* rebuild with "type" first, as schemas usually read */
            cJSON *o = cJSON_CreateObject();
            if (!o || !cJSON_AddStringToObject(o, "type", "object")) {
                cJSON_Delete(o);
                cJSON_Delete(p);
                return NULL;
            }
            while (p->child) {
                cJSON *it = cJSON_DetachItemViaPointer(p, p->child);
                if (!cJSON_AddItemToObject(o, it->string, it)) {
                    cJSON_Delete(it);
                    cJSON_Delete(o);
                    cJSON_Delete(p);
                    return NULL;
                }
            }
            cJSON_Delete(p);
            p = o;
        }
        return p;
    }
    p = cJSON_CreateObject();
    if (!p) return NULL;
    if (!cJSON_AddStringToObject(p, "type", "object") || !cJSON_AddObjectToObject(p, "properties")) {
        cJSON_Delete(p);
        return NULL;
    }
    return p;
}

static char *tool_description(const cJSON *aff, const char *path) {
    slop__buf b = {0};
    const char *label = str_member(aff, "label");
    const char *desc = str_member(aff, "description");
    slop__buf_puts(&b, label ? label : str_member(aff, "action"));
    if (desc) { slop__buf_puts(&b, ": "); slop__buf_puts(&b, desc); }
    slop__buf_puts(&b, " (on ");
    slop__buf_puts(&b, path);
    slop__buf_putc(&b, ')');
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(aff, "dangerous")))
        slop__buf_puts(&b, " [DANGEROUS - confirm first]");
    return slop__buf_take(&b);
}

cJSON *slop__tools(const cJSON *tree, const char *root_path, const char *prefix,
                   unsigned max_len) {
    av_ctx cx = {0};
    char *sprefix = NULL;
    cJSON *out = cJSON_CreateObject();
    cJSON *tools = out ? cJSON_AddArrayToObject(out, "tools") : NULL;
    cJSON *resolve = tools ? cJSON_AddObjectToObject(out, "resolve") : NULL;
    if (!resolve) goto fail;
    if (max_len == 0) max_len = SLOP_TOOL_NAME_MAX_DEFAULT;
    if (max_len < AV_MIN_TOOL_LEN) max_len = AV_MIN_TOOL_LEN;
    if (!root_path || !*root_path) root_path = "/";
    if (prefix && *prefix) {
        sprefix = sanitize(prefix);
        if (!sprefix) goto fail;
    }
    if (!cJSON_IsObject(tree)) { free(sprefix); return out; }

    collect(&cx, tree, SIZE_MAX, 0, root_path);
    if (cx.oom || !disambiguate(&cx) || !finalize_all(&cx, sprefix, max_len)) goto fail;

    for (size_t i = 0; i < cx.ne; i++) {
        const av_entry *e = &cx.ents[i];
        const char *path = cx.nodes[e->node].path;
        const char *action = str_member(e->aff, "action");
        cJSON *tool = cJSON_CreateObject();
        if (!tool || !cJSON_AddItemToArray(tools, tool)) { cJSON_Delete(tool); goto fail; }
        if (!cJSON_AddStringToObject(tool, "name", e->final)) goto fail;
        char *desc = tool_description(e->aff, path);
        if (!desc) goto fail;
        cJSON *d = cJSON_AddStringToObject(tool, "description", desc);
        free(desc);
        if (!d) goto fail;
        cJSON *params = tool_params(e->aff);
        if (!params) goto fail;
        if (!cJSON_AddItemToObject(tool, "parameters", params)) { cJSON_Delete(params); goto fail; }
        if (!cJSON_AddBoolToObject(tool, "dangerous",
                                   cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e->aff, "dangerous"))))
            goto fail;
        cJSON *r = cJSON_AddObjectToObject(resolve, e->final);
        if (!r || !cJSON_AddStringToObject(r, "path", path) || !cJSON_AddStringToObject(r, "action", action))
            goto fail;
    }
    ctx_free(&cx);
    free(sprefix);
    return out;
fail:
    ctx_free(&cx);
    free(sprefix);
    cJSON_Delete(out);
    return NULL;
}

/* ---------------------------------------------------------------------- */
/* State tail                                                              */
/* ---------------------------------------------------------------------- */
/*
 * Layout (the reference renderSlopStateTail's, byte for byte):
 *
 *   <slop-state generated_at="TS" format="text/tree">\n
 *   ## SLOP Apps\n
 *   \n
 *   ### Name (id)\n
 *   \n
 *   <tree text, or "(awaiting snapshot)">\n
 *   \n
 *   ### Name2 (id2)\n
 *   \n
 *   <tree text>\n
 *   </slop-state>
 *
 * i.e. a blank line after the heading and after each section heading, one
 * blank line between sections, no blank line before the close tag (trailing
 * newlines of the body are dropped) and no newline after it.
 *
 * Neutralising. In names, ids and tree text, every "<" that starts an opening
 * or closing tag of slop-state or slop-apps-available becomes "&lt;" (the rest
 * is kept). A tag start is "<", optional "/", then the tag name in any case
 * (matched as a prefix, so "<slop-statement" loses its "<" too: harmless),
 * with any run of whitespace or invisible characters (ASCII whitespace,
 * U+00A0, U+200B-U+200D, U+2060, U+FEFF) allowed around the "/", and no ">"
 * needed: so "</SLOP-STATE >", "< /slop-state>", "<slop-state foo=1>" and even
 * a dangling "</slop-state" all lose their "<". Afterwards the block holds no
 * "<" + "/"? + tag name except the two real tags. Names and ids also have
 * line breaks turned into spaces so a heading stays one line. generated_at is
 * an attribute value: & < > " ' become entities and control characters
 * become spaces.
 */

static size_t skip_invisible(const unsigned char *s) {
    size_t i = 0;
    for (;;) {
        unsigned char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') { i++; continue; }
        if (c == 0xc2 && s[i + 1] == 0xa0) { i += 2; continue; }
        if (c == 0xe2 && s[i + 1] == 0x80 && s[i + 2] >= 0x8b && s[i + 2] <= 0x8d) { i += 3; continue; }
        if (c == 0xe2 && s[i + 1] == 0x81 && s[i + 2] == 0xa0) { i += 3; continue; }
        if (c == 0xef && s[i + 1] == 0xbb && s[i + 2] == 0xbf) { i += 3; continue; }
        return i;
    }
}

/* Does a slop context tag start at s (s[0] == '<')? */
static int is_context_tag(const unsigned char *s) {
    size_t i = 1;
    i += skip_invisible(s + i);
    if (s[i] == '/') {
        i++;
        i += skip_invisible(s + i);
    }
    const char *t = (const char *)s + i;
    return slop__starts_with_ci(t, "slop-state") || slop__starts_with_ci(t, "slop-apps-available");
}

static void sb_put_neutral(slop__buf *b, const char *text, int one_line) {
    const unsigned char *u = (const unsigned char *)text;
    while (*u) {
        if (*u == '<' && is_context_tag(u)) { slop__buf_puts(b, "&lt;"); u++; continue; }
        if (one_line) {
            size_t brk = line_break_len(u);
            if (brk) { slop__buf_putc(b, ' '); u += brk; continue; }
        }
        const unsigned char *start = u;
        u++;
        while (*u && *u != '<' && !(one_line && line_break_len(u))) u++;
        slop__buf_putn(b, (const char *)start, (size_t)(u - start));
    }
}

static void sb_put_attr(slop__buf *b, const char *s) {
    for (const unsigned char *u = (const unsigned char *)s; *u; u++) {
        switch (*u) {
        case '&': slop__buf_puts(b, "&amp;"); break;
        case '<': slop__buf_puts(b, "&lt;"); break;
        case '>': slop__buf_puts(b, "&gt;"); break;
        case '"': slop__buf_puts(b, "&quot;"); break;
        case '\'': slop__buf_puts(b, "&#39;"); break;
        default:
            if (*u < 0x20 || *u == 0x7f) slop__buf_putc(b, ' ');
            else slop__buf_putc(b, (char)*u);
        }
    }
}

char *slop__state_tail(const slop__tail_section *sections, size_t n, const char *generated_at) {
    if (n == 0 || !sections) return NULL;
    slop__buf b = {0};
    slop__buf_puts(&b, "<slop-state generated_at=\"");
    sb_put_attr(&b, generated_at ? generated_at : "");
    slop__buf_puts(&b, "\" format=\"text/tree\">\n## SLOP Apps\n\n");
    for (size_t i = 0; i < n; i++) {
        const slop__tail_section *s = &sections[i];
        if (i) slop__buf_putc(&b, '\n');
        slop__buf_puts(&b, "### ");
        sb_put_neutral(&b, s->name ? s->name : "", 1);
        slop__buf_puts(&b, " (");
        sb_put_neutral(&b, s->id ? s->id : "", 1);
        slop__buf_puts(&b, ")\n\n");
        size_t body = b.len;
        if (s->tree_text) sb_put_neutral(&b, s->tree_text, 0);
        else slop__buf_puts(&b, "(awaiting snapshot)");
        /* drop trailing newlines of the body; exactly one before the next part */
        while (!b.oom && b.len > body && b.s[b.len - 1] == '\n') b.s[--b.len] = '\0';
        slop__buf_putc(&b, '\n');
    }
    slop__buf_puts(&b, "</slop-state>");
    return slop__buf_take(&b);
}

/* ---------------------------------------------------------------------- */
/* The same views straight from a mirror (mirror.h)                         */
/* ---------------------------------------------------------------------- */
/*
 * What the consumer hands out is read from its mirror without converting the
 * whole tree to cJSON: a walk over the nodes, each field parsed only when a
 * line or a tool needs it (and freed at once, so the mirror stays compact).
 * The text is the same, byte for byte, as the cJSON functions above give for
 * slop__node_to_json(root, -1); the receive fuzzer compares them.
 */

/* Field f of n as cJSON: the node's own parsed value, or *tmp parsed from its
 * text (the caller deletes *tmp). NULL when absent; *oom set when its text
 * could not be parsed (out of memory: the text is valid JSON). */
static const cJSON *view_field(const slop__node *n, int f, cJSON **tmp, int *oom) {
    *tmp = NULL;
    if (n->field[f]) return n->field[f];
    if (!n->raw[f]) return NULL;
    *tmp = slop__json_parse_exact(n->raw[f], n->raw_len[f]);
    if (!*tmp) *oom = 1;
    return *tmp;
}

/* ---- tree text, line by line, within an optional budget ---- */

typedef struct mwalk {
    slop__buf *out;         /* lines go here, joined with '\n'             */
    size_t start;           /* out->len where the body began               */
    slop__buf line;         /* one line, before it is put                  */
    int neutral;            /* neutralise provider text (the state tail)   */
    size_t cap;             /* 0: no budget; else out->len + 1 (the body's
                             * closing newline) never passes cap          */
    size_t reserve;         /* room kept for the cut line, '\n' included   */
    size_t mark_len;        /* the last point where the cut line fits      */
    size_t mark_shown;
    size_t shown;           /* node lines put                              */
    int cut;                /* a line did not fit: the walk stopped        */
    int oom;
} mwalk;

/* Puts the line in w->line. -1 stops the walk (no room, or out of memory). */
static int mwalk_emit(mwalk *w, int is_node) {
    slop__buf *o = w->out;
    if (w->line.oom) w->oom = 1;
    if (w->oom) return -1;
    size_t pre = o->len;
    if (o->len > w->start) slop__buf_putc(o, '\n');
    if (w->neutral) sb_put_neutral(o, w->line.s ? w->line.s : "", 0);
    else slop__buf_putn(o, w->line.s ? w->line.s : "", w->line.len);
    if (o->oom) {
        w->oom = 1;
        return -1;
    }
    if (w->cap && o->len + 1 > w->cap) {
        o->len = pre;
        o->s[pre] = '\0';
        w->cut = 1;
        return -1;
    }
    w->shown += (size_t)is_node;
    if (w->cap && o->len + 1 + w->reserve <= w->cap) {
        w->mark_len = o->len;
        w->mark_shown = w->shown;
    }
    return 0;
}

static void line_reset(slop__buf *l) {
    l->len = 0;
    if (l->s) l->s[0] = '\0';
}

/* n's line, its "(... not loaded)" line, then its children: tree_node()'s
 * lines, one at a time. 0, or -1 once the walk stopped. */
static int mwalk_node(mwalk *w, const slop__node *n, unsigned depth) {
    slop__buf *l = &w->line;
    line_reset(l);
    sb_indent(l, depth);
    if (depth >= AV_MAX_DEPTH) {
        slop__buf_puts(l, "(deeper levels omitted)");
        return mwalk_emit(w, 0);
    }
    cJSON *tmp[SLOP__FIELD_COUNT];
    const cJSON *v[SLOP__FIELD_COUNT];
    int oom = 0;
    for (int f = 0; f < SLOP__FIELD_COUNT; f++) v[f] = view_field(n, f, &tmp[f], &oom);
    long long total;
    int windowed;
    put_node_head(l, n->id, n->type, v[SLOP__FIELD_PROPERTIES], v[SLOP__FIELD_META], v[SLOP__FIELD_CONTENT_REF],
                  v[SLOP__FIELD_AFFORDANCES], &total, &windowed);
    for (int f = 0; f < SLOP__FIELD_COUNT; f++) cJSON_Delete(tmp[f]);
    if (oom) w->oom = 1;
    if (mwalk_emit(w, 1) != 0) return -1;
    char un[96];
    long long inline_n = (long long)slop__node_child_count(n);
    if (unloaded_text(un, total, windowed, inline_n)) {
        line_reset(l);
        sb_indent(l, depth + 1);
        slop__buf_puts(l, un);
        if (mwalk_emit(w, 0) != 0) return -1;
    }
    slop__kid_iter it;
    for (const slop__node *k = slop__kids_first(n, &it); k; k = slop__kids_next(&it))
        if (mwalk_node(w, k, depth + 1) != 0) return -1;
    return 0;
}

char *slop__mirror_tree_text(const slop__node *root) {
    slop__buf b = {0};
    mwalk w = {0};
    w.out = &b;
    if (root) mwalk_node(&w, root, 0);
    free(w.line.s);
    if (w.oom) {
        free(b.s);
        return NULL;
    }
    return slop__buf_take(&b);
}

/* ---- the state tail from mirrors ---- */

#define TAIL_MIN_BYTES 512u
#define TAIL_NAME_MAX 100u   /* bytes of a provider name or id in a heading (with a budget) */
#define TAIL_TS_MAX 64u      /* bytes of generated_at (with a budget) */

static void put_tail_open(slop__buf *b, const char *generated_at) {
    slop__buf_puts(b, "<slop-state generated_at=\"");
    sb_put_attr(b, generated_at);
    slop__buf_puts(b, "\" format=\"text/tree\">\n## SLOP Apps\n\n");
}

static const char TAIL_CLOSE[] = "</slop-state>";

/* s cut to at most max bytes on a character boundary, into out (max + 1). */
static const char *cut_copy(const char *s, size_t max, char *out) {
    size_t n = slop__utf8_cut(s, strlen(s), max);
    memcpy(out, s, n);
    out[n] = '\0';
    return out;
}

static void put_heading(slop__buf *b, const char *name, const char *id) {
    slop__buf_puts(b, "### ");
    sb_put_neutral(b, name ? name : "", 1);
    slop__buf_puts(b, " (");
    sb_put_neutral(b, id ? id : "", 1);
    slop__buf_puts(b, ")\n\n");
}

static size_t cut_line(char *out, size_t cap, size_t left, size_t of) {
    int k = snprintf(out, cap, "(%zu of %zu nodes not shown: the state budget is used up)", left, of);
    return k > 0 ? (size_t)k : 0;
}

/* One section within `limit` bytes (0: none) into b, from its heading to the
 * body's closing newline. *left: the nodes it leaves out. 0 when it had no
 * room at all (b unchanged), 1 when put, -1 when out of memory. */
static int tail_section(slop__buf *b, const slop__tail_source *src, size_t limit, size_t *left) {
    *left = 0;
    if (!limit) { /* no budget: the whole text, as slop__state_tail() lays it out */
        put_heading(b, src->name, src->id);
        size_t body = b->len;
        if (src->root) {
            mwalk w = {0};
            w.out = b;
            w.start = b->len;
            w.neutral = 1;
            mwalk_node(&w, src->root, 0);
            free(w.line.s);
            if (w.oom) return -1;
        } else {
            slop__buf_puts(b, "(awaiting snapshot)");
        }
        while (!b->oom && b->len > body && b->s[b->len - 1] == '\n') b->s[--b->len] = '\0';
        slop__buf_putc(b, '\n');
        return b->oom ? -1 : 1;
    }
    char name[TAIL_NAME_MAX + 1], id[TAIL_NAME_MAX + 1];
    size_t begin = b->len;
    put_heading(b, cut_copy(src->name ? src->name : "", TAIL_NAME_MAX, name),
                cut_copy(src->id ? src->id : "", TAIL_NAME_MAX, id));
    if (b->oom) return -1;
    size_t cap = begin + limit;
    if (!src->root) {
        static const char awaiting[] = "(awaiting snapshot)\n";
        if (b->len + strlen(awaiting) > cap) goto no_room;
        slop__buf_puts(b, awaiting);
        return b->oom ? -1 : 1;
    }
    char cl[128];
    size_t reserve = 1 + cut_line(cl, sizeof cl, src->nodes, src->nodes);
    if (b->len + reserve + 1 > cap) {
        *left = src->nodes;
        goto no_room;
    }
    mwalk w = {0};
    w.out = b;
    w.start = w.mark_len = b->len;
    w.neutral = 1;
    w.cap = cap;
    w.reserve = reserve;
    mwalk_node(&w, src->root, 0);
    free(w.line.s);
    if (w.oom) return -1;
    if (w.cut) {
        b->len = w.mark_len;
        b->s[b->len] = '\0';
        *left = src->nodes > w.mark_shown ? src->nodes - w.mark_shown : 0;
        if (b->len > w.start) slop__buf_putc(b, '\n');
        slop__buf_putn(b, cl, cut_line(cl, sizeof cl, *left, src->nodes));
    }
    slop__buf_putc(b, '\n');
    return b->oom ? -1 : 1;
no_room:
    b->len = begin;
    if (b->s) b->s[begin] = '\0';
    return 0;
}

char *slop__state_tail_mirror(const slop__tail_source *src, size_t n, const char *generated_at, size_t max_bytes,
                              size_t *out_left) {
    if (out_left) *out_left = 0;
    if (n == 0 || !src) return NULL;
    slop__buf b = {0};
    size_t left_all = 0;
    if (!max_bytes) {
        put_tail_open(&b, generated_at ? generated_at : "");
        for (size_t i = 0; i < n; i++) {
            size_t left;
            if (i) slop__buf_putc(&b, '\n');
            if (tail_section(&b, &src[i], 0, &left) < 0) b.oom = 1;
        }
        slop__buf_puts(&b, TAIL_CLOSE);
        return slop__buf_take(&b);
    }
    if (max_bytes < TAIL_MIN_BYTES) max_bytes = TAIL_MIN_BYTES;
    if (max_bytes > SIZE_MAX / 4) max_bytes = SIZE_MAX / 4; /* no sum below can wrap */
    char ts[TAIL_TS_MAX + 1];
    put_tail_open(&b, cut_copy(generated_at ? generated_at : "", TAIL_TS_MAX, ts));
    size_t fixed = b.len + strlen(TAIL_CLOSE);
    /* Each section is charged one byte for the blank line before it; the
     * first one printed has none: one byte more in the pool. */
    size_t avail = max_bytes > fixed ? max_bytes - fixed + 1 : 0;
    /* Sections take their share smallest first (by nodes, then in order),
     * each at most what is left over the sections still to come, so the room
     * a small one leaves goes to the larger ones; they print in order. */
    size_t *order = malloc(n * sizeof *order);
    slop__buf *part = calloc(n, sizeof *part);
    int *put = calloc(n, sizeof *put);
    if (!order || !part || !put) b.oom = 1;
    for (size_t i = 0; i < n && !b.oom; i++) {
        size_t j = i;
        while (j > 0 && src[order[j - 1]].nodes > src[i].nodes) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (size_t k = 0; k < n && !b.oom; k++) {
        size_t i = order[k], share = avail / (n - k), left;
        /* one byte of each share for the blank line before it */
        int rc = share > 1 ? tail_section(&part[i], &src[i], share - 1, &left) : 0;
        if (rc == 0) left = src[i].root ? src[i].nodes : 0;
        if (rc < 0) b.oom = 1;
        put[i] = rc > 0;
        left_all += left;
        if (rc > 0) avail -= part[i].len + 1;
    }
    int first = 1;
    for (size_t i = 0; i < n && !b.oom; i++) {
        if (!put[i]) continue;
        if (!first) slop__buf_putc(&b, '\n');
        slop__buf_putn(&b, part[i].s, part[i].len);
        first = 0;
    }
    slop__buf_puts(&b, TAIL_CLOSE);
    if (part)
        for (size_t i = 0; i < n; i++) free(part[i].s);
    free(part);
    free(order);
    free(put);
    if (out_left && !b.oom) *out_left = left_all;
    return slop__buf_take(&b);
}

/* ---- tools from a mirror, within an optional count ---- */

/* A reader of JSON text the scanner already accepted (a field's raw text):
 * it only skips, never validates, and never reads past `end`. */
typedef struct rawj {
    const char *p, *end;
} rawj;

static void rj_ws(rawj *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) r->p++;
}

/* At '"': past the string; *escaped when it holds a backslash. -1 at the end. */
static int rj_string(rawj *r, int *escaped) {
    r->p++;
    while (r->p < r->end) {
        char c = *r->p;
        if (c == '\\') {
            *escaped = 1;
            r->p += 2;
        } else if (c == '"') {
            r->p++;
            return 0;
        } else {
            r->p++;
        }
    }
    return -1;
}

static int rj_skip(rawj *r) {
    int esc = 0;
    if (r->p >= r->end) return -1;
    if (*r->p == '"') return rj_string(r, &esc);
    if (*r->p == '{' || *r->p == '[') {
        size_t depth = 0;
        while (r->p < r->end) {
            char c = *r->p;
            if (c == '"') {
                if (rj_string(r, &esc) != 0) return -1;
                continue;
            }
            if (c == '{' || c == '[') depth++;
            else if (c == '}' || c == ']') {
                if (--depth == 0) {
                    r->p++;
                    return 0;
                }
            }
            r->p++;
        }
        return -1;
    }
    while (r->p < r->end && *r->p != ',' && *r->p != '}' && *r->p != ']' && *r->p != ' ' && *r->p != '\t' &&
           *r->p != '\n' && *r->p != '\r')
        r->p++;
    return 0;
}

/* The actions of an affordances array as collect() counts them (elements
 * that are objects with a string "action"), read from its text; -1 when the
 * text has an escaped member name in an element (then cJSON decides). */
static long raw_count_actions(const char *text, size_t len) {
    rawj r = {text, text + len};
    long count = 0;
    rj_ws(&r);
    if (r.p >= r.end || *r.p != '[') return -1;
    r.p++;
    rj_ws(&r);
    if (r.p < r.end && *r.p == ']') return 0;
    for (;;) {
        rj_ws(&r);
        if (r.p >= r.end) return -1;
        if (*r.p == '{') {
            int has = 0;
            r.p++;
            rj_ws(&r);
            if (r.p < r.end && *r.p == '}') r.p++;
            else
                for (;;) {
                    rj_ws(&r);
                    if (r.p >= r.end || *r.p != '"') return -1;
                    const char *key = r.p + 1;
                    int esc = 0;
                    if (rj_string(&r, &esc) != 0 || esc) return -1;
                    size_t kl = (size_t)(r.p - 1 - key);
                    rj_ws(&r);
                    if (r.p >= r.end || *r.p != ':') return -1;
                    r.p++;
                    rj_ws(&r);
                    if (kl == 6 && memcmp(key, "action", 6) == 0 && r.p < r.end && *r.p == '"') has = 1;
                    if (rj_skip(&r) != 0) return -1;
                    rj_ws(&r);
                    if (r.p < r.end && *r.p == ',') {
                        r.p++;
                        continue;
                    }
                    if (r.p < r.end && *r.p == '}') {
                        r.p++;
                        break;
                    }
                    return -1;
                }
            count += has;
        } else if (rj_skip(&r) != 0) {
            return -1;
        }
        rj_ws(&r);
        if (r.p < r.end && *r.p == ',') {
            r.p++;
            continue;
        }
        if (r.p < r.end && *r.p == ']') return count;
        return -1;
    }
}

static long json_count_actions(const cJSON *affs) {
    long count = 0;
    const cJSON *a;
    if (cJSON_IsArray(affs)) cJSON_ArrayForEach(a, affs) if (cJSON_IsObject(a) && str_member(a, "action")) count++;
    return count;
}

/* Fills n's view cache (mirror.h): its actions and its salience. -1 when out
 * of memory. */
static int view_cache(slop__node *n) {
    if (n->view_actions) return 0;
    const int fa = SLOP__FIELD_AFFORDANCES, fm = SLOP__FIELD_META;
    long count = 0;
    if (n->field[fa]) count = json_count_actions(n->field[fa]);
    else if (n->raw[fa] && (count = raw_count_actions(n->raw[fa], n->raw_len[fa])) < 0) {
        cJSON *t = slop__json_parse_exact(n->raw[fa], n->raw_len[fa]);
        if (!t) return -1;
        count = json_count_actions(t);
        cJSON_Delete(t);
    }
    double sal = 0.5;
    cJSON *tmp = NULL;
    const cJSON *meta = n->field[fm];
    /* Raw meta is parsed only when it may name salience (escaped or not). */
    if (!meta && n->raw[fm]) {
        const char *r = n->raw[fm];
        size_t len = n->raw_len[fm];
        int may = memchr(r, '\\', len) != NULL;
        for (size_t i = 0; !may && i + 10 <= len; i++) may = memcmp(r + i, "\"salience\"", 10) == 0;
        if (may && !(meta = tmp = slop__json_parse_exact(r, len))) return -1;
    }
    const cJSON *sv = cJSON_IsObject(meta) ? cJSON_GetObjectItemCaseSensitive(meta, "salience") : NULL;
    if (cJSON_IsNumber(sv)) sal = sv->valuedouble;
    cJSON_Delete(tmp);
    n->view_actions = (uint32_t)count + 1;
    n->view_salience = sal;
    return 0;
}

typedef struct cand {
    slop__node *node;
    uint32_t nact;      /* its actions                                  */
    uint32_t take;      /* of them offered (the first ones)              */
    double sal;
} cand;

typedef struct cand_list {
    cand *v;
    size_t n, cap;
    size_t total;
    int oom;
} cand_list;

/* Pre-order: the nodes with actions, as collect() walks them. */
static void gather(cand_list *cl, slop__node *n, unsigned depth) {
    if (cl->oom || depth >= AV_MAX_DEPTH) return;
    if (view_cache(n) != 0) { cl->oom = 1; return; }
    if (n->view_actions > 1) {
        if (SLOP__RESERVE(cl->v, cl->n, cl->cap, 64) != 0) { cl->oom = 1; return; }
        cand *c = &cl->v[cl->n++];
        c->node = n;
        c->nact = n->view_actions - 1;
        c->take = c->nact;
        c->sal = n->view_salience;
        cl->total += c->nact;
    }
    slop__kid_iter it;
    for (slop__node *k = slop__kids_first(n, &it); k; k = slop__kids_next(&it)) gather(cl, k, depth + 1);
}

/* Candidate a ranks below b: less salient, or as salient and later. */
static int ranks_below(const cand *v, size_t a, size_t b) {
    return v[a].sal < v[b].sal || (v[a].sal == v[b].sal && a > b);
}

static void heap_down(const cand *v, size_t *h, size_t n, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, w = i;
        if (l < n && ranks_below(v, h[l], h[w])) w = l;
        if (r < n && ranks_below(v, h[r], h[w])) w = r;
        if (w == i) return;
        size_t t = h[i]; h[i] = h[w]; h[w] = t;
        i = w;
    }
}

static void heap_up(const cand *v, size_t *h, size_t i) {
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!ranks_below(v, h[i], h[p])) return;
        size_t t = h[i]; h[i] = h[p]; h[p] = t;
        i = p;
    }
}

static int size_cmp(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Keeps the candidates holding the max_tools most salient actions (ties:
 * tree order), in tree order; the least of them may give only its first
 * actions. A heap of the kept ones, the least on top. */
static int select_top(cand_list *cl, size_t max_tools) {
    size_t *h = malloc(cl->n * sizeof *h);
    if (!h) return -1;
    size_t hn = 0, sum = 0;
    for (size_t i = 0; i < cl->n; i++) {
        h[hn] = i;
        heap_up(cl->v, h, hn++);
        sum += cl->v[i].nact;
        while (hn > 1 && sum - cl->v[h[0]].nact >= max_tools) {
            sum -= cl->v[h[0]].nact;
            h[0] = h[--hn];
            heap_down(cl->v, h, hn, 0);
        }
    }
    if (hn && sum > max_tools) cl->v[h[0]].take = (uint32_t)(cl->v[h[0]].nact - (sum - max_tools));
    qsort(h, hn, sizeof *h, size_cmp);
    for (size_t k = 0; k < hn; k++) cl->v[k] = cl->v[h[k]]; /* h[k] >= k: nothing read is overwritten */
    cl->n = hn;
    free(h);
    return 0;
}

/* Mirror node -> index in av_ctx.nodes. */
typedef struct ptrmap {
    const slop__node **key;
    size_t *val;
    size_t cap, len;
} ptrmap;

static size_t pm_slot(const ptrmap *m, const slop__node *k) {
    uintptr_t x = (uintptr_t)k;
    size_t i = (size_t)((x >> 3) * 2654435761u) & (m->cap - 1);
    while (m->key[i] && m->key[i] != k) i = (i + 1) & (m->cap - 1);
    return i;
}

static int pm_put(ptrmap *m, const slop__node *k, size_t v) {
    if ((m->len + 1) * 2 > m->cap) {
        ptrmap g = {0};
        g.cap = m->cap ? m->cap * 2 : 64;
        g.key = calloc(g.cap, sizeof *g.key);
        g.val = malloc(g.cap * sizeof *g.val);
        if (!g.key || !g.val) { free(g.key); free(g.val); return -1; }
        for (size_t i = 0; i < m->cap; i++)
            if (m->key[i]) {
                size_t s = pm_slot(&g, m->key[i]);
                g.key[s] = m->key[i];
                g.val[s] = m->val[i];
            }
        g.len = m->len;
        free(m->key);
        free(m->val);
        *m = g;
    }
    size_t s = pm_slot(m, k);
    if (!m->key[s]) m->len++;
    m->key[s] = k;
    m->val[s] = v;
    return 0;
}

static size_t pm_get(const ptrmap *m, const slop__node *k) {
    if (!m->cap) return SIZE_MAX;
    size_t s = pm_slot(m, k);
    return m->key[s] ? m->val[s] : SIZE_MAX;
}

/* n's entry in cx->nodes, made with its ancestors' when new (their ids and
 * paths as collect() makes them). SIZE_MAX when out of memory. */
static size_t av_node_of(av_ctx *cx, ptrmap *pm, const slop__node *n, const char *root_path) {
    size_t got = pm_get(pm, n);
    if (got != SIZE_MAX) return got;
    size_t parent = SIZE_MAX;
    if (n->parent && (parent = av_node_of(cx, pm, n->parent, root_path)) == SIZE_MAX) return SIZE_MAX;
    if (SLOP__RESERVE(cx->nodes, cx->nn, cx->ncap, 32) != 0) { cx->oom = 1; return SIZE_MAX; }
    size_t me = cx->nn;
    av_node *nd = &cx->nodes[me];
    nd->sid = sanitize(n->id);
    nd->path = parent == SIZE_MAX ? slop__strdup(root_path) : slop__path_child(cx->nodes[parent].path, n->id);
    nd->parent = parent;
    nd->depth = parent == SIZE_MAX ? 0 : cx->nodes[parent].depth + 1;
    cx->nn++;
    if (!nd->sid || !nd->path || pm_put(pm, n, me) != 0) { cx->oom = 1; return SIZE_MAX; }
    return me;
}

/* tool_params(aff), printed without copying it. */
static void put_tool_params(slop__buf *b, const cJSON *aff) {
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(aff, "params");
    if (!cJSON_IsObject(params)) {
        slop__buf_puts(b, "{\"type\":\"object\",\"properties\":{}}");
        return;
    }
    if (cJSON_GetObjectItemCaseSensitive(params, "type") || !cJSON_GetObjectItemCaseSensitive(params, "properties")) {
        slop__buf_put_json(b, params);
        return;
    }
    slop__buf_puts(b, "{\"type\":\"object\"");
    for (const cJSON *it = params->child; it; it = it->next) {
        slop__buf_putc(b, ',');
        slop__buf_put_string(b, it->string);
        slop__buf_putc(b, ':');
        slop__buf_put_json(b, it);
    }
    slop__buf_putc(b, '}');
}

void slop__tool_refs_free(slop__tool_refs *r) {
    free(r->text);
    free(r->at);
    memset(r, 0, sizeof *r);
}

int slop__tool_refs_find(const slop__tool_refs *r, const char *name, const char **path, const char **action) {
    for (size_t i = 0; i < r->n; i++) {
        const char *s = r->text + r->at[i];
        if (strcmp(s, name) != 0) continue;
        *path = s + strlen(s) + 1;
        *action = *path + strlen(*path) + 1;
        return 1;
    }
    return 0;
}

int slop__mirror_tools(slop__node *root, const char *root_path, const char *prefix, unsigned max_len,
                       size_t max_tools, slop__buf *json, slop__tool_refs *refs, size_t *total) {
    av_ctx cx = {0};
    cand_list cl = {0};
    ptrmap pm = {0};
    cJSON **parsed = NULL; /* affordances parsed for this call */
    size_t nparsed = 0;
    char *sprefix = NULL;
    slop__buf text = {0}; /* refs: name\0path\0action\0 per tool */
    size_t *at = NULL;
    int rc = -1;
    memset(refs, 0, sizeof *refs);
    *total = 0;
    if (max_len == 0) max_len = SLOP_TOOL_NAME_MAX_DEFAULT;
    if (max_len < AV_MIN_TOOL_LEN) max_len = AV_MIN_TOOL_LEN;
    if (!root_path || !*root_path) root_path = "/";
    if (prefix && *prefix && !(sprefix = sanitize(prefix))) goto out;

    if (root) gather(&cl, root, 0);
    if (cl.oom) goto out;
    *total = cl.total;
    if (max_tools && cl.total > max_tools && select_top(&cl, max_tools) != 0) goto out;

    if (cl.n && !(parsed = calloc(cl.n, sizeof *parsed))) goto out;
    for (size_t i = 0; i < cl.n; i++) {
        slop__node *n = cl.v[i].node;
        size_t me = av_node_of(&cx, &pm, n, root_path);
        if (me == SIZE_MAX) goto out;
        const cJSON *affs = n->field[SLOP__FIELD_AFFORDANCES];
        if (!affs) {
            affs = parsed[nparsed++] = slop__json_parse_exact(n->raw[SLOP__FIELD_AFFORDANCES],
                                                             n->raw_len[SLOP__FIELD_AFFORDANCES]);
            if (!affs) goto out;
        }
        uint32_t taken = 0;
        const cJSON *a;
        cJSON_ArrayForEach(a, affs) {
            if (taken == cl.v[i].take) break;
            const char *action = cJSON_IsObject(a) ? str_member(a, "action") : NULL;
            if (!action) continue;
            if (SLOP__RESERVE(cx.ents, cx.ne, cx.ecap, 32) != 0) goto out;
            av_entry *e = &cx.ents[cx.ne++];
            memset(e, 0, sizeof *e);
            e->node = me;
            e->aff = a;
            if (!(e->saction = sanitize(action))) goto out;
            taken++;
        }
    }
    if (!disambiguate(&cx) || !finalize_all(&cx, sprefix, max_len)) goto out;

    if (cx.ne && !(at = malloc(cx.ne * sizeof *at))) goto out;
    if (json) slop__buf_puts(json, "{\"tools\":[");
    for (size_t i = 0; i < cx.ne; i++) {
        const av_entry *e = &cx.ents[i];
        const char *path = cx.nodes[e->node].path;
        at[i] = text.len;
        slop__buf_putn(&text, e->final, strlen(e->final) + 1);
        slop__buf_putn(&text, path, strlen(path) + 1);
        const char *action = str_member(e->aff, "action");
        slop__buf_putn(&text, action, strlen(action) + 1);
        if (!json) continue;
        if (i) slop__buf_putc(json, ',');
        slop__buf_puts(json, "{\"name\":");
        slop__buf_put_string(json, e->final);
        char *desc = tool_description(e->aff, path);
        if (!desc) goto out;
        slop__buf_puts(json, ",\"description\":");
        slop__buf_put_string(json, desc);
        free(desc);
        slop__buf_puts(json, ",\"parameters\":");
        put_tool_params(json, e->aff);
        slop__buf_puts(json, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e->aff, "dangerous")) ? ",\"dangerous\":true}"
                                                                                             : ",\"dangerous\":false}");
    }
    if (text.oom) goto out;
    if (json) {
        slop__buf_puts(json, "],\"resolve\":{");
        for (size_t i = 0; i < cx.ne; i++) {
            const char *name = text.s + at[i], *path = name + strlen(name) + 1, *action = path + strlen(path) + 1;
            if (i) slop__buf_putc(json, ',');
            slop__buf_put_string(json, name);
            slop__buf_puts(json, ":{\"path\":");
            slop__buf_put_string(json, path);
            slop__buf_puts(json, ",\"action\":");
            slop__buf_put_string(json, action);
            slop__buf_putc(json, '}');
        }
        slop__buf_puts(json, "},\"total\":");
        slop__buf_put_number(json, (double)cl.total);
        slop__buf_putc(json, '}');
        if (json->oom) goto out;
    }
    refs->text = text.s;
    refs->at = at;
    refs->n = cx.ne;
    text.s = NULL;
    at = NULL;
    rc = 0;
out:
    for (size_t i = 0; i < nparsed; i++) cJSON_Delete(parsed[i]);
    free(parsed);
    free(cl.v);
    free(pm.key);
    free(pm.val);
    free(sprefix);
    free(text.s);
    free(at);
    ctx_free(&cx);
    return rc;
}
