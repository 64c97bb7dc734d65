/*
 * test_verdict.c — the verdict (bench/bundle/verdict.h) on synthetic bundles whose
 * trials are written by hand, so the expected winner, interval and
 * refusals follow from the numbers below (no timing).
 */
#include "bundle.h"
#include "verdict.h"

#include "router.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define TRIALS 9

/* A bundle with one scenario whose routers have these ns per lookup in
 * each of TRIALS rounds (ns[r][t] for router r, 1000 lookups a trial). */
typedef struct router_row {
    const char *name, *summary;
    unsigned features;
    double ns[TRIALS];
    uint64_t memory, build_ns;
} router_row;

static void make_bundle(rb_bundle *b, const router_row *rows, size_t n, unsigned features)
{
    rb_bundle_init(b);
    snprintf(b->baseline, sizeof b->baseline, "%s", rows[0].name);
    b->trials = TRIALS;
    for (size_t r = 0; r < n; r++)
        cr_assert_eq(rb_bundle_add_router(b, rows[r].name, rows[r].summary, rows[r].features),
                     RB_OK);
    rb_bundle_scenario *s = rb_bundle_add_scenario(b);
    snprintf(s->name, sizeof s->name, "table");
    snprintf(s->kind, sizeof s->kind, "files");
    s->routes = 100;
    s->requests = 1000;
    s->features = features;
    for (size_t r = 0; r < n; r++) {
        rb_bundle_result *x = rb_bundle_add_result(s, rows[r].name);
        x->memory_bytes = rows[r].memory;
        x->build_ns = rows[r].build_ns;
    }
    for (uint32_t t = 0; t < TRIALS; t++)
        for (size_t r = 0; r < n; r++) {
            rb_bundle_trial tr = {.scenario = 0,
                                  .result = r,
                                  .trial = t + 1,
                                  .position = (uint32_t)r + 1,
                                  .lookups = 1000,
                                  .ns = (uint64_t)(rows[r].ns[t] * 1000)};
            cr_assert_eq(rb_bundle_add_trial(b, &tr), RB_OK);
        }
    rb_error err;
    cr_assert_eq(rb_bundle_compute_scenario(b, 0, &err), RB_OK, "%s", err.message);
}

#define STEADY(x)                                                                                  \
    {                                                                                              \
        x, x, x, x, x, x, x, x, x                                                                  \
    }
#define PARAMS RB_FEAT_PARAMS

/* b is 1.5x faster than a in every round: the interval of the ratio over
 * the runner-up excludes 1, so the verdict names one fastest router. */
Test(verdict, a_router_faster_in_every_pair_is_the_fastest_with_its_interval)
{
    router_row rows[] = {{"radix", "trie", PARAMS, STEADY(60), 8000, 500},
                         {"hashseg", "hash", PARAMS, STEADY(40), 6000, 700},
                         {"ctrie", "compact", PARAMS, STEADY(90), 3000, 900}};
    rb_bundle b;
    make_bundle(&b, rows, 3, PARAMS);
    rb_verdict v;
    cr_assert_eq(rb_verdict_scenario(&b, 0, &v), RB_OK);
    cr_expect_str_eq(v.fastest, "hashseg");
    cr_expect_str_eq(v.runner_up, "radix");
    cr_expect(v.significant);
    cr_expect_float_eq(v.lead.median, 1.5, 1e-9); /* 60 / 40 */
    cr_expect_eq(v.ntop, 1u);
    cr_expect_str_eq(v.smallest, "ctrie"); /* 3000 bytes / 100 routes */
    cr_expect_float_eq(v.smallest_bytes_per_route, 30.0, 1e-9);
    cr_expect_str_eq(v.fastest_build, "radix");
    cr_expect(strstr(v.text, "fastest hashseg, 1.500x [1.500, 1.500] (9/9 pairs) faster than the "
                             "runner-up radix.") != NULL,
              "%s", v.text);
    cr_expect(strstr(v.text, "no router refused it") != NULL, "%s", v.text);
    rb_bundle_free(&b);
}

