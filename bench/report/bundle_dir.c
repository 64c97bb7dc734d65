/*
 * bundle_dir.c — the bundle directory: summary.json and trials.csv are the
 * data; report.md and the charts are rendered from those two files (after
 * a run and by `routebench report DIR` alike), so the rendering is a
 * function of the files.
 *
 * A bundle appears whole: every file is written into a temporary directory
 * beside DIR, which then takes DIR's place in one step (base/file.h).  A
 * reader never sees summary.json of one run beside trials.csv of another,
 * and a killed run leaves the previous bundle as it was.  Because DIR is
 * replaced as a whole, it must be new, empty or a bundle: a directory
 * holding anything else (a subdirectory, a file that is not one of a
 * bundle's kinds: .json, .csv, .md, .svg, .html, .routes, .requests) is
 * refused before any work, so nothing else is ever removed.  `routebench
 * report DIR` is gentler: it renders a bundle again in place, so it keeps
 * any other file of DIR as it is (a user's cost.png) and says which.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "bundle.h"
#include "file.h"
#include "output.h"

#include "base_internal.h"
#include "report.h"

#include <dirent.h>
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

/* mkdir -p of dir's parent */
static int make_parent(const char *dir, rb_error *err)
{
    char path[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "bad output directory '%s'", dir);
    memcpy(path, dir, n + 1);
    while (n > 1 && path[n - 1] == '/') path[--n] = '\0';
    char *slash = strrchr(path, '/');
    if (!slash || slash == path) return RB_OK;
    *slash = '\0';
    return rb_dir_make(path, err);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A bundle's kinds of files: data, renderings, the input tables. */
static bool bundle_kind(const char *name)
{
    static const char *const kinds[] = {".json", ".csv",    ".md",      ".svg",
                                        ".html", ".routes", ".requests"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (ends_with(name, kinds[i])) return true;
    return false;
}

/* May dir be replaced by a bundle?  Missing, empty, or holding only a
 * bundle's kind of files (summary.json among them); with keep (report
 * DIR), a bundle may also hold other regular files, named into kept
 * (comma-separated) for the caller to say so. */
static int check_replaceable(const char *dir, bool keep, char *kept, size_t kept_cap, rb_error *err)
{
    size_t kept_len = 0;
    if (kept_cap) kept[0] = '\0';
    struct stat st;
    if (rb_file_check_link(dir, err) < 0) return RB_EIO;
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT) return RB_OK;
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "%s: %s", dir, strerror(errno));
    }
    if (!S_ISDIR(st.st_mode))
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "%s exists and is not a directory", dir);
    char cwd[4096], *real = realpath(dir, NULL);
    if (real && getcwd(cwd, sizeof cwd)) {
        size_t n = strlen(real);
        bool holds_cwd = strncmp(cwd, real, n) == 0 && (cwd[n] == '\0' || cwd[n] == '/' || n == 1);
        free(real);
        if (holds_cwd)
            return rb__error(err, RB_EIO, RB_NO_OFFSET,
                             "%s holds the current directory: a bundle replaces its directory "
                             "whole, so name a subdirectory",
                             dir);
    } else {
        free(real);
    }
    DIR *d = opendir(dir);
    if (!d) return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot read %s: %s", dir, strerror(errno));
    char stranger[256] = "";
    bool summary = false, any = false;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        any = true;
        char path[4600];
        bool file = join(path, sizeof path, dir, e->d_name, NULL) == RB_OK &&
                    lstat(path, &st) == 0 && S_ISREG(st.st_mode);
        if (strcmp(e->d_name, "summary.json") == 0) summary = file;
        bool ours = file && bundle_kind(e->d_name);
        if (!ours && file && keep && kept_cap) { /* report DIR: left as it is, and said */
            int w = snprintf(kept + kept_len, kept_cap - kept_len, "%s%s", kept_len ? ", " : "",
                             e->d_name);
            if (w > 0 && (size_t)w < kept_cap - kept_len) kept_len += (size_t)w;
            continue;
        }
        if (!ours && !*stranger) snprintf(stranger, sizeof stranger, "%s", e->d_name);
    }
    closedir(d);
    if (!any || (summary && !*stranger)) return RB_OK;
    return rb__error(err, RB_EIO, RB_NO_OFFSET,
                     "%s is not empty and not a bundle (%s%s%s): a bundle replaces its "
                     "directory whole, so name a new or empty directory, or an old bundle",
                     dir, *stranger ? "it holds " : "no summary.json", *stranger ? stranger : "",
                     *stranger && !summary ? ", no summary.json" : "");
}

