/*
 * session.c — the measured session shared by `run` and `pair` (session.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "session.h"

#include "bundle_run.h"
#include "cli.h"
#include "compiled.h"
#include "headline.h"
#include "library_id.h"
#include "progress.h"
#include "report_console.h"
#include "base_internal.h"
#include "machine.h"
#include "sysinfo.h"
#include "verdict.h"
#include "verify.h"

#include <math.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    o->human = stdout;
    o->app_bytes = RB_BENCH_DEFAULT_APP_BYTES;
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

static int add_peer_spec(session_options *o, const rb_peer_spec *spec, rb_error *err)
{
    for (size_t k = 0; k < o->npeers; k++)
        if (strcmp(o->peers[k].name, spec->name) == 0) return RB_OK;
    if (o->npeers == sizeof o->peers / sizeof o->peers[0])
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "at most %zu peers at once",
                         sizeof o->peers / sizeof o->peers[0]);
    /* joins the routers in session_finish_scenarios (after the baseline) */
    rb_peer_spec_copy(&o->peers[o->npeers++], spec);
    return RB_OK;
}

int session_add_peer(session_options *o, const rb_peer_spec *spec)
{
    rb_error err;
    if (add_peer_spec(o, spec, &err) < 0) return cli_error(o->cmd, "%s", err.message);
    for (size_t k = 0; k < o->npeers; k++)
        if (strcmp(o->peers[k].name, spec->name) == 0)
            return session_add_ops(o, &o->peers[k].ops, o->peers[k].name);
    return CLI_OK;
}

void session_add_builtin_peers(session_options *o)
{
    for (size_t i = 0; i < rb_peer_builtin_count(); i++) {
        rb_peer_spec spec;
        rb_error err;
        if (rb_peer_builtin(rb_peer_builtin_name(i), NULL, &spec, &err) < 0) {
            fprintf(stderr, "routebench %s: note: %s\n", o->cmd, err.message);
            continue;
        }
        if (add_peer_spec(o, &spec, &err) < 0)
            fprintf(stderr, "routebench %s: note: %s\n", o->cmd, err.message);
    }
}

/* --peer NAME=COMMAND: field is the session (offset 0). */
static int take_peer(void *field, const char *v, rb_error *err)
{
    rb_peer_spec spec;
    int rc = rb_peer_spec_parse(v, &spec, err);
    return rc < 0 ? rc : add_peer_spec(field, &spec, err);
}

int session_add_router(session_options *o, const char *spec)
{
    if (!strchr(spec, '@')) { /* a peer runner's name: one of --peer, or built in? */
        for (size_t k = 0; k < o->npeers; k++)
            if (strcmp(o->peers[k].name, spec) == 0)
                return session_add_ops(o, &o->peers[k].ops, o->peers[k].name);
        rb_peer_spec peer;
        rb_error err;
        int rc = rb_peer_builtin(spec, NULL, &peer, &err);
        if (rc == RB_OK) return session_add_peer(o, &peer);
        if (rc != RB_ENOTFOUND) return cli_error(o->cmd, "%s", err.message);
    }
    const rb_router_ops *ops = cli_router(&o->plugins, o->cmd, spec);
    if (!ops) return CLI_USAGE;
    bool builtin = rb_registry_find(rb_ops_name(ops)) == ops;
    return session_add_ops(o, ops, builtin ? rb_ops_name(ops) : spec);
}

static int take_scenarios(void *list, const char *v, rb_error *err)
{
    return rb_scenario_list_parse(list, v, err);
}

/* --shape S[,S]: each shape at 100, 1,000 and 10,000 routes. */
static int take_shapes(void *list, const char *v, rb_error *err)
{
    for (const char *p = v;;) {
        size_t n = strcspn(p, ",");
        char shape[16];
        if (n == 0 || n >= sizeof shape ||
            (snprintf(shape, sizeof shape, "%.*s", (int)n, p),
             rb_scenario_list_add_shape(list, shape, err) < 0))
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                             "'%s' is not a list of shapes (static, params, mixed, catchall, glob, "
                             "templates)",
                             v);
        if (!p[n]) return RB_OK;
        p += n + 1;
    }
}

static const cli_choice clocks[] = {
    {"wall", RB_BENCH_CLOCK_WALL}, {"cpu", RB_BENCH_CLOCK_CPU}, {0}};

static const cli_choice modes[] = {
    {"throughput", RB_BENCH_MODE_THROUGHPUT}, {"latency", RB_BENCH_MODE_LATENCY}, {0}};
static const cli_choice caches[] = {{"warm", 0}, {"cold", 1}, {0}};

static const cli_choice metrics[] = {{"time", RB_METRIC_TIME},
                                     {"instructions", RB_METRIC_INSTRUCTIONS},
                                     {"cycles-est", RB_METRIC_CYCLES_EST},
                                     {"hw-instructions", RB_METRIC_HW_INSTRUCTIONS},
                                     {0}};

