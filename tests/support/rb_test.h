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

/* Compare r's answer with lin's for (method, path) on every field
 * (rb_match_equal); the failure names ctx, the request and both answers. */
void rbt_expect_like(const rb_router *r, const rb_router *lin, int method, const char *path,
                     size_t len, const char *ctx);

/* Every request of q (one in 16 with every method too) through r and lin
 * (rbt_expect_like). */
void rbt_expect_like_on(const rb_router *r, const rb_router *lin, const rb_request_table *q,
                        const char *ctx);

/* Hash flooding as an attacker who knows the seed would do it, on the real
 * hash: fills out[0, n) with names prefix + "f<hex>" whose XXH3 under seed,
 * taken of the name from byte `from` on, has its low `bits` bits 0 (so
 * they share one home slot in any table of up to 2^bits slots).  Brute
 * force: about n * 2^bits hashes. */
void rbt_craft_collisions(uint64_t seed, unsigned bits, const char *prefix, size_t from, size_t n,
                          char (*out)[32]);

/* An allocator that fails the fail_at-th call (1-based; 0 = never), or
 * every call from fail_from on (0 = never), and counts live bytes, so tests
 * can show clean failure and no leaks. */
typedef struct rbt_failing_allocator {
    rb_allocator base;
    unsigned long calls;
    unsigned long fail_at;
    unsigned long fail_from;
    unsigned long failed; /* calls refused */
    long long live_bytes;
    unsigned long live_blocks;
} rbt_failing_allocator;

void rbt_failing_allocator_init(rbt_failing_allocator *a, unsigned long fail_at);

#endif
