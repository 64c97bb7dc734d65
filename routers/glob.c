/*
 * glob.c — the glob-aware router: a segment trie that indexes static parts
 * and tries glob segments only where their literal anchors fit.
 *
 * It supports every form of docs/design.md (static, params, catch-all, glob
 * segments with '*', '?', '[set]', '[!set]', and '**' anywhere, several
 * per pattern) and gives exactly linear's answers: the same winner by the
 * priority key, the same 405 mask and the same capture spans.
 *
 * The trie has one node per distinct pattern prefix.  A node's children are
 * the possible next segments: static children (a hash table keyed by
 * (parent, bytes)), at most one param child (names are erased: two params
 * at one place are the same prefix), glob children (one per distinct glob
 * text, sorted by literal anchor), at most one '**' child and at most one
 * catch-all child.  A node where patterns end holds their routes, one per
 * method (the front end refuses a second (method, shape)).  The example
 * route set, as the trie holds it:
 *
 *     GET  /users               (id 0)
 *     GET  /users/:id           (id 1)
 *     GET  /users/me            (id 2)
 *     POST /users/:id/posts     (id 3)
 *     GET  /static/{*path}      (id 4)
 *
 *     root
 *      |-- "users" ............ GET 0
 *      |    |-- "me" .......... GET 2        static children: hash table
 *      |    `-- {}  ........... GET 1        param child
 *      |         `-- "posts" .. POST 3
 *      `-- "static"
 *           `-- {*} ........... GET 4        catch-all child
 *
 * Glob children of one node are sorted by their anchor: the trailing run
 * of literal bytes (its last 4 at most) or, without one, the leading run;
 * a segment is then tested only against the globs whose anchor it ends or
 * starts with (a binary search per anchor length present, 1..4), plus the
 * unanchored ones.  E.g. adding GET routes whose segment after "img" is
 * the glob  *.png,  img-*  or  [a-c]*,  or a '**':
 *
 *     "img" -- globs: [ none  "[a-c]*"        always tried
 *                       pre:4 "img-"  "img-*"  tried if the segment starts "img-"
 *                       suf:4 ".png"  "*.png"  tried if it ends ".png" ]
 *           -- "**" child                      tried at every later position
 *
 * Node layout (glob_node, 56 bytes): text/text_len (static bytes or glob
 * text, in the router's arena of texts and ranks), parent, the param /
 * '**' / catch-all child, the range of glob children, the first terminal
 * route and a mask of the terminal methods (bit RB_ANY for '*'), kind, the
 * anchor of a glob node, the anchor lengths present among its glob
 * children, and for a '**' below another '**' its slot in the per-lookup
 * visited set.
 *
 * Lookup: a depth-first search from the root over (node, path position)
 * states, children in rank order (static, param, globs, '**', catch-all).
 * A route ending at a node matches when the path is used up there (a
 * catch-all when 1+ bytes remain).  Once a route of the request's method
 * (or '*') has matched, any subtree whose rank prefix already loses to it
 * is skipped, so the search stops soon after the best rank class; until
 * then every matching route is found and routes of other methods feed the
 * 405 mask.  A '**' entered at position p is tried with each possible end
 * (p, then one more segment each time, ascending).
 *
 * No exponential backtracking: a '**' node entered at its earliest
 * position p can end anywhere a later entry could, so it reaches a
 * superset of the routes; each '**' node is therefore expanded once per
 * lookup.  A '**' without a '**' above it is reached at one position
 * only; those below another '**' ("nested") are marked in a per-lookup
 * bitset on the stack and skipped when met again.  The search meets them
 * first at their earliest position, because ends are tried in ascending
 * order.  The same order makes the first time a route is reached the
 * leftmost-shortest placement of its '**' (each takes as few segments as
 * it can, in pattern order), which is linear's capture rule; a route
 * reached again is never preferred to itself, so its spans are those of
 * the first time.  An empty '**' span sits where the next segment would
 * start (the path length at the end), as in linear.
 *
 * Cost.  T nodes, G bytes of glob text in the trie, N routes, path of L
 * bytes and S segments (S <= L).  Every node is visited at most S + 1
 * times (once per end of its nearest '**' ancestor, at distinct
 * positions), a glob is matched against a segment in at most
 * (glob + 1) * (segment + 1) steps of rb_glob_segment_match, so the steps
 * counted by rb__glob_lookup_steps (node visits, '**' entries, static
 * probes, anchor probes, glob candidates and the glob matcher's steps)
 * are bounded by
 *
 *     steps <= 16 * (T + G) * (L + 1)            (T <= pattern bytes + 1)
 *
 * polynomial in table size times path length, whatever the patterns.  A
 * static probe hashes the segment once (O(segment bytes), expected O(1)
 * slots); an anchor probe is a binary search, O(log glob children).
 * Tables without '**' visit each node at most once: O(L) for a REST
 * table.  Build: O(total pattern bytes + G log G).  Memory after build:
 * T nodes of 56 bytes, a hash slot of 8 bytes per static node (load
 * <= 1/2, so 8 to 16 bytes each), 16 bytes per glob node, 32 bytes per
 * route, and an arena of the node texts plus one rank byte per route
 * segment; nothing else (before build: each route's pattern copy and
 * parse, as in linear).
 *
 * Limits, refused by add with RB_ELIMIT (the router is unchanged):
 * patterns of more than RB__GLOB_MAX_DEPTH (128) segments (the search
 * recurses at most twice per segment, about 300 bytes of stack a level,
 * under 40 KB in all; a node whose only child is the one taken loops
 * instead); more than RB__GLOB_MAX_NESTED_STARS
 * (1024) '**' segments that follow another '**' in their pattern, summed
 * over the routes (the visited bitset lives on the lookup's stack, 128
 * bytes at most, cleared only when a nested '**' is met).  Captures are
 * at most 32 per route (the parser's limit).
 *
 * Invariants (glob_check): every node's parent has a smaller index and
 * points to it through the field of its kind; every static node is found
 * by the hash table under (parent, bytes), and every slot names a static
 * node; glob children are sorted by (anchor kind, length, bytes), their
 * anchors recomputed agree, and the node's anchor-length masks list
 * exactly the lengths present; the terminal routes of a node are ordered
 * by method, match its method mask, and their rank sequence is the kinds
 * on the path from the root; nested '**' nodes, and only they, have
 * distinct visited slots.
 *
 * Build changes everything: add only copies and parses patterns (like
 * linear); build makes the trie (in a node array with room for every
 * segment, shrunk at the end; a failed shrink keeps the larger block,
 * counted), the hash table, the glob index, the arena and the terminal
 * table, then frees the routes as added.  A failed build frees what it
 * made and keeps the routes, so it can be retried, and destroy is always
 * safe.
 *
 * Thread safety: after build, lookup only reads the router; its state
 * (rank prefix, captures, visited set) is on the caller's stack.
 */
