/*
 * shape_tree.c — the tree of route shapes (see shape_tree.h).
 */
#include "shape_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

int rb_u32vec_push(rb_u32vec *v, uint32_t x)
{
    if (rb_grow(NULL, &v->v, &v->cap, v->n + 1, sizeof *v->v, 64) < 0) return RB_ENOMEM;
    v->v[v->n++] = x;
    return RB_OK;
}

void rb_u32vec_free(rb_u32vec *v)
{
    free(v->v);
    memset(v, 0, sizeof *v);
}

/* ---- the children hash ------------------------------------------------------ */

static bool has_text(int kind)
{
    return kind == RB_SEG_STATIC || kind == RB_SEG_GLOB || kind == RB_SEG_TEMPLATE;
}

static uint64_t child_hash(uint32_t parent, int kind, const char *text, size_t len)
{
    uint64_t seed = (uint64_t)parent | (uint64_t)kind << 32;
    if (kind == RB_SEG_TEMPLATE) return rb__template_shape_hash(text, len, seed);
    return XXH3_64bits_withSeed(has_text(kind) ? text : "", has_text(kind) ? len : 0, seed);
}

static bool node_is(const rb_shape_tree *st, const rb_st_node *n, uint32_t parent, int kind,
                    const char *text, size_t len)
{
    if (n->parent != parent || n->kind != kind) return false;
    if (!has_text(kind)) return true;
    if (kind == RB_SEG_TEMPLATE)
        return rb__template_same_shape(rb_st_text(st, n), n->text_len, text, len);
    return n->text_len == len && memcmp(rb_st_text(st, n), text, len) == 0;
}

/* Slot of (parent, kind, text): the node's slot or the empty one to fill. */
static size_t child_slot(const rb_shape_tree *st, uint32_t parent, int kind, const char *text,
                         size_t len)
{
    size_t mask = st->slots_cap - 1;
    for (size_t i = (size_t)child_hash(parent, kind, text, len) & mask;; i = (i + 1) & mask) {
        uint32_t v = st->slots[i];
        if (v == 0 || node_is(st, &st->nodes[v - 1], parent, kind, text, len)) return i;
    }
}

uint32_t rb_st_child(const rb_shape_tree *st, uint32_t node, int kind, const char *text, size_t len)
{
    if (!st->slots_cap) return RB_ST_NONE;
    uint32_t v = st->slots[child_slot(st, node, kind, text, len)];
    return v ? v - 1 : RB_ST_NONE;
}

static int rehash_children(rb_shape_tree *st, size_t ncap)
{
    uint32_t *slots = calloc(ncap, sizeof *slots);
    if (!slots) return RB_ENOMEM;
    free(st->slots);
    st->slots = slots;
    st->slots_cap = ncap;
    for (size_t n = 1; n < st->nnodes; n++) {
        const rb_st_node *x = &st->nodes[n];
        const char *text = rb_st_text(st, x);
        st->slots[child_slot(st, x->parent, x->kind, text, x->text_len)] = (uint32_t)n + 1;
    }
    return RB_OK;
}

/* ---- the word set ------------------------------------------------------------ */

static size_t word_slot(const rb_shape_tree *st, const char *w, size_t len)
{
    size_t mask = st->words_cap - 1;
    for (size_t i = (size_t)XXH3_64bits(w, len) & mask;; i = (i + 1) & mask) {
        uint32_t v = st->words[i];
        if (v == 0) return i;
        const rb_st_node *n = &st->nodes[v - 1];
        if (n->text_len == len && memcmp(rb_st_text(st, n), w, len) == 0) return i;
    }
}

bool rb_st_is_word(const rb_shape_tree *st, const char *w, size_t len)
{
    return st->words_cap && st->words[word_slot(st, w, len)] != 0;
}

static int build_words(rb_shape_tree *st)
{
    size_t nstatic = 0;
    for (size_t n = 1; n < st->nnodes; n++) nstatic += st->nodes[n].kind == RB_SEG_STATIC;
    size_t cap = 64;
    while (cap < 2 * nstatic + 2) cap *= 2;
    st->words = calloc(cap, sizeof *st->words);
    if (!st->words) return RB_ENOMEM;
    st->words_cap = cap;
    for (size_t n = 1; n < st->nnodes; n++) {
        const rb_st_node *x = &st->nodes[n];
        if (x->kind != RB_SEG_STATIC) continue;
        size_t i = word_slot(st, rb_st_text(st, x), x->text_len);
        if (!st->words[i]) {
            st->words[i] = (uint32_t)n + 1;
            st->nwords++;
        }
    }
    return RB_OK;
}

