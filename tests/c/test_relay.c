/*
 * test_relay.c: the relay of an outside consumer (the desktop bridge's) on a
 * provider channel shared with the extension's own consumer (relay.c).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "slop_core.h"

static char *out(slop_relay *r, const char *msg) { return slop_relay_outbound(r, msg, strlen(msg)); }
static char *in(slop_relay *r, const char *frame) { return slop_relay_inbound(r, frame, strlen(frame), NULL); }

#define EXPECT(call, want)                                                \
    do {                                                                  \
        char *got_ = (call);                                              \
        CHECK_STR(got_, want);                                            \
        slop_free(got_);                                                  \
    } while (0)

#define EXPECT_HAS(call, needle)                                          \
    do {                                                                  \
        char *got_ = (call);                                              \
        CHECK_CONTAINS(got_, needle);                                     \
        slop_free(got_);                                                  \
    } while (0)

#define EXPECT_NULL(call)                                                 \
    do {                                                                  \
        char *got_ = (call);                                              \
        CHECK(got_ == NULL);                                              \
        if (got_) printf("    got: %s\n", got_);                          \
        slop_free(got_);                                                  \
    } while (0)

TEST(a_tag_must_be_short_lowercase_and_plain) {
    CHECK(slop_relay_new(NULL) == NULL);
    CHECK(slop_relay_new("") == NULL);
    CHECK(slop_relay_new("B1") == NULL);
    CHECK(slop_relay_new("b~1") == NULL);
    CHECK(slop_relay_new("abcdefghijklmnopq") == NULL); /* 17 */
    slop_relay *r = slop_relay_new("abcdefghijklmnop");
    CHECK(r != NULL);
    slop_relay_free(r);
    slop_relay_free(NULL);
}

TEST(consumer_messages_get_the_relay_prefix_on_their_ids) {
    slop_relay *r = slop_relay_new("b1");
    EXPECT(out(r, "{\"type\":\"connect\"}"), "{\"ok\":true,\"type\":\"connect\",\"message\":{\"type\":\"connect\"}}");
    /* A connect's id would go out unprefixed: it is dropped. */
    EXPECT(out(r, "{\"type\":\"connect\",\"id\":\"sub-1\",\"path\":\"/\"}"),
           "{\"ok\":true,\"type\":\"connect\",\"message\":{\"type\":\"connect\",\"path\":\"/\"}}");
    EXPECT(out(r, "{\"type\":\"connect\",\"id\":7}"), "{\"ok\":true,\"type\":\"connect\",\"message\":{\"type\":\"connect\"}}");
    EXPECT(out(r, "{\"type\":\"subscribe\",\"id\":\"sub-1\",\"path\":\"/\",\"depth\":-1}"),
           "{\"ok\":true,\"type\":\"subscribe\",\"message\":{\"type\":\"subscribe\",\"id\":\"b1~sub-1\",\"path\":\"/\","
           "\"depth\":-1},\"id\":\"sub-1\"}");
    EXPECT(out(r, "{\"type\":\"invoke\",\"id\":\"r1\",\"path\":\"/todos/t1\",\"action\":\"delete\",\"params\":{\"n\":0.1}}"),
           "{\"ok\":true,\"type\":\"invoke\",\"message\":{\"type\":\"invoke\",\"id\":\"b1~r1\",\"path\":\"/todos/t1\","
           "\"action\":\"delete\",\"params\":{\"n\":0.1}},\"id\":\"r1\",\"path\":\"/todos/t1\",\"action\":\"delete\"}");
    EXPECT(out(r, "{\"type\":\"query\",\"id\":\"q\\u00e9\",\"path\":\"/\"}"),
           "{\"ok\":true,\"type\":\"query\",\"message\":{\"type\":\"query\",\"id\":\"b1~q\xc3\xa9\",\"path\":\"/\"},"
           "\"id\":\"q\xc3\xa9\"}");
    slop_relay_free(r);
}

