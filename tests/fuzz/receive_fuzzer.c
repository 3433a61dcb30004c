/*
 * receive_fuzzer.c: libFuzzer target for slop_consumer_receive, the entry
 * point that takes provider bytes, plus the readers that walk the mirror.
 *
 * Input: frames separated by newlines. "$SUB" in a frame is replaced by the
 * subscription id the consumer chose (ids are random per consumer, so seeds
 * cannot spell them). A consumer is subscribed at "/" and at "/a" before the
 * first frame, and every frame is followed by a tick, so snapshots, patches,
 * gaps, resyncs, timeouts and scheduled retries all get exercised. A line
 * "#RESET" closes the connection and opens a new one (a provider restart or
 * another app may follow); "#RESYNC" is the user's Retry; "#DRIFT" starts a
 * drift check, whose request id "$DRF" spells; "#CPART" begins a checkpoint
 * in parts and takes one part, which the next frame must end. Every event
 * must be JSON the core's own strict scanner accepts, and so must the
 * conformance report; a checkpoint in parts must join to the one-shot text.
 * The agent view: the tree text and every tool read from the mirror equal
 * those of a document loaded from the tree the mirror prints; a tool list under a
 * budget (max_tools from the input) holds at most that many, every name
 * offered resolves to its target; a state tail under a budget is never
 * longer than it, its lines are the whole text's lines (or the one cut
 * line), and only the two real tags open and close the block.
 * Patch events come as JSON or, in half the runs, as records, whose every
 * string the header counts. All or nothing: every patch frame's ops are first applied to the mirror of
 * "/" with a failing op after them, and the rollback must leave the tree and
 * its agent text byte for byte as they were.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"
#include "internal.h"
#include "slop_core.h"

/* The frame's ops (if it is a patch), then an op that always fails, applied
 * straight to the mirror of subscription `handle`: a rollback of whatever
 * the ops did must give the mirror back byte for byte. The frame then goes
 * in as it came. */
static void check_rollback(slop_consumer *c, const char *handle, const char *frame, size_t len) {
    sub *s = slop__find_sub(c, handle);
    if (!s || !s->has_mirror || !s->m.root) return;
    cJSON *msg = slop__json_parse_exact(frame, len);
    cJSON *ops = cJSON_GetObjectItemCaseSensitive(msg, "ops");
    if (cJSON_IsArray(ops) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(msg, "type")) &&
        strcmp(cJSON_GetObjectItemCaseSensitive(msg, "type")->valuestring, "patch") == 0) {
        /* A result lives until the consumer's next call: each is copied at once. */
        const char *t = slop_consumer_tree(c, handle, "/", -1, NULL);
        char *tree = t ? strdup(t) : NULL;
        const char *x = slop_consumer_tree_text(c, handle, NULL);
        char *text = x ? strdup(x) : NULL;
        cJSON *fail = cJSON_CreateObject();
        cJSON_AddStringToObject(fail, "op", "no-such-op");
        cJSON_AddStringToObject(fail, "path", "/");
        cJSON_AddItemToArray(ops, fail);
        char err[256];
        if (tree && text && slop__mirror_apply(&s->m, ops, NULL, err, sizeof err) == SLOP__MIRROR_OK) __builtin_trap();
        t = slop_consumer_tree(c, handle, "/", -1, NULL);
        if (tree && text && (!t || strcmp(t, tree) != 0)) __builtin_trap();
        x = slop_consumer_tree_text(c, handle, NULL);
        if (tree && text && (!x || strcmp(x, text) != 0)) __builtin_trap();
        free(tree);
        free(text);
    }
    cJSON_Delete(msg);
}

/* The tree text and all tools of a subscription, read from its mirror (built
 * from snapshot text and patches, fields kept raw until read), equal those of
 * a document loaded from the tree it prints (a mirror built from parsed
 * values); tools only at "/", where the document's paths are the same. A
 * budget offers at most max_tools, and every offered name resolves to its
 * target. */
