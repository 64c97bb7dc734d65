/*
 * bundle.h — the result bundle of a benchmark run, in memory, and the files
 * it is written to (one job per file):
 *
 *   bundle.c       the model: building it, computing its statistics from
 *                  the raw trials (with stats.h)
 *   bundle_json.c  summary.json: write and read back (schema below)
 *   bundle_csv.c   trials.csv: one row per measured trial; write and read
 *
 * and rendered by bench/report/ (report.h: report.md, report.html, the
 * charts, the bundle directory; output.h: the table of every output).
 *
 * Every statistic is a function of the trials (ns / lookups of each
 * trial), so a reader can recompute summary.json from trials.csv:
 * docs/measurement.md has the recipe.  `routebench report DIR` reads
 * summary.json and trials.csv and renders report.md and the charts again;
 * a run renders them the same way, from the files it has just written, so
 * the two are byte-identical.
 *
 * summary.json, schema "routebench-summary" (version RB_BUNDLE_SCHEMA_VERSION;
 * a field is never removed or changes meaning within a version):
 *   schema, schema_version
 *   tool        {name, version, commit, compiler, flags, build_type,
 *                optimized, sanitized}
 *   machine     {cpu_model, cores, kernel, governor|null, loadavg_start,
 *                loadavg_end, pinned_cpu|null}
 *   date        UTC, ISO 8601
 *   duration_s  wall-clock seconds of the whole run (null when unknown)
 *   command     the command line
 *   seeds       {corpus, bootstrap}
 *   protocol    {trials, warmup, min_trial_ms, order, clock_id ("monotonic" or
 *                "thread_cputime"), clock, bootstrap_resamples, confidence_level,
 *                ratio}
 *   baseline    router name
 *   routers     [{name, summary, features, reference, peer}]
 *   scenarios   [{name, kind, shape|null, seed|null, generator|null, depth,
 *                 routes, requests,
 *                 routes_source, requests_source, routes_fingerprint,
 *                 requests_fingerprint, features, parse_ns, skipped: [router],
 *                 results: [{router, trials, median_ns, min_ns, max_ns, mad_ns,
 *                   lookups_per_s, memory_bytes, bytes_per_route, build_ns,
 *                   replays_per_trial, lookups_per_trial, checksum,
 *                   disagreements, disturbed_trials}],
 *                 pairs: [{a, b, n, median, lo, hi, wins, losses,
 *                   excludes_one}]}]
 *   geomeans    [{router, baseline, scenarios, geomean, lo, hi, excludes_one}]
 *   warnings    [text]
 *   limitations [text]
 * generator ("v1", "v2") and depth (routes at depth 1, 2, ..., the last
 * entry 16 or more) were added later: a bundle without them is read as
 * generator v1 (the only one before) and depths not recorded.
 * Fingerprints and checksums are 16 hex digits (64-bit values do not fit a
 * JSON number exactly).  Ratios are speed ratios b/a = median over trials of
 * (ns/lookup of a) / (ns/lookup of b): above 1 means b is faster.
 */
#ifndef RB_BENCH_BUNDLE_H
#define RB_BENCH_BUNDLE_H

#include "buf.h"
#include "format.h"
#include "gate.h"
#include "metric.h"
#include "stats.h"

#include <stdbool.h>
#include <stdint.h>

#define RB_BUNDLE_SCHEMA         "routebench-summary"
#define RB_BUNDLE_SCHEMA_VERSION 2
#define RB_BUNDLE_NAME           64
#define RB_BUNDLE_TEXT           512
#define RB_BUNDLE_DEPTHS         17 /* routes by depth: [1..15], [16] 16 or more */

typedef struct rb_bundle_router {
    char name[RB_BUNDLE_NAME];
    char summary[RB_BUNDLE_TEXT];
    unsigned features;
    bool reference; /* a reference row (summary starts with "reference"), not a choice */
    bool peer;      /* RB_FEAT_PEER: a third-party router, not held to our semantics */
} rb_bundle_router;

/* A request a router answered otherwise than EXPECTED (or linear): what
 * was asked, what the table says, what it got ("200 route 7", "404",
 * "405"). */
