/*
 * test_compare.c — saved results, end to end (the binary): `routebench
 * compare OLD NEW` and `routebench history DIR` (bench/bundle/compare.h,
 * bench/report/history.h).
 *
 *   - two instruction results of identical code: 1.000 exact, exit 0, and
 *     the gate passes;
 *   - of a build 30 instructions a lookup slower (tests/plugins/
 *     nop_router.c): FAILED, exit 1, "NEW is X% slower than OLD";
 *   - a time result against a counted one, and counts from another
 *     compiler: exit 2, every differing field named with both values;
 *   - two time results: an unpaired interval, said so; --fail-below is
 *     refused without --unpaired-gate (exit 2), decided with it;
 *   - history over four results (same, same, slower, another compiler):
 *     the slower commit is flagged with its size, the fourth starts a new
 *     series naming the compiler, and the chart is written.
 * Counted cases skip, with a message, without Valgrind or in a sanitized
 * build (Valgrind cannot run it).
 */
#define _POSIX_C_SOURCE 200809L
#include "rb_test.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void need_valgrind(void)
{
    if (RB_TEST_SANITIZED) cr_skip_test("sanitized build: Valgrind cannot run it");
    if (system("valgrind --version >/dev/null 2>&1") != 0)
        cr_skip_test("valgrind is not installed (scripts/setup.sh installs it): skipped");
}

/* routebench ARGS, expecting status expect; returns what it printed. */
static char *rb(const char *tmp, const char *args, int expect)
{
    char log[4200];
    snprintf(log, sizeof log, "%s/cmd.log", tmp);
    int rc = rbt_routebench(args, log);
    char *out = rbt_slurp(tmp, "cmd.log", NULL);
    cr_assert_eq(rc, expect, "routebench %s: exit %d, expected %d\n%s", args, rc, expect, out);
    return out;
}

/* An instruction result of nophash from plugin lib, on github and
 * params-1000, saved as the bundle tmp/name and as tmp/name.json. */
static void record(const char *tmp, const char *name, const char *lib)
{
    char args[8192];
    snprintf(args, sizeof args,
             "run --metric instructions --routers nophash@%s --baseline nophash@%s "
             "--scenarios github,params-1000 --out %s/%s --export-json %s/%s.json",
             lib, lib, tmp, name, tmp, name);
    free(rb(tmp, args, 0));
}

/* Replace the first `from` in file by `to` (a compiler, a metric). */
static void rewrite(const char *tmp, const char *src, const char *dst, const char *from,
                    const char *to)
{
    char *text = rbt_slurp(tmp, src, NULL);
    char *at = strstr(text, from);
    cr_assert_not_null(at, "%s holds no \"%s\"", src, from);
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", tmp, dst);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fwrite(text, 1, (size_t)(at - text), f);
    fputs(to, f);
    fputs(at + strlen(from), f);
    cr_assert_eq(fclose(f), 0);
    free(text);
}