#include "glob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#define GLOB_ROOT_KIND     0xffu
#define GLOB_NO_SLOT       UINT32_MAX
#define GLOB_ANCHOR_MAX    4u /* bytes of a glob anchor */
#define GLOB_SCAN_MAX      8u /* up to this many glob children: scan, no search */
#define GLOB_ANY_BIT       (1u << RB_ANY)
#define GLOB_SPECIFIC_MASK (GLOB_ANY_BIT - 1u)
#define GLOB_VISITED_WORDS (RB__GLOB_MAX_NESTED_STARS / 64)

/* Anchor kinds, in sort order (unanchored globs first). */
enum { ANCHOR_NONE = 0, ANCHOR_PREFIX = 1, ANCHOR_SUFFIX = 2 };

/* node flags */
enum { NODE_HAS_STATIC = 1u, NODE_UNDER_STAR = 2u };

typedef struct glob_route {
    int method;
    uint32_t id;
    uint32_t node; /* terminal node, set by build */
    char *text;    /* owned copy of the pattern */
    rb_pattern pattern;
} glob_route;

typedef struct glob_node {
    const char *text; /* static bytes or glob text */
    uint32_t text_len;
    uint32_t parent;
    uint32_t param, star, catchall; /* children; 0 = none (the root is no child) */
    uint32_t globs, nglobs;         /* glob children: r->globs[globs, globs + nglobs) */
    uint32_t terms;                 /* first terminal route in r->terms */
    uint32_t star_slot;             /* nested '**': bit in the visited set */
    uint32_t anchor;                /* glob node: anchor bytes, little-endian */
    uint16_t methods;               /* terminal methods; GLOB_ANY_BIT for '*' */
    uint8_t kind;                   /* rb_seg_kind, GLOB_ROOT_KIND for the root */
    uint8_t flags;
    uint8_t anchor_kind, anchor_len;
    uint8_t prefix_lens, suffix_lens; /* bit n: a glob child has an anchor of n bytes */
} glob_node;

/* A glob child: sort key (anchor kind << 40 | length << 32 | bytes), node. */
typedef struct glob_entry {
    uint64_t key;
    uint32_t node;
    uint32_t unused;
} glob_entry;

/* A static-children hash slot: high hash bits and the child (0 = empty). */
typedef struct glob_slot {
    uint32_t tag;
    uint32_t child;
} glob_slot;

/* A terminal route, with what the priority key needs. */
typedef struct glob_term {
    const uint8_t *ranks;
    uint32_t nranks;
    uint32_t literal;
    uint32_t id;
    uint32_t ncaptures;
    bool any;
} glob_term;

typedef struct glob_router {
    const rb_allocator *allocator;
    glob_route *routes; /* as added; freed by build */
    size_t count, cap;
    rb__glob_budget budget; /* what the limits count, over the routes added */
    bool built;
    /* the lookup form (build) */
    glob_node *nodes;
    uint32_t nnodes, nodes_cap;
    char *arena; /* node texts, then route ranks */
    size_t arena_bytes, ranks_off;
    glob_slot *table;
    uint32_t table_cap; /* power of two, or 0 */
    glob_entry *globs;
    uint32_t nglobs;
    glob_term *terms;
    uint32_t nslots; /* nested '**' nodes */
    uint32_t glob_bytes;
    size_t bytes; /* everything allocated, for memory() */
    char desc[128];
} glob_router;

/* ---- small helpers ------------------------------------------------------- */

