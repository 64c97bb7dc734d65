/*
 * hashseg.c — hashed segments: a tree of path segments whose static edges
 * live in one open-addressing table keyed by XXH3-style hashes of the
 * pattern's shape prefix.
 *
 * What it is for: the fastest lookup of the built-in routers on tables of
 * static, param and catch-all routes.  Every node of the tree stands for a
 * shape prefix (static segments and "{}" params).  Its key is a hash chain
 *
 *     key(root)       = R
 *     key(child "s")  = chain(key(parent), H(s))     static edge
 *     key(child "{}") = chain(key(parent), P)        param edge
 *
 * where H hashes a segment's bytes and R, P and the chain's constants all
 * derive from config->seed.  So the slot a lookup probes for the static
 * child at depth d depends only on the request bytes and on the
 * static/param choices made above it, never on data loaded from the table:
 * the probes of successive levels can be in flight together.  A static
 * route's whole path is the chain of all its segments, so one probe with
 * the chain of the whole request path answers every static route.
 *
 * The example route set shared by every router file, as hashseg holds it
 * (node numbers follow add order):
 *
 *     nodes[] (a tree by parent links)            slots[] (static edges only)
 *
 *     #0 root                                     [key(/users)        ] -> #1
 *      +- "users"  #1 /users        end GET:0     [key(/users/me)     ] -> #3
 *      |   +- "me" #3 /users/me     end GET:2     [key(/users/{}/posts)] -> #4
 *      |   +- {}   #2 /users/{}     end GET:1     [key(/static)       ] -> #5
 *      |        +- "posts" #4 /users/{}/posts     (a slot is tag:node, at
 *      |                            end POST:3     key & mask, linear probing)
 *      +- "static" #5 /static       catch-all GET:4
 *
 *     GET /users/me   whole-path probe: key(/users/me) finds #3, full text
 *                     equal, GET fits: route 2, no tree walk
 *     GET /users/7    whole-path probe misses; walk: root -"users"-> #1,
 *                     static "7" misses, param -> #2 (span 7), end GET: 1
 *     PUT /users/7    walk as above, #2 does not fit PUT; nothing else
 *                     matches: 405 {GET}
 *
 * Node layout (hashseg_node, 56 bytes): the static edge into the node (the
 * first 16 bytes of its segment as two zero-padded little-endian words w0
 * w1, its length, its parent, and a pool offset of the full bytes), the
 * param child's index, and two terminals (routes ending here; catch-all
 * routes "here/{*x}"), each a method mask (bit 9 = "*") plus the index of
 * its first route id in ids[] (ids of a terminal are in method order, "*"
 * last, so the id for method m is at popcount(mask below m)).  Nodes whose
 * path from the root is all static also keep the length of that path
 * (plen), whose bytes end at the segment's pool offset.
 *
 * Lookup: split the path into segments with word-at-a-time slash search,
 * load each segment's first 16 bytes as masked words (whole words only
 * from inside the path, else from a zero-padded copy of its last 16 bytes)
 * and hash them (segments over 16 bytes: XXH3 with the seed).  Then
 *   (a) when the path could be a static route, probe its whole-path key; a
 *       full-static node whose text equals the path and whose terminal fits
 *       the method is the answer (a static pattern ranks first everywhere);
 *   (b) otherwise walk the tree depth first: static child (one probe,
 *       verified by parent and bytes, never by hash alone), then the param
 *       child, then the catch-all, backtracking on dead ends.  This order is
 *       the priority order, so the first terminal that fits the method
 *       wins; when none does, the walk has visited every matching
 *       terminal, and the union of their masks is the 405 mask.
 * Within one terminal the routes differ only by method (same shape), so
 * "specific before '*'" is all that is left of the priority key there.
 *
 * Cost: lookup O(L + S) with O(1) expected probes per static edge, plus the
 * backtracking a route set forces (bounded by the number of tree nodes the
 * path can reach); every probe sequence is at most RB_HASHSEG_PROBE_LIMIT
 * slots.  Build O(total pattern bytes + N log N).  Memory: 56 bytes per
 * node + 16 per static node (slots at load <= 1/2) + 4 per route + the
 * pattern texts.
 *
 * Invariants (rb__hashseg_check):
 *   - nodes[0] is the root; every other node's parent has a lower index;
 *   - a static node's words, length and key match its pool bytes, and it is
 *     in slots[] exactly once, within max_probe of its home slot; a parent
 *     has HAS_STATIC iff it has a static child; no two static children of
 *     one parent have the same bytes;
 *   - a param node is its parent's param child; ncap counts the param edges
 *     on the path from the root;
 *   - a node is FULLSTATIC iff its path is all static, and then its plen
 *     bytes in the pool are that path;
 *   - terminal id ranges tile ids[] in node order (end before catch-all);
 *   - max_probe <= RB_HASHSEG_PROBE_LIMIT; static_depth covers every
 *     full-static terminal.
 *
 * What build changes: add() only copies patterns (text, segment kinds and
 * offsets); build() makes the nodes, the slot table and ids[], then frees
 * the add-time arrays, keeping the pattern texts as the byte pool.  If a
 * probe sequence would exceed the limit, build doubles the table (up to 4
 * times) and otherwise fails with RB_ELIMIT: with a seeded hash that means
 * a hash-flooding attempt, not an accident.  A failed build leaves the
 * router as it was before build.
 *
 * Thread safety: after build, lookup only reads; concurrent lookups are safe.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "hashseg.h"

#include <string.h>

#define HASHSEG_MAX_DEPTH    64u        /* segments of a pattern */
#define HASHSEG_MAX_GROW     4u         /* table doublings tried against long probes */
#define HASHSEG_NO_SEG       UINT32_MAX /* seglen of the root and of param nodes */
#define HASHSEG_ANY_BIT      (1u << RB_ANY)
#define HASHSEG_METHODS      ((1u << RB_METHOD_COUNT) - 1u)
#define HASHSEG_HAS_STATIC   0x1u /* the node has static children */
#define HASHSEG_FULLSTATIC   0x2u /* the node's path from the root is all static */
#define HASHSEG_DEFAULT_SEED 0x6861736873656721ull

