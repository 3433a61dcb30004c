/*
 * test_params.c: the affordance params validator (params.c), the SLOP
 * subset of JSON Schema, through slop_validate_params and slop__params_check.
 * The first five tests mirror the reference validate-params.test.ts.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "slop_core.h"

/* The whole answer: NULL when valid, else {"errors":[{code,path,message}]}. */
static char *validate_all(const char *schema, const char *params) {
    return slop_validate_params(schema, schema ? strlen(schema) : 0, params, params ? strlen(params) : 0);
}

/* The first failure's message (what invoke reports), malloc'd; NULL when valid. */
static char *validate(const char *schema, const char *params) {
    char *all = validate_all(schema, params);
    if (!all) return NULL;
    cJSON *j = cJSON_Parse(all);
    free(all);
    cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "errors"), 0);
    cJSON *m = cJSON_GetObjectItemCaseSensitive(first, "message");
    char *out = strdup(cJSON_IsString(m) ? m->valuestring : "(no message in the answer)");
    cJSON_Delete(j);
    return out;
}

/* The validator's answer, "(valid)" for NULL; freed by the macros below. */
#define EXPECT_VALID(schema, params)                                      \
    do {                                                                  \
        char *e_ = validate(schema, params);                              \
        CHECK_STR(e_ ? e_ : "(valid)", "(valid)");                        \
        free(e_);                                                         \
    } while (0)

#define EXPECT_ERROR(schema, params, message)                             \
    do {                                                                  \
        char *e_ = validate(schema, params);                              \
        CHECK_STR(e_, message);                                           \
        free(e_);                                                         \
    } while (0)

/* ---- the reference tests ------------------------------------------------ */

TEST(accepts_empty_params_when_the_schema_has_no_required_fields) {
    EXPECT_VALID("{\"type\":\"object\"}", "{}");
    EXPECT_VALID(NULL, "{\"anything\":1}");
    char *e = slop__params_check(NULL, NULL);
    CHECK(e == NULL);
    free(e);
}

TEST(rejects_a_missing_required_key) {
    EXPECT_ERROR("{\"type\":\"object\",\"required\":[\"body\"]}", "{}", "params.body is required");
}

TEST(rejects_a_wrong_property_type_for_an_integer) {
    EXPECT_ERROR("{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\"}}}",
                 "{\"count\":\"not an int\"}", "params.count must be an integer");
}

TEST(rejects_an_enum_mismatch) {
    EXPECT_ERROR("{\"type\":\"object\",\"properties\":{\"status\":{\"type\":\"string\","
                 "\"enum\":[\"open\",\"closed\"]}}}",
                 "{\"status\":\"other\"}", "params.status must be one of \"open\", \"closed\"");
}

TEST(validates_nested_array_items) {
    const char *schema = "{\"type\":\"object\",\"properties\":{\"tags\":{\"type\":\"array\","
                         "\"items\":{\"type\":\"string\"}}}}";
    EXPECT_VALID(schema, "{\"tags\":[\"a\",\"b\"]}");
    char *e = validate(schema, "{\"tags\":[\"a\",2]}");
    CHECK_CONTAINS(e, "tags[1]");
    CHECK_STR(e, "params.tags[1] must be a string");
    free(e);
}

/* ---- type ---------------------------------------------------------------- */