/* ---- insertion -------------------------------------------------------------- */

static uint32_t skeleton_step(rb_shape_tree *st, uint32_t skel, int kind)
{
    uint32_t *next = &st->skel_next[(size_t)skel * RB_ST_KINDS + (size_t)kind];
    if (*next) return *next - 1;
    uint32_t id = (uint32_t)st->nskeletons;
    if (rb_grow(NULL, &st->skel_next, &st->skel_cap, (st->nskeletons + 1) * RB_ST_KINDS,
                sizeof *st->skel_next, 64) < 0)
        return RB_ST_NONE;
    /* skel_next may have moved */
    memset(&st->skel_next[(size_t)id * RB_ST_KINDS], 0, RB_ST_KINDS * sizeof *st->skel_next);
    st->skel_next[(size_t)skel * RB_ST_KINDS + (size_t)kind] = id + 1;
    st->nskeletons++;
    return id;
}

static bool glob_is_any(const char *t, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (t[i] != '*') return false;
    return len > 0;
}

/* The child (kind, text) of parent, created if missing; RB_ST_NONE when out
 * of memory. */
static uint32_t insert_child(rb_shape_tree *st, uint32_t parent, const rb_segment *seg,
                             uint32_t text_off)
{
    const char *text = st->table->bytes + text_off;
    size_t len = has_text(seg->kind) ? seg->text_len : 0;
    if ((st->nnodes + 1) * 2 > st->slots_cap &&
        rehash_children(st, st->slots_cap ? st->slots_cap * 2 : 1024) < 0)
        return RB_ST_NONE;
    size_t slot = child_slot(st, parent, seg->kind, text, len);
    if (st->slots[slot]) return st->slots[slot] - 1;

    const rb_st_node p = st->nodes[parent];
    uint32_t skel = skeleton_step(st, p.skeleton, seg->kind);
    if (skel == RB_ST_NONE) return RB_ST_NONE;
    if (rb_grow(NULL, &st->nodes, &st->nodes_cap, st->nnodes + 1, sizeof *st->nodes, 64) < 0 ||
        rb_grow(NULL, &st->ranks, &st->ranks_cap, st->nranks + p.depth + 1, 1, 64) < 0)
        return RB_ST_NONE;
    uint32_t id = (uint32_t)st->nnodes++;
    rb_st_node *n = &st->nodes[id];
    memset(n, 0, sizeof *n);
    n->parent = parent;
    n->depth = p.depth + 1;
    n->kind = seg->kind;
    n->any_segment = seg->kind == RB_SEG_GLOB && glob_is_any(text, len);
    n->text_off = has_text(seg->kind) ? text_off : 0;
    n->text_len = (uint32_t)len;
    n->literal = p.literal + seg->literal;
    n->ranks_off = (uint32_t)st->nranks;
    memcpy(st->ranks + st->nranks, st->ranks + p.ranks_off, p.depth);
    st->ranks[st->nranks + p.depth] = rb_seg_rank(seg->kind);
    st->nranks += p.depth + 1;
    n->first_wild = n->next_wild = RB_ST_NONE;
    n->skeleton = skel;
    rb_st_node *pp = &st->nodes[parent];
    pp->nchildren++;
    if (seg->kind != RB_SEG_STATIC) {
        /* append, so iteration follows insertion order */
        uint32_t *link = &pp->first_wild;
        while (*link != RB_ST_NONE) link = &st->nodes[*link].next_wild;
        *link = id;
    }
    st->slots[slot] = id + 1;
    return id;
}

static int route_error(rb_error *err, int code, size_t line, const char *msg)
{
    if (err) {
        err->code = code;
        err->offset = RB_NO_OFFSET;
        err->line = line;
        snprintf(err->message, sizeof err->message, "line %zu: %s", line, msg);
    }
    return code;
}