typedef struct hashseg_node {
    uint64_t w0, w1;   /* static edge: first 16 bytes of the segment, zero padded */
    uint32_t parent;   /* index of the parent (the root: 0) */
    uint32_t seglen;   /* static edge: segment length; HASHSEG_NO_SEG otherwise */
    uint32_t param;    /* index of the param child, 0 = none */
    uint32_t text;     /* pool offset of the segment's bytes */
    uint32_t plen;     /* FULLSTATIC: length of the whole path, ending at text+seglen */
    uint32_t end_ids;  /* ids[] index of the first route ending here */
    uint32_t ca_ids;   /* ids[] index of the first catch-all route here */
    uint16_t end_mask; /* methods of routes ending here (bit RB_ANY: "*") */
    uint16_t ca_mask;  /* methods of catch-all routes "here/{*x}" */
    uint8_t flags;     /* HASHSEG_HAS_STATIC | HASHSEG_FULLSTATIC */
    uint8_t ncap;      /* captures (param edges) on the path from the root */
} hashseg_node;

typedef struct hashseg_keys {
    uint64_t seed;   /* config->seed, or the default */
    uint64_t k0, k1; /* short-segment hash */
    uint64_t c0, c1; /* chain */
    uint64_t root;   /* key of the root */
    uint64_t param;  /* H() of a param edge */
} hashseg_keys;

/* Add-time storage: patterns until build. */
typedef struct hashseg_route {
    uint32_t text, len;  /* pattern bytes in the pool */
    uint32_t seg, nsegs; /* its segments in segs[] */
    uint32_t id;
    int method;
} hashseg_route;

typedef struct hashseg_seg {
    uint32_t off, len; /* static: bytes; param, catch-all: name (offset in the pattern) */
    uint32_t kind;     /* rb_seg_kind */
} hashseg_seg;

typedef struct hashseg_router {
    /* read by every lookup */
    const hashseg_node *nodes;
    const uint64_t *slots; /* tag << 32 | node; 0 = empty */
    const uint32_t *ids;
    const char *pool;
    uint64_t slot_mask;
    uint64_t hash_mask;    /* all ones, unless a test narrows the hashes */
    uint32_t max_probe;    /* longest displacement in slots[] */
    uint32_t depth;        /* most segments of a pattern */
    uint32_t static_depth; /* most segments of a static route; 0: no static route */
    uint32_t built;
    hashseg_keys keys;

    const rb_allocator *a;
    /* add time */
    hashseg_route *routes;
    size_t nroutes, routes_cap;
    hashseg_seg *segs;
    size_t nsegs, segs_cap;
    char *bytes; /* pattern texts; after build: the pool */
    size_t nbytes, bytes_cap;
    /* built */
    size_t nnodes, nodes_cap, nslots, nids, ids_cap;
} hashseg_router;

/* ---- bit helpers -------------------------------------------------------- */

static inline uint64_t load64le(const void *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) &&                                    \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = XXH_swap64(v);
#endif
    return v;
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

/* Bits set in a method mask (at most 10 bits). */
static inline unsigned popcount16(uint32_t x)
{
    x = x - ((x >> 1) & 0x5555u);
    x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
    x = (x + (x >> 4)) & 0x0f0fu;
    return (x + (x >> 8)) & 0x1fu;
}

