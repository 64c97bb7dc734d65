/*
 * test_cli_options.c — the option parser every command uses
 * (bench/options/options.h): types, ranges, the rules for values, combinations
 * and operands, and the help generated from the same table.
 */
#include "cli.h"
#include "options.h"
#include "router_impl.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct opts {
    bool flag;
    const char *str;
    uint64_t u64;
    size_t size;
    unsigned u;
    uint32_t u32;
    int i;
    double d;
    uint32_t share;
    int choice;
    int calls;
    const char *operand;
    const char *a, *b, *c;
} opts;

static int count_call(void *field, const char *value, rb_error *err)
{
    if (strcmp(value, "bad") == 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "'bad' is not welcome");
    (*(int *)field)++;
    return RB_OK;
}

static const cli_choice words[] = {{"wall", 0}, {"cpu", 7}, {NULL, 0}};

#define O(f) offsetof(opts, f)
static const cli_option table[] = {
    {.name = "--flag", .type = CLI_FLAG, .offset = O(flag), .help = "a flag"},
    {.name = "--str",
     .alias = "--string",
     .type = CLI_STRING,
     .metavar = "S",
     .offset = O(str),
     .flags = CLI_SHOW_DEFAULT,
     .help = "a string"},
    CLI_SEED(O(u64), CLI_SHOW_DEFAULT, "the seed"),
    {.name = "--size",
     .type = CLI_SIZE,
     .metavar = "N",
     .offset = O(size),
     .min = 1,
     .max = 100,
     .help = "a size"},
    {.name = "--u",
     .type = CLI_UINT,
     .metavar = "N",
     .offset = O(u),
     .min = 0,
     .max = 9,
     .flags = CLI_SHOW_DEFAULT,
     .help = "an unsigned"},
    {.name = "--u32",
     .type = CLI_U32,
     .metavar = "N",
     .offset = O(u32),
     .min = 0,
     .max = UINT32_MAX,
     .help = "32 bits"},
    {.name = "--int",
     .type = CLI_INT,
     .metavar = "N",
     .offset = O(i),
     .min = 0,
     .max = 4095,
     .help = "an int"},
    {.name = "--ms",
     .type = CLI_DOUBLE,
     .metavar = "X",
     .offset = O(d),
     .dmin = 0.001,
     .dmax = 1000,
     .flags = CLI_SHOW_DEFAULT,
     .help = "a double"},
    {.name = "--share",
     .type = CLI_SHARE,
     .metavar = "M",
     .offset = O(share),
     .flags = CLI_SHOW_DEFAULT,
     .help = "a share"},
    {.name = "--clock",
     .type = CLI_CHOICE,
     .metavar = "wall|cpu",
     .offset = O(choice),
     .choices = words,
     .flags = CLI_SHOW_DEFAULT,
     .help = "a choice"},
    {.name = "--call",
     .type = CLI_CALL,
     .metavar = "X",
     .offset = O(calls),
     .call = count_call,
     .flags = CLI_REPEAT,
     .help = "repeatable"},
    {.name = "--a",
     .type = CLI_STRING,
     .metavar = "A",
     .offset = O(a),
     .excludes = "--b",
     .help = "not with --b"},
    {.name = "--b", .type = CLI_STRING, .metavar = "B", .offset = O(b), .help = "not with --a"},
    {.name = "--c",
     .type = CLI_STRING,
     .metavar = "C",
     .offset = O(c),
     .requires = "--flag",
     .help = "needs --flag"},
    {0}};
#undef O

static const cli_command command = {
    .name = "demo",
    .synopsis = "[options] FILE\n",
    .about = "A demonstration command whose about text is long enough to be wrapped at the "
             "width the generator keeps, which is seventy-nine columns.\n\n  kept as it is\n",
    .tables = {{"options", table, 0}},
    .operand = "FILE",
    .operand_offset = offsetof(opts, operand),
    .epilog = "exit status: 0\n",
};

/* Parse a NULL-terminated argument list (the command name is added). */
static int parse(opts *o, rb_error *err, const char *const *args)
{
    char *argv[32] = {"demo"};
    int argc = 1;
    for (; args[argc - 1]; argc++) argv[argc] = (char *)(uintptr_t)args[argc - 1];
    return cli_parse(&command, o, argc, argv, err);
}

#define PARSE(o, err, ...) parse(o, err, (const char *const[]){__VA_ARGS__, NULL})

