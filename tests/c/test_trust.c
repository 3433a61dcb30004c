/*
 * test_trust.c: the mirror never passes a stale or altered state off as the
 * provider's: restarts and new apps on a reconnect, exact numbers, bytes
 * JSON cannot carry, and the operations the spec leaves open (each decided
 * once, in the header, and pinned here).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "consumer_harness.h"
#include "internal.h"

static const char *HELLO_OTHER =
    "{\"type\":\"hello\",\"provider\":{\"id\":\"other\",\"name\":\"Other\",\"capabilities\":[\"state\",\"patches\"]}}";

/* Closes the connection and opens a new one: hello, then the re-sent
 * subscribe's snapshot at `version` (its wire id goes to l->wire). */
static void reconnect(live *l, const char *hello, int version, const char *tree) {
    slop_consumer_close(l->c, 2000);
    slop_consumer_reset(l->c, 2000);
    outs_free(&l->o);
    feed(l->c, hello, &l->o);
    update_wire_from_resubscribe(l, 0);
    char v[24];
    snprintf(v, sizeof v, "%d", version);
    if (tree) snapshot(l, v, "0", tree);
}

static int status_has(live *l, const char *needle) {
    const char *st = slop_consumer_status(l->c, NULL);
    return st && strstr(st, needle) != NULL;
}

/* ---- 1. restarts ------------------------------------------------------- */

TEST(a_provider_that_restarts_with_its_counter_at_1_rebases_the_mirror) {
    live l;
    start(&l, HELLO_ALL, "/", TODOS);
    patch(&l, 20101, 1, "[{\"op\":\"remove\",\"path\":\"/todos/t2\"}]");
    CHECK_KIDS(&l, "/todos", "[\"t1\"]");
    reconnect(&l, HELLO_ALL, 1, TODOS);
    cJSON *e = ev(&l.o, "snapshot", 0);
    CHECK(e != NULL);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(e, "rebase")));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(e, "restarted")));
    CHECK(cJSON_GetObjectItem(e, "previous_version") && cJSON_GetObjectItem(e, "previous_version")->valuedouble == 20101);
    cJSON_Delete(e);
    CHECK(count_ev(&l.o, "protocol_error") == 0);
    CHECK_KIDS(&l, "/todos", "[\"t1\",\"t2\"]");
    CHECK(status_has(&l, "\"state\":\"live\""));
    /* and the new process's patches apply */
    patch(&l, 2, 1, "[{\"op\":\"replace\",\"path\":\"/todos/properties/count\",\"value\":9}]");
    CHECK_PROP(&l, "/todos", "count", "9");
    CHECK(status_has(&l, "\"version\":2"));
    stop(&l);
}

TEST(a_reconnect_to_the_same_process_is_a_rebase_not_a_restart) {
    live l;
    start(&l, HELLO_ALL, "/", TODOS);
    patch(&l, 7, 1, "[{\"op\":\"remove\",\"path\":\"/todos/t2\"}]");
    reconnect(&l, HELLO_ALL, 9, TODOS);
    cJSON *e = ev(&l.o, "snapshot", 0);
    CHECK(e && cJSON_IsTrue(cJSON_GetObjectItem(e, "rebase")) && !cJSON_GetObjectItem(e, "restarted"));
    cJSON_Delete(e);
    CHECK_KIDS(&l, "/todos", "[\"t1\",\"t2\"]");
    stop(&l);
}

TEST(while_reconnecting_the_status_says_why_the_mirror_is_not_live) {
    live l;
    start(&l, HELLO_ALL, "/", TODOS);
    slop_consumer_close(l.c, 2000);
    CHECK(status_has(&l, "\"state\":\"stale\",\"reason\":{\"code\":\"disconnected\""));
    slop_consumer_reset(l.c, 2000);
    CHECK(status_has(&l, "\"state\":\"resyncing\",\"reason\":{\"code\":\"reconnected\""));
    stop(&l);
}

TEST(a_different_app_at_the_same_address_drops_the_old_mirror) {
    live l;
    start(&l, HELLO_ALL, "/", TODOS);
    reconnect(&l, HELLO_OTHER, 0, NULL);
    cJSON *e = ev(&l.o, "provider_changed", 0);
    CHECK(e != NULL);
    CHECK_STR(str(cJSON_GetObjectItem(e, "previous"), "id"), "app");
    CHECK_STR(str(cJSON_GetObjectItem(e, "provider"), "id"), "other");
    cJSON_Delete(e);
    /* nothing of the old app's tree passes for the new one's */
    CHECK(slop_consumer_tree(l.c, l.sub, "/", -1, NULL) == NULL);
    CHECK(status_has(&l, "\"state\":\"waiting\",\"reason\":{\"code\":\"provider_changed\""));
    CHECK(status_has(&l, "\"nodes\":0"));
    outs_free(&l.o);
    snapshot(&l, "3", "0", "{\"id\":\"o\",\"type\":\"root\"}");
    e = ev(&l.o, "snapshot", 0);
    CHECK(e && cJSON_IsFalse(cJSON_GetObjectItem(e, "rebase")));
    cJSON_Delete(e);
    CHECK(status_has(&l, "\"state\":\"live\""));
    stop(&l);
}

