/*
 * test_http.c — `routebench http` (bench/http*.c, examples/http/server.c):
 * the response parser and the server's X-Route/Allow encoding, wrk's output
 * parsed from recorded files (tests/data/wrk/), the generated Lua script,
 * the balanced round order; then, when routebench-http-server was built
 * (libmicrohttpd-dev) and wrk is installed, the real thing: the validity
 * gate refuses a server that answers one request wrongly, naming it;
 * crashes, hangs, a port in use and missing programs are clear errors that
 * leave no process behind; and a short smoke run of the whole pipeline.
 * Tests that need the packages skip with a message when they are missing.
 */
#define _GNU_SOURCE
#include "http.h"
#include "rb_test.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- responses ------------------------------------------------------------ */

Test(http_parse, whole_response_with_route_header)
{
    const char text[] = "HTTP/1.1 200 OK\r\ncontent-length: 17\r\nX-ROUTE:  62 7+1 9+1 \r\n\r\n"
                        "route 62 7+1 9+1\nHTTP/1.1 404";
    rb_http_response r;
    size_t used = 0;
    rb_error err;
    cr_assert_eq(rb_http_response_parse(text, sizeof text - 1, false, &r, &used, &err), 1, "%s",
                 err.message);
    cr_expect_eq(r.status, 200);
    cr_expect_eq(r.content_length, 17u);
    cr_expect_str_eq(r.route, "62 7+1 9+1");
    cr_expect_eq(used, sizeof text - 1 - strlen("HTTP/1.1 404"));
    rb_match m;
    cr_assert_eq(rb_http_response_match(&r, &m, &err), RB_OK, "%s", err.message);
    cr_expect_eq(m.outcome, RB_FOUND);
    cr_expect_eq(m.route_id, 62u);
    cr_expect_eq(m.nparams, 2u);
    cr_expect_eq(m.params[1].offset, 9u);
    cr_expect_eq(m.params[1].len, 1u);
}

Test(http_parse, partial_input_needs_more)
{
    const char text[] = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nroute";
    rb_http_response r;
    size_t used = 0;
    rb_error err;
    for (size_t n = 0; n < sizeof text - 1; n++)
        cr_expect_eq(rb_http_response_parse(text, n, false, &r, &used, &err), 0, "at %zu", n);
}

Test(http_parse, head_has_no_body_and_close_is_seen)
{
    const char text[] = "HTTP/1.1 200 OK\r\nContent-Length: 17\r\nConnection: close\r\n"
                        "X-Route: 3\r\n\r\n";
    rb_http_response r;
    size_t used = 0;
    rb_error err;
    cr_assert_eq(rb_http_response_parse(text, sizeof text - 1, true, &r, &used, &err), 1);
    cr_expect_eq(used, sizeof text - 1);
    cr_expect(r.close);
    cr_expect_eq(r.content_length, 0u);
}

Test(http_parse, allow_header_becomes_the_mask)
{
    const char text[] = "HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, POST,PATCH\r\n"
                        "Content-Length: 0\r\n\r\n";
    rb_http_response r;
    size_t used;
    rb_error err;
    cr_assert_eq(rb_http_response_parse(text, sizeof text - 1, false, &r, &used, &err), 1);
    rb_match m;
    cr_assert_eq(rb_http_response_match(&r, &m, &err), RB_OK, "%s", err.message);
    cr_expect_eq(m.outcome, RB_METHOD_NOT_ALLOWED);
    cr_expect_eq(m.allowed,
                 RB_METHOD_BIT(RB_GET) | RB_METHOD_BIT(RB_POST) | RB_METHOD_BIT(RB_PATCH));
}

Test(http_parse, refuses_what_the_server_never_sends)
{
    const char *bad[] = {
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX-Route: 1\r\n\r\n",         /* no length */
        "SMTP 220 hello\r\n\r\n",                        /* not HTTP */
        "HTTP/1.1 200 OK\r\nbroken header\r\n\r\n",      /* no colon */
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", /* bad length */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rb_http_response r;
        size_t used;
        rb_error err;
        cr_expect_eq(rb_http_response_parse(bad[i], strlen(bad[i]), false, &r, &used, &err),
                     RB_EFORMAT, "case %zu", i);
    }
    /* a 200 whose X-Route is not "ID OFF+LEN ..." and a 405 without Allow */
    const char *wrong[] = {"HTTP/1.1 200 OK\r\nX-Route: 1 2-3\r\nContent-Length: 0\r\n\r\n",
                           "HTTP/1.1 405 X\r\nContent-Length: 0\r\n\r\n",
                           "HTTP/1.1 500 X\r\nContent-Length: 0\r\n\r\n"};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        rb_http_response r;
        size_t used;
        rb_error err;
        rb_match m;
        cr_assert_eq(rb_http_response_parse(wrong[i], strlen(wrong[i]), false, &r, &used, &err), 1);
        cr_expect_eq(rb_http_response_match(&r, &m, &err), RB_EFORMAT, "case %zu", i);
    }
}

