/*
 * profile.h — the profile of a route table: what it looks like, without its
 * words.
 *
 * `corpus gen --like` makes tables like a user's own (like.h); this is what
 * "like" means.  A profile holds counts only (integers, so it round-trips
 * through JSON exactly and generation from it stays integer arithmetic):
 *
 *   depth              routes by depth (segments: "/" is 1, "/a/b" is 2)
 *   per depth d        the prefixes (shape tree nodes, corpus/shape_tree.h)
 *                      at depth d by the kind of their last segment: static,
 *                      param, template (a slot: templates such as
 *                      {name}.json), glob, '**',
 *                      catch-all; for each kind how many have children
 *                      (interior), routes of their own (terminal) or both;
 *                      the prefixes with children by number of children
 *                      (fan-out); how many have a param child, and of
 *                      those how many a static child too (static and param
 *                      siblings at one position, /users/me beside
 *                      /users/:id); the static words that are versions
 *                      (v2, 1, 2010-04-01), have a file extension
 *                      (Accounts.json) or are empty (a trailing slash)
 *   methods            routes by method (GET .. PATCH, then '*')
 *   methods per path   prefixes with routes by how many they have
 *   word length        static words (distinct prefixes) by length in bytes
 *   shares             routes with a trailing slash, with a version
 *                      segment, whose last segment has a file extension
 *   extension names    routes by the extension of their last segment
 *                      (static, glob or template), from a fixed list of
 *                      24 common ones (json, xml, ...) or "other"
 *   param syntax       param segments written ":id" or "{id}"
 *   template forms     templates "{sid}.json", "us_{sid}", "{sid}-{rev}"
 *   shared prefix      the first static words nearly every route sits below
 *                      (/2.0, /api/v10: their text, the one place a word of
 *                      the table is kept) and the routes below them
 *   params             param segments summed over the routes, and the
 *                      routes with two in a row (/{owner}/{repo})
 *
 * Everything is counted on distinct (method, shape): exact and shape
 * duplicates (corpus check reports them) are left out.  Segments past the
 * 32nd are not profiled; such routes count at depth 32.
 *
 *     GET  /users              depth 1: static "users" (interior, terminal)
 *     POST /users
 *     GET  /users/me           depth 2: static "me" beside param ":id"
 *     GET  /users/:id          depth 2: param (interior, terminal)
 *     GET  /users/:id/a.json   depth 3: static with an extension
 *
 * JSON form (profile_json.c), schema "routebench-profile" version 1:
 *   { "schema", "schema_version", "routes", "paths", "max_depth",
 *     "fingerprint" (of the table fitted, "xxh3:..."; never its words),
 *     "depth": [routes at depth 1, 2, ...],
 *     "methods": {"GET": n, ..., "*": n},
 *     "methods_per_path": [paths with 1 route, 2, ...],
 *     "word_length": [static words of 1 byte, 2, ..., 32 or more],
 *     "trailing_slash", "versioned", "extension",
 *     "extension_names": {"json": n, ..., "other": n},
 *     "param_syntax": {"colon": n, "brace": n},
 *     "template_forms": {"ext": n, "affix": n, "multi": n},
 *     "shared_prefix": {"path": "/2.0", "routes": n} (left out when none),
 *     "params", "adjacent_params",
 *     "levels": [{"depth", "kinds": {"static": {"nodes", "interior",
 *                 "terminal", "both"}, ...}, "fanout": {"1": n, "2-3": n,
 *                 ...}, "param_parents", "param_with_static", "versions",
 *                 "extensions", "empties"}, ...] }
 * Arrays may be shorter than their maximum (missing entries are 0), kinds,
 * fan-out buckets and names with 0 are left out, and extension_names,
 * param_syntax, template_forms, shared_prefix, params and adjacent_params
 * may be missing (profiles written before them: read as none); a field is never removed or
 * changes meaning within a version.  Reading checks every key, type and
 * count, and that the counts agree with each other (a profile generation
 * can rely on), naming the key when they do not.
 *
 * Comparison: each histogram of two profiles (rb_profile_hist) as shares,
 * with its total variation distance, half the sum of the absolute
 * differences of the shares: 0 for the same distribution, 1 for disjoint
 * ones.  Shares (trailing slash, ...) are two-bin histograms, so their
 * distance is the difference of the shares.
 *
 * Cost: fitting is O(total pattern bytes) (one shape tree); a profile is a
 * plain struct of about 13 KB, no pointers.  No printing here.
 */
