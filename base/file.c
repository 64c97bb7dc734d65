/*
 * file.c — whole-file reads and atomic writes (see file.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "file.h"

#include "base_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int io_error(rb_error *err, const char *what, const char *path)
{
    return rb__error(err, RB_EIO, RB_NO_OFFSET, "%s %s: %s", what, path, strerror(errno));
}

int rb_file_read(const char *path, char **data, size_t *len, rb_error *err)
{
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return io_error(err, "cannot open", path);
    size_t cap = 0, n = 0;
    char *buf = NULL;
    int oom;
    /* read until a read leaves room: then the file has ended (or failed) */
    while (!(oom = rb_grow(NULL, &buf, &cap, n + 2, 1, 1 << 16))) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1) break;
    }
    int failed = ferror(f);
    fclose(f);
    if (oom) {
        free(buf);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory reading %s", path);
    }
    if (failed) {
        free(buf);
        return io_error(err, "cannot read", path);
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return RB_OK;
}

int rb_file_write_atomic(const char *path, const char *data, size_t len, rb_error *err)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    if (!tmp) return io_error(err, "out of memory writing", path);
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp.XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int rc = io_error(err, "cannot create a temporary file for", path);
        free(tmp);
        return rc;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0) {
            if (errno == EINTR) continue;
            break;
        }
        done += (size_t)w;
    }
    int ok = done == len && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    /* mkstemp makes 0600 files; an output file should be like any other. */
    ok = ok && chmod(tmp, 0644) == 0;
    if (!ok || rename(tmp, path) != 0) {
        int rc = io_error(err, "cannot write", path);
        unlink(tmp);
        free(tmp);
        return rc;
    }
    free(tmp);
    return RB_OK;
}
