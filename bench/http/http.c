/*
 * http.c — the protocol of `routebench http` (described in http.h): tables
 * and expectations, in-process lookup times, one server per router, the
 * validity gate, wrk rounds in balanced order, the open-loop latency run,
 * the statistics.  Every child is stopped and reaped on every path out.
 */
#define _GNU_SOURCE
#include "http.h"

#include "harness.h"
#include "plugins.h"
#include "base_internal.h"
#include "clock.h"
#include "machine.h"
#include "program.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void rb_http_options_init(rb_http_options *o)
{
    memset(o, 0, sizeof *o);
    o->server_path = "routebench-http-server";
    o->wrk_path = "wrk";
    o->server_cpu = 1;
    o->client_cpu = 0;
    o->trials = 6;
    o->warmup = 1;
    o->trial_s = 3;
    o->connections = 8;
    o->rate_fraction = 0.5;
    o->latency_s = 5;
    o->timeout_ms = 5000;
    o->lookup_trials = 5;
    rb_bootstrap_opts d = RB_BOOTSTRAP_OPTS_DEFAULT;
    o->bootstrap = d;
}

void rb_http_round_order(size_t k, size_t round, size_t *order)
{
    /* first row 0, 1, k-1, 2, k-2, ...; row r adds r (mod k); for odd k
     * the rows k..2k-1 are the first k reversed */
    size_t rows = k % 2 ? 2 * k : k, r = round % rows, shift = r % k;
    for (size_t p = 0; p < k; p++) {
        size_t first = p == 0 ? 0 : (p % 2 ? (p + 1) / 2 : k - p / 2);
        order[p] = (first + shift) % k;
    }
    if (r >= k)
        for (size_t a = 0, b = k - 1; a < b; a++, b--) {
            size_t t = order[a];
            order[a] = order[b];
            order[b] = t;
        }
}

void rb_http_result_free(rb_http_result *res)
{
    free(res->trials);
    res->trials = NULL;
    res->ntrials = res->trials_cap = 0;
}

/* ---- the run's state ----------------------------------------------------- */

typedef struct http_server {
    rb_http_child child;
    uint16_t port;
    bool started;
} http_server;

typedef struct http_run {
    const rb_http_options *o;
    rb_http_result *res;
    rb_http_progress_fn progress;
    void *ctx;
    char tmp[64];     /* private temporary directory */
    char script[128]; /* the Lua script in it */
    char wrk[4096];   /* wrk's path */
    rb_route_table routes;
    rb_request_table reqs;
    rb_match *want;
    http_server servers[RB_HTTP_MAX_ROUTERS];
    cpu_set_t saved_affinity;
    bool affinity_saved;
} http_run;

static void progress(http_run *r, const char *what, size_t router, size_t done, size_t total)
{
    if (r->progress)
        r->progress(r->ctx, what, router < r->o->nspecs ? r->o->specs[router] : NULL, done, total);
}

