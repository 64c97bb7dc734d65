/*
 * callgrind.h — counted measurements (`--metric instructions` and
 * `--metric cycles-est`): routebench runs itself under Valgrind's Callgrind
 * and counts, with Callgrind's client requests, only the replay loop of one
 * router at a time.
 *
 *   parent   routebench pair --metric instructions ...
 *              rb_callgrind_run: fork, then exec
 *                valgrind --tool=callgrind --instr-atstart=no
 *                         --collect-atstart=no [--cache-sim=yes]
 *                         --callgrind-out-file=TMP/cg.out  routebench pair ...
 *              with a fixed environment and address-space randomisation
 *              off; waits, removes TMP, returns the child's exit status.
 *   child    the same command, measuring (rb_callgrind_child is true):
 *              per scenario, every router is built in an arena of its own
 *              with a fixed hash seed (rb_bench_prepare_pinned); then
 *              CALLGRIND_START_INSTRUMENTATION, one counted pass with no
 *              replay (so that the counting code itself is warm for the
 *              first router too), and per router, in turn, from a copy of
 *              its subject on the stack (the same address for every router):
 *                pass 1: CALLGRIND_ZERO_STATS, CALLGRIND_TOGGLE_COLLECT, one
 *                  replay of the request table, CALLGRIND_TOGGLE_COLLECT:
 *                  warms the code, lazily bound calls and the simulated
 *                  caches (collection must be on for the cache simulation
 *                  to see the accesses); its counts are zeroed next
 *                pass 2: the same with RB_CALLGRIND_REPLAYS replays (the
 *                  timed loop of the harness: lookup + fold of each answer),
 *                  then CALLGRIND_DUMP_STATS_AT(router)
 *                read TMP/cg.out.N (the N-th dump: its "events:" and
 *                  "summary:" lines) and delete it
 *              then CALLGRIND_STOP_INSTRUMENTATION.
 *
 * What is pinned, and why, so that two builds of the same code count the
 * same: the request table and replay loop are the same memory and code for
 * every router; each router's memory comes from its own arena whose chunks
 * are aligned to 4 MiB (bench/measure/arena.h), so data offsets, and hence the
 * alignment-dependent paths of memcmp/memchr and the simulated cache sets,
 * are identical; the hash seed is fixed (RB_CALLGRIND_HASH_SEED); the
 * environment is fixed (PATH, LC_ALL and, when set, VALGRIND_LIB,
 * ROUTEBENCH_DATA, and CC, RB_COMPILED_CACHE, XDG_CACHE_HOME and HOME for
 * the compiled router's cache), so the stack starts at the same place; address-space
 * randomisation is off for the child (personality ADDR_NO_RANDOMIZE); one
 * thread runs.  What cannot be pinned is where each library's code and
 * static data are loaded.  That changes no instruction count, and two
 * copies of one library load at the same page offsets, so their simulated
 * cache behaviour is identical too; but a built-in router and its copy in
 * librouters.so keep static tables at other offsets, and under cycles-est
 * they can differ by about 1 in 10^4 (tens of L1 misses in 4,096 lookups).
 *
 * A peer runner (peer.h) is not replayed here: rb_peer_count counted its
 * own loop in its own process before (two runs under Callgrind, one replay
 * apart), and its trial is that count.
 *
 * Counts are exact: the same binary, scenario and seed give the same count
 * on every run, whatever else the machine does.  They include the replay
 * loop's own few instructions per lookup (the indirect call and the fold),
 * the same for every router.
 *
 * cycles-est, the estimate iai-callgrind uses (after Itamar
 * Turner-Trauring):
 *     L1 hits  = Ir + Dr + Dw - (I1mr + D1mr + D1mw)
 *     LL hits  = (I1mr + D1mr + D1mw) - (ILmr + DLmr + DLmw)
 *     RAM      = ILmr + DLmr + DLmw
 *     cycles   = L1 hits + 5 LL hits + 35 RAM
 * with Callgrind's simulated caches (the machine's L1 and last level).
 *
 * Nothing here prints or exits.
 */
