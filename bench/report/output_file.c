/*
 * output_file.c — where an output goes (output_file.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "output_file.h"

#include "base_internal.h"
#include "file.h"
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rb_output_check_file(const char *path, rb_error *err)
{
    if (strcmp(path, "-") == 0) return RB_OK;
    int rc = rb_file_check_link(path, err);
    if (rc < 0) return rc;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s is a directory, not a file", path);
    if (rb_file_is_stream(path)) { /* written in place (file.h) */
        if (access(path, W_OK) != 0)
            return rb__error(err, RB_EIO, RB_NO_OFFSET, "%s: %s", path, strerror(errno));
        return RB_OK;
    }
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (stat(dir, &st) != 0)
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "%s: directory %s: %s", path, dir,
                         strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s: %s is not a directory", path, dir);
    if (access(dir, W_OK) != 0)
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "%s: directory %s is not writable: %s", path,
                         dir, strerror(errno));
    return RB_OK;
}

void rb_bundle_files_text(const char *dir, const rb_bundle *b, rb_buf *out)
{
    rb_buf_printf(out, "report: %s/report.html (open it in a browser)\n", dir);
    rb_buf_puts(out, "  beside summary.json, trials.csv, report.md");
    for (int c = 0; c < RB_NCHARTS; c++)
        if (rb_bundle_chart_has_data(b, (rb_bundle_chart)c))
            rb_buf_printf(out, ", %s", rb_bundle_chart_file((rb_bundle_chart)c));
    rb_buf_puts(out, "\n");
}