static void remove_tmp(http_run *r)
{
    if (!r->tmp[0]) return;
    char path[256];
    snprintf(path, sizeof path, "%s/requests.lua", r->tmp);
    unlink(path);
    for (size_t i = 0; i < RB_HTTP_MAX_ROUTERS; i++) {
        snprintf(path, sizeof path, "%s/server-%zu.err", r->tmp, i);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/wrk.err", r->tmp);
    unlink(path);
    snprintf(path, sizeof path, "%s/wrk-version.err", r->tmp);
    unlink(path);
    rmdir(r->tmp);
    r->tmp[0] = '\0';
}

static void stop_servers(http_run *r)
{
    for (size_t i = 0; i < RB_HTTP_MAX_ROUTERS; i++) {
        http_server *s = &r->servers[i];
        if (!s->started) continue;
        rb_http_child_stop(&s->child, 2000, NULL);
        rb_http_child_free(&s->child);
        s->started = false;
    }
}

/* The tail of server i's stderr into res->detail, after `what`. */
static void server_detail(http_run *r, size_t i)
{
    char tail[RB_HTTP_TAIL + 1];
    rb_http_child_stderr(&r->servers[i].child, tail, sizeof tail);
    snprintf(r->res->detail, sizeof r->res->detail, "%s",
             tail[0] ? tail : "(its stderr is empty)\n");
}

/* Server i failed during `stage`: say how (crashed, exited or hung: then
 * it is killed), keep its stderr, and return RB_EIO. */
static int server_fault(http_run *r, size_t i, const char *stage, const char *why, rb_error *err)
{
    http_server *s = &r->servers[i];
    int status = 0;
    char how[160];
    /* a dying server closes its sockets an instant before it exits: give
     * it a second before calling it hung */
    if (rb_http_child_wait(&s->child, 1000, &status)) {
        rb_http_describe_status(status, how, sizeof how);
    } else {
        rb_http_child_stop(&s->child, 1000, &status);
        snprintf(how, sizeof how, "hung (%s); killed", why);
        why = NULL;
    }
    server_detail(r, i);
    r->res->fault = true;
    char w[sizeof err->message];
    snprintf(w, sizeof w, "%s", why ? why : "");
    return rb__error(err, RB_EIO, RB_NO_OFFSET, "the server for %s %s during the %s%s%s",
                     r->o->specs[i], how, stage, w[0] ? ": " : "", w);
}

/* ---- steps --------------------------------------------------------------- */

static int check_options(const rb_http_options *o, rb_error *err)
{
    if (o->nspecs == 0 || o->nspecs > RB_HTTP_MAX_ROUTERS)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "name 1 to %d routers", RB_HTTP_MAX_ROUTERS);
    if (!o->routes_path || !o->requests_path)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "needs a routes file and a requests file");
    if (o->trials == 0 || o->connections == 0 || o->lookup_trials == 0 || o->timeout_ms == 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "trials, connections, lookup trials and the timeout must be >= 1");
    if (!(o->trial_s >= 1) || o->trial_s != (double)(unsigned)o->trial_s)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "a wrk trial lasts whole seconds >= 1 (wrk's -d)");
    if (!(o->rate_fraction > 0 && o->rate_fraction <= 1) || !(o->latency_s > 0))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "the latency rate is a fraction in (0, 1] of the slowest capacity, "
                         "run for > 0 s");
    if (o->port && o->port + o->nspecs - 1 > 65535)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "--port %u + %zu routers exceeds 65535",
                         o->port, o->nspecs);
    if (o->server_cpu >= 0 && o->server_cpu == o->client_cpu)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "the server and the client need different CPUs (both %d)", o->server_cpu);
    for (size_t i = 0; i < o->nspecs; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(o->specs[i], o->specs[j]))
                return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "router %s is named twice",
                                 o->specs[i]);
    return RB_OK;
}

/* Both programs exist; wrk's version. */
static int check_programs(http_run *r, rb_error *err)
{
    const rb_http_options *o = r->o;
    if (access(o->server_path, X_OK) != 0)
        return rb__error(err, RB_ENOTFOUND, RB_NO_OFFSET,
                         "the HTTP server %s is not there: it is built only when libmicrohttpd "
                         "is found; install the Debian package libmicrohttpd-dev (bash "
                         "scripts/setup.sh --http) and build again",
                         o->server_path);
    if (!rb__find_program(o->wrk_path, r->wrk, sizeof r->wrk))
        return rb__error(err, RB_ENOTFOUND, RB_NO_OFFSET,
                         "%s not found%s: install the Debian package wrk (bash scripts/setup.sh "
                         "--http)",
                         o->wrk_path, strchr(o->wrk_path, '/') ? "" : " on PATH");
    return RB_OK;
}

static int load_tables(http_run *r, rb_error *err)
{
    const rb_http_options *o = r->o;
    int rc = rb_route_table_read(o->routes_path, &r->routes, err);
    if (rc == RB_OK) rc = rb_request_table_read(o->requests_path, &r->reqs, err);
    if (rc < 0) return rc;
    if (r->reqs.count == 0)
        return rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "%s has no requests", o->requests_path);
    /* requests made for another route table are a broken pair, as in run */
    rc = rb_request_table_check_routes(&r->reqs, o->requests_path, &r->routes, o->routes_path, err);
    if (rc < 0) return rc;
    for (size_t i = 0; i < r->reqs.count; i++) {
        size_t bad;
        if (!rb_http_path_sendable(rb_request_path(&r->reqs, i), r->reqs.reqs[i].len, &bad)) {
            unsigned char c = (unsigned char)rb_request_path(&r->reqs, i)[bad];
            err->line = r->reqs.reqs[i].line;
            return rb__error(err, RB_EFORMAT, RB_NO_OFFSET,
                             "%s:%zu: path byte %zu (0x%02x) cannot go on an HTTP request line "
                             "as it is",
                             o->requests_path, r->reqs.reqs[i].line, bad, c);
        }
    }
    rb_http_result *res = r->res;
    res->routes = r->routes.count;
    res->requests = r->reqs.count;
    res->routes_fp = rb_route_table_fingerprint(&r->routes);
    res->requests_fp = rb_request_table_fingerprint(&r->reqs);
    /* linear's answers are the expectation */
    rb_router *linear = NULL;
    rc = rb_route_table_build_router(&r->routes, o->routes_path, rb_registry_find("linear"), NULL,
                                     &linear, err);
    if (rc < 0) return rc;
    r->want = calloc(r->reqs.count, sizeof *r->want);
    if (!r->want) {
        rb_router_destroy(linear);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    }
    for (size_t i = 0; i < r->reqs.count; i++) {
        const rb_request *q = &r->reqs.reqs[i];
        int out =
            rb_router_lookup(linear, q->method, rb_request_path(&r->reqs, i), q->len, &r->want[i]);
        if (out == RB_FOUND)
            res->expect_found++;
        else if (out == RB_METHOD_NOT_ALLOWED)
            res->expect_not_allowed++;
        else
            res->expect_not_found++;
    }
    rb_router_destroy(linear);
    return RB_OK;
}

