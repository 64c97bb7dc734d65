/*
 * test_guarantees.c — checks behind docs/testing.md "Guarantees" that no other test
 * makes: lookup never allocates (every router's allocations go through the
 * config allocator, which counts them), building the same table twice
 * gives the same answers (no hidden state between routers), and memory()
 * equals the bytes a built router holds.
 */
#include "rb_test.h"
#include "shipped.h"
#include "verify.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void load(const char *name, rb_route_table *routes, rb_request_table *reqs)
{
    char rpath[4096];
    rbt_load_shipped(name, routes, reqs, rpath, sizeof rpath);
}

Test(guarantees, lookup_never_allocates)
{
    for (size_t c = 0; c < rb_shipped_count(); c++) {
        const char *name = rb_shipped_name(c);
        rb_route_table routes;
        rb_request_table reqs;
        load(name, &routes, &reqs);
        unsigned need = rb_route_table_features(&routes);
        for (size_t i = 0; i < rb_registry_count(); i++) {
            const rb_router_ops *ops = rb_registry_at(i);
            /* peers wrap third-party code that allocates on its own heap */
            if ((rb_ops_features(ops) & RB_FEAT_PEER) || (need & ~rb_ops_features(ops))) continue;
            rbt_failing_allocator fa;
            rbt_failing_allocator_init(&fa, 0);
            rb_config cfg = {&fa.base, 0};
            rb_router *r;
            rb_error err;
            cr_assert_eq(rb_route_table_build_router(&routes, name, ops, &cfg, &r, &err), RB_OK,
                         "%s: %s", rb_ops_name(ops), err.message);
            size_t before = fa.calls;
            for (size_t k = 0; k < reqs.count; k++) {
                rb_match m;
                rb_router_lookup(r, reqs.reqs[k].method, rb_request_path(&reqs, k),
                                 reqs.reqs[k].len, &m);
            }
            cr_expect_eq(fa.calls, before, "%s on %s: %zu allocations during lookups",
                         rb_ops_name(ops), name, fa.calls - before);
            rb_router_destroy(r);
            cr_expect_eq(fa.live_blocks, 0u, "%s: destroy frees everything", rb_ops_name(ops));
        }
        rb_route_table_free(&routes);
        rb_request_table_free(&reqs);
    }
}

