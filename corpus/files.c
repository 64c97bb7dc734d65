/*
 * files.c — whole-file reads, atomic writes and a growable text buffer.
 */
#define _POSIX_C_SOURCE 200809L
#include "files.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int io_error(rb_error *err, const char *what, const char *path)
{
    int e = errno;
    if (err) {
        err->code = RB_EIO;
        err->offset = RB_NO_OFFSET;
        err->line = 0;
        snprintf(err->message, sizeof err->message, "%s %s: %s", what, path, strerror(e));
    }
    return RB_EIO;
}

int rb_file_read(const char *path, char **data, size_t *len, rb_error *err)
{
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return io_error(err, "cannot open", path);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1) break;
        char *grown = realloc(buf, cap * 2);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf) {
        if (err) {
            err->code = RB_ENOMEM;
            err->offset = RB_NO_OFFSET;
            err->line = 0;
            snprintf(err->message, sizeof err->message, "out of memory reading %s", path);
        }
        return RB_ENOMEM;
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

int rb_grow_array(void **items, size_t *cap, size_t need, size_t item_size)
{
    if (need <= *cap) return RB_OK;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need) ncap *= 2;
    void *grown = realloc(*items, ncap * item_size);
    if (!grown) return RB_ENOMEM;
    *items = grown;
    *cap = ncap;
    return RB_OK;
}

void rb_buf_append(rb_buf *b, const char *s, size_t n)
{
    if (b->failed) return;
    if (b->len + n + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 256;
        while (ncap < b->len + n + 1) ncap *= 2;
        char *grown = realloc(b->data, ncap);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->cap = ncap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void rb_buf_puts(rb_buf *b, const char *s)
{
    rb_buf_append(b, s, strlen(s));
}

void rb_buf_printf(rb_buf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        rb_buf_append(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    rb_buf_append(b, big, (size_t)n);
    free(big);
}

void rb_buf_free(rb_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}
