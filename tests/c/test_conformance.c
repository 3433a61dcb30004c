/*
 * test_conformance.c: slop_consumer_conformance(). A provider that follows
 * the spec yields no finding; one that breaks one rule, once, yields exactly
 * that rule's finding (two rules that cannot be broken apart say so).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "consumer_harness.h"

/* The rule ids of the findings, sorted, comma-separated ("" for none). */
static char found_buf[2048];
static const char *found(slop_consumer *c) {
    cJSON *r = cJSON_Parse(slop_consumer_conformance(c, NULL));
    const char *ids[128];
    int n = 0;
    cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(r, "findings")) {
        const char *id = str(f, "rule");
        int dup = 0;
        for (int i = 0; i < n; i++) dup |= strcmp(ids[i], id) == 0;
        if (!dup && n < 128) ids[n++] = id;
    }
    for (int i = 1; i < n; i++) /* insertion sort: a handful */
        for (int j = i; j > 0 && strcmp(ids[j - 1], ids[j]) > 0; j--) {
            const char *t = ids[j];
            ids[j] = ids[j - 1];
            ids[j - 1] = t;
        }
    found_buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i) strcat(found_buf, ",");
        strncat(found_buf, ids[i], sizeof found_buf - strlen(found_buf) - 2);
    }
    cJSON_Delete(r);
    return found_buf;
}

/* The first finding of a rule, parsed (caller deletes the returned root). */
static cJSON *finding(slop_consumer *c, const char *rule, cJSON **root) {
    *root = cJSON_Parse(slop_consumer_conformance(c, NULL));
    cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(*root, "findings")) {
        if (strcmp(str(f, "rule"), rule) == 0) return f;
    }
    return NULL;
}

static const char *HELLO_NO_EXTRAS =
    "{\"type\":\"hello\",\"provider\":{\"id\":\"app\",\"name\":\"App\",\"slop_version\":\"0.1\","
    "\"capabilities\":[\"state\",\"patches\",\"affordances\"]}}";

/* Subscribes with opts (JSON), then hello and a snapshot of tree (v1, seq 0). */
static void begin(live *l, const char *hello, const char *opts, const char *tree) {
    memset(l, 0, sizeof *l);
    slop_limits lim = {0};
    lim.request_timeout_ms = 5000;
    l->c = slop_consumer_new(&lim, "ws", 42);
    const char *id = slop_consumer_subscribe(l->c, opts, strlen(opts), 0, NULL);
    snprintf(l->sub, sizeof l->sub, "%s", id);
    snprintf(l->wire, sizeof l->wire, "%s", id);
    feed(l->c, hello, &l->o);
    if (tree) snapshot(l, "1", "0", tree);
}

/* A one-node tree with `extra` members after id and type. */
static char tree_buf[2048];
static const char *one(const char *extra) {
    snprintf(tree_buf, sizeof tree_buf,
             "{\"id\":\"root\",\"type\":\"root\",\"children\":[{\"id\":\"n\",\"type\":\"item\"%s%s}]}",
             extra[0] ? "," : "", extra);
    return tree_buf;
}

static char *invoke_n(live *l) {
    const char *id = slop_consumer_invoke(l->c, "/todos/t1", "toggle", NULL, 0, 1000, NULL);
    char *copy = strdup(id);
    drain(l->c, &l->o);
    return copy;
}

static void result(live *l, const char *id, const char *rest) {
    char f[600];
    snprintf(f, sizeof f, "{\"type\":\"result\",\"id\":\"%s\"%s}", id, rest);
    feed(l->c, f, &l->o);
}

/* ---- a provider that follows the spec ------------------------------------ */

TEST(a_conforming_provider_has_no_finding_and_the_report_lists_every_rule) {
    live l;
    begin(&l, HELLO_ALL, "{\"path\":\"/\",\"depth\":-1}", TODOS);
    patch(&l, 2, 1, "[{\"op\":\"replace\",\"path\":\"/todos/t1/properties/done\",\"value\":true}]");
    patch(&l, 3, 2, "[{\"op\":\"add\",\"path\":\"/todos/t3\",\"value\":{\"id\":\"t3\",\"type\":\"item\","
                    "\"meta\":{\"salience\":0.5,\"urgency\":\"high\"}}}]");
    char *a = invoke_n(&l);
    result(&l, a, ",\"status\":\"ok\",\"data\":{\"done\":true}");
    char *b = invoke_n(&l);
    result(&l, b, ",\"status\":\"error\",\"error\":{\"code\":\"conflict\",\"message\":\"gone\"}");
    char *d = invoke_n(&l);
    result(&l, d, ",\"status\":\"accepted\",\"data\":{\"taskId\":\"task-1\"}");
    patch(&l, 4, 3, "[{\"op\":\"add\",\"path\":\"/tasks\",\"value\":{\"id\":\"tasks\",\"type\":\"collection\","
                    "\"children\":[{\"id\":\"task-1\",\"type\":\"status\",\"properties\":{\"status\":\"running\"}}]}}]");
    slop_consumer_tick(l.c, 1000 + 60000);
    feed(l.c, "{\"type\":\"error\",\"error\":{\"code\":\"bad_request\",\"message\":\"no\"}}", &l.o);
    CHECK_STR(found(l.c), "");
    cJSON *r = cJSON_Parse(slop_consumer_conformance(l.c, NULL));
    CHECK(cJSON_GetObjectItem(r, "frames")->valuedouble == 9); /* hello, snapshot, 3 patches, 3 results, error */
    CHECK(cJSON_GetObjectItem(r, "mirrors")->valuedouble == 1);
    CHECK(cJSON_GetObjectItem(r, "nodes")->valuedouble == 7);
    CHECK(cJSON_GetObjectItem(r, "must")->valuedouble == 0);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(r, "rules")) == 41);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r, "live")));
    CHECK(cJSON_GetObjectItem(r, "not_live") == NULL);
    cJSON *rule = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "rules"), 0);
    CHECK(str(rule, "id") && str(rule, "severity") && str(rule, "spec") && str(rule, "text") && str(rule, "checked"));
    cJSON_Delete(r);
    free(a);
    free(b);
    free(d);
    stop(&l);
}

