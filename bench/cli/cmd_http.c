/*
 * cmd_http.c — `routebench http`: the routers inside a real HTTP server,
 * measured over loopback (the protocol is in bench/http.h; this file reads
 * options, reports progress and prints the report).
 */
#define _GNU_SOURCE
#include "cli.h"
#include "http.h"
#include "shipped.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: routebench http --routes F --requests F [--routers a,b,...] [options]\n"
    "       routebench http --corpus SHIPPED_NAME [--routers a,b,...] [options]\n"
    "\n"
    "Runs each router inside a real HTTP/1.1 server (routebench-http-server,\n"
    "libmicrohttpd, one epoll thread, pinned to one CPU) on 127.0.0.1 and drives it\n"
    "with wrk pinned to the other CPU.  First the validity gate: every request of the\n"
    "table once over HTTP; status, route id, captures and Allow must equal linear's\n"
    "answer, or the load phase is refused, naming the first wrong request.  Then a\n"
    "warm-up and several measured wrk rounds, routers in balanced (Williams) order:\n"
    "capacity = median HTTP requests/s, paired speed ratios against the first router\n"
    "with 95% bootstrap intervals; then latency percentiles at one offered rate for\n"
    "every router (a fraction of the slowest capacity, open loop, corrected for\n"
    "coordinated omission); and the router's share of a request = its in-process\n"
    "lookup time on the same table / the time per HTTP request at capacity.\n"
    "\n"
    "Everything is HTTP requests per second over loopback on this machine, never a\n"
    "lookup rate.  Needs the Debian packages libmicrohttpd-dev (at build time) and\n"
    "wrk: bash scripts/setup.sh --http installs both.\n"
    "\n"
    "options:\n"
    "  --routes F --requests F   the tables (or --corpus NAME, a shipped corpus)\n"
    "  --routers LIST        router specs, NAME or NAME@LIB, comma-separated; the first\n"
    "                        is the baseline of the ratios (default hashseg,radix,linear)\n"
    "  --router-lib LIB      load a plugin library first (repeatable; the servers too)\n"
    "  --trials N            measured wrk rounds (default 6)\n"
    "  --warmup N            warm-up rounds, discarded (default 1)\n"
    "  --duration S          seconds of one wrk run, whole (default 3)\n"
    "  --connections N       keep-alive connections (default 8)\n"
    "  --rate-fraction F     latency at F x the slowest capacity (default 0.5)\n"
    "  --latency-duration S  seconds of each open-loop latency run (default 5)\n"
    "  --timeout-ms N        per request, and for start-up and wrk (default 5000)\n"
    "  --server-cpu N, --client-cpu N   the two CPUs (default 1 and 0)\n"
    "  --port N              first server port, then N+1, ... (default 0: free ports\n"
    "                        chosen by the kernel, never in use)\n"
    "  --lookup-trials N     in-process lookup trials for the share (default 5)\n"
    "  --server PATH         the server (default: routebench-http-server next to\n"
    "                        this executable)\n"
    "  --wrk PATH            wrk (default: wrk on PATH)\n"
    "  --out DIR             write http.json, http_trials.csv and http.md into DIR\n"
    "\n"
    "exit status: 0 ok, 1 a server failed the validity gate, crashed, hung or wrk\n"
    "             failed, 2 usage/input error, a missing package, the port in use\n";

typedef struct http_cli {
    rb_http_options o;
    char routers_buf[1024];
    char server_path[4096];
    char rpath[4096], qpath[4096];
    const char *out, *corpus;
} http_cli;

static void progress(void *ctx, const char *what, const char *spec, size_t done, size_t total)
{
    (void)ctx;
    if (spec)
        fprintf(stderr, "http: %-8s %-20s (%zu/%zu)\n", what, spec, done + 1, total);
    else
        fprintf(stderr, "http: %s\n", what);
}

