/*
 * ctrie.c — a compiled, compressed segment trie in one immutable block.
 *
 * What it is for: the most compact router that is still fast.  Routes are
 * collected in a plain list; build sorts them and compiles a trie whose
 * edges are whole path segments into ONE allocation, addressed by 32-bit
 * indices (no pointers inside), with the fields a lookup touches per node in
 * 16 bytes.  Chains of static segments with nothing in between collapse
 * into one edge compared at once (the '/' separators included).
 *
 * The example route set shared by every router file, compiled:
 *
 *     GET  /users             id 0
 *     GET  /users/:id         id 1
 *     GET  /users/me          id 2
 *     POST /users/:id/posts   id 3
 *     GET  /static/{*path}    id 4
 *
 *     [0] root ------------- static children [1..2], sorted by fingerprint
 *      +- "users"  [1]  ends: GET->0     static [3], param [4]
 *      |    +- "me"    [3]  ends: GET->2
 *      |    +- :param  [4]  ends: GET->1     static [5]
 *      |         +- "posts" [5]  ends: POST->3
 *      +- "static" [2]  catch-all: GET->4
 *
 *     Nodes are numbered breadth first, so the children of a node are one
 *     contiguous run: its static children (sorted), then its param child,
 *     then its template children (one per template shape, "{}.json").
 *     A chain such as /a/b/c/d next to /a/b/x compiles to
 *     root -> "a/b" -> { "c/d", "x" }: three edges, one compare each.
 *
 *     In the block (254 bytes; P = CTRIE_HAS_PARAM):
 *
 *       node  first nstatic aux masks          edge: fp of, bytes   parent
 *       [0]   1     2       0   -              -                    -
 *       [1]   3     1|P     0   GET            "users", 0+5         0
 *       [2]   5     0       1   catch-all GET  "static", 5+6        0
 *       [3]   5     0       2   GET            "me", 11+2           1
 *       [4]   5     1       3   GET            -                    1
 *       [5]   6     0       4   POST           "posts", 13+5        4
 *
 *       aux  = [0 4 2 1 3]   (route ids, one run per node)
 *       pool = "usersstaticmeposts"
 *
 * Block layout (one allocation; i = node index):
 *
 *     +-------------+-------------+-------------+-------------+-----------+
 *     | nodes[n]    | edges[n]    | parent[n]   | aux[]       | pool      |
 *     | 16 B        | 16 B        | 4 B         | 4 B         | bytes     |
 *     +-------------+-------------+-------------+-------------+-----------+
 *
 *     nodes[i]  first    index of the first child
 *               nstatic  number of static children | CTRIE_HAS_PARAM
 *               aux      start of the node's run in aux[]
 *               masks    bits 0-9: methods of the routes ending here (bit m
 *                        = method m, bit 9 = '*'); bits 10-15: hb, the hash
 *                        table size (none, or 2^(hb-1) slots); bits 16-25:
 *                        methods of the node's catch-all routes; bit 26:
 *                        the table hashes whole segments (CTRIE_SEGHASH);
 *                        bit 27: the node has template children
 *                        (CTRIE_HAS_TMPL; how many is in keys[])
 *     edges[i]  the static edge into i:
 *               fp       fingerprint of its first segment: the length
 *                        (clamped to 0x7FFF) in bits 48-62, the first 6
 *                        bytes little-endian below (zero padded).  Siblings
 *                        are sorted by (fp, first segment), so a path
 *                        segment is found by comparing 64-bit integers; a
 *                        one-segment edge of up to 6 bytes is then known
 *                        equal without a byte compare
 *               off, len its bytes in pool ("a/b"), in the same 16 bytes;
 *                        a template child: fp 0, its shape ("{}.json")
 *     parent[i] the node above i (read only when backtracking)
 *     aux[]     per node, in node order: its hash table if it has one,
 *               then the route ids of the routes ending there, in method-
 *               bit order, then those of its catch-all (found by popcount
 *               of the masks below the method's bit)
 *
 *     Only a table with templates: keys[] (per node: where its path's ranks
 *     are in tranks[], how many, its literal bytes) and tranks[] (the
 *     ranks, then a 4 for the node's catch-all routes), at the end of the
 *     block, for the comparison below.
 *
 *     A node with more than CTRIE_SORTED_MAX static children also has a
 *     linear-probing table of at least twice as many slots, keyed under
 *     secret words derived from rb_config.seed (random per router unless
 *     the caller gives one): by one multiply of the child's fingerprint
 *     when the siblings' fingerprints differ, else by XXH3 of its whole
 *     first segment (bit 26 of the masks), since siblings that share length
 *     and first bytes (/p/item__0000001, /archive/2020-01-01 ...) have one
 *     fingerprint and would form one cluster.  A
 *     slot holds the child's position (in the bits of the slot mask) under
 *     a tag of the hash, so a probe rarely touches an edge that does not
 *     match.  No probe sequence passes RB__PROBE_LIMIT + 1 slots: build
 *     re-seeds the tables past it (seed.h; RB_ELIMIT after RB__RESEEDS
 *     re-seeds), and describe() says so.  Smaller nodes use a branch-free
 *     binary search of their fingerprints.
 *
 * Lookup: a depth-first walk trying, at each node, the static child that
 * takes the next segment(s), then the param child (1+ bytes) and the
 * template children (rb__template_match, tmplseg.c), then the catch-all
 * (1+ bytes to the end), and backtracking when a branch dead-ends
 * (/users/me/x and /users/:id/y, path /users/me/y -> the param route).  That
 * order visits matching patterns by increasing priority key (ranks left to
 * right; a full tie of ranks means the same shape, where at most one route
 * per method exists), so the first node where the path ends and whose masks
 * hold the method, else '*', is the winner.  When none fits, the walk has
 * seen every matching node: the 405 mask is the union of their methods.
 * Each node is visited at most once per lookup (its depth in segments is
 * fixed, it has one parent), so backtracking is never exponential.  Path
 * segments are scanned 8 bytes at a time (SWAR search for '/', loads kept
 * inside the path); their first word also gives the fingerprint.
 *
 * Templates rank as params, so between the routes below the param child
 * and template children of one node the later segments' ranks decide,
 * then the method, then literal bytes (/a/{id}.json/x beats /a/{AccountSid}/x
 * on /a/AC1.json/x).  When two or more of them take the segment the walk
 * searches below each (ctrie_group: a walk that does not go up from the
 * child, one recursion level per such place on the path, at most
 * RB_MAX_CAPTURES) and keeps the route with the smallest key (keys[]);
 * when one does, it is walked as a lone param is.  In the sort that builds
 * the block a template's rank lies between the statics' and the param's,
 * so each shape is one run and one child.
 *
 * Cost: lookup O(S + L) for S path segments and L path bytes: a node of
 * up to CTRIE_SORTED_MAX children is searched in at most 3 + 8 compares, a
 * larger one hashes the segment (O(segment bytes)) and inspects at most
 * RB__PROBE_LIMIT + 1 slots, about one; with backtracking, at worst every
 * node once, each visit scanning one segment.
 * build: equal static segments get one integer rank (a hash table, then a
 * sort of the distinct ones), the routes are merge-sorted by their ranks,
 * O(N log N) comparisons of up to S integers, then two breadth-first passes
 * (shape, then writing the block) of O(N * S).  A template child costs its
 * lookup one rb__template_match of the segment.  Memory: 36 bytes a node + 4
 * a route + 4 to 16 a child of a hashed node + the edge bytes (shared
 * prefixes once).  Before build: a copy of every pattern and 12 bytes a
 * segment.
 *
 * Invariants (rb__ctrie_check):
 *   - every index is in range; nodes are numbered breadth first: the
 *     children runs of all nodes tile nodes[1..n) in node order, and
 *     parent[] agrees; the aux runs tile aux[] in node order;
 *   - static siblings are strictly sorted by (fp, first segment), so their
 *     first segments differ; fp is the fingerprint of the first segment;
 *     edge bytes are in the pool; a param child has no key;
 *   - chains are collapsed: a node reached by a static edge is a branch
 *     point: routes end there, or it has a catch-all, a param child,
 *     template children or 2+ static children (only the root, param and
 *     template nodes may have exactly one static child and nothing else);
 *   - template children hold a template shape in the pool, no two of one
 *     shape under a node; keys[] exists exactly with templates, holds each
 *     node's template count (bit 27 set exactly when it is not 0), and
 *     each terminal's key lies in tranks[];
 *   - a hash table exists exactly for nodes of more than CTRIE_SORTED_MAX
 *     static children, is at most half full, and holds each child once,
 *     with its tag, within max_probe <= RB__PROBE_LIMIT of its home slot;
 *   - every node but an empty router's root leads to a route; method masks
 *     use bits 0-9; one route id a (route, node) in aux[].
 *
 * What build changes: it compiles the block and frees the route list; the
 * router is then immutable (the front end refuses add after build).
 * Thread safety: lookup only reads the block, so concurrent lookups after
 * build are safe; add and build need exclusive access.
 */
