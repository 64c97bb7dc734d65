/*
 * program.c — finding a program to start, and reaping it (program.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "program.h"

#include "clock.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
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

int rb__reap_child(pid_t pid, uint64_t budget_ms, bool group, int *status)
{
    *status = 0;
    if (budget_ms == RB_REAP_FOREVER) {
        while (waitpid(pid, status, 0) < 0)
            if (errno != EINTR) return -1;
        return 1;
    }
    uint64_t deadline = rb__monotonic_ns() + budget_ms * UINT64_C(1000000);
    for (;;) {
        pid_t got = waitpid(pid, status, WNOHANG);
        if (got == pid) return 1;
        if (got < 0 && errno != EINTR) return -1;
        if (rb__monotonic_ns() > deadline) break;
        struct timespec nap = {0, 5 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    kill(group ? -pid : pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
    }
    return 0;
}
