/*
 * compile.c — C source for a router specialised to one route table (the
 * contract: compile.h; the user's side: docs/compile.md).
 *
 * The table becomes a segment trie held in constant tables, walked by one
 * small loop that is the same for every table (walker_text; four
 * constants of the table, PREFIX_SHARED, _TEMPLATES, _CATCHALLS and _LONG,
 * let the compiler drop the code it does not need): code stays a few
 * hundred bytes whatever the table, and a compiler turns even 20,000
 * routes into an object in seconds, in time and memory linear in the
 * table.  Per path segment the walk tries the node's children in the
 * order of the priority rule (docs/design.md, "Route semantics"),
 * backtracking when a subtree has no route for the request:
 *
 *     GET /users, GET /users/:id, GET /users/me, POST /users/:id/posts,
 *     GET /static/{*path}
 *
 *     nodes[]   lens (static children's lengths, bit n % 64), term, catch-all,
 *               rank1 (first param/template child), caps
 *     n0 (root)    static "users" -> n1, "static" -> n4     (in slots[])
 *     n1 "users"   term: GET -> route 0 (else 405 {GET})
 *                  static "me" -> n3; rank1: param -> n2, capture 0
 *     n2 ":id"     term: GET -> route 1; static "posts" -> n5 (POST -> 3)
 *     n4 "static"  catch-all: 1+ bytes to the end, capture 0, GET -> route 4
 *
 *     slots[]  (parent + 1, length, bytes [0, 16)) -> child, one slot per
 *              key; one compare of the stored key confirms it (and memcmp
 *              past 16 bytes).  A node of up to 256 static children has
 *              slots of its own: sbase + (v * mult >> shift), v from the
 *              segment's length and first 16 bytes, mult found by trial
 *              (one multiply); the children of larger nodes share a perfect
 *              hash found by hash and displace (CHD):
 *              slot = (h + disp[bucket(h)] * g(h)) & mask
 *
 * Why the first answer found is linear's.  Every route under a node has
 * the same segments above it, hence the same ranks there; at the node a
 * static child (rank 0) beats every param or template child (rank 1),
 * which beat the catch-all (rank 4), whatever follows.  Routes that match
 * one path and differ only in later ranks are in one subtree, so trying
 * children in rank order and returning the first route that fits the
 * method gives the smallest priority key; within one terminal (one shape)
 * a specific method beats `*`.  Two shapes with equal ranks can only both
 * match through templates (a param and templates, or several templates,
 * at one node): there the generated code searches every matching child
 * and keeps the route of the smallest key, from a table of each route's
 * place in the priority order (rb_priority_compare over the whole table).
 * When no route fits the method, every matching route has been visited,
 * and their methods make the 405 mask.
 *
 * Cost: generation O(N log N + total pattern bytes) time and output
 * bytes (the perfect hash's search: expected linear; a node's own table:
 * at most 1,536 trials of its up to 256 children); the emitted lookup
 * does per path segment one scan for '/', at most one hash and one slot
 * compare for the static child, the param and template tests, plus the
 * backtracking the rule needs (bounded by the trie's size).  A node whose
 * static child it takes and that has other children is kept in the
 * lookup's context, up to 64 of them, to come back to; past 64, and where
 * a template or a catch-all may still be tried after the child taken, it
 * recurses, so a chain of single children costs no stack.  Every string (patterns,
 * shapes, static segments) is one array of numbers (the pool): C11 asks a
 * compiler for no string literal over 4,095 bytes, and a pattern can be
 * longer.
 */
#include "compile.h"

#include <stdlib.h>
#include <string.h>

/* A route's segment as the trie keys it: kind and text (static bytes, a
 * template's shape; empty for params and catch-alls). */
typedef struct seg_key {
    uint8_t order; /* static 0, param 1, template 2, catch-all 3 */
    const char *text;
    uint32_t len;
} seg_key;

#define NO_ROUTE UINT32_MAX
#define TERMS    (RB_METHOD_COUNT + 1) /* the methods, then `*` */

typedef struct cnode {
    uint8_t order;        /* of the segment that leads here (seg_key.order) */
    const char *text;     /* its key */
    uint32_t len;         /* its key's length */
    uint32_t caps;        /* captures of the segments up to and including it */
    uint32_t child;       /* first child, or 0 (the root is never a child) */
    uint32_t sibling;     /* next child of the parent, or 0 */
    uint32_t last;        /* last child, or 0 */
    uint32_t term[TERMS]; /* route of each method ending here, or NO_ROUTE */
    uint32_t parent;      /* its parent (the root: UINT32_MAX) */
    uint32_t minprio;     /* the smallest priority place of a route in its subtree */
    uint64_t window;      /* scratch of put_tables: 1 + its terminal's index, or 0 */
} cnode;

typedef struct compiler {
    const rb_route *routes;
    size_t n;
    const char *prefix;
    seg_key **keys; /* keys[i][s]: route i's segment s */
    char **shapes;  /* per route: its template shapes, one block */
    cnode *nodes;
    size_t nnodes, cap;
    uint32_t *prio; /* prio[i]: route i's place in the priority order */
    rb_buf *out;
    size_t refused; /* the route make_keys refused */
} compiler;

/* ---- sorting without malloc inside: a bottom-up merge sort ------------ */

typedef int (*cmp_fn)(const compiler *c, uint32_t a, uint32_t b);

static void merge_sort(const compiler *c, uint32_t *a, uint32_t *tmp, size_t n, cmp_fn cmp)
{
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = cmp(c, a[j], a[i]) < 0 ? a[j++] : a[i++];
            while (i < mid) tmp[k++] = a[i++];
            while (j < hi) tmp[k++] = a[j++];
        }
        memcpy(a, tmp, n * sizeof *a);
    }
}

static int key_compare(const seg_key *a, const seg_key *b)
{
    if (a->order != b->order) return a->order < b->order ? -1 : 1;
    size_t n = a->len < b->len ? a->len : b->len;
    int d = memcmp(a->text, b->text, n);
    if (d) return d;
    return a->len == b->len ? 0 : a->len < b->len ? -1 : 1;
}

/* Routes by their key sequences (a proper prefix first), then by method. */
static int route_compare(const compiler *c, uint32_t a, uint32_t b)
{
    const rb_pattern *pa = c->routes[a].pattern, *pb = c->routes[b].pattern;
    uint32_t n = pa->nsegs < pb->nsegs ? pa->nsegs : pb->nsegs;
    for (uint32_t s = 0; s < n; s++) {
        int d = key_compare(&c->keys[a][s], &c->keys[b][s]);
        if (d) return d;
    }
    if (pa->nsegs != pb->nsegs) return pa->nsegs < pb->nsegs ? -1 : 1;
    return c->routes[a].method - c->routes[b].method;
}

static rb_priority priority_of(const rb_route *r)
{
    return (rb_priority){r->pattern->ranks, r->pattern->nsegs, r->method == RB_ANY,
                         r->pattern->literal_bytes, r->id};
}

static int priority_compare(const compiler *c, uint32_t a, uint32_t b)
{
    rb_priority pa = priority_of(&c->routes[a]), pb = priority_of(&c->routes[b]);
    int d = rb_priority_compare(&pa, &pb);
    return d ? d : (a < b ? -1 : a > b);
}

static int id_compare(const compiler *c, uint32_t a, uint32_t b)
{
    uint32_t x = c->routes[a].id, y = c->routes[b].id;
    return x < y ? -1 : x > y;
}

/* Shapes (method, then shape bytes): the order the plugin's add() searches. */
static int shape_compare(const compiler *c, uint32_t a, uint32_t b)
{
    const rb_route *x = &c->routes[a], *y = &c->routes[b];
    if (x->method != y->method) return x->method - y->method;
    size_t n = x->pattern->shape_len < y->pattern->shape_len ? x->pattern->shape_len
                                                             : y->pattern->shape_len;
    int d = memcmp(x->pattern->shape, y->pattern->shape, n);
    if (d) return d;
    return x->pattern->shape_len == y->pattern->shape_len  ? 0
           : x->pattern->shape_len < y->pattern->shape_len ? -1
                                                           : 1;
}

/* ---- the trie ----------------------------------------------------------- */

static int describe_route(const rb_route *r, char *buf, size_t cap)
{
    const char *m = rb_method_name(r->method);
    return snprintf(buf, cap, "%s %.*s", m ? m : "?",
                    (int)(r->pattern->len > 200 ? 200 : r->pattern->len), r->pattern->text);
}

/* The keys of every route; RB_EUNSUPPORTED for a glob or `**`. */
static int make_keys(compiler *c, rb_error *err)
{
    for (size_t i = 0; i < c->n; i++) {
        const rb_pattern *p = c->routes[i].pattern;
        size_t shape_bytes = 0;
        for (uint32_t s = 0; s < p->nsegs; s++) {
            const rb_segment *g = &p->segs[s];
            if (g->kind == RB_SEG_GLOB || g->kind == RB_SEG_GLOBSTAR) {
                char what[256];
                c->refused = i;
                describe_route(&c->routes[i], what, sizeof what);
                return rb__error(err, RB_EUNSUPPORTED, g->offset,
                                 "route %u (%s): compile does not support %s (`%.*s` at byte "
                                 "%u); a runtime router (glob) does",
                                 c->routes[i].id, what,
                                 g->kind == RB_SEG_GLOB ? "glob segments" : "`**`", (int)g->len,
                                 p->text + g->offset, g->offset);
            }
            if (g->kind == RB_SEG_TEMPLATE) shape_bytes += g->len;
        }
        c->keys[i] = calloc(p->nsegs, sizeof *c->keys[i]);
        c->shapes[i] = shape_bytes ? malloc(shape_bytes) : NULL;
        if (!c->keys[i] || (shape_bytes && !c->shapes[i]))
            return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory compiling the table");
        char *o = c->shapes[i];
        for (uint32_t s = 0; s < p->nsegs; s++) {
            const rb_segment *g = &p->segs[s];
            seg_key *k = &c->keys[i][s];
            switch (g->kind) {
            case RB_SEG_STATIC:
                *k = (seg_key){0, g->text, g->text_len};
                break;
            case RB_SEG_PARAM:
                *k = (seg_key){1, "", 0};
                break;
            case RB_SEG_TEMPLATE: {
                size_t w = rb__template_shape(p->text + g->offset, g->len, o);
                *k = (seg_key){2, o, (uint32_t)w};
                o += w;
                break;
            }
            default:
                *k = (seg_key){3, "", 0};
                break; /* catch-all */
            }
        }
    }
    return RB_OK;
}