typedef struct rb_bundle_differ {
    char method[16];
    char path[256]; /* printable ASCII: other bytes as '?' */
    char expected[48], got[96];
} rb_bundle_differ;

#define RB_BUNDLE_MAX_DIFFERS 3

/* One router on one scenario. */
typedef struct rb_bundle_result {
    char router[RB_BUNDLE_NAME];
    /* measured facts, set by the run */
    uint64_t memory_bytes;
    uint64_t build_ns; /* create + load the parsed routes + build, on the protocol's clock */
    uint64_t replays_per_trial;
    uint64_t lookups_per_trial;
    uint64_t checksum;
    uint64_t disagreements;    /* answers that differ from EXPECTED */
    uint64_t disturbed_trials; /* trials in which the thread lost the CPU */
    uint64_t short_trials;     /* trials shorter than min_trial_ms, after recalibration */
    bool recalibrated;         /* its trials ran short once and were measured again */
    /* computed from the trials (rb_bundle_compute_scenario) */
    size_t trials;
    /* per lookup, in the bundle's metric (ns for time, instructions, est.
     * cycles: rb_metric_unit); the names say ns for history's sake */
    double median_ns, min_ns, max_ns, mad_ns;
    double lookups_per_s; /* time: 1e9 / median_ns; else 0 */
    double bytes_per_route;
    /* counted metrics: the raw counts per lookup (median over trials) */
    double ir_per_lookup, data_refs_per_lookup, l1_misses_per_lookup, ll_misses_per_lookup;
    /* absent in older bundles: -1, unknown */
    int64_t rss_growth_bytes; /* peak RSS growth during build (VmHWM), -1 unknown */
    uint64_t disagree_linear; /* peers: answers that differ from linear's */
    bool peer_process;        /* measured in a peer process (docs/peer-protocol.md) */
    /* the first requests it answered otherwise (absent in older bundles: none) */
    rb_bundle_differ differs[RB_BUNDLE_MAX_DIFFERS];
    size_t ndiffers;
    /* counted metrics: the A/A spread of the count (a Go peer's: two
     * independent counts differ); 0 when the count is exact */
    double count_spread;
} rb_bundle_result;

/* A router that refused a scenario's table, and why. */
typedef struct rb_bundle_refusal {
    char router[RB_BUNDLE_NAME];
    char reason[RB_BUNDLE_TEXT];
} rb_bundle_refusal;

#define RB_BUNDLE_MAX_REFUSED 16

/* The paired comparison of two routers on one scenario: speed ratio b/a. */
typedef struct rb_bundle_pair {
    char a[RB_BUNDLE_NAME], b[RB_BUNDLE_NAME];
    rb_paired_result r;
} rb_bundle_pair;

/* A scenario's conditions.  In memory they are these values; summary.json
 * holds their names ("throughput"/"latency", "warm"/"cold"), absent in
 * older bundles: the zero values, throughput and warm. */
typedef enum rb_bundle_mode {
    RB_BUNDLE_THROUGHPUT,
    RB_BUNDLE_LATENCY,
    RB_BUNDLE_MODES
} rb_bundle_mode;
typedef enum rb_bundle_cache { RB_BUNDLE_WARM, RB_BUNDLE_COLD, RB_BUNDLE_CACHES } rb_bundle_cache;

typedef struct rb_bundle_scenario {
    char name[RB_BUNDLE_NAME * 2];
    char kind[16];                  /* generated, shipped, files */
    char shape[16];                 /* generated: the shape; else "" */
    uint64_t seed;                  /* generated: the generator seed */
    char generator[8];              /* generated: "v1" or "v2" (generate.h) */
    size_t depth[RB_BUNDLE_DEPTHS]; /* routes by depth (segments); all 0 if not recorded */
    size_t routes, requests;
    char routes_source[RB_BUNDLE_TEXT], requests_source[RB_BUNDLE_TEXT];
    uint64_t routes_fp, requests_fp;
    unsigned features;
    uint64_t parse_ns; /* parsing and checking the routes once, on the protocol's clock */
    char skipped[RB_BUNDLE_TEXT]; /* comma-separated routers lacking a feature */
    rb_bundle_result *results;
    size_t nresults;
    rb_bundle_pair *pairs;
    size_t npairs;
    /* the conditions (absent in older bundles: throughput, warm) */
    rb_bundle_mode mode;   /* back-to-back, or each lookup waits for the previous one */
    rb_bundle_cache cache; /* cold: the application stand-in runs between lookups */
    uint64_t app_bytes;    /* cold: bytes the stand-in touches between two lookups */
    double app_ns;         /* cold: the clock's own ns per timed lookup (median), subtracted */
    double app_mad_ns;     /* cold: its MAD over the rounds */
    rb_bundle_refusal refused[RB_BUNDLE_MAX_REFUSED]; /* routers that refused the table */
    size_t nrefused;
    char auto_choice[RB_BUNDLE_NAME]; /* the router auto chose, "" when auto did not run */
    char auto_why[RB_BUNDLE_TEXT];    /* auto's describe() */
} rb_bundle_scenario;

