/*
 * consumer_read.c: the public readers (status, trees, nodes, checkpoints,
 * the tree text and tools, errors), the state tail over several consumers,
 * and the conformance report and drift check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"

/* ---------------------------------------------------------------------- */
/* Public: reading                                                          */
/* ---------------------------------------------------------------------- */

const char *slop_consumer_status(slop_consumer *c, size_t *out_len) {
    if (!c) return NULL;
    slop__ok(c);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddBoolToObject(j, "hello", c->have_hello);
    cJSON_AddItemToObject(j, "provider", c->provider ? cJSON_Duplicate(c->provider, 1) : cJSON_CreateNull());
    cJSON *caps = cJSON_AddArrayToObject(j, "capabilities");
    for (int k = 0; k < SLOP_CAP_COUNT; k++)
        if (c->caps & (1u << k)) cJSON_AddItemToArray(caps, cJSON_CreateString(slop__capability_name((slop_capability)k)));
    cJSON_AddBoolToObject(j, "closed", c->closed);
    cJSON_AddBoolToObject(j, "refused", c->refused);
    cJSON_AddBoolToObject(j, "document", c->document);
    cJSON_AddNumberToObject(j, "pending", (double)c->npend);
    cJSON_AddNumberToObject(j, "nodes", (double)c->budget.used);
    cJSON_AddNumberToObject(j, "ignored_frames", (double)c->ignored_frames);
    cJSON_AddNumberToObject(j, "stale_patches", (double)c->stale_patches);
    cJSON *subs = cJSON_AddArrayToObject(j, "subscriptions");
    for (size_t i = 0; i < c->nsubs; i++) {
        sub *s = c->subs[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "sub", s->handle);
        cJSON_AddStringToObject(o, "wire", s->wire);
        cJSON_AddStringToObject(o, "path", s->path);
        cJSON_AddItemToObject(o, "options", cJSON_Duplicate(s->options, 1));
        cJSON_AddStringToObject(o, "state", slop__sub_state_name(s->state));
        if (s->state == SLOP_SUB_LIVE) cJSON_AddNullToObject(o, "reason");
        else {
            cJSON *r = cJSON_AddObjectToObject(o, "reason");
            cJSON_AddStringToObject(r, "code", s->reason_code[0] ? s->reason_code : "subscribing");
            cJSON_AddStringToObject(r, "message", s->reason[0] ? s->reason : "waiting for the first snapshot");
        }
        if (s->retry_at > 0) cJSON_AddNumberToObject(o, "retry_at", s->retry_at);
        else cJSON_AddNullToObject(o, "retry_at");
        if (s->has_mirror) {
            cJSON_AddNumberToObject(o, "version", s->last_version);
            cJSON_AddNumberToObject(o, "seq", (double)s->last_seq);
        }
        cJSON_AddNumberToObject(o, "nodes", (double)s->m.nodes);
        cJSON_AddItemToArray(subs, o);
    }
    return slop__give_json(c, j, out_len);
}

static slop__node *lookup(slop_consumer *c, const char *sub_id, const char *path, sub **s_out) {
    sub *s = slop__find_sub(c, sub_id);
    if (!s) {
        slop__fail(c, SLOP_E_NOT_FOUND, "no subscription \"%.60s\"", sub_id ? sub_id : "(null)");
        return NULL;
    }
    if (!s->has_mirror) {
        slop__fail(c, SLOP_E_STATE, "subscription %s has no snapshot yet", s->handle);
        return NULL;
    }
    const char *rel = path ? slop__rel_path(s->path, path) : "/";
    slop__node *n = rel ? slop__mirror_find(&s->m, rel) : NULL;
    if (!n) slop__fail(c, SLOP_E_NOT_FOUND, "no node at %.120s", path ? path : "/");
    if (s_out) *s_out = s;
    return n;
}

const char *slop_consumer_tree(slop_consumer *c, const char *sub_id, const char *path, int depth,
                               size_t *out_len) {
    if (!c) return NULL;
    slop__ok(c);
    slop__node *n = lookup(c, sub_id, path, NULL);
    if (!n) return slop__give(c, NULL, out_len);
    /* Printed from the mirror's text, as node views are: a field no patch touched keeps the
     * provider's text for its numbers (1.50, 1E5), not the shortest form of their value. */
    slop__buf b = {0};
    slop__node_put(&b, n, depth, 1);
    char *text = slop__buf_take(&b);
    if (!text) slop__fail(c, SLOP_E_NOMEM, "out of memory");
    return slop__give(c, text, out_len);
}