/* ---- frame rules --------------------------------------------------------- */

TEST(frames_that_are_not_messages) {
    live l;
    begin(&l, HELLO_ALL, "{}", TODOS);
    feed(l.c, "{not json", &l.o);
    CHECK_STR(found(l.c), "json");
    stop(&l);
    /* A frame of any bytes: the report still carries valid UTF-8 (U+FFFD for the rest). */
    begin(&l, HELLO_ALL, "{}", TODOS);
    feed(l.c, "{\"type\":\"x\xff\xc3\"}", &l.o);
    CHECK_STR(found(l.c), "json");
    cJSON *root;
    cJSON *f = finding(l.c, "json", &root);
    CHECK_STR(f ? str(f, "frame") : NULL, "{\"type\":\"x\xef\xbf\xbd\xef\xbf\xbd\"}");
    cJSON_Delete(root);
    stop(&l);
    begin(&l, HELLO_ALL, "{}", TODOS);
    feed(l.c, "{\"type\":5}", &l.o);
    CHECK_STR(found(l.c), "message-shape");
    stop(&l);
    begin(&l, HELLO_ALL, "{}", TODOS);
    feed(l.c, "{\"type\":\"gossip\"}", &l.o);
    CHECK_STR(found(l.c), "message-type");
    stop(&l);
}

TEST(the_finding_keeps_the_first_frame_cut_and_counts_the_rest) {
    live l;
    begin(&l, HELLO_ALL, "{}", TODOS);
    char big[1200];
    memset(big, 'x', sizeof big);
    memcpy(big, "{\"type\":\"gossip\",\"pad\":\"", 24);
    memcpy(big + sizeof big - 3, "\"}", 3);
    feed(l.c, big, &l.o);
    feed(l.c, "{\"type\":\"gossip\"}", &l.o);
    cJSON *root;
    cJSON *f = finding(l.c, "message-type", &root);
    CHECK(f && cJSON_GetObjectItem(f, "count")->valuedouble == 2);
    CHECK(f && strlen(str(f, "frame")) == 400 && strncmp(str(f, "frame"), "{\"type\":\"gossip\",\"pad\"", 20) == 0);
    CHECK_STR(str(f, "severity"), "SHOULD");
    CHECK_STR(str(f, "seen"), "frame");
    CHECK_CONTAINS(str(f, "detail"), "unknown message type \"gossip\"");
    cJSON_Delete(root);
    stop(&l);
}

TEST(hello_rules) {
    live l;
    begin(&l, "{\"type\":\"hello\",\"provider\":{\"id\":\"app\",\"name\":\"App\",\"capabilities\":[\"state\"]}}", "{}",
          NULL);
    CHECK_STR(found(l.c), "hello-fields");
    stop(&l);
    begin(&l, "{\"type\":\"hello\",\"provider\":{\"id\":\"app\",\"slop_version\":\"0.1\",\"capabilities\":[\"state\"]}}",
          "{}", NULL);
    CHECK_STR(found(l.c), "hello-fields");
    stop(&l);
    begin(&l, "{\"type\":\"hello\",\"provider\":{\"name\":\"App\",\"slop_version\":\"0.1\",\"capabilities\":[\"state\"]}}",
          "{}", NULL);
    CHECK_STR(found(l.c), "hello-fields");
    stop(&l);
    begin(&l,
          "{\"type\":\"hello\",\"provider\":{\"id\":\"app\",\"name\":\"App\",\"slop_version\":\"0.1\","
          "\"capabilities\":[\"patches\"]}}",
          "{}", NULL);
    CHECK_STR(found(l.c), "hello-state");
    stop(&l);
    begin(&l,
          "{\"type\":\"hello\",\"provider\":{\"id\":\"app\",\"name\":\"App\",\"slop_version\":\"0.2\","
          "\"capabilities\":[\"state\"]}}",
          "{}", NULL);
    CHECK_STR(found(l.c), "slop-version");
    stop(&l);
}