static int new_node(compiler *c, uint32_t parent, const seg_key *k, uint32_t caps, uint32_t *out)
{
    if (rb_grow(NULL, &c->nodes, &c->cap, c->nnodes + 1, sizeof *c->nodes, 64) < 0)
        return RB_ENOMEM;
    uint32_t i = (uint32_t)c->nnodes++;
    cnode *nd = &c->nodes[i];
    memset(nd, 0, sizeof *nd);
    for (int t = 0; t < TERMS; t++) nd->term[t] = NO_ROUTE;
    if (k) {
        nd->order = k->order;
        nd->text = k->text;
        nd->len = k->len;
    }
    nd->caps = caps;
    nd->parent = parent;
    if (parent != UINT32_MAX) {
        cnode *pa = &c->nodes[parent];
        if (pa->last)
            c->nodes[pa->last].sibling = i;
        else
            pa->child = i;
        pa->last = i;
    }
    *out = i;
    return RB_OK;
}

/* Insert the routes in key order: a route shares with the previous one
 * the nodes of their common key prefix, and the next child of a node is
 * always its last one. */
static int build_trie(compiler *c, const uint32_t *sorted, rb_error *err)
{
    uint32_t root;
    if (new_node(c, UINT32_MAX, NULL, 0, &root) < 0) goto nomem;
    uint32_t *stack = malloc((size_t)(1 + 1024) * sizeof *stack);
    if (!stack) goto nomem;
    size_t stack_cap = 1025;
    uint32_t prev = NO_ROUTE;
    stack[0] = root;
    for (size_t k = 0; k < c->n; k++) {
        uint32_t i = sorted[k];
        const rb_pattern *p = c->routes[i].pattern;
        uint32_t common = 0;
        if (prev != NO_ROUTE) {
            const rb_pattern *q = c->routes[prev].pattern;
            while (common < p->nsegs && common < q->nsegs &&
                   key_compare(&c->keys[i][common], &c->keys[prev][common]) == 0)
                common++;
        }
        if (p->nsegs + 1 > stack_cap) {
            uint32_t *grown = realloc(stack, (p->nsegs + 1) * sizeof *stack);
            if (!grown) {
                free(stack);
                goto nomem;
            }
            stack = grown;
            stack_cap = p->nsegs + 1;
        }
        uint32_t caps = 0;
        for (uint32_t s = 0; s < common; s++) caps += p->segs[s].captures;
        for (uint32_t s = common; s < p->nsegs; s++) {
            caps += p->segs[s].captures;
            if (new_node(c, stack[s], &c->keys[i][s], caps, &stack[s + 1]) < 0) {
                free(stack);
                goto nomem;
            }
        }
        int m = c->routes[i].method == RB_ANY ? RB_METHOD_COUNT : c->routes[i].method;
        c->nodes[stack[p->nsegs]].term[m] = i;
        prev = i;
    }
    free(stack);
    return RB_OK;
nomem:
    return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory compiling the table");
}

/* ---- emitting ----------------------------------------------------------- */

/* Append text with '@' replaced by the prefix. */
static void put(compiler *c, const char *text)
{
    for (const char *s = text; *s;) {
        const char *at = strchr(s, '@');
        size_t n = at ? (size_t)(at - s) : strlen(s);
        rb_buf_append(c->out, s, n);
        if (!at) break;
        rb_buf_puts(c->out, c->prefix);
        s = at + 1;
    }
}

/* The separator before element i of a table: 16 a line. */
static const char *sep(size_t i)
{
    return i == 0 ? "\n    " : i % 16 ? ", " : ",\n    ";
}

/* ---- the static children's perfect hash --------------------------------
 * The key of a static child is (its parent's index, its bytes).  Both the
 * generator (static_hash, hash_bucket, hash_place) and the emitted walk
 * (@_walk) hash it the same way: change them together.  The first 16
 * bytes are two little-endian words, zero-padded, each multiplied by a
 * constant (the second with the parent and length), longer segments'
 * further words folded in; the seed enters before a multiply and an
 * addition, so that another seed separates any two keys. */

#define HASH_K1 UINT64_C(0x9e3779b97f4a7c15)
#define HASH_K2 UINT64_C(0xc2b2ae3d27d4eb4f)

/* Bytes [at, min(at + 8, n)) of s as a little-endian number (0 past n). */
static uint64_t word_at(const char *s, size_t n, size_t at)
{
    uint64_t v = 0;
    for (size_t i = 0; at + i < n && i < 8; i++) v |= (uint64_t)(unsigned char)s[at + i] << (8 * i);
    return v;
}

static uint64_t key_of(uint32_t parent, uint32_t len)
{
    return ((uint64_t)(parent + 1) << 32) | len;
}

static uint64_t static_hash(uint64_t seed, uint32_t parent, const char *s, uint32_t n)
{
    uint64_t h = ((word_at(s, n, 0) ^ seed) * HASH_K1) ^
                 (((word_at(s, n, 8) + seed) ^ key_of(parent, n)) * HASH_K2);
    for (size_t at = 16; at < n; at += 8) h = (h ^ word_at(s, n, at)) * HASH_K1;
    /* a product carries a difference only upwards: keys differing in a
     * word's top byte alone ("authorizations", "authori]ations") shared
     * every low bit, so their places collided under every seed; folding
     * down, multiplying and folding again spreads every bit to all */
    h ^= h >> 33;
    h *= HASH_K2;
    return h ^ (h >> 33);
}

/* A hash's bucket among nb, and its slot for displacement d in a table
 * of mask + 1 slots (as @_bucket and @_place compute them). */
static uint32_t hash_bucket(uint64_t h, uint32_t nb)
{
    return (uint32_t)(((h >> 32) * nb) >> 32);
}

static uint32_t hash_place(uint64_t h, uint32_t d, uint32_t mask)
{
    return ((uint32_t)h + d * ((uint32_t)(h >> 17) | 1u)) & mask;
}

typedef struct phf {
    uint64_t seed;
    uint32_t nb, mask;
    uint32_t *disp; /* [nb] */
    uint32_t *slot; /* [mask + 1]: node + 1, or 0 for an empty slot */
    uint32_t *keys; /* the static nodes */
    uint64_t *hash; /* [node]: its hash (static nodes only) */
    size_t nkeys;
} phf;

static void phf_free(phf *f)
{
    free(f->disp);
    free(f->slot);
    free(f->keys);
    free(f->hash);
}

/* Hash and displace (CHD): buckets of about four keys, the largest
 * first; each gets the smallest displacement that puts all its keys in
 * free slots.  Another seed when one finds none (never seen: a bucket's
 * two keys would need equal f and g). */
static int phf_build(compiler *c, phf *f)
{
    f->hash = calloc(c->nnodes, sizeof *f->hash);
    f->keys = malloc((c->nnodes ? c->nnodes : 1) * sizeof *f->keys);
    if (!f->hash || !f->keys) return RB_ENOMEM;
    for (size_t i = 1; i < c->nnodes; i++)
        if (c->nodes[i].order == 0) f->keys[f->nkeys++] = (uint32_t)i;
    uint32_t size = 1;
    while (size < f->nkeys + f->nkeys / 4 + 1) size *= 2;
    f->mask = size - 1;
    f->nb = (uint32_t)(f->nkeys / 4 + 1);
    f->disp = calloc(f->nb, sizeof *f->disp);
    f->slot = calloc(size, sizeof *f->slot);
    uint32_t *count = calloc((size_t)f->nb + 1, sizeof *count);
    uint32_t *order = malloc((f->nkeys ? f->nkeys : 1) * sizeof *order);
    uint32_t *first = calloc((size_t)f->nb + 1, sizeof *first);
    uint32_t *bysize = malloc((size_t)f->nb * sizeof *bysize);
    uint32_t *sizes = calloc(f->nkeys + 2, sizeof *sizes);
    int rc = RB_OK;
    if (!f->disp || !f->slot || !count || !order || !first || !bysize || !sizes) {
        rc = RB_ENOMEM;
        goto done;
    }
    for (f->seed = 0;; f->seed++) {
        if (f->seed == 64) {
            rc = RB_ELIMIT;
            goto done;
        }
        memset(count, 0, ((size_t)f->nb + 1) * sizeof *count);
        memset(f->slot, 0, (size_t)size * sizeof *f->slot);
        for (size_t k = 0; k < f->nkeys; k++) {
            const cnode *nd = &c->nodes[f->keys[k]];
            f->hash[f->keys[k]] = static_hash(f->seed, nd->parent, nd->text, nd->len);
            count[hash_bucket(f->hash[f->keys[k]], f->nb) + 1]++;
        }
        /* keys grouped by bucket (a counting sort) */
        for (uint32_t b = 0; b < f->nb; b++) first[b + 1] = first[b] + count[b + 1];
        memcpy(count, first, ((size_t)f->nb + 1) * sizeof *count);
        for (size_t k = 0; k < f->nkeys; k++)
            order[count[hash_bucket(f->hash[f->keys[k]], f->nb)]++] = f->keys[k];
        /* buckets by size, the largest first (a counting sort again) */
        memset(sizes, 0, (f->nkeys + 2) * sizeof *sizes);
        for (uint32_t b = 0; b < f->nb; b++) sizes[f->nkeys - (first[b + 1] - first[b]) + 1]++;
        for (size_t s = 1; s <= f->nkeys + 1; s++) sizes[s] += sizes[s - 1];
        for (uint32_t b = 0; b < f->nb; b++)
            bysize[sizes[f->nkeys - (first[b + 1] - first[b])]++] = b;
        bool ok = true;
        for (uint32_t i = 0; i < f->nb && ok; i++) {
            uint32_t b = bysize[i], lo = first[b], hi = first[b + 1];
            if (lo == hi) break; /* the rest are empty */
            uint32_t d = 0;
            for (;; d++) {
                /* a key's place repeats every mask + 1 displacements (its
                 * step is odd, the table a power of two): past them none
                 * can fit, and the next seed is tried at once */
                if (d > f->mask) {
                    ok = false;
                    break;
                }
                uint32_t j = lo;
                for (; j < hi; j++) {
                    uint32_t s = hash_place(f->hash[order[j]], d, f->mask);
                    if (f->slot[s]) break;
                    f->slot[s] = order[j] + 1; /* taken for now */
                }
                if (j == hi) break;
                while (j-- > lo) f->slot[hash_place(f->hash[order[j]], d, f->mask)] = 0;
            }
            f->disp[b] = d;
        }
        if (ok) break;
    }
done:
    free(count);
    free(order);
    free(first);
    free(bysize);
    free(sizes);
    return rc;
}

