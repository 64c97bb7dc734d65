/*
 * gate.c — the three-outcome regression gate (gate.h).
 */
#include "gate.h"
#include "format.h"

#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const names[] = {"none", "passed", "failed", "inconclusive"};

const char *rb_gate_outcome_name(int outcome)
{
    return outcome >= 0 && outcome <= RB_GATE_INCONCLUSIVE ? names[outcome] : "none";
}

int rb_gate_outcome_parse(const char *name)
{
    for (int i = 0; i <= RB_GATE_INCONCLUSIVE; i++)
        if (strcmp(name, names[i]) == 0) return i;
    return -1;
}

int rb_gate_exit_status(int outcome)
{
    return outcome == RB_GATE_FAILED         ? RB_GATE_EXIT_FAILED
           : outcome == RB_GATE_INCONCLUSIVE ? RB_GATE_EXIT_INCONCLUSIVE
                                             : RB_GATE_EXIT_PASSED;
}

rb_gate_verdict rb_gate_decide(double threshold, const rb_gate_evidence *e)
{
    rb_gate_verdict v = {RB_GATE_PASSED, threshold, 0, ""};
    double dist_log = fabs(log(threshold));
    if (e->exact && e->mde > 0) { /* a count with an A/A spread: its interval */
        if (e->hi < threshold) {
            v.outcome = RB_GATE_FAILED;
            v.reason = "the ratio is below the threshold by more than the counts' A/A spread";
        } else if (e->lo >= threshold) {
            v.reason = "the ratio is not below the threshold by the counts' A/A spread";
        } else {
            v.outcome = RB_GATE_INCONCLUSIVE;
            v.reason = "the threshold lies within the counts' A/A spread";
        }
        return v;
    }
    if (e->exact) {
        bool below = e->median < threshold;
        v.outcome = below ? RB_GATE_FAILED : RB_GATE_PASSED;
        v.reason = below ? "the exact ratio is below the threshold"
                         : "the exact ratio is not below the threshold";
        return v;
    }
    if (e->too_few || !(e->mde < INFINITY)) {
        v.outcome = RB_GATE_INCONCLUSIVE;
        v.reason = "too few pairs for an interval";
    } else if (e->hi < threshold) {
        v.outcome = RB_GATE_FAILED;
        v.reason = "the whole interval lies below the threshold";
    } else if (e->lo >= threshold) {
        v.reason = "the whole interval lies at or above the threshold";
    } else if (log1p(e->mde) > dist_log) {
        v.outcome = RB_GATE_INCONCLUSIVE;
        v.reason = "the threshold lies inside this run's noise";
    } else {
        v.reason = "the interval includes the threshold, but this run could have seen a "
                   "change of that size and saw none past it";
    }
    if (v.outcome == RB_GATE_INCONCLUSIVE && dist_log > 0 && e->pairs > 0) {
        double n = (double)e->pairs;
        if (e->mde < INFINITY) {
            double ratio = log1p(e->mde) / dist_log;
            n *= ratio * ratio;
        } else {
            n = 15; /* no spread to go by: the README's gate size */
        }
        v.trials_needed = n > 1e6 ? 1000000 : (size_t)ceil(n);
        if (v.trials_needed < RB_STATS_MIN_PAIRS + 2) v.trials_needed = RB_STATS_MIN_PAIRS + 2;
    }
    return v;
}

void rb_gate_words(double ratio, const char *who, const char *than, char *buf, size_t cap)
{
    if (!(ratio > 0) || !isfinite(ratio)) {
        snprintf(buf, cap, "%s against %s: no ratio", who, than);
        return;
    }
    double pct = ratio < 1 ? 100 * (1 / ratio - 1) : 100 * (ratio - 1);
    if (pct < 0.005)
        snprintf(buf, cap, "%s is as fast as %s", who, than);
    else
        snprintf(buf, cap, "%s is %.*f%% %s than %s", who, pct < 0.1 ? 2 : 1, pct,
                 ratio < 1 ? "slower" : "faster", than);
}

void rb_gate_fmt_mde(double mde, bool exact, char *buf, size_t cap)
{
    if (exact && mde > 0)
        rb_gate_fmt_spread(mde, buf, cap);
    else if (exact)
        snprintf(buf, cap, "exact");
    else if (!(mde < INFINITY))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "±%.1f%%", 100 * mde);
}

void rb_gate_fmt_spread(double spread, char *buf, size_t cap)
{
    rb_format_spread(spread, buf, cap);
}

void rb_gate_message(const rb_gate_verdict *v, const rb_gate_evidence *e, const char *what,
                     rb_buf *out)
{
    static const char *const shout[] = {"NONE", "passed", "FAILED", "INCONCLUSIVE"};
    double d = expm1(fabs(log(v->threshold)));
    rb_buf_printf(out, "gate --fail-below %g: %s: ", v->threshold, shout[v->outcome]);
    if (e->exact && e->mde > 0) {
        char within[40];
        rb_gate_fmt_spread(e->mde, within, sizeof within);
        rb_buf_printf(out, "%s: counted ratio %.5f, %s (the counts' A/A spread): [%.5f, %.5f]; %s",
                      what, e->median, within, e->lo, e->hi, v->reason);
        if (v->outcome == RB_GATE_INCONCLUSIVE)
            rb_buf_printf(out, " (the gate needs a threshold outside ±%.2g%%)", 100 * e->mde);
        return;
    }
    if (e->exact) {
        rb_buf_printf(out, "%s: exact ratio %.5f %s %g (%s)", what, e->median,
                      e->median < v->threshold ? "<" : ">=", v->threshold, v->reason);
        return;
    }
    if (e->too_few) {
        rb_buf_printf(out,
                      "%s: %zu pairs are too few for an interval (at least %d); use "
                      "--trials 15, or --metric instructions (exact)",
                      what, e->pairs, RB_STATS_MIN_PAIRS + 2);
        return;
    }
    char mde[32];
    rb_gate_fmt_mde(e->mde, false, mde, sizeof mde);
    rb_buf_printf(out, "%s: %.3f [%.3f, %.3f], could detect changes above %s; %s", what, e->median,
                  e->lo, e->hi, mde, v->reason);
    if (v->outcome == RB_GATE_INCONCLUSIVE) {
        rb_buf_printf(out, " (the gate needs ±%.1f%%)", 100 * d);
        if (v->trials_needed)
            rb_buf_printf(out, ": about --trials %zu would decide it (%zu now, noise permitting)",
                          v->trials_needed, e->pairs);
        rb_buf_puts(out, ", or --metric instructions, which is exact");
    }
}
