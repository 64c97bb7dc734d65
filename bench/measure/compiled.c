/*
 * compiled.c — the `compiled` router: generate, compile (or find in the
 * cache), dlopen, forward.  The contract: compiled.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "compiled.h"

#include "buf.h"
#include "clock.h"
#include "compile.h"
#include "file.h"
#include "program.h"
#include "router_kit.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#ifndef RB_INCLUDE_DIR
#define RB_INCLUDE_DIR "include"
#endif

extern char **environ;

/* The flags of every compile; part of the cache key. */
static const char *const compile_flags[] = {
    "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-DRB_COMPILED_PLUGIN", "-I", RB_INCLUDE_DIR,
};
#define NFLAGS       (sizeof compile_flags / sizeof compile_flags[0])
#define MAX_CC_WORDS 16

typedef struct held_route {
    int method;
    uint32_t id;
    char *text;
    rb_pattern pattern;
} held_route;

typedef struct compiled_router {
    rb_config config;
    held_route *routes;
    size_t count, cap;
    void *lib;                  /* dlopen handle */
    const rb_router_ops *inner; /* the library's plugin router */
    void *inner_impl;
    int (*lookup)(const void *impl, int method, const char *path, size_t len, rb_match *m);
    size_t lib_bytes; /* the library file's size */
    char describe[512];
} compiled_router;

static int not_built(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    (void)impl, (void)method, (void)path, (void)len;
    m->outcome = RB_NOT_FOUND;
    m->nparams = 0;
    m->allowed = 0;
    return RB_NOT_FOUND;
}

static int compiled_create(const rb_config *config, void **out, rb_error *err)
{
    compiled_router *c = calloc(1, sizeof *c);
    if (!c) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory creating compiled");
    c->config = *config;
    c->lookup = not_built;
    *out = c;
    return RB_OK;
}

static int compiled_add(void *impl, const rb_route *route, rb_error *err)
{
    compiled_router *c = impl;
    if (rb_grow(NULL, &c->routes, &c->cap, c->count + 1, sizeof *c->routes, 64) < 0)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in compiled");
    held_route *h = &c->routes[c->count];
    h->text = malloc(route->pattern->len ? route->pattern->len : 1);
    if (!h->text) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in compiled");
    memcpy(h->text, route->pattern->text, route->pattern->len);
    int rc = rb_pattern_parse(h->text, route->pattern->len, NULL, &h->pattern, err);
    if (rc < 0) {
        free(h->text);
        return rc;
    }
    h->method = route->method;
    h->id = route->id;
    c->count++;
    return RB_OK;
}

static void free_routes(compiled_router *c)
{
    for (size_t i = 0; i < c->count; i++) {
        rb_pattern_free(&c->routes[i].pattern);
        free(c->routes[i].text);
    }
    free(c->routes);
    c->routes = NULL;
    c->count = c->cap = 0;
}

/* The cache directory (created, with its parents): buf, or RB_EIO. */
static int cache_dir(char *buf, size_t cap, rb_error *err)
{
    const char *env = getenv("RB_COMPILED_CACHE"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    int n;
    if (env && *env)
        n = snprintf(buf, cap, "%s", env);
    else if (xdg && *xdg)
        n = snprintf(buf, cap, "%s/routebench/compiled", xdg);
    else if (home && *home)
        n = snprintf(buf, cap, "%s/.cache/routebench/compiled", home);
    else
        n = snprintf(buf, cap, "/tmp/routebench-compiled-%ld", (long)getuid());
    if (n < 0 || (size_t)n >= cap)
        return rb__error(err, RB_EIO, RB_NO_OFFSET,
                         "compiled: the cache directory's name is too long");
    return rb_dir_make(buf, err);
}

/* $CC split on blanks into words (at most MAX_CC_WORDS), in storage. */
static size_t cc_words(char *storage, size_t cap, const char **words)
{
    const char *cc = getenv("CC");
    snprintf(storage, cap, "%s", cc && *cc ? cc : "cc");
    size_t n = 0;
    for (char *s = strtok(storage, " \t"); s && n < MAX_CC_WORDS; s = strtok(NULL, " \t"))
        words[n++] = s;
    return n;
}

/* The first line(s) of the compiler's messages, for an error. */
static void read_log(const char *path, char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f) return;
    size_t n = fread(out, 1, cap - 1, f);
    fclose(f);
    out[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (out[i] == '\n') out[i] = ' ';
}

/* How long one compile may take, in seconds: RB_COMPILED_TIMEOUT when it
 * is a whole number from 1 to 86400, else 600 (a 20,000-route table takes
 * about a minute). */
static uint64_t compile_budget_s(void)
{
    const char *env = getenv("RB_COMPILED_TIMEOUT");
    char *end;
    unsigned long long v = env && *env ? strtoull(env, &end, 10) : 0;
    return env && *env && *end == '\0' && v >= 1 && v <= 86400 ? v : 600;
}

/* Run the compiler on src into so; its messages go to log. */
static int run_compiler(const char *const *cc, size_t ncc, const char *src, const char *so,
                        const char *log, rb_error *err)
{
    /* posix_spawnp takes char *const[]; it does not write the strings */
    char *argv[MAX_CC_WORDS + NFLAGS + 4];
    size_t a = 0;
    for (size_t i = 0; i < ncc; i++) argv[a++] = (char *)(uintptr_t)cc[i];
    for (size_t i = 0; i < NFLAGS; i++) argv[a++] = (char *)(uintptr_t)compile_flags[i];
    argv[a++] = (char *)(uintptr_t) "-o";
    argv[a++] = (char *)(uintptr_t)so;
    argv[a++] = (char *)(uintptr_t)src;
    argv[a] = NULL;
    char shown[512];
    size_t w = 0;
    for (size_t i = 0; i < a && w < sizeof shown; i++)
        w += (size_t)snprintf(shown + w, sizeof shown - w, "%s%s", i ? " " : "", argv[i]);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    /* its own process group, so that a compiler over its time budget is
     * killed with the passes it started (cc1, as, ld) */
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        unlink(log);
        return rb__error(err, RB_EUNSUPPORTED, RB_NO_OFFSET,
                         "compiled needs a C compiler: cannot run `%s`: %s (set CC)", shown,
                         strerror(rc));
    }
    int status; /* the compiler's time budget: a hung compiler is killed */
    int reaped = rb__reap_child(pid, compile_budget_s() * UINT64_C(1000), true, &status);
    if (reaped < 0)
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "compiled: waiting for `%s`: %s", shown,
                         strerror(errno));
    if (reaped == 0) {
        unlink(log);
        unlink(so);
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET,
                         "compiled: the compiler did not finish within %llu s (its time "
                         "budget; RB_COMPILED_TIMEOUT sets it in seconds): `%s`",
                         (unsigned long long)compile_budget_s(), shown);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        unlink(log);
        return RB_OK;
    }
    char msg[300];
    read_log(log, msg, sizeof msg);
    unlink(log);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return rb__error(err, RB_EUNSUPPORTED, RB_NO_OFFSET,
                         "compiled needs a C compiler: `%s` was not found (set CC)", shown);
    return rb__error(err, RB_EIO, RB_NO_OFFSET, "compiled: `%s` failed: %s", shown, msg);
}

