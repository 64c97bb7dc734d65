/*
 * check.c — duplicates, shadowed routes and diversity of a route table
 * (see check.h for what is reported and the exact shadowing rule).
 *
 * The shadow search, for route R with tokens t[0..n):
 *
 *   R states   a bit set: bit i = "i tokens consumed"; bit n+1 = inside a
 *              catch-all that has taken one empty segment (needs more);
 *              bit n+2 = inside a catch-all that has taken 1+ bytes.
 *   T states   a sorted set of (shape tree node << 2 | sub): sub 0 = the
 *              node's segment was taken; for a catch-all node sub 1/2 as
 *              the two catch-all bits above.  A '**' node stays on any
 *              segment, and reaching a node also reaches its '**'
 *              children (zero segments).
 *   symbols    R's static words at its current positions, OTHER, and the
 *              empty segment.
 *
 * Templates are handled as globs other than '*': in T they are matched
 * against R's words and left out for OTHER (a witness found that way is
 * believed only if linear agrees), and a route R with a template is
 * decided by sampling its paths ("possibly shadowed" when none wins).
 *
 * Depth-first from (R start, T start); each new (R, T) pair is remembered so
 * every pair is expanded once.  Where R accepts, the routes accepted by T
 * are compared with R: if none is better and fits (every method, for '*'),
 * the symbols on the stack are the witness.
 */
#include "check.h"

#include "fill.h"
#include "oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define MAX_EXACT_SEGS 60u
#define ALL_METHODS    ((1u << RB_METHOD_COUNT) - 1u)

enum { SYM_WORD = 0, SYM_OTHER = 1, SYM_EMPTY = 2 };
#define SYM(kind, tok) ((uint32_t)(kind) << 30 | (uint32_t)(tok))
#define SYM_KIND(s)    ((s) >> 30)
#define SYM_TOK(s)     ((s)&0x3fffffffu)

typedef struct xframe {
    uint64_t r;
    uint32_t toff, tlen;  /* T states in arena */
    uint32_t soff, nsyms; /* symbols to try, in syms */
    uint32_t next;
    uint32_t sym; /* the symbol that led here */
} xframe;

typedef struct vslot {
    uint64_t hash, r;
    uint32_t toff, tlen;
    uint32_t gen; /* 0: never used */
} vslot;

struct rb_shadow_ctx {
    const rb_shape_tree *st;
    rb_check_options opt;
    rb_oracle oracle;
    /* the route being decided */
    uint32_t route, n;
    uint32_t tok[MAX_EXACT_SEGS + 1];
    rb_priority prio;
    int method;
    /* the search */
    rb_u32vec arena, syms, tmp, scratch;
    uint32_t *stamp; /* per T entry (node << 2 | sub): sort_unique's marks */
    size_t nstamps;
    uint32_t stamp_gen;
    xframe *stack;
    size_t depth, stack_cap;
    vslot *slots;
    size_t slots_cap, count;
    uint32_t gen;
    bool inexact;
    size_t states;
    uint32_t best_by;
    /* the budget of the whole check (work units: T states stepped, T
     * states made, oracle candidates tried), shared by every route */
    uint64_t work, budget;
    uint64_t route_limit; /* work at which the current route's share ends */
};

/* ---- R's automaton ------------------------------------------------------------ */

static const rb_st_node *tok_node(const rb_shadow_ctx *c, uint32_t i)
{
    return &c->st->nodes[c->tok[i]];
}

static uint64_t r_close(const rb_shadow_ctx *c, uint64_t r)
{
    for (uint32_t i = 0; i < c->n; i++)
        if (r >> i & 1u && tok_node(c, i)->kind == RB_SEG_GLOBSTAR) r |= UINT64_C(1) << (i + 1);
    return r;
}

static bool same_text(const rb_shape_tree *st, const rb_st_node *a, const char *t, size_t len)
{
    return a->text_len == len && memcmp(rb_st_text(st, a), t, len) == 0;
}

/* The bytes of a symbol (OTHER has none: it is never compared). */
static const char *sym_text(const rb_shadow_ctx *c, uint32_t sym, size_t *len)
{
    if (SYM_KIND(sym) == SYM_WORD) {
        const rb_st_node *n = tok_node(c, SYM_TOK(sym));
        *len = n->text_len;
        return rb_st_text(c->st, n);
    }
    *len = 0;
    return "";
}