/* One measured trial: a row of trials.csv. */
typedef struct rb_bundle_trial {
    size_t scenario;   /* index into scenarios */
    size_t result;     /* index into that scenario's results (its router) */
    uint32_t trial;    /* 1-based round */
    uint32_t position; /* 1-based place in the round's order */
    uint64_t lookups;
    uint64_t ns; /* the trial's value in the bundle's metric (ns, instructions, est. cycles) */
    /* counted metrics: the raw counts (instructions under both; the rest
     * under cycles-est), else 0 */
    uint64_t ir, data_refs, l1_misses, ll_misses;
} rb_bundle_trial;

typedef struct rb_bundle_geomean {
    char router[RB_BUNDLE_NAME], baseline[RB_BUNDLE_NAME];
    rb_geomean_result g;
} rb_bundle_geomean;

/* The gate of `pair --fail-below`, as decided and recorded. */
typedef struct rb_bundle_gate {
    bool on;                                   /* a gate was asked for */
    char a[RB_BUNDLE_NAME], b[RB_BUNDLE_NAME]; /* the pair it judges: ratio b/a */
    double threshold;                          /* R */
    int outcome;                               /* rb_gate_outcome */
    char decided_on[RB_BUNDLE_NAME * 2];       /* the scenario, or "geometric mean" */
    rb_gate_evidence evidence;
    size_t trials_needed; /* inconclusive: trials that would decide it */
    char message[RB_BUNDLE_TEXT * 2];
} rb_bundle_gate;

/* The identity of a plugin library a NAME@LIB router came from. */
typedef struct rb_bundle_library {
    char router[RB_BUNDLE_NAME]; /* the NAME@LIB label */
    char path[RB_BUNDLE_TEXT];   /* as resolved (absolute when it could be) */
    uint64_t size;               /* bytes */
    uint64_t hash;               /* XXH3-64 of the file's bytes */
    char commit[RB_BUNDLE_NAME]; /* the commit it was built from, or "" when it carries none */
} rb_bundle_library;

typedef struct rb_bundle {
    /* tool */
    char version[RB_BUNDLE_NAME], commit[RB_BUNDLE_NAME];
    char compiler[RB_BUNDLE_TEXT], flags[RB_BUNDLE_TEXT], build_type[RB_BUNDLE_NAME];
    bool optimized, sanitized;
    char valgrind[RB_BUNDLE_NAME]; /* Valgrind's version ("3.19"), "" without it */
    /* machine */
    char cpu_model[RB_BUNDLE_TEXT], kernel[RB_BUNDLE_TEXT], governor[RB_BUNDLE_NAME];
    /* /proc/cpuinfo's vendor_id and cpu family ("AuthenticAMD", "25"); "" unknown */
    char cpu_vendor[RB_BUNDLE_NAME], cpu_family[RB_BUNDLE_NAME];
    long cores;
    double loadavg_start, loadavg_end; /* < 0: unknown */
    double duration_s;                 /* < 0: unknown */
    int pinned_cpu;                    /* < 0: not pinned */
    char date[RB_BUNDLE_NAME];
    char command[RB_BUNDLE_TEXT * 2];
    /* protocol */
    int metric;          /* rb_metric */
    uint64_t seed;       /* corpus generator */
    uint64_t order_seed; /* the rounds' orders (scenario i: rb_bundle_order_seed) */
    unsigned trials, warmup;
    double min_trial_ms;
    bool cpu_clock; /* trials timed with the thread's CPU time, not wall time */
    rb_bootstrap_opts bootstrap;
    char baseline[RB_BUNDLE_NAME];
    /* data */
    rb_bundle_router *routers;
    size_t nrouters;
    rb_bundle_scenario *scenarios;
    size_t nscenarios;
    rb_bundle_trial *trials_v;
    size_t ntrials;
    rb_bundle_geomean *geomeans;
    size_t ngeomeans;
    char **warnings;
    size_t nwarnings;
    char **limitations;
    size_t nlimitations;
    rb_bundle_gate gate;
    rb_bundle_library *libraries;
    size_t nlibraries;
} rb_bundle;

