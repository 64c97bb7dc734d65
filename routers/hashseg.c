/*
 * hashseg.c — hashed segments: static routes in one whole-path hash table,
 * the other routes in a tree whose static edges live in one open-addressing
 * table keyed by hashes of the pattern's shape prefix.
 *
 * What it is for: the fastest lookup of the built-in routers on tables of
 * static, param, template and catch-all routes.
 *
 *   (a) Every purely static route is in full[], keyed by XXH3 of its whole
 *       path (seeded).  A static pattern ranks first wherever it matches, so
 *       one probe answers every request for a static route whose method
 *       fits; when its methods do not fit, they join the 405 mask and the
 *       tree decides (a param or catch-all route may fit).  A bit per
 *       static path length (mod 64) and, with over HASHSEG_FILTER_FROM =
 *       128 static paths and a tree, a filter of their lengths and last 8
 *       bytes (8 bits a path) let most other requests skip the probe.
 *   (b) The routes with a param, a template or a catch-all form a tree.  A
 *       node stands for a shape prefix (static segments, "{}" params and
 *       template shapes such as "{}.json"); its key is a hash chain
 *
 *           key(root)       = R
 *           key(child "s")  = H(key(parent), s)      static edge
 *           key(child "{}") = P(key(parent))         param edge
 *           key(child "t")  = T(key(parent), shape)  template edge
 *
 *       with R, H and P derived from config->seed.  The slot a lookup
 *       probes for the static child at depth d thus depends only on the
 *       request bytes and the static/param choices above it, never on data
 *       loaded from the table, so the probes of successive levels can be in
 *       flight together.  Static children are found through slots[]
 *       (verified by parent, length and bytes, never by the hash alone);
 *       the param child by index; the template children of a node are a
 *       run of tmpls[] (their shapes, for rb__template_match, tmplseg.c;
 *       one-param shapes compared as two pieces, and their keys); catch-all
 *       routes hang on their node.
 *
 * The example route set shared by every router file, as hashseg holds it:
 *
 *     full[] (static routes)              nodes[] (tree; #n = index)
 *     [XXH3(/users)   ] GET:0             #0 root
 *     [XXH3(/users/me)] GET:2              +- "users"  #1
 *                                          |   +- {}  #2  end GET:1
 *     slots[] (static edges: tag:node)     |       +- "posts" #3  end POST:3
 *     [H(R, users)          ] -> #1        +- "static" #4  catch-all GET:4
 *     [H(P(H(R,users)),posts)] -> #3
 *     [H(R, static)         ] -> #4
 *
 *     GET /users/me    full[] hit, GET fits: route 2 (no walk)
 *     GET /users/7     full[] miss; walk: root -"users"-> #1 -{}-> #2
 *                      (span "7"), end GET: route 1
 *     PUT /users/me    full[] hit, GET does not fit: mask {GET}; walk to
 *                      #2 (span "me"), GET does not fit: 405 {GET}
 *     GET /static/a/b  walk: root -"static"-> #4, catch-all "a/b": route 4
 *
 * Layout.  A node (hashseg_node) is 32 bytes, 32-byte aligned: the static
 * edge into it (its segment's first 16 bytes as two zero-padded
 * little-endian words, or, for a segment over 16 bytes, its first 8 and
 * its length and place in the pool; its length; its parent), flags,
 * captures so far, the param child's index, and a one-byte filter of its
 * static children's lengths (mod 8); a template node keeps its shape's
 * length and place in the pool where a long segment does.  terms[] is parallel to nodes[] (so a
 * lookup loads a node's terminal without waiting for the node): terms[n]
 * holds two groups, routes ending at node n and catch-all routes
 * "n/{*x}", each a method mask (bit RB_ANY = "*"), and the index in ids[]
 * of the end group's first id, the catch-all group following it; a group's
 * ids are in method order, "*" last, so method m's route is at
 * popcount(mask below m).  A slot of slots[] (the static edges) is 4 bytes:
 * the node's index in its low node_bits bits, the key's high bits above
 * them as a tag (a probe tries the home slot on its own, then loops).  A
 * full[] entry is 16 bytes: tag, mask, length, pool offset of the path,
 * first id (for a path with one route, flagged HASHSEG_FULL_ONE in the
 * mask, that route's id itself, so that a hit loads no line of ids[], as
 * the floor's slot holds its ids); full[] has two homes per static path (a
 * key's home is its low 32 bits times the homes, high half) and
 * RB_HASHSEG_PROBE_LIMIT + 1 slots more, so that no probe wraps; over 256
 * homes the filter's words (4 bits a home) follow them in one block.
 *
 * Lookup reads the path 16 bytes at a time: a bitmap of its slashes (one
 * SSE2 compare per block, or the portable word-at-a-time version:
 * bytescan.h), one word for paths under 64 bytes, four under
 * HASHSEG_BITMAP_LEN = 256, and longer paths scanned segment by segment;
 * each segment's first 16 bytes as masked words, for hashing and for
 * comparing with a node in one go.  Nothing past the end of the path is
 * ever read: words are loaded from inside the path, under 64 bytes the
 * last ones from a zero-padded copy of the last 16 bytes (a path under 16
 * bytes is gathered from overlapping loads), from 64 to 255 bytes from the
 * last 16 bytes of the path itself, shifted down (copying the path first
 * measured slower: loads of bytes just stored wait for the stores).  The
 * walk is depth first: static child, then param child and template
 * children, then catch-all, backtracking on dead ends through parent links, the slash before the
 * current segment, and the keys of the nodes left by a static step (only
 * they are gone back to for their param child, which needs the key; kept
 * on the lookup's stack for the first HASHSEG_KEY_STACK = 64 depths,
 * deeper ones in deep_keys[], which exists only when a pattern is that
 * deep), so
 * patterns may be any depth.  That order is the priority order (ranks left
 * to right, a dead end never ranking), so the first terminal that fits the
 * method wins; when none does, the walk has seen every matching terminal
 * and the union of their masks is the 405 mask.  Within one terminal the
 * routes differ only by method (one shape), so "specific before '*'" is
 * all that is left of the priority key there, and literal bytes and ids
 * never need comparing.
 *
 * Templates rank as params (1): when the param child and templates of a
 * node, or two templates, take one segment, the routes below them are
 * ordered by the later segments' ranks, then the method, then literal
 * bytes (/f/{id}.json beats /f/{id} on /f/7.json; /f/{id}/x beats
 * /f/{id}.json/{y} on /f/1.json/x).  So the walk searches below each of
 * them (group_best: a walk that does not go back above the child, one
 * recursion level per such place on the path, at most RB_MAX_CAPTURES;
 * at the last segment only the children's own routes, without a walk)
 * and keeps the smallest key, from tkeys[] (each terminal's ranks and
 * literal bytes, kept only for tables with templates).  When exactly one
 * of them takes the segment it is walked like a lone param.  The template
 * step is out of line (tmpl_step), so a table without templates pays one
 * flag test a node.
 *
 * Cost: lookup O(L + S) plus O(1) expected probes per static edge and the
 * backtracking a route set forces (bounded by the tree nodes the path can
 * reach; one rb__template_match a template child tried); a probe
 * sequence is at most max_probe + 1 <= RB_HASHSEG_PROBE_LIMIT + 1 slots.
 * Build O(pattern bytes + N).  Memory: per static tree
 * node 16 to 32 bytes of slots (load <= 1/4: collisions cost lookups more
 * than the bytes), per tree node 32 (node) + 8 (terminal), per static path
 * 32 of full[] (load 1/2) and its bytes (and 1 of filter over 128 static
 * paths), 4 per route id, long segments;
 * with templates, 48 per template child and its shape, 20 per tree node
 * (tranges[], tkeys[]) and the ranks of every terminal.
 *
 * Invariants (hashseg_check):
 *   - nodes[0] is the root; every other node's parent has a lower index,
 *     and every node leads to a route (a terminal or a child);
 *   - a static node's words and length match its bytes, and it is in
 *     slots[] exactly once, under its key's tag, within max_probe of its
 *     key's home slot, and found first there for its bytes (no two static
 *     children of one parent have the same bytes); a node has HAS_STATIC
 *     iff it has a static child, and its length filter is exact; node_bits
 *     holds every node index;
 *   - deep_keys[], when there is one, holds what the hash chain gives for
 *     every node;
 *   - a param node is its parent's param child; ncap counts the captures
 *     (params, template params) on the path from the root; no static route
 *     ends in the tree, and no route at the root;
 *   - a template node is in its parent's run of tmpls[] under its key, with
 *     its shape in the pool, no two of one shape in a run; a node has
 *     HAS_TMPL iff it has a run; with templates, each terminal's stored key
 *     is its path's;
 *   - terms[n] agrees with node n's flags; every full[] entry is within
 *     max_probe of its home slot (after it, never wrapping), unique, and
 *     its path is in the pool; the groups of the tree and of full[] hold
 *     every route id exactly once;
 *   - max_probe <= RB_HASHSEG_PROBE_LIMIT.
 *
 * What build changes: add() only copies patterns (text, segment kinds and
 * offsets); build() makes full[], the tree, slots[], terms[], ids[] and the
 * pool, then frees the add-time arrays (it sorts by counting, with no
 * qsort: glibc's qsort may call malloc).  Hash flooding: every key is
 * seeded by rb_config.seed (random per router unless the caller gives one),
 * and when a probe sequence would exceed RB_HASHSEG_PROBE_LIMIT, build
 * doubles that table (up to 4 times); if that is not enough it re-seeds
 * every key (rb__seed_mix of the seed, up to RB__RESEEDS times, seed.h) and
 * builds again, and only then fails with RB_ELIMIT, so lookups never pay
 * for long chains and a table crafted against one seed still builds.
 * describe() says when a re-seed was needed.  A failed build leaves the
 * router as it was (it can be built again, or destroyed).
 *
 * Thread safety: after build, lookup only reads; concurrent lookups are safe.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "bytescan.h"
#include "hashseg.h"
#include "rng.h"
#include "seed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASHSEG_MAX_GROW 4u /* table doublings tried against long probes */
_Static_assert(RB_HASHSEG_PROBE_LIMIT == RB__PROBE_LIMIT, "one probe limit for every table");
#define HASHSEG_LONG         17u /* node seglen of every segment over 16 bytes */
#define HASHSEG_ANY_BIT      (1u << RB_ANY)
#define HASHSEG_METHODS      ((1u << RB_METHOD_COUNT) - 1u)
#define HASHSEG_HAS_STATIC   0x1u  /* the node has static children */
#define HASHSEG_HAS_END      0x2u  /* routes end at the node */
#define HASHSEG_HAS_CA       0x4u  /* catch-all routes "node/{*x}" */
#define HASHSEG_PARAM        0x8u  /* the node is a param child */
#define HASHSEG_HAS_TMPL     0x10u /* the node has template children */
#define HASHSEG_TMPL         0x20u /* the node is a template child */
#define HASHSEG_ONE_END      0x40u /* one route ends at the node, no catch-all: terms[].ids is its id */
#define HASHSEG_FULL_ONE     0x8000u /* full[] mask: one route, id is its route id */
#define HASHSEG_DEFAULT_SEED 0x6861736873656721ull
#define HASHSEG_BITMAP_LEN   256u /* paths shorter than this: a bitmap of their slashes */
#define HASHSEG_KEY_STACK    64u  /* depths whose keys a lookup keeps; deeper: deep_keys[] */
/* full[] has any number of homes (reduced by a multiply, not a mask) and
 * this many more slots, so that probing from the last home never wraps */
#define HASHSEG_FULL_PAD (RB_HASHSEG_PROBE_LIMIT + 1u)
/* Lookups test full[]'s filter when there are more static paths than this
 * (where the 64-bit length filter has most of its bits set; below it the
 * filter's instructions cost more than the probes it saves) and a tree:
 * without one, requests are mostly for static routes, and pass it. */
#define HASHSEG_FILTER_FROM 128u
#define HASHSEG_ONE         0 /* walk modes: len < 64, a one-word bitmap */
#define HASHSEG_MANY        1 /* len < HASHSEG_BITMAP_LEN: several words */
#define HASHSEG_SCAN        2 /* longer: scanned segment by segment */

/* A tree node: 32 bytes, 32-byte aligned, so one cache line holds it. */
typedef struct hashseg_node {
    uint64_t w0, w1; /* static edge: first 16 bytes of the segment, zero padded */
    uint32_t parent; /* index of the parent (the root: 0) */
    uint8_t seglen;  /* static edge: segment length, HASHSEG_LONG when over 16 */
    uint8_t
        flags; /* HASHSEG_HAS_STATIC | _HAS_END | _HAS_CA | _HAS_TMPL | _PARAM | _TMPL | _ONE_END */
    uint8_t ncap;   /* captures (params, template params) on the path from the root */
    uint8_t lens;   /* bit len % 8 set for the length of each static child */
    uint32_t param; /* index of the param child, 0 = none */
    uint32_t unused;
} hashseg_node;

/* The routes ending at a node, and its catch-all routes.  A mask has bit m
 * for method m, bit RB_ANY for "*"; the matching first field is the index
 * of the group's first route id in ids[] (in method order, "*" last). */
typedef struct hashseg_term {
    uint16_t end_mask, ca_mask;
    uint32_t ids; /* the end group's first id; the catch-all group's follows it */
} hashseg_term;

/* A static route in the whole-path table; mask 0: an empty slot. */
typedef struct hashseg_full {
    uint16_t tag;  /* bits 48..63 of the (masked) key */
    uint16_t mask; /* methods, as in hashseg_term; | HASHSEG_FULL_ONE: one route */
    uint32_t len;  /* of the path */
    uint32_t text; /* pool offset of the path */
    uint32_t id;   /* index of the first route id in ids[], as in hashseg_term;
                    * with HASHSEG_FULL_ONE the route id itself */
} hashseg_full;

