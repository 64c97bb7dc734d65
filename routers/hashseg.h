/*
 * hashseg.h — debug and test hooks of the hashseg router (hashseg.c).  Not
 * part of the public API: the tests drive the router through its ops table
 * (rb__hashseg_ops) so that they can reach the implementation pointer these
 * hooks take.
 */
#ifndef RB_HASHSEG_H
#define RB_HASHSEG_H

#include "router_impl.h"

extern const rb_router_ops rb__hashseg_ops;

/* Longest probe sequence (slots inspected for one key) build accepts. */
#define RB_HASHSEG_PROBE_LIMIT 32u

/* Keep only the low `bits` bits (0..64) of every hash when placing and
 * tagging entries, so that unrelated keys collide and byte comparison has to
 * decide.  Call between create and build; RB_ESTATE after build. */
int rb__hashseg_set_hash_bits(void *impl, unsigned bits);

/* lookup() that also adds the number of hash-table slots it inspected to
 * *probes. */
int rb__hashseg_lookup_counted(const void *impl, int method, const char *path, size_t len,
                               rb_match *m, uint64_t *probes);

/* The longest probe sequence of the built table (at most
 * RB_HASHSEG_PROBE_LIMIT), and the number of tree nodes. */
uint32_t rb__hashseg_max_probe(const void *impl);
uint32_t rb__hashseg_node_count(const void *impl);

/* The seed the built tables are keyed by: rb_config.seed, or the seed of
 * the last re-seed (see seed.h). */
uint64_t rb__hashseg_seed(const void *impl);

/* The invariants listed in hashseg.c are checked by the ops table's check
 * (rb__hashseg_ops.check(impl, err), or rb_router_check on a handle). */

#endif
