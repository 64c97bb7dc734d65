/*
 * http_report.c — what `routebench http` prints and keeps: the report (a
 * terminal text or Markdown, same content), and the bundle files
 * http.json (schema "routebench-http" version 1), http_trials.csv (one row
 * per wrk run) and http.md.  Everything is headed and labelled as HTTP
 * requests per second over loopback; the in-process lookup time appears
 * only as the numerator of the router's share of a request.
 *
 * http.json: schema, schema_version, tool {version, commit, compiler,
 * flags, build_type}, machine {cpu_model, cores, kernel, loadavg_start,
 * loadavg_end}, date, duration_s, command, server, client, protocol
 * {trials, warmup, trial_s, connections, rate_fraction, latency_s,
 * timeout_ms, server_cpu, client_cpu, order, bootstrap_resamples,
 * confidence_level}, tables {routes, requests, routes_path,
 * requests_path, routes_fingerprint, requests_fingerprint, expect_found,
 * expect_not_found, expect_not_allowed, wrk_skipped_head}, baseline, gate_passed,
 * offered_rate, results [{router, gate {requests, passed, first_wrong},
 * capacity, capacity_min, capacity_max, ns_per_request, lookup_ns, share,
 * cpu_ns_per_request, cpu_share, cpu_vs_baseline {as vs_baseline} | null,
 * server_busy, client_busy, socket_errors, status_200, status_404,
 * status_405, status_other, vs_baseline {n, median, lo, hi, wins, losses,
 * excludes_one} | null, latency {offered, achieved, scheduled, completed,
 * p50_us, p90_us, p99_us, p999_us, max_us, socket_errors, status_other,
 * wrong} | null}], limitations [text].
 */
#define _POSIX_C_SOURCE 200809L /* lstat */
#include "http.h"

#include "bundle.h"
#include "base_internal.h"
#include "file.h"
#include "format.h"
#include "sysinfo.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const limits[] = {
    "HTTP requests per second over loopback (127.0.0.1) on this machine: not lookup rates, "
    "and not what a network, TLS, a proxy or a real handler would give.",
    "Server and client share the machine's 2 cores, one each (pinned); other processes ran "
    "too (see the load average).",
    "No TLS, no proxy, no request bodies, HTTP/1.1 keep-alive without pipelining; the "
    "handler is idle: it formats the route id and capture spans and returns.",
    "One server thread (libmicrohttpd, epoll); another HTTP library or more threads give "
    "other absolute numbers.",
    "The client is one wrk thread with a Lua script counting statuses: where its CPU column "
    "is near 100%, the client may limit capacity as much as the server.",
    "Server CPU time comes from /proc in 10 ms ticks and, on loopback, includes kernel network "
    "work done for the client: it resolves differences of about 5-10% at best.",
};

/* ---- tables rendered as aligned text or Markdown ------------------------ */

#define TCOLS 12
#define TROWS (RB_HTTP_MAX_ROUTERS + 1)

typedef struct table {
    char cell[TROWS][TCOLS][96];
    size_t rows, cols;
    bool right[TCOLS];
} table;

static void cell(table *t, size_t row, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void cell(table *t, size_t row, size_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->cell[row][col], sizeof t->cell[row][col], fmt, ap);
    va_end(ap);
    if (row + 1 > t->rows) t->rows = row + 1;
    if (col + 1 > t->cols) t->cols = col + 1;
}

