/*
 * compile.c — C source for a router specialised to one route table (the
 * contract: compile.h; the user's side: docs/compile.md).
 *
 * The table becomes a segment trie, and each trie node becomes a function
 * that reads one path segment and tries the node's children in the order
 * of the priority rule (docs/design.md, "Route semantics"), backtracking
 * when a subtree has no route for the request:
 *
 *     GET /users, GET /users/:id, GET /users/me, POST /users/:id/posts,
 *     GET /static/{*path}
 *
 *     n0 (root)    segment "users"  -> n1      (switch on the length, then
 *                  segment "static" -> n4       the bytes against constants)
 *     n1 "users"   end of path: GET -> route 0, else 405 {GET}
 *                  segment "me"  -> end: GET -> route 2          (static)
 *                  segment 1+ bytes -> n2, capture 0             (param)
 *     n2 ":id"     end: GET -> route 1; segment "posts" -> end: POST -> 3
 *     n4 "static"  1+ bytes to the end: capture 0, GET -> route 4 (catch-all)
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
 * Static children of one node are found by testing for a '/' (or the
 * path's end) after each of their lengths, when they have at most
 * RB_COMPILE_PROBED_LENGTHS lengths, else by finding the segment's end and
 * switching on its length; then, when there are more than a few of one
 * length, on the 8 bytes (or
 * the whole segment when shorter) at the offset that tells most of them
 * apart, read with one load and compared in a switch with constants for
 * the host's byte order; then the whole segment is compared (memcmp of a
 * constant length, which compilers turn into a few word compares).  No
 * hashing, no probe loop.
 *
 * Cost: generation O(N log N + total pattern bytes) time and output
 * bytes; the emitted lookup does per path segment at most one scan for
 * '/', one switch and one compare of the segment, plus the backtracking
 * the rule needs (bounded by the trie's size).
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
/* Static children of at most this many lengths are found by testing for a
 * '/' after each length; more, by scanning for the segment's end first. */
#define RB_COMPILE_PROBED_LENGTHS 6
#define TERMS                     (RB_METHOD_COUNT + 1) /* the methods, then `*` */

