/*
 * conformance.c: the rules a provider must or should follow, the findings
 * when it does not, and the report (see conformance.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "internal.h"

typedef enum { FRAME_RULE, TREE_RULE } rule_kind;

typedef struct rule {
    const char *id;
    const char *severity;       /* "MUST" or "SHOULD" */
    const char *spec;           /* where in the spec */
    const char *text;           /* one line for the provider's author */
    rule_kind kind;
} rule;

/* Stable ids: tests, exports and users' allow lists name them. Each level is
 * the spec's own word for the rule, or for a rule the spec states without
 * one, the level docs/conformance-rules.md justifies (its guard test,
 * tests/node/conformance-rules.test.js, fails when the two disagree). */
static const rule rules[] = {
    {"json", "MUST", "transport", "Every frame is one JSON value: a SLOP message object.", FRAME_RULE},
    {"message-shape", "MUST", "messages",
     "A message is an object with a string \"type\" and the members its type requires, of the right JSON "
     "types (ids strings; version and seq integers).",
     FRAME_RULE},
    {"message-type", "SHOULD", "messages",
     "A provider sends only the provider message types: hello, snapshot, patch, result, error, event, batch.",
     FRAME_RULE},
    {"hello-fields", "MUST", "messages: hello",
     "hello carries provider.id, provider.name, provider.slop_version (strings) and provider.capabilities "
     "(an array of strings).",
     FRAME_RULE},
    {"hello-in-time", "MUST", "messages: hello",
     "A provider says hello when the connection opens, within the request timeout.", FRAME_RULE},
    {"hello-state", "MUST", "capabilities", "A provider declares the \"state\" capability.", FRAME_RULE},
    {"slop-version", "SHOULD", "messages: hello",
     "provider.slop_version names a version of the spec this inspector knows (0.1).", FRAME_RULE},
    {"capability-patches", "MUST", "capabilities",
     "Patches come only from a provider that declares \"patches\".", FRAME_RULE},
    {"capability-async", "SHOULD", "capabilities: async",
     "An \"accepted\" result comes only from a provider that declares \"async\".", FRAME_RULE},
    {"capability-windowing", "MUST", "capabilities: windowing",
     "Windowed collections (meta.window) come only from a provider that declares \"windowing\".", TREE_RULE},
    {"capability-content-refs", "MUST", "capabilities: content_refs",
     "A content_ref appears only when the provider declares \"content_refs\".", TREE_RULE},
    {"capability-affordances", "MUST", "capabilities",
     "Nodes carry affordances only when the provider declares \"affordances\".", TREE_RULE},
    {"capability-attention", "MUST", "capabilities: attention",
     "Attention hints (meta.salience, urgency, pinned, focus, changed) come only from a provider that declares "
     "\"attention\".",
     TREE_RULE},
    {"snapshot-first", "MUST", "messages: ordering", "A subscription's snapshot comes before its patches.",
     FRAME_RULE},
    {"snapshot-in-time", "MUST", "messages: subscribe",
     "Every subscribe is answered by its snapshot (or an error) within the request timeout.", FRAME_RULE},
    {"snapshot-id", "MUST", "messages: snapshot",
     "A snapshot carries the id of the subscribe or query it answers.", FRAME_RULE},
    {"seq-snapshot", "MUST", "messages: seq", "A subscription's snapshot carries seq 0.", FRAME_RULE},
    {"seq-present", "MUST", "messages: seq",
     "A subscription's snapshot and patches carry seq (0 on the snapshot, then 1, 2, 3...): the spec says "
     "snapshot and patch MUST carry both version and seq; without it a missed patch cannot be told from a late one.",
     FRAME_RULE},
    {"seq-order", "MUST", "messages: seq", "Each patch of a subscription carries the previous seq + 1.",
     FRAME_RULE},
    {"version-order", "MUST", "messages: version",
     "version is global to the provider and never goes down within a connection.", FRAME_RULE},
    {"patch-newer", "MUST", "messages: version",
     "A patch's version is newer than the version of its subscription's snapshot.", FRAME_RULE},
    {"query-seq", "SHOULD", "messages: query", "The answer to a query (a snapshot with the query's id) carries no seq.",
     FRAME_RULE},
    {"tree-shape", "MUST", "state tree",
     "Every node has a string id (non-empty, no '/' or '~', not a reserved keyword, unique among its "
     "siblings) and a string type; properties, meta and content_ref are objects, affordances an array, "
     "children an array.",
     FRAME_RULE},
    {"patch-apply", "MUST", "messages: patch",
     "Every op of a patch applies: its target exists, its value is a valid node or field, and the ops leave "
     "a valid tree.",
     FRAME_RULE},
    {"node-type", "SHOULD", "state tree: type",
     "type is a core type (root, view, collection, item, document, form, field, control, status, "
     "notification, media, group, context) or a namespaced custom type (\"app:name\").",
     TREE_RULE},
    {"meta-salience", "SHOULD", "attention", "meta.salience is a number from 0 to 1.", TREE_RULE},
    {"meta-urgency", "SHOULD", "attention", "meta.urgency is one of none, low, medium, high, critical.", TREE_RULE},
    {"meta-window", "SHOULD", "scaling: windowing",
     "meta.total_children is a non-negative integer, at least the children present; meta.window is "
     "[offset, count] with total_children, offset + count <= total_children, and count children present "
     "(when any are).",
     TREE_RULE},
    {"affordance-action", "MUST", "affordances",
     "Each affordance is an object with a non-empty string action, unique within its node.", TREE_RULE},
    {"affordance-params", "SHOULD", "affordances: params",
     "params is an object schema within the subset consumers enforce (type, properties, required, items, "
     "enum, plus description, title, default): other keywords are not checked by anyone.",
     TREE_RULE},
    {"affordance-estimate", "SHOULD", "affordances", "estimate is one of instant, fast, slow, async.", TREE_RULE},
    {"affordance-flags", "SHOULD", "affordances", "dangerous and idempotent are booleans.", TREE_RULE},
    {"result-in-time", "MUST", "messages: result",
     "Every invoke is answered by a result (or an error) within the request timeout.", FRAME_RULE},
    {"result-status", "SHOULD", "messages: result", "A result's status is ok, error or accepted.", FRAME_RULE},
    {"accepted-task", "SHOULD", "async", "An \"accepted\" result carries data.taskId, a string.", FRAME_RULE},
    {"task-node", "SHOULD", "async",
     "The task of an accepted invoke appears as a node (by convention under /tasks) within the request "
     "timeout.",
     TREE_RULE},
    {"error-code", "SHOULD", "messages: error",
     "An error carries error {code, message}, the code one of not_found, invalid_params, unauthorized, "
     "conflict, internal (and for error messages also bad_request, not_supported).",
     FRAME_RULE},
    {"drift", "MUST", "messages: patch",
     "The patches bring the consumer's copy to the provider's state: a query of the subscribed subtree at the "
     "same version shows the same tree.",
     FRAME_RULE},
    {"sub-depth", "SHOULD", "messages: subscribe",
     "A subscription's tree holds no node deeper than the depth it asked for.", TREE_RULE},
    {"sub-max-nodes", "MUST", "scaling: max_nodes", "A subscription's tree holds at most max_nodes nodes.",
     TREE_RULE},
    {"sub-filter", "SHOULD", "messages: subscribe",
     "Below the subscription's root, nodes are of the types in filter.types and none has a salience under "
     "filter.min_salience.",
     TREE_RULE},
};
#define RULE_COUNT ((int)(sizeof rules / sizeof rules[0]))