Test(http_parse, request_line_and_sendable_paths)
{
    rb_buf b = {0};
    rb_http_format_request(&b, RB_DELETE, "/a/b", 4);
    cr_expect_eq(b.len, strlen("DELETE /a/b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    cr_expect(memcmp(b.data, "DELETE /a/b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", b.len) == 0);
    rb_buf_free(&b);
    size_t bad = 99;
    cr_expect(rb_http_path_sendable("/a/%2F/\xc3\xa9", 9, &bad));
    cr_expect(!rb_http_path_sendable("/a b", 4, &bad));
    cr_expect_eq(bad, 2u);
    cr_expect(!rb_http_path_sendable("/a?x=1", 6, &bad));
    cr_expect_eq(bad, 2u);
    cr_expect(!rb_http_path_sendable("/a\r\n", 4, &bad));
}

/* ---- wrk: recorded outputs ----------------------------------------------- */

static char *read_fixture(const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/wrk/%s", RB_SOURCE_DIR, name);
    char *text;
    rb_error err;
    cr_assert_eq(rb_file_read(path, &text, len, &err), RB_OK, "%s", err.message);
    return text;
}

/* Parse recorded output name (asserting success) into r. */
static void parse_fixture(const char *name, rb_wrk_result *r)
{
    size_t len;
    char *text = read_fixture(name, &len);
    rb_error err;
    cr_assert_eq(rb_wrk_parse(text, len, r, &err), RB_OK, "%s: %s", name, err.message);
    free(text);
}

Test(http_wrk, parses_a_normal_run)
{
    rb_wrk_result r;
    parse_fixture("normal.txt", &r);
    cr_expect_eq(r.requests, 13085u);
    cr_expect_eq(r.duration_us, 1009449u);
    cr_expect_eq(r.status_200, 12329u);
    cr_expect_eq(r.status_404, 756u);
    cr_expect_eq(r.status_405 + r.status_other, 0u);
    cr_expect_eq(r.err_connect + r.err_read + r.err_write + r.err_timeout, 0u);
    cr_expect_eq(r.latency_p99_us, 16409.0);
    /* 13085 requests / 1.009449 s */
    cr_expect(rb_wrk_rate(&r) > 12962.5 && rb_wrk_rate(&r) < 12962.6, "%f", rb_wrk_rate(&r));
}

Test(http_wrk, counts_other_statuses_and_socket_errors)
{
    rb_wrk_result r;
    parse_fixture("statuses.txt", &r);
    cr_expect_eq(r.status_404, 1585u);
    cr_expect_eq(r.status_other, 396u);
    parse_fixture("socket_errors.txt", &r);
    cr_expect_eq(r.err_read, 4u);
    cr_expect_eq(r.err_write, 74689u);
    cr_expect_eq(r.status_405, 10703u);
}

Test(http_wrk, refuses_outputs_without_or_against_the_script_line)
{
    size_t len;
    rb_wrk_result r;
    rb_error err;
    char *text = read_fixture("usage.txt", &len);
    cr_expect_eq(rb_wrk_parse(text, len, &r, &err), RB_EFORMAT);
    cr_expect(strstr(err.message, "routebench-wrk"), "%s", err.message);
    free(text);
    text = read_fixture("summary_mismatch.txt", &len);
    cr_expect_eq(rb_wrk_parse(text, len, &r, &err), RB_EFORMAT);
    cr_expect(strstr(err.message, "13084"), "%s", err.message);
    free(text);
    const char *cut = "routebench-wrk v1 requests=5 duration_us=10\n";
    cr_expect_eq(rb_wrk_parse(cut, strlen(cut), &r, &err), RB_EFORMAT);
    cr_expect(strstr(err.message, "missing"), "%s", err.message);
}

Test(http_wrk, script_replays_the_table_with_escaped_paths)
{
    rb_request_table t = {0};
    cr_assert_eq(rb_request_table_append(&t, RB_GET, "/a\"b\\c\x80", 7, 0, 1), RB_OK);
    cr_assert_eq(rb_request_table_append(&t, RB_PUT, "/x", 2, -1, 2), RB_OK);
    cr_assert_eq(rb_request_table_append(&t, RB_HEAD, "/h", 2, -1, 3), RB_OK);
    cr_expect_eq(rb_wrk_replayed(&t), 2u);
    rb_buf b = {0};
    rb_wrk_script(&t, &b);
    rb_buf_puts(&b, "");
    cr_assert(!b.failed);
    cr_expect(strstr(b.data, "{\"GET\",\"/a\\034b\\092c\\128\"},"), "%s", b.data);
    cr_expect(strstr(b.data, "{\"PUT\",\"/x\"},"));
    cr_expect(!strstr(b.data, "\"HEAD\""), "HEAD is left out: %s", b.data);
    cr_expect(strstr(b.data, "function response(status"));
    cr_expect(strstr(b.data, "routebench-wrk v1 requests=%d"));
    rb_buf_free(&b);
    rb_request_table_free(&t);
}

/* ---- balanced order ------------------------------------------------------- */

/* An interval that excludes 1 never prints as including it: the report
 * printed a bound of 1.0004 as "1.000" ("[1.000, 1.310]" for a router
 * significantly faster), and 0.99962 as "1.000". */
Test(http_report, regression_218_an_interval_excluding_one_shows_the_digits_that_say_so)
{
    rb_http_options o;
    rb_http_options_init(&o);
    o.routes_path = "t.routes";
    o.requests_path = "t.requests";
    rb_http_result *res = calloc(1, sizeof *res);
    cr_assert_not_null(res);
    res->nresults = 2;
    res->gate_passed = true;
    snprintf(res->results[0].spec, sizeof res->results[0].spec, "radix");
    snprintf(res->results[1].spec, sizeof res->results[1].spec, "hashseg");
    for (size_t i = 0; i < 2; i++) {
        res->results[i].gate.passed = res->results[i].gate.requests = 10;
        res->results[i].capacity = 50000;
        res->results[i].cpu_ns_per_request = 20000;
    }
    rb_paired_result *v = &res->results[1].vs_baseline;
    *v = (rb_paired_result){.n = 6, .median = 1.2, .lo = 1.0004, .hi = 1.31, .wins = 6};
    v->excludes_one = 1;
    rb_paired_result *c = &res->results[1].cpu_vs_baseline;
    *c = (rb_paired_result){.n = 6, .median = 0.95, .lo = 0.91, .hi = 0.99962, .losses = 6};
    c->excludes_one = 1;
    rb_buf out = {0};
    rb_http_report(&o, res, NULL, false, &out);
    cr_assert_not_null(out.data);
    cr_expect(strstr(out.data, "[1.0004, 1.310]") != NULL, "%s", out.data);
    cr_expect(strstr(out.data, "[0.910, 0.9996]") != NULL, "%s", out.data);
    cr_expect(strstr(out.data, "[1.000,") == NULL && strstr(out.data, ", 1.000]") == NULL, "%s",
              out.data);
    rb_buf_free(&out);
    free(res);
}

Test(http_order, williams_design_is_balanced)
{
    for (size_t k = 1; k <= 6; k++) {
        size_t rows = k % 2 ? 2 * k : k;
        size_t pos[6][6] = {{0}}, after[6][6] = {{0}};
        for (size_t r = 0; r < rows; r++) {
            size_t order[6], seen = 0;
            rb_http_round_order(k, r, order);
            for (size_t p = 0; p < k; p++) {
                cr_assert_lt(order[p], k);
                seen |= (size_t)1 << order[p];
                pos[order[p]][p]++;
                if (p) after[order[p - 1]][order[p]]++;
            }
            cr_expect_eq(seen, ((size_t)1 << k) - 1, "k=%zu round %zu is a permutation", k, r);
        }
        for (size_t a = 0; a < k; a++)
            for (size_t p = 0; p < k; p++) {
                cr_expect_eq(pos[a][p], rows / k, "k=%zu: router %zu at position %zu", k, a, p);
                if (a != p)
                    cr_expect_eq(after[a][p], rows / k, "k=%zu: %zu directly before %zu", k, a, p);
            }
    }
}

/* ---- the real thing -------------------------------------------------------- */

static bool have_server(void)
{
    return RB_HTTP_SERVER[0] && access(RB_HTTP_SERVER, X_OK) == 0;
}

static bool have_wrk(void)
{
    return system("command -v wrk >/dev/null 2>&1") == 0;
}

#define NEED_SERVER()                                                                              \
    do {                                                                                           \
        if (!have_server())                                                                        \
            cr_skip_test("routebench-http-server not built (Debian package libmicrohttpd-dev; "    \
                         "bash scripts/setup.sh --http)");                                         \
    } while (0)

typedef struct cli_run {
    int status; /* exit status, or 128 + signal */
    char out[65536], err[65536];
    bool survivors; /* a process it started was still alive after it exited */
} cli_run;

static void slurp(int fd, char *buf, size_t cap)
{
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, buf, cap - 1);
    buf[n > 0 ? n : 0] = '\0';
    close(fd);
}

/* End and reap every child of this process (each by its pid, from /proc). */
static void kill_children(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *p = strrchr(buf, ')');
        int ppid = 0;
        if (p && sscanf(p + 1, " %*c %d", &ppid) == 1 && ppid == getpid())
            kill(atoi(e->d_name), SIGKILL);
    }
    if (d) closedir(d);
    int st;
    while (waitpid(-1, &st, 0) > 0) {
    }
}