/* The library for src: from the cache, or compiled into it.  path gets
 * its name; *compiled_ms how long compiling took (0: found). */
static int library_for(const rb_buf *src, char *path, size_t cap, double *compiled_ms,
                       rb_error *err)
{
    char dir[3072], storage[1024];
    const char *cc[MAX_CC_WORDS];
    size_t ncc = cc_words(storage, sizeof storage, cc);
    if (ncc == 0)
        return rb__error(err, RB_EUNSUPPORTED, RB_NO_OFFSET,
                         "compiled needs a C compiler: CC is empty");
    int rc = cache_dir(dir, sizeof dir, err);
    if (rc < 0) return rc;
    XXH3_state_t *st = XXH3_createState();
    if (!st) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in compiled");
    XXH3_128bits_reset(st);
    XXH3_128bits_update(st, src->data, src->len);
    for (size_t i = 0; i < ncc; i++) XXH3_128bits_update(st, cc[i], strlen(cc[i]) + 1);
    for (size_t i = 0; i < NFLAGS; i++)
        XXH3_128bits_update(st, compile_flags[i], strlen(compile_flags[i]) + 1);
    XXH128_hash_t h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    char key[40];
    snprintf(key, sizeof key, "%016llx%016llx", (unsigned long long)h.high64,
             (unsigned long long)h.low64);
    if ((size_t)snprintf(path, cap, "%s/%s.so", dir, key) >= cap)
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "compiled: the cache path is too long");
    *compiled_ms = 0;
    if (access(path, R_OK) == 0) return RB_OK;
    char src_path[3200], tmp_so[3200], log[3200];
    snprintf(src_path, sizeof src_path, "%s/%s.c", dir, key);
    /* unique names: other processes and threads may compile the same key */
    snprintf(tmp_so, sizeof tmp_so, "%s/%s.so.tmp.%ld.XXXXXX", dir, key, (long)getpid());
    snprintf(log, sizeof log, "%s/%s.log.%ld.XXXXXX", dir, key, (long)getpid());
    int fd_so = mkstemp(tmp_so), fd_log = fd_so < 0 ? -1 : mkstemp(log);
    if (fd_so >= 0) close(fd_so);
    if (fd_log >= 0) close(fd_log);
    if (fd_so < 0 || fd_log < 0) {
        if (fd_so >= 0) unlink(tmp_so);
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "compiled: cannot create a file in %s: %s", dir,
                         strerror(errno));
    }
    rc = rb_file_write_atomic(src_path, src->data, src->len, err);
    if (rc < 0) {
        unlink(tmp_so);
        unlink(log);
        return rc;
    }
    uint64_t t0 = rb__monotonic_ns();
    rc = run_compiler(cc, ncc, src_path, tmp_so, log, err);
    *compiled_ms = (double)(rb__monotonic_ns() - t0) / 1e6;
    if (rc == RB_OK && rename(tmp_so, path) < 0)
        rc = rb__error(err, RB_EIO, RB_NO_OFFSET, "compiled: renaming %s: %s", tmp_so,
                       strerror(errno));
    if (rc < 0) unlink(tmp_so);
    return rc;
}