static int rule_index(const char *id) {
    for (int i = 0; i < RULE_COUNT; i++)
        if (strcmp(rules[i].id, id) == 0) return i;
    return -1;
}

void slop__conf_free(slop__conformance *cf) {
    for (size_t i = 0; i < cf->n; i++) {
        free(cf->f[i].path);
        free(cf->f[i].detail);
        free(cf->f[i].frame);
    }
    free(cf->f);
    cf->f = NULL;
    cf->n = cf->cap = 0;
}

/* A finding's frame or detail: at most max bytes of it, as text a report can
 * carry (a frame that broke "json" may hold any bytes, a detail a provider
 * string cut by "%.60s"): invalid UTF-8 and NUL become U+FFFD. Caller frees. */
static char *frame_text(const char *f, size_t len, size_t max) {
    slop__buf b = {0};
    const unsigned char *s = (const unsigned char *)f;
    for (size_t i = 0; i < len;) {
        size_t k = s[i] ? slop__utf8_len(s + i, len - i) : 0;
        if (b.len + (k ? k : 3) > max) break;
        if (k == 0) {
            slop__buf_puts(&b, "\xEF\xBF\xBD");
            i++;
        } else {
            slop__buf_putn(&b, f + i, k);
            i += k;
        }
    }
    return slop__buf_take(&b);
}