TEST(each_type_name_accepts_its_own_values_and_rejects_the_others) {
    EXPECT_VALID("{\"type\":\"object\"}", "{\"a\":1}");
    EXPECT_VALID("{\"type\":\"array\"}", "[1,\"x\"]");
    EXPECT_VALID("{\"type\":\"string\"}", "\"\"");
    EXPECT_VALID("{\"type\":\"number\"}", "-1.5e3");
    EXPECT_VALID("{\"type\":\"integer\"}", "42");
    EXPECT_VALID("{\"type\":\"boolean\"}", "false");
    EXPECT_VALID("{\"type\":\"null\"}", "null");

    EXPECT_ERROR("{\"type\":\"object\"}", "[]", "params must be an object");
    EXPECT_ERROR("{\"type\":\"object\"}", "null", "params must be an object");
    EXPECT_ERROR("{\"type\":\"array\"}", "{}", "params must be an array");
    EXPECT_ERROR("{\"type\":\"string\"}", "1", "params must be a string");
    EXPECT_ERROR("{\"type\":\"number\"}", "\"1\"", "params must be a number");
    EXPECT_ERROR("{\"type\":\"integer\"}", "true", "params must be an integer");
    EXPECT_ERROR("{\"type\":\"boolean\"}", "0", "params must be a boolean");
    EXPECT_ERROR("{\"type\":\"null\"}", "false", "params must be null");
}

TEST(a_number_must_be_finite) {
    /* cJSON reads 1e999 as infinity, which JSON cannot represent: refused
     * as it is read, like every number beyond a double. */
    EXPECT_ERROR("{\"type\":\"number\"}", "1e999", "params is not valid JSON (number too large for a double)");
    EXPECT_ERROR("{\"type\":\"integer\"}", "-1e999", "params is not valid JSON (number too large for a double)");
    EXPECT_ERROR("{\"enum\":[1e400]}", "1", "schema is not valid JSON (number too large for a double)");
}

TEST(an_integer_is_a_number_without_a_fractional_part) {
    EXPECT_VALID("{\"type\":\"integer\"}", "3.0");
    EXPECT_VALID("{\"type\":\"integer\"}", "-0");
    EXPECT_VALID("{\"type\":\"integer\"}", "1e20");
    EXPECT_ERROR("{\"type\":\"integer\"}", "3.5", "params must be an integer");
    EXPECT_ERROR("{\"type\":\"integer\"}", "-0.001", "params must be an integer");
}

TEST(a_type_array_accepts_a_value_matching_any_listed_type) {
    const char *schema = "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":[\"string\",\"null\"]}}}";
    EXPECT_VALID(schema, "{\"x\":\"s\"}");
    EXPECT_VALID(schema, "{\"x\":null}");
    EXPECT_ERROR(schema, "{\"x\":1}", "params.x must be a string or null");
    EXPECT_ERROR("{\"type\":[\"string\",\"number\",\"null\",\"string\"]}", "[]",
                 "params must be a string, a number or null");
}

TEST(unknown_type_names_pass) {
    EXPECT_VALID("{\"type\":\"date\"}", "17");
    EXPECT_VALID("{\"type\":[\"string\",\"date\"]}", "17");
    EXPECT_VALID("{\"type\":7}", "17");
    EXPECT_VALID("{\"type\":[]}", "17");
}

/* ---- object keywords ------------------------------------------------------ */

TEST(properties_are_checked_only_when_present) {
    const char *schema = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},"
                         "\"b\":{\"type\":\"integer\"}}}";
    EXPECT_VALID(schema, "{}");
    EXPECT_VALID(schema, "{\"b\":2,\"extra\":[1]}");
    EXPECT_ERROR(schema, "{\"a\":\"ok\",\"b\":2.5}", "params.b must be an integer");
}

TEST(required_reports_the_full_path_of_a_nested_key) {
    const char *schema = "{\"type\":\"object\",\"required\":[\"user\"],\"properties\":{\"user\":"
                         "{\"type\":\"object\",\"required\":[\"id\",\"name\"]}}}";
    EXPECT_ERROR(schema, "{}", "params.user is required");
    EXPECT_ERROR(schema, "{\"user\":{\"id\":1}}", "params.user.name is required");
    EXPECT_VALID(schema, "{\"user\":{\"id\":1,\"name\":null}}");
}

TEST(required_keys_are_case_sensitive) {
    EXPECT_ERROR("{\"required\":[\"body\"]}", "{\"Body\":\"x\"}", "params.body is required");
}

