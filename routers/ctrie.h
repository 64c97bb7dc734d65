/*
 * ctrie.h — private debug interface of the ctrie router (routers/ctrie.c),
 * for tests only.  Not part of the public API.
 */
#ifndef RB_CTRIE_H
#define RB_CTRIE_H

#include "router_impl.h"

/* What rb__ctrie_check saw in a built ctrie. */
typedef struct rb__ctrie_stats {
    uint32_t nodes;        /* root included */
    uint32_t hashed;       /* nodes with a hash table of their static children */
    uint32_t slots;        /* slots in all hash tables */
    uint32_t static_edges; /* nodes reached by a static edge */
    uint32_t chain_edges;  /* static edges spanning 2+ segments */
    uint32_t param_edges;
    uint32_t terminals; /* nodes where routes end (catch-alls not counted) */
    uint32_t catchalls; /* nodes with catch-all routes */
    uint32_t routes;    /* route ids stored */
    size_t block_bytes; /* the compiled block */
    size_t pool_bytes;  /* its string pool */
} rb__ctrie_stats;

/* lookup that also adds to *probes the hash slots and sibling edges it
 * looked at while finding static children. */
int rb__ctrie_lookup_counted(const void *impl, int method, const char *path, size_t len,
                             rb_match *m, uint64_t *probes);

/* Check every invariant listed in ctrie.c's header on a built ctrie (impl as
 * made by rb__ctrie_ops.create).  Returns RB_OK and fills *stats (may be
 * NULL); RB_ESTATE if impl is not built; RB_EINVAL with err naming the first
 * broken invariant and the node.  O(nodes + pool bytes). */
int rb__ctrie_check(const void *impl, rb__ctrie_stats *stats, rb_error *err);

#endif