/* The 128-bit product of a and b, folded to 64 bits (high ^ low). */
static inline uint64_t fold64(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 u128;
    u128 p = (u128)a * b;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
#else
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    uint64_t lo = (mid << 32) | (ll & 0xffffffffu);
    uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return lo ^ hi;
#endif
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

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void keys_init(hashseg_keys *k, uint64_t seed)
{
    k->seed = seed ? seed : HASHSEG_DEFAULT_SEED;
    uint64_t x = k->seed;
    k->k0 = splitmix64(&x);
    k->k1 = splitmix64(&x);
    k->c0 = splitmix64(&x);
    k->c1 = splitmix64(&x);
    k->root = splitmix64(&x);
    k->param = splitmix64(&x);
}

/* H(segment): w0, w1 are its first 16 bytes, masked; longer segments are
 * hashed whole by XXH3 with the seed. */
static inline uint64_t seg_hash(const hashseg_keys *k, uint64_t w0, uint64_t w1, const char *seg,
                                size_t n)
{
    if (n <= 16) return fold64(w0 ^ k->k0, (w1 ^ k->k1) + n);
    return XXH3_64bits_withSeed(seg, n, k->seed);
}

static inline uint64_t chain(const hashseg_keys *k, uint64_t h, uint64_t s)
{
    return fold64(h ^ k->c0, s ^ k->c1);
}

/* ---- lookup ------------------------------------------------------------- */

/* The path cut into segments (at most depth + 1 of them). */
typedef struct hashseg_scan {
    uint32_t b[HASHSEG_MAX_DEPTH + 1]; /* first byte */
    uint32_t n[HASHSEG_MAX_DEPTH + 1]; /* length */
    uint64_t w0[HASHSEG_MAX_DEPTH + 1], w1[HASHSEG_MAX_DEPTH + 1];
    uint64_t h[HASHSEG_MAX_DEPTH + 1];
} hashseg_scan;

/* Where to load 8 or 16 bytes at off from: the path itself when they are
 * inside it, else the zero-padded copy of its last bytes (tail holds
 * path[tb, len) then zeros, 32 bytes in all). */
static inline const unsigned char *src16(const char *path, size_t len, const unsigned char *tail,
                                         size_t tb, size_t off)
{
    return off + 16 <= len ? (const unsigned char *)path + off : tail + (off - tb);
}

/* Bit i set when path[base + i] is '/', for the 64 bytes from base. */
static inline uint64_t slash_bits(const char *path, size_t len, const unsigned char *tail,
                                  size_t tb, size_t base)
{
    uint64_t bits = 0;
    for (unsigned k = 0; k < 8; k++) {
        size_t off = base + 8u * k;
        size_t t = off - tb < 16 ? off - tb : 16;
        const unsigned char *p = off + 8 <= len ? (const unsigned char *)path + off : tail + t;
        uint64_t x = load64le(p) ^ 0x2f2f2f2f2f2f2f2full;
        uint64_t z =
            ~(((x & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full) | x | 0x7f7f7f7f7f7f7f7full);
        bits |= (((z >> 7) * 0x0102040810204080ull) >> 56) << (8u * k);
    }
    return bits;
}

static inline void scan_segment(const hashseg_keys *k, const char *path, size_t len,
                                const unsigned char *tail, size_t tb, hashseg_scan *s, uint32_t d,
                                size_t b, size_t n)
{
    const unsigned char *p = src16(path, len, tail, tb, b);
    size_t c = n < 16 ? n : 16;
    uint64_t w0 = load64le(p) & mask_lo[c];
    uint64_t w1 = load64le(p + 8) & mask_hi[c];
    s->b[d] = (uint32_t)b;
    s->n[d] = (uint32_t)n;
    s->w0[d] = w0;
    s->w1[d] = w1;
    s->h[d] = seg_hash(k, w0, w1, path + b, n);
}

/* Cut path (len >= 1, path[0] == '/') into segments; returns their count,
 * or limit when there are at least that many. */
static inline uint32_t scan_path(const hashseg_keys *k, const char *path, size_t len,
                                 uint32_t limit, hashseg_scan *s)
{
    unsigned char tail[32] = {0};
    size_t tb = len >= 16 ? len - 16 : 0;
    memcpy(tail, path + tb, len - tb);
    size_t base = 0, b = 1;
    uint64_t bits = slash_bits(path, len, tail, tb, 0) & ~1ull;
    uint32_t d = 0;
    for (;;) {
        while (bits == 0) {
            base += 64;
            if (base >= len) {
                scan_segment(k, path, len, tail, tb, s, d, b, len - b);
                return d + 1;
            }
            bits = slash_bits(path, len, tail, tb, base);
        }
        size_t e = base + ctz64(bits);
        bits &= bits - 1;
        scan_segment(k, path, len, tail, tb, s, d, b, e - b);
        b = e + 1;
        if (++d == limit) return d;
    }
}

#if defined(__GNUC__)
#define HASHSEG_INLINE static inline __attribute__((always_inline))
#else
#define HASHSEG_INLINE static inline
#endif

/* The node reached from parent by a static edge with the request segment
 * (w0, w1 its first bytes, n its length), or 0. */
HASHSEG_INLINE uint32_t probe_segment(const hashseg_router *r, uint64_t key, uint32_t parent,
                                      uint64_t w0, uint64_t w1, const char *seg, uint32_t n,
                                      uint64_t *probes)
{
    uint64_t k = key & r->hash_mask;
    uint32_t tag = (uint32_t)(k >> 32);
    for (uint32_t i = 0; i <= r->max_probe; i++, k++) {
        uint64_t slot = r->slots[k & r->slot_mask];
        if (probes) ++*probes;
        uint32_t c = (uint32_t)slot;
        if (c == 0) return 0;
        if ((uint32_t)(slot >> 32) != tag) continue;
        const hashseg_node *x = &r->nodes[c];
        if (x->parent == parent && x->seglen == n && x->w0 == w0 && x->w1 == w1 &&
            (n <= 16 || memcmp(r->pool + x->text + 16, seg + 16, n - 16) == 0))
            return c;
    }
    return 0;
}

/* The full-static node whose whole path is path[0, len), or 0. */
HASHSEG_INLINE uint32_t probe_path(const hashseg_router *r, uint64_t key, const char *path,
                                   size_t len, uint64_t *probes)
{
    uint64_t k = key & r->hash_mask;
    uint32_t tag = (uint32_t)(k >> 32);
    for (uint32_t i = 0; i <= r->max_probe; i++, k++) {
        uint64_t slot = r->slots[k & r->slot_mask];
        if (probes) ++*probes;
        uint32_t c = (uint32_t)slot;
        if (c == 0) return 0;
        if ((uint32_t)(slot >> 32) != tag) continue;
        const hashseg_node *x = &r->nodes[c];
        if ((x->flags & HASHSEG_FULLSTATIC) && x->plen == len &&
            memcmp(r->pool + x->text + x->seglen - x->plen, path, len) == 0)
            return c;
    }
    return 0;
}

static inline int found(const hashseg_router *r, uint32_t mask, uint32_t first, int method,
                        uint32_t nparams, rb_match *m)
{
    uint32_t idx = (mask >> method) & 1u ? popcount16(mask & ((1u << method) - 1u))
                                         : popcount16(mask & HASHSEG_METHODS);
    m->outcome = RB_FOUND;
    m->route_id = r->ids[first + idx];
    m->nparams = nparams;
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

HASHSEG_INLINE int lookup_impl(const hashseg_router *r, int method, const char *path, size_t len,
                               rb_match *m, uint64_t *probes)
{
    if (len == 0 || path[0] != '/' || !r->built) return not_found(0, m);
    const hashseg_keys *k = &r->keys;
    hashseg_scan s;
    uint32_t nseg = scan_path(k, path, len, r->depth + 1, &s);
    uint32_t fit = (1u << method) | HASHSEG_ANY_BIT;

    /* (a) the whole path as a static route */
    if (nseg <= r->static_depth) {
        uint64_t h = k->root;
        for (uint32_t d = 0; d < nseg; d++) h = chain(k, h, s.h[d]);
        uint32_t c = probe_path(r, h, path, len, probes);
        if (c && (r->nodes[c].end_mask & fit))
            return found(r, r->nodes[c].end_mask, r->nodes[c].end_ids, method, 0, m);
    }

    /* (b) depth-first walk: static child, param child, catch-all */
    uint64_t hk[HASHSEG_MAX_DEPTH + 1];
    uint32_t up[HASHSEG_MAX_DEPTH + 1];
    uint8_t next[HASHSEG_MAX_DEPTH + 1]; /* 1: try the param child next, 2: the catch-all */
    uint32_t allowed = 0, d = 0, n = 0;
    uint64_t h = k->root;
    const hashseg_node *x;
enter:
    x = &r->nodes[n];
    if (d == nseg) {
        if (x->end_mask & fit) return found(r, x->end_mask, x->end_ids, method, x->ncap, m);
        allowed |= x->end_mask;
        goto back;
    }
    if (x->flags & HASHSEG_HAS_STATIC) {
        uint64_t key = chain(k, h, s.h[d]);
        uint32_t c = probe_segment(r, key, n, s.w0[d], s.w1[d], path + s.b[d], s.n[d], probes);
        if (c) {
            hk[d] = h;
            up[d] = n;
            next[d] = 1;
            d++;
            n = c;
            h = key;
            goto enter;
        }
    }
param:
    if (x->param && s.n[d] != 0) {
        m->params[x->ncap] = (rb_span){s.b[d], s.n[d]};
        hk[d] = h;
        up[d] = n;
        next[d] = 2;
        d++;
        n = x->param;
        h = chain(k, h, k->param);
        goto enter;
    }
catchall:
    if (x->ca_mask && s.b[d] < len) {
        if (x->ca_mask & fit) {
            m->params[x->ncap] = (rb_span){s.b[d], (uint32_t)(len - s.b[d])};
            return found(r, x->ca_mask, x->ca_ids, method, x->ncap + 1u, m);
        }
        allowed |= x->ca_mask;
    }
back:
    if (d == 0) return not_found(allowed & HASHSEG_METHODS, m);
    d--;
    n = up[d];
    h = hk[d];
    x = &r->nodes[n];
    if (next[d] == 1) goto param;
    goto catchall;
}

static int hashseg_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    return lookup_impl(impl, method, path, len, m, NULL);
}

int rb__hashseg_lookup_counted(const void *impl, int method, const char *path, size_t len,
                               rb_match *m, uint64_t *probes)
{
    if (method < 0 || method >= RB_METHOD_COUNT) return not_found(0, m);
    return lookup_impl(impl, method, path, len, m, probes);
}

/* ---- create, add -------------------------------------------------------- */

static int hashseg_create(const rb_config *config, void **out, rb_error *err)
{
    hashseg_router *r = rb__calloc(config->allocator, sizeof *r);
    if (!r) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory creating hashseg");
    r->a = config->allocator;
    r->hash_mask = ~0ull;
    keys_init(&r->keys, config->seed);
    *out = r;
    return RB_OK;
}

/* Make room for `more` elements of `size` bytes in *arr (count used, *cap
 * allocated).  Unchanged on failure. */
static int reserve(const rb_allocator *a, void **arr, size_t *cap, size_t count, size_t more,
                   size_t size, size_t min_cap)
{
    if (count + more <= *cap) return RB_OK;
    size_t ncap = *cap ? *cap : min_cap;
    while (ncap < count + more) ncap *= 2;
    void *grown = rb__realloc(a, *arr, *cap * size, ncap * size);
    if (!grown) return RB_ENOMEM;
    *arr = grown;
    *cap = ncap;
    return RB_OK;
}

static int hashseg_add(void *impl, const rb_route *route, rb_error *err)
{
    hashseg_router *r = impl;
    const rb_pattern *p = route->pattern;
    if (r->built) return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "hashseg: add after build");
    if (p->nsegs > HASHSEG_MAX_DEPTH)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET,
                         "hashseg: a pattern has at most %u segments, this one %u",
                         HASHSEG_MAX_DEPTH, p->nsegs);
    if (p->len > UINT32_MAX - r->nbytes || r->nroutes >= UINT32_MAX / 4 ||
        r->nsegs + p->nsegs >= UINT32_MAX / 4)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "hashseg: too many routes or bytes");
    if (reserve(r->a, (void **)&r->routes, &r->routes_cap, r->nroutes, 1, sizeof *r->routes, 16) <
            0 ||
        reserve(r->a, (void **)&r->segs, &r->segs_cap, r->nsegs, p->nsegs, sizeof *r->segs, 64) <
            0 ||
        reserve(r->a, (void **)&r->bytes, &r->bytes_cap, r->nbytes, p->len, 1, 1024) < 0)
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