static double median_of(double *xs, size_t n)
{
    double m = 0;
    double *scratch = malloc(n * sizeof *scratch);
    if (scratch && rb_stats_median(xs, n, &m, scratch) < 0) m = 0;
    free(scratch);
    return m;
}

/* The in-process lookup time of every router on the same tables; beat
 * (may be NULL) is called after each router is built and each trial. */
static int measure_lookups(http_run *r, rb_plugins *plugins, rb_bench_progress_fn beat,
                           void *beat_ctx, rb_error *err)
{
    const rb_http_options *o = r->o;
    const rb_router_ops *ops[RB_HTTP_MAX_ROUTERS];
    for (size_t i = 0; i < o->nspecs; i++) {
        int rc = rb_router_spec_resolve(plugins, o->specs[i], &ops[i], err);
        if (rc < 0) return rc;
    }
    if (o->server_cpu >= 0) {
        int rc = rb_machine_pin_cpu(o->server_cpu, err);
        if (rc < 0) return rc;
    }
    rb_bench_run run;
    int rc = rb_bench_prepare(&run, &r->routes, &r->reqs, ops, o->nspecs, NULL, err);
    if (rc < 0) return rc;
    if (beat) beat(beat_ctx, "built", NULL, 0, 0);
    /* the thread's CPU time: other processes on the core do not inflate it,
     * and the server's CPU time per request is the other side of the share */
    rb_bench_protocol proto = {o->lookup_trials, 1, 50.0, RB_BENCH_CLOCK_CPU, 0};
    rc = rb_bench_measure(&run, &proto, beat, beat_ctx, err);
    double *ns = malloc(o->lookup_trials * sizeof *ns);
    for (size_t i = 0; rc == RB_OK && ns && i < o->nspecs; i++) {
        size_t n = 0;
        for (size_t t = 0; t < run.ntrials; t++)
            if (run.trials[t].subject == i && run.trials[t].lookups)
                ns[n++] = (double)run.trials[t].ns / (double)run.trials[t].lookups;
        r->res->results[i].lookup_ns = n ? median_of(ns, n) : 0;
    }
    if (rc == RB_OK && !ns) rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    free(ns);
    rb_bench_run_free(&run);
    return rc;
}

/* ---- the in-process lookups, isolated ---------------------------------------
 *
 * A plugin router runs in routebench's own process only here: one that
 * aborts or hangs would take routebench http down with it, or hang it with
 * its servers running.  So the lookups run in a child process: it writes a
 * '.' on the pipe after each router is built and after each trial, then
 * 'R', its status, its error and each router's lookup time.  The parent
 * kills a child that is silent for 10 x --timeout-ms and reports how the
 * child ended. */

static void lookup_beat(void *ctx, const char *what, const rb_bench_subject *subject, size_t done,
                        size_t total)
{
    (void)what, (void)subject, (void)done, (void)total;
    int fd = *(const int *)ctx;
    ssize_t w = write(fd, ".", 1);
    (void)w;
}

static bool write_whole(int fd, const void *data, size_t len)
{
    for (size_t done = 0; done < len;) {
        ssize_t w = write(fd, (const char *)data + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        done += (size_t)w;
    }
    return true;
}

static void lookup_child(http_run *r, rb_plugins *plugins, int fd)
{
    rb_error err = {0};
    int rc = measure_lookups(r, plugins, lookup_beat, &fd, &err);
    bool ok = write_whole(fd, "R", 1) && write_whole(fd, &rc, sizeof rc) &&
              write_whole(fd, &err, sizeof err);
    for (size_t i = 0; ok && i < r->o->nspecs; i++)
        ok = write_whole(fd, &r->res->results[i].lookup_ns, sizeof(double));
    _exit(ok ? 0 : 1);
}

/* The routers' names, for a message about all of them. */
static void spec_list(const rb_http_options *o, char *buf, size_t cap)
{
    size_t w = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < o->nspecs && w < cap; i++) {
        int n = snprintf(buf + w, cap - w, "%s%s", i ? ", " : "", o->specs[i]);
        if (n < 0) break;
        w += (size_t)n;
    }
}

