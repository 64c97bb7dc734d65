/*
 * like_tree.c — `corpus gen --like` from a routes table (v3, like.h): the
 * source's own tree of shapes with synthetic words, grown by resources.
 *
 * A profile (profile.h) keeps counts only, so a table made from it loses
 * what a person sees first: the base path, where the params sit, which
 * params touch.  Given the table itself, v3 keeps its shape tree
 * (shape_tree.h) and renames its words:
 *
 *     source                          v3 at 3x the source's routes
 *     GET /2.0/files/{file_id}        GET /2.0/tagupo/{id}
 *     GET /2.0/files/{file_id}/tasks  GET /2.0/tagupo/{id}/besoz
 *     GET /2.0/users                  GET /2.0/mozid
 *                                     GET /2.0/rikafe/{id}       (copy 1)
 *                                     ...                         (copy 2)
 *
 *   - The shared prefix (rb_st_shared_prefix, shape_tree.h: the first static words
 *     nearly every route sits below, such as /2.0, /api/v10 or
 *     /2010-04-01) is written as it is, words and all.
 *   - The resources are the static children of the prefix (and of the
 *     levels above it, beside it).  Each copy writes every resource's
 *     subtree once, its words renamed: a consonant-vowel word of the same
 *     length, distinct among siblings by construction (like.c's word
 *     bijection, one ordinal per sibling); version words (v2, 2010-04-01)
 *     kept (a version that is a resource, /v1 beside /v2, is kept in copy
 *     0 and a fresh version, /v3, in the others); a real file extension
 *     (.json, rb_profile_extension_of) kept, a
 *     dotted name (chat.postMessage) renamed whole; param names id, id2,
 *     ...; templates and globs keep their wildcards, params and extension,
 *     their letters renamed.  The resources of copy c > 0 get fresh words
 *     (ordinals past copy c - 1's), so the copies never meet.
 *   - The rest (routes of the prefix's own levels, and non-static children
 *     of them, such as Twilio's {AccountSid} if it sat there) is written
 *     once.
 *   - N routes: the rest, then whole copies in the source's order, then
 *     the resources of one more copy in an order drawn from the seed, the
 *     last one cut to N in depth-first order.  Fewer routes than the
 *     source: the same, from copy 0.
 *
 * So at every size the depths, the kinds per position, params per route,
 * adjacent params, templates, catch-alls, methods and extensions are the
 * source's proportions (exactly at whole multiples), the prefix and its
 * share are the source's, and what grows is the number of resources below
 * the prefix.  Nothing is shadowed that is not in the source, and every
 * (method, shape) stays distinct: copies differ in their first word.
 *
 * Determinism: splitmix64 from the seed, no floating point.  Cost: O(N x
 * depth) time, the source's shape tree plus 24 bytes per source node.
 */
#include "like.h"

#include "generate.h"
#include "rng.h"
#include "shape_tree.h"
#include "base_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PATH   4096u
#define RETRIES    64u  /* renamings tried before a word is lengthened */
#define WORD_BYTES 256u /* a renamed word: at most this many bytes */

typedef struct tnode {
    uint32_t first_child, next_sibling; /* in source order */
    uint32_t word_off, word_len;        /* static, glob, template: the renamed text in words */
    uint8_t keep;                       /* static: written as it is (a version, the prefix) */
    uint8_t chain;                      /* the root or a word of the shared prefix */
    uint8_t unit;                       /* a resource: copied, its word fresh in every copy */
} tnode;

/* A set of 64-bit hashes (0 is empty): the words given under each parent,
 * so a renamed word never meets its siblings. */
typedef struct hset {
    uint64_t *slot;
    size_t cap, n;
} hset;

typedef struct tgen {
    const rb_shape_tree *st;
    tnode *t;
    char *words; /* renamed texts */
    size_t nwords, words_cap;
    hset given; /* (parent, kind, text) of every renamed word and kept sibling */
    uint64_t seed, budget;
    uint32_t prefix;       /* the shared prefix's node */
    uint32_t copy;         /* the copy being written */
    uint32_t unit;         /* the resource being written (a node) */
    uint32_t next_version; /* fresh_version's next try */
    char unit_word[WORD_BYTES + 8];
    size_t unit_len;
    rb_route_table *out;
    int rc;
    char path[MAX_PATH];
} tgen;

static uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t x = a ^ (b * UINT64_C(0x9e3779b97f4a7c15));
    return rb_splitmix64(&x);
}