#define S(field) offsetof(session_options, field)
const cli_option session_option_table[] = {
    {.name = "--scenarios",
     .alias = "--scenario",
     .type = CLI_CALL,
     .metavar = "LIST",
     .offset = S(scenarios),
     .call = take_scenarios,
     .flags = CLI_REPEAT,
     .help = "comma-separated: SHAPE-N (e.g. params-1000; SHAPE-nc-N: without static/param "
             "conflicts, for peers; SHAPE-v1-N or SHAPE-nc-v1-N: generator v1, which made the "
             "figures published before v2), SHAPE (at 100, 1000, 10000 routes), default, "
             "shipped, or a shipped corpus name (routebench list); default: the default suite"},
    {.name = "--shape",
     .type = CLI_CALL,
     .metavar = "S[,S]",
     .offset = S(scenarios),
     .call = take_shapes,
     .flags = CLI_REPEAT,
     .help = "the suite of shape S at 100, 1000, 10000 routes (static, params, mixed, catchall, "
             "glob, templates)"},
    {.name = "--routes",
     .type = CLI_STRING,
     .metavar = "FILE",
     .offset = S(routes_file),
     .requires = "--requests",
     .help = "a scenario from your own route table ..."},
    {.name = "--requests",
     .type = CLI_STRING,
     .metavar = "FILE",
     .offset = S(requests_file),
     .requires = "--routes",
     .help = "... and request table (routebench corpus requests)"},
    {.name = "--metric",
     .type = CLI_CHOICE,
     .metavar = "M",
     .offset = S(metric),
     .choices = metrics,
     .flags = CLI_SHOW_DEFAULT,
     .help = "what a lookup costs: time (on --clock), instructions (counted by Callgrind: "
             "exact, the same for two builds of the same code), cycles-est (Callgrind's cache "
             "simulation: L1 hits + 5 x LL hits + 35 x RAM accesses), hw-instructions (the "
             "hardware counter, where the machine has one)"},
    {.name = "--mode",
     .type = CLI_CHOICE,
     .metavar = "throughput|latency",
     .offset = S(mode),
     .choices = modes,
     .flags = CLI_SHOW_DEFAULT,
     .help = "throughput: lookups back to back (they may overlap in the pipeline); latency: "
             "each lookup's request is chosen by the previous answer, so none overlap, as in a "
             "server that waits for the route before running the handler"},
    {.name = "--cache",
     .type = CLI_CHOICE,
     .metavar = "warm|cold",
     .offset = S(cache),
     .choices = caches,
     .flags = CLI_SHOW_DEFAULT,
     .help = "cold: between lookups a stand-in for the application touches --app-bytes of "
             "other memory (evicting the router's lines); its own cost, measured alone in "
             "every round, is subtracted"},
    SESSION_OPT_APP_BYTES(
        S(app_bytes), "bytes the application stand-in touches between two lookups (--cache cold)"),
    {.name = "--peers",
     .type = CLI_FLAG,
     .offset = S(peers_all),
     .help = "also run the built-in peer runners that are built (Go, Rust, Node: `routebench "
             "list` names them; "
             "scripts/setup.sh --peers); a missing one is a note, not an error"},
    {.name = "--peer",
     .type = CLI_CALL,
     .metavar = "NAME=CMD",
     .offset = 0,
     .call = take_peer,
     .flags = CLI_REPEAT,
     .help = "a peer runner of your own (docs/peer-protocol.md), started as CMD ROUTES "
             "REQUESTS; repeatable"},
    {.name = "--router-lib",
     .type = CLI_CALL,
     .metavar = "LIB",
     .offset = S(plugins),
     .call = cli_take_router_lib,
     .flags = CLI_REPEAT,
     .help = "load a plugin library of routers (repeatable); its routers are NAME@LIB"},
    {0}};

const cli_option session_protocol_table[] = {
    SESSION_OPT_TRIALS(S(proto.trials),
                       "measured trials per router (the 95% sign-test interval of 9 pairs covers "
                       "96.1%; 15 for a gate; counted metrics need none: one replay decides)"),
    {.name = "--warmup",
     .type = CLI_UINT,
     .metavar = "N",
     .offset = S(proto.warmup),
     .min = 0,
     .max = 1000,
     .flags = CLI_SHOW_DEFAULT,
     .help = "discarded warm-up rounds"},
    SESSION_OPT_MIN_TRIAL_MS(S(proto.min_trial_ms)),
    CLI_SEED(S(seed), CLI_SHOW_DEFAULT,
             "seed of the generated tables and requests and of the round orders"),
    {.name = "--cpu",
     .type = CLI_INT,
     .metavar = "N",
     .offset = S(cpu),
     .min = 0,
     .max = 4095,
     .help = "pin to CPU N (sched_setaffinity; default: not pinned)"},
    {.name = "--clock",
     .type = CLI_CHOICE,
     .metavar = "wall|cpu",
     .offset = S(proto.clock),
     .choices = clocks,
     .flags = CLI_SHOW_DEFAULT,
     .help = "time trials by elapsed time (CLOCK_MONOTONIC) or by the thread's CPU time "
             "(CLOCK_THREAD_CPUTIME_ID: leaves out time other processes held the core; for busy "
             "machines)"},
    {.name = "--out",
     .type = CLI_STRING,
     .metavar = "DIR",
     .offset = S(out),
     .help = "write the bundle: summary.json, trials.csv, report.md and the charts.  DIR must "
             "be new, empty or an old bundle (checked before measuring); the bundle is written "
             "beside it and replaces it whole at the end"},
    {.name = "--json",
     .type = CLI_FLAG,
     .offset = S(json),
     .help = "print summary.json's document on stdout (the tables go to stderr)"},
    {.name = "--verbose",
     .alias = "-v",
     .type = CLI_FLAG,
     .offset = S(verbose),
     .help = "also print each table's fingerprints, checksums and the verdict's paragraph"},
    {.name = "--export-json",
     .type = CLI_STRING,
     .metavar = "FILE",
     .offset = S(export_json),
     .help = "write summary.json's document to FILE"},
    {.name = "--export-csv",
     .type = CLI_STRING,
     .metavar = "FILE",
     .offset = S(export_csv),
     .help = "write trials.csv's rows (one per measured trial) to FILE"},

    {0}};
#undef S

int session_finish_scenarios(session_options *o)
{
    rb_error err;
    if (o->peers_all) session_add_builtin_peers(o);
    for (size_t k = 0; k < o->npeers; k++)
        if (session_add_ops(o, &o->peers[k].ops, o->peers[k].name) != CLI_OK) return CLI_USAGE;
    if (o->routes_file &&
        rb_scenario_list_add_files(&o->scenarios, o->routes_file, o->requests_file, &err) < 0)
        return cli_error(o->cmd, "%s", err.message);
    if (o->scenarios.n == 0 && rb_scenario_list_parse(&o->scenarios, "default", &err) < 0)
        return cli_error(o->cmd, "%s", err.message);
    if (o->json) o->human = stderr;
    /* fail before measuring, not after */
    if (o->out && rb_bundle_prepare_dir(o->out, &err) < 0)
        return cli_error(o->cmd, "--out: %s", err.message);
    if (o->export_json && cli_check_output_file(o->cmd, "--export-json", o->export_json) != CLI_OK)
        return CLI_USAGE;
    if (o->export_csv && cli_check_output_file(o->cmd, "--export-csv", o->export_csv) != CLI_OK)
        return CLI_USAGE;
    return CLI_OK;
}