static void render(const table *t, bool md, rb_buf *out)
{
    size_t w[TCOLS] = {0};
    for (size_t r = 0; r < t->rows; r++)
        for (size_t c = 0; c < t->cols; c++)
            if (strlen(t->cell[r][c]) > w[c]) w[c] = strlen(t->cell[r][c]);
    for (size_t r = 0; r < t->rows; r++) {
        rb_buf_puts(out, md ? "|" : " ");
        for (size_t c = 0; c < t->cols; c++) {
            if (md)
                rb_buf_printf(out, " %s |", t->cell[r][c]);
            else if (t->right[c])
                rb_buf_printf(out, " %*s", (int)w[c], t->cell[r][c]);
            else
                rb_buf_printf(out, " %-*s", (int)w[c], t->cell[r][c]);
        }
        rb_buf_puts(out, "\n");
        if (md && r == 0) {
            rb_buf_puts(out, "|");
            for (size_t c = 0; c < t->cols; c++) rb_buf_puts(out, t->right[c] ? "---:|" : "---|");
            rb_buf_puts(out, "\n");
        }
    }
}

static void heading(rb_buf *out, bool md, const char *text)
{
    if (md)
        rb_buf_printf(out, "\n### %s\n\n", text);
    else
        rb_buf_printf(out, "\n%s\n", text);
}

static void fmt_rate(double x, char *buf, size_t cap)
{
    rb_format_rate(x, buf, cap);
}

static void fmt_us(double us, char *buf, size_t cap)
{
    rb_format_duration(us * 1e3, buf, cap);
}

static void pct(double x, char *buf, size_t cap)
{
    if (x < 0)
        snprintf(buf, cap, "?");
    else
        snprintf(buf, cap, "%.0f%%", x * 100);
}

static void gate_section(const rb_http_result *res, bool md, rb_buf *out)
{
    heading(out, md, "Validity gate (every request once over HTTP, against linear's answer)");
    for (size_t i = 0; i < res->nresults; i++) {
        const rb_http_router_result *x = &res->results[i];
        rb_buf_printf(out, "%s%s: %zu/%zu %s", md ? "- " : "  ", x->spec, x->gate.passed,
                      x->gate.requests, x->gate.passed == x->gate.requests ? "passed" : "FAILED");
        if (x->gate.passed != x->gate.requests)
            rb_buf_printf(out, "; first wrong: request %zu, %s", x->gate.first_wrong + 1,
                          x->gate.first_what);
        rb_buf_puts(out, "\n");
    }
}

static void capacity_section(const rb_http_options *o, const rb_http_result *res, bool md,
                             rb_buf *out)
{
    char h[160];
    snprintf(h, sizeof h,
             "Capacity: median HTTP requests/s over %u rounds of %g s (wrk, closed loop, %u "
             "connections)",
             o->trials, o->trial_s, o->connections);
    heading(out, md, h);
    table *t = calloc(1, sizeof *t);
    if (!t) {
        out->failed = 1;
        return;
    }
    const char *hdr[] = {"router",        "HTTP req/s",
                         "min-max",       "speed vs " /* + baseline */,
                         "95% interval",  "wins",
                         "server CPU",    "client CPU",
                         "socket errors", "200 / 404 / 405",
                         "other statuses"};
    for (size_t c = 0; c < sizeof hdr / sizeof hdr[0]; c++) cell(t, 0, c, "%s", hdr[c]);
    cell(t, 0, 3, "speed vs %s", res->results[0].spec);
    for (size_t c = 1; c < TCOLS; c++) t->right[c] = true;
    for (size_t i = 0; i < res->nresults; i++) {
        const rb_http_router_result *x = &res->results[i];
        char a[32], b[32], c[32];
        size_t r = i + 1;
        cell(t, r, 0, "%s", x->spec);
        fmt_rate(x->capacity, a, sizeof a);
        cell(t, r, 1, "%s", a);
        fmt_rate(x->capacity_min, a, sizeof a);
        fmt_rate(x->capacity_max, b, sizeof b);
        cell(t, r, 2, "%s-%s", a, b);
        if (i == 0) {
            cell(t, r, 3, "1");
            cell(t, r, 4, "-");
            cell(t, r, 5, "-");
        } else {
            const rb_paired_result *p = &x->vs_baseline;
            rb_format_ratio(p->median, a, sizeof a);
            rb_format_interval(p->lo, p->hi, 3, b, c, sizeof b); /* 1.0004 never as 1.000 */
            cell(t, r, 3, "%s%s", a, p->excludes_one ? "" : " ~");
            cell(t, r, 4, "[%s, %s]", b, c);
            cell(t, r, 5, "%zu/%zu", p->wins, p->n);
        }
        pct(x->server_busy, a, sizeof a);
        cell(t, r, 6, "%s", a);
        pct(x->client_busy, a, sizeof a);
        cell(t, r, 7, "%s", a);
        cell(t, r, 8, "%llu", (unsigned long long)x->err_socket);
        cell(t, r, 9, "%llu / %llu / %llu", (unsigned long long)x->status_200,
             (unsigned long long)x->status_404, (unsigned long long)x->status_405);
        cell(t, r, 10, "%llu", (unsigned long long)x->status_other);
    }
    render(t, md, out);
    free(t);
    if (res->wrk_skipped_head)
        rb_buf_printf(out,
                      "%swrk replays the table without its %zu HEAD requests (wrk would wait "
                      "for a body a HEAD response never has); the gate and the latency runs "
                      "send them.\n",
                      md ? "\n" : "  ", res->wrk_skipped_head);
    rb_buf_printf(out,
                  "%sspeed: the median over rounds of (baseline's time per request) / (this "
                  "router's), above 1 faster; ~ marks an interval that includes 1.  CPU: "
                  "busy share of the core during a round (median).\n",
                  md ? "\n" : "  ");
}