/* A template child: the node, its key, its shape in the pool ("{}.json"),
 * its params.  The template children of one node are one run of tmpls[]
 * (tranges[node]).  One param: the bytes before it (pre) and after it
 * (suf), and the first 8 of each packed little-endian, for a match without
 * the general matcher ({Sid}.json: suf 5, ".json"). */
typedef struct hashseg_tmpl {
    uint64_t key;
    uint32_t node;
    uint32_t text, len;
    uint32_t params;
    uint32_t pre, suf;
    uint64_t prew, sufw;
} hashseg_tmpl;

typedef struct hashseg_trange {
    uint32_t first, count;
} hashseg_trange;

/* The priority key of node n's routes (one shape per group): the ranks of
 * its path, then 4 for its catch-all group (tranks[ranks, ranks + nranks +
 * 1)), and its literal bytes.  Kept only with templates, parallel to
 * nodes[]. */
typedef struct hashseg_tkey {
    uint32_t ranks, nranks, literal;
} hashseg_tkey;

typedef struct hashseg_keys {
    uint64_t seed;   /* config->seed, or the default */
    uint64_t k0, k1; /* static edges */
    uint64_t c0;     /* param edges */
    uint64_t root;   /* key of the root */
    uint64_t param;  /* param edges (odd) */
} hashseg_keys;

/* Add-time storage: the patterns, until build. */
typedef struct hashseg_route {
    uint32_t text, len;  /* pattern bytes in bytes[] */
    uint32_t seg, nsegs; /* its segments in segs[] */
    uint32_t id;
    int method;
} hashseg_route;

typedef struct hashseg_seg {
    uint32_t off, len; /* static: its bytes (offset in the pattern) */
    uint32_t kind;     /* rb_seg_kind */
} hashseg_seg;

typedef struct hashseg_router {
    /* read by lookups */
    const hashseg_node *nodes;
    const uint32_t *slots; /* static edges: tag << node_bits | node; 0 = empty */
    const hashseg_full *full;
    const hashseg_term *terms;
    const uint32_t *ids;
    const uint64_t *deep_keys; /* key of each node, when a node is HASHSEG_KEY_STACK deep */
    const char *pool;
    /* templates (all NULL without): */
    const hashseg_tmpl *tmpls;
    const hashseg_trange *tranges; /* per node */
    const hashseg_tkey *tkeys;     /* per node */
    const uint8_t *tranks;
    uint64_t slot_mask;
    uint32_t node_bits;          /* of a slot: the node index; the rest is the tag */
    uint32_t node_mask;          /* (1 << node_bits) - 1 */
    uint64_t hash_mask;          /* all ones, unless a test narrows the hashes */
    uint32_t max_probe;          /* longest displacement in slots[] and full[] */
    uint64_t full_lens;          /* bit len % 64 set when a static route is len bytes long */
    const uint64_t *full_filter; /* bit filter_index(path) set for every static path */
    uint32_t filter_shift;       /* 64 - log2 of the filter's bits */
    uint32_t filter_on;          /* a filter (full_filter_bits) and a tree: lookups test it */
    uint32_t built;
    uint32_t reseeds; /* re-seeds the build needed (describe says why) */
    hashseg_keys keys;
    char desc[160];

    const rb_allocator *a;
    /* add time */
    hashseg_route *routes;
    size_t nroutes, routes_cap;
    hashseg_seg *segs;
    size_t nsegs, segs_cap;
    char *bytes;
    size_t nbytes, bytes_cap;
    /* built: allocation sizes (element counts) */
    void *nodes_raw; /* nodes, before alignment */
    size_t nnodes, nslots, nterms, nids, npool;
    size_t nfull;           /* homes of full[]; it holds HASHSEG_FULL_PAD more slots */
    size_t ntmpls, ntranks; /* 0 without templates */
} hashseg_router;
/* ---- bit helpers -------------------------------------------------------- */

static inline uint64_t load64le(const void *p)
{
    return rb__load64le(p);
}

static inline unsigned ctz64(uint64_t x)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(x);
#else
    unsigned n = 0;
    while (!(x & 1u)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

static inline unsigned clz64(uint64_t x)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_clzll(x);
#else
    unsigned n = 0;
    while (!(x & (1ull << 63))) {
        x <<= 1;
        n++;
    }
    return n;
#endif
}

/* Bits set in a method mask (at most 10 bits). */
static inline unsigned popcount16(uint32_t x);

/* popcount of every 10-bit method mask (RB_ANY is bit 9). */
static const uint8_t popcount10[1024] = {
#define HASHSEG_P2(n) n, n + 1, n + 1, n + 2
#define HASHSEG_P4(n) HASHSEG_P2(n), HASHSEG_P2(n + 1), HASHSEG_P2(n + 1), HASHSEG_P2(n + 2)
#define HASHSEG_P6(n) HASHSEG_P4(n), HASHSEG_P4(n + 1), HASHSEG_P4(n + 1), HASHSEG_P4(n + 2)
#define HASHSEG_P8(n) HASHSEG_P6(n), HASHSEG_P6(n + 1), HASHSEG_P6(n + 1), HASHSEG_P6(n + 2)
    HASHSEG_P8(0),
    HASHSEG_P8(1),
    HASHSEG_P8(1),
    HASHSEG_P8(2),
#undef HASHSEG_P8
#undef HASHSEG_P6
#undef HASHSEG_P4
#undef HASHSEG_P2
};

static inline unsigned popcount16(uint32_t x)
{
    x = x - ((x >> 1) & 0x5555u);
    x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
    x = (x + (x >> 4)) & 0x0f0fu;
    return (x + (x >> 8)) & 0x1fu;
}

/* Masks keeping the first n bytes of w0 and w1, n = 0..16. */
static const uint64_t mask_lo[17] = {
    0x0ull,
    0xffull,
    0xffffull,
    0xffffffull,
    0xffffffffull,
    0xffffffffffull,
    0xffffffffffffull,
    0xffffffffffffffull,
    ~0ull,
    ~0ull,
    ~0ull,
    ~0ull,
    ~0ull,
    ~0ull,
    ~0ull,
    ~0ull,
    ~0ull,
};
static const uint64_t mask_hi[17] = {
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0xffull,
    0xffffull,
    0xffffffull,
    0xffffffffull,
    0xffffffffffull,
    0xffffffffffffull,
    0xffffffffffffffull,
    ~0ull,
};

/* ---- hashes ------------------------------------------------------------- */

static void keys_init(hashseg_keys *k, uint64_t seed)
{
    k->seed = seed ? seed : HASHSEG_DEFAULT_SEED;
    uint64_t x = k->seed;
    k->k0 = rb_splitmix64(&x);
    k->k1 = rb_splitmix64(&x);
    k->c0 = rb_splitmix64(&x);
    k->root = rb_splitmix64(&x);
    k->param = rb_splitmix64(&x) | 1u;
}

/* The key of the static child `seg` of a node whose key is h.  w0, w1 are
 * the segment's first 16 bytes, masked; a longer segment is hashed whole
 * by XXH3, seeded with h.  One multiply a level for short segments. */
static inline uint64_t static_key(const hashseg_keys *k, uint64_t h, uint64_t w0, uint64_t w1,
                                  const char *seg, size_t n)
{
    if (n <= 16) return rb__fold64((w0 ^ k->k0) + h, (w1 ^ k->k1) + n);
    return XXH3_64bits_withSeed(seg, n, h ^ k->seed);
}

/* The key of the param child of a node whose key is h. */
static inline uint64_t param_key(const hashseg_keys *k, uint64_t h)
{
    return rb__fold64(h ^ k->c0, k->param);
}

/* The key of the template child of shape hash t of a node whose key is h. */
static inline uint64_t tmpl_key(const hashseg_keys *k, uint64_t h, uint64_t t)
{
    return rb__fold64((h ^ k->c0) + t, k->param ^ k->k1);
}

/* ---- lookup ------------------------------------------------------------- */

/* Where to load 16 bytes at off (<= len) from: the path itself when they
 * are inside it, else the zero-padded copy of its last bytes (tail holds
 * path[tb, len) then zeros, 32 bytes in all), so no load passes the end. */
static inline const unsigned char *src16(const char *path, size_t len, const unsigned char *tail,
                                         size_t tb, size_t off)
{
    /* a select (a conditional move, no branch): which source depends on
     * the request */
    uintptr_t in_path = (uintptr_t)path + off, in_tail = (uintptr_t)tail + (off - tb);
    return (const unsigned char *)(off + 16 > len ? in_tail : in_path);
}

/* Bit 8i+7 set where byte i of w is '/'.  Exact for the lowest such byte
 * (a borrow only ever flags bytes above a real match), and zero exactly
 * when w has no '/': all that finding a segment's end needs. */
static inline uint64_t slashes(uint64_t w)
{
    uint64_t x = w ^ 0x2f2f2f2f2f2f2f2full;
    return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}

/* The path segment starting at b (<= len): returns its end (the index of
 * the next '/', or len) and its first 16 bytes as masked words. */
static inline size_t segment_at(const char *path, size_t len, const unsigned char *tail, size_t tb,
                                size_t b, uint64_t *w0, uint64_t *w1)
{
    const unsigned char *p = src16(path, len, tail, tb, b);
    uint64_t r0 = load64le(p), r1 = load64le(p + 8);
    /* one bit per byte, bit 16 a sentinel: the first set bit is the end */
    uint64_t m = ((slashes(r0) >> 7) * 0x0102040810204080ull) >> 56 |
                 ((slashes(r1) >> 7) * 0x0102040810204080ull) >> 56 << 8 | 0x10000u;
    size_t n = ctz64(m);
    if (n > len - b) n = len - b;
    *w0 = r0 & mask_lo[n];
    *w1 = r1 & mask_hi[n];
    if (n == 16 && b + 16 < len) {
        const char *slash = memchr(path + b + 16, '/', len - b - 16);
        return slash ? (size_t)(slash - path) : len;
    }
    return b + n;
}

/* Bit i set where byte i of w is '/', exact (no borrows). */
static inline uint64_t slash_bits(uint64_t w)
{
    return rb__gather_top_bits(rb__zero_bytes(w ^ 0x2f2f2f2f2f2f2f2full));
}

/* Bit i set when path[i] is '/', for a path under 64 bytes, plus a
 * sentinel bit at len; a path under 16 bytes is (t1:t0) (short_words). */
static inline uint64_t slash_word(const char *path, size_t len, uint64_t t0, uint64_t t1)
{
    if (len < 16)                                                  /* (t1:t0) is the whole path */
        return slash_bits(t0) | slash_bits(t1) << 8 | 1ull << len; /* exact: every '/' */
    /* 16-byte blocks at 0, 16, 32 (those inside the path) and the block
     * that ends at len, shifted into place: no loop */
    const unsigned char *p = (const unsigned char *)path;
    uint64_t bits = (uint64_t)rb__slash16(p);
    if (len >= 32) bits |= (uint64_t)rb__slash16(p + 16) << 16;
    if (len >= 48) bits |= (uint64_t)rb__slash16(p + 32) << 32;
    bits |= (uint64_t)rb__slash16(p + len - 16) << (len - 16);
    return bits | 1ull << len;
}

/* sl[i / 64] bit i % 64 set when path[i] is '/', for a path of 64 <= len
 * < HASHSEG_BITMAP_LEN bytes, plus a sentinel bit at len: the 16-byte
 * blocks inside the path, then the block that ends at len, shifted into
 * place.  Every word up to len / 64 is written. */
static inline void slash_words(const char *path, size_t len, uint64_t *sl)
{
    const unsigned char *p = (const unsigned char *)path;
    for (size_t i = 0; i <= len / 64; i++) sl[i] = 0;
    size_t off = 0;
    for (; off + 16 <= len; off += 16) sl[off / 64] |= (uint64_t)rb__slash16(p + off) << (off % 64);
    if (off < len) {
        uint64_t bits = (uint64_t)rb__slash16(p + len - 16) >> (off + 16 - len);
        sl[off / 64] |= bits << (off % 64);
    }
    sl[len / 64] |= 1ull << (len % 64);
}

/* (hi:lo) >> bits, 0 <= bits < 128. */
static inline void shr128(uint64_t *lo, uint64_t *hi, unsigned bits)
{
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 u128;
    u128 v = ((u128)*hi << 64 | *lo) >> bits;
    *lo = (uint64_t)v;
    *hi = (uint64_t)(v >> 64);
#else
    if (bits >= 64) {
        *lo = *hi >> (bits - 64);
        *hi = 0;
    } else if (bits) {
        *lo = *lo >> bits | *hi << (64 - bits);
        *hi >>= bits;
    }
#endif
}

/* The first 16 bytes of the segment path[b, b + n) (b <= len, len >= 16)
 * as masked words, from loads inside the path: the 16 bytes at b, or near
 * the end the last 16 shifted down. */
static inline void words_at(const char *path, size_t len, size_t b, size_t n, uint64_t *w0,
                            uint64_t *w1)
{
    if (b >= len) { /* the empty segment after a trailing '/' */
        *w0 = *w1 = 0;
        return;
    }
    size_t at = b + 16 <= len ? b : len - 16; /* b - at < 16 */
    uint64_t lo = load64le(path + at), hi = load64le(path + at + 8);
    shr128(&lo, &hi, (unsigned)(8 * (b - at)));
    size_t c = n < 16 ? n : 16;
    *w0 = lo & mask_lo[c];
    *w1 = hi & mask_hi[c];
}