/* A route's terminal, sorted into ids[]. */
typedef struct hashseg_term {
    uint32_t node;
    uint32_t catchall; /* 0: the route ends at node; 1: node/{*x} */
    uint32_t method;   /* rb_method; RB_ANY sorts last */
    uint32_t id;
} hashseg_term;

static int term_cmp(const void *pa, const void *pb)
{
    const hashseg_term *a = pa, *b = pb;
    if (a->node != b->node) return a->node < b->node ? -1 : 1;
    if (a->catchall != b->catchall) return a->catchall < b->catchall ? -1 : 1;
    if (a->method != b->method) return a->method < b->method ? -1 : 1;
    return 0;
}

/* Zero-padded first 16 bytes of seg[0, n). */
static void seg_words(const char *seg, size_t n, uint64_t *w0, uint64_t *w1)
{
    unsigned char buf[16] = {0};
    memcpy(buf, seg, n < 16 ? n : 16);
    *w0 = load64le(buf);
    *w1 = load64le(buf + 8);
}

/* The build state that is freed whatever happens. */
typedef struct hashseg_work {
    hashseg_node *nodes;
    size_t nodes_cap, nnodes;
    uint64_t *keys; /* key of each node, keys_cap of them */
    size_t keys_cap;
    uint64_t *slots;
    size_t nslots;
    uint32_t max_probe;
    hashseg_term *terms;
    uint32_t *ids;
    size_t nterms; /* routes, at least 1: the size of terms[] and ids[] */
} hashseg_work;

