/*
 * generate.h — the corpus generator: N routes with distinct (method, shape),
 * from a seed, byte-identical on every machine.
 *
 * The generator grows a route tree top-down the way a REST API grows:
 * namespaces and versions (/v2, /admin), collections (/users), items
 * (/users/:user_id), singular sub-resources (/users/:user_id/settings),
 * actions (POST /users/:user_id/archive) and views beside items
 * (/users/me, /users/search).  Each node receives a budget of routes; it
 * keeps a few (GET first, then POST/PATCH/DELETE/PUT as its role allows)
 * and splits the rest among 1..F children with skewed random weights, so
 * subtrees differ in size.  Each child is planned within a random depth
 * limit (usually 0-2 levels below it), raised only when its budget needs
 * more room, so leaves end at varied depths.  A capacity table (the most
 * routes a subtree of each role can hold at each depth within the fan-out
 * and a depth limit) keeps every split feasible, so exactly N routes come
 * out, or the configuration is refused up front when it cannot hold N.
 *
 *     GET  /users                      collection
 *     POST /users
 *     GET  /users/me                   view beside the item (conflict)
 *     GET  /users/:user_id             item
 *     POST /users/:user_id/archive     action
 *     GET  /v2/orgs/:org_id/teams      namespace, nested collection
 *
 * Shapes:
 *   static    no params: namespaces, collections, views, singulars, actions
 *   params    every route has at least one param (routes only below items)
 *   mixed     the REST tree above
 *   catchall  mixed plus catch-alls (/files/:file_id/raw/ *path), some '*'
 *   glob      mixed plus glob segments (*.css, report-*.csv, img-??.png,
 *             [a-f]*.json, prefix-*) and '**' (/v2/ ** /manifests/:ref)
 *             (spaces only keep the C comment open)
 *   templates the mixed tree of the same seed (the same nodes: the choice
 *             below draws from a second generator), with the last segment
 *             of about half of the routes written as a template: an item
 *             :user_id as {user_id}.json, {user_id}.{format},
 *             us_{user_id} or {user_id}-{rev}, a word w as w.{format}.  So
 *             a param and templates meet at one place (GET
 *             /users/{user_id}.json, PATCH /users/{user_id}, GET
 *             /users/{user_id}/settings), as in Twilio's API.  With
 *             --no-conflicts only items without children are written so,
 *             all their routes in one form, so each place keeps one kind.
 *
 * Uniqueness by construction: siblings have distinct tokens (distinct
 * words, one param child, one catch-all, one '**', glob siblings with
 * distinct extensions so their languages are disjoint) and the methods of
 * one node are distinct, so every (method, shape) is distinct.  The
 * generator avoids shadowing by construction too (corpus check confirms
 * it in the tests): no glob beside a param (the param would take every
 * segment the glob takes); no catch-all beside a '**' (the '**' would take
 * everything the catch-all takes); a '**' with children has no route of
 * its own, and below a '**' the tree is two levels deep with leaf words
 * unlike the words right below it (P/ ** /w has a key that is a proper
 * prefix of P/ ** /x/w's and matches all its paths).
 *
 * Generators (rb_gen_config.generator).  Corpora are identified by their
 * fingerprint, so a generator, once published, never changes its output:
 *   v1  the original calibration: fixed fan-outs (32 at the root), so a
 *       large table can only grow deeper; at 10,000 routes depths spread
 *       flat over 4..8, at 1,000,000 85% of the routes sit at depth 8.
 *       Kept byte-identical to reproduce published figures.
 *   v2  (the default) calibrated against the shipped public tables (GitHub,
 *       Discord, Twilio: depth peaks at 3-6, fan-out up to 30-50): the
 *       fan-outs of the root, namespaces, items and singular resources
 *       grow with N (by sqrt(N / 1,000), from 1x at 1,000 routes to 32x at
 *       1,000,000), the way large real tables grow wide (more resources,
 *       more pages, more versions) instead of deep, and children are
 *       planned one to two levels deep.  Depth peaks at 4-5 at every size,
 *       and at 1,000,000 routes no depth holds more than a third of them.
 *
 * --no-conflicts (no_conflicts): the children of one node are of one kind:
 * static words only, or exactly one param, or exactly one catch-all, or
 * globs only, or exactly one '**'.  So there are no static and param
 * siblings at one position, and a param position has one name, as
 * httprouter 1.x and r3 require.
 *
 * Determinism: rb_rng (stats/rng.h) seeded with the seed, integer
 * arithmetic only, no libc rand, no floating point.
 *
 * Cost: O(N) time and output; memory is the route table plus O(depth x
 * fan-out) for the walk.
 */
#ifndef RB_CORPUS_GENERATE_H
#define RB_CORPUS_GENERATE_H

#include "table.h"

#include <stdbool.h>

typedef enum rb_gen_shape {
    RB_GEN_STATIC,
    RB_GEN_PARAMS,
    RB_GEN_MIXED,
    RB_GEN_CATCHALL,
    RB_GEN_GLOB,
    RB_GEN_TEMPLATES,
    RB_GEN_SHAPE_COUNT
} rb_gen_shape;

#define RB_GEN_MAX_ROUTES 1000000u
#define RB_GEN_MAX_DEPTH  8u

#define RB_GEN_V1      1u
#define RB_GEN_V2      2u
#define RB_GEN_DEFAULT RB_GEN_V2

typedef struct rb_gen_config {
    size_t routes; /* 1 .. RB_GEN_MAX_ROUTES */
    uint64_t seed;
    int shape; /* rb_gen_shape */
    bool no_conflicts;
    uint32_t max_depth; /* 1 .. RB_GEN_MAX_DEPTH; 0 means RB_GEN_MAX_DEPTH */
    uint32_t fanout;    /* most children of one node, 2..64; 0 means the role's default */
    uint32_t generator; /* RB_GEN_V1, RB_GEN_V2; 0 means RB_GEN_DEFAULT */
} rb_gen_config;

/* "v1", "v2" -> RB_GEN_V1, RB_GEN_V2, or 0. */
uint32_t rb_gen_generator_parse(const char *name);
/* The generator cfg selects (the default resolved): RB_GEN_V1 or RB_GEN_V2. */
uint32_t rb_gen_generator(const rb_gen_config *cfg);

/* "static", "params", ... -> rb_gen_shape, or -1. */
int rb_gen_shape_parse(const char *name);
const char *rb_gen_shape_name(int shape);

/* The most routes the generator can place with this configuration (shape,
 * conflicts, depth, fan-out), saturated at 2^40. */
uint64_t rb_gen_capacity(const rb_gen_config *cfg);

/* Generate cfg->routes routes into *out (initialised here; free with
 * rb_route_table_free).  RB_EINVAL with a message when the arguments are out
 * of range or the configuration cannot hold that many unique routes;
 * RB_ENOMEM.  On failure *out is empty. */
int rb_corpus_generate(const rb_gen_config *cfg, rb_route_table *out, rb_error *err);

#endif
