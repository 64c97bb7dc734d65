/*
 * test_concurrent_outputs.c — outputs stay whole with several writers at
 * once and kills at random moments (base/file.h):
 *
 *   - writers of one directory or one file, racing in a loop while others
 *     are killed, never destroy each other's work: every writer that is not
 *     killed succeeds, and what is left is one writer's output, whole;
 *   - after any such race the next write succeeds and leaves nothing
 *     beside the output;
 *   - the same through the CLI: `run --out`, `corpus gen --out`;
 *   - an output named by a symbolic link to nothing is refused before any
 *     work;
 *   - a pair of files (corpus gen's routes and requests) is committed as
 *     one step for other writers of the pair.
 *
 * One numbered regression test per fixed bug (150-153, 195), its cause in
 * a line.  Nothing here is timed: the kills land at random moments drawn
 * from a fixed seed, and every assertion is about what is on disk.
 */
#include "file.h"
#include "rb_test.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[64];

static void setup(void)
{
    char *dir = rbt_tmpdir();
    snprintf(tmpdir, sizeof tmpdir, "%s", dir);
    free(dir);
}

static void teardown(void)
{
    rbt_remove_tree(tmpdir);
}

TestSuite(concurrent_outputs, .init = setup, .fini = teardown, .timeout = 600);

enum { FILES = 5, WRITERS = 4 };

static const char *in_tmp(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", tmpdir, name);
    return buf;
}

/* The text of file f of writer w's round r: its tag, padded so a write
 * takes a few system calls. */
static size_t content(char *buf, size_t cap, int w, int r, int f)
{
    int n = snprintf(buf, cap, "writer %d round %d file %d\n", w, r, f);
    size_t len = (size_t)n;
    for (; len + 64 < cap && len < 8192; len++) buf[len] = (char)('a' + (len % 26));
    return len;
}

/* One writer: `rounds` bundles of FILES files into dir; exits 0 when every
 * write succeeded, 1 (with the message on stderr) on the first failure. */
static void dir_writer(const char *dir, int w, int rounds)
{
    static char buf[9000];
    for (int r = 0; r < rounds; r++) {
        rb_error err;
        rb_dir_staged s;
        int rc = rb_dir_stage(dir, &s, &err);
        for (int f = 0; rc == RB_OK && f < FILES; f++) {
            char name[16];
            snprintf(name, sizeof name, "f%d", f);
            size_t len = content(buf, sizeof buf, w, r, f);
            rc = rb_dir_put(&s, name, buf, len, &err);
        }
        if (rc == RB_OK)
            rc = rb_dir_commit(&s, &err);
        else
            rb_dir_discard(&s);
        if (rc < 0) {
            fprintf(stderr, "writer %d round %d: %s\n", w, r, err.message);
            _exit(1);
        }
    }
    _exit(0);
}

static void file_writer(const char *path, int w, int rounds)
{
    static char buf[9000];
    for (int r = 0; r < rounds; r++) {
        rb_error err;
        size_t len = content(buf, sizeof buf, w, r, 0);
        if (rb_file_write_atomic(path, buf, len, &err) < 0) {
            fprintf(stderr, "writer %d round %d: %s\n", w, r, err.message);
            _exit(1);
        }
    }
    _exit(0);
}

/* Is dir one writer's bundle, whole: FILES files, each with the tag and
 * padding of the same writer and round? */
static void expect_whole_dir(const char *dir, const char *when)
{
    char tag0[64] = "";
    for (int f = 0; f < FILES; f++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", f);
        size_t len;
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        struct stat st;
        cr_assert_eq(stat(path, &st), 0, "%s: %s is missing: the bundle is not whole", when, path);
        char *text = rbt_slurp(dir, name, &len);
        int w, r, ff;
        cr_assert_eq(sscanf(text, "writer %d round %d file %d", &w, &r, &ff), 3, "%s: %s", when,
                     path);
        char want[9000];
        size_t want_len = content(want, sizeof want, w, r, ff);
        cr_expect(ff == f && len == want_len && memcmp(text, want, len) == 0,
                  "%s: %s is torn or misplaced", when, path);
        char tag[64];
        snprintf(tag, sizeof tag, "%d/%d", w, r);
        if (f == 0) snprintf(tag0, sizeof tag0, "%s", tag);
        cr_expect_str_eq(tag, tag0, "%s: %s is of another write than f0", when, path);
        free(text);
    }
}

