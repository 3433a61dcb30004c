/*
 * consumer_requests.c: the public requests: subscribe, unsubscribe, resync,
 * query and invoke, their options checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"

/* ---------------------------------------------------------------------- */
/* Public: requests                                                         */
/* ---------------------------------------------------------------------- */

/* options.filter checked and copied into out; -1 after slop__fail(). */
static int parse_filter(slop_consumer *c, const cJSON *filter, cJSON *out) {
    if (!cJSON_IsObject(filter)) {
        slop__fail(c, SLOP_E_ARG, "options.filter must be an object");
        return -1;
    }
    cJSON *f = cJSON_AddObjectToObject(out, "filter");
    for (const cJSON *fi = filter->child; fi; fi = fi->next) {
        if (strcmp(fi->string, "types") == 0) {
            int all_strings = cJSON_IsArray(fi);
            for (const cJSON *t = all_strings ? fi->child : NULL; t; t = t->next) all_strings &= cJSON_IsString(t);
            if (!all_strings) {
                slop__fail(c, SLOP_E_ARG, "options.filter.types must be an array of strings");
                return -1;
            }
            cJSON_AddItemToObject(f, "types", cJSON_Duplicate(fi, 1));
        } else if (strcmp(fi->string, "min_salience") == 0) {
            if (!cJSON_IsNumber(fi) || fi->valuedouble < 0 || fi->valuedouble > 1) {
                slop__fail(c, SLOP_E_ARG, "options.filter.min_salience must be a number from 0 to 1");
                return -1;
            }
            cJSON_AddNumberToObject(f, "min_salience", fi->valuedouble);
        } else {
            slop__fail(c, SLOP_E_ARG, "options.filter has an unknown member \"%.40s\"", fi->string);
            return -1;
        }
    }
    return 0;
}

/* Parses and checks subscribe/query options into frame members. */
static cJSON *parse_options(slop_consumer *c, const char *text, size_t len, int is_query, char **path_out) {
    slop__json_status st;
    cJSON *in = len ? slop__json_parse(text, len, c->lim.max_json_depth, &st, NULL, NULL) : cJSON_CreateObject();
    if (!cJSON_IsObject(in)) {
        cJSON_Delete(in);
        slop__fail(c, SLOP_E_ARG, "options must be a JSON object");
        return NULL;
    }
    cJSON *out = cJSON_CreateObject();
    const char *path = "/";
    double depth = -1;
    for (cJSON *it = in->child; it; it = it->next) {
        const char *k = it->string;
        if (strcmp(k, "path") == 0) {
            if (!cJSON_IsString(it) || it->valuestring[0] != '/') {
                slop__fail(c, SLOP_E_ARG, "options.path must be a string starting with '/'");
                goto bad;
            }
            path = it->valuestring;
        } else if (strcmp(k, "depth") == 0) {
            if (!slop__is_int(it) || it->valuedouble < -1) {
                slop__fail(c, SLOP_E_ARG, "options.depth must be an integer >= -1");
                goto bad;
            }
            depth = it->valuedouble;
        } else if (strcmp(k, "max_nodes") == 0) {
            if (!slop__is_int(it) || it->valuedouble < 1) {
                slop__fail(c, SLOP_E_ARG, "options.max_nodes must be a positive integer");
                goto bad;
            }
            cJSON_AddNumberToObject(out, "max_nodes", it->valuedouble);
        } else if (strcmp(k, "filter") == 0) {
            if (parse_filter(c, it, out) != 0) goto bad;
        } else if (strcmp(k, "id") == 0 && c->replay && !is_query) {
            /* A recording's frames address the subscription by the id it had. */
            if (!cJSON_IsString(it) || !it->valuestring[0] || strlen(it->valuestring) > 200) {
                slop__fail(c, SLOP_E_ARG, "options.id must be a string of 1 to 200 bytes");
                goto bad;
            }
            free(c->adopt);
            c->adopt = slop__strdup(it->valuestring);
        } else if (strcmp(k, "window") == 0 && is_query) {
            cJSON *a = cJSON_GetArrayItem(it, 0), *b = cJSON_GetArrayItem(it, 1);
            if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2 || !slop__is_int(a) || !slop__is_int(b) ||
                a->valuedouble < 0 || b->valuedouble < 0) {
                slop__fail(c, SLOP_E_ARG, "options.window must be [offset, count] with non-negative integers");
                goto bad;
            }
            cJSON_AddItemToObject(out, "window", cJSON_Duplicate(it, 1));
        } else {
            slop__fail(c, SLOP_E_ARG, "options has an unknown member \"%.40s\"%s", k,
                 strcmp(k, "window") == 0 ? " (window is for query only)" : "");
            goto bad;
        }
    }
    /* Normalise "/a/b/" to "/a/b" so absolute paths join cleanly. */
    size_t pl = strlen(path);
    char *np = slop__strdup(path);
    while (pl > 1 && np[pl - 1] == '/') np[--pl] = 0;
    cJSON *ordered = cJSON_CreateObject();
    cJSON_AddStringToObject(ordered, "path", np);
    cJSON_AddNumberToObject(ordered, "depth", depth);
    while (out->child) {
        cJSON *it = cJSON_DetachItemViaPointer(out, out->child);
        cJSON_AddItemToObject(ordered, it->string, it);
    }
    cJSON_Delete(out);
    cJSON_Delete(in);
    *path_out = np;
    return ordered;