TEST(capabilities_against_behaviour) {
    live l;
    begin(&l,
          "{\"type\":\"hello\",\"provider\":{\"id\":\"app\",\"name\":\"App\",\"slop_version\":\"0.1\","
          "\"capabilities\":[\"state\",\"affordances\"]}}",
          "{}", TODOS);
    patch(&l, 2, 1, "[{\"op\":\"replace\",\"path\":\"/todos/t1/properties/done\",\"value\":true}]");
    CHECK_STR(found(l.c), "capability-patches");
    stop(&l);

    begin(&l, HELLO_NO_EXTRAS, "{}", TODOS);
    char *a = invoke_n(&l);
    result(&l, a, ",\"status\":\"accepted\",\"data\":{\"taskId\":\"t-1\"}");
    CHECK_STR(found(l.c), "capability-async");
    free(a);
    stop(&l);

    begin(&l, HELLO_NO_EXTRAS, "{}",
          one("\"meta\":{\"total_children\":5,\"window\":[0,1]},\"children\":[{\"id\":\"k\",\"type\":\"item\"}]"));
    CHECK_STR(found(l.c), "capability-windowing");
    stop(&l);

    begin(&l, HELLO_NO_EXTRAS, "{}", one("\"content_ref\":{\"type\":\"text\",\"uri\":\"slop://content/n\"}"));
    CHECK_STR(found(l.c), "capability-content-refs");
    stop(&l);
}

static const char *HELLO_STATE_PATCHES =
    "{\"type\":\"hello\",\"provider\":{\"id\":\"app\",\"name\":\"App\",\"slop_version\":\"0.1\","
    "\"capabilities\":[\"state\",\"patches\"]}}";

/* How many findings of a rule the report holds, and the first one's count. */
static int findings_of(slop_consumer *c, const char *rule, double *count) {
    cJSON *r = cJSON_Parse(slop_consumer_conformance(c, NULL));
    int n = 0;
    cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(r, "findings")) {
        if (strcmp(str(f, "rule"), rule) != 0) continue;
        if (n++ == 0 && count) *count = cJSON_GetObjectItem(f, "count")->valuedouble;
    }
    cJSON_Delete(r);
    return n;
}

TEST(affordances_and_attention_need_their_capability) {
    live l;
    /* Affordances (even an empty list) without "affordances": MUST NOT, says the capabilities table. */
    begin(&l, HELLO_STATE_PATCHES, "{}", one("\"affordances\":[{\"action\":\"open\"}]"));
    CHECK_STR(found(l.c), "capability-affordances");
    cJSON *root;
    cJSON *f = finding(l.c, "capability-affordances", &root);
    CHECK_STR(f ? str(f, "severity") : NULL, "MUST");
    CHECK_STR(f ? str(f, "path") : NULL, "/n");
    CHECK_CONTAINS(f ? str(f, "detail") : NULL, "affordances without the \"affordances\" capability");
    cJSON_Delete(root);
    stop(&l);
    begin(&l, HELLO_STATE_PATCHES, "{}", one("\"affordances\":[]"));
    CHECK_STR(found(l.c), "capability-affordances");
    stop(&l);

    /* Each attention hint the spec names, alone, without "attention". */
    const char *hints[] = {"\"salience\":0.5", "\"urgency\":\"high\"", "\"pinned\":true", "\"focus\":true",
                           "\"changed\":true"};
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        char extra[80];
        snprintf(extra, sizeof extra, "\"meta\":{%s}", hints[i]);
        begin(&l, HELLO_NO_EXTRAS, "{}", one(extra));
        CHECK_STR(found(l.c), "capability-attention");
        stop(&l);
    }
    /* Other meta (summary, total_children) is not attention. */
    begin(&l, HELLO_NO_EXTRAS, "{}", one("\"meta\":{\"summary\":\"s\",\"total_children\":0}"));
    CHECK_STR(found(l.c), "");
    stop(&l);

    /* Declared: nothing. */
    begin(&l, HELLO_ALL, "{}", one("\"meta\":{\"salience\":0.5},\"affordances\":[{\"action\":\"open\"}]"));
    CHECK_STR(found(l.c), "");
    stop(&l);

    /* Many nodes break each rule: one finding per subscription, at the first node, counting all. */
    begin(&l, HELLO_STATE_PATCHES, "{}",
          "{\"id\":\"root\",\"type\":\"root\",\"meta\":{\"salience\":1},\"children\":["
          "{\"id\":\"a\",\"type\":\"item\",\"meta\":{\"urgency\":\"low\"},\"affordances\":[{\"action\":\"x\"}]},"
          "{\"id\":\"b\",\"type\":\"item\",\"meta\":{\"salience\":0.2},\"affordances\":[{\"action\":\"x\"}]},"
          "{\"id\":\"c\",\"type\":\"item\",\"affordances\":[{\"action\":\"x\"}]}]}");
    CHECK_STR(found(l.c), "capability-affordances,capability-attention");
    double count = 0;
    CHECK(findings_of(l.c, "capability-affordances", &count) == 1 && count == 3);
    CHECK(findings_of(l.c, "capability-attention", &count) == 1 && count == 3);
    f = finding(l.c, "capability-attention", &root);
    CHECK_STR(f ? str(f, "path") : NULL, "/");
    CHECK_CONTAINS(f ? str(f, "detail") : NULL, "meta.salience without the \"attention\" capability");
    cJSON_Delete(root);
    /* The report is judged afresh each time: asking twice does not double the count. */
    CHECK(findings_of(l.c, "capability-affordances", &count) == 1 && count == 3);
    stop(&l);
}