static unsigned popcount32(uint32_t v)
{
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    return (((v + (v >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

static uint32_t pack_anchor(const char *b, size_t n)
{
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) v |= (uint32_t)(unsigned char)b[i] << (8 * i);
    return v;
}

static uint64_t anchor_key(unsigned kind, unsigned len, uint32_t bytes)
{
    return (uint64_t)kind << 40 | (uint64_t)len << 32 | bytes;
}

static uint64_t child_hash(uint32_t parent, bool glob, const char *text, size_t len)
{
    return XXH3_64bits_withSeed(text, len, (uint64_t)parent * 2u + (glob ? 1u : 0u));
}

static size_t segment_end(const char *path, size_t len, size_t b)
{
    const char *slash = memchr(path + b, '/', len - b);
    return slash ? (size_t)(slash - path) : len;
}

/* The anchor of a glob text: its trailing literal run (last 4 bytes at
 * most), else its leading literal run (first 4 at most), else none.  A
 * literal is any byte outside '*', '?' and a '[...]' set. */
static void glob_anchor(const char *g, size_t n, uint8_t *kind, uint8_t *len, uint32_t *bytes)
{
    size_t lead = SIZE_MAX, trail_start = 0;
    for (size_t i = 0; i < n; i++) {
        if (g[i] != '*' && g[i] != '?' && g[i] != '[') continue;
        if (lead == SIZE_MAX) lead = i;
        if (g[i] == '[') {
            i += 2; /* a set has 1+ items; ']' right after '[' or '[!' is one */
            while (i < n && g[i] != ']') i++;
        }
        trail_start = i + 1;
    }
    if (lead == SIZE_MAX) lead = n; /* not a glob; the parser never hands one */
    size_t trail = n > trail_start ? n - trail_start : 0;
    if (trail > 0) {
        *kind = ANCHOR_SUFFIX;
        *len = (uint8_t)(trail < GLOB_ANCHOR_MAX ? trail : GLOB_ANCHOR_MAX);
        *bytes = pack_anchor(g + n - *len, *len);
    } else if (lead > 0) {
        *kind = ANCHOR_PREFIX;
        *len = (uint8_t)(lead < GLOB_ANCHOR_MAX ? lead : GLOB_ANCHOR_MAX);
        *bytes = pack_anchor(g, *len);
    } else {
        *kind = ANCHOR_NONE;
        *len = 0;
        *bytes = 0;
    }
}

/* ---- create / add -------------------------------------------------------- */

static int glob_create(const rb_config *config, void **out, rb_error *err)
{
    glob_router *r = rb_calloc(config->allocator, sizeof *r);
    if (!r) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory creating glob");
    r->allocator = config->allocator;
    r->bytes = sizeof *r;
    *out = r;
    return RB_OK;
}

/* '**' segments after the first one of p (the visited set holds them). */
static uint32_t nested_stars(const rb_pattern *p)
{
    uint32_t stars = 0;
    for (uint32_t i = 0; i < p->nsegs; i++) stars += p->segs[i].kind == RB_SEG_GLOBSTAR;
    return stars ? stars - 1 : 0;
}

static size_t first_glob_offset(const rb_pattern *p)
{
    for (uint32_t i = 0; i < p->nsegs; i++)
        if (p->segs[i].kind == RB_SEG_GLOB || p->segs[i].kind == RB_SEG_GLOBSTAR)
            return p->segs[i].offset;
    return 0;
}

int rb__glob_admit(const rb__glob_budget *b, const rb_pattern *p, rb_error *err)
{
    if (p->nsegs > RB__GLOB_MAX_DEPTH) {
        size_t off = p->segs[RB__GLOB_MAX_DEPTH].offset;
        return rb__error(err, RB_ELIMIT, off,
                         "segment at byte %zu: the glob router takes at most %d segments a "
                         "pattern",
                         off, RB__GLOB_MAX_DEPTH);
    }
    /* only auto's tables can get here: a route admitted before the table
     * had globs, now that this one would hand the table to glob */
    if (b->max_segs > RB__GLOB_MAX_DEPTH) {
        size_t off = first_glob_offset(p);
        return rb__error(err, RB_ELIMIT, off,
                         "glob at byte %zu: with it the table goes to the glob router, which "
                         "cannot take an earlier route of %u segments (at most %d)",
                         off, b->max_segs, RB__GLOB_MAX_DEPTH);
    }
    uint32_t nested = 0;
    for (uint32_t i = 0, stars = 0; i < p->nsegs; i++) {
        if (p->segs[i].kind != RB_SEG_GLOBSTAR || stars++ == 0) continue;
        nested++;
        if (b->nested_stars + nested > RB__GLOB_MAX_NESTED_STARS) {
            size_t off = p->segs[i].offset;
            return rb__error(err, RB_ELIMIT, off,
                             "'**' at byte %zu: the glob router takes at most %d '**' "
                             "segments that follow another '**', over all routes",
                             off, RB__GLOB_MAX_NESTED_STARS);
        }
    }
    if (b->total_segs + p->nsegs >= UINT32_MAX / 2)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "too many segments in the glob router");
    return RB_OK;
}

void rb__glob_budget_add(rb__glob_budget *b, const rb_pattern *p)
{
    b->total_segs += p->nsegs;
    if (p->nsegs > b->max_segs) b->max_segs = p->nsegs;
    b->nested_stars += nested_stars(p);
}

static int glob_add(void *impl, const rb_route *route, rb_error *err)
{
    glob_router *r = impl;
    const rb_pattern *p = route->pattern;
    if (r->built) return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "add after build");
    int rc = rb__glob_admit(&r->budget, p, err);
    if (rc < 0) return rc;
    size_t old_cap = r->cap;
    if (rb_grow(r->allocator, &r->routes, &r->cap, r->count + 1, sizeof *r->routes, 16) < 0)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in glob");
    r->bytes += (r->cap - old_cap) * sizeof *r->routes;
    glob_route *gr = &r->routes[r->count];
    gr->text = rb_alloc(r->allocator, p->len);
    if (!gr->text) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in glob");
    memcpy(gr->text, p->text, p->len);
    rc = rb_pattern_parse(gr->text, p->len, r->allocator, &gr->pattern, err);
    if (rc < 0) {
        rb_free(r->allocator, gr->text, p->len);
        return rc;
    }
    gr->method = route->method;
    gr->id = route->id;
    gr->node = 0;
    r->bytes += p->len + rb_pattern_bytes(&gr->pattern);
    rb__glob_budget_add(&r->budget, p);
    r->count++;
    return RB_OK;
}

/* ---- build ------------------------------------------------------------- */

/* Build-time state: the trie grows in r->nodes (capacity: one node per
 * pattern segment, plus the root; pages never touched cost nothing, and
 * the array is shrunk when done), static and glob children are found
 * through `index` (open addressing, 0 = empty, load <= 1/2, doubled as
 * needed). */
typedef struct glob_builder {
    glob_router *r;
    uint32_t *index;
    uint32_t index_cap, index_used;
} glob_builder;

static uint32_t pow2_at_least(uint64_t n)
{
    uint32_t c = 4;
    while (c < n) c *= 2;
    return c;
}

static bool same_child(const glob_node *n, uint32_t parent, uint8_t kind, const char *text,
                       size_t len)
{
    return n->parent == parent && n->kind == kind && n->text_len == len &&
           memcmp(n->text, text, len) == 0;
}

static uint32_t index_slot(const glob_builder *b, uint32_t parent, uint8_t kind, const char *text,
                           size_t len)
{
    uint64_t h = child_hash(parent, kind == RB_SEG_GLOB, text, len);
    uint32_t mask = b->index_cap - 1, slot = (uint32_t)h & mask;
    for (; b->index[slot]; slot = (slot + 1) & mask) {
        if (same_child(&b->r->nodes[b->index[slot]], parent, kind, text, len)) break;
    }
    return slot;
}

/* Double the index (re-inserting every static and glob node). */
static int index_grow(glob_builder *b)
{
    const glob_router *r = b->r;
    uint32_t first = pow2_at_least(r->budget.total_segs < 128 ? 256 : r->budget.total_segs + 1);
    glob_builder g = {b->r, NULL, b->index_cap ? b->index_cap * 2 : first, b->index_used};
    g.index = rb_calloc(r->allocator, (size_t)g.index_cap * sizeof *g.index);
    if (!g.index) return RB_ENOMEM;
    for (uint32_t k = 1; k < r->nnodes; k++) {
        const glob_node *n = &r->nodes[k];
        if (n->kind == RB_SEG_STATIC || n->kind == RB_SEG_GLOB)
            g.index[index_slot(&g, n->parent, n->kind, n->text, n->text_len)] = k;
    }
    rb_free(r->allocator, b->index, (size_t)b->index_cap * sizeof *b->index);
    *b = g;
    return RB_OK;
}

/* The child of `parent` for segment s, created if missing; 0 when out of
 * memory. */
static uint32_t builder_child(glob_builder *b, uint32_t parent, const rb_segment *s)
{
    glob_router *r = b->r;
    glob_node *pn = &r->nodes[parent];
    uint32_t *field = s->kind == RB_SEG_PARAM      ? &pn->param
                      : s->kind == RB_SEG_GLOBSTAR ? &pn->star
                      : s->kind == RB_SEG_CATCHALL ? &pn->catchall
                                                   : NULL;
    uint32_t slot = 0;
    if (field) {
        if (*field) return *field;
    } else {
        slot = index_slot(b, parent, s->kind, s->text, s->text_len);
        if (b->index[slot]) return b->index[slot];
        if ((b->index_used + 1) * 2 > b->index_cap) {
            if (index_grow(b) < 0) return 0;
            slot = index_slot(b, parent, s->kind, s->text, s->text_len);
        }
    }
    uint32_t k = r->nnodes++;
    glob_node *n = &r->nodes[k];
    memset(n, 0, sizeof *n);
    n->parent = parent;
    n->kind = s->kind;
    n->star_slot = GLOB_NO_SLOT;
    if (field) {
        *field = k;
    } else {
        n->text = s->text;
        n->text_len = s->text_len;
        b->index[slot] = k;
        b->index_used++;
        if (s->kind == RB_SEG_STATIC) {
            pn->flags |= NODE_HAS_STATIC;
        } else {
            glob_anchor(s->text, s->text_len, &n->anchor_kind, &n->anchor_len, &n->anchor);
            pn->nglobs++;
        }
    }
    return k;
}

static int entry_compare(const void *pa, const void *pb)
{
    const glob_entry *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->node < b->node ? -1 : a->node > b->node;
}

static void free_lookup_form(glob_router *r)
{
    const rb_allocator *a = r->allocator;
    rb_free(a, r->nodes, (size_t)r->nodes_cap * sizeof *r->nodes);
    rb_free(a, r->table, (size_t)r->table_cap * sizeof *r->table);
    rb_free(a, r->globs, (size_t)r->nglobs * sizeof *r->globs);
    if (r->terms) rb_free(a, r->terms, r->count * sizeof *r->terms);
    if (r->arena) rb_free(a, r->arena, r->arena_bytes);
    r->nodes = NULL;
    r->table = NULL;
    r->globs = NULL;
    r->terms = NULL;
    r->arena = NULL;
    r->nnodes = r->nodes_cap = r->table_cap = r->nglobs = 0;
    r->arena_bytes = 0;
}

/* Insert every route into the trie (node texts still point into the
 * routes' pattern copies), then shrink the node array. */
static int build_trie(glob_router *r)
{
    const rb_allocator *a = r->allocator;
    glob_builder b = {r, NULL, 0, 0};
    r->nodes_cap = (uint32_t)r->budget.total_segs + 1;
    r->nodes = rb_alloc(a, (size_t)r->nodes_cap * sizeof *r->nodes);
    if (!r->nodes) return RB_ENOMEM;
    r->nnodes = 1;
    memset(&r->nodes[0], 0, sizeof r->nodes[0]);
    r->nodes[0].kind = GLOB_ROOT_KIND;
    r->nodes[0].star_slot = GLOB_NO_SLOT;
    int rc = index_grow(&b);
    for (size_t i = 0; rc == RB_OK && i < r->count; i++) {
        const rb_pattern *p = &r->routes[i].pattern;
        uint32_t cur = 0;
        for (uint32_t s = 0; rc == RB_OK && s < p->nsegs; s++) {
            cur = builder_child(&b, cur, &p->segs[s]);
            if (cur == 0) rc = RB_ENOMEM;
        }
        r->routes[i].node = cur;
    }
    rb_free(a, b.index, (size_t)b.index_cap * sizeof *b.index);
    if (rc < 0) return rc;
    /* Shrink; if that fails the larger block is kept (and counted). */
    glob_node *shrunk = rb_realloc(a, r->nodes, (size_t)r->nodes_cap * sizeof *r->nodes,
                                   (size_t)r->nnodes * sizeof *r->nodes);
    if (shrunk) {
        r->nodes = shrunk;
        r->nodes_cap = r->nnodes;
    }
    return RB_OK;
}

/* Copy node texts into one arena, with room for the route ranks that
 * build_terms fills (so the routes' pattern copies and parses can go). */
static int build_arena(glob_router *r)
{
    size_t bytes = 0;
    for (uint32_t k = 1; k < r->nnodes; k++) bytes += r->nodes[k].text_len;
    for (size_t i = 0; i < r->count; i++) bytes += r->routes[i].pattern.nsegs;
    if (bytes == 0) return RB_OK;
    r->arena = rb_alloc(r->allocator, bytes);
    if (!r->arena) return RB_ENOMEM;
    r->arena_bytes = bytes;
    size_t off = 0;
    for (uint32_t k = 1; k < r->nnodes; k++) {
        glob_node *n = &r->nodes[k];
        if (n->text_len) memcpy(r->arena + off, n->text, n->text_len);
        n->text = r->arena + off;
        off += n->text_len;
    }
    r->ranks_off = off;
    return RB_OK;
}

static int build_table(glob_router *r)
{
    uint32_t nstatic = 0;
    for (uint32_t k = 1; k < r->nnodes; k++) nstatic += r->nodes[k].kind == RB_SEG_STATIC;
    if (nstatic == 0) return RB_OK;
    uint32_t cap = pow2_at_least(2 * (uint64_t)nstatic);
    r->table = rb_calloc(r->allocator, (size_t)cap * sizeof *r->table);
    if (!r->table) return RB_ENOMEM;
    r->table_cap = cap;
    for (uint32_t k = 1; k < r->nnodes; k++) {
        const glob_node *n = &r->nodes[k];
        if (n->kind != RB_SEG_STATIC) continue;
        uint64_t h = child_hash(n->parent, false, n->text, n->text_len);
        size_t i = (size_t)h & (cap - 1);
        while (r->table[i].child) i = (i + 1) & (cap - 1);
        r->table[i] = (glob_slot){(uint32_t)(h >> 32), k};
    }
    return RB_OK;
}

static int build_globs(glob_router *r)
{
    uint32_t total = 0;
    for (uint32_t k = 0; k < r->nnodes; k++) {
        r->nodes[k].globs = total;
        total += r->nodes[k].nglobs;
    }
    if (total == 0) return RB_OK;
    r->globs = rb_alloc(r->allocator, (size_t)total * sizeof *r->globs);
    if (!r->globs) return RB_ENOMEM;
    r->nglobs = total;
    /* Fill each parent's range in node order, counting nglobs up again. */
    for (uint32_t k = 0; k < r->nnodes; k++) r->nodes[k].nglobs = 0;
    for (uint32_t k = 1; k < r->nnodes; k++) {
        glob_node *n = &r->nodes[k];
        if (n->kind != RB_SEG_GLOB) continue;
        glob_node *p = &r->nodes[n->parent];
        r->globs[p->globs + p->nglobs++] =
            (glob_entry){anchor_key(n->anchor_kind, n->anchor_len, n->anchor), k, 0};
        if (n->anchor_kind == ANCHOR_PREFIX) p->prefix_lens |= (uint8_t)(1u << n->anchor_len);
        if (n->anchor_kind == ANCHOR_SUFFIX) p->suffix_lens |= (uint8_t)(1u << n->anchor_len);
        r->glob_bytes += n->text_len;
    }
    for (uint32_t k = 0; k < r->nnodes; k++) {
        glob_node *n = &r->nodes[k];
        if (n->nglobs > 1) qsort(&r->globs[n->globs], n->nglobs, sizeof *r->globs, entry_compare);
    }
    return RB_OK;
}

static int build_terms(glob_router *r)
{
    for (size_t i = 0; i < r->count; i++)
        r->nodes[r->routes[i].node].methods |= (uint16_t)(1u << r->routes[i].method);
    uint32_t total = 0;
    for (uint32_t k = 0; k < r->nnodes; k++) {
        r->nodes[k].terms = total;
        total += popcount32(r->nodes[k].methods);
    }
    if (r->count == 0) return RB_OK;
    r->terms = rb_alloc(r->allocator, r->count * sizeof *r->terms);
    if (!r->terms) return RB_ENOMEM;
    size_t off = r->ranks_off;
    for (size_t i = 0; i < r->count; i++) {
        const glob_route *gr = &r->routes[i];
        const glob_node *n = &r->nodes[gr->node];
        uint32_t bit = 1u << gr->method;
        uint8_t *ranks = (uint8_t *)r->arena + off;
        memcpy(ranks, gr->pattern.ranks, gr->pattern.nsegs);
        off += gr->pattern.nsegs;
        r->terms[n->terms + popcount32(n->methods & (bit - 1))] =
            (glob_term){ranks,  gr->pattern.nsegs,     gr->pattern.literal_bytes,
                        gr->id, gr->pattern.ncaptures, gr->method == RB_ANY};
    }
    return RB_OK;
}

static void build_slots(glob_router *r)
{
    for (uint32_t k = 1; k < r->nnodes; k++) {
        glob_node *n = &r->nodes[k];
        const glob_node *p = &r->nodes[n->parent];
        if ((p->flags & NODE_UNDER_STAR) || p->kind == RB_SEG_GLOBSTAR) n->flags |= NODE_UNDER_STAR;
        if (n->kind == RB_SEG_GLOBSTAR && (n->flags & NODE_UNDER_STAR)) n->star_slot = r->nslots++;
    }
}

/* Free the routes as add stored them (pattern copies and parses). */
static void release_routes(glob_router *r)
{
    for (size_t i = 0; r->routes && i < r->count; i++) {
        glob_route *gr = &r->routes[i];
        r->bytes -= gr->pattern.len + rb_pattern_bytes(&gr->pattern);
        rb_free(r->allocator, gr->text, gr->pattern.len);
        rb_pattern_free(&gr->pattern);
    }
    rb_free(r->allocator, r->routes, r->cap * sizeof *r->routes);
    r->bytes -= r->cap * sizeof *r->routes;
    r->routes = NULL;
    r->cap = 0;
}

static int glob_build(void *impl, rb_error *err)
{
    glob_router *r = impl;
    if (r->built) return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "glob router already built");
    r->glob_bytes = 0;
    r->nslots = 0;
    int rc = build_trie(r);
    if (rc == RB_OK) rc = build_arena(r);
    if (rc == RB_OK) rc = build_table(r);
    if (rc == RB_OK) rc = build_globs(r);
    if (rc == RB_OK) rc = build_terms(r);
    if (rc < 0) {
        free_lookup_form(r);
        return rb__error(err, rc, RB_NO_OFFSET, "out of memory building the glob router");
    }
    build_slots(r);
    r->bytes += (size_t)r->nodes_cap * sizeof *r->nodes + (size_t)r->table_cap * sizeof *r->table +
                (size_t)r->nglobs * sizeof *r->globs +
                (r->terms ? r->count * sizeof *r->terms : 0) + r->arena_bytes;
    /* The lookup form holds everything now: drop the routes. */
    release_routes(r);
    snprintf(r->desc, sizeof r->desc, "%u nodes, %u glob children, %u nested '**'", r->nnodes,
             r->nglobs, r->nslots);
    r->built = true;
    return RB_OK;
}

/* ---- lookup -------------------------------------------------------------- */

typedef struct glob_search {
    const glob_router *r;
    const char *path;
    size_t len;
    uint32_t method_bit;
    uint32_t allowed;
    const glob_term *best;
    rb_match *m;
    uint64_t steps;
    bool visited_clear;
    uint8_t ranks[RB__GLOB_MAX_DEPTH]; /* kinds on the path from the root */
    rb_span caps[RB_MAX_CAPTURES];     /* captures on the path from the root */
    uint64_t visited[GLOB_VISITED_WORDS];
} glob_search;

static void search_visit(glob_search *s, uint32_t k, size_t pos, uint32_t depth, uint32_t ncap);

/* Would a child of kind `kind` at depth `depth` (0-based) lose to the best
 * route found on ranks alone, with everything below it? */
static bool pruned(const glob_search *s, uint32_t depth, uint8_t kind)
{
    const glob_term *b = s->best;
    if (!b) return false;
    uint32_t n = b->nranks < depth + 1 ? b->nranks : depth + 1;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t k = i < depth ? s->ranks[i] : kind;
        if (k != b->ranks[i]) return k > b->ranks[i];
    }
    return b->nranks < depth + 1; /* the best is a proper prefix */
}

