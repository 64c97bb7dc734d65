/*
 * like.c — generating a table like a profile (see like.h for the design).
 *
 * Levels are arrays of prefixes; the children of a prefix are contiguous in
 * the next level (first, nkids).  Every random choice goes through one
 * rb_rng in a fixed order: plan (integer arithmetic), then levels top-down,
 * then the depth-first write.
 */
#include "like.h"

#include "generate.h"
#include "rng.h"
#include "base_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FX          1024u /* fixed point: FX is 1.0 */
#define KMAX        9u    /* routes a path: a '*' route keeps a method */
#define MAX_GLOBS   25u   /* sibling globs: one per extension, one without */
#define WORD_BIJ    9u    /* letters mapped by the bijection; more come from a hash */
#define MAX_PATH    4096u
#define PROFILE_MAX (UINT64_C(1) << 32)
#define GX          (UINT64_C(1) << 16) /* fixed point of the growth factor: GX is 1.0 */
#define MULT_MAX    (UINT64_C(1) << 40) /* node multipliers saturate here (x GX) */
#define FAN_VALUES  4096u /* drawn fan-outs are below this (the top bucket, 2048+, as 2048..4095) */
#define HUB_GROWTH  64u   /* v2: a hub takes at most this many times its drawn children more */

/* ---- words -------------------------------------------------------------------- */

static const char consonants[] = "bcdfghjklmnprstz"; /* 16 */
static const char vowels[] = "aeiou";                /* 5 */

static const char *const exts[] = {"json", "xml",  "html", "txt",  "csv",  "png", "jpg", "pdf",
                                   "css",  "js",   "svg",  "yaml", "zip",  "gz",  "md",  "ico",
                                   "gif",  "webp", "mp4",  "wasm", "toml", "log", "map", "ttf"};
#define NEXTS (sizeof exts / sizeof exts[0])

/* v2: extensions for the profile's "other" ones (none of the list above) */
static const char *const other_exts[] = {"go", "out", "dat", "bin", "sh", "rb", "py", "bak"};
#define NALL (NEXTS + sizeof other_exts / sizeof other_exts[0]) /* at most 64 */

static const char *ext_text(uint32_t i)
{
    return i < NEXTS ? exts[i] : other_exts[i - NEXTS];
}

/* Consonant-vowel words of len letters: 16^ceil(len/2) x 5^floor(len/2),
 * counting the first WORD_BIJ letters only (the rest follow from them). */
static uint64_t word_space(uint32_t len)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < len && i < WORD_BIJ; i++) n *= i % 2 == 0 ? 16 : 5;
    return n;
}

/* splitmix64's output for state x (base/rng.h) */
static uint64_t mix64(uint64_t x)
{
    return rb_splitmix64(&x);
}

/* The word with this code: distinct codes below word_space(len) give
 * distinct words. */
static size_t word_text(uint32_t len, uint64_t code, char *out)
{
    uint64_t c = code, h = mix64(code);
    for (uint32_t i = 0; i < len; i++) {
        uint64_t x;
        if (i < WORD_BIJ) {
            x = c % (i % 2 == 0 ? 16 : 5);
            c /= i % 2 == 0 ? 16 : 5;
        } else {
            x = h % (i % 2 == 0 ? 16 : 5);
            h = mix64(h);
        }
        out[i] = i % 2 == 0 ? consonants[x] : vowels[x];
    }
    return len;
}

/* The ordinal-th word of len letters below a parent with this salt: a
 * bijection of [0, space), x -> (x * M + s) mod space, with M odd and not
 * a multiple of 5, so coprime with the space's 2^a 5^b.  Products stay
 * below space^2 < 2^60. */
static uint64_t word_code(uint64_t ordinal, uint64_t salt, uint32_t len)
{
    uint64_t space = word_space(len);
    uint64_t m = UINT64_C(0xd1b54a32d192ed03) % space, s = mix64(salt + len) % space;
    return (ordinal % space * m + s) % space;
}

uint64_t rb__like_word_space(uint32_t len)
{
    return word_space(len);
}

size_t rb__like_word(uint32_t len, uint64_t ordinal, uint64_t salt, char *out)
{
    return word_text(len, word_code(ordinal, salt, len), out);
}

/* ---- the plan ---------------------------------------------------------------------- */

enum {
    N_INTERIOR = 1,  /* has children */
    N_TERMINAL = 2,  /* has routes */
    N_LEAF = 4,      /* may not have children */
    N_NO_ROUTES = 8, /* may not have routes (a param beside globs) */
    N_VERSION = 16,  /* static: "v<code + 1>" */
    N_EMPTY = 32,    /* static: the empty word (a trailing slash) */
    N_EXT = 64,      /* static: word.ext; glob: form uses ext */
};

typedef struct lnode {
    uint32_t first, nkids; /* children: next level [first, first + nkids) */
    uint64_t code;         /* static: word code or version ordinal; glob: prefix code */
    uint8_t kind;          /* RB_PK_* */
    uint8_t len;           /* static: letters; glob: form */
    uint8_t flags;
    uint8_t routes; /* terminal: 1..KMAX */
    uint8_t ext;    /* index into exts */
} lnode;

/* What a prefix's children will be (make_children). */
typedef struct slot {
    lnode *parent;
    bool param, catchall, globstar;
    uint8_t globs;
} slot;

typedef struct like {
    const rb_profile *p;
    rb_rng rng;
    bool v2;                            /* the growth model of like.h; false: RB_LIKE_V1's bytes */
    bool grown;                         /* v2: the table grows past the profile (plan_growth) */
    uint32_t top;                       /* v2, grown: the first level that grows */
    bool brace;                         /* params written {id}, catch-alls {*path} */
    uint64_t gl[RB_PROFILE_DEPTHS + 1]; /* fan-out growth below level j (x GX) */
    uint64_t mult[RB_PROFILE_DEPTHS + 1]; /* prefixes at level d over the profile's (x GX) */
    uint64_t ext_w[RB_PROFILE_EXT_NAMES]; /* extension weights (the profile's), "other" last */
    uint32_t depth;                       /* deepest level */
    uint64_t R[RB_PROFILE_DEPTHS + 1], T[RB_PROFILE_DEPTHS + 1];
    uint64_t L[RB_PROFILE_DEPTHS + 1], I[RB_PROFILE_DEPTHS + 1], O[RB_PROFILE_DEPTHS + 1];
    lnode *lv[RB_PROFILE_DEPTHS + 1];
    lnode root;
    slot *slots;         /* the prefixes with children of one level */
    uint32_t *fan_count; /* v2: prefixes by drawn fan-out (fanouts_to_hubs) */
    rb_like_report rep;
    /* the write */
    uint64_t want; /* routes asked for */
    rb_route_table *out;
    int rc;
    char path[MAX_PATH];
    size_t path_len;
    char names[RB_PROFILE_DEPTHS + 1][48];
    uint32_t nnames;
    uint64_t quota[RB_PROFILE_METHODS]; /* routes of each method still to write */
} like;

static uint64_t below(like *g, uint64_t n)
{
    return rb_rng_below(&g->rng, n);
}

/* true with probability num/den (false when den is 0) */
static bool chance(like *g, uint64_t num, uint64_t den)
{
    return den > 0 && below(g, den) < num;
}