/* Names in tmpdir that start with prefix (the output's leftovers). */
static int count_beside(const char *prefix)
{
    DIR *d = opendir(tmpdir);
    cr_assert_not_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) n++;
    closedir(d);
    return n;
}

typedef void (*writer_fn)(const char *out, int w, int rounds);

/* WRITERS writers of out, `rounds` writes each, while `kills` further
 * writers are started and killed (SIGKILL) at random moments (seed).
 * Asserts that no writer that was not killed failed. */
static void race(writer_fn writer, const char *out, int rounds, int kills, unsigned seed)
{
    pid_t pids[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        pids[w] = fork();
        cr_assert_geq(pids[w], 0);
        if (pids[w] == 0) writer(out, w, rounds);
    }
    srand(seed);
    for (int k = 0; k < kills; k++) {
        pid_t victim = fork();
        cr_assert_geq(victim, 0);
        if (victim == 0) writer(out, WRITERS + k, 1000);
        struct timespec ts = {0, (long)(rand() % 20000) * 1000L}; /* 0-20 ms */
        nanosleep(&ts, NULL);
        kill(victim, SIGKILL);
        int st;
        waitpid(victim, &st, 0);
    }
    for (int w = 0; w < WRITERS; w++) {
        int st;
        cr_assert_eq(waitpid(pids[w], &st, 0), pids[w]);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "writer %d failed while another wrote the same output (see stderr)", w);
    }
}

/* Regression 150: each writer's clean-up of a killed writer's leftovers
 * removed every DIR.tmp.*, other writers' live ones included: writers
 * failed ("cannot create DIR.tmp.X/trials.csv") and DIR was left holding
 * only the files written after the removal. */
Test(concurrent_outputs, regression_150_writers_of_one_directory_never_destroy_each_others_work)
{
    char dir[128];
    in_tmp("b", dir, sizeof dir);
    for (unsigned campaign = 1; campaign <= 3; campaign++) {
        race(dir_writer, dir, 40, 12, campaign);
        char when[32];
        snprintf(when, sizeof when, "campaign %u", campaign);
        expect_whole_dir(dir, when);
        /* the next write succeeds and cleans up what the killed ones left */
        pid_t p = fork();
        if (p == 0) dir_writer(dir, 99, 1);
        int st;
        waitpid(p, &st, 0);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: the next write failed", when);
        expect_whole_dir(dir, when);
        cr_expect_eq(count_beside("b."), 0, "%s: leftovers beside b after the next write", when);
    }
}

/* Regression 151: the same for single files (corpus gen, import, profile,
 * --export-json): a writer's clean-up removed a live writer's PATH.tmp.*,
 * and that writer failed. */
Test(concurrent_outputs, regression_151_writers_of_one_file_never_destroy_each_others_work)
{
    char path[128];
    in_tmp("t.routes", path, sizeof path);
    race(file_writer, path, 150, 12, 7);
    size_t len;
    char *text = rbt_slurp(tmpdir, "t.routes", &len);
    int w, r, f;
    cr_assert_eq(sscanf(text, "writer %d round %d file %d", &w, &r, &f), 3);
    char want[9000];
    cr_expect(len == content(want, sizeof want, w, r, f) && memcmp(text, want, len) == 0,
              "t.routes is torn");
    free(text);
    rb_error err;
    cr_assert_eq(rb_file_write_atomic(path, "x\n", 2, &err), RB_OK, "%s", err.message);
    cr_expect_eq(count_beside("t.routes."), 0, "leftovers beside t.routes after the next write");
}

/* A live writer's temporary directory is not a leftover, even when it
 * carries no files yet; a dead writer's is. */
