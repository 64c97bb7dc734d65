/*
 * session.c — the measured session shared by `run` and `pair` (session.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "session.h"

#include "cli.h"
#include "library_id.h"
#include "router_impl.h"
#include "sysinfo.h"

#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void session_options_init(session_options *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->proto = (rb_bench_protocol){RB_BENCH_DEFAULT_TRIALS, RB_BENCH_DEFAULT_WARMUP,
                                   RB_BENCH_DEFAULT_MIN_TRIAL_MS, RB_BENCH_CLOCK_WALL, 0};
    o->metric = RB_METRIC_TIME;
    o->seed = RB_SCENARIO_DEFAULT_SEED;
    o->cpu = -1;
    rb_plugins_init(&o->plugins);
}

void session_options_free(session_options *o)
{
    rb_scenario_list_free(&o->scenarios);
    rb_plugins_close(&o->plugins);
}

int session_add_ops(session_options *o, const rb_router_ops *ops, const char *label)
{
    for (size_t k = 0; k < o->nrouters; k++)
        if (o->routers[k] == ops) return CLI_OK;
    if (o->nrouters == sizeof o->routers / sizeof o->routers[0]) {
        fprintf(stderr, "routebench %s: at most %zu routers at once\n", o->cmd,
                sizeof o->routers / sizeof o->routers[0]);
        return CLI_USAGE;
    }
    o->routers[o->nrouters] = ops;
    snprintf(o->labels[o->nrouters], sizeof o->labels[0], "%s", label);
    o->nrouters++;
    return CLI_OK;
}

int session_add_router(session_options *o, const char *spec)
{
    const rb_router_ops *ops = cli_router(&o->plugins, o->cmd, spec);
    if (!ops) return CLI_USAGE;
    bool builtin = rb_registry_find(rb_ops_name(ops)) == ops;
    return session_add_ops(o, ops, builtin ? rb_ops_name(ops) : spec);
}

int session_option(session_options *o, int argc, char **argv, int *i)
{
    const char *v = NULL;
    unsigned long long u;
    double d;
    rb_error err;
    if (cli_opt(argc, argv, i, "--scenarios", &v) || cli_opt(argc, argv, i, "--scenario", &v)) {
        if (!v) return -1;
        if (rb_scenario_list_parse(&o->scenarios, v, &err) < 0) {
            fprintf(stderr, "routebench %s: %s\n", o->cmd, err.message);
            return -1;
        }
        o->scenarios_given = true;
    } else if (cli_opt(argc, argv, i, "--routes", &v)) {
        if (!v) return -1;
        o->routes_file = v;
    } else if (cli_opt(argc, argv, i, "--requests", &v)) {
        if (!v) return -1;
        o->requests_file = v;
    } else if (cli_opt(argc, argv, i, "--trials", &v)) {
        if (!v || !cli_parse_u64("--trials", v, 1, 100000, &u)) return -1;
        o->proto.trials = (unsigned)u;
        o->trials_given = true;
    } else if (cli_opt(argc, argv, i, "--warmup", &v)) {
        if (!v || !cli_parse_u64("--warmup", v, 0, 1000, &u)) return -1;
        o->proto.warmup = (unsigned)u;
    } else if (cli_opt(argc, argv, i, "--min-trial-ms", &v)) {
        if (!v || !cli_parse_double("--min-trial-ms", v, 0.001, 600000, &d)) return -1;
        o->proto.min_trial_ms = d;
    } else if (cli_opt(argc, argv, i, "--seed", &v)) {
        /* seeds are JSON numbers in summary.json: at most 2^53 - 1 */
        if (!v || !cli_parse_u64("--seed", v, 0, (1ull << 53) - 1, &u)) return -1;
        o->seed = u;
    } else if (cli_opt(argc, argv, i, "--cpu", &v)) {
        if (!v || !cli_parse_u64("--cpu", v, 0, 4095, &u)) return -1;
        o->cpu = (int)u;
    } else if (cli_opt(argc, argv, i, "--clock", &v)) {
        if (!v) return -1;
        if (strcmp(v, "wall") == 0) {
            o->proto.clock = RB_BENCH_CLOCK_WALL;
        } else if (strcmp(v, "cpu") == 0) {
            o->proto.clock = RB_BENCH_CLOCK_CPU;
        } else {
            fprintf(stderr, "routebench %s: --clock is wall or cpu, not '%s'\n", o->cmd, v);
            return -1;
        }
    } else if (cli_opt(argc, argv, i, "--metric", &v)) {
        if (!v) return -1;
        int m = rb_metric_parse(v);
        if (m < 0) {
            fprintf(stderr,
                    "routebench %s: --metric is time, instructions, cycles-est or "
                    "hw-instructions, not '%s'\n",
                    o->cmd, v);
            return -1;
        }
        o->metric = m;
    } else if (cli_opt(argc, argv, i, "--router-lib", &v)) {
        if (!v || !cli_router_lib(&o->plugins, o->cmd, v)) return -1;
    } else if (cli_opt(argc, argv, i, "--out", &v)) {
        if (!v) return -1;
        o->out = v;
    } else {
        return 0;
    }
    return 1;
}

