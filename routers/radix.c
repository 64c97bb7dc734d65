/*
 * radix.c — a byte-level radix (Patricia) tree with param, template and
 * catch-all children: the classic router design (httprouter, matchit) that
 * the other routers are compared against.
 *
 * What it is for: static route bytes are stored once, on compressed edges
 * that are split at the byte where two routes diverge, even inside a
 * segment (/user, /users and /username share "/user").  A node whose bytes
 * end a segment ('/') may also have one param child (takes one whole path
 * segment of 1+ bytes), template children (one per template shape, e.g.
 * "{}.json"; each takes one whole segment that rb__template_match fits,
 * tmplseg.c) and one catch-all child (takes the rest, 1+ bytes).
 *
 * The example route set shared by every router file, as built by radix
 * (node numbers are the array indices after build, breadth first):
 *
 *     GET  /users              id 0
 *     GET  /users/:id          id 1
 *     GET  /users/me           id 2
 *     POST /users/:id/posts    id 3
 *     GET  /static/{*path}     id 4
 *
 *     [0] "/"
 *      |-- 's' [1] "static/"
 *      |        `-- {*}   [3]               GET -> 4
 *      `-- 'u' [2] "users"                  GET -> 0
 *               `-- '/' [4] "/"
 *                        |-- 'm' [5] "me"   GET -> 2
 *                        `-- :   [6]        GET -> 1
 *                                 `-- '/' [7] "/posts"   POST -> 3
 *
 *     GET  /users/me     "/" "users" "/" "me": node 5 fits GET: route 2
 *     GET  /users/me/posts   static "me" dead-ends at '/', back to node 4,
 *                        its param takes "me", "/posts" reaches node 7,
 *                        which holds only POST: no fit, allowed = {POST},
 *                        nothing else matches: 405 {POST}
 *     POST /users/7/posts   node 7: route 3, param span "7"
 *
 * A node split inside a segment: adding GET /username to the tree above
 * turns [2] "users" into "user" with two static children:
 *
 *     before:  'u' "users" GET->0          after:  'u' "user"
 *                 `-- '/' "/" ...                      |-- 'n' "name"  GET->5
 *                                                      `-- 's' "s"     GET->0
 *                                                              `-- '/' "/" ...
 *
 * Node layout after build (radix_node, 40 bytes; nodes are laid out
 * breadth first, so the children of a node are contiguous: its static
 * children sorted by first byte, then its param child, then its catch-all,
 * then its template children in insertion order):
 *
 *     +------+------+-------+-----------+-------+--------+-----+---------+------+
 *     | head | keys | label | label_len | child | parent | ids | methods | info |
 *     | u64  | u64  | u32   | u32       | u32   | u32    | u32 | u16     | u16  |
 *     +------+------+-------+-----------+-------+--------+-----+---------+------+
 *       head       the first 8 label bytes, zero-filled: a label of up to 8
 *                  bytes is one masked word compare (labels hold no NUL)
 *       keys       first bytes of the static children when there are at
 *                  most 8: one SWAR compare finds the child to try
 *       label      offset of the whole label in r->bytes (static nodes; a
 *                  template node: its shape, "img-{}.png")
 *       child      index of the first child
 *       ids        index of the node's route table (when methods != 0):
 *                  10 route ids, one per method and one for '*'
 *       methods    bit m: a route for method m; bit RB_ANY: a route for '*'
 *       info       bits 0-8 number of static children, 9-10 kind,
 *                  11 has a param child, 12 has a catch-all child,
 *                  13 has template children, 14 (a template node)
 *                  another template child follows it
 *     keys[n]      first byte of node n's label (array, 8 bytes of padding):
 *                  scanned for nodes with more than 8 static children
 *
 * The path is read a word at a time but only inside [0, len): the word at
 * pos is loaded from len - 8 and shifted when fewer than 8 bytes remain,
 * and paths shorter than 8 bytes are first copied into a zeroed buffer on
 * the stack.
 *
 * Lookup is a depth-first search that tries, at every node, the static
 * child whose first byte matches, then the param child, then the catch-all
 * child, and stops at the first node that ends the path and holds a route
 * whose method fits (a specific method before '*').  Why that is exactly
 * the priority order of docs/design.md when routes have only static, param and
 * catch-all segments (templates: below):
 *   - two routes that match the same path take the same bytes for every
 *     segment both have static, so they share tree nodes up to the first
 *     segment where their kinds differ; there the search tries static
 *     before param before catch-all, i.e. rank 0 < 1 < 4.  The terminals
 *     that match a path are therefore visited in increasing rank order;
 *   - two different terminals that match one path have different rank
 *     sequences, and neither is a proper prefix of the other (a route
 *     without a catch-all takes exactly its number of segments; with one,
 *     the catch-all is last and takes 1+ bytes, so a longer rank sequence
 *     would have to continue past a catch-all).  So rules 3 (literal bytes)
 *     and 4 (route id) never separate routes of different terminals;
 *   - routes of one terminal have the same shape, hence differ only in
 *     method (the front end refuses duplicates): rule 2 picks the specific
 *     method over '*';
 *   - when a terminal matches but no method fits, the search goes on (a
 *     lower-priority terminal may hold '*'), collecting the terminal's
 *     methods into the 405 mask.  If nothing fits, the search has visited
 *     every node consistent with the path, so the mask is the union over
 *     all matching routes.
 * The search keeps no stack: captures go straight into m->params (the
 * capture count is the depth in param/catch-all nodes) and backing out of
 * a node restores the position from the node itself (static: minus its
 * label length; param or catch-all: the offset of its capture; template:
 * the offset of its first capture minus its first piece).
 *
 * Templates rank as params (1), so the param child and the template
 * children of a node are one rank group, and between the routes they lead
 * to the later segments' ranks decide, then the method, then literal
 * bytes: /f/{id}.json beats /f/{id} on /f/7.json, /f/{id}/x beats
 * /f/{id}.json/{y} on /f/1.json/x.  The first route found is then not
 * always the best, so a node whose group has two or more members searches
 * below each member that takes the segment (radix_group, a recursion of
 * one level per such group on the path) and keeps the route with the
 * smallest key; the routes below one member are found in priority order
 * by the argument above (nested groups resolved the same way).  A group
 * of one member (a lone param, a lone template) needs no comparison and
 * is walked without recursion.  Only routers with templates keep the
 * keys (the ranks and literal bytes of each route table, radix_key).
 *
 * Cost (L path bytes, S path segments, N routes, B pattern bytes):
 *   add     O(pattern bytes + static children scanned); amortized O(1)
 *           allocations (growable arrays, reserved before anything changes).
 *   build   O(nodes + label bytes), five allocations.
 *   lookup  O(L) node steps when no static branch dead-ends.  With
 *           backtracking: every node is entered at most once per lookup (a
 *           node has one parent and, from a given position in its parent,
 *           each edge kind consumes a determined number of bytes), so the
 *           worst case is O(V * L) with V <= nodes = O(B): never
 *           exponential.  A template costs one rb__template_match of its
 *           segment.  No allocation.
 *   memory  O(N + B): at most 2 nodes per pattern piece (static run, param,
 *           catch-all), one 40-byte route table per terminal node.
 *
 * Invariants (radix_check, the ops table's check; before and after build):
 *   - node 0 is the root, label "/", static;
 *   - static children of a node have labels of 1+ bytes with distinct first
 *     bytes, in increasing order;
 *   - param, template and catch-all children hang only below a label
 *     ending in '/'; a param node has no label, no param, template or
 *     catch-all child, and static children starting with '/'; a template
 *     node's label is a template shape and its children are the same as a
 *     param node's; no two template children of a node have one shape; a
 *     catch-all node has no children;
 *   - compression: a non-root static node that is not a terminal and has no
 *     param or catch-all child has at least two static children;
 *   - every leaf but an empty root is a terminal (methods != 0), every
 *     node is reachable once from the root, terminals hold exactly the
 *     routes added;
 *   - at most RB_MAX_CAPTURES captures (params, template params,
 *     catch-alls) on any root path;
 *   - the stored key of each route table (ranks, literal bytes) is that of
 *     the path to its node; after build, keys are kept iff the router has
 *     templates;
 *   - after build: breadth-first order (children after their parent),
 *     parent links, keys[n] is the first byte of node n's label, head and
 *     keys hold the bytes they stand for.
 *
 * What build changes: the linked tree of adds (first child / next sibling,
 * labels in an append-only pool) is copied breadth first into the arrays
 * above (labels and route tables in node order, for locality) and freed.
 * A failed build leaves the router as it was.
 *
 * Thread safety: add and build need exclusive access; after build, lookup
 * only reads, so any number of threads may look up concurrently.
 */