Test(concurrent_outputs, a_live_writers_temporaries_are_kept_a_dead_ones_removed)
{
    char dir[128], live[160], dead[160];
    in_tmp("b", dir, sizeof dir);
    /* pid 1 is alive (init); a pid above pid_max is not */
    snprintf(live, sizeof live, "%s.tmp.1.Ab12Cd", dir);
    snprintf(dead, sizeof dead, "%s.tmp.999999999.Ab12Cd", dir);
    cr_assert_eq(mkdir(live, 0755), 0);
    cr_assert_eq(mkdir(dead, 0755), 0);
    rb_error err;
    cr_assert_eq(rb_dir_clean_leftovers(dir, &err), RB_OK, "%s", err.message);
    struct stat st;
    cr_expect_eq(stat(live, &st), 0, "a running writer's temporary directory was removed");
    cr_expect_neq(stat(dead, &st), 0, "a gone writer's temporary directory was kept");
}

/* Is a process waiting for an flock (a "->" line of /proc/locks naming
 * pid)? */
static bool waits_for_flock(pid_t pid)
{
    FILE *f = fopen("/proc/locks", "r");
    if (!f) return false;
    char line[256], want[32];
    snprintf(want, sizeof want, " %d ", (int)pid);
    bool waiting = false;
    while (!waiting && fgets(line, sizeof line, f))
        waiting = strstr(line, "-> FLOCK") != NULL && strstr(line, want) != NULL;
    fclose(f);
    return waiting;
}

/* Regression 195: corpus gen renamed its requests, then its routes, and
 * two writers of one pair could interleave (one's requests beside the
 * other's routes: verify refused the pair; seen once in CI in regression
 * 152's race).  rb_file_commit_pair takes the directory's flock for the
 * two renames: while another holds it, a writer renames neither file. */