/* The snapshot frame's members before the tree: {"type":"snapshot",...,"tree": */
static void checkpoint_head(slop__buf *b, const sub *s) {
    slop__buf_puts(b, "{\"type\":\"snapshot\",\"id\":");
    slop__buf_put_string(b, s->wire);
    slop__buf_puts(b, ",\"version\":");
    slop__buf_put_number(b, s->last_version);
    slop__buf_puts(b, ",\"seq\":");
    slop__buf_put_number(b, (double)s->last_seq);
    slop__buf_puts(b, ",\"tree\":");
}

const char *slop_consumer_checkpoint(slop_consumer *c, const char *sub_id, size_t *out_len) {
    if (!c) return NULL;
    slop__ok(c);
    sub *s = NULL;
    slop__node *n = lookup(c, sub_id, "/", &s);
    if (!n) return slop__give(c, NULL, out_len);
    n = s->m.root;
    slop__buf b = {0};
    checkpoint_head(&b, s);
    slop__node_put(&b, n, -1, 1);
    slop__buf_putc(&b, '}');
    char *text = slop__buf_take(&b);
    if (!text) slop__fail(c, SLOP_E_NOMEM, "out of memory");
    return slop__give(c, text, out_len);
}

static int cp_push(slop_consumer *c, const slop__node *n) {
    if (SLOP__RESERVE(c->cp, c->cp_depth, c->cp_cap, 16) != 0) return -1;
    c->cp[c->cp_depth++] = (cp_frame){.n = n};
    return 0;
}

int slop_consumer_checkpoint_begin(slop_consumer *c, const char *sub_id) {
    if (!c) return SLOP_E_ARG;
    slop__ok(c);
    slop__cp_end(c, 0);
    c->cp_broken = 0;
    sub *s = NULL;
    if (!lookup(c, sub_id, "/", &s)) return c->code;
    slop__buf b = {0};
    checkpoint_head(&b, s);
    c->cp_head = slop__buf_take(&b);
    if (!c->cp_head || cp_push(c, s->m.root) != 0) {
        slop__cp_end(c, 0);
        slop__fail(c, SLOP_E_NOMEM, "out of memory");
        return c->code;
    }
    c->cp_open = 1;
    return SLOP_OK;
}

const char *slop_consumer_checkpoint_next(slop_consumer *c, size_t max_bytes, size_t *out_len) {
    if (!c) return NULL;
    slop__ok(c);
    if (!c->cp_open) {
        if (c->cp_broken) slop__fail(c, SLOP_E_STATE, "the mirror changed during the checkpoint: begin again");
        else if (c->cp_head) { /* the last part was given: an empty one says so */
            slop__cp_end(c, 0);
            return slop__give(c, slop__buf_take(&(slop__buf){0}), out_len);
        } else slop__fail(c, SLOP_E_STATE, "no checkpoint begun");
        return slop__give(c, NULL, out_len);
    }
    slop__buf b = {0};
    if (c->cp_head[0]) {
        slop__buf_puts(&b, c->cp_head);
        c->cp_head[0] = '\0'; /* printed; kept (empty) until the end */
    }
    /* Whole nodes only: a part ends between two nodes once it holds max_bytes. */
    for (int moved = 0; c->cp_depth && (!moved || b.len < max_bytes) && !b.oom; moved = 1) {
        cp_frame *f = &c->cp[c->cp_depth - 1];
        const slop__node *k;
        if (!f->in_kids) {
            slop__node_put(&b, f->n, 0, 0);
            if (!f->n->kids) {
                slop__buf_putc(&b, '}');
                c->cp_depth--;
                continue;
            }
            slop__buf_puts(&b, ",\"children\":[");
            f->in_kids = 1;
            k = slop__kids_first(f->n, &f->it);
        } else {
            k = slop__kids_next(&f->it);
            if (k) slop__buf_putc(&b, ',');
        }
        if (!k) {
            slop__buf_puts(&b, "]}");
            c->cp_depth--;
        } else if (cp_push(c, k) != 0) {
            b.oom = 1;
        }
    }
    if (!c->cp_depth) {
        slop__buf_putc(&b, '}'); /* the snapshot frame's */
        c->cp_open = 0;
    }
    char *text = slop__buf_take(&b);
    if (!text) {
        slop__cp_end(c, 0);
        slop__fail(c, SLOP_E_NOMEM, "out of memory");
    }
    return slop__give(c, text, out_len);
}