TEST(ordering_seq_and_version_rules) {
    live l;
    begin(&l, HELLO_ALL, "{}", NULL);
    patch(&l, 2, 1, "[]");
    snapshot(&l, "1", "0", TODOS);
    CHECK_STR(found(l.c), "snapshot-first");
    stop(&l);

    begin(&l, HELLO_ALL, "{}", NULL);
    snapshot(&l, "1", "3", TODOS);
    CHECK_STR(found(l.c), "seq-snapshot");
    stop(&l);

    begin(&l, HELLO_ALL, "{}", NULL);
    snapshot(&l, "1", NULL, TODOS);
    CHECK_STR(found(l.c), "seq-present");
    stop(&l);

    begin(&l, HELLO_ALL, "{}", TODOS);
    patch(&l, 2, 1, "[]");
    patch(&l, 3, 3, "[]");
    CHECK_STR(found(l.c), "seq-order");
    stop(&l);

    begin(&l, HELLO_ALL, "{}", TODOS);
    patch(&l, 2, 1, "[]");
    patch(&l, 2, 1, "[]");
    CHECK_STR(found(l.c), "seq-order");
    stop(&l);

    begin(&l, HELLO_ALL, "{}", TODOS);
    patch(&l, 0, 1, "[]");
    CHECK_STR(found(l.c), "version-order");
    stop(&l);

    /* Only a patch without seq is judged by its version against the
     * snapshot's: seq-present always comes with patch-newer. */
    begin(&l, HELLO_ALL, "{}", TODOS);
    patch(&l, 1, -1, "[]");
    CHECK_STR(found(l.c), "patch-newer,seq-present");
    stop(&l);
}

TEST(a_query_answer_with_seq) {
    live l;
    begin(&l, HELLO_ALL, "{}", TODOS);
    const char *qid = slop_consumer_query(l.c, "{\"path\":\"/todos\"}", 17, 1000, NULL);
    char q[64];
    snprintf(q, sizeof q, "%s", qid);
    drain(l.c, &l.o);
    char f[300];
    snprintf(f, sizeof f, "{\"type\":\"snapshot\",\"id\":\"%s\",\"version\":1,\"seq\":0,\"tree\":{\"id\":\"todos\",\"type\":\"collection\"}}", q);
    feed(l.c, f, &l.o);
    CHECK_STR(found(l.c), "query-seq");
    CHECK(count_ev(&l.o, "query") == 1); /* still answered */
    stop(&l);
}

TEST(trees_and_patches_that_do_not_apply) {
    live l;
    begin(&l, HELLO_ALL, "{}", NULL);
    snapshot(&l, "1", "0",
             "{\"id\":\"root\",\"type\":\"root\",\"children\":[{\"id\":\"a\",\"type\":\"item\"},{\"id\":\"a\",\"type\":\"item\"}]}");
    CHECK_STR(found(l.c), "tree-shape");
    stop(&l);

    begin(&l, HELLO_ALL, "{}", TODOS);
    patch(&l, 2, 1, "[{\"op\":\"remove\",\"path\":\"/todos/t9\"}]");
    CHECK_STR(found(l.c), "patch-apply");
    cJSON *root;
    cJSON *f = finding(l.c, "patch-apply", &root);
    CHECK(f && cJSON_GetObjectItem(f, "version")->valuedouble == 2);
    CHECK_CONTAINS(f ? str(f, "detail") : NULL, "t9");
    cJSON_Delete(root);
    stop(&l);
}

/* ---- tree rules ------------------------------------------------------------ */