static uint64_t r_step(const rb_shadow_ctx *c, uint64_t r, uint32_t sym)
{
    uint32_t n = c->n;
    int kind = (int)SYM_KIND(sym);
    size_t wlen;
    const char *w = sym_text(c, sym, &wlen);
    uint64_t out = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!(r >> i & 1u)) continue;
        const rb_st_node *t = tok_node(c, i);
        switch (t->kind) {
        case RB_SEG_STATIC:
            if (kind != SYM_OTHER && same_text(c->st, t, w, wlen)) out |= UINT64_C(1) << (i + 1);
            break;
        case RB_SEG_PARAM:
            if (kind != SYM_EMPTY) out |= UINT64_C(1) << (i + 1);
            break;
        case RB_SEG_GLOB: /* only '*' globs are searched */
            out |= UINT64_C(1) << (i + 1);
            break;
        case RB_SEG_GLOBSTAR:
            out |= UINT64_C(1) << i;
            break;
        default: /* catch-all */
            out |= UINT64_C(1) << (kind == SYM_EMPTY ? n + 1 : n + 2);
            break;
        }
    }
    if (r >> (n + 1) & 3u) out |= UINT64_C(1) << (n + 2);
    return r_close(c, out);
}

static bool r_accepts(const rb_shadow_ctx *c, uint64_t r)
{
    return (r >> c->n & 1u) || (r >> (c->n + 2) & 1u);
}

/* ---- the table's automaton ------------------------------------------------------- */

static int t_close(rb_shadow_ctx *c)
{
    const rb_shape_tree *st = c->st;
    for (size_t i = 0; i < c->tmp.n; i++) {
        uint32_t e = c->tmp.v[i];
        if (e & 3u) continue;
        for (uint32_t k = st->nodes[e >> 2].first_wild; k != RB_ST_NONE; k = st->nodes[k].next_wild)
            if (st->nodes[k].kind == RB_SEG_GLOBSTAR && rb_u32vec_push(&c->tmp, k << 2) < 0)
                return RB_ENOMEM;
    }
    return RB_OK;
}

/* tmp as a set: duplicates dropped (a stamp per possible entry, node << 2
 * | sub), then sorted (insertion sort when short, else four 8-bit radix
 * passes through scratch), so that equal sets are equal arrays.  Linear in
 * the set for all but short sets: this is the check's inner loop. */
static int sort_unique(rb_shadow_ctx *c)
{
    rb_u32vec *v = &c->tmp;
    if (++c->stamp_gen == 0) {
        memset(c->stamp, 0, c->nstamps * sizeof *c->stamp);
        c->stamp_gen = 1;
    }
    size_t k = 0;
    for (size_t i = 0; i < v->n; i++) {
        uint32_t e = v->v[i];
        if (c->stamp[e] == c->stamp_gen) continue;
        c->stamp[e] = c->stamp_gen;
        v->v[k++] = e;
    }
    v->n = k;
    if (k <= 32) {
        for (size_t i = 1; i < k; i++) {
            uint32_t e = v->v[i];
            size_t j = i;
            for (; j > 0 && v->v[j - 1] > e; j--) v->v[j] = v->v[j - 1];
            v->v[j] = e;
        }
        return RB_OK;
    }
    while (c->scratch.cap < k)
        if (rb_u32vec_push(&c->scratch, 0) < 0) return RB_ENOMEM;
    uint32_t *from = v->v, *to = c->scratch.v;
    for (unsigned shift = 0; shift < 32; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < k; i++) count[1 + (from[i] >> shift & 0xffu)]++;
        for (size_t b = 1; b <= 256; b++) count[b] += count[b - 1];
        for (size_t i = 0; i < k; i++) to[count[from[i] >> shift & 0xffu]++] = from[i];
        uint32_t *t = from;
        from = to;
        to = t;
    }
    return RB_OK; /* four passes: the sorted set is back in v */
}