int session_metric_dispatch(session_options *o, int argc, char **argv, bool *handled)
{
    rb_error err;
    *handled = false;
    if (o->metric == RB_METRIC_HW_INSTRUCTIONS) {
        rb_perf_counter c;
        if (rb_perf_open(&c, &err) < 0) {
            *handled = true;
            return cli_error(o->cmd,
                             "--metric hw-instructions: %s; --metric instructions counts "
                             "instructions exactly with Callgrind instead",
                             err.message);
        }
        rb_perf_close(&c);
        return CLI_OK;
    }
    if (!rb_metric_exact(o->metric) || rb_callgrind_child()) return CLI_OK;
    *handled = true;
    if (rb_callgrind_under_valgrind())
        return cli_error(o->cmd,
                         "--metric %s starts Callgrind itself; run routebench without "
                         "valgrind",
                         rb_metric_name(o->metric));
    int status = CLI_USAGE;
    fflush(stdout);
    if (rb_callgrind_run(argc, argv, o->metric == RB_METRIC_CYCLES_EST, &status, &err) < 0)
        return cli_error(o->cmd, "--metric %s: %s", rb_metric_name(o->metric), err.message);
    return status;
}

/* ---- progress on stderr --------------------------------------------------------------------- */

/* The bar (progress.h) and the model's parts of the current pass, so the
 * harness's steps map to a share of the pass. */
typedef struct session_progress {
    progress bar;
    const session_options *o; /* for router labels */
    progress_parts parts;
    double pass_s;
} session_progress;

static const char *label_of(const session_options *o, const rb_router_ops *ops)
{
    for (size_t k = 0; k < o->nrouters; k++)
        if (o->routers[k] == ops) return o->labels[k];
    return rb_ops_name(ops);
}

/* A step of the pass: its words and how far into the pass it is. */
static void progress_note(session_progress *p, const char *what, double frac)
{
    progress_step(&p->bar, what, frac);
}