static int same_path(const char *a, const char *b) {
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

void slop__conf_note(slop__conformance *cf, const char *rule_id, const char *path, double version,
                     const char *fmt, ...) {
    int r = rule_index(rule_id);
    if (r < 0) return; /* a rule id not in the table: a bug caught by the tests' rule list */
    for (size_t i = 0; i < cf->n; i++)
        if (cf->f[i].rule == r && same_path(cf->f[i].path, path)) {
            cf->f[i].count++;
            return;
        }
    if (cf->n >= SLOP__FINDINGS_MAX || SLOP__RESERVE(cf->f, cf->n, cf->cap, 16) != 0) {
        cf->dropped++;
        return;
    }
    char detail[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    slop__finding *f = &cf->f[cf->n++];
    *f = (slop__finding){r, 1, path ? slop__strdup(path) : NULL, frame_text(detail, strlen(detail), sizeof detail),
                         NULL, version};
    if (cf->frame) f->frame = frame_text(cf->frame, cf->frame_len, SLOP__FINDING_FRAME_MAX);
}

/* ---------------------------------------------------------------------- */
/* Tree rules                                                               */
/* ---------------------------------------------------------------------- */

typedef struct walk {
    slop__conformance *out;
    const char *root;
    double version;
    int depth_max;              /* the subscription's depth, -1: any        */
    const cJSON *types;         /* filter.types or NULL                     */
    double min_salience;        /* filter.min_salience, or -1               */
    int windowing, content_refs, affordances, attention;
    /* The finding of capability-affordances / -attention in this
     * subscription: -1 none yet, -2 not kept (the findings are full). */
    long aff_at, att_at;
    size_t nodes;
} walk;

/* A field of n as cJSON without keeping it parsed in the mirror (a report
 * must not undo the mirror's memory savings): *tmp is set when the caller
 * must delete the result. */
static const cJSON *field_of(const slop__node *n, int f, cJSON **tmp) {
    *tmp = NULL;
    if (n->field[f]) return n->field[f];
    if (!n->raw[f]) return NULL;
    *tmp = slop__json_parse_exact(n->raw[f], n->raw_len[f]);
    return *tmp;
}

static int is_core_type(const char *t) {
    static const char *const core[] = {"root",   "view",  "collection", "item",         "document",
                                       "form",   "field", "control",    "status",       "notification",
                                       "media",  "group", "context"};
    for (size_t i = 0; i < sizeof core / sizeof core[0]; i++)
        if (strcmp(core[i], t) == 0) return 1;
    const char *colon = strchr(t, ':');
    return colon && colon != t && colon[1] != '\0';
}

static int is_count(const cJSON *j) {
    return cJSON_IsNumber(j) && isfinite(j->valuedouble) && j->valuedouble >= 0 &&
           j->valuedouble == floor(j->valuedouble);
}

static int one_of(const cJSON *s, const char *const *names, size_t n) {
    if (!cJSON_IsString(s)) return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(s->valuestring, names[i]) == 0) return 1;
    return 0;
}

/* A capability rule broken by many nodes of one subscription (affordances or
 * salience on every node) is one finding, at the first node, counting the
 * rest: one per node would fill the report and crowd out every other rule. */
static void note_per_sub(walk *w, const char *rule_id, long *at, const char *path, const char *what,
                         const char *cap) {
    if (*at >= 0) {
        w->out->f[*at].count++;
        return;
    }
    if (*at == -2) return;
    slop__conf_note(w->out, rule_id, path, w->version, "%s without the \"%s\" capability", what, cap);
    *at = -2;
    int r = rule_index(rule_id);
    for (size_t i = 0; i < w->out->n; i++) /* noted, or merged into another subscription's finding */
        if (w->out->f[i].rule == r && same_path(w->out->f[i].path, path)) *at = (long)i;
}

/* The attention hints the spec names (capabilities table: salience, urgency,
 * pinned; the Attention document adds focus and changed). */
static const char *attention_field(const cJSON *meta) {
    static const char *const hints[] = {"salience", "urgency", "pinned", "focus", "changed"};
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++)
        if (cJSON_GetObjectItemCaseSensitive(meta, hints[i])) return hints[i];
    return NULL;
}

