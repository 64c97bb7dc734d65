/*
 * options.c — the table-driven option parser and help generator of every
 * routebench command (options.h).
 */
#include "options.h"

#include "base_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPTIONS 128 /* options of one command, all tables together */
#define HELP_COLUMN 24  /* where help text starts */
#define WIDTH       79  /* help lines end before this column */

/* A user's value in a message: printable ASCII as is, other bytes as \xNN
 * (a terminal never gets raw bytes), at most 40 bytes. */
static void quote(const char *s, char *buf, size_t cap)
{
    size_t w = 0;
    for (size_t i = 0; s && s[i] && w + 5 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i == 40) {
            w += (size_t)snprintf(buf + w, cap - w, "...");
            break;
        }
        if (c >= 0x20 && c < 0x7f)
            buf[w++] = (char)c;
        else
            w += (size_t)snprintf(buf + w, cap - w, "\\x%02x", c);
    }
    buf[w] = '\0';
}

int cli_parse_u64(const char *what, const char *s, unsigned long long min, unsigned long long max,
                  unsigned long long *out, rb_error *err)
{
    unsigned long long v = 0;
    bool ok = s && *s;
    for (const char *p = s; ok && *p; p++) {
        unsigned d = (unsigned)(*p - '0');
        ok = *p >= '0' && *p <= '9' && v <= (~0ull - d) / 10;
        v = v * 10 + d;
    }
    if (!ok || v < min || v > max) {
        char q[200];
        quote(s, q, sizeof q);
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "%s needs a whole number from %llu to %llu, got '%s'", what, min, max, q);
    }
    *out = v;
    return RB_OK;
}

/* digits [. digits] [e [+-] digits], at least one mantissa digit */
static bool decimal_syntax(const char *s)
{
    size_t digits = 0;
    while (*s >= '0' && *s <= '9') s++, digits++;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++) digits++;
    if (digits == 0) return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (!(*s >= '0' && *s <= '9')) return false;
        while (*s >= '0' && *s <= '9') s++;
    }
    return *s == '\0';
}

int cli_parse_double(const char *what, const char *s, double min, double max, double *out,
                     rb_error *err)
{
    double v = s && decimal_syntax(s) ? strtod(s, NULL) : NAN;
    if (!(isfinite(v) && v >= min && v <= max)) {
        char q[200];
        quote(s, q, sizeof q);
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s needs a number from %g to %g, got '%s'",
                         what, min, max, q);
    }
    *out = v;
    return RB_OK;
}

/* ---- parsing --------------------------------------------------------------------------------- */

typedef struct found {
    const cli_table *table;
    const cli_option *opt;
    size_t index; /* among all options of the command */
} found;

static bool named(const cli_option *o, const char *s, size_t n)
{
    return (strlen(o->name) == n && memcmp(o->name, s, n) == 0) ||
           (o->alias && strlen(o->alias) == n && memcmp(o->alias, s, n) == 0);
}

static bool lookup(const cli_command *c, const char *s, size_t n, found *f)
{
    size_t index = 0;
    for (size_t t = 0; t < CLI_MAX_TABLES && c->tables[t].options; t++)
        for (const cli_option *o = c->tables[t].options; o->name; o++, index++)
            if (named(o, s, n)) {
                *f = (found){&c->tables[t], o, index};
                return true;
            }
    return false;
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[64];
    if (la >= 63 || lb >= 63) return 99;
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static int unknown(const cli_command *c, const char *arg, size_t n, rb_error *err)
{
    char name[64], q[200];
    snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), arg);
    quote(name, q, sizeof q);
    const char *best = NULL;
    size_t best_d = 3;
    for (size_t t = 0; t < CLI_MAX_TABLES && c->tables[t].options; t++)
        for (const cli_option *o = c->tables[t].options; o->name; o++) {
            size_t d = edit_distance(name, o->name);
            if (d < best_d) best_d = d, best = o->name;
        }
    if (best)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "unknown option '%s' (did you mean %s?)", q,
                         best);
    return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "unknown option '%s' (see routebench %s --help)",
                     q, c->name);
}

