/*
 * limit.c — the limit of a request table (see limit.h).
 */
#include "limit.h"

#include "base_internal.h"
#include "router.h"

int rb_limit_build(const rb_request_table *q, const rb_router_ops *ops, const rb_config *config,
                   rb_router **out, size_t *npaths, rb_error *err)
{
    *out = NULL;
    *npaths = 0;
    rb_router *r;
    int rc = rb_router_create_ops(ops, config, &r, err);
    if (rc < 0) return rc;
    size_t added = 0;
    for (size_t i = 0; i < q->count; i++) {
        const rb_request *x = &q->reqs[i];
        if (x->expected < 0) continue;
        rb_error e;
        rc = rb_router_add(r, x->method, rb_request_path(q, i), x->len, (uint32_t)x->expected, &e);
        if (rc == RB_EDUPLICATE) continue; /* a repeated request */
        if (rc < 0) {
            rb_router_destroy(r);
            rb__error(err, rc, e.offset, "the limit: request %zu, %s %.*s: %s",
                      x->line ? x->line : i + 1, rb_method_name(x->method), (int)x->len,
                      rb_request_path(q, i), e.message);
            err->line = x->line ? x->line : i + 1;
            return rc;
        }
        added++;
    }
    rc = rb_router_build(r, err);
    if (rc < 0) {
        rb_router_destroy(r);
        return rc;
    }
    *out = r;
    *npaths = added;
    return RB_OK;
}
