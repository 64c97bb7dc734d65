/*
 * test_report_html.c — report.html (bench/report/report_html.c) on
 * synthetic bundles: one self-contained page, the answer first, the gate
 * before the charts, one collapsible table per table of routes (warm and
 * cold side by side), links to the data files.  What it looks like is
 * checked in a real browser by tests/browser_test.sh.
 */
#include "bundle.h"
#include "headline.h"
#include "report_html.h"

#include "router.h"
#include "synth_bundle.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define TRIALS 9

static void make_bundle(rb_bundle *b)
{
    rb_bundle_init(b);
    snprintf(b->baseline, sizeof b->baseline, "radix");
    snprintf(b->command, sizeof b->command, "routebench choose --routes github.routes");
    b->trials = TRIALS;
    b->optimized = true;
    const char *const routers[] = {"radix", "hashseg", "ctrie"};
    for (size_t r = 0; r < 3; r++)
        cr_assert_eq(rb_bundle_add_router(b, routers[r], "a router", RB_FEAT_PARAMS), RB_OK);
    cr_assert_eq(rb_bundle_add_standard_limitations(b), RB_OK);
}

static char *render(const rb_bundle *b)
{
    rb_buf out = {0};
    rb_error err;
    cr_assert_eq(rb_bundle_report_html(b, &out, &err), RB_OK, "%s", err.message);
    cr_assert(out.data);
    return out.data; /* the caller frees */
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* No script, no stylesheet or font or image to fetch, and a policy that
 * forbids any request, so the file alone is the report. */
Test(report_html, is_one_self_contained_file)
{
    rb_bundle b;
    make_bundle(&b);
    synth_three_routers(&b, "github", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM);
    char *html = render(&b);
    cr_expect(strncmp(html, "<!doctype html>", 15) == 0);
    cr_expect(strstr(html, "Content-Security-Policy\" content=\"default-src 'none'") != NULL);
    cr_expect_null(strstr(html, "<script"));
    cr_expect_null(strstr(html, "<link"));
    cr_expect_null(strstr(html, "src=\""));
    cr_expect_null(strstr(html, "href=\"http"));
    cr_expect_null(strstr(html, "url("));
    cr_expect(strstr(html, "name=\"viewport\"") != NULL, "readable on a phone");
    cr_expect(strstr(html, "<svg") != NULL, "the charts inline");
    cr_expect(strstr(html, "href=\"summary.json\"") && strstr(html, "href=\"trials.csv\""));
    free(html);
    rb_bundle_free(&b);
}

/* The first heading is the answer in the words of the terminal's line. */
Test(report_html, opens_with_the_verdict)
{
    rb_bundle b;
    make_bundle(&b);
    synth_three_routers(&b, "github", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM);
    char *html = render(&b);
    char line[RB_HEADLINE_TEXT], h1[RB_HEADLINE_TEXT + 16];
    rb_headline_bundle(&b, line, sizeof line);
    snprintf(h1, sizeof h1, "<h1>%s</h1>", line);
    const char *at = strstr(html, h1);
    cr_assert(at != NULL, "no %s", h1);
    cr_expect(at < strstr(html, "<h2"), "the verdict comes before every section");
    free(html);
    rb_bundle_free(&b);
}

Test(report_html, the_gate_comes_before_the_charts_with_its_outcome)
{
    rb_bundle b;
    make_bundle(&b);
    synth_three_routers(&b, "github", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM);
    b.gate.on = true;
    snprintf(b.gate.a, sizeof b.gate.a, "radix");
    snprintf(b.gate.b, sizeof b.gate.b, "hashseg");
    b.gate.threshold = 0.97;
    b.gate.outcome = RB_GATE_FAILED;
    snprintf(b.gate.message, sizeof b.gate.message, "the whole interval lies below 0.97");
    char *html = render(&b);
    const char *gate = strstr(html, "<section class=\"gate failed\">");
    cr_assert(gate != NULL);
    cr_expect(strstr(gate, "Gate: FAILED (exit status 1)") != NULL);
    cr_expect(gate < strstr(html, "<h2>Charts</h2>"));
    free(html);
    rb_bundle_free(&b);
}

/* choose: the table measured warm and cold is one <details>, its two
 * conditions side by side. */
Test(report_html, warm_and_cold_are_one_table_side_by_side)
{
    rb_bundle b;
    make_bundle(&b);
    synth_three_routers(&b, "github", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM);
    synth_three_routers(&b, "github (latency, cold)", RB_BUNDLE_LATENCY, RB_BUNDLE_COLD);
    char *html = render(&b);
    cr_expect_eq(count(html, "<details>"), 1u);
    cr_expect(strstr(html, "<th>warm ns/lookup</th>") && strstr(html, "<th>cold ns/lookup</th>"));
    cr_expect_null(strstr(html, "geometric mean across scenarios"));
    free(html);
    rb_bundle_free(&b);
}

/* Text from the bundle is escaped: a router or command cannot inject markup. */
Test(report_html, escapes_what_the_bundle_says)
{
    rb_bundle b;
    make_bundle(&b);
    snprintf(b.command, sizeof b.command, "routebench run --routes '<script>x</script>'");
    synth_three_routers(&b, "a<b", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM);
    char *html = render(&b);
    cr_expect_null(strstr(html, "<script>x"));
    cr_expect(strstr(html, "&lt;script&gt;x") != NULL);
    cr_expect(strstr(html, "a&lt;b") != NULL);
    free(html);
    rb_bundle_free(&b);
}
