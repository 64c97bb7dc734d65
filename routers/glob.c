/*
 * glob.c — the glob-aware router: a segment trie that indexes static parts
 * and tries glob segments only where their literal anchors fit.
 *
 * It supports every form of docs/design.md (static, params, templates,
 * catch-all, glob segments with '*', '?', '[set]', '[!set]', and '**'
 * anywhere, several per pattern) and gives exactly linear's answers: the
 * same winner by the priority key, the same 405 mask and the same capture
 * spans.
 *
 * The trie has one node per distinct pattern prefix.  A node's children are
 * the possible next segments: static children (a hash table keyed by
 * (parent, bytes)), at most one param child (names are erased: two params
 * at one place are the same prefix), template children (one per distinct
 * template shape: img-{a}.png and img-{b}.png are one child), glob
 * children (one per distinct glob text, sorted by literal anchor), at most
 * one '**' child and at most one catch-all child.  A node where patterns end holds their routes, one per
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
 * Node layout (glob_node, 64 bytes): text/text_len (static bytes, glob or
 * template text, in the router's arena of texts and ranks), parent, the
 * param / '**' / catch-all child, the first template child and the next
 * template sibling, the range of glob children, the first terminal
 * route and a mask of the terminal methods (bit RB_ANY for '*'), kind, the
 * anchor of a glob node, the anchor lengths present among its glob
 * children, for a '**' below another '**' its slot in the per-lookup
 * visited set, its gate set (below) and its static child when it has one
 * only (compared without hashing).
 *
 * Static children are found through one table keyed by XXH3 of (parent,
 * bytes) under a seed derived from rb_config.seed (random per router unless
 * the caller gives one); no probe sequence is longer than RB__PROBE_LIMIT
 * + 1 slots: a longer one at build re-seeds the table (seed.h, at most
 * RB__RESEEDS times, then RB_ELIMIT), and describe() says so.
 *
 * Lookup: a depth-first search from the root over (node, path position)
 * states, children in rank order (static, param and templates, globs,
 * '**', catch-all).  A template child is entered when rb__template_match
 * (tmplseg.c) fits the segment, with its params' leftmost-shortest spans;
 * it ranks as a param, so which of a param and the templates at one place
 * wins is left to the priority key, like any tie of ranks.
 * A route ending at a node matches when the path is used up there (a
 * catch-all when 1+ bytes remain).  Once a route of the request's method
 * (or '*') has matched, any subtree whose rank prefix already loses to it
 * is skipped, so the search stops soon after the best rank class; until
 * then every matching route is found and routes of other methods feed the
 * 405 mask.  A '**' entered at position p is tried with each possible end
 * (p, then one more segment each time, ascending).
 *
 * Gates.  A nested '**' G is a gate of the nodes between it and the '**'
 * above it when every route below them lies behind G or another such
 * gate.  Once every gate of a node has been expanded, visiting the node at
 * a later position reaches nothing new (the gates cover every later
 * position), so the visit returns at once, and a '**' node whose child's
 * gates are all expanded stops trying ends (jumping to the last one when
 * routes end at the '**' itself).  A chain like "/ ** /s/ ** /s/ ... / ** /e"
 * (without the spaces) therefore costs O(L), not O(L) per '**'.  A '**' whose one child is
 * static skips the ends whose segment is not that child's bytes with one
 * compare each.
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
 * Cost, in bytes examined.  T nodes, G bytes of glob and template text in
 * the trie, N routes, path of L bytes and S segments (S <= L).  Every node
 * is visited at most S + 1 times (once per end of its nearest '**'
 * ancestor, at distinct positions), and a visit at position p examines the
 * segment at p a bounded number of times: rb__glob_lookup_steps counts one
 * step per node visit, '**' end, gate looked at, slot probed and
 * binary-search step, plus every byte scanned for a '/', hashed, compared
 * or packed into an anchor, plus the glob and template matchers' steps (at
 * most (text + 1) * (segment + 1) for a glob or a template against a
 * segment).  A segment's bytes summed over the positions are at most L, so
 *
 *     steps <= 64 * (T + G) * (L + 1)            (T <= pattern bytes + 1)
 *
 * (a memchr or a hash is counted by its length, not as one step),
 * polynomial in table size times path length, whatever the patterns, and
 * within linear's worst case (O(N x pattern segments x L)); test_glob
 * checks it on every lookup it makes, and that nested '**' tables cost a
 * few steps per path byte.  A static probe hashes the segment once and
 * inspects at most RB__PROBE_LIMIT + 1 slots; an anchor probe is a binary
 * search, O(log glob children).
 * Tables without '**' visit each node at most once: O(L) for a REST
 * table.  Build: O(total pattern bytes + G log G) (a heap sort in place).  Memory after build:
 * T nodes of 64 bytes, a hash slot of 8 bytes per static node (load
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
 * exactly the lengths present; every template node is on its parent's
 * template list, and no two there have one shape; the terminal routes of a node are ordered
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
#include "seed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#define GLOB_ROOT_KIND     0xffu
#define GLOB_NO_SLOT       0xFFFFu /* star_slot of a node that is no nested '**' */
#define GLOB_ANCHOR_MAX    4u      /* bytes of a glob anchor */
#define GLOB_SCAN_MAX      8u      /* up to this many glob children: scan, no search */
#define GLOB_ANY_BIT       (1u << RB_ANY)
#define GLOB_SPECIFIC_MASK (GLOB_ANY_BIT - 1u)
#define GLOB_VISITED_WORDS (RB__GLOB_MAX_NESTED_STARS / 64)
#define GLOB_GATES_MAX     8u /* nested '**' in one node's gate set */
_Static_assert(RB__GLOB_MAX_NESTED_STARS < GLOB_NO_SLOT, "visited slots fit star_slot");

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
    uint32_t tmpls, next_tmpl;      /* first template child; next template sibling */
    uint32_t globs, nglobs;         /* glob children: r->globs[globs, globs + nglobs) */
    uint32_t terms;                 /* first terminal route in r->terms */
    uint32_t gates;                 /* its gate set: r->gates[gates, gates + ngates) */
    uint32_t only_static;           /* the static child when it is the only one */
    uint32_t anchor;                /* glob node: anchor bytes, little-endian */
    uint16_t methods;               /* terminal methods; GLOB_ANY_BIT for '*' */
    uint8_t kind;                   /* rb_seg_kind, GLOB_ROOT_KIND for the root */
    uint8_t flags;
    uint8_t anchor_kind, anchor_len;
    uint8_t prefix_lens, suffix_lens; /* bit n: a glob child has an anchor of n bytes */
    uint16_t star_slot;               /* nested '**': bit in the visited set */
    uint8_t ngates;                   /* 0: no gate set */
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
    uint32_t max_probe; /* longest displacement in table (<= RB__PROBE_LIMIT) */
    uint64_t seed;      /* of child_hash: derived from rb_config.seed */
    uint64_t hash_mask; /* all ones, unless a test narrows the hashes */
    uint32_t reseeds;   /* re-seeds the last build needed */
    glob_entry *globs;
    uint32_t nglobs;
    glob_term *terms;
    uint32_t *gates; /* gate sets: visited slots of nested '**' nodes */
    uint32_t ngates;
    uint32_t nslots; /* nested '**' nodes */
    uint32_t glob_bytes;
    size_t bytes; /* everything allocated, for memory() */
    char desc[256];
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

