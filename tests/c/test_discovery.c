/*
 * test_discovery.c: the strict URL parser (url.c), the /.well-known/slop
 * descriptor, the <meta name="slop"> tag and origin classification
 * (discovery.c). The classification tests mirror the reference
 * apps/extension/__tests__/origin.test.ts.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "slop_core.h"
#include "url.h"

/* Compares a malloc'd JSON result with the expected text, then frees it. */
#define EXPECT_JSON(call, want)                                           \
    do {                                                                  \
        char *got_ = (call);                                              \
        CHECK_STR(got_, want);                                            \
        free(got_);                                                       \
    } while (0)

static char *descriptor(const char *json) { return slop_parse_descriptor(json, strlen(json)); }

/* The "error" member of a {"ok":false,...} result, copied into buf. */
static const char *error_of(char *result, char *buf, size_t cap) {
    buf[0] = '\0';
    cJSON *o = result ? cJSON_Parse(result) : NULL;
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(o, "ok");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
    if (cJSON_IsFalse(ok) && cJSON_IsString(e)) snprintf(buf, cap, "%s", e->valuestring);
    else snprintf(buf, cap, "(not an error: %s)", result ? result : "NULL");
    cJSON_Delete(o);
    free(result);
    return buf;
}

#define EXPECT_ERROR(call, want)                                          \
    do {                                                                  \
        char b_[512];                                                     \
        CHECK_STR(error_of((call), b_, sizeof b_), want);                 \
    } while (0)

#define EXPECT_ERROR_CONTAINS(call, want)                                 \
    do {                                                                  \
        char b_[512];                                                     \
        CHECK_CONTAINS(error_of((call), b_, sizeof b_), want);            \
    } while (0)

/* The "classification" of slop_classify_target(page, target). */
static const char *classify(const char *page, const char *target) {
    static char buf[32];
    char *r = slop_classify_target(page, target);
    cJSON *o = r ? cJSON_Parse(r) : NULL;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "classification");
    snprintf(buf, sizeof buf, "%s", cJSON_IsString(c) ? c->valuestring : "(none)");
    cJSON_Delete(o);
    free(r);
    return buf;
}

/* The normalised href of a URL, or its parse error. Static buffer. */
static const char *href(const char *url) {
    static char buf[512];
    slop__url u;
    const char *err = slop__url_parse(url, &u);
    if (err) {
        snprintf(buf, sizeof buf, "error: %s", err);
        return buf;
    }
    char *h = slop__url_href(&u);
    snprintf(buf, sizeof buf, "%s", h ? h : "(oom)");
    free(h);
    return buf;
}


/* ---- local descriptors and the filesystem hardening ---------------------- */

static char *local_descriptor(const char *json) { return slop_parse_local_descriptor(json, strlen(json)); }

#define LOCAL_HEAD "{\"id\":\"app\",\"name\":\"App\",\"slop_version\":\"0.1\",\"capabilities\":[\"state\"],"

TEST(local_descriptors_take_unix_stdio_and_ws_transports_and_keep_the_pid) {
    EXPECT_JSON(local_descriptor(LOCAL_HEAD "\"pid\":4242,\"transport\":{\"type\":\"unix\",\"path\":\"/tmp/slop/app.sock\"}}"),
                "{\"ok\":true,\"descriptor\":{\"id\":\"app\",\"name\":\"App\",\"slop_version\":\"0.1\",\"pid\":4242,"
                "\"transport\":{\"type\":\"unix\",\"path\":\"/tmp/slop/app.sock\"},\"capabilities\":[\"state\"]}}");
    EXPECT_JSON(local_descriptor(LOCAL_HEAD "\"transport\":{\"type\":\"stdio\",\"command\":[\"my-tool\",\"--slop\",\"a b\"]}}"),
                "{\"ok\":true,\"descriptor\":{\"id\":\"app\",\"name\":\"App\",\"slop_version\":\"0.1\","
                "\"transport\":{\"type\":\"stdio\",\"command\":[\"my-tool\",\"--slop\",\"a b\"]},\"capabilities\":[\"state\"]}}");
    EXPECT_JSON(local_descriptor(LOCAL_HEAD "\"transport\":{\"type\":\"ws\",\"url\":\"ws://127.0.0.1:9222/slop\"}}"),
                "{\"ok\":true,\"descriptor\":{\"id\":\"app\",\"name\":\"App\",\"slop_version\":\"0.1\","
                "\"transport\":{\"type\":\"ws\",\"url\":\"ws://127.0.0.1:9222/slop\"},\"capabilities\":[\"state\"]}}");
}