/* A path under 16 bytes as two words, zero padded, from loads inside it. */
static inline void short_words(const char *path, size_t len, uint64_t *t0, uint64_t *t1)
{
    uint64_t lo = 0, hi = 0;
    if (len >= 8) {
        lo = load64le(path);
        hi = len > 8 ? load64le(path + len - 8) >> (8 * (16 - len)) : 0;
    } else if (len >= 4) {
        uint32_t a, z;
        memcpy(&a, path, 4);
        memcpy(&z, path + len - 4, 4);
        lo = (uint64_t)a | (uint64_t)z << (8 * (len - 4));
    } else if (len > 0) {
        lo = (uint64_t)(unsigned char)path[0] |
             (uint64_t)(unsigned char)path[len >> 1] << (8 * (len >> 1)) |
             (uint64_t)(unsigned char)path[len - 1] << (8 * (len - 1));
    }
    *t0 = lo;
    *t1 = hi;
}

/* The first '/' at or after b (the sentinel at len when there is none). */
static inline size_t next_slash(const uint64_t *sl, size_t b)
{
    size_t i = b >> 6;
    uint64_t w = sl[i] & (~0ull << (b & 63u));
    while (!w) w = sl[++i];
    return i * 64 + ctz64(w);
}

/* The last '/' before e (0 < e; path[0] is '/'). */
static inline size_t prev_slash(const uint64_t *sl, size_t e)
{
    size_t i = (e - 1) >> 6;
    uint64_t w = sl[i] & (~0ull >> (63u - ((e - 1) & 63u)));
    while (!w) w = sl[--i];
    return i * 64 + 63 - clz64(w);
}

/* The first 16 bytes of the segment at b, n bytes long, as masked words,
 * from p: the segment's first byte in a block that holds at least 16 bytes
 * from it. */
static inline void segment_words(const unsigned char *p, size_t n, uint64_t *w0, uint64_t *w1)
{
    size_t c = n < 16 ? n : 16;
    *w0 = load64le(p) & mask_lo[c];
    *w1 = load64le(p + 8) & mask_hi[c];
}

#if defined(__GNUC__)
#define HASHSEG_INLINE static inline __attribute__((always_inline))
#else
#define HASHSEG_INLINE static inline
#endif

/* The node reached from parent by a static edge with the request segment
 * (w0, w1 its first bytes, n its length), or 0. */
/* a[0, n) == b[0, n): the XOR of the first and the last 16 bytes (each as
 * two words; overlapping when n < 32), and of the 16-byte blocks between
 * them; under 16 bytes, of overlapping words.  No branch on the length
 * but its class (a loop only past 32 bytes), so that comparing paths of
 * many lengths is not a loop exit mispredicted a lookup. */
static inline bool bytes_equal(const char *a, const char *b, size_t n)
{
    if (n >= 16) {
        uint64_t d = (load64le(a) ^ load64le(b)) | (load64le(a + 8) ^ load64le(b + 8)) |
                     (load64le(a + n - 16) ^ load64le(b + n - 16)) |
                     (load64le(a + n - 8) ^ load64le(b + n - 8));
        for (size_t i = 16; d == 0 && i + 16 < n; i += 16)
            d = (load64le(a + i) ^ load64le(b + i)) | (load64le(a + i + 8) ^ load64le(b + i + 8));
        return d == 0;
    }
    if (n >= 8)
        return ((load64le(a) ^ load64le(b)) | (load64le(a + n - 8) ^ load64le(b + n - 8))) == 0;
    if (n >= 4) {
        uint32_t a0, a1, b0, b1;
        memcpy(&a0, a, 4);
        memcpy(&a1, a + n - 4, 4);
        memcpy(&b0, b, 4);
        memcpy(&b1, b + n - 4, 4);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    uint32_t d = 0;
    for (size_t i = 0; i < n; i++) d |= (uint32_t)((unsigned char)a[i] ^ (unsigned char)b[i]);
    return d == 0;
}

/* a[0, n) == b[0, n) for a whole path (a static route's): bytes_equal,
 * but from 16 to 64 bytes as four 16-byte blocks, overlapping (the first
 * and last 16 bytes, and the 16 after the first and before the last, or
 * the same two again under 32 bytes), in place of its loop: the lengths of
 * requested paths vary, and a loop's exit that depends on them is
 * mispredicted. */
static inline bool path_equal(const char *a, const char *b, size_t n)
{
    if (n < 16 || n > 64) return bytes_equal(a, b, n);
    size_t m = n >= 32 ? 16 : 0;
    const size_t at[4] = {0, m, n - 16 - m, n - 16};
    return rb__equal16x4((const unsigned char *)a, (const unsigned char *)b, at);
}

/* The long static segment of node x (w0 its first 8 bytes, w1 its length
 * and place in the pool) is seg[0, n), given that their first 8 bytes are
 * equal? */
static inline bool long_equal(const hashseg_router *r, const hashseg_node *x, const char *seg,
                              size_t n)
{
    return (x->w1 >> 32) == n && bytes_equal(r->pool + (uint32_t)x->w1 + 8, seg + 8, n - 8);
}

/* The slot of static node c under key k (after hash_mask): its index in
 * the low node_bits bits, the key's high bits above them (a tag of 32 -
 * node_bits bits; a match is then checked against the node). */
static inline uint32_t slot_of(uint64_t k, uint32_t node_bits, uint32_t c)
{
    return (uint32_t)(k >> 32) >> node_bits << node_bits | c;
}

/* Is node x the static edge (parent, the segment seg[0, n), w0 and w1 its
 * first 16 bytes masked, n8 its node length)? */
HASHSEG_INLINE bool edge_is(const hashseg_router *r, const hashseg_node *x, uint32_t parent,
                            uint32_t n8, uint64_t w0, uint64_t w1, const char *seg, uint32_t n)
{
    return x->parent == parent && x->seglen == n8 && x->w0 == w0 &&
           (n <= 16 ? x->w1 == w1 : long_equal(r, x, seg, n));
}

/* probe_segment past its home slot (a displaced edge or a tag collision).
 * The home slot is tried first on its own: the common case (found, or
 * absent, at home) then needs no loop counter (measured out of line too:
 * 1% fewer instructions, but up to 4% slower on the 10k tables). */
static inline uint32_t probe_rest(const hashseg_router *r, uint64_t k, uint32_t parent, uint64_t w0,
                                  uint64_t w1, const char *seg, uint32_t n, uint64_t *probes)
{
    uint32_t want = (uint32_t)(k >> 32), cmask = r->node_mask;
    uint32_t n8 = n <= 16 ? n : HASHSEG_LONG;
    for (uint32_t i = 1; i <= r->max_probe; i++) {
        uint32_t slot = r->slots[(k + i) & r->slot_mask];
        if (probes) ++*probes;
        uint32_t c = slot & cmask;
        if (c == 0) return 0;
        if ((slot ^ want) > cmask) continue;
        if (edge_is(r, &r->nodes[c], parent, n8, w0, w1, seg, n)) return c;
    }
    return 0;
}

HASHSEG_INLINE uint32_t probe_segment(const hashseg_router *r, uint64_t key, uint32_t parent,
                                      uint64_t w0, uint64_t w1, const char *seg, uint32_t n,
                                      uint64_t *probes)
{
    uint64_t k = key & r->hash_mask;
    /* a slot's tag is want's bits above cmask: (slot ^ want) > cmask iff
     * they differ there, whatever want's low bits */
    uint32_t want = (uint32_t)(k >> 32), cmask = r->node_mask;
    uint32_t slot = r->slots[k & r->slot_mask];
    if (probes) ++*probes;
    uint32_t c = slot & cmask;
    if (c == 0) return 0;
    if ((slot ^ want) <= cmask &&
        edge_is(r, &r->nodes[c], parent, n <= 16 ? n : HASHSEG_LONG, w0, w1, seg, n))
        return c;
    return probe_rest(r, k, parent, w0, w1, seg, n, probes);
}

/* The bit of path[0, len) in full[]'s filter (64 >> shift bits): its
 * length and last 8 bytes (the last byte when shorter), mixed by one
 * multiply.  Unseeded: a request that passes it only pays the probe that
 * every request paid without it. */
static inline uint64_t filter_index(const char *path, size_t len, unsigned shift)
{
    uint64_t w = len >= 8 ? load64le(path + len - 8) : (unsigned char)path[len - 1];
    return ((w + len) * 0x9e3779b97f4a7c15ull) >> shift;
}

/* The static route entry whose path is path[0, len), or NULL. */
/* The home slot in full[] of a static path's key (after hash_mask), from
 * its low 32 bits; the tag is its high 16. */
static inline size_t full_home(uint64_t k, size_t nfull)
{
    return (size_t)(((uint64_t)(uint32_t)k * nfull) >> 32);
}

HASHSEG_INLINE const hashseg_full *probe_full(const hashseg_router *r, uint64_t key,
                                              const char *path, size_t len, uint64_t *probes)
{
    uint64_t k = key & r->hash_mask;
    uint32_t tag = (uint32_t)(k >> 48);
    const hashseg_full *e = &r->full[full_home(k, r->nfull)];
    for (uint32_t i = 0; i <= r->max_probe; i++, e++) {
        if (probes) ++*probes;
        if (e->mask == 0) return NULL;
        if (e->tag == tag && e->len == len && path_equal(r->pool + e->text, path, len)) return e;
    }
    return NULL;
}

/* The route of a terminal group (mask, first) for method (the group fits):
 * ids[first + the number of its methods below method], "*" last. */
static inline int found(const hashseg_router *r, uint32_t mask, uint32_t first, int method,
                        uint32_t nparams, rb_match *m)
{
    uint32_t below = (mask >> method) & 1u ? mask & ((1u << method) - 1u) : mask & HASHSEG_METHODS;
    m->outcome = RB_FOUND;
    m->route_id = r->ids[first + popcount10[below]];
    m->nparams = nparams;
    m->allowed = 0;
    return RB_FOUND;
}

/* The route of node x's end group (terminal t) for method (it fits): with
 * HASHSEG_ONE_END, its one route's id is in t itself (no line of ids[]). */
static inline int end_found(const hashseg_router *r, const hashseg_node *x, const hashseg_term *t,
                            int method, uint32_t nparams, rb_match *m)
{
    if (!(x->flags & HASHSEG_ONE_END)) return found(r, t->end_mask, t->ids, method, nparams, m);
    m->outcome = RB_FOUND;
    m->route_id = t->ids;
    m->nparams = nparams;
    m->allowed = 0;
    return RB_FOUND;
}

/* The route of static path entry e for method (it fits). */
static inline int full_found(const hashseg_router *r, const hashseg_full *e, int method,
                             rb_match *m)
{
    if (!(e->mask & HASHSEG_FULL_ONE)) return found(r, e->mask, e->id, method, 0, m);
    m->outcome = RB_FOUND;
    m->route_id = e->id;
    m->nparams = 0;
    m->allowed = 0;
    return RB_FOUND;
}

static inline int not_found(uint32_t allowed, rb_match *m)
{
    m->outcome = allowed ? RB_METHOD_NOT_ALLOWED : RB_NOT_FOUND;
    m->nparams = 0;
    m->allowed = allowed;
    return m->outcome;
}

/* Does template t take the segment path[b, e)?  Its captures go to caps.
 * A one-param template compares its two pieces (a word each when they are
 * at most 8 bytes and the path holds the word); others go through
 * rb__template_match. */
HASHSEG_INLINE bool tmpl_takes(const hashseg_router *r, const hashseg_tmpl *t, const char *path,
                               size_t len, size_t b, size_t e, rb_span *caps)
{
    if (t->params != 1)
        return rb__template_match(r->pool + t->text, t->len, path + b, e - b, (uint32_t)b, caps,
                                  NULL);
    size_t n = e - b;
    if (n < (size_t)t->pre + t->suf + 1u) return false;
    if (t->suf) {
        if (t->suf <= 8 && e >= 8) {
            if (load64le(path + e - 8) >> (8u * (8u - t->suf)) != t->sufw) return false;
        } else if (!bytes_equal(path + e - t->suf, r->pool + t->text + t->len - t->suf, t->suf)) {
            return false;
        }
    }
    if (t->pre) {
        if (t->pre <= 8 && b + 8 <= len) {
            if ((load64le(path + b) & mask_lo[t->pre]) != t->prew) return false;
        } else if (!bytes_equal(path + b, r->pool + t->text, t->pre)) {
            return false;
        }
    }
    caps[0] = (rb_span){(uint32_t)(b + t->pre), (uint32_t)(n - t->pre - t->suf)};
    return true;
}

/* A request, prepared once for every walk over it.  HASHSEG_ONE,
 * HASHSEG_SCAN: words load from the path, its last bytes from tail
 * (path[tb, len), zero padded).  HASHSEG_ONE: every '/' in one word
 * sl[0].  HASHSEG_MANY: every '/' in the words of sl[], words loaded from
 * inside the path (words_at). */
typedef struct hashseg_req {
    const char *path;
    size_t len, tb;
    int method;
    uint32_t fit;
    uint64_t *probes;
    unsigned char tail[32];
    uint64_t sl[HASHSEG_BITMAP_LEN / 64];
} hashseg_req;

HASHSEG_INLINE void req_prepare(hashseg_req *q, const char *path, size_t len, int method,
                                uint64_t *probes, int mode)
{
    q->path = path;
    q->len = len;
    q->method = method;
    q->fit = (1u << method) | HASHSEG_ANY_BIT;
    q->probes = probes;
    q->tb = 0;
    memset(q->tail, 0, sizeof q->tail);
    uint64_t t0 = 0, t1 = 0;
    if (mode == HASHSEG_MANY) {
        slash_words(path, len, q->sl);
    } else {
        if (len >= 16) {
            q->tb = len - 16;
            memcpy(q->tail, path + q->tb, 16);
        } else {
            short_words(path, len, &t0, &t1);
            for (unsigned i = 0; i < 8; i++) {
                q->tail[i] = (unsigned char)(t0 >> (8 * i));
                q->tail[8 + i] = (unsigned char)(t1 >> (8 * i));
            }
        }
        if (mode == HASHSEG_ONE) q->sl[0] = slash_word(path, len, t0, t1);
    }
}

/* Where a walk found its route: the node, and whether by its catch-all
 * group (for the priority key of a route a template led to). */
typedef struct hashseg_hit {
    uint32_t node, catchall;
} hashseg_hit;

static int group_best(const hashseg_router *r, const hashseg_req *q, uint32_t g, uint64_t h,
                      size_t b, size_t e, uint32_t *allowed, rb_match *m, hashseg_hit *hit,
                      int mode);

/* The param child and template children of node n (key h) on the segment
 * path[b, e) (see walk_run): the one child to walk into (*key its key),
 * its captures written; 0 when none takes the segment; or, when two or
 * more do, *got after group_best decided (m filled) or 0 when none of them
 * led to a route.  *seen gains the methods of routes that matched but did
 * not fit. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static uint32_t
tmpl_step(const hashseg_router *r, const hashseg_req *q, uint32_t n, uint64_t h, size_t b, size_t e,
          uint32_t *seen, rb_match *m, hashseg_hit *hit, int mode, bool *got, uint64_t *key)
{
    const hashseg_node *x = &r->nodes[n];
    const hashseg_trange *tr = &r->tranges[n];
    if (e == b) return 0; /* params and templates take 1+ bytes */
    uint32_t fits = x->param ? 1u : 0u, only = x->param;
    const hashseg_tmpl *one = NULL;
    for (uint32_t i = 0; i < tr->count; i++) {
        const hashseg_tmpl *t = &r->tmpls[tr->first + i];
        if (!tmpl_takes(r, t, q->path, q->len, b, e, m->params + x->ncap)) continue;
        fits++;
        only = t->node;
        one = t;
    }
    if (fits > 1) {
        *got = group_best(r, q, n, h, b, e, seen, m, hit, mode) != 0;
        return 0;
    }
    if (!fits) return 0;
    /* a failed match may have written the captures: write them again */
    if (only == x->param) {
        m->params[x->ncap] = (rb_span){(uint32_t)b, (uint32_t)(e - b)};
        *key = param_key(&r->keys, h);
    } else {
        if (one != &r->tmpls[tr->first + tr->count - 1])
            tmpl_takes(r, one, q->path, q->len, b, e, m->params + x->ncap);
        *key = one->key;
    }
    return only;
}