TEST(node_and_meta_rules_name_the_path) {
    struct { const char *extra, *rule; } cases[] = {
        {"\"meta\":{\"salience\":2}", "meta-salience"},
        {"\"meta\":{\"salience\":\"high\"}", "meta-salience"},
        {"\"meta\":{\"urgency\":\"urgent\"}", "meta-urgency"},
        {"\"meta\":{\"total_children\":1},\"children\":[{\"id\":\"x\",\"type\":\"item\"},{\"id\":\"y\",\"type\":\"item\"}]",
         "meta-window"},
        {"\"meta\":{\"window\":[0,2]},\"children\":[{\"id\":\"x\",\"type\":\"item\"}]", "meta-window"},
        {"\"meta\":{\"total_children\":9,\"window\":[0,2]},\"children\":[{\"id\":\"x\",\"type\":\"item\"}]",
         "meta-window"},
        {"\"meta\":{\"total_children\":2,\"window\":[1,2]},\"children\":[{\"id\":\"x\",\"type\":\"item\"},{\"id\":\"y\",\"type\":\"item\"}]",
         "meta-window"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        live l;
        begin(&l, HELLO_ALL, "{}", one(cases[i].extra));
        CHECK_STR(found(l.c), cases[i].rule);
        cJSON *root;
        cJSON *f = finding(l.c, cases[i].rule, &root);
        CHECK_STR(f ? str(f, "path") : NULL, "/n");
        CHECK_STR(f ? str(f, "seen") : NULL, "mirror");
        CHECK(f && cJSON_GetObjectItem(f, "version")->valuedouble == 1);
        cJSON_Delete(root);
        stop(&l);
    }
    live l;
    begin(&l, HELLO_ALL, "{}",
          "{\"id\":\"root\",\"type\":\"root\",\"children\":[{\"id\":\"n\",\"type\":\"widget\"},{\"id\":\"m\",\"type\":\"acme:widget\"}]}");
    CHECK_STR(found(l.c), "node-type");
    stop(&l);
    /* A window whose children a depth limit left out is no page: nothing to count. */
    begin(&l, HELLO_ALL, "{}", one("\"meta\":{\"total_children\":9,\"window\":[0,2]}"));
    CHECK_STR(found(l.c), "");
    stop(&l);
}

TEST(affordance_rules) {
    struct { const char *extra, *rule; } cases[] = {
        {"\"affordances\":[{\"action\":\"a\"},{\"action\":\"a\"}]", "affordance-action"},
        {"\"affordances\":[{\"label\":\"no action\"}]", "affordance-action"},
        {"\"affordances\":[{\"action\":\"a\",\"params\":{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\",\"minLength\":1}}}}]",
         "affordance-params"},
        {"\"affordances\":[{\"action\":\"a\",\"params\":{\"type\":\"string\"}}]", "affordance-params"},
        {"\"affordances\":[{\"action\":\"a\",\"estimate\":\"soon\"}]", "affordance-estimate"},
        {"\"affordances\":[{\"action\":\"a\",\"dangerous\":\"yes\"}]", "affordance-flags"},
        {"\"affordances\":[{\"action\":\"a\",\"idempotent\":1}]", "affordance-flags"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        live l;
        begin(&l, HELLO_ALL, "{}", one(cases[i].extra));
        CHECK_STR(found(l.c), cases[i].rule);
        stop(&l);
    }
}

TEST(results_errors_and_tasks) {
    live l;
    begin(&l, HELLO_ALL, "{}", TODOS);
    char *a = invoke_n(&l);
    slop_consumer_tick(l.c, 1000 + 6000);
    CHECK_STR(found(l.c), "result-in-time");
    free(a);
    stop(&l);

    begin(&l, HELLO_ALL, "{}", TODOS);
    a = invoke_n(&l);
    result(&l, a, ",\"status\":\"done\"");
    CHECK_STR(found(l.c), "result-status");
    free(a);
    stop(&l);

    begin(&l, HELLO_ALL, "{}", TODOS);
    a = invoke_n(&l);
    result(&l, a, ",\"status\":\"accepted\",\"data\":{}");
    CHECK_STR(found(l.c), "accepted-task");
    free(a);
    stop(&l);

    begin(&l, HELLO_ALL, "{}", TODOS);
    a = invoke_n(&l);
    result(&l, a, ",\"status\":\"accepted\",\"data\":{\"taskId\":\"task-9\"}");
    CHECK_STR(found(l.c), ""); /* not yet: a task node may still come */
    slop_consumer_tick(l.c, 1000 + 6000);
    CHECK_STR(found(l.c), "task-node");
    free(a);
    stop(&l);

    begin(&l, HELLO_ALL, "{}", TODOS);
    a = invoke_n(&l);
    result(&l, a, ",\"status\":\"error\",\"error\":{\"code\":\"oops\",\"message\":\"?\"}");
    CHECK_STR(found(l.c), "error-code");
    free(a);
    stop(&l);

    begin(&l, HELLO_ALL, "{}", TODOS);
    feed(l.c, "{\"type\":\"error\",\"error\":{\"code\":\"nope\",\"message\":\"?\"}}", &l.o);
    CHECK_STR(found(l.c), "error-code");
    stop(&l);
}

/* A number written 0.50 or 5E-1 keeps its text (json_read.c) and is the
 * number it says to every rule: a salience, a min_salience filter. */
TEST(numbers_written_with_their_own_text_are_numbers_to_the_rules) {
    live l;
    begin(&l, HELLO_ALL, "{\"path\":\"/\",\"filter\":{\"min_salience\":0.50}}", one("\"meta\":{\"salience\":0.50}"));
    CHECK_STR(found(l.c), "");
    patch(&l, 2, 1, "[{\"op\":\"replace\",\"path\":\"/n/meta/salience\",\"value\":5E-1},"
                    "{\"op\":\"add\",\"path\":\"/m\",\"value\":{\"id\":\"m\",\"type\":\"item\",\"meta\":{\"salience\":1.0}}}]");
    CHECK(count_ev(&l.o, "patch") == 1 && count_ev(&l.o, "resync") == 0);
    CHECK_STR(found(l.c), "");
    CHECK_CONTAINS(slop_consumer_node(l.c, l.sub, "/n", NULL), "\"salience\":5E-1");
    CHECK_CONTAINS(slop_consumer_node(l.c, l.sub, "/m", NULL), "\"salience\":1.0");
    /* and out of range or below the filter, found as before */
    patch(&l, 3, 2, "[{\"op\":\"replace\",\"path\":\"/n/meta/salience\",\"value\":1.50},"
                    "{\"op\":\"replace\",\"path\":\"/m/meta/salience\",\"value\":0.490}]");
    CHECK_STR(found(l.c), "meta-salience,sub-filter");
    stop(&l);
}

TEST(what_the_subscription_asked_for) {
    live l;
    begin(&l, HELLO_ALL, "{\"path\":\"/\",\"depth\":1}", TODOS); /* t1, t2 at depth 2 */
    CHECK_STR(found(l.c), "sub-depth");
    cJSON *root;
    cJSON *f = finding(l.c, "sub-depth", &root);
    CHECK_STR(f ? str(f, "path") : NULL, "/todos/t1"); /* and /todos/t2: one finding per path */
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(root, "findings")) == 2);
    cJSON_Delete(root);
    stop(&l);

    begin(&l, HELLO_ALL, "{\"path\":\"/\",\"max_nodes\":2}", TODOS);
    CHECK_STR(found(l.c), "sub-max-nodes");
    stop(&l);

    begin(&l, HELLO_ALL, "{\"path\":\"/\",\"filter\":{\"types\":[\"item\"]}}", TODOS); /* todos is a collection */
    CHECK_STR(found(l.c), "sub-filter");
    stop(&l);

    begin(&l, HELLO_ALL, "{\"path\":\"/\",\"filter\":{\"min_salience\":0.5}}", one("\"meta\":{\"salience\":0.2}"));
    CHECK_STR(found(l.c), "sub-filter");
    stop(&l);

    begin(&l, HELLO_ALL, "{\"path\":\"/\",\"depth\":2,\"max_nodes\":10,\"filter\":{\"min_salience\":0.1}}", TODOS);
    CHECK_STR(found(l.c), "");
    stop(&l);
}