TEST(object_and_array_keywords_apply_without_a_type) {
    EXPECT_ERROR("{\"required\":[\"a\"]}", "{}", "params.a is required");
    EXPECT_ERROR("{\"items\":{\"type\":\"integer\"}}", "[1,\"2\"]", "params[1] must be an integer");
    EXPECT_VALID("{\"required\":[\"a\"]}", "\"not an object\"");
}

TEST(non_identifier_property_names_are_shown_in_brackets) {
    EXPECT_ERROR("{\"properties\":{\"a b\":{\"type\":\"string\"}}}", "{\"a b\":1}",
                 "params[\"a b\"] must be a string");
    EXPECT_ERROR("{\"properties\":{\"1st\":{\"type\":\"string\"}}}", "{\"1st\":1}",
                 "params[\"1st\"] must be a string");
    EXPECT_ERROR("{\"required\":[\"q\\\"x\\\\\"]}", "{}", "params[\"q\\\"x\\\\\"] is required");
    EXPECT_ERROR("{\"required\":[\"\"]}", "{}", "params[\"\"] is required");
    EXPECT_ERROR("{\"required\":[\"_ok$1\"]}", "{}", "params._ok$1 is required");
}

TEST(a_very_long_property_name_is_cut_in_the_message) {
    char schema[400];
    char key[201];
    memset(key, 'k', 200);
    key[0] = '-';
    key[200] = '\0';
    snprintf(schema, sizeof schema, "{\"required\":[\"%s\"]}", key);
    char *e = validate(schema, "{}");
    CHECK(e && strlen(e) < 100);
    CHECK_CONTAINS(e, "...\"] is required");
    free(e);
}

/* ---- items ---------------------------------------------------------------- */

TEST(items_checks_every_element_and_reports_nested_paths) {
    const char *schema = "{\"type\":\"object\",\"properties\":{\"rows\":{\"type\":\"array\",\"items\":"
                         "{\"type\":\"object\",\"properties\":{\"tags\":{\"type\":\"array\","
                         "\"items\":{\"type\":\"string\"}}}}}}}";
    EXPECT_VALID(schema, "{\"rows\":[]}");
    EXPECT_VALID(schema, "{\"rows\":[{\"tags\":[]},{\"tags\":[\"a\"]}]}");
    EXPECT_ERROR(schema, "{\"rows\":[{\"tags\":[]},{\"tags\":[\"a\",\"b\",false]}]}",
                 "params.rows[1].tags[2] must be a string");
    EXPECT_ERROR(schema, "{\"rows\":[7]}", "params.rows[0] must be an object");
}

TEST(the_tuple_form_of_items_is_ignored) {
    EXPECT_VALID("{\"type\":\"array\",\"items\":[{\"type\":\"string\"}]}", "[1,2]");
}

/* ---- enum ----------------------------------------------------------------- */

TEST(enum_compares_by_deep_equality) {
    EXPECT_VALID("{\"enum\":[1]}", "1.0");
    EXPECT_VALID("{\"enum\":[{\"a\":1,\"b\":[true,null]}]}", "{\"b\":[true,null],\"a\":1.0}");
    EXPECT_VALID("{\"enum\":[null,\"x\"]}", "null");
    EXPECT_VALID("{\"enum\":[[1,[2]]]}", "[1,[2]]");
    EXPECT_ERROR("{\"enum\":[[1,2]]}", "[2,1]", "params must be one of [1,2]");
    EXPECT_ERROR("{\"enum\":[{\"a\":1}]}", "{\"a\":1,\"b\":2}", "params must be one of {\"a\":1}");
    EXPECT_ERROR("{\"enum\":[{\"a\":1,\"b\":2}]}", "{\"a\":1}", "params must be one of {\"a\":1,\"b\":2}");
    EXPECT_ERROR("{\"enum\":[\"1\"]}", "1", "params must be one of \"1\"");
    EXPECT_ERROR("{\"enum\":[1]}", "true", "params must be one of 1");
    EXPECT_ERROR("{\"enum\":[false]}", "null", "params must be one of false");
}