/* (b) of lookup: the depth-first walk, static child, then param child and
 * template children, then catch-all, from node n (its key h) entered with
 * the path used up to b, never backing out of that node.  The segment at
 * the current node n is path[b, e); b == len + 1 when the path is used up.
 * Going back needs no stack: the parent is in the node, its key in ks[]
 * (or deep_keys[]), its segment ends at b - 1 and starts after the '/'
 * before that, and how the walk came down (param or template child, or
 * static child) says what to try next.  *allowed gains the methods seen
 * when nothing is found.  Returns RB_FOUND (m and *hit, when hit is not
 * NULL, filled) or 0.
 *
 * A param and templates at one node rank alike (1), so when two or more of
 * them take the segment the later segments, the method and the literal
 * bytes decide between the routes below them: group_best searches below
 * each and compares the keys.  When one of them takes it, it is walked as
 * a lone param would be. */
HASHSEG_INLINE int walk_run(const hashseg_router *r, const hashseg_req *q, uint32_t n, size_t b,
                            uint64_t h, uint32_t *allowed, rb_match *m, hashseg_hit *hit, int mode)
{
    const hashseg_keys *k = &r->keys;
    const char *path = q->path;
    size_t len = q->len, tb = q->tb, e = 0;
    const unsigned char *tail = q->tail;
    uint32_t fit = q->fit, seen = 0; /* seen: methods for *allowed, kept in a register */
    uint64_t sl0 = q->sl[0];         /* HASHSEG_ONE: the slashes of the path */
    uint64_t *probes = q->probes;    /* NULL (folded away) but in the counted lookup */
    bool small = mode != HASHSEG_SCAN;
    uint32_t stop = n, d = 0;       /* the first node, and the depth below it */
    uint64_t ks[HASHSEG_KEY_STACK]; /* key of the node at each depth left by a static step */
    const hashseg_node *x;
enter:
    x = &r->nodes[n];
    if (b > len) {
        /* terms[] is parallel to nodes[]: this load need not wait for x */
        const hashseg_term *t = &r->terms[n];
        if (t->end_mask & fit) {
            if (hit) *hit = (hashseg_hit){n, 0};
            return end_found(r, x, t, q->method, x->ncap, m);
        }
        seen |= t->end_mask;
        goto back;
    }
    {
        uint64_t w0 = 0, w1 = 0;
        if (mode == HASHSEG_ONE)
            e = ctz64(sl0 & (~0ull << b));
        else if (mode == HASHSEG_MANY)
            e = next_slash(q->sl, b);
        else
            e = segment_at(path, len, tail, tb, b, &w0, &w1);
        if ((x->lens >> ((e - b) & 7u)) & 1u) {
            if (mode == HASHSEG_ONE)
                segment_words(src16(path, len, tail, tb, b), e - b, &w0, &w1);
            else if (mode == HASHSEG_MANY)
                words_at(path, len, b, e - b, &w0, &w1);
            uint32_t sn = (uint32_t)(e - b);
            uint64_t key = static_key(k, h, w0, w1, path + b, sn);
            uint32_t c = probe_segment(r, key, n, w0, w1, path + b, sn, probes);
            if (c) {
                /* going back to n from a static child tries n's param
                 * child, which needs n's key; from a param or template
                 * child it goes on to the catch-all, which does not: only
                 * a static step keeps the key (deep tables go back
                 * through deep_keys[]) */
                ks[d % HASHSEG_KEY_STACK] = h;
                n = c;
                d++;
                h = key;
                b = e + 1;
                goto enter;
            }
        }
    }
param:
    if (x->flags & HASHSEG_HAS_TMPL) { /* out of line: tables without templates never pay */
        uint32_t tseen = 0;
        bool got = false;
        uint64_t ckey = 0;
        uint32_t c = tmpl_step(r, q, n, h, b, e, &tseen, m, hit, mode, &got, &ckey);
        seen |= tseen;
        if (got) return RB_FOUND;
        if (!c) goto catchall;
        n = c;
        d++;
        h = ckey;
        b = e + 1;
        goto enter;
    }
    if (x->param && e > b) {
        m->params[x->ncap] = (rb_span){(uint32_t)b, (uint32_t)(e - b)};
        n = x->param;
        d++;
        h = param_key(k, h);
        b = e + 1;
        goto enter;
    }
catchall:
    if ((x->flags & HASHSEG_HAS_CA) && b < len) {
        const hashseg_term *t = &r->terms[n];
        if (t->ca_mask & fit) {
            m->params[x->ncap] = (rb_span){(uint32_t)b, (uint32_t)(len - b)};
            if (hit) *hit = (hashseg_hit){n, 1};
            return found(r, t->ca_mask, t->ids + popcount10[t->end_mask], q->method, x->ncap + 1u,
                         m);
        }
        seen |= t->ca_mask;
    }
back:
    if (n == stop) {
        *allowed |= seen;
        return 0;
    }
    {
        /* n's own segment is path[b', b - 1): back to its parent there */
        bool wild = (x->flags & (HASHSEG_PARAM | HASHSEG_TMPL)) != 0;
        e = b - 1;
        if (small) {
            b = mode == HASHSEG_ONE ? 64 - clz64(sl0 & ((1ull << e) - 1u))
                                    : prev_slash(q->sl, e) + 1;
        } else {
            for (b = e; path[b - 1] != '/'; b--) continue;
        }
        n = x->parent;
        d--;
        x = &r->nodes[n];
        if (wild) goto catchall; /* the param or the one template that took it */
        h = r->deep_keys ? r->deep_keys[n] : ks[d];
        goto param;
    }
}

/* The walk below member n (key h) of a group, entered after its segment
 * (b), not going back above n; noinline: group_best and this recurse, one
 * level per group of 2+ fitting members on the path (each takes a
 * capture, so at most RB_MAX_CAPTURES levels). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int
walk_sub(const hashseg_router *r, const hashseg_req *q, uint32_t n, uint64_t h, size_t b,
         uint32_t *allowed, rb_match *m, hashseg_hit *hit, int mode)
{
    if (mode == HASHSEG_ONE) return walk_run(r, q, n, b, h, allowed, m, hit, HASHSEG_ONE);
    if (mode == HASHSEG_MANY) return walk_run(r, q, n, b, h, allowed, m, hit, HASHSEG_MANY);
    return walk_run(r, q, n, b, h, allowed, m, hit, HASHSEG_SCAN);
}

/* The priority key of the route a walk found (hit, m->route_id). */
static rb_priority hit_key(const hashseg_router *r, const hashseg_hit *hit, int method,
                           const rb_match *m)
{
    const hashseg_term *t = &r->terms[hit->node];
    const hashseg_tkey *tk = &r->tkeys[hit->node];
    uint32_t mask = hit->catchall ? t->ca_mask : t->end_mask;
    return (rb_priority){r->tranks + tk->ranks, tk->nranks + hit->catchall,
                         !((mask >> method) & 1u), tk->literal, m->route_id};
}

/* Node g's (key h) param child and template children that take the
 * segment path[b, e) (two or more): the best route below them by the
 * priority key (docs/design.md), found by a walk below each.  Returns as
 * walk_run. */
static int group_best(const hashseg_router *r, const hashseg_req *q, uint32_t g, uint64_t h,
                      size_t b, size_t e, uint32_t *allowed, rb_match *m, hashseg_hit *hit,
                      int mode)
{
    const hashseg_node *x = &r->nodes[g];
    const hashseg_trange *tr = &r->tranges[g];
    uint32_t base = x->ncap, best_id = 0, best_np = 0;
    bool have = false;
    rb_priority best = {0};
    hashseg_hit best_hit = {0, 0};
    rb_span caps[RB_MAX_CAPTURES];
    for (uint32_t i = 0; i <= tr->count; i++) { /* i == 0: the param child */
        uint32_t c;
        uint64_t ck;
        if (i == 0) {
            if (!x->param) continue;
            c = x->param;
            ck = param_key(&r->keys, h);
            m->params[base] = (rb_span){(uint32_t)b, (uint32_t)(e - b)};
        } else {
            const hashseg_tmpl *t = &r->tmpls[tr->first + i - 1];
            c = t->node;
            ck = t->key;
            if (!tmpl_takes(r, t, q->path, q->len, b, e, m->params + base)) continue;
        }
        hashseg_hit hh;
        if (e == q->len) {
            /* the last segment: only c's own routes can match (what walk_sub
             * would find, without it) */
            const hashseg_node *y = &r->nodes[c];
            const hashseg_term *t = &r->terms[c];
            if (!t->end_mask) continue;
            if (!(t->end_mask & q->fit)) {
                *allowed |= t->end_mask;
                continue;
            }
            hh = (hashseg_hit){c, 0};
            end_found(r, y, t, q->method, y->ncap, m);
        } else if (!walk_sub(r, q, c, ck, e + 1, allowed, m, &hh, mode)) {
            continue;
        }
        rb_priority key = hit_key(r, &hh, q->method, m);
        if (have && rb_priority_compare(&key, &best) >= 0) continue;
        have = true;
        best_id = m->route_id;
        best_np = m->nparams;
        best_hit = hh;
        memcpy(caps + base, m->params + base, (best_np - base) * sizeof caps[0]);
        best = key;
    }
    if (!have) return 0;
    memcpy(m->params + base, caps + base, (best_np - base) * sizeof caps[0]);
    m->outcome = RB_FOUND;
    m->route_id = best_id;
    m->nparams = best_np;
    m->allowed = 0;
    if (hit) *hit = best_hit;
    return RB_FOUND;
}

HASHSEG_INLINE int walk_impl(const hashseg_router *r, int method, const char *path, size_t len,
                             uint32_t allowed, rb_match *m, uint64_t *probes, int mode)
{
    hashseg_req q;
    req_prepare(&q, path, len, method, probes, mode);
    if (walk_run(r, &q, 0, 1, r->keys.root, &allowed, m, NULL, mode)) return RB_FOUND;
    return not_found(allowed & HASHSEG_METHODS, m);
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int
walk(const hashseg_router *r, int method, const char *path, size_t len, uint32_t allowed,
     rb_match *m)
{
    if (len < 64) return walk_impl(r, method, path, len, allowed, m, NULL, HASHSEG_ONE);
    if (len < HASHSEG_BITMAP_LEN)
        return walk_impl(r, method, path, len, allowed, m, NULL, HASHSEG_MANY);
    return walk_impl(r, method, path, len, allowed, m, NULL, HASHSEG_SCAN);
}

/* (a) of lookup: the whole path as a static route.  It ranks first
 * wherever it matches, so it wins when its methods fit; when they do not,
 * its methods join the 405 mask and the walk decides. */
HASHSEG_INLINE const hashseg_full *lookup_full(const hashseg_router *r, const char *path,
                                               size_t len, uint64_t *probes)
{
    if (!((r->full_lens >> (len & 63u)) & 1u)) return NULL;
    if (r->filter_on) { /* the length filter is full: most of its bits are set */
        uint64_t i = filter_index(path, len, r->filter_shift);
        if (!((r->full_filter[i >> 6] >> (i & 63u)) & 1u)) return NULL;
    }
    return probe_full(r, XXH3_64bits_withSeed(path, len, r->keys.seed), path, len, probes);
}

static int hashseg_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    const hashseg_router *r = impl;
    if (len == 0 || path[0] != '/' || !r->built) return not_found(0, m);
    uint32_t allowed = 0;
    const hashseg_full *e = lookup_full(r, path, len, NULL);
    if (e) {
        if (e->mask & ((1u << method) | HASHSEG_ANY_BIT)) return full_found(r, e, method, m);
        allowed = e->mask & (HASHSEG_METHODS | HASHSEG_ANY_BIT);
    }
    const hashseg_node *root = &r->nodes[0];
    if (!root->flags && !root->param) return not_found(allowed & HASHSEG_METHODS, m); /* no tree */
    return walk(r, method, path, len, allowed, m);
}

