/*
 * fuzz_compile.c — libFuzzer target: the generator of `routebench compile`
 * (corpus/compile.h) on route tables read from arbitrary bytes.  Never a
 * crash; a table the reader accepts is either compiled or refused with an
 * error naming a line inside the input; the C it writes is printable ASCII
 * (every route byte escaped, so no input byte can end a string literal or
 * a comment), defines the lookup, and is the same bytes when generated
 * twice.  One accepted table in RB_FUZZ_COMPILE_EVERY (default 32; 0: none)
 * is also compiled, with $CC (default cc) under -std=c11 -Wall -Wextra
 * -Werror -pedantic -O2, within the budget docs/compile.md states for
 * 10,000 routes (5 s of CPU, here 10 for a loaded machine, and 1 GB of
 * address space): a compiler per input would be too slow to fuzz.
 */
#define _DEFAULT_SOURCE /* mkstemps */
#include "compile.h"
#include "table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_compile: %s: %s\n", what, detail);
    abort();
}

static void check_source(const rb_buf *src)
{
    if (src->failed) fail("source", "out of memory");
    if (!src->data || !strstr(src->data, "int rb_compiled_lookup("))
        fail("source", "no rb_compiled_lookup");
    for (size_t i = 0; i < src->len; i++) {
        unsigned char b = (unsigned char)src->data[i];
        if (b != '\n' && (b < 0x20 || b >= 0x7f)) {
            char at[64];
            snprintf(at, sizeof at, "byte 0x%02x at offset %zu", b, i);
            fail("a raw byte in the generated C", at);
        }
    }
}

/* Compile src with the strict flags within the budget; abort if it fails. */
static void check_compiles(const rb_buf *src)
{
    const char *tmp = getenv("TMPDIR");
    char path[512], cmd[2048];
    snprintf(path, sizeof path, "%s/fuzz_compile_XXXXXX.c", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemps(path, 2);
    if (fd < 0) fail("compile", "cannot create a temporary file");
    size_t done = 0;
    while (done < src->len) {
        ssize_t w = write(fd, src->data + done, src->len - done);
        if (w <= 0) fail("compile", "cannot write the temporary file");
        done += (size_t)w;
    }
    close(fd);
    const char *cc = getenv("CC");
    snprintf(cmd, sizeof cmd,
             "ulimit -t 10 && ulimit -v 1000000 && %s -std=c11 -Wall -Wextra -Werror -pedantic "
             "-O2 -c -o /dev/null '%s'",
             cc && *cc ? cc : "cc", path);
    int rc = system(cmd);
    if (rc != 0) {
        fprintf(stderr, "fuzz_compile: the generated C is kept in %s\n", path);
        fail("the generated C does not compile within the budget", cmd);
    }
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static long every = -1, accepted = 0;
    if (every < 0) {
        const char *e = getenv("RB_FUZZ_COMPILE_EVERY");
        every = e && *e ? strtol(e, NULL, 10) : 32;
        if (every < 0) every = 0;
    }
    const char *text = (const char *)data;
    size_t lines = 1;
    for (size_t i = 0; i < size; i++) lines += text[i] == '\n';

    rb_route_table routes;
    rb_error err;
    if (rb_route_table_parse("fuzz.routes", text, size, &routes, &err) != RB_OK) return 0;
    rb_buf a = {0}, b = {0};
    int rc = rb_compile_table(&routes, "fuzz.routes", NULL, &a, &err);
    if (rc == RB_OK) {
        check_source(&a);
        if (rb_compile_table(&routes, "fuzz.routes", NULL, &b, &err) != RB_OK)
            fail("the second generation failed", err.message);
        if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
            fail("source", "two generations of one table differ");
        if (every > 0 && accepted++ % every == 0) check_compiles(&a);
    } else if (rc != RB_ENOMEM) {
        if (strncmp(err.message, "fuzz.routes:", 12) != 0)
            fail("a refusal does not name the file", err.message);
        if ((routes.count && err.line == 0) || err.line > lines) {
            char at[64];
            snprintf(at, sizeof at, "line %zu of %zu", err.line, lines);
            fail(err.message, at);
        }
    }
    rb_buf_free(&a);
    rb_buf_free(&b);
    rb_route_table_free(&routes);
    return 0;
}
