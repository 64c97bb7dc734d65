/*
 * peers/r3.c — peer adapter: the C router r3 (libr3, github.com/c9s/r3,
 * the 1.3 series Debian ships) behind our ops table, so it is measured in
 * the same run as our routers and checked by the same conformance suite.
 * It is a measurement of r3, not a router we recommend: where r3 disagrees
 * with `linear`, verify shows it and docs/peers.md explains why.
 *
 * What r3 is: a radix tree over the pattern text.  A node whose child edges
 * contain a slug ({name} or {name:regex}) is compiled into ONE PCRE regex,
 * the alternation of its edges in insertion order; other nodes compare
 * edges with strncmp on the first byte.  Matching descends greedily and
 * never backtracks.  The routes of a path hang off the end node; they are
 * tried newest first, by method bit mask.
 *
 * The example route set shared by every router file, as r3 holds it (the
 * adapter inserts in priority order, see "Translation" below):
 *
 *     (root)
 *       "/"
 *       (o)
 *        +- "users" ---------------> (o) [GET 0]
 *        |                            "/"
 *        |                            (o) regex ^(me)|^([^/]+)
 *        |                             +- "me"  ----> (o) [GET 2]
 *        |                             +- "{p}" ----> (o) [GET 1]
 *        |                                             "/posts"
 *        |                                             (o) [POST 3]
 *        +- "static/" -------------> (o) regex ^((?s:.+))
 *                                     +- "{p:(?s:.+)}" -> (o) [GET 4]
 *
 *     GET /users/me  -> regex node: "me" is the first alternative: route 2
 *     PUT /users/7   -> end node reached, no route fits PUT: 405 {GET}
 *
 * Node layout: r3's own (struct _node in r3.h: edge array, compiled regex,
 * route array).  The adapter keeps beside it one r3peer_route per route:
 * method, id, the path segment of each capture, and the translated r3
 * pattern text, which r3's route keeps a pointer to.  Until build it also
 * keeps a copy of each pattern and its parse (r3peer_source), for the
 * translation and the insertion order; build frees them.
 *
 * Translation (our syntax -> r3's):
 *   static text  -> the same bytes.  r3 has no escape syntax and pastes
 *                   static text into its node regexes unescaped, so text
 *                   with bytes that are regex syntax changing the shape of
 *                   that regex ( ( ) [ ] \ | + * ? ^ $ ) or r3 slug syntax
 *                   ({ }) is refused (RB_EUNSUPPORTED).  '.' is passed
 *                   through: in a regex node it then matches any byte, which
 *                   is r3's behaviour and shows up in verify.  Bytes outside
 *                   printable ASCII are refused too: r3 keeps a node's edge
 *                   capacity in an unsigned char and overflows its edge
 *                   array past 192 children, which only non-ASCII first
 *                   bytes can reach.
 *   :id, {id}    -> {p}, r3's default slug [^/]+ (one whole segment, 1+
 *                   bytes: exact).  Names are erased: r3 treats {id} and
 *                   {name} at one position as two edges and only the first
 *                   is reachable.  When some static text holds ':' the
 *                   explicit {p:[^/]+} is used for every param, since r3
 *                   looks for a slug's regex at the next ':' of the edge,
 *                   even past the slug's '}'.
 *   *rest        -> {p:(?s:.+)}: 1+ bytes to the end, '/' and newlines
 *                   included (exact).
 *   img-{id}.png -> a template: its literal pieces as static text (refused
 *                   as above when r3 cannot paste them), each param a
 *                   slug that is lazy and looks ahead at the rest of the
 *                   template: {t:[^/]+?(?=\.png(?:/|$))}, {a}.{b} as
 *                   {t:[^/]+?(?=\.[^/]+?(?:/|$))}.{t:[^/]+}.  So r3's
 *                   PCRE takes each param as short as the rest allows,
 *                   which is our leftmost-shortest split (a plain {p}
 *                   would take ".png" too, and r3 never backtracks into
 *                   it).  Pieces are escaped for PCRE inside the look-ahead.
 *                   Beside a param at one node, r3 tries the slug edges in
 *                   their order in the node's edge array, and r3 1.3 merges
 *                   a new {p} edge only into the first slug edge: so the
 *                   routes are inserted params first (the {p} edges merge)
 *                   and templates after, and before compiling, each node's
 *                   template edges are moved ahead of its other slug edges
 *                   (static, template, other), so that a segment the
 *                   template fits goes to the template; each r3 text is
 *                   inserted once and its other methods' routes appended
 *                   to its node, since r3 1.3 loses a route whose path it
 *                   walks again through a slug edge that is not its node's
 *                   first, and for the same reason a template that is not
 *                   the last segment is refused (RB_EUNSUPPORTED).  Where it then
 *                   dead-ends (/Accounts/AC1.json/Calls.json: the param
 *                   would have taken "AC1.json") r3 does not come back:
 *                   r3's answer, reported by verify.
 *   globs, **    -> refused (r3 has no segment globs).
 *   (see "Translation" in docs/peers.md for what r3 1.3 gets wrong with
 *   slug edges side by side, and how the insertion works around it)
 *   methods      -> r3's METHOD_* bits; CONNECT and TRACE, which r3 does
 *                   not name, get the next two bits (r3 only tests
 *                   route_bits & request_bits); "*" is 0, r3's "any".
 * Routes are inserted into r3 at build, sorted by our priority key (static
 * before param before catch-all at each position, a proper prefix first,
 * "*" before a specific method of the same shape): r3 tries a regex
 * node's edges in insertion order and a node's routes newest first, so
 * this is the registration order an r3 user has to choose by hand.  What r3
 * still gets wrong in that order (no backtracking, '.', 405) is r3's.
 *
 * Lookup: the path is copied into a NUL-terminated buffer (on the stack up
 * to 1 KiB, else allocated): r3 compares edges with strncmp and its
 * opcode loop reads one byte past the end.  r3 then returns the end node
 * (r3_tree_matchl) and the adapter tries its routes with r3_route_cmp, as
 * r3_tree_match_route does; when none fits the method but the node has
 * routes, the answer is 405 with the union of their methods (r3 itself
 * only says "no route").  Captures: r3 returns heap copies (zstrndup) of
 * the captured strings, in order; the adapter places capture k at the
 * path segment where the route's pattern puts it and checks that the copy
 * equals those bytes (a copy that is not found there gets offset
 * UINT32_MAX, so verify flags it), then frees the copies.
 *
 * Cost (r3's): build O(total pattern bytes + one PCRE compile per regex
 * node); lookup O(L) string compares plus one PCRE match per regex node on
 * the path, one allocation per captured param; memory O(total pattern
 * bytes) plus the regexes.
 *
 * Limits and what r3 does not do (docs/peers.md has the full list):
 *   - r3 compiles a regex node into a fixed 192-byte buffer (and a slug
 *     edge into a 200-byte one) and overflows the heap when a node needs
 *     more.  build checks every node first and fails with RB_ELIMIT, naming
 *     the node, instead of letting r3 corrupt memory.
 *   - r3 keeps the remaining length in an unsigned short while matching,
 *     so on paths over 64 KiB its answers may be wrong (never out of
 *     bounds: the copy is NUL-terminated and every length only shrinks).
 *     They are r3's answers and are reported as such.  Paths of INT_MAX
 *     bytes or more (r3 takes an int) get 404 without asking r3.
 *   - lookup allocates (one zstrndup per capture, freed before returning;
 *     a heap copy of paths over 1 KiB).  An allocation failure gives 404.
 *   - r3's capture copies are C strings: a captured NUL byte ends the copy,
 *     so the span is shorter than the segment (r3's answer, reported).
 *   - memory() = the growth of r3's own allocation counter
 *     (zmalloc_used_memory) across build, plus the PCRE regexes (which r3
 *     allocates with malloc; pcre_fullinfo sizes), plus the adapter's own
 *     records and translated texts.  The counter is process-wide: exact
 *     unless another r3 tree is built or matched in another thread at the
 *     same time.  describe() shows the three parts.
 *
 * Invariants (r3peer_check): after build every route is reachable from the
 * tree's route arrays exactly once, each r3 route's data points at its
 * record, and every regex node fits r3's buffer.  build creates the r3 tree
 * (add only records); a failed build leaves no tree and may be retried.
 *
 * Thread safety: lookup only reads the tree, and PCRE matching is
 * reentrant, but r3 allocates the capture copies through its zmalloc,
 * whose byte counter is a plain global unless thread safety is switched
 * on: create switches it on (zmalloc_enable_thread_safeness), after which
 * every capture takes r3's global mutex twice.  So concurrent lookups are
 * safe, and contend on that mutex.
 */