#include "ctrie.h"
#include "seed.h"

#include <stdio.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#define CTRIE_NONE        UINT32_MAX
#define CTRIE_HAS_PARAM   0x80000000u
#define CTRIE_NSTATIC(nd) ((nd)->nstatic & ~CTRIE_HAS_PARAM)
#define CTRIE_ANY_BIT     (1u << RB_ANY)
#define CTRIE_METHODS     (CTRIE_ANY_BIT - 1u) /* the 9 concrete methods */
#define CTRIE_FP_BYTES    6u
/* Fingerprint lengths are clamped to this, so bit 63 is always 0. */
#define CTRIE_FP_MAXLEN 0x7FFFu
/* Segments in all routes: keeps node counts (at most 1 + segments) and
 * hash tables (at most 4 slots a child) well inside 31 bits. */
#define CTRIE_MAX_SEGS (1u << 28)
/* Static children of a node are found by binary search up to this many;
 * beyond through a hash table of slots. */
#define CTRIE_SORTED_MAX 8u
#define CTRIE_TMASK(nd)  ((nd)->masks & 0x3FFu)
#define CTRIE_CMASK(nd)  (((nd)->masks >> 16) & 0x3FFu)
/* Bit 26: the node's table is keyed by its children's whole segments (two
 * of them share a fingerprint), not by their fingerprints. */
#define CTRIE_SEGHASH (1u << 26)
/* Bit 27: the node has template children, after its param child; their
 * count is in keys[] (which exists only for tables with templates). */
#define CTRIE_HAS_TMPL (1u << 27)
/* Bits 10-15: hb, 0 for no hash table, else the table has 2^(hb - 1) slots. */
#define CTRIE_HB(nd)    (((nd)->masks >> 10) & 0x3Fu)
#define CTRIE_SLOTS(nd) ((1u << CTRIE_HB(nd)) >> 1)

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&                                 \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CTRIE_LITTLE_ENDIAN 1
#else
#define CTRIE_LITTLE_ENDIAN 0
#endif

/* ---- the compiled block --------------------------------------------------- */

typedef struct ctrie_node {
    uint32_t first;   /* first child */
    uint32_t nstatic; /* static children | CTRIE_HAS_PARAM */
    uint32_t aux;     /* start of this node's run in aux[]: slots, then ids */
    uint32_t masks;   /* methods ending here | hb << 10 | catch-all methods << 16 |
                         template children << 26 */
} ctrie_node;

/* The static edge into a node (all zero for the root and param nodes). */
typedef struct ctrie_edge {
    uint64_t fp;       /* fingerprint of the edge's first segment */
    uint32_t off, len; /* the edge's bytes in the pool */
} ctrie_edge;

/* ---- the route list (before build) ---------------------------------------- */

typedef struct ctrie_seg {
    uint32_t off; /* segment text in text[] */
    uint32_t len;
    uint32_t kind; /* rb_seg_kind */
} ctrie_seg;

typedef struct ctrie_route {
    uint32_t id;
    uint32_t seg; /* first segment in segs[] */
    uint32_t nsegs;
    uint32_t method; /* rb_method or RB_ANY */
} ctrie_route;

typedef struct ctrie_router {
    const rb_allocator *allocator;

    /* before build */
    ctrie_route *routes;
    size_t nroutes, routes_cap;
    ctrie_seg *segs;
    size_t nsegs, segs_cap;
    char *text;
    size_t ntext, text_cap;

    size_t ntemplates; /* template segments added */

    /* after build: one block, and views into it */
    void *block;
    size_t block_bytes;
    uint32_t nnodes, naux, npool, nranks;
    const ctrie_node *nodes;
    const ctrie_edge *edges;
    const uint32_t *parent;
    const uint32_t *aux;
    const char *pool;
    uint64_t seed;      /* of the child tables: derived from rb_config.seed */
    uint64_t k0, k1;    /* child_key's secret words, from seed */
    uint32_t max_probe; /* longest displacement in a child table */
    uint32_t reseeds;   /* re-seeds the build needed */
    const struct ctrie_key {
        uint32_t ranks, nranks, literal; /* the node's path: ranks at tranks + ranks */
        uint32_t ntmpl;                  /* its template children */
    } * keys;                            /* per node, only with templates: NULL without */
    const uint8_t *tranks;               /* then a 4 for the node's catch-all routes */
    char describe[200];
} ctrie_router;

/* ---- fingerprints and small helpers ----------------------------------------- */

/* The fingerprint of an n-byte segment s (see the header). */
static uint64_t fp_of(const char *s, size_t n)
{
    size_t m = n < CTRIE_FP_BYTES ? n : CTRIE_FP_BYTES;
    uint64_t v = 0;
    for (size_t i = 0; i < m; i++) v |= (uint64_t)(unsigned char)s[i] << (8u * i);
    return (uint64_t)(n < CTRIE_FP_MAXLEN ? n : CTRIE_FP_MAXLEN) << 48 | v;
}

/* Number of set bits of a 16-bit value. */
static inline uint32_t popcount16(uint32_t x)
{
    x = x - ((x >> 1) & 0x5555u);
    x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
    x = (x + (x >> 4)) & 0x0F0Fu;
    return (x + (x >> 8)) & 0x1Fu;
}

/* Slot of the route for method bit mbit in a 10-bit method mask: the
 * specific method, else '*'; CTRIE_NONE when neither is there. */
static inline uint32_t method_slot(uint32_t mask, uint32_t mbit)
{
    uint32_t bit = (mask & mbit) ? mbit : CTRIE_ANY_BIT;
    if (!(mask & bit)) return CTRIE_NONE;
    return popcount16(mask & (bit - 1u));
}

/* End of the path segment starting at pos (the next '/' or len). */
static inline size_t segment_end(const char *path, size_t len, size_t pos)
{
    const char *slash = memchr(path + pos, '/', len - pos);
    return slash ? (size_t)(slash - path) : len;
}

/* Hash of a segment's bytes, under seed. */
static inline uint64_t seg_key(uint64_t seed, const char *s, size_t n)
{
    return XXH3_64bits_withSeed(s, n, seed);
}

/* The key of a child in its parent's table, under the router's secret
 * words: one multiply of its fingerprint where the siblings' fingerprints
 * differ, else XXH3 of the whole segment (siblings such as
 * /p/item__0000001 ... share length and first bytes).  Its top bits pick a
 * slot, its low 32 bits give the tag kept in the slot. */
static inline uint64_t child_key(const ctrie_router *r, bool seghash, uint64_t f, const char *seg,
                                 size_t n)
{
    return seghash ? seg_key(r->seed, seg, n) : rb__fold64(f ^ r->k0, r->k1);
}

/* The secret words of child_key, from r->seed. */
static void set_keys(ctrie_router *r, uint64_t seed)
{
    r->seed = seed;
    r->k0 = rb__seed_mix(seed, 1);
    r->k1 = rb__seed_mix(seed, 2) | 1u;
}

/* First slot of hash h in a table of 2^bits slots (1 <= bits <= 31). */
static inline uint32_t slot_of(uint64_t h, uint32_t bits)
{
    return (uint32_t)(h >> (64u - bits));
}

/* A slot of a table of mask + 1 slots: the child's position in its run
 * plus one (so 0 is an empty slot; at most mask / 2) in the bits of mask,
 * a tag from the hash above them. */
static inline uint32_t slot_entry(uint64_t h, uint32_t k, uint32_t mask)
{
    return ((uint32_t)h & ~mask) | (k + 1u);
}

#if CTRIE_LITTLE_ENDIAN
/* The bytes of a fingerprint taken from a little-endian word, by length. */
static const uint64_t fp_mask[CTRIE_FP_BYTES + 1] = {
    0, 0xFFull, 0xFFFFull, 0xFFFFFFull, 0xFFFFFFFFull, 0xFFFFFFFFFFull, 0xFFFFFFFFFFFFull,
};