static const char preamble[] =
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "#include <string.h>\n"
    "\n"
    "#ifdef RB_COMPILED_PLUGIN\n"
    "#include <routebench/router_plugin.h>\n"
    "typedef rb_span @_span;\n"
    "typedef rb_match @_match;\n"
    "#else\n"
    "/* A capture: bytes [offset, offset + len) of the path. */\n"
    "typedef struct @_span {\n"
    "    uint32_t offset;\n"
    "    uint32_t len;\n"
    "} @_span;\n"
    "\n"
    "typedef struct @_match {\n"
    "    int outcome;       /* 200 found, 404 not found, 405 method not allowed */\n"
    "    uint32_t route_id; /* 200: the route's id (@_route_id) */\n"
    "    uint32_t allowed;  /* 405: bit m set for each method m that would fit */\n"
    "    uint32_t nparams;  /* 200: captures, in pattern order */\n"
    "    @_span params[32];\n"
    "} @_match;\n"
    "#endif\n"
    "\n"
    "/* Methods, as routebench numbers them; `*` routes are method 9 in\n"
    " * @_route_method. */\n"
    "enum {\n"
    "    @_GET, @_HEAD, @_POST, @_PUT, @_DELETE, @_CONNECT, @_OPTIONS, @_TRACE, @_PATCH,\n"
    "    @_METHODS, @_ANY = @_METHODS\n"
    "};\n"
    "\n"
    "/* Look up method + path[0, len): the outcome (also in m->outcome). */\n"
    "int @_lookup(int method, const char *path, size_t len, @_match *m);\n"
    "\n"
    "/* The tables (filled in below).  A trie node: */\n"
    "typedef struct @_node {\n"
    "    uint64_t lens;     /* bit n % 64 set: a static child of n bytes (0: none) */\n"
    "    uint64_t mult;     /* shift != 0: its static children have slots of their own, */\n"
    "    uint32_t sbase;    /* @_slots[sbase + (v * mult >> shift)], v from the segment's */\n"
    "    uint32_t shift;    /* first 16 bytes; shift 0: the shared table */\n"
    "    uint32_t term;     /* 1 + the terminal of the routes ending here, or 0 */\n"
    "    uint32_t catchall; /* 1 + the terminal of its catch-all child, or 0 */\n"
    "    uint32_t rank1;    /* its param and template children: @_rank1s[rank1, +nrank1);\n"
    "                        * @_PARAM_ONLY: its one param child */\n"
    "    uint16_t caps;     /* captures up to and including it */\n"
    "    uint16_t nrank1;   /* @_PARAM_ONLY: a param, no template, no catch-all */\n"
    "} @_node;\n"
    "/* A static child, in the slot its key (parent, bytes) hashes to. */\n"
    "typedef struct @_slot {\n"
    "    uint64_t key;    /* (parent + 1) << 32 | length; 0: an empty slot */\n"
    "    uint64_t w0, w1; /* its bytes [0, 8) and [8, 16), zero-padded */\n"
    "    uint32_t node;   /* the child */\n"
    "    uint32_t text;   /* its bytes in @_pool */\n"
    "} @_slot;\n"
    "/* A param (kind 1) or template child (2: one param, 3: more). */\n"
    "typedef struct @_rank1 {\n"
    "    uint32_t node, minprio; /* the child; the best priority place below it */\n"
    "    uint32_t text;          /* its template shape in @_pool */\n"
    "    uint16_t len, head, tail, kind; /* the shape's bytes, before and after {} */\n"
    "    uint64_t tailw; /* kind 2, tail <= 8: the bytes after {} as a little-endian word */\n"
    "} @_rank1;\n"
    "/* The routes ending at one node, by method (then `*`); @_NONE: none. */\n"
    "typedef struct @_term {\n"
    "    uint32_t route[@_METHODS + 1];\n"
    "    uint32_t allowed; /* their methods, for the 405 mask */\n"
    "} @_term;\n"
    "#define @_NONE 0xffffffffu\n"
    "#define @_PARAM_ONLY 0xffffu\n"
    "\n"
    "static inline uint64_t @_load(const char *s)\n"
    "{\n"
    "    uint64_t v;\n"
    "#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__\n"
    "    memcpy(&v, s, 8);\n"
    "#else\n"
    "    unsigned i;\n"
    "    for (v = 0, i = 0; i < 8; i++) v |= (uint64_t)(unsigned char)s[i] << (8 * i);\n"
    "#endif\n"
    "    return v;\n"
    "}\n"
    "\n"
    "/* Bytes [at, min(at + 8, end)) of p as a little-endian number, zero past\n"
    " * end (0 when at >= end); never reads outside [0, len). */\n"
    "static inline uint64_t @_part(const char *p, size_t len, size_t at, size_t end)\n"
    "{\n"
    "    uint64_t w;\n"
    "    size_t k;\n"
    "    if (at >= end) return 0;\n"
    "    k = end - at;\n"
    "    if (at + 8 <= len)\n"
    "        w = @_load(p + at);\n"
    "    else if (len >= 8)\n"
    "        w = @_load(p + len - 8) >> (8 * (at + 8 - len));\n"
    "    else {\n"
    "        size_t i;\n"
    "        for (w = 0, i = 0; at + i < len; i++) w |= (uint64_t)(unsigned char)p[at + i] << (8 * "
    "i);\n"
    "    }\n"
    "    return k >= 8 ? w : w & ((UINT64_C(1) << (8 * k)) - 1);\n"
    "}\n"
    "\n"
    "/* The index of z's lowest set bit (z != 0). */\n"
    "static inline unsigned @_ctz(uint64_t z)\n"
    "{\n"
    "#if defined(__GNUC__)\n"
    "    return (unsigned)__builtin_ctzll(z);\n"
    "#else\n"
    "    unsigned i = 0;\n"
    "    while (!(z & 1)) z >>= 1, i++;\n"
    "    return i;\n"
    "#endif\n"
    "}\n"
    "\n"
    "/* The end of the path segment at pos: the next '/' or len.  Eight bytes\n"
    " * at a time where the compiler and byte order allow (the first zero byte\n"
    " * of w ^ \"////////\" is the first '/'); never reads outside [0, len). */\n"
    "static inline size_t @_segment_end(const char *p, size_t len, size_t pos)\n"
    "{\n"
    "#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == "
    "__ORDER_LITTLE_ENDIAN__\n"
    "    const uint64_t ones = UINT64_C(0x0101010101010101), high = UINT64_C(0x8080808080808080);\n"
    "    uint64_t w, x, z;\n"
    "    for (; pos + 8 <= len; pos += 8) {\n"
    "        memcpy(&w, p + pos, 8);\n"
    "        x = w ^ (ones * '/');\n"
    "        z = (x - ones) & ~x & high;\n"
    "        if (z) return pos + ((size_t)__builtin_ctzll(z) >> 3);\n"
    "    }\n"
    "    if (pos < len && len >= 8) { /* the last 8 bytes, those before pos shifted out */\n"
    "        memcpy(&w, p + len - 8, 8);\n"
    "        x = (w >> (8 * (8 - (len - pos)))) ^ (ones * '/');\n"
    "        z = (x - ones) & ~x & high;\n"
    "        return z ? pos + ((size_t)__builtin_ctzll(z) >> 3) : len;\n"
    "    }\n"
    "#endif\n"
    "    while (pos < len && p[pos] != '/') pos++;\n"
    "    return pos;\n"
    "}\n"
    "\n"
    "/* Does template shape t (literal pieces and `{}` params, 1+ bytes each)\n"
    " * match the whole segment s[0, n)?  caps get its params, each as short\n"
    " * as it can be, left to right (offsets from base). */\n"
    "static inline int @_template(const char *t, size_t tl, const char *s, size_t n, size_t "
    "base,\n"
    "                             @_span *caps)\n"
    "{\n"
    "    size_t open = 0, close = tl;\n"
    "    while (t[open] != '{') open++;\n"
    "    while (t[close - 1] != '}') close--;\n"
    "    size_t suffix = tl - close;\n"
    "    if (n < open + suffix + 1 || memcmp(s, t, open) != 0 ||\n"
    "        memcmp(s + n - suffix, t + close, suffix) != 0)\n"
    "        return 0;\n"
    "    size_t lim = n - suffix, pos = open;\n"
    "    unsigned c = 0;\n"
    "    for (size_t i = open;;) {\n"
    "        size_t piece = i + 2, next = piece, q;\n"
    "        if (piece == close) {\n"
    "            if (lim <= pos) return 0;\n"
    "            caps[c].offset = (uint32_t)(base + pos);\n"
    "            caps[c].len = (uint32_t)(lim - pos);\n"
    "            return 1;\n"
    "        }\n"
    "        while (t[next] != '{') next++;\n"
    "        for (q = pos + 1; q + (next - piece) <= lim; q++)\n"
    "            if (memcmp(s + q, t + piece, next - piece) == 0) break;\n"
    "        if (q + (next - piece) > lim) return 0;\n"
    "        caps[c].offset = (uint32_t)(base + pos);\n"
    "        caps[c].len = (uint32_t)(q - pos);\n"
    "        c++;\n"
    "        pos = q + (next - piece);\n"
    "        i = next;\n"
    "    }\n"
    "}\n"
    "\n";