TEST(a_restart_while_a_resync_is_in_flight_still_rebases) {
    live l;
    start(&l, HELLO_ALL, "/", TODOS);
    patch(&l, 500, 1, "[{\"op\":\"remove\",\"path\":\"/todos/t2\"}]");
    patch(&l, 501, 3, "[{\"op\":\"remove\",\"path\":\"/todos/t1\"}]"); /* gap: resync sent */
    CHECK(count_ev(&l.o, "resync") == 1);
    reconnect(&l, HELLO_ALL, 1, TODOS); /* the process died before answering */
    cJSON *e = ev(&l.o, "snapshot", 0);
    CHECK(e && cJSON_IsTrue(cJSON_GetObjectItem(e, "restarted")));
    cJSON_Delete(e);
    CHECK_KIDS(&l, "/todos", "[\"t1\",\"t2\"]");
    CHECK(status_has(&l, "\"state\":\"live\""));
    stop(&l);
}

TEST(frames_after_close_are_never_applied) {
    live l;
    start(&l, HELLO_ALL, "/", TODOS);
    slop_consumer_close(l.c, 2000);
    drain(l.c, &l.o);
    outs_free(&l.o);
    snapshot(&l, "9", "0", "{\"id\":\"x\",\"type\":\"root\"}");
    CHECK(l.o.n == 0);
    CHECK_KIDS(&l, "/todos", "[\"t1\",\"t2\"]");
    CHECK(status_has(&l, "\"ignored_frames\":1"));
    stop(&l);
}

/* ---- 2. numbers -------------------------------------------------------- */

/* The value of property `key` of the root, as the core prints it. */
static char *root_prop(live *l, const char *key) { return prop(l, "/", key); }

TEST(numbers_come_out_exactly_as_the_provider_sent_them) {
    static const char *const cases[] = {
        "0.39999999999999997", /* cJSON printed 0.4 */
        "0.30000000000000004", /* and 0.3 */
        "5e-324",              /* the smallest subnormal */
        "2.2250738585072e-308", /* a subnormal */
        /* integer literals a double cannot hold stay the provider's digits,
         * patched or not (64-bit ids): 2^53+1 never reads as 2^53 */
        "9007199254740993",
        "-9223372036854775807",
        "-9223372036854775808", /* -2^63: a double, but not in exponent form */
        "9007199254740992",     /* 2^53 itself is a double */
        "9007199254740991",
        /* texts the shortest print would change (1e+21, 1.5, 100000, -0):
         * kept as written, patched or not */
        "1e21", "1E5", "1e5", "1.50", "-0.0", "0.00001", "2.5E-8",
        "-0",
        "1.7976931348623157e308",
        "123456789012345680000",
        "1.2345678901234568e20", /* not an integer literal */
        "0.1",
        "100",
        "-2.5e-8",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char tree[256];
        snprintf(tree, sizeof tree, "{\"id\":\"r\",\"type\":\"root\",\"properties\":{\"x\":%s}}", cases[i]);
        live l;
        start(&l, HELLO_ALL, "/", tree);
        /* Untouched by patches, a field's text is the provider's own: node views
         * copy it as sent. */
        char *got = root_prop(&l, "x");
        CHECK_STR(got, cases[i]);
        /* whatever the text, it reads back as the same double */
        if (got) CHECK(strtod(got, NULL) == strtod(cases[i], NULL) && signbit(strtod(got, NULL)) == signbit(strtod(cases[i], NULL)));
        free(got);
        /* through a patch, parsed into values and printed again: the same text
         * (a patch to a sibling parses x too) */
        char ops[300];
        snprintf(ops, sizeof ops, "[{\"op\":\"add\",\"path\":\"/properties/y\",\"value\":[%s]}]", cases[i]);
        patch(&l, 2, 1, ops);
        char *arr = root_prop(&l, "y");
        char want[80];
        snprintf(want, sizeof want, "[%s]", cases[i]);
        CHECK_STR(arr, want);
        free(arr);
        CHECK_PROP(&l, "/", "x", cases[i]);
        stop(&l);
    }
}

/* A patched field keeps the text of each number, where the printer would
 * write 1.50 as 1.5, 1E5 as 100000 and 0.000010 as 1e-05: in the node view,
 * the tree, the tree text, the checkpoint, the patch's value echoed in a
 * result's data, and after a rollback. The text is only how it is written:
 * the value compares and checks as the number it is. */