static void check_meta(walk *w, const slop__node *n, const char *path, const cJSON *meta) {
    static const char *const urgencies[] = {"none", "low", "medium", "high", "critical"};
    const char *hint = w->attention ? NULL : attention_field(meta);
    if (hint) {
        char what[32];
        snprintf(what, sizeof what, "meta.%s", hint);
        note_per_sub(w, "capability-attention", &w->att_at, path, what, "attention");
    }
    const cJSON *sal = cJSON_GetObjectItemCaseSensitive(meta, "salience");
    if (sal && !(cJSON_IsNumber(sal) && sal->valuedouble >= 0 && sal->valuedouble <= 1))
        slop__conf_note(w->out, "meta-salience", path, w->version, "meta.salience is %s",
                        slop__json_is_number(sal) ? "out of 0..1" : "not a number");
    const cJSON *urg = cJSON_GetObjectItemCaseSensitive(meta, "urgency");
    if (urg && !one_of(urg, urgencies, 5))
        slop__conf_note(w->out, "meta-urgency", path, w->version, "meta.urgency is \"%.40s\"",
                        cJSON_IsString(urg) ? urg->valuestring : "(not a string)");
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(meta, "total_children");
    const cJSON *win = cJSON_GetObjectItemCaseSensitive(meta, "window");
    double present = (double)slop__node_child_count(n);
    if (total && !is_count(total)) {
        slop__conf_note(w->out, "meta-window", path, w->version, "meta.total_children is not a non-negative integer");
    } else if (total && total->valuedouble < present) {
        slop__conf_note(w->out, "meta-window", path, w->version,
                        "meta.total_children is %.17g but %.17g children are present", total->valuedouble, present);
    }
    if (!win) return;
    if (!w->windowing)
        slop__conf_note(w->out, "capability-windowing", path, w->version,
                        "meta.window without the \"windowing\" capability");
    const cJSON *off = cJSON_GetArrayItem(win, 0), *cnt = cJSON_GetArrayItem(win, 1);
    if (!cJSON_IsArray(win) || cJSON_GetArraySize(win) != 2 || !is_count(off) || !is_count(cnt)) {
        slop__conf_note(w->out, "meta-window", path, w->version, "meta.window is not [offset, count] of non-negative integers");
    } else if (!is_count(total)) {
        slop__conf_note(w->out, "meta-window", path, w->version, "meta.window without meta.total_children");
    } else if (off->valuedouble + cnt->valuedouble > total->valuedouble) {
        slop__conf_note(w->out, "meta-window", path, w->version, "meta.window [%.17g, %.17g] goes past total_children %.17g",
                        off->valuedouble, cnt->valuedouble, total->valuedouble);
    } else if (present > 0 && cnt->valuedouble != present) { /* none present: cut by depth, not a page */
        slop__conf_note(w->out, "meta-window", path, w->version, "meta.window says %.17g children, %.17g are present",
                        cnt->valuedouble, present);
    }
}

