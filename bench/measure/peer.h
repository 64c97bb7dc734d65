/*
 * peer.h — routers in other processes (any language), measured in the same
 * paired rounds as ours: the peer runner protocol of docs/peer-protocol.md.
 *
 * A runner is started as `COMMAND... ROUTES_FILE REQUESTS_FILE`.  On its
 * stdout it says, line by line:
 *
 *     routebench-peer 1 NAME          hello: protocol version 1, its name
 *     refuse ID REASON...             each route it cannot express (ID: 0-based route line)
 *     loaded N BUILD_NS MEMORY        N routes taken, its build time (ns) and
 *                                     memory (bytes, -1 unknown)
 *     a ID [= OFF+LEN ...]            one answer per request, in file order: a route
 *                                     id, -1 (404) or -2 (405); after '=' the capture
 *                                     spans (byte offset + length in the path), when
 *                                     the runner can report them
 *     fold CHECKSUM                   optional: one replay's checksum in the timed
 *                                     loop's own fold (when it folds something
 *                                     cheaper than the route id: the answers are
 *                                     checked above, the loop stays bare)
 *     ready
 *
 * then reads commands on stdin:
 *
 *     run R      ->  ok NS CHECKSUM   R replays of every request in its own loop:
 *                                     NS nanoseconds they took (its monotonic clock),
 *                                     CHECKSUM the sum over every answer of (id + 2),
 *                                     or of the runner's own fold when it said
 *                                     "fold", decimal, modulo 2^64
 *     quit       ->  (exits 0; so does end of input)
 *
 * and may answer any line with "error MESSAGE".  Every read has a deadline
 * (RB_PEER_TIMEOUT_S for loading and per trial at most), so a hung runner
 * is an error, never a hung benchmark.  Library code: nothing is printed
 * (the runner's stderr is the caller's).
 */
#ifndef RB_BENCH_PEER_H
#define RB_BENCH_PEER_H

#include "router_plugin.h"
#include "table.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define RB_PEER_PROTOCOL  1
#define RB_PEER_TIMEOUT_S 120
#define RB_PEER_MAX_ARGS  32

/* How to start a runner. */
typedef struct rb_peer_spec {
    char name[64];
    char summary[256];
    char *argv[RB_PEER_MAX_ARGS + 3]; /* command and its arguments; the files follow */
    char storage[2048];               /* what argv points into */
    bool jit;                         /* a JIT runtime (Node): not counted */
    rb_router_ops ops;                /* names the peer in a run (no lookup) */
} rb_peer_spec;

/* The spec of a built-in runner (rb_peer_builtin_names) under
 * peers_dir (ROUTEBENCH_PEERS or the source tree's peers/ when NULL).
 * RB_ENOTFOUND when there is no such runner; RB_EUNSUPPORTED when it is
 * known but not built or its toolchain is missing (err says what to
 * install: scripts/setup.sh --peers); spec's name and summary are set
 * then too. */
int rb_peer_builtin(const char *name, const char *peers_dir, rb_peer_spec *spec, rb_error *err);
/* The names of the built-in runners, comma-separated. */
const char *rb_peer_builtin_names(void);
/* How many built-in runners there are, and the name of runner i (NULL
 * past the end). */
size_t rb_peer_builtin_count(void);
const char *rb_peer_builtin_name(size_t i);
/* A user's runner: "NAME=COMMAND [ARG...]" (split on blanks).  RB_EINVAL
 * naming what is wrong. */
int rb_peer_spec_parse(const char *text, rb_peer_spec *spec, rb_error *err);
/* Copy a spec (its pointers point into itself). */
void rb_peer_spec_copy(rb_peer_spec *dst, const rb_peer_spec *src);
/* The directory of the built-in runners. */
const char *rb_peer_dir(void);

/* One answer of a runner. */
typedef struct rb_peer_answer {
    int32_t id;     /* route id, RB_EXPECT_NOT_FOUND (-1) or RB_EXPECT_NOT_ALLOWED (-2) */
    int32_t nspans; /* -1: not reported */
    uint32_t first; /* index of its first span in rb_peer.spans */
} rb_peer_answer;

/* A runner's loop counted by Callgrind: one warm replay of the request
 * table (rb_peer_count). */
