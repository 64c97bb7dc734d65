/*
 * library_id.c — path, size, hash and commit of a plugin library
 * (library_id.h).
 */
#define _DEFAULT_SOURCE
#include "library_id.h"

#include "base_internal.h"
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

/* What the file at path is, when it is not a regular file. */
static int not_regular(const char *path, mode_t mode, rb_error *err)
{
    const char *kind = S_ISDIR(mode)    ? "a directory"
                       : S_ISFIFO(mode) ? "a FIFO"
                       : S_ISCHR(mode)  ? "a character device"
                       : S_ISBLK(mode)  ? "a block device"
                       : S_ISSOCK(mode) ? "a socket"
                                        : "something else";
    return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot read %s: it is %s, not a regular file",
                     path, kind);
}

int rb_library_identify(const char *label, const char *path, const char *commit,
                        rb_bundle_library *out, rb_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->router, sizeof out->router, "%s", label);
    char *abs = realpath(path, NULL);
    snprintf(out->path, sizeof out->path, "%s", abs ? abs : path);
    free(abs);
    snprintf(out->commit, sizeof out->commit, "%s", commit ? commit : "");
    /* the rule of base/file.h: a regular file, at most RB_FILE_READ_MAX
     * bytes; refused before it is opened (a FIFO would block the open, a
     * device never ends) */
    struct stat st;
    if (stat(path, &st) != 0)
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot read %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode)) return not_regular(path, st.st_mode, err);
    /* O_NONBLOCK: a FIFO put in its place meanwhile cannot block the open */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot read %s: %s", path, strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return not_regular(path, st.st_mode, err);
    }
    XXH3_state_t *xs = XXH3_createState();
    if (!xs) {
        close(fd);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    }
    XXH3_64bits_reset(xs);
    char buf[65536];
    int failed = 0;
    /* until the end, or past the cap (a file that grows meanwhile) */
    while (out->size <= RB_FILE_READ_MAX) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) failed = errno;
        if (n <= 0) break;
        XXH3_64bits_update(xs, buf, (size_t)n);
        out->size += (uint64_t)n;
    }
    close(fd);
    out->hash = XXH3_64bits_digest(xs);
    XXH3_freeState(xs);
    if (failed)
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot read %s: %s", path, strerror(failed));
    if (out->size > RB_FILE_READ_MAX)
        return rb__error(err, RB_EIO, RB_NO_OFFSET,
                         "cannot read %s: larger than %zu MiB, the most routebench reads of "
                         "such a file (docs/cli.md, \"Input caps\")",
                         path, RB_FILE_READ_MAX >> 20);
    return RB_OK;
}
