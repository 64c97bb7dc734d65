/*
 * pair_selftest.c — `routebench pair --self-test`: loads the scenarios,
 * runs bench/suite/selftest.h and prints its table.
 */
#include "cli.h"
#include "base_internal.h"
#include "selftest.h"
#include "session.h"
#include "machine.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void on_note(void *ctx, const char *what)
{
    (void)ctx;
    fprintf(stderr, "self-test: %s\n", what);
    fflush(stderr);
}

static void pct(double part, double whole, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.0f%%", whole > 0 ? 100 * part / whole : 0);
}

static void print_case(FILE *out, const char *name, const rb_selftest_case *c)
{
    char sig[16], fail[16], inc[16], pass[16];
    pct(c->significant, c->runs, sig, sizeof sig);
    pct(c->failed, c->runs, fail, sizeof fail);
    pct(c->inconclusive, c->runs, inc, sizeof inc);
    pct(c->passed, c->runs, pass, sizeof pass);
    fprintf(out, "  %-34s %4u  %3u %-5s %3u %-5s %3u %-5s %3u %-5s  %.3f [%.3f, %.3f]\n", name,
            c->runs, c->significant, sig, c->failed, fail, c->inconclusive, inc, c->passed, pass,
            c->median, c->min, c->max);
}

int pair_selftest(session_options *o, double effect, unsigned runs, bool gate, double fail_below)
{
    FILE *out = o->human;
    rb_error err;
    double threshold = gate ? fail_below : 1.0 - effect / 2.0;
    bool exact = rb_metric_exact(o->metric);
    if (exact && rb_callgrind_open(&o->cg, &err) < 0) {
        fprintf(stderr, "routebench pair: %s\n", err.message);
        return CLI_USAGE;
    }
    rb_scenario loaded[16];
    size_t n = 0;
    char names[512] = "";
    for (size_t i = 0; i < o->scenarios.n && n < 16; i++) {
        if (rb_scenario_load(&o->scenarios.v[i], o->seed, &loaded[n], &err) < 0) {
            fprintf(stderr, "routebench pair: scenario %s: %s\n", o->scenarios.v[i].name,
                    err.message);
            for (size_t k = 0; k < n; k++) rb_scenario_free(&loaded[k]);
            return CLI_USAGE;
        }
        if (loaded[n].features & ~rb_ops_features(o->routers[0])) {
            fprintf(out, "self-test: %s skipped (%s lacks a feature of its routes)\n",
                    loaded[n].spec.name, o->labels[0]);
            rb_scenario_free(&loaded[n]);
            continue;
        }
        size_t len = strlen(names);
        snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", loaded[n].spec.name);
        n++;
    }
    if (n == 0) {
        fprintf(stderr, "routebench pair: no scenario %s supports\n", o->labels[0]);
        return CLI_USAGE;
    }
    double load_start = rb_machine_loadavg();
    if (exact)
        fprintf(out,
                "self-test: can this machine gate %s at %.1f%%? %s; --metric %s (exact: one run "
                "of each case decides); gate --fail-below %g%s\n",
                o->labels[0], 100 * effect, names, rb_metric_name(o->metric), threshold,
                gate ? "" : " (default: halfway to the effect)");
    else
        fprintf(out,
                "self-test: can this machine gate %s at %.1f%%? %s; %u trials (+%u warm-up) of >= "
                "%g ms, %s; gate --fail-below %g%s; %u runs per case\n",
                o->labels[0], 100 * effect, names, o->proto.trials, o->proto.warmup,
                o->proto.min_trial_ms,
                o->metric == RB_METRIC_HW_INSTRUCTIONS ? "hardware instruction counter"
                : o->proto.clock == RB_BENCH_CLOCK_CPU ? "--clock cpu"
                                                       : "--clock wall",
                threshold, gate ? "" : " (default: halfway to the effect)", runs);
    fflush(out);

    rb_selftest_opts so = {o->routers[0], o->metric, o->proto, o->seed, effect,
                           threshold,     runs,      &o->cg,   on_note};
    rb_selftest_result r;
    int rc = rb_selftest_run(&so, loaded, n, NULL, NULL, &r, &err);
    double load_end = rb_machine_loadavg();
    for (size_t k = 0; k < n; k++) rb_scenario_free(&loaded[k]);
    if (rc < 0) {
        fprintf(stderr, "routebench pair: self-test: %s\n", err.message);
        return rc == RB_ESTATE ? CLI_FAILED : CLI_USAGE;
    }
    for (size_t k = 0; k < n && k < 16; k++) {
        const rb_selftest_spin *s = &r.spins[k];
        fprintf(out,
                "slowed copy on %s: %llu iterations of busy work per lookup (A: %.2f %s per "
                "lookup; calibration measured a slowdown of %.1f%%)\n",
                loaded[k].spec.name, (unsigned long long)s->spin, s->base,
                rb_metric_unit(o->metric), 100 * (s->slowdown - 1));
    }
    char slowed[64];
    snprintf(slowed, sizeof slowed, "A slowed %.1f%% (measured %.1f%%)", 100 * effect,
             100 * r.measured_effect);
    fprintf(out, "\n  %-34s %4s  %-9s %-9s %-9s %-9s  %s\n", "case", "runs", "signif.", "failed",
            "inconcl.", "passed", "speed ratio b/a: median [min, max]");
    print_case(out, "identical (A/A)", &r.aa);
    print_case(out, slowed, &r.slowed);
    fprintf(out, "\nfalse-alarm rate: %u/%u (the gate failed on identical code)\n", r.aa.failed,
            r.aa.runs);
    fprintf(out, "detection rate:   %u/%u (the gate failed on the copy slowed by %.1f%%)\n",
            r.slowed.failed, r.slowed.runs, 100 * effect);
    if (r.trials_for_power == SIZE_MAX)
        fprintf(out,
                "trials for 90%% detection: never: a %.1f%% regression is not past the threshold "
                "%g (choose --fail-below above %.4f)\n",
                100 * effect, threshold, 1.0 / (1.0 + effect));
    else if (r.trials_for_power == 0)
        fprintf(out, "trials for 90%% detection: unknown (the A/A runs gave no interval)\n");
    else if (exact)
        fprintf(out, "trials for 90%% detection: 1 (counts are exact)\n");
    else
        fprintf(out, "trials for 90%% detection: about %zu (from the A/A spread; %u now)%s\n",
                r.trials_for_power, o->proto.trials,
                r.trials_for_power > 200 ? "; --metric instructions is exact" : "");
    if (load_start >= 0)
        fprintf(out, "load average (1 min): %.2f at the start, %.2f at the end\n", load_start,
                load_end);
    return CLI_OK;
}