static void latency_section(const rb_http_options *o, const rb_http_result *res, bool md,
                            rb_buf *out)
{
    char h[200], r0[32];
    fmt_rate(res->offered_rate, r0, sizeof r0);
    snprintf(h, sizeof h,
             "Latency at a matched offered rate: %s HTTP req/s for every router (%.0f%% of the "
             "slowest capacity), open loop, %g s, %u connections",
             r0, o->rate_fraction * 100, o->latency_s, o->connections);
    heading(out, md, h);
    table *t = calloc(1, sizeof *t);
    if (!t) {
        out->failed = 1;
        return;
    }
    const char *hdr[] = {
        "router",        "achieved req/s", "p50",          "p90", "p99", "p99.9", "max",
        "socket errors", "other statuses", "wrong answers"};
    for (size_t c = 0; c < sizeof hdr / sizeof hdr[0]; c++) cell(t, 0, c, "%s", hdr[c]);
    for (size_t c = 1; c < TCOLS; c++) t->right[c] = true;
    for (size_t i = 0; i < res->nresults; i++) {
        const rb_load_result *l = &res->results[i].latency;
        char a[32];
        size_t r = i + 1;
        cell(t, r, 0, "%s", res->results[i].spec);
        fmt_rate(l->achieved_rate, a, sizeof a);
        cell(t, r, 1, "%s", a);
        const double v[] = {l->p50_us, l->p90_us, l->p99_us, l->p999_us, l->max_us};
        for (size_t k = 0; k < 5; k++) {
            fmt_us(v[k], a, sizeof a);
            cell(t, r, 2 + k, "%s", a);
        }
        cell(t, r, 7, "%llu",
             (unsigned long long)(l->err_connect + l->err_read + l->err_write + l->err_timeout));
        cell(t, r, 8, "%llu", (unsigned long long)l->status_other);
        cell(t, r, 9, "%llu", (unsigned long long)l->wrong);
    }
    render(t, md, out);
    free(t);
    rb_buf_printf(out,
                  "%slatency runs from each request's scheduled send time (coordinated omission "
                  "corrected); every answer is checked against linear's.\n",
                  md ? "\n" : "  ");
}