/* Find the static child of parent with bytes seg[0, n), or the empty slot
 * where it belongs (*slot).  Build-time: probes until an empty slot. */
static uint32_t work_find(const hashseg_router *r, const hashseg_work *w, uint64_t key,
                          uint32_t parent, const char *seg, uint32_t n, size_t *slot)
{
    uint64_t k = key & r->hash_mask;
    uint32_t tag = (uint32_t)(k >> 32);
    size_t mask = w->nslots - 1;
    for (size_t i = (size_t)k & mask;; i = (i + 1) & mask) {
        uint64_t s = w->slots[i];
        uint32_t c = (uint32_t)s;
        if (c == 0) {
            *slot = i;
            return 0;
        }
        const hashseg_node *x = &w->nodes[c];
        if ((uint32_t)(s >> 32) == tag && x->parent == parent && x->seglen == n &&
            memcmp(r->bytes + x->text, seg, n) == 0)
            return c;
    }
}

static size_t pow2_at_least(size_t n)
{
    size_t c = 8;
    while (c < n) c *= 2;
    return c;
}

/* Place every static node in a table of `cap` slots; records the longest
 * displacement in w->max_probe. */
static int work_place(const hashseg_router *r, hashseg_work *w, size_t cap)
{
    uint64_t *slots = rb__calloc(r->a, cap * sizeof *slots);
    if (!slots) return RB_ENOMEM;
    uint32_t longest = 0;
    for (size_t c = 1; c < w->nnodes; c++) {
        if (w->nodes[c].seglen == HASHSEG_NO_SEG) continue;
        uint64_t k = w->keys[c] & r->hash_mask;
        size_t i = (size_t)k & (cap - 1);
        uint32_t dist = 0;
        while (slots[i]) {
            i = (i + 1) & (cap - 1);
            dist++;
        }
        slots[i] = (k >> 32) << 32 | (uint64_t)c;
        if (dist > longest) longest = dist;
    }
    rb__free(r->a, w->slots, w->nslots * sizeof *w->slots);
    w->slots = slots;
    w->nslots = cap;
    w->max_probe = longest;
    return RB_OK;
}

static void work_free(const hashseg_router *r, hashseg_work *w)
{
    rb__free(r->a, w->nodes, w->nodes_cap * sizeof *w->nodes);
    rb__free(r->a, w->keys, w->keys_cap * sizeof *w->keys);
    rb__free(r->a, w->slots, w->nslots * sizeof *w->slots);
    rb__free(r->a, w->terms, w->nterms * sizeof *w->terms);
    rb__free(r->a, w->ids, w->nterms * sizeof *w->ids);
}

