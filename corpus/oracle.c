/*
 * oracle.c — linear on the candidate routes of one path, or on the whole
 * table when that is cheaper (see oracle.h).
 */
#include "oracle.h"

#include "router_kit.h"

#include <stdio.h>
#include <stdlib.h>
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
    rb_router_destroy(o->whole);
    free(o->first_routes);
    o->whole = NULL;
    o->first_routes = NULL;
}

/* Add route id of the table to r; an error names the route's line. */
static int add_route(rb_router *r, const rb_route_table *t, uint32_t id, rb_error *err)
{
    const rb_route_entry *e = &t->routes[id];
    rb_error aerr;
    int rc = rb_router_add(r, e->method, rb_route_pattern(t, id), e->len, id, &aerr);
    if (rc < 0 && err) {
        *err = aerr;
        err->line = e->line ? e->line : id + 1u;
        snprintf(err->message, sizeof err->message, "line %zu: %s", err->line, aerr.message);
    }
    return rc;
}

/* linear holding the routes ids[0, n) (all of the table's distinct routes
 * when ids is NULL). */
static int make_linear(const rb_shape_tree *st, const uint32_t *ids, size_t n, rb_router **out,
                       rb_error *err)
{
    const rb_route_table *t = st->table;
    const rb_config cfg = {NULL, 1}; /* an explicit seed: no random draw per lookup */
    int rc = rb_router_create_ops(&rb__linear_ops, &cfg, out, err);
    if (rc < 0) return rc;
    for (size_t i = 0; i < n && rc == RB_OK; i++) {
        uint32_t id = ids ? ids[i] : (uint32_t)i;
        if (!ids && st->dup_of[id] != RB_ST_NONE) continue;
        rc = add_route(*out, t, id, err);
    }
    if (rc == RB_OK) rc = rb_router_build(*out, err);
    if (rc < 0) {
        rb_router_destroy(*out);
        *out = NULL;
    }
    return rc;
}

/* The whole table's linear, and the routes below each depth-1 node (what
 * linear tries for a path: its first segment's routes and the wild ones). */
static int make_whole(rb_oracle *o, rb_error *err)
{
    const rb_shape_tree *st = o->st;
    o->first_routes = calloc(st->nnodes, sizeof *o->first_routes);
    if (!o->first_routes) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    /* a node's id is above its parent's: one pass from the last node up */
    for (size_t n = st->nnodes; n-- > 1;) {
        const rb_st_node *x = &st->nodes[n];
        o->first_routes[n] += x->routes_count;
        if (x->parent != RB_ST_ROOT) o->first_routes[x->parent] += o->first_routes[n];
    }
    o->wild_routes = 0;
    for (uint32_t c = st->nodes[RB_ST_ROOT].first_wild; c != RB_ST_NONE; c = st->nodes[c].next_wild)
        o->wild_routes += o->first_routes[c];
    int rc = make_linear(st, NULL, st->table->count, &o->whole, err);
    o->work += (uint64_t)st->table->count * RB_ORACLE_ADD_UNITS;
    o->added += st->table->count;
    return rc;
}

/* The routes the whole table's linear tries for path. */
static uint64_t whole_tries(const rb_oracle *o, const char *path, size_t len)
{
    uint64_t n = o->wild_routes;
    if (len > 0 && path[0] == '/') {
        const char *slash = memchr(path + 1, '/', len - 1);
        size_t end = slash ? (size_t)(slash - path) : len;
        uint32_t c = rb_st_child(o->st, RB_ST_ROOT, RB_SEG_STATIC, path + 1, end - 1);
        if (c != RB_ST_NONE) n += o->first_routes[c];
    }
    return n;
}

int rb_oracle_lookup(rb_oracle *o, int method, const char *path, size_t len, rb_match *m,
                     rb_error *err)
{
    const rb_shape_tree *st = o->st;
    size_t steps;
    int rc = rb_st_candidates_counted(st, path, len, &o->cand, &o->scratch, &steps);
    if (rc < 0) return rb__error(err, rc, RB_NO_OFFSET, "out of memory finding candidates");
    o->lookups++;
    o->candidates += o->cand.n;
    o->steps += steps;
    o->work += 1 + (steps + o->cand.n) * RB_ORACLE_STEP_UNITS;
    uint64_t adding = (uint64_t)o->cand.n * RB_ORACLE_ADD_UNITS;
    if (!o->whole && o->spent_adding + adding > (uint64_t)st->table->count * RB_ORACLE_ADD_UNITS) {
        rc = make_whole(o, err);
        if (rc < 0) return rc;
    }
    memset(m, 0, sizeof *m);
    if (o->whole) {
        uint64_t tries = whole_tries(o, path, len);
        if (tries <= adding + o->cand.n) {
            o->work += tries;
            rb_router_lookup(o->whole, method, path, len, m);
            return RB_OK;
        }
    }
    o->spent_adding += adding;
    o->added += o->cand.n;
    o->work += adding + o->cand.n;
    rb_router *r;
    rc = make_linear(st, o->cand.v, o->cand.n, &r, err);
    if (rc < 0) return rc;
    rb_router_lookup(r, method, path, len, m);
    rb_router_destroy(r);
    return RB_OK;
}