#define _XOPEN_SOURCE 700 /* r3_str.h declares a conflicting strndup otherwise */

#include "router_impl.h"

#include <limits.h>
#include <pcre.h>
#include <r3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libr3's allocator: exported by libr3.so but not declared in its installed
 * headers.  zfree frees what r3_tree_matchl allocated (capture copies). */
void zfree(void *ptr);
size_t zmalloc_used_memory(void);
void zmalloc_enable_thread_safeness(void);

#ifndef RB_R3_VERSION
#define RB_R3_VERSION "1.3"
#endif

#define R3PEER_STACK_PATH     1024u /* paths shorter than this are copied on the stack */
#define R3PEER_NODE_BUF       192u  /* r3_tree_compile_patterns: zcalloc(192) */
#define R3PEER_SLUG_BUF       200u  /* r3_slug_compile: zcalloc(200) */
#define R3PEER_MAX_TOKENS     64u   /* > RB_MAX_CAPTURES: r3 appends one per slug edge */
#define R3PEER_PARAM          "{p}"
#define R3PEER_PARAM_EXPLICIT "{p:[^/]+}"
#define R3PEER_CATCHALL       "{p:(?s:.+)}"

/* r3 method bits, indexed by rb_method; RB_ANY is 0 (r3: any method). */
static const int method_bits[RB_METHOD_COUNT + 1] = {
    METHOD_GET,     METHOD_HEAD, METHOD_POST, METHOD_PUT,
    METHOD_DELETE,  2 << 7, /* CONNECT: no r3 name */
    METHOD_OPTIONS, 2 << 8, /* TRACE: no r3 name */
    METHOD_PATCH,   0,
};

