/*
 * file.h — whole-file reads, and outputs that appear whole or not at all.
 *
 * A file is written to a temporary file beside it (PATH.tmp.XXXXXX),
 * fsynced, renamed over PATH, and the directory is fsynced: a reader sees
 * the old file or the complete new one, never a torn mixture, also after a
 * crash.  Several files that belong together are staged first (every one
 * complete on disk) and committed one rename each, in the order the caller
 * chooses (corpus gen renames the requests before the routes they belong
 * to).  A directory (a result bundle) is written as a temporary directory
 * beside it (DIR.tmp.XXXXXX) and swapped into place in one step
 * (renameat2 RENAME_EXCHANGE); where the file system cannot exchange, the
 * old directory is renamed aside (DIR.old.XXXXXX) and the new one renamed
 * in.
 *
 * Temporary names carry the writer's pid: PATH.tmp.PID.XXXXXX and
 * DIR.old.PID.XXXXXX (six letters or digits).  Whatever a killed writer
 * leaves (temporary files and directories, an old directory renamed aside)
 * is cleaned up by the next write of the same output: temporaries are
 * removed, and an old directory whose replacement never arrived is put back
 * first.  Only leftovers whose writer is gone are touched, so two writers
 * of one output at once never destroy each other's work: both complete,
 * one after the other, and the output is whole either way.  Names without
 * a pid (PATH.tmp.XXXXXX, from older versions) count as a gone writer's.
 *
 * An output named by a symbolic link is written where the link points; a
 * link to nothing is refused (RB_EIO) before anything is written.
 *
 * Special files, one rule for every reader and writer:
 *   - an output that is a FIFO or a character device (a terminal,
 *     /dev/null) is written into directly, never renamed over: a device
 *     node stays a device node.  A block device or a socket is refused.
 *   - an input must be a regular file, or a pipe handed over on purpose as
 *     /dev/fd/N or /proc/self/fd/N (what bash's <(...) names).  A directory,
 *     a device and a named FIFO are refused with what they are, so a FIFO
 *     left in a results directory cannot block a reader.  Every read is
 *     capped at what its format can need (RB_FILE_READ_MAX, RB_FILE_RESULT_MAX;
 *     docs/cli.md, "Input caps"): a file over the cap is refused (RB_EIO)
 *     naming the cap, before more than the cap is read.
 */
#ifndef RB_BASE_FILE_H
#define RB_BASE_FILE_H

#include "base.h"

#include <stdbool.h>

/* The most a read takes: the largest input a format needs (an OpenAPI
 * document, a route or requests table of a million lines). */
#define RB_FILE_READ_MAX ((size_t)256 << 20)
/* The most a saved result's file takes (summary.json, trials.csv, a
 * history entry, http.json). */
#define RB_FILE_RESULT_MAX ((size_t)64 << 20)

/* Read the whole file, at most RB_FILE_READ_MAX bytes; *data is malloc'ed
 * with a NUL after *len bytes.  RB_EIO (the message names the path and the
 * reason: missing, not a regular file or a /dev/fd pipe, over the cap) or
 * RB_ENOMEM. */
int rb_file_read(const char *path, char **data, size_t *len, rb_error *err);
/* rb_file_read with the cap max (bytes) instead of RB_FILE_READ_MAX. */
int rb_file_read_max(const char *path, size_t max, char **data, size_t *len, rb_error *err);

/* Is path (or what its link names) a FIFO or a character device, an
 * output written into in place? */
bool rb_file_is_stream(const char *path);

/* Replace path with data[0, len) atomically (mode 0644), removing what
 * killed writers of path left first.  RB_EIO naming the path; on failure
 * the old file, if any, is untouched. */
int rb_file_write_atomic(const char *path, const char *data, size_t len, rb_error *err);

/* RB_EIO naming path when it is a symbolic link to nothing; else RB_OK.
 * For the checks a command makes before its work starts. */
int rb_file_check_link(const char *path, rb_error *err);

/* ---- several files, renamed into place in the caller's order ---------- */

typedef struct rb_file_staged {
    char *path; /* the destination */
    char *tmp;  /* the complete temporary file beside it; NULL once committed or discarded,
                 * or when path was a stream written in place */
} rb_file_staged;

/* Write data[0, len) to a temporary file beside path and fsync it (after
 * removing what killed writers of path left).  *s is set up here; commit
 * or discard it.  RB_EIO naming the path, RB_ENOMEM.  A path that is a
 * FIFO or a character device is written here, in place (s->tmp stays
 * NULL, the commit has nothing left to do). */
int rb_file_stage(const char *path, const char *data, size_t len, rb_file_staged *s, rb_error *err);
/* Rename the staged file over its path and fsync the directory; s is
 * released (discarded on failure). */
int rb_file_commit(rb_file_staged *s, rb_error *err);
/* Commit first, then second, as one step for other writers of the same
 * pair: the directory of first is locked (flock) for the two renames, so
 * two processes writing the pair at once leave one's pair, never one's
 * first beside the other's second.  Both are released. */
int rb_file_commit_pair(rb_file_staged *first, rb_file_staged *second, rb_error *err);
/* Remove the temporary file (if any) and release s; safe to call twice. */
void rb_file_discard(rb_file_staged *s);

/* ---- a directory that appears whole ----------------------------------- */

typedef struct rb_dir_staged {
    char *dir; /* the destination */
    char *tmp; /* the temporary directory beside it, or NULL */
} rb_dir_staged;

/* Undo what a killed writer of dir left: an old dir renamed aside is put
 * back when dir is missing, temporaries beside dir are removed.  RB_EIO
 * when dir's parent cannot be read. */
int rb_dir_clean_leftovers(const char *dir, rb_error *err);

/* Create the directory path and its missing parents (mkdir -p, mode
 * 0755).  RB_OK when it exists as a directory afterwards; RB_EIO naming
 * the part that could not be created, or a path that is not a directory;
 * RB_EINVAL for an empty or over-long path. */
int rb_dir_make(const char *path, rb_error *err);

/* Clean dir's leftovers, then create the temporary directory beside dir
 * (dir's parent must exist).  Commit or discard *s. */
int rb_dir_stage(const char *dir, rb_dir_staged *s, rb_error *err);
/* Write the file name (no '/') in the staged directory and fsync it. */
int rb_dir_put(const rb_dir_staged *s, const char *name, const char *data, size_t len,
               rb_error *err);
/* Put the staged directory in dir's place: fsync it, exchange it with the
 * existing dir (or rename it in when there is none), remove the old one
 * and fsync the parent.  s is released (discarded on failure, dir then
 * as it was). */
int rb_dir_commit(rb_dir_staged *s, rb_error *err);
/* Remove the staged directory (its files) and release s; safe to call
 * twice. */
void rb_dir_discard(rb_dir_staged *s);

#endif
