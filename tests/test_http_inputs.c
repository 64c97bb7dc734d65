/*
 * test_http_inputs.c — an HTTP run's inputs as the command names them
 * (bench/http/http_inputs.h): the router list split on commas, empty
 * names dropped; a shipped corpus or two files; the errors name the
 * option.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "http_inputs.h"

Test(http_inputs, routers_split_and_corpus_resolved)
{
    rb_http_options o;
    rb_http_options_init(&o);
    rb_http_inputs in;
    rb_error err;
    cr_assert_eq(rb_http_inputs_resolve(&o, &in, "radix,,hashseg,", "github", NULL, &err), RB_OK,
                 "%s", err.message);
    cr_expect_eq(o.nspecs, 2);
    cr_expect_str_eq(o.specs[0], "radix");
    cr_expect_str_eq(o.specs[1], "hashseg");
    size_t n = strlen(o.routes_path);
    cr_expect(n > 14 && strcmp(o.routes_path + n - 14, "/github.routes") == 0, "%s", o.routes_path);
    n = strlen(o.server_path);
    cr_expect(n >= 22 && strcmp(o.server_path + n - 22, "routebench-http-server") == 0, "%s",
              o.server_path);
}

Test(http_inputs, errors_name_the_option)
{
    rb_http_options o;
    rb_http_options_init(&o);
    rb_http_inputs in;
    rb_error err;
    cr_expect_eq(rb_http_inputs_resolve(&o, &in, ",", "github", NULL, &err), RB_EINVAL);
    cr_expect_str_eq(err.message, "--routers needs at least one router");
    cr_expect_eq(rb_http_inputs_resolve(&o, &in, "radix", "nosuch", NULL, &err), RB_EINVAL);
    cr_expect_str_eq(err.message, "no shipped corpus 'nosuch' (routebench list)");
    rb_http_options_init(&o);
    cr_expect_eq(rb_http_inputs_resolve(&o, &in, "radix", NULL, "/x/server", &err), RB_EINVAL);
    cr_expect_str_eq(err.message, "needs --routes F and --requests F, or --corpus NAME");
    cr_expect_str_eq(o.server_path, "/x/server");
}