static uint64_t round_div(uint64_t a, uint64_t b)
{
    return b ? (a + b / 2) / b : 0;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* An index drawn from weights w[0..n) (all zero: -1). */
static int draw(like *g, const uint64_t *w, int n)
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++) total += w[i];
    if (total == 0) return -1;
    uint64_t x = below(g, total);
    for (int i = 0; i < n; i++) {
        if (x < w[i]) return i;
        x -= w[i];
    }
    return n - 1;
}

/* Knuth's selection sampling: of *left candidates still to visit, take
 * exactly *need. */
static bool pick(like *g, uint64_t *left, uint64_t *need)
{
    bool take = *left > 0 && below(g, *left) < *need;
    if (*left) (*left)--;
    if (take) (*need)--;
    return take;
}

/* Can the prefixes of level j get more children than the profile's?  Only
 * when the level below has static words that are not versions (resources
 * to add beside them), or several versions. */
static bool level_grows(const rb_profile *p, uint32_t j)
{
    const rb_profile_level *below = &p->level[j + 1];
    uint64_t words = below->kind[RB_PK_STATIC].nodes - below->empties;
    if (rb_profile_level_sum(below, RB_PF_NODES) == 1 && words == 1)
        return false; /* one word below one prefix: a base path (/api), kept single */
    return words > below->versions || below->versions >= 2;
}

/* The first level that can grow (its prefixes get the top-level
 * resources), or RB_PROFILE_DEPTHS when none can. */
static uint32_t first_growing(const rb_profile *p)
{
    uint32_t j = 0;
    while (j < RB_PROFILE_DEPTHS && !level_grows(p, j)) j++;
    return j;
}

/* Node multipliers m[d] (x GX): the product, over the growing levels above
 * d, of a (the first growing level) or b (the others), saturated. */
static void multipliers(const like *g, uint64_t a, uint64_t b, uint64_t *m)
{
    uint32_t top = first_growing(g->p);
    m[0] = GX;
    for (uint32_t d = 1; d <= RB_PROFILE_DEPTHS; d++) {
        uint64_t f = d - 1 == top ? a : level_grows(g->p, d - 1) ? b : GX;
        m[d] = m[d - 1] >= MULT_MAX / (f / GX + 1) ? MULT_MAX : m[d - 1] * f / GX;
    }
}

static uint64_t grown_routes(const like *g, uint64_t a, uint64_t b, uint64_t *w)
{
    uint64_t m[RB_PROFILE_DEPTHS + 1], total = 0;
    multipliers(g, a, b, m);
    for (uint32_t d = 1; d <= RB_PROFILE_DEPTHS; d++) {
        w[d] = g->p->depth[d] * (m[d] / GX) + g->p->depth[d] * (m[d] % GX) / GX;
        total += w[d];
    }
    return total;
}

/* The smallest b >= GX (with the first growing level's factor a) whose
 * routes reach n: w[d] the routes by depth; false when none does. */
static bool solve_below(const like *g, uint64_t n, uint64_t a, uint64_t *b, uint64_t *w)
{
    uint64_t lo = GX, hi = (uint64_t)n * GX;
    if (grown_routes(g, a, hi, w) < n) return false;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (grown_routes(g, a, mid, w) >= n)
            hi = mid;
        else
            lo = mid + 1;
    }
    *b = lo;
    grown_routes(g, a, lo, w);
    return true;
}

/* Is the total variation of routes by depth, w against the profile, at
 * most RB_LIKE_DEPTH_TV_MILLI / 1000?  (Shares in 1/100000, so the sum of
 * differences is 200 times the distance in 1/1000.) */
static bool depth_within(const like *g, const uint64_t *w)
{
    uint64_t wsum = 0, diff = 0, P = g->p->routes;
    for (uint32_t d = 1; d <= RB_PROFILE_DEPTHS; d++) wsum += w[d];
    for (uint32_t d = 1; d <= RB_PROFILE_DEPTHS && wsum; d++) {
        uint64_t x = w[d] * 100000 / wsum, y = g->p->depth[d] * 100000 / P; /* < 2^62 */
        diff += x > y ? x - y : y - x;
    }
    return diff <= RB_LIKE_DEPTH_TV_MILLI * 200;
}

/* The growth model (like.h): the first growing level's factor a and the
 * others' b, both >= 1, with routes reaching n; a as small as keeps the
 * routes by depth within RB_LIKE_DEPTH_TV_MILLI of the profile's (a = b
 * when that does already; a = n/P, b = 1 is the root widening of v1, at
 * distance 0).  w[d]: the routes at depth d.  False when nothing can
 * grow. */
static bool plan_growth(like *g, uint64_t n, uint64_t *w)
{
    uint32_t top = first_growing(g->p);
    if (top >= RB_PROFILE_DEPTHS) return false;
    /* a = b: the least a that, solved for b, stays within the distance */
    uint64_t b, lo = GX, hi = (uint64_t)n * GX, a;
    if (!solve_below(g, n, GX, &b, w)) return false;
    lo = b; /* a below b would favour the levels below it more than growing evenly */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2, bm;
        if (solve_below(g, n, mid, &bm, w) && depth_within(g, w))
            hi = mid;
        else
            lo = mid + 1;
    }
    a = lo;
    if (!solve_below(g, n, a, &b, w)) return false;
    for (uint32_t j = 0; j < RB_PROFILE_DEPTHS; j++)
        g->gl[j] = j == top ? a : level_grows(g->p, j) ? b : GX;
    multipliers(g, a, b, g->mult);
    g->grown = b > GX; /* else the root widening of v1 */
    g->top = top;
    g->rep.growth_milli = (uint32_t)min_u64(b * 1000 / GX, UINT32_MAX);
    g->rep.top_growth_milli = (uint32_t)min_u64(a * 1000 / GX, UINT32_MAX);
    return true;
}

/* Routes and paths per depth (step 1 of like.h). */
static void plan_routes(like *g, uint64_t n)
{
    const rb_profile *p = g->p;
    uint64_t given = 0, rem[RB_PROFILE_DEPTHS + 1], w[RB_PROFILE_DEPTHS + 1], wsum = p->routes;
    for (uint32_t j = 0; j <= RB_PROFILE_DEPTHS; j++) g->gl[j] = GX;
    for (uint32_t d = 1; d <= RB_PROFILE_DEPTHS; d++) w[d] = p->depth[d];
    if (g->v2) /* not growing: every level scaled by n / routes */
        for (uint32_t d = 0; d <= RB_PROFILE_DEPTHS; d++)
            g->mult[d] = d == 0 ? GX : (n * GX + p->routes - 1) / p->routes;
    if (g->v2 && n > p->routes && plan_growth(g, n, w)) {
        wsum = 0;
        for (uint32_t d = 1; d <= RB_PROFILE_DEPTHS; d++) wsum += w[d];
    }
    for (uint32_t d = 1; d <= RB_PROFILE_DEPTHS; d++) {
        g->R[d] = n * w[d] / wsum;
        rem[d] = n * w[d] % wsum;
        given += g->R[d];
    }
    while (given < n) { /* largest remainders, shallower first on ties */
        uint32_t best = 0;
        for (uint32_t d = 1; d <= RB_PROFILE_DEPTHS; d++)
            if (w[d] && (best == 0 || rem[d] > rem[best])) best = d;
        g->R[best]++;
        rem[best] = 0;
        given++;
    }
    for (uint32_t d = 1; d <= RB_PROFILE_DEPTHS; d++) {
        if (g->R[d] == 0) continue;
        g->depth = d;
        uint64_t t =
            round_div(g->R[d] * rb_profile_level_sum(&p->level[d], RB_PF_TERMINAL), p->depth[d]);
        uint64_t lo = (g->R[d] + KMAX - 1) / KMAX;
        g->T[d] = t < lo ? lo : t > g->R[d] ? g->R[d] : t;
    }
}