/* What the adapter keeps of a route for good. */
typedef struct r3peer_route {
    int method;
    uint32_t id;
    uint32_t ncaptures;
    struct r3peer_cap {
        uint16_t seg; /* path segment of the capture */
        uint32_t gap; /* literal bytes before it in the segment (templates) */
    } * capseg;       /* each capture, for their spans */
    char *r3text;     /* translated pattern, NUL-terminated; r3 points at it */
    size_t r3len;
    route *r3route; /* r3's route (r3_tree_free leaves it to us) */
} r3peer_route;

/* What it keeps only until build succeeds (for translation and order). */
typedef struct r3peer_source {
    char *text;         /* owned copy of our pattern */
    rb_pattern pattern; /* parsed from text */
} r3peer_source;

typedef struct r3peer_router {
    const rb_allocator *allocator;
    r3peer_route *routes;
    r3peer_source *sources; /* parallel to routes; NULL after build */
    size_t count, cap, sources_cap;
    node *tree;        /* NULL until build */
    size_t own_bytes;  /* adapter allocations */
    size_t r3_bytes;   /* r3's zmalloc growth across build */
    size_t pcre_bytes; /* compiled regexes */
    size_t nodes, regex_nodes;
    char describe[200];
} r3peer_router;

/* ---- add: record, after checking r3 can express the pattern ------------- */

/* Is byte c refused in static text (see "Translation")? */
static bool static_byte_refused(unsigned char c)
{
    if (c < 0x20 || c > 0x7e) return true;
    return strchr("{}()[]\\|+*?^$", c) != NULL;
}

static int r3peer_create(const rb_config *config, void **out, rb_error *err)
{
    r3peer_router *r = rb_calloc(config->allocator, sizeof *r);
    if (!r) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory creating r3");
    r->allocator = config->allocator;
    r->own_bytes = sizeof *r;
    zmalloc_enable_thread_safeness(); /* see "Thread safety" */
    *out = r;
    return RB_OK;
}

static int r3peer_add(void *impl, const rb_route *route, rb_error *err)
{
    r3peer_router *r = impl;
    const rb_pattern *p = route->pattern;
    for (uint32_t i = 0; i < p->nsegs; i++) {
        const rb_segment *s = &p->segs[i];
        if (s->kind != RB_SEG_STATIC && s->kind != RB_SEG_TEMPLATE) continue;
        for (uint32_t k = 0, in_name = 0; k < s->text_len; k++) {
            unsigned char c = (unsigned char)s->text[k];
            if (s->kind == RB_SEG_TEMPLATE && (c == '{' || c == '}' || in_name)) {
                in_name = c != '}'; /* a param's name is ours, not pasted */
                continue;
            }
            if (!static_byte_refused(c)) continue;
            size_t at = s->offset + k;
            if (c >= 0x20 && c < 0x7f)
                return rb__error(err, RB_EUNSUPPORTED, at,
                                 "'%c' at byte %zu: r3 cannot match it literally (it pastes "
                                 "static text into its regexes unescaped)",
                                 c, at);
            return rb__error(err, RB_EUNSUPPORTED, at,
                             "byte 0x%02x at byte %zu: refused for r3 (printable ASCII only in "
                             "static text; docs/peers.md says why)",
                             c, at);
        }
    }
    for (uint32_t i = 0; i + 1 < p->nsegs; i++)
        if (p->segs[i].kind == RB_SEG_TEMPLATE)
            return rb__error(err, RB_EUNSUPPORTED, p->segs[i].offset,
                             "template at byte %u: r3 takes a template only as the last segment "
                             "(r3 1.3 loses routes below a slug edge beside another; "
                             "docs/peers.md)",
                             p->segs[i].offset);
    size_t old_cap = r->cap, old_sources_cap = r->sources_cap;
    int grown = rb_grow(r->allocator, &r->routes, &r->cap, r->count + 1, sizeof *r->routes, 16);
    if (grown == RB_OK)
        grown = rb_grow(r->allocator, &r->sources, &r->sources_cap, r->count + 1,
                        sizeof *r->sources, 16);
    r->own_bytes += (r->cap - old_cap) * sizeof *r->routes +
                    (r->sources_cap - old_sources_cap) * sizeof *r->sources;
    if (grown < 0) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in r3");
    r3peer_route *rr = &r->routes[r->count];
    r3peer_source *src = &r->sources[r->count];
    memset(rr, 0, sizeof *rr);
    memset(src, 0, sizeof *src);
    if (p->ncaptures) {
        rr->capseg = rb_alloc(r->allocator, p->ncaptures * sizeof *rr->capseg);
        if (!rr->capseg) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in r3");
    }
    src->text = rb_alloc(r->allocator, p->len);
    int rc = src->text ? rb_pattern_parse(memcpy(src->text, p->text, p->len), p->len, r->allocator,
                                          &src->pattern, err)
                       : rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in r3");
    if (rc < 0) {
        rb_free(r->allocator, src->text, p->len);
        rb_free(r->allocator, rr->capseg, p->ncaptures * sizeof *rr->capseg);
        return rc;
    }
    for (uint32_t i = 0, k = 0; i < p->nsegs; i++) {
        const rb_segment *s = &p->segs[i];
        if (s->kind != RB_SEG_TEMPLATE) {
            if (s->captures) rr->capseg[k++] = (struct r3peer_cap){(uint16_t)i, 0};
            continue;
        }
        uint32_t gap = 0;
        for (uint32_t b = 0; b < s->len; b++) {
            if (s->text[b] != '{') {
                gap++;
                continue;
            }
            while (s->text[b] != '}') b++;
            rr->capseg[k++] = (struct r3peer_cap){(uint16_t)i, gap};
            gap = 0;
        }
    }
    rr->method = route->method;
    rr->id = route->id;
    rr->ncaptures = p->ncaptures;
    r->own_bytes += p->len + rb_pattern_bytes(&src->pattern) + p->ncaptures * sizeof *rr->capseg;
    r->count++;
    return RB_OK;
}