TEST(local_transports_are_checked_in_words) {
    EXPECT_ERROR(local_descriptor(LOCAL_HEAD "\"transport\":{\"type\":\"unix\",\"path\":\"app.sock\"}}"),
                 "transport.path must be the socket's absolute path");
    EXPECT_ERROR(local_descriptor(LOCAL_HEAD "\"transport\":{\"type\":\"unix\"}}"),
                 "transport.path must be the socket's absolute path");
    char big[400];
    snprintf(big, sizeof big, LOCAL_HEAD "\"transport\":{\"type\":\"unix\",\"path\":\"/%0120d\"}}", 0);
    EXPECT_ERROR_CONTAINS(local_descriptor(big), "longer than a Unix socket path may be");
    EXPECT_ERROR(local_descriptor(LOCAL_HEAD "\"transport\":{\"type\":\"stdio\",\"command\":\"my-tool --slop\"}}"),
                 "transport.command must be a non-empty array of strings (the program and its arguments)");
    EXPECT_ERROR(local_descriptor(LOCAL_HEAD "\"transport\":{\"type\":\"stdio\",\"command\":[]}}"),
                 "transport.command must be a non-empty array of strings (the program and its arguments)");
    EXPECT_ERROR(local_descriptor(LOCAL_HEAD "\"transport\":{\"type\":\"stdio\",\"command\":[\"\"]}}"),
                 "transport.command[0] (the program) is empty");
    EXPECT_ERROR(local_descriptor(LOCAL_HEAD "\"transport\":{\"type\":\"stdio\",\"command\":[\"a\",1]}}"),
                 "transport.command must be an array of strings");
    EXPECT_ERROR(local_descriptor(LOCAL_HEAD "\"transport\":{\"type\":\"stdio\"}}"),
                 "transport.command is required (an array: the program and its arguments)");
    EXPECT_ERROR_CONTAINS(local_descriptor(LOCAL_HEAD "\"transport\":{\"type\":\"postmessage\"}}"),
                          "is for a provider inside a web page");
    EXPECT_ERROR_CONTAINS(local_descriptor(LOCAL_HEAD "\"transport\":{\"type\":\"pipe\",\"name\":\"x\"}}"),
                          "Windows named pipe");
    EXPECT_ERROR(local_descriptor(LOCAL_HEAD "\"pid\":-1,\"transport\":{\"type\":\"stdio\",\"command\":[\"a\"]}}"),
                 "pid must be a positive integer (the provider's process id)");
    EXPECT_ERROR(local_descriptor(LOCAL_HEAD "\"pid\":\"12\",\"transport\":{\"type\":\"stdio\",\"command\":[\"a\"]}}"),
                 "pid must be a positive integer (the provider's process id)");
    EXPECT_ERROR(local_descriptor(LOCAL_HEAD "\"pid\":1.5,\"transport\":{\"type\":\"stdio\",\"command\":[\"a\"]}}"),
                 "pid must be a positive integer (the provider's process id)");
    /* A web descriptor still names only a WebSocket or the page, and its pid is not read. */
    EXPECT_ERROR_CONTAINS(descriptor(LOCAL_HEAD "\"transport\":{\"type\":\"unix\",\"path\":\"/tmp/a.sock\"}}"),
                          "is for local apps");
    EXPECT_JSON(descriptor(LOCAL_HEAD "\"pid\":\"x\",\"transport\":{\"type\":\"postmessage\"}}"),
                "{\"ok\":true,\"descriptor\":{\"id\":\"app\",\"name\":\"App\",\"slop_version\":\"0.1\","
                "\"transport\":{\"type\":\"postmessage\"},\"capabilities\":[\"state\"]}}");
}

/* The code of a refusal, "pass" when there is none. Static buffer. */
static const char *refusal_code(int kind, const char *name, int type, unsigned mode, double owner, double me) {
    static char buf[64];
    char *r = slop_local_refusal(kind, name, type, mode, owner, me);
    cJSON *o = r ? cJSON_Parse(r) : NULL;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "code");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "why");
    snprintf(buf, sizeof buf, "%s", !r ? "pass" : cJSON_IsString(c) && cJSON_IsString(w) && w->valuestring[0] ? c->valuestring : "(malformed)");
    cJSON_Delete(o);
    free(r);
    return buf;
}

TEST(descriptor_names_follow_the_spec_pattern) {
    const char *good[] = {"vscode.json", "a.json", "0.json", "my-app_2.x.json",
                          "a123456789012345678901234567890123456789012345678901234567890123.json"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) CHECK_STR(refusal_code(SLOP_LOCAL_NAME, good[i], 0, 0, 0, 0), "pass");
    const char *bad[] = {"VSCode.json", ".app.json", "-app.json", "_a.json", "app.JSON", "app.json5", "app", ".json",
                         "a b.json", "app/x.json", "..", "app.json~", "\xc3\xa9.json",
                         "a1234567890123456789012345678901234567890123456789012345678901234.json", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (strcmp(refusal_code(SLOP_LOCAL_NAME, bad[i], 0, 0, 0, 0), "bad_name") != 0) printf("  name passed: %s\n", bad[i]);
        CHECK_STR(refusal_code(SLOP_LOCAL_NAME, bad[i], 0, 0, 0, 0), "bad_name");
    }
    CHECK_STR(refusal_code(SLOP_LOCAL_NAME, "app.json.tmp.4242", 0, 0, 0, 0), "temp_file");
    CHECK_STR(refusal_code(SLOP_LOCAL_NAME, NULL, 0, 0, 0, 0), "bad_name");
}

TEST(provider_directories_must_be_ours_and_closed_to_others) {
    CHECK_STR(refusal_code(SLOP_LOCAL_DIR, NULL, 'd', 040700, 1000, 1000), "pass");
    CHECK_STR(refusal_code(SLOP_LOCAL_DIR, NULL, 'd', 040500, 1000, 1000), "pass");
    CHECK_STR(refusal_code(SLOP_LOCAL_DIR, NULL, 'd', 040755, 1000, 1000), "dir_mode");
    CHECK_STR(refusal_code(SLOP_LOCAL_DIR, NULL, 'd', 040710, 1000, 1000), "dir_mode");
    CHECK_STR(refusal_code(SLOP_LOCAL_DIR, NULL, 'd', 040701, 1000, 1000), "dir_mode");
    CHECK_STR(refusal_code(SLOP_LOCAL_DIR, NULL, 'd', 041777, 0, 0), "dir_mode");
    CHECK_STR(refusal_code(SLOP_LOCAL_DIR, NULL, 'd', 040700, 1001, 1000), "dir_owner");
    CHECK_STR(refusal_code(SLOP_LOCAL_DIR, NULL, 'l', 0120777, 1000, 1000), "not_a_directory");
    CHECK_STR(refusal_code(SLOP_LOCAL_DIR, NULL, 'f', 0100700, 1000, 1000), "not_a_directory");
    char *r = slop_local_refusal(SLOP_LOCAL_DIR, NULL, 'd', 040755, 1000, 1000);
    CHECK_CONTAINS(r, "its mode is 0755; the spec requires 0700");
    free(r);
    r = slop_local_refusal(SLOP_LOCAL_DIR, NULL, 'd', 040700, 4294967294.0, 1000);
    CHECK_CONTAINS(r, "owned by uid 4294967294, not by you (uid 1000)");
    free(r);
}