const char *slop_consumer_node(slop_consumer *c, const char *sub_id, const char *path, size_t *out_len) {
    if (!c) return NULL;
    slop__ok(c);
    sub *s = NULL;
    slop__node *n = lookup(c, sub_id, path, &s);
    if (!n) return slop__give(c, NULL, out_len);
    /* Printed straight from the mirror: the panel asks for a view of every node a patch touches. */
    slop__buf b = {0};
    slop__node_put(&b, n, 0, 0);
    char *rp = slop__node_path(n);
    if (!rp) b.oom = 1;
    slop__buf_puts(&b, ",\"path\":");
    slop__buf_put_path(&b, s->path, rp ? rp : "/");
    free(rp);
    slop__buf_puts(&b, ",\"child_ids\":[");
    slop__kid_iter it;
    int first = 1;
    for (slop__node *k = slop__kids_first(n, &it); k; k = slop__kids_next(&it), first = 0) {
        if (!first) slop__buf_putc(&b, ',');
        slop__buf_put_string(&b, k->id);
    }
    slop__buf_putc(&b, ']');
    cJSON *meta = slop__node_meta_if(n, "total_children");
    if (meta) { /* a windowed collection: how many more the provider has */
        cJSON *w = cJSON_CreateObject();
        slop__add_window(w, meta, (double)slop__node_child_count(n), 0, 0, 0);
        for (const cJSON *it2 = w ? w->child : NULL; it2; it2 = it2->next) {
            slop__buf_putc(&b, ',');
            slop__buf_put_string(&b, it2->string);
            slop__buf_putc(&b, ':');
            slop__buf_put_json(&b, it2);
        }
        cJSON_Delete(w);
        cJSON_Delete(meta);
    }
    slop__buf_putc(&b, '}');
    char *text = slop__buf_take(&b);
    if (!text) slop__fail(c, SLOP_E_NOMEM, "out of memory");
    return slop__give(c, text, out_len);
}

const char *slop_consumer_profile(slop_consumer *c, const char *sub_id, double since, size_t *out_len) {
    if (!c) return NULL;
    slop__ok(c);
    sub *s = NULL;
    if (!lookup(c, sub_id, NULL, &s)) return slop__give(c, NULL, out_len);
    uint32_t from = since >= 0 && since <= UINT32_MAX ? (uint32_t)since : 0; /* anything else: all texts */
    char *text = slop__mirror_profile(&s->m, s->path, s->handle, from);
    if (!text) slop__fail(c, SLOP_E_NOMEM, "out of memory");
    return slop__give(c, text, out_len);
}

const char *slop_consumer_tree_text(slop_consumer *c, const char *sub_id, size_t *out_len) {
    return slop_consumer_subtree_text(c, sub_id, NULL, -1, out_len);
}

const char *slop_consumer_subtree_text(slop_consumer *c, const char *sub_id, const char *path, int depth,
                                       size_t *out_len) {
    if (!c) return NULL;
    slop__ok(c);
    slop__node *n = lookup(c, sub_id, path, NULL);
    if (!n) return slop__give(c, NULL, out_len);
    char *text = slop__mirror_tree_text(n, depth);
    if (!text) slop__fail(c, SLOP_E_NOMEM, "out of memory");
    return slop__give(c, text, out_len);
}

/* The arguments of a tool list, as they name it: no prefix is "", and
 * max_len as the naming takes it. */
static unsigned tool_len_arg(unsigned max_len) {
    if (max_len == 0) return SLOP_TOOL_NAME_MAX_DEFAULT;
    return max_len < 16 ? 16 : max_len;
}

static int same_tool_args(const sub *s, const char *prefix, unsigned max_len, size_t max_tools) {
    return s->tools_prefix && strcmp(s->tools_prefix, prefix ? prefix : "") == 0 &&
           tool_len_arg(s->tools_max_len) == tool_len_arg(max_len) && s->tools_max_tools == max_tools;
}

const char *slop_consumer_tools(slop_consumer *c, const char *sub_id, const char *provider_prefix, unsigned max_len,
                                size_t max_tools, size_t *out_len) {
    if (!c) return NULL;
    slop__ok(c);
    sub *s = NULL;
    slop__node *root = lookup(c, sub_id, NULL, &s);
    if (!root) return slop__give(c, NULL, out_len);
    slop__buf b = {0};
    slop__tool_refs refs;
    size_t total;
    char *prefix = slop__strdup(provider_prefix ? provider_prefix : "");
    if (!prefix || slop__mirror_tools(root, s->path, provider_prefix, max_len, max_tools, &b, &refs, &total) != 0) {
        free(prefix);
        free(b.s);
        slop__fail(c, SLOP_E_NOMEM, "out of memory");
        return slop__give(c, NULL, out_len);
    }
    /* What was offered, for resolve_tool: this list replaces the last one. */
    slop__tool_refs_free(&s->tools);
    free(s->tools_prefix);
    s->tools = refs;
    s->tools_prefix = prefix;
    s->tools_max_len = max_len;
    s->tools_max_tools = max_tools;
    s->tools_stale = 0;
    char *text = slop__buf_take(&b);
    if (!text) slop__fail(c, SLOP_E_NOMEM, "out of memory");
    return slop__give(c, text, out_len);
}