/* Two routers that trade wins round by round: the sign-test interval of
 * the ratio includes 1, so neither is called the winner. */
Test(verdict, routers_that_trade_wins_show_no_significant_difference)
{
    router_row rows[] = {{"radix", "trie", PARAMS, {50, 40, 50, 40, 50, 40, 50, 40, 50}, 1, 1},
                         {"hashseg", "hash", PARAMS, {40, 50, 40, 50, 40, 50, 40, 50, 41}, 1, 1},
                         {"ctrie", "compact", PARAMS, STEADY(200), 1, 1}};
    rb_bundle b;
    make_bundle(&b, rows, 3, PARAMS);
    rb_verdict v;
    cr_assert_eq(rb_verdict_scenario(&b, 0, &v), RB_OK);
    cr_expect_not(v.significant);
    cr_expect_eq(v.ntop, 2u);
    cr_expect(strstr(v.text, "no significant difference between the top routers") != NULL, "%s",
              v.text);
    cr_expect(strstr(v.top, "ctrie") == NULL, "%s", v.top);
    rb_bundle_free(&b);
}

/* The runner-up by median (ctrie) is significantly behind, while a slower
 * router by median (radix, erratic) is not told apart from the fastest: the
 * tie names the top routers and shows the lead over the tied one, not over
 * ctrie (which would read as a significant lead inside a tie). */
Test(verdict, a_tie_shows_the_lead_over_the_tied_router)
{
    router_row rows[] = {{"radix", "trie", PARAMS, {20, 20, 20, 20, 70, 70, 70, 70, 70}, 1, 1},
                         {"hashseg", "hash", PARAMS, STEADY(40), 1, 1},
                         {"ctrie", "compact", PARAMS, STEADY(60), 1, 1}};
    rb_bundle b;
    make_bundle(&b, rows, 3, PARAMS);
    rb_verdict v;
    cr_assert_eq(rb_verdict_scenario(&b, 0, &v), RB_OK);
    cr_expect_str_eq(v.fastest, "hashseg");
    cr_expect_str_eq(v.runner_up, "ctrie");
    cr_expect_eq(v.ntop, 2u);
    cr_expect(strstr(v.text, "no significant difference between the top routers radix, hashseg "
                             "(hashseg over radix: ") != NULL,
              "%s", v.text);
    rb_bundle_free(&b);
}

/* A reference router and a peer are faster here, yet neither is ranked:
 * the verdict recommends only routers of the library. */
Test(verdict, references_and_peers_are_never_ranked)
{
    router_row rows[] = {{"radix", "trie", PARAMS, STEADY(60), 1, 1},
                         {"floor", "reference: the limit", 0, STEADY(5), 1, 1},
                         {"r3", "peer r3", PARAMS | RB_FEAT_PEER, STEADY(10), 1, 1},
                         {"ctrie", "compact", PARAMS, STEADY(80), 1, 1}};
    rb_bundle b;
    make_bundle(&b, rows, 4, PARAMS);
    rb_verdict v;
    cr_assert_eq(rb_verdict_scenario(&b, 0, &v), RB_OK);
    cr_expect_str_eq(v.fastest, "radix");
    cr_expect_eq(v.ranked, 2u);
    cr_expect(strstr(v.text, "Peers (measured, not ranked against ours): r3 (in process)") != NULL,
              "%s", v.text);
    rb_bundle_free(&b);
}

/* A router that gave a wrong answer is not ranked, however fast. */
Test(verdict, a_router_with_wrong_answers_is_not_ranked)
{
    router_row rows[] = {{"radix", "trie", PARAMS, STEADY(60), 1, 1},
                         {"hashseg", "hash", PARAMS, STEADY(20), 1, 1}};
    rb_bundle b;
    make_bundle(&b, rows, 2, PARAMS);
    b.scenarios[0].results[1].disagreements = 1;
    rb_verdict v;
    cr_assert_eq(rb_verdict_scenario(&b, 0, &v), RB_OK);
    cr_expect_str_eq(v.fastest, "radix");
    cr_expect_eq(v.ranked, 1u);
    rb_bundle_free(&b);
}

