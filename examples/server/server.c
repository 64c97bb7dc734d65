/*
 * server.c — the routing half of a C server, using the installed routebench
 * library: add routes, build, look requests up, read the captured params.
 *
 *     cc server.c $(pkg-config --cflags --libs routebench) -o server
 *     ./server            # uses the `linear` router
 *     ./server NAME       # any router of `routebench list`
 *
 * (or with CMake: find_package(routebench) and routebench::routebench; see
 * CMakeLists.txt here.)  Prints one line per request; tests/install_test.sh
 * compares them with the expected answers.
 */
#include <routebench/router.h>

#include <stdio.h>
#include <string.h>

typedef struct handler_route {
    int method;
    const char *pattern;
    const char *handler; /* what a server would call */
} handler_route;

static const handler_route routes[] = {
    {RB_GET, "/users", "list_users"},          {RB_GET, "/users/:id", "show_user"},
    {RB_GET, "/users/me", "show_me"},          {RB_POST, "/users/:id/posts", "create_post"},
    {RB_GET, "/static/{*path}", "serve_file"},
};

static void handle(const rb_router *r, int method, const char *path)
{
    rb_match m;
    size_t len = strlen(path);
    printf("%s %s -> ", rb_method_name(method), path);
    switch (rb_router_lookup(r, method, path, len, &m)) {
    case RB_FOUND:
        printf("200 %s", routes[m.route_id].handler);
        for (uint32_t i = 0; i < m.nparams; i++) /* spans point into path: zero-copy */
            printf(" [%.*s]", (int)m.params[i].len, path + m.params[i].offset);
        break;
    case RB_METHOD_NOT_ALLOWED:
        printf("405 Allow:");
        for (int k = 0; k < RB_METHOD_COUNT; k++)
            if (m.allowed & RB_METHOD_BIT(k)) printf(" %s", rb_method_name(k));
        break;
    default:
        printf("404");
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "linear";
    rb_router *r;
    rb_error err;
    if (rb_router_create(name, NULL, &r, &err) < 0) {
        fprintf(stderr, "server: %s\n", err.message);
        return 1;
    }
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        const char *p = routes[i].pattern;
        if (rb_router_add(r, routes[i].method, p, strlen(p), (uint32_t)i, &err) < 0) {
            fprintf(stderr, "server: %s: %s\n", p, err.message);
            rb_router_destroy(r);
            return 1;
        }
    }
    if (rb_router_build(r, &err) < 0) {
        fprintf(stderr, "server: build: %s\n", err.message);
        rb_router_destroy(r);
        return 1;
    }
    handle(r, RB_GET, "/users/42");
    handle(r, RB_GET, "/users/me");
    handle(r, RB_POST, "/users/7/posts");
    handle(r, RB_GET, "/static/css/site.css");
    handle(r, RB_PUT, "/users/7");
    handle(r, RB_GET, "/nope");
    rb_router_destroy(r);
    return 0;
}
