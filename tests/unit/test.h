/* A small unit-test harness: typed asserts that print both values on failure.
 *
 *   TEST(name) { T_EQ_I64(f(2), 4); }
 *   int main(void) { RUN(name); return t_done(); }
 *
 * Each binary prints "N passed, N failed" (tests, not asserts) and exits non-zero on
 * any failure. STS_TEST_ONLY="name name ..." runs only those tests (the others are
 * not counted), as the ThreadSanitizer tier does with the tests that start threads. */
#ifndef STS_TEST_H
#define STS_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_failed_asserts, t_tests_passed, t_tests_failed, t_tests_skipped;
static const char *t_current;
static int t_current_failed, t_current_skipped;

#define TEST(name) static void test_##name(void)

/* Whether STS_TEST_ONLY, when set, names the test. */
static inline int t_selected(const char *name)
{
    const char *only = getenv("STS_TEST_ONLY");
    if (!only) return 1;
    size_t n = strlen(name);
    for (const char *p = strstr(only, name); p; p = strstr(p + 1, name))
        if ((p == only || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ')) return 1;
    return 0;
}

#define RUN(name)                                                                                  \
    do {                                                                                           \
        if (!t_selected(#name)) break;                                                             \
        t_current = #name;                                                                         \
        t_current_failed = 0;                                                                      \
        t_current_skipped = 0;                                                                     \
        test_##name();                                                                             \
        if (t_current_failed)                                                                      \
            t_tests_failed++;                                                                      \
        else if (t_current_skipped)                                                                \
            t_tests_skipped++;                                                                     \
        else                                                                                       \
            t_tests_passed++;                                                                      \
        printf("%s %s\n", t_current_failed ? "FAIL" : t_current_skipped ? "SKIP" : "ok  ", #name); \
    } while (0)

#define T_FAIL_AT(...)                                                    \
    do {                                                                  \
        fprintf(stderr, "%s:%d: in %s: ", __FILE__, __LINE__, t_current); \
        fprintf(stderr, __VA_ARGS__);                                     \
        fputc('\n', stderr);                                              \
        t_failed_asserts++;                                               \
        t_current_failed = 1;                                             \
    } while (0)

/* Marks the current test skipped (with a reason) and returns from it. */
#define T_SKIP(...)            \
    do {                       \
        printf("  skipped: "); \
        printf(__VA_ARGS__);   \
        printf("\n");          \
        t_current_skipped = 1; \
        return;                \
    } while (0)

#define T_TRUE(c)                                     \
    do {                                              \
        if (!(c)) T_FAIL_AT("expected true: %s", #c); \
    } while (0)

#define T_EQ_I64(a, b)                                                         \
    do {                                                                       \
        long long t_a = (long long)(a), t_b = (long long)(b);                  \
        if (t_a != t_b) T_FAIL_AT("%s == %s: %lld != %lld", #a, #b, t_a, t_b); \
    } while (0)

#define T_EQ_U64(a, b)                                                                   \
    do {                                                                                 \
        unsigned long long t_a = (unsigned long long)(a), t_b = (unsigned long long)(b); \
        if (t_a != t_b) T_FAIL_AT("%s == %s: %llu != %llu", #a, #b, t_a, t_b);           \
    } while (0)

#define T_GE_I64(a, b)                                                           \
    do {                                                                         \
        long long t_a = (long long)(a), t_b = (long long)(b);                    \
        if (!(t_a >= t_b)) T_FAIL_AT("%s >= %s: %lld < %lld", #a, #b, t_a, t_b); \
    } while (0)

#define T_EQ_STR(a, b)                                                                                   \
    do {                                                                                                 \
        const char *t_a = (a), *t_b = (b);                                                               \
        if (!t_a || !t_b || strcmp(t_a, t_b) != 0)                                                       \
            T_FAIL_AT("%s == %s: \"%s\" != \"%s\"", #a, #b, t_a ? t_a : "(null)", t_b ? t_b : "(null)"); \
    } while (0)

#define T_CONTAINS(hay, needle)                                                                                \
    do {                                                                                                       \
        const char *t_h = (hay), *t_n = (needle);                                                              \
        if (!t_h || !strstr(t_h, t_n)) T_FAIL_AT("\"%s\" does not contain \"%s\"", t_h ? t_h : "(null)", t_n); \
    } while (0)

/* |a - b| <= atol + rtol * |b| */
#define T_NEAR(a, b, atol, rtol)                                                                                      \
    do {                                                                                                              \
        double t_a = (double)(a), t_b = (double)(b);                                                                  \
        if (!(fabs(t_a - t_b) <= (atol) + (rtol)*fabs(t_b)))                                                          \
            T_FAIL_AT("%s ~= %s: %.9g vs %.9g (atol %g, rtol %g)", #a, #b, t_a, t_b, (double)(atol), (double)(rtol)); \
    } while (0)

static inline int t_done(void)
{
    printf("%d passed, %d failed, %d skipped\n", t_tests_passed, t_tests_failed, t_tests_skipped);
    return t_tests_failed ? 1 : 0;
}

/* The shared fixtures folder ($STEPSCOPE_FIXTURES, else ../shared/fixtures), or NULL. */
static inline const char *t_fixtures(void)
{
    static char buf[4096];
    const char *env = getenv("STEPSCOPE_FIXTURES");
    if (env && *env) return env;
    FILE *f = fopen("../shared/fixtures/SOURCES.md", "r");
    if (!f) return NULL;
    fclose(f);
    snprintf(buf, sizeof buf, "../shared/fixtures");
    return buf;
}

#endif