Test(concurrent_outputs, regression_195_a_pair_is_committed_as_one_step)
{
    char first[128], second[128];
    in_tmp("p.requests", first, sizeof first);
    in_tmp("p.routes", second, sizeof second);
    rb_error err;
    cr_assert_eq(rb_file_write_atomic(first, "old requests", 12, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_file_write_atomic(second, "old routes", 10, &err), RB_OK, "%s", err.message);
    int dfd = open(tmpdir, O_RDONLY | O_DIRECTORY);
    cr_assert_geq(dfd, 0);
    cr_assert_eq(flock(dfd, LOCK_EX), 0); /* another writer's commit, in progress */
    pid_t child = fork();
    cr_assert_geq(child, 0);
    if (child == 0) {
        close(dfd); /* the lock belongs to the parent's descriptor, not to a copy of it */
        rb_file_staged a, b;
        if (rb_file_stage(first, "new requests", 12, &a, &err) < 0 ||
            rb_file_stage(second, "new routes", 10, &b, &err) < 0 ||
            rb_file_commit_pair(&a, &b, &err) < 0)
            _exit(1);
        _exit(0);
    }
    /* the child reaches the lock and waits there (or, without the lock,
     * renames both at once and exits) */
    bool waiting = false;
    for (int i = 0; i < 10000 && !waiting; i++) {
        waiting = waits_for_flock(child);
        if (!waiting && waitpid(child, NULL, WNOHANG) == child) break;
        if (!waiting) nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    char *q = rbt_slurp(tmpdir, "p.requests", NULL), *r = rbt_slurp(tmpdir, "p.routes", NULL);
    cr_expect(waiting, "the second writer did not wait for the pair's lock");
    cr_expect_str_eq(q, "old requests", "a file of the pair was renamed while another held it");
    cr_expect_str_eq(r, "old routes");
    free(q), free(r);
    close(dfd); /* the other commit is done */
    int st = 0;
    cr_assert_eq(waitpid(child, &st, 0) == child || errno == ECHILD, true);
    q = rbt_slurp(tmpdir, "p.requests", NULL), r = rbt_slurp(tmpdir, "p.routes", NULL);
    cr_expect_str_eq(q, "new requests");
    cr_expect_str_eq(r, "new routes");
    free(q), free(r);
}

/* ---- through the CLI ---------------------------------------------------------- */

#define RUN_FAST "--trials 2 --warmup 0 --min-trial-ms 0.05"

static rbt_shell sh(const char *cmd)
{
    return rbt_shell_run(tmpdir, cmd);
}

/* Regression 152: concurrent `run --out SAME` left DIR holding only
 * cost.svg, which every later run refused as "not empty and not a
 * bundle"; concurrent `corpus gen --out SAME` failed the same way.  Four
 * writers of each output (a bundle, a corpus pair, an imported table, a
 * profile), six rounds, one more bundle writer killed in each. */
Test(concurrent_outputs, regression_152_concurrent_cli_writers_leave_whole_outputs)
{
    char doc[4096], routes[4096];
    snprintf(doc, sizeof doc, "%s/corpus/data/openapi/discord.openapi.json", RB_SOURCE_DIR);
    rbt_data_path("github", "routes", routes, sizeof routes);
    cr_assert_eq(setenv("DOC", doc, 1), 0);
    cr_assert_eq(setenv("ROUTES", routes, 1), 0);
    rbt_shell r =
        sh("for round in 1 2 3 4 5 6; do "
           "for w in 1 2 3 4; do "
           "(\"$RB\" run --routers radix --baseline radix --scenarios params-100 " RUN_FAST
           " --seed $w --out b >/dev/null 2>err.run.$w || echo \"run $w\" >> failed) & "
           "(\"$RB\" corpus gen --routes 300 --seed $w --shape mixed --out p >/dev/null "
           "2>err.gen.$w || echo \"gen $w\" >> failed) & "
           "(\"$RB\" corpus import --openapi \"$DOC\" --out i.routes >/dev/null "
           "2>err.import.$w || echo \"import $w\" >> failed) & "
           "(\"$RB\" corpus profile \"$ROUTES\" --out prof.json >/dev/null "
           "2>err.profile.$w || echo \"profile $w\" >> failed) & "
           "done; "
           "\"$RB\" run --routers radix --baseline radix --scenarios params-100 " RUN_FAST
           " --out b >/dev/null 2>&1 & k=$!; sleep 0.0$round; kill -9 $k 2>/dev/null; "
           "wait; done; "
           "if [ -f failed ]; then cat failed err.*; exit 1; fi");
    cr_assert_eq(r.status, 0, "a writer failed beside others: %s", r.out);
    rbt_shell_free(&r);
    r = sh("\"$RB\" report b >/dev/null && \"$RB\" corpus check p.routes >/dev/null && "
           "\"$RB\" verify --router linear --routes p.routes --requests p.requests >/dev/null && "
           "\"$RB\" corpus check i.routes >/dev/null && grep -q '\"routes\"' prof.json");
    cr_expect_eq(r.status, 0, "what the race left is not whole: %s", r.err);
    rbt_shell_free(&r);
    r = sh("\"$RB\" run --routers radix --baseline radix --scenarios params-100 " RUN_FAST
           " --out b >/dev/null && ls -d b.* p.*.tmp.* i.*.tmp.* prof.*.tmp.* 2>/dev/null | wc -l");
    cr_expect_eq(r.status, 0, "the next run refused what the race left: %s", r.err);
    cr_expect_str_eq(r.out, "0\n", "leftovers after the next run");
    rbt_shell_free(&r);
}

/* Regression 153: `--out` naming a symbolic link to nothing passed the
 * up-front check and failed only after measuring. */
Test(concurrent_outputs, regression_153_an_output_linked_to_nothing_is_refused_before_any_work)
{
    rbt_shell r = sh("ln -s missing/dir b && \"$RB\" run --routers radix --baseline radix "
                     "--scenarios params-100 --trials 30 --out b");
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "symbolic link") != NULL, "%s", r.err);
    cr_expect(strstr(r.out, "params-100") == NULL, "it measured first: %s", r.out);
    rbt_shell_free(&r);
    r = sh("ln -s nowhere/x.routes p.routes && \"$RB\" corpus gen --routes 10 --seed 1 "
           "--shape static --out p");
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "symbolic link") != NULL, "%s", r.err);
    rbt_shell_free(&r);
    /* a link to an existing directory is written through */
    r = sh("mkdir real && ln -s real c && \"$RB\" run --routers radix --baseline radix "
           "--scenarios params-100 " RUN_FAST " --out c >/dev/null && test -L c && "
           "test -f real/summary.json");
    cr_expect_eq(r.status, 0, "%s", r.err);
    rbt_shell_free(&r);
}