bad:
    cJSON_Delete(in);
    cJSON_Delete(out);
    free(c->adopt);
    c->adopt = NULL;
    return NULL;
}

int slop__can_request(slop_consumer *c) {
    if (c->document) {
        slop__fail(c, SLOP_E_STATE, "a document has no provider: it is read-only");
        return 0;
    }
    if (c->refused) {
        slop__fail(c, SLOP_E_STATE, "the peer is not a SLOP provider (no \"state\" capability)");
        return 0;
    }
    if (c->closed) {
        slop__fail(c, SLOP_E_STATE, "the connection is closed");
        return 0;
    }
    if (c->npend >= c->lim.max_pending) {
        slop__fail(c, SLOP_E_LIMIT, "%u requests are already waiting for an answer", c->lim.max_pending);
        return 0;
    }
    return 1;
}

/* The start of subscribe and query: a request possible now, its options
 * checked. NULL after slop__fail(). */
static cJSON *request_options(slop_consumer *c, const char *options, size_t len, int is_query, char **path) {
    slop__ok(c);
    if (!slop__can_request(c)) return NULL;
    return parse_options(c, options, options ? len : 0, is_query, path);
}

const char *slop_consumer_subscribe(slop_consumer *c, const char *options, size_t len, double now_ms,
                                    size_t *out_len) {
    if (!c) return NULL;
    slop__cp_end(c, 1);
    char *path = NULL;
    cJSON *opts = request_options(c, options, len, 0, &path);
    if (!opts) return slop__give(c, NULL, out_len);
    if (SLOP__RESERVE(c->subs, c->nsubs, c->capsubs, 4) != 0) {
        cJSON_Delete(opts);
        free(path);
        free(c->adopt);
        c->adopt = NULL;
        slop__fail(c, SLOP_E_NOMEM, "out of memory");
        return slop__give(c, NULL, out_len);
    }
    if (c->adopt && slop__find_sub_wire(c, c->adopt)) {
        slop__fail(c, SLOP_E_ARG, "options.id \"%.60s\" is already a subscription of this consumer", c->adopt);
        free(c->adopt);
        c->adopt = NULL;
        cJSON_Delete(opts);
        free(path);
        return slop__give(c, NULL, out_len);
    }
    sub *s = calloc(1, sizeof *s);
    char *wire = c->adopt ? c->adopt : slop__new_id(c, 's');
    c->adopt = NULL;
    char *handle = wire ? slop__strdup(wire) : NULL;
    if (!s || !handle) {
        free(s);
        free(wire);
        free(handle);
        cJSON_Delete(opts);
        free(path);
        slop__fail(c, SLOP_E_NOMEM, "out of memory");
        return slop__give(c, NULL, out_len);
    }
    s->wire = wire;
    s->handle = handle;
    s->options = opts;
    s->path = path;
    slop__mirror_init(&s->m, &c->budget);
    c->subs[c->nsubs++] = s;
    slop__pending_add(c, s->wire, SLOP_REQ_SUBSCRIBE, now_ms, s->handle, NULL, NULL);
    slop__dispatch(c, slop__subscribe_frame(s));
    return slop__give(c, slop__strdup(s->handle), out_len);
}

int slop_consumer_unsubscribe(slop_consumer *c, const char *sub_id, double now_ms) {
    (void)now_ms;
    if (!c) return SLOP_E_ARG;
    slop__cp_end(c, 1);
    slop__ok(c);
    for (size_t i = 0; i < c->nsubs; i++) {
        sub *s = c->subs[i];
        if (!sub_id || strcmp(s->handle, sub_id) != 0) continue;
        pending *p = slop__find_pending(c, s->wire);
        if (p) slop__pending_drop(c, p);
        if (!c->closed && !c->document) {
            cJSON *un = cJSON_CreateObject();
            cJSON_AddStringToObject(un, "type", slop__consumer_message_name(SLOP_CMSG_UNSUBSCRIBE));
            cJSON_AddStringToObject(un, "id", s->wire);
            slop__dispatch(c, un);
        }
        slop__sub_free(s);
        c->subs[i] = c->subs[--c->nsubs];
        return SLOP_OK;
    }
    slop__fail(c, SLOP_E_NOT_FOUND, "no subscription \"%.60s\"", sub_id ? sub_id : "(null)");
    return SLOP_E_NOT_FOUND;
}

int slop_consumer_resync(slop_consumer *c, const char *sub_id, double now_ms) {
    if (!c) return SLOP_E_ARG;
    slop__cp_end(c, 1);
    slop__ok(c);
    sub *s = slop__find_sub(c, sub_id);
    if (!s) {
        slop__fail(c, SLOP_E_NOT_FOUND, "no subscription \"%.60s\"", sub_id ? sub_id : "(null)");
        return SLOP_E_NOT_FOUND;
    }
    if (!slop__can_request(c)) return c->code;
    s->retry_at = 0;
    s->burst = 0;
    slop__resync(c, s, "manual", "resync asked for by the user", now_ms);
    return SLOP_OK;
}