#include "radix.h"

#include <string.h>

enum { RADIX_STATIC = 0, RADIX_PARAM = 1, RADIX_CATCHALL = 2, RADIX_TEMPLATE = 3 };

#define RADIX_SLOTS   (RB_METHOD_COUNT + 1) /* 9 methods and '*' */
#define RADIX_NONE    UINT32_MAX
#define RADIX_PIECES  (2 * RB_MAX_CAPTURES + 1)
#define RADIX_PADDING 8 /* zero bytes after keys[] (word compares) */

#define INFO_NSTATIC    0x1ffu
#define INFO_KIND_SHIFT 9
#define INFO_PARAM      0x800u
#define INFO_CATCHALL   0x1000u
#define INFO_TEMPLATES  0x2000u /* has template children (after param, catch-all) */
#define INFO_MORE       0x4000u /* a template node: another template child follows */

/* The route ids of one terminal node, by method (RB_ANY last). */
typedef struct radix_ids {
    uint32_t id[RADIX_SLOTS];
} radix_ids;

/* A node of the tree being built (before build).  Links are node indices;
 * 0 means none (the root is nobody's child). */
typedef struct radix_mnode {
    uint32_t label, label_len; /* bytes in pool (a template: its shape) */
    uint32_t child, sibling;   /* first static child, next static (or template) sibling */
    uint32_t param, catchall;
    uint32_t tmpl; /* first template child, linked through sibling */
    uint32_t ids;  /* index in mtables, RADIX_NONE when not a terminal */
    uint16_t methods;
    uint8_t kind;
} radix_mnode;

/* What the priority key needs of a terminal's routes (one shape, so one
 * rank sequence and one count of literal bytes): kept only by routers with
 * templates, whose lookups compare the routes a param and templates at one
 * place lead to. */
typedef struct radix_key {
    uint32_t ranks; /* offset of the rank bytes in the rank pool */
    uint32_t nranks;
    uint32_t literal;
} radix_key;

/* A node after build (see the layout at the top). */
typedef struct radix_node {
    uint64_t head; /* label bytes 0-7, zero-filled (labels never hold NUL) */
    uint64_t keys; /* first bytes of the static children when <= 8 of them */
    uint32_t label, label_len;
    uint32_t child, parent;
    uint32_t ids;
    uint16_t methods;
    uint16_t info;
} radix_node;

typedef struct radix_router {
    const rb_allocator *allocator;
    size_t routes;
    bool built;
    /* before build */
    radix_mnode *mnodes;
    uint32_t mcount;
    size_t mcap;
    char *pool;
    size_t pool_len, pool_cap;
    radix_ids *mtables;
    uint32_t mtcount;
    size_t mtcap;
    radix_key *mkeys; /* per route table, as mtables */
    size_t mkcap;
    uint8_t *mranks; /* rank pool */
    size_t mranks_len, mranks_cap;
    size_t templates; /* routes with a template segment */
    /* after build */
    radix_node *nodes;
    uint8_t *keys;
    char *bytes;
    radix_ids *tables;
    radix_key *keys_of; /* per table; NULL without templates */
    uint8_t *ranks;     /* their rank pool */
    size_t nranks;
    uint32_t nnodes, ntables;
    size_t nbytes; /* label bytes, without padding */
} radix_router;

/* A pattern as the tree sees it: runs of static bytes (slashes included)
 * between param, template and catch-all segments (a template piece: its
 * text, names included). */
typedef struct radix_piece {
    uint8_t kind;
    uint32_t len; /* static: bytes of the run */
    const char *text;
} radix_piece;

static unsigned node_kind(const radix_node *n)
{
    return (n->info >> INFO_KIND_SHIFT) & 3u;
}

/* RADIX_SWAR: load words straight from memory (little-endian GCC/Clang);
 * otherwise pack them a byte at a time.  Defining RADIX_SWAR to 0 forces
 * the portable code (tests/test_radix.c compiles that variant too). */
#ifndef RADIX_SWAR
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
#define RADIX_SWAR 1
#else
#define RADIX_SWAR 0
#endif
#endif

/* The first n <= 8 bytes at p as a little-endian word, zero-filled. */
static uint64_t pack_word(const char *p, size_t n)
{
    uint64_t w = 0;
    for (size_t i = 0; i < n && i < 8; i++) w |= (uint64_t)(uint8_t)p[i] << (8 * i);
    return w;
}

/* ---- create / destroy / memory ------------------------------------------ */

static int radix_create(const rb_config *config, void **out, rb_error *err)
{
    radix_router *r = rb_calloc(config->allocator, sizeof *r);
    if (!r) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory creating radix");
    r->allocator = config->allocator;
    r->mnodes = rb_calloc(r->allocator, 16 * sizeof *r->mnodes);
    r->pool = rb_alloc(r->allocator, 64);
    if (!r->mnodes || !r->pool) {
        rb_free(r->allocator, r->mnodes, 16 * sizeof *r->mnodes);
        rb_free(r->allocator, r->pool, 64);
        rb_free(r->allocator, r, sizeof *r);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory creating radix");
    }
    r->mcap = 16;
    r->pool_cap = 64;
    r->pool[0] = '/';
    r->pool_len = 1;
    r->mnodes[0] = (radix_mnode){.label = 0, .label_len = 1, .ids = RADIX_NONE};
    r->mcount = 1;
    *out = r;
    return RB_OK;
}

static void free_building(radix_router *r)
{
    rb_free(r->allocator, r->mnodes, r->mcap * sizeof *r->mnodes);
    rb_free(r->allocator, r->pool, r->pool_cap);
    rb_free(r->allocator, r->mtables, r->mtcap * sizeof *r->mtables);
    rb_free(r->allocator, r->mkeys, r->mkcap * sizeof *r->mkeys);
    rb_free(r->allocator, r->mranks, r->mranks_cap);
    r->mnodes = NULL;
    r->pool = NULL;
    r->mtables = NULL;
    r->mkeys = NULL;
    r->mranks = NULL;
    r->mkcap = r->mranks_len = r->mranks_cap = 0;
    r->mcount = r->mtcount = 0;
    r->mcap = r->mtcap = 0;
    r->pool_len = r->pool_cap = 0;
}

