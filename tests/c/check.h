/*
 * check.h: the tiny test harness every tests/c/test_*.c uses.
 *
 *   TEST(snapshot_replaces_the_mirror) { ... CHECK(x == 1); CHECK_STR(a, "b"); }
 *   int main(void) { RUN(snapshot_replaces_the_mirror); return check_report(); }
 *
 * A failed CHECK prints file:line and the expression and marks the current
 * test failed; the test goes on so one run shows every failure. The report
 * ends with the line "N passed, N failed" and returns non-zero on failure.
 */
#ifndef SLOP_TEST_CHECK_H
#define SLOP_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_passed, check_failed, check_current_failed;

#define TEST(name) static void test_##name(void)
#define RUN(name)                                                        \
    do {                                                                 \
        check_current_failed = 0;                                        \
        test_##name();                                                   \
        if (check_current_failed) { check_failed++;                      \
            printf("not ok - %s\n", #name); }                            \
        else { check_passed++; printf("ok - %s\n", #name); }             \
    } while (0)

#define CHECK(expr)                                                      \
    do {                                                                 \
        if (!(expr)) {                                                   \
            check_current_failed = 1;                                    \
            printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #expr); \
        }                                                                \
    } while (0)

#define CHECK_STR(a, b)                                                  \
    do {                                                                 \
        const char *check_a_ = (a), *check_b_ = (b);                     \
        if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) { \
            check_current_failed = 1;                                    \
            printf("  %s:%d: CHECK_STR(%s, %s) failed\n    got:      %s\n    expected: %s\n", \
                   __FILE__, __LINE__, #a, #b, check_a_ ? check_a_ : "(null)", \
                   check_b_ ? check_b_ : "(null)");                      \
        }                                                                \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                      \
    do {                                                                 \
        const char *check_h_ = (hay), *check_n_ = (needle);              \
        if (!check_h_ || !strstr(check_h_, check_n_)) {                  \
            check_current_failed = 1;                                    \
            printf("  %s:%d: %s does not contain \"%s\"\n    got: %s\n", \
                   __FILE__, __LINE__, #hay, check_n_, check_h_ ? check_h_ : "(null)"); \
        }                                                                \
    } while (0)

static int check_report(void) {
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
