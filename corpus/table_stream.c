/*
 * table_stream.c — a route table from an open stream (table_stream.h).
 */
#include "table_stream.h"
#include "base_internal.h"

#include <errno.h>
#include <string.h>

int rb_route_table_read_stream(FILE *f, const char *name, size_t max, rb_route_table *out,
                               rb_error *err)
{
    rb_buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.len + n > max) {
            rb_buf_free(&b);
            return rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "%s: more than %zu bytes of routes",
                             name, max);
        }
        rb_buf_append(&b, chunk, n);
    }
    int rc = RB_OK;
    if (ferror(f))
        rc = rb__error(err, RB_EIO, RB_NO_OFFSET, "reading %s: %s", name, strerror(errno));
    else if (b.failed)
        rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory reading %s", name);
    else
        rc = rb_route_table_parse(name, b.data ? b.data : "", b.len, out, err);
    rb_buf_free(&b);
    return rc;
}