/* The routes ending at node n match; keep the one that fits if it wins. */
static void search_terminal(glob_search *s, const glob_node *n, uint32_t ncap)
{
    uint32_t mask = n->methods, idx;
    if (!mask) return;
    if (mask & s->method_bit) {
        idx = popcount32(mask & (s->method_bit - 1));
    } else if (mask & GLOB_ANY_BIT) {
        idx = popcount32(mask & GLOB_SPECIFIC_MASK);
    } else {
        s->allowed |= mask;
        return;
    }
    const glob_term *t = &s->r->terms[n->terms + idx];
    if (s->best) {
        rb_priority a = {t->ranks, t->nranks, t->any, t->literal, t->id};
        rb_priority b = {s->best->ranks, s->best->nranks, s->best->any, s->best->literal,
                         s->best->id};
        if (rb_priority_compare(&a, &b) >= 0) return;
    }
    s->best = t;
    memcpy(s->m->params, s->caps, ncap * sizeof s->caps[0]);
}

static uint32_t find_static(glob_search *s, uint32_t parent, const char *seg, size_t len)
{
    const glob_router *r = s->r;
    s->steps++;
    uint64_t h = child_hash(parent, false, seg, len);
    uint32_t tag = (uint32_t)(h >> 32), mask = r->table_cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        const glob_slot *sl = &r->table[i];
        if (!sl->child) return 0;
        if (sl->tag == tag && same_child(&r->nodes[sl->child], parent, RB_SEG_STATIC, seg, len))
            return sl->child;
    }
}