/* {"path":P,"action":A} */
static const char *give_target(slop_consumer *c, const char *path, const char *action, size_t *out_len) {
    slop__buf b = {0};
    slop__buf_puts(&b, "{\"path\":");
    slop__buf_put_string(&b, path);
    slop__buf_puts(&b, ",\"action\":");
    slop__buf_put_string(&b, action);
    slop__buf_putc(&b, '}');
    char *text = slop__buf_take(&b);
    if (!text) slop__fail(c, SLOP_E_NOMEM, "out of memory");
    return slop__give(c, text, out_len);
}

const char *slop_consumer_resolve_tool(slop_consumer *c, const char *sub_id, const char *provider_prefix,
                                       unsigned max_len, size_t max_tools, const char *tool_name, size_t *out_len) {
    if (!c) return NULL;
    slop__ok(c);
    sub *s = NULL;
    slop__node *root = lookup(c, sub_id, NULL, &s);
    if (!root) return slop__give(c, NULL, out_len);
    const char *name = tool_name ? tool_name : "";
    const char *path, *action;
    int offered = same_tool_args(s, provider_prefix, max_len, max_tools);
    int was = offered && slop__tool_refs_find(&s->tools, name, &path, &action);
    if (offered && !s->tools_stale) {
        if (was) return give_target(c, path, action, out_len);
        slop__fail(c, SLOP_E_NOT_FOUND, "no tool named \"%.80s\"", name);
        return slop__give(c, NULL, out_len);
    }
    /* No list offered with these arguments, or the mirror changed since:
     * the list they give now. */
    slop__tool_refs now;
    size_t total;
    if (slop__mirror_tools(root, s->path, provider_prefix, max_len, max_tools, NULL, &now, &total) != 0) {
        slop__fail(c, SLOP_E_NOMEM, "out of memory");
        return slop__give(c, NULL, out_len);
    }
    const char *np, *na;
    int is = slop__tool_refs_find(&now, name, &np, &na);
    const char *r = NULL;
    if (was && !is)
        slop__fail(c, SLOP_E_STATE,
             "tool \"%.80s\" was offered for \"%.60s\" on %.120s; the state changed since and it is no longer "
             "offered: read the tools again",
             name, action, path);
    else if (was && (strcmp(np, path) != 0 || strcmp(na, action) != 0))
        /* Never a silent switch: the caller was offered another target. */
        slop__fail(c, SLOP_E_STATE,
             "tool \"%.80s\" was offered for \"%.60s\" on %.120s; the state changed since and it now names "
             "\"%.60s\" on %.120s: read the tools again",
             name, action, path, na, np);
    else if (!is)
        slop__fail(c, SLOP_E_NOT_FOUND, "no tool named \"%.80s\"", name);
    else
        r = give_target(c, np, na, out_len);
    slop__tool_refs_free(&now);
    return r ? r : slop__give(c, NULL, out_len);
}

const char *slop_consumer_last_error(const slop_consumer *c) { return c ? c->err : "no consumer"; }
slop_code slop_consumer_last_code(const slop_consumer *c) { return c ? c->code : SLOP_E_ARG; }

const char *slop_consumer_frame_type(const slop_consumer *c) { return c ? c->frame_type : ""; }

int slop_consumer_patch_records(slop_consumer *c, int on) {
    if (!c) return SLOP_E_ARG;
    c->patch_records = on != 0;
    return SLOP_OK;
}

/* ---------------------------------------------------------------------- */
/* Free-standing                                                            */
/* ---------------------------------------------------------------------- */

