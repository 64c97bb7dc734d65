/*
 * rb_test.c — shared test helpers (see rb_test.h).
 */
#include "rb_test.h"

#include "verify.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

const char *rbt_data_path(const char *name, const char *ext, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/corpus/data/%s.%s", RB_SOURCE_DIR, name, ext);
    return buf;
}

void rbt_load_shipped(const char *name, rb_route_table *routes, rb_request_table *reqs, char *rpath,
                      size_t cap)
{
    char qpath[4096];
    rb_error err;
    cr_assert_eq(rb_route_table_read(rbt_data_path(name, "routes", rpath, cap), routes, &err),
                 RB_OK, "%s", err.message);
    cr_assert_eq(
        rb_request_table_read(rbt_data_path(name, "requests", qpath, sizeof qpath), reqs, &err),
        RB_OK, "%s", err.message);
}

rb_router *rbt_build(const char *name, const char *const *lines, size_t n)
{
    rb_router *r;
    rb_error err;
    int rc = rb_router_create(name, NULL, &r, &err);
    cr_assert_eq(rc, RB_OK, "create %s: %s", name, err.message);
    for (size_t i = 0; i < n; i++) {
        const char *sp = strchr(lines[i], ' ');
        cr_assert(sp, "route line '%s' needs 'METHOD PATTERN'", lines[i]);
        int method = rb_method_parse(lines[i], (size_t)(sp - lines[i]));
        cr_assert(method >= 0, "bad method in '%s'", lines[i]);
        rc = rb_router_add(r, method, sp + 1, strlen(sp + 1), (uint32_t)i, &err);
        cr_assert_eq(rc, RB_OK, "%s: add '%s': %s", name, lines[i], err.message);
    }
    rc = rb_router_build(r, &err);
    cr_assert_eq(rc, RB_OK, "%s: build: %s", name, err.message);
    return r;
}

int rbt_lookup(const rb_router *r, const char *method, const char *path, rb_match *m)
{
    int mm = rb_method_parse(method, strlen(method));
    cr_assert(mm >= 0 && mm < RB_METHOD_COUNT, "bad request method %s", method);
    memset(m, 0, sizeof *m);
    return rb_router_lookup(r, mm, path, strlen(path), m);
}

void rbt_expect_like(const rb_router *r, const rb_router *lin, int method, const char *path,
                     size_t len, const char *ctx)
{
    rb_match got, want;
    memset(&got, 0, sizeof got);
    memset(&want, 0, sizeof want);
    rb_router_lookup(r, method, path, len, &got);
    rb_router_lookup(lin, method, path, len, &want);
    if (!rb_match_equal(&got, &want)) {
        char a[256], b[256];
        rb_match_format(&got, a, sizeof a);
        rb_match_format(&want, b, sizeof b);
        cr_assert_fail("%s: %s %s %.*s: %s, linear %s", ctx, rb_router_name(r),
                       rb_method_name(method), (int)(len > 200 ? 200 : len), path, a, b);
    }
}

void rbt_expect_like_on(const rb_router *r, const rb_router *lin, const rb_request_table *q,
                        const char *ctx)
{
    for (size_t i = 0; i < q->count; i++) {
        const char *path = rb_request_path(q, i);
        for (int m = 0; m < RB_METHOD_COUNT; m++)
            if (m == q->reqs[i].method || i % 16 == 0)
                rbt_expect_like(r, lin, m, path, q->reqs[i].len, ctx);
    }
}

void rbt_craft_collisions(uint64_t seed, unsigned bits, const char *prefix, size_t from, size_t n,
                          char (*out)[32])
{
    uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    size_t found = 0;
    for (uint64_t i = 0; found < n; i++) {
        int len = snprintf(out[found], sizeof out[found], "%sf%llx", prefix, (unsigned long long)i);
        cr_assert(len > 0 && (size_t)len < sizeof out[found] && (size_t)len > from);
        if ((XXH3_64bits_withSeed(out[found] + from, (size_t)len - from, seed) & mask) == 0)
            found++;
    }
}

/* Blocks carry their size in a header so the allocator can count live
 * bytes and check the size the router passes to free. */
typedef struct block_header {
    size_t size;
    size_t pad;
} block_header;

static void *failing_alloc(void *ctx, size_t size)
{
    rbt_failing_allocator *a = ctx;
    a->calls++;
    if ((a->fail_at && a->calls == a->fail_at) || (a->fail_from && a->calls >= a->fail_from)) {
        a->failed++;
        return NULL;
    }
    block_header *h = malloc(sizeof *h + size);
    if (!h) return NULL;
    h->size = size;
    a->live_bytes += (long long)size;
    a->live_blocks++;
    return h + 1;
}

static void failing_free(void *ctx, void *ptr, size_t size)
{
    rbt_failing_allocator *a = ctx;
    if (!ptr) return;
    block_header *h = (block_header *)ptr - 1;
    cr_expect_eq(h->size, size, "free with size %zu of a block of %zu bytes", size, h->size);
    a->live_bytes -= (long long)h->size;
    a->live_blocks--;
    free(h);
}

static void *failing_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size)
{
    rbt_failing_allocator *a = ctx;
    void *q = failing_alloc(ctx, new_size);
    if (!q) return NULL;
    if (ptr) {
        memcpy(q, ptr, old_size < new_size ? old_size : new_size);
        failing_free(a, ptr, old_size);
    }
    return q;
}

void rbt_failing_allocator_init(rbt_failing_allocator *a, unsigned long fail_at)
{
    memset(a, 0, sizeof *a);
    a->base = (rb_allocator){failing_alloc, failing_realloc, failing_free, a};
    a->fail_at = fail_at;
}