TEST(findings_are_bounded_and_the_rest_counted) {
    live l;
    begin(&l, HELLO_ALL, "{}", TODOS);
    char *ids[600];
    for (int i = 0; i < 600; i++) ids[i] = invoke_n(&l);
    /* One finding per (rule, path): the same path only counts. */
    for (int i = 0; i < 600; i++) {
        result(&l, ids[i], ",\"status\":\"weird\"");
        free(ids[i]);
    }
    cJSON *root;
    cJSON *f = finding(l.c, "result-status", &root);
    CHECK(f && cJSON_GetObjectItem(f, "count")->valuedouble == 600);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(root, "findings")) == 1);
    cJSON_Delete(root);
    /* Distinct paths: 512 kept, the rest counted as dropped. */
    for (int i = 0; i < 600; i++) {
        char p[160];
        snprintf(p, sizeof p,
                 "[{\"op\":\"add\",\"path\":\"/todos/x%d\",\"value\":{\"id\":\"x%d\",\"type\":\"item\",\"meta\":{\"salience\":9}}}]",
                 i, i);
        patch(&l, 2 + i, 1 + i, p);
    }
    root = cJSON_Parse(slop_consumer_conformance(l.c, NULL));
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(root, "findings")) == 513);
    CHECK(cJSON_GetObjectItem(root, "dropped")->valuedouble == 88);
    cJSON_Delete(root);
    stop(&l);
}

/* ---- drift ------------------------------------------------------------------ */

/* Starts a drift check of l's subscription; its id in id (64 bytes); the query sent, parsed. */
static cJSON *drift_start(live *l, char *id) {
    const char *d = slop_consumer_check_drift(l->c, l->sub, 1000, NULL);
    snprintf(id, 64, "%s", d ? d : "");
    outs_free(&l->o);
    drain(l->c, &l->o);
    return sent(&l->o, "query", 0);
}

static void drift_answer(live *l, const char *id, int version, const char *tree) {
    char *f = malloc(strlen(tree) + 200);
    sprintf(f, "{\"type\":\"snapshot\",\"id\":\"%s\",\"version\":%d,\"tree\":%s}", id, version, tree);
    feed(l->c, f, &l->o);
    free(f);
}

static const char *TODOS_DRIFTED =
    "{\"id\":\"root\",\"type\":\"root\",\"children\":[{\"id\":\"todos\",\"type\":\"collection\","
    "\"properties\":{\"count\":2},\"children\":["
    "{\"id\":\"t1\",\"type\":\"item\",\"properties\":{\"title\":\"Buy milk\",\"done\":true},"
    "\"affordances\":[{\"action\":\"toggle\"},{\"action\":\"tag\",\"params\":{\"type\":\"object\","
    "\"properties\":{\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},\"required\":[\"tags\"]}},"
    "{\"action\":\"delete\",\"dangerous\":true}]},"
    "{\"id\":\"t3\",\"type\":\"item\"},"
    "{\"id\":\"t2\",\"type\":\"item\",\"properties\":{\"title\":\"Walk dog\",\"done\":true,\"a/b\":1}}]}]}";

