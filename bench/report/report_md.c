/*
 * report_md.c — report.md, the human explanation of a bundle: what was
 * measured, how, on what machine, the tables, and what the numbers do not
 * establish.  A pure function of the bundle (no clock, no environment), so
 * `routebench report DIR` reproduces it byte for byte.
 */
#include "bundle.h"
#include "feature_names.h"
#include "headline.h"
#include "verdict.h"

#include "base_internal.h"
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the report ------------------------------------------------------------ */

static const char *label(const rb_bundle *b, const char *router, char *buf, size_t cap)
{
    return rb_bundle_label(b, router, false, buf, cap);
}

static void header(const rb_bundle *b, rb_buf *o)
{
    rb_buf_puts(o, "# routebench results\n\n");
    rb_buf_puts(o, "> **What this is.** In-process lookups of URL-router data structures on one "
                   "machine: a route table is built, then a table of requests (hits and misses) "
                   "is looked up again and again. **Not HTTP requests per second**: no sockets, "
                   "no HTTP parsing, no middleware, no serialization.\n\n");
    if (b->nwarnings) {
        rb_buf_puts(o, "## Warnings\n\n");
        for (size_t i = 0; i < b->nwarnings; i++) rb_buf_printf(o, "- **%s**\n", b->warnings[i]);
        rb_buf_puts(o, "\n");
    }
}

static void how(const rb_bundle *b, rb_buf *o)
{
    char ms[32];
    rb_format_duration(b->min_trial_ms * 1e6, ms, sizeof ms);
    rb_buf_puts(o, "## What was measured, and how\n\n");
    if (rb_metric_exact(b->metric)) {
        rb_bundle_report_how_counted(b, o);
        return;
    }
    rb_buf_printf(
        o,
        "- Each **scenario** is a route table and a request table, identified by the "
        "XXH3 fingerprints of both (below). Generated tables come from the corpus "
        "generator with the seed shown.\n"
        "- Each router that supports every feature of a scenario's routes is built "
        "from them (create + add + build, timed once), its memory read, and its "
        "answers checked against the expected ones.\n"
        "- A **trial** replays the whole request table enough times to last at least "
        "%s (calibrated per router, so every trial of a router makes the same number "
        "of lookups), timed with %s. Every answer is folded into a checksum, so no lookup can be "
        "optimised away; each trial's checksum must equal the replays times the "
        "checksum of one replay.\n"
        "- %u warm-up round%s, then %u measured rounds. In every round each router "
        "runs one trial, in a **balanced, shuffled order** (each router holds each "
        "position, and precedes each other router, in as many rounds; the rounds are "
        "shuffled from the seed, so a periodic disturbance cannot line up with one "
        "router), so trial t of every router forms a **pair**. Trials shorter than the "
        "minimum are recalibrated and measured again, or counted as short.\n"
        "- The **speed ratio** of router B against router A is the median over the "
        "pairs of (%s per lookup of A) / (%s per lookup of B): above 1, B is faster. "
        "Its interval is the %.0f%% sign-test interval of that median (an "
        "order-statistic interval with exact coverage, shown beside it), and the "
        "**MDE** is the smallest change this run would detect in 80%% of runs "
        "(docs/measurement.md); **wins** counts the pairs B won. The difference is "
        "called **real** when the interval excludes 1; fewer than 5 pairs claim nothing.\n"
        "- Across scenarios: the geometric mean of the scenario median ratios, with "
        "a bootstrap interval (%zu resamples, fixed seed; each scenario resampled "
        "within itself).\n\n",
        ms,
        b->cpu_clock ? "the CPU time of the benchmark thread "
                       "(CLOCK_THREAD_CPUTIME_ID: time other processes held the core "
                       "is left out, their effect on caches is not)"
                     : "the elapsed time (CLOCK_MONOTONIC)",
        b->warmup, b->warmup == 1 ? "" : "s", b->trials, rb_metric_unit(b->metric),
        rb_metric_unit(b->metric), b->bootstrap.level * 100, b->bootstrap.resamples);
}