TEST(provider_messages_and_bad_input_from_outside_are_not_relayed) {
    slop_relay *r = slop_relay_new("b1");
    EXPECT(out(r, "{\"type\":\"snapshot\",\"id\":\"sub-1\",\"version\":1,\"tree\":{}}"),
           "{\"ok\":false,\"error\":\"\\\"snapshot\\\" is not a consumer message: not relayed\",\"reply\":null}");
    EXPECT(out(r, "{\"type\":\"patch\",\"subscription\":\"x\"}"),
           "{\"ok\":false,\"error\":\"\\\"patch\\\" is not a consumer message: not relayed\",\"reply\":null}");
    EXPECT(out(r, "not json"), "{\"ok\":false,\"error\":\"message is not valid JSON: not relayed\",\"reply\":null}");
    EXPECT(out(r, "[1]"),
           "{\"ok\":false,\"error\":\"a message must be a JSON object with a string \\\"type\\\": not relayed\",\"reply\":null}");
    EXPECT(out(r, "{\"type\":\"subscribe\",\"id\":7}"),
           "{\"ok\":false,\"error\":\"subscribe needs a string \\\"id\\\" (1 to 200 bytes): not relayed\",\"reply\":null}");
    EXPECT(out(r, "{\"type\":\"invoke\",\"id\":\"r2\",\"path\":\"/a\"}"),
           "{\"ok\":false,\"error\":\"invoke needs a string \\\"path\\\" and \\\"action\\\": not relayed\",\"reply\":"
           "{\"type\":\"result\",\"id\":\"r2\",\"status\":\"error\",\"error\":{\"code\":\"bad_request\",\"message\":"
           "\"invoke needs a string \\\"path\\\" and \\\"action\\\"\"}}}");
    /* Strict like every frame: a member twice, deep nesting. */
    EXPECT(out(r, "{\"type\":\"connect\",\"type\":\"connect\"}"),
           "{\"ok\":false,\"error\":\"message is not valid JSON: not relayed\",\"reply\":null}");
    char deep[400];
    size_t n = 0;
    n += (size_t)snprintf(deep, sizeof deep, "{\"type\":\"connect\",\"x\":");
    for (int i = 0; i < 100; i++) deep[n++] = '[';
    for (int i = 0; i < 100; i++) deep[n++] = ']';
    deep[n++] = '}';
    deep[n] = 0;
    EXPECT(out(r, deep), "{\"ok\":false,\"error\":\"message nests too deep: not relayed\",\"reply\":null}");
    /* Nothing refused counted: no hello is owed. */
    EXPECT_NULL(in(r, "{\"type\":\"hello\",\"provider\":{\"id\":\"a\"}}"));
    slop_relay_free(r);
}

TEST(only_frames_addressed_to_the_relay_come_back_without_the_prefix) {
    slop_relay *r = slop_relay_new("b1");
    /* The extension's own consumer's frames, other relays' and echoes: not ours. */
    EXPECT_NULL(in(r, "{\"type\":\"snapshot\",\"id\":\"k3x9q2ab-s1\",\"version\":1,\"tree\":{\"id\":\"root\"}}"));
    EXPECT_NULL(in(r, "{\"type\":\"patch\",\"subscription\":\"b2~sub-1\",\"version\":2,\"ops\":[]}"));
    EXPECT_NULL(in(r, "{\"type\":\"subscribe\",\"id\":\"b1~sub-1\",\"path\":\"/\"}"));
    EXPECT_NULL(in(r, "{\"type\":\"result\",\"id\":\"b1~\",\"status\":\"ok\"}")); /* the prefix alone */
    /* Ours: exactly the provider's bytes, the prefix taken off. */
    EXPECT(in(r, "{\"type\":\"snapshot\",\"id\":\"b1~sub-1\",\"version\":1,\"tree\":{\"id\":\"root\",\"properties\":{\"p\":1.50,\"big\":12345678901234567890}}}"),
           "{\"type\":\"snapshot\",\"id\":\"sub-1\",\"version\":1,\"tree\":{\"id\":\"root\",\"properties\":{\"p\":1.50,\"big\":12345678901234567890}}}");
    EXPECT(in(r, "{ \"version\" : 2, \"subscription\" : \"b1~sub-1\" , \"type\" : \"patch\", \"ops\":[] }"),
           "{ \"version\" : 2, \"subscription\" : \"sub-1\" , \"type\" : \"patch\", \"ops\":[] }");
    EXPECT(in(r, "{\"type\":\"result\",\"id\":\"b1~r\\\"1\",\"status\":\"ok\"}"),
           "{\"type\":\"result\",\"id\":\"r\\\"1\",\"status\":\"ok\"}");
    EXPECT(in(r, "{\"type\":\"error\",\"id\":\"b1~q1\",\"error\":{\"code\":\"not_found\",\"message\":\"no\"}}"),
           "{\"type\":\"error\",\"id\":\"q1\",\"error\":{\"code\":\"not_found\",\"message\":\"no\"}}");
    /* For everyone: the provider's events and its errors about no request. */
    EXPECT(in(r, "{\"type\":\"event\",\"name\":\"toast\"}"), "{\"type\":\"event\",\"name\":\"toast\"}");
    EXPECT(in(r, "{\"type\":\"error\",\"error\":{\"code\":\"internal\",\"message\":\"x\"}}"),
           "{\"type\":\"error\",\"error\":{\"code\":\"internal\",\"message\":\"x\"}}");
    /* Malformed frames go nowhere. */
    EXPECT_NULL(in(r, "{\"type\":\"result\",\"id\":\"b1~r1\""));
    EXPECT_NULL(in(r, "{\"type\":\"result\",\"id\":\"b1~r1\"} x"));
    EXPECT_NULL(in(r, "{\"type\":\"result\",\"id\":\"b1~r1\",\"id\":\"b1~r2\"}"));
    EXPECT_NULL(in(r, "{\"type\":\"result\",\"id\":\"b1~\xff\"}"));
    EXPECT_NULL(in(r, "{\"type\":\"result\",\"id\":7}"));
    EXPECT_NULL(in(r, "[]"));
    slop_relay_free(r);
}