Test(compare, counts_of_identical_and_slowed_builds, .timeout = 600)
{
    need_valgrind();
    char *tmp = rbt_tmpdir(), args[8192];
    record(tmp, "same1", RB_NOP0_PLUGIN);
    record(tmp, "same2", RB_NOP0_PLUGIN);
    record(tmp, "slow", RB_NOP30_PLUGIN);

    snprintf(args, sizeof args, "compare %s/same1 %s/same2 --fail-below 0.97", tmp, tmp);
    char *out = rb(tmp, args, 0);
    cr_expect(strstr(out, "1.000 exact: NEW is as fast as OLD") != NULL, "%s", out);
    cr_expect(strstr(out, "passed") != NULL, "%s", out);
    free(out);
    /* a summary.json document is a saved result too */
    snprintf(args, sizeof args, "compare %s/same1.json %s/same2 --fail-below 3%%", tmp, tmp);
    free(rb(tmp, args, 0));

    snprintf(args, sizeof args, "compare %s/same1 %s/slow.json --fail-below 0.97", tmp, tmp);
    out = rb(tmp, args, 1);
    cr_expect(strstr(out, "FAILED") != NULL, "%s", out);
    cr_expect(strstr(out, "NEW is 5.") != NULL || strstr(out, "NEW is 4.") != NULL ||
                  strstr(out, "NEW is 6.") != NULL,
              "30 instructions on ~570: about 5%% slower\n%s", out);
    cr_expect(strstr(out, "slower than OLD") != NULL, "%s", out);
    free(out);
    /* without a gate: the ratios only, exit 0 */
    snprintf(args, sizeof args, "compare %s/same1 %s/slow", tmp, tmp);
    free(rb(tmp, args, 0));

    /* another compiler: refused, naming the field and both values */
    rewrite(tmp, "same2.json", "clang.json", "\"compiler\":\t\"GNU", "\"compiler\":\t\"Clang");
    snprintf(args, sizeof args, "compare %s/same1.json %s/clang.json --fail-below 0.97", tmp, tmp);
    out = rb(tmp, args, 2);
    cr_expect(strstr(out, "not comparable") != NULL, "%s", out);
    cr_expect(strstr(out, "tool.compiler: GNU") != NULL, "%s", out);
    cr_expect(strstr(out, "in NEW") != NULL && strstr(out, "Clang") != NULL, "%s", out);
    free(out);

    /* a time result against a counted one: the metric named */
    snprintf(args, sizeof args,
             "run --routers nophash@%s --baseline nophash@%s --scenarios github --trials 3 "
             "--min-trial-ms 2 --out %s/time1",
             RB_NOP0_PLUGIN, RB_NOP0_PLUGIN, tmp);
    free(rb(tmp, args, 0));
    snprintf(args, sizeof args, "compare %s/time1 %s/same1", tmp, tmp);
    out = rb(tmp, args, 2);
    cr_expect(strstr(out, "protocol.metric: time in OLD, instructions in NEW") != NULL, "%s", out);
    free(out);

    /* history: same, same, slower, another compiler */
    char hist[4300], cmd[9000];
    snprintf(hist, sizeof hist, "%s/hist", tmp);
    snprintf(cmd, sizeof cmd,
             "mkdir %s && cp %s/same1.json %s/001.json && cp %s/same2.json %s/002.json && "
             "cp %s/slow.json %s/003.json && cp -r %s/slow %s/004-dir && "
             "cp %s/clang.json %s/005.json",
             hist, tmp, hist, tmp, hist, tmp, hist, tmp, hist, tmp, hist);
    cr_assert_eq(system(cmd), 0);
    snprintf(args, sizeof args, "history %s --svg %s/history.svg", hist, tmp);
    out = rb(tmp, args, 0);
    cr_expect(strstr(out, "2 series") != NULL, "%s", out);
    cr_expect(strstr(out, "  #3 ") != NULL, "the slower build is flagged\n%s", out);
    cr_expect(strstr(out, "  #2 ") == NULL && strstr(out, "  #4 ") == NULL,
              "identical counts are not steps\n%s", out);
    cr_expect(strstr(out, "nophash on github +6.") != NULL, "%s", out);
    cr_expect(strstr(out, "a new series") != NULL && strstr(out, "tool.compiler") != NULL, "%s",
              out);
    free(out);
    char *svg = rbt_slurp(tmp, "history.svg", NULL);
    cr_expect(strncmp(svg, "<svg", 4) == 0);
    cr_expect(strstr(svg, "stroke-dasharray") != NULL, "the new series is drawn");
    free(svg);
    rbt_remove_tree(tmp);
    free(tmp);
}

Test(compare, time_results_are_unpaired, .timeout = 300)
{
    char *tmp = rbt_tmpdir(), args[8192];
    for (int i = 1; i <= 2; i++) {
        snprintf(args, sizeof args,
                 "run --routers hashseg --baseline hashseg --scenarios github --trials 5 "
                 "--min-trial-ms 2 --out %s/t%d --export-json %s/t%d.json",
                 tmp, i, tmp, i);
        free(rb(tmp, args, 0));
    }
    snprintf(args, sizeof args, "compare %s/t1 %s/t2", tmp, tmp);
    char *out = rb(tmp, args, 0);
    cr_expect(strstr(out, "no trial has a partner") != NULL, "%s", out);
    cr_expect(strstr(out, "unpaired") != NULL, "%s", out);
    free(out);
    snprintf(args, sizeof args, "compare %s/t1 %s/t2 --fail-below 0.9", tmp, tmp);
    out = rb(tmp, args, 2);
    cr_expect(strstr(out, "--unpaired-gate") != NULL, "%s", out);
    free(out);
    /* asked for: decided (any outcome but a usage error) */
    char log[4200];
    snprintf(log, sizeof log, "%s/gate.log", tmp);
    snprintf(args, sizeof args, "compare %s/t1 %s/t2 --fail-below 0.9 --unpaired-gate", tmp, tmp);
    int rc = rbt_routebench(args, log);
    cr_expect(rc == 0 || rc == 1 || rc == 3, "exit %d", rc);
    /* a summary.json alone has no trials: no interval to gate on */
    snprintf(args, sizeof args, "compare %s/t1.json %s/t2 --fail-below 0.9 --unpaired-gate", tmp,
             tmp);
    out = rb(tmp, args, 2);
    cr_expect(strstr(out, "trials.csv") != NULL, "%s", out);
    free(out);
    rbt_remove_tree(tmp);
    free(tmp);
}