TEST(enum_mismatch_lists_the_allowed_values) {
    EXPECT_ERROR("{\"properties\":{\"priority\":{\"enum\":[\"low\",\"normal\",\"high\"]}}}",
                 "{\"priority\":\"urgent\"}", "params.priority must be one of \"low\", \"normal\", \"high\"");
}

TEST(a_long_enum_list_is_truncated) {
    EXPECT_ERROR("{\"enum\":[1,2,3,4,5,6,7,8,9,10,11,12]}", "0",
                 "params must be one of 1, 2, 3, 4, 5, 6, 7, 8, ... (4 more)");
    char *e = validate("{\"enum\":[\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\",2]}", "0");
    CHECK_STR(e, "params must be one of \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..., 2");
    free(e);
}

TEST(an_empty_enum_matches_nothing) {
    EXPECT_ERROR("{\"enum\":[]}", "1", "params cannot match an empty enum");
}

/* ---- everything else ------------------------------------------------------- */

TEST(keywords_outside_the_subset_are_ignored) {
    EXPECT_VALID("{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{\"s\":"
                 "{\"type\":\"string\",\"minLength\":5,\"pattern\":\"^x$\",\"format\":\"email\"},"
                 "\"n\":{\"type\":\"number\",\"minimum\":10,\"maximum\":0}},"
                 "\"oneOf\":[false],\"$ref\":\"#/nope\",\"const\":3}",
                 "{\"s\":\"a\",\"n\":99,\"other\":true}");
}

TEST(a_schema_that_is_not_an_object_imposes_nothing) {
    EXPECT_VALID("true", "{\"a\":1}");
    EXPECT_VALID("\"string\"", "[]");
    EXPECT_VALID("{\"properties\":{\"a\":true,\"b\":5}}", "{\"a\":1,\"b\":[]}");
}

TEST(missing_params_are_checked_as_an_empty_object) {
    const char *schema = "{\"type\":\"object\",\"required\":[\"body\"]}";
    EXPECT_ERROR(schema, NULL, "params.body is required");
    EXPECT_VALID("{\"type\":\"object\"}", NULL);
    char *e = slop_validate_params(schema, strlen(schema), "", 0);
    CHECK_CONTAINS(e, "\"message\":\"params.body is required\"");
    free(e);

    cJSON *s = cJSON_Parse("{\"type\":\"object\",\"required\":[\"x\"]}");
    e = slop__params_check(s, NULL);
    CHECK_STR(e, "params.x is required");
    free(e);
    cJSON_Delete(s);
}

TEST(the_internal_check_works_on_parsed_trees) {
    cJSON *s = cJSON_Parse("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}");
    cJSON *ok = cJSON_Parse("{\"n\":1}");
    cJSON *bad = cJSON_Parse("{\"n\":1.5}");
    char *e = slop__params_check(s, ok);
    CHECK(e == NULL);
    free(e);
    e = slop__params_check(s, bad);
    CHECK_STR(e, "params.n must be an integer");
    free(e);
    cJSON_Delete(s);
    cJSON_Delete(ok);
    cJSON_Delete(bad);
}

/* "{"properties":{"a":" ... "}}}" nested `levels` deep, with params
 * {"a":{"a":...1}} to match. Returns malloc'd strings. */
static void nested(int levels, char **schema, char **params) {
    size_t cap = (size_t)levels * 32 + 64;
    char *s = malloc(cap), *p = malloc(cap);
    size_t sn = 0, pn = 0;
    for (int i = 0; i < levels; i++) {
        sn += (size_t)snprintf(s + sn, cap - sn, "{\"properties\":{\"a\":");
        pn += (size_t)snprintf(p + pn, cap - pn, "{\"a\":");
    }
    sn += (size_t)snprintf(s + sn, cap - sn, "{\"type\":\"string\"}");
    pn += (size_t)snprintf(p + pn, cap - pn, "1");
    for (int i = 0; i < levels; i++) {
        sn += (size_t)snprintf(s + sn, cap - sn, "}}");
        pn += (size_t)snprintf(p + pn, cap - pn, "}");
    }
    *schema = s;
    *params = p;
}

