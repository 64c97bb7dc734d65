/*
 * test_ecosystem.c — the verdict per language for peer runners
 * (bench/bundle/ecosystem.h) on synthetic bundles: a tie, a runner with
 * wrong answers (never ranked, however fast), a language with one
 * runner, every runner refusing; and the renderers and summary.json carry
 * the same lines and the compatibility of every router.
 */
#include "bundle.h"
#include "ecosystem.h"
#include "report.h"
#include "report_console.h"
#include "report_html.h"
#include "router.h"
#include "synth_bundle.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define SAME(x)                                                                                    \
    {                                                                                              \
        x, x, x, x, x, x, x, x, x                                                                  \
    }

#define GO   "peer process: Go example.com/router (peers/go)"
#define RUST "peer process: Rust example 1.0 (peers/rust)"
#define NODE "peer process: Node example (peers/js)"

/* Ours (hashseg, radix), then Go (echo 2x faster than gin in every round,
 * chi and gin within noise... see each test), Rust and Node. */
static const synth_row rows[] = {
    {"radix", NULL, SAME(60), 8000, 0, false},
    {"hashseg", NULL, SAME(40), 6000, 0, false},
    /* Go: echo 1.5x faster than gin in every round; gorilla 100x slower than echo */
    {"echo", GO, SAME(100), 9000, 0, true},
    {"gin", GO, SAME(150), 9000, 0, true},
    {"gorilla-mux", GO, SAME(10000), 9000, 0, true},
    /* Rust: one runner */
    {"matchit", RUST, SAME(90), 9000, 0, true},
    /* Node: rou3 fastest but with wrong answers; hono and memoirist within noise */
    {"rou3", NODE, SAME(50), 9000, 40, true},
    {"hono", NODE, {300, 310, 290, 305, 295, 300, 315, 285, 300}, 9000, 0, true},
    {"memoirist", NODE, {298, 312, 288, 307, 293, 302, 313, 287, 299}, 9000, 0, true},
};
#define NROWS (sizeof rows / sizeof rows[0])

static size_t find(const rb_ecosystem *e, size_t n, const char *language)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(e[i].language, language) == 0) return i;
    cr_assert_fail("no %s", language);
    return 0;
}

static void build(rb_bundle *b)
{
    synth_bundle(b, rows, NROWS);
    cr_assert_eq(rb_bundle_add_router(b, "httprouter", GO, RB_FEAT_PARAMS), RB_OK);
    b->routers[b->nrouters - 1].peer = true;
    size_t si = synth_scenario(b, "table", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, rows, NROWS);
    synth_refuse(b, si, "httprouter",
                 "refuses 80 routes (first: route 2 httprouter refuses /a/:b)");
}

Test(ecosystem, a_language_is_ranked_among_itself_with_the_paired_interval)
{
    rb_bundle b;
    build(&b);
    rb_ecosystem e[RB_ECOSYSTEM_LANGS];
    size_t n = rb_ecosystems(&b, 0, e, RB_ECOSYSTEM_LANGS);
    cr_assert_eq(n, 3u, "Go, Rust, Node (ours are not an ecosystem of peers)");
    const rb_ecosystem *go = &e[find(e, n, "Go")];
    cr_expect_eq(go->nranked, 3u);
    cr_expect(go->significant);
    cr_expect_str_eq(go->line, "Go: echo fastest, 1.50x [1.50, 1.50] faster than gin; gorilla-mux "
                               "100x slower; httprouter refuses 80 routes");
    rb_bundle_free(&b);
}

Test(ecosystem, a_tie_says_no_clear_winner_and_a_wrong_runner_is_never_ranked)
{
    rb_bundle b;
    build(&b);
    rb_ecosystem e[RB_ECOSYSTEM_LANGS];
    size_t n = rb_ecosystems(&b, 0, e, RB_ECOSYSTEM_LANGS);
    const rb_ecosystem *node = &e[find(e, n, "Node")];
    cr_expect_eq(node->nranked, 2u, "rou3 (wrong answers) is not ranked, however fast");
    cr_expect_eq(node->ntop, 2u);
    cr_expect(strncmp(node->line, "Node: no clear winner between ", 30) == 0, "%s", node->line);
    cr_expect(strstr(node->line, "hono") && strstr(node->line, "memoirist"), "%s", node->line);
    cr_expect(strstr(node->line, "rou3 not ranked: 40 of 1000 answers differ from EXPECTED") !=
                  NULL,
              "%s", node->line);
    cr_expect(strstr(node->line, "rou3 fastest") == NULL, "%s", node->line);
    rb_bundle_free(&b);
}

Test(ecosystem, a_language_with_one_runner_is_not_ranked)
{
    rb_bundle b;
    build(&b);
    rb_ecosystem e[RB_ECOSYSTEM_LANGS];
    size_t n = rb_ecosystems(&b, 0, e, RB_ECOSYSTEM_LANGS);
    const rb_ecosystem *rust = &e[find(e, n, "Rust")];
    cr_expect_eq(rust->nranked, 1u);
    cr_expect_str_eq(rust->line,
                     "Rust: matchit alone accepts the table and answers right: no ranking");
    rb_bundle_free(&b);
}