/* How the child ended, when it sent no result. */
static int lookup_died(http_run *r, pid_t pid, bool hung, rb_error *err)
{
    int st = 0;
    if (hung) kill(pid, SIGKILL);
    rb__reap_child(pid, RB_REAP_FOREVER, false, &st);
    char names[160];
    spec_list(r->o, names, sizeof names);
    if (hung)
        return rb__error(err, RB_EIO, RB_NO_OFFSET,
                         "the in-process lookups of %s made no progress within %u ms: a router "
                         "hangs (killed)",
                         names, 10 * r->o->timeout_ms);
    if (WIFSIGNALED(st))
        return rb__error(err, RB_EIO, RB_NO_OFFSET,
                         "the in-process lookups of %s were killed by signal %d (%s): a router "
                         "crashed in routebench's process",
                         names, WTERMSIG(st), strsignal(WTERMSIG(st)));
    return rb__error(err, RB_EIO, RB_NO_OFFSET,
                     "the in-process lookups of %s ended (exit %d) without a result", names,
                     WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* Read the child's result (after its beats) from fd. */
static int lookup_result(http_run *r, pid_t pid, int fd, rb_error *err)
{
    size_t need = 1 + sizeof(int) + sizeof(rb_error) + r->o->nspecs * sizeof(double);
    char buf[1 + sizeof(int) + sizeof(rb_error) + RB_HTTP_MAX_ROUTERS * sizeof(double)];
    size_t got = 0;
    unsigned silence = 10 * r->o->timeout_ms;
    while (got < need) {
        struct pollfd p = {fd, POLLIN, 0};
        int n = poll(&p, 1, (int)silence);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) return lookup_died(r, pid, true, err);
        ssize_t k = read(fd, buf + got, got == 0 ? 1 : need - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return lookup_died(r, pid, false, err);
        if (got == 0 && buf[0] == '.') continue; /* a beat */
        got += (size_t)k;
    }
    int st;
    rb__reap_child(pid, RB_REAP_FOREVER, false, &st);
    int rc;
    memcpy(&rc, buf + 1, sizeof rc);
    if (rc < 0) {
        memcpy(err, buf + 1 + sizeof rc, sizeof *err);
        err->message[sizeof err->message - 1] = '\0';
        return rc;
    }
    for (size_t i = 0; i < r->o->nspecs; i++)
        memcpy(&r->res->results[i].lookup_ns,
               buf + 1 + sizeof rc + sizeof(rb_error) + i * sizeof(double), sizeof(double));
    return RB_OK;
}

static int measure_lookups_isolated(http_run *r, rb_plugins *plugins, rb_error *err)
{
    progress(r, "lookup", SIZE_MAX, 0, 1);
    int fds[2];
    if (pipe(fds) != 0) return rb__error(err, RB_EIO, RB_NO_OFFSET, "pipe: %s", strerror(errno));
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "fork: %s", strerror(e));
    }
    if (pid == 0) {
        close(fds[0]);
        lookup_child(r, plugins, fds[1]);
    }
    close(fds[1]);
    int rc = lookup_result(r, pid, fds[0], err);
    close(fds[0]);
    return rc;
}