#ifndef RB_CORPUS_PROFILE_H
#define RB_CORPUS_PROFILE_H

#include "buf.h"
#include "table.h"

#include <stdbool.h>
#include <stdint.h>

#define RB_PROFILE_SCHEMA         "routebench-profile"
#define RB_PROFILE_SCHEMA_VERSION 1
#define RB_PROFILE_DEPTHS         32                    /* depths 1..32 */
#define RB_PROFILE_FANOUT_BUCKETS 12                    /* 1, 2-3, 4-7, ..., 1024-2047, 2048+ */
#define RB_PROFILE_WORD_LENGTHS   32                    /* 1..31 bytes, 32 or more */
#define RB_PROFILE_METHODS        (RB_METHOD_COUNT + 1) /* the nine, then '*' */
#define RB_PROFILE_EXT_NAMES      25  /* rb_profile_ext_name: 24 common extensions, then "other" */
#define RB_PROFILE_PREFIX_BYTES   256 /* the shared prefix's text, NUL included */

/* Params by how they are written (a whole segment: ":id" or "{id}"). */
enum { RB_PSYN_COLON, RB_PSYN_BRACE, RB_PSYN_COUNT };

/* Templates by form: "{sid}.json" (one param, then an extension),
 * "us_{sid}" or "{sid}x" (one param and other literal bytes), two params
 * or more ("{sid}-{rev}", "{sid}.{format}"). */
enum { RB_TFORM_EXT, RB_TFORM_AFFIX, RB_TFORM_MULTI, RB_TFORM_COUNT };

typedef enum rb_profile_kind {
    RB_PK_STATIC,
    RB_PK_PARAM,
    RB_PK_TEMPLATE, /* img-{id}.png, {Sid}.json */
    RB_PK_GLOB,
    RB_PK_GLOBSTAR,
    RB_PK_CATCHALL,
    RB_PK_COUNT
} rb_profile_kind;

typedef struct rb_profile_kind_counts {
    uint64_t nodes;    /* prefixes of this kind at this depth */
    uint64_t interior; /* ... with children */
    uint64_t terminal; /* ... with routes of their own */
    uint64_t both;     /* ... with children and routes */
} rb_profile_kind_counts;

/* The prefixes at one depth (level[0] is the root: only its fan-out and
 * param counts are used). */
typedef struct rb_profile_level {
    rb_profile_kind_counts kind[RB_PK_COUNT];
    uint64_t fanout[RB_PROFILE_FANOUT_BUCKETS]; /* prefixes with children, by children */
    uint64_t param_parents;                     /* prefixes with a param child */
    uint64_t param_with_static;                 /* ... and a static child too */
    uint64_t versions, extensions, empties;     /* static prefixes (see the top) */
} rb_profile_level;