int session_finish_scenarios(session_options *o)
{
    rb_error err;
    if (!o->routes_file != !o->requests_file) {
        fprintf(stderr, "routebench %s: --routes and --requests go together\n", o->cmd);
        return CLI_USAGE;
    }
    if (o->routes_file) {
        if (rb_scenario_list_add_files(&o->scenarios, o->routes_file, o->requests_file, &err) < 0) {
            fprintf(stderr, "routebench %s: %s\n", o->cmd, err.message);
            return CLI_USAGE;
        }
        o->scenarios_given = true;
    }
    if (!o->scenarios_given && rb_scenario_list_parse(&o->scenarios, "default", &err) < 0) {
        fprintf(stderr, "routebench %s: %s\n", o->cmd, err.message);
        return CLI_USAGE;
    }
    return CLI_OK;
}

int session_metric_dispatch(session_options *o, int argc, char **argv, bool *handled)
{
    rb_error err;
    *handled = false;
    if (o->metric == RB_METRIC_HW_INSTRUCTIONS) {
        rb_perf_counter c;
        if (rb_perf_open(&c, &err) < 0) {
            fprintf(stderr,
                    "routebench %s: --metric hw-instructions: %s; --metric instructions counts "
                    "instructions exactly with Callgrind instead\n",
                    o->cmd, err.message);
            *handled = true;
            return CLI_USAGE;
        }
        rb_perf_close(&c);
        return CLI_OK;
    }
    if (!rb_metric_exact(o->metric) || rb_callgrind_child()) return CLI_OK;
    *handled = true;
    if (rb_callgrind_under_valgrind()) {
        fprintf(stderr,
                "routebench %s: --metric %s starts Callgrind itself; run routebench without "
                "valgrind\n",
                o->cmd, rb_metric_name(o->metric));
        return CLI_USAGE;
    }
    int status = CLI_USAGE;
    fflush(stdout);
    if (rb_callgrind_run(argc, argv, o->metric == RB_METRIC_CYCLES_EST, &status, &err) < 0) {
        fprintf(stderr, "routebench %s: --metric %s: %s\n", o->cmd, rb_metric_name(o->metric),
                err.message);
        return CLI_USAGE;
    }
    return status;
}

/* ---- progress on stderr -------------------------------------------------- */

typedef struct progress {
    size_t scenario, scenarios;
    const char *name;
    bool tty;
    uint64_t last_ns;
    const session_options *o; /* for router labels */
} progress;

static const char *label_of(const session_options *o, const rb_router_ops *ops)
{
    for (size_t k = 0; k < o->nrouters; k++)
        if (o->routers[k] == ops) return o->labels[k];
    return rb_ops_name(ops);
}

static void progress_note(progress *p, const char *what)
{
    if (p->tty)
        fprintf(stderr, "\r\033[K[%zu/%zu] %s: %s", p->scenario, p->scenarios, p->name, what);
    else
        fprintf(stderr, "[%zu/%zu] %s: %s\n", p->scenario, p->scenarios, p->name, what);
    fflush(stderr);
}

