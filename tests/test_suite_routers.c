/*
 * test_suite_routers.c — a session's routers from a user's specs
 * (bench/suite/suite_routers.h): limit and compiled are found like any
 * router, a router is added once, an unknown name is an error naming it,
 * and finishing a session joins its peers and gives it the default suite
 * when no scenario was named.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "suite_routers.h"

Test(suite_routers, limit_and_compiled_are_routers_like_the_others)
{
    rb_suite s;
    rb_suite_init(&s);
    rb_error err;
    cr_assert_eq(rb_suite_add_spec(&s, "radix", &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_suite_add_spec(&s, "limit", &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_suite_add_spec(&s, "compiled", &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_suite_add_spec(&s, "radix", &err), RB_OK, "%s", err.message);
    cr_expect_eq(s.nrouters, 3, "radix once");
    cr_expect_str_eq(s.labels[0], "radix");
    cr_expect_str_eq(s.labels[1], "limit");
    cr_expect_str_eq(s.labels[2], "compiled");
    cr_expect_lt(rb_suite_add_spec(&s, "nosuchrouter", &err), 0);
    cr_expect(strstr(err.message, "nosuchrouter") != NULL, "%s", err.message);
    cr_expect_eq(s.nrouters, 3);
    rb_suite_free(&s);
}

Test(suite_routers, finish_joins_peers_and_gives_the_default_suite)
{
    rb_suite s;
    rb_suite_init(&s);
    rb_error err;
    cr_assert_eq(rb_suite_add_spec(&s, "hashseg", &err), RB_OK, "%s", err.message);
    rb_peer_spec peer;
    cr_assert_eq(rb_peer_spec_parse("mine=/bin/true", &peer, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_suite_add_peer(&s, &peer, &err), RB_OK, "%s", err.message);
    cr_expect_eq(s.nrouters, 1, "a peer is no router before the session is finished");
    cr_assert_eq(rb_suite_finish(&s, NULL, NULL, &err), RB_OK, "%s", err.message);
    cr_expect_eq(s.nrouters, 2);
    cr_expect_str_eq(s.labels[1], "mine");
    cr_expect_gt(s.scenarios.n, 1, "the default suite");
    rb_suite_free(&s);
}