/* The walk: the same for every table, driven by the tables above it. */
static const char walker_text[] =
    "/* The route that fits method among terminal t's (t = 1 + index; 0: none);\n"
    " * else their methods go to the 405 mask. */\n"
    "static inline int @_end(uint32_t t, int method, @_match *m)\n"
    "{\n"
    "    const @_term *tm;\n"
    "    if (!t) return -1;\n"
    "    tm = &@_terms[t - 1];\n"
    "    if (tm->route[method] != @_NONE) return (int)tm->route[method];\n"
    "    if (tm->route[@_METHODS] != @_NONE) return (int)tm->route[@_METHODS];\n"
    "    m->allowed |= tm->allowed;\n"
    "    return -1;\n"
    "}\n"
    "\n"
    "/* Does param or template child r take the segment s[0, n) (at pos)? */\n"
    "#if defined(__GNUC__)\n"
    "__attribute__((always_inline))\n"
    "#endif\n"
    "static inline int @_takes(const @_rank1 *r, const char *s, size_t pos, size_t n, @_span "
    "*cap)\n"
    "{\n"
    "    const char *t = @_pool + r->text;\n"
    "    if (r->kind == 1) {\n"
    "        if (n == 0) return 0;\n"
    "        cap->offset = (uint32_t)pos;\n"
    "        cap->len = (uint32_t)n;\n"
    "        return 1;\n"
    "    }\n"
    "    if (r->kind == 3) return @_template(t, r->len, s, n, pos, cap);\n"
    "    size_t i;\n"
    "    if (n < (size_t)r->head + r->tail + 1u) return 0;\n"
    "    for (i = 0; i < r->head; i++) /* a few bytes: a loop, not a call */\n"
    "        if (s[i] != t[i]) return 0;\n"
    "    if (r->tail && r->tail <= 8 && pos + n >= 8) { /* one word, ending where s does */\n"
    "        if ((@_load(s + n - 8) >> (64 - 8 * r->tail)) != r->tailw) return 0;\n"
    "    } else\n"
    "        for (i = 0; i < r->tail; i++)\n"
    "            if (s[n - r->tail + i] != t[r->head + 2 + i]) return 0;\n"
    "    cap->offset = (uint32_t)(pos + r->head);\n"
    "    cap->len = (uint32_t)(n - r->head - r->tail);\n"
    "    return 1;\n"
    "}\n"
    "\n"
    "/* One lookup's request, the path's last 16 bytes (all of it when\n"
    " * shorter) followed by zeros, from which a segment near the end is read\n"
    " * as whole words without reading past the path, and the walk's places to\n"
    " * come back to: the nodes whose static child was taken and that have\n"
    " * other children to try if nothing below it fits. */\n"
    "#define @_BACK 64\n"
    "typedef struct @_ctx {\n"
    "    const char *p;\n"
    "    size_t len, base; /* tail[i] is p[base + i] */\n"
    "    int method;\n"
    "    @_match *m;\n"
    "    unsigned char tail[32];\n"
    "    uint32_t sp; /* the places to come back to: back[0, sp) */\n"
    "    struct {\n"
    "        size_t pos, n; /* the segment [pos, pos + n) */\n"
    "        uint32_t id;   /* at node id, whose static child took it */\n"
    "    } back[@_BACK];\n"
    "} @_ctx;\n"
    "\n"
    "static void @_ctx_init(@_ctx *cx, int method, const char *path, size_t len, @_match *m)\n"
    "{\n"
    "    cx->p = path;\n"
    "    cx->len = len;\n"
    "    cx->method = method;\n"
    "    cx->m = m;\n"
    "    memset(cx->tail + 16, 0, 16);\n"
    "    if (len >= 16) { /* the common case: a fixed copy, no call */\n"
    "        cx->base = len - 16;\n"
    "        memcpy(cx->tail, path + cx->base, 16);\n"
    "    } else {\n"
    "        cx->base = 0;\n"
    "        memset(cx->tail, 0, 16);\n"
    "        memcpy(cx->tail, path, len);\n"
    "    }\n"
    "    cx->sp = 0;\n"
    "    m->allowed = 0;\n"
    "}\n"
    "\n"
    "static int @_walk(@_ctx *cx, size_t pos, uint32_t id);\n"
    "\n"
    "/* Equal ranks at node nd (a param and templates, or several templates):\n"
    " * search every child that takes the segment [pos, pos + n), in the order\n"
    " * of the best route below each, and keep the best route.  Apart from the\n"
    " * walk, whose frame it would make large. */\n"
    "#if defined(__GNUC__)\n"
    "__attribute__((noinline))\n"
    "#endif\n"
    "static int @_group(@_ctx *cx, size_t pos, size_t n, const @_node *nd)\n"
    "{\n"
    "    @_match *m = cx->m;\n"
    "    int best = -1, r;\n"
    "    @_span keep[32];\n"
    "    uint32_t i, k;\n"
    "    for (i = 0; i < nd->nrank1; i++) {\n"
    "        const @_rank1 *c = &@_rank1s[nd->rank1 + i];\n"
    "        if (best >= 0 && @_prio[best] <= c->minprio) break;\n"
    "        if (!@_takes(c, cx->p + pos, pos, n, m->params + nd->caps)) continue;\n"
    "        r = @_walk(cx, pos + n + 1, c->node);\n"
    "        if (r >= 0 && (best < 0 || @_prio[r] < @_prio[best])) {\n"
    "            best = r;\n"
    "            for (k = 0; k < @_ncaps[r]; k++) keep[k] = m->params[k];\n"
    "        }\n"
    "    }\n"
    "    if (best >= 0)\n"
    "        for (k = 0; k < @_ncaps[best]; k++) m->params[k] = keep[k];\n"
    "    return best;\n"
    "}\n"
    "\n"
    "/* The children after the static one at node nd, for the segment\n"
    " * [pos, pos + n): its param and template children, then its catch-all\n"
    " * (the priority rule's order); -1 when none fits.  When one child alone\n"
    " * takes the segment and nothing is left to come back for: -2 - the child,\n"
    " * for the walk's loop to go on there.  Apart from the loop, which keeps\n"
    " * the common steps. */\n"
    "static inline int @_rest(@_ctx *cx, size_t pos, size_t n, const @_node *nd)\n"
    "{\n"
    "    const char *p = cx->p;\n"
    "    int r;\n"
    "    if (nd->nrank1 == 1) {\n"
    "        const @_rank1 *c = &@_rank1s[nd->rank1];\n"
    "        if (@_takes(c, p + pos, pos, n, cx->m->params + nd->caps)) {\n"
    "            if (!@_CATCHALLS || !nd->catchall) return -2 - (int)c->node;\n"
    "            r = @_walk(cx, pos + n + 1, c->node);\n"
    "            if (r >= 0) return r;\n"
    "        }\n"
    "    } else if (@_TEMPLATES && nd->nrank1 > 1) {\n"
    "        /* equal ranks: when one child alone takes the segment, it is\n"
    "         * the only one to search, as if it were the node's only one */\n"
    "        const @_rank1 *c = &@_rank1s[nd->rank1], *one = 0;\n"
    "        uint32_t i, takers = 0;\n"
    "        for (i = 0; i < nd->nrank1 && takers < 2; i++)\n"
    "            if (@_takes(&c[i], p + pos, pos, n, cx->m->params + nd->caps)) {\n"
    "                one = &c[i];\n"
    "                takers++;\n"
    "            }\n"
    "        if (takers == 1) {\n"
    "            if (one != &c[i - 1]) /* a later test may have written captures */\n"
    "                (void)@_takes(one, p + pos, pos, n, cx->m->params + nd->caps);\n"
    "            if (!@_CATCHALLS || !nd->catchall) return -2 - (int)one->node;\n"
    "            r = @_walk(cx, pos + n + 1, one->node);\n"
    "            if (r >= 0) return r;\n"
    "        } else if (takers > 1) {\n"
    "            r = @_group(cx, pos, n, nd);\n"
    "            if (r >= 0) return r;\n"
    "        }\n"
    "    }\n"
    "    if (@_CATCHALLS && nd->catchall && pos < cx->len) {\n"
    "        cx->m->params[nd->caps].offset = (uint32_t)pos;\n"
    "        cx->m->params[nd->caps].len = (uint32_t)(cx->len - pos);\n"
    "        return @_end(nd->catchall, cx->method, cx->m);\n"
    "    }\n"
    "    return -1;\n"
    "}\n"
    "\n"
    "/* The route for the path from pos below node id: its static child, then\n"
    " * its param and template children, then its catch-all (the priority\n"
    " * rule's order); -1 when none fits.  A loop without calls for the common\n"
    " * steps (a static child; a param that is the node's only other child);\n"
    " * where a static child is taken and the node has other children, the\n"
    " * place is kept in cx->back to come back to if nothing below fits (a\n"
    " * call, when more than @_BACK are kept). */\n"
    "static int @_walk(@_ctx *cx, size_t pos, uint32_t id)\n"
    "{\n"
    "    const char *p = cx->p;\n"
    "    const size_t len = cx->len;\n"
    "    const uint32_t sp0 = cx->sp;\n"
    "    const @_node *nd;\n"
    "    size_t n;\n"
    "    int r;\n"
    "    for (;;) {\n"
    "        uint64_t w0, w1, x, z0, z1;\n"
    "        nd = &@_nodes[id];\n"
    "        if (pos > len) {\n"
    "            r = @_end(nd->term, cx->method, cx->m);\n"
    "            if (r >= 0) break;\n"
    "            goto back;\n"
    "        }\n"
    "        {\n"
    "            /* the segment's first 16 bytes as two words, from the path or\n"
    "             * near its end from the zero-padded tail; then its end */\n"
    "            const char *q = pos + 16 <= len ? p + pos : (const char *)cx->tail + (pos - "
    "cx->base);\n"
    "            w0 = @_load(q);\n"
    "            w1 = @_load(q + 8);\n"
    "        }\n"
    "        x = w0 ^ UINT64_C(0x2f2f2f2f2f2f2f2f);\n"
    "        z0 = (x - UINT64_C(0x0101010101010101)) & ~x & UINT64_C(0x8080808080808080);\n"
    "        x = w1 ^ UINT64_C(0x2f2f2f2f2f2f2f2f);\n"
    "        z1 = (x - UINT64_C(0x0101010101010101)) & ~x & UINT64_C(0x8080808080808080);\n"
    "        if (z0 | z1) { /* which word holds the '/': masks, not a branch */\n"
    "            uint64_t in1 = (uint64_t)0 - (z0 == 0); /* all ones: the '/' is in w1 */\n"
    "            uint64_t z = z0 | (z1 & in1);\n"
    "            n = ((size_t)@_ctz(z) >> 3) + (size_t)(in1 & 8);\n"
    "            z = (z ^ (z - 1)) >> 8; /* the bytes before the '/' in its word */\n"
    "            w0 &= z | in1;\n"
    "            w1 &= z & in1;\n"
    "        } else if (pos + 16 >= len) {\n"
    "            n = len - pos; /* zeros past the end */\n"
    "        } else {\n"
    "            n = @_segment_end(p, len, pos + 16) - pos;\n"
    "        }\n"
    "        if ((nd->lens >> (n & 63)) & 1) {\n"
    "            uint64_t key = ((uint64_t)(id + 1) << 32) | n;\n"
    "            const @_slot *sl;\n"
    "            if (!@_SHARED || nd->shift) { /* a table of its own: one multiply */\n"
    "                uint64_t v = (w0 ^ (w1 * UINT64_C(0xc2b2ae3d27d4eb4f))) + n;\n"
    "                sl = &@_slots[nd->sbase + (size_t)((v * nd->mult) >> nd->shift)];\n"
    "            } else {\n"
    "                uint64_t h = ((w0 ^ @_SEED) * UINT64_C(0x9e3779b97f4a7c15)) ^\n"
    "                             (((w1 + @_SEED) ^ key) * UINT64_C(0xc2b2ae3d27d4eb4f));\n"
    "                size_t at;\n"
    "                for (at = 16; at < n; at += 8)\n"
    "                    h = (h ^ @_part(p, len, pos + at, pos + n)) * "
    "UINT64_C(0x9e3779b97f4a7c15);\n"
    "                h ^= h >> 33;\n"
    "                h *= UINT64_C(0xc2b2ae3d27d4eb4f);\n"
    "                h ^= h >> 33;\n"
    "                sl = &@_slots[((uint32_t)h + @_disp[((h >> 32) * @_NBUCKETS) >> 32] *\n"
    "                                                 ((uint32_t)(h >> 17) | 1u)) &\n"
    "                              @_MASK];\n"
    "            }\n"
    "            if (((sl->key ^ key) | (sl->w0 ^ w0) | (sl->w1 ^ w1)) == 0 &&\n"
    "                (!@_LONG || n <= 16 ||\n"
    "                 memcmp(@_pool + sl->text + 16, p + pos + 16, n - 16) == 0)) {\n"
    "                if (nd->nrank1 | (@_CATCHALLS ? nd->catchall : 0)) { /* to come back to */\n"
    "                    if (cx->sp == @_BACK) {\n"
    "                        r = @_walk(cx, pos + n + 1, sl->node);\n"
    "                        if (r >= 0) break;\n"
    "                        goto rest;\n"
    "                    }\n"
    "                    cx->back[cx->sp].pos = pos;\n"
    "                    cx->back[cx->sp].n = n;\n"
    "                    cx->back[cx->sp].id = id;\n"
    "                    cx->sp++;\n"
    "                }\n"
    "                id = sl->node;\n"
    "                pos += n + 1;\n"
    "                continue;\n"
    "            }\n"
    "        }\n"
    "    rest:\n"
    "        if (nd->nrank1 == @_PARAM_ONLY) { /* 1+ bytes; nothing to come back for */\n"
    "            if (n) {\n"
    "                cx->m->params[nd->caps].offset = (uint32_t)pos;\n"
    "                cx->m->params[nd->caps].len = (uint32_t)n;\n"
    "                id = nd->rank1;\n"
    "                pos += n + 1;\n"
    "                continue;\n"
    "            }\n"
    "        } else {\n"
    "            r = @_rest(cx, pos, n, nd);\n"
    "            if (r >= 0) break;\n"
    "            if (r < -1) {\n"
    "                id = (uint32_t)(-2 - r);\n"
    "                pos += n + 1;\n"
    "                continue;\n"
    "            }\n"
    "        }\n"
    "    back:\n"
    "        if (cx->sp == sp0) {\n"
    "            r = -1;\n"
    "            break;\n"
    "        }\n"
    "        cx->sp--;\n"
    "        pos = cx->back[cx->sp].pos;\n"
    "        n = cx->back[cx->sp].n;\n"
    "        id = cx->back[cx->sp].id;\n"
    "        nd = &@_nodes[id];\n"
    "        goto rest;\n"
    "    }\n"
    "    cx->sp = sp0;\n"
    "    return r;\n"
    "}\n"
    "\n";

