/*
 * agent_tools.c: the affordances of a mirrored SLOP tree as LLM function
 * tools with a resolve map (item 54), read straight from the mirror:
 *
 *   slop__mirror_tools      the tools, or only the max_tools most salient
 *   slop__tool_refs_find    a name offered back to its path and action
 *
 * Names are made from provider ids and actions, which are untrusted text:
 * only [A-Za-z0-9_] is kept, and every name is cut to a maximum length.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mirror.h"

#define AV_MIN_TOOL_LEN 16u

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

static char *tool_description(const cJSON *aff, const char *path) {
    slop__buf b = {0};
    const char *label = slop__str_member(aff, "label");
    const char *desc = slop__str_member(aff, "description");
    slop__buf_puts(&b, label ? label : slop__str_member(aff, "action"));
    if (desc) { slop__buf_puts(&b, ": "); slop__buf_puts(&b, desc); }
    slop__buf_puts(&b, " (on ");
    slop__buf_puts(&b, path);
    slop__buf_putc(&b, ')');
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(aff, "dangerous")))
        slop__buf_puts(&b, " [DANGEROUS - confirm first]");
    return slop__buf_take(&b);
}

/* ---------------------------------------------------------------------- */
/* Tools from a mirror, within an optional count                           */
/* ---------------------------------------------------------------------- */

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

/* The actions of an affordances array as the tools count them (elements
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
    if (cJSON_IsArray(affs)) cJSON_ArrayForEach(a, affs) if (cJSON_IsObject(a) && slop__str_member(a, "action")) count++;
    return count;
}

/* Fills n's view cache (mirror.h): its actions and its salience. -1 when out
 * of memory. */
int slop__node_view_cache(slop__node *n) {
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
    n->view_has_salience = cJSON_IsNumber(sv);
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

/* Pre-order: the nodes with actions, down to SLOP__VIEW_MAX_DEPTH. */
static void gather(cand_list *cl, slop__node *n, unsigned depth) {
    if (cl->oom || depth >= SLOP__VIEW_MAX_DEPTH) return;
    if (slop__node_view_cache(n) != 0) { cl->oom = 1; return; }
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

/* n's entry in cx->nodes, made with its ancestors' when new (sanitized id,
 * absolute path under root_path). SIZE_MAX when out of memory. */
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

/* The tool's "parameters" (see "Tools" above), printed from aff without
 * copying it. */
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
            const char *action = cJSON_IsObject(a) ? slop__str_member(a, "action") : NULL;
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
        const char *action = slop__str_member(e->aff, "action");
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

