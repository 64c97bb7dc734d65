/*
 * http_faults.c — a test plugin of three deliberately faulty routers for
 * tests/test_http.c, each `linear` (this build's, linked in) with one
 * fault on paths holding a marker:
 *
 *   wrongone   answers a path ending in "/wrong" with the next route id:
 *              the validity gate must refuse the load phase, naming it;
 *   crashy     aborts on a path holding "/crash": the server dies and
 *              `routebench http` must say so and show its stderr;
 *   hangs      sleeps on a path holding "/hang": the server hangs and
 *              must be killed after the timeout;
 *   hostabort  right in the server, aborts in routebench's own process
 *              (its in-process lookups): routebench must report it;
 *   hosthang   right in the server, sleeps in routebench's own process:
 *              routebench must kill the lookups after its timeout.
 */
#include "router_plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char *program_invocation_short_name; /* glibc */

const rb_router_ops *const *routebench_plugin_routers(size_t *count);

static bool has(const char *path, size_t len, const char *marker)
{
    size_t n = strlen(marker);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(path + i, marker, n) == 0) return true;
    return false;
}

static int wrongone_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    int out = rb_registry_find("linear")->lookup(impl, method, path, len, m);
    if (out == RB_FOUND && len >= 6 && memcmp(path + len - 6, "/wrong", 6) == 0) m->route_id++;
    return out;
}

static int crashy_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    if (has(path, len, "/crash")) {
        fprintf(stderr, "crashy: aborting on purpose at %.*s\n", (int)len, path);
        abort();
    }
    return rb_registry_find("linear")->lookup(impl, method, path, len, m);
}

static int hangs_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    if (has(path, len, "/hang")) {
        fprintf(stderr, "hangs: sleeping on purpose at %.*s\n", (int)len, path);
        for (;;) sleep(60);
    }
    return rb_registry_find("linear")->lookup(impl, method, path, len, m);
}

/* In routebench itself, not in routebench-http-server? */
static bool in_host(void)
{
    return strcmp(program_invocation_short_name, "routebench") == 0;
}

static int hostabort_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    if (in_host()) abort();
    return rb_registry_find("linear")->lookup(impl, method, path, len, m);
}

static int hosthang_lookup(const void *impl, int method, const char *path, size_t len, rb_match *m)
{
    if (in_host())
        for (;;) sleep(60);
    return rb_registry_find("linear")->lookup(impl, method, path, len, m);
}

static rb_router_ops faulty[5];
static const rb_router_ops *table[5];

__attribute__((visibility("default"))) const rb_router_ops *const *
routebench_plugin_routers(size_t *count)
{
    static const char *const names[] = {"wrongone", "crashy", "hangs", "hostabort", "hosthang"};
    int (*const lookups[])(const void *, int, const char *, size_t, rb_match *) = {
        wrongone_lookup, crashy_lookup, hangs_lookup, hostabort_lookup, hosthang_lookup};
    for (size_t i = 0; i < 5; i++) {
        faulty[i] = *rb_registry_find("linear");
        faulty[i].name = names[i];
        faulty[i].summary = "test: linear with one deliberate fault (tests/plugins/http_faults.c)";
        faulty[i].lookup = lookups[i];
        table[i] = &faulty[i];
    }
    *count = 5;
    return table;
}