/* Index (0-7) of the first '/' byte of w in memory order, 8 if none. */
static inline size_t slash_index(uint64_t w)
{
    uint64_t x = w ^ 0x2F2F2F2F2F2F2F2Full; /* '/' bytes become 0 */
    uint64_t zero = (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
    if (!zero) return 8;
#if defined(__GNUC__)
    return (size_t)__builtin_ctzll(zero) / 8u;
#else
    size_t n = 0;
    while (!(zero & 0x80u)) zero >>= 8, n++;
    return n;
#endif
}

/* segment_end from q, for a segment with no '/' in the 8 bytes before q:
 * whole words while they fit, then one word moved back to end at len. */
static size_t segment_end_words(const char *path, size_t len, size_t q)
{
    uint64_t w;
    for (; q + 8u <= len; q += 8u) {
        memcpy(&w, path + q, 8);
        size_t at = slash_index(w);
        if (at < 8u) return q + at;
    }
    if (q >= len) return len;
    memcpy(&w, path + len - 8u, 8);
    size_t at = slash_index(w >> (8u * (q - (len - 8u)))); /* shift 8..56 */
    return at < len - q ? q + at : len;
}
#endif

/* The path segment starting at pos (pos <= len): returns its end (the next
 * '/' or len).  On little-endian hosts with len >= 8, one 8-byte load
 * inside path[0, len) (moved back to end at len when fewer than 8 bytes
 * remain, then shifted down) finds the end of segments shorter than 8 bytes
 * (longer ones continue a word at a time) and is kept in *word for
 * segment_fp.  Never reads outside path[0, len). */
static inline size_t scan_segment(const char *path, size_t len, size_t pos, uint64_t *word)
{
#if CTRIE_LITTLE_ENDIAN
    uint64_t w;
    size_t at;
    if (pos + 8u <= len) {
        memcpy(&w, path + pos, 8);
        *word = w;
        at = slash_index(w);
        return at < 8u ? pos + at : segment_end_words(path, len, pos + 8u);
    }
    if (len >= 8u) {
        memcpy(&w, path + len - 8u, 8);
        /* pos - (len - 8) is 1..8; 8 only when pos == len, where the shift
         * is skipped and nothing of w is used (the segment is empty); bytes
         * shifted in at the top are 0, never '/' */
        w >>= (8u * (pos - (len - 8u))) & 63u;
        *word = w;
        at = slash_index(w);
        return at < len - pos ? pos + at : len;
    }
#endif
    *word = 0;
    return segment_end(path, len, pos);
}

/* Fingerprint of the segment path[pos, pos + n) that scan_segment found
 * (word is what it stored). */
static inline uint64_t segment_fp(const char *path, size_t len, size_t pos, size_t n, uint64_t word)
{
#if CTRIE_LITTLE_ENDIAN
    if (len >= 8u) /* an empty segment at the end has mask 0 */
        return (uint64_t)(n < CTRIE_FP_MAXLEN ? n : CTRIE_FP_MAXLEN) << 48 |
               (word & fp_mask[n < CTRIE_FP_BYTES ? n : CTRIE_FP_BYTES]);
#endif
    (void)len;
    (void)word;
    return fp_of(path + pos, n);
}

/* ---- create, add ------------------------------------------------------------ */

static int ctrie_create(const rb_config *config, void **out, rb_error *err)
{
    ctrie_router *r = rb_calloc(config->allocator, sizeof *r);
    if (!r) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory creating ctrie");
    r->allocator = config->allocator;
    set_keys(r, rb__seed_mix(config->seed, RB__SALT_CTRIE));
    *out = r;
    return RB_OK;
}

static int ctrie_add(void *impl, const rb_route *route, rb_error *err)
{
    ctrie_router *r = impl;
    const rb_pattern *p = route->pattern;
    if (r->block) return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "ctrie: add after build");
    /* indices are 32-bit: keep text, segments and routes (and the nodes
     * they make) addressable */
    if (r->ntext + p->len >= UINT32_MAX || r->nsegs + p->nsegs > CTRIE_MAX_SEGS)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "ctrie: route table too large");

    const rb_allocator *a = r->allocator;
    if (rb_grow(a, &r->routes, &r->routes_cap, r->nroutes + 1, sizeof *r->routes, 16) < 0 ||
        rb_grow(a, &r->segs, &r->segs_cap, r->nsegs + p->nsegs, sizeof *r->segs, 16) < 0 ||
        rb_grow(a, &r->text, &r->text_cap, r->ntext + p->len, 1, 16) < 0)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in ctrie add");

    memcpy(r->text + r->ntext, p->text, p->len);
    for (uint32_t i = 0; i < p->nsegs; i++) {
        const rb_segment *s = &p->segs[i];
        r->segs[r->nsegs + i] = (ctrie_seg){(uint32_t)r->ntext + s->offset, s->len, s->kind};
        r->ntemplates += s->kind == RB_SEG_TEMPLATE;
    }
    r->routes[r->nroutes] =
        (ctrie_route){route->id, (uint32_t)r->nsegs, p->nsegs, (uint32_t)route->method};
    r->nroutes++;
    r->nsegs += p->nsegs;
    r->ntext += p->len;
    return RB_OK;
}

/* ---- build: rank the segments --------------------------------------------- */

/* Ranks of template, param and catch-all segments: above every static
 * rank (below 2^28); a template's is CTRIE_RANK_TMPL + its shape's number. */
#define CTRIE_RANK_TMPL  0xF0000000u
#define CTRIE_RANK_PARAM 0xFFFFFFFEu
#define CTRIE_RANK_CATCH 0xFFFFFFFFu

typedef int (*ctrie_cmp)(const void *ctx, uint32_t a, uint32_t b);

/* Bottom-up merge sort of a[0, n) by cmp, with tmp[0, n) as scratch. */
static inline void merge_sort(uint32_t *a, uint32_t *tmp, size_t n, ctrie_cmp cmp, const void *ctx)
{
    uint32_t *src = a, *dst = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) dst[k++] = cmp(ctx, src[j], src[i]) < 0 ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *src);
}

static bool seg_equal(const ctrie_router *r, uint32_t a, uint32_t b)
{
    const ctrie_seg *sa = &r->segs[a], *sb = &r->segs[b];
    return sa->len == sb->len && memcmp(r->text + sa->off, r->text + sb->off, sa->len) == 0;
}

/* Order of two static segments: (fp, length, bytes). */
static int seg_order(const void *ctx, uint32_t a, uint32_t b)
{
    const ctrie_router *r = ctx;
    const ctrie_seg *sa = &r->segs[a], *sb = &r->segs[b];
    uint64_t fa = fp_of(r->text + sa->off, sa->len), fb = fp_of(r->text + sb->off, sb->len);
    if (fa != fb) return fa < fb ? -1 : 1;
    if (sa->len != sb->len) return sa->len < sb->len ? -1 : 1;
    return memcmp(r->text + sa->off, r->text + sb->off, sa->len);
}

/* Put the linear-probing table of distinct segments uniq[0, nuniq) into
 * slots[0, cap) under seed (entries: index + 1; 0 empty). */
static void fill_slots(const ctrie_router *r, const uint32_t *uniq, uint32_t nuniq, uint32_t *slots,
                       size_t cap, uint64_t seed)
{
    memset(slots, 0, cap * sizeof *slots);
    for (uint32_t u = 0; u < nuniq; u++) {
        const ctrie_seg *s = &r->segs[uniq[u]];
        size_t k = (size_t)seg_key(seed, r->text + s->off, s->len) & (cap - 1u);
        while (slots[k]) k = (k + 1u) & (cap - 1u);
        slots[k] = u + 1u;
    }
}

/* rank[i] of every template segment: CTRIE_RANK_TMPL + the number of its
 * shape (in the order shapes first appear; {a}.json and {b}.json are one),
 * through a linear-probing table of the distinct shapes. */
static int rank_templates(const ctrie_router *r, uint32_t *rank)
{
    if (!r->ntemplates) return RB_OK;
    size_t cap = 16;
    while (cap < 2 * r->ntemplates) cap *= 2;
    uint32_t *slots = rb_calloc(r->allocator, cap * sizeof *slots); /* segment + 1 */
    if (!slots) return RB_ENOMEM;
    uint32_t nshapes = 0;
    for (uint32_t i = 0; i < r->nsegs; i++) {
        const ctrie_seg *s = &r->segs[i];
        if (s->kind != RB_SEG_TEMPLATE) continue;
        const char *t = r->text + s->off;
        size_t k = (size_t)rb__template_shape_hash(t, s->len, 0) & (cap - 1u);
        for (;; k = (k + 1u) & (cap - 1u)) {
            if (!slots[k]) {
                slots[k] = i + 1u;
                rank[i] = CTRIE_RANK_TMPL + nshapes++;
                break;
            }
            const ctrie_seg *o = &r->segs[slots[k] - 1u];
            if (rb__template_same_shape(r->text + o->off, o->len, t, s->len)) {
                rank[i] = rank[slots[k] - 1u];
                break;
            }
        }
    }
    rb_free(r->allocator, slots, cap * sizeof *slots);
    return RB_OK;
}

/* rank[i] for every segment i: equal static segments get equal ranks, in
 * (fp, length, bytes) order, so the build compares integers.  Distinct
 * segments are found with a hash table; they are sorted once.  Returns
 * RB_OK or RB_ENOMEM. */