/* Make the tree: nodes, keys, the terminal of every route. */
static int work_tree(const hashseg_router *r, hashseg_work *w, uint32_t *depth,
                     uint32_t *static_depth)
{
    size_t nstatic = 0, nparam = 0;
    for (size_t i = 0; i < r->nsegs; i++) {
        nstatic += r->segs[i].kind == RB_SEG_STATIC;
        nparam += r->segs[i].kind == RB_SEG_PARAM;
    }
    w->nodes_cap = w->keys_cap = 1 + nstatic + nparam;
    w->nterms = r->nroutes ? r->nroutes : 1;
    w->nodes = rb__calloc(r->a, w->nodes_cap * sizeof *w->nodes);
    w->keys = rb__alloc(r->a, w->keys_cap * sizeof *w->keys);
    w->nslots = pow2_at_least(2 * nstatic);
    w->slots = rb__calloc(r->a, w->nslots * sizeof *w->slots);
    w->terms = rb__alloc(r->a, w->nterms * sizeof *w->terms);
    if (!w->nodes || !w->keys || !w->slots || !w->terms) return RB_ENOMEM;

    const hashseg_keys *k = &r->keys;
    w->nodes[0].seglen = HASHSEG_NO_SEG;
    w->keys[0] = k->root;
    w->nnodes = 1;
    *depth = 0;
    *static_depth = 0;
    for (size_t ri = 0; ri < r->nroutes; ri++) {
        const hashseg_route *hr = &r->routes[ri];
        const char *text = r->bytes + hr->text;
        uint32_t n = 0, catchall = 0;
        bool fullstatic = true;
        for (uint32_t si = 0; si < hr->nsegs; si++) {
            const hashseg_seg *sg = &r->segs[hr->seg + si];
            if (sg->kind == RB_SEG_CATCHALL) {
                catchall = 1;
                break;
            }
            if (sg->kind == RB_SEG_PARAM) {
                fullstatic = false;
                if (!w->nodes[n].param) {
                    uint32_t c = (uint32_t)w->nnodes++;
                    w->nodes[c].parent = n;
                    w->nodes[c].seglen = HASHSEG_NO_SEG;
                    w->nodes[c].ncap = (uint8_t)(w->nodes[n].ncap + 1u);
                    w->keys[c] = chain(k, w->keys[n], k->param);
                    w->nodes[n].param = c;
                }
                n = w->nodes[n].param;
                continue;
            }
            const char *seg = text + sg->off;
            uint64_t w0, w1;
            seg_words(seg, sg->len, &w0, &w1);
            uint64_t key = chain(k, w->keys[n], seg_hash(k, w0, w1, seg, sg->len));
            size_t slot;
            uint32_t c = work_find(r, w, key, n, seg, sg->len, &slot);
            if (!c) {
                c = (uint32_t)w->nnodes++;
                hashseg_node *x = &w->nodes[c];
                x->w0 = w0;
                x->w1 = w1;
                x->parent = n;
                x->seglen = sg->len;
                x->text = hr->text + sg->off;
                x->ncap = w->nodes[n].ncap;
                if (fullstatic) {
                    x->flags |= HASHSEG_FULLSTATIC;
                    x->plen = sg->off + sg->len;
                }
                w->keys[c] = key;
                w->slots[slot] = ((key & r->hash_mask) >> 32) << 32 | (uint64_t)c;
                w->nodes[n].flags |= HASHSEG_HAS_STATIC;
            }
            n = c;
        }
        w->terms[ri] = (hashseg_term){n, catchall, (uint32_t)hr->method, hr->id};
        if (hr->nsegs > *depth) *depth = hr->nsegs;
        if (fullstatic && hr->nsegs > *static_depth) *static_depth = hr->nsegs;
    }
    return RB_OK;
}

/* Sort the terminals and fill masks and ids[]. */
static int work_terminals(const hashseg_router *r, hashseg_work *w)
{
    w->ids = rb__alloc(r->a, w->nterms * sizeof *w->ids);
    if (!w->ids) return RB_ENOMEM;
    qsort(w->terms, r->nroutes, sizeof *w->terms, term_cmp);
    for (size_t i = 0; i < r->nroutes; i++) {
        const hashseg_term *t = &w->terms[i];
        hashseg_node *x = &w->nodes[t->node];
        bool first =
            i == 0 || t->node != w->terms[i - 1].node || t->catchall != w->terms[i - 1].catchall;
        if (t->catchall) {
            if (first) x->ca_ids = (uint32_t)i;
            x->ca_mask = (uint16_t)(x->ca_mask | (1u << t->method));
        } else {
            if (first) x->end_ids = (uint32_t)i;
            x->end_mask = (uint16_t)(x->end_mask | (1u << t->method));
        }
        w->ids[i] = t->id;
    }
    return RB_OK;
}