/* ---- the model (bundle.c) ------------------------------------------------ */

void rb_bundle_init(rb_bundle *b);
void rb_bundle_free(rb_bundle *b);

/* Append (copies); RB_ENOMEM on failure.  The returned pointers stay valid
 * until the next append of the same kind. */
int rb_bundle_add_router(rb_bundle *b, const char *name, const char *summary, unsigned features);
rb_bundle_scenario *rb_bundle_add_scenario(rb_bundle *b);
rb_bundle_result *rb_bundle_add_result(rb_bundle_scenario *s, const char *router);
int rb_bundle_add_trial(rb_bundle *b, const rb_bundle_trial *t);
int rb_bundle_add_warning(rb_bundle *b, const char *text);
int rb_bundle_add_limitation(rb_bundle *b, const char *text);
int rb_bundle_add_library(rb_bundle *b, const rb_bundle_library *lib);
/* The standard limitations (what the numbers do not establish). */
int rb_bundle_add_standard_limitations(rb_bundle *b);

/* The ns per lookup of trial t, as every statistic uses it. */
double rb_bundle_trial_ns_per_lookup(const rb_bundle_trial *t);

/* From the trials of scenario si: every result's median/min/max/MAD,
 * lookups/s, bytes/route, and every pair (a, b) of results with a before b
 * in results order.  Trials of one result are taken in round order. */
int rb_bundle_compute_scenario(rb_bundle *b, size_t si, rb_error *err);
/* A row shown apart from the routers one chooses among: a reference
 * (linear, floor) or a peer. */
bool rb_bundle_is_aside(const rb_bundle *b, const rb_bundle_result *r);
/* The indices of s's results in the order every output shows them: the
 * routers one chooses among fastest first (by median), then those aside,
 * fastest first too.  Returns how many (at most cap). */
size_t rb_bundle_fastest_first(const rb_bundle *b, const rb_bundle_scenario *s, size_t *idx,
                               size_t cap);
/* Is scenario si another condition (mode, cache) of the same tables as an
 * earlier scenario (choose's cold latency after its warm throughput)?
 * Such a scenario is shown beside its table, never counted as one more. */
bool rb_bundle_is_condition(const rb_bundle *b, size_t si);
/* Do x and y measure the same tables (their routes' and requests'
 * fingerprints), under whatever conditions? */
bool rb_bundle_same_tables(const rb_bundle_scenario *x, const rb_bundle_scenario *y);
/* The names of a mode and of a cache, as summary.json and the tables write
 * them; "" for a value out of range. */
const char *rb_bundle_mode_name(rb_bundle_mode mode);
const char *rb_bundle_cache_name(rb_bundle_cache cache);
/* For every router other than the baseline, the geometric mean across the
 * scenarios holding both of the per-scenario median ratio router/baseline
 * (speed of the router relative to the baseline), with its interval; the
 * other conditions of a table are left out (rb_bundle_is_condition). */
int rb_bundle_compute_geomeans(rb_bundle *b, rb_error *err);

/* The order seed of scenario si of a run whose order seed is seed. */
uint64_t rb_bundle_order_seed(uint64_t seed, size_t si);

/* The gate's evidence for the pair (a, b): the pair result of the one
 * scenario holding both, or the geometric mean of b against a when several
 * do (RB_ENOTFOUND when none does).  what names it. */
int rb_bundle_gate_evidence(const rb_bundle *b, const char *a, const char *bname,
                            rb_gate_evidence *e, char *what, size_t cap, rb_error *err);