/* auto chose radix, which loses to hashseg in every pair: the verdict says
 * that auto's rule does not fit the table. */
Test(verdict, auto_losing_significantly_is_called_out)
{
    router_row rows[] = {{"radix", "trie", PARAMS, STEADY(60), 1, 1},
                         {"hashseg", "hash", PARAMS, STEADY(30), 1, 1},
                         {"auto", "chooses", PARAMS, STEADY(61), 1, 1}};
    rb_bundle b;
    make_bundle(&b, rows, 3, PARAMS);
    snprintf(b.scenarios[0].auto_choice, sizeof b.scenarios[0].auto_choice, "radix");
    rb_verdict v;
    cr_assert_eq(rb_verdict_scenario(&b, 0, &v), RB_OK);
    cr_expect_str_eq(v.fastest, "hashseg"); /* auto itself is not ranked */
    cr_expect_eq(v.auto_status, RB_VERDICT_AUTO_LOSES);
    cr_expect_float_eq(v.auto_gap.median, 2.0, 1e-9);
    cr_expect(strstr(v.text, "auto picks radix, which LOSES significantly") != NULL, "%s", v.text);
    char overall[RB_VERDICT_TEXT];
    rb_verdict_overall(&b, overall, sizeof overall);
    cr_expect(strstr(overall, "it lost significantly on table (radix to hashseg)") != NULL, "%s",
              overall);
    rb_bundle_free(&b);
}

Test(verdict, auto_picking_the_fastest_is_the_measured_winner)
{
    router_row rows[] = {{"radix", "trie", PARAMS, STEADY(60), 1, 1},
                         {"hashseg", "hash", PARAMS, STEADY(30), 1, 1},
                         {"auto", "chooses", PARAMS, STEADY(31), 1, 1}};
    rb_bundle b;
    make_bundle(&b, rows, 3, PARAMS);
    snprintf(b.scenarios[0].auto_choice, sizeof b.scenarios[0].auto_choice, "hashseg");
    rb_verdict v;
    cr_assert_eq(rb_verdict_scenario(&b, 0, &v), RB_OK);
    cr_expect_eq(v.auto_status, RB_VERDICT_AUTO_WINNER);
    cr_expect(strstr(v.text, "auto picks hashseg, the winner.") != NULL, "%s", v.text);
    rb_bundle_free(&b);
}

/* A router generated for the table (compiled) is not one auto could
 * pick: auto is judged against the fastest of the others (the verdict
 * said "auto picks hashseg, which LOSES ... auto's rule does not fit"). */
Test(verdict, regression_184_auto_is_not_judged_against_a_generated_router)
{
    router_row rows[] = {{"radix", "trie", PARAMS, STEADY(60), 1, 1},
                         {"hashseg", "hash", PARAMS, STEADY(30), 1, 1},
                         {"compiled", "generated", PARAMS, STEADY(20), 1, 1},
                         {"auto", "chooses", PARAMS, STEADY(31), 1, 1}};
    rb_bundle b;
    make_bundle(&b, rows, 4, PARAMS);
    snprintf(b.scenarios[0].auto_choice, sizeof b.scenarios[0].auto_choice, "hashseg");
    rb_verdict v;
    cr_assert_eq(rb_verdict_scenario(&b, 0, &v), RB_OK);
    cr_expect_str_eq(v.fastest, "compiled");
    cr_expect_eq(v.auto_status, RB_VERDICT_AUTO_WINNER);
    cr_expect(strstr(v.text, "auto picks hashseg, the fastest of the routers it chooses among "
                             "(compiled is generated for this table).") != NULL,
              "%s", v.text);
    char overall[RB_VERDICT_TEXT];
    rb_verdict_overall(&b, overall, sizeof overall);
    cr_expect(strstr(overall, "lost significantly") == NULL, "%s", overall);
    /* auto picking radix loses to hashseg, not to compiled */
    snprintf(b.scenarios[0].auto_choice, sizeof b.scenarios[0].auto_choice, "radix");
    cr_assert_eq(rb_verdict_scenario(&b, 0, &v), RB_OK);
    cr_expect_eq(v.auto_status, RB_VERDICT_AUTO_LOSES);
    cr_expect_float_eq(v.auto_gap.median, 2.0, 1e-9);
    cr_expect(strstr(v.text, "hashseg is 2.") != NULL, "%s", v.text);
    rb_bundle_free(&b);
}

