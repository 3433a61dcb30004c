/*
 * consumer_documents.c: slop_consumer_load(): a tree from a file, held
 * read-only by a consumer made for transport "document".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"

/* ---------------------------------------------------------------------- */
/* Documents: a tree from a file, read-only                                 */
/* ---------------------------------------------------------------------- */

#define DOC_TEXT_MAX 200 /* bytes kept of a document's provider id, name, date */

/* A copy of member `key` of obj when it is a string, cut to DOC_TEXT_MAX
 * bytes on a character boundary; NULL otherwise. */
static cJSON *doc_string(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsString(v)) return NULL;
    size_t n = strlen(v->valuestring);
    if (n <= DOC_TEXT_MAX) return cJSON_CreateString(v->valuestring);
    size_t cut = slop__utf8_cut(v->valuestring, n, DOC_TEXT_MAX);
    char buf[DOC_TEXT_MAX + 1];
    memcpy(buf, v->valuestring, cut);
    buf[cut] = 0;
    return cJSON_CreateString(buf);
}

/* The document's provider as a hello would give it: the file's own
 * provider id and name when it names one, with every capability, so every
 * field the document carries is kept and shown. */
static cJSON *doc_provider(const cJSON *named, const char *fallback_name) {
    cJSON *p = cJSON_CreateObject();
    cJSON *id = doc_string(named, "id"), *name = doc_string(named, "name");
    cJSON_AddItemToObject(p, "id", id && id->valuestring[0] ? id : cJSON_CreateString("document"));
    if (id && !id->valuestring[0]) cJSON_Delete(id);
    cJSON_AddItemToObject(p, "name", name ? name : cJSON_CreateString(fallback_name));
    cJSON *caps = cJSON_AddArrayToObject(p, "capabilities");
    for (int k = 0; k < SLOP_CAP_COUNT; k++) cJSON_AddItemToArray(caps, cJSON_CreateString(slop__capability_name((slop_capability)k)));
    return p;
}

/* The document parsed under the consumer's limits; NULL after slop__fail(). */
static cJSON *doc_parse(slop_consumer *c, const char *doc, size_t len) {
    if (!doc || len == 0) {
        slop__fail(c, SLOP_E_ARG, "the document is empty");
        return NULL;
    }
    if (len > c->lim.max_frame_bytes) {
        slop__fail(c, SLOP_E_LIMIT, "the document has %zu bytes, more than the limit of %zu", len, c->lim.max_frame_bytes);
        return NULL;
    }
    slop__json_status st;
    const char *why = NULL;
    cJSON *j = slop__json_parse(doc, len, c->lim.max_json_depth, &st, NULL, &why);
    if (!j) {
        if (st == SLOP__JSON_TOO_DEEP) slop__fail(c, SLOP_E_ARG, "the document nests more than %u levels", c->lim.max_json_depth);
        else slop__fail(c, SLOP_E_ARG, "the document is not valid JSON (%s)", why ? why : "out of memory");
    }
    return j;
}

/* The document's one subscription, with its tree mirrored (taken from
 * tree as a snapshot's is); NULL after slop__fail(). */
