/*
 * args.c — what every command does with its arguments and outputs: parse
 * them with its option table (options.h), print the help or the error with
 * the command's prefix, check an output location before the work starts.
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle.h"
#include "cli.h"
#include "file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int cli_status_of(int code)
{
    return code == RB_ENOMEM ? CLI_SYSTEM : CLI_USAGE;
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
    if (strcmp(path, "-") == 0) return CLI_OK;
    rb_error err;
    if (rb_file_check_link(path, &err) < 0) return cli_error(cmd, "%s %s", what, err.message);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return cli_error(cmd, "%s %s is a directory, not a file", what, path);
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (stat(dir, &st) != 0)
        return cli_error(cmd, "%s %s: directory %s: %s", what, path, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return cli_error(cmd, "%s %s: %s is not a directory", what, path, dir);
    if (access(dir, W_OK) != 0)
        return cli_error(cmd, "%s %s: directory %s is not writable: %s", what, path, dir,
                         strerror(errno));
    return CLI_OK;
}

void cli_print_bundle_files(FILE *out, const char *dir, const rb_bundle *b)
{
    fprintf(out, "report: %s/report.html (open it in a browser)\n", dir);
    fprintf(out, "  beside summary.json, trials.csv, report.md");
    for (int c = 0; c < RB_NCHARTS; c++)
        if (rb_bundle_chart_has_data(b, (rb_bundle_chart)c))
            fprintf(out, ", %s", rb_bundle_chart_file((rb_bundle_chart)c));
    fprintf(out, "\n");
}
