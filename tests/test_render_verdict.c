/*
 * test_render_verdict.c — one verdict, rendered everywhere: synthetic
 * bundles (no clear winner, auto behind, a table measured warm and cold,
 * the longest names a bundle holds) through every renderer (the
 * terminal, report.md, report.html, summary.json, every chart), and no
 * renderer contradicts the verdict or cuts a line with "...".
 *
 * The cases come from real runs: the cold verdict said "no clear winner
 * among radix, hashseg and ctrie" and the next line "cold: auto picks
 * hashseg, the winner"; a cold auto line lacked its "cold:"; long names
 * were cut with "..." (router names lost); "1.80x [1.00, 2.25]" printed a
 * bound of 1.0023.
 */
#include "bundle.h"
#include "format.h"
#include "headline.h"
#include "metric.h"
#include "report.h"
#include "report_console.h"
#include "report_html.h"
#include "synth_bundle.h"
#include "verdict.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define SAME(x)                                                                                    \
    {                                                                                              \
        x, x, x, x, x, x, x, x, x                                                                  \
    }

/* Every output of b, one after the other, each into its own buffer. */
typedef struct outputs {
    rb_buf console, md, html, json, charts[RB_NCHARTS];
} outputs;

static void render_all(const rb_bundle *b, outputs *o)
{
    memset(o, 0, sizeof *o);
    rb_error err;
    rb_console_opts opts = {true};
    for (size_t i = 0; i < b->nscenarios; i++)
        if (rb_bundle_is_condition(b, i) || i + 1 == b->nscenarios ||
            !rb_bundle_is_condition(b, i + 1))
            rb_console_scenario(b, i, &opts, &o->console);
    rb_console_summary(b, &opts, &o->console);
    cr_assert_eq(rb_bundle_report_md(b, &o->md, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_bundle_report_html(b, &o->html, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_bundle_json_write(b, &o->json, &err), RB_OK, "%s", err.message);
    for (int c = 0; c < RB_NCHARTS; c++)
        if (rb_bundle_chart_has_data(b, (rb_bundle_chart)c))
            cr_assert_eq(rb_bundle_chart_render(b, (rb_bundle_chart)c, &o->charts[c], &err), RB_OK,
                         "%s", err.message);
}

static void free_all(outputs *o)
{
    rb_buf_free(&o->console);
    rb_buf_free(&o->md);
    rb_buf_free(&o->html);
    rb_buf_free(&o->json);
    for (int c = 0; c < RB_NCHARTS; c++) rb_buf_free(&o->charts[c]);
}

/* Each output's name and text, for the checks that apply to all. */
static size_t each(const outputs *o, const char **names, const char **texts)
{
    size_t n = 0;
    names[n] = "terminal", texts[n++] = o->console.data;
    names[n] = "report.md", texts[n++] = o->md.data;
    names[n] = "report.html", texts[n++] = o->html.data;
    names[n] = "summary.json", texts[n++] = o->json.data;
    for (int c = 0; c < RB_NCHARTS; c++)
        if (o->charts[c].data)
            names[n] = rb_bundle_chart_file((rb_bundle_chart)c), texts[n++] = o->charts[c].data;
    return n;
}

static void expect_nowhere(const outputs *o, const char *what)
{
    const char *names[8], *texts[8];
    size_t n = each(o, names, texts);
    for (size_t i = 0; i < n; i++)
        cr_expect(texts[i] && !strstr(texts[i], what), "%s says \"%s\":\n%s", names[i], what,
                  texts[i] ? strstr(texts[i], what) : "(nothing)");
}

/* radix, hashseg and ctrie within noise of each other: each wins some
 * rounds and loses others; auto picks hashseg, the fastest by median. */
static const synth_row tied[] = {
    {"radix", NULL, {50, 52, 48, 51, 49, 50, 53, 47, 50}, 8000, 0, false},
    {"hashseg", NULL, {49, 53, 46, 52, 47, 51, 52, 46, 49}, 6000, 0, false},
    {"ctrie", NULL, {51, 50, 49, 50, 50, 49, 54, 48, 51}, 5100, 0, false},
    {"auto", NULL, {49, 53, 46, 52, 47, 51, 52, 46, 49}, 6100, 0, false},
};

Test(render_verdict, no_clear_winner_is_never_called_the_winner_anywhere)
{
    rb_bundle b;
    synth_bundle(&b, tied, 4);
    synth_scenario(&b, "table", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, tied, 4);
    synth_scenario(&b, "table (latency, cold)", RB_BUNDLE_LATENCY, RB_BUNDLE_COLD, tied, 4);
    snprintf(b.scenarios[0].auto_choice, sizeof b.scenarios[0].auto_choice, "hashseg");
    snprintf(b.scenarios[1].auto_choice, sizeof b.scenarios[1].auto_choice, "hashseg");
    rb_verdict v;
    cr_assert_eq(rb_verdict_scenario(&b, 1, &v), RB_OK);
    cr_assert_gt(v.ntop, 1u, "the numbers make a tie: %s", v.text);
    cr_expect(!rb_verdict_has_winner(&v));
    cr_expect_eq(v.auto_status, RB_VERDICT_AUTO_TOP);
    outputs o;
    render_all(&b, &o);
    expect_nowhere(&o, "the winner");
    expect_nowhere(&o, "measured winner");
    expect_nowhere(&o, "\"winner\""); /* summary.json's auto status */
    expect_nowhere(&o, "  fastest<"); /* a chart's winner mark */
    expect_nowhere(&o, "...");
    cr_expect(strstr(o.console.data, "no clear winner among") != NULL, "%s", o.console.data);
    cr_expect(strstr(o.console.data, "\n  auto picks hashseg, one of the top routers (no clear "
                                     "winner)\n") != NULL,
              "%s", o.console.data);
    /* the second condition's auto line carries its condition */
    cr_expect(strstr(o.console.data, "\n  cold: auto picks hashseg, one of the top routers") !=
                  NULL,
              "%s", o.console.data);
    cr_expect(strstr(o.json.data, "\"auto\":\t\"top\"") != NULL, "summary.json says top");
    free_all(&o);
    rb_bundle_free(&b);
}

/* auto picked radix, which hashseg beats in every round by 1.5x: every
 * renderer says auto loses, no chart marks auto as beating anything, and
 * the cold condition's line carries "cold:". */
static const synth_row behind[] = {
    {"radix", NULL, SAME(60), 8000, 0, false},
    {"hashseg", NULL, SAME(40), 6000, 0, false},
    {"ctrie", NULL, SAME(90), 5100, 0, false},
    {"auto", NULL, {39, 39, 39, 39, 39, 39, 39, 39, 39}, 8100, 0, false},
};

Test(render_verdict, auto_behind_is_drawn_as_its_pick_and_never_marked_ahead)
{
    rb_bundle b;
    synth_bundle(&b, behind, 4);
    synth_scenario(&b, "table", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, behind, 4);
    synth_scenario(&b, "table (latency, cold)", RB_BUNDLE_LATENCY, RB_BUNDLE_COLD, behind, 4);
    for (size_t i = 0; i < 2; i++)
        snprintf(b.scenarios[i].auto_choice, sizeof b.scenarios[i].auto_choice, "radix");
    rb_verdict v;
    cr_assert_eq(rb_verdict_scenario(&b, 0, &v), RB_OK);
    cr_expect_str_eq(v.fastest, "hashseg");
    cr_expect_eq(v.auto_status, RB_VERDICT_AUTO_LOSES);
    outputs o;
    render_all(&b, &o);
    expect_nowhere(&o, "...");
    expect_nowhere(&o, "auto picks radix, the winner");
    cr_expect(strstr(o.console.data, "\n  auto picks radix, which LOSES significantly: hashseg is "
                                     "1.50x [1.50, 1.50] faster\n") != NULL,
              "%s", o.console.data);
    cr_expect(strstr(o.console.data, "\n  cold: auto picks radix, which LOSES") != NULL, "%s",
              o.console.data);
    cr_expect(strstr(o.md.data, "auto picks radix, which LOSES significantly") != NULL);
    for (int c = 0; c < RB_NCHARTS; c++) {
        const char *svg = o.charts[c].data;
        if (!svg || c == RB_CHART_SCALING) continue;
        const char *a = strstr(svg, ">auto (radix)<");
        cr_expect(a != NULL, "%s draws auto as its pick", rb_bundle_chart_file((rb_bundle_chart)c));
        /* below radix's row, never above it (the ratio chart has no row
         * for radix, the router its ratios are against) */
        const char *r = strstr(svg, ">radix<");
        if (c != RB_CHART_RATIO)
            cr_expect(r && a && r < a, "%s: auto's row under radix's",
                      rb_bundle_chart_file((rb_bundle_chart)c));
    }
    /* the tables too: auto's row under its pick's, named as it */
    const char *rr = strstr(o.console.data, "\n  radix "),
               *ar = strstr(o.console.data, "\n  auto (radix) ");
    cr_expect(rr && ar && rr < ar, "the terminal's table: %s", o.console.data);
    rr = strstr(o.html.data, "<td>radix</td>"), ar = strstr(o.html.data, "<td>auto (radix)</td>");
    cr_expect(rr && ar && rr < ar, "report.html's table");
    /* the winner marked in chart.svg is the verdict's */
    const char *mark = strstr(o.charts[RB_CHART_NS].data, "  fastest<");
    cr_expect(mark != NULL, "chart.svg marks the winner");
    free_all(&o);
    rb_bundle_free(&b);
}

/* The longest names a bundle holds (routers 63 characters, the scenario
 * a file path of 127): every router name is whole in every output, and
 * nothing is cut with "...". */
Test(render_verdict, long_names_are_never_cut)
{
    char n1[RB_BUNDLE_NAME], n2[RB_BUNDLE_NAME], n3[RB_BUNDLE_NAME], scen[256];
    memset(n1, 'a', sizeof n1 - 1), n1[sizeof n1 - 1] = '\0';
    memset(n2, 'b', sizeof n2 - 1), n2[sizeof n2 - 1] = '\0';
    memset(n3, 'c', sizeof n3 - 1), n3[sizeof n3 - 1] = '\0';
    n1[10] = n2[10] = n3[10] = '-';
    snprintf(scen, sizeof scen, "%s", "/home/someone/projects/a-service-with-a-long-name/api/");
    while (strlen(scen) < 190) strcat(scen, "deeper/");
    strcat(scen, "t.routes");
    synth_row rows[] = {
        {n1, NULL, {50, 52, 48, 51, 49, 50, 53, 47, 50}, 8000, 0, false},
        {n2, NULL, {49, 53, 46, 52, 47, 51, 52, 46, 49}, 6000, 0, false},
        {n3, NULL, {51, 50, 49, 50, 50, 49, 54, 48, 51}, 5100, 0, false},
    };
    rb_bundle b;
    synth_bundle(&b, rows, 3);
    synth_scenario(&b, scen, RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, rows, 3);
    outputs o;
    render_all(&b, &o);
    expect_nowhere(&o, "...");
    const char *names[8], *texts[8];
    size_t n = each(&o, names, texts);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < 3; k++)
            cr_expect(strstr(texts[i], rows[k].name) != NULL, "%s holds %s whole", names[i],
                      rows[k].name);
    /* the terminal keeps within its width but for a word longer than it */
    char line[RB_HEADLINE_TEXT];
    rb_headline_scenario(&b, 0, line, sizeof line);
    cr_expect(strstr(line, n1) && strstr(line, n2) && strstr(line, n3), "%s", line);
    free_all(&o);
    rb_bundle_free(&b);
}

/* An interval that excludes 1 never reads as including it. */
Test(render_verdict, an_interval_excluding_one_shows_the_digits_that_say_so)
{
    char lo[32], hi[32], cell[96];
    rb_format_interval(1.0023, 2.25, 2, lo, hi, sizeof lo);
    cr_expect_str_eq(lo, "1.002");
    cr_expect_str_eq(hi, "2.25");
    rb_format_interval(0.31, 0.99962, 3, lo, hi, sizeof lo);
    cr_expect_str_eq(lo, "0.310");
    cr_expect_str_eq(hi, "0.9996");
    rb_format_interval(0.98, 1.0, 2, lo, hi, sizeof lo); /* exactly 1: 1.00 is true */
    cr_expect_str_eq(hi, "1.00");
    rb_format_speed(1.8, 1.0023, 2.25, false, false, cell, sizeof cell);
    cr_expect_str_eq(cell, "1.80x [1.002, 2.25]");
}

/* Counts with an A/A spread: hashseg counts 999 instructions a lookup to
 * radix's 1000 (1.001x), each count known within ±0.1%, so the ratio lies
 * within the counts' spread (±0.2%); Go's echo and gin likewise (within
 * ±0.3%).  Every renderer calls it no clear winner, as an interval that
 * includes 1; the verdict said "fastest hashseg, 1.0010x (exact)" because
 * any counted ratio but 1 was significant. */
static const synth_row counted[] = {
    {"radix", NULL, SAME(1000), 8000, 0, false},
    {"hashseg", NULL, SAME(999), 6000, 0, false},
    {"auto", NULL, SAME(1000), 8100, 0, false},
    {"echo", "peer process: Go example.com/echo (peers/go)", SAME(2000), 9000, 0, true},
    {"gin", "peer process: Go example.com/gin (peers/go)", SAME(2002), 9000, 0, true},
};

Test(render_verdict, regression_221_a_counted_ratio_within_its_spread_is_no_clear_winner)
{
    rb_bundle b;
    synth_bundle(&b, counted, 5);
    b.metric = RB_METRIC_INSTRUCTIONS;
    size_t si = synth_scenario(&b, "table", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, counted, 5);
    rb_bundle_scenario *s = &b.scenarios[si];
    double spread[] = {0.001, 0.001, 0.001, 0.0015, 0.0015};
    for (size_t i = 0; i < 5; i++) s->results[i].count_spread = spread[i];
    snprintf(s->auto_choice, sizeof s->auto_choice, "radix");
    rb_error err;
    cr_assert_eq(rb_bundle_compute_scenario(&b, si, &err), RB_OK, "%s", err.message);
    rb_verdict v;
    cr_assert_eq(rb_verdict_scenario(&b, si, &v), RB_OK);
    cr_expect_not(v.significant, "%s", v.text);
    cr_expect_eq(v.ntop, 2u, "%s", v.text);
    cr_expect(!rb_verdict_has_winner(&v));
    cr_expect_eq(v.auto_status, RB_VERDICT_AUTO_TIED, "%s", v.text);
    cr_expect(strstr(v.text, "no significant difference between the top routers radix, hashseg "
                             "(hashseg over radix: 1.001x (within ±0.2%, instructions))") != NULL,
              "%s", v.text);
    outputs o;
    render_all(&b, &o);
    expect_nowhere(&o, "the winner");
    expect_nowhere(&o, "\"winner\"");
    expect_nowhere(&o, "  fastest<");
    expect_nowhere(&o, "fastest hashseg,");
    expect_nowhere(&o, "echo fastest");
    expect_nowhere(&o, "x (exact");
    cr_expect(strstr(o.console.data, "no clear winner between radix and hashseg") != NULL, "%s",
              o.console.data);
    cr_expect(strstr(o.console.data, "Go: no clear winner between echo and gin") != NULL, "%s",
              o.console.data);
    cr_expect(strstr(o.console.data, "auto picks radix, not significantly slower than hashseg "
                                     "(1.001x (within ±0.2%))") != NULL,
              "%s", o.console.data);
    cr_expect(strstr(o.md.data, "Go: no clear winner between echo and gin") != NULL, "%s",
              o.md.data);
    cr_expect(strstr(o.html.data, "Go: no clear winner between echo and gin") != NULL);
    free_all(&o);
    rb_bundle_free(&b);
}