Test(cli_options, every_type_reaches_its_destination)
{
    opts o = {0};
    rb_error err;
    cr_assert_eq(PARSE(&o, &err, "--flag", "--str", "x y", "--seed", "9007199254740991",
                       "--size=100", "--u", "9", "--u32", "4294967295", "--int", "4095", "--ms",
                       "0.5", "--share", "0.25", "--clock", "cpu", "--call", "1", "--call=2",
                       "FILE"),
                 CLI_PARSED, "%s", err.message);
    cr_expect(o.flag);
    cr_expect_str_eq(o.str, "x y");
    cr_expect_eq(o.u64, (1ull << 53) - 1);
    cr_expect_eq(o.size, 100);
    cr_expect_eq(o.u, 9);
    cr_expect_eq(o.u32, UINT32_MAX);
    cr_expect_eq(o.i, 4095);
    cr_expect_eq(o.d, 0.5);
    cr_expect_eq(o.share, 250000);
    cr_expect_eq(o.choice, 7);
    cr_expect_eq(o.calls, 2);
    cr_expect_str_eq(o.operand, "FILE");
}

Test(cli_options, the_alias_is_the_same_option)
{
    opts o = {0};
    rb_error err;
    cr_assert_eq(PARSE(&o, &err, "--string", "s"), CLI_PARSED, "%s", err.message);
    cr_expect_str_eq(o.str, "s");
    cr_expect_eq(PARSE(&o, &err, "--str", "a", "--string", "b"), RB_EINVAL);
    cr_expect(strstr(err.message, "--str is given twice"), "%s", err.message);
}

/* Regression 10: cli_parse_u64 read " -1" with strtoull, which
 * skips the blank and negates, so --count " -1" became 2^64 - 1. */
Test(cli_options, regression_10_a_blank_and_minus_is_not_a_huge_number)
{
    unsigned long long v = 77;
    rb_error err;
    cr_expect_eq(cli_parse_u64("--count", " -1", 0, UINT64_MAX, &v, &err), RB_EINVAL);
    cr_expect_eq(v, 77, "the destination is untouched");
    cr_expect(strstr(err.message, "--count needs a whole number from 0 to 18446744073709551615"),
              "%s", err.message);
    cr_expect(strstr(err.message, "got ' -1'"), "%s", err.message);
}

Test(cli_options, integers_are_decimal_digits_within_the_range)
{
    static const char *const bad[] = {"",
                                      "-1",
                                      "+1",
                                      " 1",
                                      "1 ",
                                      "0x10",
                                      "1e3",
                                      "1.",
                                      "1k",
                                      "18446744073709551616",
                                      "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned long long v = 5;
        rb_error err;
        cr_expect_eq(cli_parse_u64("--n", bad[i], 0, UINT64_MAX, &v, &err), RB_EINVAL, "'%s'",
                     bad[i]);
        cr_expect_eq(v, 5);
    }
    unsigned long long v;
    rb_error err;
    cr_expect_eq(cli_parse_u64("--n", "18446744073709551615", 0, UINT64_MAX, &v, &err), RB_OK);
    cr_expect_eq(v, UINT64_MAX);
    cr_expect_eq(cli_parse_u64("--n", "007", 0, 10, &v, &err), RB_OK);
    cr_expect_eq(v, 7);
    cr_expect_eq(cli_parse_u64("--n", "11", 0, 10, &v, &err), RB_EINVAL);
    cr_expect_eq(cli_parse_u64("--n", "0", 1, 10, &v, &err), RB_EINVAL);
    opts o = {0};
    cr_expect_eq(PARSE(&o, &err, "--seed", "9007199254740992"), RB_EINVAL,
                 "seeds stop at 2^53 - 1, the largest exact JSON number");
    cr_expect(strstr(err.message, "--seed needs a whole number from 0 to 9007199254740991"), "%s",
              err.message);
}

Test(cli_options, doubles_are_finite_decimals_within_the_range)
{
    static const char *const bad[] = {"",   "nan", "inf", "-1",    " 1", "0x1p3",
                                      "1e", ".",   "1,5", "1e999", "0",  "1000.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v = 5;
        rb_error err;
        cr_expect_eq(cli_parse_double("--ms", bad[i], 0.001, 1000, &v, &err), RB_EINVAL, "'%s'",
                     bad[i]);
        cr_expect_eq(v, 5);
    }
    double v;
    rb_error err;
    cr_expect_eq(cli_parse_double("--ms", "1e-3", 0.001, 1000, &v, &err), RB_OK);
    cr_expect_eq(v, 0.001);
    cr_expect_eq(cli_parse_double("--ms", ".5", 0.001, 1000, &v, &err), RB_OK);
    cr_expect_eq(v, 0.5);
    opts o = {0};
    cr_expect_eq(PARSE(&o, &err, "--share", "1.01"), RB_EINVAL, "a share is at most 1");
}

