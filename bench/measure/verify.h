/*
 * verify.h — conformance of one router on one (routes, requests) pair.
 *
 * Two checks per request:
 *   1. the outcome and route id equal EXPECTED from the requests file;
 *   2. the whole match (outcome, id, every capture span, the 405 mask)
 *      equals the reference router `linear` built from the same accepted
 *      routes.
 * Routes the router refuses as unsupported are counted and left out (of
 * both routers), so a refusal is reported, never hidden.  After build, both
 * routers' invariant checks run (rb_router_check); a broken invariant is
 * an error of rb_verify (RB_EINVAL, the message names it).
 */
#ifndef RB_BENCH_VERIFY_H
#define RB_BENCH_VERIFY_H

#include "table.h"

#include <stdbool.h>

#define RB_VERIFY_MAX_EXAMPLES 10

typedef struct rb_verify_example {
    size_t request;   /* index in the request table */
    rb_match got;     /* the router's answer */
    rb_match want;    /* linear's answer */
    bool expected_ok; /* got agreed with EXPECTED */
} rb_verify_example;

typedef struct rb_verify_report {
    size_t routes, refused, requests;
    size_t agree_expected; /* check 1 */
    size_t agree_linear;   /* check 2 */
    size_t disagreeing;    /* requests failing either check */
    /* of those, with routes refused: the requests the router answers as
     * linear does (built from the same accepted routes) but not as
     * EXPECTED, which names a refused route: the refusal's consequence,
     * not a wrong answer, and not among the examples */
    size_t expect_refused;
    rb_error first_refusal;
    size_t nexamples;
    rb_verify_example examples[RB_VERIFY_MAX_EXAMPLES];
} rb_verify_report;

/* Verify ops on routes (routes_name for messages) and requests.  An empty
 * route or request table is RB_EINVAL: nothing would be checked, and
 * "0/0 agree" must not pass. */
int rb_verify(const rb_router_ops *ops, const rb_route_table *routes, const char *routes_name,
              const rb_request_table *requests, rb_verify_report *rep, rb_error *err);

/* Did the router take every route and agree on every request, both ways? */
bool rb_verify_ok(const rb_verify_report *rep);

/* rb_verify on the routes file and requests file at these paths, after
 * rb_request_table_check_routes (a requests file made for another table,
 * or an EXPECTED id beyond it, is an input error naming both); *requests
 * is the request table read (for the examples; free it with
 * rb_request_table_free, also on error). */
int rb_verify_files(const rb_router_ops *ops, const char *routes_path, const char *requests_path,
                    rb_request_table *requests, rb_verify_report *rep, rb_error *err);

/* The same two checks for routers already built from routes (a run's
 * subjects): reps[k] for routers[k] (routes = routes->count, none
 * refused).  The reference is linear: one of the routers when linear is
 * among them, else built here once.  RB_OK, or the reference's build
 * error. */
int rb_verify_built(const rb_router *const *routers, size_t n, const rb_route_table *routes,
                    const char *routes_name, const rb_request_table *requests,
                    rb_verify_report *reps, rb_error *err);

/* One disagreement as a line: "line 17: GET /a/b expected 3, got 200
 * route 3 [3+2]; linear says 200 route 3 [3+1]" (a generated request says
 * "request N"; the path's unprintable bytes show as '?'). */
void rb_verify_example_format(const rb_verify_example *x, const rb_request_table *requests,
                              char *buf, size_t cap);

/* ---- every router on every shipped corpus (verify --all) ---- */

typedef struct rb_verify_subject {
    const rb_router_ops *ops;
    const char *label; /* NAME, or NAME@LIB */
} rb_verify_subject;

/* One (router, shipped corpus) of rb_verify_all. */
typedef struct rb_verify_run {
    const char *router, *corpus;
    const char *routes_path, *requests_path;
    const rb_request_table *requests;
    bool skipped; /* the corpus uses a feature the router lacks: not run */
    bool absent;  /* skipped too: the corpus is not in $ROUTEBENCH_DATA */
    bool peer;    /* RB_FEAT_PEER: reported, not held to our semantics */
    int status;   /* rb_verify's status; err holds its message when < 0 */
    rb_error err;
    rb_verify_report rep;
} rb_verify_run;

typedef struct rb_verify_totals {
    size_t runs, failed, skipped, peers_disagreeing;
} rb_verify_totals;

typedef void (*rb_verify_each_fn)(void *ctx, const rb_verify_run *run);

/* Verify every subject on every shipped corpus (corpus/shipped.h), calling
 * each (may be NULL) after every pair, run or skipped.  A peer's
 * disagreement counts in peers_disagreeing, not in failed.  A corpus
 * whose routes file is not in the directory $ROUTEBENCH_DATA names (a
 * directory of other tables, or of an older set) is skipped for every
 * subject (absent), unless no corpus at all is there.  RB_OK when the
 * corpora could be read (whatever the routers did), else the reading
 * error. */
int rb_verify_all(const rb_verify_subject *subjects, size_t n, rb_verify_each_fn each, void *ctx,
                  rb_verify_totals *tot, rb_error *err);

/* Do two matches say exactly the same (fields relevant to the outcome)? */
bool rb_match_equal(const rb_match *a, const rb_match *b);
/* Does m agree with a requests-file EXPECTED value? */
bool rb_match_expected(const rb_match *m, int32_t expected);
/* "200 route 7 [1+3 9+2]", "404", "405 allow GET,POST" */
void rb_match_format(const rb_match *m, char *buf, size_t cap);

#endif