/* Bytes [0, n) into the pool (NUL after them): their offset. */
static uint32_t pool_add(rb_buf *pool, const char *s, size_t n)
{
    uint32_t at = (uint32_t)pool->len;
    rb_buf_append(pool, s, n);
    rb_buf_append(pool, "", 1);
    return at;
}

/* The table's strings, as numbers: a C11 compiler needs to take no string
 * literal longer than 4,095 bytes, and a pattern can be 64 KiB. */
static void put_pool(compiler *c, const rb_buf *pool)
{
    rb_buf_printf(c->out, "static const char %s_pool[%zu] = {", c->prefix,
                  pool->len ? pool->len : 1);
    for (size_t i = 0; i < pool->len; i++)
        rb_buf_printf(c->out, "%s%d",
                      i == 0   ? "\n"
                      : i % 24 ? ","
                               : ",\n",
                      (int)(signed char)pool->data[i]);
    if (!pool->len) rb_buf_puts(c->out, "0");
    rb_buf_puts(c->out, "\n};\n\n");
}

/* A terminal's routes, as @_term: "{{r0, ..., r9}, allowed}". */
static void put_term(compiler *c, const uint32_t *term)
{
    uint32_t allowed = 0;
    rb_buf_puts(c->out, "{{");
    for (int t = 0; t < TERMS; t++) {
        if (term[t] != NO_ROUTE && t < RB_METHOD_COUNT) allowed |= 1u << t;
        if (term[t] == NO_ROUTE)
            rb_buf_printf(c->out, "%s%s_NONE", t ? "," : "", c->prefix);
        else
            rb_buf_printf(c->out, "%s%u", t ? "," : "", term[t]);
    }
    rb_buf_printf(c->out, "},%uu}", allowed);
}

static bool has_term(const cnode *nd)
{
    for (int t = 0; t < TERMS; t++)
        if (nd->term[t] != NO_ROUTE) return true;
    return false;
}

static int minprio_compare(const compiler *c, uint32_t a, uint32_t b)
{
    uint32_t x = c->nodes[a].minprio, y = c->nodes[b].minprio;
    return x < y ? -1 : x > y;
}

/* The trie as tables (nodes, static slots, param and template children,
 * terminals, strings).  pool gets the strings; the routes' patterns and
 * shapes are added to it by the caller first. */
/* Static child id in slot s. */
static void put_slot(compiler *c, uint64_t s, uint32_t id, uint32_t text)
{
    const cnode *nd = &c->nodes[id];
    rb_buf_printf(c->out, "    [%llu] = {0x%llxu,0x%llxu,0x%llxu,%u,%u},\n", (unsigned long long)s,
                  (unsigned long long)key_of(nd->parent, nd->len),
                  (unsigned long long)word_at(nd->text, nd->len, 0),
                  (unsigned long long)word_at(nd->text, nd->len, 8), id, text);
}

/* A node's own table of its static children, when it has at most
 * DIRECT_MAX_CHILDREN: slot sbase + (v * mult >> shift) for v = (w0 ^ (w1
 * * HASH_K2)) + length, w0 and w1 a child's first 16 bytes (as the walk
 * computes it; the slot's key and a memcmp check the rest), mult an odd
 * number found by trial that gives each child a slot of its own.  One
 * multiply where the shared table (phf) takes the whole key's hash, its
 * bucket and its displacement.  Nodes without one (shift 0) use phf. */
#define DIRECT_MAX_CHILDREN 256
#define DIRECT_TRIES        512

typedef struct direct {
    uint64_t mult;
    uint32_t sbase, shift;
} direct;

static uint64_t direct_value(const cnode *nd)
{
    return (word_at(nd->text, nd->len, 0) ^ (word_at(nd->text, nd->len, 8) * HASH_K2)) + nd->len;
}

