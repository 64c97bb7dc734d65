/*
 * http.h — `routebench http`: the router inside a real HTTP server
 * (examples/http/server.c, libmicrohttpd), measured over loopback the way
 * careful HTTP labs do.  Everything here is HTTP requests per second over
 * loopback on one machine: never a lookup rate, never mixed with one.
 *
 *   http_parse.c  HTTP/1.1 responses: parse one from a byte buffer; the
 *                 server's X-Route and Allow headers to match fields
 *   http_proc.c   child processes: spawn pinned to a CPU in their own
 *                 process group, read the start-up line with a deadline,
 *                 stop (SIGTERM, then SIGKILL), stderr tails for messages
 *   http_gate.c   the validity gate: every request of the table once over
 *                 HTTP; status, route id, captures and Allow must equal
 *                 linear's answer
 *   http_wrk.c    wrk: the Lua script that replays the request table and
 *                 counts statuses, and the parser of wrk's output
 *   http_load.c   the open-loop generator for latency at a fixed offered
 *                 rate, corrected for coordinated omission
 *   http.c        the whole protocol (below), filling an rb_http_result
 *   http_report.c the text / Markdown report and the bundle files
 *
 * Protocol of rb_http_run, for routers R1..Rk (R1 is the baseline):
 *   1. read both tables; refuse paths an HTTP request line cannot carry;
 *      the expected answer of every request is linear's;
 *   2. start one server per router on 127.0.0.1 (port 0: the kernel picks
 *      a free one), pinned to the server CPU; idle servers cost nothing;
 *   3. validity gate of every server; one wrong answer refuses the load
 *      phase for all of them, naming the first wrong request;
 *   4. in-process lookup time of every router on the same table (the
 *      paired harness, bench/measure/harness.h), pinned to the server's CPU, only
 *      now that every router has answered every request right;
 *   5. capacity: wrk (1 thread, C connections, closed loop) pinned to the
 *      client CPU replays the table against each server; a warm-up round,
 *      then `trials` rounds whose router orders follow a balanced Latin
 *      square (Williams design: every router in every position equally
 *      often, every router directly after every other equally often when
 *      trials is a multiple of the design's length);
 *   6. latency at a matched offered rate: fraction x the slowest router's
 *      median capacity, the same rate for every router, from our open-loop
 *      generator (http_load.c says why not wrk's delay());
 *   7. statistics: median capacity per router, paired speed ratios against
 *      the baseline with their intervals (stats.h; per-request times
 *      of one round are a pair), the router's share of a request = lookup
 *      ns / (1e9 / capacity).
 * Faults (a server that does not start, exits, crashes, hangs or answers
 * wrongly; wrk missing, failing or hanging; the port in use) end the run
 * with an error naming the router and, for a server, the tail of its
 * stderr; every child is stopped and reaped before rb_http_run returns.
 *
 * Nothing here prints; progress goes through a callback.  Not thread-safe:
 * it forks and changes the calling thread's CPU affinity (restored).
 */
#ifndef RB_BENCH_HTTP_H
#define RB_BENCH_HTTP_H

#include "buf.h"
#include "file.h"
#include "stats.h"
#include "table.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define RB_HTTP_MAX_ROUTERS 16
#define RB_HTTP_NAME        128
#define RB_HTTP_TAIL        2048 /* bytes of a child's stderr kept for messages */

/* ---- responses (http_parse.c) ------------------------------------------- */

typedef struct rb_http_response {
    int status;            /* 100..999 */
    size_t content_length; /* body bytes */
    bool close;            /* "Connection: close" */
    bool has_route, has_allow;
    char route[64 + RB_MAX_CAPTURES * 24]; /* X-Route value (NUL-terminated) */
    char allow[128];                       /* Allow value */
    const char *body;                      /* into the parsed buffer */
} rb_http_response;

/* Parse one response from buf[0..len).  head: the request was HEAD (no
 * body whatever Content-Length says).  Returns 1 and sets *used when a
 * whole response is there, 0 when more bytes are needed, RB_EFORMAT (err
 * says what) when the bytes are not a response this client understands
 * (chunked bodies are refused: the server never sends them). */
int rb_http_response_parse(const char *buf, size_t len, bool head, rb_http_response *r,
                           size_t *used, rb_error *err);