static int insert_routes(rb_shape_tree *st, rb_error *err)
{
    const rb_route_table *t = st->table;
    for (size_t r = 0; r < t->count; r++) {
        const rb_route_entry *e = &t->routes[r];
        size_t line = e->line ? e->line : r + 1;
        rb_pattern p;
        rb_error perr;
        int rc = rb_pattern_parse(rb_route_pattern(t, r), e->len, NULL, &p, &perr);
        if (rc < 0) return route_error(err, rc, line, perr.message);
        uint32_t node = RB_ST_ROOT;
        for (uint32_t i = 0; i < p.nsegs && node != RB_ST_NONE; i++) {
            uint32_t off = e->off + (uint32_t)(p.segs[i].text - p.text);
            node = insert_child(st, node, &p.segs[i], off);
        }
        rb_pattern_free(&p);
        if (node == RB_ST_NONE) return route_error(err, RB_ENOMEM, line, "out of memory");
        st->route_node[r] = node;
    }
    return RB_OK;
}

/* Group routes by node (counting sort, route order kept) and mark
 * (method, shape) duplicates. */
static int list_routes(rb_shape_tree *st)
{
    size_t nroutes = st->table->count;
    for (size_t r = 0; r < nroutes; r++) st->nodes[st->route_node[r]].routes_count++;
    uint32_t sum = 0;
    for (size_t n = 0; n < st->nnodes; n++) {
        st->nodes[n].routes_begin = sum;
        sum += st->nodes[n].routes_count;
        st->nodes[n].routes_count = 0;
    }
    for (size_t r = 0; r < nroutes; r++) {
        rb_st_node *n = &st->nodes[st->route_node[r]];
        st->route_list[n->routes_begin + n->routes_count++] = (uint32_t)r;
    }
    /* Remove duplicates from each list: the first route of a (method, node)
     * stays. */
    for (size_t n = 0; n < st->nnodes; n++) {
        rb_st_node *x = &st->nodes[n];
        uint32_t first[RB_METHOD_COUNT + 1];
        for (int m = 0; m <= RB_METHOD_COUNT; m++) first[m] = RB_ST_NONE;
        uint32_t kept = 0;
        for (uint32_t k = 0; k < x->routes_count; k++) {
            uint32_t r = st->route_list[x->routes_begin + k];
            int m = st->table->routes[r].method;
            if (first[m] != RB_ST_NONE) {
                st->dup_of[r] = first[m];
                st->nduplicates++;
                continue;
            }
            first[m] = r;
            st->dup_of[r] = RB_ST_NONE;
            st->route_list[x->routes_begin + kept++] = r;
        }
        x->routes_count = kept;
    }
    return RB_OK;
}

int rb_shape_tree_build(const rb_route_table *t, rb_shape_tree *out, rb_error *err)
{
    memset(out, 0, sizeof *out);
    out->table = t;
    size_t n = t->count ? t->count : 1;
    out->route_node = malloc(n * sizeof *out->route_node);
    out->dup_of = malloc(n * sizeof *out->dup_of);
    out->route_list = malloc(n * sizeof *out->route_list);
    int rc = RB_OK;
    if (!out->route_node || !out->dup_of || !out->route_list ||
        rb_grow(NULL, &out->nodes, &out->nodes_cap, 1, sizeof *out->nodes, 64) < 0 ||
        rb_grow(NULL, &out->skel_next, &out->skel_cap, RB_ST_KINDS, sizeof *out->skel_next, 64) <
            0 ||
        rehash_children(out, 1024) < 0)
        rc = route_error(err, RB_ENOMEM, 0, "out of memory building the shape tree");
    if (rc == RB_OK) {
        memset(&out->nodes[0], 0, sizeof out->nodes[0]);
        out->nodes[0].parent = RB_ST_NONE;
        out->nodes[0].first_wild = out->nodes[0].next_wild = RB_ST_NONE;
        out->nnodes = 1;
        memset(out->skel_next, 0, RB_ST_KINDS * sizeof *out->skel_next);
        out->nskeletons = 1;
        rc = insert_routes(out, err);
    }
    if (rc == RB_OK) rc = list_routes(out);
    if (rc == RB_OK && build_words(out) < 0)
        rc = route_error(err, RB_ENOMEM, 0, "out of memory building the shape tree");
    if (rc < 0) rb_shape_tree_free(out);
    return rc;
}

