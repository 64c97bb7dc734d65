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
    rb_error first_refusal;
    size_t nexamples;
    rb_verify_example examples[RB_VERIFY_MAX_EXAMPLES];
} rb_verify_report;

int rb_verify(const rb_router_ops *ops, const rb_route_table *routes, const char *routes_name,
              const rb_request_table *requests, rb_verify_report *rep, rb_error *err);

/* Do two matches say exactly the same (fields relevant to the outcome)? */
bool rb_match_equal(const rb_match *a, const rb_match *b);
/* Does m agree with a requests-file EXPECTED value? */
bool rb_match_expected(const rb_match *m, int32_t expected);
/* "200 route 7 [1+3 9+2]", "404", "405 allow GET,POST" */
void rb_match_format(const rb_match *m, char *buf, size_t cap);

#endif