static int hashseg_build(void *impl, rb_error *err)
{
    hashseg_router *r = impl;
    if (r->built) return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "hashseg: already built");
    hashseg_work w = {0};
    uint32_t depth, static_depth;
    int rc = work_tree(r, &w, &depth, &static_depth);
    if (rc == RB_OK) rc = work_terminals(r, &w);
    if (rc < 0) goto fail;

    /* The final table: load <= 1/2, doubled while a probe sequence is too
     * long. */
    size_t nstatic = 0;
    for (size_t c = 1; c < w.nnodes; c++) nstatic += w.nodes[c].seglen != HASHSEG_NO_SEG;
    size_t cap = pow2_at_least(2 * nstatic);
    for (unsigned grow = 0;; grow++, cap *= 2) {
        rc = work_place(r, &w, cap);
        if (rc < 0) goto fail;
        if (w.max_probe <= RB_HASHSEG_PROBE_LIMIT) break;
        if (grow == HASHSEG_MAX_GROW) {
            rc = rb__error(err, RB_ELIMIT, RB_NO_OFFSET,
                           "hashseg: a hash probe sequence of %u slots exceeds the limit of %u "
                           "(colliding segments: a hash-flooding attempt?)",
                           w.max_probe, RB_HASHSEG_PROBE_LIMIT);
            goto fail;
        }
    }
    if (w.nnodes < w.nodes_cap) {
        hashseg_node *shrunk =
            rb__realloc(r->a, w.nodes, w.nodes_cap * sizeof *w.nodes, w.nnodes * sizeof *w.nodes);
        if (shrunk) {
            w.nodes = shrunk;
            w.nodes_cap = w.nnodes;
        }
    }

    /* Commit: nothing below can fail. */
    r->nodes = w.nodes;
    r->nnodes = w.nnodes;
    r->nodes_cap = w.nodes_cap;
    r->slots = w.slots;
    r->nslots = w.nslots;
    r->slot_mask = w.nslots - 1;
    r->max_probe = w.max_probe;
    r->ids = w.ids;
    r->nids = r->nroutes;
    r->ids_cap = w.nterms;
    r->pool = r->bytes;
    r->depth = depth;
    r->static_depth = static_depth;
    rb__free(r->a, w.keys, w.keys_cap * sizeof *w.keys);
    rb__free(r->a, w.terms, w.nterms * sizeof *w.terms);
    rb__free(r->a, r->routes, r->routes_cap * sizeof *r->routes);
    rb__free(r->a, r->segs, r->segs_cap * sizeof *r->segs);
    r->routes = NULL;
    r->segs = NULL;
    r->routes_cap = r->segs_cap = 0;
    r->built = 1;
    return RB_OK;

fail:
    work_free(r, &w);
    if (rc == RB_ENOMEM)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory building hashseg");
    return rc;
}

/* ---- memory, destroy ---------------------------------------------------- */

static size_t hashseg_memory(const void *impl)
{
    const hashseg_router *r = impl;
    return sizeof *r + r->routes_cap * sizeof *r->routes + r->segs_cap * sizeof *r->segs +
           r->bytes_cap + r->nodes_cap * sizeof *r->nodes + r->nslots * sizeof *r->slots +
           r->ids_cap * sizeof *r->ids;
}

static void hashseg_destroy(void *impl)
{
    hashseg_router *r = impl;
    const rb_allocator *a = r->a;
    rb__free(a, r->routes, r->routes_cap * sizeof *r->routes);
    rb__free(a, r->segs, r->segs_cap * sizeof *r->segs);
    rb__free(a, r->bytes, r->bytes_cap);
    rb__free(a, (void *)(uintptr_t)r->nodes, r->nodes_cap * sizeof *r->nodes);
    rb__free(a, (void *)(uintptr_t)r->slots, r->nslots * sizeof *r->slots);
    rb__free(a, (void *)(uintptr_t)r->ids, r->ids_cap * sizeof *r->ids);
    rb__free(a, r, sizeof *r);
}

/* ---- test hooks and the invariant check --------------------------------- */

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

/* Depth of node c and its key, recomputed from the pool bytes. */
static uint64_t node_key(const hashseg_router *r, uint32_t c, uint32_t *depth)
{
    uint32_t path[HASHSEG_MAX_DEPTH + 1];
    uint32_t n = 0;
    while (c != 0 && n <= HASHSEG_MAX_DEPTH) {
        path[n++] = c;
        c = r->nodes[c].parent;
    }
    *depth = n;
    uint64_t h = r->keys.root;
    while (n > 0) {
        const hashseg_node *x = &r->nodes[path[--n]];
        if (x->seglen == HASHSEG_NO_SEG) {
            h = chain(&r->keys, h, r->keys.param);
        } else {
            uint64_t w0, w1;
            const char *seg = r->pool + x->text;
            seg_words(seg, x->seglen, &w0, &w1);
            h = chain(&r->keys, h, seg_hash(&r->keys, w0, w1, seg, x->seglen));
        }
    }
    return h;
}

#define HASHSEG_FAIL(...) return rb__error(err, RB_EINVAL, RB_NO_OFFSET, __VA_ARGS__)