static void share_section(const rb_http_result *res, bool md, rb_buf *out)
{
    heading(out, md, "The router's share of a request");
    table *t = calloc(1, sizeof *t);
    if (!t) {
        out->failed = 1;
        return;
    }
    const char *hdr[] = {"router",
                         "lookup (in-process, same table)",
                         "time per HTTP request at capacity",
                         "router's share",
                         "server CPU per request",
                         "share of server CPU",
                         "CPU speed vs ",
                         "95% interval"};
    for (size_t c = 0; c < 8; c++) cell(t, 0, c, "%s", hdr[c]);
    cell(t, 0, 6, "CPU speed vs %s", res->results[0].spec);
    for (size_t c = 1; c < 8; c++) t->right[c] = true;
    for (size_t i = 0; i < res->nresults; i++) {
        const rb_http_router_result *x = &res->results[i];
        char a[32], b[32];
        rb_format_ns(x->lookup_ns, a, sizeof a);
        rb_format_duration(x->ns_per_request, b, sizeof b);
        cell(t, i + 1, 0, "%s", x->spec);
        cell(t, i + 1, 1, "%s ns", a);
        cell(t, i + 1, 2, "%s", b);
        cell(t, i + 1, 3, "%.3g%%", x->share * 100);
        rb_format_duration(x->cpu_ns_per_request, b, sizeof b);
        cell(t, i + 1, 4, "%s", x->cpu_ns_per_request > 0 ? b : "?");
        cell(t, i + 1, 5, "%.3g%%", x->cpu_share * 100);
        const rb_paired_result *p = &x->cpu_vs_baseline;
        if (i == 0 || p->n == 0) {
            cell(t, i + 1, 6, i == 0 ? "1" : "?");
            cell(t, i + 1, 7, "-");
        } else {
            char lo[32], hi[32];
            rb_format_ratio(p->median, a, sizeof a);
            rb_format_interval(p->lo, p->hi, 3, lo, hi, sizeof lo);
            cell(t, i + 1, 6, "%s%s", a, p->excludes_one ? "" : " ~");
            cell(t, i + 1, 7, "[%s, %s]", lo, hi);
        }
    }
    render(t, md, out);
    free(t);
    rb_buf_printf(out,
                  "%sshare: lookup time / time per request at capacity (1e9 / capacity); the "
                  "CPU share divides by the server's CPU time per request instead, which other "
                  "processes on the machine do not inflate (lookups are timed in thread CPU "
                  "time); CPU speed: the paired ratio of server CPU time per request, round by "
                  "round, above 1 this router's server needs less CPU per request.\n",
                  md ? "\n" : "  ");
}

void rb_http_report(const rb_http_options *o, const rb_http_result *res, const char *command,
                    bool md, rb_buf *out)
{
    if (md)
        rb_buf_puts(out, "## HTTP requests per second over loopback on this machine\n\n");
    else
        rb_buf_puts(out, "HTTP requests per second over loopback on this machine "
                         "(whole HTTP/1.1 requests, not router lookups)\n\n");
    if (md)
        rb_buf_puts(out, "Whole HTTP/1.1 requests over 127.0.0.1, not router lookups: these "
                         "figures are never comparable with lookup rates.\n\n");
    const char *li = md ? "- " : "  ";
    if (command) rb_buf_printf(out, "%scommand: `%s`\n", li, command);
    rb_buf_printf(out, "%sserver: routebench-http-server (%s), pinned to CPU %d\n", li,
                  res->server_version[0] ? res->server_version : "libmicrohttpd", o->server_cpu);
    rb_buf_printf(out,
                  "%sclient: %s, 1 thread, %u connections, pinned to CPU %d (capacity); "
                  "routebench's open-loop generator on the same CPU (latency)\n",
                  li, res->wrk_version, o->connections, o->client_cpu);
    rb_buf_printf(out,
                  "%stables: %s (%zu routes, xxh3:%016llx), %s (%zu requests: %zu found, %zu "
                  "not found, %zu method not allowed; xxh3:%016llx)\n",
                  li, o->routes_path, res->routes, (unsigned long long)res->routes_fp,
                  o->requests_path, res->requests, res->expect_found, res->expect_not_found,
                  res->expect_not_allowed, (unsigned long long)res->requests_fp);
    rb_buf_printf(out,
                  "%sprotocol: validity gate, then %u warm-up + %u measured rounds of %g s per "
                  "router in Williams-balanced order; latency %g s per router at %.0f%% of the "
                  "slowest capacity\n",
                  li, o->warmup, o->trials, o->trial_s, o->latency_s, o->rate_fraction * 100);
    rb_buf_printf(out, "%sload average: %.2f at start, %.2f at end; %.0f s in all\n", li,
                  res->loadavg_start, res->loadavg_end, res->duration_s);
    gate_section(res, md, out);
    if (!res->gate_passed) {
        rb_buf_printf(out, "\nload phase REFUSED: %s failed the validity gate.\n",
                      res->results[res->gate_failed].spec);
        return;
    }
    capacity_section(o, res, md, out);
    latency_section(o, res, md, out);
    share_section(res, md, out);
    heading(out, md, "Limits");
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        rb_buf_printf(out, "%s%s\n", li, limits[i]);
}

