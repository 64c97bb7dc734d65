/*
 * oracle.c — linear on the candidate routes of one path (see oracle.h).
 */
#include "oracle.h"

#include "router_kit.h"

#include <stdio.h>
#include <string.h>

void rb_oracle_init(rb_oracle *o, const rb_shape_tree *st)
{
    memset(o, 0, sizeof *o);
    o->st = st;
}

void rb_oracle_free(rb_oracle *o)
{
    rb_u32vec_free(&o->cand);
    rb_u32vec_free(&o->scratch);
}

int rb_oracle_lookup(rb_oracle *o, int method, const char *path, size_t len, rb_match *m,
                     rb_error *err)
{
    const rb_route_table *t = o->st->table;
    int rc = rb_st_candidates(o->st, path, len, &o->cand, &o->scratch);
    if (rc < 0) return rb__error(err, rc, RB_NO_OFFSET, "out of memory finding candidates");
    o->lookups++;
    o->candidates += o->cand.n;
    rb_router *r;
    const rb_config cfg = {NULL, 1}; /* an explicit seed: no random draw per lookup */
    rc = rb_router_create_ops(&rb__linear_ops, &cfg, &r, err);
    if (rc < 0) return rc;
    for (size_t i = 0; i < o->cand.n && rc == RB_OK; i++) {
        uint32_t id = o->cand.v[i];
        const rb_route_entry *e = &t->routes[id];
        rb_error aerr;
        rc = rb_router_add(r, e->method, rb_route_pattern(t, id), e->len, id, &aerr);
        if (rc < 0 && err) {
            *err = aerr;
            err->line = e->line ? e->line : id + 1u;
            snprintf(err->message, sizeof err->message, "line %zu: %s", err->line, aerr.message);
        }
    }
    if (rc == RB_OK) rc = rb_router_build(r, err);
    if (rc == RB_OK) {
        memset(m, 0, sizeof *m);
        rb_router_lookup(r, method, path, len, m);
    }
    rb_router_destroy(r);
    return rc;
}