/* The paragraph names the counted metric's unit: under cycles-est it said
 * "(exact, instructions)". */
Test(verdict, regression_185_the_paragraph_names_a_counted_metrics_unit)
{
    router_row rows[] = {{"radix", "trie", PARAMS, STEADY(60), 1, 1},
                         {"hashseg", "hash", PARAMS, STEADY(30), 1, 1},
                         {"auto", "chooses", PARAMS, STEADY(61), 1, 1}};
    rb_bundle b;
    make_bundle(&b, rows, 3, PARAMS);
    b.metric = RB_METRIC_CYCLES_EST;
    snprintf(b.scenarios[0].auto_choice, sizeof b.scenarios[0].auto_choice, "radix");
    rb_verdict v;
    cr_assert_eq(rb_verdict_scenario(&b, 0, &v), RB_OK);
    cr_expect(strstr(v.text, "(exact, est. cycles)") != NULL, "%s", v.text);
    cr_expect(strstr(v.text, "instructions") == NULL, "%s", v.text);
    rb_bundle_free(&b);
}

/* The features the table needs, who lacks one (from the routers'
 * features) and who refused it at build (the recorded reason). */
Test(verdict, refusals_name_the_router_and_the_reason)
{
    router_row rows[] = {
        {"radix", "trie", PARAMS | RB_FEAT_CATCHALL, STEADY(60), 1, 1},
        {"glob", "globs", PARAMS | RB_FEAT_CATCHALL | RB_FEAT_GLOB, STEADY(70), 1, 1}};
    rb_bundle b;
    make_bundle(&b, rows, 2, PARAMS | RB_FEAT_GLOB);
    rb_bundle_scenario *s = &b.scenarios[0];
    cr_assert_eq(rb_bundle_add_router(&b, "floor", "reference: static", 0), RB_OK);
    snprintf(s->skipped, sizeof s->skipped, "floor");
    snprintf(s->refused[0].router, sizeof s->refused[0].router, "httprouter");
    snprintf(s->refused[0].reason, sizeof s->refused[0].reason, "refuses 2 routes");
    s->nrefused = 1;
    rb_verdict v;
    cr_assert_eq(rb_verdict_scenario(&b, 0, &v), RB_OK);
    cr_expect(strstr(v.text, "The table needs params, globs; refused by floor (no params, globs); "
                             "httprouter (refuses 2 routes).") != NULL,
              "%s", v.text);
    rb_bundle_free(&b);
}

/* A table with template segments names them among its needs, and a router
 * without templates among those who lack a feature. */
Test(verdict, templates_are_named_among_the_features_the_table_needs)
{
    router_row rows[] = {{"hashseg", "hash", PARAMS | RB_FEAT_TEMPLATE, STEADY(60), 1, 1}};
    rb_bundle b;
    make_bundle(&b, rows, 1, PARAMS | RB_FEAT_TEMPLATE);
    rb_bundle_scenario *s = &b.scenarios[0];
    cr_assert_eq(rb_bundle_add_router(&b, "floor", "reference: static", 0), RB_OK);
    snprintf(s->skipped, sizeof s->skipped, "floor");
    rb_verdict v;
    cr_assert_eq(rb_verdict_scenario(&b, 0, &v), RB_OK);
    cr_expect(strstr(v.text, "The table needs params, templates; refused by floor (no params, "
                             "templates).") != NULL,
              "%s", v.text);
    rb_bundle_free(&b);
}

