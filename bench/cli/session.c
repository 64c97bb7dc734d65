/*
 * session.c — the command side of a measured session (session.h): the
 * options, the estimate, progress and tables on the terminal, the outputs;
 * bench/suite/suite.c runs the session itself.
 */
#define _POSIX_C_SOURCE 200809L
#include "session.h"

#include "cli.h"
#include "suite_estimate.h"
#include "suite_routers.h"
#include "router_list.h"
#include "output.h"
#include "progress.h"
#include "console_session.h"
#include "report_console.h"
#include "base_internal.h"
#include "machine.h"
#include "verify.h"
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void add_export_options(void);

void session_options_init(session_options *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    rb_suite_init(&o->run);
    add_export_options();
    o->human = stdout;
}

void session_options_free(session_options *o)
{
    rb_suite_free(&o->run);
}

int session_add_ops(session_options *o, const rb_router_ops *ops, const char *label)
{
    rb_error err;
    if (rb_suite_add_ops(&o->run, ops, label, &err) < 0)
        return cli_error(o->cmd, "%s", err.message);
    return CLI_OK;
}

/* A counted metric's parent checks the options and hands the run to the
 * same command under Callgrind, which says the notes: the parent does not. */
static bool hands_over(const session_options *o)
{
    rb_error err;
    return rb_suite_metric_where(o->run.metric, &err) != RB_SUITE_METRIC_HERE;
}

/* A built-in peer runner that is not built, or could not be added. */
static void peer_note(void *ctx, const char *why)
{
    const session_options *o = ctx;
    if (!hands_over(o)) fprintf(stderr, "routebench %s: note: %s\n", o->cmd, why);
}

void session_add_builtin_peers(session_options *o)
{
    if (!rb_suite_add_builtin_peers(&o->run, o->langs, peer_note, o) && o->langs && !hands_over(o))
        fprintf(stderr,
                "routebench %s: note: no built-in peer runner is in --lang %s (Go, Rust, "
                "Node)\n",
                o->cmd, o->langs);
}

/* --peer NAME=COMMAND: field is the suite; it joins the routers in
 * session_finish_scenarios (after the baseline). */
static int take_peer(void *field, const char *v, rb_error *err)
{
    rb_peer_spec spec;
    int rc = rb_peer_spec_parse(v, &spec, err);
    return rc < 0 ? rc : rb_suite_add_peer(field, &spec, err);
}

int session_add_router(session_options *o, const char *spec)
{
    rb_error err;
    if (rb_suite_add_spec(&o->run, spec, &err) < 0) return cli_error(o->cmd, "%s", err.message);
    return CLI_OK;
}

static int add_listed_ops(void *o, const rb_router_ops *ops, const char *label)
{
    return session_add_ops(o, ops, label);
}

static int add_listed_router(void *o, const char *spec)
{
    return session_add_router(o, spec);
}