static void machine(const rb_bundle *b, rb_buf *o)
{
    rb_buf_puts(o, "## On what\n\n| | |\n|---|---|\n");
    rb_buf_printf(o, "| tool | routebench %s, commit %s |\n", b->version, b->commit);
    rb_buf_printf(o, "| compiler | %s |\n| flags | `%s` (build type %s%s%s) |\n", b->compiler,
                  b->flags, b->build_type, b->optimized ? ", optimised" : ", NOT optimised",
                  b->sanitized ? ", sanitizers ON" : "");
    rb_buf_printf(o, "| CPU | %s, %ld logical cores", b->cpu_model, b->cores);
    if (b->pinned_cpu >= 0) rb_buf_printf(o, ", pinned to CPU %d", b->pinned_cpu);
    rb_buf_puts(o, " |\n");
    rb_buf_printf(o, "| frequency governor | %s |\n", *b->governor ? b->governor : "unknown");
    rb_buf_printf(o, "| kernel | %s |\n", b->kernel);
    if (b->loadavg_start >= 0)
        rb_buf_printf(o, "| load average (1 min) | %.2f at start, %.2f at end |\n",
                      b->loadavg_start, b->loadavg_end);
    rb_buf_printf(o, "| date (UTC) | %s |\n", b->date);
    if (b->duration_s >= 0) rb_buf_printf(o, "| duration of the run | %.0f s |\n", b->duration_s);
    rb_buf_printf(o, "| command | `%s` |\n", b->command);
    rb_buf_printf(o, "| seeds | corpus %llu, bootstrap %016llx, order %016llx |\n",
                  (unsigned long long)b->seed, (unsigned long long)b->bootstrap.seed,
                  (unsigned long long)b->order_seed);
    if (rb_metric_exact(b->metric))
        rb_buf_printf(o, "| protocol | --metric %s: Callgrind counts one replay per router |\n\n",
                      rb_metric_name(b->metric));
    else
        rb_buf_printf(o,
                      "| protocol | --metric %s, %u trials after %u warm-up, each >= %g ms of "
                      "%s, balanced shuffled order |\n\n",
                      rb_metric_name(b->metric), b->trials, b->warmup, b->min_trial_ms,
                      b->cpu_clock ? "thread CPU time" : "elapsed time");
}

static void geomeans(const rb_bundle *b, rb_buf *o)
{
    if (!b->ngeomeans) return;
    rb_buf_printf(o,
                  "## Summary: speed relative to %s across scenarios\n\n"
                  "Geometric mean of the per-scenario median speed ratios (above 1: faster than "
                  "%s), over the scenarios both ran.\n\n"
                  "| router | scenarios | speed vs %s | %.0f%% interval, MDE | real difference |\n"
                  "|---|---:|---:|---|---|\n",
                  b->baseline, b->baseline, b->baseline, b->bootstrap.level * 100);
    for (size_t i = 0; i < b->ngeomeans; i++) {
        const rb_bundle_geomean *g = &b->geomeans[i];
        char name[RB_BUNDLE_NAME + 16], m[32], cell[96];
        if (rb_metric_exact(b->metric))
            rb_format_exact_ratio(g->g.geomean, m, sizeof m);
        else
            rb_format_ratio(g->g.geomean, m, sizeof m);
        rb_bundle_interval_cell(b, g->g.lo, g->g.hi, g->g.mde, g->g.too_few, cell, sizeof cell);
        rb_buf_printf(o, "| %s | %zu | %s | %s | %s |\n", label(b, g->router, name, sizeof name),
                      g->g.scenarios, m, cell,
                      g->g.excludes_one ? (g->g.geomean > 1 ? "yes, faster" : "yes, slower")
                                        : "no");
    }
    rb_buf_puts(o, "\n");
}

/* Each router's distance to the limit row, when the scenario has one. */
static void limit_line(const rb_bundle *b, const rb_bundle_scenario *s, rb_buf *o)
{
    char text[RB_BUNDLE_TEXT];
    rb_bundle_limit_text(b, s, text, sizeof text);
    if (*text)
        rb_buf_printf(o,
                      "Distance to the limit (per lookup, over the limit's: an exact match of "
                      "these requests' paths, docs/measurement.md): %s.\n\n",
                      text);
}

static void checksums(const rb_bundle_scenario *s, rb_buf *o)
{
    bool same = true;
    for (size_t i = 1; i < s->nresults; i++)
        same = same && (rb_bundle_is_limit(&s->results[i]) ||
                        s->results[i].checksum == s->results[0].checksum);
    if (same && s->nresults) {
        rb_buf_printf(o,
                      "Checksum of one replay: `%016llx`, the same for every router (they "
                      "gave the same answers).\n",
                      (unsigned long long)s->results[0].checksum);
        return;
    }
    rb_buf_puts(o, "Checksums of one replay **differ** (the routers disagree somewhere):");
    for (size_t i = 0; i < s->nresults; i++)
        rb_buf_printf(o, " %s `%016llx`%s", s->results[i].router,
                      (unsigned long long)s->results[i].checksum,
                      i + 1 < s->nresults ? "," : ".\n");
}