/* tmp = the states after sym from t[0, tn). */
static int t_step(rb_shadow_ctx *c, uint32_t toff, uint32_t tn, uint32_t sym)
{
    const rb_shape_tree *st = c->st;
    int kind = (int)SYM_KIND(sym);
    size_t wlen;
    const char *w = sym_text(c, sym, &wlen);
    rb_span caps[RB_MAX_CAPTURES];
    c->tmp.n = 0;
    for (uint32_t i = 0; i < tn; i++) {
        uint32_t e = c->arena.v[toff + i], node = e >> 2;
        if (e & 3u) { /* inside a catch-all: takes anything */
            if (rb_u32vec_push(&c->tmp, node << 2 | 2u) < 0) return RB_ENOMEM;
            continue;
        }
        const rb_st_node *x = &st->nodes[node];
        if (x->kind == RB_SEG_GLOBSTAR && x->parent != RB_ST_NONE && rb_u32vec_push(&c->tmp, e) < 0)
            return RB_ENOMEM;
        if (kind != SYM_OTHER) {
            uint32_t k = rb_st_child(st, node, RB_SEG_STATIC, w, wlen);
            if (k != RB_ST_NONE && rb_u32vec_push(&c->tmp, k << 2) < 0) return RB_ENOMEM;
        }
        for (uint32_t k = x->first_wild; k != RB_ST_NONE; k = st->nodes[k].next_wild) {
            const rb_st_node *y = &st->nodes[k];
            uint32_t add = RB_ST_NONE;
            switch (y->kind) {
            case RB_SEG_PARAM:
                if (kind != SYM_EMPTY) add = k << 2;
                break;
            case RB_SEG_CATCHALL:
                add = k << 2 | (kind == SYM_EMPTY ? 1u : 2u);
                break;
            case RB_SEG_GLOB:
                if (y->any_segment)
                    add = k << 2;
                else if (kind == SYM_OTHER)
                    c->inexact = true; /* treated as not matching: coverage may be missed */
                else if (rb_glob_segment_match(rb_st_text(st, y), y->text_len, w, wlen, NULL))
                    add = k << 2;
                break;
            case RB_SEG_TEMPLATE: /* as a glob: exact on words, OTHER left out */
                if (kind == SYM_OTHER)
                    c->inexact = true;
                else if (rb__template_match(rb_st_text(st, y), y->text_len, w, wlen, 0, caps, NULL))
                    add = k << 2;
                break;
            default: /* '**': reached through t_close */
                break;
            }
            if (add != RB_ST_NONE && rb_u32vec_push(&c->tmp, add) < 0) return RB_ENOMEM;
        }
    }
    if (t_close(c) < 0) return RB_ENOMEM;
    c->work += tn + c->tmp.n;
    return sort_unique(c);
}

/* The methods of the routes at node x better than R (R's priority key
 * wins over none of them); the best of those fitting R's method is the
 * candidate for "by": the better route closest to R in priority (usually
 * the most general one). */
static uint32_t better_at(rb_shadow_ctx *c, const rb_st_node *x)
{
    const rb_shape_tree *st = c->st;
    uint32_t mask = 0;
    for (uint32_t k = 0; k < x->routes_count; k++) {
        uint32_t q = st->route_list[x->routes_begin + k];
        if (q == c->route) continue;
        rb_priority pq = rb_st_priority(st, q);
        if (rb_priority_compare(&pq, &c->prio) >= 0) continue;
        int m = st->table->routes[q].method;
        mask |= m == RB_ANY ? ALL_METHODS : 1u << m;
        if (c->method != RB_ANY && m != RB_ANY && m != c->method) continue;
        rb_priority pb = c->best_by != RB_ST_NONE ? rb_st_priority(st, c->best_by) : pq;
        if (c->best_by == RB_ST_NONE || rb_priority_compare(&pq, &pb) > 0) c->best_by = q;
    }
    return mask;
}

/* The methods for which some route better than R takes every path that
 * extends the current one (tmp): routes ending at a '**' node T is in (the
 * '**' takes whatever follows), or at a catch-all T is inside with 1+
 * bytes. */
static uint32_t covered_for_good(rb_shadow_ctx *c)
{
    uint32_t mask = 0;
    for (size_t i = 0; i < c->tmp.n; i++) {
        uint32_t e = c->tmp.v[i];
        const rb_st_node *x = &c->st->nodes[e >> 2];
        if ((e & 3u) == 2u || ((e & 3u) == 0 && x->kind == RB_SEG_GLOBSTAR))
            mask |= better_at(c, x);
    }
    return mask;
}

/* A method R fits for which no better route in the accepting states of t
 * fits, or -1 when every method R fits is covered. */
