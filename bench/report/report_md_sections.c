/*
 * report_md_sections.c — sections of report.md (called from report_md.c): how a
 * counted metric was measured, its table, the gate's verdict and the
 * identity of every plugin library.
 */
#include "bundle.h"
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void rb_bundle_interval_cell(const rb_bundle *b, double lo, double hi, double mde, int too_few,
                             char *buf, size_t cap)
{
    if (rb_metric_exact(b->metric)) { /* "exact", or a count's A/A spread */
        rb_gate_fmt_spread(mde, buf, cap);
        return;
    }
    if (too_few) {
        snprintf(buf, cap, "too few pairs");
        return;
    }
    char l[32], h[32], m[32];
    rb_format_interval(lo, hi, 3, l, h, sizeof l);
    rb_gate_fmt_mde(mde, false, m, sizeof m);
    snprintf(buf, cap, "[%s, %s] %s", l, h, m);
}

void rb_bundle_report_how_counted(const rb_bundle *b, rb_buf *o)
{
    rb_buf_printf(
        o,
        "- Each **scenario** is a route table and a request table, identified by the XXH3 "
        "fingerprints of both (below).\n"
        "- routebench ran itself under Valgrind's Callgrind (`--metric %s`). Each router "
        "was built in an arena of its own with a fixed hash seed, so two builds of the same "
        "code see the same memory layout; then, one router at a time, one replay of the "
        "request table warmed it and one more was counted, with Callgrind's client requests "
        "around that replay only (bench/measure/callgrind.h).\n"
        "- A count is exact: the same build, scenario and seed count the same on any run, "
        "whatever else the machine does. It includes the replay loop's own few instructions "
        "per lookup, the same for every router.\n",
        rb_metric_name(b->metric));
    if (b->metric == RB_METRIC_CYCLES_EST)
        rb_buf_puts(o, "- **cycles-est** = L1 hits + 5 x last-level hits + 35 x memory "
                       "accesses, from Callgrind's simulated caches (the estimate "
                       "iai-callgrind uses); the raw counts are shown beside it.\n");
    rb_buf_puts(o, "- The **speed ratio** of router B against router A is (count of A) / "
                   "(count of B): above 1, B is faster. It is exact: no interval.\n\n");
}

void rb_bundle_report_counted_table(const rb_bundle *b, const rb_bundle_scenario *s, rb_buf *o)
{
    const char *anchor = s->results[0].router;
    bool cache = b->metric == RB_METRIC_CYCLES_EST;
    rb_buf_printf(o, "| router | %s/lookup |%s bytes/route | build | speed vs %s |\n",
                  rb_metric_unit(b->metric), cache ? " instructions | L1 misses | LL misses |" : "",
                  anchor);
    rb_buf_printf(o, "|---|---:|%s---:|---:|---:|\n", cache ? "---:|---:|---:|" : "");
    for (size_t i = 0; i < s->nresults; i++) {
        const rb_bundle_result *r = &s->results[i];
        char name[RB_BUNDLE_NAME + 16], build[32], ratio[32] = "1 (baseline)";
        rb_bundle_label(b, r->router, false, name, sizeof name);
        rb_format_duration((double)r->build_ns, build, sizeof build);
        const rb_bundle_pair *p = i ? rb_bundle_find_pair(s, anchor, r->router) : NULL;
        if (p)
            rb_format_exact_ratio(p->r.median, ratio, sizeof ratio);
        else if (i)
            snprintf(ratio, sizeof ratio, "-");
        rb_buf_printf(o, "| %s | %.2f |", name, r->median_ns);
        if (cache)
            rb_buf_printf(o, " %.2f | %.3f | %.3f |", r->ir_per_lookup, r->l1_misses_per_lookup,
                          r->ll_misses_per_lookup);
        rb_buf_printf(o, " %.1f | %s | %s |\n", r->bytes_per_route, build, ratio);
    }
    rb_buf_puts(o, "\n");
    rb_bundle_report_disagreements(b, s, o);
}

void rb_bundle_report_disagreements(const rb_bundle *b, const rb_bundle_scenario *s, rb_buf *o)
{
    for (size_t i = 0; i < s->nresults; i++) {
        const rb_bundle_result *r = &s->results[i];
        if (!r->disagreements) continue;
        const rb_bundle_router *info = rb_bundle_router_info(b, r->router);
        rb_buf_printf(o, "**%s disagreed with EXPECTED or with linear on %llu requests%s.**\n\n",
                      r->router, (unsigned long long)r->disagreements,
                      info && info->peer ? " (a peer: not held to our route semantics)" : "");
    }
}

void rb_bundle_report_gate(const rb_bundle *b, rb_buf *o)
{
    const rb_bundle_gate *g = &b->gate;
    if (g->on) {
        char mde[32];
        rb_gate_fmt_mde(g->evidence.mde, g->evidence.exact, mde, sizeof mde);
        rb_buf_printf(o, "## Gate: %s\n\n| | |\n|---|---|\n", rb_gate_outcome_name(g->outcome));
        rb_buf_printf(o, "| pair | b = %s against a = %s (speed ratio b/a) |\n", g->b, g->a);
        rb_buf_printf(o, "| metric | %s%s |\n", rb_metric_name(b->metric),
                      b->metric == RB_METRIC_TIME
                          ? (b->cpu_clock ? ", thread CPU clock" : ", wall clock")
                          : "");
        rb_buf_printf(o, "| threshold | --fail-below %g |\n", g->threshold);
        rb_buf_printf(o, "| decided on | %s |\n", g->decided_on);
        if (g->evidence.exact)
            rb_buf_printf(o, "| ratio | %.5f, exact |\n", g->evidence.median);
        else if (g->evidence.too_few)
            rb_buf_printf(o, "| ratio | %.3f from %zu pairs: too few pairs |\n", g->evidence.median,
                          g->evidence.pairs);
        else
            rb_buf_printf(o,
                          "| ratio | %.3f [%.3f, %.3f] (coverage %.1f%%), could detect changes "
                          "above %s |\n",
                          g->evidence.median, g->evidence.lo, g->evidence.hi,
                          100 * g->evidence.coverage, mde);
        rb_buf_printf(o, "| outcome | **%s** (exit status %d) |\n",
                      rb_gate_outcome_name(g->outcome), rb_gate_exit_status(g->outcome));
        rb_buf_printf(o, "| verdict | %s |\n\n", g->message);
    }
}

void rb_bundle_report_libraries(const rb_bundle *b, rb_buf *o)
{
    if (!b->nlibraries) return;
    rb_buf_puts(o, "## Libraries measured\n\n| router | path | size | XXH3-64 | commit |\n"
                   "|---|---|---:|---|---|\n");
    for (size_t i = 0; i < b->nlibraries; i++) {
        const rb_bundle_library *l = &b->libraries[i];
        rb_buf_printf(o, "| %s | `%s` | %llu | `%016llx` | %s |\n", l->router, l->path,
                      (unsigned long long)l->size, (unsigned long long)l->hash,
                      *l->commit ? l->commit : "(not recorded by the library)");
    }
    rb_buf_puts(o, "\n");
}
