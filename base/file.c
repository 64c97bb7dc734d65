/*
 * file.c — whole-file reads, atomic files, staged files and directories
 * that appear whole (see file.h for the scheme and what a kill leaves).
 */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE */
#include "file.h"

#include "base_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int io_error(rb_error *err, const char *what, const char *path)
{
    return rb__error(err, RB_EIO, RB_NO_OFFSET, "%s %s: %s", what, path, strerror(errno));
}

static int oom(rb_error *err, const char *path)
{
    return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory writing %s", path);
}

/* /dev/fd/N, /proc/self/fd/N or /dev/stdin: a descriptor the user handed
 * over on purpose (bash's <(...) names a pipe this way). */
static bool names_descriptor(const char *path)
{
    const char *p;
    if (strcmp(path, "/dev/stdin") == 0) return true;
    if (strncmp(path, "/dev/fd/", 8) == 0)
        p = path + 8;
    else if (strncmp(path, "/proc/self/fd/", 14) == 0)
        p = path + 14;
    else
        return false;
    if (!*p) return false;
    for (; *p; p++)
        if (*p < '0' || *p > '9') return false;
    return true;
}

static const char *kind_of(mode_t mode)
{
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

/* May a reader take a file of this mode at path? */
static int check_input(const char *path, mode_t mode, rb_error *err)
{
    if (S_ISREG(mode) || (S_ISFIFO(mode) && names_descriptor(path))) return RB_OK;
    return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot read %s: it is %s, not a regular file%s",
                     path, kind_of(mode),
                     S_ISFIFO(mode) ? " (a pipe is read only as /dev/fd/N, as <(...) names it)"
                                    : "");
}

static int over_cap(rb_error *err, const char *path, size_t max)
{
    if (max >= (size_t)1 << 20)
        return rb__error(err, RB_EIO, RB_NO_OFFSET,
                         "cannot read %s: larger than %zu MiB, the most routebench reads of "
                         "such a file (docs/cli.md, \"Input caps\")",
                         path, max >> 20);
    return rb__error(err, RB_EIO, RB_NO_OFFSET,
                     "cannot read %s: larger than %zu bytes, the most routebench reads of such "
                     "a file (docs/cli.md, \"Input caps\")",
                     path, max);
}

int rb_file_read(const char *path, char **data, size_t *len, rb_error *err)
{
    return rb_file_read_max(path, RB_FILE_READ_MAX, data, len, err);
}

int rb_file_read_max(const char *path, size_t max, char **data, size_t *len, rb_error *err)
{
    *data = NULL;
    *len = 0;
    struct stat st;
    /* refused before it is opened: opening a device can have effects */
    if (stat(path, &st) != 0) return io_error(err, "cannot open", path);
    int rc = check_input(path, st.st_mode, err);
    if (rc < 0) return rc;
    /* O_NONBLOCK: a FIFO put in the file's place meanwhile cannot block
     * the open; fstat then refuses it */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return io_error(err, "cannot open", path);
    if (fstat(fd, &st) != 0 || (rc = check_input(path, st.st_mode, err)) < 0 ||
        (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max) ||
        (S_ISFIFO(st.st_mode) && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)) {
        int saved = errno;
        close(fd);
        errno = saved;
        if (rc < 0) return rc;
        if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max)
            return over_cap(err, path, max);
        return io_error(err, "cannot read", path);
    }
    size_t cap = 0, n = 0;
    char *buf = NULL;
    int nomem = 0, failed = 0;
    /* read until the end, or one byte past the cap (then it is over) */
    for (;;) {
        if (n + 2 > cap && (nomem = rb_grow(NULL, &buf, &cap, n + 2, 1, 1 << 16)) != 0) break;
        size_t want = cap - n - 1;
        if (want > max + 1 - n) want = max + 1 - n;
        ssize_t r = read(fd, buf + n, want);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            failed = errno;
            break;
        }
        if (r == 0) break;
        n += (size_t)r;
        if (n > max) break;
    }
    close(fd);
    if (nomem || failed || n > max) {
        free(buf);
        if (nomem) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory reading %s", path);
        if (n > max) return over_cap(err, path, max);
        errno = failed;
        return io_error(err, "cannot read", path);
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return RB_OK;
}