static int uncovered(rb_shadow_ctx *c, uint32_t toff, uint32_t tn)
{
    const rb_shape_tree *st = c->st;
    uint32_t mask = 0;
    for (uint32_t i = 0; i < tn; i++) {
        uint32_t e = c->arena.v[toff + i];
        const rb_st_node *x = &st->nodes[e >> 2];
        bool accepts = (e & 3u) == 2u || ((e & 3u) == 0 && x->kind != RB_SEG_CATCHALL);
        if (accepts) mask |= better_at(c, x);
    }
    if (c->method != RB_ANY) return mask >> c->method & 1u ? -1 : c->method;
    for (int m = 0; m < RB_METHOD_COUNT; m++)
        if (!(mask >> m & 1u)) return m;
    return -1;
}

/* ---- the visited set ---------------------------------------------------------------- */

static uint64_t state_hash(uint64_t r, const uint32_t *t, size_t n)
{
    return XXH3_64bits_withSeed(t, n * sizeof *t, r);
}

static size_t visit_slot(const rb_shadow_ctx *c, uint64_t h, uint64_t r, const uint32_t *t,
                         size_t n)
{
    size_t mask = c->slots_cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        const vslot *s = &c->slots[i];
        if (s->gen != c->gen) return i;
        if (s->hash == h && s->r == r && s->tlen == n &&
            memcmp(c->arena.v + s->toff, t, n * sizeof *t) == 0)
            return i;
    }
}

static int visit_grow(rb_shadow_ctx *c)
{
    size_t ncap = c->slots_cap ? c->slots_cap * 2 : 1024;
    vslot *old = c->slots;
    size_t ocap = c->slots_cap;
    c->slots = calloc(ncap, sizeof *c->slots);
    if (!c->slots) {
        c->slots = old;
        return RB_ENOMEM;
    }
    c->slots_cap = ncap;
    for (size_t i = 0; i < ocap; i++) {
        if (old[i].gen != c->gen) continue;
        size_t j = (size_t)old[i].hash & (ncap - 1);
        while (c->slots[j].gen == c->gen) j = (j + 1) & (ncap - 1);
        c->slots[j] = old[i];
    }
    free(old);
    return RB_OK;
}

/* ---- the search ----------------------------------------------------------------------- */

static int push_frame(rb_shadow_ctx *c, uint64_t r, uint32_t toff, uint32_t tlen, uint32_t sym)
{
    if (rb_grow(NULL, &c->stack, &c->stack_cap, c->depth + 1, sizeof *c->stack, 64) < 0)
        return RB_ENOMEM;
    xframe *f = &c->stack[c->depth++];
    f->r = r;
    f->toff = toff;
    f->tlen = tlen;
    f->sym = sym;
    f->next = 0;
    f->soff = (uint32_t)c->syms.n;
    /* R's words at its positions (once each), then OTHER and the empty
     * segment, unless R can take nothing more */
    bool live = (r >> (c->n + 1)) != 0;
    for (uint32_t i = 0; i < c->n; i++) {
        if (!(r >> i & 1u)) continue;
        live = true;
        const rb_st_node *t = tok_node(c, i);
        if (t->kind != RB_SEG_STATIC || t->text_len == 0) continue;
        bool seen = false;
        for (size_t k = f->soff; k < c->syms.n && !seen; k++)
            seen = same_text(c->st, tok_node(c, SYM_TOK(c->syms.v[k])), rb_st_text(c->st, t),
                             t->text_len);
        if (!seen && rb_u32vec_push(&c->syms, SYM(SYM_WORD, i)) < 0) return RB_ENOMEM;
    }
    if (live && (rb_u32vec_push(&c->syms, SYM(SYM_OTHER, 0)) < 0 ||
                 rb_u32vec_push(&c->syms, SYM(SYM_EMPTY, 0)) < 0))
        return RB_ENOMEM;
    f->nsyms = (uint32_t)c->syms.n - f->soff;
    return RB_OK;
}

/* Store tmp as a new visited state; returns its arena offset via *toff, or
 * false when it was seen before. */