/* routebench-http-server beside /proc/self/exe */
static void default_server(http_cli *c)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(c->server_path, sizeof c->server_path, "routebench-http-server");
        return;
    }
    exe[n] = '\0';
    snprintf(c->server_path, sizeof c->server_path, "%s/routebench-http-server", dirname(exe));
}

static int split_routers(http_cli *c, const char *list)
{
    snprintf(c->routers_buf, sizeof c->routers_buf, "%s", list);
    c->o.nspecs = 0;
    for (char *save = NULL, *tok = strtok_r(c->routers_buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (c->o.nspecs == RB_HTTP_MAX_ROUTERS) {
            fprintf(stderr, "routebench http: at most %d routers\n", RB_HTTP_MAX_ROUTERS);
            return CLI_USAGE;
        }
        c->o.specs[c->o.nspecs++] = tok;
    }
    if (c->o.nspecs == 0) {
        fprintf(stderr, "routebench http: --routers needs at least one router\n");
        return CLI_USAGE;
    }
    return CLI_OK;
}

static int parse_uint(const char *opt, const char *v, unsigned long long min,
                      unsigned long long max, unsigned *out)
{
    unsigned long long x;
    if (!v || !cli_parse_u64(opt, v, min, max, &x)) return CLI_USAGE;
    *out = (unsigned)x;
    return CLI_OK;
}

static int parse_cpu(const char *opt, const char *v, int *out)
{
    unsigned x;
    if (parse_uint(opt, v, 0, 1023, &x) != CLI_OK) return CLI_USAGE;
    *out = (int)x;
    return CLI_OK;
}

static int parse_args(http_cli *c, int argc, char **argv)
{
    rb_http_options *o = &c->o;
    int status = split_routers(c, "hashseg,radix,linear");
    for (int i = 1; i < argc && status == CLI_OK; i++) {
        const char *v = NULL;
        double d;
        if (cli_is_help(argv[i])) {
            fputs(usage_text, stdout);
            return -1;
        } else if (cli_opt(argc, argv, &i, "--routes", &v)) {
            o->routes_path = v;
            if (!v) status = CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--requests", &v)) {
            o->requests_path = v;
            if (!v) status = CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--corpus", &v)) {
            c->corpus = v;
            if (!v) status = CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--routers", &v)) {
            status = v ? split_routers(c, v) : CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--router-lib", &v)) {
            if (!v || o->nlibs == RB_HTTP_MAX_ROUTERS)
                status = CLI_USAGE;
            else
                o->router_libs[o->nlibs++] = v;
        } else if (cli_opt(argc, argv, &i, "--trials", &v)) {
            status = parse_uint("--trials", v, 1, 1000, &o->trials);
        } else if (cli_opt(argc, argv, &i, "--warmup", &v)) {
            status = parse_uint("--warmup", v, 0, 100, &o->warmup);
        } else if (cli_opt(argc, argv, &i, "--duration", &v)) {
            unsigned s = 0;
            status = parse_uint("--duration", v, 1, 3600, &s);
            if (status == CLI_OK) o->trial_s = s;
        } else if (cli_opt(argc, argv, &i, "--connections", &v)) {
            status = parse_uint("--connections", v, 1, 1000, &o->connections);
        } else if (cli_opt(argc, argv, &i, "--rate-fraction", &v)) {
            if (!v || !cli_parse_double("--rate-fraction", v, 1e-6, 1, &o->rate_fraction))
                status = CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--latency-duration", &v)) {
            if (!v || !cli_parse_double("--latency-duration", v, 0.01, 3600, &d))
                status = CLI_USAGE;
            else
                o->latency_s = d;
        } else if (cli_opt(argc, argv, &i, "--timeout-ms", &v)) {
            status = parse_uint("--timeout-ms", v, 1, 3600000, &o->timeout_ms);
        } else if (cli_opt(argc, argv, &i, "--server-cpu", &v)) {
            status = parse_cpu("--server-cpu", v, &o->server_cpu);
        } else if (cli_opt(argc, argv, &i, "--client-cpu", &v)) {
            status = parse_cpu("--client-cpu", v, &o->client_cpu);
        } else if (cli_opt(argc, argv, &i, "--port", &v)) {
            status = parse_uint("--port", v, 0, 65535, &o->port);
        } else if (cli_opt(argc, argv, &i, "--lookup-trials", &v)) {
            status = parse_uint("--lookup-trials", v, 1, 1000, &o->lookup_trials);
        } else if (cli_opt(argc, argv, &i, "--server", &v)) {
            o->server_path = v;
            if (!v) status = CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--wrk", &v)) {
            o->wrk_path = v;
            if (!v) status = CLI_USAGE;
        } else if (cli_opt(argc, argv, &i, "--out", &v)) {
            c->out = v;
            if (!v) status = CLI_USAGE;
        } else {
            status = cli_unknown("http", argv[i]);
        }
    }
    if (status != CLI_OK) return status;
    if (c->corpus) {
        if (!rb_shipped_path(c->corpus, "routes", c->rpath, sizeof c->rpath) ||
            !rb_shipped_path(c->corpus, "requests", c->qpath, sizeof c->qpath)) {
            fprintf(stderr, "routebench http: no shipped corpus '%s' (routebench list)\n",
                    c->corpus);
            return CLI_USAGE;
        }
        o->routes_path = c->rpath;
        o->requests_path = c->qpath;
    }
    if (!o->routes_path || !o->requests_path) {
        fprintf(stderr,
                "routebench http: needs --routes F and --requests F (or --corpus NAME)\n\n%s",
                usage_text);
        return CLI_USAGE;
    }
    return CLI_OK;
}

static void command_line(int argc, char **argv, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "routebench");
    for (int i = 0; i < argc && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, " %s", argv[i]);
}

