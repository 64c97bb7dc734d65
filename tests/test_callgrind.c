/*
 * test_callgrind.c — end to end, `--metric instructions` and `cycles-est`:
 * routebench runs itself under Callgrind (valgrind, installed by
 * scripts/setup.sh), so these tests assert exact counts.
 *
 *   - two builds of the same code give exactly 1.000 and pass the gate:
 *     the built-in hashseg against hashseg from build/librouters.so, and
 *     two copies of one plugin file (also under cycles-est);
 *   - one instruction per lookup shows: plugins of hashseg + 0 and + 1 nop
 *     differ by exactly 1.00 instruction per lookup, and fail --fail-below 1;
 *   - a build ~5% slower (+30 instructions on ~570) always fails --fail-below
 *     0.97, with exit status 1;
 *   - the self-test's slowed copy slows A by what it claims, in
 *     instructions.
 * Skipped, with a message, when valgrind is not installed or the build is
 * sanitized (Valgrind cannot run ASan or TSan binaries); CI has it.
 */
#define _POSIX_C_SOURCE 200809L
#include "rb_test.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void need_valgrind(void)
{
    if (RB_TEST_SANITIZED) cr_skip_test("sanitized build: Valgrind cannot run it");
    if (system("valgrind --version >/dev/null 2>&1") != 0)
        cr_skip_test("valgrind is not installed (scripts/setup.sh installs it): skipped");
}

static const cJSON *item(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    cr_assert_not_null(v, "no \"%s\"", key);
    return v;
}

/* Run a pair with --out; returns the parsed summary.json (free it). */
static cJSON *pair(const char *tmp, const char *name, const char *args, int expect)
{
    char cmd[8192], log[4200], dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", tmp, name);
    snprintf(log, sizeof log, "%s/%s.log", tmp, name);
    snprintf(cmd, sizeof cmd, "pair %s --out %s", args, dir);
    int rc = rbt_routebench(cmd, log);
    char *out = rbt_slurp(tmp, strrchr(log, '/') + 1, NULL);
    cr_assert_eq(rc, expect, "routebench %s: exit %d\n%s", cmd, rc, out);
    free(out);
    char *text = rbt_slurp(dir, "summary.json", NULL);
    cJSON *root = cJSON_Parse(text);
    free(text);
    cr_assert_not_null(root);
    return root;
}

/* The result of router `router` in scenario si. */
static const cJSON *result(const cJSON *root, int si, const char *router)
{
    const cJSON *sc = cJSON_GetArrayItem(item(root, "scenarios"), si), *r;
    cJSON_ArrayForEach(r, item(sc, "results"))
    {
        if (strcmp(item(r, "router")->valuestring, router) == 0) return r;
    }
    cr_assert_fail("no result for %s", router);
    return NULL;
}

static double pair_median(const cJSON *root, int si)
{
    const cJSON *sc = cJSON_GetArrayItem(item(root, "scenarios"), si);
    return item(cJSON_GetArrayItem(item(sc, "pairs"), 0), "median")->valuedouble;
}

Test(callgrind, two_builds_of_the_same_code_give_exactly_one, .timeout = 300)
{
    need_valgrind();
    char *tmp = rbt_tmpdir();
    char args[4096];
    snprintf(args, sizeof args,
             "--a hashseg --b hashseg@%s --scenario github,params-1000 --metric instructions "
             "--fail-below 0.999",
             RB_BUILTIN_PLUGIN);
    cJSON *root = pair(tmp, "builtin", args, 0);
    for (int si = 0; si < 2; si++) {
        cr_expect_eq(pair_median(root, si), 1.0, "scenario %d: the ratio is exactly 1", si);
        const cJSON *pr =
            cJSON_GetArrayItem(item(cJSON_GetArrayItem(item(root, "scenarios"), si), "pairs"), 0);
        cr_expect_eq(item(pr, "lo")->valuedouble, 1.0);
        cr_expect_eq(item(pr, "hi")->valuedouble, 1.0, "zero width");
        cr_expect_eq(item(pr, "mde")->valuedouble, 0.0);
    }
    const cJSON *gate = item(root, "gate");
    cr_expect_str_eq(item(gate, "outcome")->valuestring, "passed");
    cr_expect(cJSON_IsTrue(item(gate, "exact")));
    cr_expect_str_eq(item(item(root, "protocol"), "metric")->valuestring, "instructions");
    const cJSON *lib = cJSON_GetArrayItem(item(root, "libraries"), 0);
    cr_assert_not_null(lib, "the NAME@LIB library is identified");
    cr_expect_gt(item(lib, "size")->valuedouble, 0);
    cr_expect_eq(strlen(item(lib, "xxh3")->valuestring), 16u);
    cr_expect(cJSON_IsString(item(lib, "commit")), "librouters.so carries its commit");
    cJSON_Delete(root);

    /* Two copies of one plugin file, under the cache simulation too. */
    char copy[4200], cmd[8600];
    snprintf(copy, sizeof copy, "%s/copy.so", tmp);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", RB_NOP0_PLUGIN, copy);
    cr_assert_eq(system(cmd), 0);
    snprintf(args, sizeof args,
             "--a nophash@%s --b nophash@%s --scenario github --metric cycles-est", RB_NOP0_PLUGIN,
             copy);
    root = pair(tmp, "copies", args, 0);
    cr_expect_eq(pair_median(root, 0), 1.0, "cycles-est: two copies of one file count alike");
    char a[4300];
    snprintf(a, sizeof a, "nophash@%s", RB_NOP0_PLUGIN);
    const cJSON *r = result(root, 0, a);
    cr_expect_gt(item(r, "instructions_per_lookup")->valuedouble, 100);
    cr_expect_geq(item(r, "l1_misses_per_lookup")->valuedouble, 0);
    cJSON_Delete(root);
    rbt_remove_tree(tmp);
    free(tmp);
}