/* Run routebench with args (NULL-terminated) as a child of this process,
 * made a subreaper first: any process routebench leaves behind becomes our
 * child, so "nothing left running" can be checked exactly. */
static void run_cli(cli_run *r, const char *const *args)
{
    char outp[] = "/tmp/rbt-http-out-XXXXXX", errp[] = "/tmp/rbt-http-err-XXXXXX";
    int out = mkstemp(outp), err = mkstemp(errp);
    cr_assert(out >= 0 && err >= 0);
    unlink(outp);
    unlink(errp);
    cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0, 0, 0), 0);
    const char *argv[64];
    size_t n = 0;
    argv[n++] = RB_ROUTEBENCH_EXE;
    argv[n++] = "http";
    for (size_t i = 0; args[i]; i++) argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out, 1);
        dup2(err, 2);
        execv(argv[0], (char *const *)(uintptr_t)argv);
        _exit(127);
    }
    cr_assert(pid > 0);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    /* what is left: zombies already gone are fine, a live one is not */
    r->survivors = false;
    while (waitpid(-1, &st, WNOHANG) > 0) {
    }
    if (waitpid(-1, &st, WNOHANG) == 0) {
        r->survivors = true;
        kill_children();
    }
    slurp(out, r->out, sizeof r->out);
    slurp(err, r->err, sizeof r->err);
}

#define FAULTS_ROUTES   RB_SOURCE_DIR "/tests/data/http/faults.routes"
#define FAULTS_REQUESTS RB_SOURCE_DIR "/tests/data/http/faults.requests"

/* routebench http on the faults table with routers, the built server and
 * wrk = /bin/true (these runs must end before any load); timeout_ms and
 * port may be NULL. */
static void run_faults(cli_run *r, const char *routers, const char *timeout_ms, const char *port)
{
    const char *args[16] = {"--routes",  FAULTS_ROUTES, "--requests", FAULTS_REQUESTS,
                            "--routers", routers,       "--server",   RB_HTTP_SERVER,
                            "--wrk",     "/bin/true"};
    size_t n = 10;
    if (timeout_ms) {
        args[n++] = "--timeout-ms";
        args[n++] = timeout_ms;
    }
    if (port) {
        args[n++] = "--port";
        args[n++] = port;
    }
    args[n] = NULL;
    run_cli(r, args);
}