int session_add_routers(session_options *o, const char *list, const rb_plugins *plugins, bool limit)
{
    if (!list) return rb_router_list_every(plugins, limit, add_listed_ops, o);
    int rc = rb_router_list_names(list, add_listed_router, o);
    if (rc == RB_EINVAL)
        return cli_error(o->cmd, "--routers: an empty or too long name in '%s'", list);
    return rc;
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
    CLI_OPT_CALL("--scenarios", "LIST", S(run.scenarios), take_scenarios,
                 "comma-separated: SHAPE-N (e.g. params-1000; SHAPE-nc-N: without static/param "
                 "conflicts, for peers; SHAPE-v1-N or SHAPE-nc-v1-N: generator v1, which made the "
                 "figures published before v2), SHAPE (at 100, 1000, 10000 routes), default, "
                 "shipped, or a shipped corpus name (routebench list); default: the default suite",
                 .alias = "--scenario", .flags = CLI_REPEAT),
    CLI_OPT_CALL("--shape", "S[,S]", S(run.scenarios), take_shapes,
                 "the suite of shape S at 100, 1000, 10000 routes (static, params, mixed, "
                 "catchall, glob, templates)",
                 .flags = CLI_REPEAT),
    CLI_OPT_STRING("--routes", "FILE", S(routes_file), "a scenario from your own route table ...",
                   .requires = "--requests"),
    CLI_OPT_STRING("--requests", "FILE", S(requests_file),
                   "... and request table (routebench corpus requests)", .requires = "--routes"),
    CLI_OPT_CHOICE("--metric", "M", S(run.metric), metrics,
                   "what a lookup costs: time (on --clock), instructions (counted by Callgrind: "
                   "exact, the same for two builds of the same code), cycles-est (Callgrind's "
                   "cache simulation: L1 hits + 5 x LL hits + 35 x RAM accesses), hw-instructions "
                   "(the hardware counter, where the machine has one)",
                   .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_CHOICE("--mode", "throughput|latency", S(run.mode), modes,
                   "throughput: lookups back to back (they may overlap in the pipeline); latency: "
                   "each lookup's request is chosen by the previous answer, so none overlap, as in "
                   "a server that waits for the route before running the handler",
                   .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_CHOICE(
        "--cache", "warm|cold", S(run.cache), caches,
        "cold: between lookups a stand-in for the application touches --app-bytes of other memory "
        "(evicting the router's lines); each lookup is timed on its own, the stand-in outside the "
        "intervals, and the clock's own cost, measured alone in every round, is subtracted",
        .flags = CLI_SHOW_DEFAULT),
    SESSION_OPT_APP_BYTES(
        S(run.app_bytes),
        "bytes the application stand-in touches between two lookups (--cache cold)"),
    CLI_OPT_FLAG(
        "--peers", S(peers_all),
        "also run the built-in peer runners that are built (Go, Rust, Node: `routebench list` "
        "names them; scripts/setup.sh --peers); a missing one is a note, not an error"),
    SESSION_OPT_LANG(S(langs)),
    CLI_OPT_CALL("--peer", "NAME=CMD", S(run), take_peer,
                 "a peer runner of your own (docs/peer-protocol.md), started as CMD ROUTES "
                 "REQUESTS; repeatable",
                 .flags = CLI_REPEAT),
    CLI_ROUTER_LIB(S(run.plugins),
                   "load a plugin library of routers (repeatable); its routers are NAME@LIB"),
    {0}};

/* The fixed rows, then one --export-* row per output of the table that has
 * an option (bench/report/output.h), added by session_options_init. */
#define SESSION_PROTOCOL_FIXED 9
cli_option session_protocol_table[SESSION_PROTOCOL_FIXED + SESSION_MAX_EXPORTS + 1] = {
    CLI_OPT_RANGE(CLI_UINT, "--trials", "N", S(run.proto.trials), 1, 100000,
                  "measured trials per router (the 95% sign-test interval of 9 pairs covers "
                  "96.1%; 15 for a gate; counted metrics need none: one replay decides)",
                  .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_RANGE(CLI_UINT, "--warmup", "N", S(run.proto.warmup), 0, 1000,
                  "discarded warm-up rounds", .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_DOUBLE("--min-trial-ms", "X", S(run.proto.min_trial_ms), 0.001, 600000,
                   "a trial lasts at least X ms", .flags = CLI_SHOW_DEFAULT),
    CLI_SEED(S(run.seed), CLI_SHOW_DEFAULT,
             "seed of the generated tables and requests and of the round orders"),
    CLI_OPT_RANGE(CLI_INT, "--cpu", "N", S(run.cpu), 0, 4095,
                  "pin to CPU N (sched_setaffinity; default: not pinned)"),
    CLI_OPT_CHOICE("--clock", "wall|cpu", S(run.proto.clock), clocks,
                   "time trials by elapsed time (CLOCK_MONOTONIC) or by the thread's CPU time "
                   "(CLOCK_THREAD_CPUTIME_ID: leaves out time other processes held the core; for "
                   "busy machines)",
                   .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_STRING("--out", "DIR", S(out),
                   "write the bundle: summary.json, trials.csv, report.md and the charts.  DIR "
                   "must be new, empty or an old bundle (checked before measuring); the bundle is "
                   "written beside it and replaces it whole at the end"),
    CLI_OPT_FLAG("--json", S(json),
                 "print summary.json's document on stdout (the tables go to stderr)"),
    CLI_OPT_FLAG("--verbose", S(verbose),
                 "also print each table's fingerprints, checksums and the verdict's paragraph",
                 .alias = "-v"),
};

/* The --export-* rows from the table of outputs, once. */
static void add_export_options(void)
{
    cli_option *row = &session_protocol_table[SESSION_PROTOCOL_FIXED];
    if (row->name) return;
    for (size_t i = 0, k = 0; i < rb_output_count() && k < SESSION_MAX_EXPORTS; i++) {
        const rb_output *out = rb_output_at(i);
        if (!out->option) continue;
        row[k] = (cli_option)CLI_OPT_STRING(out->option, "FILE",
                                            S(exports) + k * sizeof(const char *), out->help);
        k++;
    }
}
#undef S

/* The output written by --export-* row k. */
static const rb_output *export_output(size_t k)
{
    return rb_output_find(session_protocol_table[SESSION_PROTOCOL_FIXED + k].name);
}

int session_finish_scenarios(session_options *o)
{
    rb_error err;
    if (o->peers_all || o->langs) session_add_builtin_peers(o);
    if (rb_suite_finish(&o->run, o->routes_file, o->requests_file, &err) < 0)
        return cli_error(o->cmd, "%s", err.message);
    if (o->json) o->human = stderr;
    /* fail before measuring, not after */
    if (o->out && rb_bundle_prepare_dir(o->out, &err) < 0)
        return cli_error(o->cmd, "--out: %s", err.message);
    for (size_t k = 0; k < SESSION_MAX_EXPORTS; k++)
        if (o->exports[k] &&
            cli_check_output_file(o->cmd, export_output(k)->option, o->exports[k]) != CLI_OK)
            return CLI_USAGE;
    return CLI_OK;
}

int session_metric_dispatch(session_options *o, int argc, char **argv, bool *handled)
{
    rb_error err;
    int where = rb_suite_metric_where(o->run.metric, &err);
    *handled = where != RB_SUITE_METRIC_HERE;
    if (where < 0) return cli_error(o->cmd, "%s", err.message);
    if (where == RB_SUITE_METRIC_HERE) return CLI_OK;
    int status = CLI_USAGE;
    fflush(stdout);
    if (rb_callgrind_run(argc, argv, o->run.metric == RB_METRIC_CYCLES_EST, &status, &err) < 0)
        return cli_error(o->cmd, "--metric %s: %s", rb_metric_name(o->run.metric), err.message);
    return status;
}

/* ---- progress on stderr --------------------------------------------------------------------- */

/* The bar (progress.h) and the model's parts of the current pass, so the
 * harness's steps map to a share of the pass. */
typedef struct session_progress {
    progress bar;
    session_options *o; /* for router labels */
    rb_estimate_parts parts;
    double pass_s;
    bool generated; /* the pass's scenario is generated, not read */
} session_progress;

static const char *label_of(const session_options *o, const rb_router_ops *ops)
{
    return rb_suite_label(&o->run, ops);
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

/* ---- before the work: how long, and what will be slow ---------------------------------------- */

/* linear tries every route of a table on each lookup: on 10k+ routes its
 * build check and its trials take long; say so once, with the tables
 * concerned and how to leave it out. */
static void warn_linear(const session_options *o)
{
    char tables[512], others[1024];
    size_t count = rb_suite_linear_slow(&o->run, tables, sizeof tables, others, sizeof others);
    if (!count) return;
    bool n = others[0] != '\0';
    fprintf(stderr,
            "routebench %s: warning: linear (the reference) tries every route on each lookup, "
            "and %s ha%s %d routes or more: its checks and trials grow with the table; %s%s\n",
            o->cmd, tables, count == 1 ? "s" : "ve", RB_SUITE_LINEAR_WARN_ROUTES,
            n && o->leave_out ? o->leave_out : "choose another router",
            n && o->leave_out && o->leave_out[strlen(o->leave_out) - 1] == ' ' ? others : "");
}

/* The whole session's estimate, said before the work starts; returns it. */
static double print_estimate(const session_options *o, double share)
{
    double total = rb_suite_estimate(&o->run, share);
    size_t passes = rb_suite_passes(&o->run);
    char t[64];
    progress_fmt_seconds(total, t, sizeof t);
    fprintf(stderr, "routebench %s: estimated %s: %zu pass%s x %zu router%s%s\n", o->cmd, t, passes,
            passes == 1 ? "" : "es", o->run.nrouters, o->run.nrouters == 1 ? "" : "s",
            share < 0.8 && !rb_metric_exact(o->run.metric)
                ? " (a busy machine: trials may run short and be measured again)"
                : "");
    return total;
}

/* What will be measured, on what, and how long it will take. */
static void print_intro(session_options *o, const rb_bundle *b)
{
    rb_console_intro in = {o->cmd,        o->run.scenarios.n, o->run.nrouters,
                           o->run.metric, o->run.proto,       o->run.seed};
    rb_buf text = {0};
    rb_console_intro_text(b, &in, &text);
    cli_put(o->human, &text);
    fflush(o->human);
    o->cpu_share = rb_suite_cpu_share();
    o->estimate_s = print_estimate(o, o->cpu_share);
    warn_linear(o);
}

/* The pass on the terminal (the console renderer: its disagreement lines
 * name each router's first differing request), with what only the run
 * knows: the peers' agreement (choose: once both conditions of a table
 * are measured). */
static void show_pass(void *ctx, const rb_bundle *b, const rb_suite_pass *p)
{
    session_progress *pg = ctx;
    const session_options *o = pg->o;
    progress_clear(&pg->bar);
    rb_console_opts copts = {o->verbose};
    rb_buf text = {0};
    rb_console_scenario(b, b->nscenarios - 1, &copts, &text);
    for (size_t i = 0; i < p->nnotes; i++)
        rb_console_peer_note(label_of(o, p->notes[i].ops), &p->notes[i].a, o->verbose, &text);
    cli_put(o->human, &text);
    fflush(o->human);
}

/* A new pass on the progress display, with the model's parts. */
static void start_pass(void *ctx, size_t i, bool cold, const char *what)
{
    session_progress *pg = ctx;
    const session_options *o = pg->o;
    char name[160];
    pg->generated = o->run.scenarios.v[i].kind == RB_SCENARIO_GENERATED;
    pg->pass_s = rb_suite_pass_estimate(&o->run, i, cold, o->cpu_share, &pg->parts);
    snprintf(name, sizeof name, "%s%s", o->run.scenarios.v[i].name, what);
    progress_pass(&pg->bar, name, pg->pass_s);
}

/* The suite's stages on the progress display, at their share of the pass. */
static void on_stage(void *ctx, rb_suite_stage st)
{
    session_progress *pg = ctx;
    switch (st) {
    case RB_SUITE_LOADING:
        progress_note(pg, pg->generated ? "generating" : "loading", 0);
        break;
    case RB_SUITE_CHECKING:
        progress_note(pg, "checking every answer against linear",
                      pg->pass_s > 0 ? 0.5 * pg->parts.prep_s / pg->pass_s : 0);
        break;
    case RB_SUITE_PEERS:
        progress_note(pg, "starting the peer runners", 0);
        break;
    case RB_SUITE_COUNTING:
        progress_note(pg, "counting instructions (Callgrind)", 0.5);
        break;
    case RB_SUITE_COUNTING_PEER:
        progress_note(pg, "counting a peer runner's instructions (Callgrind)", 0);
        break;
    }
}

static void on_skipped(void *ctx, const char *scenario, const char *skipped,
                       const rb_suite_refusals *ref)
{
    session_progress *pg = ctx;
    progress_clear(&pg->bar);
    rb_buf text = {0};
    rb_console_skipped(scenario, skipped, ref->v, ref->n, &text);
    cli_put(pg->o->human, &text);
}

static void on_failed(void *ctx, const char *scenario, const rb_error *err)
{
    session_progress *pg = ctx;
    progress_clear(&pg->bar);
    cli_error(pg->o->cmd, "scenario %s: %s", scenario, err->message);
}

static void on_begun(void *ctx, const rb_bundle *b)
{
    session_progress *pg = ctx;
    print_intro(pg->o, b);
    progress_start(&pg->bar, stderr, isatty(STDERR_FILENO) != 0, rb_suite_passes(&pg->o->run),
                   pg->o->estimate_s);
}

static bool any_export(const session_options *o)
{
    for (size_t k = 0; k < SESSION_MAX_EXPORTS; k++)
        if (o->exports[k]) return true;
    return false;
}

/* Render out of b into path ("-": stdout). */
static int write_output(const session_options *o, const rb_output *out, const rb_bundle *b,
                        const char *path)
{
    rb_error err;
    rb_buf text = {0};
    int rc = rb_output_render(out, b, &text, &err) < 0
                 ? cli_system_error(o->cmd, "%s", err.message)
                 : cli_write_output(o->cmd, path, text.data ? text.data : "", text.len);
    rb_buf_free(&text);
    return rc;
}

/* The end on the terminal, then the files: the bundle, --export-*, --json. */
static int write_outputs(session_options *o, const rb_bundle *b)
{
    rb_error err;
    rb_console_opts copts = {o->verbose};
    rb_buf text = {0};
    rb_console_summary(b, &copts, &text);
    cli_put(o->human, &text);
    if (o->out) {
        if (rb_bundle_write_dir(b, o->out, o->inputs, o->ninputs, &err) < 0)
            return cli_system_error(o->cmd, "writing the bundle: %s", err.message);
        fprintf(o->human, "\n");
        cli_print_bundle_files(o->human, o->out, b);
    } else if (!o->json && !any_export(o)) {
        fprintf(o->human, "(--out DIR writes the bundle: report.html, report.md, charts, data)\n");
    }
    for (size_t k = 0; k < SESSION_MAX_EXPORTS; k++) {
        if (!o->exports[k]) continue;
        int rc = write_output(o, export_output(k), b, o->exports[k]);
        if (rc != CLI_OK) return rc;
    }
    if (o->json) return write_output(o, rb_output_find("json"), b, "-");
    return CLI_OK;
}

/* The session: the suite measures the scenarios (the terminal shows each
 * pass), then the outputs (the terminal's end, the bundle's files). */
int session_run(session_options *o, int argc, char **argv, rb_bundle *b)
{
    rb_error err;
    session_progress pg = {.o = o};
    rb_suite_hooks h = {&pg,         on_begun,  start_pass, on_stage,
                        on_progress, show_pass, on_skipped, on_failed};
    int status = rb_suite_run(&o->run, &h, b, &err);
    progress_clear(&pg.bar);
    cli_command_line(argc, argv, b->command, sizeof b->command);
    if (status == RB_SUITE_INPUT || status == RB_SUITE_SYSTEM) { /* a scenario's: said */
        if (err.message[0]) cli_error(o->cmd, "%s", err.message);
        return status;
    }
    int s = write_outputs(o, b);
    char took[32], est[32];
    progress_fmt_seconds(b->duration_s, took, sizeof took);
    progress_fmt_seconds(o->estimate_s, est, sizeof est);
    fflush(o->human);
    fprintf(stderr, "routebench %s: took %s (estimated %s)\n", o->cmd, took, est);
    return s != CLI_OK ? s : status;
}