int rb_bundle_prepare_dir(const char *dir, rb_error *err)
{
    int rc = make_parent(dir, err);
    if (rc == RB_OK) rc = rb_dir_clean_leftovers(dir, err);
    if (rc == RB_OK) rc = check_replaceable(dir, false, NULL, 0, err);
    if (rc < 0) return rc;
    /* the temporary directory goes beside dir: can it be made there? */
    rb_dir_staged probe;
    rc = rb_dir_stage(dir, &probe, err);
    if (rc == RB_OK) rb_dir_discard(&probe);
    return rc;
}

static int put_buf(const rb_dir_staged *s, const char *file, rb_buf *buf, rb_error *err)
{
    int rc = buf->failed
                 ? rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory rendering %s", file)
                 : rb_dir_put(s, file, buf->data ? buf->data : "", buf->len, err);
    rb_buf_free(buf);
    return rc;
}

/* Is name a file the table of outputs renders into a bundle (output.h)? */
static bool rendered_file(const char *name)
{
    for (size_t i = 0; i < rb_output_count(); i++) {
        const rb_output *o = rb_output_at(i);
        if (o->file && !o->data && strcmp(name, o->file) == 0) return true;
    }
    return false;
}

/* Parse the two data texts and write every rendered file of the table of
 * outputs (report.md, report.html, every chart with something to plot)
 * into s. */
static int render_into(const rb_dir_staged *s, const char *json, size_t json_len, const char *csv,
                       size_t csv_len, rb_error *err)
{
    rb_bundle b;
    rb_bundle_init(&b);
    int rc = rb_bundle_json_read(json, json_len, &b, err);
    if (rc == RB_OK) rc = rb_bundle_csv_read(csv, csv_len, &b, err);
    rb_buf buf = {0};
    for (size_t i = 0; rc == RB_OK && i < rb_output_count(); i++) {
        const rb_output *o = rb_output_at(i);
        if (!o->file || o->data || (o->has_data && !o->has_data(&b))) continue;
        rc = o->render(&b, &buf, err);
        if (rc == RB_OK) rc = put_buf(s, o->file, &buf, err);
    }
    rb_buf_free(&buf);
    rb_bundle_free(&b);
    return rc;
}

/* Copy each input file into s under its own name. */
static int put_inputs(const rb_dir_staged *s, const char *const *inputs, size_t n, rb_error *err)
{
    int rc = RB_OK;
    for (size_t i = 0; rc == RB_OK && i < n; i++) {
        const char *slash = strrchr(inputs[i], '/');
        char *text;
        size_t len;
        rc = rb_file_read(inputs[i], &text, &len, err);
        if (rc < 0) break;
        rc = rb_dir_put(s, slash ? slash + 1 : inputs[i], text, len, err);
        free(text);
    }
    return rc;
}