/* Open the library (unless open) and build its router from the held routes. */
static int load_library(compiled_router *c, const char *path, rb_error *err)
{
    if (!c->lib) c->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!c->lib) {
        const char *why = dlerror();
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "compiled: cannot load %s: %s", path,
                         why ? why : "unknown reason");
    }
    void *sym = dlsym(c->lib, RB_PLUGIN_SYMBOL);
    if (!sym)
        return rb__error(err, RB_EABI, RB_NO_OFFSET, "compiled: %s has no %s", path,
                         RB_PLUGIN_SYMBOL);
    rb_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry);
    size_t n = 0;
    const rb_router_ops *const *table = entry(&n);
    if (!table || n != 1)
        return rb__error(err, RB_EABI, RB_NO_OFFSET, "compiled: %s gives no router", path);
    int rc = rb__ops_validate(table[0], err);
    if (rc < 0) return rc;
    c->inner = table[0];
    rc = c->inner->create(&c->config, &c->inner_impl, err);
    if (rc < 0) return rc;
    for (size_t i = 0; i < c->count && rc == RB_OK; i++) {
        rb_route r = {c->routes[i].method, c->routes[i].id, &c->routes[i].pattern};
        rc = c->inner->add(c->inner_impl, &r, err);
    }
    if (rc == RB_OK) rc = c->inner->build(c->inner_impl, err);
    return rc;
}

static int compiled_build(void *impl, rb_error *err)
{
    compiled_router *c = impl;
    if (c->count > RB_COMPILED_MAX_ROUTES)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET,
                         "%zu routes, over the %u it compiles "
                         "(routebench compile has no such limit)",
                         c->count, RB_COMPILED_MAX_ROUTES);
    rb_route *routes = malloc((c->count ? c->count : 1) * sizeof *routes);
    if (!routes) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory in compiled");
    for (size_t i = 0; i < c->count; i++)
        routes[i] = (rb_route){c->routes[i].method, c->routes[i].id, &c->routes[i].pattern};
    rb_buf src = {0};
    int rc = rb_compile_routes(routes, c->count, RB_COMPILE_DEFAULT_PREFIX, &src, err);
    free(routes);
    char path[3200];
    double ms = 0;
    if (rc == RB_OK) rc = library_for(&src, path, sizeof path, &ms, err);
    size_t src_len = src.len;
    if (rc == RB_OK) {
        c->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!c->lib && ms == 0) {
            /* a cache entry that does not load (truncated, or from another
             * machine): compiled again, once; a second failure is reported */
            unlink(path);
            rc = library_for(&src, path, sizeof path, &ms, err);
        }
    }
    rb_buf_free(&src);
    if (rc == RB_OK) rc = load_library(c, path, err);
    if (rc < 0) return rc;
    struct stat st;
    c->lib_bytes = stat(path, &st) == 0 ? (size_t)st.st_size : 0;
    if (ms > 0)
        snprintf(c->describe, sizeof c->describe,
                 "generated %zu bytes of C, compiled in %.0f ms into %s (%zu bytes)", src_len, ms,
                 path, c->lib_bytes);
    else
        snprintf(c->describe, sizeof c->describe,
                 "generated %zu bytes of C, found compiled in the cache: %s (%zu bytes)", src_len,
                 path, c->lib_bytes);
    free_routes(c);
    c->lookup = c->inner->lookup;
    return RB_OK;
}

static int compiled_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    const compiled_router *c = impl;
    return c->lookup(c->inner_impl, method, path, len, m);
}

/* The library's code and tables (its file size), the plugin's state, and
 * before build the routes held. */
static size_t compiled_memory(const void *impl)
{
    const compiled_router *c = impl;
    size_t bytes = sizeof *c + c->lib_bytes + c->cap * sizeof *c->routes;
    for (size_t i = 0; i < c->count; i++)
        bytes += c->routes[i].pattern.len + rb_pattern_bytes(&c->routes[i].pattern);
    if (c->inner_impl) bytes += c->inner->memory(c->inner_impl);
    return bytes;
}

static const char *compiled_describe(const void *impl)
{
    return ((const compiled_router *)impl)->describe;
}

static void compiled_destroy(void *impl)
{
    compiled_router *c = impl;
    if (c->inner_impl) c->inner->destroy(c->inner_impl);
    if (c->lib) dlclose(c->lib);
    free_routes(c);
    free(c);
}

const rb_router_ops rb_bench_compiled_ops = {
    .abi_version = RB_ROUTER_ABI_VERSION,
    .name = RB_COMPILED_NAME,
    .summary = "C generated for the table (routebench compile), compiled with $CC and loaded",
    .features = RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_TEMPLATE,
    .create = compiled_create,
    .add = compiled_add,
    .build = compiled_build,
    .lookup = compiled_lookup,
    .memory = compiled_memory,
    .destroy = compiled_destroy,
    .describe = compiled_describe,
    .check = NULL,
};