Test(ecosystem, every_runner_refusing_is_said)
{
    synth_row ours[] = {{"radix", NULL, SAME(60), 8000, 0, false},
                        {"hashseg", NULL, SAME(40), 6000, 0, false}};
    rb_bundle b;
    synth_bundle(&b, ours, 2);
    const char *go[] = {"httprouter", "gin", "echo"};
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(rb_bundle_add_router(&b, go[i], GO, RB_FEAT_PARAMS), RB_OK);
        b.routers[b.nrouters - 1].peer = true;
    }
    size_t si = synth_scenario(&b, "table", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, ours, 2);
    synth_refuse(&b, si, "httprouter", "refuses 80 routes (first: route 2 ...)");
    synth_refuse(&b, si, "gin", "refuses 99 routes (first: route 7 ...)");
    synth_refuse(&b, si, "echo", "peer echo: its output ended (the runner exited or crashed)");
    rb_ecosystem e[RB_ECOSYSTEM_LANGS];
    size_t n = rb_ecosystems(&b, 0, e, RB_ECOSYSTEM_LANGS);
    cr_assert_eq(n, 1u);
    cr_expect_eq(e[0].nranked, 0u);
    cr_expect_str_eq(e[0].line, "Go: every runner refuses the table or could not be measured; "
                                "httprouter refuses 80 routes; gin refuses 99 routes; echo "
                                "could not be measured: its output ended (the runner exited or "
                                "crashed)");
    rb_bundle_free(&b);
}

/* A counted run printed "Node: every runner refuses the table or could
 * not be measured; find-my-way could not be measured; hono could not be
 * measured; ..." without why (Callgrind cannot count a JIT runtime).
 * Runners that fail alike now share one clause with the reason. */
Test(ecosystem, regression_205_runners_failing_alike_share_one_reason)
{
    synth_row ours[] = {{"radix", NULL, SAME(60), 8000, 0, false},
                        {"hashseg", NULL, SAME(40), 6000, 0, false}};
    rb_bundle b;
    synth_bundle(&b, ours, 2);
    const char *node[] = {"find-my-way", "hono", "rou3"};
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(rb_bundle_add_router(&b, node[i], NODE, RB_FEAT_PARAMS), RB_OK);
        b.routers[b.nrouters - 1].peer = true;
    }
    size_t si = synth_scenario(&b, "table", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, ours, 2);
    synth_refuse(&b, si, "find-my-way", "peer find-my-way runs in a JIT runtime (Node)");
    synth_refuse(&b, si, "hono", "peer hono runs in a JIT runtime (Node)");
    synth_refuse(&b, si, "rou3", "peer rou3: its output ended");
    rb_ecosystem e[RB_ECOSYSTEM_LANGS];
    size_t n = rb_ecosystems(&b, 0, e, RB_ECOSYSTEM_LANGS);
    cr_assert_eq(n, 1u);
    cr_expect_str_eq(e[0].line, "Node: no runner could be measured; find-my-way and hono could "
                                "not be measured: runs in a JIT runtime (Node); rou3 could not be "
                                "measured: its output ended");
    rb_bundle_free(&b);
}

/* A table's second condition (choose's cold latency) has no peers: they
 * measure warm throughput only, and their refusals there are not news. */
Test(ecosystem, a_second_condition_has_no_ecosystem)
{
    rb_bundle b;
    build(&b);
    synth_scenario(&b, "table (latency, cold)", RB_BUNDLE_LATENCY, RB_BUNDLE_COLD, rows, 2);
    rb_ecosystem e[RB_ECOSYSTEM_LANGS];
    cr_expect_eq(rb_ecosystems(&b, 1, e, RB_ECOSYSTEM_LANGS), 0u);
    rb_bundle_free(&b);
}

/* The terminal, report.md, report.html and summary.json carry each
 * language's line, and the whole compatibility table (refusal reasons,
 * first differing requests) where the format has room. */