TEST(descriptor_files_must_be_ours_regular_and_0600) {
    CHECK_STR(refusal_code(SLOP_LOCAL_FILE, NULL, 'f', 0100600, 1000, 1000), "pass");
    CHECK_STR(refusal_code(SLOP_LOCAL_FILE, NULL, 'f', 0100644, 1000, 1000), "file_mode");
    CHECK_STR(refusal_code(SLOP_LOCAL_FILE, NULL, 'f', 0100400, 1000, 1000), "file_mode");
    CHECK_STR(refusal_code(SLOP_LOCAL_FILE, NULL, 'f', 0100700, 1000, 1000), "file_mode");
    CHECK_STR(refusal_code(SLOP_LOCAL_FILE, NULL, 'f', 0104600, 1000, 1000), "file_mode");
    CHECK_STR(refusal_code(SLOP_LOCAL_FILE, NULL, 'f', 0100600, 0, 1000), "file_owner");
    CHECK_STR(refusal_code(SLOP_LOCAL_FILE, NULL, 'l', 0120777, 1000, 1000), "not_a_file");
    CHECK_STR(refusal_code(SLOP_LOCAL_FILE, NULL, '?', 010600, 1000, 1000), "not_a_file");
    CHECK_STR(refusal_code(SLOP_LOCAL_FILE, NULL, 'd', 040600, 1000, 1000), "not_a_file");
    CHECK_STR(refusal_code(7, NULL, 'f', 0100600, 1000, 1000), "bad_kind");
}

/* ---- loopback --------------------------------------------------------------- */

TEST(the_loopback_family_is_recognised) {
    const char *yes[] = {"localhost", "LOCALHOST", "LocalHost", "app.localhost", "a.b.LOCALHOST",
                         "127.0.0.1", "127.255.255.255", "127.1.2.3", "127.000.000.001",
                         "::1", "[::1]", "[0:0:0:0:0:0:0:1]", "0::1"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (!slop__url_is_loopback_host(yes[i])) printf("  expected loopback: %s\n", yes[i]);
        CHECK(slop__url_is_loopback_host(yes[i]));
    }
}

TEST(hosts_outside_the_loopback_family_are_not_loopback) {
    const char *no[] = {"localhost.example.com", "128.0.0.1", "::2", "[::2]", "example.com",
                        "127.0.0", "127.0.0.1.2", "127.0.0.256", "1270.0.0.1", "127.0.0.1000",
                        "127.0.0.1.evil.com", "notlocalhost", "localhost.", "0.0.0.0",
                        "::ffff:127.0.0.1", "[::1", "", "[]"};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        if (slop__url_is_loopback_host(no[i])) printf("  expected not loopback: %s\n", no[i]);
        CHECK(!slop__url_is_loopback_host(no[i]));
    }
    CHECK(!slop__url_is_loopback_host(NULL));
}

/* ---- the URL parser --------------------------------------------------------- */

TEST(the_url_parser_lowercases_scheme_and_host_and_drops_default_ports) {
    CHECK_STR(href("WS://LocalHost:3737/Slop?Token=A"), "ws://localhost:3737/Slop?Token=A");
    CHECK_STR(href("ws://example.com:80/slop"), "ws://example.com/slop");
    CHECK_STR(href("wss://example.com:443/slop"), "wss://example.com/slop");
    CHECK_STR(href("wss://example.com:80/slop"), "wss://example.com:80/slop");
    CHECK_STR(href("https://example.com:443"), "https://example.com/");
    CHECK_STR(href("ws://h?x=1"), "ws://h/?x=1");
    CHECK_STR(href("ws://h:0"), "ws://h:0/");
}

TEST(the_url_parser_reads_bracketed_ipv6_hosts) {
    slop__url u;
    CHECK(slop__url_parse("ws://[::1]:3737/slop", &u) == NULL);
    CHECK_STR(u.host, "[::1]");
    CHECK(u.port == 3737);
    CHECK(u.path_len == 5 && !memcmp(u.path, "/slop", 5));
    CHECK_STR(href("ws://[0:0:0:0:0:0:0:1]/"), "ws://[::1]/");
    CHECK_STR(href("ws://[2001:DB8:0:0:1:0:0:1]/"), "ws://[2001:db8::1:0:0:1]/");
    CHECK_STR(href("ws://[::FFFF:127.0.0.1]/"), "ws://[::ffff:7f00:1]/");
    CHECK_STR(href("ws://[1::]/"), "ws://[1::]/");
    CHECK_STR(href("ws://[1:2:3:4:5:6:7:8]/"), "ws://[1:2:3:4:5:6:7:8]/");
    const char *bad[] = {"ws://[::1/", "ws://[zz::1]/", "ws://[::1%25eth0]/", "ws://[1:2:3:4:5:6:7:8:9]/",
                         "ws://[1::2::3]/", "ws://[12345::]/", "ws://[]/", "ws://[::1]x/",
                         "ws://[1:2:3:4:5:6:7::8]/", "ws://[:1::]/", "ws://[1:]/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (slop__url_parse(bad[i], &u) == NULL) printf("  accepted: %s\n", bad[i]);
        CHECK_STR(href(bad[i]), "error: has an invalid IPv6 address");
    }
}