static void check_agent_view(slop_consumer *c, const char *sub, const char *root, size_t max_tools) {
    const char *tj = slop_consumer_tree(c, sub, root, -1, NULL);
    if (!tj) {
        if (slop_consumer_tree_text(c, sub, NULL) || slop_consumer_tools(c, sub, NULL, 0, 0, NULL)) __builtin_trap();
        return;
    }
    size_t tl = strlen(tj);
    char *doc = malloc(tl + 64);
    int dl = doc ? snprintf(doc, tl + 64, "{\"type\":\"snapshot\",\"version\":0,\"tree\":%s}", tj) : 0;
    slop_limits dlim = {(size_t)1 << 26, 1000, 5000, 1000, 64}; /* the tree, however it grew */
    slop_consumer *d = doc ? slop_consumer_new(&dlim, "document", 1) : NULL;
    cJSON *info = d ? cJSON_Parse(slop_consumer_load(d, doc, (size_t)dl, NULL, 0, NULL)) : NULL;
    free(doc);
    const char *dsub = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "sub"));
    if (dsub) {
        const char *mt = slop_consumer_tree_text(c, sub, NULL), *dt = slop_consumer_tree_text(d, dsub, NULL);
        if (!mt || !dt || strcmp(mt, dt) != 0) __builtin_trap();
        if (strcmp(root, "/") == 0) {
            const char *mtools = slop_consumer_tools(c, sub, "fz", 40, 0, NULL);
            const char *dtools = slop_consumer_tools(d, dsub, "fz", 40, 0, NULL);
            if (!mtools || !dtools || strcmp(mtools, dtools) != 0) __builtin_trap();
        }
    }
    cJSON_Delete(info);
    slop_consumer_free(d);
    size_t n = 0;
    const char *cut = slop_consumer_tools(c, sub, "fz", 24, max_tools, &n);
    cJSON *set = cut ? cJSON_Parse(cut) : NULL;
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(set, "tools"), *resolve = cJSON_GetObjectItemCaseSensitive(set, "resolve");
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(set, "total"), *t;
    int count = cJSON_GetArraySize(tools);
    if (!cJSON_IsNumber(total) || (double)count > total->valuedouble || (max_tools && (size_t)count > max_tools) ||
        (!max_tools && (double)count != total->valuedouble) ||
        (max_tools && (double)count != (total->valuedouble < (double)max_tools ? total->valuedouble : (double)max_tools)) ||
        cJSON_GetArraySize(resolve) != count)
        __builtin_trap();
    cJSON_ArrayForEach(t, tools) {
        const char *name = cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring;
        if (strlen(name) > 24) __builtin_trap();
        char *want = slop__json_print(cJSON_GetObjectItemCaseSensitive(resolve, name));
        const char *got = slop_consumer_resolve_tool(c, sub, "fz", 24, max_tools, name, NULL);
        if (!want || !got || strcmp(want, got) != 0) __builtin_trap();
        free(want);
    }
    cJSON_Delete(set);
}

/* The provider's name and id are at most 100 bytes (a tail under a budget
 * cuts them there). */
static int short_names(slop_consumer *c) {
    cJSON *st = cJSON_Parse(slop_consumer_status(c, NULL));
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(st, "provider");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name"), *id = cJSON_GetObjectItemCaseSensitive(p, "id");
    int ok = cJSON_IsString(name) && cJSON_IsString(id) && strlen(name->valuestring) <= 100 &&
             strlen(id->valuestring) <= 100;
    cJSON_Delete(st);
    return ok;
}

/* Every line of cut (a tail under a budget) is a line of whole, or the cut
 * line; one opening and one closing tag. */