static void on_progress(void *ctx, const char *what, const rb_bench_subject *s, size_t done,
                        size_t total)
{
    session_progress *p = ctx;
    double pass = p->pass_s > 0 ? p->pass_s : 1, prep = p->parts.prep_s / pass;
    double first = p->parts.measure_s / pass, again = p->parts.remeasure_s / pass;
    double share = total ? (double)done / (double)total : 0, frac = prep;
    char line[160];
    if (strcmp(what, "build") == 0) {
        frac = prep * 0.5 * share;
        snprintf(line, sizeof line, "building %s", label_of(p->o, s->ops));
    } else if (strcmp(what, "re-measure") == 0) {
        frac = prep + first + again * share;
        snprintf(line, sizeof line, "trials ran short: again %zu/%zu", done + 1, total);
    } else if (total) {
        frac = prep + first * share;
        snprintf(line, sizeof line, "%s %zu/%zu (%s)", what, done + 1, total,
                 label_of(p->o, s->ops));
    } else {
        snprintf(line, sizeof line, "%s %s", what, label_of(p->o, s->ops));
    }
    progress_note(p, line, frac);
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
        if (rb_library_identify(o->labels[k], o->plugins.libs[lib].path, o->plugins.libs[lib].build,
                                &id, &err) < 0 ||
            rb_bundle_add_library(b, &id) < 0)
            return cli_error(o->cmd, "%s: %s", o->labels[k], err.message);
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

/* ---- before the work: how long, and what will be slow ---------------------------------------- */

#define LINEAR_WARN_ROUTES 10000

static bool has_linear(const session_options *o)
{
    for (size_t k = 0; k < o->nrouters; k++)
        if (strcmp(rb_ops_name(o->routers[k]), "linear") == 0) return true;
    return false;
}

/* linear tries every route of a table on each lookup: on 10k+ routes its
 * build check and its trials take long; say so once, with the tables
 * concerned and how to leave it out. */
static size_t count_lines(const char *path);

static void warn_linear(const session_options *o)
{
    if (!has_linear(o)) return;
    char tables[512] = "", others[1024] = "";
    size_t nt = 0, n = 0, count = 0;
    for (size_t i = 0; i < o->scenarios.n; i++) {
        const rb_scenario_spec *sp = &o->scenarios.v[i];
        const char *name = sp->name;
        size_t routes =
            sp->kind == RB_SCENARIO_GENERATED ? sp->nroutes : count_lines(sp->routes_path);
        if (routes < LINEAR_WARN_ROUTES) continue;
        int w = snprintf(tables + nt, sizeof tables - nt, "%s%s", nt ? ", " : "", name);
        if (w > 0 && (size_t)w < sizeof tables - nt) nt += (size_t)w;
        count++;
    }
    if (!count) return;
    for (size_t k = 0; k < o->nrouters; k++) {
        if (strcmp(rb_ops_name(o->routers[k]), "linear") == 0) continue;
        int w = snprintf(others + n, sizeof others - n, "%s%s", n ? "," : "", o->labels[k]);
        if (w > 0 && (size_t)w < sizeof others - n) n += (size_t)w;
    }
    fprintf(stderr,
            "routebench %s: warning: linear (the reference) tries every route on each lookup, "
            "and %s ha%s %d routes or more: its checks and trials grow with the table; %s%s\n",
            o->cmd, tables, count == 1 ? "s" : "ve", LINEAR_WARN_ROUTES,
            n && o->leave_out ? o->leave_out : "choose another router",
            n && o->leave_out && o->leave_out[strlen(o->leave_out) - 1] == ' ' ? others : "");
}

/* A file's lines (the routes or requests of a table), for the estimate;
 * 0 for what is no regular file (a <(...) pipe read here would be empty
 * for the reader, /dev/zero would never end: the reader refuses it). */
static size_t count_lines(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = 0;
    for (int c; (c = getc(f)) != EOF;) n += c == '\n';
    fclose(f);
    return n;
}

/* The model's shape of one pass over spec (progress.h). */
static progress_pass_shape pass_shape(const session_options *o, const rb_scenario_spec *spec,
                                      bool cold)
{
    bool gen = spec->kind == RB_SCENARIO_GENERATED;
    progress_pass_shape sh = {
        .routes = gen ? spec->nroutes : count_lines(spec->routes_path),
        .requests = gen ? RB_SCENARIO_REQUESTS : count_lines(spec->requests_path),
        .routers = o->nrouters,
        .measured = o->nrouters,
        .generated = gen,
        .linear = has_linear(o),
        .cold = cold,
        .app_bytes = cold ? o->app_bytes : 0,
        .counted = rb_metric_exact(o->metric),
        .rounds = o->proto.warmup + o->proto.trials,
        .trials = o->proto.trials,
        .min_trial_s = o->proto.min_trial_ms / 1e3,
        .cpu_clock = o->proto.clock == RB_BENCH_CLOCK_CPU,
    };
    return sh;
}

/* The passes: every scenario under each condition measured (choose: two). */
static size_t passes_of(const session_options *o)
{
    return o->scenarios.n * (o->both_conditions ? 2 : 1);
}

/* The model's seconds of pass `cold` over scenario i; its parts into parts. */
static double pass_model(const session_options *o, size_t i, bool cold, double share,
                         progress_parts *parts)
{
    progress_pass_shape sh = pass_shape(o, &o->scenarios.v[i], cold);
    return progress_model(&sh, share, parts);
}

/* The whole session's estimate, said before the work starts; returns it. */
static double print_estimate(const session_options *o, double share)
{
    double total = 0;
    for (size_t i = 0; i < o->scenarios.n; i++) {
        total += pass_model(o, i, !o->both_conditions && o->cache, share, NULL);
        if (o->both_conditions) total += pass_model(o, i, true, share, NULL);
    }
    char t[64];
    progress_fmt_seconds(total, t, sizeof t);
    fprintf(stderr, "routebench %s: estimated %s: %zu pass%s x %zu router%s%s\n", o->cmd, t,
            passes_of(o), passes_of(o) == 1 ? "" : "es", o->nrouters, o->nrouters == 1 ? "" : "s",
            share < 0.8 ? " (a busy machine: short trials will be measured again)" : "");
    return total;
}

/* Every answer of every router (route id, every capture span, the 405
 * mask) against EXPECTED and linear's, as verify does (bench/measure/verify.c).
 * A router's disagreements replace the harness's count (EXPECTED only), so
 * the bundle, the table and the exit status see both checks. */
static int check_answers(rb_bench_run *run, const rb_scenario *sc, rb_verify_report *reps,
                         session_progress *pg, rb_error *err)
{
    /* the limit answers without captures: the harness checked its hits */
    const rb_router *routers[64];
    size_t at[64], n = 0;
    for (size_t k = 0; k < run->nsubjects; k++) {
        if (run->subjects[k].ops == &rb_bench_limit_ops) continue;
        at[n] = k;
        routers[n++] = run->subjects[k].router;
    }
    progress_note(pg, "checking every answer against linear",
                  pg->pass_s > 0 ? 0.5 * pg->parts.prep_s / pg->pass_s : 0);
    rb_verify_report *got = n ? calloc(n, sizeof *got) : NULL;
    if (n && !got) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory checking answers");
    int rc = n ? rb_verify_built(routers, n, &sc->routes, sc->spec.name, &sc->requests, got, err)
               : RB_OK;
    for (size_t i = 0; rc == RB_OK && i < n; i++) {
        size_t k = at[i];
        reps[k] = got[i];
        run->subjects[k].disagree = reps[k].disagreeing;
        if (reps[k].nexamples) run->subjects[k].first_disagree = reps[k].examples[0].request;
    }
    free(got);
    return rc;
}

/* ---- refusals, peers, conditions ------------------------------------------------ */

typedef struct refusals {
    rb_bundle_refusal v[RB_BUNDLE_MAX_REFUSED];
    size_t n;
} refusals;

static void refuse(refusals *r, const char *router, const char *why)
{
    if (r->n == RB_BUNDLE_MAX_REFUSED) return;
    snprintf(r->v[r->n].router, sizeof r->v[r->n].router, "%s", router);
    snprintf(r->v[r->n].reason, sizeof r->v[r->n].reason, "%s", why);
    r->n++;
}

static const rb_peer_spec *peer_of(const session_options *o, const rb_router_ops *ops)
{
    for (size_t k = 0; k < o->npeers; k++)
        if (&o->peers[k].ops == ops) return &o->peers[k];
    return NULL;
}

/* The router auto chose, from its describe(): "chose X..." or "... fell
 * back to X, ...". */
static void auto_pick(const char *why, char *out, size_t cap)
{
    const char *p = strstr(why, "fell back to ");
    p = p ? p + 13 : strncmp(why, "chose ", 6) == 0 ? why + 6 : NULL;
    out[0] = '\0';
    if (p) snprintf(out, cap, "%.*s", (int)strcspn(p, ",:; "), p);
}

/* The scenario's tables as files a peer runner can read: the files it came
 * from, else written into a temporary directory (*tmp, removed by the
 * caller). */
static int scenario_files(const rb_scenario *sc, char *tmp, size_t cap, char *rp, char *qp,
                          size_t pcap, rb_error *err)
{
    if (sc->spec.kind != RB_SCENARIO_GENERATED) {
        snprintf(rp, pcap, "%s", sc->spec.routes_path);
        snprintf(qp, pcap, "%s", sc->spec.requests_path);
        return RB_OK;
    }
    const char *dir = getenv("TMPDIR");
    snprintf(tmp, cap, "%s/routebench-peer-XXXXXX", dir && *dir ? dir : "/tmp");
    if (!mkdtemp(tmp)) {
        tmp[0] = '\0';
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot create a temporary directory");
    }
    snprintf(rp, pcap, "%s/s.routes", tmp);
    snprintf(qp, pcap, "%s/s.requests", tmp);
    int rc = rb_route_table_write(rp, &sc->routes, NULL, err);
    return rc < 0 ? rc : rb_request_table_write(qp, &sc->requests, err);
}

static void remove_files(char *tmp, const char *rp, const char *qp)
{
    if (!*tmp) return;
    remove(rp);
    remove(qp);
    rmdir(tmp);
    tmp[0] = '\0';
}

typedef struct peer_note {
    const rb_router_ops *ops;
    rb_peer_agreement a;
} peer_note;

/* Start every peer of the scenario, check its answers, add it to run. */
static void add_peers(session_options *o, const rb_scenario *sc, rb_bench_run *run,
                      const rb_router_ops *const *peers, size_t npeers, int mode, size_t app,
                      refusals *ref, peer_note *notes, size_t *nnotes, session_progress *pg)
{
    char tmp[512] = "", rp[RB_SCENARIO_PATH + 32], qp[RB_SCENARIO_PATH + 32];
    bool have_files = false;
    rb_error err;
    for (size_t k = 0; k < npeers; k++) {
        const rb_peer_spec *spec = peer_of(o, peers[k]);
        const char *label = label_of(o, peers[k]);
        if (rb_metric_exact(o->metric) && spec->jit) {
            rb_peer_counts none;
            rb_peer_count(spec, "", "", 0, 0, false, &none, &err); /* says why */
            refuse(ref, label, err.message);
            continue;
        }
        if (mode != RB_BENCH_MODE_THROUGHPUT || app) {
            refuse(ref, label, "peer runners measure warm throughput only (protocol 1)");
            continue;
        }
        if (!have_files) {
            if (scenario_files(sc, tmp, sizeof tmp, rp, qp, sizeof rp, &err) < 0) {
                refuse(ref, label, err.message);
                continue;
            }
            have_files = true;
        }
        rb_peer *peer;
        if (rb_peer_start(spec, rp, qp, sc->requests.count, &peer, &err) < 0) {
            refuse(ref, label, err.message);
            continue;
        }
        if (peer->nrefused) {
            char why[RB_BUNDLE_TEXT];
            snprintf(why, sizeof why, "refuses %zu route%s (first: route %s)", peer->nrefused,
                     peer->nrefused == 1 ? "" : "s", peer->first_refusal);
            refuse(ref, label, why);
            rb_peer_close(peer);
            continue;
        }
        peer_note *n = &notes[*nnotes];
        if (rb_peer_check(peer, &sc->routes, &sc->requests, &n->a, &err) < 0) {
            refuse(ref, label, err.message);
            rb_peer_close(peer);
            continue;
        }
        if (rb_metric_exact(o->metric)) {
            progress_note(pg, "counting a peer runner's instructions (Callgrind)", 0);
            if (rb_peer_count(spec, rp, qp, sc->requests.count, peer->checksum,
                              o->metric == RB_METRIC_CYCLES_EST, &peer->counts, &err) < 0) {
                refuse(ref, label, err.message);
                rb_peer_close(peer);
                continue;
            }
            peer->counted = true;
        }
        if (rb_bench_add_peer(run, peers[k], peer, peer->checksum,
                              n->a.requests - n->a.agree_expected, &err) < 0) {
            refuse(ref, label, err.message);
            continue;
        }
        n->ops = peers[k];
        (*nnotes)++;
    }
    remove_files(tmp, rp, qp);
}

/* The conditions, refusals and peers into the scenario just added. */
static void fill_conditions(const session_options *o, rb_bundle_scenario *s,
                            const rb_bench_run *run, int mode, size_t app, const refusals *ref,
                            const peer_note *notes, size_t nnotes)
{
    snprintf(s->mode, sizeof s->mode, "%s",
             mode == RB_BENCH_MODE_LATENCY ? "latency" : "throughput");
    snprintf(s->cache, sizeof s->cache, "%s", app ? "cold" : "warm");
    if (mode != RB_BENCH_MODE_THROUGHPUT || app) {
        size_t n = strlen(s->name);
        snprintf(s->name + n, sizeof s->name - n, " (%s, %s)", s->mode, s->cache);
    }
    s->app_bytes = app;
    s->app_ns = run->app_ns;
    s->app_mad_ns = run->app_mad_ns;
    for (size_t i = 0; i < ref->n; i++) s->refused[s->nrefused++] = ref->v[i];
    for (size_t k = 0; k < run->nsubjects && k < s->nresults; k++) {
        const rb_bench_subject *sub = &run->subjects[k];
        rb_bundle_result *r = &s->results[k];
        r->rss_growth_bytes = sub->rss_growth;
        r->peer_process = sub->peer != NULL;
        for (size_t i = 0; i < nnotes; i++)
            if (notes[i].ops == sub->ops)
                r->disagree_linear = notes[i].a.requests - notes[i].a.agree_linear;
        if (sub->router && strcmp(rb_ops_name(sub->ops), "auto") == 0) {
            const char *why = rb_router_describe(sub->router);
            snprintf(s->auto_why, sizeof s->auto_why, "%s", why);
            auto_pick(why, s->auto_choice, sizeof s->auto_choice);
        }
    }
    (void)o;
}

/* The peers' agreement, measured beside the run (not in the bundle). */
static void print_peer_notes(FILE *out, const session_options *o, const peer_note *notes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const rb_peer_agreement *a = &notes[i].a;
        if (a->agree_expected == a->requests && !o->verbose) continue;
        fprintf(out,
                "  peer %s (its own process and timing loop): agrees with EXPECTED on %zu/%zu, "
                "with linear on %zu/%zu (%s)\n",
                label_of(o, notes[i].ops), a->agree_expected, a->requests, a->agree_linear,
                a->requests, a->spans ? "capture spans compared" : "route ids only: no spans");
    }
}