/* Free the sources (after a successful build, and at destroy). */
static void free_sources(r3peer_router *r)
{
    if (!r->sources) return;
    for (size_t i = 0; i < r->count; i++) {
        r3peer_source *src = &r->sources[i];
        r->own_bytes -= src->pattern.len + rb_pattern_bytes(&src->pattern);
        rb_free(r->allocator, src->text, src->pattern.len);
        rb_pattern_free(&src->pattern);
    }
    rb_free(r->allocator, r->sources, r->sources_cap * sizeof *r->sources);
    r->own_bytes -= r->sources_cap * sizeof *r->sources;
    r->sources = NULL;
    r->sources_cap = 0;
}

/* ---- build: translate, sort, insert, check r3's buffers, compile -------- */

/* Append s[0, n) to out at *w (out may be NULL: count only), with every
 * byte that is not a letter or digit escaped for PCRE when `escape`. */
static void put_text(char *out, size_t *w, const char *s, size_t n, bool escape)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        bool plain =
            !escape || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!plain) {
            if (out) out[*w] = '\\';
            (*w)++;
        }
        if (out) out[*w] = (char)c;
        (*w)++;
    }
}

/* Write the r3 form of template t[0, n) (see "Translation") to out at *w
 * (out may be NULL: count only). */
static void put_template(char *out, size_t *w, const char *t, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t open = i;
        while (open < n && t[open] != '{') open++;
        put_text(out, w, t + i, open - i, false); /* a literal piece, pasted */
        if (open == n) return;
        size_t close = open;
        while (t[close] != '}') close++;
        /* the rest of the template after this param, as a look-ahead */
        size_t rest = close + 1;
        if (rest == n) {
            put_text(out, w, "{t:[^/]+}", 9, false);
            return;
        }
        put_text(out, w, "{t:[^/]+?(?=", 12, false);
        for (size_t j = rest; j < n;) {
            size_t o = j;
            while (o < n && t[o] != '{') o++;
            put_text(out, w, t + j, o - j, true);
            if (o == n) break;
            put_text(out, w, "[^/]+?", 6, false);
            while (t[o] != '}') o++;
            j = o + 1;
        }
        put_text(out, w, "(?:/|$))}", 9, false);
        i = rest;
    }
}

/* Write route rr's r3 pattern (allocated, NUL-terminated). */
static int translate(r3peer_router *r, size_t i_route, bool explicit_param, rb_error *err)
{
    r3peer_route *rr = &r->routes[i_route];
    const rb_pattern *p = &r->sources[i_route].pattern;
    const char *param = explicit_param ? R3PEER_PARAM_EXPLICIT : R3PEER_PARAM;
    size_t n = 0;
    for (uint32_t i = 0; i < p->nsegs; i++) {
        const rb_segment *s = &p->segs[i];
        size_t tn = 0;
        if (s->kind == RB_SEG_TEMPLATE) put_template(NULL, &tn, s->text, s->text_len);
        n += 1 + (s->kind == RB_SEG_STATIC     ? s->text_len
                  : s->kind == RB_SEG_PARAM    ? strlen(param)
                  : s->kind == RB_SEG_TEMPLATE ? tn
                                               : strlen(R3PEER_CATCHALL));
    }
    char *t = rb_alloc(r->allocator, n + 1);
    if (!t) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in r3");
    size_t w = 0;
    for (uint32_t i = 0; i < p->nsegs; i++) {
        const rb_segment *s = &p->segs[i];
        t[w++] = '/';
        if (s->kind == RB_SEG_TEMPLATE) {
            put_template(t, &w, s->text, s->text_len);
            continue;
        }
        const char *src = s->kind == RB_SEG_STATIC  ? s->text
                          : s->kind == RB_SEG_PARAM ? param
                                                    : R3PEER_CATCHALL;
        size_t len = s->kind == RB_SEG_STATIC ? s->text_len : strlen(src);
        memcpy(t + w, src, len);
        w += len;
    }
    t[w] = '\0';
    rr->r3text = t;
    rr->r3len = w;
    r->own_bytes += n + 1;
    return RB_OK;
}

