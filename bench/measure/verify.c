/*
 * verify.c — conformance of a router against EXPECTED and against linear.
 */
#include "verify.h"

#include "router_kit.h"
#include "shipped.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool rb_match_equal(const rb_match *a, const rb_match *b)
{
    if (a->outcome != b->outcome) return false;
    if (a->outcome == RB_METHOD_NOT_ALLOWED) return a->allowed == b->allowed;
    if (a->outcome != RB_FOUND) return true;
    if (a->route_id != b->route_id || a->nparams != b->nparams) return false;
    for (uint32_t i = 0; i < a->nparams && i < RB_MAX_CAPTURES; i++) {
        if (a->params[i].offset != b->params[i].offset || a->params[i].len != b->params[i].len)
            return false;
    }
    return true;
}

bool rb_match_expected(const rb_match *m, int32_t expected)
{
    if (expected == RB_EXPECT_NOT_FOUND) return m->outcome == RB_NOT_FOUND;
    if (expected == RB_EXPECT_NOT_ALLOWED) return m->outcome == RB_METHOD_NOT_ALLOWED;
    return m->outcome == RB_FOUND && m->route_id == (uint32_t)expected;
}

void rb_match_format(const rb_match *m, char *buf, size_t cap)
{
    size_t n = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int w_ = snprintf(buf + n, n < cap ? cap - n : 0, __VA_ARGS__);                            \
        if (w_ > 0) n += (size_t)w_;                                                               \
    } while (0)
    if (cap == 0) return;
    buf[0] = '\0';
    if (m->outcome == RB_FOUND) {
        PUT("200 route %u", m->route_id);
        if (m->nparams) {
            PUT(" [");
            for (uint32_t i = 0; i < m->nparams && i < RB_MAX_CAPTURES; i++)
                PUT("%s%u+%u", i ? " " : "", m->params[i].offset, m->params[i].len);
            PUT("]");
        }
    } else if (m->outcome == RB_METHOD_NOT_ALLOWED) {
        PUT("405 allow ");
        int first = 1;
        for (int i = 0; i < RB_METHOD_COUNT; i++) {
            if (m->allowed & RB_METHOD_BIT(i)) {
                PUT("%s%s", first ? "" : ",", rb_method_name(i));
                first = 0;
            }
        }
    } else {
        PUT("%d", m->outcome);
    }
#undef PUT
}

/* Look every request up in each router and in ref; count in reps[k] the
 * answers of routers[k] that agree with EXPECTED and with ref's, keeping
 * the first disagreements as examples.  One lookup in ref per request,
 * however many routers. */
static void compare(const rb_router *const *routers, size_t n, const rb_router *ref,
                    const rb_request_table *requests, rb_verify_report *reps)
{
    for (size_t i = 0; i < requests->count; i++) {
        const rb_request *q = &requests->reqs[i];
        rb_match want;
        memset(&want, 0, sizeof want);
        rb_router_lookup(ref, q->method, rb_request_path(requests, i), q->len, &want);
        for (size_t k = 0; k < n; k++) {
            rb_verify_report *rep = &reps[k];
            rb_match got;
            memset(&got, 0, sizeof got);
            rb_router_lookup(routers[k], q->method, rb_request_path(requests, i), q->len, &got);
            bool ok_expected = rb_match_expected(&got, q->expected);
            bool ok_linear = rb_match_equal(&got, &want);
            rep->agree_expected += ok_expected;
            rep->agree_linear += ok_linear;
            rep->disagreeing += !ok_expected || !ok_linear;
            if (rep->refused && ok_linear && !ok_expected) { /* EXPECTED's route was refused */
                rep->expect_refused++;
                continue;
            }
            if ((!ok_expected || !ok_linear) && rep->nexamples < RB_VERIFY_MAX_EXAMPLES)
                rep->examples[rep->nexamples++] = (rb_verify_example){i, got, want, ok_expected};
        }
    }
}