Test(cli_options, values_are_where_options_expect_them)
{
    opts o = {0};
    rb_error err;
    cr_expect_eq(PARSE(&o, &err, "--str"), RB_EINVAL);
    cr_expect(strstr(err.message, "--str needs a value"), "%s", err.message);
    cr_expect_eq(PARSE(&o, &err, "--str", "--flag"), RB_EINVAL, "an option is not a value");
    cr_expect_eq(PARSE(&o, &err, "--flag=yes"), RB_EINVAL);
    cr_expect(strstr(err.message, "--flag takes no value"), "%s", err.message);
    cr_expect_eq(PARSE(&o, &err, "--str="), RB_EINVAL, "an empty string is no value");
    cr_expect_eq(PARSE(&o, &err, "--clock", "cycles"), RB_EINVAL);
    cr_expect(strstr(err.message, "--clock is one of wall, cpu, not 'cycles'"), "%s", err.message);
    cr_expect_eq(PARSE(&o, &err, "--call", "bad"), RB_EINVAL);
    cr_expect_str_eq(err.message, "--call: 'bad' is not welcome");
}

Test(cli_options, unknown_options_are_named_with_a_suggestion)
{
    opts o = {0};
    rb_error err;
    cr_expect_eq(PARSE(&o, &err, "--sahre", "1"), RB_EINVAL);
    cr_expect(strstr(err.message, "unknown option '--sahre' (did you mean --share?)"), "%s",
              err.message);
    cr_expect_eq(PARSE(&o, &err, "--zzzzzzzz"), RB_EINVAL);
    cr_expect(strstr(err.message, "see routebench demo --help"), "%s", err.message);
    cr_expect_eq(PARSE(&o, &err, "--\x1b[31m"), RB_EINVAL);
    cr_expect(strstr(err.message, "\\x1b") && !strchr(err.message, 0x1b),
              "control bytes never reach the terminal: %s", err.message);
}

Test(cli_options, combinations_are_checked_after_every_argument)
{
    opts o = {0};
    rb_error err;
    cr_expect_eq(PARSE(&o, &err, "--b", "1", "--a", "2"), RB_EINVAL);
    cr_expect_str_eq(err.message, "--a and --b cannot be used together");
    cr_expect_eq(PARSE(&o, &err, "--c", "1"), RB_EINVAL);
    cr_expect_str_eq(err.message, "--c needs --flag as well");
    memset(&o, 0, sizeof o);
    cr_expect_eq(PARSE(&o, &err, "--c", "1", "--flag"), CLI_PARSED, "%s", err.message);
}

Test(cli_options, one_operand_and_double_dash)
{
    opts o = {0};
    rb_error err;
    cr_expect_eq(PARSE(&o, &err, "x", "y"), RB_EINVAL);
    cr_expect_str_eq(err.message, "one FILE only: 'y' is a second one");
    memset(&o, 0, sizeof o);
    cr_expect_eq(PARSE(&o, &err, "--", "--flag"), CLI_PARSED, "%s", err.message);
    cr_expect_str_eq(o.operand, "--flag");
    cr_expect(!o.flag);
}

Test(cli_options, help_anywhere_wins)
{
    opts o = {0};
    rb_error err;
    cr_expect_eq(PARSE(&o, &err, "--u", "99", "--help"), CLI_HELP, "nothing else is looked at");
    cr_expect_eq(PARSE(&o, &err, "-h"), CLI_HELP);
    cr_expect_eq(PARSE(&o, &err, "--", "--help"), CLI_PARSED, "after -- it is an operand");
}

Test(cli_options, help_lists_every_option_once_with_its_default)
{
    opts d = {.str = "abc", .u64 = 42, .u = 3, .d = 100, .share = 100000, .choice = 7};
    rb_buf out = {0};
    cli_help(&command, &d, &out);
    cr_assert(!out.failed);
    const char *h = out.data;
    cr_expect(strncmp(h, "usage: routebench demo [options] FILE\n", 38) == 0, "%s", h);
    for (const cli_option *o = table; o->name; o++) {
        char key[64];
        snprintf(key, sizeof key, "\n  %s", o->name);
        size_t n = 0;
        for (const char *at = strstr(h, key); at; at = strstr(at + 1, key))
            n += at[strlen(key)] == ' ' || at[strlen(key)] == ',';
        cr_expect_eq(n, 1, "%s starts one help line, not %zu", o->name, n);
    }
    cr_expect(strstr(h, "--str, --string S") != NULL, "%s", h);
    cr_expect(strstr(h, "a string (default abc)") != NULL, "%s", h);
    cr_expect(strstr(h, "the seed (default 42)") != NULL, "%s", h);
    cr_expect(strstr(h, "a double (default 100)") != NULL, "%s", h);
    cr_expect(strstr(h, "a share (default 0.1)") != NULL, "%s", h);
    cr_expect(strstr(h, "a choice (default cpu)") != NULL, "%s", h);
    cr_expect(strstr(h, "-h, --help") != NULL);
    cr_expect(strstr(h, "\n  kept as it is\n") != NULL, "indented about lines are kept");
    cr_expect(strstr(h, "exit status: 0\n") != NULL);
    cr_expect(strstr(h, "exit status: 0\n             4 out of memory, or an output that cannot "
                        "be written\n") != NULL,
              "the status every command shares follows the command's own: %s", h);
    for (const char *line = h; *line;) {
        size_t n = strcspn(line, "\n");
        cr_expect_leq(n, 79, "a line of %zu columns: %.*s", n, (int)n, line);
        line += n + (line[n] == '\n');
    }
    rb_buf_free(&out);
}

