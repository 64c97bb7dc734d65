/*
 * test_headline.c — the verdict in one line (bench/headline.h), and the
 * reports around it (report.md, the terminal's), on synthetic bundles
 * whose trials are written by hand: the expected winner, ratio and sizes
 * follow from the numbers below (no timing).
 */
#include "bundle.h"
#include "headline.h"
#include "sysinfo.h"
#include "report_console.h"

#include "router.h"
#include "report.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define TRIALS 9

typedef struct router_row {
    const char *name;
    double ns; /* per lookup, the same in every trial */
    uint64_t memory;
} router_row;

/* Scenario `name` of b: 100 routes, these routers, 1000 lookups a trial. */
static void add_scenario(rb_bundle *b, const char *name, rb_bundle_mode mode, rb_bundle_cache cache,
                         const router_row *rows, size_t n)
{
    size_t si = b->nscenarios;
    rb_bundle_scenario *s = rb_bundle_add_scenario(b);
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->kind, sizeof s->kind, "files");
    s->mode = mode;
    s->cache = cache;
    s->routes = 100;
    s->requests = 1000;
    s->routes_fp = 7; /* the same tables in every scenario of these tests */
    s->requests_fp = strcmp(name, "other") == 0 ? 9 : 8;
    for (size_t r = 0; r < n; r++)
        rb_bundle_add_result(s, rows[r].name)->memory_bytes = rows[r].memory;
    for (uint32_t t = 0; t < TRIALS; t++)
        for (size_t r = 0; r < n; r++) {
            rb_bundle_trial tr = {.scenario = si,
                                  .result = r,
                                  .trial = t + 1,
                                  .position = (uint32_t)r + 1,
                                  .lookups = 1000,
                                  .ns = (uint64_t)(rows[r].ns * 1000)};
            cr_assert_eq(rb_bundle_add_trial(b, &tr), RB_OK);
        }
    rb_error err;
    cr_assert_eq(rb_bundle_compute_scenario(b, si, &err), RB_OK, "%s", err.message);
}

static void make_bundle(rb_bundle *b, const router_row *rows, size_t n)
{
    rb_bundle_init(b);
    snprintf(b->baseline, sizeof b->baseline, "%s", rows[0].name);
    b->trials = TRIALS;
    for (size_t r = 0; r < n; r++)
        cr_assert_eq(rb_bundle_add_router(b, rows[r].name, "a router", RB_FEAT_PARAMS), RB_OK);
}

static const router_row three[] = {{"radix", 60, 8000}, {"hashseg", 40, 6000}, {"ctrie", 90, 3000}};

/* hashseg 60/40 = 1.5x faster than the runner-up radix in every pair;
 * ctrie holds 3000 bytes for 100 routes. */
Test(headline, names_the_winner_its_ratio_over_the_runner_up_and_the_smallest)
{
    rb_bundle b;
    make_bundle(&b, three, 3);
    add_scenario(&b, "github", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, three, 3);
    char line[RB_HEADLINE_TEXT];
    rb_headline_scenario(&b, 0, line, sizeof line);
    cr_expect_str_eq(line, "github: hashseg, 1.50x [1.50, 1.50] faster than radix; smallest ctrie, "
                           "30 B/route");
    rb_bundle_free(&b);
}

/* A counted metric names what it counted: estimated cycles are not
 * instructions (the line said "fewer instructions" under cycles-est). */
Test(headline, regression_181_a_counted_metric_names_its_unit)
{
    const int metric[] = {RB_METRIC_INSTRUCTIONS, RB_METRIC_CYCLES_EST};
    const char *want[] = {
        "github: hashseg, 1.500x (exact) fewer instructions than radix; smallest ctrie, 30 B/route",
        "github: hashseg, 1.500x (exact) fewer est. cycles than radix; smallest ctrie, 30 B/route"};
    for (int k = 0; k < 2; k++) {
        rb_bundle b;
        make_bundle(&b, three, 3);
        b.metric = metric[k];
        add_scenario(&b, "github", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, three, 3);
        char line[RB_HEADLINE_TEXT];
        rb_headline_scenario(&b, 0, line, sizeof line);
        cr_expect_str_eq(line, want[k]);
        rb_bundle_free(&b);
    }
}