static void on_progress(void *ctx, const char *what, const rb_bench_subject *s, size_t done,
                        size_t total)
{
    progress *p = ctx;
    if (!p->tty) {
        /* in a log, one line per phase is enough */
        if (done == 0 && total != 0) progress_note(p, "measuring");
        return;
    }
    uint64_t now = rb_bench_now_ns();
    if (now - p->last_ns < 100000000ull && done != 0) return;
    p->last_ns = now;
    char line[256];
    if (total)
        snprintf(line, sizeof line, "%s %zu/%zu (%s)", what, done + 1, total,
                 label_of(p->o, s->ops));
    else
        snprintf(line, sizeof line, "%s %s", what, label_of(p->o, s->ops));
    progress_note(p, line);
}

static void progress_done(progress *p)
{
    if (p->tty) fprintf(stderr, "\r\033[K");
}

/* ---- the session --------------------------------------------------------- */

/* The identity of every NAME@LIB router's library into the bundle. */
static int add_libraries(const session_options *o, rb_bundle *b)
{
    for (size_t k = 0; k < o->nrouters; k++) {
        size_t lib = rb_plugins_lib_of(&o->plugins, o->routers[k]);
        if (lib == SIZE_MAX) continue;
        rb_bundle_library id;
        rb_error err;
        if (rb_library_identify(o->labels[k], o->plugins.libs[lib].path,
                                o->plugins.libs[lib].commit, &id, &err) < 0 ||
            rb_bundle_add_library(b, &id) < 0) {
            fprintf(stderr, "routebench %s: %s: %s\n", o->cmd, o->labels[k], err.message);
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

static void command_line(rb_bundle *b, int argc, char **argv)
{
    size_t n = 0, cap = sizeof b->command;
    n += (size_t)snprintf(b->command, cap, "routebench");
    for (int i = 0; i < argc && n < cap; i++) {
        bool quote = strpbrk(argv[i], " \t'\"$") != NULL || !*argv[i];
        n += (size_t)snprintf(b->command + n, cap - n, quote ? " '%s'" : " %s", argv[i]);
    }
}

static void print_header_line(const rb_bundle *b, const char *anchor)
{
    char ratio[96];
    if (b->metric == RB_METRIC_INSTRUCTIONS) {
        snprintf(ratio, sizeof ratio, "speed vs %s", anchor);
        printf("  %-20s %14s %11s %9s  %s\n", "router", "instr/lookup", "bytes/route", "build",
               ratio);
        return;
    }
    if (b->metric == RB_METRIC_CYCLES_EST) {
        snprintf(ratio, sizeof ratio, "speed vs %s", anchor);
        printf("  %-20s %12s %12s %10s %10s %11s %9s  %s\n", "router", "cycles-est", "instr",
               "L1 miss", "LL miss", "bytes/route", "build", ratio);
        return;
    }
    snprintf(ratio, sizeof ratio, "speed vs %s [95%% CI] MDE", anchor);
    printf("  %-20s %10s %19s %10s %11s %9s  %-36s %5s\n", "router",
           b->metric == RB_METRIC_HW_INSTRUCTIONS ? "hw instr" : "ns/lookup", "min - max",
           "lookups/s", "bytes/route", "build", ratio, "wins");
}

/* The per-lookup columns of one result row, by metric. */
static void print_values(const rb_bundle *b, const rb_bundle_result *r, const char *name)
{
    char build[32];
    rb_bundle_fmt_duration((double)r->build_ns, build, sizeof build);
    if (b->metric == RB_METRIC_INSTRUCTIONS) {
        printf("  %-20s %14.2f %11.1f %9s  ", name, r->median_ns, r->bytes_per_route, build);
        return;
    }
    if (b->metric == RB_METRIC_CYCLES_EST) {
        printf("  %-20s %12.2f %12.2f %10.3f %10.3f %11.1f %9s  ", name, r->median_ns,
               r->ir_per_lookup, r->l1_misses_per_lookup, r->ll_misses_per_lookup,
               r->bytes_per_route, build);
        return;
    }
    char med[32], mn[32], mx[32], range[80], rate[32];
    rb_bundle_fmt_value(b, r->median_ns, med, sizeof med);
    rb_bundle_fmt_value(b, r->min_ns, mn, sizeof mn);
    rb_bundle_fmt_value(b, r->max_ns, mx, sizeof mx);
    snprintf(range, sizeof range, "%s - %s", mn, mx);
    if (b->metric == RB_METRIC_TIME)
        rb_bundle_fmt_rate(r->lookups_per_s, rate, sizeof rate);
    else
        snprintf(rate, sizeof rate, "-");
    printf("  %-20s %10s %19s %10s %11.1f %9s  ", name, med, range, rate, r->bytes_per_route,
           build);
}

void session_print_ratio(const rb_bundle *b, const rb_paired_result *r)
{
    char m[32], lo[32], hi[32], mde[32], cell[128];
    if (rb_metric_exact(b->metric)) {
        rb_bundle_fmt_exact_ratio(r->median, m, sizeof m);
        printf("%s exact", m);
        return;
    }
    rb_bundle_fmt_ratio(r->median, m, sizeof m);
    if (r->too_few) {
        snprintf(cell, sizeof cell, "%s (too few pairs)", m);
        printf("%-36s %2zu/%zu", cell, r->wins, r->n);
        return;
    }
    rb_bundle_fmt_ratio(r->lo, lo, sizeof lo);
    rb_bundle_fmt_ratio(r->hi, hi, sizeof hi);
    rb_gate_fmt_mde(r->mde, false, mde, sizeof mde);
    snprintf(cell, sizeof cell, "%s%s [%s, %s] %s", m, r->excludes_one ? "" : "~", lo, hi, mde);
    printf("%-36s %2zu/%zu", cell, r->wins, r->n);
}

static void print_scenario(const rb_bundle *b, const rb_bundle_scenario *s)
{
    printf("\n%s: %zu routes, %zu requests (fingerprints %016llx %016llx)\n", s->name, s->routes,
           s->requests, (unsigned long long)s->routes_fp, (unsigned long long)s->requests_fp);
    if (*s->skipped) printf("  not run (a route feature they lack): %s\n", s->skipped);
    if (!s->nresults) return;
    print_header_line(b, s->results[0].router);
    for (size_t i = 0; i < s->nresults; i++) {
        const rb_bundle_result *r = &s->results[i];
        char name[RB_BUNDLE_NAME + 16];
        rb_bundle_label(b, r->router, true, name, sizeof name);
        print_values(b, r, name);
        const rb_bundle_pair *p =
            i ? rb_bundle_find_pair(s, s->results[0].router, r->router) : NULL;
        if (p)
            session_print_ratio(b, &p->r);
        else
            printf("%s",
                   strcmp(r->router, b->baseline) == 0 ? "baseline" : "(first: ratios vs it)");
        printf("\n");
        if (r->disagreements)
            printf("  ** %s disagreed with the expected answer on %llu requests%s **\n", r->router,
                   (unsigned long long)r->disagreements,
                   rb_bundle_router_info(b, r->router) && rb_bundle_router_info(b, r->router)->peer
                       ? " (a peer: not held to our semantics)"
                       : "");
    }
    bool same = true;
    for (size_t i = 1; i < s->nresults; i++)
        same = same && s->results[i].checksum == s->results[0].checksum;
    if (same)
        printf("  checksum %016llx (every router gave the same answers)\n",
               (unsigned long long)s->results[0].checksum);
    else {
        /* group the routers by checksum */
        printf("  checksums differ (the routers' answers differ):\n");
        for (size_t i = 0; i < s->nresults; i++) {
            bool first = true;
            for (size_t k = 0; k < i; k++)
                first = first && s->results[k].checksum != s->results[i].checksum;
            if (!first) continue;
            printf("    %016llx", (unsigned long long)s->results[i].checksum);
            for (size_t k = i; k < s->nresults; k++) {
                if (s->results[k].checksum != s->results[i].checksum) continue;
                char name[RB_BUNDLE_NAME + 16];
                printf(" %s", rb_bundle_label(b, s->results[k].router, true, name, sizeof name));
            }
            printf("\n");
        }
    }
}

static void print_geomeans(const rb_bundle *b)
{
    if (!b->ngeomeans) return;
    printf("\nacross scenarios: geometric mean of the median speed ratios vs %s (above 1: "
           "faster)\n",
           b->baseline);
    for (size_t i = 0; i < b->ngeomeans; i++) {
        const rb_bundle_geomean *g = &b->geomeans[i];
        char name[RB_BUNDLE_NAME + 16], cell[128];
        rb_bundle_label(b, g->router, true, name, sizeof name);
        session_geomean_cell(b, &g->g, cell, sizeof cell);
        printf("  %-20s %s over %zu scenario%s\n", name, cell, g->g.scenarios,
               g->g.scenarios == 1 ? "" : "s");
    }
}

void session_geomean_cell(const rb_bundle *b, const rb_geomean_result *g, char *buf, size_t cap)
{
    char m[32], lo[32], hi[32], mde[32];
    if (rb_metric_exact(b->metric)) {
        rb_bundle_fmt_exact_ratio(g->geomean, m, sizeof m);
        snprintf(buf, cap, "%s exact", m);
        return;
    }
    rb_bundle_fmt_ratio(g->geomean, m, sizeof m);
    if (g->too_few) {
        snprintf(buf, cap, "%s (too few pairs)", m);
        return;
    }
    rb_bundle_fmt_ratio(g->lo, lo, sizeof lo);
    rb_bundle_fmt_ratio(g->hi, hi, sizeof hi);
    rb_gate_fmt_mde(g->mde, false, mde, sizeof mde);
    snprintf(buf, cap, "%s%s [%s, %s] %s", m, g->excludes_one ? "" : "~", lo, hi, mde);
}

/* Put one loaded, measured scenario into the bundle. */
static int bundle_scenario(const session_options *o, rb_bundle *b, const rb_scenario *sc,
                           const rb_bench_run *run, const char *skipped, rb_error *err)
{
    rb_bundle_scenario *s = rb_bundle_add_scenario(b);
    if (!s) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    size_t si = b->nscenarios - 1;
    snprintf(s->name, sizeof s->name, "%s", sc->spec.name);
    static const char *const kinds[] = {"generated", "shipped", "files"};
    snprintf(s->kind, sizeof s->kind, "%s", kinds[sc->spec.kind]);
    if (sc->spec.kind == RB_SCENARIO_GENERATED) {
        snprintf(s->shape, sizeof s->shape, "%s", sc->spec.shape);
        s->seed = sc->seed;
        snprintf(s->routes_source, sizeof s->routes_source,
                 "generated: routebench corpus gen --shape %s --routes %zu --seed %llu --out "
                 "PREFIX",
                 sc->spec.shape, sc->spec.nroutes, (unsigned long long)sc->seed);
        snprintf(s->requests_source, sizeof s->requests_source,
                 "generated with the routes: %u requests, %.0f%% misses, 5%% of hits with "
                 "another method, EXPECTED from linear",
                 RB_SCENARIO_REQUESTS, RB_SCENARIO_MISS * 100);
    } else if (sc->spec.kind == RB_SCENARIO_SHIPPED) {
        /* the project's own files: a path that means the same on every machine */
        snprintf(s->routes_source, sizeof s->routes_source, "corpus/data/%s.routes", sc->spec.name);
        snprintf(s->requests_source, sizeof s->requests_source, "corpus/data/%s.requests",
                 sc->spec.name);
    } else {
        snprintf(s->routes_source, sizeof s->routes_source, "%s", sc->spec.routes_path);
        snprintf(s->requests_source, sizeof s->requests_source, "%s", sc->spec.requests_path);
    }
    s->routes = sc->routes.count;
    s->requests = sc->requests.count;
    s->routes_fp = sc->routes_fp;
    s->requests_fp = sc->requests_fp;
    s->features = sc->features;
    snprintf(s->skipped, sizeof s->skipped, "%s", skipped);
    for (size_t k = 0; k < run->nsubjects; k++) {
        const rb_bench_subject *sub = &run->subjects[k];
        rb_bundle_result *r = rb_bundle_add_result(s, label_of(o, sub->ops));
        if (!r) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
        r->memory_bytes = sub->memory;
        r->build_ns = sub->build_ns;
        r->replays_per_trial = sub->reps;
        r->lookups_per_trial = sub->reps * run->nqueries;
        r->checksum = sub->checksum;
        r->disagreements = sub->disagree;
        r->short_trials = sub->short_trials;
        r->recalibrated = sub->recalibrated;
    }
    bool counted = rb_metric_exact(b->metric);
    for (size_t t = 0; t < run->ntrials; t++) {
        const rb_bench_trial *x = &run->trials[t];
        rb_bundle_trial bt = {si,    x->subject, x->trial + 1, x->position + 1, x->lookups,
                              x->ns, x->ir,      x->data_refs, x->l1_misses,    x->ll_misses};
        if (!counted && rb_bench_trial_disturbed(x)) s->results[x->subject].disturbed_trials++;
        if (rb_bundle_add_trial(b, &bt) < 0)
            return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    }
    return rb_bundle_compute_scenario(b, si, err);
}

/* Measure one scenario.  Returns a CLI status. */
static int one_scenario(session_options *o, rb_bundle *b, const rb_scenario_spec *spec,
                        progress *pg)
{
    rb_error err;
    rb_scenario sc;
    progress_note(pg, spec->kind == RB_SCENARIO_GENERATED ? "generating" : "loading");
    if (rb_scenario_load(spec, o->seed, &sc, &err) < 0) {
        progress_done(pg);
        fprintf(stderr, "routebench %s: scenario %s: %s\n", o->cmd, spec->name, err.message);
        return CLI_USAGE;
    }
    const rb_router_ops *ops[64];
    size_t nops = 0;
    char skipped[RB_BUNDLE_TEXT] = "";
    size_t slen = 0;
    for (size_t k = 0; k < o->nrouters; k++) {
        if (sc.features & ~rb_ops_features(o->routers[k])) {
            int w = snprintf(skipped + slen, sizeof skipped - slen, "%s%s", slen ? "," : "",
                             o->labels[k]);
            if (w > 0 && (size_t)w < sizeof skipped - slen) slen += (size_t)w;
            continue;
        }
        ops[nops++] = o->routers[k];
    }
    if (nops == 0 || (o->all_or_nothing && nops != o->nrouters)) {
        progress_done(pg);
        printf("\n%s: skipped (%s lack%s a feature of its routes)\n", spec->name, skipped,
               strchr(skipped, ',') ? "" : "s");
        rb_scenario_free(&sc);
        return CLI_OK;
    }
    rb_bench_run run;
    progress_note(pg, "building");
    int rc;
    if (rb_metric_exact(o->metric)) {
        const char *labels[64];
        for (size_t k = 0; k < nops; k++) labels[k] = label_of(o, ops[k]);
        rc = rb_bench_prepare_pinned(&run, &sc.routes, &sc.requests, ops, nops,
                                     RB_CALLGRIND_HASH_SEED, &err);
        if (rc == RB_OK) progress_note(pg, "counting instructions (Callgrind)");
        if (rc == RB_OK)
            rc =
                rb_callgrind_measure(&o->cg, &run, o->metric == RB_METRIC_CYCLES_EST, labels, &err);
    } else {
        rb_bench_protocol proto = o->proto;
        proto.order_seed = rb_bundle_order_seed(o->seed, b->nscenarios);
        if (o->metric == RB_METRIC_HW_INSTRUCTIONS) proto.clock = RB_BENCH_CLOCK_HW_INSTRUCTIONS;
        rc = rb_bench_prepare(&run, &sc.routes, &sc.requests, ops, nops, NULL, &err);
        if (rc == RB_OK) rc = rb_bench_measure(&run, &proto, on_progress, pg, &err);
    }
    if (rc == RB_OK) rc = bundle_scenario(o, b, &sc, &run, skipped, &err);
    progress_done(pg);
    int status = CLI_OK;
    if (rc < 0) {
        fprintf(stderr, "routebench %s: scenario %s: %s\n", o->cmd, spec->name, err.message);
        status = rc == RB_ESTATE ? CLI_FAILED : CLI_USAGE;
    } else {
        print_scenario(b, &b->scenarios[b->nscenarios - 1]);
        /* a peer is measured, not held to our semantics (router.h, RB_FEAT_PEER) */
        for (size_t k = 0; k < run.nsubjects; k++)
            if (run.subjects[k].disagree && !(rb_ops_features(run.subjects[k].ops) & RB_FEAT_PEER))
                status = CLI_FAILED;
        fflush(stdout);
    }
    rb_bench_run_free(&run);
    rb_scenario_free(&sc);
    return status;
}

int session_run(session_options *o, int argc, char **argv, rb_bundle *b)
{
    rb_error err;
    rb_bundle_init(b);
    rb_sysinfo_fill(b);
    command_line(b, argc, argv);
    bool counted = rb_metric_exact(o->metric);
    b->metric = o->metric;
    b->seed = o->seed;
    b->order_seed = rb_bundle_order_seed(o->seed, 0);
    b->trials = counted ? 1 : o->proto.trials;
    b->warmup = counted ? 1 : o->proto.warmup;
    b->min_trial_ms = counted ? 0 : o->proto.min_trial_ms;
    b->cpu_clock = !counted && o->proto.clock == RB_BENCH_CLOCK_CPU;
    snprintf(b->baseline, sizeof b->baseline, "%s", o->labels[0]);
    for (size_t k = 0; k < o->nrouters; k++)
        if (rb_bundle_add_router(b, o->labels[k], rb_ops_summary(o->routers[k]),
                                 rb_ops_features(o->routers[k])) < 0)
            return CLI_USAGE;
    if (rb_bundle_add_standard_limitations(b) < 0) return CLI_USAGE;
    if (add_libraries(o, b) != CLI_OK) return CLI_USAGE;
    if (counted && rb_callgrind_open(&o->cg, &err) < 0) {
        fprintf(stderr, "routebench %s: %s\n", o->cmd, err.message);
        return CLI_USAGE;
    }
    if (o->cpu >= 0) {
        if (rb_sysinfo_pin_cpu(o->cpu, &err) < 0) {
            fprintf(stderr, "routebench %s: --cpu: %s\n", o->cmd, err.message);
            return CLI_USAGE;
        }
        b->pinned_cpu = o->cpu;
    }

    if (counted) {
        printf("routebench %s: %zu scenario%s, %zu router%s, --metric %s: Callgrind counts one "
               "replay of each router (after one uncounted), seed %llu\n",
               o->cmd, o->scenarios.n, o->scenarios.n == 1 ? "" : "s", o->nrouters,
               o->nrouters == 1 ? "" : "s", rb_metric_name(o->metric), (unsigned long long)o->seed);
        if (o->trials_given)
            printf("note: --trials is ignored: instruction counts are exact, one replay decides\n");
    } else {
        printf("routebench %s: %zu scenario%s, %zu router%s, %u trials (+%u warm-up) of >= %g ms "
               "(%s), balanced shuffled order, seed %llu\n",
               o->cmd, o->scenarios.n, o->scenarios.n == 1 ? "" : "s", o->nrouters,
               o->nrouters == 1 ? "" : "s", o->proto.trials, o->proto.warmup, o->proto.min_trial_ms,
               o->metric == RB_METRIC_HW_INSTRUCTIONS ? "hardware instruction counter"
               : b->cpu_clock                         ? "thread CPU clock"
                                                      : "wall clock",
               (unsigned long long)o->seed);
    }
    printf("in-process lookups on this machine (%s, %ld cores), not HTTP requests per second\n",
           b->cpu_model, b->cores);
    if (!b->optimized || b->sanitized)
        printf("WARNING: %s build: these numbers do not show what the routers can do\n",
               b->sanitized ? "sanitized" : "unoptimised");
    fflush(stdout);

    int status = CLI_OK;
    struct timespec run_start, run_end;
    clock_gettime(CLOCK_MONOTONIC, &run_start);
    progress pg = {0, o->scenarios.n, "", isatty(STDERR_FILENO) != 0, 0, o};
    for (size_t i = 0; i < o->scenarios.n; i++) {
        pg.scenario = i + 1;
        pg.name = o->scenarios.v[i].name;
        int s = one_scenario(o, b, &o->scenarios.v[i], &pg);
        if (s == CLI_USAGE) return s;
        if (s > status) status = s;
    }
    b->loadavg_end = rb_sysinfo_loadavg();
    clock_gettime(CLOCK_MONOTONIC, &run_end);
    b->duration_s = (double)(run_end.tv_sec - run_start.tv_sec) +
                    (double)(run_end.tv_nsec - run_start.tv_nsec) / 1e9;
    int wrc = rb_sysinfo_warnings(b);
    uint64_t disturbed = 0, short_trials = 0, recalibrated = 0;
    for (size_t i = 0; i < b->nscenarios; i++)
        for (size_t k = 0; k < b->scenarios[i].nresults; k++) {
            disturbed += b->scenarios[i].results[k].disturbed_trials;
            short_trials += b->scenarios[i].results[k].short_trials;
            recalibrated += b->scenarios[i].results[k].recalibrated;
        }
    if (recalibrated && wrc == RB_OK) {
        char text[512];
        snprintf(text, sizeof text,
                 "%llu router%s ran trials shorter than --min-trial-ms %g (the machine was "
                 "faster than during calibration) and %s recalibrated and measured again; "
                 "%llu trial%s still fell short%s",
                 (unsigned long long)recalibrated, recalibrated == 1 ? "" : "s", b->min_trial_ms,
                 recalibrated == 1 ? "was" : "were", (unsigned long long)short_trials,
                 short_trials == 1 ? "" : "s",
                 short_trials ? " (counted in short_trials; the machine's speed is drifting)" : "");
        wrc = rb_bundle_add_warning(b, text);
    }
    if (disturbed && wrc == RB_OK) {
        char text[512];
        snprintf(text, sizeof text,
                 "%llu of %zu measured trials were disturbed: the benchmark thread had the CPU "
                 "for less than %.0f%% of the trial's wall time (other work ran on its core). "
                 "%s",
                 (unsigned long long)disturbed, b->ntrials, RB_BENCH_DISTURBED_SHARE * 100,
                 b->cpu_clock ? "The times are the thread's CPU time, so the preemption itself "
                                "is left out; the other work still shared caches and the core."
                              : "Pairing cancels part of this; medians and intervals are less "
                                "trustworthy (a quieter machine, --cpu N or --clock cpu help).");
        wrc = rb_bundle_add_warning(b, text);
    }
    if (wrc < 0 || rb_bundle_compute_geomeans(b, &err) < 0) {
        fprintf(stderr, "routebench %s: %s\n", o->cmd, "out of memory summarising");
        return CLI_USAGE;
    }
    if (o->gate.on) {
        b->gate = o->gate;
        if (rb_bundle_decide_gate(b, &err) < 0) {
            fprintf(stderr, "routebench %s: the gate: %s\n", o->cmd, err.message);
            return CLI_USAGE;
        }
    }
    if (strcmp(o->cmd, "pair") == 0 && o->nrouters == 2 && rb_bundle_noise_note(b) < 0) {
        fprintf(stderr, "routebench %s: %s\n", o->cmd, "out of memory summarising");
        return CLI_USAGE;
    }
    print_geomeans(b);
    for (size_t i = 0; i < b->nwarnings; i++) printf("\nWARNING: %s\n", b->warnings[i]);
    if (o->out) {
        if (rb_bundle_write_dir(b, o->out, &err) < 0) {
            fprintf(stderr, "routebench %s: writing the bundle: %s\n", o->cmd, err.message);
            return CLI_USAGE;
        }
        printf("\nbundle: %s/{summary.json, trials.csv, report.md, chart.svg, scaling.svg}\n",
               o->out);
    } else {
        printf("\n(--out DIR writes the bundle: summary.json, trials.csv, report.md, charts)\n");
    }
    return status;
}