TEST(the_url_parser_refuses_what_a_browser_would_rewrite) {
    CHECK_STR(href("ws://exa mple.com/"), "error: contains a space");
    CHECK_STR(href("ws://example.com/a\tb"), "error: contains a control character");
    CHECK_STR(href("ws://example.com\\@evil.com/"), "error: contains a backslash");
    CHECK_STR(href("ws://2130706433/"), "error: has an invalid IPv4 address");
    CHECK_STR(href("ws://127.1/"), "error: has an invalid IPv4 address");
    CHECK_STR(href("ws://0x7f.0.0.1/"), "error: has an invalid IPv4 address");
    CHECK_STR(href("ws://127.0.0.01/"), "error: has an invalid IPv4 address");
    CHECK_STR(href("ws://1.2.3.256/"), "error: has an invalid IPv4 address");
    CHECK_STR(href("ws://ex%61mple.com/"), "error: has an invalid character in its host");
    CHECK_STR(href("ws://b\xc3\xbc" "cher.de/"), "error: has a non-ASCII host (use punycode)");
    CHECK_STR(href("ws://127.0.0.1/"), "ws://127.0.0.1/");
    CHECK_STR(href("ws://v1.example.com/"), "ws://v1.example.com/");
}

TEST(the_url_parser_needs_a_scheme_a_host_and_a_valid_port) {
    CHECK_STR(href(""), "error: is empty");
    CHECK_STR(href(NULL), "error: is empty");
    CHECK_STR(href("/slop"), "error: has no scheme");
    CHECK_STR(href("1ws://h/"), "error: has no scheme");
    CHECK_STR(href("ws:/h/"), "error: has no host");
    CHECK_STR(href("ws:///slop"), "error: has no host");
    CHECK_STR(href("ws://:3737/slop"), "error: has no host");
    CHECK_STR(href("about:blank"), "error: has no host");
    CHECK_STR(href("file:///home/x.html"), "error: has no host");
    CHECK_STR(href("ws://h:/"), "error: has an invalid port");
    CHECK_STR(href("ws://h:65536/"), "error: has an invalid port");
    CHECK_STR(href("ws://h:12a/"), "error: has an invalid port");
    CHECK_STR(href("ws://h:1:2/"), "error: has an invalid port");
    CHECK_STR(href("ws://h:65535/"), "ws://h:65535/");
}

TEST(websocket_urls_refuse_credentials_and_fragments) {
    CHECK_STR(href("ws://user:pw@localhost:3737/slop"), "error: must not contain credentials (user@host)");
    CHECK_STR(href("wss://token@example.com/"), "error: must not contain credentials (user@host)");
    CHECK_STR(href("ws://localhost/slop#x"), "error: must not contain a fragment (#)");
    /* A page URL may carry both; neither is part of its origin. */
    CHECK_STR(href("https://user:pw@Example.com/a?b#c"), "https://example.com/a?b");
}

/* ---- the well-known descriptor ---------------------------------------------- */

static const char kanban[] =
    "{ \"id\": \"kanban\", \"name\": \"Kanban Board\", \"slop_version\": \"0.1\",\n"
    "  \"transport\": { \"type\": \"ws\", \"url\": \"ws://localhost:3737/slop\" },\n"
    "  \"capabilities\": [\"state\", \"patches\", \"affordances\"] }\n";

TEST(the_spec_example_descriptor_is_accepted) {
    EXPECT_JSON(descriptor(kanban),
                "{\"ok\":true,\"descriptor\":{\"id\":\"kanban\",\"name\":\"Kanban Board\","
                "\"slop_version\":\"0.1\",\"transport\":{\"type\":\"ws\",\"url\":\"ws://localhost:3737/slop\"},"
                "\"capabilities\":[\"state\",\"patches\",\"affordances\"]}}");
}

TEST(a_descriptor_is_normalised_and_keeps_only_known_members) {
    EXPECT_JSON(descriptor("{\"capabilities\":[\"state\",\"patches\",\"state\"],\"pid\":12,\"extra\":{},"
                           "\"description\":\"d\",\"version\":\"1.2\",\"transport\":{\"type\":\"ws\","
                           "\"url\":\"WSS://Example.COM:443/slop\",\"token\":\"x\"},\"slop_version\":\"0.1\","
                           "\"name\":\"\",\"id\":\"x\"}"),
                "{\"ok\":true,\"descriptor\":{\"id\":\"x\",\"name\":\"\",\"slop_version\":\"0.1\","
                "\"version\":\"1.2\",\"description\":\"d\",\"transport\":{\"type\":\"ws\","
                "\"url\":\"wss://example.com/slop\"},\"capabilities\":[\"state\",\"patches\"]}}");
}

TEST(a_postmessage_descriptor_is_accepted) {
    EXPECT_JSON(descriptor("{\"id\":\"spa\",\"name\":\"SPA\",\"slop_version\":\"0.1\","
                           "\"transport\":{\"type\":\"postmessage\"},\"capabilities\":[\"state\"]}"),
                "{\"ok\":true,\"descriptor\":{\"id\":\"spa\",\"name\":\"SPA\",\"slop_version\":\"0.1\","
                "\"transport\":{\"type\":\"postmessage\"},\"capabilities\":[\"state\"]}}");
}

#define WITH_TRANSPORT(t) \
    "{\"id\":\"a\",\"name\":\"A\",\"slop_version\":\"0.1\",\"capabilities\":[\"state\"],\"transport\":" t "}"