static int start_server(http_run *r, size_t i, rb_error *err)
{
    const rb_http_options *o = r->o;
    http_server *s = &r->servers[i];
    char port[16], cpu[16], errpath[128];
    snprintf(port, sizeof port, "%u", o->port ? o->port + (unsigned)i : 0u);
    snprintf(cpu, sizeof cpu, "%d", o->server_cpu);
    snprintf(errpath, sizeof errpath, "%s/server-%zu.err", r->tmp, i);
    char *argv[16 + 2 * RB_HTTP_MAX_ROUTERS];
    size_t n = 0;
    argv[n++] = (char *)(uintptr_t)o->server_path;
    argv[n++] = "--router";
    argv[n++] = (char *)(uintptr_t)o->specs[i];
    argv[n++] = "--routes";
    argv[n++] = (char *)(uintptr_t)o->routes_path;
    argv[n++] = "--port";
    argv[n++] = port;
    for (size_t l = 0; l < o->nlibs; l++) {
        argv[n++] = "--router-lib";
        argv[n++] = (char *)(uintptr_t)o->router_libs[l];
    }
    argv[n] = NULL;
    /* pinned by the spawn, before exec, so even start-up runs on its core */
    int rc = rb_http_spawn(argv, o->server_cpu, true, errpath, &s->child, err);
    if (rc < 0) return rc;
    s->started = true;
    char line[128];
    unsigned startup_ms = o->timeout_ms > 30000 ? o->timeout_ms : 30000;
    rc = rb_http_read_line(&s->child, "listening ", startup_ms, line, sizeof line, err);
    if (rc < 0) {
        int status = 0;
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err->message);
        /* it may have closed its stdout an instant before it exits */
        if (rb_http_child_wait(&s->child, 2000, &status) && WIFEXITED(status) &&
            WEXITSTATUS(status) == 3) {
            server_detail(r, i);
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                             "port %s on 127.0.0.1 is in use (the server for %s cannot bind it); "
                             "choose another --port, or 0 for free ports",
                             port, o->specs[i]);
        }
        return server_fault(r, i, "start-up", why, err);
    }
    const char *colon = strchr(line, ':');
    unsigned long p = colon ? strtoul(colon + 1, NULL, 10) : 0;
    if (p == 0 || p > 65535) {
        rb_http_child_stop(&s->child, 1000, NULL);
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "the server for %s said '%s'", o->specs[i],
                         line);
    }
    s->port = (uint16_t)p;
    const char *lib = strchr(line, '(');
    if (lib && !r->res->server_version[0])
        snprintf(r->res->server_version, sizeof r->res->server_version, "%.*s",
                 (int)strcspn(lib + 1, ")"), lib + 1);
    return RB_OK;
}

/* Read all of c's stdout into out until EOF or the deadline. */
static int read_all(rb_http_child *c, unsigned timeout_ms, rb_buf *out)
{
    uint64_t deadline = rb__monotonic_ns() + (uint64_t)timeout_ms * 1000000u;
    char buf[4096];
    for (;;) {
        uint64_t now = rb__monotonic_ns();
        if (now >= deadline) return RB_EIO;
        struct pollfd pfd = {c->out_fd, POLLIN, 0};
        int pr = poll(&pfd, 1, (int)((deadline - now) / 1000000u) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) continue;
        ssize_t n = read(c->out_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return RB_OK;
        rb_buf_append(out, buf, (size_t)n);
    }
}

static int add_trial(rb_http_result *res, const rb_http_trial *t, rb_error *err)
{
    if (res->ntrials == res->trials_cap &&
        rb_grow(NULL, &res->trials, &res->trials_cap, res->ntrials + 1, sizeof *t, 64) < 0)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    res->trials[res->ntrials++] = *t;
    return RB_OK;
}

/* One wrk run against server i. */
static int wrk_trial(http_run *r, size_t i, uint32_t round, uint32_t position, rb_error *err)
{
    const rb_http_options *o = r->o;
    http_server *s = &r->servers[i];
    char conns[16], dur[16], timeout[16], url[64], errpath[128];
    snprintf(conns, sizeof conns, "%u", o->connections);
    snprintf(dur, sizeof dur, "%us", (unsigned)o->trial_s);
    snprintf(timeout, sizeof timeout, "%us", (o->timeout_ms + 999) / 1000); /* wrk: whole s */
    snprintf(url, sizeof url, "http://127.0.0.1:%u/", s->port);
    snprintf(errpath, sizeof errpath, "%s/wrk.err", r->tmp);
    char *argv[] = {r->wrk,      "-t",    "1",  "-c",      conns, "-d", dur,
                    "--timeout", timeout, "-s", r->script, url,   NULL};
    rb_http_child w;
    double server_cpu0 = rb_http_child_cpu_s(&s->child);
    uint64_t t0 = rb__monotonic_ns();
    int rc = rb_http_spawn(argv, o->client_cpu, true, errpath, &w, err);
    if (rc < 0) return rc;
    rb_buf out = {0};
    unsigned limit_ms = (unsigned)o->trial_s * 1000u + o->timeout_ms + 10000u;
    rc = read_all(&w, limit_ms, &out);
    int status = 0;
    bool exited = rc == RB_OK && rb_http_child_wait(&w, 5000, &status);
    double wall = (double)(rb__monotonic_ns() - t0) / 1e9;
    double server_cpu1 = rb_http_child_cpu_s(&s->child);
    char tail[RB_HTTP_TAIL + 1];
    rb_http_child_stderr(&w, tail, sizeof tail);
    if (!exited || !WIFEXITED(status) || WEXITSTATUS(status) != 0) r->res->fault = true;
    if (!exited) {
        rb_http_child_stop(&w, 1000, &status);
        snprintf(r->res->detail, sizeof r->res->detail, "%s", tail);
        rc = rb__error(err, RB_EIO, RB_NO_OFFSET,
                       "wrk did not finish within %u ms against %s; "
                       "killed",
                       limit_ms, o->specs[i]);
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char how[128];
        rb_http_describe_status(status, how, sizeof how);
        snprintf(r->res->detail, sizeof r->res->detail, "%.*s%s",
                 (int)(out.len > RB_HTTP_TAIL / 2 ? RB_HTTP_TAIL / 2 : out.len),
                 out.data ? out.data : "", tail);
        rc = rb__error(err, RB_EIO, RB_NO_OFFSET, "wrk %s against %s", how, o->specs[i]);
    }
    rb_http_trial t;
    memset(&t, 0, sizeof t);
    t.router = (uint32_t)i;
    t.round = round;
    t.position = position;
    if (rc == RB_OK && out.failed) rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    if (rc == RB_OK) {
        rc = rb_wrk_parse(out.data ? out.data : "", out.len, &t.wrk, err);
        if (rc < 0)
            snprintf(r->res->detail, sizeof r->res->detail, "%.*s%s", (int)out.len,
                     out.data ? out.data : "", tail);
    }
    rb_buf_free(&out);
    rb_http_child_free(&w);
    if (rc < 0) return rc;
    int sst;
    if (rb_http_child_exited(&s->child, &sst)) {
        char how[128];
        rb_http_describe_status(sst, how, sizeof how);
        server_detail(r, i);
        r->res->fault = true;
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "the server for %s %s during wrk round %u",
                         o->specs[i], how, round);
    }
    if (t.wrk.requests == 0)
        return server_fault(r, i, "load phase", "it answered no request in a wrk run", err);
    t.server_busy = server_cpu0 >= 0 && server_cpu1 >= 0 ? (server_cpu1 - server_cpu0) / wall : -1;
    t.client_busy = w.cpu_s / wall;
    t.server_cpu_ns =
        t.server_busy >= 0 ? (server_cpu1 - server_cpu0) * 1e9 / (double)t.wrk.requests : -1;
    return add_trial(r->res, &t, err);
}