#ifndef RB_BENCH_CALLGRIND_H
#define RB_BENCH_CALLGRIND_H

#include "harness.h"

#include <stdbool.h>
#include <stdint.h>

/* Replays of the request table counted per router (one is exact). */
#define RB_CALLGRIND_REPLAYS 1u
/* The hash seed of every router in a counted measurement. */
#define RB_CALLGRIND_HASH_SEED UINT64_C(0x63616c6c67726e64) /* "callgrnd" */
/* The environment variable through which the parent tells the child where
 * the dumps go. */
#define RB_CALLGRIND_ENV "ROUTEBENCH_CALLGRIND_OUT"

/* Callgrind's events for one router's counted replays. */
typedef struct rb_callgrind_counts {
    uint64_t ir;               /* instructions executed */
    uint64_t dr, dw;           /* data reads, writes (cache simulation) */
    uint64_t i1mr, d1mr, d1mw; /* L1 misses: instruction, data read, data write */
    uint64_t ilmr, dlmr, dlmw; /* last-level misses, the same three */
} rb_callgrind_counts;

uint64_t rb_callgrind_data_refs(const rb_callgrind_counts *c); /* Dr + Dw */
uint64_t rb_callgrind_l1_misses(const rb_callgrind_counts *c); /* I1mr + D1mr + D1mw */
uint64_t rb_callgrind_ll_misses(const rb_callgrind_counts *c); /* ILmr + DLmr + DLmw */
/* The formula at the top, from the four sums above. */
uint64_t rb_callgrind_cycles(uint64_t ir, uint64_t data_refs, uint64_t l1_misses,
                             uint64_t ll_misses);

/* Parse a Callgrind dump: its "events:" line and its "summary:" line (or,
 * when absent, "totals:": a sum of cost lines that can count the
 * inclusive cost of calls twice, so it is only the fallback).  RB_EFORMAT naming the line when malformed or
 * when Ir is missing; events the dump lacks are 0. */
int rb_callgrind_parse(const char *text, size_t len, rb_callgrind_counts *out, rb_error *err);

/* Is Callgrind support compiled in (the valgrind headers were found)? */
bool rb_callgrind_built(void);
/* Valgrind's version as its headers give it ("3.19"; the Debian package
 * ships them with the tool), "" when support is not compiled in. */
void rb_callgrind_version(char *buf, size_t cap);
/* Is this process the measuring child: running under Valgrind with
 * RB_CALLGRIND_ENV set? */
bool rb_callgrind_child(void);
/* Running under any Valgrind tool? */
bool rb_callgrind_under_valgrind(void);

/* Parent: run this executable with argv[0..argc) (argv[0] the command
 * name, e.g. "pair") under Callgrind as described at the top, and store
 * its exit status in *status (128 + N when killed by signal N).
 * RB_EUNSUPPORTED when valgrind is not installed or support is not built
 * in (err says which and what to install), RB_EIO when it cannot start. */
int rb_callgrind_run(int argc, char **argv, bool cache_sim, int *status, rb_error *err);

/* The child's side: where the dumps go and how many were made (Callgrind
 * numbers them from 1 in the process). */
typedef struct rb_callgrind {
    char prefix[4096]; /* the --callgrind-out-file of the parent */
    unsigned dumps;
} rb_callgrind;

/* Child: start counting; RB_ESTATE unless rb_callgrind_child(). */
int rb_callgrind_open(rb_callgrind *cg, rb_error *err);

/* Child: count every subject of run, in turn, as described at the top.
 * run->trials gets one trial per subject (trial 0, position k): lookups =
 * RB_CALLGRIND_REPLAYS x requests, ns = the metric's value (instructions,
 * or the cycles estimate when cache_sim), and the raw counts.  labels
 * name the dumps (may be NULL).  RB_ESTATE when a router's answers change,
 * RB_EIO/RB_EFORMAT when a dump cannot be read. */
int rb_callgrind_measure(rb_callgrind *cg, rb_bench_run *run, bool cache_sim,
                         const char *const *labels, rb_error *err);

#endif