static sub *doc_sub(slop_consumer *c, cJSON *tree, double version) {
    sub *s = calloc(1, sizeof *s);
    sub **ns = s ? realloc(c->subs, sizeof *ns) : NULL;
    if (!ns) {
        free(s);
        slop__fail(c, SLOP_E_NOMEM, "out of memory");
        return NULL;
    }
    c->subs = ns;
    c->capsubs = 1;
    s->wire = slop__new_id(c, 's');
    s->handle = slop__strdup(s->wire);
    s->path = slop__strdup("/");
    s->options = cJSON_CreateObject();
    cJSON_AddStringToObject(s->options, "path", "/");
    cJSON_AddNumberToObject(s->options, "depth", -1);
    slop__mirror_init(&s->m, &c->budget);
    char err[300];
    slop__mirror_status st = cJSON_IsObject(tree) ? slop__mirror_load(&s->m, tree, err, sizeof err) : SLOP__MIRROR_INVALID;
    if (st != SLOP__MIRROR_OK) {
        slop__fail(c, st == SLOP__MIRROR_TOO_MANY_NODES ? SLOP_E_LIMIT : st == SLOP__MIRROR_NOMEM ? SLOP_E_NOMEM : SLOP_E_ARG,
             "the tree was refused: %s", cJSON_IsObject(tree) ? err : "it is not a node object");
        slop__sub_free(s);
        return NULL;
    }
    c->subs[c->nsubs++] = s;
    s->has_mirror = s->wire_live = 1;
    s->snap_version = s->last_version = version;
    slop__set_state(s, SLOP_SUB_DOCUMENT, "document", "a read-only copy loaded from a file: nothing follows it");
    return s;
}

const char *slop_consumer_load(slop_consumer *c, const char *doc, size_t len, const char *name, double now_ms,
                               size_t *out_len) {
    (void)now_ms;
    if (!c) return NULL;
    slop__cp_end(c, 1);
    slop__ok(c);
    if (!c->document || c->nsubs > 0) {
        slop__fail(c, SLOP_E_STATE, c->document ? "this consumer already holds a document"
                                          : "only a consumer made for transport \"document\" loads documents");
        return slop__give(c, NULL, out_len);
    }
    cJSON *j = doc_parse(c, doc, len);
    if (!j) return slop__give(c, NULL, out_len);
    /* Accepted: this inspector's export {format, provider, version, tree,
     * exportedAt}, a snapshot message {type:"snapshot", version, tree}, or a
     * bare node. The shape only says where the tree is; the mirror judges it. */
    cJSON *tree = cJSON_GetObjectItemCaseSensitive(j, "tree");
    const cJSON *wrapper = cJSON_IsObject(j) && tree ? j : NULL;
    if (!wrapper) tree = j;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(wrapper, "type");
    const char *format = !wrapper ? "node" : cJSON_IsString(type) && slop__provider_message_of(type->valuestring) == SLOP_MSG_SNAPSHOT ? "snapshot" : "export";
    cJSON *ver = cJSON_GetObjectItemCaseSensitive(wrapper, "version");
    double version = slop__is_counter(ver) ? ver->valuedouble : 0;
    const cJSON *named = cJSON_GetObjectItemCaseSensitive(wrapper, "provider");
    sub *s = doc_sub(c, tree, version);
    if (!s) {
        cJSON_Delete(j);
        return slop__give(c, NULL, out_len);
    }

    c->have_hello = 1;
    c->caps = (1u << SLOP_CAP_COUNT) - 1;
    c->provider = doc_provider(cJSON_IsObject(named) ? named : NULL, name && name[0] ? name : "document");
    cJSON *e = slop__event(SLOP_EV_HELLO);
    cJSON_AddItemToObject(e, "provider", cJSON_Duplicate(c->provider, 1));
    slop__emit(c, e);
    slop__emit(c, slop__snapshot_event(s, version, 0));

    cJSON *info = cJSON_CreateObject();
    cJSON_AddStringToObject(info, "sub", s->handle);
    cJSON_AddStringToObject(info, "format", format);
    cJSON_AddNumberToObject(info, "version", version);
    cJSON_AddNumberToObject(info, "nodes", (double)s->m.nodes);
    cJSON_AddItemToObject(info, "provider", cJSON_Duplicate(c->provider, 1));
    cJSON_AddBoolToObject(info, "names_provider", cJSON_IsObject(named));
    cJSON *at = doc_string(wrapper, "exportedAt");
    cJSON_AddItemToObject(info, "exported_at", at ? at : cJSON_CreateNull());
    cJSON_Delete(j);
    return slop__give_json(c, info, out_len);
}
