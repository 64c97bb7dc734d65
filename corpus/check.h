/*
 * check.h — the corpus check: duplicates, shadowed routes, diversity.
 *
 * A corpus is only as good as its deduplication check: a benchmark whose
 * 10,000 routes reuse five URL shapes measures five routes.  The check
 * reports, for a route table:
 *
 *   exact duplicates   route lines equal to an earlier line (method and
 *                      pattern bytes);
 *   shape duplicates   route lines with the method and shape (pattern with
 *                      parameter names erased) of an earlier line, exact
 *                      duplicates included: every router refuses them
 *                      (RB_EDUPLICATE), so they are reported with both line
 *                      numbers and left out of everything below;
 *   shadowed routes    routes that can never win (below);
 *   distinct routes    distinct (method, shape): what --min-unique counts;
 *   distinct shapes    distinct shapes, methods ignored;
 *   distinct skeletons distinct sequences of segment kinds (static words and
 *                      glob texts erased too): "/users/{}" and "/teams/{}"
 *                      share one;
 *   histograms         routes by depth (segments), prefixes by number of
 *                      children (fan-out), and the largest number of routes
 *                      directly behind one parent prefix;
 *   fingerprint        rb_route_table_fingerprint (XXH3 of the canonical list).
 *
 * Shadowing.  R is shadowed when for every path R matches and every method R
 * fits, some route with a better priority key (docs/design.md) matches the path
 * and fits the method — so R is never the answer.  For a route with a
 * specific method M the better routes must have method M or '*'; for a '*'
 * route each of the nine methods must be covered separately (GET /a beats
 * * /a only for GET, so * /a is shadowed only when all nine are taken).
 *
 * Exact rule.  When R's segments are static, param, catch-all, '**' or a
 * glob of '*' only (which takes any one segment, empty included), the
 * question is decided exactly: a path is a sequence of segments, and what a
 * segment is matters only through the alphabet
 *     { each static word of R } + { the empty segment } + { OTHER },
 * OTHER standing for any nonempty segment no static word of R equals.
 * Params, '*' globs, catch-alls and '**' treat every OTHER segment alike,
 * and a static word w that R does not name moves R exactly as OTHER does
 * while letting at least the same routes of the table match (OTHER is a
 * fresh word, matched by no static segment), so paths through OTHER are the
 * hardest to cover: if some path escapes coverage, one over this alphabet
 * does.  R and the whole table then become finite automata (R's positions;
 * the shape tree read as an automaton whose states are sets of nodes), and
 * a depth-first search of their product looks for a witness: a path R
 * matches where no better fitting route matches.  None: R is shadowed.
 * Found: R is not shadowed, and the witness path (OTHER replaced by a fresh
 * word) is one where R wins.  Glob routes with other wildcards ('?', sets,
 * '*' mixed with text) that R's paths meet are not captured by the alphabet:
 * they are treated as not matching OTHER, which can only miss coverage, so
 * "shadowed" stays exact, and a witness found that way is tried with linear
 * before it is believed.
 *
 * The search skips (exactly) every state from which better routes fitting
 * R's methods take all paths: a route ending in '**' or inside its
 * catch-all that the path has reached.
 *
 * Sampling.  Routes with such globs themselves, with more than 60 segments,
 * or whose search exceeds max_states, are sampled: `samples` random paths of
 * the route (fill.h) and a fitting method are looked up with linear
 * (oracle.h); if the route never wins it is reported "possibly shadowed".
 *
 * Budget.  The whole check has a work budget (max_work, by default
 * RB_CHECK_WORK_BASE + RB_CHECK_WORK_PER_ROUTE per route): searches and
 * samples count their work against it.  Each route, in turn, may use up to
 * 16 times an even split of what is left among the routes left (at least
 * 2^14 units); a route whose search and samples run out of that share is
 * reported "possibly shadowed" (counted in over_budget).  So the check's
 * time is linear in the table size whatever the table, never a hang, and
 * the report says when the budget decided anything.
 *
 * Exit status of `routebench corpus check`: 0 clean, 1 when duplicates or
 * shadowed (or possibly shadowed) routes are found, 2 on input error.
 *
 * Cost: O(total pattern bytes) for everything but shadowing; shadowing is
 * one search per route, typically O(depth x states) before a witness turns
 * up, bounded by max_states, and all of it by the work budget.  No printing here: the CLI prints the report.
 */
#ifndef RB_CORPUS_CHECK_H
#define RB_CORPUS_CHECK_H

#include "buf.h"
#include "shape_tree.h"

#define RB_CHECK_DEPTHS         18 /* depth histogram: [d] for d = 1..16, [17] for 17+ */
#define RB_CHECK_FANOUT_BUCKETS 8  /* 1, 2-3, 4-7, 8-15, 16-31, 32-63, 64-127, 128+ */

/* The default work budget of a whole check: RB_CHECK_WORK_BASE +
 * RB_CHECK_WORK_PER_ROUTE units a route (a unit: one search state stepped
 * or made, or a sampled lookup's equivalent of one pattern match, counted
 * by the oracle (oracle.h); about 10-50 ns). */
#define RB_CHECK_WORK_BASE      (UINT64_C(1) << 26)
#define RB_CHECK_WORK_PER_ROUTE (UINT64_C(1) << 16)