Test(guarantees, two_builds_of_one_table_answer_alike)
{
    rb_route_table routes;
    rb_request_table reqs;
    load("discord", &routes, &reqs);
    unsigned need = rb_route_table_features(&routes);
    for (size_t i = 0; i < rb_registry_count(); i++) {
        const rb_router_ops *ops = rb_registry_at(i);
        if (need & ~rb_ops_features(ops)) continue;
        rb_router *a, *b;
        rb_error err;
        cr_assert_eq(rb_route_table_build_router(&routes, "discord", ops, NULL, &a, &err), RB_OK);
        cr_assert_eq(rb_route_table_build_router(&routes, "discord", ops, NULL, &b, &err), RB_OK);
        for (size_t k = 0; k < reqs.count; k++) {
            rb_match ma, mb;
            memset(&ma, 0, sizeof ma);
            memset(&mb, 0, sizeof mb);
            rb_router_lookup(a, reqs.reqs[k].method, rb_request_path(&reqs, k), reqs.reqs[k].len,
                             &ma);
            rb_router_lookup(b, reqs.reqs[k].method, rb_request_path(&reqs, k), reqs.reqs[k].len,
                             &mb);
            cr_expect(rb_match_equal(&ma, &mb), "%s: request %zu differs", rb_ops_name(ops), k);
        }
        rb_router_destroy(a);
        rb_router_destroy(b);
    }
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

/* ---- regressions (one per fixed bug, cause in a line) ------------------------ */

/* An allocator whose blocks are aligned to exactly `align` bytes (never to
 * 2 * align), carved from malloc with a header holding the malloc'd block. */
typedef struct skewed {
    rb_allocator base;
    size_t align;
    unsigned long blocks;
} skewed;

static void *skewed_alloc(void *ctx, size_t size)
{
    skewed *a = ctx;
    unsigned char *raw = malloc(size + 64);
    if (!raw) return NULL;
    uintptr_t at =
        ((uintptr_t)raw + sizeof(void *) + 2 * a->align - 1) & ~(uintptr_t)(2 * a->align - 1);
    at += a->align; /* aligned to align, not to 2 * align */
    memcpy((void *)(at - sizeof(void *)), &raw, sizeof raw);
    a->blocks++;
    return (void *)at;
}

static void skewed_free(void *ctx, void *ptr, size_t size)
{
    skewed *a = ctx;
    (void)size;
    void *raw;
    memcpy(&raw, (unsigned char *)ptr - sizeof(void *), sizeof raw);
    a->blocks--;
    free(raw);
}

static void skewed_init(skewed *a, size_t align)
{
    *a = (skewed){{skewed_alloc, NULL, skewed_free, a}, align, 0};
}

/* 29. Alignment: the allocator contract said nothing about alignment, and
 *     with a 4-byte-aligned allocator UBSan reported a misaligned store at
 *     router.c:218.  Cause: an unstated assumption.  Now router.h states
 *     RB_ALLOC_ALIGN (8): a less aligned allocator is refused at create
 *     with RB_EINVAL, and with blocks aligned to exactly 8 bytes (never 16)
 *     every router builds and answers like linear (run under UBSan by
 *     scripts/test.sh --asan). */
Test(guarantees, regression_29_the_allocator_alignment_is_stated_and_kept)
{
    for (size_t i = 0; i < rb_registry_count(); i++) {
        const rb_router_ops *ops = rb_registry_at(i);
        skewed a;
        skewed_init(&a, 4);
        rb_config cfg = {&a.base, 1};
        rb_router *r;
        rb_error err;
        cr_expect_eq(rb_router_create_ops(ops, &cfg, &r, &err), RB_EINVAL, "%s: %s",
                     rb_ops_name(ops), "a 4-byte-aligned allocator was accepted");
        cr_expect_eq(a.blocks, 0ul);
    }
    const char *corpora[] = {"github", "semantics", "discord"};
    for (size_t c = 0; c < 3; c++) {
        rb_route_table routes;
        rb_request_table reqs;
        load(corpora[c], &routes, &reqs);
        unsigned need = rb_route_table_features(&routes);
        rb_router *lin;
        rb_error err;
        cr_assert_eq(rb_route_table_build_router(&routes, corpora[c], rb_registry_find("linear"),
                                                 NULL, &lin, &err),
                     RB_OK);
        for (size_t i = 0; i < rb_registry_count(); i++) {
            const rb_router_ops *ops = rb_registry_at(i);
            if ((rb_ops_features(ops) & RB_FEAT_PEER) || (need & ~rb_ops_features(ops))) continue;
            skewed a;
            skewed_init(&a, RB_ALLOC_ALIGN);
            rb_config cfg = {&a.base, 1};
            rb_router *r;
            cr_assert_eq(rb_route_table_build_router(&routes, corpora[c], ops, &cfg, &r, &err),
                         RB_OK, "%s: %s", rb_ops_name(ops), err.message);
            rbt_expect_like_on(r, lin, &reqs, rb_ops_name(ops));
            rb_router_destroy(r);
            cr_expect_eq(a.blocks, 0ul, "%s leaked", rb_ops_name(ops));
        }
        rb_router_destroy(lin);
        rb_route_table_free(&routes);
        rb_request_table_free(&reqs);
    }
}

/* This executable's qsort takes the place of libc's in every router linked
 * into it: it counts its calls (and sorts, so nothing else breaks). */
static unsigned long qsort_calls;

void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    qsort_calls++;
    unsigned char *b = base, t;
    for (size_t i = 1; i < n; i++) /* insertion sort, byte swaps: slow and sure */
        for (size_t j = i; j > 0 && cmp(b + (j - 1) * size, b + j * size) > 0; j--)
            for (size_t k = 0; k < size; k++) {
                t = b[(j - 1) * size + k];
                b[(j - 1) * size + k] = b[j * size + k];
                b[j * size + k] = t;
            }
}

/* 30. hashseg's build sorted its terminals with qsort, and glob's build its
 *     glob children: glibc's qsort may call malloc, behind the back of a
 *     custom allocator.  Now they sort in place (a counting sort through
 *     the allocator, a heap sort): no router's build calls qsort. */