static void radix_destroy(void *impl)
{
    radix_router *r = impl;
    free_building(r);
    rb_free(r->allocator, r->nodes, (size_t)r->nnodes * sizeof *r->nodes);
    rb_free(r->allocator, r->keys, (size_t)r->nnodes + RADIX_PADDING);
    rb_free(r->allocator, r->bytes, r->nbytes);
    rb_free(r->allocator, r->tables, (size_t)r->ntables * sizeof *r->tables);
    if (r->keys_of) rb_free(r->allocator, r->keys_of, (size_t)r->ntables * sizeof *r->keys_of);
    rb_free(r->allocator, r->ranks, r->nranks);
    rb_free(r->allocator, r, sizeof *r);
}

static size_t radix_memory(const void *impl)
{
    const radix_router *r = impl;
    size_t total = sizeof *r;
    if (r->built)
        return total + (size_t)r->nnodes * (sizeof *r->nodes + 1u) + RADIX_PADDING + r->nbytes +
               (size_t)r->ntables * sizeof *r->tables +
               (r->keys_of ? (size_t)r->ntables * sizeof *r->keys_of : 0) + r->nranks;
    return total + r->mcap * sizeof *r->mnodes + r->pool_cap + r->mtcap * sizeof *r->mtables +
           r->mkcap * sizeof *r->mkeys + r->mranks_cap;
}

/* ---- add ------------------------------------------------------------------ */

/* Cut p into pieces; returns their number (<= RADIX_PIECES: at most 32
 * captures, each with the run before it, and one final run). */
static uint32_t cut_pattern(const rb_pattern *p, radix_piece *pc)
{
    uint32_t n = 0;
    const char *run = NULL; /* start of the open static run */
    for (uint32_t i = 0; i < p->nsegs; i++) {
        const rb_segment *s = &p->segs[i];
        const char *slash = p->text + s->offset - 1;
        if (s->kind == RB_SEG_STATIC) {
            if (!run) run = slash;
            continue;
        }
        if (!run) run = slash;
        pc[n++] = (radix_piece){RADIX_STATIC, (uint32_t)(slash + 1 - run), run};
        if (s->kind == RB_SEG_TEMPLATE)
            pc[n++] = (radix_piece){RADIX_TEMPLATE, s->len, p->text + s->offset};
        else
            pc[n++] =
                (radix_piece){s->kind == RB_SEG_PARAM ? RADIX_PARAM : RADIX_CATCHALL, 0, NULL};
        run = NULL;
    }
    if (run) pc[n++] = (radix_piece){RADIX_STATIC, (uint32_t)(p->text + p->len - run), run};
    return n;
}

/* Where a pattern leaves the tree: the deepest node on its way, how many
 * bytes of that node's label it shares, and the first piece (and byte of
 * it) that is not in the tree yet. */
typedef struct radix_spot {
    uint32_t node, depth, piece, off;
} radix_spot;

static uint32_t find_static_child(const radix_router *r, const radix_mnode *n, char c)
{
    for (uint32_t k = n->child; k; k = r->mnodes[k].sibling) {
        if (r->pool[r->mnodes[k].label] == c) return k;
    }
    return 0;
}

/* The template child of n with the shape of template piece pc, or 0. */
static uint32_t find_template_child(const radix_router *r, const radix_mnode *n,
                                    const radix_piece *pc)
{
    for (uint32_t k = n->tmpl; k; k = r->mnodes[k].sibling) {
        const radix_mnode *t = &r->mnodes[k];
        if (rb__template_same_shape(r->pool + t->label, t->label_len, pc->text, pc->len)) return k;
    }
    return 0;
}

static radix_spot find_spot(const radix_router *r, const radix_piece *pc, uint32_t npc)
{
    uint32_t n = 0, d = 1, k = 0, off = 1; /* the root's "/" is every pattern's first byte */
    for (;;) {
        const radix_mnode *nd = &r->mnodes[n];
        if (d < nd->label_len) {
            if (k < npc && pc[k].kind == RADIX_STATIC && off < pc[k].len &&
                r->pool[nd->label + d] == pc[k].text[off]) {
                d++;
                off++;
                continue;
            }
            break;
        }
        if (k == npc) break;
        uint32_t c;
        if (pc[k].kind == RADIX_STATIC) {
            if (off == pc[k].len) {
                k++;
                off = 0;
                continue;
            }
            c = find_static_child(r, nd, pc[k].text[off]);
            if (!c) break;
            d = 1;
            off++;
        } else {
            c = pc[k].kind == RADIX_PARAM      ? nd->param
                : pc[k].kind == RADIX_TEMPLATE ? find_template_child(r, nd, &pc[k])
                                               : nd->catchall;
            if (!c) break;
            d = r->mnodes[c].label_len; /* a template's shape is its label: all of it */
            k++;
            off = 0;
        }
        n = c;
    }
    return (radix_spot){n, d, k, off};
}

/* Append a node (capacity reserved by the caller). */
static uint32_t new_node(radix_router *r, uint8_t kind, const char *text, uint32_t len)
{
    uint32_t i = r->mcount++;
    r->mnodes[i] = (radix_mnode){
        .label = (uint32_t)r->pool_len, .label_len = len, .ids = RADIX_NONE, .kind = kind};
    if (len) memcpy(r->pool + r->pool_len, text, len);
    r->pool_len += len;
    return i;
}

/* Link static node c below n, keeping siblings sorted by first byte. */
static void link_static(radix_router *r, uint32_t n, uint32_t c)
{
    unsigned char key = (unsigned char)r->pool[r->mnodes[c].label];
    uint32_t *link = &r->mnodes[n].child;
    while (*link && (unsigned char)r->pool[r->mnodes[*link].label] < key)
        link = &r->mnodes[*link].sibling;
    r->mnodes[c].sibling = *link;
    *link = c;
}

/* Split static node n after d bytes of its label: n keeps the first d bytes
 * (and its place among its siblings), a new node takes the rest together
 * with n's children and routes. */
static void split_node(radix_router *r, uint32_t n, uint32_t d)
{
    uint32_t z = r->mcount++;
    radix_mnode *x = &r->mnodes[n];
    r->mnodes[z] = *x;
    r->mnodes[z].label += d;
    r->mnodes[z].label_len -= d;
    r->mnodes[z].sibling = 0;
    x->label_len = d;
    x->child = z;
    x->param = x->catchall = x->tmpl = 0;
    x->ids = RADIX_NONE;
    x->methods = 0;
}