int rb__hashseg_lookup_counted(const void *impl, int method, const char *path, size_t len,
                               rb_match *m, uint64_t *probes)
{
    const hashseg_router *r = impl;
    if (method < 0 || method >= RB_METHOD_COUNT) return not_found(0, m);
    if (len == 0 || path[0] != '/' || !r->built) return not_found(0, m);
    uint32_t allowed = 0;
    const hashseg_full *e = lookup_full(r, path, len, probes);
    if (e) {
        if (e->mask & ((1u << method) | HASHSEG_ANY_BIT)) return full_found(r, e, method, m);
        allowed = e->mask & (HASHSEG_METHODS | HASHSEG_ANY_BIT);
    }
    int mode = len < 64 ? HASHSEG_ONE : len < HASHSEG_BITMAP_LEN ? HASHSEG_MANY : HASHSEG_SCAN;
    return walk_impl(r, method, path, len, allowed, m, probes, mode);
}

/* ---- create, add -------------------------------------------------------- */

static int hashseg_create(const rb_config *config, void **out, rb_error *err)
{
    hashseg_router *r = rb_calloc(config->allocator, sizeof *r);
    if (!r) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory creating hashseg");
    r->a = config->allocator;
    r->hash_mask = ~0ull;
    keys_init(&r->keys, config->seed);
    *out = r;
    return RB_OK;
}

static int hashseg_add(void *impl, const rb_route *route, rb_error *err)
{
    hashseg_router *r = impl;
    const rb_pattern *p = route->pattern;
    if (r->built) return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "hashseg: add after build");
    if (p->len > UINT32_MAX - r->nbytes || r->nroutes >= UINT32_MAX / 4 ||
        r->nsegs + p->nsegs >= UINT32_MAX / 4)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "hashseg: too many routes or bytes");
    if (rb_grow(r->a, &r->routes, &r->routes_cap, r->nroutes + 1, sizeof *r->routes, 16) < 0 ||
        rb_grow(r->a, &r->segs, &r->segs_cap, r->nsegs + p->nsegs, sizeof *r->segs, 64) < 0 ||
        rb_grow(r->a, &r->bytes, &r->bytes_cap, r->nbytes + p->len, 1, 1024) < 0)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in hashseg");

    hashseg_route *hr = &r->routes[r->nroutes];
    hr->text = (uint32_t)r->nbytes;
    hr->len = (uint32_t)p->len;
    hr->seg = (uint32_t)r->nsegs;
    hr->nsegs = p->nsegs;
    hr->id = route->id;
    hr->method = route->method;
    memcpy(r->bytes + r->nbytes, p->text, p->len);
    for (uint32_t i = 0; i < p->nsegs; i++) {
        const rb_segment *sg = &p->segs[i];
        hashseg_seg *hs = &r->segs[r->nsegs + i];
        hs->off = (uint32_t)(sg->text - p->text);
        hs->len = sg->text_len;
        hs->kind = sg->kind;
    }
    r->nbytes += p->len;
    r->nsegs += p->nsegs;
    r->nroutes++;
    return RB_OK;
}

/* ---- build -------------------------------------------------------------- */

/* A build-time tree node (the tree holds only the routes with a param or a
 * catch-all, and their prefixes). */
typedef struct hashseg_bnode {
    uint64_t key;
    uint32_t parent;
    uint32_t seglen; /* static: segment length */
    uint32_t text;   /* static: offset of the segment in r->bytes */
    uint32_t param;  /* param child, 0 = none */
    uint32_t end_ids, ca_ids;
    uint32_t tmpl, next; /* first template child; next template sibling */
    uint32_t lit;        /* literal bytes of the edge into it */
    uint16_t end_mask, ca_mask;
    uint8_t kind; /* RB_SEG_STATIC, _PARAM or _TEMPLATE (text, seglen: its text); the root:
                     RB_SEG_STATIC */
    uint8_t ncap;
} hashseg_bnode;

/* A distinct static path (one or more routes, one per method). */
typedef struct hashseg_bfull {
    uint64_t key;       /* XXH3 of the path, seeded */
    uint32_t text, len; /* the path in r->bytes */
    uint32_t pooled;    /* the path in the pool */
    uint32_t first;     /* its first id in ids[] */
    uint16_t mask;
} hashseg_bfull;

/* A route's terminal, sorted into ids[]: at a tree node (end or catch-all)
 * or at a static path (node = HASHSEG_FULL | its index). */
typedef struct hashseg_bterm {
    uint32_t node;
    uint32_t catchall; /* 0: the route ends at node; 1: node/{*x} */
    uint32_t method;   /* rb_method; RB_ANY sorts last */
    uint32_t id;
} hashseg_bterm;

#define HASHSEG_FULL 0x80000000u

typedef struct hashseg_work {
    hashseg_bnode *b;
    size_t bcap, nb;
    uint32_t *map; /* static edges, or static paths, while they are found: index + 1 */
    size_t nmap;
    hashseg_bfull *bf;
    size_t bfcap, nbf;
    hashseg_bterm *bt; /* one per route, at least one */
    size_t nbt;
    /* the lookup form */
    void *nodes_raw;
    hashseg_node *nodes;
    uint64_t *deep_keys; /* NULL when no node is HASHSEG_KEY_STACK deep */
    size_t nnodes;
    uint32_t *slots;
    size_t nslots;
    uint32_t node_bits;
    hashseg_full *full;
    size_t nfull;
    hashseg_term *terms;
    size_t nterms;
    uint32_t *ids;
    char *pool;
    size_t npool;
    uint32_t max_probe;
    uint32_t flood_probe; /* RB_ELIMIT: the sequence over the limit */
    uint64_t full_lens;
    uint32_t filter_shift;
    hashseg_tmpl *tmpls; /* templates, all NULL without */
    size_t ntmpls;
    hashseg_trange *tranges;
    hashseg_tkey *tkeys;
    uint8_t *tranks;
    size_t ntranks;
} hashseg_work;

/* Bucket of a terminal in the sort: tree nodes first, then static paths. */
static size_t bterm_major(const hashseg_work *w, const hashseg_bterm *t)
{
    return t->node & HASHSEG_FULL ? w->nb + (t->node & ~HASHSEG_FULL) : t->node;
}

static size_t bterm_minor(const hashseg_bterm *t)
{
    return t->catchall * (RB_ANY + 1u) + t->method;
}

/* Sort the n terminals of w->bt by (node, catch-all, method): two stable
 * counting passes (method and catch-all, then node), O(n + nodes), with
 * scratch from the router's allocator (not qsort, which may call malloc
 * behind a custom allocator's back). */