/* Names of 60 characters: the line drops the smallest and is never cut
 * (a cut lost router names: "no clear winner among radix, hashseg a...");
 * the renderers wrap it. */
Test(headline, a_long_line_drops_the_smallest_and_keeps_every_name)
{
    char a[61], c[61];
    memset(a, 'a', 60), a[60] = '\0';
    memset(c, 'c', 60), c[60] = '\0';
    router_row rows[] = {{"radix", 60, 8000}, {a, 40, 6000}, {c, 90, 3000}};
    rb_bundle b;
    make_bundle(&b, rows, 3);
    add_scenario(&b, "a-scenario-with-a-long-name", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, rows, 3);
    char line[RB_HEADLINE_TEXT];
    rb_headline_scenario(&b, 0, line, sizeof line);
    cr_expect(strncmp(line, "a-scenario-with-a-long-name: aaaa", 33) == 0, "%s", line);
    cr_expect(strstr(line, a) != NULL, "the winner's whole name: %s", line);
    cr_expect(strstr(line, "faster than radix") != NULL, "the runner-up: %s", line);
    cr_expect(strstr(line, "smallest") == NULL, "the smallest dropped: %s", line);
    cr_expect(strstr(line, "...") == NULL, "never cut: %s", line);
    rb_bundle_free(&b);
}

/* choose measures one table warm and cold: one table, so there is no
 * overall line (which would count it twice), and the cold scenario is a
 * condition of the warm one. */
Test(headline, warm_and_cold_of_one_table_are_one_table_not_two_scenarios)
{
    rb_bundle b;
    make_bundle(&b, three, 3);
    add_scenario(&b, "discord", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, three, 3);
    add_scenario(&b, "discord (latency, cold)", RB_BUNDLE_LATENCY, RB_BUNDLE_COLD, three, 3);
    cr_expect_eq(rb_headline_tables(&b), 1u);
    cr_expect_not(rb_bundle_is_condition(&b, 0));
    cr_expect(rb_bundle_is_condition(&b, 1));
    char line[RB_HEADLINE_TEXT];
    rb_headline_overall(&b, line, sizeof line);
    cr_expect_str_eq(line, "");
    rb_headline_bundle(&b, line, sizeof line);
    cr_expect(strncmp(line, "discord: hashseg", 16) == 0, "%s", line);
    rb_bundle_free(&b);
}

Test(headline, overall_counts_tables_and_who_won_them)
{
    rb_bundle b;
    make_bundle(&b, three, 3);
    add_scenario(&b, "github", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, three, 3);
    add_scenario(&b, "github (latency, cold)", RB_BUNDLE_LATENCY, RB_BUNDLE_COLD, three, 3);
    router_row swapped[] = {{"radix", 30, 8000}, {"hashseg", 40, 6000}, {"ctrie", 90, 3000}};
    add_scenario(&b, "other", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, swapped, 3);
    char line[RB_HEADLINE_TEXT];
    rb_headline_overall(&b, line, sizeof line);
    cr_expect_str_eq(line, "Overall: hashseg fastest in 1 of 2 scenarios (significantly in 1), "
                           "radix in 1; smallest ctrie in 2");
    rb_bundle_free(&b);
}

/* Names that make the overall line over 100 columns: the compact form,
 * whole, instead of a line cut in the middle of a router's name ("smallest
 * ctr..." in RESULTS.md). */
Test(headline, regression_186_the_overall_line_is_compact_before_it_is_cut)
{
    router_row a[] = {{"radix@base", 30, 8000}, {"hashseg-v2", 40, 6000}, {"ctrie-v2", 90, 3000}};
    router_row c[] = {{"radix@base", 60, 8000}, {"hashseg-v2", 40, 6000}, {"ctrie-v2", 90, 3000}};
    rb_bundle b;
    make_bundle(&b, a, 3);
    add_scenario(&b, "github", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, c, 3);
    add_scenario(&b, "other", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, a, 3);
    add_scenario(&b, "third", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, c, 3);
    char line[RB_HEADLINE_TEXT];
    rb_headline_overall(&b, line, sizeof line);
    cr_expect_str_eq(line, "Overall: hashseg-v2 fastest in 2 of 3 (2 significantly), "
                           "radix@base in 1; smallest ctrie-v2 in 3");
    rb_bundle_free(&b);
}

