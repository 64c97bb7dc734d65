/*
 * test_harness.c — the benchmark harness and its result bundle, by
 * structure only (no timing assertions): trial counts, the rotating order,
 * pairing, checksums, refusal of unstable routers; scenario names; the
 * bundle files written by `routebench run`, their row counts, ratios
 * recomputed from trials.csv with the stats functions, atomic writes, and
 * `routebench report DIR` re-rendering the same report.  Trials are tiny
 * (--min-trial-ms 0.05 to 1) so the suite stays fast.
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle.h"
#include "file.h"
#include "harness.h"
#include "rb_test.h"
#include "scenario.h"
#include "stats.h"
#include "report.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

static void load_shipped(const char *name, rb_route_table *routes, rb_request_table *reqs)
{
    char rpath[4096], qpath[4096];
    rb_error err;
    cr_assert_eq(
        rb_route_table_read(rbt_data_path(name, "routes", rpath, sizeof rpath), routes, &err),
        RB_OK, "%s", err.message);
    cr_assert_eq(
        rb_request_table_read(rbt_data_path(name, "requests", qpath, sizeof qpath), reqs, &err),
        RB_OK, "%s", err.message);
}

static const rb_bench_protocol tiny = {5, 1, 0.05, RB_BENCH_CLOCK_WALL, 0};

/* ---- the measurement core -------------------------------------------------- */