static int store(const cli_option *o, void *field, const char *v, rb_error *err)
{
    unsigned long long u = 0;
    double d;
    int rc = RB_OK;
    switch (o->type) {
    case CLI_FLAG:
        *(bool *)field = true;
        break;
    case CLI_STRING:
        if (!*v) return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s needs a value", o->name);
        *(const char **)field = v;
        break;
    case CLI_U64:
    case CLI_SIZE:
    case CLI_UINT:
    case CLI_U32:
    case CLI_INT:
        rc = cli_parse_u64(o->name, v, o->min, o->max, &u, err);
        if (rc < 0) return rc;
        if (o->type == CLI_U64) *(uint64_t *)field = u;
        if (o->type == CLI_SIZE) *(size_t *)field = (size_t)u;
        if (o->type == CLI_UINT) *(unsigned *)field = (unsigned)u;
        if (o->type == CLI_U32) *(uint32_t *)field = (uint32_t)u;
        if (o->type == CLI_INT) *(int *)field = (int)u;
        break;
    case CLI_DOUBLE:
        rc = cli_parse_double(o->name, v, o->dmin, o->dmax, &d, err);
        if (rc == RB_OK) *(double *)field = d;
        break;
    case CLI_SHARE:
        rc = cli_parse_double(o->name, v, 0.0, 1.0, &d, err);
        if (rc == RB_OK) *(uint32_t *)field = (uint32_t)(d * 1e6 + 0.5);
        break;
    case CLI_CHOICE: {
        char words[256] = "", q[200];
        size_t w = 0;
        for (const cli_choice *ch = o->choices; ch->name; ch++) {
            if (strcmp(ch->name, v) == 0) {
                *(int *)field = ch->value;
                return RB_OK;
            }
            w += (size_t)snprintf(words + w, sizeof words - w, "%s%s", w ? ", " : "", ch->name);
            if (w >= sizeof words) w = sizeof words - 1;
        }
        quote(v, q, sizeof q);
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s is one of %s, not '%s'", o->name, words,
                         q);
    }
    case CLI_CALL: {
        rb_error inner;
        rc = o->call(field, v, &inner);
        if (rc < 0) rb__error(err, rc, inner.offset, "%s: %s", o->name, inner.message);
        break;
    }
    }
    return rc;
}

/* Is option `name` (a word of a space-separated list) given? */
static bool given_name(const cli_command *c, const unsigned char *seen, const char *name, size_t n)
{
    found f;
    return lookup(c, name, n, &f) && seen[f.index];
}

/* The first word of list that is (want_given) / is not given, into *word. */
static bool first_word(const cli_command *c, const unsigned char *seen, const char *list,
                       bool want_given, const char **word, size_t *n)
{
    for (const char *p = list; p && *p;) {
        while (*p == ' ') p++;
        size_t len = strcspn(p, " ");
        if (len && given_name(c, seen, p, len) == want_given) {
            *word = p;
            *n = len;
            return true;
        }
        p += len;
    }
    return false;
}

/* CLI_REQUIRED, excludes and requires, after every argument is read. */
static int check_combinations(const cli_command *c, const unsigned char *seen, rb_error *err)
{
    size_t index = 0;
    for (size_t t = 0; t < CLI_MAX_TABLES && c->tables[t].options; t++)
        for (const cli_option *o = c->tables[t].options; o->name; o++, index++) {
            const char *w;
            size_t n;
            if (!seen[index]) {
                if (o->flags & CLI_REQUIRED)
                    return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "needs %s%s%s", o->name,
                                     o->metavar ? " " : "", o->metavar ? o->metavar : "");
                continue;
            }
            if (first_word(c, seen, o->excludes, true, &w, &n))
                return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                                 "%s and %.*s cannot be used together", o->name, (int)n, w);
            if (first_word(c, seen, o->requires, false, &w, &n))
                return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s needs %.*s as well", o->name,
                                 (int)n, w);
        }
    return RB_OK;
}

int cli_parse(const cli_command *c, void *dest, int argc, char **argv, rb_error *err)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return CLI_HELP;
    unsigned char seen[MAX_OPTIONS] = {0};
    bool options_end = false;
    int operands = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options_end && strcmp(a, "--") == 0) {
            options_end = true;
            continue;
        }
        if (options_end || a[0] != '-' || a[1] == '\0') {
            char q[200];
            quote(a, q, sizeof q);
            if (!c->operand)
                return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                                 "unexpected argument '%s' (options start with --)", q);
            if (operands == 1 && !c->operand2)
                return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "one %s only: '%s' is a second one",
                                 c->operand, q);
            if (operands == 2)
                return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                                 "%s and %s only: '%s' is a third operand", c->operand, c->operand2,
                                 q);
            size_t at = operands == 0 ? c->operand_offset : c->operand2_offset;
            *(const char **)((char *)dest + at) = a;
            operands++;
            continue;
        }
        const char *eq = strchr(a, '=');
        size_t n = eq ? (size_t)(eq - a) : strlen(a);
        found f;
        if (!lookup(c, a, n, &f)) return unknown(c, a, n, err);
        const cli_option *o = f.opt;
        if (seen[f.index] && !(o->flags & CLI_REPEAT))
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s is given twice", o->name);
        seen[f.index] = 1;
        const char *v = NULL;
        if (o->type == CLI_FLAG) {
            if (eq) return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s takes no value", o->name);
        } else if (eq) {
            v = eq + 1;
        } else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
            v = argv[++i];
        } else {
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s needs a value (%s)", o->name,
                             o->metavar ? o->metavar : "a value");
        }
        int rc = store(o, (char *)dest + f.table->base + o->offset, v, err);
        if (rc < 0) return rc;
    }
    if (c->operand && c->operand_required && operands < (c->operand2 ? 2 : 1))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "needs %s%s%s", c->operand,
                         c->operand2 ? " and " : "", c->operand2 ? c->operand2 : "");
    return check_combinations(c, seen, err);
}

/* ---- help ------------------------------------------------------------------------------------ */