void rb_shape_tree_free(rb_shape_tree *st)
{
    free(st->nodes);
    free(st->slots);
    free(st->ranks);
    free(st->skel_next);
    free(st->words);
    free(st->route_node);
    free(st->dup_of);
    free(st->route_list);
    memset(st, 0, sizeof *st);
}

rb_priority rb_st_priority(const rb_shape_tree *st, uint32_t r)
{
    const rb_st_node *n = &st->nodes[st->route_node[r]];
    return (rb_priority){st->ranks + n->ranks_off, n->depth, st->table->routes[r].method == RB_ANY,
                         n->literal, r};
}

/* ---- candidates ------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static size_t sort_unique(uint32_t *v, size_t n)
{
    if (n < 2) return n;
    qsort(v, n, sizeof *v, cmp_u32);
    size_t k = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[k - 1]) v[k++] = v[i];
    return k;
}

/* Add n's '**' children (and theirs) to set; they may take zero segments. */
static int close_globstars(const rb_shape_tree *st, rb_u32vec *set, size_t from)
{
    for (size_t i = from; i < set->n; i++) {
        for (uint32_t c = st->nodes[set->v[i]].first_wild; c != RB_ST_NONE;
             c = st->nodes[c].next_wild)
            if (st->nodes[c].kind == RB_SEG_GLOBSTAR && rb_u32vec_push(set, c) < 0)
                return RB_ENOMEM;
    }
    return RB_OK;
}

static int add_routes(const rb_shape_tree *st, uint32_t node, rb_u32vec *out)
{
    const rb_st_node *n = &st->nodes[node];
    for (uint32_t k = 0; k < n->routes_count; k++)
        if (rb_u32vec_push(out, st->route_list[n->routes_begin + k]) < 0) return RB_ENOMEM;
    return RB_OK;
}

int rb_st_candidates(const rb_shape_tree *st, const char *path, size_t len, rb_u32vec *out,
                     rb_u32vec *scratch)
{
    size_t steps;
    return rb_st_candidates_counted(st, path, len, out, scratch, &steps);
}

int rb_st_candidates_counted(const rb_shape_tree *st, const char *path, size_t len, rb_u32vec *out,
                             rb_u32vec *scratch, size_t *steps)
{
    *steps = 0;
    out->n = 0;
    scratch->n = 0;
    if (len == 0 || path[0] != '/') return RB_OK;
    if (rb_u32vec_push(scratch, RB_ST_ROOT) < 0 || close_globstars(st, scratch, 0) < 0)
        return RB_ENOMEM;
    size_t pos = 1;
    for (;;) {
        const char *slash = memchr(path + pos, '/', len - pos);
        size_t end = slash ? (size_t)(slash - path) : len;
        /* step every state over segment path[pos, end); new states are
         * appended after the current ones, which are then dropped */
        size_t ncur = scratch->n;
        *steps += ncur;
        for (size_t i = 0; i < ncur; i++) {
            uint32_t node = scratch->v[i];
            const rb_st_node *n = &st->nodes[node];
            if (n->kind == RB_SEG_GLOBSTAR && node != RB_ST_ROOT &&
                rb_u32vec_push(scratch, node) < 0)
                return RB_ENOMEM;
            uint32_t c = rb_st_child(st, node, RB_SEG_STATIC, path + pos, end - pos);
            if (c != RB_ST_NONE && rb_u32vec_push(scratch, c) < 0) return RB_ENOMEM;
            for (c = n->first_wild; c != RB_ST_NONE; c = st->nodes[c].next_wild) {
                int kind = st->nodes[c].kind;
                if (kind == RB_SEG_CATCHALL) {
                    if (add_routes(st, c, out) < 0) return RB_ENOMEM;
                } else if (kind != RB_SEG_GLOBSTAR) {
                    if (rb_u32vec_push(scratch, c) < 0) return RB_ENOMEM;
                }
            }
        }
        memmove(scratch->v, scratch->v + ncur, (scratch->n - ncur) * sizeof *scratch->v);
        scratch->n -= ncur;
        if (close_globstars(st, scratch, 0) < 0) return RB_ENOMEM;
        scratch->n = sort_unique(scratch->v, scratch->n);
        if (scratch->n == 0 || !slash) break;
        pos = end + 1;
    }
    for (size_t i = 0; i < scratch->n; i++)
        if (add_routes(st, scratch->v[i], out) < 0) return RB_ENOMEM;
    out->n = sort_unique(out->v, out->n);
    return RB_OK;
}