/* The schema subset: anything else is a keyword no consumer checks. */
static int schema_ok(const cJSON *s, int depth, char *why, size_t whylen) {
    static const char *const keys[] = {"type", "properties", "required", "items", "enum", "description", "title",
                                       "default"};
    static const char *const types[] = {"object", "array", "string", "number", "integer", "boolean", "null"};
    if (depth > 32) return snprintf(why, whylen, "nested deeper than 32 levels"), 0;
    if (!cJSON_IsObject(s)) return snprintf(why, whylen, "a schema is not an object"), 0;
    for (const cJSON *k = s->child; k; k = k->next) {
        int known = 0;
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) known |= strcmp(k->string, keys[i]) == 0;
        if (!known) return snprintf(why, whylen, "keyword \"%.40s\" is outside the subset", k->string), 0;
    }
    /* "type": a JSON type's name, or a list of them (as the params checker reads it). */
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(s, "type");
    int type_ok = !type || one_of(type, types, 7);
    if (cJSON_IsArray(type)) {
        type_ok = cJSON_GetArraySize(type) > 0;
        for (const cJSON *t = type->child; t; t = t->next) type_ok &= one_of(t, types, 7);
    }
    if (!type_ok) return snprintf(why, whylen, "\"type\" is not one of the JSON types"), 0;
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
    if (props && !cJSON_IsObject(props)) return snprintf(why, whylen, "\"properties\" is not an object"), 0;
    for (const cJSON *p = props ? props->child : NULL; p; p = p->next)
        if (!schema_ok(p, depth + 1, why, whylen)) return 0;
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(s, "required");
    if (req) {
        if (!cJSON_IsArray(req)) return snprintf(why, whylen, "\"required\" is not an array"), 0;
        for (const cJSON *r = req->child; r; r = r->next)
            if (!cJSON_IsString(r)) return snprintf(why, whylen, "\"required\" holds a non-string"), 0;
    }
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(s, "items");
    if (items && !schema_ok(items, depth + 1, why, whylen)) return 0;
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(s, "enum");
    if (en && !cJSON_IsArray(en)) return snprintf(why, whylen, "\"enum\" is not an array"), 0;
    return 1;
}

static void check_affordances(walk *w, const char *path, const cJSON *affs) {
    static const char *const estimates[] = {"instant", "fast", "slow", "async"};
    for (const cJSON *a = affs ? affs->child : NULL; a; a = a->next) {
        const cJSON *action = cJSON_GetObjectItemCaseSensitive(a, "action");
        if (!cJSON_IsObject(a) || !cJSON_IsString(action) || !action->valuestring[0]) {
            slop__conf_note(w->out, "affordance-action", path, w->version, "an affordance without a non-empty string action");
            continue;
        }
        const char *name = action->valuestring;
        for (const cJSON *b = affs->child; b != a; b = b->next) {
            const cJSON *other = cJSON_GetObjectItemCaseSensitive(b, "action");
            if (cJSON_IsString(other) && strcmp(other->valuestring, name) == 0) {
                slop__conf_note(w->out, "affordance-action", path, w->version, "action \"%.60s\" appears twice", name);
                break;
            }
        }
        const cJSON *est = cJSON_GetObjectItemCaseSensitive(a, "estimate");
        if (est && !one_of(est, estimates, 4))
            slop__conf_note(w->out, "affordance-estimate", path, w->version, "action \"%.60s\": estimate \"%.40s\"", name,
                            cJSON_IsString(est) ? est->valuestring : "(not a string)");
        const cJSON *dng = cJSON_GetObjectItemCaseSensitive(a, "dangerous");
        const cJSON *idem = cJSON_GetObjectItemCaseSensitive(a, "idempotent");
        if ((dng && !cJSON_IsBool(dng)) || (idem && !cJSON_IsBool(idem)))
            slop__conf_note(w->out, "affordance-flags", path, w->version, "action \"%.60s\": %s is not a boolean", name,
                            dng && !cJSON_IsBool(dng) ? "dangerous" : "idempotent");
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(a, "params");
        char why[200];
        if (params && !cJSON_IsNull(params)) {
            const cJSON *type = cJSON_GetObjectItemCaseSensitive(params, "type");
            if (!schema_ok(params, 0, why, sizeof why))
                slop__conf_note(w->out, "affordance-params", path, w->version, "action \"%.60s\": %s", name, why);
            else if (!(cJSON_IsString(type) && strcmp(type->valuestring, "object") == 0))
                slop__conf_note(w->out, "affordance-params", path, w->version,
                                "action \"%.60s\": params is not an object schema (\"type\": \"object\")", name);
        }
    }
}

static int type_listed(const cJSON *types, const char *t) {
    for (const cJSON *it = types->child; it; it = it->next)
        if (cJSON_IsString(it) && strcmp(it->valuestring, t) == 0) return 1;
    return 0;
}