/* Rule: the validity gate catches a wrong server: a router that answers one
 * request wrongly makes the gate refuse the load phase, naming the request;
 * the router that answers right passes. */
Test(http_gate, refuses_a_server_that_answers_one_request_wrongly, .timeout = 120)
{
    NEED_SERVER();
    static cli_run r;
    /* faults.requests ends with /a/crash and /a/hang, which wrongone answers right */
    run_faults(&r, "linear,wrongone@" RB_HTTP_FAULTS_PLUGIN, "3000", NULL);
    cr_expect_eq(r.status, 1, "exit %d\n%s\n%s", r.status, r.out, r.err);
    cr_expect(strstr(r.out, "linear: 10/10 passed"), "%s", r.out);
    cr_expect(strstr(r.out, "10/10 passed") && strstr(r.out, "9/10 FAILED"), "%s", r.out);
    cr_expect(strstr(r.out, "request 8, GET /a/wrong (line 8): expected 200 route 0 [3+5], got "
                            "200 route 1 [3+5]"),
              "%s", r.out);
    cr_expect(strstr(r.out, "load phase REFUSED"), "%s", r.out);
    cr_expect(strstr(r.err, "the load phase is refused"), "%s", r.err);
    cr_expect(!strstr(r.out, "Capacity"), "no load figures after a refusal: %s", r.out);
    cr_expect(!r.survivors, "a process outlived routebench http");
}

/* Rule: the server routes the bytes as sent (no %-decoding) and every field
 * of linear's answer arrives over HTTP: the gate, run directly. */
