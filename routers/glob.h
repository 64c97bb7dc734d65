/*
 * glob.h — private test hooks of the glob router (routers/glob.c).  Not part
 * of the public API: tests create the router through rb__glob_ops directly
 * so they hold the implementation pointer these hooks take.
 */
#ifndef RB_ROUTERS_GLOB_H
#define RB_ROUTERS_GLOB_H

#include "router_impl.h"

extern const rb_router_ops rb__glob_ops;

/* Limits (routes beyond them are refused by add with RB_ELIMIT). */
#define RB__GLOB_MAX_DEPTH        128  /* segments per pattern */
#define RB__GLOB_MAX_NESTED_STARS 1024 /* '**' after the first of each pattern, summed */

/* What glob's limits count, over the routes of a table so far. */
typedef struct rb__glob_budget {
    uint64_t total_segs;   /* segments of every route */
    uint32_t max_segs;     /* of the longest route */
    uint32_t nested_stars; /* '**' after the first of each pattern, summed */
} rb__glob_budget;

/* May a route of pattern p join a glob table whose earlier routes are
 * counted in *b?  RB_OK, or RB_ELIMIT with err naming the byte of p and the
 * limit.  The one statement of glob's limits: glob's add calls it, and so
 * does auto's add for a table that will be handed to glob, so that auto
 * refuses at add exactly what glob would refuse at its build. */
int rb__glob_admit(const rb__glob_budget *b, const rb_pattern *p, rb_error *err);
/* Count an admitted (or, in auto, a glob-free table's) pattern in *b. */
void rb__glob_budget_add(rb__glob_budget *b, const rb_pattern *p);

/* lookup, also reporting the steps the search took (see glob.c, "Cost"):
 * *steps is incremented, never reset.  Same answer as the lookup op. */
int rb__glob_lookup_steps(const void *impl, int method, const char *path, size_t len, rb_match *m,
                          uint64_t *steps);

/* Keep only the low `bits` bits (0..64) of every static-child hash, so
 * that keys collide whatever the seed (between create and build;
 * RB_ESTATE after build).  The longest probe sequence of a built router. */
int rb__glob_set_hash_bits(void *impl, unsigned bits);
uint32_t rb__glob_max_probe(const void *impl);

/* The invariants of a built router are checked by the ops table's check
 * (rb__glob_ops.check(impl, err), or rb_router_check on a handle). */

/* Size figures of a built router, for the step bound of glob.c. */
typedef struct rb__glob_size {
    uint32_t nodes;      /* trie nodes, the root included */
    uint32_t glob_bytes; /* text bytes of all glob-segment and template nodes */
    uint32_t nested;     /* nested '**' nodes (those with a '**' ancestor) */
} rb__glob_size;
rb__glob_size rb__glob_size_of(const void *impl);

#endif