/* Lines of a report.md table: from its header to the first line that does
 * not start with '|'; every row of the scenario must be in it. */
static size_t table_rows(const char *md, const char *header)
{
    const char *p = strstr(md, header);
    cr_assert(p, "no table %s in:\n%s", header, md);
    size_t n = 0;
    for (; *p == '|'; n++) {
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    return n;
}

/* A router that disagreed (a peer, here the middle row) is said after the
 * table: a paragraph between two rows ended the table, and the rows after
 * it (compiled, limit) were printed as text. */
Test(headline, regression_187_a_disagreement_does_not_split_the_table)
{
    const int metric[] = {RB_METRIC_TIME, RB_METRIC_INSTRUCTIONS};
    for (int k = 0; k < 2; k++) {
        rb_bundle b;
        make_bundle(&b, three, 3);
        b.metric = metric[k];
        add_scenario(&b, "github", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, three, 3);
        b.scenarios[0].results[1].disagreements = 5;
        rb_buf md = {0};
        rb_error err;
        cr_assert_eq(rb_bundle_report_md(&b, &md, &err), RB_OK, "%s", err.message);
        /* the header, the rule and three rows */
        const char *header = k ? "| router | instructions/lookup" : "| router | ns/lookup";
        cr_expect_eq(table_rows(md.data, header), 5u, "metric %d:\n%s", metric[k], md.data);
        cr_expect(strstr(md.data, "**hashseg disagreed with EXPECTED or with linear on 5 "
                                  "requests.**") != NULL,
                  "%s", md.data);
        rb_buf_free(&md);
        rb_bundle_free(&b);
    }
}

/* The terminal report keeps to 100 columns: the distance-to-the-limit
 * line of seven routers and a long warning were single lines of 118 and
 * 176 columns; now they wrap between items (a router and its ratio stay
 * together) and between words, indented under their first line. */
Test(headline, regression_190_the_terminal_report_keeps_to_100_columns)
{
    router_row rows[] = {{"radix", 60, 8000},
                         {"hashseg-variant-one", 40, 6000},
                         {"hashseg-variant-two", 41, 6000},
                         {"ctrie-variant-one", 50, 3000},
                         {"ctrie-variant-two", 51, 3000},
                         {"radix-variant-one", 61, 8000},
                         {"radix-variant-two", 62, 8000},
                         {"limit", 10, 90000}};
    size_t n = sizeof rows / sizeof rows[0];
    rb_bundle b;
    make_bundle(&b, rows, n);
    b.routers[n - 1].reference = true;
    add_scenario(&b, "github", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, rows, n);
    cr_assert_eq(rb_bundle_add_warning(&b, "The machine looked busy during the run: load average "
                                           "3.32 at the end on 2 cores (the run itself accounts "
                                           "for about 1), and this sentence goes on to pass 100 "
                                           "columns"),
                 RB_OK);
    rb_buf out = {0};
    rb_console_opts opts = {false};
    rb_console_scenario(&b, 0, &opts, &out);
    rb_console_summary(&b, &opts, &out);
    cr_assert(!out.failed && out.data);
    for (const char *line = out.data; *line;) {
        size_t len = strcspn(line, "\n");
        cr_expect_leq(len, 100u, "a %zu-column line: %.*s\nin:\n%s", len, (int)len, line, out.data);
        line += len + (line[len] == '\n');
    }
    cr_expect(strstr(out.data, "x the limit (an exact match of the requested paths): radix 6.00x, "
                               "hashseg-variant-one 4.00x,") != NULL,
              "%s", out.data);
    cr_expect(strstr(out.data, "\n    radix-variant-one 6.10x, radix-variant-two 6.20x\n") != NULL,
              "%s", out.data);
    cr_expect(strstr(out.data,
                     "\nwarning: The machine looked busy during the run: load average "
                     "3.32 at the end on 2 cores (the run\n         itself accounts") != NULL,
              "%s", out.data);
    rb_buf_free(&out);
    rb_bundle_free(&b);
}

Test(headline, a_gate_says_its_outcome_in_its_own_words)
{
    rb_bundle b;
    make_bundle(&b, three, 2);
    add_scenario(&b, "github", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, three, 2);
    b.gate.on = true;
    snprintf(b.gate.a, sizeof b.gate.a, "radix");
    snprintf(b.gate.b, sizeof b.gate.b, "hashseg");
    b.gate.threshold = 0.97;
    const int outcomes[] = {RB_GATE_PASSED, RB_GATE_FAILED, RB_GATE_INCONCLUSIVE};
    const char *const words[] = {"passed", "FAILED", "inconclusive"};
    for (size_t i = 0; i < 3; i++) {
        b.gate.outcome = outcomes[i];
        b.gate.evidence = (rb_gate_evidence){.median = 1.5, .lo = 1.4, .hi = 1.6, .pairs = 9};
        char line[RB_HEADLINE_TEXT], want[RB_HEADLINE_TEXT];
        const char *word;
        rb_headline_gate(&b, line, sizeof line, &word);
        snprintf(want, sizeof want,
                 "gate --fail-below 0.97: %s: hashseg 1.50x [1.40, 1.60] the speed of radix",
                 words[i]);
        cr_expect_str_eq(line, want);
        cr_expect_str_eq(word, words[i]);
    }
    rb_bundle_free(&b);
}

/* How many warnings a timed run on 2 cores gets at these load averages
 * (each one says "looked busy"). */
static size_t busy_warnings(double start, double end)
{
    rb_bundle b;
    rb_bundle_init(&b);
    b.metric = RB_METRIC_TIME;
    b.optimized = true;
    b.cores = 2;
    b.loadavg_start = start;
    b.loadavg_end = end;
    cr_assert_eq(rb_sysinfo_warnings(&b), RB_OK);
    size_t n = b.nwarnings;
    for (size_t i = 0; i < n; i++)
        cr_expect(strstr(b.warnings[i], "looked busy") != NULL, "%s", b.warnings[i]);
    rb_bundle_free(&b);
    return n;
}

/* run warned "the machine looked busy" at load 1.17 on 2 cores, a load at
 * which results.sh publishes a page (at most 1.5 on 2 cores at the start
 * and at the end).  One rule now decides both. */
Test(headline, regression_216_a_quiet_machine_by_the_publishing_rule_gets_no_warning)
{
    cr_expect_eq(busy_warnings(1.17, 1.40), 0u, "quiet by the rule: 1.5 on 2 cores");
    cr_expect_eq(busy_warnings(1.50, 1.50), 0u, "the limit itself is quiet");
    cr_expect_eq(busy_warnings(1.60, 1.00), 1u, "busy at the start");
    cr_expect_eq(busy_warnings(0.40, 1.60), 1u, "busy at the end");
    cr_expect_eq(busy_warnings(0.40, -1), 0u, "an unknown end is no warning");
}

/* A 20-character label ("chi-servehttp (peer)") pushed its row's figures
 * two columns right of their headings.  A name wider than the column now
 * takes its own line, and its figures start under their headings. */
Test(headline, regression_217_a_long_name_keeps_its_figures_under_their_headings)
{
    static const router_row rows[] = {{"radix", 60, 8000},
                                      {"a-router-named-at-length-40-characters!!", 40, 6000}};
    rb_bundle b;
    make_bundle(&b, rows, 2);
    add_scenario(&b, "github", RB_BUNDLE_THROUGHPUT, RB_BUNDLE_WARM, rows, 2);
    rb_buf out = {0};
    rb_console_opts opts = {false};
    rb_console_scenario(&b, 0, &opts, &out);
    cr_assert(!out.failed && out.data);
    const char *head = strstr(out.data, "ns/lookup");
    cr_assert_not_null(head, "%s", out.data);
    const char *bol = head;
    while (bol > out.data && bol[-1] != '\n') bol--;
    size_t col = (size_t)(head - bol) + strlen("ns/lookup"); /* where the figures end */
    const char *name = strstr(out.data, "\n  a-router-named-at-length-40-characters!!\n");
    cr_assert_not_null(name, "the whole name, on a line of its own:\n%s", out.data);
    const char *next = strchr(name + 1, '\n') + 1;
    const char *fig = strstr(next, "40.0 ");
    cr_assert_not_null(fig, "%s", out.data);
    cr_expect_eq((size_t)(fig - next) + strlen("40.0"), col, "figures under their heading:\n%s",
                 out.data);
    rb_buf_free(&out);
    rb_bundle_free(&b);
}