/* Can the limit be built from this scenario's requests?  Not when a
 * requested path reads as a pattern (err says which): the limit is then
 * left out of the scenario, as a router that refuses its table. */
static bool limit_builds(const rb_scenario *sc, const rb_config *cfg, rb_error *err)
{
    const rb_router_ops *floor = rb_registry_find("floor");
    rb_router *r;
    size_t n;
    if (!floor) {
        rb__error(err, RB_EUNSUPPORTED, RB_NO_OFFSET, "floor is not built in");
        return false;
    }
    if (rb_limit_build(&sc->requests, floor, cfg, &r, &n, err) < 0) return false;
    rb_router_destroy(r);
    return true;
}

/* The routers of one pass: measured in-process, peers, lacking a feature,
 * refusing the table. */
typedef struct selection {
    const rb_router_ops *ops[64], *peers[64];
    size_t nops, npeers;
    char skipped[RB_BUNDLE_TEXT];
    refusals ref;
    peer_note notes[64];
    size_t nnotes;
} selection;

static void select_routers(const session_options *o, const rb_scenario *sc, selection *sel)
{
    memset(sel, 0, sizeof *sel);
    size_t slen = 0;
    const rb_config cfg = {NULL, o->seed ? o->seed : 1};
    for (size_t k = 0; k < o->nrouters; k++) {
        if (peer_of(o, o->routers[k])) {
            sel->peers[sel->npeers++] = o->routers[k];
            continue;
        }
        if (sc->features & ~rb_ops_features(o->routers[k])) {
            int w = snprintf(sel->skipped + slen, sizeof sel->skipped - slen, "%s%s",
                             slen ? "," : "", o->labels[k]);
            if (w > 0 && (size_t)w < sizeof sel->skipped - slen) slen += (size_t)w;
            continue;
        }
        rb_error why;
        if (o->routers[k] == &rb_bench_limit_ops && !limit_builds(sc, &cfg, &why)) {
            refuse(&sel->ref, o->labels[k], why.message);
            continue;
        }
        if (o->routers[k] == &rb_bench_compiled_ops &&
            sc->routes.count > RB_COMPILED_MAX_ROUTES) { /* known before it compiles anything */
            char msg[160];
            snprintf(msg, sizeof msg, "%zu routes, over the %u it compiles",
                     (size_t)sc->routes.count, RB_COMPILED_MAX_ROUTES);
            refuse(&sel->ref, o->labels[k], msg);
            continue;
        }
        if (o->drop_refusing) { /* choose: a router that refuses the table is left out */
            rb_router *r;
            rb_error err;
            if (rb_route_table_build_router(&sc->routes, sc->spec.name, o->routers[k], &cfg, &r,
                                            &err) < 0) {
                refuse(&sel->ref, o->labels[k], err.message);
                continue;
            }
            rb_router_destroy(r);
        }
        sel->ops[sel->nops++] = o->routers[k];
    }
}