Test(callgrind, one_instruction_per_lookup_shows, .timeout = 300)
{
    need_valgrind();
    char *tmp = rbt_tmpdir();
    char args[4096], a[4200], b[4200];
    snprintf(a, sizeof a, "nophash@%s", RB_NOP0_PLUGIN);
    snprintf(b, sizeof b, "nophash@%s", RB_NOP1_PLUGIN);
    snprintf(args, sizeof args,
             "--a %s --b %s --scenario github --metric instructions --fail-below 1", a, b);
    cJSON *root = pair(tmp, "one", args, 1);
    double ia = item(result(root, 0, a), "instructions_per_lookup")->valuedouble;
    double ib = item(result(root, 0, b), "instructions_per_lookup")->valuedouble;
    cr_expect_eq(ib - ia, 1.0, "%.4f - %.4f", ib, ia);
    cr_expect_lt(pair_median(root, 0), 1.0);
    cr_expect_str_eq(item(item(root, "gate"), "outcome")->valuestring, "failed");
    cJSON_Delete(root);
    rbt_remove_tree(tmp);
    free(tmp);
}

Test(callgrind, a_build_five_percent_slower_always_fails_the_gate, .timeout = 300)
{
    need_valgrind();
    char *tmp = rbt_tmpdir();
    char args[4096];
    snprintf(args, sizeof args,
             "--a nophash@%s --b nophash@%s --scenario github,params-1000 --metric instructions "
             "--fail-below 0.97",
             RB_NOP0_PLUGIN, RB_NOP30_PLUGIN);
    cJSON *root = pair(tmp, "slow", args, 1);
    /* 30 instructions on about 570 (github) and 1,070 (params-1000) */
    cr_expect_lt(pair_median(root, 0), 0.97);
    const cJSON *gate = item(root, "gate");
    cr_expect_str_eq(item(gate, "outcome")->valuestring, "failed");
    cr_expect_lt(item(gate, "median")->valuedouble, 0.97);
    cJSON_Delete(root);
    /* report re-decides the counted gate from trials.csv */
    char cmd[4400], log[4300];
    snprintf(cmd, sizeof cmd, "report %s/slow", tmp);
    snprintf(log, sizeof log, "%s/report.log", tmp);
    cr_expect_eq(rbt_routebench(cmd, log), 0);
    rbt_remove_tree(tmp);
    free(tmp);
}

Test(callgrind, the_self_test_slows_the_copy_by_what_it_claims, .timeout = 300)
{
    need_valgrind();
    char *tmp = rbt_tmpdir();
    char log[4200];
    snprintf(log, sizeof log, "%s/log", tmp);
    cr_assert_eq(rbt_routebench("pair --a hashseg --self-test --metric instructions --effect 5% "
                                "--scenario github --fail-below 0.97",
                                log),
                 0);
    char *out = rbt_slurp(tmp, "log", NULL);
    const char *at = strstr(out, "(measured ");
    cr_assert_not_null(at, "%s", out);
    double measured = strtod(at + strlen("(measured "), NULL);
    /* one iteration of busy work is 5 instructions on ~570 (0.9%): the
     * copy is slowed by 5% to within one iteration */
    cr_expect(measured > 4.0 && measured < 6.0, "measured %.2f%%\n%s", measured, out);
    cr_expect(strstr(out, "false-alarm rate: 0/1") != NULL, "%s", out);
    cr_expect(strstr(out, "detection rate:   1/1") != NULL, "%s", out);
    cr_expect(strstr(out, "identical (A/A)") != NULL);
    free(out);
    rbt_remove_tree(tmp);
    free(tmp);
}