static int capacity_rounds(http_run *r, rb_error *err)
{
    const rb_http_options *o = r->o;
    size_t k = o->nspecs, order[RB_HTTP_MAX_ROUTERS];
    size_t total = (o->warmup + o->trials) * k, done = 0;
    for (unsigned round = 0; round < o->warmup + o->trials; round++) {
        bool warm = round < o->warmup;
        rb_http_round_order(k, warm ? round : round - o->warmup, order);
        for (size_t p = 0; p < k; p++) {
            progress(r, warm ? "warm-up" : "trial", order[p], done++, total);
            int rc = wrk_trial(r, order[p], warm ? 0 : round - o->warmup + 1, (uint32_t)p + 1, err);
            if (rc < 0) return rc;
        }
    }
    return RB_OK;
}

static int compute_capacity(http_run *r, rb_error *err)
{
    const rb_http_options *o = r->o;
    rb_http_result *res = r->res;
    size_t k = o->nspecs, n = o->trials;
    double *rate = calloc(k * n, sizeof *rate), *busy = calloc(n, sizeof *busy);
    double *cbusy = calloc(n, sizeof *cbusy), *cpu = calloc(n, sizeof *cpu);
    double *cpu_r = calloc(k * n, sizeof *cpu_r);
    if (!rate || !busy || !cbusy || !cpu || !cpu_r) {
        free(cpu_r);
        free(rate);
        free(busy);
        free(cbusy);
        free(cpu);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    }
    for (size_t i = 0; i < k; i++) {
        rb_http_router_result *x = &res->results[i];
        size_t m = 0;
        for (size_t t = 0; t < res->ntrials; t++) {
            const rb_http_trial *tr = &res->trials[t];
            if (tr->router != i || tr->round == 0) continue;
            rate[i * n + tr->round - 1] = rb_wrk_rate(&tr->wrk);
            cpu_r[i * n + tr->round - 1] = tr->server_cpu_ns;
            busy[m] = tr->server_busy;
            cbusy[m] = tr->client_busy;
            cpu[m] = tr->server_cpu_ns;
            m++;
            const rb_wrk_result *w = &tr->wrk;
            x->err_socket += w->err_connect + w->err_read + w->err_write + w->err_timeout;
            x->status_200 += w->status_200;
            x->status_404 += w->status_404;
            x->status_405 += w->status_405;
            x->status_other += w->status_other;
        }
        x->trials = m;
        rb_stats_minmax(rate + i * n, n, &x->capacity_min, &x->capacity_max);
        x->capacity = median_of(rate + i * n, n);
        x->ns_per_request = x->capacity > 0 ? 1e9 / x->capacity : 0;
        x->share = x->ns_per_request > 0 ? x->lookup_ns / x->ns_per_request : 0;
        x->server_busy = median_of(busy, m);
        x->client_busy = median_of(cbusy, m);
        x->cpu_ns_per_request = median_of(cpu, m);
        x->cpu_share = x->cpu_ns_per_request > 0 ? x->lookup_ns / x->cpu_ns_per_request : 0;
    }
    /* paired: round t of router i against round t of the baseline; per-request times */
    int rc = RB_OK;
    double *ta = malloc(n * sizeof *ta), *tb = malloc(n * sizeof *tb);
    for (size_t i = 1; ta && tb && i < k && rc == RB_OK; i++) {
        for (size_t t = 0; t < n; t++) {
            ta[t] = 1e9 / rate[t];
            tb[t] = 1e9 / rate[i * n + t];
        }
        rc = rb_stats_paired(ta, tb, n, &o->bootstrap, &res->results[i].vs_baseline);
        if (rc < 0) rc = rb__error(err, rc, RB_NO_OFFSET, "paired statistics failed");
        bool cpu_known = true;
        for (size_t t = 0; t < n; t++) cpu_known &= cpu_r[t] > 0 && cpu_r[i * n + t] > 0;
        if (rc == RB_OK && cpu_known &&
            rb_stats_paired(cpu_r, cpu_r + i * n, n, &o->bootstrap,
                            &res->results[i].cpu_vs_baseline) < 0)
            rc = rb__error(err, RB_EINVAL, RB_NO_OFFSET, "paired statistics failed");
    }
    if (rc == RB_OK && (!ta || !tb)) rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    free(ta);
    free(tb);
    free(rate);
    free(busy);
    free(cbusy);
    free(cpu);
    free(cpu_r);
    return rc;
}