/* The answer a response stands for: status 200 + X-Route "ID OFF+LEN...",
 * 404, or 405 + Allow "GET, POST".  RB_EFORMAT (err says what) when the
 * headers do not say it in that form. */
int rb_http_response_match(const rb_http_response *r, rb_match *m, rb_error *err);

/* "GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" into b. */
void rb_http_format_request(rb_buf *b, int method, const char *path, size_t len);

/* Can path go on an HTTP request line as it is (no byte <= 0x20, 0x7f,
 * '?' or '#')?  Otherwise *bad is the offset of the first byte that
 * cannot. */
bool rb_http_path_sendable(const char *path, size_t len, size_t *bad);

/* ---- child processes (http_proc.c) -------------------------------------- */

typedef struct rb_http_child {
    pid_t pid;      /* also its process group; 0: none */
    int out_fd;     /* read end of its stdout, -1 when closed */
    char *err_path; /* its stderr file (owned) */
    double cpu_s;   /* user + system CPU seconds, set when it is reaped */
} rb_http_child;

/* Start argv[0] (a path) with argv, in a new process group, killed when
 * this process dies (PR_SET_PDEATHSIG), pinned to cpu (< 0: not pinned),
 * stdout to a pipe (c->out_fd) or /dev/null when !want_stdout, stderr to
 * err_path (copied).  RB_EIO when it cannot be started. */
int rb_http_spawn(char *const *argv, int cpu, bool want_stdout, const char *err_path,
                  rb_http_child *c, rb_error *err);
/* Read from c's stdout until a line starting with prefix arrives (copied
 * into line) within timeout_ms.  RB_EIO when the child closes its stdout
 * first (it exited: see rb_http_child_exited) or the time runs out. */
int rb_http_read_line(rb_http_child *c, const char *prefix, unsigned timeout_ms, char *line,
                      size_t cap, rb_error *err);
/* Has c exited?  When it has, *status is its wait status and c->pid 0. */
bool rb_http_child_exited(rb_http_child *c, int *status);
/* Wait for c to exit within timeout_ms; true (and *status) when it did. */
bool rb_http_child_wait(rb_http_child *c, unsigned timeout_ms, int *status);
/* SIGTERM to c's process group, SIGKILL after grace_ms, reap; the exit
 * status in *status (may be NULL).  Closes out_fd, removes nothing. */
void rb_http_child_stop(rb_http_child *c, unsigned grace_ms, int *status);
/* CPU seconds (user + system, every thread) c has used so far: from
 * /proc while it runs, from its rusage once reaped; -1 when unknown. */
double rb_http_child_cpu_s(const rb_http_child *c);
/* The last RB_HTTP_TAIL bytes of c's stderr into buf ("" if none). */
void rb_http_child_stderr(const rb_http_child *c, char *buf, size_t cap);
/* "exited with status 3", "killed by signal 11 (Segmentation fault)". */
void rb_http_describe_status(int status, char *buf, size_t cap);
/* Free err_path (after the stop). */
void rb_http_child_free(rb_http_child *c);

/* ---- the validity gate (http_gate.c) ------------------------------------ */

/* Internal: a TCP connection to 127.0.0.1:port (TCP_NODELAY; send/receive
 * timeouts when timeout_ms; connect in progress when nonblocking).  The
 * descriptor, or a negative code with err set. */
int rb__http_connect(uint16_t port, bool nonblocking, unsigned timeout_ms, rb_error *err);

typedef struct rb_http_gate {
    size_t requests, passed;
    size_t first_wrong;   /* index in the request table; valid when passed < requests */
    char first_what[512]; /* "GET /x (line 7): expected 200 route 3 [1+2], got 404" */
    bool io_failed;       /* the server stopped answering (err says how) */
} rb_http_gate;

/* Send every request of reqs once, in order, on one keep-alive
 * connection to 127.0.0.1:port (reconnecting after "Connection: close"),
 * and compare each answer with want[i] (linear's answer).  timeout_ms
 * bounds each request.  Returns RB_OK with g filled (passed == requests:
 * the gate is passed), or RB_EIO when the server could not be reached or
 * stopped answering (g->io_failed, err names the request). */
int rb_http_gate_run(uint16_t port, const rb_request_table *reqs, const rb_match *want,
                     unsigned timeout_ms, rb_http_gate *g, rb_error *err);