Test(harness, every_router_gets_every_trial_once_in_the_rounds_order)
{
    rb_route_table routes;
    rb_request_table reqs;
    load_shipped("static", &routes, &reqs);
    const rb_router_ops *ops[3] = {rb_registry_find("linear"), rb_registry_find("floor"),
                                   rb_registry_find("linear")};
    rb_bench_run run;
    rb_error err;
    cr_assert_eq(rb_bench_prepare(&run, &routes, &reqs, ops, 3, NULL, &err), RB_OK, "%s",
                 err.message);
    cr_assert_eq(rb_bench_measure(&run, &tiny, NULL, NULL, &err), RB_OK, "%s", err.message);
    size_t nr = 3;
    cr_assert_eq(run.ntrials, nr * tiny.trials);
    bool seen[3][5] = {{false}};
    for (size_t i = 0; i < run.ntrials; i++) {
        const rb_bench_trial *t = &run.trials[i];
        cr_assert_lt(t->subject, nr);
        cr_assert_lt(t->trial, tiny.trials);
        cr_expect_not(seen[t->subject][t->trial], "subject %u trial %u twice", t->subject,
                      t->trial);
        seen[t->subject][t->trial] = true;
        /* round t runs the routers in the order rb_bench_round_orders gave it */
        uint32_t order[5];
        rb_bench_round_orders(tiny.order_seed, tiny.trials, nr, order);
        cr_expect_eq(t->subject, rb_bench_order_router(order[t->trial], t->position, nr));
        /* trials run in execution order: round by round, position by position */
        cr_expect_eq(i, t->trial * nr + t->position);
        cr_expect_eq(t->lookups, run.subjects[t->subject].reps * reqs.count);
        cr_expect_gt(t->ns, 0u);
    }
    for (size_t k = 0; k < nr; k++) cr_expect_geq(run.subjects[k].reps, 1u);
    rb_bench_run_free(&run);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

Test(harness, round_orders_are_balanced_and_shuffled_from_the_seed)
{
    /* Every order is a permutation; with R routers each router holds each
     * position, and precedes each other router, in as many rounds (to
     * within the remainder of rounds / 2R); the sequence is not the old
     * strict rotation, and it is a function of the seed. */
    enum { ROUNDS = 48 };
    for (size_t nr = 2; nr <= 4; nr++) {
        uint32_t order[ROUNDS], again[ROUNDS], other[ROUNDS];
        rb_bench_round_orders(7, ROUNDS, nr, order);
        rb_bench_round_orders(7, ROUNDS, nr, again);
        rb_bench_round_orders(8, ROUNDS, nr, other);
        cr_expect_eq(memcmp(order, again, sizeof order), 0, "same seed, same orders");
        cr_expect_neq(memcmp(order, other, sizeof order), 0, "another seed, other orders");
        size_t at[4][4] = {{0}}, before[4][4] = {{0}}, rotation_like = 0;
        for (size_t t = 0; t < ROUNDS; t++) {
            cr_assert_lt(order[t], 2 * nr);
            bool used[4] = {false};
            size_t pos_of[4];
            for (size_t p = 0; p < nr; p++) {
                size_t k = rb_bench_order_router(order[t], p, nr);
                cr_assert_lt(k, nr);
                cr_expect_not(used[k], "router %zu twice in round %zu", k, t);
                used[k] = true;
                pos_of[k] = p;
                at[k][p]++;
            }
            for (size_t x = 0; x < nr; x++)
                for (size_t y = 0; y < nr; y++)
                    if (pos_of[x] < pos_of[y]) before[x][y]++;
            rotation_like += rb_bench_order_router(order[t], 0, nr) == t % nr;
        }
        for (size_t k = 0; k < nr; k++)
            for (size_t p = 0; p < nr; p++)
                cr_expect_eq(at[k][p], ROUNDS / nr, "%zu routers: router %zu at %zu", nr, k, p);
        for (size_t x = 0; x < nr; x++)
            for (size_t y = 0; y < nr; y++)
                if (x != y) cr_expect_eq(before[x][y], ROUNDS / 2, "%zu before %zu", x, y);
        cr_expect_lt(rotation_like, ROUNDS, "the rounds are shuffled, not rotated in turn");
    }
}

Test(harness, the_protocol_clock_decides_what_a_trial_time_is)
{
    rb_route_table routes;
    rb_request_table reqs;
    load_shipped("static", &routes, &reqs);
    const rb_router_ops *ops[1] = {rb_registry_find("floor")};
    rb_bench_run run;
    rb_error err;
    cr_assert_eq(rb_bench_prepare(&run, &routes, &reqs, ops, 1, NULL, &err), RB_OK);
    rb_bench_protocol cpu = tiny;
    cpu.clock = RB_BENCH_CLOCK_CPU;
    cr_assert_eq(rb_bench_measure(&run, &cpu, NULL, NULL, &err), RB_OK, "%s", err.message);
    for (size_t i = 0; i < run.ntrials; i++) {
        cr_expect_eq(run.trials[i].ns, run.trials[i].cpu_ns);
        cr_expect_gt(run.trials[i].wall_ns, 0u);
    }
    cr_assert_eq(rb_bench_measure(&run, &tiny, NULL, NULL, &err), RB_OK, "%s", err.message);
    for (size_t i = 0; i < run.ntrials; i++) cr_expect_eq(run.trials[i].ns, run.trials[i].wall_ns);
    rb_bench_protocol bad = tiny;
    bad.clock = 7;
    cr_expect_eq(rb_bench_measure(&run, &bad, NULL, NULL, &err), RB_EINVAL);
    bad = tiny;
    bad.trials = 0;
    cr_expect_eq(rb_bench_measure(&run, &bad, NULL, NULL, &err), RB_EINVAL);
    rb_bench_run_free(&run);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

Test(harness, routers_that_agree_have_equal_checksums_and_no_disagreements)
{
    rb_route_table routes;
    rb_request_table reqs;
    load_shipped("static", &routes, &reqs);
    const rb_router_ops *ops[2] = {rb_registry_find("linear"), rb_registry_find("floor")};
    rb_bench_run run;
    rb_error err;
    cr_assert_eq(rb_bench_prepare(&run, &routes, &reqs, ops, 2, NULL, &err), RB_OK);
    cr_expect_eq(run.subjects[0].checksum, run.subjects[1].checksum);
    cr_expect_eq(run.subjects[0].disagree, 0u);
    cr_expect_eq(run.subjects[1].disagree, 0u);
    cr_expect_gt(run.subjects[0].memory, 0u);
    /* the checksum is the sum of the folds of every answer */
    uint64_t sum = 0;
    for (size_t i = 0; i < reqs.count; i++) {
        rb_match m;
        rb_router_lookup(run.subjects[0].router, reqs.reqs[i].method, rb_request_path(&reqs, i),
                         reqs.reqs[i].len, &m);
        sum += rb_bench_fold(&m);
    }
    cr_expect_eq(sum, run.subjects[0].checksum);
    rb_bench_run_free(&run);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

Test(harness, the_fold_sees_every_field_of_an_answer)
{
    rb_match a = {.outcome = RB_FOUND, .route_id = 1, .nparams = 1, .params = {{3, 4}}};
    rb_match b = a;
    b.route_id = 2;
    cr_expect_neq(rb_bench_fold(&a), rb_bench_fold(&b), "route id");
    b = a;
    b.params[0].offset = 4;
    cr_expect_neq(rb_bench_fold(&a), rb_bench_fold(&b), "span offset");
    b = a;
    b.params[0].len = 5;
    cr_expect_neq(rb_bench_fold(&a), rb_bench_fold(&b), "span length");
    rb_match c = {.outcome = RB_METHOD_NOT_ALLOWED, .allowed = 1};
    rb_match d = {.outcome = RB_METHOD_NOT_ALLOWED, .allowed = 3};
    rb_match e = {.outcome = RB_NOT_FOUND, .route_id = 99, .allowed = 7};
    rb_match f = {.outcome = RB_NOT_FOUND};
    cr_expect_neq(rb_bench_fold(&c), rb_bench_fold(&d), "405 mask");
    cr_expect_eq(rb_bench_fold(&e), rb_bench_fold(&f), "404 ignores fields it does not define");
    cr_expect_neq(rb_bench_fold(&c), rb_bench_fold(&f), "outcome");
}

/* A router whose answers change from call to call (a counter in its impl),
 * and one that finds nothing. */
static int fickle_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    (void)method;
    (void)path;
    (void)len;
    unsigned *calls = (unsigned *)(uintptr_t)impl; /* test-only: mutate through const */
    m->outcome = RB_FOUND;
    m->route_id = (*calls)++ / 1000u;
    m->nparams = 0;
    m->allowed = 0;
    return RB_FOUND;
}

static int fake_create(const rb_config *config, void **out, rb_error *err)
{
    (void)err;
    *out = rb_calloc(config->allocator, sizeof(unsigned));
    return *out ? RB_OK : RB_ENOMEM;
}

static int fake_add(void *impl, const rb_route *route, rb_error *err)
{
    (void)impl;
    (void)route;
    (void)err;
    return RB_OK;
}

static int fake_build(void *impl, rb_error *err)
{
    (void)impl;
    (void)err;
    return RB_OK;
}

static size_t fake_memory(const void *impl)
{
    (void)impl;
    return sizeof(unsigned);
}

static void fake_destroy(void *impl)
{
    free(impl);
}

static const rb_router_ops fickle_ops = {.abi_version = RB_ROUTER_ABI_VERSION,
                                         .name = "fickle",
                                         .summary = "test",
                                         .create = fake_create,
                                         .add = fake_add,
                                         .build = fake_build,
                                         .lookup = fickle_lookup,
                                         .memory = fake_memory,
                                         .destroy = fake_destroy};

Test(harness, a_router_whose_answers_change_between_replays_fails_the_run)
{
    rb_route_table routes;
    rb_request_table reqs;
    load_shipped("static", &routes, &reqs);
    const rb_router_ops *ops[2] = {rb_registry_find("floor"), &fickle_ops};
    rb_bench_run run;
    rb_error err;
    cr_assert_eq(rb_bench_prepare(&run, &routes, &reqs, ops, 2, NULL, &err), RB_OK);
    cr_expect_eq(rb_bench_measure(&run, &tiny, NULL, NULL, &err), RB_ESTATE);
    cr_expect(strstr(err.message, "fickle") != NULL, "%s", err.message);
    rb_bench_run_free(&run);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

Test(harness, wrong_answers_are_counted_against_expected)
{
    rb_route_table routes;
    rb_request_table reqs;
    load_shipped("static", &routes, &reqs);
    size_t hits = 0;
    for (size_t i = 0; i < reqs.count; i++) hits += reqs.reqs[i].expected != RB_EXPECT_NOT_FOUND;
    cr_assert_gt(hits, 0u);
    const rb_router_ops *ops[1] = {&rbt_nothing_ops};
    rb_bench_run run;
    rb_error err;
    cr_assert_eq(rb_bench_prepare(&run, &routes, &reqs, ops, 1, NULL, &err), RB_OK);
    cr_expect_eq(run.subjects[0].disagree, hits);
    rb_bench_run_free(&run);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

/* The limit runs on a param table that floor refuses: it is built from the
 * requests, answers every hit with its expected route (no disagreement),
 * and a repeated request whose EXPECTED names another route than its first
 * time counts as one (the limit holds the first). */
Test(harness, the_limit_is_built_from_the_requests_and_checked_on_its_hits)
{
    rb_route_table routes;
    rb_request_table reqs;
    load_shipped("github", &routes, &reqs);
    const rb_router_ops *ops[2] = {rb_registry_find("hashseg"), &rb_bench_limit_ops};
    rb_bench_run run;
    rb_error err;
    cr_assert_eq(rb_bench_prepare(&run, &routes, &reqs, ops, 2, NULL, &err), RB_OK, "%s",
                 err.message);
    cr_expect_eq(run.subjects[0].disagree, 0u);
    cr_expect_eq(run.subjects[1].disagree, 0u);
    cr_expect_neq(run.subjects[1].checksum, run.subjects[0].checksum, "no captures");
    rb_bench_run_free(&run);
    size_t again = 0; /* a hit that repeats an earlier request */
    for (size_t i = 1; i < reqs.count && !again; i++) {
        const rb_request *x = &reqs.reqs[i];
        for (size_t k = 0; k < i && !again && x->expected >= 0; k++)
            if (reqs.reqs[k].method == x->method && reqs.reqs[k].len == x->len &&
                memcmp(rb_request_path(&reqs, k), rb_request_path(&reqs, i), x->len) == 0)
                again = i;
    }
    cr_assert_gt(again, 0u, "github's requests repeat some paths");
    reqs.reqs[again].expected = reqs.reqs[again].expected == 0 ? 1 : 0; /* another route */
    const rb_router_ops *limit[1] = {&rb_bench_limit_ops};
    cr_assert_eq(rb_bench_prepare(&run, &routes, &reqs, limit, 1, NULL, &err), RB_OK, "%s",
                 err.message);
    cr_expect_eq(run.subjects[0].disagree, 1u);
    rb_bench_run_free(&run);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

Test(harness, a_router_lacking_a_feature_fails_prepare_with_its_name)
{
    rb_route_table routes;
    rb_request_table reqs;
    load_shipped("github", &routes, &reqs);
    const rb_router_ops *ops[1] = {rb_registry_find("floor")};
    rb_bench_run run;
    rb_error err;
    cr_expect_eq(rb_bench_prepare(&run, &routes, &reqs, ops, 1, NULL, &err), RB_EUNSUPPORTED);
    cr_expect(strstr(err.message, "floor") != NULL, "%s", err.message);
    cr_expect_eq(run.nsubjects, 0u);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

/* ---- scenario names -------------------------------------------------------- */

Test(scenario, names_expand_as_documented)
{
    rb_scenario_list l = {0};
    rb_error err;
    cr_assert_eq(rb_scenario_list_parse(&l, "default", &err), RB_OK, "%s", err.message);
    cr_assert_eq(l.n, 12u);
    const char *want[] = {"static-100",  "static-1000",  "static-10000",  "params-100",
                          "params-1000", "params-10000", "mixed-100",     "mixed-1000",
                          "mixed-10000", "catchall-100", "catchall-1000", "catchall-10000"};
    for (size_t i = 0; i < 12; i++) {
        cr_expect_str_eq(l.v[i].name, want[i]);
        cr_expect_eq(l.v[i].kind, RB_SCENARIO_GENERATED);
    }
    rb_scenario_list_free(&l);
    cr_assert_eq(rb_scenario_list_parse(&l, "glob,params-7,github,static", &err), RB_OK);
    cr_assert_eq(l.n, 6u);
    cr_expect_str_eq(l.v[2].name, "glob-10000");
    cr_expect_eq(l.v[3].nroutes, 7u);
    cr_expect_str_eq(l.v[3].shape, "params");
    cr_expect_eq(l.v[4].kind, RB_SCENARIO_SHIPPED);
    cr_expect_eq(l.v[5].kind, RB_SCENARIO_SHIPPED, "the shipped 'static' wins over the shape");
    rb_scenario_list_free(&l);
    cr_expect_eq(rb_scenario_list_parse(&l, "github,nosuch", &err), RB_EINVAL);
    cr_expect(strstr(err.message, "nosuch") != NULL);
    cr_expect_eq(rb_scenario_list_parse(&l, "params-0", &err), RB_EINVAL);
    cr_expect_eq(rb_scenario_list_parse(&l, "", &err), RB_EINVAL);
    rb_scenario_list_free(&l);
}

Test(scenario, loading_fingerprints_the_tables)
{
    rb_scenario_list l = {0};
    rb_error err;
    cr_assert_eq(rb_scenario_list_parse(&l, "gplus", &err), RB_OK);
    rb_scenario sc;
    cr_assert_eq(rb_scenario_load(&l.v[0], 1, &sc, &err), RB_OK, "%s", err.message);
    cr_expect_eq(sc.routes.count, 13u);
    cr_expect_eq(sc.routes_fp, rb_route_table_fingerprint(&sc.routes));
    cr_expect_eq(sc.requests_fp, rb_request_table_fingerprint(&sc.requests));
    cr_expect_eq(sc.features, RB_FEAT_PARAMS);
    rb_scenario_free(&sc);
    rb_scenario_list_free(&l);
}

Test(scenario, generated_scenarios_are_deterministic)
{
    rb_scenario_list l = {0};
    rb_error err;
    cr_assert_eq(rb_scenario_list_parse(&l, "params-50,params-50", &err), RB_OK);
    rb_scenario a, b;
    cr_assert_eq(rb_scenario_load(&l.v[0], 7, &a, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_scenario_load(&l.v[1], 7, &b, &err), RB_OK, "%s", err.message);
    cr_expect_eq(a.routes.count, 50u);
    cr_expect_eq(a.requests.count, RB_SCENARIO_REQUESTS);
    cr_expect_neq(a.features & RB_FEAT_PARAMS, 0u);
    cr_expect_eq(a.routes_fp, b.routes_fp);
    cr_expect_eq(a.requests_fp, b.requests_fp);
    rb_scenario_free(&b);
    cr_assert_eq(rb_scenario_load(&l.v[1], 8, &b, &err), RB_OK, "%s", err.message);
    cr_expect_neq(a.routes_fp, b.routes_fp, "another seed, another table");
    rb_scenario_free(&a);
    rb_scenario_free(&b);
    rb_scenario_list_free(&l);
}

/* ---- the bundle written by the CLI ---------------------------------------- */

/* One measured run shared by the bundle tests:
 * static (linear, floor) + gplus (linear only: floor lacks params). */
static void bundle_run(const char *dir)
{
    char args[4096], log[4200];
    snprintf(args, sizeof args,
             "run --routers linear,floor --baseline linear --scenarios static,gplus --trials 3 "
             "--warmup 1 --min-trial-ms 0.05 --seed 9 --out %s/b",
             dir);
    snprintf(log, sizeof log, "%s/log", dir);
    cr_assert_eq(rbt_routebench(args, log), 0, "routebench %s failed (see %s)", args, log);
}

typedef struct csv_row {
    char scenario[64], router[64];
    unsigned trial, position;
    unsigned long long lookups, ns;
} csv_row;

static size_t read_csv(const char *dir, csv_row *rows, size_t cap)
{
    char *text = rbt_slurp(dir, "trials.csv", NULL);
    char *save = NULL;
    char *line = strtok_r(text, "\n", &save);
    cr_assert_str_eq(line, "scenario,router,trial,position,lookups,ns");
    size_t n = 0;
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        cr_assert_lt(n, cap);
        csv_row *r = &rows[n++];
        cr_assert_eq(sscanf(line, "%63[^,],%63[^,],%u,%u,%llu,%llu", r->scenario, r->router,
                            &r->trial, &r->position, &r->lookups, &r->ns),
                     6, "row '%s'", line);
    }
    free(text);
    return n;
}

static const cJSON *item(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    cr_assert_not_null(v, "no \"%s\" in summary.json", key);
    return v;
}

Test(bundle, run_writes_a_complete_bundle_that_recomputes_from_trials_csv, .timeout = 120)
{
    char *tmp = rbt_tmpdir();
    bundle_run(tmp);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/b", tmp);

    /* every file is there, none is empty, no temp file is left behind; of
     * the charts only those with something to plot: two shipped scenarios
     * (no shape at two sizes: no scaling.svg) and linear against floor, a
     * reference (no ratio of routers to compare: no ratio.svg) */
    const char *files[] = {"summary.json", "trials.csv", "report.md",
                           "report.html",  "chart.svg",  "cost.svg"};
    for (size_t i = 0; i < 6; i++) {
        size_t len;
        free(rbt_slurp(dir, files[i], &len));
        cr_expect_gt(len, 0u, "%s is empty", files[i]);
    }
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    size_t entries = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        entries++;
        cr_expect(strstr(e->d_name, ".tmp") == NULL, "temp file left: %s", e->d_name);
    }
    closedir(d);
    cr_expect_eq(entries, 6u);

    /* summary.json parses, with the schema and the protocol we asked for */
    char *json = rbt_slurp(dir, "summary.json", NULL);
    cJSON *root = cJSON_Parse(json);
    cr_assert_not_null(root, "summary.json does not parse");
    cr_expect_str_eq(item(root, "schema")->valuestring, "routebench-summary");
    cr_expect_eq(item(root, "schema_version")->valueint, 2);
    const cJSON *proto = item(root, "protocol");
    cr_expect_eq(item(proto, "trials")->valueint, 3);
    cr_expect_eq(item(proto, "warmup")->valueint, 1);
    cr_expect_str_eq(item(proto, "clock_id")->valuestring, "monotonic");
    cr_expect_eq(item(item(root, "seeds"), "corpus")->valueint, 9);
    cr_expect_str_eq(item(root, "baseline")->valuestring, "linear");
    const cJSON *scenarios = item(root, "scenarios");
    cr_assert_eq(cJSON_GetArraySize(scenarios), 2);

    /* trials.csv: one row per (scenario, router that ran, trial) */
    csv_row rows[64];
    size_t nrows = read_csv(dir, rows, 64);
    size_t want_rows = 0;
    const cJSON *sc;
    cJSON_ArrayForEach(sc, scenarios)
    {
        want_rows += (size_t)cJSON_GetArraySize(item(sc, "results")) * 3;
    }
    cr_expect_eq(want_rows, 9u, "static: linear + floor, gplus: linear only");
    cr_expect_eq(nrows, want_rows);

    /* every statistic recomputes from trials.csv with the stats functions */
    cJSON_ArrayForEach(sc, scenarios)
    {
        const char *sname = item(sc, "name")->valuestring;
        const cJSON *res;
        cJSON_ArrayForEach(res, item(sc, "results"))
        {
            const char *router = item(res, "router")->valuestring;
            double xs[3], scratch[3], med, lo, hi;
            size_t n = 0;
            for (size_t i = 0; i < nrows; i++) {
                if (strcmp(rows[i].scenario, sname) || strcmp(rows[i].router, router)) continue;
                cr_assert(rows[i].trial >= 1 && rows[i].trial <= 3);
                xs[rows[i].trial - 1] = (double)rows[i].ns / (double)rows[i].lookups;
                n++;
            }
            cr_assert_eq(n, 3u, "%s/%s", sname, router);
            rb_stats_median(xs, 3, &med, scratch);
            rb_stats_minmax(xs, 3, &lo, &hi);
            cr_expect_eq(item(res, "median_ns")->valuedouble, med, "%s/%s median", sname, router);
            cr_expect_eq(item(res, "min_ns")->valuedouble, lo);
            cr_expect_eq(item(res, "max_ns")->valuedouble, hi);
        }
        const cJSON *pair;
        size_t npairs = 0;
        cJSON_ArrayForEach(pair, item(sc, "pairs"))
        {
            npairs++;
            const char *a = item(pair, "a")->valuestring, *b = item(pair, "b")->valuestring;
            double ta[3], tb[3];
            for (size_t i = 0; i < nrows; i++) {
                if (strcmp(rows[i].scenario, sname) != 0) continue;
                double v = (double)rows[i].ns / (double)rows[i].lookups;
                if (strcmp(rows[i].router, a) == 0) ta[rows[i].trial - 1] = v;
                if (strcmp(rows[i].router, b) == 0) tb[rows[i].trial - 1] = v;
            }
            rb_paired_result r;
            cr_assert_eq(rb_stats_paired(ta, tb, 3, NULL, &r), 0);
            cr_expect_eq(item(pair, "median")->valuedouble, r.median, "%s %s/%s", sname, a, b);
            cr_expect_eq(item(pair, "lo")->valuedouble, r.lo);
            cr_expect_eq(item(pair, "hi")->valuedouble, r.hi);
            cr_expect_eq((size_t)item(pair, "wins")->valueint, r.wins);
            cr_expect_eq(cJSON_IsTrue(item(pair, "excludes_one")), r.excludes_one != 0);
        }
        size_t nres = (size_t)cJSON_GetArraySize(item(sc, "results"));
        cr_expect_eq(npairs, nres * (nres - 1) / 2);
    }
    /* positions: within a round, the routers of a scenario take 1..R */
    for (size_t i = 0; i < nrows; i++) {
        if (strcmp(rows[i].scenario, "static") != 0) continue;
        cr_expect(rows[i].position == 1 || rows[i].position == 2);
        for (size_t k = 0; k < nrows; k++)
            if (k != i && strcmp(rows[k].scenario, "static") == 0 && rows[k].trial == rows[i].trial)
                cr_expect_neq(rows[k].position, rows[i].position, "a pair shares a position");
    }
    cJSON_Delete(root);
    free(json);

    /* `routebench report DIR` renders byte-identical files and finds the
     * statistics equal to trials.csv */
    char *md1 = rbt_slurp(dir, "report.md", NULL), *svg1 = rbt_slurp(dir, "chart.svg", NULL);
    char *sc1 = rbt_slurp(dir, "cost.svg", NULL);
    cr_expect(strstr(md1, "(chart.svg)") && strstr(md1, "(cost.svg)"), "report.md links them");
    cr_expect(!strstr(md1, "scaling.svg") && !strstr(md1, "ratio.svg"),
              "report.md links no chart that was not written");
    char args[4200], log[4200];
    snprintf(args, sizeof args, "report %s", dir);
    snprintf(log, sizeof log, "%s/report.log", tmp);
    cr_expect_eq(rbt_routebench(args, log), 0);
    char *md2 = rbt_slurp(dir, "report.md", NULL), *svg2 = rbt_slurp(dir, "chart.svg", NULL);
    char *sc2 = rbt_slurp(dir, "cost.svg", NULL);
    cr_expect_str_eq(md2, md1);
    cr_expect_str_eq(svg2, svg1);
    cr_expect_str_eq(sc2, sc1);
    cr_expect(strstr(md1, "not HTTP requests per second") || strstr(md1, "Not HTTP requests"),
              "report.md says what it does not measure");
    cr_expect(strstr(md1, "floor (reference)") != NULL, "the floor is labelled a reference");
    char *rlog = rbt_slurp(tmp, "report.log", NULL);
    cr_expect(strstr(rlog, ": 0 differ") != NULL, "%s", rlog);
    free(rlog);
    free(md1), free(md2), free(svg1), free(svg2), free(sc1), free(sc2);
    rbt_remove_tree(tmp);
    free(tmp);
}

Test(bundle, report_finds_a_summary_that_disagrees_with_trials_csv, .timeout = 120)
{
    char *tmp = rbt_tmpdir();
    bundle_run(tmp);
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/b", tmp);
    /* double every ns of the first row: the medians no longer match */
    size_t len;
    char *csv = rbt_slurp(dir, "trials.csv", &len);
    char *row = strchr(csv, '\n') + 1, *end = strchr(row, '\n');
    char *last = end;
    while (last[-1] != ',') last--;
    unsigned long long ns = strtoull(last, NULL, 10);
    rb_buf out = {0};
    rb_buf_append(&out, csv, (size_t)(last - csv));
    rb_buf_printf(&out, "%llu", ns * 2 + 1);
    rb_buf_puts(&out, end);
    snprintf(path, sizeof path, "%s/trials.csv", dir);
    rb_error err;
    cr_assert_eq(rb_file_write_atomic(path, out.data, out.len, &err), RB_OK);
    char args[4200], log[4200];
    snprintf(args, sizeof args, "report %s", dir);
    snprintf(log, sizeof log, "%s/report.log", tmp);
    char *md_before = rbt_slurp(dir, "report.md", NULL);
    snprintf(path, sizeof path, "%s/report.md", dir);
    struct stat st_before, st_after;
    cr_assert_eq(stat(path, &st_before), 0);
    cr_expect_eq(rbt_routebench(args, log), 1, "exit 1: summary.json disagrees with trials.csv");
    /* regression 13: report said only how many statistics
     * differed, and rewrote report.md from the tampered bundle anyway */
    char *rlog = rbt_slurp(tmp, "report.log", NULL);
    cr_expect(strstr(rlog, "routebench report: ") == rlog, "%s", rlog);
    cr_expect(strstr(rlog, "_ns is ") && strstr(rlog, " in summary.json, ") &&
                  strstr(rlog, " from trials.csv"),
              "the first differing statistic with both values: %s", rlog);
    cr_expect(strstr(rlog, "router linear") || strstr(rlog, "router floor"), "%s", rlog);
    cr_expect(strstr(rlog, "left as they were") != NULL, "%s", rlog);
    char *md_after = rbt_slurp(dir, "report.md", NULL);
    cr_assert_eq(stat(path, &st_after), 0);
    cr_expect_str_eq(md_after, md_before, "report.md is not rewritten");
    cr_expect_eq(st_after.st_ino, st_before.st_ino, "report.md is not replaced");
    free(rlog);
    free(md_before);
    free(md_after);
    rb_buf_free(&out);
    free(csv);
    rbt_remove_tree(tmp);
    free(tmp);
}

Test(bundle, json_and_csv_round_trip_exactly)
{
    rb_bundle b;
    rb_bundle_init(&b);
    snprintf(b.version, sizeof b.version, "9.9");
    snprintf(b.baseline, sizeof b.baseline, "linear");
    b.trials = 3;
    b.warmup = 1;
    b.min_trial_ms = 0.1;
    b.seed = 12345;
    cr_assert_eq(rb_bundle_add_router(&b, "linear", "reference oracle", 7), RB_OK);
    cr_assert_eq(rb_bundle_add_router(&b, "floor", "reference: the limit", 0), RB_OK);
    cr_assert_eq(rb_bundle_add_standard_limitations(&b), RB_OK);
    rb_bundle_scenario *s = rb_bundle_add_scenario(&b);
    snprintf(s->name, sizeof s->name, "odd, \"name\"");
    snprintf(s->kind, sizeof s->kind, "files");
    s->routes = 3;
    s->requests = 4;
    s->routes_fp = UINT64_C(0xfedcba9876543210);
    rb_bundle_add_result(s, "linear")->checksum = UINT64_MAX;
    rb_bundle_add_result(s, "floor")->memory_bytes = 1000;
    /* ns values whose quotients need all 17 digits */
    uint64_t ns[2][3] = {{1000001, 1000003, 999999}, {333337, 333331, 333333}};
    for (uint32_t t = 0; t < 3; t++)
        for (size_t r = 0; r < 2; r++) {
            rb_bundle_trial tr = {.scenario = 0,
                                  .result = r,
                                  .trial = t + 1,
                                  .position = (uint32_t)((t + r) % 2) + 1,
                                  .lookups = 3,
                                  .ns = ns[r][t]};
            cr_assert_eq(rb_bundle_add_trial(&b, &tr), RB_OK);
        }
    rb_error err;
    cr_assert_eq(rb_bundle_compute_scenario(&b, 0, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_bundle_compute_geomeans(&b, &err), RB_OK, "%s", err.message);
    cr_expect_eq(b.ngeomeans, 1u);

    rb_buf j1 = {0}, c1 = {0}, j2 = {0}, c2 = {0};
    cr_assert_eq(rb_bundle_json_write(&b, &j1, &err), RB_OK);
    cr_assert_eq(rb_bundle_csv_write(&b, &c1, &err), RB_OK);
    cr_expect(strstr(c1.data, "\"odd, \"\"name\"\"\",linear,1,") != NULL, "%s", c1.data);
    rb_bundle back;
    cr_assert_eq(rb_bundle_json_read(j1.data, j1.len, &back, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_bundle_csv_read(c1.data, c1.len, &back, &err), RB_OK, "%s", err.message);
    cr_expect_eq(back.ntrials, 6u);
    cr_expect_eq(back.scenarios[0].routes_fp, s->routes_fp);
    cr_expect_eq(back.scenarios[0].results[0].checksum, UINT64_MAX);
    cr_expect_eq(back.scenarios[0].pairs[0].r.median, s->pairs[0].r.median);
    cr_expect_eq(back.scenarios[0].results[1].median_ns, s->results[1].median_ns);
    cr_expect(back.routers[1].reference);
    cr_assert_eq(rb_bundle_json_write(&back, &j2, &err), RB_OK);
    cr_assert_eq(rb_bundle_csv_write(&back, &c2, &err), RB_OK);
    cr_expect_str_eq(j2.data, j1.data);
    cr_expect_str_eq(c2.data, c1.data);
    rb_buf r1 = {0}, r2 = {0};
    cr_assert_eq(rb_bundle_report_md(&b, &r1, &err), RB_OK);
    cr_assert_eq(rb_bundle_report_md(&back, &r2, &err), RB_OK);
    cr_expect_str_eq(r2.data, r1.data);
    rb_buf_free(&j1), rb_buf_free(&j2), rb_buf_free(&c1), rb_buf_free(&c2);
    rb_buf_free(&r1), rb_buf_free(&r2);
    rb_bundle_free(&back);
    rb_bundle_free(&b);
}

Test(bundle, malformed_csv_rows_name_their_line)
{
    rb_bundle b;
    rb_bundle_init(&b);
    rb_bundle_scenario *s = rb_bundle_add_scenario(&b);
    snprintf(s->name, sizeof s->name, "x");
    rb_bundle_add_result(s, "linear");
    const char *bad[] = {
        "scenario,router,trial,position,lookups,ns\nx,linear,1,1,10\n",
        "scenario,router,trial,position,lookups,ns\nx,linear,1,1,10,5,6\n",
        "scenario,router,trial,position,lookups,ns\nx,linear,0,1,10,5\n",
        "scenario,router,trial,position,lookups,ns\nx,radix,1,1,10,5\n",
        "scenario,router,trial,position,lookups,ns\ny,linear,1,1,10,5\n",
        "scenario,router,trial,position,lookups,ns\nx,linear,1,1,-10,5\n",
        "scenario,router\nx,linear\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rb_error err = {0};
        cr_expect_eq(rb_bundle_csv_read(bad[i], strlen(bad[i]), &b, &err), RB_EFORMAT, "%s",
                     bad[i]);
        cr_expect_eq(err.line, i + 1 == sizeof bad / sizeof bad[0] ? 1u : 2u, "%s", err.message);
    }
    const char *good = "scenario,router,trial,position,lookups,ns\r\nx,linear,1,1,10,5\r\n";
    rb_error err;
    cr_expect_eq(rb_bundle_csv_read(good, strlen(good), &b, &err), RB_OK, "%s", err.message);
    cr_expect_eq(b.ntrials, 1u);
    rb_bundle_free(&b);
}

/* ---- the CLI's contract ---------------------------------------------------- */

Test(cli, usage_errors_exit_2_and_the_pair_gate_exits_1, .timeout = 120)
{
    char *tmp = rbt_tmpdir();
    char log[4200];
    snprintf(log, sizeof log, "%s/log", tmp);
    cr_expect_eq(rbt_routebench("run --no-such-option", log), 2);
    cr_expect_eq(rbt_routebench("run --routers nosuch", log), 2);
    cr_expect_eq(rbt_routebench("run --routes /dev/null", log), 2, "--routes without --requests");
    cr_expect_eq(rbt_routebench("run --scenarios nosuch", log), 2);
    cr_expect_eq(rbt_routebench("run --trials 0", log), 2);
    cr_expect_eq(rbt_routebench("run --clock sundial", log), 2);
    cr_expect_eq(rbt_routebench("pair --a linear", log), 2);
    cr_expect_eq(rbt_routebench("pair --a linear --b linear", log), 2);
    cr_expect_eq(rbt_routebench("report", log), 2);
    cr_expect_eq(rbt_routebench("report /nonexistent/dir", log), 2);
    /* floor vs linear on a static table: the speed ratio lies far from the
     * threshold 0.5 either way round (it is a ratio of a hash lookup to a
     * scan of 157 routes), so these gates do not depend on the timing of
     * the machine */
    cr_expect_eq(rbt_routebench("run --metric furlongs", log), 2);
    cr_expect_eq(rbt_routebench("pair --a linear --b floor --scenario static --trials 6 "
                                "--fail-below 0.97",
                                log),
                 2, "a gate of fewer than 7 pairs is a usage error");
    const char *gate = "--scenario static --trials 9 --min-trial-ms 5 --fail-below 0.5";
    char args[512];
    snprintf(args, sizeof args, "pair --baseline linear --candidate floor %s", gate);
    cr_expect_eq(rbt_routebench(args, log), 0, "an interval above the gate passes");
    snprintf(args, sizeof args, "pair --baseline floor --candidate linear %s", gate);
    cr_expect_eq(rbt_routebench(args, log), 1, "an interval wholly below the gate fails");
    char *out = rbt_slurp(tmp, "log", NULL);
    cr_expect(strstr(out, "FAILED") != NULL, "%s", out);
    free(out);
    rbt_remove_tree(tmp);
    free(tmp);
}