/* Routes per method: N x the profile's shares, largest remainders. */
static void plan_methods(like *g, uint64_t n)
{
    const rb_profile *p = g->p;
    uint64_t given = 0, rem[RB_PROFILE_METHODS];
    for (int m = 0; m < RB_PROFILE_METHODS; m++) {
        g->quota[m] = n * p->methods[m] / p->routes;
        rem[m] = n * p->methods[m] % p->routes;
        given += g->quota[m];
    }
    while (given < n) {
        int best = 0;
        for (int m = 1; m < RB_PROFILE_METHODS; m++)
            if (rem[m] > rem[best]) best = m;
        g->quota[best]++;
        rem[best] = 0;
        given++;
    }
}

/* Prefixes per depth (step 2), bottom-up; the root takes what depth 1
 * needs. */
static void plan_levels(like *g)
{
    const rb_profile *p = g->p;
    uint32_t top = g->depth;
    g->I[top] = 0;
    for (uint32_t d = top; d >= 1; d--) {
        uint64_t ip = rb_profile_level_sum(&p->level[d], RB_PF_INTERIOR),
                 bp = rb_profile_level_sum(&p->level[d], RB_PF_BOTH);
        g->O[d] = ip ? min_u64(min_u64(g->T[d], g->I[d]), round_div(g->I[d] * bp, ip)) : 0;
        g->L[d] = g->T[d] + g->I[d] - g->O[d];
        if (d == 1) break;
        if (g->L[d] == 0) {
            g->I[d - 1] = 0;
            continue;
        }
        /* mean fan-out at d - 1 (>= 1: every prefix there has a child) */
        uint64_t parents = rb_profile_level_sum(&p->level[d - 1], RB_PF_INTERIOR);
        uint64_t fan =
            rb_profile_level_sum(&p->level[d], RB_PF_NODES) * FX / (parents ? parents : 1);
        if (fan > (UINT64_C(1) << 30)) fan = UINT64_C(1) << 30;
        fan = min_u64(fan * (g->gl[d - 1] / GX) + fan * (g->gl[d - 1] % GX) / GX,
                      UINT64_C(1) << 40); /* the growth model: wider below level d - 1 */
        uint64_t need = fan <= FX ? g->L[d] : (g->L[d] * FX + fan - 1) / fan;
        if (g->grown && d - 1 > g->top)
            /* the growth model: as many prefixes with children as the
             * profile's times the top level's growth a, at every level
             * below the top, so they keep the profile's mix of depths; the
             * children the level needs beyond their drawn fan-outs go to
             * its hubs (choose_fanouts) */
            need = round_div(parents * g->gl[g->top], GX);
        g->I[d - 1] = need < 1 ? 1 : need > g->L[d] ? g->L[d] : need;
        if (g->mult[d - 1]) { /* the growth model: no more parents than it makes */
            uint64_t most = (parents * g->mult[d - 1] + GX - 1) / GX;
            if (g->I[d - 1] > most) g->I[d - 1] = most < 1 ? 1 : most;
        }
    }
}

/* ---- levels --------------------------------------------------------------------------- */

static uint32_t used(const slot *s)
{
    return (uint32_t)s->param + s->catchall + s->globstar + s->globs;
}

/* The prefixes with children at depth d - 1, into g->slots; their count. */
static size_t collect_parents(like *g, uint32_t d)
{
    if (d == 1) {
        g->slots[0] = (slot){.parent = &g->root};
        return 1;
    }
    size_t n = 0;
    for (size_t i = 0; i < g->L[d - 1]; i++)
        if (g->lv[d - 1][i].nkids) g->slots[n++] = (slot){.parent = &g->lv[d - 1][i]};
    return n;
}

/* Prefixes with children at level j of the profile (the root: 1). */
static uint64_t parents_at(const rb_profile *p, uint32_t j)
{
    uint64_t ip = j == 0 ? 1 : rb_profile_level_sum(&p->level[j], RB_PF_INTERIOR);
    return ip ? ip : 1;
}

/* One param per chosen parent: alone (the parent's only child) or beside
 * static siblings, in the profile's proportion. */
static void choose_params(like *g, uint32_t d, slot *s, size_t n)
{
    const rb_profile_level *pl = &g->p->level[d], *up = &g->p->level[d - 1];
    uint64_t singles = 0;
    for (size_t i = 0; i < n; i++) singles += s[i].parent->nkids == 1;
    uint64_t multis = n - singles;
    uint64_t par = min_u64(
        n, round_div(g->L[d] * pl->kind[RB_PK_PARAM].nodes, rb_profile_level_sum(pl, RB_PF_NODES)));
    if (g->v2) /* one param a parent: as many parents with one as in the profile */
        par = min_u64(n, round_div(n * up->param_parents, parents_at(g->p, d - 1)));
    uint64_t with =
        round_div(par * up->param_with_static, up->param_parents ? up->param_parents : 1);
    uint64_t alone = par - with;
    if (alone > singles) {
        with += alone - singles;
        alone = singles;
    }
    if (with > multis) {
        alone = min_u64(singles, alone + with - multis);
        with = multis;
    }
    for (size_t i = 0; i < n; i++) {
        bool single = s[i].parent->nkids == 1;
        s[i].param = pick(g, single ? &singles : &multis, single ? &alone : &with);
    }
}

/* Up to want parents with a free slot (and ok(s)) get one child more of a
 * kind (set(s)); returns how many did. */
static uint64_t choose_one_each(like *g, slot *s, size_t n, uint64_t want, bool (*ok)(const slot *),
                                void (*set)(slot *))
{
    uint64_t eligible = 0;
    for (size_t i = 0; i < n; i++) eligible += s[i].parent->nkids > used(&s[i]) && ok(&s[i]);
    uint64_t need = min_u64(want, eligible), placed = need;
    for (size_t i = 0; i < n; i++)
        if (s[i].parent->nkids > used(&s[i]) && ok(&s[i]) && pick(g, &eligible, &need)) set(&s[i]);
    return placed;
}

static bool any_slot(const slot *s)
{
    (void)s;
    return true;
}

static bool no_catchall(const slot *s)
{
    return !s->catchall;
}

static void set_catchall(slot *s)
{
    s->catchall = true;
}

static void set_globstar(slot *s)
{
    s->globstar = true;
}

/* Globs: a few per chosen parent (distinct extensions, so at most
 * MAX_GLOBS).  Beside a param they are leaves and the param has no routes:
 * it must be one of the level's prefixes with children and no routes, and
 * the globs among its leaves.  Returns the globs placed. */
