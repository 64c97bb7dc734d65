/*
 * program.c — finding a program to start (program.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool rb__find_program(const char *name, char *buf, size_t cap)
{
    if (strchr(name, '/')) {
        int w = snprintf(buf, cap, "%s", name);
        return w > 0 && (size_t)w < cap && access(buf, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        int w = snprintf(buf, cap, "%.*s/%s", (int)n, n ? p : ".", name);
        if (w > 0 && (size_t)w < cap && access(buf, X_OK) == 0) return true;
        if (!colon) return false;
        p = colon + 1;
    }
}