TEST(local_transports_are_refused_for_a_browser_consumer) {
    EXPECT_ERROR(descriptor(WITH_TRANSPORT("{\"type\":\"unix\",\"path\":\"/tmp/slop/a.sock\"}")),
                 "transport type \"unix\" is for local apps; a browser consumer needs \"ws\" or \"postmessage\"");
    EXPECT_ERROR_CONTAINS(descriptor(WITH_TRANSPORT("{\"type\":\"stdio\",\"command\":[\"x\"]}")), "\"stdio\" is for local apps");
    EXPECT_ERROR_CONTAINS(descriptor(WITH_TRANSPORT("{\"type\":\"pipe\",\"name\":\"p\"}")), "\"pipe\" is for local apps");
    EXPECT_ERROR(descriptor(WITH_TRANSPORT("{\"type\":\"carrier-pigeon\"}")),
                 "transport type \"carrier-pigeon\" is not supported (use \"ws\" or \"postmessage\")");
    EXPECT_ERROR(descriptor(WITH_TRANSPORT("{\"type\":\"WS\",\"url\":\"ws://h/\"}")),
                 "transport type \"WS\" is not supported (use \"ws\" or \"postmessage\")");
    EXPECT_ERROR(descriptor(WITH_TRANSPORT("{\"type\":1}")), "transport.type must be a string");
    /* An echoed type is cut to 32 bytes, never inside a UTF-8 sequence. */
    EXPECT_ERROR(descriptor(WITH_TRANSPORT("{\"type\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\u00e9\u00e9\"}")),
                 "transport type \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is not supported (use \"ws\" or \"postmessage\")");
    EXPECT_ERROR(descriptor(WITH_TRANSPORT("\"ws://h/\"")), "transport must be an object");
}

TEST(a_ws_transport_needs_a_valid_websocket_url) {
    EXPECT_ERROR(descriptor(WITH_TRANSPORT("{\"type\":\"ws\",\"url\":\"http://localhost:3737/slop\"}")),
                 "transport.url must be a ws:// or wss:// URL");
    EXPECT_ERROR(descriptor(WITH_TRANSPORT("{\"type\":\"ws\"}")), "transport.url must be a ws:// or wss:// URL");
    EXPECT_ERROR(descriptor(WITH_TRANSPORT("{\"type\":\"ws\",\"url\":\"/slop\"}")),
                 "transport.url must be a ws:// or wss:// URL");
    EXPECT_ERROR(descriptor(WITH_TRANSPORT("{\"type\":\"ws\",\"url\":\"ws://u:p@h/slop\"}")),
                 "transport.url must not contain credentials (user@host)");
    EXPECT_ERROR(descriptor(WITH_TRANSPORT("{\"type\":\"ws\",\"url\":\"ws://h /slop\"}")),
                 "transport.url contains a space");
    EXPECT_ERROR(descriptor(WITH_TRANSPORT("{\"type\":\"ws\",\"url\":\"ws:///slop\"}")),
                 "transport.url has no host");
}

TEST(required_descriptor_members_are_enforced) {
    EXPECT_ERROR(descriptor("{\"name\":\"A\",\"slop_version\":\"0.1\",\"capabilities\":[\"state\"],"
                            "\"transport\":{\"type\":\"postmessage\"}}"), "id is required");
    EXPECT_ERROR(descriptor("{\"id\":\"\",\"name\":\"A\",\"slop_version\":\"0.1\",\"capabilities\":[\"state\"],"
                            "\"transport\":{\"type\":\"postmessage\"}}"), "id must be a non-empty string");
    EXPECT_ERROR(descriptor("{\"id\":7,\"name\":\"A\"}"), "id must be a non-empty string");
    EXPECT_ERROR(descriptor("{\"id\":\"a\",\"slop_version\":\"0.1\"}"), "name is required");
    EXPECT_ERROR(descriptor("{\"id\":\"a\",\"name\":null}"), "name must be a string");
    EXPECT_ERROR(descriptor("{\"id\":\"a\",\"name\":\"A\"}"), "slop_version is required");
    EXPECT_ERROR(descriptor("{\"id\":\"a\",\"name\":\"A\",\"slop_version\":0.1}"), "slop_version must be a string");
    EXPECT_ERROR(descriptor("{\"id\":\"a\",\"name\":\"A\",\"slop_version\":\"0.1\",\"capabilities\":[\"state\"]}"),
                 "transport is required");
    EXPECT_ERROR(descriptor("{\"id\":\"a\",\"name\":\"A\",\"slop_version\":\"0.1\","
                            "\"transport\":{\"type\":\"postmessage\"}}"), "capabilities is required");
    /* Member names are case-sensitive. */
    EXPECT_ERROR(descriptor("{\"ID\":\"a\"}"), "id is required");
}

TEST(optional_descriptor_members_must_be_strings_when_present) {
    EXPECT_ERROR(descriptor("{\"id\":\"a\",\"name\":\"A\",\"slop_version\":\"0.1\",\"version\":2,"
                            "\"capabilities\":[\"state\"],\"transport\":{\"type\":\"postmessage\"}}"),
                 "version must be a string");
    EXPECT_ERROR(descriptor("{\"id\":\"a\",\"name\":\"A\",\"slop_version\":\"0.1\",\"description\":[],"
                            "\"capabilities\":[\"state\"],\"transport\":{\"type\":\"postmessage\"}}"),
                 "description must be a string");
}

