/*
 * callgrind.c — counted measurements under Callgrind (callgrind.h).
 */
#define _GNU_SOURCE
#include "callgrind.h"

#include "file.h"
#include "base_internal.h"
#include "peer.h"
#include "program.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef RB_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#else
#define RUNNING_ON_VALGRIND             0
#define CALLGRIND_START_INSTRUMENTATION ((void)0)
#define CALLGRIND_STOP_INSTRUMENTATION  ((void)0)
#define CALLGRIND_ZERO_STATS            ((void)0)
#define CALLGRIND_TOGGLE_COLLECT        ((void)0)
#define CALLGRIND_DUMP_STATS_AT(label)  ((void)(label))
#endif

/* ---- counts ----------------------------------------------------------------- */

uint64_t rb_callgrind_data_refs(const rb_callgrind_counts *c)
{
    return c->dr + c->dw;
}

uint64_t rb_callgrind_l1_misses(const rb_callgrind_counts *c)
{
    return c->i1mr + c->d1mr + c->d1mw;
}

uint64_t rb_callgrind_ll_misses(const rb_callgrind_counts *c)
{
    return c->ilmr + c->dlmr + c->dlmw;
}

uint64_t rb_callgrind_cycles(uint64_t ir, uint64_t data_refs, uint64_t l1_misses,
                             uint64_t ll_misses)
{
    uint64_t l1_hits = ir + data_refs - l1_misses;
    uint64_t ll_hits = l1_misses - ll_misses;
    return l1_hits + 5 * ll_hits + 35 * ll_misses;
}

/* ---- parsing a dump ------------------------------------------------------- */

static const char *const event_names[] = {"Ir",   "Dr",   "Dw",   "I1mr", "D1mr",
                                          "D1mw", "ILmr", "DLmr", "DLmw"};
#define NEVENTS (sizeof event_names / sizeof event_names[0])

static uint64_t *event_slot(rb_callgrind_counts *c, size_t i)
{
    uint64_t *slots[NEVENTS] = {&c->ir,   &c->dr,   &c->dw,   &c->i1mr, &c->d1mr,
                                &c->d1mw, &c->ilmr, &c->dlmr, &c->dlmw};
    return slots[i];
}

static bool starts(const char *line, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(line, prefix, k) == 0;
}

int rb_callgrind_parse(const char *text, size_t len, rb_callgrind_counts *out, rb_error *err)
{
    int order[32]; /* event index of each column, -1 unknown */
    size_t ncols = 0, line_no = 0, events_line = 0;
    const char *totals = NULL, *summary = NULL;
    size_t totals_len = 0, summary_len = 0, totals_line = 0, summary_line = 0;
    bool have_ir = false;
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        line_no++;
        if (starts(p, n, "events:")) {
            events_line = line_no;
            ncols = 0;
            const char *q = p + 7, *e = p + n;
            while (q < e) {
                while (q < e && *q == ' ') q++;
                const char *w = q;
                while (q < e && *q != ' ') q++;
                if (q == w) break;
                if (ncols == sizeof order / sizeof order[0])
                    return rb__error(err, RB_EFORMAT, RB_NO_OFFSET,
                                     "callgrind dump line %zu: too many events", line_no);
                int idx = -1;
                for (size_t i = 0; i < NEVENTS; i++)
                    if (strlen(event_names[i]) == (size_t)(q - w) &&
                        memcmp(event_names[i], w, (size_t)(q - w)) == 0)
                        idx = (int)i;
                have_ir = have_ir || idx == 0;
                order[ncols++] = idx;
            }
        } else if (starts(p, n, "totals:")) {
            totals = p + 7;
            totals_len = n - 7;
            totals_line = line_no;
        } else if (starts(p, n, "summary:")) {
            summary = p + 8;
            summary_len = n - 8;
            summary_line = line_no;
        }
        p = nl ? nl + 1 : end;
    }
    if (!events_line || !have_ir)
        return rb__error(err, RB_EFORMAT, RB_NO_OFFSET,
                         "callgrind dump: no \"events:\" line naming Ir");
    /* "summary:" is the dump's total; "totals:" (a checksum of the cost
     * lines) can count a call's inclusive cost twice. */
    const char *vals = summary ? summary : totals;
    size_t vlen = summary ? summary_len : totals_len, vline = summary ? summary_line : totals_line;
    if (!vals)
        return rb__error(err, RB_EFORMAT, RB_NO_OFFSET,
                         "callgrind dump: no \"totals:\" or \"summary:\" line");
    rb_callgrind_counts c = {0};
    const char *q = vals, *e = vals + vlen;
    for (size_t col = 0; col < ncols; col++) {
        while (q < e && *q == ' ') q++;
        if (q == e) break; /* trailing zero columns may be left out */
        if (*q < '0' || *q > '9')
            return rb__error(err, RB_EFORMAT, RB_NO_OFFSET,
                             "callgrind dump line %zu: a count is not a number", vline);
        uint64_t v = 0;
        while (q < e && *q >= '0' && *q <= '9') {
            uint64_t d = (uint64_t)(*q - '0');
            if (v > (UINT64_MAX - d) / 10)
                return rb__error(err, RB_EFORMAT, RB_NO_OFFSET,
                                 "callgrind dump line %zu: a count overflows", vline);
            v = v * 10 + d;
            q++;
        }
        if (order[col] >= 0) *event_slot(&c, (size_t)order[col]) = v;
    }
    while (q < e && (*q == ' ' || *q == '\r')) q++;
    if (q != e)
        return rb__error(err, RB_EFORMAT, RB_NO_OFFSET,
                         "callgrind dump line %zu: more counts than events", vline);
    *out = c;
    return RB_OK;
}