typedef struct rb_profile {
    uint64_t routes; /* distinct (method, shape) */
    uint64_t paths;  /* prefixes with routes (distinct shapes) */
    uint64_t fingerprint;
    uint32_t max_depth;
    uint64_t depth[RB_PROFILE_DEPTHS + 1];             /* [1..32] */
    uint64_t methods[RB_PROFILE_METHODS];              /* rb_method, RB_ANY last */
    uint64_t methods_per_path[RB_PROFILE_METHODS + 1]; /* [1..10] */
    uint64_t word_length[RB_PROFILE_WORD_LENGTHS + 1]; /* [1..32] */
    uint64_t trailing_slash, versioned, extension;     /* routes */
    rb_profile_level level[RB_PROFILE_DEPTHS + 1];     /* [0..32] */
    /* routes by the extension their last segment ends in (a static word, a
     * glob or a template: Accounts.json, *.css, {Sid}.json), one of
     * rb_profile_ext_name's or "other"; routes without one are not counted */
    uint64_t ext_names[RB_PROFILE_EXT_NAMES];
    uint64_t param_syntax[RB_PSYN_COUNT];    /* param segments of the routes, by syntax */
    uint64_t template_forms[RB_TFORM_COUNT]; /* template prefixes by form */
    /* what a person sees first: the shared prefix (rb_st_shared_prefix:
     * "/2.0", "/api/v10"; "" when none), the one place words of the table
     * are kept, and the routes strictly below it; param segments (':id',
     * '{id}') summed over the routes, and routes with two in a row */
    char prefix[RB_PROFILE_PREFIX_BYTES];
    uint64_t prefix_routes;
    uint64_t params, adjacent_params;
} rb_profile;

/* A count summed over the kinds of a level: field 0 nodes, 1 interior,
 * 2 terminal, 3 both. */
enum { RB_PF_NODES, RB_PF_INTERIOR, RB_PF_TERMINAL, RB_PF_BOTH };
uint64_t rb_profile_level_sum(const rb_profile_level *lv, int field);

/* Fit the profile of t.  Errors: RB_ENOMEM, a malformed pattern (err names
 * the line); an empty table is RB_EINVAL. */
int rb_profile_fit(const rb_route_table *t, rb_profile *out, rb_error *err);

/* "static", "param", "template", "glob", "globstar", "catchall" */
const char *rb_profile_kind_name(int kind);
/* "1", "2-3", ..., "2048+"; the bucket of a number of children. */
const char *rb_profile_fanout_label(int bucket);
int rb_profile_fanout_bucket(uint64_t children);
/* "json", "xml", ... (i < RB_PROFILE_EXT_NAMES - 1), "other"; the index
 * of an extension's name (without the dot), or RB_PROFILE_EXT_NAMES - 1. */
const char *rb_profile_ext_name(int i);
int rb_profile_ext_index(const char *ext, size_t len);
/* The extension a segment's text ends in: its offset after the '.' and
 * length (1-5 letters or digits, at least one letter, after 1+ bytes, and
 * a file suffix: one of rb_profile_ext_name's or another known one, such
 * as htm, docx, sh; a dotted method name, users.info, is a word), or
 * false. */
bool rb_profile_extension_of(const char *w, size_t len, size_t *at, size_t *n);

/* Is w a version word (v2, V1, 1, 1.1, 2010-04-01, v1beta1)?  Does it end
 * in a file extension (rb_profile_extension_of)? */
bool rb_profile_is_version(const char *w, size_t len);
bool rb_profile_has_extension(const char *w, size_t len);

/* Check that the counts agree with each other (what reading JSON checks):
 * RB_EINVAL names the first count that does not. */
int rb_profile_validate(const rb_profile *p, rb_error *err);

/* ---- JSON (profile_json.c) ------------------------------------------------ */

/* The JSON text of p, pretty-printed, ending in a newline. */
int rb_profile_json_write(const rb_profile *p, rb_buf *out, rb_error *err);
/* Parse a profile (name is used in messages); RB_EFORMAT names the key. */
int rb_profile_json_parse(const char *name, const char *text, size_t len, rb_profile *out,
                          rb_error *err);

/* A routes file or a profile JSON file (by its first non-blank byte, '{'):
 * the profile of either. */
int rb_profile_load(const char *path, rb_profile *out, bool *was_json, rb_error *err);

/* ---- comparison ------------------------------------------------------------- */