static void scenario(const rb_bundle *b, const rb_bundle_scenario *s, rb_buf *o)
{
    char f[64];
    rb_features_join(s->features, " ", "static only", 0, f, sizeof f);
    rb_buf_printf(o, "### %s\n\n", s->name);
    char cmd[400], depth[400];
    rb_bundle_gen_command(s, cmd, sizeof cmd);
    rb_bundle_depth_text(s, depth, sizeof depth);
    if (strcmp(s->kind, "generated") == 0)
        rb_buf_printf(o, "Generated, shape %s, seed %llu, generator %s (the same tables: `%s`). ",
                      s->shape, (unsigned long long)s->seed, s->generator, cmd);
    else
        rb_buf_printf(o, "From `%s` and `%s`. ", s->routes_source, s->requests_source);
    rb_buf_printf(o,
                  "%zu routes (%s; fingerprint `%016llx`), %zu requests (fingerprint "
                  "`%016llx`).",
                  s->routes, f, (unsigned long long)s->routes_fp, s->requests,
                  (unsigned long long)s->requests_fp);
    if (*s->skipped) rb_buf_printf(o, " Not run (a route feature they lack): %s.", s->skipped);
    if (*depth) rb_buf_printf(o, " Routes by depth (segments): %s.", depth);
    rb_buf_puts(o, "\n\n");
    if (!s->nresults) return;
    const char *anchor = s->results[0].router;
    if (strcmp(anchor, b->baseline) != 0)
        rb_buf_printf(o, "The baseline %s did not run here; ratios are against %s.\n\n",
                      b->baseline, anchor);
    if (rb_metric_exact(b->metric)) {
        rb_bundle_report_counted_table(b, s, o);
        limit_line(b, s, o);
        checksums(s, o);
        rb_buf_puts(o, "\n");
        return;
    }
    rb_buf_printf(o,
                  "| router | %s/lookup | min - max | MAD | lookups/s | bytes/route | build | "
                  "speed vs %s | %.0f%% interval, MDE | wins |\n"
                  "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|\n",
                  rb_metric_unit(b->metric), anchor, b->bootstrap.level * 100);
    for (size_t i = 0; i < s->nresults; i++) {
        const rb_bundle_result *r = &s->results[i];
        char name[RB_BUNDLE_NAME + 16], med[32], mn[32], mx[32], mad[32], rate[32], build[32];
        rb_bundle_fmt_value(b, r->median_ns, med, sizeof med);
        rb_bundle_fmt_value(b, r->min_ns, mn, sizeof mn);
        rb_bundle_fmt_value(b, r->max_ns, mx, sizeof mx);
        rb_bundle_fmt_value(b, r->mad_ns, mad, sizeof mad);
        if (b->metric == RB_METRIC_TIME)
            rb_format_rate(r->lookups_per_s, rate, sizeof rate);
        else
            snprintf(rate, sizeof rate, "-");
        rb_format_duration((double)r->build_ns, build, sizeof build);
        rb_buf_printf(o, "| %s | %s | %s - %s | %s | %s | %.1f | %s | ",
                      label(b, r->router, name, sizeof name), med, mn, mx, mad, rate,
                      r->bytes_per_route, build);
        const rb_bundle_pair *p = i ? rb_bundle_find_pair(s, anchor, r->router) : NULL;
        if (p) {
            char m[32], cell[96];
            rb_format_ratio(p->r.median, m, sizeof m);
            rb_bundle_interval_cell(b, p->r.lo, p->r.hi, p->r.mde, p->r.too_few, cell, sizeof cell);
            rb_buf_printf(o, "%s%s | %s | %zu/%zu |\n", m, p->r.excludes_one ? "" : " (~)", cell,
                          p->r.wins, p->r.n);
        } else {
            rb_buf_puts(o, i ? "- | | |\n" : "1 (baseline) | | |\n");
        }
    }
    rb_buf_puts(o, "\n");
    rb_bundle_report_disagreements(b, s, o);
    rb_bundle_report_compat(b, (size_t)(s - b->scenarios), o);
    limit_line(b, s, o);
    checksums(s, o);
    rb_buf_puts(o, "\n");
}