/* ---- the child ------------------------------------------------------------ */

bool rb_callgrind_built(void)
{
#ifdef RB_HAVE_CALLGRIND
    return true;
#else
    return false;
#endif
}

void rb_callgrind_version(char *buf, size_t cap)
{
#if defined(RB_HAVE_CALLGRIND) && defined(__VALGRIND_MAJOR__)
    snprintf(buf, cap, "%d.%d", __VALGRIND_MAJOR__, __VALGRIND_MINOR__);
#else
    if (cap) buf[0] = '\0';
#endif
}

bool rb_callgrind_under_valgrind(void)
{
    return RUNNING_ON_VALGRIND != 0;
}

bool rb_callgrind_child(void)
{
    return rb_callgrind_under_valgrind() && getenv(RB_CALLGRIND_ENV) != NULL;
}

/* Read and delete dump number n of the prefix. */
static int read_dump(const char *prefix, unsigned n, rb_callgrind_counts *out, rb_error *err)
{
    char path[4096];
    int w = snprintf(path, sizeof path, "%s.%u", prefix, n);
    if (w < 0 || (size_t)w >= sizeof path)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "callgrind output path too long");
    char *text = NULL;
    size_t len = 0;
    int rc = rb_file_read(path, &text, &len, err);
    if (rc == RB_OK) rc = rb_callgrind_parse(text, len, out, err);
    free(text);
    unlink(path);
    return rc;
}

/* One pass of reps replays of s, counted or not.  Warm-up and counted
 * passes go through this one function (not inlined), so that the loop's
 * code and its stack frame are the same for both and for every router. */
__attribute__((noinline)) static int pass(const rb_bench_run *run, const rb_bench_subject *s,
                                          uint64_t reps, bool counted, rb_error *err)
{
    if (counted) {
        CALLGRIND_ZERO_STATS;
        CALLGRIND_TOGGLE_COLLECT;
    }
    int rc = rb_bench_replay(run, s, reps, err);
    if (counted) CALLGRIND_TOGGLE_COLLECT;
    return rc;
}

int rb_callgrind_open(rb_callgrind *cg, rb_error *err)
{
    memset(cg, 0, sizeof *cg);
    const char *prefix = getenv(RB_CALLGRIND_ENV);
    if (!rb_callgrind_child() || !prefix)
        return rb__error(err, RB_ESTATE, RB_NO_OFFSET,
                         "a counted measurement runs only in the child of rb_callgrind_run");
    if (strlen(prefix) >= sizeof cg->prefix)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "callgrind output path too long");
    strcpy(cg->prefix, prefix);
    return RB_OK;
}