Test(verdict, speed_of_either_order_is_the_inverse)
{
    router_row rows[] = {{"radix", "trie", PARAMS, STEADY(60), 1, 1},
                         {"hashseg", "hash", PARAMS, STEADY(30), 1, 1}};
    rb_bundle b;
    make_bundle(&b, rows, 2, PARAMS);
    rb_paired_result x, y;
    cr_assert(rb_verdict_speed(&b.scenarios[0], "hashseg", "radix", &x));
    cr_assert(rb_verdict_speed(&b.scenarios[0], "radix", "hashseg", &y));
    cr_expect_float_eq(x.median, 2.0, 1e-9);
    cr_expect_float_eq(y.median, 0.5, 1e-9);
    cr_expect_eq(x.wins, 9u);
    cr_expect_eq(y.losses, 9u);
    cr_expect_not(rb_verdict_speed(&b.scenarios[0], "hashseg", "nobody", &x));
    rb_bundle_free(&b);
}

/* A table measured warm and cold: the conditions line names each winner
 * and says that they differ. */
Test(verdict, conditions_name_the_winner_of_each)
{
    router_row warm[] = {{"radix", "trie", PARAMS, STEADY(60), 1, 1},
                         {"hashseg", "hash", PARAMS, STEADY(30), 1, 1},
                         {"ctrie", "compact", PARAMS, STEADY(50), 1, 1}};
    rb_bundle b;
    make_bundle(&b, warm, 3, PARAMS);
    /* the cold scenario: ctrie wins; same fingerprints, other conditions */
    rb_bundle_scenario *c = rb_bundle_add_scenario(&b);
    snprintf(c->name, sizeof c->name, "table (latency, cold)");
    c->mode = RB_BUNDLE_LATENCY;
    c->cache = RB_BUNDLE_COLD;
    c->app_bytes = 256 * 1024;
    c->routes = 100;
    const double cold[3] = {300, 250, 200};
    for (size_t r = 0; r < 3; r++) rb_bundle_add_result(c, warm[r].name);
    for (uint32_t t = 0; t < TRIALS; t++)
        for (size_t r = 0; r < 3; r++) {
            rb_bundle_trial tr = {1, r, t + 1, (uint32_t)r + 1, 1000, (uint64_t)(cold[r] * 1000), 0,
                                  0, 0, 0};
            cr_assert_eq(rb_bundle_add_trial(&b, &tr), RB_OK);
        }
    rb_error err;
    cr_assert_eq(rb_bundle_compute_scenario(&b, 1, &err), RB_OK, "%s", err.message);
    cr_expect_eq(rb_verdict_find_condition(&b, 0, RB_BUNDLE_LATENCY, RB_BUNDLE_COLD), 1u);
    char line[1024];
    rb_verdict_conditions(&b, 0, 1, line, sizeof line);
    cr_expect_str_eq(line, "warm throughput: hashseg fastest; cold latency: ctrie fastest (the "
                           "winner changes with the conditions).");
    rb_verdict v;
    cr_assert_eq(rb_verdict_scenario(&b, 1, &v), RB_OK);
    cr_expect(strstr(v.text, "256 KiB of application work") != NULL, "%s", v.text);
    rb_bundle_free(&b);
}

/* Cold rounds that cannot tell the top routers apart: the conditions line
 * names them and claims nothing about the winner staying or changing. */