TEST(patched_numbers_keep_the_providers_text) {
    live l;
    start(&l, HELLO_ALL, "/", "{\"id\":\"r\",\"type\":\"root\",\"properties\":{\"a\":1,\"kept\":2.50},"
                             "\"affordances\":[{\"action\":\"go\"}]}");
    patch(&l, 2, 1, "[{\"op\":\"replace\",\"path\":\"/properties/a\",\"value\":1.50},"
                    "{\"op\":\"add\",\"path\":\"/properties/b\",\"value\":1E5},"
                    "{\"op\":\"add\",\"path\":\"/properties/c\",\"value\":-0},"
                    "{\"op\":\"add\",\"path\":\"/properties/d\",\"value\":{\"e\":[0.000010,-1.0e-3,12.340]}}]");
    CHECK(count_ev(&l.o, "patch") == 1 && count_ev(&l.o, "resync") == 0);
    CHECK_PROP(&l, "/", "a", "1.50");
    CHECK_PROP(&l, "/", "b", "1E5");
    CHECK_PROP(&l, "/", "c", "-0");
    CHECK_PROP(&l, "/", "d", "{\"e\":[0.000010,-1.0e-3,12.340]}");
    CHECK_PROP(&l, "/", "kept", "2.50"); /* parsed with its field, printed again */
    CHECK_CONTAINS(slop_consumer_tree(l.c, l.sub, "/", -1, NULL), "\"a\":1.50,\"kept\":2.50,\"b\":1E5,\"c\":-0");
    CHECK_CONTAINS(slop_consumer_tree_text(l.c, l.sub, NULL), "a=1.50");
    CHECK_CONTAINS(slop_consumer_checkpoint(l.c, l.sub, NULL), "\"b\":1E5");
    /* A failed patch rolls back to the same texts. */
    outs_free(&l.o);
    patch(&l, 3, 2, "[{\"op\":\"replace\",\"path\":\"/properties/a\",\"value\":7},"
                    "{\"op\":\"remove\",\"path\":\"/nope\"}]");
    CHECK(count_ev(&l.o, "resync") == 1);
    CHECK_PROP(&l, "/", "a", "1.50");
    /* An event's and a result's data: parsed, copied and printed, as sent. */
    outs_free(&l.o);
    feed(l.c, "{\"type\":\"event\",\"name\":\"n\",\"data\":{\"v\":[1.50,1E5,-0,-0.0,0.30000000000000004,9223372036854775807]}}", &l.o);
    CHECK(l.o.n == 1 && strstr(l.o.text[0], "\"data\":{\"v\":[1.50,1E5,-0,-0.0,0.30000000000000004,9223372036854775807]}"));
    stop(&l);

    /* The numbers' values are what checks read: a type, an enum. */
    const char *schema = "{\"type\":\"object\",\"properties\":{\"p\":{\"type\":\"number\"},"
                         "\"q\":{\"type\":\"number\",\"enum\":[2.50,1E5]},\"r\":{\"type\":\"integer\"}}}";
    const char *ok = "{\"p\":1.50,\"q\":2.5,\"r\":1E2}";
    CHECK(slop_validate_params(schema, strlen(schema), ok, strlen(ok)) == NULL);
    const char *ok2 = "{\"q\":100000.0,\"r\":-0.0}";
    CHECK(slop_validate_params(schema, strlen(schema), ok2, strlen(ok2)) == NULL);
    const char *off = "{\"q\":2.51}";
    char *err = slop_validate_params(schema, strlen(schema), off, strlen(off));
    CHECK(err && strstr(err, "\"code\":\"enum\""));
    slop_free(err);
    const char *frac = "{\"r\":1.50}";
    err = slop_validate_params(schema, strlen(schema), frac, strlen(frac));
    CHECK(err && strstr(err, "\"code\":\"type\""));
    slop_free(err);
}

TEST(exact_numbers_reach_trees_text_and_events) {
    live l;
    start(&l, HELLO_ALL, "/", "{\"id\":\"r\",\"type\":\"root\",\"properties\":{\"x\":0.30000000000000004}}");
    CHECK_CONTAINS(slop_consumer_tree(l.c, l.sub, "/", -1, NULL), "\"x\":0.30000000000000004");
    CHECK_CONTAINS(slop_consumer_tree_text(l.c, l.sub, NULL), "0.30000000000000004");
    outs_free(&l.o);
    patch(&l, 2, 1, "[{\"op\":\"replace\",\"path\":\"/properties/x\",\"value\":0.1}]");
    CHECK_PROP(&l, "/", "x", "0.1");
    stop(&l);
}

/* A 64-bit id as a number: the tree text an agent reads, a patch to it, its
 * event and a change in its last digit, all with the provider's digits. */
TEST(integers_beyond_a_double_keep_their_digits_everywhere) {
    live l;
    start(&l, HELLO_ALL, "/", "{\"id\":\"r\",\"type\":\"root\",\"properties\":{\"id64\":1234567890123456789}}");
    CHECK_CONTAINS(slop_consumer_tree_text(l.c, l.sub, NULL), "id64=1234567890123456789");
    outs_free(&l.o);
    patch(&l, 2, 1, "[{\"op\":\"replace\",\"path\":\"/properties/id64\",\"value\":1234567890123456788}]");
    CHECK(count_ev(&l.o, "patch") == 1);
    CHECK_PROP(&l, "/", "id64", "1234567890123456788");
    CHECK_CONTAINS(slop_consumer_tree_text(l.c, l.sub, NULL), "id64=1234567890123456788");
    CHECK_CONTAINS(slop_consumer_tree(l.c, l.sub, "/", -1, NULL), "\"id64\":1234567890123456788");
    /* inside arrays and objects, negative too; a double-sized one stays a number */
    patch(&l, 3, 2, "[{\"op\":\"add\",\"path\":\"/properties/ids\",\"value\":{\"a\":[-9223372036854775807,9007199254740992,\"12345678901234567890\"]}}]");
    CHECK_PROP(&l, "/", "ids", "{\"a\":[-9223372036854775807,9007199254740992,\"12345678901234567890\"]}");
    stop(&l);
}