char *slop_render_state_tail(slop_consumer *const *consumers, size_t n, const char *generated_at, size_t max_bytes,
                             size_t *out_left) {
    if (out_left) *out_left = 0;
    slop__tail_source *src = calloc(n ? n : 1, sizeof *src);
    if (!src) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        slop_consumer *c = consumers[i];
        /* A disconnected provider must not appear as current state. */
        if (!c || !c->have_hello || c->closed) continue;
        cJSON *id = cJSON_GetObjectItemCaseSensitive(c->provider, "id");
        cJSON *name = cJSON_GetObjectItemCaseSensitive(c->provider, "name");
        src[k].id = id->valuestring;
        src[k].name = name->valuestring;
        for (size_t j = 0; j < c->nsubs; j++) { /* the primary subscription: the first with a mirror */
            if (!c->subs[j]->has_mirror) continue;
            src[k].root = c->subs[j]->m.root;
            src[k].nodes = c->subs[j]->m.nodes;
            break;
        }
        k++;
    }
    char *out = k ? slop__state_tail_mirror(src, k, generated_at ? generated_at : "", max_bytes, out_left) : NULL;
    free(src);
    return out;
}

void slop_free(void *p) { free(p); }

const char *slop_core_version(void) { return "0.1.0 (SLOP 0.1)"; }

/* ---------------------------------------------------------------------- */
/* Public: conformance                                                      */
/* ---------------------------------------------------------------------- */

/* Why the provider is not live, into why; NULL when it is: the hello taken
 * and every subscription mirroring it. */
static const char *not_live(const slop_consumer *c, char *why, size_t len) {
    if (c->document) return NULL;
    if (c->refused) return snprintf(why, len, "it does not declare the \"state\" capability: not a SLOP provider"), why;
    if (!c->have_hello) {
        snprintf(why, len, "%s%s", c->hello_refused[0] ? c->hello_refused : "no hello yet",
                 c->closed ? "; the connection is closed" : "");
        return why;
    }
    for (size_t i = 0; i < c->nsubs; i++) {
        const sub *s = c->subs[i];
        if (s->state == SLOP_SUB_LIVE) continue;
        snprintf(why, len, "subscription %s (%.100s) is %s: %.200s", s->handle, s->path, slop__sub_state_name(s->state),
                 s->reason[0] ? s->reason : "waiting for its snapshot");
        return why;
    }
    if (c->closed) return snprintf(why, len, "the connection is closed"), why;
    return NULL;
}

const char *slop_consumer_conformance(slop_consumer *c, size_t *out_len) {
    if (!c) return NULL;
    slop__ok(c);
    char why[400];
    slop__conformance trees = {0};
    size_t mirrors = 0, nodes = 0;
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(c->provider, "capabilities");
    for (size_t i = 0; i < c->nsubs; i++) {
        sub *s = c->subs[i];
        if (!s->has_mirror || s->state == SLOP_SUB_DOCUMENT) continue;
        mirrors++;
        nodes += s->m.nodes;
        slop__conf_check_mirror(&trees, &s->m, s->path, s->options, caps, s->last_version);
    }
    /* A task still missing once a request would have timed out. */
    for (size_t i = 0; i < c->ntasks; i++) {
        const task *t = &c->tasks[i];
        if (!t->seen && c->now - t->at >= (double)c->lim.request_timeout_ms)
            slop__conf_note(&trees, "task-node", NULL, -1, "task \"%.60s\" (invoke %s) never appeared as a node",
                            t->task_id, t->req_id);
    }
    char *report = slop__conf_report(&c->conf, &trees, mirrors, nodes, not_live(c, why, sizeof why));
    slop__conf_free(&trees);
    if (!report) slop__fail(c, SLOP_E_NOMEM, "out of memory");
    return slop__give(c, report, out_len);
}

const char *slop_consumer_check_drift(slop_consumer *c, const char *sub_id, double now_ms, size_t *out_len) {
    if (!c) return NULL;
    slop__ok(c);
    sub *s = slop__find_sub(c, sub_id);
    if (!s) {
        slop__fail(c, SLOP_E_NOT_FOUND, "no subscription \"%.60s\"", sub_id ? sub_id : "(null)");
        return slop__give(c, NULL, out_len);
    }
    if (!slop__can_request(c)) return slop__give(c, NULL, out_len);
    if (!s->has_mirror || s->state != SLOP_SUB_LIVE) {
        slop__fail(c, SLOP_E_STATE, "subscription %s is not live: nothing to compare", s->handle);
        return slop__give(c, NULL, out_len);
    }
    char *id = slop__new_id(c, 'd');
    if (!id) {
        slop__fail(c, SLOP_E_NOMEM, "out of memory");
        return slop__give(c, NULL, out_len);
    }
    slop__send_drift_query(c, s, id, 1, now_ms);
    return slop__give(c, id, out_len);
}
