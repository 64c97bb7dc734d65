/*
 * like.h — `corpus gen --like`: N routes shaped like a profile (profile.h),
 * every (method, shape) distinct, deterministic for a seed.  (From a
 * routes table, v3 copies the table's own tree instead: like_tree.c.)
 *
 * The table is built level by level, as a tree of prefixes:
 *
 *   1. Routes per depth.  Up to the profile's size: N x the profile's
 *      share at each depth (largest remainders, so they sum to N exactly).
 *      Beyond it (v2, the default for a profile), the growth model: real
 *      APIs grow by adding resources beside existing ones (more collections under an
 *      item, more top-level resources), never by stacking versions, so
 *      the prefixes of every level that can grow (one whose level below
 *      has static words that are not versions, or several versions, and
 *      is not a single word below a single prefix: a base path) get
 *      more children: the first such level (the root, or the version below
 *      it as in Twilio's /2010-04-01) by a factor a, every one below it by
 *      b, and each level's routes scale with its prefixes; below the first,
 *      a level holds a times the profile's prefixes with children, and the
 *      children that takes beyond their drawn fan-outs go to its hubs
 *      (its widest prefixes, step 3), so the other prefixes keep the
 *      profile's fan-out.  a is as small
 *      as keeps the routes by depth within RB_LIKE_DEPTH_TV_MILLI of the
 *      profile's (total variation), b then follows from N.  So the root
 *      (or the version) widens less than N/P, a single version stays
 *      single, and the table deepens its share a little.  v1 (--generator
 *      v1) keeps the depth distribution exact and widens only the root by
 *      N/P (Twilio at 10,000: /v1 .. /v51), byte-identical to the corpora
 *      made before v2.
 *   2. Prefixes per depth, bottom-up: the deepest level holds its paths;
 *      each level above holds its paths plus the prefixes with children
 *      the level below needs (its size over the profile's mean fan-out at
 *      that depth, times the growth there), less those that are both; the
 *      root takes every prefix of depth 1 as a child.  The report gives
 *      the growth factors and the root's fan-out against the profile's.
 *   3. Top-down, per level: the children of each prefix (counts drawn from
 *      the profile's fan-out histogram at that depth; v1 scales them all to
 *      the level's size; v2 when growing draws the buckets in the profile's
 *      proportions and gives the children lacking to the hubs, at most
 *      64 times their drawn children more, or takes a surplus within
 *      the buckets), their kinds (the profile's shares at that depth: at most one
 *      param, catch-all and '**' per parent; params alone or beside static
 *      siblings as often as in the profile; v2: params, catch-alls, '**',
 *      globs and templates as many per parent as in the profile, so growth
 *      adds static siblings), which have children and which routes (the
 *      profile's shares per kind; v2: the kinds that most often have
 *      children served first), how many routes each path
 *      has (the methods-per-path histogram, adjusted to the level's routes
 *      exactly) and which methods (the method mix, distinct per path).
 *   4. Words are synthetic, never the user's: consonant-vowel words with
 *      lengths drawn from the profile ("bopetu"), distinct among siblings by
 *      construction (an ordinal per parent and length, mapped through a
 *      bijection of the words of that length); version words "v1", "v2";
 *      extensions from the profile's (by name: json, xml, ... and "other";
 *      v1: uniformly from 24 common ones); param names from the parent
 *      word ("bopetu_id"), written :id or {id} (catch-alls *path or
 *      {*path}), one syntax a table: the profile's (most of its params) or
 *      the config's.  Templates are written in the profile's forms
 *      ({sid}.EXT, {sid}-{rev}.EXT, xy_{sid}), in the place and at the
 *      rate of its templates (they share the glob children's slot in the
 *      tree; siblings share an extension only in different forms).
 *   5. The tree is written depth-first: each prefix's routes, then its
 *      children's.
 *
 * Nothing is shadowed, by construction: catch-alls, '**' and empty words
 * (trailing slashes) are leaves; no catch-all beside a '**'; sibling globs
 * have distinct extensions (one without) so none is covered by the others;
 * a glob beside a param is a leaf and that param has no routes of its own
 * (the param would take the glob's paths); at most 9 routes a path, so a
 * '*' route always keeps a method.  `corpus check` confirms it (tests).
 *
 * Determinism: one rb_rng (stats/rng.h) from the seed, integer arithmetic
 * only (fixed-point factors), no libc rand, no floating point: the same
 * profile, N and seed give the same bytes on every machine.
 *
 * Cost: O(N) time; memory is the route table plus 24 bytes per prefix,
 * 16 per prefix with children of the largest level and 16 KB.  The profile must
 * hold at most 2^32 routes.  A table past RB_LIKE_MAX_PREFIXES prefixes or
 * RB_LIKE_MAX_TABLE_BYTES of patterns is refused before anything is
 * allocated (a deep profile: depth 32 at 1,000,000 routes would make tens
 * of millions of prefixes), naming the most routes that fit.
 */