static int sort_terminals(const hashseg_router *r, hashseg_work *w, size_t n)
{
    size_t nmajor = w->nb + w->nbf, nminor = 2u * (RB_ANY + 1u);
    size_t ncount = (nmajor > nminor ? nmajor : nminor) + 1u;
    hashseg_bterm *tmp = rb_alloc(r->a, (n ? n : 1) * sizeof *tmp);
    size_t *count = rb_alloc(r->a, ncount * sizeof *count);
    if (!tmp || !count) {
        rb_free(r->a, tmp, (n ? n : 1) * sizeof *tmp);
        rb_free(r->a, count, ncount * sizeof *count);
        return RB_ENOMEM;
    }
    for (int pass = 0; pass < 2; pass++) {
        const hashseg_bterm *from = pass == 0 ? w->bt : tmp;
        hashseg_bterm *to = pass == 0 ? tmp : w->bt;
        size_t nkeys = pass == 0 ? nminor : nmajor;
        memset(count, 0, (nkeys + 1u) * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[1 + (pass == 0 ? bterm_minor(&from[i]) : bterm_major(w, &from[i]))]++;
        for (size_t k = 1; k <= nkeys; k++) count[k] += count[k - 1];
        for (size_t i = 0; i < n; i++)
            to[count[pass == 0 ? bterm_minor(&from[i]) : bterm_major(w, &from[i])]++] = from[i];
    }
    rb_free(r->a, tmp, (n ? n : 1) * sizeof *tmp);
    rb_free(r->a, count, ncount * sizeof *count);
    return RB_OK;
}

/* Zero-padded first 16 bytes of seg[0, n). */
static void seg_words(const char *seg, size_t n, uint64_t *w0, uint64_t *w1)
{
    unsigned char buf[16] = {0};
    memcpy(buf, seg, n < 16 ? n : 16);
    *w0 = load64le(buf);
    *w1 = load64le(buf + 8);
}

static size_t pow2_at_least(size_t n)
{
    size_t c = 8;
    while (c < n) c *= 2;
    return c;
}

/* full[]'s filter: none for up to 2 * HASHSEG_FILTER_FROM homes (up to
 * HASHSEG_FILTER_FROM static paths), else 4 bits per home (8 per static
 * path), a power of two; its words follow full[]'s slots in their block. */
static size_t full_filter_bits(size_t nfull)
{
    return nfull > 2 * HASHSEG_FILTER_FROM ? pow2_at_least(4 * nfull) : 0;
}

static size_t full_bytes(size_t nfull)
{
    return (nfull + HASHSEG_FULL_PAD) * sizeof(hashseg_full) + full_filter_bits(nfull) / 8;
}

static void work_free(const hashseg_router *r, hashseg_work *w)
{
    const rb_allocator *a = r->a;
    rb_free(a, w->b, w->bcap * sizeof *w->b);
    rb_free(a, w->map, w->nmap * sizeof *w->map);
    rb_free(a, w->bf, w->bfcap * sizeof *w->bf);
    rb_free(a, w->bt, w->nbt * sizeof *w->bt);
    rb_free(a, w->nodes_raw, w->nnodes * sizeof *w->nodes + sizeof *w->nodes);
    if (w->deep_keys) rb_free(a, w->deep_keys, w->nnodes * sizeof *w->deep_keys);
    rb_free(a, w->slots, w->nslots * sizeof *w->slots);
    if (w->full) rb_free(a, w->full, full_bytes(w->nfull));
    rb_free(a, w->terms, w->nterms * sizeof *w->terms);
    rb_free(a, w->ids, w->nbt * sizeof *w->ids);
    rb_free(a, w->pool, w->npool);
    rb_free(a, w->tmpls, w->ntmpls * sizeof *w->tmpls);
    if (w->tranges) rb_free(a, w->tranges, w->nnodes * sizeof *w->tranges);
    if (w->tkeys) rb_free(a, w->tkeys, w->nnodes * sizeof *w->tkeys);
    rb_free(a, w->tranks, w->ntranks);
}

/* Find the static child of parent with bytes seg[0, n) (or, parent ==
 * UINT32_MAX, the static path seg[0, n)): its index, or 0 and the empty
 * map slot where it belongs (*slot).  The map is at most half full. */
static uint32_t work_find(const hashseg_router *r, const hashseg_work *w, uint64_t key,
                          uint32_t parent, const char *seg, uint32_t n, size_t *slot)
{
    size_t mask = w->nmap - 1;
    for (size_t i = (size_t)(key & r->hash_mask) & mask;; i = (i + 1) & mask) {
        uint32_t c = w->map[i];
        if (c == 0) {
            *slot = i;
            return 0;
        }
        if (parent == UINT32_MAX) {
            const hashseg_bfull *f = &w->bf[c - 1];
            if (f->key == key && f->len == n && memcmp(r->bytes + f->text, seg, n) == 0) return c;
        } else {
            const hashseg_bnode *x = &w->b[c];
            if (x->key == key && x->parent == parent && x->seglen == n &&
                memcmp(r->bytes + x->text, seg, n) == 0)
                return c;
        }
    }
}

static bool route_is_static(const hashseg_router *r, const hashseg_route *hr)
{
    for (uint32_t si = 0; si < hr->nsegs; si++)
        if (r->segs[hr->seg + si].kind != RB_SEG_STATIC) return false;
    return true;
}

/* Grow the tree from the routes with a param or a catch-all; one terminal
 * per route. */
static int work_tree(const hashseg_router *r, hashseg_work *w)
{
    size_t nstatic = 0, nparam = 0;
    for (size_t ri = 0; ri < r->nroutes; ri++) {
        const hashseg_route *hr = &r->routes[ri];
        if (route_is_static(r, hr)) continue;
        for (uint32_t si = 0; si < hr->nsegs; si++) {
            nstatic += r->segs[hr->seg + si].kind == RB_SEG_STATIC;
            nparam += r->segs[hr->seg + si].kind == RB_SEG_PARAM ||
                      r->segs[hr->seg + si].kind == RB_SEG_TEMPLATE;
        }
    }
    w->bcap = 1 + nstatic + nparam;
    w->nmap = pow2_at_least(2 * nstatic);
    w->nbt = r->nroutes ? r->nroutes : 1;
    w->b = rb_alloc(r->a, w->bcap * sizeof *w->b); /* nodes are zeroed as they are made */
    w->map = rb_calloc(r->a, w->nmap * sizeof *w->map);
    w->bt = rb_alloc(r->a, w->nbt * sizeof *w->bt);
    if (!w->b || !w->map || !w->bt) return RB_ENOMEM;

    const hashseg_keys *k = &r->keys;
    memset(&w->b[0], 0, sizeof w->b[0]);
    w->b[0].key = k->root;
    w->nb = 1;
    for (size_t ri = 0; ri < r->nroutes; ri++) {
        const hashseg_route *hr = &r->routes[ri];
        if (route_is_static(r, hr)) {
            w->bt[ri] = (hashseg_bterm){HASHSEG_FULL, 0, (uint32_t)hr->method, hr->id};
            continue;
        }
        uint32_t n = 0, catchall = 0;
        for (uint32_t si = 0; si < hr->nsegs; si++) {
            const hashseg_seg *sg = &r->segs[hr->seg + si];
            hashseg_bnode *p = &w->b[n];
            if (sg->kind == RB_SEG_CATCHALL) {
                catchall = 1;
                break;
            }
            if (sg->kind == RB_SEG_TEMPLATE) {
                /* the child of this shape ({a}.json and {b}.json are one) */
                const char *t = r->bytes + hr->text + sg->off;
                uint32_t *link = &p->tmpl;
                while (*link && !rb__template_same_shape(r->bytes + w->b[*link].text,
                                                         w->b[*link].seglen, t, sg->len))
                    link = &w->b[*link].next;
                if (!*link) {
                    uint32_t c = (uint32_t)w->nb++;
                    hashseg_bnode *x = &w->b[c];
                    memset(x, 0, sizeof *x);
                    x->parent = n;
                    x->kind = RB_SEG_TEMPLATE;
                    x->text = hr->text + sg->off;
                    x->seglen = sg->len;
                    uint32_t params = rb__template_params(t, sg->len);
                    x->ncap = (uint8_t)(p->ncap + params);
                    x->lit = (uint32_t)rb__template_shape_len(t, sg->len) - 2u * params;
                    x->key = tmpl_key(k, p->key, rb__template_shape_hash(t, sg->len, 0));
                    *link = c; /* appended: tried in insertion order */
                }
                n = *link;
                continue;
            }
            if (sg->kind == RB_SEG_PARAM) {
                if (!p->param) {
                    uint32_t c = (uint32_t)w->nb++;
                    hashseg_bnode *x = &w->b[c];
                    memset(x, 0, sizeof *x);
                    x->parent = n;
                    x->kind = RB_SEG_PARAM;
                    x->ncap = (uint8_t)(p->ncap + 1u);
                    x->key = param_key(k, p->key);
                    p->param = c;
                }
                n = p->param;
                continue;
            }
            const char *seg = r->bytes + hr->text + sg->off;
            uint64_t w0, w1;
            seg_words(seg, sg->len, &w0, &w1);
            uint64_t key = static_key(k, p->key, w0, w1, seg, sg->len);
            size_t slot;
            uint32_t c = work_find(r, w, key, n, seg, sg->len, &slot);
            if (!c) {
                c = (uint32_t)w->nb++;
                hashseg_bnode *x = &w->b[c];
                memset(x, 0, sizeof *x);
                x->key = key;
                x->parent = n;
                x->seglen = sg->len;
                x->text = hr->text + sg->off;
                x->kind = RB_SEG_STATIC;
                x->ncap = p->ncap;
                x->lit = sg->len;
                w->map[slot] = c;
            }
            n = c;
        }
        w->bt[ri] = (hashseg_bterm){n, catchall, (uint32_t)hr->method, hr->id};
    }
    return RB_OK;
}

/* Gather the static routes by path (routes of one path differ by method). */
static int work_static(const hashseg_router *r, hashseg_work *w)
{
    size_t nfull = 0;
    for (size_t ri = 0; ri < r->nroutes; ri++) nfull += w->bt[ri].node == HASHSEG_FULL;
    rb_free(r->a, w->map, w->nmap * sizeof *w->map);
    w->nmap = pow2_at_least(2 * nfull);
    w->map = rb_calloc(r->a, w->nmap * sizeof *w->map);
    w->bfcap = nfull ? nfull : 1;
    w->bf = rb_alloc(r->a, w->bfcap * sizeof *w->bf);
    if (!w->map || !w->bf) return RB_ENOMEM;
    for (size_t ri = 0; ri < r->nroutes; ri++) {
        if (w->bt[ri].node != HASHSEG_FULL) continue;
        const hashseg_route *hr = &r->routes[ri];
        const char *text = r->bytes + hr->text;
        uint64_t key = XXH3_64bits_withSeed(text, hr->len, r->keys.seed);
        size_t slot;
        uint32_t c = work_find(r, w, key, UINT32_MAX, text, hr->len, &slot);
        if (!c) {
            c = (uint32_t)++w->nbf;
            w->bf[c - 1] = (hashseg_bfull){key, hr->text, hr->len, 0, 0, 0};
            w->map[slot] = c;
            w->full_lens |= 1ull << (hr->len & 63u);
        }
        w->bt[ri].node = HASHSEG_FULL | (c - 1);
    }
    return RB_OK;
}

/* Sort the terminals into ids[] and give each node and static path its
 * groups. */
static int work_terminals(const hashseg_router *r, hashseg_work *w)
{
    w->ids = rb_alloc(r->a, w->nbt * sizeof *w->ids);
    if (!w->ids || sort_terminals(r, w, r->nroutes) < 0) return RB_ENOMEM;
    for (size_t i = 0; i < r->nroutes; i++) {
        const hashseg_bterm *t = &w->bt[i];
        bool first = i == 0 || t->node != w->bt[i - 1].node || t->catchall != w->bt[i - 1].catchall;
        uint16_t bit = (uint16_t)(1u << t->method);
        w->ids[i] = t->id;
        if (t->node & HASHSEG_FULL) {
            hashseg_bfull *f = &w->bf[t->node & ~HASHSEG_FULL];
            if (first) f->first = (uint32_t)i;
            f->mask |= bit;
            continue;
        }
        hashseg_bnode *x = &w->b[t->node];
        if (t->catchall) {
            if (first) x->ca_ids = (uint32_t)i;
            x->ca_mask |= bit;
        } else {
            if (first) x->end_ids = (uint32_t)i;
            x->end_mask |= bit;
        }
    }
    return RB_OK;
}

/* Pack the tree into nodes[] and terms[]; copy the bytes lookups
 * compare (static paths, long segments) into the pool. */
static int work_pack(const hashseg_router *r, hashseg_work *w)
{
    size_t npool = 0;
    for (size_t c = 0; c < w->nb; c++) {
        const hashseg_bnode *x = &w->b[c];
        if (x->kind == RB_SEG_STATIC && x->seglen > 16) npool += x->seglen;
        if (x->kind == RB_SEG_TEMPLATE)
            npool += rb__template_shape_len(r->bytes + x->text, x->seglen);
    }
    for (size_t f = 0; f < w->nbf; f++) npool += w->bf[f].len;
    w->nnodes = w->nb;
    w->nterms = w->nb; /* one per node, empty for most inner nodes */
    w->npool = npool ? npool : 1;
    w->nodes_raw = rb_alloc(r->a, w->nnodes * sizeof *w->nodes + sizeof *w->nodes);
    size_t deepest = 0;
    for (size_t ri = 0; ri < r->nroutes; ri++)
        if (r->routes[ri].nsegs > deepest) deepest = r->routes[ri].nsegs;
    if (deepest >= HASHSEG_KEY_STACK) {
        w->deep_keys = rb_alloc(r->a, w->nnodes * sizeof *w->deep_keys);
        if (!w->deep_keys) return RB_ENOMEM;
    }
    w->terms = rb_alloc(r->a, w->nterms * sizeof *w->terms);
    w->pool = rb_alloc(r->a, w->npool);
    if (!w->nodes_raw || !w->terms || !w->pool) return RB_ENOMEM;
    uintptr_t raw = (uintptr_t)w->nodes_raw, align = sizeof *w->nodes;
    w->nodes = (hashseg_node *)(void *)((raw + align - 1) / align * align);

    size_t pool = 0;
    for (size_t f = 0; f < w->nbf; f++) {
        hashseg_bfull *bf = &w->bf[f];
        bf->pooled = (uint32_t)pool;
        memcpy(w->pool + pool, r->bytes + bf->text, bf->len);
        pool += bf->len;
    }
    for (size_t c = 0; c < w->nb; c++) {
        const hashseg_bnode *x = &w->b[c];
        hashseg_node *y = &w->nodes[c];
        memset(y, 0, sizeof *y);
        if (w->deep_keys) w->deep_keys[c] = x->key;
        y->parent = x->parent;
        y->ncap = x->ncap;
        y->param = x->param;
        if (x->kind == RB_SEG_PARAM) y->flags |= HASHSEG_PARAM;
        if (x->kind == RB_SEG_TEMPLATE) { /* w1: its shape's length and place, for the matcher */
            y->flags |= HASHSEG_TMPL;
            w->nodes[x->parent].flags |= HASHSEG_HAS_TMPL;
            size_t n = rb__template_shape(r->bytes + x->text, x->seglen, w->pool + pool);
            y->w1 = (uint64_t)n << 32 | (uint32_t)pool;
            pool += n;
        }
        if (c > 0 && x->kind == RB_SEG_STATIC) {
            seg_words(r->bytes + x->text, x->seglen, &y->w0, &y->w1);
            y->seglen = (uint8_t)(x->seglen <= 16 ? x->seglen : HASHSEG_LONG);
            w->nodes[x->parent].flags |= HASHSEG_HAS_STATIC;
            w->nodes[x->parent].lens |= (uint8_t)(1u << (x->seglen & 7u));
            if (x->seglen > 16) { /* w0: its first 8 bytes, w1: where it is */
                y->w1 = (uint64_t)x->seglen << 32 | (uint32_t)pool;
                memcpy(w->pool + pool, r->bytes + x->text, x->seglen);
                pool += x->seglen;
            }
        }
        /* terminals sort by (node, catch-all, method): a node's catch-all
         * group follows its end group in ids[] */
        w->terms[c] = (hashseg_term){x->end_mask, x->ca_mask, x->end_mask ? x->end_ids : x->ca_ids};
        if (x->end_mask | x->ca_mask) {
            y->flags |= (uint8_t)((x->end_mask ? HASHSEG_HAS_END : 0u) |
                                  (x->ca_mask ? HASHSEG_HAS_CA : 0u));
        }
        if (popcount16(x->end_mask) == 1 && !x->ca_mask) { /* its one route's id in place */
            y->flags |= HASHSEG_ONE_END;
            w->terms[c].ids = w->ids[x->end_ids];
        }
    }
    return RB_OK;
}

/* With templates: the runs of template children (tmpls[], tranges[]) and
 * the priority key of every terminal (tkeys[], tranks[]): the ranks of
 * its path, then 4 for its catch-all group, and its literal bytes. */
static int work_templates(const hashseg_router *r, hashseg_work *w)
{
    size_t ntmpls = 0, ntranks = 0;
    for (size_t c = 1; c < w->nb; c++) ntmpls += w->b[c].kind == RB_SEG_TEMPLATE;
    if (ntmpls == 0) return RB_OK;
    for (size_t c = 0; c < w->nb; c++) {
        if (!(w->b[c].end_mask | w->b[c].ca_mask)) continue;
        for (uint32_t x = (uint32_t)c; x != 0; x = w->b[x].parent) ntranks++;
        ntranks++; /* the catch-all's 4 */
    }
    w->tmpls = rb_alloc(r->a, ntmpls * sizeof *w->tmpls);
    w->ntmpls = ntmpls;
    w->tranges = rb_calloc(r->a, w->nnodes * sizeof *w->tranges);
    w->tkeys = rb_calloc(r->a, w->nnodes * sizeof *w->tkeys);
    w->tranks = rb_alloc(r->a, ntranks);
    w->ntranks = ntranks;
    if (!w->tmpls || !w->tranges || !w->tkeys || !w->tranks) return RB_ENOMEM;
    size_t t = 0, at = 0;
    for (size_t c = 0; c < w->nb; c++) {
        const hashseg_bnode *x = &w->b[c];
        w->tranges[c].first = (uint32_t)t;
        for (uint32_t y = x->tmpl; y; y = w->b[y].next) {
            uint32_t text = (uint32_t)w->nodes[y].w1, len = (uint32_t)(w->nodes[y].w1 >> 32);
            const char *shape = w->pool + text;
            hashseg_tmpl *tm = &w->tmpls[t++];
            *tm = (hashseg_tmpl){w->b[y].key, y, text, len, (uint32_t)(w->b[y].ncap - x->ncap),
                                 0,           0, 0,    0};
            if (tm->params == 1) { /* "pre{}suf" */
                tm->pre = (uint32_t)rb__template_prefix(shape, len);
                tm->suf = len - tm->pre - 2u;
                unsigned char pw[8] = {0}, sw[8] = {0};
                memcpy(pw, shape, tm->pre < 8 ? tm->pre : 8);
                memcpy(sw, shape + len - tm->suf, tm->suf < 8 ? tm->suf : 8);
                tm->prew = load64le(pw);
                tm->sufw = load64le(sw);
            }
        }
        w->tranges[c].count = (uint32_t)(t - w->tranges[c].first);
        if (!(x->end_mask | x->ca_mask)) continue;
        uint32_t depth = 0, literal = 0;
        for (uint32_t y = (uint32_t)c; y != 0; y = w->b[y].parent) depth++, literal += w->b[y].lit;
        uint32_t i = depth;
        for (uint32_t y = (uint32_t)c; y != 0; y = w->b[y].parent)
            w->tranks[at + --i] = (uint8_t)(w->b[y].kind == RB_SEG_STATIC ? 0u : 1u);
        w->tranks[at + depth] = RB_SEG_CATCHALL;
        w->tkeys[c] = (hashseg_tkey){(uint32_t)at, depth, literal};
        at += depth + 1u;
    }
    return RB_OK;
}

/* Place the static tree nodes in slots[] and the static paths in full[],
 * each table at load <= 1/2 and doubled (at most HASHSEG_MAX_GROW times)
 * while a probe sequence is longer than the limit. */
static int work_place(const hashseg_router *r, hashseg_work *w)
{
    size_t nstatic = 0;
    for (size_t c = 1; c < w->nb; c++) nstatic += w->b[c].kind == RB_SEG_STATIC;
    for (w->node_bits = 1; w->node_bits < 31 && (size_t)1 << w->node_bits < w->nb; w->node_bits++)
        continue;
    uint32_t longest = 0;
    for (size_t cap = pow2_at_least(4 * nstatic), grow = 0;; cap *= 2, grow++) {
        uint32_t *slots = rb_calloc(r->a, cap * sizeof *slots);
        if (!slots) return RB_ENOMEM;
        rb_free(r->a, w->slots, w->nslots * sizeof *w->slots);
        w->slots = slots;
        w->nslots = cap;
        longest = 0;
        for (size_t c = 1; c < w->nb; c++) {
            if (w->b[c].kind != RB_SEG_STATIC) continue;
            uint64_t k = w->b[c].key & r->hash_mask;
            uint32_t dist = 0;
            size_t i = (size_t)k & (cap - 1);
            for (; slots[i]; i = (i + 1) & (cap - 1)) dist++;
            slots[i] = slot_of(k, w->node_bits, (uint32_t)c);
            if (dist > longest) longest = dist;
        }
        if (longest <= RB_HASHSEG_PROBE_LIMIT) break;
        if (grow == HASHSEG_MAX_GROW) goto flood;
    }
    w->max_probe = longest;
    for (size_t cap = 2 * w->nbf < 8 ? 8 : 2 * w->nbf, grow = 0;; cap *= 2, grow++) {
        hashseg_full *full = rb_calloc(r->a, full_bytes(cap));
        if (!full) return RB_ENOMEM;
        if (w->full) rb_free(r->a, w->full, full_bytes(w->nfull));
        w->full = full;
        w->nfull = cap;
        longest = 0;
        for (size_t f = 0; f < w->nbf && longest <= RB_HASHSEG_PROBE_LIMIT; f++) {
            const hashseg_bfull *bf = &w->bf[f];
            uint64_t k = bf->key & r->hash_mask;
            uint32_t dist = 0;
            size_t i = full_home(k, cap);
            for (; full[i].mask && dist <= RB_HASHSEG_PROBE_LIMIT; i++) dist++;
            bool one = popcount16(bf->mask) == 1;
            if (dist <= RB_HASHSEG_PROBE_LIMIT)
                full[i] = (hashseg_full){(uint16_t)(k >> 48),
                                         (uint16_t)(bf->mask | (one ? HASHSEG_FULL_ONE : 0u)),
                                         bf->len, bf->pooled, one ? w->ids[bf->first] : bf->first};
            if (dist > longest) longest = dist;
        }
        if (longest <= RB_HASHSEG_PROBE_LIMIT) break;
        if (grow == HASHSEG_MAX_GROW) goto flood;
    }
    if (longest > w->max_probe) w->max_probe = longest;
    uint64_t *filter = (uint64_t *)(w->full + w->nfull + HASHSEG_FULL_PAD);
    size_t bits = full_filter_bits(w->nfull);
    w->filter_shift = bits ? 64u - (unsigned)ctz64(bits) : 0;
    for (size_t f = 0; bits && f < w->nbf; f++) {
        uint64_t i = filter_index(r->bytes + w->bf[f].text, w->bf[f].len, w->filter_shift);
        filter[i >> 6] |= 1ull << (i & 63u);
    }
    return RB_OK;
flood:
    w->flood_probe = longest;
    return RB_ELIMIT;
}

static int hashseg_build(void *impl, rb_error *err)
{
    hashseg_router *r = impl;
    if (r->built) return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "hashseg: already built");
    hashseg_work w;
    hashseg_keys first = r->keys;
    uint32_t flood = 0;
    int rc = RB_ELIMIT;
    /* A probe sequence over the limit: re-seed every key and build again,
     * at most RB__RESEEDS times (seed.h); the seeds follow from the first,
     * so an explicit seed still gives the same tables on every run. */
    for (uint32_t attempt = 0; rc == RB_ELIMIT && attempt <= RB__RESEEDS; attempt++) {
        if (attempt > 0) keys_init(&r->keys, rb__seed_mix(first.seed, RB__SALT_RESEED + attempt));
        memset(&w, 0, sizeof w);
        rc = work_tree(r, &w);
        if (rc == RB_OK) rc = work_static(r, &w);
        if (rc == RB_OK) rc = work_terminals(r, &w);
        if (rc == RB_OK) rc = work_pack(r, &w);
        if (rc == RB_OK) rc = work_templates(r, &w);
        if (rc == RB_OK) rc = work_place(r, &w);
        if (rc < 0) work_free(r, &w);
        if (rc == RB_ELIMIT && attempt == 0) flood = w.flood_probe;
        r->reseeds = attempt;
    }
    if (rc < 0) {
        r->keys = first;
        r->reseeds = 0;
        if (rc == RB_ENOMEM)
            return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory building hashseg");
        return rb__error(err, rc, RB_NO_OFFSET,
                         "hashseg: a hash probe sequence of %u slots exceeds the limit of %u "
                         "under %u seeds (colliding keys whatever the seed: narrowed hashes?)",
                         w.flood_probe, RB_HASHSEG_PROBE_LIMIT, RB__RESEEDS + 1u);
    }
    if (r->reseeds)
        snprintf(r->desc, sizeof r->desc,
                 "re-seeded %u time%s: a probe sequence of %u slots exceeded the limit of %u "
                 "(colliding keys: hash flooding?)",
                 r->reseeds, r->reseeds == 1 ? "" : "s", flood, RB_HASHSEG_PROBE_LIMIT);

    /* Commit; nothing below can fail. */
    r->nodes = w.nodes;
    r->nodes_raw = w.nodes_raw;
    r->deep_keys = w.deep_keys;
    r->nnodes = w.nnodes;
    r->slots = w.slots;
    r->nslots = w.nslots;
    r->slot_mask = w.nslots - 1;
    r->node_bits = w.node_bits;
    r->node_mask = (1u << w.node_bits) - 1u;
    r->full = w.full;
    r->nfull = w.nfull;
    r->terms = w.terms;
    r->nterms = w.nterms;
    r->ids = w.ids;
    r->nids = w.nbt;
    r->pool = w.pool;
    r->npool = w.npool;
    r->max_probe = w.max_probe;
    r->full_filter = (const uint64_t *)(w.full + w.nfull + HASHSEG_FULL_PAD);
    r->filter_shift = w.filter_shift;
    r->filter_on = w.filter_shift && w.nnodes > 1;
    r->full_lens = w.full_lens;
    r->tmpls = w.tmpls;
    r->ntmpls = w.ntmpls;
    r->tranges = w.tranges;
    r->tkeys = w.tkeys;
    r->tranks = w.tranks;
    r->ntranks = w.ntranks;
    rb_free(r->a, w.b, w.bcap * sizeof *w.b);
    rb_free(r->a, w.map, w.nmap * sizeof *w.map);
    rb_free(r->a, w.bf, w.bfcap * sizeof *w.bf);
    rb_free(r->a, w.bt, w.nbt * sizeof *w.bt);
    rb_free(r->a, r->routes, r->routes_cap * sizeof *r->routes);
    rb_free(r->a, r->segs, r->segs_cap * sizeof *r->segs);
    rb_free(r->a, r->bytes, r->bytes_cap);
    r->routes = NULL;
    r->segs = NULL;
    r->bytes = NULL;
    r->routes_cap = r->segs_cap = r->bytes_cap = 0;
    r->built = 1;
    return RB_OK;
}

