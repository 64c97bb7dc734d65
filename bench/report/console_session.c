/*
 * console_session.c — the terminal's lines around a session's tables
 * (console_session.h).
 */
#include "console_session.h"

#include "metric.h"

#include <string.h>

void rb_console_intro_text(const rb_bundle *b, const rb_console_intro *in, rb_buf *out)
{
    const char *ss = in->scenarios == 1 ? "" : "s", *rs = in->routers == 1 ? "" : "s";
    if (rb_metric_exact(in->metric))
        rb_buf_printf(out,
                      "routebench %s: %zu scenario%s x %zu router%s, --metric %s: Callgrind "
                      "counts one replay of each (after one uncounted), seed %llu\n",
                      in->cmd, in->scenarios, ss, in->routers, rs, rb_metric_name(in->metric),
                      (unsigned long long)in->seed);
    else
        rb_buf_printf(out,
                      "routebench %s: %zu scenario%s x %zu router%s, %u trials (+%u warm-up) of "
                      ">= %g ms (%s), seed %llu\n",
                      in->cmd, in->scenarios, ss, in->routers, rs, in->proto.trials,
                      in->proto.warmup, in->proto.min_trial_ms,
                      in->metric == RB_METRIC_HW_INSTRUCTIONS ? "hardware instruction counter"
                      : b->cpu_clock                          ? "thread CPU clock"
                                                              : "wall clock",
                      (unsigned long long)in->seed);
    rb_buf_printf(out, "in-process lookups on %s (%ld cores), not HTTP requests per second\n",
                  b->cpu_model, b->cores);
    if (!b->optimized || b->sanitized)
        rb_buf_printf(out, "WARNING: %s build: these numbers do not show what the routers can do\n",
                      b->sanitized ? "sanitized" : "unoptimised");
}

void rb_console_skipped(const char *scenario, const char *skipped, const rb_bundle_refusal *ref,
                        size_t nref, rb_buf *out)
{
    rb_buf_printf(out, "\n%s: skipped (%s lack%s a feature of its routes)\n", scenario,
                  *skipped ? skipped : "every router", strchr(skipped, ',') ? "" : "s");
    for (size_t i = 0; i < nref; i++)
        rb_buf_printf(out, "  %s refused it: %s\n", ref[i].router, ref[i].reason);
}

void rb_console_peer_note(const char *label, const rb_peer_agreement *a, bool verbose, rb_buf *out)
{
    if (a->agree_expected == a->requests && !verbose) return;
    rb_buf_printf(out,
                  "  peer %s (its own process and timing loop): agrees with EXPECTED on %zu/%zu, "
                  "with linear on %zu/%zu (%s)\n",
                  label, a->agree_expected, a->requests, a->agree_linear, a->requests,
                  a->spans ? "capture spans compared" : "route ids only: no spans");
}