/* ---- wrk (http_wrk.c) ---------------------------------------------------- */

typedef struct rb_wrk_result {
    uint64_t requests;    /* completed responses */
    uint64_t duration_us; /* of the measured run */
    uint64_t bytes;
    uint64_t err_connect, err_read, err_write, err_timeout; /* socket errors */
    uint64_t status_200, status_404, status_405, status_other;
    double latency_p50_us, latency_p99_us, latency_max_us; /* closed-loop, at saturation */
} rb_wrk_result;

/* The Lua script: replays reqs in order (each wrk thread from its own
 * offset), counts statuses 200 / 404 / 405 / other per thread and prints
 * one "routebench-wrk v1 key=value ..." line from done(). */
void rb_wrk_script(const rb_request_table *reqs, rb_buf *out);
/* The requests the script replays: every one but HEAD (http_wrk.c says
 * why wrk cannot take them). */
size_t rb_wrk_replayed(const rb_request_table *reqs);
/* Parse wrk's output (its own summary plus the script's line).  RB_EFORMAT
 * (err says what is missing) when the routebench line is absent or
 * malformed, or wrk's "N requests in" line disagrees with it. */
int rb_wrk_parse(const char *text, size_t len, rb_wrk_result *out, rb_error *err);
/* Requests per second of a result (0 when the duration is 0). */
double rb_wrk_rate(const rb_wrk_result *r);

/* ---- the open-loop generator (http_load.c) ------------------------------ */

typedef struct rb_load_config {
    uint16_t port;
    double rate;          /* offered requests per second, > 0 */
    double duration_s;    /* of the schedule, > 0 */
    unsigned connections; /* >= 1 */
    unsigned timeout_ms;  /* a request unanswered this long is a timeout */
    const rb_request_table *reqs;
    const rb_match *want; /* expected answers: wrong ones are counted */
} rb_load_config;

typedef struct rb_load_result {
    uint64_t scheduled, completed;
    uint64_t err_connect, err_read, err_write, err_timeout;
    uint64_t status_200, status_404, status_405, status_other;
    uint64_t wrong;       /* answers that differ from want */
    double achieved_rate; /* completed / (last completion - first intended time) */
    double p50_us, p90_us, p99_us, p999_us, max_us; /* from the intended send time */
} rb_load_result;

/* Run the schedule: request k is due at t0 + k / rate and goes on
 * connection k mod connections as soon as it is due and that connection's
 * previous response is in; its latency runs from when it was due, not from
 * when it was sent, so a stalled server is charged for the requests it
 * held back (the coordinated-omission correction).  RB_EIO when no
 * connection can be opened. */
int rb_load_run(const rb_load_config *cfg, rb_load_result *out, rb_error *err);

/* ---- the whole protocol (http.c) ---------------------------------------- */

typedef struct rb_http_options {
    const char *server_path; /* routebench-http-server */
    const char *wrk_path;    /* wrk (a path, or a name looked up on PATH) */
    const char *routes_path, *requests_path;
    const char *specs[RB_HTTP_MAX_ROUTERS]; /* router specs, baseline first */
    size_t nspecs;
    const char *router_libs[RB_HTTP_MAX_ROUTERS]; /* --router-lib, for the server too */
    size_t nlibs;
    int server_cpu, client_cpu; /* < 0: not pinned */
    unsigned port;              /* 0: a free port per server; else port, port+1, ... */
    unsigned trials, warmup;    /* measured and warm-up rounds of wrk */
    double trial_s;             /* one wrk run, whole seconds >= 1 */
    unsigned connections;
    double rate_fraction;   /* of the slowest capacity, 0 < f <= 1 */
    double latency_s;       /* one open-loop run per router */
    unsigned timeout_ms;    /* start-up, each gate request, each load request */
    unsigned lookup_trials; /* in-process lookup trials (harness) */
    rb_bootstrap_opts bootstrap;
} rb_http_options;

/* Defaults: server on CPU 1, client on CPU 0, free ports, 6 trials of 3 s,
 * 1 warm-up round, 8 connections, latency at 0.5 x the slowest capacity
 * for 5 s, 5 s timeouts, 5 lookup trials. */
void rb_http_options_init(rb_http_options *o);

