/*
 * machine.c — probes of the machine (Linux /proc and /sys, sched): CPU
 * model, governor, load average, CPU pinning, resident memory.
 */
#define _GNU_SOURCE
#include "machine.h"

#include "base_internal.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void rb_machine_cpu_model(char *buf, size_t cap)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(buf, cap, "unknown");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *colon = strchr(line, ':');
        if (!colon) continue;
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        line[strcspn(line, "\n")] = '\0';
        snprintf(buf, cap, "%s", colon);
        break;
    }
    fclose(f);
}

void rb_machine_governor(char *buf, size_t cap)
{
    if (!read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", buf, cap))
        buf[0] = '\0';
}

double rb_machine_loadavg(void)
{
    char line[128];
    if (!read_line("/proc/loadavg", line, sizeof line)) return -1;
    char *end;
    double v = strtod(line, &end);
    return end != line && v >= 0 ? v : -1;
}

int rb_machine_pin_cpu(int cpu, rb_error *err)
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

int64_t rb_machine_rss_peak(void)
{
    return status_kb("VmHWM");
}

int64_t rb_machine_rss_peak_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return -1;
    bool ok = fputs("5", f) >= 0;
    ok = fclose(f) == 0 && ok;
    return ok ? status_kb("VmRSS") : -1;
}