static int remember(rb_shadow_ctx *c, uint64_t r, uint32_t *toff, bool *fresh)
{
    if ((c->count + 1) * 2 > c->slots_cap && visit_grow(c) < 0) return RB_ENOMEM;
    uint64_t h = state_hash(r, c->tmp.v, c->tmp.n);
    size_t i = visit_slot(c, h, r, c->tmp.v, c->tmp.n);
    if (c->slots[i].gen == c->gen) {
        *fresh = false;
        return RB_OK;
    }
    *toff = (uint32_t)c->arena.n;
    for (size_t k = 0; k < c->tmp.n; k++)
        if (rb_u32vec_push(&c->arena, c->tmp.v[k]) < 0) return RB_ENOMEM;
    c->slots[i] = (vslot){h, r, *toff, (uint32_t)c->tmp.n, c->gen};
    c->count++;
    *fresh = true;
    return RB_OK;
}

/* A nonempty word that is no static word of the table. */
static size_t fresh_word(const rb_shadow_ctx *c, char *buf)
{
    for (uint32_t k = 0;; k++) {
        int n = snprintf(buf, 24, "zq%u", k);
        if (!rb_st_is_word(c->st, buf, (size_t)n)) return (size_t)n;
    }
}

static void write_witness(const rb_shadow_ctx *c, uint32_t last, rb_shadow_result *res)
{
    char other[24];
    size_t olen = fresh_word(c, other), w = 0;
    res->witness_len = 0;
    for (size_t i = 1; i <= c->depth; i++) {
        uint32_t sym = i < c->depth ? c->stack[i].sym : last;
        size_t len = olen;
        const char *t = SYM_KIND(sym) == SYM_OTHER ? other : sym_text(c, sym, &len);
        if (w + 1 + len > sizeof res->witness) return;
        res->witness[w++] = '/';
        memcpy(res->witness + w, t, len);
        w += len;
    }
    res->witness_len = w;
}

enum { FOUND_WITNESS, NO_WITNESS, TOO_BIG };

/* A route whose share is spent (or was empty: the budget is) does no more. */
static bool over_budget(const rb_shadow_ctx *c)
{
    return c->work >= c->route_limit;
}

/* The share of route r (decided in order): at most 16 times an even split
 * of what is left among the routes left, at least 2^14 units, never past
 * the whole budget.  Cheap routes use little of it. */
static void start_route(rb_shadow_ctx *c, uint32_t r)
{
    uint64_t left = c->budget > c->work ? c->budget - c->work : 0;
    uint64_t routes_left = c->st->table->count > r ? c->st->table->count - r : 1;
    uint64_t share = left / routes_left * 16;
    if (share < (UINT64_C(1) << 14)) share = UINT64_C(1) << 14;
    if (share > left) share = left;
    c->route_limit = c->work + share;
}

static int search(rb_shadow_ctx *c, rb_shadow_result *res, int *outcome)
{
    c->arena.n = c->syms.n = c->tmp.n = 0;
    c->depth = c->count = c->states = 0;
    c->inexact = false;
    c->best_by = RB_ST_NONE;
    if (++c->gen == 0) { /* wrapped: forget every old stamp */
        memset(c->slots, 0, c->slots_cap * sizeof *c->slots);
        c->gen = 1;
    }
    uint64_t r0 = r_close(c, 1);
    if (rb_u32vec_push(&c->tmp, RB_ST_ROOT << 2) < 0 || t_close(c) < 0 || sort_unique(c) < 0)
        return RB_ENOMEM;
    uint32_t toff;
    bool fresh;
    if (remember(c, r0, &toff, &fresh) < 0 || push_frame(c, r0, toff, (uint32_t)c->tmp.n, 0) < 0)
        return RB_ENOMEM;

    while (c->depth > 0) {
        xframe *f = &c->stack[c->depth - 1];
        if (f->next == f->nsyms) {
            c->syms.n = f->soff;
            c->depth--;
            continue;
        }
        uint32_t sym = c->syms.v[f->soff + f->next++];
        uint64_t r = r_step(c, f->r, sym);
        if (!r) continue;
        if (t_step(c, f->toff, f->tlen, sym) < 0) return RB_ENOMEM;
        /* better routes take every path from here on, for every method R
         * fits: no witness below (exact, so the search may skip it) */
        uint32_t need = c->method == RB_ANY ? ALL_METHODS : 1u << c->method;
        if ((covered_for_good(c) & need) == need) continue;
        if (remember(c, r, &toff, &fresh) < 0) return RB_ENOMEM;
        if (!fresh) continue;
        if (++c->states > c->opt.max_states || over_budget(c)) {
            *outcome = TOO_BIG;
            return RB_OK;
        }
        uint32_t tlen = (uint32_t)c->tmp.n;
        if (r_accepts(c, r)) {
            int m = uncovered(c, toff, tlen);
            if (m >= 0) {
                res->method = m;
                write_witness(c, sym, res);
                *outcome = FOUND_WITNESS;
                return RB_OK;
            }
        }
        if (push_frame(c, r, toff, tlen, sym) < 0) return RB_ENOMEM;
    }
    *outcome = NO_WITNESS;
    return RB_OK;
}