static void check_tail(const char *cut, size_t max_bytes, const char *whole) {
    size_t n = strlen(cut);
    if (n > (max_bytes < 512 ? 512 : max_bytes)) __builtin_trap();
    if (strncmp(cut, "<slop-state ", 12) != 0 || n < 13 || strcmp(cut + n - 13, "</slop-state>") != 0) __builtin_trap();
    if (strstr(cut + 1, "<slop-state") || strstr(cut, "</slop-state") != cut + n - 13) __builtin_trap();
    for (const char *p = strchr(cut, '\n') + 1; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int found = (len > 18 && memcmp(p + len - 18, "budget is used up)", 18) == 0) /* the cut line */
                    || strncmp(p, "### ", 4) == 0; /* a heading: its name and id may be cut */
        for (const char *q = whole; !found && (q = strstr(q, "\n")) != NULL; q++)
            found = strncmp(q + 1, p, len) == 0 && (q[1 + len] == '\n' || q[1 + len] == '\0');
        if (!found && len == 0) found = 1;
        if (!found) __builtin_trap();
        p = e ? e + 1 : NULL;
    }
}

/* Text the core's own strict parse accepts whole (nesting up to 200). */
static int strict_json(const char *s, size_t n) {
    slop__json_status st;
    cJSON *v = slop__json_parse(s, n, 200, &st, NULL, NULL);
    cJSON_Delete(v);
    return v != NULL;
}

/* A patch record (slop_consumer_patch_records) is what its header says: a
 * counter for version, then exactly the strings it counts, each ended by a
 * NUL, valid UTF-8, an index in decimal digits, paths absolute. */
static void check_record(const char *out, size_t n) {
    struct { double version; uint32_t n[6]; } head;
    if (!out || n < sizeof head + 1 || out[n - 1] != '\0') __builtin_trap();
    memcpy(&head, out, sizeof head);
    if (!(head.version >= 0 && head.version <= 9007199254740992.0) || head.version != (double)(long long)head.version)
        __builtin_trap();
    if (head.n[5] > 1 || head.n[1] + head.n[2] + head.n[3] + head.n[4] > 2048) __builtin_trap();
    size_t want = 1 + (size_t)head.n[1] + head.n[2] + head.n[3] + 4 * (size_t)head.n[4], got = 0;
    for (size_t at = sizeof head; at < n; got++) {
        size_t len = strlen(out + at);
        if (at + len >= n) __builtin_trap();
        for (size_t i = 0; i < len;) {
            size_t u = slop__utf8_len((const unsigned char *)out + at + i, len - i);
            if (!u) __builtin_trap();
            i += u;
        }
        size_t first_path = 1, kids_at = 1 + (size_t)head.n[1] + head.n[2] + head.n[3];
        if (got >= first_path && got < kids_at && out[at] != '/') __builtin_trap();
        if (got >= kids_at) {
            size_t which = (got - kids_at) % 4;
            if (which == 0 && strcmp(out + at, "insert") != 0 && strcmp(out + at, "remove") != 0) __builtin_trap();
            if (which == 1 && out[at] != '/') __builtin_trap();
            if (which == 2 && (!len || strspn(out + at, "0123456789") != len)) __builtin_trap();
        }
        at += len + 1;
    }
    if (got != want) __builtin_trap();
}

static void drain(slop_consumer *c) {
    const char *out;
    size_t n;
    slop_output_kind kind;
    while ((kind = slop_consumer_next(c, &out, &n)) != SLOP_OUT_NONE) {
        if (kind == SLOP_OUT_PATCH) {
            check_record(out, n);
            continue;
        }
        if (!out || strlen(out) != n) __builtin_trap(); /* every other output is NUL-terminated text */
        if (!strict_json(out, n)) __builtin_trap(); /* no inf, no lost bytes, no duplicate names */
    }
}

/* The profile agrees with the mirror: its rows' texts joined are the tree
 * text, the root's bytes are the tree printed, a subtree's counters hold its
 * node's, and no counter passes the subscription's. */