TEST(one_hello_comes_back_per_connect) {
    slop_relay *r = slop_relay_new("b1");
    const char *hello = "{\"type\":\"hello\",\"provider\":{\"id\":\"todo\",\"name\":\"Todo\"}}";
    EXPECT_NULL(in(r, hello)); /* the extension's own connect was answered */
    slop_free(out(r, "{\"type\":\"connect\"}"));
    EXPECT(in(r, hello), hello);
    EXPECT_NULL(in(r, hello));
    slop_free(out(r, "{\"type\":\"connect\"}"));
    slop_free(out(r, "{\"type\":\"connect\"}"));
    EXPECT(in(r, hello), hello);
    EXPECT(in(r, hello), hello);
    EXPECT_NULL(in(r, hello));
    slop_relay_free(r);
}

TEST(a_batch_is_cut_down_to_the_relays_messages) {
    slop_relay *r = slop_relay_new("b1");
    EXPECT(in(r, "{\"type\":\"batch\",\"messages\":[{\"type\":\"patch\",\"subscription\":\"own-s1\",\"version\":3,\"ops\":[]},"
                 "{\"type\":\"patch\",\"subscription\":\"b1~s\",\"version\":3,\"ops\":[{\"op\":\"replace\",\"path\":\"/a\",\"value\":1.0}]},"
                 "{\"type\":\"result\",\"id\":\"own-r1\",\"status\":\"ok\"},{\"type\":\"result\",\"id\":\"b1~r\",\"status\":\"ok\"}],\"x\":1}"),
           "{\"type\":\"batch\",\"messages\":[{\"type\":\"patch\",\"subscription\":\"s\",\"version\":3,\"ops\":[{\"op\":\"replace\","
           "\"path\":\"/a\",\"value\":1.0}]},{\"type\":\"result\",\"id\":\"r\",\"status\":\"ok\"}],\"x\":1}");
    EXPECT_NULL(in(r, "{\"type\":\"batch\",\"messages\":[{\"type\":\"patch\",\"subscription\":\"own-s1\",\"version\":3,\"ops\":[]}]}"));
    EXPECT_NULL(in(r, "{\"type\":\"batch\",\"messages\":[]}"));
    EXPECT_NULL(in(r, "{\"type\":\"batch\",\"messages\":[{\"type\":\"result\",\"id\":\"b1~r\"},7]}"));
    EXPECT(in(r, "{\"type\":\"batch\",\"messages\":[{\"type\":\"batch\",\"messages\":[{\"type\":\"result\",\"id\":\"b1~r\"}]}]}"),
           "{\"type\":\"batch\",\"messages\":[{\"type\":\"batch\",\"messages\":[{\"type\":\"result\",\"id\":\"r\"}]}]}");
    /* A hello inside a batch that is then dropped whole uses up nothing. */
    slop_free(out(r, "{\"type\":\"connect\"}"));
    EXPECT_NULL(in(r, "{\"type\":\"batch\",\"messages\":[{\"type\":\"hello\"},{\"type\":\"result\",\"id\":\"b1~r\"},7]}"));
    EXPECT(in(r, "{\"type\":\"hello\"}"), "{\"type\":\"hello\"}");
    slop_relay_free(r);
}