Test(ecosystem, every_renderer_carries_the_lines_and_the_compatibility)
{
    rb_bundle b;
    build(&b);
    rb_bundle_result *rou3 = &b.scenarios[0].results[6];
    cr_assert_str_eq(rou3->router, "rou3");
    rou3->ndiffers = 1;
    snprintf(rou3->differs[0].method, sizeof rou3->differs[0].method, "GET");
    /* a hostile path: it must not end a Markdown cell or open an HTML tag */
    snprintf(rou3->differs[0].path, sizeof rou3->differs[0].path, "/users/<b>|x");
    snprintf(rou3->differs[0].expected, sizeof rou3->differs[0].expected, "404");
    snprintf(rou3->differs[0].got, sizeof rou3->differs[0].got, "200 route 3");
    rb_ecosystem e[RB_ECOSYSTEM_LANGS];
    size_t n = rb_ecosystems(&b, 0, e, RB_ECOSYSTEM_LANGS);
    rb_buf con = {0}, md = {0}, html = {0}, json = {0};
    rb_error err;
    rb_console_opts opts = {false};
    rb_console_scenario(&b, 0, &opts, &con);
    cr_assert_eq(rb_bundle_report_md(&b, &md, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_bundle_report_html(&b, &html, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_bundle_json_write(&b, &json, &err), RB_OK, "%s", err.message);
    for (size_t k = 0; k < n; k++) {
        cr_expect(strstr(md.data, e[k].line) != NULL, "report.md: %s", e[k].line);
        cr_expect(strstr(json.data, e[k].line) != NULL, "summary.json: %s", e[k].line);
    }
    /* the terminal wraps: its first words */
    cr_expect(strstr(con.data, "    Go: echo fastest, 1.50x [1.50, 1.50] faster than gin") != NULL,
              "%s", con.data);
    cr_expect(strstr(con.data, "first: GET /users/<b>|x expected 404, got 200 route 3") != NULL,
              "%s", con.data);
    cr_expect(strstr(md.data,
                     "| httprouter | Go, own process | refuses 80 of 100 routes | "
                     "refuses 80 routes (first: route 2 httprouter refuses /a/:b) |") != NULL,
              "%s", md.data);
    cr_expect(strstr(md.data, "`GET /users/<b>\\|x`: 404, got 200 route 3") != NULL, "%s", md.data);
    cr_expect(strstr(html.data, "<section id=\"languages\">") != NULL);
    cr_expect(strstr(html.data, "<table class=\"compat\">") != NULL);
    cr_expect(strstr(html.data, "<code>GET /users/&lt;b&gt;|x</code>: 404, got 200 route 3") !=
              NULL);
    cr_expect(strstr(json.data, "\"ecosystems\":") != NULL);
    /* read back, the bundle renders the same lines (the differs survive) */
    rb_bundle back;
    cr_assert_eq(rb_bundle_json_read(json.data, json.len, &back, &err), RB_OK, "%s", err.message);
    cr_expect_eq(back.scenarios[0].results[6].ndiffers, 1u);
    cr_expect_str_eq(back.scenarios[0].results[6].differs[0].path, "/users/<b>|x");
    rb_bundle_free(&back);
    rb_buf_free(&con), rb_buf_free(&md), rb_buf_free(&html), rb_buf_free(&json);
    rb_bundle_free(&b);
}

/* Regression: the nop runners (references: the loop's own cost) were
 * ranked as a language of their own, "C: nop-rust fastest ...", since
 * their summary names no language, and they had compatibility rows. */
Test(ecosystem, regression_206_a_reference_runner_is_neither_ranked_nor_a_language)
{
    static const synth_row with_nop[] = {
        {"radix", NULL, SAME(60), 8000, 0, false},
        {"echo", GO, SAME(100), 9000, 0, true},
        {"gin", GO, SAME(150), 9000, 0, true},
        {"nop-go", "reference, not a router: Go runners' loop, constant lookup (peers/go)",
         SAME(1.5), 100, 0, true},
        {"nop-rust", "reference, not a router: Rust runner's loop, constant lookup", SAME(1.0), 100,
         0, true},
    };
    rb_bundle b;
    synth_bundle(&b, with_nop, 5);
    synth_scenario(&b, "table", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, with_nop, 5);
    rb_ecosystem e[RB_ECOSYSTEM_LANGS];
    size_t n = rb_ecosystems(&b, 0, e, RB_ECOSYSTEM_LANGS);
    cr_assert_eq(n, 1u, "Go alone: a reference is no language");
    cr_expect_str_eq(e[0].language, "Go");
    cr_expect_str_eq(e[0].line, "Go: echo fastest, 1.50x [1.50, 1.50] faster than gin");
    rb_compat_row crows[16];
    size_t nrows = rb_compat_rows(&b, 0, crows, 16);
    for (size_t i = 0; i < nrows; i++)
        cr_expect(strncmp(crows[i].router, "nop-", 4) != 0, "%s has a row", crows[i].router);
    rb_bundle_free(&b);
}

/* Regression: r3, the peer linked into routebench's process, made a "C:"
 * line in every scenario of every run (RESULTS.md had 21 of them), though
 * no runner of another process was asked for: any peer made its language
 * an ecosystem, an in-process one too. */
Test(ecosystem, regression_207_an_in_process_peer_alone_makes_no_language)
{
    static const synth_row only_r3[] = {
        {"radix", NULL, SAME(60), 8000, 0, false},
        {"r3", "the r3 library (peer, linked in)", SAME(200), 9000, 4, false},
    };
    rb_bundle b;
    synth_bundle(&b, only_r3, 2);
    b.routers[1].peer = true;
    synth_scenario(&b, "table", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, only_r3, 2);
    rb_ecosystem e[RB_ECOSYSTEM_LANGS];
    cr_expect_eq(rb_ecosystems(&b, 0, e, RB_ECOSYSTEM_LANGS), 0u);
    rb_buf md = {0};
    cr_assert_eq(rb_bundle_report_md(&b, &md, NULL), RB_OK);
    cr_expect(strstr(md.data, "Per language") == NULL, "%s", md.data);
    rb_buf_free(&md);
    rb_bundle_free(&b);
}
