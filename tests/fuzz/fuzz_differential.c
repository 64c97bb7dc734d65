/*
 * fuzz_differential.c — libFuzzer target: a fuzzed route set and fuzzed
 * paths through every registered router, every answer compared with
 * `linear` (outcome, route id, capture spans, 405 mask), and each router's
 * invariant check (rb_router_check) after every build.
 *
 * Input: text lines.  Lines before a line "--" are routes "METHOD PATTERN"
 * (lines that don't parse are skipped; at most 64 routes); lines after it
 * are requests "METHOD PATH" (any bytes but '\n' in PATH, at most 64).
 *
 * Refusals: RB_EUNSUPPORTED is a router lacking a feature (left out, as
 * verify does).  RB_ELIMIT is allowed only where a documented limit is
 * passed (glob's, also auto's once the table has globs: 128 segments a
 * pattern, 1024 nested '**' over the routes); any other RB_ELIMIT aborts.
 * The refusals are counted and printed at exit.  The hash seed is derived
 * from the input, so a crash reproduces from its input alone.
 */
#include "glob.h"
#include "router_impl.h"
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#define MAX_ROUTES   64
#define MAX_REQUESTS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct line {
    const char *p;
    size_t len;
} line;

static size_t split_lines(const char *text, size_t size, line *out, size_t max, size_t *sep)
{
    size_t n = 0, i = 0;
    *sep = SIZE_MAX;
    while (i < size && n < max) {
        const char *nl = memchr(text + i, '\n', size - i);
        size_t end = nl ? (size_t)(nl - text) : size;
        if (end - i == 2 && text[i] == '-' && text[i + 1] == '-' && *sep == SIZE_MAX)
            *sep = n;
        else
            out[n++] = (line){text + i, end - i};
        i = end + 1;
    }
    return n;
}

static int method_of(line l, size_t *rest)
{
    const char *sp = memchr(l.p, ' ', l.len);
    if (!sp) return -1;
    *rest = (size_t)(sp - l.p) + 1;
    return rb_method_parse(l.p, (size_t)(sp - l.p));
}

/* ---- documented limits ------------------------------------------------------ */

static unsigned long elimit_refusals; /* over the whole run */

static void print_refusals(void)
{
    fprintf(stderr,
            "fuzz_differential: %lu routes refused with RB_ELIMIT, each past a documented "
            "limit\n",
            elimit_refusals);
}

/* What a router has accepted so far, for its limits. */
typedef struct taken {
    uint32_t nested_stars; /* '**' after the first of each pattern, summed */
    uint32_t max_segs;
    unsigned features;
} taken;

static uint32_t nested_of(const rb_pattern *p)
{
    uint32_t stars = 0;
    for (uint32_t i = 0; i < p->nsegs; i++) stars += p->segs[i].kind == RB_SEG_GLOBSTAR;
    return stars ? stars - 1 : 0;
}

/* Does the pattern pass a limit the router documents (glob.h; auto applies
 * glob's once the table has globs)? */
static bool past_a_limit(const rb_router_ops *ops, const taken *t, const rb_pattern *p)
{
    bool glob = strcmp(rb_ops_name(ops), "glob") == 0;
    bool auto_glob =
        strcmp(rb_ops_name(ops), "auto") == 0 && ((t->features | p->features) & RB_FEAT_GLOB);
    if (!glob && !auto_glob) return false;
    return p->nsegs > RB__GLOB_MAX_DEPTH ||
           t->nested_stars + nested_of(p) > RB__GLOB_MAX_NESTED_STARS ||
           (auto_glob && t->max_segs > RB__GLOB_MAX_DEPTH);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int registered;
    if (!registered) registered = atexit(print_refusals) == 0;
    line lines[MAX_ROUTES + MAX_REQUESTS];
    size_t sep;
    size_t n = split_lines((const char *)data, size, lines, MAX_ROUTES + MAX_REQUESTS, &sep);
    if (sep == SIZE_MAX) sep = n;
    rb_config cfg = {NULL, XXH3_64bits(data, size) | 1u}; /* reproducible from the input */

    for (size_t k = 0; k < rb_registry_count(); k++) {
        const rb_router_ops *ops = rb_registry_at(k);
        if (strcmp(rb_ops_name(ops), "linear") == 0) continue;
        if (rb_ops_features(ops) & RB_FEAT_PEER) continue; /* peers: test_r3.c */
        rb_router *r, *ref;
        if (rb_router_create_ops(ops, &cfg, &r, NULL) < 0) abort();
        if (rb_router_create("linear", &cfg, &ref, NULL) < 0) abort();
        taken t = {0, 0, 0};
        for (size_t i = 0; i < sep && i < MAX_ROUTES; i++) {
            size_t rest;
            int m = method_of(lines[i], &rest);
            if (m < 0) continue;
            const char *pat = lines[i].p + rest;
            size_t len = lines[i].len - rest;
            rb_error err;
            int rc = rb_router_add(r, m, pat, len, (uint32_t)i, &err);
            rb_pattern p;
            bool parsed = rb_pattern_parse(pat, len, NULL, &p, NULL) == RB_OK;
            if (rc == RB_ELIMIT) {
                if (!parsed || !past_a_limit(ops, &t, &p)) {
                    fprintf(stderr,
                            "%s refused %.*s with RB_ELIMIT, past no documented limit: %s\n",
                            rb_ops_name(ops), (int)len, pat, err.message);
                    abort();
                }
                elimit_refusals++;
            }
            if (rc == RB_OK && parsed) {
                t.nested_stars += nested_of(&p);
                if (p.nsegs > t.max_segs) t.max_segs = p.nsegs;
                t.features |= p.features;
            }
            if (parsed) rb_pattern_free(&p);
            if (rc == RB_EUNSUPPORTED || rc == RB_ELIMIT) continue; /* refused: left out */
            int rc_ref = rb_router_add(ref, m, pat, len, (uint32_t)i, &err);
            if (rc != rc_ref) {
                fprintf(stderr, "%s: add returned %d, linear %d\n", rb_ops_name(ops), rc, rc_ref);
                abort();
            }
        }
        rb_error berr;
        if (rb_router_build(r, &berr) < 0 || rb_router_build(ref, &berr) < 0) {
            fprintf(stderr, "%s: build failed: %s\n", rb_ops_name(ops), berr.message);
            abort();
        }
        if (rb_router_check(r, &berr) < 0 || rb_router_check(ref, &berr) < 0) {
            fprintf(stderr, "%s: invariant broken after build: %s\n", rb_ops_name(ops),
                    berr.message);
            abort();
        }
        for (size_t i = sep; i < n; i++) {
            size_t rest;
            int m = method_of(lines[i], &rest);
            if (m < 0 || m >= RB_METHOD_COUNT) continue;
            rb_match got, want;
            memset(&got, 0, sizeof got);
            memset(&want, 0, sizeof want);
            rb_router_lookup(r, m, lines[i].p + rest, lines[i].len - rest, &got);
            rb_router_lookup(ref, m, lines[i].p + rest, lines[i].len - rest, &want);
            if (!rb_match_equal(&got, &want)) {
                char a[300], b[300];
                rb_match_format(&got, a, sizeof a);
                rb_match_format(&want, b, sizeof b);
                fprintf(stderr, "%s disagrees with linear on %.*s: %s vs %s\n", rb_ops_name(ops),
                        (int)lines[i].len, lines[i].p, a, b);
                abort();
            }
        }
        rb_router_destroy(r);
        rb_router_destroy(ref);
    }
    return 0;
}