/* ---- memory, destroy ---------------------------------------------------- */

static size_t hashseg_memory(const void *impl)
{
    const hashseg_router *r = impl;
    size_t built = r->nodes_raw ? (r->nnodes + 1) * sizeof *r->nodes : 0;
    return sizeof *r + r->routes_cap * sizeof *r->routes + r->segs_cap * sizeof *r->segs +
           r->bytes_cap + built + (r->deep_keys ? r->nnodes * sizeof *r->deep_keys : 0) +
           r->nslots * sizeof *r->slots + (r->full ? full_bytes(r->nfull) : 0) +
           r->nterms * sizeof *r->terms + r->nids * sizeof *r->ids + r->npool +
           (r->ntmpls ? r->ntmpls * sizeof *r->tmpls +
                            r->nnodes * (sizeof *r->tranges + sizeof *r->tkeys) + r->ntranks
                      : 0);
}

static void hashseg_destroy(void *impl)
{
    hashseg_router *r = impl;
    const rb_allocator *a = r->a;
    rb_free(a, r->routes, r->routes_cap * sizeof *r->routes);
    rb_free(a, r->segs, r->segs_cap * sizeof *r->segs);
    rb_free(a, r->bytes, r->bytes_cap);
    if (r->built) {
        hashseg_work w = {0};
        w.nodes_raw = r->nodes_raw;
        w.nnodes = r->nnodes;
        w.deep_keys = (uint64_t *)(uintptr_t)r->deep_keys;
        w.slots = (uint32_t *)(uintptr_t)r->slots;
        w.nslots = r->nslots;
        w.full = (hashseg_full *)(uintptr_t)r->full;
        w.nfull = r->nfull;
        w.terms = (hashseg_term *)(uintptr_t)r->terms;
        w.nterms = r->nterms;
        w.ids = (uint32_t *)(uintptr_t)r->ids;
        w.nbt = r->nids;
        w.pool = (char *)(uintptr_t)r->pool;
        w.npool = r->npool;
        w.tmpls = (hashseg_tmpl *)(uintptr_t)r->tmpls;
        w.ntmpls = r->ntmpls;
        w.tranges = (hashseg_trange *)(uintptr_t)r->tranges;
        w.tkeys = (hashseg_tkey *)(uintptr_t)r->tkeys;
        w.tranks = (uint8_t *)(uintptr_t)r->tranks;
        w.ntranks = r->ntranks;
        work_free(r, &w);
    }
    rb_free(a, r, sizeof *r);
}

static const char *hashseg_describe(const void *impl)
{
    return ((const hashseg_router *)impl)->desc;
}

/* ---- test hooks and the invariant check --------------------------------- */

uint64_t rb__hashseg_seed(const void *impl)
{
    return ((const hashseg_router *)impl)->keys.seed;
}

int rb__hashseg_set_hash_bits(void *impl, unsigned bits)
{
    hashseg_router *r = impl;
    if (r->built) return RB_ESTATE;
    r->hash_mask = bits >= 64 ? ~0ull : (1ull << bits) - 1u;
    return RB_OK;
}

uint32_t rb__hashseg_max_probe(const void *impl)
{
    return ((const hashseg_router *)impl)->max_probe;
}

uint32_t rb__hashseg_node_count(const void *impl)
{
    return (uint32_t)((const hashseg_router *)impl)->nnodes;
}

/* Key of node c, recomputed from its parent's key h and its own edge. */
static uint64_t node_key(const hashseg_router *r, uint64_t h, uint32_t c)
{
    const hashseg_node *x = &r->nodes[c];
    if (x->flags & HASHSEG_PARAM) return param_key(&r->keys, h);
    if (x->flags & HASHSEG_TMPL)
        return tmpl_key(
            &r->keys, h,
            rb__template_shape_hash(r->pool + (uint32_t)x->w1, (size_t)(x->w1 >> 32), 0));
    if (x->seglen <= 16) return static_key(&r->keys, h, x->w0, x->w1, NULL, x->seglen);
    return static_key(&r->keys, h, x->w0, x->w1, r->pool + (uint32_t)x->w1, (size_t)(x->w1 >> 32));
}

/* Is the path from the root to node c all static? */
static bool path_is_static(const hashseg_router *r, uint32_t c)
{
    for (; c != 0; c = r->nodes[c].parent)
        if (r->nodes[c].flags & (HASHSEG_PARAM | HASHSEG_TMPL)) return false;
    return true;
}

/* A template node c (key its key): in its parent's run under that key,
 * its shape in the pool, its captures. */
static int check_template(const hashseg_router *r, uint32_t c, uint64_t key, rb_error *err)
{
    const hashseg_node *x = &r->nodes[c];
    const hashseg_node *p = &r->nodes[x->parent];
    uint32_t text = (uint32_t)x->w1, len = (uint32_t)(x->w1 >> 32);
    if (!(p->flags & HASHSEG_HAS_TMPL) || !r->tranges)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: parent lacks HAS_TMPL", c);
    const hashseg_trange *tr = &r->tranges[x->parent];
    uint32_t i = 0;
    while (i < tr->count && r->tmpls[tr->first + i].node != c) i++;
    if (i == tr->count)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: not in its parent's run", c);
    const hashseg_tmpl *t = &r->tmpls[tr->first + i];
    if ((size_t)text + len > r->npool || t->text != text || t->len != len ||
        rb__template_params(r->pool + text, len) != t->params || t->params == 0 ||
        x->ncap != p->ncap + t->params)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: template shape or captures", c);
    if (t->key != key)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: key differs from its edge's", c);
    for (uint32_t j = 0; j < i; j++) {
        const hashseg_tmpl *o = &r->tmpls[tr->first + j];
        if (rb__template_same_shape(r->pool + o->text, o->len, r->pool + t->text, t->len))
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: two templates of one shape",
                             x->parent);
    }
    return RB_OK;
}

