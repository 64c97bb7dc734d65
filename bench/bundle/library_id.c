/*
 * library_id.c — path, size, hash and commit of a plugin library
 * (library_id.h).
 */
#define _DEFAULT_SOURCE
#include "library_id.h"

#include "base_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

int rb_library_identify(const char *label, const char *path, const char *commit,
                        rb_bundle_library *out, rb_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->router, sizeof out->router, "%s", label);
    char *abs = realpath(path, NULL);
    snprintf(out->path, sizeof out->path, "%s", abs ? abs : path);
    free(abs);
    snprintf(out->commit, sizeof out->commit, "%s", commit ? commit : "");
    FILE *f = fopen(path, "rb");
    if (!f)
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot read %s: %s", path, strerror(errno));
    XXH3_state_t *st = XXH3_createState();
    if (!st) {
        fclose(f);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    }
    XXH3_64bits_reset(st);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        XXH3_64bits_update(st, buf, n);
        out->size += n;
    }
    int failed = ferror(f);
    fclose(f);
    out->hash = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    if (failed) return rb__error(err, RB_EIO, RB_NO_OFFSET, "error reading %s", path);
    return RB_OK;
}