static void check_profile(slop_consumer *c, const char *sub) {
    const char *pj = slop_consumer_profile(c, sub, 0, NULL);
    if (!pj) {
        if (slop_consumer_tree_text(c, sub, NULL)) __builtin_trap();
        return;
    }
    cJSON *p = cJSON_Parse(pj);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(p, "rows"), *r;
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(p, "traffic");
    if (!cJSON_IsArray(rows) || cJSON_GetArraySize(total) != 4) __builtin_trap();
    char *tt = strdup(slop_consumer_tree_text(c, sub, NULL));
    const char *tree = slop_consumer_tree(c, sub, NULL, -1, NULL);
    size_t at = 0, tl = tt ? strlen(tt) : 0;
    cJSON_ArrayForEach(r, rows) {
        const char *text = cJSON_GetStringValue(cJSON_GetArrayItem(r, 13));
        size_t n = text ? strlen(text) : 0;
        if (!text || at + n > tl || memcmp(tt + at, text, n) != 0) __builtin_trap();
        at += n;
        if (r->next && (at >= tl || tt[at++] != '\n')) __builtin_trap();
        const cJSON *self = cJSON_GetArrayItem(r, 11), *below = cJSON_GetArrayItem(r, 12);
        for (int i = 0; i < 4; i++) {
            double a = cJSON_GetArrayItem(self, i)->valuedouble, b = cJSON_GetArrayItem(below, i)->valuedouble;
            if (a > b || b > cJSON_GetArrayItem(total, i)->valuedouble) __builtin_trap();
        }
        if (cJSON_GetArrayItem(r, 4)->valuedouble > cJSON_GetArrayItem(r, 5)->valuedouble) __builtin_trap();
    }
    if (at != tl) __builtin_trap();
    if (tree && (double)strlen(tree) != cJSON_GetArrayItem(cJSON_GetArrayItem(rows, 0), 5)->valuedouble) __builtin_trap();
    free(tt);
    cJSON_Delete(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    slop_limits lim = {1 << 20, 64, 5000, 1000, 64};
    slop_consumer *c = slop_consumer_new(&lim, (size & 1) ? "postmessage" : (size & 2) ? "unix" : "ws", 1234);
    if (!c) return 0;
    if (size & 4) slop_consumer_patch_records(c, 1); /* patch events as records (drain checks them) */
    char sub[64], sub2[64], drf[64] = "none";
    snprintf(sub, sizeof sub, "%s", slop_consumer_subscribe(c, "{\"path\":\"/\"}", 12, 0, NULL));
    snprintf(sub2, sizeof sub2, "%s", slop_consumer_subscribe(c, "{\"path\":\"/a\",\"depth\":2}", 24, 0, NULL));
    drain(c);

    int cpart_open = 0;
    char *frame = malloc(size * 8 + 1);
    const char *p = (const char *)data, *end = p + size;
    double now = 0;
    while (p < end && frame) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (len == 6 && memcmp(p, "#DRIFT", 6) == 0) {
            const char *d = slop_consumer_check_drift(c, sub, now, NULL);
            snprintf(drf, sizeof drf, "%s", d ? d : "none");
            drain(c);
            p += len + 1;
            continue;
        }
        if (len == 6 && memcmp(p, "#CPART", 6) == 0) {
            if (slop_consumer_checkpoint_begin(c, sub) == SLOP_OK) {
                slop_consumer_checkpoint_next(c, 16, NULL);
                cpart_open = 1;
            }
            p += len + 1;
            continue;
        }
        if (len == 5 && memcmp(p, "#LONG", 5) == 0) {
            /* A stream transport's line dropped unread for its size: reported, nothing changes. */
            char *before = strdup(slop_consumer_tree_text(c, sub, NULL) ? slop_consumer_tree_text(c, sub, NULL) : "");
            slop_consumer_receive_oversize(c, (size_t)(1 << 20) + size, now);
            drain(c);
            const char *after = slop_consumer_tree_text(c, sub, NULL);
            if (before && strcmp(before, after ? after : "") != 0) __builtin_trap();
            free(before);
            p += len + 1;
            continue;
        }
        if ((len == 6 && memcmp(p, "#RESET", 6) == 0) || (len == 7 && memcmp(p, "#RESYNC", 7) == 0)) {
            if (len == 6) {
                slop_consumer_close(c, now);
                drain(c);
                slop_consumer_reset(c, now);
            } else {
                slop_consumer_resync(c, sub, now);
            }
            drain(c);
            p += len + 1;
            continue;
        }
        size_t o = 0;
        for (size_t i = 0; i < len; i++) {
            if (i + 4 <= len && (memcmp(p + i, "$SUB", 4) == 0 || memcmp(p + i, "$DRF", 4) == 0)) {
                const char *id = p[i + 1] == 'S' ? sub : drf;
                size_t sl = strlen(id);
                memcpy(frame + o, id, sl);
                o += sl;
                i += 3;
            } else {
                frame[o++] = p[i];
            }
        }
        check_rollback(c, sub, frame, o);
        slop_consumer_receive(c, frame, o, now);
        /* A frame ends a checkpoint walk: its next part is refused, never printed from a changed tree. */
        if (cpart_open && slop_consumer_checkpoint_next(c, 16, NULL) != NULL) __builtin_trap();
        cpart_open = 0;
        drain(c);
        now += 1700; /* requests time out (1 s) and given-up subscriptions retry (5 s) */
        slop_consumer_tick(c, now);
        drain(c);
        p += len + 1;
    }
    free(frame);

    /* The readers must cope with whatever state the frames left. */
    slop_consumer_status(c, NULL);
    slop_consumer_tree(c, sub, "/", -1, NULL);
    slop_consumer_node(c, sub, "/", NULL);
    slop_consumer_tree_text(c, sub, NULL);
    check_agent_view(c, sub, "/", size % 7);
    check_agent_view(c, sub2, "/a", 1 + size % 3);
    check_profile(c, sub);
    check_profile(c, sub2);
    {
        size_t n = 0;
        const char *report = slop_consumer_conformance(c, &n);
        if (!report || strlen(report) != n || !strict_json(report, n)) __builtin_trap();
    }
    {
        /* The checkpoint in parts joins to the one-shot checkpoint, whatever the part size. */
        const char *one = slop_consumer_checkpoint(c, sub, NULL);
        char *whole = one ? strdup(one) : NULL;
        int rc = slop_consumer_checkpoint_begin(c, sub);
        if ((rc == SLOP_OK) != (one != NULL)) __builtin_trap();
        if (rc == SLOP_OK && whole) {
            size_t wl = strlen(whole), at = 0, n = 0;
            const char *part;
            while ((part = slop_consumer_checkpoint_next(c, size % 193, &n)) && n) {
                if (at + n > wl || memcmp(whole + at, part, n) != 0) __builtin_trap();
                at += n;
            }
            if (!part || at != wl) __builtin_trap();
        }
        free(whole);
    }
    slop_consumer_resolve_tool(c, sub, NULL, 0, 0, "a__b", NULL);
    slop_consumer_resolve_tool(c, sub, "fz", 24, 2, "fz__a__b", NULL);
    slop_consumer_tree(c, sub2, "/a", 1, NULL);
    slop_consumer_invoke(c, "/a", "go", "{}", 2, now, NULL);
    slop_consumer *all[1] = {c};
    {
        size_t left = 0, cut_left = 0;
        char *whole = slop_render_state_tail(all, 1, "now", 0, &left);
        if (left) __builtin_trap();
        /* 0 would mean no limit (the whole text): the budgets start at 1 */
        size_t budgets[2] = {1 + size % 1200, 512 + size % 4096};
        for (int i = 0; i < 2 && whole; i++) {
            char *cut = slop_render_state_tail(all, 1, "now", budgets[i], &cut_left);
            if (!cut) __builtin_trap();
            check_tail(cut, budgets[i], whole);
            /* What fits is the whole text (unless a heading's name or id was cut). */
            if (strlen(whole) <= (budgets[i] < 512 ? 512 : budgets[i]) && short_names(c) &&
                (cut_left || strcmp(cut, whole) != 0))
                __builtin_trap();
            free(cut);
        }
        free(whole);
    }
    slop_consumer_close(c, now);
    drain(c);
    slop_consumer_reset(c, now);
    drain(c);
    slop_consumer_free(c);
    return 0;
}