static int rank_segments(const ctrie_router *r, uint32_t *rank)
{
    const rb_allocator *a = r->allocator;
    size_t nsegs = r->nsegs, cap = 64, uniq_bytes = (nsegs ? nsegs : 1) * sizeof(uint32_t);
    uint32_t nuniq = 0, *usort = NULL;
    uint32_t *uniq = rb_alloc(a, uniq_bytes), *slots = rb_alloc(a, cap * sizeof *slots);
    int rc = RB_ENOMEM;
    if (!uniq || !slots) goto done;
    memset(slots, 0, cap * sizeof *slots);
    /* the table lives only here and decides nothing: colliding segments
     * (crafted against a known seed?) get it re-seeded at random */
    uint64_t seed = rb__seed_mix(r->seed, RB__SALT_CTRIE);

    for (uint32_t i = 0; i < nsegs; i++) {
        const ctrie_seg *s = &r->segs[i];
        if (s->kind != RB_SEG_STATIC) {
            rank[i] = s->kind == RB_SEG_PARAM ? CTRIE_RANK_PARAM : CTRIE_RANK_CATCH;
            continue; /* templates: below */
        }
        if ((nuniq + 1u) * 2u > cap) { /* keep the table at most half full */
            uint32_t *grown = rb_alloc(a, 2u * cap * sizeof *grown);
            if (!grown) goto done;
            rb_free(a, slots, cap * sizeof *slots);
            slots = grown;
            cap *= 2u;
            fill_slots(r, uniq, nuniq, slots, cap, seed);
        }
        size_t k = (size_t)seg_key(seed, r->text + s->off, s->len) & (cap - 1u);
        uint32_t dist = 0;
        while (slots[k] && !seg_equal(r, uniq[slots[k] - 1u], i)) {
            k = (k + 1u) & (cap - 1u);
            if (++dist > RB__PROBE_LIMIT) {
                seed = rb__seed_random();
                fill_slots(r, uniq, nuniq, slots, cap, seed);
                k = (size_t)seg_key(seed, r->text + s->off, s->len) & (cap - 1u);
                dist = 0;
            }
        }
        if (!slots[k]) {
            uniq[nuniq++] = i;
            slots[k] = nuniq;
        }
        rank[i] = slots[k] - 1u; /* for now: which distinct segment */
    }
    /* sort the distinct segments; their positions are the ranks */
    size_t usort_bytes = 3u * (nuniq ? nuniq : 1u) * sizeof *usort;
    usort = rb_alloc(a, usort_bytes);
    if (!usort) goto done;
    uint32_t *by_order = usort, *scratch = usort + nuniq, *urank = usort + 2u * nuniq;
    memcpy(by_order, uniq, nuniq * sizeof *uniq);
    merge_sort(by_order, scratch, nuniq, seg_order, r);
    for (uint32_t k = 0; k < nuniq; k++) {
        /* the distinct segment by_order[k] was entered as rank[by_order[k]] */
        urank[rank[by_order[k]]] = k;
    }
    for (uint32_t i = 0; i < nsegs; i++) {
        if (r->segs[i].kind == RB_SEG_STATIC) rank[i] = urank[rank[i]];
    }
    rb_free(a, usort, usort_bytes);
    rc = rank_templates(r, rank);
done:
    rb_free(a, uniq, uniq_bytes);
    rb_free(a, slots, cap * sizeof *slots);
    return rc;
}

/* ---- build: sort the routes, compile them ------------------------------------ */

typedef struct ctrie_sorted {
    const ctrie_router *r;
    const uint32_t *rank; /* of every segment (rank_segments) */
    uint32_t *order;      /* route indices, sorted */
} ctrie_sorted;

/* Routes by segment ranks left to right, a proper prefix first; same shape
 * by method (so a node's ids come out in method-bit order), then id. */
static int route_cmp(const void *ctx, uint32_t ra, uint32_t rb)
{
    const ctrie_sorted *b = ctx;
    const ctrie_route *a = &b->r->routes[ra], *c = &b->r->routes[rb];
    const uint32_t *ka = b->rank + a->seg, *kc = b->rank + c->seg;
    uint32_t n = a->nsegs < c->nsegs ? a->nsegs : c->nsegs;
    for (uint32_t d = 0; d < n; d++) {
        if (ka[d] != kc[d]) return ka[d] < kc[d] ? -1 : 1;
    }
    if (a->nsegs != c->nsegs) return a->nsegs < c->nsegs ? -1 : 1;
    if (a->method != c->method) return a->method < c->method ? -1 : 1;
    return a->id < c->id ? -1 : a->id > c->id;
}

/* Rank of segment d of route ra: CTRIE_NONE past its end. */
static uint32_t rank_at(const ctrie_sorted *b, uint32_t ra, uint32_t d)
{
    const ctrie_route *rt = &b->r->routes[ra];
    return d < rt->nsegs ? b->rank[rt->seg + d] : CTRIE_NONE;
}

static const ctrie_seg *seg_at(const ctrie_sorted *b, uint32_t ra, uint32_t d)
{
    return &b->r->segs[b->r->routes[ra].seg + d];
}

/* A node found by compile's first pass.  The routes order[lo, hi) below it
 * share their first `depth` segments; order[lo, ends) end at the node,
 * order[catches, hi) are its catch-alls. */
typedef struct ctrie_work {
    uint32_t lo, hi, depth, ends, catches;
    uint32_t first, nstatic; /* as in ctrie_node */
    uint32_t ntmpl;          /* template children (after the param child) */
} ctrie_work;

/* Bytes of the edge into child c of a node at depth d: from segment d to
 * segment depth(c) - 1 of its first route. */
static void edge_span(const ctrie_sorted *b, const ctrie_work *c, uint32_t d, uint32_t *off,
                      uint32_t *len)
{
    const ctrie_seg *s0 = seg_at(b, b->order[c->lo], d);
    const ctrie_seg *s1 = seg_at(b, b->order[c->lo], c->depth - 1u);
    *off = s0->off;
    *len = s1->off + s1->len - s0->off;
}

/* Hash bits of a node with nstatic static children (0: none, else hb as in
 * the masks), and its slot count. */
static uint32_t hash_bits(uint32_t nstatic, uint32_t *nslots)
{
    uint32_t hb = 0;
    *nslots = 0;
    if (nstatic > CTRIE_SORTED_MAX) {
        while ((1u << hb) < 2u * nstatic) hb++;
        *nslots = 1u << hb;
        hb++;
    }
    return hb;
}

/* First pass: the nodes, breadth first (so each node's children are one
 * run), into work[] (room for 1 + total segments); counts nodes, aux
 * entries and pool bytes. */
static int compile_shape(const ctrie_sorted *b, ctrie_work *work, uint32_t *nnodes_out,
                         uint32_t *naux_out, uint32_t *npool_out, uint32_t *nranks_out)
{
    const ctrie_router *r = b->r;
    const uint32_t *order = b->order;
    uint32_t nnodes = 1, naux = 0, npool = 0, nranks = 0;
    work[0] = (ctrie_work){0, (uint32_t)r->nroutes, 0, 0, 0, 0, 0, 0};
    for (uint32_t x = 0; x < nnodes; x++) {
        ctrie_work *w = &work[x];
        uint32_t hi = w->hi, d = w->depth, i = w->lo, nstatic = 0, has_param = 0;
        while (i < hi && r->routes[order[i]].nsegs == d) i++;
        w->ends = i;
        w->first = nnodes;
        /* static children: one per run of equal segment d, the edge going
         * on through the segments the whole run shares (a chain) */
        for (uint32_t k; i < hi && (k = rank_at(b, order[i], d)) < CTRIE_RANK_TMPL; nstatic++) {
            uint32_t j = i + 1, e = d + 1;
            while (j < hi && rank_at(b, order[j], d) == k) j++;
            /* sorted: the run shares segment e when its first and last
             * routes do (shorter routes, params come after statics...) */
            for (;;) {
                uint32_t ke = rank_at(b, order[i], e);
                if (ke >= CTRIE_RANK_TMPL || rank_at(b, order[j - 1], e) != ke) break;
                e++;
            }
            work[nnodes] = (ctrie_work){i, j, e, 0, 0, 0, 0, 0};
            uint32_t off, len;
            edge_span(b, &work[nnodes], d, &off, &len);
            npool += len;
            nnodes++;
            i = j;
        }
        /* the templates come next in the order, then the param; the param
         * child goes first among the children, the templates after it */
        uint32_t tfirst = i, ntmpl = 0;
        while (i < hi && rank_at(b, order[i], d) < CTRIE_RANK_PARAM) i++;
        uint32_t tend = i;
        if (i < hi && rank_at(b, order[i], d) == CTRIE_RANK_PARAM) {
            uint32_t j = i + 1;
            while (j < hi && rank_at(b, order[j], d) == CTRIE_RANK_PARAM) j++;
            work[nnodes++] = (ctrie_work){i, j, d + 1, 0, 0, 0, 0, 0};
            has_param = CTRIE_HAS_PARAM;
            i = j;
        }
        for (uint32_t t = tfirst; t < tend; ntmpl++) {
            uint32_t j = t + 1, k = rank_at(b, order[t], d);
            while (j < tend && rank_at(b, order[j], d) == k) j++;
            work[nnodes++] = (ctrie_work){t, j, d + 1, 0, 0, 0, 0, 0};
            const ctrie_seg *sd = seg_at(b, order[t], d);
            npool += (uint32_t)rb__template_shape_len(r->text + sd->off, sd->len);
            t = j;
        }
        w->catches = i; /* the rest: catch-alls, all of one shape */
        w->nstatic = nstatic | has_param;
        w->ntmpl = ntmpl;
        if (r->ntemplates && (w->ends > w->lo || hi > w->catches)) nranks += d + 1;
        uint32_t nslots;
        hash_bits(nstatic, &nslots);
        naux += nslots + (w->ends - w->lo) + (hi - w->catches);
    }
    *nnodes_out = nnodes;
    *naux_out = naux;
    *npool_out = npool;
    *nranks_out = nranks;
    return RB_OK;
}