/* About text: paragraphs separated by blank lines are wrapped; lines that
 * start with a blank are kept as they are (tables, examples). */
static void paragraphs(rb_buf *out, const char *text)
{
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, "\n");
        if (n == 0) {
            rb_buf_puts(out, "\n");
            p++;
            continue;
        }
        if (p[0] == ' ') {
            rb_buf_append(out, p, n);
            rb_buf_puts(out, "\n");
            p += n + (p[n] == '\n');
            continue;
        }
        /* a paragraph: up to a blank line or an indented line */
        const char *end = p;
        while (*end) {
            size_t k = strcspn(end, "\n");
            if (k == 0 || end[0] == ' ') break;
            end += k + (end[k] == '\n');
        }
        size_t len = (size_t)(end - p);
        char *para = malloc(len + 1);
        if (!para) {
            out->failed = 1;
            return;
        }
        memcpy(para, p, len);
        para[len] = '\0';
        rb_buf_wrap(out, para, 0, 0, WIDTH);
        free(para);
        p = end;
    }
}

static void default_text(const cli_option *o, const void *field, char *buf, size_t cap)
{
    *buf = '\0';
    switch (o->type) {
    case CLI_U64:
        snprintf(buf, cap, "%llu", (unsigned long long)*(const uint64_t *)field);
        break;
    case CLI_SIZE:
        snprintf(buf, cap, "%zu", *(const size_t *)field);
        break;
    case CLI_UINT:
        snprintf(buf, cap, "%u", *(const unsigned *)field);
        break;
    case CLI_U32:
        snprintf(buf, cap, "%lu", (unsigned long)*(const uint32_t *)field);
        break;
    case CLI_INT:
        snprintf(buf, cap, "%d", *(const int *)field);
        break;
    case CLI_DOUBLE:
        snprintf(buf, cap, "%g", *(const double *)field);
        break;
    case CLI_SHARE:
        snprintf(buf, cap, "%g", *(const uint32_t *)field / 1e6);
        break;
    case CLI_CHOICE:
        for (const cli_choice *ch = o->choices; ch->name; ch++)
            if (ch->value == *(const int *)field) snprintf(buf, cap, "%s", ch->name);
        break;
    case CLI_STRING:
        if (*(const char *const *)field) snprintf(buf, cap, "%s", *(const char *const *)field);
        break;
    case CLI_FLAG:
    case CLI_CALL:
        break;
    }
}

static void option_help(rb_buf *out, const cli_option *o, const void *field)
{
    char left[160];
    int n = snprintf(left, sizeof left, "  %s%s%s%s%s", o->name, o->alias ? ", " : "",
                     o->alias ? o->alias : "", o->metavar ? " " : "", o->metavar ? o->metavar : "");
    size_t col = n > 0 ? (size_t)n : 0;
    rb_buf_puts(out, left);
    if (col + 2 > HELP_COLUMN) {
        rb_buf_printf(out, "\n%*s", HELP_COLUMN, "");
    } else {
        rb_buf_printf(out, "%*s", (int)(HELP_COLUMN - col), "");
    }
    char def[128] = "";
    if ((o->flags & CLI_SHOW_DEFAULT) && field) default_text(o, field, def, sizeof def);
    char text[1024];
    snprintf(text, sizeof text, "%s%s%s%s", o->help ? o->help : "", *def ? " (default " : "", def,
             *def ? ")" : "");
    rb_buf_wrap(out, text, HELP_COLUMN, HELP_COLUMN, WIDTH);
}

void cli_help(const cli_command *c, const void *defaults, rb_buf *out)
{
    const char *s = c->synopsis ? c->synopsis : "[options]\n";
    /* a synopsis line that starts with a blank continues the one before */
    for (bool first = true; *s; first = false) {
        size_t n = strcspn(s, "\n");
        if (s[0] == ' ')
            rb_buf_printf(out, "%*s%.*s\n", (int)(strlen(c->name) + 19), "", (int)n - 1, s + 1);
        else
            rb_buf_printf(out, "%s routebench %s %.*s\n", first ? "usage:" : "      ", c->name,
                          (int)n, s);
        s += n + (s[n] == '\n');
    }
    if (c->about) {
        rb_buf_puts(out, "\n");
        paragraphs(out, c->about);
    }
    for (size_t t = 0; t < CLI_MAX_TABLES && c->tables[t].options; t++) {
        rb_buf_printf(out, "\n%s:\n", c->tables[t].title ? c->tables[t].title : "options");
        for (const cli_option *o = c->tables[t].options; o->name; o++)
            option_help(out, o,
                        defaults ? (const char *)defaults + c->tables[t].base + o->offset : NULL);
    }
    rb_buf_printf(out, "%s  -h, --help%*sthis help\n", c->tables[0].options ? "" : "\n",
                  HELP_COLUMN - 12, "");
    if (c->epilog) { /* the command's own statuses, then the one every command shares */
        rb_buf_puts(out, "\n");
        rb_buf_puts(out, c->epilog);
        rb_buf_puts(out, "             4 out of memory, or an output that cannot be written\n");
    }
}
