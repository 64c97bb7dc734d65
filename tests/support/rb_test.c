/*
 * rb_test.c — shared test helpers (see rb_test.h).
 */
#include "rb_test.h"

#include "file.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

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
    if (a->fail_at && a->calls == a->fail_at) return NULL;
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

int rbt_routebench(const char *args, const char *log)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s/routebench %s >%s 2>&1", RB_BINARY_DIR, args, log);
    int rc = system(cmd);
    cr_assert(rc != -1 && WIFEXITED(rc), "%s did not exit", cmd);
    return WEXITSTATUS(rc);
}

char *rbt_tmpdir(void)
{
    char *dir = malloc(64);
    cr_assert_not_null(dir);
    snprintf(dir, 64, "/tmp/rb_test.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    return dir;
}

void rbt_remove_tree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

char *rbt_slurp(const char *dir, const char *file, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *data;
    size_t n;
    rb_error err;
    cr_assert_eq(rb_file_read(path, &data, &n, &err), RB_OK, "%s", err.message);
    if (len) *len = n;
    return data;
}
