/*
 * suite.h — a measured session: routers x scenarios x conditions -> a
 * result bundle.  The inputs are plain data (the routers with their labels,
 * the scenarios, the protocol and the conditions); what happens along the
 * way is told through hooks (rb_suite_hooks), so the caller decides what to
 * show.  `run`, `pair` and `choose` are sessions that differ in their
 * inputs only:
 *
 *   run     the routers given, every scenario under one condition
 *   pair    two routers, a scenario only when both support it
 *           (all_or_nothing), the gate (gate.on), the noise note
 *   choose  every router, each scenario warm throughput then cold
 *           latency (both_conditions)
 *
 * Peers, the limit and the compiled router are routers like the others: a
 * router that refuses a scenario is left out of it with its reason (a
 * feature it lacks, known before any build; then any router whose build()
 * refuses the table: a peer's refusal, the limit's when a requested path
 * reads as a pattern, compiled's size limit), never an error of the
 * session.  Nothing here prints and nothing exits.
 */
#ifndef RB_BENCH_SUITE_H
#define RB_BENCH_SUITE_H

#include "bundle.h"
#include "callgrind.h"
#include "harness.h"
#include "peer.h"
#include "plugins.h"
#include "scenario.h"
#include "verify.h"

#include <stdbool.h>

/* The outcome of a session, ordered by severity; the values are the exit
 * statuses of the command layer of the same meaning (bench/cli/cli.h). */
enum {
    RB_SUITE_OK = 0,     /* measured */
    RB_SUITE_WRONG = 1,  /* a router of ours answered wrong or changed its answers */
    RB_SUITE_INPUT = 2,  /* a scenario or an input could not be used */
    RB_SUITE_SYSTEM = 4, /* out of memory */
};

#define RB_SUITE_MAX_ROUTERS 64
#define RB_SUITE_MAX_PEERS   24

/* What a session measures and how: filled by the caller (the command
 * layer's option tables write into it), read by rb_suite_run. */
typedef struct rb_suite {
    rb_scenario_list scenarios;
    rb_bench_protocol proto;
    uint64_t seed;
    int cpu;                                            /* < 0: not pinned */
    const rb_router_ops *routers[RB_SUITE_MAX_ROUTERS]; /* baseline first */
    char labels[RB_SUITE_MAX_ROUTERS][RB_BUNDLE_NAME];  /* names in tables and the bundle */
    size_t nrouters;
    rb_plugins plugins;  /* NAME@LIB routers' libraries, identified into the bundle */
    int metric;          /* rb_metric */
    rb_callgrind cg;     /* counted metrics, in the Callgrind child */
    rb_bundle_gate gate; /* on, a, b, threshold; decided after the scenarios */
    int mode;            /* rb_bench_mode */
    int cache;           /* 0 warm, 1 cold */
    size_t app_bytes;    /* the stand-in's size when cold */
    rb_peer_spec peers[RB_SUITE_MAX_PEERS]; /* peer runners among the routers */
    size_t npeers;
    bool all_or_nothing;       /* skip a scenario unless every router supports it */
    bool both_conditions;      /* every scenario warm-throughput, then cold-latency */
    bool noise_note;           /* two routers: say what noise the pair could see */
    const char *source_note;   /* where the routes came from, for the bundle */
    const char *requests_note; /* where the requests came from */
} rb_suite;

/* Where a session is, for a progress display. */
typedef enum rb_suite_stage {
    RB_SUITE_LOADING,       /* a scenario is generated or read */
    RB_SUITE_CHECKING,      /* every answer against linear's */
    RB_SUITE_PEERS,         /* the peer runners start */
    RB_SUITE_COUNTING,      /* Callgrind counts the routers */
    RB_SUITE_COUNTING_PEER, /* Callgrind counts a peer runner */
} rb_suite_stage;

/* A peer runner's agreement, measured beside the run (not in the bundle). */
typedef struct rb_suite_peer_note {
    const rb_router_ops *ops;
    rb_peer_agreement a;
} rb_suite_peer_note;

/* One measured pass, just added to the bundle as its last scenario. */
typedef struct rb_suite_pass {
    const rb_scenario *sc;
    const rb_bench_run *run;
    const rb_verify_report *reports; /* per in-process router, run->subjects order */
    size_t nreports;
    const rb_suite_peer_note *notes;
    size_t nnotes;
} rb_suite_pass;

/* The routers a scenario leaves out: lacking a feature, refusing it. */
typedef struct rb_suite_refusals {
    rb_bundle_refusal v[RB_BUNDLE_MAX_REFUSED];
    size_t n;
} rb_suite_refusals;

/* What the caller hears; any hook may be NULL.  ctx is passed back. */
typedef struct rb_suite_hooks {
    void *ctx;
    /* b holds the session's facts, nothing measured yet */
    void (*begun)(void *ctx, const rb_bundle *b);
    /* pass over scenario i begins: cold or warm, what ("" or " (warm)") */
    void (*pass)(void *ctx, size_t i, bool cold, const char *what);
    void (*stage)(void *ctx, rb_suite_stage stage);
    rb_bench_progress_fn step; /* the harness's steps */
    void (*measured)(void *ctx, const rb_bundle *b, const rb_suite_pass *p);
    /* scenario left out: skipped lists the routers lacking a feature */
    void (*skipped)(void *ctx, const char *scenario, const char *skipped,
                    const rb_suite_refusals *ref);
    /* scenario could not be measured (the session goes on unless the
     * status is RB_SUITE_INPUT or RB_SUITE_SYSTEM) */
    void (*failed)(void *ctx, const char *scenario, const rb_error *err);
} rb_suite_hooks;

/* Defaults: 9 trials, 1 warm-up, 100 ms, wall clock, the time metric, seed
 * 42, not pinned, warm throughput. */
void rb_suite_init(rb_suite *s);
void rb_suite_free(rb_suite *s);

/* Append ops labelled label (a router already in the list is not added
 * twice).  RB_ELIMIT past RB_SUITE_MAX_ROUTERS. */
int rb_suite_add_ops(rb_suite *s, const rb_router_ops *ops, const char *label, rb_error *err);
/* Add a peer runner (copied) to the peers; RB_ELIMIT when full.  Not yet a
 * router: rb_suite_add_ops(s, &peer->ops, ...) makes it one. */
int rb_suite_add_peer(rb_suite *s, const rb_peer_spec *spec, rb_error *err);
/* How many of the peers run in a JIT runtime: Callgrind cannot count
 * them (the counted metrics refuse them at once); timed, they warm up
 * longer (harness.c). */
size_t rb_suite_jit_peers(const rb_suite *s);
/* The peer runner spec named name, or NULL. */
rb_peer_spec *rb_suite_peer(rb_suite *s, const char *name);
/* The label of ops among the routers (its name when not one of them). */
const char *rb_suite_label(const rb_suite *s, const rb_router_ops *ops);

/* Measure every scenario with the routers of s (baseline s->routers[0])
 * into b (initialised here; free with rb_bundle_free): the bundle's facts,
 * the scenarios one by one, then the duration, the warnings, the geometric
 * means, the gate.  Returns RB_SUITE_OK, RB_SUITE_WRONG (a router of ours
 * disagreed with EXPECTED or linear, verify.h), RB_SUITE_INPUT or
 * RB_SUITE_SYSTEM; for the last two before any scenario or after them, err
 * says why (a scenario's own error goes to hooks->failed). */
int rb_suite_run(rb_suite *s, const rb_suite_hooks *hooks, rb_bundle *b, rb_error *err);

#endif
