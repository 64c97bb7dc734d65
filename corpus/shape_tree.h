/*
 * shape_tree.h — a route table as a tree of shapes, for corpus analysis.
 *
 * Every route's pattern is split into segment tokens (kind + text: the
 * word of a static segment, the text of a glob or of a template; params,
 * catch-alls and '**' carry no text, so parameter names are erased, and
 * two templates are one token when their shapes are equal: img-{a}.png
 * and img-{b}.png).  Routes with the same
 * shape end at the same node; a node's children are the tokens that follow
 * its prefix.  For the example route set of the router files:
 *
 *     (root)
 *       +-- users ............ GET /users
 *       |     +-- {} ......... GET /users/:id
 *       |     |    +-- posts . POST /users/:id/posts
 *       |     +-- me ......... GET /users/me
 *       +-- static
 *             +-- {*} ........ GET /static/{*path}
 *
 * Nodes know their depth, the kinds from the root (the ranks of the priority
 * key), their literal bytes and a skeleton id (the sequence of kinds: two
 * nodes share a skeleton when their shapes differ only in static words and
 * glob texts).  Static and glob children are found through one hash table
 * keyed by (parent, kind, text); non-static children are also chained in a
 * list for iteration.
 *
 * The routes of each node are listed in route order; dup_of[r] names the
 * first route with the same (method, shape) as r, which every router would
 * refuse r for (RB_EDUPLICATE).  Duplicates are kept out of the node lists.
 *
 * Cost: build O(total pattern bytes) time, about 60 bytes per node plus 16
 * per route; the tree points into the route table's bytes, which must
 * outlive it.  Not thread-safe to build; read-only use is.
 */
#ifndef RB_CORPUS_SHAPE_TREE_H
#define RB_CORPUS_SHAPE_TREE_H

#include "router_kit.h"
#include "table.h"

#define RB_ST_NONE  UINT32_MAX
#define RB_ST_ROOT  0u
#define RB_ST_KINDS 6u /* segment kinds, RB_SEG_STATIC .. RB_SEG_TEMPLATE */

typedef struct rb_st_node {
    uint32_t parent;     /* RB_ST_NONE for the root */
    uint32_t depth;      /* segments from the root (the root is 0) */
    uint8_t kind;        /* rb_seg_kind of the last segment */
    uint8_t any_segment; /* a glob of '*' only: takes every segment, even empty */
    uint32_t text_off;   /* static word, glob or template text: table->bytes + text_off */
    uint32_t text_len;
    uint32_t literal;    /* literal bytes from the root (priority key part 3) */
    uint32_t ranks_off;  /* depth ranks (priority key part 1) at ranks + ranks_off */
    uint32_t first_wild; /* first non-static child, RB_ST_NONE if none */
    uint32_t next_wild;  /* next non-static sibling */
    uint32_t nchildren;  /* all children */
    uint32_t skeleton;   /* id of the kinds sequence */
    uint32_t routes_begin, routes_count; /* route_list[begin, begin + count) */
} rb_st_node;

typedef struct rb_shape_tree {
    const rb_route_table *table;
    rb_st_node *nodes;
    size_t nnodes, nodes_cap;
    uint32_t *slots; /* children hash: node id + 1, 0 = empty */
    size_t slots_cap;
    uint8_t *ranks;
    size_t nranks, ranks_cap;
    uint32_t *skel_next; /* RB_ST_KINDS per skeleton: (skeleton, kind) -> skeleton + 1 */
    size_t nskeletons, skel_cap;
    uint32_t *words; /* distinct static words: node ids + 1, 0 = empty */
    size_t words_cap, nwords;
    uint32_t *route_node; /* per route */
    uint32_t *dup_of;     /* per route: RB_ST_NONE or the earlier route */
    uint32_t *route_list; /* non-duplicate routes grouped by node */
    size_t nduplicates;
} rb_shape_tree;

/* Build the tree of t.  Errors: RB_ENOMEM, or a pattern the shared parser
 * refuses (err names the line).  On failure *out needs no freeing. */
int rb_shape_tree_build(const rb_route_table *t, rb_shape_tree *out, rb_error *err);
void rb_shape_tree_free(rb_shape_tree *st);

static inline const rb_st_node *rb_st_node_at(const rb_shape_tree *st, uint32_t n)
{
    return &st->nodes[n];
}

static inline const char *rb_st_text(const rb_shape_tree *st, const rb_st_node *n)
{
    return st->table->bytes + n->text_off;
}

/* The child of node with this kind and text (text ignored for params,
 * catch-alls and '**'), or RB_ST_NONE. */
uint32_t rb_st_child(const rb_shape_tree *st, uint32_t node, int kind, const char *text,
                     size_t len);

/* Is w a static segment of some route? */
bool rb_st_is_word(const rb_shape_tree *st, const char *w, size_t len);

/* The priority key of route r (docs/design.md), pointing into the tree. */
rb_priority rb_st_priority(const rb_shape_tree *st, uint32_t r);

/* The routes that may match path[0, len): a superset of those that do,
 * pruned only by static words and segment counts (params, templates and
 * globs are taken to accept any segment, catch-alls and '**' any rest).  Route indices
 * ascending, duplicates excluded.  *out is grown with realloc. */
typedef struct rb_u32vec {
    uint32_t *v;
    size_t n, cap;
} rb_u32vec;
int rb_u32vec_push(rb_u32vec *v, uint32_t x);
void rb_u32vec_free(rb_u32vec *v);

int rb_st_candidates(const rb_shape_tree *st, const char *path, size_t len, rb_u32vec *out,
                     rb_u32vec *scratch);
/* The same, with the states stepped (summed over the path's segments) in
 * *steps: its cost is O(steps x log steps + candidates). */
int rb_st_candidates_counted(const rb_shape_tree *st, const char *path, size_t len, rb_u32vec *out,
                             rb_u32vec *scratch, size_t *steps);

/* The routes at each node and below it (duplicates excluded), by node id:
 * a malloc'ed array of st->nnodes counts (free it), or NULL. */
uint64_t *rb_st_subtree_routes(const rb_shape_tree *st);

/* The shared prefix: the deepest node reached from the root by static
 * words, each holding at least 90% of the routes (its own and below it)
 * and having a static child (resources beside which the table grows):
 * /2.0, /api/v10, /2010-04-01; RB_ST_ROOT when the first word does not.
 * *below (may be NULL): the routes strictly below it.  O(nodes x depth of
 * the prefix); RB_ST_ROOT when memory runs out. */
uint32_t rb_st_shared_prefix(const rb_shape_tree *st, uint64_t *below);

/* Write the shape of node n ("/users/{}/posts") into buf (truncated to
 * cap - 1 bytes, always NUL-terminated); returns the full length. */
size_t rb_st_shape(const rb_shape_tree *st, uint32_t n, char *buf, size_t cap);

#endif
