/*
 * cmd_http.c — `routebench http`: the routers inside a real HTTP server,
 * measured over loopback (the protocol is in bench/http/http.h; this file reads
 * options, reports progress and prints the report).
 */
#include "base_internal.h"
#include "cli.h"
#include "http_inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the table parser fills; copied into rb_http_options after. */
typedef struct http_cli {
    rb_http_options o;
    const char *routers, *corpus, *out, *server, *wrk;
    unsigned duration;
    rb_http_inputs in; /* what o points into */
} http_cli;

#define H(f) offsetof(http_cli, f)

/* --router-lib LIB: append to o.router_libs (the servers load them too). */
static int take_router_lib(void *field, const char *v, rb_error *err)
{
    rb_http_options *o = field;
    if (o->nlibs == RB_HTTP_MAX_ROUTERS)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "at most %d libraries", RB_HTTP_MAX_ROUTERS);
    o->router_libs[o->nlibs++] = v;
    return RB_OK;
}

static const cli_option tables_table[] = {
    CLI_OPT_STRING("--routes", "F", H(o.routes_path), "the route table (METHOD PATTERN lines)",
                   .requires = "--requests"),
    CLI_OPT_STRING("--requests", "F", H(o.requests_path),
                   "the request table (METHOD PATH EXPECTED lines)", .requires = "--routes"),
    CLI_OPT_STRING("--corpus", "NAME", H(corpus), "a shipped corpus instead (routebench list)",
                   .excludes = "--routes --requests"),
    CLI_OPT_STRING(
        "--routers", "LIST", H(routers),
        "router specs, NAME or NAME@LIB, comma-separated; the first is the baseline of the ratios",
        .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_CALL("--router-lib", "LIB", H(o), take_router_lib,
                 "load a plugin library first (repeatable; the servers load it too)",
                 .flags = CLI_REPEAT),
    {0}};

static const cli_option protocol_table[] = {
    CLI_OPT_RANGE(CLI_UINT, "--trials", "N", H(o.trials), 1, 1000, "measured wrk rounds per router",
                  .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_RANGE(CLI_UINT, "--warmup", "N", H(o.warmup), 0, 100, "warm-up rounds, discarded",
                  .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_RANGE(CLI_UINT, "--duration", "S", H(duration), 1, 3600,
                  "seconds of one wrk run (whole seconds: wrk's -d)", .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_RANGE(CLI_UINT, "--connections", "N", H(o.connections), 1, 1000,
                  "keep-alive connections of wrk and of the latency generator",
                  .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_DOUBLE(
        "--rate-fraction", "F", H(o.rate_fraction), 1e-6, 1,
        "latency is measured at F x the slowest router's capacity, the same rate for all",
        .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_DOUBLE("--latency-duration", "S", H(o.latency_s), 0.01, 3600,
                   "seconds of each open-loop latency run", .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_RANGE(CLI_UINT, "--timeout-ms", "N", H(o.timeout_ms), 1, 3600000,
                  "per request (a server that does not answer is killed), and for wrk",
                  .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_RANGE(CLI_UINT, "--lookup-trials", "N", H(o.lookup_trials), 1, 1000,
                  "in-process lookup trials for the router's share", .flags = CLI_SHOW_DEFAULT),
    {0}};

static const cli_option machine_table[] = {
    CLI_OPT_RANGE(CLI_INT, "--server-cpu", "N", H(o.server_cpu), 0, 1023,
                  "the CPU the servers (and the in-process lookups) run on",
                  .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_RANGE(CLI_INT, "--client-cpu", "N", H(o.client_cpu), 0, 1023,
                  "the CPU wrk and the latency generator run on", .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_RANGE(CLI_UINT, "--port", "N", H(o.port), 0, 65535,
                  "first server port, then N+1, ...; 0: free ports the kernel picks, never in use",
                  .flags = CLI_SHOW_DEFAULT),
    CLI_OPT_STRING("--server", "PATH", H(server),
                   "the server (default: routebench-http-server next to this executable)"),
    CLI_OPT_STRING("--wrk", "PATH", H(wrk), "wrk (default: wrk on PATH)"),
    CLI_OPT_STRING("--out", "DIR", H(out), "write http.json, http_trials.csv and http.md into DIR"),
    {0}};

static const cli_command http_command = {
    .name = "http",
    .synopsis = "--routes F --requests F [--routers a,b,...] [options]\n"
                "--corpus NAME [--routers a,b,...] [options]\n",
    .about = "Runs each router inside a real HTTP/1.1 server (routebench-http-server, "
             "libmicrohttpd, one epoll thread, pinned to one CPU) on 127.0.0.1 and drives it with "
             "wrk pinned to the other CPU.  First the validity gate: every request of the table "
             "once over HTTP; status, route id, captures and Allow must equal linear's answer, or "
             "the load phase is refused, naming the first wrong request.  Then a warm-up and "
             "several measured wrk rounds, routers in balanced (Williams) order: capacity = median "
             "HTTP requests/s, paired speed ratios against the first router with 95% bootstrap "
             "intervals; then latency percentiles at one offered rate for every router (a "
             "fraction of the slowest capacity, open loop, corrected for coordinated omission); "
             "and the router's share of a request = its in-process lookup time on the same table "
             "/ the time per HTTP request at capacity (and / the server's CPU time per "
             "request).\n\n"
             "Everything is HTTP requests per second over loopback on this machine, never a "
             "lookup rate.  Needs the Debian packages libmicrohttpd-dev (at build time) and wrk: "
             "bash scripts/setup.sh --http installs both.  docs/http.md has the details.\n",
    .tables = {{"tables and routers", tables_table, 0},
               {"protocol", protocol_table, 0},
               {"machine and outputs", machine_table, 0}},
    .epilog = "exit status: 0 ok, 1 a server failed the validity gate, crashed, hung or wrk\n"
              "             failed, 2 usage/input error, a missing package, the port in use\n",
};

static void progress(void *ctx, const char *what, const char *spec, size_t done, size_t total)
{
    (void)ctx;
    if (spec)
        fprintf(stderr, "http: %-8s %-20s (%zu/%zu)\n", what, spec, done + 1, total);
    else
        fprintf(stderr, "http: %s\n", what);
}

/* Parse argv; CLI_CONTINUE to go on, else the exit status. */
static int parse_args(http_cli *c, int argc, char **argv)
{
    rb_http_options *o = &c->o;
    rb_http_options_init(o);
    c->routers = "hashseg,radix,linear";
    c->duration = (unsigned)o->trial_s;
    int status = cli_args(&http_command, c, argc, argv);
    if (status != CLI_CONTINUE) return status;
    o->trial_s = c->duration;
    if (c->wrk) o->wrk_path = c->wrk;
    rb_error err;
    if (rb_http_inputs_resolve(o, &c->in, c->routers, c->corpus, c->server, &err) < 0)
        return cli_error("http", "%s", err.message);
    return CLI_CONTINUE;
}

/* The parsed options: the run into res, the report, the bundle. */
static int http(http_cli *c, rb_http_result *res, int argc, char **argv)
{
    char command[2048];
    cli_command_line(argc, argv, command, sizeof command);
    rb_error err;
    if (c->out && rb_http_prepare_dir(c->out, &err) < 0)
        return cli_error("http", "--out: %s", err.message);
    if (rb_http_run(&c->o, progress, NULL, res, &err) < 0) {
        cli_error("http", "%s", err.message);
        if (res->detail[0]) {
            fprintf(stderr, "---- its stderr (last lines) ----\n%s", res->detail);
            if (res->detail[strlen(res->detail) - 1] != '\n') fputc('\n', stderr);
            fprintf(stderr, "----\n");
        }
        return res->fault ? CLI_FAILED : CLI_USAGE;
    }
    int status = CLI_OK;
    rb_buf text = {0};
    rb_http_report(&c->o, res, command, false, &text);
    cli_put(stdout, &text);
    if (!res->gate_passed) {
        const rb_http_router_result *x = &res->results[res->gate_failed];
        fprintf(stderr,
                "routebench http: %s failed the validity gate (request %zu, %s); the load "
                "phase is refused\n",
                x->spec, x->gate.first_wrong + 1, x->gate.first_what);
        status = CLI_FAILED;
    }
    if (c->out) {
        if (rb_http_write_bundle(&c->o, res, command, c->out, &err) < 0)
            status = cli_error("http", "--out %s: %s", c->out, err.message);
        else
            printf("\nbundle: %s/http.json, http_trials.csv, http.md\n", c->out);
    }
    return status;
}

int cmd_http(int argc, char **argv)
{
    http_cli *c = calloc(1, sizeof *c);
    rb_http_result *res = calloc(1, sizeof *res);
    int status = !c || !res ? cli_system_error("http", "out of memory") : parse_args(c, argc, argv);
    if (status == CLI_CONTINUE) status = http(c, res, argc, argv);
    if (res) rb_http_result_free(res);
    free(res);
    free(c);
    return status;
}