/* Append template t's shape to buf[*w..cap - 1), truncating. */
static void put_template(const char *t, size_t len, char *buf, size_t cap, size_t *w)
{
    for (size_t i = 0; i < len; i++) {
        if (cap && *w + 1 < cap) buf[*w] = t[i];
        if (cap && *w + 1 < cap) (*w)++;
        if (t[i] == '{')
            while (t[i + 1] != '}') i++;
    }
}

size_t rb_st_shape(const rb_shape_tree *st, uint32_t n, char *buf, size_t cap)
{
    /* collect the chain, root excluded */
    uint32_t chain[256];
    size_t depth = 0, total = 0;
    for (uint32_t x = n; x != RB_ST_ROOT && x != RB_ST_NONE; x = st->nodes[x].parent) {
        if (depth < sizeof chain / sizeof chain[0]) chain[depth++] = x;
        const rb_st_node *s = &st->nodes[x];
        total += 1 + (s->kind == RB_SEG_PARAM      ? 2u
                      : s->kind == RB_SEG_CATCHALL ? 3u
                      : s->kind == RB_SEG_GLOBSTAR ? 2u
                      : s->kind == RB_SEG_TEMPLATE
                          ? rb__template_shape_len(rb_st_text(st, s), s->text_len)
                          : s->text_len);
    }
    size_t w = 0;
#define PUT(p, len)                                                                                \
    do {                                                                                           \
        size_t l_ = (len);                                                                         \
        if (cap && w + l_ >= cap) l_ = cap - 1 > w ? cap - 1 - w : 0;                              \
        if (l_) memcpy(buf + w, (p), l_);                                                          \
        w += l_;                                                                                   \
    } while (0)
    if (depth == 0) PUT("/", 1);
    for (size_t i = depth; i-- > 0;) {
        const rb_st_node *s = &st->nodes[chain[i]];
        PUT("/", 1);
        if (s->kind == RB_SEG_PARAM)
            PUT("{}", 2);
        else if (s->kind == RB_SEG_CATCHALL)
            PUT("{*}", 3);
        else if (s->kind == RB_SEG_GLOBSTAR)
            PUT("**", 2);
        else if (s->kind == RB_SEG_TEMPLATE)
            put_template(rb_st_text(st, s), s->text_len, buf, cap, &w);
        else
            PUT(rb_st_text(st, s), s->text_len);
    }
#undef PUT
    if (cap) buf[w < cap ? w : cap - 1] = '\0';
    return depth == 0 ? 1 : total;
}

uint64_t *rb_st_subtree_routes(const rb_shape_tree *st)
{
    uint64_t *sub = calloc(st->nnodes ? st->nnodes : 1, sizeof *sub);
    if (!sub) return NULL;
    for (size_t n = st->nnodes; n-- > 0;) {
        sub[n] += st->nodes[n].routes_count;
        if (n != RB_ST_ROOT) sub[st->nodes[n].parent] += sub[n];
    }
    return sub;
}

uint32_t rb_st_shared_prefix(const rb_shape_tree *st, uint64_t *below)
{
    uint64_t *sub = rb_st_subtree_routes(st);
    uint32_t at = RB_ST_ROOT;
    if (!sub) {
        if (below) *below = 0;
        return at;
    }
    uint64_t total = sub[RB_ST_ROOT];
    for (;;) {
        /* the static child holding the most routes, and whether it has a
         * static child itself (resources to grow beside) */
        uint32_t best = RB_ST_NONE;
        for (size_t n = 1; n < st->nnodes; n++) {
            const rb_st_node *x = &st->nodes[n];
            if (x->parent == at && x->kind == RB_SEG_STATIC && x->text_len > 0 &&
                (best == RB_ST_NONE || sub[n] > sub[best]))
                best = (uint32_t)n;
        }
        if (best == RB_ST_NONE || sub[best] * 10 < total * 9) break;
        bool grows = false;
        for (size_t n = best + 1; n < st->nnodes && !grows; n++)
            grows = st->nodes[n].parent == best && st->nodes[n].kind == RB_SEG_STATIC;
        if (!grows) break;
        at = best;
    }
    if (below) *below = sub[at] - st->nodes[at].routes_count;
    free(sub);
    return at;
}