Test(guarantees, regression_30_no_build_calls_qsort)
{
    rb_route_table t = {0};
    char pat[64];
    for (int i = 0; i < 300; i++) {
        int n = i % 3 == 0   ? snprintf(pat, sizeof pat, "/g%d/*.p%d", i % 7, i)
                : i % 3 == 1 ? snprintf(pat, sizeof pat, "/g%d/img-%d?", i % 7, i)
                             : snprintf(pat, sizeof pat, "/u%d/:id/x%d", i % 11, i);
        cr_assert_eq(
            rb_route_table_append(&t, i % 2 ? RB_GET : RB_POST, pat, (size_t)n, (size_t)i + 1),
            RB_OK);
    }
    for (size_t i = 0; i < rb_registry_count(); i++) {
        const rb_router_ops *ops = rb_registry_at(i);
        if (rb_ops_features(ops) & RB_FEAT_PEER) continue;
        rb_router *r;
        rb_error err;
        size_t refused = 0;
        rb_config cfg = {NULL, 1};
        cr_assert_eq(rb_router_create_ops(ops, &cfg, &r, &err), RB_OK);
        qsort_calls = 0;
        cr_assert_eq(rb_route_table_add_to(&t, "qsort", r, &refused, NULL, &err), RB_OK, "%s",
                     err.message);
        cr_assert_eq(rb_router_build(r, &err), RB_OK, "%s: %s", rb_ops_name(ops), err.message);
        cr_expect_eq(qsort_calls, 0ul, "%s: %lu qsort calls", rb_ops_name(ops), qsort_calls);
        rb_router_destroy(r);
    }
    rb_route_table_free(&t);
}
/* Live bytes of a built router of ops over routes, through a counting
 * allocator; *memory gets what the router says it holds. */
static size_t live_after_build(const rb_router_ops *ops, const rb_route_table *routes,
                               const char *name, size_t *memory)
{
    rbt_failing_allocator fa;
    rbt_failing_allocator_init(&fa, 0);
    rb_config cfg = {&fa.base, 0};
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_route_table_build_router(routes, name, ops, &cfg, &r, &err), RB_OK, "%s: %s",
                 rb_ops_name(ops), err.message);
    size_t live = fa.live_bytes;
    *memory = rb_router_memory(r);
    rb_router_destroy(r);
    cr_assert_eq(fa.live_blocks, 0u, "%s: destroy frees everything", rb_ops_name(ops));
    return live;
}

/* Rule: memory() tells the truth: after build it equals the bytes the
 * implementation holds, as the counting allocator sees them (all live
 * bytes less the front end's handle, measured with rbt_nothing_ops, which
 * holds nothing).  Every router but peers (whose libraries allocate on
 * their own heap), on every shipped corpus it takes and on the empty
 * table. */
Test(guarantees, memory_equals_the_bytes_held)
{
    rb_route_table empty = {0};
    size_t ignored;
    size_t handle = live_after_build(&rbt_nothing_ops, &empty, "empty", &ignored);
    cr_assert_gt(handle, 0u, "the handle is allocated through the config's allocator");
    for (size_t c = 0; c <= rb_shipped_count(); c++) {
        rb_route_table routes = {0};
        rb_request_table reqs = {0};
        const char *name = c < rb_shipped_count() ? rb_shipped_name(c) : "the empty table";
        if (c < rb_shipped_count()) load(name, &routes, &reqs);
        unsigned need = rb_route_table_features(&routes);
        for (size_t i = 0; i < rb_registry_count(); i++) {
            const rb_router_ops *ops = rb_registry_at(i);
            if ((rb_ops_features(ops) & RB_FEAT_PEER) || (need & ~rb_ops_features(ops))) continue;
            size_t memory;
            size_t live = live_after_build(ops, &routes, name, &memory);
            cr_expect_eq(memory, live - handle, "%s on %s: memory() %zu, holds %zu",
                         rb_ops_name(ops), name, memory, live - handle);
        }
        if (c < rb_shipped_count()) {
            rb_route_table_free(&routes);
            rb_request_table_free(&reqs);
        }
    }
}