/* ---- the bundle ---------------------------------------------------------- */

static cJSON *paired_json(const rb_paired_result *p)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "n", (double)p->n);
    cJSON_AddNumberToObject(j, "median", p->median);
    cJSON_AddNumberToObject(j, "lo", p->lo);
    cJSON_AddNumberToObject(j, "hi", p->hi);
    cJSON_AddNumberToObject(j, "wins", (double)p->wins);
    cJSON_AddNumberToObject(j, "losses", (double)p->losses);
    cJSON_AddBoolToObject(j, "excludes_one", p->excludes_one);
    return j;
}

static cJSON *latency_json(const rb_http_result *res, const rb_load_result *l)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "offered", res->offered_rate);
    cJSON_AddNumberToObject(j, "achieved", l->achieved_rate);
    cJSON_AddNumberToObject(j, "scheduled", (double)l->scheduled);
    cJSON_AddNumberToObject(j, "completed", (double)l->completed);
    cJSON_AddNumberToObject(j, "p50_us", l->p50_us);
    cJSON_AddNumberToObject(j, "p90_us", l->p90_us);
    cJSON_AddNumberToObject(j, "p99_us", l->p99_us);
    cJSON_AddNumberToObject(j, "p999_us", l->p999_us);
    cJSON_AddNumberToObject(j, "max_us", l->max_us);
    cJSON_AddNumberToObject(j, "socket_errors",
                            (double)(l->err_connect + l->err_read + l->err_write + l->err_timeout));
    cJSON_AddNumberToObject(j, "status_other", (double)l->status_other);
    cJSON_AddNumberToObject(j, "wrong", (double)l->wrong);
    return j;
}

/* Router i's object of the summary: its gate, capacity, CPU, statuses,
 * and its paired figures against the baseline once the gate passed. */