/* Per node its table (shift 0: none); *nextra: the slots they take, after
 * the shared table's.  Deterministic: the multipliers come from a fixed
 * sequence. */
static int direct_build(const compiler *c, direct *d, uint32_t *nextra)
{
    uint64_t v[DIRECT_MAX_CHILDREN], state = UINT64_C(0x726f757465626e63);
    uint32_t stamp[4 * 2 * DIRECT_MAX_CHILDREN] = {0}, round = 0;
    *nextra = 0;
    for (size_t i = 0; i < c->nnodes; i++) {
        uint32_t k = 0;
        bool fits = true;
        d[i].shift = 0;
        for (uint32_t ch = c->nodes[i].child; ch && fits; ch = c->nodes[ch].sibling) {
            const cnode *x = &c->nodes[ch];
            if (x->order != 0) continue;
            if (k == DIRECT_MAX_CHILDREN)
                fits = false;
            else
                v[k++] = direct_value(x);
        }
        if (!fits || !k) continue;
        uint32_t lg = 1;
        while ((1u << lg) < k) lg++;
        for (uint32_t grow = 0; grow < 4 && !d[i].shift; grow++, lg++) {
            for (uint32_t t = 0; t < DIRECT_TRIES && !d[i].shift; t++) {
                /* splitmix64 */
                uint64_t z = (state += UINT64_C(0x9e3779b97f4a7c15));
                z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
                z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
                uint64_t mult = (z ^ (z >> 31)) | 1u;
                uint32_t j = 0;
                round++;
                for (; j < k; j++) {
                    uint32_t at = (uint32_t)((v[j] * mult) >> (64 - lg));
                    if (stamp[at] == round) break;
                    stamp[at] = round;
                }
                if (j < k) continue;
                if (*nextra > UINT32_MAX / 2) return RB_ELIMIT;
                d[i].mult = mult;
                d[i].shift = 64 - lg;
                d[i].sbase = *nextra;
                *nextra += 1u << lg;
            }
        }
    }
    return RB_OK;
}

static int put_tables(compiler *c, rb_buf *pool)
{
    phf f = {0};
    size_t nn = c->nnodes ? c->nnodes : 1;
    int rc = phf_build(c, &f);
    uint32_t *text = calloc(nn, sizeof *text), nextra = 0;
    direct *d = malloc(nn * sizeof *d);
    uint32_t *group = malloc(nn * sizeof *group), *first = calloc(nn, sizeof *first);
    uint32_t *tmp = malloc(nn * sizeof *tmp);
    if (rc >= 0 && !(text && d && group && first && tmp)) rc = RB_ENOMEM;
    if (rc >= 0) rc = direct_build(c, d, &nextra);
    if (rc < 0) goto done;
    const char *P = c->prefix;
    for (size_t i = 1; i < c->nnodes; i++)
        if (c->nodes[i].order == 0 || c->nodes[i].order == 2)
            text[i] = pool_add(pool, c->nodes[i].text, c->nodes[i].len);
    /* SHARED 0: every node with static children has a table of its own;
     * TEMPLATES 0, CATCHALLS 0: the table has none; LONG 0: no static
     * segment over 16 bytes.  The walk needs no code for what is 0. */
    bool shared = false, templates = false, catchalls = false, longer = false;
    for (size_t i = 0; i < c->nnodes; i++) {
        if (c->nodes[i].order == 0 && c->nodes[i].len > 16) longer = true;
        for (uint32_t ch = c->nodes[i].child; ch && !d[i].shift; ch = c->nodes[ch].sibling)
            if (c->nodes[ch].order == 0) shared = true;
        if (c->nodes[i].order == 2) templates = true;
        if (c->nodes[i].order == 3) catchalls = true;
    }
    rb_buf_printf(c->out,
                  "#define %s_SEED UINT64_C(%llu)\n#define %s_NBUCKETS %uu\n"
                  "#define %s_MASK %uu\n#define %s_SHARED %d\n#define %s_TEMPLATES %d\n"
                  "#define %s_CATCHALLS %d\n#define %s_LONG %d\n\n",
                  P, (unsigned long long)f.seed, P, f.nb, P, f.mask, P, shared, P, templates, P,
                  catchalls, P, longer);
    /* terminals: a node's own, then its catch-all child's */
    rb_buf_printf(c->out, "static const %s_term %s_terms[] = {\n", P, P);
    uint32_t nterms = 0;
    for (int catchall = 0; catchall < 2; catchall++)
        for (size_t i = 0; i < c->nnodes; i++) {
            if (!has_term(&c->nodes[i]) || (c->nodes[i].order == 3) != catchall) continue;
            rb_buf_puts(c->out, "    ");
            put_term(c, c->nodes[i].term);
            rb_buf_puts(c->out, ",\n");
            c->nodes[i].window = ++nterms;
        }
    if (!nterms) put(c, "    {{@_NONE},0u},\n");
    rb_buf_puts(c->out, "};\n\n");
    /* param and template children, each node's in the order of the best
     * route below them */
    rb_buf_printf(c->out, "static const %s_rank1 %s_rank1s[] = {\n", P, P);
    uint32_t nrank1 = 0;
    for (size_t i = 0; i < c->nnodes; i++) {
        uint32_t ngroup = 0;
        for (uint32_t ch = c->nodes[i].child; ch; ch = c->nodes[ch].sibling)
            if (c->nodes[ch].order == 1 || c->nodes[ch].order == 2) group[ngroup++] = ch;
        if (ngroup > UINT16_MAX) { /* @_node.nrank1 is 16 bits */
            rc = RB_ELIMIT;
            goto done;
        }
        merge_sort(c, group, tmp, ngroup, minprio_compare); /* stable: ties keep their order */
        first[i] = nrank1;
        for (uint32_t g = 0; g < ngroup; g++) {
            const cnode *ch = &c->nodes[group[g]];
            size_t head = 0, tail = 0, kind = 1;
            if (ch->order == 2) {
                const char *open = memchr(ch->text, '{', ch->len);
                head = (size_t)(open - ch->text);
                tail = ch->len - head - 2;
                kind = memchr(open + 2, '{', tail) ? 3 : 2;
            }
            uint64_t tailw = kind == 2 && tail <= 8 ? word_at(ch->text + head + 2, tail, 0) : 0;
            rb_buf_printf(c->out, "    {%u,%u,%u,%u,%zu,%zu,%zu,0x%llxu},\n", group[g], ch->minprio,
                          text[group[g]], ch->len, head, tail, kind, (unsigned long long)tailw);
            nrank1++;
        }
    }
    if (!nrank1) rb_buf_puts(c->out, "    {0,0,0,0,0,0,0,0},\n");
    rb_buf_puts(c->out, "};\n\n");
    /* nodes */
    rb_buf_printf(c->out, "static const %s_node %s_nodes[%zu] = {\n", P, P, c->nnodes);
    for (size_t i = 0; i < c->nnodes; i++) {
        const cnode *nd = &c->nodes[i];
        uint64_t lens = 0;
        uint32_t catchall = 0, n1 = 0, param = 0;
        for (uint32_t ch = nd->child; ch; ch = c->nodes[ch].sibling) {
            const cnode *x = &c->nodes[ch];
            if (x->order == 0) lens |= UINT64_C(1) << (x->len & 63);
            if (x->order == 1 || x->order == 2) n1++;
            if (x->order == 1) param = ch;
            if (x->order == 3) catchall = (uint32_t)x->window;
        }
        if (n1 == 1 && param && !catchall) /* static children and one param: the walk's shortcut */
            rb_buf_printf(c->out, "    {0x%llxu,0x%llxu,%u,%u,%u,0,%u,%u,%s_PARAM_ONLY},\n",
                          (unsigned long long)lens,
                          (unsigned long long)(d[i].shift ? d[i].mult : 0),
                          d[i].shift ? f.mask + 1 + d[i].sbase : 0, d[i].shift,
                          nd->order == 3 ? 0 : (uint32_t)nd->window, param, nd->caps, P);
        else
            rb_buf_printf(
                c->out, "    {0x%llxu,0x%llxu,%u,%u,%u,%u,%u,%u,%u},\n", (unsigned long long)lens,
                (unsigned long long)(d[i].shift ? d[i].mult : 0),
                d[i].shift ? f.mask + 1 + d[i].sbase : 0, d[i].shift,
                nd->order == 3 ? 0 : (uint32_t)nd->window, catchall, first[i], nd->caps, n1);
    }
    rb_buf_puts(c->out, "};\n\n");
    /* static children, in their slots */
    rb_buf_printf(c->out, "static const %s_slot %s_slots[%llu] = {\n", P, P,
                  (unsigned long long)f.mask + 1 + nextra);
    bool any = false;
    for (uint32_t s = 0; s <= f.mask; s++) {
        if (!f.slot[s]) continue;
        put_slot(c, s, f.slot[s] - 1, text[f.slot[s] - 1]);
        any = true;
    }
    for (size_t i = 0; i < c->nnodes; i++) {
        if (!d[i].shift) continue;
        for (uint32_t ch = c->nodes[i].child; ch; ch = c->nodes[ch].sibling) {
            if (c->nodes[ch].order != 0) continue;
            uint64_t at = (direct_value(&c->nodes[ch]) * d[i].mult) >> d[i].shift;
            put_slot(c, (uint64_t)f.mask + 1 + d[i].sbase + at, ch, text[ch]);
        }
    }
    if (!any) rb_buf_puts(c->out, "    {0,0,0,0,0},\n");
    rb_buf_printf(c->out, "};\n\nstatic const uint32_t %s_disp[%u] = {", P, f.nb);
    for (uint32_t b = 0; b < f.nb; b++) rb_buf_printf(c->out, "%s%u", sep(b), f.disp[b]);
    rb_buf_puts(c->out, "\n};\n\n");
done:
    free(tmp);
    free(group);
    free(first);
    free(text);
    free(d);
    phf_free(&f);
    return rc < 0 ? rc : RB_OK;
}