int rb_callgrind_measure(rb_callgrind *cg, rb_bench_run *run, bool cache_sim,
                         const char *const *labels, rb_error *err)
{
    size_t nr = run->nsubjects;
    free(run->trials);
    run->ntrials = 0;
    run->trials = calloc(nr ? nr : 1, sizeof *run->trials);
    if (!run->trials) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    int rc = RB_OK;
    CALLGRIND_START_INSTRUMENTATION;
    /* The collected path once with no replay, so that its own code is not
     * cold (an instruction-cache miss) for the first router only. */
    if (nr && !run->subjects[0].peer) {
        rb_bench_subject dry = run->subjects[0];
        rc = pass(run, &dry, 0, true, err);
        CALLGRIND_ZERO_STATS;
    }
    for (size_t k = 0; rc == RB_OK && k < nr; k++) {
        rb_bench_subject *s = &run->subjects[k];
        s->reps = RB_CALLGRIND_REPLAYS;
        if (s->peer) { /* counted in its own process already (peer.h) */
            if (!s->peer->counted) {
                rc = rb__error(err, RB_ESTATE, RB_NO_OFFSET, "peer %s was not counted",
                               s->peer->name);
                break;
            }
            const rb_peer_counts *pc = &s->peer->counts;
            rb_bench_trial *t = &run->trials[run->ntrials++];
            memset(t, 0, sizeof *t);
            t->subject = (uint32_t)k;
            t->position = (uint32_t)k;
            t->lookups = run->nqueries; /* one replay: rb_peer_count's difference */
            t->ir = pc->ir;
            t->data_refs = pc->data_refs;
            t->l1_misses = pc->l1_misses;
            t->ll_misses = pc->ll_misses;
            t->ns = cache_sim ? rb_callgrind_cycles(t->ir, t->data_refs, t->l1_misses, t->ll_misses)
                              : t->ir;
            if (t->ns == 0) t->ns = 1;
            continue;
        }
        /* The loop reads the subject from the same stack address for every
         * router (a copy), not from its own place in the array. */
        rb_bench_subject local = *s;
        if (local.lookup_impl == &s->slowed) local.lookup_impl = &local.slowed;
        rc = pass(run, &local, 1, true, err); /* warm-up (its counts are zeroed) */
        if (rc < 0) break;
        rc = pass(run, &local, RB_CALLGRIND_REPLAYS, true, err);
        CALLGRIND_DUMP_STATS_AT(labels && labels[k] ? labels[k] : rb_ops_name(s->ops));
        cg->dumps++;
        if (rc < 0) break;
        rb_callgrind_counts c;
        rc = read_dump(cg->prefix, cg->dumps, &c, err);
        if (rc < 0) break;
        rb_bench_trial *t = &run->trials[run->ntrials++];
        memset(t, 0, sizeof *t);
        t->subject = (uint32_t)k;
        t->position = (uint32_t)k;
        t->lookups = RB_CALLGRIND_REPLAYS * run->nqueries;
        t->ir = c.ir;
        t->data_refs = rb_callgrind_data_refs(&c);
        t->l1_misses = rb_callgrind_l1_misses(&c);
        t->ll_misses = rb_callgrind_ll_misses(&c);
        t->ns = cache_sim ? rb_callgrind_cycles(t->ir, t->data_refs, t->l1_misses, t->ll_misses)
                          : t->ir;
        if (t->ns == 0) t->ns = 1;
    }
    CALLGRIND_STOP_INSTRUMENTATION;
    return rc;
}

/* ---- the parent ------------------------------------------------------------ */

/* rm -r of the flat directory dir. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char path[4096];
            int w = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (w > 0 && (size_t)w < sizeof path) unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* The fixed environment of the child (see the top). */
