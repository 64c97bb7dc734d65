/*
 * sysinfo.c — the build and machine facts of a bundle (the machine's
 * from machine.h), and the trust warnings.
 */
#define _GNU_SOURCE
#include "sysinfo.h"

#include "build_stamp.h"
#include "callgrind.h"
#include "machine.h"
#include "base_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef RB_VERSION
#define RB_VERSION "unknown"
#endif
#ifndef RB_C_COMPILER
#define RB_C_COMPILER "unknown"
#endif
#ifndef RB_C_FLAGS
#define RB_C_FLAGS "unknown"
#endif
#ifndef RB_BUILD_TYPE
#define RB_BUILD_TYPE "unknown"
#endif
#ifndef RB_SANITIZED
#define RB_SANITIZED 0
#endif

static void copy(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src);
}

void rb_sysinfo_tool(rb_bundle *b)
{
    copy(b->version, sizeof b->version, RB_VERSION);
    copy(b->commit, sizeof b->commit, rb__build_commit());
    copy(b->compiler, sizeof b->compiler, RB_C_COMPILER);
    copy(b->flags, sizeof b->flags, RB_C_FLAGS);
    copy(b->build_type, sizeof b->build_type, RB_BUILD_TYPE);
#ifdef __OPTIMIZE__
    b->optimized = true;
#else
    b->optimized = false;
#endif
    b->sanitized = RB_SANITIZED != 0;
    rb_callgrind_version(b->valgrind, sizeof b->valgrind);
}

void rb_sysinfo_fill(rb_bundle *b)
{
    rb_sysinfo_tool(b);

    rb_machine_cpu_model(b->cpu_model, sizeof b->cpu_model);
    rb_machine_cpu_vendor(b->cpu_vendor, sizeof b->cpu_vendor);
    rb_machine_cpu_family(b->cpu_family, sizeof b->cpu_family);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    b->cores = cores > 0 ? cores : 0;
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(b->kernel, sizeof b->kernel, "%s %s %s", u.sysname, u.release, u.machine);
    else
        copy(b->kernel, sizeof b->kernel, "unknown");
    rb_machine_governor(b->governor, sizeof b->governor);
    b->loadavg_start = rb_machine_loadavg();

    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(b->date, sizeof b->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    else
        copy(b->date, sizeof b->date, "unknown");
}

int rb_sysinfo_warnings(rb_bundle *b)
{
    char text[512];
    int rc = RB_OK;
    if (!b->optimized) {
        snprintf(text, sizeof text,
                 "The build is not optimised (build type %s, flags '%s'): the numbers do not "
                 "show what the routers can do. Build with scripts/build.sh (Release).",
                 b->build_type, b->flags);
        rc = rc < 0 ? rc : rb_bundle_add_warning(b, text);
    }
    if (b->sanitized)
        rc = rc < 0 ? rc
                    : rb_bundle_add_warning(b, "Sanitizers are on (RB_SANITIZE): lookups pay "
                                               "for instrumentation; do not compare these "
                                               "numbers with an ordinary build.");
    double cores = b->cores > 0 ? (double)b->cores : 1;
    double quiet = RB_QUIET_LOAD_PER_CORE * cores;
    if (rb_metric_exact(b->metric)) return rc; /* counts do not depend on the load */
    if (b->loadavg_start > quiet) {
        snprintf(text, sizeof text,
                 "The machine looked busy at the start: load average %.2f on %ld cores. Other "
                 "work competes for the CPU and the caches; expect wider intervals.",
                 b->loadavg_start, b->cores);
        rc = rc < 0 ? rc : rb_bundle_add_warning(b, text);
    }
    /* The run itself keeps one core busy: the limit allows for it. */
    if (b->loadavg_end > quiet) {
        snprintf(text, sizeof text,
                 "The machine looked busy during the run: load average %.2f at the end on %ld "
                 "cores (the run itself accounts for about 1).",
                 b->loadavg_end, b->cores);
        rc = rc < 0 ? rc : rb_bundle_add_warning(b, text);
    }
    return rc;
}