static uint64_t text_hash(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * UINT64_C(0x100000001b3);
    return mix(h, n);
}

/* Add h; 1 added, 0 there already, RB_ENOMEM. */
static int hset_add(hset *s, uint64_t h)
{
    h |= 1; /* never 0 */
    if (2 * (s->n + 1) > s->cap) {
        size_t ncap = s->cap ? 2 * s->cap : 1024;
        uint64_t *ns = calloc(ncap, sizeof *ns);
        if (!ns) return RB_ENOMEM;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slot[i]) continue;
            size_t j = s->slot[i] & (ncap - 1);
            while (ns[j]) j = (j + 1) & (ncap - 1);
            ns[j] = s->slot[i];
        }
        free(s->slot);
        s->slot = ns;
        s->cap = ncap;
    }
    size_t j = h & (s->cap - 1);
    for (; s->slot[j]; j = (j + 1) & (s->cap - 1))
        if (s->slot[j] == h) return 0;
    s->slot[j] = h;
    s->n++;
    return 1;
}

/* One byte renamed within its class (lower case, upper case, digit; other
 * bytes kept): a rotation drawn from r, so a bijection at each position. */
static char rename_byte(char c, uint64_t r)
{
    if (c >= 'a' && c <= 'z') return (char)('a' + (c - 'a' + (int)(r % 26)) % 26);
    if (c >= 'A' && c <= 'Z') return (char)('A' + (c - 'A' + (int)(r % 26)) % 26);
    if (c >= '0' && c <= '9') return (char)('0' + (c - '0' + (int)(r % 10)) % 10);
    return c;
}

/* Rename s[0, n): each byte by a rotation keyed by key and the source's
 * bytes before it, so words sharing their first k bytes still do and
 * differ at the same byte (a radix tree of the renamed words has the
 * source's shape); template params ({...}) and glob classes ([...]) and a
 * trailing file extension kept.  Returns n. */
static size_t rename_text(const char *s, size_t n, uint64_t key, char *out)
{
    size_t at, k, keep_from = n;
    if (rb_profile_extension_of(s, n, &at, &k)) keep_from = at - 1;
    bool inside = false;
    uint64_t h = key;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '{' || c == '[') inside = true;
        out[i] = i >= keep_from || inside ? c : rename_byte(c, mix(h, i));
        if (c == '}' || c == ']') inside = false;
        h = mix(h, (unsigned char)c);
    }
    return n;
}

/* Is the renamed word w acceptable for a static node whose source word is
 * src: no version or file extension that the source word lacks. */
static bool word_ok(const char *src, size_t sn, const char *w, size_t n)
{
    if (rb_profile_is_version(w, n) && !rb_profile_is_version(src, sn)) return false;
    return rb_profile_has_extension(w, n) == rb_profile_has_extension(src, sn);
}

/* Add the text out[0, w) under parent as kind: 1 added, 0 given already
 * or not a word for src (a static word's version and extension stay as
 * src's), -1 out of memory (g->rc set). */
static int give_text(tgen *g, uint32_t parent, int kind, const char *src, size_t sn,
                     const char *out, size_t w)
{
    if (kind == RB_SEG_STATIC && !word_ok(src, sn, out, w)) return 0;
    int added = hset_add(&g->given, text_hash(mix(parent, (uint64_t)kind), out, w));
    if (added < 0) g->rc = RB_ENOMEM;
    return added;
}

/* The renamed text of node x (source text s[0, n)) under parent, distinct
 * from every text given under it: renamed with key, then with other keys,
 * then lengthened by a letter a round.  The letters go at the end; for a
 * word with a file extension that can never be a word again (cmd.htmlb),
 * so when those rounds are used up they go before the extension (cmdb.html):
 * a 2-letter stem has 676 renamings, and a million routes like a table of
 * 157 file names need more.  Into out (WORD_BYTES + 8). */
static size_t fresh_text(tgen *g, uint32_t parent, int kind, const char *s, size_t n, uint64_t key,
                         char *out)
{
    size_t len = n > WORD_BYTES ? WORD_BYTES : n;
    for (uint32_t stem = 0; stem < 2; stem++) {
        for (uint32_t round = stem; round <= 8; round++) {
            for (uint32_t attempt = 0; attempt < RETRIES; attempt++) {
                size_t w = rename_text(s, len, mix(key, attempt), out), at, k, end = w;
                if (stem && rb_profile_extension_of(out, w, &at, &k)) end = at - 1;
                memmove(out + end + round, out + end, w - end);
                for (uint32_t i = 0; i < round; i++)
                    out[end + i] = "bcdfghjklmnprstz"[mix(key, i) % 16];
                w += round;
                int added = give_text(g, parent, kind, s, n, out, w);
                if (added) return w;
            }
        }
    }
    g->rc = RB_ELIMIT;
    return 0;
}