/* Try glob child k on the segment [pos, end); descend if it matches. */
static void try_glob(glob_search *s, uint32_t k, size_t pos, size_t end, uint32_t depth,
                     uint32_t ncap)
{
    const glob_node *g = &s->r->nodes[k];
    s->steps++;
    if (!rb_glob_segment_match(g->text, g->text_len, s->path + pos, end - pos, &s->steps)) return;
    s->ranks[depth] = RB_SEG_GLOB;
    s->caps[ncap] = (rb_span){(uint32_t)pos, (uint32_t)(end - pos)};
    search_visit(s, k, end + 1, depth + 1, ncap + 1);
}

static bool anchor_fits(const glob_node *g, const char *seg, size_t len)
{
    if (g->anchor_kind == ANCHOR_NONE) return true;
    if (len < g->anchor_len) return false;
    const char *at = g->anchor_kind == ANCHOR_PREFIX ? seg : seg + len - g->anchor_len;
    return pack_anchor(at, g->anchor_len) == g->anchor;
}

/* Try the glob children of node n whose key is `key`. */
static void try_bucket(glob_search *s, const glob_node *n, uint64_t key, size_t pos, size_t end,
                       uint32_t depth, uint32_t ncap)
{
    const glob_entry *e = &s->r->globs[n->globs];
    uint32_t lo = 0, hi = n->nglobs;
    s->steps++;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (e[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n->nglobs && e[lo].key == key; lo++) {
        if (pruned(s, depth, RB_SEG_GLOB)) return;
        try_glob(s, e[lo].node, pos, end, depth, ncap);
    }
}

static void search_globs(glob_search *s, const glob_node *n, size_t pos, size_t end, uint32_t depth,
                         uint32_t ncap)
{
    const glob_entry *e = &s->r->globs[n->globs];
    const char *seg = s->path + pos;
    size_t len = end - pos;
    if (n->nglobs <= GLOB_SCAN_MAX) {
        for (uint32_t i = 0; i < n->nglobs; i++) {
            const glob_node *g = &s->r->nodes[e[i].node];
            if (!anchor_fits(g, seg, len)) continue;
            if (pruned(s, depth, RB_SEG_GLOB)) return;
            try_glob(s, e[i].node, pos, end, depth, ncap);
        }
        return;
    }
    for (uint32_t i = 0; i < n->nglobs && (e[i].key >> 40) == ANCHOR_NONE; i++) {
        if (pruned(s, depth, RB_SEG_GLOB)) return;
        try_glob(s, e[i].node, pos, end, depth, ncap);
    }
    for (unsigned l = 1; l <= GLOB_ANCHOR_MAX && l <= len; l++) {
        if (n->prefix_lens & (1u << l))
            try_bucket(s, n, anchor_key(ANCHOR_PREFIX, l, pack_anchor(seg, l)), pos, end, depth,
                       ncap);
        if (n->suffix_lens & (1u << l))
            try_bucket(s, n, anchor_key(ANCHOR_SUFFIX, l, pack_anchor(seg + len - l, l)), pos, end,
                       depth, ncap);
    }
}

/* Enter the '**' node k (at depth `depth`) at position pos: try every end,
 * ascending.  A nested '**' is expanded only the first time it is met. */
static void search_star(glob_search *s, uint32_t k, size_t pos, uint32_t depth, uint32_t ncap)
{
    const glob_node *a = &s->r->nodes[k];
    s->steps++;
    if (a->star_slot != GLOB_NO_SLOT) {
        if (!s->visited_clear) {
            memset(s->visited, 0, ((s->r->nslots + 63) / 64) * sizeof s->visited[0]);
            s->visited_clear = true;
        }
        uint64_t bit = (uint64_t)1 << (a->star_slot & 63);
        if (s->visited[a->star_slot >> 6] & bit) return;
        s->visited[a->star_slot >> 6] |= bit;
    }
    size_t len = s->len;
    for (size_t end = pos;;) {
        s->ranks[depth] = RB_SEG_GLOBSTAR;
        s->caps[ncap] = end > pos ? (rb_span){(uint32_t)pos, (uint32_t)(end - 1 - pos)}
                                  : (rb_span){(uint32_t)(pos < len ? pos : len), 0};
        search_visit(s, k, end, depth + 1, ncap + 1);
        if (end > len) return;
        end = segment_end(s->path, len, end) + 1;
        if (pruned(s, depth, RB_SEG_GLOBSTAR)) return;
    }
}

/* Node k (at depth `depth`, with ncap captures) has taken the path up to
 * pos (pos == len + 1: all of it); try its routes and its children. */
static void search_visit(glob_search *s, uint32_t k, size_t pos, uint32_t depth, uint32_t ncap)
{
    const glob_router *r = s->r;
    size_t len = s->len;
again:;
    const glob_node *n = &r->nodes[k];
    s->steps++;
    if (pos == len + 1) search_terminal(s, n, ncap);
    if (pos <= len) {
        size_t end = segment_end(s->path, len, pos);
        bool after_param = n->nglobs || n->star || n->catchall;
        if ((n->flags & NODE_HAS_STATIC) && !pruned(s, depth, RB_SEG_STATIC)) {
            uint32_t c = find_static(s, k, s->path + pos, end - pos);
            if (c) {
                s->ranks[depth] = RB_SEG_STATIC;
                if (!n->param && !after_param) { /* nothing left here: no recursion */
                    k = c, pos = end + 1, depth++;
                    goto again;
                }
                search_visit(s, c, end + 1, depth + 1, ncap);
            }
        }
        if (n->param && end > pos && !pruned(s, depth, RB_SEG_PARAM)) {
            s->ranks[depth] = RB_SEG_PARAM;
            s->caps[ncap] = (rb_span){(uint32_t)pos, (uint32_t)(end - pos)};
            if (!after_param) {
                k = n->param, pos = end + 1, depth++, ncap++;
                goto again;
            }
            search_visit(s, n->param, end + 1, depth + 1, ncap + 1);
        }
        if (n->nglobs && !pruned(s, depth, RB_SEG_GLOB)) search_globs(s, n, pos, end, depth, ncap);
    }
    if (n->star && !pruned(s, depth, RB_SEG_GLOBSTAR)) search_star(s, n->star, pos, depth, ncap);
    if (n->catchall && pos < len && !pruned(s, depth, RB_SEG_CATCHALL)) {
        s->ranks[depth] = RB_SEG_CATCHALL;
        s->caps[ncap] = (rb_span){(uint32_t)pos, (uint32_t)(len - pos)};
        search_terminal(s, &r->nodes[n->catchall], ncap + 1);
    }
}

static int search(const glob_router *r, int method, const char *path, size_t len, rb_match *m,
                  uint64_t *steps)
{
    glob_search s;
    s.r = r;
    s.path = path;
    s.len = len;
    s.method_bit = 1u << method;
    s.allowed = 0;
    s.best = NULL;
    s.m = m;
    s.steps = 0;
    s.visited_clear = false;
    if (r->built && len > 0 && path[0] == '/') search_visit(&s, 0, 1, 0, 0);
    if (steps) *steps += s.steps;
    if (s.best) {
        m->outcome = RB_FOUND;
        m->route_id = s.best->id;
        m->nparams = s.best->ncaptures;
        m->allowed = 0;
    } else {
        m->outcome = s.allowed ? RB_METHOD_NOT_ALLOWED : RB_NOT_FOUND;
        m->nparams = 0;
        m->allowed = s.allowed & GLOB_SPECIFIC_MASK;
    }
    return m->outcome;
}

static int glob_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    return search(impl, method, path, len, m, NULL);
}