static int radix_add(void *impl, const rb_route *route, rb_error *err)
{
    radix_router *r = impl;
    if (r->built) return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "radix: add after build");
    radix_piece pc[RADIX_PIECES];
    uint32_t npc = cut_pattern(route->pattern, pc);
    radix_spot at = find_spot(r, pc, npc);

    /* What the route needs: a split, one node per remaining piece, the
     * bytes of the remaining static pieces, maybe a route table. */
    bool split = at.depth < r->mnodes[at.node].label_len;
    size_t nodes = split ? 1u : 0u, bytes = 0;
    for (uint32_t k = at.piece; k < npc; k++) {
        uint32_t skip = k == at.piece ? at.off : 0;
        if (pc[k].kind != RADIX_STATIC || pc[k].len > skip) nodes++;
        if (pc[k].kind == RADIX_STATIC) bytes += pc[k].len - skip;
    }
    bool fresh = nodes > 0; /* the terminal is a new node or a split's upper part */
    if (!fresh) {
        const radix_mnode *t = &r->mnodes[at.node];
        if (t->methods & RB_METHOD_BIT(route->method))
            return rb__error(err, RB_EDUPLICATE, 0, "radix: duplicate route");
        fresh = t->ids == RADIX_NONE;
    }
    const rb_pattern *p = route->pattern;
    for (uint32_t k = at.piece; k < npc; k++) /* a template's shape is written to the pool */
        if (pc[k].kind == RADIX_TEMPLATE) bytes += rb__template_shape_len(pc[k].text, pc[k].len);
    if ((size_t)r->mcount + nodes > UINT32_MAX - 1 || r->pool_len + bytes > UINT32_MAX ||
        r->mranks_len + route->pattern->nsegs > UINT32_MAX || r->mtcount == UINT32_MAX)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "radix: tree larger than 4 GiB");
    const rb_allocator *a = r->allocator;
    if (rb_grow(a, &r->mnodes, &r->mcap, r->mcount + nodes, sizeof *r->mnodes, 16) < 0 ||
        rb_grow(a, &r->pool, &r->pool_cap, r->pool_len + bytes, 1, 16) < 0 ||
        rb_grow(a, &r->mtables, &r->mtcap, (size_t)r->mtcount + (fresh ? 1u : 0u),
                sizeof *r->mtables, 16) < 0 ||
        rb_grow(a, &r->mkeys, &r->mkcap, (size_t)r->mtcount + (fresh ? 1u : 0u), sizeof *r->mkeys,
                16) < 0 ||
        rb_grow(a, &r->mranks, &r->mranks_cap, r->mranks_len + (fresh ? p->nsegs : 0u), 1, 64) < 0)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory adding a route to radix");

    /* From here on nothing can fail. */
    uint32_t n = at.node;
    if (split) split_node(r, n, at.depth);
    for (uint32_t k = at.piece; k < npc; k++) {
        uint32_t skip = k == at.piece ? at.off : 0;
        if (pc[k].kind == RADIX_STATIC) {
            if (pc[k].len == skip) continue;
            uint32_t c = new_node(r, RADIX_STATIC, pc[k].text + skip, pc[k].len - skip);
            link_static(r, n, c);
            n = c;
        } else if (pc[k].kind == RADIX_TEMPLATE) {
            uint32_t c = new_node(r, RADIX_TEMPLATE, NULL, 0);
            r->mnodes[c].label_len =
                (uint32_t)rb__template_shape(pc[k].text, pc[k].len, r->pool + r->pool_len);
            r->pool_len += r->mnodes[c].label_len;
            uint32_t *link = &r->mnodes[n].tmpl; /* appended: tried in insertion order */
            while (*link) link = &r->mnodes[*link].sibling;
            *link = c;
            n = c;
        } else {
            uint32_t c = new_node(r, pc[k].kind, NULL, 0);
            if (pc[k].kind == RADIX_PARAM)
                r->mnodes[n].param = c;
            else
                r->mnodes[n].catchall = c;
            n = c;
        }
    }
    radix_mnode *t = &r->mnodes[n];
    if (t->ids == RADIX_NONE) {
        t->ids = r->mtcount++;
        for (int m = 0; m < RADIX_SLOTS; m++) r->mtables[t->ids].id[m] = RADIX_NONE;
        r->mkeys[t->ids] = (radix_key){(uint32_t)r->mranks_len, p->nsegs, p->literal_bytes};
        memcpy(r->mranks + r->mranks_len, p->ranks, p->nsegs);
        r->mranks_len += p->nsegs;
    }
    if (p->features & RB_FEAT_TEMPLATE) r->templates++;
    r->mtables[t->ids].id[route->method] = route->id;
    t->methods |= (uint16_t)RB_METHOD_BIT(route->method);
    r->routes++;
    return RB_OK;
}

/* ---- build ---------------------------------------------------------------- */

static int radix_build(void *impl, rb_error *err)
{
    radix_router *r = impl;
    if (r->built) return rb__error(err, RB_ESTATE, RB_NO_OFFSET, "radix: already built");
    const rb_allocator *a = r->allocator;
    uint32_t count = r->mcount;
    size_t nbytes = 0;
    for (uint32_t i = 0; i < count; i++) nbytes += r->mnodes[i].label_len;

    radix_node *nodes = rb_calloc(a, (size_t)count * sizeof *nodes);
    uint8_t *keys = rb_calloc(a, (size_t)count + RADIX_PADDING);
    char *bytes = rb_alloc(a, nbytes);
    radix_ids *tables = r->mtcount ? rb_alloc(a, (size_t)r->mtcount * sizeof *tables) : NULL;
    uint32_t *src = rb_alloc(a, (size_t)count * sizeof *src); /* node -> its mnode */
    /* the priority keys, for tables with templates only */
    bool with_keys = r->templates && r->mtcount;
    size_t nranks = with_keys ? r->mranks_len : 0;
    radix_key *keys_of = with_keys ? rb_alloc(a, (size_t)r->mtcount * sizeof *keys_of) : NULL;
    uint8_t *ranks = with_keys ? rb_alloc(a, nranks) : NULL;
    if (!nodes || !keys || !bytes || (!tables && r->mtcount) || !src ||
        (with_keys && (!keys_of || !ranks))) {
        rb_free(a, nodes, (size_t)count * sizeof *nodes);
        rb_free(a, keys, (size_t)count + RADIX_PADDING);
        rb_free(a, bytes, nbytes);
        rb_free(a, tables, (size_t)r->mtcount * sizeof *tables);
        rb_free(a, src, (size_t)count * sizeof *src);
        if (keys_of) rb_free(a, keys_of, (size_t)r->mtcount * sizeof *keys_of);
        rb_free(a, ranks, nranks);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory building radix");
    }
    if (with_keys) memcpy(ranks, r->mranks, nranks);

    /* Breadth first: nodes[] is its own queue. */
    uint32_t next = 1, ntables = 0;
    size_t boff = 0;
    src[0] = 0;
    for (uint32_t i = 0; i < next; i++) {
        const radix_mnode *mn = &r->mnodes[src[i]];
        radix_node *nd = &nodes[i];
        nd->label = (uint32_t)boff;
        nd->label_len = mn->label_len;
        memcpy(bytes + boff, r->pool + mn->label, mn->label_len);
        keys[i] = mn->label_len ? (uint8_t)bytes[boff] : 0;
        boff += mn->label_len;
        nd->methods = mn->methods;
        nd->ids = RADIX_NONE;
        if (mn->methods) {
            tables[ntables] = r->mtables[mn->ids];
            if (keys_of) keys_of[ntables] = r->mkeys[mn->ids];
            nd->ids = ntables++;
        }
        nd->child = next;
        unsigned nstatic = 0, info = (unsigned)mn->kind << INFO_KIND_SHIFT;
        for (uint32_t c = mn->child; c; c = r->mnodes[c].sibling, nstatic++) {
            nodes[next].parent = i;
            src[next++] = c;
        }
        if (mn->param) {
            info |= INFO_PARAM;
            nodes[next].parent = i;
            src[next++] = mn->param;
        }
        if (mn->catchall) {
            info |= INFO_CATCHALL;
            nodes[next].parent = i;
            src[next++] = mn->catchall;
        }
        for (uint32_t c = mn->tmpl; c; c = r->mnodes[c].sibling) {
            info |= INFO_TEMPLATES;
            nodes[next].parent = i;
            /* the node is filled when its turn comes; INFO_MORE is set then */
            src[next++] = c;
        }
        if (mn->kind == RADIX_TEMPLATE && mn->sibling) info |= INFO_MORE;
        nd->info = (uint16_t)(info | nstatic);
        nd->head = pack_word(bytes + nd->label, nd->label_len);
    }
    for (uint32_t i = 0; i < count; i++) {
        unsigned ns = nodes[i].info & INFO_NSTATIC;
        if (ns <= 8) nodes[i].keys = pack_word((const char *)keys + nodes[i].child, ns);
    }
    rb_free(a, src, (size_t)count * sizeof *src);
    free_building(r);
    r->nodes = nodes;
    r->keys = keys;
    r->bytes = bytes;
    r->tables = tables;
    r->keys_of = keys_of;
    r->ranks = ranks;
    r->nranks = nranks;
    r->nnodes = count;
    r->ntables = ntables;
    r->nbytes = nbytes;
    r->built = true;
    return RB_OK;
}