static void keep_text(tgen *g, uint32_t parent, int kind, const char *s, size_t n)
{
    if (hset_add(&g->given, text_hash(mix(parent, (uint64_t)kind), s, n)) < 0) g->rc = RB_ENOMEM;
}

/* Template params renamed: {a}-{b} -> {id}-{id2}, counting from *caps. */
static size_t rename_params(const char *s, size_t n, uint32_t *caps, char *out, size_t cap)
{
    size_t w = 0;
    for (size_t i = 0; i < n && w + 16 < cap; i++) {
        if (s[i] != '{') {
            out[w++] = s[i];
            continue;
        }
        const char *close = memchr(s + i, '}', n - i);
        if (!close) {
            out[w++] = s[i];
            continue;
        }
        bool star = i + 1 < n && s[i + 1] == '*';
        (*caps)++;
        w += (size_t)(*caps == 1 ? snprintf(out + w, cap - w, "{%sid}", star ? "*" : "")
                                 : snprintf(out + w, cap - w, "{%sid%u}", star ? "*" : "", *caps));
        i = (size_t)(close - s);
    }
    return w;
}

/* The text of node x's segment, whose source text is seg[0, n); *caps
 * counts the captures so far on the path. */
static size_t segment(tgen *g, uint32_t x, const char *seg, size_t n, uint32_t *caps, char *out)
{
    const rb_st_node *sx = rb_st_node_at(g->st, x);
    const tnode *t = &g->t[x];
    switch (sx->kind) {
    case RB_SEG_STATIC:
        if (x == g->unit) {
            memcpy(out, g->unit_word, g->unit_len);
            return g->unit_len;
        }
        if (t->keep || n == 0) {
            memcpy(out, seg, n);
            return n;
        }
        memcpy(out, g->words + t->word_off, t->word_len);
        return t->word_len;
    case RB_SEG_PARAM:
        (*caps)++;
        if (seg[0] == ':')
            return (size_t)(*caps == 1 ? snprintf(out, 64, ":id")
                                       : snprintf(out, 64, ":id%u", *caps));
        return (size_t)(*caps == 1 ? snprintf(out, 64, "{id}")
                                   : snprintf(out, 64, "{id%u}", *caps));
    case RB_SEG_CATCHALL:
        if (seg[0] == '*') return (size_t)snprintf(out, 64, "*path");
        return (size_t)snprintf(out, 64, "{*path}");
    case RB_SEG_GLOBSTAR:
        memcpy(out, seg, n);
        return n;
    default: /* globs and templates */
        return rename_params(g->words + t->word_off, t->word_len, caps, out, MAX_PATH / 2);
    }
}

/* Write route r (its node's pattern, renamed). */
static void write_route(tgen *g, uint32_t r)
{
    const rb_route_table *src = g->st->table;
    const char *p = rb_route_pattern(src, r);
    size_t len = src->routes[r].len;
    uint32_t chain[MAX_PATH / 2], depth = 0, caps = 0;
    for (uint32_t x = g->st->route_node[r];
         x != RB_ST_ROOT && depth < sizeof chain / sizeof chain[0];
         x = rb_st_node_at(g->st, x)->parent)
        chain[depth++] = x;
    size_t w = 0, i = 0;
    for (uint32_t d = depth; d-- > 0;) {
        size_t start = i + 1, end = start;
        while (end < len && p[end] != '/') end++;
        char seg[MAX_PATH];
        size_t n = segment(g, chain[d], p + start, end - start, &caps, seg);
        if (w + 1 + n >= MAX_PATH) {
            g->rc = RB_ELIMIT;
            return;
        }
        g->path[w++] = '/';
        memcpy(g->path + w, seg, n);
        w += n;
        i = end;
    }
    if (w == 0) g->path[w++] = '/';
    int rc = rb_route_table_append(g->out, src->routes[r].method, g->path, w, 0);
    if (rc < 0) g->rc = rc;
}

/* The routes of x and below, depth-first, while the budget lasts; units
 * are skipped when skip_units (the rest is written once). */