static uint64_t choose_globs(like *g, uint32_t d, slot *s, size_t n, uint64_t want,
                             uint64_t leaf_room)
{
    uint64_t forced_room = g->I[d] - g->O[d];
    uint64_t eligible = 0;
    for (size_t i = 0; i < n; i++) eligible += s[i].parent->nkids > used(&s[i]);
    uint64_t need = min_u64(want, eligible), extra = want - need, placed = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].parent->nkids <= used(&s[i]) || !pick(g, &eligible, &need)) continue;
        uint32_t room = s[i].parent->nkids - used(&s[i]), k = 1;
        if (room > MAX_GLOBS) room = MAX_GLOBS;
        while (extra > 0 && k < room && below(g, 2) == 0) {
            k++;
            extra--;
        }
        if (s[i].param) {
            if (forced_room == 0 || leaf_room < k) continue;
            forced_room--;
            leaf_room -= k;
        }
        s[i].globs = (uint8_t)k;
        placed += k;
    }
    return placed;
}

/* The children of every prefix at d - 1, in parent order: statics, the
 * param, globs, '**', the catch-all (step 3). */
static void make_children(like *g, uint32_t d)
{
    const rb_profile_level *pl = &g->p->level[d];
    uint64_t np = rb_profile_level_sum(pl, RB_PF_NODES), n = g->L[d], leaves = n - g->I[d];
    slot *s = g->slots;
    size_t ns = collect_parents(g, d);
    choose_params(g, d, s, ns);
    uint64_t cat = round_div(n * pl->kind[RB_PK_CATCHALL].nodes, np);
    uint64_t gst = round_div(n * pl->kind[RB_PK_GLOBSTAR].nodes, np);
    uint64_t tmpl = pl->kind[RB_PK_TEMPLATE].nodes, globs = pl->kind[RB_PK_GLOB].nodes + tmpl;
    uint64_t glb = round_div(n * globs, np);
    if (g->v2) { /* catch-alls, '**', globs and templates per parent, as in the profile */
        uint64_t up = parents_at(g->p, d - 1);
        cat = round_div(ns * pl->kind[RB_PK_CATCHALL].nodes, up);
        gst = round_div(ns * pl->kind[RB_PK_GLOBSTAR].nodes, up);
        glb = round_div(ns * globs, up);
        if (g->grown) /* the hubs' extra children hold their share of templates and globs */
            glb = round_div(n * globs, np);
    }
    /* catch-alls and '**' are leaves: at most the level's leaves */
    uint64_t placed_cat = choose_one_each(g, s, ns, min_u64(cat, leaves), any_slot, set_catchall);
    uint64_t placed_gst =
        choose_one_each(g, s, ns, min_u64(gst, leaves - placed_cat), no_catchall, set_globstar);
    uint64_t placed_glb = choose_globs(g, d, s, ns, glb, leaves - placed_cat - placed_gst);
    /* the globs' slot holds templates too: their share of what found no room */
    uint64_t short_glb = glb - placed_glb, short_tmpl = globs ? short_glb * tmpl / globs : 0;
    g->rep.demoted += cat + gst + short_glb - placed_cat - placed_gst - short_tmpl;
    g->rep.demoted_templates += short_tmpl;

    size_t at = 0;
    for (size_t i = 0; i < ns; i++) {
        lnode *x = s[i].parent;
        uint32_t nstatic = x->nkids - used(&s[i]);
        x->first = (uint32_t)at;
        lnode *y = &g->lv[d][at];
        memset(y, 0, x->nkids * sizeof *y);
        at += x->nkids;
        uint32_t c = 0;
        for (; c < nstatic; c++) y[c].kind = RB_PK_STATIC;
        if (s[i].param) {
            y[c].kind = RB_PK_PARAM;
            y[c++].flags = s[i].globs ? N_NO_ROUTES : 0;
        }
        for (uint32_t k = 0; k < s[i].globs; k++) {
            y[c].kind = RB_PK_GLOB;
            y[c++].flags = s[i].param ? N_LEAF : 0;
        }
        if (s[i].globstar) {
            y[c].kind = RB_PK_GLOBSTAR;
            y[c++].flags = N_LEAF;
        }
        if (s[i].catchall) {
            y[c].kind = RB_PK_CATCHALL;
            y[c++].flags = N_LEAF;
        }
    }
}

/* Quotas q[k] summing to total, proportional to weight[k], each at most
 * room[k] (the caller guarantees the rooms hold total). */
static void quotas(const uint64_t *weight, const uint64_t *room, uint64_t total, uint64_t *q)
{
    memset(q, 0, RB_PK_COUNT * sizeof *q);
    uint64_t given = 0;
    for (int round = 0; round <= RB_PK_COUNT && given < total; round++) {
        uint64_t w = 0, want = total - given;
        for (int k = 0; k < RB_PK_COUNT; k++)
            if (q[k] < room[k]) w += weight[k] ? weight[k] : 1;
        for (int k = 0; k < RB_PK_COUNT && w; k++) {
            if (q[k] >= room[k]) continue;
            uint64_t add = want * (weight[k] ? weight[k] : 1) / w;
            add = min_u64(add, min_u64(room[k] - q[k], total - given));
            q[k] += add;
            given += add;
        }
    }
    for (int k = 0; k < RB_PK_COUNT && given < total; k++) { /* rounding */
        uint64_t add = min_u64(room[k] - q[k], total - given);
        q[k] += add;
        given += add;
    }
}

/* v2: I prefixes with children among the kinds' rooms, the kinds the
 * profile gives children most often first (each up to its share of its
 * room, rounded up), then whatever room is left, in the same order.  So a
 * kind that always has children (Twilio's params) keeps them when the
 * level has fewer parents than the profile's shares ask (wider fan-out
 * below). */
static void quotas_by_share(const rb_profile_level *pl, const uint64_t *room, uint64_t total,
                            uint64_t *q)
{
    uint64_t share[RB_PK_COUNT];
    int order[RB_PK_COUNT];
    for (int k = 0; k < RB_PK_COUNT; k++) {
        const rb_profile_kind_counts *c = &pl->kind[k];
        share[k] = c->nodes ? c->interior * FX / c->nodes : 0;
        order[k] = k;
        q[k] = 0;
    }
    for (int i = 1; i < RB_PK_COUNT; i++) /* by share, descending; stable */
        for (int j = i; j > 0 && share[order[j]] > share[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < RB_PK_COUNT && total > 0; i++) {
            int k = order[i];
            uint64_t want = pass == 0 ? (room[k] * share[k] + FX - 1) / FX : room[k];
            uint64_t add = min_u64(total, want > q[k] ? want - q[k] : 0);
            q[k] += add;
            total -= add;
        }
}

/* Which prefixes of level d have children and which have routes: I[d] with
 * children, O[d] of them with routes too, the rest of the routes on the
 * leaves; by kind in the profile's proportions at that depth. */
static void choose_roles(like *g, uint32_t d)
{
    const rb_profile_level *pl = &g->p->level[d];
    lnode *v = g->lv[d];
    size_t n = (size_t)g->L[d];
    uint64_t room[RB_PK_COUNT] = {0}, weight[RB_PK_COUNT], q[RB_PK_COUNT], forced = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].flags & N_NO_ROUTES) {
            v[i].flags |= N_INTERIOR;
            forced++;
        } else if (!(v[i].flags & N_LEAF)) {
            room[v[i].kind]++;
        }
    }
    uint64_t np = rb_profile_level_sum(pl, RB_PF_NODES),
             ip = rb_profile_level_sum(pl, RB_PF_INTERIOR);
    for (int k = 0; k < RB_PK_COUNT; k++) {
        const rb_profile_kind_counts *c = &pl->kind[k];
        uint64_t share = c->nodes ? c->interior * FX / c->nodes : ip * FX / np; /* x FX */
        weight[k] = room[k] * share;
    }
    if (g->v2)
        quotas_by_share(pl, room, g->I[d] - forced, q);
    else
        quotas(weight, room, g->I[d] - forced, q);
    for (size_t i = 0; i < n; i++)
        if (!(v[i].flags & (N_NO_ROUTES | N_LEAF)) && pick(g, &room[v[i].kind], &q[v[i].kind]))
            v[i].flags |= N_INTERIOR;
    /* of those with children (not forced), O[d] have routes too */
    uint64_t have[RB_PK_COUNT] = {0};
    for (size_t i = 0; i < n; i++)
        if ((v[i].flags & (N_INTERIOR | N_NO_ROUTES)) == N_INTERIOR) have[v[i].kind]++;
    for (int k = 0; k < RB_PK_COUNT; k++) {
        const rb_profile_kind_counts *c = &pl->kind[k];
        uint64_t share = c->interior ? c->both * FX / c->interior : FX / 2;
        weight[k] = have[k] * share;
    }
    quotas(weight, have, g->O[d], q);
    for (size_t i = 0; i < n; i++) {
        if (!(v[i].flags & N_INTERIOR))
            v[i].flags |= N_TERMINAL;
        else if (!(v[i].flags & N_NO_ROUTES) && pick(g, &have[v[i].kind], &q[v[i].kind]))
            v[i].flags |= N_TERMINAL;
    }
}