TEST(closing_unsubscribes_what_the_outside_consumer_left_open) {
    slop_relay *r = slop_relay_new("b1");
    slop_free(out(r, "{\"type\":\"subscribe\",\"id\":\"s1\",\"path\":\"/\"}"));
    slop_free(out(r, "{\"type\":\"subscribe\",\"id\":\"s2\",\"path\":\"/a\"}"));
    slop_free(out(r, "{\"type\":\"subscribe\",\"id\":\"s2\",\"path\":\"/a\"}")); /* the same id again */
    slop_free(out(r, "{\"type\":\"subscribe\",\"id\":\"s3\",\"path\":\"/b\"}"));
    slop_free(out(r, "{\"type\":\"unsubscribe\",\"id\":\"s1\"}"));
    EXPECT(slop_relay_close(r), "[{\"type\":\"unsubscribe\",\"id\":\"b1~s3\"},{\"type\":\"unsubscribe\",\"id\":\"b1~s2\"}]");
    EXPECT(slop_relay_close(r), "[]");
    slop_relay_free(r);
}

TEST(an_id_subscribed_twice_ends_at_the_second_unsubscribe) {
    /* Two desktop consumers behind a broadcasting bridge both use "sub-1". */
    slop_relay *r = slop_relay_new("b1");
    EXPECT_HAS(out(r, "{\"type\":\"subscribe\",\"id\":\"sub-1\",\"path\":\"/\"}"), "\"id\":\"b1~sub-1\"");
    EXPECT(out(r, "{\"type\":\"subscribe\",\"id\":\"sub-1\",\"path\":\"/\"}"),
           "{\"ok\":true,\"type\":\"subscribe\",\"message\":{\"type\":\"subscribe\",\"id\":\"b1~sub-1\",\"path\":\"/\"},"
           "\"id\":\"sub-1\"}");
    /* The first one leaves: nothing reaches the provider, the other's patches go on. */
    EXPECT(out(r, "{\"type\":\"unsubscribe\",\"id\":\"sub-1\"}"),
           "{\"ok\":true,\"type\":\"unsubscribe\",\"forward\":false,\"id\":\"sub-1\",\"why\":"
           "\"1 more subscribe(s) of this id are still open\"}");
    EXPECT(in(r, "{\"type\":\"patch\",\"subscription\":\"b1~sub-1\",\"version\":2,\"ops\":[]}"),
           "{\"type\":\"patch\",\"subscription\":\"sub-1\",\"version\":2,\"ops\":[]}");
    EXPECT(out(r, "{\"type\":\"unsubscribe\",\"id\":\"sub-1\"}"),
           "{\"ok\":true,\"type\":\"unsubscribe\",\"message\":{\"type\":\"unsubscribe\",\"id\":\"b1~sub-1\"},"
           "\"id\":\"sub-1\"}");
    EXPECT(slop_relay_close(r), "[]");
    /* Closed with one still held: one unsubscribe, not two. */
    slop_free(out(r, "{\"type\":\"subscribe\",\"id\":\"s\"}"));
    slop_free(out(r, "{\"type\":\"subscribe\",\"id\":\"s\"}"));
    EXPECT(slop_relay_close(r), "[{\"type\":\"unsubscribe\",\"id\":\"b1~s\"}]");
    slop_relay_free(r);
}

