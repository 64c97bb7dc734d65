/*
 * check_threads.c — lookup is const and safe from many threads after build:
 * four threads replaying a shipped request table on one router get exactly
 * the answers one thread gets, for every registered router.
 *
 * A plain program rather than a Criterion test because Criterion cannot
 * start under ThreadSanitizer (a known Criterion limitation); run it under TSan with
 * `bash scripts/test.sh --tsan`.  Exit 0 when all agree, 1 otherwise.
 */
#include "router.h"
#include "table.h"
#include "verify.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define ROUNDS  3

typedef struct job {
    const rb_router *r;
    const rb_request_table *reqs;
    const rb_match *expected;
    size_t mismatches;
} job;

static void *replay(void *arg)
{
    job *j = arg;
    for (int round = 0; round < ROUNDS; round++) {
        for (size_t i = 0; i < j->reqs->count; i++) {
            const rb_request *q = &j->reqs->reqs[i];
            rb_match m;
            memset(&m, 0, sizeof m);
            rb_router_lookup(j->r, q->method, rb_request_path(j->reqs, i), q->len, &m);
            if (!rb_match_equal(&m, &j->expected[i])) j->mismatches++;
        }
    }
    return NULL;
}

static int check_corpus(const char *name, size_t *passed, size_t *failed)
{
    char rpath[4096], qpath[4096];
    snprintf(rpath, sizeof rpath, "%s/corpus/data/%s.routes", RB_SOURCE_DIR, name);
    snprintf(qpath, sizeof qpath, "%s/corpus/data/%s.requests", RB_SOURCE_DIR, name);
    rb_route_table routes;
    rb_request_table reqs;
    rb_error err;
    if (rb_route_table_read(rpath, &routes, &err) < 0 ||
        rb_request_table_read(qpath, &reqs, &err) < 0) {
        fprintf(stderr, "check_threads: %s\n", err.message);
        return -1;
    }
    unsigned need = rb_route_table_features(&routes);
    rb_match *expected = calloc(reqs.count, sizeof *expected);
    if (!expected) return -1;
    for (size_t k = 0; k < rb_registry_count(); k++) {
        const rb_router_ops *ops = rb_registry_at(k);
        if (need & ~rb_ops_features(ops)) continue;
        rb_router *r;
        if (rb_route_table_build_router(&routes, rpath, ops, NULL, &r, &err) < 0) {
            fprintf(stderr, "check_threads: %s: %s\n", rb_ops_name(ops), err.message);
            (*failed)++;
            continue;
        }
        for (size_t i = 0; i < reqs.count; i++) {
            memset(&expected[i], 0, sizeof expected[i]);
            rb_router_lookup(r, reqs.reqs[i].method, rb_request_path(&reqs, i), reqs.reqs[i].len,
                             &expected[i]);
        }
        pthread_t tids[THREADS];
        job jobs[THREADS];
        size_t mismatches = 0;
        for (int t = 0; t < THREADS; t++) {
            jobs[t] = (job){r, &reqs, expected, 0};
            if (pthread_create(&tids[t], NULL, replay, &jobs[t]) != 0) return -1;
        }
        for (int t = 0; t < THREADS; t++) {
            pthread_join(tids[t], NULL);
            mismatches += jobs[t].mismatches;
        }
        printf("%-8s %-8s %d threads x %d rounds: %zu answers differ from one thread\n",
               rb_ops_name(ops), name, THREADS, ROUNDS, mismatches);
        if (mismatches)
            (*failed)++;
        else
            (*passed)++;
        rb_router_destroy(r);
    }
    free(expected);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
    return 0;
}

int main(void)
{
    size_t passed = 0, failed = 0;
    if (check_corpus("github", &passed, &failed) < 0) return 2;
    if (check_corpus("semantics", &passed, &failed) < 0) return 2;
    printf("check_threads: %zu passed, %zu failed\n", passed, failed);
    return failed ? 1 : 0;
}