/* Routes per path at level d: the methods-per-path histogram, adjusted so
 * the level has exactly R[d]. */
static void choose_route_counts(like *g, uint32_t d)
{
    lnode *v = g->lv[d];
    size_t n = (size_t)g->L[d];
    uint64_t w[KMAX];
    for (uint32_t k = 0; k < KMAX; k++) w[k] = g->p->methods_per_path[k + 1];
    w[KMAX - 1] += g->p->methods_per_path[KMAX + 1]; /* 10 a path: 9 here */
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(v[i].flags & N_TERMINAL)) continue;
        int k = draw(g, w, KMAX);
        v[i].routes = (uint8_t)(k < 0 ? 1 : k + 1);
        sum += v[i].routes;
    }
    /* sweep from a random start, one route at a time */
    size_t at = n ? (size_t)below(g, n) : 0;
    while (sum != g->R[d]) {
        lnode *x = &v[at];
        if (x->flags & N_TERMINAL) {
            if (sum < g->R[d] && x->routes < KMAX) {
                x->routes++;
                sum++;
            } else if (sum > g->R[d] && x->routes > 1) {
                x->routes--;
                sum--;
            }
        }
        at = (at + 1) % n;
    }
}

/* The least fan-out of f's bucket (1, 2, 4, 8, ...). */
static uint64_t fan_floor(uint64_t f)
{
    return UINT64_C(1) << rb_profile_fanout_bucket(f);
}

/* v2: the children the drawn fan-outs (in v[i].first) lack or exceed,
 * want - sum.  Lacking, they go to the level's hubs: its widest prefixes,
 * the fewest whose drawn children are at least the lack over HUB_GROWTH,
 * each in proportion to its drawn children.  So a real API's growth: more
 * resources under its widest collections, while every other prefix keeps
 * its drawn fan-out and its bucket.  Exceeding, they are taken from every
 * prefix within its bucket, in proportion to what it has above its
 * bucket's least.  Counts go into nkids; false (nothing written) when that
 * cannot take enough. */
static bool fanouts_to_hubs(like *g, lnode *v, size_t n, uint64_t sum, uint64_t want)
{
    bool give = want >= sum;
    uint64_t diff = give ? want - sum : sum - want, weight = 0, hubs = 0;
    uint32_t *count = g->fan_count, t = FAN_VALUES; /* hubs: wider than t, and hubs of t */
    memset(count, 0, FAN_VALUES * sizeof *count);
    for (size_t i = 0; i < n; i++)
        if (v[i].flags & N_INTERIOR) count[v[i].first]++;
    if (give) {
        uint64_t goal = (diff + HUB_GROWTH - 1) / HUB_GROWTH;
        while (t > 1 && weight < goal) {
            t--;
            for (uint32_t k = 0; k < count[t] && weight < goal; k++) {
                weight += t;
                hubs++;
            }
        }
    } else {
        for (size_t i = 0; i < n; i++)
            if (v[i].flags & N_INTERIOR) weight += v[i].first - fan_floor(v[i].first);
        if (weight < diff) return false;
        t = 1;
        hubs = n;
    }
    uint64_t at_t = hubs, cum = 0, prev = 0;
    for (uint32_t f = t + 1; f < FAN_VALUES; f++) at_t -= count[f];
    for (size_t i = 0; i < n; i++) {
        if (!(v[i].flags & N_INTERIOR)) continue;
        uint64_t f = v[i].first;
        v[i].nkids = (uint32_t)f;
        if (f < t || (f == t && at_t == 0)) continue;
        if (f == t) at_t--;
        cum += give ? f : f - fan_floor(f); /* the share, rounded cumulatively */
        uint64_t upto = weight ? (cum * diff + weight / 2) / weight : 0;
        v[i].nkids = (uint32_t)(give ? f + (upto - prev) : f - (upto - prev));
        prev = upto;
    }
    return true;
}

/* The prefixes with children of v (n) shared among the fan-out buckets in
 * hist's proportions (largest remainders) into q. */
static void fan_quotas(const lnode *v, size_t n, const uint64_t *hist, uint64_t *q)
{
    uint64_t m = 0, total = 0, given = 0, rem[RB_PROFILE_FANOUT_BUCKETS];
    for (size_t i = 0; i < n; i++) m += (v[i].flags & N_INTERIOR) != 0;
    for (int b = 0; b < RB_PROFILE_FANOUT_BUCKETS; b++) total += hist[b];
    for (int b = 0; b < RB_PROFILE_FANOUT_BUCKETS; b++) {
        q[b] = total ? m * hist[b] / total : 0;
        rem[b] = total ? m * hist[b] % total : 0;
        given += q[b];
    }
    while (total && given < m) {
        int best = 0;
        for (int b = 1; b < RB_PROFILE_FANOUT_BUCKETS; b++)
            if (rem[b] > rem[best]) best = b;
        q[best]++;
        rem[best] = 0;
        given++;
    }
}

/* Children per prefix at level d: drawn from the profile's fan-out at that
 * depth; v1 scales them all so they sum to L[d + 1], v2 gives the
 * difference to the level's hubs (fanouts_to_hubs). */