Test(verdict, a_tie_under_one_condition_claims_no_same_winner)
{
    router_row warm[] = {{"radix", "trie", PARAMS, STEADY(60), 1, 1},
                         {"hashseg", "hash", PARAMS, STEADY(30), 1, 1}};
    rb_bundle b;
    make_bundle(&b, warm, 2, PARAMS);
    rb_bundle_scenario *c = rb_bundle_add_scenario(&b);
    snprintf(c->name, sizeof c->name, "table (latency, cold)");
    c->mode = RB_BUNDLE_LATENCY;
    c->cache = RB_BUNDLE_COLD;
    c->routes = 100;
    const double cold[2][TRIALS] = {{50, 40, 50, 40, 50, 40, 50, 40, 50},
                                    {40, 50, 40, 50, 40, 50, 40, 50, 41}};
    for (size_t r = 0; r < 2; r++) rb_bundle_add_result(c, warm[r].name);
    for (uint32_t t = 0; t < TRIALS; t++)
        for (size_t r = 0; r < 2; r++) {
            rb_bundle_trial tr = {
                1, r, t + 1, (uint32_t)r + 1, 1000, (uint64_t)(cold[r][t] * 1000), 0, 0, 0, 0};
            cr_assert_eq(rb_bundle_add_trial(&b, &tr), RB_OK);
        }
    rb_error err;
    cr_assert_eq(rb_bundle_compute_scenario(&b, 1, &err), RB_OK, "%s", err.message);
    char line[1024];
    rb_verdict_conditions(&b, 0, 1, line, sizeof line);
    cr_expect(strstr(line, "cold latency: no significant difference between") != NULL, "%s", line);
    cr_expect(strstr(line, "same winner") == NULL && strstr(line, "changes") == NULL, "%s", line);
    rb_bundle_free(&b);
}

/* summary.json carries the verdict and the conditions, and reads them
 * back (the verdict is recomputed from the results). */
Test(verdict, summary_json_carries_the_verdict_and_reads_the_conditions_back)
{
    router_row rows[] = {{"radix", "trie", PARAMS, STEADY(60), 1, 1},
                         {"hashseg", "hash", PARAMS, STEADY(30), 1, 1}};
    rb_bundle b;
    make_bundle(&b, rows, 2, PARAMS);
    rb_bundle_scenario *s = &b.scenarios[0];
    s->mode = RB_BUNDLE_LATENCY;
    s->cache = RB_BUNDLE_COLD;
    s->app_bytes = 4096;
    s->app_ns = 19.5;
    snprintf(s->auto_choice, sizeof s->auto_choice, "hashseg");
    snprintf(s->refused[0].router, sizeof s->refused[0].router, "chi");
    snprintf(s->refused[0].reason, sizeof s->refused[0].reason, "no globs");
    s->nrefused = 1;
    s->results[1].rss_growth_bytes = 12288;
    rb_buf j = {0};
    rb_error err;
    cr_assert_eq(rb_bundle_json_write(&b, &j, &err), RB_OK);
    cr_expect(strstr(j.data, "\"fastest\":\t\"hashseg\"") != NULL ||
                  strstr(j.data, "\"fastest\": \"hashseg\"") != NULL ||
                  strstr(j.data, "\"fastest\":\"hashseg\"") != NULL,
              "%s", j.data);
    cr_expect(strstr(j.data, "\"auto\":\t\"winner\"") != NULL ||
                  strstr(j.data, "\"auto\": \"winner\"") != NULL ||
                  strstr(j.data, "\"auto\":\"winner\"") != NULL,
              "no auto verdict");
    rb_bundle back;
    cr_assert_eq(rb_bundle_json_read(j.data, j.len, &back, &err), RB_OK, "%s", err.message);
    const rb_bundle_scenario *t = &back.scenarios[0];
    cr_expect_eq(t->mode, RB_BUNDLE_LATENCY);
    cr_expect_eq(t->cache, RB_BUNDLE_COLD);
    cr_expect_eq(t->app_bytes, 4096u);
    cr_expect_float_eq(t->app_ns, 19.5, 1e-12);
    cr_expect_str_eq(t->auto_choice, "hashseg");
    cr_expect_eq(t->nrefused, 1u);
    cr_expect_str_eq(t->refused[0].reason, "no globs");
    cr_expect_eq(t->results[1].rss_growth_bytes, 12288);
    cr_expect_eq(t->results[0].rss_growth_bytes, -1); /* never measured: unknown */
    rb_bundle_free(&back);
    rb_buf_free(&j);
    rb_bundle_free(&b);
}

/* A condition's mode and cache are names in summary.json: an unknown
 * name is an error naming the field, never a condition read as another. */
