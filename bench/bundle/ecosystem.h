/*
 * ecosystem.h — the verdict for the users of each language: the peer
 * runners of one language (Go, Rust, Node; r3 for C) ranked among
 * themselves on a scenario, and the compatibility of every router with
 * the table (routes refused, requests answered otherwise).
 *
 *   Go: echo fastest, 1.16x [1.10, 1.21] faster than gin; gorilla-mux 122x
 *       slower; httprouter refuses 80 routes
 *   Node: no clear winner between hono-trie and hono (within noise); rou3 not
 *       ranked: 52 of 4096 answers differ from EXPECTED
 *   Rust: matchit alone accepts the table and answers right: no ranking
 *
 * The rules are our verdict's (verdict.h): the fastest has the smallest
 * median; its interval over the runner-up comes from the paired rounds;
 * "no clear winner" when it includes 1 (counted metrics: unless exactly
 * 1); a runner with a wrong answer (against EXPECTED, or linear's spans)
 * is never ranked, the line says why.  A language ranks its runners only
 * against each other: every runner of a language runs in its own process
 * with the same protocol, never against our routers, which run in
 * process (the renderers say so).
 *
 * A pure function of the bundle: the same bundle gives the same lines,
 * so `routebench report DIR` renders them again byte for byte.
 */
#ifndef RB_BENCH_ECOSYSTEM_H
#define RB_BENCH_ECOSYSTEM_H

#include "bundle.h"

#include <stdbool.h>
#include <stddef.h>

#define RB_ECOSYSTEM_LANGS   8
#define RB_ECOSYSTEM_RUNNERS 24
#define RB_ECOSYSTEM_TEXT    2048

/* How a router fared with the table. */
typedef enum rb_compat_state {
    RB_COMPAT_ACCEPTED = 0, /* built and measured */
    RB_COMPAT_REFUSED,      /* refused some routes ("refuses N routes (first: ...)") */
    RB_COMPAT_FAILED,       /* could not be measured (a runner that crashed, ...) */
    RB_COMPAT_SKIPPED,      /* not run: lacks a feature the table needs */
} rb_compat_state;

/* One router's compatibility with the table of a scenario. */
typedef struct rb_compat_row {
    const char *router;    /* points into the bundle */
    char language[16];     /* "C" for ours and in-process peers */
    bool peer;             /* a peer (not one of ours) */
    bool in_process;       /* measured in routebench's process */
    int state;             /* rb_compat_state */
    size_t refused_routes; /* RB_COMPAT_REFUSED: how many (0: not said) */
    const char *reason;    /* refused, failed: the reason as recorded ("" else) */
    size_t result;         /* accepted: index into the scenario's results, else SIZE_MAX */
    uint64_t wrong;        /* answers differing from EXPECTED */
    uint64_t wrong_linear; /* peers: answers differing from linear's (spans too) */
} rb_compat_row;

/* One runner in its language's ranking. */
typedef struct rb_ecosystem_runner {
    size_t row;             /* index into the ecosystem's compat rows */
    double median;          /* per lookup, in the bundle's metric */
    rb_paired_result speed; /* the fastest's speed over it (ranked, not the fastest) */
    bool has_speed;
    bool top; /* the fastest, or not significantly slower */
} rb_ecosystem_runner;

/* The verdict of one language on one scenario. */
typedef struct rb_ecosystem {
    size_t scenario;
    char language[16];
    rb_compat_row rows[RB_ECOSYSTEM_RUNNERS]; /* its runners, as the scenario lists them */
    size_t nrows;
    rb_ecosystem_runner ranked[RB_ECOSYSTEM_RUNNERS]; /* fastest first */
    size_t nranked, ntop;
    bool significant;             /* the fastest's lead over the runner-up excludes 1 */
    char line[RB_ECOSYSTEM_TEXT]; /* "Go: echo fastest, ..." */
} rb_ecosystem;

/* The language of a router from its summary: "Go" for "peer process: Go
 * ...", "other" for a runner of one's own ("peer process: ./my-runner"),
 * "C" for ours and in-process peers. */
void rb_ecosystem_language(const rb_bundle *b, const char *router, char *buf, size_t cap);
/* The same from a summary alone. */
void rb_ecosystem_language_of(const char *summary, char *buf, size_t cap);
/* Is language (any case) one of list ("go,rust")? */
bool rb_ecosystem_language_in(const char *language, const char *list);

/* Every router of scenario si with the table: results, then routers
 * skipped for a feature, then refusals; at most cap rows.  Returns how
 * many. */
size_t rb_compat_rows(const rb_bundle *b, size_t si, rb_compat_row *rows, size_t cap);

/* The languages of scenario si's peers, each with its verdict line, in
 * the order of their first runner; at most cap.  None for a scenario
 * that is another condition of an earlier table (peers measure warm
 * throughput only) or that has no peer.  Returns how many. */
size_t rb_ecosystems(const rb_bundle *b, size_t si, rb_ecosystem *out, size_t cap);

/* Is the table worth showing: a peer, a refusal, a router skipped or one
 * that answered otherwise?  (Else every router accepted it and agreed.) */
bool rb_compat_worth(const rb_compat_row *rows, size_t n);

/* What a row says in a few words: "accepts all 242 routes", "refuses 80
 * of 242 routes", "not run: lacks params", "could not be measured". */
void rb_compat_routes_text(const rb_bundle *b, size_t si, const rb_compat_row *row, char *buf,
                           size_t cap);

/* "52 of 4096 requests differ from EXPECTED", "agrees on all 4096", "-"
 * when it was not measured. */
void rb_compat_answers_text(const rb_bundle *b, size_t si, const rb_compat_row *row, char *buf,
                            size_t cap);

/* The heading every renderer puts over the language lines. */
extern const char rb_ecosystem_heading[];

#endif