typedef struct cnode {
    uint8_t order;        /* of the segment that leads here (seg_key.order) */
    const char *text;     /* its key */
    uint32_t len;         /* its key's length */
    uint32_t caps;        /* captures of the segments up to and including it */
    uint32_t child;       /* first child, or 0 (the root is never a child) */
    uint32_t sibling;     /* next child of the parent, or 0 */
    uint32_t last;        /* last child, or 0 */
    uint32_t term[TERMS]; /* route of each method ending here, or NO_ROUTE */
    bool fn;              /* emitted as a function (else inline in the parent) */
    uint32_t minprio;     /* the smallest priority place of a route in its subtree */
    uint64_t window;      /* scratch of put_static_group: bytes of a window, as a number */
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
    bool need_prio;
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

/* A C string literal of bytes[0, n). */
static void put_literal(compiler *c, const char *bytes, size_t n)
{
    rb_buf_puts(c->out, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char b = (unsigned char)bytes[i];
        if (b == '"' || b == '\\' || b == '?')
            rb_buf_printf(c->out, "\\%c", b);
        else if (b >= 0x20 && b < 0x7f)
            rb_buf_append(c->out, (const char *)&b, 1);
        else
            rb_buf_printf(c->out, "\\%03o", b);
    }
    rb_buf_puts(c->out, "\"");
}

/* The separator before element i of a table: 16 a line. */
static const char *sep(size_t i)
{
    return i == 0 ? "\n    " : i % 16 ? ", " : ",\n    ";
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
    "#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__\n"
    "#define @_K(le, be) (be)\n"
    "#else\n"
    "#define @_K(le, be) (le)\n"
    "#endif\n"
    "\n"
    "/* w (1..8) bytes at s as one integer, in the host's byte order. */\n"
    "static inline uint64_t @_word(const char *s, size_t w)\n"
    "{\n"
    "    uint64_t v = 0;\n"
    "    memcpy(&v, s, w);\n"
    "    return v;\n"
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

/* The routes of node nd: return the one that fits method; else add their
 * methods to the 405 mask and go on. */
static void put_terminal(compiler *c, const cnode *nd, const char *indent)
{
    uint32_t mask = 0;
    bool any_specific = false;
    for (int t = 0; t < RB_METHOD_COUNT; t++)
        if (nd->term[t] != NO_ROUTE) {
            mask |= 1u << t;
            any_specific = true;
        }
    if (any_specific) {
        rb_buf_printf(c->out, "%sswitch (method) {\n", indent);
        for (int t = 0; t < RB_METHOD_COUNT; t++)
            if (nd->term[t] != NO_ROUTE)
                rb_buf_printf(c->out, "%scase %d: return %u;\n", indent, t, nd->term[t]);
        rb_buf_printf(c->out, "%sdefault: break;\n%s}\n", indent, indent);
    }
    if (nd->term[RB_METHOD_COUNT] != NO_ROUTE)
        rb_buf_printf(c->out, "%sreturn %u;\n", indent, nd->term[RB_METHOD_COUNT]);
    else if (mask)
        rb_buf_printf(c->out, "%sm->allowed |= 0x%xu;\n", indent, mask);
}

/* Enter child ch after its segment [pos, e) matched. */
static void put_enter(compiler *c, uint32_t ch, const char *indent)
{
    const cnode *nd = &c->nodes[ch];
    if (nd->fn) {
        put(c, indent);
        rb_buf_printf(c->out, "r = %s_n%u(p, len, e + 1, method, m);\n", c->prefix, ch);
        rb_buf_printf(c->out, "%sif (r >= 0) return r;\n", indent);
        return;
    }
    rb_buf_printf(c->out, "%sif (e == len) {\n", indent);
    char deeper[64];
    snprintf(deeper, sizeof deeper, "%s    ", indent);
    put_terminal(c, nd, deeper);
    rb_buf_printf(c->out, "%s}\n", indent);
}

static uint64_t le_value(const char *s, size_t w)
{
    uint64_t v = 0;
    for (size_t i = 0; i < w; i++) v |= (uint64_t)(unsigned char)s[i] << (8 * i);
    return v;
}

static uint64_t be_value(const char *s, size_t w)
{
    uint64_t v = 0;
    for (size_t i = 0; i < w; i++) v |= (uint64_t)(unsigned char)s[i] << (56 - 8 * i);
    return v;
}

static int window_compare(const compiler *c, uint32_t a, uint32_t b)
{
    const cnode *x = &c->nodes[a], *y = &c->nodes[b];
    return x->window < y->window ? -1 : x->window > y->window;
}

/* "if the segment is node id's L bytes, enter it", at indent outer, its
 * body at inner. */
static void put_compare_enter(compiler *c, uint32_t id, uint32_t L, const char *outer,
                              const char *inner)
{
    const cnode *nd = &c->nodes[id];
    rb_buf_printf(c->out, "%sif (memcmp(s, ", outer);
    put_literal(c, nd->text, nd->len);
    rb_buf_printf(c->out, ", %u) == 0) {\n", L);
    put_enter(c, id, inner);
    rb_buf_printf(c->out, "%sgoto rank1;\n%s}\n", inner, outer);
}

/* The static children ids[0, k) of one length L. */
static int put_static_group(compiler *c, uint32_t *ids, size_t k, uint32_t L)
{
    if (k <= 3 || L == 0) {
        for (size_t j = 0; j < k; j++) {
            if (L == 0)
                put_enter(c, ids[j], "        ");
            else
                put_compare_enter(c, ids[j], L, "        ", "            ");
        }
        rb_buf_puts(c->out, "        goto rank1;\n");
        return RB_OK;
    }
    size_t w = L < 8 ? L : 8;
    uint32_t *tmp_ids = malloc(k * sizeof *tmp_ids);
    if (!tmp_ids) return RB_ENOMEM;
    cnode *nodes = c->nodes;
    size_t best_off = 0, best_distinct = 0;
    for (size_t off = 0; off + w <= L; off++) {
        for (size_t j = 0; j < k; j++) nodes[ids[j]].window = le_value(nodes[ids[j]].text + off, w);
        merge_sort(c, ids, tmp_ids, k, window_compare);
        size_t distinct = 1;
        for (size_t j = 1; j < k; j++) distinct += nodes[ids[j]].window != nodes[ids[j - 1]].window;
        if (distinct > best_distinct) {
            best_distinct = distinct;
            best_off = off;
        }
        if (distinct == k) break;
    }
    for (size_t j = 0; j < k; j++)
        nodes[ids[j]].window = le_value(nodes[ids[j]].text + best_off, w);
    merge_sort(c, ids, tmp_ids, k, window_compare);
    rb_buf_printf(c->out, "        switch (%s_word(s + %zu, %zu)) {\n", c->prefix, best_off, w);
    for (size_t j = 0; j < k; j++) {
        const cnode *nd = &c->nodes[ids[j]];
        if (j == 0 || nd->window != nodes[ids[j - 1]].window)
            rb_buf_printf(c->out, "        case %s_K(UINT64_C(0x%016llx), UINT64_C(0x%016llx)):\n",
                          c->prefix, (unsigned long long)nd->window,
                          (unsigned long long)be_value(nd->text + best_off, w));
        if (w == L) {
            rb_buf_puts(c->out, "        {\n");
            put_enter(c, ids[j], "            ");
            rb_buf_puts(c->out, "            goto rank1;\n        }\n");
        } else {
            put_compare_enter(c, ids[j], L, "            ", "                ");
        }
        if (j + 1 == k || nodes[ids[j + 1]].window != nd->window)
            rb_buf_puts(c->out, "            goto rank1;\n");
    }
    rb_buf_puts(c->out, "        default: goto rank1;\n        }\n");
    free(tmp_ids);
    return RB_OK;
}

static int len_compare(const compiler *c, uint32_t a, uint32_t b)
{
    const cnode *x = &c->nodes[a], *y = &c->nodes[b];
    return x->len < y->len ? -1 : x->len > y->len;
}

/* Match child ch (a param or template) on [pos, e): its captures go to
 * m->params from the node's capture index d. */
static void put_rank1_test(compiler *c, const cnode *ch, uint32_t d)
{
    if (ch->order == 1) {
        rb_buf_printf(c->out,
                      "    if (n > 0) {\n"
                      "        m->params[%u].offset = (uint32_t)pos;\n"
                      "        m->params[%u].len = (uint32_t)n;\n",
                      d, d);
    } else {
        const char *open = memchr(ch->text, '{', ch->len);
        size_t head = (size_t)(open - ch->text), tail = ch->len - head - 2;
        if (!memchr(open + 2, '{', tail)) {
            /* one param: a prefix and a suffix to compare, the rest is the param */
            rb_buf_printf(c->out, "    if (n >= %zu", head + tail + 1);
            if (head) {
                rb_buf_puts(c->out, " && memcmp(s, ");
                put_literal(c, ch->text, head);
                rb_buf_printf(c->out, ", %zu) == 0", head);
            }
            if (tail) {
                rb_buf_printf(c->out, " && memcmp(s + n - %zu, ", tail);
                put_literal(c, open + 2, tail);
                rb_buf_printf(c->out, ", %zu) == 0", tail);
            }
            rb_buf_printf(c->out,
                          ") {\n"
                          "        m->params[%u].offset = (uint32_t)(pos + %zu);\n"
                          "        m->params[%u].len = (uint32_t)(n - %zu);\n",
                          d, head, d, head + tail);
            return;
        }
        rb_buf_printf(c->out, "    if (%s_template(", c->prefix);
        put_literal(c, ch->text, ch->len);
        rb_buf_printf(c->out, ", %u, s, n, pos, m->params + %u)) {\n", ch->len, d);
    }
}

static int put_node(compiler *c, uint32_t id)
{
    const cnode *nd = &c->nodes[id];
    const char *P = c->prefix;
    uint32_t d = nd->caps;
    rb_buf_printf(c->out,
                  "static int %s_n%u(const char *p, size_t len, size_t pos, int method, %s_match "
                  "*m)\n{\n",
                  P, id, P);
    rb_buf_puts(c->out, "    (void)p;\n    (void)method;\n    if (pos > len) {\n");
    put_terminal(c, nd, "        ");
    rb_buf_puts(c->out, "        return -1;\n    }\n");
    size_t nstatic = 0, nrank1 = 0;
    uint32_t catchall = 0;
    for (uint32_t ch = nd->child; ch; ch = c->nodes[ch].sibling) {
        if (c->nodes[ch].order == 0) nstatic++;
        if (c->nodes[ch].order == 1 || c->nodes[ch].order == 2) nrank1++;
        if (c->nodes[ch].order == 3) catchall = ch;
    }
    if (nstatic + nrank1 > 0)
        rb_buf_puts(c->out, "    const char *s = p + pos;\n"
                            "    size_t e = 0, n = 0;\n"
                            "    int r;\n"
                            "    (void)r;\n"
                            "    (void)s;\n"
                            "    (void)e;\n"
                            "    (void)n;\n");
    static const char scan[] = "    e = @_segment_end(p, len, pos);\n    n = e - pos;\n";
    if (nstatic) {
        uint32_t *ids = malloc(nstatic * sizeof *ids), *tmp = malloc(nstatic * sizeof *tmp);
        if (!ids || !tmp) {
            free(ids);
            free(tmp);
            return RB_ENOMEM;
        }
        size_t k = 0, lengths = 0;
        for (uint32_t ch = nd->child; ch; ch = c->nodes[ch].sibling)
            if (c->nodes[ch].order == 0) ids[k++] = ch;
        merge_sort(c, ids, tmp, k, len_compare);
        for (size_t j = 0; j < k; j++)
            lengths += j == 0 || c->nodes[ids[j]].len != c->nodes[ids[j - 1]].len;
        /* few lengths: test for a '/' (or the end) after each length, no
         * scan; many: find the segment's end, then switch on its length */
        bool scan_first = lengths > RB_COMPILE_PROBED_LENGTHS;
        if (scan_first) {
            put(c, scan);
            rb_buf_puts(c->out, "    switch (n) {\n");
        }
        for (size_t j = 0; j < k;) {
            size_t g = j;
            uint32_t L = c->nodes[ids[j]].len;
            while (g < k && c->nodes[ids[g]].len == L) g++;
            if (scan_first)
                rb_buf_printf(c->out, "    case %u:\n", L);
            else
                rb_buf_printf(c->out,
                              "    if (len - pos == %u || (len - pos > %u && s[%u] == '/')) {\n"
                              "        e = pos + %u;\n"
                              "        n = %u;\n",
                              L, L, L, L, L);
            if (put_static_group(c, ids + j, g - j, L) < 0) {
                free(ids);
                free(tmp);
                return RB_ENOMEM;
            }
            if (!scan_first) rb_buf_puts(c->out, "    }\n");
            j = g;
        }
        if (scan_first) rb_buf_puts(c->out, "    default: break;\n    }\n");
        rb_buf_puts(c->out, "rank1:\n");
        if (!scan_first && nrank1) put(c, scan);
        free(ids);
        free(tmp);
    } else if (nrank1) {
        put(c, scan);
    }
    if (nrank1 == 1) {
        for (uint32_t ch = nd->child; ch; ch = c->nodes[ch].sibling) {
            if (c->nodes[ch].order != 1 && c->nodes[ch].order != 2) continue;
            put_rank1_test(c, &c->nodes[ch], d);
            put_enter(c, ch, "        ");
            rb_buf_puts(c->out, "    }\n");
        }
    } else if (nrank1 > 1) {
        /* equal ranks here: search every matching child, keep the smallest key */
        c->need_prio = true;
        /* in the order of the best route each subtree holds: a subtree
         * whose best is behind the route found cannot give a better one */
        uint32_t *group = malloc(nrank1 * sizeof *group), ngroup = 0;
        if (!group) return RB_ENOMEM;
        for (uint32_t ch = nd->child; ch; ch = c->nodes[ch].sibling)
            if (c->nodes[ch].order == 1 || c->nodes[ch].order == 2) group[ngroup++] = ch;
        for (uint32_t i = 1; i < ngroup; i++)
            for (uint32_t j = i;
                 j > 0 && c->nodes[group[j]].minprio < c->nodes[group[j - 1]].minprio; j--) {
                uint32_t t = group[j];
                group[j] = group[j - 1];
                group[j - 1] = t;
            }
        rb_buf_printf(c->out, "    {\n    int best = -1;\n    %s_span keep[32];\n", P);
        for (uint32_t gi = 0; gi < ngroup; gi++) {
            uint32_t ch = group[gi];
            if (gi > 0)
                rb_buf_printf(c->out, "    if (best < 0 || %s_prio[best] > %u) {\n", P,
                              c->nodes[ch].minprio);
            put_rank1_test(c, &c->nodes[ch], d);
            rb_buf_printf(c->out,
                          "        r = %s_n%u(p, len, e + 1, method, m);\n"
                          "        if (r >= 0 && (best < 0 || %s_prio[r] < %s_prio[best])) {\n"
                          "            best = r;\n"
                          "            memcpy(keep, m->params, %s_ncaps[r] * sizeof keep[0]);\n"
                          "        }\n"
                          "    }\n",
                          P, ch, P, P, P);
            if (gi > 0) rb_buf_puts(c->out, "    }\n");
        }
        free(group);
        rb_buf_printf(c->out,
                      "    if (best >= 0) {\n"
                      "        memcpy(m->params, keep, %s_ncaps[best] * sizeof keep[0]);\n"
                      "        return best;\n"
                      "    }\n"
                      "    }\n",
                      P);
    }
    if (catchall) {
        rb_buf_printf(c->out,
                      "    if (pos < len) {\n"
                      "        m->params[%u].offset = (uint32_t)pos;\n"
                      "        m->params[%u].len = (uint32_t)(len - pos);\n",
                      d, d);
        put_terminal(c, &c->nodes[catchall], "        ");
        rb_buf_puts(c->out, "    }\n");
    }
    rb_buf_puts(c->out, "    return -1;\n}\n\n");
    return RB_OK;
}

/* Which nodes are functions: the root, every node with children, and the
 * members of a group of equal ranks (searched one after the other). */
static void mark_functions(compiler *c)
{
    for (size_t i = 0; i < c->nnodes; i++) {
        cnode *nd = &c->nodes[i];
        if (i == 0 || nd->child) nd->fn = true;
        size_t nrank1 = 0;
        for (uint32_t ch = nd->child; ch; ch = c->nodes[ch].sibling)
            nrank1 += c->nodes[ch].order == 1 || c->nodes[ch].order == 2;
        if (nrank1 > 1)
            for (uint32_t ch = nd->child; ch; ch = c->nodes[ch].sibling)
                if (c->nodes[ch].order == 1 || c->nodes[ch].order == 2) c->nodes[ch].fn = true;
    }
}

static void put_routes_table(compiler *c, const uint32_t *by_shape, const uint32_t *by_id)
{
    const char *P = c->prefix;
    put(c, "/* The compiled table: route i (in the file's order) has id @_route_id[i]. */\n");
    rb_buf_printf(c->out, "#define %s_ROUTES %zu\n", P, c->n);
    rb_buf_printf(c->out, "const uint32_t %s_route_count = %zu;\n", P, c->n);
    rb_buf_printf(c->out, "const uint32_t %s_route_id[%zu] = {", P, c->n);
    for (size_t i = 0; i < c->n; i++) rb_buf_printf(c->out, "%s%u", sep(i), c->routes[i].id);
    rb_buf_printf(c->out, "\n};\nconst unsigned char %s_route_method[%zu] = {", P, c->n);
    for (size_t i = 0; i < c->n; i++) rb_buf_printf(c->out, "%s%d", sep(i), c->routes[i].method);
    rb_buf_printf(c->out, "\n};\nconst char *const %s_route_pattern[%zu] = {\n", P, c->n);
    for (size_t i = 0; i < c->n; i++) {
        rb_buf_puts(c->out, "    ");
        put_literal(c, c->routes[i].pattern->text, c->routes[i].pattern->len);
        rb_buf_puts(c->out, ",\n");
    }
    rb_buf_printf(c->out, "};\nstatic const unsigned char %s_ncaps[%zu] = {", P, c->n);
    for (size_t i = 0; i < c->n; i++)
        rb_buf_printf(c->out, "%s%u", sep(i), c->routes[i].pattern->ncaptures);
    rb_buf_puts(c->out, "\n};\n\n");
    if (c->need_prio) {
        rb_buf_printf(c->out,
                      "/* Each route's place in the priority order (for equal ranks). */\n"
                      "static const uint32_t %s_prio[%zu] = {",
                      P, c->n);
        for (size_t i = 0; i < c->n; i++) rb_buf_printf(c->out, "%s%u", sep(i), c->prio[i]);
        rb_buf_puts(c->out, "\n};\n\n");
    }
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
        rb_buf_puts(c->out, "    {");
        put_literal(c, r->pattern->shape, r->pattern->shape_len);
        rb_buf_printf(c->out, ", %zu, %d, %u},\n", r->pattern->shape_len, r->method, by_shape[k]);
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
    "    if (method >= 0 && method < @_METHODS && len > 0 && path[0] == '/')\n"
    "        r = @_n0(path, len, 1, method, m);\n"
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
    "    if (len > 0 && path[0] == '/') r = @_n0(path, len, 1, method, m);\n"
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
             *order = malloc(c->n * sizeof *order), *tmp = malloc(c->n * sizeof *tmp);
    int rc = RB_OK;
    if (!by_shape || !by_id || !order || !tmp) {
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
    rb_buf_printf(c->out,
                  "/* A router for one fixed table of %zu routes, generated by `routebench "
                  "compile`\n"
                  " * (docs/compile.md).  Standard C11, standard headers only:\n"
                  " *     int %s_lookup(int method, const char *path, size_t len, %s_match *m);\n"
                  " * answers as routebench's routers do on this table.  With\n"
                  " * -DRB_COMPILED_PLUGIN it is also a routebench plugin for this table. */\n",
                  c->n, c->prefix, c->prefix);
    put(c, preamble);
    mark_functions(c);
    for (size_t i = 0; i < c->nnodes; i++)
        if (c->nodes[i].fn)
            rb_buf_printf(c->out,
                          "static int %s_n%zu(const char *p, size_t len, size_t pos, int method, "
                          "%s_match *m);\n",
                          c->prefix, i, c->prefix);
    rb_buf_puts(c->out, "\n");
    /* the nodes first (they decide need_prio), then the tables before them */
    rb_buf body = {0};
    rb_buf *saved = c->out;
    c->out = &body;
    for (size_t i = 0; i < c->nnodes && rc == RB_OK; i++)
        if (c->nodes[i].fn) rc = put_node(c, (uint32_t)i);
    c->out = saved;
    if (rc == RB_OK) {
        put_routes_table(c, by_shape, by_id);
        rb_buf_append(c->out, body.data ? body.data : "", body.len);
        if (body.failed) c->out->failed = 1;
        put(c, lookup_text);
        put(c, plugin_text);
    }
    rb_buf_free(&body);
done:
    free(by_shape);
    free(by_id);
    free(order);
    free(tmp);
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
    }
done:
    for (size_t i = 0; i < parsed; i++) rb_pattern_free(&pats[i]);
    free(pats);
    free(routes);
    return rc;
}