bool rb_file_is_stream(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
}

/* ---- names beside a path ------------------------------------------------ */

/* "a/b/c" -> parent "a/b", base "c"; "c" -> ".", "c"; "/c" -> "/", "c".
 * Trailing slashes are ignored.  NULL when out of memory. */
static char *split_path(const char *path, const char **base, size_t *base_len)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/') b--;
    *base = path + b;
    *base_len = n - b;
    size_t plen = b == 0 ? 1 : b == 1 ? 1 : b - 1;
    char *parent = malloc(plen + 1);
    if (!parent) return NULL;
    if (b == 0)
        parent[0] = '.';
    else
        memcpy(parent, path, plen);
    parent[plen] = '\0';
    return parent;
}

/* path + suffix, malloc'ed (NULL when out of memory). */
static char *with_suffix(const char *path, size_t len, const char *suffix)
{
    size_t s = strlen(suffix);
    char *p = malloc(len + s + 1);
    if (!p) return NULL;
    memcpy(p, path, len);
    memcpy(p + len, suffix, s + 1);
    return p;
}

/* Is name base + kind + [PID.] + six letters or digits (what mkstemp and
 * mkdtemp make of the templates below)?  0 when not; else the writer's pid,
 * or -1 for a name without one (written by a version that did not record
 * its pid: its writer is taken to be gone). */
static long leftover_writer(const char *name, const char *base, size_t base_len, const char *kind)
{
    size_t k = strlen(kind), n = strlen(name);
    if (n < base_len + k + 6 || memcmp(name, base, base_len) != 0 ||
        memcmp(name + base_len, kind, k) != 0)
        return 0;
    const char *p = name + base_len + k, *end = name + n;
    long pid = -1;
    if (end - p > 6) { /* PID. before the six */
        pid = 0;
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            if (pid > 100000000L) return 0;
            pid = pid * 10 + (*p - '0');
        }
        if (pid <= 0 || p == end || *p != '.' || end - p != 7) return 0;
        p++;
    }
    for (; p < end; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return 0;
    return pid;
}

/* Is the writer that made a leftover still running?  A live writer's
 * temporary files are its work in progress, never a leftover to remove
 * (a pid reused by another process only delays the clean-up). */
static bool writer_alive(long pid)
{
    if (pid <= 0) return false;
    if (pid == (long)getpid()) return true;
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* path + ".tmp." or ".old." + this process's pid + "." + XXXXXX */
static char *temp_name(const char *path, size_t len, const char *kind)
{
    char suffix[48];
    snprintf(suffix, sizeof suffix, "%s%ld.XXXXXX", kind, (long)getpid());
    return with_suffix(path, len, suffix);
}

/* Remove a file, or a directory and the files in it (ours hold nothing
 * else: a subdirectory stays, and so does its parent). */
static void remove_flat(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    DIR *d = opendir(path);
    if (d) {
        int fd = dirfd(d);
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            unlinkat(fd, e->d_name, 0);
        }
        closedir(d);
    }
    rmdir(path);
}

