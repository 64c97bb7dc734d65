/*
 * rb_test.c — shared test helpers (see rb_test.h).
 */
#include "rb_test.h"

#include "file.h"
#include "shipped.h"
#include "verify.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

const char *rbt_data_path(const char *name, const char *ext, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/corpus/data/%s.%s", RB_SOURCE_DIR, name, ext);
    return buf;
}

rb_route_table rbt_parse_routes(const char *text)
{
    rb_route_table t;
    rb_error err;
    cr_assert_eq(rb_route_table_parse("test", text, strlen(text), &t, &err), RB_OK, "%s",
                 err.message);
    return t;
}

int rbt_run(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
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

bool rbt_shipped_fits(size_t i, unsigned features)
{
    char path[4096];
    rb_route_table routes;
    rb_error err;
    const char *name = rb_shipped_name(i);
    cr_assert(name, "no shipped corpus %zu", i);
    cr_assert_eq(
        rb_route_table_read(rbt_data_path(name, "routes", path, sizeof path), &routes, &err), RB_OK,
        "%s", err.message);
    unsigned need = rb_route_table_features(&routes);
    rb_route_table_free(&routes);
    return (need & ~features) == 0;
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

int rbt_lookup_exact(const rb_router *r, int method, const char *path, size_t len, rb_match *m)
{
    char *copy = malloc(len ? len : 1);
    cr_assert_not_null(copy);
    if (len) memcpy(copy, path, len);
    memset(m, 0x5a, sizeof *m);
    int rc = rb_router_lookup(r, method, copy, len, m);
    free(copy);
    cr_assert_eq(rc, m->outcome, "%s: returned %d, outcome %d", rb_router_name(r), rc, m->outcome);
    for (uint32_t i = 0; rc == RB_FOUND && i < m->nparams; i++)
        cr_assert_leq((uint64_t)m->params[i].offset + m->params[i].len, (uint64_t)len,
                      "%s: capture %u ends past the path", rb_router_name(r), i);
    return rc;
}

void rbt_expect_same_match(const char *label, int method, const char *path, size_t len,
                           const rb_match *got, const rb_match *want)
{
    if (rb_match_equal(got, want)) return;
    char g[300], w[300];
    rb_match_format(got, g, sizeof g);
    rb_match_format(want, w, sizeof w);
    cr_assert_fail("%s: %s %.*s: got %s, linear %s", label, rb_method_name(method),
                   (int)(len > 200 ? 200 : len), path, g, w);
}

void rbt_pair_init(rbt_pair *p, const rb_router_ops *ops, const rb_config *config,
                   const char *label)
{
    rb_error err;
    snprintf(p->label, sizeof p->label, "%s", label ? label : rb_ops_name(ops));
    cr_assert_eq(rb_router_create_ops(ops, config, &p->r, &err), RB_OK, "%s: %s", p->label,
                 err.message);
    cr_assert_eq(rb_router_create("linear", NULL, &p->linear, &err), RB_OK, "%s", err.message);
}

int rbt_pair_add(rbt_pair *p, int method, const char *pattern, size_t len, uint32_t id)
{
    rb_error err, lerr;
    int rc = rb_router_add(p->r, method, pattern, len, id, &err);
    if (rc == RB_EUNSUPPORTED || rc == RB_ELIMIT) return rc; /* refused: left out */
    int lrc = rb_router_add(p->linear, method, pattern, len, id, &lerr);
    cr_assert_eq(rc, lrc, "%s: add %s %.*s: %d (%s), linear %d (%s)", p->label,
                 rb_method_name(method), (int)len, pattern, rc, rc ? err.message : "", lrc,
                 lrc ? lerr.message : "");
    return rc;
}

void rbt_pair_build(rbt_pair *p)
{
    rb_error err;
    cr_assert_eq(rb_router_build(p->r, &err), RB_OK, "%s: build: %s", p->label, err.message);
    cr_assert_eq(rb_router_build(p->linear, &err), RB_OK, "linear: build: %s", err.message);
    cr_assert_eq(rb_router_check(p->r, &err), RB_OK, "%s: invariant: %s", p->label, err.message);
}

rb_match rbt_pair_lookup(const rbt_pair *p, int method, const char *path, size_t len)
{
    rb_match got, want;
    rbt_lookup_exact(p->r, method, path, len, &got);
    rbt_lookup_exact(p->linear, method, path, len, &want);
    rbt_expect_same_match(p->label, method, path, len, &got, &want);
    return got;
}

void rbt_pair_free(rbt_pair *p)
{
    rb_router_destroy(p->r);
    rb_router_destroy(p->linear);
    p->r = p->linear = NULL;
}

static int nothing_create(const rb_config *config, void **out, rb_error *err)
{
    (void)config;
    (void)err;
    static int token;
    *out = &token;
    return RB_OK;
}

static int nothing_add(void *impl, const rb_route *route, rb_error *err)
{
    (void)impl;
    (void)route;
    (void)err;
    return RB_OK;
}

static int nothing_build(void *impl, rb_error *err)
{
    (void)impl;
    (void)err;
    return RB_OK;
}

static int nothing_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    (void)impl;
    (void)method;
    (void)path;
    (void)len;
    m->outcome = RB_NOT_FOUND;
    m->nparams = 0;
    m->allowed = 0;
    return RB_NOT_FOUND;
}

static size_t nothing_memory(const void *impl)
{
    (void)impl;
    return 0;
}

static void nothing_destroy(void *impl)
{
    (void)impl;
}

const rb_router_ops rbt_nothing_ops = {
    .abi_version = RB_ROUTER_ABI_VERSION,
    .name = "nothing",
    .summary = "test: holds nothing, answers 404",
    .create = nothing_create,
    .add = nothing_add,
    .build = nothing_build,
    .lookup = nothing_lookup,
    .memory = nothing_memory,
    .destroy = nothing_destroy,
};

void rbt_expect_like(const rb_router *r, const rb_router *lin, int method, const char *path,
                     size_t len, const char *ctx)
{
    rb_match got, want;
    rbt_lookup_exact(r, method, path, len, &got);
    rbt_lookup_exact(lin, method, path, len, &want);
    char label[160];
    snprintf(label, sizeof label, "%s: %s", ctx, rb_router_name(r));
    rbt_expect_same_match(label, method, path, len, &got, &want);
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
    rbt_craft_collisions_mask(seed, bits >= 64 ? ~0ull : (1ull << bits) - 1, prefix, from, n, out);
}

void rbt_craft_collisions_mask(uint64_t seed, uint64_t mask, const char *prefix, size_t from,
                               size_t n, char (*out)[32])
{
    size_t found = 0;
    for (uint64_t i = 0; found < n; i++) {
        int len = snprintf(out[found], sizeof out[found], "%sf%llx", prefix, (unsigned long long)i);
        cr_assert(len > 0 && (size_t)len < sizeof out[found] && (size_t)len > from);
        if ((XXH3_64bits_withSeed(out[found] + from, (size_t)len - from, seed) & mask) == 0)
            found++;
    }
}

/* Blocks carry their size in a header so the allocator can count live
 * bytes and check the size the router passes to free and realloc. */
typedef struct block_header {
    size_t size;
    size_t pad;
} block_header;

static void *failing_alloc(void *ctx, size_t size)
{
    rbt_failing_allocator *a = ctx;
    a->calls++;
    if (a->calls == a->fail_at || (a->fail_from && a->calls >= a->fail_from)) {
        a->failed++;
        return NULL;
    }
    block_header *h = malloc(sizeof *h + size);
    if (!h) return NULL;
    h->size = size;
    a->live_bytes += size;
    a->live_blocks++;
    return h + 1;
}

static void failing_free(void *ctx, void *ptr, size_t size)
{
    rbt_failing_allocator *a = ctx;
    if (!ptr) return;
    block_header *h = (block_header *)ptr - 1;
    cr_expect_eq(h->size, size, "free with size %zu of a block of %zu bytes", size, h->size);
    a->live_bytes -= h->size;
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

void rbt_failing_allocator_init(rbt_failing_allocator *a, size_t fail_at)
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

static char *slurp_or_empty(const char *path)
{
    char *data;
    size_t len;
    rb_error err;
    if (rb_file_read(path, &data, &len, &err) == RB_OK) return data;
    char *empty = calloc(1, 1);
    cr_assert_not_null(empty);
    return empty;
}

rbt_shell rbt_shell_run(const char *dir, const char *cmd)
{
    size_t cap = strlen(cmd) + 2 * strlen(dir) + 256;
    char *line = malloc(cap);
    cr_assert_not_null(line);
    /* a brace group, so the shell's own "Killed" notice goes to .err too */
    snprintf(line, cap, "cd '%s' && RB='%s/routebench' && { %s; } >.out 2>.err </dev/null", dir,
             RB_BINARY_DIR, cmd);
    int st = system(line);
    free(line);
    cr_assert(st != -1, "cannot run %s", cmd);
    rbt_shell r = {0, NULL, NULL};
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    char path[4200];
    snprintf(path, sizeof path, "%s/.out", dir);
    r.out = slurp_or_empty(path);
    snprintf(path, sizeof path, "%s/.err", dir);
    r.err = slurp_or_empty(path);
    return r;
}

void rbt_shell_free(rbt_shell *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

char *rbt_unwrapped(const char *text)
{
    char *out = malloc(strlen(text) + 1), *w = out;
    if (!out) return NULL;
    for (const char *p = text; *p; p++) {
        if (*p != '\n') {
            *w++ = *p;
            continue;
        }
        while (p[1] == ' ') p++;
        *w++ = ' ';
    }
    *w = '\0';
    return out;
}
