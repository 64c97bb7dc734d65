/*
 * rb_test.h — helpers shared by the Criterion tests: building routers from
 * literal route lines, loading shipped corpora, a failing allocator.
 */
#ifndef RB_TEST_H
#define RB_TEST_H

#include "router_impl.h"
#include "table.h"

#include <stdbool.h>

/* Path of a shipped corpus file: RB_SOURCE_DIR/corpus/data/NAME.EXT. */
const char *rbt_data_path(const char *name, const char *ext, char *buf, size_t cap);

/* Read shipped corpus NAME's routes and requests (asserting success);
 * the routes path is written to rpath for messages. */
void rbt_load_shipped(const char *name, rb_route_table *routes, rb_request_table *reqs, char *rpath,
                      size_t cap);

/* Create router `name` (asserts success), add each "METHOD PATTERN" line
 * with route id = index (asserting success), build. */
rb_router *rbt_build(const char *name, const char *const *lines, size_t n);

/* Look up "METHOD PATH" (method by name). */
int rbt_lookup(const rb_router *r, const char *method, const char *path, rb_match *m);

/* An allocator that fails the fail_at-th call (1-based; 0 = never) and
 * counts live bytes, so tests can show clean failure and no leaks. */
typedef struct rbt_failing_allocator {
    rb_allocator base;
    unsigned long calls;
    unsigned long fail_at;
    long long live_bytes;
    unsigned long live_blocks;
} rbt_failing_allocator;

void rbt_failing_allocator_init(rbt_failing_allocator *a, unsigned long fail_at);

/* Run RB_BINARY_DIR/routebench with args (a shell word list), stdout and
 * stderr into the file log; returns the exit status (asserts it exited). */
int rbt_routebench(const char *args, const char *log);
/* A fresh directory under /tmp (free the name; remove with rbt_remove_tree). */
char *rbt_tmpdir(void);
void rbt_remove_tree(const char *dir);
/* The whole of dir/file (asserting it reads), NUL-terminated; *len may be NULL. */
char *rbt_slurp(const char *dir, const char *file, size_t *len);

#endif
