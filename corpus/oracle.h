/*
 * oracle.h — linear's answer for one request, computed fast.
 *
 * The reference router `linear` tries every route, so asking it about one
 * path of a 1,000,000-route table costs a million pattern matches.  The
 * oracle asks the shape tree (shape_tree.h) for the routes that can match
 * the path (a superset of those that do: routes are pruned only by static
 * words and segment counts), builds a `linear` router holding just those
 * routes with their original ids, and returns its answer.  A route that
 * cannot match the path can neither win nor enter the 405 mask, so the
 * answer is exactly the one `linear` gives on the whole table (the tests
 * compare both on every generated shape).
 *
 * Building linear for the candidates costs about RB_ORACLE_ADD_UNITS
 * pattern matches per candidate (a parse, a copy, a sort), so when the
 * candidates are many (routes under '**' or a param at the root are
 * candidates of most paths) a linear router of the whole table, built once,
 * answers cheaper: it tries the routes of the path's first segment and
 * those whose first segment is not static.  The oracle keeps to the
 * candidates until what it has spent building them passes the whole
 * table's build (so a table that never needs it never pays for it), then
 * takes, per lookup, the cheaper of the two.  Both give linear's answer.
 *
 * Cost per lookup: O(path segments x states) to find the candidates, then
 * the smaller of O(candidates) to build and query linear and O(routes
 * linear tries) on the whole table.  `work` adds up what the lookups cost in
 * pattern matches (candidates found, RB_ORACLE_ADD_UNITS per route added to
 * a router, one per route tried): a budget can be kept in it.  Not
 * thread-safe (one scratch buffer per oracle).
 */
#ifndef RB_CORPUS_ORACLE_H
#define RB_CORPUS_ORACLE_H

#include "shape_tree.h"

/* A route added to a linear router costs about this many pattern matches
 * (measured with Callgrind on tables of templates, globs and '**'). */
#define RB_ORACLE_ADD_UNITS 32u
/* A state of the candidate search (a hash probe, its wildcard children and
 * a share of a sort) or a candidate found, likewise. */
#define RB_ORACLE_STEP_UNITS 8u

typedef struct rb_oracle {
    const rb_shape_tree *st;
    rb_u32vec cand, scratch;
    size_t lookups;
    size_t candidates; /* summed over lookups */
    uint64_t work;     /* pattern matches or their equivalent, summed over lookups */
    uint64_t added;    /* routes added to linear routers */
    uint64_t steps;    /* states of the candidate searches */
    /* the whole table's linear router, once the candidates have cost as much */
    rb_router *whole;
    uint64_t *first_routes; /* per depth-1 node: the routes below it (built with whole) */
    uint64_t wild_routes;   /* routes whose first segment is not static */
    uint64_t spent_adding;  /* work spent building candidate routers */
} rb_oracle;

void rb_oracle_init(rb_oracle *o, const rb_shape_tree *st);
void rb_oracle_free(rb_oracle *o);

/* linear's answer for (method, path); RB_ENOMEM or an add error (err names
 * the route line) on failure. */
int rb_oracle_lookup(rb_oracle *o, int method, const char *path, size_t len, rb_match *m,
                     rb_error *err);

#endif