static int latency_round(http_run *r, rb_error *err)
{
    const rb_http_options *o = r->o;
    rb_http_result *res = r->res;
    size_t k = o->nspecs, order[RB_HTTP_MAX_ROUTERS];
    double slowest = 0;
    for (size_t i = 0; i < k; i++)
        if (i == 0 || res->results[i].capacity < slowest) slowest = res->results[i].capacity;
    res->offered_rate = o->rate_fraction * slowest;
    if (!(res->offered_rate >= 1))
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "no capacity measured: nothing to offer");
    rb_http_round_order(k, o->trials, order);
    for (size_t p = 0; p < k; p++) {
        size_t i = order[p];
        progress(r, "latency", i, p, k);
        rb_load_config cfg = {r->servers[i].port, res->offered_rate, o->latency_s, o->connections,
                              o->timeout_ms,      &r->reqs,          r->want};
        int rc = rb_load_run(&cfg, &res->results[i].latency, err);
        if (rc < 0) {
            char why[sizeof err->message];
            snprintf(why, sizeof why, "%s", err->message);
            return server_fault(r, i, "latency run", why, err);
        }
        int st;
        if (rb_http_child_exited(&r->servers[i].child, &st))
            return server_fault(r, i, "latency run", "", err);
    }
    return RB_OK;
}

static int gate_all(http_run *r, rb_error *err)
{
    const rb_http_options *o = r->o;
    rb_http_result *res = r->res;
    res->gate_passed = true;
    for (size_t i = 0; i < o->nspecs; i++) {
        progress(r, "gate", i, i, o->nspecs);
        rb_http_gate *g = &res->results[i].gate;
        int rc = rb_http_gate_run(r->servers[i].port, &r->reqs, r->want, o->timeout_ms, g, err);
        if (rc < 0) {
            char why[sizeof err->message];
            snprintf(why, sizeof why, "%s", err->message);
            return server_fault(r, i, "validity gate", why, err);
        }
        if (g->passed != g->requests && res->gate_passed) {
            res->gate_passed = false;
            res->gate_failed = i;
        }
    }
    return RB_OK;
}

