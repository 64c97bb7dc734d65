/*
 * args.c — what every command does with its arguments and outputs: parse
 * them with its option table (options.h), print the help or the error with
 * the command's prefix, have an output location checked before the work
 * starts (bench/report/output_file.h) and write an output.
 */
#define _POSIX_C_SOURCE 200809L
#include "base_internal.h"
#include "bundle.h"
#include "cli.h"
#include "file.h"
#include "output_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
__attribute__((format(printf, 2, 0)))
#endif
static void
print_error(const char *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "routebench%s%s: ", *cmd ? " " : "", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_error(cmd, fmt, ap);
    va_end(ap);
    return CLI_USAGE;
}

int cli_system_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_error(cmd, fmt, ap);
    va_end(ap);
    return CLI_SYSTEM;
}

int cli_args(const cli_command *c, void *dest, int argc, char **argv)
{
    rb_error err;
    int rc = cli_parse(c, dest, argc, argv, &err);
    if (rc == CLI_PARSED) return CLI_CONTINUE;
    if (rc == CLI_HELP) {
        rb_buf help = {0};
        cli_help(c, dest, &help);
        if (help.data) fwrite(help.data, 1, help.len, stdout);
        rb_buf_free(&help);
        return CLI_OK;
    }
    return cli_error(c->name, "%s", err.message);
}

/* The sane range of a gate's threshold: a regression of 0% to 50%. */
#define FAIL_BELOW_MIN 0.5
#define FAIL_BELOW_MAX 1.0

int cli_take_fail_below(void *field, const char *v, rb_error *err)
{
    char text[64];
    size_t n = strlen(v);
    bool percent = n > 0 && v[n - 1] == '%';
    if (n == 0 || n >= sizeof text)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "--fail-below needs a ratio such as 0.97, or a slowdown such as 3%%");
    memcpy(text, v, n + 1);
    if (percent) text[n - 1] = '\0';
    double x;
    int rc = cli_parse_double("--fail-below", text, 0, 1e9, &x, err);
    if (rc < 0) return rc;
    double r = percent ? 1.0 - x / 100.0 : x;
    if (r >= FAIL_BELOW_MIN && r <= FAIL_BELOW_MAX) {
        *(double *)field = r;
        return RB_OK;
    }
    if (percent)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "%s: a slowdown from 0%% to 50%% (3%% means 0.97: fail "
                         "when the candidate is surely more than 3%% slower)",
                         v);
    if (x > 1 && x <= 50)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "%s is a ratio from 0.5 to 1: did you mean %s%% (that is "
                         "%g: fail when the candidate is surely more than %s%% slower)?",
                         v, text, 1.0 - x / 100.0, text);
    if (x > 50 && x < 100)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "%s is a ratio from 0.5 to 1, not a percentage: did you "
                         "mean %g (or %g%%)?  0.97 fails when the candidate is surely more "
                         "than 3%% slower",
                         v, x / 100.0, 100.0 - x);
    return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                     "%s: a ratio from 0.5 to 1 (0.97, or 3%%: fail when the "
                     "candidate is surely more than 3%% slower)",
                     v);
}

int cli_error_of(const char *cmd, const rb_error *err)
{
    return err->code == RB_ENOMEM ? cli_system_error(cmd, "%s", err->message)
                                  : cli_error(cmd, "%s", err->message);
}

int cli_write_output(const char *cmd, const char *path, const char *text, size_t len)
{
    if (strcmp(path, "-") == 0) {
        if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
            return cli_system_error(cmd, "writing to stdout: %s", strerror(errno));
        return CLI_OK;
    }
    rb_error err;
    if (rb_file_write_atomic(path, text, len, &err) < 0)
        return cli_system_error(cmd, "%s", err.message);
    return CLI_OK;
}

int cli_check_output_file(const char *cmd, const char *what, const char *path)
{
    rb_error err;
    if (rb_output_check_file(path, &err) < 0) return cli_error(cmd, "%s %s", what, err.message);
    return CLI_OK;
}

void cli_put(FILE *out, rb_buf *text)
{
    if (text->data) fwrite(text->data, 1, text->len, out);
    rb_buf_free(text);
}

void cli_print_bundle_files(FILE *out, const char *dir, const rb_bundle *b)
{
    rb_buf text = {0};
    rb_bundle_files_text(dir, b, &text);
    cli_put(out, &text);
}

void cli_command_line(int argc, char **argv, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "routebench");
    for (int i = 0; i < argc && n < cap; i++) {
        bool quote = strpbrk(argv[i], " \t'\"$") != NULL || !*argv[i];
        n += (size_t)snprintf(buf + n, cap - n, quote ? " '%s'" : " %s", argv[i]);
    }
}