static cJSON *result_json(const rb_http_result *res, size_t i)
{
    const rb_http_router_result *x = &res->results[i];
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "router", x->spec);
    cJSON *g = cJSON_AddObjectToObject(r, "gate");
    cJSON_AddNumberToObject(g, "requests", (double)x->gate.requests);
    cJSON_AddNumberToObject(g, "passed", (double)x->gate.passed);
    if (x->gate.passed != x->gate.requests) {
        cJSON_AddNumberToObject(g, "first_wrong", (double)x->gate.first_wrong + 1);
        cJSON_AddStringToObject(g, "first_what", x->gate.first_what);
    } else {
        cJSON_AddNullToObject(g, "first_wrong");
    }
    cJSON_AddNumberToObject(r, "capacity", x->capacity);
    cJSON_AddNumberToObject(r, "capacity_min", x->capacity_min);
    cJSON_AddNumberToObject(r, "capacity_max", x->capacity_max);
    cJSON_AddNumberToObject(r, "ns_per_request", x->ns_per_request);
    cJSON_AddNumberToObject(r, "lookup_ns", x->lookup_ns);
    cJSON_AddNumberToObject(r, "share", x->share);
    cJSON_AddNumberToObject(r, "cpu_ns_per_request", x->cpu_ns_per_request);
    cJSON_AddNumberToObject(r, "cpu_share", x->cpu_share);
    cJSON_AddNumberToObject(r, "server_busy", x->server_busy);
    cJSON_AddNumberToObject(r, "client_busy", x->client_busy);
    cJSON_AddNumberToObject(r, "socket_errors", (double)x->err_socket);
    cJSON_AddNumberToObject(r, "status_200", (double)x->status_200);
    cJSON_AddNumberToObject(r, "status_404", (double)x->status_404);
    cJSON_AddNumberToObject(r, "status_405", (double)x->status_405);
    cJSON_AddNumberToObject(r, "status_other", (double)x->status_other);
    if (i > 0 && res->gate_passed && x->cpu_vs_baseline.n)
        cJSON_AddItemToObject(r, "cpu_vs_baseline", paired_json(&x->cpu_vs_baseline));
    else
        cJSON_AddNullToObject(r, "cpu_vs_baseline");
    if (i > 0 && res->gate_passed)
        cJSON_AddItemToObject(r, "vs_baseline", paired_json(&x->vs_baseline));
    else
        cJSON_AddNullToObject(r, "vs_baseline");
    if (res->gate_passed)
        cJSON_AddItemToObject(r, "latency", latency_json(res, &x->latency));
    else
        cJSON_AddNullToObject(r, "latency");
    return r;
}

static char *summary_json(const rb_http_options *o, const rb_http_result *res, const char *command)
{
    rb_bundle info;
    rb_bundle_init(&info);
    rb_sysinfo_fill(&info);
    char fp[32];
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "schema", "routebench-http");
    cJSON_AddNumberToObject(j, "schema_version", 1);
    cJSON *tool = cJSON_AddObjectToObject(j, "tool");
    cJSON_AddStringToObject(tool, "version", info.version);
    cJSON_AddStringToObject(tool, "commit", info.commit);
    cJSON_AddStringToObject(tool, "compiler", info.compiler);
    cJSON_AddStringToObject(tool, "flags", info.flags);
    cJSON_AddStringToObject(tool, "build_type", info.build_type);
    cJSON *m = cJSON_AddObjectToObject(j, "machine");
    cJSON_AddStringToObject(m, "cpu_model", info.cpu_model);
    cJSON_AddNumberToObject(m, "cores", (double)info.cores);
    cJSON_AddStringToObject(m, "kernel", info.kernel);
    cJSON_AddNumberToObject(m, "loadavg_start", res->loadavg_start);
    cJSON_AddNumberToObject(m, "loadavg_end", res->loadavg_end);
    cJSON_AddStringToObject(j, "date", info.date);
    cJSON_AddNumberToObject(j, "duration_s", res->duration_s);
    cJSON_AddStringToObject(j, "command", command ? command : "");
    cJSON_AddStringToObject(j, "server", res->server_version);
    cJSON_AddStringToObject(j, "client", res->wrk_version);
    cJSON *p = cJSON_AddObjectToObject(j, "protocol");
    cJSON_AddNumberToObject(p, "trials", o->trials);
    cJSON_AddNumberToObject(p, "warmup", o->warmup);
    cJSON_AddNumberToObject(p, "trial_s", o->trial_s);
    cJSON_AddNumberToObject(p, "connections", o->connections);
    cJSON_AddNumberToObject(p, "rate_fraction", o->rate_fraction);
    cJSON_AddNumberToObject(p, "latency_s", o->latency_s);
    cJSON_AddNumberToObject(p, "timeout_ms", o->timeout_ms);
    cJSON_AddNumberToObject(p, "server_cpu", o->server_cpu);
    cJSON_AddNumberToObject(p, "client_cpu", o->client_cpu);
    cJSON_AddStringToObject(p, "order", "williams");
    cJSON_AddNumberToObject(p, "bootstrap_resamples", (double)o->bootstrap.resamples);
    cJSON_AddNumberToObject(p, "confidence_level", o->bootstrap.level);
    cJSON *t = cJSON_AddObjectToObject(j, "tables");
    cJSON_AddNumberToObject(t, "routes", (double)res->routes);
    cJSON_AddNumberToObject(t, "requests", (double)res->requests);
    cJSON_AddStringToObject(t, "routes_path", o->routes_path);
    cJSON_AddStringToObject(t, "requests_path", o->requests_path);
    snprintf(fp, sizeof fp, "%016llx", (unsigned long long)res->routes_fp);
    cJSON_AddStringToObject(t, "routes_fingerprint", fp);
    snprintf(fp, sizeof fp, "%016llx", (unsigned long long)res->requests_fp);
    cJSON_AddStringToObject(t, "requests_fingerprint", fp);
    cJSON_AddNumberToObject(t, "expect_found", (double)res->expect_found);
    cJSON_AddNumberToObject(t, "expect_not_found", (double)res->expect_not_found);
    cJSON_AddNumberToObject(t, "expect_not_allowed", (double)res->expect_not_allowed);
    cJSON_AddNumberToObject(t, "wrk_skipped_head", (double)res->wrk_skipped_head);
    cJSON_AddStringToObject(j, "baseline", res->results[0].spec);
    cJSON_AddBoolToObject(j, "gate_passed", res->gate_passed);
    cJSON_AddNumberToObject(j, "offered_rate", res->offered_rate);
    cJSON *rs = cJSON_AddArrayToObject(j, "results");
    for (size_t i = 0; i < res->nresults; i++) cJSON_AddItemToArray(rs, result_json(res, i));
    cJSON *l = cJSON_AddArrayToObject(j, "limitations");
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        cJSON_AddItemToArray(l, cJSON_CreateString(limits[i]));
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    rb_bundle_free(&info);
    return text;
}