static void write_subtree(tgen *g, uint32_t x, bool skip_units)
{
    const rb_st_node *n = rb_st_node_at(g->st, x);
    for (uint32_t k = 0; k < n->routes_count && g->budget > 0 && g->rc == RB_OK; k++) {
        write_route(g, g->st->route_list[n->routes_begin + k]);
        g->budget--;
    }
    for (uint32_t c = g->t[x].first_child; c != RB_ST_NONE && g->budget > 0 && g->rc == RB_OK;
         c = g->t[c].next_sibling)
        if (!(skip_units && g->t[c].unit)) write_subtree(g, c, skip_units);
}

/* Children lists, flags, and the renamed words of every node below the
 * units and of copy 0 (the words of a node's children all under one key,
 * the parent's, so siblings keep their shared first bytes). */
static void plan(tgen *g)
{
    const rb_shape_tree *st = g->st;
    uint32_t *last = malloc(st->nnodes * sizeof *last);
    if (!last) {
        g->rc = RB_ENOMEM;
        return;
    }
    for (size_t n = 0; n < st->nnodes; n++) {
        g->t[n] = (tnode){.first_child = RB_ST_NONE, .next_sibling = RB_ST_NONE};
        last[n] = RB_ST_NONE;
    }
    for (size_t n = 1; n < st->nnodes; n++) { /* parents come before children */
        uint32_t p = st->nodes[n].parent;
        if (last[p] == RB_ST_NONE)
            g->t[p].first_child = (uint32_t)n;
        else
            g->t[last[p]].next_sibling = (uint32_t)n;
        last[p] = (uint32_t)n;
    }
    free(last);
    for (uint32_t x = g->prefix;; x = st->nodes[x].parent) {
        g->t[x].chain = 1;
        g->t[x].keep = x != RB_ST_ROOT;
        if (x == RB_ST_ROOT) break;
    }
    /* kept words first, so no renamed sibling takes one */
    for (size_t n = 1; n < st->nnodes; n++) {
        const rb_st_node *x = &st->nodes[n];
        tnode *t = &g->t[n];
        const char *w = rb_st_text(st, x);
        if (x->kind != RB_SEG_STATIC) continue;
        if (g->t[x->parent].chain && !t->chain && x->text_len > 0)
            t->unit = 1; /* a resource beside or below the prefix */
        if (!t->chain && (rb_profile_is_version(w, x->text_len) || x->text_len == 0))
            t->keep = 1; /* a unit too: a version beside others */
        if (t->keep) keep_text(g, x->parent, x->kind, w, x->text_len);
    }
    for (size_t n = 1; n < st->nnodes && g->rc == RB_OK; n++) {
        const rb_st_node *x = &st->nodes[n];
        tnode *t = &g->t[n];
        bool text =
            x->kind == RB_SEG_STATIC || x->kind == RB_SEG_GLOB || x->kind == RB_SEG_TEMPLATE;
        if (!text || t->keep) continue;
        if (g->nwords + WORD_BYTES + 8 > g->words_cap) {
            size_t ncap = 2 * g->words_cap + 4096;
            char *nw = realloc(g->words, ncap);
            if (!nw) {
                g->rc = RB_ENOMEM;
                return;
            }
            g->words = nw;
            g->words_cap = ncap;
        }
        t->word_off = (uint32_t)g->nwords;
        t->word_len = (uint32_t)fresh_text(g, x->parent, x->kind, rb_st_text(st, x), x->text_len,
                                           mix(g->seed, x->parent), g->words + g->nwords);
        g->nwords += t->word_len;
    }
}

/* A version word no sibling under parent has ("v<k>", the least k from
 * where the last one was found), into g->unit_word. */
static void fresh_version(tgen *g, uint32_t parent)
{
    for (;; g->next_version++) {
        int n = snprintf(g->unit_word, sizeof g->unit_word, "v%u", g->next_version);
        int added =
            hset_add(&g->given, text_hash(mix(parent, RB_SEG_STATIC), g->unit_word, (size_t)n));
        if (added != 0) {
            if (added < 0) g->rc = RB_ENOMEM;
            g->unit_len = (size_t)n;
            return;
        }
    }
}

/* Write the units of copy g->copy, nodes node[0, nunits): copy 0 in the
 * words of plan(), later copies in fresh ones (keyed by the copy, still
 * distinct from every word given beside them). */
