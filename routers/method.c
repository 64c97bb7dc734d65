/*
 * method.c — the HTTP method names: rb_method_parse and rb_method_name
 * (router.h), one table for both.  A leaf: every other file of routers/
 * that names a method calls these.
 */
#include "router.h"

#include <string.h>

static const char *const method_names[RB_METHOD_COUNT + 1] = {
    "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "*",
};

int rb_method_parse(const char *name, size_t len)
{
    for (int m = 0; m <= RB_ANY; m++) {
        if (strlen(method_names[m]) == len && memcmp(method_names[m], name, len) == 0) return m;
    }
    return RB_EMETHOD;
}

const char *rb_method_name(int method)
{
    if (method < 0 || method > RB_ANY) return NULL;
    return method_names[method];
}