TEST(deep_nesting_is_refused_with_a_clear_message) {
    char *s, *p, *e;
    nested(40, &s, &p);
    e = validate(s, p);
    CHECK_CONTAINS(e, ".a.a.a must be a string");
    free(e);
    free(s);
    free(p);

    /* Parsed trees deeper than the check's own limit. */
    nested(70, &s, &p);
    cJSON *st = cJSON_Parse(s), *pt = cJSON_Parse(p);
    CHECK(st && pt);
    e = slop__params_check(st, pt);
    CHECK_STR(e, "params nesting is too deep");
    free(e);
    cJSON_Delete(st);
    cJSON_Delete(pt);

    /* JSON text deeper than the parser is allowed to go. */
    e = validate(s, "{}");
    CHECK_STR(e, "schema nesting is too deep");
    free(e);
    free(s);
    free(p);
    char deep[400];
    memset(deep, '[', 200);
    memset(deep + 200, ']', 199);
    deep[399] = '\0';
    e = validate("{}", deep);
    CHECK_STR(e, "params nesting is too deep");
    free(e);
}

TEST(malformed_json_is_reported_as_a_message) {
    EXPECT_ERROR("{", "{}", "schema is not valid JSON (expected a member name)");
    EXPECT_ERROR("{\"type\":\"object\"}", "[1,", "params is not valid JSON (unexpected end of the text)");
    EXPECT_ERROR("{} x", "{}", "schema is not valid JSON (trailing bytes after the value)");
    EXPECT_ERROR("{}", "{}{}", "params is not valid JSON (trailing bytes after the value)");
    EXPECT_ERROR("{}", "{\"a\":1,\"a\":2}", "params is not valid JSON (duplicate member name in an object)");
    EXPECT_ERROR("{}", "{\"s\":\"\xff\"}", "params is not valid JSON (invalid UTF-8 in a string)");
    EXPECT_VALID(" {\"type\":\"object\"}\n", "\t{} \r\n");
    /* An embedded NUL would silently cut a string; refuse it. */
    char *e = slop_validate_params("{}", 2, "\"a\0b\"", 5);
    CHECK_CONTAINS(e, "\"message\":\"params is not valid JSON (raw control character in a string)\"");
    free(e);
    /* Raw control characters are invalid JSON even where cJSON allows them. */
    EXPECT_ERROR("{\"enum\":[\"a\tb\"]}", "\"a\tb\"", "schema is not valid JSON (raw control character in a string)");
    EXPECT_ERROR("{}", "{\x01}", "params is not valid JSON (expected a member name)");
    EXPECT_VALID("{\"enum\":[\"a\\tb\"]}", "\"a\\tb\"");
    /* The length bounds the text: no NUL terminator needed. */
    e = slop_validate_params("{\"type\":\"string\"}XXXX", 17, "1YYYY", 1);
    CHECK_CONTAINS(e, "\"message\":\"params must be a string\"");
    free(e);
}

/* ---- every failure, as data ------------------------------------------- */