int rb_bundle_write_dir(const rb_bundle *b, const char *dir, const char *const *inputs,
                        size_t ninputs, rb_error *err)
{
    rb_buf json = {0}, csv = {0};
    int rc = make_parent(dir, err);
    if (rc == RB_OK) rc = rb_dir_clean_leftovers(dir, err);
    if (rc == RB_OK) rc = check_replaceable(dir, false, NULL, 0, err);
    if (rc == RB_OK) rc = rb_bundle_json_write(b, &json, err);
    if (rc == RB_OK) rc = rb_bundle_csv_write(b, &csv, err);
    if (rc == RB_OK && (json.failed || csv.failed))
        rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory writing the bundle");
    rb_dir_staged s = {0};
    if (rc == RB_OK) rc = rb_dir_stage(dir, &s, err);
    if (rc == RB_OK) rc = rb_dir_put(&s, "summary.json", json.data, json.len, err);
    if (rc == RB_OK) rc = rb_dir_put(&s, "trials.csv", csv.data ? csv.data : "", csv.len, err);
    if (rc == RB_OK) rc = put_inputs(&s, inputs, ninputs, err);
    if (rc == RB_OK)
        rc = render_into(&s, json.data, json.len, csv.data ? csv.data : "", csv.len, err);
    if (rc == RB_OK)
        rc = rb_dir_commit(&s, err);
    else if (s.tmp)
        rb_dir_discard(&s);
    rb_buf_free(&json);
    rb_buf_free(&csv);
    return rc;
}

/* Copy every regular file of dir that is not rendered into s (the data,
 * byte for byte, and anything a newer writer added). */
static int copy_data(const char *dir, const rb_dir_staged *s, rb_error *err)
{
    DIR *d = opendir(dir);
    if (!d) return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot read %s: %s", dir, strerror(errno));
    int rc = RB_OK;
    for (struct dirent *e; rc == RB_OK && (e = readdir(d)) != NULL;) {
        char path[4600];
        struct stat st;
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        if (rendered_file(e->d_name)) continue;
        rc = join(path, sizeof path, dir, e->d_name, err);
        if (rc < 0 || lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        char *text;
        size_t len;
        rc = rb_file_read(path, &text, &len, err);
        if (rc == RB_OK) rc = rb_dir_put(s, e->d_name, text, len, err);
        free(text);
    }
    closedir(d);
    return rc;
}

int rb_bundle_render_dir(const char *dir, char *kept, size_t kept_cap, rb_error *err)
{
    char path[4096];
    char *json = NULL, *csv = NULL;
    size_t json_len = 0, csv_len = 0;
    int rc = rb_dir_clean_leftovers(dir, err);
    if (rc == RB_OK) rc = check_replaceable(dir, true, kept, kept_cap, err);
    if (rc == RB_OK) rc = join(path, sizeof path, dir, "summary.json", err);
    if (rc == RB_OK) rc = rb_file_read_max(path, RB_FILE_RESULT_MAX, &json, &json_len, err);
    if (rc == RB_OK) rc = join(path, sizeof path, dir, "trials.csv", err);
    if (rc == RB_OK) rc = rb_file_read_max(path, RB_FILE_RESULT_MAX, &csv, &csv_len, err);
    rb_dir_staged s = {0};
    if (rc == RB_OK) rc = rb_dir_stage(dir, &s, err);
    if (rc == RB_OK) rc = copy_data(dir, &s, err);
    if (rc == RB_OK) rc = render_into(&s, json, json_len, csv, csv_len, err);
    if (rc == RB_OK)
        rc = rb_dir_commit(&s, err);
    else if (s.tmp)
        rb_dir_discard(&s);
    free(json);
    free(csv);
    return rc;
}

int rb_bundle_read_dir(const char *dir, rb_bundle *b, rb_error *err)
{
    char path[4096];
    char *text = NULL;
    size_t len = 0;
    rb_bundle_init(b);
    int rc = join(path, sizeof path, dir, "summary.json", err);
    if (rc == RB_OK) rc = rb_file_read_max(path, RB_FILE_RESULT_MAX, &text, &len, err);
    if (rc == RB_OK) rc = rb_bundle_json_read(text, len, b, err);
    free(text);
    text = NULL;
    if (rc == RB_OK) rc = join(path, sizeof path, dir, "trials.csv", err);
    if (rc == RB_OK) rc = rb_file_read_max(path, RB_FILE_RESULT_MAX, &text, &len, err);
    if (rc == RB_OK) rc = rb_bundle_csv_read(text, len, b, err);
    free(text);
    if (rc < 0) rb_bundle_free(b);
    return rc;
}