Test(http_gate, passes_every_answer_of_linear, .timeout = 60)
{
    NEED_SERVER();
    rb_route_table routes = {0};
    rb_request_table reqs = {0};
    rb_error err;
    cr_assert_eq(rb_route_table_read(FAULTS_ROUTES, &routes, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_request_table_read(FAULTS_REQUESTS, &reqs, &err), RB_OK, "%s", err.message);
    reqs.count -= 2; /* not the crash and hang requests: radix answers them, but keep it short */
    rb_router *lin = NULL;
    cr_assert_eq(rb_route_table_build_router(&routes, "faults", rb_registry_find("linear"), NULL,
                                             &lin, &err),
                 RB_OK);
    rb_match want[16];
    for (size_t i = 0; i < reqs.count; i++)
        rb_router_lookup(lin, reqs.reqs[i].method, rb_request_path(&reqs, i), reqs.reqs[i].len,
                         &want[i]);
    char *argv[] = {RB_HTTP_SERVER, "--router", "radix", "--routes", FAULTS_ROUTES, NULL};
    rb_http_child c;
    cr_assert_eq(rb_http_spawn(argv, -1, true, "/tmp/rbt-http-gate.err", &c, &err), RB_OK);
    char line[128];
    cr_assert_eq(rb_http_read_line(&c, "listening ", 20000, line, sizeof line, &err), RB_OK, "%s",
                 err.message);
    uint16_t port = (uint16_t)atoi(strchr(line, ':') + 1);
    rb_http_gate g;
    cr_assert_eq(rb_http_gate_run(port, &reqs, want, 3000, &g, &err), RB_OK, "%s", err.message);
    cr_expect_eq(g.passed, reqs.count, "%s", g.first_what);
    /* a wrong expectation is caught, field by field */
    want[6].params[0].len = 2; /* /a/%2F: the capture is 3 bytes, as sent */
    want[3].allowed = RB_METHOD_BIT(RB_GET);
    cr_assert_eq(rb_http_gate_run(port, &reqs, want, 3000, &g, &err), RB_OK, "%s", err.message);
    cr_expect_eq(g.passed, reqs.count - 2);
    cr_expect_eq(g.first_wrong, 3u);
    cr_expect(strstr(g.first_what, "DELETE /b (line 4): expected 405 allow GET, got 405 allow "
                                   "GET,POST"),
              "%s", g.first_what);
    int st;
    rb_http_child_stop(&c, 2000, &st);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the server stops cleanly on SIGTERM");
    rb_http_child_free(&c);
    unlink("/tmp/rbt-http-gate.err");
    rb_router_destroy(lin);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

/* Rule: a server that crashes is a clear error with its stderr shown, and
 * nothing is left running. */
Test(http_faults, crashing_server, .timeout = 120)
{
    NEED_SERVER();
    static cli_run r;
    run_faults(&r, "linear,crashy@" RB_HTTP_FAULTS_PLUGIN, "3000", NULL);
    cr_expect_eq(r.status, 1, "exit %d\n%s", r.status, r.err);
    cr_expect(strstr(r.err, "the server for crashy@"), "%s", r.err);
    cr_expect(strstr(r.err, "killed by signal 6"), "%s", r.err);
    cr_expect(strstr(r.err, "validity gate"), "%s", r.err);
    cr_expect(strstr(r.err, "GET /a/crash"), "names the request: %s", r.err);
    cr_expect(strstr(r.err, "crashy: aborting on purpose at /a/crash"), "its stderr: %s", r.err);
    cr_expect(!r.survivors, "a process outlived routebench http");
}

/* Rule: a server that hangs is killed after the timeout, with its stderr
 * shown, and nothing is left running. */
Test(http_faults, hanging_server, .timeout = 120)
{
    NEED_SERVER();
    static cli_run r;
    run_faults(&r, "hangs@" RB_HTTP_FAULTS_PLUGIN, "1000", NULL);
    cr_expect_eq(r.status, 1, "exit %d\n%s", r.status, r.err);
    cr_expect(strstr(r.err, "hung (request 10, GET /a/hang (line 10): no answer within 1000 ms); "
                            "killed"),
              "%s", r.err);
    cr_expect(strstr(r.err, "hangs: sleeping on purpose at /a/hang"), "its stderr: %s", r.err);
    cr_expect(!r.survivors, "a process outlived routebench http");
}

/* Regression 156: a plugin router that aborts in routebench's own process
 * (the in-process lookups, after its server passed the gate) killed
 * routebench http with signal 6.  The lookups run in a child: the abort is
 * reported with the routers' names, and nothing is left running. */
Test(http_faults, regression_156_a_router_aborting_in_process_is_reported, .timeout = 120)
{
    NEED_SERVER();
    static cli_run r;
    run_faults(&r, "hostabort@" RB_HTTP_FAULTS_PLUGIN, "1000", NULL);
    cr_expect(r.status > 0 && r.status < 128, "routebench itself died: exit %d\n%s", r.status,
              r.err);
    cr_expect(strstr(r.err, "in-process lookups of hostabort@"), "%s", r.err);
    cr_expect(strstr(r.err, "killed by signal 6"), "%s", r.err);
    cr_expect(!r.survivors, "a process outlived routebench http");
}

/* Regression 157: a plugin router that hangs in routebench's own process
 * hung routebench http with no timeout.  The silent child is killed after
 * 10 x --timeout-ms and the hang reported. */
Test(http_faults, regression_157_a_router_hanging_in_process_is_killed, .timeout = 120)
{
    NEED_SERVER();
    static cli_run r;
    run_faults(&r, "hosthang@" RB_HTTP_FAULTS_PLUGIN, "300", NULL);
    cr_expect(r.status > 0 && r.status < 128, "exit %d\n%s", r.status, r.err);
    cr_expect(strstr(r.err, "in-process lookups of hosthang@"), "%s", r.err);
    cr_expect(strstr(r.err, "no progress within 3000 ms"), "%s", r.err);
    cr_expect(!r.survivors, "a process outlived routebench http");
}

/* A connection to the server on port that has sent a partial request and
 * stays idle (a slowloris client). */
/* Packets TCP sent again on fd's connection (a dropped SYN among them). */
static unsigned tcp_retransmits(int fd)
{
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    cr_assert_eq(getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len), 0, "TCP_INFO: %s",
                 strerror(errno));
    return ti.tcpi_total_retrans;
}

/* The kernel's cap on a listening queue (net.core.somaxconn), 0 unknown. */
static long listen_queue_max(void)
{
    FILE *f = fopen("/proc/sys/net/core/somaxconn", "r");
    long v = 0;
    if (f && fscanf(f, "%ld", &v) != 1) v = 0;
    if (f) fclose(f);
    return v;
}

static int idle_client(uint16_t port)
{
    rb_error err;
    int fd = rb__http_connect(port, false, 2000, &err);
    cr_assert_geq(fd, 0, "connection: %s", err.message);
    static const char partial[] = "GET /a/1 HTTP/1.1\r\nHost: x\r\n";
    cr_assert_eq(write(fd, partial, sizeof partial - 1), (ssize_t)(sizeof partial - 1));
    return fd;
}

/* Regression 158: 1,100 idle partial requests kept every new request of
 * routebench-http-server waiting: libmicrohttpd stopped accepting at its
 * default connection limit (about 1,020) and no idle timeout was set.
 * With 2,000 idle clients open, a normal request is still answered (the
 * deadline detects a hang, it measures nothing).
 * And none of the 2,001 connections was retried by TCP: the server took
 * one connection a wake-up from a queue of 1,024 and stalled while the
 * kernel grew its file table, so the queue overflowed, a client's SYN was
 * dropped and retried after 1 s, then 3 s, 7 s...: beside a parallel test
 * suite the request waited past 30 s. */
Test(http_faults, regression_158_two_thousand_idle_clients_do_not_stop_the_server, .timeout = 120)
{
    NEED_SERVER();
    enum { IDLE = 2000 };
    struct rlimit rl;
    cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < IDLE + 100)
        cr_skip_test("the open-file limit (%lu) is below %d", (unsigned long)rl.rlim_max,
                     IDLE + 100);
    rl.rlim_cur = IDLE + 100;
    cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    /* no idle connection is closed within the deadline below, so only a
     * server that keeps accepting answers in time */
    char *argv[] = {RB_HTTP_SERVER, "--router",       "radix", "--routes",
                    FAULTS_ROUTES,  "--idle-timeout", "120",   NULL};
    rb_http_child c;
    rb_error err;
    cr_assert_eq(rb_http_spawn(argv, -1, true, "/tmp/rbt-http-idle.err", &c, &err), RB_OK);
    char line[128];
    cr_assert_eq(rb_http_read_line(&c, "listening ", 20000, line, sizeof line, &err), RB_OK, "%s",
                 err.message);
    uint16_t port = (uint16_t)atoi(strchr(line, ':') + 1);
    static int idle[IDLE];
    for (int i = 0; i < IDLE; i++) idle[i] = idle_client(port);
    int fd = rb__http_connect(port, false, 2000, &err);
    cr_assert_geq(fd, 0, "%s", err.message);
    static const char req[] = "GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    cr_assert_eq(write(fd, req, sizeof req - 1), (ssize_t)(sizeof req - 1));
    /* with the idle timeout at 120 s, a server that stopped accepting
     * never answers within 30 s */
    struct pollfd p = {fd, POLLIN, 0};
    int ready = poll(&p, 1, 30000);
    char reply[256] = "";
    ssize_t n = ready == 1 ? read(fd, reply, sizeof reply - 1) : -1;
    cr_expect(n > 0 && strncmp(reply, "HTTP/1.1 200", 12) == 0,
              "no answer with %d idle clients open (poll %d, read %zd): %s", IDLE, ready, n, reply);
    /* the listening queue holds all 2,001 when the server keeps up or not */
    if (listen_queue_max() > IDLE) {
        unsigned retried = 0;
        for (int i = 0; i < IDLE; i++) retried += tcp_retransmits(idle[i]) > 0;
        cr_expect_eq(retried, 0, "%u of %d idle clients had a packet sent again", retried, IDLE);
        cr_expect_eq(tcp_retransmits(fd), 0, "the request's connection had a packet sent again");
    }
    close(fd);
    for (int i = 0; i < IDLE; i++) close(idle[i]);
    int st;
    rb_http_child_stop(&c, 2000, &st);
    rb_http_child_free(&c);
    unlink("/tmp/rbt-http-idle.err");
}