TEST(params_take_integers_beyond_a_double_as_integers_and_compare_their_digits) {
    const char *schema = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\",\"enum\":[1234567890123456789]},"
                         "\"n\":{\"type\":\"number\"}}}";
    const char *ok = "{\"id\":1234567890123456789,\"n\":-98765432109876543210}";
    CHECK(slop_validate_params(schema, strlen(schema), ok, strlen(ok)) == NULL);
    const char *off_by_one = "{\"id\":1234567890123456788}"; /* the same double, not the same id */
    char *err = slop_validate_params(schema, strlen(schema), off_by_one, strlen(off_by_one));
    CHECK(err && strstr(err, "\"code\":\"enum\""));
    slop_free(err);
    const char *as_string = "{\"id\":\"1234567890123456789\"}"; /* its digits, but a string */
    err = slop_validate_params(schema, strlen(schema), as_string, strlen(as_string));
    CHECK(err && strstr(err, "\"code\":\"enum\""));
    slop_free(err);
}

/* The printer as it was before its fast path for short decimals: %.*g from
 * 15 digits up, the first that reads back. */
static size_t reference_print(double d, char *out) {
    int n = 0;
    for (int prec = fabs(d) < DBL_MIN ? 1 : 15;; prec++) {
        n = snprintf(out, SLOP__NUMBER_BUF, "%.*g", prec, d);
        if (prec == 17 || strtod(out, NULL) == d) break;
    }
    return (size_t)n;
}

/* Decimals are printed and parsed by hand (json_print.c short_decimal,
 * json_read.c decimal_value), as printf and strtod would: every decimal of up
 * to 8 places and 15 digits, from 0.0001 to 10^7, and random doubles. */