typedef struct rb_peer_counts {
    uint64_t ir;        /* instructions */
    uint64_t data_refs; /* Dr + Dw (with the cache simulation) */
    uint64_t l1_misses, ll_misses;
    double spread; /* A/A: |ir - ir'| / min of two independent counts; 0: exact */
} rb_peer_counts;

/* A runner's stderr is read, never shown: its first RB_PEER_STDERR_KEEP
 * bytes are kept, and an error that the runner ended or hung ends with one
 * line of it (a Go panic's "panic: ..." line, not its stack trace). */
#define RB_PEER_STDERR_KEEP 2048
#define RB_PEER_STDERR_LINE 160

typedef struct rb_peer {
    pid_t pid;
    int to, from; /* its stdin, its stdout */
    int errfd;    /* its stderr (a pipe; -1 once it ended): never copied to ours */
    char ebuf[RB_PEER_STDERR_KEEP]; /* the start of its stderr, for one line in an error */
    size_t elen;
    char name[64];
    bool jit; /* its spec's: a JIT runtime, warmed up longer (harness.c) */
    char rbuf[8192];
    size_t rlen, rpos;
    size_t nrefused;
    char first_refusal[256];
    uint64_t build_ns;
    int64_t memory;
    rb_peer_answer *answers;
    size_t nanswers;
    rb_span *spans;
    size_t nspans, spans_cap;
    uint64_t checksum; /* of one replay: sum of (id + 2), or the runner's "fold" */
    bool counted;      /* counts holds its rb_peer_count (the counted metrics) */
    rb_peer_counts counts;
} rb_peer;

/* Start spec's runner on the two files and read its hello, refusals,
 * summary and one answer per request (nrequests of them).  *out is
 * allocated.  RB_EIO (it could not start, died, or broke the protocol: the
 * message says which line), RB_EIO after
 * RB_PEER_TIMEOUT_S, RB_ENOMEM.  A runner that refused routes is still
 * returned (out->nrefused > 0): the caller decides. */
int rb_peer_start(const rb_peer_spec *spec, const char *routes_path, const char *requests_path,
                  size_t nrequests, rb_peer **out, rb_error *err);

/* One trial: "run reps"; *ns and *checksum from its reply. */
int rb_peer_trial(rb_peer *p, uint64_t reps, uint64_t *ns, uint64_t *checksum, rb_error *err);

/* Its build time and memory (0 when it reported -1). */
void rb_peer_info(const rb_peer *p, uint64_t *build_ns, size_t *memory);

/* Answer i as a match (spans when reported). */
void rb_peer_match(const rb_peer *p, size_t i, rb_match *m);

/* Agreement, as verify.c checks a router: with EXPECTED (outcome and id)
 * and with linear's answer (outcome, id, and the spans when the runner
 * reported them; a 405's method mask is not part of the protocol). */
typedef struct rb_peer_agreement {
    size_t requests, agree_expected, agree_linear;
    size_t first_linear_miss; /* SIZE_MAX: none */
    bool spans;               /* every answer reported its spans */
} rb_peer_agreement;

int rb_peer_check(const rb_peer *p, const rb_route_table *routes, const rb_request_table *requests,
                  rb_peer_agreement *a, rb_error *err);

/* Count spec's timed loop on the two files under Callgrind (peer_count.c):
 * the runner is run twice, told "run 1" then "run 2", under
 * --toggle-collect=*routebench_peer_loop (the protocol's name for its
 * timed loop), and *out is the difference: one warm replay of the
 * requests.  checksum is one replay's (the answers must not change);
 * cache_sim adds the cache events.  RB_EUNSUPPORTED for a JIT runtime
 * (spec->jit), without valgrind, or when nothing was counted (no function
 * of that name); RB_EIO, RB_ESTATE as rb_peer_start and the trials. */
int rb_peer_count(const rb_peer_spec *spec, const char *routes, const char *requests,
                  size_t nrequests, uint64_t checksum, bool cache_sim, rb_peer_counts *out,
                  rb_error *err);

/* Send "quit", wait for it (killing it after a grace period), free. NULL ok. */
void rb_peer_close(rb_peer *p);

#endif
