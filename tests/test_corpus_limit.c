/*
 * test_corpus_limit.c — the limit of a request table (corpus/limit.h): an
 * exact-match router over the paths its requests find a route for.
 *
 * Rules checked: every hit request of every shipped table is found with
 * the route id it expects (repeats added once); every miss is not found;
 * the number of paths added is the number of distinct hit (method, path)
 * pairs, counted here independently; a requested path that reads as a
 * pattern with a param is refused with the request's line.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "limit.h"
#include "rb_test.h"
#include "shipped.h"

static const rb_router_ops *floor_ops(void)
{
    const rb_router_ops *ops = rb_registry_find("floor");
    cr_assert_not_null(ops);
    return ops;
}

/* Distinct (method, path) pairs among the hits of q, by comparing each hit
 * with every earlier one (quadratic: a check, not the code under test). */
static size_t distinct_hits(const rb_request_table *q)
{
    size_t n = 0;
    for (size_t i = 0; i < q->count; i++) {
        const rb_request *x = &q->reqs[i];
        if (x->expected < 0) continue;
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++) {
            const rb_request *y = &q->reqs[k];
            seen = y->expected >= 0 && y->method == x->method && y->len == x->len &&
                   memcmp(rb_request_path(q, k), rb_request_path(q, i), x->len) == 0;
        }
        n += !seen;
    }
    return n;
}

Test(limit, every_hit_found_with_its_route_every_miss_not_found)
{
    const char *names[] = {"github", "discord", "twilio", "static"};
    for (size_t t = 0; t < sizeof names / sizeof names[0]; t++) {
        char path[4096];
        cr_assert_not_null(rb_shipped_path(names[t], "requests", path, sizeof path));
        rb_request_table q;
        rb_error err;
        cr_assert_eq(rb_request_table_read(path, &q, &err), RB_OK, "%s", err.message);
        rb_router *r;
        size_t npaths;
        cr_assert_eq(rb_limit_build(&q, floor_ops(), NULL, &r, &npaths, &err), RB_OK, "%s: %s",
                     names[t], err.message);
        cr_assert_eq(npaths, distinct_hits(&q), "%s", names[t]);
        size_t hits = 0;
        for (size_t i = 0; i < q.count; i++) {
            const rb_request *x = &q.reqs[i];
            rb_match m;
            rb_router_lookup(r, x->method, rb_request_path(&q, i), x->len, &m);
            if (x->expected >= 0) {
                hits++;
                cr_assert_eq(m.outcome, RB_FOUND, "%s request %zu", names[t], i);
                cr_assert_eq(m.route_id, (uint32_t)x->expected, "%s request %zu", names[t], i);
                cr_assert_eq(m.nparams, 0);
            } else {
                cr_assert_neq(m.outcome, RB_FOUND, "%s request %zu (a miss)", names[t], i);
            }
        }
        cr_assert_gt(hits, q.count / 2, "%s: most requests hit", names[t]);
        rb_router_destroy(r);
        rb_request_table_free(&q);
    }
}

Test(limit, a_path_that_reads_as_a_pattern_is_refused_with_its_line)
{
    const char *text = "GET /users/7 0\nGET /users/:id 0\n";
    rb_request_table q;
    rb_error err;
    cr_assert_eq(rb_request_table_parse("q", text, strlen(text), &q, &err), RB_OK, "%s",
                 err.message);
    rb_router *r = (rb_router *)&q; /* must be reset to NULL */
    size_t npaths = 1;
    int rc = rb_limit_build(&q, floor_ops(), NULL, &r, &npaths, &err);
    cr_assert_eq(rc, RB_EUNSUPPORTED, "%d: %s", rc, err.message);
    cr_assert_null(r);
    cr_assert_eq(npaths, 0);
    cr_assert_eq(err.line, 2);
    cr_assert_not_null(strstr(err.message, "/users/:id"), "%s", err.message);
    rb_request_table_free(&q);
}
