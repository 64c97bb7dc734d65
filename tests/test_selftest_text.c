/*
 * test_selftest_text.c — the self-test's report (bench/suite/selftest_text.h)
 * on hand-made results: the power line cannot contradict the rates above
 * it, and identical code off 1.000 is explained as noise or as a steady
 * difference, by the rule of its comment.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metric.h"
#include "selftest_text.h"

static rb_selftest_loaded one_scenario(void)
{
    rb_selftest_loaded l;
    memset(&l, 0, sizeof l);
    l.n = 1;
    strcpy(l.v[0].spec.name, "params-100");
    strcpy(l.names, "params-100");
    return l;
}

static char *report(const rb_selftest_opts *o, const rb_selftest_result *r, bool gate)
{
    rb_selftest_loaded l = one_scenario();
    rb_selftest_text_in in = {"radix", o, gate, &l};
    rb_buf b = {0};
    rb_selftest_intro(&in, &b);
    rb_selftest_text(&in, r, -1, -1, &b);
    cr_assert(!b.failed && b.data);
    return b.data;
}

Test(selftest_text, exact_and_detected_says_one_trial)
{
    rb_selftest_opts o = {
        .metric = RB_METRIC_INSTRUCTIONS, .effect = 0.05, .threshold = 0.975, .runs = 1};
    rb_selftest_result r = {0};
    r.exact = true;
    r.trials_for_power = 1;
    r.aa = (rb_selftest_case){.runs = 1, .passed = 1, .median = 1, .min = 1, .max = 1};
    r.slowed = (rb_selftest_case){.runs = 1, .significant = 1, .failed = 1, .median = 0.951};
    char *s = report(&o, &r, false);
    const char *intro = "self-test: can this machine gate radix at 5.0%? params-100; --metric "
                        "instructions (exact: one run of each case decides); gate --fail-below "
                        "0.975 (default: halfway to the effect)\n";
    cr_expect(strncmp(s, intro, strlen(intro)) == 0, "%s", s);
    cr_expect(strstr(s, "trials for 90% detection: 1 (counts are exact; 1/1 detected)\n") != NULL,
              "%s", s);
    cr_expect(strstr(s, "false-alarm rate: 0/1 ") != NULL);
    cr_expect(strstr(s, "note:") == NULL, "A/A at 1.000 needs no note: %s", s);
    cr_expect(strstr(s, "load average") == NULL, "an unknown load is not said");
    free(s);
}

/* (1 + 5%) x 0.95 = 0.9975 <= 1: no 5% regression gets past 0.95. */
Test(selftest_text, a_threshold_out_of_reach_says_never)
{
    rb_selftest_opts o = {.metric = RB_METRIC_TIME, .effect = 0.05, .threshold = 0.95, .runs = 4};
    o.proto.trials = 9;
    rb_selftest_result r = {0};
    r.trials_for_power = SIZE_MAX;
    r.aa = (rb_selftest_case){.runs = 4, .passed = 4, .median = 1, .min = 0.99, .max = 1.01};
    r.slowed = (rb_selftest_case){.runs = 4, .passed = 4, .median = 0.95};
    char *s = report(&o, &r, true);
    cr_expect(strstr(s, "trials for 90% detection: never at this threshold: (1 + 5.0%) x 0.95 = "
                        "0.9975 <= 1") != NULL,
              "%s", s);
    cr_expect(strstr(s, "; 4 runs per case\n") != NULL, "%s", s);
    free(s);
}

/* An A/A median of 1.02 on one side of 1 in every run is steady, not noise. */
Test(selftest_text, a_steady_aa_difference_is_explained)
{
    rb_selftest_opts o = {.metric = RB_METRIC_TIME, .effect = 0.05, .threshold = 0.975, .runs = 3};
    rb_selftest_result r = {0};
    r.trials_for_power = 20;
    r.aa = (rb_selftest_case){
        .runs = 3, .significant = 3, .passed = 3, .median = 1.02, .min = 1.01, .max = 1.03};
    r.slowed = (rb_selftest_case){.runs = 3, .failed = 3, .median = 0.95};
    char *s = report(&o, &r, false);
    cr_expect(strstr(s, "note: identical code measured 1.020 (A/A median over 3 runs, 2.0% from "
                        "1), on the same side of 1 in every run") != NULL,
              "%s", s);
    free(s);
}