TEST(short_decimals_print_and_parse_as_printf_and_strtod_would) {
    unsigned long long x = 88172645463325252ull;
    char mine[SLOP__NUMBER_BUF], ref[SLOP__NUMBER_BUF];
    int bad = 0;
    for (int i = 0; i < 400000 && bad < 5; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double d;
        if (i % 3 == 2) {
            memcpy(&d, &x, sizeof d);
            if (!isfinite(d)) continue;
        } else {
            static const double tens[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
            d = (double)(x % 100000000000ull) / tens[(x >> 40) % 10] / (i % 3 ? 1 : 1e4);
            if (x & (1ull << 62)) d = -d;
        }
        size_t k = slop__format_number(d, mine), r = reference_print(d, ref);
        if (d == floor(d) && fabs(d) < 1e17) continue; /* integers: written by hand before */
        if (k != r || memcmp(mine, ref, k) != 0) {
            fprintf(stderr, "    %.17g: printed %s, printf %s\n", d, mine, ref);
            bad++;
        }
        /* Parsed back: the same double strtod gives. */
        cJSON *v = slop__json_parse_exact(mine, k);
        if (!v || v->valuedouble != strtod(mine, NULL) || signbit(v->valuedouble) != signbit(d)) {
            fprintf(stderr, "    %s parsed as %.17g\n", mine, v ? v->valuedouble : NAN);
            bad++;
        }
        cJSON_Delete(v);
    }
    CHECK(bad == 0);
}

TEST(numbers_beyond_a_double_are_refused_anywhere_in_a_frame) {
    live l;
    start(&l, HELLO_ALL, "/", TODOS);
    const char *bad[] = {
        "{\"type\":\"patch\",\"subscription\":\"%s\",\"version\":2,\"seq\":1,\"ops\":[{\"op\":\"replace\","
        "\"path\":\"/todos/properties/count\",\"value\":1e400}]}",
        "{\"type\":\"patch\",\"subscription\":\"%s\",\"version\":2,\"seq\":1,\"ops\":[{\"op\":\"replace\","
        "\"path\":\"/todos/properties/count\",\"value\":-1e400}]}",
        "{\"type\":\"patch\",\"subscription\":\"%s\",\"version\":1e400,\"seq\":1,\"ops\":[]}",
        /* last: a refused snapshot leaves the subscription stale */
        "{\"type\":\"snapshot\",\"id\":\"%s\",\"version\":2,\"seq\":0,\"tree\":{\"id\":\"r\",\"type\":\"root\","
        "\"properties\":{\"big\":0.2e310}}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char f[400];
        snprintf(f, sizeof f, bad[i], l.wire);
        outs_free(&l.o);
        feed(l.c, f, &l.o);
        cJSON *e = ev(&l.o, "protocol_error", 0);
        CHECK(e != NULL);
        if (e) CHECK(strcmp(str(e, "code"), "bad_json") == 0 || strcmp(str(e, "code"), "bad_snapshot") == 0);
        if (e) CHECK_CONTAINS(str(e, "message"), "number too large for a double");
        cJSON_Delete(e);
        CHECK(count_ev(&l.o, "patch") == 0 && count_ev(&l.o, "snapshot") == 0);
        CHECK_PROP(&l, "/todos", "count", "2");
    }
    CHECK(status_has(&l, "\"state\":\"stale\",\"reason\":{\"code\":\"bad_snapshot\""));
    stop(&l);
    /* 1.7976931348623157e308 is the largest double; 1.8e308 is not one */
    start(&l, HELLO_ALL, "/", TODOS);
    patch(&l, 2, 1, "[{\"op\":\"replace\",\"path\":\"/todos/properties/count\",\"value\":1.7976931348623157e308}]");
    CHECK_PROP(&l, "/todos", "count", "1.7976931348623157e308");
    outs_free(&l.o);
    patch(&l, 3, 2, "[{\"op\":\"replace\",\"path\":\"/todos/properties/count\",\"value\":1.8e308}]");
    CHECK(count_ev(&l.o, "protocol_error") == 1);
    /* a number that underflows is a representable 0, taken (written as sent,
     * which every reader reads as 0) */
    patch(&l, 3, 2, "[{\"op\":\"replace\",\"path\":\"/todos/properties/count\",\"value\":1e-400}]");
    CHECK_PROP(&l, "/todos", "count", "1e-400");
    stop(&l);
}

TEST(the_overflow_check_reads_the_decimal_exponent_right) {
    static const struct {
        const char *lexeme;
        int finite;
    } cases[] = {
        {"0.00000001001e400000002", 0}, {"0.0000001e316", 0}, {"100e307", 0}, {"1797693134862315900e290", 0}, {"1797693134862315800e290", 1},
        {"0.001e310", 1}, {"0.00001e310", 1}, {"1797693134862315700e290", 1}, {"0e99999999", 1},
        {"-0.000e400", 1}, {"10e307", 1}, {"99e306", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char params[96];
        snprintf(params, sizeof params, "{\"x\":%s}", cases[i].lexeme);
        char *err = slop_validate_params("{}", 2, params, strlen(params));
        if (cases[i].finite) CHECK(err == NULL);
        else CHECK(err && strstr(err, "\"code\":\"bad_json\"") && strstr(err, "number too large for a double"));
        if ((err == NULL) != cases[i].finite) printf("    %s\n", cases[i].lexeme);
        slop_free(err);
    }
}

TEST(versions_and_seqs_are_integers_from_0_to_2_pow_53) {
    /* 2^53+1 once read as 2^53 and was taken; now it is kept exact, and refused */
    static const char *versions[] = {"-1", "1.5", "9007199254740994", "9007199254740993", "\"3\"", "null", "true"};
    for (size_t i = 0; i < sizeof versions / sizeof *versions; i++) {
        live l;
        start(&l, HELLO_ALL, "/", NULL);
        snapshot(&l, versions[i], "0", "{\"id\":\"r\",\"type\":\"root\"}");
        cJSON *e = ev(&l.o, "protocol_error", 0);
        CHECK(e && strcmp(str(e, "code"), "bad_message") == 0);
        cJSON_Delete(e);
        CHECK(count_ev(&l.o, "snapshot") == 0);
        CHECK(status_has(&l, "\"state\":\"failed\",\"reason\":{\"code\":\"bad_message\""));
        stop(&l);
    }
    live l;
    start(&l, HELLO_ALL, "/", TODOS);
    patch(&l, 2, -1, "[]");
    char f[300];
    snprintf(f, sizeof f, "{\"type\":\"patch\",\"subscription\":\"%s\",\"version\":3,\"seq\":-1,\"ops\":[]}", l.wire);
    outs_free(&l.o);
    feed(l.c, f, &l.o);
    CHECK(count_ev(&l.o, "resync") == 1);
    stop(&l);
    /* 2^53 itself is still a version */
    start(&l, HELLO_ALL, "/", NULL);
    snapshot(&l, "9007199254740992", "0", "{\"id\":\"r\",\"type\":\"root\"}");
    CHECK(status_has(&l, "\"version\":9007199254740992"));
    stop(&l);
}

/* ---- 2. bytes ---------------------------------------------------------- */

TEST(invalid_utf8_anywhere_refuses_the_frame) {
    static const char *bytes[] = {
        "\xC0\xAF",         /* overlong '/' */
        "\xE0\x80\xAF",     /* overlong, 3 bytes */
        "\xED\xA0\x80",     /* a surrogate encoded */
        "\xFF", "\xFE", "\xF8\x88\x80\x80\x80",
        "\xE2\x82",         /* truncated */
        "\x80",             /* lone continuation byte */
        "\xF4\x90\x80\x80", /* above U+10FFFF */
    };
    static const char *where[] = {
        "{\"type\":\"patch\",\"subscription\":\"%s\",\"version\":2,\"seq\":1,\"ops\":[{\"op\":\"replace\","
        "\"path\":\"/todos/properties/count\",\"value\":\"x%sy\"}]}",                                     /* a string */
        "{\"type\":\"patch\",\"subscription\":\"%s\",\"version\":2,\"seq\":1,\"ops\":[{\"op\":\"add\","
        "\"path\":\"/todos/properties/k%s\",\"value\":1}]}",                                              /* a path */
        "{\"type\":\"snapshot\",\"id\":\"%s\",\"version\":2,\"seq\":0,\"tree\":{\"id\":\"x%s\",\"type\":\"root\"}}", /* an id */
        "{\"type\":\"snapshot\",\"id\":\"%s\",\"version\":2,\"seq\":0,\"tree\":{\"id\":\"r\",\"type\":\"root\","
        "\"properties\":{\"k%s\":1}}}",                                                                   /* a key */
    };
    for (size_t w = 0; w < sizeof where / sizeof *where; w++) {
        for (size_t b = 0; b < sizeof bytes / sizeof *bytes; b++) {
            live l;
            start(&l, HELLO_ALL, "/", TODOS);
            char f[400];
            snprintf(f, sizeof f, where[w], l.wire, bytes[b]);
            outs_free(&l.o);
            feed(l.c, f, &l.o);
            cJSON *e = ev(&l.o, "protocol_error", 0);
            CHECK(e != NULL);
            if (e) CHECK_CONTAINS(str(e, "message"), "invalid UTF-8");
            cJSON_Delete(e);
            CHECK(count_ev(&l.o, "patch") == 0 && count_ev(&l.o, "snapshot") == 0);
            CHECK_KIDS(&l, "/todos", "[\"t1\",\"t2\"]");
            stop(&l);
        }
    }
    /* valid multi-byte text is kept byte for byte */
    live l;
    start(&l, HELLO_ALL, "/", "{\"id\":\"r\",\"type\":\"root\",\"properties\":{\"s\":\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"}}");
    CHECK_PROP(&l, "/", "s", "\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"");
    stop(&l);
}

TEST(a_nul_escape_is_refused_since_it_would_cut_the_string) {
    live l;
    start(&l, HELLO_ALL, "/", TODOS);
    char f[300];
    snprintf(f, sizeof f,
             "{\"type\":\"patch\",\"subscription\":\"%s\",\"version\":2,\"seq\":1,\"ops\":[{\"op\":\"replace\","
             "\"path\":\"/todos/properties/count\",\"value\":\"a\\u0000b\"}]}",
             l.wire);
    outs_free(&l.o);
    feed(l.c, f, &l.o);
    cJSON *e = ev(&l.o, "protocol_error", 0);
    CHECK(e && strcmp(str(e, "code"), "bad_json") == 0);
    cJSON_Delete(e);
    CHECK_PROP(&l, "/todos", "count", "2");
    stop(&l);
}

TEST(duplicate_member_names_refuse_the_frame_everywhere) {
    static const char *frames[] = {
        /* the envelope */
        "{\"type\":\"patch\",\"subscription\":\"%s\",\"version\":2,\"version\":3,\"seq\":1,\"ops\":[]}",
        /* an op */
        "{\"type\":\"patch\",\"subscription\":\"%s\",\"version\":2,\"seq\":1,\"ops\":[{\"op\":\"remove\","
        "\"path\":\"/todos/t1\",\"path\":\"/todos/t2\"}]}",
        /* a node in a patch value, and escapes do not hide the second "id" */
        "{\"type\":\"patch\",\"subscription\":\"%s\",\"version\":2,\"seq\":1,\"ops\":[{\"op\":\"add\","
        "\"path\":\"/todos/t3\",\"value\":{\"id\":\"t3\",\"\\u0069d\":\"t4\",\"type\":\"item\"}}]}",
        /* a node of a snapshot tree, and a properties object in it */
        "{\"type\":\"snapshot\",\"id\":\"%s\",\"version\":2,\"seq\":0,\"tree\":{\"id\":\"a\",\"id\":\"b\",\"type\":\"root\"}}",
        "{\"type\":\"snapshot\",\"id\":\"%s\",\"version\":2,\"seq\":0,\"tree\":{\"id\":\"a\",\"type\":\"root\","
        "\"properties\":{\"k\":1,\"k\":2}}}",
    };
    for (size_t i = 0; i < sizeof frames / sizeof *frames; i++) {
        live l;
        start(&l, HELLO_ALL, "/", TODOS);
        char f[400];
        snprintf(f, sizeof f, frames[i], l.wire);
        outs_free(&l.o);
        feed(l.c, f, &l.o);
        cJSON *e = ev(&l.o, "protocol_error", 0);
        CHECK(e != NULL);
        if (e) CHECK(strstr(str(e, "message"), "duplicate member name") || strstr(str(e, "message"), "appears twice"));
        cJSON_Delete(e);
        CHECK(count_ev(&l.o, "patch") == 0 && count_ev(&l.o, "snapshot") == 0);
        CHECK_KIDS(&l, "/todos", "[\"t1\",\"t2\"]");
        stop(&l);
    }
    /* many members (the sorted check) */
    char big[4096] = "{\"id\":\"r\",\"type\":\"root\",\"properties\":{";
    for (int i = 0; i < 100; i++) sprintf(big + strlen(big), "%s\"k%d\":%d", i ? "," : "", i, i);
    strcat(big, ",\"k57\":0}}");
    live l;
    start(&l, HELLO_ALL, "/", big);
    CHECK(count_ev(&l.o, "snapshot") == 0);
    stop(&l);
}

TEST(an_empty_node_object_as_the_first_object_is_refused_cleanly) {
    /* the name stack is still unallocated here (found by the receive fuzzer, UBSan) */
    live l;
    start(&l, HELLO_ALL, "/", NULL);
    snapshot(&l, "1", "0", "{}");
    cJSON *e = ev(&l.o, "protocol_error", 0);
    CHECK(e && strcmp(str(e, "code"), "bad_snapshot") == 0);
    cJSON_Delete(e);
    stop(&l);
}

/* ---- 3. operations the spec leaves open ------------------------------- */

/* Applies one patch to a fresh TODOS mirror; returns whether it applied. */
static int applies(const char *ops, char *why, size_t whylen) {
    live l;
    start(&l, HELLO_ALL, "/", TODOS);
    outs_free(&l.o);
    patch(&l, 2, 1, ops);
    int ok = count_ev(&l.o, "patch") == 1;
    cJSON *e = ev(&l.o, "resync", 0);
    snprintf(why, whylen, "%s", e && str(e, "message") ? str(e, "message") : "");
    cJSON_Delete(e);
    CHECK(ok || strstr(why, "the last good state is kept"));
    if (!ok) CHECK_KIDS(&l, "/todos", "[\"t1\",\"t2\"]");
    stop(&l);
    return ok;
}

TEST(paths_with_empty_segments_are_refused) {
    char why[400];
    CHECK(!applies("[{\"op\":\"remove\",\"path\":\"//todos\"}]", why, sizeof why));
    CHECK_CONTAINS(why, "empty segment");
    CHECK(!applies("[{\"op\":\"remove\",\"path\":\"/todos//t1\"}]", why, sizeof why));
    CHECK(!applies("[{\"op\":\"replace\",\"path\":\"/todos/t1/\",\"value\":{\"id\":\"t1\",\"type\":\"item\"}}]", why, sizeof why));
    CHECK(applies("[{\"op\":\"remove\",\"path\":\"/todos/t1\"}]", why, sizeof why));
}

TEST(a_keyword_after_children_is_not_a_node_id) {
    char why[400];
    CHECK(!applies("[{\"op\":\"add\",\"path\":\"/todos/children/meta\",\"value\":{\"x\":1}}]", why, sizeof why));
    CHECK_CONTAINS(why, "reserved keyword");
    CHECK(!applies("[{\"op\":\"remove\",\"path\":\"/todos/children/properties\"}]", why, sizeof why));
    CHECK(applies("[{\"op\":\"remove\",\"path\":\"/todos/children/t1\"}]", why, sizeof why));
}

TEST(indexes_past_the_end_are_refused) {
    char why[400];
    CHECK(!applies("[{\"op\":\"add\",\"path\":\"/todos/t3\",\"index\":3,\"value\":{\"id\":\"t3\",\"type\":\"item\"}}]", why, sizeof why));
    CHECK_CONTAINS(why, "past the end");
    CHECK(applies("[{\"op\":\"add\",\"path\":\"/todos/t3\",\"index\":2,\"value\":{\"id\":\"t3\",\"type\":\"item\"}}]", why, sizeof why));
    CHECK(!applies("[{\"op\":\"move\",\"path\":\"/todos/t1\",\"index\":2}]", why, sizeof why));
    CHECK(!applies("[{\"op\":\"move\",\"path\":\"/todos/t1\",\"index\":-1}]", why, sizeof why));
    CHECK(applies("[{\"op\":\"move\",\"path\":\"/todos/t1\",\"index\":1}]", why, sizeof why));
}

TEST(null_in_a_field_position_means_absent_as_in_a_snapshot) {
    live l;
    start(&l, HELLO_ALL, "/", TODOS);
    patch(&l, 2, 1, "[{\"op\":\"replace\",\"path\":\"/todos/t1/properties\",\"value\":null}]");
    char *t = tree_at(&l, "/todos/t1");
    const char *want = "{\"id\":\"t1\",\"type\":\"item\",\"affordances\":"; /* no properties */
    CHECK(t && strncmp(t, want, strlen(want)) == 0);
    free(t);
    stop(&l);
    /* the same tree from a snapshot with properties: null */
    start(&l, HELLO_ALL, "/", "{\"id\":\"r\",\"type\":\"root\",\"properties\":null}");
    t = tree_at(&l, "/");
    CHECK_STR(t, "{\"id\":\"r\",\"type\":\"root\"}");
    free(t);
    stop(&l);
}

TEST(a_node_without_children_has_no_children_member_however_it_got_there) {
    const char *forms[] = {
        "{\"id\":\"r\",\"type\":\"root\",\"children\":[{\"id\":\"c\",\"type\":\"list\",\"children\":[]}]}",
        "{\"id\":\"r\",\"type\":\"root\",\"children\":[{\"id\":\"c\",\"type\":\"list\",\"children\":null}]}",
        "{\"id\":\"r\",\"type\":\"root\",\"children\":[{\"id\":\"c\",\"type\":\"list\"}]}",
        "{\"id\":\"r\",\"type\":\"root\",\"children\":[{\"id\":\"c\",\"type\":\"list\",\"children\":[{\"id\":\"x\",\"type\":\"i\"}]}]}",
    };
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        live l;
        start(&l, HELLO_ALL, "/", forms[i]);
        if (i == 3) patch(&l, 2, 1, "[{\"op\":\"remove\",\"path\":\"/c/x\"}]");
        char *t = tree_at(&l, "/");
        CHECK_STR(t, "{\"id\":\"r\",\"type\":\"root\",\"children\":[{\"id\":\"c\",\"type\":\"list\"}]}");
        free(t);
        stop(&l);
    }
}

TEST(a_snapshot_with_a_seq_other_than_0_is_refused) {
    live l;
    start(&l, HELLO_ALL, "/", TODOS);
    outs_free(&l.o);
    snapshot(&l, "4", "3", "{\"id\":\"r\",\"type\":\"root\"}");
    cJSON *e = ev(&l.o, "protocol_error", 0);
    CHECK(e && strcmp(str(e, "code"), "bad_seq") == 0);
    cJSON_Delete(e);
    CHECK(count_ev(&l.o, "snapshot") == 0);
    CHECK_KIDS(&l, "/todos", "[\"t1\",\"t2\"]");
    CHECK(status_has(&l, "\"state\":\"stale\",\"reason\":{\"code\":\"bad_seq\""));
    stop(&l);
}

TEST(a_subscription_the_provider_never_answers_times_out_and_is_retried) {
    live l;
    start(&l, HELLO_ALL, "/", NULL);
    slop_consumer_tick(l.c, 30000);
    drain(l.c, &l.o);
    CHECK(count_ev(&l.o, "timeout") == 1);
    CHECK(status_has(&l, "\"state\":\"failed\",\"reason\":{\"code\":\"timeout\""));
    CHECK(status_has(&l, "\"retry_at\":35000"));
    outs_free(&l.o);
    slop_consumer_tick(l.c, 35000);
    drain(l.c, &l.o);
    CHECK(count_ev(&l.o, "resync") == 1);
    cJSON *s = sent(&l.o, "subscribe", 0);
    CHECK(s != NULL);
    cJSON_Delete(s);
    stop(&l);
}

int main(void) {
    RUN(short_decimals_print_and_parse_as_printf_and_strtod_would);
    RUN(a_provider_that_restarts_with_its_counter_at_1_rebases_the_mirror);
    RUN(a_reconnect_to_the_same_process_is_a_rebase_not_a_restart);
    RUN(while_reconnecting_the_status_says_why_the_mirror_is_not_live);
    RUN(a_different_app_at_the_same_address_drops_the_old_mirror);
    RUN(a_restart_while_a_resync_is_in_flight_still_rebases);
    RUN(frames_after_close_are_never_applied);
    RUN(numbers_come_out_exactly_as_the_provider_sent_them);
    RUN(patched_numbers_keep_the_providers_text);
    RUN(exact_numbers_reach_trees_text_and_events);
    RUN(integers_beyond_a_double_keep_their_digits_everywhere);
    RUN(params_take_integers_beyond_a_double_as_integers_and_compare_their_digits);
    RUN(numbers_beyond_a_double_are_refused_anywhere_in_a_frame);
    RUN(the_overflow_check_reads_the_decimal_exponent_right);
    RUN(versions_and_seqs_are_integers_from_0_to_2_pow_53);
    RUN(invalid_utf8_anywhere_refuses_the_frame);
    RUN(a_nul_escape_is_refused_since_it_would_cut_the_string);
    RUN(duplicate_member_names_refuse_the_frame_everywhere);
    RUN(an_empty_node_object_as_the_first_object_is_refused_cleanly);
    RUN(paths_with_empty_segments_are_refused);
    RUN(a_keyword_after_children_is_not_a_node_id);
    RUN(indexes_past_the_end_are_refused);
    RUN(null_in_a_field_position_means_absent_as_in_a_snapshot);
    RUN(a_node_without_children_has_no_children_member_however_it_got_there);
    RUN(a_snapshot_with_a_seq_other_than_0_is_refused);
    RUN(a_subscription_the_provider_never_answers_times_out_and_is_retried);
    return check_report();
}