/* Where the second pass writes (keys and tranks: NULL without templates). */
typedef struct ctrie_out {
    ctrie_node *nodes;
    ctrie_edge *edges;
    uint32_t *parent;
    uint32_t *aux;
    char *pool;
    struct ctrie_key *keys;
    uint8_t *tranks;
} ctrie_out;

/* Second pass: write the nodes work[0, nn) into the block; no comparisons.
 * Returns the longest probe sequence of the child tables (under r->seed). */
static uint32_t compile_emit(const ctrie_sorted *b, const ctrie_work *work, uint32_t nn,
                             const ctrie_out *out)
{
    uint32_t longest = 0;
    const ctrie_router *r = b->r;
    const uint32_t *order = b->order;
    uint32_t naux = 0, npool = 0, nranks = 0;
    out->edges[0] = (ctrie_edge){0, 0, 0};
    out->parent[0] = CTRIE_NONE;
    for (uint32_t x = 0; x < nn; x++) {
        const ctrie_work *w = &work[x];
        uint32_t nstatic = w->nstatic & ~CTRIE_HAS_PARAM, nslots, tmask = 0, cmask = 0;
        uint32_t hb = hash_bits(nstatic, &nslots), *slots = out->aux + naux;
        if (nslots) memset(slots, 0, nslots * sizeof *slots);
        uint32_t aux_at = naux;
        naux += nslots;
        for (uint32_t i = w->lo; i < w->ends; i++) {
            tmask |= 1u << r->routes[order[i]].method;
            out->aux[naux++] = r->routes[order[i]].id;
        }
        for (uint32_t i = w->catches; i < w->hi; i++) {
            cmask |= 1u << r->routes[order[i]].method;
            out->aux[naux++] = r->routes[order[i]].id;
        }
        /* siblings are sorted by fingerprint: equal ones are neighbours */
        bool seghash = false;
        for (uint32_t k = 1; nslots && k < nstatic && !seghash; k++) {
            const ctrie_seg *s0 = seg_at(b, order[work[w->first + k - 1].lo], w->depth);
            const ctrie_seg *s1 = seg_at(b, order[work[w->first + k].lo], w->depth);
            seghash = fp_of(r->text + s0->off, s0->len) == fp_of(r->text + s1->off, s1->len);
        }
        for (uint32_t k = 0; k < nstatic; k++) {
            uint32_t c = w->first + k, off, len;
            edge_span(b, &work[c], w->depth, &off, &len);
            const ctrie_seg *sd = seg_at(b, order[work[c].lo], w->depth);
            uint64_t f = fp_of(r->text + sd->off, sd->len);
            out->edges[c] = (ctrie_edge){f, npool, len};
            out->parent[c] = x;
            memcpy(out->pool + npool, r->text + off, len);
            npool += len;
            if (nslots) {
                uint64_t h = child_key(r, seghash, f, r->text + sd->off, sd->len);
                uint32_t slot = slot_of(h, hb - 1u), dist = 0;
                for (; slots[slot]; slot = (slot + 1u) & (nslots - 1u)) dist++;
                slots[slot] = slot_entry(h, k, nslots - 1u);
                if (dist > longest) longest = dist;
            }
        }
        uint32_t has_param = (w->nstatic & CTRIE_HAS_PARAM) ? 1u : 0u;
        if (has_param) {
            out->edges[w->first + nstatic] = (ctrie_edge){0, 0, 0};
            out->parent[w->first + nstatic] = x;
        }
        for (uint32_t t = 0; t < w->ntmpl; t++) {
            /* a template child: its shape in the pool ("{}.json") */
            uint32_t c = w->first + nstatic + has_param + t;
            const ctrie_seg *sd = seg_at(b, order[work[c].lo], w->depth);
            uint32_t len =
                (uint32_t)rb__template_shape(r->text + sd->off, sd->len, out->pool + npool);
            out->edges[c] = (ctrie_edge){0, npool, len};
            out->parent[c] = x;
            npool += len;
        }
        if (out->keys) out->keys[x] = (struct ctrie_key){0, 0, 0, w->ntmpl};
        if (out->keys && (tmask | cmask)) {
            /* the ranks of the first d segments every route here shares */
            uint32_t ro = order[w->lo], literal = 0;
            for (uint32_t s = 0; s < w->depth; s++) {
                const ctrie_seg *sg = seg_at(b, ro, s);
                bool stat = sg->kind == RB_SEG_STATIC;
                out->tranks[nranks + s] = (uint8_t)(stat ? 0u : 1u);
                if (stat)
                    literal += sg->len;
                else if (sg->kind == RB_SEG_TEMPLATE)
                    literal += (uint32_t)rb__template_shape_len(r->text + sg->off, sg->len) -
                               2u * rb__template_params(r->text + sg->off, sg->len);
            }
            out->tranks[nranks + w->depth] = RB_SEG_CATCHALL;
            out->keys[x] = (struct ctrie_key){nranks, w->depth, literal, w->ntmpl};
            nranks += w->depth + 1u;
        }
        out->nodes[x] =
            (ctrie_node){w->first, w->nstatic, aux_at,
                         tmask | hb << 10 | cmask << 16 | (seghash ? CTRIE_SEGHASH : 0u) |
                             (w->ntmpl ? CTRIE_HAS_TMPL : 0u)};
    }
    return longest;
}

/* Byte offsets of the arrays in a block of nn nodes, na aux entries, np
 * pool bytes; returns the block size.  The 16-byte records first (from an
 * aligned allocation), then 4-byte arrays, then bytes. */
static size_t block_layout(uint32_t nn, uint32_t na, uint32_t np, uint32_t nr, size_t off[7])
{
    size_t at = 0;
    off[0] = at, at += (size_t)nn * sizeof(ctrie_node);
    off[1] = at, at += (size_t)nn * sizeof(ctrie_edge);
    off[2] = at, at += (size_t)nn * sizeof(uint32_t);
    off[3] = at, at += (size_t)na * sizeof(uint32_t);
    off[4] = at, at += nr ? (size_t)nn * sizeof(struct ctrie_key) : 0; /* keys (templates) */
    off[5] = at, at += np;
    off[6] = at, at += nr; /* their ranks */
    return at;
}

static void free_list(ctrie_router *r)
{
    rb_free(r->allocator, r->routes, r->routes_cap * sizeof *r->routes);
    rb_free(r->allocator, r->segs, r->segs_cap * sizeof *r->segs);
    rb_free(r->allocator, r->text, r->text_cap);
    r->routes = NULL;
    r->segs = NULL;
    r->text = NULL;
    r->nroutes = r->routes_cap = r->nsegs = r->segs_cap = r->ntext = r->text_cap = 0;
}

static int ctrie_build(void *impl, rb_error *err)
{
    ctrie_router *r = impl;
    const rb_allocator *a = r->allocator;
    if (r->block) return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "ctrie: already built");
    /* sizes of the scratch arrays (never 0, so alloc and free agree) */
    size_t n = r->nroutes, nsegs = r->nsegs, maxnodes = 1 + nsegs;
    size_t rank_bytes = (nsegs ? nsegs : 1) * sizeof(uint32_t);
    size_t order_bytes = (n ? n : 1) * sizeof(uint32_t);
    uint32_t *rank = rb_alloc(a, rank_bytes), *order = rb_alloc(a, order_bytes);
    uint32_t *tmp = rb_alloc(a, order_bytes);
    ctrie_work *work = rb_alloc(a, maxnodes * sizeof *work);
    void *block = NULL;
    size_t block_bytes = 0;
    int rc = RB_ENOMEM;
    if (!rank || !order || !tmp || !work || rank_segments(r, rank) < 0) goto done;

    ctrie_sorted b = {r, rank, order};
    for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
    merge_sort(order, tmp, n, route_cmp, &b);
    uint32_t nn, naux, np, nr;
    rc = compile_shape(&b, work, &nn, &naux, &np, &nr);
    if (rc < 0) goto done;
    rc = RB_ENOMEM;
    size_t off[7];
    block_bytes = block_layout(nn, naux, np, nr, off);
    block = rb_alloc(a, block_bytes);
    if (!block) goto done;
    char *base = block;
    ctrie_out out = {
        (ctrie_node *)(void *)(base + off[0]),
        (ctrie_edge *)(void *)(base + off[1]),
        (uint32_t *)(void *)(base + off[2]),
        (uint32_t *)(void *)(base + off[3]),
        base + off[5],
        nr ? (struct ctrie_key *)(void *)(base + off[4]) : NULL,
        nr ? (uint8_t *)(base + off[6]) : NULL,
    };
    /* a probe sequence past the limit: re-seed the child tables and write
     * them again (seed.h; the rest of the block does not change) */
    uint64_t first = r->seed;
    uint32_t longest = compile_emit(&b, work, nn, &out), flood = longest;
    for (r->reseeds = 0; longest > RB__PROBE_LIMIT && r->reseeds < RB__RESEEDS; r->reseeds++) {
        set_keys(r, rb__seed_mix(first, RB__SALT_RESEED + r->reseeds + 1u));
        longest = compile_emit(&b, work, nn, &out);
    }
    if (longest > RB__PROBE_LIMIT) {
        set_keys(r, first);
        r->reseeds = 0;
        rc = RB_ELIMIT;
        rb__error(err, rc, RB_NO_OFFSET,
                  "ctrie: a hash probe sequence of %u slots exceeds the limit of %u under %u "
                  "seeds",
                  longest, RB__PROBE_LIMIT, RB__RESEEDS + 1u);
        goto done;
    }
    r->max_probe = longest;

    r->block = block;
    r->block_bytes = block_bytes;
    r->nnodes = nn;
    r->naux = naux;
    r->npool = np;
    r->nodes = out.nodes;
    r->edges = out.edges;
    r->parent = out.parent;
    r->aux = out.aux;
    r->pool = out.pool;
    int dn = snprintf(r->describe, sizeof r->describe, "%u nodes, %zu-byte block (%u pool bytes)",
                      nn, block_bytes, np);
    if (r->reseeds && dn > 0 && (size_t)dn < sizeof r->describe)
        snprintf(r->describe + dn, sizeof r->describe - (size_t)dn,
                 "; re-seeded %u time%s: a probe sequence of %u slots exceeded the limit of %u",
                 r->reseeds, r->reseeds == 1 ? "" : "s", flood, RB__PROBE_LIMIT);
    r->keys = out.keys;
    r->tranks = out.tranks;
    r->nranks = nr;
    free_list(r);
    block = NULL;
    rc = RB_OK;