static size_t child_env(char **env, size_t cap, char *storage, size_t storage_cap,
                        const char *prefix)
{
    /* CC and the cache's place: the compiled router finds the library the
     * parent built (bench/measure/compiled.h) */
    static const char *const passed[] = {"VALGRIND_LIB",      "ROUTEBENCH_DATA", "CC",
                                         "RB_COMPILED_CACHE", "XDG_CACHE_HOME",  "HOME"};
    size_t n = 0, used = 0;
    const char *fixed[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] && n + 1 < cap; i++)
        env[n++] = (char *)(uintptr_t)fixed[i];
    int w = snprintf(storage, storage_cap, "%s=%s", RB_CALLGRIND_ENV, prefix);
    if (w > 0 && (size_t)w < storage_cap && n + 1 < cap) {
        env[n++] = storage;
        used = (size_t)w + 1;
    }
    for (size_t i = 0; i < sizeof passed / sizeof passed[0] && n + 1 < cap; i++) {
        const char *v = getenv(passed[i]);
        if (!v) continue;
        w = snprintf(storage + used, storage_cap - used, "%s=%s", passed[i], v);
        if (w < 0 || (size_t)w >= storage_cap - used) continue;
        env[n++] = storage + used;
        used += (size_t)w + 1;
    }
    env[n] = NULL;
    return n;
}

int rb_callgrind_run(int argc, char **argv, bool cache_sim, int *status, rb_error *err)
{
    if (!rb_callgrind_built())
        return rb__error(err, RB_EUNSUPPORTED, RB_NO_OFFSET,
                         "this routebench was built without Valgrind's headers "
                         "(Debian package valgrind; scripts/setup.sh installs it), so it "
                         "cannot count instructions");
    char valgrind[4096], exe[4096];
    if (!rb__find_program("valgrind", valgrind, sizeof valgrind))
        return rb__error(err, RB_EUNSUPPORTED, RB_NO_OFFSET,
                         "valgrind is not installed (Debian package valgrind; "
                         "scripts/setup.sh installs it): counted metrics run under Callgrind");
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot find this executable");
    exe[n] = '\0';
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    int w = snprintf(dir, sizeof dir, "%s/routebench-callgrind.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (w < 0 || (size_t)w >= sizeof dir || !mkdtemp(dir))
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot create a temporary directory: %s",
                         strerror(errno));
    char prefix[4200], out_opt[4300];
    snprintf(prefix, sizeof prefix, "%s/cg.out", dir);
    snprintf(out_opt, sizeof out_opt, "--callgrind-out-file=%s", prefix);

    size_t nargs = (size_t)argc + 12;
    char **args = calloc(nargs, sizeof *args);
    if (!args) {
        remove_dir(dir);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    }
    size_t k = 0;
    args[k++] = valgrind;
    args[k++] = (char *)(uintptr_t) "--tool=callgrind";
    args[k++] = (char *)(uintptr_t) "-q";
    args[k++] = (char *)(uintptr_t) "--instr-atstart=no";
    args[k++] = (char *)(uintptr_t) "--collect-atstart=no";
    args[k++] = (char *)(uintptr_t)(cache_sim ? "--cache-sim=yes" : "--cache-sim=no");
    args[k++] = (char *)(uintptr_t) "--compress-strings=no";
    args[k++] = out_opt;
    args[k++] = exe;
    for (int i = 0; i < argc; i++) args[k++] = argv[i];
    args[k] = NULL;
    char *env[12], storage[12288];
    child_env(env, sizeof env / sizeof env[0], storage, sizeof storage, prefix);

    struct sigaction ignore = {0}, old_int, old_term;
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ignore, &old_int); /* the child gets ^C; the parent cleans up */
    sigaction(SIGTERM, &ignore, &old_term);
    pid_t pid = fork();
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        personality(ADDR_NO_RANDOMIZE);
        execve(valgrind, args, env);
        _exit(127);
    }
    int rc = RB_OK, ws = 0;
    if (pid < 0) {
        rc = rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot start valgrind: %s", strerror(errno));
    } else {
        rb__reap_child(pid, RB_REAP_FOREVER, false, &ws);
        *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 2;
        if (WIFEXITED(ws) && WEXITSTATUS(ws) == 127)
            rc = rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot run %s", valgrind);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    free(args);
    remove_dir(dir);
    return rc;
}