/* ---- lookup --------------------------------------------------------------- */

/* Word-at-a-time helpers.  keys[] carries RADIX_PADDING bytes after its
 * end; the path is read only in bounds.  Words hold bytes in little-endian
 * order (byte i in bits 8i..8i+7) whether loaded (RADIX_SWAR) or packed. */

#define ONES  0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

static inline uint64_t load64(const void *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

/* Nonzero when some byte of x is zero; its lowest set bit marks the first
 * zero byte exactly (bytes after it may be flagged falsely). */
static inline uint64_t zero_bytes(uint64_t x)
{
    return (x - ONES) & ~x & HIGHS;
}

/* Index of key c among the ns keys at k, or ns (nodes with more than 8
 * static children). */
static inline unsigned find_key(const uint8_t *k, unsigned ns, uint8_t c)
{
#if RADIX_SWAR
    uint64_t pattern = ONES * c;
    for (unsigned i = 0; i < ns; i += 8) {
        uint64_t z = zero_bytes(load64(k + i) ^ pattern);
        if (z) {
            unsigned j = i + (unsigned)__builtin_ctzll(z) / 8u;
            return j < ns ? j : ns;
        }
    }
    return ns;
#else
    unsigned i = 0;
    while (i < ns && k[i] != c) i++;
    return i;
#endif
}

/* The 8 path bytes from pos (pos < len), bytes past len read as zero.
 * Never reads outside path[0, len) when len >= 8; radix_lookup copies
 * shorter paths into a padded buffer. */
static inline uint64_t path_word(const char *path, size_t pos, size_t len)
{
    size_t avail = len - pos;
#if RADIX_SWAR
    const char *at = avail >= 8 ? path + pos : path + len - 8; /* (path + len) - 8 */
    unsigned shift = avail >= 8 ? 0u : 8u * (unsigned)(8 - avail);
    return load64(at) >> shift;
#else
    return pack_word(path + pos, avail);
#endif
}

/* Masks of the low n bytes. */
static const uint64_t low_bytes[9] = {
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

static inline unsigned first_flag(uint64_t z) /* z != 0: index of its lowest flagged byte */
{
#if RADIX_SWAR
    return (unsigned)__builtin_ctzll(z) / 8u;
#else
    unsigned i = 0;
    while (!((z >> (8 * i)) & 0x80u)) i++;
    return i;
#endif
}

/* Flags of the bytes of w (holding avail path bytes, zero past the end)
 * that end a segment: a '/' or the end of the path. */
static inline uint64_t segment_stops(uint64_t w, size_t avail)
{
    uint64_t z = zero_bytes(w ^ (ONES * '/')) & low_bytes[avail < 8 ? avail : 8];
    return avail < 8 ? z | (0x80ull << (8 * avail)) : z;
}

/* End of the path segment that starts at pos: the next '/' or len.
 * w = path_word(pos).  Segments of up to 15 bytes take no loop. */
static inline size_t segment_end(const char *path, uint64_t w, size_t pos, size_t len)
{
    size_t avail = len - pos;
    uint64_t z = segment_stops(w, avail);
    if (z) return pos + first_flag(z);
    pos += 8; /* avail >= 8 */
    if (pos < len) {
        z = segment_stops(path_word(path, pos, len), len - pos);
        if (z) return pos + first_flag(z);
        for (pos += 8; pos < len && path[pos] != '/';) pos++;
    }
    return pos;
}

/* Does static node ch's label match the path at pos?  w = path_word(pos). */
static inline bool label_matches(const radix_router *r, const radix_node *ch, uint64_t w,
                                 const char *path, size_t pos, size_t len)
{
    size_t n = ch->label_len;
    if (n <= 8) return ((w ^ ch->head) & low_bytes[n]) == 0;
    if (w != ch->head || n > len - pos) return false;
    return memcmp(r->bytes + ch->label + 8, path + pos + 8, n - 8) == 0;
}

static bool radix_group(const radix_router *r, uint32_t g, size_t pos, size_t e, uint32_t np,
                        int method, const char *path, size_t len, rb_match *m, uint32_t *allowed,
                        uint32_t *term);

/* Node n's param child and template children on the segment path[pos, e)
 * (see "Lookup" above): the one that takes it, its captures written and
 * *np advanced past them; 0 when none does; or, when two or more do, 0 and
 * *got after radix_group decided (m and *term filled). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static uint32_t
radix_tmpl_step(const radix_router *r, uint32_t n, size_t pos, size_t e, uint32_t *np, int method,
                const char *path, size_t len, rb_match *m, uint32_t *allowed, uint32_t *term,
                bool *got)
{
    const radix_node *nodes = r->nodes, *nd = &nodes[n];
    if (e == pos) return 0; /* params and templates take 1+ bytes */
    uint32_t p = nd->child + (nd->info & INFO_NSTATIC);
    uint32_t tc = p + ((nd->info & INFO_PARAM) ? 1u : 0u) + ((nd->info & INFO_CATCHALL) ? 1u : 0u);
    uint32_t fits = 0, only = 0, last = tc;
    if (nd->info & INFO_PARAM) fits = 1, only = p;
    for (uint32_t c = tc, more = 1; more; c++) {
        const radix_node *t = &nodes[c];
        more = (t->info & INFO_MORE) != 0;
        last = c;
        if (!rb__template_match(r->bytes + t->label, t->label_len, path + pos, e - pos,
                                (uint32_t)pos, m->params + *np, NULL))
            continue;
        fits++;
        only = c;
    }
    if (fits > 1) {
        *got = radix_group(r, n, pos, e, *np, method, path, len, m, allowed, term);
        return 0;
    }
    if (!fits) return 0;
    if (only == p && (nd->info & INFO_PARAM)) {
        m->params[(*np)++] = (rb_span){(uint32_t)pos, (uint32_t)(e - pos)};
        return only;
    }
    const radix_node *t = &nodes[only];
    if (only != last) /* a later failed match may have written the captures */
        rb__template_match(r->bytes + t->label, t->label_len, path + pos, e - pos, (uint32_t)pos,
                           m->params + *np, NULL);
    *np += rb__template_params(r->bytes + t->label, t->label_len);
    return only;
}

/* The search below node `start` (see "Lookup" above): depth first from
 * start, entered with pos the first path byte after it (after its label,
 * or after the segment a param or template took) and np captures taken;
 * it never backs out of start.  true: the first route found whose method
 * fits, in m->route_id, m->nparams and m->params, and its node in *term;
 * false: none, and *allowed has gained the methods of the routes that
 * matched the path. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
radix_walk(const radix_router *r, uint32_t start, size_t pos, uint32_t np, int method,
           const char *path, size_t len, rb_match *m, uint32_t *allowed, uint32_t *term)
{
    const radix_node *nodes = r->nodes;
    const uint32_t fit = RB_METHOD_BIT(method) | RB_METHOD_BIT(RB_ANY);
    uint32_t n = start;
    const radix_node *nd;
    uint64_t w;

    /* Entered node n; pos is the first path byte after its label. */
enter:
    nd = &nodes[n];
    if (pos == len) {
        /* Every child takes 1+ bytes: only this node can end the path. */
        if (nd->methods & fit) goto found;
        *allowed |= nd->methods;
        goto leave;
    }
    w = path_word(path, pos, len);
    {
        unsigned ns = nd->info & INFO_NSTATIC, i;
        if (ns <= 8) {
            uint64_t z = zero_bytes(nd->keys ^ (ONES * (uint8_t)w)) & low_bytes[ns] & HIGHS;
#if RADIX_SWAR
            i = z ? (unsigned)__builtin_ctzll(z) / 8u : 8u;
#else
            for (i = 0; i < 8 && !((z >> (8 * i)) & 0x80u); i++) continue;
#endif
        } else {
            i = find_key(r->keys + nd->child, ns, (uint8_t)w);
        }
        if (i < ns) {
            const radix_node *ch = &nodes[nd->child + i];
            if (label_matches(r, ch, w, path, pos, len)) {
                n = nd->child + i;
                pos += ch->label_len;
                goto enter;
            }
        }
    }
    goto try_param_w;
try_param:
    w = path_word(path, pos, len);
try_param_w:
    if (nd->info & (INFO_PARAM | INFO_TEMPLATES)) {
        size_t e = segment_end(path, w, pos, len);
        if (!(nd->info & INFO_TEMPLATES)) { /* a param child alone */
            if (e > pos) {
                m->params[np++] = (rb_span){(uint32_t)pos, (uint32_t)(e - pos)};
                n = nd->child + (nd->info & INFO_NSTATIC);
                pos = e;
                goto enter;
            }
        } else { /* out of line: tables without templates never pay */
            uint32_t np2 = np;
            bool got = false;
            uint32_t c =
                radix_tmpl_step(r, n, pos, e, &np2, method, path, len, m, allowed, term, &got);
            if (got) return true;
            if (c) {
                np = np2;
                n = c;
                pos = e;
                goto enter;
            }
        }
    }
try_catchall:
    if (nd->info & INFO_CATCHALL) {
        m->params[np++] = (rb_span){(uint32_t)pos, (uint32_t)(len - pos)};
        n = nd->child + (nd->info & INFO_NSTATIC) + ((nd->info & INFO_PARAM) ? 1u : 0u);
        pos = len;
        goto enter;
    }
leave:
    /* Back out of node n into its parent and try the parent's next kind. */
    if (n == start) return false;
    nd = &nodes[n];
    n = nd->parent;
    switch (node_kind(nd)) {
    case RADIX_STATIC:
        pos -= nd->label_len;
        nd = &nodes[n];
        goto try_param;
    case RADIX_PARAM:
        pos = m->params[--np].offset;
        nd = &nodes[n];
        goto try_catchall;
    case RADIX_TEMPLATE: { /* the only child of its group: the catch-all is next */
        const char *t = r->bytes + nd->label;
        np -= rb__template_params(t, nd->label_len);
        pos = m->params[np].offset - rb__template_prefix(t, nd->label_len);
        nd = &nodes[n];
        goto try_catchall;
    }
    default:
        pos = m->params[--np].offset;
        goto leave;
    }

found:
    m->route_id = r->tables[nd->ids].id[(nd->methods & RB_METHOD_BIT(method)) ? method : RB_ANY];
    m->nparams = np;
    *term = n;
    return true;
}