const char *slop_consumer_query(slop_consumer *c, const char *options, size_t len, double now_ms,
                                size_t *out_len) {
    if (!c) return NULL;
    char *path = NULL;
    cJSON *opts = request_options(c, options, len, 1, &path);
    if (!opts) return slop__give(c, NULL, out_len);
    char *id = slop__new_id(c, 'q');
    cJSON *f = slop__request_frame(SLOP_CMSG_QUERY, id, opts);
    cJSON_Delete(opts);
    if (!f) {
        free(id);
        free(path);
        slop__fail(c, SLOP_E_NOMEM, "out of memory");
        return slop__give(c, NULL, out_len);
    }
    if (slop__pending_add(c, id, SLOP_REQ_QUERY, now_ms, NULL, path, NULL) == 0) {
        cJSON *w = cJSON_GetObjectItemCaseSensitive(f, "window");
        pending *p = &c->pend[c->npend - 1];
        if (cJSON_GetArraySize(w) == 2) {
            p->win[0] = w->child->valuedouble;
            p->win[1] = w->child->next->valuedouble;
        }
    }
    free(path);
    slop__dispatch(c, f);
    return slop__give(c, id, out_len);
}

/* The mirrored node at an absolute path, searching every subscription. */
static slop__node *find_mirrored(slop_consumer *c, const char *path) {
    for (size_t i = 0; i < c->nsubs; i++) {
        sub *s = c->subs[i];
        if (!s->has_mirror) continue;
        const char *rel = slop__rel_path(s->path, path);
        slop__node *n = rel ? slop__mirror_find(&s->m, rel) : NULL;
        if (n) return n;
    }
    return NULL;
}

const char *slop_consumer_invoke(slop_consumer *c, const char *path, const char *action, const char *params,
                                 size_t params_len, double now_ms, size_t *out_len) {
    if (!c) return NULL;
    slop__ok(c);
    if (!path || path[0] != '/' || !action || !action[0]) {
        slop__fail(c, SLOP_E_ARG, "invoke needs an absolute path and an action name");
        return slop__give(c, NULL, out_len);
    }
    if (!slop__can_request(c)) return slop__give(c, NULL, out_len);
    if (!c->have_hello) {
        slop__fail(c, SLOP_E_STATE, "the provider has not said hello yet");
        return slop__give(c, NULL, out_len);
    }
    if (!(c->caps & CAP_BIT(SLOP_CAP_AFFORDANCES))) {
        slop__fail(c, SLOP_E_CAPABILITY, "the provider does not declare \"affordances\": nothing can be invoked");
        return slop__give(c, NULL, out_len);
    }
    slop__json_status st;
    cJSON *pj = params && params_len ? slop__json_parse(params, params_len, c->lim.max_json_depth, &st, NULL, NULL)
                                     : cJSON_CreateObject();
    if (!cJSON_IsObject(pj)) {
        cJSON_Delete(pj);
        slop__fail(c, SLOP_E_PARAMS, "params must be a JSON object");
        return slop__give(c, NULL, out_len);
    }
    slop__node *n = find_mirrored(c, path);
    if (n) {
        cJSON *aff = NULL;
        cJSON *list = slop__node_field(n, SLOP__FIELD_AFFORDANCES);
        for (cJSON *a = list ? list->child : NULL; a; a = a->next) {
            cJSON *an = cJSON_GetObjectItemCaseSensitive(a, "action");
            if (cJSON_IsString(an) && strcmp(an->valuestring, action) == 0) aff = a;
        }
        /* A stub (id/type/meta only) carries no affordances: let the provider decide. */
        int stub = !slop__node_has_field(n, SLOP__FIELD_PROPERTIES) && !list && !n->kids;
        if (!aff && !stub) {
            cJSON_Delete(pj);
            slop__fail(c, SLOP_E_NOT_FOUND, "%.120s has no affordance \"%.60s\"", path, action);
            return slop__give(c, NULL, out_len);
        }
        char *msg = aff ? slop__params_check(cJSON_GetObjectItemCaseSensitive(aff, "params"), pj) : NULL;
        if (msg) {
            slop__fail(c, SLOP_E_PARAMS, "%s", msg);
            free(msg);
            cJSON_Delete(pj);
            return slop__give(c, NULL, out_len);
        }
    }
    char *id = slop__new_id(c, 'i');
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "type", slop__consumer_message_name(SLOP_CMSG_INVOKE));
    cJSON_AddStringToObject(f, "id", id);
    cJSON_AddStringToObject(f, "path", path);
    cJSON_AddStringToObject(f, "action", action);
    cJSON_AddItemToObject(f, "params", pj);
    slop__pending_add(c, id, SLOP_REQ_INVOKE, now_ms, NULL, path, action);
    slop__dispatch(c, f);
    return slop__give(c, id, out_len);
}