TEST(capabilities_must_be_strings_and_include_state) {
    const char *head = "{\"id\":\"a\",\"name\":\"A\",\"slop_version\":\"0.1\",\"transport\":{\"type\":\"postmessage\"},";
    char buf[256];
    snprintf(buf, sizeof buf, "%s\"capabilities\":[\"patches\"]}", head);
    EXPECT_ERROR(descriptor(buf), "capabilities must include \"state\"");
    snprintf(buf, sizeof buf, "%s\"capabilities\":[]}", head);
    EXPECT_ERROR(descriptor(buf), "capabilities must include \"state\"");
    snprintf(buf, sizeof buf, "%s\"capabilities\":[\"State\"]}", head);
    EXPECT_ERROR(descriptor(buf), "capabilities must include \"state\"");
    snprintf(buf, sizeof buf, "%s\"capabilities\":[\"state\",3]}", head);
    EXPECT_ERROR(descriptor(buf), "capabilities must be an array of strings");
    snprintf(buf, sizeof buf, "%s\"capabilities\":\"state\"}", head);
    EXPECT_ERROR(descriptor(buf), "capabilities must be an array of strings");

    /* A bounded list keeps the de-duplication cheap. */
    char many[1024];
    size_t n = (size_t)snprintf(many, sizeof many, "%s\"capabilities\":[\"state\"", head);
    for (int i = 0; i < 64; i++) n += (size_t)snprintf(many + n, sizeof many - n, ",\"c%d\"", i);
    snprintf(many + n, sizeof many - n, "]}");
    EXPECT_ERROR(descriptor(many), "capabilities has more than 64 entries");
}

TEST(malformed_or_oversized_descriptors_are_refused) {
    EXPECT_ERROR(descriptor("{\"id\":"), "descriptor is not valid JSON");
    EXPECT_ERROR(descriptor("<html>404</html>"), "descriptor is not valid JSON");
    char both[sizeof kanban * 2];
    snprintf(both, sizeof both, "%s%s", kanban, kanban);
    EXPECT_ERROR(descriptor(both), "descriptor is not valid JSON");
    EXPECT_ERROR(descriptor("[]"), "descriptor must be a JSON object");
    EXPECT_ERROR(descriptor("\"kanban\""), "descriptor must be a JSON object");
    EXPECT_ERROR(descriptor(""), "descriptor is empty");
    EXPECT_ERROR(slop_parse_descriptor(NULL, 0), "descriptor is empty");
    EXPECT_ERROR(slop_parse_descriptor("{\"id\":\"a\0\"}", 10), "descriptor is not valid JSON");
    EXPECT_ERROR(descriptor("{\"id\":\"a\nb\"}"), "descriptor is not valid JSON");
    EXPECT_ERROR(descriptor("{\x7f}"), "descriptor is not valid JSON");
    EXPECT_ERROR(descriptor("{\x01\"id\":\"a\"}"), "descriptor is not valid JSON");

    size_t big = 64 * 1024 + 1;
    char *text = malloc(big + 1);
    memset(text, ' ', big);
    memcpy(text, kanban, sizeof kanban - 1);
    text[big] = '\0';
    EXPECT_ERROR(slop_parse_descriptor(text, big), "descriptor is too large (over 64 KiB)");
    /* Exactly 64 KiB, padded with whitespace, is fine. */
    char *ok = slop_parse_descriptor(text, big - 1);
    CHECK_CONTAINS(ok, "\"ok\":true");
    free(ok);
    free(text);

    char deep[200];
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = '\0';
    EXPECT_ERROR(descriptor(deep), "descriptor nesting is too deep");
}

/* ---- the meta tag ------------------------------------------------------------ */

TEST(meta_postmessage_is_case_insensitive_and_trimmed) {
    const char *want = "{\"ok\":true,\"transport\":{\"type\":\"postmessage\"}}";
    EXPECT_JSON(slop_parse_meta("postmessage", "https://app.example/"), want);
    EXPECT_JSON(slop_parse_meta("  PostMessage \n", NULL), want);
    EXPECT_ERROR(slop_parse_meta("post message", NULL), "meta content must be \"postmessage\" or a ws:// or wss:// URL");
}

TEST(meta_absolute_websocket_urls_are_normalised) {
    EXPECT_JSON(slop_parse_meta("ws://localhost:3737/slop", "http://localhost:3000/"),
                "{\"ok\":true,\"transport\":{\"type\":\"ws\",\"url\":\"ws://localhost:3737/slop\"}}");
    EXPECT_JSON(slop_parse_meta(" WSS://API.Example.com:443/slop\t", NULL),
                "{\"ok\":true,\"transport\":{\"type\":\"ws\",\"url\":\"wss://api.example.com/slop\"}}");
}

TEST(meta_relative_urls_resolve_against_the_page_keeping_its_tls) {
    EXPECT_JSON(slop_parse_meta("/slop", "http://localhost:3000/board?x=1#top"),
                "{\"ok\":true,\"transport\":{\"type\":\"ws\",\"url\":\"ws://localhost:3000/slop\"}}");
    EXPECT_JSON(slop_parse_meta("/api/slop?v=1", "https://Example.com/app"),
                "{\"ok\":true,\"transport\":{\"type\":\"ws\",\"url\":\"wss://example.com/api/slop?v=1\"}}");
    EXPECT_JSON(slop_parse_meta("/slop", "https://example.com:8443/"),
                "{\"ok\":true,\"transport\":{\"type\":\"ws\",\"url\":\"wss://example.com:8443/slop\"}}");
    EXPECT_JSON(slop_parse_meta("/slop", "http://[::1]:8080/"),
                "{\"ok\":true,\"transport\":{\"type\":\"ws\",\"url\":\"ws://[::1]:8080/slop\"}}");
    EXPECT_JSON(slop_parse_meta("//other.example:9000/slop", "https://example.com/"),
                "{\"ok\":true,\"transport\":{\"type\":\"ws\",\"url\":\"wss://other.example:9000/slop\"}}");
    EXPECT_JSON(slop_parse_meta("//other.example/slop", "http://example.com/"),
                "{\"ok\":true,\"transport\":{\"type\":\"ws\",\"url\":\"ws://other.example/slop\"}}");
}

