/*
 * reqgen.h — request tables for any route table.
 *
 * A request table replays hits and misses against a router.  For each of
 * `count` requests:
 *
 *   hit    pick a route (uniformly, or Zipf: the k-th most popular route of
 *          a seeded ranking is picked with weight 1/k), fill its params,
 *          catch-alls, globs and '**' with random values that no static word
 *          of the table equals (fill.h), and use a method that fits it;
 *   405    a share of the hits (wrong_method_ppm) use another method;
 *   miss   exactly round(count x miss_ppm / 10^6) requests, at random
 *          positions: a filled path mutated (a segment appended, replaced,
 *          dropped or case-flipped, a trailing slash, a new first segment)
 *          until no route matches it at all (up to 8 tries).
 *
 * EXPECTED is never the generator's intent: it is linear's answer for the
 * request (oracle.h), so a hit that a higher-priority route takes expects
 * that route; the report counts such hits (hits_taken) and misses no
 * mutation could make unmatched (misses_matched, e.g. under a root '**').
 *
 * Determinism: rb_rng seeded with the seed, integer arithmetic only; the
 * same table, configuration and seed give the same requests everywhere.
 * A table with shape duplicates is refused (every router refuses them):
 * run `routebench corpus check` on it.
 */
#ifndef RB_CORPUS_REQGEN_H
#define RB_CORPUS_REQGEN_H

#include "table.h"

typedef enum rb_req_dist { RB_DIST_UNIFORM, RB_DIST_ZIPF } rb_req_dist;

#define RB_REQGEN_DEFAULT_COUNT 4096u
#define RB_REQGEN_MAX_COUNT     100000000u
#define RB_REQGEN_DEFAULT_MISS  0.1  /* share of misses */
#define RB_REQGEN_DEFAULT_WRONG 0.05 /* share of hits sent with another method */

typedef struct rb_reqgen_config {
    size_t count;              /* 1 .. RB_REQGEN_MAX_COUNT */
    uint32_t miss_ppm;         /* misses per million requests, 0 .. 1,000,000 */
    uint32_t wrong_method_ppm; /* hits per million sent with another method */
    uint64_t seed;
    int dist; /* rb_req_dist */
} rb_reqgen_config;

typedef struct rb_reqgen_report {
    size_t requests;
    size_t hits, wrong_method, misses;                         /* what was generated */
    size_t expect_found, expect_not_found, expect_not_allowed; /* EXPECTED */
    size_t hits_taken;     /* hits linear gave to another (higher-priority) route */
    size_t misses_matched; /* misses still matched by some route after 8 tries */
    size_t candidates;     /* routes linear was asked about, summed over lookups */
    size_t lookups;
} rb_reqgen_report;

/* The defaults: RB_REQGEN_DEFAULT_COUNT requests, RB_REQGEN_DEFAULT_MISS
 * misses, RB_REQGEN_DEFAULT_WRONG of the hits with another method, seed 1,
 * uniform popularity. */
void rb_reqgen_config_init(rb_reqgen_config *cfg);

/* "uniform" / "zipf" -> rb_req_dist, or -1. */
int rb_req_dist_parse(const char *name);

/* Generate requests for routes into *out (initialised here; free with
 * rb_request_table_free), which records the routes' fingerprint (written
 * as its "# routes xxh3:" line).  Errors: RB_EINVAL (empty table, shape
 * duplicates, arguments out of range; err says which), RB_ENOMEM.  rep may
 * be NULL. */
int rb_requests_generate(const rb_route_table *routes, const rb_reqgen_config *cfg,
                         rb_request_table *out, rb_reqgen_report *rep, rb_error *err);

/* The requests of `paths` (their methods and paths, in order) with EXPECTED
 * recomputed as linear's answer on routes, into *out (initialised here):
 * the same requests against another table, such as a table's twin with
 * templates written as params.  rep (may be NULL) counts only the
 * EXPECTED fields.  Errors as rb_requests_generate. */
int rb_requests_expect(const rb_route_table *routes, const rb_request_table *paths,
                       rb_request_table *out, rb_reqgen_report *rep, rb_error *err);

#endif