static void choose_fanouts(like *g, uint32_t d)
{
    uint64_t total = g->L[d + 1];
    if (d == 0) {
        g->root.nkids = (uint32_t)total;
        return;
    }
    lnode *v = g->lv[d];
    size_t n = (size_t)g->L[d];
    const uint64_t *hist = g->p->level[d].fanout;
    uint64_t sum = 0, quota[RB_PROFILE_FANOUT_BUCKETS];
    if (g->v2) /* the profile's buckets in its proportions, drawn without replacement */
        fan_quotas(v, n, hist, quota);
    for (size_t i = 0; i < n; i++) {
        if (!(v[i].flags & N_INTERIOR)) continue;
        int b = g->v2 ? draw(g, quota, RB_PROFILE_FANOUT_BUCKETS)
                      : draw(g, hist, RB_PROFILE_FANOUT_BUCKETS);
        if (g->v2 && b >= 0) quota[b]--;
        uint64_t lo = UINT64_C(1) << (b < 0 ? 0 : b);
        v[i].first = (uint32_t)(lo + below(g, lo)); /* a weight for now */
        sum += v[i].first;
    }
    if (g->v2 && fanouts_to_hubs(g, v, n, sum, total)) {
        for (size_t i = 0; i < n; i++) {
            v[i].first = 0;
            if (v[i].nkids > g->rep.max_fanout) g->rep.max_fanout = v[i].nkids;
        }
        return;
    }
    /* scaled by total / sum with cumulative rounding (exact total, each
     * count within one of its share); a count rounded to 0 takes 1 from
     * the next count above 1 */
    uint64_t cum = 0, prev = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(v[i].flags & N_INTERIOR)) continue;
        cum += v[i].first;
        uint64_t upto = (cum * total + sum / 2) / sum;
        v[i].nkids = (uint32_t)(upto - prev);
        prev = upto;
    }
    uint64_t zeros = 0;
    for (size_t i = 0; i < n; i++)
        if ((v[i].flags & N_INTERIOR) && v[i].nkids == 0) {
            v[i].nkids = 1;
            zeros++;
        }
    size_t at = (size_t)below(g, n);
    while (zeros > 0) {
        if ((v[at].flags & N_INTERIOR) && v[at].nkids > 1) {
            v[at].nkids--;
            zeros--;
        }
        at = (at + 1) % n;
    }

    for (size_t i = 0; i < n; i++) {
        v[i].first = 0;
        if (v[i].nkids > g->rep.max_fanout) g->rep.max_fanout = v[i].nkids;
    }
}

/* An extension index drawn from the profile's extensions (uniform when it
 * names none, or for its "other" ones). */
static uint32_t draw_ext(like *g)
{
    int e = draw(g, g->ext_w, RB_PROFILE_EXT_NAMES);
    if (e < 0) return (uint32_t)below(g, NEXTS);
    return e < (int)NEXTS ? (uint32_t)e : (uint32_t)(NEXTS + below(g, NALL - NEXTS));
}

/* The form of a template in the glob slot, drawn from the profile's: 4
 * {sid}.e, 7 {sid}-{rev}.e, or 6 xy_{sid} (one a parent: it has no
 * extension to keep it apart from its siblings). */
static uint32_t template_form(like *g, bool bare_used)
{
    uint64_t w[RB_TFORM_COUNT];
    memcpy(w, g->p->template_forms, sizeof w);
    if (bare_used) w[RB_TFORM_AFFIX] = 0;
    int f = draw(g, w, RB_TFORM_COUNT);
    return f == RB_TFORM_AFFIX ? 6 : f == RB_TFORM_MULTI ? 7 : 4;
}

/* v2: a template sibling of form 4 or 7 with an extension drawn from the
 * profile's.  Siblings may share an extension when their forms differ
 * ({sid}.json, {sid}-{rev}.json, xy_{sid}.json: none takes all of
 * another's paths), but not with a glob (*.json takes them all).  False
 * when every extension is taken. */
static bool template_ext(like *g, lnode *y, uint32_t form, uint64_t glob_ext, uint8_t *forms)
{
    static const uint32_t order[3] = {4, 7, 8};
    uint32_t e = draw_ext(g);
    for (uint32_t t = 0; t < NALL; t++, e = (uint32_t)((e + 1) % NALL)) {
        if (glob_ext & (UINT64_C(1) << e)) continue;
        for (uint32_t k = 0; k < 3; k++) {
            uint32_t f = k == 0 ? form : order[k == 1 && form == 7 ? 0 : k];
            uint8_t bit = (uint8_t)(1u << (f == 4 ? 0 : f == 7 ? 1 : 2));
            if (forms[e] & bit) continue;
            forms[e] |= bit;
            y->ext = (uint8_t)e;
            y->flags |= N_EXT;
            y->len = (uint8_t)f;
            y->code = below(g, word_space(4));
            return true;
        }
    }
    return false;
}

/* Words for the static and glob children of every prefix at d - 1 (step 4). */
static void choose_words(like *g, uint32_t d)
{
    const rb_profile *p = g->p;
    const rb_profile_level *pl = &p->level[d];
    uint64_t statics = pl->kind[RB_PK_STATIC].nodes;
    /* extensions go on leaves (a file is a leaf), at the profile's rate
     * among its static leaves */
    uint64_t static_leaves = statics - pl->kind[RB_PK_STATIC].interior;
    uint64_t ext_rate = min_u64(pl->extensions, static_leaves);
    uint64_t wl[RB_PROFILE_WORD_LENGTHS];
    for (int l = 0; l < RB_PROFILE_WORD_LENGTHS; l++) wl[l] = p->word_length[l + 1];
    bool no_lengths = draw(g, wl, RB_PROFILE_WORD_LENGTHS) < 0;
    uint64_t tmpl = pl->kind[RB_PK_TEMPLATE].nodes, globs = pl->kind[RB_PK_GLOB].nodes + tmpl;
    size_t ns = collect_parents(g, d);
    for (size_t i = 0; i < ns; i++) {
        lnode *x = g->slots[i].parent;
        uint64_t salt = rb_rng_next(&g->rng), count[RB_PROFILE_WORD_LENGTHS + 2] = {0};
        uint64_t versions = 0;
        uint64_t ext_used = 0, glob_ext = 0;
        uint8_t tmpl_forms[NALL] = {0}; /* v2: template forms (bits) used per extension */
        bool empty_used = false, bare_used = false;
        for (uint32_t c = 0; c < x->nkids; c++) {
            lnode *y = &g->lv[d][x->first + c];
            if (y->kind == RB_PK_GLOB) {
                /* form: 0 *.e, 1 pre-*.e, 2 pre-??.e, 3 [a-f]*.e, 4 {sid}.e
                 * (a template: as often as the profile has them), 5 pre-*
                 * (once) */
                uint32_t form = 4;
                if (!chance(g, tmpl, globs)) {
                    /* without an extension as often as the profile's routes */
                    bool bare = !bare_used && chance(g, p->routes - p->extension, p->routes);
                    form = bare ? 5 : (uint32_t)below(g, 4);
                }
                if (g->v2 && form == 4) form = template_form(g, bare_used);
                if (g->v2 && (form == 4 || form == 7) &&
                    template_ext(g, y, form, glob_ext, tmpl_forms))
                    continue;
                if (form == 6 && bare_used) form = 4;
                if (form == 5 || form == 6 || ext_used == (UINT64_C(1) << NEXTS) - 1) {
                    if (form != 6) form = 5;
                    bare_used = true;
                } else {
                    uint32_t e = g->v2 ? draw_ext(g) : (uint32_t)below(g, NEXTS);
                    while (ext_used & (UINT64_C(1) << e) || (tmpl_forms[e] && form < 4))
                        e = (uint32_t)((e + 1) % (g->v2 ? NALL : NEXTS));
                    ext_used |= UINT64_C(1) << e;
                    if (form < 4) glob_ext |= UINT64_C(1) << e;
                    y->ext = (uint8_t)e;
                    y->flags |= N_EXT;
                }
                y->len = (uint8_t)form;
                y->code = below(g, word_space(4));
                continue;
            }
            if (y->kind != RB_PK_STATIC) continue;
            bool leaf = !(y->flags & N_INTERIOR);
            if (leaf && !empty_used && chance(g, pl->empties, statics)) {
                y->flags |= N_EMPTY;
                empty_used = true;
                continue;
            }
            if (g->v2 ? chance(g, pl->versions * GX, statics * g->gl[d - 1])
                      : chance(g, pl->versions, statics)) {
                y->flags |= N_VERSION;
                y->code = versions++;
                continue;
            }
            uint32_t len = no_lengths ? 4 + (uint32_t)below(g, 5)
                                      : 1 + (uint32_t)draw(g, wl, RB_PROFILE_WORD_LENGTHS);
            if (leaf && chance(g, ext_rate, static_leaves)) {
                y->flags |= N_EXT;
                y->ext = (uint8_t)(g->v2 ? draw_ext(g) : below(g, NEXTS));
                size_t el = strlen(ext_text(y->ext)) + 1;
                len = len > el + 1 ? len - (uint32_t)el : 1;
            }
            while (count[len] >= word_space(len) && len < RB_PROFILE_WORD_LENGTHS + 1) len++;
            y->len = (uint8_t)len;
            y->code = word_code(count[len]++, salt, len);
        }
    }
}