/* ---- sampling -------------------------------------------------------------------------- */

static bool wins(rb_shadow_ctx *c, int method, const char *path, size_t len, uint32_t *winner,
                 int *rc, rb_error *err)
{
    rb_match m;
    uint64_t before = c->oracle.work;
    *rc = rb_oracle_lookup(&c->oracle, method, path, len, &m, err);
    c->work += 1 + (c->oracle.work - before);
    if (*rc < 0) return false;
    *winner = m.outcome == RB_FOUND ? m.route_id : RB_ST_NONE;
    return m.outcome == RB_FOUND && m.route_id == c->route;
}

static int sample(rb_shadow_ctx *c, rb_shadow_result *res, rb_error *err)
{
    rb_rng rng;
    rb_rng_seed(&rng, c->opt.seed ^ (UINT64_C(0x9e3779b97f4a7c15) * (c->route + 1u)));
    res->exact = false;
    for (uint32_t k = 0; k < c->opt.samples && !over_budget(c); k++) {
        size_t len = rb_fill_path(c->st, c->route, &rng, res->witness, sizeof res->witness);
        int method = rb_fill_method(c->st, c->route, &rng);
        if (len == 0) continue;
        uint32_t winner;
        int rc;
        bool won = wins(c, method, res->witness, len, &winner, &rc, err);
        if (rc < 0) return rc;
        if (won) {
            res->verdict = RB_NOT_SHADOWED;
            res->method = method;
            res->witness_len = len;
            return RB_OK;
        }
        if (res->by == RB_ST_NONE) res->by = winner;
    }
    res->verdict = RB_POSSIBLY_SHADOWED;
    res->witness_len = 0;
    res->over_budget = over_budget(c);
    return RB_OK;
}

/* ---- one route -------------------------------------------------------------------------- */

int rb_shadow_ctx_new(const rb_shape_tree *st, const rb_check_options *opt, rb_shadow_ctx **out)
{
    rb_shadow_ctx *c = calloc(1, sizeof *c);
    *out = c;
    if (!c) return RB_ENOMEM;
    c->st = st;
    if (opt) c->opt = *opt;
    if (!c->opt.samples) c->opt.samples = 64;
    if (!c->opt.max_states) c->opt.max_states = 20000;
    c->nstamps = 4 * (st->nnodes ? st->nnodes : 1);
    c->stamp = calloc(c->nstamps, sizeof *c->stamp);
    if (!c->stamp) {
        free(c);
        *out = NULL;
        return RB_ENOMEM;
    }
    c->budget = c->opt.max_work ? c->opt.max_work
                                : RB_CHECK_WORK_BASE + RB_CHECK_WORK_PER_ROUTE * st->table->count;
    rb_oracle_init(&c->oracle, st);
    return RB_OK;
}

void rb_shadow_ctx_free(rb_shadow_ctx *c)
{
    if (!c) return;
    rb_oracle_free(&c->oracle);
    rb_u32vec_free(&c->arena);
    rb_u32vec_free(&c->syms);
    rb_u32vec_free(&c->tmp);
    rb_u32vec_free(&c->scratch);
    free(c->stamp);
    free(c->stack);
    free(c->slots);
    free(c);
}

/* Load R's tokens; false when the exact search does not apply. */
static bool load_route(rb_shadow_ctx *c, uint32_t r)
{
    const rb_shape_tree *st = c->st;
    const rb_st_node *node = &st->nodes[st->route_node[r]];
    c->route = r;
    c->prio = rb_st_priority(st, r);
    c->method = st->table->routes[r].method;
    if (node->depth > MAX_EXACT_SEGS) return false;
    c->n = node->depth;
    bool exact = true;
    uint32_t x = st->route_node[r];
    for (uint32_t i = c->n; i-- > 0; x = st->nodes[x].parent) {
        c->tok[i] = x;
        if (st->nodes[x].kind == RB_SEG_GLOB && !st->nodes[x].any_segment) exact = false;
        if (st->nodes[x].kind == RB_SEG_TEMPLATE) exact = false; /* sampled, as globs */
    }
    return exact;
}

