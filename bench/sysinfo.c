/*
 * sysinfo.c — build and machine facts (Linux /proc and /sys, uname,
 * sysconf), CPU pinning, and the trust warnings.
 */
#define _GNU_SOURCE
#include "sysinfo.h"

#include "build_stamp.h"
#include "router_impl.h"

#include <errno.h>
#include <sched.h>
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

/* The first line of a small file, without its newline; false if unreadable. */
static bool read_line(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) return false;
    bool ok = fgets(buf, (int)cap, f) != NULL;
    fclose(f);
    if (ok) buf[strcspn(buf, "\n")] = '\0';
    return ok && *buf;
}

static void cpu_model(char *buf, size_t cap)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    copy(buf, cap, "unknown");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *colon = strchr(line, ':');
        if (!colon) continue;
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        line[strcspn(line, "\n")] = '\0';
        copy(buf, cap, colon);
        break;
    }
    fclose(f);
}

double rb_sysinfo_loadavg(void)
{
    char line[128];
    if (!read_line("/proc/loadavg", line, sizeof line)) return -1;
    char *end;
    double v = strtod(line, &end);
    return end != line && v >= 0 ? v : -1;
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
}

void rb_sysinfo_fill(rb_bundle *b)
{
    rb_sysinfo_tool(b);

    cpu_model(b->cpu_model, sizeof b->cpu_model);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    b->cores = cores > 0 ? cores : 0;
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(b->kernel, sizeof b->kernel, "%s %s %s", u.sysname, u.release, u.machine);
    else
        copy(b->kernel, sizeof b->kernel, "unknown");
    if (!read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", b->governor,
                   sizeof b->governor))
        b->governor[0] = '\0';
    b->loadavg_start = rb_sysinfo_loadavg();

    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(b->date, sizeof b->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    else
        copy(b->date, sizeof b->date, "unknown");
}

int rb_sysinfo_pin_cpu(int cpu, rb_error *err)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "no CPU %d", cpu);
    size_t index = (size_t)cpu; /* in range: checked above */
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(index, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "cannot pin to CPU %d: %s", cpu,
                         strerror(errno));
    return RB_OK;
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
    if (rb_metric_exact(b->metric)) return rc; /* counts do not depend on the load */
    if (b->loadavg_start > cores / 2) {
        snprintf(text, sizeof text,
                 "The machine looked busy at the start: load average %.2f on %ld cores. Other "
                 "work competes for the CPU and the caches; expect wider intervals.",
                 b->loadavg_start, b->cores);
        rc = rc < 0 ? rc : rb_bundle_add_warning(b, text);
    }
    /* The run itself keeps one core busy. */
    if (b->loadavg_end >= 0 && b->loadavg_end - 1 > cores / 2) {
        snprintf(text, sizeof text,
                 "The machine looked busy during the run: load average %.2f at the end on %ld "
                 "cores (the run itself accounts for about 1).",
                 b->loadavg_end, b->cores);
        rc = rc < 0 ? rc : rb_bundle_add_warning(b, text);
    }
    return rc;
}

/* A "Key:   123 kB" line of /proc/self/status, in bytes; -1 if absent. */
static int64_t status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    size_t n = strlen(key);
    int64_t v = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ':') {
            v = strtoll(line + n + 1, NULL, 10) * 1024;
            break;
        }
    fclose(f);
    return v;
}

int64_t rb_sysinfo_rss_peak(void)
{
    return status_kb("VmHWM");
}

int64_t rb_sysinfo_rss_peak_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return -1;
    bool ok = fputs("5", f) >= 0;
    ok = fclose(f) == 0 && ok;
    return ok ? status_kb("VmRSS") : -1;
}