/* Insertion order: our priority key with "*" before a specific method of
 * the same shape (r3 tries a node's routes newest first), and a template
 * after a param at one position (see "Translation": the {p} edges must
 * merge before a template edge joins them). */
typedef struct order_item {
    rb_priority key; /* any_method holds "is a specific method" */
    const rb_pattern *pattern;
    size_t index;
} order_item;

static int insertion_cmp(const void *pa, const void *pb)
{
    const order_item *a = pa, *b = pb;
    uint32_t n = a->pattern->nsegs < b->pattern->nsegs ? a->pattern->nsegs : b->pattern->nsegs;
    for (uint32_t i = 0; i < n; i++) {
        unsigned ka = a->pattern->segs[i].kind, kb = b->pattern->segs[i].kind;
        if (ka != kb && ka + kb == RB_SEG_PARAM + RB_SEG_TEMPLATE)
            return ka == RB_SEG_PARAM ? -1 : 1;
        if (rb_seg_rank(ka) != rb_seg_rank(kb)) break; /* the key decides */
    }
    return rb_priority_compare(&a->key, &b->key);
}

/* Length of the regex r3_slug_compile makes of a slug edge (without NUL):
 * "^" + text before the slug + "(" regex ")" (or "([^/]+)") + the rest. */
static size_t slug_regex_len(const char *pat, size_t len)
{
    const char *open = memchr(pat, '{', len);
    const char *close = open ? memchr(open, '}', len - (size_t)(open - pat)) : NULL;
    if (!open || !close) return len + 1;
    size_t before = (size_t)(open - pat), after = len - (size_t)(close + 1 - pat);
    const char *colon = memchr(open, ':', (size_t)(close - open));
    size_t body = colon ? 2 + (size_t)(close - colon - 1) : 7;
    return 1 + before + body + after;
}

/* Length of the regex r3_tree_compile_patterns makes of node n (without
 * NUL), or 0 when n has no slug edge (no regex).  *slug_max gets the
 * longest slug regex of its edges. */
static size_t node_regex_len(const node *n, size_t *slug_max)
{
    size_t total = 0;
    bool slug = false;
    *slug_max = 0;
    for (unsigned i = 0; i < n->edge_len; i++) {
        const edge *e = n->edges[i];
        if (memchr(e->pattern, '{', e->pattern_len)) {
            size_t s = slug_regex_len(e->pattern, e->pattern_len);
            if (s > *slug_max) *slug_max = s;
            total += s;
            slug = true;
        } else {
            total += 3 + e->pattern_len; /* "^(" text ")" */
        }
        if (i + 1 < n->edge_len) total++; /* "|" */
    }
    return slug ? total : 0;
}

typedef struct walk_state {
    char prefix[128]; /* the pattern text leading to the node, for messages */
    size_t plen;
    size_t nodes, regex_nodes;
    size_t worst, worst_slug; /* longest regexes, without NUL */
    char worst_prefix[128];
} walk_state;

/* Before compiling: set every node's compare_type (r3_tree_create leaves it
 * uninitialised; r3_tree_compile only sets it on regex nodes), count nodes,
 * and find the node whose regex would need the most bytes. */
/* 0 a static edge, 1 a template's ({t:...}), 2 another slug's. */
static int edge_class(const edge *e)
{
    if (!memchr(e->pattern, '{', e->pattern_len)) return 0;
    for (unsigned i = 0; i + 2 < e->pattern_len; i++)
        if (e->pattern[i] == '{' && e->pattern[i + 1] == 't' && e->pattern[i + 2] == ':') return 1;
    return 2;
}