/* Rule: an idle connection is closed after --idle-timeout seconds. */
Test(http_faults, an_idle_connection_is_closed_after_the_idle_timeout, .timeout = 60)
{
    NEED_SERVER();
    char *argv[] = {RB_HTTP_SERVER, "--router",       "radix", "--routes",
                    FAULTS_ROUTES,  "--idle-timeout", "1",     NULL};
    rb_http_child c;
    rb_error err;
    cr_assert_eq(rb_http_spawn(argv, -1, true, "/tmp/rbt-http-idle1.err", &c, &err), RB_OK);
    char line[128];
    cr_assert_eq(rb_http_read_line(&c, "listening ", 20000, line, sizeof line, &err), RB_OK, "%s",
                 err.message);
    int fd = idle_client((uint16_t)atoi(strchr(line, ':') + 1));
    struct pollfd p = {fd, POLLIN, 0};
    /* closed by the server: readable, and the read sees the end */
    cr_expect_eq(poll(&p, 1, 20000), 1, "the idle connection was never closed");
    char b[64];
    cr_expect_leq(read(fd, b, sizeof b), 0, "the server answered a partial request");
    close(fd);
    int st;
    rb_http_child_stop(&c, 2000, &st);
    rb_http_child_free(&c);
    unlink("/tmp/rbt-http-idle1.err");
}

/* Regression 159: `routebench http --out DIR` checked DIR only after the
 * whole run, and wrote its three files one by one (a kill or a second
 * writer left files of two runs side by side).  DIR is checked first and
 * written as one directory. */
Test(http_faults, regression_159_http_out_is_checked_before_any_work, .timeout = 60)
{
    NEED_SERVER();
    char dir[] = "/tmp/rbt-http-out.XXXXXX";
    cr_assert(mkdtemp(dir));
    char sub[64], link[64];
    snprintf(sub, sizeof sub, "%s/notes", dir);
    cr_assert_eq(mkdir(sub, 0755), 0);
    snprintf(link, sizeof link, "%s/link", dir);
    cr_assert_eq(symlink("missing/dir", link), 0);
    static cli_run r;
    const char *args[] = {"--routes",  FAULTS_ROUTES, "--requests", FAULTS_REQUESTS,
                          "--routers", "linear",      "--server",   RB_HTTP_SERVER,
                          "--wrk",     "/bin/true",   "--out",      dir,
                          NULL};
    run_cli(&r, args);
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "not an http bundle") || strstr(r.err, "no file of an http bundle"),
              "%s", r.err);
    cr_expect(!strstr(r.out, "passed"), "it ran before checking --out: %s", r.out);
    args[11] = link;
    run_cli(&r, args);
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "symbolic link"), "%s", r.err);
    unlink(link);
    rmdir(sub);
    rmdir(dir);
}

/* Rule: a port in use is a clear error naming it (exit 2). */
Test(http_faults, port_in_use, .timeout = 60)
{
    NEED_SERVER();
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(fd, 1), 0);
    socklen_t len = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &len);
    char port[16], want[128];
    snprintf(port, sizeof port, "%u", ntohs(a.sin_port));
    snprintf(want, sizeof want, "port %s on 127.0.0.1 is in use", port);
    static cli_run r;
    run_faults(&r, "linear", NULL, port);
    close(fd);
    cr_expect_eq(r.status, 2, "exit %d\n%s", r.status, r.err);
    cr_expect(strstr(r.err, want), "%s", r.err);
    cr_expect(strstr(r.err, "Address already in use"), "the server's stderr: %s", r.err);
    cr_expect(!r.survivors);
}

/* Rule: a missing wrk or a server that was not built names the Debian
 * package to install (exit 2), before anything starts. */
Test(http_faults, missing_programs_name_their_package, .timeout = 60)
{
    static cli_run r;
    const char *no_wrk[] = {"--routes",      FAULTS_ROUTES,      "--requests",
                            FAULTS_REQUESTS, "--server",         "/bin/true",
                            "--wrk",         "/nonexistent/wrk", NULL};
    run_cli(&r, no_wrk);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "install the Debian package wrk"), "%s", r.err);
    const char *no_server[] = {"--routes",   FAULTS_ROUTES,
                               "--requests", FAULTS_REQUESTS,
                               "--server",   "/nonexistent/routebench-http-server",
                               NULL};
    run_cli(&r, no_server);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "install the Debian package libmicrohttpd-dev"), "%s", r.err);
    cr_expect(!r.survivors);
}

/* Rule: paths an HTTP request line cannot carry are refused with file and
 * line, not sent. */
