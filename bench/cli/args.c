/*
 * args.c — small option-parsing helpers shared by the subcommands.
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cli_opt(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return false;
    if (a[n] == '=') {
        *value = a + n + 1;
        return true;
    }
    if (a[n] != '\0') return false;
    if (*i + 1 >= argc) {
        fprintf(stderr, "routebench: option %s needs a value\n", name);
        *value = NULL;
        return true;
    }
    *value = argv[++*i];
    return true;
}

bool cli_flag(char **argv, int i, const char *name)
{
    return strcmp(argv[i], name) == 0;
}

bool cli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

bool cli_parse_u64(const char *opt, const char *s, unsigned long long min, unsigned long long max,
                   unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = s && *s && *s != '-' ? strtoull(s, &end, 10) : 0;
    if (!s || !*s || *s == '-' || errno || *end || v < min || v > max) {
        fprintf(stderr, "routebench: %s needs a whole number from %llu to %llu, got '%s'\n", opt,
                min, max, s ? s : "");
        return false;
    }
    *out = v;
    return true;
}

bool cli_parse_double(const char *opt, const char *s, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = s && *s ? strtod(s, &end) : 0;
    if (!s || !*s || errno || *end || !(v >= min && v <= max)) {
        fprintf(stderr, "routebench: %s needs a number from %g to %g, got '%s'\n", opt, min, max,
                s ? s : "");
        return false;
    }
    *out = v;
    return true;
}

int cli_unknown(const char *cmd, const char *arg)
{
    fprintf(stderr, "routebench %s: unknown argument '%s' (see routebench %s --help)\n", cmd, arg,
            cmd);
    return CLI_USAGE;
}