/* Count one replay of each router under Callgrind. */
static int measure_counted(session_options *o, rb_scenario *sc, selection *sel, rb_bench_run *run,
                           rb_verify_report *reps, session_progress *pg, rb_error *err)
{
    const char *labels[64];
    for (size_t k = 0; k < sel->nops; k++) labels[k] = label_of(o, sel->ops[k]);
    int rc = rb_bench_prepare_pinned(run, &sc->routes, &sc->requests, sel->ops, sel->nops,
                                     RB_CALLGRIND_HASH_SEED, on_progress, pg, err);
    if (rc == RB_OK) rc = check_answers(run, sc, reps, pg, err);
    if (rc == RB_OK && sel->npeers)
        add_peers(o, sc, run, sel->peers, sel->npeers, RB_BENCH_MODE_THROUGHPUT, 0, &sel->ref,
                  sel->notes, &sel->nnotes, pg);
    if (rc == RB_OK) progress_note(pg, "counting instructions (Callgrind)", 0.5);
    if (rc == RB_OK)
        rc = rb_callgrind_measure(&o->cg, run, o->metric == RB_METRIC_CYCLES_EST, labels, err);
    return rc;
}

/* Time every router (and peer) in paired rounds under one condition. */
static int measure_timed(session_options *o, const rb_bundle *b, rb_scenario *sc, selection *sel,
                         rb_bench_run *run, rb_verify_report *reps, session_progress *pg, int mode,
                         size_t app, rb_error *err)
{
    /* an explicit hash seed (the run's seed; 0 would mean a random one), so
     * that every run builds the same tables */
    const rb_config cfg = {NULL, o->seed ? o->seed : 1};
    rb_bench_protocol proto = o->proto;
    proto.order_seed = rb_bundle_order_seed(o->seed, b->nscenarios);
    if (o->metric == RB_METRIC_HW_INSTRUCTIONS) proto.clock = RB_BENCH_CLOCK_HW_INSTRUCTIONS;
    int rc = rb_bench_prepare_progress(run, &sc->routes, &sc->requests, sel->ops, sel->nops, &cfg,
                                       on_progress, pg, err);
    if (rc == RB_OK) rc = check_answers(run, sc, reps, pg, err);
    if (rc == RB_OK && sel->npeers) {
        progress_note(pg, "starting the peer runners", 0);
        add_peers(o, sc, run, sel->peers, sel->npeers, mode, app, &sel->ref, sel->notes,
                  &sel->nnotes, pg);
    }
    if (rc == RB_OK) rc = rb_bench_set_conditions(run, mode, app, err);
    if (rc == RB_OK) rc = rb_bench_measure(run, &proto, on_progress, pg, err);
    return rc;
}

/* The pass just measured into the bundle: its results and conditions. */
static int record(session_options *o, rb_bundle *b, const rb_scenario *sc, const rb_bench_run *run,
                  const selection *sel, int mode, size_t app, rb_error *err)
{
    const char *labels[64];
    for (size_t k = 0; k < run->nsubjects; k++) labels[k] = label_of(o, run->subjects[k].ops);
    int rc = rb_bundle_add_run(b, sc, run, labels, sel->skipped, err);
    if (rc < 0) return rc;
    rb_bundle_scenario *s = &b->scenarios[b->nscenarios - 1];
    fill_conditions(o, s, run, mode, app, &sel->ref, sel->notes, sel->nnotes);
    if (o->source_note) snprintf(s->routes_source, sizeof s->routes_source, "%s", o->source_note);
    if (o->requests_note)
        snprintf(s->requests_source, sizeof s->requests_source, "%s", o->requests_note);
    return RB_OK;
}

/* The pass on the terminal (the console renderer), with what only the run
 * knows: the first request a router answered wrong, the peers' agreement.
 * choose shows a table once both its conditions are measured. */
static void show_pass(session_options *o, const rb_bundle *b, const rb_scenario *sc,
                      const rb_bench_run *run, const rb_verify_report *reps, const selection *sel,
                      session_progress *pg)
{
    if (o->both_conditions && !rb_bundle_is_condition(b, b->nscenarios - 1)) return;
    progress_clear(&pg->bar);
    rb_console_opts copts = {o->verbose};
    rb_buf text = {0};
    rb_console_scenario(b, b->nscenarios - 1, &copts, &text);
    if (text.data) fwrite(text.data, 1, text.len, o->human);
    rb_buf_free(&text);
    for (size_t k = 0; k < sel->nops && k < run->nsubjects; k++) {
        if (!reps[k].nexamples) continue;
        char first[800], line[1024];
        rb_verify_example_format(&reps[k].examples[0], &sc->requests, first, sizeof first);
        snprintf(line, sizeof line, "  ** %s, first differing request: %s **",
                 label_of(o, run->subjects[k].ops), first);
        cli_print_wrapped(o->human, line, 4);
    }
    print_peer_notes(o->human, o, sel->notes, sel->nnotes);
    fflush(o->human);
}