/* Decide b->gate (on, a, b and threshold set) from the bundle's statistics:
 * fills outcome, decided_on, evidence, trials_needed and message. */
int rb_bundle_decide_gate(rb_bundle *b, rb_error *err);

/* A pair run (two routers, a noisy metric) whose interval excludes 1 gets a
 * warning saying how much of that noise alone can produce, with this run's
 * noise (disturbed and short trials, load, MDE).  RB_ENOMEM. */
int rb_bundle_noise_note(rb_bundle *b);

/* Rendering hooks for report.md, scaling.svg and the CLI (bundle.c):
 * the `routebench corpus gen` command that writes a generated scenario's
 * tables, and its routes by depth as shares ("1 2%, 2 9%, 3 22%"),
 * "" when not recorded, so a reader can tell deeper paths from a slower
 * router. */
void rb_bundle_gen_command(const rb_bundle_scenario *s, char *buf, size_t cap);
void rb_bundle_depth_text(const rb_bundle_scenario *s, char *buf, size_t cap);

/* "NAME (reference)", "NAME (peer)" or "NAME" (brief: "(ref)") into buf. */
const char *rb_bundle_label(const rb_bundle *b, const char *router, bool brief, char *buf,
                            size_t cap);

/* Lookups by name; NULL / SIZE_MAX when absent. */
const rb_bundle_router *rb_bundle_router_info(const rb_bundle *b, const char *name);
size_t rb_bundle_result_index(const rb_bundle_scenario *s, const char *router);
const rb_bundle_pair *rb_bundle_find_pair(const rb_bundle_scenario *s, const char *a,
                                          const char *b);

/* The limit row (RB_LIMIT_NAME, corpus/limit.h): an exact-match lookup
 * of the scenario's own request paths.  *x is router's distance to it,
 * the median over the pairs of (router per lookup) / (limit per lookup),
 * [*lo, *hi] its interval (equal to *x under an exact metric).  False when
 * the scenario has no limit row, router is the limit, or no pair exists. */
bool rb_bundle_limit_ratio(const rb_bundle_scenario *s, const char *router, double *x, double *lo,
                           double *hi);
/* "hashseg 2.91x, ctrie 3.40x, ..." for every router but the references
 * and peers, in result order; "" when the scenario has no limit row. */
void rb_bundle_limit_text(const rb_bundle *b, const rb_bundle_scenario *s, char *buf, size_t cap);
/* Is this result the limit row (its answers have no captures, so its
 * checksum is compared with nobody's)? */
bool rb_bundle_is_limit(const rb_bundle_result *r);

/* ---- number formats ------------------------------------------------------ */

/* a per-lookup value in the bundle's metric: rb_format_ns for time,
 * a count with 2 decimals ("312.45") for counted metrics */
void rb_bundle_fmt_value(const rb_bundle *b, double v, char *buf, size_t cap);

/* ---- files --------------------------------------------------------------- */

/* summary.json text (bundle_json.c). */
int rb_bundle_json_write(const rb_bundle *b, rb_buf *out, rb_error *err);
/* Parse summary.json into b (initialised here); trials are not in it. */
/* The fields of summary.json that one table describes for the writer and
 * the reader (bundle_json.c): tables 0 .. rb_bundle_json_tables() - 1,
 * rows 0.. of each; returns the key of row i of table t (NULL past the
 * end), with the object that holds it as docs/measurement.md's schema
 * names it ("machine", "geomeans[]") and the schema version that added it. */
size_t rb_bundle_json_tables(void);
const char *rb_bundle_json_field(size_t table, size_t i, const char **object, int *since);

int rb_bundle_json_read(const char *text, size_t len, rb_bundle *b, rb_error *err);

/* trials.csv text (bundle_csv.c): header
 * "scenario,router,trial,position,lookups,ns", one row per measured trial. */
int rb_bundle_csv_write(const rb_bundle *b, rb_buf *out, rb_error *err);
/* Parse trials.csv into b->trials_v, resolving scenario and router names
 * against b (read the JSON first).  Every malformed or unknown row is an
 * error naming its line. */
int rb_bundle_csv_read(const char *text, size_t len, rb_bundle *b, rb_error *err);

/* The renderers of a bundle and the bundle directory are declared in
 * bench/report/report.h. */

#endif