/* The key of child `text` of `parent`: XXH3 under the router's seed, mixed
 * with the parent (so equal texts under different parents spread too); a
 * template by its shape (its params' names left out). */
static uint64_t child_hash(uint64_t seed, uint32_t parent, uint8_t kind, const char *text,
                           size_t len)
{
    uint64_t who =
        ((uint64_t)parent * 2u + (kind == RB_SEG_GLOB ? 1u : 0u) + 1u) * 0x9e3779b97f4a7c15ull;
    if (kind == RB_SEG_TEMPLATE) return rb__template_shape_hash(text, len, seed ^ who ^ 1u);
    return XXH3_64bits_withSeed(text, len, seed ^ who);
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
    r->seed = rb__seed_mix(config->seed, RB__SALT_GLOB);
    r->hash_mask = ~0ull;
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
    uint64_t seed; /* the index's own: it is gone after build and decides nothing */
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
    if (n->parent != parent || n->kind != kind) return false;
    if (kind == RB_SEG_TEMPLATE) return rb__template_same_shape(n->text, n->text_len, text, len);
    return n->text_len == len && memcmp(n->text, text, len) == 0;
}

/* The index slot of (parent, kind, text): where it is, or the empty slot
 * where it belongs; *dist is how far that is from its home slot. */
static uint32_t index_slot(const glob_builder *b, uint32_t parent, uint8_t kind, const char *text,
                           size_t len, uint32_t *dist)
{
    uint64_t h = child_hash(b->seed, parent, kind, text, len);
    uint32_t mask = b->index_cap - 1, slot = (uint32_t)h & mask;
    for (*dist = 0; b->index[slot]; slot = (slot + 1) & mask, ++*dist) {
        if (same_child(&b->r->nodes[b->index[slot]], parent, kind, text, len)) break;
    }
    return slot;
}

