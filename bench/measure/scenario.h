/*
 * scenario.h — what a benchmark runs on: a route table and a request table,
 * with their fingerprints.
 *
 * A scenario comes from one of three sources:
 *   generated  SHAPE-N: N routes of a shape (static, params, mixed,
 *              catchall, glob, templates) from the corpus generator with
 *              a seed, and a request table of RB_SCENARIO_REQUESTS requests
 *              (hits and misses) whose expectations the reference router
 *              computed;
 *   shipped    a public table of corpus/data by name (github, static, ...);
 *   files      a user's routes file and requests file.
 *
 * Names in a --scenarios list:
 *   SHAPE-N    one generated scenario (e.g. params-1000); SHAPE-nc-N is
 *              the --no-conflicts variant (e.g. mixed-nc-10000: no static
 *              and param siblings, for peers such as r3); a "-v1" after
 *              the shape (mixed-v1-10000, mixed-nc-v1-10000) uses generator
 *              v1, to reproduce figures published before v2 (generate.h)
 *   SHAPE      that shape at 100, 1,000 and 10,000 routes (a shipped
 *              corpus of the same name wins: "static" is the shipped table;
 *              --shape static or static-N name the generated ones)
 *   default    the default suite: static, params, mixed, catchall at 100,
 *              1,000 and 10,000 routes (12 scenarios)
 *   shipped    every shipped corpus
 *   NAME       a shipped corpus (routebench list shows them)
 */
#ifndef RB_BENCH_SCENARIO_H
#define RB_BENCH_SCENARIO_H

#include "table.h"

#include <stdbool.h>
#include <stdint.h>

#define RB_SCENARIO_REQUESTS     4096u
#define RB_SCENARIO_MISS         0.1
#define RB_SCENARIO_DEFAULT_SEED 42u
#define RB_SCENARIO_NAME         128
#define RB_SCENARIO_PATH         1024

typedef enum rb_scenario_kind {
    RB_SCENARIO_GENERATED,
    RB_SCENARIO_SHIPPED,
    RB_SCENARIO_FILES,
} rb_scenario_kind;

/* What to load (cheap to hold; loading may take a while). */
typedef struct rb_scenario_spec {
    rb_scenario_kind kind;
    char name[RB_SCENARIO_NAME];
    char shape[16];                                                      /* generated */
    size_t nroutes;                                                      /* generated */
    char routes_path[RB_SCENARIO_PATH], requests_path[RB_SCENARIO_PATH]; /* shipped, files */
} rb_scenario_spec;

/* A loaded scenario. */
#define RB_SCENARIO_DEPTHS 17 /* routes by depth: [1..15], [16] 16 or more */

typedef struct rb_scenario {
    rb_scenario_spec spec;
    uint64_t seed;                    /* generated: the generator seed */
    uint32_t generator;               /* generated: RB_GEN_V1 or RB_GEN_V2; else 0 */
    size_t depth[RB_SCENARIO_DEPTHS]; /* routes by depth (segments) */
    rb_route_table routes;
    rb_request_table requests;
    uint64_t routes_fp, requests_fp;
    unsigned features; /* RB_FEAT_* the routes use */
} rb_scenario;

/* A growable list of specs. */
typedef struct rb_scenario_list {
    rb_scenario_spec *v;
    size_t n, cap;
} rb_scenario_list;

void rb_scenario_list_free(rb_scenario_list *l);

/* Is shape one the generator knows (static, params, mixed, catchall, glob,
 * templates, each with the suffixes -nc, -v1)? */
bool rb_scenario_shape_known(const char *shape);
/* shape ("mixed-nc-v1") -> rb_gen_shape, *no_conflicts, *generator; -1 if
 * unknown. */
int rb_scenario_shape_parse(const char *shape, bool *no_conflicts, uint32_t *generator);
/* The `routebench corpus gen` command that writes the tables of a
 * generated scenario (snprintf's result). */
int rb_scenario_gen_command(const char *shape, size_t nroutes, uint64_t seed, char *buf,
                            size_t cap);
/* Routes of t by depth (segments), the last entry for cap - 1 or more. */
void rb_scenario_depths(const rb_route_table *t, size_t *depth, size_t cap);

/* Append the specs a comma-separated list names (see the top).  RB_EINVAL
 * names an unknown entry. */
int rb_scenario_list_parse(rb_scenario_list *l, const char *list, rb_error *err);
/* Append SHAPE at 100, 1,000 and 10,000 routes. */
int rb_scenario_list_add_shape(rb_scenario_list *l, const char *shape, rb_error *err);
/* Append a user's files; the name is the routes file's base name. */
int rb_scenario_list_add_files(rb_scenario_list *l, const char *routes_path,
                               const char *requests_path, rb_error *err);

/* Load a spec: read or generate the tables and fingerprint them.  seed is
 * used by generated scenarios.  Files must be a pair
 * (rb_request_table_check_routes): requests recording another route
 * table's fingerprint, or an EXPECTED id beyond the table, are RB_EFORMAT
 * naming both files. */
int rb_scenario_load(const rb_scenario_spec *spec, uint64_t seed, rb_scenario *out, rb_error *err);
void rb_scenario_free(rb_scenario *s);

/* The one place the corpus generator is called: N routes of shape with
 * seed (corpus/generate.h), and a request table of nrequests requests with
 * the given miss share and 5% wrong-method hits, uniform over the routes,
 * seeded with the same seed, EXPECTED computed with the reference router
 * (corpus/reqgen.h).  The same tables as rb_scenario_gen_command's
 * `routebench corpus gen --shape S [--no-conflicts] --generator vG --routes
 * N --seed SEED`. */
int rb_scenario_generate(const char *shape, size_t nroutes, uint64_t seed, size_t nrequests,
                         double miss, rb_route_table *routes, rb_request_table *requests,
                         rb_error *err);

#endif