static void check_node(walk *w, const slop__node *n, int depth) {
    w->nodes++;
    char *rel = slop__node_path(n);
    char *path = rel ? slop__path_join(w->root, rel) : NULL;
    free(rel);
    if (!path) return;
    if (w->depth_max >= 0 && depth > w->depth_max) {
        slop__conf_note(w->out, "sub-depth", path, w->version, "at depth %d; the subscription asked for %d", depth,
                        w->depth_max);
        free(path);
        return; /* its subtree says nothing more */
    }
    if (!is_core_type(n->type))
        slop__conf_note(w->out, "node-type", path, w->version, "type \"%.60s\"", n->type);
    if (depth > 0 && w->types && !type_listed(w->types, n->type))
        slop__conf_note(w->out, "sub-filter", path, w->version, "type \"%.60s\" is not in filter.types", n->type);
    cJSON *tmp;
    const cJSON *meta = field_of(n, SLOP__FIELD_META, &tmp);
    if (meta) {
        check_meta(w, n, path, meta);
        const cJSON *sal = cJSON_GetObjectItemCaseSensitive(meta, "salience");
        if (depth > 0 && w->min_salience >= 0 && cJSON_IsNumber(sal) && sal->valuedouble < w->min_salience)
            slop__conf_note(w->out, "sub-filter", path, w->version, "salience %.17g is under filter.min_salience %.17g",
                            sal->valuedouble, w->min_salience);
    }
    cJSON_Delete(tmp);
    if (!w->affordances && slop__node_has_field(n, SLOP__FIELD_AFFORDANCES))
        note_per_sub(w, "capability-affordances", &w->aff_at, path, "affordances", "affordances");
    const cJSON *affs = field_of(n, SLOP__FIELD_AFFORDANCES, &tmp);
    if (affs) check_affordances(w, path, affs);
    cJSON_Delete(tmp);
    if (!w->content_refs && slop__node_has_field(n, SLOP__FIELD_CONTENT_REF))
        slop__conf_note(w->out, "capability-content-refs", path, w->version,
                        "content_ref without the \"content_refs\" capability");
    free(path);
    slop__kid_iter it;
    for (slop__node *k = slop__kids_first(n, &it); k; k = slop__kids_next(&it)) check_node(w, k, depth + 1);
}

static int declares(const cJSON *caps, const char *name) {
    for (const cJSON *it = caps ? caps->child : NULL; it; it = it->next)
        if (cJSON_IsString(it) && strcmp(it->valuestring, name) == 0) return 1;
    return 0;
}

void slop__conf_check_mirror(slop__conformance *out, const slop__mirror *m, const char *root,
                             const cJSON *options, const cJSON *caps, double version) {
    if (!m->root) return;
    const cJSON *depth = cJSON_GetObjectItemCaseSensitive(options, "depth");
    const cJSON *max = cJSON_GetObjectItemCaseSensitive(options, "max_nodes");
    const cJSON *filter = cJSON_GetObjectItemCaseSensitive(options, "filter");
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(filter, "types");
    const cJSON *minsal = cJSON_GetObjectItemCaseSensitive(filter, "min_salience");
    walk w = {out, root, version, cJSON_IsNumber(depth) && depth->valuedouble >= 0 ? (int)depth->valuedouble : -1,
              cJSON_IsArray(types) ? types : NULL, cJSON_IsNumber(minsal) ? minsal->valuedouble : -1,
              declares(caps, "windowing"), declares(caps, "content_refs"), declares(caps, "affordances"),
              declares(caps, "attention"), -1, -1, 0};
    check_node(&w, m->root, 0);
    if (is_count(max) && max->valuedouble > 0 && (double)m->nodes > max->valuedouble)
        slop__conf_note(out, "sub-max-nodes", root, version, "%zu nodes; the subscription asked for at most %.17g",
                        m->nodes, max->valuedouble);
}

/* ---------------------------------------------------------------------- */
/* Drift                                                                    */
/* ---------------------------------------------------------------------- */

typedef struct drift {
    const slop__mirror *mine;
    const char *root;
    cJSON *out;
    size_t max, count;
} drift;

