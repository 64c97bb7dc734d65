/*
 * pair_selftest.c — `routebench pair --self-test`: runs bench/suite/selftest.h
 * (which loads the scenarios too) and prints its table.
 */
#include "cli.h"
#include "base_internal.h"
#include "selftest.h"
#include "session.h"
#include "machine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void on_note(void *ctx, const char *what)
{
    (void)ctx;
    fprintf(stderr, "self-test: %s\n", what);
    fflush(stderr);
}

static void on_skip(void *ctx, const char *name)
{
    const session_options *o = ctx;
    fprintf(o->human, "self-test: %s skipped (%s lacks a feature of its routes)\n", name,
            o->run.labels[0]);
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

/* "trials for 90% detection": never, one count, or the estimate with what
 * it rests on, so that it cannot contradict the rates printed above it. */
static void print_power(FILE *out, const session_options *o, const rb_selftest_result *r,
                        double effect, double threshold)
{
    size_t n = r->trials_for_power;
    unsigned now = o->run.proto.trials;
    const rb_selftest_case *s = &r->slowed;
    if (n == SIZE_MAX) {
        fprintf(out,
                "trials for 90%% detection: never at this threshold: (1 + %.1f%%) x %g = %.4f <= "
                "1, a %.1f%% regression is not past it%s (choose --fail-below above %.4f)\n",
                100 * effect, threshold, (1 + effect) * threshold, 100 * effect,
                r->exact ? ", however exact the count" : "", 1.0 / (1.0 + effect));
    } else if (n == 0) {
        fprintf(out, "trials for 90%% detection: unknown (the A/A runs gave no interval)\n");
    } else if (r->exact) {
        if (s->failed == s->runs)
            fprintf(out, "trials for 90%% detection: 1 (counts are exact; %u/%u detected)\n",
                    s->failed, s->runs);
        else
            fprintf(out,
                    "trials for 90%% detection: 1 would decide, but the slowed copy counted "
                    "only %.1f%% more (calibration), not past --fail-below %g: %u/%u detected\n",
                    100 * r->measured_effect, threshold, s->failed, s->runs);
    } else if (s->failed == 0) {
        fprintf(out,
                "trials for 90%% detection: more than %u (0/%u detected at %u trials now; the A/A "
                "spread alone suggests about %zu)%s\n",
                now, s->runs, now, n, "; --metric instructions is exact");
    } else if (s->failed * 10 >= s->runs * 9) {
        fprintf(out,
                "trials for 90%% detection: about %zu (%u/%u detected at %u trials now; the A/A "
                "spread says how much fewer would do)\n",
                n, s->failed, s->runs, now);
    } else {
        fprintf(out,
                "trials for 90%% detection: about %zu (%u/%u detected at %u trials now: more are "
                "needed; from that rate and the A/A spread)%s\n",
                n, s->failed, s->runs, now, n > 200 ? "; --metric instructions is exact" : "");
    }
}

/* Identical code should measure 1.000: explain an A/A median beyond 0.5%. */
static void print_aa_note(FILE *out, const rb_selftest_result *r, double threshold)
{
    const rb_selftest_case *aa = &r->aa;
    if (aa->runs == 0 || !(fabs(log(aa->median)) > log(1.005))) return;
    bool steady = aa->min > 1 || aa->max < 1 || 2 * aa->significant > aa->runs;
    if (!steady) {
        fprintf(out,
                "note: identical code's A/A median is %.3f (%.1f%% from 1), but its runs spread "
                "from %.3f to %.3f and %u/%u intervals excluded 1: noise at these settings, not "
                "a difference of the code, and the gate took it as such (%u/%u failed, %u "
                "inconclusive); more trials or --metric instructions narrow it.\n",
                aa->median, 100 * fabs(aa->median - 1), aa->min, aa->max, aa->significant, aa->runs,
                aa->failed, aa->runs, aa->inconclusive);
        return;
    }
    fprintf(out,
            "note: identical code measured %.3f (A/A median over %u runs, %.1f%% from 1), "
            "%s: a steady difference between the two instances of A, not noise that more "
            "trials average away. Two copies of the same code sit at different addresses "
            "(code placement and data alignment, docs/measurement.md \"Code placement\"). "
            "\"signif.\" (%u/%u) counts runs whose interval excluded 1, which such a "
            "difference does; the gate fails only below %g (%u/%u A/A runs failed). A "
            "threshold closer to 1 than %.3f would fail identical code.\n",
            aa->median, aa->runs, 100 * fabs(aa->median - 1),
            aa->min > 1 || aa->max < 1 ? "on the same side of 1 in every run"
                                       : "its interval excluding 1 in most runs",
            aa->significant, aa->runs, threshold, aa->failed, aa->runs,
            aa->median < 1 ? aa->median : 1 / aa->median);
}

int pair_selftest(session_options *o, double effect, unsigned runs, bool gate, double fail_below)
{
    FILE *out = o->human;
    rb_error err;
    double threshold = gate ? fail_below : 1.0 - effect / 2.0;
    bool exact = rb_metric_exact(o->run.metric);
    if (exact && rb_callgrind_open(&o->run.cg, &err) < 0) {
        fprintf(stderr, "routebench pair: %s\n", err.message);
        return CLI_USAGE;
    }
    rb_selftest_loaded *l = malloc(sizeof *l);
    if (!l) return cli_system_error("pair", "out of memory");
    if (rb_selftest_load(&o->run.scenarios, o->run.seed, o->run.routers[0], on_skip, o, l, &err) <
        0) {
        fprintf(stderr, "routebench pair: scenario %s: %s\n", l->failed, err.message);
        free(l);
        return CLI_USAGE;
    }
    if (l->n == 0) {
        fprintf(stderr, "routebench pair: no scenario %s supports\n", o->run.labels[0]);
        free(l);
        return CLI_USAGE;
    }
    double load_start = rb_machine_loadavg();
    if (exact)
        fprintf(out,
                "self-test: can this machine gate %s at %.1f%%? %s; --metric %s (exact: one run "
                "of each case decides); gate --fail-below %g%s\n",
                o->run.labels[0], 100 * effect, l->names, rb_metric_name(o->run.metric), threshold,
                gate ? "" : " (default: halfway to the effect)");
    else
        fprintf(out,
                "self-test: can this machine gate %s at %.1f%%? %s; %u trials (+%u warm-up) of >= "
                "%g ms, %s; gate --fail-below %g%s; %u runs per case\n",
                o->run.labels[0], 100 * effect, l->names, o->run.proto.trials, o->run.proto.warmup,
                o->run.proto.min_trial_ms,
                o->run.metric == RB_METRIC_HW_INSTRUCTIONS ? "hardware instruction counter"
                : o->run.proto.clock == RB_BENCH_CLOCK_CPU ? "--clock cpu"
                                                           : "--clock wall",
                threshold, gate ? "" : " (default: halfway to the effect)", runs);
    fflush(out);

    rb_selftest_opts so = {o->run.routers[0], o->run.metric, o->run.proto, o->run.seed, effect,
                           threshold,         runs,          &o->run.cg,   on_note};
    rb_selftest_result r;
    int rc = rb_selftest_run(&so, l->v, l->n, NULL, NULL, &r, &err);
    double load_end = rb_machine_loadavg();
    size_t n = l->n;
    rb_selftest_loaded_free(l); /* the specs (their names) stay */
    if (rc < 0) {
        fprintf(stderr, "routebench pair: self-test: %s\n", err.message);
        free(l);
        return rc == RB_ESTATE ? CLI_FAILED : CLI_USAGE;
    }
    for (size_t k = 0; k < n && k < 16; k++) {
        const rb_selftest_spin *s = &r.spins[k];
        fprintf(out,
                "slowed copy on %s: %llu iterations of busy work per lookup (A: %.2f %s per "
                "lookup; calibration measured a slowdown of %.1f%%)\n",
                l->v[k].spec.name, (unsigned long long)s->spin, s->base,
                rb_metric_unit(o->run.metric), 100 * (s->slowdown - 1));
    }
    free(l);
    char slowed[64];
    snprintf(slowed, sizeof slowed, "A slowed %.1f%% (measured %.1f%%)", 100 * effect,
             100 * r.measured_effect);
    fprintf(out, "\n  %-34s %4s  %-9s %-9s %-9s %-9s  %s\n", "case", "runs", "signif.", "failed",
            "inconcl.", "passed", "speed ratio b/a: median [min, max]");
    print_case(out, "identical (A/A)", &r.aa);
    print_case(out, slowed, &r.slowed);
    fprintf(out,
            "\nfalse-alarm rate: %u/%u (A/A runs whose gate FAILED on identical code; "
            "\"signif.\" counts those whose interval merely excluded 1)\n",
            r.aa.failed, r.aa.runs);
    fprintf(out, "detection rate:   %u/%u (the gate failed on the copy slowed by %.1f%%)\n",
            r.slowed.failed, r.slowed.runs, 100 * effect);
    print_power(out, o, &r, effect, threshold);
    print_aa_note(out, &r, threshold);
    if (load_start >= 0)
        fprintf(out, "load average (1 min): %.2f at the start, %.2f at the end\n", load_start,
                load_end);
    return CLI_OK;
}