/* The priority key of the route terminal t answers method with (id). */
static rb_priority key_of(const radix_router *r, uint32_t t, int method, uint32_t id)
{
    const radix_node *nd = &r->nodes[t];
    const radix_key *k = &r->keys_of[nd->ids];
    return (rb_priority){r->ranks + k->ranks, k->nranks, !(nd->methods & RB_METHOD_BIT(method)),
                         k->literal, id};
}

/* Node g's rank-1 group, its param child and template children (two or
 * more of them), on the segment path[pos, e): every member that takes the
 * segment is searched below (radix_walk), and the routes found are
 * compared by the whole priority key, since the ranks of the segments
 * after this one, the method and the literal bytes decide between them.
 * Returns as radix_walk does, with the best of them.  Recursion: one level
 * per group a path passes with 2+ members, each taking a capture, so at
 * most RB_MAX_CAPTURES levels of about 300 bytes of stack. */
static bool radix_group(const radix_router *r, uint32_t g, size_t pos, size_t e, uint32_t np,
                        int method, const char *path, size_t len, rb_match *m, uint32_t *allowed,
                        uint32_t *term)
{
    const radix_node *nodes = r->nodes, *nd = &nodes[g];
    uint32_t c = nd->child + (nd->info & INFO_NSTATIC);
    uint32_t tc = c + ((nd->info & INFO_PARAM) ? 1u : 0u) + ((nd->info & INFO_CATCHALL) ? 1u : 0u);
    bool found = false, more = true;
    rb_priority best = {0};
    uint32_t best_id = 0, best_np = 0, best_term = 0;
    rb_span caps[RB_MAX_CAPTURES];
    if (!(nd->info & INFO_PARAM)) c = tc;
    for (; more; c = c < tc ? tc : c + 1) {
        const radix_node *x = &nodes[c];
        uint32_t k = 1;
        if (node_kind(x) == RADIX_PARAM) {
            if (e == pos) continue;
            m->params[np] = (rb_span){(uint32_t)pos, (uint32_t)(e - pos)};
        } else {
            more = (x->info & INFO_MORE) != 0;
            const char *t = r->bytes + x->label;
            if (!rb__template_match(t, x->label_len, path + pos, e - pos, (uint32_t)pos,
                                    m->params + np, NULL))
                continue;
            k = rb__template_params(t, x->label_len);
        }
        uint32_t t;
        if (!radix_walk(r, c, e, np + k, method, path, len, m, allowed, &t)) continue;
        rb_priority key = key_of(r, t, method, m->route_id);
        if (found && rb_priority_compare(&key, &best) >= 0) continue;
        found = true;
        best = key;
        best_id = m->route_id;
        best_np = m->nparams;
        best_term = t;
        memcpy(caps + np, m->params + np, (best_np - np) * sizeof caps[0]);
    }
    if (!found) return false;
    memcpy(m->params + np, caps + np, (best_np - np) * sizeof caps[0]);
    m->route_id = best_id;
    m->nparams = best_np;
    *term = best_term;
    return true;
}