static void write_units(tgen *g, const uint32_t *node, uint32_t nunits)
{
    const rb_shape_tree *st = g->st;
    for (uint32_t i = 0; i < nunits && g->budget > 0 && g->rc == RB_OK; i++) {
        const rb_st_node *x = rb_st_node_at(st, node[i]);
        const tnode *t = &g->t[node[i]];
        g->unit = node[i];
        if (t->keep) { /* a version: kept in copy 0, a fresh version ("v7") in the others */
            if (g->copy == 0) {
                memcpy(g->unit_word, rb_st_text(st, x), x->text_len);
                g->unit_len = x->text_len;
            } else {
                fresh_version(g, x->parent);
            }
        } else if (g->copy == 0) {
            memcpy(g->unit_word, g->words + t->word_off, t->word_len);
            g->unit_len = t->word_len;
        } else {
            g->unit_len = fresh_text(g, x->parent, RB_SEG_STATIC, rb_st_text(st, x), x->text_len,
                                     mix(mix(g->seed, x->parent), g->copy), g->unit_word);
        }
        if (g->rc == RB_OK) write_subtree(g, node[i], false);
    }
    g->unit = RB_ST_NONE;
}

int rb_corpus_generate_like_table(const rb_route_table *src, const rb_like_config *cfg,
                                  rb_route_table *out, rb_like_report *rep, rb_error *err)
{
    memset(out, 0, sizeof *out);
    if (rep) memset(rep, 0, sizeof *rep);
    if (cfg->routes < 1 || cfg->routes > RB_GEN_MAX_ROUTES)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "--routes must be from 1 to %u, got %zu",
                         RB_GEN_MAX_ROUTES, cfg->routes);
    rb_shape_tree st;
    int rc = rb_shape_tree_build(src, &st, err);
    if (rc < 0) return rc;
    if (src->count == st.nduplicates) {
        rb_shape_tree_free(&st);
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "the table has no routes");
    }
    tgen g = {.st = &st,
              .seed = cfg->seed,
              .out = out,
              .rc = RB_OK,
              .budget = cfg->routes,
              .unit = RB_ST_NONE,
              .next_version = 1};
    uint64_t total = src->count - st.nduplicates, below = 0, unit_routes = 0;
    g.t = malloc(st.nnodes * sizeof *g.t);
    uint32_t *units = malloc(st.nnodes * sizeof *units), nunits = 0, copies = 0;
    uint64_t *sub = rb_st_subtree_routes(&st);
    if (!g.t || !units || !sub) {
        rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
        goto done;
    }
    g.prefix = rb_st_shared_prefix(&st, &below);
    plan(&g);
    for (uint32_t n = 1; n < st.nnodes; n++)
        if (g.t[n].unit) {
            units[nunits++] = n;
            unit_routes += sub[n];
        }
    if (g.rc == RB_OK) write_subtree(&g, RB_ST_ROOT, true); /* the rest, once */
    rb_rng rng;
    rb_rng_seed(&rng, cfg->seed);
    while (g.budget > 0 && g.rc == RB_OK && unit_routes > 0) {
        g.copy = copies++;
        if (g.budget < unit_routes) /* the last copy: its resources in a drawn order */
            for (uint32_t i = nunits; i > 1; i--) {
                uint32_t j = (uint32_t)rb_rng_below(&rng, i), t = units[i - 1];
                units[i - 1] = units[j];
                units[j] = t;
            }
        write_units(&g, units, nunits);
    }
    rc = g.rc;
    if (rc == RB_OK && out->count != cfg->routes)
        rc = rb__error(err, RB_ELIMIT, RB_NO_OFFSET,
                       "at most %llu routes like this table: every route sits on its first "
                       "levels, with no static word below them to grow beside (a resource)",
                       (unsigned long long)out->count);
    else if (rc == RB_ENOMEM)
        rb__error(err, rc, RB_NO_OFFSET, "out of memory generating %zu routes", cfg->routes);
    else if (rc == RB_ELIMIT)
        rb__error(err, rc, RB_NO_OFFSET,
                  "a generated path is longer than %u bytes, or a word has no distinct renaming",
                  MAX_PATH);
    if (rc == RB_OK && rep) {
        rep->profile_routes = total;
        rep->tree = true;
        rep->copies = copies;
        rep->resources = nunits;
        rep->prefix_routes = below;
        rb_st_shape(&st, g.prefix, rep->prefix, sizeof rep->prefix);
        if (g.prefix == RB_ST_ROOT) rep->prefix[0] = '\0';
    }
done:
    free(g.t);
    free(g.words);
    free(g.given.slot);
    free(units);
    free(sub);
    rb_shape_tree_free(&st);
    if (rc < 0) rb_route_table_free(out);
    return rc;
}