Test(http_faults, unsendable_path_names_the_line, .timeout = 60)
{
    char path[] = "/tmp/rbt-http-req-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char text[] = "GET /a/1 0\nGET /a/x?y 0\n";
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    static cli_run r;
    const char *args[] = {"--routes",  FAULTS_ROUTES, "--requests", path, "--server",
                          "/bin/true", "--wrk",       "/bin/true",  NULL};
    run_cli(&r, args);
    unlink(path);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, ":2: path byte 4 (0x3f) cannot go on an HTTP request line"), "%s",
              r.err);
}

/* The whole pipeline, a few seconds: two routers, the GitHub table, a bundle. */
Test(http_smoke, whole_pipeline_two_routers, .timeout = 300)
{
    NEED_SERVER();
    if (!have_wrk())
        cr_skip_test("wrk not installed (Debian package wrk; bash scripts/setup.sh --http)");
    char dir[] = "/tmp/rbt-http-smoke-XXXXXX";
    cr_assert(mkdtemp(dir));
    char routes[4096], reqs[4096];
    rbt_data_path("github", "routes", routes, sizeof routes);
    rbt_data_path("github", "requests", reqs, sizeof reqs);
    static cli_run r;
    const char *args[] = {"--routes",
                          routes,
                          "--requests",
                          reqs,
                          "--routers",
                          "hashseg,radix",
                          "--server",
                          RB_HTTP_SERVER,
                          "--trials",
                          "2",
                          "--warmup",
                          "0",
                          "--duration",
                          "1",
                          "--latency-duration",
                          "0.5",
                          "--lookup-trials",
                          "1",
                          "--out",
                          dir,
                          NULL};
    run_cli(&r, args);
    cr_assert_eq(r.status, 0, "exit %d\n%s\n%s", r.status, r.out, r.err);
    cr_expect(!r.survivors);
    cr_expect(strstr(r.out, "HTTP requests per second over loopback on this machine"), "%s", r.out);
    cr_expect(strstr(r.out, "hashseg: 4096/4096 passed") &&
                  strstr(r.out, "radix: 4096/4096 passed"),
              "%s", r.out);
    cr_expect(strstr(r.out, "Latency at a matched offered rate"), "%s", r.out);
    cr_expect(strstr(r.out, "router's share"), "%s", r.out);
    char path[4200];
    snprintf(path, sizeof path, "%s/http.json", dir);
    char *json;
    size_t len;
    rb_error err;
    cr_assert_eq(rb_file_read(path, &json, &len, &err), RB_OK, "%s", err.message);
    cJSON *j = cJSON_Parse(json);
    cr_assert(j);
    cr_expect_str_eq(cJSON_GetObjectItem(j, "schema")->valuestring, "routebench-http");
    cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(j, "gate_passed")));
    cJSON *res = cJSON_GetObjectItem(j, "results");
    cr_assert_eq(cJSON_GetArraySize(res), 2);
    for (int i = 0; i < 2; i++) {
        cJSON *x = cJSON_GetArrayItem(res, i);
        cr_expect_gt(cJSON_GetObjectItem(x, "capacity")->valuedouble, 0);
        cr_expect_eq(cJSON_GetObjectItem(x, "status_other")->valuedouble, 0);
        cJSON *l = cJSON_GetObjectItem(x, "latency");
        cr_expect_eq(cJSON_GetObjectItem(l, "wrong")->valuedouble, 0);
        cr_expect_gt(cJSON_GetObjectItem(l, "completed")->valuedouble, 0);
    }
    cJSON_Delete(j);
    free(json);
    snprintf(path, sizeof path, "%s/http_trials.csv", dir);
    cr_assert_eq(rb_file_read(path, &json, &len, &err), RB_OK, "%s", err.message);
    size_t lines = 0;
    for (size_t i = 0; i < len; i++) lines += json[i] == '\n';
    cr_expect_eq(lines, 1u + 2u * 2u, "header + 2 routers x 2 rounds: %s", json);
    free(json);
    const char *files[] = {"http.json", "http_trials.csv", "http.md"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* The server's --help said connections over --max-connections were
 * "closed at once"; they wait, unanswered, until an open one closes (an
 * idle one after --idle-timeout) and are then served: --help says that. */
Test(http_faults, regression_236_help_tells_what_happens_over_the_connection_limit, .timeout = 60)
{
    NEED_SERVER();
    char *dir = rbt_tmpdir();
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' --help", RB_HTTP_SERVER);
    rbt_shell h = rbt_shell_run(dir, cmd);
    char *help = rbt_unwrapped(h.out);
    cr_assert(help);
    cr_expect(!strstr(help, "closed at once"), "--help: %s", h.out);
    cr_expect(strstr(help, "more wait, unanswered, until one closes"), "--help: %s", h.out);
    /* one idle connection holds the only slot; a second's request is
     * answered once the first is closed for idleness */
    snprintf(cmd, sizeof cmd,
             "'%s' --router radix --routes '%s' --max-connections 1 --idle-timeout 1 >srv.txt & "
             "srv=$!; trap 'kill $srv 2>/dev/null' EXIT; for i in $(seq 50); do grep -q listening "
             "srv.txt && break; sleep 0.1; done; "
             "port=$(sed -n 's/.*127.0.0.1:\\([0-9]*\\).*/\\1/p' srv.txt); "
             "exec 3<>/dev/tcp/127.0.0.1/$port; sleep 0.3; exec 4<>/dev/tcp/127.0.0.1/$port; "
             "printf 'GET /a HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n' >&4; "
             "timeout 20 head -c 12 <&4; kill $srv; wait $srv",
             RB_HTTP_SERVER, FAULTS_ROUTES);
    char path[4200];
    snprintf(path, sizeof path, "%s/t.sh", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(cmd, f);
    fclose(f);
    rbt_shell r = rbt_shell_run(dir, "bash t.sh");
    cr_expect(strncmp(r.out, "HTTP/1.1 ", 9) == 0, "over the limit: no answer: '%s' %s", r.out,
              r.err);
    free(help);
    rbt_shell_free(&h);
    rbt_shell_free(&r);
    rbt_remove_tree(dir);
    free(dir);
}

/* The answer to what was written on a fresh connection to port, up to
 * cap - 1 bytes ("" when none came within 20 s: a hang detector, it
 * measures nothing). */
static void ask(uint16_t port, const char *req, size_t len, char *reply, size_t cap)
{
    rb_error err;
    int fd = rb__http_connect(port, false, 2000, &err);
    cr_assert_geq(fd, 0, "connection: %s", err.message);
    cr_assert_eq(write(fd, req, len), (ssize_t)len);
    struct pollfd p = {fd, POLLIN, 0};
    ssize_t n = poll(&p, 1, 20000) == 1 ? read(fd, reply, cap - 1) : -1;
    reply[n > 0 ? n : 0] = '\0';
    close(fd);
}

/* A request line of only NUL bytes got no answer until the idle timeout
 * (never, with --idle-timeout 0): libmicrohttpd skips a line starting
 * with NUL as an empty one.  It gets a 400 at once, the server says so on
 * stderr, and empty lines before a request are still skipped. */
Test(http_faults, a_request_line_of_nul_bytes_gets_a_400, .timeout = 90)
{
    NEED_SERVER();
    char *argv[] = {RB_HTTP_SERVER, "--router",       "radix", "--routes",
                    FAULTS_ROUTES,  "--idle-timeout", "0",     NULL};
    static const char log[] = "/tmp/rbt-http-nul.err";
    rb_http_child c;
    rb_error err;
    cr_assert_eq(rb_http_spawn(argv, -1, true, log, &c, &err), RB_OK);
    char line[128];
    cr_assert_eq(rb_http_read_line(&c, "listening ", 20000, line, sizeof line, &err), RB_OK, "%s",
                 err.message);
    uint16_t port = (uint16_t)atoi(strchr(line, ':') + 1);
    char reply[256];
    static const char nul[] = "\0\0\0\0\0\0\r\n";
    ask(port, nul, sizeof nul - 1, reply, sizeof reply);
    cr_expect(strncmp(reply, "HTTP/1.1 400", 12) == 0, "NUL line: '%s'", reply);
    static const char nul_get[] = "\0GET /b HTTP/1.1\r\nHost: x\r\n\r\n";
    ask(port, nul_get, sizeof nul_get - 1, reply, sizeof reply);
    cr_expect(strncmp(reply, "HTTP/1.1 400", 12) == 0, "NUL then GET: '%s'", reply);
    static const char crlf[] = "\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    ask(port, crlf, sizeof crlf - 1, reply, sizeof reply);
    cr_expect(strncmp(reply, "HTTP/1.1 200", 12) == 0, "empty lines, then GET: '%s'", reply);
    int st;
    rb_http_child_stop(&c, 2000, &st);
    rb_http_child_free(&c);
    FILE *f = fopen(log, "r");
    cr_assert(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    cr_expect(strstr(text, "starting with a NUL byte") != NULL, "stderr: %s", text);
    unlink(log);
}

/* Rule: --max-connections counts every open connection, those the server
 * still waits on for a first byte as those libmicrohttpd holds; past it a
 * new connection is not answered, until one closes, and is then served. */
Test(http_faults, the_connection_limit_holds_past_the_accept_stage, .timeout = 90)
{
    NEED_SERVER();
    char *argv[] = {
        RB_HTTP_SERVER,      "--router", "radix", "--routes", FAULTS_ROUTES, "--idle-timeout", "0",
        "--max-connections", "3",        NULL};
    static const char log[] = "/tmp/rbt-http-limit.err";
    rb_http_child c;
    rb_error err;
    cr_assert_eq(rb_http_spawn(argv, -1, true, log, &c, &err), RB_OK);
    char line[128];
    cr_assert_eq(rb_http_read_line(&c, "listening ", 20000, line, sizeof line, &err), RB_OK, "%s",
                 err.message);
    uint16_t port = (uint16_t)atoi(strchr(line, ':') + 1);
    /* two partial requests (the daemon's) and one silent connection (the
     * stage's) fill the three slots */
    int held[3] = {idle_client(port), idle_client(port), rb__http_connect(port, false, 2000, &err)};
    cr_assert_geq(held[2], 0, "%s", err.message);
    int fd = rb__http_connect(port, false, 2000, &err);
    cr_assert_geq(fd, 0, "%s", err.message);
    static const char req[] = "GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    cr_assert_eq(write(fd, req, sizeof req - 1), (ssize_t)(sizeof req - 1));
    struct pollfd p = {fd, POLLIN, 0};
    cr_expect_eq(poll(&p, 1, 1000), 0, "a fourth connection was served over the limit of 3");
    close(held[0]);
    char reply[256] = "";
    ssize_t n = poll(&p, 1, 20000) == 1 ? read(fd, reply, sizeof reply - 1) : -1;
    reply[n > 0 ? n : 0] = '\0';
    cr_expect(strncmp(reply, "HTTP/1.1 200", 12) == 0, "after a slot freed: '%s'", reply);
    close(fd);
    close(held[1]);
    close(held[2]);
    int st;
    rb_http_child_stop(&c, 2000, &st);
    rb_http_child_free(&c);
    unlink(log);
}