typedef enum rb_profile_hist_id {
    RB_PH_DEPTH,            /* routes by depth */
    RB_PH_KINDS,            /* prefixes by (depth, kind) */
    RB_PH_FANOUT,           /* prefixes with children by (depth, fan-out bucket) */
    RB_PH_METHODS,          /* routes by method */
    RB_PH_METHODS_PER_PATH, /* prefixes with routes by number of routes */
    RB_PH_WORD_LENGTH,      /* static words by length */
    RB_PH_CONFLICTS,        /* prefixes with a param child: with a static sibling or not */
    RB_PH_TRAILING_SLASH,   /* routes: ending in '/' or not */
    RB_PH_VERSIONED,        /* routes: with a version segment or not */
    RB_PH_EXTENSION,        /* routes: last segment with a file extension or not */
    RB_PH_EXT_NAMES,        /* routes by their last segment's extension (none, json, ...) */
    RB_PH_COUNT
} rb_profile_hist_id;

#define RB_PROFILE_HIST_BINS (RB_PROFILE_DEPTHS * RB_PROFILE_FANOUT_BUCKETS)

/* One histogram of a profile: counts by bin, with labels ("3 param",
 * "2: 4-7", "GET", ...). */
typedef struct rb_profile_hist {
    const char *name;  /* "depth", "kinds", ... (the JSON key) */
    const char *title; /* "routes by depth (segments)", ... */
    size_t nbins;
    uint64_t count[RB_PROFILE_HIST_BINS];
    char label[RB_PROFILE_HIST_BINS][16];
    uint64_t total;
} rb_profile_hist;

/* Histogram `id` of p (every bin, zeros included). */
void rb_profile_histogram(const rb_profile *p, int id, rb_profile_hist *out);

/* Total variation distance of two histograms with the same bins: 0 .. 1;
 * 0 when both are empty, 1 when only one is. */
double rb_profile_tv(const rb_profile_hist *a, const rb_profile_hist *b);

/* The distance of every histogram of a and b, and their mean. */
typedef struct rb_profile_distance {
    double hist[RB_PH_COUNT];
    double mean;
} rb_profile_distance;

void rb_profile_compare(const rb_profile *a, const rb_profile *b, rb_profile_distance *out);

/* Tolerances of what a person sees (the compare report's figures, B
 * against the source A): the shared prefix's share of routes (and the
 * extensions'), params per route (relative), the share of routes with
 * adjacent params. */
#define RB_PROFILE_PREFIX_TOLERANCE   0.02
#define RB_PROFILE_PARAMS_TOLERANCE   0.10
#define RB_PROFILE_ADJACENT_TOLERANCE 0.01

/* The two profiles side by side (profile_report.c), appended to out: as
 * text (the distances; what a person sees: the shared prefix, params per
 * route, adjacent params, first segments and extensions, A and B, each
 * with its distance and whether B is within tolerance, then a one-line
 * verdict "like: within tolerance on every figure" or the figures that
 * are not; then every histogram's bins as shares), or as JSON
 * {"a": {file, routes, paths, max_depth, fingerprint}, "b": {...},
 *  "distance": {"depth": d, ..., "mean": d},
 *  "seen": {a_prefix, b_prefix, shared_prefix: {a, b, distance,
 *           within_tolerance}, params_per_route, adjacent_params,
 *           first_segments, extensions, within_tolerance},
 *  "histograms": [{name, title, distance, a_total, b_total,
 *                  bins: [{label, a, b}]}]}
 * (bins that neither profile uses are left out).  RB_ENOMEM. */
int rb_profile_compare_text(const rb_profile *a, const char *name_a, const rb_profile *b,
                            const char *name_b, rb_buf *out, rb_error *err);
int rb_profile_compare_json(const rb_profile *a, const char *name_a, const rb_profile *b,
                            const char *name_b, rb_buf *out, rb_error *err);

#endif
