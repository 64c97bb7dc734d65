/*
 * bundle_dir.c — the bundle directory: summary.json and trials.csv are the
 * data; report.md and the charts are rendered from those two
 * files (after a run and by `routebench report DIR` alike), so the rendering
 * is a function of the files.  Every file is written atomically (temp file +
 * rename, base/file.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle.h"
#include "file.h"

#include "router_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int join(char *buf, size_t cap, const char *dir, const char *file, rb_error *err)
{
    int n = snprintf(buf, cap, "%s/%s", dir, file);
    if (n < 0 || (size_t)n >= cap)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "path too long: %s/%s", dir, file);
    return RB_OK;
}

/* mkdir -p */
static int make_dir(const char *dir, rb_error *err)
{
    char path[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "bad output directory '%s'", dir);
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0') continue;
        char c = path[i];
        path[i] = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot create directory %s: %s", path,
                             strerror(errno));
        path[i] = c;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "%s is not a directory", dir);
    return RB_OK;
}

int rb_bundle_prepare_dir(const char *dir, rb_error *err)
{
    int rc = make_dir(dir, err);
    if (rc < 0) return rc;
    char probe[4200];
    rc = join(probe, sizeof probe, dir, ".routebench-probe-XXXXXX", err);
    if (rc < 0) return rc;
    int fd = mkstemp(probe);
    if (fd < 0)
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot write into %s: %s", dir,
                         strerror(errno));
    close(fd);
    unlink(probe);
    return RB_OK;
}

static int write_buf(const char *dir, const char *file, rb_buf *buf, rb_error *err)
{
    char path[4096];
    int rc = join(path, sizeof path, dir, file, err);
    if (rc == RB_OK && buf->failed)
        rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory rendering %s", file);
    if (rc == RB_OK) rc = rb_file_write_atomic(path, buf->data ? buf->data : "", buf->len, err);
    rb_buf_free(buf);
    return rc;
}

int rb_bundle_write_dir(const rb_bundle *b, const char *dir, rb_error *err)
{
    int rc = make_dir(dir, err);
    rb_buf buf = {0};
    if (rc == RB_OK) rc = rb_bundle_json_write(b, &buf, err);
    if (rc == RB_OK) rc = write_buf(dir, "summary.json", &buf, err);
    rb_buf_free(&buf);
    if (rc == RB_OK) rc = rb_bundle_csv_write(b, &buf, err);
    if (rc == RB_OK) rc = write_buf(dir, "trials.csv", &buf, err);
    rb_buf_free(&buf);
    if (rc == RB_OK) rc = rb_bundle_render_dir(dir, err);
    return rc;
}

int rb_bundle_read_dir(const char *dir, rb_bundle *b, rb_error *err)
{
    char path[4096];
    char *text = NULL;
    size_t len = 0;
    rb_bundle_init(b);
    int rc = join(path, sizeof path, dir, "summary.json", err);
    if (rc == RB_OK) rc = rb_file_read(path, &text, &len, err);
    if (rc == RB_OK) rc = rb_bundle_json_read(text, len, b, err);
    free(text);
    text = NULL;
    if (rc == RB_OK) rc = join(path, sizeof path, dir, "trials.csv", err);
    if (rc == RB_OK) rc = rb_file_read(path, &text, &len, err);
    if (rc == RB_OK) rc = rb_bundle_csv_read(text, len, b, err);
    free(text);
    if (rc < 0) rb_bundle_free(b);
    return rc;
}

int rb_bundle_render_dir(const char *dir, rb_error *err)
{
    rb_bundle b;
    int rc = rb_bundle_read_dir(dir, &b, err);
    if (rc < 0) return rc;
    rb_buf buf = {0};
    rc = rb_bundle_report_md(&b, &buf, err);
    if (rc == RB_OK) rc = write_buf(dir, "report.md", &buf, err);
    rb_buf_free(&buf);
    for (int c = 0; rc == RB_OK && c < RB_NCHARTS; c++) {
        const char *file = rb_bundle_chart_file((rb_bundle_chart)c);
        if (!rb_bundle_chart_has_data(&b, (rb_bundle_chart)c)) {
            char path[4200];
            rc = join(path, sizeof path, dir, file, err);
            if (rc == RB_OK && unlink(path) != 0 && errno != ENOENT)
                rc = rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot remove the stale %s: %s", path,
                               strerror(errno));
            continue;
        }
        rc = rb_bundle_chart_render(&b, (rb_bundle_chart)c, &buf, err);
        if (rc == RB_OK) rc = write_buf(dir, file, &buf, err);
        rb_buf_free(&buf);
    }
    rb_bundle_free(&b);
    return rc;
}
