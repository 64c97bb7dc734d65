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
 * Cost per lookup: O(path segments x states) to find the candidates, then
 * O(candidates) to build and query linear.  Not thread-safe (one scratch
 * buffer per oracle).
 */
#ifndef RB_CORPUS_ORACLE_H
#define RB_CORPUS_ORACLE_H

#include "shape_tree.h"

typedef struct rb_oracle {
    const rb_shape_tree *st;
    rb_u32vec cand, scratch;
    size_t lookups;
    size_t candidates; /* summed over lookups */
} rb_oracle;

void rb_oracle_init(rb_oracle *o, const rb_shape_tree *st);
void rb_oracle_free(rb_oracle *o);

/* linear's answer for (method, path); RB_ENOMEM or an add error (err names
 * the route line) on failure. */
int rb_oracle_lookup(rb_oracle *o, int method, const char *path, size_t len, rb_match *m,
                     rb_error *err);

#endif