static void differ(drift *d, const char *node_rel, const char *field, const char *key, const cJSON *a,
                   const cJSON *b) {
    d->count++;
    if (cJSON_GetArraySize(d->out) >= (int)d->max) return;
    slop__buf p = {0};
    char *abs = slop__path_join(d->root, node_rel);
    slop__buf_puts(&p, abs && strcmp(abs, "/") != 0 ? abs : "");
    free(abs);
    slop__buf_putc(&p, '/');
    slop__buf_puts(&p, field);
    if (key) { /* a JSON Pointer segment: ~ and / escaped (RFC 6901) */
        slop__buf_putc(&p, '/');
        for (const char *k = key; *k; k++) {
            if (*k == '~') slop__buf_puts(&p, "~0");
            else if (*k == '/') slop__buf_puts(&p, "~1");
            else slop__buf_putc(&p, *k);
        }
    }
    char *path = slop__buf_take(&p);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "path", path ? path : "");
    free(path);
    if (a) cJSON_AddItemToObject(e, "mirror", cJSON_Duplicate(a, 1));
    if (b) cJSON_AddItemToObject(e, "provider", cJSON_Duplicate(b, 1));
    cJSON_AddItemToArray(d->out, e);
}

/* Two objects key by key (properties, meta). */
static void differ_keys(drift *d, const char *rel, const char *field, const cJSON *a, const cJSON *b,
                        const char *skip) {
    for (const cJSON *k = a ? a->child : NULL; k; k = k->next) {
        if (skip && strcmp(k->string, skip) == 0) continue;
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(b, k->string);
        if (!o || !cJSON_Compare(k, o, 1)) differ(d, rel, field, k->string, k, o);
    }
    for (const cJSON *k = b ? b->child : NULL; k; k = k->next) {
        if (skip && strcmp(k->string, skip) == 0) continue;
        if (!cJSON_GetObjectItemCaseSensitive(a, k->string)) differ(d, rel, field, k->string, NULL, k);
    }
}

static cJSON *child_ids(const slop__node *n, size_t max) {
    cJSON *ids = cJSON_CreateArray();
    slop__kid_iter it;
    size_t i = 0;
    for (slop__node *k = slop__kids_first(n, &it); k && i < max; k = slop__kids_next(&it), i++)
        cJSON_AddItemToArray(ids, cJSON_CreateString(k->id));
    return ids;
}

static void drift_node(drift *d, const slop__node *a, const slop__node *b, const char *rel) {
    if (strcmp(a->type, b->type) != 0) {
        cJSON *ta = cJSON_CreateString(a->type), *tb = cJSON_CreateString(b->type);
        differ(d, rel, "type", NULL, ta, tb);
        cJSON_Delete(ta);
        cJSON_Delete(tb);
    }
    static const char *const names[SLOP__FIELD_COUNT] = {"properties", "meta", "affordances", "content_ref"};
    for (int f = 0; f < SLOP__FIELD_COUNT; f++) {
        cJSON *ta, *tb;
        const cJSON *fa = field_of(a, f, &ta), *fb = field_of(b, f, &tb);
        if (f == SLOP__FIELD_PROPERTIES || f == SLOP__FIELD_META)
            differ_keys(d, rel, names[f], fa, fb, f == SLOP__FIELD_META ? "changed" : NULL);
        else if ((fa || fb) && !(fa && fb && cJSON_Compare(fa, fb, 1)))
            differ(d, rel, names[f], NULL, fa, fb);
        cJSON_Delete(ta);
        cJSON_Delete(tb);
    }
    /* Children: the lists of ids, then the nodes present on both sides. */
    size_t na = slop__node_child_count(a), nb = slop__node_child_count(b);
    int same = na == nb;
    slop__kid_iter ia, ib;
    slop__node *ka = slop__kids_first(a, &ia), *kb = slop__kids_first(b, &ib);
    for (; same && ka && kb; ka = slop__kids_next(&ia), kb = slop__kids_next(&ib)) same = strcmp(ka->id, kb->id) == 0;
    if (!same) {
        cJSON *la = child_ids(a, 20), *lb = child_ids(b, 20);
        differ(d, rel, "children", NULL, la, lb);
        cJSON_Delete(la);
        cJSON_Delete(lb);
    }
    for (kb = slop__kids_first(b, &ib); kb; kb = slop__kids_next(&ib)) {
        char *kr = slop__path_child(rel, kb->id);
        const slop__node *mine = kr ? slop__mirror_find(d->mine, kr) : NULL;
        if (mine) drift_node(d, mine, kb, kr);
        free(kr);
    }
}