TEST(a_drift_check_asks_for_what_the_subscription_asked_for_and_finds_none_when_equal) {
    live l;
    begin(&l, HELLO_ALL, "{\"path\":\"/\",\"depth\":-1,\"max_nodes\":500}", TODOS);
    patch(&l, 2, 1, "[{\"op\":\"replace\",\"path\":\"/todos/t1/properties/done\",\"value\":true}]");
    char id[64];
    cJSON *q = drift_start(&l, id);
    CHECK(q != NULL);
    CHECK_STR(str(q, "id"), id);
    CHECK_STR(str(q, "path"), "/");
    CHECK(cJSON_GetObjectItem(q, "depth")->valuedouble == -1);
    CHECK(cJSON_GetObjectItem(q, "max_nodes")->valuedouble == 500);
    cJSON_Delete(q);
    /* The provider's state, as the patches made it (meta.changed aside). */
    const char *same =
        "{\"id\":\"root\",\"type\":\"root\",\"children\":[{\"id\":\"todos\",\"type\":\"collection\","
        "\"properties\":{\"count\":2},\"children\":["
        "{\"id\":\"t1\",\"type\":\"item\",\"properties\":{\"title\":\"Buy milk\",\"done\":true},"
        "\"meta\":{\"changed\":true},"
        "\"affordances\":[{\"action\":\"toggle\"},{\"action\":\"tag\",\"params\":{\"type\":\"object\","
        "\"properties\":{\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},\"required\":[\"tags\"]}},"
        "{\"action\":\"delete\",\"dangerous\":true}]},"
        "{\"id\":\"t2\",\"type\":\"item\",\"properties\":{\"done\":true,\"title\":\"Walk dog\"}}]}]}";
    drift_answer(&l, id, 2, same);
    cJSON *e = ev(&l.o, "drift", 0);
    CHECK_STR(e ? str(e, "status") : NULL, "same");
    CHECK(e && cJSON_GetObjectItem(e, "count")->valuedouble == 0);
    CHECK_STR(e ? str(e, "sub") : NULL, l.sub);
    CHECK(count_ev(&l.o, "query") == 0); /* the answer is the core's, not the caller's */
    cJSON_Delete(e);
    CHECK_STR(found(l.c), "");
    stop(&l);
}

TEST(a_drift_check_names_each_difference_with_both_values) {
    live l;
    begin(&l, HELLO_ALL, "{}", TODOS);
    char id[64];
    cJSON_Delete(drift_start(&l, id));
    drift_answer(&l, id, 1, TODOS_DRIFTED);
    cJSON *e = ev(&l.o, "drift", 0);
    CHECK_STR(e ? str(e, "status") : NULL, "differs");
    CHECK(e && cJSON_GetObjectItem(e, "count")->valuedouble == 3);
    char *text = e ? cJSON_PrintUnformatted(cJSON_GetObjectItem(e, "differences")) : NULL;
    CHECK_STR(text,
              "[{\"path\":\"/todos/children\",\"mirror\":[\"t1\",\"t2\"],\"provider\":[\"t1\",\"t3\",\"t2\"]},"
              "{\"path\":\"/todos/t1/properties/done\",\"mirror\":false,\"provider\":true},"
              "{\"path\":\"/todos/t2/properties/a~1b\",\"provider\":1}]");
    free(text);
    cJSON_Delete(e);
    CHECK_STR(found(l.c), "drift");
    cJSON *root;
    cJSON *f = finding(l.c, "drift", &root);
    CHECK_STR(f ? str(f, "path") : NULL, "/todos/children"); /* a parent's difference before its children's */
    CHECK_STR(f ? str(f, "detail") : NULL, "at version 1 the patches give [\"t1\",\"t2\"], the provider's state is [\"t1\",\"t3\",\"t2\"]");
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(root, "findings")) == 3);
    CHECK_CONTAINS(f ? str(f, "frame") : NULL, "\"type\":\"snapshot\"");
    cJSON_Delete(root);
    stop(&l);
}

TEST(a_drift_check_asks_again_while_patches_are_in_flight_then_gives_up) {
    live l;
    begin(&l, HELLO_ALL, "{}", TODOS);
    char id[64];
    cJSON_Delete(drift_start(&l, id));
    for (int attempt = 1; attempt <= 3; attempt++) {
        outs_free(&l.o);
        drift_answer(&l, id, 5 + attempt, TODOS_DRIFTED);
        cJSON *again = sent(&l.o, "query", 0);
        if (attempt < 3) {
            CHECK_STR(again ? str(again, "id") : NULL, id); /* the same check, asked again */
            CHECK(count_ev(&l.o, "drift") == 0);
        } else {
            CHECK(again == NULL);
        }
        cJSON_Delete(again);
    }
    cJSON *e = ev(&l.o, "drift", 0);
    CHECK_STR(e ? str(e, "status") : NULL, "inconclusive");
    CHECK_CONTAINS(e ? str(e, "message") : NULL, "patches kept coming");
    cJSON_Delete(e);
    CHECK_STR(found(l.c), ""); /* nothing compared, nothing found */
    stop(&l);

    begin(&l, HELLO_ALL, "{}", NULL); /* no snapshot yet */
    CHECK(slop_consumer_check_drift(l.c, l.sub, 1000, NULL) == NULL);
    CHECK(slop_consumer_last_code(l.c) == SLOP_E_STATE);
    CHECK(slop_consumer_check_drift(l.c, "nope", 1000, NULL) == NULL);
    CHECK(slop_consumer_last_code(l.c) == SLOP_E_NOT_FOUND);
    stop(&l);
}

/* ---- a provider that never goes live ----------------------------------------- */

/* The report's "not_live", or "" when live (a static copy). */
static char why_buf[512];
static const char *not_live(slop_consumer *c) {
    cJSON *r = cJSON_Parse(slop_consumer_conformance(c, NULL));
    const char *w = str(r, "not_live");
    snprintf(why_buf, sizeof why_buf, "%s", w ? w : "");
    CHECK(cJSON_IsBool(cJSON_GetObjectItem(r, "live")) && cJSON_IsTrue(cJSON_GetObjectItem(r, "live")) == !w);
    cJSON_Delete(r);
    return why_buf;
}

