/*
 * test_peer.c — the peer runner protocol (bench/measure/peer.h, docs/peer-protocol.md)
 * with the minimal runner of peers/minimal/runner.c (plain C, so CI needs
 * no other toolchain), and the harness's latency mode and cold cache (by
 * structure: checksums and counts, no timing assertions).
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "peer.h"
#include "rb_test.h"
#include "router_impl.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static void paths(const char *name, char *rp, char *qp, size_t cap)
{
    rbt_data_path(name, "routes", rp, cap);
    rbt_data_path(name, "requests", qp, cap);
}

static void minimal_spec(rb_peer_spec *spec)
{
    rb_error err;
    cr_assert_eq(rb_peer_spec_parse("minimal=" RB_PEER_MINIMAL, spec, &err), RB_OK, "%s",
                 err.message);
}

/* The minimal runner answers every GitHub request as linear does,
 * capture spans included, and its trials fold to reps x the checksum of
 * its answers. */
Test(peer, the_minimal_runner_agrees_with_linear_on_github)
{
    char rp[4096], qp[4096];
    rb_route_table routes;
    rb_request_table reqs;
    rbt_load_shipped("github", &routes, &reqs, rp, sizeof rp);
    paths("github", rp, qp, sizeof rp);
    rb_peer_spec spec;
    minimal_spec(&spec);
    rb_peer *p;
    rb_error err;
    cr_assert_eq(rb_peer_start(&spec, rp, qp, reqs.count, &p, &err), RB_OK, "%s", err.message);
    cr_expect_eq(p->nrefused, 0u);
    cr_expect_eq(p->nanswers, reqs.count);
    rb_peer_agreement a;
    cr_assert_eq(rb_peer_check(p, &routes, &reqs, &a, &err), RB_OK, "%s", err.message);
    cr_expect_eq(a.agree_expected, reqs.count);
    cr_expect_eq(a.agree_linear, reqs.count);
    cr_expect(a.spans);
    uint64_t ns, sum;
    cr_assert_eq(rb_peer_trial(p, 3, &ns, &sum, &err), RB_OK, "%s", err.message);
    cr_expect_eq(sum, 3 * p->checksum);
    /* the checksum is the protocol's: sum of (id + 2) over EXPECTED */
    uint64_t want = 0;
    for (size_t i = 0; i < reqs.count; i++) want += (uint64_t)((int64_t)reqs.reqs[i].expected + 2);
    cr_expect_eq(p->checksum, want);
    rb_peer_close(p);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

/* Globs, '**' and templates are beyond the minimal runner: it says so route
 * by route.  The routes it must refuse are those the shared parser says need
 * a glob or a template. */
Test(peer, a_runner_reports_each_route_it_refuses)
{
    char rp[4096], qp[4096];
    rb_route_table routes;
    rb_request_table reqs;
    rbt_load_shipped("semantics", &routes, &reqs, rp, sizeof rp);
    paths("semantics", rp, qp, sizeof rp);
    rb_error err;
    size_t globs = 0, templates = 0;
    for (size_t i = 0; i < routes.count; i++) {
        rb_pattern pat;
        const char *text = rb_route_pattern(&routes, i);
        cr_assert_eq(rb_pattern_parse(text, routes.routes[i].len, NULL, &pat, &err), RB_OK);
        if (pat.features & RB_FEAT_GLOB)
            globs++;
        else if (pat.features & RB_FEAT_TEMPLATE)
            templates++;
        rb_pattern_free(&pat);
    }
    rb_peer_spec spec;
    minimal_spec(&spec);
    rb_peer *p;
    cr_assert_eq(rb_peer_start(&spec, rp, qp, reqs.count, &p, &err), RB_OK, "%s", err.message);
    cr_expect_gt(globs, 0u);
    cr_expect_gt(templates, 0u);
    cr_expect_eq(p->nrefused, globs + templates, "refused %zu, globs %zu, templates %zu",
                 p->nrefused, globs, templates);
    cr_expect(strstr(p->first_refusal, "globs") != NULL, "%s", p->first_refusal);
    rb_peer_close(p);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

/* A runner that breaks the protocol is an error naming it and the line. */
Test(peer, a_runner_that_breaks_the_protocol_is_an_error_naming_the_line)
{
    char *dir = rbt_tmpdir();
    char script[4096];
    snprintf(script, sizeof script, "%s/bad.sh", dir);
    FILE *f = fopen(script, "w");
    cr_assert(f);
    fprintf(f, "#!/bin/sh\necho 'routebench-peer 1 bad'\necho 'loaded 3 0 -1'\necho 'a x'\n");
    fclose(f);
    chmod(script, 0755);
    rb_peer_spec spec;
    rb_error err;
    char text[4200];
    snprintf(text, sizeof text, "bad=%s", script);
    cr_assert_eq(rb_peer_spec_parse(text, &spec, &err), RB_OK, "%s", err.message);
    char rp[4096], qp[4096];
    paths("github", rp, qp, sizeof rp);
    rb_peer *p;
    cr_expect_eq(rb_peer_start(&spec, rp, qp, 10, &p, &err), RB_EIO);
    cr_expect(strstr(err.message, "peer bad: expected a ID") != NULL, "%s", err.message);
    cr_expect(strstr(err.message, "\"a x\"") != NULL, "%s", err.message);
    /* one that exits early */
    f = fopen(script, "w");
    fprintf(f, "#!/bin/sh\necho 'routebench-peer 1 bad'\n");
    fclose(f);
    cr_expect_eq(rb_peer_start(&spec, rp, qp, 10, &p, &err), RB_EIO);
    cr_expect(strstr(err.message, "output ended") != NULL, "%s", err.message);
    rbt_remove_tree(dir);
    free(dir);
}

/* A runner that crashes with a stack trace (Go's gin panicked inside its
 * lookup on the Discord table and flooded the terminal: runners inherited
 * routebench's stderr): none of its stderr reaches ours, and the error
 * ends with its one telling line.  One that writes far more than a pipe
 * holds before it speaks is read as it goes, never left blocked. */
Test(peer, regression_219_a_runners_stderr_is_one_short_line_in_the_error)
{
    char *dir = rbt_tmpdir();
    char script[4096], caught[4200];
    snprintf(script, sizeof script, "%s/crash.sh", dir);
    snprintf(caught, sizeof caught, "%s/stderr.txt", dir);
    FILE *f = fopen(script, "w");
    cr_assert(f);
    fprintf(f,
            "#!/bin/sh\necho 'routebench-peer 1 crash'\n"
            "echo 'goroutine noise first' >&2\n"
            "echo 'panic: runtime error: index out of range [1] with length 1' >&2\n"
            "i=0; while [ $i -lt 3000 ]; do\n"
            "  echo \"	/usr/share/gocode/src/github.com/gin-gonic/gin/tree.go:$i +0xdbb\" >&2\n"
            "  i=$((i+1)); done\nexit 2\n");
    fclose(f);
    chmod(script, 0755);
    rb_peer_spec spec;
    rb_error err;
    char text[4200];
    snprintf(text, sizeof text, "crash=%s", script);
    cr_assert_eq(rb_peer_spec_parse(text, &spec, &err), RB_OK, "%s", err.message);
    char rp[4096], qp[4096];
    paths("github", rp, qp, sizeof rp);
    /* our stderr, into a file for the length of the run */
    fflush(stderr);
    int saved = dup(2), fd = open(caught, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    rb_peer *p;
    int rc = rb_peer_start(&spec, rp, qp, 10, &p, &err);
    dup2(saved, 2);
    close(saved);
    cr_expect_eq(rc, RB_EIO);
    cr_expect_str_eq(err.message, "peer crash: its output ended (the runner exited or crashed): "
                                  "panic: runtime error: index out of range [1] with length 1");
    struct stat st;
    cr_assert_eq(stat(caught, &st), 0);
    cr_expect_eq(st.st_size, 0, "the runner's stderr reached ours (%lld bytes)",
                 (long long)st.st_size);
    /* 200 KB of stderr before the hello, then the protocol: it completes */
    f = fopen(script, "w");
    fprintf(f,
            "#!/bin/sh\ni=0; while [ $i -lt 2000 ]; do\n"
            "  echo '%0100d' >&2; i=$((i+1)); done\n"
            "echo 'routebench-peer 1 crash'\necho 'loaded 1 0 -1'\necho 'a 5'\necho 'ready'\n"
            "read cmd\n",
            0);
    fclose(f);
    cr_expect_eq(rb_peer_start(&spec, rp, qp, 1, &p, &err), RB_OK, "%s", err.message);
    if (p) rb_peer_close(p);
    rbt_remove_tree(dir);
    free(dir);
}

/* Writes a runner answering 3 requests (ids 5, -1, 7), with fold_line
 * before "ready" when not empty, whose trials sum to R times per_replay. */
static void fold_runner(const char *script, const char *fold_line, unsigned per_replay)
{
    FILE *f = fopen(script, "w");
    cr_assert(f);
    fprintf(f,
            "#!/bin/sh\necho 'routebench-peer 1 folded'\necho 'loaded 3 0 -1'\n"
            "echo 'a 5'\necho 'a -1'\necho 'a 7'\n%s%secho ready\n"
            "while read cmd r; do [ \"$cmd\" = run ] || exit 0; echo \"ok 1000 $((r * %u))\"; "
            "done\n",
            fold_line, *fold_line ? "\n" : "", per_replay);
    fclose(f);
    chmod(script, 0755);
}

/* Rule: a runner may say "fold CHECKSUM" before "ready": its timed loop
 * then folds something cheaper than the route id (the answers are checked
 * from the "a" lines) and its trials must sum to R times that.  A runner
 * that does not say it is held to the answers' sum, as before. */
Test(peer, a_runner_may_fold_its_own_checksum_and_old_runners_keep_working)
{
    char *dir = rbt_tmpdir();
    char script[4096], text[4200], rp[4096], qp[4096];
    snprintf(script, sizeof script, "%s/folded.sh", dir);
    snprintf(text, sizeof text, "folded=%s", script);
    paths("github", rp, qp, sizeof rp);
    rb_peer_spec spec;
    rb_error err;
    cr_assert_eq(rb_peer_spec_parse(text, &spec, &err), RB_OK, "%s", err.message);
    rb_peer *p;
    uint64_t ns, sum;
    /* the fold: 3 per replay (one per request, say), whatever the ids */
    fold_runner(script, "echo 'fold 3'", 3);
    cr_assert_eq(rb_peer_start(&spec, rp, qp, 3, &p, &err), RB_OK, "%s", err.message);
    cr_expect_eq(p->checksum, 3u);
    cr_expect_eq(p->answers[0].id, 5);
    cr_assert_eq(rb_peer_trial(p, 4, &ns, &sum, &err), RB_OK, "%s", err.message);
    cr_expect_eq(sum, 4 * p->checksum);
    rb_peer_close(p);
    /* protocol 1 without a fold: the sum of (id + 2) = 7 + 1 + 9 */
    fold_runner(script, "", 17);
    cr_assert_eq(rb_peer_start(&spec, rp, qp, 3, &p, &err), RB_OK, "%s", err.message);
    cr_expect_eq(p->checksum, 17u);
    rb_peer_close(p);
    /* a malformed fold is a protocol error naming the line */
    const char *bad[] = {"fold x", "fold -3", "fold 3 4", "fold"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char line[64];
        snprintf(line, sizeof line, "echo '%s'", bad[i]);
        fold_runner(script, line, 3);
        cr_expect_eq(rb_peer_start(&spec, rp, qp, 3, &p, &err), RB_EIO, "%s", bad[i]);
        cr_expect(strstr(err.message, bad[i]) != NULL, "%s", err.message);
    }
    rbt_remove_tree(dir);
    free(dir);
}

Test(peer, specs_are_checked)
{
    rb_peer_spec spec;
    rb_error err;
    cr_expect_eq(rb_peer_spec_parse("no-command", &spec, &err), RB_EINVAL);
    cr_expect_eq(rb_peer_spec_parse("bad name=x", &spec, &err), RB_EINVAL);
    cr_expect_eq(rb_peer_spec_parse("ok=a b c", &spec, &err), RB_OK);
    cr_expect_str_eq(spec.argv[0], "a");
    cr_expect_str_eq(spec.argv[2], "c");
    cr_expect_null(spec.argv[3]);
    rb_peer_spec copy;
    rb_peer_spec_copy(&copy, &spec);
    cr_expect(copy.argv[1] >= copy.storage && copy.argv[1] < copy.storage + sizeof copy.storage);
    cr_expect_str_eq(copy.ops.name, "ok");
    cr_expect_eq(rb_peer_builtin("nosuch", NULL, &spec, &err), RB_ENOTFOUND);
    /* a known runner under an empty directory is "not built", with the fix */
    char *dir = rbt_tmpdir();
    cr_expect_eq(rb_peer_builtin("httprouter", dir, &spec, &err), RB_EUNSUPPORTED);
    cr_expect(strstr(err.message, "scripts/setup.sh --peers") != NULL, "%s", err.message);
    rbt_remove_tree(dir);
    free(dir);
}

/* Every built-in runner has a spec; the Node ones are marked JIT, and a
 * JIT runner is refused by the counted metric with the reason, before
 * anything is started. */
Test(peer, builtin_runners_and_the_jit_refusal)
{
    cr_expect_geq(rb_peer_builtin_count(), 15u);
    cr_expect_null(rb_peer_builtin_name(rb_peer_builtin_count()));
    cr_expect(strstr(rb_peer_builtin_names(), "matchit") != NULL);
    char *dir = rbt_tmpdir();
    char js[4200], bin[4200];
    snprintf(js, sizeof js, "%s/js", dir);
    snprintf(bin, sizeof bin, "%s/bin", dir);
    cr_assert_eq(mkdir(js, 0700), 0);
    cr_assert_eq(mkdir(bin, 0700), 0);
    static const char *const made[] = {"js/rou3.mjs", "js/node_modules/.package-lock.json",
                                       "bin/matchit"};
    char path[4400];
    snprintf(path, sizeof path, "%s/js/node_modules", dir);
    cr_assert_eq(mkdir(path, 0700), 0);
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, made[i]);
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        fclose(f);
        chmod(path, 0700);
    }
    rb_peer_spec spec;
    rb_error err;
    int rc = rb_peer_builtin("rou3", dir, &spec, &err);
    if (rc == RB_EUNSUPPORTED) { /* no node on PATH: nothing more to check */
        cr_expect(strstr(err.message, "node") != NULL, "%s", err.message);
    } else {
        cr_assert_eq(rc, RB_OK, "%s", err.message);
        cr_expect(spec.jit);
        cr_expect_str_eq(spec.argv[0], "node");
        rb_peer_counts c;
        cr_expect_eq(rb_peer_count(&spec, "r", "q", 1, 1, false, &c, &err), RB_EUNSUPPORTED);
        cr_expect(strstr(err.message, "JIT") != NULL, "%s", err.message);
    }
    cr_assert_eq(rb_peer_builtin("matchit-per-method", dir, &spec, &err), RB_OK, "%s", err.message);
    cr_expect(!spec.jit);
    cr_expect_str_eq(spec.argv[1], "per-method");
    cr_expect_null(spec.argv[2]);
    rbt_remove_tree(dir);
    free(dir);
}

/* run prepared with radix on GitHub's table (routes, reqs); rp and qp
 * (4096 bytes each) the table's two files, for a peer. */
static void radix_on_github(rb_bench_run *run, rb_route_table *routes, rb_request_table *reqs,
                            char *rp, char *qp)
{
    rbt_load_shipped("github", routes, reqs, rp, 4096);
    paths("github", rp, qp, 4096);
    const rb_router_ops *ops[1] = {rb_registry_find("radix")};
    rb_error err;
    cr_assert_eq(rb_bench_prepare(run, routes, reqs, ops, 1, NULL, &err), RB_OK, "%s", err.message);
}

/* Starts the peer of spec on the files rp, qp (count requests) and adds
 * it to run. */
static void join_peer(rb_bench_run *run, rb_peer_spec *spec, const char *rp, const char *qp,
                      size_t count)
{
    rb_error err;
    rb_peer *p;
    cr_assert_eq(rb_peer_start(spec, rp, qp, count, &p, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_bench_add_peer(run, &spec->ops, p, p->checksum, 0, &err), RB_OK);
}

/* A peer joins the paired rounds: every router and the peer get every
 * trial, and the peer's trials pass the checksum check. */
Test(peer, a_peer_is_measured_in_the_same_rounds_as_in_process_routers)
{
    char rp[4096], qp[4096];
    rb_route_table routes;
    rb_request_table reqs;
    rb_bench_run run;
    radix_on_github(&run, &routes, &reqs, rp, qp);
    rb_error err;
    rb_peer_spec spec;
    minimal_spec(&spec);
    join_peer(&run, &spec, rp, qp, reqs.count);
    const rb_bench_protocol proto = {4, 0, 0.5, RB_BENCH_CLOCK_WALL, 7};
    cr_assert_eq(rb_bench_measure(&run, &proto, NULL, NULL, &err), RB_OK, "%s", err.message);
    cr_assert_eq(run.ntrials, 8u);
    size_t per[2] = {0, 0};
    for (size_t i = 0; i < run.ntrials; i++) per[run.trials[i].subject]++;
    cr_expect_eq(per[0], 4u);
    cr_expect_eq(per[1], 4u);
    rb_bench_run_free(&run);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

/* Writes a runner that answers 3 requests and reports its own trial
 * times, as a runtime that optimises its loop while it runs: a replay
 * takes 2 ms at first and 1 ms once the loop has run 500 ms (its reported
 * time, summed); gradual: falling steadily from 2 ms to 1 ms over those
 * 500 ms, else in one step at 500 ms after a plateau. */
static void warming_runner(const char *script, bool gradual)
{
    FILE *f = fopen(script, "w");
    cr_assert(f);
    fprintf(f,
            "#!/bin/sh\necho 'routebench-peer 1 warming'\necho 'loaded 3 0 -1'\n"
            "echo 'a 5'\necho 'a -1'\necho 'a 7'\necho 'fold 3'\necho ready\ncum=0\n"
            "while read cmd r; do [ \"$cmd\" = run ] || exit 0\n"
            "  %s\n"
            "  cum=$((cum + r * us)); echo \"ok $((r * us * 1000)) $((r * 3))\"\n"
            "done\n",
            gradual ? "us=$((2000 - cum / 500)); [ $us -lt 1000 ] && us=1000"
                    : "us=2000; [ $cum -ge 500000 ] && us=1000");
    fclose(f);
    chmod(script, 0755);
}

/* Measures radix and the warming runner (as a JIT runtime or not) with
 * 100 ms trials; whether the runner's trials had to be measured again. */
static bool warming_runner_recalibrated(bool gradual, bool jit)
{
    char *dir = rbt_tmpdir();
    char script[4096], text[4200], rp[4096], qp[4096];
    snprintf(script, sizeof script, "%s/warming.sh", dir);
    snprintf(text, sizeof text, "warming=%s", script);
    warming_runner(script, gradual);
    rb_route_table routes;
    rb_request_table reqs;
    rb_bench_run run;
    radix_on_github(&run, &routes, &reqs, rp, qp);
    rb_error err;
    rb_peer_spec spec;
    cr_assert_eq(rb_peer_spec_parse(text, &spec, &err), RB_OK, "%s", err.message);
    spec.jit = jit;
    join_peer(&run, &spec, rp, qp, 3);
    const rb_bench_protocol proto = {5, 1, 100, RB_BENCH_CLOCK_WALL, 7};
    cr_assert_eq(rb_bench_measure(&run, &proto, NULL, NULL, &err), RB_OK, "%s", err.message);
    bool again = run.subjects[1].recalibrated;
    cr_expect_eq(run.subjects[1].short_trials, 0u);
    rb_bench_run_free(&run);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
    rbt_remove_tree(dir);
    free(dir);
    return again;
}

/* Regression: a Node peer got faster after calibration (V8 optimising its
 * loop), so its trials ran short and the scenario was measured again (9
 * of 180 router-scenarios of the field run, all peers).  A peer now warms
 * up until it stops getting faster, and a JIT runtime for a second at the
 * least (the runner's times are its own, so this is exact). */
Test(peer, regression_220_a_peer_warms_up_until_it_stops_getting_faster, .timeout = 60)
{
    cr_expect(!warming_runner_recalibrated(true, false),
              "a runner getting faster steadily was calibrated too early");
    cr_expect(!warming_runner_recalibrated(false, true),
              "a JIT runner that speeds up after a plateau was calibrated too early");
}

/* Latency mode and the cold cache replay the same requests in the same
 * order: a router's trials fold to reps x its checksum (else the measure
 * fails with RB_ESTATE), and the cold run records the clock cost it
 * subtracted. */
Test(modes, latency_and_cold_replays_keep_the_checksum)
{
    char rp[4096];
    rb_route_table routes;
    rb_request_table reqs;
    rbt_load_shipped("github", &routes, &reqs, rp, sizeof rp);
    const rb_router_ops *ops[2] = {rb_registry_find("radix"), rb_registry_find("hashseg")};
    const rb_bench_protocol proto = {3, 0, 0.5, RB_BENCH_CLOCK_WALL, 1};
    rb_error err;
    for (int mode = 0; mode < 2; mode++)
        for (size_t app = 0; app <= 4096; app += 4096) {
            rb_bench_run run;
            cr_assert_eq(rb_bench_prepare(&run, &routes, &reqs, ops, 2, NULL, &err), RB_OK);
            cr_assert_eq(rb_bench_set_conditions(&run, mode, app, &err), RB_OK);
            cr_assert_eq(rb_bench_measure(&run, &proto, NULL, NULL, &err), RB_OK, "%s",
                         err.message);
            cr_expect_eq(run.ntrials, 6u);
            if (app) {
                cr_expect_eq(run.app_bytes, app);
                cr_expect_gt(run.app_ns, 0.0);
                cr_expect_gt(run.app_iters, 0u);
            } else {
                cr_expect_null(run.app);
            }
            rb_bench_run_free(&run);
        }
    rb_bench_run run;
    cr_assert_eq(rb_bench_prepare(&run, &routes, &reqs, ops, 2, NULL, &err), RB_OK);
    cr_expect_eq(rb_bench_set_conditions(&run, 7, 0, &err), RB_EINVAL);
    rb_bench_run_free(&run);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

/* docs/peer-protocol.md lists the minimal runner in full: the listing is
 * the file CI builds and runs, byte for byte. */
Test(peer, the_protocol_doc_lists_the_tested_minimal_runner_verbatim)
{
    char *doc = rbt_slurp(RB_SOURCE_DIR, "docs/peer-protocol.md", NULL);
    char *src = rbt_slurp(RB_SOURCE_DIR, "peers/minimal/runner.c", NULL);
    cr_assert(doc && src);
    const char *mark = "<!-- peers/minimal/runner.c -->\n```c\n";
    const char *start = strstr(doc, mark);
    cr_assert(start != NULL, "the listing's marker is missing");
    start += strlen(mark);
    const char *end = strstr(start, "\n```\n");
    cr_assert(end != NULL, "the listing is not closed");
    size_t n = (size_t)(end - start) + 1; /* its last newline */
    cr_expect_eq(n, strlen(src), "listing %zu bytes, runner.c %zu", n, strlen(src));
    cr_expect(n == strlen(src) && memcmp(start, src, n) == 0,
              "docs/peer-protocol.md's listing differs from peers/minimal/runner.c");
    free(doc);
    free(src);
}