static int check_node(const hashseg_router *r, uint32_t c, rb_error *err)
{
    const hashseg_node *x = &r->nodes[c];
    const hashseg_node *p = &r->nodes[x->parent];
    if (x->parent >= c) HASHSEG_FAIL("node %u: parent %u is not older", c, x->parent);
    if (x->ncap > RB_MAX_CAPTURES) HASHSEG_FAIL("node %u: %u captures", c, x->ncap);
    uint32_t depth;
    uint64_t key = node_key(r, c, &depth);
    if (depth > r->depth) HASHSEG_FAIL("node %u: depth %u > %u", c, depth, r->depth);
    if ((x->flags & HASHSEG_FULLSTATIC) && x->end_mask && depth > r->static_depth)
        HASHSEG_FAIL("node %u: static route deeper than static_depth", c);
    if (x->seglen == HASHSEG_NO_SEG) {
        if (p->param != c) HASHSEG_FAIL("node %u: not its parent's param child", c);
        if (x->ncap != p->ncap + 1u) HASHSEG_FAIL("node %u: ncap", c);
        if (x->flags & HASHSEG_FULLSTATIC) HASHSEG_FAIL("param node %u is FULLSTATIC", c);
        return RB_OK;
    }
    if (!(p->flags & HASHSEG_HAS_STATIC)) HASHSEG_FAIL("node %u: parent lacks HAS_STATIC", c);
    if (x->ncap != p->ncap) HASHSEG_FAIL("node %u: ncap", c);
    if ((size_t)x->text + x->seglen > r->nbytes) HASHSEG_FAIL("node %u: text out of pool", c);
    uint64_t w0, w1;
    seg_words(r->pool + x->text, x->seglen, &w0, &w1);
    if (w0 != x->w0 || w1 != x->w1) HASHSEG_FAIL("node %u: words differ from its bytes", c);
    bool fullstatic = x->parent == 0 || (p->flags & HASHSEG_FULLSTATIC);
    if (fullstatic != ((x->flags & HASHSEG_FULLSTATIC) != 0))
        HASHSEG_FAIL("node %u: FULLSTATIC", c);
    if (fullstatic) {
        uint32_t pplen = x->parent == 0 ? 0 : p->plen;
        if (x->plen != pplen + 1u + x->seglen) HASHSEG_FAIL("node %u: plen", c);
        const char *full = r->pool + x->text + x->seglen - x->plen;
        if (full[pplen] != '/' ||
            (pplen && memcmp(full, r->pool + p->text + p->seglen - p->plen, pplen) != 0))
            HASHSEG_FAIL("node %u: full path is not its parent's plus its segment", c);
    }
    /* in slots[] within max_probe of home, found first for its bytes */
    uint64_t k = key & r->hash_mask;
    bool placed = false;
    for (uint32_t i = 0; i <= r->max_probe && !placed; i++) {
        uint64_t slot = r->slots[(k + i) & r->slot_mask];
        placed = (uint32_t)slot == c;
        if (placed && slot >> 32 != k >> 32) HASHSEG_FAIL("node %u: tag", c);
    }
    if (!placed) HASHSEG_FAIL("node %u: not within max_probe of its home slot", c);
    if (probe_segment(r, key, x->parent, x->w0, x->w1, r->pool + x->text, x->seglen, NULL) != c)
        HASHSEG_FAIL("node %u: another static child of %u has the same bytes", c, x->parent);
    return RB_OK;
}

int rb__hashseg_check(const void *impl, rb_error *err)
{
    const hashseg_router *r = impl;
    if (!r->built) HASHSEG_FAIL("not built");
    const hashseg_node *root = &r->nodes[0];
    if (r->nnodes == 0 || root->seglen != HASHSEG_NO_SEG || root->ncap ||
        root->flags & HASHSEG_FULLSTATIC)
        HASHSEG_FAIL("nodes[0] is not a root");
    if (r->max_probe > RB_HASHSEG_PROBE_LIMIT) HASHSEG_FAIL("max_probe %u", r->max_probe);
    if (r->nslots < 8 || (r->nslots & (r->nslots - 1)) || r->slot_mask != r->nslots - 1)
        HASHSEG_FAIL("slot table size");
    size_t used = 0, nstatic = 0;
    for (size_t i = 0; i < r->nslots; i++) {
        uint32_t c = (uint32_t)r->slots[i];
        if (!r->slots[i]) continue;
        if (c == 0 || c >= r->nnodes || r->nodes[c].seglen == HASHSEG_NO_SEG)
            HASHSEG_FAIL("slot %zu holds %u, not a static node", i, c);
        used++;
    }
    uint32_t next_id = 0;
    for (uint32_t c = 0; c < r->nnodes; c++) {
        const hashseg_node *x = &r->nodes[c];
        if (c > 0) {
            int rc = check_node(r, c, err);
            if (rc < 0) return rc;
            nstatic += x->seglen != HASHSEG_NO_SEG;
        }
        if (x->param && (x->param <= c || x->param >= r->nnodes))
            HASHSEG_FAIL("node %u: param child %u", c, x->param);
        if (x->flags & HASHSEG_HAS_STATIC) {
            bool any = false;
            for (uint32_t d = c + 1; d < r->nnodes && !any; d++)
                any = r->nodes[d].parent == c && r->nodes[d].seglen != HASHSEG_NO_SEG;
            if (!any) HASHSEG_FAIL("node %u: HAS_STATIC without a static child", c);
        }
        if ((x->end_mask | x->ca_mask) & ~(HASHSEG_METHODS | HASHSEG_ANY_BIT))
            HASHSEG_FAIL("node %u: method mask", c);
        if (x->end_mask) {
            if (x->end_ids != next_id) HASHSEG_FAIL("node %u: end ids do not tile ids[]", c);
            next_id += popcount16(x->end_mask);
        }
        if (x->ca_mask) {
            if (x->ca_ids != next_id) HASHSEG_FAIL("node %u: catch-all ids do not tile ids[]", c);
            next_id += popcount16(x->ca_mask);
        }
    }
    if (next_id != r->nids) HASHSEG_FAIL("terminals hold %u ids, ids[] has %zu", next_id, r->nids);
    if (used != nstatic) HASHSEG_FAIL("%zu slots used for %zu static nodes", used, nstatic);
#undef HASHSEG_FAIL
    return RB_OK;
}

const rb_router_ops rb__hashseg_ops = {
    .abi_version = RB_ROUTER_ABI_VERSION,
    .name = "hashseg",
    .summary = "hashed segments: XXH3-keyed static edges, whole-path probe, param/catch-all DFS",
    .features = RB_FEAT_PARAMS | RB_FEAT_CATCHALL,
    .create = hashseg_create,
    .add = hashseg_add,
    .build = hashseg_build,
    .lookup = hashseg_lookup,
    .memory = hashseg_memory,
    .destroy = hashseg_destroy,
    .describe = NULL,
};