TEST(opening_asks_for_a_hello_once_for_a_consumer_that_never_connects) {
    slop_relay *r = slop_relay_new("b1");
    EXPECT(slop_relay_open(r), "{\"type\":\"connect\"}");
    EXPECT_NULL(slop_relay_open(r)); /* owed already */
    /* The consumer's own connect while that hello is on its way: not sent again. */
    EXPECT(out(r, "{\"type\":\"connect\"}"),
           "{\"ok\":true,\"type\":\"connect\",\"forward\":false,\"why\":"
           "\"the hello asked for when the relay opened answers it\"}");
    EXPECT(in(r, "{\"type\":\"hello\",\"provider\":{\"id\":\"p\"}}"), "{\"type\":\"hello\",\"provider\":{\"id\":\"p\"}}");
    EXPECT_NULL(in(r, "{\"type\":\"hello\"}")); /* one hello for the two */
    EXPECT_NULL(slop_relay_open(r));               /* it has had its hello */
    /* A later connect of its own is forwarded and answered. */
    EXPECT_HAS(out(r, "{\"type\":\"connect\"}"), "\"message\":{\"type\":\"connect\"}");
    EXPECT(in(r, "{\"type\":\"hello\"}"), "{\"type\":\"hello\"}");
    /* After close, a new opening asks again. */
    EXPECT(slop_relay_close(r), "[]");
    EXPECT(slop_relay_open(r), "{\"type\":\"connect\"}");
    CHECK(slop_relay_open(NULL) == NULL);
    slop_relay_free(r);

    /* The hello came back before the consumer's connect: that connect gets its own hello. */
    r = slop_relay_new("b2");
    slop_free(slop_relay_open(r));
    EXPECT(in(r, "{\"type\":\"hello\"}"), "{\"type\":\"hello\"}");
    EXPECT_HAS(out(r, "{\"type\":\"connect\"}"), "\"message\":{\"type\":\"connect\"}");
    EXPECT(in(r, "{\"type\":\"hello\"}"), "{\"type\":\"hello\"}");
    slop_relay_free(r);
}

TEST(subscriptions_through_one_relay_are_bounded) {
    slop_relay *r = slop_relay_new("b1");
    char msg[80];
    for (int i = 0; i < 256; i++) {
        snprintf(msg, sizeof msg, "{\"type\":\"subscribe\",\"id\":\"s%d\"}", i);
        char *o = out(r, msg);
        CHECK_CONTAINS(o, "\"ok\":true");
        slop_free(o);
    }
    EXPECT(out(r, "{\"type\":\"subscribe\",\"id\":\"one-more\"}"),
           "{\"ok\":false,\"error\":\"too many subscriptions through this relay (256): not relayed\",\"reply\":"
           "{\"type\":\"error\",\"id\":\"one-more\",\"error\":{\"code\":\"bad_request\",\"message\":"
           "\"too many subscriptions through this relay (256)\"}}}");
    slop_relay_free(r);
}

TEST(a_refused_request_gets_the_answer_its_caller_waits_for) {
    EXPECT(slop_relay_refusal("invoke", "r1", "unauthorized", "declined in SLOP Inspector"),
           "{\"type\":\"result\",\"id\":\"r1\",\"status\":\"error\",\"error\":{\"code\":\"unauthorized\",\"message\":"
           "\"declined in SLOP Inspector\"}}");
    EXPECT(slop_relay_refusal("query", "q1", "bad_request", "no"),
           "{\"type\":\"error\",\"id\":\"q1\",\"error\":{\"code\":\"bad_request\",\"message\":\"no\"}}");
    CHECK(slop_relay_refusal(NULL, "q1", "x", "y") == NULL);
    /* The relay itself refused: an error without an id; an invoke always has one. */
    EXPECT(slop_relay_refusal("relay", NULL, "not_supported", "not relayed"),
           "{\"type\":\"error\",\"error\":{\"code\":\"not_supported\",\"message\":\"not relayed\"}}");
    CHECK(slop_relay_refusal("invoke", NULL, "x", "y") == NULL);
}

int main(void) {
    RUN(a_tag_must_be_short_lowercase_and_plain);
    RUN(consumer_messages_get_the_relay_prefix_on_their_ids);
    RUN(provider_messages_and_bad_input_from_outside_are_not_relayed);
    RUN(only_frames_addressed_to_the_relay_come_back_without_the_prefix);
    RUN(one_hello_comes_back_per_connect);
    RUN(a_batch_is_cut_down_to_the_relays_messages);
    RUN(closing_unsubscribes_what_the_outside_consumer_left_open);
    RUN(an_id_subscribed_twice_ends_at_the_second_unsubscribe);
    RUN(opening_asks_for_a_hello_once_for_a_consumer_that_never_connects);
    RUN(subscriptions_through_one_relay_are_bounded);
    RUN(a_refused_request_gets_the_answer_its_caller_waits_for);
    return check_report();
}