/* Measure one scenario under one condition.  Returns a CLI status. */
static int measure_condition(session_options *o, rb_bundle *b, rb_scenario *sc,
                             session_progress *pg, int mode, size_t app)
{
    rb_error err;
    selection sel;
    select_routers(o, sc, &sel);
    if (sel.nops + sel.npeers == 0 || (o->all_or_nothing && sel.nops + sel.npeers != o->nrouters)) {
        progress_clear(&pg->bar);
        fprintf(o->human, "\n%s: skipped (%s lack%s a feature of its routes)\n", sc->spec.name,
                *sel.skipped ? sel.skipped : "every router", strchr(sel.skipped, ',') ? "" : "s");
        for (size_t i = 0; i < sel.ref.n; i++)
            fprintf(o->human, "  %s refused it: %s\n", sel.ref.v[i].router, sel.ref.v[i].reason);
        return CLI_OK;
    }
    rb_bench_run run;
    memset(&run, 0, sizeof run);
    /* every answer is checked against linear's before anything is measured */
    rb_verify_report *reps = calloc(sel.nops, sizeof *reps);
    int rc =
        reps ? RB_OK : rb__error(&err, RB_ENOMEM, RB_NO_OFFSET, "out of memory checking answers");
    if (rc == RB_OK)
        rc = rb_metric_exact(o->metric)
                 ? measure_counted(o, sc, &sel, &run, reps, pg, &err)
                 : measure_timed(o, b, sc, &sel, &run, reps, pg, mode, app, &err);
    if (rc == RB_OK) rc = record(o, b, sc, &run, &sel, mode, app, &err);
    int status = CLI_OK;
    if (rc < 0) {
        progress_clear(&pg->bar);
        fprintf(stderr, "routebench %s: scenario %s: %s\n", o->cmd, sc->spec.name, err.message);
        status = rc == RB_ESTATE ? CLI_FAILED : cli_status_of(rc);
    } else {
        show_pass(o, b, sc, &run, reps, &sel, pg);
        /* a peer is measured, not held to our semantics (router.h, RB_FEAT_PEER) */
        for (size_t k = 0; k < run.nsubjects; k++)
            if (run.subjects[k].disagree && !(rb_ops_features(run.subjects[k].ops) & RB_FEAT_PEER))
                status = CLI_FAILED;
    }
    free(reps);
    rb_bench_run_free(&run);
    return status;
}

/* A new pass on the progress display, with the model's parts. */
static void start_pass(session_options *o, session_progress *pg, size_t i, bool cold,
                       const char *what)
{
    char name[160];
    pg->pass_s = pass_model(o, i, cold, o->cpu_share, &pg->parts);
    snprintf(name, sizeof name, "%s%s", o->scenarios.v[i].name, what);
    progress_pass(&pg->bar, name, pg->pass_s);
}

/* Measure scenario i: under the session's conditions, or (choose) warm
 * throughput and cold latency.  Returns a CLI status. */
static int one_scenario(session_options *o, rb_bundle *b, size_t i, session_progress *pg)
{
    const rb_scenario_spec *spec = &o->scenarios.v[i];
    rb_error err;
    rb_scenario sc;
    bool cold = !o->both_conditions && o->cache;
    start_pass(o, pg, i, cold, o->both_conditions ? " (warm)" : "");
    progress_note(pg, spec->kind == RB_SCENARIO_GENERATED ? "generating" : "loading", 0);
    if (rb_scenario_load(spec, o->seed, &sc, &err) < 0) {
        progress_clear(&pg->bar);
        fprintf(stderr, "routebench %s: scenario %s: %s\n", o->cmd, spec->name, err.message);
        return cli_status_of(err.code);
    }
    int status;
    if (o->both_conditions) {
        status = measure_condition(o, b, &sc, pg, RB_BENCH_MODE_THROUGHPUT, 0);
        if (status != CLI_USAGE && status != CLI_SYSTEM) {
            start_pass(o, pg, i, true, " (cold)");
            int s2 = measure_condition(o, b, &sc, pg, RB_BENCH_MODE_LATENCY, o->app_bytes);
            if (s2 > status) status = s2;
        }
    } else {
        status = measure_condition(o, b, &sc, pg, o->mode, cold ? o->app_bytes : 0);
    }
    rb_scenario_free(&sc);
    return status;
}

/* ---- before and after the scenarios ------------------------------------------------------------ */

/* The bundle's facts before anything is measured; pins the CPU. */
static int begin(session_options *o, int argc, char **argv, rb_bundle *b)
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
            return cli_system_error(o->cmd, "out of memory");
    if (rb_bundle_add_standard_limitations(b) < 0) return cli_system_error(o->cmd, "out of memory");
    if (add_libraries(o, b) != CLI_OK) return CLI_USAGE;
    if (counted && rb_callgrind_open(&o->cg, &err) < 0) return cli_error(o->cmd, "%s", err.message);
    if (o->cpu >= 0) {
        if (rb_machine_pin_cpu(o->cpu, &err) < 0) {
            fprintf(stderr, "routebench %s: --cpu: %s\n", o->cmd, err.message);
            return CLI_USAGE;
        }
        b->pinned_cpu = o->cpu;
    }
    return CLI_OK;
}

/* What will be measured, on what, and how long it will take. */
static void print_intro(session_options *o, const rb_bundle *b)
{
    FILE *out = o->human;
    if (rb_metric_exact(o->metric))
        fprintf(out,
                "routebench %s: %zu scenario%s x %zu router%s, --metric %s: Callgrind counts one "
                "replay of each (after one uncounted), seed %llu\n",
                o->cmd, o->scenarios.n, o->scenarios.n == 1 ? "" : "s", o->nrouters,
                o->nrouters == 1 ? "" : "s", rb_metric_name(o->metric),
                (unsigned long long)o->seed);
    else
        fprintf(out,
                "routebench %s: %zu scenario%s x %zu router%s, %u trials (+%u warm-up) of >= %g "
                "ms (%s), seed %llu\n",
                o->cmd, o->scenarios.n, o->scenarios.n == 1 ? "" : "s", o->nrouters,
                o->nrouters == 1 ? "" : "s", o->proto.trials, o->proto.warmup,
                o->proto.min_trial_ms,
                o->metric == RB_METRIC_HW_INSTRUCTIONS ? "hardware instruction counter"
                : b->cpu_clock                         ? "thread CPU clock"
                                                       : "wall clock",
                (unsigned long long)o->seed);
    fprintf(out, "in-process lookups on %s (%ld cores), not HTTP requests per second\n",
            b->cpu_model, b->cores);
    if (!b->optimized || b->sanitized)
        fprintf(out, "WARNING: %s build: these numbers do not show what the routers can do\n",
                b->sanitized ? "sanitized" : "unoptimised");
    fflush(out);
    o->cpu_share = progress_cpu_share();
    o->estimate_s = print_estimate(o, o->cpu_share);
    warn_linear(o);
}