static void walk_before_compile(node *n, walk_state *w)
{
    n->compare_type = NODE_COMPARE_STR;
    /* static edges, then template slugs, then the others; stable (an
     * insertion sort: nodes have few edges) */
    for (unsigned i = 1; i < n->edge_len; i++) {
        edge *e = n->edges[i];
        unsigned j = i;
        for (; j > 0 && edge_class(n->edges[j - 1]) > edge_class(e); j--)
            n->edges[j] = n->edges[j - 1];
        n->edges[j] = e;
    }
    w->nodes++;
    size_t slug_max;
    size_t len = node_regex_len(n, &slug_max);
    if (len) w->regex_nodes++;
    if (len > w->worst || slug_max > w->worst_slug) {
        if (len > w->worst) w->worst = len;
        if (slug_max > w->worst_slug) w->worst_slug = slug_max;
        memcpy(w->worst_prefix, w->prefix, w->plen);
        w->worst_prefix[w->plen] = '\0';
    }
    for (unsigned i = 0; i < n->edge_len; i++) {
        const edge *e = n->edges[i];
        size_t keep = w->plen;
        size_t add = e->pattern_len;
        if (add > sizeof w->prefix - 1 - w->plen) add = sizeof w->prefix - 1 - w->plen;
        memcpy(w->prefix + w->plen, e->pattern, add);
        w->plen += add;
        if (e->child) walk_before_compile(e->child, w);
        w->plen = keep;
    }
}

/* Bytes of the compiled regexes (PCRE allocates them with malloc, outside
 * r3's counter). */
static size_t pcre_bytes(const node *n)
{
    size_t total = 0;
    if (n->pcre_pattern) {
        size_t size = 0, study = 0;
        if (pcre_fullinfo(n->pcre_pattern, NULL, PCRE_INFO_SIZE, &size) == 0) total += size;
        if (n->pcre_extra &&
            pcre_fullinfo(n->pcre_pattern, n->pcre_extra, PCRE_INFO_STUDYSIZE, &study) == 0)
            total += study;
    }
    for (unsigned i = 0; i < n->edge_len; i++)
        if (n->edges[i]->child) total += pcre_bytes(n->edges[i]->child);
    return total;
}

static void free_tree(r3peer_router *r)
{
    if (r->tree) r3_tree_free(r->tree);
    r->tree = NULL;
    for (size_t i = 0; i < r->count; i++) {
        r3peer_route *rr = &r->routes[i];
        if (rr->r3route) r3_route_free(rr->r3route); /* r3_tree_free does not */
        rr->r3route = NULL;
        if (rr->r3text) {
            rb_free(r->allocator, rr->r3text, rr->r3len + 1);
            r->own_bytes -= rr->r3len + 1;
        }
        rr->r3text = NULL;
    }
}