/* With templates: terminal c's stored key is that of its path. */
static int check_tkey(const hashseg_router *r, uint32_t c, rb_error *err)
{
    const hashseg_tkey *k = &r->tkeys[c];
    uint32_t depth = 0, literal = 0;
    for (uint32_t y = c; y != 0; y = r->nodes[y].parent) {
        const hashseg_node *n = &r->nodes[y];
        depth++;
        if (n->flags & HASHSEG_TMPL) {
            uint32_t text = (uint32_t)n->w1, len = (uint32_t)(n->w1 >> 32);
            literal += len - 2u * rb__template_params(r->pool + text, len);
        } else if (!(n->flags & HASHSEG_PARAM)) {
            literal += n->seglen == HASHSEG_LONG ? (uint32_t)(n->w1 >> 32) : n->seglen;
        }
    }
    if (k->nranks != depth || k->literal != literal || (size_t)k->ranks + depth + 1 > r->ntranks ||
        r->tranks[k->ranks + depth] != RB_SEG_CATCHALL)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: stored priority key", c);
    uint32_t i = depth;
    for (uint32_t y = c; y != 0; y = r->nodes[y].parent)
        if (r->tranks[k->ranks + --i] !=
            ((r->nodes[y].flags & (HASHSEG_PARAM | HASHSEG_TMPL)) ? 1u : 0u))
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: stored ranks", c);
    return RB_OK;
}

#define HASHSEG_FAIL(...) return rb__error(err, RB_EINVAL, RB_NO_OFFSET, __VA_ARGS__)

/* keys[c] is node c's key, from the chain (its parent is older: checked). */
static int check_node(const hashseg_router *r, uint32_t c, uint64_t *keys, uint32_t *groups,
                      rb_error *err)
{
    const hashseg_node *x = &r->nodes[c];
    if (x->parent >= c) HASHSEG_FAIL("node %u: parent %u is not older", c, x->parent);
    const hashseg_node *p = &r->nodes[x->parent];
    if (x->ncap > RB_MAX_CAPTURES) HASHSEG_FAIL("node %u: %u captures", c, x->ncap);
    uint64_t key = keys[c] = node_key(r, keys[x->parent], c);
    if (r->deep_keys && key != r->deep_keys[c])
        HASHSEG_FAIL("node %u: key differs from its edge's", c);
    bool fullstatic = path_is_static(r, c);
    {
        const hashseg_term *t = &r->terms[c];
        if (!(x->flags & HASHSEG_HAS_CA) != !t->ca_mask ||
            !(x->flags & HASHSEG_HAS_END) != !t->end_mask)
            HASHSEG_FAIL("node %u: terminal flags and masks disagree", c);
        if (fullstatic && t->end_mask) HASHSEG_FAIL("node %u: a static route in the tree", c);
        *groups += popcount16(t->ca_mask) + popcount16(t->end_mask);
        if (r->tkeys && (t->end_mask | t->ca_mask)) {
            int rc = check_tkey(r, c, err);
            if (rc < 0) return rc;
        }
    }
    if (x->flags & HASHSEG_TMPL) return check_template(r, c, key, err);
    if (x->flags & HASHSEG_PARAM) {
        if (p->param != c) HASHSEG_FAIL("node %u: not its parent's param child", c);
        if (x->ncap != p->ncap + 1u) HASHSEG_FAIL("node %u: ncap", c);
        return RB_OK;
    }
    if (!(p->flags & HASHSEG_HAS_STATIC)) HASHSEG_FAIL("node %u: parent lacks HAS_STATIC", c);
    if (x->ncap != p->ncap) HASHSEG_FAIL("node %u: ncap", c);
    if (x->seglen > HASHSEG_LONG) HASHSEG_FAIL("node %u: seglen %u", c, x->seglen);
    uint64_t w0 = x->w0, w1 = x->w1;
    uint32_t n = x->seglen;
    const char *seg = NULL;
    if (x->seglen == HASHSEG_LONG) {
        n = (uint32_t)(x->w1 >> 32);
        seg = r->pool + (uint32_t)x->w1;
        if (n <= 16 || (size_t)(uint32_t)x->w1 + n > r->npool)
            HASHSEG_FAIL("node %u: long segment out of the pool", c);
        seg_words(seg, n, &w0, &w1);
        if (w0 != x->w0) HASHSEG_FAIL("node %u: words differ from its bytes", c);
    } else {
        if ((n < 8 && (w0 & ~mask_lo[n])) || (n < 16 && (w1 & ~mask_hi[n])))
            HASHSEG_FAIL("node %u: bytes past the segment in its words", c);
    }
    /* in slots[] within max_probe of home, and found first for its bytes */
    uint64_t k = key & r->hash_mask;
    bool placed = false;
    uint32_t cmask = (1u << r->node_bits) - 1u;
    for (uint32_t i = 0; i <= r->max_probe && !placed; i++) {
        uint32_t slot = r->slots[(k + i) & r->slot_mask];
        placed = (slot & cmask) == c;
        if (placed && slot != slot_of(k, r->node_bits, c)) HASHSEG_FAIL("node %u: tag", c);
    }
    if (!placed) HASHSEG_FAIL("node %u: not within max_probe of its home slot", c);
    if (probe_segment(r, key, x->parent, w0, w1, seg, n, NULL) != c)
        HASHSEG_FAIL("node %u: another static child of %u has the same bytes", c, x->parent);
    return RB_OK;
}

static int check_full(const hashseg_router *r, size_t i, uint32_t *groups, rb_error *err)
{
    const hashseg_full *e = &r->full[i];
    uint32_t mask = e->mask & (HASHSEG_METHODS | HASHSEG_ANY_BIT);
    bool one = (e->mask & HASHSEG_FULL_ONE) != 0;
    if ((e->mask & ~(mask | HASHSEG_FULL_ONE)) || !mask) HASHSEG_FAIL("full[%zu]: mask", i);
    if (one != (popcount16(mask) == 1)) HASHSEG_FAIL("full[%zu]: one route, not flagged so", i);
    if (e->len == 0 || (size_t)e->text + e->len > r->npool || r->pool[e->text] != '/')
        HASHSEG_FAIL("full[%zu]: path out of the pool", i);
    if (!one && (size_t)e->id + popcount16(mask) > r->nids)
        HASHSEG_FAIL("full[%zu]: ids out of range", i);
    *groups += popcount16(mask);
    const char *path = r->pool + e->text;
    uint64_t h = XXH3_64bits_withSeed(path, e->len, r->keys.seed);
    if (!((r->full_lens >> (e->len & 63u)) & 1u)) HASHSEG_FAIL("full[%zu]: length filter", i);
    uint64_t f = r->filter_shift ? filter_index(r->pool + e->text, e->len, r->filter_shift) : 0;
    if (r->filter_shift && !((r->full_filter[f >> 6] >> (f & 63u)) & 1u))
        HASHSEG_FAIL("full[%zu]: filter", i);
    uint64_t k = h & r->hash_mask;
    size_t home = full_home(k, r->nfull);
    if (i < home || i - home > r->max_probe)
        HASHSEG_FAIL("full[%zu]: not within max_probe of its home slot", i);
    if (e->tag != (uint16_t)(k >> 48)) HASHSEG_FAIL("full[%zu]: tag", i);
    if (probe_full(r, h, path, e->len, NULL) != e) HASHSEG_FAIL("full[%zu]: duplicate path", i);
    return RB_OK;
}

static int check_tables(const hashseg_router *r, uint64_t *keys, rb_error *err);

static int hashseg_check(const void *impl, rb_error *err)
{
    const hashseg_router *r = impl;
    if (!r->built) HASHSEG_FAIL("not built");
    uint64_t *keys = rb_alloc(r->a, r->nnodes * sizeof *keys);
    if (!keys) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory checking hashseg");
    int rc = check_tables(r, keys, err);
    rb_free(r->a, keys, r->nnodes * sizeof *keys);
    return rc;
}

/* The invariants; keys[] is scratch for one key per node. */
static int check_tables(const hashseg_router *r, uint64_t *keys, rb_error *err)
{
    const hashseg_node *root = &r->nodes[0];
    if (r->nnodes == 0 || (root->flags & (HASHSEG_PARAM | HASHSEG_TMPL)) || root->ncap ||
        root->parent || (r->deep_keys && r->deep_keys[0] != r->keys.root))
        HASHSEG_FAIL("nodes[0] is not a root");
    keys[0] = r->keys.root;
    if ((uintptr_t)r->nodes % sizeof *r->nodes) HASHSEG_FAIL("nodes[] not aligned");
    if (r->max_probe > RB_HASHSEG_PROBE_LIMIT) HASHSEG_FAIL("max_probe %u", r->max_probe);
    if (r->nslots < 8 || (r->nslots & (r->nslots - 1)) || r->slot_mask != r->nslots - 1 ||
        r->nfull < 8 ||
        r->filter_shift !=
            (full_filter_bits(r->nfull) ? 64u - (unsigned)ctz64(full_filter_bits(r->nfull)) : 0u) ||
        (r->filter_on && !r->filter_shift))
        HASHSEG_FAIL("table sizes");
    size_t used = 0, nstatic = 0;
    if (r->node_bits < 1 || r->node_bits > 31 || r->nnodes > (size_t)1 << r->node_bits ||
        r->node_mask != (1u << r->node_bits) - 1u)
        HASHSEG_FAIL("node_bits %u for %zu nodes", r->node_bits, r->nnodes);
    for (size_t i = 0; i < r->nslots; i++) {
        uint32_t c = r->slots[i] & ((1u << r->node_bits) - 1u);
        if (!r->slots[i]) continue;
        if (c == 0 || c >= r->nnodes || (r->nodes[c].flags & (HASHSEG_PARAM | HASHSEG_TMPL)))
            HASHSEG_FAIL("slot %zu holds %u, not a static node", i, c);
        used++;
    }
    uint32_t groups = 0;
    for (uint32_t c = 0; c < r->nnodes; c++) {
        const hashseg_node *x = &r->nodes[c];
        if (c > 0) {
            int rc = check_node(r, c, keys, &groups, err);
            if (rc < 0) return rc;
            nstatic += !(x->flags & (HASHSEG_PARAM | HASHSEG_TMPL));
        } else {
            if (r->terms[0].end_mask) HASHSEG_FAIL("a route ends at the root");
            groups += popcount16(r->terms[0].ca_mask);
        }
        if (x->param &&
            (x->param <= c || x->param >= r->nnodes || !(r->nodes[x->param].flags & HASHSEG_PARAM)))
            HASHSEG_FAIL("node %u: param child %u", c, x->param);
        if (!(x->flags & HASHSEG_HAS_TMPL) != (!r->tranges || !r->tranges[c].count))
            HASHSEG_FAIL("node %u: HAS_TMPL and its run of templates disagree", c);
        for (uint32_t i = 0; (x->flags & HASHSEG_HAS_TMPL) && i < r->tranges[c].count; i++) {
            uint32_t t = r->tranges[c].first + i;
            if (t >= r->ntmpls || r->tmpls[t].node <= c || r->tmpls[t].node >= r->nnodes ||
                r->nodes[r->tmpls[t].node].parent != c)
                HASHSEG_FAIL("node %u: template child %u", c, t);
        }
        unsigned lens = 0;
        for (uint32_t d = c + 1; d < r->nnodes; d++) {
            const hashseg_node *y = &r->nodes[d];
            if (y->parent != c || (y->flags & (HASHSEG_PARAM | HASHSEG_TMPL))) continue;
            lens |= 1u << ((y->seglen == HASHSEG_LONG ? (uint32_t)(y->w1 >> 32) : y->seglen) & 7u);
        }
        if (!lens != !(x->flags & HASHSEG_HAS_STATIC))
            HASHSEG_FAIL("node %u: HAS_STATIC but no static child, or the reverse", c);
        if (lens != x->lens) HASHSEG_FAIL("node %u: lens 0x%x, children 0x%x", c, x->lens, lens);
        if (c > 0 &&
            !(x->flags &
              (HASHSEG_HAS_STATIC | HASHSEG_HAS_END | HASHSEG_HAS_CA | HASHSEG_HAS_TMPL)) &&
            !x->param)
            HASHSEG_FAIL("node %u: leads to no route", c);
        {
            const hashseg_term *t = &r->terms[c];
            if ((t->end_mask | t->ca_mask) & ~(HASHSEG_METHODS | HASHSEG_ANY_BIT))
                HASHSEG_FAIL("node %u: method mask", c);
            bool one = popcount16(t->end_mask) == 1 && !t->ca_mask;
            if (one != ((x->flags & HASHSEG_ONE_END) != 0))
                HASHSEG_FAIL("node %u: one route, not flagged so", c);
            if (!one && (size_t)t->ids + popcount16(t->end_mask) + popcount16(t->ca_mask) > r->nids)
                HASHSEG_FAIL("node %u: ids out of range", c);
        }
    }
    for (size_t i = 0; i < r->nfull + HASHSEG_FULL_PAD; i++) {
        if (!r->full[i].mask) continue;
        int rc = check_full(r, i, &groups, err);
        if (rc < 0) return rc;
    }
    if (groups != r->nids && !(groups == 0 && r->nids == 1))
        HASHSEG_FAIL("terminals hold %u routes, ids[] has %zu", groups, r->nids);
    if (used != nstatic) HASHSEG_FAIL("%zu slots used for %zu static nodes", used, nstatic);
    return RB_OK;
}
#undef HASHSEG_FAIL

const rb_router_ops rb__hashseg_ops = {
    .abi_version = RB_ROUTER_ABI_VERSION,
    .name = "hashseg",
    .summary = "hashed segments: XXH3-keyed static edges, whole-path probe, param/catch-all DFS",
    .features = RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_TEMPLATE,
    .create = hashseg_create,
    .add = hashseg_add,
    .build = hashseg_build,
    .lookup = hashseg_lookup,
    .memory = hashseg_memory,
    .destroy = hashseg_destroy,
    .describe = hashseg_describe,
    .check = hashseg_check,
};
