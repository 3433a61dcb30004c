/*
 * agent_view.c: the LLM-facing views of a mirrored SLOP tree.
 *
 *   slop__tree_text   canonical text, one line per node (the reference consumers' format)
 *   slop__tools       affordances as LLM function tools + resolve map (item 54)
 *   slop__state_tail  the <slop-state> block for several providers (item 55)
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

/* The line one level deeper that says what is not inline: "(N children not
 * loaded)" or "(showing N of M)". */
static void put_unloaded(slop__buf *b, unsigned depth, long long total, int windowed, long long inline_n) {
    char tmp[96];
    if (total > 0 && inline_n == 0)
        snprintf(tmp, sizeof tmp, "(%lld %s not loaded)", total, total == 1 ? "child" : "children");
    else if (windowed && total > inline_n)
        snprintf(tmp, sizeof tmp, "(showing %lld of %lld)", inline_n, total);
    else
        return;
    slop__buf_putc(b, '\n');
    sb_indent(b, depth + 1);
    slop__buf_puts(b, tmp);
}

static void tree_node(slop__buf *b, const cJSON *node, unsigned depth) {
    if (b->oom) return;
    sb_indent(b, depth);
    if (depth >= AV_MAX_DEPTH) { slop__buf_puts(b, "(deeper levels omitted)"); return; }

    const char *id = str_member(node, "id");
    const char *type = str_member(node, "type");
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(node, "properties");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(node, "meta");
    slop__buf_putc(b, '[');
    sb_put_line_safe(b, type ? type : "?");
    slop__buf_puts(b, "] ");
    sb_put_line_safe(b, id ? id : "?");
    if (cJSON_IsObject(props)) put_properties(b, props, id);
    long long total = -1;
    int windowed = 0;
    if (cJSON_IsObject(meta)) put_meta(b, meta, &total, &windowed);
    put_content_ref(b, cJSON_GetObjectItemCaseSensitive(node, "content_ref"));
    put_affordances(b, cJSON_GetObjectItemCaseSensitive(node, "affordances"));

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