static int r3peer_build(void *impl, rb_error *err)
{
    r3peer_router *r = impl;
    bool explicit_param = false;
    for (size_t i = 0; i < r->count && !explicit_param; i++) {
        const rb_pattern *p = &r->sources[i].pattern;
        for (uint32_t k = 0; k < p->nsegs; k++)
            if ((p->segs[k].kind == RB_SEG_STATIC || p->segs[k].kind == RB_SEG_TEMPLATE) &&
                memchr(p->segs[k].text, ':', p->segs[k].text_len))
                explicit_param = true;
    }
    size_t order_bytes = r->count * sizeof(order_item);
    order_item *order = rb_alloc(r->allocator, order_bytes);
    if (!order) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in r3");
    int rc = RB_OK;
    for (size_t i = 0; i < r->count && rc == RB_OK; i++) {
        const rb_pattern *p = &r->sources[i].pattern;
        order[i] = (order_item){
            {p->ranks, p->nsegs, r->routes[i].method != RB_ANY, p->literal_bytes, r->routes[i].id},
            p,
            i};
        rc = translate(r, i, explicit_param, err);
    }
    if (rc == RB_OK) qsort(order, r->count, sizeof *order, insertion_cmp);

    size_t before = zmalloc_used_memory();
    if (rc == RB_OK) {
        r->tree = r3_tree_create(10);
        if (!r->tree) rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "r3_tree_create failed");
    }
    /* Each r3 text is inserted once, its other routes (other methods)
     * appended to the node that insert returned: r3 1.3 loses a route
     * whose path it walks again through a slug edge that is not the first
     * of its node (a template beside a param).  ends: text -> node. */
    size_t ncap = 16;
    while (ncap < 2 * r->count) ncap *= 2;
    struct {
        const r3peer_route *rr;
        node *end;
    } *ends = rc == RB_OK ? rb_calloc(r->allocator, ncap * sizeof *ends) : NULL;
    if (rc == RB_OK && !ends) rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in r3");
    for (size_t i = 0; i < r->count && rc == RB_OK; i++) {
        r3peer_route *rr = &r->routes[order[i].index];
        uint64_t h = 1469598103934665603ull; /* FNV-1a */
        for (size_t k = 0; k < rr->r3len; k++)
            h = (h ^ (unsigned char)rr->r3text[k]) * 1099511628211ull;
        size_t slot = (size_t)h & (ncap - 1);
        while (ends[slot].rr && (ends[slot].rr->r3len != rr->r3len ||
                                 memcmp(ends[slot].rr->r3text, rr->r3text, rr->r3len) != 0))
            slot = (slot + 1) & (ncap - 1);
        route *rt = r3_route_createl(rr->r3text, (int)rr->r3len);
        if (!rt) {
            rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in r3");
            break;
        }
        rt->request_method = method_bits[rr->method];
        rt->data = rr;
        rr->r3route = rt;
        if (ends[slot].rr) {
            r3_node_append_route(ends[slot].end, rt);
            continue;
        }
        char *errstr = NULL;
        node *end = r3_tree_insert_pathl_ex(r->tree, rr->r3text, (int)rr->r3len, rt, rr, &errstr);
        if (!end)
            rc = rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "r3 refused to insert %s %s: %s",
                           rb_method_name(rr->method), rr->r3text,
                           errstr ? errstr : "no reason given");
        free(errstr); /* r3 formats it with asprintf */
        ends[slot].rr = rr;
        ends[slot].end = end;
    }
    if (ends) rb_free(r->allocator, ends, ncap * sizeof *ends);
    walk_state w = {0};
    if (rc == RB_OK) {
        walk_before_compile(r->tree, &w);
        if (w.worst + 1 > R3PEER_NODE_BUF || w.worst_slug + 1 > R3PEER_SLUG_BUF)
            rc = rb__error(err, RB_ELIMIT, RB_NO_OFFSET,
                           "r3 cannot hold this route table: the node after '%s' compiles to "
                           "a %zu-byte regex (longest slug part %zu bytes) and r3 writes it, "
                           "with its NUL, into a fixed %u-byte buffer (%u for a slug part), "
                           "overflowing its heap",
                           w.worst_prefix, w.worst, w.worst_slug, R3PEER_NODE_BUF, R3PEER_SLUG_BUF);
    }
    if (rc == RB_OK) {
        char *errstr = NULL;
        if (r3_tree_compile(r->tree, &errstr) != 0)
            rc = rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "r3_tree_compile failed: %s",
                           errstr ? errstr : "no reason given");
        free(errstr);
    }
    rb_free(r->allocator, order, order_bytes);
    if (rc < 0) {
        free_tree(r);
        return rc;
    }
    size_t after = zmalloc_used_memory();
    r->r3_bytes = after > before ? after - before : 0;
    r->pcre_bytes = pcre_bytes(r->tree);
    r->nodes = w.nodes;
    r->regex_nodes = w.regex_nodes;
    free_sources(r); /* r3 and the records hold all lookup needs */
    snprintf(r->describe, sizeof r->describe,
             "r3 %s: %zu nodes, %zu compiled to PCRE regexes; params as %s; bytes: %zu r3, %zu "
             "PCRE, %zu adapter",
             RB_R3_VERSION, r->nodes, r->regex_nodes,
             explicit_param ? R3PEER_PARAM_EXPLICIT : R3PEER_PARAM, r->r3_bytes, r->pcre_bytes,
             r->own_bytes);
    return RB_OK;
}

/* ---- lookup ------------------------------------------------------------- */

/* Place r3's capture copies at the path segments route rr's pattern puts
 * them (capseg: a template's captures after their literal gaps, each after
 * the one before), checking that the copy equals the bytes there. */
static void place_captures(const r3peer_route *rr, const char *path, size_t len,
                           const str_array *vars, rb_match *m)
{
    uint32_t n = (uint32_t)vars->len;
    m->nparams = n < RB_MAX_CAPTURES ? n : RB_MAX_CAPTURES;
    size_t seg = 0, seg_start = 1; /* path segment seg starts at seg_start */
    size_t at = 0;                 /* where the previous capture of this segment ended */
    bool lost = false;             /* it was not found */
    for (uint32_t k = 0; k < m->nparams; k++) {
        bool same = k > 0 && k < rr->ncaptures && rr->capseg[k].seg == rr->capseg[k - 1].seg;
        while (k < rr->ncaptures && seg < rr->capseg[k].seg && seg_start <= len) {
            const char *slash = memchr(path + seg_start, '/', len - seg_start);
            seg_start = slash ? (size_t)(slash - path) + 1 : len + 1;
            seg++;
        }
        if (!same) {
            at = seg_start;
            lost = false;
        }
        const char *tok = vars->tokens[k];
        size_t tl = strlen(tok); /* r3's copies are C strings */
        size_t off = k < rr->ncaptures ? at + rr->capseg[k].gap : SIZE_MAX;
        bool here = !lost && k < rr->ncaptures && seg == rr->capseg[k].seg && off <= len &&
                    tl <= len - off && memcmp(path + off, tok, tl) == 0;
        m->params[k].offset = here ? (uint32_t)off : UINT32_MAX;
        m->params[k].len = (uint32_t)tl;
        lost = !here;
        at = here ? off + tl : at;
    }
}