done:
    rb_free(a, rank, rank_bytes);
    rb_free(a, order, order_bytes);
    rb_free(a, tmp, order_bytes);
    rb_free(a, work, maxnodes * sizeof *work);
    rb_free(a, block, block_bytes); /* NULL once committed */
    if (rc == RB_ENOMEM) return rb__error(err, rc, RB_NO_OFFSET, "out of memory in ctrie build");
    return rc;
}

/* ---- lookup ------------------------------------------------------------------ */

/* a[0, n) == b[0, n), with word loads that stay inside both (the last
 * word overlaps the one before it); inlined, unlike memcmp. */
static inline bool bytes_equal(const char *a, const char *b, size_t n)
{
    if (n >= 8u) {
        uint64_t x, y;
        for (size_t i = 0; i + 8u < n; i += 8u) {
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y) return false;
        }
        memcpy(&x, a + n - 8u, 8);
        memcpy(&y, b + n - 8u, 8);
        return x == y;
    }
    if (n >= 4u) {
        uint32_t x0, y0, x1, y1;
        memcpy(&x0, a, 4);
        memcpy(&y0, b, 4);
        memcpy(&x1, a + n - 4u, 4);
        memcpy(&y1, b + n - 4u, 4);
        return x0 == y0 && x1 == y1;
    }
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return false;
    return true;
}

/* Does the static edge into node c take path[pos, ...), given that its
 * fingerprint equals that of the first path segment path[pos, pos + n)?  A
 * one-segment edge of up to 6 bytes needs no compare (the fingerprint holds
 * all of it); a chain is compared whole, its '/' included. */
/* The rest of edge_takes, out of line: a chain, or a segment of 7+ bytes. */
static bool edge_takes_slow(const char *key, uint32_t klen, const char *path, size_t len,
                            size_t pos, size_t n)
{
    if (klen == n) return bytes_equal(path + pos, key, n);
    return klen <= len - pos && bytes_equal(path + pos, key, klen) &&
           (pos + klen == len || path[pos + klen] == '/');
}

static inline bool edge_takes(const ctrie_router *r, uint32_t c, const char *path, size_t len,
                              size_t pos, size_t n)
{
    ctrie_edge k = r->edges[c];
    if (k.len == n && n <= CTRIE_FP_BYTES) return true;
    return edge_takes_slow(r->pool + k.off, k.len, path, len, pos, n);
}

#if defined(__GNUC__)
#define CTRIE_INLINE static inline __attribute__((always_inline))
#else
#define CTRIE_INLINE static inline
#endif

/* The static child of nd whose edge takes path[pos, ...), given the first
 * segment path[pos, pos + n) and its fingerprint f; or CTRIE_NONE.  With a
 * hash table (more than CTRIE_SORTED_MAX children): hash the whole segment,
 * probe from its slot to an empty one (at most max_probe + 1 slots),
 * comparing tags first.  Otherwise: a branch-free lower bound of f among
 * the sorted fingerprints, then the equal fingerprints (at most
 * CTRIE_SORTED_MAX).  probes (may be NULL) counts the slots and edges
 * looked at. */
CTRIE_INLINE uint32_t find_static(const ctrie_router *r, const ctrie_node *nd, uint64_t f,
                                  const char *path, size_t len, size_t pos, size_t n,
                                  uint64_t *probes)
{
    uint32_t count = CTRIE_NSTATIC(nd), hb = CTRIE_HB(nd);
    const ctrie_edge *edges = r->edges + nd->first;
    if (hb) {
        const uint32_t *slots = r->aux + nd->aux;
        uint32_t mask = (1u << (hb - 1u)) - 1u;
        uint64_t h = child_key(r, nd->masks & CTRIE_SEGHASH, f, path + pos, n);
        uint32_t tag = (uint32_t)h & ~mask, s = slot_of(h, hb - 1u);
        for (uint32_t probe = 0; probe <= r->max_probe; probe++, s = (s + 1u) & mask) {
            uint32_t v = slots[s];
            if (probes) ++*probes;
            if (!v) return CTRIE_NONE;
            uint32_t c = (v & mask) - 1u;
            if ((v & ~mask) == tag && edges[c].fp == f &&
                edge_takes(r, nd->first + c, path, len, pos, n))
                return nd->first + c;
        }
        return CTRIE_NONE;
    }
    if (!count) return CTRIE_NONE;
    const ctrie_edge *base = edges;
    for (uint32_t span = count; span > 1;) {
        uint32_t half = span / 2;
        base = base[half].fp < f ? base + half : base;
        span -= half;
    }
    for (uint32_t i = (uint32_t)(base - edges) + (base->fp < f); i < count && edges[i].fp == f;
         i++) {
        if (probes) ++*probes;
        if (edge_takes(r, nd->first + i, path, len, pos, n)) return nd->first + i;
    }
    return CTRIE_NONE;
}

static bool ctrie_group(const ctrie_router *r, uint32_t g, size_t pos, size_t e, uint32_t k,
                        uint32_t mbit, const char *path, size_t len, rb_match *m, uint32_t *allowed,
                        uint32_t *term, uint64_t *probes);

/* How many template children node x has. */
static inline uint32_t ctrie_ntmpl(const ctrie_router *r, uint32_t x)
{
    return (r->nodes[x].masks & CTRIE_HAS_TMPL) ? r->keys[x].ntmpl : 0u;
}

/* Does template child c (its shape the edge's bytes) take path[pos, e)?
 * Its captures go to caps. */
static inline bool tmpl_takes(const ctrie_router *r, uint32_t c, const char *path, size_t pos,
                              size_t e, rb_span *caps)
{
    ctrie_edge t = r->edges[c];
    return rb__template_match(r->pool + t.off, t.len, path + pos, e - pos, (uint32_t)pos, caps,
                              NULL);
}

/* Node n's param child and template children on the segment path[pos, e)
 * (a param and templates rank alike): the one that takes it, its captures
 * written and *k advanced past them; CTRIE_NONE when none does, or when two
 * or more do, with *got after ctrie_group decided (m and *term filled). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static uint32_t
ctrie_tmpl_step(const ctrie_router *r, uint32_t n, size_t pos, size_t e, uint32_t *k, uint32_t mbit,
                const char *path, size_t len, rb_match *m, uint32_t *allowed, uint32_t *term,
                uint64_t *probes, bool *got)
{
    const ctrie_node *nd = &r->nodes[n];
    uint32_t first = nd->first + CTRIE_NSTATIC(nd), tfirst = first, fits = 0, only = 0;
    uint32_t ntmpl = ctrie_ntmpl(r, n);
    if (nd->nstatic & CTRIE_HAS_PARAM) fits = 1, only = first, tfirst++;
    for (uint32_t t = 0; t < ntmpl; t++) {
        if (!tmpl_takes(r, tfirst + t, path, pos, e, m->params + *k)) continue;
        fits++;
        only = tfirst + t;
    }
    if (fits > 1) {
        *got = ctrie_group(r, n, pos, e, *k, mbit, path, len, m, allowed, term, probes);
        return CTRIE_NONE;
    }
    if (fits == 0) return CTRIE_NONE;
    if (only == first && (nd->nstatic & CTRIE_HAS_PARAM)) {
        m->params[(*k)++] = (rb_span){(uint32_t)pos, (uint32_t)(e - pos)};
    } else {
        if (only != tfirst + ntmpl - 1) /* a later failed match may have written */
            tmpl_takes(r, only, path, pos, e, m->params + *k);
        *k += rb__template_params(r->pool + r->edges[only].off, r->edges[only].len);
    }
    return only;
}

