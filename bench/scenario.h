/*
 * scenario.h — what a benchmark runs on: a route table and a request table,
 * with their fingerprints.
 *
 * A scenario comes from one of three sources:
 *   generated  SHAPE-N: N routes of a shape (static, params, mixed,
 *              catchall, glob) from the corpus generator with a seed, and
 *              a request table of RB_SCENARIO_REQUESTS requests (hits and
 *              misses) whose expectations the reference router computed;
 *   shipped    a public table of corpus/data by name (github, static, ...);
 *   files      a user's routes file and requests file.
 *
 * Names in a --scenarios list:
 *   SHAPE-N    one generated scenario (e.g. params-1000); SHAPE-nc-N is
 *              the --no-conflicts variant (e.g. mixed-nc-10000: no static
 *              and param siblings, for peers such as r3)
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
typedef struct rb_scenario {
    rb_scenario_spec spec;
    uint64_t seed; /* generated: the generator seed */
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

/* Is shape one the generator knows (static, params, mixed, catchall, glob)? */
bool rb_scenario_shape_known(const char *shape);

/* Append the specs a comma-separated list names (see the top).  RB_EINVAL
 * names an unknown entry. */
int rb_scenario_list_parse(rb_scenario_list *l, const char *list, rb_error *err);
/* Append SHAPE at 100, 1,000 and 10,000 routes. */
int rb_scenario_list_add_shape(rb_scenario_list *l, const char *shape, rb_error *err);
/* Append a user's files; the name is the routes file's base name. */
int rb_scenario_list_add_files(rb_scenario_list *l, const char *routes_path,
                               const char *requests_path, rb_error *err);

/* Load a spec: read or generate the tables and fingerprint them.  seed is
 * used by generated scenarios. */
int rb_scenario_load(const rb_scenario_spec *spec, uint64_t seed, rb_scenario *out, rb_error *err);
void rb_scenario_free(rb_scenario *s);

/* The one place the corpus generator is called: N routes of shape with
 * seed (corpus/generate.h), and a request table of nrequests requests with
 * the given miss share and 5% wrong-method hits, uniform over the routes,
 * seeded with the same seed, EXPECTED computed with the reference router
 * (corpus/reqgen.h).  The same tables as `routebench corpus gen --shape S
 * --routes N --seed SEED` (with --no-conflicts for a shape "S-nc"). */
int rb_scenario_generate(const char *shape, size_t nroutes, uint64_t seed, size_t nrequests,
                         double miss, rb_route_table *routes, rb_request_table *requests,
                         rb_error *err);

#endif