/* The index rebuilt with cap slots (0: the first size) under seed,
 * re-inserting every static and glob node.  Unchanged on failure. */
static int index_rebuild(glob_builder *b, uint32_t cap, uint64_t seed)
{
    const glob_router *r = b->r;
    if (cap == 0) cap = pow2_at_least(r->budget.total_segs < 128 ? 256 : r->budget.total_segs + 1);
    glob_builder g = {b->r, NULL, cap, b->index_used, seed};
    g.index = rb_calloc(r->allocator, (size_t)g.index_cap * sizeof *g.index);
    if (!g.index) return RB_ENOMEM;
    for (uint32_t k = 1; k < r->nnodes; k++) {
        const glob_node *n = &r->nodes[k];
        uint32_t dist;
        if (n->kind == RB_SEG_STATIC || n->kind == RB_SEG_GLOB || n->kind == RB_SEG_TEMPLATE)
            g.index[index_slot(&g, n->parent, n->kind, n->text, n->text_len, &dist)] = k;
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
        uint32_t dist;
        slot = index_slot(b, parent, s->kind, s->text, s->text_len, &dist);
        if (b->index[slot]) return b->index[slot];
        if ((b->index_used + 1) * 2 > b->index_cap) {
            if (index_rebuild(b, b->index_cap * 2, b->seed) < 0) return 0;
            slot = index_slot(b, parent, s->kind, s->text, s->text_len, &dist);
        }
        /* colliding texts (crafted against a known seed?): a random seed
         * keeps build time linear; if that fails, the long probe stays */
        if (dist > RB__PROBE_LIMIT && index_rebuild(b, b->index_cap, rb__seed_random()) == RB_OK)
            slot = index_slot(b, parent, s->kind, s->text, s->text_len, &dist);
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
        } else if (s->kind == RB_SEG_TEMPLATE) {
            uint32_t *link = &pn->tmpls; /* appended: tried in insertion order */
            while (*link) link = &r->nodes[*link].next_tmpl;
            *link = k;
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

/* Heap sort of e[0, n) by entry_compare: in place, no allocation (qsort
 * may call malloc behind a custom allocator's back). */
static void sift_down(glob_entry *e, size_t root, size_t n)
{
    for (size_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && entry_compare(&e[child], &e[child + 1]) < 0) child++;
        if (entry_compare(&e[root], &e[child]) >= 0) return;
        glob_entry t = e[root];
        e[root] = e[child];
        e[child] = t;
    }
}

static void sort_entries(glob_entry *e, size_t n)
{
    for (size_t i = n / 2; i-- > 0;) sift_down(e, i, n);
    for (size_t end = n; end-- > 1;) {
        glob_entry t = e[0];
        e[0] = e[end];
        e[end] = t;
        sift_down(e, 0, end);
    }
}

static void free_lookup_form(glob_router *r)
{
    const rb_allocator *a = r->allocator;
    rb_free(a, r->nodes, (size_t)r->nodes_cap * sizeof *r->nodes);
    rb_free(a, r->table, (size_t)r->table_cap * sizeof *r->table);
    rb_free(a, r->globs, (size_t)r->nglobs * sizeof *r->globs);
    if (r->terms) rb_free(a, r->terms, r->count * sizeof *r->terms);
    if (r->arena) rb_free(a, r->arena, r->arena_bytes);
    rb_free(a, r->gates, (size_t)r->ngates * sizeof *r->gates);
    r->gates = NULL;
    r->ngates = 0;
    r->nodes = NULL;
    r->table = NULL;
    r->globs = NULL;
    r->terms = NULL;
    r->arena = NULL;
    r->nnodes = r->nodes_cap = r->table_cap = r->nglobs = r->max_probe = 0;
    r->arena_bytes = 0;
}

/* Insert every route into the trie (node texts still point into the
 * routes' pattern copies), then shrink the node array. */
static int build_trie(glob_router *r)
{
    const rb_allocator *a = r->allocator;
    glob_builder b = {r, NULL, 0, 0, rb__seed_mix(r->seed, RB__SALT_GLOB)};
    r->nodes_cap = (uint32_t)r->budget.total_segs + 1;
    r->nodes = rb_alloc(a, (size_t)r->nodes_cap * sizeof *r->nodes);
    if (!r->nodes) return RB_ENOMEM;
    r->nnodes = 1;
    memset(&r->nodes[0], 0, sizeof r->nodes[0]);
    r->nodes[0].kind = GLOB_ROOT_KIND;
    r->nodes[0].star_slot = GLOB_NO_SLOT;
    int rc = index_rebuild(&b, 0, b.seed);
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

/* The static-children table (load <= 1/2).  A probe sequence longer than
 * RB__PROBE_LIMIT re-seeds it (deterministically, seed.h) and fills it
 * again, at most RB__RESEEDS times; then RB_ELIMIT, *longest saying how
 * long the sequence was. */
static int build_table(glob_router *r, uint32_t *longest)
{
    uint32_t nstatic = 0;
    for (uint32_t k = 1; k < r->nnodes; k++) nstatic += r->nodes[k].kind == RB_SEG_STATIC;
    if (nstatic == 0) return RB_OK;
    uint32_t cap = pow2_at_least(2 * (uint64_t)nstatic);
    r->table = rb_alloc(r->allocator, (size_t)cap * sizeof *r->table);
    if (!r->table) return RB_ENOMEM;
    r->table_cap = cap;
    uint64_t first = r->seed;
    for (uint32_t attempt = 0;; attempt++) {
        memset(r->table, 0, (size_t)cap * sizeof *r->table);
        uint32_t worst = 0;
        for (uint32_t k = 1; k < r->nnodes; k++) {
            const glob_node *n = &r->nodes[k];
            if (n->kind != RB_SEG_STATIC) continue;
            uint64_t h =
                child_hash(r->seed, n->parent, RB_SEG_STATIC, n->text, n->text_len) & r->hash_mask;
            size_t i = (size_t)h & (cap - 1);
            uint32_t dist = 0;
            for (; r->table[i].child; i = (i + 1) & (cap - 1)) dist++;
            r->table[i] = (glob_slot){(uint32_t)(h >> 32), k};
            if (dist > worst) worst = dist;
        }
        if (attempt == 0) *longest = worst;
        if (worst <= RB__PROBE_LIMIT) {
            r->max_probe = worst;
            r->reseeds = attempt;
            return RB_OK;
        }
        if (attempt == RB__RESEEDS) {
            r->seed = first;
            *longest = worst;
            return RB_ELIMIT;
        }
        r->seed = rb__seed_mix(first, RB__SALT_RESEED + attempt + 1u);
    }
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
    for (uint32_t k = 1; k < r->nnodes; k++)
        if (r->nodes[k].kind == RB_SEG_TEMPLATE) r->glob_bytes += r->nodes[k].text_len;
    for (uint32_t k = 0; k < r->nnodes; k++) {
        glob_node *n = &r->nodes[k];
        if (n->nglobs > 1) sort_entries(&r->globs[n->globs], n->nglobs);
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

/* Visited-set slots of the nested '**' nodes, and the single static
 * children (compared without hashing; UINT32_MAX while counting means two
 * or more). */
static void build_slots(glob_router *r)
{
    for (uint32_t k = 0; k < r->nnodes; k++) {
        glob_node *n = &r->nodes[k];
        n->only_static = 0;
        if (k == 0) continue;
        const glob_node *p = &r->nodes[n->parent];
        if ((p->flags & NODE_UNDER_STAR) || p->kind == RB_SEG_GLOBSTAR) n->flags |= NODE_UNDER_STAR;
        if (n->kind == RB_SEG_GLOBSTAR && (n->flags & NODE_UNDER_STAR))
            n->star_slot = (uint16_t)r->nslots++;
    }
    for (uint32_t k = 1; k < r->nnodes; k++) {
        if (r->nodes[k].kind != RB_SEG_STATIC) continue;
        glob_node *p = &r->nodes[r->nodes[k].parent];
        p->only_static = p->only_static ? UINT32_MAX : k;
    }
    for (uint32_t k = 0; k < r->nnodes; k++)
        if (r->nodes[k].only_static == UINT32_MAX) r->nodes[k].only_static = 0;
}

/* Gate sets.  A nested '**' G is a gate of the nodes between it and the
 * '**' above it: every route below such a node n lies behind one of its
 * gates when no route ends on the way (a catch-all is a route too).  Once
 * every gate of n is expanded (they cover every later position), visiting
 * n again reaches nothing new; a '**' node's loop stops the same way (routes
 * ending at the '**' itself are left to its last end).  Sets hold at most
 * GLOB_GATES_MAX gates (a node with more has none).  Computed from the
 * last node back (children come after their parents), each node's set the
 * union of its children's: a child contributes its own slot if it is a
 * nested '**', else its set, and spoils the union when it has none or
 * routes end at it.  Scratch: GLOB_GATES_MAX + 1 words a node. */
static int build_gates(glob_router *r)
{
    const rb_allocator *a = r->allocator;
    const uint32_t w = GLOB_GATES_MAX + 1u, spoilt = UINT32_MAX;
    size_t scratch_bytes = (size_t)r->nnodes * w * sizeof(uint32_t);
    uint32_t *acc = rb_calloc(a, scratch_bytes); /* [count, gates...] per node */
    if (!acc) return RB_ENOMEM;
    uint32_t total = 0;
    for (uint32_t k = r->nnodes; k-- > 1;) {
        const glob_node *n = &r->nodes[k];
        uint32_t *mine = acc + (size_t)k * w, *up = acc + (size_t)n->parent * w;
        if (up[0] == spoilt) continue;
        if (n->star_slot != GLOB_NO_SLOT) {
            if (up[0] == GLOB_GATES_MAX)
                up[0] = spoilt;
            else
                up[1 + up[0]++] = n->star_slot;
            continue;
        }
        if (mine[0] == spoilt || mine[0] == 0 || n->methods || up[0] + mine[0] > GLOB_GATES_MAX) {
            up[0] = spoilt;
            continue;
        }
        memcpy(up + 1 + up[0], mine + 1, mine[0] * sizeof *mine);
        up[0] += mine[0];
    }
    for (uint32_t k = 0; k < r->nnodes; k++) {
        uint32_t c = acc[(size_t)k * w];
        glob_node *n = &r->nodes[k];
        bool usable = c != spoilt && c > 0 && (n->kind == RB_SEG_GLOBSTAR || !n->methods);
        n->ngates = (uint8_t)(usable ? c : 0);
        n->gates = total;
        total += n->ngates;
    }
    if (total) {
        r->gates = rb_alloc(a, (size_t)total * sizeof *r->gates);
        if (!r->gates) {
            rb_free(a, acc, scratch_bytes);
            return RB_ENOMEM;
        }
        r->ngates = total;
        for (uint32_t k = 0; k < r->nnodes; k++)
            memcpy(r->gates + r->nodes[k].gates, acc + (size_t)k * w + 1,
                   r->nodes[k].ngates * sizeof *r->gates);
    }
    rb_free(a, acc, scratch_bytes);
    return RB_OK;
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
    r->reseeds = 0;
    uint32_t longest = 0;
    int rc = build_trie(r);
    if (rc == RB_OK) rc = build_arena(r);
    if (rc == RB_OK) rc = build_table(r, &longest);
    if (rc == RB_OK) rc = build_globs(r);
    if (rc == RB_OK) rc = build_terms(r);
    if (rc < 0) {
        free_lookup_form(r);
        if (rc == RB_ELIMIT)
            return rb__error(err, rc, RB_NO_OFFSET,
                             "glob: a hash probe sequence of %u slots exceeds the limit of %u "
                             "under %u seeds (colliding keys whatever the seed: narrowed hashes?)",
                             longest, RB__PROBE_LIMIT, RB__RESEEDS + 1u);
        return rb__error(err, rc, RB_NO_OFFSET, "out of memory building the glob router");
    }
    build_slots(r);
    if (build_gates(r) < 0) {
        free_lookup_form(r);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory building the glob router");
    }
    r->bytes += (size_t)r->nodes_cap * sizeof *r->nodes + (size_t)r->table_cap * sizeof *r->table +
                (size_t)r->nglobs * sizeof *r->globs +
                (r->terms ? r->count * sizeof *r->terms : 0) + r->arena_bytes +
                (size_t)r->ngates * sizeof *r->gates;
    /* The lookup form holds everything now: drop the routes. */
    release_routes(r);
    int n = snprintf(r->desc, sizeof r->desc, "%u nodes, %u glob children, %u nested '**'",
                     r->nnodes, r->nglobs, r->nslots);
    if (r->reseeds && n > 0 && (size_t)n < sizeof r->desc)
        snprintf(r->desc + n, sizeof r->desc - (size_t)n,
                 "; re-seeded %u time%s: a probe sequence of %u slots exceeded the limit of %u",
                 r->reseeds, r->reseeds == 1 ? "" : "s", longest, RB__PROBE_LIMIT);
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
    bool counting; /* steps are counted (rb__glob_lookup_steps) */
    bool visited_clear;
    uint8_t ranks[RB__GLOB_MAX_DEPTH]; /* kinds on the path from the root */
    rb_span caps[RB_MAX_CAPTURES];     /* captures on the path from the root */
    uint64_t visited[GLOB_VISITED_WORDS];
} glob_search;

static void search_visit(glob_search *s, uint32_t k, size_t pos, uint32_t depth, uint32_t ncap);

/* Add n to the steps when they are counted (a branch always taken the same
 * way: the lookup op counts nothing). */
#define GLOB_STEPS(s, n)                                                                           \
    do {                                                                                           \
        if ((s)->counting) (s)->steps += (n);                                                      \
    } while (0)

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

/* The static child of parent with bytes seg[0, len), or 0: at most
 * max_probe + 1 slots.  Steps: the bytes hashed, one per slot, the bytes
 * compared. */
static uint32_t find_static(glob_search *s, uint32_t parent, const char *seg, size_t len)
{
    const glob_router *r = s->r;
    GLOB_STEPS(s, 1 + len);
    uint64_t h = child_hash(r->seed, parent, RB_SEG_STATIC, seg, len) & r->hash_mask;
    uint32_t tag = (uint32_t)(h >> 32), mask = r->table_cap - 1;
    size_t i = (size_t)h & mask;
    for (uint32_t probe = 0; probe <= r->max_probe; probe++, i = (i + 1) & mask) {
        const glob_slot *sl = &r->table[i];
        GLOB_STEPS(s, 1);
        if (!sl->child) return 0;
        if (sl->tag != tag) continue;
        GLOB_STEPS(s, len);
        if (same_child(&r->nodes[sl->child], parent, RB_SEG_STATIC, seg, len)) return sl->child;
    }
    return 0;
}

/* The node's one static child if it takes seg[0, len), else 0: a compare,
 * no hash. */
static uint32_t only_static(glob_search *s, const glob_node *n, const char *seg, size_t len)
{
    const glob_node *c = &s->r->nodes[n->only_static];
    GLOB_STEPS(s, 1 + len);
    return c->text_len == len && memcmp(c->text, seg, len) == 0 ? n->only_static : 0;
}

/* Try glob child k on the segment [pos, end); descend if it matches. */
static void try_glob(glob_search *s, uint32_t k, size_t pos, size_t end, uint32_t depth,
                     uint32_t ncap)
{
    const glob_node *g = &s->r->nodes[k];
    GLOB_STEPS(s, 1);
    if (!rb_glob_segment_match(g->text, g->text_len, s->path + pos, end - pos,
                               s->counting ? &s->steps : NULL))
        return;
    s->ranks[depth] = RB_SEG_GLOB;
    s->caps[ncap] = (rb_span){(uint32_t)pos, (uint32_t)(end - pos)};
    search_visit(s, k, end + 1, depth + 1, ncap + 1);
}

/* Try the template children of node n on the segment [pos, end): each one
 * that fits is entered with its params' spans (it ranks as a param). */
static void search_templates(glob_search *s, const glob_node *n, size_t pos, size_t end,
                             uint32_t depth, uint32_t ncap)
{
    for (uint32_t k = n->tmpls; k; k = s->r->nodes[k].next_tmpl) {
        const glob_node *t = &s->r->nodes[k];
        if (pruned(s, depth, RB_SEG_PARAM)) return;
        GLOB_STEPS(s, 1);
        if (!rb__template_match(t->text, t->text_len, s->path + pos, end - pos, (uint32_t)pos,
                                s->caps + ncap, s->counting ? &s->steps : NULL))
            continue;
        s->ranks[depth] = RB_SEG_PARAM;
        search_visit(s, k, end + 1, depth + 1, ncap + rb__template_params(t->text, t->text_len));
    }
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
    GLOB_STEPS(s, 1);
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        GLOB_STEPS(s, 1);
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
            GLOB_STEPS(s, 1u + g->anchor_len);
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
        GLOB_STEPS(s, 2u * l); /* the anchors packed */
        if (n->prefix_lens & (1u << l))
            try_bucket(s, n, anchor_key(ANCHOR_PREFIX, l, pack_anchor(seg, l)), pos, end, depth,
                       ncap);
        if (n->suffix_lens & (1u << l))
            try_bucket(s, n, anchor_key(ANCHOR_SUFFIX, l, pack_anchor(seg + len - l, l)), pos, end,
                       depth, ncap);
    }
}

/* End of the path segment starting at b, counting the bytes scanned. */
static inline size_t scan_end(glob_search *s, size_t b)
{
    size_t end = segment_end(s->path, s->len, b);
    GLOB_STEPS(s, end - b + 1);
    return end;
}

/* Has the nested '**' of visited-set slot `slot` been expanded already? */
static bool is_visited(const glob_search *s, uint32_t slot)
{
    return s->visited_clear && (s->visited[slot >> 6] >> (slot & 63) & 1u);
}

/* Has every gate of n been expanded?  One step a gate looked at. */
static bool gates_visited(glob_search *s, const glob_node *n)
{
    const uint32_t *g = s->r->gates + n->gates;
    for (uint32_t i = 0; i < n->ngates; i++) {
        GLOB_STEPS(s, 1);
        if (!is_visited(s, g[i])) return false;
    }
    return true;
}

/* Enter the '**' node k (at depth `depth`) at position pos: try every end,
 * ascending.  A nested '**' is expanded only the first time it is met.
 * Once every route below k lies behind a nested '**' already expanded
 * (k's `below`), later ends can reach nothing new: the loop stops, after
 * the last end if routes end at k itself. */
static void search_star(glob_search *s, uint32_t k, size_t pos, uint32_t depth, uint32_t ncap)
{
    const glob_node *a = &s->r->nodes[k];
    GLOB_STEPS(s, 1);
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
    /* A '**' whose one child is static: ends whose segment it cannot take
     * are skipped here, a compare each, instead of visited. */
    const glob_node *only =
        a->only_static && !a->param && !a->tmpls && !a->nglobs && !a->star && !a->catchall
            ? &s->r->nodes[a->only_static]
            : NULL;
    for (size_t end = pos;;) {
        while (only && end <= len) {
            /* what visiting k at end would do: compare, descend */
            size_t e = scan_end(s, end);
            GLOB_STEPS(s, 1 + only->text_len);
            if (e - end == only->text_len && memcmp(s->path + end, only->text, e - end) == 0) {
                s->ranks[depth] = RB_SEG_GLOBSTAR;
                s->caps[ncap] = end > pos ? (rb_span){(uint32_t)pos, (uint32_t)(end - 1 - pos)}
                                          : (rb_span){(uint32_t)(pos < len ? pos : len), 0};
                if (pruned(s, depth + 1, RB_SEG_STATIC)) break;
                s->ranks[depth + 1] = RB_SEG_STATIC;
                search_visit(s, a->only_static, e + 1, depth + 2, ncap + 1);
                if (pruned(s, depth, RB_SEG_GLOBSTAR)) return;
                if (a->ngates && gates_visited(s, a)) {
                    if (!a->methods) return;
                    end = len + 1;
                    break;
                }
            }
            end = e + 1;
        }
        if (only && end > len && !a->methods) return;
        s->ranks[depth] = RB_SEG_GLOBSTAR;
        s->caps[ncap] = end > pos ? (rb_span){(uint32_t)pos, (uint32_t)(end - 1 - pos)}
                                  : (rb_span){(uint32_t)(pos < len ? pos : len), 0};
        search_visit(s, k, end, depth + 1, ncap + 1);
        if (end > len) return;
        if (a->ngates && gates_visited(s, a)) {
            if (!a->methods) return;
            end = len + 1;
        } else {
            end = scan_end(s, end) + 1;
        }
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
    GLOB_STEPS(s, 1);
    /* everything below lies behind a nested '**' expanded already */
    if (n->ngates && n->kind != RB_SEG_GLOBSTAR && gates_visited(s, n)) return;
    if (pos == len + 1) search_terminal(s, n, ncap);
    if (pos <= len) {
        size_t end = scan_end(s, pos);
        bool after_param = n->tmpls || n->nglobs || n->star || n->catchall;
        if ((n->flags & NODE_HAS_STATIC) && !pruned(s, depth, RB_SEG_STATIC)) {
            uint32_t c = n->only_static ? only_static(s, n, s->path + pos, end - pos)
                                        : find_static(s, k, s->path + pos, end - pos);
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
        if (n->tmpls) search_templates(s, n, pos, end, depth, ncap);
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
    s.counting = steps != NULL;
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
        if (t->ranks[--depth] != rb_seg_rank(r->nodes[v].kind)) return false;
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
                if (n->param || n->star || n->catchall || n->nglobs || n->tmpls ||
                    (n->flags & NODE_HAS_STATIC))
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
            case RB_SEG_TEMPLATE: {
                uint32_t t = p->tmpls;
                while (t && t != k) t = r->nodes[t].next_tmpl;
                if (!t) return "a template node is not on its parent's template list";
                for (t = p->tmpls; t; t = r->nodes[t].next_tmpl)
                    if (t != k &&
                        same_child(&r->nodes[t], n->parent, RB_SEG_TEMPLATE, n->text, n->text_len))
                        return "two template children of one node have one shape";
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
    if (r->max_probe > RB__PROBE_LIMIT) return "a probe sequence longer than the limit";
    for (uint32_t k = 0; k < r->nnodes; k++) {
        const glob_node *n = &r->nodes[k];
        if (n->ngates > GLOB_GATES_MAX || (size_t)n->gates + n->ngates > r->ngates ||
            (n->ngates && n->methods && n->kind != RB_SEG_GLOBSTAR))
            return "a gate set out of range, or on a node where routes end";
        for (uint32_t i = 0; i < n->ngates; i++)
            if (r->gates[n->gates + i] >= r->nslots) return "a gate that is no nested '**'";
        if (n->only_static &&
            (n->only_static >= r->nnodes || r->nodes[n->only_static].parent != k ||
             r->nodes[n->only_static].kind != RB_SEG_STATIC))
            return "a single static child that is not a static child";
    }
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

int rb__glob_set_hash_bits(void *impl, unsigned bits)
{
    glob_router *r = impl;
    if (r->built) return RB_ESTATE;
    r->hash_mask = bits >= 64 ? ~0ull : (1ull << bits) - 1u;
    return RB_OK;
}

uint32_t rb__glob_max_probe(const void *impl)
{
    return ((const glob_router *)impl)->max_probe;
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
    .features = RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_GLOB | RB_FEAT_TEMPLATE,
    .create = glob_create,
    .add = glob_add,
    .build = glob_build,
    .lookup = glob_lookup,
    .memory = glob_memory,
    .destroy = glob_destroy,
    .describe = glob_describe,
    .check = glob_check,
};
