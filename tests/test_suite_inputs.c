/*
 * test_suite_inputs.c — the inputs the commands prepare through bench/suite
 * and corpus/ rather than by themselves: choose's tables
 * (choose_tables.h), the self-test's scenarios (selftest.h), the routers
 * of a session (router_list.h) and a route table read from a stream
 * (table_stream.h).
 */
#include "choose_tables.h"
#include "router.h"
#include "router_list.h"
#include "selftest.h"
#include "table.h"
#include "table_stream.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

Test(choose_tables, routes_file_and_generated_requests_land_in_the_directory)
{
    rb_choose_tables t;
    rb_error err;
    cr_assert_eq(rb_choose_tables_dir(&t, NULL, &err), RB_OK, "%s", err.message);
    char src[700];
    snprintf(src, sizeof src, "%s/my.api.routes", t.dir);
    write_text(src, "GET /a\nGET /a/:id\n");
    rb_choose_input in = {.routes = src, .count = 40, .seed = 7};
    cr_assert_eq(rb_choose_tables_make(&in, &t, &err), RB_OK, "%s", err.message);
    cr_expect(strstr(t.routes, "/my.routes") != NULL, "named up to the first dot: %s", t.routes);
    cr_expect(strstr(t.requests, "/my.requests") != NULL, "%s", t.requests);
    cr_expect(t.generated);
    cr_expect_eq(t.generated_count, 40);
    cr_expect(!t.imported);
    rb_route_table routes;
    cr_assert_eq(rb_route_table_read(t.routes, &routes, &err), RB_OK, "%s", err.message);
    cr_expect_eq(routes.count, 2);
    rb_route_table_free(&routes);
    rb_choose_tables_notes(&in, false, &t);
    cr_expect(strstr(t.rnote, "generated from the routes, seed 7 (--out keeps them)") != NULL, "%s",
              t.rnote);
    rb_choose_tables_notes(&in, true, &t);
    cr_expect(strncmp(t.note, "my.routes in the bundle, from the routes file ", 46) == 0, "%s",
              t.note);
    remove(src);
    rb_choose_tables_remove(&t);
    struct stat st;
    cr_expect_neq(stat(t.dir, &st), 0, "the directory is gone");
}

Test(choose_tables, a_missing_requests_file_is_the_error)
{
    rb_choose_tables t;
    rb_error err;
    cr_assert_eq(rb_choose_tables_dir(&t, "", &err), RB_OK, "%s", err.message);
    char src[700];
    snprintf(src, sizeof src, "%s/t.routes", t.dir);
    write_text(src, "GET /a\n");
    rb_choose_input in = {.routes = src, .requests = "/nonexistent/x.requests", .seed = 1};
    cr_expect_lt(rb_choose_tables_make(&in, &t, &err), 0);
    cr_expect(strstr(err.message, "/nonexistent/x.requests") != NULL, "%s", err.message);
    cr_expect(!t.generated);
    remove(src);
    rb_choose_tables_remove(&t);
}

Test(choose_tables, an_unusable_temporary_directory_is_named)
{
    rb_choose_tables t;
    rb_error err;
    cr_expect_eq(rb_choose_tables_dir(&t, "/nonexistent-routebench", &err), RB_EIO);
    cr_expect_str_eq(err.message, "cannot create a temporary directory in /nonexistent-routebench");
    rb_choose_tables_remove(&t); /* nothing to remove: no harm */
}

static void count_skip(void *ctx, const char *name)
{
    char *skipped = ctx;
    strcat(skipped, name);
    strcat(skipped, ";");
}

Test(selftest_load, scenarios_the_router_lacks_are_skipped_by_name)
{
    rb_scenario_list list = {0};
    rb_error err;
    cr_assert_eq(rb_scenario_list_parse(&list, "catchall-100,static-100", &err), RB_OK, "%s",
                 err.message);
    static rb_selftest_loaded l;
    char skipped[128] = "";
    cr_assert_eq(
        rb_selftest_load(&list, 7, rb_registry_find("floor"), count_skip, skipped, &l, &err), RB_OK,
        "%s", err.message);
    cr_expect_str_eq(skipped, "catchall-100;");
    cr_expect_eq(l.n, 1);
    cr_expect_str_eq(l.names, "static-100");
    cr_expect_null(l.failed);
    rb_selftest_loaded_free(&l);
    rb_scenario_list_free(&list);
}

Test(table_stream, a_stream_is_parsed_like_a_file_and_limited)
{
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    fputs("GET /a\nPOST /b/:id\n", f);
    rewind(f);
    rb_route_table t;
    rb_error err;
    cr_assert_eq(rb_route_table_read_stream(f, "stdin", 1024, &t, &err), RB_OK, "%s", err.message);
    cr_expect_eq(t.count, 2);
    rb_route_table_free(&t);
    rewind(f);
    cr_expect_eq(rb_route_table_read_stream(f, "stdin", 10, &t, &err), RB_ELIMIT);
    cr_expect_str_eq(err.message, "stdin: more than 10 bytes of routes");
    fclose(f);
}

static int take_name(void *ctx, const char *name)
{
    char *names = ctx;
    strcat(names, name);
    strcat(names, ";");
    return strcmp(name, "stop") == 0 ? 7 : 0;
}

Test(router_list, names_are_added_in_order_until_a_bad_one_or_a_refusal)
{
    char names[128] = "";
    cr_expect_eq(rb_router_list_names("radix,linear", take_name, names), 0);
    cr_expect_str_eq(names, "radix;linear;");
    names[0] = '\0';
    cr_expect_eq(rb_router_list_names("radix,,linear", take_name, names), RB_EINVAL);
    cr_expect_str_eq(names, "radix;", "the names before the empty one were added");
    names[0] = '\0';
    cr_expect_eq(rb_router_list_names("radix,", take_name, names), RB_EINVAL);
    names[0] = '\0';
    cr_expect_eq(rb_router_list_names("stop,radix", take_name, names), 7);
    cr_expect_str_eq(names, "stop;", "the add's refusal ends the list");
}

static int take_router(void *ctx, const rb_router_ops *ops, const char *label)
{
    (void)ops;
    char *labels = ctx;
    strcat(labels, label);
    strcat(labels, ";");
    return 0;
}

Test(router_list, every_router_is_the_registry_then_the_limit)
{
    char with[1024] = "", without[1024] = "";
    cr_expect_eq(rb_router_list_every(NULL, true, take_router, with), 0);
    cr_expect_eq(rb_router_list_every(NULL, false, take_router, without), 0);
    cr_expect(strstr(with, "linear;") != NULL, "%s", with);
    cr_expect(strstr(without, "limit;") == NULL, "%s", without);
    size_t n = strlen(without);
    cr_expect(strncmp(with, without, n) == 0 && strcmp(with + n, "limit;") == 0,
              "the limit comes last: %s", with);
}