static int fsync_dir(const char *dir, rb_error *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    /* a directory we may write but not read cannot be synced: nothing to do */
    if (fd < 0 && (errno == EACCES || errno == EPERM)) return RB_OK;
    if (fd < 0) return io_error(err, "cannot open directory", dir);
    int rc = fsync(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    /* some file systems cannot sync a directory: nothing more to do there */
    if (rc != 0 && errno != EINVAL && errno != EROFS) return io_error(err, "cannot sync", dir);
    return RB_OK;
}

/* Remove what killed writers of path left beside it: path.tmp.[PID.]XXXXXX
 * always; path.old.[PID.]XXXXXX (a directory renamed aside) is put back
 * first when restore_old and path is missing, else removed.  Only
 * leftovers whose writer is gone are touched: another writer of the same
 * path that is still running keeps its temporaries. */
static int clean_leftovers(const char *path, int restore_old, rb_error *err)
{
    const char *base;
    size_t blen;
    char *parent = split_path(path, &base, &blen);
    if (!parent) return oom(err, path);
    DIR *d = opendir(parent);
    if (!d) {
        int rc = errno == ENOENT ? RB_OK : io_error(err, "cannot read directory", parent);
        free(parent);
        return rc;
    }
    struct stat st;
    int missing = restore_old && lstat(path, &st) != 0 && errno == ENOENT;
    size_t plen = strlen(parent);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        long tmp = leftover_writer(e->d_name, base, blen, ".tmp.");
        long old = leftover_writer(e->d_name, base, blen, ".old.");
        if ((!tmp && !old) || writer_alive(tmp ? tmp : old)) continue;
        char *full = malloc(plen + strlen(e->d_name) + 2);
        if (!full) continue;
        sprintf(full, "%s/%s", parent, e->d_name);
        /* rename() does not replace a directory that is not empty: a
         * bundle another writer put in place meanwhile stays */
        if (old && missing && rename(full, path) == 0)
            missing = 0; /* the previous directory is back */
        else
            remove_flat(full);
        free(full);
    }
    closedir(d);
    free(parent);
    return RB_OK;
}

/* An output named by a symbolic link is written where the link points
 * (*real, malloc'ed; NULL when path is no link).  A link to nothing is
 * refused: the output would replace the link, not fill its target. */
static int resolve_link(const char *path, char **real, rb_error *err)
{
    struct stat st;
    *real = NULL;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) return RB_OK;
    *real = realpath(path, NULL);
    if (*real) return RB_OK;
    if (errno == ENOMEM) return oom(err, path);
    return rb__error(err, RB_EIO, RB_NO_OFFSET,
                     "%s is a symbolic link to a missing file or directory: %s", path,
                     strerror(errno));
}

int rb_file_check_link(const char *path, rb_error *err)
{
    char *real = NULL;
    int rc = resolve_link(path, &real, err);
    free(real);
    return rc;
}

/* ---- files ---------------------------------------------------------------- */

static int write_fd(int fd, const char *data, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        done += (size_t)w;
    }
    return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
    return write_fd(fd, data, len) == 0 ? fsync(fd) : -1;
}

/* An output that is a FIFO or a character device (a terminal, /dev/null)
 * is written into: renaming a file over it would replace the device node.
 * A block device or a socket is refused.  *done is set when target was
 * such a file (written, or refused with the error returned). */