static void trials_csv(const rb_http_result *res, rb_buf *out)
{
    rb_buf_puts(out, "router,round,position,requests,duration_us,requests_per_s,server_busy,"
                     "client_busy,server_cpu_ns_per_request,socket_errors,status_200,"
                     "status_404,status_405,status_other\n");
    for (size_t i = 0; i < res->ntrials; i++) {
        const rb_http_trial *t = &res->trials[i];
        const rb_wrk_result *w = &t->wrk;
        rb_buf_printf(
            out, "%s,%u,%u,%llu,%llu,%.3f,%.4f,%.4f,%.1f,%llu,%llu,%llu,%llu,%llu\n",
            res->results[t->router].spec, t->round, t->position, (unsigned long long)w->requests,
            (unsigned long long)w->duration_us, rb_wrk_rate(w), t->server_busy, t->client_busy,
            t->server_cpu_ns,
            (unsigned long long)(w->err_connect + w->err_read + w->err_write + w->err_timeout),
            (unsigned long long)w->status_200, (unsigned long long)w->status_404,
            (unsigned long long)w->status_405, (unsigned long long)w->status_other);
    }
}

/* The files an http bundle is made of. */
static bool http_bundle_file(const char *name)
{
    return strcmp(name, "http.json") == 0 || strcmp(name, "http_trials.csv") == 0 ||
           strcmp(name, "http.md") == 0;
}

/* Walk dir's entries (not . and ..): each regular file goes to each_file
 * (when not NULL); RB_EIO naming the first entry that is no regular file.
 * *has_json tells whether http.json is among them. */