static int r3peer_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    const r3peer_router *r = impl;
    m->outcome = RB_NOT_FOUND;
    m->nparams = 0;
    m->allowed = 0;
    if (!r->tree || len >= INT_MAX) return m->outcome; /* r3 takes an int length */

    char stack_copy[R3PEER_STACK_PATH];
    char *copy = len < sizeof stack_copy ? stack_copy : rb_alloc(r->allocator, len + 1);
    if (!copy) return m->outcome;
    memcpy(copy, path, len);
    copy[len] = '\0';

    char *tokens[R3PEER_MAX_TOKENS];
    str_array vars = {tokens, 0, (int)R3PEER_MAX_TOKENS};
    match_entry e;
    memset(&e, 0, sizeof e);
    e.vars = &vars;
    e.path = copy;
    e.path_len = (int)len;
    e.request_method = method_bits[method];

    node *n = r3_tree_matchl(r->tree, copy, (int)len, &e);
    const route *hit = NULL;
    uint32_t allowed = 0;
    if (n && n->routes) {
        for (unsigned i = n->route_len; i-- > 0;) {
            if (r3_route_cmp(n->routes[i], &e) == 0) {
                hit = n->routes[i];
                break;
            }
            allowed |= RB_METHOD_BIT(((const r3peer_route *)n->routes[i]->data)->method);
        }
    }
    if (hit) {
        const r3peer_route *rr = hit->data;
        m->outcome = RB_FOUND;
        m->route_id = rr->id;
        place_captures(rr, path, len, &vars, m);
    } else if (allowed) {
        m->outcome = RB_METHOD_NOT_ALLOWED;
        m->allowed = allowed;
    }
    for (int i = 0; i < vars.len; i++) zfree(vars.tokens[i]);
    if (copy != stack_copy) rb_free(r->allocator, copy, len + 1);
    return m->outcome;
}

/* ---- memory, check, destroy --------------------------------------------- */

static size_t r3peer_memory(const void *impl)
{
    const r3peer_router *r = impl;
    return r->own_bytes + r->r3_bytes + r->pcre_bytes;
}

static const char *r3peer_describe(const void *impl)
{
    return ((const r3peer_router *)impl)->describe;
}

static bool check_node(const r3peer_router *r, const node *n, size_t *seen)
{
    size_t slug_max;
    if (node_regex_len(n, &slug_max) + 1 > R3PEER_NODE_BUF || slug_max + 1 > R3PEER_SLUG_BUF)
        return false;
    for (unsigned i = 0; i < n->route_len; i++) {
        const r3peer_route *rr = n->routes[i]->data;
        if (rr < r->routes || rr >= r->routes + r->count || rr->r3route != n->routes[i])
            return false;
        (*seen)++;
    }
    for (unsigned i = 0; i < n->edge_len; i++)
        if (n->edges[i]->child && !check_node(r, n->edges[i]->child, seen)) return false;
    return true;
}

/* The invariants of the header comment; true when they hold (the check op:
 * O(nodes + routes)).  Before build there is nothing to check. */
static bool r3peer_tree_holds(const void *impl)
{
    const r3peer_router *r = impl;
    if (!r->tree) return true;
    size_t seen = 0;
    return check_node(r, r->tree, &seen) && seen == r->count;
}

static int r3peer_check(const void *impl, rb_error *err)
{
    if (r3peer_tree_holds(impl)) return RB_OK;
    return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "r3: a route is missing from the tree");
}

static void r3peer_destroy(void *impl)
{
    r3peer_router *r = impl;
    free_tree(r);
    free_sources(r);
    for (size_t i = 0; i < r->count; i++)
        rb_free(r->allocator, r->routes[i].capseg,
                r->routes[i].ncaptures * sizeof *r->routes[i].capseg);
    rb_free(r->allocator, r->routes, r->cap * sizeof *r->routes);
    rb_free(r->allocator, r, sizeof *r);
}

/* r3 leaks by design (r3_slug_compile's strings at compile, the edge
 * strings it replaces); LeakSanitizer builds are told so.  The sanitizer
 * runtime finds the hook by its dynamic symbol, so it is exported although
 * the routers are built with hidden visibility. */
#if defined(__SANITIZE_ADDRESS__)
#define R3PEER_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define R3PEER_LSAN 1
#endif
#endif
#ifdef R3PEER_LSAN
__attribute__((visibility("default"))) const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libr3.so\n";
}
#endif

const rb_router_ops rb__r3_ops = {
    .abi_version = RB_ROUTER_ABI_VERSION,
    .name = "r3",
    .summary =
        "libr3 " RB_R3_VERSION " (C; regex radix tree, no backtracking); allocates per capture, "
        "see docs/peers.md",
    .features = RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_TEMPLATE | RB_FEAT_PEER,
    .create = r3peer_create,
    .add = r3peer_add,
    .build = r3peer_build,
    .lookup = r3peer_lookup,
    .memory = r3peer_memory,
    .destroy = r3peer_destroy,
    .describe = r3peer_describe,
    .check = r3peer_check,
};