static int write_special(const char *target, const char *data, size_t len, bool *done,
                         rb_error *err)
{
    struct stat st;
    *done = false;
    if (stat(target, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return RB_OK;
    *done = true;
    if (!S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot write %s: it is %s", target,
                         kind_of(st.st_mode));
    int fd = open(target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return io_error(err, "cannot open", target);
    int ok = write_fd(fd, data, len) == 0;
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    errno = saved;
    return ok ? RB_OK : io_error(err, "cannot write", target);
}

void rb_file_discard(rb_file_staged *s)
{
    if (s->tmp) unlink(s->tmp);
    free(s->tmp);
    free(s->path);
    s->tmp = s->path = NULL;
}

int rb_file_stage(const char *path, const char *data, size_t len, rb_file_staged *s, rb_error *err)
{
    s->path = s->tmp = NULL;
    char *real = NULL;
    int rc = resolve_link(path, &real, err);
    if (rc < 0) return rc;
    const char *target = real ? real : path;
    bool special;
    rc = write_special(target, data, len, &special, err);
    if (rc == RB_OK && special) {
        s->path = with_suffix(target, strlen(target), "");
        if (!s->path) rc = oom(err, path);
    }
    if (rc == RB_OK && !special) rc = clean_leftovers(target, 0, err);
    if (rc < 0 || special) {
        free(real);
        return rc;
    }
    s->path = with_suffix(target, strlen(target), "");
    s->tmp = temp_name(target, strlen(target), ".tmp.");
    free(real);
    if (!s->path || !s->tmp) {
        rb_file_discard(s);
        return oom(err, path);
    }
    int fd = mkstemp(s->tmp);
    if (fd < 0) {
        rc = io_error(err, "cannot create a temporary file for", path);
        free(s->tmp);
        s->tmp = NULL;
        rb_file_discard(s);
        return rc;
    }
    int ok = write_all(fd, data, len) == 0;
    ok = close(fd) == 0 && ok;
    /* mkstemp makes 0600 files; an output file should be like any other. */
    ok = ok && chmod(s->tmp, 0644) == 0;
    if (!ok) {
        rc = io_error(err, "cannot write", path);
        rb_file_discard(s);
        return rc;
    }
    return RB_OK;
}

int rb_file_commit(rb_file_staged *s, rb_error *err)
{
    if (!s->tmp) { /* a stream, written in place by rb_file_stage */
        rb_file_discard(s);
        return RB_OK;
    }
    if (rename(s->tmp, s->path) != 0) {
        int rc = io_error(err, "cannot write", s->path);
        rb_file_discard(s);
        return rc;
    }
    free(s->tmp);
    s->tmp = NULL;
    const char *base;
    size_t blen;
    char *parent = split_path(s->path, &base, &blen);
    int rc = parent ? fsync_dir(parent, err) : oom(err, s->path);
    free(parent);
    rb_file_discard(s);
    return rc;
}

int rb_file_commit_pair(rb_file_staged *first, rb_file_staged *second, rb_error *err)
{
    /* a lock on the directory of the first, held for the two renames: two
     * writers of one pair commit one after the other (the kernel drops
     * the lock of a writer that dies) */
    const char *base;
    size_t blen;
    char *parent = split_path(first->path, &base, &blen);
    if (!parent) {
        rb_file_discard(first);
        rb_file_discard(second);
        return oom(err, first->path);
    }
    int dfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(parent);
    if (dfd >= 0) {
        while (flock(dfd, LOCK_EX) != 0 && errno == EINTR) continue;
    }
    int rc = rb_file_commit(first, err);
    if (rc == RB_OK)
        rc = rb_file_commit(second, err);
    else
        rb_file_discard(second);
    if (dfd >= 0) close(dfd); /* releases the lock */
    return rc;
}

int rb_file_write_atomic(const char *path, const char *data, size_t len, rb_error *err)
{
    rb_file_staged s;
    int rc = rb_file_stage(path, data, len, &s, err);
    return rc < 0 ? rc : rb_file_commit(&s, err);
}

/* ---- directories ------------------------------------------------------------ */

int rb_dir_clean_leftovers(const char *dir, rb_error *err)
{
    return clean_leftovers(dir, 1, err);
}

void rb_dir_discard(rb_dir_staged *s)
{
    if (s->tmp) remove_flat(s->tmp);
    free(s->tmp);
    free(s->dir);
    s->tmp = s->dir = NULL;
}

int rb_dir_stage(const char *dir, rb_dir_staged *s, rb_error *err)
{
    s->dir = s->tmp = NULL;
    /* a symbolic link to a directory: the directory is what gets replaced */
    char *real = NULL;
    int rc = resolve_link(dir, &real, err);
    const char *target = real ? real : dir;
    if (rc == RB_OK) rc = rb_dir_clean_leftovers(target, err);
    if (rc < 0) {
        free(real);
        return rc;
    }
    size_t n = strlen(target);
    while (n > 1 && target[n - 1] == '/') n--;
    s->dir = with_suffix(target, n, "");
    s->tmp = temp_name(target, n, ".tmp.");
    free(real);
    if (!s->dir || !s->tmp) {
        rb_dir_discard(s);
        return oom(err, dir);
    }
    if (!mkdtemp(s->tmp)) {
        rc = io_error(err, "cannot create a temporary directory beside", s->dir);
        free(s->tmp);
        s->tmp = NULL;
        rb_dir_discard(s);
        return rc;
    }
    if (chmod(s->tmp, 0755) != 0) {
        rc = io_error(err, "cannot set the mode of", s->tmp);
        rb_dir_discard(s);
        return rc;
    }
    return RB_OK;
}

int rb_dir_put(const rb_dir_staged *s, const char *name, const char *data, size_t len,
               rb_error *err)
{
    char *path = malloc(strlen(s->tmp) + strlen(name) + 2);
    if (!path) return oom(err, name);
    sprintf(path, "%s/%s", s->tmp, name);
    int rc = RB_OK;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        rc = io_error(err, "cannot create", path);
    } else {
        int ok = write_all(fd, data, len) == 0;
        ok = close(fd) == 0 && ok;
        if (!ok) rc = io_error(err, "cannot write", path);
    }
    free(path);
    return rc;
}

/* Swap the contents of two paths in one step; 0, or -1 with errno
 * (EINVAL or ENOSYS where the file system or kernel cannot). */
static int exchange(const char *a, const char *b)
{
#ifdef RENAME_EXCHANGE
    return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
#else
    (void)a;
    (void)b;
    errno = ENOSYS;
    return -1;
#endif
}

/* dir exists: put s->tmp in its place; *old is what is left to remove. */
static int replace_existing(rb_dir_staged *s, char **old, rb_error *err)
{
    if (exchange(s->tmp, s->dir) == 0) {
        *old = s->tmp; /* now holds the previous directory */
        s->tmp = NULL;
        return RB_OK;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
        return io_error(err, "cannot replace", s->dir);
    /* no exchange here: rename the old one aside, then the new one in */
    char *aside = temp_name(s->dir, strlen(s->dir), ".old.");
    if (!aside) return oom(err, s->dir);
    if (!mkdtemp(aside)) {
        int rc = io_error(err, "cannot create a directory beside", s->dir);
        free(aside);
        return rc;
    }
    if (rename(s->dir, aside) != 0) {
        int rc = io_error(err, "cannot move aside", s->dir);
        rmdir(aside);
        free(aside);
        return rc;
    }
    if (rename(s->tmp, s->dir) != 0) {
        int rc = io_error(err, "cannot replace", s->dir);
        rename(aside, s->dir); /* the old one back */
        free(aside);
        return rc;
    }
    free(s->tmp);
    s->tmp = NULL;
    *old = aside;
    return RB_OK;
}

int rb_dir_commit(rb_dir_staged *s, rb_error *err)
{
    int rc = fsync_dir(s->tmp, err);
    char *old = NULL;
    struct stat st;
    if (rc == RB_OK) {
        bool missing = lstat(s->dir, &st) != 0;
        if (missing && errno == ENOENT && rename(s->tmp, s->dir) == 0) {
            free(s->tmp);
            s->tmp = NULL;
        } else if (missing && errno != ENOTEMPTY && errno != EEXIST) {
            /* ENOTEMPTY, EEXIST: another writer put its directory there
             * between the lstat and the rename; it is replaced below */
            rc = io_error(err, "cannot create", s->dir);
        } else if (!missing && !S_ISDIR(st.st_mode)) {
            rc = rb__error(err, RB_EIO, RB_NO_OFFSET, "%s exists and is not a directory", s->dir);
        } else {
            rc = replace_existing(s, &old, err);
        }
    }
    if (rc == RB_OK) {
        const char *base;
        size_t blen;
        char *parent = split_path(s->dir, &base, &blen);
        rc = parent ? fsync_dir(parent, err) : oom(err, s->dir);
        free(parent);
    }
    if (old) {
        /* the new directory is in place: a failure here only leaves a
         * leftover, which the next write removes */
        remove_flat(old);
        free(old);
    }
    rb_dir_discard(s);
    return rc;
}

int rb_dir_make(const char *path, rb_error *err)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "bad directory name '%.64s'", path);
    memcpy(buf, path, n + 1);
    for (size_t i = 1;; i++) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot create directory %s: %s", buf,
                             strerror(errno));
        buf[i] = c;
        if (c == '\0') break;
    }
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "%s is not a directory", buf);
    return RB_OK;
}