/* The walk below node `start` (see "Lookup" above), entered at pos with k
 * captures taken, never going up from start.  true: m->route_id and
 * m->nparams (and the captures) of the first fitting route, and in *term
 * its node, | 0x80000000 for the node's catch-all routes; false: none, and
 * *allowed has gained the methods of the routes that matched. */
CTRIE_INLINE bool ctrie_walk(const ctrie_router *r, uint32_t start, size_t pos, uint32_t k,
                             uint32_t mbit, const char *path, size_t len, rb_match *m,
                             uint32_t *allowed, uint32_t *term, uint64_t *probes)
{
    uint32_t node = start, slot, c;
    size_t e;
    uint64_t w;
    const ctrie_node *nd;

    /* The walk is a small state machine: `descend` enters node at pos with
     * nothing tried; `try_param` and `try_catch` resume a node after its
     * static (resp. param or template) branch failed; `up` backtracks to
     * the parent. */
descend:
    nd = &r->nodes[node];
    if (pos > len) { /* every segment consumed: routes ending here? */
        slot = method_slot(CTRIE_TMASK(nd), mbit);
        if (slot != CTRIE_NONE) {
            m->route_id = r->aux[nd->aux + CTRIE_SLOTS(nd) + slot];
            *term = node;
            goto found;
        }
        *allowed |= CTRIE_TMASK(nd);
        goto up;
    }
    e = scan_segment(path, len, pos, &w);
    if (CTRIE_NSTATIC(nd)) {
        c = find_static(r, nd, segment_fp(path, len, pos, e - pos, w), path, len, pos, e - pos,
                        probes);
        if (c != CTRIE_NONE) {
            node = c;
            pos += r->edges[c].len + 1u;
            goto descend;
        }
    }
try_param:
    if ((nd->masks & CTRIE_HAS_TMPL) && e > pos) { /* out of line: no cost without templates */
        bool got = false;
        c = ctrie_tmpl_step(r, node, pos, e, &k, mbit, path, len, m, allowed, term, probes, &got);
        if (got) return true;
        if (c == CTRIE_NONE) goto try_catch;
        node = c;
        pos = e + 1;
        goto descend;
    }
    if ((nd->nstatic & CTRIE_HAS_PARAM) && e > pos) {
        m->params[k++] = (rb_span){(uint32_t)pos, (uint32_t)(e - pos)};
        node = nd->first + CTRIE_NSTATIC(nd);
        pos = e + 1;
        goto descend;
    }
try_catch:
    if (CTRIE_CMASK(nd) && pos < len) {
        slot = method_slot(CTRIE_CMASK(nd), mbit);
        if (slot != CTRIE_NONE) {
            m->route_id = r->aux[nd->aux + CTRIE_SLOTS(nd) + popcount16(CTRIE_TMASK(nd)) + slot];
            m->params[k++] = (rb_span){(uint32_t)pos, (uint32_t)(len - pos)};
            *term = node | 0x80000000u;
            goto found;
        }
        *allowed |= CTRIE_CMASK(nd);
    }
up:
    if (node == start) return false;
    c = node;
    node = r->parent[c];
    nd = &r->nodes[node];
    {
        uint32_t first = nd->first + CTRIE_NSTATIC(nd);
        if (c >= first) { /* c was the param child or a template child */
            if (c == first && (nd->nstatic & CTRIE_HAS_PARAM)) {
                pos = m->params[--k].offset;
            } else {
                const char *t = r->pool + r->edges[c].off;
                k -= rb__template_params(t, r->edges[c].len);
                pos = m->params[k].offset - rb__template_prefix(t, r->edges[c].len);
            }
            goto try_catch;
        }
    }
    pos -= r->edges[c].len + 1u;
    e = segment_end(path, len, pos);
    goto try_param;
found:
    m->nparams = k;
    return true;
}

/* The priority key of the route a walk found at term for method mbit. */
static rb_priority term_key(const ctrie_router *r, uint32_t term, uint32_t mbit, uint32_t id)
{
    uint32_t node = term & 0x7FFFFFFFu, ca = term >> 31;
    const ctrie_node *nd = &r->nodes[node];
    const struct ctrie_key *key = &r->keys[node];
    uint32_t mask = ca ? CTRIE_CMASK(nd) : CTRIE_TMASK(nd);
    return (rb_priority){r->tranks + key->ranks, key->nranks + ca, !(mask & mbit), key->literal,
                         id};
}

/* Node g's param child and template children that take path[pos, e) (two
 * or more): the best route below them by the whole priority key, found by
 * a walk below each; returns as ctrie_walk.  Recursion: a level per such
 * place on the path, each taking a capture, at most RB_MAX_CAPTURES. */
static bool ctrie_group(const ctrie_router *r, uint32_t g, size_t pos, size_t e, uint32_t k,
                        uint32_t mbit, const char *path, size_t len, rb_match *m, uint32_t *allowed,
                        uint32_t *term, uint64_t *probes)
{
    const ctrie_node *nd = &r->nodes[g];
    uint32_t first = nd->first + CTRIE_NSTATIC(nd);
    uint32_t end = first + ((nd->nstatic & CTRIE_HAS_PARAM) ? 1u : 0u) + ctrie_ntmpl(r, g);
    uint32_t best_id = 0, best_np = 0, best_term = 0;
    bool have = false;
    rb_priority best = {0};
    rb_span caps[RB_MAX_CAPTURES];
    for (uint32_t c = first; c < end; c++) {
        uint32_t kk = k;
        if (c == first && (nd->nstatic & CTRIE_HAS_PARAM)) {
            m->params[kk++] = (rb_span){(uint32_t)pos, (uint32_t)(e - pos)};
        } else {
            if (!tmpl_takes(r, c, path, pos, e, m->params + k)) continue;
            kk += rb__template_params(r->pool + r->edges[c].off, r->edges[c].len);
        }
        uint32_t t;
        if (!ctrie_walk(r, c, e + 1, kk, mbit, path, len, m, allowed, &t, probes)) continue;
        rb_priority key = term_key(r, t, mbit, m->route_id);
        if (have && rb_priority_compare(&key, &best) >= 0) continue;
        have = true;
        best = key;
        best_id = m->route_id;
        best_np = m->nparams;
        best_term = t;
        memcpy(caps + k, m->params + k, (best_np - k) * sizeof caps[0]);
    }
    if (!have) return false;
    memcpy(m->params + k, caps + k, (best_np - k) * sizeof caps[0]);
    m->route_id = best_id;
    m->nparams = best_np;
    *term = best_term;
    return true;
}

CTRIE_INLINE int walk(const void *impl, int method, const char *path, size_t len, rb_match *m,
                      uint64_t *probes)
{
    const ctrie_router *r = impl;
    uint32_t allowed = 0, term;
    if (r->block && len > 0 && path[0] == '/' &&
        ctrie_walk(r, 0, 1, 0, 1u << method, path, len, m, &allowed, &term, probes)) {
        m->outcome = RB_FOUND;
        m->allowed = 0;
        return RB_FOUND;
    }
    allowed &= CTRIE_METHODS;
    m->outcome = allowed ? RB_METHOD_NOT_ALLOWED : RB_NOT_FOUND;
    m->nparams = 0;
    m->allowed = allowed;
    return m->outcome;
}

static int ctrie_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    return walk(impl, method, path, len, m, NULL);
}

int rb__ctrie_lookup_counted(const void *impl, int method, const char *path, size_t len,
                             rb_match *m, uint64_t *probes)
{
    if (method < 0 || method >= RB_METHOD_COUNT) method = 0;
    return walk(impl, method, path, len, m, probes);
}

/* ---- memory, destroy, describe ---------------------------------------------- */

static size_t ctrie_memory(const void *impl)
{
    const ctrie_router *r = impl;
    return sizeof *r + r->block_bytes + r->routes_cap * sizeof *r->routes +
           r->segs_cap * sizeof *r->segs + r->text_cap;
}

static void ctrie_destroy(void *impl)
{
    ctrie_router *r = impl;
    free_list(r);
    rb_free(r->allocator, r->block, r->block_bytes);
    rb_free(r->allocator, r, sizeof *r);
}

static const char *ctrie_describe(const void *impl)
{
    return ((const ctrie_router *)impl)->describe;
}

/* ---- the invariant check ------------------------------------------------------ */

/* Length of the first segment of an edge's bytes. */
static uint32_t first_segment_len(const char *key, uint32_t len)
{
    const char *slash = memchr(key, '/', len);
    return slash ? (uint32_t)(slash - key) : len;
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) return rb__error(err, RB_EINVAL, RB_NO_OFFSET, __VA_ARGS__);                  \
    } while (0)