int rb_shadow_decide(rb_shadow_ctx *c, uint32_t r, rb_shadow_result *res, rb_error *err)
{
    memset(res, 0, sizeof *res);
    res->by = RB_ST_NONE;
    start_route(c, r);
    if (!load_route(c, r)) return sample(c, res, err);
    int outcome, rc = search(c, res, &outcome);
    res->states = c->states;
    if (rc < 0) return rb__error(err, rc, RB_NO_OFFSET, "out of memory deciding shadowing");
    if (outcome == NO_WITNESS) {
        res->verdict = RB_SHADOWED;
        res->exact = true;
        res->by = c->best_by;
        return RB_OK;
    }
    if (outcome == FOUND_WITNESS) {
        res->verdict = RB_NOT_SHADOWED;
        res->exact = true;
        if (!c->inexact) return RB_OK;
        /* a glob was left out of the search: believe the witness only if
         * linear agrees */
        uint32_t winner;
        if (res->witness_len &&
            wins(c, res->method, res->witness, res->witness_len, &winner, &rc, err))
            return RB_OK;
        if (rc < 0) return rc;
    }
    return sample(c, res, err);
}

/* ---- the whole table -------------------------------------------------------------------- */

static const char *const fanout_names[RB_CHECK_FANOUT_BUCKETS] = {
    "1", "2-3", "4-7", "8-15", "16-31", "32-63", "64-127", "128+"};

const char *rb_check_fanout_bucket(int b)
{
    return b >= 0 && b < RB_CHECK_FANOUT_BUCKETS ? fanout_names[b] : "?";
}

static int fanout_bucket(size_t children)
{
    int b = 0;
    while (children > 1 && b < RB_CHECK_FANOUT_BUCKETS - 1) {
        children >>= 1;
        b++;
    }
    return b;
}

/* Lines equal to an earlier line: an open-addressing set of route ids
 * keyed by (method, pattern bytes). */
static int find_exact_duplicates(const rb_route_table *t, rb_check_report *rep)
{
    size_t cap = 64;
    while (cap < 2 * t->count + 2) cap *= 2;
    uint32_t *slots = calloc(cap, sizeof *slots);
    rep->exact = malloc((t->count ? t->count : 1) * sizeof *rep->exact);
    if (!slots || !rep->exact) {
        free(slots);
        return RB_ENOMEM;
    }
    for (size_t r = 0; r < t->count; r++) {
        const rb_route_entry *e = &t->routes[r];
        const char *p = rb_route_pattern(t, r);
        uint64_t h = XXH3_64bits_withSeed(p, e->len, (uint64_t)e->method);
        for (size_t i = (size_t)h & (cap - 1);; i = (i + 1) & (cap - 1)) {
            if (!slots[i]) {
                slots[i] = (uint32_t)r + 1;
                break;
            }
            const rb_route_entry *o = &t->routes[slots[i] - 1];
            if (o->method == e->method && o->len == e->len &&
                memcmp(rb_route_pattern(t, slots[i] - 1), p, e->len) == 0) {
                rep->exact[rep->exact_duplicates++] = (rb_check_pair){(uint32_t)r, slots[i] - 1};
                break;
            }
        }
    }
    free(slots);
    return RB_OK;
}

