/*
 * selftest_text.c — the self-test's report as text (selftest_text.h).
 */
#include "selftest_text.h"

#include "metric.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

void rb_selftest_intro(const rb_selftest_text_in *in, rb_buf *out)
{
    const rb_selftest_opts *o = in->opts;
    const char *dflt = in->gate ? "" : " (default: halfway to the effect)";
    if (rb_metric_exact(o->metric))
        rb_buf_printf(out,
                      "self-test: can this machine gate %s at %.1f%%? %s; --metric %s (exact: one "
                      "run of each case decides); gate --fail-below %g%s\n",
                      in->router, 100 * o->effect, in->l->names, rb_metric_name(o->metric),
                      o->threshold, dflt);
    else
        rb_buf_printf(out,
                      "self-test: can this machine gate %s at %.1f%%? %s; %u trials (+%u warm-up) "
                      "of >= %g ms, %s; gate --fail-below %g%s; %u runs per case\n",
                      in->router, 100 * o->effect, in->l->names, o->proto.trials, o->proto.warmup,
                      o->proto.min_trial_ms,
                      o->metric == RB_METRIC_HW_INSTRUCTIONS ? "hardware instruction counter"
                      : o->proto.clock == RB_BENCH_CLOCK_CPU ? "--clock cpu"
                                                             : "--clock wall",
                      o->threshold, dflt, o->runs);
}

static void pct(double part, double whole, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.0f%%", whole > 0 ? 100 * part / whole : 0);
}

static void one_case(rb_buf *out, const char *name, const rb_selftest_case *c)
{
    char sig[16], fail[16], inc[16], pass[16];
    pct(c->significant, c->runs, sig, sizeof sig);
    pct(c->failed, c->runs, fail, sizeof fail);
    pct(c->inconclusive, c->runs, inc, sizeof inc);
    pct(c->passed, c->runs, pass, sizeof pass);
    rb_buf_printf(out, "  %-34s %4u  %3u %-5s %3u %-5s %3u %-5s %3u %-5s  %.3f [%.3f, %.3f]\n",
                  name, c->runs, c->significant, sig, c->failed, fail, c->inconclusive, inc,
                  c->passed, pass, c->median, c->min, c->max);
}

/* "trials for 90% detection": never, one count, or the estimate with what
 * it rests on, so that it cannot contradict the rates printed above it. */
static void power(rb_buf *out, const rb_selftest_opts *o, const rb_selftest_result *r)
{
    size_t n = r->trials_for_power;
    unsigned now = o->proto.trials;
    double effect = o->effect, threshold = o->threshold;
    const rb_selftest_case *s = &r->slowed;
    if (n == SIZE_MAX) {
        rb_buf_printf(out,
                      "trials for 90%% detection: never at this threshold: (1 + %.1f%%) x %g = "
                      "%.4f <= 1, a %.1f%% regression is not past it%s (choose --fail-below above "
                      "%.4f)\n",
                      100 * effect, threshold, (1 + effect) * threshold, 100 * effect,
                      r->exact ? ", however exact the count" : "", 1.0 / (1.0 + effect));
    } else if (n == 0) {
        rb_buf_puts(out, "trials for 90% detection: unknown (the A/A runs gave no interval)\n");
    } else if (r->exact) {
        if (s->failed == s->runs)
            rb_buf_printf(out, "trials for 90%% detection: 1 (counts are exact; %u/%u detected)\n",
                          s->failed, s->runs);
        else
            rb_buf_printf(out,
                          "trials for 90%% detection: 1 would decide, but the slowed copy counted "
                          "only %.1f%% more (calibration), not past --fail-below %g: %u/%u "
                          "detected\n",
                          100 * r->measured_effect, threshold, s->failed, s->runs);
    } else if (s->failed == 0) {
        rb_buf_printf(out,
                      "trials for 90%% detection: more than %u (0/%u detected at %u trials now; "
                      "the A/A spread alone suggests about %zu)%s\n",
                      now, s->runs, now, n, "; --metric instructions is exact");
    } else if (s->failed * 10 >= s->runs * 9) {
        rb_buf_printf(out,
                      "trials for 90%% detection: about %zu (%u/%u detected at %u trials now; "
                      "the A/A spread says how much fewer would do)\n",
                      n, s->failed, s->runs, now);
    } else {
        rb_buf_printf(out,
                      "trials for 90%% detection: about %zu (%u/%u detected at %u trials now: "
                      "more are needed; from that rate and the A/A spread)%s\n",
                      n, s->failed, s->runs, now,
                      n > 200 ? "; --metric instructions is exact" : "");
    }
}

/* Identical code should measure 1.000: explain an A/A median beyond 0.5%. */
static void aa_note(rb_buf *out, const rb_selftest_result *r, double threshold)
{
    const rb_selftest_case *aa = &r->aa;
    if (aa->runs == 0 || !(fabs(log(aa->median)) > log(1.005))) return;
    bool steady = aa->min > 1 || aa->max < 1 || 2 * aa->significant > aa->runs;
    if (!steady) {
        rb_buf_printf(out,
                      "note: identical code's A/A median is %.3f (%.1f%% from 1), but its runs "
                      "spread from %.3f to %.3f and %u/%u intervals excluded 1: noise at these "
                      "settings, not a difference of the code, and the gate took it as such "
                      "(%u/%u failed, %u inconclusive); more trials or --metric instructions "
                      "narrow it.\n",
                      aa->median, 100 * fabs(aa->median - 1), aa->min, aa->max, aa->significant,
                      aa->runs, aa->failed, aa->runs, aa->inconclusive);
        return;
    }
    rb_buf_printf(out,
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

void rb_selftest_text(const rb_selftest_text_in *in, const rb_selftest_result *r, double load_start,
                      double load_end, rb_buf *out)
{
    const rb_selftest_opts *o = in->opts;
    for (size_t k = 0; k < in->l->n && k < 16; k++) {
        const rb_selftest_spin *s = &r->spins[k];
        rb_buf_printf(out,
                      "slowed copy on %s: %llu iterations of busy work per lookup (A: %.2f %s per "
                      "lookup; calibration measured a slowdown of %.1f%%)\n",
                      in->l->v[k].spec.name, (unsigned long long)s->spin, s->base,
                      rb_metric_unit(o->metric), 100 * (s->slowdown - 1));
    }
    char slowed[64];
    snprintf(slowed, sizeof slowed, "A slowed %.1f%% (measured %.1f%%)", 100 * o->effect,
             100 * r->measured_effect);
    rb_buf_printf(out, "\n  %-34s %4s  %-9s %-9s %-9s %-9s  %s\n", "case", "runs", "signif.",
                  "failed", "inconcl.", "passed", "speed ratio b/a: median [min, max]");
    one_case(out, "identical (A/A)", &r->aa);
    one_case(out, slowed, &r->slowed);
    rb_buf_printf(out,
                  "\nfalse-alarm rate: %u/%u (A/A runs whose gate FAILED on identical code; "
                  "\"signif.\" counts those whose interval merely excluded 1)\n",
                  r->aa.failed, r->aa.runs);
    rb_buf_printf(out, "detection rate:   %u/%u (the gate failed on the copy slowed by %.1f%%)\n",
                  r->slowed.failed, r->slowed.runs, 100 * o->effect);
    power(out, o, r);
    aa_note(out, r, o->threshold);
    if (load_start >= 0)
        rb_buf_printf(out, "load average (1 min): %.2f at the start, %.2f at the end\n", load_start,
                      load_end);
}