TEST(a_provider_that_never_goes_live_is_judged_and_says_why) {
    live l;
    /* A hello without provider.id: not taken, the finding keeps its frame. */
    begin(&l, "{\"type\":\"hello\",\"provider\":{\"name\":\"App\",\"slop_version\":\"0.1\",\"capabilities\":[\"state\"]}}",
          "{}", NULL);
    cJSON *root;
    cJSON *f = finding(l.c, "hello-fields", &root);
    CHECK_STR(f ? str(f, "severity") : NULL, "MUST");
    CHECK_CONTAINS(f ? str(f, "frame") : NULL, "\"name\":\"App\"");
    cJSON_Delete(root);
    CHECK_CONTAINS(not_live(l.c), "its hello was refused: \"provider.id\" must be a non-empty string");
    slop_consumer_tick(l.c, 6000); /* the subscribe times out: the hello was refused, not missing */
    CHECK_STR(found(l.c), "hello-fields");
    stop(&l);

    /* No hello at all. */
    begin(&l, "{\"type\":\"event\",\"name\":\"x\"}", "{}", NULL);
    CHECK_STR(not_live(l.c), "no hello yet");
    CHECK_STR(found(l.c), "");
    slop_consumer_tick(l.c, 6000);
    CHECK_STR(found(l.c), "hello-in-time");
    stop(&l);

    /* A node whose type is a number: the snapshot is refused. */
    begin(&l, HELLO_ALL, "{}", "{\"id\":\"root\",\"type\":\"root\",\"children\":[{\"id\":\"n\",\"type\":7}]}");
    CHECK_STR(found(l.c), "tree-shape");
    f = finding(l.c, "tree-shape", &root);
    CHECK_CONTAINS(f ? str(f, "frame") : NULL, "\"type\":7");
    cJSON_Delete(root);
    CHECK_CONTAINS(not_live(l.c), " is failed: snapshot refused: ");
    stop(&l);

    /* Hello, then no snapshot. */
    begin(&l, HELLO_ALL, "{}", NULL);
    CHECK_CONTAINS(not_live(l.c), "is waiting");
    slop_consumer_tick(l.c, 6000);
    CHECK_STR(found(l.c), "snapshot-in-time");
    CHECK_CONTAINS(not_live(l.c), "no snapshot came in time");
    stop(&l);

    /* A snapshot for an id the consumer never sent; a late one for an id it
     * did send is no finding. */
    begin(&l, HELLO_ALL, "{}", NULL);
    feed(l.c, "{\"type\":\"snapshot\",\"id\":\"sub-1\",\"version\":1,\"seq\":0,\"tree\":{\"id\":\"root\",\"type\":\"root\"}}",
         &l.o);
    CHECK_STR(found(l.c), "snapshot-id");
    stop(&l);
    /* Ids with the consumer's own prefix that it never reached, or that name
     * an invoke, were never sent for a snapshot either. */
    begin(&l, HELLO_ALL, "{}", TODOS);
    const char *kinds[] = {"s999", "i1", "q0", "s01", "x1"};
    char never[300];
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        snprintf(never, sizeof never,
                 "{\"type\":\"snapshot\",\"id\":\"%.*s-%s\",\"version\":1,\"seq\":0,\"tree\":{\"id\":\"root\",\"type\":\"root\"}}",
                 (int)(strchr(l.wire, '-') - l.wire), l.wire, kinds[k]);
        feed(l.c, never, &l.o);
        CHECK_STR(found(l.c), "snapshot-id");
    }
    stop(&l);
    /* A late answer to a query it did send (timed out since) is no finding. */
    begin(&l, HELLO_ALL, "{}", TODOS);
    const char *qopts = "{\"path\":\"/\"}";
    char qid[64];
    snprintf(qid, sizeof qid, "%s", slop_consumer_query(l.c, qopts, strlen(qopts), 2000, NULL));
    slop_consumer_tick(l.c, 2000 + 60000);
    char late[300];
    snprintf(late, sizeof late, "{\"type\":\"snapshot\",\"id\":\"%s\",\"version\":1,\"tree\":{\"id\":\"root\",\"type\":\"root\"}}", qid);
    feed(l.c, late, &l.o);
    CHECK_STR(found(l.c), "");
    stop(&l);
}

int main(void) {
    RUN(a_conforming_provider_has_no_finding_and_the_report_lists_every_rule);
    RUN(numbers_written_with_their_own_text_are_numbers_to_the_rules);
    RUN(frames_that_are_not_messages);
    RUN(the_finding_keeps_the_first_frame_cut_and_counts_the_rest);
    RUN(hello_rules);
    RUN(a_provider_that_never_goes_live_is_judged_and_says_why);
    RUN(capabilities_against_behaviour);
    RUN(affordances_and_attention_need_their_capability);
    RUN(ordering_seq_and_version_rules);
    RUN(a_query_answer_with_seq);
    RUN(trees_and_patches_that_do_not_apply);
    RUN(node_and_meta_rules_name_the_path);
    RUN(affordance_rules);
    RUN(results_errors_and_tasks);
    RUN(what_the_subscription_asked_for);
    RUN(findings_are_bounded_and_the_rest_counted);
    RUN(a_drift_check_asks_for_what_the_subscription_asked_for_and_finds_none_when_equal);
    RUN(a_drift_check_names_each_difference_with_both_values);
    RUN(a_drift_check_asks_again_while_patches_are_in_flight_then_gives_up);
    return check_report();
}