/* ---- the write ---------------------------------------------------------------------- */

static bool push(like *g, const char *seg, size_t len)
{
    bool ok = rb__path_push(g->path, sizeof g->path, &g->path_len, seg, len);
    if (!ok) g->rc = RB_ELIMIT;
    return ok;
}

/* A capture name distinct from those above it on the path. */
static void capture_name(like *g, const char *base)
{
    char *out = g->names[g->nnames];
    snprintf(out, sizeof g->names[0], "%s", base);
    for (uint32_t k = 2;; k++) {
        bool clash = false;
        for (uint32_t i = 0; i < g->nnames && !clash; i++) clash = strcmp(g->names[i], out) == 0;
        if (!clash) break;
        snprintf(out, sizeof g->names[0], "%s%u", base, k);
    }
    g->nnames++;
}

/* The segment text of x (parent: the prefix above it, or NULL at depth 1). */
static size_t segment(like *g, const lnode *x, const lnode *parent, char *out)
{
    char w[64];
    size_t n;
    switch (x->kind) {
    case RB_PK_STATIC:
        if (x->flags & N_EMPTY) return 0;
        if (x->flags & N_VERSION)
            return (size_t)snprintf(out, 64, "v%llu", (unsigned long long)x->code + 1);
        n = word_text(x->len, x->code, out);
        if (x->flags & N_EXT) n += (size_t)snprintf(out + n, 64 - n, ".%s", ext_text(x->ext));
        return n;
    case RB_PK_PARAM:
        if (parent && parent->kind == RB_PK_STATIC && !(parent->flags & (N_EMPTY | N_EXT)) &&
            parent->len <= 24) {
            size_t k =
                parent->flags & N_VERSION
                    ? (size_t)snprintf(w, sizeof w, "v%llu", (unsigned long long)parent->code + 1)
                    : word_text(parent->len, parent->code, w);
            snprintf(w + k, sizeof w - k, "_id");
        } else {
            snprintf(w, sizeof w, "id");
        }
        capture_name(g, w);
        return (size_t)snprintf(out, 64, g->brace ? "{%s}" : ":%s", g->names[g->nnames - 1]);
    case RB_PK_GLOBSTAR:
        return (size_t)snprintf(out, 64, "**");
    case RB_PK_CATCHALL:
        capture_name(g, "path");
        return (size_t)snprintf(out, 64, g->brace ? "{*%s}" : "*%s", g->names[g->nnames - 1]);
    default: /* glob */
        word_text(3, x->code, w);
        w[3] = '\0';
        switch (x->len) {
        case 0:
            return (size_t)snprintf(out, 64, "*.%s", ext_text(x->ext));
        case 1:
            return (size_t)snprintf(out, 64, "%s-*.%s", w, ext_text(x->ext));
        case 2:
            return (size_t)snprintf(out, 64, "%s-??.%s", w, ext_text(x->ext));
        case 3:
            return (size_t)snprintf(out, 64, "[a-f]*.%s", ext_text(x->ext));
        case 4: /* a template, where the profile has them */
            capture_name(g, "sid");
            return (size_t)snprintf(out, 64, "{%s}.%s", g->names[g->nnames - 1], ext_text(x->ext));
        case 6:
            capture_name(g, "sid");
            return (size_t)snprintf(out, 64, "%.2s_{%s}", w, g->names[g->nnames - 1]);
        case 8:
            capture_name(g, "sid");
            return (size_t)snprintf(out, 64, "%.2s_{%s}.%s", w, g->names[g->nnames - 1],
                                    ext_text(x->ext));
        case 7:
            capture_name(g, "sid");
            capture_name(g, "rev");
            return (size_t)snprintf(out, 64, "{%s}-{%s}.%s", g->names[g->nnames - 2],
                                    g->names[g->nnames - 1], ext_text(x->ext));
        default:
            return (size_t)snprintf(out, 64, "%s-*", w);
        }
    }
}

/* k distinct methods, drawn from what is left of each method's quota (N x
 * its share in the profile), so the table's mix is the profile's; a method
 * the path has already taken is skipped ('*' counts as one method). */
static void emit_routes(like *g, uint32_t k)
{
    uint64_t w[RB_PROFILE_METHODS];
    memcpy(w, g->quota, sizeof w);
    static const int fallback[] = {RB_GET,  RB_POST,    RB_PUT,   RB_DELETE, RB_PATCH,
                                   RB_HEAD, RB_OPTIONS, RB_TRACE, RB_CONNECT};
    bool taken[RB_PROFILE_METHODS] = {false};
    for (uint32_t i = 0; i < k && g->rc == RB_OK; i++) {
        int m = draw(g, w, RB_PROFILE_METHODS);
        for (size_t f = 0; m < 0 && f < sizeof fallback / sizeof fallback[0]; f++)
            if (!taken[fallback[f]]) m = fallback[f];
        taken[m] = true;
        w[m] = 0;
        if (g->quota[m]) g->quota[m]--;
        g->rc = rb_route_table_append(g->out, m, g->path, g->path_len, 0);
    }
}

static void write_node(like *g, uint32_t d, const lnode *x, const lnode *parent)
{
    if (g->rc < 0) return;
    size_t saved_len = g->path_len;
    uint32_t saved_names = g->nnames;
    char seg[64];
    size_t n = segment(g, x, parent, seg);
    if (!push(g, seg, n)) return;
    if (x->flags & N_TERMINAL) emit_routes(g, x->routes);
    for (uint32_t c = 0; c < x->nkids && g->rc == RB_OK; c++)
        write_node(g, d + 1, &g->lv[d + 1][x->first + c], x);
    g->path_len = saved_len;
    g->nnames = saved_names;
}

/* ---- public ------------------------------------------------------------------------ */