typedef struct rb_check_options {
    uint64_t seed;       /* for sampling; any value */
    uint32_t samples;    /* paths per sampled route; 0 means 64 */
    uint32_t max_states; /* per exact search; 0 means 20,000 */
    uint64_t max_work;   /* for the whole check; 0 means the default above */
} rb_check_options;

/* The defaults: seed 1, 64 samples per sampled route, 20,000 states. */
void rb_check_options_init(rb_check_options *opt);

/* Route indices (0-based route ids; lines are in the table entries). */
typedef struct rb_check_pair {
    uint32_t route;
    uint32_t earlier;
} rb_check_pair;

typedef struct rb_check_shadow {
    uint32_t route;
    uint32_t by;   /* a better route taking some of its paths (the one closest to it in
                    * priority), or RB_ST_NONE */
    bool possible; /* from sampling: possibly shadowed */
} rb_check_shadow;

typedef struct rb_check_report {
    size_t routes;
    size_t exact_duplicates, shape_duplicates;
    rb_check_pair *exact, *shape; /* exact_duplicates / shape_duplicates entries */
    size_t shadowed, possibly_shadowed;
    rb_check_shadow *shadows; /* shadowed + possibly_shadowed entries, by route */
    size_t sampled;           /* routes decided by sampling */
    size_t over_budget;       /* of those, routes the work budget cut short */
    uint64_t work, budget;    /* work units spent on shadowing, and the budget */
    uint64_t lookups;         /* sampled paths looked up (oracle.h), ... */
    uint64_t routes_added;    /* ... routes added to linear routers for them, ... */
    uint64_t states_stepped;  /* ... and states of their candidate searches */
    size_t distinct_routes, distinct_shapes, distinct_skeletons;
    size_t depth[RB_CHECK_DEPTHS];
    size_t min_depth, max_depth;
    size_t fanout[RB_CHECK_FANOUT_BUCKETS];
    size_t max_fanout;
    char max_fanout_prefix[256];
    size_t max_behind; /* routes whose parent prefix is the same */
    char max_behind_prefix[256];
    uint64_t fingerprint;
} rb_check_report;

/* Check t.  *rep is filled (free with rb_check_report_free) and RB_OK
 * returned even when problems are found; errors are RB_ENOMEM or a
 * malformed pattern (err names the line).  opt may be NULL. */
int rb_corpus_check(const rb_route_table *t, const rb_check_options *opt, rb_check_report *rep,
                    rb_error *err);
void rb_check_report_free(rb_check_report *rep);

/* "1", "2-3", ... "128+" */
const char *rb_check_fanout_bucket(int b);

/* ---- one route at a time (tests and tools) ---------------------------------- */

typedef enum rb_shadow_verdict {
    RB_NOT_SHADOWED = 0,
    RB_SHADOWED = 1,
    RB_POSSIBLY_SHADOWED = 2,
} rb_shadow_verdict;

typedef struct rb_shadow_result {
    int verdict;        /* rb_shadow_verdict */
    bool exact;         /* decided by the search (else by sampling) */
    uint32_t by;        /* shadowed: a better route that covers some paths */
    int method;         /* not shadowed: a method the route wins with ... */
    char witness[2048]; /* ... on this path (witness_len 0 if it did not fit) */
    size_t witness_len;
    size_t states;    /* search states visited */
    bool over_budget; /* possibly shadowed because the check's budget ran out */
} rb_shadow_result;

typedef struct rb_shadow_ctx rb_shadow_ctx;

int rb_shadow_ctx_new(const rb_shape_tree *st, const rb_check_options *opt, rb_shadow_ctx **out);
void rb_shadow_ctx_free(rb_shadow_ctx *c);
/* Decide route r (not a shape duplicate). */
int rb_shadow_decide(rb_shadow_ctx *c, uint32_t r, rb_shadow_result *res, rb_error *err);

/* Is the table clean: at least one route (an empty table proves nothing),
 * no shape duplicates, nothing shadowed or possibly shadowed, and at least
 * min_unique distinct (method, shape)? */
bool rb_check_clean(const rb_check_report *r, size_t min_unique);

/* The verdict in one line (check_report.c), the same in the text and JSON
 * reports, into buf (truncated to cap - 1 bytes, NUL-terminated):
 *   "clean for N routes" (every route decided by the exact search), or
 *   "clean for N routes; M routes checked by sampling" (each of them won
 *   a sampled path), or "problems found: ..." naming the counts (shape
 *   duplicates, shadowed, possibly shadowed and how many of those the work
 *   budget left undecided, too few distinct routes), or "no routes: an
 *   empty table is not clean (it proves nothing)". */
void rb_check_verdict(const rb_check_report *r, size_t min_unique, char *buf, size_t cap);

/* The report as a JSON object (check_report.c) appended to out: file,
 * routes, exact_duplicates, exact [{line, earlier_line}], shape_duplicates,
 * shape, shadowed, possibly_shadowed, shadows [{line, by_line?, possible}],
 * sampled, over_budget, work, budget, distinct_routes, distinct_shapes,
 * distinct_skeletons, min_depth,
 * max_depth, depth {N: routes}, fanout {bucket: prefixes}, max_fanout,
 * max_fanout_prefix, max_behind_one_prefix, max_behind_prefix, fingerprint,
 * min_unique (when > 0), ok (rb_check_clean), verdict (rb_check_verdict),
 * empty.  RB_ENOMEM. */
int rb_check_report_json(const char *path, const rb_route_table *t, const rb_check_report *r,
                         size_t min_unique, rb_buf *out, rb_error *err);

#endif