static void restore_affinity(http_run *r)
{
    if (r->affinity_saved) sched_setaffinity(0, sizeof r->saved_affinity, &r->saved_affinity);
    r->affinity_saved = false;
}

static void wrk_version(http_run *r)
{
    char errpath[128], line[RB_HTTP_NAME];
    snprintf(errpath, sizeof errpath, "%s/wrk-version.err", r->tmp);
    char *argv[] = {r->wrk, "-v", NULL};
    rb_http_child c;
    rb_error e;
    snprintf(r->res->wrk_version, sizeof r->res->wrk_version, "wrk (version unknown)");
    if (rb_http_spawn(argv, -1, true, errpath, &c, &e) < 0) return;
    if (rb_http_read_line(&c, "wrk ", 5000, line, sizeof line, &e) == RB_OK) {
        char *cut = strstr(line, " Copyright");
        if (cut) *cut = '\0';
        snprintf(r->res->wrk_version, sizeof r->res->wrk_version, "%s", line);
    }
    rb_http_child_stop(&c, 1000, NULL);
    rb_http_child_free(&c);
}

int rb_http_run(const rb_http_options *o, rb_http_progress_fn progress_fn, void *ctx,
                rb_http_result *res, rb_error *err)
{
    memset(res, 0, sizeof *res);
    res->loadavg_start = rb_machine_loadavg();
    uint64_t start = rb__monotonic_ns();
    int rc = check_options(o, err);
    if (rc < 0) return rc;
    for (size_t i = 0; i < o->nspecs; i++)
        snprintf(res->results[i].spec, sizeof res->results[i].spec, "%s", o->specs[i]);
    res->nresults = o->nspecs;
    http_run *r = calloc(1, sizeof *r);
    if (!r) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    r->o = o;
    r->res = res;
    r->progress = progress_fn;
    r->ctx = ctx;
    rb_plugins plugins;
    rb_plugins_init(&plugins);
    r->affinity_saved = sched_getaffinity(0, sizeof r->saved_affinity, &r->saved_affinity) == 0;
    rc = check_programs(r, err);
    for (size_t l = 0; rc == RB_OK && l < o->nlibs; l++)
        rc = rb_plugins_load(&plugins, o->router_libs[l], err);
    if (rc == RB_OK) rc = load_tables(r, err);
    snprintf(r->tmp, sizeof r->tmp, "/tmp/routebench-http-XXXXXX");
    if (rc == RB_OK && !mkdtemp(r->tmp)) {
        r->tmp[0] = '\0';
        rc = rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot create a temporary directory: %s",
                       strerror(errno));
    } else if (rc < 0) {
        r->tmp[0] = '\0';
    }
    if (rc == RB_OK && rb_wrk_replayed(&r->reqs) == 0)
        rc = rb__error(err, RB_EFORMAT, RB_NO_OFFSET,
                       "%s has only HEAD requests, which wrk cannot replay", o->requests_path);
    res->wrk_skipped_head = r->reqs.count - rb_wrk_replayed(&r->reqs);
    if (rc == RB_OK) {
        wrk_version(r);
        snprintf(r->script, sizeof r->script, "%s/requests.lua", r->tmp);
        rb_buf lua = {0};
        rb_wrk_script(&r->reqs, &lua);
        rc = lua.failed ? rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory")
                        : rb_file_write_atomic(r->script, lua.data, lua.len, err);
        rb_buf_free(&lua);
    }
    for (size_t i = 0; rc == RB_OK && i < o->nspecs; i++) {
        progress(r, "start", i, i, o->nspecs);
        rc = start_server(r, i, err);
    }
    if (rc == RB_OK) rc = gate_all(r, err);
    if (rc == RB_OK && res->gate_passed) {
        /* in-process lookups only now: a router is run in this process
         * after its server has shown it answers every request right */
        rc = measure_lookups_isolated(r, &plugins, err);
        restore_affinity(r);
        if (rc == RB_OK && o->client_cpu >= 0) rc = rb_machine_pin_cpu(o->client_cpu, err);
        if (rc == RB_OK) rc = capacity_rounds(r, err);
        if (rc == RB_OK) rc = compute_capacity(r, err);
        if (rc == RB_OK) rc = latency_round(r, err);
    }
    stop_servers(r);
    restore_affinity(r);
    remove_tmp(r);
    rb_plugins_close(&plugins);
    rb_route_table_free(&r->routes);
    rb_request_table_free(&r->reqs);
    free(r->want);
    free(r);
    res->loadavg_end = rb_machine_loadavg();
    res->duration_s = (double)(rb__monotonic_ns() - start) / 1e9;
    return rc;
}