/* One wrk run of one router: a row of http_trials.csv. */
typedef struct rb_http_trial {
    uint32_t router;   /* index into results */
    uint32_t round;    /* 0: warm-up, then 1-based measured rounds */
    uint32_t position; /* 1-based place in the round's order */
    rb_wrk_result wrk;
    double server_busy;   /* server CPU seconds / trial wall seconds (-1: unknown) */
    double client_busy;   /* wrk's CPU seconds / trial wall seconds */
    double server_cpu_ns; /* server CPU ns per completed request (-1: unknown) */
} rb_http_trial;

typedef struct rb_http_router_result {
    char spec[RB_HTTP_NAME];
    rb_http_gate gate;
    double lookup_ns; /* in-process, median over lookup trials, thread CPU time */
    size_t trials;
    double capacity, capacity_min, capacity_max; /* requests/s over the measured trials */
    double ns_per_request;                       /* 1e9 / capacity */
    double share;                                /* lookup_ns / ns_per_request */
    double cpu_ns_per_request;        /* server CPU time per request, median over trials */
    double cpu_share;                 /* lookup_ns / cpu_ns_per_request: robust to other load */
    rb_paired_result cpu_vs_baseline; /* the same ratio on server CPU ns/request (n 0: unknown) */
    rb_paired_result vs_baseline;     /* speed of this router / the baseline's */
    double server_busy, client_busy;  /* medians over the measured trials */
    uint64_t err_socket, status_200, status_404, status_405, status_other; /* all trials */
    rb_load_result latency;
} rb_http_router_result;

typedef struct rb_http_result {
    rb_http_router_result results[RB_HTTP_MAX_ROUTERS];
    size_t nresults;
    rb_http_trial *trials; /* warm-up and measured, in execution order */
    size_t ntrials, trials_cap;
    size_t routes, requests;
    uint64_t routes_fp, requests_fp;
    size_t expect_found, expect_not_found, expect_not_allowed;
    size_t wrk_skipped_head; /* HEAD requests wrk does not replay (http_wrk.c) */
    bool gate_passed;        /* false: the load phase was refused */
    size_t gate_failed;      /* index of the first router that failed it */
    double offered_rate;
    double loadavg_start, loadavg_end;
    double duration_s;
    char wrk_version[RB_HTTP_NAME], server_version[RB_HTTP_NAME];
    bool fault;                      /* the error was a server's or wrk's fault, not the input's */
    char detail[RB_HTTP_TAIL + 256]; /* on a fault: the child's stderr tail */
} rb_http_result;

/* Progress: what ("start", "gate", "warm-up", "trial", "latency",
 * "lookup"), the router's spec (or NULL), done/total steps of that kind. */
typedef void (*rb_http_progress_fn)(void *ctx, const char *what, const char *spec, size_t done,
                                    size_t total);

/* Run the protocol above.  RB_OK with res filled (res->gate_passed false:
 * a server failed the gate, the load phase was refused); RB_EINVAL for bad
 * options; RB_EIO / RB_EFORMAT / RB_ENOTFOUND for input, environment and
 * faults (err says what; res->detail holds a server's stderr tail). */
int rb_http_run(const rb_http_options *o, rb_http_progress_fn progress, void *ctx,
                rb_http_result *res, rb_error *err);
void rb_http_result_free(rb_http_result *res);

/* The order of round r (0-based) for k routers, a Williams design:
 * order[p] = the router at position p.  Rows cycle every k rounds (k
 * even) or 2k rounds (k odd). */
void rb_http_round_order(size_t k, size_t round, size_t *order);

/* ---- report and bundle (http_report.c) ---------------------------------- */

/* The report, in Markdown when md, else plain text for a terminal. */
void rb_http_report(const rb_http_options *o, const rb_http_result *res, const char *command,
                    bool md, rb_buf *out);
/* Can dir take an http bundle?  Missing, empty, or an http bundle (it
 * holds http.json, and only files); a symbolic link to nothing is refused.
 * For the check before any work; RB_EIO naming what is wrong. */
int rb_http_prepare_dir(const char *dir, rb_error *err);
/* Write dir/http.json, dir/http_trials.csv and dir/http.md as one
 * directory that appears whole (base/file.h): two writers at once or a
 * kill never leave files of two runs side by side.  Other files the user
 * put in dir are kept. */
int rb_http_write_bundle(const rb_http_options *o, const rb_http_result *res, const char *command,
                         const char *dir, rb_error *err);

#endif
