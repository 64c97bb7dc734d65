/*
 * peer_count.c — a peer runner's lookups counted by Callgrind (peer.h,
 * docs/peer-protocol.md "The counted metric").
 *
 * The runner is started twice under
 *
 *     env GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off
 *     valgrind --tool=callgrind --collect-atstart=no
 *              --toggle-collect=*routebench_peer_loop ... RUNNER ROUTES REQUESTS
 *
 * and told "run 1" the first time, "run 2" the second: Callgrind counts
 * only what runs inside the runner's function routebench_peer_loop (its
 * timed loop, and whatever it calls), so the difference of the two totals
 * is exactly one warm replay of the request table (the first replay, the
 * same in both processes, pays the one-time costs: lazy binding, first
 * touches), and the loop's own entry and exit cancel out.  The Go
 * settings keep Go's runtime out of the loop as far as it can be kept: no
 * garbage collection, one processor, no signal-based preemption (and no
 * RDTSCP, which Valgrind announces but does not run).
 *
 * The pair of processes is run twice: the second difference is an A/A of
 * the first.  C and Rust runners count the same both times (spread 0, an
 * exact count); a Go runner's scheduler still runs inside the loop when its
 * timer-driven preemption check fires, so its two counts differ (by up to
 * 0.15%), and that spread is the count's tolerance (docs/peer-protocol.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "peer.h"

#include "base_internal.h"
#include "callgrind.h"
#include "file.h"
#include "program.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Quit p and wait for its exit (Callgrind writes its dump then), at most
 * RB_PEER_TIMEOUT_S; then free it.  RB_EIO when it did not exit 0. */
static int finish(rb_peer *p, rb_error *err)
{
    static const char quit[] = "quit\n";
    ssize_t ignored = write(p->to, quit, sizeof quit - 1);
    (void)ignored;
    close(p->to);
    close(p->from);
    p->to = p->from = -1;
    int status = 0;
    bool gone = rb__reap_child(p->pid, RB_PEER_TIMEOUT_S * UINT64_C(1000), false, &status) == 1;
    p->pid = 0;
    char name[sizeof p->name];
    memcpy(name, p->name, sizeof name);
    rb_peer_close(p);
    if (!gone || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return rb__error(err, RB_EIO, RB_NO_OFFSET,
                         "peer %s under Callgrind did not exit cleanly (status %d)", name, status);
    return RB_OK;
}

/* One counted process: "run reps" under Callgrind, its counts into *c. */
static int count_once(const rb_peer_spec *spec, const char *valgrind, const char *dir,
                      const char *routes, const char *requests, size_t nrequests, uint64_t checksum,
                      uint64_t reps, bool cache_sim, rb_callgrind_counts *c, rb_error *err)
{
    char out[4200], out_opt[4300];
    snprintf(out, sizeof out, "%s/peer.%llu.cg", dir, (unsigned long long)reps);
    snprintf(out_opt, sizeof out_opt, "--callgrind-out-file=%s", out);
    const char *pre[] = {"env",
                         "GOGC=off",
                         "GOMAXPROCS=1",
                         "GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off",
                         valgrind,
                         "--tool=callgrind",
                         "-q",
                         "--collect-atstart=no",
                         "--toggle-collect=*routebench_peer_loop",
                         cache_sim ? "--cache-sim=yes" : "--cache-sim=no",
                         "--compress-strings=no",
                         out_opt};
    size_t npre = sizeof pre / sizeof pre[0], nargs = 0;
    while (spec->argv[nargs]) nargs++;
    if (npre + nargs > RB_PEER_MAX_ARGS)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET,
                         "peer %s: too many arguments to run it under Callgrind", spec->name);
    rb_peer_spec counted;
    memset(&counted, 0, sizeof counted);
    memcpy(counted.name, spec->name, sizeof counted.name);
    size_t used = 0;
    for (size_t i = 0; i < npre + nargs; i++) {
        const char *a = i < npre ? pre[i] : spec->argv[i - npre];
        size_t n = strlen(a) + 1;
        if (used + n > sizeof counted.storage)
            return rb__error(err, RB_ELIMIT, RB_NO_OFFSET,
                             "peer %s: its command under Callgrind is too long", spec->name);
        memcpy(counted.storage + used, a, n);
        counted.argv[i] = counted.storage + used;
        used += n;
    }
    rb_peer *p;
    int rc = rb_peer_start(&counted, routes, requests, nrequests, &p, err);
    if (rc < 0) return rc;
    uint64_t ns, sum;
    rc = rb_peer_trial(p, reps, &ns, &sum, err);
    if (rc == RB_OK && sum != reps * checksum)
        rc = rb__error(err, RB_ESTATE, RB_NO_OFFSET,
                       "peer %s under Callgrind answered differently (checksum %llu, not %llu)",
                       spec->name, (unsigned long long)sum, (unsigned long long)(reps * checksum));
    if (rc < 0) {
        rb_peer_close(p);
        unlink(out);
        return rc;
    }
    rc = finish(p, err);
    char *text = NULL;
    size_t len = 0;
    if (rc == RB_OK) rc = rb_file_read(out, &text, &len, err);
    if (rc == RB_OK) rc = rb_callgrind_parse(text, len, c, err);
    free(text);
    unlink(out);
    return rc;
}