TEST(meta_relative_urls_need_an_http_page) {
    const char *msg = "a relative meta URL needs an http:// or https:// page";
    EXPECT_ERROR(slop_parse_meta("/slop", "file:///home/me/index.html"), msg);
    EXPECT_ERROR(slop_parse_meta("/slop", NULL), msg);
    EXPECT_ERROR(slop_parse_meta("/slop", "not a url"), msg);
    EXPECT_ERROR(slop_parse_meta("//h/slop", "chrome-extension://abc/popup.html"), msg);
}

TEST(meta_http_urls_are_refused_because_a_websocket_url_is_required) {
    EXPECT_ERROR(slop_parse_meta("http://localhost:3737/slop", "http://localhost:3000/"),
                 "meta content must be a WebSocket URL (ws:// or wss://), not http(s)");
    EXPECT_ERROR_CONTAINS(slop_parse_meta("HTTPS://example.com/slop", NULL), "WebSocket URL");
}

TEST(meta_other_content_is_refused) {
    const char *msg = "meta content must be \"postmessage\" or a ws:// or wss:// URL";
    EXPECT_ERROR(slop_parse_meta("slop", "https://example.com/"), msg);
    EXPECT_ERROR(slop_parse_meta("javascript:alert(1)", "https://example.com/"), msg);
    EXPECT_ERROR(slop_parse_meta("ftp://example.com/", NULL), msg);
    EXPECT_ERROR(slop_parse_meta("ws://a b/", NULL), "meta URL contains a space");
    EXPECT_ERROR(slop_parse_meta("ws://u@h/", NULL), "meta URL must not contain credentials (user@host)");
    EXPECT_ERROR(slop_parse_meta("/a b", "http://h/"), "meta URL contains a space");
}

TEST(empty_or_huge_meta_content_is_refused) {
    EXPECT_ERROR(slop_parse_meta("", "https://example.com/"), "meta content is empty");
    EXPECT_ERROR(slop_parse_meta(" \t\r\n", "https://example.com/"), "meta content is empty");
    EXPECT_ERROR(slop_parse_meta(NULL, NULL), "meta content is empty");
    size_t n = 9000;
    char *big = malloc(n + 1);
    memcpy(big, "ws://h/", 7);
    memset(big + 7, 'a', n - 7);
    big[n] = '\0';
    EXPECT_ERROR(slop_parse_meta(big, NULL), "meta content is too long");
    free(big);
}

/* ---- origin classification (reference origin.test.ts) ----------------------- */

TEST(same_host_with_a_different_port_is_same_origin) {
    CHECK_STR(classify("http://example.com:8080/app", "wss://example.com/slop"), "same-origin");
    CHECK_STR(classify("https://example.com/", "ws://example.com:3737/slop"), "same-origin");
}

TEST(the_hostname_comparison_is_case_insensitive) {
    CHECK_STR(classify("https://Example.COM/", "wss://example.com/slop"), "same-origin");
    CHECK_STR(classify("https://example.com/", "WSS://EXAMPLE.com/slop"), "same-origin");
}

TEST(a_different_host_is_cross_origin) {
    CHECK_STR(classify("https://example.com/", "wss://evil.example/slop"), "cross-origin");
    CHECK_STR(classify("https://example.com/", "wss://api.example.com/slop"), "cross-origin");
    CHECK_STR(classify("https://api.example.com/", "wss://example.com/slop"), "cross-origin");
}

TEST(a_loopback_page_declaring_a_loopback_target_is_same_origin) {
    CHECK_STR(classify("http://localhost:3000/", "ws://127.0.0.1:3737/slop"), "same-origin");
    CHECK_STR(classify("http://localhost:3000/", "ws://[::1]:3737/slop"), "same-origin");
    CHECK_STR(classify("http://127.0.0.1:5173/", "ws://localhost:3737/slop"), "same-origin");
    CHECK_STR(classify("http://app.localhost/", "ws://127.8.9.10/slop"), "same-origin");
}

TEST(a_non_loopback_page_declaring_a_loopback_target_is_cross_origin) {
    CHECK_STR(classify("https://example.com/", "ws://localhost:3737/slop"), "cross-origin");
    CHECK_STR(classify("https://example.com/", "ws://127.0.0.1:3737/slop"), "cross-origin");
    CHECK_STR(classify("https://example.com/", "ws://[::1]:3737/slop"), "cross-origin");
    CHECK_STR(classify("https://localhost.example.com/", "ws://localhost/slop"), "cross-origin");
}

TEST(a_loopback_page_declaring_a_remote_target_is_cross_origin) {
    CHECK_STR(classify("http://localhost:3000/", "wss://example.com/slop"), "cross-origin");
    CHECK_STR(classify("http://127.0.0.1/", "ws://128.0.0.1/slop"), "cross-origin");
}

TEST(unparsable_input_is_cross_origin) {
    CHECK_STR(classify("not a url", "ws://localhost:3737/slop"), "cross-origin");
    CHECK_STR(classify("http://localhost:3000/", "ws://local host/"), "cross-origin");
    CHECK_STR(classify("http://localhost:3000/", "::1"), "cross-origin");
    CHECK_STR(classify("http://localhost:3000/", ""), "cross-origin");
    CHECK_STR(classify(NULL, "ws://localhost/"), "cross-origin");
    CHECK_STR(classify("http://localhost:3000/", NULL), "cross-origin");
    /* Browsers rewrite these to 127.0.0.1; we refuse rather than guess. */
    CHECK_STR(classify("http://localhost:3000/", "ws://2130706433/"), "cross-origin");
}

TEST(an_opaque_page_origin_is_null_and_cross_origin) {
    EXPECT_JSON(slop_classify_target("file:///home/me/index.html", "ws://localhost:3737/slop"),
                "{\"classification\":\"cross-origin\",\"page_origin\":null,\"target\":\"ws://localhost:3737/slop\",\"approval_key\":null}");
    CHECK_STR(classify("data:text/html,<meta name=slop>", "ws://localhost/"), "cross-origin");
    CHECK_STR(classify("about:blank", "ws://localhost/"), "cross-origin");
    CHECK_STR(classify("chrome-extension://abcdef/popup.html", "ws://abcdef/"), "cross-origin");
}

