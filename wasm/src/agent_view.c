/*
 * agent_view.c: the LLM-facing text views of a mirrored SLOP tree, read
 * straight from the mirror (what the consumer hands out) without converting
 * the tree to cJSON, with the agent's budgets:
 *
 *   slop__mirror_tree_text   canonical text, one line per node (the reference
 *                            consumers' format), line by line
 *   slop__state_tail_mirror  the <slop-state> block for several providers
 *                            (item 55), within max_bytes, a fair share each
 *
 * The LLM tools (item 54) are agent_tools.c's.
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
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mirror.h"


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

const char *slop__str_member(const cJSON *obj, const char *key) {
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
        const char *action = cJSON_IsObject(a) ? slop__str_member(a, "action") : NULL;
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
    const char *mime = slop__str_member(cr, "mime");
    const char *type = slop__str_member(cr, "type");
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(cr, "size");
    const char *summary = slop__str_member(cr, "summary");
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
    const char *summary = slop__str_member(meta, "summary");
    if (summary) {
        slop__buf_puts(b, "  \xe2\x80\x94 ");
        sb_put_quoted(b, summary);
    }
    const cJSON *sal = cJSON_GetObjectItemCaseSensitive(meta, "salience");
    if (cJSON_IsNumber(sal) && isfinite(sal->valuedouble)) {
        slop__buf_puts(b, "  salience=");
        put_salience(b, sal->valuedouble);
    }
    const char *urgency = slop__str_member(meta, "urgency");
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

/* ---------------------------------------------------------------------- */
/* The same views straight from a mirror (mirror.h)                         */
/* ---------------------------------------------------------------------- */
/*
 * What the consumer hands out is read from its mirror without converting the
 * whole tree to cJSON: a walk over the nodes, each field parsed only when a
 * line or a tool needs it (and freed at once, so the mirror stays compact).
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
    int depth_cut;          /* levels below the root shown + 1; 0: all     */
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

/* Appends n's line at depth to l, and writes the text of its "(... not
 * loaded)" line into un (un[0] = 0: none). Returns 1 when the depth is too
 * great for a node line (l gets "(deeper levels omitted)" instead), else 0;
 * *oom set when a field could not be read. */
static int node_line(slop__buf *l, const slop__node *n, unsigned depth, char un[96], int *oom) {
    un[0] = '\0';
    sb_indent(l, depth);
    if (depth >= SLOP__VIEW_MAX_DEPTH) {
        slop__buf_puts(l, "(deeper levels omitted)");
        return 1;
    }
    cJSON *tmp[SLOP__FIELD_COUNT];
    const cJSON *v[SLOP__FIELD_COUNT];
    for (int f = 0; f < SLOP__FIELD_COUNT; f++) v[f] = view_field(n, f, &tmp[f], oom);
    long long total;
    int windowed;
    put_node_head(l, n->id, n->type, v[SLOP__FIELD_PROPERTIES], v[SLOP__FIELD_META], v[SLOP__FIELD_CONTENT_REF],
                  v[SLOP__FIELD_AFFORDANCES], &total, &windowed);
    for (int f = 0; f < SLOP__FIELD_COUNT; f++) cJSON_Delete(tmp[f]);
    if (!unloaded_text(un, total, windowed, (long long)slop__node_child_count(n))) un[0] = '\0';
    return 0;
}

void slop__node_view_text(slop__buf *b, const slop__node *n, unsigned depth) {
    char un[96];
    int oom = 0;
    if (node_line(b, n, depth, un, &oom) == 0 && un[0]) {
        slop__buf_putc(b, '\n');
        sb_indent(b, depth + 1);
        slop__buf_puts(b, un);
    }
    if (oom) b->oom = 1;
}

/* n's line, its "(... not loaded)" line, then its children, one line at a
 * time. 0, or -1 once the walk stopped. */
static int mwalk_node(mwalk *w, const slop__node *n, unsigned depth) {
    slop__buf *l = &w->line;
    line_reset(l);
    char un[96];
    int oom = 0;
    int too_deep = node_line(l, n, depth, un, &oom);
    if (oom) w->oom = 1;
    if (too_deep) return mwalk_emit(w, 0);
    if (mwalk_emit(w, 1) != 0) return -1;
    long long inline_n = (long long)slop__node_child_count(n);
    if (un[0]) {
        line_reset(l);
        sb_indent(l, depth + 1);
        slop__buf_puts(l, un);
        if (mwalk_emit(w, 0) != 0) return -1;
    }
    if (w->depth_cut && depth + 1 >= (unsigned)w->depth_cut && inline_n > 0) {
        /* Cut by the caller's depth: said as the unloaded children are, so a
         * reader never takes the cut for a leaf. */
        line_reset(l);
        sb_indent(l, depth + 1);
        snprintf(un, sizeof un, "(%lld %s below depth %d)", inline_n, inline_n == 1 ? "child" : "children", w->depth_cut - 1);
        slop__buf_puts(l, un);
        return mwalk_emit(w, 0);
    }
    slop__kid_iter it;
    for (const slop__node *k = slop__kids_first(n, &it); k; k = slop__kids_next(&it))
        if (mwalk_node(w, k, depth + 1) != 0) return -1;
    return 0;
}

char *slop__mirror_tree_text(const slop__node *root, int max_depth) {
    slop__buf b = {0};
    mwalk w = {0};
    w.depth_cut = max_depth < 0 || max_depth >= INT_MAX ? 0 : max_depth + 1;
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
    if (!limit) { /* no budget: the whole text, laid out as "State tail" above says */
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