#ifndef RB_CORPUS_LIKE_H
#define RB_CORPUS_LIKE_H

#include "profile.h"

#define RB_LIKE_V1 1u /* the first model: the root widens (kept for its published corpora) */
#define RB_LIKE_V2 2u /* the growth model above (the default for a profile) */
#define RB_LIKE_V3 3u /* the source's tree (like_tree.c; the default for a routes table) */

enum { RB_LIKE_SYNTAX_SOURCE, RB_LIKE_SYNTAX_COLON, RB_LIKE_SYNTAX_BRACE };

/* Tables larger than these are refused before anything is allocated (a
 * deep profile at 1,000,000 routes would otherwise hold tens of millions
 * of prefixes): prefixes made (the shape tree's nodes), and pattern bytes
 * (estimated from the word lengths, within a few percent). */
#define RB_LIKE_MAX_PREFIXES    (UINT64_C(2) << 20)
#define RB_LIKE_MAX_TABLE_BYTES (UINT64_C(128) << 20)
/* v2 keeps the routes by depth within this total variation of the
 * profile's (1/1000) */
#define RB_LIKE_DEPTH_TV_MILLI 100u

typedef struct rb_like_config {
    size_t routes; /* 1 .. RB_GEN_MAX_ROUTES */
    uint64_t seed;
    uint32_t model;   /* RB_LIKE_V1, RB_LIKE_V2; 0 means RB_LIKE_V2 */
    int param_syntax; /* RB_LIKE_SYNTAX_*: the source's (most of its params), ':id' or '{id}' (v2) */
} rb_like_config;

typedef struct rb_like_report {
    uint64_t profile_routes;
    uint32_t profile_root_fanout; /* children of "/" in the profile */
    uint32_t root_fanout;         /* ... and here */
    uint32_t max_fanout;          /* the most children of one prefix */
    uint32_t max_depth;           /* deepest route */
    uint64_t prefixes;            /* prefixes made (the shape tree's nodes, root excluded) */
    uint64_t demoted;           /* catch-alls, '**' or globs made static to keep the rules above */
    uint64_t demoted_templates; /* ... and templates */
    uint32_t growth_milli;      /* v2: the growth factor below the top x 1000 (1000: none) */
    uint32_t top_growth_milli;  /* v2: ... and at the top level that grows */
    uint32_t grown_levels;      /* v2: levels whose prefixes got more children */
    bool brace;                 /* params written {id} (else :id) */
    /* v3 */
    bool tree;              /* made by v3 (the fields below are its) */
    uint32_t copies;        /* copies of the resources written (the last one may be part) */
    uint32_t resources;     /* resources a copy (the static children of the prefix and beside) */
    uint64_t prefix_routes; /* routes of the source below its shared prefix */
    char prefix[256];       /* the shared prefix ("/2.0", "" when none) */
} rb_like_report;

/* Generate cfg->routes routes like p into *out (initialised here; free with
 * rb_route_table_free); rep may be NULL.  RB_EINVAL with a message when the
 * arguments are out of range, p is inconsistent (rb_profile_validate), or
 * ':id' syntax is asked of a profile with templates; RB_ELIMIT naming the
 * largest table that fits when the table would pass RB_LIKE_MAX_PREFIXES
 * or RB_LIKE_MAX_TABLE_BYTES; RB_ENOMEM.  On failure *out is empty. */
int rb_corpus_generate_like(const rb_profile *p, const rb_like_config *cfg, rb_route_table *out,
                            rb_like_report *rep, rb_error *err);

/* v3 (like_tree.c): cfg->routes routes like the table src itself: its
 * shape tree with synthetic words, its shared prefix as it is, grown by
 * copies of its resources (every static child of the prefix and of the
 * levels above it).  cfg->model and param_syntax are not used (the
 * source's syntax is kept).  RB_EINVAL (empty table, routes out of range),
 * RB_ELIMIT (more routes than copies can make: every route sits on the
 * prefix's levels or a path would pass 4096 bytes), RB_ENOMEM; on failure
 * *out is empty. */
int rb_corpus_generate_like_table(const rb_route_table *src, const rb_like_config *cfg,
                                  rb_route_table *out, rb_like_report *rep, rb_error *err);

/* like.c's words, for like_tree.c: the consonant-vowel words of len
 * letters, and the ordinal-th of them under a salt (distinct ordinals below
 * the space give distinct words). */
uint64_t rb__like_word_space(uint32_t len);
size_t rb__like_word(uint32_t len, uint64_t ordinal, uint64_t salt, char *out);

#endif