int rb__glob_lookup_steps(const void *impl, int method, const char *path, size_t len, rb_match *m,
                          uint64_t *steps)
{
    return search(impl, method, path, len, m, steps);
}

/* ---- memory, destroy, describe -------------------------------------------- */

static size_t glob_memory(const void *impl)
{
    return ((const glob_router *)impl)->bytes;
}

static void glob_destroy(void *impl)
{
    glob_router *r = impl;
    free_lookup_form(r);
    release_routes(r);
    rb_free(r->allocator, r, sizeof *r);
}

static const char *glob_describe(const void *impl)
{
    return ((const glob_router *)impl)->desc;
}

/* ---- invariants ------------------------------------------------------------ */

static bool ranks_on_path(const glob_router *r, uint32_t k, const glob_term *t)
{
    uint32_t depth = 0;
    for (uint32_t v = k; v != 0; v = r->nodes[v].parent) depth++;
    if (depth != t->nranks) return false;
    for (uint32_t v = k; v != 0; v = r->nodes[v].parent)
        if (t->ranks[--depth] != r->nodes[v].kind) return false;
    return true;
}

/* The first broken invariant (a fixed message), or NULL when all hold. */
static const char *glob_broken_invariant(const void *impl)
{
    const glob_router *r = impl;
    if (!r->built) return "not built";
    if (r->nnodes == 0 || r->nodes[0].kind != GLOB_ROOT_KIND) return "no root";
    uint32_t slots = 0, nstatic = 0, nglob = 0, nterms = 0;
    uint64_t seen_slots[GLOB_VISITED_WORDS] = {0};
    for (uint32_t k = 0; k < r->nnodes; k++) {
        const glob_node *n = &r->nodes[k];
        if (k > 0) {
            if (n->parent >= k) return "a parent does not come before its child";
            const glob_node *p = &r->nodes[n->parent];
            switch (n->kind) {
            case RB_SEG_PARAM:
                if (p->param != k) return "a param node is not its parent's param child";
                break;
            case RB_SEG_GLOBSTAR:
                if (p->star != k) return "a '**' node is not its parent's '**' child";
                break;
            case RB_SEG_CATCHALL:
                if (p->catchall != k) return "a catch-all node is not its parent's";
                if (n->param || n->star || n->catchall || n->nglobs || (n->flags & NODE_HAS_STATIC))
                    return "a catch-all node has children";
                break;
            case RB_SEG_STATIC: {
                nstatic++;
                if (!(p->flags & NODE_HAS_STATIC)) return "a static child's parent lacks the flag";
                glob_search s = {.r = r};
                if (find_static(&s, n->parent, n->text, n->text_len) != k)
                    return "a static node is not found by the hash table";
                break;
            }
            case RB_SEG_GLOB: {
                nglob++;
                const glob_entry *e = &r->globs[p->globs];
                uint32_t i = 0;
                while (i < p->nglobs && e[i].node != k) i++;
                if (i == p->nglobs) return "a glob node is not in its parent's range";
                uint8_t kind, len;
                uint32_t bytes;
                glob_anchor(n->text, n->text_len, &kind, &len, &bytes);
                if (kind != n->anchor_kind || len != n->anchor_len || bytes != n->anchor ||
                    e[i].key != anchor_key(kind, len, bytes))
                    return "a glob node's anchor disagrees with its text";
                break;
            }
            default:
                return "a node of unknown kind";
            }
            bool under = (p->flags & NODE_UNDER_STAR) || p->kind == RB_SEG_GLOBSTAR;
            if (under != ((n->flags & NODE_UNDER_STAR) != 0)) return "a wrong under-'**' flag";
            if (n->kind == RB_SEG_GLOBSTAR && under) {
                if (n->star_slot >= r->nslots) return "a nested '**' has no visited slot";
                if (seen_slots[n->star_slot >> 6] & ((uint64_t)1 << (n->star_slot & 63)))
                    return "two nested '**' share a visited slot";
                seen_slots[n->star_slot >> 6] |= (uint64_t)1 << (n->star_slot & 63);
                slots++;
            } else if (n->star_slot != GLOB_NO_SLOT) {
                return "a visited slot on a node that is no nested '**'";
            }
        }
        if (n->param && r->nodes[n->param].kind != RB_SEG_PARAM) return "a param child's kind";
        if (n->star && r->nodes[n->star].kind != RB_SEG_GLOBSTAR) return "a '**' child's kind";
        if (n->catchall && r->nodes[n->catchall].kind != RB_SEG_CATCHALL)
            return "a catch-all child's kind";
        uint8_t pre = 0, suf = 0;
        for (uint32_t i = 0; i < n->nglobs; i++) {
            const glob_entry *e = &r->globs[n->globs + i];
            if (e->node >= r->nnodes || r->nodes[e->node].parent != k ||
                r->nodes[e->node].kind != RB_SEG_GLOB)
                return "a glob entry names a node that is not a glob child";
            if (i > 0 && entry_compare(e - 1, e) >= 0) return "glob children are not sorted";
            unsigned kind = (unsigned)(e->key >> 40), len = (unsigned)(e->key >> 32) & 0xffu;
            if (kind == ANCHOR_PREFIX) pre |= (uint8_t)(1u << len);
            if (kind == ANCHOR_SUFFIX) suf |= (uint8_t)(1u << len);
        }
        if (pre != n->prefix_lens || suf != n->suffix_lens) return "wrong anchor-length masks";
        if (n->terms != nterms) return "terminal ranges are not consecutive";
        uint32_t nt = popcount32(n->methods);
        for (uint32_t i = 0; i < nt; i++) {
            const glob_term *t = &r->terms[n->terms + i];
            if (t->any != (i + 1 == nt && (n->methods & GLOB_ANY_BIT)))
                return "a '*' route is not last at its node";
            if (!ranks_on_path(r, k, t)) return "a route's ranks differ from its trie path";
        }
        nterms += nt;
    }
    if (nterms != r->count) return "terminal routes do not add up to the routes";
    if (slots != r->nslots) return "visited slots do not add up";
    uint32_t used = 0;
    for (uint32_t i = 0; i < r->table_cap; i++) {
        uint32_t c = r->table[i].child;
        if (!c) continue;
        if (c >= r->nnodes || r->nodes[c].kind != RB_SEG_STATIC)
            return "a hash slot names a node that is not static";
        used++;
    }
    if (used != nstatic) return "hash slots do not add up to the static nodes";
    if (nglob != r->nglobs) return "glob entries do not add up to the glob nodes";
    return NULL;
}

static int glob_check(const void *impl, rb_error *err)
{
    const char *why = glob_broken_invariant(impl);
    return why ? rb__error(err, RB_EINVAL, RB_NO_OFFSET, "glob: %s", why) : RB_OK;
}

rb__glob_size rb__glob_size_of(const void *impl)
{
    const glob_router *r = impl;
    return (rb__glob_size){r->nnodes, r->glob_bytes, r->nslots};
}

const rb_router_ops rb__glob_ops = {
    .abi_version = RB_ROUTER_ABI_VERSION,
    .name = "glob",
    .summary = "segment trie with anchored glob buckets; '**' anywhere, polynomial lookup",
    .features = RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_GLOB,
    .create = glob_create,
    .add = glob_add,
    .build = glob_build,
    .lookup = glob_lookup,
    .memory = glob_memory,
    .destroy = glob_destroy,
    .describe = glob_describe,
    .check = glob_check,
};
