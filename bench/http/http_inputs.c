/*
 * http_inputs.c — an HTTP run's inputs (http_inputs.h).
 */
#define _GNU_SOURCE
#include "http_inputs.h"

#include "base_internal.h"
#include "shipped.h"

#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* routebench-http-server beside /proc/self/exe */
static void default_server(char *path, size_t cap)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(path, cap, "routebench-http-server");
        return;
    }
    exe[n] = '\0';
    snprintf(path, cap, "%s/routebench-http-server", dirname(exe));
}

static int split_routers(rb_http_options *o, rb_http_inputs *in, const char *list, rb_error *err)
{
    snprintf(in->routers, sizeof in->routers, "%s", list);
    o->nspecs = 0;
    for (char *save = NULL, *tok = strtok_r(in->routers, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (o->nspecs == RB_HTTP_MAX_ROUTERS)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "at most %d routers",
                             RB_HTTP_MAX_ROUTERS);
        o->specs[o->nspecs++] = tok;
    }
    if (o->nspecs == 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "--routers needs at least one router");
    return RB_OK;
}

int rb_http_inputs_resolve(rb_http_options *o, rb_http_inputs *in, const char *routers,
                           const char *corpus, const char *server, rb_error *err)
{
    default_server(in->server, sizeof in->server);
    o->server_path = server ? server : in->server;
    int rc = split_routers(o, in, routers, err);
    if (rc < 0) return rc;
    if (corpus) {
        if (!rb_shipped_path(corpus, "routes", in->routes, sizeof in->routes) ||
            !rb_shipped_path(corpus, "requests", in->requests, sizeof in->requests))
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                             "no shipped corpus '%s' (routebench list)", corpus);
        o->routes_path = in->routes;
        o->requests_path = in->requests;
    }
    if (!o->routes_path || !o->requests_path)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "needs --routes F and --requests F, or --corpus NAME");
    return RB_OK;
}