/* The run's own warnings: trials measured again, trials disturbed. */
static int add_run_warnings(rb_bundle *b)
{
    uint64_t disturbed = 0, short_trials = 0, recalibrated = 0;
    for (size_t i = 0; i < b->nscenarios; i++)
        for (size_t k = 0; k < b->scenarios[i].nresults; k++) {
            disturbed += b->scenarios[i].results[k].disturbed_trials;
            short_trials += b->scenarios[i].results[k].short_trials;
            recalibrated += b->scenarios[i].results[k].recalibrated;
        }
    int rc = RB_OK;
    char text[512];
    if (recalibrated) {
        snprintf(text, sizeof text,
                 "%llu router%s ran trials shorter than --min-trial-ms %g (the machine was "
                 "faster than during calibration) and %s recalibrated and measured again; "
                 "%llu trial%s still fell short%s",
                 (unsigned long long)recalibrated, recalibrated == 1 ? "" : "s", b->min_trial_ms,
                 recalibrated == 1 ? "was" : "were", (unsigned long long)short_trials,
                 short_trials == 1 ? "" : "s",
                 short_trials ? " (counted in short_trials; the machine's speed is drifting)" : "");
        rc = rb_bundle_add_warning(b, text);
    }
    if (disturbed && rc == RB_OK) {
        snprintf(text, sizeof text,
                 "%llu of %zu measured trials were disturbed: the benchmark thread had the CPU "
                 "for less than %.0f%% of the trial's wall time (other work ran on its core). "
                 "%s",
                 (unsigned long long)disturbed, b->ntrials, RB_BENCH_DISTURBED_SHARE * 100,
                 b->cpu_clock ? "The times are the thread's CPU time, so the preemption itself "
                                "is left out; the other work still shared caches and the core."
                              : "Pairing cancels part of this; medians and intervals are less "
                                "trustworthy (a quieter machine, --cpu N or --clock cpu help).");
        rc = rb_bundle_add_warning(b, text);
    }
    return rc;
}

/* After the scenarios: the duration, the warnings, the geometric means,
 * the gate. */
static int summarise(session_options *o, rb_bundle *b, double elapsed_s)
{
    rb_error err;
    b->loadavg_end = rb_machine_loadavg();
    b->duration_s = elapsed_s;
    int rc = rb_sysinfo_warnings(b);
    if (rc == RB_OK) rc = add_run_warnings(b);
    if (rc < 0 || rb_bundle_compute_geomeans(b, &err) < 0)
        return cli_system_error(o->cmd, "out of memory summarising");
    if (o->gate.on) {
        b->gate = o->gate;
        if (rb_bundle_decide_gate(b, &err) < 0)
            return cli_error(o->cmd, "the gate: %s", err.message);
    }
    if (strcmp(o->cmd, "pair") == 0 && o->nrouters == 2 && rb_bundle_noise_note(b) < 0)
        return cli_system_error(o->cmd, "out of memory summarising");
    return CLI_OK;
}

/* The end on the terminal, then the files: the bundle, --json, --export-*. */
static int write_outputs(session_options *o, const rb_bundle *b)
{
    rb_error err;
    rb_console_opts copts = {o->verbose};
    rb_buf text = {0};
    rb_console_summary(b, &copts, &text);
    if (text.data) fwrite(text.data, 1, text.len, o->human);
    rb_buf_free(&text);
    if (o->out) {
        if (rb_bundle_write_dir(b, o->out, o->inputs, o->ninputs, &err) < 0)
            return cli_system_error(o->cmd, "writing the bundle: %s", err.message);
        fprintf(o->human, "\n");
        cli_print_bundle_files(o->human, o->out, b);
    } else if (!o->json && !o->export_json && !o->export_csv) {
        fprintf(o->human, "(--out DIR writes the bundle: report.html, report.md, charts, data)\n");
    }
    if (o->json || o->export_json) {
        rb_buf j = {0};
        int rc = rb_bundle_json_write(b, &j, &err) < 0 ? cli_system_error(o->cmd, "%s", err.message)
                                                       : CLI_OK;
        if (rc == CLI_OK && o->export_json)
            rc = cli_write_output(o->cmd, o->export_json, j.data, j.len);
        if (rc == CLI_OK && o->json) rc = cli_write_output(o->cmd, "-", j.data, j.len);
        rb_buf_free(&j);
        if (rc != CLI_OK) return rc;
    }
    if (o->export_csv) {
        rb_buf c = {0};
        int rc = rb_bundle_csv_write(b, &c, &err) < 0
                     ? cli_system_error(o->cmd, "%s", err.message)
                     : cli_write_output(o->cmd, o->export_csv, c.data, c.len);
        rb_buf_free(&c);
        if (rc != CLI_OK) return rc;
    }
    return CLI_OK;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The session: the scenarios measured one by one, summarised, handed to
 * the renderers (the terminal, then the bundle's files). */
int session_run(session_options *o, int argc, char **argv, rb_bundle *b)
{
    int status = begin(o, argc, argv, b);
    if (status != CLI_OK) return status;
    print_intro(o, b);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    session_progress pg = {.o = o};
    progress_start(&pg.bar, stderr, isatty(STDERR_FILENO) != 0, passes_of(o), o->estimate_s);
    for (size_t i = 0; i < o->scenarios.n; i++) {
        int s = one_scenario(o, b, i, &pg);
        if (s == CLI_USAGE || s == CLI_SYSTEM) return s;
        if (s > status) status = s;
    }
    progress_clear(&pg.bar);
    int s = summarise(o, b, seconds_since(&start));
    if (s == CLI_OK) s = write_outputs(o, b);
    char took[32], est[32];
    progress_fmt_seconds(b->duration_s, took, sizeof took);
    progress_fmt_seconds(o->estimate_s, est, sizeof est);
    fflush(o->human);
    fprintf(stderr, "routebench %s: took %s (estimated %s)\n", o->cmd, took, est);
    return s != CLI_OK ? s : status;
}