static int radix_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    const radix_router *r = impl;
    uint32_t allowed = 0, term;
    char pad[24];

    if (len > 0 && path[0] == '/') {
        if (len < 8) {
            /* path_word reads the 8 bytes before the end: give it room. */
            memset(pad, 0, sizeof pad);
            memcpy(pad + 8, path, len);
            path = pad + 8;
        }
        if (radix_walk(r, 0, 1, 0, method, path, len, m, &allowed, &term)) {
            m->outcome = RB_FOUND;
            m->allowed = 0;
            return RB_FOUND;
        }
    }
    m->outcome = allowed ? RB_METHOD_NOT_ALLOWED : RB_NOT_FOUND;
    m->nparams = 0;
    m->allowed = allowed;
    return m->outcome;
}

/* ---- invariant check ------------------------------------------------------ */

/* One node as the checker sees it, from either form. */
typedef struct radix_view {
    const char *label;
    uint32_t label_len;
    unsigned kind, methods, info;
    uint32_t ids, nstatic, param, catchall; /* param/catchall: 0 none */
    uint32_t tmpl;                          /* first template child, 0 none */
} radix_view;

typedef struct radix_checker {
    const radix_router *r;
    uint8_t *seen;
    uint32_t count, visited;
    size_t routes;
    rb_error *err;
    uint8_t *rk; /* ranks of the segments on the path from the root */
    size_t nrk;
} radix_checker;

/* Fill v for node i; stat (may be NULL) gets the static children. */
static int view_node(const radix_router *r, uint32_t i, radix_view *v, uint32_t stat[256],
                     rb_error *err)
{
    if (r->built) {
        const radix_node *nd = &r->nodes[i];
        v->label = r->bytes + nd->label;
        v->label_len = nd->label_len;
        v->kind = node_kind(nd);
        v->methods = nd->methods;
        v->info = nd->info;
        v->ids = nd->ids;
        v->nstatic = nd->info & INFO_NSTATIC;
        uint64_t c = (uint64_t)nd->child + v->nstatic;
        v->param = (nd->info & INFO_PARAM) ? (uint32_t)c++ : 0;
        v->catchall = (nd->info & INFO_CATCHALL) ? (uint32_t)c++ : 0;
        v->tmpl = 0;
        if (nd->info & INFO_TEMPLATES) { /* a run, each but the last marked INFO_MORE */
            v->tmpl = (uint32_t)c;
            while (c < r->nnodes && (r->nodes[c].info & INFO_MORE)) c++;
            c++;
        }
        if (v->nstatic > 256 || (uint64_t)nd->label + nd->label_len > r->nbytes ||
            (nd->methods && nd->ids >= r->ntables) || c > r->nnodes)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: field out of range", i);
        if (pack_word(v->label, nd->label_len) != nd->head)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: head differs from label", i);
        if (c > nd->child && nd->child <= i)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                             "node %u: children not after it (breadth-first order)", i);
        for (uint32_t k = nd->child; k < c; k++) {
            if (r->nodes[k].parent != i)
                return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                                 "node %u: parent link says %u, not %u", k, r->nodes[k].parent, i);
            const radix_node *ch = &r->nodes[k];
            if (ch->label_len && r->keys[k] != (uint8_t)r->bytes[ch->label])
                return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                                 "node %u: key byte differs from its label", k);
            if (k < nd->child + 8 && k - nd->child < v->nstatic && v->nstatic <= 8 &&
                ((nd->keys >> (8 * (k - nd->child))) & 0xffu) != r->keys[k])
                return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                                 "node %u: inline key %u differs from the child's", i,
                                 k - nd->child);
            if (stat && k - nd->child < v->nstatic) stat[k - nd->child] = k;
        }
        return RB_OK;
    }
    const radix_mnode *mn = &r->mnodes[i];
    v->label = r->pool + mn->label;
    v->label_len = mn->label_len;
    v->kind = mn->kind;
    v->methods = mn->methods;
    v->ids = mn->ids;
    v->param = mn->param;
    v->catchall = mn->catchall;
    v->tmpl = mn->tmpl;
    v->info = 0;
    v->nstatic = 0;
    if ((uint64_t)mn->label + mn->label_len > r->pool_len ||
        (mn->methods && mn->ids >= r->mtcount) || mn->param >= r->mcount ||
        mn->catchall >= r->mcount || mn->tmpl >= r->mcount)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: field out of range", i);
    for (uint32_t c = mn->child; c; c = r->mnodes[c].sibling) {
        if (c >= r->mcount || v->nstatic == 256)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: bad static child list", i);
        if (stat) stat[v->nstatic] = c;
        v->nstatic++;
    }
    return RB_OK;
}

static const radix_ids *ids_of(const radix_router *r, uint32_t ids)
{
    return r->built ? &r->tables[ids] : &r->mtables[ids];
}

/* The template child after c among its parent's (0: none). */
static uint32_t next_template(const radix_router *r, uint32_t c)
{
    if (r->built) return (r->nodes[c].info & INFO_MORE) ? c + 1 : 0;
    return r->mnodes[c].sibling;
}

/* The priority-key part of terminal table ids, before or after build
 * (NULL after a build of a table without templates, which keeps none). */
static const radix_key *key_at(const radix_router *r, uint32_t ids, const uint8_t **pool,
                               size_t *pool_len)
{
    *pool = r->built ? r->ranks : r->mranks;
    *pool_len = r->built ? r->nranks : r->mranks_len;
    if (r->built) return r->keys_of ? &r->keys_of[ids] : NULL;
    return &r->mkeys[ids];
}

/* A terminal's stored ranks and literal bytes are those of the path: the
 * ranks pushed on the way down (ck->rk), the literal bytes counted there. */
static int check_key(radix_checker *ck, uint32_t i, uint32_t ids, uint32_t literal)
{
    const uint8_t *pool;
    size_t pool_len;
    const radix_key *k = key_at(ck->r, ids, &pool, &pool_len);
    if (!k) return RB_OK;
    if ((uint64_t)k->ranks + k->nranks > pool_len || k->nranks != ck->nrk ||
        memcmp(pool + k->ranks, ck->rk, ck->nrk) != 0 || k->literal != literal)
        return rb__error(ck->err, RB_EINVAL, RB_NO_OFFSET,
                         "node %u: the stored priority key is not that of the path to it", i);
    return RB_OK;
}