int rb_verify_built(const rb_router *const *routers, size_t n, const rb_route_table *routes,
                    const char *routes_name, const rb_request_table *requests,
                    rb_verify_report *reps, rb_error *err)
{
    for (size_t k = 0; k < n; k++) {
        memset(&reps[k], 0, sizeof reps[k]);
        reps[k].routes = routes->count;
        reps[k].requests = requests->count;
    }
    /* linear among the routers is the reference already */
    const rb_router *ref = NULL;
    for (size_t k = 0; k < n && !ref; k++)
        if (rb__router_ops(routers[k]) == &rb__linear_ops) ref = routers[k];
    rb_router *built = NULL;
    if (!ref) {
        int rc =
            rb_route_table_build_router(routes, routes_name, &rb__linear_ops, NULL, &built, err);
        if (rc < 0) return rc;
        ref = built;
    }
    compare(routers, n, ref, requests, reps);
    rb_router_destroy(built);
    return RB_OK;
}

void rb_verify_example_format(const rb_verify_example *x, const rb_request_table *requests,
                              char *buf, size_t cap)
{
    const rb_request *q = &requests->reqs[x->request];
    char got[300], want[300], where[48];
    rb_match_format(&x->got, got, sizeof got);
    rb_match_format(&x->want, want, sizeof want);
    if (q->line)
        snprintf(where, sizeof where, "line %zu", q->line);
    else
        snprintf(where, sizeof where, "request %zu", x->request + 1);
    /* the path as printable ASCII: a hostile path puts no raw byte on a terminal */
    char path[130];
    size_t w = 0;
    for (size_t i = 0; i < q->len && w + 1 < sizeof path; i++) {
        unsigned char c = (unsigned char)rb_request_path(requests, x->request)[i];
        path[w++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    path[w] = '\0';
    snprintf(buf, cap, "%s: %s %s%s expected %d, got %s; linear says %s", where,
             rb_method_name(q->method), path, q->len > w ? "..." : "", (int)q->expected, got, want);
}

int rb_verify(const rb_router_ops *ops, const rb_route_table *routes, const char *routes_name,
              const rb_request_table *requests, rb_verify_report *rep, rb_error *err)
{
    memset(rep, 0, sizeof *rep);
    rep->routes = routes->count;
    rep->requests = requests->count;
    if (routes->count == 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s: no routes: nothing to verify",
                         routes_name);
    if (requests->count == 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "no requests: nothing to verify");
    rb_router *r = NULL, *ref = NULL;
    int rc = rb_router_create_ops(ops, NULL, &r, err);
    if (rc == RB_OK) rc = rb_router_create_ops(&rb__linear_ops, NULL, &ref, err);
    for (size_t i = 0; rc == RB_OK && i < routes->count; i++) {
        const rb_route_entry *e = &routes->routes[i];
        rb_error aerr;
        size_t line = e->line ? e->line : i + 1;
        int arc =
            rb_router_add(r, e->method, rb_route_pattern(routes, i), e->len, (uint32_t)i, &aerr);
        if (arc == RB_EUNSUPPORTED) {
            if (rep->refused++ == 0) {
                rep->first_refusal = aerr;
                rep->first_refusal.line = line;
                snprintf(rep->first_refusal.message, sizeof rep->first_refusal.message,
                         "%s:%zu: %s", routes_name, line, aerr.message);
            }
            continue;
        }
        if (arc == RB_OK)
            arc = rb_router_add(ref, e->method, rb_route_pattern(routes, i), e->len, (uint32_t)i,
                                &aerr);
        if (arc < 0) {
            rc = arc;
            if (err) {
                *err = aerr;
                err->line = line;
                snprintf(err->message, sizeof err->message, "%s:%zu: %s", routes_name, line,
                         aerr.message);
            }
        }
    }
    if (rc == RB_OK) rc = rb_router_build(r, err);
    if (rc == RB_OK) rc = rb_router_build(ref, err);
    if (rc == RB_OK) rc = rb_router_check(r, err); /* the router's own invariants */
    if (rc == RB_OK) rc = rb_router_check(ref, err);
    if (rc == RB_OK) {
        const rb_router *one = r;
        compare(&one, 1, ref, requests, rep);
    }
    rb_router_destroy(r);
    rb_router_destroy(ref);
    return rc;
}

bool rb_verify_ok(const rb_verify_report *rep)
{
    return rep->refused == 0 && rep->agree_expected == rep->requests &&
           rep->agree_linear == rep->requests;
}

int rb_verify_files(const rb_router_ops *ops, const char *routes_path, const char *requests_path,
                    rb_request_table *requests, rb_verify_report *rep, rb_error *err)
{
    rb_route_table routes;
    memset(requests, 0, sizeof *requests);
    memset(rep, 0, sizeof *rep);
    int rc = rb_route_table_read(routes_path, &routes, err);
    if (rc < 0) return rc;
    rc = rb_request_table_read(requests_path, requests, err);
    if (rc == RB_OK && requests->count == 0)
        rc = rb__error(err, RB_EINVAL, RB_NO_OFFSET, "%s: no requests: nothing to verify",
                       requests_path);
    if (rc == RB_OK && routes.count > 0) /* else rb_verify says there is nothing to verify */
        rc = rb_request_table_check_routes(requests, requests_path, &routes, routes_path, err);
    if (rc == RB_OK) rc = rb_verify(ops, &routes, routes_path, requests, rep, err);
    rb_route_table_free(&routes);
    return rc;
}

int rb_verify_all(const rb_verify_subject *subjects, size_t n, rb_verify_each_fn each, void *ctx,
                  rb_verify_totals *tot, rb_error *err)
{
    memset(tot, 0, sizeof *tot);
    const char *data = getenv("ROUTEBENCH_DATA");
    size_t absent = 0;
    for (size_t c = 0; c < rb_shipped_count(); c++) {
        char rpath[4096], qpath[4096];
        const char *name = rb_shipped_name(c);
        if (!rb_shipped_path(name, "routes", rpath, sizeof rpath) ||
            !rb_shipped_path(name, "requests", qpath, sizeof qpath))
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "data path too long for corpus %s",
                             name);
        if (data && *data && access(rpath, F_OK) != 0 && errno == ENOENT) {
            absent++;
            for (size_t i = 0; i < n; i++) {
                rb_verify_run run = {.router = subjects[i].label,
                                     .corpus = name,
                                     .routes_path = rpath,
                                     .requests_path = qpath,
                                     .skipped = true,
                                     .absent = true};
                tot->skipped++;
                if (each) each(ctx, &run);
            }
            continue;
        }
        rb_route_table routes;
        rb_request_table reqs;
        int rc = rb_route_table_read(rpath, &routes, err);
        if (rc < 0) return rc;
        rc = rb_request_table_read(qpath, &reqs, err);
        if (rc == RB_OK) rc = rb_request_table_check_routes(&reqs, qpath, &routes, rpath, err);
        if (rc < 0) {
            rb_request_table_free(&reqs);
            rb_route_table_free(&routes);
            return rc;
        }
        unsigned need = rb_route_table_features(&routes);
        for (size_t i = 0; i < n; i++) {
            rb_verify_run run = {.router = subjects[i].label,
                                 .corpus = name,
                                 .routes_path = rpath,
                                 .requests_path = qpath,
                                 .requests = &reqs};
            unsigned have = rb_ops_features(subjects[i].ops);
            run.peer = (have & RB_FEAT_PEER) != 0;
            run.skipped = (need & ~have) != 0;
            if (run.skipped) {
                tot->skipped++;
            } else {
                run.status = rb_verify(subjects[i].ops, &routes, rpath, &reqs, &run.rep, &run.err);
                tot->runs++;
                bool ok = run.status == RB_OK && rb_verify_ok(&run.rep);
                if (!ok && run.peer && run.status == RB_OK)
                    tot->peers_disagreeing++;
                else if (!ok)
                    tot->failed++;
            }
            if (each) each(ctx, &run);
        }
        rb_route_table_free(&routes);
        rb_request_table_free(&reqs);
    }
    if (absent && absent == rb_shipped_count())
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "ROUTEBENCH_DATA=%s holds none of the shipped corpora", data);
    return RB_OK;
}