int rb_peer_count(const rb_peer_spec *spec, const char *routes, const char *requests,
                  size_t nrequests, uint64_t checksum, bool cache_sim, rb_peer_counts *out,
                  rb_error *err)
{
    memset(out, 0, sizeof *out);
    if (spec->jit)
        return rb__error(err, RB_EUNSUPPORTED, RB_NO_OFFSET,
                         "peer %s runs in a JIT runtime (Node): its lookups are machine code "
                         "made at run time, so no function of the runner holds them and "
                         "Callgrind's count would mix in the compiler's work",
                         spec->name);
    char valgrind[4096];
    if (!rb__find_program("valgrind", valgrind, sizeof valgrind))
        return rb__error(err, RB_EUNSUPPORTED, RB_NO_OFFSET,
                         "valgrind is not installed (Debian package valgrind; scripts/setup.sh "
                         "installs it): a peer is counted under Callgrind");
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    int w =
        snprintf(dir, sizeof dir, "%s/routebench-peer-count.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (w < 0 || (size_t)w >= sizeof dir || !mkdtemp(dir))
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot create a temporary directory: %s",
                         strerror(errno));
    rb_callgrind_counts one, two, again1, again2;
    int rc = count_once(spec, valgrind, dir, routes, requests, nrequests, checksum, 1, cache_sim,
                        &one, err);
    if (rc == RB_OK)
        rc = count_once(spec, valgrind, dir, routes, requests, nrequests, checksum, 2, cache_sim,
                        &two, err);
    if (rc == RB_OK)
        rc = count_once(spec, valgrind, dir, routes, requests, nrequests, checksum, 1, cache_sim,
                        &again1, err);
    if (rc == RB_OK)
        rc = count_once(spec, valgrind, dir, routes, requests, nrequests, checksum, 2, cache_sim,
                        &again2, err);
    rmdir(dir);
    if (rc < 0) return rc;
    if (two.ir <= one.ir)
        return rb__error(err, RB_EUNSUPPORTED, RB_NO_OFFSET,
                         "peer %s: no instructions counted inside routebench_peer_loop (%llu "
                         "for one replay, %llu for two): the runner has no function of that "
                         "name around its timed loop (docs/peer-protocol.md), or it is stripped",
                         spec->name, (unsigned long long)one.ir, (unsigned long long)two.ir);
    out->ir = two.ir - one.ir;
    uint64_t aa = again2.ir > again1.ir ? again2.ir - again1.ir : 0;
    uint64_t lo = aa < out->ir ? aa : out->ir, hi = aa < out->ir ? out->ir : aa;
    out->spread = lo ? (double)(hi - lo) / (double)lo : 0;
    uint64_t dr1 = rb_callgrind_data_refs(&one), dr2 = rb_callgrind_data_refs(&two);
    uint64_t l11 = rb_callgrind_l1_misses(&one), l12 = rb_callgrind_l1_misses(&two);
    uint64_t ll1 = rb_callgrind_ll_misses(&one), ll2 = rb_callgrind_ll_misses(&two);
    /* cache events of a warm replay: never below zero (a replay can miss
     * less than the one before it) */
    out->data_refs = dr2 > dr1 ? dr2 - dr1 : 0;
    out->l1_misses = l12 > l11 ? l12 - l11 : 0;
    out->ll_misses = ll2 > ll1 ? ll2 - ll1 : 0;
    return RB_OK;
}