TEST(every_failing_path_is_reported_as_data) {
    const char *schema =
        "{\"type\":\"object\",\"required\":[\"title\",\"due\"],\"properties\":{"
        "\"title\":{\"type\":\"string\"},\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
        "\"prio\":{\"enum\":[\"low\",\"high\"]},\"a b\":{\"type\":\"integer\"}}}";
    char *all = validate_all(schema, "{\"tags\":[\"x\",2,\"y\",false],\"prio\":\"mid\",\"a b\":1.5}");
    CHECK_STR(all,
              "{\"errors\":["
              "{\"code\":\"required\",\"path\":[\"title\"],\"message\":\"params.title is required\"},"
              "{\"code\":\"required\",\"path\":[\"due\"],\"message\":\"params.due is required\"},"
              "{\"code\":\"type\",\"path\":[\"tags\",1],\"message\":\"params.tags[1] must be a string\"},"
              "{\"code\":\"type\",\"path\":[\"tags\",3],\"message\":\"params.tags[3] must be a string\"},"
              "{\"code\":\"enum\",\"path\":[\"prio\"],\"message\":\"params.prio must be one of \\\"low\\\", \\\"high\\\"\"},"
              "{\"code\":\"type\",\"path\":[\"a b\"],\"message\":\"params[\\\"a b\\\"] must be an integer\"}]}");
    free(all);
}

TEST(a_value_of_the_wrong_type_is_one_failure_not_one_per_member) {
    char *all = validate_all("{\"type\":\"object\",\"required\":[\"a\"]}", "[1,2]");
    CHECK_STR(all, "{\"errors\":[{\"code\":\"type\",\"path\":[],\"message\":\"params must be an object\"}]}");
    free(all);
}

TEST(bad_json_is_one_failure_at_the_root) {
    char *all = validate_all("{}", "{\"a\":");
    CHECK_CONTAINS(all, "{\"errors\":[{\"code\":\"bad_json\",\"path\":[],\"message\":\"params is not valid JSON");
    free(all);
}

TEST(the_list_stops_at_one_hundred_failures) {
    char params[4096] = "[";
    for (int i = 0; i < 300; i++) strcat(params, i ? ",1" : "1");
    strcat(params, "]");
    char *all = validate_all("{\"items\":{\"type\":\"string\"}}", params);
    cJSON *j = cJSON_Parse(all);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "errors")) == 100);
    cJSON_Delete(j);
    free(all);
}

int main(void) {
    RUN(accepts_empty_params_when_the_schema_has_no_required_fields);
    RUN(rejects_a_missing_required_key);
    RUN(rejects_a_wrong_property_type_for_an_integer);
    RUN(rejects_an_enum_mismatch);
    RUN(validates_nested_array_items);
    RUN(each_type_name_accepts_its_own_values_and_rejects_the_others);
    RUN(a_number_must_be_finite);
    RUN(an_integer_is_a_number_without_a_fractional_part);
    RUN(a_type_array_accepts_a_value_matching_any_listed_type);
    RUN(unknown_type_names_pass);
    RUN(properties_are_checked_only_when_present);
    RUN(required_reports_the_full_path_of_a_nested_key);
    RUN(required_keys_are_case_sensitive);
    RUN(object_and_array_keywords_apply_without_a_type);
    RUN(non_identifier_property_names_are_shown_in_brackets);
    RUN(a_very_long_property_name_is_cut_in_the_message);
    RUN(items_checks_every_element_and_reports_nested_paths);
    RUN(the_tuple_form_of_items_is_ignored);
    RUN(enum_compares_by_deep_equality);
    RUN(enum_mismatch_lists_the_allowed_values);
    RUN(a_long_enum_list_is_truncated);
    RUN(an_empty_enum_matches_nothing);
    RUN(keywords_outside_the_subset_are_ignored);
    RUN(a_schema_that_is_not_an_object_imposes_nothing);
    RUN(missing_params_are_checked_as_an_empty_object);
    RUN(the_internal_check_works_on_parsed_trees);
    RUN(deep_nesting_is_refused_with_a_clear_message);
    RUN(malformed_json_is_reported_as_a_message);
    RUN(every_failing_path_is_reported_as_data);
    RUN(a_value_of_the_wrong_type_is_one_failure_not_one_per_member);
    RUN(bad_json_is_one_failure_at_the_root);
    RUN(the_list_stops_at_one_hundred_failures);
    return check_report();
}