/* Node x's static children, checked against the invariants. */
static int check_static_children(const ctrie_router *r, uint32_t x, rb__ctrie_stats *st,
                                 rb_error *err)
{
    const ctrie_node *nd = &r->nodes[x];
    uint32_t count = CTRIE_NSTATIC(nd);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t c = nd->first + i;
        ctrie_edge k = r->edges[c];
        CHECK(r->parent[c] == x, "node %u: parent[] is %u, not %u", c, r->parent[c], x);
        CHECK((uint64_t)k.off + k.len <= r->npool, "node %u: edge bytes outside the pool", c);
        const char *key = r->pool + k.off;
        uint32_t n1 = first_segment_len(key, k.len);
        CHECK(k.fp == fp_of(key, n1), "node %u: fingerprint is not that of '%.*s'", c, (int)n1,
              key);
        st->static_edges++;
        if (n1 < k.len) st->chain_edges++;
        const ctrie_node *cn = &r->nodes[c];
        CHECK(CTRIE_TMASK(cn) || CTRIE_CMASK(cn) || (cn->nstatic & CTRIE_HAS_PARAM) ||
                  (cn->masks & CTRIE_HAS_TMPL) || CTRIE_NSTATIC(cn) >= 2,
              "node %u ('%.*s'): a static chain was not collapsed", c, (int)k.len, key);
        if (i == 0) continue;
        ctrie_edge pk = r->edges[c - 1];
        const char *pkey = r->pool + pk.off;
        uint32_t p1 = first_segment_len(pkey, pk.len);
        int order = pk.fp != k.fp ? (pk.fp < k.fp ? -1 : 1)
                    : p1 != n1    ? (p1 < n1 ? -1 : 1)
                                  : memcmp(pkey, key, n1);
        CHECK(order < 0, "node %u: static children %u and %u are not strictly sorted", x, c - 1, c);
    }
    return RB_OK;
}

/* Node x's hash table: present exactly when it has more than
 * CTRIE_SORTED_MAX children; at most half full; every child in exactly one
 * slot, with its tag, within max_probe of its first slot. */
static int check_slots(const ctrie_router *r, uint32_t x, rb_error *err)
{
    const ctrie_node *nd = &r->nodes[x];
    uint32_t count = CTRIE_NSTATIC(nd), hb = CTRIE_HB(nd);
    bool want = count > CTRIE_SORTED_MAX;
    CHECK(want == (hb != 0) && hb <= 32u, "node %u: %u children, hash bits %u", x, count, hb);
    if (!hb) return RB_OK;
    uint32_t nslots = CTRIE_SLOTS(nd), used = 0;
    CHECK(nslots >= 2u * count, "node %u: %u slots for %u children", x, nslots, count);
    const uint32_t *slots = r->aux + nd->aux;
    for (uint32_t s = 0; s < nslots; s++) used += slots[s] != 0;
    CHECK(used == count, "node %u: %u slots used for %u children", x, used, count);
    for (uint32_t i = 0; i < count; i++) {
        ctrie_edge k = r->edges[nd->first + i];
        uint64_t h = child_key(r, nd->masks & CTRIE_SEGHASH, k.fp, r->pool + k.off,
                               first_segment_len(r->pool + k.off, k.len));
        uint32_t s = slot_of(h, hb - 1u), e = slot_entry(h, i, nslots - 1u), dist = 0;
        while (slots[s] && slots[s] != e) s = (s + 1u) & (nslots - 1u), dist++;
        CHECK(slots[s] == e && dist <= r->max_probe,
              "node %u: child %u is not within max_probe of its home slot", x, nd->first + i);
    }
    return RB_OK;
}

int rb__ctrie_check(const void *impl, rb__ctrie_stats *stats, rb_error *err)
{
    const ctrie_router *r = impl;
    if (!r->block) return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "ctrie: not built");
    rb__ctrie_stats st = {0};
    st.nodes = r->nnodes;
    st.block_bytes = r->block_bytes;
    st.pool_bytes = r->npool;
    size_t off[7];
    CHECK(block_layout(r->nnodes, r->naux, r->npool, r->nranks, off) == r->block_bytes,
          "block size does not match its counts");
    CHECK(!r->keys == !r->nranks, "keys without ranks, or ranks without keys");
    CHECK(r->nnodes >= 1 && r->parent[0] == CTRIE_NONE && r->edges[0].len == 0, "no root");
    CHECK(r->max_probe <= RB__PROBE_LIMIT, "max_probe %u over the limit", r->max_probe);
    uint32_t next_child = 1, next_aux = 0;
    for (uint32_t x = 0; x < r->nnodes; x++) {
        const ctrie_node *nd = &r->nodes[x];
        uint32_t nstatic = CTRIE_NSTATIC(nd);
        uint32_t has_param = (nd->nstatic & CTRIE_HAS_PARAM) ? 1u : 0u;
        uint32_t ntmpl = r->keys ? r->keys[x].ntmpl : 0u;
        uint32_t tmask = CTRIE_TMASK(nd), cmask = CTRIE_CMASK(nd);
        CHECK(nd->first == next_child, "node %u: children run starts at %u, expected %u", x,
              nd->first, next_child);
        CHECK((uint64_t)nd->first + nstatic + has_param + ntmpl <= r->nnodes,
              "node %u: children out of range", x);
        next_child += nstatic + has_param + ntmpl;
        CHECK(nd->masks >> 28 == 0 && (!(nd->masks & CTRIE_SEGHASH) || CTRIE_HB(nd)),
              "node %u: bad mask bits", x);
        CHECK(!(nd->masks & CTRIE_HAS_TMPL) == !ntmpl, "node %u: template bit and count differ", x);
        uint32_t nid = popcount16(tmask) + popcount16(cmask);
        CHECK(nid || nstatic || has_param || ntmpl || r->nnodes == 1, "node %u leads to no route",
              x);
        CHECK(!ntmpl || r->keys, "node %u: template children, but no priority keys", x);
        if (r->keys && nid) {
            const struct ctrie_key *k = &r->keys[x];
            CHECK((uint64_t)k->ranks + k->nranks + 1u <= r->nranks &&
                      r->tranks[k->ranks + k->nranks] == RB_SEG_CATCHALL,
                  "node %u: stored priority key out of its pool", x);
        }
        for (uint32_t t = 0; t < ntmpl; t++) {
            uint32_t c = nd->first + nstatic + has_param + t;
            ctrie_edge e = r->edges[c];
            CHECK(r->parent[c] == x, "node %u: parent[] is %u, not %u", c, r->parent[c], x);
            CHECK(e.fp == 0 && e.len > 0 && (uint64_t)e.off + e.len <= r->npool &&
                      rb__template_params(r->pool + e.off, e.len) > 0,
                  "template node %u: its shape is not in the pool", c);
            for (uint32_t u = 0; u < t; u++) {
                ctrie_edge o = r->edges[c - t + u];
                CHECK(!rb__template_same_shape(r->pool + o.off, o.len, r->pool + e.off, e.len),
                      "node %u: two template children of one shape", x);
            }
        }
        CHECK(nd->aux == next_aux, "node %u: aux run starts at %u, expected %u", x, nd->aux,
              next_aux);
        int rc = check_slots(r, x, err);
        if (rc < 0) return rc;
        CHECK((uint64_t)next_aux + CTRIE_SLOTS(nd) + nid <= r->naux, "node %u: aux out of range",
              x);
        next_aux += CTRIE_SLOTS(nd) + nid;
        rc = check_static_children(r, x, &st, err);
        if (rc < 0) return rc;
        if (has_param) {
            uint32_t c = nd->first + nstatic;
            CHECK(r->parent[c] == x, "node %u: parent[] is %u, not %u", c, r->parent[c], x);
            CHECK(r->edges[c].len == 0 && r->edges[c].fp == 0, "param node %u has a key", c);
            st.param_edges++;
        }
        st.hashed += CTRIE_HB(nd) != 0;
        st.slots += CTRIE_SLOTS(nd);
        st.routes += nid;
        st.terminals += tmask != 0;
        st.catchalls += cmask != 0;
    }
    CHECK(next_child == r->nnodes, "children runs cover %u nodes of %u", next_child, r->nnodes);
    CHECK(next_aux == r->naux, "aux runs cover %u entries of %u", next_aux, r->naux);
    if (stats) *stats = st;
    return RB_OK;
}

#undef CHECK

static int ctrie_check(const void *impl, rb_error *err)
{
    return rb__ctrie_check(impl, NULL, err);
}

const rb_router_ops rb__ctrie_ops = {
    .abi_version = RB_ROUTER_ABI_VERSION,
    .name = "ctrie",
    .summary = "compiled segment trie in one compact block: sorted fingerprints, collapsed chains",
    .features = RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_TEMPLATE,
    .create = ctrie_create,
    .add = ctrie_add,
    .build = ctrie_build,
    .lookup = ctrie_lookup,
    .memory = ctrie_memory,
    .destroy = ctrie_destroy,
    .describe = ctrie_describe,
    .check = ctrie_check,
};