TEST(page_origin_is_scheme_host_and_non_default_port) {
    EXPECT_JSON(slop_classify_target("https://User:pw@Example.com:443/a/b?c=1#d", "wss://example.com/slop"),
                "{\"classification\":\"same-origin\",\"page_origin\":\"https://example.com\","
                "\"target\":\"wss://example.com/slop\",\"approval_key\":\"https://example.com -> wss://example.com/slop\"}");
    EXPECT_JSON(slop_classify_target("http://localhost:3000/board", "ws://127.0.0.1:3737/slop"),
                "{\"classification\":\"same-origin\",\"page_origin\":\"http://localhost:3000\","
                "\"target\":\"ws://127.0.0.1:3737/slop\",\"approval_key\":\"http://localhost:3000 -> ws://127.0.0.1:3737/slop\"}");
    EXPECT_JSON(slop_classify_target("http://[0::1]:8080/", "ws://[::1]/"),
                "{\"classification\":\"same-origin\",\"page_origin\":\"http://[::1]:8080\","
                "\"target\":\"ws://[::1]/\",\"approval_key\":\"http://[::1]:8080 -> ws://[::1]/\"}");
}

TEST(the_approval_key_is_stable_per_page_origin_and_target) {
    char *a = slop_classify_target("https://example.com/one", "ws://localhost:3737/slop");
    char *b = slop_classify_target("https://EXAMPLE.com:443/two?x#y", "WS://LOCALHOST:3737/slop");
    char *c = slop_classify_target("https://example.com/", "ws://localhost:3738/slop");
    CHECK_STR(a, "{\"classification\":\"cross-origin\",\"page_origin\":\"https://example.com\","
                 "\"target\":\"ws://localhost:3737/slop\",\"approval_key\":\"https://example.com -> ws://localhost:3737/slop\"}");
    CHECK_STR(a, b);
    CHECK(a && c && strcmp(a, c) != 0);
    free(a);
    free(b);
    free(c);
    /* An unparsable target is keyed as given. */
    EXPECT_JSON(slop_classify_target("https://example.com/", "ws://a b/"),
                "{\"classification\":\"cross-origin\",\"page_origin\":\"https://example.com\","
                "\"target\":\"ws://a b/\",\"approval_key\":\"https://example.com -> ws://a b/\"}");
}

TEST(a_postmessage_target_is_always_same_origin) {
    EXPECT_JSON(slop_classify_target("https://example.com/app", "postmessage"),
                "{\"classification\":\"same-origin\",\"page_origin\":\"https://example.com\","
                "\"target\":\"postmessage\",\"approval_key\":\"https://example.com -> postmessage\"}");
    CHECK_STR(classify("https://example.com/", "PostMessage"), "same-origin");
}

int main(void) {
    RUN(the_loopback_family_is_recognised);
    RUN(hosts_outside_the_loopback_family_are_not_loopback);
    RUN(the_url_parser_lowercases_scheme_and_host_and_drops_default_ports);
    RUN(the_url_parser_reads_bracketed_ipv6_hosts);
    RUN(the_url_parser_refuses_what_a_browser_would_rewrite);
    RUN(the_url_parser_needs_a_scheme_a_host_and_a_valid_port);
    RUN(websocket_urls_refuse_credentials_and_fragments);
    RUN(the_spec_example_descriptor_is_accepted);
    RUN(a_descriptor_is_normalised_and_keeps_only_known_members);
    RUN(a_postmessage_descriptor_is_accepted);
    RUN(local_transports_are_refused_for_a_browser_consumer);
    RUN(a_ws_transport_needs_a_valid_websocket_url);
    RUN(required_descriptor_members_are_enforced);
    RUN(optional_descriptor_members_must_be_strings_when_present);
    RUN(capabilities_must_be_strings_and_include_state);
    RUN(malformed_or_oversized_descriptors_are_refused);
    RUN(meta_postmessage_is_case_insensitive_and_trimmed);
    RUN(meta_absolute_websocket_urls_are_normalised);
    RUN(meta_relative_urls_resolve_against_the_page_keeping_its_tls);
    RUN(meta_relative_urls_need_an_http_page);
    RUN(meta_http_urls_are_refused_because_a_websocket_url_is_required);
    RUN(meta_other_content_is_refused);
    RUN(empty_or_huge_meta_content_is_refused);
    RUN(same_host_with_a_different_port_is_same_origin);
    RUN(the_hostname_comparison_is_case_insensitive);
    RUN(a_different_host_is_cross_origin);
    RUN(a_loopback_page_declaring_a_loopback_target_is_same_origin);
    RUN(a_non_loopback_page_declaring_a_loopback_target_is_cross_origin);
    RUN(a_loopback_page_declaring_a_remote_target_is_cross_origin);
    RUN(unparsable_input_is_cross_origin);
    RUN(an_opaque_page_origin_is_null_and_cross_origin);
    RUN(page_origin_is_scheme_host_and_non_default_port);
    RUN(the_approval_key_is_stable_per_page_origin_and_target);
    RUN(a_postmessage_target_is_always_same_origin);
    RUN(local_descriptors_take_unix_stdio_and_ws_transports_and_keep_the_pid);
    RUN(local_transports_are_checked_in_words);
    RUN(descriptor_names_follow_the_spec_pattern);
    RUN(provider_directories_must_be_ours_and_closed_to_others);
    RUN(descriptor_files_must_be_ours_regular_and_0600);
    return check_report();
}