size_t slop__conf_drift(const slop__mirror *mine, const slop__mirror *theirs, const char *root, cJSON *out,
                        size_t max) {
    drift d = {mine, root, out, max, 0};
    if (mine->root && theirs->root) {
        if (strcmp(mine->root->id, theirs->root->id) != 0) {
            cJSON *a = cJSON_CreateString(mine->root->id), *b = cJSON_CreateString(theirs->root->id);
            differ(&d, "/", "id", NULL, a, b);
            cJSON_Delete(a);
            cJSON_Delete(b);
        } else {
            drift_node(&d, mine->root, theirs->root, "/");
        }
    }
    return d.count;
}

/* ---------------------------------------------------------------------- */
/* Report                                                                   */
/* ---------------------------------------------------------------------- */

static void put_findings(slop__buf *b, const slop__conformance *cf, int *first, unsigned long *must,
                         unsigned long *should) {
    for (size_t i = 0; i < cf->n; i++) {
        const slop__finding *f = &cf->f[i];
        const rule *r = &rules[f->rule];
        if (strcmp(r->severity, "MUST") == 0) (*must)++;
        else (*should)++;
        slop__buf_puts(b, *first ? "{\"rule\":" : ",{\"rule\":");
        *first = 0;
        slop__buf_put_string(b, r->id);
        slop__buf_puts(b, ",\"severity\":");
        slop__buf_put_string(b, r->severity);
        slop__buf_puts(b, ",\"count\":");
        slop__buf_put_number(b, (double)f->count);
        if (f->path) {
            slop__buf_puts(b, ",\"path\":");
            slop__buf_put_string(b, f->path);
        }
        slop__buf_puts(b, ",\"detail\":");
        slop__buf_put_string(b, f->detail ? f->detail : "");
        if (f->frame) {
            slop__buf_puts(b, ",\"frame\":");
            slop__buf_put_string(b, f->frame);
        }
        if (f->version >= 0) {
            slop__buf_puts(b, ",\"version\":");
            slop__buf_put_number(b, f->version);
        }
        slop__buf_puts(b, r->kind == FRAME_RULE ? ",\"seen\":\"frame\"}" : ",\"seen\":\"mirror\"}");
    }
}

char *slop__conf_report(const slop__conformance *frames, const slop__conformance *trees, size_t mirrors,
                        size_t nodes, const char *not_live) {
    slop__buf b = {0};
    slop__buf_puts(&b, "{\"live\":");
    slop__buf_puts(&b, not_live ? "false" : "true");
    if (not_live) {
        slop__buf_puts(&b, ",\"not_live\":");
        slop__buf_put_string(&b, not_live);
    }
    slop__buf_puts(&b, ",\"frames\":");
    slop__buf_put_number(&b, (double)frames->frames);
    slop__buf_puts(&b, ",\"mirrors\":");
    slop__buf_put_number(&b, (double)mirrors);
    slop__buf_puts(&b, ",\"nodes\":");
    slop__buf_put_number(&b, (double)nodes);
    slop__buf_puts(&b, ",\"rules\":[");
    for (int i = 0; i < RULE_COUNT; i++) {
        slop__buf_puts(&b, i ? ",{\"id\":" : "{\"id\":");
        slop__buf_put_string(&b, rules[i].id);
        slop__buf_puts(&b, ",\"severity\":");
        slop__buf_put_string(&b, rules[i].severity);
        slop__buf_puts(&b, ",\"spec\":");
        slop__buf_put_string(&b, rules[i].spec);
        slop__buf_puts(&b, ",\"text\":");
        slop__buf_put_string(&b, rules[i].text);
        slop__buf_puts(&b, rules[i].kind == FRAME_RULE ? ",\"checked\":\"frames\"}" : ",\"checked\":\"mirror\"}");
    }
    slop__buf_puts(&b, "],\"findings\":[");
    int first = 1;
    unsigned long must = 0, should = 0;
    put_findings(&b, frames, &first, &must, &should);
    put_findings(&b, trees, &first, &must, &should);
    slop__buf_puts(&b, "],\"must\":");
    slop__buf_put_number(&b, (double)must);
    slop__buf_puts(&b, ",\"should\":");
    slop__buf_put_number(&b, (double)should);
    slop__buf_puts(&b, ",\"dropped\":");
    slop__buf_put_number(&b, (double)(frames->dropped + trees->dropped));
    slop__buf_putc(&b, '}');
    return slop__buf_take(&b);
}