static int walk_dir(const char *dir, const rb_dir_staged *copy_to, bool *any, bool *has_json,
                    rb_error *err)
{
    *any = *has_json = false;
    DIR *d = opendir(dir);
    if (!d) return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot read %s: %s", dir, strerror(errno));
    int rc = RB_OK;
    for (struct dirent *e; rc == RB_OK && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char path[4600];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        *any = true;
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            rc = rb__error(err, RB_EIO, RB_NO_OFFSET,
                           "%s holds %s, which is no file of an http bundle: name a new or empty "
                           "directory, or an old http bundle",
                           dir, e->d_name);
            break;
        }
        if (strcmp(e->d_name, "http.json") == 0) *has_json = true;
        if (!copy_to || http_bundle_file(e->d_name)) continue;
        /* a file the user put beside ours stays */
        char *text;
        size_t len;
        rc = rb_file_read(path, &text, &len, err);
        if (rc == RB_OK) rc = rb_dir_put(copy_to, e->d_name, text, len, err);
        free(text);
    }
    closedir(d);
    return rc;
}

int rb_http_prepare_dir(const char *dir, rb_error *err)
{
    int rc = rb_file_check_link(dir, err);
    struct stat st;
    if (rc < 0 || stat(dir, &st) != 0) return rc;
    if (!S_ISDIR(st.st_mode))
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "%s exists and is not a directory", dir);
    bool any, has_json;
    rc = walk_dir(dir, NULL, &any, &has_json, err);
    if (rc == RB_OK && any && !has_json)
        rc = rb__error(err, RB_EIO, RB_NO_OFFSET,
                       "%s is not empty and not an http bundle (no http.json): name a new or "
                       "empty directory, or an old http bundle",
                       dir);
    return rc;
}

/* What the lab's files are rendered from. */
typedef struct http_doc {
    const rb_http_options *o;
    const rb_http_result *res;
    const char *command;
} http_doc;

static void put_json(const http_doc *d, rb_buf *out)
{
    char *json = summary_json(d->o, d->res, d->command);
    if (!json) {
        out->failed = 1;
        return;
    }
    rb_buf_puts(out, json);
    free(json);
}

static void put_csv(const http_doc *d, rb_buf *out)
{
    trials_csv(d->res, out);
}

static void put_md(const http_doc *d, rb_buf *out)
{
    rb_buf md = {0};
    rb_http_report(d->o, d->res, d->command, true, &md);
    rb_format_md(out, md.data ? md.data : "", md.len);
    if (md.failed) out->failed = 1;
    rb_buf_free(&md);
}

/* The lab's files, one row each, in the pattern of the bundle's output
 * table (bench/report/output.h): adding a file is a function and a row.
 * (Not rows of that table: they render an rb_http_result, not a bundle,
 * and the lab sits below report/ in the layers.) */
static const struct {
    const char *file;
    void (*render)(const http_doc *d, rb_buf *out);
} http_outputs[] = {
    {"http.json", put_json},
    {"http_trials.csv", put_csv},
    {"http.md", put_md},
};

int rb_http_write_bundle(const rb_http_options *o, const rb_http_result *res, const char *command,
                         const char *dir, rb_error *err)
{
    int rc = rb_http_prepare_dir(dir, err);
    rb_dir_staged s = {0};
    if (rc == RB_OK) rc = rb_dir_stage(dir, &s, err);
    const http_doc d = {o, res, command};
    for (size_t i = 0; rc == RB_OK && i < sizeof http_outputs / sizeof http_outputs[0]; i++) {
        rb_buf b = {0};
        http_outputs[i].render(&d, &b);
        rc = b.failed ? rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory")
                      : rb_dir_put(&s, http_outputs[i].file, b.data ? b.data : "", b.len, err);
        rb_buf_free(&b);
    }
    struct stat st;
    bool any, has_json;
    if (rc == RB_OK && stat(s.dir, &st) == 0) rc = walk_dir(s.dir, &s, &any, &has_json, err);
    if (rc == RB_OK)
        rc = rb_dir_commit(&s, err);
    else if (s.tmp)
        rb_dir_discard(&s);
    return rc;
}