static void legend(const rb_bundle *b, rb_buf *o)
{
    rb_buf_puts(o, "## Routers\n\n| router | features | what it is |\n|---|---|---|\n");
    for (size_t i = 0; i < b->nrouters; i++) {
        char f[64];
        rb_features_join(b->routers[i].features, " ", "static only", 0, f, sizeof f);
        rb_buf_printf(o, "| %s | %s | %s |\n", b->routers[i].name, f, b->routers[i].summary);
    }
    rb_buf_puts(o, "\n");
}

/* The verdict opens the report (verdict.h): a paragraph per scenario, the
 * warm-throughput / cold-latency line of a table measured under both, and
 * the overall paragraph when there are several scenarios. */
static void verdict(const rb_bundle *b, rb_buf *o)
{
    if (!b->nscenarios) return;
    char answer[RB_HEADLINE_TEXT];
    rb_headline_bundle(b, answer, sizeof answer);
    rb_buf_printf(o, "## Verdict\n\n**%s**\n\n", answer);
    for (size_t i = 0; i < b->nscenarios; i++) {
        rb_verdict v;
        if (rb_verdict_scenario(b, i, &v) == 0) rb_buf_printf(o, "- %s\n", v.text);
    }
    rb_buf_puts(o, "\n");
    for (size_t i = 0; i < b->nscenarios; i++) {
        const rb_bundle_scenario *s = &b->scenarios[i];
        size_t cold = rb_verdict_cold_twin(b, i);
        if (cold == SIZE_MAX) continue;
        char line[1024];
        rb_verdict_conditions(b, i, cold, line, sizeof line);
        rb_buf_printf(o, "**%s**, %s\n\n", s->name, line);
    }
    rb_bundle_report_ecosystems(b, o);
    if (rb_headline_tables(b) > 1) {
        char overall[RB_VERDICT_TEXT];
        rb_verdict_overall(b, overall, sizeof overall);
        rb_buf_printf(o, "%s\n\n", overall);
    }
}

int rb_bundle_report_md(const rb_bundle *b, rb_buf *o, rb_error *err)
{
    header(b, o);
    rb_bundle_report_gate(b, o); /* a gate's outcome is the answer: first */
    verdict(b, o);
    how(b, o);
    machine(b, o);
    rb_bundle_report_libraries(b, o);
    geomeans(b, o);
    if (rb_metric_exact(b->metric))
        rb_buf_printf(o,
                      "## Scenarios\n\n%s per lookup counted by Callgrind over one replay "
                      "of the request table; ratios are exact.\n\n",
                      rb_metric_unit(b->metric));
    else
        rb_buf_printf(o,
                      "## Scenarios\n\n%s/lookup is the median over the trials; min - max and "
                      "MAD (median absolute deviation, unscaled) show the spread%s. (~) marks a "
                      "ratio whose interval includes 1: no real difference shown.\n\n",
                      rb_metric_unit(b->metric),
                      b->metric == RB_METRIC_TIME ? "; lookups/s = 1e9 / median" : "");
    for (size_t i = 0; i < b->nscenarios; i++) scenario(b, &b->scenarios[i], o);
    rb_buf_puts(o, "## Charts\n\n");
    bool any = false;
    for (int c = 0; c < RB_NCHARTS; c++) {
        if (!rb_bundle_chart_has_data(b, (rb_bundle_chart)c)) continue;
        rb_buf_printf(o, "![%s](%s)\n\n", rb_bundle_chart_alt((rb_bundle_chart)c),
                      rb_bundle_chart_file((rb_bundle_chart)c));
        any = true;
    }
    if (!any) rb_buf_puts(o, "No chart: nothing was measured.\n\n");
    rb_buf_puts(o, "## What these numbers do NOT establish\n\n");
    for (size_t i = 0; i < b->nlimitations; i++) rb_buf_printf(o, "- %s\n", b->limitations[i]);
    rb_buf_puts(o, "\n");
    legend(b, o);
    rb_buf_puts(o, "## Reproduce and recompute\n\n");
    rb_buf_printf(o,
                  "Run `%s` with the same build on the same machine (the fingerprints above "
                  "must match). Every statistic here can be recomputed from `trials.csv` "
                  "(ns / lookups per trial); docs/measurement.md has the recipe. "
                  "`routebench report DIR` renders this file again from summary.json and "
                  "trials.csv.\n",
                  b->command);
    return o->failed ? rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory") : RB_OK;
}