static int measure_tree(const rb_shape_tree *st, rb_check_report *rep)
{
    const rb_route_table *t = st->table;
    rep->shape = malloc((st->nduplicates ? st->nduplicates : 1) * sizeof *rep->shape);
    size_t *behind = calloc(st->nnodes, sizeof *behind);
    unsigned char *skel = calloc(st->nskeletons ? st->nskeletons : 1, 1);
    int rc = rep->shape && behind && skel ? RB_OK : RB_ENOMEM;
    for (size_t r = 0; rc == RB_OK && r < t->count; r++) {
        if (st->dup_of[r] != RB_ST_NONE)
            rep->shape[rep->shape_duplicates++] = (rb_check_pair){(uint32_t)r, st->dup_of[r]};
        size_t d = st->nodes[st->route_node[r]].depth;
        rep->depth[d < RB_CHECK_DEPTHS - 1 ? d : RB_CHECK_DEPTHS - 1]++;
        if (r == 0 || d < rep->min_depth) rep->min_depth = d;
        if (d > rep->max_depth) rep->max_depth = d;
    }
    rep->distinct_routes = t->count - st->nduplicates;
    size_t fan_node = 0, behind_node = 0;
    for (size_t n = 0; rc == RB_OK && n < st->nnodes; n++) {
        const rb_st_node *x = &st->nodes[n];
        if (x->routes_count) {
            rep->distinct_shapes++;
            if (!skel[x->skeleton]) rep->distinct_skeletons++;
            skel[x->skeleton] = 1;
            if (x->parent != RB_ST_NONE) behind[x->parent] += x->routes_count;
        }
        if (x->nchildren) rep->fanout[fanout_bucket(x->nchildren)]++;
        if (x->nchildren > rep->max_fanout) {
            rep->max_fanout = x->nchildren;
            fan_node = n;
        }
    }
    for (size_t n = 0; rc == RB_OK && n < st->nnodes; n++) {
        if (behind[n] > rep->max_behind) {
            rep->max_behind = behind[n];
            behind_node = n;
        }
    }
    if (rc == RB_OK) {
        rb_st_shape(st, (uint32_t)fan_node, rep->max_fanout_prefix, sizeof rep->max_fanout_prefix);
        rb_st_shape(st, (uint32_t)behind_node, rep->max_behind_prefix,
                    sizeof rep->max_behind_prefix);
    }
    free(behind);
    free(skel);
    return rc;
}

static int find_shadowed(const rb_shape_tree *st, const rb_check_options *opt, rb_check_report *rep,
                         rb_error *err)
{
    rb_shadow_ctx *c;
    if (rb_shadow_ctx_new(st, opt, &c) < 0) return RB_ENOMEM;
    size_t cap = 0;
    int rc = RB_OK;
    rb_shadow_result *res = malloc(sizeof *res);
    if (!res) rc = RB_ENOMEM;
    for (size_t r = 0; rc == RB_OK && r < st->table->count; r++) {
        if (st->dup_of[r] != RB_ST_NONE) continue;
        rc = rb_shadow_decide(c, (uint32_t)r, res, err);
        if (rc < 0) break;
        rep->sampled += !res->exact;
        rep->over_budget += res->over_budget;
        if (res->verdict == RB_NOT_SHADOWED) continue;
        size_t n = rep->shadowed + rep->possibly_shadowed;
        if (rb_grow(NULL, &rep->shadows, &cap, n + 1, sizeof *rep->shadows, 16) < 0) {
            rc = RB_ENOMEM;
            break;
        }
        bool possible = res->verdict == RB_POSSIBLY_SHADOWED;
        rep->shadows[n] = (rb_check_shadow){(uint32_t)r, res->by, possible};
        if (possible)
            rep->possibly_shadowed++;
        else
            rep->shadowed++;
    }
    rep->work = c->work;
    rep->budget = c->budget;
    rep->lookups = c->oracle.lookups;
    rep->routes_added = c->oracle.added;
    rep->states_stepped = c->oracle.steps;
    free(res);
    rb_shadow_ctx_free(c);
    return rc;
}

void rb_check_options_init(rb_check_options *opt)
{
    *opt = (rb_check_options){1, 64, 0, 0};
}

int rb_corpus_check(const rb_route_table *t, const rb_check_options *opt, rb_check_report *rep,
                    rb_error *err)
{
    memset(rep, 0, sizeof *rep);
    rep->routes = t->count;
    rep->fingerprint = rb_route_table_fingerprint(t);
    rb_shape_tree st;
    int rc = rb_shape_tree_build(t, &st, err);
    if (rc < 0) return rc;
    rc = find_exact_duplicates(t, rep);
    if (rc == RB_OK) rc = measure_tree(&st, rep);
    if (rc == RB_ENOMEM) rb__error(err, rc, RB_NO_OFFSET, "out of memory checking the corpus");
    if (rc == RB_OK) rc = find_shadowed(&st, opt, rep, err);
    rb_shape_tree_free(&st);
    if (rc < 0) rb_check_report_free(rep);
    return rc;
}

void rb_check_report_free(rb_check_report *rep)
{
    free(rep->exact);
    free(rep->shape);
    free(rep->shadows);
    rep->exact = rep->shape = NULL;
    rep->shadows = NULL;
}