/* The routes: ids, methods, patterns and captures (by index in the file),
 * each route's place in the priority order, and the plugin's tables.
 * pattern[i] and shape[i]: route i's strings in the pool. */
static void put_routes_table(compiler *c, const uint32_t *by_shape, const uint32_t *by_id,
                             const uint32_t *pattern, const uint32_t *shape)
{
    const char *P = c->prefix;
    put(c, "/* The compiled table: route i (in the file's order) has id @_route_id[i]. */\n");
    rb_buf_printf(c->out, "#define %s_ROUTES %zu\n", P, c->n);
    rb_buf_printf(c->out, "const uint32_t %s_route_count = %zu;\n", P, c->n);
    rb_buf_printf(c->out, "const uint32_t %s_route_id[%zu] = {", P, c->n);
    for (size_t i = 0; i < c->n; i++) rb_buf_printf(c->out, "%s%u", sep(i), c->routes[i].id);
    rb_buf_printf(c->out, "\n};\nconst unsigned char %s_route_method[%zu] = {", P, c->n);
    for (size_t i = 0; i < c->n; i++) rb_buf_printf(c->out, "%s%d", sep(i), c->routes[i].method);
    rb_buf_printf(c->out, "\n};\nconst char *const %s_route_pattern[%zu] = {", P, c->n);
    for (size_t i = 0; i < c->n; i++)
        rb_buf_printf(c->out, "%s%s_pool + %u",
                      i == 0  ? "\n    "
                      : i % 6 ? ", "
                              : ",\n    ",
                      P, pattern[i]);
    rb_buf_printf(c->out, "\n};\nstatic const unsigned char %s_ncaps[%zu] = {", P, c->n);
    for (size_t i = 0; i < c->n; i++)
        rb_buf_printf(c->out, "%s%u", sep(i), c->routes[i].pattern->ncaptures);
    rb_buf_printf(c->out,
                  "\n};\n\n"
                  "/* Each route's place in the priority order (for equal ranks). */\n"
                  "static const uint32_t %s_prio[%zu] = {",
                  P, c->n);
    for (size_t i = 0; i < c->n; i++) rb_buf_printf(c->out, "%s%u", sep(i), c->prio[i]);
    rb_buf_puts(c->out, "\n};\n\n");
    /* the plugin's tables: shapes in search order, routes in id order */
    rb_buf_printf(c->out,
                  "#ifdef RB_COMPILED_PLUGIN\n"
                  "static const struct {\n"
                  "    const char *shape;\n"
                  "    uint32_t len;\n"
                  "    int method;\n"
                  "    uint32_t route;\n"
                  "} %s_shapes[%zu] = {\n",
                  P, c->n);
    for (size_t k = 0; k < c->n; k++) {
        const rb_route *r = &c->routes[by_shape[k]];
        rb_buf_printf(c->out, "    {%s_pool + %u, %zu, %d, %u},\n", P, shape[by_shape[k]],
                      r->pattern->shape_len, r->method, by_shape[k]);
    }
    rb_buf_printf(c->out, "};\nstatic const uint32_t %s_by_id[%zu] = {", P, c->n);
    for (size_t k = 0; k < c->n; k++) rb_buf_printf(c->out, "%s%u", sep(k), by_id[k]);
    rb_buf_puts(c->out, "\n};\n#endif\n\n");
}

static const char lookup_text[] =
    "int @_lookup(int method, const char *path, size_t len, @_match *m)\n"
    "{\n"
    "    int r = -1;\n"
    "    m->allowed = 0;\n"
    "    if (method >= 0 && method < @_METHODS && len > 0 && (uint64_t)len <= 0xffffffffu && "
    "path[0] == '/') {\n"
    "        @_ctx cx;\n"
    "        @_ctx_init(&cx, method, path, len, m);\n"
    "        r = @_walk(&cx, 1, 0);\n"
    "    }\n"
    "    if (r >= 0) {\n"
    "        m->outcome = 200;\n"
    "        m->route_id = @_route_id[r];\n"
    "        m->nparams = @_ncaps[r];\n"
    "        m->allowed = 0;\n"
    "        return 200;\n"
    "    }\n"
    "    m->nparams = 0;\n"
    "    m->outcome = m->allowed ? 405 : 404;\n"
    "    return m->outcome;\n"
    "}\n"
    "\n";

static const char plugin_text[] =
    "#ifdef RB_COMPILED_PLUGIN\n"
    "/* ---- the routebench plugin: this table only ---- */\n"
    "static const char *const @_method_names[] = {\"GET\", \"HEAD\", \"POST\", \"PUT\", "
    "\"DELETE\",\n"
    "                                             \"CONNECT\", \"OPTIONS\", \"TRACE\", \"PATCH\", "
    "\"*\"};\n"
    "\n"
    "typedef struct @_plugin {\n"
    "    const rb_allocator *allocator;\n"
    "    uint32_t added;\n"
    "    uint32_t ids[@_ROUTES];   /* the host's id of each compiled route */\n"
    "    unsigned char seen[@_ROUTES];\n"
    "} @_plugin;\n"
    "\n"
    "static int @_plugin_create(const rb_config *config, void **out, rb_error *err)\n"
    "{\n"
    "    @_plugin *pl = rb_calloc(config->allocator, sizeof *pl);\n"
    "    if (!pl) return rb_error_set(err, RB_ENOMEM, RB_NO_OFFSET, \"out of memory\");\n"
    "    pl->allocator = config->allocator;\n"
    "    *out = pl;\n"
    "    return RB_OK;\n"
    "}\n"
    "\n"
    "static int @_shape_compare(int method, const char *shape, size_t len, size_t k)\n"
    "{\n"
    "    size_t n = len < @_shapes[k].len ? len : @_shapes[k].len;\n"
    "    int d;\n"
    "    if (method != @_shapes[k].method) return method < @_shapes[k].method ? -1 : 1;\n"
    "    d = memcmp(shape, @_shapes[k].shape, n);\n"
    "    if (d) return d;\n"
    "    return len == @_shapes[k].len ? 0 : len < @_shapes[k].len ? -1 : 1;\n"
    "}\n"
    "\n"
    "static int @_plugin_add(void *impl, const rb_route *route, rb_error *err)\n"
    "{\n"
    "    @_plugin *pl = impl;\n"
    "    size_t lo = 0, hi = @_ROUTES;\n"
    "    const rb_pattern *p = route->pattern;\n"
    "    while (lo < hi) {\n"
    "        size_t mid = lo + (hi - lo) / 2;\n"
    "        int d = @_shape_compare(route->method, p->shape, p->shape_len, mid);\n"
    "        if (d == 0) {\n"
    "            uint32_t k = @_shapes[mid].route;\n"
    "            if (pl->seen[k]) break;\n"
    "            pl->seen[k] = 1;\n"
    "            pl->ids[k] = route->id;\n"
    "            pl->added++;\n"
    "            return RB_OK;\n"
    "        }\n"
    "        if (d < 0) hi = mid; else lo = mid + 1;\n"
    "    }\n"
    "    return rb_error_set(err, RB_EINVAL, RB_NO_OFFSET,\n"
    "                        \"compiled for a different table: route id %u (%s %.*s) is not \"\n"
    "                        \"in the compiled table of %u routes\", route->id,\n"
    "                        @_method_names[route->method], (int)(p->len > 200 ? 200 : p->len),\n"
    "                        p->text, (unsigned)@_ROUTES);\n"
    "}\n"
    "\n"
    "static int @_plugin_build(void *impl, rb_error *err)\n"
    "{\n"
    "    @_plugin *pl = impl;\n"
    "    uint32_t k;\n"
    "    if (pl->added != @_ROUTES) {\n"
    "        for (k = 0; k < @_ROUTES && pl->seen[k]; k++) continue;\n"
    "        return rb_error_set(err, RB_EINVAL, RB_NO_OFFSET,\n"
    "                            \"compiled for a different table: it has %u routes, this \"\n"
    "                            \"table %u; route %u of it (%s) is missing\",\n"
    "                            (unsigned)@_ROUTES, (unsigned)pl->added, (unsigned)k,\n"
    "                            @_route_pattern[k]);\n"
    "    }\n"
    "    /* the route id decides the last tie: the host's ids must be in the\n"
    "     * compiled ids' order */\n"
    "    for (k = 1; k < @_ROUTES; k++)\n"
    "        if (pl->ids[@_by_id[k]] <= pl->ids[@_by_id[k - 1]])\n"
    "            return rb_error_set(err, RB_EINVAL, RB_NO_OFFSET,\n"
    "                                \"compiled for a different table: routes %s and %s are \"\n"
    "                                \"in the other order (ids decide ties)\",\n"
    "                                @_route_pattern[@_by_id[k - 1]],\n"
    "                                @_route_pattern[@_by_id[k]]);\n"
    "    return RB_OK;\n"
    "}\n"
    "\n"
    "static int @_plugin_lookup(const void *impl, int method, const char *path, size_t len,\n"
    "                           rb_match *m)\n"
    "{\n"
    "    const @_plugin *pl = impl;\n"
    "    int r = -1;\n"
    "    m->allowed = 0;\n"
    "    if (len > 0 && (uint64_t)len <= 0xffffffffu && path[0] == '/') {\n"
    "        @_ctx cx;\n"
    "        @_ctx_init(&cx, method, path, len, m);\n"
    "        r = @_walk(&cx, 1, 0);\n"
    "    }\n"
    "    if (r >= 0) {\n"
    "        m->outcome = RB_FOUND;\n"
    "        m->route_id = pl->ids[r];\n"
    "        m->nparams = @_ncaps[r];\n"
    "        return RB_FOUND;\n"
    "    }\n"
    "    m->nparams = 0;\n"
    "    m->outcome = m->allowed ? RB_METHOD_NOT_ALLOWED : RB_NOT_FOUND;\n"
    "    return m->outcome;\n"
    "}\n"
    "\n"
    "static size_t @_plugin_memory(const void *impl)\n"
    "{\n"
    "    (void)impl;\n"
    "    return sizeof(@_plugin);\n"
    "}\n"
    "\n"
    "static void @_plugin_destroy(void *impl)\n"
    "{\n"
    "    @_plugin *pl = impl;\n"
    "    rb_free(pl->allocator, pl, sizeof *pl);\n"
    "}\n"
    "\n"
    "static const rb_router_ops @_ops = {\n"
    "    RB_ROUTER_ABI_VERSION,\n"
    "    \"compiled\",\n"
    "    \"router generated for one fixed table (routebench compile)\",\n"
    "    RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_TEMPLATE,\n"
    "    @_plugin_create,\n"
    "    @_plugin_add,\n"
    "    @_plugin_build,\n"
    "    @_plugin_lookup,\n"
    "    @_plugin_memory,\n"
    "    @_plugin_destroy,\n"
    "    NULL,\n"
    "    NULL,\n"
    "};\n"
    "\n"
    "RB_PLUGIN_EXPORT const rb_router_ops *const *routebench_plugin_routers(size_t *count);\n"
    "RB_PLUGIN_EXPORT const rb_router_ops *const *routebench_plugin_routers(size_t *count)\n"
    "{\n"
    "    static const rb_router_ops *const table[] = {&@_ops};\n"
    "    *count = 1;\n"
    "    return table;\n"
    "}\n"
    "#endif\n";