static int read_with(const char *text, const char *from, const char *to, rb_bundle *back,
                     rb_error *err)
{
    const char *at = strstr(text, from);
    cr_assert(at != NULL, "no %s in summary.json", from);
    rb_buf j = {0};
    rb_buf_printf(&j, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    int rc = rb_bundle_json_read(j.data, j.len, back, err);
    rb_buf_free(&j);
    return rc;
}

Test(verdict, summary_json_rejects_an_unknown_mode_or_cache)
{
    router_row rows[] = {{"radix", "trie", PARAMS, STEADY(60), 1, 1}};
    rb_bundle b, back;
    make_bundle(&b, rows, 1, PARAMS);
    b.scenarios[0].cache = RB_BUNDLE_COLD;
    rb_buf j = {0};
    rb_error err;
    cr_assert_eq(rb_bundle_json_write(&b, &j, &err), RB_OK);
    const char *mode = strstr(j.data, "\"mode\":\t\"throughput\"") ? "\"mode\":\t\"throughput\""
                                                                   : "\"mode\":\"throughput\"";
    const char *cache =
        strstr(j.data, "\"cache\":\t\"cold\"") ? "\"cache\":\t\"cold\"" : "\"cache\":\"cold\"";
    cr_assert_eq(read_with(j.data, mode, "\"mode\":\"Latency\"", &back, &err), RB_EFORMAT);
    cr_expect(strstr(err.message, "\"mode\" is \"Latency\"") != NULL, "%s", err.message);
    cr_assert_eq(read_with(j.data, cache, "\"cache\":\"hot\"", &back, &err), RB_EFORMAT);
    cr_expect(strstr(err.message, "\"cache\" is \"hot\"") != NULL, "%s", err.message);
    /* absent (an older bundle): throughput, warm */
    cr_assert_eq(read_with(j.data, cache, "\"cache_was\":\"cold\"", &back, &err), RB_OK, "%s",
                 err.message);
    cr_expect_eq(back.scenarios[0].cache, RB_BUNDLE_WARM);
    cr_expect_eq(back.scenarios[0].mode, RB_BUNDLE_THROUGHPUT);
    rb_bundle_free(&back);
    cr_assert_eq(read_with(j.data, mode, "\"mode\":\"latency\"", &back, &err), RB_OK, "%s",
                 err.message);
    cr_expect_eq(back.scenarios[0].mode, RB_BUNDLE_LATENCY);
    cr_expect_eq(back.scenarios[0].cache, RB_BUNDLE_COLD);
    rb_bundle_free(&back);
    rb_buf_free(&j);
    rb_bundle_free(&b);
}

/* Regression 110: summary.json named only params, catch-all and glob, so a
 * template table read back from a bundle (report DIR) had lost its
 * templates: the re-rendered verdict said the table needs params only, and
 * a router's templates support was gone. */
Test(verdict, regression_110_summary_json_keeps_every_feature_of_table_and_router)
{
    unsigned all = RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_GLOB | RB_FEAT_TEMPLATE;
    router_row rows[] = {{"glob", "globs", all, STEADY(60), 1, 1},
                         {"hashseg", "hash", PARAMS | RB_FEAT_TEMPLATE, STEADY(30), 1, 1}};
    rb_bundle b;
    make_bundle(&b, rows, 2, PARAMS | RB_FEAT_TEMPLATE);
    rb_buf j = {0};
    rb_error err;
    cr_assert_eq(rb_bundle_json_write(&b, &j, &err), RB_OK);
    rb_bundle back;
    cr_assert_eq(rb_bundle_json_read(j.data, j.len, &back, &err), RB_OK, "%s", err.message);
    cr_expect_eq(back.scenarios[0].features, PARAMS | RB_FEAT_TEMPLATE);
    cr_expect_eq(back.routers[0].features, all);
    cr_expect_eq(back.routers[1].features, PARAMS | RB_FEAT_TEMPLATE);
    rb_verdict before, after;
    cr_assert_eq(rb_verdict_scenario(&b, 0, &before), RB_OK);
    cr_assert_eq(rb_verdict_scenario(&back, 0, &after), RB_OK);
    cr_expect_str_eq(after.text, before.text);
    rb_bundle_free(&back);
    rb_buf_free(&j);
    rb_bundle_free(&b);
}