static int check_node(radix_checker *ck, uint32_t i, uint32_t captures, uint32_t literal)
{
    const radix_router *r = ck->r;
    rb_error *err = ck->err;
    if (i >= ck->count) return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u out of range", i);
    if (ck->seen[i / 8] & (1u << (i % 8)))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u reached twice", i);
    ck->seen[i / 8] |= (uint8_t)(1u << (i % 8));
    ck->visited++;

    radix_view v;
    uint32_t stat[256];
    int rc = view_node(r, i, &v, stat, err);
    if (rc < 0) return rc;
    if (v.kind > RADIX_TEMPLATE)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: bad kind %u", i, v.kind);
    if ((v.kind == RADIX_STATIC || v.kind == RADIX_TEMPLATE) ? v.label_len == 0 : v.label_len != 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: label length %u for kind %u", i,
                         v.label_len, v.kind);
    /* the ranks and literal bytes of the path, for the terminals' keys */
    size_t nrk = ck->nrk;
    uint8_t last = nrk ? ck->rk[nrk - 1] : 0;
    if (v.kind == RADIX_STATIC) {
        for (uint32_t k = 0; k < v.label_len; k++) {
            if (v.label[k] == '/')
                ck->rk[ck->nrk++] = RB_SEG_STATIC;
            else
                literal++;
        }
    } else if (nrk == 0) {
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: a capture at the root", i);
    } else {
        ck->rk[nrk - 1] = v.kind == RADIX_CATCHALL ? RB_SEG_CATCHALL : RB_SEG_PARAM;
    }
    if (v.kind == RADIX_TEMPLATE) {
        uint32_t params = 0, lit = 0;
        for (uint32_t k = 0; k < v.label_len; k++) {
            bool open = v.label[k] == '{', close = v.label[k] == '}';
            if (open && (k + 1 == v.label_len || v.label[k + 1] != '}'))
                return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                                 "node %u: a template label that is not a shape", i);
            params += open;
            lit += !open && !close;
            if (v.label[k] == '/')
                return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: '/' in a template", i);
        }
        if (!params)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: a template without params", i);
        captures += params;
        literal += lit;
    } else if (v.kind != RADIX_STATIC) {
        captures++;
    }
    if (captures > RB_MAX_CAPTURES)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: more than %d captures above it", i,
                         RB_MAX_CAPTURES);
    if ((v.param || v.catchall || v.tmpl) &&
        (v.kind != RADIX_STATIC || v.label[v.label_len - 1] != '/'))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "node %u: param, template or catch-all child below a label not ending "
                         "in '/'",
                         i);
    if (v.kind == RADIX_CATCHALL && v.nstatic)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: catch-all with children", i);
    if (v.kind != RADIX_TEMPLATE && (v.info & INFO_MORE))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: INFO_MORE on a non-template", i);
    if (v.methods & ~((1u << RADIX_SLOTS) - 1u))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: bad method bits", i);
    bool leaf = !v.nstatic && !v.param && !v.catchall && !v.tmpl;
    if (leaf && !v.methods && i != 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: a leaf without routes", i);
    if (i != 0 && v.kind == RADIX_STATIC && !v.methods && !v.param && !v.catchall && !v.tmpl &&
        v.nstatic < 2)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "node %u: a pass-through node with one child (not compressed)", i);
    if (v.methods) {
        rc = check_key(ck, i, v.ids, literal);
        if (rc < 0) return rc;
        const radix_ids *t = ids_of(r, v.ids);
        for (unsigned m = 0; m < RADIX_SLOTS; m++) {
            bool has = (v.methods >> m) & 1u;
            if (has != (t->id[m] != RADIX_NONE))
                return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                                 "node %u: method mask and route table disagree", i);
            ck->routes += has;
        }
    }
    int prev = -1;
    for (uint32_t k = 0; k < v.nstatic; k++) {
        radix_view c;
        rc = view_node(r, stat[k], &c, NULL, err);
        if (rc < 0) return rc;
        if (c.kind != RADIX_STATIC || c.label_len == 0)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: bad static child %u", i,
                             stat[k]);
        int key = (unsigned char)c.label[0];
        if (key <= prev)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                             "node %u: static children not in increasing first-byte order", i);
        if ((v.kind == RADIX_PARAM || v.kind == RADIX_TEMPLATE) && key != '/')
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                             "node %u: param or template followed by bytes other than '/'", i);
        prev = key;
        rc = check_node(ck, stat[k], captures, literal);
        if (rc < 0) return rc;
    }
    uint32_t kids[2] = {v.param, v.catchall};
    unsigned want[2] = {RADIX_PARAM, RADIX_CATCHALL};
    for (int k = 0; k < 2; k++) {
        if (!kids[k]) continue;
        radix_view c;
        rc = view_node(r, kids[k], &c, NULL, err);
        if (rc < 0) return rc;
        if (c.kind != want[k])
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: child %u of wrong kind", i,
                             kids[k]);
        rc = check_node(ck, kids[k], captures, literal);
        if (rc < 0) return rc;
    }
    for (uint32_t t = v.tmpl, nt = 0; t; t = next_template(r, t), nt++) {
        radix_view c;
        if (t >= ck->count || nt >= ck->count)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: bad template list", i);
        rc = view_node(r, t, &c, NULL, err);
        if (rc < 0) return rc;
        if (c.kind != RADIX_TEMPLATE)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "node %u: template child %u of kind %u",
                             i, t, c.kind);
        for (uint32_t u = v.tmpl; u != t; u = next_template(r, u)) {
            radix_view o;
            rc = view_node(r, u, &o, NULL, err);
            if (rc < 0) return rc;
            if (rb__template_same_shape(o.label, o.label_len, c.label, c.label_len))
                return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                                 "node %u: two template children of one shape", i);
        }
        rc = check_node(ck, t, captures, literal);
        if (rc < 0) return rc;
    }
    ck->nrk = nrk; /* back to the parent's path */
    if (nrk) ck->rk[nrk - 1] = last;
    return RB_OK;
}

static int radix_check(const void *impl, rb_error *err)
{
    const radix_router *r = impl;
    uint32_t count = r->built ? r->nnodes : r->mcount;
    uint32_t tables = r->built ? r->ntables : r->mtcount;
    if (count == 0) return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "no root");
    radix_view root;
    int rc = view_node(r, 0, &root, NULL, err);
    if (rc < 0) return rc;
    if (root.kind != RADIX_STATIC || root.label_len != 1 || root.label[0] != '/')
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "root is not the static label \"/\"");
    size_t seen_bytes = count / 8 + 1;
    size_t rk_bytes = (r->built ? r->nbytes : r->pool_len) + 1; /* a rank a '/', at most */
    radix_checker ck = {r,   rb_calloc(r->allocator, seen_bytes), count, 0, 0,
                        err, rb_alloc(r->allocator, rk_bytes),    0};
    if (!ck.seen || !ck.rk) {
        rb_free(r->allocator, ck.seen, seen_bytes);
        rb_free(r->allocator, ck.rk, rk_bytes);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory checking radix");
    }
    rc = check_node(&ck, 0, 0, 0);
    rb_free(r->allocator, ck.seen, seen_bytes);
    rb_free(r->allocator, ck.rk, rk_bytes);
    if (rc < 0) return rc;
    if (r->built && (r->keys_of != NULL) != (r->templates && r->ntables))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "priority keys kept without templates, or missing with them");
    if (ck.visited != count)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%u of %u nodes unreachable",
                         count - ck.visited, count);
    if (ck.routes != r->routes)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "terminals hold %zu routes, %zu added",
                         ck.routes, r->routes);
    uint32_t terminals = 0;
    for (uint32_t i = 0; i < count; i++)
        terminals += (r->built ? r->nodes[i].methods : r->mnodes[i].methods) != 0;
    if (terminals != tables)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%u terminals but %u route tables",
                         terminals, tables);
    return RB_OK;
}

const rb_router_ops rb__radix_ops = {
    .abi_version = RB_ROUTER_ABI_VERSION,
    .name = "radix",
    .summary = "byte-level radix tree with param and catch-all children, backtracking",
    .features = RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_TEMPLATE,
    .create = radix_create,
    .add = radix_add,
    .build = radix_build,
    .lookup = radix_lookup,
    .memory = radix_memory,
    .destroy = radix_destroy,
    .describe = NULL,
    .check = radix_check,
};