/* The prefixes and (about) the pattern bytes of the planned table. */
static void planned_size(const like *g, uint64_t *prefixes, uint64_t *table)
{
    const rb_profile *p = g->p;
    uint64_t words = 0, bytes = 0;
    for (int l = 1; l <= RB_PROFILE_WORD_LENGTHS; l++) {
        words += p->word_length[l];
        bytes += (uint64_t)l * p->word_length[l];
    }
    uint64_t seg = 2 + (words ? bytes / words : 6); /* '/', a word, a little more */
    *prefixes = *table = 0;
    for (uint32_t d = 1; d <= g->depth; d++) {
        *prefixes += g->L[d];
        *table += g->R[d] * d * seg;
    }
}

static bool fits(uint64_t prefixes, uint64_t table)
{
    return prefixes <= RB_LIKE_MAX_PREFIXES && table <= RB_LIKE_MAX_TABLE_BYTES;
}

/* Refuse a table past RB_LIKE_MAX_PREFIXES or RB_LIKE_MAX_TABLE_BYTES
 * before anything is allocated, naming the most routes that fit (planned
 * again on a copy, by bisection). */
static int check_size(const like *g, uint64_t n, rb_error *err)
{
    uint64_t prefixes, table;
    planned_size(g, &prefixes, &table);
    if (fits(prefixes, table)) return RB_OK;
    like *t = malloc(sizeof *t);
    if (!t) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    uint64_t lo = 0, hi = n - 1; /* the most that fit: in [lo, hi] */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2, pm, tm;
        *t = *g;
        plan_routes(t, mid);
        plan_levels(t);
        planned_size(t, &pm, &tm);
        if (fits(pm, tm))
            lo = mid;
        else
            hi = mid - 1;
    }
    free(t);
    if (prefixes > RB_LIKE_MAX_PREFIXES)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET,
                         "%llu routes like this profile (depth up to %u) would hold %llu "
                         "prefixes, more than the %llu a generated table may hold: ask for at "
                         "most %llu routes",
                         (unsigned long long)n, g->depth, (unsigned long long)prefixes,
                         (unsigned long long)RB_LIKE_MAX_PREFIXES, (unsigned long long)lo);
    return rb__error(err, RB_ELIMIT, RB_NO_OFFSET,
                     "%llu routes like this profile (depth up to %u) would hold about %llu MB of "
                     "patterns, more than the %llu MB a generated table may hold: ask for at most "
                     "%llu routes",
                     (unsigned long long)n, g->depth, (unsigned long long)(table >> 20),
                     (unsigned long long)(RB_LIKE_MAX_TABLE_BYTES >> 20), (unsigned long long)lo);
}

static int build(like *g, rb_error *err)
{
    plan_levels(g);
    int rc = check_size(g, g->want, err);
    if (rc < 0) return rc;
    for (uint32_t j = 0; j < g->depth; j++) g->rep.grown_levels += g->gl[j] > GX;
    uint64_t roots = rb_profile_level_sum(&g->p->level[1], RB_PF_NODES);
    g->rep.profile_root_fanout = (uint32_t)roots;
    g->rep.root_fanout = (uint32_t)g->L[1];
    g->rep.max_depth = g->depth;
    uint64_t most = 1;
    for (uint32_t d = 1; d <= g->depth; d++) {
        if (g->L[d] > UINT32_MAX)
            return rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "level %u is too large", d);
        g->rep.prefixes += g->L[d];
        if (g->L[d] > most) most = g->L[d];
        g->lv[d] = malloc((size_t)g->L[d] * sizeof *g->lv[d]);
        if (!g->lv[d]) return RB_ENOMEM;
    }
    g->slots = malloc((size_t)most * sizeof *g->slots);
    if (!g->slots) return RB_ENOMEM;
    g->fan_count = malloc(FAN_VALUES * sizeof *g->fan_count);
    if (!g->fan_count) return RB_ENOMEM;
    choose_fanouts(g, 0);
    g->rep.max_fanout = g->root.nkids;
    for (uint32_t d = 1; d <= g->depth; d++) {
        make_children(g, d);
        choose_roles(g, d);
        choose_route_counts(g, d);
        if (d < g->depth) choose_fanouts(g, d);
        choose_words(g, d);
    }
    for (uint32_t c = 0; c < g->root.nkids && g->rc == RB_OK; c++)
        write_node(g, 1, &g->lv[1][c], NULL);
    return g->rc;
}

int rb_corpus_generate_like(const rb_profile *p, const rb_like_config *cfg, rb_route_table *out,
                            rb_like_report *rep, rb_error *err)
{
    memset(out, 0, sizeof *out);
    if (rep) memset(rep, 0, sizeof *rep);
    if (cfg->routes < 1 || cfg->routes > RB_GEN_MAX_ROUTES)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "--routes must be from 1 to %u, got %zu",
                         RB_GEN_MAX_ROUTES, cfg->routes);
    rb_error verr;
    if (rb_profile_validate(p, &verr) < 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "the profile is inconsistent: %s",
                         verr.message);
    if (p->routes > PROFILE_MAX)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "the profile holds %llu routes; at most 2^32 can be generated from",
                         (unsigned long long)p->routes);
    if (cfg->model > RB_LIKE_V2)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "the model must be v1 or v2");
    uint64_t templates = 0;
    for (uint32_t d = 1; d <= RB_PROFILE_DEPTHS; d++)
        templates += p->level[d].kind[RB_PK_TEMPLATE].nodes;
    if (cfg->param_syntax == RB_LIKE_SYNTAX_COLON && templates)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "the profile has %llu templates ({sid}.json), which only the {id} syntax "
                         "writes: use the brace syntax",
                         (unsigned long long)templates);
    like *g = calloc(1, sizeof *g);
    if (!g) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    g->p = p;
    g->out = out;
    g->want = cfg->routes;
    g->rep.profile_routes = p->routes;
    g->v2 = cfg->model != RB_LIKE_V1;
    if (g->v2) {
        /* the source's syntax: the one most of its params use, braces when
         * it has templates and no params */
        const uint64_t *ps = p->param_syntax;
        g->brace = cfg->param_syntax == RB_LIKE_SYNTAX_BRACE ||
                   (cfg->param_syntax == RB_LIKE_SYNTAX_SOURCE &&
                    (ps[RB_PSYN_BRACE] > ps[RB_PSYN_COLON] ||
                     (ps[RB_PSYN_BRACE] == ps[RB_PSYN_COLON] && templates > 0)));
        memcpy(g->ext_w, p->ext_names, sizeof g->ext_w);
    }
    g->rep.brace = g->brace;
    g->rep.growth_milli = 1000;
    rb_rng_seed(&g->rng, cfg->seed);
    plan_routes(g, cfg->routes);
    plan_methods(g, cfg->routes);
    int rc = build(g, err);
    if (rc == RB_ENOMEM)
        rb__error(err, rc, RB_NO_OFFSET, "out of memory generating %zu routes", cfg->routes);
    else if (rc == RB_ELIMIT && g->rc == RB_ELIMIT) /* the write's (check_size says its own) */
        rb__error(err, rc, RB_NO_OFFSET, "a generated path is longer than %u bytes", MAX_PATH);
    else if (rc == RB_OK && out->count != cfg->routes)
        rc = rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "internal error: generated %zu of %zu routes",
                       out->count, cfg->routes);
    if (rc == RB_OK && rep) *rep = g->rep;
    for (uint32_t d = 0; d <= RB_PROFILE_DEPTHS; d++) free(g->lv[d]);
    free(g->slots);
    free(g->fan_count);
    free(g);
    if (rc < 0) rb_route_table_free(out);
    return rc;
}