int cmd_http(int argc, char **argv)
{
    http_cli *c = calloc(1, sizeof *c);
    rb_http_result *res = calloc(1, sizeof *res);
    if (!c || !res) {
        free(c);
        free(res);
        fprintf(stderr, "routebench http: out of memory\n");
        return CLI_FAILED;
    }
    rb_http_options_init(&c->o);
    default_server(c);
    c->o.server_path = c->server_path;
    int status = parse_args(c, argc, argv);
    if (status != CLI_OK) {
        free(c);
        free(res);
        return status < 0 ? CLI_OK : status;
    }
    char command[2048];
    command_line(argc, argv, command, sizeof command);
    rb_error err;
    int rc = rb_http_run(&c->o, progress, NULL, res, &err);
    if (rc < 0) {
        fprintf(stderr, "routebench http: %s\n", err.message);
        if (res->detail[0]) {
            fprintf(stderr, "---- its stderr (last lines) ----\n%s", res->detail);
            if (res->detail[strlen(res->detail) - 1] != '\n') fputc('\n', stderr);
            fprintf(stderr, "----\n");
        }
        status = res->fault ? CLI_FAILED : CLI_USAGE;
    } else {
        rb_buf text = {0};
        rb_http_report(&c->o, res, command, false, &text);
        fwrite(text.data ? text.data : "", 1, text.len, stdout);
        rb_buf_free(&text);
        if (!res->gate_passed) {
            const rb_http_router_result *x = &res->results[res->gate_failed];
            fprintf(stderr,
                    "routebench http: %s failed the validity gate (request %zu, %s); the load "
                    "phase is refused\n",
                    x->spec, x->gate.first_wrong + 1, x->gate.first_what);
            status = CLI_FAILED;
        }
        if (c->out) {
            if (rb_http_write_bundle(&c->o, res, command, c->out, &err) < 0) {
                fprintf(stderr, "routebench http: --out %s: %s\n", c->out, err.message);
                status = CLI_USAGE;
            } else {
                printf("\nbundle: %s/http.json, http_trials.csv, http.md\n", c->out);
            }
        }
    }
    rb_http_result_free(res);
    free(res);
    free(c);
    return status;
}
