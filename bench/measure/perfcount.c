/*
 * perfcount.c — the hardware instruction counter (perfcount.h).
 */
#define _GNU_SOURCE
#include "perfcount.h"

#include "base_internal.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int rb_perf_open(rb_perf_counter *c, rb_error *err)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof attr;
    attr.config = PERF_COUNT_HW_INSTRUCTIONS;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    if (fd < 0) {
        int e = errno;
        c->fd = -1;
        return rb__error(err, RB_EUNSUPPORTED, RB_NO_OFFSET,
                         "hardware instruction counters are not readable here "
                         "(perf_event_open: %s%s)",
                         strerror(e),
                         e == ENOENT || e == EOPNOTSUPP ? "; this machine exposes no such counter"
                         : e == EACCES || e == EPERM ? "; see /proc/sys/kernel/perf_event_paranoid"
                                                     : "");
    }
    c->fd = (int)fd;
    return RB_OK;
}

uint64_t rb_perf_read(const rb_perf_counter *c)
{
    uint64_t v = 0;
    if (c->fd < 0 || read(c->fd, &v, sizeof v) != (ssize_t)sizeof v) return 0;
    return v;
}

void rb_perf_close(rb_perf_counter *c)
{
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
}