static const cli_command two = {
    .name = "two",
    .synopsis = "OLD NEW\n",
    .about = "Two operands.\n",
    .tables = {{"options", table, 0}},
    .operand = "OLD",
    .operand_offset = offsetof(opts, a),
    .operand2 = "NEW",
    .operand2_offset = offsetof(opts, b),
    .operand_required = true,
};

static int parse_two(opts *o, rb_error *err, const char *const *args)
{
    char *argv[32] = {"two"};
    int argc = 1;
    for (; args[argc - 1]; argc++) argv[argc] = (char *)(uintptr_t)args[argc - 1];
    return cli_parse(&two, o, argc, argv, err);
}

Test(cli_options, two_operands_in_order_both_required)
{
    opts o = {0};
    rb_error err;
    cr_expect_eq(parse_two(&o, &err, (const char *const[]){"old", "--flag", "new", NULL}),
                 CLI_PARSED, "%s", err.message);
    cr_expect_str_eq(o.a, "old");
    cr_expect_str_eq(o.b, "new");
    memset(&o, 0, sizeof o);
    cr_expect_eq(parse_two(&o, &err, (const char *const[]){"old", NULL}), RB_EINVAL);
    cr_expect_str_eq(err.message, "needs OLD and NEW");
    cr_expect_eq(parse_two(&o, &err, (const char *const[]){"a", "b", "c", NULL}), RB_EINVAL);
    cr_expect_str_eq(err.message, "OLD and NEW only: 'c' is a third operand");
}

/* --fail-below, the threshold of pair and compare: a ratio or a slowdown
 * in percent; 97 was accepted and always failed, 3% was refused. */
Test(cli_options, fail_below_takes_a_ratio_or_a_percentage)
{
    double r = 0;
    rb_error err;
    cr_expect_eq(cli_take_fail_below(&r, "0.97", &err), RB_OK);
    cr_expect_eq(r, 0.97);
    cr_expect_eq(cli_take_fail_below(&r, "3%", &err), RB_OK, "%s", err.message);
    cr_expect_float_eq(r, 0.97, 1e-12);
    cr_expect_eq(cli_take_fail_below(&r, "1", &err), RB_OK, "any change fails: counts");
    cr_expect_eq(cli_take_fail_below(&r, "0%", &err), RB_OK);
    cr_expect_eq(r, 1.0);
    r = 0;
    cr_expect_eq(cli_take_fail_below(&r, "97", &err), RB_EINVAL);
    cr_expect(strstr(err.message, "did you mean 0.97") != NULL, "%s", err.message);
    cr_expect_eq(r, 0, "a refused value is not stored");
    cr_expect_eq(cli_take_fail_below(&r, "3", &err), RB_EINVAL);
    cr_expect(strstr(err.message, "did you mean 3%") != NULL, "%s", err.message);
    cr_expect_eq(cli_take_fail_below(&r, "60%", &err), RB_EINVAL);
    cr_expect(strstr(err.message, "0% to 50%") != NULL, "%s", err.message);
    cr_expect_eq(cli_take_fail_below(&r, "0.3", &err), RB_EINVAL);
    cr_expect(strstr(err.message, "from 0.5 to 1") != NULL, "%s", err.message);
    cr_expect_eq(cli_take_fail_below(&r, "-3%", &err), RB_EINVAL);
    cr_expect_eq(cli_take_fail_below(&r, "%", &err), RB_EINVAL);
}

Test(cli_options, command_line_joins_the_arguments)
{
    char *argv[] = {"http", "--corpus", "github"};
    char buf[64];
    cli_command_line(3, argv, buf, sizeof buf);
    cr_expect_str_eq(buf, "routebench http --corpus github");
}