static bool prefix_ok(const char *p)
{
    size_t n = strlen(p);
    if (n == 0 || n > RB_COMPILE_PREFIX_MAX) return false;
    for (size_t i = 0; i < n; i++) {
        char ch = p[i];
        bool alpha = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
        if (!alpha && !(i > 0 && ch >= '0' && ch <= '9')) return false;
    }
    return true;
}

static int emit(compiler *c, rb_error *err)
{
    uint32_t *by_shape = malloc(c->n * sizeof *by_shape), *by_id = malloc(c->n * sizeof *by_id),
             *order = malloc(c->n * sizeof *order), *tmp = malloc(c->n * sizeof *tmp),
             *pattern = malloc(c->n * sizeof *pattern), *shape = malloc(c->n * sizeof *shape);
    rb_buf pool = {0}, body = {0};
    int rc = RB_OK;
    if (!by_shape || !by_id || !order || !tmp || !pattern || !shape) {
        rc = RB_ENOMEM;
        goto done;
    }
    for (uint32_t i = 0; i < c->n; i++) by_shape[i] = by_id[i] = order[i] = i;
    merge_sort(c, by_shape, tmp, c->n, shape_compare);
    merge_sort(c, by_id, tmp, c->n, id_compare);
    for (size_t k = 1; k < c->n; k++)
        if (c->routes[by_id[k]].id == c->routes[by_id[k - 1]].id) {
            rc = rb__error(err, RB_EINVAL, RB_NO_OFFSET, "route id %u is given twice",
                           c->routes[by_id[k]].id);
            goto done;
        }
    merge_sort(c, order, tmp, c->n, priority_compare);
    for (uint32_t k = 0; k < c->n; k++) c->prio[order[k]] = k;
    /* children come after their parent in nodes[]: fold from the end */
    for (size_t i = c->nnodes; i-- > 0;) {
        cnode *nd = &c->nodes[i];
        nd->minprio = UINT32_MAX;
        for (int t = 0; t < TERMS; t++)
            if (nd->term[t] != NO_ROUTE && c->prio[nd->term[t]] < nd->minprio)
                nd->minprio = c->prio[nd->term[t]];
        for (uint32_t ch = nd->child; ch; ch = c->nodes[ch].sibling)
            if (c->nodes[ch].minprio < nd->minprio) nd->minprio = c->nodes[ch].minprio;
    }
    for (size_t i = 0; i < c->n; i++) {
        const rb_pattern *p = c->routes[i].pattern;
        pattern[i] = pool_add(&pool, p->text, p->len);
        shape[i] = pool_add(&pool, p->shape, p->shape_len);
    }
    /* the tables first (they add to the pool), then the pool before them */
    rb_buf *saved = c->out;
    c->out = &body;
    rc = put_tables(c, &pool);
    c->out = saved;
    if (rc < 0) goto done;
    if (pool.len >= UINT32_MAX / 2) {
        rc = RB_ELIMIT;
        goto done;
    }
    rb_buf_printf(c->out,
                  "/* A router for one fixed table of %zu routes, generated by `routebench "
                  "compile`\n"
                  " * (docs/compile.md).  Standard C11, standard headers only:\n"
                  " *     int %s_lookup(int method, const char *path, size_t len, %s_match *m);\n"
                  " * answers as routebench's routers do on this table.  With\n"
                  " * -DRB_COMPILED_PLUGIN it is also a routebench plugin for this table. */\n",
                  c->n, c->prefix, c->prefix);
    put(c, preamble);
    put_pool(c, &pool);
    put_routes_table(c, by_shape, by_id, pattern, shape);
    rb_buf_append(c->out, body.data ? body.data : "", body.len);
    if (body.failed || pool.failed) c->out->failed = 1;
    put(c, walker_text);
    put(c, lookup_text);
    put(c, plugin_text);
done:
    rb_buf_free(&body);
    rb_buf_free(&pool);
    free(by_shape);
    free(by_id);
    free(order);
    free(tmp);
    free(pattern);
    free(shape);
    if (rc == RB_ELIMIT)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET,
                         "the table is too large to compile: over 2 GiB of strings, over "
                         "65,535 param and template children at one node, or no perfect "
                         "hash found for its static segments");
    if (rc == RB_ENOMEM || c->out->failed)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory compiling the table");
    return rc;
}

/* rb_compile_routes; *refused: the index of a route refused with
 * RB_EUNSUPPORTED. */
static int compile_routes(const rb_route *routes, size_t n, const char *prefix, rb_buf *out,
                          size_t *refused, rb_error *err)
{
    if (!prefix) prefix = RB_COMPILE_DEFAULT_PREFIX;
    if (!prefix_ok(prefix))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "prefix '%.*s' is not a C identifier of 1 to %u bytes", 60, prefix,
                         RB_COMPILE_PREFIX_MAX);
    if (n == 0) return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "the table has no routes");
    if (n >= UINT32_MAX / 2)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "too many routes to compile: %zu", n);
    compiler c = {.routes = routes, .n = n, .prefix = prefix, .out = out};
    c.keys = calloc(n, sizeof *c.keys);
    c.shapes = calloc(n, sizeof *c.shapes);
    c.prio = malloc(n * sizeof *c.prio);
    uint32_t *sorted = malloc(n * sizeof *sorted), *tmp = malloc(n * sizeof *tmp);
    int rc;
    if (!c.keys || !c.shapes || !c.prio || !sorted || !tmp) {
        rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory compiling the table");
        goto done;
    }
    rc = make_keys(&c, err);
    if (rc < 0) goto done;
    for (uint32_t i = 0; i < n; i++) sorted[i] = i;
    merge_sort(&c, sorted, tmp, n, route_compare);
    rc = build_trie(&c, sorted, err);
    if (rc < 0) goto done;
    rc = emit(&c, err);
done:
    *refused = c.refused;
    for (size_t i = 0; c.keys && i < n; i++) free(c.keys[i]);
    for (size_t i = 0; c.shapes && i < n; i++) free(c.shapes[i]);
    free(c.keys);
    free(c.shapes);
    free(c.prio);
    free(c.nodes);
    free(sorted);
    free(tmp);
    return rc;
}

int rb_compile_routes(const rb_route *routes, size_t n, const char *prefix, rb_buf *out,
                      rb_error *err)
{
    size_t refused;
    return compile_routes(routes, n, prefix, out, &refused, err);
}

int rb_compile_table(const rb_route_table *t, const char *name, const char *prefix, rb_buf *out,
                     rb_error *err)
{
    if (t->count == 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s: the table has no routes", name);
    rb_route_set *set;
    int rc = rb_route_table_set(t, name, NULL, &set, err);
    if (rc < 0) return rc;
    rb_route_set_destroy(set);
    rb_pattern *pats = calloc(t->count ? t->count : 1, sizeof *pats);
    rb_route *routes = calloc(t->count ? t->count : 1, sizeof *routes);
    size_t parsed = 0;
    if (!pats || !routes) {
        rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory compiling the table");
        goto done;
    }
    for (; parsed < t->count; parsed++) {
        const rb_route_entry *e = &t->routes[parsed];
        rc = rb_pattern_parse(rb_route_pattern(t, parsed), e->len, NULL, &pats[parsed], err);
        if (rc < 0) goto done; /* the set parsed it: only RB_ENOMEM */
        routes[parsed] = (rb_route){e->method, (uint32_t)parsed, &pats[parsed]};
    }
    size_t refused = 0;
    rc = compile_routes(routes, t->count, prefix, out, &refused, err);
    if (rc == RB_EUNSUPPORTED && err) {
        rb_error inner = *err;
        rb__error(err, RB_EUNSUPPORTED, inner.offset, "%s:%zu: %s", name, t->routes[refused].line,
                  inner.message);
        err->line = t->routes[refused].line;
    } else if (rc < 0 && rc != RB_ENOMEM && err) { /* a refusal of the whole table names it */
        rb_error inner = *err;
        rb__error(err, rc, inner.offset, "%s: %s", name, inner.message);
    }
done:
    for (size_t i = 0; i < parsed; i++) rb_pattern_free(&pats[i]);
    free(pats);
    free(routes);
    return rc;
}
